/*
 * spec.h - struct jail_spec, the one description of a jail.
 *
 * Every front door (command-line flags, a jail file, an OCI config.json)
 * is a parser that fills a jail_spec; the engine reads nothing else.  It
 * has three parts: the jail's parameters as the jail CLI and jail files
 * spell them; the mechanisms that hold the jail (struct jail_mechanisms,
 * which policy_defaults() fills from those parameters and the engine
 * applies); and its first process (struct jail_process, shared with
 * `cell exec`).  How one launch goes (detached, its outputs, holds) is
 * no part of it: struct launch_opts (launch.h).  The
 * spec is plain data: strings are heap copies owned by the spec and freed
 * by spec_free().  Its parameters are set by name through the table of
 * param.h, the one place that knows where each lives in this struct.
 */
#ifndef CELL_SPEC_H
#define CELL_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

#define JAIL_NAME_MAX 64
#define JAIL_UTS_MAX  64 /* __NEW_UTS_LEN: hostname and domainname */

enum jail_net {
	JAIL_NET_NONE, /* own network namespace, only loopback, up */
	JAIL_NET_HOST, /* share the host's network namespace */
};

/* Whose ids the jail's are (--userns, userns in a jail file). */
enum jail_userns {
	JAIL_USERNS_PRIVATE, /* a user namespace of its own, its ids a range of its own */
	JAIL_USERNS_HOST,    /* the host's ids: the jail's root is the host's (weaker) */
};

/* The rules of the default policy a jail may relax, by name (--allow NAME,
 * allow.NAME in a jail file); FreeBSD's allow.* parameters in spirit. */
enum jail_allow {
	JAIL_ALLOW_SET_HOSTNAME = 1 << 0, /* change its own hostname/domainname */
	JAIL_ALLOW_RAW_SOCKETS = 1 << 1,  /* CAP_NET_RAW: ping, packet sockets */
	JAIL_ALLOW_SYSVIPC = 1 << 2,	  /* share the host's SysV IPC and mqueues */
	JAIL_ALLOW_CHOWN = 1 << 3,	  /* CAP_CHOWN, CAP_FOWNER, CAP_FSETID */
	JAIL_ALLOW_MLOCK = 1 << 4,	  /* CAP_IPC_LOCK: lock memory beyond --memlock */
	JAIL_ALLOW_IO_URING = 1 << 5,	  /* io_uring's calls */
};

/* Resource limits; -1 means "not set". */
struct jail_limits {
	long long nrtask;     /* tasks (pids cgroup) */
	long long memory;     /* bytes (memory cgroup), swap pinned unless swap set */
	long long swap;	      /* bytes of swap beyond memory */
	long long cpus_milli; /* CPU bandwidth, thousandths of a CPU */
	long long cpu_time;   /* seconds of CPU (RLIMIT_CPU), the seed's "slice" */
	long long memlock;    /* bytes (RLIMIT_MEMLOCK) */
	long long data;	      /* bytes (RLIMIT_DATA) */
	long long nofile;     /* descriptors (RLIMIT_NOFILE) */
	long long nice;	      /* start nice value, -20..19; -1 can be a value: see has_nice */
	bool has_nice;
};

struct jail_bind {
	char *src; /* host path */
	char *dst; /* absolute path inside the jail */
	bool ro;
	bool dev; /* device nodes work through it (":dev"); else nodev */
};

/* One rule of the jail's devices cgroup (v1 devices.allow/deny, v2 an
 * eBPF device program).  The rules apply in order over "deny all": the
 * last rule that matches a request decides. */
struct jail_device_rule {
	bool allow;
	char type;	/* 'a' any device, 'c' character, 'b' block */
	int major;	/* -1: any */
	int minor;	/* -1: any */
	char access[4]; /* a subset of "rwm": read, write, mknod */
};

/* The seccomp program a jail's processes run under: built into cell
 * (src/lib/seccomp_rules.c, compiled at build time). */
enum jail_seccomp {
	JAIL_SECCOMP_NONE,    /* no filter */
	JAIL_SECCOMP_DEFAULT, /* the deny list, but what seccomp_relax lets through */
};

/* The five capability sets of a jail's processes. */
struct jail_caps {
	uint64_t bounding, effective, permitted, inheritable, ambient;
};

/*
 * The mechanisms that hold a jail: what the engine applies, and all it
 * reads of the policy.  The jail CLI and jail files get them from
 * policy_defaults() (policy.c), which turns the parameters policy,
 * allow.*, net and userns into these; an OCI config.json will say them itself.
 */
struct jail_mechanisms {
	unsigned long ns_new; /* CLONE_NEW* of the namespaces made new (the rest: the host's) */
	/* A user namespace of the jail's own (ns.h, struct ns_own), its
	 * maps written by cell, joined once the root is built: the jail's
	 * root holds capabilities there only.  userns_range: its ids map to
	 * a range of host ids of the jail's own (idrange.h), its --rootfs
	 * and binds are idmapped mounts; else every id maps to itself (the
	 * --userns host jail with --allow set_hostname).  userns_owns: the
	 * namespaces made with it, and so owned by it (CLONE_NEWNET for the
	 * network capabilities the policy keeps, CLONE_NEWUTS for
	 * sethostname(2)); the others are the host user namespace's. */
	bool own_userns;
	bool userns_range;
	unsigned long userns_owns;
	unsigned int landlock; /* LANDLOCK_SCOPE_* of the first process */
	enum jail_seccomp seccomp;
	unsigned int seccomp_relax; /* SECCOMP_RELAX_* (seccomp_bpf.h) */
	bool pin_priority;	    /* RLIMIT_RTPRIO 0, RLIMIT_NICE at the start value */
	/*
	 * Paths of the jail's tree made read-only (a read-only bind of
	 * themselves) or masked (an empty read-only tmpfs over a directory,
	 * the jail's /dev/null over anything else).  Those in /proc and /sys
	 * are done to the jail's fresh proc and sysfs, through their
	 * descriptors, before they are attached; a --bind at or above one of
	 * the others uncovers it.  A path missing in the jail but present on
	 * the host fails the start.  policy_defaults() points them at tables
	 * of policy.c; a front door with lists of its own keeps them alive
	 * as long as the spec.
	 */
	const char *const *readonly;
	size_t nreadonly;
	const char *const *masked;
	size_t nmasked;
	bool mask_ssh_host_keys; /* and /etc/ssh/ssh_host_*_key (the embedded root) */
	bool hide_state_root;	 /* cell's state root masked where the tree shows it */
};

/*
 * One process in a jail: the jail's first (`run`), one `cell exec` adds,
 * and later an OCI `process`.  How it is started (detached, its stdio, a
 * console socket, a pid file) is no part of it: those are the options of
 * one launch (launch.h).
 */
struct jail_process {
	char **argv; /* NULL-terminated; argv[0] is the command */
	char **env;  /* NULL-terminated, "KEY=VALUE" */
	size_t nenv;
	char *cwd; /* NULL: "/" (the workdir parameter) */

	bool has_user;
	uid_t uid;
	bool has_gid; /* false: primary group from the jail's /etc/passwd */
	gid_t gid;

	bool terminal; /* a new pty of the jail's own */
	/* The five capability sets and no_new_privs: policy_defaults() fills
	 * them from the policy's parameters. */
	bool has_caps; /* false: the capabilities are left as they are */
	struct jail_caps caps;
	bool no_new_privs;
};

struct jail_spec {
	char *name;	  /* validated name; the state directory's name */
	char *hostname;	  /* NULL: the name given with --name, else "cell" */
	char *domainname; /* NULL: leave the copy of the host's */

	struct jail_process proc; /* its first process */

	char *rootfs; /* NULL: the embedded root (host's / read-only) */
	bool rw;      /* root writable (only with rootfs) */
	struct jail_bind *binds;
	size_t nbinds;

	enum jail_net net;
	enum jail_userns userns;
	bool init; /* our reaper is pid 1, the command its child */

	bool policy;	    /* hold the jail to the default policy (policy.c) */
	unsigned int allow; /* enum jail_allow bits */
	struct jail_limits limits;
	char *cgroup_parent; /* NULL: beneath cell's own cgroup */

	/* The devices cgroup's rules; none: no devices cgroup. */
	struct jail_device_rule *devices;
	size_t ndevices;

	struct jail_mechanisms mech; /* policy_defaults() fills it */
};

void spec_init(struct jail_spec *s);
void spec_free(struct jail_spec *s);

/* Appends a copy of *R to the device rules, checking its fields. */
int spec_add_device_rule(struct jail_spec *s, const struct jail_device_rule *r, struct cell_err *e);

/* Sets KEY=VALUE, replacing an earlier KEY.  "KEY" alone copies the
 * caller's value of KEY (as docker run -e KEY), or is ignored when unset.
 * Errors say what is wrong with the value only (param.h). */
int spec_env_set(struct jail_spec *s, const char *kv, struct cell_err *e);
/* Starts the environment from a NULL-terminated array (e.g. environ). */
int spec_env_import(struct jail_spec *s, char *const *envp, struct cell_err *e);
/* Value of KEY in the spec's environment, or NULL. */
const char *spec_env_get(const struct jail_spec *s, const char *key);

int spec_set_argv(struct jail_spec *s, int argc, char *const *argv, struct cell_err *e);

bool spec_valid_name(const char *name);
bool spec_valid_hostname(const char *host);

/* Checks the whole spec, fills the defaults that depend on other fields.
 * An error about a parameter records it (err.h): "needs memory" is
 * about swap, and names memory. */
int spec_validate(struct jail_spec *s, struct cell_err *e);
/* The checks alone, of a spec already complete (a running jail's). */
int spec_check(const struct jail_spec *s, struct cell_err *e);

/* Parses a decimal id in [0, 2^32-2]. */
int spec_parse_id(const char *str, unsigned int *out);

/* "64M", "1G", "4096" (k, m, g, t: powers of 1024) -> bytes. */
int spec_parse_size(const char *str, long long *out);
/* "1.5", "0.25", "2" CPUs -> thousandths. */
int spec_parse_cpus(const char *str, long long *out);
/* A non-negative decimal integer. */
int spec_parse_count(const char *str, long long *out);

/* Name of one enum jail_allow bit, NULL past the last. */
const char *spec_allow_name(unsigned int bit);

#endif
