// SPDX-License-Identifier: MIT
/* acl-error: a switch ACL denies RoCEv2 (UDP 4791) from one RNIC or tenant to another. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"

#include <string.h>

#define FS(f) offsetof(struct fault_spec, f)
#define NAME(opt, f, h)                                                                            \
	{                                                                                          \
		.name = opt, .type = OPT_STR, .off = FS(f),                                        \
		.size = sizeof(((struct fault_spec *)0)->f), .help = h                             \
	}

static const struct opt_desc opts[] = {
    NAME("from", from_name, "HOST:RNIC whose RoCE traffic is denied"),
    NAME("to", to_name, "HOST:RNIC it is denied to"),
    NAME("from-tenant", from_tenant_name, "tenant whose RoCE traffic is denied"),
    NAME("to-tenant", to_tenant_name, "tenant it is denied to"),
    OPT_TABLE_END,
};

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	bool rnics = s->from_name[0] || s->to_name[0];
	bool tenants = s->from_tenant_name[0] || s->to_tenant_name[0];

	if (rnics == tenants || (rnics && (!s->from_name[0] || !s->to_name[0])) ||
	    (tenants && (!s->from_tenant_name[0] || !s->to_tenant_name[0]))) {
		snprintf(why, whylen,
			 "acl-error needs 'from' and 'to' (HOST:RNIC each), or 'from-tenant' "
			 "and 'to-tenant'");
		return -EINVAL;
	}
	return 0;
}

static int rnic(const struct inventory *inv, const char *opt, const char *name,
		struct inv_endpoint *ep, char *why, size_t whylen)
{
	char msg[160];

	if (inventory_endpoint(inv, name, ep, msg, sizeof(msg))) {
		snprintf(why, whylen, "%s: %s", opt, msg);
		return -EINVAL;
	}
	if (ep->kind != INV_DEV_HOST) {
		snprintf(why, whylen, "%s: '%s' must be an RNIC (host:rnic)", opt, name);
		return -EINVAL;
	}
	return 0;
}

static int tenant(const struct inventory *inv, const char *name, size_t *out, char *why,
		  size_t whylen)
{
	for (size_t i = 0; i < inv->n_tenants; i++) {
		if (!strcmp(inv->tenants[i].name, name)) {
			*out = i;
			return 0;
		}
	}
	snprintf(why, whylen, "no tenant is named '%s' in %s", name, inv->path);
	return -EINVAL;
}

static int resolve(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen)
{
	if (s->from_name[0])
		return rnic(inv, "from", s->from_name, &s->from, why, whylen) ||
			       rnic(inv, "to", s->to_name, &s->to, why, whylen)
			   ? -EINVAL
			   : 0;
	s->acl_tenants = true;
	return tenant(inv, s->from_tenant_name, &s->from_tenant, why, whylen) ||
		       tenant(inv, s->to_tenant_name, &s->to_tenant, why, whylen)
		   ? -EINVAL
		   : 0;
}

static int render(const struct dialect_ops *d, struct render_ctx *r)
{
	return d->acl_error ? d->acl_error(r) : dialect_unsupported(r, "install an ACL");
}

/* SONiC: orchagent's word on the table and each rule, from STATE_DB (see dialect.c). */
static int verify_sonic(struct fault_run *f)
{
	const char *dev = f->inv->switches[f->spec->tdev].name;
	char err[512], *out = NULL;
	struct sbuf cmd = {0};
	size_t rules = dialect_sonic_acl_status_cmd(f->plan, &cmd);
	int r = lab_cli(f->lab, dev, cmd.p, NULL, &out, err, sizeof(err));

	free(cmd.p);
	if (r) {
		snprintf(f->err, sizeof(f->err), "%s", err);
		free(out);
		return r < 0 ? r : -EIO;
	}
	r = dialect_sonic_acl_status(out ? out : (char[]){""}, dev, f->plan, rules, f->evidence,
				     sizeof(f->evidence), f->err, sizeof(f->err));
	free(out);
	return r;
}

/*
 * Every denied pair must be dropped where the ACL is: the ACL read back, then
 * test datagrams and its counters.
 */
static int verify(struct fault_run *f)
{
	const struct inventory *inv = f->inv;
	const struct fault_spec *s = f->spec;
	struct flow fl[64];
	size_t n = 0;

	if (!s->acl_tenants) {
		fl[0].src = s->from;
		fl[0].dst = inv->hosts[s->to.dev].rnics[s->to.port].addr.addr;
		n = 1;
	} else {
		const struct inv_tenant *a = &inv->tenants[s->from_tenant],
					*b = &inv->tenants[s->to_tenant];

		for (size_t i = 0; i < a->n_members && n < 64; i++)
			for (size_t k = 0; k < b->n_members && n < 64; k++) {
				fl[n].src = a->members[i];
				fl[n++].dst = inv->hosts[b->members[k].dev]
						  .rnics[b->members[k].port]
						  .addr.addr;
			}
	}
	if (inv->switches[s->tdev].dialect == INV_DIALECT_SONIC) {
		int r = verify_sonic(f);

		return r ? r : fault_verify_acl_counters(f, fl, n);
	}
	return fault_verify_nft(f, fl, n);
}

const struct fault_kind_ops fk_acl_error = {
    .name = "acl-error",
    .usage = "--target SWITCH[:PORT], and --from and --to, or --from-tenant and\n"
	     "--to-tenant   (denies UDP 4791 from -> to)",
    .targets = FT_PORT | FT_SWITCH,
    .example = "rail2",
    .opts = opts,
    .check = check,
    .resolve = resolve,
    .render = render,
    .discover = fault_found_free,
    .verify = verify,
};
