// SPDX-License-Identifier: MIT
/* MP-RDMA's receiver: an L-slot cyclic bitmap, an ACK for every packet (mprdma.h). */
#include "transport/mprdma/mprdma.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Section 3.3.1's four slot states, two bits each (Fig. 6). */
enum { SLOT_EMPTY, SLOT_RECV, SLOT_TAIL, SLOT_TAIL_CQE };

int mpr_rcv_init(struct mpr_rcv *r, unsigned L)
{
	if (L < 1 || L > MPR_L_MAX)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->L = L;
	r->nack_once = L == 1;
	return 0;
}

int mpr_rcv_init_cfg(struct mpr_rcv *r, const struct mpr_cfg *cfg)
{
	int e;

	if (cfg->eunomia_rx)
		e = mpr_rcv_init_eunomia(r);
	else if (mpr_cfg_irn(cfg))
		e = mpr_rcv_init(r, cfg->bitmap); /* IRN's: what arrives within one BDP is kept */
	else
		e = mpr_rcv_init(r, cfg->single_path ? 1 : cfg->bitmap);
	if (!e)
		r->nack_once |= cfg->nack == MPR_NACK_ONCE;
	return e;
}

int mpr_rcv_init_eunomia(struct mpr_rcv *r)
{
	struct eu_cfg cfg;

	memset(r, 0, sizeof(*r));
	r->eu = malloc(sizeof(*r->eu));
	if (!r->eu)
		return -ENOMEM;
	eu_cfg_default(&cfg);
	eu_rx_init(r->eu, &cfg);
	eu_conn_init(&r->euc);
	r->L = cfg.cap_rows * EU_BLOCK_BITS;
	return 0;
}

void mpr_rcv_free(struct mpr_rcv *r)
{
	free(r->eu);
	r->eu = NULL;
}

size_t mpr_rcv_bytes(const struct mpr_rcv *r)
{
	return r->eu ? eu_conn_bytes(r->eu, &r->euc) : (2 * r->L + 7) / 8 + 1;
}

/* The paper has no field for it; a NACK carries the hole in nack_psn. */
static void nack(struct mpr_rx_result *res, uint32_t psn, bool sync)
{
	res->reply = true;
	res->ack.nack = true;
	res->ack.nack_psn = psn;
	res->ack.sync_fail = sync;
}

/* Beyond the bitmap: dropped and answered with a NACK of the hole. */
static void overflow(struct mpr_rcv *r, struct mpr_rx_result *res)
{
	/*
	 * MPR_NACK_EVERY (rocelab's): every such packet is answered, as every
	 * data packet is: the NACK tells the sender that the packet left the
	 * network (its window credit comes back) and, once the hole's
	 * retransmission should have landed, that it was lost too.  One NACK a
	 * hole (the paper's, and rxe's: resp.sent_psn_nak, its sender goes back
	 * N) leaves the other drops unanswered: their credit is gone, and a
	 * lost retransmission of the hole waits for the RTO.
	 */
	r->st.overflow_drops++;
	res->dropped = true;
	if (r->nack_once && r->nak_for == r->rcv_nxt + 1)
		return;
	r->nak_for = r->rcv_nxt + 1;
	r->st.nacks++;
	nack(res, r->rcv_nxt, false);
	res->ack.aack = r->rcv_nxt;
}

void mpr_rcv_data(struct mpr_rcv *r, const struct mpr_pkt *p, struct mpr_rx_result *res)
{
	memset(res, 0, sizeof(*res));
	res->ack = (struct mpr_ack){
	    .vp = p->vp,
	    .sack = p->psn,
	    .ece = p->ce,
	    .retx = p->retx,
	    .tx_ns = p->tx_ns,
	};
	res->deliver_from = res->deliver_to = r->rcv_nxt;
	r->st.data++;
	if (p->psn < r->rcv_nxt || (p->psn - r->rcv_nxt < r->L && r->slot[p->psn % r->L])) {
		/* seen before: ACKed again, it clocks the sender, nothing delivered twice */
		r->st.dups++;
		res->duplicate = true;
		goto ack;
	}
	res->ood = p->psn - r->rcv_nxt;
	if (res->ood > r->st.ood_max)
		r->st.ood_max = res->ood;
	if (res->ood >= r->L) {
		overflow(r, res);
		return;
	}
	if (p->sync && p->msg_first > r->rcv_nxt) {
		/* a synchronise message before its predecessors landed: retried later */
		r->st.sync_drops++;
		r->st.nacks++;
		res->dropped = true;
		nack(res, p->psn, true);
		res->ack.aack = r->rcv_nxt;
		return;
	}
	if (r->eu) {
		/*
		 * Eunomia decides what it can track and holds the memory for it;
		 * the slots only remember which PSNs are in and which are tails.
		 * Once its bitmap grew linear rows its reach ends below rcv_nxt +
		 * 256 (Tail stays until Head passes it), so it may refuse more.
		 */
		struct eu_result er;

		eu_rx_data(r->eu, &r->euc, p->psn, 0, false, &er);
		if (er.reply == EU_NACK) {
			overflow(r, res);
			return;
		}
	}
	r->slot[p->psn % r->L] = !p->tail ? SLOT_RECV : p->cqe ? SLOT_TAIL_CQE : SLOT_TAIL;
	/*
	 * The head moves a slot at a time, not a message: the paper clears a
	 * whole HoL message at once, which is the same for what leaves in
	 * order and also takes messages longer than L (the brief's reading).
	 */
	for (uint8_t *s; *(s = &r->slot[r->rcv_nxt % r->L]) != SLOT_EMPTY; r->rcv_nxt++) {
		if (*s >= SLOT_TAIL) {
			res->msgs++; /* messages leave strictly in order */
			r->st.msgs++;
		}
		if (*s == SLOT_TAIL_CQE) {
			res->cqes++; /* a receive WQE popped, a CQE pushed */
			r->st.cqes++;
		}
		*s = SLOT_EMPTY;
	}
	res->deliver_to = r->rcv_nxt;
	r->st.delivered += res->deliver_to - res->deliver_from;
ack:
	res->reply = true;
	res->ack.aack = r->rcv_nxt;
	r->st.acks++;
}

bool mpr_ood_add(struct mpr_ood *o, const struct mpr_rcv *r, const struct mpr_rx_result *res)
{
	if (res->duplicate || (res->dropped && res->ood < r->L))
		return false;
	o->hist[res->ood < MPR_OOD_MAX ? res->ood : MPR_OOD_MAX]++;
	o->n++;
	return true;
}

uint32_t mpr_ood_quantile(const struct mpr_ood *o, double q)
{
	unsigned long long need, seen = 0;

	if (!o->n)
		return 0;
	need = (unsigned long long)(q * (double)o->n);
	if (need < 1)
		need = 1;
	for (uint32_t i = 0; i <= MPR_OOD_MAX; i++) {
		seen += o->hist[i];
		if (seen >= need)
			return i;
	}
	return MPR_OOD_MAX;
}
