// SPDX-License-Identifier: MIT
/*
 * What R-Pingmesh's service tracing reads from a packet socket
 * (probe/rpingmesh/svc.h): any frame, cut anywhere.  Byte 0 is how much of
 * the rest was captured.  Properties checked: a frame read as a service's
 * is UDP 4791 IPv4 not to a monitor's QP, and its flow is counted.
 */
#include "probe/rpingmesh/svc.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpm_svc s = {.idle_ns = 10};
	static unsigned long long now;
	struct rpm_svc_pkt p;
	size_t len;
	uint8_t *f;
	bool is_new;

	if (size < 1)
		return 0;
	len = size - 1 < data[0] ? size - 1 : data[0];
	f = malloc(len ? len : 1);
	if (!f)
		abort();
	memcpy(f, data + 1, len);
	if (rpm_svc_parse(f, len, &p) == 1) {
		if (len < 54 || f[12] != 0x08 || (p.qpn >> 8 == 1 || p.qpn >> 8 == 2))
			abort();
		if (!rpm_svc_add(&s, 0, &p, ++now, &is_new) && !s.full)
			abort();
	}
	rpm_svc_expire(&s, ++now, NULL, NULL);
	free(f);
	return 0;
}
