// SPDX-License-Identifier: MIT
/*
 * The ECN marker's virtual queue (emulated), one step a packet: shared by
 * the BPF program (injectors/bpf/ecn_mark.bpf.c, which runs it under the
 * element's spin lock), its loader (injectors/ecn_mark.c, which fills the
 * config) and the unit test that drives it with exact times.
 */
#ifndef ROCELAB_INJECTORS_BPF_ECN_VQ_H
#define ROCELAB_INJECTORS_BPF_ECN_VQ_H

#include <linux/bpf.h>
#include <linux/types.h>

struct ecn_vq {
	struct bpf_spin_lock lock;
	__u64 rate_bps; /* bytes a second the queue drains at */
	__u64 k;	/* marking threshold, bytes */
	__u64 cap;	/* the queue never holds more (the TBF's limit) */
	__u64 bytes;	/* queued now */
	__u64 last_ns;	/* when bytes was last brought up to date */
	__u64 rem;	/* drained since then but short of a byte, in bytes x 10^9 */
};

#define ECN_VQ_NS 1000000000ULL

/*
 * A packet of len bytes arrives at now: drain what the rate took since the
 * last one, queue it unless the TBF would drop it, and say whether it leaves
 * with CE (more than k bytes queued).  A time before the last one (the
 * other CPU took its clock later but the lock first) counts as no time.
 * What a gap drains is rarely a whole number of bytes: the fraction is
 * carried, not dropped.  Dropped, half a byte a packet made a saturated
 * 50 Mbit/s port's queue grow some 3 KB a second, until it marked every
 * packet though the TBF's own queue stayed short.
 */
static inline int ecn_vq_step(struct ecn_vq *q, __u64 now, __u32 len)
{
	__u64 dt, acc, drained;

	if (now > q->last_ns) {
		dt = now - q->last_ns;
		/* Under a second, dt * rate stays below 2^64 up to 18 GB/s (144 Gbit/s). */
		if (dt >= ECN_VQ_NS) {
			q->bytes = 0;
			q->rem = 0;
		} else {
			acc = dt * q->rate_bps + q->rem;
			drained = acc / ECN_VQ_NS;
			q->rem = acc % ECN_VQ_NS;
			if (q->bytes > drained) {
				q->bytes -= drained;
			} else {
				q->bytes = 0; /* idle: nothing is owed */
				q->rem = 0;
			}
		}
		q->last_ns = now;
	}
	if (q->bytes + len <= q->cap)
		q->bytes += len; /* else the TBF drops it: it takes no room */
	return q->bytes > q->k;
}

#endif
