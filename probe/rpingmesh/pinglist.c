// SPDX-License-Identifier: MIT
/* R-Pingmesh's ToR-mesh and inter-ToR pinglists from an inventory (pinglist.h). */
#include "probe/rpingmesh/pinglist.h"

#include "harness/lib/common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

unsigned rpm_sports_for(unsigned m, double p)
{
	double n;

	if (m <= 1)
		return 1;
	n = ceil(log(1 - pow(p, 1.0 / m)) / log((double)(m - 1) / m));
	return n >= RPM_SPORTS_MAX ? RPM_SPORTS_MAX : n < 1 ? 1 : (unsigned)n;
}

void rpm_pl_cfg_default(struct rpm_pl_cfg *c)
{
	*c = (struct rpm_pl_cfg){.coverage = 0.9, .seed = 1};
}

int rpm_tor_of(const struct inventory *inv, size_t host, size_t rnic)
{
	struct inv_endpoint ep = {.kind = INV_DEV_HOST, .dev = host, .port = rnic}, peer;

	if (inventory_peer(inv, &ep, &peer) || peer.kind != INV_DEV_SWITCH)
		return -1;
	return (int)peer.dev;
}

/* Is switch s cabled to switch t? */
static bool cabled(const struct inventory *inv, size_t s, size_t t)
{
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];

		if (l->a.kind == INV_DEV_SWITCH && l->b.kind == INV_DEV_SWITCH &&
		    ((l->a.dev == s && l->b.dev == t) || (l->a.dev == t && l->b.dev == s)))
			return true;
	}
	return false;
}

/*
 * The ECMP paths between ToRs a and b: the switches cabled to both (the
 * spines of a two-tier fabric); 1 when a is b, and when none is (a longer
 * path Eq. (1) then treats as one).
 */
static unsigned paths_between(const struct inventory *inv, size_t a, size_t b)
{
	unsigned m = 0;

	if (a == b)
		return 1;
	for (size_t s = 0; s < inv->n_switches; s++)
		m += s != a && s != b && cabled(inv, a, s) && cabled(inv, b, s);
	return m ? m : 1;
}

/* Do RNICs x and y share a tenant (or are there none)? */
static bool same_tenant(const struct inventory *inv, size_t hx, size_t rx, size_t hy, size_t ry)
{
	if (!inv->n_tenants)
		return true;
	for (size_t t = 0; t < inv->n_tenants; t++) {
		const struct inv_tenant *tn = &inv->tenants[t];
		bool x = false, y = false;

		for (size_t i = 0; i < tn->n_members; i++) {
			x |= tn->members[i].dev == hx && tn->members[i].port == rx;
			y |= tn->members[i].dev == hy && tn->members[i].port == ry;
		}
		if (x && y)
			return true;
	}
	return false;
}

/* splitmix64: the seed's own stream, the same on every machine */
static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* n distinct source ports from RPM_SPORT_LO up, drawn for the pair (src RNIC, target). */
static void draw_sports(struct rpm_target *t, const struct rpm_pl_cfg *c, size_t src_host,
			unsigned n)
{
	uint64_t x = (uint64_t)c->seed << 32 ^ (uint64_t)src_host << 24 ^
		     (uint64_t)t->src_rnic << 16 ^ (uint64_t)t->host << 8 ^ t->rnic;

	t->n_sports = 0;
	while (t->n_sports < n) {
		uint16_t sp = (uint16_t)(RPM_SPORT_LO + mix(&x) % (65536 - RPM_SPORT_LO));
		bool dup = false;

		for (unsigned i = 0; i < t->n_sports; i++)
			dup |= t->sports[i] == sp;
		if (!dup)
			t->sports[t->n_sports++] = sp;
	}
}

/* May src (host h, rnic r) probe (hy, ry) at all? */
static bool eligible(const struct inventory *inv, const struct rpm_pl_cfg *c, size_t h, size_t r,
		     size_t hy, size_t ry)
{
	if (hy == h && (ry == r || !c->same_host))
		return false;
	if (c->live && !c->live[hy])
		return false;
	return same_tenant(inv, h, r, hy, ry) && rpm_tor_of(inv, hy, ry) >= 0;
}

static void add(struct rpm_pinglist *pl, const struct inventory *inv, const struct rpm_pl_cfg *c,
		size_t r, size_t hy, size_t ry, enum rpm_list list, int tor, int tor_y)
{
	struct rpm_target *t = RL_PUSH(pl->t, pl->n);

	t->src_rnic = r, t->host = hy, t->rnic = ry, t->list = list;
	t->paths = paths_between(inv, (size_t)tor, (size_t)tor_y);
	draw_sports(t, c, pl->host, c->sports ? c->sports : rpm_sports_for(t->paths, c->coverage));
}

/* Inter-ToR: of each other ToR, every eligible RNIC or N of them drawn by the seed. */
static void inter_tor(struct rpm_pinglist *pl, const struct inventory *inv,
		      const struct rpm_pl_cfg *c, size_t r, int tor)
{
	size_t h = pl->host;
	struct rpm_target *cand = NULL;
	size_t n_cand = 0;

	for (size_t s = 0; s < inv->n_switches; s++) {
		size_t n = 0;

		if ((int)s == tor)
			continue;
		for (size_t hy = 0; hy < inv->n_hosts; hy++)
			for (size_t ry = 0; ry < inv->hosts[hy].n_rnics; ry++)
				if (rpm_tor_of(inv, hy, ry) == (int)s &&
				    eligible(inv, c, h, r, hy, ry)) {
					if (n == n_cand)
						RL_PUSH(cand, n_cand);
					cand[n++] = (struct rpm_target){.host = hy, .rnic = ry};
				}
		if (c->inter_tor_per_tor && n > c->inter_tor_per_tor) {
			/* a partial Fisher-Yates: the first N of a seeded shuffle, in inventory
			 * order */
			uint64_t x = (uint64_t)c->seed << 32 ^ (uint64_t)h << 16 ^ r << 8 ^ s;

			for (size_t i = 0; i < c->inter_tor_per_tor; i++) {
				size_t j = i + mix(&x) % (n - i);
				struct rpm_target tmp = cand[i];

				cand[i] = cand[j], cand[j] = tmp;
			}
			n = c->inter_tor_per_tor;
			for (size_t i = 1; i < n; i++)
				for (size_t j = i; j > 0 && (cand[j - 1].host > cand[j].host ||
							     (cand[j - 1].host == cand[j].host &&
							      cand[j - 1].rnic > cand[j].rnic));
				     j--) {
					struct rpm_target tmp = cand[j];

					cand[j] = cand[j - 1], cand[j - 1] = tmp;
				}
		}
		for (size_t i = 0; i < n; i++)
			add(pl, inv, c, r, cand[i].host, cand[i].rnic, RPM_INTER_TOR, tor, (int)s);
	}
	free(cand);
}

int rpm_pinglist(const struct inventory *inv, size_t host, const struct rpm_pl_cfg *c,
		 struct rpm_pinglist *out)
{
	*out = (struct rpm_pinglist){.host = host};
	if (host >= inv->n_hosts)
		return -ENOENT;
	for (size_t r = 0; r < inv->hosts[host].n_rnics; r++) {
		int tor = rpm_tor_of(inv, host, r);

		if (tor < 0)
			continue; /* an RNIC cabled to no switch probes nothing */
		for (size_t hy = 0; hy < inv->n_hosts; hy++)
			for (size_t ry = 0; ry < inv->hosts[hy].n_rnics; ry++)
				if (rpm_tor_of(inv, hy, ry) == tor &&
				    eligible(inv, c, host, r, hy, ry))
					add(out, inv, c, r, hy, ry, RPM_TOR_MESH, tor, tor);
		inter_tor(out, inv, c, r, tor);
	}
	return 0;
}

void rpm_pinglist_free(struct rpm_pinglist *pl)
{
	free(pl->t);
	*pl = (struct rpm_pinglist){0};
}
