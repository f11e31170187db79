/*
 * fuzz_record.c - libFuzzer target of the record parser (JSON -> spec).
 *
 * Each input is a state.json: loaded, upgraded (an older cell's layout),
 * read into a spec as exec, set, ls and inspect read it; a record that
 * reads is written again and read back, which must give the same spec
 * (the round trip of record.h) and the same JSON, or the target aborts.
 * Run by tests/run.sh over tests/fuzz/corpus/record for a few seconds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "param.h"
#include "record.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *again(const struct jail_spec *s)
{
	struct record_run run = {.jid = 1, .pid = 1, .created = 0, .state = "running"};

	return record_new(s, &run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *rec = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	struct jail_spec s, back;
	struct cell_err e;
	json_t *one = NULL, *two = NULL;

	if (rec == NULL)
		return 0;
	record_upgrade(rec);
	spec_init(&s);
	spec_init(&back);
	if (record_spec(rec, &s, &e) == 0) {
		one = again(&s);
		/* A spec that reads writes: only non-UTF-8 text could fail,
		 * and the record it came from was JSON. */
		if (one == NULL || record_spec(one, &back, &e) < 0)
			abort();
		for (int id = 0; id < PARAM_COUNT; id++)
			if (!param_equal(param_get(id), &s, &back))
				abort();
		two = again(&back);
		if (two == NULL || !json_equal(one, two))
			abort();
	}
	json_decref(one);
	json_decref(two);
	json_decref(rec);
	spec_free(&s);
	spec_free(&back);
	return 0;
}
