/*
 * jail_mem.c - what idle jails cost, seen from the host (tests/bench/jails.sh).
 *
 *   jail_mem EXE < PIDS
 *
 * PIDS are the jails' first processes (cell ls --json's pid), one a line.
 * Every process of the host whose pid namespace is one of theirs is a
 * process of a jail.  Prints one line of name=value pairs:
 *
 *   jails     pid namespaces found (PIDS that were alive)
 *   procs     processes in those namespaces
 *   pss_kib   the sum of their Pss (/proc/PID/smaps_rollup)
 *   rss_kib   the sum of their Rss
 *   exe_in    processes in the jails whose /proc/PID/exe is EXE
 *   exe_out   processes elsewhere on the host whose /proc/PID/exe is EXE
 *             (a supervisor per jail would show here); each of them
 *             is also named on stderr, with its command line
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_ino(const void *a, const void *b)
{
	ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;
	return x < y ? -1 : x > y;
}

static int pidns_of(const char *pid, ino_t *ino)
{
	char path[320];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/pid", pid);
	if (stat(path, &st) < 0)
		return -1;
	*ino = st.st_ino;
	return 0;
}

/* Pss and Rss in KiB from smaps_rollup; 0 for kernel threads. */
static void rollup(const char *pid, long *pss, long *rss)
{
	char path[320], line[256];
	FILE *f;
	long v;

	*pss = *rss = 0;
	snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Pss: %ld kB", &v) == 1)
			*pss = v;
		else if (sscanf(line, "Rss: %ld kB", &v) == 1)
			*rss = v;
	}
	fclose(f);
}

static int is_exe(const char *pid, const char *exe)
{
	char path[320], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/exe", pid);
	if ((n = readlink(path, buf, sizeof(buf) - 1)) < 0)
		return 0;
	buf[n] = '\0';
	return strcmp(buf, exe) == 0;
}

static void print_cmdline(const char *pid)
{
	char path[320], buf[512];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	if (!(f = fopen(path, "re")))
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	fprintf(stderr, "outside the jails: pid %s: %s\n", pid, buf);
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], line[64];
	ino_t *ns = NULL;
	size_t n = 0, cap = 0;
	long procs = 0, pss_sum = 0, rss_sum = 0, exe_in = 0, exe_out = 0;
	struct dirent *d;
	DIR *proc;

	if (argc != 2 || !realpath(argv[1], exe)) {
		fprintf(stderr, "usage: jail_mem EXE < PIDS\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (n == cap && !(ns = realloc(ns, (cap = cap ? 2 * cap : 256) * sizeof(*ns))))
			return 1;
		if (*line && pidns_of(line, &ns[n]) == 0)
			n++;
	}
	qsort(ns, n, sizeof(*ns), cmp_ino);
	if (!(proc = opendir("/proc")))
		return 1;
	while ((d = readdir(proc))) {
		ino_t ino;
		long pss, rss;

		if (d->d_name[0] < '1' || d->d_name[0] > '9' || pidns_of(d->d_name, &ino) < 0)
			continue;
		if (n && bsearch(&ino, ns, n, sizeof(*ns), cmp_ino)) {
			procs++;
			rollup(d->d_name, &pss, &rss);
			pss_sum += pss;
			rss_sum += rss;
			exe_in += is_exe(d->d_name, exe);
		} else if (is_exe(d->d_name, exe)) {
			exe_out++;
			print_cmdline(d->d_name);
		}
	}
	closedir(proc);
	printf("jails=%zu procs=%ld pss_kib=%ld rss_kib=%ld exe_in=%ld exe_out=%ld\n", n, procs,
	       pss_sum, rss_sum, exe_in, exe_out);
	free(ns);
	return 0;
}
