// SPDX-License-Identifier: MIT
/*
 * What switches and hosts print for rocelab to read back (injectors/nos/readback.c,
 * injectors/nos/links.c): the first line names the parser and its argument as a
 * fault action's read_as does ("sonic-pfc Ethernet4", "eos-acl NAME PORTS"),
 * or "links DIALECT" for the port-state reads; the rest is the output.
 */
#include "harness/lib/sbuf.h"
#include "injectors/nos/links.h"
#include "injectors/nos/readback.h"
#include "tests/fuzz/fuzz.h"

static const struct inv_switch *switch_of(const char *dialect)
{
	static struct inventory *inv;
	char path[PATH_MAX], name[40];

	if (!inv) {
		inv = inventory_load(
		    fuzz_tree_file("tests/injectors/dialect-lab.yaml", path, sizeof(path)), stderr);
		if (!inv)
			abort();
	}
	snprintf(name, sizeof(name), "sw-%.30s", dialect);
	return inventory_switch(inv, name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *out = strchr(text, '\n'), err[512];

	if (!out) {
		free(text);
		return 0;
	}
	*out++ = '\0';
	if (!strncmp(text, "links ", 6)) {
		const struct inv_switch *sw = switch_of(text + 6);
		struct port_state st[8];

		if (sw && sw->n_ports <= 8)
			links_parse(sw, out, st, err, sizeof(err));
	} else if (!strncmp(text, "nvue-profile ", 13)) {
		struct sbuf sb = {0};

		readback_nvue_profile_copy(
		    out, "pfc", text + 13, "rocelab_f1",
		    (const char *const[]){"switch-priority", "rx", "tx", NULL}, &sb);
		sb_free(&sb);
	} else {
		struct readback rb;

		if (!readback_parse(text, out, &rb, err, sizeof(err))) {
			char prios[64];

			readback_lossless(&rb, 3);
			readback_prios(rb.lossless, prios, sizeof(prios));
		}
	}
	free(text);
	return 0;
}
