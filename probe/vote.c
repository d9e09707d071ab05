// SPDX-License-Identifier: MIT
/* Latency histograms and Algorithm 1's ranking, for every monitor's analyzer (vote.h). */
#include "probe/vote.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"

#include <stdio.h>

int hist_bin(uint64_t v)
{
	int e;

	if (v < 64)
		return (int)v;
	if (v > UINT32_MAX)
		v = UINT32_MAX;
	e = 63 - __builtin_clzll(v);
	return 64 + (e - 6) * 32 + (int)((v >> (e - 5)) & 31);
}

double hist_val(int bin)
{
	int e, sub;

	if (bin < 64)
		return bin;
	e = (bin - 64) / 32 + 6;
	sub = (bin - 64) % 32;
	return ((32.0 + sub + 0.5) * (double)(1ULL << (e - 5)));
}

double hist_pct(const uint32_t *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * (double)n), acc = 0;

	if (!n)
		return 0;
	if (want >= n)
		want = n - 1;
	for (int i = 0; i < HIST_BINS; i++) {
		acc += h[i];
		if (acc > want)
			return hist_val(i);
	}
	return hist_val(HIST_BINS - 1);
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *x = pa, *y = pb;

	if (x->votes != y->votes)
		return x->votes > y->votes ? -1 : 1;
	if (x->good != y->good)
		return x->good < y->good ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

size_t vote_rank(const uint32_t *votes, const uint32_t *good, size_t n, struct cand *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (votes[i])
			out[k++] = (struct cand){i, votes[i], good[i]};
	rl_sort(out, k, sizeof(*out), cand_cmp);
	return k;
}

bool vote_unique_top(const struct cand *c, size_t n)
{
	return n == 1 || (n > 1 && (c[0].votes != c[1].votes || c[0].good != c[1].good));
}

const char *vote_elem_name(const struct inventory *inv, bool link, size_t id, char *buf, size_t len)
{
	if (link)
		return pathmap_link_name(inv, id, buf, len);
	snprintf(buf, len, "%s", inv->switches[id].name);
	return buf;
}

size_t vote_host_of(const size_t *base, size_t n_hosts, size_t g)
{
	size_t lo = 0, hi = n_hosts;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (base[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const char *vote_rnic_name(const struct inventory *inv, const size_t *base, size_t g, char *buf,
			   size_t len)
{
	size_t h = vote_host_of(base, inv->n_hosts, g);

	snprintf(buf, len, "%s:%s", inv->hosts[h].name, inv->hosts[h].rnics[g - base[h]].name);
	return buf;
}
