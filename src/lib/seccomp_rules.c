/*
 * seccomp_rules.c - the system calls a jail may not make, compiled to BPF
 * by libseccomp.
 *
 * A deny list, default allow: each entry answers one rule of the policy
 * (policy.c says which).  Most of them also need a capability the jail no
 * longer has; the filter is the second fence, and the only one for the
 * calls that CAP_SYS_ADMIN covers when `--allow set_hostname` keeps it.
 * Calls of another architecture (i386, x32 on x86_64) kill the process:
 * libseccomp's default for a foreign arch, which closes that bypass.
 *
 * This file is compiled into the build tool seccomp-gen only
 * (src/gen/seccomp_gen.c): the filters are compiled once, at build time,
 * and cell carries the BPF programs (seccomp_bpf.c).  The unit test
 * test_seccomp compiles them again and checks that they are the same.
 */
#include "seccomp_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <linux/personality.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* io_uring (unless --allow io_uring): a second system call interface,
 * each of its operations unseen by this filter, and one of the kernel's
 * largest sources of privilege escalations (Google disabled it on
 * ChromeOS, Android and its servers for that); few programs need it, and
 * all of them fall back to plain system calls on EPERM. */
const char *const seccomp_io_uring_calls[] = {"io_uring_setup", "io_uring_enter",
					      "io_uring_register", NULL};

/*
 * Calls newer than the libseccomp that compiles the filter (2.5.4 knows
 * the kernel's calls up to 6.1, and so do the build machine's headers):
 * by number.  From 424 on, a call has the same number on every
 * architecture but alpha (asm-generic/unistd.h), x86_64's and arm64's
 * alike.  Checked against the 6.18 kernel's syscall tables.
 */
const struct seccomp_new_call seccomp_denied_new[] = {
	/* open_tree() with mount attributes (6.15): a clone of a mount
	 * tree, made read-write or idmapped on the way */
	{"open_tree_attr", 467},
	{NULL, 0},
};

/*
 * personality(2) flags a jail may set: PER_LINUX (0) or PER_LINUX32 (8),
 * with or without ADDR_NO_RANDOMIZE.  That flag only turns off address
 * randomisation for the caller and what it execs, which gdb, rr and
 * `setarch -R` ask for; the kernel drops it on an exec that gains
 * privilege (PER_CLEAR_ON_SETID), and no_new_privs lets no exec gain any.
 * Every other flag is refused, an allow list so that flags to come are
 * too: READ_IMPLIES_EXEC makes every readable mapping executable,
 * MMAP_PAGE_ZERO maps page 0 (what a kernel NULL-pointer dereference
 * needs, which mmap_min_addr otherwise forbids), UNAME26 serves 2.6-era
 * software only (and leaked kernel memory once, CVE-2012-0957), the
 * ADDR_LIMIT and ADDR_COMPAT_LAYOUT flags change the memory layout.
 */
#define PERSONALITY_ALLOWED (PER_LINUX32 | ADDR_NO_RANDOMIZE)

const char *const seccomp_hostname_calls[] = {"sethostname", "setdomainname", NULL};

const struct seccomp_arg_denial seccomp_arg_denials[] = {
	/* unshare(2) is only half of "no new namespaces": clone(CLONE_NEWUSER)
	 * needs no capability, and its child holds every capability in the
	 * new user namespace.  (The flags are clone's first argument on
	 * x86_64 and arm64.  CLONE_NEWTIME is clone3's and unshare's only:
	 * in clone(2) its bit belongs to the exit signal.) */
	{"clone", 0, CLONE_NEWNS, CLONE_NEWNS, 0, 0},
	{"clone", 0, CLONE_NEWCGROUP, CLONE_NEWCGROUP, 0, 0},
	{"clone", 0, CLONE_NEWUTS, CLONE_NEWUTS, 0, 0},
	{"clone", 0, CLONE_NEWIPC, CLONE_NEWIPC, 0, 0},
	{"clone", 0, CLONE_NEWUSER, CLONE_NEWUSER, 0, 0},
	{"clone", 0, CLONE_NEWPID, CLONE_NEWPID, 0, 0},
	{"clone", 0, CLONE_NEWNET, CLONE_NEWNET, 0, 0},
	/* What CAP_SYS_ADMIN, kept by --allow set_hostname, opens on the
	 * host's filesystem that the embedded root lies on, even through a
	 * read-only mount: freeze or shut it down, discard its free blocks;
	 * and on the kernel: take the console's output (TIOCCONS).  An ioctl
	 * number is an unsigned int: only its low 32 bits are compared. */
	{"ioctl", 1, 0xffffffffU, FIFREEZE, 0, 0},
	{"ioctl", 1, 0xffffffffU, FITHAW, 0, 0},
	{"ioctl", 1, 0xffffffffU, FITRIM, 0, 0},
	{"ioctl", 1, 0xffffffffU, FS_IOC_SHUTDOWN, 0, 0},
	{"ioctl", 1, 0xffffffffU, TIOCCONS, 0, 0},
	/* Typing into a terminal (TIOCSTI; TIOCLINUX's paste does the
	 * same on a virtual console): a jail that shares cell's terminal
	 * could type commands into the host's shell once cell exits.  The
	 * jail is also in its own session (launch.c), so the kernel refuses
	 * TIOCSTI there anyway; this holds even for CAP_SYS_ADMIN. */
	{"ioctl", 1, 0xffffffffU, TIOCSTI, 0, 0},
	{"ioctl", 1, 0xffffffffU, TIOCLINUX, 0, 0},
	/* The realtime I/O class (CAP_SYS_ADMIN or CAP_SYS_NICE). */
	{"ioprio_set", 2, IOPRIO_CLASS_MASK << IOPRIO_CLASS_SHIFT,
	 IOPRIO_CLASS_RT << IOPRIO_CLASS_SHIFT, 0, 0},
	/* A socket bound to an address that is not the jail's own: IP_FREEBIND
	 * and IPV6_FREEBIND need no capability, and would let a bridged jail
	 * send from its neighbours' addresses.  (IP_TRANSPARENT needs
	 * CAP_NET_RAW, which only --allow raw_sockets keeps, and raw
	 * sockets forge any address anyway.)  The level and the option are
	 * ints: their low 32 bits. */
	{"setsockopt", 1, 0xffffffffU, SOL_IP, 3, IP_FREEBIND},
	{"setsockopt", 1, 0xffffffffU, SOL_IPV6, 3, IPV6_FREEBIND},
	{NULL, 0, 0, 0, 0, 0},
};

/*
 * No setuid or setgid file, whatever the jail's root may otherwise do to
 * its files (systemd's RestrictSUIDSGID): one planted in a writable bind
 * is run by someone on the host, as its owner; the jail's root owns it as
 * the host's root unless it has a user namespace of its own.  The calls
 * that set a mode: chmod and its kin, and those that make a file with
 * one (open and openat with O_CREAT or O_TMPFILE, creat, mknod).
 * openat2 takes its mode in memory, out of a filter's sight: it gets
 * ENOSYS below, and C libraries fall back to openat.  Directories keep
 * their setgid bit (mkdir): a group to inherit gives no privilege.
 */
const struct seccomp_setid_call seccomp_setid_calls[] = {
	{"chmod", 0, 1, -1},	   {"fchmod", 0, 1, -1},  {"fchmodat", 0, 2, -1},
	{"fchmodat2", 452, 2, -1}, /* 6.6: unknown to libseccomp 2.5.4 */
	{"creat", 0, 1, -1},	   {"open", 0, 2, 1},	  {"openat", 0, 3, 2},
	{"mknod", 0, 1, -1},	   {"mknodat", 0, 2, -1}, {NULL, 0, 0, -1},
};

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

/* The number of call NAME as rules take it (the build machine's, which
 * libseccomp translates for ARCH), or __NR_SCMP_ERROR when ARCH or this
 * machine has no such call. */
static int resolve(uint32_t arch, const char *name)
{
	if (seccomp_syscall_resolve_name_arch(arch, name) == __NR_SCMP_ERROR)
		return __NR_SCMP_ERROR;
	return seccomp_syscall_resolve_name(name);
}

static int add_denials(scmp_filter_ctx ctx, uint32_t arch, const char *const *names)
{
	for (; *names != NULL; names++) {
		int nr = resolve(arch, *names);

		if (nr == __NR_SCMP_ERROR)
			continue; /* unknown to this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) < 0)
			return -1;
	}
	return 0;
}

/* The calls libseccomp has no name for, by their numbers: only in a
 * filter for the build machine, where libseccomp takes a number as it is
 * (for another architecture it would look the number up by name). */
static int add_new_denials(scmp_filter_ctx ctx, uint32_t arch)
{
	if (arch != SCMP_ARCH_NATIVE && arch != seccomp_arch_native())
		return 0;
	for (const struct seccomp_new_call *c = seccomp_denied_new; c->name != NULL; c++) {
		if (seccomp_syscall_resolve_name(c->name) != __NR_SCMP_ERROR)
			continue; /* a newer libseccomp: seccomp_denied[] style */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), c->nr, 0) < 0)
			return -1;
	}
	return 0;
}

static int add_masked_denial(scmp_filter_ctx ctx, int nr, uint32_t mask, uint32_t value)
{
	struct scmp_arg_cmp cmp = {0, SCMP_CMP_MASKED_EQ, mask, value};

	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, &cmp);
}

/*
 * personality(PERSONA) is refused unless PERSONA is 0xffffffff (a query:
 * it changes nothing) or holds no flag but PERSONALITY_ALLOWED.  The
 * kernel takes its low 32 bits (an unsigned int), and so do these
 * comparisons.  libseccomp cannot say "none of these values" of one
 * argument, so the refused values are a union of masked comparisons:
 * bit 31 clear and a refused bit set (one rule per bit); or bit 31 set
 * and not every bit (bits 31..k+1 set and bit k clear, one rule per k).
 */
static int add_personality_denials(scmp_filter_ctx ctx, uint32_t arch)
{
	const uint32_t top = 1U << 31;
	int nr = resolve(arch, "personality");

	if (nr == __NR_SCMP_ERROR)
		return 0;
	for (int b = 0; b < 31; b++) {
		uint32_t bit = 1U << b;

		if ((bit & PERSONALITY_ALLOWED) == 0 &&
		    add_masked_denial(ctx, nr, bit | top, bit) < 0)
			return -1;
	}
	for (int k = 0; k < 31; k++) {
		uint32_t high = ~((1U << k) - 1); /* bits 31..k */

		if (add_masked_denial(ctx, nr, high, high & ~(1U << k)) < 0)
			return -1;
	}
	return 0;
}

static int add_setid_denials(scmp_filter_ctx ctx, uint32_t arch)
{
	static const uint64_t bits[] = {S_ISUID, S_ISGID};
	static const uint64_t makes[] = {O_CREAT, __O_TMPFILE};

	for (const struct seccomp_setid_call *c = seccomp_setid_calls; c->name != NULL; c++) {
		int nr = c->nr != 0 ? c->nr : resolve(arch, c->name);

		/* By number only on the build machine's own architecture. */
		if (nr == __NR_SCMP_ERROR ||
		    (c->nr != 0 && arch != SCMP_ARCH_NATIVE && arch != seccomp_arch_native()))
			continue;
		for (size_t b = 0; b < 2; b++) {
			struct scmp_arg_cmp cmp[2] = {
				{c->mode_arg, SCMP_CMP_MASKED_EQ, bits[b], bits[b]}};

			if (c->flags_arg < 0) {
				if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, cmp) <
				    0)
					return -1;
				continue;
			}
			for (size_t m = 0; m < 2; m++) {
				cmp[1] = (struct scmp_arg_cmp){(unsigned int)c->flags_arg,
							       SCMP_CMP_MASKED_EQ, makes[m],
							       makes[m]};
				if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, cmp) <
				    0)
					return -1;
			}
		}
	}
	/* openat2(2): its mode in memory (see seccomp_setid_calls). */
	int nr = resolve(arch, "openat2");
	if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) < 0)
		return -1;
	return 0;
}

static int add_arg_denials(scmp_filter_ctx ctx, uint32_t arch)
{
	int nr;

	for (const struct seccomp_arg_denial *d = seccomp_arg_denials; d->name != NULL; d++) {
		struct scmp_arg_cmp cmp[2] = {
			{d->arg, SCMP_CMP_MASKED_EQ, d->mask, d->value},
			{d->arg2 - 1, SCMP_CMP_MASKED_EQ, 0xffffffffU, d->value2},
		};

		nr = resolve(arch, d->name);
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, d->arg2 != 0 ? 2 : 1,
					   cmp) < 0)
			return -1;
	}
	/* clone3(2) takes its flags in memory, where a filter cannot look:
	 * ENOSYS, not EPERM, makes glibc (pthread_create, posix_spawn) fall
	 * back to clone(2). */
	nr = resolve(arch, "clone3");
	if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) < 0)
		return -1;
	return 0;
}

scmp_filter_ctx seccomp_rules_filter(uint32_t arch, unsigned int relax)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (ctx == NULL)
		return NULL;
	/* A binary tree of the call numbers, not a chain: a call is decided
	 * after a handful of comparisons, not one per rule, both when the
	 * kernel builds its cache of allowed calls (seccomp_cache_prepare(),
	 * which runs the filter for every call number at install) and for
	 * the calls it cannot cache. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0)
		goto fail;
	if (arch != SCMP_ARCH_NATIVE && arch != seccomp_arch_native() &&
	    (seccomp_arch_add(ctx, arch) < 0 || seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE) < 0))
		goto fail;
	if (add_denials(ctx, arch, seccomp_denied) < 0 || add_new_denials(ctx, arch) < 0 ||
	    add_arg_denials(ctx, arch) < 0 || add_personality_denials(ctx, arch) < 0 ||
	    add_setid_denials(ctx, arch) < 0 ||
	    (!(relax & SECCOMP_RELAX_HOSTNAME) &&
	     add_denials(ctx, arch, seccomp_hostname_calls) < 0) ||
	    (!(relax & SECCOMP_RELAX_IO_URING) &&
	     add_denials(ctx, arch, seccomp_io_uring_calls) < 0))
		goto fail;
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

struct sock_filter *seccomp_rules_compile(uint32_t arch, unsigned int relax, size_t *len)
{
	scmp_filter_ctx ctx = seccomp_rules_filter(arch, relax);
	struct sock_filter *insns = NULL;
	int fd = -1;
	off_t size;

	*len = 0;
	if (ctx == NULL)
		return NULL;
	/* libseccomp 2.5 exports BPF to a descriptor only: use a memfd. */
	fd = memfd_create("cell-seccomp", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0)
		goto out;
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		goto out;
	insns = malloc((size_t)size);
	if (insns != NULL && pread(fd, insns, (size_t)size, 0) != (ssize_t)size) {
		free(insns);
		insns = NULL;
	}
	if (insns != NULL)
		*len = (size_t)size / sizeof(struct sock_filter);
out:
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return insns;
}
