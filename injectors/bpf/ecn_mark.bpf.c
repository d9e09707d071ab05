// SPDX-License-Identifier: MIT
/*
 * ecn_mark: a switch's ECN marking on a Linux port, where this kernel has no
 * RED (emulated).  A tc classifier in direct-action mode on the port's clsact
 * egress keeps a virtual queue of the port's bytes that drains at the port's
 * rate (the TBF's, the link a link-degrade emulates): each IPv4 packet adds
 * its length, and when the queue holds more than the threshold the packet
 * leaves with CE if it was ECN-capable.  That is DCTCP's RED (Kmin = Kmax =
 * K, Pmax = 1.0), the marking MP-RDMA's evaluation uses (NSDI'18, §5.3).
 *
 * The queue is virtual: clsact egress runs before the root qdisc takes the
 * packet, so it counts what the TBF would hold, capped where the TBF drops
 * (its 50 ms of queue).  Config (rate, K, cap) and state share one array
 * element under a spin lock: softirqs of both CPUs forward through a port.
 * Compiled by clang -target bpf and loaded by injectors/ecn_mark.c.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "injectors/bpf/ecn_vq.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ecn_vq);
} ecn_vq SEC(".maps");

SEC("tc")
int ecn_mark(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct ecn_vq *q;
	__u64 now;
	int over;

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	q = bpf_map_lookup_elem(&ecn_vq, &key);
	if (!q)
		return TC_ACT_OK;
	now = bpf_ktime_get_ns(); /* no helper may run under the lock */
	bpf_spin_lock(&q->lock);
	over = ecn_vq_step(q, now, skb->len);
	bpf_spin_unlock(&q->lock);
	if (over)
		bpf_skb_ecn_set_ce(skb); /* a no-op on a packet that is not ECN-capable */
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
