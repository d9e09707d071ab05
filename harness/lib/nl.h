/* SPDX-License-Identifier: MIT */
/* Thin libnl-route helpers: links, veths, bridges, addresses, routes and policy rules in a
 * namespace. */
#ifndef ROCELAB_NL_H
#define ROCELAB_NL_H

#include "harness/lib/netns.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

/* Map a libnl error (negative NLE_*) to -errno. */
int nl_to_errno(int nlerr);

/* ifindex of name in c, or -ENODEV. */
int nl_ifindex(const struct nsctx *c, const char *name);

/* veth pair: aname in a, bname in b (both created directly in their namespaces). */
int nl_veth_add(const struct nsctx *a, const char *aname, const struct nsctx *b, const char *bname);
int nl_bridge_add(const struct nsctx *c, const char *name);
int nl_link_enslave(const struct nsctx *c, const char *master, const char *port);
int nl_link_del(const struct nsctx *c, const char *name);
int nl_link_set_up(const struct nsctx *c, const char *name, bool up);

struct nl_link_info {
	bool admin_up;
	bool oper_up; /* IFF_RUNNING / carrier */
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, rx_dropped, tx_dropped;
};
int nl_link_info(const struct nsctx *c, const char *name, struct nl_link_info *info);

int nl_addr_add(const struct nsctx *c, const char *dev, struct in_addr a, int len);

struct nl_nexthop {
	struct in_addr gw;
	const char *dev;
};

/*
 * Add a route to dst/len in table (RT_TABLE_MAIN = 254).  With n_nh == 0 the
 * route is connected (scope link) on dev.  Several next hops make an ECMP route.
 */
int nl_route_add(const struct nsctx *c, uint32_t table, struct in_addr dst, int len,
		 const struct nl_nexthop *nh, size_t n_nh, const char *dev);
int nl_route_del(const struct nsctx *c, uint32_t table, struct in_addr dst, int len);

/* Policy rule: pref, optional source /32 (src NULL: any), optional iif, lookup table. */
int nl_rule_add(const struct nsctx *c, uint32_t pref, const struct in_addr *src, const char *iif,
		uint32_t table);
int nl_rule_del(const struct nsctx *c, uint32_t pref, const struct in_addr *src, const char *iif,
		uint32_t table);

/*
 * The TBF rocelab shapes a link with, here and as tc commands (injectors/):
 * a bucket of 1 ms of the rate, at least 1600 bytes, and NL_TBF_LATENCY_MS
 * of queue behind it; nl_tbf_limit() is all it holds (tc's limit from
 * latency: the queue and the bucket), in bytes.  A switch port has no
 * bucket: every frame waits its time on the wire.  The floor is one full
 * frame (1514 bytes at a 1500-byte MTU) and a little; a bucket of three let
 * a probe and the two packets behind it through a 1.25 Mbit/s link at once,
 * which kept the slow path looking fast.  A bucket of 10 ms (62.5 KB at
 * 50 Mbit/s) let each of four equal uplinks pass 57 frames at once in its
 * own phase: their delays differed by more than Δ packets, MP-RDMA pruned
 * healthy paths before any fault and fell to two of four for seconds
 * (the MP-RDMA Fig. 14 runs, transport/README.md).
 */
#define NL_TBF_LATENCY_MS 50
unsigned long long nl_tbf_burst(unsigned long long rate_kbit);
unsigned long long nl_tbf_limit(unsigned long long rate_kbit);

/* Replace dev's root qdisc with that TBF at rate_kbit. */
int nl_qdisc_tbf(const struct nsctx *c, const char *dev, unsigned long long rate_kbit);
/* Delete dev's root qdisc; 0 when there was none of ours. */
int nl_qdisc_del_root(const struct nsctx *c, const char *dev);
/* Kind of dev's root qdisc ("noqueue", "tbf", ...) into buf; -ENOENT when none. */
int nl_qdisc_root_kind(const struct nsctx *c, const char *dev, char *buf, size_t len);
/* True when a policy rule with this pref exists. */
int nl_rule_exists(const struct nsctx *c, uint32_t pref);
/* True when table has a route to dst/len. */
int nl_route_exists(const struct nsctx *c, uint32_t table, struct in_addr dst, int len);

#endif
