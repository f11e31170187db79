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
	      "(kept in its state directory until cell rm).\n"
	      "\n"
	      "  -f, --follow  keep printing what it writes, until it ends\n"
	      "  -h, --help    show this help\n",
	      out);
}

/* Copies FD to stdout up to its current end; -1 when stdout is closed. */
static int drain(int fd)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return -1;
		fflush(stdout);
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

static int follow(int log, int rootfd, const char *name, const char *path)
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

		if (drain(log) < 0)
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
		follow(log, rootfd, argv[optind], path);
	else
		drain(log);
	close(log);
	close(rootfd);
	return 0;
}
