// SPDX-License-Identifier: MIT
/* Executes host-side fault op lines over libnl (links, rules, routes, TBF) and DCBNL (PFC). */
#define _GNU_SOURCE
#include "injectors/netlink_op.h"

#include "injectors/host_cmd.h"

#include "harness/lib/common.h"
#include "harness/lib/nl.h"
#include "injectors/ecn_mark.h"

#include <arpa/inet.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdlib.h>
#include <string.h>

static bool absent(int r)
{
	return r == -ENODEV || r == -ENOENT || r == -ESRCH || r == -EADDRNOTAVAIL;
}

/* ---- DCBNL -------------------------------------------------------------- */

struct dcb_reply {
	bool got;
	struct ieee_pfc pfc;
};

static int dcb_valid(struct nl_msg *msg, void *arg)
{
	struct dcb_reply *r = arg;
	struct nlattr *tb[DCB_ATTR_MAX + 1], *ie[DCB_ATTR_IEEE_MAX + 1];

	if (nlmsg_parse(nlmsg_hdr(msg), sizeof(struct dcbmsg), tb, DCB_ATTR_MAX, NULL) < 0)
		return NL_SKIP;
	r->got = true;
	if (tb[DCB_ATTR_IEEE] && nla_len(tb[DCB_ATTR_IEEE]) > 1 &&
	    nla_parse_nested(ie, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE], NULL) == 0 &&
	    ie[DCB_ATTR_IEEE_PFC] && nla_len(ie[DCB_ATTR_IEEE_PFC]) >= (int)sizeof(r->pfc))
		memcpy(&r->pfc, nla_data(ie[DCB_ATTR_IEEE_PFC]), sizeof(r->pfc));
	return NL_STOP;
}

static int dcb_ieee(struct lab *l, const char *host, const char *dev, const struct ieee_pfc *set,
		    struct ieee_pfc *get)
{
	struct nsctx c;
	struct nl_msg *m;
	struct dcbmsg d = {.dcb_family = AF_UNSPEC,
			   .cmd = set ? DCB_CMD_IEEE_SET : DCB_CMD_IEEE_GET};
	struct dcb_reply reply = {0};
	int ret;

	if ((ret = lab_nsctx(l, host, &c)))
		return ret;
	m = nlmsg_alloc_simple(set ? RTM_SETDCB : RTM_GETDCB, NLM_F_REQUEST | NLM_F_ACK);
	if (!m) {
		ret = -ENOMEM;
		goto close_ns;
	}
	nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO);
	nla_put_string(m, DCB_ATTR_IFNAME, dev);
	if (set) {
		struct nlattr *ie = nla_nest_start(m, DCB_ATTR_IEEE);

		nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(*set), set);
		nla_nest_end(m, ie);
	}
	nl_socket_modify_cb(c.sk, NL_CB_VALID, NL_CB_CUSTOM, dcb_valid, &reply);
	ret = nl_send_auto(c.sk, m);
	if (ret >= 0)
		ret = nl_wait_for_ack(c.sk);
	nlmsg_free(m);
	ret = nl_to_errno(ret < 0 ? ret : 0);
	if (!ret && get)
		*get = reply.pfc;
close_ns:
	nsctx_close(&c);
	return ret;
}

int dcb_pfc_get(struct lab *l, const char *host, const char *dev, unsigned *pfc_en)
{
	struct ieee_pfc pfc = {0};
	int ret = dcb_ieee(l, host, dev, NULL, &pfc);

	if (!ret)
		*pfc_en = pfc.pfc_en;
	return ret;
}

static int dcb_pfc_set(struct lab *l, const char *host, const char *dev, int prio, bool on,
		       char *err, size_t len)
{
	struct ieee_pfc pfc = {0};
	int ret = dcb_ieee(l, host, dev, NULL, &pfc);

	if (ret == -EOPNOTSUPP) {
		snprintf(err, len,
			 "%s has no DCB support (DCBNL: EOPNOTSUPP), so its PFC cannot be changed; "
			 "on a virtual lab target a switch port, where PFC is emulated",
			 dev);
		return ret;
	}
	if (ret) {
		snprintf(err, len, "DCBNL get on %s: %s", dev, strerror(-ret));
		return ret;
	}
	if (on)
		pfc.pfc_en |= (uint8_t)(1u << prio);
	else
		pfc.pfc_en &= (uint8_t) ~(1u << prio);
	ret = dcb_ieee(l, host, dev, &pfc, NULL);
	if (ret)
		snprintf(err, len, "DCBNL set on %s: %s", dev, strerror(-ret));
	return ret;
}

/* ---- The emulated ECN marker: BPF on clsact, from inside the device's namespace ---- */

static int ecn_mark_op(struct lab *l, const char *host, const char *verb, const char *dev,
		       const char *rate, const char *k, const char *cap, char *err, size_t errlen)
{
	int saved, ret = lab_enter(l, host, &saved);

	if (ret) {
		snprintf(err, errlen, "%s: cannot enter its network namespace (%s)", host,
			 strerror(-ret));
		return ret;
	}
	if (!strcmp(verb, "ecn-mark"))
		ret = ecn_mark_attach(dev, strtoull(rate, NULL, 10), strtoull(k, NULL, 10),
				      strtoull(cap, NULL, 10), err, errlen);
	else
		ret = ecn_mark_detach(dev, err, errlen);
	lab_leave(l, saved);
	return ret;
}

/* ---- op lines ------------------------------------------------------------ */

static int parse_prefix(const char *s, struct in_addr *a, int *len)
{
	char buf[32];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	*len = 32;
	if (slash) {
		*slash = '\0';
		*len = atoi(slash + 1);
	}
	return inet_pton(AF_INET, buf, a) == 1 && *len >= 0 && *len <= 32 ? 0 : -EINVAL;
}

int netlink_op_run(struct lab *l, const char *host, const char *op, bool undo, char *err,
		   size_t errlen)
{
	char verb[16], a1[32], a2[32], a3[32], a4[32];
	struct nsctx c;
	struct in_addr addr, gw;
	int n = sscanf(op, "%15s %31s %31s %31s %31s", verb, a1, a2, a3, a4), ret, len;

	err[0] = '\0';
	if (n == 1 && !strcmp(verb, "noop"))
		return 0;	  /* a step that only has an undo */
	if (host_verb_find(verb)) /* a kind's own verb: a command (signals, cgroups), no netlink */
		return host_op_exec(l, host, op, undo, err, errlen);
	if (n < 2) {
		snprintf(err, errlen, "malformed netlink op '%s'", op);
		return -EINVAL;
	}
	if (!strcmp(verb, "dcb-pfc") && n == 4)
		return dcb_pfc_set(l, host, a1, atoi(a2), !strcmp(a3, "on"), err, errlen);
	if ((!strcmp(verb, "ecn-mark") && n == 5) || (!strcmp(verb, "ecn-unmark") && n == 2))
		return ecn_mark_op(l, host, verb, a1, a2, a3, a4, err, errlen);
	if ((ret = lab_nsctx(l, host, &c))) {
		snprintf(err, errlen, "%s: no netlink access on the %s lab (%s)", host,
			 l->ops->name, strerror(-ret));
		return ret;
	}
	if (!strcmp(verb, "link-down") || !strcmp(verb, "link-up")) {
		ret = nl_link_set_up(&c, a1, !strcmp(verb, "link-up"));
	} else if ((!strcmp(verb, "rule-del") || !strcmp(verb, "rule-add")) && n == 5 &&
		   inet_pton(AF_INET, a2, &addr) == 1) {
		uint32_t pref = (uint32_t)strtoul(a1, NULL, 10),
			 tbl = (uint32_t)strtoul(a4, NULL, 10);

		if (!strcmp(verb, "rule-add")) {
			ret = nl_rule_add(&c, pref, &addr, a3, tbl);
			if (ret == -EEXIST && undo)
				ret = 0;
		} else {
			ret = nl_rule_del(&c, pref, &addr, a3, tbl);
			if (absent(ret) && undo)
				ret = 0;
		}
	} else if (!strcmp(verb, "route-del") && n >= 3 && !parse_prefix(a2, &addr, &len)) {
		ret = nl_route_del(&c, (uint32_t)strtoul(a1, NULL, 10), addr, len);
		if ((absent(ret) || ret == -EIO) && undo)
			ret = 0;
	} else if (!strcmp(verb, "route-add") && n == 5 && !parse_prefix(a2, &addr, &len) &&
		   inet_pton(AF_INET, a3, &gw) == 1) {
		struct nl_nexthop nh = {gw, a4};

		ret = nl_route_add(&c, (uint32_t)strtoul(a1, NULL, 10), addr, len, &nh, 1, NULL);
		if (ret == -EEXIST && undo)
			ret = 0;
	} else if (!strcmp(verb, "tbf") && n == 3) {
		ret = nl_qdisc_tbf(&c, a1, strtoull(a2, NULL, 10));
	} else if (!strcmp(verb, "qdisc-del")) {
		ret = nl_qdisc_del_root(&c, a1);
	} else {
		snprintf(err, errlen, "unknown or malformed netlink op '%s'", op);
		ret = -EINVAL;
	}
	if (ret && !err[0])
		snprintf(err, errlen, "%s (on %s): %s", op, host, strerror(-ret));
	nsctx_close(&c);
	return ret;
}
