/*
 * Unit tests of idrange.c: where a jail's host ids come from (cell's
 * /etc/subuid and /etc/subgid entries, else the built-in pool, refused
 * when anyone's ids lie in it), that two jails never hold overlapping
 * ranges, that a range goes back only from its owner, and that a stale
 * range is taken over when the pool is full.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "idrange.h"

static char dir[] = "/tmp/cell-unit-idrange-XXXXXX";
static char slots[64], subuid[64], subgid[64], passwd[64], group[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(slots, sizeof(slots), "%s/slots", dir);
	snprintf(subuid, sizeof(subuid), "%s/subuid", dir);
	snprintf(subgid, sizeof(subgid), "%s/subgid", dir);
	snprintf(passwd, sizeof(passwd), "%s/passwd", dir);
	snprintf(group, sizeof(group), "%s/group", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* Each test starts with no files and no held ranges. */
static int clean(void **state)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A directory standing for a jail's state directory. */
static int make_jail(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static void without_subids_the_builtin_pool_is_used(void **state)
{
	struct idpool p;
	struct cell_err e;

	write_file(passwd, "root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n");
	write_file(group, "root:x:0:\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), 0);
	assert_int_equal(p.uid, IDRANGE_DEFAULT_BASE);
	assert_int_equal(p.gid, IDRANGE_DEFAULT_BASE);
	assert_int_equal(p.count, IDRANGE_DEFAULT_COUNT);
	assert_false(p.subids);
}

static void cells_subid_entries_are_the_pool(void **state)
{
	struct idpool p;
	struct cell_err e;

	write_file(subuid, "alice:100000:65536\ncell:2000000:262144\n");
	write_file(subgid, "cell:3000000:196608\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), 0);
	assert_int_equal(p.uid, 2000000);
	assert_int_equal(p.gid, 3000000);
	assert_int_equal(p.count, 196608); /* the smaller, whole ranges */
	assert_true(p.subids);
}

static void a_builtin_pool_holding_a_users_ids_is_refused(void **state)
{
	struct idpool p;
	struct cell_err e;

	write_file(passwd, "root:x:0:0::/root:/bin/sh\nbig:x:1073807360:100::/:/bin/sh\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), -1);
	assert_non_null(strstr(e.msg, "holds user big (1073807360"));
	assert_non_null(strstr(e.msg, "--userns host"));
	write_file(passwd, "root:x:0:0::/root:/bin/sh\n");
	write_file(group, "g:x:1500000000:\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), -1);
	assert_non_null(strstr(e.msg, "holds group g"));
}

static void a_builtin_pool_overlapping_a_subid_range_is_refused(void **state)
{
	struct idpool p;
	struct cell_err e;

	write_file(subgid, "bob:1073741000:100000\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), -1);
	assert_non_null(strstr(e.msg, "overlaps"));
	assert_non_null(strstr(e.msg, "bob:1073741000:100000"));
}

static void a_subid_range_in_the_builtin_pool_is_no_matter_with_cells_own(void **state)
{
	struct idpool p;
	struct cell_err e;

	/* One read of each file: the clash is found, and then not an error. */
	write_file(subuid, "bob:1073741000:100000\ncell:2000000:65536\n");
	write_file(subgid, "cell:3000000:65536\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), 0);
	assert_true(p.subids);
	/* Without cell's: the clash, named with its file. */
	write_file(subuid, "bob:1073741000:100000\n");
	write_file(subgid, "");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), -1);
	assert_non_null(strstr(e.msg, subuid));
	assert_non_null(strstr(e.msg, "bob:1073741000:100000"));
}

static void cell_with_uids_but_no_gids_is_an_error(void **state)
{
	struct idpool p;
	struct cell_err e;

	write_file(subuid, "cell:2000000:65536\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), -1);
	assert_non_null(strstr(e.msg, "not in"));
	write_file(subgid, "cell:2000000:100\n");
	assert_int_equal(idrange_pool(subuid, subgid, passwd, group, &p, &e), -1);
	assert_non_null(strstr(e.msg, "hold no 65536 ids"));
}

static const struct idpool pool3 = {2000000, 5000000, 3 * IDRANGE_SIZE, true};

static void two_jails_get_disjoint_ranges_and_a_full_pool_says_so(void **state)
{
	int a = make_jail("a"), b = make_jail("b"), c = make_jail("c"), d = make_jail("d");
	struct idrange ra, rb, rc, rd;
	struct cell_err e;

	assert_int_equal(idrange_take(slots, &pool3, dir, "a", a, &ra, &e), 0);
	assert_int_equal(idrange_take(slots, &pool3, dir, "b", b, &rb, &e), 0);
	assert_int_equal(ra.uid, 2000000);
	assert_int_equal(ra.gid, 5000000);
	assert_int_equal(ra.count, IDRANGE_SIZE);
	assert_int_equal(rb.uid, 2000000 + IDRANGE_SIZE);
	assert_int_equal(rb.gid, 5000000 + IDRANGE_SIZE);
	assert_int_equal(idrange_take(slots, &pool3, dir, "c", c, &rc, &e), 0);
	/* the owners' directories exist: nothing is stale */
	assert_int_equal(idrange_take(slots, &pool3, dir, "d", d, &rd, &e), -1);
	assert_non_null(strstr(e.msg, "all 3 id ranges"));
	/* a range goes back; the next jail gets it */
	idrange_release_in(slots, &rb, b);
	assert_int_equal(idrange_take(slots, &pool3, dir, "d", d, &rd, &e), 0);
	assert_int_equal(rd.uid, rb.uid);
	close(a);
	close(b);
	close(c);
	close(d);
}

static void a_range_goes_back_only_from_its_owner(void **state)
{
	int a = make_jail("a"), b = make_jail("b");
	struct idrange ra, rb;
	struct cell_err e;
	char path[128];

	assert_int_equal(idrange_take(slots, &pool3, dir, "a", a, &ra, &e), 0);
	idrange_release_in(slots, &ra, b); /* not b's */
	snprintf(path, sizeof(path), "%s/u%u-g%u", slots, (unsigned)ra.uid, (unsigned)ra.gid);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(idrange_take(slots, &pool3, dir, "b", b, &rb, &e), 0);
	assert_int_not_equal(rb.uid, ra.uid);
	idrange_release_in(slots, &ra, a);
	assert_int_equal(access(path, F_OK), -1);
	close(a);
	close(b);
}

static void a_jail_without_a_record_gives_back_what_it_holds(void **state)
{
	int a = make_jail("a"), b = make_jail("b");
	struct idrange ra, rb;
	struct cell_err e;
	char path[128];

	assert_int_equal(idrange_take(slots, &pool3, dir, "a", a, &ra, &e), 0);
	assert_int_equal(idrange_take(slots, &pool3, dir, "b", b, &rb, &e), 0);
	idrange_release_owner_in(slots, a);
	snprintf(path, sizeof(path), "%s/u%u-g%u", slots, (unsigned)ra.uid, (unsigned)ra.gid);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/u%u-g%u", slots, (unsigned)rb.uid, (unsigned)rb.gid);
	assert_int_equal(access(path, F_OK), 0);
	close(a);
	close(b);
}

static void a_held_range_off_the_pools_grid_blocks_every_range_it_meets(void **state)
{
	int a = make_jail("a");
	struct idrange ra;
	struct cell_err e;
	char path[128];

	/* held by a jail of an earlier pool, across ranges 0 and 1 of this
	 * one (its uids) */
	assert_int_equal(mkdir(slots, 0700), 0);
	snprintf(path, sizeof(path), "%s/u%u-g%u", slots, 2000000U + 100U, 9000000U);
	write_file(path, "dev 1\nino 1\nname x\nroot /nonexistent-but-in-doubt\n");
	assert_int_equal(idrange_take(slots, &pool3, dir, "a", a, &ra, &e), 0);
	assert_int_equal(ra.uid, 2000000 + 2 * IDRANGE_SIZE);
	close(a);
}

static void a_stale_range_is_taken_over_when_the_pool_is_full(void **state)
{
	int a = make_jail("a");
	struct idrange ra;
	struct cell_err e;
	char path[128];

	assert_int_equal(mkdir(slots, 0700), 0);
	/* owners gone: the directories do not exist (no process of this
	 * host runs under uids 2000000...) */
	for (unsigned int k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "%s/u%u-g%u", slots, 2000000U + k * IDRANGE_SIZE,
			 5000000U + k * IDRANGE_SIZE);
		write_file(path, "dev 1\nino 1\nname gone\nroot /nonexistent\n");
	}
	assert_int_equal(idrange_take(slots, &pool3, dir, "a", a, &ra, &e), 0);
	assert_int_equal(ra.uid, 2000000);
	close(a);
}

static void a_slots_directory_others_can_write_is_refused(void **state)
{
	int a = make_jail("a");
	struct idrange ra;
	struct cell_err e;

	assert_int_equal(mkdir(slots, 0700), 0);
	assert_int_equal(chmod(slots, 0777), 0);
	assert_int_equal(idrange_take(slots, &pool3, dir, "a", a, &ra, &e), -1);
	assert_non_null(strstr(e.msg, "refused"));
	close(a);
}

static void the_record_holds_the_maps_and_reads_back(void **state)
{
	struct idrange r = {1073741824, 1073807360, IDRANGE_SIZE}, back;
	json_t *j = idrange_to_json(&r);

	assert_string_equal(json_string_value(json_object_get(j, "uid_map")), "0 1073741824 65536");
	assert_string_equal(json_string_value(json_object_get(j, "gid_map")), "0 1073807360 65536");
	idrange_from_json(j, &back);
	assert_int_equal(back.uid, r.uid);
	assert_int_equal(back.gid, r.gid);
	assert_int_equal(back.count, r.count);
	json_decref(j);
	r.count = 0;
	j = idrange_to_json(&r);
	assert_true(json_is_null(j));
	idrange_from_json(j, &back);
	assert_int_equal(back.count, 0);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(without_subids_the_builtin_pool_is_used, clean),
		cmocka_unit_test_setup(cells_subid_entries_are_the_pool, clean),
		cmocka_unit_test_setup(a_builtin_pool_holding_a_users_ids_is_refused, clean),
		cmocka_unit_test_setup(a_builtin_pool_overlapping_a_subid_range_is_refused, clean),
		cmocka_unit_test_setup(
			a_subid_range_in_the_builtin_pool_is_no_matter_with_cells_own, clean),
		cmocka_unit_test_setup(cell_with_uids_but_no_gids_is_an_error, clean),
		cmocka_unit_test_setup(two_jails_get_disjoint_ranges_and_a_full_pool_says_so,
				       clean),
		cmocka_unit_test_setup(a_range_goes_back_only_from_its_owner, clean),
		cmocka_unit_test_setup(a_jail_without_a_record_gives_back_what_it_holds, clean),
		cmocka_unit_test_setup(a_held_range_off_the_pools_grid_blocks_every_range_it_meets,
				       clean),
		cmocka_unit_test_setup(a_stale_range_is_taken_over_when_the_pool_is_full, clean),
		cmocka_unit_test_setup(a_slots_directory_others_can_write_is_refused, clean),
		cmocka_unit_test_setup(the_record_holds_the_maps_and_reads_back, clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
