// SPDX-License-Identifier: MIT
/*
 * Ground truth per virtual path (mpr_vpmap.h): traces to links through
 * probe/pathmap.c, and when the sends left or came back to a set of VPs.
 */
#define _GNU_SOURCE
#include "transport/mpr_vpmap.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "probe/trace.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-6

int mpr_routes_read(const char *log, const struct inventory *inv, const struct topo *t,
		    const char *src, const char *dst, double from, double to, unsigned vp_lo,
		    struct mpr_route *routes, size_t n)
{
	struct inv_endpoint a, b;
	char msg[160], *line = NULL;
	size_t cap = 0;
	int got = 0;
	FILE *f;

	if (inventory_endpoint(inv, src, &a, msg, sizeof(msg)) || a.kind != INV_DEV_HOST ||
	    inventory_endpoint(inv, dst, &b, msg, sizeof(msg)) || b.kind != INV_DEV_HOST ||
	    !(f = fopen(log, "re")))
		return -1;
	while (getline(&line, &cap, f) > 0) {
		json_t *j = line[0] == '{' ? json_loads(line, 0, NULL) : NULL;
		const char *type = j ? json_string_value(json_object_get(j, "type")) : NULL;
		double when = json_number_value(json_object_get(j, "t"));
		json_int_t vp = json_integer_value(json_object_get(j, "vp"));
		json_t *hops = json_object_get(j, "hops");
		struct in_addr addr[TRACE_MAX_HOPS] = {0};
		size_t k, nh = json_array_size(hops);
		struct mpr_route *r;
		rec_link_t links[MPR_ROUTE_MAX];
		bool reached;
		int nl = 0;

		if (!type || strcmp(type, "trace") || vp < vp_lo || (size_t)(vp - vp_lo) >= n ||
		    when < from || when >= to || nh > TRACE_MAX_HOPS) {
			json_decref(j);
			continue;
		}
		for (k = 0; k < nh; k++) {
			const char *s = json_string_value(json_array_get(hops, k));

			if (s && inet_pton(AF_INET, s, &addr[k]) != 1)
				addr[k].s_addr = 0;
		}
		r = &routes[vp - vp_lo];
		got += r->t == 0;
		reached = json_is_true(json_object_get(j, "reached"));
		/* the switches' hops: the peer's own answer ends a trace that reached it */
		if (reached && nh)
			nh--;
		for (; !reached && nh && !addr[nh - 1].s_addr; nh--)
			;
		/*
		 * A peer that holds UDP 4791 (an MP-RDMA endpoint, a Hostmesh agent)
		 * never answers: a trace whose last answer came from the switch
		 * cabled to it is whole all the same.
		 */
		r->complete =
		    pathmap_links(inv, t, &a, &b, addr, (int)nh, true, links, MPR_ROUTE_MAX, &nl);
		if (!r->complete && !reached)
			pathmap_links(inv, t, &a, &b, addr, (int)nh, false, links, MPR_ROUTE_MAX,
				      &nl);
		r->n = (uint8_t)(nl < 0 ? 0 : nl);
		memcpy(r->links, links, r->n * sizeof(links[0]));
		r->t = when;
		json_decref(j);
	}
	free(line);
	fclose(f);
	return got;
}

bool mpr_route_has(const struct mpr_route *r, size_t link)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->links[i] == link)
			return true;
	return false;
}

/* Sum over the intervals that lie within [from, to]; false when there are none. */
static bool window(const struct mpr_share *s, size_t n, double iv, double from, double to,
		   double *in, double *all)
{
	bool any = false;

	*in = *all = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].t - iv >= from - EPS && s[i].t <= to + EPS) {
			*in += s[i].in;
			*all += s[i].all;
			any = true;
		}
	return any;
}

double mpr_share_settles(const struct mpr_share *s, size_t n, double interval_s, double from,
			 double to, double w, double bound, bool below)
{
	for (size_t i = 0; i < n; i++) {
		double start = s[i].t - interval_s, in, all, share;

		if (start < from - EPS)
			continue;
		if (start + w > to + EPS)
			break;
		if (!window(s, n, interval_s, start, start + w, &in, &all))
			continue;
		share = all > 0 ? in / all : 0;
		if (below ? share < bound : all > 0 && share >= bound)
			return start - from < 0 ? 0 : start - from;
	}
	return -1;
}

double mpr_share_mean(const struct mpr_share *s, size_t n, double interval_s, double from,
		      double to)
{
	double in, all;

	return window(s, n, interval_s, from, to, &in, &all) && all > 0 ? in / all : -1;
}

double mpr_binom_tail(unsigned k, unsigned n, double p)
{
	double sum = 0;

	if (k == 0)
		return 1;
	if (k > n || p <= 0)
		return 0;
	if (p >= 1)
		return 1;
	double ln_n = lgamma(n + 1.0), ln_p = log(p), ln_q = log1p(-p);

	/* the terms fall away fast past the mean: stop once they no longer count */
	for (unsigned i = k; i <= n; i++) {
		double t =
		    exp(ln_n - lgamma(i + 1.0) - lgamma(n - i + 1.0) + i * ln_p + (n - i) * ln_q);

		sum += t;
		if (i > n * p && t < sum * 1e-12)
			break;
	}
	return sum < 1 ? sum : 1;
}

struct rate {
	double r, n;
};

static int by_rate(const void *x, const void *y)
{
	const struct rate *a = x, *b = y;

	return (a->r > b->r) - (a->r < b->r);
}

/*
 * The rate (events / of) below which VPs carrying a quarter of all 'of' lie,
 * never below MPR_JUDGE_FLOOR.  events and of are offsets into the evidence.
 */
static double ref_rate(const struct mpr_vp_evidence *e, size_t n, size_t events, size_t of)
{
	struct rate *r = rl_xcalloc(n + 1, sizeof(*r));
	double total = 0, run = 0, ref = MPR_JUDGE_FLOOR;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		double ev = *(const double *)((const char *)&e[i] + events);
		double o = *(const double *)((const char *)&e[i] + of);

		o = o > ev ? o : ev; /* a resent probe: its copy is no send */
		if (o > 0)
			r[k++] = (struct rate){ev / o, o}, total += o;
	}
	qsort(r, k, sizeof(*r), by_rate);
	for (size_t i = 0; i < k; i++) {
		run += r[i].n;
		if (run >= total / 4) {
			ref = r[i].r > ref ? r[i].r : ref;
			break;
		}
	}
	free(r);
	return ref;
}

static bool excess(double ev, double of, double ref)
{
	of = of > ev ? of : ev;
	return ev >= MPR_JUDGE_K && ev >= MPR_JUDGE_RATIO * ref * of &&
	       mpr_binom_tail((unsigned)ev, (unsigned)of, ref) < MPR_JUDGE_P;
}

unsigned mpr_vp_judge(const struct mpr_vp_evidence *e, size_t n, int8_t *verdict)
{
	double rr = ref_rate(e, n, offsetof(struct mpr_vp_evidence, resent),
			     offsetof(struct mpr_vp_evidence, sent));
	double rp = ref_rate(e, n, offsetof(struct mpr_vp_evidence, prunes),
			     offsetof(struct mpr_vp_evidence, acks));
	unsigned bad = 0;

	for (size_t i = 0; i < n; i++) {
		const struct mpr_vp_evidence *v = &e[i];

		/* slow first: a queue that delays, then overflows (or times out), is congestion */
		if (excess(v->prunes, v->acks, rp))
			verdict[i] = 2, bad++;
		else if (v->lost)
			verdict[i] = 1, bad++;
		else if (excess(v->resent, v->sent, rr))
			verdict[i] = 1, bad++;
		else
			verdict[i] = v->sent >= MPR_JUDGE_MIN || v->acks >= MPR_JUDGE_MIN ? 0 : -1;
	}
	return bad;
}

/* a's share of bad votes beats b's (cross-multiplied: exact), then its count */
static bool ahead(const struct mpr_vote *a, const struct mpr_vote *b)
{
	double sa = (double)a->bad * (b->bad + b->good + 1);
	double sb = (double)b->bad * (a->bad + a->good + 1);

	return sa > sb || (sa == sb && a->bad > b->bad);
}

static int by_suspicion(const void *x, const void *y)
{
	const struct mpr_vote *a = x, *b = y;

	return ahead(a, b) ? -1 : ahead(b, a) ? 1 : (a->link > b->link) - (a->link < b->link);
}

/* Count route r's links (each once for this VP, seen[] marks them) into v. */
static void tally(const struct mpr_route *r, bool bad, struct mpr_vote *v, size_t *nv, size_t cap,
		  size_t *seen, size_t *n_seen)
{
	for (unsigned k = 0; k < r->n; k++) {
		size_t l = r->links[k], i;
		bool dup = false;

		for (i = 0; i < *n_seen; i++)
			dup |= seen[i] == l;
		if (dup)
			continue;
		seen[(*n_seen)++] = l;
		for (i = 0; i < *nv && v[i].link != l; i++)
			;
		if (i == *nv) {
			if (*nv == cap)
				continue;
			v[(*nv)++] = (struct mpr_vote){.link = l};
		}
		v[i].bad += bad;
		v[i].good += !bad;
	}
}

size_t mpr_vote(const struct mpr_route *data, const struct mpr_route *ack, const int8_t *verdict,
		size_t n, struct mpr_vote *out, size_t max)
{
	size_t cap = 4 * MPR_ROUTE_MAX * (n ? n : 1), nv = 0;
	struct mpr_vote *v = rl_xcalloc(cap, sizeof(*v));
	size_t seen[2 * MPR_ROUTE_MAX];

	for (size_t i = 0; i < n; i++) {
		size_t n_seen = 0;

		if (verdict[i] < 0)
			continue;
		tally(&data[i], verdict[i] > 0, v, &nv, cap, seen, &n_seen);
		tally(&ack[i], verdict[i] > 0, v, &nv, cap, seen, &n_seen);
	}
	qsort(v, nv, sizeof(*v), by_suspicion);
	while (nv && !v[nv - 1].bad)
		nv--; /* no bad VP crossed them: no suspects */
	if (nv > max)
		nv = max;
	memcpy(out, v, nv * sizeof(*v));
	free(v);
	return nv;
}

unsigned mpr_vote_rank(const struct mpr_vote *votes, size_t n, size_t link)
{
	const struct mpr_vote *me = NULL;
	unsigned rank = 1;

	for (size_t i = 0; i < n; i++)
		if (votes[i].link == link)
			me = &votes[i];
	if (!me || !me->bad)
		return 0;
	for (size_t i = 0; i < n; i++)
		rank += ahead(&votes[i], me);
	return rank;
}
