/*
 * reaper.c - pid 1 of a jail run with --init, as a program of its own.
 *
 *   cell-init PAYLOAD_PID STATUS_FD
 *
 * cell forks the jail's first process into this reaper and its child
 * into the command; the reaper is exec'd from a sealed memfd (init.c), so
 * a jail's pid 1 is a few pages of this file rather than a copy of cell
 * (cell's heap, its binary behind /proc/1/exe).  It forwards the signals
 * cell forwards (init.c's list) to the
 * payload, reaps every orphan, writes the payload's status to STATUS_FD
 * (-1: none) and exits with it.  The forwarded signals and SIGCHLD arrive
 * blocked (the mask survives execve).
 *
 * Freestanding: no libc, raw system calls, nothing allocated, so that it
 * stays a few kilobytes and maps nothing but itself.
 */

#if defined(__x86_64__)
#define NR_write	   1
#define NR_wait4	   61
#define NR_kill		   62
#define NR_rt_sigtimedwait 128
#define NR_prctl	   157
#define NR_exit_group	   231

static long sys4(long n, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call reaper_main\n"
	"	hlt\n");
#elif defined(__aarch64__)
#define NR_write	   64
#define NR_wait4	   260
#define NR_kill		   129
#define NR_rt_sigtimedwait 137
#define NR_prctl	   167
#define NR_exit_group	   94

static long sys4(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x0, sp\n"
	"	bl reaper_main\n");
#else
#error "cell-init: no system call stub for this architecture"
#endif

#define SIGHUP		1
#define SIGINT		2
#define SIGQUIT		3
#define SIGUSR1		10
#define SIGUSR2		12
#define SIGTERM		15
#define SIGCHLD		17
#define SIGWINCH	28
#define WNOHANG		1
#define PR_SET_NAME	15
#define PR_SET_DUMPABLE 4

#define BIT(sig) (1UL << ((sig)-1))

/* The signals cell forwards (init.c's list), and SIGCHLD. */
static const unsigned long waited = BIT(SIGINT) | BIT(SIGTERM) | BIT(SIGHUP) | BIT(SIGQUIT) |
				    BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(SIGWINCH) | BIT(SIGCHLD);

static __attribute__((noreturn)) void leave(int code)
{
	for (;;)
		sys4(NR_exit_group, code, 0, 0, 0);
}

static long parse(const char *s)
{
	long v = 0, sign = 1;

	if (s == 0)
		return -1;
	if (*s == '-') {
		sign = -1;
		s++;
	}
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return sign * v;
}

static void record(long fd, int code)
{
	char buf[4];
	int n = 0;

	if (fd < 0)
		return;
	if (code >= 100)
		buf[n++] = (char)('0' + code / 100);
	if (code >= 10)
		buf[n++] = (char)('0' + code / 10 % 10);
	buf[n++] = (char)('0' + code % 10);
	buf[n++] = '\n';
	sys4(NR_write, fd, (long)buf, n, 0);
}

__attribute__((noreturn, used)) void reaper_main(long *sp)
{
	char **argv = (char **)(sp + 1);
	long payload = sp[0] >= 3 ? parse(argv[1]) : -1;
	long status_fd = sp[0] >= 3 ? parse(argv[2]) : -1;
	unsigned long set = waited;
	char info[128];

	if (payload <= 0)
		leave(125);
	/* /proc/1 stays closed to the jail's processes, as before the exec. */
	sys4(NR_prctl, PR_SET_DUMPABLE, 0, 0, 0);
	sys4(NR_prctl, PR_SET_NAME, (long)"cell-init", 0, 0);
	for (;;) {
		long sig = sys4(NR_rt_sigtimedwait, (long)&set, (long)info, 0, 8);

		if (sig < 0)
			continue; /* EINTR: every waited signal is blocked */
		if (sig != SIGCHLD) {
			sys4(NR_kill, payload, sig, 0, 0);
			continue;
		}
		for (;;) {
			int st = 0;
			long pid = sys4(NR_wait4, -1, (long)&st, WNOHANG, 0);

			if (pid <= 0)
				break;
			/* Leaving kills the rest of the jail (the kernel ends a
			 * pid namespace with its init). */
			if (pid == payload) {
				int code = (st & 0x7f) == 0 ? (st >> 8) & 0xff : 128 + (st & 0x7f);

				record(status_fd, code);
				leave(code);
			}
		}
	}
}
