/* Unit tests of cgroup_deleg.c: the delegated cgroup v2 subtree a
 * rootless cell finds, over a fake tree (a temp directory standing for
 * /sys/fs/cgroup, its directories and interface files owned by a test
 * uid or by root), the refusal of limits without one, and the v2
 * backend's plan and record beneath one.  Needs root (to chown). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup.h"
#include "cgroup_backend.h"
#include "ns.h"
#include "param.h"
#include "proc.h"
#include "spec.h"

#define USER 4242 /* the fake tree's user */

static char top[64]; /* the fake /sys/fs/cgroup */

/* TOP/REL, a directory, with the interface files a delegation looks at,
 * all owned by OWNER; CTRLS in its cgroup.controllers. */
static void cg_dir(const char *rel, uid_t owner, const char *ctrls)
{
	const char *files[] = {"cgroup.procs", "cgroup.subtree_control", "cgroup.controllers"};
	char path[512];

	snprintf(path, sizeof(path), "%s%s", top, rel);
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
	assert_int_equal(chown(path, owner, owner), 0);
	for (size_t i = 0; i < 3; i++) {
		char f[600];
		FILE *fp;

		snprintf(f, sizeof(f), "%s/%s", path, files[i]);
		fp = fopen(f, "w");
		assert_non_null(fp);
		if (i == 2)
			fprintf(fp, "%s\n", ctrls);
		fclose(fp);
		assert_int_equal(chown(f, owner, owner), 0);
	}
}

/* TOP/REL/FILE given to OWNER. */
static void give(const char *rel, const char *file, uid_t owner)
{
	char path[600];

	snprintf(path, sizeof(path), "%s%s%s%s", top, rel, file ? "/" : "", file ? file : "");
	assert_int_equal(chown(path, owner, owner), 0);
}

/* systemd's tree: user@USER.service and below are the user's. */
static int setup(void **state)
{
	if (geteuid() != 0)
		return 0; /* each test skips */
	snprintf(top, sizeof(top), "/tmp/cell-deleg.XXXXXX");
	assert_non_null(mkdtemp(top));
	cg_dir("", 0, "cpuset cpu io memory hugetlb pids");
	cg_dir("/user.slice", 0, "cpu memory pids");
	cg_dir("/user.slice/user-4242.slice", 0, "cpu memory pids");
	cg_dir("/user.slice/user-4242.slice/user@4242.service", USER, "cpu memory pids");
	cg_dir("/user.slice/user-4242.slice/user@4242.service/app.slice", USER, "memory pids");
	cg_dir("/user.slice/user-4242.slice/user@4242.service/app.slice/run-x.scope", USER, "");
	cg_dir("/user.slice/user-4242.slice/session-1.scope", 0, "");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	if (top[0] == '\0')
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

#define NEED_ROOT()                                                                                \
	do {                                                                                       \
		if (geteuid() != 0)                                                                \
			skip();                                                                    \
	} while (0)

static const char scope[] = "/user.slice/user-4242.slice/user@4242.service/app.slice/run-x.scope";

static void the_topmost_directory_the_user_owns_is_the_delegated_one(void **state)
{
	struct cgroup_deleg d;
	struct cell_err e;
	char want[256];

	NEED_ROOT();
	assert_int_equal(cgroup_deleg_find(&d, top, scope, NULL, USER, &e), 0);
	snprintf(want, sizeof(want), "%s/user.slice/user-4242.slice/user@4242.service", top);
	assert_string_equal(d.dir, want);
	assert_string_equal(d.own, scope);
	assert_int_equal(d.ctrls, 1U << CGROUP_PIDS | 1U << CGROUP_MEMORY | 1U << CGROUP_CPU |
					  1U << CGROUP_FREEZER);
	cgroup_deleg_free(&d);
}

static void a_directory_whose_cgroup_procs_is_roots_is_not_delegated(void **state)
{
	const char *svc = "/user.slice/user-4242.slice/user@4242.service";
	struct cgroup_deleg d;
	struct cell_err e;
	char want[256];

	NEED_ROOT();
	give(svc, "cgroup.procs", 0);
	assert_int_equal(cgroup_deleg_find(&d, top, scope, NULL, USER, &e), 0);
	snprintf(want, sizeof(want), "%s%s/app.slice", top, svc);
	assert_string_equal(d.dir, want);
	cgroup_deleg_free(&d);
	give(svc, "cgroup.procs", USER);
	/* nor one whose subtree_control is not writable */
	assert_int_equal(chmod(want, 0755), 0);
	{
		char f[300];

		snprintf(f, sizeof(f), "%s%s/cgroup.subtree_control", top, svc);
		assert_int_equal(chmod(f, 0444), 0);
		assert_int_equal(cgroup_deleg_find(&d, top, scope, NULL, USER, &e), 0);
		assert_string_equal(d.dir, want);
		cgroup_deleg_free(&d);
		assert_int_equal(chmod(f, 0644), 0);
	}
}

static void a_cell_in_a_cgroup_of_roots_finds_none(void **state)
{
	struct cgroup_deleg d;
	struct cell_err e;

	NEED_ROOT();
	assert_int_equal(cgroup_deleg_find(&d, top, "/user.slice/user-4242.slice/session-1.scope",
					   NULL, USER, &e),
			 0);
	assert_null(d.dir);
	cgroup_deleg_free(&d);
	/* another user's subtree is not this one's */
	assert_int_equal(cgroup_deleg_find(&d, top, scope, NULL, USER + 1, &e), 0);
	assert_null(d.dir);
	cgroup_deleg_free(&d);
}

static void the_root_of_a_tree_the_user_owns_is_delegated(void **state)
{
	struct cgroup_deleg d;
	struct cell_err e;

	NEED_ROOT();
	give("", NULL, USER);
	give("", "cgroup.procs", USER);
	give("", "cgroup.subtree_control", USER);
	assert_int_equal(cgroup_deleg_find(&d, top, "/", NULL, USER, &e), 0);
	assert_string_equal(d.dir, top);
	assert_string_equal(d.own, "");
	cgroup_deleg_free(&d);
	assert_int_equal(cgroup_deleg_find(&d, top, scope, NULL, USER, &e), 0);
	assert_string_equal(d.dir, top);
	cgroup_deleg_free(&d);
	give("", NULL, 0);
	give("", "cgroup.procs", 0);
	give("", "cgroup.subtree_control", 0);
}

static void a_cgroup_parent_must_be_the_users(void **state)
{
	struct cgroup_deleg d;
	struct cell_err e;
	char want[256];

	NEED_ROOT();
	/* relative: beneath cell's own cgroup */
	assert_int_equal(cgroup_deleg_find(&d, top, "/user.slice/user-4242.slice/user@4242.service",
					   "app.slice/", USER, &e),
			 0);
	snprintf(want, sizeof(want), "%s/user.slice/user-4242.slice/user@4242.service/app.slice",
		 top);
	assert_string_equal(d.dir, want);
	assert_int_equal(d.ctrls, 1U << CGROUP_PIDS | 1U << CGROUP_MEMORY | 1U << CGROUP_FREEZER);
	cgroup_deleg_free(&d);

	assert_int_equal(cgroup_deleg_find(&d, top, scope, "/user.slice", USER, &e), -1);
	assert_int_equal(e.about.param, PARAM_CGROUP_PARENT);
	assert_non_null(strstr(e.msg, "not a cgroup v2 directory of yours"));
	cgroup_deleg_free(&d);

	assert_int_equal(cgroup_deleg_find(&d, top, scope, "/nope", USER, &e), -1);
	assert_int_equal(e.about.param, PARAM_CGROUP_PARENT);
	assert_int_equal(e.errnum, ENOENT);
	cgroup_deleg_free(&d);
}

static void a_cgroup_parent_beside_cells_cgroup_needs_their_common_ancestor(void **state)
{
	struct cgroup_deleg d;
	struct cell_err e;

	NEED_ROOT();
	cg_dir("/deleg", USER, "memory pids");
	/* cell in a session scope of root's: the move would be across "/" */
	assert_int_equal(cgroup_deleg_find(&d, top, "/user.slice/user-4242.slice/session-1.scope",
					   "/deleg", USER, &e),
			 -1);
	assert_int_equal(e.about.param, PARAM_CGROUP_PARENT);
	assert_non_null(strstr(e.msg, "their common ancestor's"));
	cgroup_deleg_free(&d);
	/* cell inside it: fine */
	cg_dir("/deleg/shell", 0, "");
	assert_int_equal(cgroup_deleg_find(&d, top, "/deleg/shell", "/deleg", USER, &e), 0);
	assert_non_null(d.dir);
	cgroup_deleg_free(&d);
}

/* A jail CLI spec with the limits of ARGS set. */
static void spec_with(struct jail_spec *s, long long nrtask, long long memory, long long cpus)
{
	spec_init(s);
	s->limits.nrtask = nrtask;
	s->limits.memory = memory;
	s->limits.cpus_milli = cpus;
}

static void a_limit_without_delegation_is_refused_saying_how(void **state)
{
	struct cgroup_deleg none = {0};
	struct jail_spec s;
	struct cell_err e;

	spec_with(&s, -1, 64 << 20, -1);
	assert_int_equal(cgroup_deleg_check(&none, &s, &e), -1);
	assert_int_equal(e.about.param, PARAM_MEMORY);
	cell_err_spell(&e, "--memory 64M", "--cgroup-parent");
	assert_string_equal(
		e.msg,
		"--memory 64M: needs a delegated cgroup v2 subtree (rootless, and none "
		"found): run in a scope of \"systemd-run --user --scope -p Delegate=yes\" or "
		"have root delegate a directory (chown it to you) and pass --cgroup-parent");
	spec_free(&s);

	spec_with(&s, 20, -1, 500);
	assert_int_equal(cgroup_deleg_check(&none, &s, &e), -1);
	assert_int_equal(e.about.param, PARAM_NRTASK);
	spec_free(&s);
}

static void a_jail_that_needs_no_cgroup_runs_without_delegation(void **state)
{
	struct cgroup_deleg none = {0};
	struct jail_spec s;
	struct cell_err e;

	spec_with(&s, -1, -1, -1);
	assert_int_equal(cgroup_deleg_check(&none, &s, &e), 0);
	/* device rules are no limit when rootless: the nodes are the host's */
	const struct jail_device_rule null = {true, 'c', 1, 3, "rwm"};

	assert_int_equal(spec_add_device_rule(&s, &null, &e), 0);
	assert_true(cgroup_wanted(&s));
	assert_int_equal(cgroup_deleg_check(&none, &s, &e), 0);
	/* nor is an OCI container's wish for every controller */
	s.cgroup_always = true;
	assert_int_equal(cgroup_deleg_check(&none, &s, &e), 0);
	spec_free(&s);
}

static void a_controller_the_subtree_lacks_is_refused_naming_it(void **state)
{
	/* a hybrid host's cgroup2: only what v1 left it */
	struct cgroup_deleg hybrid = {.mnt = "/sys/fs/cgroup/unified",
				      .dir = "/sys/fs/cgroup/unified/u",
				      .ctrls = 1U << CGROUP_FREEZER};
	struct cgroup_deleg mp = {.mnt = "/sys/fs/cgroup",
				  .dir = "/sys/fs/cgroup/d",
				  .ctrls = 1U << CGROUP_PIDS | 1U << CGROUP_MEMORY |
					   1U << CGROUP_FREEZER};
	struct jail_spec s;
	struct cell_err e;

	spec_with(&s, 20, -1, -1);
	assert_int_equal(cgroup_deleg_check(&hybrid, &s, &e), -1);
	assert_int_equal(e.about.param, PARAM_NRTASK);
	assert_non_null(strstr(e.msg, "needs the pids controller of a delegated cgroup v2 "
				      "subtree (rootless, and /sys/fs/cgroup/unified/u has none)"));
	assert_int_equal(cgroup_deleg_check(&mp, &s, &e), 0);
	spec_free(&s);

	spec_with(&s, 20, 64 << 20, 500);
	assert_int_equal(cgroup_deleg_check(&mp, &s, &e), -1);
	assert_int_equal(e.about.param, PARAM_CPUS);
	assert_non_null(strstr(e.msg, "needs the cpu controller of a delegated cgroup v2 subtree "
				      "(rootless, and /sys/fs/cgroup/d has pids memory)"));
	spec_free(&s);
}

static void the_jails_cgroup_goes_in_a_cell_directory_of_the_subtree(void **state)
{
	char deleg[256], want[300], own[300];
	struct cgroup cg;
	struct cgroup from;
	struct cell_err e;
	struct cgroup_where w = {.leaf = "cell-web", .deleg = deleg, .mnt = top};

	NEED_ROOT();
	snprintf(deleg, sizeof(deleg), "%s/user.slice/user-4242.slice/user@4242.service", top);
	snprintf(own, sizeof(own), "0::%s\n", scope);
	w.own_text = own;
	cgroup_init(&cg);
	cgroup_init(&from);
	cg.layout = from.layout = CGROUP_V2;
	assert_int_equal(cgroup_v2_ops.plan(&cg, &w, &from, &e), 0);
	snprintf(want, sizeof(want), "%s/cell/cell-web", deleg);
	assert_string_equal(cg.path, want);
	assert_string_equal(cg.deleg, deleg);
	assert_int_equal(cg.path_made, 2); /* "cell" too: no other jail made it */
	snprintf(want, sizeof(want), "%s%s", top, scope);
	assert_string_equal(from.path, want);
	cgroup_release(&cg);
	cgroup_release(&from);

	/* "cell" there (another jail's): only the jail's own is made */
	snprintf(want, sizeof(want), "%s/cell", deleg);
	assert_int_equal(mkdir(want, 0755), 0);
	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	assert_int_equal(cgroup_v2_ops.plan(&cg, &w, NULL, &e), 0);
	assert_int_equal(cg.path_made, 1);
	cgroup_release(&cg);
	assert_int_equal(rmdir(want), 0);

	/* beneath --cgroup-parent: directly */
	w.cgparent = "app.slice";
	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	assert_int_equal(cgroup_v2_ops.plan(&cg, &w, NULL, &e), 0);
	snprintf(want, sizeof(want), "%s/cell-web", deleg);
	assert_string_equal(cg.path, want);
	assert_int_equal(cg.path_made, 1);
	cgroup_release(&cg);
}

static void a_delegated_record_round_trips_and_must_be_above_its_path(void **state)
{
	struct cgroup cg, back;
	struct cell_err e;
	json_t *j, *bad;

	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	cg.path = strdup("/sys/fs/cgroup/u/cell/cell-web");
	cg.deleg = strdup("/sys/fs/cgroup/u");
	cg.path_made = 2;
	j = cgroup_to_json(&cg);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "delegated")), "/sys/fs/cgroup/u");
	assert_int_equal(cgroup_from_json(&back, j, &e), 0);
	assert_string_equal(back.deleg, cg.deleg);
	assert_string_equal(back.path, cg.path);
	assert_int_equal(back.path_made, 2);
	cgroup_release(&back);

	bad = json_deep_copy(j);
	json_object_set_new(bad, "delegated", json_string("/sys/fs/cgroup/elsewhere"));
	assert_int_equal(cgroup_from_json(&back, bad, &e), -1);
	json_object_set_new(bad, "delegated", json_string("/sys/fs/cgroup/u/cell/cell-web"));
	assert_int_equal(cgroup_from_json(&back, bad, &e), -1);
	json_decref(bad);
	json_decref(j);
	cgroup_release(&cg);
}

/* Writes TEXT to PATH; 0 or -1. */
static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? write(fd, text, strlen(text)) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The user's side of the real-cgroup2 test, as rootless cell runs: its
 * own user namespace mapping 0 to USER, in DELEG/shell.  Returns the
 * step that failed (its exit status), 0 when all held. */
static int as_user(const char *deleg)
{
	char map[32], text[512], want[512];
	struct cgroup_deleg d;
	struct cgroup cg;
	struct cell_err e;
	struct cgroup_where w = {.leaf = "cell-t", .want = 1U << CGROUP_FREEZER};
	int pidfd = -1, status, ret;
	char *in;
	pid_t pid;

	snprintf(map, sizeof(map), "0 %d 1", USER);
	/* dumpable again after the uid change: else /proc/self's maps stay
	 * root's */
	if (setgroups(0, NULL) < 0 || setresgid(USER, USER, USER) < 0 ||
	    setresuid(USER, USER, USER) < 0 || prctl(PR_SET_DUMPABLE, 1) < 0 ||
	    unshare(CLONE_NEWUSER) < 0 || put("/proc/self/setgroups", "deny") < 0 ||
	    put("/proc/self/uid_map", map) < 0 || put("/proc/self/gid_map", map) < 0)
		return 2;
	if (cgroup_deleg_host(&d, NULL, &e) < 0 || d.dir == NULL || strcmp(d.dir, deleg) != 0)
		return 3;
	if (proc_read_text("/proc/self/cgroup", text, sizeof(text)) < 0)
		return 4;
	cgroup_init(&cg);
	cg.layout = CGROUP_V2;
	w.own_text = text;
	w.deleg = d.dir;
	w.mnt = d.mnt;
	if (cgroup_v2_ops.plan(&cg, &w, NULL, &e) < 0 || cg.path_made != 2 ||
	    cgroup_v2_ops.make(&cg, w.want, 0, &e) < 0)
		return 5;
	/* cloned straight in: the move from DELEG/shell needs DELEG's
	 * cgroup.procs, the user's */
	pid = ns_clone(0, cg.fd, &pidfd);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (pid < 0)
		return 6;
	/* on a hybrid host /proc/PID/cgroup has the v1 lines too */
	snprintf(want, sizeof(want), "%s/cell/cell-t", deleg + strlen(d.mnt));
	snprintf(map, sizeof(map), "/proc/%d/cgroup", (int)pid);
	in = proc_read_text(map, text, sizeof(text)) < 0 ? NULL : cgroup_parse_own(text, NULL);
	ret = in != NULL && strcmp(in, want) == 0 ? 0 : 7;
	free(in);
	/* killed through the cgroup, whatever happened */
	if (cgroup_kill(&cg, &e) < 0)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return 8;
	if (ret != 0)
		return ret;
	/* both directories cell made go, "cell" with the last jail */
	if (cgroup_destroy(&cg, &e) < 0)
		return 9;
	snprintf(want, sizeof(want), "%s/cell", deleg);
	if (access(want, F_OK) == 0)
		return 10;
	cgroup_deleg_free(&d);
	return 0;
}

static void a_plain_user_makes_and_removes_a_jails_cgroup_in_a_real_delegated_one(void **state)
{
	const char *mnt = NULL;
	char deleg[128], shell[160], f[200], pidtext[16];
	const char *files[] = {"", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads"};
	struct statfs st;
	int status;
	pid_t pid;

	NEED_ROOT();
	if (statfs("/sys/fs/cgroup", &st) == 0 && st.f_type == 0x63677270)
		mnt = "/sys/fs/cgroup";
	else if (statfs("/sys/fs/cgroup/unified", &st) == 0 && st.f_type == 0x63677270)
		mnt = "/sys/fs/cgroup/unified";
	if (mnt == NULL)
		skip();
	snprintf(deleg, sizeof(deleg), "%s/cell-test-deleg-%d", mnt, (int)getpid());
	snprintf(shell, sizeof(shell), "%s/shell", deleg);
	if (mkdir(deleg, 0755) < 0)
		skip(); /* not ours to write (a container's read-only cgroup2) */
	assert_int_equal(mkdir(shell, 0755), 0);
	/* root delegates DELEG as systemd does: it and three files */
	for (size_t i = 0; i < 4; i++) {
		snprintf(f, sizeof(f), "%s%s", deleg, files[i]);
		assert_int_equal(chown(f, USER, USER), 0);
	}
	pid = fork();
	if (pid == 0) {
		/* root puts the user's process in DELEG/shell (the user may
		 * not move it there from a cgroup of root's) */
		snprintf(pidtext, sizeof(pidtext), "%d", (int)getpid());
		if (cgroup_write(shell, "cgroup.procs", pidtext) < 0)
			_exit(1);
		_exit(as_user(deleg));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	rmdir(shell);
	snprintf(f, sizeof(f), "%s/cell/cell-t", deleg);
	rmdir(f);
	snprintf(f, sizeof(f), "%s/cell", deleg);
	rmdir(f);
	assert_int_equal(rmdir(deleg), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_topmost_directory_the_user_owns_is_the_delegated_one),
		cmocka_unit_test(a_directory_whose_cgroup_procs_is_roots_is_not_delegated),
		cmocka_unit_test(a_cell_in_a_cgroup_of_roots_finds_none),
		cmocka_unit_test(the_root_of_a_tree_the_user_owns_is_delegated),
		cmocka_unit_test(a_cgroup_parent_must_be_the_users),
		cmocka_unit_test(a_cgroup_parent_beside_cells_cgroup_needs_their_common_ancestor),
		cmocka_unit_test(a_limit_without_delegation_is_refused_saying_how),
		cmocka_unit_test(a_jail_that_needs_no_cgroup_runs_without_delegation),
		cmocka_unit_test(a_controller_the_subtree_lacks_is_refused_naming_it),
		cmocka_unit_test(the_jails_cgroup_goes_in_a_cell_directory_of_the_subtree),
		cmocka_unit_test(a_delegated_record_round_trips_and_must_be_above_its_path),
		cmocka_unit_test(
			a_plain_user_makes_and_removes_a_jails_cgroup_in_a_real_delegated_one),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
