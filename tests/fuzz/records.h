/* SPDX-License-Identifier: MIT */
/*
 * A monitor's agent -> analyzer record stream as its analyzer takes it
 * from a TCP connection (the monitor's table, probe/monitor.h): frames, a
 * hello, then the monitor's records and agent stats, fed through to the
 * analysis of every window, on the built-in inventory.  Byte 0 bit 0: a
 * valid hello of host1 first (so the fuzzer gets past the inventory
 * fingerprint); bits 1-3: the size of the pieces the stream arrives in (as
 * reads from a socket cut it).  Each monitor's harness is one call.
 */
#ifndef ROCELAB_FUZZ_RECORDS_H
#define ROCELAB_FUZZ_RECORDS_H

#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/monitors/monitors.h"
#include "probe/pathmap.h"
#include "probe/rec.h"
#include "tests/fuzz/fuzz.h"

/* The hello a monitor's stream begins with: its frame type and size, magic and version. */
struct fuzz_hello {
	uint16_t type, size;
	uint32_t magic;
	uint16_t version;
};

static inline int fuzz_records(const char *monitor, const struct fuzz_hello *hh,
			       const uint8_t *data, size_t size)
{
	static struct inventory *inv;
	static struct rec_stream s;
	const struct mon_analyzer *m = mon_analyzer_find(monitor);
	uint64_t now = 1700000000ULL * 1000000000ULL;
	size_t piece, off = 1;
	char err[256];
	void *cfg, *az;

	if (!inv) {
		char path[PATH_MAX];

		inv = inventory_load(
		    fuzz_tree_file("lab-inventory/vlab-rail.yaml", path, sizeof(path)), stderr);
		if (!inv || !m)
			abort();
	}
	if (size < 1)
		return 0;
	cfg = calloc(1, m->cfg_size);
	if (!cfg)
		abort();
	m->defaults(cfg);
	if (opt_set(opt_find(m->opts, "window"), cfg, "2s", err, sizeof(err)))
		abort();
	az = m->new_az(inv, cfg, fuzz_null());
	rec_stream_init(&s, "fuzz");
	if (data[0] & 1) {
		struct rec_frame f = {hh->type, hh->size};
		struct rec_hello_head h = {.magic = hh->magic,
					   .version = hh->version,
					   .n_rnics = 4,
					   .host = "host1",
					   .inv_fingerprint = inventory_fingerprint(inv)};

		/* the frame, then the hello: its head, the rest zero */
		memset(s.buf, 0, sizeof(f) + hh->size);
		memcpy(s.buf, &f, sizeof(f));
		memcpy(s.buf + sizeof(f), &h, sizeof(h));
		s.len = sizeof(f) + hh->size;
	}
	piece = (size_t)1 << (4 + ((data[0] >> 1) & 7) * 2); /* 16 B .. 256 KiB */
	while (off < size) {
		size_t n = size - off;

		if (n > piece)
			n = piece;
		if (n > sizeof(s.buf) - s.len)
			n = sizeof(s.buf) - s.len;
		if (!n) /* a frame is at most REC_MAX_FRAME: never */
			abort();
		memcpy(s.buf + s.len, data + off, n);
		s.len += n;
		off += n;
		if (m->take(az, inv, &s))
			break;
		now += 1000000000ULL;
		m->tick(az, now);
	}
	m->flush(az);
	m->free_az(az);
	free(cfg);
	return 0;
}

#endif
