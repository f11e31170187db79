/* Unit tests of cgroup.c's parsers: /proc/self/cgroup, mountinfo, paths;
 * of the controller table; of the device rules as each backend writes
 * them (v1 lines, the v2 eBPF program, run here by a small interpreter
 * and, as root, by the kernel's verifier); and of the state record's
 * round trip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup.h"
#include "cgroup_backend.h"
#include "devices.h"
#include "param.h"

/* A hybrid host like the build machine: v1 controllers, cgroup2 at
 * /sys/fs/cgroup/unified, the memory cgroup of cell somewhere deep. */
static const char hybrid_cgroup[] = "9:name=systemd:/\n"
				    "8:pids:/\n"
				    "4:memory:/process_api/abc\n"
				    "2:cpu,cpuacct:/user.slice\n"
				    "0::/\n";

static const char hybrid_mounts[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
	"39 31 0:36 /docker/x /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	"42 31 0:39 / /mnt/with\\040space rw - cgroup cgroup rw,freezer\n";

static void own_cgroup_by_controller(void **state)
{
	char *p;

	p = cgroup_parse_own(hybrid_cgroup, "memory");
	assert_string_equal(p, "/process_api/abc");
	free(p);
	/* A controller sharing its hierarchy is found by either name. */
	p = cgroup_parse_own(hybrid_cgroup, "cpuacct");
	assert_string_equal(p, "/user.slice");
	free(p);
	p = cgroup_parse_own(hybrid_cgroup, "cpu");
	assert_string_equal(p, "/user.slice");
	free(p);
	/* NULL asks for the unified hierarchy's line, "0::". */
	p = cgroup_parse_own(hybrid_cgroup, NULL);
	assert_string_equal(p, "/");
	free(p);
	assert_null(cgroup_parse_own(hybrid_cgroup, "blkio"));
	/* "name=systemd" is not the "systemd" controller's prefix match. */
	assert_null(cgroup_parse_own(hybrid_cgroup, "name"));
}

static void own_cgroup_without_trailing_newline(void **state)
{
	char *p = cgroup_parse_own("0::/user.slice/session-1.scope", NULL);

	assert_string_equal(p, "/user.slice/session-1.scope");
	free(p);
	assert_null(cgroup_parse_own("", NULL));
	assert_null(cgroup_parse_own("garbage", "pids"));
}

static void v1_mount_of_a_controller(void **state)
{
	char *mnt = NULL, *root = NULL, *ctrls = NULL;

	assert_int_equal(cgroup_parse_v1_mount(hybrid_mounts, "cpuacct", &mnt, &root, &ctrls), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(root, "/");
	assert_string_equal(ctrls, "cpu,cpuacct");
	free(mnt), free(root), free(ctrls);

	/* Optional fields ("shared:9") before the separator are skipped. */
	assert_int_equal(cgroup_parse_v1_mount(hybrid_mounts, "memory", &mnt, &root, &ctrls), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/memory");
	assert_string_equal(ctrls, "memory");
	free(mnt), free(root), free(ctrls);

	assert_int_equal(cgroup_parse_v1_mount(hybrid_mounts, "pids", &mnt, &root, &ctrls), 0);
	assert_string_equal(root, "/docker/x");
	free(mnt), free(root), free(ctrls);

	/* Octal escapes in the mount point are undone. */
	assert_int_equal(cgroup_parse_v1_mount(hybrid_mounts, "freezer", &mnt, &root, &ctrls), 0);
	assert_string_equal(mnt, "/mnt/with space");
	free(mnt), free(root), free(ctrls);
}

static void v1_mount_ignores_cgroup2_and_named_hierarchies(void **state)
{
	char *mnt = NULL, *root = NULL, *ctrls = NULL;

	/* cgroup2 at /sys/fs/cgroup/unified is not a v1 hierarchy. */
	assert_int_equal(cgroup_parse_v1_mount(hybrid_mounts, "hugetlb", &mnt, &root, &ctrls), -1);
	assert_int_equal(cgroup_parse_v1_mount(hybrid_mounts, "systemd", &mnt, &root, &ctrls), -1);
	assert_int_equal(cgroup_parse_v1_mount("", "pids", &mnt, &root, &ctrls), -1);
	assert_int_equal(
		cgroup_parse_v1_mount("short line - cgroup\n", "pids", &mnt, &root, &ctrls), -1);
}

static void join_paths(void **state)
{
	char *p;

	p = cgroup_join("/sys/fs/cgroup/memory", "/", "/process_api/abc");
	assert_string_equal(p, "/sys/fs/cgroup/memory/process_api/abc");
	free(p);
	p = cgroup_join("/sys/fs/cgroup/pids", "/", "/");
	assert_string_equal(p, "/sys/fs/cgroup/pids");
	free(p);
	/* A hierarchy mounted from a sub-cgroup shows paths beneath it. */
	p = cgroup_join("/sys/fs/cgroup/pids", "/docker/x", "/docker/x/sub");
	assert_string_equal(p, "/sys/fs/cgroup/pids/sub");
	free(p);
	p = cgroup_join("/sys/fs/cgroup/pids", "/docker/x", "/docker/x");
	assert_string_equal(p, "/sys/fs/cgroup/pids");
	free(p);
	/* ... and nothing outside it, not even a sibling sharing a prefix. */
	assert_null(cgroup_join("/sys/fs/cgroup/pids", "/docker/x", "/docker/xy"));
	assert_null(cgroup_join("/sys/fs/cgroup/pids", "/docker/x", "/other"));
}

static void state_round_trip(void **state)
{
	struct cgroup cg, back;
	struct cell_err e;
	json_t *j;

	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_PIDS] = strdup("/sys/fs/cgroup/pids/cell-a");
	cg.dir[CGROUP_MEMORY] = strdup("/sys/fs/cgroup/memory/cell-a");
	j = cgroup_to_json(&cg);
	assert_non_null(j);
	assert_int_equal(cgroup_from_json(&back, j, &e), 0);
	assert_int_equal(back.layout, CGROUP_V1);
	assert_string_equal(back.dir[CGROUP_PIDS], cg.dir[CGROUP_PIDS]);
	assert_string_equal(back.dir[CGROUP_MEMORY], cg.dir[CGROUP_MEMORY]);
	assert_null(back.dir[CGROUP_CPU]);
	json_decref(j);
	cgroup_release(&back);
	cgroup_release(&cg);

	/* No cgroup: no record, and no record reads back as none. */
	assert_null(cgroup_to_json(&cg));
	assert_int_equal(cgroup_from_json(&back, NULL, &e), 0);
	assert_int_equal(back.layout, CGROUP_NONE);

	j = json_pack("{s:s}", "layout", "v3");
	assert_int_equal(cgroup_from_json(&back, j, &e), -1);
	json_decref(j);
}

static void wanted_only_for_cgroup_limits(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_false(cgroup_wanted(&s));
	/* rlimits need no cgroup. */
	assert_int_equal(param_set(&s, "cpu_time", "5", NULL, &e), 0);
	assert_int_equal(param_set(&s, "nice", "3", NULL, &e), 0);
	assert_false(cgroup_wanted(&s));
	assert_int_equal(param_set(&s, "nrtask", "5", NULL, &e), 0);
	assert_true(cgroup_wanted(&s));
	spec_free(&s);
}

static void state_of_new_controllers_round_trips(void **state)
{
	struct cgroup cg, back;
	struct cell_err e;
	json_t *j;

	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_DEVICES] = strdup("/sys/fs/cgroup/devices/cell-a");
	cg.dir[CGROUP_FREEZER] = strdup("/sys/fs/cgroup/freezer/cell-a");
	j = cgroup_to_json(&cg);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "devices")),
			    "/sys/fs/cgroup/devices/cell-a");
	assert_string_equal(json_string_value(json_object_get(j, "freezer")),
			    "/sys/fs/cgroup/freezer/cell-a");
	assert_int_equal(cgroup_from_json(&back, j, &e), 0);
	assert_string_equal(back.dir[CGROUP_DEVICES], cg.dir[CGROUP_DEVICES]);
	assert_string_equal(back.dir[CGROUP_FREEZER], cg.dir[CGROUP_FREEZER]);
	assert_null(back.dir[CGROUP_PIDS]);
	json_decref(j);
	cgroup_release(&back);
	cgroup_release(&cg);

	/* v2: one path. */
	j = json_pack("{s:s, s:s}", "layout", "v2", "path", "/sys/fs/cgroup/cell-a");
	assert_int_equal(cgroup_from_json(&back, j, &e), 0);
	assert_int_equal(back.layout, CGROUP_V2);
	assert_string_equal(back.path, "/sys/fs/cgroup/cell-a");
	json_decref(j);
	j = cgroup_to_json(&back);
	assert_string_equal(json_string_value(json_object_get(j, "path")), "/sys/fs/cgroup/cell-a");
	json_decref(j);
	cgroup_release(&back);

	/* A controller's directory that is not a string is refused. */
	j = json_pack("{s:s, s:i}", "layout", "v1", "freezer", 3);
	assert_int_equal(cgroup_from_json(&back, j, &e), -1);
	json_decref(j);
}

static void a_record_of_before_devices_and_freezer_loads(void **state)
{
	struct cgroup back;
	struct cell_err e;
	json_t *j = json_pack(
		"{s:s, s:s, s:s, s:s}", "layout", "v1", "pids", "/sys/fs/cgroup/pids/cell-old",
		"memory", "/sys/fs/cgroup/memory/cell-old", "cpu", "/sys/fs/cgroup/cpu/cell-old");

	assert_int_equal(cgroup_from_json(&back, j, &e), 0);
	assert_string_equal(back.dir[CGROUP_PIDS], "/sys/fs/cgroup/pids/cell-old");
	assert_string_equal(back.dir[CGROUP_CPU], "/sys/fs/cgroup/cpu/cell-old");
	assert_null(back.dir[CGROUP_DEVICES]);
	assert_null(back.dir[CGROUP_FREEZER]);
	/* Without a freezer the jail cannot be frozen: an error, not a crash. */
	assert_int_equal(cgroup_freeze(&back, &e), -1);
	cgroup_release(&back);
	json_decref(j);
}

static void controller_table_names_each_controller_once(void **state)
{
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		assert_non_null(cgroup_ctrls[c].name);
		assert_non_null(cgroup_ctrls[c].v1);
		assert_int_not_equal(cgroup_ctrls[c].needs, 0);
		for (int d = 0; d < c; d++)
			assert_string_not_equal(cgroup_ctrls[c].name, cgroup_ctrls[d].name);
	}
	assert_string_equal(cgroup_ctrls[CGROUP_PIDS].name, "pids");
	assert_string_equal(cgroup_ctrls[CGROUP_DEVICES].v1, "devices");
	/* On v2 the freezer (cgroup.freeze) and the device program are
	 * no controllers to enable. */
	assert_null(cgroup_ctrls[CGROUP_DEVICES].v2);
	assert_null(cgroup_ctrls[CGROUP_FREEZER].v2);
	assert_string_equal(cgroup_ctrls[CGROUP_MEMORY].v2, "memory");
}

static void controllers_are_those_the_spec_needs_and_a_freezer(void **state)
{
	const unsigned int f = 1U << CGROUP_FREEZER;

	assert_int_equal(cgroup_ctrls_for(0), 0);
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_NRTASK), 1U << CGROUP_PIDS | f);
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_MEMORY), 1U << CGROUP_MEMORY | f);
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_CPUS), 1U << CGROUP_CPU | f);
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_DEVICES), 1U << CGROUP_DEVICES | f);
	/* A bare --cgroup-parent: a pids cgroup, so that the jail is there. */
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_PARENT), 1U << CGROUP_PIDS | f);
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_NRTASK | CGROUP_NEEDS_DEVICES),
			 1U << CGROUP_PIDS | 1U << CGROUP_DEVICES | f);
}

static void the_standard_set_goes_only_to_a_jail_that_could_reach_devices(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(devices_add_standard(&s, &e), 0);
	assert_int_equal(s.ndevices, 0); /* the embedded root, no binds */
	assert_false(cgroup_wanted(&s));
	s.rootfs = strdup("/srv/root");
	assert_int_equal(devices_add_standard(&s, &e), 0);
	assert_int_equal(s.ndevices, devices_nstandard);
	assert_true(cgroup_wanted(&s));
	/* Once: a second call adds nothing. */
	assert_int_equal(devices_add_standard(&s, &e), 0);
	assert_int_equal(s.ndevices, devices_nstandard);
	spec_free(&s);

	spec_init(&s);
	assert_int_equal(param_set(&s, "bind", "/srv:/srv", NULL, &e), 0);
	assert_int_equal(devices_add_standard(&s, &e), 0);
	assert_int_equal(s.ndevices, devices_nstandard);
	spec_free(&s);
}

static void device_rules_are_checked(void **state)
{
	struct jail_spec s;
	struct cell_err e;
	const struct jail_device_rule bad[] = {
		{true, 'x', 1, 3, "rwm"}, {true, 'c', 4096, 0, "r"}, {true, 'c', 1, -2, "r"},
		{true, 'c', 1, 3, ""},	  {true, 'c', 1, 3, "rx"},   {true, 'c', 1, 3, "rr"},
	};
	const struct jail_device_rule ok = {false, 'b', -1, -1, "mw"};

	spec_init(&s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(spec_add_device_rule(&s, &bad[i], &e), -1);
	assert_int_equal(s.ndevices, 0);
	assert_int_equal(spec_add_device_rule(&s, &ok, &e), 0);
	assert_int_equal(s.ndevices, 1);
	assert_string_equal(s.devices[0].access, "mw");
	spec_free(&s);
}

static void v1_device_lines(void **state)
{
	char line[64];
	const struct {
		struct jail_device_rule r;
		const char *want;
	} cases[] = {
		{{true, 'c', 1, 3, "rwm"}, "c 1:3 rwm"},
		{{true, 'c', 136, -1, "rwm"}, "c 136:* rwm"},
		{{false, 'b', -1, -1, "r"}, "b *:* r"},
		{{true, 'b', 7, 0, "mw"}, "b 7:0 mw"},
		/* Numbers mean nothing to "all devices". */
		{{false, 'a', 1, 3, "rwm"}, "a *:* rwm"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(cgroup_v1_device_line(&cases[i].r, line, sizeof(line)), 0);
		assert_string_equal(line, cases[i].want);
	}
	assert_int_equal(cgroup_v1_device_line(&cases[0].r, line, 5), -1);
}

/*
 * Runs a device program as the kernel would, for the instructions the
 * generator uses (anything else fails the test): CTX is struct
 * bpf_cgroup_dev_ctx { access_type, major, minor }.
 */
static int run_program(const struct bpf_insn *p, size_t n, uint32_t type, uint32_t access,
		       uint32_t major, uint32_t minor)
{
	uint32_t ctx[3] = {access << 16 | type, major, minor};
	uint64_t r[11] = {0};

	for (size_t pc = 0; pc < n; pc++) {
		const struct bpf_insn *i = &p[pc];
		uint64_t imm = (uint64_t)(int64_t)i->imm;

		switch (i->code) {
		case BPF_LDX | BPF_MEM | BPF_W:
			assert_int_equal(i->src_reg, BPF_REG_1);
			assert_true(i->off >= 0 && i->off <= 8 && i->off % 4 == 0);
			r[i->dst_reg] = ctx[i->off / 4];
			break;
		case BPF_ALU64 | BPF_MOV | BPF_X:
			assert_int_equal(i->off, 0);
			r[i->dst_reg] = r[i->src_reg];
			break;
		case BPF_ALU64 | BPF_MOV | BPF_K:
			assert_int_equal(i->off, 0);
			r[i->dst_reg] = imm;
			break;
		case BPF_ALU64 | BPF_AND | BPF_K:
			assert_int_equal(i->off, 0);
			r[i->dst_reg] &= imm;
			break;
		case BPF_ALU64 | BPF_RSH | BPF_K:
			assert_int_equal(i->off, 0);
			r[i->dst_reg] >>= imm;
			break;
		case BPF_JMP | BPF_JNE | BPF_K:
			if (r[i->dst_reg] != imm)
				pc += (size_t)i->off;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			if (r[i->dst_reg] == imm)
				pc += (size_t)i->off;
			break;
		case BPF_JMP | BPF_EXIT:
			return (int)r[0];
		default:
			fail_msg("instruction %zu: code 0x%x", pc, i->code);
		}
		assert_true(pc < n);
	}
	fail_msg("the program runs off its end");
	return -1;
}

#define C BPF_DEVCG_DEV_CHAR
#define B BPF_DEVCG_DEV_BLOCK
#define R BPF_DEVCG_ACC_READ
#define W BPF_DEVCG_ACC_WRITE
#define M BPF_DEVCG_ACC_MKNOD

static void v2_program_allows_exactly_the_standard_set(void **state)
{
	struct bpf_insn p[CGROUP_DEV_PROG_MAX(16)];
	size_t n = cgroup_v2_device_program(devices_standard, devices_nstandard, p);

	assert_true(n <= CGROUP_DEV_PROG_MAX(devices_nstandard));
	assert_int_equal(run_program(p, n, C, R | W, 1, 3), 1);	   /* null */
	assert_int_equal(run_program(p, n, C, M, 1, 3), 1);	   /* rootfs.c's mknod */
	assert_int_equal(run_program(p, n, C, R, 1, 9), 1);	   /* urandom */
	assert_int_equal(run_program(p, n, C, R | W, 5, 2), 1);	   /* ptmx */
	assert_int_equal(run_program(p, n, C, R | W, 136, 7), 1);  /* pts/7 */
	assert_int_equal(run_program(p, n, C, R | W, 10, 237), 0); /* loop-control */
	assert_int_equal(run_program(p, n, C, R | W, 1, 11), 0);   /* kmsg */
	assert_int_equal(run_program(p, n, C, W, 5, 1), 0);	   /* the host's console */
	assert_int_equal(run_program(p, n, C, R, 1, 1), 0);	   /* mem */
	assert_int_equal(run_program(p, n, B, R | W, 7, 0), 0);	   /* loop0 */
	assert_int_equal(run_program(p, n, B, R, 1, 3), 0);	   /* a block 1:3 */
	assert_int_equal(run_program(p, n, C, R, 137, 0), 0);
}

static void v2_program_lets_the_last_matching_rule_decide(void **state)
{
	const struct jail_device_rule rules[] = {
		{true, 'c', 1, 3, "rwm"},
		{false, 'c', 1, 3, "w"},
		{true, 'c', 1, 5, "r"},
	};
	struct bpf_insn p[CGROUP_DEV_PROG_MAX(3)];
	size_t n = cgroup_v2_device_program(rules, 3, p);

	assert_int_equal(run_program(p, n, C, R, 1, 3), 1);
	assert_int_equal(run_program(p, n, C, W, 1, 3), 0);
	/* A deny rule takes a request that asks any access it names. */
	assert_int_equal(run_program(p, n, C, R | W, 1, 3), 0);
	/* An allow rule takes only a request it grants whole. */
	assert_int_equal(run_program(p, n, C, R, 1, 5), 1);
	assert_int_equal(run_program(p, n, C, R | W, 1, 5), 0);
	assert_int_equal(run_program(p, n, C, M, 1, 5), 0);
}

static void v2_program_after_an_all_devices_rule(void **state)
{
	const struct jail_device_rule rules[] = {
		{true, 'c', 1, 3, "rwm"},
		{true, 'a', -1, -1, "rwm"},
		{false, 'b', -1, -1, "rwm"},
		{false, 'c', 10, -1, "w"},
	};
	struct bpf_insn p[CGROUP_DEV_PROG_MAX(4)], q[CGROUP_DEV_PROG_MAX(3)];
	size_t n = cgroup_v2_device_program(rules, 4, p);

	assert_int_equal(run_program(p, n, C, R | W, 4, 1), 1);
	assert_int_equal(run_program(p, n, B, R, 8, 0), 0);
	assert_int_equal(run_program(p, n, C, R, 10, 237), 1);
	assert_int_equal(run_program(p, n, C, W, 10, 237), 0);
	/* The rule before "a" can never decide: left out. */
	assert_int_equal(n, cgroup_v2_device_program(rules + 1, 3, q));
	/* No rules: nothing is allowed. */
	n = cgroup_v2_device_program(rules, 0, p);
	assert_int_equal(run_program(p, n, C, R, 1, 3), 0);
}

static void v2_program_has_no_unreachable_tail_after_a_deny_all_rule(void **state)
{
	/* An OCI config's device list: deny everything, then allow some. */
	const struct jail_device_rule rules[] = {
		{false, 'a', -1, -1, "rwm"},
		{true, 'c', 1, 3, "rwm"},
	};
	struct bpf_insn p[CGROUP_DEV_PROG_MAX(2)];
	size_t n = cgroup_v2_device_program(rules, 2, p);

	assert_int_equal(run_program(p, n, C, R | W, 1, 3), 1);
	assert_int_equal(run_program(p, n, C, R, 1, 5), 0);
	/* The deny-all rule's own exit ends the program: 6.1's verifier
	 * refuses instructions no path reaches. */
	assert_int_equal(p[n - 1].code, BPF_JMP | BPF_EXIT);
	assert_int_equal(p[n - 2].code, BPF_ALU64 | BPF_MOV | BPF_K);
	assert_int_equal(p[n - 2].imm, 0);
	n = cgroup_v2_device_program(rules, 1, p);
	assert_int_equal(n, 8); /* the 6 loads, then r0 = 0 and exit, once */
}

static void the_kernel_verifier_accepts_the_v2_program(void **state)
{
	struct bpf_insn p[CGROUP_DEV_PROG_MAX(16)];
	size_t n = cgroup_v2_device_program(devices_standard, devices_nstandard, p);
	char log[4096] = "";
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uint64_t)(uintptr_t)p;
	attr.insn_cnt = (uint32_t)n;
	attr.license = (uint64_t)(uintptr_t) "GPL";
	attr.log_buf = (uint64_t)(uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0 && (errno == EPERM || errno == ENOSYS))
		skip(); /* not root, or no bpf(2) here */
	if (fd < 0)
		fail_msg("BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
	close(fd);
}

/* The directory of this process's cgroup in a cgroup2 mount (the host's
 * /sys/fs/cgroup on v2, /sys/fs/cgroup/unified on a hybrid one); NULL
 * when there is none. */
static char *own_cgroup2_dir(void)
{
	char *mounts = cgroup_read_all("/proc/self/mountinfo");
	char *own_text = cgroup_read_all("/proc/self/cgroup");
	char *own = own_text ? cgroup_parse_own(own_text, NULL) : NULL, *dir = NULL;
	char *line = mounts ? strstr(mounts, " - cgroup2 ") : NULL;

	if (line != NULL && own != NULL) {
		char mnt[256];

		while (line > mounts && line[-1] != '\n')
			line--;
		if (sscanf(line, "%*s %*s %*s %*s %255s", mnt) == 1)
			dir = cgroup_join(mnt, "/", own);
	}
	free(mounts);
	free(own_text);
	free(own);
	return dir;
}

/* In a child moved into DIR: 0 when /dev/null opens and DENIED does not,
 * with EPERM. */
static int probe_devices(const char *dir, const char *denied)
{
	char buf[16];
	int fd;

	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	if (cgroup_write(dir, "cgroup.procs", buf) < 0)
		return 2;
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0)
		return 3;
	close(fd);
	fd = open(denied, O_RDONLY);
	return fd < 0 && errno == EPERM ? 0 : 4;
}

/*
 * The v2 backend on a real cgroup2 (as root, where there is one): the
 * device program attached to a cgroup of our own allows /dev/null and
 * denies another device; the freeze is seen in cgroup.events; the kill
 * ends what is inside.  The cgroup is removed.
 */
static void v2_backend_on_a_real_cgroup2(void **state)
{
	const char *denied = access("/dev/kmsg", F_OK) == 0 ? "/dev/kmsg" : "/dev/loop-control";
	char *parent = own_cgroup2_dir();
	struct cgroup cg;
	struct cell_err e;
	pid_t pid;
	int status;

	if (geteuid() != 0 || parent == NULL || access(denied, F_OK) < 0) {
		free(parent);
		skip();
	}
	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	assert_true(asprintf(&cg.path, "%s/cell-unit-%d", parent, (int)getpid()) > 0);
	free(parent);
	if (mkdir(cg.path, 0755) < 0) {
		cgroup_release(&cg);
		skip(); /* not ours to write (a container's read-only cgroup2) */
	}
	cg.fd = open(cg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(cg.fd >= 0);
	assert_int_equal(cgroup_v2_ops.devices(&cg, devices_standard, devices_nstandard, &e), 0);
	pid = fork();
	if (pid == 0)
		_exit(probe_devices(cg.path, denied));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	pid = fork();
	if (pid == 0) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		if (cgroup_write(cg.path, "cgroup.procs", buf) < 0)
			_exit(2);
		for (;;)
			pause();
	}
	/* In once cgroup.procs lists it. */
	for (int i = 0; i < 500; i++) {
		pid_t *in = NULL;
		size_t n = 0;

		assert_int_equal(cgroup_read_procs(cg.path, &in, &n, &e), 0);
		free(in);
		if (n == 1)
			break;
		usleep(2000);
	}
	assert_int_equal(cgroup_freeze(&cg, &e), 0);
	assert_int_equal(cgroup_wait_file(cg.path, "cgroup.events", "frozen", "1", 0), 0);
	assert_int_equal(cgroup_thaw(&cg, &e), 0);
	assert_int_equal(cgroup_kill(&cg, &e), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(cgroup_destroy(&cg, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(state_of_new_controllers_round_trips),
		cmocka_unit_test(a_record_of_before_devices_and_freezer_loads),
		cmocka_unit_test(controller_table_names_each_controller_once),
		cmocka_unit_test(controllers_are_those_the_spec_needs_and_a_freezer),
		cmocka_unit_test(the_standard_set_goes_only_to_a_jail_that_could_reach_devices),
		cmocka_unit_test(device_rules_are_checked),
		cmocka_unit_test(v1_device_lines),
		cmocka_unit_test(v2_program_allows_exactly_the_standard_set),
		cmocka_unit_test(v2_program_lets_the_last_matching_rule_decide),
		cmocka_unit_test(v2_program_after_an_all_devices_rule),
		cmocka_unit_test(v2_program_has_no_unreachable_tail_after_a_deny_all_rule),
		cmocka_unit_test(the_kernel_verifier_accepts_the_v2_program),
		cmocka_unit_test(v2_backend_on_a_real_cgroup2),
		cmocka_unit_test(own_cgroup_by_controller),
		cmocka_unit_test(own_cgroup_without_trailing_newline),
		cmocka_unit_test(v1_mount_of_a_controller),
		cmocka_unit_test(v1_mount_ignores_cgroup2_and_named_hierarchies),
		cmocka_unit_test(join_paths),
		cmocka_unit_test(state_round_trip),
		cmocka_unit_test(wanted_only_for_cgroup_limits),
	};

	return cmocka_run_group_tests_name("cgroup", tests, NULL, NULL);
}
