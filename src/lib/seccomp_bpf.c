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
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cleanup.h"

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
	NULL};

static const char *const hostname_calls[] = {"sethostname", "setdomainname", NULL};

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
	if (add_denials(ctx, seccomp_denied, e) < 0 ||
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
