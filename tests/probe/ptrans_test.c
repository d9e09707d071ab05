// SPDX-License-Identifier: MIT
/*
 * Probe transports by name, and 'auto': verbs where the RNIC has an RDMA
 * device, udp where it has none (this machine has none; the VM tier checks
 * the verbs side on rxe), and a monitor's transports summarized from its
 * agents' lines.
 */
#define _GNU_SOURCE
#include "harness/component/component.h"
#include "harness/lib/inventory.h"
#include "probe/moncomp.h"
#include "probe/ptrans.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

Test(ptrans, names_and_auto)
{
	cr_assert_eq(pt_find("udp"), &pt_udp_ops);
	cr_assert_eq(pt_find("verbs"), &pt_verbs_ops);
	cr_assert_eq(pt_find("auto"), &pt_auto_ops);
	cr_assert_null(pt_find("tcp"));
	cr_assert_str_eq(pt_names(), "udp, verbs, auto");
}

Test(ptrans, resolve_keeps_a_named_transport)
{
	char how[320];

	cr_assert_eq(pt_resolve(&pt_udp_ops, NULL, how, sizeof(how)), &pt_udp_ops);
	cr_assert_str_eq(how, "udp transport");
	cr_assert_eq(pt_resolve(&pt_verbs_ops, NULL, how, sizeof(how)), &pt_verbs_ops);
	cr_assert_str_eq(how, "verbs transport");
}

Test(ptrans, auto_without_an_rdma_device_is_udp_and_says_why)
{
	struct inv_rnic rn = {.name = "rnic1", .netdev = "rlnosuchdev", .gid_index = -1};
	struct inv_host h = {.name = "host1", .rnics = &rn, .n_rnics = 1};
	char how[320];

	inet_pton(AF_INET, "198.18.1.1", &rn.addr.addr);
	rn.addr.len = 24;
	cr_assert_eq(pt_resolve(&pt_auto_ops, &h, how, sizeof(how)), &pt_udp_ops);
	cr_assert(strstr(how, "udp transport (auto: ") == how, "%s", how);
	/* Either no device at all or none with this RNIC's address: the verbs error, named. */
	cr_assert(strstr(how, "RDMA device"), "%s", how);
	cr_assert_eq(pt_resolve(&pt_auto_ops, NULL, how, sizeof(how)), &pt_udp_ops);
	cr_assert_str_eq(how, "udp transport (auto: no RNIC to try verbs on)");
}

static json_t *agent(const char *host, const char *transport)
{
	json_t *j = json_pack("{s:s, s:s}", "type", "agent", "host", host);

	if (transport)
		json_object_set_new(j, "transport", json_string(transport));
	return j;
}

static const char *summary(json_t *agents, const char *configured, json_t **per)
{
	static char buf[32];
	struct comp_obs obs = {.section = json_object()};

	mon_transport(agents, configured, &obs);
	snprintf(buf, sizeof(buf), "%s",
		 json_string_value(json_object_get(obs.section, "transport")));
	*per = json_incref(json_object_get(obs.section, "transports"));
	json_decref(obs.section);
	json_decref(agents);
	return buf;
}

Test(ptrans, a_monitors_transports_from_its_agents)
{
	json_t *per;

	cr_assert_str_eq(summary(json_pack("[oo]", agent("host1", "verbs"), agent("host2", "udp")),
				 "auto", &per),
			 "mixed");
	cr_assert_str_eq(json_string_value(json_object_get(per, "host1")), "verbs");
	cr_assert_str_eq(json_string_value(json_object_get(per, "host2")), "udp");
	json_decref(per);
	cr_assert_str_eq(
	    summary(json_pack("[oo]", agent("host1", "udp"), agent("host1", "udp")), "auto", &per),
	    "udp");
	json_decref(per);
	/* No agent said (an older agent, or none ran): the configured one. */
	cr_assert_str_eq(summary(json_pack("[o]", agent("host1", NULL)), "verbs", &per), "verbs");
	cr_assert_eq(json_object_size(per), 0);
	json_decref(per);
}
