// SPDX-License-Identifier: MIT
/* The R-Pingmesh analyzer: host-down, ToR-mesh RNIC anomalies, fwd+rev voting (analyzer.h). */
#define _GNU_SOURCE
#include "probe/rpingmesh/analyzer.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"
#include "probe/monaz.h"
#include "probe/pathmap.h"
#include "probe/rpingmesh/pinglist.h"
#include "probe/rpingmesh/rpm.h"
#include "probe/vote.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS   1000000ULL
#define MAX_WINDOWS 16
#define SUSPECTS    5
#define NB	    8 /* a window's time buckets, for when a host went silent */

void rpa_defaults(struct rpa_cfg *c)
{
	*c = (struct rpa_cfg){
	    .window_ms = 20000,
	    .rnic_threshold = 0.10,
	    .rnic_min_probes = 3,
	    .rnic_min_peers = 2,
	    .rnic_peer_share = 0.5,
	    .rnic_hold_ms = 60000,
	    .host_down_share = 0.5,
	    .min_votes = 5,
	    .min_share = 0.5,
	    .slow_us = 1000,
	    .slow_share = 0.2,
	    .proc_us = 5000,
	    .stall_us = 100000,
	    .grace_ms = 1500,
	    .svc_loss = 0.05,
	    .svc_degrade = 0.2,
	    .max_tuples = 4000000,
	};
}

/* A window's counts for one 5-tuple: prober RNIC, responder RNIC (global indexes), sport. */
struct tup {
	uint64_t key;					/* 0: empty */
	uint32_t probes, timeouts, ack2_lost, ok, slow; /* slow: OK, RTT over slow_us */
	uint8_t list;
};

/* A path last traced: links from the source RNIC on (32 bytes). */
struct path {
	uint64_t key; /* 0: empty */
	struct az_plinks p;
};

struct hostw {
	bool alive;
	bool stalled; /* its agent stalled past --stall in the window: its timeouts are noise */
	uint32_t ok_sent, slow_prober;	 /* its probes answered; with prober delay > proc */
	uint32_t ok_answered, slow_resp; /* probes it answered; with responder delay > proc */
	uint32_t max_prober_ns, max_resp_ns;
};

/* A service flow in a window: what its agent said it sent. */
struct svcw {
	uint64_t key; /* tkey(src, dst, sport) */
	uint64_t pkts, bytes;
	uint32_t qpn;
	bool ended;
};

/* A service flow across windows: the most it sent in a window it was healthy through. */
struct svch {
	uint64_t key, last_end; /* the end of the last window it was in */
	double best_bps;
};

#define MAX_SERVICES 1024 /* flows followed across windows, and in one */

struct window {
	struct az_win at; /* first: the ring's head */
	struct svcw *svc;
	size_t n_svc;
	struct tup *t;
	size_t cap, n;
	struct hostw *h;
	uint64_t probes[RPM_LISTS], timeouts[RPM_LISTS], ack2_lost[RPM_LISTS], ok[RPM_LISTS],
	    send_errors, unstarted;
	uint32_t *sent, *send_err; /* per global RNIC: probes it sent, those that never left */
	uint8_t *seen;		   /* per host: the buckets it sent records in (bit per bucket) */
	uint32_t *to_p, *to_t;	   /* per global RNIC and bucket: probes to it, timed out */
	uint32_t rtt_h[RPM_LISTS][HIST_BINS];
	uint32_t prober_h[HIST_BINS], resp_h[HIST_BINS];
	uint32_t late_h[HIST_BINS]; /* every probe's send lateness (the agent's timer) */
	uint64_t n_late;
};

/* How many probe records wait for their tuple slot to arrive in cache (rpa_probe()). */
#define PIPE 8

struct rpa {
	const struct inventory *inv;
	struct rpa_cfg cfg;
	struct out o;
	struct az_pathset traced; /* the link sets its probes took, each written once */
	size_t *base, n_rnics;	  /* global RNIC index of each host's first RNIC */
	uint32_t *host;		  /* per global RNIC: its host (host_of() without a search) */
	int32_t (*link_sw)[2];	  /* per link: the switch at each end, -1: a host's (on_path()) */
	int *tor;		  /* per global RNIC: its ToR (switch index), -1 */
	struct path *paths;	  /* az_huge_alloc() */
	size_t paths_cap, paths_n;
	size_t last_tuples; /* the last window closed held this many (tup_first_cap()) */
	/* probe records taken PIPE after they arrive (rpa_probe()): a ring */
	struct pending {
		size_t host;
		struct rpm_probe_rec rec;
	} pipe[PIPE];
	unsigned n_pipe, pipe_head;
	struct az_routes routes; /* the paths' link sequences, each once */
	struct window win[MAX_WINDOWS];
	struct az_ring ring;
	uint64_t *until;  /* per global RNIC: its timeouts are its own until (host-down, rnic) */
	uint8_t *bad_now; /* per global RNIC: found bad in the window being closed */
	uint64_t *down_until; /* per host: found down; its RNICs' troubles are that, until */
	uint64_t *first_seen; /* per host: its earliest record (0: none yet) */
	uint64_t *last_seen;  /* per host: its latest record (0: none yet) */
	uint64_t *stats_t;    /* per host: its last agent line printed (one a second at most) */
	uint8_t *covered;     /* per inventory link: on a traced probe path so far */
	size_t n_covered;
	uint32_t *votes_l, *good_l, *votes_s, *good_s;
	size_t *order;
	double *share;
	uint64_t now_ns;
	struct svch *svh;
	size_t n_svh;
	struct rpa_totals tot;
};

static size_t host_of(const struct rpa *a, size_t g)
{
	return g < a->n_rnics ? a->host[g] : vote_host_of(a->base, a->inv->n_hosts, g);
}

/* Does a record of host name RNICs of the inventory: its src_rnic, and dst_rnic of dst_host? */
static bool rnics_known(const struct rpa *a, size_t host, size_t src_rnic, size_t dst_host,
			size_t dst_rnic)
{
	return host < a->inv->n_hosts && src_rnic < a->inv->hosts[host].n_rnics &&
	       dst_host < a->inv->n_hosts && dst_rnic < a->inv->hosts[dst_host].n_rnics;
}

static const char *rnic_name(const struct rpa *a, size_t g, char *buf, size_t len)
{
	return vote_rnic_name(a->inv, a->base, g, buf, len);
}

/* ---- hash tables --------------------------------------------------------------------- */

static uint64_t tkey(size_t src, size_t dst, uint16_t sport)
{
	return (uint64_t)(src + 1) << 40 | (uint64_t)dst << 16 | sport;
}

static size_t khash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

/*
 * A window's first table: as many tuples as the last window held, or as
 * half the 5-tuples traced (each probed one is traced both ways), at most
 * the bound, at half load.  Grown from 1,024 by doubling, a window of 6.4
 * million tuples (10,000 hosts x 8 RNICs) zeroed and rehashed a gigabyte of
 * tables it then dropped.
 */
static size_t tup_first_cap(const struct rpa *a)
{
	size_t want = a->last_tuples > a->paths_n / 2 ? a->last_tuples : a->paths_n / 2, cap = 1024;

	if (want > (size_t)a->cfg.max_tuples)
		want = (size_t)a->cfg.max_tuples;
	while (cap < 2 * (want + 1))
		cap *= 2;
	return cap;
}

static struct tup *tup_get(struct rpa *a, struct window *w, uint64_t key)
{
	size_t i;

	if (2 * (w->n + 1) > w->cap) {
		size_t cap = w->cap ? 2 * w->cap : tup_first_cap(a);
		struct tup *t;

		if (w->n >= a->cfg.max_tuples)
			return NULL;
		t = az_huge_alloc(cap * sizeof(*t));
		for (size_t k = 0; k < w->cap; k++)
			if (w->t[k].key) {
				for (i = khash(w->t[k].key, cap); t[i].key; i = (i + 1) & (cap - 1))
					;
				t[i] = w->t[k];
			}
		az_huge_free(w->t, w->cap * sizeof(*w->t));
		w->t = t;
		w->cap = cap;
	}
	for (i = khash(key, w->cap); w->t[i].key; i = (i + 1) & (w->cap - 1))
		if (w->t[i].key == key)
			return &w->t[i];
	w->n++;
	w->t[i].key = key;
	return &w->t[i];
}

/* How far ahead a pass over every tuple asks for their paths. */
#define PREFETCH 16

/*
 * Ask for p's cache line.  GCC 12 at -O2 deletes a __builtin_prefetch in a
 * loop as dead code (its result unused), so on x86 the instruction itself.
 */
static inline void prefetch(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetcht0 %0" ::"m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

/* Tuple key's two paths' slots (its own and the reverse), asked for ahead of path_find(). */
static void path_prefetch(const struct rpa *a, uint64_t key)
{
	size_t s = (size_t)(key >> 40) - 1, d = (size_t)(key >> 16 & 0xffffff);

	if (!a->paths_cap)
		return;
	prefetch(&a->paths[khash(key, a->paths_cap)]);
	prefetch(&a->paths[khash(tkey(d, s, (uint16_t)key), a->paths_cap)]);
}

static const struct path *path_find(const struct rpa *a, uint64_t key)
{
	if (!a->paths_cap)
		return NULL;
	for (size_t i = khash(key, a->paths_cap); a->paths[i].key; i = (i + 1) & (a->paths_cap - 1))
		if (a->paths[i].key == key)
			return &a->paths[i];
	return NULL;
}

static struct path *path_put(struct rpa *a, uint64_t key)
{
	size_t i;

	if (2 * (a->paths_n + 1) > a->paths_cap) {
		size_t cap = a->paths_cap ? 2 * a->paths_cap : 1024;
		struct path *p = az_huge_alloc(cap * sizeof(*p));

		for (size_t k = 0; k < a->paths_cap; k++)
			if (a->paths[k].key) {
				for (i = khash(a->paths[k].key, cap); p[i].key;
				     i = (i + 1) & (cap - 1))
					;
				p[i] = a->paths[k];
			}
		az_huge_free(a->paths, a->paths_cap * sizeof(*a->paths));
		a->paths = p;
		a->paths_cap = cap;
	}
	for (i = khash(key, a->paths_cap); a->paths[i].key; i = (i + 1) & (a->paths_cap - 1))
		if (a->paths[i].key == key)
			return &a->paths[i];
	a->paths_n++;
	a->paths[i].key = key;
	return &a->paths[i];
}

/* ---- windows ----------------------------------------------------------------------------- */

static void win_open(void *ctx, void *wp, uint64_t start, uint64_t end)
{
	struct rpa *a = ctx;
	struct window *w = wp;

	(void)start;
	(void)end;
	*w = (struct window){0};
	w->h = rl_xcalloc(a->inv->n_hosts, sizeof(*w->h));
	w->sent = rl_xcalloc(a->n_rnics + 1, sizeof(*w->sent));
	w->send_err = rl_xcalloc(a->n_rnics + 1, sizeof(*w->send_err));
	w->seen = rl_xcalloc(a->inv->n_hosts, 1);
	w->to_p = rl_xcalloc(a->n_rnics * NB + 1, sizeof(*w->to_p));
	w->to_t = rl_xcalloc(a->n_rnics * NB + 1, sizeof(*w->to_t));
}

static struct window *win_get(struct rpa *a, uint64_t t)
{
	return az_ring_get(&a->ring, t);
}

/* Host h sent a record of time t: a host never seen is not started, not down. */
static void seen(struct rpa *a, size_t h, uint64_t t)
{
	if (!a->first_seen[h] || t < a->first_seen[h])
		a->first_seen[h] = t;
	if (t > a->last_seen[h])
		a->last_seen[h] = t;
}

static size_t bucket(const struct rpa *a, const struct window *w, uint64_t t)
{
	uint64_t b = (t - w->at.start) * NB / ((uint64_t)a->cfg.window_ms * NS_PER_MS);

	return b < NB ? (size_t)b : NB - 1;
}

static void probe_now(struct rpa *a, size_t host, const struct rpm_probe_rec *p)
{
	struct window *w;
	size_t src, dst, b;
	struct tup *t;
	unsigned list = p->list < RPM_LISTS ? p->list : RPM_SERVICE;

	if (!rnics_known(a, host, p->src_rnic, p->dst_host, p->dst_rnic)) {
		a->tot.refused++;
		return;
	}
	if (a->now_ns && p->t1_ns > a->now_ns + (uint64_t)a->cfg.window_ms * NS_PER_MS) {
		a->tot.refused++; /* from the future: a clock or a forgery */
		return;
	}
	w = win_get(a, p->t1_ns);
	if (!w) {
		a->tot.late++;
		return;
	}
	a->tot.probes++;
	src = a->base[host] + p->src_rnic;
	dst = a->base[p->dst_host] + p->dst_rnic;
	w->h[host].alive = true;
	seen(a, host, p->t1_ns);
	b = bucket(a, w, p->t1_ns);
	w->seen[host] |= (uint8_t)(1u << b);
	w->to_p[dst * NB + b]++;
	if (p->status == RPM_TIMEOUT)
		w->to_t[dst * NB + b]++;
	w->probes[list]++;
	w->sent[src]++;
	w->late_h[hist_bin((uint64_t)p->late_us * 1000)]++;
	w->n_late++;
	if (p->status == RPM_SEND_ERROR) {
		w->send_errors++;
		w->send_err[src]++;
		return;
	}
	/*
	 * Lost on its way to a host whose agent had not started when it was sent (over SSH
	 * the agents start one by one; each says so first): not the network's.
	 */
	if (p->status == RPM_TIMEOUT &&
	    (!a->first_seen[p->dst_host] || p->t1_ns < a->first_seen[p->dst_host])) {
		w->unstarted++;
		return;
	}
	t = tup_get(a, w, tkey(src, dst, p->sport));
	if (!t) {
		a->tot.refused++;
		return;
	}
	t->list = (uint8_t)list;
	t->probes++;
	switch (p->status) {
	case RPM_OK:
		t->ok++;
		t->slow += p->rtt_ns > (uint64_t)a->cfg.slow_us * 1000;
		w->ok[list]++;
		w->rtt_h[list][hist_bin(p->rtt_ns)]++;
		w->prober_h[hist_bin(p->prober_ns)]++;
		w->resp_h[hist_bin(p->responder_ns)]++;
		w->h[host].ok_sent++;
		w->h[p->dst_host].ok_answered++;
		if (p->prober_ns > (uint64_t)a->cfg.proc_us * 1000)
			w->h[host].slow_prober++;
		if (p->responder_ns > (uint64_t)a->cfg.proc_us * 1000)
			w->h[p->dst_host].slow_resp++;
		if (p->prober_ns > w->h[host].max_prober_ns)
			w->h[host].max_prober_ns = p->prober_ns;
		if (p->responder_ns > w->h[p->dst_host].max_resp_ns)
			w->h[p->dst_host].max_resp_ns = p->responder_ns;
		break;
	case RPM_ACK2_LOST:
		t->ack2_lost++;
		w->ack2_lost[list]++;
		break;
	case RPM_TIMEOUT:
		t->timeouts++;
		w->timeouts[list]++;
		break;
	default:
		break;
	}
}

/* Flow record f's share (of its packets and bytes) into window w. */
static bool flow_share(struct rpa *a, struct window *w, const struct rpm_flow_rec *f, uint64_t key,
		       double share, bool last)
{
	struct svcw *x = NULL;

	for (size_t i = 0; i < w->n_svc && !x; i++)
		if (w->svc[i].key == key)
			x = &w->svc[i];
	if (!x) {
		if (w->n_svc >= MAX_SERVICES) {
			a->tot.refused++;
			return false;
		}
		x = RL_PUSH(w->svc, w->n_svc);
		x->key = key;
	}
	x->pkts += (uint32_t)(f->pkts * share + 0.5);
	x->bytes += (uint64_t)(f->bytes * share + 0.5);
	x->qpn = f->qpn;
	x->ended |= last && f->ended;
	return true;
}

/*
 * Probe records are taken PIPE records after they arrive: each one's tuple
 * slot is asked for on arrival, and is in cache when its turn comes (the
 * slot's load was 80% of the ingest, a miss in a table of half a gigabyte
 * at 10,000 hosts).  In their order; every other entry point takes the
 * waiting ones first, so nothing reads the windows with a record in flight.
 */
void rpa_probe(struct rpa *a, size_t host, const struct rpm_probe_rec *p)
{
	struct pending *x;

	if (rnics_known(a, host, p->src_rnic, p->dst_host, p->dst_rnic)) {
		const struct window *w = az_ring_find(&a->ring, p->t1_ns);

		if (w && w->cap)
			prefetch(&w->t[khash(tkey(a->base[host] + p->src_rnic,
						  a->base[p->dst_host] + p->dst_rnic, p->sport),
					     w->cap)]);
	}
	if (a->n_pipe == PIPE) {
		x = &a->pipe[a->pipe_head];
		probe_now(a, x->host, &x->rec);
		a->pipe_head = (a->pipe_head + 1) % PIPE;
		a->n_pipe--;
	}
	x = &a->pipe[(a->pipe_head + a->n_pipe++) % PIPE];
	x->host = host;
	x->rec = *p;
}

/* The probe records waiting in the pipe, taken in their order. */
static void drain(struct rpa *a)
{
	for (; a->n_pipe; a->n_pipe--) {
		const struct pending *x = &a->pipe[a->pipe_head];

		probe_now(a, x->host, &x->rec);
		a->pipe_head = (a->pipe_head + 1) % PIPE;
	}
}

/*
 * A flow's record counts what it sent over its span, up to its time (about
 * a second): each window gets the part of the span it holds, as if sent
 * evenly, so that a window's rate does not depend on how many of the
 * agent's ticks fell in it (they drift with its wake-ups: one record too few
 * in a window halved its rate, a service "impacted" by a timer).  The part
 * of a window already closed is lost to it, as a late probe is; a span
 * reaches back no further than the open windows.
 */
void rpa_flow(struct rpa *a, size_t host, const struct rpm_flow_rec *f)
{
	struct window *w;
	uint64_t key, span, from, end, reach;
	bool lost = false;

	drain(a);

	if (!rnics_known(a, host, f->src_rnic, f->dst_host, f->dst_rnic)) {
		a->tot.refused++;
		return;
	}
	w = win_get(a, f->t_ns);
	if (!w) {
		a->tot.late++;
		return;
	}
	key = tkey(a->base[host] + f->src_rnic, a->base[f->dst_host] + f->dst_rnic, f->sport);
	span = (uint64_t)f->span_ms * NS_PER_MS;
	reach = a->ring.n * a->ring.len_ns;
	from = span < f->t_ns ? f->t_ns - span : 0;
	if (from >= w->at.start || !span) {
		flow_share(a, w, f, key, 1, true);
		return;
	}
	/* Back from t, window by window: the span's part in each [start, end). */
	flow_share(a, w, f, key, (double)(f->t_ns - w->at.start) / (double)span, true);
	lost = w->at.start - from > reach;
	if (lost)
		from = w->at.start - reach;
	for (end = w->at.start; end > from; end -= a->ring.len_ns) {
		uint64_t start = end - a->ring.len_ns;
		struct window *e = az_ring_find(&a->ring, end - 1);
		double share = (double)(end - (start > from ? start : from)) / (double)span;

		if (!e || !flow_share(a, e, f, key, share, false))
			lost = true;
	}
	a->tot.late += lost;
}

void rpa_path(struct rpa *a, size_t host, const struct rpm_path_rec *p)
{
	rec_link_t links[REC_MAX_LINKS];
	struct path *e;

	drain(a);

	if (!rnics_known(a, host, p->src_rnic, p->dst_host, p->dst_rnic) ||
	    p->n_links > REC_MAX_LINKS) {
		a->tot.refused++;
		return;
	}
	for (int i = 0; i < p->n_links; i++)
		if (p->links[i] >= a->inv->n_links) {
			a->tot.refused++;
			return;
		}
	a->tot.paths++;
	e = path_put(
	    a, tkey(a->base[host] + p->src_rnic, a->base[p->dst_host] + p->dst_rnic, p->sport));
	memcpy(links, p->links, sizeof(links)); /* aligned */
	az_plinks_set(&e->p, &a->routes, links, p->n_links, p->complete);
	a->n_covered += cover_mark(a->covered, links, p->n_links);
	if (e->p.complete)
		az_path_seen(&a->traced, &a->o, p->t_ns, links, p->n_links);
}

void rpa_stats(struct rpa *a, size_t host, const char *transport, const struct rec_stats *s)
{
	struct window *w;

	drain(a);

	if (host >= a->inv->n_hosts || (a->now_ns && s->t_ns > a->now_ns + 60ULL * 1000000000ULL))
		return;
	w = win_get(a, s->t_ns);
	if (w) {
		w->h[host].alive = true;
		seen(a, host, s->t_ns);
		w->seen[host] |= (uint8_t)(1u << bucket(a, w, s->t_ns));
	}
	/* Its counters as a line (the components' overhead figures); agents report every 5 s. */
	rec_stats_line(&a->o, a->inv->hosts[host].name, transport, s, &a->stats_t[host]);
}

/* ---- verdicts ------------------------------------------------------------------------------- */

static void verdict_head(struct rpa *a, const struct window *w, const char *cls, const char *target,
			 uint64_t votes, double share)
{
	a->tot.verdicts++;
	az_verdict_head(&a->o, "rpingmesh", &w->at, cls, target, votes, share);
}

static bool bad_at(const struct rpa *a, size_t g, const struct window *w)
{
	return a->until[g] > w->at.start;
}

/*
 * 0. Host noise (the authors' main source of false "network" alarms): a
 * tuple whose prober or responder host stalled in the window.  An agent
 * descheduled for a while answers late, and the probes it missed the
 * timeout of read as lost; the ones it answered just in time show the
 * stall as their prober or responder delay, so the window tells.
 */
static bool noise(const struct rpa *a, const struct window *w, size_t s, size_t d)
{
	return w->h[host_of(a, s)].stalled || w->h[host_of(a, d)].stalled;
}

/* RNIC g is bad in w, and its timeouts its own for hold after it. */
static void mark_bad(struct rpa *a, size_t g, const struct window *w, uint64_t hold)
{
	a->bad_now[g] = 1;
	if (a->until[g] < w->at.end + hold)
		a->until[g] = w->at.end + hold;
}

/* A ToR-mesh pair's probes both ways: RNICs a < b (global indexes). */
struct pair {
	size_t a, b;
	uint32_t probes, timeouts;
};

static int pair_cmp(const void *pa, const void *pb)
{
	const struct pair *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* Each RNIC's ToR-mesh pairs, from the window's 5-tuples. */
struct adj {
	size_t *off; /* RNIC g's pairs are pairs[idx[off[g] .. off[g + 1])] */
	size_t *idx;
	struct pair *pairs;
	size_t n;
};

static void adj_build(const struct rpa *a, const struct window *w, const struct tup *t, size_t n,
		      struct adj *j)
{
	size_t k = 0, *fill;

	j->pairs = rl_xcalloc(n + 1, sizeof(*j->pairs));
	for (size_t i = 0; i < n; i++) {
		size_t s = (size_t)(t[i].key >> 40) - 1, d = (size_t)(t[i].key >> 16 & 0xffffff);

		if (t[i].list != RPM_TOR_MESH || noise(a, w, s, d))
			continue;
		j->pairs[k++] = (struct pair){s < d ? s : d, s < d ? d : s, t[i].probes,
					      t[i].timeouts + t[i].ack2_lost};
	}
	rl_sort(j->pairs, k, sizeof(*j->pairs), pair_cmp);
	j->n = 0;
	for (size_t i = 0; i < k; i++) { /* both directions and every port of a pair in one */
		if (j->n && !pair_cmp(&j->pairs[j->n - 1], &j->pairs[i])) {
			j->pairs[j->n - 1].probes += j->pairs[i].probes;
			j->pairs[j->n - 1].timeouts += j->pairs[i].timeouts;
		} else {
			j->pairs[j->n++] = j->pairs[i];
		}
	}
	j->off = rl_xcalloc(a->n_rnics + 2, sizeof(*j->off));
	j->idx = rl_xcalloc(2 * j->n + 1, sizeof(*j->idx));
	fill = rl_xcalloc(a->n_rnics + 1, sizeof(*fill));
	for (size_t i = 0; i < j->n; i++)
		j->off[j->pairs[i].a + 1]++, j->off[j->pairs[i].b + 1]++;
	for (size_t g = 0; g < a->n_rnics; g++)
		j->off[g + 1] += j->off[g];
	for (size_t i = 0; i < j->n; i++) {
		j->idx[j->off[j->pairs[i].a] + fill[j->pairs[i].a]++] = i;
		j->idx[j->off[j->pairs[i].b] + fill[j->pairs[i].b]++] = i;
	}
	free(fill);
}

static void adj_free(struct adj *j)
{
	free(j->off);
	free(j->idx);
	free(j->pairs);
}

static int tup_cmp(const void *pa, const void *pb)
{
	const struct tup *x = pa, *y = pb;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * t[0..n) by key (prober RNIC, then responder, then sport), in place: a
 * window of 10,000 hosts holds 13 million tuples, and qsort()'s merge sort
 * takes as much again beside them.  Quicksort, the median of three as pivot
 * (the table's order is its hash's), the smaller side recursed into.
 */
static void tup_sort(struct tup *t, size_t n)
{
	while (n > 16) {
		struct tup x;
		uint64_t a = t[0].key, b = t[n / 2].key, c = t[n - 1].key, p;
		size_t i = 0, j = n - 1;

		p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		for (;;) {
			while (t[i].key < p)
				i++;
			while (t[j].key > p)
				j--;
			if (i >= j)
				break;
			x = t[i], t[i] = t[j], t[j] = x;
			i++, j--;
		}
		/* t[0..j] <= p <= t[j+1..n) */
		if (j + 1 < n - j - 1) {
			tup_sort(t, j + 1);
			t += j + 1, n -= j + 1;
		} else {
			tup_sort(t + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct tup x = t[i];
		size_t k = i;

		for (; k && t[k - 1].key > x.key; k--)
			t[k] = t[k - 1];
		t[k] = x;
	}
}

/*
 * 1. Host down: a host that went silent (sent no record) for a stretch of
 * the window, during which each of its RNICs timed out for more than
 * host_down_share of the probes sent to it, by probers on two hosts or
 * more.  A host stopped mid-window is one host problem, not an RNIC each.
 */
static void host_down(struct rpa *a, const struct window *w, const struct tup *t, size_t n,
		      uint64_t hold)
{
	uint8_t *seen = rl_xcalloc(a->inv->n_hosts * a->inv->n_hosts, 1);

	for (size_t i = 0; i < n; i++) {
		size_t s = (size_t)(t[i].key >> 40) - 1, d = (size_t)(t[i].key >> 16 & 0xffffff);

		if (t[i].timeouts)
			seen[host_of(a, d) * a->inv->n_hosts + host_of(a, s)] = 1;
	}
	for (size_t h = 0; h < a->inv->n_hosts; h++) {
		const struct inv_host *hh = &a->inv->hosts[h];
		size_t probers = 0, run = 0, best = 0, b0 = 0;
		uint64_t all = 0, lost = 0;
		bool every = hh->n_rnics > 0;

		for (size_t b = 0; b < NB; b++) { /* the longest silent stretch */
			run = w->seen[h] & (1u << b) ? 0 : run + 1;
			if (run > best)
				best = run, b0 = b + 1 - run;
		}
		/* Down is gone silent: an agent not started yet (over SSH they start one by one)
		 * is not a host down. */
		if (!best || !a->first_seen[h] ||
		    a->first_seen[h] >=
			w->at.start + b0 * ((uint64_t)a->cfg.window_ms * NS_PER_MS / NB))
			continue;
		for (size_t p = 0; p < a->inv->n_hosts; p++)
			probers += seen[h * a->inv->n_hosts + p];
		for (size_t r = 0; r < hh->n_rnics; r++) {
			size_t g = a->base[h] + r;
			uint64_t pp = 0, tt = 0;

			for (size_t b = b0; b < b0 + best; b++)
				pp += w->to_p[g * NB + b], tt += w->to_t[g * NB + b];
			every &= pp > 0 && tt > a->cfg.host_down_share * (double)pp;
			all += pp;
			lost += tt;
		}
		if (!every || probers < 2)
			continue;
		for (size_t r = 0; r < hh->n_rnics; r++)
			mark_bad(a, a->base[h] + r, w, hold);
		if (a->down_until[h] < w->at.end + hold)
			a->down_until[h] = w->at.end + hold;
		verdict_head(a, w, "host-down", hh->name, lost,
			     all ? (double)lost / (double)all : 0);
		out_uint(&a->o, PRINT_JSON, "probers", NULL, probers);
		out_float(&a->o, PRINT_JSON, "silent_s", NULL, 3,
			  (double)best * (double)a->cfg.window_ms / 1000.0 / NB);
		out_close(&a->o);
	}
	free(seen);
}

/*
 * 1b. A host going quiet: its latest record so far is in this window, while
 * another host's records go on past it (by a bucket or more).  The window
 * closes a grace after its end (longer than the probe timeout, and an agent
 * sends its records within 50 ms), so the host has sent nothing since: the
 * few probes lost to it (or its own) as it stopped are its own, not the
 * network's, though too few to call it down here.  Its RNICs are set aside
 * in this window only; the next, silent, names the host down.
 */
static void host_quiet(struct rpa *a, const struct window *w)
{
	uint64_t first = 0, second = 0, bucket = (uint64_t)a->cfg.window_ms * NS_PER_MS / NB;
	size_t top = SIZE_MAX;

	for (size_t h = 0; h < a->inv->n_hosts; h++)
		if (a->last_seen[h] >= first)
			second = first, first = a->last_seen[h], top = h;
		else if (a->last_seen[h] > second)
			second = a->last_seen[h];
	for (size_t h = 0; h < a->inv->n_hosts; h++) {
		uint64_t last = a->last_seen[h], others = h == top ? second : first;

		if (!last || last < w->at.start || last >= w->at.end || others < w->at.end + bucket)
			continue;
		for (size_t r = 0; r < a->inv->hosts[h].n_rnics; r++)
			mark_bad(a, a->base[h] + r, w, 0);
	}
}

static int share_cmp(const void *pa, const void *pb, void *ctx)
{
	const double *sh = ctx;
	size_t x = *(const size_t *)pa, y = *(const size_t *)pb;

	return sh[x] > sh[y] ? -1 : sh[x] < sh[y] ? 1 : (x > y) - (x < y);
}

/*
 * 2. RNIC anomalies from the ToR-mesh, worst first: an RNIC whose pairs
 * with most of its judged ToR-mesh peers (other hosts, same ToR, not bad)
 * time out beyond the threshold.
 */
static void rnic_step(struct rpa *a, const struct window *w, const struct tup **by_src,
		      const size_t *n_by_src, const struct adj *j, uint64_t hold)
{
	size_t n = 0;
	char name[160];

	for (size_t g = 0; g < a->n_rnics; g++) {
		uint64_t p = 0, to = 0;

		for (size_t i = 0; i < n_by_src[g]; i++)
			if (by_src[g][i].list == RPM_TOR_MESH) {
				p += by_src[g][i].probes;
				to += by_src[g][i].timeouts + by_src[g][i].ack2_lost;
			}
		a->share[g] = p ? (double)to / (double)p : 0;
		a->order[n++] = g;
	}
	/* A dead RNIC's own probes all time out: its share leads. */
	qsort_r(a->order, n, sizeof(*a->order), share_cmp, a->share);
	for (size_t i = 0; i < n; i++) {
		size_t r = a->order[i], peers = 0, bad = 0;
		uint64_t probes = 0, touts = 0;

		/* A host that was down lately: what its RNICs show on coming back is that. */
		if (a->bad_now[r] || !w->h[host_of(a, r)].alive ||
		    a->down_until[host_of(a, r)] > w->at.start)
			continue;
		/* Its own probes do not leave (a missing route, a port down): the RNIC's. */
		if (w->send_err[r] >= (uint32_t)a->cfg.rnic_min_probes &&
		    w->send_err[r] > a->cfg.rnic_threshold * w->sent[r]) {
			mark_bad(a, r, w, hold);
			verdict_head(a, w, "rnic", rnic_name(a, r, name, sizeof(name)),
				     w->send_err[r], (double)w->send_err[r] / w->sent[r]);
			out_uint(&a->o, PRINT_JSON, "send_errors", NULL, w->send_err[r]);
			out_uint(&a->o, PRINT_JSON, "sent", NULL, w->sent[r]);
			out_close(&a->o);
			continue;
		}
		if (a->tor[r] < 0)
			continue;
		for (size_t x = j->off[r]; x < j->off[r + 1]; x++) {
			const struct pair *pr = &j->pairs[j->idx[x]];
			size_t q = pr->a == r ? pr->b : pr->a;
			uint32_t pp = pr->probes, tt = pr->timeouts;

			/*
			 * A peer found bad already explains its own timeouts with r; one on a
			 * host that sent nothing in the window (its agent not started, or
			 * down) says nothing of r.
			 */
			if (a->tor[q] != a->tor[r] || host_of(a, q) == host_of(a, r) ||
			    a->bad_now[q] || !w->h[host_of(a, q)].alive ||
			    pp < (uint32_t)a->cfg.rnic_min_probes)
				continue;
			peers++;
			probes += pp;
			touts += tt;
			bad += tt > a->cfg.rnic_threshold * pp;
		}
		if (peers < (size_t)a->cfg.rnic_min_peers || bad < 2 ||
		    (double)bad < a->cfg.rnic_peer_share * (double)peers)
			continue;
		mark_bad(a, r, w, hold);
		verdict_head(a, w, "rnic", rnic_name(a, r, name, sizeof(name)), touts,
			     probes ? (double)touts / (double)probes : 0);
		out_uint(&a->o, PRINT_JSON, "peers", NULL, peers);
		out_uint(&a->o, PRINT_JSON, "bad_peers", NULL, bad);
		out_close(&a->o);
	}
}

/* Add n to every link and switch on path p, once each per gen (marked), into votes. */
static void on_path(const struct rpa *a, const struct path *p, uint32_t n, uint32_t *vl,
		    uint32_t *vs, uint32_t *mark_l, uint32_t *mark_s, uint32_t gen)
{
	const rec_link_t *links = NULL;
	int n_links = p ? az_plinks_get(&p->p, &a->routes, &links) : 0;

	for (int i = 0; i < n_links; i++) {
		const int32_t *sw = a->link_sw[links[i]];

		if (mark_l[links[i]] != gen) {
			mark_l[links[i]] = gen;
			vl[links[i]] += n;
		}
		for (int k = 0; k < 2; k++)
			if (sw[k] >= 0 && mark_s[sw[k]] != gen) {
				mark_s[sw[k]] = gen;
				vs[sw[k]] += n;
			}
	}
}

static void print_suspects(struct rpa *a, bool link, const struct cand *c, size_t n)
{
	az_suspects(&a->o, a->inv, VERDICT_K_SUSP, link, c, n, SUSPECTS);
}

/* What a window's abnormal probes could not say, and said only in part. */
struct tally_gaps {
	uint32_t unlocalized; /* neither direction's path known: no vote */
	uint32_t one_way;     /* voted with one direction's path unknown or incomplete */
};

/*
 * 3. Switch problems: each abnormal 5-tuple of two healthy RNICs votes for
 * the elements of its forward and its reverse path (a timeout: either; an
 * ACK2 loss: the reverse); OK probes of the same tuples exonerate.  With
 * slow, the same for OK probes whose RTT is over slow_us (the RTT spans
 * both directions too): congestion.
 */
static uint32_t tally(struct rpa *a, const struct window *w, const struct tup *t, size_t n,
		      bool slow, struct tally_gaps *gaps)
{
	size_t nl = a->inv->n_links, ns = a->inv->n_switches;
	uint32_t *ml = rl_xcalloc(nl + 1, sizeof(*ml)), *ms = rl_xcalloc(ns + 1, sizeof(*ms));
	uint32_t total = 0, gen = 0;

	memset(a->votes_l, 0, nl * sizeof(*a->votes_l));
	memset(a->good_l, 0, nl * sizeof(*a->good_l));
	memset(a->votes_s, 0, ns * sizeof(*a->votes_s));
	memset(a->good_s, 0, ns * sizeof(*a->good_s));
	*gaps = (struct tally_gaps){0};
	/*
	 * Two passes, the same sums: the abnormal tuples' votes first (a few), then,
	 * only when they reach min_votes and a verdict will be weighed, every
	 * tuple's good probes.  A healthy fabric's window looked every tuple's two
	 * paths up for nothing: at 10,000 hosts x 8 RNICs, seconds of cache misses.
	 */
	for (int pass = 0; pass < 2; pass++) {
		if (pass && total < (uint32_t)a->cfg.min_votes)
			break; /* vote_step() weighs nothing: the good probes are not asked */
		for (size_t i = 0; i < n; i++) {
			size_t s = (size_t)(t[i].key >> 40) - 1,
			       d = (size_t)(t[i].key >> 16 & 0xffffff);
			uint16_t sport = (uint16_t)t[i].key;
			uint32_t bad = slow ? t[i].slow : t[i].timeouts + t[i].ack2_lost,
				 good = slow ? t[i].ok - t[i].slow : t[i].ok;
			const struct path *fwd, *rev;
			bool fwd_known, rev_known;

			/* every tuple's two paths, a miss each in a table of a gigabyte: asked
			 * for PREFETCH tuples ahead */
			if (pass && i + PREFETCH < n)
				path_prefetch(a, t[i + PREFETCH].key);
			if (pass ? !good : !bad)
				continue;
			/*
			 * Nor do probes to a host that sent nothing in the window (no agent
			 * answers there), nor those of a host that stalled (host noise, step 0).
			 */
			if (bad_at(a, s, w) || bad_at(a, d, w) || !w->h[host_of(a, d)].alive ||
			    noise(a, w, s, d))
				continue;
			fwd = path_find(a, tkey(s, d, sport));
			rev = path_find(a, tkey(d, s, sport));
			gen++;
			if (pass) {
				on_path(a, fwd, good, a->good_l, a->good_s, ml, ms, gen);
				on_path(a, rev, good, a->good_l, a->good_s, ml, ms, gen);
				continue;
			}
			fwd_known = fwd && fwd->p.complete, rev_known = rev && rev->p.complete;
			if (!fwd_known && !rev_known) {
				gaps->unlocalized += bad;
				continue;
			}
			total += bad;
			if (!fwd_known || !rev_known)
				gaps->one_way += bad;
			if (slow || t[i].timeouts)
				on_path(a, fwd, slow ? bad : t[i].timeouts, a->votes_l, a->votes_s,
					ml, ms, gen);
			on_path(a, rev, bad, a->votes_l, a->votes_s, ml, ms, gen);
		}
	}
	free(ml);
	free(ms);
	return total;
}

/*
 * A congestion hotspot stands out: at least slow_share of the OK probes
 * through it were slow, and ten times the share of the rest of the fabric
 * (a scheduling stall on this 2-core machine delays probes everywhere).
 */
static bool hotspot(const struct rpa *a, const struct cand *top, uint32_t slow_all, uint64_t ok_all)
{
	double mine = (double)top->votes / ((double)top->votes + top->good + 1e-9);
	uint64_t rest_ok = ok_all > (uint64_t)top->votes + top->good
			       ? ok_all - (uint64_t)top->votes - top->good
			       : 0;
	double rest = rest_ok ? (double)(slow_all - top->votes) / (double)rest_ok : 0;

	return mine >= a->cfg.slow_share && mine >= 10 * rest;
}

static uint32_t vote_step(struct rpa *a, const struct window *w, const struct tup *t, size_t n,
			  bool slow, struct tally_gaps *gaps)
{
	size_t nl = a->inv->n_links, ns = a->inv->n_switches, kl, ks;
	uint32_t total = tally(a, w, t, n, slow, gaps);
	uint64_t ok_all = 0;
	struct cand *cl, *cs;
	const struct cand *top;
	bool link;
	char name[160];

	if (total < (uint32_t)a->cfg.min_votes)
		return total;
	for (int l = 0; l < RPM_LISTS; l++)
		ok_all += w->ok[l];
	cl = rl_xcalloc(nl + 1, sizeof(*cl));
	cs = rl_xcalloc(ns + 1, sizeof(*cs));
	kl = vote_rank(a->votes_l, a->good_l, nl, cl);
	ks = vote_rank(a->votes_s, a->good_s, ns, cs);
	/*
	 * A link only when it stands out by its votes alone: a pair blocked both
	 * ways ties its two host links (good probes apart), and the switch they
	 * meet at is the suspect both share.
	 */
	link = (kl == 1 || (kl > 1 && cl[0].votes > cl[1].votes)) || !vote_unique_top(cs, ks);
	top = link ? cl : cs;
	if ((link ? kl : ks) && (double)top->votes >= a->cfg.min_share * total &&
	    top->votes >= (uint32_t)(slow ? a->cfg.min_votes : 1) &&
	    (!slow || hotspot(a, top, total, ok_all))) {
		verdict_head(a, w,
			     slow   ? "congestion"
			     : link ? "switch-link"
				    : "switch",
			     vote_elem_name(a->inv, link, top->id, name, sizeof(name)), top->votes,
			     (double)top->votes / total);
		out_bool(&a->o, PRINT_JSON, "unique", NULL, vote_unique_top(top, link ? kl : ks));
		out_uint(&a->o, PRINT_JSON, "abnormal", NULL, total);
		print_suspects(a, link, top, link ? kl : ks);
		out_close(&a->o);
	}
	free(cl);
	free(cs);
	return total;
}

/* 4. Host processing: most of a host's answered probes (or answers) were slow in the host. */
static void host_step(struct rpa *a, const struct window *w)
{
	for (size_t h = 0; h < a->inv->n_hosts; h++) {
		const struct hostw *x = &w->h[h];
		bool prober = x->ok_sent >= 10 && 2 * x->slow_prober > x->ok_sent,
		     resp = x->ok_answered >= 10 && 2 * x->slow_resp > x->ok_answered;

		/* A host that was down lately: its agent's first answers on coming back are that.
		 */
		if ((!prober && !resp) || a->down_until[h] > w->at.start)
			continue;
		verdict_head(a, w, "host-processing", a->inv->hosts[h].name,
			     prober ? x->slow_prober : x->slow_resp,
			     prober ? (double)x->slow_prober / x->ok_sent
				    : (double)x->slow_resp / x->ok_answered);
		out_string(&a->o, PRINT_JSON, "side", NULL, prober ? "prober" : "responder");
		out_close(&a->o);
	}
}

static struct svch *svh_get(struct rpa *a, uint64_t key)
{
	struct svch *h;

	for (size_t i = 0; i < a->n_svh; i++)
		if (a->svh[i].key == key)
			return &a->svh[i];
	if (a->n_svh >= MAX_SERVICES)
		return NULL;
	h = RL_PUSH(a->svh, a->n_svh);
	h->key = key;
	return h;
}

/*
 * 5. Services: each flow an agent found, with what it sent in the window
 * against its best healthy window, and its own probes (its 5-tuple's, list
 * service): lost past svc-loss or slow for most, its path is in trouble.  A
 * flow that sends svc-degrade less than its best, or whose path is in
 * trouble, is impacted: network-related when its probes say so.  A flow's
 * first window and its last (it ended) set nothing and judge no rate.
 * Returns how many were impacted.
 */
static size_t service_step(struct rpa *a, const struct window *w, const struct tup *t, size_t n)
{
	double span = (double)(w->at.end - w->at.start) / 1e9;
	size_t impacted = 0;

	for (size_t i = 0; i < w->n_svc; i++) {
		const struct svcw *x = &w->svc[i];
		struct tup k = {.key = x->key};
		const struct tup *p = n ? bsearch(&k, t, n, sizeof(*t), tup_cmp) : NULL;
		size_t src = (size_t)(x->key >> 40) - 1, dst = (size_t)(x->key >> 16 & 0xffffff);
		uint32_t probes = p ? p->probes : 0, lost = p ? p->timeouts + p->ack2_lost : 0,
			 ok = p ? p->ok : 0, slow = p ? p->slow : 0;
		struct svch *h = svh_get(a, x->key);
		bool first = !h || h->last_end != w->at.start;
		double bps = (double)x->bytes * 8 / span;
		bool net = probes >= (uint32_t)a->cfg.min_votes &&
			   ((double)lost > a->cfg.svc_loss * probes || (ok && 2 * slow > ok));
		bool degraded = !first && !x->ended && h->best_bps > 0 &&
				bps < (1 - a->cfg.svc_degrade) * h->best_bps;
		char from[2 * INV_NAME_MAX + 2], to[2 * INV_NAME_MAX + 2];

		out_open_object(&a->o, NULL);
		out_string(&a->o, PRINT_JSON, "type", NULL, "service");
		out_string(&a->o, PRINT_JSON, "monitor", NULL, "rpingmesh");
		out_float(&a->o, PRINT_JSON, "start", NULL, 3, az_secs(w->at.start));
		out_float(&a->o, PRINT_JSON, "end", NULL, 3, az_secs(w->at.end));
		out_string(&a->o, PRINT_JSON, "from", NULL, rnic_name(a, src, from, sizeof(from)));
		out_string(&a->o, PRINT_JSON, "to", NULL, rnic_name(a, dst, to, sizeof(to)));
		out_uint(&a->o, PRINT_JSON, "sport", NULL, x->key & 0xffff);
		out_uint(&a->o, PRINT_JSON, "qpn", NULL, x->qpn);
		out_float(&a->o, PRINT_JSON, "rate_mbps", NULL, 3, bps / 1e6);
		out_float(&a->o, PRINT_JSON, "best_mbps", NULL, 3, h ? h->best_bps / 1e6 : 0);
		out_uint(&a->o, PRINT_JSON, "probes", NULL, probes);
		out_uint(&a->o, PRINT_JSON, "lost", NULL, lost);
		out_uint(&a->o, PRINT_JSON, "slow", NULL, slow);
		out_bool(&a->o, PRINT_JSON, "first", NULL, first);
		out_bool(&a->o, PRINT_JSON, "ended", NULL, x->ended);
		out_bool(&a->o, PRINT_JSON, "degraded", NULL, degraded);
		out_bool(&a->o, PRINT_JSON, "impacted", NULL, net || degraded);
		if (net || degraded)
			out_bool(&a->o, PRINT_JSON, "network_related", NULL, net);
		out_close(&a->o);
		impacted += net || degraded;
		if (!h)
			continue;
		h->last_end = w->at.end;
		if (!first && !x->ended && !net && !degraded && bps > h->best_bps)
			h->best_bps = bps;
	}
	return impacted;
}

static void sla(struct rpa *a, const struct window *w, uint32_t voted,
		const struct tally_gaps *gaps, uint32_t slow, size_t impacted)
{
	static const char *const ln[RPM_LISTS] = {"tor_mesh", "inter_tor", "service"};
	struct out *o = &a->o;
	uint64_t ok = 0;

	out_open_object(o, NULL);
	out_string(o, PRINT_JSON, "type", NULL, "window");
	out_string(o, PRINT_JSON, "monitor", NULL, "rpingmesh");
	out_float(o, PRINT_JSON, "start", NULL, 3, az_secs(w->at.start));
	out_float(o, PRINT_JSON, "end", NULL, 3, az_secs(w->at.end));
	out_uint(o, PRINT_JSON, "send_errors", NULL, w->send_errors);
	/* timeouts to hosts whose agents had not started: left out */
	out_uint(o, PRINT_JSON, "to_unstarted", NULL, w->unstarted);
	/* the lab's links on a traced probe path so far, of all its links */
	out_uint(o, PRINT_JSON, "links_covered", NULL, a->n_covered);
	out_uint(o, PRINT_JSON, "links", NULL, a->inv->n_links);
	out_uint(o, PRINT_JSON, "voted", NULL, voted);
	out_uint(o, PRINT_JSON, "unlocalized", NULL, gaps->unlocalized);
	/*
	 * Of the voted, those whose other direction's path was not known: a timeout
	 * is lost one way or the other, and such a probe votes for one way only.
	 */
	out_uint(o, PRINT_JSON, "voted_one_way", NULL, gaps->one_way);
	out_uint(o, PRINT_JSON, "slow_probes", NULL, slow);
	out_uint(o, PRINT_JSON, "services", NULL, w->n_svc);
	out_uint(o, PRINT_JSON, "services_impacted", NULL, impacted);
	for (int l = 0; l < RPM_LISTS; l++) {
		if (!w->probes[l])
			continue;
		ok += w->ok[l];
		out_open_object(o, ln[l]);
		out_uint(o, PRINT_JSON, "probes", NULL, w->probes[l]);
		out_uint(o, PRINT_JSON, "timeouts", NULL, w->timeouts[l]);
		out_uint(o, PRINT_JSON, "ack2_lost", NULL, w->ack2_lost[l]);
		out_uint(o, PRINT_JSON, "ok", NULL, w->ok[l]);
		az_percentiles(o, "rtt_us", w->rtt_h[l], w->ok[l]);
		out_close(o);
	}
	az_percentiles(o, "prober_us", w->prober_h, ok);
	az_percentiles(o, "responder_us", w->resp_h, ok);
	/* the agents' send lateness: how late after it was due each probe went (the rig) */
	az_percentiles(o, "send_late_us", w->late_h, w->n_late);
	out_close(o);
}

static void close_window(struct rpa *a, struct window *w)
{
	uint64_t hold = (uint64_t)a->cfg.rnic_hold_ms * NS_PER_MS;
	struct tup *t;
	const struct tup **by_src = rl_xcalloc(a->n_rnics + 1, sizeof(*by_src));
	size_t n = 0, *n_by_src = rl_xcalloc(a->n_rnics + 1, sizeof(*n_by_src));
	uint32_t voted, slow;
	struct tally_gaps gaps, slow_gaps;
	size_t impacted;
	struct adj j;

	a->tot.windows++;
	/* The window's tuples moved to the front of its table (no lookup follows), sorted. */
	for (size_t i = 0; i < w->cap; i++)
		if (w->t[i].key)
			w->t[n++] = w->t[i];
	t = w->t;
	a->last_tuples = n;
	tup_sort(t, n); /* by prober RNIC, then responder, then sport */
	for (size_t i = 0; i < n; i++) {
		size_t s = (size_t)(t[i].key >> 40) - 1;

		if (!n_by_src[s]++)
			by_src[s] = &t[i];
	}
	memset(a->bad_now, 0, a->n_rnics);
	for (size_t h = 0; h < a->inv->n_hosts; h++)
		w->h[h].stalled = w->h[h].max_prober_ns > (uint64_t)a->cfg.stall_us * 1000 ||
				  w->h[h].max_resp_ns > (uint64_t)a->cfg.stall_us * 1000;
	adj_build(a, w, t, n, &j);
	host_down(a, w, t, n, hold);
	host_quiet(a, w);
	rnic_step(a, w, by_src, n_by_src, &j, hold);
	adj_free(&j);
	voted = vote_step(a, w, t, n, false, &gaps);
	slow = vote_step(a, w, t, n, true, &slow_gaps);
	host_step(a, w);
	impacted = service_step(a, w, t, n);
	sla(a, w, voted, &gaps, slow, impacted);
	free(by_src);
	free(n_by_src);
	az_huge_free(w->t, w->cap * sizeof(*w->t));
	free(w->h);
	free(w->sent);
	free(w->send_err);
	free(w->seen);
	free(w->to_p);
	free(w->to_t);
	free(w->svc);
	*w = (struct window){0};
}

static void close_window_cb(void *ctx, void *w)
{
	close_window(ctx, w);
}

void rpa_tick(struct rpa *a, uint64_t now_ns)
{
	drain(a);
	a->now_ns = now_ns;
	az_ring_close(&a->ring, now_ns, false);
}

void rpa_flush(struct rpa *a)
{
	drain(a);
	az_ring_close(&a->ring, 0, true);
}

struct rpa *rpa_new(const struct inventory *inv, const struct rpa_cfg *cfg, FILE *out)
{
	struct rpa *a = rl_xcalloc(1, sizeof(*a));

	a->inv = inv;
	a->cfg = *cfg;
	out_init(&a->o, out, OUT_JSON_LINES);
	a->base = rl_xcalloc(inv->n_hosts + 1, sizeof(*a->base));
	for (size_t h = 0; h < inv->n_hosts; h++) {
		a->base[h] = a->n_rnics;
		a->n_rnics += inv->hosts[h].n_rnics;
	}
	/* 8 bytes a link, not the inventory's 72: every tuple's paths walk them */
	a->link_sw = rl_xcalloc(inv->n_links + 1, sizeof(*a->link_sw));
	for (size_t l = 0; l < inv->n_links; l++) {
		const struct inv_endpoint *ep[2] = {&inv->links[l].a, &inv->links[l].b};

		for (int k = 0; k < 2; k++)
			a->link_sw[l][k] = ep[k]->kind == INV_DEV_SWITCH ? (int32_t)ep[k]->dev : -1;
	}
	a->host = rl_xcalloc(a->n_rnics + 1, sizeof(*a->host));
	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t r = 0; r < inv->hosts[h].n_rnics; r++)
			a->host[a->base[h] + r] = (uint32_t)h;
	/*
	 * The bound grows with the lab: at 10,000 hosts x 8 RNICs a window holds 13
	 * million tuples of probers' own (each RNIC's 249 ToR-mesh targets and its
	 * inter-ToR ones, on their source ports), and 4 million turned half the
	 * probes away as if agents had flooded it.
	 */
	if (a->cfg.max_tuples < a->n_rnics * RPM_TUPLES_PER_RNIC)
		a->cfg.max_tuples = a->n_rnics * RPM_TUPLES_PER_RNIC;
	a->tor = rl_xcalloc(a->n_rnics + 1, sizeof(*a->tor));
	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t r = 0; r < inv->hosts[h].n_rnics; r++)
			a->tor[a->base[h] + r] = rpm_tor_of(inv, h, r);
	a->until = rl_xcalloc(a->n_rnics + 1, sizeof(*a->until));
	a->bad_now = rl_xcalloc(a->n_rnics + 1, 1);
	a->down_until = rl_xcalloc(inv->n_hosts + 1, sizeof(*a->down_until));
	a->first_seen = rl_xcalloc(inv->n_hosts + 1, sizeof(*a->first_seen));
	a->last_seen = rl_xcalloc(inv->n_hosts + 1, sizeof(*a->last_seen));
	a->stats_t = rl_xcalloc(inv->n_hosts + 1, sizeof(*a->stats_t));
	a->covered = rl_xcalloc(inv->n_links + 1, 1);
	a->order = rl_xcalloc(a->n_rnics + 1, sizeof(*a->order));
	a->share = rl_xcalloc(a->n_rnics + 1, sizeof(*a->share));
	a->votes_l = rl_xcalloc(inv->n_links + 1, sizeof(uint32_t));
	a->good_l = rl_xcalloc(inv->n_links + 1, sizeof(uint32_t));
	a->votes_s = rl_xcalloc(inv->n_switches + 1, sizeof(uint32_t));
	a->good_s = rl_xcalloc(inv->n_switches + 1, sizeof(uint32_t));
	az_ring_init(&a->ring, a->win, MAX_WINDOWS, sizeof(a->win[0]), cfg->window_ms,
		     cfg->grace_ms, a, win_open, close_window_cb);
	return a;
}

void rpa_free(struct rpa *a)
{
	if (!a)
		return;
	drain(a);
	az_pathset_free(&a->traced);
	for (int i = 0; i < MAX_WINDOWS; i++) {
		az_huge_free(a->win[i].t, a->win[i].cap * sizeof(*a->win[i].t));
		free(a->win[i].h);
		free(a->win[i].sent);
		free(a->win[i].send_err);
		free(a->win[i].seen);
		free(a->win[i].to_p);
		free(a->win[i].to_t);
		free(a->win[i].svc);
	}
	free(a->svh);
	free(a->base);
	free(a->host);
	free(a->link_sw);
	free(a->tor);
	free(a->until);
	free(a->bad_now);
	free(a->down_until);
	free(a->first_seen);
	free(a->last_seen);
	free(a->stats_t);
	free(a->covered);
	free(a->order);
	free(a->share);
	free(a->votes_l);
	free(a->good_l);
	free(a->votes_s);
	free(a->good_s);
	az_huge_free(a->paths, a->paths_cap * sizeof(*a->paths));
	az_routes_free(&a->routes);
	free(a);
}

void rpa_totals(const struct rpa *a, struct rpa_totals *t)
{
	drain((struct rpa *)a); /* the records in flight count: taken now (a is never const) */
	*t = a->tot;
}
