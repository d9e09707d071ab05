// SPDX-License-Identifier: MIT
/*
 * What R-Pingmesh's prober receives as a reply (probe/rpingmesh/rpm.c): a
 * payload that may be an ACK1 or ACK2 of its probes, or anything else.
 * Each input is split into replies by its first byte (lengths); a pending
 * table with probes 0..15 of this epoch takes them, then expires them.
 * A responder takes each too.  Properties checked: a payload that
 * decodes, encoded again, decodes the same; a responder answers only a
 * probe addressed to it; a probe is finished at most once; a finished
 * probe's figures are either all known or its status says which are not.
 */
#include "probe/rpingmesh/rpm.h"
#include "tests/fuzz/fuzz.h"

static unsigned finished[16];

static void check(const struct rpm_done *d)
{
	if (d->probe.id >= 16 || ++finished[d->probe.id] > 1) {
		fprintf(stderr, "probe %u finished twice\n", d->probe.id);
		abort();
	}
	if ((d->r.status == RPM_OK) != (d->r.rtt_ns >= 0 && d->r.responder_ns >= 0) ||
	    (d->r.status == RPM_OK && d->r.prober_ns < 0)) {
		fprintf(stderr, "status %s with rtt %lld\n", rpm_status_name(d->r.status),
			(long long)d->r.rtt_ns);
		abort();
	}
}

static void on_expired(void *ctx, const struct rpm_done *d)
{
	(void)ctx;
	check(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpm_pend *pt = rpm_pend_new(0x5eed, 16, 1000000000ULL);
	struct rpm_msg m, m2;
	struct rpm_resp_stats rs = {0};
	uint8_t buf[RPM_PAYLOAD_LEN];

	if (!pt)
		return 0;
	memset(finished, 0, sizeof(finished));
	for (uint32_t id = 0; id < 16; id++) {
		struct rpm_msg p = {.kind = RPM_PROBE,
				    .dst_host = 1,
				    .dst_rnic = 2,
				    .nonce = 0x5eed,
				    .id = id,
				    .t1 = 1000 + id};

		rpm_pend_sent(pt, &p, 1000 + id, 5000 + id);
	}
	while (size) {
		size_t len = data[0] % (RPM_PAYLOAD_LEN + 8);
		struct rpm_done d;

		data++, size--;
		len = len < size ? len : size;
		if (!rpm_decode(data, len, &m)) {
			uint8_t buf2[RPM_PAYLOAD_LEN];

			/* compared as encoded: a struct's padding is no field */
			rpm_encode(&m, buf);
			if (rpm_decode(buf, sizeof(buf), &m2) || (rpm_encode(&m2, buf2), 0) ||
			    memcmp(buf, buf2, sizeof(buf)) || memcmp(buf, data, RPM_PAYLOAD_LEN)) {
				fprintf(stderr,
					"a decoded payload encoded again decodes otherwise\n");
				abort();
			}
		}
		if (rpm_pend_reply(pt, data, len, 9000, 12000, &d) == 1)
			check(&d);
		/* at a responder: only a probe for this RNIC is answered, with its ACK1 */
		if (!rpm_respond(data, len, 1, 2, 64, 7000, &m2, &rs) &&
		    (m2.kind != RPM_ACK1 || m2.dst_host != 1 || m2.dst_rnic != 2 ||
		     m2.t3 != 7000)) {
			fprintf(stderr, "a responder answered what is not its probe\n");
			abort();
		}
		data += len, size -= len;
	}
	rpm_pend_expire(pt, 2000000000ULL, on_expired, NULL);
	rpm_pend_free(pt);
	return 0;
}
