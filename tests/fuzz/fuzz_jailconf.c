/*
 * fuzz_jailconf.c - libFuzzer target of the jail file parser.
 *
 * Each input is a jail file: parsed, then every jail is built into a spec
 * and validated, as `cell up` would, and everything is freed, so that
 * ASan and UBSan see each path through jailconf.c and the spec setters.
 * Run by tests/run.sh over tests/fuzz/corpus/jailconf for a few seconds,
 * after the saved crash inputs of tests/fuzz/regressions/jailconf.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "jailconf.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jailconf c;
	struct cell_err e;

	if (jailconf_parse((const char *)data, size, "fuzz.conf", &c, &e) < 0)
		return 0;
	for (size_t i = 0; i < c.njails; i++) {
		struct jail_spec s;
		char *stop = NULL;

		spec_init(&s);
		if (jailconf_to_spec(&c, &c.jails[i], &s, &stop, &e) == 0)
			spec_validate(&s, &e);
		spec_free(&s);
		free(stop);
	}
	jailconf_free(&c);
	return 0;
}
