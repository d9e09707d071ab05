// SPDX-License-Identifier: MIT
/*
 * A frame as pfc-storm's check receives it on a switch port's packet socket
 * (harness/lab/pfc.c: pfc_frame_parse): any bytes, any length.  A frame it
 * accepts must build back to the same first 34 octets.
 */
#include "harness/lab/pfc.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pfc_frame f;
	uint8_t back[PFC_FRAME_LEN];

	if (pfc_frame_parse(data, size, &f))
		return 0;
	pfc_frame_build(back, &f);
	if (memcmp(back, data, 34))
		abort();
	return 0;
}
