/*
 * spec.c - building and validating a struct jail_spec.
 *
 * Parsers of single values live here so that every front door (flags,
 * jail file, config.json) spells and checks them the same way.
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

#define DEFAULT_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

void spec_init(struct jail_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->net = JAIL_NET_NONE;
	s->policy = true;
	s->limits = (struct jail_limits){-1, -1, -1, -1, -1, -1, -1, -1, 0, false};
}

static void free_strv(char **v)
{
	if (v == NULL)
		return;
	for (char **p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

void spec_free(struct jail_spec *s)
{
	free(s->name);
	free(s->hostname);
	free(s->domainname);
	free_strv(s->argv);
	free_strv(s->env);
	free(s->workdir);
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

int spec_parse_bind(const char *arg, struct jail_bind *b, struct cell_err *e)
{
	cleanup_free char *copy = strdup(arg);
	char *src, *dst, *mode;

	if (copy == NULL)
		return cell_err_set(e, ENOMEM, "--bind %s", arg);
	src = copy;
	dst = strchr(src, ':');
	if (dst == NULL)
		return cell_err_set(e, 0, "--bind %s: expected SRC:DST[:ro|rw][,dev]", arg);
	*dst++ = '\0';
	mode = strchr(dst, ':');
	if (mode != NULL)
		*mode++ = '\0';
	if (src[0] == '\0' || dst[0] == '\0')
		return cell_err_set(e, 0, "--bind %s: expected SRC:DST[:ro|rw][,dev]", arg);
	if (dst[0] != '/')
		return cell_err_set(e, 0, "--bind %s: destination must be an absolute path", arg);
	b->ro = false;
	b->dev = false;
	if (mode != NULL && *mode == '\0')
		return cell_err_set(e, 0, "--bind %s: expected SRC:DST[:ro|rw][,dev]", arg);
	/* Options, comma-separated: ro or rw, and dev (device nodes work
	 * through the bind; without it the bind is nodev). */
	for (char *save = NULL, *o = mode != NULL ? strtok_r(mode, ",", &save) : NULL; o != NULL;
	     o = strtok_r(NULL, ",", &save)) {
		if (strcmp(o, "ro") == 0)
			b->ro = true;
		else if (strcmp(o, "rw") == 0)
			b->ro = false;
		else if (strcmp(o, "dev") == 0)
			b->dev = true;
		else
			return cell_err_set(
				e, 0, "--bind %s: unknown option \"%s\" (ro, rw or dev)", arg, o);
	}
	/* A relative source is the caller's: made absolute here, as the
	 * root switch later changes the directory it would be relative to. */
	if (src[0] == '/') {
		b->src = strdup(src);
	} else {
		cleanup_free char *cwd = getcwd(NULL, 0);

		if (cwd == NULL)
			return cell_err_set(e, errno, "--bind %s: current directory", arg);
		if (asprintf(&b->src, "%s/%s", cwd, src) < 0)
			b->src = NULL;
	}
	b->dst = strdup(dst);
	if (b->src == NULL || b->dst == NULL) {
		free(b->src);
		free(b->dst);
		return cell_err_set(e, ENOMEM, "--bind %s", arg);
	}
	return 0;
}

int spec_add_bind(struct jail_spec *s, const char *arg, struct cell_err *e)
{
	struct jail_bind b, *n;

	if (spec_parse_bind(arg, &b, e) < 0)
		return -1;
	n = realloc(s->binds, (s->nbinds + 1) * sizeof(*n));
	if (n == NULL) {
		free(b.src);
		free(b.dst);
		return cell_err_set(e, ENOMEM, "--bind %s", arg);
	}
	s->binds = n;
	s->binds[s->nbinds++] = b;
	return 0;
}

int spec_parse_user(struct jail_spec *s, const char *arg, struct cell_err *e)
{
	cleanup_free char *copy = strdup(arg);
	unsigned int uid, gid;
	char *colon;

	if (copy == NULL)
		return cell_err_set(e, ENOMEM, "--user %s", arg);
	colon = strchr(copy, ':');
	if (colon != NULL)
		*colon++ = '\0';
	if (spec_parse_id(copy, &uid) < 0)
		return cell_err_set(e, 0, "--user %s: expected UID[:GID], numeric", arg);
	if (colon != NULL && spec_parse_id(colon, &gid) < 0)
		return cell_err_set(e, 0, "--user %s: expected UID[:GID], numeric", arg);
	s->has_user = true;
	s->uid = uid;
	s->has_gid = colon != NULL;
	s->gid = colon != NULL ? gid : 0;
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
	for (size_t i = 0; i < s->nenv; i++)
		if (s->env[i][0] == key[0] && strncmp(s->env[i], key, klen) == 0 &&
		    s->env[i][klen] == '=')
			return (int)i;
	return -1;
}

const char *spec_env_get(const struct jail_spec *s, const char *key)
{
	int i = env_find(s, key, strlen(key));
	return i < 0 ? NULL : s->env[i] + strlen(key) + 1;
}

static int env_put(struct jail_spec *s, const char *kv, struct cell_err *e)
{
	size_t klen = key_len(kv);
	int i = env_find(s, kv, klen);
	char *dup = strdup(kv);
	char **n;

	if (dup == NULL)
		return cell_err_set(e, ENOMEM, "--env %s", kv);
	if (i >= 0) {
		free(s->env[i]);
		s->env[i] = dup;
		return 0;
	}
	n = realloc(s->env, (s->nenv + 2) * sizeof(*n));
	if (n == NULL) {
		free(dup);
		return cell_err_set(e, ENOMEM, "--env %s", kv);
	}
	s->env = n;
	s->env[s->nenv++] = dup;
	s->env[s->nenv] = NULL;
	return 0;
}

int spec_env_set(struct jail_spec *s, const char *kv, struct cell_err *e)
{
	size_t klen = key_len(kv);

	if (klen == 0)
		return cell_err_set(e, 0, "--env %s: expected KEY=VALUE", kv);
	for (size_t i = 0; i < klen; i++) {
		unsigned char c = (unsigned char)kv[i];
		if (!(isalnum(c) || c == '_') || (i == 0 && isdigit(c)))
			return cell_err_set(e, 0, "--env %s: invalid variable name", kv);
	}
	if (kv[klen] == '\0') {
		/* "KEY" alone: take the caller's value, as docker run -e KEY. */
		const char *v = getenv(kv);
		cleanup_free char *full = NULL;

		if (v == NULL)
			return 0;
		if (asprintf(&full, "%s=%s", kv, v) < 0) {
			full = NULL;
			return cell_err_set(e, ENOMEM, "--env %s", kv);
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
	free_strv(s->argv);
	s->argv = v;
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

/* A cgroup path: not empty, no "." or ".." component. */
static bool valid_cgroup_path(const char *p)
{
	if (*p == '\0')
		return false;
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

int spec_validate(struct jail_spec *s, struct cell_err *e)
{
	if (s->name == NULL) {
		if (s->hostname == NULL && (s->hostname = strdup("cell")) == NULL)
			return cell_err_set(e, ENOMEM, "hostname");
		if (generate_name(s, e) < 0)
			return -1;
	}
	if (!spec_valid_name(s->name))
		return cell_err_set(e, 0,
				    "--name %s: invalid name (1-%d characters of [A-Za-z0-9_.-], "
				    "starting with a letter or digit)",
				    s->name ? s->name : "", JAIL_NAME_MAX);
	if (s->hostname != NULL && !spec_valid_hostname(s->hostname))
		return cell_err_set(e, 0, "--hostname %s: invalid hostname", s->hostname);
	if (s->domainname != NULL &&
	    (strlen(s->domainname) == 0 || strlen(s->domainname) > JAIL_UTS_MAX))
		return cell_err_set(e, 0, "--domainname %s: must be 1-%d bytes", s->domainname,
				    JAIL_UTS_MAX);
	if (s->argv == NULL || s->argv[0] == NULL || s->argv[0][0] == '\0')
		return cell_err_set(e, 0, "no command to run");
	if (s->workdir != NULL && s->workdir[0] != '/')
		return cell_err_set(e, 0, "--workdir %s: must be an absolute path", s->workdir);
	if (s->rw && s->rootfs == NULL)
		return cell_err_set(e, 0,
				    "--rw needs --rootfs: the embedded root is the host's own "
				    "files and stays read-only");
	if (s->rootfs != NULL && s->rootfs[0] == '\0')
		return cell_err_set(e, 0, "--rootfs: empty path");
	for (size_t i = 0; i < s->nbinds; i++)
		if (s->binds[i].dst[0] != '/')
			return cell_err_set(e, 0, "--bind %s: destination must be absolute",
					    s->binds[i].dst);
	/* A parent cgroup path stays inside the hierarchy. */
	if (s->cgroup_parent != NULL && !valid_cgroup_path(s->cgroup_parent))
		return cell_err_set(
			e, 0, "--cgroup-parent %s: expected a cgroup path without \".\" or \"..\"",
			s->cgroup_parent);
	/* Swap is allowed beyond a memory limit, so it needs one. */
	if (s->limits.swap >= 0 && s->limits.memory < 0)
		return cell_err_set(e, 0, "--swap needs --memory");
	if (s->hostname == NULL) {
		/* A given name is the default hostname when it is a valid one. */
		const char *h = spec_valid_hostname(s->name) ? s->name : "cell";
		s->hostname = strdup(h);
		if (s->hostname == NULL)
			return cell_err_set(e, ENOMEM, "hostname");
	}
	if (spec_env_get(s, "PATH") == NULL && env_put(s, DEFAULT_PATH, e) < 0)
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

static const char *const allow_names[] = {"set_hostname", "raw_sockets", "sysvipc", "chown",
					  "mlock"};

const char *spec_allow_name(unsigned int bit)
{
	for (size_t i = 0; i < sizeof(allow_names) / sizeof(allow_names[0]); i++)
		if (bit == 1U << i)
			return allow_names[i];
	return NULL;
}

int spec_allow(struct jail_spec *s, const char *name, struct cell_err *e)
{
	for (size_t i = 0; i < sizeof(allow_names) / sizeof(allow_names[0]); i++)
		if (strcmp(name, allow_names[i]) == 0) {
			s->allow |= 1U << i;
			return 0;
		}
	return cell_err_set(e, 0,
			    "--allow %s: unknown rule (known: set_hostname, raw_sockets, sysvipc, "
			    "chown, mlock)",
			    name);
}

/* "--cpu-time 5": a limit as its flag spells it (as_param() turns it
 * into "cpu_time = 5" for a jail file or cell set). */
static const char *limit_subject(char *buf, size_t n, const char *name, const char *value)
{
	snprintf(buf, n, "--%s %s", name, value);
	for (char *p = buf + 2; *p != '\0' && *p != ' '; p++)
		if (*p == '_')
			*p = '-';
	return buf;
}

int spec_set_limit(struct jail_spec *s, const char *name, const char *value, struct cell_err *e)
{
	struct jail_limits *l = &s->limits;
	char subject[128];
	const char *what = limit_subject(subject, sizeof(subject), name, value);
	long long v;

	if (strcmp(name, "nrtask") == 0) {
		if (spec_parse_count(value, &v) < 0 || v < 1)
			return cell_err_set(e, 0, "%s: expected a number of tasks >= 1", what);
		l->nrtask = v;
	} else if (strcmp(name, "memory") == 0 || strcmp(name, "swap") == 0 ||
		   strcmp(name, "memlock") == 0 || strcmp(name, "data") == 0) {
		if (spec_parse_size(value, &v) < 0)
			return cell_err_set(e, 0, "%s: expected a size (e.g. 64M, 1G)", what);
		if (strcmp(name, "memory") == 0) {
			/* The kernel refuses less than a few pages of memory.max. */
			if (v < (1LL << 20))
				return cell_err_set(e, 0, "%s: at least 1M", what);
			l->memory = v;
		} else if (strcmp(name, "swap") == 0) {
			l->swap = v;
		} else if (strcmp(name, "memlock") == 0) {
			l->memlock = v;
		} else {
			l->data = v;
		}
	} else if (strcmp(name, "cpus") == 0) {
		if (spec_parse_cpus(value, &v) < 0)
			return cell_err_set(e, 0, "%s: expected a number of CPUs (e.g. 0.5, 2)",
					    what);
		/* The kernel's smallest CFS quota is 1 ms per 100 ms period. */
		if (v < 10)
			return cell_err_set(e, 0, "%s: at least 0.01", what);
		l->cpus_milli = v;
	} else if (strcmp(name, "cpu_time") == 0) {
		if (spec_parse_count(value, &v) < 0 || v < 1)
			return cell_err_set(e, 0, "%s: expected seconds >= 1", what);
		l->cpu_time = v;
	} else if (strcmp(name, "nofile") == 0) {
		if (spec_parse_count(value, &v) < 0 || v < 3)
			return cell_err_set(e, 0, "%s: expected a number >= 3", what);
		l->nofile = v;
	} else if (strcmp(name, "nice") == 0) {
		char *end;

		errno = 0;
		v = strtoll(value, &end, 10);
		if (errno != 0 || end == value || *end != '\0' || v < -20 || v > 19)
			return cell_err_set(e, 0, "%s: expected -20..19", what);
		l->nice = v;
		l->has_nice = true;
	} else {
		return cell_err_set(e, 0, "unknown limit \"%s\"", name);
	}
	return 0;
}

static int parse_bool(const char *key, const char *value, bool *out, struct cell_err *e)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	if (value == NULL) {
		*out = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(value, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(value, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return cell_err_set(e, 0, "%s = %s: expected true or false", key, value);
}

static int set_str(char **field, const char *key, const char *value, struct cell_err *e)
{
	char *copy;

	if (value == NULL)
		return cell_err_set(e, 0, "%s: needs a value", key);
	copy = strdup(value);
	if (copy == NULL)
		return cell_err_set(e, ENOMEM, "%s", key);
	free(*field);
	*field = copy;
	return 0;
}

/* The parsers shared with the flags say "--cpu-time 0: ..."; as a
 * parameter (a jail file, cell set) that is "cpu_time = 0: ...". */
static int as_param(int r, const char *key, struct cell_err *e)
{
	char flag[32];
	int n = snprintf(flag, sizeof(flag), "--%s ", key);
	size_t klen = strlen(key);

	if (r == 0 || n <= 0 || (size_t)n >= sizeof(flag))
		return r;
	for (char *p = flag + 2; *p != ' '; p++)
		if (*p == '_')
			*p = '-';
	if (strncmp(e->msg, flag, (size_t)n) != 0)
		return r;
	/* "--KEY " and "KEY = " are just as long. */
	memcpy(e->msg, key, klen);
	memcpy(e->msg + klen, " = ", 3);
	return r;
}

bool spec_param_is_list(const char *key)
{
	return strcmp(key, "bind") == 0 || strcmp(key, "env") == 0;
}

int spec_set_param(struct jail_spec *s, const char *key, const char *value, struct cell_err *e)
{
	static const char *const limits[] = {"nrtask",	"memory", "swap",   "cpus", "cpu_time",
					     "memlock", "data",	  "nofile", "nice"};
	bool b = false;

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (strcmp(key, limits[i]) == 0) {
			if (value == NULL)
				return cell_err_set(e, 0, "%s: needs a value", key);
			return as_param(spec_set_limit(s, key, value, e), key, e);
		}
	if (strncmp(key, "allow.", 6) == 0) {
		unsigned int before = s->allow;

		if (parse_bool(key, value, &b, e) < 0 || spec_allow(s, key + 6, e) < 0)
			return -1;
		if (!b) /* allow.RULE = false: the rule holds */
			for (unsigned int bit = 1; spec_allow_name(bit) != NULL; bit <<= 1)
				if (strcmp(spec_allow_name(bit), key + 6) == 0)
					s->allow = before & ~bit;
		return 0;
	}
	if (strcmp(key, "name") == 0) {
		if (value == NULL || !spec_valid_name(value))
			return cell_err_set(e, 0,
					    "name = %s: invalid name (1-%d characters of "
					    "[A-Za-z0-9_.-], starting with a letter or digit)",
					    value != NULL ? value : "", JAIL_NAME_MAX);
		return set_str(&s->name, key, value, e);
	}
	if (strcmp(key, "host.hostname") == 0 || strcmp(key, "hostname") == 0)
		return set_str(&s->hostname, key, value, e);
	if (strcmp(key, "host.domainname") == 0 || strcmp(key, "domainname") == 0)
		return set_str(&s->domainname, key, value, e);
	if (strcmp(key, "path") == 0 || strcmp(key, "rootfs") == 0)
		return set_str(&s->rootfs, key, value, e);
	if (strcmp(key, "workdir") == 0)
		return set_str(&s->workdir, key, value, e);
	if (strcmp(key, "cgroup_parent") == 0)
		return set_str(&s->cgroup_parent, key, value, e);
	if (strcmp(key, "rw") == 0)
		return parse_bool(key, value, &s->rw, e);
	if (strcmp(key, "init") == 0)
		return parse_bool(key, value, &s->init, e);
	if (strcmp(key, "policy") == 0)
		return parse_bool(key, value, &s->policy, e);
	if (strcmp(key, "bind") == 0) {
		if (value == NULL)
			return cell_err_set(e, 0, "bind: needs a value");
		return as_param(spec_add_bind(s, value, e), key, e);
	}
	if (strcmp(key, "env") == 0) {
		if (value == NULL)
			return cell_err_set(e, 0, "env: needs a value");
		return as_param(spec_env_set(s, value, e), key, e);
	}
	if (strcmp(key, "user") == 0) {
		if (value == NULL)
			return cell_err_set(e, 0, "user: needs a value");
		return as_param(spec_parse_user(s, value, e), key, e);
	}
	if (strcmp(key, "net") == 0) {
		if (value != NULL && strcmp(value, "none") == 0)
			s->net = JAIL_NET_NONE;
		else if (value != NULL && strcmp(value, "host") == 0)
			s->net = JAIL_NET_HOST;
		else
			return cell_err_set(e, 0, "net = %s: expected none or host",
					    value != NULL ? value : "");
		return 0;
	}
	return cell_err_set(e, 0, "unknown parameter \"%s\"", key);
}
