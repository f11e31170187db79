/*
 * cgroup.h - a jail's control groups: one interface, two backends.
 *
 * The backend is chosen at run time from the host's layout: unified
 * (cgroup2 mounted at /sys/fs/cgroup; cgroup_v2.c) or v1/hybrid (one
 * hierarchy per controller under /sys/fs/cgroup/<ctrl>; a cgroup2 at
 * /sys/fs/cgroup/unified, if any, is left alone; cgroup_v1.c).  cgroup.c
 * holds the interface and what both share; the backends are tables of
 * operations (cgroup_backend.h).  A jail gets cgroups only when it asks
 * for a limit that needs one (--nrtask, --memory, --swap, --cpus), has
 * device rules (a --rootfs or --bind under the policy: devices.c) or
 * names a --cgroup-parent, or when `cell set` adds such a limit later;
 * then also a freezer, so that `cell stop` can hold it still.  An OCI
 * container (cgroup_path, cgroup_always) always has them, in every
 * controller of the table the host has.  The controllers are the rows
 * of cgroup_ctrls[].  They are created beneath the cgroup cell runs in
 * (or the parent; for `cell set`, the one the jail's pid 1 is in), named
 * "cell-<jail name>" ("cell-<hash of the state root>-<name>" under a
 * non-default --root), or exactly at the cgroup_path (with the parents
 * cell had to make), and removed when the jail ends.  cell never moves
 * another process and never removes a cgroup it did not create.  A
 * rootless cell (rootless.h) makes them only on v2, beneath a subtree
 * delegated to the user (cgroup_deleg.c, below), and refuses a limit
 * that needs one when there is none.
 */
#ifndef CELL_CGROUP_H
#define CELL_CGROUP_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

enum cgroup_layout {
	CGROUP_NONE, /* the jail has no cgroup of its own */
	CGROUP_V1,
	CGROUP_V2,
};

/* The controllers a jail may get, in the order of cgroup_ctrls[]. */
enum cgroup_ctrl {
	CGROUP_PIDS,
	CGROUP_MEMORY,
	CGROUP_CPU,
	CGROUP_DEVICES,
	CGROUP_FREEZER,
	CGROUP_CPUSET, /* asked for (cpuset cpus/mems), or an OCI container's */
	CGROUP_BLKIO,  /* asked for (blkio weight), or an OCI container's; v2 "io" */
	CGROUP_NCTRL
};

/* What of a spec needs a controller (struct cgroup_ctrl_info.needs). */
enum {
	CGROUP_NEEDS_NRTASK = 1 << 0,
	CGROUP_NEEDS_MEMORY = 1 << 1, /* --memory or --swap */
	CGROUP_NEEDS_CPUS = 1 << 2,
	CGROUP_NEEDS_DEVICES = 1 << 3, /* device rules */
	CGROUP_NEEDS_PARENT = 1 << 4,  /* --cgroup-parent: the jail is there at all */
	CGROUP_NEEDS_ANY = 1 << 5,     /* any jail that has cgroups */
	CGROUP_NEEDS_CPUSET = 1 << 6,  /* cpuset cpus or mems */
	CGROUP_NEEDS_BLKIO = 1 << 7,   /* blkio weight */
	/* An OCI container (cgroup_path, cgroup_always): every controller a
	 * container has, even without a limit; one the host lacks is only
	 * left out, unless a setting needs it. */
	CGROUP_NEEDS_ALWAYS = 1 << 8,
};

/* One row of the controller table. */
struct cgroup_ctrl_info {
	const char *name;   /* as the record spells it */
	const char *v1;	    /* the v1 hierarchy's controller, as mountinfo names it */
	const char *v2;	    /* its name in cgroup.subtree_control; NULL: built in
			     * (cgroup.freeze) or no controller (a device program) */
	int param;	    /* the limit's parameter (param.h), for errors; -1: none */
	unsigned int needs; /* CGROUP_NEEDS_* */
	bool optional;	    /* v1: a host, or a --cgroup-parent, without it
			     * only costs the jail this controller */
};
extern const struct cgroup_ctrl_info cgroup_ctrls[CGROUP_NCTRL];

struct cgroup {
	enum cgroup_layout layout; /* picks the backend (cgroup_backend.h) */
	/* v1: the jail's directory in each controller's hierarchy (NULL
	 * for one it has not) and that hierarchy's controllers, as its
	 * mount names them ("cpu,cpuacct"). */
	char *dir[CGROUP_NCTRL];
	char *opts[CGROUP_NCTRL];
	char *path; /* v2: the jail's one directory */
	int fd;	    /* v2: the directory, for CLONE_INTO_CGROUP; else -1 */
	/* How many directories cell made, from the jail's own up (v1: of
	 * each controller; v2: of path): 1, the jail's alone (cgroup_init()),
	 * more for the parents of a cgroup_path cell made, 0 for a
	 * cgroup_path that was there.  Removal removes exactly those. */
	unsigned int made[CGROUP_NCTRL];
	unsigned int path_made;
	/* v2, rootless: the delegated directory the jail's cgroup is
	 * beneath (struct cgroup_deleg), in which and below which cell
	 * enables the controllers; NULL otherwise. */
	char *deleg;
};

void cgroup_init(struct cgroup *cg);

/* True when the spec needs cgroups of its own. */
bool cgroup_wanted(const struct jail_spec *s);

/* The controllers (1 << enum cgroup_ctrl) that the settings NEEDS
 * (CGROUP_NEEDS_*) use: their own, and those every jail with cgroups
 * has (the freezer). */
unsigned int cgroup_ctrls_for(unsigned int needs);

/* A jail's cgroups in two steps, so that the directories can be recorded
 * before any exists: cgroup_plan() only names them, cgroup_make()
 * creates them, writes the limits and the device rules (on failure
 * removing what it made; cg is then released). */
int cgroup_plan(struct cgroup *cg, const struct jail_spec *s, const char *state_root,
		struct cell_err *e);
int cgroup_make(struct cgroup *cg, const struct jail_spec *s, struct cell_err *e);

/* A CPU bandwidth of MILLI thousandths of a CPU (-1: none) is refused
 * above the CPUs cell may run on (its affinity), where it would limit
 * nothing: "more than the 2 CPUs cell may run on", an error about cpus
 * (err.h). */
int cgroup_check_cpus(long long milli, struct cell_err *e);

/* `cell set`: writes the cgroup limits of NEW that differ from OLD (the
 * jail's current ones).  A limit whose controller the jail has no cgroup
 * of (see cgroup_grow_plan()) is an error, checked before anything is
 * written; if a write fails, the ones done are undone. */
int cgroup_update(const struct cgroup *cg, const struct jail_limits *old,
		  const struct jail_limits *new, struct cell_err *e);

/*
 * `cell set` of a limit whose controller a running jail has no cgroup
 * of, in three steps that can each be undone:
 *
 *   cgroup_grow_plan()   names the missing cgroups in cg, beneath the
 *                        ones the jail's pid 1 is in (or --cgroup-parent
 *                        CGPARENT), so they can be recorded first; on v2
 *                        a jail that has a cgroup only needs the
 *                        controllers enabled for it
 *   cgroup_grow_make()   creates them and writes NEW's limits there
 *   cgroup_grow_adopt()  moves the jail's processes PIDS in; returns how
 *                        many were not in yet, so the caller walks the
 *                        jail again until a walk moves none
 *
 * A directory the jail's record names, of a limit the record does not
 * set, is one a set killed before its end made: cgroup_grow_plan() marks
 * it resumed, and cgroup_grow_adopt() moves the jail in there too.
 *
 * cgroup_grow_undo() moves the processes back and removes what was made
 * (a resumed directory stays).
 * Memory already used stays charged where it was (neither v1 nor v2
 * moves it); the jail's own /sys/fs/cgroup shows only the controllers it
 * started with.
 */
struct cgroup_growth {
	unsigned int made;    /* controllers given new directories (1 << ctrl) */
	unsigned int enabled; /* v2: controllers enabled in the jail's cgroup */
	unsigned int resumed; /* directories a killed set made, moved into again */
	struct cgroup from;   /* where the processes were, for each made directory */
};
void cgroup_growth_init(struct cgroup_growth *g);
void cgroup_growth_free(struct cgroup_growth *g);
int cgroup_grow_plan(struct cgroup *cg, const struct jail_limits *old,
		     const struct jail_limits *new, const char *cgparent, pid_t pid1,
		     const char *state_root, const char *name, struct cgroup_growth *g,
		     struct cell_err *e);
int cgroup_grow_make(const struct cgroup *cg, const struct jail_limits *new,
		     struct cgroup_growth *g, struct cell_err *e);
int cgroup_grow_adopt(const struct cgroup *cg, const struct cgroup_growth *g, const pid_t *pids,
		      size_t n, struct cell_err *e);
void cgroup_grow_undo(struct cgroup *cg, struct cgroup_growth *g);
/* Before any of it, and before cell joins a rootless jail: a limit of
 * NEW whose controller the jail has no cgroup of needs a delegated
 * cgroup v2 subtree when rootless (cgroup_deleg_check()'s refusal). */
int cgroup_grow_check(const struct cgroup *cg, const struct jail_limits *old,
		      const struct jail_limits *new, const char *cgparent, pid_t pid1,
		      struct cell_err *e);
/* OLD with the limits of the controllers G grew taken from NEW: what the
 * jail's cgroups hold once cgroup_grow_make() has written them. */
struct jail_limits cgroup_grown_limits(const struct cgroup_growth *g, const struct jail_limits *old,
				       const struct jail_limits *new);

/* v1: moves PID (the jail's first process, still waiting) in.  v2 jails
 * are cloned straight into their cgroup and need nothing. */
int cgroup_add_pid(const struct cgroup *cg, pid_t pid, struct cell_err *e);

/* Where the jail CLI's jails see their cgroups. */
#define CGROUP_JAIL_MOUNT "/sys/fs/cgroup"

/* Inside the jail, after the root switch, in its cgroup namespace:
 * mounts its own cgroups at DEST (an absolute path in the jail, made if
 * missing, no symlink followed, each mount attached through a
 * descriptor); NULL: at CGROUP_JAIL_MOUNT of the fresh sysfs the jail
 * CLI's jails get, by path as before (no symlink can be there),
 * read-only when RO, so that the usual files (pids.max,
 * memory.limit_in_bytes, memory.max...) show its limits.  v1: a tmpfs
 * with one cgroup mount per controller; v2: cgroup2.  Nothing for a jail
 * without cgroups. */
int cgroup_mount_jail(const struct cgroup *cg, const char *dest, bool ro, struct cell_err *e);

/* --- for the OCI verbs (ps, kill --all, pause/resume, state, update) --- */

/* Every process in the jail's cgroups and the cgroups beneath them,
 * sorted, each once (v1: the pids or the freezer hierarchy, else every
 * one the jail has).  *PIDS is heap memory, NULL when *N is 0. */
int cgroup_procs(const struct cgroup *cg, pid_t **pids, size_t *n, struct cell_err *e);

/* Sends SIG to every process of the jail (kill --all): held still by the
 * freezer while the pids are read and signalled, so that none forks past
 * it or is reused, then let go (a jail that was paused stays paused, but
 * for SIGKILL).  v2: SIGKILL is one write to cgroup.kill. */
int cgroup_signal(const struct cgroup *cg, int sig, struct cell_err *e);

/* True when the jail is paused (v1: freezer.state FROZEN; v2:
 * cgroup.freeze 1). */
bool cgroup_frozen(const struct cgroup *cg);

/* `cell-oci update`: writes the limits L sets and the resources R sets
 * (-1 / NULL: left as they are), R's cpu quota or period winning over
 * L's cpus_milli.  A setting whose controller the jail has no cgroup of
 * is an error, checked before anything is written.  A memory limit
 * below what the jail uses is refused by the kernel (v1), which the
 * error says. */
int cgroup_update_resources(const struct cgroup *cg, const struct jail_limits *l,
			    const struct jail_resources *r, struct cell_err *e);

/* A cgroup_path's check: not empty, no "." or ".." component, not a
 * hierarchy's root. */
int cgroup_check_path(const char *path, struct cell_err *e);

/* cpu.weight (v2, 1..10000) of cpu.shares (v1, 2..262144); 0 for 0. */
long long cgroup_cpu_weight(long long shares);

/*
 * `cell stop`: cgroup_freeze() holds every process of the jail still
 * (v1: freezer.state FROZEN; v2: cgroup.freeze), waiting a bounded time
 * until the kernel says it is; cgroup_kill() sends SIGKILL to every
 * process of the jail (v2: cgroup.kill; v1: each pid of its cgroup.procs,
 * which a frozen jail cannot change by forking or exiting), and
 * cgroup_thaw() lets them run again, so that the kills are delivered.
 * Each fails (-1) on a jail without cgroups or without a freezer.
 */
int cgroup_freeze(const struct cgroup *cg, struct cell_err *e);
int cgroup_thaw(const struct cgroup *cg, struct cell_err *e);
int cgroup_kill(const struct cgroup *cg, struct cell_err *e);

/* Removes the cgroups (waiting briefly for the kernel to empty them) and
 * frees cg.  Safe on a cgroup that was never created. */
int cgroup_destroy(struct cgroup *cg, struct cell_err *e);

/* Frees cg's memory; the cgroups stay. */
void cgroup_release(struct cgroup *cg);

/* {"layout": "v1", CTRL: DIR...} for each controller the jail has
 * ("pids", "memory", "cpu", "devices", "freezer") or {"layout": "v2",
 * "path": DIR}; NULL for CGROUP_NONE. */
json_t *cgroup_to_json(const struct cgroup *cg);
/* The reverse, for a jail recorded in the state store; NULL j is NONE. */
int cgroup_from_json(struct cgroup *cg, const json_t *j, struct cell_err *e);

/* Current use; -1 where not known. */
struct cgroup_usage {
	long long tasks;
	long long memory;      /* bytes */
	long long memory_peak; /* bytes */
	long long cpu_usec;    /* v2 only */
};
void cgroup_usage(const struct cgroup *cg, struct cgroup_usage *u);

/* --- rootless: a delegated cgroup v2 subtree (cgroup_deleg.c) ------ */

/*
 * A rootless cell (rootless.h) makes cgroups only beneath a cgroup v2
 * directory delegated to the user: --cgroup-parent, else the topmost
 * ancestor of cell's own cgroup (or that cgroup) that the user owns,
 * with its cgroup.procs and cgroup.subtree_control; the jails' cgroups
 * go in DIR/cell/cell-NAME (--cgroup-parent: DIR/cell-NAME).  No v1
 * cgroups, and no device program (a rootless jail's device nodes are the
 * host's, bound).  Without one, a jail that needs no cgroup runs
 * without; one that asks for a limit that needs a cgroup is refused
 * before anything is made (cgroup_check_rootless()).
 */
struct cgroup_deleg {
	char *mnt;	    /* the cgroup2 mount (/sys/fs/cgroup; a hybrid host's
			     * /sys/fs/cgroup/unified); NULL: none */
	char *own;	    /* cell's v2 cgroup ("/user.slice/..."; "" the root) */
	char *dir;	    /* the delegated directory (MNT + a path); NULL: none */
	unsigned int ctrls; /* the controllers DIR has (1 << ctrl) */
};

/* Fills D from the cgroup2 mounted at MNT, for a cell in the cgroup OWN
 * and the user UID; CGPARENT (or NULL) as --cgroup-parent.  None found
 * is no error (D->dir NULL); a --cgroup-parent that is not the user's,
 * or whose common ancestor with OWN is not, is one (about
 * cgroup_parent). */
int cgroup_deleg_find(struct cgroup_deleg *d, const char *mnt, const char *own,
		      const char *cgparent, uid_t uid, struct cell_err *e);
/* The same on this host: its cgroup2 mount, /proc/self/cgroup, the
 * effective uid. */
int cgroup_deleg_host(struct cgroup_deleg *d, const char *cgparent, struct cell_err *e);
void cgroup_deleg_free(struct cgroup_deleg *d);
/* True when UID owns the directory DIR, its cgroup.procs and its
 * cgroup.subtree_control, and may write both. */
bool cgroup_deleg_is_users(const char *dir, uid_t uid);

/* Whether the spec S can have its cgroups in D (none found: D->dir
 * NULL): a jail that needs none, or whose settings need none (an OCI
 * container's every controller is only wanted), can; one whose limit
 * needs a controller D lacks is refused, the error about that limit:
 * "needs a delegated cgroup v2 subtree (rootless, and none found): ..."
 * with how to get one. */
int cgroup_deleg_check(const struct cgroup_deleg *d, const struct jail_spec *s, struct cell_err *e);

/* When rootless, cgroup_deleg_check() on this host; else nothing.  For
 * the launch's prepare stage and for `cell set`. */
int cgroup_check_rootless(const struct jail_spec *s, struct cell_err *e);

/* What `cell inspect` says of a jail's cgroup, from its record's REC
 * (NULL or null: none): the record's object as it is, or, for a
 * ROOTLESS_JAIL without cgroups, "none (rootless, no delegated cgroup
 * v2 subtree)" when there is still none, else "none"; NULL (null) for
 * a rootful jail without. */
json_t *cgroup_inspect(const json_t *rec, bool rootless_jail);

/* Parsers, exposed for the unit tests. */

/* The path of the caller's cgroup for controller CTRL ("pids"), or for
 * the unified hierarchy when CTRL is NULL, from /proc/self/cgroup's text.
 * Heap string, NULL when absent. */
char *cgroup_parse_own(const char *proc_cgroup, const char *ctrl);

/* From /proc/self/mountinfo's text: the mount point of the v1 hierarchy
 * holding CTRL, that mount's root inside the hierarchy, and all the
 * controllers of the hierarchy ("cpu,cpuacct").  Returns 0, or -1 when
 * no such mount. */
int cgroup_parse_v1_mount(const char *mountinfo, const char *ctrl, char **mnt, char **root,
			  char **ctrls);

/* The directory of cgroup PATH (e.g. "/a/b") of a hierarchy mounted at
 * MNT whose mount root is ROOT: MNT + (PATH minus ROOT). */
char *cgroup_join(const char *mnt, const char *root, const char *path);

#endif
