/* SPDX-License-Identifier: MIT */
/*
 * R-Pingmesh's probe protocol (SIGCOMM'24; ../shared/briefs/r-pingmesh.md
 * B): the 48-byte payload a probe and its two ACKs carry, the arithmetic
 * of the six timestamps, and the prober's table of probes awaiting their
 * ACKs.  Pure: no I/O, no clock reads, no allocation after rpm_pend_new(),
 * so tests assert exact values.
 *
 * Prober P                                    Responder R
 *   T1 app clock, before the send
 *   T2 P's send time (RNIC/kernel) -- probe -->  T3 R's receive time; ACK1{T3} at once
 *   T5 P's receive time of ACK1 <---- ACK1 ----  T4 R's send time of ACK1
 *                               <---- ACK2 ----  ACK2{T3, T4}
 *   T6 app clock, when ACK1 is taken
 *
 * network RTT = (T5 - T2) - (T4 - T3); prober delay = (T6 - T1) - (T5 - T2);
 * responder delay = T4 - T3.  Each difference stays within one clock (P's
 * host: T1, T6; P's RNIC: T2, T5; R's RNIC: T3, T4), so no clock needs to
 * agree with another.  T6 is taken at ACK1, not ACK2 (yuuki/rpingmesh takes
 * it at ACK2 and so folds R's ACK2 turnaround into the prober's delay).
 *
 * Functions return 0 or -errno.
 */
#ifndef ROCELAB_RPM_H
#define ROCELAB_RPM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPM_MAGIC	0x524c5250u /* "RLRP" */
#define RPM_VERSION	1
#define RPM_PAYLOAD_LEN 48

enum rpm_kind { RPM_PROBE = 1, RPM_ACK1, RPM_ACK2, RPM_TRACE, RPM_TRACE_ACK };
/* The pinglist a probe serves (the paper's cluster monitoring, and service tracing). */
enum rpm_list { RPM_TOR_MESH, RPM_INTER_TOR, RPM_SERVICE, RPM_LISTS };

/* The payload, host order; rpm_encode() writes it big-endian. */
struct rpm_msg {
	uint8_t kind, list, ttl;     /* ttl: the probe's arrival TTL, echoed by the responder */
	uint16_t src_host, dst_host; /* inventory indexes: prober and responder */
	uint8_t src_rnic, dst_rnic;
	uint16_t sport;	    /* the probe's UDP source port (its 5-tuple, for the ACK's) */
	uint32_t nonce, id; /* the prober's epoch, and the probe's number in it */
	uint64_t t1, t3, t4;
};

/* Write m into buf (RPM_PAYLOAD_LEN bytes); returns RPM_PAYLOAD_LEN. */
size_t rpm_encode(const struct rpm_msg *m, uint8_t *buf);
/*
 * Read a payload of len bytes: 0, -EPROTO (not ours: magic, version or
 * kind), -EMSGSIZE (short).
 */
int rpm_decode(const uint8_t *buf, size_t len, struct rpm_msg *m);

/* ACK1 (ack2 false) or ACK2 for probe p: its fields echoed, T3 (and T4) the responder's. */
void rpm_ack(const struct rpm_msg *p, bool ack2, uint64_t t3, uint64_t t4, struct rpm_msg *a);

/* What a responder saw that it did not answer. */
struct rpm_resp_stats {
	unsigned long long answered, foreign, short_msg, misaddressed, not_probe;
};

/*
 * The responder's part for a payload of len bytes that arrived at T3 with
 * IP TTL ttl on RNIC (host, rnic): a probe for it gives its ACK1 in *ack1
 * (the TTL echoed, so the prober learns how far it came) and 0; ACK2 follows
 * once ACK1's own send time T4 is known (rpm_ack(ack1, true, t3, t4)).
 * Anything else is counted in st and not answered: -EPROTO (not ours, or an
 * ACK), -EMSGSIZE, -EDESTADDRREQ (a probe for another RNIC).
 */
int rpm_respond(const uint8_t *buf, size_t len, uint16_t host, uint8_t rnic, uint8_t ttl,
		uint64_t t3, struct rpm_msg *ack1, struct rpm_resp_stats *st);

enum rpm_status {
	RPM_OK,
	RPM_TIMEOUT,	/* no ACK1 within the timeout */
	RPM_ACK2_LOST,	/* ACK1 but no ACK2: no RTT (T4 unknown); the reverse path or the responder
			 */
	RPM_SEND_ERROR, /* the probe never left */
	RPM_INVALID,	/* timestamps out of order, zero or past the bounds */
};
const char *rpm_status_name(enum rpm_status s);

/* The six timestamps (ns; 0: not taken), and what they give. */
struct rpm_times {
	uint64_t t1, t2, t3, t4, t5, t6;
};

#define RPM_RTT_MAX_NS	 10000000000LL /* 10 s: past this a difference is a bad clock */
#define RPM_DELAY_MAX_NS 1000000000LL  /* 1 s for a host's own processing */

struct rpm_result {
	enum rpm_status status;
	int64_t rtt_ns, prober_ns, responder_ns; /* -1: not known */
};

/*
 * The figures of one probe whose ACK1 came (ack2: and its ACK2 with T4):
 * RPM_OK with all three, RPM_ACK2_LOST with the prober's delay alone, or
 * RPM_INVALID when a timestamp is zero, a difference negative or past its
 * bound.
 */
void rpm_compute(const struct rpm_times *t, bool ack2, struct rpm_result *r);

/*
 * The prober's probes awaiting ACKs, by id within its epoch (nonce).  A
 * reply is matched only to a probe of this epoch still pending, once per
 * ACK kind: anything else is counted, never matched.
 */
struct rpm_pending {
	struct rpm_msg probe;
	struct rpm_times t;
	uint64_t sent_at; /* the prober's clock for the timeout (T1's) */
	bool used, ack1, ack2;
};

struct rpm_pend {
	uint32_t nonce;
	uint64_t timeout_ns;
	size_t cap, used;
	struct rpm_pending *slot; /* by id % cap */
	/* No pending probe was sent before it (UINT64_MAX: none pending): expiry scans only
	 * when it is past the timeout. */
	uint64_t oldest;
	/* replies not matched */
	unsigned long long foreign, short_msg, stale, duplicate, unknown;
};

/* A table of cap slots for epoch nonce; NULL and errno. */
struct rpm_pend *rpm_pend_new(uint32_t nonce, size_t cap, uint64_t timeout_ns);
void rpm_pend_free(struct rpm_pend *pt);

/* A probe sent: its payload and T1, T2.  -EBUSY when its slot still awaits an answer. */
int rpm_pend_sent(struct rpm_pend *pt, const struct rpm_msg *probe, uint64_t t1, uint64_t t2);

/* A finished probe, given to the caller. */
struct rpm_done {
	struct rpm_msg probe;
	struct rpm_times t;
	struct rpm_result r;
};

/*
 * A reply's payload (len bytes) that arrived at t5 and was taken at t6
 * (ACK1) or just arrived (ACK2: t5, t6 ignored).  When it completes a probe
 * (ACK2 after ACK1), *done is filled and 1 returned; 0 when matched but not
 * complete (ACK1); -EPROTO, -EMSGSIZE, -ESTALE, -EALREADY, -ENOENT when it
 * was not matched (and counted: foreign, short, stale, duplicate, unknown).
 */
int rpm_pend_reply(struct rpm_pend *pt, const uint8_t *buf, size_t len, uint64_t t5, uint64_t t6,
		   struct rpm_done *done);

/*
 * May a probe be past its timeout at now (the prober's T1 clock)?  Reads no
 * slot: true when the oldest probe pending at the last expiry (or sent since)
 * is, though it may have been answered since; false is sure.
 */
bool rpm_pend_due(const struct rpm_pend *pt, uint64_t now);

/* The probe with this id was not sent after all: its slot is free again. */
void rpm_pend_drop(struct rpm_pend *pt, uint32_t id);

/*
 * The probes past their timeout at now (the prober's T1 clock), each
 * given once to each(): RPM_TIMEOUT without ACK1, RPM_ACK2_LOST with it.
 * Returns how many.
 */
size_t rpm_pend_expire(struct rpm_pend *pt, uint64_t now,
		       void (*each)(void *, const struct rpm_done *), void *ctx);

#endif
