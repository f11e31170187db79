/*
 * jail_logs.c - `cell logs`: a detached jail's stdout and stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cli.h"
#include "jail.h"
#include "store.h"

static void logs_usage(FILE *out)
{
	fputs("Usage: cell logs [-f] NAME\n"
	      "\n"
	      "Print what a jail started with cell run -d wrote to its stdout and stderr\n"
	      "(kept in its state directory until cell rm).  On a terminal, control\n"
	      "characters other than newline and tab are shown as \\xNN.\n"
	      "\n"
	      "  -f, --follow  keep printing what it writes, until it ends\n"
	      "  -h, --help    show this help\n",
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
 * NULL); -1 when stdout is closed. */
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

/* A pidfd of the jail's pid 1, or -1 when it does not run. */
static int jail_pidfd(int rootfd, const char *name)
{
	json_t *st = store_jail_peek(rootfd, name);
	int fd = jail_record_pidfd(st);

	json_decref(st);
	return fd;
}

static int follow(int log, int rootfd, const char *name, const char *path, struct escaper *x)
{
	int in = inotify_init1(IN_CLOEXEC);
	int pidfd = jail_pidfd(rootfd, name);

	if (in >= 0 && inotify_add_watch(in, path, IN_MODIFY) < 0) {
		close(in);
		in = -1;
	}
	for (;;) {
		struct pollfd p[2] = {{.fd = in, .events = POLLIN},
				      {.fd = pidfd, .events = POLLIN}};
		char ev[4096];

		if (drain(log, x) < 0)
			break;
		if (pidfd < 0)
			break; /* ended: what it wrote is all there */
		/* Without inotify, look again every 200 ms. */
		if (poll(p, 2, in >= 0 ? -1 : 200) < 0 && errno != EINTR)
			break;
		if (p[0].revents && read(in, ev, sizeof(ev)) < 0 && errno != EAGAIN)
			break;
		if (p[1].revents) {
			close(pidfd);
			pidfd = -1; /* one last drain */
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	if (in >= 0)
		close(in);
	return 0;
}

int cmd_logs(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"follow", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char path[4200];
	struct escaper esc = {.have = 0};
	/* Escaped for a person's terminal only (see struct escaper). */
	struct escaper *x = isatty(STDOUT_FILENO) ? &esc : NULL;
	bool follow_on = false;
	struct cell_err e;
	json_t *st;
	int c, rootfd, log;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			follow_on = true;
			break;
		case 'h':
			logs_usage(stdout);
			return 0;
		default:
			return cli_bad_option("logs", argv, opts);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("logs", "expected one jail name (see cell logs --help)");
	argv[optind] = cli_jail_arg(g, argv[optind]); /* a JID names a jail too */
	cell_err_clear(&e);
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("logs", &e);
	st = rootfd >= 0 ? store_jail_peek(rootfd, argv[optind]) : NULL;
	if (st == NULL) {
		if (rootfd >= 0)
			close(rootfd);
		return cli_usage_error("logs", "jail %s: no such jail", argv[optind]);
	}
	json_decref(st);
	snprintf(path, sizeof(path), "%s/%s/log", g->root, argv[optind]);
	log = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (log < 0) {
		int err = errno;

		close(rootfd);
		if (err == ENOENT)
			return cli_usage_error("logs", "jail %s: has no log (not started with -d)",
					       argv[optind]);
		return cli_usage_error("logs", "jail %s: %s: %s", argv[optind], path,
				       strerror(err));
	}
	if (follow_on)
		follow(log, rootfd, argv[optind], path, x);
	else
		drain(log, x);
	if (x != NULL)
		escape_pending(x); /* a sequence the log ends in the middle of */
	fflush(stdout);
	close(log);
	close(rootfd);
	return 0;
}
