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

static int plan(struct cgroup *cg, const char *own_text, unsigned int want, const char *cgparent,
		const char *leaf, struct cgroup *from, struct cell_err *e)
{
	cleanup_free char *own = NULL, *parent = NULL, *pdir = NULL;

	own = cgroup_parse_own(own_text, NULL);
	if (own == NULL)
		return cell_err_set(e, ENOENT, "cgroup: no unified cgroup in /proc/PID/cgroup");
	parent = cgroup_parent_path(cgparent, own);
	pdir = parent ? cgroup_join(CGROUP_FS, "/", parent) : NULL;
	if (pdir == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (access(pdir, F_OK) < 0)
		return cgparent != NULL
			       ? cell_err_param(e, PARAM_CGROUP_PARENT, 0, errno, "%s", pdir)
			       : cell_err_set(e, errno, "cgroup %s", pdir);
	if (asprintf(&cg->path, "%s/%s", pdir, leaf) < 0) {
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
	cleanup_free char *path = NULL;
	char have[512], ctl[64];

	if (asprintf(&path, "%s/cgroup.subtree_control", pdir) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (proc_read_text(path, have, sizeof(have)) < 0)
		return cell_err_set(e, errno, "cgroup: read %s", path);
	have[strcspn(have, "\n")] = '\0';
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		const char *name = cgroup_ctrls[c].v2;

		if (!(want & 1U << c) || name == NULL ||
		    cgroup_words_have(have, strlen(have), ' ', name))
			continue;
		snprintf(ctl, sizeof(ctl), "+%s", name);
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

static int make(struct cgroup *cg, unsigned int want, struct cell_err *e)
{
	cleanup_free char *pdir = parent_dir(cg);

	if (pdir == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (enable_in(pdir, want, e) < 0 || cgroup_make_dir(cg->path, e) < 0) {
		free(cg->path); /* not made: never removed */
		cg->path = NULL;
		return -1;
	}
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0)
		return cell_err_set(e, errno, "open cgroup %s", cg->path);
	return 0;
}

static int write_cpu_max(const char *dir, long long milli, struct cell_err *e)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%lld %lld", milli * CPU_PERIOD_US / 1000, CPU_PERIOD_US);
	if (cgroup_write(dir, "cpu.max", buf) < 0)
		return cgroup_limit_failed(PARAM_CPUS, dir, "cpu.max", e);
	return 0;
}

static int apply(const struct cgroup *cg, const struct jail_limits *l, struct cell_err *e)
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
	if (l->cpus_milli >= 0 && write_cpu_max(dir, l->cpus_milli, e) < 0)
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

	if (new->nrtask != old->nrtask && cgroup_write_ll(dir, "pids.max", new->nrtask) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, dir, "pids.max", e);
	if (new->memory != old->memory || new->swap != old->swap) {
		if (cgroup_write_ll(dir, "memory.max", new->memory) < 0)
			return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.max", e);
		if (cgroup_pin_swap(dir, "memory.swap.max", new->swap >= 0 ? new->swap : 0, new,
				    e) < 0)
			return -1;
	}
	if (new->cpus_milli != old->cpus_milli && write_cpu_max(dir, new->cpus_milli, e) < 0)
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

static int mount_jail(const struct cgroup *cg, struct cell_err *e)
{
	const unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (mount("cgroup2", CGROUP_FS, "cgroup2", ro, NULL) < 0)
		return cell_err_set(e, errno, "mount cgroup2 on %s", CGROUP_FS);
	return 0;
}

static int to_json(const struct cgroup *cg, json_t *j)
{
	return json_object_set_new(j, "path", json_string(cg->path));
}

static int from_json(struct cgroup *cg, const json_t *j, struct cell_err *e)
{
	const json_t *v = json_object_get(j, "path");

	if (v == NULL)
		return 0;
	if (!json_is_string(v))
		return cell_err_set(e, EINVAL, "cgroup: path: not a path");
	cg->path = strdup(json_string_value(v));
	return cg->path == NULL ? cell_err_set(e, ENOMEM, "cgroup") : 0;
}

const struct cgroup_ops cgroup_v2_ops = {
	.plan = plan,
	.make = make,
	.apply = apply,
	.devices = devices,
	.update = update,
	.ctrl_dir = ctrl_dir,
	.enable = enable,
	.unset = unset,
	.add_pid = add_pid,
	.freeze = freeze,
	.thaw = thaw,
	.kill = kill_all,
	.usage = usage,
	.mount_jail = mount_jail,
	.to_json = to_json,
	.from_json = from_json,
};
