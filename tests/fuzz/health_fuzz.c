// SPDX-License-Identifier: MIT
/*
 * What a host's 'ip -j addr' prints at pre-flight and post-flight (harness/lab/lab.c,
 * lab_rnic_found): any JSON, checked against every RNIC of a lab.
 */
#include "harness/lab/lab.h"
#include "tests/fuzz/fuzz.h"

static const struct inventory *lab(void)
{
	static struct inventory *inv;
	char path[PATH_MAX];

	if (!inv &&
	    !(inv = inventory_load(
		  fuzz_tree_file("lab-inventory/vlab-rail.yaml", path, sizeof(path)), stderr)))
		abort();
	return inv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct inventory *inv = lab();
	char *text = fuzz_text(data, size), why[512];
	json_t *links = json_loads(text, JSON_DECODE_ANY, NULL);

	for (size_t r = 0; r < inv->hosts[0].n_rnics; r++)
		lab_rnic_found(inv, &inv->hosts[0].rnics[r], links, why, sizeof(why));
	json_decref(links);
	free(text);
	return 0;
}
