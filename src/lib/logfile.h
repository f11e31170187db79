/*
 * logfile.h - a detached jail's log: the ring of files its reaper writes
 * (log.0 .. log.K in its state directory, K = log.keep) in the CRI log
 * format, one line each:
 *
 *   2026-12-05T06:01:02.123456789Z stdout F text
 *
 * (P instead of F: a part of a line, continued by the next of its
 * stream).  cell opens the files before the clone and hands them to the
 * reaper (src/init/reaper.c), which cannot rename in the state
 * directory: it truncates the next file of the ring instead.  The files
 * are read in the order of their first line's time.
 */
#ifndef CELL_LOGFILE_H
#define CELL_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* The most files of a ring (log.keep's largest + 1). */
#define LOGFILE_MAX 100

/* The length of a timestamp, "2026-12-05T06:01:02.123456789Z". */
#define LOGFILE_TS_LEN 30

/*
 * Opens (creates, appends to) log.0 .. log.N-1 of DIRFD into FDS
 * (close-on-exec, 0600) and says in *CUR the one written last: the one
 * whose first line is the newest (0 when all are empty).
 */
int logfile_open_ring(int dirfd, int n, int *fds, int *cur, struct cell_err *e);

/*
 * The log files of DIRFD that hold lines, oldest first: their numbers
 * into IDX (at most LOGFILE_MAX).  Returns how many; 0 when there are
 * none (no log.0, or empty files).
 */
int logfile_list(int dirfd, int *idx);

/* One line of the log, its parts pointing into the text parsed. */
struct logfile_line {
	const char *ts; /* LOGFILE_TS_LEN bytes */
	bool is_stderr;
	bool partial; /* P: continued by the stream's next line */
	const char *text;
	size_t len;
};

/* Parses LINE (LEN bytes, without its newline); -1 when it is not a
 * line of the format. */
int logfile_parse_line(const char *line, size_t len, struct logfile_line *out);

/*
 * TEXT as a time to compare timestamps with: RFC 3339 ("2026-12-05T06:
 * 01:02Z", "...+01:00", fractions) or a duration before NOW ("10m",
 * "1h", "30s", "2d"), written into TS as a timestamp of the log's form
 * (UTC, nanoseconds).  -1 with E when it is neither.
 */
int logfile_parse_since(const char *text, long long now, char ts[LOGFILE_TS_LEN + 1],
			struct cell_err *e);

#endif
