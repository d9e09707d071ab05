// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's endpoints' logs read back as samples, and the figures from
 * them: goodput in a window, the fabric's optimal, out-of-order degree,
 * whether the network or the CPU set the pace.
 */
#define _GNU_SOURCE
#include "transport/mpr_comp_int.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "transport/mpr_vpmap.h"
#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- figures ---------------------------------------------------------------------------- */

/* Does the sample's whole interval (iv s, ending at its t) lie within [from, to]? */
bool mpr_in_window(const struct mpr_sample *s, double iv, double from, double to)
{
	return s->t - iv >= from - 1e-6 && s->t <= to + 1e-6;
}

double mpr_goodput_mbit(const struct mpr_sample *s, size_t n, double interval_s, double from,
			double to)
{
	double pkts = 0, span = 0;

	for (size_t i = 0; i < n; i++)
		if (mpr_in_window(&s[i], interval_s, from, to)) {
			pkts += s[i].delivered;
			span += interval_s;
		}
	return span > 0 ? pkts * MPR_WIRE_PAYLOAD * 8 / span / 1e6 : -1;
}

/*
 * The rate of the link at endpoint ep (kbit/s): the smallest shape on it (0:
 * down), ULLONG_MAX when none is.
 */
static unsigned long long shaped(const struct inventory *inv, const struct inv_endpoint *ep,
				 const struct comp_shape *shapes, size_t n)
{
	const struct inv_link *l = inventory_link_at(inv, ep);
	unsigned long long r = ULLONG_MAX;

	for (size_t i = 0; l && i < n; i++) {
		struct inv_endpoint e;
		char msg[128];

		if (!inventory_endpoint(inv, shapes[i].target, &e, msg, sizeof(msg)) &&
		    inventory_link_at(inv, &e) == l && shapes[i].rate_kbit < r)
			r = shapes[i].rate_kbit;
	}
	return r;
}

/* The end on switch sw of a link between sw and switch other, NULL when none. */
static const struct inv_endpoint *switch_link(const struct inventory *inv, size_t sw, size_t other)
{
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];

		if (l->a.kind != INV_DEV_SWITCH || l->b.kind != INV_DEV_SWITCH)
			continue;
		if (l->a.dev == sw && l->b.dev == other)
			return &l->a;
		if (l->b.dev == sw && l->a.dev == other)
			return &l->b;
	}
	return NULL;
}

double mpr_optimal_mbit(const struct inventory *inv, const char *from, const char *to,
			const struct comp_shape *shapes, size_t n)
{
	struct inv_endpoint a, b, rail, rail_b;
	unsigned long long host, paths = 0, r;
	char msg[128];
	size_t uplinks = 0;

	if (inventory_endpoint(inv, from, &a, msg, sizeof(msg)) ||
	    inventory_endpoint(inv, to, &b, msg, sizeof(msg)) || inventory_peer(inv, &a, &rail) ||
	    rail.kind != INV_DEV_SWITCH || inventory_peer(inv, &b, &rail_b) ||
	    rail_b.kind != INV_DEV_SWITCH)
		return 0;
	host = shaped(inv, &a, shapes, n);
	if ((r = shaped(inv, &b, shapes, n)) < host)
		host = r;
	/*
	 * A path a spine: the smaller of the rail switch's link up to it and the
	 * spine's link down to the far rail (the far one counts only when shaped).
	 */
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];
		const struct inv_endpoint *me = NULL, *other, *down;

		if (l->a.kind == INV_DEV_SWITCH && l->a.dev == rail.dev)
			me = &l->a;
		else if (l->b.kind == INV_DEV_SWITCH && l->b.dev == rail.dev)
			me = &l->b;
		if (!me || (other = inv_link_other_end(l, me))->kind != INV_DEV_SWITCH)
			continue;
		uplinks++;
		r = shaped(inv, me, shapes, n);
		if (r == ULLONG_MAX) {
			paths = ULLONG_MAX;
			break;
		}
		down = rail_b.dev != rail.dev ? switch_link(inv, other->dev, rail_b.dev) : NULL;
		if (down && shaped(inv, down, shapes, n) < r)
			r = shaped(inv, down, shapes, n);
		paths += r;
	}
	if (!uplinks)
		paths = ULLONG_MAX;
	r = host < paths ? host : paths;
	return r == ULLONG_MAX ? 0
			       : (double)r / 1e3 * MPR_WIRE_PAYLOAD /
				     (double)mpr_wire_frame_len(MPR_WIRE_PAYLOAD, false);
}

double mpr_jnum(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

/*
 * A sender line's sends per VP ("vp_sent": [[vp, sends, acks, resent,
 * prunes], ...]) summed into s by acc->mask, and with its lost clockings
 * ("vp_lost") into acc's window.
 */
static void per_vp(const json_t *line, const struct vp_acc *acc, struct mpr_sample *s)
{
	bool in = s->t >= acc->from && s->t <= acc->to;
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(line, "vp_sent"), i, e)
	{
		json_int_t vp = json_integer_value(json_array_get(e, 0));
		double k = json_number_value(json_array_get(e, 1));
		bool ours = vp >= VP_LO && (size_t)(vp - VP_LO) < acc->n;
		uint8_t m = ours ? acc->mask[vp - VP_LO] : 0;

		s->sent += k;
		s->sent_hit += m & VP_HIT ? k : 0;
		s->sent_fwd += m & VP_FWD ? k : 0;
		if (ours && in) {
			struct mpr_vp_evidence *v = &acc->ev[vp - VP_LO];

			v->sent += k;
			v->acks += json_number_value(json_array_get(e, 2));
			v->resent += json_number_value(json_array_get(e, 3));
			v->prunes += json_number_value(json_array_get(e, 4));
			if (!v->first && v->resent + v->prunes > 0)
				v->first = s->t;
		}
	}
	json_array_foreach(json_object_get(line, "vp_lost"), i, e)
	{
		json_int_t vp = json_integer_value(e);

		if (in && vp >= VP_LO && (size_t)(vp - VP_LO) < acc->n) {
			acc->ev[vp - VP_LO].lost = true;
			if (!acc->ev[vp - VP_LO].first)
				acc->ev[vp - VP_LO].first = s->t;
		}
	}
}

/*
 * A log's per-interval lines of type, and its last line of type "TYPE-end"
 * into *end (NULL: none; a new reference); acc (or NULL) gets the sender's
 * figures per VP.
 */
size_t mpr_read_log_acc(const char *path, const char *type, struct mpr_sample **out, json_t **end,
			const struct vp_acc *acc)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, end_type[32];
	size_t cap = 0, n = 0;

	*out = NULL;
	*end = NULL;
	snprintf(end_type, sizeof(end_type), "%s-end", type);
	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = line[0] == '{' ? json_loads(line, 0, NULL) : NULL;
		const char *t = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (t && !strcmp(t, type)) {
			struct mpr_sample *smp = RL_PUSH(*out, n);

			*smp = (struct mpr_sample){.t = mpr_jnum(j, "t"),
						   .delivered = mpr_jnum(j, "delivered"),
						   .retx = mpr_jnum(j, "retx"),
						   .vps_used = mpr_jnum(j, "vps_used"),
						   .srtt_us = mpr_jnum(j, "srtt_us"),
						   .rto_left_ms = mpr_jnum(j, "rto_left_ms"),
						   .cpu_ms = mpr_jnum(j, "cpu_ms"),
						   .runq_ms = mpr_jnum(j, "runq_ms"),
						   .ord_bytes = mpr_jnum(j, "ord_bytes"),
						   .ord_bytes_max = mpr_jnum(j, "ord_bytes_max"),
						   .static_bytes = mpr_jnum(j, "static_mean"),
						   .bm_bytes = mpr_jnum(j, "bm_mean"),
						   .static_bm_bytes = mpr_jnum(j, "static_bm_mean"),
						   .delivered_b = mpr_jnum(j, "delivered_b"),
						   .ord_bytes_b = mpr_jnum(j, "mem_mean_b"),
						   .reorder_max = json_object_get(j, "reorder_max")
								      ? mpr_jnum(j, "reorder_max")
								      : mpr_jnum(j, "ood_max"),
						   .ood_hist =
						       json_incref(json_object_get(j, "ood_hist"))};
			if (acc)
				per_vp(j, acc, smp);
		} else if (t && !strcmp(t, end_type)) {
			json_decref(*end);
			*end = j;
			continue;
		}
		json_decref(j);
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

size_t mpr_read_log(const char *path, const char *type, struct mpr_sample **out, json_t **end)
{
	return mpr_read_log_acc(path, type, out, end, NULL);
}

void mpr_samples_free(struct mpr_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(s[i].ood_hist);
	free(s);
}

bool mpr_net_paced(double good, double opt)
{
	return opt > 0 && good >= MPR_NET_PACED * opt;
}

bool mpr_cpu_limited(double busy, double good, double opt)
{
	return busy >= MPR_CPU_BUSY_MAX && !mpr_net_paced(good, opt);
}

double mpr_ood_fault_to(const struct comp_times *t, double f_from)
{
	return t->t_unapply > f_from && t->t_unapply < t->t_revert ? t->t_unapply : t->t_revert;
}

double mpr_ood_quantile_in(const struct mpr_sample *s, size_t n, double iv, double from, double to,
			   double q)
{
	struct mpr_ood *o = rl_xcalloc(1, sizeof(*o));
	double r = -1;

	for (size_t k = 0; k < n; k++) {
		size_t i;
		json_t *e;

		if (!mpr_in_window(&s[k], iv, from, to))
			continue;
		json_array_foreach(s[k].ood_hist, i, e)
		{
			json_int_t v = json_integer_value(json_array_get(e, 0)),
				   c = json_integer_value(json_array_get(e, 1));

			if (v < 0 || v > MPR_OOD_MAX || c <= 0)
				continue; /* not the receiver's: counted nowhere */
			o->hist[v] += (uint32_t)c;
			o->n += (unsigned long long)c;
		}
	}
	if (o->n)
		r = mpr_ood_quantile(o, q);
	free(o);
	return r;
}
