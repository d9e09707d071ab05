// SPDX-License-Identifier: MIT
/* link-degrade: a link runs at --rate, both ways: its target end and the far end are shaped. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"

#include <string.h>

#define FS(f) offsetof(struct fault_spec, f)

static const struct opt_desc opts[] = {
    {"rate", OPT_CUSTOM, 8, 4000000000.0, FS(rate_kbit), "the degraded rate (e.g. 10mbit)",
     fault_opt_rate_parse, fault_opt_rate_print},
    OPT_TABLE_END,
};

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	if (s->rate_kbit)
		return 0;
	snprintf(why, whylen, "link-degrade needs a rate (e.g. 10mbit)");
	return -EINVAL;
}

static int resolve(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen)
{
	struct inv_endpoint t = {s->tkind, s->tdev, (size_t)s->tport};
	const struct inv_link *l = inventory_link_at(inv, &t);

	if (l && s->rate_kbit >= l->speed_mbps * 1000) {
		snprintf(why, whylen,
			 "rate must be below the link's speed (%llu Mbit/s) to degrade it",
			 l->speed_mbps);
		return -EINVAL;
	}
	return 0;
}

static void shape_rnic(const struct inventory *inv, const struct inv_endpoint *ep,
		       const struct fault_spec *s, struct fault_plan *p)
{
	fault_plan_host_op(p, inv->hosts[ep->dev].name, "tbf %s %llu", "qdisc-del %s",
			   inv->hosts[ep->dev].rnics[ep->port].netdev, s->rate_kbit);
}

static int render_one(const struct dialect_ops *d, struct render_ctx *r)
{
	return d->link_degrade ? d->link_degrade(r) : dialect_unsupported(r, "degrade a link");
}

/* A degraded link is slow both ways: the RNIC, then its switch port in that switch's dialect. */
static int plan_host(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	struct inv_endpoint t = {s->tkind, s->tdev, (size_t)s->tport}, peer;
	struct render_ctx pr = *r;

	shape_rnic(r->inv, &t, s, r->plan);
	if (inventory_peer(r->inv, &t, &peer) || peer.kind != INV_DEV_SWITCH)
		return 0;
	pr.sw = peer.dev;
	pr.port = inventory_netdev(r->inv, &peer);
	return render_one(dialect_get(r->inv->switches[peer.dev].dialect), &pr);
}

/* The target port in its dialect, then the far end: an RNIC, or a port in its own dialect. */
static int render(const struct dialect_ops *d, struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	struct inv_endpoint t = {s->tkind, s->tdev, (size_t)s->tport}, peer;
	struct render_ctx pr = *r;
	int ret = render_one(d, r);

	if (ret || inventory_peer(r->inv, &t, &peer))
		return ret;
	if (peer.kind == INV_DEV_HOST) {
		shape_rnic(r->inv, &peer, s, r->plan);
		return 0;
	}
	pr.sw = peer.dev;
	pr.port = inventory_netdev(r->inv, &peer);
	return render_one(dialect_get(r->inv->switches[peer.dev].dialect), &pr);
}

/* Is a TBF the root qdisc of this link end? Ends that cannot be read back count as present. */
static int tbf_present(struct fault_run *f, const struct inv_endpoint *ep, bool *present)
{
	const char *dev, *netdev;
	json_t *v, *q;
	size_t i;

	*present = false;
	if (!fault_end_readable(f->inv, ep)) {
		*present = true;
		return 0;
	}
	dev = inventory_device_name(f->inv, ep);
	netdev = inventory_netdev(f->inv, ep);
	v = fault_read_json(
	    f, dev,
	    (const char *const[]){"tc", "-j", "qdisc", "show", "dev", netdev, "root", NULL});
	if (!v)
		return -EIO;
	json_array_foreach(v, i, q) *present |=
	    !strcmp(json_string_value(json_object_get(q, "kind")) ?: "", "tbf");
	json_decref(v);
	return 0;
}

/* A Linux switch end whose root qdisc is not the kernel's own would lose it to the TBF. */
static int discover(struct fault_run *f, struct fault_plan *p)
{
	for (size_t i = 0; i < p->n_acts; i++) {
		const struct fault_action *a = &p->acts[i];
		struct readback rb;
		char err[256];

		if (!a->read || !a->found)
			continue;
		if (readback_parse(a->read_as, a->found, &rb, err, sizeof(err))) {
			snprintf(f->err, sizeof(f->err), "%s: %s", a->device, err);
			return -EIO;
		}
		if (!fault_tc_root_free(f, a, &rb, "the TBF"))
			return -EBUSY;
	}
	return 0;
}

static int verify(struct fault_run *f)
{
	struct inv_endpoint ends[2];
	size_t found = 0;

	if (fault_target_ends(f, &ends[0], &ends[1]))
		return -EINVAL;
	for (size_t k = 0; k < 2; k++) {
		bool present;

		if (tbf_present(f, &ends[k], &present))
			return -EIO;
		found += present;
	}
	if (found != 2) {
		snprintf(f->err, sizeof(f->err), "TBF present on %zu of 2 link ends", found);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence), "TBF %llu kbit/s present on both ends of %s",
		 f->spec->rate_kbit, f->spec->target);
	return 0;
}

const struct fault_kind_ops fk_link_degrade = {
    .name = "link-degrade",
    .usage = "--target SWITCH:PORT | HOST:RNIC, and --rate",
    .targets = FT_PORT | FT_RNIC,
    .example = "rail3:swp6",
    .opts = opts,
    .check = check,
    .resolve = resolve,
    .plan_host = plan_host,
    .render = render,
    .discover = discover,
    .verify = verify,
};
