// SPDX-License-Identifier: MIT
/*
 * ecn-misconfig: the WRED/ECN marking of a switch port's lossless queue.
 * MP-RDMA (section 5, Fig. 14) misconfigures one path's RED as (Pmax,
 * Kmin, Kmax) = (1.0, 240KB, 240KB) where the others mark at 20KB: those
 * are the defaults here.  A NOS gets the thresholds in its own words
 * (dialect.c: dialect_ecn_plan), read before and put back as found.  A
 * Linux switch port gets the kernel's RED with ECN on an emulated line
 * rate, where the kernel has sch_red (the VM tier's Debian kernel does;
 * a kernel without it is refused before anything changes), and is
 * verified by the CE marks it counts under ECN-capable test traffic.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FS(f) offsetof(struct fault_spec, f)

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
	s->ecn_kmin = 240000;
	s->ecn_kmax = 240000;
	s->ecn_pmax = 100;
	s->priority = 3;
	s->emu_rate_kbit = 100000;
}

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	struct fault_spec d;

	defaults(&d);
	if (s->ecn_off &&
	    (s->ecn_kmin != d.ecn_kmin || s->ecn_kmax != d.ecn_kmax || s->ecn_pmax != d.ecn_pmax)) {
		snprintf(why, whylen,
			 "give --off or thresholds (--kmin, --kmax, --pmax), not both: --off marks "
			 "nothing");
		return -EINVAL;
	}
	if (s->ecn_kmin > s->ecn_kmax) {
		char a[16], b[16];

		snprintf(why, whylen,
			 "kmin %s is above kmax %s: give --kmin at most --kmax (equal: a step, "
			 "as DCTCP marks)",
			 fault_opt_bytes_print(&s->ecn_kmin, a, sizeof(a)),
			 fault_opt_bytes_print(&s->ecn_kmax, b, sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

static int render(const struct dialect_ops *d, struct render_ctx *r)
{
	return d->ecn_misconfig ? d->ecn_misconfig(r) : dialect_unsupported(r, "set ECN marking");
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

	if (sw->dialect != INV_DIALECT_LINUX)
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
	if (f->spec->ecn_off && !rb->ecn[0] && d != INV_DIALECT_NVUE) {
		snprintf(f->err, sizeof(f->err),
			 "%s: %s ('%s'): the queue marks no ECN already; nothing to turn off",
			 a->device, rb->canon, a->read);
		return -EALREADY;
	}
	dialect_ecn_plan(a, d, f->spec, p->table, a->found);
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
		dialect_sonic_acl_name(f->plan->table, name, sizeof(name));
		return s->ecn_off ? !rb->ecn[0] : strstr(rb->ecn, name) != NULL;
	case INV_DIALECT_EOS:
		dialect_eos_ecn_line(s, want, sizeof(want));
		return !strcmp(rb->ecn, want);
	case INV_DIALECT_NVUE:
		return rb->bound && !strcmp(rb->profile, f->plan->table) &&
		       strstr(rb->ecn, s->ecn_off ? "ecn disable" : "ecn enable");
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
	return fault_verify_class(f, s->tdev, (size_t)s->tport, 2 /* ECT(0) */, "marked",
				  "marked CE", "real RED marking, emulated line rate", ecn_took);
}

const struct fault_kind_ops fk_ecn_misconfig = {
    .name = "ecn-misconfig",
    .usage = "--target SWITCH:PORT [--kmin 240KB --kmax 240KB --pmax 100% | --off]",
    .targets = FT_PORT,
    .example = "spine1:swp1",
    .opts = opts,
    .defaults = defaults,
    .check = check,
    .render = render,
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
};
