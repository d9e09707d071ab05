// SPDX-License-Identifier: MIT
/*
 * The analyzers' JSON lines as a run reads them back (harness/component/component.c,
 * verdict_from_json): a verdict line from any process that wrote the file.
 */
#include "harness/component/component.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL), *back;
		struct verdict v;

		if (j && !verdict_from_json(j, &v)) {
			back = verdict_to_json(&v); /* and out again, as results.json has it */
			free(json_dumps(back, JSON_COMPACT));
			json_decref(back);
		}
		json_decref(j);
	}
	free(text);
	return 0;
}
