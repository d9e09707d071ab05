// SPDX-License-Identifier: MIT
/* rocelab inject/revert/faults/load: validate, journal, apply, verify with real evidence, revert.
 */
#define _GNU_SOURCE
#include "injectors/inject.h"

#include "harness/lab/lab.h"
#include "harness/lab/traffic.h"
#include "harness/lib/common.h"
#include "harness/lib/nl.h"
#include "harness/lib/proc.h"
#include "harness/lib/state.h"
#include "harness/lib/topo.h"
#include "injectors/exec.h"
#include "injectors/fault.h"
#include "injectors/journal.h"
#include "injectors/netlink_op.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char inject_help[] =
    "usage: rocelab inject KIND --target TARGET [--for DURATION | --hold] [options] [-i INV] [-j]\n"
    "\n"
    "Apply a fault, verify it took effect with real evidence, and revert it: after\n"
    "--for DURATION, at SIGINT/SIGTERM with --hold, or by 'rocelab revert' when neither\n"
    "is given. Every fault is journaled (fsync) before it is applied.\n"
    "Without -i the inventory is that of the lab that is up.\n"
    "\n"
    "kinds and their options:\n"
    "  link-flap           --target SWITCH:PORT | HOST:RNIC  [--period 10s] [--down 5s]\n"
    "                      [--count N] (a flap starts with its down phase; default 1 cycle\n"
    "                      without --for/--hold)\n"
    "  acl-error           --target SWITCH[:PORT] --from HOST:RNIC --to HOST:RNIC\n"
    "                      | --from-tenant T --to-tenant T   (denies UDP 4791 from -> to)\n"
    "  pfc-misconfig       --target SWITCH[:PORT] | HOST:RNIC  [--priority 3]\n"
    "                      virtual lab: emulated [--emu-rate 100mbit] [--shallow 6000 bytes]\n"
    "  ipid-drop           --target SWITCH[:PORT]  --mod N [--rem K] | --range A-B | --ids a,b,..\n"
    "                      [--roce-only] [--direction in|out|both]\n"
    "  rnic-route-missing  --target HOST:RNIC\n"
    "  link-degrade        --target SWITCH:PORT | HOST:RNIC  --rate RATE (e.g. 10mbit)\n"
    "\n"
    "--dry-run prints the commands each backend would run (and their undo), changing nothing.\n"
    "\n"
    "exit: 0 applied (and reverted, with --for/--hold); 2 bad input, nothing applied;\n"
    "3 could not be applied or verified (reverted), or the dialect cannot do it.\n";

/* ---- option parsing --------------------------------------------------------- */

struct inject_args {
	const char *inv_path;
	bool json;
	struct fault_spec spec;
	const char *target, *from, *to, *from_tenant, *to_tenant;
	bool have_mod, have_range, have_ids, have_rate, have_period, have_down;
	bool dry_run;
};

#define bad(...) rl_usage_error("inject", __VA_ARGS__)

static int duration(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
	if (rl_parse_duration_ms(v, out) || *out < lo || *out > hi)
		return bad("%s '%s' is not a duration from %lldms to %llds (e.g. 10s, 250ms, 2m)",
			   opt, v, lo, hi / 1000);
	return 0;
}

static int number(const char *opt, const char *v, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 0);
	if (errno || end == v || *end || *out < lo || *out > hi)
		return bad("%s '%s' is not a whole number from %ld to %ld", opt, v, lo, hi);
	return 0;
}

static int rate(const char *opt, const char *v, unsigned long long lo_kbit,
		unsigned long long hi_kbit, unsigned long long *kbit)
{
	unsigned long long mbps;
	double d;
	char *end;

	/* parse via Mbit/s with kbit precision: "500kbit" -> 0.5 Mbit/s */
	if (rl_parse_rate_mbps(v, &mbps))
		return bad("%s '%s' is not a rate (e.g. 10mbit, 1gbit, 500kbit)", opt, v);
	d = strtod(v, &end);
	if (!strncasecmp(end, "k", 1))
		*kbit = (unsigned long long)d;
	else
		*kbit = mbps * 1000;
	if (*kbit < lo_kbit || *kbit > hi_kbit)
		return bad("%s '%s' is out of range (%llukbit..%llugbit)", opt, v, lo_kbit,
			   hi_kbit / 1000000);
	return 0;
}

enum {
	O_TARGET = 256,
	O_FOR,
	O_HOLD,
	O_PERIOD,
	O_DOWN,
	O_COUNT,
	O_FROM,
	O_TO,
	O_FROMT,
	O_TOT,
	O_PRIO,
	O_EMU,
	O_SHALLOW,
	O_MOD,
	O_REM,
	O_RANGE,
	O_IDS,
	O_ROCE,
	O_DIR,
	O_RATE,
	O_DRY,
};

static const struct option inject_opts[] = {
    {"inventory", required_argument, NULL, 'i'},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {"verbose", no_argument, NULL, 'v'},
    {"target", required_argument, NULL, O_TARGET},
    {"for", required_argument, NULL, O_FOR},
    {"hold", no_argument, NULL, O_HOLD},
    {"period", required_argument, NULL, O_PERIOD},
    {"down", required_argument, NULL, O_DOWN},
    {"count", required_argument, NULL, O_COUNT},
    {"from", required_argument, NULL, O_FROM},
    {"to", required_argument, NULL, O_TO},
    {"from-tenant", required_argument, NULL, O_FROMT},
    {"to-tenant", required_argument, NULL, O_TOT},
    {"priority", required_argument, NULL, O_PRIO},
    {"emu-rate", required_argument, NULL, O_EMU},
    {"shallow", required_argument, NULL, O_SHALLOW},
    {"mod", required_argument, NULL, O_MOD},
    {"rem", required_argument, NULL, O_REM},
    {"range", required_argument, NULL, O_RANGE},
    {"ids", required_argument, NULL, O_IDS},
    {"roce-only", no_argument, NULL, O_ROCE},
    {"direction", required_argument, NULL, O_DIR},
    {"rate", required_argument, NULL, O_RATE},
    {"dry-run", no_argument, NULL, O_DRY},
    {0},
};

static int parse_inject(int argc, char **argv, struct inject_args *a)
{
	struct fault_spec *s = &a->spec;
	long v;
	int c, r;

	s->period_ms = 10000;
	s->down_ms = 5000;
	s->priority = 3;
	s->emu_rate_kbit = 100000;
	s->shallow_bytes = 6000;
	s->dir = DIR_BOTH;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:jhv", inject_opts, NULL)) != -1) {
		r = 0;
		switch (c) {
		case 'i':
			a->inv_path = optarg;
			break;
		case 'j':
			a->json = true;
			break;
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			fputs(inject_help, stdout);
			return -1;
		case O_TARGET:
			a->target = optarg;
			break;
		case O_FOR:
			r = duration("--for", optarg, 1, 86400000LL, &s->for_ms);
			break;
		case O_HOLD:
			s->hold = true;
			break;
		case O_PERIOD:
			r = duration("--period", optarg, 100, 3600000LL, &s->period_ms);
			a->have_period = true;
			break;
		case O_DOWN:
			r = duration("--down", optarg, 50, 3600000LL, &s->down_ms);
			a->have_down = true;
			break;
		case O_COUNT:
			r = number("--count", optarg, 1, 100000, &v);
			s->count = (int)v;
			break;
		case O_FROM:
			a->from = optarg;
			break;
		case O_TO:
			a->to = optarg;
			break;
		case O_FROMT:
			a->from_tenant = optarg;
			break;
		case O_TOT:
			a->to_tenant = optarg;
			break;
		case O_PRIO:
			r = number("--priority", optarg, 0, 7, &v);
			s->priority = (int)v;
			break;
		case O_EMU:
			r = rate("--emu-rate", optarg, 1000, 10000000, &s->emu_rate_kbit);
			break;
		case O_SHALLOW:
			r = number("--shallow", optarg, 1500, 1000000, &v);
			s->shallow_bytes = (unsigned)v;
			break;
		case O_MOD:
			r = number("--mod", optarg, 2, 65536, &v);
			s->mod = (unsigned)v;
			a->have_mod = true;
			break;
		case O_REM:
			r = number("--rem", optarg, 0, 65535, &v);
			s->rem = (unsigned)v;
			break;
		case O_RANGE: {
			unsigned lo, hi;
			char tail;

			if (sscanf(optarg, "%u-%u%c", &lo, &hi, &tail) != 2 || lo > hi ||
			    hi > 65535)
				return bad("--range '%s' is not A-B with 0 <= A <= B <= 65535",
					   optarg);
			s->lo = lo;
			s->hi = hi;
			a->have_range = true;
			break;
		}
		case O_IDS: {
			char buf[1024], *save = NULL;

			snprintf(buf, sizeof(buf), "%s", optarg);
			for (char *t = strtok_r(buf, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (s->n_ids == FAULT_MAX_IDS)
					return bad("--ids takes at most %d values", FAULT_MAX_IDS);
				if ((r = number("--ids value", t, 0, 65535, &v)))
					return r;
				s->ids[s->n_ids++] = (unsigned)v;
			}
			a->have_ids = s->n_ids > 0;
			break;
		}
		case O_ROCE:
			s->roce_only = true;
			break;
		case O_DRY:
			a->dry_run = true;
			break;
		case O_DIR:
			if (!strcmp(optarg, "in"))
				s->dir = DIR_IN;
			else if (!strcmp(optarg, "out"))
				s->dir = DIR_OUT;
			else if (!strcmp(optarg, "both"))
				s->dir = DIR_BOTH;
			else
				return bad("--direction '%s' is not in, out or both", optarg);
			break;
		case O_RATE:
			r = rate("--rate", optarg, 8, 4000000000ULL, &s->rate_kbit);
			a->have_rate = true;
			break;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
		if (r)
			return r;
	}
	if (optind >= argc)
		return bad("give a fault kind");
	if (optind + 1 < argc)
		return bad("unexpected argument '%s'", argv[optind + 1]);
	if (fault_kind_parse(argv[optind], &s->kind))
		return bad("unknown fault kind '%s': one of link-flap, acl-error, pfc-misconfig, "
			   "ipid-drop, rnic-route-missing, link-degrade",
			   argv[optind]);
	if (!a->target)
		return bad("%s needs --target", argv[optind]);
	if (s->for_ms && s->hold)
		return bad("give --for or --hold, not both");
	if (s->down_ms >= s->period_ms)
		return bad("--down (%lldms) must be shorter than --period (%lldms)", s->down_ms,
			   s->period_ms);
	if (a->have_mod + a->have_range + a->have_ids > 1)
		return bad("give one of --mod, --range or --ids");
	if (s->kind == FK_IPID_DROP && !a->have_mod && !a->have_range && !a->have_ids)
		return bad("ipid-drop needs --mod N [--rem K], --range A-B or --ids a,b,...");
	if (a->have_mod && s->rem >= s->mod)
		return bad("--rem %u must be smaller than --mod %u", s->rem, s->mod);
	s->ipid = a->have_range ? IPID_RANGE : a->have_ids ? IPID_SET : IPID_MOD;
	if (s->kind == FK_LINK_DEGRADE && !a->have_rate)
		return bad("link-degrade needs --rate (e.g. --rate 10mbit)");
	if (s->kind == FK_ACL_ERROR) {
		bool rnics = a->from || a->to, tenants = a->from_tenant || a->to_tenant;

		if (rnics == tenants || (rnics && (!a->from || !a->to)) ||
		    (tenants && (!a->from_tenant || !a->to_tenant)))
			return bad(
			    "acl-error needs --from HOST:RNIC --to HOST:RNIC, or --from-tenant T "
			    "--to-tenant T");
	}
	return 0;
}

/* Resolve names against the inventory; every check before anything is touched. */
static int resolve(struct inject_args *a, const struct inventory *inv)
{
	struct fault_spec *s = &a->spec;
	struct inv_endpoint ep;
	char msg[160];

	if (!rl_port_name_ok(a->target, sizeof(s->target) - 2))
		return bad("--target '%s' is not a valid name", a->target);
	snprintf(s->target, sizeof(s->target), "%s", a->target);
	if (!strchr(a->target, ':')) {
		struct inv_switch *sw = inventory_switch(inv, a->target);

		if (!sw) {
			if (inventory_host(inv, a->target))
				return bad(
				    "--target '%s' is a host: give one of its RNICs (%s:rnicN)",
				    a->target, a->target);
			return bad("--target: no switch is named '%s' in %s", a->target, inv->path);
		}
		s->tkind = INV_DEV_SWITCH;
		s->tdev = (size_t)(sw - inv->switches);
		s->tport = -1;
	} else {
		if (inventory_endpoint(inv, a->target, &ep, msg, sizeof(msg)))
			return bad("--target: %s", msg);
		s->tkind = ep.kind;
		s->tdev = ep.dev;
		s->tport = (ssize_t)ep.port;
		if (!inventory_link_at(inv, &ep))
			return bad("--target %s is not cabled to anything", a->target);
	}
	if (s->kind == FK_LINK_DEGRADE) {
		struct inv_endpoint t = {s->tkind, s->tdev, (size_t)(s->tport < 0 ? 0 : s->tport)};
		const struct inv_link *l = s->tport >= 0 ? inventory_link_at(inv, &t) : NULL;

		if (l && s->rate_kbit >= l->speed_mbps * 1000)
			return bad(
			    "--rate must be below the link's speed (%llu Mbit/s) to degrade it",
			    l->speed_mbps);
	}
	if (s->kind == FK_ACL_ERROR) {
		if (a->from) {
			if (inventory_endpoint(inv, a->from, &s->from, msg, sizeof(msg)) ||
			    s->from.kind != INV_DEV_HOST)
				return bad("--from: %s", s->from.kind != INV_DEV_HOST
							     ? "must be an RNIC (host:rnic)"
							     : msg);
			if (inventory_endpoint(inv, a->to, &s->to, msg, sizeof(msg)) ||
			    s->to.kind != INV_DEV_HOST)
				return bad("--to: %s", s->to.kind != INV_DEV_HOST
							   ? "must be an RNIC (host:rnic)"
							   : msg);
		} else {
			bool ff = false, ft = false;

			s->acl_tenants = true;
			for (size_t i = 0; i < inv->n_tenants; i++) {
				if (!strcmp(inv->tenants[i].name, a->from_tenant))
					s->from_tenant = i, ff = true;
				if (!strcmp(inv->tenants[i].name, a->to_tenant))
					s->to_tenant = i, ft = true;
			}
			if (!ff || !ft)
				return bad("no tenant is named '%s' in %s",
					   ff ? a->to_tenant : a->from_tenant, inv->path);
		}
	}
	return 0;
}

int inject_spec(int argc, char **argv, const struct inventory *inv, struct fault_spec *spec)
{
	struct inject_args a = {0};
	int r = parse_inject(argc, argv, &a);

	if (r)
		return r < 0 ? RL_EXIT_USAGE : r;
	if ((r = resolve(&a, inv)))
		return r;
	*spec = a.spec;
	return 0;
}

/* ---- verification: state read back as JSON through the lab ---------------------------- */

struct injection {
	struct inventory *inv;
	struct topo *topo;
	struct fault_spec *spec;
	struct fault_plan plan;
	struct lab lab;
	unsigned id;
	double applied_at; /* wall time when the first action took effect (before verification) */
	char evidence[512];
	char err[512];
};

/*
 * Run argv on dev through the lab and parse its stdout as JSON (iproute2 -j,
 * nft -j), as kernel selftests read state.  NULL with a reason in j->err.
 */
static json_t *read_json(struct injection *j, const char *dev, const char *const argv[])
{
	char *out = NULL;
	json_error_t je;
	json_t *v = NULL;
	int r = lab_exec(&j->lab, dev, argv, NULL, &out, j->err, sizeof(j->err));

	if (r == 0) {
		v = json_loads(out, JSON_DECODE_ANY, &je);
		if (!v)
			snprintf(j->err, sizeof(j->err), "%s: '%s' gave no JSON: %s", dev, argv[0],
				 je.text);
	}
	free(out);
	return v;
}

/* Sum every "key": N found anywhere inside v (nft counters, tc drops). */
static unsigned long long json_sum(json_t *v, const char *key)
{
	unsigned long long total = 0;
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
		{
			if (!strcmp(k, key) && json_is_integer(x))
				total += (unsigned long long)json_integer_value(x);
			else
				total += json_sum(x, key);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) total += json_sum(x, key);
	}
	return total;
}

/*
 * Sleep ms, or less when SIGINT/SIGTERM comes.  In slices: a signal held
 * while an ssh command ran arrives before nanosleep starts, not during it.
 */
static void sleep_ms(long long ms)
{
	unsigned long long end = rl_now_ns() + (unsigned long long)ms * 1000000ULL;

	for (unsigned long long now; !rl_interrupted && (now = rl_now_ns()) < end;) {
		unsigned long long left = end - now < 100000000ULL ? end - now : 100000000ULL;

		nanosleep(&(struct timespec){0, (long)left}, NULL);
	}
}

/* The device name and netdev of a link end. */
static void end_names(const struct inventory *inv, const struct inv_endpoint *ep, const char **dev,
		      const char **netdev)
{
	*dev = ep->kind == INV_DEV_HOST ? inv->hosts[ep->dev].name : inv->switches[ep->dev].name;
	*netdev = ep->kind == INV_DEV_HOST ? inv->hosts[ep->dev].rnics[ep->port].netdev
					   : inv->switches[ep->dev].ports[ep->port].name;
}

/* Can state on this end be read back with iproute2 (a host, or a Linux-dialect switch)? */
static bool end_readable(const struct inventory *inv, const struct inv_endpoint *ep)
{
	return ep->kind == INV_DEV_HOST || inv->switches[ep->dev].dialect == INV_DIALECT_LINUX;
}

/* Link state of a netdev as its kernel sees it: 'ip -j link show dev X'. */
static int oper_up(struct injection *j, const struct inv_endpoint *ep, bool *up)
{
	const char *dev, *netdev, *op;
	json_t *v;

	end_names(j->inv, ep, &dev, &netdev);
	v = read_json(j, dev,
		      (const char *const[]){"ip", "-j", "link", "show", "dev", netdev, NULL});
	if (!v)
		return -EIO;
	/*
	 * The kernel's netif_oper_up(): UP or UNKNOWN carries traffic.  Anything
	 * else is down: a veth without carrier reads LOWERLAYERDOWN before
	 * Linux 6.12 (its iflink is the peer) and DOWN after.
	 */
	op = json_string_value(json_object_get(json_array_get(v, 0), "operstate")) ?: "";
	*up = !strcmp(op, "UP") || !strcmp(op, "UNKNOWN");
	json_decref(v);
	return 0;
}

static int verify_link_flap(struct injection *j)
{
	struct fault_spec *s = j->spec;
	struct inv_endpoint t = {s->tkind, s->tdev, (size_t)s->tport}, peer;
	char pn[80];
	bool up_t = true, up_p = true;

	if (inventory_peer(j->inv, &t, &peer)) { /* resolve() refused uncabled targets */
		snprintf(j->err, sizeof(j->err), "%s is not cabled", s->target);
		return -EINVAL;
	}
	if (!end_readable(j->inv, &t) || !end_readable(j->inv, &peer)) {
		snprintf(j->evidence, sizeof(j->evidence),
			 "dialect commands succeeded (state not read back)");
		return 0;
	}
	for (int i = 0; i < 50 && (up_t || up_p); i++) {
		if (oper_up(j, &t, &up_t) || oper_up(j, &peer, &up_p))
			return -EIO;
		if (up_t || up_p)
			sleep_ms(20);
	}
	if (up_t || up_p) {
		snprintf(j->err, sizeof(j->err), "%s or its peer %s is still up", s->target,
			 inventory_endpoint_name(j->inv, &peer, pn, sizeof(pn)));
		return -EIO;
	}
	snprintf(j->evidence, sizeof(j->evidence), "operstate down on %s and on its peer %s",
		 s->target, inventory_endpoint_name(j->inv, &peer, pn, sizeof(pn)));
	return 0;
}

/* Can this lab send test traffic across a switch whose counters it can read? */
static bool counters_readable(struct injection *j, const struct inv_switch *sw)
{
	return lab_can(&j->lab, LAB_CAP_ENTER) && sw->dialect == INV_DIALECT_LINUX;
}

/* Send traffic that must cross the target, then read the fault's nft counters. */
static int verify_nft(struct injection *j, struct flow *flows, size_t n)
{
	const struct inv_switch *sw = &j->inv->switches[j->spec->tdev];
	unsigned long long pkts;
	json_t *v;
	int sent;

	if (!counters_readable(j, sw)) {
		snprintf(j->evidence, sizeof(j->evidence),
			 "dialect commands succeeded (no counters read)");
		return 0;
	}
	sent = traffic_send(&j->lab, flows, n, ROCEV2_UDP_PORT, 41000, 32, 6, 0, 64);
	if (sent < 0) {
		snprintf(j->err, sizeof(j->err), "cannot send test traffic: %s", strerror(-sent));
		return sent;
	}
	v = read_json(
	    j, sw->name,
	    (const char *const[]){"nft", "-j", "list", "table", "inet", j->plan.table, NULL});
	if (!v)
		return -EIO;
	pkts = json_sum(v, "packets");
	json_decref(v);
	if (pkts == 0) {
		snprintf(j->err, sizeof(j->err),
			 "the rule on %s matched none of %d test datagrams: the fault is not on "
			 "their path",
			 sw->name, sent);
		return -EIO;
	}
	snprintf(j->evidence, sizeof(j->evidence),
		 "nft counters on %s: %llu of %d test datagrams dropped", sw->name, pkts, sent);
	return 0;
}

static int verify_acl(struct injection *j)
{
	struct flow f[64];
	size_t n = 0;
	const struct inventory *inv = j->inv;
	struct fault_spec *s = j->spec;

	if (!s->acl_tenants) {
		f[0].src = s->from;
		f[0].dst = inv->hosts[s->to.dev].rnics[s->to.port].addr.addr;
		n = 1;
	} else {
		const struct inv_tenant *a = &inv->tenants[s->from_tenant],
					*b = &inv->tenants[s->to_tenant];

		for (size_t i = 0; i < a->n_members && n < 64; i++)
			for (size_t k = 0; k < b->n_members && n < 64; k++) {
				f[n].src = a->members[i];
				f[n++].dst = inv->hosts[b->members[k].dev]
						 .rnics[b->members[k].port]
						 .addr.addr;
			}
	}
	return verify_nft(j, f, n);
}

static int verify_ipid(struct injection *j)
{
	struct flow f[64];
	size_t n = traffic_flows_across(j->inv, j->spec->tdev, j->spec->tport, false, f, 64);

	return verify_nft(j, f, n);
}

static int verify_pfc(struct injection *j)
{
	struct fault_spec *s = j->spec;
	const char *port = fault_target_port(j->inv, s);
	const struct inv_switch *sw =
	    s->tkind == INV_DEV_SWITCH ? &j->inv->switches[s->tdev] : NULL;
	struct flow f[64];
	unsigned long long drops;
	long long sent;
	json_t *v;
	size_t n;

	if (!sw || !counters_readable(j, sw)) {
		snprintf(j->evidence, sizeof(j->evidence),
			 "dialect commands succeeded (no counters read)");
		return 0;
	}
	if (!port) {
		snprintf(j->evidence, sizeof(j->evidence),
			 "emulated shallow queues installed on every port of %s", sw->name);
		return 0;
	}
	n = traffic_flows_across(j->inv, s->tdev, s->tport, true, f, 8);
	/* Incast in the misconfigured priority (DSCP class selector = priority). */
	sent = traffic_blast(&j->lab, f, n, ROCEV2_UDP_PORT, s->priority << 5, 1000, 8, 1000, 0);
	v = read_json(j, sw->name,
		      (const char *const[]){"tc", "-j", "-s", "qdisc", "show", "dev", port,
					    "parent", "1:10", NULL});
	if (!v)
		return -EIO;
	drops = json_sum(v, "drops");
	json_decref(v);
	if (drops == 0) {
		snprintf(
		    j->err, sizeof(j->err),
		    "incast of %lld datagrams from %zu RNICs caused no drop in priority %d on %s",
		    sent, n, s->priority, s->target);
		return -EIO;
	}
	snprintf(j->evidence, sizeof(j->evidence),
		 "incast from %zu RNICs (%lld datagrams): priority %d of %s tail-dropped %llu "
		 "(emulated)",
		 n, sent, s->priority, s->target, drops);
	return 0;
}

/* Is a TBF the root qdisc of this link end? Ends that cannot be read back count as present. */
static int tbf_present(struct injection *j, const struct inv_endpoint *ep, bool *present)
{
	const char *dev, *netdev;
	json_t *v;
	size_t i;
	json_t *q;

	*present = false;
	if (!end_readable(j->inv, ep)) {
		*present = true;
		return 0;
	}
	end_names(j->inv, ep, &dev, &netdev);
	v = read_json(
	    j, dev,
	    (const char *const[]){"tc", "-j", "qdisc", "show", "dev", netdev, "root", NULL});
	if (!v)
		return -EIO;
	json_array_foreach(v, i, q) *present |=
	    !strcmp(json_string_value(json_object_get(q, "kind")) ?: "", "tbf");
	json_decref(v);
	return 0;
}

static int verify_qdisc(struct injection *j)
{
	struct fault_spec *s = j->spec;
	struct inv_endpoint ends[2] = {{s->tkind, s->tdev, (size_t)s->tport}};
	size_t found = 0;

	if (inventory_peer(j->inv, &ends[0], &ends[1])) {
		snprintf(j->err, sizeof(j->err), "%s is not cabled", s->target);
		return -EINVAL;
	}
	for (size_t k = 0; k < 2; k++) {
		bool present;

		if (tbf_present(j, &ends[k], &present))
			return -EIO;
		found += present;
	}
	if (found != 2) {
		snprintf(j->err, sizeof(j->err), "TBF present on %zu of 2 link ends", found);
		return -EIO;
	}
	snprintf(j->evidence, sizeof(j->evidence), "TBF %llu kbit/s present on both ends of %s",
		 s->rate_kbit, s->target);
	return 0;
}

static int verify_route(struct injection *j)
{
	struct fault_spec *s = j->spec;
	const char *host = j->inv->hosts[s->tdev].name;
	char tbl[16];
	json_t *rules, *routes;
	size_t left;

	snprintf(tbl, sizeof(tbl), "%u", topo_host_table(s->tport));
	rules = read_json(j, host,
			  (const char *const[]){"ip", "-j", "rule", "show", "table", tbl, NULL});
	routes =
	    rules
		? read_json(j, host,
			    (const char *const[]){"ip", "-j", "route", "show", "table", tbl, NULL})
		: NULL;
	if (!routes) {
		json_decref(rules);
		return -EIO;
	}
	left = json_array_size(rules) + json_array_size(routes);
	json_decref(rules);
	json_decref(routes);
	if (left) {
		snprintf(j->err, sizeof(j->err),
			 "policy rule or route of table %s is still there (%zu left)", tbl, left);
		return -EIO;
	}
	snprintf(j->evidence, sizeof(j->evidence), "rule pref %s and table %s routes absent on %s",
		 tbl, tbl, host);
	return 0;
}

static int verify(struct injection *j)
{
	switch (j->spec->kind) {
	case FK_LINK_FLAP:
		return verify_link_flap(j);
	case FK_ACL_ERROR:
		return verify_acl(j);
	case FK_IPID_DROP:
		return verify_ipid(j);
	case FK_PFC_MISCONFIG:
		return verify_pfc(j);
	case FK_LINK_DEGRADE:
		return verify_qdisc(j);
	case FK_RNIC_ROUTE_MISSING:
		return verify_route(j);
	default:
		return -EINVAL;
	}
}

/* ---- apply / revert ---------------------------------------------------------- */

/* Undo actions [0, n) in reverse order; every undo is idempotent. Returns 0 if all worked. */
static int undo_actions(struct lab *l, const struct fault_action *acts, size_t n)
{
	char err[512];
	int ret = 0;

	for (size_t i = n; i-- > 0;) {
		int r = fault_exec_action(l, &acts[i], true, err, sizeof(err));

		if (r) {
			rl_err("revert: %s", err);
			ret = r;
		}
	}
	return ret;
}

static int apply_actions(struct injection *j)
{
	for (size_t i = 0; i < j->plan.n_acts; i++) {
		int r = fault_exec_action(&j->lab, &j->plan.acts[i], false, j->err, sizeof(j->err));

		/*
		 * The fault is live from its first action on: a degraded link end
		 * slows probes while the other end's login is still under way.
		 */
		if (!r && !j->applied_at)
			j->applied_at = (double)rl_realtime_ns() / 1e9;

		if (r) {
			/* A netlink op is atomic; an ssh command chain may have stopped half-way.
			 */
			undo_actions(&j->lab, j->plan.acts,
				     i + (j->plan.acts[i].backend == FB_SSH ? 1 : 0));
			return r;
		}
	}
	return 0;
}

static int finish_revert(struct injection *j)
{
	int r;

	state_lock();
	r = undo_actions(&j->lab, j->plan.acts, j->plan.n_acts);
	if (!r)
		journal_mark(j->id, JS_REVERTED);
	state_unlock();
	if (r)
		rl_err("fault %u could not be fully reverted: run 'rocelab revert'", j->id);
	else
		rl_info("fault %u reverted", j->id);
	return r;
}

/* Flap until the count, --for or a signal ends it; the first down phase is already applied. */
static int run_flap(struct injection *j)
{
	struct fault_spec *s = j->spec;
	unsigned long long end =
	    s->for_ms ? rl_now_ns() + (unsigned long long)s->for_ms * 1000000ULL : ULLONG_MAX;
	int cycles = s->count ? s->count : (s->for_ms || s->hold) ? INT_MAX : 1;
	char err[512];

	for (int c = 1; !rl_interrupted; c++) {
		sleep_ms(s->down_ms);
		for (size_t i = j->plan.n_acts; i-- > 0;)
			fault_exec_action(&j->lab, &j->plan.acts[i], true, err, sizeof(err));
		if (c >= cycles || rl_interrupted || rl_now_ns() >= end)
			break;
		rl_info("flap %u: cycle %d up", j->id, c);
		sleep_ms(s->period_ms - s->down_ms);
		if (rl_interrupted || rl_now_ns() >= end)
			break;
		for (size_t i = 0; i < j->plan.n_acts; i++)
			if (fault_exec_action(&j->lab, &j->plan.acts[i], false, err, sizeof(err)))
				rl_warn("flap %u: %s", j->id, err);
	}
	return finish_revert(j);
}

static void print_result(struct injection *j, bool json, const char *outcome)
{
	if (json) {
		json_t *o = json_object();

		json_object_set_new(o, "id", json_integer(j->id));
		json_object_set_new(o, "kind", json_string(fault_kind_name(j->spec->kind)));
		json_object_set_new(o, "target", json_string(j->spec->target));
		json_object_set_new(o, "outcome", json_string(outcome));
		if (j->applied_at > 0)
			json_object_set_new(o, "applied_at", json_real(j->applied_at));
		json_object_set_new(o, "evidence", json_string(j->evidence));
		json_object_set_new(o, "emulated", json_boolean(j->plan.emulated));
		if (j->plan.note[0])
			json_object_set_new(o, "note", json_string(j->plan.note));
		json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(o);
	} else {
		printf("fault %u %s %s: %s (%s)\n", j->id, fault_kind_name(j->spec->kind),
		       j->spec->target, outcome, j->evidence);
		if (j->plan.note[0])
			printf("  %s\n", j->plan.note);
	}
	fflush(stdout);
}

/* Capabilities that can be read without changing anything are checked before the journal. */
static int precheck(struct injection *j)
{
	const struct fault_spec *s = j->spec;
	const struct inv_host *h = s->tkind == INV_DEV_HOST ? &j->inv->hosts[s->tdev] : NULL;
	const char *netdev = h ? h->rnics[s->tport].netdev : NULL;
	unsigned en;
	int r;

	if (h && !lab_can(&j->lab, LAB_CAP_NETLINK)) {
		snprintf(j->err, sizeof(j->err),
			 "%s: host faults on the %s lab are not supported yet (hosts are reached "
			 "over netlink on the virtual lab only)",
			 h->name, j->lab.ops->name);
		return -EOPNOTSUPP;
	}
	if (s->kind != FK_PFC_MISCONFIG || !h)
		return 0;
	r = dcb_pfc_get(&j->lab, h->name, netdev, &en);
	if (r == -EOPNOTSUPP) {
		snprintf(j->err, sizeof(j->err),
			 "%s:%s has no DCB support (DCBNL: EOPNOTSUPP), so its PFC cannot be "
			 "changed; on a virtual lab target a switch port, where PFC is emulated",
			 h->name, netdev);
		return r;
	}
	if (r) {
		snprintf(j->err, sizeof(j->err), "DCBNL on %s:%s: %s", h->name, netdev,
			 strerror(-r));
		return r;
	}
	return 0;
}

int cmd_inject(int argc, char **argv)
{
	struct inject_args a = {0};
	struct injection j = {.spec = &a.spec};
	char why[256];
	int r = parse_inject(argc, argv, &a), ret = RL_EXIT_SETUP;

	if (r)
		return r < 0 ? RL_EXIT_OK : r;
	j.inv = lab_target_inventory(a.inv_path);
	if (!j.inv) /* a file given with -i that cannot be used is bad input */
		return a.inv_path || errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	if ((r = resolve(&a, j.inv))) {
		inventory_free(j.inv);
		return r;
	}
	rl_signals_install();
	/* A dry run changes nothing, so it needs no lock (and creates no state directory). */
	if (!a.dry_run && state_lock()) {
		rl_err("inject: cannot take the lab lock: %s", strerror(errno));
		goto free_inv;
	}
	j.id = journal_next_id();
	j.topo =
	    topo_build(j.inv, false, NULL); /* NULL for labs it cannot plan: no route restore */
	r = fault_plan_build(j.inv, j.topo, &a.spec, j.id, &j.plan, why, sizeof(why));
	if (r) {
		rl_err("inject: %s", why);
		ret = r == -EOPNOTSUPP ? RL_EXIT_SETUP : RL_EXIT_USAGE;
		goto unlock;
	}
	if (a.dry_run) {
		fault_plan_format(&j.plan, stdout);
		ret = RL_EXIT_OK;
		goto close_exec;
	}
	lab_open(&j.lab, j.inv);
	if ((r = precheck(&j))) {
		rl_err("inject: %s", j.err);
		goto close_exec;
	}
	if ((r = journal_append(&j.plan, j.id))) {
		rl_err("inject: cannot write the journal: %s", strerror(-r));
		goto close_exec;
	}
	if (j.plan.emulated)
		rl_info("fault %u: %s", j.id, j.plan.note);
	if ((r = apply_actions(&j))) {
		rl_err("fault %u could not be applied: %s", j.id, j.err);
		journal_mark(j.id, JS_REVERTED);
		goto close_exec;
	}
	if ((r = verify(&j))) {
		rl_err("fault %u is not effective: %s; reverting", j.id, j.err);
		undo_actions(&j.lab, j.plan.acts, j.plan.n_acts);
		journal_mark(j.id, JS_REVERTED);
		print_result(&j, a.json, "not-effective");
		goto close_exec;
	}
	journal_mark(j.id, JS_APPLIED);
	state_unlock();
	print_result(&j, a.json, "applied");
	ret = RL_EXIT_OK;
	if (a.spec.kind == FK_LINK_FLAP) {
		if (run_flap(&j))
			ret = RL_EXIT_SETUP;
	} else if (a.spec.hold || a.spec.for_ms) {
		if (a.spec.hold)
			rl_info("fault %u held; SIGINT or SIGTERM reverts it", j.id);
		if (a.spec.hold)
			while (!rl_interrupted)
				pause();
		else
			sleep_ms(a.spec.for_ms);
		if (finish_revert(&j))
			ret = RL_EXIT_SETUP;
	} else {
		rl_info("fault %u stays until 'rocelab revert'", j.id);
	}
	lab_close(&j.lab);
	fault_plan_clear(&j.plan);
	topo_free(j.topo);
	inventory_free(j.inv);
	return ret;
close_exec:
	lab_close(&j.lab);
	fault_plan_clear(&j.plan);
unlock:
	state_unlock();
	topo_free(j.topo);
free_inv:
	inventory_free(j.inv);
	return ret;
}

/* ---- revert / faults ---------------------------------------------------------- */

/* Is pid a live rocelab process other than us? */
static bool live_holder(pid_t pid)
{
	char path[64], buf[256] = "";
	FILE *f;

	if (pid <= 0 || pid == getpid() || !proc_alive(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);

	fclose(f);
	buf[n] = '\0';
	return strstr(buf, "rocelab") != NULL;
}

int cmd_revert(int argc, char **argv)
{
	struct journal_rec *recs;
	size_t n, undone = 0, failed = 0;
	bool json = false;
	const char *inv_path = NULL;
	struct inventory *inv;
	struct lab lab;
	int c;

	static const struct option lo[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:jh", lo, NULL)) != -1) {
		if (c == 'i')
			inv_path = optarg;
		else if (c == 'j')
			json = true;
		else if (c == 'h')
			return fputs("usage: rocelab revert [-i INVENTORY] [-j]\n"
				     "Undo every outstanding fault of the journal, newest first. "
				     "Idempotent.\n",
				     stdout),
			       0;
		else
			return bad("revert: unknown option '%s'", argv[optind - 1]);
	}
	if (journal_load(&recs, &n) < 0) {
		rl_err("revert: cannot read the journal: %s", strerror(errno));
		return RL_EXIT_SETUP;
	}
	/* Faults still held by a live 'inject' are ended by it, so it cannot re-apply them. */
	for (size_t i = 0; i < n; i++) {
		if (recs[i].state != JS_REVERTED && live_holder(recs[i].pid)) {
			rl_info("revert: stopping rocelab process %d that holds fault %u",
				recs[i].pid, recs[i].id);
			kill(recs[i].pid, SIGTERM);
			for (int k = 0; k < 500 && proc_alive(recs[i].pid); k++)
				usleep(20000);
		}
	}
	journal_free(recs, n);
	if (journal_load(&recs, &n) < 0)
		return RL_EXIT_SETUP;
	inv = lab_target_inventory(inv_path);
	if (!inv) {
		for (size_t i = 0; i < n; i++)
			if (recs[i].state != JS_REVERTED)
				failed++;
		journal_free(recs, n);
		if (!failed) {
			printf(json ? "{\"reverted\": 0, \"failed\": 0}\n" : "nothing to revert\n");
			return RL_EXIT_OK;
		}
		return RL_EXIT_SETUP;
	}
	state_lock();
	lab_open(&lab, inv);
	for (size_t i = n; i-- > 0;) {
		if (recs[i].state == JS_REVERTED)
			continue;
		if (undo_actions(&lab, recs[i].acts, recs[i].n_acts) == 0) {
			journal_mark(recs[i].id, JS_REVERTED);
			rl_info("revert: fault %u %s %s reverted", recs[i].id, recs[i].kind,
				recs[i].target);
			undone++;
		} else {
			failed++;
		}
	}
	lab_close(&lab);
	state_unlock();
	if (json)
		printf("{\"reverted\": %zu, \"failed\": %zu}\n", undone, failed);
	else
		printf("%zu fault(s) reverted, %zu failed\n", undone, failed);
	journal_free(recs, n);
	inventory_free(inv);
	return failed ? RL_EXIT_SETUP : RL_EXIT_OK;
}

int cmd_faults(int argc, char **argv)
{
	struct journal_rec *recs;
	size_t n;
	bool json = false, all = false;
	int c;
	json_t *arr;

	static const struct option lo[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"all", no_argument, NULL, 'a'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jah", lo, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'a')
			all = true;
		else if (c == 'h')
			return fputs("usage: rocelab faults [-a] [-j]\nList outstanding faults of "
				     "the "
				     "journal (-a: every fault, reverted ones too).\n",
				     stdout),
			       0;
		else
			return bad("faults: unknown option '%s'", argv[optind - 1]);
	}
	if (journal_load(&recs, &n) < 0) {
		rl_err("faults: cannot read the journal: %s", strerror(errno));
		return RL_EXIT_SETUP;
	}
	arr = json_array();
	for (size_t i = 0; i < n; i++) {
		if (!all && recs[i].state == JS_REVERTED)
			continue;
		json_t *o = json_object();

		json_object_set_new(o, "id", json_integer(recs[i].id));
		json_object_set_new(o, "kind", json_string(recs[i].kind));
		json_object_set_new(o, "target", json_string(recs[i].target));
		json_object_set_new(o, "state", json_string(journal_state_name(recs[i].state)));
		json_object_set_new(o, "time", json_string(recs[i].time));
		json_object_set_new(o, "pid", json_integer(recs[i].pid));
		json_object_set_new(
		    o, "held",
		    json_boolean(recs[i].state != JS_REVERTED && live_holder(recs[i].pid)));
		json_array_append_new(arr, o);
	}
	if (json) {
		json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else {
		size_t i;
		json_t *o;

		if (!json_array_size(arr))
			printf("no outstanding faults\n");
		json_array_foreach(arr, i, o) printf(
		    "%3lld  %-19s %-14s %-9s %s%s\n", json_integer_value(json_object_get(o, "id")),
		    json_string_value(json_object_get(o, "kind")),
		    json_string_value(json_object_get(o, "target")),
		    json_string_value(json_object_get(o, "state")),
		    json_string_value(json_object_get(o, "time")),
		    json_is_true(json_object_get(o, "held")) ? "  (held)" : "");
	}
	json_decref(arr);
	journal_free(recs, n);
	return RL_EXIT_OK;
}

/* ---- load ------------------------------------------------------------------------ */

int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"to", required_argument, NULL, 't'},   {"from", required_argument, NULL, 'f'},
	    {"for", required_argument, NULL, 'd'},  {"priority", required_argument, NULL, 'p'},
	    {"size", required_argument, NULL, 's'}, {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},	    {0},
	};
	const char *to = NULL, *from = NULL;
	long long dur = 5000;
	long prio = 3, size = 1000;
	bool json = false;
	struct inventory *inv;
	struct lab lab;
	struct inv_endpoint dst;
	struct flow flows[64];
	size_t n = 0;
	char msg[160], buf[1024], *save = NULL;
	int c, r;

	optind = 1;
	opterr = 0;
	if (argc < 2 || strcmp(argv[1], "incast") != 0) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
			goto help;
		return bad("load: the only load is 'incast' (see rocelab load --help)");
	}
	argv++, argc--;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		r = 0;
		switch (c) {
		case 't':
			to = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 'd':
			r = duration("--for", optarg, 10, 3600000LL, &dur);
			break;
		case 'p':
			r = number("--priority", optarg, 0, 7, &prio);
			break;
		case 's':
			r = number("--size", optarg, 64, 1472, &size);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			goto help;
		default:
			return bad("load: unknown option '%s'", argv[optind - 1]);
		}
		if (r)
			return r;
	}
	if (!to || !from)
		return bad("load incast needs --to HOST:RNIC and --from HOST:RNIC[,HOST:RNIC...]");
	if (!(inv = lab_target_inventory(NULL)))
		return RL_EXIT_SETUP;
	if (inventory_endpoint(inv, to, &dst, msg, sizeof(msg)) || dst.kind != INV_DEV_HOST) {
		inventory_free(inv);
		return bad("--to: %s", dst.kind != INV_DEV_HOST ? "must be an RNIC" : msg);
	}
	snprintf(buf, sizeof(buf), "%s", from);
	for (char *t = strtok_r(buf, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save)) {
		if (inventory_endpoint(inv, t, &flows[n].src, msg, sizeof(msg)) ||
		    flows[n].src.kind != INV_DEV_HOST) {
			inventory_free(inv);
			return bad("--from %s: %s", t, msg);
		}
		flows[n++].dst = inv->hosts[dst.dev].rnics[dst.port].addr.addr;
	}
	rl_signals_install();
	rl_info("load: incast %zu -> 1 (%s) for %lld ms, priority %ld", n, to, dur, prio);
	lab_open(&lab, inv);
	long long sent =
	    traffic_blast(&lab, flows, n, ROCEV2_UDP_PORT, (int)prio << 5, (int)size, 8, dur, 0);

	lab_close(&lab);

	if (json)
		printf("{\"senders\": %zu, \"to\": \"%s\", \"datagrams\": %lld, \"duration_ms\": "
		       "%lld}\n",
		       n, to, sent, dur);
	else
		printf("incast: %zu senders -> %s: %lld datagrams in %lld ms\n", n, to, sent, dur);
	inventory_free(inv);
	return sent < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
help:
	fputs(
	    "usage: rocelab load incast --to HOST:RNIC --from HOST:RNIC[,...] [--for 5s]\n"
	    "                         [--priority 3] [--size 1000] [-j]\n"
	    "Blast UDP 4791 from every --from RNIC to one RNIC at once (virtual lab), marked with\n"
	    "the priority's DSCP class, so congestion and PFC faults show.\n",
	    stdout);
	return RL_EXIT_OK;
}
