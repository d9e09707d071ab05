// SPDX-License-Identifier: MIT
/* R-Pingmesh's probe payload, timestamp arithmetic and pending probes (rpm.h). */
#include "probe/rpingmesh/rpm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16)), put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32)), put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/*
 * 0 magic | 4 version kind list ttl | 8 src_host dst_host | 12 src_rnic
 * dst_rnic sport | 16 nonce | 20 id | 24 T1 | 32 T3 | 40 T4
 */
size_t rpm_encode(const struct rpm_msg *m, uint8_t *buf)
{
	put32(buf, RPM_MAGIC);
	buf[4] = RPM_VERSION, buf[5] = m->kind, buf[6] = m->list, buf[7] = m->ttl;
	put16(buf + 8, m->src_host), put16(buf + 10, m->dst_host);
	buf[12] = m->src_rnic, buf[13] = m->dst_rnic;
	put16(buf + 14, m->sport);
	put32(buf + 16, m->nonce), put32(buf + 20, m->id);
	put64(buf + 24, m->t1), put64(buf + 32, m->t3), put64(buf + 40, m->t4);
	return RPM_PAYLOAD_LEN;
}

int rpm_decode(const uint8_t *buf, size_t len, struct rpm_msg *m)
{
	if (len < 8)
		return -EMSGSIZE;
	if (get32(buf) != RPM_MAGIC || buf[4] != RPM_VERSION || buf[5] < RPM_PROBE ||
	    buf[5] > RPM_TRACE_ACK || buf[6] >= RPM_LISTS)
		return -EPROTO;
	if (len < RPM_PAYLOAD_LEN)
		return -EMSGSIZE;
	*m = (struct rpm_msg){.kind = buf[5],
			      .list = buf[6],
			      .ttl = buf[7],
			      .src_host = get16(buf + 8),
			      .dst_host = get16(buf + 10),
			      .src_rnic = buf[12],
			      .dst_rnic = buf[13],
			      .sport = get16(buf + 14),
			      .nonce = get32(buf + 16),
			      .id = get32(buf + 20),
			      .t1 = get64(buf + 24),
			      .t3 = get64(buf + 32),
			      .t4 = get64(buf + 40)};
	return 0;
}

void rpm_ack(const struct rpm_msg *p, bool ack2, uint64_t t3, uint64_t t4, struct rpm_msg *a)
{
	*a = *p;
	a->kind = ack2 ? RPM_ACK2 : RPM_ACK1;
	a->t3 = t3;
	a->t4 = ack2 ? t4 : 0;
}

int rpm_respond(const uint8_t *buf, size_t len, uint16_t host, uint8_t rnic, uint8_t ttl,
		uint64_t t3, struct rpm_msg *ack1, struct rpm_resp_stats *st)
{
	struct rpm_msg m;
	int r = rpm_decode(buf, len, &m);

	if (r) {
		if (r == -EMSGSIZE)
			st->short_msg++;
		else
			st->foreign++;
		return r;
	}
	if (m.kind != RPM_PROBE) {
		st->not_probe++; /* an ACK or a trace at a responder: a prober's, misdelivered */
		return -EPROTO;
	}
	if (m.dst_host != host || m.dst_rnic != rnic) {
		st->misaddressed++;
		return -EDESTADDRREQ;
	}
	rpm_ack(&m, false, t3, 0, ack1);
	ack1->ttl = ttl;
	st->answered++;
	return 0;
}

const char *rpm_status_name(enum rpm_status s)
{
	static const char *const n[] = {"ok", "timeout", "ack2-lost", "send-error", "invalid"};

	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

/* b - a within one clock, when both were taken and it lies in [0, max]; -1 otherwise. */
static int64_t span(uint64_t a, uint64_t b, int64_t max)
{
	if (!a || !b || b < a || b - a > (uint64_t)max)
		return -1;
	return (int64_t)(b - a);
}

void rpm_compute(const struct rpm_times *t, bool ack2, struct rpm_result *r)
{
	int64_t p_rnic = span(t->t2, t->t5, RPM_RTT_MAX_NS); /* P's RNIC: probe out, ACK1 in */
	int64_t p_host = span(t->t1, t->t6, RPM_RTT_MAX_NS); /* P's app: before send, ACK1 taken */
	int64_t resp = ack2 ? span(t->t3, t->t4, RPM_DELAY_MAX_NS) : -1; /* R's RNIC */

	*r = (struct rpm_result){
	    .status = RPM_INVALID, .rtt_ns = -1, .prober_ns = -1, .responder_ns = -1};
	/* the app's span holds the RNIC's: it was taken before the send and after the receive */
	if (p_rnic < 0 || p_host < p_rnic || p_host - p_rnic > RPM_DELAY_MAX_NS)
		return;
	if (ack2 && (resp < 0 || resp > p_rnic))
		return;
	r->prober_ns = p_host - p_rnic;
	if (!ack2) {
		r->status = RPM_ACK2_LOST;
		return;
	}
	r->responder_ns = resp;
	r->rtt_ns = p_rnic - resp;
	r->status = RPM_OK;
}

struct rpm_pend *rpm_pend_new(uint32_t nonce, size_t cap, uint64_t timeout_ns)
{
	struct rpm_pend *pt;

	if (!cap) {
		errno = EINVAL;
		return NULL;
	}
	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return NULL;
	pt->slot = calloc(cap, sizeof(*pt->slot));
	if (!pt->slot) {
		free(pt);
		return NULL;
	}
	pt->nonce = nonce;
	pt->cap = cap;
	pt->timeout_ns = timeout_ns;
	pt->oldest = UINT64_MAX;
	return pt;
}

void rpm_pend_free(struct rpm_pend *pt)
{
	if (pt)
		free(pt->slot);
	free(pt);
}

int rpm_pend_sent(struct rpm_pend *pt, const struct rpm_msg *probe, uint64_t t1, uint64_t t2)
{
	struct rpm_pending *s = &pt->slot[probe->id % pt->cap];

	if (s->used)
		return -EBUSY;
	*s = (struct rpm_pending){
	    .probe = *probe, .t = {.t1 = t1, .t2 = t2}, .sent_at = t1, .used = true};
	pt->used++;
	if (t1 < pt->oldest)
		pt->oldest = t1;
	return 0;
}

static void release(struct rpm_pend *pt, struct rpm_pending *s)
{
	s->used = false;
	if (!--pt->used)
		pt->oldest = UINT64_MAX;
}

void rpm_pend_drop(struct rpm_pend *pt, uint32_t id)
{
	struct rpm_pending *s = &pt->slot[id % pt->cap];

	if (s->used && s->probe.id == id)
		release(pt, s);
}

static void finish(struct rpm_pend *pt, struct rpm_pending *s, bool ack2, struct rpm_done *d)
{
	d->probe = s->probe;
	d->t = s->t;
	rpm_compute(&s->t, ack2, &d->r);
	release(pt, s);
}

int rpm_pend_reply(struct rpm_pend *pt, const uint8_t *buf, size_t len, uint64_t t5, uint64_t t6,
		   struct rpm_done *done)
{
	struct rpm_msg m;
	struct rpm_pending *s;
	int r = rpm_decode(buf, len, &m);

	if (r == -EMSGSIZE) {
		pt->short_msg++;
		return r;
	}
	if (r || (m.kind != RPM_ACK1 && m.kind != RPM_ACK2)) {
		pt->foreign++;
		return -EPROTO;
	}
	if (m.nonce != pt->nonce) {
		pt->stale++; /* an earlier epoch's: the prober restarted */
		return -ESTALE;
	}
	s = &pt->slot[m.id % pt->cap];
	if (!s->used || s->probe.id != m.id || s->probe.dst_host != m.dst_host ||
	    s->probe.dst_rnic != m.dst_rnic || s->probe.src_rnic != m.src_rnic) {
		pt->unknown++; /* answered after its probe was given up, or for no probe of ours */
		return -ENOENT;
	}
	if (m.kind == RPM_ACK1) {
		if (s->ack1) {
			pt->duplicate++;
			return -EALREADY;
		}
		s->ack1 = true;
		s->t.t3 = m.t3, s->t.t5 = t5, s->t.t6 = t6;
		if (!s->ack2)
			return 0;
		/* ACK2 overtook ACK1: T4 is known already */
		finish(pt, s, true, done);
		return 1;
	}
	if (s->ack2) {
		pt->duplicate++;
		return -EALREADY;
	}
	s->ack2 = true;
	s->t.t4 = m.t4;
	if (!s->ack1) {
		s->t.t3 = m.t3; /* ACK1's T3, until ACK1 itself brings T5 and T6 */
		return 0;
	}
	finish(pt, s, true, done);
	return 1;
}

bool rpm_pend_due(const struct rpm_pend *pt, uint64_t now)
{
	return pt->oldest != UINT64_MAX && now >= pt->oldest && now - pt->oldest >= pt->timeout_ns;
}

size_t rpm_pend_expire(struct rpm_pend *pt, uint64_t now,
		       void (*each)(void *, const struct rpm_done *), void *ctx)
{
	size_t n = 0;
	uint64_t oldest = UINT64_MAX;

	if (!rpm_pend_due(pt, now))
		return 0;
	for (size_t i = 0; i < pt->cap; i++) {
		struct rpm_pending *s = &pt->slot[i];
		struct rpm_done d;

		if (!s->used)
			continue;
		if (now < s->sent_at || now - s->sent_at < pt->timeout_ns) {
			if (s->sent_at < oldest)
				oldest = s->sent_at;
			continue;
		}
		if (s->ack1) {
			finish(pt, s, false, &d); /* ACK1 came, ACK2 did not */
		} else {
			d = (struct rpm_done){
			    .probe = s->probe, .t = s->t, .r = {RPM_TIMEOUT, -1, -1, -1}};
			release(pt, s);
		}
		each(ctx, &d);
		n++;
	}
	if (pt->used)
		pt->oldest = oldest;
	return n;
}
