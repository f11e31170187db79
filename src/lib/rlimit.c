/*
 * rlimit.c - rlimits and nice value of a jail (the seed's "slice" and
 * exec keywords).
 *
 * Hard and soft limits are set equal, except RLIMIT_CPU, whose soft limit
 * sends SIGXCPU one second before the hard limit's SIGKILL.  Without
 * CAP_SYS_RESOURCE (dropped by the policy) no process of the jail can
 * raise a hard limit again.
 */
#include "rlimit.h"

#include <linux/capability.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <errno.h>
#include <sys/resource.h>

#include "param.h"
#include "process.h"

struct limit_map {
	int resource;
	int param;     /* enum param_id: what an error is about */
	size_t offset; /* of the value in struct jail_limits */
};

#define LIMIT(res, param, field)                                                                   \
	{                                                                                          \
		res, param, offsetof(struct jail_limits, field)                                    \
	}

static const struct limit_map limits[] = {
	LIMIT(RLIMIT_CPU, PARAM_CPU_TIME, cpu_time),
	LIMIT(RLIMIT_MEMLOCK, PARAM_MEMLOCK, memlock),
	LIMIT(RLIMIT_DATA, PARAM_DATA, data),
	LIMIT(RLIMIT_NOFILE, PARAM_NOFILE, nofile),
};

static long long value_of(const struct jail_spec *s, const struct limit_map *m)
{
	return *(const long long *)((const char *)&s->limits + m->offset);
}

static struct rlimit wanted(const struct limit_map *m, long long v)
{
	struct rlimit r = {(rlim_t)v, (rlim_t)v};

	if (m->resource == RLIMIT_CPU)
		r.rlim_max = (rlim_t)v + 1;
	return r;
}

int rlimit_check(const struct jail_spec *s, struct cell_err *e)
{
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		long long v = value_of(s, &limits[i]);
		struct rlimit now, want;

		if (v < 0)
			continue;
		if (getrlimit(limits[i].resource, &now) < 0)
			return cell_err_param(e, limits[i].param, 0, errno, "%s", "");
		want = wanted(&limits[i], v);
		if (now.rlim_max != RLIM_INFINITY && want.rlim_max > now.rlim_max)
			return cell_err_param(e, limits[i].param, 0, 0,
					      "above cell's own hard limit %llu (raising it needs "
					      "CAP_SYS_RESOURCE)",
					      (unsigned long long)now.rlim_max);
	}
	return 0;
}

int rlimit_apply(const struct jail_spec *s, struct cell_err *e)
{
	struct rlimit none = {0, 0}, nice_lim;

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		long long v = value_of(s, &limits[i]);
		struct rlimit r;

		if (v < 0)
			continue;
		r = wanted(&limits[i], v);
		if (setrlimit(limits[i].resource, &r) < 0)
			return cell_err_param(e, limits[i].param, 0, errno, "%s", "");
	}
	if (s->limits.has_nice && setpriority(PRIO_PROCESS, 0, (int)s->limits.nice) < 0)
		return cell_err_param(e, PARAM_NICE, 0, errno, "%s", "");
	/* The process's own (an OCI process.rlimits), after the jail's. */
	if (process_set_limits(&s->proc, e) < 0)
		return -1;
	if (!s->mech.pin_priority)
		return 0;
	/* No realtime class, and no nice value below the start one: with
	 * CAP_SYS_NICE dropped these rlimits are the only way up. */
	if (setrlimit(RLIMIT_RTPRIO, &none) < 0)
		return cell_err_set(e, errno, "set RLIMIT_RTPRIO");
	if (getrlimit(RLIMIT_NICE, &nice_lim) < 0)
		return cell_err_set(e, errno, "read RLIMIT_NICE");
	{
		int start = s->limits.has_nice ? (int)s->limits.nice : getpriority(PRIO_PROCESS, 0);
		rlim_t ceiling = (rlim_t)(20 - start); /* the lowest nice allowed is 20 - rlim */

		if (nice_lim.rlim_max == RLIM_INFINITY || nice_lim.rlim_max > ceiling)
			nice_lim.rlim_max = ceiling;
		nice_lim.rlim_cur = nice_lim.rlim_max;
		if (setrlimit(RLIMIT_NICE, &nice_lim) < 0)
			return cell_err_set(e, errno, "set RLIMIT_NICE");
	}
	return 0;
}

/* CAP_SYS_RESOURCE in cell's effective set: needed to raise a hard limit. */
static bool have_sys_resource(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return d[CAP_SYS_RESOURCE / 32].effective & (1U << (CAP_SYS_RESOURCE % 32));
}

int rlimit_update_pid(pid_t pid, const struct jail_limits *old, const struct jail_limits *new,
		      bool dry_run, struct cell_err *e)
{
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		long long was = *(const long long *)((const char *)old + limits[i].offset);
		long long v = *(const long long *)((const char *)new + limits[i].offset);
		struct rlimit r, cur;

		if (v == was)
			continue;
		if (v < 0)
			return cell_err_param(e, limits[i].param, 0, 0,
					      "cannot be unset in a running jail");
		r = wanted(&limits[i], v);
		if (prlimit(pid, limits[i].resource, NULL, &cur) < 0) {
			if (errno == ESRCH)
				continue; /* ended meanwhile */
			return cell_err_param(e, limits[i].param, 0, errno, "the jail's pid %d",
					      (int)pid);
		}
		/* A lowered hard limit cannot be raised back without
		 * CAP_SYS_RESOURCE: every process is checked (a write of its
		 * own values tests the permission) before any changes. */
		if (dry_run) {
			if (r.rlim_max > cur.rlim_max && !have_sys_resource())
				return cell_err_param(
					e, limits[i].param, 0, 0,
					"above the hard limit %llu of the jail's pid %d "
					"(raising it needs CAP_SYS_RESOURCE)",
					(unsigned long long)cur.rlim_max, (int)pid);
			r = cur;
		}
		if (prlimit(pid, limits[i].resource, &r, NULL) < 0 && errno != ESRCH)
			return cell_err_param(e, limits[i].param, 0, errno, "the jail's pid %d",
					      (int)pid);
	}
	return 0;
}
