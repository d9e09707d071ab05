// SPDX-License-Identifier: MIT
/* Portable targets by role: candidates from the inventory's hosts, switches and links, picked with
 * a seeded generator so a run's seed names its targets. */
#define _GNU_SOURCE
#include "harness/lib/roles.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
    [ROLE_RNIC] = "rnic",
    [ROLE_RAIL_UPLINK] = "rail-uplink",
    [ROLE_SPINE_PORT] = "spine-port",
    [ROLE_SWITCH] = "switch",
    [ROLE_HOST] = "host",
};

/* Keys each kind takes besides 'role'. */
static const char *const kind_keys[] = {
    [ROLE_RNIC] = "host, rail, count",
    [ROLE_RAIL_UPLINK] = "rail, spine, count",
    [ROLE_SPINE_PORT] = "spine, rail, count",
    [ROLE_SWITCH] = "of, rail, count",
    [ROLE_HOST] = "host, count",
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void role_rng_init(struct role_rng *r, unsigned seed, const char *salt)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (const char *p = salt ? salt : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	r->s = h ^ ((uint64_t)seed << 17) ^ seed;
}

unsigned role_rng_below(struct role_rng *r, unsigned n)
{
	return n ? (unsigned)(splitmix(&r->s) % n) : 0;
}

void role_sel_init(struct role_sel *s, enum role_kind kind)
{
	*s = (struct role_sel){.kind = kind,
			       .rail = ROLE_ANY,
			       .host = ROLE_ANY,
			       .spine = ROLE_ANY,
			       .of = ROLE_ANY,
			       .count = 1};
}

int role_kind_parse(const char *text, enum role_kind *kind, char *why, size_t whylen)
{
	for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(text, kind_names[i])) {
			*kind = (enum role_kind)i;
			return 0;
		}
	snprintf(why, whylen, "role '%s': one of rnic, rail-uplink, spine-port, switch, host",
		 text);
	return -EINVAL;
}

static bool key_ok(enum role_kind k, const char *key)
{
	const char *list = kind_keys[k];
	size_t n = strlen(key);

	if (!n) /* "" is in every list, and would walk past its end */
		return false;
	for (const char *p = strstr(list, key); p; p = strstr(p + 1, key))
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

static int set_rail(int *rail, const char *t, bool fault_ok, char *why, size_t whylen)
{
	char *end;
	long v;

	if (!strcmp(t, "any"))
		return *rail = ROLE_ANY, 0;
	if (!strcmp(t, "other"))
		return *rail = ROLE_OTHER, 0;
	if (fault_ok && !strcmp(t, "fault"))
		return *rail = ROLE_FAULT, 0;
	errno = 0;
	v = strtol(t, &end, 10);
	if (errno || end == t || *end || v < 1 || v > 4096) {
		snprintf(why, whylen,
			 "rail '%s': give a rail number, any, other (not a rail picked before in "
			 "this fault or load) or fault (the rail of the first fault's target)",
			 t);
		return -EINVAL;
	}
	*rail = (int)v;
	return 0;
}

int role_set(struct role_sel *s, const struct inventory *inv, const char *key, const char *text,
	     char *why, size_t whylen)
{
	if (!key_ok(s->kind, key)) {
		snprintf(why, whylen, "role %s takes no '%s' (it takes: role, %s)",
			 kind_names[s->kind], key, kind_keys[s->kind]);
		return -EINVAL;
	}
	if (!strcmp(key, "rail"))
		return set_rail(&s->rail, text, true, why, whylen);
	if (!strcmp(key, "host")) {
		struct inv_host *h;

		if (!strcmp(text, "any"))
			return s->host = ROLE_ANY, 0;
		if (!strcmp(text, "same"))
			return s->host = ROLE_SAME, 0;
		if (!strcmp(text, "other"))
			return s->host = ROLE_OTHER, 0;
		if (!strcmp(text, "fault"))
			return s->host = ROLE_FAULT, 0;
		if (!(h = inventory_host(inv, text))) {
			snprintf(
			    why, whylen,
			    "host '%s' is not in inventory '%s'; give a host of it, any, same "
			    "(the host of the RNIC picked just before), other or fault (the host "
			    "of the first fault's RNIC)",
			    text, inv->name);
			return -EINVAL;
		}
		s->host = (int)(h - inv->hosts);
		return 0;
	}
	if (!strcmp(key, "spine")) {
		struct inv_switch *w;

		if (!strcmp(text, "any"))
			return s->spine = ROLE_ANY, 0;
		if (!(w = inventory_switch(inv, text)) || w->role != INV_ROLE_SPINE) {
			snprintf(why, whylen,
				 "spine '%s': give a switch of role spine in '%s', or any", text,
				 inv->name);
			return -EINVAL;
		}
		s->spine = (int)(w - inv->switches);
		return 0;
	}
	if (!strcmp(key, "of")) {
		if (!strcmp(text, "any"))
			return s->of = ROLE_ANY, 0;
		for (int r = INV_ROLE_RAIL; r <= INV_ROLE_TOR; r++)
			if (!strcmp(text, inv_role_name((enum inv_role)r)))
				return s->of = r, 0;
		snprintf(why, whylen, "of '%s': a switch role: rail, spine, leaf, tor or any",
			 text);
		return -EINVAL;
	}
	/* count */
	char *end;
	long v;

	if (!strcmp(text, "all"))
		return s->count = ROLE_COUNT_ALL, 0;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < 1 || v > ROLE_PICKS) {
		snprintf(why, whylen, "count '%s': give a number from 1 to %d, or all", text,
			 ROLE_PICKS);
		return -EINVAL;
	}
	s->count = (unsigned)v;
	return 0;
}

static const char *rail_text(int rail, char *b, size_t len)
{
	if (rail == ROLE_OTHER)
		return "other";
	if (rail == ROLE_FAULT)
		return "fault";
	snprintf(b, len, "%d", rail);
	return b;
}

const char *role_format(const struct role_sel *s, const struct inventory *inv, char *buf,
			size_t len)
{
	struct sbuf b = {0};
	char r[16];

	sb_printf(&b, "{ role: %s", kind_names[s->kind]);
	if (s->host != ROLE_ANY)
		sb_printf(&b, ", host: %s",
			  s->host == ROLE_SAME	  ? "same"
			  : s->host == ROLE_OTHER ? "other"
			  : s->host == ROLE_FAULT ? "fault"
						  : inv->hosts[s->host].name);
	if (s->spine != ROLE_ANY)
		sb_printf(&b, ", spine: %s", inv->switches[s->spine].name);
	if (s->of != ROLE_ANY)
		sb_printf(&b, ", of: %s", inv_role_name((enum inv_role)s->of));
	if (s->rail != ROLE_ANY)
		sb_printf(&b, ", rail: %s", rail_text(s->rail, r, sizeof(r)));
	if (s->count > 1)
		sb_printf(&b, ", count: %u", s->count);
	else if (s->count == ROLE_COUNT_ALL)
		sb_printf(&b, ", count: all");
	sb_printf(&b, " }");
	snprintf(buf, len, "%s", b.p ? b.p : "");
	sb_free(&b);
	return buf;
}

/* One candidate: its name, and the host and rail it counts for. */
struct cand {
	char name[ROLE_NAME_MAX];
	ssize_t host; /* -1: not an RNIC */
	int rail;     /* 0: none */
};

static bool picked_host(const struct role_picks *p, size_t n, size_t h)
{
	for (size_t i = 0; i < n; i++)
		if (p->hosts[i] == h)
			return true;
	return false;
}

static bool picked_rail(const struct role_picks *p, size_t n, int rail)
{
	for (size_t i = 0; i < n; i++)
		if (p->rails[i] == rail)
			return true;
	return false;
}

/* Does c pass the rail and host filters, against what was picked before this selector? */
static bool filters_pass(const struct role_sel *s, const struct role_picks *p, size_t nh, size_t nr,
			 const struct cand *c)
{
	if (s->rail == ROLE_OTHER   ? picked_rail(p, nr, c->rail)
	    : s->rail == ROLE_FAULT ? c->rail != p->fault_rail
	    : s->rail > 0	    ? c->rail != s->rail
				    : false)
		return false;
	if (s->host == ROLE_ANY || c->host < 0)
		return true;
	if (s->host == ROLE_SAME)
		return nh && p->hosts[nh - 1] == (size_t)c->host;
	if (s->host == ROLE_OTHER)
		return !picked_host(p, nh, (size_t)c->host);
	if (s->host == ROLE_FAULT)
		return c->host == p->fault_host - 1;
	return c->host == s->host;
}

/* The rail-side switch of a link between a non-spine switch and a spine, or -1. */
static int uplink_ends(const struct inventory *inv, const struct inv_link *l,
		       const struct inv_endpoint **rail_end, const struct inv_endpoint **spine_end)
{
	const struct inv_endpoint *e[2] = {&l->a, &l->b};

	for (int i = 0; i < 2; i++) {
		const struct inv_endpoint *x = e[i], *y = e[1 - i];

		if (x->kind == INV_DEV_SWITCH && y->kind == INV_DEV_SWITCH &&
		    inv->switches[x->dev].role != INV_ROLE_SPINE &&
		    inv->switches[y->dev].role == INV_ROLE_SPINE) {
			*rail_end = x;
			*spine_end = y;
			return 0;
		}
	}
	return -1;
}

static void port_name(const struct inventory *inv, const struct inv_endpoint *e, char *out)
{
	const struct inv_switch *w = &inv->switches[e->dev];

	snprintf(out, ROLE_NAME_MAX, "%s:%s", w->name, w->ports[e->port].name);
}

/* Every name of s's kind in inventory order, with the host and rail each counts for. */
static struct cand *candidates(const struct inventory *inv, const struct role_sel *s, size_t *n)
{
	struct cand *c = NULL, *x;

	*n = 0;
	if (s->kind == ROLE_RNIC) {
		for (size_t h = 0; h < inv->n_hosts; h++)
			for (size_t r = 0; r < inv->hosts[h].n_rnics; r++) {
				x = RL_PUSH(c, *n);
				snprintf(x->name, sizeof(x->name), "%s:%s", inv->hosts[h].name,
					 inv->hosts[h].rnics[r].name);
				x->host = (ssize_t)h;
				x->rail = inv->hosts[h].rnics[r].rail;
			}
	} else if (s->kind == ROLE_HOST) {
		for (size_t h = 0; h < inv->n_hosts; h++) {
			x = RL_PUSH(c, *n);
			snprintf(x->name, sizeof(x->name), "%s", inv->hosts[h].name);
			x->host = (ssize_t)h;
			x->rail = 0;
		}
	} else if (s->kind == ROLE_SWITCH) {
		for (size_t i = 0; i < inv->n_switches; i++) {
			const struct inv_switch *w = &inv->switches[i];

			if (s->of != ROLE_ANY && (int)w->role != s->of)
				continue;
			x = RL_PUSH(c, *n);
			snprintf(x->name, sizeof(x->name), "%s", w->name);
			x->host = -1;
			x->rail = w->rail;
		}
	} else {
		for (size_t i = 0; i < inv->n_links; i++) {
			const struct inv_endpoint *re, *se;

			if (uplink_ends(inv, &inv->links[i], &re, &se) ||
			    (s->spine != ROLE_ANY && se->dev != (size_t)s->spine))
				continue;
			x = RL_PUSH(c, *n);
			port_name(inv, s->kind == ROLE_RAIL_UPLINK ? re : se, x->name);
			x->host = -1;
			x->rail = inv->switches[re->dev].rail;
		}
	}
	return c;
}

static const char *kind_noun(enum role_kind k)
{
	static const char *const nouns[] = {
	    [ROLE_RNIC] = "RNIC",
	    [ROLE_RAIL_UPLINK] = "rail uplink",
	    [ROLE_SPINE_PORT] = "spine port",
	    [ROLE_SWITCH] = "switch",
	    [ROLE_HOST] = "host",
	};
	return nouns[k];
}

int role_resolve(const struct inventory *inv, const struct role_sel *s, struct role_picks *picks,
		 struct role_rng *rng,
		 bool (*usable)(const char *name, void *arg, char *why, size_t whylen), void *arg,
		 char out[][ROLE_NAME_MAX], char *why, size_t whylen)
{
	size_t n, m = 0, matched = 0, nh = picks->n_hosts, nr = picks->n_rails;
	struct cand *c = candidates(inv, s, &n);
	unsigned want;
	char sel[160], last[256] = "";
	int ret = 0;

	role_format(s, inv, sel, sizeof(sel));
	if (s->host == ROLE_SAME && !nh) {
		snprintf(why, whylen,
			 "%s: host: same needs an RNIC picked before it in this fault "
			 "or load",
			 sel);
		ret = -EINVAL;
		goto free_c;
	}
	if (s->host == ROLE_FAULT && !picks->fault_host) {
		snprintf(why, whylen, "%s: host: fault needs a first fault whose target is an RNIC",
			 sel);
		ret = -EINVAL;
		goto free_c;
	}
	if (s->rail == ROLE_FAULT && !picks->fault_rail) {
		snprintf(why, whylen,
			 "%s: rail: fault needs a first fault whose target is on a rail", sel);
		ret = -EINVAL;
		goto free_c;
	}
	/* Keep the usable matches at the front, in inventory order. */
	for (size_t i = 0; i < n; i++) {
		if (!filters_pass(s, picks, nh, nr, &c[i]))
			continue;
		matched++;
		if (usable && !usable(c[i].name, arg, last, sizeof(last)))
			continue;
		c[m++] = c[i];
	}
	want = s->count != ROLE_COUNT_ALL ? s->count : m < ROLE_PICKS ? (unsigned)m : ROLE_PICKS;
	if (m < want || !m) {
		if (!matched)
			snprintf(why, whylen,
				 "no %s of inventory '%s' matches %s; loosen it (e.g. rail: any)",
				 kind_noun(s->kind), inv->name, sel);
		else if (m < matched)
			snprintf(why, whylen, "%zu %s(s) of '%s' match %s but %s can take it%s%s",
				 matched, kind_noun(s->kind), inv->name, sel,
				 m ? "fewer than asked" : "none", last[0] ? ": " : "", last);
		else
			snprintf(why, whylen, "only %zu %s(s) of '%s' match %s; %u are asked for",
				 m, kind_noun(s->kind), inv->name, sel, s->count);
		ret = -ENOENT;
		goto free_c;
	}
	/* A partial Fisher-Yates shuffle: count distinct picks (all: in inventory order). */
	for (size_t i = 0; i < want; i++) {
		size_t j =
		    s->count == ROLE_COUNT_ALL ? i : i + (size_t)(splitmix(&rng->s) % (m - i));
		struct cand t = c[i];

		c[i] = c[j];
		c[j] = t;
		snprintf(out[i], ROLE_NAME_MAX, "%s", c[i].name);
		if (c[i].host >= 0 && picks->n_hosts < ROLE_PICKS)
			picks->hosts[picks->n_hosts++] = (size_t)c[i].host;
		if (c[i].rail > 0 && picks->n_rails < ROLE_PICKS)
			picks->rails[picks->n_rails++] = c[i].rail;
	}
	if (s->count == ROLE_COUNT_ALL && want < ROLE_PICKS)
		out[want][0] = '\0'; /* out has ROLE_PICKS rows for count: all */
free_c:
	free(c);
	return ret;
}

void role_note(const struct inventory *inv, struct role_picks *picks, const char *name)
{
	int rail = role_rail_of(inv, name), host = role_host_of(inv, name);

	if (host && picks->n_hosts < ROLE_PICKS)
		picks->hosts[picks->n_hosts++] = (size_t)host - 1;
	if (rail > 0 && picks->n_rails < ROLE_PICKS)
		picks->rails[picks->n_rails++] = rail;
}

int role_host_of(const struct inventory *inv, const char *target)
{
	struct inv_endpoint ep;
	char msg[160];

	struct inv_host *h;

	if (!strchr(target, ':')) /* a whole host (host-down), or a switch */
		return (h = inventory_host(inv, target)) ? (int)(h - inv->hosts) + 1 : 0;
	if (inventory_endpoint(inv, target, &ep, msg, sizeof(msg)) || ep.kind != INV_DEV_HOST)
		return 0;
	return (int)ep.dev + 1;
}

int role_rail_of(const struct inventory *inv, const char *target)
{
	struct inv_endpoint ep, peer;
	struct inv_switch *w;
	char msg[160];

	if (!strchr(target, ':'))
		return (w = inventory_switch(inv, target)) ? w->rail : 0;
	if (inventory_endpoint(inv, target, &ep, msg, sizeof(msg)))
		return 0;
	if (ep.kind == INV_DEV_HOST)
		return inv->hosts[ep.dev].rnics[ep.port].rail;
	if (inv->switches[ep.dev].rail)
		return inv->switches[ep.dev].rail;
	if (inventory_peer(inv, &ep, &peer))
		return 0;
	return peer.kind == INV_DEV_HOST ? inv->hosts[peer.dev].rnics[peer.port].rail
					 : inv->switches[peer.dev].rail;
}
