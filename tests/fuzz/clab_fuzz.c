// SPDX-License-Identifier: MIT
/* containerlab topologies someone hands over: imported, and a whole import parsed back. */
#include "harness/lib/clabimport.h"
#include "harness/lib/inventory.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *inv = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&inv, &len);

	if (out && clab_import_text("fuzz.clab.yml", text, size, out, fuzz_null()) == 0) {
		struct inventory *i;

		fflush(out);
		if ((i = inventory_parse("imported.yaml", inv, len, fuzz_null())))
			inventory_free(i);
	}
	if (out)
		fclose(out);
	free(inv);
	free(text);
	return 0;
}
