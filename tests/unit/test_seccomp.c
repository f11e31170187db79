/*
 * Unit tests of the jail's seccomp filters: the programs cell embeds
 * (seccomp_bpf.c, compiled at build time) are the ones libseccomp makes of
 * the deny list now, and they decide what the policy says for each call.
 * The programs run here on a small classic-BPF interpreter, as the kernel
 * would run them on a call's seccomp_data.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <linux/personality.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "seccomp_bpf.h"
#include "seccomp_rules.h"

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* Runs program P on DATA; fails the test on an instruction the kernel's
 * seccomp would refuse or that libseccomp does not emit. */
static uint32_t run_bpf(const struct seccomp_prog *p, const struct seccomp_data *data)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
	const unsigned char *bytes = (const unsigned char *)data;

	for (size_t pc = 0; pc < p->len; pc++) {
		const struct sock_filter *f = &p->insns[pc];
		uint32_t src = BPF_SRC(f->code) == BPF_X ? x : f->k;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			assert_true(f->k % 4 == 0 && f->k + 4 <= sizeof(*data));
			memcpy(&a, bytes + f->k, 4);
			break;
		case BPF_LD | BPF_IMM:
			a = f->k;
			break;
		case BPF_LDX | BPF_IMM:
			x = f->k;
			break;
		case BPF_LD | BPF_MEM:
			assert_true(f->k < BPF_MEMWORDS);
			a = mem[f->k];
			break;
		case BPF_LDX | BPF_MEM:
			assert_true(f->k < BPF_MEMWORDS);
			x = mem[f->k];
			break;
		case BPF_ST:
			assert_true(f->k < BPF_MEMWORDS);
			mem[f->k] = a;
			break;
		case BPF_STX:
			assert_true(f->k < BPF_MEMWORDS);
			mem[f->k] = x;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
		case BPF_ALU | BPF_AND | BPF_X:
			a &= src;
			break;
		case BPF_ALU | BPF_OR | BPF_K:
		case BPF_ALU | BPF_OR | BPF_X:
			a |= src;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JEQ | BPF_X:
			pc += a == src ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_X:
			pc += a > src ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_X:
			pc += a >= src ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_X:
			pc += (a & src) != 0 ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		case BPF_RET | BPF_A:
			return a;
		default:
			fail_msg("instruction %zu: opcode %#x", pc, f->code);
		}
	}
	fail_msg("the program ran off its end");
	return 0;
}

static uint32_t verdict(unsigned int relax, uint32_t arch, int nr, uint64_t arg0, uint64_t arg1,
			uint64_t arg2)
{
	struct seccomp_prog p;
	struct seccomp_data d = {.nr = nr, .arch = arch, .args = {arg0, arg1, arg2}};

	seccomp_filter_for(relax, &p);
	return run_bpf(&p, &d);
}

static uint32_t call(unsigned int relax, const char *name, uint64_t arg0, uint64_t arg1,
		     uint64_t arg2)
{
	int nr = seccomp_syscall_resolve_name(name);

	assert_int_not_equal(nr, __NR_SCMP_ERROR);
	return verdict(relax, NATIVE_AUDIT_ARCH, nr, arg0, arg1, arg2);
}

#define DENIED (SECCOMP_RET_ERRNO | EPERM)

static void embedded_filters_are_the_rules_compiled_now(void **state)
{
	for (unsigned int allow = 0; allow <= SECCOMP_RELAX_ALL; allow++) {
		struct seccomp_prog p;
		size_t len;
		struct sock_filter *now = seccomp_rules_compile(SCMP_ARCH_NATIVE, allow, &len);

		assert_non_null(now);
		seccomp_filter_for(allow, &p);
		assert_int_equal(p.len, len);
		assert_memory_equal(p.insns, now, len * sizeof(*now));
		free(now);
	}
}

static void every_listed_call_fails_with_eperm(void **state)
{
	for (const char *const *n = seccomp_denied; *n != NULL; n++) {
		if (seccomp_syscall_resolve_name(*n) == __NR_SCMP_ERROR)
			continue; /* not a call of this architecture */
		for (int allow = 0; allow <= 1; allow++)
			if (call(allow, *n, 0, 0, 0) != DENIED)
				fail_msg("%s is not denied", *n);
	}
}

static void ordinary_calls_are_allowed(void **state)
{
	static const char *const ok[] = {"read",   "write",   "openat", "close",  "getpid",
					 "execve", "mmap",    "wait4",	"kill",	  "uname",
					 "chdir",  "mknodat", "prctl",	"socket", NULL};

	for (const char *const *n = ok; *n != NULL; n++)
		if (call(false, *n, 0, 0, 0) != SECCOMP_RET_ALLOW)
			fail_msg("%s is not allowed", *n);
}

static void io_uring_calls_only_with_allow_io_uring(void **state)
{
	static const char *const calls[] = {"io_uring_setup", "io_uring_enter",
					    "io_uring_register"};

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		assert_int_equal(call(0, calls[i], 0, 0, 0), DENIED);
		assert_int_equal(call(SECCOMP_RELAX_HOSTNAME, calls[i], 0, 0, 0), DENIED);
		assert_int_equal(call(SECCOMP_RELAX_IO_URING, calls[i], 0, 0, 0),
				 SECCOMP_RET_ALLOW);
		assert_int_equal(call(SECCOMP_RELAX_ALL, calls[i], 0, 0, 0), SECCOMP_RET_ALLOW);
	}
	/* The rest of the list holds either way. */
	assert_int_equal(call(SECCOMP_RELAX_IO_URING, "mount", 0, 0, 0), DENIED);
	assert_int_equal(call(SECCOMP_RELAX_IO_URING, "sethostname", 0, 0, 0), DENIED);
}

static void hostname_calls_only_with_allow_set_hostname(void **state)
{
	assert_int_equal(call(false, "sethostname", 0, 0, 0), DENIED);
	assert_int_equal(call(false, "setdomainname", 0, 0, 0), DENIED);
	assert_int_equal(call(true, "sethostname", 0, 0, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(call(true, "setdomainname", 0, 0, 0), SECCOMP_RET_ALLOW);
	/* mount stays forbidden with the capability set_hostname keeps */
	assert_int_equal(call(true, "mount", 0, 0, 0), DENIED);
}

static void clone_is_denied_only_with_namespace_flags(void **state)
{
	static const uint64_t ns[] = {CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
				      CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET};

	assert_int_equal(call(false, "clone", SIGCHLD, 0, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(call(false, "clone", CLONE_VM | CLONE_THREAD | CLONE_SIGHAND, 0, 0),
			 SECCOMP_RET_ALLOW);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		assert_int_equal(call(false, "clone", ns[i] | SIGCHLD, 0, 0), DENIED);
	/* clone3's flags are in memory: ENOSYS sends glibc back to clone */
	assert_int_equal(call(false, "clone3", 0, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
}

static void ioctls_that_reach_the_host_are_denied(void **state)
{
	static const uint64_t bad[] = {TIOCSTI, TIOCLINUX, TIOCCONS, FIFREEZE, FITHAW, FITRIM};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(call(true, "ioctl", 0, bad[i], 0), DENIED);
		/* only the low 32 bits are the request */
		assert_int_equal(call(true, "ioctl", 0, bad[i] | (1ULL << 40), 0), DENIED);
	}
	assert_int_equal(call(false, "ioctl", 0, TCGETS, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(call(false, "ioctl", 0, TIOCGWINSZ, 0), SECCOMP_RET_ALLOW);
}

static void realtime_io_class_is_denied(void **state)
{
	uint64_t rt = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0);
	uint64_t be = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4);

	assert_int_equal(call(false, "ioprio_set", 1, 0, rt), DENIED);
	assert_int_equal(call(false, "ioprio_set", 1, 0, be), SECCOMP_RET_ALLOW);
}

/* Calls newer than libseccomp, by number (the same on x86_64 and arm64). */
static void calls_libseccomp_does_not_know_are_denied_by_number(void **state)
{
	for (const struct seccomp_new_call *c = seccomp_denied_new; c->name != NULL; c++)
		for (int allow = 0; allow <= 1; allow++)
			if (verdict(allow, NATIVE_AUDIT_ARCH, c->nr, 0, 0, 0) != DENIED)
				fail_msg("%s (%d) is not denied", c->name, c->nr);
	/* open_tree_attr is 467 on every architecture cell builds for */
	assert_int_equal(verdict(false, NATIVE_AUDIT_ARCH, 467, 0, 0, 0), DENIED);
	/* and a number next to it, unknown to the list, is not */
	assert_int_equal(verdict(false, NATIVE_AUDIT_ARCH, 470, 0, 0, 0), SECCOMP_RET_ALLOW);
}

static void personality_takes_only_the_harmless_flags(void **state)
{
	static const uint64_t ok[] = {
		0, /* PER_LINUX */
		PER_LINUX32,
		ADDR_NO_RANDOMIZE, /* setarch -R, gdb */
		PER_LINUX32 | ADDR_NO_RANDOMIZE,
		0xffffffff,	       /* the query */
		0xffffffffffffffffULL, /* the query, as personality(-1) */
		1ULL << 32,	       /* the kernel takes the low 32 bits: 0 */
	};
	static const uint64_t bad[] = {
		READ_IMPLIES_EXEC,
		MMAP_PAGE_ZERO,
		UNAME26,
		UNAME26 | PER_LINUX32,
		ADDR_COMPAT_LAYOUT,
		ADDR_LIMIT_32BIT,
		ADDR_LIMIT_3GB,
		PER_SVR4,
		PER_LINUX32 | READ_IMPLIES_EXEC,
		0x80000000,
		0xfffffffe,
		0x7fffffff,
		0xbfffffff,
		(1ULL << 32) | READ_IMPLIES_EXEC, /* the high half is not looked at */
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (call(false, "personality", ok[i], 0, 0) != SECCOMP_RET_ALLOW)
			fail_msg("personality(%#llx) is denied", (unsigned long long)ok[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (call(false, "personality", bad[i], 0, 0) != DENIED)
			fail_msg("personality(%#llx) is allowed", (unsigned long long)bad[i]);
	/* every single flag bit but the two */
	for (int b = 0; b < 32; b++) {
		uint64_t v = 1ULL << b;

		if ((v & (PER_LINUX32 | ADDR_NO_RANDOMIZE)) == 0 &&
		    call(false, "personality", v, 0, 0) != DENIED)
			fail_msg("personality(%#llx) is allowed", (unsigned long long)v);
	}
}

static void calls_of_another_architecture_kill(void **state)
{
	uint32_t v;

#if defined(__x86_64__)
	v = verdict(false, AUDIT_ARCH_I386, 1, 0, 0, 0);
	assert_true((v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_THREAD ||
		    (v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS);
	/* x32: the x86_64 arch with bit 30 in the number */
	v = verdict(false, AUDIT_ARCH_X86_64, (int)(0x40000000 | SYS_getpid), 0, 0, 0);
	assert_true((v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_THREAD ||
		    (v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS);
#else
	v = verdict(false, AUDIT_ARCH_ARM, 1, 0, 0, 0);
	assert_true((v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_THREAD ||
		    (v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(embedded_filters_are_the_rules_compiled_now),
		cmocka_unit_test(every_listed_call_fails_with_eperm),
		cmocka_unit_test(ordinary_calls_are_allowed),
		cmocka_unit_test(hostname_calls_only_with_allow_set_hostname),
		cmocka_unit_test(io_uring_calls_only_with_allow_io_uring),
		cmocka_unit_test(clone_is_denied_only_with_namespace_flags),
		cmocka_unit_test(ioctls_that_reach_the_host_are_denied),
		cmocka_unit_test(realtime_io_class_is_denied),
		cmocka_unit_test(calls_libseccomp_does_not_know_are_denied_by_number),
		cmocka_unit_test(personality_takes_only_the_harmless_flags),
		cmocka_unit_test(calls_of_another_architecture_kill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
