/* SPDX-License-Identifier: MIT */
/*
 * xorshift64* (Vigna): small, seeded, the same sequence on every machine
 * (*state nonzero).  The one generator of the transport state machines and
 * the simulator: the spraying sender's VPs, ConWeave's path samples,
 * mpr_rand().
 */
#ifndef ROCELAB_XORSHIFT_H
#define ROCELAB_XORSHIFT_H

#include <stdint.h>

static inline uint64_t ord_rand(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

#endif
