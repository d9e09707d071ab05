/* SPDX-License-Identifier: MIT */
/*
 * Eunomia's workload on a lab (issue 15; ../shared/briefs/mp-rdma-eunomia.md
 * D.8): 'rocelab transport send --workload spray' keeps `conns` finite
 * connections going at once, each on its own QP pair (sender-qpn + i,
 * receiver-qpn + i) and replaced by the next as soon as it completes, sizes
 * log-uniform in [size-min, size-max] KB, each from a random Head.  With
 * --load, connections arrive instead as a Poisson process offering that
 * many Mbit/s of payload (the Eunomia paper's section 5 workloads), each
 * on the lowest idle QP or waiting for one, so QPs also sit idle.  Every
 * packet is sprayed over the VPs (transport/ordering/spray.h) as MP-RDMA's
 * wire carries it: PSN the sequence, the message's first PSN Eunomia's
 * Head, Tail its last-packet bit, and the connection's number in MPX-D.
 * 'rocelab transport recv --workload spray' answers with one receiver NIC
 * of the kind --receiver names (eunomia; bitmap with bitmap 256 or 64: a
 * static bitmap; gbn: no ordering support) and checks every byte the
 * application gets.  Both write JSON lines as mpr_ep.h's endpoints do:
 * "snd"/"rcv" every interval, "snd-end"/"rcv-end" at the end.
 */
#ifndef ROCELAB_SPRAY_EP_H
#define ROCELAB_SPRAY_EP_H

#include "transport/mpr_ep.h"

#define SPRAY_CONNS_MAX 1024

/* The mean connection size (KB) the workload draws from [size_min_kb, size_max_kb]. */
double spray_mean_kb(unsigned size_min_kb, unsigned size_max_kb);

/* The spraying workload's checks of p; -EINVAL with what to change in err. */
int spray_check(const struct ep_params *p, char *err, size_t errlen);

/* As ep_send() and ep_recv(), for the spraying workload, p checked; an rl_exit code. */
int spray_send(const struct inventory *inv, const char *from, const char *to,
	       const struct ep_params *p, const volatile sig_atomic_t *stop, FILE *out);
int spray_recv(const struct inventory *inv, const char *at, const struct ep_params *p,
	       enum ep_ecn ecn, const volatile sig_atomic_t *stop, FILE *out);

#endif
