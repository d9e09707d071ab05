// SPDX-License-Identifier: MIT
/*
 * What the verbs transport's UD receive buffers hold (probe/ptrans_verbs.c):
 * the 40-byte GRH area (a RoCEv2 packet's IPv4 header in its last 20 bytes),
 * then the payload, of a completion's byte_len; the payload decoded as a
 * Hostmesh probe.  Byte 0 bit 0: the device is rxe; bytes 1-4: byte_len
 * (the completion says it; it may claim more than the buffer the harness
 * gives, as a buffer's size is fixed: the harness clamps as the QP's receive
 * size does).
 */
#include "probe/hostmesh/hostmesh.h"
#include "probe/ptrans.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_rx rx = {.src_qpn = 0x11};
	struct hm_payload p;
	uint32_t byte_len;
	uint8_t *buf;
	size_t len;

	if (size < 5)
		return 0;
	memcpy(&byte_len, data + 1, 4);
	len = size - 5;
	if (byte_len > len) /* a receive never fills more than its posted buffer */
		byte_len = (uint32_t)len;
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 5, len);
	if (!pt_grh_rx(buf, byte_len, data[0] & 1, &rx)) {
		if (rx.payload + rx.len > buf + len)
			abort();
		hm_payload_decode(rx.payload, rx.len, &p);
	}
	free(buf);
	return 0;
}
