// SPDX-License-Identifier: MIT
/*
 * pfc-misconfig: PFC off for one priority, on an RNIC (DCBNL) or a switch
 * port.  On the virtual lab's Linux switches PFC is emulated: the priority's
 * queue becomes a shallow tail-drop queue (see linux_pfc_misconfig).
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/netlink_op.h"

#include <string.h>

#define FS(f) offsetof(struct fault_spec, f)

static const struct opt_desc opts[] = {
    {"priority", OPT_INT, 0, 7, FS(priority), "the priority whose PFC is turned off"},
    {"emu-rate", OPT_CUSTOM, 1000, 10000000, FS(emu_rate_kbit),
     "emulated: the port's modelled line rate (virtual lab)", fault_opt_rate_parse,
     fault_opt_rate_print},
    {"shallow", OPT_UINT, 1500, 1000000, FS(shallow_bytes),
     "emulated: bytes of the misconfigured queue (virtual lab)"},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	s->priority = 3;
	s->emu_rate_kbit = 100000;
	s->shallow_bytes = 6000;
}

/* The RNIC's PFC as DCBNL has it, read before (a priority not lossless is refused) and after. */
static int plan_host(struct render_ctx *rc)
{
	const struct inventory *inv = rc->inv;
	const struct fault_spec *s = rc->spec;
	struct fault_plan *p = rc->plan;
	const char *netdev = inv->hosts[s->tdev].rnics[s->tport].netdev;
	char cmd[96], as[64];

	fault_plan_host_op(p, inv->hosts[s->tdev].name, "dcb-pfc %s %d off", "dcb-pfc %s %d on",
			   netdev, s->priority);
	snprintf(cmd, sizeof(cmd), "dcb -j pfc show dev %s prio-pfc", netdev);
	snprintf(as, sizeof(as), "dcb-pfc %s", netdev);
	fault_action_read(&p->acts[p->n_acts - 1], cmd, as);
	return 0;
}

static int render(const struct dialect_ops *d, struct render_ctx *r)
{
	return d->pfc_misconfig ? d->pfc_misconfig(r) : dialect_unsupported(r, "change PFC");
}

/* An RNIC without DCB cannot have its PFC changed: say so before the journal. */
static int precheck(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	const char *netdev;
	unsigned en;
	int r;

	if (s->tkind != INV_DEV_HOST)
		return 0;
	netdev = h->rnics[s->tport].netdev;
	if (lab_can(f->lab, LAB_CAP_NETLINK)) {
		r = dcb_pfc_get(f->lab, h->name, netdev, &en);
	} else { /* iproute2's dcb on the host */
		r = lab_exec(f->lab, h->name,
			     (const char *const[]){"dcb", "pfc", "show", "dev", netdev, NULL}, NULL,
			     NULL, f->err, sizeof(f->err));
		if (r > 0)
			r = strstr(f->err, "Operation not supported") ? -EOPNOTSUPP : -EIO;
		if (r && r != -EOPNOTSUPP)
			return r; /* f->err says what dcb said */
	}
	if (r == -EOPNOTSUPP)
		snprintf(f->err, sizeof(f->err),
			 "%s:%s has no DCB support (DCBNL: EOPNOTSUPP), so its PFC cannot be "
			 "changed; target a switch port instead (on a virtual lab PFC is emulated "
			 "there)",
			 h->name, netdev);
	else if (r)
		snprintf(f->err, sizeof(f->err), "DCBNL on %s:%s: %s", h->name, netdev,
			 strerror(-r));
	return r;
}

/*
 * With each switch port's (or the RNIC's) state as found: a priority that
 * is not lossless there has no PFC to turn off (refused for a port or an
 * RNIC, left out of a whole switch), a port with a root qdisc of its own would lose it to the
 * emulation (refused), and NVUE copies the profile the port has.
 */
static int lossless(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		    void *ctx)
{
	const struct fault_spec *s = f->spec;
	struct fault_action *a = &p->acts[i];
	const char *port = fault_read_port(a), *prof;
	char table[48] = "";

	if (!readback_lossless(rb, s->priority)) {
		if (s->tport >= 0) {
			snprintf(f->err, sizeof(f->err),
				 "priority %d is not lossless on %s:%s before the fault ('%s': "
				 "%s): there is no PFC to turn off",
				 s->priority, a->device, port, a->read, rb->canon);
			return -EALREADY;
		}
		rl_info("pfc-misconfig: %s:%s left out: priority %d is not lossless there (%s)",
			a->device, port, s->priority, rb->canon);
		fault_plan_remove(p, i);
		++*(size_t *)ctx;
		return FAULT_FOUND_REMOVED;
	}
	if (!strncmp(a->read_as, "nvue-pfc ", 9) &&
	    (prof = strstr(a->apply, " qos pfc profile "))) {
		snprintf(table, sizeof(table), "%.*s", (int)strcspn(prof + 17, " "), prof + 17);
		dialect_nvue_pfc(a, port, s->priority, table, a->found);
	}
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	const struct fault_spec *s = f->spec;
	size_t left_out = 0;
	int r = fault_judge_found(f, p, "the emulated PFC", lossless, &left_out);

	if (r)
		return r;
	if (!p->n_acts) {
		snprintf(
		    f->err, sizeof(f->err),
		    "priority %d is lossless on none of %s's ports: there is no PFC to turn off",
		    s->priority, s->target);
		return -EALREADY;
	}
	if (left_out)
		snprintf(p->note + strlen(p->note), sizeof(p->note) - strlen(p->note),
			 "%s%zu port(s) left out where priority %d is not lossless",
			 p->note[0] ? "; " : "", left_out, s->priority);
	return 0;
}

/* The priority is no longer lossless (an emulated port: its HTB is in place). */
static bool pfc_took(const struct fault_run *f, const struct fault_action *a,
		     const struct readback *rb)
{
	return !strncmp(a->read_as, "tc-root ", 8) ? !strcmp(rb->qdisc, "htb")
						   : !readback_lossless(rb, f->spec->priority);
}

/* Incast in the misconfigured priority must tail-drop in the emulated queue. */
static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_switch *sw =
	    s->tkind == INV_DEV_SWITCH ? &f->inv->switches[s->tdev] : NULL;

	/* an RNIC, a NOS, or a Linux switch no test traffic reaches: as they read it */
	if (!sw || sw->dialect != INV_DIALECT_LINUX || !fault_counters_readable(f, sw))
		return fault_verify_reads(f, pfc_took);
	if (s->tport < 0) {
		snprintf(f->evidence, sizeof(f->evidence),
			 "emulated shallow queues installed on every port of %s", sw->name);
		return 0;
	}
	return fault_verify_tail_drops(f, s->tdev, (size_t)s->tport, pfc_took);
}

const struct fault_kind_ops fk_pfc_misconfig = {
    .name = "pfc-misconfig",
    .usage = "--target SWITCH[:PORT] | HOST:RNIC   (emulated on the virtual lab)",
    .targets = FT_PORT | FT_SWITCH | FT_RNIC,
    .example = "rail1:swp1",
    .opts = opts,
    .defaults = defaults,
    .plan_host = plan_host,
    .render = render,
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
};
