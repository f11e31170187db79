/*
 * oci_update.c - `cell-oci update`: new resource limits for a created,
 * running or paused container, from flags or an OCI LinuxResources
 * object (-r FILE, "-" for stdin, as containerd sends it), written to its
 * cgroups (oci_ops.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "oci.h"
#include "oci_ops.h"
#include "spec.h"

static const char update_usage[] =
	"Usage: cell-oci update [OPTIONS] CONTAINER-ID\n"
	"\n"
	"Change the resource limits of a container (its cgroups), live.  Sizes take\n"
	"k, m, g, t (powers of 1024).  A flag wins over the same limit in -r.\n"
	"\n"
	"  -r, --resources FILE        an OCI linux.resources object (\"-\": stdin)\n"
	"      --memory SIZE           memory limit\n"
	"      --memory-swap SIZE      memory plus swap (needs --memory)\n"
	"      --memory-reservation SIZE  soft limit\n"
	"      --pids-limit N          maximum number of tasks\n"
	"      --cpu-quota US          CPU time per period, microseconds\n"
	"      --cpu-period US         the period, microseconds\n"
	"      --cpu-share N           relative CPU weight (also --cpu-shares)\n"
	"      --cpuset-cpus LIST      CPUs allowed (0-3,5)\n"
	"      --cpuset-mems LIST      memory nodes allowed\n"
	"      --blkio-weight N        block I/O weight, 10..1000\n"
	"  -h, --help                  show this help\n";

enum {
	OPT_MEMORY = 256,
	OPT_SWAP,
	OPT_RESERVATION,
	OPT_PIDS,
	OPT_QUOTA,
	OPT_PERIOD,
	OPT_SHARES,
	OPT_CPUS,
	OPT_MEMS,
	OPT_BLKIO,
};

static const struct option update_opts[] = {
	{"resources", required_argument, NULL, 'r'},
	{"memory", required_argument, NULL, OPT_MEMORY},
	{"memory-swap", required_argument, NULL, OPT_SWAP},
	{"memory-reservation", required_argument, NULL, OPT_RESERVATION},
	{"pids-limit", required_argument, NULL, OPT_PIDS},
	{"cpu-quota", required_argument, NULL, OPT_QUOTA},
	{"cpu-period", required_argument, NULL, OPT_PERIOD},
	{"cpu-share", required_argument, NULL, OPT_SHARES},
	{"cpu-shares", required_argument, NULL, OPT_SHARES},
	{"cpuset-cpus", required_argument, NULL, OPT_CPUS},
	{"cpuset-mems", required_argument, NULL, OPT_MEMS},
	{"blkio-weight", required_argument, NULL, OPT_BLKIO},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* What was asked: the limits, and the memory+swap total (OCI's swap). */
struct update {
	struct jail_spec s; /* limits and res only */
	long long memswap;
};

/* A positive integer member KEY of OBJ into *OUT; absent or null: kept. */
static int json_number(const struct oci_global *g, const json_t *obj, const char *path,
		       const char *key, long long *out)
{
	const json_t *v = json_object_get(obj, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return oci_error(g, "update", "resources: %s.%s: expected an integer >= 0", path,
				 key);
	*out = json_integer_value(v);
	return 0;
}

static int json_text(const struct oci_global *g, const json_t *obj, const char *path,
		     const char *key, char **out)
{
	const json_t *v = json_object_get(obj, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return oci_error(g, "update", "resources: %s.%s: expected a string", path, key);
	free(*out);
	*out = strdup(json_string_value(v));
	return *out == NULL ? oci_error(g, "update", "out of memory") : 0;
}

/* An OCI LinuxResources object (memory, cpu, pids, blockIO). */
static int from_resources(const struct oci_global *g, const json_t *r, struct update *u)
{
	const json_t *mem = json_object_get(r, "memory"), *cpu = json_object_get(r, "cpu");
	const json_t *pids = json_object_get(r, "pids"), *blk = json_object_get(r, "blockIO");
	struct jail_spec *s = &u->s;

	if (!json_is_object(r))
		return oci_error(g, "update", "resources: expected a JSON object");
	if (json_number(g, mem, "memory", "limit", &s->limits.memory) ||
	    json_number(g, mem, "memory", "swap", &u->memswap) ||
	    json_number(g, mem, "memory", "reservation", &s->res.memory_reservation) ||
	    json_number(g, cpu, "cpu", "shares", &s->res.cpu_shares) ||
	    json_number(g, cpu, "cpu", "quota", &s->res.cpu_quota) ||
	    json_number(g, cpu, "cpu", "period", &s->res.cpu_period) ||
	    json_text(g, cpu, "cpu", "cpus", &s->res.cpuset_cpus) ||
	    json_text(g, cpu, "cpu", "mems", &s->res.cpuset_mems) ||
	    json_number(g, pids, "pids", "limit", &s->limits.nrtask) ||
	    json_number(g, blk, "blockIO", "weight", &s->res.blkio_weight))
		return OCI_EXIT_ERROR;
	return 0;
}

static int read_resources(const struct oci_global *g, const char *file, struct update *u)
{
	json_error_t jerr;
	json_t *r = strcmp(file, "-") == 0 ? json_loadf(stdin, 0, &jerr)
					   : json_load_file(file, 0, &jerr);
	int ret;

	if (r == NULL)
		return oci_error(g, "update", "resources %s:%d:%d: %s", file, jerr.line,
				 jerr.column, jerr.text);
	ret = from_resources(g, r, u);
	json_decref(r);
	return ret;
}

static int size_flag(const struct oci_global *g, const char *flag, const char *arg, long long *out)
{
	if (spec_parse_size(arg, out) < 0)
		return oci_error(g, "update", "--%s %s: expected a size (64m, 1g)", flag, arg);
	return 0;
}

static int count_flag(const struct oci_global *g, const char *flag, const char *arg, long long *out)
{
	if (spec_parse_count(arg, out) < 0)
		return oci_error(g, "update", "--%s %s: expected an integer >= 0", flag, arg);
	return 0;
}

static int text_flag(const struct oci_global *g, const char *arg, char **out)
{
	free(*out);
	*out = strdup(arg);
	return *out == NULL ? oci_error(g, "update", "out of memory") : 0;
}

/* One flag into U (after -r's file: flags win). */
static int update_flag(const struct oci_global *g, int c, const char *arg, struct update *u)
{
	struct jail_spec *s = &u->s;

	switch (c) {
	case OPT_MEMORY:
		return size_flag(g, "memory", arg, &s->limits.memory);
	case OPT_SWAP:
		return size_flag(g, "memory-swap", arg, &u->memswap);
	case OPT_RESERVATION:
		return size_flag(g, "memory-reservation", arg, &s->res.memory_reservation);
	case OPT_PIDS:
		return count_flag(g, "pids-limit", arg, &s->limits.nrtask);
	case OPT_QUOTA:
		return count_flag(g, "cpu-quota", arg, &s->res.cpu_quota);
	case OPT_PERIOD:
		return count_flag(g, "cpu-period", arg, &s->res.cpu_period);
	case OPT_SHARES:
		return count_flag(g, "cpu-share", arg, &s->res.cpu_shares);
	case OPT_CPUS:
		return text_flag(g, arg, &s->res.cpuset_cpus);
	case OPT_MEMS:
		return text_flag(g, arg, &s->res.cpuset_mems);
	case OPT_BLKIO:
		return count_flag(g, "blkio-weight", arg, &s->res.blkio_weight);
	}
	return OCI_EXIT_ERROR;
}

/* The options, -r's file first whatever its place, then the flags. */
static int parse_update(const struct oci_global *g, int argc, char **argv, struct update *u)
{
	const char *file = NULL;
	int c, ret = OCI_EXIT_ERROR, first;

	first = optind;
	while ((c = oci_getopt(g, "update", update_usage, argc, argv, "+r:h", update_opts, &ret)) !=
	       -1) {
		if (c == 'h' || c == '?')
			return ret;
		if (c == 'r')
			file = optarg;
	}
	if (file != NULL && read_resources(g, file, u) != 0)
		return OCI_EXIT_ERROR;
	/* Again, for the flags, now that the file's values are in. */
	optind = first;
	while ((c = oci_getopt(g, "update", update_usage, argc, argv, "+r:h", update_opts, &ret)) !=
	       -1)
		if (c != 'r' && update_flag(g, c, optarg, u) != 0)
			return OCI_EXIT_ERROR;
	return -1;
}

int oci_verb_update(const struct oci_global *g, int argc, char **argv)
{
	struct update u = {.memswap = -1};
	struct cell_err e;
	const char *id;
	int ret;

	spec_init(&u.s);
	ret = parse_update(g, argc, argv, &u);
	if (ret >= 0)
		goto out;
	ret = OCI_EXIT_ERROR;
	id = oci_take_id(g, "update", argc, argv, 0, 0);
	if (id == NULL)
		goto out;
	/* OCI's swap is memory plus swap; cell's, the swap beyond memory. */
	if (u.memswap >= 0) {
		if (u.s.limits.memory < 0 || u.memswap < u.s.limits.memory) {
			ret = oci_error(g, "update",
					"container %s: --memory-swap needs --memory, and no less",
					id);
			goto out;
		}
		u.s.limits.swap = u.memswap - u.s.limits.memory;
	}
	cell_err_clear(&e);
	if (oci_update(g->root, id, &u.s.limits, &u.s.res, &e) < 0)
		ret = oci_fail(g, "update", id, &e);
	else
		ret = 0;
out:
	spec_free(&u.s);
	return ret;
}
