/*
 * cgroup_v2.c - the cgroup v2 (unified) backend: one directory for every
 * controller, which its parent must enable for its children
 * (cgroup.subtree_control).
 *
 * The jail is cloned straight into it (CLONE_INTO_CGROUP, through the
 * directory's fd).  Devices: v2 has no devices files; an eBPF program of
 * type BPF_PROG_TYPE_CGROUP_DEVICE, attached to the directory, answers
 * each open and mknod of a device node (bpf(2) directly: the program is
 * a few instructions per rule).  Freezer: cgroup.freeze and the
 * "frozen" line of cgroup.events; cgroup.kill kills the whole tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "param.h"
#include "cleanup.h"
#include "proc.h"

#define FREEZE_WAIT_MS 2000

/* The directory of the cgroup path PATH of the hierarchy at MNT; heap. */
static char *at_mnt(const char *mnt, const char *path)
{
	return cgroup_join(mnt, "/", path);
}

/*
 * Rootless: beneath the delegated directory W->deleg.  The jail's cgroup
 * is DELEG/cell/LEAF, "cell" a directory of cell's that holds no process
 * (so that controllers can be given to the jails beneath it), made when
 * missing and removed with the last jail (made 2); beneath
 * --cgroup-parent, DELEG/LEAF; a cgroup_path (checked to be beneath
 * DELEG) exactly, the missing directories down from DELEG made.
 */
static int plan_deleg(struct cgroup *cg, const struct cgroup_where *w, const char *own,
		      struct cgroup *from, struct cell_err *e)
{
	cleanup_free char *cell = NULL;
	int n;

	cg->deleg = strdup(w->deleg);
	if (cg->deleg == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (w->exact != NULL) {
		n = w->exact[0] == '/' ? asprintf(&cg->path, "%s%s", w->mnt, w->exact)
				       : asprintf(&cg->path, "%s/%s", w->deleg, w->exact);
		if (n < 0) {
			cg->path = NULL;
			return cell_err_set(e, ENOMEM, "cgroup");
		}
		return cgroup_plan_exact(cg->path, w->deleg, &cg->path_made, e);
	}
	if (asprintf(&cell, "%s/cell", w->deleg) < 0) {
		cell = NULL;
		return cell_err_set(e, ENOMEM, "cgroup");
	}
	n = asprintf(&cg->path, "%s/%s", w->cgparent != NULL ? w->deleg : cell, w->leaf);
	if (n < 0) {
		cg->path = NULL;
		return cell_err_set(e, ENOMEM, "cgroup");
	}
	cg->path_made = w->cgparent == NULL && access(cell, F_OK) < 0 ? 2 : 1;
	if (from != NULL && (from->path = at_mnt(w->mnt, own)) == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	return 0;
}

static int plan(struct cgroup *cg, const struct cgroup_where *w, struct cgroup *from,
		struct cell_err *e)
{
	cleanup_free char *own = NULL, *parent = NULL, *pdir = NULL, *path = NULL;

	own = cgroup_parse_own(w->own_text, NULL);
	if (own == NULL)
		return cell_err_set(e, ENOENT, "cgroup: no unified cgroup in /proc/PID/cgroup");
	if (w->deleg != NULL)
		return plan_deleg(cg, w, own, from, e);
	if (w->exact != NULL) {
		path = cgroup_parent_path(w->exact, own);
		cg->path = path ? cgroup_join(CGROUP_FS, "/", path) : NULL;
		if (cg->path == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
		return cgroup_plan_exact(cg->path, CGROUP_FS, &cg->path_made, e);
	}
	parent = cgroup_parent_path(w->cgparent, own);
	pdir = parent ? cgroup_join(CGROUP_FS, "/", parent) : NULL;
	if (pdir == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (access(pdir, F_OK) < 0)
		return w->cgparent != NULL
			       ? cell_err_param(e, PARAM_CGROUP_PARENT, 0, errno, "%s", pdir)
			       : cell_err_set(e, errno, "cgroup %s", pdir);
	if (asprintf(&cg->path, "%s/%s", pdir, w->leaf) < 0) {
		cg->path = NULL;
		return cell_err_set(e, ENOMEM, "cgroup");
	}
	if (from != NULL && (from->path = cgroup_join(CGROUP_FS, "/", own)) == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	return 0;
}

/* The parent of the jail's directory, heap-allocated. */
static char *parent_dir(const struct cgroup *cg)
{
	char *p = strdup(cg->path);

	if (p != NULL)
		*strrchr(p, '/') = '\0';
	return p;
}

/* The controllers a v2 jail needs must be enabled for the children of
 * its parent; cell enables them if the parent allows (it cannot when
 * processes live in the parent itself: "no internal processes").  The
 * freezer and the device program are no controllers: always there. */
static int enable_in(const char *pdir, unsigned int want, struct cell_err *e)
{
	cleanup_free char *path = NULL, *cpath = NULL;
	char have[512], avail[512], ctl[64];

	if (asprintf(&path, "%s/cgroup.subtree_control", pdir) < 0 ||
	    asprintf(&cpath, "%s/cgroup.controllers", pdir) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (proc_read_text(path, have, sizeof(have)) < 0)
		return cell_err_set(e, errno, "cgroup: read %s", path);
	if (proc_read_text(cpath, avail, sizeof(avail)) < 0)
		return cell_err_set(e, errno, "cgroup: read %s", cpath);
	have[strcspn(have, "\n")] = '\0';
	avail[strcspn(avail, "\n")] = '\0';
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		const char *name = cgroup_ctrls[c].v2;

		if (!(want & 1U << c) || name == NULL ||
		    cgroup_words_have(have, strlen(have), ' ', name))
			continue;
		/* One the parent does not have is no error here: the jail
		 * goes without it, unless it needs it (the check after
		 * make()). */
		if (!cgroup_words_have(avail, strlen(avail), ' ', name))
			continue;
		snprintf(ctl, sizeof(ctl), "+%s", name);
		if (cgroup_write(pdir, "cgroup.subtree_control", ctl) < 0 && errno == EBUSY)
			return cell_err_set(
				e, EBUSY,
				"cgroup: enable %s in %s/cgroup.subtree_control: it has "
				"processes in it (cgroup v2 gives controllers only to the "
				"children of a cgroup without)",
				name, pdir);
		if (cgroup_write(pdir, "cgroup.subtree_control", ctl) < 0) {
			cell_err_set(e, errno,
				     "cgroup: enable %s in %s/cgroup.subtree_control (try "
				     "cgroup_parent)",
				     name, pdir);
			return cell_err_ref(e, PARAM_CGROUP_PARENT, "cgroup_parent");
		}
	}
	return 0;
}

/* Each directory made gets the controllers from its parent. */
static int enable_parent(const char *dir, const char *parent, void *want, struct cell_err *e)
{
	return enable_in(parent, *(unsigned int *)want, e);
}

/* A controller a setting needs and the jail's cgroup lacks (its parent
 * could not give it) fails the jail, naming it. */
static int check_enabled(const struct cgroup *cg, unsigned int need, struct cell_err *e)
{
	cleanup_free char *path = NULL;
	char have[512];

	if (asprintf(&path, "%s/cgroup.controllers", cg->path) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (proc_read_text(path, have, sizeof(have)) < 0)
		return cell_err_set(e, errno, "cgroup: read %s", path);
	have[strcspn(have, "\n")] = '\0';
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if ((need & 1U << c) && cgroup_ctrls[c].v2 != NULL &&
		    !cgroup_words_have(have, strlen(have), ' ', cgroup_ctrls[c].v2))
			return cell_err_set(e, ENOTSUP, "cgroup: no %s controller for %s",
					    cgroup_ctrls[c].v2, cg->path);
	return 0;
}

/* How many directories the jail's cgroup is below the delegated one
 * (DELEG/cell/LEAF: 2). */
static unsigned int deleg_depth(const struct cgroup *cg)
{
	unsigned int n = 0;

	for (const char *p = cg->path + strlen(cg->deleg); *p != '\0'; p++)
		n += *p == '/';
	return n;
}

/* Rootless: the controllers enabled from the delegated directory down
 * to the first directory cell makes (the rest, cgroup_make_dirs() as it
 * makes them): a "cell" directory made for an earlier jail has only
 * what that jail asked for. */
static int enable_down(const struct cgroup *cg, unsigned int want, unsigned int made,
		       struct cell_err *e)
{
	for (unsigned int k = cg->deleg != NULL ? deleg_depth(cg) : 0; k > made; k--) {
		cleanup_free char *dir = cgroup_up(cg->path, k);

		if (dir == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
		if (enable_in(dir, want, e) < 0)
			return -1;
	}
	return 0;
}

static int make_path(struct cgroup *cg, unsigned int want, struct cell_err *e)
{
	cleanup_free char *pdir = parent_dir(cg);
	unsigned int made = cg->path_made;

	if (pdir == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (enable_down(cg, want, made, e) < 0)
		return -1;
	/* A cgroup_path that was there: its parent enables them still. */
	if (made == 0 && cg->deleg == NULL && enable_in(pdir, want, e) < 0)
		return -1;
	if (cgroup_make_dirs(cg->path, &cg->path_made, enable_parent, &want, e) == 0)
		return 0;
	/* Rootless: the last other jail removed "cell" meanwhile. */
	if (e->errnum != ENOENT || cg->deleg == NULL || made != 1 || deleg_depth(cg) != 2)
		return -1;
	cg->path_made = 2;
	return cgroup_make_dirs(cg->path, &cg->path_made, enable_parent, &want, e);
}

static int make(struct cgroup *cg, unsigned int want, unsigned int need, struct cell_err *e)
{
	if (make_path(cg, want, e) < 0) {
		free(cg->path); /* not made: never removed */
		cg->path = NULL;
		return -1;
	}
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0)
		return cell_err_set(e, errno, "open cgroup %s", cg->path);
	return check_enabled(cg, need, e);
}

static int write_cpu_max(const char *dir, long long milli, struct cell_err *e)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%lld %lld", milli * CPU_PERIOD_US / 1000, CPU_PERIOD_US);
	if (cgroup_write(dir, "cpu.max", buf) < 0)
		return cgroup_limit_failed(PARAM_CPUS, dir, "cpu.max", e);
	return 0;
}

static int apply(const struct cgroup *cg, const struct jail_limits *l, bool skip_cpus,
		 struct cell_err *e)
{
	const char *dir = cg->path;

	if (l->nrtask >= 0 && cgroup_write_ll(dir, "pids.max", l->nrtask) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, dir, "pids.max", e);
	if (l->memory >= 0) {
		if (cgroup_write_ll(dir, "memory.max", l->memory) < 0)
			return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.max", e);
		if (cgroup_pin_swap(dir, "memory.swap.max", l->swap >= 0 ? l->swap : 0, l, e) < 0)
			return -1;
		/* An out-of-memory kill takes the whole jail, as on v1 a
		 * jail whose pid 1 is killed ends. */
		if (cgroup_file_exists(dir, "memory.oom.group"))
			cgroup_write(dir, "memory.oom.group", "1");
	}
	if (l->cpus_milli >= 0 && !skip_cpus && write_cpu_max(dir, l->cpus_milli, e) < 0)
		return -1;
	return 0;
}

static int write_res(const char *dir, const char *what, const char *file, const char *v,
		     struct cell_err *e)
{
	if (cgroup_write(dir, file, v) < 0)
		return cgroup_res_failed(what, dir, file, e);
	return 0;
}

static int write_res_ll(const char *dir, const char *what, const char *file, long long v,
			struct cell_err *e)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	return write_res(dir, what, file, buf, e);
}

/* cpu.max is "QUOTA PERIOD" in one write: a quota alone keeps the
 * period the cgroup has, a period alone keeps its quota ("max": none). */
static int cpu_bandwidth(const char *dir, const struct jail_resources *r, struct cell_err *e)
{
	cleanup_free char *path = NULL;
	char cur[64] = "max 100000", quota[32], buf[80];
	long long period = CPU_PERIOD_US;
	char *sp;

	if (asprintf(&path, "%s/cpu.max", dir) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (proc_read_text(path, cur, sizeof(cur)) < 0)
		return cell_err_set(e, errno, "cpu quota: read %s", path);
	sp = strchr(cur, ' ');
	if (sp != NULL) {
		*sp = '\0';
		period = strtoll(sp + 1, NULL, 10);
	}
	if (r->cpu_quota > 0)
		snprintf(quota, sizeof(quota), "%lld", r->cpu_quota);
	else
		snprintf(quota, sizeof(quota), "%s", cur);
	snprintf(buf, sizeof(buf), "%s %lld", quota, r->cpu_period > 0 ? r->cpu_period : period);
	return write_res(dir, r->cpu_quota > 0 ? "cpu quota" : "cpu period", "cpu.max", buf, e);
}

/* blkio weight 10..1000: BFQ's io.bfq.weight takes it as is; io.weight
 * (1..10000) the same place in its range, as runc converts it. */
static int io_weight(const char *dir, long long w, struct cell_err *e)
{
	if (cgroup_file_exists(dir, "io.bfq.weight"))
		return write_res_ll(dir, "blkio weight", "io.bfq.weight", w, e);
	if (cgroup_file_exists(dir, "io.weight"))
		return write_res_ll(dir, "blkio weight", "io.weight", 1 + (w - 10) * 9999 / 990, e);
	return cell_err_set(
		e, ENOTSUP,
		"blkio weight: the jail's cgroup %s has no io.weight (no io controller)", dir);
}

static int resources(const struct cgroup *cg, const struct jail_resources *r, struct cell_err *e)
{
	const char *dir = cg->path;

	if (r->cpu_shares > 0 &&
	    write_res_ll(dir, "cpu shares", "cpu.weight", cgroup_cpu_weight(r->cpu_shares), e) < 0)
		return -1;
	if ((r->cpu_quota > 0 || r->cpu_period > 0) && cpu_bandwidth(dir, r, e) < 0)
		return -1;
	if (r->cpuset_cpus != NULL &&
	    write_res(dir, "cpuset cpus", "cpuset.cpus", r->cpuset_cpus, e) < 0)
		return -1;
	if (r->cpuset_mems != NULL &&
	    write_res(dir, "cpuset mems", "cpuset.mems", r->cpuset_mems, e) < 0)
		return -1;
	if (r->memory_reservation > 0 &&
	    write_res_ll(dir, "memory reservation", "memory.low", r->memory_reservation, e) < 0)
		return -1;
	if (r->memory_swappiness >= 0)
		return cell_err_set(e, ENOTSUP, "memory swappiness: cgroup v2 has none");
	if (r->blkio_weight > 0 && io_weight(dir, r->blkio_weight, e) < 0)
		return -1;
	return cgroup_write_unified(dir, r->unified, r->nunified, e);
}

/* cell-oci update: each limit set, on its own (v2's memory.max and
 * memory.swap.max do not bound each other).  A memory.max below what
 * the jail uses makes the kernel reclaim, and kill if it cannot. */
static int set_limits(const struct cgroup *cg, const struct jail_limits *l, bool skip_cpus,
		      struct cell_err *e)
{
	const char *dir = cg->path;

	if (l->nrtask >= 0 && cgroup_write_ll(dir, "pids.max", l->nrtask) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, dir, "pids.max", e);
	if (l->memory >= 0 && cgroup_write_ll(dir, "memory.max", l->memory) < 0)
		return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.max", e);
	if (l->swap >= 0 && cgroup_pin_swap(dir, "memory.swap.max", l->swap, l, e) < 0)
		return -1;
	if (l->cpus_milli >= 0 && !skip_cpus && write_cpu_max(dir, l->cpus_milli, e) < 0)
		return -1;
	return 0;
}

/* --- the device program -------------------------------------------- */

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	return (struct bpf_insn){
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

/* The access bits of the program's context (BPF_DEVCG_ACC_*) of "rwm". */
static int access_bits(const char *access)
{
	int bits = 0;

	for (size_t i = 0; i < 3 && access[i] != '\0'; i++)
		bits |= access[i] == 'r'   ? BPF_DEVCG_ACC_READ
			: access[i] == 'w' ? BPF_DEVCG_ACC_WRITE
					   : BPF_DEVCG_ACC_MKNOD;
	return bits;
}

#define ACC_ALL (BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD)

/*
 * One rule: each test that fails jumps to the next rule (patched once
 * its start is known); a request that passes them all gets the rule's
 * verdict.  Registers: r2 the access asked, r3 the device type, r4 the
 * major, r5 the minor (loaded by the prologue); r0 scratch.
 */
static size_t emit_rule(const struct jail_device_rule *r, struct bpf_insn *p)
{
	const uint8_t jne = BPF_JMP | BPF_JNE | BPF_K, jeq = BPF_JMP | BPF_JEQ | BPF_K;
	int acc = access_bits(r->access);
	size_t n = 0;

	if (r->type != 'a') {
		p[n++] = insn(jne, BPF_REG_3, 0, 0,
			      r->type == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK);
		if (r->major >= 0)
			p[n++] = insn(jne, BPF_REG_4, 0, 0, r->major);
		if (r->minor >= 0)
			p[n++] = insn(jne, BPF_REG_5, 0, 0, r->minor);
	}
	if (acc != ACC_ALL) {
		/* allow: nothing asked beyond ACC; deny: anything in ACC. */
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_2, 0, 0);
		p[n++] = insn(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_0, 0, 0,
			      r->allow ? ACC_ALL & ~acc : acc);
		p[n++] = insn(r->allow ? jne : jeq, BPF_REG_0, 0, 0, 0);
	}
	/* Every jump so far skips to after the exit below (the off field
	 * of the others must stay 0: it would change their meaning). */
	for (size_t i = 0; i < n; i++)
		if (BPF_CLASS(p[i].code) == BPF_JMP)
			p[i].off = (int16_t)(n + 1 - i);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, r->allow ? 1 : 0);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

size_t cgroup_v2_device_program(const struct jail_device_rule *r, size_t n, struct bpf_insn *out)
{
	const uint8_t ldxw = BPF_LDX | BPF_MEM | BPF_W;
	size_t len = 0, first = 0;

	/* r2 = ctx->access_type: the access in the high half, the device
	 * type in the low; r4 = ctx->major; r5 = ctx->minor. */
	out[len++] = insn(ldxw, BPF_REG_2, BPF_REG_1, 0, 0);
	out[len++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_2, 0, 0);
	out[len++] = insn(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_3, 0, 0, 0xffff);
	out[len++] = insn(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_2, 0, 0, 16);
	out[len++] = insn(ldxw, BPF_REG_4, BPF_REG_1, 4, 0);
	out[len++] = insn(ldxw, BPF_REG_5, BPF_REG_1, 8, 0);
	/* A rule of type 'a' matches every device: none before it (all
	 * access, or all of the access it names) can decide. */
	for (size_t i = 0; i < n; i++)
		if (r[i].type == 'a' && access_bits(r[i].access) == ACC_ALL)
			first = i;
	for (size_t i = n; i-- > first;)
		len += emit_rule(&r[i], out + len);
	/* No rule matched: deny.  Unless the last one emitted matches every
	 * request (an OCI config's "deny all" first): the verifier of
	 * kernels before 6.x rejects the unreachable tail. */
	if (n > 0 && r[first].type == 'a' && access_bits(r[first].access) == ACC_ALL)
		return len;
	out[len++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	out[len++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return len;
}

static int bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* Loads the program and attaches it to the jail's directory.  With
 * BPF_F_ALLOW_MULTI the programs of the ancestors still run too: a
 * device must pass them all.  The attachment holds the program: its fd
 * is closed, and it goes with the cgroup. */
static int devices(const struct cgroup *cg, const struct jail_device_rule *r, size_t n,
		   struct cell_err *e)
{
	cleanup_free struct bpf_insn *prog = calloc(CGROUP_DEV_PROG_MAX(n), sizeof(*prog));
	cleanup_close int fd = -1;
	union bpf_attr attr;
	size_t len;

	if (prog == NULL)
		return cell_err_set(e, ENOMEM, "devices");
	len = cgroup_v2_device_program(r, n, prog);
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uint64_t)(uintptr_t)prog;
	attr.insn_cnt = (uint32_t)len;
	attr.license = (uint64_t)(uintptr_t) "GPL";
	fd = bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		return cell_err_set(e, errno, "devices: load the device program of %s", cg->path);
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cg->fd;
	attr.attach_bpf_fd = (uint32_t)fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	if (bpf(BPF_PROG_ATTACH, &attr) < 0)
		return cell_err_set(e, errno, "devices: attach the device program to %s", cg->path);
	return 0;
}

/* --- limits of a running jail -------------------------------------- */

static int update(const struct cgroup *cg, const struct jail_limits *old,
		  const struct jail_limits *new, struct cell_err *e)
{
	const char *dir = cg->path;

	/* A limit unset ("max" in set) is written as "max". */
	if (new->nrtask != old->nrtask &&
	    (new->nrtask < 0 ? cgroup_write(dir, "pids.max", "max")
			     : cgroup_write_ll(dir, "pids.max", new->nrtask)) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, dir, "pids.max", e);
	if ((new->memory != old->memory || new->swap != old->swap) && new->memory < 0) {
		if (cgroup_write(dir, "memory.max", "max") < 0)
			return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.max", e);
		if (cgroup_file_exists(dir, "memory.swap.max") &&
		    cgroup_write(dir, "memory.swap.max", "max") < 0)
			return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.swap.max", e);
	} else if (new->memory != old->memory || new->swap != old->swap) {
		if (cgroup_write_ll(dir, "memory.max", new->memory) < 0)
			return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.max", e);
		if (cgroup_pin_swap(dir, "memory.swap.max", new->swap >= 0 ? new->swap : 0, new,
				    e) < 0)
			return -1;
	}
	if (new->cpus_milli != old->cpus_milli &&new->cpus_milli < 0 &&
	    cgroup_write(dir, "cpu.max", "max") < 0)
		return cgroup_limit_failed(PARAM_CPUS, dir, "cpu.max", e);
	if (new->cpus_milli != old->cpus_milli &&new->cpus_milli >= 0 &&
	    write_cpu_max(dir, new->cpus_milli, e) < 0)
		return -1;
	return 0;
}

/* The directory, when controller C is enabled for it (cgroup.controllers
 * lists it; the freezer and the device program are always there). */
static const char *ctrl_dir(const struct cgroup *cg, enum cgroup_ctrl c)
{
	cleanup_free char *path = NULL;
	char have[512];

	if (cg->path == NULL || cgroup_ctrls[c].v2 == NULL)
		return cg->path;
	if (asprintf(&path, "%s/cgroup.controllers", cg->path) < 0 ||
	    proc_read_text(path, have, sizeof(have)) < 0)
		return NULL;
	have[strcspn(have, "\n")] = '\0';
	return cgroup_words_have(have, strlen(have), ' ', cgroup_ctrls[c].v2) ? cg->path : NULL;
}

static int enable(const struct cgroup *cg, unsigned int want, struct cell_err *e)
{
	cleanup_free char *pdir = parent_dir(cg);

	if (pdir == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (enable_down(cg, want, 1, e) < 0)
		return -1;
	return enable_in(pdir, want, e);
}

static void unset(const struct cgroup *cg, unsigned int ctrls)
{
	if (ctrls & 1U << CGROUP_PIDS)
		cgroup_write(cg->path, "pids.max", "max");
	if (ctrls & 1U << CGROUP_MEMORY)
		cgroup_write(cg->path, "memory.max", "max");
	if (ctrls & 1U << CGROUP_CPU)
		cgroup_write(cg->path, "cpu.max", "max 100000");
}

/* Cloned straight into its cgroup: nothing to move. */
static int add_pid(const struct cgroup *cg, pid_t pid, struct cell_err *e)
{
	return 0;
}

static int freeze(const struct cgroup *cg, struct cell_err *e)
{
	if (cgroup_write(cg->path, "cgroup.freeze", "1") < 0)
		return cell_err_set(e, errno, "freeze: write %s/cgroup.freeze", cg->path);
	if (cgroup_wait_file(cg->path, "cgroup.events", "frozen", "1", FREEZE_WAIT_MS) < 0)
		return cell_err_set(e, errno, "freeze %s", cg->path);
	return 0;
}

static int thaw(const struct cgroup *cg, struct cell_err *e)
{
	if (cgroup_write(cg->path, "cgroup.freeze", "0") < 0)
		return cell_err_set(e, errno, "thaw: write %s/cgroup.freeze", cg->path);
	return 0;
}

static bool frozen(const struct cgroup *cg)
{
	cleanup_free char *path = NULL;
	char buf[16];

	if (cg->path == NULL || asprintf(&path, "%s/cgroup.freeze", cg->path) < 0)
		return false;
	return proc_read_text(path, buf, sizeof(buf)) == 0 && buf[0] == '1';
}

/* Every process of the tree, at once, frozen or not (Linux 5.14; before,
 * the end of the jail's pid namespace does it). */
static int kill_all(const struct cgroup *cg, struct cell_err *e)
{
	if (cgroup_write(cg->path, "cgroup.kill", "1") < 0)
		return cell_err_set(e, errno, "kill: write %s/cgroup.kill", cg->path);
	return 0;
}

static void usage(const struct cgroup *cg, struct cgroup_usage *u)
{
	cleanup_free char *path = NULL;
	char buf[2048];

	if (cg->path == NULL)
		return;
	u->tasks = cgroup_read_number(cg->path, "pids.current");
	u->memory = cgroup_read_number(cg->path, "memory.current");
	u->memory_peak = cgroup_read_number(cg->path, "memory.peak");
	if (asprintf(&path, "%s/cpu.stat", cg->path) < 0 ||
	    proc_read_text(path, buf, sizeof(buf)) < 0)
		return;
	for (char *line = buf; line != NULL;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, "usage_usec ", 11) == 0)
			u->cpu_usec = strtoll(line + 11, NULL, 10);
}

/* A fresh cgroup2, whose root in the jail's cgroup namespace is the
 * jail's cgroup, attached on DEST (-1: at TARGET, the jail CLI's). */
static int mount_jail(const struct cgroup *cg, int dest, const char *target, bool ro,
		      struct cell_err *e)
{
	const unsigned int attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
				   (ro ? MOUNT_ATTR_RDONLY : 0);
	cleanup_close int fs = -1;
	cleanup_close int mnt = -1;

	if (dest < 0) {
		/* The jail CLI's place, in its fresh sysfs: by path. */
		if (mount("cgroup2", target, "cgroup2",
			  MS_NOSUID | MS_NODEV | MS_NOEXEC | (ro ? MS_RDONLY : 0), NULL) < 0)
			return cell_err_set(e, errno, "mount cgroup2 on %s", target);
		return 0;
	}
	fs = fsopen("cgroup2", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "source", "cgroup2", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs)) < 0 ||
	    move_mount(mnt, "", dest, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "mount cgroup2 on %s", target);
	return 0;
}

static int to_json(const struct cgroup *cg, json_t *j)
{
	if (json_object_set_new(j, "path", json_string(cg->path)) < 0)
		return -1;
	if (cg->deleg != NULL && json_object_set_new(j, "delegated", json_string(cg->deleg)) < 0)
		return -1;
	return cg->path_made == 1 ? 0 : json_object_set_new(j, "made", json_integer(cg->path_made));
}

/* A record's delegated directory: the jail's cgroup must be beneath it
 * (a record edited to name another would make cell enable controllers
 * there). */
static int deleg_from_json(struct cgroup *cg, const json_t *v, struct cell_err *e)
{
	const char *d = json_string_value(v);
	size_t n = d != NULL ? strlen(d) : 0;

	if (v == NULL)
		return 0;
	if (d == NULL || n == 0 || strncmp(cg->path, d, n) != 0 || cg->path[n] != '/')
		return cell_err_set(e, EINVAL, "cgroup: delegated: not a directory above its path");
	cg->deleg = strdup(d);
	return cg->deleg != NULL ? 0 : cell_err_set(e, ENOMEM, "cgroup");
}

static int from_json(struct cgroup *cg, const json_t *j, struct cell_err *e)
{
	const json_t *v = json_object_get(j, "path");

	if (v == NULL)
		return 0;
	if (!json_is_string(v))
		return cell_err_set(e, EINVAL, "cgroup: path: not a path");
	cg->path = strdup(json_string_value(v));
	if (cg->path == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (deleg_from_json(cg, json_object_get(j, "delegated"), e) < 0)
		return -1;
	return cgroup_made_from_json(json_object_get(j, "made"), &cg->path_made, e);
}

const struct cgroup_ops cgroup_v2_ops = {
	.plan = plan,
	.make = make,
	.apply = apply,
	.resources = resources,
	.set_limits = set_limits,
	.devices = devices,
	.update = update,
	.ctrl_dir = ctrl_dir,
	.enable = enable,
	.unset = unset,
	.add_pid = add_pid,
	.freeze = freeze,
	.thaw = thaw,
	.kill = kill_all,
	.frozen = frozen,
	.usage = usage,
	.mount_jail = mount_jail,
	.to_json = to_json,
	.from_json = from_json,
};
