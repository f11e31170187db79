/*
 * utc.h - a time in UTC without glibc's time zone: gmtime_r() and
 * strftime() read the host's /etc/localtime at their first call in a
 * process (tzset), which a UTC time never needs and which cost every
 * `cell run` its record's two times (docs/PERFORMANCE.md).
 */
#ifndef CELL_UTC_H
#define CELL_UTC_H

#include <stdbool.h>
#include <time.h>

/* T (seconds since the epoch) as a calendar date and time in UTC, the
 * proleptic Gregorian calendar: TM's year (since 1900), month (0-11),
 * day, hour, minute, second, day of the week and of the year.  False
 * when the year is outside 0 .. 9999 (*TM untouched). */
bool utc_tm(long long t, struct tm *tm);

#endif
