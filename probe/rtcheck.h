/* SPDX-License-Identifier: MIT */
/*
 * Would the kernel send a packet from an RNIC's address out of the RNIC's
 * own netdev?  A raw socket would happily loop a packet for another local
 * address through lo, or guess the destination is on-link, when the RNIC's
 * route is missing; the RNIC itself could deliver neither.  Answers come
 * from RTM_GETROUTE and are cached until a route, rule or link
 * notification says something changed.
 */
#ifndef ROCELAB_RTCHECK_H
#define ROCELAB_RTCHECK_H

#include <netinet/in.h>

struct rtcheck;

/*
 * A checker for packets from addr (in the subnet of prefix_len, 32 when
 * unknown) leaving by ifindex, in this thread's network namespace.
 * Returns a new object (rtcheck_free()), or NULL with errno set.
 */
struct rtcheck *rtcheck_new(struct in_addr addr, int ifindex, int prefix_len);
void rtcheck_free(struct rtcheck *c);

/*
 * 0 when a packet to dst leaves by the netdev as unicast through a gateway
 * (or stays in the RNIC's own subnet), else -ENETUNREACH (or another
 * -errno when the kernel could not be asked).
 */
int rtcheck_dst(struct rtcheck *c, struct in_addr dst);

#endif
