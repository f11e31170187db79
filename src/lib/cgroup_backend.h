/*
 * cgroup_backend.h - what cgroup.c and its two backends share (private to
 * them and the unit tests).
 *
 * A backend is a table of operations: cgroup.c decides (which
 * controllers, where, in what order, what to undo) and calls the table of
 * the host's layout for what differs between v1 (cgroup_v1.c: one
 * directory per controller, each in its own hierarchy) and v2
 * (cgroup_v2.c: one directory, controllers enabled by the parent).
 */
#ifndef CELL_CGROUP_BACKEND_H
#define CELL_CGROUP_BACKEND_H

#include <linux/bpf.h>
#include <stdbool.h>

#include "cgroup.h"

#define CGROUP_FS     "/sys/fs/cgroup"
#define CPU_PERIOD_US 100000LL

struct cgroup_ops {
	/* Names the jail's cgroups of controllers WANT (1 << ctrl): LEAF
	 * beneath the cgroups of the process whose /proc/PID/cgroup text
	 * is OWN_TEXT, or beneath CGPARENT.  FROM, unless NULL, gets that
	 * process's own directories. */
	int (*plan)(struct cgroup *cg, const char *own_text, unsigned int want,
		    const char *cgparent, const char *leaf, struct cgroup *from,
		    struct cell_err *e);
	/* Creates the planned directories of WANT (v2: enables WANT for
	 * the children of the parent first).  On failure the directories
	 * not made are forgotten: a cgroup cell did not make is never
	 * removed. */
	int (*make)(struct cgroup *cg, unsigned int want, struct cell_err *e);
	/* Writes the limits L sets (a -1 is left alone). */
	int (*apply)(const struct cgroup *cg, const struct jail_limits *l, struct cell_err *e);
	/* Denies every device but what the rules allow. */
	int (*devices)(const struct cgroup *cg, const struct jail_device_rule *r, size_t n,
		       struct cell_err *e);
	/* Writes the limits of NEW that differ from OLD (cell set). */
	int (*update)(const struct cgroup *cg, const struct jail_limits *old,
		      const struct jail_limits *new, struct cell_err *e);
	/* The directory holding controller C's files; NULL when the jail
	 * has none. */
	const char *(*ctrl_dir)(const struct cgroup *cg, enum cgroup_ctrl c);
	/* v2 cell set: enables the controllers WANT for the jail's cgroup
	 * (in its parent's cgroup.subtree_control); v1: nothing to do. */
	int (*enable)(const struct cgroup *cg, unsigned int want, struct cell_err *e);
	/* v2 cell set undone: lifts the limits of controllers CTRLS that
	 * were enabled for the jail; v1: nothing to do. */
	void (*unset)(const struct cgroup *cg, unsigned int ctrls);
	int (*add_pid)(const struct cgroup *cg, pid_t pid, struct cell_err *e);
	int (*freeze)(const struct cgroup *cg, struct cell_err *e);
	int (*thaw)(const struct cgroup *cg, struct cell_err *e);
	int (*kill)(const struct cgroup *cg, struct cell_err *e);
	void (*usage)(const struct cgroup *cg, struct cgroup_usage *u);
	int (*mount_jail)(const struct cgroup *cg, struct cell_err *e);
	/* The record's keys beside "layout", both ways. */
	int (*to_json)(const struct cgroup *cg, json_t *j);
	int (*from_json)(struct cgroup *cg, const json_t *j, struct cell_err *e);
};

extern const struct cgroup_ops cgroup_v1_ops;
extern const struct cgroup_ops cgroup_v2_ops;

/*
 * The directories of the controllers MASK, at most CGROUP_NCTRL of them,
 * in OUT: on v1 one per controller the jail has, on v2 its one directory
 * (when MASK is not empty).  Returns how many.
 */
size_t cgroup_dirs(const struct cgroup *cg, unsigned int mask, const char **out);

/* --- shared helpers (cgroup.c) ------------------------------------- */

/* True when LIST (LEN bytes of words separated by SEP) holds WORD. */
bool cgroup_words_have(const char *list, size_t len, char sep, const char *word);
/* A whole file, heap-allocated; NULL with errno set. */
char *cgroup_read_all(const char *path);
/* Writes VALUE to DIR/FILE in one write(2); -1 with errno set. */
int cgroup_write(const char *dir, const char *file, const char *value);
int cgroup_write_ll(const char *dir, const char *file, long long v);
bool cgroup_file_exists(const char *dir, const char *file);
/* The number in DIR/FILE; -1 when unreadable or "max". */
long long cgroup_read_number(const char *dir, const char *file);
/* The cgroup path the jail's goes beneath: --cgroup-parent when
 * absolute, OWN + it when relative, OWN without one. */
char *cgroup_parent_path(const char *cgparent, const char *own);
/* Creates DIR; an empty leftover of a killed cell is made again, a busy
 * one is EBUSY. */
int cgroup_make_dir(const char *dir, struct cell_err *e);
/* rmdir, waiting briefly while the kernel empties DIR. */
int cgroup_remove_dir(const char *dir);
/* "write DIR/FILE: errno", an error about limit PARAM (param.h), as
 * every failed limit says it. */
int cgroup_limit_failed(int param, const char *dir, const char *file, struct cell_err *e);
/* Swap beyond the memory limit: VALUE into FILE (none unless --swap). */
int cgroup_pin_swap(const char *dir, const char *file, long long value, const struct jail_limits *l,
		    struct cell_err *e);
/* The pids in DIR's cgroup.procs, sorted. */
int cgroup_read_procs(const char *dir, pid_t **out, size_t *n, struct cell_err *e);
/* Polls DIR/FILE until its line KEY reads WANT ("frozen 1") or its
 * whole first line does (KEY NULL), for at most about MS milliseconds. */
int cgroup_wait_file(const char *dir, const char *file, const char *key, const char *want, int ms);

/* --- devices, exposed for the unit tests --------------------------- */

/* The v1 line of rule R, "c 1:3 rwm" ("*" for any number), into OUT. */
int cgroup_v1_device_line(const struct jail_device_rule *r, char *out, size_t size);

/* The most instructions a device program of N rules has: 6 to load the
 * request, at most 8 per rule, 2 for the default. */
#define CGROUP_DEV_PROG_MAX(n) (8 + 8 * (n))

/*
 * The v2 device program of rules R: a BPF_PROG_TYPE_CGROUP_DEVICE
 * program that checks the rules last to first and returns the verdict of
 * the first that matches (1 allow, 0 deny), 0 when none does.  An allow
 * rule matches a request all of whose access it grants, a deny rule one
 * that asks for any access it names.  Rules before the last of type 'a'
 * with all of "rwm" can never decide and are left out.  OUT holds CGROUP_DEV_PROG_MAX(N);
 * returns the number of instructions.
 */
size_t cgroup_v2_device_program(const struct jail_device_rule *r, size_t n, struct bpf_insn *out);

#endif
