/* Unit tests of what cgroup.c gives OCI containers: the cpu weight of
 * cpu shares, cgroup_path's checks, the parents a cgroup_path makes and
 * removes (in a temporary directory standing for a hierarchy), what each
 * backend writes for a struct jail_resources and for `update` (into
 * files of a fake cgroup), the "made" counts of the record, the pids of a
 * jail's cgroups; and, as root on a v1 host, a container's cgroups made,
 * listed, signalled, frozen, updated and removed for real. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup.h"
#include "cgroup_backend.h"
#include "proc.h"

/* --- a fake hierarchy in a temporary directory ---------------------- */

static char *tmp_root(void)
{
	char *d = strdup("/tmp/cell-cgroup-unit.XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void rm_tree(const char *dir)
{
	char *cmd = NULL;

	assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* DIR/SUB made, with each of the files (NULL-terminated) created empty. */
static char *fake_cgroup(const char *dir, const char *sub, const char *const *files)
{
	char *d = NULL;

	assert_true(asprintf(&d, "%s/%s", dir, sub) > 0);
	assert_int_equal(mkdir(d, 0755), 0);
	for (; files != NULL && *files != NULL; files++) {
		char *f = NULL;
		int fd;

		assert_true(asprintf(&f, "%s/%s", d, *files) > 0);
		fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		close(fd);
		free(f);
	}
	return d;
}

static void put(const char *dir, const char *file, const char *text)
{
	char *f = NULL;
	int fd;

	assert_true(asprintf(&f, "%s/%s", dir, file) > 0);
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	free(f);
}

static void drop(const char *dir, const char *file)
{
	char *f = NULL;

	assert_true(asprintf(&f, "%s/%s", dir, file) > 0);
	assert_int_equal(unlink(f), 0);
	free(f);
}

/* DIR/FILE's first line. */
static const char *got(const char *dir, const char *file)
{
	static char buf[256];
	char *f = NULL;

	assert_true(asprintf(&f, "%s/%s", dir, file) > 0);
	assert_int_equal(proc_read_text(f, buf, sizeof(buf)), 0);
	buf[strcspn(buf, "\n")] = '\0';
	free(f);
	return buf;
}

static bool exists(const char *dir, const char *sub)
{
	char *f = NULL;
	bool ok;

	assert_true(asprintf(&f, "%s/%s", dir, sub) > 0);
	ok = access(f, F_OK) == 0;
	free(f);
	return ok;
}

static struct jail_resources no_resources(void)
{
	struct jail_spec s;

	spec_init(&s);
	return s.res;
}

static struct jail_limits no_limits(void)
{
	struct jail_spec s;

	spec_init(&s);
	return s.limits;
}

/* --- conversions and checks ---------------------------------------- */

static void cpu_shares_become_runcs_cpu_weight(void **state)
{
	assert_int_equal(cgroup_cpu_weight(2), 1);
	assert_int_equal(cgroup_cpu_weight(1024), 39); /* the default: runc's 39 */
	assert_int_equal(cgroup_cpu_weight(262144), 10000);
	assert_int_equal(cgroup_cpu_weight(512), 1 + (510 * 9999) / 262142);
	/* Out of range: clamped as the kernel clamps shares; 0 is unset. */
	assert_int_equal(cgroup_cpu_weight(1), 1);
	assert_int_equal(cgroup_cpu_weight(1000000), 10000);
	assert_int_equal(cgroup_cpu_weight(0), 0);
}

static void a_cgroup_path_stays_inside_its_hierarchy(void **state)
{
	const char *ok[] = {"/a", "a", "/kubepods/pod1/ctr", "a//b/", "/a.b/..c/x..", "/.hidden"};
	const char *bad[] = {"..", "/a/../b", "./a", "/a/.", "", "/", "//", "a/.."};
	struct cell_err e;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_int_equal(cgroup_check_path(ok[i], &e), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cgroup_check_path(bad[i], &e), -1);
		assert_non_null(strstr(e.msg, "cgroup path"));
	}
	assert_int_equal(cgroup_check_path("/a/../b", &e), -1);
	assert_string_equal(e.msg, "cgroup path /a/../b: a \"..\" component");
}

static void unified_settings_name_their_controllers(void **state)
{
	const struct jail_sysctl u[] = {{"memory.high", "1G"}, {"io.max", "8:0 rbps=1"}};
	const struct jail_sysctl cpuset[] = {{"cpuset.cpus", "0"}};
	const struct jail_sysctl none[] = {{"hugetlb.2MB.max", "0"}, {"cpu", "x"}};

	assert_int_equal(cgroup_unified_ctrls(u, 2), 1U << CGROUP_MEMORY | 1U << CGROUP_BLKIO);
	/* "cpuset." is not "cpu.". */
	assert_int_equal(cgroup_unified_ctrls(cpuset, 1), 1U << CGROUP_CPUSET);
	assert_int_equal(cgroup_unified_ctrls(none, 2), 0);
}

static void an_oci_container_wants_every_controller_and_needs_none(void **state)
{
	struct jail_spec s;
	unsigned int all = cgroup_ctrls_for(CGROUP_NEEDS_ALWAYS);

	for (int c = 0; c < CGROUP_NCTRL; c++)
		assert_true(all & 1U << c);
	spec_init(&s);
	assert_false(cgroup_wanted(&s));
	s.cgroup_always = true;
	assert_true(cgroup_wanted(&s));
	s.cgroup_always = false;
	s.cgroup_path = strdup("/a/b");
	assert_true(cgroup_wanted(&s));
	free(s.cgroup_path);
	/* An empty cgroupsPath is none: cell names the cgroup. */
	s.cgroup_path = strdup("");
	assert_false(cgroup_wanted(&s));
	s.res.cpu_shares = 512;
	assert_true(cgroup_wanted(&s));
	spec_free(&s);
	/* The jail CLI's controllers stay those of its limits. */
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_CPUSET),
			 1U << CGROUP_CPUSET | 1U << CGROUP_FREEZER);
	assert_int_equal(cgroup_ctrls_for(CGROUP_NEEDS_BLKIO),
			 1U << CGROUP_BLKIO | 1U << CGROUP_FREEZER);
}

/* --- the parents a cgroup_path makes ------------------------------- */

static void a_cgroup_path_makes_its_missing_parents_and_removes_only_those(void **state)
{
	char *mnt = tmp_root(), *a = fake_cgroup(mnt, "a", NULL), *dir = NULL;
	unsigned int made = 99;
	struct cell_err e;

	assert_true(asprintf(&dir, "%s/a/b/c/jail", mnt) > 0);
	assert_int_equal(cgroup_plan_exact(dir, mnt, &made, &e), 0);
	assert_int_equal(made, 3); /* b, c, jail: a was there */
	assert_int_equal(cgroup_make_dirs(dir, &made, NULL, NULL, &e), 0);
	assert_int_equal(made, 3);
	assert_true(exists(mnt, "a/b/c/jail"));
	assert_int_equal(cgroup_remove_dirs(dir, made), 0);
	assert_false(exists(mnt, "a/b"));
	assert_true(exists(mnt, "a"));

	/* A parent another jail's cgroup is in now stays. */
	assert_int_equal(cgroup_plan_exact(dir, mnt, &made, &e), 0);
	assert_int_equal(cgroup_make_dirs(dir, &made, NULL, NULL, &e), 0);
	free(fake_cgroup(mnt, "a/b/other", NULL));
	assert_int_equal(cgroup_remove_dirs(dir, made), 0);
	assert_false(exists(mnt, "a/b/c"));
	assert_true(exists(mnt, "a/b/other"));

	/* Nothing above the hierarchy's root is ever counted. */
	free(dir);
	assert_true(asprintf(&dir, "%s/x/y", mnt) > 0);
	assert_int_equal(cgroup_plan_exact(dir, mnt, &made, &e), 0);
	assert_int_equal(made, 2);
	free(dir);
	free(a);
	rm_tree(mnt);
	free(mnt);
}

static void a_cgroup_path_already_there_is_used_only_when_empty_and_never_removed(void **state)
{
	char *mnt = tmp_root(),
	     *dir = fake_cgroup(mnt, "ctr", (const char *[]){"cgroup.procs", NULL});
	unsigned int made = 99;
	struct cell_err e;

	assert_int_equal(cgroup_plan_exact(dir, mnt, &made, &e), 0);
	assert_int_equal(made, 0);
	assert_int_equal(cgroup_make_dirs(dir, &made, NULL, NULL, &e), 0);
	assert_int_equal(cgroup_remove_dirs(dir, made), 0);
	assert_true(exists(mnt, "ctr"));

	put(dir, "cgroup.procs", "4242\n4343\n");
	assert_int_equal(cgroup_plan_exact(dir, mnt, &made, &e), -1);
	assert_int_equal(e.errnum, EBUSY);
	assert_non_null(strstr(e.msg, "has processes in it (pid 4242)"));
	free(dir);
	rm_tree(mnt);
	free(mnt);
}

static int fail_at_c(const char *dir, const char *parent, void *arg, struct cell_err *e)
{
	(*(int *)arg)++;
	if (strcmp(dir + strlen(dir) - 2, "/c") == 0)
		return cell_err_set(e, EIO, "refused %s", dir);
	return 0;
}

static void a_cgroup_path_made_halfway_is_removed(void **state)
{
	char *mnt = tmp_root(), *dir = NULL;
	unsigned int made;
	int calls = 0;
	struct cell_err e;

	assert_true(asprintf(&dir, "%s/a/b/c/jail", mnt) > 0);
	assert_int_equal(cgroup_plan_exact(dir, mnt, &made, &e), 0);
	assert_int_equal(made, 4);
	assert_int_equal(cgroup_make_dirs(dir, &made, fail_at_c, &calls, &e), -1);
	assert_int_equal(calls, 3); /* a, b, c: each made directory, top first */
	assert_false(exists(mnt, "a"));
	free(dir);
	rm_tree(mnt);
	free(mnt);
}

/* --- what each backend writes -------------------------------------- */

static void v1_writes_each_resource_in_its_controllers_file(void **state)
{
	char *mnt = tmp_root();
	struct cgroup cg;
	struct jail_resources r = no_resources();
	struct cell_err e;

	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_CPU] = fake_cgroup(
		mnt, "cpu",
		(const char *[]){"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us", NULL});
	cg.dir[CGROUP_CPUSET] =
		fake_cgroup(mnt, "cpuset", (const char *[]){"cpuset.cpus", "cpuset.mems", NULL});
	cg.dir[CGROUP_MEMORY] = fake_cgroup(
		mnt, "memory",
		(const char *[]){"memory.soft_limit_in_bytes", "memory.swappiness", NULL});
	cg.dir[CGROUP_BLKIO] =
		fake_cgroup(mnt, "blkio", (const char *[]){"blkio.bfq.weight", NULL});
	r.cpu_shares = 512;
	r.cpu_quota = 50000;
	r.cpu_period = 200000;
	r.cpuset_cpus = "0-1";
	r.cpuset_mems = "0";
	r.memory_reservation = 1 << 20;
	r.memory_swappiness = 0;
	r.blkio_weight = 300;
	assert_int_equal(cgroup_v1_ops.resources(&cg, &r, &e), 0);
	assert_string_equal(got(cg.dir[CGROUP_CPU], "cpu.shares"), "512");
	assert_string_equal(got(cg.dir[CGROUP_CPU], "cpu.cfs_period_us"), "200000");
	assert_string_equal(got(cg.dir[CGROUP_CPU], "cpu.cfs_quota_us"), "50000");
	assert_string_equal(got(cg.dir[CGROUP_CPUSET], "cpuset.cpus"), "0-1");
	assert_string_equal(got(cg.dir[CGROUP_CPUSET], "cpuset.mems"), "0");
	assert_string_equal(got(cg.dir[CGROUP_MEMORY], "memory.soft_limit_in_bytes"), "1048576");
	assert_string_equal(got(cg.dir[CGROUP_MEMORY], "memory.swappiness"), "0");
	assert_string_equal(got(cg.dir[CGROUP_BLKIO], "blkio.bfq.weight"), "300");

	/* A host whose blkio has no weight file: an error naming both. */
	drop(mnt, "blkio/blkio.bfq.weight");
	assert_int_equal(cgroup_v1_ops.resources(&cg, &r, &e), -1);
	assert_non_null(strstr(e.msg, "blkio weight: this host's blkio cgroup has no weight"));
	/* unified is v2's. */
	r = no_resources();
	r.unified = (struct jail_sysctl[]){{"memory.high", "1G"}};
	r.nunified = 1;
	assert_int_equal(cgroup_v1_ops.resources(&cg, &r, &e), -1);
	assert_non_null(strstr(e.msg, "unified"));
	/* A resource whose controller the jail has not. */
	r = no_resources();
	free(cg.dir[CGROUP_CPUSET]);
	cg.dir[CGROUP_CPUSET] = NULL;
	r.cpuset_cpus = "0";
	assert_int_equal(cgroup_v1_ops.resources(&cg, &r, &e), -1);
	assert_string_equal(e.msg, "cpuset cpus: the jail has no cpuset cgroup: No such file or "
				   "directory");
	cgroup_release(&cg);
	rm_tree(mnt);
	free(mnt);
}

static void v2_writes_each_resource_in_the_jails_one_directory(void **state)
{
	char *mnt = tmp_root();
	struct cgroup cg;
	struct jail_resources r = no_resources();
	struct jail_sysctl uni[] = {{"memory.high", "123456789"}};
	struct cell_err e;

	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	cg.path = fake_cgroup(mnt, "jail",
			      (const char *[]){"cpu.weight", "cpuset.cpus", "cpuset.mems",
					       "memory.low", "io.weight", "memory.high", NULL});
	put(cg.path, "cpu.max", "max 100000\n");
	r.cpu_shares = 1024;
	r.cpu_quota = 150000;
	r.cpuset_cpus = "1";
	r.cpuset_mems = "0";
	r.memory_reservation = 4096;
	r.blkio_weight = 500;
	r.unified = uni;
	r.nunified = 1;
	assert_int_equal(cgroup_v2_ops.resources(&cg, &r, &e), 0);
	assert_string_equal(got(cg.path, "cpu.weight"), "39");
	/* A quota alone keeps the cgroup's period. */
	assert_string_equal(got(cg.path, "cpu.max"), "150000 100000");
	assert_string_equal(got(cg.path, "cpuset.cpus"), "1");
	assert_string_equal(got(cg.path, "memory.low"), "4096");
	assert_string_equal(got(cg.path, "io.weight"), "4950"); /* 1 + 490 * 9999 / 990 */
	assert_string_equal(got(cg.path, "memory.high"), "123456789");

	/* A period alone keeps the quota. */
	put(cg.path, "cpu.max", "max 100000\n");
	r = no_resources();
	r.cpu_period = 250000;
	assert_int_equal(cgroup_v2_ops.resources(&cg, &r, &e), 0);
	assert_string_equal(got(cg.path, "cpu.max"), "max 250000");

	/* swappiness is v1's. */
	r = no_resources();
	r.memory_swappiness = 10;
	assert_int_equal(cgroup_v2_ops.resources(&cg, &r, &e), -1);
	assert_non_null(strstr(e.msg, "memory swappiness: cgroup v2 has none"));

	/* A unified name is a file of the jail's cgroup, and not one of the
	 * core's: none moves a process or leaves the directory. */
	r = no_resources();
	r.nunified = 1;
	const char *bad[] = {
		"cgroup.procs", "cgroup.subtree_control", "../cgroup.procs", "a/b", "", ".."};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jail_sysctl u = {(char *)bad[i], "1"};

		r.unified = &u;
		assert_int_equal(cgroup_v2_ops.resources(&cg, &r, &e), -1);
		assert_non_null(strstr(e.msg, "not a setting of the jail's cgroup"));
	}
	cgroup_release(&cg);
	rm_tree(mnt);
	free(mnt);
}

static void a_cpu_quota_wins_over_cpus(void **state)
{
	char *mnt = tmp_root();
	struct cgroup cg;
	struct jail_limits l = no_limits();
	struct cell_err e;

	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	cg.path = fake_cgroup(mnt, "jail", (const char *[]){"cpu.max", NULL});
	l.cpus_milli = 500;
	assert_int_equal(cgroup_v2_ops.apply(&cg, &l, true, &e), 0);
	assert_string_equal(got(cg.path, "cpu.max"), "");
	assert_int_equal(cgroup_v2_ops.apply(&cg, &l, false, &e), 0);
	assert_string_equal(got(cg.path, "cpu.max"), "50000 100000");
	cgroup_release(&cg);
	rm_tree(mnt);
	free(mnt);
}

static void v1_update_of_memory_keeps_memsw_above_memory(void **state)
{
	char *mnt = tmp_root();
	struct cgroup cg;
	struct jail_limits l = no_limits();
	struct cell_err e;

	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_MEMORY] = fake_cgroup(mnt, "memory", NULL);
	cg.dir[CGROUP_PIDS] = fake_cgroup(mnt, "pids", (const char *[]){"pids.max", NULL});
	/* 1000 of memory, 500 of swap beyond it. */
	put(cg.dir[CGROUP_MEMORY], "memory.limit_in_bytes", "1000\n");
	put(cg.dir[CGROUP_MEMORY], "memory.memsw.limit_in_bytes", "1500\n");
	l.memory = 2000;
	l.nrtask = 64;
	assert_int_equal(cgroup_v1_ops.set_limits(&cg, &l, false, &e), 0);
	assert_string_equal(got(cg.dir[CGROUP_MEMORY], "memory.limit_in_bytes"), "2000");
	assert_string_equal(got(cg.dir[CGROUP_MEMORY], "memory.memsw.limit_in_bytes"), "2500");
	assert_string_equal(got(cg.dir[CGROUP_PIDS], "pids.max"), "64");
	/* Swap alone: beyond the memory the jail has. */
	l = no_limits();
	l.swap = 3000;
	assert_int_equal(cgroup_v1_ops.set_limits(&cg, &l, false, &e), 0);
	assert_string_equal(got(cg.dir[CGROUP_MEMORY], "memory.memsw.limit_in_bytes"), "5000");
	/* Unlimited swap stays unlimited. */
	put(cg.dir[CGROUP_MEMORY], "memory.memsw.limit_in_bytes", "9223372036854771712\n");
	l = no_limits();
	l.memory = 3000;
	assert_int_equal(cgroup_v1_ops.set_limits(&cg, &l, false, &e), 0);
	assert_string_equal(got(cg.dir[CGROUP_MEMORY], "memory.limit_in_bytes"), "3000");
	assert_string_equal(got(cg.dir[CGROUP_MEMORY], "memory.memsw.limit_in_bytes"),
			    "9223372036854771712");
	cgroup_release(&cg);
	rm_tree(mnt);
	free(mnt);
}

static void update_refuses_a_setting_without_its_cgroup_before_writing_any(void **state)
{
	char *mnt = tmp_root();
	struct cgroup cg;
	struct jail_limits l = no_limits();
	struct jail_resources r = no_resources();
	struct cell_err e;

	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_PIDS] = fake_cgroup(mnt, "pids", (const char *[]){"pids.max", NULL});
	l.nrtask = 10;
	r.blkio_weight = 100;
	assert_int_equal(cgroup_update_resources(&cg, &l, &r, &e), -1);
	assert_string_equal(e.msg, "the jail has no blkio cgroup: No such file or directory");
	assert_string_equal(got(cg.dir[CGROUP_PIDS], "pids.max"), "");
	r = no_resources();
	assert_int_equal(cgroup_update_resources(&cg, &l, &r, &e), 0);
	assert_string_equal(got(cg.dir[CGROUP_PIDS], "pids.max"), "10");
	cgroup_release(&cg);

	/* No cgroups at all. */
	cgroup_init(&cg);
	assert_int_equal(cgroup_update_resources(&cg, &l, &r, &e), -1);
	rm_tree(mnt);
	free(mnt);
}

/* --- the record ---------------------------------------------------- */

static void the_record_says_how_many_directories_cell_made(void **state)
{
	struct cgroup cg, back;
	struct cell_err e;
	json_t *j;

	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_PIDS] = strdup("/sys/fs/cgroup/pids/k8s/pod/ctr");
	cg.dir[CGROUP_MEMORY] = strdup("/sys/fs/cgroup/memory/k8s/pod/ctr");
	cg.dir[CGROUP_CPU] = strdup("/sys/fs/cgroup/cpu/k8s/pod/ctr");
	cg.made[CGROUP_PIDS] = 3;
	cg.made[CGROUP_MEMORY] = 0;
	j = cgroup_to_json(&cg);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "made"), "pids")),
			 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "made"), "memory")),
			 0);
	assert_null(json_object_get(json_object_get(j, "made"), "cpu"));
	assert_int_equal(cgroup_from_json(&back, j, &e), 0);
	assert_int_equal(back.made[CGROUP_PIDS], 3);
	assert_int_equal(back.made[CGROUP_MEMORY], 0);
	assert_int_equal(back.made[CGROUP_CPU], 1);
	json_decref(j);
	cgroup_release(&back);
	cgroup_release(&cg);

	/* The jail CLI's record is as before: no "made". */
	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_PIDS] = strdup("/sys/fs/cgroup/pids/cell-a");
	j = cgroup_to_json(&cg);
	assert_null(json_object_get(j, "made"));
	json_decref(j);
	cgroup_release(&cg);

	/* v2: one count. */
	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	cg.path = strdup("/sys/fs/cgroup/a/b");
	cg.path_made = 2;
	j = cgroup_to_json(&cg);
	assert_int_equal(cgroup_from_json(&back, j, &e), 0);
	assert_int_equal(back.path_made, 2);
	json_decref(j);
	cgroup_release(&back);
	cgroup_release(&cg);

	j = json_pack("{s:s, s:s, s:s}", "layout", "v2", "path", "/x", "made", "all");
	assert_int_equal(cgroup_from_json(&back, j, &e), -1);
	json_decref(j);
}

/* --- processes ----------------------------------------------------- */

static void the_pids_of_a_jail_are_every_cgroups_beneath_it_sorted_once(void **state)
{
	char *mnt = tmp_root();
	struct cgroup cg;
	pid_t *pids = NULL;
	size_t n = 0;
	struct cell_err e;

	cgroup_init(&cg);
	cg.layout = CGROUP_V1;
	cg.dir[CGROUP_FREEZER] = fake_cgroup(mnt, "jail", NULL);
	free(fake_cgroup(mnt, "jail/sub", NULL));
	free(fake_cgroup(mnt, "jail/sub/deeper", NULL));
	put(cg.dir[CGROUP_FREEZER], "cgroup.procs", "30\n7\n");
	put(mnt, "jail/sub/cgroup.procs", "12\n7\n");
	put(mnt, "jail/sub/deeper/cgroup.procs", "");
	assert_int_equal(cgroup_procs(&cg, &pids, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 7);
	assert_int_equal(pids[1], 12);
	assert_int_equal(pids[2], 30);
	free(pids);
	cgroup_release(&cg);

	/* None: an error, not an empty list. */
	cgroup_init(&cg);
	assert_int_equal(cgroup_procs(&cg, &pids, &n, &e), -1);
	assert_null(pids);
	rm_tree(mnt);
	free(mnt);
}

/* --- a real v1 hierarchy (root, hybrid or v1 host) ------------------ */

static bool v1_host_as_root(void)
{
	struct statfs st;

	return geteuid() == 0 && statfs("/sys/fs/cgroup", &st) == 0 && st.f_type != 0x63677270 &&
	       access("/sys/fs/cgroup/pids", W_OK) == 0 &&
	       access("/sys/fs/cgroup/freezer", W_OK) == 0;
}

static pid_t sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/*
 * An OCI container's cgroups at an absolute cgroup_path with parents
 * that are not there: every controller made (cpuset with its parent's
 * cpus and mems), a process added, listed, frozen, signalled, updated;
 * then all of it removed, the parents too.
 */
static void a_container_at_a_cgroup_path_on_a_v1_host(void **state)
{
	struct jail_spec s;
	struct cgroup cg;
	struct jail_limits l = no_limits();
	struct jail_resources r = no_resources();
	struct cell_err e;
	pid_t pid, *pids = NULL;
	size_t n = 0;
	int status;
	char top[64];

	if (!v1_host_as_root())
		skip();
	spec_init(&s);
	s.name = strdup("unit");
	snprintf(top, sizeof(top), "/cell-unit-%d", (int)getpid());
	assert_true(asprintf(&s.cgroup_path, "%s/pod/ctr", top) > 0);
	s.cgroup_always = true;
	s.limits.nrtask = 32;
	s.res.cpu_shares = 512;
	assert_int_equal(cgroup_plan(&cg, &s, "/tmp/unit-state", &e), 0);
	assert_int_equal(cg.layout, CGROUP_V1);
	assert_int_equal(cg.made[CGROUP_PIDS], 3);
	assert_int_equal(cgroup_make(&cg, &s, &e), 0);
	assert_string_equal(got(cg.dir[CGROUP_PIDS], "pids.max"), "32");
	assert_string_equal(got(cg.dir[CGROUP_CPU], "cpu.shares"), "512");
	assert_non_null(cg.dir[CGROUP_MEMORY]);
	assert_non_null(cg.dir[CGROUP_DEVICES]);
	if (cg.dir[CGROUP_CPUSET] != NULL)
		assert_string_equal(got(cg.dir[CGROUP_CPUSET], "cpuset.cpus"),
				    got("/sys/fs/cgroup/cpuset", "cpuset.cpus"));

	pid = sleeper();
	assert_int_equal(cgroup_add_pid(&cg, pid, &e), 0);
	assert_int_equal(cgroup_procs(&cg, &pids, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], pid);
	free(pids);

	assert_false(cgroup_frozen(&cg));
	assert_int_equal(cgroup_freeze(&cg, &e), 0);
	assert_true(cgroup_frozen(&cg));
	assert_int_equal(cgroup_thaw(&cg, &e), 0);
	assert_false(cgroup_frozen(&cg));

	l.nrtask = 16;
	r.cpu_shares = 256;
	assert_int_equal(cgroup_update_resources(&cg, &l, &r, &e), 0);
	assert_string_equal(got(cg.dir[CGROUP_PIDS], "pids.max"), "16");
	assert_string_equal(got(cg.dir[CGROUP_CPU], "cpu.shares"), "256");

	assert_int_equal(cgroup_signal(&cg, SIGTERM, &e), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_false(cgroup_frozen(&cg));

	assert_int_equal(cgroup_destroy(&cg, &e), 0);
	assert_false(exists("/sys/fs/cgroup/pids", top + 1));
	assert_false(exists("/sys/fs/cgroup/memory", top + 1));
	assert_false(exists("/sys/fs/cgroup/cpu", top + 1));
	assert_false(exists("/sys/fs/cgroup/freezer", top + 1));
	spec_free(&s);
}

/* A cgroup_path that is there with a process in it is refused, and
 * left as it was. */
static void a_cgroup_path_with_processes_is_refused_on_a_v1_host(void **state)
{
	struct jail_spec s;
	struct cgroup cg;
	struct cell_err e;
	char dir[128], buf[16];
	pid_t pid;
	int status;

	if (!v1_host_as_root())
		skip();
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/pids/cell-unit-busy-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	pid = sleeper();
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	assert_int_equal(cgroup_write(dir, "cgroup.procs", buf), 0);

	spec_init(&s);
	s.name = strdup("unit");
	s.cgroup_path = strdup(dir + strlen("/sys/fs/cgroup/pids"));
	s.cgroup_always = true;
	assert_int_equal(cgroup_plan(&cg, &s, "/tmp/unit-state", &e), -1);
	assert_int_equal(e.errnum, EBUSY);
	assert_non_null(strstr(e.msg, "has processes in it"));
	spec_free(&s);

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(cgroup_remove_dir(dir), 0);
}

/* In a child with a private mount namespace: the jail's cgroups mounted
 * at an OCI mount's destination, its missing directories made; the
 * result read-only with one directory per controller; a destination
 * through a symlink refused.  0 when all holds, else the step that
 * failed. */
static int mount_at_destination(struct cgroup *cg, const char *tmp)
{
	char dest[256], link[256], probe[300];
	struct cell_err e;
	struct stat st;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return 2;
	snprintf(dest, sizeof(dest), "%s/sys/fs/cgroup", tmp);
	if (cgroup_mount_jail(cg, dest, true, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 3;
	}
	snprintf(probe, sizeof(probe), "%s/pids/cgroup.procs", dest);
	if (stat(probe, &st) < 0)
		return 4;
	snprintf(probe, sizeof(probe), "%s/new", dest);
	if (mkdir(probe, 0755) == 0 || errno != EROFS)
		return 5;
	/* Read-write when asked. */
	snprintf(dest, sizeof(dest), "%s/rw", tmp);
	if (cgroup_mount_jail(cg, dest, false, &e) < 0)
		return 6;
	snprintf(probe, sizeof(probe), "%s/new", dest);
	if (mkdir(probe, 0755) < 0 || rmdir(probe) < 0)
		return 7;
	/* A symlink on the way is never followed. */
	snprintf(link, sizeof(link), "%s/link", tmp);
	if (symlink(tmp, link) < 0)
		return 8;
	snprintf(dest, sizeof(dest), "%s/link/elsewhere", tmp);
	if (cgroup_mount_jail(cg, dest, true, &e) == 0 || e.errnum != ELOOP)
		return 9;
	snprintf(probe, sizeof(probe), "%s/elsewhere", tmp);
	return access(probe, F_OK) == 0 ? 10 : 0;
}

static void the_jails_cgroups_mount_at_an_oci_destination(void **state)
{
	struct jail_spec s;
	struct cgroup cg;
	struct cell_err e;
	char *tmp;
	pid_t pid;
	int status;

	if (!v1_host_as_root())
		skip();
	spec_init(&s);
	s.name = strdup("unit");
	s.limits.nrtask = 8;
	assert_int_equal(cgroup_plan(&cg, &s, "/tmp/unit-mount-state", &e), 0);
	tmp = tmp_root();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(mount_at_destination(&cg, tmp));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	rm_tree(tmp);
	free(tmp);
	cgroup_release(&cg);
	spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_shares_become_runcs_cpu_weight),
		cmocka_unit_test(a_cgroup_path_stays_inside_its_hierarchy),
		cmocka_unit_test(unified_settings_name_their_controllers),
		cmocka_unit_test(an_oci_container_wants_every_controller_and_needs_none),
		cmocka_unit_test(a_cgroup_path_makes_its_missing_parents_and_removes_only_those),
		cmocka_unit_test(
			a_cgroup_path_already_there_is_used_only_when_empty_and_never_removed),
		cmocka_unit_test(a_cgroup_path_made_halfway_is_removed),
		cmocka_unit_test(v1_writes_each_resource_in_its_controllers_file),
		cmocka_unit_test(v2_writes_each_resource_in_the_jails_one_directory),
		cmocka_unit_test(a_cpu_quota_wins_over_cpus),
		cmocka_unit_test(v1_update_of_memory_keeps_memsw_above_memory),
		cmocka_unit_test(update_refuses_a_setting_without_its_cgroup_before_writing_any),
		cmocka_unit_test(the_record_says_how_many_directories_cell_made),
		cmocka_unit_test(the_pids_of_a_jail_are_every_cgroups_beneath_it_sorted_once),
		cmocka_unit_test(a_container_at_a_cgroup_path_on_a_v1_host),
		cmocka_unit_test(a_cgroup_path_with_processes_is_refused_on_a_v1_host),
		cmocka_unit_test(the_jails_cgroups_mount_at_an_oci_destination),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
