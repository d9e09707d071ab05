// SPDX-License-Identifier: MIT
/* Eunomia's sender agent over a spraying load balancer (spray.h). */
#include "transport/ordering/spray.h"

#include "transport/ordering/xorshift.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A packet's state; SPR_AGAIN marks one sent before. */
enum { SPR_UNSENT, SPR_OUT, SPR_LOST, SPR_DONE, SPR_STATE = 3, SPR_AGAIN = 4 };

void spr_cfg_default(struct spr_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->iw = 16;
	cfg->cwnd_max = 256;
	cfg->rto_ns = 10000000;
}

int spr_init(struct spr_snd *s, const struct spr_cfg *cfg, uint32_t head, uint32_t n, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	if (!cfg->n_vps || cfg->n_vps > SPR_VPS_MAX || !n || n > UINT32_MAX - head || !cfg->iw ||
	    cfg->cwnd_max < cfg->iw || !cfg->rto_ns)
		return -EINVAL;
	s->state = calloc(n, 1);
	if (!s->state)
		return -ENOMEM;
	s->cfg = *cfg;
	s->rng = seed ? seed : 1;
	s->head = head;
	s->n = n;
	s->cwnd = cfg->iw;
	s->rto_at = SPR_NEVER;
	s->rto = cfg->rto_ns;
	s->rr = (unsigned)(seed % cfg->n_vps);
	return 0;
}

void spr_free(struct spr_snd *s)
{
	free(s->state);
	s->state = NULL;
}

static unsigned st_of(const struct spr_snd *s, uint32_t i)
{
	return s->state[i] & SPR_STATE;
}

static void st_set(struct spr_snd *s, uint32_t i, unsigned st)
{
	s->state[i] = (uint8_t)((s->state[i] & SPR_AGAIN) | st);
}

static uint16_t next_vp(struct spr_snd *s)
{
	if (s->cfg.ecmp)
		return s->cfg.vps[s->rr % s->cfg.n_vps]; /* the seed picked it at spr_init() */
	if (s->cfg.random)
		return s->cfg.vps[(ord_rand(&s->rng) >> 32) % s->cfg.n_vps];
	return s->cfg.vps[s->rr++ % s->cfg.n_vps];
}

unsigned spr_pull(struct spr_snd *s, uint64_t now, struct spr_pkt *out, unsigned max)
{
	unsigned k = 0;

	while (k < max && s->inflight < (unsigned)s->cwnd) {
		uint32_t i = s->nxt;

		while (i < s->n && (st_of(s, i) == SPR_OUT || st_of(s, i) == SPR_DONE))
			i++;
		s->nxt = i;
		if (i == s->n)
			break;
		out[k++] = (struct spr_pkt){.seq = s->head + i,
					    .head = s->head,
					    .vp = next_vp(s),
					    .last = i == s->n - 1,
					    .retx = s->state[i] & SPR_AGAIN,
					    .tx_ns = now};
		s->st.sent++;
		s->st.retx += (s->state[i] & SPR_AGAIN) != 0;
		s->state[i] = SPR_OUT | SPR_AGAIN;
		s->inflight++;
		if (s->rto_at == SPR_NEVER)
			s->rto_at = now + s->rto;
	}
	return k;
}

/* Packet i left the network: delivered (done) or to be sent again. */
static void settle(struct spr_snd *s, uint32_t i, unsigned to)
{
	if (st_of(s, i) == SPR_DONE)
		return;
	if (st_of(s, i) == SPR_OUT)
		s->inflight--;
	st_set(s, i, to);
	if (to != SPR_DONE && i < s->nxt)
		s->nxt = i;
}

/* Everything from i that is out or lost is to be sent again; the window back at IW. */
static void go_back(struct spr_snd *s, uint32_t i, bool timeout)
{
	for (uint32_t k = i; k < s->n; k++)
		if (st_of(s, k) == SPR_OUT || st_of(s, k) == SPR_LOST)
			settle(s, k, SPR_UNSENT);
	s->hole_resent = 0;
	if (timeout) {
		s->cwnd = s->cfg.iw;
		s->st.timeouts++;
	} else {
		s->st.go_backs++;
	}
}

/* RFC 6298 from one round trip: srtt, rttvar, and the timeout at least rto_ns. */
static void rtt_sample(struct spr_snd *s, uint64_t rtt)
{
	if (!s->srtt) {
		s->srtt = rtt;
		s->rttvar = rtt / 2;
	} else {
		uint64_t d = rtt > s->srtt ? rtt - s->srtt : s->srtt - rtt;

		s->rttvar = (3 * s->rttvar + d) / 4;
		s->srtt = (7 * s->srtt + rtt) / 8;
	}
	/* the slowest path's round trip, forgotten slowly: sprayed, it returns every n_vps replies
	 */
	s->rtt_max -= s->rtt_max / 64;
	if (rtt > s->rtt_max)
		s->rtt_max = rtt;
	s->rto = s->srtt + 4 * s->rttvar;
	if (s->rto < 2 * s->rtt_max)
		s->rto = 2 * s->rtt_max;
	if (s->rto < s->cfg.rto_ns)
		s->rto = s->cfg.rto_ns;
}

void spr_reply(struct spr_snd *s, const struct spr_reply *r, uint64_t now)
{
	uint32_t ack = r->ack - s->head, seq = r->seq - s->head, una = s->una;
	bool sacked;

	if (!r->retx && r->tx_ns && r->tx_ns <= now)
		rtt_sample(s, now - r->tx_ns);
	s->st.acks += r->reply == EU_ACK;
	s->st.sacks += r->reply == EU_SACK;
	s->st.nacks += r->reply == EU_NACK;
	s->st.ece += r->ece;
	if (r->ece)
		s->cwnd = s->cwnd - 0.5 < 1 ? 1 : s->cwnd - 0.5;
	else if ((s->cwnd += 1 / s->cwnd) > s->cfg.cwnd_max)
		s->cwnd = s->cfg.cwnd_max;
	if (ack <= s->n)
		for (; s->una < ack; s->una++)
			settle(s, s->una, SPR_DONE);
	if (s->una == s->n) {
		s->rto_at = SPR_NEVER;
		return;
	}
	/*
	 * The timeout runs from the last progress: the cumulative ACK moved, or
	 * a packet not yet in reached the receiver.  A NACK or a duplicate is
	 * no progress: a receiver that keeps NACKing what lies past its reach
	 * while the hole's one resend was lost would otherwise hold the
	 * timeout off for good (seen on the lab: 23,000 NACKed resends a
	 * second, the hole never sent again).
	 */
	sacked = r->reply == EU_SACK && seq < s->n && st_of(s, seq) != SPR_DONE;
	if (s->una != una || sacked)
		s->rto_at = now + s->rto;
	if (sacked) {
		settle(s, seq, SPR_DONE);
	} else if (r->reply == EU_NACK && s->cfg.gbn) {
		go_back(s, s->una, false);
	} else if (r->reply == EU_NACK) {
		if (seq < s->n && st_of(s, seq) == SPR_OUT)
			settle(s, seq, SPR_LOST);
		if (s->hole_resent != s->una + 1 && st_of(s, s->una) == SPR_OUT) {
			/* the hole may only be late on a slow path: resent once a hole */
			settle(s, s->una, SPR_LOST);
			s->hole_resent = s->una + 1;
		}
	}
}

uint64_t spr_deadline(const struct spr_snd *s)
{
	return s->rto_at;
}

void spr_timer(struct spr_snd *s, uint64_t now)
{
	if (s->rto_at == SPR_NEVER || now < s->rto_at)
		return;
	go_back(s, s->una, true);
	s->rto_at = SPR_NEVER;
	if (s->rto < 64 * s->cfg.rto_ns)
		s->rto *= 2;
}

bool spr_done(const struct spr_snd *s)
{
	return s->una == s->n;
}
