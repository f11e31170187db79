/*
 * policy.c - the default jail policy: each rule of the fs-only bsdjail
 * seed, one line, mapped to the kernel mechanisms that enforce it today.
 *
 * The table is what `cell inspect` prints; the code below it derives the
 * capability set and the seccomp filter from the spec.  The namespaces
 * (ns.c), the read-only and masked mounts (rootfs.c) and the rlimits
 * (rlimit.c) are applied by their own modules.
 */
#include "policy.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>

#include "caps.h"
#include "landlock.h"
#include "rlimit.h"

const struct policy_rule policy_rules[] = {
	{"mount", "mount", 0,
	 "seccomp (mount, umount2, pivot_root, fsopen, fsmount, move_mount, open_tree, mount_setattr..., FIFREEZE, FS_IOC_SHUTDOWN); CAP_SYS_ADMIN dropped, or with set_hostname held only in the jail's own user namespace",
	 NULL},
	{"reboot", "swap, reboot, kexec", 0,
	 "seccomp (swapon, swapoff, reboot, kexec_load, kexec_file_load); CAP_SYS_BOOT dropped",
	 NULL},
	{"signal", "signal outside the jail", 0, "pid namespace; Landlock signal scope", NULL},
	{"ptrace", "ptrace outside the jail", 0, "pid namespace; CAP_SYS_PTRACE dropped", NULL},
	{"mknod", "mknod but fifos, or devices outside the standard set", 0,
	 "CAP_MKNOD dropped; root mounted nodev; /dev holds only null zero full random urandom tty; with --rootfs or --bind a devices cgroup allowing only those, ptmx and ptys",
	 NULL},
	{"priority", "raise priority or scheduling class", 0,
	 "CAP_SYS_NICE dropped; RLIMIT_NICE at the start value; RLIMIT_RTPRIO 0; seccomp (realtime I/O class)",
	 NULL},
	{"rlimit", "raise an rlimit", 0, "CAP_SYS_RESOURCE dropped", NULL},
	{"modules", "load kernel modules", 0,
	 "seccomp (init_module, finit_module, delete_module); CAP_SYS_MODULE dropped", NULL},
	{"raw_io", "raw I/O", 0, "seccomp (iopl, ioperm); CAP_SYS_RAWIO dropped; no /dev/mem",
	 NULL},
	{"net_admin", "network administration", 0, "CAP_NET_ADMIN dropped", NULL},
	{"raw_sockets", "raw sockets", JAIL_ALLOW_RAW_SOCKETS, "CAP_NET_RAW dropped", NULL},
	{"sysctl", "sysctl writes", 0,
	 "/proc/sys, /proc/sysrq-trigger read-only; /proc/kcore, /proc/keys... masked; /sys read-only",
	 NULL},
	{"processes", "see other processes", 0, "pid namespace; /proc of the jail's own", NULL},
	{"sysvipc", "SysV IPC of others", JAIL_ALLOW_SYSVIPC, "IPC namespace", NULL},
	{"abstract_sockets", "abstract unix sockets of others", 0,
	 "network namespace; Landlock abstract-unix-socket scope", NULL},
	{"host_secrets", "host secrets", 0,
	 "masked in the embedded root (/etc/shadow, /root, /home, /var/lib, ssh host keys...)",
	 NULL},
	{"set_hostname", "set hostname", JAIL_ALLOW_SET_HOSTNAME,
	 "seccomp (sethostname, setdomainname); CAP_SYS_ADMIN dropped",
	 "CAP_SYS_ADMIN in a user namespace of the jail's own, which owns only its UTS and network namespaces"},
	{"chown", "chown", JAIL_ALLOW_CHOWN, "CAP_CHOWN dropped", NULL},
	{"mlock", "lock memory", JAIL_ALLOW_MLOCK, "CAP_IPC_LOCK dropped; RLIMIT_MEMLOCK", NULL},
	{"privileges", "gain privileges on exec", 0, "no_new_privs; embedded root mounted nosuid",
	 NULL},
	{"namespaces", "new namespaces, kernel keyrings, bpf, perf", 0,
	 "seccomp (unshare, setns, clone with namespace flags, clone3, keyctl, bpf, perf_event_open, fanotify...)",
	 NULL},
};
const size_t policy_nrules = sizeof(policy_rules) / sizeof(policy_rules[0]);

uint64_t policy_default_caps(void)
{
	/* What a jail's root needs to act as root on its own files and
	 * processes, and nothing that reaches the kernel or the host. */
	return CAPS_BIT(CAP_DAC_OVERRIDE) | CAPS_BIT(CAP_FOWNER) | CAPS_BIT(CAP_FSETID) |
	       CAPS_BIT(CAP_KILL) | CAPS_BIT(CAP_SETGID) | CAPS_BIT(CAP_SETUID) |
	       CAPS_BIT(CAP_SETPCAP) | CAPS_BIT(CAP_NET_BIND_SERVICE) | CAPS_BIT(CAP_SYS_CHROOT) |
	       CAPS_BIT(CAP_AUDIT_WRITE) | CAPS_BIT(CAP_SETFCAP);
}

void policy_build(const struct jail_spec *s, struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->on = s->policy;
	if (!p->on)
		return;
	p->caps = policy_default_caps();
	/* sethostname(2) needs CAP_SYS_ADMIN over the UTS namespace's
	 * owner: the jail holds it in a user namespace of its own
	 * (ns.h, struct ns_own), and the filter keeps mount and the rest
	 * forbidden there too. */
	if (s->allow & JAIL_ALLOW_SET_HOSTNAME)
		p->caps |= CAPS_BIT(CAP_SYS_ADMIN);
	if (s->allow & JAIL_ALLOW_RAW_SOCKETS)
		p->caps |= CAPS_BIT(CAP_NET_RAW);
	if (s->allow & JAIL_ALLOW_CHOWN)
		p->caps |= CAPS_BIT(CAP_CHOWN);
	if (s->allow & JAIL_ALLOW_MLOCK)
		p->caps |= CAPS_BIT(CAP_IPC_LOCK);
	p->landlock = LANDLOCK_SCOPE_ABSTRACT | LANDLOCK_SCOPE_SIGNALS;
	seccomp_filter_for(s->allow & JAIL_ALLOW_SET_HOSTNAME, &p->seccomp);
}

void policy_for_exec(const struct jail_spec *s, struct policy *p)
{
	policy_build(s, p);
	p->landlock = s->net == JAIL_NET_HOST ? LANDLOCK_SCOPE_ABSTRACT : 0;
}

int policy_apply(const struct jail_spec *s, const struct policy *p, struct cell_err *e)
{
	int scoped;

	if (rlimit_apply(s, e) < 0)
		return -1;
	if (!p->on)
		return 0;
	/* A setuid or file-capability binary in the jail gains nothing. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return cell_err_set(e, errno, "set no_new_privs");
	if (caps_drop_bounding(p->caps, e) < 0 || caps_set(p->caps, e) < 0)
		return -1;
	if (landlock_scope(p->landlock, &scoped, e) < 0)
		return -1;
	return seccomp_install(&p->seccomp, e);
}

int policy_apply_caps(const struct policy *p, struct cell_err *e)
{
	return p->on ? caps_set(p->caps, e) : 0;
}
