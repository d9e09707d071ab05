// SPDX-License-Identifier: MIT
/* The static circular reordering bitmap, the baseline of Eunomia's memory figures. */
#include "transport/ordering/staticbm.h"

#include <errno.h>
#include <string.h>

int sbm_conn_init(struct sbm_conn *c, unsigned bits)
{
	if (!bits || bits > SBM_BITS_MAX || bits % 8)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->last = EU_NO_LAST;
	return 0;
}

size_t sbm_bytes(unsigned bits)
{
	return bits / 8 + 4 + 4 + 1;
}

static bool bit(const struct sbm_conn *c, unsigned i)
{
	return c->bits[i / 64] >> (i % 64) & 1;
}

int sbm_data(struct sbm_conn *c, unsigned bits, uint32_t seq, uint32_t head_meta, bool last,
	     struct eu_result *res)
{
	unsigned i;

	memset(res, 0, sizeof(*res));
	res->seq = seq;
	if (c->completed)
		return -EINVAL;
	if (!c->started) {
		c->head = head_meta;
		c->started = true;
	}
	res->ack = c->head;
	if (seq < c->head) {
		res->duplicate = true;
		res->reply = EU_ACK;
		return 0;
	}
	if (seq - c->head >= bits) {
		res->reply = EU_NACK;
		return 0;
	}
	i = (c->head_idx + (seq - c->head)) % bits;
	if (bit(c, i)) {
		res->duplicate = true;
		res->reply = EU_SACK;
		return 0;
	}
	c->bits[i / 64] |= 1ULL << (i % 64);
	if (last)
		c->last = seq;
	if (seq != c->head) {
		res->reply = EU_SACK;
		return 0;
	}
	res->deliver_from = c->head;
	for (i = c->head_idx; bit(c, i); i = (i + 1) % bits) {
		c->bits[i / 64] &= ~(1ULL << (i % 64));
		c->head++;
	}
	c->head_idx = (uint16_t)i;
	res->deliver_to = res->ack = c->head;
	res->reply = EU_ACK;
	res->completed = c->completed = c->last != EU_NO_LAST && c->head > c->last;
	return 0;
}
