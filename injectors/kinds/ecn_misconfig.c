// SPDX-License-Identifier: MIT
/*
 * ecn-misconfig: the WRED/ECN marking of a switch port's lossless queue.
 * MP-RDMA (section 5, Fig. 14) misconfigures one path's RED as (Pmax,
 * Kmin, Kmax) = (1.0, 240KB, 240KB) where the others mark at 20KB: those
 * are the defaults here.  A NOS gets the thresholds in its own words
 * (ecn_misconfig_plan, below), read before and put back as found.  A
 * Linux switch port gets the kernel's RED with ECN on an emulated line
 * rate, where the kernel has sch_red (the VM tier's Debian kernel does;
 * a kernel without it is refused before anything changes), and is
 * verified by the CE marks it counts under ECN-capable test traffic.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/caps.h"
#include "injectors/render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ecn_misconfig_opts {
	/*
	 * the WRED/ECN marking of the port's lossless queue (priority): marks
	 * from ecn_kmin bytes queued, with probability rising to ecn_pmax percent
	 * at ecn_kmax, every ECT packet beyond; or, with ecn_off, no marking
	 */
	unsigned ecn_kmin, ecn_kmax, ecn_pmax;
	bool ecn_off;
	int priority;
	unsigned long long emu_rate_kbit; /* emulated port rate (virtual lab) */
};
FAULT_KIND_OPTS(ecn, struct ecn_misconfig_opts)

#define FS(f) offsetof(struct ecn_misconfig_opts, f)

/* A mark probability: "80%", "100%", or a share "0.8"; kept in whole percent, 1..100. */
static int pct_parse(const struct opt_desc *d, const char *v, void *field, char *err, size_t errlen)
{
	char *end;
	double x;

	errno = 0;
	x = rl_strtod(v, &end);
	if (!errno && end != v && *v >= '0' && *v <= '9' && (!*end || !strcmp(end, "%"))) {
		double pct = *end ? x : x * 100;

		if (pct >= 1 && pct <= 100 && fabs(pct - round(pct)) < 1e-6) {
			*(unsigned *)field = (unsigned)round(pct);
			return 0;
		}
	}
	snprintf(err, errlen,
		 "%s '%s': give a whole percent from 1%% to 100%% (e.g. 100%%, 20%%, 0.8)", d->name,
		 v);
	return -EINVAL;
}

static const char *pct_print(const void *field, char *buf, size_t len)
{
	snprintf(buf, len, "%u%%", *(const unsigned *)field);
	return buf;
}

static const struct opt_desc opts[] = {
    {"kmin", OPT_CUSTOM, 0, 0, FS(ecn_kmin), "queue depth where marking starts (Kmin)",
     fault_opt_bytes_parse, fault_opt_bytes_print},
    {"kmax", OPT_CUSTOM, 0, 0, FS(ecn_kmax),
     "queue depth where the mark probability reaches --pmax (Kmax); all are marked beyond",
     fault_opt_bytes_parse, fault_opt_bytes_print},
    {"pmax", OPT_CUSTOM, 0, 0, FS(ecn_pmax), "mark probability at Kmax (Pmax)", pct_parse,
     pct_print},
    {"off", OPT_BOOL, 0, 0, FS(ecn_off), "no ECN marking on the queue at all (a NOS only)"},
    {"priority", OPT_INT, 0, 7, FS(priority), "the lossless priority (its queue's number)"},
    {"emu-rate", OPT_CUSTOM, 1000, 10000000, FS(emu_rate_kbit),
     "emulated: the port's modelled line rate (a Linux switch)", fault_opt_rate_parse,
     fault_opt_rate_print},
    OPT_TABLE_END,
};

/* MP-RDMA Fig. 14's ECN mis-config: (Pmax, Kmin, Kmax) = (1.0, 240KB, 240KB). */
static void defaults(struct fault_spec *s)
{
	ecn_rw(s)->ecn_kmin = 240000;
	ecn_rw(s)->ecn_kmax = 240000;
	ecn_rw(s)->ecn_pmax = 100;
	ecn_rw(s)->priority = 3;
	ecn_rw(s)->emu_rate_kbit = 100000;
}

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	struct fault_spec d;

	defaults(&d);
	if (ecn_of(s)->ecn_off && (ecn_of(s)->ecn_kmin != ecn_of(&d)->ecn_kmin ||
				   ecn_of(s)->ecn_kmax != ecn_of(&d)->ecn_kmax ||
				   ecn_of(s)->ecn_pmax != ecn_of(&d)->ecn_pmax)) {
		snprintf(why, whylen,
			 "give --off or thresholds (--kmin, --kmax, --pmax), not both: --off marks "
			 "nothing");
		return -EINVAL;
	}
	if (ecn_of(s)->ecn_kmin > ecn_of(s)->ecn_kmax) {
		char a[16], b[16];

		snprintf(why, whylen,
			 "kmin %s is above kmax %s: give --kmin at most --kmax (equal: a step, "
			 "as DCTCP marks)",
			 fault_opt_bytes_print(&ecn_of(s)->ecn_kmin, a, sizeof(a)),
			 fault_opt_bytes_print(&ecn_of(s)->ecn_kmax, b, sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

/*
 * ecn-misconfig on a Linux switch port: sch_red with ecn (tc-red(8)) ends
 * the priority's class, marking CE on ECN-capable packets from --kmin
 * bytes queued (RED's average), with a probability rising to --pmax at
 * --kmax, and on every one beyond; the others it drops instead, as a
 * switch's WRED does.  The marking is the kernel's own; the queue it marks
 * is emulated (HTB at --emu-rate: veth has no line rate).  A Linux port
 * marks nothing without RED, so --off has nothing to turn off there.
 */
static int linux_ecn_misconfig(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	unsigned limit = ecn_of(s)->ecn_kmax < 25000 ? 100000 : ecn_of(s)->ecn_kmax * 4,
		 burst = (2 * ecn_of(s)->ecn_kmin + ecn_of(s)->ecn_kmax) / 3000 +
			 1; /* tc-red(8): (2 min + max) / 3 avpkt */
	char leaf[192];
	int ret = nos_need_port(r, "ecn-misconfig");

	if (!ret)
		ret = nos_linux_may_emulate(r, "ECN marking");
	if (ret)
		return ret;
	if (ecn_of(s)->ecn_off) {
		snprintf(
		    r->why, r->whylen,
		    "a Linux switch port (%s:%s) marks no ECN to begin with (no RED qdisc), so "
		    "--off has nothing to turn off; give thresholds instead (--kmin, --kmax, "
		    "--pmax)",
		    r->inv->switches[r->sw].name, r->port);
		return -EOPNOTSUPP;
	}
	snprintf(leaf, sizeof(leaf),
		 "red limit %u min %u max %u avpkt 1000 burst %u probability %u.%02u bandwidth "
		 "%llukbit ecn",
		 limit, ecn_of(s)->ecn_kmin, ecn_of(s)->ecn_kmax, burst, ecn_of(s)->ecn_pmax / 100,
		 ecn_of(s)->ecn_pmax % 100, ecn_of(s)->emu_rate_kbit);
	nos_linux_class_leaf(r, &r->port, 1, ecn_of(s)->priority, ecn_of(s)->emu_rate_kbit, leaf);
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "ECN marking by the kernel's RED (sch_red) in priority %d of %s, on an emulated "
		 "%llu kbit/s line (HTB)",
		 ecn_of(s)->priority, r->port, ecn_of(s)->emu_rate_kbit);
	return 0;
}

void ecn_misconfig_eos_line(const struct fault_spec *s, char *buf, size_t len)
{
	if (ecn_of(s)->ecn_off)
		buf[0] = '\0';
	else
		snprintf(buf, len,
			 "random-detect ecn minimum-threshold %u bytes maximum-threshold %u bytes "
			 "max-mark-probability %u",
			 ecn_of(s)->ecn_kmin, ecn_of(s)->ecn_kmax, ecn_of(s)->ecn_pmax);
}

/* SONiC: the fault's own WRED profile, with the spec's thresholds, then " && ". */
static void wred_profile_set(struct sbuf *ap, const char *name, const struct fault_spec *s)
{
	sb_printf(ap,
		  "sudo sonic-db-cli CONFIG_DB HSET 'WRED_PROFILE|%s' wred_green_enable true ecn "
		  "ecn_all green_min_threshold %u green_max_threshold %u green_drop_probability %u "
		  ">/dev/null && ",
		  name, ecn_of(s)->ecn_kmin, ecn_of(s)->ecn_kmax, ecn_of(s)->ecn_pmax);
}

/* " FIELD VALUE ..." of fields (as a CONFIG_DB entry was read) into b, with field's value v. */
static void fields_with(struct sbuf *b, const char *fields, const char *field, const char *v)
{
	char w[2][64];
	bool set = false;

	for (const char *f = fields; *f;) {
		size_t n = strcspn(f, " "), m;

		snprintf(w[0], sizeof(w[0]), "%.*s", (int)n, f);
		f += n + (f[n] == ' ');
		m = strcspn(f, " ");
		snprintf(w[1], sizeof(w[1]), "%.*s", (int)m, f);
		f += m + (f[m] == ' ');
		if (!strcmp(w[0], field)) {
			sb_printf(b, " %s %s", field, v);
			set = true;
		} else {
			sb_printf(b, " %s %s", w[0], w[1]);
		}
	}
	if (!set)
		sb_printf(b, " %s %s", field, v);
}

void ecn_misconfig_plan(struct fault_action *a, const struct inv_switch *sw,
			const struct fault_spec *s, const char *table, const char *found)
{
	enum inv_dialect d = sw->dialect;
	struct readback rb = {0};
	struct sbuf ap = {0}, v = {0};
	char port[64], err[160], name[64], line[112];
	bool known = found && !readback_parse(a->read_as, found, &rb, err, sizeof(err));
	int q = ecn_of(s)->priority; /* the queue read is the priority's */

	readback_port_queue(strchr(a->read_as, ' ') + 1, port, sizeof(port));
	if (d == INV_DIALECT_SONIC) {
		const char *was = known ? rb.ecn : "<wred_profile as read>";
		char ref[80];
		/* a range or port list that holds the queue (sonic-queue) */
		const struct rb_entry *cov =
		    known && rb.ent_read && rb.shared ? &rb.ent[rb.cover] : NULL;

		nos_sonic_acl_name(table, name, sizeof(name));
		/* the reference as this SONiC writes it: a name, or "[WRED_PROFILE|NAME]" before */
		snprintf(ref, sizeof(ref), known && rb.ecn[0] == '[' ? "[WRED_PROFILE|%s]" : "%s",
			 name);
		if (cov) {
			/*
			 * A range or port list holds the queue (QUEUE|Ethernet0|3-4): the queue
			 * gets an entry of its own, the shared one's fields with the fault's
			 * profile, and nothing else changes.  The undo deletes it, which
			 * qosorch takes as the queue's scheduler and WRED unbound
			 * (handleQueueTable, DEL), then a second later writes the shared
			 * entry back as read, which binds them again: a second apart, as
			 * orchagent takes a batch's keys in key order (orch.h SyncMap, a
			 * std::multimap) and "Ethernet0,Ethernet4|3" sorts before
			 * "Ethernet0|3".  --off is refused there (judge()).
			 */
			struct sbuf fw = {0};

			wred_profile_set(&ap, name, s);
			sb_printf(&ap, "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|%s|%d'", port, q);
			fields_with(&fw, cov->fields, "wred_profile", ref);
			nos_shell_words(&ap, fw.p);
			sb_free(&fw);
			sb_printf(&ap, " >/dev/null");
			sb_printf(
			    &v,
			    "sudo sonic-db-cli CONFIG_DB DEL 'QUEUE|%s|%d' >/dev/null; sleep 1; "
			    "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|%s'",
			    port, q, cov->key);
			nos_shell_words(&v, cov->fields);
			sb_printf(&v,
				  " >/dev/null; sudo sonic-db-cli CONFIG_DB DEL 'WRED_PROFILE|%s' "
				  ">/dev/null",
				  name);
			goto done;
		}
		if (ecn_of(s)->ecn_off) {
			sb_printf(&ap,
				  "sudo sonic-db-cli CONFIG_DB HDEL 'QUEUE|%s|%d' wred_profile "
				  ">/dev/null",
				  port, q);
		} else {
			wred_profile_set(&ap, name, s);
			sb_printf(&ap,
				  "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|%s|%d' wred_profile ",
				  port, q);
			nos_shell_word(&ap, ref);
			sb_printf(&ap, " >/dev/null");
		}
		if (!known || rb.ecn[0]) {
			sb_printf(&v,
				  "sudo sonic-db-cli CONFIG_DB HSET 'QUEUE|%s|%d' wred_profile ",
				  port, q);
			if (known)
				nos_shell_word(&v, was);
			else /* a dry run: said, never run (its discover writes it from the read) */
				sb_printf(&v, "%s", was);
			sb_printf(&v, " >/dev/null");
		} else
			sb_printf(&v,
				  "sudo sonic-db-cli CONFIG_DB HDEL 'QUEUE|%s|%d' wred_profile "
				  ">/dev/null",
				  port, q);
		if (!ecn_of(s)->ecn_off)
			sb_printf(&v,
				  "; sudo sonic-db-cli CONFIG_DB DEL 'WRED_PROFILE|%s' >/dev/null",
				  name);
	} else if (d == INV_DIALECT_EOS) {
		/* a DNX (sand) platform's queues are 'tx-queue Q', a Trident's unicast ones
		 * 'uc-tx-queue Q' (eos_ecn_misconfig) */
		const char *txq = nos_has(sw, NOS_CAP_EOS_TRIDENT) ? "uc-tx-queue" : "tx-queue";

		ecn_misconfig_eos_line(s, line, sizeof(line));
		sb_printf(&ap, "configure\ninterface %s\n%s %d\n%s\nend", port, txq, q,
			  line[0] ? line : "no random-detect ecn");
		sb_printf(&v, "configure\ninterface %s\n%s %d\n%s\nend", port, txq, q,
			  known && rb.ecn[0] ? rb.ecn : "no random-detect ecn");
	} else { /* NVUE */
		if (known)
			readback_nvue_profile_copy(found, "congestion-control", rb.profile, table,
						   NULL, &ap);
		if (ecn_of(s)->ecn_off)
			sb_printf(
			    &ap,
			    "nv set qos congestion-control %s traffic-class %d ecn disable && ",
			    table, q);
		else
			sb_printf(
			    &ap,
			    "nv set qos congestion-control %s traffic-class %d ecn enable && "
			    "nv set qos congestion-control %s traffic-class %d min-threshold %u "
			    "&& nv set qos congestion-control %s traffic-class %d max-threshold "
			    "%u && nv set qos congestion-control %s traffic-class %d probability "
			    "%u && ",
			    table, q, table, q, ecn_of(s)->ecn_kmin, table, q, ecn_of(s)->ecn_kmax,
			    table, q, ecn_of(s)->ecn_pmax);
		sb_printf(&ap,
			  "nv set interface %s qos congestion-control profile %s && nv config "
			  "apply -y",
			  port, table);
		nos_nvue_rebind(&v, "congestion-control", port, known && rb.bound, rb.profile,
				table);
	}
done:
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/* One action on the target port's queue, read with cmd as "PARSER PORT Q", planned as not read. */
static int ecn_action(struct render_ctx *r, const char *parser, const char *cmd)
{
	struct sbuf a = {0}, v = {0};
	struct fault_action *act;
	char arg[96];
	int ret = nos_need_port(r, "ecn-misconfig");

	if (ret)
		return ret;
	snprintf(arg, sizeof(arg), "%s %d", r->port, ecn_of(r->spec)->priority);
	sb_printf(&a, "-");
	sb_printf(&v, "-");
	act = nos_read_port(nos_emit(r, &a, NULL, &v), parser, arg, "%s", cmd);
	ecn_misconfig_plan(act, &r->inv->switches[r->sw], r->spec, r->table, NULL);
	return 0;
}

/*
 * sonic-net/sonic-swss orchagent/qosorch.cpp: CONFIG_DB QUEUE|PORT|Q
 * wred_profile binds a WRED_PROFILE to the queue (handleQueueTable,
 * applyWredProfileToQueue), and a field no longer there unbinds it ("was
 * configured but is not any more"); WredMapHandler takes
 * green_min_threshold and green_max_threshold in bytes,
 * green_drop_probability in percent, wred_green_enable and ecn (ecn_all).
 * sonic-utilities scripts/ecnconfig writes the same fields, but for every
 * port at once ('-q 3 on|off' sets or deletes wred_profile; '-p PROFILE
 * -gmin ...' edits the profile all of them share), so one port's queue
 * gets a profile of the fault's own through sonic-db-cli, and what it had
 * back on the undo.  The queue is taken to be the priority's number (the
 * AZURE TC_TO_QUEUE_MAP maps each class to its own queue; inferred).
 */
static int sonic_ecn_misconfig(struct render_ctx *r)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "sonic-cfggen -d --var-json QUEUE");
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a queue with an entry of its own whose wred_profile is not read yet; "
		 "when applied, the port's QUEUE entries are read whole and put back as read");
	return ecn_action(r, "sonic-queue", cmd);
}

/*
 * EOS: under 'interface PORT', 'uc-tx-queue Q' (a Trident's unicast queue)
 * or 'tx-queue Q' (a DNX "sand" platform's: Jericho, Arad, Qumran, whose
 * eight queues are all tx-queues: Arista TOI, tag voq, "Sand platform
 * switches have eight queues, 0 through 7") takes 'random-detect ecn
 * minimum-threshold MIN UNITS maximum-threshold MAX UNITS
 * max-mark-probability P' (units segments, bytes, kbytes, mbytes;
 * probability 1..100), the same line under either: aristanetworks/avd
 * python-avd eos_cli_config_gen templates eos/ethernet-interface-uc-tx-queues.j2
 * and eos/ethernet-interface-tx-queues.j2 and their schema.  The queue is
 * taken to be the priority's number, and 'no random-detect ecn' to remove
 * the line (EOS's usual 'no' form; both inferred).  The platform is the
 * model read at pre-flight (caps.c); not read: a Trident's.
 */
static int eos_ecn_misconfig(struct render_ctx *r)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "show running-config interfaces %s", r->port ? r->port : "");
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a queue with no random-detect ecn; when applied, the line read is set "
		 "back");
	return ecn_action(r, "eos-ecn", cmd);
}

/*
 * NVUE: 'nv set qos congestion-control PROFILE traffic-class TC ecn
 * enable|disable', '... min-threshold BYTES', '... max-threshold BYTES',
 * '... probability P', and 'nv set interface PORT qos congestion-control
 * profile PROFILE' (CumulusNetworks/docs nvue-reference
 * Set-and-Unset-Commands/QoS.md; per port since Cumulus Linux 5.4).  The
 * port's profile is read and copied as the fault's own with the queue's
 * ECN changed, as pfc-misconfig copies its PFC profile; default-global,
 * which the other ports use, is never changed.  NVUE's built-in defaults
 * of a profile ('nv config show' does not print them) are not copied.
 */
static int nvue_ecn_misconfig(struct render_ctx *r)
{
	int ret = nos_need(&r->inv->switches[r->sw], NOS_CAP_NVUE_QOS, "ecn-misconfig", r->why,
			   r->whylen);

	if (ret)
		return ret;
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a port on default-global with nothing set; when applied, the "
		 "profile the port has is read and copied");
	return ecn_action(r, "nvue-ecn",
			  "nv config show -o commands | { grep -e ' qos congestion-control ' -e "
			  "' qos roce' || true; }");
}

/*
 * A Linux switch needs the kernel's RED: tried in a network namespace of
 * its own (nothing of the lab's is touched, and it goes with the process),
 * so a kernel without sch_red is refused before the journal.
 */
static int precheck(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_switch *sw = &f->inv->switches[s->tdev];
	char out[256] = "";
	int r;

	if (sw->dialect != INV_DIALECT_LINUX) /* an EOS model: refused as rendered (caps.h) */
		return 0;
	r = lab_exec(f->lab, sw->name,
		     (const char *const[]){
			 "unshare",   "-n",	 "tc",	  "qdisc",  "add", "dev",	  "lo",
			 "root",      "red",	 "limit", "100000", "min", "10000",	  "max",
			 "30000",     "avpkt",	 "1000",  "burst",  "17",  "probability", "0.1",
			 "bandwidth", "100mbit", "ecn",	  NULL},
		     NULL, NULL, out, sizeof(out));
	if (!r)
		return 0;
	out[strcspn(out, "\n")] = '\0';
	if (r > 0 && strstr(out, "kind is unknown")) {
		snprintf(
		    f->err, sizeof(f->err),
		    "the kernel of %s has no RED qdisc (sch_red: '%s'), so a Linux port cannot "
		    "mark ECN; run it where the kernel has CONFIG_NET_SCH_RED (the VM tier's, "
		    "make vm-check), or on a switch whose NOS marks ECN",
		    sw->name, out);
		return -EOPNOTSUPP;
	}
	snprintf(f->err, sizeof(f->err), "trying the kernel's RED qdisc on %s: %s", sw->name,
		 r > 0 ? out : strerror(-r));
	return r > 0 ? -EIO : r;
}

/* The target switch's dialect: every action of the fault is on it. */
static enum inv_dialect dialect_of(const struct fault_run *f)
{
	return f->inv->switches[f->spec->tdev].dialect;
}

/*
 * With the state found: --off of a queue that marks nothing already is
 * refused (SONiC: no wred_profile bound; EOS: no random-detect ecn line);
 * the apply and undo become what was found.  A Linux port's tc-root read
 * is judged by fault_judge_found itself.
 */
static int judge(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		 void *ctx)
{
	struct fault_action *a = &p->acts[i];
	enum inv_dialect d = dialect_of(f);

	(void)ctx;
	if (rb->roce[0])
		return fault_refuse_roce(f, a, rb);
	if (ecn_of(f->spec)->ecn_off && rb->ecn[0] && rb->ent_read && rb->shared) {
		char port[64];
		const char *q =
		    readback_port_queue(strchr(a->read_as, ' ') + 1, port, sizeof(port));

		/* an entry of the queue's own without wred_profile unbinds nothing: qosorch
		 * unbinds a field only from the entry that had it */
		snprintf(
		    f->err, sizeof(f->err),
		    "%s: CONFIG_DB QUEUE|%s holds queue %s together with others: its WRED (%s) "
		    "cannot be taken off queue %s alone without changing them; give the queue "
		    "an entry of its own in the switch's config, or set ECN thresholds instead "
		    "of --off",
		    a->device, rb->ent[rb->cover].key, q, rb->ecn, q);
		return -EOPNOTSUPP;
	}
	if (ecn_of(f->spec)->ecn_off && !rb->ecn[0] && d != INV_DIALECT_NVUE) {
		snprintf(f->err, sizeof(f->err),
			 "%s: %s ('%s'): the queue marks no ECN already; nothing to turn off",
			 a->device, rb->canon, a->read);
		return -EALREADY;
	}
	ecn_misconfig_plan(a, &f->inv->switches[f->spec->tdev], f->spec, p->table, a->found);
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	return fault_judge_found(f, p, "the emulated line and its RED", judge, NULL);
}

/* What the fault's read shows once applied. */
static bool ecn_took(const struct fault_run *f, const struct fault_action *a,
		     const struct readback *rb)
{
	const struct fault_spec *s = f->spec;
	char want[112], name[64];

	switch (dialect_of(f)) {
	case INV_DIALECT_LINUX:
		return !strcmp(rb->qdisc, "htb");
	case INV_DIALECT_SONIC:
		nos_sonic_acl_name(f->plan->table, name, sizeof(name));
		return ecn_of(s)->ecn_off ? !rb->ecn[0] : strstr(rb->ecn, name) != NULL;
	case INV_DIALECT_EOS:
		ecn_misconfig_eos_line(s, want, sizeof(want));
		return !strcmp(rb->ecn, want);
	case INV_DIALECT_NVUE:
		return rb->bound && !strcmp(rb->profile, f->plan->table) &&
		       strstr(rb->ecn, ecn_of(s)->ecn_off ? "ecn disable" : "ecn enable");
	}
	(void)a;
	return false;
}

/*
 * A NOS: its read says the queue's ECN as set.  A Linux switch test
 * traffic crosses: ECN-capable incast in the priority through the port
 * must be marked CE by its RED (sch_red's "marked" counter).
 */
static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_switch *sw = &f->inv->switches[s->tdev];

	if (sw->dialect != INV_DIALECT_LINUX || !fault_counters_readable(f, sw))
		return fault_verify_reads(f, ecn_took);
	return fault_verify_class(f, s->tdev, (size_t)s->tport, ecn_of(s)->priority << 3,
				  2 /* ECT(0) */, ecn_of(s)->emu_rate_kbit, "marked", "marked CE",
				  "real RED marking, emulated line rate", ecn_took);
}

const struct fault_kind_ops fk_ecn_misconfig = {
    .name = "ecn-misconfig",
    .usage = "--target SWITCH:PORT [--kmin 240KB --kmax 240KB --pmax 100% | --off]",
    .targets = FT_PORT,
    .example = "spine1:swp1",
    .opts = opts,
    .opts_size = sizeof(struct ecn_misconfig_opts),
    .defaults = defaults,
    .check = check,
    .render = {[INV_DIALECT_LINUX] = linux_ecn_misconfig,
	       [INV_DIALECT_SONIC] = sonic_ecn_misconfig,
	       [INV_DIALECT_EOS] = eos_ecn_misconfig,
	       [INV_DIALECT_NVUE] = nvue_ecn_misconfig},
    .cannot = "set ECN marking",
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] = "tc-red(8) (sch_red with ecn) on an emulated line rate",
	    [INV_DIALECT_SONIC] =
		"sonic-swss orchagent/qosorch.cpp (QUEUE wred_profile, WRED_PROFILE); "
		"sonic-utilities scripts/ecnconfig",
	    [INV_DIALECT_EOS] =
		"aristanetworks/avd eos_cli_config_gen ethernet-interface "
		"uc-tx-queues and tx-queues "
		"('random-detect ecn'); Arista TOI, tag voq (a sand platform's eight tx-queues)",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference, QoS ('nv set qos congestion-control PROFILE "
		"traffic-class', 5.3)",
	},
};
