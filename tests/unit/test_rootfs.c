/*
 * Unit tests of the rules of a jail tree made from a list of mounts
 * (rootfs_oci.c): paths, mount attributes, id translation, filesystem
 * options, mounts inside /proc, sysctls, and rootfs_check() of such a
 * spec.  What needs mounts is tested from outside (tests/oci/mounts.bats).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rootfs.h"
#include "rootfs_impl.h"
#include "spec.h"

static char dir[] = "/tmp/cell-unit-rootfs-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void clean(const char *in, const char *want)
{
	char out[PATH_MAX];

	assert_int_equal(rootfs_clean_path(in, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void paths_are_cleaned_and_dotdot_is_refused(void **state)
{
	char out[PATH_MAX], small[4];

	clean("/proc", "/proc");
	clean("/a//b/./c/", "/a/b/c");
	clean("dev/shm", "/dev/shm");
	clean("/", "/");
	clean("/./", "/");
	clean("/a/.b/..c", "/a/.b/..c");
	assert_int_equal(rootfs_clean_path("/a/../b", out, sizeof(out)), -1);
	assert_int_equal(rootfs_clean_path("..", out, sizeof(out)), -1);
	assert_int_equal(rootfs_clean_path("/dev/..", out, sizeof(out)), -1);
	assert_int_equal(rootfs_clean_path("/abcd", small, sizeof(small)), -1);
	assert_int_equal(rootfs_clean_path(NULL, out, sizeof(out)), -1);
}

static void mount_flags_become_attributes_to_set_and_clear(void **state)
{
	struct mount_attr a = {0};

	rootfs_mount_attrs(MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_BIND | MS_REC, 0, &a);
	assert_int_equal(a.attr_set, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					     MOUNT_ATTR_NOEXEC);
	assert_int_equal(a.attr_clr, 0);
	/* "rw", "suid", "dev", "exec" clear what the source mount had. */
	rootfs_mount_attrs(MS_NOSUID, MS_RDONLY | MS_NODEV | MS_NOEXEC, &a);
	assert_int_equal(a.attr_set, MOUNT_ATTR_NOSUID);
	assert_int_equal(a.attr_clr, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	/* Set wins over cleared. */
	rootfs_mount_attrs(MS_RDONLY, MS_RDONLY, &a);
	assert_int_equal(a.attr_set, MOUNT_ATTR_RDONLY);
	assert_int_equal(a.attr_clr, 0);
	rootfs_mount_attrs(MS_NODIRATIME, 0, &a);
	assert_int_equal(a.attr_set, MOUNT_ATTR_NODIRATIME);
}

static void the_access_time_mode_is_one_field(void **state)
{
	struct mount_attr a = {0};

	rootfs_mount_attrs(MS_NOATIME, 0, &a);
	assert_int_equal(a.attr_set, MOUNT_ATTR_NOATIME);
	assert_int_equal(a.attr_clr, MOUNT_ATTR__ATIME);
	rootfs_mount_attrs(MS_STRICTATIME, 0, &a);
	assert_int_equal(a.attr_set, MOUNT_ATTR_STRICTATIME);
	assert_int_equal(a.attr_clr, MOUNT_ATTR__ATIME);
	rootfs_mount_attrs(MS_RELATIME, 0, &a);
	assert_int_equal(a.attr_set, MOUNT_ATTR_RELATIME);
	assert_int_equal(a.attr_clr, MOUNT_ATTR__ATIME);
	/* "atime" clears noatime: the kernel's default, relatime. */
	rootfs_mount_attrs(0, MS_NOATIME, &a);
	assert_int_equal(a.attr_set, 0);
	assert_int_equal(a.attr_clr, MOUNT_ATTR__ATIME);
	/* Nothing said: the field is left as the source had it. */
	rootfs_mount_attrs(MS_NOSUID, 0, &a);
	assert_int_equal(a.attr_clr & MOUNT_ATTR__ATIME, 0);
}

static void ids_map_through_every_line_and_no_further(void **state)
{
	const struct jail_idmap map[] = {{0, 100000, 1000}, {1000, 5000, 1}, {4294967294U, 7, 1}};
	uint32_t out = 0;

	assert_int_equal(rootfs_map_id(map, 3, 0, &out), 0);
	assert_int_equal(out, 100000);
	assert_int_equal(rootfs_map_id(map, 3, 999, &out), 0);
	assert_int_equal(out, 100999);
	assert_int_equal(rootfs_map_id(map, 3, 1000, &out), 0);
	assert_int_equal(out, 5000);
	assert_int_equal(rootfs_map_id(map, 3, 1001, &out), -1);
	assert_int_equal(rootfs_map_id(map, 3, 4294967294U, &out), 0);
	assert_int_equal(out, 7);
	assert_int_equal(rootfs_map_id(map, 0, 0, &out), -1);
}

static void host_ids_come_from_the_maps_the_range_or_are_the_same(void **state)
{
	struct jail_idmap uid = {0, 200000, 65536}, gid = {0, 300000, 65536};
	struct jail_mechanisms m = {0};
	struct rootfs_ids range = {.userns = 3, .uid = 1 << 30, .gid = (1 << 30) + 7};
	struct rootfs_ids none = {.userns = -1};
	uint32_t out;

	assert_int_equal(rootfs_host_id(&m, &none, false, 42, &out), 0);
	assert_int_equal(out, 42);
	assert_int_equal(rootfs_host_id(&m, &range, true, 5, &out), 0);
	assert_int_equal(out, (1U << 30) + 12);
	m.uid_map = &uid;
	m.nuid_map = 1;
	m.gid_map = &gid;
	m.ngid_map = 1;
	assert_int_equal(rootfs_host_id(&m, &range, false, 5, &out), 0);
	assert_int_equal(out, 200005);
	assert_int_equal(rootfs_host_id(&m, &none, true, 5, &out), 0);
	assert_int_equal(out, 300005);
	assert_int_equal(rootfs_host_id(&m, &none, true, 70000, &out), -1);
}

static void data(const struct jail_mount *m, const struct jail_mechanisms *mech, const char *want)
{
	struct rootfs_ids none = {.userns = -1};
	struct cell_err e;
	char *out = NULL;

	assert_int_equal(rootfs_mount_data(m, mech, &none, &out, &e), 0);
	if (want == NULL) {
		assert_null(out);
	} else {
		assert_non_null(out);
		assert_string_equal(out, want);
	}
	free(out);
}

static void fs_options_carry_the_jails_ids_as_the_hosts(void **state)
{
	struct jail_idmap uid = {0, 200000, 65536}, gid = {0, 300000, 65536};
	struct jail_mechanisms mech = {0};
	struct jail_mount tmpfs = {
		.type = "tmpfs", .destination = "/tmp", .data = "mode=1777,size=1m"};
	struct jail_mount pts = {.type = "devpts",
				 .destination = "/dev/pts",
				 .data = "newinstance,ptmxmode=0666,gid=5,mode=0620"};
	struct jail_mount proc = {
		.type = "proc", .destination = "/proc", .data = "hidepid=2,gid=5"};
	struct jail_mount bad = {.type = "tmpfs", .destination = "/x", .data = "uid=70000"};
	struct rootfs_ids none = {.userns = -1};
	struct cell_err e;
	char *out = NULL;

	/* The host's ids are the jail's: as given. */
	data(&tmpfs, &mech, "mode=1777,size=1m");
	data(&pts, &mech, "newinstance,ptmxmode=0666,gid=5,mode=0620");
	data(&proc, &mech, "hidepid=2,gid=5");
	mech.uid_map = &uid;
	mech.nuid_map = 1;
	mech.gid_map = &gid;
	mech.ngid_map = 1;
	/* A tmpfs is its root's; devpts' tty group is the jail's gid 5. */
	data(&tmpfs, &mech, "mode=1777,size=1m,uid=200000,gid=300000");
	data(&pts, &mech, "newinstance,ptmxmode=0666,gid=300005,mode=0620");
	/* Another filesystem's options are its own business. */
	data(&proc, &mech, "hidepid=2,gid=5");
	tmpfs.data = "uid=1000,,mode=700";
	data(&tmpfs, &mech, "uid=201000,mode=700,gid=300000");
	assert_int_equal(rootfs_mount_data(&bad, &mech, &none, &out, &e), -1);
	assert_non_null(strstr(e.msg, "uid=70000: not mapped"));
	bad.data = "uid=x1";
	assert_int_equal(rootfs_mount_data(&bad, &mech, &none, &out, &e), -1);
	assert_non_null(strstr(e.msg, "not an id"));
}

static void superblock_flags_become_fs_options(void **state)
{
	struct jail_mechanisms mech = {0};
	struct jail_mount m = {
		.type = "tmpfs", .destination = "/x", .flags = MS_SYNCHRONOUS | MS_DIRSYNC};

	data(&m, &mech, "sync,dirsync");
	m.data = "size=1m";
	data(&m, &mech, "size=1m,sync,dirsync");
	m.flags = MS_NOSUID;
	m.data = NULL;
	data(&m, &mech, NULL);
}

static void fs_options_split_into_keys_values_and_flags(void **state)
{
	char text[] = "mode=755,,size=64k,newinstance";
	char two[] = "a,b,c";
	struct fs_opt opts[5], few[3];

	assert_int_equal(rootfs_split_options(text, opts, 5), 3);
	assert_string_equal(opts[0].key, "mode");
	assert_string_equal(opts[0].value, "755");
	assert_string_equal(opts[1].key, "size");
	assert_string_equal(opts[1].value, "64k");
	assert_string_equal(opts[2].key, "newinstance");
	assert_null(opts[2].value);
	assert_null(opts[3].key);
	assert_int_equal(rootfs_split_options(two, few, 3), -1);
	assert_int_equal(rootfs_split_options(NULL, opts, 5), 0);
	assert_null(opts[0].key);
}

static void mounts_inside_proc_are_refused_but_procs_and_lxcfs_files(void **state)
{
	struct cell_err e;

	assert_int_equal(rootfs_check_proc_dest("/proc", false, false, &e), 0);
	assert_int_equal(rootfs_check_proc_dest("/proc", true, true, &e), 0);
	assert_int_equal(rootfs_check_proc_dest("/proc", true, false, &e), -1);
	assert_int_equal(rootfs_check_proc_dest("/proc/cpuinfo", true, false, &e), 0);
	assert_int_equal(rootfs_check_proc_dest("/proc/meminfo", true, false, &e), 0);
	assert_int_equal(rootfs_check_proc_dest("/proc/sys", false, false, &e), -1);
	assert_non_null(strstr(e.msg, "/proc/sys lies inside /proc (refused)"));
	assert_int_equal(rootfs_check_proc_dest("/proc/self/fd", true, false, &e), -1);
	assert_int_equal(rootfs_check_proc_dest("/procx", true, false, &e), 0);
	assert_int_equal(rootfs_check_proc_dest("/dev", true, false, &e), 0);
}

static void only_sysctls_of_the_jails_own_namespaces_are_allowed(void **state)
{
	struct jail_namespace net = {.type = CLONE_NEWNET, .path = "/run/netns/x"};
	struct jail_mechanisms m = {0};
	struct cell_err e;

	assert_int_equal(rootfs_check_sysctl("kernel.shmmax", &m, &e), -1);
	assert_non_null(strstr(e.msg, "needs an IPC namespace"));
	assert_int_equal(rootfs_check_sysctl("net.ipv4.ip_forward", &m, &e), -1);
	assert_int_equal(rootfs_check_sysctl("kernel.domainname", &m, &e), -1);
	m.ns_new = CLONE_NEWIPC | CLONE_NEWUTS;
	assert_int_equal(rootfs_check_sysctl("kernel.shmmax", &m, &e), 0);
	assert_int_equal(rootfs_check_sysctl("kernel.msgmnb", &m, &e), 0);
	assert_int_equal(rootfs_check_sysctl("kernel.sem", &m, &e), 0);
	assert_int_equal(rootfs_check_sysctl("fs.mqueue.msg_max", &m, &e), 0);
	assert_int_equal(rootfs_check_sysctl("kernel.domainname", &m, &e), 0);
	assert_int_equal(rootfs_check_sysctl("kernel.hostname", &m, &e), -1);
	assert_int_equal(rootfs_check_sysctl("net.ipv4.ip_forward", &m, &e), -1);
	/* A network namespace joined by path is the jail's too. */
	m.ns_join = &net;
	m.nns_join = 1;
	assert_int_equal(rootfs_check_sysctl("net.ipv4.ip_forward", &m, &e), 0);
	assert_int_equal(rootfs_check_sysctl("vm.swappiness", &m, &e), -1);
	assert_non_null(strstr(e.msg, "not in a namespace of the jail's own"));
	assert_int_equal(rootfs_check_sysctl("kernel.pid_max", &m, &e), -1);
}

static void a_sysctl_name_with_a_slash_or_dotdot_is_refused(void **state)
{
	struct jail_mechanisms m = {.ns_new = CLONE_NEWNET | CLONE_NEWIPC};
	struct cell_err e;

	assert_int_equal(rootfs_check_sysctl("net/ipv4/ip_forward", &m, &e), -1);
	assert_int_equal(rootfs_check_sysctl("net...ipv4", &m, &e), -1);
	assert_int_equal(rootfs_check_sysctl("net.ipv4..conf", &m, &e), -1);
	assert_int_equal(rootfs_check_sysctl(".net.x", &m, &e), -1);
	assert_int_equal(rootfs_check_sysctl("", &m, &e), -1);
	assert_non_null(strstr(e.msg, "not a sysctl name"));
}

/* A spec that lists its mounts, on a root of the test's. */
static void listed_spec(struct jail_spec *s, struct jail_mount *mounts, size_t n)
{
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/root", dir);
	mkdir(root, 0755);
	spec_init(s);
	s->rootfs = strdup(root);
	s->mech.mounts_given = true;
	s->mech.mounts = mounts;
	s->mech.nmounts = n;
	s->mech.ns_new = CLONE_NEWNS | CLONE_NEWIPC;
}

static int check(struct jail_spec *s, struct cell_err *e)
{
	struct rootfs_pin pin;

	return rootfs_check(s, &pin, e);
}

static void a_listed_tree_is_checked_before_anything_is_made(void **state)
{
	struct jail_mount mounts[] = {
		{.type = "proc", .source = "proc", .destination = "/proc"},
		{.type = "tmpfs", .destination = "/dev//"},
		{.type = "bind", .source = "/etc", .destination = "/etc2", .flags = MS_BIND},
		{.type = "cgroup2", .destination = "/sys/fs/cgroup", .flags = MS_RDONLY},
		{.type = "cgroup", .destination = "/other"},
	};
	struct jail_device_node node = {.path = "/dev/net/tun", .type = 'c'};
	struct jail_sysctl sysctl = {.key = "kernel.shmmax", .value = "1"};
	struct jail_spec s;
	struct cell_err e;

	listed_spec(&s, mounts, 5);
	s.mech.dev_nodes = &node;
	s.mech.ndev_nodes = 1;
	s.mech.sysctls = &sysctl;
	s.mech.nsysctls = 1;
	assert_int_equal(check(&s, &e), 0);
	/* The first cgroup mount is the launch's to make. */
	assert_ptr_equal(rootfs_cgroup_mount(&s), &mounts[3]);
	s.mech.nmounts = 2;
	assert_null(rootfs_cgroup_mount(&s));
	free(s.rootfs);
}

static void refused(struct jail_mount m, const char *why)
{
	struct jail_spec s;
	struct cell_err e;

	listed_spec(&s, &m, 1);
	assert_int_equal(check(&s, &e), -1);
	if (strstr(e.msg, why) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", e.msg, why);
	free(s.rootfs);
}

static void bad_mounts_are_refused_with_their_index(void **state)
{
	refused((struct jail_mount){.type = "tmpfs", .destination = "/a/../etc"},
		"mounts[0] /a/../etc: destination /a/../etc: a \"..\" component");
	refused((struct jail_mount){.type = "tmpfs", .destination = "/"}, "destination /");
	refused((struct jail_mount){.type = "tmpfs", .destination = ""}, "an empty path");
	refused((struct jail_mount){.destination = "/x"}, "no filesystem type");
	refused((struct jail_mount){.source = "etc", .destination = "/x", .flags = MS_BIND},
		"bind source etc: not an absolute path");
	refused((struct jail_mount){.source = "/nonexistent-cell",
				    .destination = "/x",
				    .flags = MS_BIND},
		"bind source /nonexistent-cell: No such file");
	refused((struct jail_mount){.source = "/etc", .destination = "/proc", .flags = MS_BIND},
		"a bind on /proc of a source that is not a proc");
	refused((struct jail_mount){.type = "tmpfs", .destination = "/proc/sys/kernel"},
		"lies inside /proc");
}

static void bad_devices_sysctls_and_paths_are_refused(void **state)
{
	struct jail_device_node out = {.path = "/etc/null", .type = 'c'};
	struct jail_device_node up = {.path = "/dev/../etc/null", .type = 'c'};
	struct jail_device_node type = {.path = "/dev/x", .type = 'x'};
	struct jail_sysctl host = {.key = "vm.swappiness", .value = "1"};
	const char *masked[] = {"/proc/kcore", "/a/../b"};
	struct jail_spec s;
	struct cell_err e;

	listed_spec(&s, NULL, 0);
	s.mech.dev_nodes = &out;
	s.mech.ndev_nodes = 1;
	assert_int_equal(check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "not beneath /dev"));
	s.mech.dev_nodes = &up;
	assert_int_equal(check(&s, &e), -1);
	s.mech.dev_nodes = &type;
	assert_int_equal(check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "type x"));
	s.mech.ndev_nodes = 0;
	s.mech.sysctls = &host;
	s.mech.nsysctls = 1;
	assert_int_equal(check(&s, &e), -1);
	s.mech.nsysctls = 0;
	s.mech.masked = masked;
	s.mech.nmasked = 2;
	assert_int_equal(check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "masked path /a/../b"));
	s.mech.nmasked = 1;
	assert_int_equal(check(&s, &e), 0);
	free(s.rootfs);
}

static void a_listed_tree_needs_its_root(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	listed_spec(&s, NULL, 0);
	free(s.rootfs);
	s.rootfs = NULL;
	assert_int_equal(check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "needs its root's path"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paths_are_cleaned_and_dotdot_is_refused),
		cmocka_unit_test(mount_flags_become_attributes_to_set_and_clear),
		cmocka_unit_test(the_access_time_mode_is_one_field),
		cmocka_unit_test(ids_map_through_every_line_and_no_further),
		cmocka_unit_test(host_ids_come_from_the_maps_the_range_or_are_the_same),
		cmocka_unit_test(fs_options_carry_the_jails_ids_as_the_hosts),
		cmocka_unit_test(superblock_flags_become_fs_options),
		cmocka_unit_test(fs_options_split_into_keys_values_and_flags),
		cmocka_unit_test(mounts_inside_proc_are_refused_but_procs_and_lxcfs_files),
		cmocka_unit_test(only_sysctls_of_the_jails_own_namespaces_are_allowed),
		cmocka_unit_test(a_sysctl_name_with_a_slash_or_dotdot_is_refused),
		cmocka_unit_test(a_listed_tree_is_checked_before_anything_is_made),
		cmocka_unit_test(bad_mounts_are_refused_with_their_index),
		cmocka_unit_test(bad_devices_sysctls_and_paths_are_refused),
		cmocka_unit_test(a_listed_tree_needs_its_root),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
