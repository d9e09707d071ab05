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

/* 'ip -j addr show' of a host managed on mgmt0, its RNIC rnic1 (iproute2 6.x, trimmed). */
static const char addrs_js[] =
    "[{\"ifindex\":1,\"ifname\":\"lo\",\"addr_info\":[]},"
    "{\"ifindex\":2,\"ifname\":\"rnic1\",\"flags\":[\"UP\",\"LOWER_UP\"],\"addr_info\":[{"
    "\"family\":\"inet\",\"local\":\"198.18.1.1\",\"prefixlen\":24,\"scope\":\"global\"},{"
    "\"family\":\"inet6\",\"local\":\"fe80::bce7:40ff:fe0e:32a5\",\"prefixlen\":64}]},"
    "{\"ifindex\":3,\"ifname\":\"mgmt0\",\"flags\":[\"UP\",\"LOWER_UP\"],\"addr_info\":[{"
    "\"family\":\"inet\",\"local\":\"198.19.128.11\",\"prefixlen\":17,\"scope\":\"global\"}]}]";

static const char *through(const char *addrs, const char *route, const char *mgmt, const char *name)
{
	json_t *a = json_loads(addrs, 0, NULL), *r = route ? json_loads(route, 0, NULL) : NULL;
	const char *names[] = {name}, *t;

	cr_assert_not_null(a);
	t = host_mgmt_through(a, r, mgmt, names, 1);
	json_decref(a);
	json_decref(r);
	return t;
}

/* Issue 63: a fault never takes down the way rocelab reaches a device. */
Test(host_found, the_management_path_is_found_by_address_and_by_route)
{
	static const char via_mgmt[] = "[{\"dst\":\"198.19.128.1\",\"from\":\"198.19.128.11\","
				       "\"dev\":\"mgmt0\",\"flags\":[],\"uid\":0,\"cache\":[]}]",
			  via_rnic[] = "[{\"dst\":\"198.19.128.1\",\"from\":\"198.19.128.11\","
				       "\"dev\":\"rnic1\",\"flags\":[],\"uid\":0,\"cache\":[]}]";

	/* managed out of band: rnic1 may go down */
	cr_assert_null(through(addrs_js, via_mgmt, "198.19.128.11", "rnic1"));
	cr_assert_null(through(addrs_js, NULL, "198.19.128.11", "rnic1"));
	/* its answers to the controller leave by rnic1 */
	cr_assert_str_eq(through(addrs_js, via_rnic, "198.19.128.11", "rnic1"), "rnic1");
	/* managed in band, on the RNIC's own address (route not asked) */
	cr_assert_str_eq(through(addrs_js, NULL, "198.18.1.1", "rnic1"), "rnic1");
	/* the management port itself */
	cr_assert_str_eq(through(addrs_js, via_mgmt, "198.19.128.11", "mgmt0"), "mgmt0");
	/* output of another shape reads as no path through it, not as a crash */
	cr_assert_null(through("{\"x\":1}", "[1]", "198.19.128.11", "rnic1"));
}
