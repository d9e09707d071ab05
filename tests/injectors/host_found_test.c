// SPDX-License-Identifier: MIT
/* Unit tests of rules and routes as found on a host ('ip -j'), as commands that restore them. */
#define _GNU_SOURCE
#include "injectors/host_found.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The command for one found object (iproute2 6.1's JSON, as a host printed it). */
static char *route(const char *js, const char *tbl, bool v6, enum host_route_verb add)
{
	json_t *o = json_loads(js, 0, NULL);
	struct sbuf b = {0};

	cr_assert_not_null(o, "%s", js);
	cr_assert_eq(host_route_cmd(o, tbl, v6, add, &b), 0, "%s", js);
	json_decref(o);
	return b.p;
}

Test(host_found, a_route_is_deleted_by_name_and_restored_whole)
{
	const char *js =
	    "{\"dst\":\"198.18.10.0/24\",\"gateway\":\"198.18.9.254\",\"dev\":\"rnic2\","
	    "\"table\":\"200\",\"protocol\":\"static\",\"metric\":5,\"flags\":[]}";
	char *del = route(js, "200", false, false), *add = route(js, "200", false, true);

	cr_assert_str_eq(del, "ip route del 198.18.10.0/24 table 200 via 198.18.9.254 dev rnic2 "
			      "metric 5");
	cr_assert_str_eq(add, "ip route add 198.18.10.0/24 table 200 via 198.18.9.254 dev rnic2 "
			      "metric 5 proto static");
	free(del);
	free(add);
	/* an undo that may run twice (after a crash): replace, the same route whole */
	add = route(js, "200", false, HOST_ROUTE_REPLACE);
	cr_assert_str_eq(add, "ip route replace 198.18.10.0/24 table 200 via 198.18.9.254 dev "
			      "rnic2 metric 5 proto static");
	free(add);
}

Test(host_found, onlink_is_restored_and_state_flags_are_not)
{
	char *a = route("{\"dst\":\"default\",\"gateway\":\"198.18.9.254\",\"dev\":\"rnic1\","
			"\"flags\":[\"onlink\"]}",
			"main", false, true),
	     *b = route("{\"dst\":\"default\",\"gateway\":\"198.18.9.254\",\"dev\":\"rnic1\","
			"\"flags\":[\"linkdown\",\"offload\"]}",
			"main", false, true);

	cr_assert_str_eq(a, "ip route add default table main via 198.18.9.254 dev rnic1 onlink");
	cr_assert_str_eq(b, "ip route add default table main via 198.18.9.254 dev rnic1");
	free(a);
	free(b);
}

Test(host_found, an_ipv6_route_keeps_its_family_and_preference)
{
	char *a =
	    route("{\"dst\":\"2001:db8:1::/64\",\"gateway\":\"2001:db8::fe\",\"dev\":\"rnic1\","
		  "\"metric\":1024,\"flags\":[],\"pref\":\"medium\"}",
		  "main", true, true);

	cr_assert_str_eq(a, "ip -6 route add 2001:db8:1::/64 table main via 2001:db8::fe dev rnic1 "
			    "metric 1024 pref medium");
	free(a);
}

Test(host_found, a_rule_with_its_source_prefix)
{
	json_t *o = json_loads("{\"priority\":102,\"src\":\"198.18.2.1\",\"srclen\":32,"
			       "\"iif\":\"lo\",\"table\":\"102\"}",
			       0, NULL);
	struct sbuf b = {0};

	cr_assert_eq(host_rule_cmd(o, "add", &b), 0);
	cr_assert_str_eq(b.p, "ip rule add pref 102 from 198.18.2.1/32 iif lo table 102");
	json_decref(o);
	free(b.p);
}

Test(host_found, what_cannot_be_one_word_or_is_unknown_is_refused)
{
	json_t *o = json_loads("{\"dst\":\"10.0.0.0/8; reboot\",\"dev\":\"rnic1\"}", 0, NULL),
	       *m = json_loads("{\"dst\":\"10.0.0.0/8\",\"metrics\":[{\"mtu\":9000}]}", 0, NULL);
	struct sbuf b = {0};
	char bad[32] = "";

	cr_assert_eq(host_route_cmd(o, "main", false, true, &b), -EINVAL,
		     "a value that is not one word never reaches a command line");
	cr_assert_not(host_found_keys(m, host_route_keys, bad, sizeof(bad)));
	cr_assert_str_eq(bad, "metrics");
	free(b.p);
	json_decref(o);
	json_decref(m);
}
