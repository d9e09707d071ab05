// SPDX-License-Identifier: MIT
/*
 * The components under test, by name: the monitors (probe/monitors/
 * monitors.def, each NAME_component), then the transports.  A new component
 * is its folder and one line here (a monitor: there); tests register their
 * own with component_register().
 */
#include "harness/run/registry.h"

#include "harness/lib/common.h"
#include "probe/observe.h"
#include "transport/mpr_comp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MONITOR(n, about) extern const struct component_ops n##_component;
#include "probe/monitors/monitors.def"
#undef MONITOR

static const struct component_ops *table[COMPONENTS_MAX] = {
#define MONITOR(n, about) &n##_component,
#include "probe/monitors/monitors.def"
#undef MONITOR
    &mprdma_component,
    &eunomia_component,
};

int component_register(const struct component_ops *ops)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i] && !strcmp(table[i]->name, ops->name))
			return table[i] == ops ? 0 : -EEXIST;
		if (!table[i]) {
			table[i] = ops;
			return 0;
		}
	}
	return -ENOSPC;
}

const struct component_ops *component_find(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && table[i]; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

const struct component_ops *component_at(size_t i)
{
	return i < sizeof(table) / sizeof(table[0]) ? table[i] : NULL;
}

/* Each pair into the classes' builder, counted (RNICs cabled to no switch too). */
struct count_pairs {
	struct observe_builder *b;
	size_t n;
};

static void count_pair(void *ctx, const struct comp_pair *p)
{
	struct count_pairs *c = ctx;

	observe_pair(c->b, p);
	c->n++;
}

struct observe *component_observe(const struct component_ops *ops, const void *cfg,
				  const struct inventory *inv, unsigned seed, size_t *n_pairs)
{
	struct observe_builder *b;
	struct observe *o;
	void *own = NULL;
	int r;

	*n_pairs = 0;
	if (!ops->probe_pairs) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(b = observe_begin(inv)))
		return NULL;
	if (!cfg) {
		cfg = own = rl_xcalloc(1, ops->cfg_size);
		ops->defaults(own);
	}
	struct count_pairs cp = {b, 0};

	r = ops->probe_pairs(inv, cfg, seed, count_pair, &cp);
	free(own);
	o = observe_end(b);
	*n_pairs = cp.n;
	if (r) {
		observe_free(o);
		errno = -r;
		return NULL;
	}
	return o;
}

int component_profile_apply(const struct component_ops *ops, void *cfg, const char *name, char *why,
			    size_t len)
{
	const struct comp_profile *pr;
	char names[128] = "", err[320];

	for (pr = ops->profiles; pr && pr->name && strcmp(pr->name, name); pr++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 names[0] ? ", " : "", pr->name);
	if (!pr || !pr->name) {
		snprintf(why, len, "%s has no profile '%s' (it has: %s)", ops->name, name,
			 names[0] ? names : "none");
		return -ENOENT;
	}
	for (const char *const *kv = pr->set; *kv; kv++) {
		const char *eq = strchr(*kv, '=');
		const struct opt_desc *d = NULL;
		char key[64];

		if (eq) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
			d = opt_find(ops->params, key);
		}
		if (!d || opt_set(d, cfg, eq + 1, err, sizeof(err))) {
			snprintf(why, len, "%s profile %s: '%s' is not a parameter of it",
				 ops->name, name, *kv);
			return -EINVAL;
		}
	}
	return 0;
}

const char *component_names(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && table[i] && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", table[i]->name);
	return buf;
}
