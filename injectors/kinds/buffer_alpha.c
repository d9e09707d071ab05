// SPDX-License-Identifier: MIT
/*
 * buffer-alpha: the dynamic threshold alpha of a switch's lossless class,
 * switch-wide, as in the experiences paper (section 6.2: a new ToR model
 * came with alpha 1/64 where 1/16 was meant, and incast then raised pause
 * frames that spread).  A NOS gets alpha in its own words (dialect.c),
 * read before and set back as found.  On the virtual lab's Linux switches
 * it is emulated: every port's lossless class becomes the tail-drop queue
 * that alpha leaves one congested queue (linux_buffer_alpha).
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FS(f) offsetof(struct fault_spec, f)

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

	dialect_alpha_word(INV_DIALECT_LINUX, *(const int *)field, buf, len, why, sizeof(why));
	return buf;
}

static const struct opt_desc opts[] = {
    {"alpha", OPT_CUSTOM, 0, 0, FS(alpha_log2),
     "the misconfigured dynamic threshold (a power of two, e.g. 1/64)", alpha_parse, alpha_print},
    {"priority", OPT_INT, 0, 7, FS(priority), "the lossless priority (EOS: its priority group)"},
    {.name = "profile",
     .type = OPT_STR,
     .off = FS(buf_profile),
     .size = sizeof(((struct fault_spec *)0)->buf_profile),
     .help = "SONiC: the buffer profile whose dynamic_th is set"},
    {"emu-rate", OPT_CUSTOM, 1000, 10000000, FS(emu_rate_kbit),
     "emulated: each port's modelled line rate (virtual lab)", fault_opt_rate_parse,
     fault_opt_rate_print},
    {"emu-buffer", OPT_UINT, 16384, 256000000, FS(emu_buffer_bytes),
     "emulated: bytes of the shared buffer alpha divides (virtual lab)"},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	s->alpha_log2 = -6; /* 1/64, the paper's misconfiguration */
	s->priority = 3;
	snprintf(s->buf_profile, sizeof(s->buf_profile), "ingress_lossless_profile");
	s->emu_rate_kbit = 100000;
	s->emu_buffer_bytes = 393216; /* 384 KiB: alpha 1/64 leaves 6 KB, 1/16 leaves 23 KB */
}

/* The profile name reaches a SONiC command line: a CONFIG_DB key's own characters only. */
static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	size_t n = strlen(s->buf_profile);

	if (n &&
	    strspn(s->buf_profile,
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n &&
	    s->buf_profile[0] != '-')
		return 0;
	snprintf(why, whylen,
		 "profile '%s': give a SONiC buffer profile name (letters, digits, '_', '.', '-'; "
		 "e.g. ingress_lossless_profile)",
		 s->buf_profile);
	return -EINVAL;
}

static int render(const struct dialect_ops *d, struct render_ctx *r)
{
	return d->buffer_alpha ? d->buffer_alpha(r) : dialect_unsupported(r, "set buffer alpha");
}

/* The target switch's dialect: every action of the fault is on it. */
static enum inv_dialect dialect_of(const struct fault_run *f)
{
	return f->inv->switches[f->spec->tdev].dialect;
}

/* alpha as the target's NOS writes it. */
static void wanted(const struct fault_run *f, char *w, size_t len)
{
	char why[160];

	if (dialect_alpha_word(dialect_of(f), f->spec->alpha_log2, w, len, why, sizeof(why)))
		w[0] = '\0'; /* refused when planned: not reached */
}

/*
 * With the state found: SONiC needs the profile to have a dynamic_th
 * (mmuconfig would add one to a profile that has none, or make a profile
 * of one field); alpha already at the value is refused; the apply and
 * undo become what was found (dialect_alpha_plan).
 */
static int judge(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		 void *ctx)
{
	struct fault_action *a = &p->acts[i];
	char w[24];

	(void)ctx;
	if (dialect_of(f) == INV_DIALECT_SONIC && !rb->alpha[0]) {
		snprintf(f->err, sizeof(f->err),
			 "%s: %s ('%s'): the profile is not there or has a static threshold, and "
			 "mmuconfig would write one anyway; give --profile the lossless profile "
			 "of this switch (sonic-db-cli CONFIG_DB KEYS 'BUFFER_PROFILE|*')",
			 a->device, rb->canon, a->read);
		return -EOPNOTSUPP;
	}
	wanted(f, w, sizeof(w));
	if (!strcmp(rb->alpha, w)) {
		snprintf(f->err, sizeof(f->err), "%s: %s already ('%s'): nothing to misconfigure",
			 a->device, rb->canon, a->read);
		return -EALREADY;
	}
	dialect_alpha_plan(a, dialect_of(f), f->spec, p->table, a->found);
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	return fault_judge_found(f, p, "the emulated buffer", judge, NULL);
}

/* alpha reads back as set (an emulated port: its HTB is in place). */
static bool alpha_took(const struct fault_run *f, const struct fault_action *a,
		       const struct readback *rb)
{
	char w[24];

	if (!strncmp(a->read_as, "tc-root ", 8))
		return !strcmp(rb->qdisc, "htb");
	wanted(f, w, sizeof(w));
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
			return fault_verify_tail_drops(f, s->tdev, p, alpha_took);
	}
	return 0; /* no cabled port: nothing planned either */
}

const struct fault_kind_ops fk_buffer_alpha = {
    .name = "buffer-alpha",
    .usage = "--target SWITCH [--alpha 1/64]   (emulated on the virtual lab)",
    .targets = FT_SWITCH,
    .example = "spine1",
    .opts = opts,
    .defaults = defaults,
    .check = check,
    .render = render,
    .discover = discover,
    .verify = verify,
};
