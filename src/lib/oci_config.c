/*
 * oci_config.c - config.json -> struct jail_spec.  See oci_config.h.
 *
 * One pass over the parsed JSON, section by section, each filling the
 * spec's lists directly (spec_free() frees a partial spec).  Each value
 * is checked where it is read and an error names its JSON path
 * ("linux.resources.memory.limit: must be ..."); the top adds
 * "config.json: ".  Fields are looked up by name, so a field cell does
 * not know is ignored, as Go's decoder in runc ignores it; those that
 * would change the container and that cell cannot honour are looked up
 * on purpose and refused when they hold values (unsupported()).
 *
 * JSON numbers are json_int_t (64-bit signed); the spec's uint64 fields
 * (rlimits, seccomp argument values, swappiness) may exceed it, which
 * jansson refuses as an overflow: such a text is parsed again with the
 * too-large unsigned integers turned into marked strings that get_u64()
 * alone accepts (big_ints()).
 */
#include "oci_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cleanup.h"
#include "devices.h"
#include "rootless.h"
#include "untrusted.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define JPATH	   192	     /* bytes of a JSON path in messages */
#define BIG_MARK   '\x01'    /* starts a string big_ints() made of a number */
#define MAX_LIST   65536     /* entries of any one array */
#define MAX_IDMAPS 340	     /* lines of a uid_map (the kernel's limit) */
#define MIN_MEMORY (1 << 20) /* as the jail CLI's memory: the record reads it back */

/* ---- errors and JSON paths ---------------------------------------- */

static int bad(struct cell_err *e, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "PATH: what is wrong"; the top adds "config.json: ". */
static int bad(struct cell_err *e, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cell_err_set(e, 0, "%s: %s", path, msg);
}

static int nomem(struct cell_err *e, const char *path)
{
	return cell_err_set(e, ENOMEM, "%s", path);
}

/* PARENT.KEY into BUF (KEY alone at the top). */
static const char *jkey(char *buf, const char *parent, const char *key)
{
	/* A path deeper than JPATH is cut short: still a readable message. */
	if (snprintf(buf, JPATH, "%s%s%s", parent, *parent != '\0' ? "." : "", key) < 0)
		buf[0] = '\0';
	return buf;
}

/* PARENT[I] into BUF. */
static const char *jidx(char *buf, const char *parent, size_t i)
{
	if (snprintf(buf, JPATH, "%s[%zu]", parent, i) < 0)
		buf[0] = '\0';
	return buf;
}

/* ---- typed access ------------------------------------------------- */

/* Member KEY of OBJ; NULL when absent or null (Go reads null as unset). */
static json_t *member(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_null(v) ? NULL : v;
}

static const char *type_name(json_type t)
{
	switch (t) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	default:
		return "a boolean";
	}
}

/* Member KEY of OBJ of type T into *OUT: 1 found, 0 absent, -1 error. */
static int get(const json_t *obj, const char *key, const char *parent, json_type t, json_t **out,
	       struct cell_err *e)
{
	char p[JPATH];
	json_t *v = member(obj, key);

	*out = v;
	if (v == NULL)
		return 0;
	if (json_typeof(v) == t || (t == JSON_TRUE && json_is_boolean(v)))
		return 1;
	return bad(e, jkey(p, parent, key), "must be %s", type_name(t));
}

static int get_obj(const json_t *obj, const char *key, const char *parent, json_t **out,
		   struct cell_err *e)
{
	return get(obj, key, parent, JSON_OBJECT, out, e);
}

static int get_arr(const json_t *obj, const char *key, const char *parent, json_t **out,
		   struct cell_err *e)
{
	char p[JPATH];
	int r = get(obj, key, parent, JSON_ARRAY, out, e);

	if (r > 0 && json_array_size(*out) > MAX_LIST)
		return bad(e, jkey(p, parent, key), "more than %d entries", MAX_LIST);
	return r;
}

/* A string member: *OUT NULL when absent. */
static int get_str(const json_t *obj, const char *key, const char *parent, const char **out,
		   struct cell_err *e)
{
	json_t *v;
	int r = get(obj, key, parent, JSON_STRING, &v, e);

	*out = r > 0 ? json_string_value(v) : NULL;
	return r;
}

static int get_bool(const json_t *obj, const char *key, const char *parent, bool *out,
		    struct cell_err *e)
{
	json_t *v;
	int r = get(obj, key, parent, JSON_TRUE, &v, e);

	if (r > 0)
		*out = json_is_true(v);
	return r;
}

/* An integer member in [LO, HI]. */
static int get_int(const json_t *obj, const char *key, const char *parent, long long lo,
		   long long hi, long long *out, struct cell_err *e)
{
	char p[JPATH];
	json_t *v;
	int r = get(obj, key, parent, JSON_INTEGER, &v, e);

	if (r <= 0)
		return r;
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return bad(e, jkey(p, parent, key), "must be %lld to %lld", lo, hi);
	return 1;
}

/* An unsigned 64-bit member: an integer >= 0, or one too large for
 * json_int_t that big_ints() turned into a marked string. */
static int get_u64(const json_t *obj, const char *key, const char *parent, uint64_t *out,
		   struct cell_err *e)
{
	char p[JPATH];
	json_t *v = member(obj, key);
	const char *t;

	if (v == NULL)
		return 0;
	jkey(p, parent, key);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 1;
	}
	t = json_string_value(v);
	if (t != NULL && t[0] == BIG_MARK && isdigit((unsigned char)t[1])) {
		char *end;

		errno = 0;
		*out = strtoull(t + 1, &end, 10);
		if (errno == 0 && *end == '\0')
			return 1;
	}
	return bad(e, p, "must be an integer from 0 to 18446744073709551615");
}

/* An id (uid, gid): [0, 2^32 - 2], (uid_t)-1 meaning "unchanged". */
static int get_id(const json_t *obj, const char *key, const char *parent, uint32_t *out,
		  struct cell_err *e)
{
	long long v;
	int r = get_int(obj, key, parent, 0, UINT32_MAX - 1LL, &v, e);

	if (r > 0)
		*out = (uint32_t)v;
	return r;
}

static int dup_into(char **dst, const char *src, const char *path, struct cell_err *e)
{
	free(*dst);
	*dst = strdup(src);
	return *dst == NULL ? nomem(e, path) : 0;
}

/* A string member copied into *DST (kept when absent; empty: NULL). */
static int get_dup(const json_t *obj, const char *key, const char *parent, char **dst,
		   struct cell_err *e)
{
	char p[JPATH];
	const char *v;
	int r = get_str(obj, key, parent, &v, e);

	if (r <= 0)
		return r;
	if (*v == '\0') {
		free(*dst);
		*dst = NULL;
		return 1;
	}
	return dup_into(dst, v, jkey(p, parent, key), e) < 0 ? -1 : 1;
}

/* An array of strings as a NULL-terminated vector into *OUT (its
 * count into *N when N is not NULL), in place as it fills. */
static int strv_of(const json_t *arr, const char *path, char ***out, size_t *n, struct cell_err *e)
{
	char p[JPATH];
	size_t i;
	json_t *v;

	*out = calloc(json_array_size(arr) + 1, sizeof(**out));
	if (*out == NULL)
		return nomem(e, path);
	json_array_foreach(arr, i, v)
	{
		if (!json_is_string(v))
			return bad(e, jidx(p, path, i), "must be a string");
		(*out)[i] = strdup(json_string_value(v));
		if ((*out)[i] == NULL)
			return nomem(e, path);
		if (n != NULL)
			*n = i + 1;
	}
	return 0;
}

/* A string value that must not be empty. */
static int want_str(const json_t *obj, const char *key, const char *parent, const char **out,
		    struct cell_err *e)
{
	char p[JPATH];
	int r = get_str(obj, key, parent, out, e);

	if (r < 0)
		return -1;
	if (r == 0 || **out == '\0')
		return bad(e, jkey(p, parent, key), "required");
	return 0;
}

/* ---- paths -------------------------------------------------------- */

/* PATH made absolute and clean, lexically: "a//b/../c" -> "/a/c"; a
 * ".." never climbs above "/". */
static char *clean_path(const char *path)
{
	size_t n = strlen(path), len = 0;
	char *out = malloc(n + 2);

	if (out == NULL)
		return NULL;
	while (*path != '\0') {
		size_t c = strcspn(path, "/");

		if (c == 2 && path[0] == '.' && path[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
		} else if (c > 0 && !(c == 1 && path[0] == '.')) {
			out[len++] = '/';
			memcpy(out + len, path, c);
			len += c;
		}
		path += c;
		path += strspn(path, "/");
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return out;
}

/* PATH, absolute as it is or relative to BUNDLE. */
static int bundle_path(const char *bundle, const char *path, char **out, const char *jpath,
		       struct cell_err *e)
{
	free(*out);
	*out = NULL;
	if (path[0] == '/' || bundle == NULL) {
		*out = strdup(path);
	} else if (asprintf(out, "%s/%s", bundle, path) < 0) {
		*out = NULL;
	}
	return *out == NULL ? nomem(e, jpath) : 0;
}

/* An absolute path member, cleaned, into *DST. */
static int abs_path(const json_t *obj, const char *key, const char *parent, char **dst,
		    struct cell_err *e)
{
	char p[JPATH];
	const char *v;

	if (want_str(obj, key, parent, &v, e) < 0)
		return -1;
	jkey(p, parent, key);
	if (v[0] != '/')
		return bad(e, p, "%s: must be an absolute path", v);
	free(*dst);
	*dst = clean_path(v);
	return *dst == NULL ? nomem(e, p) : 0;
}

/* ---- tables of names ---------------------------------------------- */

struct name_val {
	const char *name;
	unsigned long val;
};

static const struct name_val *lookup(const struct name_val *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

#define LOOKUP(table, name) lookup(table, sizeof(table) / sizeof(table[0]), name)

static const struct name_val rlimit_names[] = {
	{"RLIMIT_CPU", RLIMIT_CPU},	      {"RLIMIT_FSIZE", RLIMIT_FSIZE},
	{"RLIMIT_DATA", RLIMIT_DATA},	      {"RLIMIT_STACK", RLIMIT_STACK},
	{"RLIMIT_CORE", RLIMIT_CORE},	      {"RLIMIT_RSS", RLIMIT_RSS},
	{"RLIMIT_NPROC", RLIMIT_NPROC},	      {"RLIMIT_NOFILE", RLIMIT_NOFILE},
	{"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},   {"RLIMIT_AS", RLIMIT_AS},
	{"RLIMIT_LOCKS", RLIMIT_LOCKS},	      {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
	{"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE},
	{"RLIMIT_RTPRIO", RLIMIT_RTPRIO},     {"RLIMIT_RTTIME", RLIMIT_RTTIME},
};

/* By number: the names the features list too. */
static const char *const cap_names[] = {
	[CAP_CHOWN] = "CAP_CHOWN",
	[CAP_DAC_OVERRIDE] = "CAP_DAC_OVERRIDE",
	[CAP_DAC_READ_SEARCH] = "CAP_DAC_READ_SEARCH",
	[CAP_FOWNER] = "CAP_FOWNER",
	[CAP_FSETID] = "CAP_FSETID",
	[CAP_KILL] = "CAP_KILL",
	[CAP_SETGID] = "CAP_SETGID",
	[CAP_SETUID] = "CAP_SETUID",
	[CAP_SETPCAP] = "CAP_SETPCAP",
	[CAP_LINUX_IMMUTABLE] = "CAP_LINUX_IMMUTABLE",
	[CAP_NET_BIND_SERVICE] = "CAP_NET_BIND_SERVICE",
	[CAP_NET_BROADCAST] = "CAP_NET_BROADCAST",
	[CAP_NET_ADMIN] = "CAP_NET_ADMIN",
	[CAP_NET_RAW] = "CAP_NET_RAW",
	[CAP_IPC_LOCK] = "CAP_IPC_LOCK",
	[CAP_IPC_OWNER] = "CAP_IPC_OWNER",
	[CAP_SYS_MODULE] = "CAP_SYS_MODULE",
	[CAP_SYS_RAWIO] = "CAP_SYS_RAWIO",
	[CAP_SYS_CHROOT] = "CAP_SYS_CHROOT",
	[CAP_SYS_PTRACE] = "CAP_SYS_PTRACE",
	[CAP_SYS_PACCT] = "CAP_SYS_PACCT",
	[CAP_SYS_ADMIN] = "CAP_SYS_ADMIN",
	[CAP_SYS_BOOT] = "CAP_SYS_BOOT",
	[CAP_SYS_NICE] = "CAP_SYS_NICE",
	[CAP_SYS_RESOURCE] = "CAP_SYS_RESOURCE",
	[CAP_SYS_TIME] = "CAP_SYS_TIME",
	[CAP_SYS_TTY_CONFIG] = "CAP_SYS_TTY_CONFIG",
	[CAP_MKNOD] = "CAP_MKNOD",
	[CAP_LEASE] = "CAP_LEASE",
	[CAP_AUDIT_WRITE] = "CAP_AUDIT_WRITE",
	[CAP_AUDIT_CONTROL] = "CAP_AUDIT_CONTROL",
	[CAP_SETFCAP] = "CAP_SETFCAP",
	[CAP_MAC_OVERRIDE] = "CAP_MAC_OVERRIDE",
	[CAP_MAC_ADMIN] = "CAP_MAC_ADMIN",
	[CAP_SYSLOG] = "CAP_SYSLOG",
	[CAP_WAKE_ALARM] = "CAP_WAKE_ALARM",
	[CAP_BLOCK_SUSPEND] = "CAP_BLOCK_SUSPEND",
	[CAP_AUDIT_READ] = "CAP_AUDIT_READ",
	[CAP_PERFMON] = "CAP_PERFMON",
	[CAP_BPF] = "CAP_BPF",
	[CAP_CHECKPOINT_RESTORE] = "CAP_CHECKPOINT_RESTORE",
};
#define NCAPS (sizeof(cap_names) / sizeof(cap_names[0]))

static const struct name_val ns_types[] = {
	{"cgroup", CLONE_NEWCGROUP}, {"ipc", CLONE_NEWIPC}, {"mount", CLONE_NEWNS},
	{"network", CLONE_NEWNET},   {"pid", CLONE_NEWPID}, {"time", CLONE_NEWTIME},
	{"user", CLONE_NEWUSER},     {"uts", CLONE_NEWUTS},
};

static const struct name_val propagations[] = {
	{"private", MS_PRIVATE},       {"rprivate", MS_PRIVATE | MS_REC},
	{"slave", MS_SLAVE},	       {"rslave", MS_SLAVE | MS_REC},
	{"shared", MS_SHARED},	       {"rshared", MS_SHARED | MS_REC},
	{"unbindable", MS_UNBINDABLE}, {"runbindable", MS_UNBINDABLE | MS_REC},
};

/* Mount options that set (or, the "no" side, clear) a mount flag. */
struct mount_flag {
	const char *name;
	unsigned long set, clear;
};

static const struct mount_flag mount_flags[] = {
	{"ro", MS_RDONLY, 0},
	{"rw", 0, MS_RDONLY},
	{"nosuid", MS_NOSUID, 0},
	{"suid", 0, MS_NOSUID},
	{"nodev", MS_NODEV, 0},
	{"dev", 0, MS_NODEV},
	{"noexec", MS_NOEXEC, 0},
	{"exec", 0, MS_NOEXEC},
	{"sync", MS_SYNCHRONOUS, 0},
	{"async", 0, MS_SYNCHRONOUS},
	{"dirsync", MS_DIRSYNC, 0},
	{"mand", MS_MANDLOCK, 0},
	{"nomand", 0, MS_MANDLOCK},
	{"noatime", MS_NOATIME, 0},
	{"atime", 0, MS_NOATIME},
	{"nodiratime", MS_NODIRATIME, 0},
	{"diratime", 0, MS_NODIRATIME},
	{"relatime", MS_RELATIME, 0},
	{"norelatime", 0, MS_RELATIME},
	{"strictatime", MS_STRICTATIME, 0},
	{"nostrictatime", 0, MS_STRICTATIME},
	{"lazytime", MS_LAZYTIME, 0},
	{"nolazytime", 0, MS_LAZYTIME},
	{"iversion", MS_I_VERSION, 0},
	{"noiversion", 0, MS_I_VERSION},
	{"nosymfollow", MS_NOSYMFOLLOW, 0},
	{"symfollow", 0, MS_NOSYMFOLLOW},
	{"bind", MS_BIND, 0},
	{"rbind", MS_BIND | MS_REC, 0},
	{"defaults", 0, 0},
	{"silent", 0, 0},
	{"loud", 0, 0},
};
#define NMOUNT_FLAGS (sizeof(mount_flags) / sizeof(mount_flags[0]))

/* Options runc knows that are no filesystem's data and that cell does
 * not implement: passed on as data they would fail the mount, or be
 * read by the filesystem as something else; refused instead.  The
 * recursive ones ("rro") are mount_setattr(AT_RECURSIVE) attributes. */
static const char *const mount_refused[] = {
	"acl",	       "noacl",	       "remount",	 "rro",
	"rrw",	       "rnosuid",      "rsuid",		 "rnodev",
	"rdev",	       "rnoexec",      "rexec",		 "rnoatime",
	"ratime",      "rnodiratime",  "rdiratime",	 "rrelatime",
	"rnorelatime", "rstrictatime", "rnostrictatime", "rnosymfollow",
	"rsymfollow",
};

/* libseccomp's names; the values are <seccomp.h>'s. */
static const struct name_val seccomp_actions[] = {
	{"SCMP_ACT_KILL", SCMP_ACT_KILL},
	{"SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS},
	{"SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD},
	{"SCMP_ACT_TRAP", SCMP_ACT_TRAP},
	{"SCMP_ACT_ERRNO", SCMP_ACT_ERRNO(0)},
	{"SCMP_ACT_TRACE", SCMP_ACT_TRACE(0)},
	{"SCMP_ACT_ALLOW", SCMP_ACT_ALLOW},
	{"SCMP_ACT_LOG", SCMP_ACT_LOG},
	{"SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY},
};

static const struct name_val seccomp_ops[] = {
	{"SCMP_CMP_NE", SCMP_CMP_NE},
	{"SCMP_CMP_LT", SCMP_CMP_LT},
	{"SCMP_CMP_LE", SCMP_CMP_LE},
	{"SCMP_CMP_EQ", SCMP_CMP_EQ},
	{"SCMP_CMP_GE", SCMP_CMP_GE},
	{"SCMP_CMP_GT", SCMP_CMP_GT},
	{"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
};

static const struct name_val seccomp_archs[] = {
	{"SCMP_ARCH_X86", SCMP_ARCH_X86},
	{"SCMP_ARCH_X86_64", SCMP_ARCH_X86_64},
	{"SCMP_ARCH_X32", SCMP_ARCH_X32},
	{"SCMP_ARCH_ARM", SCMP_ARCH_ARM},
	{"SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64},
	{"SCMP_ARCH_MIPS", SCMP_ARCH_MIPS},
	{"SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64},
	{"SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32},
	{"SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL},
	{"SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64},
	{"SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32},
	{"SCMP_ARCH_PPC", SCMP_ARCH_PPC},
	{"SCMP_ARCH_PPC64", SCMP_ARCH_PPC64},
	{"SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE},
	{"SCMP_ARCH_S390", SCMP_ARCH_S390},
	{"SCMP_ARCH_S390X", SCMP_ARCH_S390X},
	{"SCMP_ARCH_PARISC", SCMP_ARCH_PARISC},
	{"SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64},
	{"SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64},
};

static const struct name_val seccomp_flags[] = {
	{"SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG},
	{"SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW},
	{"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV},
};

/* ---- what cell refuses -------------------------------------------- */

/* Whether V holds a value: not null, false, 0, "", [] or {}, nor an
 * object whose members hold none; a member that is an object counts
 * whatever it holds (a key of netDevices or rdma names a device). */
static bool has_value(const json_t *v)
{
	const char *k;
	json_t *m;

	if (v == NULL)
		return false;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach((json_t *)v, k, m)
		{
			if (json_is_object(m) || has_value(m))
				return true;
		}
		return false;
	case JSON_ARRAY:
		return json_array_size(v) > 0;
	case JSON_STRING:
		return json_string_length(v) > 0;
	case JSON_INTEGER:
		return json_integer_value(v) != 0;
	case JSON_REAL:
		return json_real_value(v) != 0;
	case JSON_TRUE:
		return true;
	default:
		return false;
	}
}

/* Each of the NULL-terminated KEYS of OBJ that holds a value is an
 * error: cell cannot do what it asks, and doing without would give a
 * container other than the one configured. */
static int unsupported(const json_t *obj, const char *parent, const char *const *keys,
		       struct cell_err *e)
{
	char p[JPATH];

	for (; *keys != NULL; keys++)
		if (has_value(json_object_get(obj, *keys)))
			return bad(e, jkey(p, parent, *keys), "not supported by cell");
	return 0;
}

/* ---- process ------------------------------------------------------ */

/* "KEY=VALUE" entries; a later KEY replaces an earlier one. */
static int process_env(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	char path[JPATH];
	json_t *arr, *v;
	size_t i;

	int r = get_arr(proc, "env", "process", &arr, e);

	if (r <= 0)
		return r;
	p->env = calloc(json_array_size(arr) + 1, sizeof(*p->env));
	if (p->env == NULL)
		return nomem(e, "process.env");
	json_array_foreach(arr, i, v)
	{
		const char *kv = json_string_value(v);
		size_t klen, j;

		jidx(path, "process.env", i);
		if (kv == NULL)
			return bad(e, path, "must be a string");
		klen = strcspn(kv, "=");
		if (kv[klen] != '=' || klen == 0)
			return bad(e, path, "%s: expected KEY=VALUE", kv);
		for (j = 0; j < p->nenv; j++)
			if (strncmp(p->env[j], kv, klen + 1) == 0)
				break;
		if (dup_into(&p->env[j], kv, path, e) < 0)
			return -1;
		if (j == p->nenv)
			p->nenv++;
	}
	return 0;
}

static int process_args(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	json_t *arr;

	if (get_arr(proc, "args", "process", &arr, e) < 0)
		return -1;
	if (arr == NULL || json_array_size(arr) == 0)
		return bad(e, "process.args", "must not be empty");
	if (strv_of(arr, "process.args", &p->argv, NULL, e) < 0)
		return -1;
	if (p->argv[0][0] == '\0')
		return bad(e, "process.args[0]", "must not be empty");
	return 0;
}

static int process_cwd(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	const char *cwd;

	if (want_str(proc, "cwd", "process", &cwd, e) < 0)
		return -1;
	/* Relative to nothing the runtime could agree on: refused as runc. */
	if (cwd[0] != '/')
		return bad(e, "process.cwd", "%s: must be an absolute path", cwd);
	return dup_into(&p->cwd, cwd, "process.cwd", e);
}

static int user_groups(const json_t *user, struct jail_process *p, struct cell_err *e)
{
	char path[JPATH];
	json_t *arr, *v;
	size_t i;

	if (get_arr(user, "additionalGids", "process.user", &arr, e) < 0)
		return -1;
	/* Exactly these (none when absent), never the image's /etc/group. */
	p->has_groups = true;
	free(p->groups);
	p->groups = NULL;
	p->ngroups = 0;
	if (arr == NULL || json_array_size(arr) == 0)
		return 0;
	p->groups = calloc(json_array_size(arr), sizeof(*p->groups));
	if (p->groups == NULL)
		return nomem(e, "process.user.additionalGids");
	json_array_foreach(arr, i, v)
	{
		jidx(path, "process.user.additionalGids", i);
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= UINT32_MAX)
			return bad(e, path, "must be a group id from 0 to 4294967294");
		p->groups[p->ngroups++] = (gid_t)json_integer_value(v);
	}
	return 0;
}

static int process_user(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	json_t *user;
	uint32_t id = 0;
	long long umask_v;
	int r;

	if (get_obj(proc, "user", "process", &user, e) < 0)
		return -1;
	/* Go's zero value: an absent user is uid 0, gid 0. */
	p->has_user = p->has_gid = true;
	p->uid = p->gid = 0;
	if (user == NULL)
		return user_groups(NULL, p, e);
	if (get_id(user, "uid", "process.user", &id, e) < 0)
		return -1;
	p->uid = id;
	id = 0;
	if (get_id(user, "gid", "process.user", &id, e) < 0)
		return -1;
	p->gid = id;
	r = get_int(user, "umask", "process.user", 0, 0777, &umask_v, e);
	if (r < 0)
		return -1;
	if (r > 0) {
		p->has_umask = true;
		p->umask = (mode_t)umask_v;
	}
	return user_groups(user, p, e);
}

static int process_console(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	json_t *box;
	long long h = 0, w = 0;

	if (get_bool(proc, "terminal", "process", &p->terminal, e) < 0 ||
	    get_obj(proc, "consoleSize", "process", &box, e) < 0)
		return -1;
	if (box == NULL)
		return 0;
	if (get_int(box, "height", "process.consoleSize", 0, USHRT_MAX, &h, e) < 0 ||
	    get_int(box, "width", "process.consoleSize", 0, USHRT_MAX, &w, e) < 0)
		return -1;
	p->console_rows = (unsigned short)h;
	p->console_cols = (unsigned short)w;
	return 0;
}

/* One capability set: CAP_* names into a mask.  A well-formed name this
 * build does not know is left out, as runc leaves it out (a config
 * written for a newer kernel); fewer capabilities, never more. */
static int cap_set(const json_t *caps, const char *key, uint64_t *mask, struct cell_err *e)
{
	char path[JPATH], ip[JPATH];
	json_t *arr, *v;
	size_t i;

	int r = get_arr(caps, key, "process.capabilities", &arr, e);

	*mask = 0;
	if (r <= 0)
		return r;
	jkey(path, "process.capabilities", key);
	json_array_foreach(arr, i, v)
	{
		const char *n = json_string_value(v);

		if (n == NULL || strncmp(n, "CAP_", 4) != 0)
			return bad(e, jidx(ip, path, i), "must be a capability name (CAP_...)");
		for (size_t c = 0; c < NCAPS; c++)
			if (cap_names[c] != NULL && strcmp(cap_names[c], n) == 0)
				*mask |= 1ULL << c;
	}
	return 0;
}

static int process_caps(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	json_t *caps;
	struct jail_caps *c = &p->caps;

	if (get_obj(proc, "capabilities", "process", &caps, e) < 0)
		return -1;
	/* Absent, or a set absent: empty, not "as they are". */
	p->has_caps = true;
	p->caps_exact = true;
	memset(c, 0, sizeof(*c));
	if (caps == NULL)
		return 0;
	if (cap_set(caps, "bounding", &c->bounding, e) < 0 ||
	    cap_set(caps, "effective", &c->effective, e) < 0 ||
	    cap_set(caps, "inheritable", &c->inheritable, e) < 0 ||
	    cap_set(caps, "permitted", &c->permitted, e) < 0 ||
	    cap_set(caps, "ambient", &c->ambient, e) < 0)
		return -1;
	return 0;
}

static int one_rlimit(const json_t *v, const char *path, struct jail_process *p, struct cell_err *e)
{
	struct jail_rlimit *r = &p->rlimits[p->nrlimits];
	const struct name_val *t;
	const char *type;
	char tp[JPATH];

	if (!json_is_object(v))
		return bad(e, path, "must be an object");
	if (want_str(v, "type", path, &type, e) < 0)
		return -1;
	t = LOOKUP(rlimit_names, type);
	if (t == NULL)
		return bad(e, jkey(tp, path, "type"), "%s: not an rlimit (RLIMIT_...)", type);
	for (size_t i = 0; i < p->nrlimits; i++)
		if (p->rlimits[i].resource == (int)t->val)
			return bad(e, jkey(tp, path, "type"), "%s: given twice", type);
	uint64_t soft = RLIM_INFINITY, hard = RLIM_INFINITY;

	if (get_u64(v, "soft", path, &soft, e) < 0 || get_u64(v, "hard", path, &hard, e) < 0)
		return -1;
	r->soft = soft;
	r->hard = hard;
	if (soft > hard)
		return bad(e, jkey(tp, path, "soft"), "must not be above hard");
	r->resource = (int)t->val;
	p->nrlimits++;
	return 0;
}

static int process_rlimits(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	char path[JPATH];
	json_t *arr, *v;
	size_t i;

	if (get_arr(proc, "rlimits", "process", &arr, e) < 0)
		return -1;
	if (arr == NULL || json_array_size(arr) == 0)
		return 0;
	p->rlimits = calloc(json_array_size(arr), sizeof(*p->rlimits));
	if (p->rlimits == NULL)
		return nomem(e, "process.rlimits");
	json_array_foreach(arr, i, v)
	{
		if (one_rlimit(v, jidx(path, "process.rlimits", i), p, e) < 0)
			return -1;
	}
	return 0;
}

static int process_lsm(const json_t *proc, struct jail_process *p, struct cell_err *e)
{
	long long adj;
	int r;

	if (get_bool(proc, "noNewPrivileges", "process", &p->no_new_privs, e) < 0 ||
	    get_dup(proc, "apparmorProfile", "process", &p->apparmor_profile, e) < 0 ||
	    get_dup(proc, "selinuxLabel", "process", &p->selinux_label, e) < 0)
		return -1;
	r = get_int(proc, "oomScoreAdj", "process", -1000, 1000, &adj, e);
	if (r > 0) {
		p->has_oom_score_adj = true;
		p->oom_score_adj = (int)adj;
	}
	return r < 0 ? -1 : 0;
}

int oci_process_parse(const json_t *process, struct jail_process *p, struct cell_err *e)
{
	/* sched_setattr(2), ioprio_set(2) and an exec's CPU affinity are not
	 * implemented: refused rather than run otherwise. */
	static const char *const refused[] = {"scheduler", "ioPriority", "execCPUAffinity", NULL};

	if (!json_is_object(process))
		return bad(e, "process", "must be an object");
	/* An env without HOME gets the user's, from the container's
	 * /etc/passwd, as runc and crun give it (images rely on it); never
	 * the groups of its /etc/group (user_groups). */
	p->home_env = true;
	if (process_args(process, p, e) < 0 || process_env(process, p, e) < 0 ||
	    process_cwd(process, p, e) < 0 || process_user(process, p, e) < 0 ||
	    process_console(process, p, e) < 0 || process_caps(process, p, e) < 0 ||
	    process_rlimits(process, p, e) < 0 || process_lsm(process, p, e) < 0)
		return -1;
	return unsupported(process, "process", refused, e);
}

/* ---- the config's parts ------------------------------------------- */

/* What one parse carries from part to part. */
struct oci {
	const char *bundle; /* absolute; relative paths of the config are in it */
	struct jail_spec *s;
	const json_t *lx; /* the "linux" object, or NULL */
	struct cell_err *e;
};

static int parse_root(const json_t *cfg, struct oci *o)
{
	json_t *root;
	const char *path;
	bool ro = false;

	if (get_obj(cfg, "root", "", &root, o->e) < 0)
		return -1;
	if (root == NULL)
		return bad(o->e, "root", "required");
	if (want_str(root, "path", "root", &path, o->e) < 0 ||
	    get_bool(root, "readonly", "root", &ro, o->e) < 0)
		return -1;
	o->s->rw = !ro;
	return bundle_path(o->bundle, path, &o->s->rootfs, "root.path", o->e);
}

/* Whether the container has a UTS namespace, new or joined. */
static bool has_ns(const struct jail_spec *s, unsigned long type)
{
	if (s->mech.ns_new & type)
		return true;
	for (size_t i = 0; i < s->mech.nns_join; i++)
		if ((unsigned long)s->mech.ns_join[i].type == type)
			return true;
	return false;
}

/* hostname and domainname; empty: the UTS namespace keeps its own. */
static int parse_uts(const json_t *cfg, struct oci *o)
{
	const char *h, *d;

	if (get_str(cfg, "hostname", "", &h, o->e) < 0 ||
	    get_str(cfg, "domainname", "", &d, o->e) < 0)
		return -1;
	if (h != NULL && *h != '\0') {
		if (!spec_valid_hostname(h))
			return bad(o->e, "hostname", "%s: invalid hostname", h);
		if (!has_ns(o->s, CLONE_NEWUTS))
			return bad(o->e, "hostname", "needs a uts namespace (linux.namespaces)");
		if (dup_into(&o->s->hostname, h, "hostname", o->e) < 0)
			return -1;
	}
	if (d != NULL && *d != '\0') {
		if (strlen(d) > JAIL_UTS_MAX)
			return bad(o->e, "domainname", "must be at most %d bytes", JAIL_UTS_MAX);
		if (!has_ns(o->s, CLONE_NEWUTS))
			return bad(o->e, "domainname", "needs a uts namespace (linux.namespaces)");
		if (dup_into(&o->s->domainname, d, "domainname", o->e) < 0)
			return -1;
	}
	return 0;
}

/* ---- linux: namespaces and id maps -------------------------------- */

static int one_namespace(const json_t *v, const char *path, unsigned long *seen, struct oci *o)
{
	struct jail_mechanisms *m = &o->s->mech;
	const struct name_val *t;
	const char *type, *nspath;
	char p[JPATH];

	if (!json_is_object(v))
		return bad(o->e, path, "must be an object");
	if (want_str(v, "type", path, &type, o->e) < 0 ||
	    get_str(v, "path", path, &nspath, o->e) < 0)
		return -1;
	t = LOOKUP(ns_types, type);
	if (t == NULL)
		return bad(o->e, jkey(p, path, "type"), "%s: unknown namespace type", type);
	if (*seen & t->val)
		return bad(o->e, jkey(p, path, "type"), "%s: given twice", type);
	*seen |= t->val;
	if (nspath == NULL || *nspath == '\0') {
		m->ns_new |= t->val;
		return 0;
	}
	if (nspath[0] != '/')
		return bad(o->e, jkey(p, path, "path"), "%s: must be an absolute path", nspath);
	m->ns_join[m->nns_join].type = (int)t->val;
	if (dup_into(&m->ns_join[m->nns_join].path, nspath, path, o->e) < 0)
		return -1;
	m->nns_join++;
	return 0;
}

static int parse_namespaces(struct oci *o)
{
	char path[JPATH];
	unsigned long seen = 0;
	json_t *arr, *v;
	size_t i;

	int got = get_arr(o->lx, "namespaces", "linux", &arr, o->e);

	if (got <= 0)
		return got;
	o->s->mech.ns_join = calloc(json_array_size(arr) + 1, sizeof(*o->s->mech.ns_join));
	if (o->s->mech.ns_join == NULL)
		return nomem(o->e, "linux.namespaces");
	json_array_foreach(arr, i, v)
	{
		if (one_namespace(v, jidx(path, "linux.namespaces", i), &seen, o) < 0)
			return -1;
	}
	return 0;
}

/* An array of {containerID, hostID, size} into *OUT. */
static int idmaps_of(const json_t *arr, const char *path, struct jail_idmap **out, size_t *n,
		     struct cell_err *e)
{
	char p[JPATH];
	json_t *v;
	size_t i;

	if (json_array_size(arr) > MAX_IDMAPS)
		return bad(e, path, "more than %d entries", MAX_IDMAPS);
	*out = calloc(json_array_size(arr) + 1, sizeof(**out));
	if (*out == NULL)
		return nomem(e, path);
	json_array_foreach(arr, i, v)
	{
		long long in = -1, host = -1, size = -1;

		jidx(p, path, i);
		if (!json_is_object(v))
			return bad(e, p, "must be an object");
		if (get_int(v, "containerID", p, 0, UINT32_MAX, &in, e) < 0 ||
		    get_int(v, "hostID", p, 0, UINT32_MAX, &host, e) < 0 ||
		    get_int(v, "size", p, 1, UINT32_MAX, &size, e) < 0)
			return -1;
		if (in < 0 || host < 0 || size < 0)
			return bad(e, p, "needs containerID, hostID and size");
		if (in + size > UINT32_MAX + 1LL || host + size > UINT32_MAX + 1LL)
			return bad(e, p, "ids past 4294967295");
		(*out)[i] = (struct jail_idmap){(uint32_t)in, (uint32_t)host, (uint32_t)size};
		*n = i + 1;
	}
	return 0;
}

/* Both maps of OBJ (the config's or a mount's): 1 given, 0 none. */
static int idmap_pair(const json_t *obj, const char *parent, struct jail_idmap **uid, size_t *nuid,
		      struct jail_idmap **gid, size_t *ngid, struct cell_err *e)
{
	char p[JPATH];
	json_t *u, *g;

	if (get_arr(obj, "uidMappings", parent, &u, e) < 0 ||
	    get_arr(obj, "gidMappings", parent, &g, e) < 0)
		return -1;
	if (u != NULL && json_array_size(u) > 0 &&
	    idmaps_of(u, jkey(p, parent, "uidMappings"), uid, nuid, e) < 0)
		return -1;
	if (g != NULL && json_array_size(g) > 0 &&
	    idmaps_of(g, jkey(p, parent, "gidMappings"), gid, ngid, e) < 0)
		return -1;
	if ((*nuid > 0) != (*ngid > 0))
		return bad(e, jkey(p, parent, *nuid > 0 ? "gidMappings" : "uidMappings"),
			   "required with %s", *nuid > 0 ? "uidMappings" : "gidMappings");
	return *nuid > 0;
}

/*
 * The user namespace.  A new one is made by cell's helper with the
 * namespaces it owns (ns.h, struct ns_own: own_userns), not by the
 * clone: it leaves ns_new, and cell writes the config's maps (not a
 * range of its own: userns_range false).  It owns the UTS and network
 * namespaces made with it, so that the container's root may set its
 * hostname and configure its network, as it may under runc.
 */
static int parse_userns(struct oci *o)
{
	struct jail_mechanisms *m = &o->s->mech;
	int maps = idmap_pair(o->lx, "linux", &m->uid_map, &m->nuid_map, &m->gid_map, &m->ngid_map,
			      o->e);

	if (maps < 0)
		return -1;
	if (m->ns_new & CLONE_NEWUSER) {
		if (maps == 0)
			return bad(o->e, "linux.uidMappings", "required with a new user namespace");
		m->ns_new &= ~(unsigned long)CLONE_NEWUSER;
		m->own_userns = true;
		m->userns_range = false;
		m->userns_owns = m->ns_new & (CLONE_NEWUTS | CLONE_NEWNET);
		o->s->userns = JAIL_USERNS_PRIVATE;
		return 0;
	}
	if (maps > 0)
		return bad(o->e, "linux.uidMappings",
			   "needs a new user namespace (linux.namespaces)");
	o->s->userns = has_ns(o->s, CLONE_NEWUSER) ? JAIL_USERNS_PRIVATE : JAIL_USERNS_HOST;
	return 0;
}

/*
 * A rootless cell-oci (rootless.h) makes no device node, mounts no
 * cgroup v1 and binds the host's /sys where it may not mount one.  A
 * plain user's container lives in the config's user namespace, which
 * rootless_enter() makes and maps with the config's maps before the
 * launch: cell-oci is its root from then on and makes every other
 * namespace in it, so no helper makes it (own_userns false) and the
 * config's ids are the kernel's own when the root is built.  A plain
 * user can make nothing without one: refused, as runc refuses it.  Root
 * of someone else's user namespace (rootless podman's runtime) is
 * root there: that namespace is the container's unless the config asks
 * for one, which cell's helper makes as it does for root.
 */
static int parse_rootless(struct oci *o)
{
	struct jail_mechanisms *m = &o->s->mech;

	if (!rootless())
		return 0;
	m->rootless = true;
	if (geteuid() == 0)
		return 0;
	if (!m->own_userns)
		return bad(o->e, "linux.namespaces",
			   "a rootless container needs a user namespace, with uidMappings and "
			   "gidMappings (cell-oci spec --rootless writes one)");
	m->own_userns = false;
	m->userns_owns = 0;
	return 0;
}

/* ---- linux: devices ----------------------------------------------- */

/* The nodes every container gets (config-linux.md, "Default Devices");
 * /dev/ptmx and /dev/console come with /dev/pts and the terminal. */
static const struct {
	const char *path;
	int major, minor;
} default_nodes[] = {
	{"/dev/null", 1, 3},   {"/dev/zero", 1, 5},    {"/dev/full", 1, 7},
	{"/dev/random", 1, 8}, {"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0},
};

/* Appends D, or replaces the node of the same path (a default one). */
static int add_node(struct jail_mechanisms *m, struct jail_device_node *d, struct cell_err *e)
{
	struct jail_device_node *grown;

	for (size_t i = 0; i < m->ndev_nodes; i++)
		if (strcmp(m->dev_nodes[i].path, d->path) == 0) {
			free(m->dev_nodes[i].path);
			m->dev_nodes[i] = *d;
			return 0;
		}
	grown = realloc(m->dev_nodes, (m->ndev_nodes + 1) * sizeof(*grown));
	if (grown == NULL) {
		free(d->path);
		return nomem(e, "linux.devices");
	}
	m->dev_nodes = grown;
	m->dev_nodes[m->ndev_nodes++] = *d;
	return 0;
}

static int default_devices(struct oci *o)
{
	for (size_t i = 0; i < sizeof(default_nodes) / sizeof(default_nodes[0]); i++) {
		struct jail_device_node d = {
			NULL, 'c', default_nodes[i].major, default_nodes[i].minor, 0666, 0, 0};

		d.path = strdup(default_nodes[i].path);
		if (d.path == NULL)
			return nomem(o->e, "linux.devices");
		if (add_node(&o->s->mech, &d, o->e) < 0)
			return -1;
	}
	return 0;
}

static int one_device(const json_t *v, const char *path, struct oci *o)
{
	struct jail_device_node d = {NULL, 0, 0, 0, 0666, 0, 0};
	long long major = -1, minor = -1, mode = 0666;
	uint32_t uid = 0, gid = 0;
	const char *type;
	char p[JPATH];

	if (!json_is_object(v))
		return bad(o->e, path, "must be an object");
	if (want_str(v, "type", path, &type, o->e) < 0)
		return -1;
	if (strlen(type) != 1 || strchr("cbup", type[0]) == NULL)
		return bad(o->e, jkey(p, path, "type"), "%s: expected c, b, u or p", type);
	if (get_int(v, "major", path, 0, 4095, &major, o->e) < 0 ||
	    get_int(v, "minor", path, 0, 1048575, &minor, o->e) < 0 ||
	    get_int(v, "fileMode", path, 0, 0777, &mode, o->e) < 0 ||
	    get_id(v, "uid", path, &uid, o->e) < 0 || get_id(v, "gid", path, &gid, o->e) < 0)
		return -1;
	if (type[0] != 'p' && (major < 0 || minor < 0))
		return bad(o->e, path, "needs major and minor");
	d.type = type[0];
	d.major = major < 0 ? 0 : major;
	d.minor = minor < 0 ? 0 : minor;
	d.mode = (mode_t)mode;
	d.uid = uid;
	d.gid = gid;
	if (abs_path(v, "path", path, &d.path, o->e) < 0) {
		free(d.path);
		return -1;
	}
	return add_node(&o->s->mech, &d, o->e);
}

static int parse_devices(struct oci *o)
{
	char path[JPATH];
	json_t *arr, *v;
	size_t i;

	if (default_devices(o) < 0 || get_arr(o->lx, "devices", "linux", &arr, o->e) < 0)
		return -1;
	json_array_foreach(arr, i, v)
	{
		if (one_device(v, jidx(path, "linux.devices", i), o) < 0)
			return -1;
	}
	return 0;
}

/* One rule of linux.resources.devices; unset fields match anything. */
static int one_device_rule(const json_t *v, const char *path, struct oci *o)
{
	struct jail_device_rule r = {false, 'a', -1, -1, "rwm"};
	long long major = -1, minor = -1;
	const char *type = NULL, *access = NULL;

	if (!json_is_object(v))
		return bad(o->e, path, "must be an object");
	if (member(v, "allow") == NULL)
		return bad(o->e, path, "needs allow");
	if (get_bool(v, "allow", path, &r.allow, o->e) < 0 ||
	    get_str(v, "type", path, &type, o->e) < 0 ||
	    get_int(v, "major", path, -1, 4095, &major, o->e) < 0 ||
	    get_int(v, "minor", path, -1, 1048575, &minor, o->e) < 0 ||
	    get_str(v, "access", path, &access, o->e) < 0)
		return -1;
	if (type != NULL && *type != '\0') {
		if (strlen(type) != 1)
			return bad(o->e, path, "type %s: expected a, c or b", type);
		r.type = type[0];
	}
	if (access != NULL && *access != '\0')
		snprintf(r.access, sizeof(r.access), "%.3s", access);
	if (access != NULL && strlen(access) > 3)
		return bad(o->e, path, "access %s: expected letters of rwm", access);
	r.major = (int)major;
	r.minor = (int)minor;
	if (spec_add_device_rule(o->s, &r, o->e) < 0)
		return cell_err_prefix(o->e, "%s", path);
	return 0;
}

/* The device cgroup's rules; with any, the default devices allowed
 * after them (the last matching rule decides), as runc appends its. */
static int parse_device_rules(const json_t *res, struct oci *o)
{
	char path[JPATH];
	json_t *arr, *v;
	size_t i;

	int got = get_arr(res, "devices", "linux.resources", &arr, o->e);

	if (got <= 0)
		return got;
	json_array_foreach(arr, i, v)
	{
		if (one_device_rule(v, jidx(path, "linux.resources.devices", i), o) < 0)
			return -1;
	}
	if (json_array_size(arr) == 0)
		return 0;
	for (size_t k = 0; k < devices_nstandard; k++)
		if (spec_add_device_rule(o->s, &devices_standard[k], o->e) < 0)
			return -1;
	return 0;
}

/* ---- linux: resources --------------------------------------------- */

#define RES "linux.resources"

/* memory.swap is memory + swap (runc's, the v1 memsw file's meaning);
 * limits.swap is the swap beyond memory. */
static int res_swap(const json_t *mem, long long limit, struct oci *o)
{
	long long swap = 0;

	if (get_int(mem, "swap", RES ".memory", -1, LLONG_MAX, &swap, o->e) < 0)
		return -1;
	if (swap == 0 || (swap == -1 && limit <= 0))
		return 0;
	if (limit <= 0)
		return bad(o->e, RES ".memory.swap", "needs limit");
	if (swap == -1) {
		/* No swap limit: as much as the backends' sum can hold. */
		o->s->limits.swap = LLONG_MAX - limit;
		return 0;
	}
	if (swap < limit)
		return bad(o->e, RES ".memory.swap",
			   "must be at least limit (it is memory + swap), or -1 for no limit");
	o->s->limits.swap = swap - limit;
	return 0;
}

static int res_memory(const json_t *res, struct oci *o)
{
	static const char *const refused[] = {"disableOOMKiller", NULL};
	long long limit = 0, resv = 0, tcp = 0;
	uint64_t swappiness;
	json_t *mem;
	int r;

	int got = get_obj(res, "memory", RES, &mem, o->e);

	if (got <= 0)
		return got;
	/* 0 is Go's zero value: not set, as -1. */
	if (get_int(mem, "limit", RES ".memory", -1, LLONG_MAX, &limit, o->e) < 0 ||
	    get_int(mem, "reservation", RES ".memory", -1, LLONG_MAX, &resv, o->e) < 0 ||
	    get_int(mem, "kernelTCP", RES ".memory", -1, LLONG_MAX, &tcp, o->e) < 0 ||
	    unsupported(mem, RES ".memory", refused, o->e) < 0)
		return -1;
	if (limit > 0 && limit < MIN_MEMORY)
		return bad(o->e, RES ".memory.limit", "must be at least 1048576 (1M), or -1");
	if (tcp > 0)
		return bad(o->e, RES ".memory.kernelTCP", "not supported by cell");
	o->s->limits.memory = limit > 0 ? limit : -1;
	o->s->res.memory_reservation = resv > 0 ? resv : -1;
	/* kernel (kernel memory) is ignored, as runc ignores it: the kernel
	 * dropped it in 5.4 (a limit would do nothing). */
	r = get_u64(mem, "swappiness", RES ".memory", &swappiness, o->e);
	if (r < 0)
		return -1;
	/* docker once wrote -1 as a uint64 for "not set". */
	if (r > 0 && swappiness <= 100)
		o->s->res.memory_swappiness = (long long)swappiness;
	else if (r > 0 && swappiness != UINT64_MAX)
		return bad(o->e, RES ".memory.swappiness", "must be 0 to 100");
	return res_swap(mem, limit, o);
}

static int res_pids(const json_t *res, struct oci *o)
{
	long long limit = 0;
	json_t *pids;

	int got = get_obj(res, "pids", RES, &pids, o->e);

	if (got <= 0)
		return got;
	if (get_int(pids, "limit", RES ".pids", -1, LLONG_MAX, &limit, o->e) < 0)
		return -1;
	/* 0 and -1: no limit (runc's two spellings of it). */
	o->s->limits.nrtask = limit > 0 ? limit : -1;
	return 0;
}

/* A cpuset list: "0-3,8". */
static int cpu_list(const json_t *cpu, const char *key, char **dst, struct oci *o)
{
	char p[JPATH];
	const char *v;

	if (get_str(cpu, key, RES ".cpu", &v, o->e) < 0)
		return -1;
	if (v == NULL || *v == '\0')
		return 0;
	if (strspn(v, "0123456789,-") != strlen(v) || !isdigit((unsigned char)v[0]))
		return bad(o->e, jkey(p, RES ".cpu", key), "%s: expected a list such as 0-3,8", v);
	return dup_into(dst, v, p, o->e);
}

static int res_cpu(const json_t *res, struct oci *o)
{
	static const char *const refused[] = {"realtimeRuntime", "realtimePeriod", "burst", "idle",
					      NULL};
	struct jail_resources *r = &o->s->res;
	long long shares = 0, quota = 0, period = 0;
	json_t *cpu;

	int got = get_obj(res, "cpu", RES, &cpu, o->e);

	if (got <= 0)
		return got;
	if (get_int(cpu, "shares", RES ".cpu", 0, 262144, &shares, o->e) < 0 ||
	    get_int(cpu, "quota", RES ".cpu", -1, LLONG_MAX, &quota, o->e) < 0 ||
	    get_int(cpu, "period", RES ".cpu", 0, 1000000, &period, o->e) < 0 ||
	    unsupported(cpu, RES ".cpu", refused, o->e) < 0)
		return -1;
	if (shares == 1)
		return bad(o->e, RES ".cpu.shares", "must be 2 to 262144");
	/* The kernel's smallest CFS quota and period: 1 ms. */
	if (quota > 0 && quota < 1000)
		return bad(o->e, RES ".cpu.quota", "must be at least 1000, or -1");
	if (period > 0 && period < 1000)
		return bad(o->e, RES ".cpu.period", "must be 1000 to 1000000");
	r->cpu_shares = shares > 0 ? shares : -1;
	r->cpu_quota = quota > 0 ? quota : -1;
	r->cpu_period = period > 0 ? period : -1;
	return cpu_list(cpu, "cpus", &r->cpuset_cpus, o) < 0 ||
			       cpu_list(cpu, "mems", &r->cpuset_mems, o) < 0
		       ? -1
		       : 0;
}

static int res_blkio(const json_t *res, struct oci *o)
{
	static const char *const refused[] = {"leafWeight",
					      "weightDevice",
					      "throttleReadBpsDevice",
					      "throttleWriteBpsDevice",
					      "throttleReadIOPSDevice",
					      "throttleWriteIOPSDevice",
					      NULL};
	long long weight = 0;
	json_t *blk;

	int got = get_obj(res, "blockIO", RES, &blk, o->e);

	if (got <= 0)
		return got;
	if (get_int(blk, "weight", RES ".blockIO", 0, 1000, &weight, o->e) < 0 ||
	    unsupported(blk, RES ".blockIO", refused, o->e) < 0)
		return -1;
	if (weight > 0 && weight < 10)
		return bad(o->e, RES ".blockIO.weight", "must be 10 to 1000");
	o->s->res.blkio_weight = weight > 0 ? weight : -1;
	return 0;
}

/* A cgroup v2 file name: "controller.file", nothing to climb out by. */
static bool valid_unified_key(const char *k)
{
	return k[0] != '.' && strchr(k, '.') != NULL && strchr(k, '/') == NULL &&
	       strstr(k, "..") == NULL;
}

/* KEY = VALUE strings of OBJ (OBJ at PATH) into *KV. */
static int kv_of(const json_t *obj, const char *path, bool (*valid)(const char *),
		 struct jail_sysctl **kv, size_t *n, struct cell_err *e)
{
	char p[JPATH];
	const char *k;
	json_t *v;

	if (json_object_size(obj) > MAX_LIST)
		return bad(e, path, "more than %d entries", MAX_LIST);
	*kv = calloc(json_object_size(obj) + 1, sizeof(**kv));
	if (*kv == NULL)
		return nomem(e, path);
	json_object_foreach((json_t *)obj, k, v)
	{
		jkey(p, path, k);
		if (!valid(k))
			return bad(e, path, "%s: not a valid name", k);
		if (!json_is_string(v))
			return bad(e, p, "must be a string");
		(*kv)[*n].key = strdup(k);
		(*kv)[*n].value = strdup(json_string_value(v));
		(*n)++;
		if ((*kv)[*n - 1].key == NULL || (*kv)[*n - 1].value == NULL)
			return nomem(e, p);
	}
	return 0;
}

static int res_unified(const json_t *res, struct oci *o)
{
	json_t *u;

	int got = get_obj(res, "unified", RES, &u, o->e);

	if (got <= 0)
		return got;
	return kv_of(u, RES ".unified", valid_unified_key, &o->s->res.unified, &o->s->res.nunified,
		     o->e);
}

static int parse_resources(struct oci *o)
{
	/* Controllers cell's backends do not drive. */
	static const char *const refused[] = {"hugepageLimits", "network", "rdma", NULL};
	json_t *res;

	int got = get_obj(o->lx, "resources", "linux", &res, o->e);

	if (got <= 0)
		return got;
	if (parse_device_rules(res, o) < 0 || res_memory(res, o) < 0 || res_pids(res, o) < 0 ||
	    res_cpu(res, o) < 0 || res_blkio(res, o) < 0 || res_unified(res, o) < 0)
		return -1;
	return unsupported(res, RES, refused, o->e);
}

/* ---- linux: the rest ---------------------------------------------- */

/* A sysctl name: words of [A-Za-z0-9_-] and a few more, between dots or
 * slashes, none empty: no "..", nothing to climb out of /proc/sys by. */
static bool valid_sysctl_key(const char *k)
{
	size_t word = 0;

	if (*k == '\0')
		return false;
	for (; *k != '\0'; k++) {
		if (*k == '.' || *k == '/') {
			if (word == 0)
				return false;
			word = 0;
		} else if (isalnum((unsigned char)*k) || strchr("_-@:+", *k) != NULL) {
			word++;
		} else {
			return false;
		}
	}
	return word > 0;
}

static int parse_sysctl(struct oci *o)
{
	json_t *obj;

	int got = get_obj(o->lx, "sysctl", "linux", &obj, o->e);

	if (got <= 0)
		return got;
	return kv_of(obj, "linux.sysctl", valid_sysctl_key, &o->s->mech.sysctls,
		     &o->s->mech.nsysctls, o->e);
}

/* maskedPaths or readonlyPaths: absolute paths, cleaned, heap copies. */
static int path_list(const json_t *lx, const char *key, const char *const **out, size_t *n,
		     struct cell_err *e)
{
	char path[JPATH], p[JPATH];
	json_t *arr, *v;
	char **list;
	size_t i;

	int got = get_arr(lx, key, "linux", &arr, e);

	if (got <= 0)
		return got;
	jkey(path, "linux", key);
	list = calloc(json_array_size(arr) + 1, sizeof(*list));
	if (list == NULL)
		return nomem(e, path);
	*out = (const char *const *)list;
	json_array_foreach(arr, i, v)
	{
		const char *s = json_string_value(v);

		jidx(p, path, i);
		if (s == NULL || s[0] != '/')
			return bad(e, p, "must be an absolute path");
		list[i] = clean_path(s);
		if (list[i] == NULL)
			return nomem(e, p);
		*n = i + 1;
	}
	return 0;
}

static int parse_propagation(struct oci *o)
{
	const struct name_val *t;
	const char *v;

	if (get_str(o->lx, "rootfsPropagation", "linux", &v, o->e) < 0)
		return -1;
	if (v == NULL || *v == '\0')
		return 0;
	t = LOOKUP(propagations, v);
	if (t == NULL)
		return bad(o->e, "linux.rootfsPropagation",
			   "%s: expected private, slave, shared or unbindable (r...: recursive)",
			   v);
	o->s->mech.root_propagation = t->val;
	return 0;
}

static int parse_personality(struct oci *o)
{
	static const char *const refused[] = {"flags", NULL};
	const char *domain;
	json_t *per;

	int got = get_obj(o->lx, "personality", "linux", &per, o->e);

	if (got <= 0)
		return got;
	if (want_str(per, "domain", "linux.personality", &domain, o->e) < 0 ||
	    unsupported(per, "linux.personality", refused, o->e) < 0)
		return -1;
	if (strcmp(domain, "LINUX") == 0)
		o->s->mech.personality = PER_LINUX;
	else if (strcmp(domain, "LINUX32") == 0)
		o->s->mech.personality = PER_LINUX32;
	else
		return bad(o->e, "linux.personality.domain", "%s: expected LINUX or LINUX32",
			   domain);
	o->s->mech.has_personality = true;
	return 0;
}

/* timeOffsets: the monotonic and boottime clocks of a new time
 * namespace, {"secs", "nanosecs"} each. */
static int parse_time_offsets(struct oci *o)
{
	static const char *const clocks[] = {"monotonic", "boottime"};
	struct jail_mechanisms *m = &o->s->mech;
	json_t *offs;
	int got = get_obj(o->lx, "timeOffsets", "linux", &offs, o->e);

	if (got <= 0 || json_object_size(offs) == 0)
		return got < 0 ? -1 : 0;
	if (!(m->ns_new & CLONE_NEWTIME))
		return bad(o->e, "linux.timeOffsets",
			   "needs a new time namespace (linux.namespaces)");
	for (size_t i = 0; i < 2; i++) {
		char p[JPATH];
		long long secs = 0, nsecs = 0;
		json_t *c;

		jkey(p, "linux.timeOffsets", clocks[i]);
		got = get_obj(offs, clocks[i], "linux.timeOffsets", &c, o->e);
		if (got < 0 ||
		    (got > 0 && (get_int(c, "secs", p, -(1LL << 40), 1LL << 40, &secs, o->e) < 0 ||
				 get_int(c, "nanosecs", p, 0, 999999999, &nsecs, o->e) < 0)))
			return -1;
		m->time_offsets[i].secs = secs;
		m->time_offsets[i].nanosecs = (long)nsecs;
	}
	m->has_time_offsets = true;
	return 0;
}

/* cgroupsPath: every OCI container has cgroups; no "." or ".." in it,
 * so that it stays inside the hierarchy. */
static int parse_cgroups_path(struct oci *o)
{
	const char *v, *c;

	o->s->cgroup_always = true;
	if (get_str(o->lx, "cgroupsPath", "linux", &v, o->e) < 0)
		return -1;
	if (v == NULL || *v == '\0')
		return 0;
	for (c = v; *c != '\0';) {
		size_t n = strcspn(c, "/");

		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return bad(o->e, "linux.cgroupsPath", "%s: no \".\" or \"..\" allowed", v);
		c += n;
		c += strspn(c, "/");
	}
	return dup_into(&o->s->cgroup_path, v, "linux.cgroupsPath", o->e);
}

static int parse_linux(struct oci *o)
{
	/* resctrl, time offsets, network devices moved in and NUMA policy:
	 * not implemented.  mountLabel is SELinux's, ignored where SELinux
	 * is off, as runc ignores it. */
	static const char *const refused[] = {"intelRdt", "netDevices", "memoryPolicy", NULL};
	struct jail_mechanisms *m = &o->s->mech;

	if (parse_namespaces(o) < 0 || parse_userns(o) < 0 || parse_rootless(o) < 0 ||
	    parse_devices(o) < 0 || parse_resources(o) < 0 || parse_sysctl(o) < 0 ||
	    path_list(o->lx, "maskedPaths", &m->masked, &m->nmasked, o->e) < 0 ||
	    path_list(o->lx, "readonlyPaths", &m->readonly, &m->nreadonly, o->e) < 0 ||
	    parse_propagation(o) < 0 || parse_personality(o) < 0 || parse_cgroups_path(o) < 0 ||
	    parse_time_offsets(o) < 0)
		return -1;
	return unsupported(o->lx, "linux", refused, o->e);
}

/* ---- mounts ------------------------------------------------------- */

static bool refused_option(const char *opt)
{
	for (size_t i = 0; i < sizeof(mount_refused) / sizeof(mount_refused[0]); i++)
		if (strcmp(mount_refused[i], opt) == 0)
			return true;
	return false;
}

/* Appends OPT to the mount's filesystem data ("mode=755,size=64k"). */
static int add_data(struct jail_mount *mnt, const char *opt, const char *path, struct cell_err *e)
{
	size_t old = mnt->data != NULL ? strlen(mnt->data) : 0;
	char *grown = realloc(mnt->data, old + strlen(opt) + 2);

	if (grown == NULL)
		return nomem(e, path);
	if (old > 0)
		grown[old++] = ',';
	strcpy(grown + old, opt);
	mnt->data = grown;
	return 0;
}

/* One option: a flag, a propagation, idmap, tmpcopyup, or the
 * filesystem's data.  *IDMAP: "idmap" or "ridmap" was given. */
static int mount_option(struct jail_mount *mnt, const char *opt, const char *path, bool *idmap,
			struct cell_err *e)
{
	const struct name_val *prop = LOOKUP(propagations, opt);

	for (size_t i = 0; i < NMOUNT_FLAGS; i++)
		if (strcmp(mount_flags[i].name, opt) == 0) {
			mnt->flags = (mnt->flags & ~mount_flags[i].clear) | mount_flags[i].set;
			mnt->clear = (mnt->clear & ~mount_flags[i].set) | mount_flags[i].clear;
			return 0;
		}
	if (prop != NULL) {
		mnt->propagation = prop->val;
		return 0;
	}
	if (strcmp(opt, "idmap") == 0 || strcmp(opt, "ridmap") == 0) {
		*idmap = true;
		return 0;
	}
	if (strcmp(opt, "tmpcopyup") == 0) {
		mnt->tmpcopyup = true;
		return 0;
	}
	if (refused_option(opt))
		return bad(e, path, "%s: not supported by cell", opt);
	return *opt == '\0' ? 0 : add_data(mnt, opt, path, e);
}

static int mount_options(const json_t *v, const char *path, struct jail_mount *mnt, bool *idmap,
			 struct cell_err *e)
{
	char p[JPATH], ip[JPATH];
	json_t *arr, *opt;
	size_t i;

	if (get_arr(v, "options", path, &arr, e) < 0)
		return -1;
	jkey(p, path, "options");
	json_array_foreach(arr, i, opt)
	{
		jidx(ip, p, i);
		if (!json_is_string(opt))
			return bad(e, ip, "must be a string");
		if (mount_option(mnt, json_string_value(opt), ip, idmap, e) < 0)
			return -1;
	}
	return 0;
}

/* The id maps of an idmapped bind: its own, or with "idmap" alone the
 * container's user namespace's. */
static int mount_idmap(const json_t *v, const char *path, struct jail_mount *mnt, bool idmap,
		       struct oci *o)
{
	const struct jail_mechanisms *m = &o->s->mech;
	int given = idmap_pair(v, path, &mnt->uid_map, &mnt->nuid_map, &mnt->gid_map,
			       &mnt->ngid_map, o->e);

	if (given < 0)
		return -1;
	if (!given && !idmap)
		return 0;
	if (!(mnt->flags & MS_BIND))
		return bad(o->e, path, "an idmapped mount must be a bind");
	if (given)
		return 0;
	if (m->nuid_map == 0)
		return bad(o->e, path, "idmap needs uidMappings here or in linux");
	mnt->uid_map = malloc(m->nuid_map * sizeof(*m->uid_map));
	mnt->gid_map = malloc(m->ngid_map * sizeof(*m->gid_map));
	if (mnt->uid_map == NULL || mnt->gid_map == NULL)
		return nomem(o->e, path);
	memcpy(mnt->uid_map, m->uid_map, m->nuid_map * sizeof(*m->uid_map));
	memcpy(mnt->gid_map, m->gid_map, m->ngid_map * sizeof(*m->gid_map));
	mnt->nuid_map = m->nuid_map;
	mnt->ngid_map = m->ngid_map;
	return 0;
}

/* The destination, absolute: runc takes a relative one as relative to
 * "/" (and warns), and so does cell. */
static int mount_destination(const json_t *v, const char *path, struct jail_mount *mnt,
			     struct cell_err *e)
{
	char p[JPATH];
	const char *dst;
	cleanup_free char *rooted = NULL;

	if (want_str(v, "destination", path, &dst, e) < 0)
		return -1;
	jkey(p, path, "destination");
	if (asprintf(&rooted, "/%s", dst) < 0) {
		rooted = NULL;
		return nomem(e, p);
	}
	mnt->destination = clean_path(rooted);
	return mnt->destination == NULL ? nomem(e, p) : 0;
}

static int one_mount(const json_t *v, const char *path, struct jail_mount *mnt, struct oci *o)
{
	const char *type, *source;
	bool idmap = false;
	char p[JPATH];

	if (!json_is_object(v))
		return bad(o->e, path, "must be an object");
	if (mount_destination(v, path, mnt, o->e) < 0 ||
	    get_str(v, "type", path, &type, o->e) < 0 ||
	    get_str(v, "source", path, &source, o->e) < 0 ||
	    mount_options(v, path, mnt, &idmap, o->e) < 0)
		return -1;
	/* A bind is type "bind" or a bind option with any type ("none"). */
	if (type != NULL && strcmp(type, "bind") == 0)
		mnt->flags |= MS_BIND;
	if (mnt->flags & MS_BIND) {
		type = "bind";
		if (source == NULL || *source == '\0')
			return bad(o->e, jkey(p, path, "source"), "required for a bind");
		if (bundle_path(o->bundle, source, &mnt->source, path, o->e) < 0)
			return -1;
	} else {
		if (type == NULL || *type == '\0')
			return bad(o->e, jkey(p, path, "type"), "required (or a bind option)");
		if (source != NULL && dup_into(&mnt->source, source, path, o->e) < 0)
			return -1;
	}
	if (dup_into(&mnt->type, type, path, o->e) < 0)
		return -1;
	return mount_idmap(v, path, mnt, idmap, o);
}

static int parse_mounts(const json_t *cfg, struct oci *o)
{
	struct jail_mechanisms *m = &o->s->mech;
	char path[JPATH];
	json_t *arr, *v;
	size_t i;

	/* The tree is the root and these mounts, none of cell's own. */
	m->mounts_given = true;
	int got = get_arr(cfg, "mounts", "", &arr, o->e);

	if (got <= 0)
		return got;
	m->mounts = calloc(json_array_size(arr) + 1, sizeof(*m->mounts));
	if (m->mounts == NULL)
		return nomem(o->e, "mounts");
	m->nmounts = json_array_size(arr);
	json_array_foreach(arr, i, v)
	{
		if (one_mount(v, jidx(path, "mounts", i), &m->mounts[i], o) < 0)
			return -1;
	}
	return 0;
}

/* ---- hooks -------------------------------------------------------- */

static int one_hook(const json_t *v, const char *path, struct jail_hook *h, struct cell_err *e)
{
	char p[JPATH];
	const char *exe;
	json_t *args, *env;
	long long timeout = 0;
	int r;

	if (!json_is_object(v))
		return bad(e, path, "must be an object");
	if (want_str(v, "path", path, &exe, e) < 0)
		return -1;
	if (exe[0] != '/')
		return bad(e, jkey(p, path, "path"), "%s: must be an absolute path", exe);
	if (dup_into(&h->path, exe, path, e) < 0 || get_arr(v, "args", path, &args, e) < 0 ||
	    get_arr(v, "env", path, &env, e) < 0)
		return -1;
	if (args != NULL && json_array_size(args) > 0 &&
	    strv_of(args, jkey(p, path, "args"), &h->args, NULL, e) < 0)
		return -1;
	if (env != NULL && strv_of(env, jkey(p, path, "env"), &h->env, NULL, e) < 0)
		return -1;
	r = get_int(v, "timeout", path, LLONG_MIN, INT_MAX, &timeout, e);
	if (r > 0 && timeout <= 0)
		return bad(e, jkey(p, path, "timeout"), "must be greater than zero");
	h->timeout = (int)timeout;
	return r < 0 ? -1 : 0;
}

static int parse_hooks(const json_t *cfg, struct oci *o)
{
	struct jail_mechanisms *m = &o->s->mech;
	char parent[JPATH], path[JPATH];
	json_t *hooks, *arr, *v;
	size_t i;

	int got = get_obj(cfg, "hooks", "", &hooks, o->e);

	if (got <= 0)
		return got;
	for (int pt = 0; pt < JAIL_HOOK_NPOINTS; pt++) {
		if (get_arr(hooks, jail_hook_point_names[pt], "hooks", &arr, o->e) < 0)
			return -1;
		if (arr == NULL || json_array_size(arr) == 0)
			continue;
		m->hooks[pt] = calloc(json_array_size(arr), sizeof(*m->hooks[pt]));
		if (m->hooks[pt] == NULL)
			return nomem(o->e, "hooks");
		m->nhooks[pt] = json_array_size(arr);
		jkey(parent, "hooks", jail_hook_point_names[pt]);
		json_array_foreach(arr, i, v)
		{
			if (one_hook(v, jidx(path, parent, i), &m->hooks[pt][i], o->e) < 0)
				return -1;
		}
	}
	return 0;
}

/* ---- seccomp ------------------------------------------------------ */

#define SC "linux.seccomp"

static int seccomp_action(const json_t *obj, const char *key, const char *parent, uint32_t *out,
			  struct cell_err *e)
{
	char p[JPATH];
	const struct name_val *t;
	const char *name;

	if (want_str(obj, key, parent, &name, e) < 0)
		return -1;
	t = LOOKUP(seccomp_actions, name);
	if (t == NULL)
		return bad(e, jkey(p, parent, key), "%s: unknown action", name);
	*out = (uint32_t)t->val;
	return 0;
}

/* An errno for ACTION: meaningful with SCMP_ACT_ERRNO and _TRACE only
 * (elsewhere ignored as runc ignores it); -1 when not given. */
static int seccomp_errno(const json_t *obj, const char *key, const char *parent, uint32_t action,
			 int *out, struct cell_err *e)
{
	long long v = -1;

	*out = -1;
	if (get_int(obj, key, parent, 0, 65535, &v, e) < 0)
		return -1;
	if (action == SCMP_ACT_ERRNO(0) || action == SCMP_ACT_TRACE(0))
		*out = (int)v;
	return 0;
}

static int seccomp_arg(const json_t *v, const char *path, struct jail_seccomp_arg *a,
		       struct cell_err *e)
{
	const struct name_val *t;
	long long index = -1;
	const char *op;
	char p[JPATH];

	if (!json_is_object(v))
		return bad(e, path, "must be an object");
	if (get_int(v, "index", path, 0, 5, &index, e) < 0 ||
	    get_u64(v, "valueTwo", path, &a->value_two, e) < 0 ||
	    want_str(v, "op", path, &op, e) < 0)
		return -1;
	if (index < 0)
		return bad(e, jkey(p, path, "index"), "required");
	if (get_u64(v, "value", path, &a->value, e) <= 0)
		return member(v, "value") == NULL ? bad(e, jkey(p, path, "value"), "required") : -1;
	t = LOOKUP(seccomp_ops, op);
	if (t == NULL)
		return bad(e, jkey(p, path, "op"), "%s: unknown operator", op);
	a->index = (unsigned int)index;
	a->op = (int)t->val;
	return 0;
}

static int seccomp_syscall(const json_t *v, const char *path, struct jail_seccomp_syscall *sc,
			   struct cell_err *e)
{
	char p[JPATH], ap[JPATH];
	json_t *names, *args, *a;
	size_t i;

	if (!json_is_object(v))
		return bad(e, path, "must be an object");
	if (get_arr(v, "names", path, &names, e) < 0 || get_arr(v, "args", path, &args, e) < 0 ||
	    seccomp_action(v, "action", path, &sc->action, e) < 0 ||
	    seccomp_errno(v, "errnoRet", path, sc->action, &sc->errno_ret, e) < 0)
		return -1;
	if (names == NULL || json_array_size(names) == 0)
		return bad(e, jkey(p, path, "names"), "must not be empty");
	if (strv_of(names, jkey(p, path, "names"), &sc->names, NULL, e) < 0)
		return -1;
	if (args == NULL || json_array_size(args) == 0)
		return 0;
	sc->args = calloc(json_array_size(args), sizeof(*sc->args));
	if (sc->args == NULL)
		return nomem(e, path);
	jkey(p, path, "args");
	json_array_foreach(args, i, a)
	{
		if (seccomp_arg(a, jidx(ap, p, i), &sc->args[i], e) < 0)
			return -1;
		sc->nargs = i + 1;
	}
	return 0;
}

static int seccomp_syscalls(const json_t *sec, struct jail_seccomp_rules *r, struct cell_err *e)
{
	char path[JPATH];
	json_t *arr, *v;
	size_t i;

	int got = get_arr(sec, "syscalls", SC, &arr, e);

	if (got <= 0)
		return got;
	r->syscalls = calloc(json_array_size(arr) + 1, sizeof(*r->syscalls));
	if (r->syscalls == NULL)
		return nomem(e, SC ".syscalls");
	r->nsyscalls = json_array_size(arr);
	json_array_foreach(arr, i, v)
	{
		if (seccomp_syscall(v, jidx(path, SC ".syscalls", i), &r->syscalls[i], e) < 0)
			return -1;
	}
	return 0;
}

/* architectures or flags: names of TABLE, into archs or a mask. */
static int seccomp_names(const json_t *sec, const char *key, const struct name_val *table, size_t n,
			 struct jail_seccomp_rules *r, struct cell_err *e)
{
	char path[JPATH], p[JPATH];
	json_t *arr, *v;
	size_t i;
	bool archs = strcmp(key, "architectures") == 0;

	int got = get_arr(sec, key, SC, &arr, e);

	if (got <= 0)
		return got;
	jkey(path, SC, key);
	if (archs && (r->archs = calloc(json_array_size(arr) + 1, sizeof(*r->archs))) == NULL)
		return nomem(e, path);
	json_array_foreach(arr, i, v)
	{
		const char *name = json_string_value(v);
		const struct name_val *t = name != NULL ? lookup(table, n, name) : NULL;

		if (t == NULL)
			return bad(e, jidx(p, path, i), "%s: unknown %s",
				   name ? name : "(not a string)", archs ? "architecture" : "flag");
		if (archs)
			r->archs[r->narchs++] = (uint32_t)t->val;
		else
			r->flags |= (unsigned int)t->val;
	}
	return 0;
}

/* SCMP_ACT_NOTIFY hands calls to a listener: it needs one, and cannot
 * be the default (every call, the listener's own included). */
static int seccomp_notify(const struct jail_seccomp_rules *r, struct cell_err *e)
{
	if (r->default_action == SCMP_ACT_NOTIFY)
		return bad(e, SC ".defaultAction", "SCMP_ACT_NOTIFY cannot be the default action");
	for (size_t i = 0; i < r->nsyscalls; i++)
		if (r->syscalls[i].action == SCMP_ACT_NOTIFY && r->listener_path == NULL)
			return bad(e, SC ".listenerPath", "required with SCMP_ACT_NOTIFY");
	return 0;
}

static int parse_seccomp(struct oci *o)
{
	struct jail_seccomp_rules *r;
	json_t *sec;

	int got = get_obj(o->lx, "seccomp", "linux", &sec, o->e);

	if (got <= 0)
		return got;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return nomem(o->e, SC);
	o->s->mech.seccomp_rules = r;
	o->s->mech.seccomp = JAIL_SECCOMP_RULES;
	if (seccomp_action(sec, "defaultAction", SC, &r->default_action, o->e) < 0 ||
	    seccomp_errno(sec, "defaultErrnoRet", SC, r->default_action, &r->default_errno, o->e) <
		    0 ||
	    seccomp_names(sec, "architectures", seccomp_archs,
			  sizeof(seccomp_archs) / sizeof(seccomp_archs[0]), r, o->e) < 0 ||
	    seccomp_names(sec, "flags", seccomp_flags,
			  sizeof(seccomp_flags) / sizeof(seccomp_flags[0]), r, o->e) < 0 ||
	    get_dup(sec, "listenerPath", SC, &r->listener_path, o->e) < 0 ||
	    get_dup(sec, "listenerMetadata", SC, &r->listener_metadata, o->e) < 0 ||
	    seccomp_syscalls(sec, r, o->e) < 0)
		return -1;
	if (r->listener_path != NULL && r->listener_path[0] != '/')
		return bad(o->e, SC ".listenerPath", "%s: must be an absolute path",
			   r->listener_path);
	return seccomp_notify(r, o->e);
}

/* ---- the whole config --------------------------------------------- */

/* "1.MINOR.PATCH[-suffix]" with MINOR 0 to 3. */
static int parse_version(const json_t *cfg, struct cell_err *e)
{
	const char *v, *p;
	unsigned long minor;
	char *end;

	if (want_str(cfg, "ociVersion", "", &v, e) < 0)
		return -1;
	p = v;
	if (strncmp(p, "1.", 2) != 0 || !isdigit((unsigned char)p[2]))
		goto refused;
	minor = strtoul(p + 2, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		goto refused;
	strtoul(end + 1, &end, 10);
	if ((*end == '\0' || *end == '-' || *end == '+') && minor <= 3)
		return 0;
refused:
	return bad(e, "ociVersion", "%s: cell accepts 1.0.x to 1.3.x", v);
}

/* What an OCI container is, whatever its config says: no jail policy;
 * the payload pid 1; the network the namespaces say. */
static void oci_defaults(struct jail_spec *s)
{
	struct jail_mechanisms *m = &s->mech;

	s->policy = false;
	s->init = false;
	s->net = has_ns(s, CLONE_NEWNET) ? JAIL_NET_NONE : JAIL_NET_HOST;
	m->paths_owned = true;
	m->landlock = 0;
	m->hide_state_root = false;
	m->pin_priority = false;
	m->mask_ssh_host_keys = false;
	if (m->seccomp_rules == NULL)
		m->seccomp = JAIL_SECCOMP_NONE;
}

static int parse_config(const json_t *cfg, struct oci *o)
{
	json_t *proc, *lx;

	o->s->mech.paths_owned = true; /* before anything is put in them */
	if (!json_is_object(cfg))
		return cell_err_set(o->e, 0, "not a JSON object");
	if (parse_version(cfg, o->e) < 0 || get_obj(cfg, "linux", "", &lx, o->e) < 0 ||
	    get_obj(cfg, "process", "", &proc, o->e) < 0)
		return -1;
	if (proc == NULL)
		return bad(o->e, "process", "required");
	o->lx = lx;
	if (oci_process_parse(proc, &o->s->proc, o->e) < 0 || parse_root(cfg, o) < 0 ||
	    parse_linux(o) < 0 || parse_seccomp(o) < 0 || parse_uts(cfg, o) < 0 ||
	    parse_mounts(cfg, o) < 0 || parse_hooks(cfg, o) < 0)
		return -1;
	oci_defaults(o->s);
	return 0;
}

/* Whether TEXT[I] begins an unsigned integer token (not part of a
 * number, a name or a string: the caller skips strings). */
static bool number_starts(const char *text, size_t i)
{
	return isdigit((unsigned char)text[i]) &&
	       (i == 0 || strchr("-+.eE0123456789", text[i - 1]) == NULL);
}

/*
 * TEXT with every unsigned integer too large for json_int_t (and not
 * larger than 2^64-1) written as a string, "\u0001" and its digits,
 * that get_u64() reads back.  NULL when out of memory.
 */
static char *big_ints(const char *text, size_t len, size_t *outlen)
{
	char *out = malloc(len + len / 2 + 16);
	bool in_str = false;
	size_t o = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = 0;

		if (in_str && text[i] == '\\' && i + 1 < len) {
			out[o++] = text[i++]; /* an escape: the next byte is no quote */
			out[o++] = text[i++];
			continue;
		}
		if (in_str || !number_starts(text, i)) {
			in_str ^= text[i] == '"';
			out[o++] = text[i++];
			continue;
		}
		while (i + n < len && isdigit((unsigned char)text[i + n]))
			n++;
		if ((n == 19 && memcmp(text + i, "9223372036854775807", 19) > 0) ||
		    (n == 20 && memcmp(text + i, "18446744073709551615", 20) <= 0)) {
			o += (size_t)sprintf(out + o, "\"\\u0001%.*s\"", (int)n, text + i);
		} else {
			memcpy(out + o, text + i, n);
			o += n;
		}
		i += n;
	}
	*outlen = o;
	return out;
}

/* The JSON of TEXT: a malformed text is "config.json:LINE:COL: ...". */
static json_t *load_json(const char *text, size_t len, struct cell_err *e)
{
	json_error_t jerr;
	json_t *j = json_loadb(text, len, 0, &jerr);

	if (j == NULL && json_error_code(&jerr) == json_error_numeric_overflow) {
		size_t n;
		cleanup_free char *wide = big_ints(text, len, &n);

		if (wide == NULL) {
			cell_err_set(e, ENOMEM, "config.json");
			return NULL;
		}
		j = json_loadb(wide, n, 0, &jerr);
	}
	if (j == NULL)
		cell_err_set(e, 0, "config.json:%d:%d: %s", jerr.line, jerr.column, jerr.text);
	return j;
}

int oci_config_parse(const char *text, size_t len, const char *bundle, struct jail_spec *s,
		     struct cell_err *e)
{
	json_t *cfg;

	if (oci_config_parse_keep(text, len, bundle, s, &cfg, e) < 0)
		return -1;
	json_decref(cfg);
	return 0;
}

int oci_config_parse_keep(const char *text, size_t len, const char *bundle, struct jail_spec *s,
			  json_t **config, struct cell_err *e)
{
	struct oci o = {bundle, s, NULL, e};
	json_t *cfg = load_json(text, len, e);

	*config = NULL;
	if (cfg == NULL)
		return -1;
	if (parse_config(cfg, &o) < 0) {
		json_decref(cfg);
		return cell_err_prefix(e, "config.json");
	}
	*config = cfg;
	return 0;
}

int oci_config_load(const char *bundle, const char *id, struct jail_spec *s, struct cell_err *e)
{
	cleanup_free char *dir = realpath(bundle, NULL);
	cleanup_free char *text = NULL;
	cleanup_close int fd = -1;
	size_t len;

	if (dir == NULL)
		return cell_err_set(e, errno, "bundle %s", bundle);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cell_err_set(e, errno, "bundle %s", dir);
	/* The engine writes the config; a symlink or a FIFO in its place
	 * is refused all the same. */
	if (untrusted_read(fd, "config.json", UNTRUSTED_NOFOLLOW, OCI_CONFIG_MAX, &text, &len, e) <
	    0)
		return cell_err_prefix(e, "bundle %s", dir);
	if (oci_config_parse(text, len, dir, s, e) < 0)
		return -1;
	return dup_into(&s->name, id, "name", e);
}

/* ---- the default config and the features -------------------------- */

/* A mount of the default config; OPTS comma-separated, NULL: none. */
static json_t *default_mount(const char *dst, const char *type, const char *src, const char *opts)
{
	json_t *m = json_pack("{s:s, s:s, s:s}", "destination", dst, "type", type, "source", src);
	json_t *arr = opts != NULL ? json_array() : NULL;

	if (m == NULL || (opts != NULL && arr == NULL))
		goto fail;
	for (const char *o = opts; o != NULL && *o != '\0';) {
		size_t n = strcspn(o, ",");

		if (json_array_append_new(arr, json_stringn(o, n)) < 0)
			goto fail;
		o += n + (o[n] == ',');
	}
	if (arr != NULL && json_object_set_new(m, "options", arr) < 0) {
		arr = NULL;
		goto fail;
	}
	return m;
fail:
	json_decref(arr);
	json_decref(m);
	return NULL;
}

static json_t *default_mounts(bool rootless)
{
	/* Without a user namespace of the host's, sysfs cannot be mounted
	 * afresh: the host's is bound, read-only. */
	return json_pack(
		"[o, o, o, o, o, o, o]", default_mount("/proc", "proc", "proc", NULL),
		default_mount("/dev", "tmpfs", "tmpfs", "nosuid,strictatime,mode=755,size=65536k"),
		default_mount("/dev/pts", "devpts", "devpts",
			      rootless ? "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620"
				       : "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620,gid=5"),
		default_mount("/dev/shm", "tmpfs", "shm",
			      "nosuid,noexec,nodev,mode=1777,size=65536k"),
		default_mount("/dev/mqueue", "mqueue", "mqueue", "nosuid,noexec,nodev"),
		rootless ? default_mount("/sys", "none", "/sys", "rbind,nosuid,noexec,nodev,ro")
			 : default_mount("/sys", "sysfs", "sysfs", "nosuid,noexec,nodev,ro"),
		default_mount("/sys/fs/cgroup", "cgroup", "cgroup",
			      "nosuid,noexec,nodev,relatime,ro"));
}

static json_t *default_caps(void)
{
	return json_pack("[s, s, s]", "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE");
}

static json_t *default_process(void)
{
	/* No inheritable or ambient capabilities (CVE-2022-27650). */
	json_t *caps = json_pack("{s:o, s:o, s:o}", "bounding", default_caps(), "effective",
				 default_caps(), "permitted", default_caps());

	return json_pack("{s:b, s:{s:i, s:i}, s:[s], s:[s, s], s:s, s:o, s:[{s:s, s:i, s:i}], s:b}",
			 "terminal", 1, "user", "uid", 0, "gid", 0, "args", "sh", "env",
			 "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			 "TERM=xterm", "cwd", "/", "capabilities", caps, "rlimits", "type",
			 "RLIMIT_NOFILE", "hard", 1024, "soft", 1024, "noNewPrivileges", 1);
}

static json_t *default_linux(bool rootless)
{
	json_t *lx = json_pack(
		"{s:[s, s, s, s, s, s, s, s, s, s, s], s:[s, s, s, s, s]}", "maskedPaths",
		"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
		"/sys/devices/virtual/powercap", "/proc/scsi", "readonlyPaths", "/proc/bus",
		"/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger");

	if (lx == NULL)
		return NULL;
	if (!rootless) {
		if (json_object_set_new(lx, "namespaces",
					json_pack("[{s:s}, {s:s}, {s:s}, {s:s}, {s:s}, {s:s}]",
						  "type", "pid", "type", "network", "type", "ipc",
						  "type", "uts", "type", "mount", "type",
						  "cgroup")) < 0 ||
		    json_object_set_new(lx, "resources",
					json_pack("{s:[{s:b, s:s}]}", "devices", "allow", 0,
						  "access", "rwm")) < 0)
			goto fail;
		return lx;
	}
	/* runc's changes for a rootless bundle: no network namespace (an
	 * unprivileged user could not set one up, and sysfs is then the
	 * host's, bound), a user namespace whose root is the caller's
	 * effective ids, the one mapping an unprivileged user may write
	 * without newuidmap, and no resources (no cgroup to write). */
	if (json_object_set_new(lx, "namespaces",
				json_pack("[{s:s}, {s:s}, {s:s}, {s:s}, {s:s}, {s:s}]", "type",
					  "pid", "type", "ipc", "type", "uts", "type", "mount",
					  "type", "cgroup", "type", "user")) < 0 ||
	    json_object_set_new(lx, "uidMappings",
				json_pack("[{s:i, s:I, s:i}]", "containerID", 0, "hostID",
					  (json_int_t)geteuid(), "size", 1)) < 0 ||
	    json_object_set_new(lx, "gidMappings",
				json_pack("[{s:i, s:I, s:i}]", "containerID", 0, "hostID",
					  (json_int_t)getegid(), "size", 1)) < 0)
		goto fail;
	return lx;
fail:
	json_decref(lx);
	return NULL;
}

json_t *oci_config_default(bool rootless)
{
	return json_pack("{s:s, s:o, s:{s:s, s:b}, s:s, s:o, s:o}", "ociVersion", OCI_VERSION,
			 "process", default_process(), "root", "path", "rootfs", "readonly", 1,
			 "hostname", "cell", "mounts", default_mounts(rootless), "linux",
			 default_linux(rootless));
}

static json_t *names_of(const struct name_val *t, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr != NULL && i < n; i++)
		if (json_array_append_new(arr, json_string(t[i].name)) < 0) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}

#define NAMES_OF(table) names_of(table, sizeof(table) / sizeof(table[0]))

/* Every option mount_option() takes, but the filesystems' data. */
static json_t *mount_option_names(void)
{
	json_t *arr = NAMES_OF(propagations);
	const char *more[] = {"idmap", "ridmap", "tmpcopyup"};

	for (size_t i = 0; arr != NULL && i < NMOUNT_FLAGS + 3; i++) {
		const char *n = i < NMOUNT_FLAGS ? mount_flags[i].name : more[i - NMOUNT_FLAGS];

		if (json_array_append_new(arr, json_string(n)) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *string_array(const char *const *v, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr != NULL && i < n; i++)
		if (v[i] != NULL && json_array_append_new(arr, json_string(v[i])) < 0) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}

static json_t *features_seccomp(void)
{
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:o}", "enabled", 1, "actions",
			 NAMES_OF(seccomp_actions), "operators", NAMES_OF(seccomp_ops), "archs",
			 NAMES_OF(seccomp_archs), "knownFlags", NAMES_OF(seccomp_flags),
			 "supportedFlags", NAMES_OF(seccomp_flags));
}

static json_t *features_linux(void)
{
	return json_pack("{s:o, s:o, s:{s:b, s:b, s:b, s:b}, s:o, s:{s:b}, s:{s:b}, s:{s:b}, "
			 "s:{s:{s:b}}}",
			 "namespaces", NAMES_OF(ns_types), "capabilities",
			 string_array(cap_names, NCAPS), "cgroup", "v1", 1, "v2", 1, "systemd", 0,
			 "systemdUser", 0, "seccomp", features_seccomp(), "apparmor", "enabled", 1,
			 "selinux", "enabled", 1, "intelRdt", "enabled", 0, "mountExtensions",
			 "idmap", "enabled", 1);
}

json_t *oci_features(void)
{
	char seccomp_version[32];

	snprintf(seccomp_version, sizeof(seccomp_version), "%d.%d.%d", SCMP_VER_MAJOR,
		 SCMP_VER_MINOR, SCMP_VER_MICRO);
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:{s:s, s:s}}", "ociVersionMin", "1.0.0",
			 "ociVersionMax", "1.3.0", "hooks",
			 string_array(jail_hook_point_names, JAIL_HOOK_NPOINTS), "mountOptions",
			 mount_option_names(), "linux", features_linux(), "annotations",
			 "io.github.seccomp.libseccomp.version", seccomp_version,
			 "run.cell.version", CELL_VERSION);
}
