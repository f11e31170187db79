/*
 * interleave: runs commands in turn, round after round, and prints each
 * one's median and 10th percentile wall time, and its ratio to the
 * first command's.  Where a machine's speed drifts within minutes, a run
 * of each command after the other (hyperfine) puts the drift on some
 * commands more than others; in turn, every command sees it alike
 * (tests/bench/startup.sh, docs/PERFORMANCE.md).
 *
 *   interleave ROUNDS NAME CMD [ARG...] [';;' NAME CMD [ARG...]]...
 *
 * CMD is executed directly (no shell), its stdout on /dev/null, its
 * stderr kept; each command runs 5 times first (not counted), and the
 * first round's order is the order given, each later round starts one
 * command further on.  A command that fails ends the run with its
 * status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 32
#define WARMUP	 5

extern char **environ;

struct cmd {
	const char *name;
	char **argv;
	double *ms;
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Runs C once; its wall time in ms, or -1 when it failed. */
static double run_once(const struct cmd *c, const posix_spawn_file_actions_t *fa)
{
	double start = now_ms();
	pid_t pid;
	int status, err;

	err = posix_spawn(&pid, c->argv[0], fa, NULL, c->argv, environ);
	if (err != 0) {
		fprintf(stderr, "interleave: %s: %s\n", c->argv[0], strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "interleave: %s failed (status %d)\n", c->name, status);
		return -1;
	}
	return now_ms() - start;
}

int main(int argc, char **argv)
{
	struct cmd cmds[MAX_CMDS];
	posix_spawn_file_actions_t fa;
	int rounds, n = 0, i = 2;
	double base_med = 0, base_p10 = 0;

	if (argc < 4 || (rounds = atoi(argv[1])) < 10) {
		fprintf(stderr, "usage: interleave ROUNDS(>=10) NAME CMD [ARG...] "
				"[';;' NAME CMD [ARG...]]...\n");
		return 2;
	}
	while (i < argc) {
		if (n == MAX_CMDS || i + 1 >= argc) {
			fprintf(stderr,
				"interleave: at most %d commands, each a name and a command\n",
				MAX_CMDS);
			return 2;
		}
		cmds[n].name = argv[i++];
		cmds[n].argv = &argv[i];
		while (i < argc && strcmp(argv[i], ";;") != 0)
			i++;
		if (i < argc)
			argv[i++] = NULL;
		cmds[n].ms = calloc((size_t)rounds, sizeof(double));
		if (cmds[n].ms == NULL)
			return 1;
		n++;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int w = 0; w < WARMUP; w++)
		for (int k = 0; k < n; k++)
			if (run_once(&cmds[k], &fa) < 0)
				return 1;
	for (int r = 0; r < rounds; r++)
		for (int j = 0; j < n; j++) {
			int k = (j + r) % n;

			cmds[k].ms[r] = run_once(&cmds[k], &fa);
			if (cmds[k].ms[r] < 0)
				return 1;
		}
	printf("%-24s %12s %10s %12s %10s\n", "command", "median (ms)", "p10 (ms)", "x first",
	       "p10 x");
	for (int k = 0; k < n; k++) {
		double med, p10;

		qsort(cmds[k].ms, (size_t)rounds, sizeof(double), cmp_double);
		med = cmds[k].ms[rounds / 2];
		p10 = cmds[k].ms[rounds / 10];
		if (k == 0) {
			base_med = med;
			base_p10 = p10;
		}
		printf("%-24s %12.3f %10.3f %12.2f %10.2f\n", cmds[k].name, med, p10,
		       med / base_med, p10 / base_p10);
	}
	return 0;
}
