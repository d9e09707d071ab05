// SPDX-License-Identifier: MIT
/*
 * dscp-mismatch: the priority a DSCP maps to, changed at one end of a link,
 * so that the two ends no longer agree on it.  RoCE is sent in DSCP 26 and
 * both the RNIC (its DCB APP table, with DSCP trusted) and the switch (its
 * DSCP to traffic class map) put it in the lossless priority 3; with one of
 * them mapping it elsewhere, RoCE rides a lossy queue (drops instead of
 * pauses under congestion), or the switch pauses a priority the RNIC does
 * not send it in.  Each end is read first and put back exactly as found:
 * - a switch port: the map it classifies by, copied with the DSCP moved and
 *   bound to that port alone (SONiC DSCP_TO_TC_MAP and PORT_QOS_MAP, NVUE
 *   'qos mapping' profiles); EOS maps DSCP for the whole switch ('qos map
 *   dscp'), so there the target is the switch;
 * - an RNIC: 'dcb app replace ... dscp-prio DSCP:PRIO' (iproute2);
 * - a Linux switch (the virtual lab): emulated, the DSCP's packets in a
 *   shallow tail-drop queue at a modelled line rate, as a lossy class is.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/host_cmd.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/caps.h"
#include "injectors/nos/readback.h"
#include "injectors/render.h"

#include <stdlib.h>
#include <string.h>

struct dscp_mismatch_opts {
	int dscp; /* 0..63: the DSCP whose priority changes */
	int to;	  /* 0..7: the priority (traffic class) it maps to instead */
	unsigned long long emu_rate_kbit; /* emulated port rate (virtual lab) */
	unsigned shallow_bytes;		  /* emulated lossy queue depth */
};
FAULT_KIND_OPTS(dm, struct dscp_mismatch_opts)

#define FS(f) offsetof(struct dscp_mismatch_opts, f)

static const struct opt_desc opts[] = {
    {"dscp", OPT_INT, 0, 63, FS(dscp), "the DSCP whose priority changes (26: RoCE's)"},
    {"to", OPT_INT, 0, 7, FS(to),
     "the priority (a switch's traffic class) it maps to during the fault (0: best effort, "
     "lossy)"},
    {"emu-rate", OPT_CUSTOM, 1000, 10000000, FS(emu_rate_kbit),
     "emulated: the port's modelled line rate (virtual lab)", fault_opt_rate_parse,
     fault_opt_rate_print},
    {"shallow", OPT_UINT, 1500, 1000000, FS(shallow_bytes),
     "emulated: bytes of the lossy queue the DSCP lands in (virtual lab)"},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	dm_rw(s)->dscp = 26;
	dm_rw(s)->to = 0;
	dm_rw(s)->emu_rate_kbit = 100000;
	dm_rw(s)->shallow_bytes = 6000;
}

/* ---- an RNIC: its DCB APP table ---------------------------------------------------- */

/*
 * dcb-app DEV DSCP PRIO: 'dcb app replace dev DEV dscp-prio DSCP:PRIO'
 * (iproute2 dcb/dcb_app.c, dcb_cmd_app_replace: the DSCP's entries replaced
 * by this one).  Its words are dcb's arguments, never a shell's.
 */
static void app_cmd(struct host_cmd *c, char *const w[], size_t n)
{
	(void)n;
	host_cmd_words(
	    c, (const char *const[]){"dcb", "app", "replace", "dev", w[1], "dscp-prio", NULL});
	host_cmd_word(c, "%s:%s", w[2], w[3]);
}

static const struct host_verb verb_app = {"dcb-app", 4, app_cmd};
HOST_VERB(verb_app)

/* The DSCP moved on the RNIC; its undo, once read, puts back the priority found. */
static int plan_host(struct render_ctx *rc)
{
	const struct fault_spec *s = rc->spec;
	const struct inv_host *h = &rc->inv->hosts[s->tdev];
	const char *netdev = h->rnics[s->tport].netdev;
	struct fault_plan *p = rc->plan;
	char cmd[96], as[96];

	fault_plan_host_op(p, h->name, "dcb-app %s %d %d", "dcb-app %s %d as-read", netdev,
			   dm_of(s)->dscp, dm_of(s)->to);
	snprintf(cmd, sizeof(cmd), "dcb -j app show dev %s dscp-prio", netdev);
	snprintf(as, sizeof(as), "dcb-app %s %d", netdev, dm_of(s)->dscp);
	fault_action_read(&p->acts[p->n_acts - 1], cmd, as);
	snprintf(p->note, sizeof(p->note),
		 "the undo puts back the priority DSCP %d is read to map to on %s before the fault",
		 dm_of(s)->dscp, netdev);
	return 0;
}

/* An RNIC without DCB has no APP table to change: say so before the journal. */
static int precheck(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	const char *netdev;
	int r;

	if (s->tkind != INV_DEV_HOST)
		return 0;
	netdev = h->rnics[s->tport].netdev;
	r = lab_exec(f->lab, h->name,
		     (const char *const[]){"dcb", "app", "show", "dev", netdev, NULL}, NULL, NULL,
		     f->err, sizeof(f->err));
	if (r > 0 && strstr(f->err, "not supported")) {
		snprintf(f->err, sizeof(f->err),
			 "%s:%s has no DCB support (DCBNL: EOPNOTSUPP), so it has no DSCP to "
			 "priority table to change; target the switch port instead (on a virtual "
			 "lab the switch's classification is emulated there)",
			 h->name, netdev);
		return -EOPNOTSUPP;
	}
	return r > 0 ? -EIO : r; /* f->err says what dcb said */
}

/* ---- a Linux switch: emulated ------------------------------------------------------ */

/*
 * The DSCP's packets (the TOS byte's upper six bits) in class 1:10 of an
 * HTB model of each port's line rate, a shallow tail-drop queue: a lossy
 * class, where the lossless one they were classified into would pause.
 */
static int linux_dscp_mismatch(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);
	char leaf[32];
	int ret = nos_linux_may_emulate(r, "DSCP classification");

	if (ret)
		return ret;
	snprintf(leaf, sizeof(leaf), "bfifo limit %u", dm_of(s)->shallow_bytes);
	nos_linux_tos_leaf(r, ports, n, dm_of(s)->dscp << 2, 0xfc, dm_of(s)->emu_rate_kbit, leaf);
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "emulated classification: DSCP %d on %s lands in priority %d, modelled as a "
		 "shallow %u-byte tail-drop queue (a lossy class) at %llu kbit/s (HTB+bfifo)",
		 dm_of(s)->dscp, r->port ? r->port : "every port", dm_of(s)->to,
		 dm_of(s)->shallow_bytes, dm_of(s)->emu_rate_kbit);
	return 0;
}

/* ---- SONiC: the port's DSCP_TO_TC_MAP, copied ---------------------------------------- */

/*
 * The map found with the DSCP moved, as "DSCP TC ..." fields of one HSET
 * (DscpToTcMapHandler takes each field as a DSCP, its value as a TC).
 */
static void map_moved(struct sbuf *b, const char *map, int dscp, int to)
{
	bool set = false;

	for (const char *m = map; *m;) {
		char *end;
		long d = strtol(m, &end, 10), t = strtol(end, &end, 10);

		sb_printf(b, " %ld %ld", d, d == dscp ? (long)to : t);
		set |= d == dscp;
		m = end + (*end == ' ');
	}
	if (!set)
		sb_printf(b, " %d %d", dscp, to);
}

/*
 * SONiC, one port: a map of the fault's own (name: its table, upper case) that is
 * the port's with the DSCP moved, bound to the port's own PORT_QOS_MAP
 * entry; the undo binds back the map found (or deletes the binding, where
 * the port used the switch's global map), then a second later deletes the
 * copy, which qosorch keeps while a port still names it (qosorch.cpp:
 * isObjectBeingReferenced, task_need_retry).  rb NULL: not read yet (a dry
 * run), shown with the map as read left to the read.
 */
static void sonic_plan(struct fault_action *a, const char *port, const struct fault_spec *s,
		       const char *name, const struct readback *rb)
{
	struct sbuf ap = {0}, v = {0};
	char ref[96];

	/* the reference as this SONiC writes them: a name, or "[DSCP_TO_TC_MAP|NAME]" before */
	snprintf(ref, sizeof(ref), rb && rb->profile[0] == '[' ? "[DSCP_TO_TC_MAP|%s]" : "%s",
		 name);
	sb_printf(&ap, "sudo sonic-db-cli CONFIG_DB HSET 'DSCP_TO_TC_MAP|%s'", name);
	if (rb)
		map_moved(&ap, rb->map, dm_of(s)->dscp, dm_of(s)->to);
	else
		sb_printf(&ap, " <the port's map as read, DSCP %d to %d>", dm_of(s)->dscp,
			  dm_of(s)->to);
	sb_printf(&ap,
		  " >/dev/null && sudo sonic-db-cli CONFIG_DB HSET 'PORT_QOS_MAP|%s' "
		  "dscp_to_tc_map ",
		  port);
	nos_shell_word(&ap, ref);
	sb_printf(&ap, " >/dev/null");
	if (!rb || rb->bound) {
		sb_printf(&v, "sudo sonic-db-cli CONFIG_DB HSET 'PORT_QOS_MAP|%s' dscp_to_tc_map ",
			  port);
		if (rb)
			nos_shell_word(&v, rb->profile);
		else /* a dry run: said, never run (its discover writes it from the read) */
			sb_printf(&v, "<dscp_to_tc_map as read>");
		sb_printf(&v, " >/dev/null");
	} else
		sb_printf(&v,
			  "sudo sonic-db-cli CONFIG_DB HDEL 'PORT_QOS_MAP|%s' dscp_to_tc_map "
			  ">/dev/null",
			  port);
	sb_printf(&v, "; sleep 1; sudo sonic-db-cli CONFIG_DB DEL 'DSCP_TO_TC_MAP|%s' >/dev/null",
		  name);
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/* The read of PORT_QOS_MAP and DSCP_TO_TC_MAP whole (sonic-dscp). */
#define SONIC_DSCP_READ                                                                            \
	"sonic-cfggen -d --var-json PORT_QOS_MAP && echo '" SONIC_DSCP_MAP_MARK                    \
	"' && sonic-cfggen -d --var-json DSCP_TO_TC_MAP"

/*
 * Checked against sonic-net/sonic-swss orchagent/qosorch.cpp: a port's
 * PORT_QOS_MAP dscp_to_tc_map binds SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP, one
 * no longer there is unbound ("was configured but is not any more"), and
 * PORT_QOS_MAP|global's is the switch's (handleGlobalQosMap); a map is
 * created before the ports that name it are bound (doTask: PORT_QOS_MAP
 * last).
 */
static int sonic_dscp_mismatch(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);

	for (size_t i = 0; i < n; i++) {
		char table[48], name[48], as[96];
		/* one map per port: each copies its port's own */
		struct fault_action *act = nos_emit_copy(r, i, n, table, sizeof(table));

		snprintf(as, sizeof(as), "sonic-dscp %s %d", ports[i], dm_of(r->spec)->dscp);
		fault_action_read(act, SONIC_DSCP_READ, as);
		nos_sonic_acl_name(table, name, sizeof(name));
		sonic_plan(act, ports[i], r->spec, name, NULL);
	}
	return 0;
}

/* ---- NVUE: the port's mapping profile, copied ---------------------------------------- */

/* What 'nv config show -o commands' says of DSCP mapping: every line naming it. */
#define NVUE_DSCP_READ                                                                             \
	"nv config show -o commands | { grep -e ' qos mapping ' -e ' qos roce' || true; }"

/*
 * NVUE, one port, from what its read found (NULL: not read yet, shown as
 * a port on default-global that trusts DSCP): the port's mapping profile
 * copied as table with the DSCP moved, and bound to the port; the undo
 * binds the port back as found (or unsets its own) and deletes the copy.
 */
static void nvue_plan(struct fault_action *a, const char *port, const struct fault_spec *s,
		      const char *table, const char *found)
{
	char cp[64], err[160];
	struct readback rb;
	struct sbuf ap = {0}, v = {0};

	if (!found) {
		snprintf(cp, sizeof(cp), "nv set qos mapping default-global trust l3");
		found = cp;
	}
	if (readback_parse(a->read_as, found, &rb, err, sizeof(err)))
		return; /* its discover refused what does not parse: not reached */
	readback_nvue_profile_copy(found, "mapping", rb.profile, table, NULL, &ap);
	sb_printf(&ap,
		  "nv set qos mapping %s dscp %d switch-priority %d && nv set interface %s qos "
		  "mapping profile %s && nv config apply -y",
		  table, dm_of(s)->dscp, dm_of(s)->to, port, table);
	nos_nvue_rebind(&v, "mapping", port, rb.bound, rb.profile, table);
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/*
 * NVUE maps DSCP to a switch priority per mapping profile ('nv set qos
 * mapping PROFILE dscp N switch-priority P'), and a port takes its own
 * ('nv set interface PORT qos mapping profile PROFILE'): NVUE reference,
 * 5.3; Cumulus Linux user guide, Quality of Service / Port Groups.  The
 * switch's default-global, which every other port uses, is never changed.
 */
static int nvue_dscp_mismatch(struct render_ctx *r)
{
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);
	int ret = nos_need(&r->inv->switches[r->sw], NOS_CAP_NVUE_QOS, "dscp-mismatch", r->why,
			   r->whylen);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		char table[48], as[96];
		struct fault_action *act = nos_emit_copy(r, i, n, table, sizeof(table));

		snprintf(as, sizeof(as), "nvue-dscp %s %d", ports[i], dm_of(r->spec)->dscp);
		fault_action_read(act, NVUE_DSCP_READ, as);
		nvue_plan(act, ports[i], r->spec, table, NULL);
	}
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a port on default-global trusting DSCP; when applied, the mapping "
		 "profile each port has is read and copied with DSCP %d moved",
		 dm_of(r->spec)->dscp);
	return 0;
}

/* ---- EOS: the switch's qos map dscp ------------------------------------------------ */

/*
 * EOS, from the traffic class found (-1: none in running-config, EOS's
 * default map): the undo writes the line found back, or removes the
 * fault's, which gives the DSCP back to the default map (the CLI's 'no'
 * form; AVD's qos.j2 writes the line, the 'no' form is EOS's convention,
 * not read in a source).
 */
static void eos_plan(struct fault_action *a, const struct fault_spec *s, int found)
{
	struct sbuf ap = {0}, v = {0};

	sb_printf(&ap, "configure\nqos map dscp %d to traffic-class %d\nend", dm_of(s)->dscp,
		  dm_of(s)->to);
	if (found >= 0)
		sb_printf(&v, "configure\nqos map dscp %d to traffic-class %d\nend", dm_of(s)->dscp,
			  found);
	else
		sb_printf(&v, "configure\nno qos map dscp %d to traffic-class %d\nend",
			  dm_of(s)->dscp, dm_of(s)->to);
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/*
 * EOS maps DSCP to a traffic class for the whole switch ('qos map dscp D
 * to traffic-class T', arista AVD eos_cli_config_gen templates/eos/qos.j2),
 * so a port cannot be given its own: the target is the switch.
 */
static int eos_dscp_mismatch(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0};
	struct fault_action *act;
	char as[32];

	if (r->port) {
		snprintf(r->why, r->whylen,
			 "EOS maps DSCP to a traffic class for the whole switch ('qos map dscp "
			 "... to traffic-class ...'), not per port: target the switch (--target "
			 "%s --all-ports)",
			 r->inv->switches[r->sw].name);
		return -EOPNOTSUPP;
	}
	sb_printf(&a, "-");
	sb_printf(&v, "-");
	act = nos_emit(r, &a, NULL, &v);
	snprintf(as, sizeof(as), "eos-dscp %d", dm_of(r->spec)->dscp);
	fault_action_read(act, "show running-config", as);
	eos_plan(act, r->spec, -1);
	snprintf(r->plan->scope, sizeof(r->plan->scope),
		 "the switch's DSCP map: every port of %s classifies by it",
		 r->inv->switches[r->sw].name);
	return 0;
}

/* ---- what was found, and whether it took --------------------------------------------- */

/* A port (or RNIC) where the fault cannot be: refused for a port target, else left out. */
static int leave_out(struct fault_run *f, struct fault_plan *p, size_t i, size_t *left, int err,
		     const char *why)
{
	/* a port or an RNIC targeted, or a map that is the whole switch's (EOS) */
	if (f->spec->tport >= 0 || f->spec->tkind == INV_DEV_HOST ||
	    !strncmp(p->acts[i].read_as, "eos-dscp ", 9)) {
		snprintf(f->err, sizeof(f->err), "%s", why);
		return err;
	}
	rl_info("dscp-mismatch: left out: %s", why);
	fault_plan_remove(p, i);
	++*left;
	return FAULT_FOUND_REMOVED;
}

static int judge(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		 void *ctx)
{
	const struct fault_spec *s = f->spec;
	struct fault_action *a = &p->acts[i];
	char port[64], why[512], table[48] = "";
	const char *as = a->read_as, *t;
	int d = dm_of(s)->dscp;

	readback_port_queue(fault_read_port(a), port, sizeof(port));
	if (!strncmp(as, "eos-dscp ", 9)) /* the switch's map: "eos-dscp DSCP" names no port */
		port[0] = '\0';
	if (rb->roce[0])
		return fault_refuse_roce(f, a, rb);
	if (!strncmp(as, "nvue-dscp ", 10) && !rb->trust_dscp) {
		snprintf(why, sizeof(why),
			 "%s:%s classifies by 802.1p, not DSCP (its mapping profile %s does not "
			 "trust l3 or both: '%.160s'): what DSCP %d maps to decides nothing there",
			 a->device, port, rb->profile, rb->canon, d);
		return leave_out(f, p, i, ctx, -EOPNOTSUPP, why);
	}
	if (!strncmp(as, "sonic-dscp ", 11) && rb->shared) {
		snprintf(why, sizeof(why),
			 "%s:%s takes its QoS maps from the shared entry PORT_QOS_MAP|%s: rocelab "
			 "rebinds one port's own entry, and would change the others' with it",
			 a->device, port, rb->ent[0].key);
		return leave_out(f, p, i, ctx, -EOPNOTSUPP, why);
	}
	if (rb->dscp_prio == -2) {
		snprintf(why, sizeof(why),
			 "%s:%s maps DSCP %d to more than one priority ('%s'): a replace would "
			 "not put that back",
			 a->device, port, d, rb->canon);
		return leave_out(f, p, i, ctx, -EOPNOTSUPP, why);
	}
	if (rb->dscp_prio < 0 && strncmp(as, "eos-dscp ", 9)) {
		snprintf(why, sizeof(why),
			 "%s:%s maps DSCP %d to no priority ('%s'): there is no mapping to "
			 "mismatch",
			 a->device, port, d, rb->canon);
		return leave_out(f, p, i, ctx, -EOPNOTSUPP, why);
	}
	if (rb->dscp_prio == dm_of(s)->to) {
		snprintf(why, sizeof(why),
			 "DSCP %d already maps to %d on %s%s%s ('%s'): there is nothing to change; "
			 "give --to another priority",
			 d, dm_of(s)->to, a->device, port[0] ? ":" : "", port, rb->canon);
		return leave_out(f, p, i, ctx, -EALREADY, why);
	}
	if (!strncmp(as, "sonic-dscp ", 11) && (t = strstr(a->apply, "'DSCP_TO_TC_MAP|"))) {
		/* the map's name as its renderer wrote it */
		snprintf(table, sizeof(table), "%.*s", (int)strcspn(t + 16, "'"), t + 16);
		sonic_plan(a, port, s, table, rb);
	} else if (!strncmp(as, "nvue-dscp ", 10) &&
		   (t = strstr(a->apply, " qos mapping profile "))) {
		snprintf(table, sizeof(table), "%.*s", (int)strcspn(t + 21, " "), t + 21);
		nvue_plan(a, port, s, table, a->found);
	} else if (!strncmp(as, "eos-dscp ", 9)) {
		eos_plan(a, s, rb->dscp_prio);
	} else if (!strncmp(as, "dcb-app ", 8)) {
		char op[96];

		snprintf(op, sizeof(op), "dcb-app %s %d %d", port, d, rb->dscp_prio);
		fault_action_set(&a->revert, op);
	}
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	const struct fault_spec *s = f->spec;
	size_t left = 0;
	int r = fault_judge_found(f, p, "the DSCP map", judge, &left);

	if (r)
		return r;
	if (!p->n_acts) {
		snprintf(f->err, sizeof(f->err),
			 "none of %s's ports has a DSCP %d mapping the fault could change (each "
			 "left out: 'rocelab inject -v' says why)",
			 s->target, dm_of(s)->dscp);
		return -EALREADY;
	}
	if (left)
		snprintf(p->note + strlen(p->note), sizeof(p->note) - strlen(p->note),
			 "%s%zu port(s) left out where DSCP %d could not be moved",
			 p->note[0] ? "; " : "", left, dm_of(s)->dscp);
	return 0;
}

/* The DSCP maps where the fault put it (an emulated port: its HTB is in place). */
static bool took(const struct fault_run *f, const struct fault_action *a, const struct readback *rb)
{
	return !strncmp(a->read_as, "tc-root ", 8) ? !strcmp(rb->qdisc, "htb")
						   : rb->dscp_prio == dm_of(f->spec)->to;
}

/* Incast in the DSCP must tail-drop in the emulated lossy queue; elsewhere, the reads say. */
static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_switch *sw =
	    s->tkind == INV_DEV_SWITCH ? &f->inv->switches[s->tdev] : NULL;

	if (!sw || sw->dialect != INV_DIALECT_LINUX || !fault_counters_readable(f, sw))
		return fault_verify_reads(f, took);
	if (s->tport < 0) {
		snprintf(f->evidence, sizeof(f->evidence),
			 "emulated: DSCP %d in a shallow queue on every port of %s", dm_of(s)->dscp,
			 sw->name);
		return 0;
	}
	return fault_verify_class(f, s->tdev, (size_t)s->tport, dm_of(s)->dscp, 0,
				  dm_of(s)->emu_rate_kbit, "drops", "tail-dropped", "emulated",
				  took);
}

const struct fault_kind_ops fk_dscp_mismatch = {
    .name = "dscp-mismatch",
    .usage = "--target SWITCH:PORT (or SWITCH --all-ports; EOS: the switch) | HOST:RNIC\n"
	     "(emulated on the virtual lab)",
    .targets = FT_PORT | FT_SWITCH | FT_RNIC,
    .example = "rail1:swp1",
    .opts = opts,
    .opts_size = sizeof(struct dscp_mismatch_opts),
    .defaults = defaults,
    .plan_host = plan_host,
    .render = {[INV_DIALECT_LINUX] = linux_dscp_mismatch,
	       [INV_DIALECT_SONIC] = sonic_dscp_mismatch,
	       [INV_DIALECT_EOS] = eos_dscp_mismatch,
	       [INV_DIALECT_NVUE] = nvue_dscp_mismatch},
    .cannot = "map a DSCP to another priority",
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] = "iproute2 tc u32 ('match ip tos'): DSCP classification emulated",
	    [INV_DIALECT_SONIC] = "sonic-swss orchagent/qosorch.cpp (DSCP_TO_TC_MAP, PORT_QOS_MAP, "
				  "handleGlobalQosMap)",
	    [INV_DIALECT_EOS] =
		"aristanetworks/avd eos_cli_config_gen templates/eos/qos.j2 ('qos map dscp'; the "
		"'no' form is EOS's convention)",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference ('nv set qos mapping PROFILE dscp N switch-priority', "
		"'nv set interface P qos mapping profile', 5.3)",
	},
    .follows_host = "iproute2 dcb/dcb_app.c ('dcb app replace dev D dscp-prio')",
};
