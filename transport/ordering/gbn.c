// SPDX-License-Identifier: MIT
/* The go-back-N receiver Eunomia is compared with: in order or dropped. */
#include "transport/ordering/gbn.h"

#include <errno.h>
#include <string.h>

void gbn_conn_init(struct gbn_conn *c)
{
	memset(c, 0, sizeof(*c));
}

int gbn_data(struct gbn_conn *c, uint32_t seq, uint32_t head_meta, bool last, struct eu_result *res)
{
	memset(res, 0, sizeof(*res));
	res->seq = seq;
	if (c->completed)
		return -EINVAL;
	if (!c->started) {
		c->expected = head_meta;
		c->started = true;
	}
	if (seq == c->expected) {
		res->deliver_from = seq;
		res->deliver_to = ++c->expected;
		c->nak_sent = false; /* a new gap gets its NAK */
		res->completed = c->completed = last;
		res->reply = EU_ACK;
	} else if (seq < c->expected) {
		res->duplicate = true;
		res->reply = EU_ACK;
	} else if (!c->nak_sent) {
		c->nak_sent = true;
		res->reply = EU_NACK;
	} else {
		res->reply = EU_DROP; /* one NAK a gap: the sender goes back already */
	}
	res->ack = c->expected;
	return 0;
}
