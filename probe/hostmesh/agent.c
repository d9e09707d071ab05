// SPDX-License-Identifier: MIT
/*
 * The Hostmesh agent (APNet'24 §3.3): every RNIC of the host probes a randomly
 * chosen other RNIC of the same host every interval, from a random source
 * port of a rotating pool, so ECMP spreads the probes over every rail, spine
 * and link of a rail-optimized fabric.  Per probe it measures the one-way
 * network latency ③-② and the end-host processing delay (④-①)-(③-②); a
 * probe not received within the timeout is a one-way drop.  Every 5-tuple in
 * use is traced (same 5-tuple, rising TTL, ICMP time exceeded), within a
 * trace budget, and its hops are mapped to inventory links.  Results stream
 * as compact records (hmrec.h) to the analyzer.
 *
 * One thread and one poll loop serve all RNICs (the paper uses two threads
 * per RNIC); the work per probe is a few system calls, so one loop keeps the
 * overhead lowest and the timestamps comparable.
 */
#define _GNU_SOURCE
#include "probe/hostmesh/hostmesh.h"

#include "harness/lib/common.h"
#include "harness/lib/topo.h"
#include "probe/agentcore.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/pathmap.h"
#include "probe/recout.h"
#include "probe/tracer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FDS	     64
#define NS_PER_MS    1000000ULL
#define TRACE_COOKIE AGENT_TRACE_COOKIE

void hm_agent_defaults(struct hm_agent_cfg *c)
{
	*c = (struct hm_agent_cfg){.interval_ms = 100, .pool = 16};
	agent_cfg_defaults(&c->a);
}

/* ---- payload --------------------------------------------------------------- */

static void le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, (uint16_t)v);
	le16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | (uint32_t)rd16(p + 2) << 16;
}

void hm_payload_encode(const struct hm_payload *p, uint8_t out[HM_PAYLOAD_LEN])
{
	memset(out, 0, HM_PAYLOAD_LEN);
	le32(out, HM_PAYLOAD_MAGIC);
	out[4] = HM_VERSION;
	out[5] = p->kind;
	out[6] = p->src;
	out[7] = p->dst;
	le32(out + 8, p->nonce);
	le32(out + 12, p->id);
	out[16] = p->ttl;
	le16(out + 18, p->sport);
	le32(out + 20, (uint32_t)p->t1_ns);
	le32(out + 24, (uint32_t)(p->t1_ns >> 32));
}

int hm_payload_decode(const uint8_t *b, size_t len, struct hm_payload *p)
{
	if (len < HM_PAYLOAD_LEN || rd32(b) != HM_PAYLOAD_MAGIC || b[4] != HM_VERSION ||
	    b[5] > HM_KIND_TRACE)
		return -EPROTO;
	p->kind = b[5];
	p->src = b[6];
	p->dst = b[7];
	p->nonce = rd32(b + 8);
	p->id = rd32(b + 12);
	p->ttl = b[16];
	p->sport = rd16(b + 18);
	p->t1_ns = rd32(b + 20) | (uint64_t)rd32(b + 24) << 32;
	return 0;
}

/* ---- state ----------------------------------------------------------------- */

struct pending {
	bool used;
	uint8_t dst;
	uint16_t sport, ip_id;
	uint32_t id;
	uint64_t t1, t2; /* the send and ② (CLOCK_REALTIME ns) */
	/*
	 * ① is when the probe was due: the send, less how late the agent came to
	 * its round.  A probe its host kept from the CPU was delayed by the host,
	 * as one that waits to be read is: both are the host's processing delay.
	 */
	uint64_t late;
	bool t2_kernel, t2_hw;
};

struct rnic_state {
	const struct inv_rnic *r;
	struct pt_port *port;
	struct pt_port *tracer; /* send-only udp port for traces when port cannot set TTLs */
	uint32_t qpn;
	unsigned long long next_send; /* monotonic ns (rn[0]'s is the host's round timer) */
	uint32_t next_id;
	struct pending *ring;
	size_t ring_n;
};

struct agent {
	struct agent_core c;		/* its host, RNICs, tracer, records out, counters */
	const struct hm_agent_cfg *cfg; /* its transport resolved */
	struct rnic_state *rn;

	uint16_t *pool;
	unsigned long long *born;
	unsigned long long *traced; /* [src][dst][slot]: monotonic ns of the last trace, 0: never */
	uint8_t *hops;		    /* [src][dst]: switch hops last seen, 0: unknown */
	/* Its sockets in one epoll set (agentcore.h): the RNICs' and ICMP's for its life, the
	 * analyzer's connection as it comes and goes (cw). */
	int epfd;
	struct agent_conn_watch cw;
};

/* Owners of the descriptors in the epoll set: RNIC s is s itself. */
#define OWN_ICMP SIZE_MAX
#define OWN_OUT	 (SIZE_MAX - 1)

static size_t tuple_ix(const struct agent *a, size_t s, size_t d, int slot)
{
	return (s * a->c.n + d) * (size_t)a->cfg->pool + (size_t)slot;
}

/* A trace job's key: the 5-tuple (src RNIC, dst RNIC, the pool's source port). */
static uint64_t trace_key(size_t s, size_t d, uint16_t sport)
{
	return (uint64_t)s << 32 | (uint64_t)d << 16 | sport;
}

static void emit(struct agent *a, uint16_t type, const void *body, uint16_t len)
{
	recout_emit(&a->c.out, type, body, len);
}

static void hello_frame(const struct agent *a, void *buf)
{
	struct {
		struct rec_frame h;
		struct hm_hello b;
	} __attribute__((packed)) m = {{HM_HELLO, sizeof(struct hm_hello)}};

	agent_core_hello(&a->c, &m.b.head, HM_MAGIC, HM_VERSION, a->cfg->a.transport);
	m.b.interval_us = (uint32_t)(a->cfg->interval_ms * 1000);
	m.b.timeout_us = (uint32_t)(a->cfg->a.timeout_ms * 1000);
	memcpy(buf, &m, sizeof(m));
}
#define HELLO_LEN (sizeof(struct rec_frame) + sizeof(struct hm_hello))

/* ---- probing ------------------------------------------------------------------ */

/* A time for a record: on the analyzer's clock (the run measured this host's offset). */
static uint64_t rec_time(const struct agent *a, uint64_t t)
{
	return t - (uint64_t)a->cfg->a.clock_offset_ns;
}

static void emit_probe(struct agent *a, size_t src, const struct pending *p, uint8_t status,
		       uint64_t t3, uint64_t t4, enum pt_ts rx_ts, uint8_t ttl, uint8_t tos)
{
	struct hm_probe r = {.t_send_ns = rec_time(a, p->t1),
			     .sport = p->sport,
			     .ip_id = p->ip_id,
			     .src = (uint8_t)src,
			     .dst = p->dst,
			     .status = status,
			     .ttl = ttl,
			     .tos = tos,
			     .late_10us =
				 p->late / 10000 > 65535 ? 65535 : (uint16_t)(p->late / 10000)};

	if (status == HM_OK) {
		uint64_t net = t3 > p->t2 ? t3 - p->t2 : 0;
		uint64_t total = t4 > p->t1 ? t4 - p->t1 + p->late : p->late;
		uint64_t proc = total > net ? total - net : 0;

		r.net_ns = net > UINT32_MAX ? UINT32_MAX : (uint32_t)net;
		r.proc_ns = proc > UINT32_MAX ? UINT32_MAX : (uint32_t)proc;
		r.flags = (uint8_t)((p->t2_kernel ? HM_F_TX_KERNEL : 0) |
				    (rx_ts == PT_TS_KERNEL ? HM_F_RX_KERNEL : 0) |
				    (p->t2_hw && rx_ts == PT_TS_HW ? HM_F_HW : 0) |
				    ((tos & 3) == 3 ? HM_F_ECN_CE : 0));
	} else if (status == HM_TIMEOUT) {
		a->c.st.timeouts++;
	} else {
		a->c.st.send_errors++;
	}
	emit(a, HM_PROBE, &r, sizeof(r));
}

static void send_probe(struct agent *a, size_t s, uint64_t late)
{
	struct rnic_state *rs = &a->rn[s];
	size_t d = (s + 1 + (size_t)random() % (a->c.n - 1)) % a->c.n;
	int slot = (int)((unsigned)random() % (unsigned)a->cfg->pool);
	uint32_t id = rs->next_id++;
	struct pending *p = &rs->ring[id % rs->ring_n];
	struct hm_payload pl = {.kind = HM_KIND_PROBE,
				.src = (uint8_t)s,
				.dst = (uint8_t)d,
				.nonce = a->c.nonce,
				.id = id,
				.sport = a->pool[slot]};
	struct pt_dst dst = {a->rn[d].r->addr.addr, a->rn[d].qpn};
	uint8_t buf[HM_PAYLOAD_LEN];
	uint16_t used = 0, ipid = 0;
	int r;

	if (p->used) /* older than ring_n intervals: past its timeout */
		emit_probe(a, s, p, HM_TIMEOUT, 0, 0, PT_TS_APP, 0, 0);
	*p = (struct pending){
	    .used = true, .dst = (uint8_t)d, .sport = pl.sport, .id = id, .late = late};
	p->t1 = pl.t1_ns = rl_realtime_ns();
	hm_payload_encode(&pl, buf);
	p->t2 = rl_realtime_ns();
	r = a->cfg->a.transport->send(rs->port, &dst, pl.sport, 64, buf, sizeof(buf),
				      (uint64_t)s << 40 | id, &used, &ipid);
	a->c.st.probes++;
	if (r) {
		rl_dbg("agent: %s -> %s: send: %s", rs->r->name, a->rn[d].r->name, strerror(-r));
		emit_probe(a, s, p, HM_SEND_ERROR, 0, 0, PT_TS_APP, 0, 0);
		p->used = false;
		return;
	}
	a->c.st.tx_pkts++;
	a->c.st.tx_bytes += REC_WIRE_BYTES(sizeof(buf));
	p->sport = used;
	p->ip_id = ipid;
}

static void drain(struct agent *a);

/*
 * Probes unanswered for the timeout are drops.  What arrived while the agent
 * was not looking is read first: an agent descheduled on a busy host found
 * its answers waiting in the socket, and had counted them lost.
 */
static void expire(struct agent *a, uint64_t now_rt)
{
	uint64_t tmo = (uint64_t)a->cfg->a.timeout_ms * NS_PER_MS;
	bool due = false;

	for (size_t s = 0; s < a->c.n && !due; s++)
		for (size_t i = 0; i < a->rn[s].ring_n && !due; i++)
			due = a->rn[s].ring[i].used && now_rt - a->rn[s].ring[i].t1 > tmo;
	if (!due)
		return;
	drain(a);
	for (size_t s = 0; s < a->c.n; s++)
		for (size_t i = 0; i < a->rn[s].ring_n; i++) {
			struct pending *p = &a->rn[s].ring[i];

			if (p->used && now_rt - p->t1 > tmo) {
				emit_probe(a, s, p, HM_TIMEOUT, 0, 0, PT_TS_APP, 0, 0);
				p->used = false;
			}
		}
}

struct rx_ctx {
	struct agent *a;
	size_t rnic;
};

/* The probe a send cookie names while it is pending (RNIC index in *s), or NULL. */
static struct pending *pending_of(struct agent *a, uint64_t cookie, size_t *s)
{
	uint32_t id = (uint32_t)cookie;
	struct pending *p;

	*s = (size_t)(cookie >> 40);
	if (cookie & TRACE_COOKIE || *s >= a->c.n)
		return NULL;
	p = &a->rn[*s].ring[id % a->rn[*s].ring_n];
	return p->used && p->id == id ? p : NULL;
}

static void on_tx(void *ctx, uint64_t cookie, uint64_t tx_ns, enum pt_ts ts)
{
	size_t s;
	struct pending *p = pending_of(((struct rx_ctx *)ctx)->a, cookie, &s);

	if (p && (ts == PT_TS_KERNEL || ts == PT_TS_HW)) {
		p->t2 = tx_ns;
		p->t2_kernel = ts == PT_TS_KERNEL;
		p->t2_hw = ts == PT_TS_HW;
	}
}

/* A probe whose send completed in error never left: a send failure of its RNIC. */
static void on_tx_failed(void *ctx, uint64_t cookie, int err)
{
	struct agent *a = ((struct rx_ctx *)ctx)->a;
	size_t s;
	struct pending *p = pending_of(a, cookie, &s);

	if (!p)
		return;
	rl_dbg("agent: %s -> %s: send completion: %s", a->rn[s].r->name, a->rn[p->dst].r->name,
	       strerror(-err));
	emit_probe(a, s, p, HM_SEND_ERROR, 0, 0, PT_TS_APP, 0, 0);
	p->used = false;
}

/* Send completions only (before any receive: a probe's ② must be in before its ③). */
static const struct pt_events tx_events = {on_tx, NULL, NULL, on_tx_failed};

static void on_rx(void *ctx, const struct pt_rx *rx)
{
	struct rx_ctx *c = ctx;
	struct agent *a = c->a;
	struct hm_payload pl;
	struct pending *p;
	uint64_t t4 = rl_realtime_ns();

	if (hm_payload_decode(rx->payload, rx->len, &pl) || pl.nonce != a->c.nonce ||
	    pl.src >= a->c.n || pl.dst != c->rnic ||
	    a->rn[pl.src].r->addr.addr.s_addr != rx->src.s_addr) {
		a->c.st.foreign++;
		return;
	}
	if (pl.kind == HM_KIND_TRACE) {
		tracer_reached(&a->c.tr, trace_key(pl.src, pl.dst, pl.sport), pl.ttl);
		return;
	}
	p = &a->rn[pl.src].ring[pl.id % a->rn[pl.src].ring_n];
	/* rx->sport 0: the transport cannot see the UDP header (verbs on a NIC other than rxe). */
	if (!p->used || p->id != pl.id || (rx->sport && p->sport != rx->sport) ||
	    p->dst != pl.dst) {
		a->c.st.foreign++; /* late (already timed out), duplicated or forged */
		return;
	}
	emit_probe(a, pl.src, p, HM_OK, rx->rx_ns, t4, rx->rx_ts, rx->ttl, rx->tos);
	p->used = false;
}

static void on_bad(void *ctx, int reason)
{
	agent_core_bad(&((struct rx_ctx *)ctx)->a->c, reason);
}

/* Everything queued on every port, send completions first; never waits. */
static void drain(struct agent *a)
{
	static const struct pt_events ev = {on_tx, on_rx, on_bad, on_tx_failed};

	for (size_t s = 0; s < a->c.n; s++) {
		struct rx_ctx c = {a, s};

		a->cfg->a.transport->poll_tx(a->rn[s].port, &tx_events, &c);
		a->cfg->a.transport->poll(a->rn[s].port, &ev, &c);
	}
}

/* ---- source port pool ---------------------------------------------------------- */

static bool in_pool(const struct agent *a, uint16_t port)
{
	for (int i = 0; i < a->cfg->pool; i++)
		if (a->pool[i] == port)
			return true;
	return false;
}

static void new_port(struct agent *a, int slot, unsigned long long now)
{
	uint16_t p;

	do
		p = (uint16_t)(49152 + (unsigned)random() % 16384);
	while (in_pool(a, p));
	a->pool[slot] = p;
	a->born[slot] = now;
	for (size_t s = 0; s < a->c.n; s++)
		for (size_t d = 0; d < a->c.n; d++)
			a->traced[tuple_ix(a, s, d, slot)] = 0;
}

/* Replace the oldest quarter of the pool, so 5-tuple specific faults show over time. */
static void rotate(void *ctx, unsigned long long now)
{
	struct agent *a = ctx;
	int k = a->cfg->pool / 4 ? a->cfg->pool / 4 : 1;

	for (int i = 0; i < k; i++) {
		int old = 0;

		for (int s = 1; s < a->cfg->pool; s++)
			if (a->born[s] < a->born[old])
				old = s;
		new_port(a, old, now);
	}
	a->c.trace_idle_until = 0;
	rl_dbg("agent: rotated %d source ports", k);
}

/* ---- path tracing ---------------------------------------------------------------- */

struct trace_pl {
	struct agent *a;
	size_t s, d;
	uint16_t sport;
};

static size_t trace_payload(void *ctx, int ttl, uint8_t *buf)
{
	struct trace_pl *c = ctx;
	struct hm_payload pl = {.kind = HM_KIND_TRACE,
				.src = (uint8_t)c->s,
				.dst = (uint8_t)c->d,
				.ttl = (uint8_t)ttl,
				.nonce = c->a->c.nonce,
				.sport = c->sport,
				.t1_ns = rl_realtime_ns()};

	hm_payload_encode(&pl, buf);
	return HM_PAYLOAD_LEN;
}

static void start_trace(struct agent *a, struct tr_job *j, size_t s, size_t d, int slot,
			unsigned long long now)
{
	struct pt_dst dst = {a->rn[d].r->addr.addr, a->rn[d].qpn};
	struct trace_pl c = {a, s, d, a->pool[slot]};
	/* Known hop count: TTL 1..hops+1 (the last reaches the destination); else all. */
	int known = a->hops[s * a->c.n + d],
	    top = known && known < a->cfg->a.max_ttl ? known + 1 : a->cfg->a.max_ttl;

	agent_core_trace(&a->c, j, trace_key(s, d, c.sport), a->cfg->a.transport, a->rn[s].port,
			 a->rn[s].tracer, a->rn[s].r->addr.addr, &dst, c.sport, top, trace_payload,
			 &c, now);
	a->traced[tuple_ix(a, s, d, slot)] = now;
}

static void finish_trace(void *ctx, struct tr_job *t)
{
	struct agent *a = ctx;
	size_t s = (size_t)(t->key >> 32), d = (size_t)(t->key >> 16 & 0xffff);
	uint16_t sport = (uint16_t)t->key;
	struct hm_path p = {.t_ns = rec_time(a, rl_realtime_ns()),
			    .sport = t->wire_sport,
			    .src = (uint8_t)s,
			    .dst = (uint8_t)d};
	struct inv_endpoint src = {INV_DEV_HOST, a->c.host, s}, dst = {INV_DEV_HOST, a->c.host, d};
	int n_hops = tracer_hops(t), n_links = 0;
	rec_link_t links[HM_MAX_LINKS] = {0};
	bool ok;

	ok = pathmap_links(a->c.inv, a->c.topo, &src, &dst, t->hops, n_hops, t->reached_ttl > 0,
			   links, HM_MAX_LINKS, &n_links);
	memcpy(p.links, links, sizeof(links));
	p.n_hops = (uint8_t)n_hops;
	p.n_links = (uint8_t)n_links;
	p.complete = ok;
	for (int i = 0; i < n_hops; i++)
		p.hops[i] = t->hops[i].s_addr;
	a->hops[s * a->c.n + d] = ok ? (uint8_t)n_hops : 0;
	if (ok)
		a->c.st.traces_complete++;
	else /* try again sooner than a good path is refreshed (unless the slot rotated) */
		for (int k = 0; k < a->cfg->pool; k++)
			if (a->pool[k] == sport)
				a->traced[tuple_ix(a, s, d, k)] -=
				    (unsigned long long)a->cfg->a.trace_refresh_ms * NS_PER_MS * 3 /
				    4;
	a->c.trace_idle_until = 0;
	/* The slot may have been rotated while tracing: the record names the sport, so it stays
	 * true. */
	emit(a, HM_PATH, &p, sizeof(p));
}

/* Pick the tuple most in need of a trace: never traced first, then the stalest. */
static bool next_tuple(struct agent *a, unsigned long long now, size_t *ps, size_t *pd, int *pslot)
{
	unsigned long long refresh = (unsigned long long)a->cfg->a.trace_refresh_ms * NS_PER_MS;
	unsigned long long best = ULLONG_MAX;
	bool found = false;

	for (size_t s = 0; s < a->c.n; s++)
		for (size_t d = 0; d < a->c.n; d++) {
			if (s == d)
				continue;
			for (int k = 0; k < a->cfg->pool; k++) {
				unsigned long long t = a->traced[tuple_ix(a, s, d, k)];

				if (t && now - t < refresh)
					continue;
				if (t < best &&
				    !tracer_busy(&a->c.tr, trace_key(s, d, a->pool[k]))) {
					best = t;
					*ps = s, *pd = d, *pslot = k;
					found = true;
				}
			}
		}
	return found;
}

static bool trace_next(void *ctx, struct tr_job *j, unsigned long long now)
{
	struct agent *a = ctx;
	size_t s, d;
	int slot;

	if (!next_tuple(a, now, &s, &d, &slot))
		return false;
	start_trace(a, j, s, d, slot, now);
	return true;
}

/* ---- main loop ------------------------------------------------------------------- */

static struct pt_port *port_of(void *ctx, size_t i)
{
	return ((struct agent *)ctx)->rn[i].port;
}

static void emit_stats(void *ctx)
{
	struct agent *a = ctx;

	agent_core_stats(&a->c, a->cfg->a.transport, port_of, a, "probes",
			 rec_time(a, rl_realtime_ns()));
}

static int setup(void *ctx, const struct inventory *inv, void *own)
{
	struct agent *a = ctx;
	struct hm_agent_cfg *cfg = own;
	const struct inv_host *h;
	unsigned long long now = rl_now_ns();
	uint8_t hello[HELLO_LEN];
	char err[256];
	int r;

	a->cfg = cfg;
	a->epfd = a->cw.fd = -1; /* before any way out: teardown closes what is not -1 */
	r = agent_core_setup(&a->c, inv, &cfg->a, HM_DEFAULT_PORT, 2, 64,
			     "Hostmesh probes between 2 to 64 RNICs of one host");
	if (r)
		return r;
	h = a->c.h;
	a->rn = rl_xcalloc(a->c.n, sizeof(*a->rn));
	for (size_t i = 0; i < a->c.n; i++) {
		struct rnic_state *rs = &a->rn[i];
		struct pt_cfg pc = agent_core_port_cfg(&a->c, i, 0x100 + (uint32_t)i);

		pc.sports = cfg->pool;
		rs->r = &h->rnics[i];
		rs->ring_n = (size_t)(cfg->a.timeout_ms / cfg->interval_ms) + 8;
		rs->ring = rl_xcalloc(rs->ring_n, sizeof(*rs->ring));
		rs->next_send = now;
		r = cfg->a.transport->open(&pc, &rs->port, err, sizeof(err));
		if (r) {
			rl_err("agent: %s:%s: %s", h->name, rs->r->name, err);
			return RL_EXIT_SETUP;
		}
		rs->qpn = cfg->a.transport->qpn(rs->port);
		if (!cfg->a.transport->traces) {
			pc.share_port = pc.send_only = true;
			pc.qpn = rs->qpn;
			r = pt_udp_ops.open(&pc, &rs->tracer, err, sizeof(err));
			if (r)
				rl_warn(
				    "agent: %s:%s: no path tracer, paths will not be traced: %s",
				    h->name, rs->r->name, err);
		}
		if (cfg->a.transport->describe)
			rl_info("agent: %s:%s: %s", h->name, rs->r->name,
				cfg->a.transport->describe(rs->port, err, sizeof(err)));
	}
	for (size_t s = 0; cfg->a.transport->prepare && s < a->c.n; s++)
		for (size_t d = 0; d < a->c.n; d++) {
			struct pt_dst dst = {a->rn[d].r->addr.addr, a->rn[d].qpn};
			r = d == s ? 0 : cfg->a.transport->prepare(a->rn[s].port, &dst);
			if (r)
				rl_warn("agent: %s:%s -> %s: %s (probes will say whether it lasts)",
					h->name, a->rn[s].r->name, a->rn[d].r->name, strerror(-r));
		}
	a->pool = rl_xcalloc((size_t)cfg->pool, sizeof(*a->pool));
	a->born = rl_xcalloc((size_t)cfg->pool, sizeof(*a->born));
	a->traced = rl_xcalloc(a->c.n * a->c.n * (size_t)cfg->pool, sizeof(*a->traced));
	a->hops = rl_xcalloc(a->c.n * a->c.n, sizeof(*a->hops));
	for (int k = 0; k < cfg->pool; k++)
		new_port(a, k, now - (unsigned long long)(cfg->pool - k));
	hello_frame(a, hello);
	r = agent_core_open(&a->c, hello, sizeof(hello), now);
	if (!r && (r = agent_core_watch(&a->c, cfg->a.transport, port_of, a, OWN_ICMP, &a->epfd))) {
		rl_err("agent: epoll: %s", strerror(-r));
		return RL_EXIT_SETUP;
	}
	if (!r)
		rl_info("agent: %s: probing %zu RNICs every %lld ms (timeout %lld ms, %d source "
			"ports, %s)",
			h->name, a->c.n, cfg->interval_ms, cfg->a.timeout_ms, cfg->pool, a->c.how);
	return r;
}

static void teardown(void *ctx)
{
	struct agent *a = ctx;

	for (size_t i = 0; a->rn && i < a->c.n; i++) {
		if (a->rn[i].port)
			a->cfg->a.transport->close(a->rn[i].port);
		if (a->rn[i].tracer)
			pt_udp_ops.close(a->rn[i].tracer);
		free(a->rn[i].ring);
	}
	free(a->rn);
	free(a->pool);
	free(a->born);
	free(a->traced);
	free(a->hops);
	if (a->epfd >= 0)
		close(a->epfd);
	agent_core_teardown(&a->c);
}

/*
 * Every RNIC probes once per interval, all in the same wake-up: one timer
 * for the host instead of one per RNIC keeps the agent asleep (and cheap)
 * between rounds.  The interval is jittered by +-10%.
 */
static unsigned long long tick(void *ctx, unsigned long long now, unsigned long long next)
{
	struct agent *a = ctx;
	const struct hm_agent_cfg *cfg = a->cfg;

	if (now >= a->rn[0].next_send) {
		long long jit = cfg->interval_ms / 10;
		unsigned long long step =
		    (unsigned long long)(cfg->interval_ms - jit +
					 (jit ? random() % (2 * jit + 1) : 0)) *
		    NS_PER_MS;

		for (size_t s = 0; s < a->c.n; s++) {
			struct rx_ctx c = {a, s};

			send_probe(a, s, now - a->rn[0].next_send);
			/* Its send completion now: no separate wake-up for it. */
			cfg->a.transport->poll_tx(a->rn[s].port, &tx_events, &c);
		}
		a->rn[0].next_send += step;
		if (a->rn[0].next_send < now)
			a->rn[0].next_send = now + step;
	}
	if (a->rn[0].next_send < next)
		next = a->rn[0].next_send;
	expire(a, rl_realtime_ns());
	return next;
}

/* The epoll set (the RNICs' ports, the tracer's and the stream's sockets) until next; then
 * what came. */
static void wait_once(void *ctx, unsigned long long now, unsigned long long next)
{
	struct agent *a = ctx;
	const struct hm_agent_cfg *cfg = a->cfg;
	struct epoll_event ev[MAX_FDS];
	unsigned long long wait = next > now ? next - now : 0;
	struct pollfd p;
	int n;

	agent_watch_conn(a->epfd, &a->cw, OWN_OUT, recout_pollfd(&a->c.out, &p) ? &p : NULL,
			 a->c.out.conns);
	/* To the nanosecond: how late a round starts is part of its probes' ① (send_probe). */
	n = epoll_pwait2(a->epfd, ev, MAX_FDS,
			 &(struct timespec){(time_t)(wait / (1000 * NS_PER_MS)),
					    (long)(wait % (1000 * NS_PER_MS))},
			 NULL);
	/*
	 * Send completions first: a probe's ② must be in before its ③ is taken.
	 * A completion is queued when the packet leaves, before it can arrive,
	 * so this wait already reports it.
	 */
	for (int i = 0; i < n; i++) {
		size_t o = (size_t)ev[i].data.u64;
		struct rx_ctx c = {a, o};

		if (o < a->c.n)
			cfg->a.transport->poll_tx(a->rn[o].port, &tx_events, &c);
	}
	for (int i = 0; i < n; i++) {
		size_t o = (size_t)ev[i].data.u64;

		if (o == OWN_ICMP) {
			tracer_icmp(&a->c.tr);
		} else if (o == OWN_OUT) {
			recout_event(&a->c.out, agent_poll_revents(ev[i].events));
		} else if (o < a->c.n && ev[i].events & EPOLLIN) {
			struct rx_ctx c = {a, o};
			static const struct pt_events pev = {on_tx, on_rx, on_bad, on_tx_failed};

			cfg->a.transport->poll(a->rn[o].port, &pev, &c);
		}
	}
}

const struct agent_loop hm_agent_loop = {.setup = setup,
					 .agent_size = sizeof(struct agent),
					 .teardown = teardown,
					 .tick = tick,
					 .trace_done = finish_trace,
					 .trace_next = trace_next,
					 .rotate = rotate,
					 .stats = emit_stats,
					 .wait = wait_once};
