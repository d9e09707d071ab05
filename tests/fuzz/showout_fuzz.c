// SPDX-License-Identifier: MIT
/*
 * What switches and hosts print for rocelab to read back (injectors/nos/readback.c,
 * injectors/nos/links.c): the first line names the parser and its argument as a
 * fault action's read_as does ("sonic-pfc Ethernet4", "eos-acl NAME PORTS"),
 * "links DIALECT" for the port-state reads, or "counters PARSER PORT" for a
 * port's counters (injectors/nos/ctr.h: each name kept printable, each value
 * a count or a state's printable word); the rest is the output.
 */
#include "harness/lib/sbuf.h"
#include "injectors/nos/ctr.h"
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

static void counters(const char *what, const char *out)
{
	static const struct {
		const char *name;
		int (*parse)(const char *port, const char *out, json_t *group);
	} p[] = {{"ip-link", nos_ctr_ip_link},	     {"tc-qdisc", nos_ctr_tc_qdisc},
		 {"ethtool", nos_ctr_ethtool},	     {"rdma-stat", nos_ctr_rdma_stat},
		 {"sonic-hash", nos_ctr_sonic_hash}, {"eos-interface", nos_ctr_eos_interface},
		 {"eos-pfc", nos_ctr_eos_pfc},	     {"eos-queues", nos_ctr_eos_queues},
		 {"eos-ecn", nos_ctr_eos_ecn}};
	const char *port = strchr(what, ' ');
	char link[64];
	const char *k;
	json_t *g = json_object(), *v;

	if (!strncmp(what, "rdma-link ", 10)) {
		if (!nos_ctr_rdma_link(out, what + 10, link, sizeof(link)) &&
		    !nos_ctr_name_ok(link))
			abort();
	}
	for (size_t i = 0; port && i < sizeof(p) / sizeof(p[0]); i++)
		if (!strncmp(what, p[i].name, (size_t)(port - what)) &&
		    strlen(p[i].name) == (size_t)(port - what))
			p[i].parse(port + 1, out, g);
	/* each a count, or a *_STATUS state's printable word (SONiC's PFC_WD_STATUS) */
	json_object_foreach(
	    g, k, v) if (!nos_ctr_name_ok(k) ||
			 (json_is_integer(v) ? json_integer_value(v) < 0
					     : !json_is_string(v) || !strstr(k, "_STATUS") ||
						   !nos_ctr_name_ok(json_string_value(v)))) abort();
	json_decref(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *out = strchr(text, '\n'), err[512];

	if (!out) {
		free(text);
		return 0;
	}
	*out++ = '\0';
	if (!strncmp(text, "counters ", 9)) {
		counters(text + 9, out);
	} else if (!strncmp(text, "links ", 6)) {
		const struct inv_switch *sw = switch_of(text + 6);
		struct port_state st[8];

		if (sw && sw->n_ports <= 8)
			links_parse(sw, out, st, err, sizeof(err));
	} else if (!strncmp(text, "nvue-profile ", 13)) {
		struct sbuf sb = {0};

		readback_nvue_profile_copy(
		    out, "pfc", text + 13, "rocelab_f1",
		    (const char *const[]){"switch-priority", "rx", "tx", NULL}, &sb);
		/* what a device printed reaches the copy's command line only as NVUE's words */
		if (sb.p && strspn(sb.p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789 _.,:/=+-&") != sb.len)
			abort();
		sb_free(&sb);
	} else {
		struct readback rb;

		if (!readback_parse(text, out, &rb, err, sizeof(err))) {
			char prios[64];

			readback_lossless(&rb, 3);
			readback_prios(rb.lossless, prios, sizeof(prios));
			/* an EOS watchdog as read is written back by its undo: EOS's words only */
			if (!strncmp(text, "eos-pfcwd ", 10) &&
			    strspn(rb.value, "abcdefghijklmnopqrstuvwxyz0123456789.- ") !=
				strlen(rb.value))
				abort();
		}
	}
	free(text);
	return 0;
}
