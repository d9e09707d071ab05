// SPDX-License-Identifier: MIT
/*
 * ipid-drop: a switch drops the packets whose IPv4 ID matches (id % mod ==
 * rem, a range, or a set), as the papers' gray failures that hit some flows.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/caps.h"
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

/*
 * The IDs the fault drops as value/mask pairs, as a user-defined ACL field
 * matches (a ternary match): mod 2^k one pair, each of ids one, a range its
 * aligned power-of-two blocks (at most 30).  How many, or -EOPNOTSUPP with why.
 */
static int ipid_masks(const struct fault_spec *s, unsigned v[][2], size_t max, char *why,
		      size_t whylen)
{
	const struct ipid_drop_opts *o = ipd_of(s);
	size_t n = 0;

	switch (o->ipid) {
	case IPID_MOD:
		if (o->mod & (o->mod - 1)) {
			snprintf(why, whylen,
				 "a user-defined ACL field matches by value and mask, so --mod %u "
				 "cannot be one: give a power of two, or --range or --ids",
				 o->mod);
			return -EOPNOTSUPP;
		}
		v[n][0] = o->rem, v[n++][1] = o->mod - 1;
		break;
	case IPID_SET:
		for (size_t i = 0; i < o->ids.n && n < max; i++)
			v[n][0] = o->ids.v[i], v[n++][1] = 0xffff;
		break;
	case IPID_RANGE:
		for (unsigned long lo = o->range.lo; lo <= o->range.hi && n < max;) {
			unsigned long b = 1;

			while (b < 0x10000 && lo % (b * 2) == 0 && lo + b * 2 - 1 <= o->range.hi)
				b *= 2;
			v[n][0] = (unsigned)lo, v[n++][1] = (unsigned)(0xffff & ~(b - 1));
			lo += b;
		}
		break;
	}
	return (int)n;
}

/*
 * SONiC, where the image has user-defined ACL fields (caps.h,
 * NOS_CAP_SONIC_UDF): a UDF of the IPv4 identification -- two bytes at
 * offset 4 of the L3 header, selected for EtherType 0x0800 -- an ACL table
 * type that matches it, a table of that type bound at ingress to the
 * port(s), and one DROP rule a value/mask pair (sonic-net/SONiC#2299's HLD;
 * its flat UDF_SELECTOR fields as sonic-swss#4493 gives them; the table type's
 * and table's fields as sonic-swss tests/dvslib/dvs_acl.py writes them).
 * The undo deletes them in the opposite order, rules first, so that no UDF
 * is deleted while a rule uses it.  Evidence: orchagent's status of each
 * (STATE_DB, as acl-error reads it) and 'aclshow' under test traffic.
 */
#define UDF_NOT_READ                                                                               \
	": needs an image with UDF tables (sonic-net/SONiC#2299), which 'rocelab inject' reads "   \
	"first"

static int sonic_ipid_drop(struct render_ctx *r)
{
	struct sbuf a = {0}, v = {0}, ra = {0}, rv = {0};
	unsigned m[64][2];
	char name[32], udf[48], type[48];
	const char *ports[256];
	size_t np = nos_ports_of(r, ports, 256);
	int n =
	    nos_need(&r->inv->switches[r->sw], NOS_CAP_SONIC_UDF, "ipid-drop", r->why, r->whylen);

	if (n)
		return n;
	if (ipd_of(r->spec)->dir == DIR_OUT) {
		snprintf(r->why, r->whylen,
			 "SONiC's UDF ACLs are rendered at ingress (the HLD's stage): give "
			 "--direction in, or target the port the packets arrive by");
		return -EOPNOTSUPP;
	}
	if ((n = ipid_masks(r->spec, m, 64, r->why, r->whylen)) < 0)
		return n;
	nos_sonic_acl_name(r->table, name, sizeof(name));
	snprintf(udf, sizeof(udf), "%s_IPID", name);
	snprintf(type, sizeof(type), "%s_TYPE", name);
	sb_printf(
	    &a,
	    "sudo sonic-db-cli CONFIG_DB HSET 'UDF|%s' field_type GENERIC length 2 >/dev/null "
	    "&& sudo sonic-db-cli CONFIG_DB HSET 'UDF_SELECTOR|%s|IPV4' match_l2_type 0x0800 "
	    "match_l2_type_mask 0xFFFF priority 100 select_base L3 select_offset 4 >/dev/null "
	    "&& sudo sonic-db-cli CONFIG_DB HSET 'ACL_TABLE_TYPE|%s' matches@ 'IN_PORTS,%s%s' "
	    "actions@ PACKET_ACTION bind_points@ PORT >/dev/null && sudo sonic-db-cli "
	    "CONFIG_DB HSET 'ACL_TABLE|%s' policy_desc %s type %s stage ingress ports@ ",
	    udf, udf, type, ipd_of(r->spec)->roce_only ? "IP_PROTOCOL,L4_DST_PORT," : "", udf, name,
	    name, type);
	for (size_t i = 0; i < np; i++)
		sb_printf(&a, "%s%s", i ? "," : "", ports[i]);
	sb_printf(&a, " >/dev/null");
	sb_printf(&v,
		  "sudo sonic-db-cli CONFIG_DB DEL 'ACL_TABLE|%s' >/dev/null; sudo sonic-db-cli "
		  "CONFIG_DB DEL 'ACL_TABLE_TYPE|%s' >/dev/null; sudo sonic-db-cli CONFIG_DB DEL "
		  "'UDF_SELECTOR|%s|IPV4' >/dev/null; sudo sonic-db-cli CONFIG_DB DEL 'UDF|%s' "
		  ">/dev/null; true",
		  name, type, udf, udf);
	nos_read_port(nos_emit(r, &a, NULL, &v), "sonic-acl", name,
		      "sonic-db-cli CONFIG_DB KEYS 'ACL_TABLE|*'; sonic-db-cli CONFIG_DB KEYS "
		      "'ACL_RULE|*'; sonic-db-cli CONFIG_DB KEYS 'ACL_TABLE_TYPE|*'; sonic-db-cli "
		      "CONFIG_DB KEYS 'UDF*'");
	sb_printf(&rv, "sudo sonic-db-cli CONFIG_DB DEL");
	for (int i = 0; i < n; i++) {
		sb_printf(&ra,
			  "%ssudo sonic-db-cli CONFIG_DB HSET 'ACL_RULE|%s|RULE_%d' PRIORITY %d "
			  "PACKET_ACTION DROP %s%s 0x%04x/0x%04x",
			  i ? " && " : "", name, i + 1, 10000 - i - 1,
			  ipd_of(r->spec)->roce_only ? "IP_PROTOCOL 17 L4_DST_PORT 4791 " : "", udf,
			  m[i][0] & m[i][1], m[i][1]);
		sb_printf(&rv, " 'ACL_RULE|%s|RULE_%d'", name, i + 1);
	}
	sb_printf(&ra, " >/dev/null");
	sb_printf(&rv, " >/dev/null");
	nos_emit(r, &ra, NULL, &rv);
	if (ipd_of(r->spec)->dir == DIR_BOTH && r->port)
		snprintf(r->plan->note, sizeof(r->plan->note),
			 "SONiC: the packets that arrive by %s; those that leave by it are not "
			 "matched (a UDF ACL at ingress)%s",
			 r->port, r->inv->switches[r->sw].nos.read ? "" : UDF_NOT_READ);
	else if (!r->inv->switches[r->sw].nos.read)
		snprintf(r->plan->note, sizeof(r->plan->note), "SONiC%s", UDF_NOT_READ);
	/* its counters: sonic-utilities scripts/aclshow, -a shows rules at 0 too */
	snprintf(r->plan->counters, sizeof(r->plan->counters), "aclshow -a -t %s", name);
	snprintf(r->plan->counters_as, sizeof(r->plan->counters_as), "sonic-aclshow %s", name);
	return 0;
}

/* Of 65536 IDs, how many the fault drops. */
static unsigned ipid_share(const struct fault_spec *s)
{
	const struct ipid_drop_opts *o = ipd_of(s);

	return o->ipid == IPID_MOD     ? (65536 + o->mod - 1 - o->rem) / o->mod
	       : o->ipid == IPID_RANGE ? o->range.hi - o->range.lo + 1
				       : (unsigned)o->ids.n;
}

static int verify(struct fault_run *f)
{
	struct flow fl[64] = {0};
	size_t n = traffic_flows_across(f->inv, f->spec->tdev, f->spec->tport, false, fl, 64);
	int r;

	if (f->inv->switches[f->spec->tdev].dialect != INV_DIALECT_SONIC)
		return fault_verify_nft(f, fl, n);
	if ((r = acl_error_verify_sonic(f)))
		return r;
	/*
	 * A few hundred test datagrams, consecutive IDs from a random start: a
	 * count is evidence only when it expects ten or more of them dropped
	 * (none of ten expected, at random: 1 in 22,000).
	 */
	if ((unsigned long long)ipid_share(f->spec) * FAULT_TEST_DATAGRAMS < 10 * 65536ULL) {
		size_t k = strlen(f->evidence);

		snprintf(f->evidence + k, sizeof(f->evidence) - k,
			 "; its counters not asked: %u of 65536 IDs match, fewer than 10 of %d "
			 "test datagrams would",
			 ipid_share(f->spec), FAULT_TEST_DATAGRAMS);
		return 0;
	}
	return fault_verify_acl_counters(f, fl, n);
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
    .render = {[INV_DIALECT_LINUX] = linux_ipid_drop, [INV_DIALECT_SONIC] = sonic_ipid_drop},
    .cannot = "match the IP ID field in an ACL",
    .discover = fault_found_free,
    .verify = verify,
    .follows =
	{
	    [INV_DIALECT_LINUX] = "nftables ('ip id' matches, nft(8))",
	    [INV_DIALECT_SONIC] = "sonic-net/SONiC#2299 (UDF HLD), sonic-swss#4493 (UdfOrch), "
				  "sonic-buildimage#26874 (sonic-udf.yang): open pull requests",
	},
};
