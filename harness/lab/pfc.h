/* SPDX-License-Identifier: MIT */
/*
 * IEEE 802.1Qbb priority flow control frames: built, parsed, sent at a rate
 * from a netdev (a PFC storm) and counted as they arrive on one.
 */
#ifndef ROCELAB_PFC_H
#define ROCELAB_PFC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* A minimum Ethernet frame without its FCS, which the NIC (or veth) adds. */
#define PFC_FRAME_LEN  60
#define PFC_ETHERTYPE  0x8808 /* MAC control */
#define PFC_OPCODE     0x0101 /* priority-based flow control (0x0001: 802.3x PAUSE) */
#define PFC_QUANTA_MAX 65535u
/* One quantum pauses for the time 512 bits take at the link's speed. */
#define PFC_QUANTUM_BITS 512u
/* A storm's rate at most: a 100G port's frames 64 bytes apart would be 150 million a second. */
#define PFC_STORM_PPS_MAX 1000000u

struct pfc_frame {
	uint8_t src[6];
	uint8_t enable;	    /* class-enable vector: bit N pauses priority N */
	uint16_t quanta[8]; /* pause time per priority, in quanta (0: resume) */
};

/* The frame's 60 bytes (MAC control, 01:80:C2:00:00:01, zero padding). */
void pfc_frame_build(uint8_t out[PFC_FRAME_LEN], const struct pfc_frame *f);

/*
 * Read a frame as received (without FCS): 0 when it is a PFC frame, -EPROTO
 * when it is MAC control of another opcode or to another address, -EINVAL
 * when it is too short or not MAC control.
 */
int pfc_frame_parse(const uint8_t *p, size_t n, struct pfc_frame *f);

/*
 * Send f from netdev ifname in this network namespace, pps frames a second,
 * for ms milliseconds (0: until *stop), at most max_frames (0: no cap).
 * Returns the frames sent, or -errno.
 */
long long pfc_storm_here(const char *ifname, const struct pfc_frame *f, unsigned pps, long long ms,
			 unsigned long long max_frames, volatile sig_atomic_t *stop);

/* What arrived on a netdev while counting. */
struct pfc_count {
	unsigned long long frames;    /* PFC frames */
	unsigned long long paused;    /* of them, pausing the priority asked about */
	unsigned long long malformed; /* MAC control that is not a well-formed PFC frame */
	unsigned quanta;	      /* the priority's quanta in the last frame that paused it */
	double secs;		      /* how long it counted */
};

/*
 * Count the MAC control frames received on ifname in this network namespace
 * for ms milliseconds, those pausing priority prio apart.  0 or -errno.
 */
int pfc_count_here(const char *ifname, int prio, long long ms, struct pfc_count *c);

#endif
