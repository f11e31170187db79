/*
 * record.c - the state record: spec <-> JSON through the table of
 * param.h, and the run's facts beside it.  See record.h.
 */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "param.h"
#include "utc.h"

void record_seed(void)
{
	size_t seed = 0;

	/* A seed of 0 (also when getrandom fails) leaves it to jansson. */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		seed = 0;
	json_object_seed(seed);
}

json_t *record_time(time_t t)
{
	char buf[32];
	struct tm tm;

	if (!utc_tm((long long)t, &tm) ||
	    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec) >= (int)sizeof(buf))
		return json_null();
	return json_string(buf);
}

int record_put_spec(json_t *rec, const struct jail_spec *s, struct cell_err *e)
{
	for (size_t i = 0; i < PARAM_COUNT; i++) {
		const struct param *p = &param_table[i];
		json_t *v = param_to_json(p, s);

		/* jansson takes UTF-8 only: a value it refuses is an error,
		 * never a record that silently lacks it. */
		if (v == NULL || json_object_set_new(rec, p->name, v) < 0)
			return cell_err_set(e, errno == ENOMEM ? ENOMEM : 0,
					    "record %s: not UTF-8 text", p->name);
	}
	return 0;
}

json_t *record_new(const struct jail_spec *s, const struct record_run *run)
{
	json_t *rec = json_object();
	struct cell_err ignored;

	if (rec == NULL || record_put_spec(rec, s, &ignored) < 0 ||
	    json_object_set_new(rec, "jid", json_integer(run->jid)) < 0 ||
	    json_object_set_new(rec, "pid", json_integer((json_int_t)run->pid)) < 0 ||
	    json_object_set_new(rec, "start_time", json_integer((json_int_t)run->start_time)) < 0 ||
	    json_object_set_new(rec, "created", record_time(run->created)) < 0 ||
	    json_object_set_new(rec, "state", json_string(run->state)) < 0 ||
	    json_object_set_new(rec, "cgroup", run->cgroup != NULL ? run->cgroup : json_null()) <
		    0 ||
	    json_object_set_new(rec, "detach", json_boolean(run->detach)) < 0 ||
	    json_object_set_new(rec, "autoremove", json_boolean(run->autoremove)) < 0) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

int record_spec(const json_t *rec, struct jail_spec *s, struct cell_err *e)
{
	for (size_t i = 0; i < PARAM_COUNT; i++) {
		const struct param *p = &param_table[i];

		if (param_from_json(p, s, json_object_get(rec, p->name), e) < 0)
			return cell_err_prefix(e, "state record: %s", p->name);
	}
	/* A jail started again from its record finds HOME in its files
	 * again; a jail CLI's (no OCI config recorded) its user's groups too. */
	s->proc.home_env = true;
	s->proc.user_groups = json_object_get(rec, "oci") == NULL;
	return 0;
}

/* The process's environment: the jail's, then the process's own over it
 * (as docker exec), and PATH's default if neither has one. */
static int exec_env(struct jail_spec *s, const struct jail_spec *jail, struct cell_err *e)
{
	char **own = s->proc.env;
	size_t nown = s->proc.nenv;
	int ret;

	s->proc.env = NULL;
	s->proc.nenv = 0;
	ret = spec_env_import(s, jail->proc.env, e);
	if (ret == 0)
		ret = spec_env_import(s, own, e);
	if (ret == 0)
		ret = spec_env_path(s, e);
	param_strv_free(own, nown);
	return ret;
}

int record_exec_spec(const json_t *rec, struct jail_spec *s, struct cell_err *e)
{
	struct jail_spec jail;
	int ret = 0;

	spec_init(&jail);
	if (record_spec(rec, &jail, e) < 0) {
		spec_free(&jail);
		return -1;
	}
	for (size_t i = 0; i < PARAM_COUNT && ret == 0; i++) {
		const struct param *p = &param_table[i];

		if (p->id == PARAM_NAME || p->id == PARAM_COMMAND || p->id == PARAM_ENV ||
		    (p->id == PARAM_USER && s->proc.has_user) ||
		    (p->id == PARAM_WORKDIR && s->proc.cwd != NULL))
			continue;
		ret = param_copy(p, s, &jail, e);
	}
	if (ret == 0)
		ret = exec_env(s, &jail, e);
	spec_free(&jail);
	return ret;
}

/* Seconds since the epoch (older records) as ISO 8601. */
static void upgrade_time(json_t *rec, const char *key)
{
	json_t *v = json_object_get(rec, key);

	if (json_is_integer(v))
		json_object_set_new(rec, key, record_time((time_t)json_integer_value(v)));
}

void record_upgrade(json_t *rec)
{
	json_t *limits = json_object_get(rec, "limits"), *v;
	const char *key;

	if (!json_is_object(rec))
		return;
	/* The limits were an object of their own, by the same names. */
	if (json_is_object(limits)) {
		json_object_foreach(limits, key, v)
		{
			if (json_object_get(rec, key) == NULL)
				json_object_set(rec, key, v);
		}
		json_object_del(rec, "limits");
	}
	/* The root was "rootfs", the name of its flag. */
	v = json_object_get(rec, "rootfs");
	if (v != NULL) {
		if (json_object_get(rec, "path") == NULL)
			json_object_set(rec, "path", v);
		json_object_del(rec, "rootfs");
	}
	upgrade_time(rec, "created");
	upgrade_time(rec, "stopped");
	/* A jail of before user namespaces has the host's ids. */
	if (json_object_get(rec, "userns") == NULL)
		json_object_set_new(rec, "userns", json_string("host"));
}
