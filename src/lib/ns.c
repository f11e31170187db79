/*
 * ns.c - creating a jail's namespaces.
 *
 * A jail always gets new mount, UTS, IPC, pid and cgroup namespaces; a
 * new network namespace unless it shares the host's (--net host).  All of
 * them are made by the one clone3() that creates the jail's first
 * process, so there is never a moment where that process lives in some
 * of the jail's namespaces and not others.
 */
#include "ns.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rawcall.h"
#include "rootless.h"
#include "testpoint.h"

unsigned long long ns_clone_flags(const struct jail_spec *s)
{
	return s->mech.ns_new;
}

pid_t ns_clone(unsigned long long flags, int cgroup_fd, int *pidfd)
{
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.flags = flags | CLONE_PIDFD;
	if (cgroup_fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)cgroup_fd;
	}
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	/* With CLONE_PARENT the kernel takes the caller's own exit signal
	 * (SIGCHLD) and refuses another. */
	args.exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD;
	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

#if defined(__x86_64__)
pid_t ns_clone_vm(unsigned long long flags, int cgroup_fd, int *pidfd, void *stack, size_t size,
		  int (*fn)(void *), void *arg)
{
	struct clone_args args;
	register long to __asm__("r12") = (long)fn;
	register long with __asm__("r13") = (long)arg;
	long ret;

	memset(&args, 0, sizeof(args));
	args.flags = flags | CLONE_VM | CLONE_PIDFD;
	if (cgroup_fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)cgroup_fd;
	}
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	args.exit_signal = SIGCHLD;
	args.stack = (uint64_t)(uintptr_t)stack;
	args.stack_size = size;
	/* The child comes back from the call on its own stack, with the
	 * registers the parent had: it calls FN(ARG) from r12 and r13 (kept
	 * across a system call) and never returns here; exit(2) with FN's
	 * value if FN returns. */
	__asm__ volatile("syscall\n\t"
			 "testq %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xorl %%ebp, %%ebp\n\t"
			 "movq %%r13, %%rdi\n\t"
			 "callq *%%r12\n\t"
			 "movl %%eax, %%edi\n\t"
			 "movl %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "a"((long)SYS_clone3), "D"(&args), "S"(sizeof(args)), "r"(to),
			   "r"(with), [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (pid_t)ret;
}
#else
pid_t ns_clone_vm(unsigned long long flags, int cgroup_fd, int *pidfd, void *stack, size_t size,
		  int (*fn)(void *), void *arg)
{
	errno = ENOSYS;
	return -1;
}
#endif

void ns_own_init(struct ns_own *o)
{
	o->helper = -1;
	o->helper_pidfd = -1;
	o->ready = -1;
	o->joined = -1;
	o->pending = false;
	o->killed = false;
	o->flags = 0;
	o->user = o->uts = o->net = -1;
	o->ids = (struct idrange){0, 0, 0};
	o->uid_map = o->gid_map = NULL;
	o->nuid_map = o->ngid_map = 0;
}

/* The effective capabilities back from the permitted set. */
static int raise_effective(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[0].effective = d[0].permitted;
	d[1].effective = d[1].permitted;
	return (int)syscall(SYS_capset, &h, d);
}

/*
 * The owner-to-be: cell's effective ids the range's first while it makes
 * the helper, so that the user namespace is owned by that uid and the
 * kernel charges the jail's per-user counts (inotify instances, user
 * namespaces...) to it at the host's level, never to root's (a
 * namespace's counts climb to its owner in the parent).  Its
 * capabilities stay: the real and saved uids are still 0, so the
 * effective set, cleared by the change, is raised again (where
 * unprivileged user namespaces are off, making one needs CAP_SYS_ADMIN),
 * and euid 0 brings it back.
 */
static int as_owner(uid_t uid, gid_t gid)
{
	if (uid == 0 && gid == 0)
		return 0;
	if (setresgid((gid_t)-1, gid, (gid_t)-1) < 0 || setresuid((uid_t)-1, uid, (uid_t)-1) < 0)
		return -1;
	return raise_effective();
}

static int back_to_root(uid_t uid, gid_t gid)
{
	if (uid == 0 && gid == 0)
		return 0;
	if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0 || setresgid((gid_t)-1, 0, (gid_t)-1) < 0)
		return -1;
	return 0;
}

/* The helper's stack: it runs in cell's memory, one helper at a time. */
static char helper_stack[16384] __attribute__((aligned(64)));
static pid_t helper_parent;
/* What the helper makes itself (CLONE_NEWUTS, CLONE_NEWNET) and the
 * eventfd it then signals.  How that went is the value it adds there
 * (helper_value()): the jail's first process reads it too, and a forked
 * one does not see cell's memory. */
static int helper_makes;
static int helper_ready = -1;
static int helper_joined = -1;
static bool helper_refused; /* test builds: as with user.max_net_namespaces = 0 */

/* The helper's word on the eventfd: 1 when its namespaces are made, else
 * 2 + the errno doubled, plus 1 if what failed was bringing up lo. */
static uint64_t helper_value(long r, bool lo)
{
	return r == 0 ? 1 : 2 + ((uint64_t)-r << 1) + (lo ? 1 : 0);
}

/* The loopback interface up, in raw calls (the helper's too): 0 or
 * -errno. */
static long loopback_up(void)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	long fd = raw_call(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0), r;

	if (fd < 0)
		return fd;
	r = raw_call(SYS_ioctl, fd, SIOCGIFFLAGS, (long)&ifr, 0);
	if (r == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		r = raw_call(SYS_ioctl, fd, SIOCSIFFLAGS, (long)&ifr, 0);
	}
	raw_call(SYS_close, fd, 0, 0, 0);
	return r;
}

int ns_loopback_up(struct cell_err *e)
{
	long r = loopback_up();

	return r < 0 ? cell_err_set(e, (int)-r, "bring up lo") : 0;
}

/*
 * The helper: born in the jail's new user namespace, it makes the UTS
 * and network namespaces that namespace owns (unshare(): in its own
 * time, on the other CPU, while cell goes on and clones the jail's first
 * process; making a network namespace is the slowest step of a start),
 * brings the network's lo up, and says so on the eventfd.  Then it holds
 * them until the jail's first process says it has joined them (the
 * second eventfd: it then ends by itself, long before cell reaps it), or
 * until cell kills it (cell opened them before the clone, or the launch
 * failed).  It shares cell's memory and descriptors (CLONE_VM,
 * CLONE_FILES: no page tables copied, no copy of the jail's locks,
 * nothing to tear down when it ends), so it makes raw system calls only
 * and writes no memory but its stack.
 */
static int own_helper(void *arg)
{
	uint64_t word;
	long r = 0;

	/* Dies with cell; a cell that died before the prctl is no parent. */
	if (raw_call(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0) != 0 ||
	    raw_call(SYS_getppid, 0, 0, 0, 0) != helper_parent)
		return 1;
	if (helper_makes != 0) {
		bool lo = false;

		r = helper_refused ? -ENOSPC : raw_call(SYS_unshare, helper_makes, 0, 0, 0);
		/* Its loopback up too, meanwhile: the jail's first process
		 * finds it so (ns.h). */
		if (r == 0 && (helper_makes & CLONE_NEWNET) && (r = loopback_up()) < 0)
			lo = true;
		word = helper_value(r, lo);
		raw_call(SYS_write, helper_ready, (long)&word, sizeof(word), 0);
		if (r == 0) {
			while (raw_call(SYS_read, helper_joined, (long)&word, sizeof(word), 0) ==
			       -EINTR)
				;
			return 0;
		}
	}
	for (;;)
		raw_call(SYS_pause, 0, 0, 0, 0);
	return 0;
}

int ns_own_start(struct ns_own *o, unsigned long flags, const struct idrange *r, struct cell_err *e)
{
	uid_t uid = 0;
	gid_t gid = 0;
	int err = 0;

	o->flags = (int)(flags | CLONE_NEWUSER);
	if (r != NULL && r->count != 0) {
		o->ids = *r;
		uid = r->uid;
		gid = r->gid;
	}
	if (testpoint_fail("userns:unshare")) /* as with user.max_user_namespaces = 0 */
		return cell_err_set(e, ENOSPC, "unshare a user namespace");
	helper_makes = (int)(flags & (CLONE_NEWUTS | CLONE_NEWNET));
	helper_refused = helper_makes != 0 && testpoint_fail("userns:netns");
	if (helper_makes != 0 &&
	    ((o->ready = eventfd(0, EFD_CLOEXEC)) < 0 || (o->joined = eventfd(0, EFD_CLOEXEC)) < 0))
		return cell_err_set(e, errno, "user namespace: eventfd");
	helper_ready = o->ready;
	helper_joined = o->joined;
	helper_parent = getpid();
	if (as_owner(uid, gid) < 0) {
		err = errno;
		back_to_root(uid, gid);
		return cell_err_set(e, err, "user namespace: act as its owner (uid %u)",
				    (unsigned int)uid);
	}
	o->helper = clone(own_helper, helper_stack + sizeof(helper_stack),
			  CLONE_VM | CLONE_FILES | CLONE_NEWUSER | CLONE_PIDFD | SIGCHLD, NULL,
			  &o->helper_pidfd);
	if (o->helper < 0)
		err = errno;
	/* Root again, or nothing may go on as it should. */
	if (back_to_root(uid, gid) < 0)
		return cell_err_set(e, errno, "user namespace: become root again");
	if (err != 0)
		return cell_err_set(e, err, "unshare a user namespace");
	return 0;
}

/* Writes one map of the helper's user namespace: the jail's ids 0.. to
 * the range, or every id to itself. */
static int write_map(pid_t pid, const char *map, unsigned int first, unsigned int count,
		     struct cell_err *e)
{
	char path[64], line[64];
	int fd, len, ret = 0;

	if (count == 0)
		len = snprintf(line, sizeof(line), "0 0 4294967295\n");
	else
		len = snprintf(line, sizeof(line), "0 %u %u\n", first, count);
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, map);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cell_err_set(e, errno, "user namespace: open %s", path);
	if (write(fd, line, (size_t)len) != (ssize_t)len)
		ret = cell_err_set(e, errno, "user namespace: write %s", path);
	close(fd);
	return ret;
}

/* The helper killed (it is our child, not yet reaped: its pid is its). */
static void let_go(struct ns_own *o)
{
	if (o->helper > 0 && !o->killed) {
		kill(o->helper, SIGKILL);
		o->killed = true;
	}
}

static int open_ns(pid_t pid, const char *ns, struct cell_err *e)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		cell_err_set(e, errno, "user namespace: open %s", path);
	return fd;
}

/* Writes a map given line by line, in one write(2) as the kernel wants. */
static int write_given_map(pid_t pid, const char *map, const struct jail_idmap *m, size_t n,
			   struct cell_err *e)
{
	char path[64], text[34 * 340];
	size_t len = 0;
	int fd, ret = 0;

	if (n == 0 || n > 340)
		return cell_err_set(e, EINVAL, "user namespace: %s: %zu lines (1 to 340)", map, n);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%u %u %u\n", m[i].inside,
					m[i].outside, m[i].count);
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, map);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cell_err_set(e, errno, "user namespace: open %s", path);
	if (write(fd, text, len) != (ssize_t)len)
		ret = cell_err_set(e, errno, "user namespace: write %s", map);
	close(fd);
	return ret;
}

/* What the helper makes, in words. */
static const char *made(const struct ns_own *o)
{
	int f = o->flags & (CLONE_NEWUTS | CLONE_NEWNET);

	return f == (CLONE_NEWUTS | CLONE_NEWNET) ? "UTS and network namespaces"
	       : f == CLONE_NEWNET		  ? "network namespace"
						  : "UTS namespace";
}

/* Waits for the helper's word (a helper that ended without saying it
 * is an error, never a wait without end): 0 when its namespaces are
 * made, else the error. */
static int helper_word(const struct ns_own *o, struct cell_err *e)
{
	struct pollfd p[2] = {{.fd = o->ready, .events = POLLIN},
			      {.fd = o->helper_pidfd, .events = POLLIN}};
	uint64_t v;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return cell_err_set(e, errno, "user namespace: wait for its namespaces");
		}
		if (p[0].revents & POLLIN)
			break;
		if (p[1].revents)
			return cell_err_set(e, ESRCH, "user namespace: its helper ended");
	}
	if (read(o->ready, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return cell_err_set(e, errno, "user namespace: wait for its namespaces");
	if (v == 1)
		return 0;
	if (v < 2 || v > 2 + ((uint64_t)INT_MAX << 1) + 1)
		return cell_err_set(e, EPROTO, "user namespace: its helper's word");
	if ((v - 2) & 1)
		return cell_err_set(e, (int)((v - 2) >> 1), "bring up lo");
	return cell_err_set(e, (int)((v - 2) >> 1), "make its %s", made(o));
}

/* cell, when it needs them before the clone: waits for the helper's
 * namespaces, opens them, lets the helper go. */
static int own_wait(struct ns_own *o, struct cell_err *e)
{
	if (helper_word(o, e) < 0)
		return -1;
	if (((o->flags & CLONE_NEWUTS) && (o->uts = open_ns(o->helper, "uts", e)) < 0) ||
	    ((o->flags & CLONE_NEWNET) && (o->net = open_ns(o->helper, "net", e)) < 0))
		return -1;
	o->pending = false;
	/* The descriptors hold the namespaces now.  Reaped after the
	 * clone (ns_own_reap()), by when it has surely ended. */
	let_go(o);
	return 0;
}

int ns_own_finish(struct ns_own *o, bool now, struct cell_err *e)
{
	const struct idrange *r = &o->ids;

	if (o->nuid_map != 0 || o->ngid_map != 0) {
		if (write_given_map(o->helper, "uid_map", o->uid_map, o->nuid_map, e) < 0 ||
		    write_given_map(o->helper, "gid_map", o->gid_map, o->ngid_map, e) < 0)
			return -1;
	} else if (write_map(o->helper, "uid_map", (unsigned int)r->uid, r->count, e) < 0 ||
		   write_map(o->helper, "gid_map", (unsigned int)r->gid, r->count, e) < 0) {
		return -1;
	}
	if ((o->user = open_ns(o->helper, "user", e)) < 0)
		return -1;
	if (!(o->flags & (CLONE_NEWUTS | CLONE_NEWNET))) {
		let_go(o);
		return 0;
	}
	o->pending = true;
	return now ? own_wait(o, e) : 0;
}

int ns_own_join_helper(struct ns_own *o, struct cell_err *e)
{
	const uint64_t one = 1;

	if (helper_word(o, e) < 0)
		return -1;
	/* Joined through its pidfd: no /proc, one call for both. */
	if (setns(o->helper_pidfd, o->flags & (CLONE_NEWUTS | CLONE_NEWNET)) < 0)
		return cell_err_set(e, errno, "join the jail's %s", made(o));
	o->pending = false;
	/* Joined: the helper may end, now, while the jail builds, so that
	 * cell finds it ended when it reaps it (after the exec).  (A
	 * pidfd_send_signal() from here would be refused: the helper is in
	 * an ancestor of this process's pid namespace.) */
	if (write(o->joined, &one, sizeof(one)) != (ssize_t)sizeof(one))
		return cell_err_set(e, errno, "user namespace: let its helper go");
	return 0;
}

void ns_own_reap(struct ns_own *o)
{
	let_go(o);
	if (o->helper <= 0)
		return;
	while (waitpid(o->helper, NULL, 0) < 0 && errno == EINTR)
		;
	o->helper = -1;
}

static void close_namespaces(const struct ns_own *o)
{
	const int fds[] = {o->user, o->uts, o->net};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The helper's eventfds and pidfd, closed. */
static void close_helper_fds(struct ns_own *o)
{
	if (o->ready >= 0)
		close(o->ready);
	if (o->joined >= 0)
		close(o->joined);
	if (o->helper_pidfd >= 0)
		close(o->helper_pidfd);
	o->ready = o->joined = o->helper_pidfd = -1;
}

void ns_own_close_namespaces(struct ns_own *o)
{
	close_namespaces(o);
	o->user = o->uts = o->net = -1;
}

void ns_own_close(struct ns_own *o)
{
	let_go(o);
	ns_own_close_namespaces(o);
	close_helper_fds(o);
}

int ns_own_join_uts_net(struct ns_own *o, struct cell_err *e)
{
	/* cell's copies of the helper's descriptors: not the jail's. */
	close_helper_fds(o);
	if (o->uts >= 0 && setns(o->uts, CLONE_NEWUTS) < 0)
		return cell_err_set(e, errno, "join the jail's UTS namespace");
	if (o->net >= 0 && setns(o->net, CLONE_NEWNET) < 0)
		return cell_err_set(e, errno, "join the jail's network namespace");
	return 0;
}

int ns_fs_ids(uid_t uid, gid_t gid, struct cell_err *e)
{
	/* setfsuid() says only the old value: asked again to check. */
	setfsgid(gid);
	setfsuid(uid);
	if ((uid_t)setfsuid((uid_t)-1) != uid || (gid_t)setfsgid((gid_t)-1) != gid)
		return cell_err_set(e, EPERM, "act as the jail's root on files (fsuid %u)",
				    (unsigned int)uid);
	/* Off fsuid 0 the kernel clears the file capabilities (DAC
	 * override, mknod...) from the effective set; the host's root needs
	 * them still, to build the jail's root. */
	if (raise_effective() < 0)
		return cell_err_set(e, errno, "act as the jail's root on files: capabilities");
	return 0;
}

int ns_become_root(struct cell_err *e)
{
	/* Joined, the process still has the host's ids, which the jail's
	 * namespace may not map (a range maps no host root): root of the
	 * namespace now, the host ids of the range's first.  Groups first:
	 * the host's supplementary groups must not come along, but where a
	 * rootless jail's single mapping denies setgroups (rootless.h): the
	 * user's own host groups, which map to nothing there. */
	if (rootless_setgroups(0, NULL) < 0)
		return cell_err_set(e, errno, "user namespace: drop supplementary groups");
	if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
		return cell_err_set(e, errno, "user namespace: become its root");
	return 0;
}

int ns_own_join_user(const struct ns_own *o, struct cell_err *e)
{
	if (setns(o->user, CLONE_NEWUSER) < 0)
		return cell_err_set(e, errno, "join the jail's user namespace");
	close_namespaces(o);
	return ns_become_root(e);
}
