// SPDX-License-Identifier: MIT
/* A receiver NIC of any kind Eunomia is compared with (ordrx.h). */
#include "transport/ordering/ordrx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[ORD_KINDS] = {"eunomia", "static256", "static64", "gbn"};

const char *ord_kind_name(enum ord_kind k)
{
	return (unsigned)k < ORD_KINDS ? kind_names[k] : "?";
}

int ord_kind_parse(const char *name)
{
	for (int k = 0; k < ORD_KINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -EINVAL;
}

static unsigned static_bits(enum ord_kind k)
{
	return k == ORD_STATIC64 ? 64 : 256;
}

static void conn_init(struct ord_rx *rx, struct ord_conn *c)
{
	if (rx->kind == ORD_EUNOMIA)
		eu_conn_init(&c->eu);
	else if (rx->kind == ORD_GBN)
		gbn_conn_init(&c->gbn);
	else
		sbm_conn_init(&c->sbm, static_bits(rx->kind));
}

int ord_rx_reset(struct ord_rx *rx, unsigned conn)
{
	struct ord_conn *c;

	if (conn >= rx->n_conns)
		return -EINVAL;
	c = &rx->conn[conn];
	if (rx->kind == ORD_EUNOMIA)
		eu_conn_reset(&rx->eu, &c->eu);
	else
		conn_init(rx, c);
	if (c->live)
		rx->live--;
	c->live = false;
	return 0;
}

struct ord_rx *ord_rx_new(enum ord_kind kind, unsigned n)
{
	struct eu_cfg cfg;
	struct ord_rx *rx;

	if ((unsigned)kind >= ORD_KINDS || !n || n > 65536) {
		errno = EINVAL;
		return NULL;
	}
	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return NULL;
	rx->conn = calloc(n, sizeof(*rx->conn));
	if (!rx->conn) {
		free(rx);
		return NULL;
	}
	rx->kind = kind;
	rx->n_conns = n;
	eu_cfg_default(&cfg);
	eu_rx_init(&rx->eu, &cfg);
	for (unsigned i = 0; i < n; i++)
		conn_init(rx, &rx->conn[i]);
	return rx;
}

void ord_rx_free(struct ord_rx *rx)
{
	if (rx)
		free(rx->conn);
	free(rx);
}

/* The counters eu_rx_data() keeps, for the kinds that do not keep them. */
static void count(struct eu_rx *rx, const struct eu_result *res)
{
	rx->duplicates += res->duplicate;
	if (res->reply == EU_ACK)
		rx->acks++;
	else if (res->reply == EU_SACK)
		rx->sacks++;
	else if (res->reply == EU_NACK)
		rx->nacks++;
	if (res->reply == EU_NACK || res->reply == EU_DROP)
		rx->cap_drops++;
}

int ord_rx_data(struct ord_rx *rx, unsigned conn, uint32_t seq, uint32_t head_meta, bool last,
		struct eu_result *res)
{
	struct ord_conn *c;
	int r;

	if (conn >= rx->n_conns)
		return -EINVAL;
	c = &rx->conn[conn];
	switch (rx->kind) {
	case ORD_EUNOMIA:
		r = eu_rx_data(&rx->eu, &c->eu, seq, head_meta, last, res);
		break;
	case ORD_GBN:
		r = gbn_data(&c->gbn, seq, head_meta, last, res);
		break;
	default:
		r = sbm_data(&c->sbm, static_bits(rx->kind), seq, head_meta, last, res);
		break;
	}
	if (r)
		return r;
	if (rx->kind != ORD_EUNOMIA)
		count(&rx->eu, res);
	if (!c->live && !res->completed) {
		c->live = true;
		rx->live++;
	} else if (c->live && res->completed) {
		c->live = false;
		rx->live--;
	}
	return 0;
}

void ord_rx_mem(const struct ord_rx *rx, struct ord_mem *m)
{
	unsigned bits = static_bits(rx->kind);
	/* the QPs that hold memory: the live connections, and the idle QPs the NIC keeps */
	unsigned held = rx->qps > rx->live ? rx->qps : rx->live;

	*m = (struct ord_mem){.static_total = held * sbm_bytes(256),
			      .static_bitmap = held * 256 / 8};
	switch (rx->kind) {
	case ORD_EUNOMIA:
		for (unsigned i = 0; i < rx->n_conns; i++) {
			struct eu_meta meta;

			if (!rx->conn[i].live)
				continue;
			m->total += eu_conn_bytes(&rx->eu, &rx->conn[i].eu);
			if (!eu_conn_meta(&rx->eu, &rx->conn[i].eu, &meta))
				m->bitmap += 2u * meta.d_rows;
		}
		m->total += (size_t)(held - rx->live) * EU_DBA_BYTES; /* an idle QP: its DBA */
		break;
	case ORD_GBN:
		break;
	default:
		m->total = held * sbm_bytes(bits);
		m->bitmap = held * bits / 8;
		break;
	}
}
