// SPDX-License-Identifier: MIT
/*
 * buffer-alpha: the dynamic threshold alpha of a switch's lossless class,
 * switch-wide, as in the experiences paper (section 6.2: a new ToR model
 * came with alpha 1/64 where 1/16 was meant, and incast then raised pause
 * frames that spread).  A NOS gets alpha in its own words (buffer_alpha_word),
 * read before and set back as found.  On the virtual lab's Linux switches
 * it is emulated: every port's lossless class becomes the tail-drop queue
 * that alpha leaves one congested queue (linux_buffer_alpha).
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/caps.h"
#include "injectors/render.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct buffer_alpha_opts {
	/*
	 * the dynamic threshold alpha = 2^alpha_log2 of the lossless class
	 * (priority), the SONiC buffer profile it is set in, and the emulated
	 * port rate and shared buffer the virtual lab's queue depth is taken from
	 */
	int alpha_log2;
	int priority;
	char buf_profile[64];
	unsigned long long emu_rate_kbit;
	unsigned emu_buffer_bytes;
};
FAULT_KIND_OPTS(ba, struct buffer_alpha_opts)

#define FS(f) offsetof(struct buffer_alpha_opts, f)

/* "1/64", "1/128" .. "1" .. "256": a power of two from 2^-8 to 2^8, as its exponent. */
static int alpha_parse(const struct opt_desc *d, const char *v, void *field, char *err,
		       size_t errlen)
{
	bool frac = !strncmp(v, "1/", 2);
	const char *num = frac ? v + 2 : v;
	char *end;
	unsigned long x;
	int n = 0;

	errno = 0;
	x = strtoul(num, &end, 10);
	if (!errno && end != num && !*end && isdigit((unsigned char)*num) && x && x <= 256 &&
	    !(x & (x - 1))) {
		while ((1ul << n) < x)
			n++;
		*(int *)field = frac ? -n : n;
		return 0;
	}
	snprintf(err, errlen, "%s '%s': give a power of two from 1/256 to 256 (e.g. 1/64, 1/16, 2)",
		 d->name, v);
	return -EINVAL;
}

/* As a person writes it: Linux's word for alpha, whose range is the option's. */
static const char *alpha_print(const void *field, char *buf, size_t len)
{
	char why[8];

	buffer_alpha_word(INV_DIALECT_LINUX, *(const int *)field, buf, len, why, sizeof(why));
	return buf;
}

/* --profile's default: every lossless ingress profile, as sonic-mgmt sets them */
#define BA_ALL_LOSSLESS "lossless"

static const struct opt_desc opts[] = {
    {"alpha", OPT_CUSTOM, 0, 0, FS(alpha_log2),
     "the misconfigured dynamic threshold (a power of two, e.g. 1/64)", alpha_parse, alpha_print},
    {"priority", OPT_INT, 0, 7, FS(priority), "the lossless priority (EOS: its priority group)"},
    {.name = "profile",
     .type = OPT_STR,
     .off = FS(buf_profile),
     .size = sizeof(((struct buffer_alpha_opts *)0)->buf_profile),
     .help = "SONiC: the buffer profile whose dynamic_th is set; 'lossless' (the default): "
	     "every ingress_lossless* and pg_lossless* profile with one"},
    {"emu-rate", OPT_CUSTOM, 1000, 10000000, FS(emu_rate_kbit),
     "emulated: each port's modelled line rate (virtual lab)", fault_opt_rate_parse,
     fault_opt_rate_print},
    {"emu-buffer", OPT_UINT, 16384, 256000000, FS(emu_buffer_bytes),
     "emulated: bytes of the shared buffer alpha divides (virtual lab)"},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	ba_rw(s)->alpha_log2 = -6; /* 1/64, the paper's misconfiguration */
	ba_rw(s)->priority = 3;
	snprintf(ba_rw(s)->buf_profile, sizeof(ba_rw(s)->buf_profile), "%s", BA_ALL_LOSSLESS);
	ba_rw(s)->emu_rate_kbit = 100000;
	ba_rw(s)->emu_buffer_bytes =
	    393216; /* 384 KiB: alpha 1/64 leaves 6 KB, 1/16 leaves 23 KB */
}

/*
 * A profile name a SONiC command line may carry: a CONFIG_DB key's own
 * characters, not an option's leading '-', and one --profile can hold.
 */
static bool profile_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n < sizeof(((struct buffer_alpha_opts *)0)->buf_profile) &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
		   n &&
	       name[0] != '-';
}

/* The profile name reaches a SONiC command line (profile_name_ok()). */
static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	if (profile_name_ok(ba_of(s)->buf_profile))
		return 0;
	snprintf(why, whylen,
		 "profile '%s': give a SONiC buffer profile name (letters, digits, '_', '.', '-'; "
		 "e.g. ingress_lossless_profile)",
		 ba_of(s)->buf_profile);
	return -EINVAL;
}

/*
 * The queue a dynamic threshold lets one congested queue fill: T = alpha x
 * (B - Q) stops growing at Q = alpha B / (1 + alpha), B the shared buffer
 * (Choudhury and Hahne's dynamic threshold, the alpha of the experiences
 * paper, section 6.2).  At least one full frame.
 */
static unsigned alpha_depth(const struct fault_spec *s)
{
	double a = ldexp(1.0, ba_of(s)->alpha_log2),
	       q = (double)ba_of(s)->emu_buffer_bytes * a / (1.0 + a);

	return q < 1514 ? 1514 : (unsigned)q;
}

/*
 * buffer-alpha, emulated: every cabled port of the switch gets the
 * lossless class's queue that alpha leaves one congested queue
 * (alpha_depth) as a tail-drop queue, since veth has no PFC to pause with.
 */
static int linux_buffer_alpha(struct render_ctx *r)
{
	const struct fault_spec *s = r->spec;
	const char *ports[256];
	size_t n = nos_ports_of(r, ports, 256);
	unsigned depth = alpha_depth(s);
	char a[16], why[8];
	int ret = nos_linux_may_emulate(r, "a shared buffer");

	if (ret)
		return ret;
	nos_linux_shallow(r, ports, n, ba_of(s)->priority, ba_of(s)->emu_rate_kbit, depth);
	buffer_alpha_word(INV_DIALECT_LINUX, ba_of(s)->alpha_log2, a, sizeof(a), why, sizeof(why));
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "emulated buffer: alpha %s leaves priority %d a %u-byte tail-drop queue "
		 "(alpha/(1+alpha) of a %u-byte shared buffer) at %llu kbit/s on each of %zu ports "
		 "(HTB+bfifo)",
		 a, ba_of(s)->priority, depth, ba_of(s)->emu_buffer_bytes, ba_of(s)->emu_rate_kbit,
		 n);
	return 0;
}

/* 2^n as a person writes it: "1/64", "1", "8". */
static void alpha_fraction(int n, char *buf, size_t len)
{
	snprintf(buf, len, n < 0 ? "1/%d" : "%d", 1 << (n < 0 ? -n : n));
}

int buffer_alpha_word(enum inv_dialect d, int n, char *buf, size_t len, char *why, size_t whylen)
{
	/* the exponents each NOS takes: mmuconfig -8..8, EOS 1/128..8, NVUE 1/128..64 */
	static const int lo[] = {[INV_DIALECT_LINUX] = -8,
				 [INV_DIALECT_SONIC] = -8,
				 [INV_DIALECT_EOS] = -7,
				 [INV_DIALECT_NVUE] = -7};
	static const int hi[] = {[INV_DIALECT_LINUX] = 8,
				 [INV_DIALECT_SONIC] = 8,
				 [INV_DIALECT_EOS] = 3,
				 [INV_DIALECT_NVUE] = 6};

	char asked[16], from[16], to[16];

	if (n < lo[d] || n > hi[d]) {
		alpha_fraction(n, asked, sizeof(asked));
		alpha_fraction(lo[d], from, sizeof(from));
		alpha_fraction(hi[d], to, sizeof(to));
		snprintf(
		    why, whylen,
		    "dialect %s cannot set alpha %s: give --alpha from %s to %s (powers of two)",
		    inv_dialect_name(d), asked, from, to);
		return -EOPNOTSUPP;
	}
	if (d == INV_DIALECT_SONIC)
		snprintf(buf, len, "%d", n);
	else if (d == INV_DIALECT_NVUE)
		snprintf(buf, len, n < 0 ? "alpha_1_%d" : "alpha_%d", 1 << (n < 0 ? -n : n));
	else
		alpha_fraction(n, buf, len);
	return 0;
}

/* NVUE: the ingress lossless buffer of the switch's buffer profile. */
#define NVUE_ALPHA_KEY                                                                             \
	"qos advance-buffer-config default-global ingress-lossless-buffer shared-alpha"

void buffer_alpha_plan(struct fault_action *a, enum inv_dialect d, const struct fault_spec *s,
		       const char *table, const char *found)
{
	struct readback rb = {0};
	struct sbuf ap = {0}, v = {0};
	char w[24], why[160], err[160];
	bool known = found && !readback_parse(a->read_as, found, &rb, err, sizeof(err));

	buffer_alpha_word(d, ba_of(s)->alpha_log2, w, sizeof(w), why,
			  sizeof(why)); /* in range: planned */
	if (d == INV_DIALECT_SONIC && !strncmp(a->read_as, "sonic-bufprofiles ", 18)) {
		/* the dry run's line: discover makes one action of each profile found */
		sb_printf(&ap,
			  "sudo mmuconfig -p <each ingress_lossless*, pg_lossless* profile> -a %s",
			  w);
		sb_printf(&v, "sudo mmuconfig -p <each of them> -a <its dynamic_th as read>");
	} else if (d == INV_DIALECT_SONIC) {
		sb_printf(&ap, "sudo mmuconfig -p %s -a %s", ba_of(s)->buf_profile, w);
		sb_printf(&v, "sudo mmuconfig -p %s -a %s", ba_of(s)->buf_profile,
			  known && rb.alpha[0] ? rb.alpha : "<dynamic_th as read>");
	} else if (d == INV_DIALECT_NVUE) {
		sb_printf(&ap, "nv set %s %s && nv config apply -y", NVUE_ALPHA_KEY, w);
		if (known && rb.alpha[0])
			sb_printf(&v, "nv set %s %s", NVUE_ALPHA_KEY, rb.alpha);
		else /* not set before (or a dry run, shown as a switch with none set) */
			sb_printf(&v, "nv unset %s", NVUE_ALPHA_KEY);
		sb_printf(&v, " && nv config apply -y");
	} else {			      /* EOS */
		if (known && rb.profile[0]) { /* the applied profile, changed in place */
			sb_printf(&ap,
				  "configure\nplatform trident mmu queue profile %s\ningress "
				  "priority-group %d threshold %s\nend",
				  rb.profile, ba_of(s)->priority, w);
			sb_printf(&v, "configure\nplatform trident mmu queue profile %s\n",
				  rb.profile);
			if (rb.alpha[0])
				sb_printf(&v, "ingress priority-group %d threshold %s\nend",
					  ba_of(s)->priority, rb.alpha);
			else
				sb_printf(&v, "no ingress priority-group %d threshold\nend",
					  ba_of(s)->priority);
		} else { /* none applied (or a dry run): a profile of the fault's own */
			sb_printf(
			    &ap,
			    "configure\nplatform trident mmu queue profile %s\ningress "
			    "priority-group %d threshold %s\nexit\nplatform trident mmu queue "
			    "profile %s apply\nend",
			    table, ba_of(s)->priority, w, table);
			sb_printf(&v,
				  "configure\nno platform trident mmu queue profile %s apply\nno "
				  "platform trident mmu queue profile %s\nend",
				  table, table);
		}
	}
	fault_action_set(&a->apply, ap.p);
	fault_action_set(&a->revert, v.p);
	sb_free(&ap);
	sb_free(&v);
}

/* One action on the switch whose read is cmd (parsed as "PARSER ARG"), planned as not read yet. */
static int alpha_action(struct render_ctx *r, const char *parser, const char *arg, const char *cmd)
{
	enum inv_dialect d = r->inv->switches[r->sw].dialect;
	struct sbuf a = {0}, v = {0};
	struct fault_action *act;
	char w[24];
	int ret = buffer_alpha_word(d, ba_of(r->spec)->alpha_log2, w, sizeof(w), r->why, r->whylen);

	if (ret)
		return ret;
	sb_printf(&a, "-");
	sb_printf(&v, "-");
	act = nos_read_port(nos_emit(r, &a, NULL, &v), parser, arg, "%s", cmd);
	buffer_alpha_plan(act, d, r->spec, r->table, NULL);
	return 0;
}

/*
 * sonic-net/sonic-utilities scripts/mmuconfig: 'mmuconfig -p PROFILE -a N'
 * writes CONFIG_DB BUFFER_PROFILE|PROFILE dynamic_th = N (alpha 2^N, N in
 * -8..8).  It writes the field even where the profile is not there (a new
 * entry of one field), so the read comes first and a profile without
 * dynamic_th is refused (buffer_alpha.c); the undo writes the N found.
 */
static int sonic_buffer_alpha(struct render_ctx *r)
{
	char cmd[160];

	/*
	 * Lossless admission uses pg_lossless_<speed>_<cable>_profile (sonic-swss
	 * buffermgr.cpp makes them per port speed and cable length), and some SKUs
	 * have no ingress_lossless_profile: by default every profile of either
	 * prefix, as sonic-mgmt's config_ingress_lossless_buffer_alpha() sets them
	 * (tests/common/snappi_tests/common_helpers.py), read whole first.
	 */
	if (!strcmp(ba_of(r->spec)->buf_profile, BA_ALL_LOSSLESS)) {
		int ret = nos_need(&r->inv->switches[r->sw], NOS_CAP_SONIC_STATIC_PG,
				   "buffer-alpha's 'mmuconfig -p' on every lossless profile",
				   r->why, r->whylen);

		if (ret)
			return ret;
		snprintf(
		    r->plan->note, sizeof(r->plan->note),
		    "shown before the switch is read; when applied, BUFFER_PROFILE is read whole "
		    "and each ingress_lossless* and pg_lossless* profile with a dynamic "
		    "threshold is set, and set back to what it had");
		return alpha_action(r, "sonic-bufprofiles", BA_ALL_LOSSLESS,
				    "sonic-cfggen -d --var-json BUFFER_PROFILE");
	}
	snprintf(cmd, sizeof(cmd), "sonic-db-cli CONFIG_DB HGET 'BUFFER_PROFILE|%s' dynamic_th",
		 ba_of(r->spec)->buf_profile);
	return alpha_action(r, "sonic-dynth", ba_of(r->spec)->buf_profile, cmd);
}

/* Is name a lossless ingress profile (sonic-mgmt's prefixes) a command line may carry? */
static bool lossless_profile(const char *name)
{
	return (!strncmp(name, "ingress_lossless", 16) || !strncmp(name, "pg_lossless", 11)) &&
	       profile_name_ok(name);
}

/*
 * The whole BUFFER_PROFILE read (action i, "sonic-bufprofiles"): one action
 * for each lossless ingress profile with a dynamic threshold, set to the
 * alpha and back to what it had, each read again for the verification and
 * for drift.  Profiles with a static threshold, or already at the alpha,
 * are left out and said; none left is refused.  The read action goes.
 */
static int sonic_profiles(struct fault_run *f, struct fault_plan *p, size_t i)
{
	struct fault_action *t = &p->acts[i];
	json_t *v = t->found && t->found[strspn(t->found, " \t\r\n")]
			? json_loads(t->found, 0, NULL)
			: json_object(),
	       *x;
	char dev[INV_NAME_MAX + 1], w[24], why[160], left[256] = "";
	const char *k;
	size_t made = 0, already = 0, stat = 0;

	snprintf(dev, sizeof(dev), "%s", t->device);
	buffer_alpha_word(INV_DIALECT_SONIC, ba_of(f->spec)->alpha_log2, w, sizeof(w), why,
			  sizeof(why));
	json_object_foreach(v, k, x)
	{
		const char *th = json_string_value(json_object_get(x, "dynamic_th"));
		char read[160], as[96], ap[160], rv[160], found[8], *end;
		long n = th ? strtol(th, &end, 10) : 0;
		struct fault_action *a;

		if (!lossless_profile(k))
			continue; /* another kind of profile, or a name no command may carry */
		if (!th || !*th || *end || n < -8 || n > 8) {
			stat++;
			snprintf(left + strlen(left), sizeof(left) - strlen(left),
				 "%s%s (no dynamic_th)", left[0] ? ", " : "", k);
			continue;
		}
		if (n == ba_of(f->spec)->alpha_log2) { /* mmuconfig's -a N: alpha 2^N */
			already++;
			snprintf(left + strlen(left), sizeof(left) - strlen(left),
				 "%s%s (at %s already)", left[0] ? ", " : "", k, w);
			continue;
		}
		snprintf(read, sizeof(read),
			 "sonic-db-cli CONFIG_DB HGET 'BUFFER_PROFILE|%s' dynamic_th", k);
		snprintf(as, sizeof(as), "sonic-dynth %s", k);
		snprintf(ap, sizeof(ap), "sudo mmuconfig -p %s -a %s", k, w);
		snprintf(rv, sizeof(rv), "sudo mmuconfig -p %s -a %ld", k, n);
		snprintf(found, sizeof(found), "%ld\n", n);
		a = fault_plan_add(p, FB_SSH, dev, ap, NULL, rv);
		fault_action_read(a, read, as);
		fault_action_set(&a->found, found);
		made++;
	}
	json_decref(v);
	fault_plan_remove(p, i);
	if (!made) {
		snprintf(
		    f->err, sizeof(f->err),
		    "%s: BUFFER_PROFILE has no ingress_lossless* or pg_lossless* profile with a "
		    "dynamic threshold to set%s%s ('sonic-cfggen -d --var-json BUFFER_PROFILE')",
		    dev, left[0] ? ": " : "", left);
		return already && !stat ? -EALREADY : -EOPNOTSUPP;
	}
	snprintf(p->note, sizeof(p->note), "%zu lossless profile(s) of %s set%s%s", made, dev,
		 left[0] ? "; left out: " : "", left);
	return 0;
}

/*
 * EOS on Trident: 'platform trident mmu queue profile NAME' holds 'ingress
 * priority-group PG threshold ALPHA' (1/128 .. 8), and 'platform trident
 * mmu queue profile NAME apply' makes it the switch's (aristanetworks/avd
 * eos_cli_config_gen templates eos/platform-trident.j2, and its schema
 * platform.schema.yml for the thresholds).  The priority group is taken to
 * be the priority's number.  The undo's 'no' forms are EOS's usual way to
 * remove a line (inferred, not in that source).
 */
static int eos_buffer_alpha(struct render_ctx *r)
{
	char pg[8];
	int ret =
	    nos_need(&r->inv->switches[r->sw], NOS_CAP_EOS_TRIDENT,
		     "buffer-alpha's 'platform trident mmu queue profile'", r->why, r->whylen);

	if (ret)
		return ret;
	snprintf(pg, sizeof(pg), "%d", ba_of(r->spec)->priority);
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a switch with no MMU queue profile applied; when applied, the "
		 "profile applied is read and changed in place");
	return alpha_action(r, "eos-mmu", pg, "show running-config");
}

/*
 * NVUE 'nv set qos advance-buffer-config default-global
 * ingress-lossless-buffer shared-alpha alpha_1_64' (alpha_0, alpha_1_128 ..
 * alpha_64, alpha_infinity): CumulusNetworks/docs nvue-reference
 * Set-and-Unset-Commands/QoS.md.  Read before: the value set, if any; the
 * undo sets it back, or unsets it.
 */
static int nvue_buffer_alpha(struct render_ctx *r)
{
	int ret = nos_need(&r->inv->switches[r->sw], NOS_CAP_NVUE_BUFFER, "buffer-alpha", r->why,
			   r->whylen);

	if (ret)
		return ret;
	snprintf(r->plan->note, sizeof(r->plan->note),
		 "shown for a switch with no shared-alpha set; when applied, the value read is "
		 "set back");
	return alpha_action(r, "nvue-alpha", "default-global",
			    "nv config show -o commands | { grep ' ingress-lossless-buffer "
			    "shared-alpha ' || true; }");
}

/* The target switch's dialect: every action of the fault is on it. */
static enum inv_dialect dialect_of(const struct fault_run *f)
{
	return f->inv->switches[f->spec->tdev].dialect;
}

/* alpha as NOS d writes it. */
static void wanted(const struct fault_run *f, enum inv_dialect d, char *w, size_t len)
{
	char why[160];

	if (buffer_alpha_word(d, ba_of(f->spec)->alpha_log2, w, len, why, sizeof(why)))
		w[0] = '\0'; /* refused when planned: not reached */
}

/*
 * With the state found: SONiC needs the profile to have a dynamic_th
 * (mmuconfig would add one to a profile that has none, or make a profile
 * of one field); alpha already at the value is refused; the apply and
 * undo become what was found (buffer_alpha_plan).
 */
static int judge(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		 void *ctx)
{
	struct fault_action *a = &p->acts[i];
	/* the dialect its read is in: the target's ("sonic-dynth", "eos-mmu", "nvue-alpha") */
	enum inv_dialect d = !strncmp(a->read_as, "sonic-", 6)	? INV_DIALECT_SONIC
			     : !strncmp(a->read_as, "eos-", 4)	? INV_DIALECT_EOS
			     : !strncmp(a->read_as, "nvue-", 5) ? INV_DIALECT_NVUE
								: INV_DIALECT_LINUX;
	char w[24];

	(void)ctx;
	if (d == INV_DIALECT_SONIC && !rb->alpha[0]) {
		snprintf(f->err, sizeof(f->err),
			 "%s: %s ('%s'): the profile is not there or has a static threshold, and "
			 "mmuconfig would write one anyway; give --profile the lossless profile "
			 "of this switch (sonic-db-cli CONFIG_DB KEYS 'BUFFER_PROFILE|*')",
			 a->device, rb->canon, a->read);
		return -EOPNOTSUPP;
	}
	wanted(f, d, w, sizeof(w));
	if (!strcmp(rb->alpha, w)) {
		snprintf(f->err, sizeof(f->err), "%s: %s already ('%s'): nothing to misconfigure",
			 a->device, rb->canon, a->read);
		return -EALREADY;
	}
	/* a profile the whole table's read found has its apply and undo (sonic_profiles()) */
	if (d != INV_DIALECT_SONIC || !strcmp(ba_of(f->spec)->buf_profile, fault_read_port(a)))
		buffer_alpha_plan(a, d, f->spec, p->table, a->found);
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	int r;

	for (size_t i = 0; i < p->n_acts; i++)
		if (p->acts[i].read_as && !strncmp(p->acts[i].read_as, "sonic-bufprofiles ", 18)) {
			if ((r = sonic_profiles(f, p, i)))
				return r;
			break; /* one switch: one table */
		}
	return fault_judge_found(f, p, "the emulated buffer", judge, NULL);
}

/* alpha reads back as set (an emulated port: its HTB is in place). */
static bool alpha_took(const struct fault_run *f, const struct fault_action *a,
		       const struct readback *rb)
{
	char w[24];

	if (!strncmp(a->read_as, "tc-root ", 8))
		return !strcmp(rb->qdisc, "htb");
	wanted(f, dialect_of(f), w, sizeof(w));
	return !strcmp(rb->alpha, w);
}

/*
 * A NOS (or a Linux switch no test traffic reaches): alpha as it reads
 * back.  The virtual lab: every port's emulated queue is in place, and
 * incast through the first cabled port tail-drops in it.
 */
static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_switch *sw = &f->inv->switches[s->tdev];
	int r = fault_verify_reads(f, alpha_took);

	if (r || sw->dialect != INV_DIALECT_LINUX || !fault_counters_readable(f, sw))
		return r;
	for (size_t p = 0; p < sw->n_ports; p++) {
		struct inv_endpoint ep = {INV_DEV_SWITCH, s->tdev, p};

		if (inventory_link_at(f->inv, &ep))
			return fault_verify_tail_drops(f, s->tdev, p, ba_of(s)->priority,
						       ba_of(s)->emu_rate_kbit, alpha_took);
	}
	return 0; /* no cabled port: nothing planned either */
}

const struct fault_kind_ops fk_buffer_alpha = {
    .name = "buffer-alpha",
    .usage = "--target SWITCH [--alpha 1/64]   (emulated on the virtual lab)",
    .targets = FT_SWITCH,
    .example = "spine1",
    .opts = opts,
    .opts_size = sizeof(struct buffer_alpha_opts),
    .defaults = defaults,
    .check = check,
    .render = {[INV_DIALECT_LINUX] = linux_buffer_alpha,
	       [INV_DIALECT_SONIC] = sonic_buffer_alpha,
	       [INV_DIALECT_EOS] = eos_buffer_alpha,
	       [INV_DIALECT_NVUE] = nvue_buffer_alpha},
    .cannot = "set buffer alpha",
    .discover = discover,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] =
		"iproute2 tc (HTB, bfifo): the dynamic threshold's depth emulated",
	    [INV_DIALECT_SONIC] =
		"sonic-utilities scripts/mmuconfig; sonic-swss cfgmgr/buffermgr.cpp, "
		"buffermgrdyn.cpp",
	    [INV_DIALECT_EOS] =
		"aristanetworks/avd eos_cli_config_gen platform-trident templates ('platform "
		"trident mmu queue profile')",
	    [INV_DIALECT_NVUE] =
		"NVUE command reference, QoS ('qos advance-buffer-config ... shared-alpha', 5.4)",
	},
};
