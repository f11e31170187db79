/*
 * jail_logs.c - `cell logs`: a detached jail's stdout and stderr.
 *
 * Its reaper writes them to a ring of files in the CRI log format
 * (logfile.h); logs shows the text of their lines in order, the parts of
 * a line (P) joined, optionally with each line's time (-t), the last N
 * (--tail), those since a time (--since), and follows (-f) across the
 * ring's turns.  The log of an older cell ("log": the raw output) is
 * shown as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jail.h"
#include "logfile.h"
#include "spec.h"
#include "store.h"

static void logs_usage(FILE *out)
{
	fputs("Usage: cell logs [-f] [-t] [--tail N] [--since TIME] NAME\n"
	      "\n"
	      "Print what a jail started with cell run -d (or cell up) wrote to its stdout\n"
	      "and stderr: the lines its reaper kept (log.size, log.keep; kept in its\n"
	      "state directory until cell rm).  On a terminal, control characters other\n"
	      "than newline and tab are shown as \\xNN.  When its output went elsewhere\n"
	      "(a file given to cell run -d, or nowhere with --no-init), says so.\n"
	      "\n"
	      "  -f, --follow      keep printing what it writes, until it ends\n"
	      "  -t, --timestamps  each line's time first (RFC 3339, UTC, nanoseconds)\n"
	      "  -n, --tail N      only the last N lines\n"
	      "      --since TIME  only lines since TIME: RFC 3339 (2026-12-05T06:00:00Z)\n"
	      "                    or a duration before now (30s, 10m, 1h, 2d)\n"
	      "  -h, --help        show this help\n",
	      out);
}

/*
 * A jail's output is the jail's to choose, and a terminal obeys what it
 * is sent: escape sequences retitle the window, rewrite the screen, set
 * the clipboard (OSC 52), answer back into the reader's input or hide
 * lines.  On a terminal, logs shows every control character but newline
 * and tab as a visible escape (\xNN): the C0 controls (ESC among them),
 * DEL, and the C1 controls, raw (0x80-0x9f, which a terminal not in
 * UTF-8 mode obeys) or encoded (U+0080-U+009F).  Valid UTF-8 text passes
 * as it is.  To a file or pipe the log goes byte for byte.
 */
struct escaper {
	unsigned char seq[4]; /* a UTF-8 sequence begun, perhaps in the last read */
	size_t have, want;
};

static void put_escaped(unsigned char c)
{
	if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))
		putchar(c);
	else
		printf("\\x%02x", c);
}

/* The sequence begun so far, escaped byte by byte (it is not text). */
static void escape_pending(struct escaper *x)
{
	for (size_t i = 0; i < x->have; i++)
		put_escaped(x->seq[i]);
	x->have = 0;
}

/* True when C may be byte number X->have of the sequence begun: a
 * continuation byte, narrower after some lead bytes (no overlong forms,
 * surrogates, or code points above U+10FFFF). */
static bool continues(const struct escaper *x, unsigned char c)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (x->have == 1) {
		switch (x->seq[0]) {
		case 0xe0:
			lo = 0xa0;
			break;
		case 0xed:
			hi = 0x9f;
			break;
		case 0xf0:
			lo = 0x90;
			break;
		case 0xf4:
			hi = 0x8f;
			break;
		}
	}
	return c >= lo && c <= hi;
}

static void escape_byte(struct escaper *x, unsigned char c)
{
	if (x->have > 0) {
		if (continues(x, c)) {
			x->seq[x->have++] = c;
			if (x->have < x->want)
				return;
			/* U+0080-U+009F, the C1 controls, are escaped too. */
			if (x->seq[0] == 0xc2 && x->seq[1] < 0xa0)
				escape_pending(x);
			else
				fwrite(x->seq, 1, x->have, stdout);
			x->have = 0;
			return;
		}
		escape_pending(x); /* cut short: C starts afresh */
	}
	x->want = c >= 0xc2 && c <= 0xdf   ? 2
		  : c >= 0xe0 && c <= 0xef ? 3
		  : c >= 0xf0 && c <= 0xf4 ? 4
					   : 0;
	if (x->want == 0) {
		put_escaped(c);
		return;
	}
	x->seq[0] = c;
	x->have = 1;
}

/* Copies FD to stdout up to its current end (escaped when X is not
 * NULL); -1 when stdout is closed.  An older cell's log. */
static int drain(int fd, struct escaper *x)
{
	unsigned char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (x != NULL)
			for (ssize_t i = 0; i < n; i++)
				escape_byte(x, buf[i]);
		else if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return -1;
		if (fflush(stdout) != 0)
			return -1;
	}
}

static void put_text(struct escaper *x, const char *text, size_t len)
{
	if (x == NULL) {
		fwrite(text, 1, len, stdout);
		return;
	}
	for (size_t i = 0; i < len; i++)
		escape_byte(x, (unsigned char)text[i]);
	escape_pending(x);
}

/* A line of one stream being joined from its parts. */
struct part {
	char *buf;
	size_t len, cap;
	char ts[LOGFILE_TS_LEN + 1]; /* of its first part */
	bool open;
};

/* What logs shows, and where it is. */
struct reader {
	bool timestamps;
	const char *since; /* a timestamp; NULL: all */
	bool counting;	   /* the first pass of --tail: count, print nothing */
	long long skip;	   /* lines not to print (--tail) */
	long long count;   /* lines seen */
	struct escaper *x;
	struct part part[2]; /* stdout, stderr */
};

static int part_add(struct part *p, const char *ts, const char *text, size_t len)
{
	if (!p->open) {
		memcpy(p->ts, ts, LOGFILE_TS_LEN);
		p->ts[LOGFILE_TS_LEN] = '\0';
		p->open = true;
		p->len = 0;
	}
	if (p->len + len + 1 > p->cap) {
		size_t cap = (p->len + len + 1) * 2;
		char *b = realloc(p->buf, cap);

		if (b == NULL)
			return -1;
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, text, len);
	p->len += len;
	return 0;
}

/* A whole line: counted, and shown unless skipped or too old. */
static void line_done(struct reader *r, const char *ts, const char *text, size_t len)
{
	if (r->since != NULL && strcmp(ts, r->since) < 0)
		return;
	if (r->counting || ++r->count <= r->skip)
		return;
	if (r->timestamps)
		printf("%.*s ", LOGFILE_TS_LEN, ts);
	put_text(r->x, text, len);
	putchar('\n');
}

static void part_done(struct reader *r, struct part *p)
{
	if (!p->open)
		return;
	if (r->counting) {
		if (r->since == NULL || strcmp(p->ts, r->since) >= 0)
			r->count++;
	} else {
		line_done(r, p->ts, p->buf != NULL ? p->buf : "", p->len);
	}
	p->open = false;
	p->len = 0;
}

/* One line of a log file (without its newline). */
static void feed(struct reader *r, const char *line, size_t len)
{
	struct logfile_line l;
	struct part *p;

	if (logfile_parse_line(line, len, &l) < 0)
		return; /* not a line of the log's: nothing the jail wrote */
	p = &r->part[l.is_stderr];
	if (l.partial || p->open) {
		if (part_add(p, l.ts, l.text, l.len) < 0)
			return;
		if (!l.partial)
			part_done(r, p);
		return;
	}
	if (r->counting) {
		if (r->since == NULL || strncmp(l.ts, r->since, LOGFILE_TS_LEN) >= 0)
			r->count++;
		return;
	}
	{
		char ts[LOGFILE_TS_LEN + 1];

		memcpy(ts, l.ts, LOGFILE_TS_LEN);
		ts[LOGFILE_TS_LEN] = '\0';
		line_done(r, ts, l.text, l.len);
	}
}

/* The whole lines of FD from *OFF on, fed to R; *OFF moves past them
 * (a line still being written waits for the next look). */
static void feed_file(struct reader *r, int fd, off_t *off)
{
	static char buf[1 << 16];
	size_t have = 0;

	for (;;) {
		ssize_t n = pread(fd, buf + have, sizeof(buf) - have, *off + (off_t)have);
		size_t start = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		for (size_t i = 0; i < have; i++)
			if (buf[i] == '\n') {
				feed(r, buf + start, i - start);
				start = i + 1;
			}
		/* A line longer than the buffer is none of the reaper's. */
		if (start == 0 && have == sizeof(buf))
			start = have;
		memmove(buf, buf + start, have - start);
		have -= start;
		*off += (off_t)start;
	}
	fflush(stdout);
}

static int open_log(int dirfd, int i)
{
	char name[16];

	snprintf(name, sizeof(name), "log.%d", i);
	return openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
}

/* Every file of the ring, in order, through R; the last one read and
 * how far into it, for -f. */
static void read_ring(struct reader *r, int dirfd, int *last, off_t *off)
{
	int idx[LOGFILE_MAX], n = logfile_list(dirfd, idx);

	*last = -1;
	*off = 0;
	for (int i = 0; i < n; i++) {
		int fd = open_log(dirfd, idx[i]);

		if (fd < 0)
			continue;
		*off = 0;
		feed_file(r, fd, off);
		close(fd);
		*last = idx[i];
	}
}

/* A pidfd of the jail's pid 1, or -1 when it does not run. */
static int jail_pidfd(int rootfd, const char *name)
{
	json_t *st = store_jail_peek(rootfd, name);
	int fd = jail_record_pidfd(st);

	json_decref(st);
	return fd;
}

/* Sleeps until the directory's files change (inotify IN) or the jail
 * ends (*PIDFD, then -1); false when logs should stop. */
static bool wait_change(int in, int *pidfd)
{
	struct pollfd p[2] = {{.fd = in, .events = POLLIN}, {.fd = *pidfd, .events = POLLIN}};
	char ev[4096];

	if (*pidfd < 0)
		return false; /* ended: what it wrote is all there */
	/* Without inotify, look again every 200 ms. */
	if (poll(p, 2, in >= 0 ? -1 : 200) < 0 && errno != EINTR)
		return false;
	if (p[0].revents && read(in, ev, sizeof(ev)) < 0 && errno != EAGAIN)
		return false;
	if (p[1].revents) {
		close(*pidfd);
		*pidfd = -1; /* one last look */
	}
	return true;
}

/*
 * -f: the file written last, from where the first reading stopped, then
 * the next one when the reaper turns the ring (the newest first line is
 * another file's), until the jail ends.  A file truncated under us (a
 * ring of one) is read again from its start.
 */
static void follow_ring(struct reader *r, int rootfd, const char *name, const char *dir, int dirfd,
			int last, off_t off)
{
	int in = inotify_init1(IN_CLOEXEC), pidfd = jail_pidfd(rootfd, name);

	if (in >= 0 && inotify_add_watch(in, dir, IN_MODIFY) < 0) {
		close(in);
		in = -1;
	}
	do {
		int idx[LOGFILE_MAX], n = logfile_list(dirfd, idx);
		int fd;
		struct stat st;

		if (n > 0 && idx[n - 1] != last) {
			/* The rest of the one we read, then the new one. */
			if (last >= 0 && (fd = open_log(dirfd, last)) >= 0) {
				feed_file(r, fd, &off);
				close(fd);
			}
			last = idx[n - 1];
			off = 0;
		}
		if (last < 0 || (fd = open_log(dirfd, last)) < 0)
			continue;
		if (fstat(fd, &st) == 0 && st.st_size < off)
			off = 0;
		feed_file(r, fd, &off);
		close(fd);
	} while (wait_change(in, &pidfd));
	if (pidfd >= 0)
		close(pidfd);
	if (in >= 0)
		close(in);
}

/* An older cell's log ("log": the raw output), as it is. */
static void follow_raw(int log, int rootfd, const char *name, const char *path, struct escaper *x)
{
	int in = inotify_init1(IN_CLOEXEC);
	int pidfd = jail_pidfd(rootfd, name);

	if (in >= 0 && inotify_add_watch(in, path, IN_MODIFY) < 0) {
		close(in);
		in = -1;
	}
	do {
		if (drain(log, x) < 0)
			break;
	} while (wait_change(in, &pidfd));
	if (pidfd >= 0)
		close(pidfd);
	if (in >= 0)
		close(in);
}

/* Where one stream went, unless to the log. */
static void say_stream(const char *name, const char *stream, const char *to)
{
	if (to == NULL)
		fprintf(stderr, "cell: logs: jail %s: its %s was not kept (--no-init)\n", name,
			stream);
	else if (strcmp(to, "log") != 0)
		fprintf(stderr, "cell: logs: jail %s: its %s went to %s\n", name, stream, to);
}

/*
 * Where the output of a detached jail without a log went, as its record
 * says (status 0: nothing is wrong, it is said on stderr); a
 * jail that never had a log (a foreground one) is an error, 125.
 */
static int say_where(const char *name, json_t *st)
{
	json_t *out = json_object_get(st, "output");
	const char *o = json_string_value(json_object_get(out, "stdout"));
	const char *e = json_string_value(json_object_get(out, "stderr"));

	if (!json_is_object(out))
		return cli_usage_error("logs", "jail %s: has no log (not started with -d)", name);
	if (o == NULL && e == NULL)
		fprintf(stderr, "cell: logs: jail %s: its output was not kept (--no-init)\n", name);
	else if (o != NULL && e != NULL && strcmp(o, e) == 0 && strcmp(o, "log") != 0)
		fprintf(stderr, "cell: logs: jail %s: its output went to %s\n", name, o);
	else {
		say_stream(name, "stdout", o);
		say_stream(name, "stderr", e);
	}
	return 0;
}

struct logs_args {
	bool follow, timestamps;
	long long tail; /* -1: all */
	char since[LOGFILE_TS_LEN + 1];
	bool has_since;
};

static int parse_logs(int argc, char **argv, struct logs_args *a)
{
	static const struct option opts[] = {
		{"follow", no_argument, NULL, 'f'},	{"timestamps", no_argument, NULL, 't'},
		{"tail", required_argument, NULL, 'n'}, {"since", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},	{NULL, 0, NULL, 0},
	};
	struct cell_err e;
	struct timespec now;
	int c;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+ftn:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->follow = true;
			break;
		case 't':
			a->timestamps = true;
			break;
		case 'n':
			if (spec_parse_count(optarg, &a->tail) < 0)
				return cli_usage_error(
					"logs", "--tail %s: expected a number of lines", optarg);
			break;
		case 'S':
			cell_err_clear(&e);
			clock_gettime(CLOCK_REALTIME, &now);
			if (logfile_parse_since(optarg,
						(long long)now.tv_sec * 1000000000LL + now.tv_nsec,
						a->since, &e) < 0)
				return cli_usage_error("logs", "--since %s: %s", optarg, e.msg);
			a->has_since = true;
			break;
		case 'h':
			logs_usage(stdout);
			return -2;
		default:
			return cli_bad_option("logs", argv, opts);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("logs", "expected one jail name (see cell logs --help)");
	return 0;
}

/* The ring of DIRFD through R, as A asks. */
static void show_ring(struct reader *r, const struct logs_args *a, int rootfd, const char *name,
		      const char *dir, int dirfd)
{
	int last;
	off_t off;

	if (a->tail >= 0) {
		r->counting = true;
		read_ring(r, dirfd, &last, &off);
		part_done(r, &r->part[0]);
		part_done(r, &r->part[1]);
		r->skip = r->count > a->tail ? r->count - a->tail : 0;
		r->count = 0;
		r->counting = false;
	}
	read_ring(r, dirfd, &last, &off);
	if (a->follow)
		follow_ring(r, rootfd, name, dir, dirfd, last, off);
	/* A line whose end never came. */
	part_done(r, &r->part[0]);
	part_done(r, &r->part[1]);
	free(r->part[0].buf);
	free(r->part[1].buf);
}

int cmd_logs(const struct cli_global *g, int argc, char **argv)
{
	struct logs_args a = {.tail = -1};
	char dir[4200], path[4300];
	struct escaper esc = {.have = 0};
	/* Escaped for a person's terminal only (see struct escaper). */
	struct escaper *x = isatty(STDOUT_FILENO) ? &esc : NULL;
	const char *name;
	struct cell_err e;
	json_t *st;
	int rootfd, dirfd, log, ret = 0;

	ret = parse_logs(argc, argv, &a);
	if (ret != 0)
		return ret == -2 ? 0 : ret;
	name = cli_jail_arg(g, argv[optind]); /* a JID names a jail too */
	cell_err_clear(&e);
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("logs", &e);
	st = rootfd >= 0 ? store_jail_peek(rootfd, name) : NULL;
	if (st == NULL) {
		if (rootfd >= 0)
			close(rootfd);
		return cli_usage_error("logs", "jail %s: no such jail", name);
	}
	snprintf(dir, sizeof(dir), "%s/%s", g->root, name);
	dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/log", dir);
	if (dirfd >= 0 && faccessat(dirfd, "log.0", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		struct reader r = {
			.timestamps = a.timestamps, .since = a.has_since ? a.since : NULL, .x = x};

		show_ring(&r, &a, rootfd, name, dir, dirfd);
	} else if ((log = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		if (a.follow)
			follow_raw(log, rootfd, name, path, x);
		else
			drain(log, x);
		if (x != NULL)
			escape_pending(x); /* a sequence the log ends in the middle of */
		close(log);
	} else {
		ret = say_where(name, st);
	}
	fflush(stdout);
	json_decref(st);
	if (dirfd >= 0)
		close(dirfd);
	close(rootfd);
	return ret;
}
