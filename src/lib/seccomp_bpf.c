/*
 * seccomp_bpf.c - the system calls a jail may not make.
 *
 * A deny list, default allow: each entry answers one rule of the policy
 * (policy.c says which).  Most of them also need a capability the jail no
 * longer has; the filter is the second fence, and the only one for the
 * calls that CAP_SYS_ADMIN covers when `--allow set_hostname` keeps it.
 * Calls of another architecture (i386, x32 on x86_64) kill the process:
 * libseccomp's default for a foreign arch, which closes that bypass.
 *
 * libseccomp compiles the filter in cell; the jail's first process only
 * installs the BPF program with one prctl().
 */
#include "seccomp_bpf.h"

#include <errno.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cleanup.h"

#ifndef FS_IOC_SHUTDOWN
#define FS_IOC_SHUTDOWN _IOR('X', 125, __u32) /* EXT4_IOC_SHUTDOWN, XFS's too */
#endif

const char *const seccomp_denied[] = {
	/* no mount, umount, pivot_root, new mount API */
	"mount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount",
	"open_tree", "mount_setattr",
	/* no swap, reboot, kexec */
	"swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load",
	/* no module loading */
	"init_module", "finit_module", "delete_module",
	/* no raw I/O */
	"iopl", "ioperm",
	/* no new namespaces, no joining others */
	"unshare", "setns",
	/* kernel-global facilities with no namespace of their own */
	"bpf", "perf_event_open", "keyctl", "add_key", "request_key", "acct", "quotactl",
	"lookup_dcookie", "open_by_handle_at", "nfsservctl", "syslog", "settimeofday",
	"clock_settime", "clock_adjtime", "adjtimex", "vhangup", "userfaultfd",
	/* with CAP_SYS_ADMIN: a mark on the host's whole filesystem, whose
	 * permission events can hold every open on the host */
	"fanotify_init", NULL};

static const char *const hostname_calls[] = {"sethostname", "setdomainname", NULL};

/* A call denied (EPERM) when (argument ARG & MASK) == VALUE. */
struct arg_denial {
	const char *name;
	unsigned int arg;
	scmp_datum_t mask, value;
};

static const struct arg_denial arg_denials[] = {
	/* unshare(2) is only half of "no new namespaces": clone(CLONE_NEWUSER)
	 * needs no capability, and its child holds every capability in the
	 * new user namespace.  (The flags are clone's first argument on
	 * x86_64 and arm64.  CLONE_NEWTIME is clone3's and unshare's only:
	 * in clone(2) its bit belongs to the exit signal.) */
	{"clone", 0, CLONE_NEWNS, CLONE_NEWNS},
	{"clone", 0, CLONE_NEWCGROUP, CLONE_NEWCGROUP},
	{"clone", 0, CLONE_NEWUTS, CLONE_NEWUTS},
	{"clone", 0, CLONE_NEWIPC, CLONE_NEWIPC},
	{"clone", 0, CLONE_NEWUSER, CLONE_NEWUSER},
	{"clone", 0, CLONE_NEWPID, CLONE_NEWPID},
	{"clone", 0, CLONE_NEWNET, CLONE_NEWNET},
	/* What CAP_SYS_ADMIN, kept by --allow set_hostname, opens on the
	 * host's filesystem that the embedded root lies on, even through a
	 * read-only mount: freeze or shut it down, discard its free blocks;
	 * and on the kernel: take the console's output (TIOCCONS).  An ioctl
	 * number is an unsigned int: only its low 32 bits are compared. */
	{"ioctl", 1, 0xffffffffU, FIFREEZE},
	{"ioctl", 1, 0xffffffffU, FITHAW},
	{"ioctl", 1, 0xffffffffU, FITRIM},
	{"ioctl", 1, 0xffffffffU, FS_IOC_SHUTDOWN},
	{"ioctl", 1, 0xffffffffU, TIOCCONS},
	/* Typing into a terminal (TIOCSTI; TIOCLINUX's paste does the
	 * same on a virtual console): a jail that shares cell's terminal
	 * could type commands into the host's shell once cell exits.  The
	 * jail is also in its own session (launch.c), so the kernel refuses
	 * TIOCSTI there anyway; this holds even for CAP_SYS_ADMIN. */
	{"ioctl", 1, 0xffffffffU, TIOCSTI},
	{"ioctl", 1, 0xffffffffU, TIOCLINUX},
	/* The realtime I/O class (CAP_SYS_ADMIN or CAP_SYS_NICE). */
	{"ioprio_set", 2, IOPRIO_CLASS_MASK << IOPRIO_CLASS_SHIFT,
	 IOPRIO_CLASS_RT << IOPRIO_CLASS_SHIFT},
};

static int add_denials(scmp_filter_ctx ctx, const char *const *names, struct cell_err *e)
{
	for (; *names != NULL; names++) {
		int nr = seccomp_syscall_resolve_name(*names);

		if (nr == __NR_SCMP_ERROR)
			continue; /* unknown to this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) < 0)
			return cell_err_set(e, 0, "seccomp: deny %s", *names);
	}
	return 0;
}

static int add_arg_denials(scmp_filter_ctx ctx, struct cell_err *e)
{
	for (size_t i = 0; i < sizeof(arg_denials) / sizeof(arg_denials[0]); i++) {
		const struct arg_denial *d = &arg_denials[i];
		struct scmp_arg_cmp cmp = {d->arg, SCMP_CMP_MASKED_EQ, d->mask, d->value};
		int nr = seccomp_syscall_resolve_name(d->name);

		if (nr == __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, &cmp) < 0)
			return cell_err_set(
				e, 0, "seccomp: deny %s with argument %u & %#llx == %#llx", d->name,
				d->arg, (unsigned long long)d->mask, (unsigned long long)d->value);
	}
	/* clone3(2) takes its flags in memory, where a filter cannot look:
	 * ENOSYS, not EPERM, makes glibc (pthread_create, posix_spawn) fall
	 * back to clone(2). */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0)
		return cell_err_set(e, 0, "seccomp: deny clone3");
	return 0;
}

int seccomp_build(bool allow_hostname, struct seccomp_prog *p, struct cell_err *e)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	cleanup_close int fd = -1;
	off_t size;
	int r;

	p->insns = NULL;
	p->len = 0;
	if (ctx == NULL)
		return cell_err_set(e, ENOMEM, "seccomp: init");
	if (add_denials(ctx, seccomp_denied, e) < 0 || add_arg_denials(ctx, e) < 0 ||
	    (!allow_hostname && add_denials(ctx, hostname_calls, e) < 0))
		goto fail;
	/* libseccomp 2.5 exports BPF to a descriptor only: use a memfd. */
	fd = memfd_create("cell-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		cell_err_set(e, errno, "seccomp: memfd");
		goto fail;
	}
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0) {
		cell_err_set(e, -r, "seccomp: compile the filter");
		goto fail;
	}
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
		cell_err_set(e, EINVAL, "seccomp: compiled filter of %lld bytes", (long long)size);
		goto fail;
	}
	p->insns = malloc((size_t)size);
	if (p->insns == NULL || pread(fd, p->insns, (size_t)size, 0) != (ssize_t)size) {
		cell_err_set(e, p->insns == NULL ? ENOMEM : errno, "seccomp: read the filter");
		goto fail;
	}
	p->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	seccomp_release(ctx);
	return 0;
fail:
	seccomp_release(ctx);
	seccomp_prog_free(p);
	return -1;
}

int seccomp_install(const struct seccomp_prog *p, struct cell_err *e)
{
	struct sock_fprog prog = {.len = p->len, .filter = p->insns};

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return cell_err_set(e, errno, "seccomp: install the filter");
	return 0;
}

void seccomp_prog_free(struct seccomp_prog *p)
{
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
}
