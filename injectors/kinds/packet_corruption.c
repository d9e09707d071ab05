// SPDX-License-Identifier: MIT
/*
 * packet-corruption: a damaged fibre or a dusty optic on one link (Hostmesh
 * problem #2, R-Pingmesh's second failure type).  The receiver's CRC check
 * drops the damaged frames, so a random share of the link's packets is lost,
 * unlike ipid-drop, which picks packets deterministically.  Emulated on a
 * Linux switch by that loss (nft numgen random); the port's CRC counter does
 * not rise.  An RNIC's link is corrupted at its switch end: the frames the
 * RNIC would drop are dropped as they leave that port.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A share in parts per million: the rate. */
#define FAULT_PPM 1000000u

struct packet_corruption_opts {
	unsigned corrupt_ppm; /* the share of RoCE packets lost, in parts per million (FAULT_PPM) */
	enum direction dir;
};
FAULT_KIND_OPTS(pc, struct packet_corruption_opts)

#define FS(f) offsetof(struct packet_corruption_opts, f)

/* "5%", "0.1%" or a fraction ("0.001"), kept in parts per million: 1 ppm to 100%. */
static int parse_share(const struct opt_desc *d, const char *v, void *field, char *err,
		       size_t errlen)
{
	char *end;
	double x, ppm;

	errno = 0;
	x = rl_strtod(v, &end);
	if (end != v && *end == '%' && !end[1])
		x /= 100;
	else if (end == v || *end)
		x = NAN;
	ppm = x * FAULT_PPM;
	if (errno || !isfinite(x) || x <= 0 || x > 1 || llround(ppm) < 1) {
		snprintf(err, errlen,
			 "%s '%s': give a share from 0.0001%% (1 in a million) to 100%%, as 1%% "
			 "or 0.01",
			 d->name, v);
		return -EINVAL;
	}
	*(unsigned *)field = (unsigned)llround(ppm);
	return 0;
}

static const char *print_share(const void *field, char *buf, size_t len)
{
	unsigned ppm = *(const unsigned *)field;

	if (!ppm)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%.6g%%", ppm / 1e4);
	return buf;
}

static const struct opt_desc opts[] = {
    {"rate", OPT_CUSTOM, 0, 0, FS(corrupt_ppm), "share of RoCE packets lost: 1%, 0.1%, 0.001",
     parse_share, print_share},
    {"direction", OPT_CUSTOM, 0, 0, FS(dir), "in, out or both (as the port or RNIC sees it)",
     fault_opt_dir_parse, fault_opt_dir_print},
    OPT_TABLE_END,
};

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	if (!pc_of(s)->corrupt_ppm) {
		snprintf(why, whylen, "packet-corruption needs --rate (the share lost, e.g. 1%%)");
		return -EINVAL;
	}
	return 0;
}

/*
 * Emulated corruption: a receiver's CRC check drops a damaged frame, so a
 * random share of the port's RoCE packets is dropped (nft's numgen random;
 * the port's CRC error counter does not rise).  The first counter sees every
 * RoCE packet through the port, the second the ones dropped.  A port target
 * only (the kind's target forms).
 */
static int linux_packet_corruption(struct render_ctx *r)
{
	struct sbuf m = {0};
	int rc;

	sb_printf(&m, "udp dport %d counter numgen random mod %u < %u counter", ROCEV2_UDP_PORT,
		  FAULT_PPM, pc_of(r->spec)->corrupt_ppm);
	rc = nos_nft_rules_table(r, pc_of(r->spec)->dir, m.p, "packet-corruption", false);
	sb_free(&m);
	return rc;
}

/*
 * An RNIC's link, at its switch end: what the RNIC would receive ("in") is
 * what leaves the switch port ("out"), and the other way round.
 */
static int plan_host(struct render_ctx *r)
{
	struct fault_spec at_switch = *r->spec;
	struct render_ctx pr = *r;
	struct inv_endpoint e;
	char name[96];
	int ret = fault_rnic_switch_end(r->inv, r->spec, &e, r->why, r->whylen);

	if (ret)
		return ret;
	pc_rw(&at_switch)->dir = pc_of(r->spec)->dir == DIR_IN	  ? DIR_OUT
				 : pc_of(r->spec)->dir == DIR_OUT ? DIR_IN
								  : DIR_BOTH;
	pr.spec = &at_switch;
	pr.sw = e.dev;
	pr.port = inventory_netdev(r->inv, &e);
	inventory_endpoint_name(r->inv, &e, name, sizeof(name));
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "%.72s's link corrupted at its switch end %.72s (emulated: loss, direction as "
		 "the RNIC sees it)",
		 r->spec->target, name);
	return fault_render(&pr);
}

/*
 * The fault's rules' two counters, summed over its rules: the RoCE packets
 * through the port (the first counter of a rule) and those dropped (the
 * second).
 */
static int read_counts(struct fault_run *f, const char *dev, unsigned long long *seen,
		       unsigned long long *dropped)
{
	json_t *v = fault_read_nft_table(f, dev), *items, *it;
	size_t i;

	if (!v)
		return -EIO;
	*seen = *dropped = 0;
	items = json_object_get(v, "nftables");
	json_array_foreach(items, i, it)
	{
		json_t *exprs = json_object_get(json_object_get(it, "rule"), "expr"), *e;
		unsigned k = 0;
		size_t j;

		json_array_foreach(exprs, j, e)
		{
			json_t *c = json_object_get(e, "counter");
			unsigned long long n;

			if (!c)
				continue;
			n = (unsigned long long)json_integer_value(json_object_get(c, "packets"));
			if (k++ == 0)
				*seen += n;
			else
				*dropped += n;
		}
	}
	json_decref(v);
	return 0;
}

/* Enough test packets through the port to expect about 20 losses, within these bounds. */
#define LOSSES_WANTED 20
#define SEEN_MIN      2000ULL
#define SEEN_MAX      40000ULL
#define ROUNDS	      3
#define PKTS_MAX      2000ULL /* a flow's datagrams on one source port, in one round */

/* On a lab reached over SSH: each sending host's 'rocelab load send', 1 s at 2000/s a flow. */
static const struct host_send host_traffic = {
    .ms = 1000, .pps = 2000, .priority = 0, .size = 64, .n_sports = 32};

/*
 * The share dropped, measured: test traffic across the port until about 20
 * losses are expected (2,000 to 40,000 packets seen, at most 3 rounds), then
 * the dropped count against the binomial's: within 4 standard deviations.
 */
static int verify(struct fault_run *f)
{
	double p = (double)pc_of(f->spec)->corrupt_ppm / FAULT_PPM, expect, tol;
	unsigned long long seen = 0, dropped = 0, want;
	struct inv_endpoint e = {INV_DEV_SWITCH, f->spec->tdev, (size_t)f->spec->tport};
	const struct inv_switch *sw;
	long long sent = 0;
	struct flow fl[64] = {0};
	char rate[24];
	size_t n;

	if (f->spec->tkind == INV_DEV_HOST &&
	    fault_rnic_switch_end(f->inv, f->spec, &e, f->err, sizeof(f->err)))
		return -EINVAL;
	sw = &f->inv->switches[e.dev];
	n = traffic_flows_across(f->inv, e.dev, (ssize_t)e.port, false, fl, 64);
	if (!fault_counters_readable(f, sw))
		return fault_verify_table_read(f);
	if (!n) {
		snprintf(f->evidence, sizeof(f->evidence),
			 "no counters read on %s: no test traffic of this lab crosses %s", sw->name,
			 f->spec->target);
		return fault_verify_table_read(f);
	}
	want = (unsigned long long)ceil(LOSSES_WANTED / p);
	want = want < SEEN_MIN ? SEEN_MIN : want > SEEN_MAX ? SEEN_MAX : want;
	for (int round = 0; round < ROUNDS && seen < want && !rl_interrupted; round++) {
		long long s;

		if (lab_can(f->lab, LAB_CAP_ENTER)) {
			/*
			 * Each flow sends pkts on each of 32 source ports.  Not every
			 * source port hashes onto the port's link: after a round, what
			 * crossed per datagram sent sizes the next.
			 */
			double cross = sent && seen ? (double)seen / (double)sent : 1;
			unsigned long long per = n * 32,
					   pkts = (unsigned long long)ceil((double)(want - seen) /
									   cross / (double)per);

			pkts = pkts < 1 ? 1 : pkts > PKTS_MAX ? PKTS_MAX : pkts;
			s = traffic_send(f->lab, fl, n, ROCEV2_UDP_PORT, 41000, 32, (int)pkts, 0,
					 64);
			if (s < 0) {
				snprintf(f->err, sizeof(f->err), "cannot send test traffic: %s",
					 strerror((int)-s));
				return (int)s;
			}
		} else if ((s = fault_send(f, fl, n, &host_traffic)) < 0) {
			return fault_unsent(f, fault_verify_table_read(f));
		}
		sent += s;
		if (read_counts(f, sw->name, &seen, &dropped))
			return -EIO;
		if (!seen) {
			snprintf(
			    f->err, sizeof(f->err),
			    "the rule on %s saw none of %lld test datagrams: the fault is not on "
			    "their path",
			    sw->name, sent);
			return -EIO;
		}
	}
	expect = (double)seen * p;
	tol = 4 * sqrt(expect * (1 - p)) + 1;
	print_share(&pc_of(f->spec)->corrupt_ppm, rate, sizeof(rate));
	if (fabs((double)dropped - expect) > tol) {
		snprintf(f->err, sizeof(f->err),
			 "nft counters on %s: %llu of %llu RoCE packets through %s dropped "
			 "(%.3g%%), not %s: %.0f +/- %.0f were expected",
			 sw->name, dropped, seen, f->spec->target,
			 100.0 * (double)dropped / (double)seen, rate, expect, tol);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence),
		 "nft counters on %s: %llu of %llu RoCE packets through %s dropped (%.3g%%; %s "
		 "set, %.0f +/- %.0f expected)%s; emulated corruption: loss, no CRC errors counted",
		 sw->name, dropped, seen, f->spec->target, 100.0 * (double)dropped / (double)seen,
		 rate, expect, tol, fault_sent_by(f));
	return 0;
}

const struct fault_kind_ops fk_packet_corruption = {
    .name = "packet-corruption",
    .usage = "--target SWITCH:PORT|HOST:RNIC --rate SHARE [--direction in|out|both]",
    .targets = FT_PORT | FT_RNIC,
    .example = "spine2:swp1",
    .opts = opts,
    .opts_size = sizeof(struct packet_corruption_opts),
    .check = check,
    .plan_host = plan_host,
    .render = {[INV_DIALECT_LINUX] = linux_packet_corruption},
    .cannot = "drop a random share of a port's packets",
    .discover = fault_found_free,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] = "nftables 'numgen random' (nft(8)): loss emulated",
	},
    .follows_host = "nftables 'numgen random' at the RNIC's switch end (nft(8)): loss emulated",
};
