// SPDX-License-Identifier: MIT
/*
 * link-degrade: a link runs at --rate, both ways.  Linux ends (switch ports,
 * RNICs) get a TBF at the rate; a NOS switch port gets a port speed, so the
 * rate must be one both ends can take, and the far end is set to the same.
 * With --ecn-mark K a Linux switch end also marks ECN as a switch would,
 * emulated: a BPF virtual queue at the rate, CE past K bytes
 * (injectors/ecn_mark.h), on the virtual lab, whose kernel has no RED.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/nl.h"
#include "harness/lib/sbuf.h"
#include "injectors/ecn_mark.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/links.h"
#include "injectors/render.h"

#include <stdlib.h>
#include <string.h>

struct link_degrade_opts {
	unsigned long long rate_kbit;
	unsigned ecn_mark; /* its emulated ECN marker's threshold in bytes (0: none) */
};
FAULT_KIND_OPTS(ld, struct link_degrade_opts)

#define FS(f) offsetof(struct link_degrade_opts, f)

static const struct opt_desc opts[] = {
    {"rate", OPT_CUSTOM, 8, 4000000000.0, FS(rate_kbit), "the degraded rate (e.g. 10mbit)",
     fault_opt_rate_parse, fault_opt_rate_print},
    {"ecn-mark", OPT_CUSTOM, 0, 0, FS(ecn_mark),
     "Linux switch ends also mark CE past this many bytes queued at the rate (e.g. 6KB; "
     "emulated, the virtual lab)",
     fault_opt_bytes_parse, fault_opt_bytes_print},
    OPT_TABLE_END,
};

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	if (ld_of(s)->rate_kbit)
		return 0;
	snprintf(why, whylen, "link-degrade needs a rate (e.g. 10mbit)");
	return -EINVAL;
}

static int resolve(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen)
{
	struct inv_endpoint t = {s->tkind, s->tdev, (size_t)s->tport};
	const struct inv_link *l = inventory_link_at(inv, &t);

	if (l && ld_rw(s)->rate_kbit >= l->speed_mbps * 1000) {
		snprintf(why, whylen,
			 "rate must be below the link's speed (%llu Mbit/s) to degrade it",
			 l->speed_mbps);
		return -EINVAL;
	}
	return 0;
}

/*
 * The RNIC's end: a TBF as its root qdisc, the root read first (issue 61):
 * one of the host's own (handle not 0:) would be replaced and its undo
 * would not give it back, so it is refused before anything changes
 * (fault_found()).
 */
static void shape_rnic(const struct inventory *inv, const struct inv_endpoint *ep,
		       const struct fault_spec *s, struct fault_plan *p)
{
	const char *netdev = inv->hosts[ep->dev].rnics[ep->port].netdev;
	char cmd[96], as[64];

	fault_plan_host_op(p, inv->hosts[ep->dev].name, "tbf %s %llu", "qdisc-del %s", netdev,
			   ld_of(s)->rate_kbit);
	snprintf(cmd, sizeof(cmd), "tc -j qdisc show dev %s root", netdev);
	snprintf(as, sizeof(as), "tc-root %s", netdev);
	fault_action_read(&p->acts[p->n_acts - 1], cmd, as);
}

/*
 * On a NOS end the rate must be a port speed: refused before anything is
 * planned when it is not, and the choice said in the plan's note.
 */
static int speed_of_link(struct render_ctx *r, const struct inv_endpoint *t)
{
	struct inv_endpoint ends[2] = {*t, *t};
	char a[80], b[80];
	int mbps;

	if (inventory_peer(r->inv, t, &ends[1]))
		return 0;
	mbps = link_degrade_port_speed(r->inv, ends, ld_of(r->spec)->rate_kbit, r->why, r->whylen);
	if (mbps <= 0)
		return mbps;
	inventory_endpoint_name(r->inv, &ends[0], a, sizeof(a));
	inventory_endpoint_name(r->inv, &ends[1], b, sizeof(b));
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "port speed %dG on both ends, %.48s and %.48s (a switch port set in its dialect, "
		 "an RNIC or Linux end shaped to it; undo: the speed read before)",
		 mbps / 1000, a, b);
	return 0;
}

/*
 * The marker's host op on a Linux switch end: its queue drains at the rate
 * and holds what the TBF would (nl_tbf_limit()).
 */
static int plan_ecn_mark(struct render_ctx *r)
{
	const struct inv_switch *sw = &r->inv->switches[r->sw];
	unsigned long long kbit = ld_of(r->spec)->rate_kbit, burst = nl_tbf_burst(kbit),
			   queue = nl_tbf_limit(kbit) - burst;

	if (sw->dialect != INV_DIALECT_LINUX) {
		snprintf(r->why, r->whylen,
			 "ecn-mark: %s runs a NOS, which marks ECN itself (set its thresholds "
			 "with ecn-misconfig); the option is for Linux switches",
			 sw->name);
		return -EINVAL;
	}
	if (r->plan->host_cmds) {
		snprintf(r->why, r->whylen,
			 "ecn-mark: the emulated marker is a BPF program this machine loads into "
			 "its own kernel, so it runs on the virtual lab only");
		return -EOPNOTSUPP;
	}
	if (ld_of(r->spec)->ecn_mark > queue && !r->plan->note[0])
		snprintf(r->plan->note, sizeof(r->plan->note),
			 "ecn-mark %u bytes is more than the TBF's %d ms of queue at this rate "
			 "(%llu bytes): its ports drop before they mark, as a switch whose buffer "
			 "is below K",
			 ld_of(r->spec)->ecn_mark, NL_TBF_LATENCY_MS, queue);
	/* The TBF's queue is what its bucket lets through above the rate: K past the bucket. */
	fault_plan_host_op(r->plan, sw->name, "ecn-mark %s %llu %llu %llu", "ecn-unmark %s",
			   r->port, kbit, burst + ld_of(r->spec)->ecn_mark, nl_tbf_limit(kbit));
	r->plan->emulated = true;
	return 0;
}

static int linux_link_degrade(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "link-degrade");

	if (ret)
		return ret;
	/* As nl_qdisc_tbf() makes it. */
	sb_printf(&a, "tc qdisc replace dev %s root tbf rate %llukbit burst %llu latency %dms",
		  r->port, ld_of(r->spec)->rate_kbit, nl_tbf_burst(ld_of(r->spec)->rate_kbit),
		  NL_TBF_LATENCY_MS);
	sb_printf(&v, "tc qdisc del dev %s root 2>/dev/null; ! tc qdisc show dev %s | grep -q tbf",
		  r->port, r->port);
	nos_read_tc_root(nos_emit(r, &a, NULL, &v), r->port);
	return 0;
}

/*
 * A port speed, in Mbit/s as CONFIG_DB PORT|X speed holds it: config/main.py
 * 'config interface speed <interface_name> <interface_speed>' runs
 * 'portconfig -p PORT -s SPEED' (sonic-net/sonic-utilities).  Read before:
 * the port's configured speed and autoneg from CONFIG_DB; the undo sets the
 * speed found (link_degrade_speed_revert).
 */
static int sonic_link_degrade(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "link-degrade");

	if (ret)
		return ret;
	sb_printf(&a, "sudo config interface speed %s %llu", r->port,
		  ld_of(r->spec)->rate_kbit / 1000);
	sb_printf(&v, "-");
	act = nos_read_port(
	    nos_emit(r, &a, NULL, &v), "sonic-speed", r->port,
	    "sonic-db-cli CONFIG_DB HGET 'PORT|%s' speed; sonic-db-cli CONFIG_DB HGET "
	    "'PORT|%s' autoneg",
	    r->port, r->port);
	link_degrade_speed_revert(act, r->port, NULL);
	return 0;
}

/*
 * EOS interface configuration mode 'speed' (EOS User Manual, Ethernet
 * Ports): <N>gfull from 10G up, 1000full below; 'no speed' is its default.
 * Read before: the port's 'speed' line in its running-config; the undo
 * writes that line back, or 'no speed' when there was none.
 */
static int eos_link_degrade(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	unsigned long long mbps = ld_of(r->spec)->rate_kbit / 1000;
	int ret = nos_need_port(r, "link-degrade");

	if (ret)
		return ret;
	if (mbps > 1000)
		sb_printf(&a, "configure\ninterface %s\nspeed %llugfull\nend", r->port,
			  mbps / 1000);
	else
		sb_printf(&a, "configure\ninterface %s\nspeed %llufull\nend", r->port, mbps);
	sb_printf(&v, "-");
	act = nos_read_port(nos_emit(r, &a, NULL, &v), "eos-speed", r->port,
			    "show running-config interfaces %s", r->port);
	link_degrade_speed_revert(act, r->port, NULL);
	return 0;
}

/*
 * NVUE 'nv set interface <interface-id> link speed' (NVUE reference,
 * Set and Unset Commands / Interface: 1G, 10G, 25G, 40G, 50G, 100G, 200G,
 * 400G, 800G, auto).  Read before: what 'nv config show -o commands' sets
 * of the port's link speed; the undo sets it back, or unsets it.
 */
static int nvue_link_degrade(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "link-degrade");

	if (ret)
		return ret;
	sb_printf(&a, "nv set interface %s link speed %lluG && nv config apply -y", r->port,
		  ld_of(r->spec)->rate_kbit / 1000000);
	sb_printf(&v, "-");
	act = nos_read_port(nos_emit(r, &a, NULL, &v), "nvue-speed", r->port, "%s",
			    "nv config show -o commands | { grep ' link speed ' || true; }");
	link_degrade_speed_revert(act, r->port, NULL);
	return 0;
}

static const unsigned port_speeds[] = {1000,   10000,  25000,  40000, 50000,
				       100000, 200000, 400000, 800000};

int link_degrade_port_speed(const struct inventory *inv, const struct inv_endpoint ends[2],
			    unsigned long long rate_kbit, char *why, size_t whylen)
{
	const char *nos = NULL;
	char list[128] = "";
	size_t used = 0;

	for (int e = 0; e < 2; e++)
		if (ends[e].kind == INV_DEV_SWITCH &&
		    inv->switches[ends[e].dev].dialect != INV_DIALECT_LINUX)
			nos = inv->switches[ends[e].dev].name;
	if (!nos)
		return 0; /* shaped with a TBF at any rate */
	for (size_t i = 0; i < ARRAY_SIZE(port_speeds); i++) {
		if (rate_kbit == port_speeds[i] * 1000ULL)
			return (int)port_speeds[i];
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%uG", i ? ", " : "",
					 port_speeds[i] / 1000);
	}
	snprintf(
	    why, whylen,
	    "link-degrade on %s's port is a port speed that both ends take, not a shaper: give "
	    "--rate one of %s below the link's speed (a TBF of any rate needs Linux switches)",
	    nos, list);
	return -EOPNOTSUPP;
}

void link_degrade_speed_revert(struct fault_action *a, const char *port, const char *found)
{
	struct readback rb;
	struct sbuf v = {0};
	char err[160];
	bool known = found && !readback_parse(a->read_as, found, &rb, err, sizeof(err));

	if (!strncmp(a->read_as, "sonic-speed ", 12)) {
		if (known && rb.speed[0])
			sb_printf(&v, "sudo config interface speed %s %s", port, rb.speed);
		else
			sb_printf(&v, "sudo config interface speed %s <speed as read>", port);
	} else if (!strncmp(a->read_as, "eos-speed ", 10)) {
		sb_printf(&v, "configure\ninterface %s\n", port);
		if (!found)
			sb_printf(&v, "<speed as read, or no speed>\nend");
		else if (known && rb.speed[0])
			sb_printf(&v, "speed %s\nend", rb.speed);
		else
			sb_printf(&v, "no speed\nend");
	} else {
		if (!found)
			sb_printf(&v, "nv set interface %s link speed <speed as read, or unset>",
				  port);
		else if (known && rb.speed[0])
			sb_printf(&v, "nv set interface %s link speed %s", port, rb.speed);
		else
			sb_printf(&v, "nv unset interface %s link speed", port);
		sb_printf(&v, " && nv config apply -y");
	}
	fault_action_set(&a->revert, v.p);
	sb_free(&v);
}

static int render_one(struct render_ctx *r)
{
	int ret = fault_render(r);

	return ret || !ld_of(r->spec)->ecn_mark ? ret : plan_ecn_mark(r);
}

/* A degraded link is slow both ways: the RNIC, then its switch port in that switch's dialect. */
static int plan_host(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	struct inv_endpoint t = {s->tkind, s->tdev, (size_t)s->tport}, peer;
	struct render_ctx pr = *r;
	int ret = speed_of_link(r, &t);

	if (ret)
		return ret;
	shape_rnic(r->inv, &t, s, r->plan);
	if (inventory_peer(r->inv, &t, &peer) || peer.kind != INV_DEV_SWITCH)
		return 0;
	pr.sw = peer.dev;
	pr.port = inventory_netdev(r->inv, &peer);
	return render_one(&pr);
}

/* The target port in its dialect, then the far end: an RNIC, or a port in its own dialect. */
static int plan_switch(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	struct inv_endpoint t = {s->tkind, s->tdev, (size_t)s->tport}, peer;
	struct render_ctx pr = *r;
	int ret = speed_of_link(r, &t);

	if (!ret)
		ret = render_one(r);
	if (ret || inventory_peer(r->inv, &t, &peer))
		return ret;
	if (peer.kind == INV_DEV_HOST) {
		shape_rnic(r->inv, &peer, s, r->plan);
		return 0;
	}
	pr.sw = peer.dev;
	pr.port = inventory_netdev(r->inv, &peer);
	return render_one(&pr);
}

/*
 * Is this link end shaped: a TBF its root qdisc, or an RNIC's ETS max rates
 * (maxrate_end()) at the rate or below on every TC?  Ends that cannot be
 * read back count as present.  *maxrate: it was the max rates.
 */
static int tbf_present(struct fault_run *f, const struct inv_endpoint *ep, bool *present,
		       bool *maxrate)
{
	const char *dev, *netdev;
	json_t *v, *q;
	size_t i;

	*present = *maxrate = false;
	if (!fault_end_readable(f->inv, ep)) {
		*present = true;
		return 0;
	}
	dev = inventory_device_name(f->inv, ep);
	netdev = inventory_netdev(f->inv, ep);
	for (i = 0; i < f->plan->n_acts; i++) {
		const struct fault_action *a = &f->plan->acts[i];
		size_t n = strlen(netdev);
		struct readback rb;

		if (strcmp(a->device, dev) || !a->read_as ||
		    strncmp(a->read_as, "dcb-maxrate ", 12) ||
		    strncmp(a->read_as + 12, netdev, n) || a->read_as[12 + n] != ' ')
			continue;
		if (fault_reread(f, a, &rb))
			return -EIO;
		*maxrate = *present = true;
		for (int tc = 0; tc < 8; tc++)
			*present &= rb.maxrate[tc] && rb.maxrate[tc] <= ld_of(f->spec)->rate_kbit;
		return 0;
	}
	v = fault_read_json(
	    f, dev,
	    (const char *const[]){"tc", "-j", "qdisc", "show", "dev", netdev, "root", NULL});
	if (!v)
		return -EIO;
	json_array_foreach(v, i, q) *present |=
	    !strcmp(json_string_value(json_object_get(q, "kind")) ?: "", "tbf");
	json_decref(v);
	return 0;
}

/* A port speed as a NOS writes it ("100000", "100gfull", "100g-2", "100G") in Mbit/s; 0: none. */
static unsigned long long speed_mbps(const char *w)
{
	char *end;
	unsigned long long v;

	w += strcspn(w, "0123456789");
	v = strtoull(w, &end, 10);
	return *end == 'g' || *end == 'G' ? v * 1000 : v;
}

/*
 * With each end as found: a Linux end whose root qdisc is not the kernel's
 * own would lose it to the TBF; a NOS port needs a speed to go back to, no
 * autoneg that would ignore a fixed speed, and a speed above the rate; its
 * undo becomes the speed found.
 */
static int speed_above(struct fault_run *f, struct fault_plan *p, size_t i,
		       const struct readback *rb, void *ctx)
{
	struct fault_action *a = &p->acts[i];
	const char *port = fault_read_port(a);
	unsigned long long want = *(const unsigned long long *)ctx;

	if (!strncmp(a->read_as, "dcb-maxrate ", 12))
		return 0; /* an RNIC's ETS max rates: read as found (maxrate_end()) */
	if (!strncmp(a->read_as, "sonic-speed ", 12) &&
	    (!rb->speed[0] || !strcmp(rb->autoneg, "on"))) {
		snprintf(f->err, sizeof(f->err), "%s:%s: %s ('%s'): %s", a->device, port, rb->canon,
			 a->read,
			 rb->speed[0] ? "with autoneg on a fixed speed is not used; turn autoneg "
					"off there or degrade another link"
				      : "no speed to restore after the fault");
		return -EOPNOTSUPP;
	}
	if (speed_mbps(rb->speed) && speed_mbps(rb->speed) <= want) {
		snprintf(f->err, sizeof(f->err),
			 "%s:%s runs at %s already ('%s'): %lluG would not degrade it", a->device,
			 port, rb->canon, a->read, want / 1000);
		return -EALREADY;
	}
	link_degrade_speed_revert(a, port, a->found);
	return 0;
}

/* "dcb utility, iproute2-6.1.0": how its dcb writes rates ("kbit" from 6.18, "Bps" before); NULL:
 * not a version */
const char *link_degrade_dcb_unit(const char *version)
{
	const char *p = version ? strstr(version, "iproute2-") : NULL;
	int major, minor;

	if (!p || sscanf(p, "iproute2-%d.%d", &major, &minor) != 2 || major < 1)
		return NULL;
	/* iproute2 e7d4c060 (v6.18.0), "dcb: fix tc-maxrate unit conversions" */
	return major > 6 || (major == 6 && minor >= 18) ? "kbit" : "Bps";
}

/* The host op that sets netdev's 8 TCs' max rates (kbit/s) as unit says its dcb writes them. */
static void maxrate_op(char *buf, size_t len, const char *netdev, const char *unit,
		       const unsigned long long kbit[8])
{
	int n = snprintf(buf, len, "dcb-maxrate %s %s", netdev, unit);

	for (int tc = 0; tc < 8 && n > 0 && (size_t)n < len; tc++)
		n += snprintf(buf + n, len - (size_t)n, " %llu", kbit[tc]);
}

/*
 * A TBF on an RNIC's netdev slows what the kernel sends by it; RDMA leaves
 * by the RNIC's own queues, past any qdisc (issue 61).  An RNIC with ETS
 * max rates (DCBNL IEEE maxrate: 'dcb -j maxrate show' answers) is slowed
 * by them instead: every TC at the rate (or below it, as found), undone to
 * the rates found.  Over SSH only: the virtual lab's veths have no DCB, and
 * there the TBF is the emulation.  0 (the TBF stays), 1 (swapped), or
 * -errno with f->err.
 */
static int maxrate_end(struct fault_run *f, struct fault_plan *p, size_t i, char *note,
		       size_t notelen)
{
	struct fault_action *a = &p->acts[i];
	unsigned long long kbit = ld_of(f->spec)->rate_kbit, set[8];
	char netdev[64], as[96], read[128], *out = NULL, *ver = NULL, apply[256], revert[256];
	const char *unit;
	struct readback rb;
	int r;

	if (a->backend != FB_HOST || sscanf(a->apply, "tbf %63s", netdev) != 1 ||
	    lab_can(f->lab, LAB_CAP_NETLINK))
		return 0;
	snprintf(read, sizeof(read), "dcb -j maxrate show dev %s", netdev);
	r = lab_exec(f->lab, a->device,
		     (const char *const[]){"dcb", "-j", "maxrate", "show", "dev", netdev, NULL},
		     NULL, &out, f->err, sizeof(f->err));
	if (r) {
		free(out);
		if (r < 0)
			return r; /* the host did not answer: f->err */
		f->err[0] = '\0';
		return 0; /* no ETS max rate there (veth, or a driver without it): the TBF */
	}
	r = lab_exec(f->lab, a->device, (const char *const[]){"dcb", "-V", NULL}, NULL, &ver,
		     f->err, sizeof(f->err));
	if (r || !(unit = link_degrade_dcb_unit(ver))) {
		snprintf(
		    f->err, sizeof(f->err),
		    "%s:%s has ETS max rates, but its dcb's version ('dcb -V': %.60s) does not "
		    "say how it writes them (iproute2 before 6.18 takes bytes/s for kbit/s): "
		    "nothing was changed",
		    a->device, netdev, ver ? ver : "no answer");
		free(out);
		free(ver);
		return -EPROTO;
	}
	free(ver);
	snprintf(as, sizeof(as), "dcb-maxrate %s %s", netdev, unit);
	if ((r = readback_parse(as, out, &rb, f->err, sizeof(f->err)))) {
		free(out);
		return r;
	}
	for (int tc = 0; tc < 8; tc++)
		set[tc] = rb.maxrate[tc] && rb.maxrate[tc] < kbit ? rb.maxrate[tc] : kbit;
	maxrate_op(apply, sizeof(apply), netdev, unit, set);
	maxrate_op(revert, sizeof(revert), netdev, unit, rb.maxrate);
	fault_action_set(&a->apply, apply);
	fault_action_set(&a->revert, revert);
	fault_action_read(a, read, as);
	fault_action_set(&a->found, out);
	free(out);
	snprintf(note + strlen(note), notelen - strlen(note),
		 "%s%s:%s shaped by its ETS max rates (dcb maxrate, every TC at %llu kbit/s; undo: "
		 "%s), not a TBF: RDMA leaves by the RNIC's own queues, past any qdisc",
		 note[0] ? "; " : "", a->device, netdev, kbit, rb.canon);
	return 1;
}

size_t link_degrade_speeds_sonic(const char *out, unsigned long long *mbps, size_t max)
{
	size_t n = 0;

	/* "10000,25000,40000,100000" (scripts/portconfig splits it on ',') */
	for (const char *p = out; p && *p && n < max;) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p || v == 0 || v > 10000000 || (*end && *end != ',' && *end != '\n'))
			return 0; /* not a list of speeds: not said */
		mbps[n++] = v;
		p = *end == ',' ? end + 1 : NULL;
	}
	return n;
}

size_t link_degrade_speeds_ethtool(const char *out, unsigned long long *mbps, size_t max)
{
	const char *p = out ? strstr(out, "Supported link modes:") : NULL;
	size_t n = 0;

	if (!p)
		return 0;
	p += strlen("Supported link modes:");
	/* the modes, on that line and the indented ones after it, to the next "Name:" */
	for (;;) {
		char word[48];
		int len = 0;
		unsigned long long v;
		bool seen = false;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n') {
			const char *q = p + 1;

			if (*q != ' ' && *q != '\t')
				break; /* the section ended */
			p = q;
			continue;
		}
		if (!*p || sscanf(p, "%47s%n", word, &len) != 1 || strchr(word, ':'))
			break;
		p += len;
		if (sscanf(word, "%llubase", &v) != 1 || !strstr(word, "base"))
			continue; /* "Not reported" and the like */
		for (size_t i = 0; i < n; i++)
			seen |= mbps[i] == v;
		if (!seen && n < max)
			mbps[n++] = v;
	}
	return n;
}

/*
 * Can each end of the link take the speed?  A NOS port's own list
 * (SONiC: STATE_DB PORT_TABLE|P supported_speeds, which scripts/portconfig
 * checks 'config interface speed' against), and an RNIC facing one
 * ('ethtool DEV' Supported link modes, over SSH): a speed one end cannot
 * take leaves the link down until the revert.  An end that does not say is
 * not judged (EOS, NVUE, a Linux end, the virtual lab's veths).
 */
static int speeds_taken(struct fault_run *f, unsigned long long want)
{
	struct inv_endpoint ends[2];
	bool nos = false;

	if (fault_target_ends(f, &ends[0], &ends[1]))
		return 0;
	for (int e = 0; e < 2; e++)
		nos |= ends[e].kind == INV_DEV_SWITCH &&
		       f->inv->switches[ends[e].dev].dialect != INV_DIALECT_LINUX;
	if (!nos)
		return 0; /* shaped, not a port speed */
	for (int e = 0; e < 2; e++) {
		const char *dev = inventory_device_name(f->inv, &ends[e]),
			   *port = inventory_netdev(f->inv, &ends[e]);
		unsigned long long sp[32];
		char cmd[160], *out = NULL, list[160] = "", err[256];
		const char *said = NULL;
		size_t n = 0, used = 0;
		bool ok = false;

		if (ends[e].kind == INV_DEV_SWITCH &&
		    f->inv->switches[ends[e].dev].dialect == INV_DIALECT_SONIC) {
			snprintf(cmd, sizeof(cmd),
				 "sonic-db-cli STATE_DB HGET 'PORT_TABLE|%s' supported_speeds",
				 port);
			if (!lab_cli(f->lab, dev, cmd, NULL, &out, err, sizeof(err)))
				n = link_degrade_speeds_sonic(out, sp, ARRAY_SIZE(sp));
			said = "STATE_DB supported_speeds";
		} else if (ends[e].kind == INV_DEV_HOST && !lab_can(f->lab, LAB_CAP_NETLINK)) {
			if (!lab_exec(f->lab, dev, (const char *const[]){"ethtool", port, NULL},
				      NULL, &out, err, sizeof(err)))
				n = link_degrade_speeds_ethtool(out, sp, ARRAY_SIZE(sp));
			said = "ethtool's supported link modes";
		}
		free(out);
		for (size_t i = 0; i < n; i++) {
			ok |= sp[i] == want;
			if (used < sizeof(list))
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%llu",
							 i ? "," : "", sp[i]);
		}
		if (n && !ok) {
			snprintf(
			    f->err, sizeof(f->err),
			    "%s:%s cannot take %lluG (%s, Mbit/s: %s): the link would stay down "
			    "until the revert; give --rate a speed both ends take",
			    dev, port, want / 1000, said, list);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	unsigned long long want = ld_of(f->spec)->rate_kbit / 1000;
	int r;

	if ((r = speeds_taken(f, want)))
		return r;

	for (size_t i = 0; i < p->n_acts; i++)
		if ((r = maxrate_end(f, p, i, p->note, sizeof(p->note))) < 0)
			return r;
	return fault_judge_found(f, p, "the TBF", speed_above, &want);
}

/*
 * NOS ends: each reads back at the speed, and the link comes back up at it
 * (a speed change renegotiates: the link goes down and up, said in the
 * evidence) into said; nothing when the link has no NOS end.
 */
static int verify_speed(struct fault_run *f, struct sbuf *said)
{
	const struct fault_plan *p = f->plan;
	unsigned long long want = ld_of(f->spec)->rate_kbit / 1000, end;
	struct inv_endpoint ends[2];
	struct port_state st[2];
	bool any = false;

	for (size_t i = 0; i < p->n_acts; i++) {
		const struct fault_action *a = &p->acts[i];
		struct readback rb;

		if (!a->read || !strstr(a->read_as, "-speed "))
			continue;
		any = true;
		if (fault_reread(f, a, &rb))
			return -EIO;
		if (speed_mbps(rb.speed) != want) {
			snprintf(f->err, sizeof(f->err), "'%s' on %s says %s, not %lluG", a->read,
				 a->device, rb.canon, want / 1000);
			return -EIO;
		}
		sb_printf(said, "'%s' on %s: %s; ", a->read, a->device, rb.canon);
	}
	if (!any)
		return 0;
	if (fault_target_ends(f, &ends[0], &ends[1]))
		return -EINVAL;
	/* Renegotiation at the new speed takes a NOS port some seconds. */
	for (end = rl_now_ns() + 20000000000ULL;; fault_sleep_ms(500)) {
		char e0[400];

		for (int e = 0; e < 2; e++)
			if (links_port(f->lab, &ends[e], &st[e], e0, sizeof(e0))) {
				snprintf(f->err, sizeof(f->err), "reading the link: %.400s", e0);
				return -EIO;
			}
		if (st[0].up && st[1].up)
			break;
		if (rl_now_ns() >= end || rl_interrupted) {
			snprintf(f->err, sizeof(f->err),
				 "the link did not come back up at %lluG within 20 s of the speed "
				 "change (%s %s, the far end %s): one end may not take that speed",
				 want / 1000, f->spec->target, st[0].word, st[1].word);
			return -EIO;
		}
	}
	sb_printf(said, "the link renegotiated (down and up) and is up at %lluG on both ends",
		  want / 1000);
	return 0;
}

/*
 * Each marker planned is attached: its queue read through its filter from
 * inside its switch's namespace.  How many, or -EIO with f->err.
 */
static int markers_present(struct fault_run *f, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < f->plan->n_acts; i++) {
		const struct fault_action *a = &f->plan->acts[i];
		char dev[64];
		int saved, r;

		if (a->backend != FB_HOST || sscanf(a->apply, "ecn-mark %63s", dev) != 1)
			continue;
		if ((r = lab_enter(f->lab, a->device, &saved)) == 0) {
			r = ecn_mark_present(dev);
			lab_leave(f->lab, saved);
		}
		if (r) {
			snprintf(f->err, sizeof(f->err), "no ECN marker on %s:%s (%s)", a->device,
				 dev, strerror(-r));
			return -EIO;
		}
		++*n;
	}
	return 0;
}

static int verify(struct fault_run *f)
{
	struct inv_endpoint ends[2];
	size_t found = 0, shaped = 0, markers = 0, maxrate = 0;
	struct sbuf said = {0};
	int r;

	if (fault_target_ends(f, &ends[0], &ends[1]))
		return -EINVAL;
	if ((r = verify_speed(f, &said)))
		goto out;
	for (size_t k = 0; k < 2; k++) {
		bool present, mr;

		if ((r = tbf_present(f, &ends[k], &present, &mr)))
			goto out;
		found += present;
		maxrate += mr;
		shaped += fault_end_readable(f->inv, &ends[k]);
	}
	if (found != 2) {
		snprintf(f->err, sizeof(f->err), "%s present on %zu of 2 link ends",
			 maxrate ? "shaping (TBF or ETS max rates)" : "TBF", found);
		r = -EIO;
	} else if ((r = markers_present(f, &markers))) {
		/* f->err says which */
	} else if (!said.len) {
		char k[32];

		snprintf(
		    f->evidence, sizeof(f->evidence),
		    "%s %llu kbit/s present on both ends of %s%s%s%s",
		    maxrate == 2   ? "ETS max rates at"
		    : maxrate == 1 ? "the RNIC's ETS max rates and a TBF at"
				   : "TBF",
		    ld_of(f->spec)->rate_kbit, f->spec->target,
		    markers ? "; the ECN marker (emulated, CE past " : "",
		    markers ? fault_opt_bytes_print(&ld_of(f->spec)->ecn_mark, k, sizeof(k)) : "",
		    markers ? markers == 2 ? ") on both switch ends" : ") on the switch end" : "");
	} else {
		snprintf(f->evidence, sizeof(f->evidence), "%s%s", said.p,
			 shaped ? "; the Linux end shaped by a TBF at that rate" : "");
	}
out:
	sb_free(&said);
	return r;
}

static unsigned long long link_rate(const struct fault_spec *s)
{
	return ld_of(s)->rate_kbit;
}

const struct fault_kind_ops fk_link_degrade = {
    .name = "link-degrade",
    .usage = "--target SWITCH:PORT | HOST:RNIC, and --rate (a port speed, 1G..800G, where a "
	     "switch NOS runs an end)",
    .targets = FT_PORT | FT_RNIC,
    .example = "rail3:swp6",
    .opts = opts,
    .opts_size = sizeof(struct link_degrade_opts),
    .link_rate_kbit = link_rate,
    .check = check,
    .resolve = resolve,
    .plan_host = plan_host,
    .plan_switch = plan_switch,
    .render = {[INV_DIALECT_LINUX] = linux_link_degrade,
	       [INV_DIALECT_SONIC] = sonic_link_degrade,
	       [INV_DIALECT_EOS] = eos_link_degrade,
	       [INV_DIALECT_NVUE] = nvue_link_degrade},
    .cannot = "degrade a link",
    .discover = discover,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] =
		"iproute2 tc-tbf(8); bpf-helpers(7) bpf_skb_ecn_set_ce (the ECN marker)",
	    [INV_DIALECT_SONIC] =
		"sonic-utilities config/main.py ('config interface speed'); STATE_DB PORT_TABLE "
		"supported_speeds",
	    [INV_DIALECT_EOS] = "EOS User Manual, Ethernet ports ('speed <N>gfull')",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference, Interface ('nv set interface P link speed')",
	},
    .follows_host = "iproute2 tc-tbf(8), dcb/dcb_maxrate.c ('dcb maxrate'); ethtool supported link "
		    "modes",
};
