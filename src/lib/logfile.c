/*
 * logfile.c - a detached jail's log files: the ring cell opens for the
 * reaper, their order, their lines.  See logfile.h.
 */
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "utc.h"

/* The first line's timestamp of log.N in DIRFD into TS; false when the
 * file is missing, empty or not of the format. */
static bool first_ts(int dirfd, int n, char ts[LOGFILE_TS_LEN + 1])
{
	char name[16];
	int fd;
	ssize_t got;

	snprintf(name, sizeof(name), "log.%d", n);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	got = pread(fd, ts, LOGFILE_TS_LEN, 0);
	close(fd);
	ts[got > 0 ? got : 0] = '\0';
	return got == LOGFILE_TS_LEN && ts[4] == '-' && ts[LOGFILE_TS_LEN - 1] == 'Z';
}

int logfile_open_ring(int dirfd, int n, int *fds, int *cur, struct cell_err *e)
{
	char newest[LOGFILE_TS_LEN + 1] = "", ts[LOGFILE_TS_LEN + 1];

	*cur = 0;
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	for (int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "log.%d", i);
		fds[i] = openat(dirfd, name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
				0600);
		if (fds[i] < 0) {
			int err = errno;

			for (int k = 0; k < i; k++)
				close(fds[k]);
			return cell_err_set(e, err, "open %s", name);
		}
		if (first_ts(dirfd, i, ts) && strcmp(ts, newest) > 0) {
			memcpy(newest, ts, sizeof(ts));
			*cur = i;
		}
	}
	return 0;
}

int logfile_list(int dirfd, int *idx)
{
	char ts[LOGFILE_MAX][LOGFILE_TS_LEN + 1];
	int n = 0;

	for (int i = 0; i < LOGFILE_MAX; i++) {
		char name[16];

		snprintf(name, sizeof(name), "log.%d", i);
		if (faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
			break;
		if (!first_ts(dirfd, i, ts[n]))
			continue;
		idx[n++] = i;
	}
	/* Insertion sort by first timestamp: a handful of files. */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && strcmp(ts[k - 1], ts[k]) > 0; k--) {
			char t[LOGFILE_TS_LEN + 1];
			int x = idx[k];

			memcpy(t, ts[k], sizeof(t));
			memcpy(ts[k], ts[k - 1], sizeof(t));
			memcpy(ts[k - 1], t, sizeof(t));
			idx[k] = idx[k - 1];
			idx[k - 1] = x;
		}
	return n;
}

int logfile_parse_line(const char *line, size_t len, struct logfile_line *out)
{
	const char *p = line + LOGFILE_TS_LEN + 1;
	size_t head;

	/* "TS stdout F " or "TS stderr F ": the stream's name is 6 bytes. */
	head = LOGFILE_TS_LEN + 1 + 6 + 1 + 1 + 1;
	if (len < head - 1 || line[LOGFILE_TS_LEN] != ' ' || line[LOGFILE_TS_LEN - 1] != 'Z')
		return -1;
	if (strncmp(p, "stdout ", 7) != 0 && strncmp(p, "stderr ", 7) != 0)
		return -1;
	if (p[7] != 'F' && p[7] != 'P')
		return -1;
	out->ts = line;
	out->is_stderr = p[3] == 'e';
	out->partial = p[7] == 'P';
	out->text = len >= head ? line + head : line + len;
	out->len = len >= head ? len - head : 0;
	return 0;
}

/* A duration: a number and a unit, s m h or d. */
static int parse_duration(const char *text, long long *ns)
{
	static const struct {
		char unit;
		long long ns;
	} units[] = {{'s', 1000000000LL},
		     {'m', 60000000000LL},
		     {'h', 3600000000000LL},
		     {'d', 86400000000000LL}};
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || v < 0 || end[0] == '\0' || end[1] != '\0')
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].unit) {
			if (v > 9000000000000000000LL / units[i].ns)
				return -1;
			*ns = v * units[i].ns;
			return 0;
		}
	return -1;
}

/* RFC 3339: a date, T, a time, optional fractions, Z or +HH:MM/-HH:MM. */
static int parse_rfc3339(const char *text, long long *ns)
{
	struct tm tm = {0};
	const char *p = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
	long long frac = 0, scale = 1000000000LL, off = 0;
	time_t t;

	if (p == NULL)
		return -1;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
	}
	if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		int h = atoi(p + 1), m = atoi(p + 4);

		off = (h * 3600LL + m * 60LL) * (*p == '+' ? 1 : -1);
		p += 6;
	} else if (*p == 'Z') {
		p++;
	} else {
		return -1;
	}
	if (*p != '\0')
		return -1;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*ns = ((long long)t - off) * 1000000000LL + frac;
	return 0;
}

int logfile_parse_since(const char *text, long long now, char ts[LOGFILE_TS_LEN + 1],
			struct cell_err *e)
{
	long long ns, d;
	time_t secs;
	struct tm tm;
	char buf[96];

	if (parse_duration(text, &d) == 0)
		ns = now - d;
	else if (parse_rfc3339(text, &ns) < 0)
		return cell_err_set(e, 0,
				    "expected a time (RFC 3339, e.g. 2026-12-05T06:00:00Z) or "
				    "a duration (e.g. 10m, 1h)");
	if (ns < 0)
		ns = 0;
	secs = (time_t)(ns / 1000000000LL);
	if (!utc_tm((long long)secs, &tm))
		return cell_err_set(e, EOVERFLOW, "out of range");
	if (snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     ns % 1000000000LL) != LOGFILE_TS_LEN)
		return cell_err_set(e, EOVERFLOW, "out of range");
	memcpy(ts, buf, LOGFILE_TS_LEN + 1);
	return 0;
}
