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

/* Where a jail's cgroups go, and which controllers. */
struct cgroup_where {
	const char *own_text; /* /proc/PID/cgroup of the process they go beneath */
	const char *cgparent; /* --cgroup-parent, or NULL */
	const char *leaf;     /* "cell-NAME" beneath own (or cgparent); or */
	const char *exact;    /* a cgroup_path: absolute, or beneath own */
	unsigned int want;    /* the controllers (1 << ctrl) */
	unsigned int need;    /* those of WANT the host must have */
	/* v2, rootless: the delegated directory (struct cgroup_deleg) the
	 * jail's cgroup goes beneath, and the cgroup2 mount it is on. */
	const char *deleg;
	const char *mnt;
};

struct cgroup_ops {
	/* Names the jail's cgroups of the controllers W->want, as W says;
	 * for an exact path, also how many directories make() makes
	 * (cg->made) and the check that a cgroup already there has no
	 * process.  FROM, unless NULL, gets the directories of the process
	 * of W->own_text. */
	int (*plan)(struct cgroup *cg, const struct cgroup_where *w, struct cgroup *from,
		    struct cell_err *e);
	/* Creates the planned directories of WANT, with the parents
	 * cg->made names (v2: enables WANT for the children of each
	 * parent first, and fails when one of NEED is not there; v1 cpuset:
	 * copies each parent's cpus and mems).
	 * On failure the directories not made are forgotten: a cgroup cell
	 * did not make is never removed. */
	int (*make)(struct cgroup *cg, unsigned int want, unsigned int need, struct cell_err *e);
	/* Writes the limits L sets (a -1 is left alone); cpus_milli not
	 * when SKIP_CPUS (a cpu quota or period wins). */
	int (*apply)(const struct cgroup *cg, const struct jail_limits *l, bool skip_cpus,
		     struct cell_err *e);
	/* Writes the resources R sets (-1 / NULL left alone). */
	int (*resources)(const struct cgroup *cg, const struct jail_resources *r,
			 struct cell_err *e);
	/* cell-oci update: the limits L sets, in an order the kernel
	 * takes from the jail's current ones (v1: memory never above
	 * memory + swap); memory alone keeps the swap beyond it. */
	int (*set_limits)(const struct cgroup *cg, const struct jail_limits *l, bool skip_cpus,
			  struct cell_err *e);
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
	bool (*frozen)(const struct cgroup *cg);
	void (*usage)(const struct cgroup *cg, struct cgroup_usage *u);
	/* Mounts the jail's cgroups on the directory DEST (TARGET: its path,
	 * for errors). */
	int (*mount_jail)(const struct cgroup *cg, int dest, const char *target, bool ro,
			  struct cell_err *e);
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

/* The controllers (1 << ctrl) spec S wants, and of those the ones the
 * host (or the delegated subtree) must have; ROOTLESS: no devices. */
void cgroup_spec_ctrls(const struct jail_spec *s, bool rootless, unsigned int *want,
		       unsigned int *need);
/* The parameter of the first of the limits L (and CGPARENT,
 * --cgroup-parent or NULL) that needs a controller of NEED (-1: none of
 * the jail CLI's), for errors about it. */
int cgroup_need_param(const struct jail_limits *l, const char *cgparent, unsigned int need);
/* Of the controllers (1 << ctrl), those that a setting needs, not only
 * wants (cgroup_ctrls_for()). */
unsigned int cgroup_ctrls_needed(unsigned int ctrls);

/* --- rootless (cgroup_deleg.c) -------------------------------------- */

/* The controllers (1 << ctrl) the cgroup DIR has: its
 * cgroup.controllers, and the freezer (cgroup.freeze). */
unsigned int cgroup_deleg_ctrls(const char *dir);
/* The refusal of a setting (about PARAM, -1: none) that needs the
 * controllers NEED, which D (D->dir NULL: none found) lacks. */
int cgroup_deleg_refuse(const struct cgroup_deleg *d, int param, unsigned int need,
			struct cell_err *e);
/* cgroup_deleg_host() for a cell in the cgroups of OWN_TEXT (the text
 * of /proc/PID/cgroup; NULL: /proc/self/cgroup's). */
int cgroup_deleg_host_of(struct cgroup_deleg *d, const char *own_text, const char *cgparent,
			 struct cell_err *e);

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

/* A cgroup_path's planning: how many directories of DIR and its
 * parents below the hierarchy's mount MNT are missing, in *MADE (0:
 * DIR is there, and is refused when a process is in it). */
int cgroup_plan_exact(const char *dir, const char *mnt, unsigned int *made, struct cell_err *e);
/* Creates DIR and the MADE - 1 parents above it, top first, calling
 * EACH (unless NULL) on every one made, with its parent; *MADE is
 * lowered for a parent someone made meanwhile.  MADE 1 is
 * cgroup_make_dir(); MADE 0 makes nothing.  EACH gets ARG.  On failure what was made is
 * removed. */
typedef int cgroup_made_fn(const char *dir, const char *parent, void *arg, struct cell_err *e);
int cgroup_make_dirs(const char *dir, unsigned int *made, cgroup_made_fn *each, void *arg,
		     struct cell_err *e);
/* DIR without its last N components ("/a/b/c", 2: "/a"); heap. */
char *cgroup_up(const char *dir, unsigned int n);
/* Removes DIR and the MADE - 1 parents above it; a parent in use
 * (another jail's cgroup beneath it) stays.  0, or -1 with errno. */
int cgroup_remove_dirs(const char *dir, unsigned int made);
/* A record's "made" count J (NULL: 1, the jail's directory alone). */
int cgroup_made_from_json(const json_t *j, unsigned int *made, struct cell_err *e);
/* "RESOURCE: write DIR/FILE: errno", the error of a failed resource. */
int cgroup_res_failed(const char *what, const char *dir, const char *file, struct cell_err *e);
/* Writes the unified settings (v2 files, "memory.high" = "1G") into DIR:
 * a name that is no plain file name of DIR is refused. */
int cgroup_write_unified(const char *dir, const struct jail_sysctl *u, size_t n,
			 struct cell_err *e);
/* The controllers (1 << ctrl) that the unified settings U name by
 * their file's prefix ("memory.high": memory). */
unsigned int cgroup_unified_ctrls(const struct jail_sysctl *u, size_t n);
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
