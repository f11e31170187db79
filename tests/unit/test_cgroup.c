/* Unit tests of cgroup.c's parsers: /proc/self/cgroup, mountinfo, paths;
 * and of the state record's round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgroup.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
