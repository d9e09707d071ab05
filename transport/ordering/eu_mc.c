// SPDX-License-Identifier: MIT
/*
 * Eunomia's memory controller: the master array of two-byte blocks and its
 * allocation bitmap, metadata taken from the tail and bitmap rows from the
 * head (eunomia.txt, section 4).  A word of the allocation bitmap is
 * scanned at a time, so a search costs at most 16 words.
 */
#include "transport/ordering/eunomia.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WORDS (EU_MC_BLOCKS / 64)

void eu_mc_init(struct eu_mc *mc)
{
	memset(mc, 0, sizeof(*mc));
}

bool eu_mc_in_use(const struct eu_mc *mc, unsigned idx)
{
	return idx < EU_MC_BLOCKS && (mc->alloc[idx / 64] >> (idx % 64) & 1);
}

static void take(struct eu_mc *mc, unsigned idx, unsigned n)
{
	for (unsigned i = idx; i < idx + n; i++)
		mc->alloc[i / 64] |= 1ULL << (i % 64);
	mc->used += n;
	if (mc->used > mc->high_water)
		mc->high_water = mc->used;
}

int eu_mc_row_alloc(struct eu_mc *mc)
{
	for (unsigned w = 0; w < WORDS; w++) {
		if (mc->alloc[w] != ~0ULL) {
			unsigned idx = w * 64 + (unsigned)__builtin_ctzll(~mc->alloc[w]);

			take(mc, idx, 1);
			return (int)idx;
		}
	}
	return -ENOSPC;
}

/*
 * From the tail: the highest run of EU_META_BLOCKS free blocks.  run counts
 * free blocks met going down; a used block resets it.
 */
int eu_mc_meta_alloc(struct eu_mc *mc)
{
	unsigned run = 0;

	for (int w = WORDS - 1; w >= 0; w--) {
		uint64_t a = mc->alloc[w];

		if (!a && run + 64 < EU_META_BLOCKS) { /* a free word, not yet enough */
			run += 64;
			continue;
		}
		for (int b = 63; b >= 0; b--) {
			if (a >> b & 1) {
				run = 0;
				continue;
			}
			if (++run == EU_META_BLOCKS) {
				unsigned idx = (unsigned)w * 64 + (unsigned)b;

				take(mc, idx, EU_META_BLOCKS);
				return (int)idx;
			}
		}
	}
	return -ENOSPC;
}

void eu_mc_release(struct eu_mc *mc, unsigned idx, unsigned n)
{
	for (unsigned i = idx; i < idx + n; i++) {
		if (!eu_mc_in_use(mc, i))
			abort(); /* a double free is a bug of the caller, never input */
		mc->alloc[i / 64] &= ~(1ULL << (i % 64));
	}
	mc->used -= n;
}
