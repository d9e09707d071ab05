// SPDX-License-Identifier: MIT
/*
 * pfc-misconfig: PFC off for one priority, on an RNIC (DCBNL) or a switch
 * port.  On the virtual lab's Linux switches PFC is emulated: the priority's
 * queue becomes a shallow tail-drop queue (see linux_pfc_misconfig).
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/netlink_op.h"
#include "injectors/nos/caps.h"
#include "injectors/render.h"

#include <jansson.h>
#include <string.h>

struct pfc_misconfig_opts {
	int priority;			  /* 0..7 */
	unsigned long long emu_rate_kbit; /* emulated port rate (virtual lab) */
	unsigned shallow_bytes;		  /* emulated misconfigured queue depth */
};
FAULT_KIND_OPTS(pm, struct pfc_misconfig_opts)

#define FS(f) offsetof(struct pfc_misconfig_opts, f)

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
	pm_rw(s)->priority = 3;
	pm_rw(s)->emu_rate_kbit = 100000;
	pm_rw(s)->shallow_bytes = 6000;
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
			   netdev, pm_of(s)->priority);
	snprintf(cmd, sizeof(cmd), "dcb -j pfc show dev %s prio-pfc", netdev);
	snprintf(as, sizeof(as), "dcb-pfc %s", netdev);
	fault_action_read(&p->acts[p->n_acts - 1], cmd, as);
	return 0;
}

/* PFC off, emulated: the priority's queue is a shallow tail-drop queue (nos_linux_shallow). */
static int linux_pfc_misconfig(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);
	int ret = nos_linux_may_emulate(r, "PFC");

	if (ret)
		return ret;
	nos_linux_shallow(r, ports, n, pm_of(s)->priority, pm_of(s)->emu_rate_kbit,
			  pm_of(s)->shallow_bytes);
	snprintf(
	    r->plan->note, sizeof(r->plan->note),
	    "emulated PFC: priority %d of %s is a shallow %u-byte tail-drop queue at %llu kbit/s "
	    "(HTB+bfifo) instead of a lossless class",
	    pm_of(s)->priority, r->port ? r->port : "every port", pm_of(s)->shallow_bytes,
	    pm_of(s)->emu_rate_kbit);
	return 0;
}

/* SONiC's command that turns priority prio of port's PFC on or off (sonic_pfc_misconfig()). */
static void sonic_pfc_cmd(struct sbuf *b, const char *port, int prio, const char *state)
{
	sb_printf(b, "sudo config interface pfc priority %s %d %s", port, prio, state);
}

/*
 * The runs of set bits of mask as buffermgrd names lossless PGs ("3-4", "6"):
 * sonic-swss orchagent/orch.cpp Orch::generateIdListFromMap.  Returns how many.
 */
static int pg_runs(unsigned mask, char runs[][8], int max)
{
	int n = 0;

	for (int lo = 0; lo < 32 && n < max;) {
		int hi;

		if (!(mask >> lo & 1)) {
			lo++;
			continue;
		}
		for (hi = lo; hi + 1 < 32 && mask >> (hi + 1) & 1; hi++)
			;
		if (lo == hi)
			snprintf(runs[n++], 8, "%d", lo);
		else
			snprintf(runs[n++], 8, "%d-%d", lo, hi);
		lo = hi + 1;
	}
	return n;
}

/*
 * SONiC on the traditional buffer model: with the priority off, buffermgrd
 * writes BUFFER_PG|PORT|RUN for each run of the priorities still lossless
 * (pg_runs) and never deletes one (cfgmgr/buffermgr.cpp doSpeedUpdateTask),
 * so "3-4" less 3 leaves BUFFER_PG|PORT|4 beside |3-4 after the undo.  The
 * undo deletes such an entry that was not there before (one that was is
 * written back as read), and a second later writes back every entry read
 * that shares a PG with one deleted: bufferorch takes a deleted entry's PGs
 * as having no profile (bufferorch.cpp, DEL: SAI_NULL_OBJECT_ID) even where
 * another entry names them, and a batch's keys go in key order ("|3-4"
 * before "|4": orch.h SyncMap).  On the dynamic model nothing is written
 * there: the deletes find nothing, the entries written back are as read.
 */
static void sonic_pg_cleanup(struct fault_action *a, const char *port, int prio,
			     const struct readback *rb)
{
	char runs[16][8], key[160];
	int n = pg_runs(rb->lossless & ~(1u << prio), runs, 16);
	bool gone[16] = {0}, any = false, again = false;
	struct sbuf v = {0};

	sonic_pfc_cmd(&v, port, prio, "on");
	for (int i = 0; i < n; i++) {
		const struct rb_entry *e = NULL;

		snprintf(key, sizeof(key), "%s|%s", port, runs[i]);
		for (int k = 0; k < rb->n_ent; k++)
			if (!strcmp(rb->ent[k].key, key))
				e = &rb->ent[k];
		if (e) {
			sb_printf(&v, "; sudo sonic-db-cli CONFIG_DB HSET 'BUFFER_PG|%s'", e->key);
			nos_shell_words(&v, e->fields);
			sb_printf(&v, " >/dev/null");
		} else
			sb_printf(&v, "; sudo sonic-db-cli CONFIG_DB DEL 'BUFFER_PG|%s' >/dev/null",
				  key);
		gone[i] = !e;
		any = true;
	}
	for (int k = 0; k < rb->n_ent; k++) {
		bool shares = false;

		for (int i = 0; i < n && !shares; i++)
			for (int pg = 0; gone[i] && pg < 32 && !shares; pg++)
				shares = readback_index_has(runs[i], pg) &&
					 readback_index_has(rb->ent[k].key, pg);
		if (!shares)
			continue;
		if (!again)
			sb_printf(&v, "; sleep 1");
		again = true;
		sb_printf(&v, "; sudo sonic-db-cli CONFIG_DB HSET 'BUFFER_PG|%s'", rb->ent[k].key);
		nos_shell_words(&v, rb->ent[k].fields);
		sb_printf(&v, " >/dev/null");
	}
	if (any)
		fault_action_set(&a->revert, v.p);
	sb_free(&v);
}

/*
 * Checked against sonic-net/sonic-utilities: config/main.py 'config
 * interface pfc priority <interface_name> <priority> <on|off>' runs 'pfc
 * config priority STATUS PORT PRIO'; pfc/main.py configPfcPrio() edits
 * CONFIG_DB PORT_QOS_MAP|PORT pfc_enable and exits 0 without a change when
 * the priority is not enabled ("Priority N is not enabled on PORT") or the
 * port has no entry ("Cannot find interface").  So the state is read
 * first ('show pfc priority PORT', showPfcPrio()): a priority that is not
 * lossless is refused before anything changes, and 'on' restores it as found.
 */
static int sonic_pfc_misconfig(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);

	for (size_t i = 0; i < n; i++) {
		struct sbuf a = {0}, v = {0};

		sonic_pfc_cmd(&a, ports[i], pm_of(r->spec)->priority, "off");
		sonic_pfc_cmd(&v, ports[i], pm_of(r->spec)->priority, "on");
		nos_read_port(nos_emit(r, &a, NULL, &v), "sonic-pfc", ports[i],
			      "show pfc priority %s && echo '" SONIC_BUFFER_PG_MARK
			      "' && sonic-cfggen -d --var-json BUFFER_PG",
			      ports[i]);
	}
	return 0;
}

static int eos_pfc_misconfig(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);

	for (size_t i = 0; i < n; i++) {
		struct sbuf a = {0}, v = {0};

		sb_printf(
		    &a,
		    "configure\ninterface %s\nno priority-flow-control priority %d no-drop\nend",
		    ports[i], pm_of(r->spec)->priority);
		sb_printf(&v,
			  "configure\ninterface %s\npriority-flow-control priority %d no-drop\nend",
			  ports[i], pm_of(r->spec)->priority);
		nos_read_port(nos_emit(r, &a, NULL, &v), "eos-pfc", ports[i],
			      "show running-config interfaces %s", ports[i]);
	}
	return 0;
}

/* What 'nv config show -o commands' says of PFC: every line naming it. */
#define NVUE_PFC_READ "nv config show -o commands | { grep -e ' qos pfc ' -e ' qos roce' || true; }"

void pfc_misconfig_nvue(struct fault_action *a, const char *port, int prio, const char *table,
			const char *found)
{
	char pr[24], cp[64], err[160];
	struct readback rb;
	struct sbuf ap = {0}, v = {0};
	if (!found) { /* not read yet (a dry run): as a port on the default profile shows it */
		snprintf(cp, sizeof(cp), "nv set qos pfc default-global switch-priority %d", prio);
		found = cp;
	}
	if (readback_parse(a->read_as, found, &rb, err, sizeof(err)))
		return; /* nvue-pfc parses any text: not reached */
	readback_nvue_profile_copy(found, "pfc", rb.profile, table,
				   (const char *const[]){"switch-priority", "rx", "tx", NULL}, &ap);
	if (rb.lossless & ~(1u << prio)) {
		sb_printf(&ap, "nv set qos pfc %s switch-priority %s && ", table,
			  readback_prios(rb.lossless & ~(1u << prio), pr, sizeof(pr)));
	} else { /* prio was its only one: the profile keeps it, with PFC off both ways */
		sb_printf(&ap,
			  "nv set qos pfc %s switch-priority %d && nv set qos pfc %s rx disable && "
			  "nv set qos pfc %s tx disable && ",
			  table, prio, table, table);
	}
	sb_printf(&ap, "nv set interface %s qos pfc profile %s && nv config apply -y", port, table);
	nos_nvue_rebind(&v, "pfc", port, rb.bound, rb.profile, table);
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/*
 * PFC off for one priority on the target ports only: NVUE sets PFC per
 * profile ('nv set qos pfc PROFILE switch-priority ...'), and a port takes
 * its own with 'nv set interface PORT qos pfc profile PROFILE' (NVUE
 * reference, Set and Unset Commands / QoS; Cumulus Linux user guide,
 * Quality of Service / PFC).  So the port's profile is read, copied as
 * rocelab_f<id> without the priority and bound to the port; the undo binds
 * the port back to what it had (or to none) and deletes the copy.  The
 * switch's default-global profile, which every other port uses, is never
 * changed.
 */
static int nvue_pfc_misconfig(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);
	int ret = nos_need(&r->inv->switches[r->sw], NOS_CAP_NVUE_QOS, "pfc-misconfig", r->why,
			   r->whylen);

	if (ret)
		return ret;

	for (size_t i = 0; i < n; i++) {
		char table[48];
		/* one profile per port: each copies its port's own */
		struct fault_action *act = nos_emit_copy(r, i, n, table, sizeof(table));

		nos_read_port(act, "nvue-pfc", ports[i], "%s", NVUE_PFC_READ);
		pfc_misconfig_nvue(act, ports[i], pm_of(r->spec)->priority, table, NULL);
	}
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a port on default-global with priority %d alone; when applied, the "
		 "profile each port has is read and copied without it",
		 pm_of(r->spec)->priority);
	return 0;
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

	if (rb->roce[0])
		return fault_refuse_roce(f, a, rb);
	if (!readback_lossless(rb, pm_of(s)->priority)) {
		if (s->tport >= 0) {
			snprintf(f->err, sizeof(f->err),
				 "priority %d is not lossless on %s:%s before the fault ('%s': "
				 "%s): there is no PFC to turn off",
				 pm_of(s)->priority, a->device, port, a->read, rb->canon);
			return -EALREADY;
		}
		rl_info("pfc-misconfig: %s:%s left out: priority %d is not lossless there (%s)",
			a->device, port, pm_of(s)->priority, rb->canon);
		fault_plan_remove(p, i);
		++*(size_t *)ctx;
		return FAULT_FOUND_REMOVED;
	}
	if (!strncmp(a->read_as, "sonic-pfc ", 10) && rb->ent_read)
		sonic_pg_cleanup(a, port, pm_of(s)->priority, rb);
	if (!strncmp(a->read_as, "nvue-pfc ", 9) &&
	    (prof = strstr(a->apply, " qos pfc profile "))) {
		snprintf(table, sizeof(table), "%.*s", (int)strcspn(prof + 17, " "), prof + 17);
		pfc_misconfig_nvue(a, port, pm_of(s)->priority, table, a->found);
	}
	return 0;
}

int pfc_rnic_driver_check(const char *where, const char *driver, const json_t *dcbx, char *msg,
			  size_t len)
{
	msg[0] = '\0';
	if (!strcmp(driver, "bnxt_en") && (!json_is_true(json_object_get(dcbx, "host")) ||
					   !json_is_true(json_object_get(dcbx, "ieee")))) {
		/* bnxt_dcb.c, bnxt_dcbnl_ieee_setpfc(): -EINVAL unless
		 * dcbx_cap has DCB_CAP_DCBX_VER_IEEE and DCB_CAP_DCBX_HOST */
		snprintf(
		    msg, len,
		    "%s (bnxt_en) has its DCBX %s: bnxt changes PFC from the host only under "
		    "host IEEE DCBX (bnxt_dcb.c, bnxt_dcbnl_ieee_setpfc: EINVAL otherwise); "
		    "put the NIC's DCBX in host mode (its firmware's LLDP agent off) or target "
		    "the switch port",
		    where,
		    !dcbx ? "unread ('dcb -j dcbx show' gave nothing)"
		    : json_is_true(json_object_get(dcbx, "lld_managed"))
			? "managed by the NIC's own LLDP agent (lld-managed)"
			: "not in host IEEE mode");
		return -EPERM;
	}
	if (!strcmp(driver, "mlx5_core")) {
		/* en_dcbnl.c, mlx5e_dcbnl_ieee_setpfc(): mlx5_toggle_port_link() when pfc_en
		 * changes */
		snprintf(msg, len,
			 "%s (mlx5_core) takes its link down and up on every PFC change "
			 "(en_dcbnl.c, mlx5e_dcbnl_ieee_setpfc: mlx5_toggle_port_link): the fault "
			 "is PFC off and a link flap, at apply and again at revert",
			 where);
		return 1;
	}
	return 0;
}

/* A host RNIC's driver, as a PFC change from the host meets it. */
static int rnic_driver(struct fault_run *f, struct fault_plan *p)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	const char *netdev = h->rnics[s->tport].netdev;
	char where[2 * INV_NAME_MAX + 2], msg[400];
	json_t *dcbx = NULL;
	int r;

	snprintf(where, sizeof(where), "%s:%s", h->name, h->rnics[s->tport].name);
	fault_rnic_facts(f);
	if (!strcmp(f->rnic.driver, "bnxt_en"))
		dcbx = fault_read_json(
		    f, h->name,
		    (const char *const[]){"dcb", "-j", "dcbx", "show", "dev", netdev, NULL});
	r = pfc_rnic_driver_check(where, f->rnic.driver, dcbx, msg, sizeof(msg));
	json_decref(dcbx);
	if (r < 0)
		snprintf(f->err, sizeof(f->err), "%s", msg);
	else if (r > 0)
		snprintf(p->note + strlen(p->note), sizeof(p->note) - strlen(p->note), "%s%s",
			 p->note[0] ? "; " : "", msg);
	return r < 0 ? r : 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	const struct fault_spec *s = f->spec;
	size_t left_out = 0;
	int r = fault_judge_found(f, p, "the emulated PFC", lossless, &left_out);

	if (r)
		return r;
	if (s->tkind == INV_DEV_HOST && (r = rnic_driver(f, p)))
		return r;
	if (!p->n_acts) {
		snprintf(
		    f->err, sizeof(f->err),
		    "priority %d is lossless on none of %s's ports: there is no PFC to turn off",
		    pm_of(s)->priority, s->target);
		return -EALREADY;
	}
	if (left_out)
		snprintf(p->note + strlen(p->note), sizeof(p->note) - strlen(p->note),
			 "%s%zu port(s) left out where priority %d is not lossless",
			 p->note[0] ? "; " : "", left_out, pm_of(s)->priority);
	return 0;
}

/* The priority is no longer lossless (an emulated port: its HTB is in place). */
static bool pfc_took(const struct fault_run *f, const struct fault_action *a,
		     const struct readback *rb)
{
	return !strncmp(a->read_as, "tc-root ", 8)
		   ? !strcmp(rb->qdisc, "htb")
		   : !readback_lossless(rb, pm_of(f->spec)->priority);
}

/* Incast in the misconfigured priority must tail-drop in the emulated queue. */
static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_switch *sw =
	    s->tkind == INV_DEV_SWITCH ? &f->inv->switches[s->tdev] : NULL;

	/* an RNIC, a NOS, or a Linux switch no test traffic reaches: as they read it */
	if (!sw) {
		int r = fault_verify_reads(f, pfc_took);
		char why[64];

		/* the driver's own flap (mlx5), counted: part of what the fault did */
		snprintf(why, sizeof(why), "its driver, %s, on a PFC change",
			 f->rnic.driver[0] ? f->rnic.driver : "unnamed");
		if (!r && f->rnic.carrier_chg >= 0)
			fault_rnic_flapped(f, fault_rnic_carrier(f), why, 10000);
		return r;
	}
	if (sw->dialect != INV_DIALECT_LINUX || !fault_counters_readable(f, sw))
		return fault_verify_reads(f, pfc_took);
	if (s->tport < 0) {
		snprintf(f->evidence, sizeof(f->evidence),
			 "emulated shallow queues installed on every port of %s", sw->name);
		return 0;
	}
	return fault_verify_tail_drops(f, s->tdev, (size_t)s->tport, pm_of(s)->priority,
				       pm_of(s)->emu_rate_kbit, pfc_took);
}

const struct fault_kind_ops fk_pfc_misconfig = {
    .name = "pfc-misconfig",
    .usage = "--target SWITCH:PORT (or SWITCH --all-ports) | HOST:RNIC   (emulated\n"
	     "on the virtual lab)",
    .targets = FT_PORT | FT_SWITCH | FT_RNIC,
    .example = "rail1:swp1",
    .opts = opts,
    .opts_size = sizeof(struct pfc_misconfig_opts),
    .defaults = defaults,
    .plan_host = plan_host,
    .render = {[INV_DIALECT_LINUX] = linux_pfc_misconfig,
	       [INV_DIALECT_SONIC] = sonic_pfc_misconfig,
	       [INV_DIALECT_EOS] = eos_pfc_misconfig,
	       [INV_DIALECT_NVUE] = nvue_pfc_misconfig},
    .cannot = "change PFC",
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] = "iproute2 tc (HTB, bfifo): PFC emulated",
	    [INV_DIALECT_SONIC] =
		"sonic-utilities config/main.py, pfc/main.py ('config interface pfc priority'); "
		"sonic-swss cfgmgr/buffermgr.cpp (BUFFER_PG)",
	    [INV_DIALECT_EOS] = "EOS User Manual, DCB ('priority-flow-control priority N no-drop')",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference, QoS ('nv set qos pfc PROFILE', 'nv set interface P qos "
		"pfc profile', 5.3)",
	},
    .follows_host = "iproute2 dcb/dcb_pfc.c ('dcb pfc set dev D prio-pfc'); Linux mlx5 en_dcbnl.c, "
		    "bnxt bnxt_dcb.c",
};
