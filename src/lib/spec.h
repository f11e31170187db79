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
	JAIL_NET_NONE,	 /* own network namespace, only loopback, up */
	JAIL_NET_HOST,	 /* share the host's network namespace */
	JAIL_NET_BRIDGE, /* own namespace, a veth to a bridge of cell's (net.c, cell-net) */
	JAIL_NET_NS,	 /* join the network namespace at network.ns_path */
	JAIL_NET_SLIRP,	 /* own namespace, a user-mode stack beside it (slirp.c) */
};

/*
 * A jail's network beyond its mode (--net bridge[:NAME], --net ns:PATH):
 * the parameters of param.c as text, each element canonical (inet_ntop's
 * spelling): "192.0.2.5/24", "2001:db8::5" (no prefix: the gateway's,
 * chosen at the start), publish "[HOSTADDR:]HOSTPORT:JAILPORT/PROTO".
 */
struct jail_network {
	char *bridge;  /* --net bridge:NAME; NULL: cell0 */
	char *ns_path; /* --net ns:PATH */
	char **ip4, **ip6, **gateway, **publish, **dns;
	size_t nip4, nip6, ngateway, npublish, ndns;
	char *ifname; /* vnet.interface; NULL: eth0 */
	bool nat;     /* masquerade the bridge's subnets going out (default on) */
	/* vnet.mtu: the bridge's MTU, which a new bridge is made with and
	 * an existing one must have; -1: the bridge's (a new one's 1500). */
	long long mtu;
};

/* Whose ids the jail's are (--userns, userns in a jail file). */
enum jail_userns {
	JAIL_USERNS_PRIVATE, /* a user namespace of its own, its ids a range of its own */
	JAIL_USERNS_HOST,    /* the host's ids: the jail's root is the host's (weaker) */
};

/* When the reaper starts the payload again (--restart, restart in a jail
 * file); it needs the reaper (init). */
enum jail_restart {
	JAIL_RESTART_NO,
	JAIL_RESTART_ON_FAILURE, /* an exit status other than 0, restart_max times (0: always) */
	JAIL_RESTART_ALWAYS,	 /* whatever the status, until cell stop */
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

/* Resources beyond the jail CLI's limits (an OCI config's
 * linux.resources); -1 / NULL: not set. */
struct jail_resources {
	long long cpu_shares;		 /* v1 cpu.shares; v2 cpu.weight converted */
	long long cpu_quota, cpu_period; /* microseconds; set, they win over cpus_milli */
	char *cpuset_cpus, *cpuset_mems; /* "0-1" */
	long long memory_reservation;	 /* bytes, the soft limit */
	long long memory_swappiness;	 /* v1 only */
	long long blkio_weight;		 /* 10..1000 */
	struct jail_sysctl *unified;	 /* v2: file name = value */
	size_t nunified;
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
	JAIL_SECCOMP_RULES,   /* mech.seccomp_rules, compiled at prepare */
};

/* seccomp programs from a rule list (an OCI config's linux.seccomp),
 * compiled with libseccomp when the launch prepares (seccomp_oci.h).
 * Actions are SCMP_ACT_* values of <seccomp.h> without the errno:
 * errno_ret says it (-1: the default, EPERM). */
struct jail_seccomp_arg {
	unsigned int index; /* 0..5 */
	uint64_t value, value_two;
	int op; /* enum scmp_compare (SCMP_CMP_NE ... SCMP_CMP_MASKED_EQ) */
};

struct jail_seccomp_syscall {
	char **names; /* NULL-terminated */
	uint32_t action;
	int errno_ret;
	struct jail_seccomp_arg *args;
	size_t nargs;
};

struct jail_seccomp_rules {
	uint32_t default_action;
	int default_errno; /* -1: EPERM */
	uint32_t *archs;   /* SCMP_ARCH_* tokens; none: the native one only */
	size_t narchs;
	unsigned int flags;  /* SECCOMP_FILTER_FLAG_* (log, spec_allow, ...) */
	char *listener_path; /* SCMP_ACT_NOTIFY's listener, a unix socket; NULL: none */
	char *listener_metadata;
	struct jail_seccomp_syscall *syscalls;
	size_t nsyscalls;
};

/* A namespace of the jail, made new or joined (CLONE_NEW* type). */
struct jail_namespace {
	int type;   /* one CLONE_NEW* */
	char *path; /* NULL: a new one; else a namespace file to setns() into */
};

/* One line of a user namespace's uid_map or gid_map. */
struct jail_idmap {
	uint32_t inside, outside, count;
};

/*
 * One mount of the jail's tree, in order, over its root (an OCI config's
 * mounts).  Destinations are resolved inside the root, never following
 * a symlink; a bind's missing destination is made (a directory, or an
 * empty file for a file source).
 */
struct jail_mount {
	char *type;	     /* "bind" (with MS_BIND in flags), "proc", "tmpfs", ... */
	char *source;	     /* host path for binds; the fs source otherwise */
	char *destination;   /* absolute, inside the jail */
	unsigned long flags; /* MS_RDONLY MS_NOSUID MS_NODEV MS_NOEXEC MS_NOATIME
			      * MS_NODIRATIME MS_RELATIME MS_STRICTATIME MS_BIND
			      * MS_REC MS_SYNCHRONOUS MS_DIRSYNC MS_MANDLOCK */
	unsigned long clear; /* attributes the options clear ("rw", "suid", "dev", "exec"...) */
	unsigned long propagation; /* MS_PRIVATE/MS_SLAVE/MS_SHARED/MS_UNBINDABLE (| MS_REC); 0: as
				      made */
	char *data; /* the filesystem's options ("mode=755,size=65536k"); NULL: none */
	struct jail_idmap *uid_map, *gid_map; /* an idmapped bind; none: plain */
	size_t nuid_map, ngid_map;
	bool tmpcopyup; /* a tmpfs filled with what the root had at its destination
			 * (runc's "tmpcopyup", podman's --read-only tmpfs mounts) */
};

/* A device node made in the jail's /dev (OCI linux.devices; the default
 * set for jails that list their mounts). */
struct jail_device_node {
	char *path; /* absolute, inside the jail */
	char type;  /* 'c', 'b', 'u' (= 'c'), 'p' (fifo) */
	long long major, minor;
	mode_t mode; /* permission bits */
	uid_t uid;
	gid_t gid;
};

struct jail_sysctl {
	char *key; /* "net.ipv4.ip_forward" */
	char *value;
};

/* Where the runtime runs hooks (OCI config's hooks). */
enum jail_hook_point {
	JAIL_HOOK_PRESTART,	    /* deprecated: as createRuntime */
	JAIL_HOOK_CREATE_RUNTIME,   /* runtime's namespaces, root built, before pivot_root */
	JAIL_HOOK_CREATE_CONTAINER, /* the jail's namespaces, before pivot_root */
	JAIL_HOOK_START_CONTAINER,  /* in the jail, after start, before the payload's exec */
	JAIL_HOOK_POSTSTART,	    /* runtime's namespaces, once the payload runs */
	JAIL_HOOK_POSTSTOP,	    /* runtime's namespaces, when the jail is deleted */
	JAIL_HOOK_NPOINTS
};

/* The hook points as an OCI config names them ("createRuntime"). */
extern const char *const jail_hook_point_names[JAIL_HOOK_NPOINTS];

struct jail_hook {
	char *path;  /* absolute */
	char **args; /* NULL-terminated, args[0] included; NULL: { path } */
	char **env;  /* NULL-terminated; NULL: empty */
	int timeout; /* seconds; 0: none */
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
	/* A rootless cell's jail (rootless.h): it lives in the user
	 * namespace cell made for itself and mapped; every namespace is
	 * made by the clone in it, and owned by it (own_userns is false). */
	bool rootless;
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
	bool paths_owned;	 /* readonly and masked are heap copies spec_free() frees */

	/*
	 * The lists an OCI config.json gives (oci_config.c); the jail CLI
	 * and jail files leave them empty, and policy_defaults() does not
	 * touch them.
	 */
	/* Namespaces joined by path (ns_new holds the ones made new). */
	struct jail_namespace *ns_join;
	size_t nns_join;
	/* The user namespace's maps, when ns_new or ns_join has one and
	 * userns_range does not choose them: cell writes these. */
	struct jail_idmap *uid_map, *gid_map;
	size_t nuid_map, ngid_map;
	/* mounts_given: the tree is the root (read-only unless rw) and
	 * these mounts, in order, and the device nodes below; not cell's
	 * built-in /proc /dev /sys /tmp set. */
	bool mounts_given;
	unsigned long
		root_propagation; /* MS_* of the root's mount (rootfsPropagation); 0: private */
	struct jail_mount *mounts;
	size_t nmounts;
	struct jail_device_node *dev_nodes;
	size_t ndev_nodes;
	struct jail_sysctl *sysctls; /* written once its /proc is mounted */
	size_t nsysctls;
	struct jail_seccomp_rules *seccomp_rules; /* JAIL_SECCOMP_RULES */
	struct jail_hook *hooks[JAIL_HOOK_NPOINTS];
	size_t nhooks[JAIL_HOOK_NPOINTS];
	/* A new time namespace's clock offsets (timeOffsets): [0] the
	 * monotonic clock's, [1] the boot time's; with has_time_offsets. */
	struct {
		long long secs;
		long nanosecs;
	} time_offsets[2];
	bool has_time_offsets;
	unsigned long personality; /* PER_LINUX or PER_LINUX32, with has_personality */
	bool has_personality;
};

/* One RLIMIT_* of a process (OCI process.rlimits). */
struct jail_rlimit {
	int resource;		       /* RLIMIT_* */
	unsigned long long soft, hard; /* RLIM_INFINITY allowed */
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
	/* -u NAME[:GROUP]: the names as given, looked up in the jail's own
	 * /etc/passwd and /etc/group once it stands in its root (uid and gid
	 * are then set there); NULL: the number above. */
	char *user_name;
	char *group_name;
	/* HOME from the user's /etc/passwd line (else "/") when the
	 * environment has none or an empty one: both front doors (runc sets
	 * it so, and images rely on it). */
	bool home_env;
	/* The jail CLI's alone: with -u, the user's supplementary groups from
	 * /etc/group (as docker -u).  Never OCI's: additionalGids only, as
	 * runc. */
	bool user_groups;

	bool terminal; /* a new pty of the jail's own */
	/* The five capability sets and no_new_privs: policy_defaults() fills
	 * them from the policy's parameters. */
	bool has_caps; /* false: the capabilities are left as they are */
	/* The five sets hold as given whatever the user (an OCI process):
	 * the bounding set drops with the policy, the rest once the user is
	 * set; else the jail CLI's model (one kept set, emptied for a user
	 * other than root). */
	bool caps_exact;
	struct jail_caps caps;
	bool no_new_privs;

	/* Supplementary groups: with has_groups exactly these (OCI
	 * additionalGids), else none (run) or the user's (exec --user). */
	bool has_groups;
	gid_t *groups;
	size_t ngroups;
	bool has_umask; /* false: the caller's umask */
	mode_t umask;
	struct jail_rlimit *rlimits; /* set in the jail before the policy */
	size_t nrlimits;
	bool has_oom_score_adj;
	int oom_score_adj;
	unsigned short console_rows, console_cols; /* the pty's size; 0: the caller's */
	char *apparmor_profile;			   /* applied where AppArmor is on; NULL: none */
	char *selinux_label;			   /* applied where SELinux is on; NULL: none */
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
	struct jail_network network; /* bridge and ns jails */
	enum jail_userns userns;
	bool init; /* our reaper is pid 1, the command its child */
	/* init was given (--init, --no-init, a file's init): else a
	 * detached jail gets the reaper (launch_complete_spec()). */
	bool init_given;
	enum jail_restart restart;
	long long restart_max; /* on-failure:N; 0: no limit */
	/* A detached jail's log: the size of one file, and how many older
	 * ones are kept (log.0 .. log.KEEP); -1: the defaults. */
	long long log_size, log_keep;

	bool policy;	    /* hold the jail to the default policy (policy.c) */
	unsigned int allow; /* enum jail_allow bits */
	struct jail_limits limits;
	char *cgroup_parent; /* NULL: beneath cell's own cgroup */
	/* The jail's cgroup exactly (an OCI config's cgroupsPath: absolute,
	 * below each hierarchy's root; relative, below cell's own cgroup);
	 * with it the jail always has cgroups.  NULL: cell names them. */
	char *cgroup_path;
	bool cgroup_always; /* cgroups even without a limit (OCI) */
	struct jail_resources res;

	/* The devices cgroup's rules; none: no devices cgroup. */
	struct jail_device_rule *devices;
	size_t ndevices;

	struct jail_mechanisms mech; /* policy_defaults() fills it */
};

void spec_init(struct jail_spec *s);
void spec_free(struct jail_spec *s);
void spec_seccomp_rules_free(struct jail_seccomp_rules *r);

/* Appends a copy of *R to the device rules, checking its fields. */
int spec_add_device_rule(struct jail_spec *s, const struct jail_device_rule *r, struct cell_err *e);

/* Sets KEY=VALUE, replacing an earlier KEY.  "KEY" alone copies the
 * caller's value of KEY (as docker run -e KEY), or is ignored when unset.
 * Errors say what is wrong with the value only (param.h). */
int spec_env_set(struct jail_spec *s, const char *kv, struct cell_err *e);
/* Adds a NULL-terminated array of KEY=VALUE entries (a record's env). */
int spec_env_import(struct jail_spec *s, char *const *envp, struct cell_err *e);
/* Value of KEY in the spec's environment, or NULL. */
const char *spec_env_get(const struct jail_spec *s, const char *key);

int spec_set_argv(struct jail_spec *s, int argc, char *const *argv, struct cell_err *e);

bool spec_valid_name(const char *name);
bool spec_valid_hostname(const char *host);

/*
 * The jail CLI's environment of a jail (its first process), around what
 * -e and env gave, which win: PATH (a default), HOSTNAME (the jail's),
 * container=cell, and with a pty TERM (TERM: the caller's; NULL: xterm);
 * HOME is the user's, found in the jail once it stands in its root
 * (proc.home_env; and proc.user_groups).  Never the caller's environment.  After
 * spec_validate() (the hostname).
 */
int spec_env_jail(struct jail_spec *s, const char *term, struct cell_err *e);
/* PATH's default, when the environment has no PATH. */
int spec_env_path(struct jail_spec *s, struct cell_err *e);

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
