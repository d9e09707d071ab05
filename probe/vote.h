/* SPDX-License-Identifier: MIT */
/*
 * What both monitors' analyzers share: latency histograms (log-linear, 32
 * sub-buckets per power of two) and the ranking of Algorithm 1 (Hostmesh,
 * APNet'24): the element on the most abnormal paths is the top suspect,
 * ties broken by the good probes through each element.
 */
#ifndef ROCELAB_VOTE_H
#define ROCELAB_VOTE_H

#include "harness/lib/inventory.h"
#include "probe/rec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_BINS 896

/* The bin of value v (ns), its representative value, and the q-quantile of n values in h. */
int hist_bin(uint64_t v);
double hist_val(int bin);
double hist_pct(const uint32_t *h, uint64_t n, double q);

struct cand {
	size_t id;
	uint32_t votes, good;
};

/* The elements with votes, top first (most votes, then fewest good); returns how many. */
size_t vote_rank(const uint32_t *votes, const uint32_t *good, size_t n, struct cand *out);

/* Whether the first of n ranked candidates stands alone. */
bool vote_unique_top(const struct cand *c, size_t n);

/*
 * RNICs numbered across the inventory: host h's first is base[h] (base
 * ascending over n_hosts hosts).  The host of global RNIC g, and its name
 * "host:rnic".
 */
size_t vote_host_of(const size_t *base, size_t n_hosts, size_t g);
const char *vote_rnic_name(const struct inventory *inv, const size_t *base, size_t g, char *buf,
			   size_t len);

/*
 * Link coverage: seen[] one byte per inventory link; mark the n links of a
 * traced path and return how many of them were new.
 */
static inline size_t cover_mark(uint8_t *seen, const rec_link_t *links, int n)
{
	size_t fresh = 0;

	for (int i = 0; i < n; i++)
		if (!seen[links[i]]) {
			seen[links[i]] = 1;
			fresh++;
		}
	return fresh;
}

/* The name of a link (its canonical name) or of a switch. */
const char *vote_elem_name(const struct inventory *inv, bool link, size_t id, char *buf,
			   size_t len);

#endif
