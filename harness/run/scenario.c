// SPDX-License-Identifier: MIT
/* Scenario parser (libyaml document API): every error names file:line:col and what to write
 * instead. */
#define _GNU_SOURCE
#include "harness/run/scenario.h"

#include "harness/lib/common.h"
#include "harness/lib/roles.h"
#include "harness/lib/yamldoc.h"
#include "harness/run/registry.h"

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct sctx {
	const char *path;
	yaml_document_t *doc;
	FILE *errf;
	int nerr;
	int nunplaced; /* of nerr: targets by role this lab has none for */
	struct scenario *s;
	struct role_rng rng; /* role targets, from the run's seed and the scenario's name */
	int fault_rail;	     /* the rail of the first fault's target, for 'rail: fault' */
	int fault_host;	     /* 1 + the host of the first fault's RNIC, for 'host: fault' */
	char first_target[FAULT_NAME_MAX]; /* the first fault's target, for 'across: fault' */
	unsigned variant;		   /* the one of the scenario's variants to load */
};

__attribute__((format(printf, 3, 4))) static int err_at(struct sctx *c, const yaml_node_t *n,
							const char *fmt, ...)
{
	va_list ap;

	c->nerr++;
	if (c->errf) {
		fprintf(c->errf, "%s:%zu:%zu: ", c->path, n->start_mark.line + 1,
			n->start_mark.column + 1);
		va_start(ap, fmt);
		rl_vfprintf_text(c->errf, fmt, ap);
		va_end(ap);
		fputc('\n', c->errf);
	}
	return -EINVAL;
}

static yaml_node_t *nd(struct sctx *c, int i)
{
	return yaml_document_get_node(c->doc, i);
}

static const char *str(struct sctx *c, yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE) {
		err_at(c, n, "%s must be a single value", what);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static int copy(struct sctx *c, yaml_node_t *n, char *buf, size_t len, const char *what)
{
	const char *v = str(c, n, what);

	if (!v)
		return -EINVAL;
	if (strlen(v) >= len)
		return err_at(c, n, "%s is too long (at most %zu characters)", what, len - 1);
	strcpy(buf, v);
	return 0;
}

static int dur(struct sctx *c, yaml_node_t *n, long long lo, long long hi, long long *ms,
	       const char *what)
{
	const char *v = str(c, n, what);
	char want[128];

	if (!v)
		return -EINVAL;
	if (rl_parse_duration_ms(v, ms) || *ms < lo || *ms > hi)
		return err_at(c, n, "%s '%s': %s", what, v,
			      rl_duration_range(lo, hi, want, sizeof(want)));
	return 0;
}

/* A finite number; NAN when the scalar v is not one. */
static double scalar_number(const char *v)
{
	double x;
	char *end;

	errno = 0;
	x = rl_strtod(v, &end);
	return errno || end == v || *end || !isfinite(x) ? NAN : x;
}

/* A whole number from lo to hi: checked finite and in range before it becomes an int. */
static int whole(struct sctx *c, yaml_node_t *n, int lo, int hi, int *out, const char *what)
{
	const char *v = str(c, n, what);
	double x;

	if (!v)
		return -EINVAL;
	x = scalar_number(v);
	if (isnan(x) || x < lo || x > hi || x != floor(x))
		return err_at(c, n, "%s '%s': give a whole number from %d to %d", what, v, lo, hi);
	*out = (int)x;
	return 0;
}

/* A share above 0 and at most 1. */
static int fraction(struct sctx *c, yaml_node_t *n, double *out, const char *what)
{
	const char *v = str(c, n, what);
	double x;

	if (!v)
		return -EINVAL;
	x = scalar_number(v);
	if (isnan(x) || x <= 0 || x > 1)
		return err_at(c, n, "%s '%s': give a share above 0 and at most 1 (e.g. 0.9)", what,
			      v);
	*out = x;
	return 0;
}

/*
 * Walk a mapping: fn(c, key, value, obj) for each pair; keys must be
 * scalars, unknown keys are reported by fn, duplicates here.
 */
typedef int (*pair_fn)(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *obj);

static int each_pair(struct sctx *c, yaml_node_t *map, pair_fn fn, void *obj, const char *what)
{
	int ret = 0;

	if (map->type != YAML_MAPPING_NODE)
		return err_at(c, map, "%s must be a mapping (key: value)", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = nd(c, p->key), *v = nd(c, p->value);
		const char *ks = str(c, k, "a key");

		if (!ks) {
			ret = -EINVAL;
			continue;
		}
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *qk = nd(c, q->key);

			if (qk->type == YAML_SCALAR_NODE &&
			    !strcmp((const char *)qk->data.scalar.value, ks)) {
				ret = err_at(c, k, "duplicate key '%s' in %s (first at line %zu)",
					     ks, what, qk->start_mark.line + 1);
				ks = NULL;
				break;
			}
		}
		if (ks && fn(c, ks, k, v, obj))
			ret = -EINVAL;
	}
	return ret;
}

#define UNKNOWN(c, k, key, what, list)                                                             \
	err_at((c), (k), "unknown key '%s' in %s (expected one of: %s)", (key), (what), (list))

/* ---- phases ------------------------------------------------------------------------ */

static int phase_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct scenario *s = o;

	if (!strcmp(key, "baseline"))
		return dur(c, v, 0, 3600000, &s->baseline_ms, "phases.baseline");
	if (!strcmp(key, "fault"))
		return dur(c, v, 1000, 3600000, &s->fault_ms, "phases.fault");
	if (!strcmp(key, "recovery"))
		return dur(c, v, 0, 3600000, &s->recovery_ms, "phases.recovery");
	return UNKNOWN(c, k, key, "phases", "baseline, fault, recovery");
}

/* ---- components -------------------------------------------------------------------------- */

struct comp_tmp {
	struct scn_component *c;
	yaml_node_t *expect;
};

/* One parameter of a component, through its option table. */
static int comp_param_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct comp_tmp *t = o;
	const struct component_ops *ops = t->c->ops;
	const struct opt_desc *d = opt_find(ops->params, key);
	char err[320], names[512];
	const char *val;

	if (!strcmp(key, "expect")) {
		t->expect = v;
		return 0;
	}
	if (!strcmp(key, "profile") && ops->profiles)
		return 0; /* applied first (apply_profile) */
	if (!d)
		return err_at(c, k, "unknown key '%s' in %s (expected one of: %s%s, expect)", key,
			      ops->name, opt_names(ops->params, names, sizeof(names)),
			      ops->profiles ? ", profile" : "");
	if (!(val = str(c, v, key)))
		return -EINVAL;
	if (opt_set(d, t->c->cfg, val, err, sizeof(err)))
		return err_at(c, v, "%s.%s", ops->name, err);
	t->c->n_overrides++;
	return 0;
}

/*
 * The section's `profile: NAME` over the component's defaults, whatever its
 * place in the section: the section's own keys override it (and are counted).
 */
static int apply_profile(struct sctx *c, struct scn_component *sc, yaml_node_t *map)
{
	const struct component_ops *ops = sc->ops;

	if (!ops->profiles || map->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = nd(c, p->key), *v = nd(c, p->value);
		const char *name;
		char why[400];

		if (k->type != YAML_SCALAR_NODE ||
		    strcmp((const char *)k->data.scalar.value, "profile"))
			continue;
		if (!(name = str(c, v, "profile")))
			return -EINVAL;
		/* a bad profile entry is the program's own bug, said where it shows */
		if (component_profile_apply(ops, sc->cfg, name, why, sizeof(why)))
			return err_at(c, v, "%s", why);
		snprintf(sc->profile, sizeof(sc->profile), "%s", name);
	}
	return 0;
}

/* A component by name, with its defaults; its parameters (a mapping) if given. */
static struct scn_component *add_component(struct sctx *c, yaml_node_t *name_node, yaml_node_t *map,
					   yaml_node_t **expect)
{
	struct scenario *s = c->s;
	const char *name = str(c, name_node, "a component");
	const struct component_ops *ops;
	struct scn_component *sc;
	struct comp_tmp t = {0};
	char names[256];

	if (!name)
		return NULL;
	if (!(ops = component_find(name))) {
		err_at(c, name_node, "component '%s' is not available; this rocelab runs: %s", name,
		       component_names(names, sizeof(names)));
		return NULL;
	}
	for (size_t i = 0; i < s->n_comps; i++)
		if (s->comps[i].ops == ops) {
			err_at(c, name_node, "component '%s' is listed twice", name);
			return NULL;
		}
	sc = RL_PUSH(s->comps, s->n_comps);
	sc->ops = ops;
	sc->cfg = rl_xcalloc(1, ops->cfg_size);
	sc->loc = (struct inv_loc){(unsigned)name_node->start_mark.line + 1,
				   (unsigned)name_node->start_mark.column + 1};
	ops->defaults(sc->cfg);
	t.c = sc;
	if (map && !(map->type == YAML_SCALAR_NODE && !map->data.scalar.length) &&
	    (apply_profile(c, sc, map) || each_pair(c, map, comp_param_pair, &t, ops->name)))
		return NULL;
	*expect = t.expect;
	return sc;
}

/* ---- targets by role -------------------------------------------------------------------- */

struct role_tmp {
	struct role_sel *sel;
	const struct inventory *inv;
};

static int role_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct role_tmp *t = o;
	const char *val;
	char why[256];

	(void)k;
	if (!strcmp(key, "role"))
		return 0;
	if (!(val = str(c, v, key)))
		return -EINVAL;
	if (role_set(t->sel, t->inv, key, val, why, sizeof(why)))
		return err_at(c, k, "%s", why);
	return 0;
}

/*
 * { role: KIND, ... } at n, resolved with the scenario's generator: up to max
 * names into out (more than one only where a count is allowed).  Returns how
 * many, or -EINVAL after reporting at n.  written gets the selector's text.
 */
static int pick(struct sctx *c, yaml_node_t *n, struct role_picks *picks, unsigned max,
		bool (*usable)(const char *, void *, char *, size_t), void *arg,
		char out[][ROLE_NAME_MAX], char *written, size_t wlen)
{
	const struct inventory *inv = c->s->inv;
	struct role_sel sel;
	struct role_tmp t = {.sel = &sel, .inv = inv};
	yaml_node_t *role = NULL;
	const char *kind;
	char why[512];

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = nd(c, p->key);

		if (k->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)k->data.scalar.value, "role"))
			role = nd(c, p->value);
	}
	if (!role)
		return err_at(c, n,
			      "a target by role needs 'role' (rnic, rail-uplink, spine-port, "
			      "switch, host), e.g. { role: rail-uplink, rail: any }");
	if (!(kind = str(c, role, "role")))
		return -EINVAL;
	if (role_kind_parse(kind, &sel.kind, why, sizeof(why)))
		return err_at(c, role, "%s", why);
	role_sel_init(&sel, sel.kind);
	if (each_pair(c, n, role_pair, &t, "a target by role"))
		return -EINVAL;
	if (sel.count > max || (sel.count == ROLE_COUNT_ALL && max < ROLE_PICKS))
		return err_at(c, n, "%s: only load 'from' and fabric entries pick more than one",
			      role_format(&sel, inv, why, sizeof(why)));
	picks->fault_rail = c->fault_rail;
	picks->fault_host = c->fault_host;
	if (role_resolve(inv, &sel, picks, &c->rng, usable, arg, out, why, sizeof(why))) {
		c->nunplaced++; /* the scenario is right; this lab has no such element */
		return err_at(c, n, "%s", why);
	}
	if (written)
		role_format(&sel, inv, written, wlen);
	if (sel.count == ROLE_COUNT_ALL) {
		unsigned k = 0;

		while (k < ROLE_PICKS && out[k][0])
			k++;
		return (int)k;
	}
	return (int)sel.count;
}

/* ---- faults ---------------------------------------------------------------------------- */

#define FAULT_ALTS 4

/*
 * An option given as a list: alternatives, the first that the target can
 * take ('rate: [10mbit, 10g]': a TBF where both ends are Linux, a port
 * speed where one is a NOS switch).
 */
struct fault_alts {
	char key[32];
	char val[FAULT_ALTS][64];
	size_t n;
};

/* A YAML true or false into *out (1 or 0). */
static int truth(struct sctx *c, yaml_node_t *v, int *out, const char *what)
{
	const char *b = str(c, v, what);

	if (!b || (strcmp(b, "true") && strcmp(b, "false")))
		return err_at(c, v, "%s is true or false", what);
	*out = !strcmp(b, "true");
	return 0;
}

struct fault_tmp {
	struct scn_fault *f;
	yaml_node_t *kind, *target, *options;
	struct role_picks picks;
	struct fault_alts alts;
	int all_ports;
};

static int fault_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct fault_tmp *t = o;

	if (!strcmp(key, "kind"))
		t->kind = v;
	else if (!strcmp(key, "target"))
		t->target = v;
	else if (!strcmp(key, "options"))
		t->options = v;
	else if (!strcmp(key, "at"))
		return dur(c, v, 0, 3600000, &t->f->at_ms, "fault 'at'");
	else if (!strcmp(key, "for"))
		return dur(c, v, 1000, 3600000, &t->f->for_ms, "fault 'for'");
	else if (!strcmp(key, "all-ports"))
		return truth(c, v, &t->all_ports, "fault 'all-ports'");
	else
		return UNKNOWN(c, k, key, "a fault", "kind, target, at, for, all-ports, options");
	return 0;
}

/* A fault option through the kind's own table: the same names as 'inject --NAME'. */
static int fault_opt_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct fault_tmp *t = o;
	struct fault_spec *s = &t->f->spec;
	char why[512], picked[1][ROLE_NAME_MAX];
	const char *val;

	if (!opt_find(s->kind->opts, key)) {
		char names[256], what[64];

		if (s->kind->opts[0].type == OPT_END)
			return err_at(c, k, "%s takes no options ('%s')", s->kind->name, key);
		snprintf(what, sizeof(what), "the options of %s", s->kind->name);
		return UNKNOWN(c, k, key, what, opt_names(s->kind->opts, names, sizeof(names)));
	}
	if (v->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it = v->data.sequence.items.start;
		size_t n = (size_t)(v->data.sequence.items.top - it);

		if (t->alts.n)
			return err_at(c, k, "only one option can list alternatives ('%s' does)",
				      t->alts.key);
		if (n < 1 || n > FAULT_ALTS)
			return err_at(c, v,
				      "'%s': give 1 to %d alternatives, the first the target "
				      "takes is used",
				      key, FAULT_ALTS);
		snprintf(t->alts.key, sizeof(t->alts.key), "%s", key);
		for (; it < v->data.sequence.items.top; it++) {
			struct fault_spec scratch = *s;
			yaml_node_t *x = nd(c, *it);

			if (!(val = str(c, x, "an alternative")))
				return -EINVAL;
			if (fault_spec_set(&scratch, key, val, why, sizeof(why)))
				return err_at(c, x, "%s", why);
			snprintf(t->alts.val[t->alts.n++], sizeof(t->alts.val[0]), "%s", val);
		}
		val = t->alts.val[0];
	} else if (v->type == YAML_MAPPING_NODE) {
		if (pick(c, v, &t->picks, 1, NULL, NULL, picked, NULL, 0) < 0)
			return -EINVAL;
		val = picked[0];
	} else if (!(val = str(c, v, "a fault option"))) {
		return -EINVAL;
	} else {
		role_note(c->s->inv, &t->picks, val);
	}
	if (fault_spec_set(s, key, val, why, sizeof(why)))
		return err_at(c, v, "%s", why);
	return 0;
}

/* Can a fault of spec's kind and options be injected at name on this lab? */
struct fault_try {
	const struct inventory *inv;
	const struct fault_spec *spec;
	const struct fault_alts *alts;
};

static bool fault_plans(const struct inventory *inv, struct fault_spec *s, char *why, size_t whylen)
{
	struct fault_plan plan = {0};
	int r;

	if (fault_spec_check(s, why, whylen) || fault_spec_resolve(inv, s, why, whylen))
		return false;
	r = fault_plan_build(inv, NULL, s, 1, &plan, why, whylen);
	fault_plan_clear(&plan);
	return !r;
}

/* The first alternative (or the option as given) with which target plans; -1: none. */
static int fault_alt(const struct fault_try *t, const char *target, char *why, size_t whylen)
{
	size_t n = t->alts->n ? t->alts->n : 1;

	for (size_t i = 0; i < n; i++) {
		struct fault_spec s = *t->spec;

		if (fault_spec_set(&s, "target", target, why, whylen))
			return -1;
		if (t->alts->n && fault_spec_set(&s, t->alts->key, t->alts->val[i], why, whylen))
			return -1;
		if (fault_plans(t->inv, &s, why, whylen))
			return (int)i;
	}
	return -1;
}

static bool fault_usable(const char *name, void *arg, char *why, size_t whylen)
{
	return fault_alt(arg, name, why, whylen) >= 0;
}

static int parse_fault(struct sctx *c, yaml_node_t *n, const struct inventory *inv, bool fabric)
{
	struct scenario *s = c->s;
	struct scn_fault *f =
	    fabric ? RL_PUSH(s->fabric, s->n_fabric) : RL_PUSH(s->faults, s->n_faults);
	struct fault_tmp t = {.f = f};
	const struct fault_kind_ops *k;
	const char *kind, *target;
	char why[512], names[256], picked[ROLE_PICKS][ROLE_NAME_MAX];
	struct fault_try try = {.inv = inv, .spec = &f->spec, .alts = &t.alts};
	int n_picked = 1;

	f->loc =
	    (struct inv_loc){(unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1};
	if (each_pair(c, n, fault_pair, &t, "a fault"))
		return -EINVAL;
	if (!t.kind || !t.target)
		return err_at(c, n,
			      "a fault needs 'kind' and 'target' (e.g. kind: link-flap, "
			      "target: rail2:swp6 or target: { role: rail-uplink })");
	if (!(kind = str(c, t.kind, "fault kind")))
		return -EINVAL;
	if (!(k = fault_kind_find(kind)))
		return err_at(c, t.kind, "unknown fault kind '%s' (%s)", kind,
			      fault_kind_names(names, sizeof(names)));
	if (fabric && strcmp(kind, "link-degrade"))
		return err_at(c, t.kind,
			      "a fabric entry shapes a link: kind link-degrade (faults go under "
			      "'faults')");
	if (fabric && (f->at_ms || f->for_ms))
		return err_at(c, n, "a fabric entry lasts the whole scenario: no 'at' or 'for'");
	fault_spec_init(&f->spec, k);
	f->spec.all_ports = t.all_ports;
	/* Options first: a target by role is picked among those this fault can be injected at. */
	if (t.options && each_pair(c, t.options, fault_opt_pair, &t, "fault options"))
		return -EINVAL;
	if (t.target->type == YAML_MAPPING_NODE) {
		/* A fabric entry may shape several links: { role: rail-uplink, count: all }. */
		n_picked = pick(c, t.target, &t.picks, fabric ? ROLE_PICKS : 1, fault_usable, &try,
				picked, f->role, sizeof(f->role));
		if (n_picked < 0)
			return -EINVAL;
		target = picked[0];
	} else if (!(target = str(c, t.target, "fault target"))) {
		return -EINVAL;
	}
	if (fault_spec_set(&f->spec, "target", target, why, sizeof(why)))
		return err_at(c, t.target, "%s", why);
	if (t.alts.n) { /* the first alternative this target takes (none: the first, to say why) */
		int a = fault_alt(&try, target, why, sizeof(why));

		fault_spec_set(&f->spec, t.alts.key, t.alts.val[a < 0 ? 0 : a], why, sizeof(why));
	}
	/* The same checks as 'rocelab inject', reported at this fault. */
	if (fault_spec_check(&f->spec, why, sizeof(why)))
		return err_at(c, t.options ? t.options : n, "%s", why);
	if (fault_spec_resolve_target(inv, &f->spec, why, sizeof(why)))
		return err_at(c, t.target, "%s", why);
	if (k->resolve && k->resolve(inv, &f->spec, why, sizeof(why)))
		return err_at(c, t.options ? t.options : n, "%s", why);
	/* The other links it picked: the same entry on each (pushing may move f). */
	for (int i = 1; fabric && i < n_picked; i++) {
		size_t at = (size_t)(f - s->fabric);
		struct scn_fault *g = RL_PUSH(s->fabric, s->n_fabric);

		f = &s->fabric[at];
		*g = *f;
		if (fault_spec_set(&g->spec, "target", picked[i], why, sizeof(why)) ||
		    fault_spec_resolve_target(inv, &g->spec, why, sizeof(why)) ||
		    (k->resolve && k->resolve(inv, &g->spec, why, sizeof(why))))
			return err_at(c, t.target, "%s: %s", picked[i], why);
	}
	if (fabric)
		return 0;
	if (s->n_faults == 1) {
		c->fault_rail = role_rail_of(inv, f->spec.target);
		c->fault_host = role_host_of(inv, f->spec.target);
		snprintf(c->first_target, sizeof(c->first_target), "%s", f->spec.target);
	}
	if (f->at_ms >= s->fault_ms && s->fault_ms)
		return err_at(c, n, "fault starts at %lld ms, after the fault phase (%lld ms) ends",
			      f->at_ms, s->fault_ms);
	return 0;
}

/* ---- load ----------------------------------------------------------------------------- */

static int check_rnic(struct sctx *c, yaml_node_t *n, const struct inventory *inv, const char *spec,
		      bool want_rnic)
{
	struct inv_endpoint ep;
	char msg[160];

	if (inventory_endpoint(inv, spec, &ep, msg, sizeof(msg)))
		return err_at(c, n, "%s", msg);
	if (want_rnic != (ep.kind == INV_DEV_HOST))
		return err_at(c, n, "'%s' must be %s", spec,
			      want_rnic ? "a HOST:RNIC" : "a SWITCH:PORT");
	return 0;
}

struct load_tmp {
	struct scn_load *l;
	const struct inventory *inv;
	yaml_node_t *kind, *to, *from, *across, *rate, *transport;
	struct role_picks picks;
};

static int load_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct load_tmp *t = o;
	struct scn_load *l = t->l;

	if (!strcmp(key, "kind")) {
		t->kind = v;
		return 0;
	}
	/* Endpoints after the walk: 'to' first, so 'from' can pick relative to it. */
	if (!strcmp(key, "to"))
		return t->to = v, 0;
	if (!strcmp(key, "across"))
		return t->across = v, 0;
	if (!strcmp(key, "from"))
		return t->from = v, 0;
	if (!strcmp(key, "rate")) {
		const char *s = str(c, v, "load rate");

		if (!s)
			return -EINVAL;
		char *end;

		t->rate = v;
		if (s[0] && s[strlen(s) - 1] == '%') {
			errno = 0;
			l->share = strtod(s, &end) / 100;
			if (errno || end == s || *end != '%' || !(l->share > 0) || l->share > 1)
				return err_at(c, v,
					      "load rate '%s': a share of the link is more than "
					      "0%% and at most 100%%, e.g. 60%%",
					      s);
			return 0;
		}
		l->share = 0;
		if (rl_parse_rate_mbps(s, &l->rate_mbps) || !l->rate_mbps ||
		    l->rate_mbps > LOAD_MBPS_MAX)
			return err_at(
			    c, v,
			    "load rate '%s': give e.g. 200mbit or 1gbit (at most 1.6tbit), "
			    "or a share of the link, e.g. 60%%",
			    s);
		return 0;
	}
	if (!strcmp(key, "priority")) {
		return whole(c, v, 0, 7, &l->priority, "load priority");
	}
	if (!strcmp(key, "size")) {
		return whole(c, v, 64, 1472, &l->size, "load size");
	}
	if (!strcmp(key, "dscp")) { /* a DSCP of its own (dscp-mismatch moves one) */
		return whole(c, v, 0, 63, &l->dscp, "load dscp");
	}
	if (!strcmp(key, "transport")) {
		const char *s = str(c, v, "load transport");

		if (!s)
			return -EINVAL;
		if (strcmp(s, "udp") && strcmp(s, "rc"))
			return err_at(
			    c, v,
			    "load transport '%s': udp (datagrams from sockets) or rc (RDMA "
			    "WRITEs on RC QPs over rdma-core, where the RNICs have RDMA "
			    "devices)",
			    s);
		t->transport = v;
		l->rc = !strcmp(s, "rc");
		return 0;
	}
	return UNKNOWN(c, k, key, "a load",
		       "kind, to, from, across, rate, priority, size, dscp, transport");
}

/*
 * One endpoint of a load at n into out: a name (HOST:RNIC when rnic, else
 * SWITCH:PORT; 'fault' for the first fault's target) or { role: ... }, up to
 * max of them.  Returns how many, or -EINVAL after reporting.
 */
static int load_endpoint(struct sctx *c, struct load_tmp *t, yaml_node_t *n, bool rnic,
			 unsigned max, char out[][ROLE_NAME_MAX], const char *what)
{
	const char *v;
	int got = 1;

	if (n->type == YAML_MAPPING_NODE) {
		if ((got = pick(c, n, &t->picks, max, NULL, NULL, out, NULL, 0)) < 0)
			return -EINVAL;
	} else {
		if (!(v = str(c, n, what)))
			return -EINVAL;
		if (!rnic && !strcmp(v, "fault")) {
			if (!c->first_target[0])
				return err_at(c, n,
					      c->s->n_faults
						  ? "%s 'fault': the first fault has errors"
						  : "%s 'fault' names the first fault's "
						    "target, but the scenario has no fault",
					      what);
			v = c->first_target;
		}
		if (strlen(v) >= ROLE_NAME_MAX)
			return err_at(c, n, "%s is too long (at most %d characters)", what,
				      ROLE_NAME_MAX - 1);
		snprintf(out[0], ROLE_NAME_MAX, "%s", v);
		role_note(t->inv, &t->picks, v);
	}
	for (int i = 0; i < got; i++)
		if (check_rnic(c, n, t->inv, out[i], rnic))
			return -EINVAL;
	return got;
}

_Static_assert(sizeof(((struct scn_load *)0)->from[0]) == ROLE_NAME_MAX, "a sender is a name");

static int load_endpoints(struct sctx *c, struct load_tmp *t)
{
	struct scn_load *l = t->l;
	char out[ROLE_PICKS][ROLE_NAME_MAX];
	int got;

	if (t->to) {
		if (load_endpoint(c, t, t->to, true, 1, out, "load 'to'") < 0)
			return -EINVAL;
		snprintf(l->to, sizeof(l->to), "%s", out[0]);
	}
	if (t->across) {
		if (load_endpoint(c, t, t->across, false, 1, out, "load 'across'") < 0)
			return -EINVAL;
		snprintf(l->across, sizeof(l->across), "%s", out[0]);
	}
	if (!t->from)
		return 0;
	if (t->from->type == YAML_MAPPING_NODE || t->from->type == YAML_SCALAR_NODE) {
		if ((got = load_endpoint(c, t, t->from, true, ARRAY_SIZE(l->from), out,
					 "load 'from'")) < 0)
			return -EINVAL;
		for (int i = 0; i < got; i++)
			memcpy(l->from[l->n_from++], out[i], sizeof(l->from[0]));
		return 0;
	}
	if (t->from->type != YAML_SEQUENCE_NODE)
		return err_at(c, t->from,
			      "load 'from' is a list of HOST:RNIC, or { role: rnic, count: N }");
	for (yaml_node_item_t *it = t->from->data.sequence.items.start;
	     it < t->from->data.sequence.items.top; it++) {
		yaml_node_t *e = nd(c, *it);

		if ((got = load_endpoint(c, t, e, true, ARRAY_SIZE(l->from) - l->n_from, out,
					 "a sender")) < 0)
			return -EINVAL;
		if (l->n_from + (size_t)got > ARRAY_SIZE(l->from))
			return err_at(c, e, "at most %zu senders", ARRAY_SIZE(l->from));
		for (int i = 0; i < got; i++)
			memcpy(l->from[l->n_from++], out[i], sizeof(l->from[0]));
	}
	return 0;
}

/*
 * A load whose rate is a share of a link: the link of 'across' (what a
 * stream crosses, what an incast's senders were placed across), else of
 * 'to' (the receiver's, where an incast converges), at the speed the
 * inventory gives it.
 */
static int load_share(struct sctx *c, struct load_tmp *t, const struct inventory *inv)
{
	struct scn_load *l = t->l;
	struct inv_endpoint ep;
	const struct inv_link *k;
	char msg[160];
	double mbps;

	snprintf(l->link_of, sizeof(l->link_of), "%s", l->across[0] ? l->across : l->to);
	if (inventory_endpoint(inv, l->link_of, &ep, msg, sizeof(msg)) ||
	    !(k = inventory_link_at(inv, &ep)))
		return err_at(c, t->rate,
			      "load rate %g%%: %s is not cabled in the inventory, so it has no "
			      "link speed; give the rate in bits a second (e.g. 200mbit)",
			      l->share * 100, l->link_of);
	l->link_mbps = k->speed_mbps;
	l->link_speed_given = k->speed_given;
	mbps = l->share * (double)k->speed_mbps;
	l->rate_mbps = mbps < 1 ? 1 : (unsigned long long)(mbps + 0.5);
	return 0;
}

const char *scn_load_share_text(const struct scn_load *l, char *buf, size_t len)
{
	if (l->share > 0)
		snprintf(buf, len, " (%g%% of %s's link, %g Gbit/s%s)", l->share * 100, l->link_of,
			 (double)l->link_mbps / 1e3,
			 l->link_speed_given ? "" : ": the inventory gives none, the default");
	else if (len)
		buf[0] = '\0';
	return buf;
}

static int parse_load(struct sctx *c, yaml_node_t *n, const struct inventory *inv)
{
	struct scenario *s = c->s;
	struct scn_load *l = RL_PUSH(s->loads, s->n_loads);
	struct load_tmp t = {.l = l, .inv = inv};
	const char *kind;

	l->priority = 3;
	l->dscp = -1;
	l->size = 1000;
	l->rate_mbps = 100;
	l->loc =
	    (struct inv_loc){(unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1};
	if (each_pair(c, n, load_pair, &t, "a load") || load_endpoints(c, &t))
		return -EINVAL;
	if (!t.kind || !(kind = str(c, t.kind, "load kind")))
		return err_at(c, n, "a load needs 'kind: incast' or 'kind: stream'");
	if (!strcmp(kind, "incast")) {
		l->kind = LOAD_INCAST;
		if (!l->to[0] || !l->n_from)
			return err_at(
			    c, n, "an incast needs 'to: HOST:RNIC' and 'from: [HOST:RNIC, ...]'");
	} else if (!strcmp(kind, "stream")) {
		l->kind = LOAD_STREAM;
		if (!l->across[0])
			return err_at(c, n, "a stream needs 'across: SWITCH:PORT'");
		/* pinned: one flow, on a source port whose traced path crosses 'across' */
		if ((l->n_from || l->to[0]) && !(l->n_from == 1 && l->to[0]))
			return err_at(c, n,
				      "a pinned stream needs one sender in 'from' and a 'to' (or "
				      "neither, for every flow that crosses 'across')");
		if (l->n_from && !strcmp(l->from[0], l->to))
			return err_at(c, t.to, "a stream's 'to' is its sender, %s", l->to);
	} else {
		return err_at(c, t.kind, "unknown load kind '%s' (incast, stream)", kind);
	}
	/*
	 * An RC QP's UDP source port is its RNIC's choice (rxe hashes the QPN; mlx5 takes the
	 * flow label), so no port can be pinned to a traced path as a socket's is.
	 */
	if (l->rc && (l->kind != LOAD_INCAST || l->across[0]))
		return err_at(c, t.transport,
			      "transport: rc is an incast without 'across' (an RC QP's UDP source "
			      "port is its RNIC's choice, so it cannot be placed on a path): "
			      "leave out 'across', or send it over udp");
	return l->share > 0 ? load_share(c, &t, inv) : 0;
}

/* ---- services -------------------------------------------------------------------------- */

struct svc_tmp {
	struct scn_service *v;
	struct load_tmp lt; /* its endpoints' role picks, as a load's ('other': than from) */
};

static int svc_expect_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct scn_service *x = o;

	if (!strcmp(key, "network-related"))
		return truth(c, v, &x->want_network, "a service's expect.network-related");
	if (!strcmp(key, "impacted"))
		return truth(c, v, &x->want_impacted, "a service's expect.impacted");
	return UNKNOWN(c, k, key, "a service's expect", "network-related, impacted");
}

static int svc_slow_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct scn_service *x = o;

	if (!strcmp(key, "at"))
		return dur(c, v, 0, 3600000, &x->slow_at_ms, "slowdown.at");
	if (!strcmp(key, "to")) {
		if (fraction(c, v, &x->slow_to, "slowdown.to"))
			return -EINVAL;
		if (x->slow_to <= 0 || x->slow_to >= 1)
			return err_at(c, v,
				      "slowdown.to is the share of its rate it keeps, "
				      "between 0 and 1 (e.g. 0.5)");
		return 0;
	}
	return UNKNOWN(c, k, key, "a service's slowdown", "at, to");
}

static int svc_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct svc_tmp *t = o;
	struct scn_service *x = t->v;
	const char *s;

	if (!strcmp(key, "name")) {
		if (!(s = str(c, v, "a service's name")))
			return -EINVAL;
		if (!rl_name_ok(s, SCN_NAME_MAX))
			return err_at(c, v, "service name '%s': letters, digits, '_', '.', '-'", s);
		snprintf(x->name, sizeof(x->name), "%s", s);
		return 0;
	}
	if (!strcmp(key, "from") || !strcmp(key, "to") || !strcmp(key, "crosses") ||
	    !strcmp(key, "avoids")) {
		bool rnic = !strcmp(key, "from") || !strcmp(key, "to");
		char out[ROLE_PICKS][ROLE_NAME_MAX];

		if (!rnic && x->port[0])
			return err_at(c, k, "give a service 'crosses' or 'avoids', not both");
		if (load_endpoint(c, &t->lt, v, rnic, 1, out,
				  rnic ? "a service's endpoint" : "a service's port") < 0)
			return -EINVAL;
		_Static_assert(sizeof(x->from) == ROLE_NAME_MAX && sizeof(x->port) == ROLE_NAME_MAX,
			       "names as roles pick them");
		memcpy(!strcmp(key, "from") ? x->from
		       : !strcmp(key, "to") ? x->to
					    : x->port,
		       out[0], ROLE_NAME_MAX);
		if (!rnic)
			x->avoids = !strcmp(key, "avoids");
		return 0;
	}
	if (!strcmp(key, "rate")) {
		if (!(s = str(c, v, "a service's rate")))
			return -EINVAL;
		if (rl_parse_rate_mbps(s, &x->rate_mbps) || !x->rate_mbps || x->rate_mbps > 1000)
			return err_at(c, v, "service rate '%s': give 1mbit to 1gbit (e.g. 4mbit)",
				      s);
		return 0;
	}
	if (!strcmp(key, "slowdown"))
		return each_pair(c, v, svc_slow_pair, x, "a service's slowdown");
	if (!strcmp(key, "expect"))
		return each_pair(c, v, svc_expect_pair, x, "a service's expect");
	return UNKNOWN(c, k, key, "a service",
		       "name, from, to, crosses, avoids, rate, slowdown, expect");
}

static int parse_service(struct sctx *c, yaml_node_t *n, const struct inventory *inv)
{
	struct scenario *s = c->s;
	struct scn_service *x = RL_PUSH(s->services, s->n_services);
	struct svc_tmp t = {x, {.inv = inv}};

	x->rate_mbps = 4;
	x->want_impacted = x->want_network = -1;
	x->loc =
	    (struct inv_loc){(unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1};
	if (each_pair(c, n, svc_pair, &t, "a service"))
		return -EINVAL;
	if (!x->name[0] || !x->from[0] || !x->to[0])
		return err_at(c, n,
			      "a service needs a name, 'from: HOST:RNIC' and 'to: HOST:RNIC'");
	if (!strcmp(x->from, x->to))
		return err_at(c, n, "service %s: 'from' and 'to' are both %s", x->name, x->from);
	for (size_t i = 0; i + 1 < s->n_services; i++)
		if (!strcmp(s->services[i].name, x->name))
			return err_at(c, n, "a second service named '%s'", x->name);
	if (x->slow_to && x->slow_at_ms >= s->fault_ms)
		return err_at(c, n, "service %s slows down %lld ms into a fault phase of %lld ms",
			      x->name, x->slow_at_ms, s->fault_ms);
	return 0;
}

/* ---- expectations --------------------------------------------------------------------- */

static const char *const classes[] = {"rnic",	    "switch-link",     "switch",
				      "congestion", "host-processing", "host-down"};

/* NAME: ">= 0.9" (also >, <=, <, ==) */
static int metric_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	static const struct {
		const char *op;
		enum metric_op mop;
	} ops[] = {{">=", MOP_GE}, {"<=", MOP_LE}, {"==", MOP_EQ}, {">", MOP_GT}, {"<", MOP_LT}};
	struct scn_expect *e = o;
	struct metric_expect *x;
	const char *val = str(c, v, "a metric expectation");
	char *end;
	size_t i;

	if (!val)
		return -EINVAL;
	if (e->n_metrics == SCN_MAX_METRICS)
		return err_at(c, k, "at most %d metric expectations", SCN_MAX_METRICS);
	if (strlen(key) >= sizeof(x->name) || !rl_name_ok(key, sizeof(x->name) - 1))
		return err_at(c, k, "metric name '%s': use letters, digits, '_', '.' and '-'", key);
	x = &e->metrics[e->n_metrics];
	for (i = 0; i < ARRAY_SIZE(ops) && strncmp(val, ops[i].op, strlen(ops[i].op)); i++)
		;
	if (i < ARRAY_SIZE(ops)) {
		errno = 0;
		x->value = rl_strtod(val + strlen(ops[i].op), &end);
	}
	if (i == ARRAY_SIZE(ops) || errno || end == val + strlen(ops[i].op) || *end ||
	    !isfinite(x->value) || strlen(val) >= sizeof(x->text))
		return err_at(c, v,
			      "expect.metrics.%s '%s': give a comparison such as \">= 0.9\" "
			      "(>=, >, <=, <, ==)",
			      key, val);
	snprintf(x->name, sizeof(x->name), "%s", key);
	snprintf(x->text, sizeof(x->text), "%s", val);
	x->op = ops[i].mop;
	x->loc =
	    (struct inv_loc){(unsigned)v->start_mark.line + 1, (unsigned)v->start_mark.column + 1};
	e->n_metrics++;
	return 0;
}

static int expect_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct scn_expect *e = o;

	if (!strcmp(key, "class")) {
		if (copy(c, v, e->cls, sizeof(e->cls), "expect.class"))
			return -EINVAL;
		for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
			if (!strcmp(e->cls, classes[i]))
				return 0;
		return err_at(c, v,
			      "expect.class '%s': one of rnic, switch-link, switch, "
			      "congestion, host-processing, host-down",
			      e->cls);
	}
	if (!strcmp(key, "target"))
		return copy(c, v, e->target, sizeof(e->target), "expect.target");
	if (!strcmp(key, "within"))
		return dur(c, v, 100, 3600000, &e->within_ms, "expect.within");
	if (!strcmp(key, "top-k")) {
		return whole(c, v, 1, 100, &e->top_k, "expect.top-k");
	}
	if (!strcmp(key, "max-false-positives")) {
		return whole(c, v, 0, 1000000, &e->max_false_positives,
			     "expect.max-false-positives");
	}
	if (!strcmp(key, "min-precision"))
		return fraction(c, v, &e->min_precision, "expect.min-precision");
	if (!strcmp(key, "metrics"))
		return each_pair(c, v, metric_pair, e, "expect.metrics");
	if (!strcmp(key, "known-blind")) {
		if (copy(c, v, e->blind, sizeof(e->blind), "expect.known-blind"))
			return -EINVAL;
		if (!e->blind[0])
			return err_at(c, v,
				      "expect.known-blind: say why the component cannot meet it "
				      "today (a failure is then reported as skipped)");
		return 0;
	}
	if (!strcmp(key, "silent")) {
		const char *b = str(c, v, "expect.silent");

		if (!b || (strcmp(b, "true") && strcmp(b, "false")))
			return err_at(c, v, "expect.silent is true or false");
		e->silent = !strcmp(b, "true");
		return 0;
	}
	return UNKNOWN(c, k, key, "expect",
		       "class, target, within, top-k, max-false-positives, min-precision, silent, "
		       "metrics, known-blind");
}

/* ---- top level ------------------------------------------------------------------------- */

struct top_tmp {
	yaml_node_t *faults, *fabric, *load, *services, *expect, *components, *variants;
	yaml_node_t *legacy[8], *legacy_key[8]; /* 'NAME:' sections beside 'components: [NAME]' */
	size_t n_legacy;
	const char *inventory;
	yaml_node_t *inventory_node;
};

static int top_pair(struct sctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *o)
{
	struct top_tmp *t = o;
	struct scenario *s = c->s;
	const char *x;

	if (!strcmp(key, "name")) {
		if (copy(c, v, s->name, sizeof(s->name), "name"))
			return -EINVAL;
		if (!rl_name_ok(s->name, SCN_NAME_MAX) || strchr(s->name, ':'))
			return err_at(c, v,
				      "name '%s': use letters, digits, '_', '.' and '-' (it "
				      "names files)",
				      s->name);
		return 0;
	}
	if (!strcmp(key, "suite")) {
		if (copy(c, v, s->suite, sizeof(s->suite), "suite"))
			return -EINVAL;
		if (!rl_name_ok(s->suite, SCN_NAME_MAX))
			return err_at(c, v, "suite '%s': use letters, digits, '_', '.' and '-'",
				      s->suite);
		return 0;
	}
	if (!strcmp(key, "description")) {
		if (!(x = str(c, v, "description")))
			return -EINVAL;
		s->description = rl_xstrdup(x);
		return 0;
	}
	if (!strcmp(key, "inventory")) {
		t->inventory = str(c, v, "inventory");
		t->inventory_node = v;
		return t->inventory ? 0 : -EINVAL;
	}
	if (!strcmp(key, "phases"))
		return each_pair(c, v, phase_pair, s, "phases");
	if (!strcmp(key, "components"))
		t->components = v;
	else if (component_find(key) && t->n_legacy < ARRAY_SIZE(t->legacy)) {
		t->legacy_key[t->n_legacy] = k;
		t->legacy[t->n_legacy++] = v;
	} else if (!strcmp(key, "faults"))
		t->faults = v;
	else if (!strcmp(key, "fabric"))
		t->fabric = v;
	else if (!strcmp(key, "load"))
		t->load = v;
	else if (!strcmp(key, "services"))
		t->services = v;
	else if (!strcmp(key, "expect"))
		t->expect = v;
	else if (!strcmp(key, "variants"))
		t->variants = v;
	else {
		char names[256];

		return err_at(c, k,
			      "unknown key '%s' in a scenario (expected one of: name, suite, "
			      "description, inventory, phases, components, variants, fabric, "
			      "faults, load, services, expect; "
			      "components: %s)",
			      key, component_names(names, sizeof(names)));
	}
	return 0;
}

/* The parameters section of a component listed by name: 'hostmesh:' at the top level. */
static yaml_node_t *legacy_params(struct top_tmp *t, const char *name, yaml_node_t **key)
{
	for (size_t i = 0; i < t->n_legacy; i++)
		if (t->legacy_key[i] &&
		    !strcmp((const char *)t->legacy_key[i]->data.scalar.value, name)) {
			*key = t->legacy_key[i];
			t->legacy_key[i] = NULL;
			return t->legacy[i];
		}
	return NULL;
}

/*
 * One variant's overlay, { COMPONENT: { PARAM: VALUE, ..., expect: {...} } }, onto the
 * components' parameters: onto the components themselves when apply, else onto copies that
 * are checked and dropped (every variant is validated whichever one is loaded).
 */
static int variant_overlay(struct sctx *c, yaml_node_t *name, yaml_node_t *map, bool apply,
			   yaml_node_t **expects)
{
	struct scenario *s = c->s;

	if (map->type == YAML_SCALAR_NODE && !map->data.scalar.length)
		return 0; /* the components as written */
	if (map->type != YAML_MAPPING_NODE)
		return err_at(c, map,
			      "variant '%s' is a mapping from component to the parameters it "
			      "changes (e.g. { mp-rdma: { single-path: true } })",
			      (const char *)name->data.scalar.value);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = nd(c, p->key), *v = nd(c, p->value);
		const char *comp = str(c, k, "a component");
		size_t i = 0;

		if (!comp)
			return -EINVAL;
		while (i < s->n_comps && strcmp(s->comps[i].ops->name, comp))
			i++;
		if (i == s->n_comps)
			return err_at(c, k,
				      "variant '%s' changes component '%s', which is not in "
				      "components",
				      (const char *)name->data.scalar.value, comp);
		struct scn_component copy = s->comps[i];
		struct comp_tmp tmp = {.c = apply ? &s->comps[i] : &copy};
		char err[320];
		int r;

		if (!apply) {
			copy.cfg = rl_xcalloc(1, copy.ops->cfg_size);
			memcpy(copy.cfg, s->comps[i].cfg, copy.ops->cfg_size);
		}
		r = each_pair(c, v, comp_param_pair, &tmp, comp);
		if (!r && !apply && copy.ops->check && copy.ops->check(copy.cfg, err, sizeof(err)))
			r = err_at(c, k, "variant '%s': %s", (const char *)name->data.scalar.value,
				   err);
		if (!apply)
			free(copy.cfg);
		if (r)
			return -EINVAL;
		if (apply && tmp.expect)
			expects[i] = tmp.expect;
	}
	return 0;
}

/*
 * variants: { NAME: { COMPONENT: { ... } }, ... }: the scenario once a variant, each the
 * same faults, phases and seed with the components' parameters changed as the variant says
 * (the transports side by side on one fault).  Loads the one c->variant names: its name is
 * then the scenario's with '.' and the variant's (set once the roles are picked).
 */
static int parse_variants(struct sctx *c, yaml_node_t *n, yaml_node_t **expects)
{
	struct scenario *s = c->s;
	unsigned i = 0;

	if (n->type != YAML_MAPPING_NODE || !n->data.mapping.pairs.top ||
	    n->data.mapping.pairs.top == n->data.mapping.pairs.start)
		return err_at(c, n,
			      "variants is a mapping from a variant's name to what it changes "
			      "(e.g. variants: { go-back-n: { mp-rdma: { single-path: true } }, "
			      "mp-rdma: {} })");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++, i++) {
		yaml_node_t *k = nd(c, p->key);
		const char *name = str(c, k, "a variant");

		if (!name)
			return -EINVAL;
		if (!rl_name_ok(name, SCN_NAME_MAX) || strchr(name, ':') ||
		    strlen(s->name) + 1 + strlen(name) > SCN_NAME_MAX)
			return err_at(
			    c, k,
			    "variant '%s': use letters, digits, '_', '.' and '-', at most "
			    "%zu with the scenario's name (it names files)",
			    name, (size_t)SCN_NAME_MAX - strlen(s->name) - 1);
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++)
			if (!strcmp((const char *)nd(c, q->key)->data.scalar.value, name))
				return err_at(c, k, "variant '%s' is given twice", name);
		/* the others onto copies of the components as written, before this one changes them
		 */
		if (i != c->variant && variant_overlay(c, k, nd(c, p->value), false, expects))
			return -EINVAL;
	}
	s->n_variants = i;
	s->variant_idx = c->variant;
	if (c->variant >= i)
		return err_at(c, n, "the scenario has %u variants, not %u", i, c->variant + 1);
	yaml_node_pair_t *p = n->data.mapping.pairs.start + c->variant;

	snprintf(s->variant, sizeof(s->variant), "%s",
		 (const char *)nd(c, p->key)->data.scalar.value);
	return variant_overlay(c, nd(c, p->key), nd(c, p->value), true, expects);
}

/*
 * components: { hostmesh: { interval: 20ms, expect: {...} }, ... }, or the
 * older form 'components: [hostmesh]' with a top-level 'hostmesh:' section.
 * Without 'components', Hostmesh runs with its defaults.
 */
static int parse_components(struct sctx *c, struct top_tmp *t, yaml_node_t **expects)
{
	yaml_node_t *n = t->components, *key;

	if (!n) {
		yaml_node_t name = {.type = YAML_SCALAR_NODE};

		name.data.scalar.value = (yaml_char_t *)"hostmesh";
		name.data.scalar.length = 8;
		if (!add_component(c, &name, legacy_params(t, "hostmesh", &key), &expects[0]))
			return -EINVAL;
	} else if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			yaml_node_t *e = nd(c, *it);
			const char *v = str(c, e, "a component");

			if (!v || !add_component(c, e, legacy_params(t, v, &key),
						 &expects[c->s->n_comps]))
				return -EINVAL;
		}
	} else if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++)
			if (!add_component(c, nd(c, p->key), nd(c, p->value),
					   &expects[c->s->n_comps]))
				return -EINVAL;
	} else {
		return err_at(c, n,
			      "components is a mapping from component to its parameters (e.g. "
			      "components: { hostmesh: { interval: 20ms } })");
	}
	if (!c->s->n_comps)
		return err_at(c, n, "components is empty: name at least one (e.g. hostmesh)");
	for (size_t i = 0; i < t->n_legacy; i++)
		if (t->legacy_key[i]) {
			const char *name = (const char *)t->legacy_key[i]->data.scalar.value;

			return err_at(c, t->legacy_key[i],
				      n && n->type == YAML_MAPPING_NODE
					  ? "'%s:' parameters go under components (write "
					    "components: { %s: {...} })"
					  : "'%s:' has parameters for a component that is not "
					    "listed in components (add %s to it)",
				      name, name);
		}
	if (t->variants && parse_variants(c, t->variants, expects))
		return -EINVAL;
	for (size_t i = 0; i < c->s->n_comps; i++) {
		struct scn_component *sc = &c->s->comps[i];
		char err[320];

		if (sc->ops->check && sc->ops->check(sc->cfg, err, sizeof(err)))
			return err_at(c,
				      &(yaml_node_t){.start_mark = {.line = sc->loc.line - 1,
								    .column = sc->loc.col - 1}},
				      "%s", err);
	}
	return 0;
}

static char *resolve_inventory(const char *scn_path, const char *inv)
{
	char dir[PATH_MAX], out[PATH_MAX * 2];

	if (inv[0] == '/')
		return rl_xstrdup(inv);
	snprintf(dir, sizeof(dir), "%s", scn_path);
	snprintf(out, sizeof(out), "%s/%s", dirname(dir), inv);
	return rl_xstrdup(out);
}

/*
 * Defaults and consistency of one expectation, reported at where it was
 * written.  A component's own may be silent under a fault: it is expected
 * blind to it (outside its design), and graded so.
 */
static int finish_expect(struct sctx *c, struct scn_expect *e, yaml_node_t *at, bool own)
{
	struct scenario *s = c->s;

	if (e->silent && s->n_faults && !own)
		return err_at(c, at,
			      "expect.silent is for scenarios without faults (a component "
			      "blind to the fault says so in components.NAME.expect)");
	if (!e->silent && !e->cls[0] && !e->n_metrics)
		return err_at(c, at, "expect needs 'class' (or 'silent: true', or 'metrics')");
	if (!e->silent && e->cls[0] && !s->n_faults)
		return err_at(c, at,
			      "expect names a verdict but the scenario has no fault; "
			      "use 'silent: true'");
	if (!e->target[0] && s->n_faults) {
		snprintf(e->target, sizeof(e->target), "%s", s->faults[0].spec.target);
		/* several faults and no target given: a verdict naming any of them is right */
		for (size_t i = 1; i < s->n_faults && e->n_also < SCN_MAX_ALSO; i++)
			snprintf(e->also[e->n_also++], sizeof(e->also[0]), "%s",
				 s->faults[i].spec.target);
	}
	if (e->min_precision > 0 && !e->cls[0])
		return err_at(c, at, "expect.min-precision is of verdicts: it needs 'class'");
	return 0;
}

/*
 * A bound on time to detect not written: the component's design time with
 * its parameters (a monitor of 2 s windows: two windows and the grace,
 * 5.5 s), not tuned per scenario (issue 64); a component without one, the
 * fault phase.
 */
static void within_default(const struct scenario *s, const struct scn_component *sc,
			   struct scn_expect *e)
{
	if (e->within_ms)
		return;
	e->within_from = WITHIN_DESIGN;
	e->within_ms = sc && sc->ops->detect_ms ? sc->ops->detect_ms(sc->cfg) : 0;
	if (e->within_ms <= 0)
		e->within_ms = s->fault_ms, e->within_from = WITHIN_PHASE;
}

static int parse_doc(struct sctx *c, yaml_node_t *root, const char *inv_override,
		     const char *builtin)
{
	struct scenario *s = c->s;
	struct top_tmp t = {0};
	yaml_node_t *expects[COMPONENTS_MAX] = {0}; /* add_component refuses a repeat */

	if (!root)
		return err_at(c, &(yaml_node_t){0}, "empty scenario");
	if (each_pair(c, root, top_pair, &t, "a scenario"))
		return -EINVAL;
	if (!s->name[0])
		return err_at(c, root, "a scenario needs 'name'");
	if (parse_components(c, &t, expects))
		return -EINVAL;
	s->inv_path = inv_override ? rl_xstrdup(inv_override)
		      : t.inventory && strcmp(t.inventory, "builtin")
			  ? resolve_inventory(s->path, t.inventory)
			  : rl_xstrdup(builtin);
	s->inv = inventory_load(s->inv_path, c->errf);
	if (!s->inv) {
		if (t.inventory_node)
			err_at(c, t.inventory_node, "inventory '%s' cannot be used (see above)",
			       s->inv_path);
		else
			c->nerr++;
		return -EINVAL;
	}
	role_rng_init(&c->rng, s->seed, s->name);
	if (t.faults) {
		if (t.faults->type != YAML_SEQUENCE_NODE)
			return err_at(c, t.faults, "faults is a list of {kind, target, ...}");
		for (yaml_node_item_t *it = t.faults->data.sequence.items.start;
		     it < t.faults->data.sequence.items.top; it++)
			parse_fault(c, nd(c, *it), s->inv, false);
	}
	if (t.fabric) {
		if (t.fabric->type != YAML_SEQUENCE_NODE)
			return err_at(c, t.fabric,
				      "fabric is a list of {kind: link-degrade, target, options: "
				      "{rate}}");
		for (yaml_node_item_t *it = t.fabric->data.sequence.items.start;
		     it < t.fabric->data.sequence.items.top; it++)
			parse_fault(c, nd(c, *it), s->inv, true);
	}
	if (t.load) {
		if (t.load->type != YAML_SEQUENCE_NODE)
			return err_at(c, t.load, "load is a list of {kind: incast|stream, ...}");
		for (yaml_node_item_t *it = t.load->data.sequence.items.start;
		     it < t.load->data.sequence.items.top; it++)
			parse_load(c, nd(c, *it), s->inv);
	}
	if (t.services) {
		if (t.services->type != YAML_SEQUENCE_NODE)
			return err_at(
			    c, t.services,
			    "services is a list of {name, from, to, crosses|avoids, rate, "
			    "...}");
		for (yaml_node_item_t *it = t.services->data.sequence.items.start;
		     it < t.services->data.sequence.items.top; it++)
			parse_service(c, nd(c, *it), s->inv);
	}
	/* A fault that replaces a root qdisc cannot go on a link the fabric shapes. */
	for (size_t i = 0; !c->nerr && i < s->n_faults; i++) {
		const struct fault_spec *f = &s->faults[i].spec;
		struct inv_endpoint fe = {f->tkind, f->tdev, (size_t)f->tport};
		const struct inv_link *fl = f->tport >= 0 ? inventory_link_at(s->inv, &fe) : NULL;

		if (!fl || (strcmp(f->kind->name, "link-degrade") &&
			    strcmp(f->kind->name, "ecn-misconfig")))
			continue;
		for (size_t k = 0; k < s->n_fabric; k++) {
			const struct fault_spec *p = &s->fabric[k].spec;
			struct inv_endpoint pe = {p->tkind, p->tdev, (size_t)p->tport};

			if (p->tport >= 0 && inventory_link_at(s->inv, &pe) == fl)
				return err_at(
				    c,
				    &(yaml_node_t){
					.start_mark = {.line = s->faults[i].loc.line - 1,
						       .column = s->faults[i].loc.col - 1}},
				    "%s on %s: the fabric shapes that link already (its "
				    "qdisc would replace the fabric's); shape another "
				    "link, or fault another",
				    f->kind->name, f->target);
		}
	}
	/* The scenario's expectation holds for every component without its own. */
	if (t.expect && each_pair(c, t.expect, expect_pair, &s->expect, "expect"))
		return -EINVAL;
	for (size_t i = 0; i < s->n_comps; i++) {
		struct scn_component *sc = &s->comps[i];

		if (expects[i]) {
			sc->expect.top_k = 1;
			if (each_pair(c, expects[i], expect_pair, &sc->expect, "expect"))
				return -EINVAL;
		} else if (!t.expect) {
			return err_at(c, root,
				      "a scenario needs 'expect' (class and target of the "
				      "verdict, or 'silent: true'), for all components or in "
				      "components.%s.expect",
				      sc->ops->name);
		}
	}
	if (c->nerr)
		return -EINVAL;
	if (t.expect && finish_expect(c, &s->expect, t.expect, false))
		return -EINVAL;
	/* The scenario's expectation, finished, holds for components without their own. */
	for (size_t i = 0; i < s->n_comps; i++) {
		if (!expects[i])
			s->comps[i].expect = s->expect;
		else if (finish_expect(c, &s->comps[i].expect, expects[i], true))
			return -EINVAL;
		within_default(s, &s->comps[i], &s->comps[i].expect);
	}
	if (!t.expect && s->n_comps)
		s->expect = s->comps[0].expect;
	if (s->n_variants) {
		/* the roles were picked with the scenario's name: every variant has the same */
		char full[sizeof(s->group) + sizeof(s->variant) + 1];

		snprintf(s->group, sizeof(s->group), "%s", s->name);
		snprintf(full, sizeof(full), "%s.%s", s->group, s->variant);
		snprintf(s->name, sizeof(s->name), "%.*s", SCN_NAME_MAX, full); /* checked: fits */
	}
	/* not written: each component derived its own; the scenario's (results') the longest */
	if (t.expect && !s->expect.within_ms) {
		for (size_t i = 0; i < s->n_comps; i++)
			if (!expects[i] && s->comps[i].expect.within_ms > s->expect.within_ms) {
				s->expect.within_ms = s->comps[i].expect.within_ms;
				s->expect.within_from = s->comps[i].expect.within_from;
			}
		within_default(s, NULL, &s->expect);
	}
	return 0;
}

struct scenario *scenario_parse_variant(const char *path, const char *text, size_t len,
					const char *inv_override, const char *builtin,
					unsigned seed, FILE *errf, unsigned variant)
{
	struct scenario *s = rl_xcalloc(1, sizeof(*s));
	struct sctx c = {.path = path, .errf = errf, .s = s, .variant = variant};
	struct rl_yaml_err ye;
	yaml_document_t doc;
	char dir[PATH_MAX];
	int r;

	s->path = rl_xstrdup(path);
	s->seed = seed;
	s->baseline_ms = 10000;
	s->fault_ms = 20000;
	s->recovery_ms = 10000;
	s->expect.top_k = 1;
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(s->suite, sizeof(s->suite), "%.*s", SCN_NAME_MAX, basename(dirname(dir)));
	if (!rl_name_ok(s->suite, SCN_NAME_MAX))
		snprintf(s->suite, sizeof(s->suite), "scenarios");
	if (rl_yaml_load(text, len, &doc, &ye)) {
		if (errf)
			fprintf(errf, "%s:%u:%u: YAML %s\n", path, ye.line, ye.col, ye.why);
		scenario_free(s);
		errno = EINVAL;
		return NULL;
	}
	c.doc = &doc;
	r = parse_doc(&c, yaml_document_get_root_node(&doc), inv_override, builtin);
	yaml_document_delete(&doc);
	if (r || c.nerr) {
		scenario_free(s);
		errno = c.nunplaced ? ENXIO : EINVAL;
		return NULL;
	}
	return s;
}

struct scenario *scenario_parse(const char *path, const char *text, size_t len,
				const char *inv_override, const char *builtin, unsigned seed,
				FILE *errf)
{
	return scenario_parse_variant(path, text, len, inv_override, builtin, seed, errf, 0);
}

struct scenario *scenario_load(const char *path, const char *inv_override, const char *builtin,
			       unsigned seed, FILE *errf)
{
	return scenario_load_variant(path, inv_override, builtin, seed, errf, 0);
}

struct scenario *scenario_load_variant(const char *path, const char *inv_override,
				       const char *builtin, unsigned seed, FILE *errf,
				       unsigned variant)
{
	size_t len;
	char *text = rl_read_file(path, &len);
	struct scenario *s;

	if (!text) {
		if (errf)
			fprintf(errf, "%s: cannot read: %s\n", path, rl_read_strerror(errno));
		errno = EINVAL;
		return NULL;
	}
	s = scenario_parse_variant(path, text, len, inv_override, builtin, seed, errf, variant);
	free(text);
	return s;
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	free(s->faults);
	free(s->fabric);
	free(s->loads);
	free(s->services);
	for (size_t i = 0; i < s->n_comps; i++)
		free(s->comps[i].cfg);
	free(s->comps);
	free(s->description);
	free(s->inv_path);
	inventory_free(s->inv);
	free(s->path);
	free(s);
}
