// SPDX-License-Identifier: MIT
/*
 * What a host of a lab reached over SSH printed as its own rig ('rocelab rig'
 * there, fetched with its log; harness/run/rig.c rig_read): any bytes.  Every
 * sample kept must be one rig_pressure() and results.json can use: a finite
 * time, shares in range.
 */
#include "harness/run/rig.h"
#include "tests/fuzz/fuzz.h"

#include <math.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/rocelab-riglines-fuzz.XXXXXX";
	int fd = mkstemp(path);
	struct rig r = {0};

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	rig_read(&r, path, 0.1, 1.5);
	unlink(path);
	for (size_t i = 0; i < r.n; i++) {
		const struct rig_sample *s = &r.s[i];

		if (!isfinite(s->t) || !(s->some >= -1 && s->some <= 1) ||
		    !(s->busy >= 0 && s->busy <= 1) || !(s->steal >= 0 && s->steal <= 1) ||
		    !(s->late_ms >= 0) || !(s->self >= 0))
			abort();
	}
	if (r.n && rig_pressure(&r, r.s[0].t - 1, r.s[r.n - 1].t + 1) > 1)
		abort();
	rig_free(&r);
	return 0;
}
