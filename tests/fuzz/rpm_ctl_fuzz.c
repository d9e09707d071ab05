// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's controller protocol (probe/rpingmesh/ctl.h), both ways, on
 * the built-in inventory: the input is a byte stream an agent (host1)
 * takes from its controller, fed in pieces (byte 0 bits 0-2: their size,
 * as reads cut it), and each piece is also read as a registration by the
 * controller.  Byte 0 bit 3: a valid LIST header first, so the fuzzer
 * reaches the targets.  Properties checked: a list handed over is whole
 * (as many targets as its header said, each one an RNIC of another host
 * or of host1 within the inventory, with a QPN); a registration read is
 * of a host of the inventory with its RNIC count of QPNs, none zero.
 */
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "probe/rpingmesh/ctl.h"
#include "tests/fuzz/fuzz.h"

static const struct inventory *inv;

static void got(void *ctx, struct rpm_ctl_got *g)
{
	(void)ctx;
	for (size_t i = 0; i < g->n; i++) {
		const struct rpm_target *t = &g->t[i];

		if (t->host >= inv->n_hosts || t->rnic >= inv->hosts[t->host].n_rnics ||
		    t->src_rnic >= inv->hosts[0].n_rnics || !g->qpn[i] || g->qpn[i] > RPM_QPN_MAX ||
		    !t->n_sports || t->n_sports > RPM_SPORTS_MAX) {
			fprintf(stderr, "target %zu of a list is past the inventory\n", i);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct inventory *loaded;
	static const uint32_t qpn[4] = {0x200, 0x201, 0x202, 0x203};
	struct rpm_ctlc c;
	size_t piece, off = 1;
	char err[160];

	if (!loaded) {
		char path[PATH_MAX];

		loaded = inventory_load(
		    fuzz_tree_file("lab-inventory/vlab-rail.yaml", path, sizeof(path)), stderr);
		if (!loaded)
			abort();
		inv = loaded;
	}
	if (size < 1)
		return 0;
	if (rpm_ctlc_open(&c, inv, 0, "127.0.0.1", 1, qpn, err, sizeof(err)))
		abort();
	if (data[0] & 8) {
		struct {
			struct rec_frame h;
			struct rpm_ctl_list l;
		} __attribute__((packed)) hd = {{RPM_CTL_LIST, sizeof(struct rpm_ctl_list)},
						{.generation = 1, .count = 2, .refresh_ms = 1000}};

		rpm_ctlc_feed(&c, &hd, sizeof(hd), got, NULL);
	}
	piece = (size_t)1 << (data[0] & 7) * 2;
	while (off < size) {
		size_t n = size - off < piece ? size - off : piece, h;
		uint32_t q[256];
		uint64_t epoch;

		if (rpm_ctlc_feed(&c, data + off, n, got, NULL))
			c.in_len = 0;
		if (!rpm_ctl_read_register(inv, data + off, n, &h, &epoch, q, err, sizeof(err))) {
			if (h >= inv->n_hosts ||
			    n != sizeof(struct rpm_ctl_register) + 4 * inv->hosts[h].n_rnics)
				abort();
			for (size_t i = 0; i < inv->hosts[h].n_rnics; i++)
				if (!q[i] || q[i] > RPM_QPN_MAX)
					abort();
		}
		off += n;
	}
	rpm_ctlc_close(&c);
	return 0;
}
