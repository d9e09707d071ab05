// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's agent -> analyzer record stream (probe/rpingmesh/rpmrec.h) as
 * its analyzer takes it from a TCP connection: frames, a hello, then probes,
 * paths and agent stats, fed through to the analysis of every window, on the
 * built-in inventory.  Byte 0 bit 0: a valid hello of host1 first (so the
 * fuzzer gets past the inventory fingerprint); bits 1-3: the size of the
 * pieces the stream arrives in (as reads from a socket cut it).
 */
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "probe/pathmap.h"
#include "probe/rpingmesh/analyzer.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct inventory *inv;
	static struct rec_stream s;
	struct rpa_cfg cfg;
	struct rpa *az;
	size_t piece, off = 1;
	uint64_t now = 1700000000ULL * 1000000000ULL;

	if (!inv) {
		char path[PATH_MAX];

		inv = inventory_load(
		    fuzz_tree_file("lab-inventory/vlab-rail.yaml", path, sizeof(path)), stderr);
		if (!inv)
			abort();
	}
	if (size < 1)
		return 0;
	rpa_defaults(&cfg);
	cfg.window_ms = 2000;
	az = rpa_new(inv, &cfg, fuzz_null());
	rec_stream_init(&s, "fuzz");
	if (data[0] & 1) {
		struct {
			struct rec_frame h;
			struct rpm_hello m;
		} __attribute__((packed))
		hi = {{RPM_REC_HELLO, sizeof(struct rpm_hello)},
		      {.head = {.magic = RPM_REC_MAGIC,
				.version = RPM_REC_VERSION,
				.n_rnics = 4,
				.host = "host1",
				.inv_fingerprint = inventory_fingerprint(inv)}}};

		memcpy(s.buf, &hi, sizeof(hi));
		s.len = sizeof(hi);
	}
	piece = (size_t)1 << (4 + ((data[0] >> 1) & 7) * 2); /* 16 B .. 256 KiB */
	while (off < size) {
		size_t n = size - off;

		if (n > piece)
			n = piece;
		if (n > sizeof(s.buf) - s.len)
			n = sizeof(s.buf) - s.len;
		if (!n) /* a frame is at most 1 KiB: never */
			abort();
		memcpy(s.buf + s.len, data + off, n);
		s.len += n;
		off += n;
		if (rpa_stream_take(az, inv, &s))
			break;
		now += 1000000000ULL;
		rpa_tick(az, now);
	}
	rpa_flush(az);
	rpa_free(az);
	return 0;
}
