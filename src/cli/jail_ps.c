/*
 * jail_ps.c - `cell ps` (a jail's processes) and `cell stats` (what
 * jails use: CPU, memory, tasks), over stats.h.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "passwd.h"
#include "stats.h"
#include "store.h"
#include "untrusted.h"

#define STATS_INTERVAL_MS  1000 /* a live view's refresh */
#define STATS_NO_STREAM_MS 500	/* --no-stream: the two samples' distance */

static void ps_usage(FILE *out)
{
	fputs("Usage: cell ps [--json] NAME\n"
	      "\n"
	      "List the processes of a running jail, one row each: PID (in the jail's\n"
	      "pid namespace), HOST_PID (on the host), USER (the host's name of its uid,\n"
	      "or the number: a jail with ids of its own runs as a range no host user\n"
	      "has), STATE (R running, S sleeping, D disk, Z zombie, T stopped), TIME\n"
	      "(CPU time used, [D-]HH:MM:SS) and COMMAND.\n"
	      "\n"
	      "  -j, --json  a JSON array of objects: pid, host_pid, uid, user, state,\n"
	      "              cpu_ms, command (an array of the arguments)\n"
	      "  -h, --help  show this help\n",
	      out);
}

static void stats_usage(FILE *out)
{
	fputs("Usage: cell stats [--no-stream] [--json] [NAME...]\n"
	      "\n"
	      "Show what running jails use (every running jail without NAMEs): CPU %\n"
	      "(of one CPU, over the last interval), memory (the memory cgroup's usage,\n"
	      "or the sum of the processes' Pss) with the jail's memory limit, and tasks\n"
	      "(threads) with its nrtask limit.  On a terminal the view refreshes every\n"
	      "second until interrupted (the jails that ran when it began); else, or\n"
	      "with --no-stream or --json, it is printed once (CPU % over half a\n"
	      "second).\n"
	      "\n"
	      "      --no-stream  print one sample and exit\n"
	      "  -j, --json       a JSON array of objects: name, pid, cpu_percent,\n"
	      "                   cpu_usec, memory, memory_limit, memory_percent, tasks,\n"
	      "                   tasks_limit (bytes; null when not known or not set)\n"
	      "  -h, --help       show this help\n",
	      out);
}

/* --- users ----------------------------------------------------------- */

/* The host's user name of UID from /etc/passwd (read once; NSS is not
 * for a static binary), or NULL. */
static const char *user_name(uid_t uid)
{
	static char *text;
	static size_t len;
	static bool read_done;
	static struct passwd_user u;
	struct cell_err ignored;

	if (!read_done) {
		read_done = true;
		if (untrusted_read(AT_FDCWD, "/etc/passwd", 0, 16 << 20, &text, &len, &ignored) < 0)
			text = NULL;
	}
	if (text == NULL || passwd_find(text, len, NULL, uid, &u) != 1)
		return NULL;
	return u.name;
}

/* --- cell ps --------------------------------------------------------- */

/* CPU time as ps(1) shows it: [D-]HH:MM:SS. */
static void format_time(unsigned long long ms, char *buf, size_t size)
{
	unsigned long long s = ms / 1000, d = s / 86400;

	if (d > 0)
		snprintf(buf, size, "%llu-%02llu:%02llu:%02llu", d, s / 3600 % 24, s / 60 % 60,
			 s % 60);
	else
		snprintf(buf, size, "%02llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
}

/* An argument in the table: a control character as '?', so that one
 * process stays on one line (a jail chooses its processes' names). */
static void print_arg(const char *a)
{
	for (const unsigned char *p = (const unsigned char *)a; *p != '\0'; p++)
		putchar(*p < 0x20 || *p == 0x7f ? '?' : *p);
}

static void print_procs(const struct jail_proc *v, size_t n)
{
	printf("%-7s %-8s %-10s %-5s %-10s %s\n", "PID", "HOST_PID", "USER", "STATE", "TIME",
	       "COMMAND");
	for (size_t i = 0; i < n; i++) {
		const char *user = user_name(v[i].uid);
		char uid[16], t[32];
		size_t k;
		json_t *a;

		snprintf(uid, sizeof(uid), "%u", (unsigned int)v[i].uid);
		format_time(v[i].cpu_ms, t, sizeof(t));
		printf("%-7d %-8d %-10s %-5c %-10s ", (int)v[i].pid, (int)v[i].host_pid,
		       user != NULL ? user : uid, v[i].state, t);
		json_array_foreach(v[i].argv, k, a)
		{
			if (k > 0)
				putchar(' ');
			print_arg(json_string_value(a));
		}
		putchar('\n');
	}
}

static void print_procs_json(const struct jail_proc *v, size_t n)
{
	json_t *out = json_array();

	for (size_t i = 0; out != NULL && i < n; i++) {
		const char *user = user_name(v[i].uid);
		char state[2] = {v[i].state, '\0'};

		json_array_append_new(
			out, json_pack("{s:i, s:i, s:I, s:s?, s:s, s:I, s:O}", "pid", (int)v[i].pid,
				       "host_pid", (int)v[i].host_pid, "uid", (json_int_t)v[i].uid,
				       "user", user, "state", state, "cpu_ms",
				       (json_int_t)v[i].cpu_ms, "command", v[i].argv));
	}
	json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(out);
}

int cmd_ps(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct jail_proc *procs;
	struct cell_err e;
	bool json = false;
	int c, rootfd;
	size_t n;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			ps_usage(stdout);
			return 0;
		default:
			return cli_bad_option("ps", argv, opts);
		}
	}
	if (optind >= argc)
		return cli_usage_error("ps", "no jail named (see cell ps --help)");
	if (optind + 1 < argc)
		return cli_usage_error("ps", "unexpected argument '%s' (see cell ps --help)",
				       argv[optind + 1]);
	argv[optind] = cli_jail_arg(g, argv[optind]); /* a JID names a jail too */
	cell_err_clear(&e);
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("ps", &e);
	if (rootfd < 0)
		return cli_usage_error("ps", "jail %s: no such jail", argv[optind]);
	if (jail_ps(rootfd, argv[optind], &procs, &n, &e) < 0) {
		close(rootfd);
		return cli_fail("ps", &e);
	}
	close(rootfd);
	if (json)
		print_procs_json(procs, n);
	else
		print_procs(procs, n);
	jail_procs_free(procs, n);
	return 0;
}

/* --- cell stats ------------------------------------------------------ */

/* BYTES as docker shows them: 1.5KiB, 12.3MiB, 2GiB. */
static void format_bytes(long long bytes, char *buf, size_t size)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%lldB", bytes);
	else
		snprintf(buf, size, "%.4g%s", v < 100 ? ((long long)(v * 10 + 0.5)) / 10.0 : v,
			 unit[u]);
}

static double now_usec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double cpu_percent(long long before, long long after, double usec)
{
	if (before < 0 || after < before || usec <= 0)
		return 0;
	return (double)(after - before) * 100.0 / usec;
}

static void print_stats(const struct jail_sample *s, size_t n, const double *cpu)
{
	printf("%-20s %8s   %-21s %7s   %s\n", "NAME", "CPU %", "MEM USAGE / LIMIT", "MEM %",
	       "TASKS");
	for (size_t i = 0; i < n; i++) {
		char mem[32] = "-", lim[32] = "-", usage[80], pct[16] = "-", tasks[48];

		if (s[i].memory >= 0)
			format_bytes(s[i].memory, mem, sizeof(mem));
		if (s[i].memory_limit > 0) {
			format_bytes(s[i].memory_limit, lim, sizeof(lim));
			if (s[i].memory >= 0)
				snprintf(pct, sizeof(pct), "%.2f%%",
					 (double)s[i].memory * 100.0 / (double)s[i].memory_limit);
		}
		snprintf(usage, sizeof(usage), "%s / %s", mem, lim);
		if (s[i].tasks_limit > 0)
			snprintf(tasks, sizeof(tasks), "%lld / %lld", s[i].tasks, s[i].tasks_limit);
		else
			snprintf(tasks, sizeof(tasks), "%lld", s[i].tasks);
		printf("%-20s %7.2f%%   %-21s %7s   %s\n", s[i].name, cpu[i], usage, pct, tasks);
	}
}

static json_t *int_or_null(long long v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static void print_stats_json(const struct jail_sample *s, size_t n, const double *cpu)
{
	json_t *out = json_array();

	for (size_t i = 0; out != NULL && i < n; i++) {
		json_t *pct =
			s[i].memory >= 0 && s[i].memory_limit > 0
				? json_real((double)s[i].memory * 100.0 / (double)s[i].memory_limit)
				: json_null();

		json_array_append_new(
			out, json_pack("{s:s, s:i, s:f, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
				       s[i].name, "pid", (int)s[i].pid, "cpu_percent", cpu[i],
				       "cpu_usec", int_or_null(s[i].cpu_usec), "memory",
				       int_or_null(s[i].memory), "memory_limit",
				       int_or_null(s[i].memory_limit), "memory_percent", pct,
				       "tasks", int_or_null(s[i].tasks), "tasks_limit",
				       int_or_null(s[i].tasks_limit)));
	}
	json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(out);
}

static void sleep_ms(int ms)
{
	struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&t, &t) < 0)
		;
}

/* Samples S every INTERVAL_MS, printing each view; once when !LIVE. */
static int stats_loop(struct jail_sample *s, size_t n, bool live, bool json)
{
	long long *before = calloc(n + 1, sizeof(*before));
	double *cpu = calloc(n + 1, sizeof(*cpu));
	int interval = live ? STATS_INTERVAL_MS : STATS_NO_STREAM_MS;
	double t0, t1;

	if (before == NULL || cpu == NULL) {
		free(before);
		free(cpu);
		return cli_usage_error("stats", "out of memory");
	}
	jail_stats_sample(s, n, false);
	t0 = now_usec();
	for (;;) {
		for (size_t i = 0; i < n; i++)
			before[i] = s[i].cpu_usec;
		sleep_ms(interval);
		jail_stats_sample(s, n, true);
		t1 = now_usec();
		for (size_t i = 0; i < n; i++)
			cpu[i] = cpu_percent(before[i], s[i].cpu_usec, t1 - t0);
		t0 = t1;
		if (live)
			fputs("\033[H\033[J", stdout); /* top of the screen, cleared */
		if (json)
			print_stats_json(s, n, cpu);
		else
			print_stats(s, n, cpu);
		fflush(stdout);
		if (!live)
			break;
	}
	free(before);
	free(cpu);
	return 0;
}

int cmd_stats(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"no-stream", no_argument, NULL, 'N'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, no_stream = false;
	struct jail_sample *s;
	struct cell_err e;
	int c, rootfd, ret;
	size_t n;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'N':
			no_stream = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			stats_usage(stdout);
			return 0;
		default:
			return cli_bad_option("stats", argv, opts);
		}
	}
	for (int i = optind; i < argc; i++)
		argv[i] = cli_jail_arg(g, argv[i]); /* a JID names a jail too */
	cell_err_clear(&e);
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("stats", &e);
	if (rootfd < 0 && optind < argc)
		return cli_usage_error("stats", "jail %s: no such jail", argv[optind]);
	if (rootfd < 0) {
		s = NULL;
		n = 0;
	} else if (jail_stats_open(rootfd, argv + optind, (size_t)(argc - optind), &s, &n, &e) <
		   0) {
		close(rootfd);
		return cli_fail("stats", &e);
	}
	if (rootfd >= 0)
		close(rootfd);
	ret = stats_loop(s, n, !no_stream && !json && isatty(STDOUT_FILENO), json);
	jail_stats_free(s, n);
	return ret;
}
