/*
 * textprof: which of a static program's code one command executes, for
 * the layout of cell's text (scripts/text-order.sh, docs/PERFORMANCE.md
 * "The code a start runs, laid out first").
 *
 *   textprof steps OUT PROG [ARG...]    every instruction address of PROG's
 *                                       executable segment that the command
 *                                       runs, in its processes and threads,
 *                                       until each execs something else
 *   textprof ifuncs OUT PROG [ARG...]   the functions PROG's IRELATIVE
 *                                       slots chose on this machine (its
 *                                       string functions: memcpy, strlen...)
 *
 * OUT gets one hexadecimal address a line.  steps single-steps every
 * process of the tree (ptrace), so a start of a few milliseconds takes
 * seconds; its children are followed through clone, fork and vfork, and
 * let go at their exec of another program (the jail's payload).  ifuncs
 * stops the program at its first system call, after the static C
 * library's start has filled the slots, reads them and lets it run.
 *
 * A maintainer's tool, run as root by scripts/text-order.sh; never part of
 * cell.  PROG must be a static, non-PIE x86-64 executable.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "textprof: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "textprof: %s\n", what);
	exit(1);
}

struct elf {
	unsigned long lo, hi;	/* the executable segment */
	unsigned long slot[64]; /* IRELATIVE slots (ifuncs() reads 64 at most) */
	size_t nslot;
};

static void read_at(int fd, void *buf, size_t n, off_t off)
{
	if (pread(fd, buf, n, off) != (ssize_t)n)
		fail("short read of the program's ELF headers");
}

static void read_elf(const char *path, struct elf *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr h;

	if (fd < 0)
		die(path);
	read_at(fd, &h, sizeof(h), 0);
	if (memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64 ||
	    h.e_machine != EM_X86_64 || h.e_type != ET_EXEC)
		fail("not a static, non-PIE x86-64 executable");
	memset(e, 0, sizeof(*e));
	for (int i = 0; i < h.e_phnum; i++) {
		Elf64_Phdr p;

		read_at(fd, &p, sizeof(p), (off_t)(h.e_phoff + (unsigned long)i * h.e_phentsize));
		if (p.p_type == PT_INTERP)
			fail("a dynamic executable");
		if (p.p_type == PT_LOAD && (p.p_flags & PF_X)) {
			e->lo = p.p_vaddr;
			e->hi = p.p_vaddr + p.p_memsz;
		}
	}
	if (e->hi == 0)
		fail("no executable segment");
	for (int i = 0; i < h.e_shnum; i++) {
		Elf64_Shdr s;

		read_at(fd, &s, sizeof(s), (off_t)(h.e_shoff + (unsigned long)i * h.e_shentsize));
		if (s.sh_type != SHT_RELA)
			continue;
		for (unsigned long off = 0; off + sizeof(Elf64_Rela) <= s.sh_size;
		     off += sizeof(Elf64_Rela)) {
			Elf64_Rela r;

			read_at(fd, &r, sizeof(r), (off_t)(s.sh_offset + off));
			if (ELF64_R_TYPE(r.r_info) == R_X86_64_IRELATIVE &&
			    e->nslot < sizeof(e->slot) / sizeof(e->slot[0]))
				e->slot[e->nslot++] = r.r_offset;
		}
	}
	close(fd);
}

/* PROG, stopped before its exec; options set. */
static pid_t start(char **argv, int options)
{
	int st;
	pid_t c = fork();

	if (c < 0)
		die("fork");
	if (c == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			die("PTRACE_TRACEME");
		raise(SIGSTOP);
		execv(argv[0], argv);
		die(argv[0]);
	}
	if (waitpid(c, &st, 0) < 0 || !WIFSTOPPED(st))
		fail("the program did not stop before its exec");
	if (ptrace(PTRACE_SETOPTIONS, c, 0, options | PTRACE_O_EXITKILL) < 0)
		die("PTRACE_SETOPTIONS");
	return c;
}

/* The IRELATIVE slots of the stopped C, in V; how many changed from OLD. */
static size_t read_slots(pid_t c, const struct elf *e, long *v, const long *old)
{
	size_t changed = 0;

	for (size_t i = 0; i < e->nslot; i++) {
		errno = 0;
		v[i] = ptrace(PTRACE_PEEKDATA, c, e->slot[i], 0);
		if (errno != 0)
			die("PTRACE_PEEKDATA");
		changed += old != NULL && v[i] != old[i];
	}
	return changed;
}

static int ifuncs(FILE *out, const struct elf *e, char **argv)
{
	pid_t c = start(argv, PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC);
	long first[64], now[64];
	int st, execd = 0, calls = 0;

	if (e->nslot == 0)
		fail("no IRELATIVE slots");
	/* From system call to system call until the C library's start has
	 * filled every slot: they then differ from what the first call saw
	 * (glibc fills them after it set up TLS, with brk). */
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, c, 0, 0) < 0)
			die("PTRACE_SYSCALL");
		if (waitpid(c, &st, 0) < 0)
			die("waitpid");
		if (!WIFSTOPPED(st))
			fail("the program ended before its string functions were chosen");
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			execd = 1;
			continue;
		}
		if (!execd || WSTOPSIG(st) != (SIGTRAP | 0x80))
			continue;
		if (calls++ == 0)
			read_slots(c, e, first, NULL);
		else if (read_slots(c, e, now, first) == e->nslot)
			break;
	}
	for (size_t i = 0; i < e->nslot; i++)
		fprintf(out, "%lx\n", (unsigned long)now[i]);
	if (ptrace(PTRACE_DETACH, c, 0, 0) < 0)
		die("PTRACE_DETACH");
	return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int steps(FILE *out, const struct elf *e, char **argv)
{
	unsigned char *seen = calloc(e->hi - e->lo, 1);
	pid_t top = start(argv, PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
					PTRACE_O_TRACEEXEC);
	int st, status = 1, top_execd = 0;
	long n = 0;

	if (seen == NULL)
		die("calloc");
	/* To PROG's own exec, unstepped. */
	if (ptrace(PTRACE_CONT, top, 0, 0) < 0)
		die("PTRACE_CONT");
	for (;;) {
		pid_t p = waitpid(-1, &st, __WALL);
		int sig = 0;

		if (p < 0) {
			if (errno == ECHILD)
				break;
			die("waitpid");
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (p == top)
				status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			continue;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			if (p == top && !top_execd) {
				top_execd = 1;
			} else {
				/* Another program (the payload): not PROG's code. */
				ptrace(PTRACE_DETACH, p, 0, 0);
				continue;
			}
		} else if (st >> 16 != 0) {
			/* clone, fork, vfork: the new one stops on its own. */
		} else if (WSTOPSIG(st) == SIGTRAP) {
			struct user_regs_struct r;

			if (ptrace(PTRACE_GETREGS, p, 0, &r) == 0 && r.rip >= e->lo &&
			    r.rip < e->hi)
				seen[r.rip - e->lo] = 1;
			n++;
		} else if (WSTOPSIG(st) != SIGSTOP) {
			sig = WSTOPSIG(st); /* the program's own signal */
		}
		if (ptrace(PTRACE_SINGLESTEP, p, 0, sig) < 0 && errno != ESRCH)
			die("PTRACE_SINGLESTEP");
	}
	for (unsigned long a = 0; a < e->hi - e->lo; a++)
		if (seen[a])
			fprintf(out, "%lx\n", e->lo + a);
	fprintf(stderr, "textprof: %ld instructions stepped\n", n);
	free(seen);
	return status;
}

int main(int argc, char **argv)
{
	struct elf e;
	FILE *out;
	int status;

	if (argc < 4 || (strcmp(argv[1], "steps") != 0 && strcmp(argv[1], "ifuncs") != 0)) {
		fprintf(stderr, "usage: textprof steps|ifuncs OUT PROG [ARG...]\n");
		return 2;
	}
	read_elf(argv[3], &e);
	out = fopen(argv[2], "we");
	if (out == NULL)
		die(argv[2]);
	status = argv[1][0] == 's' ? steps(out, &e, argv + 3) : ifuncs(out, &e, argv + 3);
	if (fclose(out) != 0)
		die(argv[2]);
	if (status != 0)
		fprintf(stderr, "textprof: %s exited with %d\n", argv[3], status);
	return status == 0 ? 0 : 1;
}
