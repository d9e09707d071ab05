// SPDX-License-Identifier: MIT
/* Counters as evidence (counters.h): each tool's output read, the ends of a target, the deltas. */
#define _GNU_SOURCE
#include "injectors/counters.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/ctr.h"
#include "injectors/nos/nos_ops.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define LAB "../lab-inventory/vlab-rail.yaml"

static long long n(json_t *g, const char *name)
{
	json_t *v = json_object_get(g, name);

	cr_assert(json_is_integer(v), "no counter '%s'", name);
	return (long long)json_integer_value(v);
}

/* iproute2 6.1's 'ip -s -j link show dev lo', as it printed here */
static const char ip_link[] =
    "[{\"ifindex\":1,\"ifname\":\"lo\",\"flags\":[\"LOOPBACK\",\"UP\",\"LOWER_UP\"],\"mtu\":65536,"
    "\"qdisc\":\"noqueue\",\"operstate\":\"UNKNOWN\",\"stats64\":{\"rx\":{\"bytes\":1666592,"
    "\"packets\":3119,\"errors\":0,\"dropped\":7,\"over_errors\":0,\"multicast\":0},\"tx\":{"
    "\"bytes\":1666592,\"packets\":3119,\"errors\":0,\"dropped\":0,\"carrier_errors\":0,"
    "\"collisions\":0}}}]";

Test(counters, ip_link_stats64_by_direction)
{
	json_t *g = json_object();

	cr_assert_eq(nos_ctr_ip_link("lo", ip_link, g), 0);
	cr_assert_eq(n(g, "rx_packets"), 3119);
	cr_assert_eq(n(g, "rx_dropped"), 7);
	cr_assert_eq(n(g, "tx_carrier_errors"), 0);
	cr_assert_null(json_object_get(g, "mtu"));
	cr_assert_eq(nos_ctr_ip_link("lo", "[{\"ifname\":\"lo\"}]", g), -EINVAL,
		     "no stats64: not -s");
	cr_assert_eq(nos_ctr_ip_link("lo", "Device \"x\" does not exist.", g), -EINVAL);
	json_decref(g);
}

/* 'tc -s -j qdisc show dev swp1' on an emulated lossless class: htb, and red's marks in options */
Test(counters, tc_qdisc_drops_and_marks_by_handle_and_kind)
{
	static const char tc[] =
	    "[{\"kind\":\"htb\",\"handle\":\"1:\",\"root\":true,\"options\":{\"r2q\":10},"
	    "\"bytes\":9000,\"packets\":90,\"drops\":3,\"overlimits\":12,\"requeues\":0,"
	    "\"backlog\":0,\"qlen\":0},{\"kind\":\"red\",\"handle\":\"10:\",\"parent\":\"1:10\","
	    "\"options\":{\"limit\":400000,\"marked\":41,\"early\":2},\"bytes\":100,\"packets\":1,"
	    "\"drops\":2,\"overlimits\":0,\"requeues\":0}]";
	json_t *g = json_object();

	cr_assert_eq(nos_ctr_tc_qdisc("swp1", tc, g), 0);
	cr_assert_eq(n(g, "1: htb drops"), 3);
	cr_assert_eq(n(g, "1: htb overlimits"), 12);
	cr_assert_eq(n(g, "10: red marked"), 41);
	cr_assert_eq(n(g, "10: red drops"), 2);
	cr_assert_eq(nos_ctr_tc_qdisc("swp1", "{}", g), -EINVAL);
	json_decref(g);
}

/* ethtool.c do_gnicstats(): mlx5's names, and lines that are not counters left out */
Test(counters, ethtool_stats_lines)
{
	static const char out[] = "NIC statistics:\n"
				  "     rx_packets: 1200\n"
				  "     rx_prio3_pause: 55\n"
				  "     rx_discards_phy: 4\n"
				  "     tx_pause_ctrl_phy: 18446744073709551615\n"
				  "     not a counter\n"
				  "     ch0_arm: -1\n";
	json_t *g = json_object();

	cr_assert_eq(nos_ctr_ethtool("rnic1", out, g), 0);
	cr_assert_eq(n(g, "rx_prio3_pause"), 55);
	cr_assert_eq(n(g, "rx_discards_phy"), 4);
	cr_assert_eq(json_object_size(g), 3, "2^64-1 is no count: left out");
	cr_assert_eq(nos_ctr_ethtool("rnic1", "no stats available\n", g), -EINVAL);
	json_decref(g);
}

/* A device's names are data: one with a control character (an escape, a newline) is left out. */
Test(counters, names_with_control_characters_are_left_out)
{
	json_t *g = json_object();

	cr_assert_eq(
	    nos_ctr_ethtool("rnic1", "NIC statistics:\n     a\033]0;x\007b: 5\n     ok: 6\n", g),
	    0);
	cr_assert_eq(
	    nos_ctr_rdma_stat("rnic1", "[{\"ifname\":\"x\",\"port\":1,\"bad\\nname\":3}]", g), 0);
	cr_assert_eq(nos_ctr_sonic_hash("Ethernet4", "{'SAI\033[2J': '5', 'x\ny': '1'}", g), 0);
	cr_assert_eq(json_object_size(g), 1);
	cr_assert_eq(n(g, "ok"), 6);
	json_decref(g);
}

/* rdma/stat.c stat_show_parse_cb(): ifname, port, then the hardware counters by name */
Test(counters, rdma_statistic_and_link)
{
	static const char st[] = "[{\"ifname\":\"mlx5_0\",\"port\":1,\"out_of_sequence\":2,"
				 "\"np_cnp_sent\":31,\"rp_cnp_handled\":30,\"np_ecn_marked_roce_"
				 "packets\":31,\"local_ack_timeout_err\":0}]";
	static const char link[] =
	    "[{\"ifindex\":0,\"ifname\":\"rxe0\",\"port\":1,\"state\":"
	    "\"ACTIVE\",\"physical_state\":\"LINK_UP\",\"netdev\":\"eth1\","
	    "\"netdev_index\":3},{\"ifindex\":1,\"ifname\":\"mlx5_0\",\"port\":"
	    "1,\"state\":\"ACTIVE\",\"netdev\":\"rnic1\",\"netdev_index\":5}]";
	json_t *g = json_object();
	char buf[64];

	cr_assert_eq(nos_ctr_rdma_stat("rnic1", st, g), 0);
	cr_assert_eq(n(g, "np_cnp_sent"), 31);
	cr_assert_null(json_object_get(g, "port"));
	cr_assert_null(json_object_get(g, "ifname"));
	cr_assert_eq(nos_ctr_rdma_link(link, "rnic1", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "mlx5_0/1");
	cr_assert_eq(nos_ctr_rdma_link(link, "rnic9", buf, sizeof(buf)), -ENOENT);
	cr_assert_eq(nos_ctr_rdma_link("[]", "rnic1", buf, sizeof(buf)), -ENOENT);
	json_decref(g);
}

/*
 * SONiC: sonic-db-cli's HGETALL without --json (redisreply.cpp formatDictReply): a value with
 * a quote is double-quoted; a port not in COUNTERS_PORT_NAME_MAP gives {}.
 */
Test(counters, sonic_counters_db_hash)
{
	static const char out[] =
	    "{'SAI_PORT_STAT_IF_IN_OCTETS': '81920', 'NOTE': \"it's\", "
	    "'SAI_PORT_STAT_IF_IN_DISCARDS': '7', 'SAI_PORT_STAT_PFC_3_RX_PKTS': '1200', "
	    "'SAI_PORT_STAT_PFC_3_TX_PKTS': '0', 'SAI_PORT_STAT_BAD': '-1'}\n";
	/* a queue's hash: its drops, and the PFC watchdog's state and stats (pfcwd/main.py) */
	static const char queue[] =
	    "{'SAI_QUEUE_STAT_PACKETS': '50', 'SAI_QUEUE_STAT_DROPPED_PACKETS': '3', "
	    "'PFC_WD_STATUS': 'stormed', 'PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED': '1', "
	    "'PFC_WD_ACTION': 'drop'}";
	json_t *g = json_object();

	cr_assert_eq(nos_ctr_sonic_hash("Ethernet4", out, g), 0);
	cr_assert_eq(n(g, "SAI_PORT_STAT_PFC_3_RX_PKTS"), 1200,
		     "read on after a double-quoted value");
	cr_assert_eq(n(g, "SAI_PORT_STAT_IF_IN_DISCARDS"), 7);
	cr_assert_eq(json_object_size(g), 4);
	json_decref(g);
	g = json_object();
	cr_assert_eq(nos_ctr_sonic_hash("Ethernet4", queue, g), 0);
	cr_assert_str_eq(json_string_value(json_object_get(g, "PFC_WD_STATUS")), "stormed");
	cr_assert_eq(n(g, "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"), 1);
	cr_assert_null(json_object_get(g, "PFC_WD_ACTION"), "a setting, not a state: left out");
	cr_assert_eq(nos_ctr_sonic_hash("Ethernet4", "{}\n", g), -EINVAL);
	cr_assert_eq(nos_ctr_sonic_hash("Ethernet4", "", g), -EINVAL);
	json_decref(g);
}

/* EOS: interfaceCounters as napalm's fixture has them (nested error details one level down) */
Test(counters, eos_interface_and_pfc)
{
	static const char ifc[] =
	    "{\"interfaces\": {\"Ethernet1\": {\"interfaceCounters\": {\"outBroadcastPkts\": 0, "
	    "\"linkStatusChanges\": 2, \"counterRefreshTime\": 1478085320.927135, "
	    "\"outputErrorsDetail\": "
	    "{\"txPause\": 4, \"collisions\": 0}, \"inOctets\": 100, \"inputErrorsDetail\": "
	    "{\"rxPause\": 9, \"fcsErrors\": 1}, \"inDiscards\": 3}}}}";
	static const char pfc[] = "{\"interfaces\": {\"Ethernet1\": {\"priorities\": {\"3\": "
				  "{\"rxFrames\": 120, \"txFrames\": 5}}}}}";
	json_t *g = json_object();

	cr_assert_eq(nos_ctr_eos_interface("Ethernet1", ifc, g), 0);
	cr_assert_eq(n(g, "inDiscards"), 3);
	cr_assert_eq(n(g, "inputErrorsDetail.fcsErrors"), 1);
	cr_assert_eq(n(g, "outputErrorsDetail.txPause"), 4);
	cr_assert_null(json_object_get(g, "counterRefreshTime"), "a time is no counter");
	cr_assert_eq(nos_ctr_eos_interface("Ethernet2", ifc, g), -EINVAL, "another port");
	json_decref(g);
	g = json_object();
	cr_assert_eq(nos_ctr_eos_pfc("Ethernet1", pfc, g), 0);
	cr_assert_eq(n(g, "3.rxFrames"), 120);
	cr_assert_eq(n(g, "3.txFrames"), 5);
	json_decref(g);
}

/* Each NOS room's reads of a port: what runs, in which group. */
Test(counters, each_nos_reads_its_own_way)
{
	struct nos_ctr_read r[NOS_CTR_READS];
	size_t k;

	k = nos_ops_of(INV_DIALECT_LINUX)->counters("swp3", 3, r, NOS_CTR_READS);
	cr_assert_eq(k, 2);
	cr_assert_str_eq(r[0].group, "link");
	cr_assert_str_eq(r[1].argv[0], "tc");
	cr_assert_str_eq(r[1].argv[6], "swp3");
	cr_assert_eq(r[1].line[0], '\0');
	k = nos_ops_of(INV_DIALECT_NVUE)->counters("swp3", -1, r, NOS_CTR_READS);
	cr_assert_eq(k, 2);
	cr_assert_str_eq(r[1].argv[0], "ethtool");
	k = nos_ops_of(INV_DIALECT_SONIC)->counters("Ethernet4", -1, r, NOS_CTR_READS);
	cr_assert_eq(k, 1);
	cr_assert_str_eq(r[0].line, "sonic-db-cli COUNTERS_DB HGETALL \"COUNTERS:$(sonic-db-cli "
				    "COUNTERS_DB HGET COUNTERS_PORT_NAME_MAP Ethernet4)\"");
	/* with a priority, its queue's (and PFC watchdog's) and priority group's hashes too */
	k = nos_ops_of(INV_DIALECT_SONIC)->counters("Ethernet4", 3, r, NOS_CTR_READS);
	cr_assert_eq(k, 3);
	cr_assert_str_eq(r[1].group, "queue 3");
	cr_assert_str_eq(r[1].line, "sonic-db-cli COUNTERS_DB HGETALL \"COUNTERS:$(sonic-db-cli "
				    "COUNTERS_DB HGET COUNTERS_QUEUE_NAME_MAP Ethernet4:3)\"");
	cr_assert_str_eq(r[2].group, "pg 3");
	cr_assert_str_eq(r[2].line, "sonic-db-cli COUNTERS_DB HGETALL \"COUNTERS:$(sonic-db-cli "
				    "COUNTERS_DB HGET COUNTERS_PG_NAME_MAP Ethernet4:3)\"");
	k = nos_ops_of(INV_DIALECT_EOS)->counters("Ethernet4/1", -1, r, NOS_CTR_READS);
	cr_assert_eq(k, 2);
	cr_assert_str_eq(r[0].line, "show interfaces Ethernet4/1 | json");
	cr_assert_str_eq(
	    r[1].line, "show interfaces Ethernet4/1 priority-flow-control counters detail | json");
	/* with a priority, every queue's drops and ECN marks too */
	k = nos_ops_of(INV_DIALECT_EOS)->counters("Ethernet4/1", 3, r, NOS_CTR_READS);
	cr_assert_eq(k, 4);
	cr_assert_str_eq(r[2].group, "queues");
	cr_assert_str_eq(r[2].line, "show interfaces Ethernet4/1 counters queue detail | json");
	cr_assert_str_eq(r[3].group, "ecn");
	cr_assert_str_eq(r[3].line, "show qos interfaces Ethernet4/1 ecn counters queue | json");
}

/*
 * EOS's queues as aristanetworks/anta's unit test data has them (tests/units/anta_tests/
 * test_interfaces.py: VerifyInterfacesEgressQueueDrops, VerifyInterfacesECNCounters), a
 * range's name as EOS writes it; hostile names and counts left out.
 */
Test(counters, eos_queues_and_ecn_marks)
{
	static const char q[] =
	    "{\"egressQueueCounters\": {\"interfaces\": {\"Ethernet1\": {"
	    "\"ucastQueues\": {\"trafficClasses\": {"
	    "\"TC3\": {\"dropPrecedences\": {\"DP0\": {\"droppedPackets\": 7}}},"
	    "\"TC0-2\": {\"dropPrecedences\": {\"DP0-2\": {\"droppedPackets\": 0}}},"
	    "\"TC\\u0007\": {\"dropPrecedences\": {\"DP0\": {\"droppedPackets\": 1}}}}},"
	    "\"mcastQueues\": {\"trafficClasses\": {"
	    "\"TC3\": {\"dropPrecedences\": {\"DP0\": {\"droppedPackets\": 4}}}}}}}}}";
	static const char e[] =
	    "{\"intfQueueCounters\": {\"Ethernet1\": {\"queueCounters\": {\"0\": \"0\", \"3\": "
	    "\"1107\", \"4\": 12, \"5\": \"12;reboot\", \"6\": \"-1\"}}}}";
	json_t *g = json_object();

	cr_assert_eq(nos_ctr_eos_queues("Ethernet1", q, g), 0);
	cr_assert_eq(n(g, "ucast TC3 DP0 droppedPackets"), 7);
	cr_assert_eq(n(g, "ucast TC0-2 DP0-2 droppedPackets"), 0);
	cr_assert_eq(n(g, "mcast TC3 DP0 droppedPackets"), 4);
	cr_assert_eq(json_object_size(g), 3, "a name that is not printable is left out");
	cr_assert_eq(nos_ctr_eos_queues("Ethernet2", q, g), -EINVAL, "another port");
	json_decref(g);
	g = json_object();
	cr_assert_eq(nos_ctr_eos_ecn("Ethernet1", e, g), 0);
	cr_assert_eq(n(g, "queue 3 ecn marked"), 1107);
	cr_assert_eq(n(g, "queue 0 ecn marked"), 0);
	cr_assert_eq(n(g, "queue 4 ecn marked"), 12, "a number is taken too");
	cr_assert_null(json_object_get(g, "queue 5 ecn marked"), "not digits: left out");
	cr_assert_null(json_object_get(g, "queue 6 ecn marked"));
	cr_assert_eq(nos_ctr_eos_ecn("Ethernet2", e, g), -EINVAL, "another port");
	cr_assert_eq(nos_ctr_eos_ecn("Ethernet1", "not json", g), -EINVAL);
	json_decref(g);
}

/*
 * A PFC storm's revert waits for the switch's PFC watchdog of the queue (pfc_storm.c wd_end()):
 * SONiC says its state in the queue's COUNTERS_DB hash and its restoration time in CONFIG_DB
 * (sonic-utilities pfcwd/main.py); the other NOSes' are not read.
 */
Test(counters, the_pfc_watchdog_sonic_reads)
{
	struct sbuf state = {0}, restore = {0};

	nos_ops_of(INV_DIALECT_SONIC)->pfcwd("Ethernet4", 3, &state, &restore);
	cr_assert_str_eq(state.p, "sonic-db-cli COUNTERS_DB HGET \"COUNTERS:$(sonic-db-cli "
				  "COUNTERS_DB HGET COUNTERS_QUEUE_NAME_MAP Ethernet4:3)\" "
				  "PFC_WD_STATUS");
	cr_assert_str_eq(restore.p,
			 "sonic-db-cli CONFIG_DB HGET \"PFC_WD|Ethernet4\" restoration_time");
	sb_free(&state);
	sb_free(&restore);
	cr_assert_null(nos_ops_of(INV_DIALECT_LINUX)->pfcwd);
	cr_assert_null(nos_ops_of(INV_DIALECT_EOS)->pfcwd);
	/* NVUE 5.6 has one too: tests/injectors/kinds/pfc_storm_test.c */
}

/*
 * Only what changed, by end and group; a reset counter is a negative delta, a new one from 0;
 * an end or a group unread before is left out (its whole count is no change).
 */
Test(counters, delta_keeps_what_changed)
{
	json_t *
	    b =
	       json_loads("{\"sw:p1\":{\"link\":{\"rx_packets\":10,\"tx_packets\":5,\"rx_dropped\":"
			  "0},\"qdisc\":{\"1: htb drops\":9}},\"h:r1\":{\"link\":{\"rx_packets\":"
			  "1}}}",
			  0, NULL),
	   *a = json_loads(
	       "{\"sw:p1\":{\"link\":{\"rx_packets\":110,\"tx_packets\":5,\"rx_dropped\":"
	       "3,\"new\":4},\"qdisc\":{\"1: htb drops\":2}},\"h:r1\":{\"link\":{\"rx_"
	       "packets\":1},\"ethtool\":{\"unread_before\":9}},\"h:r2\":{\"link\":{\"rx\":5}}}",
	       0, NULL),
	   *d = fault_ctr_delta(b, a),
	   *want = json_loads("{\"sw:p1\":{\"link\":{\"rx_packets\":"
			      "100,\"rx_dropped\":3,\"new\":4},\"qdisc\":{\"1: "
			      "htb drops\":-7}}}",
			      0, NULL);
	struct sbuf s = {0};

	cr_assert(json_equal(d, want), "%s", json_dumps(d, 0));
	{
		json_t *qb = json_loads("{\"e\":{\"queue 3\":{\"PFC_WD_STATUS\":\"operational\","
					"\"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED\":0}}}",
					0, NULL),
		       *qa = json_loads("{\"e\":{\"queue 3\":{\"PFC_WD_STATUS\":\"stormed\","
					"\"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED\":1}}}",
					0, NULL),
		       *qd = fault_ctr_delta(qb, qa);
		struct sbuf q = {0};

		fault_counters_say(qd, 8, &q);
		cr_assert_str_eq(q.p, "e: queue 3 PFC_WD_STATUS operational -> stormed, queue 3 "
				      "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED +1\n");
		sb_free(&q);
		json_decref(qa), json_decref(qb), json_decref(qd);
	}
	fault_counters_say(d, 2, &s);
	cr_assert_str_eq(s.p, "sw:p1: qdisc 1: htb drops -7, link rx_dropped +3 (and 2 more)\n");
	sb_free(&s);
	json_decref(a), json_decref(b), json_decref(d), json_decref(want);
}

static void ends_of(struct inventory *inv, const char *kind, const char *target,
		    struct fault_counters *c)
{
	struct fault_spec s;
	char why[256];

	fault_spec_init(&s, fault_kind_find(kind));
	cr_assert_eq(fault_spec_set(&s, "target", target, why, sizeof(why)), 0, "%s", why);
	if (!strchr(target, ':') && strcmp(kind, "cpu-hog"))
		cr_assert_eq(fault_spec_set(&s, "all-ports", NULL, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(fault_spec_resolve_target(inv, &s, why, sizeof(why)), 0, "%s", why);
	fault_counters_ends(inv, &s, c);
}

/* A port and what it is cabled to; an RNIC and its switch port; a whole switch; a host. */
Test(counters, the_ends_of_a_target)
{
	struct inventory *inv = inventory_load(LAB, stderr);
	struct fault_counters c;

	cr_assert_not_null(inv);
	ends_of(inv, "link-degrade", "rail1:swp5", &c);
	cr_assert_eq(c.n_ends, 2);
	cr_assert_eq(c.prio, -1, "link-degrade names no priority");
	cr_assert_str_eq(c.ends[0].name, "rail1:swp5");
	cr_assert_str_eq(c.ends[1].name, "spine1:swp1");
	ends_of(inv, "link-degrade", "rail1:swp1", &c);
	cr_assert_eq(c.n_ends, 2);
	cr_assert_str_eq(c.ends[1].name, "host1:rnic1");
	ends_of(inv, "rnic-route-missing", "host3:rnic2", &c);
	cr_assert_eq(c.n_ends, 2);
	cr_assert_str_eq(c.ends[0].name, "host3:rnic2");
	cr_assert_str_eq(c.ends[1].name, "rail2:swp3");
	ends_of(inv, "ipid-drop", "spine1", &c);
	cr_assert_eq(c.n_ends, 4, "spine1's cabled ports: %zu", c.n_ends);
	ends_of(inv, "pfc-misconfig", "rail1:swp2", &c);
	cr_assert_eq(c.prio, 3, "pfc-misconfig's priority, by default 3");
	ends_of(inv, "cpu-hog", "host2", &c);
	cr_assert_eq(c.n_ends, inv->hosts[1].n_rnics);
	cr_assert_str_eq(c.ends[0].name, "host2:rnic1");
	inventory_free(inv);
}
