// SPDX-License-Identifier: MIT
/* R-Pingmesh's ToR-mesh and inter-ToR pinglists from an inventory (pinglist.h). */
#include "probe/rpingmesh/pinglist.h"

#include "harness/lib/common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The fewest source ports n whose hashes hit each of m paths with probability p:
 * (1 - ((m - 1) / m)^n)^m >= p, which is n = ceil(log(1 - p^(1/m)) / log((m - 1) / m)),
 * found by multiplying (the same n for every m < 300 and p in steps of 0.001), so that an
 * agent need not map libm for it.
 */
unsigned rpm_sports_for(unsigned m, double p)
{
	double q, miss = 1;

	if (m <= 1)
		return 1;
	q = (double)(m - 1) / m;
	for (unsigned n = 1; n < RPM_SPORTS_MAX; n++) {
		double all = 1;

		miss *= q;
		for (unsigned k = 0; k < m; k++)
			all *= 1 - miss;
		if (all >= p)
			return n;
	}
	return RPM_SPORTS_MAX;
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

struct rpm_rnic_ref {
	size_t host, rnic;
};

struct rpm_fabric {
	const struct inventory *inv;
	size_t n_sw;
	struct rpm_rnic_ref *under; /* the RNICs under switch s: under[first[s] .. first[s + 1]] */
	size_t *first;
	unsigned *paths; /* n_sw x n_sw: switches cabled to both (paths_between()) */
};

/* Does v (n long) hold x? */
static bool holds(const size_t *v, size_t n, size_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

struct rpm_fabric *rpm_fabric_new(const struct inventory *inv)
{
	struct rpm_fabric *f = rl_xcalloc(1, sizeof(*f));
	size_t S = inv->n_switches, *fill, **nb, *n_nb;

	f->inv = inv;
	f->n_sw = S;
	f->first = rl_xcalloc(S + 1, sizeof(*f->first));
	fill = rl_xcalloc(S + 1, sizeof(*fill));
	/* RNICs by ToR, in inventory order */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t h = 0; h < inv->n_hosts; h++)
			for (size_t r = 0; r < inv->hosts[h].n_rnics; r++) {
				int t = rpm_tor_of(inv, h, r);

				if (t < 0)
					continue;
				if (!pass)
					f->first[t + 1]++;
				else
					f->under[f->first[t] + fill[t]++] =
					    (struct rpm_rnic_ref){h, r};
			}
		if (!pass) {
			for (size_t t = 0; t < S; t++)
				f->first[t + 1] += f->first[t];
			f->under = rl_xcalloc(f->first[S] ? f->first[S] : 1, sizeof(*f->under));
		}
	}
	free(fill);
	/* Each switch's switch neighbours (once each), then every two neighbours of one switch
	 * count it as one of their paths. */
	nb = rl_xcalloc(S ? S : 1, sizeof(*nb));
	n_nb = rl_xcalloc(S ? S : 1, sizeof(*n_nb));
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];

		if (l->a.kind != INV_DEV_SWITCH || l->b.kind != INV_DEV_SWITCH ||
		    l->a.dev == l->b.dev)
			continue;
		for (int side = 0; side < 2; side++) {
			size_t x = side ? l->b.dev : l->a.dev, y = side ? l->a.dev : l->b.dev;

			if (!holds(nb[x], n_nb[x], y)) {
				size_t *p = RL_PUSH(nb[x], n_nb[x]);

				*p = y;
			}
		}
	}
	f->paths = rl_xcalloc(S ? S * S : 1, sizeof(*f->paths));
	for (size_t s = 0; s < S; s++) {
		for (size_t i = 0; i < n_nb[s]; i++)
			for (size_t j = 0; j < n_nb[s]; j++)
				if (i != j)
					f->paths[nb[s][i] * S + nb[s][j]]++;
		free(nb[s]);
	}
	free(nb);
	free(n_nb);
	return f;
}

void rpm_fabric_free(struct rpm_fabric *f)
{
	if (!f)
		return;
	free(f->under);
	free(f->first);
	free(f->paths);
	free(f);
}

/*
 * The ECMP paths between ToRs a and b: the switches cabled to both (the
 * spines of a two-tier fabric); 1 when a is b, and when none is (a longer
 * path Eq. (1) then treats as one).
 */
static unsigned paths_between(const struct rpm_fabric *f, size_t a, size_t b)
{
	unsigned m = a == b ? 1 : f->paths[a * f->n_sw + b];

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
	return same_tenant(inv, h, r, hy, ry); /* fabric->under: a ToR's RNICs */
}

static void add(struct rpm_pinglist *pl, const struct rpm_fabric *f, const struct rpm_pl_cfg *c,
		size_t r, size_t hy, size_t ry, enum rpm_list list, int tor, int tor_y)
{
	struct rpm_target *t = RL_PUSH(pl->t, pl->n);

	t->src_rnic = r, t->host = hy, t->rnic = ry, t->list = list;
	t->paths = paths_between(f, (size_t)tor, (size_t)tor_y);
	if (c->pairs_only)
		t->n_sports = 0;
	else
		draw_sports(t, c, pl->host,
			    c->sports ? c->sports : rpm_sports_for(t->paths, c->coverage));
}

/* A partial Fisher-Yates over 0 .. n-1, seeded: the first N of a shuffle, where the
 * positions it swapped are the only ones kept (pos[i] holds val[i]; others hold themselves). */
struct shuffle {
	size_t *pos, *val, n;
};

static size_t sh_get(const struct shuffle *sh, size_t i)
{
	for (size_t k = 0; k < sh->n; k++)
		if (sh->pos[k] == i)
			return sh->val[k];
	return i;
}

static void sh_put(struct shuffle *sh, size_t i, size_t v)
{
	for (size_t k = 0; k < sh->n; k++)
		if (sh->pos[k] == i) {
			sh->val[k] = v;
			return;
		}
	sh->pos[sh->n] = i, sh->val[sh->n++] = v;
}

/*
 * The picks of ToR s for source (h, r) when at most the source host's own
 * RNICs are left out (no tenants, no live list): the candidates are f->under of s
 * less that host's run, so the shuffle runs on their indexes without the
 * list (what a lab of 80,000 RNICs needs: the list is 250 long, the picks 1).
 * The same draws on the same candidates as the list would give.
 */
static size_t lazy_picks(const struct rpm_fabric *f, const struct rpm_pl_cfg *c, size_t h, size_t r,
			 size_t s, struct rpm_target *out)
{
	size_t lo = f->first[s], hi = f->first[s + 1], a = lo, b, n, N = c->inter_tor_per_tor;
	uint64_t x = (uint64_t)c->seed << 32 ^ (uint64_t)h << 16 ^ r << 8 ^ s;
	struct shuffle sh = {rl_xcalloc(2 * N, sizeof(size_t)), rl_xcalloc(2 * N, sizeof(size_t)),
			     0};

	/* host h's run in the ToR's RNICs (they are in inventory order) */
	for (size_t e = hi; a < e;) {
		size_t m = a + (e - a) / 2;

		if (f->under[m].host < h)
			a = m + 1;
		else
			e = m;
	}
	for (b = a; b < hi && f->under[b].host == h && !c->same_host; b++)
		; /* with same_host, the host's RNICs under another ToR are targets too */
	n = (hi - lo) - (b - a);
	if (n <= N) { /* every one, as the list would give */
		size_t k = 0;

		for (size_t i = lo; i < hi; i++)
			if (i < a || i >= b)
				out[k++] = (struct rpm_target){.host = f->under[i].host,
							       .rnic = f->under[i].rnic};
		free(sh.pos), free(sh.val);
		return k;
	}
	for (size_t i = 0; i < N; i++) {
		size_t j = i + mix(&x) % (n - i), vi = sh_get(&sh, i), vj = sh_get(&sh, j);

		sh_put(&sh, i, vj);
		sh_put(&sh, j, vi);
	}
	for (size_t i = 0; i < N; i++) {
		size_t k = sh_get(&sh, i), at = lo + k + (lo + k >= a ? b - a : 0);

		out[i] = (struct rpm_target){.host = f->under[at].host, .rnic = f->under[at].rnic};
	}
	free(sh.pos), free(sh.val);
	return N;
}

/* cand[0 .. n) by (host, rnic): inventory order */
static void by_inventory_order(struct rpm_target *cand, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (cand[j - 1].host > cand[j].host ||
					     (cand[j - 1].host == cand[j].host &&
					      cand[j - 1].rnic > cand[j].rnic));
		     j--) {
			struct rpm_target tmp = cand[j];

			cand[j] = cand[j - 1], cand[j - 1] = tmp;
		}
}

/* Inter-ToR: of each other ToR, every eligible RNIC or N of them drawn by the seed. */
static void inter_tor(struct rpm_pinglist *pl, const struct rpm_fabric *f,
		      const struct rpm_pl_cfg *c, size_t r, int tor)
{
	const struct inventory *inv = f->inv;
	size_t h = pl->host;
	struct rpm_target *cand = NULL;
	size_t n_cand = 0;
	bool lazy = c->inter_tor_per_tor && c->inter_tor_per_tor <= 64 && !inv->n_tenants &&
		    !c->live; /* (its shuffle keeps its swaps in a list) */

	if (lazy)
		cand = rl_xcalloc(c->inter_tor_per_tor, sizeof(*cand));
	for (size_t s = 0; s < inv->n_switches; s++) {
		size_t n = 0;

		if ((int)s == tor || f->first[s] == f->first[s + 1])
			continue;
		if (lazy) {
			n = lazy_picks(f, c, h, r, s, cand);
			by_inventory_order(cand, n);
			for (size_t i = 0; i < n; i++)
				add(pl, f, c, r, cand[i].host, cand[i].rnic, RPM_INTER_TOR, tor,
				    (int)s);
			continue;
		}
		for (size_t k = f->first[s]; k < f->first[s + 1]; k++) {
			size_t hy = f->under[k].host, ry = f->under[k].rnic;

			if (eligible(inv, c, h, r, hy, ry)) {
				if (n == n_cand)
					RL_PUSH(cand, n_cand);
				cand[n++] = (struct rpm_target){.host = hy, .rnic = ry};
			}
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
			by_inventory_order(cand, n);
		}
		for (size_t i = 0; i < n; i++)
			add(pl, f, c, r, cand[i].host, cand[i].rnic, RPM_INTER_TOR, tor, (int)s);
	}
	free(cand);
}

int rpm_pinglist_on(const struct rpm_fabric *f, size_t host, const struct rpm_pl_cfg *c,
		    struct rpm_pinglist *out)
{
	const struct inventory *inv = f->inv;

	*out = (struct rpm_pinglist){.host = host};
	if (host >= inv->n_hosts)
		return -ENOENT;
	for (size_t r = 0; r < inv->hosts[host].n_rnics; r++) {
		int tor = rpm_tor_of(inv, host, r);

		if (tor < 0)
			continue; /* an RNIC cabled to no switch probes nothing */
		for (size_t k = f->first[tor]; k < f->first[tor + 1]; k++) {
			size_t hy = f->under[k].host, ry = f->under[k].rnic;

			if (eligible(inv, c, host, r, hy, ry))
				add(out, f, c, r, hy, ry, RPM_TOR_MESH, tor, tor);
		}
		inter_tor(out, f, c, r, tor);
	}
	return 0;
}

int rpm_pinglist(const struct inventory *inv, size_t host, const struct rpm_pl_cfg *c,
		 struct rpm_pinglist *out)
{
	struct rpm_fabric *f = rpm_fabric_new(inv);
	int r = rpm_pinglist_on(f, host, c, out);

	rpm_fabric_free(f);
	return r;
}

void rpm_pinglist_free(struct rpm_pinglist *pl)
{
	free(pl->t);
	*pl = (struct rpm_pinglist){0};
}
