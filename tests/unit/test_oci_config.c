/*
 * Unit tests of oci_config.c (config.json -> struct jail_spec, the
 * default config, the features JSON) and of seccomp_oci.c (an OCI
 * profile compiled with libseccomp, then run in a child).
 *
 * Configs are written with single quotes for readability; q() turns
 * them into JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <seccomp.h>

#include "devices.h"
#include "oci_config.h"
#include "seccomp_oci.h"
#include "spec.h"

#define BUNDLE "/bundle"

/* TEXT with ' for " (a test's configs hold no quote of their own). */
static char *q(const char *text)
{
	char *out = strdup(text);

	assert_non_null(out);
	for (char *p = out; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	return out;
}

/* A config of the smallest process and root, with PROC added to the
 * process, LINUX as the linux object's members and TOP at the top (each
 * "" or members starting with a comma, LINUX without). */
static char *config(const char *proc, const char *lx, const char *top)
{
	char *text, *out;

	assert_true(
		asprintf(&text,
			 "{'ociVersion': '1.0.2-dev', 'process': {'args': ['sh'], 'cwd': '/'%s},"
			 " 'root': {'path': 'rootfs'}, 'linux': {%s}%s}",
			 proc, lx, top) > 0);
	out = q(text);
	free(text);
	return out;
}

static void parse_ok_text(const char *text, struct jail_spec *s)
{
	struct cell_err e;

	spec_init(s);
	e.msg[0] = '\0';
	if (oci_config_parse(text, strlen(text), BUNDLE, s, &e) < 0)
		fail_msg("unexpected error: %s", e.msg);
}

static void parse_ok(const char *proc, const char *lx, const char *top, struct jail_spec *s)
{
	char *text = config(proc, lx, top);

	parse_ok_text(text, s);
	free(text);
}

/* Parses TEXT expecting the one-line error MSG, exit code 125. */
static void text_fails(const char *text, const char *msg);

/* The same of TEXT in single quotes. */
static void q_fails(const char *text, const char *msg)
{
	char *json = q(text);

	text_fails(json, msg);
	free(json);
}

static void text_fails(const char *text, const char *msg)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(oci_config_parse(text, strlen(text), BUNDLE, &s, &e), -1);
	spec_free(&s);
	assert_string_equal(e.msg, msg);
	assert_null(strchr(e.msg, '\n'));
	assert_int_equal(e.exit_code, 125);
}

static void fails(const char *proc, const char *lx, const char *top, const char *msg)
{
	char *text = config(proc, lx, top);

	text_fails(text, msg);
	free(text);
}

static void a_minimal_config_gives_a_container_of_its_own_mechanisms(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	parse_ok("", "", "", &s);
	assert_false(s.policy);
	assert_false(s.init);
	assert_string_equal(s.rootfs, BUNDLE "/rootfs");
	assert_true(s.rw);
	assert_string_equal(s.proc.argv[0], "sh");
	assert_null(s.proc.argv[1]);
	assert_string_equal(s.proc.cwd, "/");
	assert_true(s.proc.has_user && s.proc.has_gid && s.proc.has_groups);
	/* HOME from the container's /etc/passwd, never its /etc/group's
	 * groups (runc's). */
	assert_true(s.proc.home_env);
	assert_false(s.proc.user_groups);
	assert_int_equal(s.proc.uid, 0);
	assert_int_equal(s.proc.ngroups, 0);
	/* No capabilities object: none, not "as they are". */
	assert_true(s.proc.has_caps);
	assert_int_equal(s.proc.caps.bounding | s.proc.caps.permitted, 0);
	assert_false(s.proc.no_new_privs);
	assert_int_equal(s.mech.ns_new, 0);
	assert_int_equal(s.mech.nns_join, 0);
	assert_int_equal(s.net, JAIL_NET_HOST);
	assert_int_equal(s.userns, JAIL_USERNS_HOST);
	assert_false(s.mech.own_userns);
	assert_int_equal(s.mech.seccomp, JAIL_SECCOMP_NONE);
	assert_int_equal(s.mech.landlock, 0);
	assert_false(s.mech.hide_state_root || s.mech.pin_priority);
	assert_true(s.mech.mounts_given && s.mech.paths_owned);
	assert_true(s.cgroup_always);
	assert_null(s.cgroup_path);
	assert_int_equal(s.ndevices, 0);
	assert_int_equal(s.mech.ndev_nodes, 6);
	assert_string_equal(s.mech.dev_nodes[0].path, "/dev/null");
	assert_int_equal(s.mech.dev_nodes[0].major, 1);
	assert_int_equal(s.mech.dev_nodes[0].minor, 3);
	assert_int_equal(s.mech.dev_nodes[0].mode, 0666);
	assert_string_equal(s.mech.dev_nodes[5].path, "/dev/tty");
	assert_int_equal(s.limits.memory, -1);
	assert_int_equal(s.limits.nrtask, -1);
	assert_null(s.hostname);
	s.name = strdup("abc");
	assert_int_equal(spec_validate(&s, &e), 0);
	spec_free(&s);
}

static void the_process_object_fills_every_field(void **state)
{
	struct jail_spec s;

	parse_ok(", 'args': ['/bin/echo', 'a b', ''], 'commandLine': 'ignored',"
		 " 'env': ['A=1', 'PATH=/bin', 'A=2', 'E='],"
		 " 'cwd': '/srv', 'terminal': true, 'consoleSize': {'height': 40, 'width': 120},"
		 " 'user': {'uid': 1000, 'gid': 100, 'umask': 18, 'additionalGids': [5, 6]},"
		 " 'rlimits': [{'type': 'RLIMIT_NOFILE', 'soft': 1024, 'hard': 4096},"
		 "   {'type': 'RLIMIT_CORE', 'soft': 0, 'hard': 18446744073709551615}],"
		 " 'capabilities': {'bounding': ['CAP_KILL', 'CAP_CHOWN', 'CAP_NOT_YET'],"
		 "   'effective': ['CAP_KILL'], 'inheritable': [], 'permitted': ['CAP_KILL'],"
		 "   'ambient': ['CAP_NET_RAW']},"
		 " 'noNewPrivileges': true, 'oomScoreAdj': -500,"
		 " 'apparmorProfile': 'prof', 'selinuxLabel': 'system_u:system_r:t:s0'",
		 "", "", &s);
	assert_string_equal(s.proc.argv[0], "/bin/echo");
	assert_string_equal(s.proc.argv[1], "a b");
	assert_string_equal(s.proc.argv[2], "");
	assert_null(s.proc.argv[3]);
	/* A later KEY replaces an earlier one, in its place. */
	assert_int_equal(s.proc.nenv, 3);
	assert_string_equal(s.proc.env[0], "A=2");
	assert_string_equal(s.proc.env[1], "PATH=/bin");
	assert_string_equal(s.proc.env[2], "E=");
	assert_null(s.proc.env[3]);
	assert_string_equal(s.proc.cwd, "/srv");
	assert_true(s.proc.terminal);
	assert_int_equal(s.proc.console_rows, 40);
	assert_int_equal(s.proc.console_cols, 120);
	assert_int_equal(s.proc.uid, 1000);
	assert_int_equal(s.proc.gid, 100);
	assert_true(s.proc.has_umask);
	assert_int_equal(s.proc.umask, 022);
	assert_int_equal(s.proc.ngroups, 2);
	assert_int_equal(s.proc.groups[1], 6);
	assert_int_equal(s.proc.nrlimits, 2);
	assert_int_equal(s.proc.rlimits[0].resource, RLIMIT_NOFILE);
	assert_int_equal(s.proc.rlimits[0].soft, 1024);
	assert_int_equal(s.proc.rlimits[0].hard, 4096);
	assert_int_equal(s.proc.rlimits[1].resource, RLIMIT_CORE);
	assert_true(s.proc.rlimits[1].hard == RLIM_INFINITY);
	/* An unknown capability is left out, as runc leaves it out. */
	assert_true(s.proc.caps.bounding == ((1ULL << CAP_KILL) | (1ULL << CAP_CHOWN)));
	assert_true(s.proc.caps.effective == (1ULL << CAP_KILL));
	assert_true(s.proc.caps.inheritable == 0);
	assert_true(s.proc.caps.ambient == (1ULL << CAP_NET_RAW));
	assert_true(s.proc.no_new_privs);
	assert_true(s.proc.has_oom_score_adj);
	assert_int_equal(s.proc.oom_score_adj, -500);
	assert_string_equal(s.proc.apparmor_profile, "prof");
	assert_string_equal(s.proc.selinux_label, "system_u:system_r:t:s0");
	spec_free(&s);
}

static void process_errors_name_their_field(void **state)
{
	fails(", 'cwd': 'srv'", "", "", "config.json: process.cwd: srv: must be an absolute path");
	fails(", 'args': []", "", "", "config.json: process.args: must not be empty");
	fails(", 'args': [1]", "", "", "config.json: process.args[0]: must be a string");
	fails(", 'env': ['NOEQUALS']", "", "",
	      "config.json: process.env[0]: NOEQUALS: expected KEY=VALUE");
	fails(", 'user': {'uid': -1}", "", "",
	      "config.json: process.user.uid: must be 0 to 4294967294");
	fails(", 'user': {'umask': 512}", "", "",
	      "config.json: process.user.umask: must be 0 to 511");
	fails(", 'user': {'additionalGids': ['x']}", "", "",
	      "config.json: process.user.additionalGids[0]: must be a group id from 0 to "
	      "4294967294");
	fails(", 'terminal': 'yes'", "", "", "config.json: process.terminal: must be a boolean");
	fails(", 'capabilities': {'bounding': ['KILL']}", "", "",
	      "config.json: process.capabilities.bounding[0]: must be a capability name (CAP_...)");
	fails(", 'rlimits': [{'type': 'RLIMIT_NOPE', 'soft': 1, 'hard': 1}]", "", "",
	      "config.json: process.rlimits[0].type: RLIMIT_NOPE: not an rlimit (RLIMIT_...)");
	fails(", 'rlimits': [{'type': 'RLIMIT_NOFILE', 'soft': 2, 'hard': 1}]", "", "",
	      "config.json: process.rlimits[0].soft: must not be above hard");
	fails(", 'rlimits': [{'type': 'RLIMIT_NOFILE', 'soft': 1, 'hard': 1},"
	      " {'type': 'RLIMIT_NOFILE', 'soft': 1, 'hard': 1}]",
	      "", "", "config.json: process.rlimits[1].type: RLIMIT_NOFILE: given twice");
	fails(", 'rlimits': [{'type': 'RLIMIT_NOFILE', 'soft': -1, 'hard': 1}]", "", "",
	      "config.json: process.rlimits[0].soft: must be an integer from 0 to "
	      "18446744073709551615");
	fails(", 'oomScoreAdj': 1001", "", "",
	      "config.json: process.oomScoreAdj: must be -1000 to 1000");
	fails(", 'consoleSize': {'height': 70000, 'width': 1}", "", "",
	      "config.json: process.consoleSize.height: must be 0 to 65535");
	fails(", 'scheduler': {'policy': 'SCHED_FIFO'}", "", "",
	      "config.json: process.scheduler: not supported by cell");
	fails(", 'ioPriority': {'class': 'IOPRIO_CLASS_RT', 'priority': 1}", "", "",
	      "config.json: process.ioPriority: not supported by cell");
	q_fails("{'ociVersion': '1.0.0', 'root': {'path': 'r'}}", "config.json: process: required");
}

static void the_process_object_parses_alone_for_exec(void **state)
{
	char *text = q("{'args': ['ps'], 'cwd': '/', 'user': {'uid': 7}, 'terminal': true}");
	json_t *j = json_loads(text, 0, NULL);
	struct jail_spec s;
	struct cell_err e;

	assert_non_null(j);
	spec_init(&s);
	assert_int_equal(oci_process_parse(j, &s.proc, &e), 0);
	assert_string_equal(s.proc.argv[0], "ps");
	assert_int_equal(s.proc.uid, 7);
	assert_true(s.proc.terminal);
	assert_true(s.proc.home_env);
	assert_false(s.proc.user_groups);
	spec_free(&s);
	json_decref(j);
	free(text);
	/* Its errors name the field from "process.", without a file. */
	text = q("{'args': ['ps'], 'cwd': 'x'}");
	j = json_loads(text, 0, NULL);
	spec_init(&s);
	assert_int_equal(oci_process_parse(j, &s.proc, &e), -1);
	assert_string_equal(e.msg, "process.cwd: x: must be an absolute path");
	spec_free(&s);
	json_decref(j);
	free(text);
}

static void root_and_uts_are_read_as_given(void **state)
{
	struct jail_spec s;
	char *text = q("{'ociVersion': '1.1.0', 'process': {'args': ['sh'], 'cwd': '/'},"
		       " 'root': {'path': '/srv/root', 'readonly': true}, 'hostname': 'box',"
		       " 'domainname': 'example.org', 'linux': {'namespaces': [{'type': 'uts'}]}}");

	parse_ok_text(text, &s);
	free(text);
	assert_string_equal(s.rootfs, "/srv/root");
	assert_false(s.rw);
	assert_string_equal(s.hostname, "box");
	assert_string_equal(s.domainname, "example.org");
	spec_free(&s);
	/* Empty: the UTS namespace keeps what it has. */
	parse_ok("", "'namespaces': [{'type': 'uts'}]", ", 'hostname': '', 'domainname': ''", &s);
	assert_null(s.hostname);
	assert_null(s.domainname);
	spec_free(&s);
	fails("", "", ", 'hostname': 'box'",
	      "config.json: hostname: needs a uts namespace (linux.namespaces)");
	fails("", "'namespaces': [{'type': 'uts'}]", ", 'hostname': 'a_b'",
	      "config.json: hostname: a_b: invalid hostname");
	q_fails("{'ociVersion': '1.0.0', 'process': {'args': ['sh'], 'cwd': '/'}}",
		"config.json: root: required");
	q_fails("{'ociVersion': '1.0.0', 'process': {'args': ['sh'], 'cwd': '/'},"
		" 'root': {'path': ''}}",
		"config.json: root.path: required");
}

static void mounts_become_the_jails_tree(void **state)
{
	struct jail_spec s;
	struct jail_mount *m;

	parse_ok("", "",
		 ", 'mounts': ["
		 " {'destination': '/proc', 'type': 'proc', 'source': 'proc'},"
		 " {'destination': '/dev', 'type': 'tmpfs', 'source': 'tmpfs',"
		 "  'options': ['nosuid', 'strictatime', 'mode=755', 'size=65536k']},"
		 " {'destination': 'data//x/../y/', 'type': 'bind', 'source': 'vol',"
		 "  'options': ['rbind', 'ro', 'rw', 'ro', 'rslave', 'nodev', 'dev']},"
		 " {'destination': '/sys', 'type': 'none', 'source': '/sys',"
		 "  'options': ['bind', 'nosuid', 'private', 'tmpcopyup', '']},"
		 " {'destination': '/etc/hosts', 'source': '/h', 'options': ['rbind']}]",
		 &s);
	assert_int_equal(s.mech.nmounts, 5);
	m = &s.mech.mounts[0];
	assert_string_equal(m->type, "proc");
	assert_string_equal(m->source, "proc");
	assert_string_equal(m->destination, "/proc");
	assert_int_equal(m->flags, 0);
	assert_null(m->data);
	m = &s.mech.mounts[1];
	assert_int_equal(m->flags, MS_NOSUID | MS_STRICTATIME);
	assert_string_equal(m->data, "mode=755,size=65536k");
	m = &s.mech.mounts[2];
	assert_string_equal(m->type, "bind");
	/* Relative: the source in the bundle, the destination under "/". */
	assert_string_equal(m->source, BUNDLE "/vol");
	assert_string_equal(m->destination, "/data/y");
	assert_int_equal(m->flags, MS_BIND | MS_REC | MS_RDONLY);
	assert_int_equal(m->clear, MS_NODEV);
	assert_int_equal(m->propagation, MS_SLAVE | MS_REC);
	assert_null(m->data);
	m = &s.mech.mounts[3];
	assert_string_equal(m->type, "bind");
	assert_int_equal(m->flags, MS_BIND | MS_NOSUID);
	assert_int_equal(m->propagation, MS_PRIVATE);
	assert_true(m->tmpcopyup);
	assert_string_equal(s.mech.mounts[4].type, "bind");
	assert_int_equal(s.mech.mounts[4].flags, MS_BIND | MS_REC);
	spec_free(&s);
}

static void idmapped_mounts_take_their_maps(void **state)
{
	struct jail_spec s;
	const char *lx = "'namespaces': [{'type': 'user'}, {'type': 'mount'}],"
			 " 'uidMappings': [{'containerID': 0, 'hostID': 100000, 'size': 65536}],"
			 " 'gidMappings': [{'containerID': 0, 'hostID': 200000, 'size': 65536}]";

	parse_ok("", lx,
		 ", 'mounts': [{'destination': '/a', 'type': 'bind', 'source': '/a',"
		 " 'options': ['rbind', 'idmap']},"
		 " {'destination': '/b', 'type': 'bind', 'source': '/b',"
		 " 'uidMappings': [{'containerID': 0, 'hostID': 1, 'size': 2}],"
		 " 'gidMappings': [{'containerID': 0, 'hostID': 3, 'size': 4}]}]",
		 &s);
	assert_int_equal(s.mech.mounts[0].nuid_map, 1);
	assert_int_equal(s.mech.mounts[0].uid_map[0].outside, 100000);
	assert_int_equal(s.mech.mounts[0].gid_map[0].outside, 200000);
	assert_int_equal(s.mech.mounts[1].uid_map[0].outside, 1);
	assert_int_equal(s.mech.mounts[1].gid_map[0].count, 4);
	spec_free(&s);
	fails("", "",
	      ", 'mounts': [{'destination': '/a', 'type': 'bind', 'source': '/a',"
	      " 'options': ['idmap']}]",
	      "config.json: mounts[0]: idmap needs uidMappings here or in linux");
	fails("", "",
	      ", 'mounts': [{'destination': '/t', 'type': 'tmpfs',"
	      " 'uidMappings': [{'containerID': 0, 'hostID': 1, 'size': 2}],"
	      " 'gidMappings': [{'containerID': 0, 'hostID': 3, 'size': 4}]}]",
	      "config.json: mounts[0]: an idmapped mount must be a bind");
	fails("", "",
	      ", 'mounts': [{'destination': '/a', 'type': 'bind', 'source': '/a',"
	      " 'uidMappings': [{'containerID': 0, 'hostID': 1, 'size': 2}]}]",
	      "config.json: mounts[0].gidMappings: required with uidMappings");
}

static void mount_errors_name_their_field(void **state)
{
	fails("", "", ", 'mounts': [{'type': 'tmpfs'}]",
	      "config.json: mounts[0].destination: required");
	fails("", "", ", 'mounts': [{'destination': '/x'}]",
	      "config.json: mounts[0].type: required (or a bind option)");
	fails("", "", ", 'mounts': [{'destination': '/x', 'type': 'bind'}]",
	      "config.json: mounts[0].source: required for a bind");
	fails("", "", ", 'mounts': [{'destination': '/x', 'type': 'tmpfs', 'options': ['rro']}]",
	      "config.json: mounts[0].options[0]: rro: not supported by cell");
	fails("", "",
	      ", 'mounts': [{'destination': '/x', 'type': 'tmpfs', 'options': ['rw', 'remount']}]",
	      "config.json: mounts[0].options[1]: remount: not supported by cell");
	fails("", "", ", 'mounts': [{'destination': '/x', 'type': 'tmpfs', 'options': [7]}]",
	      "config.json: mounts[0].options[0]: must be a string");
	fails("", "", ", 'mounts': {}", "config.json: mounts: must be an array");
}

static void namespaces_are_made_or_joined(void **state)
{
	struct jail_spec s;

	parse_ok("",
		 "'namespaces': [{'type': 'pid'}, {'type': 'network', 'path': '/run/netns/n'},"
		 " {'type': 'ipc', 'path': ''}, {'type': 'uts'}, {'type': 'mount'},"
		 " {'type': 'cgroup'}, {'type': 'time'}]",
		 "", &s);
	assert_int_equal(s.mech.ns_new, CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNS |
						CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */);
	assert_int_equal(s.mech.nns_join, 1);
	assert_int_equal(s.mech.ns_join[0].type, CLONE_NEWNET);
	assert_string_equal(s.mech.ns_join[0].path, "/run/netns/n");
	assert_int_equal(s.net, JAIL_NET_NONE);
	assert_int_equal(s.userns, JAIL_USERNS_HOST);
	spec_free(&s);
	fails("", "'namespaces': [{'type': 'pid'}, {'type': 'pid'}]", "",
	      "config.json: linux.namespaces[1].type: pid: given twice");
	fails("", "'namespaces': [{'type': 'pid'}, {'type': 'pid', 'path': '/proc/1/ns/pid'}]", "",
	      "config.json: linux.namespaces[1].type: pid: given twice");
	fails("", "'namespaces': [{'type': 'nope'}]", "",
	      "config.json: linux.namespaces[0].type: nope: unknown namespace type");
	fails("", "'namespaces': [{'path': '/x'}]", "",
	      "config.json: linux.namespaces[0].type: required");
	fails("", "'namespaces': [{'type': 'net', 'path': 'x'}]", "",
	      "config.json: linux.namespaces[0].type: net: unknown namespace type");
	fails("", "'namespaces': [{'type': 'network', 'path': 'x'}]", "",
	      "config.json: linux.namespaces[0].path: x: must be an absolute path");
}

static void a_user_namespace_is_cells_own_with_the_configs_maps(void **state)
{
	struct jail_spec s;

	parse_ok("",
		 "'namespaces': [{'type': 'user'}, {'type': 'uts'}, {'type': 'network'},"
		 " {'type': 'pid'}],"
		 " 'uidMappings': [{'containerID': 0, 'hostID': 1000, 'size': 1},"
		 "   {'containerID': 1, 'hostID': 100000, 'size': 65535}],"
		 " 'gidMappings': [{'containerID': 0, 'hostID': 1000, 'size': 1}]",
		 "", &s);
	/* Its helper makes it (ns.h): not the clone. */
	assert_int_equal(s.mech.ns_new, CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWPID);
	assert_true(s.mech.own_userns);
	assert_false(s.mech.userns_range);
	assert_int_equal(s.mech.userns_owns, CLONE_NEWUTS | CLONE_NEWNET);
	assert_int_equal(s.userns, JAIL_USERNS_PRIVATE);
	assert_int_equal(s.mech.nuid_map, 2);
	assert_int_equal(s.mech.uid_map[1].inside, 1);
	assert_int_equal(s.mech.uid_map[1].outside, 100000);
	assert_int_equal(s.mech.uid_map[1].count, 65535);
	assert_int_equal(s.mech.ngid_map, 1);
	spec_free(&s);
	parse_ok("", "'namespaces': [{'type': 'user', 'path': '/proc/9/ns/user'}]", "", &s);
	assert_false(s.mech.own_userns);
	assert_int_equal(s.userns, JAIL_USERNS_PRIVATE);
	spec_free(&s);
	fails("", "'namespaces': [{'type': 'user'}]", "",
	      "config.json: linux.uidMappings: required with a new user namespace");
	fails("",
	      "'uidMappings': [{'containerID': 0, 'hostID': 1, 'size': 1}],"
	      " 'gidMappings': [{'containerID': 0, 'hostID': 1, 'size': 1}]",
	      "", "config.json: linux.uidMappings: needs a new user namespace (linux.namespaces)");
	fails("", "'uidMappings': [{'containerID': 0, 'hostID': 1, 'size': 0}]", "",
	      "config.json: linux.uidMappings[0].size: must be 1 to 4294967295");
	fails("", "'uidMappings': [{'containerID': 0, 'hostID': 4294967295, 'size': 2}]", "",
	      "config.json: linux.uidMappings[0]: ids past 4294967295");
	fails("", "'uidMappings': [{'containerID': 0, 'size': 2}]", "",
	      "config.json: linux.uidMappings[0]: needs containerID, hostID and size");
}

static void devices_come_after_the_default_set(void **state)
{
	struct jail_spec s;
	const struct jail_device_node *d;

	parse_ok("",
		 "'devices': [{'path': '/dev/fuse', 'type': 'c', 'major': 10, 'minor': 229,"
		 " 'fileMode': 438, 'uid': 1, 'gid': 2},"
		 " {'path': '/dev/null', 'type': 'c', 'major': 1, 'minor': 3, 'fileMode': 384},"
		 " {'path': '/dev/p', 'type': 'p'}]",
		 "", &s);
	assert_int_equal(s.mech.ndev_nodes, 8);
	d = &s.mech.dev_nodes[6];
	assert_string_equal(d->path, "/dev/fuse");
	assert_int_equal(d->type, 'c');
	assert_int_equal(d->major, 10);
	assert_int_equal(d->minor, 229);
	assert_int_equal(d->mode, 0666);
	assert_int_equal(d->uid, 1);
	assert_int_equal(d->gid, 2);
	/* The config's /dev/null replaces the default, in its place. */
	assert_int_equal(s.mech.dev_nodes[0].mode, 0600);
	assert_int_equal(s.mech.dev_nodes[7].type, 'p');
	spec_free(&s);
	fails("", "'devices': [{'path': '/dev/x', 'type': 'c'}]", "",
	      "config.json: linux.devices[0]: needs major and minor");
	fails("", "'devices': [{'path': '/dev/x', 'type': 'x', 'major': 1, 'minor': 1}]", "",
	      "config.json: linux.devices[0].type: x: expected c, b, u or p");
	fails("", "'devices': [{'path': 'dev/x', 'type': 'c', 'major': 1, 'minor': 1}]", "",
	      "config.json: linux.devices[0].path: dev/x: must be an absolute path");
	fails("", "'devices': [{'path': '/dev/x', 'type': 'c', 'major': 5000, 'minor': 1}]", "",
	      "config.json: linux.devices[0].major: must be 0 to 4095");
}

static void device_rules_end_with_the_default_devices(void **state)
{
	struct jail_spec s;

	parse_ok("",
		 "'resources': {'devices': [{'allow': false, 'access': 'rwm'},"
		 " {'allow': true, 'type': 'c', 'major': 10, 'minor': 229, 'access': 'rw'}]}",
		 "", &s);
	assert_int_equal(s.ndevices, 2 + devices_nstandard);
	assert_false(s.devices[0].allow);
	assert_int_equal(s.devices[0].type, 'a');
	assert_int_equal(s.devices[0].major, -1);
	assert_string_equal(s.devices[0].access, "rwm");
	assert_true(s.devices[1].allow);
	assert_int_equal(s.devices[1].minor, 229);
	assert_string_equal(s.devices[1].access, "rw");
	assert_int_equal(s.devices[2].major, devices_standard[0].major);
	spec_free(&s);
	fails("", "'resources': {'devices': [{'access': 'rwm'}]}", "",
	      "config.json: linux.resources.devices[0]: needs allow");
	fails("", "'resources': {'devices': [{'allow': true, 'access': 'rwx'}]}", "",
	      "config.json: linux.resources.devices[0]: device rule: access rwx: expected letters "
	      "of rwm");
	fails("", "'resources': {'devices': [{'allow': true, 'type': 'z'}]}", "",
	      "config.json: linux.resources.devices[0]: device rule: type z: expected a, c or b");
}

static void resources_fill_limits_and_res(void **state)
{
	struct jail_spec s;

	parse_ok("",
		 "'cgroupsPath': '/machine/c1', 'resources': {"
		 " 'memory': {'limit': 67108864, 'swap': 100663296, 'reservation': 33554432,"
		 "   'swappiness': 10, 'kernel': 1000, 'disableOOMKiller': false},"
		 " 'pids': {'limit': 64},"
		 " 'cpu': {'shares': 512, 'quota': 50000, 'period': 100000, 'cpus': '0-1',"
		 "   'mems': '0', 'realtimeRuntime': 0},"
		 " 'blockIO': {'weight': 300},"
		 " 'hugepageLimits': [], 'unified': {'memory.high': '50M', 'io.weight': '50'}}",
		 "", &s);
	assert_string_equal(s.cgroup_path, "/machine/c1");
	assert_true(s.cgroup_always);
	assert_int_equal(s.limits.memory, 64 << 20);
	assert_int_equal(s.limits.swap, 32 << 20);
	assert_int_equal(s.res.memory_reservation, 32 << 20);
	assert_int_equal(s.res.memory_swappiness, 10);
	assert_int_equal(s.limits.nrtask, 64);
	assert_int_equal(s.res.cpu_shares, 512);
	assert_int_equal(s.res.cpu_quota, 50000);
	assert_int_equal(s.res.cpu_period, 100000);
	assert_string_equal(s.res.cpuset_cpus, "0-1");
	assert_string_equal(s.res.cpuset_mems, "0");
	assert_int_equal(s.res.blkio_weight, 300);
	assert_int_equal(s.res.nunified, 2);
	assert_string_equal(s.res.unified[0].key, "memory.high");
	assert_string_equal(s.res.unified[1].value, "50");
	spec_free(&s);
	/* -1 and 0 mean no limit; docker's uint64 -1 swappiness, not set. */
	parse_ok("",
		 "'resources': {'memory': {'limit': 1048576, 'swap': -1,"
		 " 'swappiness': 18446744073709551615}, 'pids': {'limit': 0}}",
		 "", &s);
	assert_int_equal(s.limits.memory, 1 << 20);
	assert_true(s.limits.swap == LLONG_MAX - (1 << 20));
	assert_int_equal(s.res.memory_swappiness, -1);
	assert_int_equal(s.limits.nrtask, -1);
	spec_free(&s);
	parse_ok("", "'resources': {'memory': {'limit': -1, 'swap': -1}}", "", &s);
	assert_int_equal(s.limits.memory, -1);
	assert_int_equal(s.limits.swap, -1);
	spec_free(&s);
}

static void resource_errors_name_their_field(void **state)
{
	fails("", "'resources': {'memory': {'limit': 4096}}", "",
	      "config.json: linux.resources.memory.limit: must be at least 1048576 (1M), or -1");
	fails("", "'resources': {'memory': {'limit': -2}}", "",
	      "config.json: linux.resources.memory.limit: must be -1 to 9223372036854775807");
	fails("", "'resources': {'memory': {'limit': 'x'}}", "",
	      "config.json: linux.resources.memory.limit: must be an integer");
	fails("", "'resources': {'memory': {'swap': 1048576}}", "",
	      "config.json: linux.resources.memory.swap: needs limit");
	fails("", "'resources': {'memory': {'limit': 2097152, 'swap': 1048576}}", "",
	      "config.json: linux.resources.memory.swap: must be at least limit (it is memory + "
	      "swap), or -1 for no limit");
	fails("", "'resources': {'memory': {'swappiness': 101}}", "",
	      "config.json: linux.resources.memory.swappiness: must be 0 to 100");
	fails("", "'resources': {'memory': {'disableOOMKiller': true}}", "",
	      "config.json: linux.resources.memory.disableOOMKiller: not supported by cell");
	fails("", "'resources': {'memory': {'kernelTCP': 1048576}}", "",
	      "config.json: linux.resources.memory.kernelTCP: not supported by cell");
	fails("", "'resources': {'pids': {'limit': -2}}", "",
	      "config.json: linux.resources.pids.limit: must be -1 to 9223372036854775807");
	fails("", "'resources': {'cpu': {'quota': 500}}", "",
	      "config.json: linux.resources.cpu.quota: must be at least 1000, or -1");
	fails("", "'resources': {'cpu': {'shares': 1}}", "",
	      "config.json: linux.resources.cpu.shares: must be 2 to 262144");
	fails("", "'resources': {'cpu': {'cpus': 'all'}}", "",
	      "config.json: linux.resources.cpu.cpus: all: expected a list such as 0-3,8");
	fails("", "'resources': {'cpu': {'realtimeRuntime': 950000}}", "",
	      "config.json: linux.resources.cpu.realtimeRuntime: not supported by cell");
	fails("", "'resources': {'blockIO': {'weight': 5}}", "",
	      "config.json: linux.resources.blockIO.weight: must be 10 to 1000");
	fails("",
	      "'resources': {'blockIO': {'throttleReadBpsDevice': [{'major': 8, 'minor': 0,"
	      " 'rate': 600}]}}",
	      "",
	      "config.json: linux.resources.blockIO.throttleReadBpsDevice: not supported by cell");
	fails("", "'resources': {'hugepageLimits': [{'pageSize': '2MB', 'limit': 1}]}", "",
	      "config.json: linux.resources.hugepageLimits: not supported by cell");
	fails("", "'resources': {'unified': {'../x': '1'}}", "",
	      "config.json: linux.resources.unified: ../x: not a valid name");
	fails("", "'cgroupsPath': '/a/../b'", "",
	      "config.json: linux.cgroupsPath: /a/../b: no \".\" or \"..\" allowed");
}

static void the_rest_of_linux_is_read(void **state)
{
	struct jail_spec s;

	parse_ok("",
		 "'sysctl': {'net.ipv4.ip_forward': '1', 'kernel.msgmax': '8192'},"
		 " 'maskedPaths': ['/proc/kcore', '/proc//keys/'],"
		 " 'readonlyPaths': ['/proc/sys'], 'rootfsPropagation': 'rslave',"
		 " 'personality': {'domain': 'LINUX32'}, 'mountLabel': 'ignored',"
		 " 'intelRdt': {}, 'timeOffsets': {}",
		 "", &s);
	assert_int_equal(s.mech.nsysctls, 2);
	assert_string_equal(s.mech.sysctls[0].key, "net.ipv4.ip_forward");
	assert_string_equal(s.mech.sysctls[1].value, "8192");
	assert_int_equal(s.mech.nmasked, 2);
	assert_string_equal(s.mech.masked[1], "/proc/keys");
	assert_int_equal(s.mech.nreadonly, 1);
	assert_string_equal(s.mech.readonly[0], "/proc/sys");
	assert_int_equal(s.mech.root_propagation, MS_SLAVE | MS_REC);
	assert_true(s.mech.has_personality);
	assert_int_equal(s.mech.personality, PER_LINUX32);
	spec_free(&s);
	fails("", "'sysctl': {'net..x': '1'}", "",
	      "config.json: linux.sysctl: net..x: not a valid name");
	fails("", "'sysctl': {'a.b': 1}", "", "config.json: linux.sysctl.a.b: must be a string");
	fails("", "'maskedPaths': ['proc']", "",
	      "config.json: linux.maskedPaths[0]: must be an absolute path");
	fails("", "'rootfsPropagation': 'weird'", "",
	      "config.json: linux.rootfsPropagation: weird: expected private, slave, shared or "
	      "unbindable (r...: recursive)");
	fails("", "'personality': {'domain': 'BSD'}", "",
	      "config.json: linux.personality.domain: BSD: expected LINUX or LINUX32");
	fails("", "'intelRdt': {'closID': 'g'}", "",
	      "config.json: linux.intelRdt: not supported by cell");
	fails("", "'timeOffsets': {'monotonic': {'secs': 1}}", "",
	      "config.json: linux.timeOffsets: needs a new time namespace (linux.namespaces)");
	fails("", "'namespaces': [{'type': 'time'}], 'timeOffsets': {'boottime': {'nanosecs': -1}}",
	      "", "config.json: linux.timeOffsets.boottime.nanosecs: must be 0 to 999999999");
}

static void time_offsets_are_read(void **state)
{
	struct jail_spec s;

	parse_ok("",
		 "'namespaces': [{'type': 'time'}], 'timeOffsets': {'monotonic': {'secs': -5,"
		 " 'nanosecs': 7}, 'boottime': {'secs': 86400}}",
		 "", &s);
	assert_true(s.mech.has_time_offsets);
	assert_true(s.mech.ns_new & CLONE_NEWTIME);
	assert_int_equal(s.mech.time_offsets[0].secs, -5);
	assert_int_equal(s.mech.time_offsets[0].nanosecs, 7);
	assert_int_equal(s.mech.time_offsets[1].secs, 86400);
	assert_int_equal(s.mech.time_offsets[1].nanosecs, 0);
	spec_free(&s);
}

static void hooks_are_read_per_point(void **state)
{
	struct jail_spec s;
	const struct jail_hook *h;

	parse_ok("", "",
		 ", 'hooks': {'prestart': [{'path': '/bin/a'}],"
		 " 'createRuntime': [{'path': '/bin/b', 'args': ['b', '-x'], 'env': ['K=V'],"
		 "   'timeout': 5}, {'path': '/bin/c'}],"
		 " 'poststop': [{'path': '/bin/d', 'args': []}], 'unknownPoint': 1}",
		 &s);
	assert_int_equal(s.mech.nhooks[JAIL_HOOK_PRESTART], 1);
	assert_int_equal(s.mech.nhooks[JAIL_HOOK_CREATE_RUNTIME], 2);
	assert_int_equal(s.mech.nhooks[JAIL_HOOK_CREATE_CONTAINER], 0);
	assert_int_equal(s.mech.nhooks[JAIL_HOOK_POSTSTOP], 1);
	h = &s.mech.hooks[JAIL_HOOK_CREATE_RUNTIME][0];
	assert_string_equal(h->path, "/bin/b");
	assert_string_equal(h->args[1], "-x");
	assert_null(h->args[2]);
	assert_string_equal(h->env[0], "K=V");
	assert_int_equal(h->timeout, 5);
	assert_null(s.mech.hooks[JAIL_HOOK_CREATE_RUNTIME][1].args);
	assert_int_equal(s.mech.hooks[JAIL_HOOK_CREATE_RUNTIME][1].timeout, 0);
	assert_null(s.mech.hooks[JAIL_HOOK_POSTSTOP][0].args);
	spec_free(&s);
	fails("", "", ", 'hooks': {'poststart': [{'path': 'rel'}]}",
	      "config.json: hooks.poststart[0].path: rel: must be an absolute path");
	fails("", "", ", 'hooks': {'poststart': [{'path': '/x', 'timeout': 0}]}",
	      "config.json: hooks.poststart[0].timeout: must be greater than zero");
	fails("", "", ", 'hooks': {'poststart': [{'args': ['x']}]}",
	      "config.json: hooks.poststart[0].path: required");
}

static const char seccomp_profile[] =
	"'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW',"
	" 'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],"
	" 'flags': ['SECCOMP_FILTER_FLAG_LOG'],"
	" 'syscalls': [{'names': ['getppid', 'no_such_call_anywhere'], 'action': 'SCMP_ACT_ERRNO',"
	"   'errnoRet': 77},"
	"  {'names': ['dup'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 78,"
	"   'args': [{'index': 0, 'value': 1000, 'op': 'SCMP_CMP_EQ'}]},"
	"  {'names': ['dup2'], 'action': 'SCMP_ACT_ERRNO',"
	"   'args': [{'index': 0, 'value': 1001, 'op': 'SCMP_CMP_EQ'},"
	"     {'index': 0, 'value': 1002, 'op': 'SCMP_CMP_EQ'}]},"
	"  {'names': ['getpid'], 'action': 'SCMP_ACT_ALLOW', 'errnoRet': 5},"
	"  {'names': ['personality'], 'action': 'SCMP_ACT_ERRNO',"
	"   'args': [{'index': 0, 'value': 18446744073709551615, 'valueTwo': 3,"
	"     'op': 'SCMP_CMP_MASKED_EQ'}]}]}";

static void seccomp_rules_are_read(void **state)
{
	struct jail_spec s;
	const struct jail_seccomp_rules *r;

	parse_ok("", seccomp_profile, "", &s);
	assert_int_equal(s.mech.seccomp, JAIL_SECCOMP_RULES);
	r = s.mech.seccomp_rules;
	assert_non_null(r);
	assert_int_equal(r->default_action, SCMP_ACT_ALLOW);
	assert_int_equal(r->default_errno, -1);
	assert_int_equal(r->narchs, 3);
	assert_int_equal(r->archs[1], SCMP_ARCH_X86);
	assert_int_equal(r->flags, 2 /* SECCOMP_FILTER_FLAG_LOG */);
	assert_null(r->listener_path);
	assert_int_equal(r->nsyscalls, 5);
	assert_string_equal(r->syscalls[0].names[1], "no_such_call_anywhere");
	assert_int_equal(r->syscalls[0].action, SCMP_ACT_ERRNO(0));
	assert_int_equal(r->syscalls[0].errno_ret, 77);
	assert_int_equal(r->syscalls[1].nargs, 1);
	assert_int_equal(r->syscalls[1].args[0].value, 1000);
	assert_int_equal(r->syscalls[1].args[0].op, SCMP_CMP_EQ);
	assert_int_equal(r->syscalls[2].errno_ret, -1);
	/* errnoRet with another action: ignored, as runc ignores it. */
	assert_int_equal(r->syscalls[3].errno_ret, -1);
	assert_true(r->syscalls[4].args[0].value == UINT64_MAX);
	assert_int_equal(r->syscalls[4].args[0].value_two, 3);
	spec_free(&s);
	parse_ok("",
		 "'seccomp': {'defaultAction': 'SCMP_ACT_ERRNO', 'defaultErrnoRet': 38,"
		 " 'listenerPath': '/run/l.sock', 'listenerMetadata': 'm',"
		 " 'syscalls': [{'names': ['mount'], 'action': 'SCMP_ACT_NOTIFY'}]}",
		 "", &s);
	r = s.mech.seccomp_rules;
	assert_int_equal(r->default_errno, 38);
	assert_string_equal(r->listener_path, "/run/l.sock");
	assert_string_equal(r->listener_metadata, "m");
	assert_int_equal(r->syscalls[0].action, SCMP_ACT_NOTIFY);
	spec_free(&s);
}

static void seccomp_errors_name_their_field(void **state)
{
	fails("", "'seccomp': {}", "", "config.json: linux.seccomp.defaultAction: required");
	fails("", "'seccomp': {'defaultAction': 'SCMP_ACT_MAYBE'}", "",
	      "config.json: linux.seccomp.defaultAction: SCMP_ACT_MAYBE: unknown action");
	fails("",
	      "'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'architectures': ['SCMP_ARCH_Z80']}",
	      "",
	      "config.json: linux.seccomp.architectures[0]: SCMP_ARCH_Z80: unknown architecture");
	fails("",
	      "'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'flags': ['SECCOMP_FILTER_FLAG_TSYNC']}",
	      "", "config.json: linux.seccomp.flags[0]: SECCOMP_FILTER_FLAG_TSYNC: unknown flag");
	fails("",
	      "'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': [],"
	      " 'action': 'SCMP_ACT_KILL'}]}",
	      "", "config.json: linux.seccomp.syscalls[0].names: must not be empty");
	fails("",
	      "'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['read'],"
	      " 'action': 'SCMP_ACT_KILL', 'args': [{'index': 6, 'value': 1, 'op': 'SCMP_CMP_EQ'}]}]}",
	      "", "config.json: linux.seccomp.syscalls[0].args[0].index: must be 0 to 5");
	fails("",
	      "'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['read'],"
	      " 'action': 'SCMP_ACT_KILL', 'args': [{'index': 1, 'value': 1, 'op': 'SCMP_CMP_XOR'}]}]}",
	      "",
	      "config.json: linux.seccomp.syscalls[0].args[0].op: SCMP_CMP_XOR: unknown operator");
	fails("",
	      "'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['read'],"
	      " 'action': 'SCMP_ACT_KILL', 'args': [{'index': 1, 'op': 'SCMP_CMP_EQ'}]}]}",
	      "", "config.json: linux.seccomp.syscalls[0].args[0].value: required");
	fails("", "'seccomp': {'defaultAction': 'SCMP_ACT_NOTIFY'}", "",
	      "config.json: linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default "
	      "action");
	fails("",
	      "'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['mount'],"
	      " 'action': 'SCMP_ACT_NOTIFY'}]}",
	      "", "config.json: linux.seccomp.listenerPath: required with SCMP_ACT_NOTIFY");
}

static void oci_versions_1_0_to_1_3_are_accepted(void **state)
{
	const char *good[] = {"1.0.0", "1.0.2-dev", "1.1.0", "1.2.1", "1.3.0", "1.3.0+dev"};
	const char *badv[] = {"0.9.0", "1.4.0", "2.0.0", "1.0", "1.x.0", ""};
	char text[256], msg[256];
	struct jail_spec s;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(
			text, sizeof(text),
			"{\"ociVersion\": \"%s\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"},"
			" \"root\": {\"path\": \"r\"}}",
			good[i]);
		parse_ok_text(text, &s);
		spec_free(&s);
	}
	for (size_t i = 0; i < sizeof(badv) / sizeof(badv[0]); i++) {
		snprintf(text, sizeof(text), "{\"ociVersion\": \"%s\"}", badv[i]);
		if (badv[i][0] == '\0')
			snprintf(msg, sizeof(msg), "config.json: ociVersion: required");
		else
			snprintf(msg, sizeof(msg),
				 "config.json: ociVersion: %s: cell accepts 1.0.x to 1.3.x",
				 badv[i]);
		text_fails(text, msg);
	}
}

static void unknown_fields_are_ignored_unless_they_matter(void **state)
{
	struct jail_spec s;

	parse_ok(", 'user': {'username': 'win'}, 'newField': 1",
		 "'newThing': {'x': 1}, 'intelRdt': {}, 'timeOffsets': {}",
		 ", 'annotations': {'a': 'b'}, 'windows': {}, 'vm': {'kernel': {'path': '/k'}}",
		 &s);
	spec_free(&s);
	fails(", 'execCPUAffinity': {'initial': '0'}", "", "",
	      "config.json: process.execCPUAffinity: not supported by cell");
	fails("", "'netDevices': {'eth0': {}}", "",
	      "config.json: linux.netDevices: not supported by cell");
	fails("", "'resources': {'network': {'classID': 1}}", "",
	      "config.json: linux.resources.network: not supported by cell");
	fails("", "'resources': {'rdma': {'mlx': {'hcaHandles': 1}}}", "",
	      "config.json: linux.resources.rdma: not supported by cell");
}

static void a_malformed_file_says_where(void **state)
{
	text_fails("{\n  \"ociVersion\": \"1.0.0\",\n  \"process\": }\n",
		   "config.json:3:14: unexpected token near '}'");
	text_fails("", "config.json:1:0: '[' or '{' expected near end of file");
	text_fails("[1]", "config.json: not a JSON object");
	text_fails("{\"a\": 1} x", "config.json:1:10: end of file expected near 'x'");
	/* Beyond 2^64 - 1 and below -2^63: still overflows. */
	text_fails("{\"a\": 18446744073709551616}",
		   "config.json:1:26: too big integer near '18446744073709551616'");
	text_fails("{\"a\": -9223372036854775809}",
		   "config.json:1:26: too big negative integer near '-9223372036854775809'");
	/* A string that looks like a big number stays a string. */
	text_fails("{\"a\": \"18446744073709551615\", \"b\": 18446744073709551615, "
		   "\"ociVersion\": \"9\"}",
		   "config.json: ociVersion: 9: cell accepts 1.0.x to 1.3.x");
}

/* The default config through text, as `cell-oci spec` writes it and
 * `cell-oci create` reads it. */
static void round_trip(bool rootless, struct jail_spec *s)
{
	json_t *cfg = oci_config_default(rootless);
	char *text;

	assert_non_null(cfg);
	text = json_dumps(cfg, JSON_INDENT(2));
	assert_non_null(text);
	json_decref(cfg);
	parse_ok_text(text, s);
	free(text);
}

static void the_default_config_parses_back(void **state)
{
	struct jail_spec s;
	struct cell_err e;
	uint64_t caps =
		(1ULL << CAP_AUDIT_WRITE) | (1ULL << CAP_KILL) | (1ULL << CAP_NET_BIND_SERVICE);

	round_trip(false, &s);
	assert_string_equal(s.proc.argv[0], "sh");
	assert_true(s.proc.terminal);
	assert_true(s.proc.no_new_privs);
	assert_true(s.proc.caps.bounding == caps && s.proc.caps.permitted == caps);
	assert_true(s.proc.caps.inheritable == 0 && s.proc.caps.ambient == 0);
	assert_false(s.rw);
	assert_string_equal(s.hostname, "cell");
	assert_int_equal(s.mech.nmounts, 7);
	assert_string_equal(s.mech.mounts[2].data, "newinstance,ptmxmode=0666,mode=0620,gid=5");
	assert_int_equal(s.mech.nmasked, 11);
	assert_int_equal(s.mech.nreadonly, 5);
	assert_int_equal(s.mech.ns_new, CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
						CLONE_NEWNS | CLONE_NEWCGROUP);
	assert_false(s.devices[0].allow);
	s.name = strdup("default");
	assert_int_equal(spec_validate(&s, &e), 0);
	spec_free(&s);

	round_trip(true, &s);
	assert_true(s.mech.own_userns);
	assert_int_equal(s.mech.nuid_map, 1);
	assert_int_equal(s.mech.uid_map[0].outside, geteuid());
	assert_int_equal(s.mech.gid_map[0].outside, getegid());
	/* runc's rootless changes: the default's namespaces but the network
	 * one, and a user namespace (cell's helper makes it: not in ns_new). */
	assert_int_equal(s.mech.ns_new, CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNS |
						CLONE_NEWCGROUP);
	assert_int_equal(s.ndevices, 0);
	assert_string_equal(s.mech.mounts[5].type, "bind");
	assert_string_equal(s.mech.mounts[5].source, "/sys");
	s.name = strdup("rootless");
	assert_int_equal(spec_validate(&s, &e), 0);
	spec_free(&s);
}

/* A config whose one mount has option OPT: must parse. */
static void mount_option_parses(const char *opt)
{
	char text[512];
	struct jail_spec s;

	snprintf(text, sizeof(text),
		 "{\"ociVersion\": \"1.0.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"},"
		 " \"root\": {\"path\": \"r\"}, \"linux\": {\"namespaces\": [{\"type\": \"user\"}],"
		 " \"uidMappings\": [{\"containerID\": 0, \"hostID\": 1, \"size\": 1}],"
		 " \"gidMappings\": [{\"containerID\": 0, \"hostID\": 1, \"size\": 1}]},"
		 " \"mounts\": [{\"destination\": \"/m\", \"type\": \"bind\", \"source\": \"/s\","
		 " \"options\": [\"%s\"]}]}",
		 opt);
	parse_ok_text(text, &s);
	spec_free(&s);
}

static void the_features_list_what_the_parser_accepts(void **state)
{
	json_t *f = oci_features(), *lx, *v;
	size_t i;

	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "ociVersionMin")), "1.0.0");
	assert_string_equal(json_string_value(json_object_get(f, "ociVersionMax")), "1.3.0");
	assert_int_equal(json_array_size(json_object_get(f, "hooks")), 6);
	json_array_foreach(json_object_get(f, "mountOptions"), i, v)
	{
		mount_option_parses(json_string_value(v));
		assert_string_not_equal(json_string_value(v), "rro");
	}
	assert_true(i > 40);
	lx = json_object_get(f, "linux");
	json_array_foreach(json_object_get(lx, "namespaces"), i, v)
	{
		char text[256];
		struct jail_spec s;

		if (strcmp(json_string_value(v), "user") == 0)
			continue;
		snprintf(
			text, sizeof(text),
			"{\"ociVersion\": \"1.0.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"},"
			" \"root\": {\"path\": \"r\"}, \"linux\": {\"namespaces\": [{\"type\": \"%s\"}]}}",
			json_string_value(v));
		parse_ok_text(text, &s);
		spec_free(&s);
	}
	assert_int_equal(json_array_size(json_object_get(lx, "capabilities")), CAP_LAST_CAP + 1);
	assert_true(json_is_true(json_object_get(json_object_get(lx, "seccomp"), "enabled")));
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(lx, "seccomp"), "actions")), 9);
	assert_true(json_is_false(json_object_get(json_object_get(lx, "cgroup"), "systemd")));
	assert_non_null(json_object_get(json_object_get(f, "annotations"),
					"io.github.seccomp.libseccomp.version"));
	json_decref(f);
}

static void load_reads_the_bundles_config_and_refuses_a_symlink(void **state)
{
	char dir[] = "/tmp/cell-oci-XXXXXX", path[64], link[64];
	const char *text = "{\"ociVersion\": \"1.0.0\", \"process\": {\"args\": [\"sh\"],"
			   " \"cwd\": \"/\"}, \"root\": {\"path\": \"rootfs\"}}";
	struct jail_spec s;
	struct cell_err e;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/config.json", dir);
	snprintf(link, sizeof(link), "%s/real.json", dir);
	f = fopen(link, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	/* A symlink in its place: refused. */
	assert_int_equal(symlink("real.json", path), 0);
	spec_init(&s);
	assert_int_equal(oci_config_load(dir, "c1", &s, &e), -1);
	assert_int_equal(e.errnum, ELOOP);
	assert_int_equal(e.exit_code, 125);
	spec_free(&s);
	assert_int_equal(rename(link, path), 0);
	spec_init(&s);
	assert_int_equal(oci_config_load(dir, "c1", &s, &e), 0);
	assert_string_equal(s.name, "c1");
	assert_true(strncmp(s.rootfs, "/tmp/cell-oci-", 14) == 0);
	assert_string_equal(s.rootfs + strlen(dir), "/rootfs");
	spec_free(&s);
	unlink(path);
	/* A FIFO: refused without waiting for a writer. */
	assert_int_equal(mkfifo(path, 0600), 0);
	spec_init(&s);
	assert_int_equal(oci_config_load(dir, "c1", &s, &e), -1);
	assert_non_null(strstr(e.msg, "not a regular file"));
	spec_free(&s);
	unlink(path);
	spec_init(&s);
	assert_int_equal(oci_config_load(dir, "c1", &s, &e), -1);
	assert_int_equal(e.errnum, ENOENT);
	spec_free(&s);
	rmdir(dir);
	spec_init(&s);
	assert_int_equal(oci_config_load(dir, "c1", &s, &e), -1);
	assert_int_equal(e.errnum, ENOENT);
	spec_free(&s);
}

/* Runs the program of the rules of CONFIG's linux members in a child
 * under no_new_privs; the child's exit status is PROBE's return. */
static int in_filtered_child(const char *lx, int (*probe)(void))
{
	struct jail_spec s;
	struct sock_fprog prog;
	struct cell_err e;
	int status;
	pid_t pid;

	parse_ok("", lx, "", &s);
	if (seccomp_oci_compile(s.mech.seccomp_rules, &prog, &e) < 0)
		fail_msg("compile: %s", e.msg);
	spec_free(&s);
	assert_true(prog.len > 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
			_exit(100);
		_exit(probe());
	}
	free(prog.filter);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* 0 when the profile above holds: each check has its own status. */
static int probe_small_profile(void)
{
	errno = 0;
	if (syscall(SYS_getppid) != -1 || errno != 77)
		return 1;
	if (syscall(SYS_getpid) < 0)
		return 2;
	/* dup(1000): the rule's errno; dup(1001): not matched, EBADF. */
	if (syscall(SYS_dup, 1000) != -1 || errno != 78)
		return 3;
	if (syscall(SYS_dup, 1001) != -1 || errno != EBADF)
		return 4;
	/* Two conditions on one argument: either matches (EPERM). */
	if (syscall(SYS_dup2, 1001, 1003) != -1 || errno != EPERM)
		return 5;
	if (syscall(SYS_dup2, 1002, 1003) != -1 || errno != EPERM)
		return 6;
	if (syscall(SYS_dup2, 1004, 1003) != -1 || errno != EBADF)
		return 7;
	/* personality(arg & ~0 == 3): only 3 is refused. */
	if (syscall(SYS_personality, 3) != -1 || errno != EPERM)
		return 8;
	if (syscall(SYS_personality, 0xffffffff) < 0)
		return 9;
	return 0;
}

static void a_small_profile_compiles_and_holds(void **state)
{
	assert_int_equal(in_filtered_child(seccomp_profile, probe_small_profile), 0);
}

/* What runc's default profile (docker's) is like: deny by default with
 * EPERM, an allow list, argument rules; names of other architectures
 * and kernels among them. */
static const char *const allowed_calls[] = {"accept",
					    "accept4",
					    "access",
					    "alarm",
					    "bind",
					    "brk",
					    "capget",
					    "capset",
					    "chdir",
					    "chmod",
					    "chown",
					    "clock_getres",
					    "clock_gettime",
					    "clock_nanosleep",
					    "close",
					    "close_range",
					    "connect",
					    "copy_file_range",
					    "creat",
					    "dup",
					    "dup2",
					    "dup3",
					    "epoll_create",
					    "epoll_create1",
					    "epoll_ctl",
					    "epoll_pwait",
					    "epoll_wait",
					    "eventfd",
					    "eventfd2",
					    "execve",
					    "execveat",
					    "exit",
					    "exit_group",
					    "faccessat",
					    "faccessat2",
					    "fadvise64",
					    "fallocate",
					    "fchdir",
					    "fchmod",
					    "fchmodat",
					    "fchown",
					    "fchownat",
					    "fcntl",
					    "fcntl64",
					    "fdatasync",
					    "flock",
					    "fork",
					    "fstat",
					    "fstat64",
					    "fstatfs",
					    "fsync",
					    "ftruncate",
					    "futex",
					    "getcwd",
					    "getdents",
					    "getdents64",
					    "getegid",
					    "geteuid",
					    "getgid",
					    "getgroups",
					    "getitimer",
					    "getpeername",
					    "getpgid",
					    "getpgrp",
					    "getpid",
					    "getppid",
					    "getpriority",
					    "getrandom",
					    "getresgid",
					    "getresuid",
					    "getrlimit",
					    "get_robust_list",
					    "getrusage",
					    "getsid",
					    "getsockname",
					    "getsockopt",
					    "gettid",
					    "gettimeofday",
					    "getuid",
					    "getxattr",
					    "ioctl",
					    "kill",
					    "lchown",
					    "link",
					    "linkat",
					    "listen",
					    "lseek",
					    "lstat",
					    "madvise",
					    "memfd_create",
					    "mkdir",
					    "mkdirat",
					    "mknod",
					    "mknodat",
					    "mmap",
					    "mmap2",
					    "mprotect",
					    "mremap",
					    "munmap",
					    "nanosleep",
					    "newfstatat",
					    "open",
					    "openat",
					    "openat2",
					    "pause",
					    "pipe",
					    "pipe2",
					    "poll",
					    "ppoll",
					    "prctl",
					    "pread64",
					    "preadv",
					    "prlimit64",
					    "pselect6",
					    "pwrite64",
					    "pwritev",
					    "read",
					    "readlink",
					    "readlinkat",
					    "readv",
					    "recvfrom",
					    "recvmmsg",
					    "recvmsg",
					    "rename",
					    "renameat",
					    "renameat2",
					    "restart_syscall",
					    "rmdir",
					    "rseq",
					    "rt_sigaction",
					    "rt_sigpending",
					    "rt_sigprocmask",
					    "rt_sigqueueinfo",
					    "rt_sigreturn",
					    "rt_sigsuspend",
					    "rt_sigtimedwait",
					    "sched_getaffinity",
					    "sched_yield",
					    "select",
					    "sendfile",
					    "sendmmsg",
					    "sendmsg",
					    "sendto",
					    "setgid",
					    "setgroups",
					    "setitimer",
					    "setpgid",
					    "setpriority",
					    "setregid",
					    "setresgid",
					    "setresuid",
					    "setreuid",
					    "setrlimit",
					    "set_robust_list",
					    "setsid",
					    "setsockopt",
					    "set_tid_address",
					    "setuid",
					    "shutdown",
					    "sigaltstack",
					    "socketpair",
					    "splice",
					    "stat",
					    "stat64",
					    "statfs",
					    "statx",
					    "symlink",
					    "symlinkat",
					    "sync",
					    "sysinfo",
					    "tee",
					    "tgkill",
					    "time",
					    "timerfd_create",
					    "timerfd_gettime",
					    "timerfd_settime",
					    "times",
					    "tkill",
					    "truncate",
					    "umask",
					    "uname",
					    "unlink",
					    "unlinkat",
					    "utime",
					    "utimensat",
					    "utimes",
					    "vfork",
					    "wait4",
					    "waitid",
					    "write",
					    "writev",
					    "arch_prctl",
					    "riscv_flush_icache",
					    "s390_pci_mmio_read",
					    "sync_file_range2",
					    NULL};

static char *default_like_profile(void)
{
	size_t cap = 65536, n = 0;
	char *p = malloc(cap);

	assert_non_null(p);
	n += (size_t)snprintf(p + n, cap - n,
			      "'seccomp': {'defaultAction': 'SCMP_ACT_ERRNO', 'defaultErrnoRet': 1,"
			      " 'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', "
			      "'SCMP_ARCH_X32'], 'syscalls': [{'names': [");
	for (size_t i = 0; allowed_calls[i] != NULL; i++)
		n += (size_t)snprintf(p + n, cap - n, "%s'%s'", i > 0 ? ", " : "",
				      allowed_calls[i]);
	n += (size_t)snprintf(
		p + n, cap - n,
		"], 'action': 'SCMP_ACT_ALLOW'},"
		" {'names': ['personality'], 'action': 'SCMP_ACT_ALLOW',"
		"  'args': [{'index': 0, 'value': 0, 'op': 'SCMP_CMP_EQ'}]},"
		" {'names': ['personality'], 'action': 'SCMP_ACT_ALLOW',"
		"  'args': [{'index': 0, 'value': 8, 'op': 'SCMP_CMP_EQ'}]},"
		" {'names': ['personality'], 'action': 'SCMP_ACT_ALLOW',"
		"  'args': [{'index': 0, 'value': 4294967295, 'op': 'SCMP_CMP_EQ'}]},"
		" {'names': ['clone'], 'action': 'SCMP_ACT_ALLOW',"
		"  'args': [{'index': 0, 'value': 2114060288, 'op': 'SCMP_CMP_MASKED_EQ'}]},"
		" {'names': ['clone3'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 38},"
		" {'names': ['socket'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 97,"
		"  'args': [{'index': 0, 'value': 16, 'op': 'SCMP_CMP_EQ'},"
		"   {'index': 2, 'value': 9, 'op': 'SCMP_CMP_EQ'}]}]}");
	assert_true(n < cap);
	return p;
}

static int probe_default_like(void)
{
	errno = 0;
	if (syscall(SYS_getpid) < 0 || syscall(SYS_personality, 0xffffffff) < 0)
		return 1;
	/* Not on the list: EPERM. */
	if (syscall(SYS_unshare, CLONE_NEWNS) != -1 || errno != EPERM)
		return 2;
	if (syscall(SYS_personality, 0x0400000) != -1 || errno != EPERM)
		return 3;
	if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
		return 4;
	/* socket(AF_NETLINK, ..., NETLINK_AUDIT): both conditions. */
	if (syscall(SYS_socket, 16, 3, 9) != -1 || errno != EAFNOSUPPORT)
		return 5;
	return 0;
}

static void a_default_like_profile_compiles_and_holds(void **state)
{
	char *lx = default_like_profile();

	assert_int_equal(in_filtered_child(lx, probe_default_like), 0);
	free(lx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_minimal_config_gives_a_container_of_its_own_mechanisms),
		cmocka_unit_test(the_process_object_fills_every_field),
		cmocka_unit_test(process_errors_name_their_field),
		cmocka_unit_test(the_process_object_parses_alone_for_exec),
		cmocka_unit_test(root_and_uts_are_read_as_given),
		cmocka_unit_test(mounts_become_the_jails_tree),
		cmocka_unit_test(idmapped_mounts_take_their_maps),
		cmocka_unit_test(mount_errors_name_their_field),
		cmocka_unit_test(namespaces_are_made_or_joined),
		cmocka_unit_test(a_user_namespace_is_cells_own_with_the_configs_maps),
		cmocka_unit_test(devices_come_after_the_default_set),
		cmocka_unit_test(device_rules_end_with_the_default_devices),
		cmocka_unit_test(resources_fill_limits_and_res),
		cmocka_unit_test(resource_errors_name_their_field),
		cmocka_unit_test(the_rest_of_linux_is_read),
		cmocka_unit_test(time_offsets_are_read),
		cmocka_unit_test(hooks_are_read_per_point),
		cmocka_unit_test(seccomp_rules_are_read),
		cmocka_unit_test(seccomp_errors_name_their_field),
		cmocka_unit_test(oci_versions_1_0_to_1_3_are_accepted),
		cmocka_unit_test(unknown_fields_are_ignored_unless_they_matter),
		cmocka_unit_test(a_malformed_file_says_where),
		cmocka_unit_test(the_default_config_parses_back),
		cmocka_unit_test(the_features_list_what_the_parser_accepts),
		cmocka_unit_test(load_reads_the_bundles_config_and_refuses_a_symlink),
		cmocka_unit_test(a_small_profile_compiles_and_holds),
		cmocka_unit_test(a_default_like_profile_compiles_and_holds),
	};
	return cmocka_run_group_tests_name("oci_config", tests, NULL, NULL);
}
