/*
 * param.c - the one table of jail parameters.  See param.h.
 *
 * A row says where its value lives in struct jail_spec through small
 * accessors (the only code here that knows the spec's layout), and which
 * parse and format functions it uses: generic ones per type (a string
 * with an optional check, a boolean, a number with its own syntax and
 * range) or its own (bind, env, user, net, userns, allow, command).  Everything
 * else (JSON, the list text, copy, compare) is built on those three.
 */
#include "param.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "netaddr.h"
#include "passwd.h"

/* ---- the spec's fields ---- */

#define STR_FIELD(fn, field)                                                                       \
	static char **fn(struct jail_spec *s)                                                      \
	{                                                                                          \
		return &s->field;                                                                  \
	}
#define BOOL_FIELD(fn, field)                                                                      \
	static bool *fn(struct jail_spec *s)                                                       \
	{                                                                                          \
		return &s->field;                                                                  \
	}
#define NUM_FIELD(fn, field)                                                                       \
	static long long *fn(struct jail_spec *s)                                                  \
	{                                                                                          \
		return &s->limits.field;                                                           \
	}

STR_FIELD(name_of, name)
STR_FIELD(hostname_of, hostname)
STR_FIELD(domainname_of, domainname)
STR_FIELD(rootfs_of, rootfs)
STR_FIELD(workdir_of, proc.cwd)
STR_FIELD(cgroup_parent_of, cgroup_parent)
STR_FIELD(ifname_of, network.ifname)
BOOL_FIELD(rw_of, rw)
BOOL_FIELD(init_of, init)
BOOL_FIELD(policy_of, policy)
BOOL_FIELD(nat_of, network.nat)
BOOL_FIELD(init_given_of, init_given)
BOOL_FIELD(has_nice_of, limits.has_nice)
NUM_FIELD(nrtask_of, nrtask)
NUM_FIELD(memory_of, memory)
NUM_FIELD(swap_of, swap)
NUM_FIELD(cpus_of, cpus_milli)
NUM_FIELD(cpu_time_of, cpu_time)
NUM_FIELD(memlock_of, memlock)
NUM_FIELD(data_of, data)
NUM_FIELD(nofile_of, nofile)
NUM_FIELD(nice_of, nice)

static long long *mtu_of(struct jail_spec *s)
{
	return &s->network.mtu;
}

static long long *log_size_of(struct jail_spec *s)
{
	return &s->log_size;
}

static long long *log_keep_of(struct jail_spec *s)
{
	return &s->log_keep;
}

/* The format functions read a const spec through the same accessors. */
#define MUT(s) ((struct jail_spec *)(s))

static int dup_out(const char *v, char **out)
{
	*out = strdup(v);
	return *out != NULL ? 1 : -1;
}

/* ---- strings ---- */

static int parse_string(const struct param *p, struct jail_spec *s, const char *text,
			struct cell_err *e)
{
	char *copy, **field = p->str(s);

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	if (p->check != NULL && p->check(text, e) < 0)
		return -1;
	copy = strdup(text);
	if (copy == NULL)
		return cell_err_set(e, ENOMEM, "%s", "");
	free(*field);
	*field = copy;
	return 0;
}

static int format_string(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	const char *v = *p->str(MUT(s));

	*out = NULL;
	return i > 0 || v == NULL ? 0 : dup_out(v, out);
}

static void clear_string(const struct param *p, struct jail_spec *s)
{
	char **field = p->str(s);

	free(*field);
	*field = NULL;
}

static int check_name(const char *v, struct cell_err *e)
{
	if (spec_valid_name(v))
		return 0;
	return cell_err_set(e, 0,
			    "invalid name (1-%d characters of [A-Za-z0-9_.-], starting with a "
			    "letter or digit)",
			    JAIL_NAME_MAX);
}

static int check_hostname(const char *v, struct cell_err *e)
{
	return spec_valid_hostname(v) ? 0 : cell_err_set(e, 0, "invalid hostname");
}

static int check_domainname(const char *v, struct cell_err *e)
{
	size_t n = strlen(v);

	return n > 0 && n <= JAIL_UTS_MAX ? 0
					  : cell_err_set(e, 0, "must be 1-%d bytes", JAIL_UTS_MAX);
}

static int check_path(const char *v, struct cell_err *e)
{
	return v[0] != '\0' ? 0 : cell_err_set(e, 0, "empty path");
}

/*
 * PATH made absolute from the working directory (a jail file's: up works
 * from the file's directory) into *OUT: "./" prefixes dropped, "." the
 * directory itself.  Not resolved further: a symlink stays one, for
 * rootfs_check() to refuse.  The record then names what was meant
 * whatever directory a later command runs in.
 */
static int absolute_path(const char *path, char **out, struct cell_err *e)
{
	cleanup_free char *cwd = NULL;

	*out = NULL;
	if (path[0] == '/') {
		*out = strdup(path);
		return *out != NULL ? 0 : cell_err_set(e, ENOMEM, "%s", "");
	}
	while (path[0] == '.' && path[1] == '/') {
		path += 2;
		while (path[0] == '/')
			path++;
	}
	cwd = getcwd(NULL, 0);
	if (cwd == NULL)
		return cell_err_set(e, errno, "current directory");
	if (strcmp(path, ".") == 0 || path[0] == '\0')
		path = "";
	if (asprintf(out, "%s%s%s", cwd, path[0] != '\0' && strcmp(cwd, "/") != 0 ? "/" : "",
		     path) < 0) {
		*out = NULL;
		return cell_err_set(e, ENOMEM, "%s", "");
	}
	return 0;
}

/* The root's path, absolute (absolute_path()). */
static int parse_rootfs(const struct param *p, struct jail_spec *s, const char *text,
			struct cell_err *e)
{
	char *abs;

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	if (check_path(text, e) < 0 || absolute_path(text, &abs, e) < 0)
		return -1;
	free(s->rootfs);
	s->rootfs = abs;
	return 0;
}

static int check_absolute(const char *v, struct cell_err *e)
{
	return v[0] == '/' ? 0 : cell_err_set(e, 0, "must be an absolute path");
}

/* A cgroup path: not empty, no "." or ".." component: it stays inside
 * the hierarchy. */
static int check_cgroup_path(const char *p, struct cell_err *e)
{
	const char *bad = "expected a cgroup path without \".\" or \"..\"";

	if (*p == '\0')
		return cell_err_set(e, 0, "%s", bad);
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return cell_err_set(e, 0, "%s", bad);
		p += n;
		while (*p == '/')
			p++;
	}
	return 0;
}

/* ---- booleans ---- */

static int text_bool(const char *text, bool *out, struct cell_err *e)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	if (text == NULL) {
		*out = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(text, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(text, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return cell_err_set(e, 0, "expected true or false");
}

/* A boolean with a `has` accessor knows whether it was given (init:
 * a detached jail's default differs). */
static int parse_bool(const struct param *p, struct jail_spec *s, const char *text,
		      struct cell_err *e)
{
	if (text_bool(text, p->boolean(s), e) < 0)
		return -1;
	if (p->has != NULL)
		*p->has(s) = true;
	return 0;
}

static int format_bool(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	*out = NULL;
	return i > 0 ? 0 : dup_out(*p->boolean(MUT(s)) ? "true" : "false", out);
}

static void clear_bool(const struct param *p, struct jail_spec *s)
{
	*p->boolean(s) = p->def;
	if (p->has != NULL)
		*p->has(s) = false;
}

/* ---- numbers ---- */

static bool num_get(const struct param *p, const struct jail_spec *s, long long *v)
{
	*v = *p->num(MUT(s));
	return p->has != NULL ? *p->has(MUT(s)) : *v >= 0;
}

static void num_put(const struct param *p, struct jail_spec *s, long long v)
{
	*p->num(s) = v;
	if (p->has != NULL)
		*p->has(s) = true;
}

static int parse_number(const struct param *p, struct jail_spec *s, const char *text,
			struct cell_err *e)
{
	long long v;

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	/* "max": no limit, the parameter unset (a limit removed by set).
	 * nice and the MTU are no limits. */
	if (strcmp(text, "max") == 0 && p->id != PARAM_NICE && p->id != PARAM_VNET_MTU) {
		p->clear(p, s);
		return 0;
	}
	if (p->parse_num(text, &v, e) < 0)
		return -1;
	num_put(p, s, v);
	return 0;
}

static int format_number(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	char buf[48];
	long long v;

	*out = NULL;
	if (i > 0 || !num_get(p, s, &v))
		return 0;
	p->format_num(v, buf, sizeof(buf));
	return dup_out(buf, out);
}

static void clear_number(const struct param *p, struct jail_spec *s)
{
	*p->num(s) = p->has != NULL ? 0 : -1;
	if (p->has != NULL)
		*p->has(s) = false;
}

static int count_at_least(const char *text, long long min, long long *v, const char *what,
			  struct cell_err *e)
{
	if (spec_parse_count(text, v) < 0 || *v < min)
		return cell_err_set(e, 0, "expected %s >= %lld", what, min);
	return 0;
}

static int parse_nrtask(const char *text, long long *v, struct cell_err *e)
{
	return count_at_least(text, 1, v, "a number of tasks", e);
}

static int parse_seconds(const char *text, long long *v, struct cell_err *e)
{
	return count_at_least(text, 1, v, "seconds", e);
}

static int parse_nofile(const char *text, long long *v, struct cell_err *e)
{
	return count_at_least(text, 3, v, "a number", e);
}

static int parse_size(const char *text, long long *v, struct cell_err *e)
{
	if (spec_parse_size(text, v) < 0)
		return cell_err_set(e, 0, "expected a size (e.g. 64M, 1G)");
	return 0;
}

static int parse_memory(const char *text, long long *v, struct cell_err *e)
{
	if (parse_size(text, v, e) < 0)
		return -1;
	/* The kernel refuses less than a few pages of memory.max. */
	if (*v < (1LL << 20))
		return cell_err_set(e, 0, "at least 1M");
	return 0;
}

static int parse_cpus(const char *text, long long *v, struct cell_err *e)
{
	if (spec_parse_cpus(text, v) < 0)
		return cell_err_set(e, 0, "expected a number of CPUs (e.g. 0.5, 2)");
	/* The kernel's smallest CFS quota is 1 ms per 100 ms period. */
	if (*v < 10)
		return cell_err_set(e, 0, "at least 0.01");
	return 0;
}

static int parse_nice(const char *text, long long *v, struct cell_err *e)
{
	char *end;

	errno = 0;
	*v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || *v < -20 || *v > 19)
		return cell_err_set(e, 0, "expected -20..19");
	return 0;
}

/* An MTU: IPv6's minimum link MTU (RFC 8200) to the kernel's largest. */
static int parse_mtu(const char *text, long long *v, struct cell_err *e)
{
	if (spec_parse_count(text, v) < 0 || *v < 1280 || *v > 65535)
		return cell_err_set(e, 0, "expected an MTU of 1280..65535");
	return 0;
}

static void format_count(long long v, char *buf, size_t size)
{
	snprintf(buf, size, "%lld", v);
}

void param_format_size(long long v, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%lld", v);
	else
		snprintf(buf, size, "%lld%c", v, units[u]);
}

/* Thousandths of a CPU as the user writes them: 2500 -> "2.5". */
static void format_cpus(long long milli, char *buf, size_t size)
{
	int len = snprintf(buf, size, "%lld.%03lld", milli / 1000, milli % 1000);

	while (len > 0 && (size_t)len < size && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (len > 0 && (size_t)len < size && buf[len - 1] == '.')
		buf[--len] = '\0';
}

/* ---- lists ---- */

static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

void param_strv_free(char **elems, size_t n)
{
	for (size_t i = 0; elems != NULL && i < n; i++)
		free(elems[i]);
	free(elems);
}

/* bind: "SRC:DST[:OPT]...", OPT ro or rw, and dev (device nodes work
 * through the bind; without it the bind is nodev).  Options go after
 * colons, not commas: a comma separates a list's elements. */
static int parse_bind(const struct param *p, struct jail_spec *s, const char *text,
		      struct cell_err *e)
{
	cleanup_free char *copy = NULL;
	struct jail_bind b = {0}, *n;
	char *src, *dst, *mode;

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	copy = strdup(text);
	if (copy == NULL)
		return cell_err_set(e, ENOMEM, "%s", "");
	src = copy;
	dst = strchr(src, ':');
	if (dst == NULL)
		return cell_err_set(e, 0, "expected SRC:DST[:ro|:rw][:dev]");
	*dst++ = '\0';
	mode = strchr(dst, ':');
	if (mode != NULL)
		*mode++ = '\0';
	if (src[0] == '\0' || dst[0] == '\0' || (mode != NULL && mode[0] == '\0'))
		return cell_err_set(e, 0, "expected SRC:DST[:ro|:rw][:dev]");
	if (dst[0] != '/')
		return cell_err_set(e, 0, "destination must be an absolute path");
	for (char *o = mode, *next; o != NULL; o = next) {
		next = strchr(o, ':');
		if (next != NULL)
			*next++ = '\0';
		if (*o == '\0')
			return cell_err_set(e, 0, "expected SRC:DST[:ro|:rw][:dev]");
		if (strcmp(o, "ro") == 0)
			b.ro = true;
		else if (strcmp(o, "rw") == 0)
			b.ro = false;
		else if (strcmp(o, "dev") == 0)
			b.dev = true;
		else
			return cell_err_set(e, 0, "unknown option \"%s\" (ro, rw or dev)", o);
	}
	/* A relative source is the caller's: made absolute here, as the
	 * root switch later changes the directory it would be relative to. */
	if (absolute_path(src, &b.src, e) < 0)
		return -1;
	b.dst = strdup(dst);
	n = b.src != NULL && b.dst != NULL ? realloc(s->binds, (s->nbinds + 1) * sizeof(*n)) : NULL;
	if (n == NULL) {
		free(b.src);
		free(b.dst);
		return cell_err_set(e, ENOMEM, "%s", "");
	}
	/* The text must read back: a ':' would split the source. */
	if (strchr(b.src, ':') != NULL) {
		s->binds = n;
		free(b.src);
		free(b.dst);
		return cell_err_set(e, 0, "a source path cannot hold ':'");
	}
	s->binds = n;
	s->binds[s->nbinds++] = b;
	return 0;
}

static int format_bind(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	*out = NULL;
	if (i >= s->nbinds)
		return 0;
	if (asprintf(out, "%s:%s%s", s->binds[i].src, s->binds[i].dst,
		     s->binds[i].ro ? (s->binds[i].dev ? ":ro:dev" : ":ro")
				    : (s->binds[i].dev ? ":dev" : "")) < 0) {
		*out = NULL;
		return -1;
	}
	return 1;
}

static void clear_bind(const struct param *p, struct jail_spec *s)
{
	for (size_t i = 0; i < s->nbinds; i++) {
		free(s->binds[i].src);
		free(s->binds[i].dst);
	}
	free(s->binds);
	s->binds = NULL;
	s->nbinds = 0;
}

static int parse_env(const struct param *p, struct jail_spec *s, const char *text,
		     struct cell_err *e)
{
	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	return spec_env_set(s, text, e);
}

/* An entry of an environment as spec_env_import() takes it. */
static int load_env(const struct param *p, struct jail_spec *s, const char *text,
		    struct cell_err *e)
{
	char *const one[] = {(char *)text, NULL};

	if (strchr(text, '=') == NULL || text[0] == '=')
		return cell_err_set(e, 0, "expected KEY=VALUE");
	return spec_env_import(s, one, e);
}

static int format_env(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	*out = NULL;
	return i >= s->proc.nenv ? 0 : dup_out(s->proc.env[i], out);
}

static void clear_env(const struct param *p, struct jail_spec *s)
{
	param_strv_free(s->proc.env, s->proc.nenv);
	s->proc.env = NULL;
	s->proc.nenv = 0;
}

static const char *const allow_known =
	"unknown rule (known: set_hostname, raw_sockets, sysvipc, chown, mlock, io_uring)";

static unsigned int allow_bit(const char *name)
{
	for (unsigned int bit = 1; spec_allow_name(bit) != NULL; bit <<= 1)
		if (strcmp(spec_allow_name(bit), name) == 0)
			return bit;
	return 0;
}

static int parse_allow(const struct param *p, struct jail_spec *s, const char *text,
		       struct cell_err *e)
{
	unsigned int bit = text != NULL ? allow_bit(text) : 0;

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	if (bit == 0)
		return cell_err_set(e, 0, "%s", allow_known);
	s->allow |= bit;
	return 0;
}

static int format_allow(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	*out = NULL;
	for (unsigned int bit = 1; spec_allow_name(bit) != NULL; bit <<= 1)
		if ((s->allow & bit) && i-- == 0)
			return dup_out(spec_allow_name(bit), out);
	return 0;
}

static void clear_allow(const struct param *p, struct jail_spec *s)
{
	s->allow = 0;
}

static int parse_command(const struct param *p, struct jail_spec *s, const char *text,
			 struct cell_err *e)
{
	size_t n = strv_len(s->proc.argv);
	char *copy, **v;

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	copy = strdup(text);
	v = copy != NULL ? realloc(s->proc.argv, (n + 2) * sizeof(*v)) : NULL;
	if (v == NULL) {
		free(copy);
		return cell_err_set(e, ENOMEM, "%s", "");
	}
	v[n] = copy;
	v[n + 1] = NULL;
	s->proc.argv = v;
	return 0;
}

static int format_command(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	*out = NULL;
	return i >= strv_len(s->proc.argv) ? 0 : dup_out(s->proc.argv[i], out);
}

static void clear_command(const struct param *p, struct jail_spec *s)
{
	param_strv_free(s->proc.argv, strv_len(s->proc.argv));
	s->proc.argv = NULL;
}

/* ---- values of their own ---- */

static void clear_user(const struct param *p, struct jail_spec *s)
{
	s->proc.has_user = s->proc.has_gid = false;
	s->proc.uid = 0;
	s->proc.gid = 0;
	free(s->proc.user_name);
	free(s->proc.group_name);
	s->proc.user_name = s->proc.group_name = NULL;
}

/* One side of -u: a number, or a name for the jail's own files. */
static int parse_user_part(const char *text, unsigned int *id, char **name)
{
	if (spec_parse_id(text, id) == 0)
		return 0;
	if (!passwd_valid_name(text))
		return -1;
	*name = strdup(text);
	return *name != NULL ? 0 : -2;
}

static int parse_user(const struct param *p, struct jail_spec *s, const char *text,
		      struct cell_err *e)
{
	cleanup_free char *copy = NULL, *user = NULL, *group = NULL;
	unsigned int uid = 0, gid = 0;
	char *colon;
	int r;

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	copy = strdup(text);
	if (copy == NULL)
		return cell_err_set(e, ENOMEM, "%s", "");
	colon = strchr(copy, ':');
	if (colon != NULL)
		*colon++ = '\0';
	r = parse_user_part(copy, &uid, &user);
	if (r == 0 && colon != NULL)
		r = parse_user_part(colon, &gid, &group);
	if (r == -2)
		return cell_err_set(e, ENOMEM, "%s", "");
	if (r < 0)
		return cell_err_set(e, 0, "expected USER[:GROUP], names or numeric ids");
	clear_user(p, s);
	s->proc.has_user = true;
	s->proc.uid = uid;
	s->proc.has_gid = colon != NULL;
	s->proc.gid = gid;
	s->proc.user_name = take_ptr(&user);
	s->proc.group_name = take_ptr(&group);
	return 0;
}

static int format_user(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	char u[16], g[16];

	*out = NULL;
	if (i > 0 || !s->proc.has_user)
		return 0;
	snprintf(u, sizeof(u), "%u", (unsigned)s->proc.uid);
	snprintf(g, sizeof(g), "%u", (unsigned)s->proc.gid);
	if (asprintf(out, "%s%s%s", s->proc.user_name != NULL ? s->proc.user_name : u,
		     s->proc.has_gid ? ":" : "",
		     !s->proc.has_gid		  ? ""
		     : s->proc.group_name != NULL ? s->proc.group_name
						  : g) < 0) {
		*out = NULL;
		return -1;
	}
	return 1;
}

/* net: none, host, bridge[:NAME] (cell0 by default), slirp, ns:PATH. */
static int parse_net(const struct param *p, struct jail_spec *s, const char *text,
		     struct cell_err *e)
{
	const char *usage = "expected none, host, bridge[:NAME], slirp or ns:PATH";
	char *copy = NULL;

	if (text == NULL)
		return cell_err_set(e, 0, "%s", usage);
	if (strncmp(text, "bridge:", 7) == 0 && netaddr_check_bridge(text + 7, e) < 0)
		return -1;
	if (strncmp(text, "ns:", 3) == 0 && text[3] != '/')
		return cell_err_set(e, 0, "ns:PATH: the path must be absolute");
	if (strncmp(text, "bridge:", 7) == 0 || strncmp(text, "ns:", 3) == 0) {
		copy = strdup(strchr(text, ':') + 1);
		if (copy == NULL)
			return cell_err_set(e, ENOMEM, "%s", "");
	} else if (strcmp(text, "none") != 0 && strcmp(text, "host") != 0 &&
		   strcmp(text, "bridge") != 0 && strcmp(text, "slirp") != 0) {
		return cell_err_set(e, 0, "%s", usage);
	}
	free(s->network.bridge);
	free(s->network.ns_path);
	s->network.bridge = s->network.ns_path = NULL;
	if (text[0] == 'n' && text[1] == 's') {
		s->net = JAIL_NET_NS;
		s->network.ns_path = copy;
	} else if (text[0] == 'b') {
		s->net = JAIL_NET_BRIDGE;
		s->network.bridge = copy;
	} else if (text[0] == 's') {
		s->net = JAIL_NET_SLIRP;
	} else {
		s->net = strcmp(text, "host") == 0 ? JAIL_NET_HOST : JAIL_NET_NONE;
	}
	return 0;
}

static int format_net(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	*out = NULL;
	if (i > 0)
		return 0;
	switch (s->net) {
	case JAIL_NET_BRIDGE:
		if (s->network.bridge == NULL)
			return dup_out("bridge", out);
		return asprintf(out, "bridge:%s", s->network.bridge) < 0 ? (*out = NULL, -1) : 1;
	case JAIL_NET_NS:
		return asprintf(out, "ns:%s", s->network.ns_path) < 0 ? (*out = NULL, -1) : 1;
	case JAIL_NET_HOST:
		return dup_out("host", out);
	case JAIL_NET_SLIRP:
		return dup_out("slirp", out);
	default:
		return dup_out("none", out);
	}
}

static void clear_net(const struct param *p, struct jail_spec *s)
{
	free(s->network.bridge);
	free(s->network.ns_path);
	s->network.bridge = s->network.ns_path = NULL;
	s->net = JAIL_NET_NONE;
}

/* ---- the network's lists (struct jail_network) ---- */

static int strv_push(char ***v, size_t *n, const char *text, struct cell_err *e)
{
	char *copy = strdup(text), **grown;

	grown = copy != NULL ? realloc(*v, (*n + 1) * sizeof(*grown)) : NULL;
	if (grown == NULL) {
		free(copy);
		return cell_err_set(e, ENOMEM, "%s", "");
	}
	grown[(*n)++] = copy;
	*v = grown;
	return 0;
}

static void strv_clear(char ***v, size_t *n)
{
	param_strv_free(*v, *n);
	*v = NULL;
	*n = 0;
}

/* The list a row of the network keeps its elements in. */
static void net_list(const struct param *p, const struct jail_spec *s, char ***v, size_t **n)
{
	struct jail_network *net = &MUT(s)->network;

	switch (p->id) {
	case PARAM_IP6:
		*v = net->ip6, *n = &net->nip6;
		break;
	case PARAM_GATEWAY:
		*v = net->gateway, *n = &net->ngateway;
		break;
	case PARAM_PUBLISH:
		*v = net->publish, *n = &net->npublish;
		break;
	case PARAM_DNS:
		*v = net->dns, *n = &net->ndns;
		break;
	default:
		*v = net->ip4, *n = &net->nip4;
		break;
	}
}

static int format_net_list(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	char **v;
	size_t *n;

	*out = NULL;
	net_list(p, s, &v, &n);
	return i >= *n ? 0 : dup_out(v[i], out);
}

static void clear_net_list(const struct param *p, struct jail_spec *s)
{
	struct jail_network *net = &s->network;

	switch (p->id) {
	case PARAM_IP6:
		strv_clear(&net->ip6, &net->nip6);
		break;
	case PARAM_GATEWAY:
		strv_clear(&net->gateway, &net->ngateway);
		break;
	case PARAM_PUBLISH:
		strv_clear(&net->publish, &net->npublish);
		break;
	case PARAM_DNS:
		strv_clear(&net->dns, &net->ndns);
		break;
	default:
		strv_clear(&net->ip4, &net->nip4);
		break;
	}
}

/* TEXT as an address (with a prefix when PREFIX allows one), in its
 * canonical text into BUF. */
static int addr_text(const char *text, bool prefix, struct netaddr *a, char *buf, size_t size,
		     struct cell_err *e)
{
	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	if (netaddr_parse(text, prefix, a, e) < 0)
		return -1;
	netaddr_format(a, buf, size);
	return 0;
}

/* ip4.addr and ip6.addr (and --ip, which is ip4.addr's flag): ADDR[/PREFIX],
 * into the list of its family whichever name gave it. */
static int parse_ip(const struct param *p, struct jail_spec *s, const char *text,
		    struct cell_err *e)
{
	char buf[NETADDR_TEXT];
	struct netaddr a;

	if (addr_text(text, true, &a, buf, sizeof(buf), e) < 0)
		return -1;
	if (a.family == AF_INET)
		return strv_push(&s->network.ip4, &s->network.nip4, buf, e);
	return strv_push(&s->network.ip6, &s->network.nip6, buf, e);
}

/* gateway: ADDR[/PREFIX], the bridge's address of a family (at most one
 * each: spec_check()). */
static int parse_gateway(const struct param *p, struct jail_spec *s, const char *text,
			 struct cell_err *e)
{
	char buf[NETADDR_TEXT];
	struct netaddr a;

	if (addr_text(text, true, &a, buf, sizeof(buf), e) < 0)
		return -1;
	return strv_push(&s->network.gateway, &s->network.ngateway, buf, e);
}

static int parse_publish(const struct param *p, struct jail_spec *s, const char *text,
			 struct cell_err *e)
{
	char buf[NETADDR_TEXT + 32];
	struct netport port;

	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	if (netport_parse(text, &port, e) < 0)
		return -1;
	netport_format(&port, buf, sizeof(buf));
	return strv_push(&s->network.publish, &s->network.npublish, buf, e);
}

static int parse_dns(const struct param *p, struct jail_spec *s, const char *text,
		     struct cell_err *e)
{
	char buf[NETADDR_TEXT];
	struct netaddr a;

	if (addr_text(text, false, &a, buf, sizeof(buf), e) < 0)
		return -1;
	return strv_push(&s->network.dns, &s->network.ndns, buf, e);
}

static int check_ifname(const char *v, struct cell_err *e)
{
	return netaddr_check_ifname(v, e);
}

static int parse_userns(const struct param *p, struct jail_spec *s, const char *text,
			struct cell_err *e)
{
	if (text != NULL && strcmp(text, "private") == 0)
		s->userns = JAIL_USERNS_PRIVATE;
	else if (text != NULL && strcmp(text, "host") == 0)
		s->userns = JAIL_USERNS_HOST;
	else
		return cell_err_set(e, 0, "expected private or host");
	return 0;
}

static int format_userns(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	*out = NULL;
	return i > 0 ? 0 : dup_out(s->userns == JAIL_USERNS_HOST ? "host" : "private", out);
}

static void clear_userns(const struct param *p, struct jail_spec *s)
{
	s->userns = JAIL_USERNS_PRIVATE;
}

/* no, on-failure, on-failure:N (N >= 1 restarts at most), always. */
static int parse_restart(const struct param *p, struct jail_spec *s, const char *text,
			 struct cell_err *e)
{
	static const char expected[] = "expected no, on-failure[:N] or always";
	long long max = 0;

	if (text == NULL)
		return cell_err_set(e, 0, "%s", expected);
	if (strcmp(text, "no") == 0) {
		s->restart = JAIL_RESTART_NO;
	} else if (strcmp(text, "always") == 0) {
		s->restart = JAIL_RESTART_ALWAYS;
	} else if (strncmp(text, "on-failure", 10) == 0 &&
		   (text[10] == '\0' ||
		    (text[10] == ':' && spec_parse_count(text + 11, &max) == 0 && max >= 1))) {
		s->restart = JAIL_RESTART_ON_FAILURE;
	} else {
		return cell_err_set(e, 0, "%s", expected);
	}
	s->restart_max = max;
	return 0;
}

static int format_restart(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	char buf[48];

	*out = NULL;
	if (i > 0)
		return 0;
	if (s->restart == JAIL_RESTART_ON_FAILURE && s->restart_max > 0)
		snprintf(buf, sizeof(buf), "on-failure:%lld", s->restart_max);
	else
		snprintf(buf, sizeof(buf), "%s",
			 s->restart == JAIL_RESTART_ALWAYS	 ? "always"
			 : s->restart == JAIL_RESTART_ON_FAILURE ? "on-failure"
								 : "no");
	return dup_out(buf, out);
}

static void clear_restart(const struct param *p, struct jail_spec *s)
{
	s->restart = JAIL_RESTART_NO;
	s->restart_max = 0;
}

/* The reaper cuts a line at 4 KiB (a partial chunk, src/init/reaper.c):
 * a file of at least two holds any line whole, and the log's cap holds. */
static int parse_log_size(const char *text, long long *v, struct cell_err *e)
{
	if (parse_size(text, v, e) < 0)
		return -1;
	if (*v < 8192)
		return cell_err_set(e, 0, "at least 8K");
	return 0;
}

/* Each kept file is a descriptor of the reaper's. */
static int parse_log_keep(const char *text, long long *v, struct cell_err *e)
{
	if (spec_parse_count(text, v) < 0 || *v > 99)
		return cell_err_set(e, 0, "expected a number of files, 0..99");
	return 0;
}

/* ---- the table ---- */

#define STRING(fn, chk)                                                                            \
	.type = PARAM_STRING, .parse = parse_string, .format = format_string,                      \
	.clear = clear_string, .str = fn, .check = chk
#define BOOLEAN(fn, d)                                                                             \
	.type = PARAM_BOOL, .parse = parse_bool, .format = format_bool, .clear = clear_bool,       \
	.boolean = fn, .def = d
#define NUMBER_OF(t, fn, p, f, lo, hi)                                                             \
	.type = t, .parse = parse_number, .format = format_number, .clear = clear_number,          \
	.num = fn, .parse_num = p, .format_num = f, .min = lo, .max = hi
#define NUMBER(fn, p, f, lo, hi) NUMBER_OF(PARAM_INT, fn, p, f, lo, hi)
#define OWN(t, p, f, c)		 .type = t, .parse = p, .format = f, .clear = c

const struct param param_table[PARAM_COUNT] = {
	[PARAM_NAME] = {PARAM_NAME, "name", NULL, "--name", 'n', NULL, "NAME",
			"the jail's name (default: generated)", PARAM_GROUP_IDENTITY,
			STRING(name_of, check_name)},
	[PARAM_HOSTNAME] = {PARAM_HOSTNAME, "hostname", "host.hostname", "--hostname", 0, NULL,
			    "NAME", "hostname inside (default: the --name, else \"cell\")",
			    PARAM_GROUP_IDENTITY, .live = true,
			    STRING(hostname_of, check_hostname)},
	[PARAM_DOMAINNAME] = {PARAM_DOMAINNAME, "domainname", "host.domainname", "--domainname", 0,
			      NULL, "NAME", "domainname inside (default: the host's)",
			      PARAM_GROUP_IDENTITY, .live = true,
			      STRING(domainname_of, check_domainname)},
	[PARAM_PATH] = {PARAM_PATH, "path", "rootfs", "--rootfs", 0, NULL, "DIR",
			"run in DIR instead of the embedded root (the host's\n"
			"files, read-only)",
			PARAM_GROUP_FILESYSTEM, .type = PARAM_STRING, .parse = parse_rootfs,
			.format = format_string, .clear = clear_string, .str = rootfs_of,
			.check = check_path},
	[PARAM_RW] = {PARAM_RW, "rw", NULL, "--rw", 0, "true", NULL,
		      "make the --rootfs root writable", PARAM_GROUP_FILESYSTEM,
		      BOOLEAN(rw_of, false)},
	[PARAM_BIND] = {PARAM_BIND, "bind", NULL, "--bind", 0, NULL, "SRC:DST[:OPT]",
			"bind host path SRC at DST (repeatable); OPT: ro, rw, dev",
			PARAM_GROUP_FILESYSTEM,
			OWN(PARAM_LIST, parse_bind, format_bind, clear_bind)},
	[PARAM_WORKDIR] = {PARAM_WORKDIR, "workdir", NULL, "--workdir", 'w', NULL, "DIR",
			   "working directory inside (default /)", PARAM_GROUP_FILESYSTEM,
			   .process = true, STRING(workdir_of, check_absolute)},
	[PARAM_ENV] = {PARAM_ENV, "env", NULL, "--env", 'e', NULL, "KEY=VALUE",
		       "set a variable; KEY alone copies cell's (repeatable)", PARAM_GROUP_PROCESS,
		       .process = true, .hidden = true,
		       OWN(PARAM_LIST, parse_env, format_env, clear_env), .load = load_env},
	[PARAM_USER] = {PARAM_USER, "user", NULL, "--user", 'u', NULL, "USER[:GROUP]",
			"run as USER, a name of the jail's /etc/passwd or a uid\n"
			"(GROUP: a name of its /etc/group or a gid; default:\n"
			"the user's group there, else the uid)",
			PARAM_GROUP_PROCESS, .process = true,
			OWN(PARAM_STRING, parse_user, format_user, clear_user)},
	[PARAM_NET] = {PARAM_NET, "net", "vnet", "--net", 0, NULL, "none|host|bridge|slirp|ns:PATH",
		       "none: own namespace, loopback only (default);\n"
		       "host: the host's; bridge[:NAME]: a veth on bridge\n"
		       "NAME (cell0); slirp: out through pasta or\n"
		       "slirp4netns (no root needed); ns:PATH: join that\n"
		       "namespace",
		       PARAM_GROUP_NETWORK, OWN(PARAM_STRING, parse_net, format_net, clear_net)},
	[PARAM_IP4] = {PARAM_IP4, "ip4.addr", NULL, "--ip", 0, NULL, "ADDR/PREFIX",
		       "the jail's address on the bridge (repeatable, IPv4\n"
		       "or IPv6; default: the next free one)",
		       PARAM_GROUP_NETWORK, .live = true,
		       OWN(PARAM_LIST, parse_ip, format_net_list, clear_net_list)},
	[PARAM_IP6] = {PARAM_IP6, "ip6.addr", NULL, NULL, 0, NULL, NULL, NULL, PARAM_GROUP_NETWORK,
		       .live = true, OWN(PARAM_LIST, parse_ip, format_net_list, clear_net_list)},
	[PARAM_GATEWAY] = {PARAM_GATEWAY, "gateway", NULL, "--gateway", 0, NULL, "ADDR[/P]",
			   "the bridge's address, IPv4 and/or IPv6 (cell0:\n"
			   "10.89.0.1/24 and fd89::1/64)",
			   PARAM_GROUP_NETWORK,
			   OWN(PARAM_LIST, parse_gateway, format_net_list, clear_net_list)},
	[PARAM_VNET_IF] = {PARAM_VNET_IF, "vnet.interface", NULL, NULL, 0, NULL, NULL, NULL,
			   PARAM_GROUP_NETWORK, STRING(ifname_of, check_ifname)},
	[PARAM_VNET_MTU] = {PARAM_VNET_MTU, "vnet.mtu", NULL, "--mtu", 0, NULL, "N",
			    "the MTU of the bridge and the jail's veth (1280 to\n"
			    "65535; default: the bridge's, a new bridge's 1500)",
			    PARAM_GROUP_NETWORK,
			    NUMBER(mtu_of, parse_mtu, format_count, 1280, 65535)},
	[PARAM_PUBLISH] = {PARAM_PUBLISH, "publish", NULL, "--publish", 'p', NULL, "PORTS",
			   "[HOSTADDR:]HOSTPORT:JAILPORT[/tcp|/udp]: forward a\n"
			   "host port to the jail (repeatable)",
			   PARAM_GROUP_NETWORK,
			   OWN(PARAM_LIST, parse_publish, format_net_list, clear_net_list)},
	[PARAM_NAT] = {PARAM_NAT, "nat", NULL, "--nat", 0, "true", NULL,
		       "masquerade the bridge's traffic out (default)", PARAM_GROUP_NETWORK,
		       BOOLEAN(nat_of, true), .no_flag = "--no-nat",
		       .no_help = "no masquerade of the bridge's traffic out"},
	[PARAM_DNS] = {PARAM_DNS, "dns", NULL, "--dns", 0, NULL, "ADDR",
		       "a nameserver of the jail's resolv.conf (repeatable)", PARAM_GROUP_NETWORK,
		       OWN(PARAM_LIST, parse_dns, format_net_list, clear_net_list)},
	[PARAM_USERNS] = {PARAM_USERNS, "userns", NULL, "--userns", 0, NULL, "private|host",
			  "the jail's ids a range of host ids of its own\n"
			  "(default), or the host's: its root is the host's\n"
			  "root without capabilities (weaker; see cell(8))",
			  PARAM_GROUP_POLICY,
			  OWN(PARAM_STRING, parse_userns, format_userns, clear_userns)},
	[PARAM_INIT] = {PARAM_INIT, "init", NULL, "--init", 0, "true", NULL,
			"cell's reaper as pid 1: forwards signals, reaps,\n"
			"writes the log, restarts (default with -d)",
			PARAM_GROUP_PROCESS, BOOLEAN(init_of, false), .has = init_given_of,
			.no_flag = "--no-init",
			.no_help = "the command is pid 1 (-d: its output is not kept)"},
	[PARAM_RESTART] = {PARAM_RESTART, "restart", NULL, "--restart", 0, NULL, "POLICY",
			   "start the command again when it ends: no (default),\n"
			   "on-failure[:N] or always (needs the reaper)",
			   PARAM_GROUP_PROCESS,
			   OWN(PARAM_STRING, parse_restart, format_restart, clear_restart)},
	[PARAM_LOG_SIZE] = {PARAM_LOG_SIZE, "log.size", NULL, "--log-size", 0, NULL, "SIZE",
			    "-d: the log's size, per file (default 10M)", PARAM_GROUP_PROCESS,
			    NUMBER(log_size_of, parse_log_size, param_format_size, 8192,
				   LLONG_MAX)},
	[PARAM_LOG_KEEP] = {PARAM_LOG_KEEP, "log.keep", NULL, "--log-keep", 0, NULL, "N",
			    "-d: older log files kept (default 1)", PARAM_GROUP_PROCESS,
			    NUMBER(log_keep_of, parse_log_keep, format_count, 0, 99)},
	[PARAM_POLICY] = {PARAM_POLICY, "policy", NULL, "--no-policy", 0, "false", NULL,
			  "namespaces only: no seccomp, Landlock, capability\n"
			  "drop, no_new_privs, /proc masks or hidden host\n"
			  "secrets (to measure the policy's cost; unsafe)",
			  PARAM_GROUP_POLICY, BOOLEAN(policy_of, true)},
	[PARAM_ALLOW] = {PARAM_ALLOW, "allow", NULL, "--allow", 0, NULL, "RULE",
			 "relax one rule: set_hostname, raw_sockets, sysvipc,\n"
			 "chown, mlock, io_uring (repeatable)",
			 PARAM_GROUP_POLICY,
			 OWN(PARAM_LIST, parse_allow, format_allow, clear_allow)},
	[PARAM_NRTASK] = {PARAM_NRTASK, "nrtask", NULL, "--nrtask", 0, NULL, "N",
			  "at most N tasks (pids cgroup)", PARAM_GROUP_POLICY, .live = true,
			  NUMBER(nrtask_of, parse_nrtask, format_count, 1, LLONG_MAX)},
	[PARAM_MEMORY] = {PARAM_MEMORY, "memory", NULL, "--memory", 0, NULL, "SIZE",
			  "memory limit, e.g. 64M (memory cgroup; no swap beyond)",
			  PARAM_GROUP_POLICY, .live = true,
			  NUMBER(memory_of, parse_memory, param_format_size, 1LL << 20, LLONG_MAX)},
	[PARAM_SWAP] = {PARAM_SWAP, "swap", NULL, "--swap", 0, NULL, "SIZE",
			"swap allowed beyond --memory", PARAM_GROUP_POLICY, .live = true,
			NUMBER(swap_of, parse_size, param_format_size, 0, LLONG_MAX)},
	[PARAM_CPUS] = {PARAM_CPUS, "cpus", NULL, "--cpus", 0, NULL, "F",
			"CPU bandwidth, e.g. 0.5 (cpu cgroup)", PARAM_GROUP_POLICY, .live = true,
			NUMBER_OF(PARAM_REAL, cpus_of, parse_cpus, format_cpus, 10, 1000000999),
			.scale = 1000},
	[PARAM_CPU_TIME] = {PARAM_CPU_TIME, "cpu_time", NULL, "--cpu-time", 0, NULL, "SECONDS",
			    "CPU time per process (RLIMIT_CPU: SIGXCPU, then SIGKILL)",
			    PARAM_GROUP_POLICY, .live = true,
			    NUMBER(cpu_time_of, parse_seconds, format_count, 1, LLONG_MAX)},
	[PARAM_MEMLOCK] = {PARAM_MEMLOCK, "memlock", NULL, "--memlock", 0, NULL, "SIZE",
			   "lockable memory (RLIMIT_MEMLOCK)", PARAM_GROUP_POLICY, .live = true,
			   NUMBER(memlock_of, parse_size, param_format_size, 0, LLONG_MAX)},
	[PARAM_DATA] = {PARAM_DATA, "data", NULL, "--data", 0, NULL, "SIZE",
			"data segment (RLIMIT_DATA)", PARAM_GROUP_POLICY, .live = true,
			NUMBER(data_of, parse_size, param_format_size, 0, LLONG_MAX)},
	[PARAM_NOFILE] = {PARAM_NOFILE, "nofile", NULL, "--nofile", 0, NULL, "N",
			  "open files (RLIMIT_NOFILE)", PARAM_GROUP_POLICY, .live = true,
			  NUMBER(nofile_of, parse_nofile, format_count, 3, LLONG_MAX)},
	[PARAM_NICE] = {PARAM_NICE, "nice", NULL, "--nice", 0, NULL, "N",
			"start nice value; the jail cannot go below it", PARAM_GROUP_POLICY,
			.live = true, NUMBER(nice_of, parse_nice, format_count, -20, 19),
			.has = has_nice_of},
	[PARAM_CGROUP_PARENT] = {PARAM_CGROUP_PARENT, "cgroup_parent", NULL, "--cgroup-parent", 0,
				 NULL, "P", "create the jail's cgroups beneath P",
				 PARAM_GROUP_POLICY, STRING(cgroup_parent_of, check_cgroup_path)},
	[PARAM_COMMAND] = {PARAM_COMMAND, "command", NULL, NULL, 0, NULL, NULL, NULL,
			   PARAM_GROUP_PROCESS, .process = true,
			   OWN(PARAM_LIST, parse_command, format_command, clear_command)},
};

/* ---- by name ---- */

const struct param *param_find(const char *key)
{
	if (strncmp(key, "allow.", 6) == 0)
		return &param_table[PARAM_ALLOW];
	for (size_t i = 0; i < PARAM_COUNT; i++) {
		const struct param *p = &param_table[i];

		if (strcmp(key, p->name) == 0 || (p->alias != NULL && strcmp(key, p->alias) == 0))
			return p;
	}
	return NULL;
}

/* allow.RULE = BOOL: RULE relaxed, or held again. */
static int set_allow_rule(struct jail_spec *s, const char *rule, const char *text,
			  struct cell_err *e)
{
	unsigned int bit = allow_bit(rule);
	bool on = false;

	if (bit == 0)
		return cell_err_set(e, 0, "%s", allow_known);
	if (text_bool(text, &on, e) < 0)
		return -1;
	s->allow = on ? s->allow | bit : s->allow & ~bit;
	return 0;
}

int param_set(struct jail_spec *s, const char *key, const char *text, const struct param **row,
	      struct cell_err *e)
{
	const struct param *p = param_find(key);

	if (row != NULL)
		*row = p;
	if (p == NULL)
		return cell_err_set(e, 0, "unknown parameter");
	if (p->id == PARAM_ALLOW && key[5] == '.')
		return set_allow_rule(s, key + 6, text, e);
	return param_parse(p, s, text, e);
}

int param_parse(const struct param *p, struct jail_spec *s, const char *text, struct cell_err *e)
{
	if (text == NULL && p->type != PARAM_BOOL)
		return cell_err_set(e, 0, "needs a value");
	return p->parse(p, s, text, e);
}

int param_parse_text(const struct param *p, struct jail_spec *s, const char *text,
		     struct cell_err *e)
{
	char **elems = NULL;
	size_t n = 0;
	int r = 0;

	if (p->type != PARAM_LIST)
		return param_parse(p, s, text, e);
	if (text == NULL)
		return cell_err_set(e, 0, "needs a value");
	if (param_split(text, &elems, &n, e) < 0)
		return -1;
	p->clear(p, s);
	for (size_t i = 0; i < n && r == 0; i++)
		r = p->parse(p, s, elems[i], e);
	param_strv_free(elems, n);
	return r;
}

int param_format_element(const struct param *p, const struct jail_spec *s, size_t i, char **out)
{
	return p->format(p, s, i, out);
}

int param_format(const struct param *p, const struct jail_spec *s, char **out)
{
	char **elems = NULL;
	size_t n = 0;
	int r;

	*out = NULL;
	if (p->type != PARAM_LIST)
		return p->format(p, s, 0, out);
	for (;;) {
		char *el, **grown;

		r = p->format(p, s, n, &el);
		if (r <= 0)
			break;
		grown = realloc(elems, (n + 1) * sizeof(*grown));
		if (grown == NULL) {
			free(el);
			r = -1;
			break;
		}
		elems = grown;
		elems[n++] = el;
	}
	if (r == 0 && n > 0) {
		*out = param_join(elems, n);
		r = *out != NULL ? 1 : -1;
	}
	param_strv_free(elems, n);
	return r;
}

void param_clear(const struct param *p, struct jail_spec *s)
{
	p->clear(p, s);
}

bool param_is_set(const struct param *p, const struct jail_spec *s)
{
	char *v = NULL;
	int r = p->format(p, s, 0, &v);

	free(v);
	return r != 0;
}

bool param_equal(const struct param *p, const struct jail_spec *a, const struct jail_spec *b)
{
	char *x = NULL, *y = NULL;
	int rx = param_format(p, a, &x), ry = param_format(p, b, &y);
	bool same = rx == ry && (rx != 1 || strcmp(x, y) == 0);

	free(x);
	free(y);
	return same;
}

int param_copy(const struct param *p, struct jail_spec *dst, const struct jail_spec *src,
	       struct cell_err *e)
{
	long long v;

	p->clear(p, dst);
	if (p->num != NULL) {
		if (num_get(p, src, &v))
			num_put(p, dst, v);
		return 0;
	}
	for (size_t i = 0;; i++) {
		cleanup_free char *el = NULL;
		int r = p->format(p, src, i, &el);

		if (r < 0)
			return cell_err_set(e, ENOMEM, "%s", p->name);
		if (r == 0 || (p->load != NULL ? p->load : p->parse)(p, dst, el, e) < 0)
			return r == 0 ? 0 : -1;
		if (p->type != PARAM_LIST)
			return 0;
	}
}

/* ---- JSON ---- */

json_t *param_to_json(const struct param *p, const struct jail_spec *s)
{
	long long v;

	switch (p->type) {
	case PARAM_BOOL:
		return json_boolean(*p->boolean(MUT(s)));
	case PARAM_INT:
		return num_get(p, s, &v) ? json_integer((json_int_t)v) : json_null();
	case PARAM_REAL:
		return num_get(p, s, &v) ? json_real((double)v / p->scale) : json_null();
	case PARAM_STRING: {
		char *text = NULL;
		json_t *j;

		if (p->format(p, s, 0, &text) <= 0)
			return json_null();
		j = json_string(text);
		free(text);
		return j;
	}
	case PARAM_LIST: {
		json_t *a = json_array();

		for (size_t i = 0; a != NULL; i++) {
			char *el = NULL;
			int r = p->format(p, s, i, &el);

			if (r <= 0) {
				if (r < 0) {
					json_decref(a);
					a = NULL;
				}
				break;
			}
			json_array_append_new(a, json_string(el));
			free(el);
		}
		return a;
	}
	}
	return NULL;
}

static int number_from_json(const struct param *p, struct jail_spec *s, const json_t *v,
			    struct cell_err *e)
{
	long long n;

	if (p->type == PARAM_REAL && json_is_number(v)) {
		double x = json_number_value(v) * p->scale;

		if (!(x >= (double)p->min && x <= (double)p->max))
			return cell_err_set(e, 0, "out of range");
		n = (long long)(x + 0.5); /* x >= min > 0: rounded */
	} else if (json_is_integer(v)) {
		n = (long long)json_integer_value(v);
	} else {
		return cell_err_set(e, 0, "expected a number");
	}
	if (n < p->min || n > p->max)
		return cell_err_set(e, 0, "out of range");
	num_put(p, s, n);
	return 0;
}

int param_from_json(const struct param *p, struct jail_spec *s, const json_t *v, struct cell_err *e)
{
	size_t i;
	json_t *el;

	p->clear(p, s);
	if (v == NULL || json_is_null(v))
		return 0;
	switch (p->type) {
	case PARAM_BOOL:
		if (!json_is_boolean(v))
			return cell_err_set(e, 0, "expected true or false");
		*p->boolean(s) = json_is_true(v);
		if (p->has != NULL)
			*p->has(s) = true;
		return 0;
	case PARAM_INT:
	case PARAM_REAL:
		return number_from_json(p, s, v, e);
	case PARAM_STRING:
		if (!json_is_string(v))
			return cell_err_set(e, 0, "expected a string");
		return p->parse(p, s, json_string_value(v), e);
	case PARAM_LIST:
		if (!json_is_array(v))
			return cell_err_set(e, 0, "expected an array");
		json_array_foreach(v, i, el)
		{
			if (!json_is_string(el))
				return cell_err_set(e, 0, "expected an array of strings");
			if ((p->load != NULL ? p->load : p->parse)(p, s, json_string_value(el), e) <
			    0)
				return -1;
		}
		return 0;
	}
	return cell_err_set(e, 0, "unknown type");
}

/* ---- the list text ---- */

/* What a jail file reads as the end of an unquoted word, or the start of
 * a comment; '$' would start a variable, '\\' is kept out for clarity. */
static bool needs_quotes(const char *v)
{
	if (v[0] == '\0' || (v[0] == '/' && (v[1] == '/' || v[1] == '*')))
		return true;
	for (const unsigned char *c = (const unsigned char *)v; *c != '\0'; c++)
		if (*c <= ' ' || *c == 0x7f || strchr(";{}#,\"'$\\", *c) != NULL)
			return true;
	return false;
}

/* Room for N more bytes in *BUF (of *LEN bytes, *CAP allocated). */
static int reserve(char **buf, size_t len, size_t *cap, size_t n)
{
	char *b;

	if (len + n + 1 <= *cap)
		return 0;
	b = realloc(*buf, (len + n + 1) * 2);
	if (b == NULL)
		return -1;
	*buf = b;
	*cap = (len + n + 1) * 2;
	return 0;
}

/* Appends V to *BUF, quoted if it must be. */
static int append_quoted(char **buf, size_t *len, size_t *cap, const char *v)
{
	bool q = needs_quotes(v);
	char *b;

	if (reserve(buf, *len, cap, 2 * strlen(v) + 2) < 0)
		return -1;
	b = *buf;
	if (q)
		b[(*len)++] = '"';
	for (const char *c = v; *c != '\0'; c++) {
		char esc = *c == '\n' ? 'n' : *c == '\t' ? 't' : *c;

		if (q && strchr("\n\t\"\\$", *c) != NULL)
			b[(*len)++] = '\\';
		b[(*len)++] = q ? esc : *c;
	}
	if (q)
		b[(*len)++] = '"';
	b[*len] = '\0';
	return 0;
}

char *param_join(char *const *elems, size_t n)
{
	char *buf = strdup("");
	size_t len = 0, cap = 1;

	for (size_t i = 0; buf != NULL && i < n; i++) {
		if (i > 0) {
			if (reserve(&buf, len, &cap, 2) < 0)
				break;
			memcpy(buf + len, ", ", 3);
			len += 2;
		}
		if (append_quoted(&buf, &len, &cap, elems[i]) < 0)
			break;
		if (i + 1 == n)
			return buf;
	}
	if (n == 0)
		return buf;
	free(buf);
	return NULL;
}

/* One element of the list text at *P: "double quoted" (\" \\ \n \t \$),
 * 'single quoted' (as is) or a word; *OUT a heap string. */
static int split_one(const char **p, char **out, struct cell_err *e)
{
	const char *c = *p;
	char q = *c, *b;
	size_t n = 0;

	b = malloc(strlen(c) + 1);
	if (b == NULL)
		return cell_err_set(e, ENOMEM, "%s", "");
	if (q != '"' && q != '\'') {
		while (*c != '\0' && !isspace((unsigned char)*c) && strchr(";{}#,\"'", *c) == NULL)
			b[n++] = *c++;
	} else {
		for (c++; *c != q; c++) {
			if (*c == '\0') {
				free(b);
				return cell_err_set(e, 0, "unterminated string");
			}
			if (q == '"' && *c == '\\') {
				c++;
				if (*c == 'n' || *c == 't')
					b[n++] = *c == 'n' ? '\n' : '\t';
				else if (*c == '"' || *c == '\\' || *c == '$')
					b[n++] = *c;
				else {
					free(b);
					return cell_err_set(
						e, 0,
						"unknown escape in a string (known: \\\" "
						"\\\\ \\n \\t \\$)");
				}
				continue;
			}
			b[n++] = *c;
		}
		c++;
	}
	b[n] = '\0';
	*out = b;
	*p = c;
	return 0;
}

int param_split(const char *text, char ***elems, size_t *n, struct cell_err *e)
{
	const char *p = text;

	*elems = NULL;
	*n = 0;
	while (isspace((unsigned char)*p))
		p++;
	while (*p != '\0') {
		char **grown, *el = NULL;

		if (*p == ',' || (*p != '"' && *p != '\'' && strchr(";{}#", *p) != NULL))
			goto bad;
		if (split_one(&p, &el, e) < 0)
			goto fail;
		grown = realloc(*elems, (*n + 1) * sizeof(*grown));
		if (grown == NULL) {
			free(el);
			cell_err_set(e, ENOMEM, "%s", "");
			goto fail;
		}
		*elems = grown;
		(*elems)[(*n)++] = el;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		if (*p != ',')
			goto bad;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			goto bad;
	}
	return 0;
bad:
	cell_err_set(e, 0,
		     "expected elements separated by ',' (quoted when they hold ',', ';', "
		     "blanks or quotes)");
fail:
	param_strv_free(*elems, *n);
	*elems = NULL;
	*n = 0;
	return -1;
}
