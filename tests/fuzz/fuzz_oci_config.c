/*
 * fuzz_oci_config.c - libFuzzer target of the config.json parser.
 *
 * Each input is a config.json: parsed into a spec as `cell-oci create`
 * would (oci_config_parse(), relative paths against a bundle), named,
 * validated (spec_validate()) and freed, so that ASan and UBSan see each
 * path through oci_config.c, its partial specs on errors included.  Run
 * by tests/run.sh over tests/fuzz/corpus/oci_config for a few seconds,
 * after the saved crash inputs of tests/fuzz/regressions/oci_config.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oci_config.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	if (oci_config_parse((const char *)data, size, "/bundle", &s, &e) == 0) {
		s.name = strdup("fuzz");
		if (s.name != NULL)
			spec_validate(&s, &e);
	}
	spec_free(&s);
	return 0;
}
