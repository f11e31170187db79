/*
 * utc.c - a time in UTC, computed.  See utc.h.
 */
#include "utc.h"

#include <string.h>

/* Days since 1970-01-01 to year, month (1-12) and day, in eras of 400
 * years (146097 days), each era's years counted from March 1st so that
 * the leap day ends it. */
static void civil_date(long long days, long long *y, unsigned int *m, unsigned int *d)
{
	long long z = days + 719468; /* from 0000-03-01 */
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned int doe = (unsigned int)(z - era * 146097);
	unsigned int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned int mp = (5 * doy + 2) / 153; /* 0 = March */

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (long long)yoe + era * 400 + (*m <= 2);
}

static bool leap(long long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool utc_tm(long long t, struct tm *tm)
{
	static const unsigned short before[12] = {0,   31,  59,	 90,  120, 151,
						  181, 212, 243, 273, 304, 334};
	long long days = t / 86400, secs = t % 86400, y;
	unsigned int m, d;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	civil_date(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		return false;
	memset(tm, 0, sizeof(*tm));
	tm->tm_year = (int)(y - 1900);
	tm->tm_mon = (int)m - 1;
	tm->tm_mday = (int)d;
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
	/* 1970-01-01 was a Thursday. */
	tm->tm_wday = (int)(((days % 7) + 11) % 7);
	tm->tm_yday = before[m - 1] + (int)d - 1 + (m > 2 && leap(y));
	return true;
}
