/*
 * policy.c - the default jail policy: each rule of the fs-only bsdjail
 * seed, one line, mapped to the kernel mechanisms that enforce it today.
 *
 * The table is what `cell inspect` prints, each rule with the mechanisms
 * that must hold for it; policy_defaults() fills a spec's mechanisms
 * from its parameters (policy, allow.*, net).  The namespaces (ns.c),
 * the protective mounts (rootfs.c) and the rlimits (rlimit.c) are applied
 * by their own modules, from the mechanisms only.
 */
#include "policy.h"

#include <errno.h>
#include <sched.h>
#include <linux/capability.h>
#include <string.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "devices.h"
#include "landlock.h"
#include "rlimit.h"
#include "rootless.h"
#include "seccomp_oci.h"

#define CAP(c)	CAPS_BIT(CAP_##c)
#define SECCOMP JAIL_SECCOMP_DEFAULT /* the deny list */

/* key, name, --allow, mechanisms, relaxed; then what enforces it:
 * caps dropped, filter, new namespaces, Landlock, no_new_privs, mounts. */
const struct policy_rule policy_rules[] = {
	{"mount", "mount", 0,
	 "seccomp (mount, umount2, pivot_root, fsopen, fsmount, move_mount, open_tree, open_tree_attr, mount_setattr..., FIFREEZE, FS_IOC_SHUTDOWN); CAP_SYS_ADMIN dropped, or with set_hostname held only in the jail's own user namespace",
	 NULL, CAP(SYS_ADMIN), SECCOMP, 0, 0, false, NULL},
	{"reboot", "swap, reboot, kexec", 0,
	 "seccomp (swapon, swapoff, reboot, kexec_load, kexec_file_load); CAP_SYS_BOOT dropped",
	 NULL, CAP(SYS_BOOT), SECCOMP, 0, 0, false, NULL},
	{"signal", "signal outside the jail", 0, "pid namespace; Landlock signal scope", NULL, 0,
	 JAIL_SECCOMP_NONE, CLONE_NEWPID, LANDLOCK_SCOPE_SIGNALS, false, NULL},
	{"ptrace", "ptrace outside the jail", 0, "pid namespace; CAP_SYS_PTRACE dropped", NULL,
	 CAP(SYS_PTRACE), JAIL_SECCOMP_NONE, CLONE_NEWPID, 0, false, NULL},
	{"mknod", "mknod but fifos, or devices outside the standard set", 0,
	 "CAP_MKNOD dropped; root mounted nodev; /dev holds only null zero full random urandom tty; with --rootfs or --bind a devices cgroup allowing only those, ptmx and ptys",
	 NULL, CAP(MKNOD), JAIL_SECCOMP_NONE, 0, 0, false, NULL},
	{"priority", "raise priority or scheduling class", 0,
	 "CAP_SYS_NICE dropped; RLIMIT_NICE at the start value; RLIMIT_RTPRIO 0; seccomp (realtime I/O class)",
	 NULL, CAP(SYS_NICE), SECCOMP, 0, 0, false, NULL},
	{"rlimit", "raise an rlimit", 0, "CAP_SYS_RESOURCE dropped", NULL, CAP(SYS_RESOURCE),
	 JAIL_SECCOMP_NONE, 0, 0, false, NULL},
	{"modules", "load kernel modules", 0,
	 "seccomp (init_module, finit_module, delete_module); CAP_SYS_MODULE dropped", NULL,
	 CAP(SYS_MODULE), SECCOMP, 0, 0, false, NULL},
	{"raw_io", "raw I/O", 0, "seccomp (iopl, ioperm); CAP_SYS_RAWIO dropped; no /dev/mem", NULL,
	 CAP(SYS_RAWIO), SECCOMP, 0, 0, false, NULL},
	{"net_admin", "network administration", 0, "CAP_NET_ADMIN dropped", NULL, CAP(NET_ADMIN),
	 JAIL_SECCOMP_NONE, 0, 0, false, NULL},
	{"raw_sockets", "raw sockets", JAIL_ALLOW_RAW_SOCKETS, "CAP_NET_RAW dropped", NULL,
	 CAP(NET_RAW), JAIL_SECCOMP_NONE, 0, 0, false, NULL},
	{"sysctl", "sysctl writes", 0,
	 "/proc/sys, /proc/sysrq-trigger read-only; /proc/kcore, /proc/keys... masked; /sys read-only",
	 NULL, 0, JAIL_SECCOMP_NONE, 0, 0, false, "/proc/sys"},
	{"processes", "see other processes", 0, "pid namespace; /proc of the jail's own", NULL, 0,
	 JAIL_SECCOMP_NONE, CLONE_NEWPID, 0, false, NULL},
	{"sysvipc", "SysV IPC of others", JAIL_ALLOW_SYSVIPC, "IPC namespace", NULL, 0,
	 JAIL_SECCOMP_NONE, CLONE_NEWIPC, 0, false, NULL},
	{"abstract_sockets", "abstract unix sockets of others", 0,
	 "network namespace; Landlock abstract-unix-socket scope", NULL, 0, JAIL_SECCOMP_NONE, 0,
	 LANDLOCK_SCOPE_ABSTRACT, false, NULL},
	{"host_secrets", "host secrets", 0,
	 "masked in the embedded root (/etc/shadow, /root, /home, /var/lib, ssh host keys...)",
	 NULL, 0, JAIL_SECCOMP_NONE, 0, 0, false, "/etc/shadow"},
	{"set_hostname", "set hostname", JAIL_ALLOW_SET_HOSTNAME,
	 "seccomp (sethostname, setdomainname); CAP_SYS_ADMIN dropped",
	 "CAP_SYS_ADMIN in a user namespace of the jail's own, which owns only its UTS and network namespaces",
	 CAP(SYS_ADMIN), SECCOMP, 0, 0, false, NULL},
	{"chown", "chown", JAIL_ALLOW_CHOWN, "CAP_CHOWN dropped", NULL, CAP(CHOWN),
	 JAIL_SECCOMP_NONE, 0, 0, false, NULL},
	{"mlock", "lock memory", JAIL_ALLOW_MLOCK, "CAP_IPC_LOCK dropped; RLIMIT_MEMLOCK", NULL,
	 CAP(IPC_LOCK), JAIL_SECCOMP_NONE, 0, 0, false, NULL},
	{"privileges", "gain privileges on exec", 0, "no_new_privs; embedded root mounted nosuid",
	 NULL, 0, JAIL_SECCOMP_NONE, 0, 0, true, NULL},
	{"setid_files", "make setuid or setgid files, or file capabilities", 0,
	 "seccomp (chmod, fchmod, fchmodat, fchmodat2, open, openat, creat, mknod with S_ISUID or S_ISGID; openat2); CAP_SETFCAP dropped",
	 NULL, CAP(SETFCAP), SECCOMP, 0, 0, false, NULL},
	{"audit", "write the kernel's audit log", 0, "CAP_AUDIT_WRITE dropped", NULL,
	 CAP(AUDIT_WRITE), JAIL_SECCOMP_NONE, 0, 0, false, NULL},
	{"io_uring", "io_uring", JAIL_ALLOW_IO_URING,
	 "seccomp (io_uring_setup, io_uring_enter, io_uring_register)", NULL, 0, SECCOMP, 0, 0,
	 false, NULL},
	{"personality", "personality flags but ADDR_NO_RANDOMIZE", 0,
	 "seccomp (personality: READ_IMPLIES_EXEC, MMAP_PAGE_ZERO, UNAME26...)", NULL, 0, SECCOMP,
	 0, 0, false, NULL},
	{"host_root", "be the host's root (host files, sockets and per-uid quotas)", 0,
	 "a user namespace of the jail's own: its ids 0-65535 a range of host ids no host user or other jail holds, joined after every mount; --rootfs and binds idmapped",
	 NULL, 0, JAIL_SECCOMP_NONE, CLONE_NEWUSER, 0, false, NULL},
	{"namespaces", "new namespaces, kernel keyrings, bpf, perf", 0,
	 "seccomp (unshare, setns, clone with namespace flags, clone3, keyctl, bpf, perf_event_open, fanotify...)",
	 NULL, 0, SECCOMP, 0, 0, false, NULL},
};
const size_t policy_nrules = sizeof(policy_rules) / sizeof(policy_rules[0]);

/* Kernel interfaces a jail may read but not write: sysctls above all;
 * pressure, whose files take triggers that the kernel polls. */
static const char *const policy_readonly[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/bus",
					      "/proc/fs",  "/proc/irq",		  "/proc/pressure"};
/*
 * Kernel interfaces a jail may not even read: the kernel's memory,
 * addresses and keys, and what the kernel shares between all jails and
 * the host, which one jail would read the others' activity from:
 * slabinfo and vmallocinfo (allocations, a side channel and the aid of
 * heap exploits), kpageflags/kpagecount/kpagecgroup (every physical
 * page: rowhammer and page-cache side channels), iomem (physical
 * addresses, KASLR), config.gz (the kernel's exact build), key-users
 * (every uid's key quota), tty/driver (every tty of the host); the
 * firmware's tables (ACPI, EFI variables).  Then, for the embedded root
 * only, the host's secrets (docs/cell.8 lists them).
 */
static const char *const policy_masked[] = {
	"/proc/kcore", "/proc/keys", "/proc/kallsyms", "/proc/timer_list", "/proc/sched_debug",
	"/proc/latency_stats", "/proc/acpi", "/proc/scsi", "/proc/slabinfo", "/proc/vmallocinfo",
	"/proc/kpageflags", "/proc/kpagecount", "/proc/kpagecgroup", "/proc/iomem",
	"/proc/config.gz", "/proc/key-users", "/proc/tty/driver", "/sys/firmware",
#define POLICY_MASKED_KERNEL 18
	/* the host's secrets */
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
	"/etc/ssl/private", "/root", "/home", "/var/lib", "/var/backups", "/var/mail", "/var/spool",
	"/var/log", "/var/cache"};

uint64_t policy_default_caps(void)
{
	/* What a jail's root needs to act as root on its own files and
	 * processes, and nothing that reaches the kernel or the host: no
	 * CAP_SETFCAP (a file capability planted in a bind is the host's
	 * to run), no CAP_AUDIT_WRITE (the host's audit log). */
	return CAP(DAC_OVERRIDE) | CAP(FOWNER) | CAP(FSETID) | CAP(KILL) | CAP(SETGID) |
	       CAP(SETUID) | CAP(SETPCAP) | CAP(NET_BIND_SERVICE) | CAP(SYS_CHROOT);
}

/* A network namespace of the jail's own: --net none, bridge and slirp. */
static bool own_netns(const struct jail_spec *s)
{
	return s->net == JAIL_NET_NONE || s->net == JAIL_NET_BRIDGE || s->net == JAIL_NET_SLIRP;
}

/* --net ns:PATH: joined by path, as an OCI config joins one (launch.c
 * opens and checks it at prepare). */
static int join_netns(struct jail_spec *s, struct cell_err *e)
{
	struct jail_mechanisms *m = &s->mech;

	m->ns_join = calloc(1, sizeof(*m->ns_join));
	if (m->ns_join == NULL || (m->ns_join[0].path = strdup(s->network.ns_path)) == NULL) {
		free(m->ns_join);
		m->ns_join = NULL;
		return cell_err_set(e, ENOMEM, "net");
	}
	m->ns_join[0].type = CLONE_NEWNET;
	m->nns_join = 1;
	return 0;
}

int policy_defaults(struct jail_spec *s, struct cell_err *e)
{
	struct jail_mechanisms *m = &s->mech;
	struct jail_process *proc = &s->proc;
	uint64_t keep = policy_default_caps();

	memset(m, 0, sizeof(*m));
	proc->has_caps = false;
	proc->no_new_privs = false;
	m->ns_new = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID | CLONE_NEWCGROUP;
	/* --allow sysvipc shares the host's SysV IPC and message queues. */
	if (!(s->allow & JAIL_ALLOW_SYSVIPC))
		m->ns_new |= CLONE_NEWIPC;
	/* A bridged jail's namespace is new too: cell-net gives it its veth. */
	if (own_netns(s))
		m->ns_new |= CLONE_NEWNET;
	if (s->net == JAIL_NET_NS && join_netns(s, e) < 0)
		return -1;
	/* The jail's root is not the host's: a user namespace of its own,
	 * its ids a range of host ids no one else holds (idrange.h), joined
	 * last, so that it owns none of the jail's other namespaces or
	 * mounts.  --userns host keeps the host's ids (weaker). */
	/* A rootless cell's jail is in cell's own user namespace already
	 * (rootless.h): it owns every namespace the clone makes. */
	m->rootless = rootless();
	if (s->userns == JAIL_USERNS_PRIVATE && !m->rootless) {
		m->own_userns = true;
		m->userns_range = true;
		/* Its network namespace of its own is owned by it: the
		 * capabilities the policy keeps for the network
		 * (NET_BIND_SERVICE, with --allow raw_sockets NET_RAW) count
		 * over the network namespace's owner.  The helper makes it,
		 * while cell makes the rest. */
		if (own_netns(s))
			m->userns_owns = CLONE_NEWNET;
	}
	if (!s->policy)
		return 0;
	/* sethostname(2) needs CAP_SYS_ADMIN over the UTS namespace's
	 * owner: the jail holds it in a user namespace of its own (ns.h,
	 * struct ns_own; with --userns host one that maps every id to
	 * itself) which owns its UTS and network namespaces, and the filter
	 * keeps mount and the rest forbidden there too. */
	if (s->allow & JAIL_ALLOW_SET_HOSTNAME) {
		keep |= CAP(SYS_ADMIN);
		if (!m->rootless) {
			m->own_userns = true;
			m->userns_owns |= CLONE_NEWUTS | (own_netns(s) ? CLONE_NEWNET : 0);
		}
	}
	if (s->allow & JAIL_ALLOW_RAW_SOCKETS)
		keep |= CAP(NET_RAW);
	if (s->allow & JAIL_ALLOW_CHOWN)
		keep |= CAP(CHOWN);
	if (s->allow & JAIL_ALLOW_MLOCK)
		keep |= CAP(IPC_LOCK);
	proc->has_caps = true;
	/* Root's sets; a uid change empties them (process_finish()). */
	proc->caps = (struct jail_caps){.bounding = keep, .effective = keep, .permitted = keep};
	proc->no_new_privs = true;
	m->landlock = LANDLOCK_SCOPE_ABSTRACT | LANDLOCK_SCOPE_SIGNALS;
	m->seccomp = JAIL_SECCOMP_DEFAULT;
	m->seccomp_relax = ((s->allow & JAIL_ALLOW_SET_HOSTNAME) ? SECCOMP_RELAX_HOSTNAME : 0) |
			   ((s->allow & JAIL_ALLOW_IO_URING) ? SECCOMP_RELAX_IO_URING : 0);
	m->pin_priority = true;
	m->readonly = policy_readonly;
	m->nreadonly = sizeof(policy_readonly) / sizeof(policy_readonly[0]);
	m->masked = policy_masked;
	/* A --rootfs holds none of the host's files. */
	m->nmasked = s->rootfs != NULL ? POLICY_MASKED_KERNEL
				       : sizeof(policy_masked) / sizeof(policy_masked[0]);
	m->mask_ssh_host_keys = s->rootfs == NULL;
	m->hide_state_root = true;
	/* Only the standard devices, where device nodes could be found.  A
	 * rootless jail's device nodes are the host's, which the user may
	 * open anyway, and it has no devices cgroup to hold: none. */
	if (m->rootless)
		return 0;
	return devices_add_standard(s, e);
}

/* The filter's relaxation an --allow bit makes. */
static unsigned int relax_of(unsigned int allow)
{
	return allow == JAIL_ALLOW_SET_HOSTNAME ? SECCOMP_RELAX_HOSTNAME
	       : allow == JAIL_ALLOW_IO_URING	? SECCOMP_RELAX_IO_URING
						: 0;
}

/* Whether M makes PATH read-only or masks it. */
static bool protects(const struct jail_mechanisms *m, const char *path)
{
	for (size_t i = 0; i < m->nreadonly; i++)
		if (strcmp(m->readonly[i], path) == 0)
			return true;
	for (size_t i = 0; i < m->nmasked; i++)
		if (strcmp(m->masked[i], path) == 0)
			return true;
	return false;
}

/* Whether the mechanisms of S (the jail's and its first process's) hold
 * rule R. */
static bool rule_holds(const struct policy_rule *r, const struct jail_spec *s)
{
	const struct jail_mechanisms *m = &s->mech;
	uint64_t kept = s->proc.has_caps ? s->proc.caps.bounding : ~0ULL;

	/* CAP_SYS_ADMIN held in a user namespace of the jail's own counts
	 * there only: mount and the rest stay the host's to allow. */
	if ((m->own_userns || m->rootless) && r->allow != JAIL_ALLOW_SET_HOSTNAME)
		kept &= ~CAP(SYS_ADMIN);
	/* A range of ids of its own: the jail's user namespace (not in
	 * ns_new: its helper makes it, ns.h); a rootless jail's is cell's. */
	unsigned long ns = m->ns_new | (m->userns_range || m->rootless ? CLONE_NEWUSER : 0);

	if ((kept & r->caps_dropped) != 0 || (ns & r->ns) != r->ns ||
	    (m->landlock & r->landlock) != r->landlock ||
	    (r->no_new_privs && !s->proc.no_new_privs) ||
	    (r->path != NULL && !protects(m, r->path)))
		return false;
	if (r->filter == JAIL_SECCOMP_NONE)
		return true;
	/* The filter, without the calls of this rule let through. */
	return m->seccomp != JAIL_SECCOMP_NONE && !(m->seccomp_relax & relax_of(r->allow));
}

const char *policy_rule_state(const struct policy_rule *r, const struct jail_spec *s)
{
	if (rule_holds(r, s))
		return "enforced";
	if (r->allow != 0 && (s->allow & r->allow))
		return "allowed";
	return "off";
}

int policy_build(const struct jail_spec *s, struct policy *p, struct cell_err *e)
{
	memset(p, 0, sizeof(*p));
	p->mech = &s->mech;
	p->proc = &s->proc;
	p->landlock = s->mech.landlock;
	if (s->mech.seccomp == JAIL_SECCOMP_DEFAULT)
		seccomp_filter_for(s->mech.seccomp_relax, &p->seccomp);
	if (s->mech.seccomp == JAIL_SECCOMP_RULES) {
		const struct jail_seccomp_rules *r = s->mech.seccomp_rules;
		struct sock_fprog prog = {0, NULL};

		if (r == NULL)
			return cell_err_set(e, EINVAL, "seccomp: no profile");
		if (seccomp_oci_compile(r, &prog, e) < 0)
			return -1;
		p->compiled = prog.filter;
		p->seccomp.insns = prog.filter;
		p->seccomp.len = prog.len;
		p->seccomp_flags = r->flags;
		/* SCMP_ACT_NOTIFY's agent gets the listener (launch.h). */
		if (r->listener_path != NULL) {
			p->want_listener = true;
			p->seccomp_flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		}
	}
	return 0;
}

void policy_free(struct policy *p)
{
	free(p->compiled);
	p->compiled = NULL;
}

int policy_for_exec(const struct jail_spec *s, struct policy *p, struct cell_err *e)
{
	if (policy_build(s, p, e) < 0)
		return -1;
	/* A process exec adds has no agent: its notified calls fail
	 * (ENOSYS), as a filter without a listener makes them. */
	p->want_listener = false;
	p->seccomp_flags &= ~(unsigned int)SECCOMP_FILTER_FLAG_NEW_LISTENER;
	if (p->landlock != 0)
		p->landlock = (s->mech.ns_new & CLONE_NEWNET) ? 0 : LANDLOCK_SCOPE_ABSTRACT;
	return 0;
}

/* The seccomp program with its flags (an OCI profile's: log,
 * spec_allow...), through seccomp(2). */
static int install_filter(const struct policy *p, struct cell_err *e)
{
	struct sock_fprog prog = {.len = p->seccomp.len,
				  .filter = (struct sock_filter *)p->seccomp.insns};

	long fd;

	if (p->seccomp_flags == 0)
		return seccomp_install(&p->seccomp, e);
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, p->seccomp_flags, &prog);
	if (fd < 0)
		return cell_err_set(e, errno, "seccomp: install the filter");
	if (p->want_listener) {
		if (p->listener != NULL)
			*p->listener = (int)fd;
		else
			close((int)fd);
	}
	return 0;
}

int policy_apply(const struct jail_spec *s, const struct policy *p, struct cell_err *e)
{
	const struct jail_mechanisms *m = p->mech;
	const struct jail_process *proc = p->proc;
	int scoped;
	/* An OCI profile without no_new_privs goes first (policy.h). */
	bool filter_first = m->seccomp == JAIL_SECCOMP_RULES && !proc->no_new_privs;

	if (m->has_personality && personality(m->personality) < 0)
		return cell_err_set(e, errno, "set personality %#lx", m->personality);
	if (filter_first && install_filter(p, e) < 0)
		return -1;
	/* A setuid or file-capability binary in the jail gains nothing. */
	if (proc->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return cell_err_set(e, errno, "set no_new_privs");
	/* An OCI process's sets come once its user is set (process.c);
	 * until then it keeps root's, across that change. */
	if (proc->has_caps && proc->caps_exact &&
	    (caps_drop_bounding(proc->caps.bounding, e) < 0 || caps_keep(e) < 0))
		return -1;
	if (proc->has_caps && !proc->caps_exact &&
	    (caps_drop_bounding(proc->caps.bounding, e) < 0 ||
	     caps_set(proc->caps.permitted, e) < 0))
		return -1;
	if (p->landlock != 0 && landlock_scope(p->landlock, &scoped, e) < 0)
		return -1;
	if (m->seccomp != JAIL_SECCOMP_NONE && !filter_first && install_filter(p, e) < 0)
		return -1;
	return policy_verify(p, e);
}

int policy_verify(const struct policy *p, struct cell_err *e)
{
	const struct jail_mechanisms *m = p->mech;
	const struct jail_process *proc = p->proc;

	/* Read back from the kernel: what inspect says is enforced is what
	 * the process has, not what was asked. */
	if (proc->no_new_privs && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return cell_err_set(e, EPERM, "policy: no_new_privs is not set");
	if (m->seccomp != JAIL_SECCOMP_NONE && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		return cell_err_set(e, EPERM, "policy: the seccomp filter is not installed");
	if (proc->has_caps && !(proc->caps.bounding & CAP(SYS_ADMIN)) &&
	    prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0)
		return cell_err_set(e, EPERM, "policy: CAP_SYS_ADMIN is still in the bounding set");
	return 0;
}

int policy_apply_caps(const struct policy *p, struct cell_err *e)
{
	const struct jail_process *proc = p->proc;

	if (!proc->has_caps)
		return 0;
	if (proc->caps_exact)
		return caps_set_exact(proc->caps.effective, proc->caps.permitted,
				      proc->caps.inheritable, proc->caps.ambient, e);
	return caps_set(proc->caps.permitted, e);
}
