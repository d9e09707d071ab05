// SPDX-License-Identifier: MIT
/*
 * A fault as typed options: set from the command line or a scenario through
 * the kind's option table, checked, resolved against the inventory, and
 * written back as the argv of 'rocelab inject'.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/fault.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FS(f) offsetof(struct fault_spec, f)

const struct opt_desc fault_common_opts[] = {
    {.name = "target",
     .type = OPT_STR,
     .off = FS(target),
     .size = sizeof(((struct fault_spec *)0)->target),
     .help = "SWITCH:PORT, SWITCH or HOST:RNIC, as the kind takes"},
    {.name = "for",
     .type = OPT_MS,
     .lo = 1,
     .hi = 86400000,
     .off = FS(for_ms),
     .help = "revert after this long"},
    {.name = "hold", .type = OPT_BOOL, .off = FS(hold), .help = "revert at SIGINT or SIGTERM"},
    {.name = "deadman",
     .type = OPT_MS,
     .lo = 3000,
     .hi = 3600000,
     .off = FS(deadman_ms),
     .help = "each device reverts the fault by itself this long after its injector last "
	     "said it lives (30s; 3s..1h)"},
    {.name = "all-ports",
     .type = OPT_BOOL,
     .off = FS(all_ports),
     .help = "with --target SWITCH, of a kind that also takes SWITCH:PORT: bind every cabled "
	     "port (refused without)"},
    OPT_TABLE_END,
};

int fault_opt_rate_parse(const struct opt_desc *d, const char *v, void *field, char *err,
			 size_t errlen)
{
	unsigned long long mbps, kbit;
	double x;
	char *end;

	/* Mbit/s with kbit precision: "500kbit" is 0.5 Mbit/s. */
	if (rl_parse_rate_mbps(v, &mbps)) {
		snprintf(err, errlen, "%s '%s': give a rate (e.g. 10mbit, 1gbit, 500kbit)", d->name,
			 v);
		return -EINVAL;
	}
	x = rl_strtod(v, &end);
	kbit = !strncasecmp(end, "k", 1) ? (unsigned long long)x : mbps * 1000;
	if ((double)kbit < d->lo || (double)kbit > d->hi) {
		snprintf(err, errlen, "%s '%s': give a rate from %.0fkbit to %.0fgbit", d->name, v,
			 d->lo, d->hi / 1e6);
		return -EINVAL;
	}
	*(unsigned long long *)field = kbit;
	return 0;
}

/* Bytes: "240KB" (1000s), "2MB", "64KiB" (1024s), "1500", "1500B". */
#define OPT_MAX_BYTES 256000000u /* EOS's largest ECN threshold; SONiC and NVUE take more */

int fault_opt_bytes_parse(const struct opt_desc *d, const char *v, void *field, char *err,
			  size_t errlen)
{
	static const struct {
		const char *unit;
		unsigned long long mult;
	} units[] = {{"", 1},	    {"b", 1},	     {"kb", 1000},   {"k", 1000},
		     {"kib", 1024}, {"mb", 1000000}, {"m", 1000000}, {"mib", 1048576}};
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (!errno && end != v && *v >= '0' && *v <= '9')
		for (size_t i = 0; i < ARRAY_SIZE(units); i++)
			if (!strcasecmp(end, units[i].unit)) {
				x *= units[i].mult;
				if (x >= 1 && x <= OPT_MAX_BYTES) {
					*(unsigned *)field = (unsigned)x;
					return 0;
				}
				break;
			}
	snprintf(err, errlen,
		 "%s '%s': give a queue depth in bytes from 1 to 256MB (e.g. 20KB, 240KB, 1500, "
		 "2MB; KB is 1000 bytes, KiB 1024)",
		 d->name, v);
	return -EINVAL;
}

const char *fault_opt_bytes_print(const void *field, char *buf, size_t len)
{
	unsigned b = *(const unsigned *)field;

	if (b && b % 1000000 == 0)
		snprintf(buf, len, "%uMB", b / 1000000);
	else if (b && b % 1000 == 0)
		snprintf(buf, len, "%uKB", b / 1000);
	else
		snprintf(buf, len, "%u", b);
	return buf;
}

/* As a person writes it ("100mbit"); empty when not given. */
const char *fault_opt_rate_print(const void *field, char *buf, size_t len)
{
	unsigned long long k = *(const unsigned long long *)field;

	if (!k)
		buf[0] = '\0';
	else if (k % 1000000 == 0)
		snprintf(buf, len, "%llugbit", k / 1000000);
	else if (k % 1000 == 0)
		snprintf(buf, len, "%llumbit", k / 1000);
	else
		snprintf(buf, len, "%llukbit", k);
	return buf;
}

int fault_opt_dir_parse(const struct opt_desc *d, const char *v, void *field, char *err,
			size_t errlen)
{
	static const char *const names[] = {
	    [DIR_BOTH] = "both", [DIR_IN] = "in", [DIR_OUT] = "out"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(v, names[i])) {
			*(enum direction *)field = (enum direction)i;
			return 0;
		}
	}
	snprintf(err, errlen, "%s '%s': give in, out or both", d->name, v);
	return -EINVAL;
}

const char *fault_opt_dir_print(const void *field, char *buf, size_t len)
{
	enum direction dir = *(const enum direction *)field;

	snprintf(buf, len, "%s", dir == DIR_IN ? "in" : dir == DIR_OUT ? "out" : "both");
	return buf;
}

void fault_spec_init(struct fault_spec *s, const struct fault_kind_ops *k)
{
	if (k->opts_size > FAULT_OPTS_MAX)
		abort(); /* FAULT_KIND_OPTS in the kind's file makes this a compile error */
	memset(s, 0, sizeof(*s));
	s->kind = k;
	s->tport = -1;
	if (k->defaults)
		k->defaults(s);
}

const struct opt_desc *fault_opt_find(const struct fault_kind_ops *k, const char *name)
{
	const struct opt_desc *d = opt_find(fault_common_opts, name);

	return d ? d : opt_find(k->opts, name);
}

/* Where option d of s lives: the spec (a common option) or the kind's own struct. */
static bool common_opt(const struct opt_desc *d)
{
	for (const struct opt_desc *c = fault_common_opts; c->type != OPT_END; c++)
		if (c == d)
			return true;
	return false;
}

void *fault_opt_obj(struct fault_spec *s, const struct opt_desc *d)
{
	return common_opt(d) ? (void *)s : (void *)s->opts;
}

const char *fault_spec_value(const struct fault_spec *s, const char *name, char *buf, size_t len)
{
	const struct opt_desc *d = fault_opt_find(s->kind, name);

	if (!d)
		return NULL;
	return opt_value(d, common_opt(d) ? (const void *)s : (const void *)s->opts, buf, len);
}

int fault_spec_set(struct fault_spec *s, const char *name, const char *value, char *why,
		   size_t whylen)
{
	const struct opt_desc *d = fault_opt_find(s->kind, name);
	char names[256];

	if (!d) {
		if (s->kind->opts[0].type == OPT_END)
			snprintf(why, whylen, "%s takes no option '%s'", s->kind->name, name);
		else
			snprintf(why, whylen, "%s has no option '%s' (its options: %s)",
				 s->kind->name, name,
				 opt_names(s->kind->opts, names, sizeof(names)));
		return -EINVAL;
	}
	if (!value && d->type != OPT_BOOL) {
		snprintf(why, whylen, "option '%s' needs a value", name);
		return -EINVAL;
	}
	return opt_set(d, fault_opt_obj(s, d), value, why, whylen);
}

int fault_spec_check(struct fault_spec *s, char *why, size_t whylen)
{
	if (!s->target[0]) {
		snprintf(why, whylen, "%s needs a target (e.g. %s)", s->kind->name,
			 s->kind->example);
		return -EINVAL;
	}
	if (s->for_ms && s->hold) {
		snprintf(why, whylen, "give 'for' or 'hold', not both");
		return -EINVAL;
	}
	return s->kind->check ? s->kind->check(s, why, whylen) : 0;
}

/* "SWITCH:PORT or HOST:RNIC" for the forms a kind takes. */
static const char *forms(unsigned t, char *buf, size_t len)
{
	static const char *const name[] = {"SWITCH:PORT", "SWITCH", "HOST:RNIC", "HOST"};
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < ARRAY_SIZE(name); i++)
		if (t & 1u << i && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name[i]);
	return buf;
}

size_t fault_cabled_ports(const struct inv_switch *sw)
{
	size_t n = 0;

	for (size_t i = 0; i < sw->n_ports; i++)
		n += sw->ports[i].link1 != 0;
	return n;
}

int fault_spec_resolve_target(const struct inventory *inv, struct fault_spec *s, char *why,
			      size_t whylen)
{
	const struct fault_kind_ops *k = s->kind;
	struct inv_endpoint ep;
	char msg[160], f[64];
	unsigned form;

	if (!rl_port_name_ok(s->target, sizeof(s->target) - 2)) {
		snprintf(why, whylen, "target '%s' is not a valid name", s->target);
		return -EINVAL;
	}
	struct inv_host *host = strchr(s->target, ':') ? NULL : inventory_host(inv, s->target);

	if (host && k->targets & FT_HOST) {
		s->tkind = INV_DEV_HOST;
		s->tdev = (size_t)(host - inv->hosts);
		s->tport = -1;
		form = FT_HOST;
	} else if (!strchr(s->target, ':')) {
		struct inv_switch *sw = inventory_switch(inv, s->target);

		if (!sw) {
			if (inventory_host(inv, s->target))
				snprintf(why, whylen,
					 "target '%s' is a host: give one of its RNICs (%s:rnicN)",
					 s->target, s->target);
			else
				snprintf(why, whylen, "target: no switch is named '%s' in %s",
					 s->target, inv->path);
			return -EINVAL;
		}
		s->tkind = INV_DEV_SWITCH;
		s->tdev = (size_t)(sw - inv->switches);
		s->tport = -1;
		form = FT_SWITCH;
	} else {
		if (inventory_endpoint(inv, s->target, &ep, msg, sizeof(msg))) {
			snprintf(why, whylen, "target: %s", msg);
			return -EINVAL;
		}
		s->tkind = ep.kind;
		s->tdev = ep.dev;
		s->tport = (ssize_t)ep.port;
		if (!inventory_link_at(inv, &ep)) {
			snprintf(why, whylen, "target %s is not cabled to anything", s->target);
			return -EINVAL;
		}
		form = ep.kind == INV_DEV_HOST ? FT_RNIC : FT_PORT;
	}
	if (!(k->targets & form)) {
		snprintf(why, whylen, "%s targets %s, and %s is %s", k->name,
			 forms(k->targets, f, sizeof(f)), s->target,
			 form == FT_HOST     ? "a whole host"
			 : form == FT_RNIC   ? "an RNIC"
			 : form == FT_SWITCH ? "a whole switch"
					     : "a switch port");
		return -EINVAL;
	}
	/*
	 * A whole switch, for a kind that also takes one port, is every cabled
	 * port of it: on a real switch that binds an ACL or a queue change to
	 * ports far from the fault's flow.  Said, never implied.
	 */
	if (form == FT_SWITCH && k->targets & FT_PORT && !s->all_ports) {
		const struct inv_switch *sw = &inv->switches[s->tdev];

		snprintf(why, whylen,
			 "%s --target %s binds every cabled port of %s (%zu): give one port "
			 "(%s:%s), or add --all-ports (a scenario's fault: all-ports: true) to "
			 "mean every port",
			 k->name, s->target, s->target, fault_cabled_ports(sw), s->target,
			 sw->n_ports ? sw->ports[0].name : "PORT");
		return -EINVAL;
	}
	if (s->all_ports && form != FT_SWITCH) {
		snprintf(why, whylen,
			 "--all-ports goes with a whole switch (--target SWITCH); %s is %s",
			 s->target, form == FT_PORT ? "one port" : "not a switch");
		return -EINVAL;
	}
	return 0;
}

int fault_spec_resolve(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen)
{
	int r = fault_spec_resolve_target(inv, s, why, whylen);

	if (r)
		return r;
	return s->kind->resolve ? s->kind->resolve(inv, s, why, whylen) : 0;
}

unsigned long long fault_spec_link_rate(const struct fault_spec *s)
{
	return s->kind->link_rate_kbit ? s->kind->link_rate_kbit(s) : 0;
}

int fault_spec_argv(const struct fault_spec *s, const char **argv, size_t *n, size_t max,
		    struct opt_store *store)
{
	struct fault_spec d;
	int r;

	if (*n + 2 > max)
		return -E2BIG;
	fault_spec_init(&d, s->kind);
	argv[(*n)++] = s->kind->name;
	if ((r = opt_argv(fault_common_opts, s, &d, argv, n, max, store)))
		return r;
	return opt_argv(s->kind->opts, s->opts, d.opts, argv, n, max, store);
}
