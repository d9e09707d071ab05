// SPDX-License-Identifier: MIT
/* The Hostmesh analyzer: windows, RNIC anomalies, Algorithm 1 voting, SLA percentiles, verdicts. */
#define _GNU_SOURCE
#include "probe/hostmesh/analyzer.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"
#include "probe/pathmap.h"
#include "probe/ptrans.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS   1000000ULL
#define MAX_WINDOWS 8
#define NGRP	    8
#define NO_LINK	    0xffff
#define HBINS	    896 /* log-linear histogram: 32 sub-buckets per power of two */
#define SUSPECTS    5

void az_defaults(struct az_cfg *c)
{
	*c = (struct az_cfg){
	    .window_ms = 20000,
	    .rnic_threshold = 0.10,
	    .rnic_hold_ms = 60000,
	    .rnic_min_probes = 10,
	    .min_votes = 5,
	    .min_share = 0.5,
	    .slow_us = 1000,
	    .slow_span_ms = 300,
	    .proc_us = 5000,
	    .grace_ms = 1500,
	    .max_abnormal = 1000000,
	    .max_good = 16000000,
	};
}

struct path_ent {
	uint64_t key; /* 0: empty */
	uint64_t last_used;
	uint8_t n_links, complete;
	uint16_t links[HM_MAX_LINKS];
};

struct grp {
	uint16_t link;
	uint32_t probes, timeouts;
};

struct rnic_win {
	uint32_t probes, timeouts;
	uint8_t ng;
	struct grp g[NGRP];
};

struct abn {
	uint32_t src_g;
	uint16_t dst;	 /* local index on the same host */
	uint8_t slow;	 /* 0: timeout, 1: high latency */
	uint8_t n_links; /* 0: path unknown */
	uint32_t at_ms;	 /* sent this long after the window's start */
	uint16_t links[HM_MAX_LINKS];
};

struct window {
	bool used;
	uint64_t start, end;
	uint64_t probes, timeouts, ok, unlocalized, ts_kernel, ts_hw;
	struct rnic_win *rn;
	uint32_t *peer_probes, *peer_timeouts; /* [RNIC][peer's local index] */
	uint32_t *host_probes, *host_slow;
	struct abn *abn;
	size_t n_abn, cap_abn;
	uint64_t *good;
	size_t n_good, cap_good;
	uint32_t net_h[HBINS], proc_h[HBINS];
};

struct az {
	const struct inventory *inv;
	struct az_cfg cfg;
	FILE *out;
	struct out o; /* one JSON record per line on out */
	size_t n_rnics, max_per_host;
	size_t *base;	 /* per host: global index of its first RNIC */
	uint64_t *until; /* per RNIC: realtime ns its timeouts stay RNIC problems */
	struct path_ent *paths;
	size_t paths_cap, paths_n;
	struct window win[MAX_WINDOWS];
	/* scratch of a window's analysis */
	uint32_t *votes_l, *good_l, *votes_s, *good_s;
	uint8_t *pair_t, *pair_s, *bad_rnic;
	size_t *order;
	struct az_totals tot;
};

/* ---- histograms ------------------------------------------------------------------ */

static int hbin(uint64_t v)
{
	int e;

	if (v < 64)
		return (int)v;
	if (v > UINT32_MAX)
		v = UINT32_MAX;
	e = 63 - __builtin_clzll(v);
	return 64 + (e - 6) * 32 + (int)((v >> (e - 5)) & 31);
}

static double hval(int bin)
{
	int e, sub;

	if (bin < 64)
		return bin;
	e = (bin - 64) / 32 + 6;
	sub = (bin - 64) % 32;
	return ((32.0 + sub + 0.5) * (double)(1ULL << (e - 5)));
}

static double hpct(const uint32_t *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * (double)n), acc = 0;

	if (!n)
		return 0;
	if (want >= n)
		want = n - 1;
	for (int i = 0; i < HBINS; i++) {
		acc += h[i];
		if (acc > want)
			return hval(i);
	}
	return hval(HBINS - 1);
}

/* ---- paths ------------------------------------------------------------------------- */

static uint64_t pkey(size_t host, unsigned src, unsigned dst, unsigned sport)
{
	return (uint64_t)(host + 1) << 32 | (uint64_t)src << 24 | (uint64_t)dst << 16 | sport;
}

static size_t phash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static struct path_ent *path_find(struct az *a, uint64_t key)
{
	for (size_t i = phash(key, a->paths_cap);; i = (i + 1) & (a->paths_cap - 1)) {
		if (a->paths[i].key == key)
			return &a->paths[i];
		if (!a->paths[i].key)
			return NULL;
	}
}

static void path_rehash(struct az *a, size_t cap, uint64_t older_than)
{
	struct path_ent *old = a->paths;
	size_t ocap = a->paths_cap;

	a->paths = rl_xcalloc(cap, sizeof(*a->paths));
	a->paths_cap = cap;
	a->paths_n = 0;
	for (size_t j = 0; j < ocap; j++) {
		if (!old[j].key || old[j].last_used < older_than)
			continue;
		size_t i = phash(old[j].key, cap);

		while (a->paths[i].key)
			i = (i + 1) & (cap - 1);
		a->paths[i] = old[j];
		a->paths_n++;
	}
	free(old);
}

static struct path_ent *path_insert(struct az *a, uint64_t key, uint64_t now)
{
	size_t i;

	if ((a->paths_n + 1) * 2 > a->paths_cap) {
		/* Forget 5-tuples unused for ten minutes (rotated out of their pool). */
		path_rehash(a, a->paths_cap,
			    now > 600000 * NS_PER_MS ? now - 600000 * NS_PER_MS : 0);
		if ((a->paths_n + 1) * 4 > a->paths_cap)
			path_rehash(a, a->paths_cap * 2, 0);
	}
	for (i = phash(key, a->paths_cap); a->paths[i].key && a->paths[i].key != key;
	     i = (i + 1) & (a->paths_cap - 1))
		;
	if (!a->paths[i].key) {
		a->paths[i].key = key;
		a->paths_n++;
	}
	return &a->paths[i];
}

void az_path(struct az *a, size_t host, const struct hm_path *p)
{
	struct path_ent *e;

	if (host >= a->inv->n_hosts || p->src >= a->inv->hosts[host].n_rnics ||
	    p->dst >= a->inv->hosts[host].n_rnics || p->n_links > HM_MAX_LINKS) {
		a->tot.unknown_rnic++;
		return;
	}
	for (int i = 0; i < p->n_links; i++)
		if (p->links[i] >= a->inv->n_links)
			return;
	a->tot.paths++;
	e = path_insert(a, pkey(host, p->src, p->dst, p->sport), p->t_ns);
	/* The paper keeps the latest path: a trace cut short by the fault does not replace it. */
	if (e->complete && !p->complete)
		return;
	e->last_used = p->t_ns;
	e->complete = p->complete;
	e->n_links = p->n_links;
	memcpy(e->links, p->links, sizeof(e->links));
}

/* ---- windows ------------------------------------------------------------------------ */

static void win_reset(struct az *a, struct window *w, uint64_t start)
{
	struct rnic_win *rn = w->rn;
	uint32_t *hp = w->host_probes, *hs = w->host_slow, *pp = w->peer_probes,
		 *pt = w->peer_timeouts;
	struct abn *abn = w->abn;
	uint64_t *good = w->good;
	size_t ca = w->cap_abn, cg = w->cap_good;

	memset(rn, 0, a->n_rnics * sizeof(*rn));
	memset(pp, 0, a->n_rnics * a->max_per_host * sizeof(*pp));
	memset(pt, 0, a->n_rnics * a->max_per_host * sizeof(*pt));
	memset(hp, 0, a->inv->n_hosts * sizeof(*hp));
	memset(hs, 0, a->inv->n_hosts * sizeof(*hs));
	*w = (struct window){.used = true,
			     .start = start,
			     .end = start + (uint64_t)a->cfg.window_ms * NS_PER_MS,
			     .rn = rn,
			     .peer_probes = pp,
			     .peer_timeouts = pt,
			     .host_probes = hp,
			     .host_slow = hs,
			     .abn = abn,
			     .cap_abn = ca,
			     .good = good,
			     .cap_good = cg};
}

static void close_window(struct az *a, struct window *w);

static struct window *win_get(struct az *a, uint64_t t)
{
	uint64_t wl = (uint64_t)a->cfg.window_ms * NS_PER_MS, start = t - t % wl;
	struct window *free_w = NULL, *oldest = NULL;

	for (int i = 0; i < MAX_WINDOWS; i++) {
		struct window *w = &a->win[i];

		if (w->used && w->start == start)
			return w;
		if (!w->used && !free_w)
			free_w = w;
		if (w->used && (!oldest || w->start < oldest->start))
			oldest = w;
	}
	if (!free_w) {
		if (start < oldest->start)
			return NULL; /* older than every open window */
		close_window(a, oldest);
		free_w = oldest;
	}
	win_reset(a, free_w, start);
	return free_w;
}

static void grp_add(struct rnic_win *r, uint16_t link, bool timeout)
{
	int i;

	for (i = 0; i < r->ng && r->g[i].link != link; i++)
		;
	if (i == r->ng) {
		if (r->ng == NGRP)
			return;
		r->g[r->ng++].link = link;
	}
	r->g[i].probes++;
	r->g[i].timeouts += timeout;
}

static void add_abn(struct window *w, size_t max, uint32_t src_g, unsigned dst, bool slow,
		    uint64_t t_send, const struct path_ent *e)
{
	struct abn *x;

	if (w->n_abn == w->cap_abn) {
		if (w->cap_abn >= max)
			return;
		w->cap_abn = w->cap_abn ? w->cap_abn * 2 : 1024;
		w->abn = rl_xrealloc(w->abn, w->cap_abn, sizeof(*w->abn));
	}
	x = &w->abn[w->n_abn++];
	x->src_g = src_g;
	x->dst = (uint16_t)dst;
	x->slow = slow;
	x->at_ms = t_send > w->start ? (uint32_t)((t_send - w->start) / NS_PER_MS) : 0;
	x->n_links = e && e->complete ? e->n_links : 0;
	if (x->n_links)
		memcpy(x->links, e->links, sizeof(x->links));
}

void az_probe(struct az *a, size_t host, const struct hm_probe *p)
{
	const struct inv_host *h = host < a->inv->n_hosts ? &a->inv->hosts[host] : NULL;
	struct window *w;
	struct path_ent *e;
	size_t gs, gd;
	bool timeout = p->status != HM_OK, known;
	uint16_t up = NO_LINK, down = NO_LINK;

	if (!h || p->src >= h->n_rnics || p->dst >= h->n_rnics || p->src == p->dst) {
		a->tot.unknown_rnic++;
		return;
	}
	w = win_get(a, p->t_send_ns);
	if (!w) {
		a->tot.late++;
		return;
	}
	a->tot.probes++;
	gs = a->base[host] + p->src;
	gd = a->base[host] + p->dst;
	e = path_find(a, pkey(host, p->src, p->dst, p->sport));
	known = e && e->complete && e->n_links >= 3;
	if (e)
		e->last_used = p->t_send_ns;
	if (known) {
		up = e->links[1];
		down = e->links[e->n_links - 2];
	}
	w->probes++;
	w->rn[gs].probes++;
	w->rn[gd].probes++;
	w->rn[gs].timeouts += timeout;
	w->rn[gd].timeouts += timeout;
	w->peer_probes[gs * a->max_per_host + p->dst]++;
	w->peer_probes[gd * a->max_per_host + p->src]++;
	w->peer_timeouts[gs * a->max_per_host + p->dst] += timeout;
	w->peer_timeouts[gd * a->max_per_host + p->src] += timeout;
	grp_add(&w->rn[gs], up, timeout);
	grp_add(&w->rn[gd], down, timeout);
	if (!known)
		w->unlocalized++;
	if (timeout) {
		w->timeouts++;
		add_abn(w, a->cfg.max_abnormal, (uint32_t)gs, p->dst, false, p->t_send_ns, e);
		return;
	}
	w->ok++;
	w->ts_kernel +=
	    (p->flags & (HM_F_TX_KERNEL | HM_F_RX_KERNEL)) == (HM_F_TX_KERNEL | HM_F_RX_KERNEL);
	w->ts_hw += !!(p->flags & HM_F_HW);
	w->net_h[hbin(p->net_ns)]++;
	w->proc_h[hbin(p->proc_ns)]++;
	w->host_probes[host]++;
	if ((long long)p->proc_ns > a->cfg.proc_us * 1000)
		w->host_slow[host]++;
	if ((long long)p->net_ns > a->cfg.slow_us * 1000) {
		add_abn(w, a->cfg.max_abnormal, (uint32_t)gs, p->dst, true, p->t_send_ns, e);
	} else if (known) {
		if (w->n_good == w->cap_good && w->cap_good < a->cfg.max_good) {
			w->cap_good = w->cap_good ? w->cap_good * 2 : 4096;
			w->good = rl_xrealloc(w->good, w->cap_good, sizeof(*w->good));
		}
		if (w->n_good < w->cap_good)
			w->good[w->n_good++] = e->key;
	}
}

/* ---- analysis ------------------------------------------------------------------------- */

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static size_t host_of(const struct az *a, size_t g)
{
	size_t lo = 0, hi = a->inv->n_hosts;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (a->base[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static const char *rnic_name(const struct az *a, size_t g, char *buf, size_t len)
{
	size_t h = host_of(a, g);

	snprintf(buf, len, "%s:%s", a->inv->hosts[h].name,
		 a->inv->hosts[h].rnics[g - a->base[h]].name);
	return buf;
}

/*
 * Is the RNIC's timeout share above the threshold on most of the paths it
 * uses?  Probes exchanged with RNICs already found anomalous (marked in bad)
 * are left out: a dead RNIC must not drag its healthy peers, which send it a
 * third of their probes on a 4-RNIC host, over the threshold.
 */
static bool rnic_anomalous(const struct az *a, const struct window *w, size_t g,
			   const uint8_t *bad_rnic)
{
	const struct rnic_win *r = &w->rn[g];
	size_t h = host_of(a, g);
	uint32_t probes = 0, timeouts = 0;
	int qualified = 0, bad = 0;

	for (size_t p = 0; p < a->inv->hosts[h].n_rnics; p++) {
		if (bad_rnic[a->base[h] + p])
			continue;
		probes += w->peer_probes[g * a->max_per_host + p];
		timeouts += w->peer_timeouts[g * a->max_per_host + p];
	}
	if (probes < (uint32_t)a->cfg.rnic_min_probes ||
	    (double)timeouts <= a->cfg.rnic_threshold * probes)
		return false;
	/*
	 * The paper's rule alone blames an RNIC for a fabric link that carries a
	 * large share of its probes (a quarter with four spines).  An RNIC fault
	 * shows on every uplink it uses; a fabric fault on some.
	 */
	for (int i = 0; i < r->ng; i++) {
		if (r->g[i].link == NO_LINK || r->g[i].probes < 3)
			continue;
		qualified++;
		bad += (double)r->g[i].timeouts > a->cfg.rnic_threshold * r->g[i].probes;
	}
	return qualified < 2 || bad * 2 > qualified;
}

/* Links and switches of a path (each switch once). */
static int path_switches(const struct az *a, const struct abn *x, size_t *sw, int max)
{
	int n = 0;

	for (int i = 0; i < x->n_links; i++) {
		const struct inv_link *l = &a->inv->links[x->links[i]];
		const struct inv_endpoint *e[2] = {&l->a, &l->b};

		for (int k = 0; k < 2; k++) {
			bool seen = false;

			if (e[k]->kind != INV_DEV_SWITCH)
				continue;
			for (int j = 0; j < n; j++)
				seen |= sw[j] == e[k]->dev;
			if (!seen && n < max)
				sw[n++] = e[k]->dev;
		}
	}
	return n;
}

/* Does abnormal probe x vote (of its kind), or is it an anomalous RNIC's, explained already? */
static bool votes_in(const struct az *a, const struct window *w, const struct abn *x, bool slow)
{
	size_t gd = a->base[host_of(a, x->src_g)] + x->dst;

	return x->slow == slow && x->n_links && a->until[x->src_g] <= w->start &&
	       a->until[gd] <= w->start;
}

/* How long, in send time, the slow probes through one link (or switch) were sent over. */
static uint32_t slow_span_ms(const struct az *a, const struct window *w, bool link, size_t id)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t sw[HM_MAX_LINKS * 2];

	for (size_t i = 0; i < w->n_abn; i++) {
		const struct abn *x = &w->abn[i];
		bool on = false;
		int k;

		if (!votes_in(a, w, x, true))
			continue;
		if (link) {
			for (int j = 0; j < x->n_links; j++)
				on |= x->links[j] == id;
		} else {
			k = path_switches(a, x, sw, (int)ARRAY_SIZE(sw));
			for (int j = 0; j < k; j++)
				on |= sw[j] == id;
		}
		if (on) {
			lo = x->at_ms < lo ? x->at_ms : lo;
			hi = x->at_ms > hi ? x->at_ms : hi;
		}
	}
	return hi >= lo ? hi - lo : 0;
}

struct cand {
	size_t id;
	uint32_t votes, good;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *x = pa, *y = pb;

	if (x->votes != y->votes)
		return x->votes > y->votes ? -1 : 1;
	if (x->good != y->good)
		return x->good < y->good ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sort the elements with votes; returns how many, top first. */
static size_t rank(const uint32_t *votes, const uint32_t *good, size_t n, struct cand *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (votes[i])
			out[k++] = (struct cand){i, votes[i], good[i]};
	qsort(out, k, sizeof(*out), cand_cmp);
	return k;
}

static bool unique_top(const struct cand *c, size_t n)
{
	return n == 1 || (n > 1 && (c[0].votes != c[1].votes || c[0].good != c[1].good));
}

static const char *elem_name(const struct az *a, bool link, size_t id, char *buf, size_t len)
{
	if (link)
		return pathmap_link_name(a->inv, id, buf, len);
	snprintf(buf, len, "%s", a->inv->switches[id].name);
	return buf;
}

static void print_suspects(struct az *a, const char *key, bool link, const struct cand *c, size_t n)
{
	char name[160];

	out_open_array(&a->o, key);
	for (size_t i = 0; i < n && i < SUSPECTS; i++) {
		out_open_object(&a->o, NULL);
		out_string(&a->o, PRINT_JSON, "target", NULL,
			   elem_name(a, link, c[i].id, name, sizeof(name)));
		out_string(&a->o, PRINT_JSON, "kind", NULL, link ? "link" : "switch");
		out_uint(&a->o, PRINT_JSON, "votes", NULL, c[i].votes);
		out_uint(&a->o, PRINT_JSON, "good", NULL, c[i].good);
		out_close(&a->o);
	}
	out_close(&a->o);
}

static void verdict_head(struct az *a, const struct window *w, const char *cls, const char *target,
			 uint32_t votes, double share)
{
	struct out *o = &a->o;

	a->tot.verdicts++;
	out_open_object(o, NULL);
	out_string(o, PRINT_JSON, "type", NULL, "verdict");
	out_float(o, PRINT_JSON, "time", NULL, 3, secs(w->end));
	out_float(o, PRINT_JSON, "emitted", NULL, 3, secs(rl_realtime_ns()));
	out_open_array(o, "window");
	out_float(o, PRINT_JSON, NULL, NULL, 3, secs(w->start));
	out_float(o, PRINT_JSON, NULL, NULL, 3, secs(w->end));
	out_close(o);
	out_string(o, PRINT_JSON, "class", NULL, cls);
	out_string(o, PRINT_JSON, "target", NULL, target);
	out_uint(o, PRINT_JSON, "votes", NULL, votes);
	out_float(o, PRINT_JSON, "share", NULL, 3, share);
}

/*
 * Algorithm 1 over links, then over switches: the element on the most
 * abnormal paths is the suspect.  Ties are broken by the probes of the same
 * RNIC pairs that went well through each element (tomography's exoneration).
 * The most specific unique suspect wins: a link, else a switch.
 */
static void vote_verdict(struct az *a, const struct window *w, bool slow, uint32_t total)
{
	size_t nl = a->inv->n_links, ns = a->inv->n_switches;
	struct cand *cl = rl_xcalloc(nl + 1, sizeof(*cl)), *cs = rl_xcalloc(ns + 1, sizeof(*cs));
	size_t kl = rank(a->votes_l, a->good_l, nl, cl), ks = rank(a->votes_s, a->good_s, ns, cs);
	bool link = unique_top(cl, kl) || !unique_top(cs, ks);
	const struct cand *top = link ? cl : cs;
	char name[160];
	double share;

	if ((link ? kl : ks) == 0)
		goto out;
	share = total ? (double)top->votes / total : 0;
	if (share < a->cfg.min_share)
		goto out;
	/*
	 * A latency hotspot must explain min_votes slow probes by itself: on a
	 * busy 2-core machine a scheduling hiccup made 5 of 1368 probes slow,
	 * 3 of them across one link, and that read as congestion (a false
	 * alarm in recovery).  Real hotspots explain 12 and more at onset.
	 */
	if (slow && top->votes < (uint32_t)a->cfg.min_votes)
		goto out;
	/*
	 * Nor is a burst a hotspot.  The CI suite over SSH on that machine drew
	 * congestion verdicts in late recovery, no fault live (2 of 8 scenarios):
	 * a scheduling stall delays every probe sent in that instant.  A
	 * congested queue delays probes for as long as it stays congested.
	 */
	if (slow && slow_span_ms(a, w, link, top->id) < (uint32_t)a->cfg.slow_span_ms)
		goto out;
	verdict_head(a, w,
		     slow   ? "congestion"
		     : link ? "switch-link"
			    : "switch",
		     elem_name(a, link, top->id, name, sizeof(name)), top->votes, share);
	out_bool(&a->o, PRINT_JSON, "unique", NULL, unique_top(top, link ? kl : ks));
	out_uint(&a->o, PRINT_JSON, "abnormal", NULL, total);
	print_suspects(a, "suspects", link, top, link ? kl : ks);
	print_suspects(a, "switch_suspects", false, cs, ks);
	out_close(&a->o);
out:
	free(cl);
	free(cs);
}

static void tally(struct az *a, const struct window *w, bool slow, uint8_t *pairs, uint32_t *n)
{
	size_t sw[HM_MAX_LINKS * 2];

	memset(a->votes_l, 0, a->inv->n_links * sizeof(uint32_t));
	memset(a->good_l, 0, a->inv->n_links * sizeof(uint32_t));
	memset(a->votes_s, 0, a->inv->n_switches * sizeof(uint32_t));
	memset(a->good_s, 0, a->inv->n_switches * sizeof(uint32_t));
	memset(pairs, 0, a->n_rnics * a->max_per_host);
	*n = 0;
	for (size_t i = 0; i < w->n_abn; i++) {
		const struct abn *x = &w->abn[i];
		int k;

		if (!votes_in(a, w, x, slow))
			continue;
		(*n)++;
		pairs[x->src_g * a->max_per_host + x->dst] = 1;
		for (int j = 0; j < x->n_links; j++)
			a->votes_l[x->links[j]]++;
		k = path_switches(a, x, sw, (int)ARRAY_SIZE(sw));
		for (int j = 0; j < k; j++)
			a->votes_s[sw[j]]++;
	}
	if (!*n)
		return;
	for (size_t i = 0; i < w->n_good; i++) {
		uint64_t key = w->good[i];
		size_t host = (size_t)(key >> 32) - 1, src = (key >> 24) & 0xff,
		       dst = (key >> 16) & 0xff;
		const struct path_ent *e;
		struct abn x;
		int k;

		if (!pairs[(a->base[host] + src) * a->max_per_host + dst])
			continue;
		e = path_find(a, key);
		if (!e || !e->complete)
			continue;
		x.n_links = e->n_links;
		memcpy(x.links, e->links, sizeof(x.links));
		for (int j = 0; j < x.n_links; j++)
			a->good_l[x.links[j]]++;
		k = path_switches(a, &x, sw, (int)ARRAY_SIZE(sw));
		for (int j = 0; j < k; j++)
			a->good_s[sw[j]]++;
	}
}

static void print_top_votes(struct az *a, const char *key)
{
	struct cand *cl = rl_xcalloc(a->inv->n_links + 1, sizeof(*cl));
	size_t k = rank(a->votes_l, a->good_l, a->inv->n_links, cl);
	char name[160];

	out_open_array(&a->o, key);
	for (size_t i = 0; i < k && i < 10; i++) {
		out_open_object(&a->o, NULL);
		out_string(&a->o, PRINT_JSON, "link", NULL,
			   pathmap_link_name(a->inv, cl[i].id, name, sizeof(name)));
		out_uint(&a->o, PRINT_JSON, "votes", NULL, cl[i].votes);
		out_close(&a->o);
	}
	out_close(&a->o);
	free(cl);
}

static const struct window *sort_w;

static int share_cmp(const void *pa, const void *pb)
{
	const struct rnic_win *x = &sort_w->rn[*(const size_t *)pa],
			      *y = &sort_w->rn[*(const size_t *)pb];
	double sx = x->probes ? (double)x->timeouts / x->probes : 0;
	double sy = y->probes ? (double)y->timeouts / y->probes : 0;

	return sx > sy ? -1 : sx < sy;
}

static void sort_by_share(const struct window *w, size_t *order, size_t n)
{
	sort_w = w;
	qsort(order, n, sizeof(*order), share_cmp);
}

static void close_window(struct az *a, struct window *w)
{
	uint64_t rnic_drops = 0, switch_drops = 0, hold = (uint64_t)a->cfg.rnic_hold_ms * NS_PER_MS;
	uint32_t n_t = 0, n_s = 0;
	char name[160];

	a->tot.windows++;
	/* 1. RNIC anomalies (§3.4.1), worst first, each explaining away its peers' timeouts. */
	memset(a->bad_rnic, 0, a->n_rnics);
	{
		size_t n = 0;

		for (size_t k = 0; k < a->n_rnics; k++)
			if (w->rn[k].timeouts)
				a->order[n++] = k;
		sort_by_share(w, a->order, n);
		for (size_t i = 0; i < n; i++) {
			size_t g = a->order[i];
			const struct rnic_win *r = &w->rn[g];

			if (!rnic_anomalous(a, w, g, a->bad_rnic))
				continue;
			a->bad_rnic[g] = 1;
			if (a->until[g] < w->end + hold)
				a->until[g] = w->end + hold;
			verdict_head(a, w, "rnic", rnic_name(a, g, name, sizeof(name)), r->timeouts,
				     (double)r->timeouts / r->probes);
			out_uint(&a->o, PRINT_JSON, "probes", NULL, r->probes);
			out_uint(&a->o, PRINT_JSON, "timeouts", NULL, r->timeouts);
			out_close(&a->o);
		}
	}
	for (size_t i = 0; i < w->n_abn; i++) {
		const struct abn *x = &w->abn[i];
		size_t gd = a->base[host_of(a, x->src_g)] + x->dst;

		if (x->slow)
			continue;
		if (a->until[x->src_g] > w->start || a->until[gd] > w->start)
			rnic_drops++;
		else
			switch_drops++;
	}
	/* 2. Switch network problems: timeouts, then high latency (§3.4.2, Algorithm 1). */
	tally(a, w, false, a->pair_t, &n_t);
	if (n_t >= (uint32_t)a->cfg.min_votes)
		vote_verdict(a, w, false, n_t);
	struct out *o = &a->o;
	static const double q[] = {0.5, 0.9, 0.99, 0.999};
	static const char *const qn[] = {"p50", "p90", "p99", "p999"};

	out_open_object(o, NULL);
	out_string(o, PRINT_JSON, "type", NULL, "window");
	out_float(o, PRINT_JSON, "start", NULL, 3, secs(w->start));
	out_float(o, PRINT_JSON, "end", NULL, 3, secs(w->end));
	out_uint(o, PRINT_JSON, "probes", NULL, w->probes);
	out_uint(o, PRINT_JSON, "timeouts", NULL, w->timeouts);
	out_uint(o, PRINT_JSON, "rnic_drops", NULL, rnic_drops);
	out_uint(o, PRINT_JSON, "switch_drops", NULL, switch_drops);
	out_float(o, PRINT_JSON, "rnic_drop_rate", NULL, 6,
		  w->probes ? (double)rnic_drops / w->probes : 0);
	out_float(o, PRINT_JSON, "switch_drop_rate", NULL, 6,
		  w->probes ? (double)switch_drops / w->probes : 0);
	out_uint(o, PRINT_JSON, "unlocalized", NULL, w->unlocalized);
	out_uint(o, PRINT_JSON, "voted_timeouts", NULL, n_t);
	out_uint(o, PRINT_JSON, "ok", NULL, w->ok);
	out_uint(o, PRINT_JSON, "ts_kernel", NULL, w->ts_kernel);
	out_uint(o, PRINT_JSON, "ts_hw", NULL, w->ts_hw);
	print_top_votes(a, "link_votes");
	tally(a, w, true, a->pair_s, &n_s);
	out_uint(o, PRINT_JSON, "slow_probes", NULL, n_s);
	print_top_votes(a, "slow_votes");
	out_open_object(o, "net_us");
	for (int i = 0; i < 4; i++)
		out_float(o, PRINT_JSON, qn[i], NULL, 1, hpct(w->net_h, w->ok, q[i]) / 1e3);
	out_close(o);
	out_open_object(o, "proc_us");
	for (int i = 0; i < 4; i++)
		out_float(o, PRINT_JSON, qn[i], NULL, 1, hpct(w->proc_h, w->ok, q[i]) / 1e3);
	out_close(o);
	out_close(o);
	if (n_s >= (uint32_t)a->cfg.min_votes)
		vote_verdict(a, w, true, n_s);
	/* 3. Hosts whose processing delay is high on most probes. */
	for (size_t h = 0; h < a->inv->n_hosts; h++)
		if (w->host_probes[h] >= 10 && w->host_slow[h] * 2 > w->host_probes[h]) {
			verdict_head(a, w, "host-processing", a->inv->hosts[h].name,
				     w->host_slow[h], (double)w->host_slow[h] / w->host_probes[h]);
			out_close(&a->o);
		}
	fflush(a->out);
	w->used = false;
}

static int win_cmp(const void *pa, const void *pb)
{
	const struct window *x = *(struct window *const *)pa, *y = *(struct window *const *)pb;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void close_until(struct az *a, uint64_t limit, bool all)
{
	struct window *open[MAX_WINDOWS];
	int n = 0;

	for (int i = 0; i < MAX_WINDOWS; i++)
		if (a->win[i].used &&
		    (all || a->win[i].end + (uint64_t)a->cfg.grace_ms * NS_PER_MS <= limit))
			open[n++] = &a->win[i];
	qsort(open, (size_t)n, sizeof(*open), win_cmp);
	for (int i = 0; i < n; i++)
		close_window(a, open[i]);
}

void az_tick(struct az *a, uint64_t now_ns)
{
	close_until(a, now_ns, false);
}

void az_flush(struct az *a)
{
	close_until(a, 0, true);
}

void az_agent_stats(struct az *a, size_t host, const struct hm_stats *s)
{
	if (host >= a->inv->n_hosts)
		return;
	struct out *o = &a->o;

	out_open_object(o, NULL);
	out_string(o, PRINT_JSON, "type", NULL, "agent");
	out_string(o, PRINT_JSON, "host", NULL, a->inv->hosts[host].name);
	out_float(o, PRINT_JSON, "time", NULL, 3, secs(s->t_ns));
	out_uint(o, PRINT_JSON, "probes", NULL, s->probes);
	out_uint(o, PRINT_JSON, "timeouts", NULL, s->timeouts);
	out_uint(o, PRINT_JSON, "send_errors", NULL, s->send_errors);
	out_uint(o, PRINT_JSON, "malformed", NULL, s->malformed);
	out_uint(o, PRINT_JSON, "foreign", NULL, s->foreign);
	out_uint(o, PRINT_JSON, "dropped_records", NULL, s->dropped_records);
	out_uint(o, PRINT_JSON, "traces", NULL, s->traces);
	out_uint(o, PRINT_JSON, "traces_complete", NULL, s->traces_complete);
	out_uint(o, PRINT_JSON, "rx_overflow", NULL, s->rx_overflow);
	out_uint(o, PRINT_JSON, "rss_kb", NULL, s->rss_kb);
	out_close(o);
	fflush(a->out);
}

/* ---- lifecycle ------------------------------------------------------------------------- */

struct az *az_new(const struct inventory *inv, const struct az_cfg *cfg, FILE *out)
{
	struct az *a = rl_xcalloc(1, sizeof(*a));

	a->inv = inv;
	a->cfg = *cfg;
	a->out = out;
	out_init(&a->o, out, OUT_JSON_LINES);
	a->base = rl_xcalloc(inv->n_hosts + 1, sizeof(*a->base));
	for (size_t h = 0; h < inv->n_hosts; h++) {
		a->base[h] = a->n_rnics;
		a->n_rnics += inv->hosts[h].n_rnics;
		if (inv->hosts[h].n_rnics > a->max_per_host)
			a->max_per_host = inv->hosts[h].n_rnics;
	}
	a->base[inv->n_hosts] = a->n_rnics;
	a->until = rl_xcalloc(a->n_rnics + 1, sizeof(*a->until));
	a->paths_cap = 1024;
	while (a->paths_cap < a->n_rnics * a->max_per_host * 32)
		a->paths_cap *= 2;
	a->paths = rl_xcalloc(a->paths_cap, sizeof(*a->paths));
	for (int i = 0; i < MAX_WINDOWS; i++) {
		a->win[i].rn = rl_xcalloc(a->n_rnics + 1, sizeof(*a->win[i].rn));
		a->win[i].peer_probes =
		    rl_xcalloc(a->n_rnics * a->max_per_host + 1, sizeof(uint32_t));
		a->win[i].peer_timeouts =
		    rl_xcalloc(a->n_rnics * a->max_per_host + 1, sizeof(uint32_t));
		a->win[i].host_probes = rl_xcalloc(inv->n_hosts + 1, sizeof(uint32_t));
		a->win[i].host_slow = rl_xcalloc(inv->n_hosts + 1, sizeof(uint32_t));
	}
	a->votes_l = rl_xcalloc(inv->n_links + 1, sizeof(uint32_t));
	a->good_l = rl_xcalloc(inv->n_links + 1, sizeof(uint32_t));
	a->votes_s = rl_xcalloc(inv->n_switches + 1, sizeof(uint32_t));
	a->good_s = rl_xcalloc(inv->n_switches + 1, sizeof(uint32_t));
	a->pair_t = rl_xcalloc(a->n_rnics * a->max_per_host + 1, 1);
	a->pair_s = rl_xcalloc(a->n_rnics * a->max_per_host + 1, 1);
	a->bad_rnic = rl_xcalloc(a->n_rnics + 1, 1);
	a->order = rl_xcalloc(a->n_rnics + 1, sizeof(size_t));
	return a;
}

void az_free(struct az *a)
{
	if (!a)
		return;
	for (int i = 0; i < MAX_WINDOWS; i++) {
		free(a->win[i].rn);
		free(a->win[i].peer_probes);
		free(a->win[i].peer_timeouts);
		free(a->win[i].host_probes);
		free(a->win[i].host_slow);
		free(a->win[i].abn);
		free(a->win[i].good);
	}
	free(a->base);
	free(a->until);
	free(a->paths);
	free(a->votes_l);
	free(a->good_l);
	free(a->votes_s);
	free(a->good_s);
	free(a->pair_t);
	free(a->pair_s);
	free(a->bad_rnic);
	free(a->order);
	free(a);
}

int az_host_index(const struct az *a, const char *name)
{
	const struct inv_host *h = inventory_host(a->inv, name);

	return h ? (int)(h - a->inv->hosts) : -1;
}

void az_totals(const struct az *a, struct az_totals *t)
{
	*t = a->tot;
}
