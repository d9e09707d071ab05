// SPDX-License-Identifier: MIT
/*
 * ipid-drop: a switch drops the packets whose IPv4 ID matches (id % mod ==
 * rem, a range, or a set), as the papers' gray failures that hit some flows.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/render.h"

#include <stdlib.h>
#include <string.h>

#define FAULT_MAX_IDS 64

enum ipid_match { IPID_MOD, IPID_RANGE, IPID_SET };

struct ipid_range {
	unsigned lo, hi;
	bool set;
};

struct ipid_set {
	unsigned v[FAULT_MAX_IDS];
	size_t n;
};

struct ipid_drop_opts {
	/* one of mod (with rem), range, ids */
	unsigned mod, rem;
	struct ipid_range range;
	struct ipid_set ids;
	bool roce_only;
	enum direction dir;
	enum ipid_match ipid; /* which one, by check */
};
FAULT_KIND_OPTS(ipd, struct ipid_drop_opts)

#define FS(f) offsetof(struct ipid_drop_opts, f)

static int parse_range(const struct opt_desc *d, const char *v, void *field, char *err,
		       size_t errlen)
{
	struct ipid_range *r = field;
	unsigned lo, hi;
	char tail;

	if (sscanf(v, "%u-%u%c", &lo, &hi, &tail) != 2 || lo > hi || hi > 65535) {
		snprintf(err, errlen, "%s '%s': give A-B with 0 <= A <= B <= 65535", d->name, v);
		return -EINVAL;
	}
	*r = (struct ipid_range){lo, hi, true};
	return 0;
}

static const char *print_range(const void *field, char *buf, size_t len)
{
	const struct ipid_range *r = field;

	if (r->set)
		snprintf(buf, len, "%u-%u", r->lo, r->hi);
	else
		buf[0] = '\0';
	return buf;
}

/* The longest list, written back for a child's argv, must come out whole. */
_Static_assert(FAULT_MAX_IDS * sizeof("65535,") <= OPT_VALUE_MAX, "ids outgrow OPT_VALUE_MAX");

static int parse_ids(const struct opt_desc *d, const char *v, void *field, char *err, size_t errlen)
{
	struct ipid_set ids = {0};
	const char *p = v;

	while (*p) {
		char *end;
		unsigned long x;

		errno = 0;
		x = strtoul(p, &end, 10);
		if (errno || end == p || x > 65535 || (*end && *end != ',')) {
			snprintf(err, errlen, "%s '%s': give IDs from 0 to 65535, comma-separated",
				 d->name, v);
			return -EINVAL;
		}
		if (ids.n == FAULT_MAX_IDS) {
			snprintf(err, errlen, "%s: at most %d IDs", d->name, FAULT_MAX_IDS);
			return -EINVAL;
		}
		ids.v[ids.n++] = (unsigned)x;
		p = end + (*end == ',');
	}
	if (!ids.n) {
		snprintf(err, errlen, "%s: give at least one ID", d->name);
		return -EINVAL;
	}
	*(struct ipid_set *)field = ids;
	return 0;
}

static const char *print_ids(const void *field, char *buf, size_t len)
{
	const struct ipid_set *ids = field;
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ids->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? "," : "", ids->v[i]);
	return buf;
}

static const struct opt_desc opts[] = {
    {"mod", OPT_UINT, 2, 65536, FS(mod), "drop IDs with id % mod == rem"},
    {"rem", OPT_UINT, 0, 65535, FS(rem), "the remainder (below mod)"},
    {"range", OPT_CUSTOM, 0, 0, FS(range), "drop IDs A-B", parse_range, print_range},
    {"ids", OPT_CUSTOM, 0, 0, FS(ids), "drop these IDs (a,b,...)", parse_ids, print_ids},
    {"roce-only", OPT_BOOL, 0, 0, FS(roce_only), "only RoCEv2 (UDP 4791)"},
    {"direction", OPT_CUSTOM, 0, 0, FS(dir), "in, out or both, on a port target",
     fault_opt_dir_parse, fault_opt_dir_print},
    OPT_TABLE_END,
};

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	int given = (ipd_of(s)->mod != 0) + ipd_of(s)->range.set + (ipd_of(s)->ids.n != 0);

	if (given != 1) {
		snprintf(why, whylen, "ipid-drop needs one of mod (with rem), range or ids");
		return -EINVAL;
	}
	if (ipd_of(s)->mod && ipd_of(s)->rem >= ipd_of(s)->mod) {
		snprintf(why, whylen, "rem %u must be smaller than mod %u", ipd_of(s)->rem,
			 ipd_of(s)->mod);
		return -EINVAL;
	}
	return 0;
}

static int resolve(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen)
{
	(void)inv, (void)why, (void)whylen;
	ipd_rw(s)->ipid = ipd_rw(s)->range.set ? IPID_RANGE
			  : ipd_rw(s)->ids.n   ? IPID_SET
					       : IPID_MOD;
	return 0;
}

static void ipid_expr(struct sbuf *b, const struct fault_spec *s)
{
	switch (ipd_of(s)->ipid) {
	case IPID_MOD:
		if ((ipd_of(s)->mod & (ipd_of(s)->mod - 1)) == 0) {
			sb_printf(b, "ip id & 0x%x == %u", ipd_of(s)->mod - 1, ipd_of(s)->rem);
			return;
		}
		/* nft has no modulo: enumerate the matching IDs as a set. */
		sb_printf(b, "ip id {");
		for (unsigned id = ipd_of(s)->rem, k = 0; id <= 0xffff; id += ipd_of(s)->mod, k++)
			sb_printf(b, "%s%s%u", k ? "," : " ", k % 16 == 15 ? "\n\t\t\t" : "", id);
		sb_printf(b, " }");
		return;
	case IPID_RANGE:
		sb_printf(b, "ip id %u-%u", ipd_of(s)->range.lo, ipd_of(s)->range.hi);
		return;
	case IPID_SET:
		sb_printf(b, "ip id {");
		for (size_t i = 0; i < ipd_of(s)->ids.n; i++)
			sb_printf(b, "%s%u", i ? ", " : " ", ipd_of(s)->ids.v[i]);
		sb_printf(b, " }");
		return;
	}
}

static int linux_ipid_drop(struct render_ctx *r)
{
	struct sbuf m = {0};
	int rc;

	ipid_expr(&m, r->spec);
	if (ipd_of(r->spec)->roce_only)
		sb_printf(&m, " udp dport %d", ROCEV2_UDP_PORT);
	sb_printf(&m, " counter");
	/* what the drops are a share of: the RoCE packets through the port (issue 58) */
	rc = nos_nft_rules_table(r, ipd_of(r->spec)->dir, m.p, "ipid-drop", true);
	sb_free(&m);
	return rc;
}

static int verify(struct fault_run *f)
{
	struct flow fl[64] = {0};
	size_t n = traffic_flows_across(f->inv, f->spec->tdev, f->spec->tport, false, fl, 64);

	return fault_verify_nft(f, fl, n);
}

const struct fault_kind_ops fk_ipid_drop = {
    .name = "ipid-drop",
    .usage = "--target SWITCH:PORT (or SWITCH --all-ports), and one of --mod (with\n"
	     "--rem), --range, --ids",
    .targets = FT_PORT | FT_SWITCH,
    .example = "spine2:swp1",
    .opts = opts,
    .opts_size = sizeof(struct ipid_drop_opts),
    .check = check,
    .resolve = resolve,
    .render = {[INV_DIALECT_LINUX] = linux_ipid_drop},
    .cannot = "match the IP ID field in an ACL",
    .discover = fault_found_free,
    .verify = verify,
};
