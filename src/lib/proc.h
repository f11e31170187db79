/*
 * proc.h - facts about host processes read from /proc.
 */
#ifndef CELL_PROC_H
#define CELL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* Start time of PID in clock ticks since boot (field 22 of
 * /proc/PID/stat); with the pid it names a process uniquely, so a
 * recycled pid is never mistaken for a jail.  -1 when PID is gone. */
int proc_start_time(pid_t pid, unsigned long long *start);
/* The same, and its state letter (field 3: R, S, Z...). */
int proc_stat(pid_t pid, unsigned long long *start, char *state);

/* Reads a small file (a /proc or cgroup file) into BUF, at most SIZE-1
 * bytes, NUL-terminated.  0, or -1 with errno. */
int proc_read_text(const char *path, char *buf, size_t size);
/* The same for PATH relative to directory DIRFD, not following a final
 * symlink (the files of a jail's state directory). */
int proc_read_text_at(int dirfd, const char *path, char *buf, size_t size);

/* True when PID runs (not a zombie) and started at START. */
bool proc_alive(pid_t pid, unsigned long long start);

/* True when PID shares the caller's pid namespace (or that cannot be
 * read).  A jail's pid 1 never does: it is the first process of a pid
 * namespace of its own, so a recorded pid that does is not the jail's,
 * whatever its start time says. */
bool proc_in_own_pidns(pid_t pid);

/*
 * A worker child (fork()ed to act where cell itself may not stay: in a
 * jail's namespaces, or its own user namespace) reports its failure as
 * a whole struct cell_err through a pipe: its memory is a copy of
 * cell's, the same layout.  proc_worker_fail() writes E to FD and
 * exits (1); proc_worker_wait() reaps PID, reads FD (and closes it): 0
 * when the worker exited 0, else -1 with its error, or with "WHO ended
 * (signal N)" when it died without one.
 */
_Noreturn void proc_worker_fail(int fd, const struct cell_err *e);
int proc_worker_wait(pid_t pid, int fd, const char *who, struct cell_err *e);

#endif
