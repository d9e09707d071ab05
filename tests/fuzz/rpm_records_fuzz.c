// SPDX-License-Identifier: MIT
/* R-Pingmesh's record stream (probe/rpingmesh/rpmrec.h) into its analyzer: records.h. */
#include "probe/rpingmesh/rpmrec.h"
#include "tests/fuzz/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_hello hello = {RPM_REC_HELLO, sizeof(struct rpm_hello),
						RPM_REC_MAGIC, RPM_REC_VERSION};

	return fuzz_records("rpingmesh", &hello, data, size);
}
