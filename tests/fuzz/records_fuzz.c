// SPDX-License-Identifier: MIT
/* Hostmesh's record stream (probe/hostmesh/hmrec.h) into its analyzer: records.h. */
#include "probe/hostmesh/hmrec.h"
#include "tests/fuzz/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_hello hello = {HM_HELLO, sizeof(struct hm_hello), HM_MAGIC,
						HM_VERSION};

	return fuzz_records("hostmesh", &hello, data, size);
}
