// SPDX-License-Identifier: MIT
/* libnl-route wrappers used by the virtual lab builder and the netlink fault backend. */
#define _GNU_SOURCE
#include "harness/lib/nl.h"

#include "harness/lib/common.h"

#include <linux/fib_rules.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <netlink/addr.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/bridge.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <string.h>

int nl_to_errno(int e)
{
	switch (-e) {
	case 0:
		return 0;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:
		return -ENODEV;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_RANGE:
		return -ERANGE;
	case NLE_NOADDR:
		return -EADDRNOTAVAIL;
	default:
		return -EIO;
	}
}

static int get_link(const struct nsctx *c, const char *name, struct rtnl_link **link)
{
	int ret = rtnl_link_get_kernel(c->sk, 0, name, link);

	return ret < 0 ? nl_to_errno(ret) : 0;
}

int nl_ifindex(const struct nsctx *c, const char *name)
{
	struct rtnl_link *l;
	int ret = get_link(c, name, &l);

	if (ret)
		return ret;
	ret = rtnl_link_get_ifindex(l);
	rtnl_link_put(l);
	return ret;
}

int nl_veth_add(const struct nsctx *a, const char *aname, const struct nsctx *b, const char *bname)
{
	struct rtnl_link *l = rtnl_link_veth_alloc(), *peer;
	int ret;

	if (!l)
		return -ENOMEM;
	peer = rtnl_link_veth_get_peer(l);
	rtnl_link_set_name(l, aname);
	rtnl_link_set_name(peer, bname);
	rtnl_link_set_ns_fd(peer, b->fd);
	ret = rtnl_link_add(a->sk, l, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(peer);
	rtnl_link_veth_release(l);
	return nl_to_errno(ret);
}

int nl_bridge_add(const struct nsctx *c, const char *name)
{
	struct rtnl_link *l = rtnl_link_bridge_alloc();
	int ret;

	if (!l)
		return -ENOMEM;
	rtnl_link_set_name(l, name);
	ret = rtnl_link_add(c->sk, l, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(l);
	return nl_to_errno(ret);
}

int nl_link_enslave(const struct nsctx *c, const char *master, const char *port)
{
	int m = nl_ifindex(c, master), p = nl_ifindex(c, port);

	if (m < 0)
		return m;
	if (p < 0)
		return p;
	return nl_to_errno(rtnl_link_enslave_ifindex(c->sk, m, p));
}

int nl_link_del(const struct nsctx *c, const char *name)
{
	struct rtnl_link *l = rtnl_link_alloc();
	int ret;

	if (!l)
		return -ENOMEM;
	rtnl_link_set_name(l, name);
	ret = nl_to_errno(rtnl_link_delete(c->sk, l));
	rtnl_link_put(l);
	return ret;
}

int nl_link_set_up(const struct nsctx *c, const char *name, bool up)
{
	struct rtnl_link *old, *chg;
	int ret = get_link(c, name, &old);

	if (ret)
		return ret;
	chg = rtnl_link_alloc();
	if (!chg) {
		rtnl_link_put(old);
		return -ENOMEM;
	}
	if (up)
		rtnl_link_set_flags(chg, IFF_UP);
	else
		rtnl_link_unset_flags(chg, IFF_UP);
	ret = nl_to_errno(rtnl_link_change(c->sk, old, chg, 0));
	rtnl_link_put(chg);
	rtnl_link_put(old);
	return ret;
}

int nl_link_info(const struct nsctx *c, const char *name, struct nl_link_info *info)
{
	struct rtnl_link *l;
	int ret = get_link(c, name, &l);

	if (ret)
		return ret;
	unsigned flags = rtnl_link_get_flags(l);

	info->admin_up = flags & IFF_UP;
	info->oper_up = (flags & IFF_RUNNING) && (flags & IFF_UP);
	info->rx_packets = rtnl_link_get_stat(l, RTNL_LINK_RX_PACKETS);
	info->tx_packets = rtnl_link_get_stat(l, RTNL_LINK_TX_PACKETS);
	info->rx_bytes = rtnl_link_get_stat(l, RTNL_LINK_RX_BYTES);
	info->tx_bytes = rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES);
	info->rx_dropped = rtnl_link_get_stat(l, RTNL_LINK_RX_DROPPED);
	info->tx_dropped = rtnl_link_get_stat(l, RTNL_LINK_TX_DROPPED);
	rtnl_link_put(l);
	return 0;
}

static struct nl_addr *v4(struct in_addr a, int len)
{
	struct nl_addr *n = nl_addr_build(AF_INET, &a, sizeof(a));

	if (n)
		nl_addr_set_prefixlen(n, len);
	return n;
}

int nl_addr_add(const struct nsctx *c, const char *dev, struct in_addr a, int len)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *local = v4(a, len);
	int idx = nl_ifindex(c, dev), ret;

	if (!ra || !local) {
		ret = -ENOMEM;
		goto put;
	}
	if (idx < 0) {
		ret = idx;
		goto put;
	}
	rtnl_addr_set_ifindex(ra, idx);
	rtnl_addr_set_family(ra, AF_INET);
	rtnl_addr_set_local(ra, local);
	rtnl_addr_set_prefixlen(ra, len);
	ret = nl_to_errno(rtnl_addr_add(c->sk, ra, 0));
put:
	if (local)
		nl_addr_put(local);
	if (ra)
		rtnl_addr_put(ra);
	return ret;
}

static struct rtnl_route *route_new(uint32_t table, struct in_addr dst, int len)
{
	struct rtnl_route *r = rtnl_route_alloc();
	struct nl_addr *d = v4(dst, len);

	if (!r || !d) {
		if (r)
			rtnl_route_put(r);
		if (d)
			nl_addr_put(d);
		return NULL;
	}
	rtnl_route_set_family(r, AF_INET);
	rtnl_route_set_table(r, table);
	rtnl_route_set_dst(r, d);
	nl_addr_put(d);
	return r;
}

int nl_route_add(const struct nsctx *c, uint32_t table, struct in_addr dst, int len,
		 const struct nl_nexthop *nh, size_t n_nh, const char *dev)
{
	struct rtnl_route *r = route_new(table, dst, len);
	int ret = 0;

	if (!r)
		return -ENOMEM;
	rtnl_route_set_protocol(r, RTPROT_STATIC);
	rtnl_route_set_scope(r, n_nh ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK);
	for (size_t i = 0; i < (n_nh ? n_nh : 1); i++) {
		const char *d = n_nh ? nh[i].dev : dev;
		int idx = d ? nl_ifindex(c, d) : 0;
		struct rtnl_nexthop *x;

		if (idx < 0) {
			ret = idx;
			goto put;
		}
		x = rtnl_route_nh_alloc();
		if (!x) {
			ret = -ENOMEM;
			goto put;
		}
		if (idx)
			rtnl_route_nh_set_ifindex(x, idx);
		if (n_nh) {
			struct nl_addr *gw = v4(nh[i].gw, 32);

			rtnl_route_nh_set_gateway(x, gw);
			nl_addr_put(gw);
		}
		rtnl_route_add_nexthop(r, x); /* r owns x now */
	}
	ret = nl_to_errno(rtnl_route_add(c->sk, r, NLM_F_CREATE | NLM_F_EXCL));
put:
	rtnl_route_put(r);
	return ret;
}

int nl_route_del(const struct nsctx *c, uint32_t table, struct in_addr dst, int len)
{
	struct rtnl_route *r = route_new(table, dst, len);
	int ret;

	if (!r)
		return -ENOMEM;
	rtnl_route_set_scope(r, RT_SCOPE_NOWHERE);
	ret = nl_to_errno(rtnl_route_delete(c->sk, r, 0));
	rtnl_route_put(r);
	return ret;
}

static struct rtnl_rule *rule_new(uint32_t pref, const struct in_addr *src, const char *iif,
				  uint32_t table)
{
	struct rtnl_rule *r = rtnl_rule_alloc();

	if (!r)
		return NULL;
	rtnl_rule_set_family(r, AF_INET);
	rtnl_rule_set_prio(r, pref);
	rtnl_rule_set_table(r, table);
	rtnl_rule_set_action(r, FR_ACT_TO_TBL);
	if (src) {
		struct nl_addr *a = v4(*src, 32);

		rtnl_rule_set_src(r, a);
		nl_addr_put(a);
	}
	if (iif)
		rtnl_rule_set_iif(r, iif);
	return r;
}

int nl_rule_add(const struct nsctx *c, uint32_t pref, const struct in_addr *src, const char *iif,
		uint32_t table)
{
	struct rtnl_rule *r = rule_new(pref, src, iif, table);
	int ret;

	if (!r)
		return -ENOMEM;
	ret = nl_to_errno(rtnl_rule_add(c->sk, r, NLM_F_CREATE | NLM_F_EXCL));
	rtnl_rule_put(r);
	return ret;
}

int nl_rule_del(const struct nsctx *c, uint32_t pref, const struct in_addr *src, const char *iif,
		uint32_t table)
{
	struct rtnl_rule *r = rule_new(pref, src, iif, table);
	int ret;

	if (!r)
		return -ENOMEM;
	ret = nl_to_errno(rtnl_rule_delete(c->sk, r, 0));
	rtnl_rule_put(r);
	return ret;
}

#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

unsigned long long nl_tbf_burst(unsigned long long rate_kbit)
{
	unsigned long long bps = rate_kbit * 1000 / 8;

	return bps / 1000 > 1600 ? bps / 1000 : 1600;
}

unsigned long long nl_tbf_limit(unsigned long long rate_kbit)
{
	return rate_kbit * 1000 / 8 * NL_TBF_LATENCY_MS / 1000 + nl_tbf_burst(rate_kbit);
}

int nl_qdisc_tbf(const struct nsctx *c, const char *dev, unsigned long long rate_kbit)
{
	struct rtnl_qdisc *q;
	int idx = nl_ifindex(c, dev), ret;
	unsigned long long bps = rate_kbit * 1000 / 8, bucket = nl_tbf_burst(rate_kbit);

	if (idx < 0)
		return idx;
	if (bps > 0xffffffffULL)
		return -ERANGE;
	q = rtnl_qdisc_alloc();
	if (!q)
		return -ENOMEM;
	rtnl_tc_set_ifindex(TC_CAST(q), idx);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(1, 0));
	ret = rtnl_tc_set_kind(TC_CAST(q), "tbf");
	if (ret == 0) {
		rtnl_qdisc_tbf_set_rate(q, (int)bps, (int)bucket, 0);
		ret = rtnl_qdisc_tbf_set_limit_by_latency(q, NL_TBF_LATENCY_MS * 1000);
	}
	if (ret == 0)
		ret = rtnl_qdisc_add(c->sk, q, NLM_F_CREATE | NLM_F_REPLACE);
	rtnl_qdisc_put(q);
	return nl_to_errno(ret);
}

int nl_qdisc_del_root(const struct nsctx *c, const char *dev)
{
	struct rtnl_qdisc *q;
	int idx = nl_ifindex(c, dev), ret;

	if (idx < 0)
		return idx;
	q = rtnl_qdisc_alloc();
	if (!q)
		return -ENOMEM;
	rtnl_tc_set_ifindex(TC_CAST(q), idx);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	ret = nl_to_errno(rtnl_qdisc_delete(c->sk, q));
	rtnl_qdisc_put(q);
	/* Deleting the default root qdisc is refused: nothing of ours was there. */
	return (ret == -ENODEV || ret == -EINVAL || ret == -EIO) ? 0 : ret;
}

int nl_qdisc_root_kind(const struct nsctx *c, const char *dev, char *buf, size_t len)
{
	struct nl_cache *cache;
	struct rtnl_qdisc *q;
	int idx = nl_ifindex(c, dev), ret = -ENOENT;

	if (idx < 0)
		return idx;
	if (rtnl_qdisc_alloc_cache(c->sk, &cache) < 0)
		return -EIO;
	q = rtnl_qdisc_get_by_parent(cache, idx, TC_H_ROOT);
	if (q) {
		snprintf(buf, len, "%s", rtnl_tc_get_kind(TC_CAST(q)));
		rtnl_qdisc_put(q);
		ret = 0;
	}
	nl_cache_free(cache);
	return ret;
}

int nl_rule_exists(const struct nsctx *c, uint32_t pref)
{
	struct nl_cache *cache;
	int found = 0;

	if (rtnl_rule_alloc_cache(c->sk, AF_INET, &cache) < 0)
		return -EIO;
	for (struct nl_object *o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o))
		if (rtnl_rule_get_prio((struct rtnl_rule *)o) == pref)
			found = 1;
	nl_cache_free(cache);
	return found;
}

int nl_route_exists(const struct nsctx *c, uint32_t table, struct in_addr dst, int len)
{
	struct nl_cache *cache;
	int found = 0;

	if (rtnl_route_alloc_cache(c->sk, AF_INET, 0, &cache) < 0)
		return -EIO;
	for (struct nl_object *o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct rtnl_route *r = (struct rtnl_route *)o;
		struct nl_addr *d = rtnl_route_get_dst(r);

		if (rtnl_route_get_table(r) != table || !d || (int)nl_addr_get_prefixlen(d) != len)
			continue;
		if (len == 0 || !memcmp(nl_addr_get_binary_addr(d), &dst, 4))
			found = 1;
	}
	nl_cache_free(cache);
	return found;
}
