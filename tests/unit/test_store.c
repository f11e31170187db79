/* Unit tests of store.c: creation, locking, stale state, removal. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc.h"
#include "store.h"

static char root[] = "/tmp/cell-unit-store-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(root) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static int count_entries(const char *dir)
{
	char cmd[512];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

/* Each test works in a state root of its own, root/NAME. */
static int test_root(const char *name, char *path, size_t len)
{
	struct cell_err e;
	int fd;

	snprintf(path, len, "%s/%s", root, name);
	assert_int_equal(store_open_root(path, &fd, &e), 0);
	return fd;
}

static void open_root_creates_missing_directories(void **state)
{
	char path[256];
	struct cell_err e;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/a/b/state", root);
	assert_int_equal(store_open_root(path, &fd, &e), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	close(fd);
}

static json_t *self_state(void)
{
	unsigned long long start;

	assert_int_equal(proc_start_time(getpid(), &start), 0);
	return json_pack("{s:s, s:I, s:I}", "name", "x", "pid", (json_int_t)getpid(), "start_time",
			 (json_int_t)start);
}

static void create_write_read_remove_round_trip(void **state)
{
	struct store_jail j;
	struct cell_err e;
	json_t *st, *back;
	char dir[256];
	int rootfd = test_root("trip", dir, sizeof(dir));

	assert_int_equal(store_jail_create(rootfd, "web", NULL, NULL, &j, &e), 0);
	st = self_state();
	assert_int_equal(store_jail_write(&j, st, &e), 0);
	back = store_jail_read(&j);
	assert_non_null(back);
	assert_true(json_equal(st, back));
	json_decref(st);
	json_decref(back);
	assert_int_equal(store_jail_remove(rootfd, &j, &e), 0);
	assert_int_equal(count_entries(dir), 0);
	close(rootfd);
}

static void a_live_name_cannot_be_created_twice(void **state)
{
	struct store_jail a, b;
	struct cell_err e;
	json_t *st;
	char dir[256];
	int rootfd = test_root("dup", dir, sizeof(dir));

	assert_int_equal(store_jail_create(rootfd, "dup", NULL, NULL, &a, &e), 0);
	st = self_state();
	store_jail_write(&a, st, &e);
	json_decref(st);
	/* Locked by a: in use. */
	assert_int_equal(store_jail_create(rootfd, "dup", NULL, NULL, &b, &e), -1);
	assert_non_null(strstr(e.msg, "already in use"));
	/* Unlocked, but the recorded pid (ours) still runs: in use too. */
	flock(a.dirfd, LOCK_UN);
	assert_int_equal(store_jail_create(rootfd, "dup", NULL, NULL, &b, &e), -1);
	assert_non_null(strstr(e.msg, "already in use"));
	assert_int_equal(store_jail_remove(rootfd, &a, &e), 0);
	/* The failed attempts left no temporary directory. */
	assert_int_equal(count_entries(dir), 0);
	close(rootfd);
}

static void a_dead_jails_leftovers_are_reclaimed(void **state)
{
	struct store_jail j;
	struct cell_err e;
	char dir[256], path[300];
	json_t *st;
	int rootfd = test_root("stale", dir, sizeof(dir)), status;
	pid_t pid;
	unsigned long long start = 0;

	/* A record naming a process that has exited (a zombie still has
	 * its start time; read it before reaping). */
	pid = fork();
	if (pid == 0)
		_exit(0);
	while (proc_start_time(pid, &start) < 0)
		;
	waitpid(pid, &status, 0);
	snprintf(path, sizeof(path), "%s/old", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/old/state.json", dir);
	st = json_pack("{s:I, s:I}", "pid", (json_int_t)pid, "start_time", (json_int_t)start);
	assert_int_equal(json_dump_file(st, path, 0), 0);
	json_decref(st);
	assert_int_equal(store_jail_create(rootfd, "old", NULL, NULL, &j, &e), 0);
	/* The reclaimed directory starts empty. */
	assert_null(store_jail_read(&j));
	assert_int_equal(store_jail_remove(rootfd, &j, &e), 0);
	assert_int_equal(count_entries(dir), 0);
	close(rootfd);
}

static void a_record_with_a_recycled_pid_is_stale(void **state)
{
	unsigned long long start;

	assert_int_equal(proc_start_time(getpid(), &start), 0);
	assert_true(proc_alive(getpid(), start));
	/* Same pid, another start time: another process. */
	assert_false(proc_alive(getpid(), start + 1));
	assert_false(proc_alive(0, start));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_root_creates_missing_directories),
		cmocka_unit_test(create_write_read_remove_round_trip),
		cmocka_unit_test(a_live_name_cannot_be_created_twice),
		cmocka_unit_test(a_dead_jails_leftovers_are_reclaimed),
		cmocka_unit_test(a_record_with_a_recycled_pid_is_stale),
	};
	return cmocka_run_group_tests_name("store", tests, setup, teardown);
}
