// SPDX-License-Identifier: MIT
/*
 * link-flap: a switch port or an RNIC goes down for --down out of every
 * --period, --count times (or until --for/--hold ends).  A flap starts with
 * its down phase.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/deadman.h"
#include "injectors/effect.h"
#include "injectors/host_found.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/links.h"
#include "injectors/render.h"

#include <arpa/inet.h>
#include <limits.h>
#include <string.h>

struct link_flap_opts {
	long long period_ms, down_ms;
	int count; /* cycles, 0: one, or until --for/--hold ends */
};
FAULT_KIND_OPTS(lf, struct link_flap_opts)

#define FS(f) offsetof(struct link_flap_opts, f)

static const struct opt_desc opts[] = {
    {"period", OPT_MS, 100, 3600000, FS(period_ms), "one down-and-up cycle"},
    {"down", OPT_MS, 50, 3600000, FS(down_ms), "down part of each cycle"},
    {"count", OPT_INT, 0, 100000, FS(count), "cycles; 0: one, or until --for/--hold ends"},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	lf_rw(s)->period_ms = 10000;
	lf_rw(s)->down_ms = 5000;
}

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	if (lf_of(s)->down_ms < lf_of(s)->period_ms)
		return 0;
	snprintf(why, whylen, "down (%lldms) must be shorter than period (%lldms)",
		 lf_of(s)->down_ms, lf_of(s)->period_ms);
	return -EINVAL;
}

/* An RNIC's netdev: administratively up before the flap, down during it, up after. */
static void read_admin(struct fault_action *a, const char *netdev)
{
	char cmd[96], as[64];

	snprintf(cmd, sizeof(cmd), "ip -j link show dev %s", netdev);
	snprintf(as, sizeof(as), "ip-link %s", netdev);
	fault_action_read(a, cmd, as);
}

static int plan_host(struct render_ctx *rc)
{
	const struct inventory *inv = rc->inv;
	const struct fault_spec *s = rc->spec;
	struct fault_plan *p = rc->plan;
	const struct inv_rnic *r = &inv->hosts[s->tdev].rnics[s->tport];
	const char *host = inv->hosts[s->tdev].name;
	char gw[16];

	inet_ntop(AF_INET, &r->gateway, gw, sizeof(gw));
	/* Admin-down flushes the RNIC's policy route; undo puts it back after link-up. */
	fault_plan_host_op(p, host, "noop", "route-add %u 0.0.0.0/0 %s %s",
			   topo_host_table(s->tport), gw, r->netdev);
	fault_plan_host_op(p, host, "link-down %s", "link-up %s", r->netdev);
	read_admin(&p->acts[p->n_acts - 1], r->netdev);
	if (p->host_cmds)
		snprintf(p->note, sizeof(p->note),
			 "shown as rocelab lays hosts out: the routes through %s that link-down "
			 "flushes are read from %s when applied, and restored as found",
			 r->netdev, host);
	return 0;
}

/*
 * The target as its device read it before the flap: administratively up
 * (a port configured down has nothing to flap, and its undo would not
 * leave it so); NVUE's undo becomes the link state found.
 */
static int admin_up(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		    void *ctx)
{
	struct fault_action *a = &p->acts[i];

	(void)ctx;
	if (!rb->up) {
		snprintf(f->err, sizeof(f->err),
			 "%s:%s is not administratively up before the flap ('%s': %s); bring it "
			 "up first",
			 a->device, fault_read_port(a), a->read, rb->canon);
		return -EALREADY;
	}
	if (!strncmp(a->read_as, "nvue-state ", 11))
		link_flap_nvue_state_revert(a, fault_read_port(a), a->found);
	return 0;
}

static int judge_found(struct fault_run *f, struct fault_plan *p)
{
	return fault_judge_found(f, p, "the flap", admin_up, NULL);
}

/* Who puts a route back after link-up: the kernel (its own), a routing daemon, or nobody. */
static bool route_restored_by_others(json_t *x)
{
	static const char *const ours[] = {"boot", "static", "dhcp", NULL};
	char proto[16];

	if (json_object_get(x, "type")) /* local, broadcast, unreachable...: the kernel's */
		return true;
	if (!host_found_word(x, "protocol", proto, sizeof(proto)))
		return false; /* 'ip route add' without proto: boot */
	for (size_t i = 0; ours[i]; i++)
		if (!strcmp(proto, ours[i]))
			return false;
	return true; /* kernel, ra, or a routing daemon's (bgp, zebra, ospf, a number...) */
}

/*
 * The routes through port of a Linux switch sw that admin-down flushes and
 * nobody else puts back, as found there (every table, IPv4 and IPv6), as
 * idempotent 'ip route replace' lines after revert's link-up.  A multipath
 * route keeps its other next hops and gets this one back with the link (the
 * kernel revives it); one whose every next hop is through port cannot be
 * restored as found: refused.  *n: the routes, *left: those left to others.
 */
static int linux_switch_routes(struct fault_run *f, struct fault_action *a, const char *port,
			       size_t *n, size_t *left)
{
	struct sbuf v = {0};
	int r = 0;

	sb_printf(&v, "%s", a->revert);
	for (int v6 = 0; v6 < 2 && !r; v6++) {
		const char *argv[] = {"ip",   v6 ? "-6" : "-4", "-j",  "route",
				      "show", "table",		"all", NULL};
		json_t *routes = fault_read_json(f, a->device, argv), *x;
		char dev[64];
		size_t i;

		if (!routes) {
			r = -EIO;
			break;
		}
		json_array_foreach(routes, i, x)
		{
			json_t *nhs = json_object_get(x, "nexthops"), *nh;
			size_t k, through = 0;
			struct sbuf add = {0};

			json_array_foreach(nhs, k, nh) through +=
			    host_found_word(nh, "dev", dev, sizeof(dev)) && !strcmp(dev, port);
			if (through && through == json_array_size(nhs)) {
				snprintf(
				    f->err, sizeof(f->err),
				    "%s: a multipath route runs only through %s; rocelab cannot "
				    "restore it as found after the flap",
				    a->device, port);
				r = -EOPNOTSUPP;
				break;
			}
			if (nhs || !host_found_word(x, "dev", dev, sizeof(dev)) ||
			    strcmp(dev, port))
				continue; /* not through port, or one of several next hops */
			if (route_restored_by_others(x)) {
				*left += !json_object_get(x, "type");
				continue;
			}
			if (!(r = fault_found_route(f, x, a->device, port, v6, HOST_ROUTE_REPLACE,
						    &add))) {
				sb_printf(&v, " && %s", add.p);
				(*n)++;
			}
			sb_free(&add);
			if (r)
				break;
		}
		json_decref(routes);
	}
	if (!r)
		fault_action_set(&a->revert, v.p);
	sb_free(&v);
	return r;
}

/* A Linux switch port's flap: its undo restores the routes found through it. */
static int discover_switch(struct fault_run *f, struct fault_plan *p)
{
	for (size_t i = 0; i < p->n_acts; i++) {
		struct fault_action *a = &p->acts[i];
		size_t n = 0, left = 0;
		const char *port;
		int r;

		/* the Linux dialect's flap: read back as "ip-link PORT" over SSH */
		if (a->backend != FB_SSH || !a->read_as || strncmp(a->read_as, "ip-link ", 8))
			continue;
		port = fault_read_port(a);
		if ((r = linux_switch_routes(f, a, port, &n, &left)))
			return r;
		snprintf(p->note, sizeof(p->note),
			 "%zu static route(s) through %s as found on %s, restored after link-up; "
			 "%zu left to the kernel or a routing daemon",
			 n, port, a->device, left);
	}
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h;
	const char *netdev;
	struct fault_plan found = {0};
	struct fault_action *down;
	char down_op[64], up_op[64];
	size_t n_routes;
	int r = judge_found(f, p);

	if (!r && s->tkind != INV_DEV_HOST)
		return discover_switch(f, p);
	if (r || lab_can(f->lab, LAB_CAP_NETLINK))
		return r; /* hosts rocelab laid out: the plan stands */
	h = &f->inv->hosts[s->tdev];
	netdev = h->rnics[s->tport].netdev;
	r = fault_found_link(f, &found, h->name, netdev, &n_routes);
	if (r) {
		fault_plan_clear(&found);
		return r;
	}
	/* Undo runs in reverse: the link comes up, then its addresses, then its routes. */
	snprintf(down_op, sizeof(down_op), "link-down %s", netdev);
	snprintf(up_op, sizeof(up_op), "link-up %s", netdev);
	down = fault_plan_add(&found, FB_HOST, h->name, down_op, NULL, up_op);
	for (size_t i = 0; i < p->n_acts; i++) /* the read, and what it found, go along */
		if (p->acts[i].read) {
			fault_action_read(down, p->acts[i].read, p->acts[i].read_as);
			fault_action_set(&down->found, p->acts[i].found);
		}
	fault_plan_take(p, &found);
	snprintf(p->note, sizeof(p->note),
		 "%zu route(s) through %s and %zu IPv6 address(es) as found on %s, restored after "
		 "link-up",
		 n_routes, netdev, p->n_acts - 1 - n_routes, h->name);
	return 0;
}

static int linux_link_flap(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "ip link set dev %s down", r->port);
	sb_printf(&v, "ip link set dev %s up", r->port);
	nos_read_port(nos_emit(r, &a, NULL, &v), "ip-link", r->port, "ip -j link show dev %s",
		      r->port);
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "the static routes through %s that admin-down flushes are read from %s when "
		 "applied and restored as found (a routing daemon's come back from it)",
		 r->port, r->inv->switches[r->sw].name);
	return 0;
}

/*
 * config/main.py 'config interface shutdown|startup <interface_name>'
 * writes CONFIG_DB PORT|P admin_status down|up (sonic-net/sonic-utilities,
 * and its tests check exactly that field).  Read before: that field; a port
 * not configured up is refused (link_flap.c), so 'startup' gives it back.
 */
static int sonic_link_flap(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "sudo config interface shutdown %s", r->port);
	sb_printf(&v, "sudo config interface startup %s", r->port);
	nos_read_port(nos_emit(r, &a, NULL, &v), "sonic-admin", r->port,
		      "sonic-db-cli CONFIG_DB HGET 'PORT|%s' admin_status", r->port);
	return 0;
}

static int eos_link_flap(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "configure\ninterface %s\nshutdown\nend", r->port);
	sb_printf(&v, "configure\ninterface %s\nno shutdown\nend", r->port);
	nos_read_port(nos_emit(r, &a, NULL, &v), "eos-shut", r->port,
		      "show running-config interfaces %s", r->port);
	return 0;
}

/*
 * 'nv set interface P link state down|up' (NVUE reference, Interfaces).
 * Read before: the port's 'link state' in the applied configuration; the
 * undo sets what was there, or unsets it when nothing was
 * (link_flap_nvue_state_revert).
 */
static int nvue_link_flap(struct render_ctx *r)
{
	struct fault_action *act;
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "link-flap");

	if (ret)
		return ret;
	sb_printf(&a, "nv set interface %s link state down && nv config apply -y", r->port);
	sb_printf(&v, "-");
	act = nos_read_port(nos_emit(r, &a, NULL, &v), "nvue-state", r->port,
			    "nv config show -o commands | { grep ' link state ' || true; }");
	link_flap_nvue_state_revert(act, r->port, NULL);
	return 0;
}

void link_flap_nvue_state_revert(struct fault_action *a, const char *port, const char *found)
{
	struct readback rb;
	struct sbuf v = {0};
	char err[160];

	/* not read yet (a dry run): as a port with no link state set shows it */
	if (found && !readback_parse(a->read_as, found, &rb, err, sizeof(err)) && rb.admin[0])
		sb_printf(&v, "nv set interface %s link state %s", port, rb.admin);
	else
		sb_printf(&v, "nv unset interface %s link state", port);
	sb_printf(&v, " && nv config apply -y");
	fault_action_set(&a->revert, v.p);
	sb_free(&v);
}

/*
 * Each end of the target's link as its device reads it (injectors/nos/links.c:
 * the kernel's operstate on hosts and linux switches, each NOS's own show
 * command on the others): "host2:rnic1 DOWN (ip -j link show on host2)".
 */
static int read_ends(struct fault_run *f, struct inv_endpoint ends[2], struct port_state st[2],
		     char *said, size_t len)
{
	size_t used = 0;

	said[0] = '\0';
	for (int e = 0; e < 2; e++) {
		char name[80], err[384];
		const char *dev = inventory_device_name(f->inv, &ends[e]);
		int r = links_port(f->lab, &ends[e], &st[e], err, sizeof(err));
		int k;

		if (r) {
			snprintf(f->err, sizeof(f->err), "reading the link state: %s", err);
			return r;
		}
		inventory_endpoint_name(f->inv, &ends[e], name, sizeof(name));
		k = snprintf(said + used, len - used, "%s%s %s (%s on %s)", e ? ", " : "", name,
			     st[e].word,
			     links_source(ends[e].kind == INV_DEV_HOST
					      ? INV_DIALECT_LINUX
					      : f->inv->switches[ends[e].dev].dialect),
			     dev);
		used += k > 0 && (size_t)k < len - used ? (size_t)k : 0;
	}
	return 0;
}

/*
 * Before anything changes: a link that is down already has nothing to flap,
 * and one that carries rocelab's own way to either end is not taken down.
 */
static int precheck(struct fault_run *f)
{
	struct inv_endpoint ends[2];
	struct port_state st[2];
	char said[400];
	int r;

	if (fault_target_ends(f, &ends[0], &ends[1]))
		return -EINVAL;
	if ((r = read_ends(f, ends, st, said, sizeof(said))))
		return r;
	if (!st[0].up || !st[1].up) {
		snprintf(f->err, sizeof(f->err),
			 "the link is not up before the flap: %s; bring it up first", said);
		return -EALREADY;
	}
	/* a flap takes both ends down: neither device may be managed through its end */
	for (int e = 0; e < 2 && !r; e++) {
		const char *name = ends[e].kind == INV_DEV_HOST
				       ? f->inv->hosts[ends[e].dev].rnics[ends[e].port].netdev
				       : f->inv->switches[ends[e].dev].ports[ends[e].port].name;

		r = fault_mgmt_check(f, inventory_device_name(f->inv, &ends[e]), &name, 1);
	}
	return r;
}

static bool admin_down(const struct fault_run *f, const struct fault_action *a,
		       const struct readback *rb)
{
	(void)f;
	(void)a;
	return !rb->up;
}

/*
 * "flap F: down at +T s (cycle C; clock R)": T in seconds from the fault's
 * start (its first down, issue 58: what a person reads), R the same instant
 * in CLOCK_REALTIME seconds, from which the incident report shades each
 * down interval.  Each is the device's (issue 64): a down when its actions
 * had returned and both ends read down, an up when both ends read up again.
 */
static void flap_event(const struct fault_run *f, const char *what, unsigned long long ns, int c)
{
	unsigned long long z = f->zero_rt_ns && f->zero_rt_ns <= ns ? f->zero_rt_ns : ns;

	rl_info("flap %u: %s at +%llu.%03llu s (cycle %d; clock %llu.%03llu)", f->id, what,
		(ns - z) / 1000000000ULL, (ns - z) / 1000000ULL % 1000, c, ns / 1000000000ULL,
		ns / 1000000ULL % 1000);
}

/*
 * Read both ends until each says up (or down), up to a second (ten on a NOS:
 * each read is an SSH round trip and a NOS takes its time).  The realtime of
 * the read that saw it, or 0 with said telling how they read at the end.
 */
static unsigned long long until_ends(struct fault_run *f, bool up, char *said, size_t len)
{
	struct inv_endpoint ends[2];
	struct port_state st[2];
	bool nos;
	unsigned long long end;

	said[0] = '\0';
	if (fault_target_ends(f, &ends[0], &ends[1]))
		return 0;
	nos = !fault_end_readable(f->inv, &ends[0]) || !fault_end_readable(f->inv, &ends[1]);
	end = rl_now_ns() + (nos ? 10000 : 1000) * 1000000ULL;
	for (;;) {
		if (read_ends(f, ends, st, said, len))
			return 0;
		if (st[0].up == up && st[1].up == up)
			return rl_realtime_ns();
		if (rl_now_ns() >= end || rl_interrupted)
			return 0;
		fault_sleep_ms(nos ? 250 : 20);
	}
}

/* Both ends read down; a NOS takes its time, and each read is an SSH round trip. */
static int verify(struct fault_run *f)
{
	unsigned long long down_at = rl_realtime_ns(); /* its actions just ran */
	char said[400];
	int r;

	f->origin_ns = rl_now_ns(); /* the schedule's origin: this first down */
	f->zero_rt_ns = down_at;
	if (!until_ends(f, false, said, sizeof(said))) {
		if (!f->err[0])
			snprintf(f->err, sizeof(f->err), "still up after the flap's down: %s",
				 said);
		return -EIO;
	}
	if ((r = fault_verify_reads(f, admin_down)))
		return r;
	snprintf(f->evidence + strlen(f->evidence), sizeof(f->evidence) - strlen(f->evidence),
		 "%slink down: %s", f->evidence[0] ? "; " : "", said);
	flap_event(f, "down", down_at, 1);
	return 0;
}

/*
 * Sleep until monotonic time t (or a signal, or a device's dead-man timer
 * found fired); the devices' timers re-armed on the way while a second at
 * least is left, so that a slow re-arm never makes a step late.
 */
static void sleep_until(struct fault_run *f, unsigned long long t)
{
	for (unsigned long long now;
	     (now = rl_now_ns()) < t && !rl_interrupted && !f->deadman_fired;) {
		if (t - now > 1000000000ULL) {
			fault_deadman_beat(f, false);
			if ((now = rl_now_ns()) >= t)
				break;
		}
		fault_sleep_ms(
		    t - now > 1000000000ULL ? 1000 : (long long)((t - now + 999999) / 1000000ULL));
	}
}

/* What of its schedule the flap did not run as written: warned, the first kept (f->short_of). */
static void short_of(struct fault_run *f, const char *line)
{
	rl_warn("flap %u: %s", f->id, line);
	if (!f->short_of[0])
		snprintf(f->short_of, sizeof(f->short_of), "link-flap %s: %s", f->spec->target,
			 line);
}

/*
 * Cycle c's up (or down) step, due at monotonic time due: its actions, then
 * both ends read so, stamped (an up when they read up, a down when its
 * actions had returned).  false when they did not read so (said in
 * f->short_of).  A step whose actions returned later than slack after its
 * time is said too, with where the time went: the injector waking late,
 * or the device taking long to act.  The read-back after them is not
 * counted: it confirms what the actions did, and the events it stamps are
 * the ground truth either way (a VM tier run had its up said 1.23 s late
 * with no telling which).
 */
static bool step(struct fault_run *f, bool up, int c, unsigned long long due,
		 unsigned long long slack, unsigned long long *took)
{
	const char *what = up ? "up" : "down";
	unsigned long long ran, seen, woke = rl_now_ns(), acted;
	char said[400], line[480];

	fault_run_actions(f, up);
	ran = rl_realtime_ns();
	acted = rl_now_ns();
	*took = acted - woke;
	if (!(seen = until_ends(f, up, said, sizeof(said)))) {
		snprintf(line, sizeof(line), "cycle %d's %s did not read back: %.300s", c, what,
			 said);
		short_of(f, line);
		return false;
	}
	rl_dbg("flap %u: cycle %d's %s: woke %+.3f s from its time, acted in %.3f s, read back "
	       "in %.3f s",
	       f->id, c, what, ((double)woke - (double)due) / 1e9, (double)(acted - woke) / 1e9,
	       (double)(rl_now_ns() - acted) / 1e9);
	if (acted > due + slack) {
		snprintf(line, sizeof(line),
			 "cycle %d's %s came %.2f s after its time in the schedule (the injector "
			 "woke %.2f s late, the device acted in %.2f s)",
			 c, what, (double)(acted - due) / 1e9,
			 woke > due ? (double)(woke - due) / 1e9 : 0.0,
			 (double)(acted - woke) / 1e9);
		short_of(f, line);
	}
	flap_event(f, what, up ? seen : ran, c);
	return true;
}

/*
 * Flap as written until the count, --for, a run's hold (hold_ms: no cycle
 * starts at or past its end, which the run's SIGTERM follows) or a signal
 * ends it; the first down phase is already applied (at f->origin_ns).  Cycle
 * C goes down at the origin + (C-1) x period and up --down after, on that
 * schedule rather than after the last step's commands (which over SSH take
 * their time); a step that lands later than half of its phase (50 ms to
 * 1 s), or an end that does not read back, is said (f->short_of).  Each step
 * starts as early as the last one's commands took (at most that half phase),
 * so that it lands on its time: in the VM tier an 'ip link set' takes
 * 0.5-0.85 s, over SSH to a NOS about as long, and every step landed that
 * late.  The first up starts early by what the first down's commands took
 * (f->first_took_ns): with no lead it came 1.01 s late in a VM tier run
 * (woke 0.15 s late, acted in 0.86 s).
 */
static void live(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const unsigned long long period = (unsigned long long)lf_of(s)->period_ms * 1000000ULL,
				 down = (unsigned long long)lf_of(s)->down_ms * 1000000ULL;
	long long until = s->for_ms ? s->for_ms : s->hold_ms; /* a run's hold: its length */
	unsigned long long end = until ? f->origin_ns + (unsigned long long)until * 1000000ULL
				       : ULLONG_MAX,
			   slack = (down < period - down ? down : period - down) / 2;
	int cycles = lf_of(s)->count ? lf_of(s)->count : (s->for_ms || s->hold) ? INT_MAX : 1;

	slack = slack < 50000000ULL ? 50000000ULL : slack > 1000000000ULL ? 1000000000ULL : slack;
	unsigned long long lead = f->first_took_ns < slack ? f->first_took_ns : slack, took = 0;

	rl_dbg("flap %u: the first down's commands took %.3f s: the first up starts %.3f s early",
	       f->id, (double)f->first_took_ns / 1e9, (double)lead / 1e9);

	for (int c = 1; !rl_interrupted; c++) {
		unsigned long long up_at =
				       f->origin_ns + (unsigned long long)(c - 1) * period + down,
				   next = f->origin_ns + (unsigned long long)c * period;

		sleep_until(f, up_at - lead);
		if (rl_interrupted || f->deadman_fired || !step(f, true, c, up_at, slack, &took) ||
		    c >= cycles || next >= end)
			break;
		lead = took < slack ? took : slack;
		sleep_until(f, next - lead);
		if (rl_interrupted || f->deadman_fired ||
		    !step(f, false, c + 1, next, slack, &took))
			break;
		lead = took < slack ? took : slack;
	}
}

const struct fault_kind_ops fk_link_flap = {
    .name = "link-flap",
    .usage = "--target SWITCH:PORT | HOST:RNIC   (a flap starts with its down phase)",
    .targets = FT_PORT | FT_RNIC,
    .example = "rail2:swp6",
    .opts = opts,
    .opts_size = sizeof(struct link_flap_opts),
    .defaults = defaults,
    .check = check,
    .plan_host = plan_host,
    .render = {[INV_DIALECT_LINUX] = linux_link_flap,
	       [INV_DIALECT_SONIC] = sonic_link_flap,
	       [INV_DIALECT_EOS] = eos_link_flap,
	       [INV_DIALECT_NVUE] = nvue_link_flap},
    .cannot = "flap a link",
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
    .live = live,
    .follows =
	{
	    [INV_DIALECT_LINUX] =
		"iproute2 ('ip link set', 'ip -j route show table all', 'ip route replace')",
	    [INV_DIALECT_SONIC] =
		"sonic-utilities config/main.py ('config interface shutdown|startup'); CONFIG_DB "
		"PORT admin_status, APPL_DB PORT_TABLE oper_status",
	    [INV_DIALECT_EOS] =
		"EOS User Manual, Ethernet ports ('shutdown'; 'show interfaces status | json')",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference, Interface ('nv set interface P link state'; output "
		"format inferred)",
	},
    .follows_host = "iproute2 ('ip link set DEV down|up', 'ip -j link show')",
};
