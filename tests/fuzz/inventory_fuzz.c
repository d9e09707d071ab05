// SPDX-License-Identifier: MIT
/* Inventories people write: parse and validate, then what a lab builds from one (its topology
 * plan) and writes back. */
#include "harness/lib/inventory.h"
#include "harness/lib/topo.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct inventory *inv = inventory_parse("fuzz.yaml", text, size, fuzz_null());

	if (inv) {
		struct topo *t = topo_build(inv, inv->kind == INV_LAB_VIRTUAL, fuzz_null());

		topo_free(t);
		inventory_write(inv, fuzz_null());
		inventory_free(inv);
	}
	free(text);
	return 0;
}
