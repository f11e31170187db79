/*
 * spec.c - building and validating a struct jail_spec.
 *
 * The syntax of sizes, CPUs and ids lives here; param.c reads each
 * parameter's text with them, so that every front door (flags, jail
 * file, cell set, the record) spells and checks them the same way.
 */
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "cleanup.h"
#include "netaddr.h"
#include "param.h"
#include "rootless.h"

#define DEFAULT_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

const char *const jail_hook_point_names[JAIL_HOOK_NPOINTS] = {
	[JAIL_HOOK_PRESTART] = "prestart",
	[JAIL_HOOK_CREATE_RUNTIME] = "createRuntime",
	[JAIL_HOOK_CREATE_CONTAINER] = "createContainer",
	[JAIL_HOOK_START_CONTAINER] = "startContainer",
	[JAIL_HOOK_POSTSTART] = "poststart",
	[JAIL_HOOK_POSTSTOP] = "poststop",
};

void spec_init(struct jail_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->net = JAIL_NET_NONE;
	s->network.nat = true;
	s->network.mtu = -1;
	s->policy = true;
	s->log_size = s->log_keep = -1;
	s->limits = (struct jail_limits){-1, -1, -1, -1, -1, -1, -1, -1, 0, false};
	s->res = (struct jail_resources){.cpu_shares = -1,
					 .cpu_quota = -1,
					 .cpu_period = -1,
					 .memory_reservation = -1,
					 .memory_swappiness = -1,
					 .blkio_weight = -1};
}

static void free_strv(char **v)
{
	if (v == NULL)
		return;
	for (char **p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

static void free_kv(struct jail_sysctl *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

void spec_seccomp_rules_free(struct jail_seccomp_rules *r)
{
	if (r == NULL)
		return;
	free(r->archs);
	free(r->listener_path);
	free(r->listener_metadata);
	for (size_t i = 0; i < r->nsyscalls; i++) {
		free_strv(r->syscalls[i].names);
		free(r->syscalls[i].args);
	}
	free(r->syscalls);
	free(r);
}

/* What only an OCI config gives (the lists of struct jail_mechanisms
 * and the process's extras). */
static void free_oci_lists(struct jail_spec *s)
{
	struct jail_mechanisms *m = &s->mech;

	if (m->paths_owned) {
		for (size_t i = 0; i < m->nreadonly; i++)
			free((char *)m->readonly[i]);
		for (size_t i = 0; i < m->nmasked; i++)
			free((char *)m->masked[i]);
		free((void *)m->readonly);
		free((void *)m->masked);
	}
	for (size_t i = 0; i < m->nns_join; i++)
		free(m->ns_join[i].path);
	free(m->ns_join);
	free(m->uid_map);
	free(m->gid_map);
	for (size_t i = 0; i < m->nmounts; i++) {
		free(m->mounts[i].type);
		free(m->mounts[i].source);
		free(m->mounts[i].destination);
		free(m->mounts[i].data);
		free(m->mounts[i].uid_map);
		free(m->mounts[i].gid_map);
	}
	free(m->mounts);
	for (size_t i = 0; i < m->ndev_nodes; i++)
		free(m->dev_nodes[i].path);
	free(m->dev_nodes);
	free_kv(m->sysctls, m->nsysctls);
	spec_seccomp_rules_free(m->seccomp_rules);
	for (int p = 0; p < JAIL_HOOK_NPOINTS; p++) {
		for (size_t i = 0; i < m->nhooks[p]; i++) {
			free(m->hooks[p][i].path);
			free_strv(m->hooks[p][i].args);
			free_strv(m->hooks[p][i].env);
		}
		free(m->hooks[p]);
	}
	free(s->proc.groups);
	free(s->proc.rlimits);
	free(s->proc.apparmor_profile);
	free(s->proc.selinux_label);
	free(s->cgroup_path);
	free(s->res.cpuset_cpus);
	free(s->res.cpuset_mems);
	free_kv(s->res.unified, s->res.nunified);
}

static void free_network(struct jail_network *n)
{
	char **lists[] = {n->ip4, n->ip6, n->gateway, n->publish, n->dns};
	size_t counts[] = {n->nip4, n->nip6, n->ngateway, n->npublish, n->ndns};

	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		for (size_t i = 0; i < counts[l]; i++)
			free(lists[l][i]);
		free(lists[l]);
	}
	free(n->bridge);
	free(n->ns_path);
	free(n->ifname);
}

void spec_free(struct jail_spec *s)
{
	free_oci_lists(s);
	free_network(&s->network);
	free(s->name);
	free(s->hostname);
	free(s->domainname);
	free_strv(s->proc.argv);
	free_strv(s->proc.env);
	free(s->proc.cwd);
	free(s->proc.user_name);
	free(s->proc.group_name);
	free(s->rootfs);
	free(s->cgroup_parent);
	for (size_t i = 0; i < s->nbinds; i++) {
		free(s->binds[i].src);
		free(s->binds[i].dst);
	}
	free(s->binds);
	free(s->devices);
	spec_init(s);
}

int spec_parse_id(const char *str, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (str == NULL || !isdigit((unsigned char)str[0]))
		return -1;
	errno = 0;
	v = strtoul(str, &end, 10);
	/* (uid_t)-1 means "unchanged" to setresuid(): never a real id. */
	if (errno != 0 || *end != '\0' || v >= UINT_MAX)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static size_t key_len(const char *kv)
{
	const char *eq = strchr(kv, '=');
	return eq != NULL ? (size_t)(eq - kv) : strlen(kv);
}

static int env_find(const struct jail_spec *s, const char *key, size_t klen)
{
	/* The first byte rules out nearly every entry without a call. */
	for (size_t i = 0; i < s->proc.nenv; i++)
		if (s->proc.env[i][0] == key[0] && strncmp(s->proc.env[i], key, klen) == 0 &&
		    s->proc.env[i][klen] == '=')
			return (int)i;
	return -1;
}

const char *spec_env_get(const struct jail_spec *s, const char *key)
{
	int i = env_find(s, key, strlen(key));
	return i < 0 ? NULL : s->proc.env[i] + strlen(key) + 1;
}

static int env_put(struct jail_spec *s, const char *kv, struct cell_err *e)
{
	size_t klen = key_len(kv);
	int i = env_find(s, kv, klen);
	char *dup = strdup(kv);
	char **n;

	if (dup == NULL)
		return cell_err_set(e, ENOMEM, "%s", "");
	if (i >= 0) {
		free(s->proc.env[i]);
		s->proc.env[i] = dup;
		return 0;
	}
	n = realloc(s->proc.env, (s->proc.nenv + 2) * sizeof(*n));
	if (n == NULL) {
		free(dup);
		return cell_err_set(e, ENOMEM, "%s", "");
	}
	s->proc.env = n;
	s->proc.env[s->proc.nenv++] = dup;
	s->proc.env[s->proc.nenv] = NULL;
	return 0;
}

int spec_env_set(struct jail_spec *s, const char *kv, struct cell_err *e)
{
	size_t klen = key_len(kv);

	if (klen == 0)
		return cell_err_set(e, 0, "expected KEY=VALUE");
	for (size_t i = 0; i < klen; i++) {
		unsigned char c = (unsigned char)kv[i];
		if (!(isalnum(c) || c == '_') || (i == 0 && isdigit(c)))
			return cell_err_set(e, 0, "invalid variable name");
	}
	if (kv[klen] == '\0') {
		/* "KEY" alone: take the caller's value, as docker run -e KEY. */
		const char *v = getenv(kv);
		cleanup_free char *full = NULL;

		if (v == NULL)
			return 0;
		if (asprintf(&full, "%s=%s", kv, v) < 0) {
			full = NULL;
			return cell_err_set(e, ENOMEM, "%s", "");
		}
		return env_put(s, full, e);
	}
	return env_put(s, kv, e);
}

int spec_env_import(struct jail_spec *s, char *const *envp, struct cell_err *e)
{
	for (; envp != NULL && *envp != NULL; envp++) {
		/* Skip malformed entries rather than handing them on. */
		if (strchr(*envp, '=') == NULL || **envp == '=')
			continue;
		if (env_put(s, *envp, e) < 0)
			return -1;
	}
	return 0;
}

int spec_set_argv(struct jail_spec *s, int argc, char *const *argv, struct cell_err *e)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));

	if (v == NULL)
		return cell_err_set(e, ENOMEM, "command");
	for (int i = 0; i < argc; i++) {
		v[i] = strdup(argv[i]);
		if (v[i] == NULL) {
			free_strv(v);
			return cell_err_set(e, ENOMEM, "command");
		}
	}
	free_strv(s->proc.argv);
	s->proc.argv = v;
	return 0;
}

bool spec_valid_name(const char *name)
{
	size_t n = strlen(name);

	/* A name is a directory name in the state root and a default
	 * hostname: keep it to a safe, portable alphabet. */
	if (n == 0 || n > JAIL_NAME_MAX || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!(isalnum(c) || c == '-' || c == '_' || c == '.'))
			return false;
	}
	return true;
}

bool spec_valid_hostname(const char *host)
{
	size_t n = strlen(host), label = 0;

	/* RFC 1123 labels, at most 64 bytes in all (the kernel's limit). */
	if (n == 0 || n > JAIL_UTS_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)host[i];
		if (c == '.') {
			if (label == 0 || host[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!(isalnum(c) || c == '-') || (label == 0 && c == '-') || ++label > 63)
			return false;
	}
	return label > 0 && host[n - 1] != '-';
}

/* A name for a jail started without --name: 12 hex digits, as docker. */
static int generate_name(struct jail_spec *s, struct cell_err *e)
{
	unsigned char r[6];
	char buf[sizeof(r) * 2 + 1];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return cell_err_set(e, errno, "generate a jail name");
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
	s->name = strdup(buf);
	if (s->name == NULL)
		return cell_err_set(e, ENOMEM, "generate a jail name");
	return 0;
}

/* Which element of the allow list BIT is (they are listed in bit order). */
static int allow_index(const struct jail_spec *s, unsigned int bit)
{
	return __builtin_popcount(s->allow & (bit - 1));
}

/* The same for a rootless cell (rootless.h), which holds no capability
 * in the host's user namespace to keep or give: its jails are in a user
 * namespace of cell's own whatever userns says. */
static int check_rootless_ids(const struct jail_spec *s, struct cell_err *e)
{
	/* A bridge, its veth and rules are the host's network. */
	if (s->net == JAIL_NET_BRIDGE)
		return cell_err_param(
			e, PARAM_NET, 0, 0,
			"a bridge needs root (rootless: --net none, host, slirp or ns:PATH)");
	if (s->userns == JAIL_USERNS_HOST)
		return cell_err_param(e, PARAM_USERNS, 0, 0,
				      "needs root: a rootless jail is in a user namespace of "
				      "cell's own, the host's ids are not the user's to give");
	if (s->allow & JAIL_ALLOW_MLOCK)
		return cell_err_param(e, PARAM_ALLOW, allow_index(s, JAIL_ALLOW_MLOCK), 0,
				      "needs root: the kernel honours CAP_IPC_LOCK in the host's "
				      "user namespace only");
	if ((s->allow & JAIL_ALLOW_RAW_SOCKETS) && s->net == JAIL_NET_HOST)
		return cell_err_param(e, PARAM_ALLOW, allow_index(s, JAIL_ALLOW_RAW_SOCKETS), 0,
				      "needs root on the host's network, which is the host user "
				      "namespace's");
	return 0;
}

/* Rules whose capability the kernel checks in a user namespace that the
 * jail's root, root of its own, holds none in: said, not left to do
 * nothing (docs/cell.8, SECURITY). */
static int check_host_ids(const struct jail_spec *s, struct cell_err *e)
{
	if (rootless())
		return check_rootless_ids(s, e);
	if (s->userns != JAIL_USERNS_PRIVATE)
		return 0;
	if (s->allow & JAIL_ALLOW_MLOCK) {
		cell_err_param(e, PARAM_ALLOW, allow_index(s, JAIL_ALLOW_MLOCK), 0,
			       "needs userns host: the kernel honours CAP_IPC_LOCK in the host's "
			       "user namespace only");
		return cell_err_ref(e, PARAM_USERNS, "userns");
	}
	if ((s->allow & JAIL_ALLOW_RAW_SOCKETS) && s->net == JAIL_NET_HOST) {
		cell_err_param(e, PARAM_ALLOW, allow_index(s, JAIL_ALLOW_RAW_SOCKETS), 0,
			       "needs userns host on the host's network, which is the host user "
			       "namespace's");
		return cell_err_ref(e, PARAM_USERNS, "userns");
	}
	return 0;
}

/* A parameter of the network given to a jail whose mode has no use for
 * it: said, not ignored. */
static int needs_mode(int param, const char *what, struct cell_err *e)
{
	cell_err_param(e, param, 0, 0, "needs net %s", what);
	return cell_err_ref(e, PARAM_NET, "net");
}

/* LIST holds TEXT's address before element I. */
static bool addr_seen(char *const *list, size_t i, const struct netaddr *a)
{
	struct cell_err ignored;
	struct netaddr b;

	for (size_t k = 0; k < i; k++)
		if (netaddr_parse(list[k], true, &b, &ignored) == 0 && netaddr_same(a, &b))
			return true;
	return false;
}

/* The addresses of one family's list: each once, none a gateway's. */
static int check_addrs(const struct jail_network *n, int param, char *const *list, size_t count,
		       struct cell_err *e)
{
	for (size_t i = 0; i < count; i++) {
		struct netaddr a;

		if (netaddr_parse(list[i], true, &a, e) < 0)
			return cell_err_param(e, param, (int)i, 0, "not an address");
		if (addr_seen(list, i, &a))
			return cell_err_param(e, param, (int)i, 0, "given twice");
		if (addr_seen(n->gateway, n->ngateway, &a)) {
			cell_err_param(e, param, (int)i, 0, "is the gateway's address");
			return cell_err_ref(e, PARAM_GATEWAY, "gateway");
		}
	}
	return 0;
}

/* --net slirp: the user-mode stack gives the jail its address and its
 * gateway (slirp.h); neither can be chosen. */
static int not_with_slirp(int param, struct cell_err *e)
{
	cell_err_param(e, param, 0, 0,
		       "not with net slirp: its user-mode stack gives the jail 10.0.2.100/24 "
		       "and the gateway 10.0.2.2");
	return cell_err_ref(e, PARAM_NET, "net");
}

static int check_network(const struct jail_spec *s, struct cell_err *e)
{
	const struct jail_network *n = &s->network;
	bool families[2] = {false, false};

	/* The MTU is a bridge's (slirp's stack chooses its own). */
	if (s->net != JAIL_NET_BRIDGE && n->mtu >= 0)
		return needs_mode(PARAM_VNET_MTU, "bridge", e);
	if (s->net == JAIL_NET_SLIRP) {
		if (n->nip4 > 0)
			return not_with_slirp(PARAM_IP4, e);
		if (n->nip6 > 0)
			return not_with_slirp(PARAM_IP6, e);
		if (n->ngateway > 0)
			return not_with_slirp(PARAM_GATEWAY, e);
	} else if (s->net != JAIL_NET_BRIDGE) {
		if (n->nip4 > 0)
			return needs_mode(PARAM_IP4, "bridge", e);
		if (n->nip6 > 0)
			return needs_mode(PARAM_IP6, "bridge", e);
		if (n->ngateway > 0)
			return needs_mode(PARAM_GATEWAY, "bridge", e);
		if (n->npublish > 0)
			return needs_mode(PARAM_PUBLISH, "bridge or slirp", e);
		if (n->ifname != NULL)
			return needs_mode(PARAM_VNET_IF, "bridge or slirp", e);
	}
	if (n->ndns > 0 && s->net != JAIL_NET_BRIDGE && s->net != JAIL_NET_NS &&
	    s->net != JAIL_NET_SLIRP)
		return needs_mode(PARAM_DNS, "bridge, slirp or ns:PATH", e);
	for (size_t i = 0; i < n->ngateway; i++) {
		struct netaddr a;

		if (netaddr_parse(n->gateway[i], true, &a, e) < 0)
			return cell_err_param(e, PARAM_GATEWAY, (int)i, 0, "not an address");
		if (families[a.family == AF_INET6])
			return cell_err_param(e, PARAM_GATEWAY, (int)i, 0,
					      "a second gateway of one family");
		families[a.family == AF_INET6] = true;
	}
	return check_addrs(n, PARAM_IP4, n->ip4, n->nip4, e) < 0 ||
			       check_addrs(n, PARAM_IP6, n->ip6, n->nip6, e) < 0
		       ? -1
		       : 0;
}

int spec_check(const struct jail_spec *s, struct cell_err *e)
{
	/* Each value once more: a spec need not come from text. */
	for (size_t i = 0; i < PARAM_COUNT; i++) {
		const struct param *p = &param_table[i];
		const char *v = p->str != NULL ? *p->str((struct jail_spec *)s) : NULL;

		if (v != NULL && p->check != NULL && p->check(v, e) < 0) {
			e->about.param = p->id;
			return -1;
		}
	}
	if (s->proc.argv == NULL || s->proc.argv[0] == NULL || s->proc.argv[0][0] == '\0')
		return cell_err_param(e, PARAM_COMMAND, 0, 0, "no command to run");
	for (size_t i = 0; i < s->nbinds; i++)
		if (s->binds[i].dst[0] != '/')
			return cell_err_param(e, PARAM_BIND, (int)i, 0,
					      "destination must be an absolute path");
	if (s->rw && s->rootfs == NULL) {
		cell_err_param(e, PARAM_RW, 0, 0,
			       "needs path: the embedded root is the host's own files and stays "
			       "read-only");
		return cell_err_ref(e, PARAM_PATH, "path");
	}
	/* Swap is allowed beyond a memory limit, so it needs one. */
	if (s->limits.swap >= 0 && s->limits.memory < 0) {
		cell_err_param(e, PARAM_SWAP, 0, 0, "needs memory");
		return cell_err_ref(e, PARAM_MEMORY, "memory");
	}
	if (check_network(s, e) < 0)
		return -1;
	return check_host_ids(s, e);
}

int spec_validate(struct jail_spec *s, struct cell_err *e)
{
	if (s->name == NULL) {
		if (s->hostname == NULL && (s->hostname = strdup("cell")) == NULL)
			return cell_err_set(e, ENOMEM, "hostname");
		if (generate_name(s, e) < 0)
			return -1;
	}
	if (spec_check(s, e) < 0)
		return -1;
	if (s->hostname == NULL) {
		/* A given name is the default hostname when it is a valid one. */
		const char *h = spec_valid_hostname(s->name) ? s->name : "cell";
		s->hostname = strdup(h);
		if (s->hostname == NULL)
			return cell_err_set(e, ENOMEM, "hostname");
	}
	return 0;
}

int spec_env_path(struct jail_spec *s, struct cell_err *e)
{
	return spec_env_get(s, "PATH") == NULL ? env_put(s, DEFAULT_PATH, e) : 0;
}

/* KEY=VALUE unless the environment has KEY already (-e wins). */
static int env_default(struct jail_spec *s, const char *key, const char *value, struct cell_err *e)
{
	cleanup_free char *kv = NULL;

	if (spec_env_get(s, key) != NULL)
		return 0;
	if (asprintf(&kv, "%s=%s", key, value) < 0) {
		kv = NULL;
		return cell_err_set(e, ENOMEM, "environment");
	}
	return env_put(s, kv, e);
}

int spec_env_jail(struct jail_spec *s, const char *term, struct cell_err *e)
{
	s->proc.home_env = s->proc.user_groups = true;
	if (spec_env_path(s, e) < 0 ||
	    (s->hostname != NULL && env_default(s, "HOSTNAME", s->hostname, e) < 0) ||
	    env_default(s, "container", "cell", e) < 0)
		return -1;
	if (s->proc.terminal && env_default(s, "TERM", term != NULL ? term : "xterm", e) < 0)
		return -1;
	return 0;
}

/* True when ACCESS is a non-empty subset of "rwm", each letter once. */
static bool valid_access(const char *access)
{
	size_t n = strnlen(access, 4);

	if (n == 0 || n > 3)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strchr("rwm", access[i]) == NULL || memchr(access, access[i], i) != NULL)
			return false;
	return true;
}

int spec_add_device_rule(struct jail_spec *s, const struct jail_device_rule *r, struct cell_err *e)
{
	struct jail_device_rule *grown;

	if (r->type != 'a' && r->type != 'c' && r->type != 'b')
		return cell_err_set(e, 0, "device rule: type %c: expected a, c or b", r->type);
	/* Linux device numbers: 12-bit majors, 20-bit minors. */
	if (r->major < -1 || r->major > 4095 || r->minor < -1 || r->minor > 1048575)
		return cell_err_set(e, 0, "device rule: %d:%d: no such device number", r->major,
				    r->minor);
	if (!valid_access(r->access))
		return cell_err_set(e, 0, "device rule: access %.4s: expected letters of rwm",
				    r->access);
	grown = realloc(s->devices, (s->ndevices + 1) * sizeof(*grown));
	if (grown == NULL)
		return cell_err_set(e, ENOMEM, "device rule");
	s->devices = grown;
	s->devices[s->ndevices++] = *r;
	return 0;
}

int spec_parse_count(const char *str, long long *out)
{
	long long v;
	char *end;

	if (str == NULL || !isdigit((unsigned char)str[0]))
		return -1;
	errno = 0;
	v = strtoll(str, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

int spec_parse_size(const char *str, long long *out)
{
	long long v, mult = 1;
	char *end;

	if (str == NULL || !isdigit((unsigned char)str[0]))
		return -1;
	errno = 0;
	v = strtoll(str, &end, 10);
	if (errno != 0)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case '\0':
		break;
	case 'k':
		mult = 1LL << 10;
		break;
	case 'm':
		mult = 1LL << 20;
		break;
	case 'g':
		mult = 1LL << 30;
		break;
	case 't':
		mult = 1LL << 40;
		break;
	default:
		return -1;
	}
	if (*end != '\0') {
		end++;
		/* "64M", "64MB", "64MiB" all mean the same. */
		if (strcasecmp(end, "b") == 0 || strcasecmp(end, "ib") == 0)
			end += strlen(end);
		if (*end != '\0')
			return -1;
	}
	if (v > LLONG_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int spec_parse_cpus(const char *str, long long *out)
{
	long long whole = 0, frac = 0, scale = 100;
	const char *p = str;

	if (str == NULL || !(isdigit((unsigned char)*p) || *p == '.'))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		whole = whole * 10 + (*p - '0');
		if (whole > 1000000)
			return -1;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			if (scale == 0)
				return -1; /* more precision than 1/1000 CPU */
			frac += (*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p != '\0' || whole * 1000 + frac == 0)
		return -1;
	*out = whole * 1000 + frac;
	return 0;
}

static const char *const allow_names[] = {"set_hostname", "raw_sockets", "sysvipc",
					  "chown",	  "mlock",	 "io_uring"};

const char *spec_allow_name(unsigned int bit)
{
	for (size_t i = 0; i < sizeof(allow_names) / sizeof(allow_names[0]); i++)
		if (bit == 1U << i)
			return allow_names[i];
	return NULL;
}
