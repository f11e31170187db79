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

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
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

/* A handle knows whether the record is still the one it wrote: another
 * command's write (a second handle, as cell set's) replaces it. */
static void a_record_replaced_by_another_is_seen_rewritten(void **state)
{
	struct store_jail a, b;
	struct cell_err e;
	json_t *st = self_state();
	char dir[256];
	int rootfd = test_root("rewritten", dir, sizeof(dir));

	assert_int_equal(store_jail_create(rootfd, "web", NULL, NULL, &a, &e), 0);
	assert_true(store_jail_rewritten(&a)); /* none written yet */
	assert_int_equal(store_jail_write(&a, st, &e), 0);
	assert_false(store_jail_rewritten(&a));
	assert_int_equal(store_jail_write(&a, st, &e), 0);
	assert_false(store_jail_rewritten(&a));
	b = a;
	b.written_ino = 0;
	assert_int_equal(store_jail_write(&b, st, &e), 0);
	assert_true(store_jail_rewritten(&a));
	assert_false(store_jail_rewritten(&b));
	json_decref(st);
	assert_int_equal(store_jail_remove(rootfd, &a, &e), 0);
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
	/* cell's own (its jid file says so). */
	snprintf(path, sizeof(path), "%s/old/jid", dir);
	assert_int_equal(write_file(path, "7\n"), 0);
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

static void jids_are_the_lowest_free_and_stable(void **state)
{
	struct store_jail a, b, c, d;
	struct cell_err e;
	char dir[256];
	int rootfd = test_root("jid", dir, sizeof(dir));

	assert_int_equal(store_jail_create(rootfd, "a", NULL, NULL, &a, &e), 0);
	assert_int_equal(store_jail_create(rootfd, "b", NULL, NULL, &b, &e), 0);
	assert_int_equal(store_jail_create(rootfd, "c", NULL, NULL, &c, &e), 0);
	assert_int_equal(a.jid, 1);
	assert_int_equal(b.jid, 2);
	assert_int_equal(c.jid, 3);
	/* b's JID is free again once b is gone; a and c keep theirs. */
	assert_int_equal(store_jail_remove(rootfd, &b, &e), 0);
	assert_int_equal(store_jail_create(rootfd, "d", NULL, NULL, &d, &e), 0);
	assert_int_equal(d.jid, 2);
	store_jail_unlock(&a);
	store_jail_close(&a);
	assert_int_equal(store_jail_open(rootfd, "a", &a, &e), 0);
	assert_int_equal(a.jid, 1);
	assert_int_equal(store_jail_remove(rootfd, &a, &e), 0);
	assert_int_equal(store_jail_remove(rootfd, &c, &e), 0);
	assert_int_equal(store_jail_remove(rootfd, &d, &e), 0);
	close(rootfd);
}

static void a_crashed_creators_temporary_directory_is_removed(void **state)
{
	struct store_jail j;
	struct cell_err e;
	char dir[256], path[300];
	int rootfd = test_root("tmp", dir, sizeof(dir));

	snprintf(path, sizeof(path), "%s/.new-1-deadbeef", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(store_jail_create(rootfd, "x", NULL, NULL, &j, &e), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(store_jail_remove(rootfd, &j, &e), 0);
	assert_int_equal(count_entries(dir), 0);
	close(rootfd);
}

/* cell --root DIR ls once deleted every directory of DIR that was no
 * jail: a directory without cell's jid file is never listed, opened,
 * peeked at, reclaimed or removed, and a temporary holding more than
 * cell puts there stays. */
static void directories_cell_did_not_make_are_left_alone(void **state)
{
	struct store_jail j;
	struct cell_err e;
	char dir[256], path[300], **names;
	size_t n;
	int rootfd = test_root("foreign", dir, sizeof(dir));

	snprintf(path, sizeof(path), "%s/mine", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/mine/state.json", dir);
	assert_int_equal(write_file(path, "{}"), 0);
	snprintf(path, sizeof(path), "%s/.new-1-deadbeef", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.new-1-deadbeef/data", dir);
	assert_int_equal(write_file(path, "x"), 0);

	assert_int_equal(store_list(rootfd, &names, &n, &e), 0);
	assert_int_equal(n, 0);
	store_names_free(names, n);
	assert_null(store_jail_peek(rootfd, "mine"));
	assert_int_equal(store_jail_open(rootfd, "mine", &j, &e), -1);
	assert_int_equal(e.errnum, ENOENT);
	assert_int_equal(store_jail_trylock(rootfd, "mine", &j), -1);
	assert_int_equal(store_jail_create(rootfd, "mine", NULL, NULL, &j, &e), -1);
	/* A jail made meanwhile lists the root: the temporary stays. */
	assert_int_equal(store_jail_create(rootfd, "other", NULL, NULL, &j, &e), 0);
	assert_int_equal(store_jail_remove(rootfd, &j, &e), 0);
	snprintf(path, sizeof(path), "%s/mine/state.json", dir);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/.new-1-deadbeef/data", dir);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/.new-1-deadbeef", dir);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/mine/state.json", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/mine", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(count_entries(dir), 0);
	close(rootfd);
}

/* A state root that does not exist is not made by a reader. */
static void an_existing_root_is_opened_and_a_missing_one_is_not_made(void **state)
{
	struct cell_err e;
	char dir[256], path[300];
	int rootfd = test_root("exist", dir, sizeof(dir)), fd;

	assert_int_equal(store_open_root_existing(dir, &fd, &e), 0);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(store_open_root_existing(path, &fd, &e), 0);
	assert_int_equal(fd, -1);
	assert_int_equal(access(path, F_OK), -1);
	close(rootfd);
}

static void open_and_relock_see_a_jail_replaced_meanwhile(void **state)
{
	struct store_jail a, b, t;
	struct cell_err e;
	char dir[256];
	int rootfd = test_root("replace", dir, sizeof(dir));

	assert_int_equal(store_jail_open(rootfd, "none", &a, &e), -1);
	assert_int_equal(e.errnum, ENOENT);
	assert_int_equal(store_jail_create(rootfd, "web", NULL, NULL, &a, &e), 0);
	store_jail_unlock(&a);
	/* Another command removes web and makes a new one of that name. */
	assert_int_equal(store_jail_open(rootfd, "web", &b, &e), 0);
	/* b holds it: a second try does not wait, and fails. */
	assert_int_equal(store_jail_trylock(rootfd, "web", &t), -1);
	assert_int_equal(store_jail_remove(rootfd, &b, &e), 0);
	assert_int_equal(store_jail_create(rootfd, "web", NULL, NULL, &b, &e), 0);
	store_jail_unlock(&b);
	/* a's directory is gone: relock says so, and removing it leaves
	 * the new web alone. */
	assert_int_equal(store_jail_relock(rootfd, &a), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(store_jail_remove(rootfd, &a, &e), 0);
	/* The new web and its JID's marker. */
	assert_int_equal(count_entries(dir), 2);
	assert_int_equal(store_jail_relock(rootfd, &b), 0);
	assert_int_equal(store_jail_remove(rootfd, &b, &e), 0);
	assert_int_equal(count_entries(dir), 0);
	close(rootfd);
}

static void list_names_jails_sorted_and_skips_temporaries(void **state)
{
	struct store_jail a, b;
	struct cell_err e;
	char dir[256], path[300], **names;
	size_t n;
	int rootfd = test_root("list", dir, sizeof(dir));

	assert_int_equal(store_jail_create(rootfd, "zeta", NULL, NULL, &a, &e), 0);
	assert_int_equal(store_jail_create(rootfd, "alpha", NULL, NULL, &b, &e), 0);
	snprintf(path, sizeof(path), "%s/.new-9-00000000", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(store_list(rootfd, &names, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "alpha");
	assert_string_equal(names[1], "zeta");
	store_names_free(names, n);
	rmdir(path);
	assert_int_equal(store_jail_remove(rootfd, &a, &e), 0);
	assert_int_equal(store_jail_remove(rootfd, &b, &e), 0);
	close(rootfd);
}

static void a_remover_s_leftover_marker_frees_its_jid(void **state)
{
	struct store_jail j;
	struct cell_err e;
	char dir[256], path[300];
	int rootfd = test_root("marker", dir, sizeof(dir));

	/* A remover that died between the directory and the marker. */
	snprintf(path, sizeof(path), "%s/.jid.1.gone", dir);
	assert_int_equal(symlink(".", path), 0);
	assert_int_equal(store_jail_create(rootfd, "x", NULL, NULL, &j, &e), 0);
	assert_int_equal(j.jid, 1);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(store_jail_remove(rootfd, &j, &e), 0);
	assert_int_equal(count_entries(dir), 0);
	close(rootfd);
}

static void a_jail_without_a_marker_keeps_its_jid(void **state)
{
	struct store_jail j;
	struct cell_err e;
	char dir[256], path[300];
	int rootfd = test_root("nomarker", dir, sizeof(dir)), fd;

	/* A jail made before markers: only its jid file says 1. */
	snprintf(path, sizeof(path), "%s/old", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/old/jid", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1\n", 2), 2);
	close(fd);
	assert_int_equal(store_jail_create(rootfd, "new", NULL, NULL, &j, &e), 0);
	assert_int_equal(j.jid, 2);
	assert_int_equal(store_jail_remove(rootfd, &j, &e), 0);
	close(rootfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_root_creates_missing_directories),
		cmocka_unit_test(create_write_read_remove_round_trip),
		cmocka_unit_test(a_record_replaced_by_another_is_seen_rewritten),
		cmocka_unit_test(a_live_name_cannot_be_created_twice),
		cmocka_unit_test(a_dead_jails_leftovers_are_reclaimed),
		cmocka_unit_test(a_record_with_a_recycled_pid_is_stale),
		cmocka_unit_test(jids_are_the_lowest_free_and_stable),
		cmocka_unit_test(directories_cell_did_not_make_are_left_alone),
		cmocka_unit_test(an_existing_root_is_opened_and_a_missing_one_is_not_made),
		cmocka_unit_test(a_crashed_creators_temporary_directory_is_removed),
		cmocka_unit_test(open_and_relock_see_a_jail_replaced_meanwhile),
		cmocka_unit_test(list_names_jails_sorted_and_skips_temporaries),
		cmocka_unit_test(a_remover_s_leftover_marker_frees_its_jid),
		cmocka_unit_test(a_jail_without_a_marker_keeps_its_jid),
	};
	return cmocka_run_group_tests_name("store", tests, setup, teardown);
}
