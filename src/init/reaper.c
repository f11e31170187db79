/*
 * reaper.c - pid 1 of a jail with cell's reaper (the default of a
 * detached jail, --init), as a program of its own.
 *
 *   cell-init FLAGS PID POLICY MAX LOG_SIZE NLOGS CUR -- PATH ARGV0 ARG...
 *
 * The jail's first process sets the payload up (user, capabilities,
 * working directory, umask, LSM labels, stdio), forks it, and execs this
 * program with the payload's environment as its own (launch.c, init.c);
 * it is exec'd from a sealed memfd, so a jail's pid 1 is a few pages of
 * this file rather than a copy of cell.  It runs with the payload's
 * credentials and needs none.  It
 *   - forwards the signals cell forwards (init.c's list) to the payload;
 *     a SIGTERM or SIGINT from outside the jail (cell stop: a sender of
 *     an ancestor pid namespace, si_pid 0) also means no more restarts;
 *   - reaps every orphan;
 *   - writes the payload's stdout and stderr (pipes whose read ends only
 *     it holds) to the log, a line at a time, in the CRI log format
 *     (`2026-12-05T06:01:02.123456789Z stdout F text`; P: a part of a
 *     line cut at the buffer's size or when the pipe went quiet), into
 *     a ring of files opened by cell: when the next line would pass
 *     LOG_SIZE the next file is truncated and written instead;
 *   - starts PATH again per POLICY (0 no, 1 on-failure at most MAX times
 *     (0: no limit), 2 always) after 100 ms, doubling to 30 s, back to
 *     100 ms after a run of 10 s; the count goes to its file;
 *   - once the payload ends for good, writes its status (128+N when
 *     killed by signal N) and exits with it, which ends the jail.
 *
 * Descriptors, as the jail's first process leaves them (FLAGS says which
 * are there): 0-2 the payload's stdio (a restart inherits them); 3 the
 * gate, closed once this process is non-dumpable (the payload waits for
 * it); 5 the exit file; 6 the restart count; 7 and 8 the read ends of
 * the stdout and stderr pipes; 9 .. 9+NLOGS-1 the log files (O_APPEND),
 * CUR the one written last.  The forwarded signals and SIGCHLD arrive
 * blocked (the mask survives execve).
 *
 * Freestanding: no libc, raw system calls, nothing allocated, so that it
 * stays a few kilobytes and maps nothing but itself.
 */

#if defined(__x86_64__)
#define NR_read		  0
#define NR_write	  1
#define NR_close	  3
#define NR_lseek	  8
#define NR_rt_sigprocmask 14
#define NR_ioctl	  16
#define NR_pwrite64	  18
#define NR_writev	  20
#define NR_clone	  56
#define NR_execve	  59
#define NR_wait4	  61
#define NR_kill		  62
#define NR_fcntl	  72
#define NR_ftruncate	  77
#define NR_setpgid	  109
#define NR_prctl	  157
#define NR_clock_gettime  228
#define NR_exit_group	  231
#define NR_ppoll	  271
#define NR_signalfd4	  289
#define NR_close_range	  436

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call reaper_main\n"
	"	hlt\n");
#elif defined(__aarch64__)
#define NR_read		  63
#define NR_write	  64
#define NR_close	  57
#define NR_lseek	  62
#define NR_rt_sigprocmask 135
#define NR_ioctl	  29
#define NR_pwrite64	  68
#define NR_writev	  66
#define NR_clone	  220
#define NR_execve	  221
#define NR_wait4	  260
#define NR_kill		  129
#define NR_fcntl	  25
#define NR_ftruncate	  46
#define NR_setpgid	  154
#define NR_prctl	  167
#define NR_clock_gettime  113
#define NR_exit_group	  94
#define NR_ppoll	  73
#define NR_signalfd4	  74
#define NR_close_range	  436

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x0, sp\n"
	"	bl reaper_main\n");
#else
#error "cell-init: no system call stub for this architecture"
#endif

/* The calls themselves (rawcall.h: inline assembly, no libc). */
#define sys6(n, a, b, c, d, e) raw_call6(n, a, b, c, d, e, 0)
#define sys3(n, a, b, c)       sys6(n, (long)(a), (long)(b), (long)(c), 0, 0)

#define SIGHUP		1
#define SIGINT		2
#define SIGQUIT		3
#define SIGUSR1		10
#define SIGUSR2		12
#define SIGTERM		15
#define SIGCHLD		17
#define SIGTTOU		22
#define SIGWINCH	28
#define SIG_BLOCK	0
#define SIG_SETMASK	2
#define WNOHANG		1
#define PR_SET_NAME	15
#define PR_SET_DUMPABLE 4
#define F_SETFL		4
#define O_NONBLOCK	04000
#define SFD_FLAGS	(04000 | 02000000) /* SFD_NONBLOCK | SFD_CLOEXEC */
#define POLLIN		1
#define SEEK_END	2
#define TIOCSPGRP	0x5410
#define CLOCK_REALTIME	0
#define CLOCK_MONOTONIC 1

/* The descriptors' places and FLAGS's bits (see the top). */
#include "reaper_abi.h"
#include "../lib/rawcall.h"

#define MS	    (1000LL * 1000)
#define SEC	    (1000LL * MS)
#define FIRST_DELAY (100 * MS)
#define LAST_DELAY  (30 * SEC)
#define STEADY_RUN  (10 * SEC) /* a run this long starts the delays afresh */
#define QUIET	    (200 * MS) /* a part of a line waits this long for its end */
#define LINE_MAX    4096       /* param.c's log.size is at least two of these */
#define DRAIN_READS 64	       /* at the end: enough for a full pipe, never for ever */

#define BIT(sig) (1UL << ((sig)-1))

/* The signals cell forwards (init.c's list), and SIGCHLD. */
static const unsigned long waited = BIT(SIGINT) | BIT(SIGTERM) | BIT(SIGHUP) | BIT(SIGQUIT) |
				    BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(SIGWINCH) | BIT(SIGCHLD);

struct timespec_k {
	long sec, nsec;
};
struct iovec_k {
	const void *base;
	unsigned long len;
};
struct pollfd_k {
	int fd;
	short events, revents;
};

/* One of the payload's output pipes, and the part of a line read so far. */
struct stream {
	int fd; /* -1: not piped */
	const char *name;
	unsigned long len;
	long long last; /* when it was last read (monotonic) */
	char *buf;	/* LINE_MAX bytes */
};

/*
 * In .bss (set up by setup()): no room in the file.  The small state is
 * one object, on one page; the buffers are on pages of their own, not
 * even allocated until the payload writes (each jail's Pss).
 */
static struct {
	struct stream out, err;
	/* The ring of log files: NLOGS of them from FD_LOG0, CUR being
	 * written, CUR_SIZE bytes long. */
	long nlogs, cur, log_size, cur_size;
} g;
static struct {
	char out[LINE_MAX], err[LINE_MAX];
} bufs __attribute__((aligned(4096)));

static __attribute__((noreturn)) void leave(int code)
{
	for (;;)
		sys3(NR_exit_group, code, 0, 0);
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

static long long now(int clock)
{
	struct timespec_k ts = {0, 0};

	sys3(NR_clock_gettime, clock, &ts, 0);
	return ts.sec * SEC + ts.nsec;
}

/* V in decimal, right-aligned in WIDTH digits (zero-padded); the end. */
static char *digits(char *p, unsigned long long v, int width)
{
	for (int i = width - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + width;
}

/* N as decimal text and a newline into BUF; its length. */
static int decimal(char *buf, long n)
{
	char tmp[24];
	int len = 0, k = 0;

	do
		tmp[k++] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	while (k > 0)
		buf[len++] = tmp[--k];
	buf[len++] = '\n';
	return len;
}

/*
 * The time now as RFC 3339 UTC with nanoseconds, "2026-12-05T06:01:02.
 * 123456789Z" (30 bytes): days since 1970-01-01 to a civil date through
 * 400-year eras of 146097 days, with years counted from March so that
 * the leap day ends one.
 */
static void timestamp(char *p)
{
	long long t = now(CLOCK_REALTIME);
	long long secs = t / SEC, day_secs = secs % 86400;
	long long z = secs / 86400 + 719468; /* days since 0000-03-01 */
	long long era = z / 146097, doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	long long day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
	long long year = yoe + era * 400 + (month <= 2);

	p = digits(p, (unsigned long long)year, 4);
	*p++ = '-';
	p = digits(p, (unsigned long long)month, 2);
	*p++ = '-';
	p = digits(p, (unsigned long long)day, 2);
	*p++ = 'T';
	p = digits(p, (unsigned long long)(day_secs / 3600), 2);
	*p++ = ':';
	p = digits(p, (unsigned long long)(day_secs / 60 % 60), 2);
	*p++ = ':';
	p = digits(p, (unsigned long long)(day_secs % 60), 2);
	*p++ = '.';
	p = digits(p, (unsigned long long)(t % SEC), 9);
	*p = 'Z';
}

/* Writes one log line, into the next file of the ring (truncated) when
 * it would pass log.size: the log never holds more than NLOGS files of
 * log.size, whatever the payload writes. */
static void log_line(const struct stream *s, const char *text, unsigned long n, int partial)
{
	char head[48];
	unsigned long hlen = 0;
	struct iovec_k iov[3];
	long total, w;

	if (g.nlogs == 0)
		return;
	timestamp(head);
	hlen = 30;
	head[hlen++] = ' ';
	for (const char *c = s->name; *c != '\0'; c++)
		head[hlen++] = *c;
	head[hlen++] = ' ';
	head[hlen++] = partial ? 'P' : 'F';
	head[hlen++] = ' ';
	iov[0] = (struct iovec_k){head, hlen};
	iov[1] = (struct iovec_k){text, n};
	iov[2] = (struct iovec_k){"\n", 1};
	total = (long)(hlen + n + 1);
	if (g.cur_size > 0 && g.cur_size + total > g.log_size) {
		g.cur = (g.cur + 1) % g.nlogs;
		sys3(NR_ftruncate, FD_LOG0 + g.cur, 0, 0);
		g.cur_size = 0;
	}
	w = sys3(NR_writev, FD_LOG0 + g.cur, iov, 3);
	if (w > 0)
		g.cur_size += w;
}

/* The whole lines of S's buffer to the log, the rest moved to its start;
 * a full buffer without a line's end goes as a part (P). */
static void emit_lines(struct stream *s)
{
	unsigned long start = 0;

	for (unsigned long i = 0; i < s->len; i++)
		if (s->buf[i] == '\n') {
			log_line(s, s->buf + start, i - start, 0);
			start = i + 1;
		}
	for (unsigned long i = start; i < s->len; i++)
		s->buf[i - start] = s->buf[i];
	s->len -= start;
	if (s->len == LINE_MAX) {
		log_line(s, s->buf, s->len, 1);
		s->len = 0;
	}
}

/* Reads what S's pipe holds (non-blocking); 0 when it held nothing. */
static int take(struct stream *s)
{
	long n;

	if (s->fd < 0)
		return 0;
	n = sys3(NR_read, s->fd, s->buf + s->len, LINE_MAX - s->len);
	if (n <= 0)
		return 0;
	s->len += (unsigned long)n;
	s->last = now(CLOCK_MONOTONIC);
	emit_lines(s);
	return 1;
}

/* A part of a line that has waited long enough (or at the end) goes as
 * it is, marked P. */
static void flush_part(struct stream *s)
{
	if (s->len > 0) {
		log_line(s, s->buf, s->len, 1);
		s->len = 0;
	}
}

static void record(int fd, int code)
{
	char buf[24];

	sys6(NR_pwrite64, fd, (long)buf, decimal(buf, code), 0, 0);
}

/* The end: what the pipes still hold goes to the log, the status to its
 * file; leaving ends the pid namespace and every process in it. */
static __attribute__((noreturn)) void finish(long flags, int code)
{
	for (int i = 0; i < DRAIN_READS && take(&g.out); i++)
		;
	for (int i = 0; i < DRAIN_READS && take(&g.err); i++)
		;
	flush_part(&g.out);
	flush_part(&g.err);
	if (flags & HAS_STATUS)
		record(FD_STATUS, code);
	leave(code);
}

/* The payload again: a child that leaves the reaper's descriptors and
 * signal mask behind and execs PATH with what the first one had. */
static long spawn(long flags, const char *path, char **argv, char **envp)
{
	unsigned long none = 0;
	long pid = sys6(NR_clone, SIGCHLD, 0, 0, 0, 0);

	if (pid == 0) {
		sys3(NR_close_range, 3, ~0U, 0);
		if (flags & HAS_TTY)
			sys3(NR_setpgid, 0, 0, 0);
		sys6(NR_rt_sigprocmask, SIG_SETMASK, (long)&none, 0, 8, 0);
		long r = sys3(NR_execve, path, argv, envp);
		leave(r == -2 || r == -20 ? 127 : 126); /* ENOENT, ENOTDIR: not found */
	}
	/* The terminal's foreground is the payload's (^C reaches it, not
	 * pid 1); SIGTTOU is blocked, so pid 1 may set it. */
	if (pid > 0 && (flags & HAS_TTY)) {
		int pgrp = (int)pid;

		sys3(NR_setpgid, pid, pid, 0);
		sys3(NR_ioctl, 0, TIOCSPGRP, &pgrp);
	}
	return pid;
}

/* What the loop keeps between its turns. */
struct reaper {
	long flags, policy, max;
	const char *path;
	char **argv, **envp;
	long payload;	      /* its pid; 0 while it waits for a restart */
	long long started;    /* when it started (monotonic) */
	long long restart_at; /* when it starts again, with payload 0 */
	long long delay;      /* the next delay */
	long restarts;
	int last; /* the status it ended with last */
	int stopping;
};

/* The payload ended with CODE: start it again later, or finish. */
static void ended(struct reaper *r, int code)
{
	long long t = now(CLOCK_MONOTONIC);
	int again = r->policy == 2 ||
		    (r->policy == 1 && code != 0 && (r->max == 0 || r->restarts < r->max));

	if (r->stopping || !again)
		finish(r->flags, code);
	if (t - r->started >= STEADY_RUN)
		r->delay = FIRST_DELAY;
	r->restart_at = t + r->delay;
	r->delay = r->delay * 2 > LAST_DELAY ? LAST_DELAY : r->delay * 2;
	r->payload = 0;
	r->last = code;
}

static void reap(struct reaper *r)
{
	for (;;) {
		int st = 0;
		long pid = sys6(NR_wait4, -1, (long)&st, WNOHANG, 0, 0);

		if (pid <= 0)
			return;
		if (pid == r->payload)
			ended(r, (st & 0x7f) == 0 ? (st >> 8) & 0xff : 128 + (st & 0x7f));
	}
}

/* The queued signals: SIGCHLD reaps, the others go to the payload. */
static void signals(struct reaper *r, int sfd)
{
	unsigned int info[32]; /* struct signalfd_siginfo: signo, errno, code, pid... */

	while (sys3(NR_read, sfd, info, sizeof(info)) == (long)sizeof(info)) {
		unsigned int sig = info[0], from = info[3];

		if (sig == SIGCHLD) {
			reap(r);
			continue;
		}
		/* From outside the jail (cell stop, or cell relaying ^C): an
		 * end, not a crash to restart from. */
		if ((sig == SIGTERM || sig == SIGINT) && from == 0) {
			r->stopping = 1;
			if (r->payload == 0)
				finish(r->flags, r->last);
		}
		if (r->payload > 0)
			sys3(NR_kill, r->payload, sig, 0);
	}
}

/* How long ppoll may wait: until a restart is due or a part of a line
 * has waited long enough; -1: for ever. */
static long long next_wait(const struct reaper *r, long long t)
{
	long long until = -1;

	if (r->payload == 0)
		until = r->restart_at;
	if (g.out.len > 0 && (until < 0 || g.out.last + QUIET < until))
		until = g.out.last + QUIET;
	if (g.err.len > 0 && (until < 0 || g.err.last + QUIET < until))
		until = g.err.last + QUIET;
	if (until < 0)
		return -1;
	return until > t ? until - t : 0;
}

static void start_again(struct reaper *r)
{
	char buf[24];
	long pid = spawn(r->flags, r->path, r->argv, r->envp);

	if (pid <= 0) {
		/* No fork (the jail's nrtask): try again later. */
		r->restart_at = now(CLOCK_MONOTONIC) + r->delay;
		return;
	}
	r->payload = pid;
	r->started = now(CLOCK_MONOTONIC);
	r->restarts++;
	if (r->flags & HAS_RESTARTS)
		sys6(NR_pwrite64, FD_RESTARTS, (long)buf, decimal(buf, r->restarts), 0, 0);
}

static void setup(struct reaper *r, int *sfd)
{
	unsigned long set = waited, block = waited | BIT(SIGTTOU);

	g.out = (struct stream){.fd = -1, .name = "stdout", .buf = bufs.out};
	g.err = (struct stream){.fd = -1, .name = "stderr", .buf = bufs.err};
	sys6(NR_rt_sigprocmask, SIG_BLOCK, (long)&block, 0, 8, 0);
	*sfd = (int)sys6(NR_signalfd4, -1, (long)&set, 8, SFD_FLAGS, 0);
	if (*sfd < 0)
		leave(125);
	/* /proc/1 stays closed to the jail's processes (its descriptors
	 * reach the log files), as before the exec; then the payload may
	 * go (it waits for the gate to close). */
	sys3(NR_prctl, PR_SET_DUMPABLE, 0, 0);
	sys3(NR_prctl, PR_SET_NAME, "cell-init", 0);
	if (r->flags & HAS_GATE)
		sys3(NR_close, FD_GATE, 0, 0);
	if (r->flags & HAS_STDOUT) {
		g.out.fd = FD_STDOUT;
		sys3(NR_fcntl, FD_STDOUT, F_SETFL, O_NONBLOCK);
	}
	if (r->flags & HAS_STDERR) {
		g.err.fd = FD_STDERR;
		sys3(NR_fcntl, FD_STDERR, F_SETFL, O_NONBLOCK);
	}
	if (g.nlogs > 0)
		g.cur_size = sys3(NR_lseek, FD_LOG0 + g.cur, 0, SEEK_END);
	if (g.cur_size < 0)
		g.cur_size = 0;
}

__attribute__((noreturn, used)) void reaper_main(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	struct reaper r = {.delay = FIRST_DELAY};
	int sfd;

	if (argc < 11 || argv[8][0] != '-' || argv[8][1] != '-')
		leave(125);
	r.flags = parse(argv[1]);
	r.payload = parse(argv[2]);
	r.policy = parse(argv[3]);
	r.max = parse(argv[4]);
	g.log_size = parse(argv[5]);
	g.nlogs = parse(argv[6]);
	g.cur = parse(argv[7]);
	r.path = argv[9];
	r.argv = argv + 10;
	r.envp = argv + argc + 1;
	if (r.payload <= 0 || g.nlogs < 0 || g.cur < 0 || (g.nlogs > 0 && g.cur >= g.nlogs))
		leave(125);
	setup(&r, &sfd);
	r.started = now(CLOCK_MONOTONIC);
	reap(&r); /* a payload that ended before the signalfd was there */
	for (;;) {
		struct pollfd_k p[3] = {
			{sfd, POLLIN, 0}, {g.out.fd, POLLIN, 0}, {g.err.fd, POLLIN, 0}};
		long long t = now(CLOCK_MONOTONIC), wait = next_wait(&r, t);
		struct timespec_k ts = {(long)(wait / SEC), (long)(wait % SEC)};

		sys6(NR_ppoll, (long)p, 3, wait < 0 ? 0 : (long)&ts, 0, 8);
		if (p[1].revents)
			take(&g.out);
		if (p[2].revents)
			take(&g.err);
		signals(&r, sfd);
		t = now(CLOCK_MONOTONIC);
		if (g.out.len > 0 && t - g.out.last >= QUIET)
			flush_part(&g.out);
		if (g.err.len > 0 && t - g.err.last >= QUIET)
			flush_part(&g.err);
		if (r.payload == 0 && t >= r.restart_at)
			start_again(&r);
	}
}
