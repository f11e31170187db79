/*
 * stats.h - what runs in a jail and what it uses: its processes (cell
 * ps) and samples of its CPU time, memory and tasks (cell stats).
 *
 * A jail's processes are those of its pid namespace, found in the
 * host's /proc (every process whose /proc/PID/ns/pid is its pid 1's):
 * the same for jails with cgroups and without.  Usage comes from the
 * jail's cgroups where it has them (memory, tasks; CPU time on v2) and
 * from /proc otherwise (inspect's way: the threads, the sum of the Pss,
 * of the processes' CPU times).  One scan of /proc serves every jail of
 * a sample, so that stats of 1000 jails reads /proc once, not 1000
 * times.
 */
#ifndef CELL_STATS_H
#define CELL_STATS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* One process of a jail. */
struct jail_proc {
	pid_t pid;		   /* in the jail's pid namespace (NSpid's last) */
	pid_t host_pid;		   /* in the host's */
	uid_t uid;		   /* real uid, the host's */
	char state;		   /* R, S, D, Z, T... */
	unsigned long long cpu_ms; /* user + system CPU time */
	json_t *argv;		   /* its command line, an array of strings */
};

/* The processes of the running jail NAME of the root ROOTFD, sorted by
 * pid inside.  "jail NAME: is not running" when it is not. */
int jail_ps(int rootfd, const char *name, struct jail_proc **procs, size_t *n, struct cell_err *e);
void jail_procs_free(struct jail_proc *procs, size_t n);

/* One jail's use, at one moment. */
struct jail_sample {
	char *name;
	pid_t pid;		  /* its pid 1 */
	unsigned long long pidns; /* its pid namespace's inode */
	long long cpu_usec;	  /* CPU time used so far (-1: not known) */
	long long memory;	  /* bytes (-1: not known) */
	long long memory_limit;	  /* bytes, -1: none */
	long long tasks;	  /* threads */
	long long tasks_limit;	  /* -1: none */
	json_t *cgroup;		  /* its record's cgroup object */
};

/* The running jails of the root (those of NAMES only, when N > 0: a
 * name that is not a running jail is an error), without their usage. */
int jail_stats_open(int rootfd, char **names, size_t n, struct jail_sample **out, size_t *nout,
		    struct cell_err *e);
/* Reads the usage of each jail of S now: CPU time and tasks, and with
 * MEMORY the memory too (the Pss of a jail without a memory cgroup is
 * the costly part: a live view reads it once per refresh). */
void jail_stats_sample(struct jail_sample *s, size_t n, bool memory);
void jail_stats_free(struct jail_sample *s, size_t n);

#endif
