// SPDX-License-Identifier: MIT
/* Scenarios people write, checked against the built-in inventory as 'rocelab run' checks them. */
#include "harness/run/scenario.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char builtin[PATH_MAX];
	char *text = fuzz_text(data, size);
	struct scenario *s;

	if (!builtin[0])
		fuzz_tree_file("lab-inventory/vlab-rail.yaml", builtin, sizeof(builtin));
	s = scenario_parse("fuzz/scenario.yaml", text, size, NULL, builtin, 1, fuzz_null());
	scenario_free(s);
	free(text);
	return 0;
}
