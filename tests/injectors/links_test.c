// SPDX-License-Identifier: MIT
/* Switch port states: the command and the parse of each dialect's own output. */
#define _GNU_SOURCE
#include "harness/lib/inventory.h"
#include "injectors/nos/links.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LAB "injectors/dialect-lab.yaml"

static struct inventory *inv;

static void setup(void)
{
	inv = inventory_load(LAB, stderr);
	cr_assert_not_null(inv, "%s loads", LAB);
}

static void teardown(void)
{
	inventory_free(inv);
}

static const struct inv_switch *sw_named(const char *name)
{
	for (size_t i = 0; i < inv->n_switches; i++)
		if (!strcmp(inv->switches[i].name, name))
			return &inv->switches[i];
	cr_assert_fail("no switch %s", name);
	return NULL;
}

TestSuite(links, .init = setup, .fini = teardown);

Test(links, commands_per_dialect)
{
	const char *const *argv;
	char *c;

	c = links_command(sw_named("sw-linux"), &argv);
	cr_assert_null(c);
	cr_assert_not_null(argv);
	cr_assert_str_eq(argv[0], "ip");
	cr_assert_str_eq(argv[1], "-j");

	c = links_command(sw_named("sw-sonic"), &argv);
	cr_assert_str_eq(c, "for p in Ethernet0 Ethernet4 Ethernet8; do echo \"$p $(sonic-db-cli "
			    "APPL_DB HGET \"PORT_TABLE:$p\" oper_status)\"; done");
	free(c);
	c = links_command(sw_named("sw-eos"), &argv);
	cr_assert_str_eq(c, "show interfaces status | json");
	free(c);
	c = links_command(sw_named("sw-nvue"), &argv);
	cr_assert_str_eq(c, "nv show interface -o json");
	free(c);
}

Test(links, linux_operstate_and_carrier)
{
	const struct inv_switch *sw = sw_named("sw-linux");
	struct port_state st[3];
	char err[256] = "";
	const char *out =
	    "[{\"ifindex\":1,\"ifname\":\"lo\",\"flags\":[\"LOOPBACK\",\"UP\",\"LOWER_UP\"],"
	    "\"operstate\":\"UNKNOWN\"},"
	    "{\"ifindex\":2,\"ifname\":\"swp1\",\"flags\":[\"BROADCAST\",\"UP\",\"LOWER_UP\"],"
	    "\"operstate\":\"UP\"},"
	    "{\"ifindex\":3,\"ifname\":\"swp2\",\"flags\":[\"NO-CARRIER\",\"BROADCAST\",\"UP\"],"
	    "\"operstate\":\"LOWERLAYERDOWN\"}]";

	cr_assert_eq(links_parse(sw, out, st, err, sizeof(err)), 0, "%s", err);
	cr_assert(st[0].seen && st[0].up);
	cr_assert(st[1].seen && !st[1].up);
	cr_assert_str_eq(st[1].word, "LOWERLAYERDOWN");
	cr_assert(!st[2].seen, "swp3 is not in the output");
}

Test(links, sonic_appl_db_lines)
{
	const struct inv_switch *sw = sw_named("sw-sonic");
	struct port_state st[3];
	char err[256] = "";

	cr_assert_eq(
	    links_parse(sw, "Ethernet0 up\nEthernet4 down\nEthernet8 \n", st, err, sizeof(err)), 0,
	    "%s", err);
	cr_assert(st[0].seen && st[0].up);
	cr_assert(st[1].seen && !st[1].up);
	cr_assert_str_eq(st[1].word, "down");
	cr_assert(!st[2].seen, "an empty oper_status: a port APPL_DB does not know");
	cr_assert_eq(
	    links_parse(sw, "-bash: sonic-db-cli: command not found\n", st, err, sizeof(err)),
	    -EINVAL);
	cr_assert(strstr(err, "sw-sonic"), "%s", err);
}

Test(links, eos_link_status)
{
	const struct inv_switch *sw = sw_named("sw-eos");
	struct port_state st[3];
	char err[256] = "";
	const char *out = "{\"interfaceStatuses\": {"
			  "\"Ethernet1\": {\"linkStatus\": \"connected\", \"lineProtocolStatus\": "
			  "\"up\", \"bandwidth\": 100000000000},"
			  "\"Ethernet2\": {\"linkStatus\": \"notconnect\"},"
			  "\"Ethernet3\": {\"linkStatus\": \"disabled\"},"
			  "\"Management1\": {\"linkStatus\": \"connected\"}}}";

	cr_assert_eq(links_parse(sw, out, st, err, sizeof(err)), 0, "%s", err);
	cr_assert(st[0].up);
	cr_assert(st[1].seen && !st[1].up);
	cr_assert_str_eq(st[2].word, "disabled");
	cr_assert_eq(links_parse(sw, "% Invalid input", st, err, sizeof(err)), -EINVAL);
	cr_assert_eq(links_parse(sw, "{\"errors\": []}", st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "eos"), "%s", err);
}

Test(links, nvue_oper_status)
{
	const struct inv_switch *sw = sw_named("sw-nvue");
	struct port_state st[3];
	char err[256] = "";
	const char *out = "{\"eth0\": {\"type\": \"eth\", \"link\": {\"oper-status\": \"up\"}},"
			  "\"swp1\": {\"type\": \"swp\", \"link\": {\"oper-status\": \"up\", "
			  "\"speed\": \"100G\"}},"
			  "\"swp2\": {\"type\": \"swp\", \"link\": {\"oper-status\": \"down\"}},"
			  "\"swp3\": {\"type\": \"swp\"}}";

	cr_assert_eq(links_parse(sw, out, st, err, sizeof(err)), 0, "%s", err);
	cr_assert(st[0].up);
	cr_assert(st[1].seen && !st[1].up);
	cr_assert(st[2].seen && !st[2].up, "no oper-status is not up");
	cr_assert_str_eq(st[2].word, "?");
	cr_assert_eq(links_parse(sw, "[]", st, err, sizeof(err)), -EINVAL);
}
