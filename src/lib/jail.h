/*
 * jail.h - named jails in the state store: open, list, stop, remove.
 *
 * There is no daemon: a jail's record (store.h) and the kernel are the
 * only truth.  A jail is running while the process its record names (pid
 * and start time) runs; once that process has ended the jail is stopped,
 * whatever its record says, and the first command that opens it releases
 * what it still holds (its cgroups) and, for a jail made to go when it
 * ends (--rm, or a foreground `cell run`), its state.
 */
#ifndef CELL_JAIL_H
#define CELL_JAIL_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "store.h"

/* A jail opened for one operation: its directory is locked. */
struct jail {
	struct store_jail dir;
	json_t *state; /* its record; NULL for a crashed creator's directory */
	pid_t pid;     /* the jail's pid 1, when running */
	int pidfd;     /* a pidfd of pid 1, when running; else -1 */
	bool running;
	bool autoremove; /* stopped and due to go: commands treat it as gone */
	int exit_status; /* -1 when not known */
};

/* Opens and locks jail NAME, and finds whether it runs; a stopped jail's
 * cgroups are released here.  "jail NAME: no such jail" (errno ENOENT)
 * when there is none. */
int jail_open(int rootfd, const char *name, struct jail *j, struct cell_err *e);
/* The same for a command that needs the jail to exist: a stopped jail
 * due to go is removed and reported as no such jail. */
int jail_open_existing(int rootfd, const char *name, struct jail *j, struct cell_err *e);
void jail_close(struct jail *j);

/* The reap policy of store_jail_create() for a name in use: a stopped
 * jail that was to go when it ended may be replaced; any other may not. */
int jail_reap_cb(int rootfd, int dirfd, const char *name, void *ctx);

/* SIGTERM to the jail's pid 1, then after TIMEOUT seconds (0: at once)
 * SIGKILL, which ends every process of the jail (its pid namespace dies
 * with its pid 1; v2: cgroup.kill too); waits until it has ended and
 * releases its cgroups.  The record stays, marked stopped. */
int jail_stop(int rootfd, struct jail *j, int timeout, struct cell_err *e);

/* jail_stop() of N jails at once (cell stop NAME..., cell down): SIGTERM
 * to each running one first, then one wait of at most TIMEOUT seconds
 * for all of them, then SIGKILL to those still running; ERRS[i] says
 * why jail i failed.  Returns how many failed. */
size_t jail_stop_all(int rootfd, struct jail *js, size_t n, int timeout, struct cell_err *errs);

/* Removes a stopped jail's state (its directory); a running one is an
 * error unless FORCE, which stops it first (SIGKILL). */
int jail_remove(int rootfd, struct jail *j, bool force, struct cell_err *e);

/* After the jail has ended: releases its cgroups and marks its record
 * stopped (with the exit status when known); removes its state instead
 * when REMOVE or when it was to go when it ended. */
int jail_release(int rootfd, struct jail *j, bool remove, struct cell_err *e);

/* The jails of the root as a JSON array, sorted by name, one object per
 * jail: its record plus "jid", "state" ("running" or "stopped") and
 * "exit" (null when not known).  ALL: stopped jails too.  Reads without
 * locks; a stopped jail's leftovers are released on the way when no other
 * command holds it. */
json_t *jail_list(int rootfd, bool all, struct cell_err *e);

/* From a record read without the lock: whether it names a running jail
 * (its pid 1, in *PID when not NULL), by pid, start time and pid
 * namespace; and a pidfd of that pid 1, or -1. */
bool jail_record_running(const json_t *state, pid_t *pid);
int jail_record_pidfd(const json_t *state);

/* Rootless (rootless.h), before a command acts inside running jail NAME
 * of STATE_ROOT (exec, set): joins the jail's user namespace, where the
 * user is root and may join its other namespaces and act on processes
 * of subordinate ids.  The first thing such a command does: a user
 * namespace is joined by a single-threaded process only, and once.
 * Nothing to do as root, or for a jail that is not running (the command
 * says so itself). */
int jail_join_userns(const char *state_root, const char *name, struct cell_err *e);

/* For `cell run -d --rm`: a small process of cell's, outside the jail,
 * that waits for the jail to end and then removes it; the caller goes on
 * at once.  PID and PIDFD are the jail's pid 1. */
int jail_watch_remove(const char *state_root, const char *name, pid_t pid, int pidfd,
		      struct cell_err *e);

/* The exit status recorded in the jail's directory, -1 when none. */
int jail_read_exit(int dirfd);
/* How often its reaper restarted the payload (the "restarts" file), -1
 * when there is no such file (no reaper, or an older jail). */
int jail_read_restarts(int dirfd);

#endif
