// SPDX-License-Identifier: MIT
/* Unit tests of the inventory parser, validator, generator and the routed plan (topo). */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/invgen.h"
#include "harness/lib/topo.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <ctype.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

/* Tests run from tests/ (see the Makefile's unit target). */
#define FIXTURES "harness/lib/inventory"
#define VLAB	 "../lab-inventory/vlab-rail.yaml"
#define EXAMPLE	 "../lab-inventory/example-lab.yaml"

struct bad_case {
	char path[128];
};

ParameterizedTestParameters(inventory, rejects_bad_input)
{
	glob_t g;
	struct bad_case *cases;

	if (glob(FIXTURES "/bad-*.yaml", 0, NULL, &g) != 0) {
		fprintf(stderr, "no bad-*.yaml fixtures under tests/" FIXTURES "\n");
		abort();
	}
	cases = cr_malloc(g.gl_pathc * sizeof(*cases));
	for (size_t i = 0; i < g.gl_pathc; i++)
		snprintf(cases[i].path, sizeof(cases[i].path), "%s", g.gl_pathv[i]);
	size_t n = g.gl_pathc;

	globfree(&g);
	return cr_make_param_array(struct bad_case, cases, n);
}

/*
 * Each fixture's first line is "# expect: LINE:COL: message": the parser (or,
 * for fixtures marked "# virtual", the virtual-lab plan) must report exactly
 * that, and must not hand back an inventory.
 */
ParameterizedTest(struct bad_case *c, inventory, rejects_bad_input)
{
	size_t len;
	char *text = rl_read_file(c->path, &len);
	char *out = NULL, want[1024];
	size_t outlen = 0;
	FILE *errf = open_memstream(&out, &outlen);

	cr_assert_not_null(text, "cannot read %s", c->path);
	cr_assert(strncmp(text, "# expect: ", 10) == 0, "%s lacks its '# expect:' line", c->path);
	char *nl = strchr(text, '\n');

	snprintf(want, sizeof(want), "%s:%.*s\n", c->path, (int)(nl - text - 10), text + 10);

	struct inventory *inv = inventory_parse(c->path, text, len, errf);

	if (strstr(text, "\n# virtual\n")) {
		cr_assert_not_null(inv, "%s must parse; only the virtual-lab plan rejects it",
				   c->path);
		struct topo *t = topo_build(inv, true, errf);

		cr_assert_null(t, "topo_build accepted %s", c->path);
		cr_assert_eq(errno, EINVAL);
	} else {
		cr_assert_null(inv, "%s was accepted", c->path);
		cr_assert_eq(errno, EINVAL);
	}
	fclose(errf);
	cr_assert(strstr(out, want) != NULL, "%s:\nwant: %sgot:\n%s", c->path, want, out);
	inventory_free(inv);
	free(out);
	free(text);
}

Test(inventory, parses_builtin_virtual_lab)
{
	struct inventory *inv = inventory_load(VLAB, stderr);
	size_t rnics = 0;
	struct inv_endpoint ep;
	char msg[128], name[64];

	cr_assert_not_null(inv);
	cr_assert_str_eq(inv->name, "vlab-rail");
	cr_assert_eq(inv->n_hosts, 4);
	cr_assert_eq(inv->n_switches, 8);
	cr_assert_eq(inv->n_links, 32);
	for (size_t h = 0; h < inv->n_hosts; h++)
		rnics += inv->hosts[h].n_rnics;
	cr_assert_eq(rnics, 16);

	/* railR port swp(4+S) connects spineS port swpR */
	cr_assert_eq(inventory_endpoint(inv, "rail3:swp6", &ep, msg, sizeof(msg)), 0);
	struct inv_endpoint peer;

	cr_assert_eq(inventory_peer(inv, &ep, &peer), 0);
	cr_assert_str_eq(inventory_endpoint_name(inv, &peer, name, sizeof(name)), "spine2:swp3");

	/* railR port swpH connects hostH:rnicR */
	cr_assert_eq(inventory_endpoint(inv, "host2:rnic3", &ep, msg, sizeof(msg)), 0);
	cr_assert_eq(inventory_peer(inv, &ep, &peer), 0);
	cr_assert_str_eq(inventory_endpoint_name(inv, &peer, name, sizeof(name)), "rail3:swp2");

	/* default gateway: last usable address of the RNIC's prefix */
	struct inv_rnic *r = &inventory_host(inv, "host2")->rnics[2];

	cr_assert_str_eq(inet_ntoa(r->gateway), "198.18.3.254");
	cr_assert_str_eq(inet_ntoa(r->addr.addr), "198.18.3.2");
	cr_assert_eq(r->addr.len, 24);
	cr_assert_eq(r->rail, 3);
	cr_assert_eq(inventory_switch(inv, "rail1")->ssh.auth, INV_AUTH_LAB_KEY);
	inventory_free(inv);
}

/* Issue 58: problems in the file's order (found in another: cross checks last), counted. */
Test(inventory, problems_are_printed_by_line_and_counted)
{
	const char *path = FIXTURES "/bad-duplicate-host.yaml";
	char *out = NULL, *l;
	size_t len = 0;
	unsigned last = 0, n = 0;
	FILE *errf = open_memstream(&out, &len);

	cr_assert_null(inventory_load(path, errf));
	fclose(errf);
	for (l = out; *l; l += strcspn(l, "\n") + 1) {
		const char *at = l + strlen(path);
		unsigned line;

		if (at[0] != ':' || !isdigit((unsigned char)at[1]) ||
		    sscanf(at, ":%u:", &line) != 1)
			break;
		cr_assert_geq(line, last, "line %u printed after line %u:\n%s", line, last, out);
		last = line;
		n++;
	}
	cr_assert_eq(n, 3, "%s", out);
	cr_assert_not_null(strstr(l, ": 3 problems\n"), "the count last:\n%s", out);
	free(out);
}

Test(inventory, endpoint_errors_say_what_is_unknown)
{
	struct inventory *inv = inventory_load(VLAB, stderr);
	struct inv_endpoint ep;
	char msg[128];

	cr_assert_not_null(inv);
	cr_assert_eq(inventory_endpoint(inv, "rail9:swp1", &ep, msg, sizeof(msg)), -ENOENT);
	cr_assert_str_eq(msg, "no host or switch is named 'rail9'");
	cr_assert_eq(inventory_endpoint(inv, "rail1:swp99", &ep, msg, sizeof(msg)), -ENOENT);
	cr_assert_str_eq(msg, "switch 'rail1' has no port 'swp99'");
	cr_assert_eq(inventory_endpoint(inv, "host1", &ep, msg, sizeof(msg)), -EINVAL);
	cr_assert_eq(inventory_endpoint(inv, "host1:rnic1:x", &ep, msg, sizeof(msg)), -EINVAL);
	inventory_free(inv);
}

Test(inventory, parses_documented_real_lab_example)
{
	struct inventory *inv = inventory_load(EXAMPLE, stderr);

	cr_assert_not_null(inv);
	cr_assert_eq(inv->hosts[0].n_rnics, 8);
	cr_assert_eq(inventory_switch(inv, "rail1")->dialect, INV_DIALECT_SONIC);
	cr_assert_eq(inventory_switch(inv, "spine1")->dialect, INV_DIALECT_EOS);
	cr_assert_eq(inventory_switch(inv, "rail5")->dialect, INV_DIALECT_NVUE);
	cr_assert_eq(inventory_switch(inv, "spine2")->dialect, INV_DIALECT_LINUX);
	cr_assert_eq(inventory_switch(inv, "spine1")->ssh.auth, INV_AUTH_AGENT);
	cr_assert_eq(inventory_switch(inv, "rail1")->ssh.auth, INV_AUTH_KEY_FILE);
	cr_assert_gt(inv->n_tenants, 0);
	struct topo *t = topo_build(inv, false, stderr);

	cr_assert_not_null(t, "a real lab must plan without the virtual-lab range checks");
	topo_free(t);
	/* ... and it is not a virtual lab: its addresses are outside 198.18.0.0/15. */
	t = topo_build(inv, true, NULL);
	cr_assert_null(t);
	inventory_free(inv);
}

Test(inventory, generated_large_lab_is_valid)
{
	struct invgen_opts o = {
	    .name = "big", .hosts = 16, .rnics = 8, .spines = 8, .speed = "400g"};
	struct inventory *inv = invgen_inventory(&o, stderr);

	cr_assert_not_null(inv);
	cr_assert_eq(inv->n_hosts, 16);
	cr_assert_eq(inv->n_switches, 16);
	cr_assert_eq(inv->n_links, 16 * 8 + 8 * 8);
	cr_assert_eq(inv->links[0].speed_mbps, 400000);
	struct topo *t = topo_build(inv, true, stderr);

	cr_assert_not_null(t);
	topo_free(t);
	inventory_free(inv);
}

Test(inventory, generator_rejects_out_of_range)
{
	FILE *null = fopen("/dev/null", "w");
	/* 40 pods of 1000 hosts x 8 RNICs: 320 blocks of 1024 addresses outgrow 198.18/15 */
	struct invgen_opts
	    big = {.name = "x", .hosts = 1000, .rnics = 8, .spines = 4, .pods = 40, .speed = "1g"},
	    rnics = {.name = "x", .hosts = 4, .rnics = 65, .spines = 4, .speed = "1g"};

	cr_assert_not_null(null);
	cr_assert_eq(invgen_write(null, &big), -EINVAL);
	cr_assert_eq(invgen_write(null, &rnics), -EINVAL);
	fclose(null);
}

/*
 * Past 250 hosts or rail switches the generator's larger plan (issue 59): RNIC blocks sized to
 * the pod from 198.18.0.0, switch links' /31s on the ports, management 198.19.192.0/18; a
 * virtual lab's checks hold (every address in 198.18.0.0/15, none twice).
 */
Test(inventory, generator_plans_past_250_hosts)
{
	struct invgen_opts o = {
	    .name = "wide", .hosts = 300, .rnics = 2, .spines = 3, .pods = 3, .speed = "100g"};
	struct inventory *inv = invgen_inventory(&o, stderr);

	cr_assert_not_null(inv);
	cr_assert_eq(inv->n_hosts, 900);
	cr_assert_eq(inv->n_switches, 3 * 2 + 3);
	cr_assert_eq(inv->n_links, 900 * 2 + 6 * 3);
	/* pod 3's rail 2 switch is block 5 of 512: host 900 (its 300th) at +300, gateway +510 */
	const struct inv_rnic *r = &inventory_host(inv, "host900")->rnics[1];
	char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &r->addr.addr, a, sizeof(a));
	inet_ntop(AF_INET, &r->gateway, g, sizeof(g));
	cr_assert_str_eq(a, "198.18.11.44");
	cr_assert_eq(r->addr.len, 23);
	cr_assert_str_eq(g, "198.18.11.254");
	struct topo *t = topo_build(inv, true, stderr);

	cr_assert_not_null(t);
	topo_free(t);
	inventory_free(inv);
}

/* Lookups by name and by endpoint are indexed; they answer as a scan would. */
Test(inventory, indexes_answer_as_a_scan)
{
	struct inventory *inv = inventory_load(VLAB, stderr);

	cr_assert_not_null(inv);
	for (size_t h = 0; h < inv->n_hosts; h++) {
		cr_assert_eq(inventory_host(inv, inv->hosts[h].name), &inv->hosts[h]);
		cr_assert_null(inventory_switch(inv, inv->hosts[h].name));
	}
	for (size_t s = 0; s < inv->n_switches; s++) {
		cr_assert_eq(inventory_switch(inv, inv->switches[s].name), &inv->switches[s]);
		cr_assert_null(inventory_host(inv, inv->switches[s].name));
	}
	cr_assert_null(inventory_host(inv, "nosuch"));
	cr_assert_null(inventory_switch(inv, ""));
	for (size_t i = 0; i < inv->n_links; i++) {
		cr_assert_eq(inventory_link_at(inv, &inv->links[i].a), &inv->links[i]);
		cr_assert_eq(inventory_link_at(inv, &inv->links[i].b), &inv->links[i]);
	}
	for (size_t s = 0; s < inv->n_switches; s++)
		for (size_t p = 0; p < inv->switches[s].n_ports; p++) {
			struct inv_endpoint ep = {INV_DEV_SWITCH, s, p};
			const struct inv_link *l = NULL;

			for (size_t i = 0; i < inv->n_links && !l; i++)
				if ((inv->links[i].a.kind == ep.kind && inv->links[i].a.dev == s &&
				     inv->links[i].a.port == p) ||
				    (inv->links[i].b.kind == ep.kind && inv->links[i].b.dev == s &&
				     inv->links[i].b.port == p))
					l = &inv->links[i];
			cr_assert_eq(inventory_link_at(inv, &ep), l);
		}
	inventory_free(inv);
}

/* ---- topo ---- */

Test(topo, plans_ecmp_and_host_routes)
{
	struct inventory *inv = inventory_load(VLAB, stderr);
	struct topo *t = topo_build(inv, true, stderr);
	struct inv_switch *rail1 = inventory_switch(inv, "rail1");
	const struct topo_switch *ts = &t->sw[rail1 - inv->switches];
	size_t hostroutes = 0, defaults = 0;

	cr_assert_not_null(t);
	cr_assert(ts->edge);
	for (size_t r = 0; r < ts->n_routes; r++) {
		if (ts->routes[r].len == 32 && ts->routes[r].n_nh == 0)
			hostroutes++;
		if (ts->routes[r].len == 0) {
			defaults++;
			cr_assert_eq(ts->routes[r].n_nh, 4, "rail1 must spread over all 4 spines");
		}
	}
	cr_assert_eq(hostroutes, 4);
	cr_assert_eq(defaults, 1);

	const struct topo_switch *sp = &t->sw[inventory_switch(inv, "spine2") - inv->switches];

	cr_assert_not(sp->edge);
	cr_assert_eq(sp->n_routes, 16, "one route per RNIC in the lab");
	for (size_t r = 0; r < sp->n_routes; r++)
		cr_assert_eq(sp->routes[r].n_nh, 1);
	topo_free(t);
	inventory_free(inv);
}

Test(topo, maps_hop_addresses_to_ports)
{
	struct inventory *inv = inventory_load(VLAB, stderr);
	struct topo *t = topo_build(inv, true, stderr);
	struct inv_endpoint ep;
	struct in_addr a;
	bool any;
	char name[64];

	cr_assert_not_null(t);
	inet_pton(AF_INET, "198.18.1.254", &a);
	cr_assert_eq(topo_owner(t, a, &ep, &any), 0);
	cr_assert(any, "a rail gateway is shared by all host ports");
	cr_assert_str_eq(inv->switches[ep.dev].name, "rail1");

	inet_pton(AF_INET, "198.18.2.3", &a);
	cr_assert_eq(topo_owner(t, a, &ep, &any), 0);
	cr_assert_not(any);
	cr_assert_str_eq(inventory_endpoint_name(inv, &ep, name, sizeof(name)), "host3:rnic2");

	/* Fabric /31s: the switch side of each port answers with its own address. */
	size_t s = (size_t)(inventory_switch(inv, "spine3") - inv->switches);
	struct inv_prefix p = t->sw[s].port_addr[0];

	cr_assert_eq(p.len, 31);
	cr_assert(topo_addr_is_lab(p.addr));
	cr_assert_eq(topo_owner(t, p.addr, &ep, &any), 0);
	cr_assert_str_eq(inventory_endpoint_name(inv, &ep, name, sizeof(name)), "spine3:swp1");

	inet_pton(AF_INET, "10.1.2.3", &a);
	cr_assert_eq(topo_owner(t, a, &ep, &any), -ENOENT);
	cr_assert_not(topo_addr_is_lab(a));
	topo_free(t);
	inventory_free(inv);
}

/* What inventory_write() writes reads back as the same lab, and writes the same text again. */
static void round_trip(const char *path)
{
	struct inventory *inv = inventory_load(path, stderr), *again;
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *f;

	cr_assert_not_null(inv);
	f = open_memstream(&a, &alen);
	cr_assert_eq(inventory_write(inv, f), 0);
	fclose(f);
	again = inventory_parse("written", a, alen, stderr);
	cr_assert_not_null(again, "%s written back does not parse:\n%s", path, a);
	cr_assert_str_eq(again->name, inv->name);
	cr_assert_eq(again->kind, inv->kind);
	cr_assert_eq(again->n_links, inv->n_links);
	cr_assert_eq(again->n_tenants, inv->n_tenants);
	f = open_memstream(&b, &blen);
	cr_assert_eq(inventory_write(again, f), 0);
	fclose(f);
	cr_assert_str_eq(a, b);
	inventory_free(again);
	inventory_free(inv);
	free(a);
	free(b);
}

Test(inventory, written_inventories_read_back)
{
	round_trip(VLAB);
	round_trip(EXAMPLE);
}

/* inv as inventory_write() writes it, parsed again (inv freed). */
static struct inventory *written_again(struct inventory *inv)
{
	struct inventory *again;
	char *a = NULL;
	size_t alen = 0;
	FILE *f = open_memstream(&a, &alen);

	cr_assert_eq(inventory_write(inv, f), 0);
	fclose(f);
	again = inventory_parse("written", a, alen, stderr);
	cr_assert_not_null(again, "written back, it does not parse:\n%s", a);
	inventory_free(inv);
	free(a);
	return again;
}

/* A switch marked a lab's stand-in is written so, and read back so; the others are not. */
Test(inventory, emulated_switches_are_written_and_read_back)
{
	struct inventory *inv = inventory_load(VLAB, stderr);

	cr_assert_not_null(inv);
	cr_assert_not(inv->switches[0].emulated, "not said: not a stand-in");
	inv->switches[1].emulated = true;
	inv = written_again(inv);
	for (size_t i = 0; i < inv->n_switches; i++)
		cr_assert_eq(inv->switches[i].emulated, i == 1, "switch %zu", i);
	inventory_free(inv);
}

/* A switch's NOS as declared (version, model, buffer model) is written and read back. */
Test(inventory, nos_declarations_are_written_and_read_back)
{
	struct inventory *inv = inventory_load(VLAB, stderr);

	cr_assert_not_null(inv);
	cr_assert_str_eq(inv->switches[0].nos.version, "", "not declared: not known");
	snprintf(inv->switches[1].nos.version, sizeof(inv->switches[1].nos.version), "5.7.0");
	snprintf(inv->switches[1].nos.model, sizeof(inv->switches[1].nos.model), "MSN2700");
	snprintf(inv->switches[2].nos.buffer_model, sizeof(inv->switches[2].nos.buffer_model),
		 "dynamic");
	inv = written_again(inv);
	cr_assert_str_eq(inv->switches[1].nos.version, "5.7.0");
	cr_assert_str_eq(inv->switches[1].nos.model, "MSN2700");
	cr_assert_str_eq(inv->switches[2].nos.buffer_model, "dynamic");
	cr_assert_str_eq(inv->switches[0].nos.model, "");
	cr_assert_not(inv->switches[1].nos.read, "declared, not read");
	inventory_free(inv);
}

Test(inventory, ssh_lab_keys)
{
	struct inventory *inv = inventory_load(EXAMPLE, stderr);

	cr_assert_not_null(inv);
	cr_assert_eq(inv->kind, INV_LAB_SSH);
	cr_assert_str_eq(inet_ntoa(inv->controller), "10.10.0.1");
	cr_assert_str_eq(inv->hosts[0].rocelab, "/usr/local/bin/rocelab");
	inventory_free(inv);
	inv = inventory_load(VLAB, stderr);
	cr_assert_eq(inv->kind, INV_LAB_VIRTUAL);
	inventory_free(inv);
}

/* The analyzer and controller take connections from the lab's hosts only (issue 56). */
Test(inventory, peers_are_the_labs_hosts_only)
{
	struct inventory *inv = inventory_load(EXAMPLE, stderr);
	struct in_addr a;

	cr_assert_not_null(inv);
	inet_pton(AF_INET, "127.0.0.1", &a);
	cr_assert(inventory_peer_ok(inv, a), "loopback");
	cr_assert(inventory_peer_ok(inv, inv->hosts[0].mgmt), "a host's mgmt");
	cr_assert(inventory_peer_ok(inv, inv->hosts[1].rnics[0].addr.addr), "an RNIC");
	inet_pton(AF_INET, "8.8.8.8", &a);
	cr_assert_not(inventory_peer_ok(inv, a), "anyone else");
	inventory_free(inv);
}
