/*
 * rawcall.h - a system call that writes no memory of the caller's, for
 * code that runs while another process shares cell's memory: glibc's
 * syscall() and wrappers write errno on a failure, and errno is shared
 * (ns.c's helper; the jail's first process, launch.c; channel.c).  And
 * the system calls of cell-init, which has no libc (src/init/reaper.c):
 * on x86-64 and aarch64 this header needs none.  Returns the call's
 * value, or -errno.
 */
#ifndef CELL_RAWCALL_H
#define CELL_RAWCALL_H

#if !defined(__x86_64__) && !defined(__aarch64__)
#include <errno.h>
#include <unistd.h>
#endif

static inline long raw_call6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#else
	long r = syscall(nr, a, b, c, d, e, f);

	return r < 0 ? -errno : r;
#endif
}

static inline long raw_call(long nr, long a, long b, long c, long d)
{
	return raw_call6(nr, a, b, c, d, 0, 0);
}

#endif
