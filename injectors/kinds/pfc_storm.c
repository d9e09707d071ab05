// SPDX-License-Identifier: MIT
/*
 * pfc-storm: an RNIC sends PFC pause frames without end (the experiences
 * paper, rdma-at-scale-sigcomm16 section 6.2: one NIC sent more than 2,000
 * a second; Hostmesh problem #8).  The frames are real IEEE 802.1Qbb frames
 * from the RNIC's netdev ('rocelab load pfc' on its host, harness/lab/pfc.c).
 * A real switch pauses its egress toward the RNIC by itself.  A Linux switch
 * does not (veth ignores pause), so there the pause is emulated: the port's
 * egress of the priority is held for as long as the fault lasts
 * (linux_pfc_storm), at the rate the storm leaves it.
 */
#define _GNU_SOURCE
#include "harness/lab/pfc.h"
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/caps.h"
#include "injectors/nos/nos_ops.h"
#include "injectors/render.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct pfc_storm_opts {
	int priority;
	unsigned pfc_pps, pfc_quanta; /* PFC frames a second, and each one's pause time */
	/* planned: the rate the emulated pause holds the port's egress at (virtual lab) */
	unsigned long long held_kbit;
	long long orphan_ms; /* a sender over SSH stops this long after its last heartbeat */
	/* the switch end's PFC watchdog during the storm: as found, started, or stopped */
	enum { WD_AS_FOUND, WD_ON, WD_OFF } pfcwd;
	long long wd_detect_ms, wd_restore_ms; /* WD_ON's; restore 0: twice detect */
};
FAULT_KIND_OPTS(ps, struct pfc_storm_opts)

#define FS(f) offsetof(struct pfc_storm_opts, f)

/*
 * A link whose speed the inventory does not give (the virtual lab's): taken
 * as 40GbE, the experiences paper's, where 2,000 frames of 65535 quanta a
 * second pause a priority all the time.
 */
#define STORM_DEFAULT_MBPS 40000ULL
/* A priority the storm pauses all the time still drains this slowly: "near zero". */
#define STORM_HELD_KBIT 8ULL

/* "2000/s" or "2000": PFC frames a second. */
static int parse_pps(const struct opt_desc *d, const char *v, void *field, char *err, size_t errlen)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (end != v && !strcmp(end, "/s"))
		end += 2;
	if (errno || end == v || *end || *v == '-' || n < (unsigned long long)d->lo ||
	    n > (unsigned long long)d->hi) {
		snprintf(err, errlen, "%s '%s': give %.0f to %.0f frames a second, as 2000/s",
			 d->name, v, d->lo, d->hi);
		return -EINVAL;
	}
	*(unsigned *)field = (unsigned)n;
	return 0;
}

static const char *print_pps(const void *field, char *buf, size_t len)
{
	snprintf(buf, len, "%u/s", *(const unsigned *)field);
	return buf;
}

/* "on" or "off": the switch end's PFC watchdog during the storm. */
static int parse_wd(const struct opt_desc *d, const char *v, void *field, char *err, size_t errlen)
{
	int *w = field;

	if (!strcmp(v, "on") || !strcmp(v, "off")) {
		*w = !strcmp(v, "on") ? WD_ON : WD_OFF;
		return 0;
	}
	snprintf(err, errlen, "%s '%s': give on or off (or leave the watchdog as found)", d->name,
		 v);
	return -EINVAL;
}

static const char *print_wd(const void *field, char *buf, size_t len)
{
	int w = *(const int *)field;

	snprintf(buf, len, "%s", w == WD_ON ? "on" : w == WD_OFF ? "off" : "");
	return buf;
}

static const struct opt_desc opts[] = {
    {"priority", OPT_INT, 0, 7, FS(priority), "the priority the frames pause"},
    {"rate", OPT_CUSTOM, 1, PFC_STORM_PPS_MAX, FS(pfc_pps), "PFC frames a second", parse_pps,
     print_pps},
    {"quanta", OPT_UINT, 1, PFC_QUANTA_MAX, FS(pfc_quanta),
     "each frame's pause, in quanta of 512 bit times"},
    {"orphan-after", OPT_MS, 3000, 3600000, FS(orphan_ms),
     "a sender on a host reached over SSH stops once its injector's heartbeat (every second) "
     "has been silent this long"},
    {"pfcwd", OPT_CUSTOM, 0, 0, FS(pfcwd),
     "the switch end's PFC watchdog during the storm, on or off (SONiC, EOS, NVUE 5.6 and "
     "later; restored as found after, graded against its settings where its state is read)",
     parse_wd, print_wd},
    {"pfcwd-detect", OPT_MS, 100, 5000, FS(wd_detect_ms),
     "with --pfcwd on: its detection time (SONiC's: sonic-utilities pfcwd, 100 ms to 5 s)"},
    {"pfcwd-restore", OPT_MS, 100, 60000, FS(wd_restore_ms),
     "with --pfcwd on: its restoration time (default: twice the detection time, as 'pfcwd "
     "start' sets it)"},
    OPT_TABLE_END,
};

/* --pfcwd-detect when not given: sonic-utilities pfcwd/main.py DEFAULT_DETECTION_TIME */
#define PFCWD_DETECT_MS 200

/* The restoration time --pfcwd on sets: --pfcwd-restore, or twice the detection time (as
 * sonic-utilities' 'pfcwd start' sets it). */
static long long wd_restore_of(const struct pfc_storm_opts *o)
{
	return o->wd_restore_ms ? o->wd_restore_ms : 2 * o->wd_detect_ms;
}

static void defaults(struct fault_spec *s)
{
	ps_rw(s)->priority = 3;
	ps_rw(s)->pfc_pps = 2000;
	ps_rw(s)->pfc_quanta = PFC_QUANTA_MAX;
	ps_rw(s)->orphan_ms = 30000;
	ps_rw(s)->wd_detect_ms = PFCWD_DETECT_MS;
}

/* --pfcwd-detect and --pfcwd-restore set a watchdog --pfcwd on starts. */
static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	if (ps_of(s)->pfcwd != WD_ON &&
	    (ps_of(s)->wd_restore_ms || ps_of(s)->wd_detect_ms != PFCWD_DETECT_MS)) {
		snprintf(why, whylen,
			 "--pfcwd-detect and --pfcwd-restore set the watchdog that "
			 "--pfcwd on starts: give --pfcwd on too");
		return -EINVAL;
	}
	return 0;
}

/*
 * SONiC's PFC watchdog of the switch end's port, started or stopped for the
 * storm with sonic-utilities' own command ('pfcwd start --action drop
 * --restoration-time R PORT D', 'pfcwd stop PORT': pfcwd/main.py, which
 * writes CONFIG_DB PFC_WD|PORT), read first as that hash's detection_time,
 * restoration_time and action ("sonic-pfcwd PORT"), and put back as read
 * by the undo (judge_wd), or stopped when it was not set.
 */
static int sonic_pfcwd(struct render_ctx *r, const char *port)
{
	const struct pfc_storm_opts *o = ps_of(r->spec);
	struct sbuf a = {0}, v = {0};

	if (o->pfcwd == WD_ON)
		sb_printf(&a, "sudo pfcwd start --action drop --restoration-time %lld %s %lld",
			  wd_restore_of(o), port, o->wd_detect_ms);
	else
		sb_printf(&a, "sudo pfcwd stop %s", port);
	sb_printf(&v,
		  "sudo pfcwd start --action A --restoration-time R %s D as PFC_WD|%s is read, "
		  "or sudo pfcwd stop %s when it is not set",
		  port, port, port);
	nos_read_port(nos_emit(r, &a, NULL, &v), "sonic-pfcwd", port,
		      "for f in detection_time restoration_time action; do sonic-db-cli CONFIG_DB "
		      "HGET 'PFC_WD|%s' $f; done",
		      port);
	return 0;
}

/*
 * NVUE's PFC watchdog of the switch end's port (Cumulus Linux 5.6 and
 * later), enabled or disabled for the storm ('nv set interface P qos
 * pfc-watchdog state enable|disable'), read first from 'nv config show'
 * ("nvue-pfcwd PORT") and put back as read (judge_wd): its state line, or
 * unset when it had none.  Its detection time is the switch's polling
 * interval times its robustness ('nv set qos pfc-watchdog'), for every port:
 * not the storm's to set, so --pfcwd-detect and --pfcwd-restore are refused.
 */
static int nvue_pfcwd(struct render_ctx *r, const char *port)
{
	const struct pfc_storm_opts *o = ps_of(r->spec);
	struct sbuf a = {0}, v = {0};
	int ret =
	    nos_need(&r->inv->switches[r->sw], NOS_CAP_NVUE_PFCWD, "--pfcwd", r->why, r->whylen);

	if (ret)
		return ret;
	if (o->wd_restore_ms || o->wd_detect_ms != PFCWD_DETECT_MS) {
		snprintf(r->why, r->whylen,
			 "--pfcwd-detect, --pfcwd-restore: NVUE's PFC watchdog detects a storm in "
			 "its polling interval times its robustness, set for the whole switch ('nv "
			 "set qos pfc-watchdog polling-interval|robustness'), and has no "
			 "restoration time; rocelab does not change them: give --pfcwd alone");
		return -EOPNOTSUPP;
	}
	sb_printf(&a, "nv set interface %s qos pfc-watchdog state %s && nv config apply -y", port,
		  o->pfcwd == WD_ON ? "enable" : "disable");
	sb_printf(&v,
		  "nv set interface %s qos pfc-watchdog state as read, or nv unset interface %s "
		  "qos pfc-watchdog when it is not set; nv config apply -y",
		  port, port);
	nos_read_port(nos_emit(r, &a, NULL, &v), "nvue-pfcwd", port, "%s",
		      "nv config show -o commands | { grep -e ' qos pfc-watchdog' || true; }");
	return 0;
}

/*
 * EOS's PFC watchdog of the switch end's port, turned on or off for the storm
 * with the interface commands aristanetworks/avd's eos_cli_config_gen renders
 * (templates eos/qos-profiles.j2, schema qos_profiles.schema.yml
 * priority_flow_control.watchdog): 'priority-flow-control pause watchdog',
 * 'port action drop' (EOS's default action error-disables the port: the storm
 * drops, as SONiC's 'pfcwd start --action drop' does), and 'port timer timeout
 * S polling-interval auto recovery-time S' in seconds of at most two decimals,
 * 0.01 to 60 (so --pfcwd-detect and --pfcwd-restore in tens of ms).  Read first
 * from the port's running-config ("eos-pfcwd PORT") and put back as read by the
 * undo (judge_wd).  EOS publishes no command that prints the watchdog's state
 * per queue, so its trip is not timed (nos_eos has no pfcwd read).
 */
static int eos_pfcwd(struct render_ctx *r, const char *port)
{
	const struct pfc_storm_opts *o = ps_of(r->spec);
	long long d = o->wd_detect_ms, rt = wd_restore_of(o);
	struct sbuf a = {0}, v = {0};

	if (o->pfcwd == WD_ON && (d % 10 || rt % 10 || rt > 60000)) {
		snprintf(r->why, r->whylen,
			 "--pfcwd-detect %lld ms, --pfcwd-restore %lld ms: EOS's watchdog timer "
			 "takes seconds with at most two decimals, up to 60 (avd "
			 "qos_profiles.schema.yml): give multiples of 10 ms up to 60 s",
			 d, rt);
		return -EINVAL;
	}
	sb_printf(&a, "configure\ninterface %s\n", port);
	if (o->pfcwd == WD_ON)
		sb_printf(&a,
			  "priority-flow-control pause watchdog\n"
			  "priority-flow-control pause watchdog port action drop\n"
			  "priority-flow-control pause watchdog port timer timeout %lld.%02lld "
			  "polling-interval auto recovery-time %lld.%02lld\nend",
			  d / 1000, d % 1000 / 10, rt / 1000, rt % 1000 / 10);
	else
		sb_printf(&a, "no priority-flow-control pause watchdog\nend");
	sb_printf(&v,
		  "configure\ninterface %s\nthe port's pause watchdog lines as read (none "
		  "set: 'no priority-flow-control pause watchdog')\nend",
		  port);
	nos_read_port(nos_emit(r, &a, NULL, &v), "eos-pfcwd", port,
		      "show running-config interfaces %s", port);
	return 0;
}

/*
 * The undo of eos_pfcwd: the lines the storm may have set taken off, then the
 * port's watchdog lines as read (rb->value, eos.c) written again.
 */
static void eos_pfcwd_undo(const char *port, const char *value, struct sbuf *v)
{
	char st[8] = "-", act[8] = "-", to[8] = "-", poll[8] = "-", rec[8] = "-", forced[2] = "-";

	sscanf(value, "%7s %7s %7s %7s %7s %1s", st, act, to, poll, rec, forced);
	sb_printf(v,
		  "configure\ninterface %s\n"
		  "no priority-flow-control pause watchdog port timer\n"
		  "no priority-flow-control pause watchdog port action\n"
		  "%spriority-flow-control pause watchdog\n",
		  port, strcmp(st, "on") ? "no " : "");
	if (strcmp(act, "-"))
		sb_printf(v, "priority-flow-control pause watchdog port action %s\n",
			  !strcmp(act, "drop") ? "drop" : "notify-only");
	if (strcmp(to, "-"))
		sb_printf(v,
			  "priority-flow-control pause watchdog port timer timeout %s "
			  "polling-interval %s recovery-time %s%s\n",
			  to, poll, rec, forced[0] == 'f' ? " forced" : "");
	sb_printf(v, "end");
}

/* The link's speed in Mbit/s, as the inventory gives it (0: not given). */
static unsigned long long link_mbps(const struct inventory *inv, const struct inv_endpoint *e)
{
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];

		if ((l->a.kind == e->kind && l->a.dev == e->dev && l->a.port == e->port) ||
		    (l->b.kind == e->kind && l->b.dev == e->dev && l->b.port == e->port))
			return l->speed_mbps;
	}
	return 0;
}

/*
 * The share of time the storm pauses the priority, in thousandths: each
 * frame pauses it for quanta x 512 bit times at the link's speed.
 */
static unsigned long long paused_permille(const struct fault_spec *s, unsigned long long mbps)
{
	unsigned long long bits =
	    (unsigned long long)ps_of(s)->pfc_pps * ps_of(s)->pfc_quanta * PFC_QUANTUM_BITS;
	unsigned long long pm = bits / (mbps * 1000ULL); /* bits / (mbps * 1e6) * 1000 */

	return pm > 1000 ? 1000 : pm;
}

/*
 * pfc-storm, emulated: veth ignores PFC frames, so the port's egress of the
 * paused priority (toward the storming RNIC) is held by an HTB class at
 * the options' held_kbit (near zero when the storm pauses it all the time), its
 * packets queued in a deep FIFO as a lossless class holds them; the other
 * priorities pass at up to 10 Gbit/s, more than a veth carries here.
 */
static int linux_pfc_storm(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const char *p = r->port;
	struct sbuf a = {0}, v = {0};
	int ret = nos_need_port(r, "pfc-storm");

	if (!ret)
		ret = nos_linux_may_emulate(r, "PFC pauses");
	if (ret)
		return ret;
	sb_printf(&a,
		  "tc qdisc replace dev %s root handle 1: htb default 20 && "
		  "tc class add dev %s parent 1: classid 1:10 htb rate %llukbit ceil %llukbit "
		  "quantum 1514 && "
		  "tc class add dev %s parent 1: classid 1:20 htb rate 10gbit burst 200k quantum "
		  "60000 && "
		  "tc qdisc add dev %s parent 1:10 handle 10: pfifo limit 100000 && "
		  "tc filter add dev %s parent 1: protocol ip prio 1 u32 match ip tos 0x%02x 0xe0 "
		  "flowid 1:10",
		  p, p, ps_of(s)->held_kbit, ps_of(s)->held_kbit, p, p, p, ps_of(s)->priority << 5);
	sb_printf(&v, "tc qdisc del dev %s root 2>/dev/null; ! tc qdisc show dev %s | grep -q htb",
		  p, p);
	nos_read_tc_root(nos_emit(r, &a, NULL, &v), p);
	return 0;
}

/*
 * PFC frames a port received for a priority, per NOS:
 * - SONiC keeps them in COUNTERS_DB, per port object, as
 *   SAI_PORT_STAT_PFC_<p>_RX_PKTS, the port's object found in
 *   COUNTERS_PORT_NAME_MAP: what pfcstat ('show pfc counters') reads
 *   (sonic-net/sonic-utilities, scripts/pfcstat: counter_bucket_rx_dict).
 *   One number.
 * - EOS: 'show interfaces PORT priority-flow-control counters detail |
 *   json', interfaces.PORT.priorities."<p>".rxFrames: the model
 *   facebook/DNE-TaaC reads from EOS switches
 *   (taac/health_checks/dsf_health_checks/dsf_pfc_health_check.py,
 *   _get_eos_pfc_counters).  Arista publishes no sample output of it that
 *   we found; the text form ('show priority-flow-control counters') has
 *   RxPfc and TxPfc per port, all priorities together.
 * - NVUE: 'nv show interface PORT counters qos pfc-stats', a table with
 *   switch-priority and rx-pause-frames columns (CumulusNetworks/docs, NVUE
 *   command reference, Cumulus Linux 5.5 and later; 5.4 and earlier call it
 *   'qos counters pfc-stats': caps.h, NOS_CAP_NVUE_COUNTERS_QOS).
 */
int pfc_storm_rx_counter(const struct inv_switch *sw, const char *port, int prio, struct sbuf *cmd,
			 struct sbuf *read_as)
{
	switch (sw->dialect) {
	case INV_DIALECT_SONIC:
		sb_printf(cmd,
			  "sonic-db-cli COUNTERS_DB HGET \"COUNTERS:$(sonic-db-cli COUNTERS_DB "
			  "HGET COUNTERS_PORT_NAME_MAP %s)\" SAI_PORT_STAT_PFC_%d_RX_PKTS",
			  port, prio);
		sb_printf(read_as, "sonic-pfc-rx %s %d", port, prio);
		return 0;
	case INV_DIALECT_EOS:
		sb_printf(cmd, "show interfaces %s priority-flow-control counters detail | json",
			  port);
		sb_printf(read_as, "eos-pfc-rx %s %d", port, prio);
		return 0;
	case INV_DIALECT_NVUE:
		sb_printf(cmd, "nv show interface %s %s pfc-stats", port,
			  nos_has(sw, NOS_CAP_NVUE_COUNTERS_QOS) ? "counters qos" : "qos counters");
		sb_printf(read_as, "nvue-pfc-rx %s %d", port, prio);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int plan_host(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const struct inv_host *h = &r->inv->hosts[s->tdev];
	struct fault_spec at_switch = *s;
	struct render_ctx pr = *r;
	struct inv_endpoint e;
	unsigned long long given, mbps, pm;
	char port[96];
	int ret = fault_rnic_switch_end(r->inv, s, &e, r->why, r->whylen);

	if (ret)
		return ret;
	inventory_endpoint_name(r->inv, &e, port, sizeof(port));
	snprintf(
	    r->plan->runs, sizeof(r->plan->runs),
	    "%.40s run: rocelab load pfc --dev %.16s --priority %d --quanta %u --pps %u, for as "
	    "long as the fault lasts (802.1Qbb frames toward %.60s)",
	    h->name, h->rnics[s->tport].netdev, ps_of(s)->priority, ps_of(s)->pfc_quanta,
	    ps_of(s)->pfc_pps, port);
	if (!s->kind->render[r->inv->switches[e.dev].dialect]) {
		const struct inv_switch *end = &r->inv->switches[e.dev];
		const char *netdev = inventory_netdev(r->inv, &e);
		struct sbuf cmd = {0}, as = {0};
		size_t at = strlen(r->plan->runs);

		snprintf(
		    r->plan->note, sizeof(r->plan->note),
		    "%.80s pauses priority %d toward %.72s itself, as its PFC configuration says",
		    port, ps_of(s)->priority, s->target);
		fault_plan_nos(r->plan, end);
		if (ps_of(s)->pfcwd != WD_AS_FOUND) {
			static int (*const wd[])(struct render_ctx *, const char *) = {
			    [INV_DIALECT_SONIC] = sonic_pfcwd,
			    [INV_DIALECT_EOS] = eos_pfcwd,
			    [INV_DIALECT_NVUE] = nvue_pfcwd,
			};

			if ((size_t)end->dialect >= ARRAY_SIZE(wd) || !wd[end->dialect]) {
				snprintf(
				    r->why, r->whylen,
				    "--pfcwd: rocelab starts and stops the PFC watchdog of "
				    "SONiC ('pfcwd start|stop'), EOS ('priority-flow-control "
				    "pause watchdog') and NVUE ('qos pfc-watchdog state'), not "
				    "of %s's %s",
				    end->name, inv_dialect_name(end->dialect));
				return -EOPNOTSUPP;
			}
			pr.sw = e.dev;
			if ((ret = wd[end->dialect](&pr, netdev)))
				return ret;
		}
		if (!pfc_storm_rx_counter(end, netdev, ps_of(s)->priority, &cmd, &as))
			snprintf(r->plan->runs + at, sizeof(r->plan->runs) - at,
				 "\nssh %s counter: %s, before the storm and as it runs", end->name,
				 cmd.p);
		sb_free(&cmd);
		sb_free(&as);
		return 0;
	}
	if (ps_of(s)->pfcwd != WD_AS_FOUND) {
		snprintf(r->why, r->whylen,
			 "--pfcwd: %s is a Linux switch, whose pause is emulated: it has no PFC "
			 "watchdog",
			 r->inv->switches[e.dev].name);
		return -EOPNOTSUPP;
	}
	given = link_mbps(r->inv, &e);
	mbps = given ? given : STORM_DEFAULT_MBPS;
	pm = paused_permille(s, mbps);
	ps_rw(&at_switch)->held_kbit = mbps * (1000 - pm); /* kbit/s */
	if (ps_of(&at_switch)->held_kbit < STORM_HELD_KBIT)
		ps_rw(&at_switch)->held_kbit = STORM_HELD_KBIT;
	pr.spec = &at_switch;
	pr.sw = e.dev;
	pr.port = inventory_netdev(r->inv, &e);
	snprintf(
	    r->plan->note, sizeof(r->plan->note),
	    "emulated pause (veth ignores PFC): %.60s's egress of priority %d held at %llu kbit/s "
	    "while the storm lasts, paused %llu.%llu%% of the time at %llu Mbit/s%s",
	    port, ps_of(s)->priority, ps_of(&at_switch)->held_kbit, pm / 10, pm % 10, mbps,
	    given ? "" : " (no speed in the inventory)");
	return fault_render(&pr);
}

/*
 * The watchdog as read (sonic_pfcwd): its undo puts it back so ('pfcwd start'
 * with what PFC_WD|PORT held), or stops it when it was not set.
 */
static int judge_wd(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		    void *ctx)
{
	struct fault_action *a = &p->acts[i];
	const char *port = fault_read_port(a);
	struct sbuf v = {0};
	unsigned d = 0, rt = 0;
	char act[16] = "";

	(void)ctx;
	if (!strncmp(a->read_as, "eos-pfcwd ", 10)) {
		if (rb->profile[0]) {
			/* its watchdog may be the profile's: the undo could not tell */
			snprintf(f->err, sizeof(f->err),
				 "%s:%s names the qos profile '%s' (service-profile), whose "
				 "watchdog lines apply to it too: rocelab changes a port's own "
				 "lines only; leave --pfcwd out, or storm a port without a profile",
				 a->device, port, rb->profile);
			return -EOPNOTSUPP;
		}
		eos_pfcwd_undo(port, rb->value, &v);
		fault_action_set(&a->revert, v.p);
		sb_free(&v);
		return 0;
	}
	if (!strncmp(a->read_as, "nvue-pfcwd ", 11)) {
		if (rb->admin[0])
			sb_printf(&v, "nv set interface %s qos pfc-watchdog state %s", port,
				  rb->admin);
		else
			sb_printf(&v, "nv unset interface %s qos pfc-watchdog", port);
		sb_printf(&v, " && nv config apply -y");
		fault_action_set(&a->revert, v.p);
		sb_free(&v);
		return 0;
	}
	if (strncmp(a->read_as, "sonic-pfcwd ", 12))
		return 0;
	if (sscanf(rb->value, "%u %u %15s", &d, &rt, act) >= 1 && d) {
		sb_printf(&v, "sudo pfcwd start");
		if (strcmp(act, "-"))
			sb_printf(&v, " --action %s", act);
		if (rt)
			sb_printf(&v, " --restoration-time %u", rt);
		sb_printf(&v, " %s %u", port, d);
	} else {
		sb_printf(&v, "sudo pfcwd stop %s", port);
	}
	fault_action_set(&a->revert, v.p);
	sb_free(&v);
	return 0;
}

/*
 * A port with a root qdisc of its own would lose it to the hold: refused
 * (fault_found); a watchdog the storm sets is put back as read (judge_wd).
 */
static int discover(struct fault_run *f, struct fault_plan *p)
{
	return fault_judge_found(f, p, "the emulated pause", judge_wd, NULL);
}

/* The storm's sender on the RNIC's host, started once the hold is in place. */
struct storm {
	struct lab_proc proc;
	char log[64];
	char marker[256];	    /* on the host: the sender runs while it is there and touched */
	unsigned long long beat;    /* when it was last touched (rl_now_ns) */
	struct inv_endpoint sw_end; /* the switch port the frames arrive at */
	struct fault_action rx;	    /* a NOS's PFC receive counter: its read and parser */
	unsigned long long rx_before; /* what it said before the storm */
	/*
	 * A NOS's PFC watchdog of the queue (nos_ops.pfcwd; wd_state NULL: none read):
	 * its state's read, as it was before the storm, its restoration time.
	 */
	char *wd_state;
	char wd_was[16];
	long long wd_restore_ms; /* -1: not set */
	unsigned long long t0;	 /* when the sender was started (rl_now_ns) */
	/*
	 * With --pfcwd on|off, what the watchdog's reads bound (s after the storm
	 * began, or after it ended): it tripped after wd_calm_s (the last read
	 * that found it operational) and by wd_trip_s (the first that found it
	 * stormed; -1: none did); it gave the queue back after wd_held_s and by
	 * wd_back_s (-1: no read found it back).
	 */
	bool wd_measured, wd_read_after;
	double wd_calm_s, wd_trip_s, wd_held_s, wd_back_s;
	/* what that watchdog was set to: its detection and restoration times (-1: none) */
	long long wd_detect_set_ms, wd_restore_set_ms;
};

/* The NOS counter's value now: 0, or -EIO with f->err. */
static int read_rx(struct fault_run *f, const struct storm *st, unsigned long long *v)
{
	char err[400];
	struct readback rb;

	if (fault_read_now(f->lab, &st->rx, NULL, &rb, err, sizeof(err))) {
		snprintf(f->err, sizeof(f->err), "reading the PFC counter on %s ('%s'): %s",
			 st->rx.device, st->rx.read, err);
		return -EIO;
	}
	*v = rb.packets;
	return 0;
}

/*
 * The one word a NOS printed (a watchdog's state, a time) into out, blanks
 * around it trimmed; "" for nothing but blanks.  false when the read failed
 * or what it printed is anything else than one word of [A-Za-z0-9_-]
 * (device output is untrusted), said in err.
 */
static bool nos_word(struct fault_run *f, const char *dev, const char *line, char *out, size_t len,
		     char *err, size_t errlen)
{
	char *o = NULL, *p, *e;
	int r = lab_cli(f->lab, dev, line, NULL, &o, err, errlen);

	if (r) {
		free(o);
		return false;
	}
	for (p = o ? o : ""; *p == ' ' || *p == '\t' || *p == '\r'; p++)
		;
	e = p + strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");
	if ((size_t)(e - p) >= len || e[strspn(e, " \t\r\n")]) {
		snprintf(err, errlen, "'%s' printed no one word", line);
		free(o);
		return false;
	}
	snprintf(out, len, "%.*s", (int)(e - p), p);
	free(o);
	return true;
}

/*
 * What the watchdog the storm sets (--pfcwd) is set to: on SONiC what the
 * storm gives it (--pfcwd-detect; --pfcwd-restore, or twice the detection
 * time, as 'pfcwd start' takes it); on NVUE the switch's polling interval
 * times its robustness, as its read found them, and no restoration time.
 */
static void wd_settings(struct fault_run *f, struct storm *st)
{
	const struct pfc_storm_opts *o = ps_of(f->spec);

	st->wd_detect_set_ms = o->wd_detect_ms;
	st->wd_restore_set_ms = wd_restore_of(o);
	for (size_t i = 0; i < f->plan->n_acts; i++) {
		const struct fault_action *a = &f->plan->acts[i];
		struct readback rb;
		char err[160];
		long long poll, robust;

		if (!a->read_as || strncmp(a->read_as, "nvue-pfcwd ", 11) || !a->found ||
		    readback_parse(a->read_as, a->found, &rb, err, sizeof(err)) ||
		    sscanf(rb.value, "%*s %lld %lld", &poll, &robust) != 2)
			continue;
		st->wd_detect_set_ms = poll * robust;
		st->wd_restore_set_ms = -1;
	}
}

/*
 * The switch end's PFC watchdog of the storm's queue, where its NOS says how
 * to read it (SONiC): its state before the storm and its restoration time,
 * for stop() to wait on.  One that cannot be read is warned of and not
 * waited on; the storm goes on.
 */
static void wd_begin(struct fault_run *f, struct storm *st)
{
	const struct inv_switch *sw = &f->inv->switches[st->sw_end.dev];
	const struct nos_ops *ops = nos_ops_of(sw->dialect);
	const char *port = inventory_netdev(f->inv, &st->sw_end);
	struct sbuf state = {0}, restore = {0};
	char t[24], err[256];

	if (!ops || !ops->pfcwd)
		return;
	ops->pfcwd(port, ps_of(f->spec)->priority, &state, &restore);
	st->wd_restore_ms = -1;
	st->wd_trip_s = st->wd_back_s = -1;
	wd_settings(f, st);
	if (!nos_word(f, sw->name, state.p, st->wd_was, sizeof(st->wd_was), err, sizeof(err)) ||
	    !nos_word(f, sw->name, restore.p, t, sizeof(t), err, sizeof(err))) {
		rl_warn("pfc-storm %u: the PFC watchdog of %s:%s queue %d is not read, nor waited "
			"on after the storm: %s",
			f->id, sw->name, port, ps_of(f->spec)->priority, err);
		sb_free(&state);
	} else {
		st->wd_state = sb_take(&state);
		if (t[0] && strspn(t, "0123456789") == strlen(t) && strlen(t) < 9)
			st->wd_restore_ms = atoll(t);
	}
	sb_free(&restore);
}

/* How long past its restoration time a watchdog may take to say so (its poll, the counters'). */
#define WD_SLACK_MS 5000

/*
 * After the storm: a PFC watchdog the storm tripped ("stormed") gives the
 * queue back by itself once no pause has come for its restoration time.
 * Waited for, read every half second, up to that time and WD_SLACK_MS (3 s
 * and the slack when it is not set); one still stormed then is drift
 * (f->left), with what restores it.  One that was stormed before the storm
 * is not the storm's: left alone.
 */
static void wd_end(struct fault_run *f, struct storm *st)
{
	const struct inv_switch *sw = &f->inv->switches[st->sw_end.dev];
	const char *port = inventory_netdev(f->inv, &st->sw_end);
	long long wait = (st->wd_restore_ms >= 0 ? st->wd_restore_ms : 3000) + WD_SLACK_MS;
	unsigned long long t0 = rl_now_ns(), until = t0 + (unsigned long long)wait * 1000000ULL;
	char now[16], err[256];
	bool tripped = false;

	if (!st->wd_state || !strcmp(st->wd_was, "stormed"))
		return;
	for (;;) {
		unsigned long long asked = rl_now_ns();

		if (!nos_word(f, sw->name, st->wd_state, now, sizeof(now), err, sizeof(err))) {
			rl_warn(
			    "pfc-storm %u: the PFC watchdog of %s:%s queue %d not read after the "
			    "storm: %s",
			    f->id, sw->name, port, ps_of(f->spec)->priority, err);
			return;
		}
		st->wd_read_after = true;
		if (strcmp(now, "stormed")) {
			st->wd_back_s = (double)(rl_now_ns() - t0) / 1e9;
			break;
		}
		st->wd_held_s = (double)(asked - t0) / 1e9;
		tripped = true;
		if (rl_now_ns() >= until) {
			snprintf(
			    f->left, sizeof(f->left),
			    "%s (PFC watchdog of %s queue %d): '%s' before the storm, 'stormed' "
			    "%.1f s after it ended (restoration time %lld ms): the queue drops "
			    "its traffic; 'sudo pfcwd stop %s' and start it again as PFC_WD|%s "
			    "says",
			    sw->name, port, ps_of(f->spec)->priority,
			    st->wd_was[0] ? st->wd_was : "not watched",
			    (double)(rl_now_ns() - t0) / 1e9, st->wd_restore_ms, port, port);
			return;
		}
		nanosleep(&(struct timespec){0, 500000000L}, NULL); /* bounded: not cut short */
	}
	if (tripped)
		rl_info("pfc-storm %u: the PFC watchdog of %s:%s queue %d gave it back (%s) %.1f s "
			"after the storm ended",
			f->id, sw->name, port, ps_of(f->spec)->priority, now[0] ? now : "-",
			(double)(rl_now_ns() - t0) / 1e9);
}

/*
 * A sender on a host reached over SSH outlives an injector killed with -9
 * (it runs in a session of its own there): it gets a marker in this run's
 * folder on the host, which 'rocelab revert' sweeps once the run has
 * ended, and stops when the marker goes ('load pfc --while').  On the
 * virtual lab the sender is this process's child and dies with it: there
 * is "" (no marker).  0, or -errno with f->err.
 */
static int storm_marker(struct fault_run *f, const char *host, char *there, size_t len)
{
	char local[64];
	int r;

	snprintf(local, sizeof(local), "/tmp/rocelab-pfc.%d.%u.marker", (int)getpid(), f->id);
	r = rl_write_file(local, f->spec->target, strlen(f->spec->target));
	if (!r)
		r = lab_share(f->lab, host, local, there, len);
	if (!r && !strcmp(there, local))
		there[0] = '\0'; /* the same file system: nothing to mark */
	unlink(local);
	if (r)
		snprintf(f->err, sizeof(f->err), "cannot place the storm's marker on %s: %s", host,
			 strerror(-r));
	return r;
}

/*
 * The injector's heartbeat: the marker touched (not made again: a sweep
 * that removed it meant the storm to end), at most once a second.  An SSH
 * login that fails is not fatal: the sender then stops by itself.
 */
static void heartbeat(struct fault_run *f)
{
	struct storm *st = f->kind_state;
	char err[256];

	if (!st || !st->marker[0] || rl_now_ns() < st->beat + 1000000000ULL)
		return;
	st->beat = rl_now_ns();
	if (lab_exec(f->lab, f->inv->hosts[f->spec->tdev].name,
		     (const char *const[]){"touch", "-c", st->marker, NULL}, NULL, NULL, err,
		     sizeof(err)))
		rl_warn("pfc-storm %u: heartbeat to %s: %s", f->id, st->marker, err);
}

/*
 * A storm lasts only while its injector lives: it must be told when to end
 * (--for) or be held (--hold) and ended by a signal; 'stays until rocelab
 * revert' would leave a storm with no one to end it.
 */
static int precheck(struct fault_run *f)
{
	if (f->spec->for_ms || f->spec->hold)
		return 0;
	snprintf(f->err, sizeof(f->err),
		 "a PFC storm lasts only while its injector runs: give --for DURATION, or --hold "
		 "and end it with SIGINT or SIGTERM");
	return -EINVAL;
}

/* The sender's log on this machine, of the injector pid. */
static void sender_log(pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/rocelab-pfc.%d.log", (int)pid);
}

/* The storm's margin past --for on the host: its hard deadline and frame cap. */
#define STORM_DEADLINE_MARGIN_MS 5000

static int start(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	char self[PATH_MAX], prio[8], quanta[16], pps[16], there[256], until[32], cap[24],
	    orphan[32];
	const char *argv[24];
	size_t n = 0;
	struct sbuf cmd = {0}, as = {0};
	struct storm *st;
	int r;

	if ((r = fault_self(f, self)) || (r = fault_copy_self(f, s->tdev, self)))
		return r;
	snprintf(prio, sizeof(prio), "%d", ps_of(s)->priority);
	snprintf(quanta, sizeof(quanta), "%u", ps_of(s)->pfc_quanta);
	snprintf(pps, sizeof(pps), "%u", ps_of(s)->pfc_pps);
	snprintf(orphan, sizeof(orphan), "%lldms", ps_of(s)->orphan_ms);
	/* --for: ends on the host by itself, at a deadline and a frame count, a margin after */
	if (s->for_ms) {
		long long ms = s->for_ms + STORM_DEADLINE_MARGIN_MS;
		unsigned long long frames =
		    (unsigned long long)ps_of(s)->pfc_pps * (unsigned long long)ms / 1000;

		snprintf(until, sizeof(until), "%lldms", ms);
		snprintf(cap, sizeof(cap), "%llu", frames > UINT_MAX ? UINT_MAX : frames);
	}
	st = rl_xcalloc(1, sizeof(*st));
	if ((r = fault_rnic_switch_end(f->inv, s, &st->sw_end, f->err, sizeof(f->err))))
		goto fail;
	/* a NOS that counts the frames it receives: read before the storm */
	if (!pfc_storm_rx_counter(&f->inv->switches[st->sw_end.dev],
				  inventory_netdev(f->inv, &st->sw_end), ps_of(s)->priority, &cmd,
				  &as)) {
		st->rx.backend = FB_SSH;
		snprintf(st->rx.device, sizeof(st->rx.device), "%s",
			 f->inv->switches[st->sw_end.dev].name);
		st->rx.read = sb_take(&cmd);
		st->rx.read_as = sb_take(&as);
		if ((r = read_rx(f, st, &st->rx_before)))
			goto fail;
		wd_begin(f, st);
	}
	sender_log(getpid(), st->log, sizeof(st->log));
	if ((r = storm_marker(f, h->name, there, sizeof(there))))
		goto fail;
	snprintf(st->marker, sizeof(st->marker), "%s", there);
	st->beat = rl_now_ns();
	argv[n++] = lab_program(f->lab, h->name, self);
	for (const char *const *w =
		 (const char *const[]){"load", "pfc", "--dev", h->rnics[s->tport].netdev,
				       "--priority", prio, "--quanta", quanta, "--pps", pps, NULL};
	     *w; w++)
		argv[n++] = *w;
	if (s->for_ms) {
		argv[n++] = "--for", argv[n++] = until;
		argv[n++] = "--frames", argv[n++] = cap;
	}
	if (there[0]) { /* watched, and its injector's heartbeat */
		argv[n++] = "--while", argv[n++] = there;
		argv[n++] = "--orphan-after", argv[n++] = orphan;
	}
	argv[n] = NULL;
	st->t0 = rl_now_ns();
	r = lab_spawn(f->lab, h->name, argv, st->log, &st->proc);
	if (r) {
		snprintf(f->err, sizeof(f->err), "cannot start 'rocelab load pfc' on %s: %s",
			 h->name, strerror(-r));
		goto fail;
	}
	f->kind_state = st;
	return 0;
fail:
	sb_free(&cmd);
	sb_free(&as);
	free(st->rx.read);
	free(st->rx.read_as);
	free(st->wd_state);
	free(st);
	return r;
}

/* An injector killed with -9 never ran its stop: its sender's log goes with the revert. */
static void sweep(pid_t pid)
{
	char log[64];

	sender_log(pid, log, sizeof(log));
	unlink(log);
}

/*
 * How far past its detection or restoration time a watchdog may act and
 * still act as set: its poll, at most 1 s (sonic-utilities pfcwd/main.py
 * MAX_POLL_INTERVAL_TIME; 200 ms by default).
 */
#define WD_GRADE_SLACK_MS 1000

/*
 * With --pfcwd on|off: what the watchdog did against what it was set to,
 * into f->measured ("pfcwd": the times set, the bounds its reads put on
 * when it tripped and gave the queue back, and a grade).  Late only when a
 * read found it not yet done past its time and the slack: a read's own
 * delay never makes a watchdog late.  off: it must not trip.
 */
static void wd_measured(struct fault_run *f, const struct storm *st)
{
	const struct pfc_storm_opts *o = ps_of(f->spec);
	long long restore = st->wd_restore_set_ms, detect = st->wd_detect_set_ms;
	double det = (double)(detect + WD_GRADE_SLACK_MS) / 1e3,
	       back = (double)(restore + WD_GRADE_SLACK_MS) / 1e3;
	char why[256] = "";
	const char *grade = "pass";
	json_t *m;

	if (!st->wd_measured && o->pfcwd != WD_AS_FOUND && !st->wd_state) {
		/* set, and not read: its NOS prints no state rocelab reads (EOS) */
		m = json_pack("{s:s, s:I, s:s, s:s}", "mode", o->pfcwd == WD_ON ? "on" : "off",
			      "detection_ms", (json_int_t)o->wd_detect_ms, "grade", "not-measured",
			      "why", "its state is not read on this NOS");
		if (o->pfcwd == WD_ON)
			json_object_set_new(m, "restoration_ms", json_integer(wd_restore_of(o)));
		if (!f->measured)
			f->measured = json_object();
		json_object_set_new(f->measured, "pfcwd", m);
		return;
	}
	if (!st->wd_measured)
		return;
	if (o->pfcwd == WD_OFF) {
		if (st->wd_trip_s >= 0)
			snprintf(why, sizeof(why),
				 "stopped (pfcwd off), it read 'stormed' %.2f s "
				 "after the storm began",
				 st->wd_trip_s);
	} else if (st->wd_trip_s < 0) {
		snprintf(why, sizeof(why),
			 "not tripped %.1f s after the storm began (detection %lld ms)",
			 st->wd_calm_s, detect);
	} else if (st->wd_calm_s > det) {
		snprintf(why, sizeof(why),
			 "tripped late: not yet %.2f s after the storm began (detection %lld ms, "
			 "and %d ms of poll)",
			 st->wd_calm_s, detect, WD_GRADE_SLACK_MS);
	} else if (!st->wd_read_after) {
		grade = "not-measured";
		snprintf(why, sizeof(why), "not read after the storm");
	} else if (st->wd_back_s < 0 || (restore >= 0 && st->wd_held_s > back)) {
		if (restore >= 0)
			snprintf(why, sizeof(why),
				 "gave the queue back late: still stormed %.1f s after the storm "
				 "ended (restoration %lld ms, and %d ms of poll)",
				 st->wd_held_s, restore, WD_GRADE_SLACK_MS);
		else
			snprintf(
			    why, sizeof(why),
			    "did not give the queue back: still stormed %.1f s after the storm "
			    "ended",
			    st->wd_held_s);
	}
	if (why[0] && strcmp(grade, "not-measured"))
		grade = "fail";
	m = json_pack("{s:s, s:I, s:I}", "mode", o->pfcwd == WD_ON ? "on" : "off", "detection_ms",
		      (json_int_t)detect, "restoration_ms", (json_int_t)restore);
	if (o->pfcwd == WD_OFF || restore < 0) /* off, or a watchdog with none to set (NVUE) */
		json_object_del(m, "restoration_ms");
	json_object_set_new(m, "tripped_after_s",
			    st->wd_trip_s >= 0 ? json_real(st->wd_calm_s) : json_null());
	json_object_set_new(m, "tripped_by_s",
			    st->wd_trip_s >= 0 ? json_real(st->wd_trip_s) : json_null());
	if (o->pfcwd == WD_ON && st->wd_trip_s >= 0) {
		json_object_set_new(m, "restored_after_s", json_real(st->wd_held_s));
		json_object_set_new(m, "restored_by_s",
				    st->wd_back_s >= 0 ? json_real(st->wd_back_s) : json_null());
	}
	json_object_set_new(m, "grade", json_string(grade));
	if (why[0])
		json_object_set_new(m, "why", json_string(why));
	if (!f->measured)
		f->measured = json_object();
	json_object_set_new(f->measured, "pfcwd", m);
}

static void stop(struct fault_run *f)
{
	struct storm *st = f->kind_state;
	long long n;

	if (!st)
		return;
	lab_stop(f->lab, &st->proc, 2000);
	n = fault_log_count(st->log, "pfc: "); /* "pfc: N frames sent ..." as it ended */
	if (n >= 0)
		rl_info("pfc-storm %u: %lld PFC frames sent from %s", f->id, n, f->spec->target);
	wd_end(f, st);
	wd_measured(f, st);
	unlink(st->log);
	free(st->rx.read);
	free(st->rx.read_as);
	free(st->wd_state);
	free(st);
	f->kind_state = NULL;
}

/* The emulated hold is in place (an HTB root on the port). */
static bool held(const struct fault_run *f, const struct fault_action *a, const struct readback *rb)
{
	(void)f;
	(void)a;
	return !strcmp(rb->qdisc, "htb");
}

/* How long a NOS may take to show its port counters (SONiC polls them every second). */
#define NOS_COUNTER_WAIT_MS 12000

/*
 * The watchdog the storm set (--pfcwd): on, how long after the storm began
 * its queue read "stormed" (read every quarter second, up to its detection
 * time and WD_SLACK_MS); off, that it did not trip.  Said in f->evidence: a
 * watchdog that does not do as set is the switch's finding, not the storm's
 * failure.
 */
/*
 * One read of the watchdog the storm set (--pfcwd on|off; st->wd_state) into
 * now[16]: the bounds on when it tripped moved (wd_calm_s by when it was
 * asked: the state it gave was so by then at most; wd_trip_s by when it
 * answered).  false, with err, when it was not read.
 */
static bool wd_sample(struct fault_run *f, struct storm *st, const char *sw, char *now, char *err,
		      size_t errlen)
{
	unsigned long long asked = rl_now_ns();

	if (!nos_word(f, sw, st->wd_state, now, 16, err, errlen))
		return false;
	st->wd_measured = true;
	if (strcmp(now, "stormed"))
		st->wd_calm_s = (double)(asked - st->t0) / 1e9;
	else if (st->wd_trip_s < 0)
		st->wd_trip_s = (double)(rl_now_ns() - st->t0) / 1e9;
	return true;
}

/* Is the watchdog the storm set (--pfcwd on|off) still to be watched for its trip? */
static bool wd_watching(const struct fault_run *f, const struct storm *st)
{
	return ps_of(f->spec)->pfcwd != WD_AS_FOUND && st->wd_state && st->wd_trip_s < 0;
}

static void wd_during(struct fault_run *f, struct storm *st, const char *sw)
{
	const struct pfc_storm_opts *o = ps_of(f->spec);
	const char *port = inventory_netdev(f->inv, &st->sw_end);
	unsigned long long until =
	    st->t0 + (unsigned long long)(st->wd_detect_set_ms + WD_SLACK_MS) * 1000000ULL;
	size_t k = strlen(f->evidence);
	char now[16] = "", err[256];

	if (o->pfcwd == WD_AS_FOUND)
		return;
	if (!st->wd_state) {
		snprintf(f->evidence + k, sizeof(f->evidence) - k,
			 "; the PFC watchdog of %s queue %d set for the storm (pfcwd %s), its "
			 "state not read (%s prints none rocelab reads)",
			 port, o->priority, o->pfcwd == WD_ON ? "on" : "off",
			 inv_dialect_name(f->inv->switches[st->sw_end.dev].dialect));
		return;
	}
	for (;;) {
		if (!wd_sample(f, st, sw, now, err, sizeof(err))) {
			snprintf(f->evidence + k, sizeof(f->evidence) - k,
				 "; its PFC watchdog (pfcwd %s) not read: %s",
				 o->pfcwd == WD_ON ? "on" : "off", err);
			return;
		}
		if (o->pfcwd == WD_OFF || !strcmp(now, "stormed") || rl_now_ns() >= until ||
		    rl_interrupted)
			break;
		nanosleep(&(struct timespec){0, 250000000L}, NULL);
		heartbeat(f); /* the sender's, over SSH */
	}
	if (o->pfcwd == WD_OFF)
		snprintf(f->evidence + k, sizeof(f->evidence) - k,
			 "; the PFC watchdog of %s queue %d stopped for the storm (pfcwd off): %s",
			 port, o->priority,
			 strcmp(now, "stormed") ? "not tripped, the queue stays paused"
						: "yet it reads 'stormed'");
	else if (!strcmp(now, "stormed"))
		snprintf(f->evidence + k, sizeof(f->evidence) - k,
			 "; the PFC watchdog of %s queue %d (pfcwd on, detection %lld ms) tripped "
			 "%.2f s after the storm began",
			 port, o->priority, st->wd_detect_set_ms,
			 (double)(rl_now_ns() - st->t0) / 1e9);
	else
		snprintf(f->evidence + k, sizeof(f->evidence) - k,
			 "; the PFC watchdog of %s queue %d (pfcwd on, detection %lld ms) had not "
			 "tripped %.1f s after the storm began ('%s'): the queue stays paused",
			 port, o->priority, st->wd_detect_set_ms,
			 (double)(rl_now_ns() - st->t0) / 1e9, now);
}

/* A NOS's own PFC receive counter rises by half a second of the storm at least. */
static int verify_nos(struct fault_run *f, struct storm *st, const char *sw)
{
	unsigned long long now, want = ps_of(f->spec)->pfc_pps / 2 + 1,
				until = rl_now_ns() + NOS_COUNTER_WAIT_MS * 1000000ULL;
	int r;

	do {
		/* a second, the watchdog the storm set read every quarter of it until it trips */
		for (int q = 0; q < 4; q++) {
			char word[16], err[256];

			fault_sleep_ms(250);
			if (wd_watching(f, st))
				wd_sample(f, st, sw, word, err, sizeof(err));
		}
		heartbeat(f);
		if ((r = read_rx(f, st, &now)))
			return r;
		if (now >= st->rx_before + want) {
			snprintf(
			    f->evidence, sizeof(f->evidence),
			    "'%.200s' on %s: %llu PFC frames of priority %d received since the "
			    "storm began",
			    st->rx.read, sw, now - st->rx_before, ps_of(f->spec)->priority);
			wd_during(f, st, sw);
			return 0;
		}
	} while (rl_now_ns() < until && !rl_interrupted);
	snprintf(f->err, sizeof(f->err),
		 "'%.200s' on %s rose by %llu in %d s, not by the %llu a half second of the storm "
		 "sends: the switch does not receive it",
		 st->rx.read, sw, now >= st->rx_before ? now - st->rx_before : 0,
		 NOS_COUNTER_WAIT_MS / 1000, want);
	return -EIO;
}

/* A storm within a fifth of its rate counts as the storm asked for. */
#define STORM_RATE_TOLERANCE 0.2

/*
 * The frames as the switch port receives them: on a virtual lab, counted on
 * the port for a second (format and rate); elsewhere the sender is alive and
 * the hold reads back; a NOS: its own PFC receive counter rises (verify_nos).
 */
static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	struct storm *st = f->kind_state; /* start's */
	const struct inv_switch *sw = &f->inv->switches[st->sw_end.dev];
	const char *port = inventory_netdev(f->inv, &st->sw_end);
	struct pfc_count c;
	double rate;
	int saved, r;

	fault_sleep_ms(200); /* the sender's start */
	if (!lab_alive(f->lab, &st->proc)) {
		snprintf(f->err, sizeof(f->err), "'rocelab load pfc' on %s ended at once (%s)",
			 f->inv->hosts[s->tdev].name, st->log);
		return -EIO;
	}
	if (st->rx.read)
		return verify_nos(f, st, sw->name);
	if (!lab_can(f->lab, LAB_CAP_ENTER)) {
		r = fault_verify_reads(f, held);
		if (!r)
			snprintf(
			    f->evidence + strlen(f->evidence),
			    sizeof(f->evidence) - strlen(f->evidence),
			    "%s'rocelab load pfc' sending on %s; no capture on the switch port (a "
			    "lab reached over SSH)",
			    f->evidence[0] ? "; " : "", s->target);
		return r;
	}
	if ((r = lab_enter(f->lab, sw->name, &saved))) {
		snprintf(f->err, sizeof(f->err), "cannot enter %s: %s", sw->name, strerror(-r));
		return r;
	}
	r = pfc_count_here(port, ps_of(s)->priority, 1000, &c);
	lab_leave(f->lab, saved);
	if (r) {
		snprintf(f->err, sizeof(f->err), "counting PFC frames on %s:%s: %s", sw->name, port,
			 strerror(-r));
		return r;
	}
	rate = c.secs > 0 ? (double)c.paused / c.secs : 0;
	if (c.malformed || c.paused != c.frames || c.quanta != ps_of(s)->pfc_quanta ||
	    rate < ps_of(s)->pfc_pps * (1 - STORM_RATE_TOLERANCE) ||
	    rate > ps_of(s)->pfc_pps * (1 + STORM_RATE_TOLERANCE)) {
		snprintf(f->err, sizeof(f->err),
			 "%s:%s received %llu PFC frames in %.2f s (%.0f/s, %u/s asked), %llu "
			 "pausing priority %d with quanta %u (%u asked), %llu malformed",
			 sw->name, port, c.frames, c.secs, rate, ps_of(s)->pfc_pps, c.paused,
			 ps_of(s)->priority, c.quanta, ps_of(s)->pfc_quanta, c.malformed);
		return -EIO;
	}
	if ((r = fault_verify_reads(f, held)))
		return r;
	snprintf(f->evidence + strlen(f->evidence), sizeof(f->evidence) - strlen(f->evidence),
		 "%s%s:%s received %llu PFC frames in %.2f s (%.0f/s; %u/s set), each pausing "
		 "priority %d for %u quanta",
		 f->evidence[0] ? "; " : "", sw->name, port, c.frames, c.secs, rate,
		 ps_of(s)->pfc_pps, ps_of(s)->priority, c.quanta);
	return 0;
}

const struct fault_kind_ops fk_pfc_storm = {
    .name = "pfc-storm",
    .usage = "--target HOST:RNIC [--priority 3] [--rate 2000/s] [--quanta 65535]\n"
	     "[--pfcwd on|off]   (pause emulated on a Linux switch; --pfcwd: the watchdog of\n"
	     "SONiC, EOS or NVUE)",
    .targets = FT_RNIC,
    .example = "host1:rnic1",
    .opts = opts,
    .opts_size = sizeof(struct pfc_storm_opts),
    .defaults = defaults,
    .check = check,
    .plan_host = plan_host,
    .render = {[INV_DIALECT_LINUX] = linux_pfc_storm},
    .precheck = precheck,
    .discover = discover,
    .start = start,
    .verify = verify,
    .beat = heartbeat,
    .sweep = sweep,
    .stop = stop,
    .follows =
	{
	    [INV_DIALECT_LINUX] = "iproute2 tc (HTB): the pause emulated",
	    [INV_DIALECT_SONIC] =
		"sonic-utilities scripts/pfcstat (COUNTERS_DB), pfcwd/main.py ('pfcwd "
		"start|stop', show stats)",
	    [INV_DIALECT_EOS] =
		"EOS 'show interfaces P priority-flow-control counters detail | json' (the model "
		"facebook/DNE-TaaC reads); aristanetworks/avd eos_cli_config_gen qos-profiles.j2 "
		"and qos_profiles.schema.yml ('priority-flow-control pause watchdog', 'port "
		"action', 'port timer')",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference ('nv show interface P counters qos pfc-stats', 5.5; 'qos "
		"counters pfc-stats' before); Cumulus Linux user guide, Quality of Service / PFC "
		"Watchdog ('qos pfc-watchdog state', 'nv show interface P qos pfc-watchdog', 5.6)",
	},
    .follows_host = "IEEE 802.1Qbb-2011 36.1.3 (the PFC frame: MAC control 0x0101), AF_PACKET",
};
