/* Unit tests of policy.c: the default policy as a spec's mechanisms, and
 * each rule's state derived from them. */
#include <linux/capability.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "caps.h"
#include "devices.h"
#include "landlock.h"
#include "param.h"
#include "policy.h"

static bool has(const char *const *list, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], path) == 0)
			return true;
	return false;
}

static void defaults(struct jail_spec *s)
{
	struct cell_err e;

	assert_int_equal(policy_defaults(s, &e), 0);
}

static const struct policy_rule *rule(const char *key)
{
	for (size_t i = 0; i < policy_nrules; i++)
		if (strcmp(policy_rules[i].key, key) == 0)
			return &policy_rules[i];
	fail_msg("no rule %s", key);
	return NULL;
}

static void defaults_fill_every_mechanism(void **state)
{
	struct jail_spec s;

	spec_init(&s);
	defaults(&s);
	assert_int_equal(s.mech.ns_new, CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID |
						CLONE_NEWCGROUP | CLONE_NEWIPC | CLONE_NEWNET);
	assert_true(s.proc.has_caps);
	assert_int_equal(s.proc.caps.bounding, policy_default_caps());
	assert_int_equal(s.proc.caps.permitted, policy_default_caps());
	assert_int_equal(s.proc.caps.effective, policy_default_caps());
	assert_int_equal(s.proc.caps.inheritable, 0);
	assert_int_equal(s.proc.caps.ambient, 0);
	assert_true(s.proc.no_new_privs);
	assert_int_equal(s.mech.landlock, LANDLOCK_SCOPE_ABSTRACT | LANDLOCK_SCOPE_SIGNALS);
	assert_int_equal(s.mech.seccomp, JAIL_SECCOMP_DEFAULT);
	assert_true(s.mech.pin_priority);
	assert_true(s.mech.hide_state_root);
	assert_true(has(s.mech.readonly, s.mech.nreadonly, "/proc/sys"));
	assert_true(has(s.mech.masked, s.mech.nmasked, "/proc/kcore"));
	assert_true(has(s.mech.masked, s.mech.nmasked, "/sys/firmware"));
	/* The embedded root: the host's secrets too. */
	assert_true(has(s.mech.masked, s.mech.nmasked, "/etc/shadow"));
	assert_true(s.mech.mask_ssh_host_keys);
	/* A user namespace of its own, its ids a range of the host's, which
	 * owns the jail's network namespace (its kept network capabilities
	 * count there). */
	assert_true(s.mech.own_userns);
	assert_true(s.mech.userns_range);
	assert_int_equal(s.mech.userns_owns, CLONE_NEWNET);
	/* Every rule holds. */
	for (size_t i = 0; i < policy_nrules; i++)
		assert_string_equal(policy_rule_state(&policy_rules[i], &s), "enforced");
	spec_free(&s);
}

static void without_the_policy_only_namespaces_remain(void **state)
{
	struct jail_spec s;

	spec_init(&s);
	s.policy = false;
	s.net = JAIL_NET_HOST;
	defaults(&s);
	assert_int_equal(s.mech.ns_new, CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID |
						CLONE_NEWCGROUP | CLONE_NEWIPC);
	assert_false(s.proc.has_caps);
	assert_false(s.proc.no_new_privs);
	assert_int_equal(s.mech.seccomp, JAIL_SECCOMP_NONE);
	assert_int_equal(s.mech.landlock, 0);
	assert_false(s.mech.hide_state_root);
	assert_int_equal(s.mech.nmasked, 0);
	assert_int_equal(s.mech.nreadonly, 0);
	/* Its own ids still; the host's network is not its to own. */
	assert_true(s.mech.userns_range);
	assert_int_equal(s.mech.userns_owns, 0);
	assert_string_equal(policy_rule_state(rule("host_root"), &s), "enforced");
	/* The namespaces still keep processes and SysV IPC apart. */
	assert_string_equal(policy_rule_state(rule("processes"), &s), "enforced");
	assert_string_equal(policy_rule_state(rule("sysvipc"), &s), "enforced");
	assert_string_equal(policy_rule_state(rule("mount"), &s), "off");
	assert_string_equal(policy_rule_state(rule("sysctl"), &s), "off");
	assert_string_equal(policy_rule_state(rule("privileges"), &s), "off");
	spec_free(&s);
}

/* Each --allow relaxes its own rule, and only it. */
static void each_allow_relaxes_its_rule_only(void **state)
{
	static const char *const allows[] = {"raw_sockets", "sysvipc",	    "chown",
					     "mlock",	    "set_hostname", "io_uring"};

	for (size_t a = 0; a < sizeof(allows) / sizeof(allows[0]); a++) {
		struct jail_spec s;
		struct cell_err e;

		spec_init(&s);
		assert_int_equal(param_set(&s, "allow", allows[a], NULL, &e), 0);
		defaults(&s);
		for (size_t i = 0; i < policy_nrules; i++) {
			const char *want = strcmp(policy_rules[i].key, allows[a]) == 0 ? "allowed"
										       : "enforced";

			assert_string_equal(policy_rule_state(&policy_rules[i], &s), want);
		}
		spec_free(&s);
	}
}

static void set_hostname_keeps_sys_admin_in_its_own_user_namespace(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(param_set(&s, "allow", "set_hostname", NULL, &e), 0);
	defaults(&s);
	assert_true(s.mech.own_userns);
	assert_int_equal(s.mech.userns_owns, CLONE_NEWUTS | CLONE_NEWNET);
	assert_true(s.proc.caps.bounding & CAPS_BIT(CAP_SYS_ADMIN));
	assert_int_equal(s.mech.seccomp, JAIL_SECCOMP_DEFAULT);
	assert_int_equal(s.mech.seccomp_relax, SECCOMP_RELAX_HOSTNAME);
	/* Mount stays forbidden: the filter, and CAP_SYS_ADMIN counts in
	 * the jail's own user namespace only. */
	assert_string_equal(policy_rule_state(rule("mount"), &s), "enforced");
	spec_free(&s);
}

/* --userns host: the host's ids, the old model; with --allow
 * set_hostname a user namespace that maps every id to itself. */
static void userns_host_keeps_the_hosts_ids(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(param_set(&s, "userns", "host", NULL, &e), 0);
	defaults(&s);
	assert_false(s.mech.own_userns);
	assert_false(s.mech.userns_range);
	assert_int_equal(s.mech.userns_owns, 0);
	assert_string_equal(policy_rule_state(rule("host_root"), &s), "off");
	spec_free(&s);
	spec_init(&s);
	assert_int_equal(param_set(&s, "userns", "host", NULL, &e), 0);
	assert_int_equal(param_set(&s, "allow", "set_hostname", NULL, &e), 0);
	defaults(&s);
	assert_true(s.mech.own_userns);
	assert_false(s.mech.userns_range);
	assert_int_equal(s.mech.userns_owns, CLONE_NEWUTS | CLONE_NEWNET);
	spec_free(&s);
}

/* A mechanism taken away undoes exactly the rules that name it. */
static void a_missing_mechanism_unholds_its_rules(void **state)
{
	struct jail_spec s;

	spec_init(&s);
	defaults(&s);
	s.mech.ns_new &= ~(unsigned long)CLONE_NEWPID;
	assert_string_equal(policy_rule_state(rule("processes"), &s), "off");
	assert_string_equal(policy_rule_state(rule("signal"), &s), "off");
	assert_string_equal(policy_rule_state(rule("mount"), &s), "enforced");
	defaults(&s);
	s.mech.seccomp = JAIL_SECCOMP_NONE;
	assert_string_equal(policy_rule_state(rule("mount"), &s), "off");
	assert_string_equal(policy_rule_state(rule("namespaces"), &s), "off");
	assert_string_equal(policy_rule_state(rule("chown"), &s), "enforced");
	defaults(&s);
	s.proc.caps.bounding |= CAPS_BIT(CAP_CHOWN);
	assert_string_equal(policy_rule_state(rule("chown"), &s), "off");
	defaults(&s);
	s.mech.landlock = 0;
	assert_string_equal(policy_rule_state(rule("abstract_sockets"), &s), "off");
	defaults(&s);
	s.proc.no_new_privs = false;
	assert_string_equal(policy_rule_state(rule("privileges"), &s), "off");
	spec_free(&s);
}

/* A --rootfs holds no host files: no host secrets to mask, and the rule
 * stays enforced in /proc; a list without /proc/sys leaves sysctls open. */
static void a_rootfs_gets_the_kernel_masks_only(void **state)
{
	static const char *const none[] = {"/proc/bus"};
	struct jail_spec s;

	spec_init(&s);
	s.rootfs = strdup("/srv/root");
	defaults(&s);
	assert_true(has(s.mech.masked, s.mech.nmasked, "/proc/kcore"));
	assert_false(has(s.mech.masked, s.mech.nmasked, "/etc/shadow"));
	assert_false(s.mech.mask_ssh_host_keys);
	assert_string_equal(policy_rule_state(rule("sysctl"), &s), "enforced");
	assert_string_equal(policy_rule_state(rule("host_secrets"), &s), "off");
	s.mech.readonly = none;
	s.mech.nreadonly = 1;
	assert_string_equal(policy_rule_state(rule("sysctl"), &s), "off");
	spec_free(&s);
}

/* A devices cgroup only where device nodes could be: a --rootfs or a
 * --bind; never without the policy. */
static void standard_devices_only_where_nodes_could_be(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	defaults(&s);
	assert_int_equal(s.ndevices, 0);
	s.rootfs = strdup("/srv/root");
	defaults(&s);
	assert_int_equal(s.ndevices, devices_nstandard);
	spec_free(&s);
	spec_init(&s);
	assert_int_equal(param_set(&s, "bind", "/tmp:/mnt", NULL, &e), 0);
	s.policy = false;
	defaults(&s);
	assert_int_equal(s.ndevices, 0);
	s.policy = true;
	defaults(&s);
	assert_int_equal(s.ndevices, devices_nstandard);
	spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_fill_every_mechanism),
		cmocka_unit_test(without_the_policy_only_namespaces_remain),
		cmocka_unit_test(each_allow_relaxes_its_rule_only),
		cmocka_unit_test(set_hostname_keeps_sys_admin_in_its_own_user_namespace),
		cmocka_unit_test(userns_host_keeps_the_hosts_ids),
		cmocka_unit_test(a_missing_mechanism_unholds_its_rules),
		cmocka_unit_test(standard_devices_only_where_nodes_could_be),
		cmocka_unit_test(a_rootfs_gets_the_kernel_masks_only),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
