// SPDX-License-Identifier: MIT
/*
 * What devices print when a run reads their identity (harness/lab/dut.c): the first
 * line names whose output follows, "host" (uname, then the '@@rocelab' sections of
 * rdma, ethtool and ibv_devinfo) or a NOS ("linux", "sonic", "eos", "nvue").
 */
#include "harness/lab/dut.h"
#include "tests/fuzz/fuzz.h"

static const struct inventory *lab(void)
{
	static struct inventory *inv;
	char path[PATH_MAX];

	if (!inv &&
	    !(inv = inventory_load(
		  fuzz_tree_file("lab-inventory/example-lab.yaml", path, sizeof(path)), stderr)))
		abort();
	return inv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *out = strchr(text, '\n');
	json_t *o = NULL;

	if (!out) {
		free(text);
		return 0;
	}
	*out++ = '\0';
	if (!strcmp(text, "host"))
		o = dut_host_parse(&lab()->hosts[0], out, NULL);
	else
		for (int d = INV_DIALECT_LINUX; d <= INV_DIALECT_NVUE; d++)
			if (!strcmp(text, inv_dialect_name((enum inv_dialect)d)))
				o = dut_switch_parse((enum inv_dialect)d, out);
	free(json_dumps(o, JSON_COMPACT)); /* it is what results.json will carry */
	json_decref(o);
	free(text);
	return 0;
}
