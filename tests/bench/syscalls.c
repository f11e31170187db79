/*
 * syscalls.c - a syscall-heavy loop, to measure what the jail policy
 * (chiefly the seccomp filter every syscall passes through) costs.
 *
 * Usage: syscalls [ITERATIONS]
 * Each iteration makes five syscalls: getpid, uname, openat + close of
 * /dev/null, and a 64-byte write to it (getpid as the raw syscall, so
 * that nothing is cached).  Prints the nanoseconds per iteration.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	char buf[64] = {0};
	struct utsname u;
	struct timespec t0, t1;
	int sink;

	if (n <= 0) {
		fprintf(stderr, "syscalls: ITERATIONS must be > 0\n");
		return 2;
	}
	sink = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (sink < 0) {
		perror("syscalls: /dev/null");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		int fd;

		syscall(SYS_getpid);
		uname(&u);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror("syscalls: open");
			return 1;
		}
		close(fd);
		if (write(sink, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("syscalls: write");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.1f\n",
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
		       (double)n);
	return 0;
}
