/* SPDX-License-Identifier: MIT */
/*
 * R-Pingmesh's controller (SIGCOMM'24; ../shared/briefs/r-pingmesh.md A,
 * E3): agents register (host, the QPN of each RNIC's probe port, an
 * epoch); the controller hands each the pinglists of its RNICs computed
 * from the inventory over the hosts registered now (pinglist.h), with each
 * target's address and probe QPN as its agent registered it, re-sends them
 * every refresh and whenever the registered hosts change, and drops hosts
 * unseen (no registration) for stale.
 *
 * The protocol, over TCP in probe/rec.h's frames {u16 type, u16 len, body},
 * little-endian, fixed bodies but REGISTER's QPN array:
 *   agent -> controller: REGISTER, at connect and every refresh (the
 *     heartbeat; the controller says its refresh in each LIST);
 *   controller -> agent: LIST {generation, count}, count TARGETs, END
 *     {generation, count}; the agent takes a list whole at its END, or
 *     not at all; or REFUSE {why}, and the connection closes.
 * Both ends count what they cannot read and go on: nothing from the
 * network is fatal.
 *
 * The registry and the message checks are pure (no I/O, no clock reads):
 * unit tests drive them with their own times.
 */
#ifndef ROCELAB_RPM_CTL_H
#define ROCELAB_RPM_CTL_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/rec.h"
#include "probe/rpingmesh/pinglist.h"

#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#define RPM_CTL_PORT	4792	    /* the controller's TCP port (the analyzer's is 4793) */
#define RPM_CTL_MAGIC	0x43504c52u /* "RLPC" */
#define RPM_CTL_VERSION 1
#define RPM_CTL_RNICS	255 /* RNICs a host registers at most */
#define RPM_QPN_MAX	0xffffffu

enum rpm_ctl_type {
	RPM_CTL_REGISTER = 1,
	RPM_CTL_LIST = 2,
	RPM_CTL_TARGET = 3,
	RPM_CTL_END = 4,
	RPM_CTL_REFUSE = 5,
};

/* REGISTER's body: this, then n_rnics u32 QPNs (RNIC i's probe port, inventory order). */
struct rpm_ctl_register {
	uint32_t magic;
	uint16_t version;
	uint8_t n_rnics, reserved;
	uint64_t inv_fingerprint;
	uint64_t epoch; /* the agent's run: a restarted agent has another */
	char host[32];
} __attribute__((packed));

struct rpm_ctl_list {
	uint32_t generation, count;
	uint32_t refresh_ms; /* register again within this */
	uint32_t reserved;
} __attribute__((packed));

struct rpm_ctl_target {
	uint16_t host, rnic; /* the target (inventory indexes) */
	uint32_t addr;	     /* its address (network order) */
	uint32_t qpn;	     /* its probe port's QPN, as its agent registered it */
	uint8_t src_rnic;    /* the probing RNIC of the receiving host */
	uint8_t list;	     /* RPM_TOR_MESH or RPM_INTER_TOR */
	uint8_t n_sports, reserved;
	uint16_t paths;
	uint16_t sports[RPM_SPORTS_MAX];
} __attribute__((packed));

struct rpm_ctl_end {
	uint32_t generation, count;
} __attribute__((packed));

struct rpm_ctl_refuse {
	char why[160];
} __attribute__((packed));

/* ---- checks of what arrives -------------------------------------------------------------- */

/*
 * A REGISTER body of len bytes from the network, checked against inv: its
 * host's index, its epoch and its QPNs (qpn: RPM_CTL_RNICS of room).  0, or
 * -EPROTO (magic, version, size), -ESTALE (another inventory), -ENOENT (no
 * such host), -ERANGE (RNIC count or a QPN), with why filled.
 */
int rpm_ctl_read_register(const struct inventory *inv, const void *body, size_t len, size_t *host,
			  uint64_t *epoch, uint32_t *qpn, char *why, size_t whylen);

/*
 * A TARGET body for host (its agent's own inventory index): 0 and *t, or
 * -EPROTO (size, list, source ports), -ERANGE (an index or QPN past the
 * inventory), -ESTALE (its address is not the inventory's), why filled.
 */
int rpm_ctl_read_target(const struct inventory *inv, size_t host, const void *body, size_t len,
			struct rpm_target *t, uint32_t *qpn, char *why, size_t whylen);

/* ---- the registry ---------------------------------------------------------------------------- */

struct rpm_ctl_cfg {
	struct rpm_pl_cfg pl;
	long long refresh_ms; /* re-send every list this often: 300 s (yuuki/rpingmesh) */
	long long stale_ms;   /* drop a host unseen this long: 900 s */
};

void rpm_ctl_defaults(struct rpm_ctl_cfg *c);

/* The controller's parameters: its command line, and the scenario's rpingmesh section. */
extern const struct opt_desc rpm_ctl_opts[];

struct rpm_ctl_host {
	bool live;
	uint64_t epoch;
	unsigned long long seen; /* the caller's clock, ns */
	uint32_t *qpn;		 /* per RNIC */
};

struct rpm_ctl {
	const struct inventory *inv;
	struct rpm_ctl_cfg cfg;
	struct rpm_ctl_host *h;
	bool *live;		/* per host, as pl.live */
	struct rpm_fabric *fab; /* the inventory's ToRs and paths, built once for every list */
	uint32_t generation;	/* bumped each time the registered hosts or a QPN change */
	unsigned long long registered, renewed, dropped;
};

struct rpm_ctl *rpm_ctl_new(const struct inventory *inv, const struct rpm_ctl_cfg *cfg);
void rpm_ctl_free(struct rpm_ctl *c);

/*
 * host registered at now with epoch and its QPNs: 1 when that changes the
 * registered hosts (a new host, a new epoch, other QPNs), so every list
 * must be sent again; 0 when it only renews.
 */
int rpm_ctl_register(struct rpm_ctl *c, size_t host, uint64_t epoch, const uint32_t *qpn,
		     unsigned long long now);

/* Drop the hosts unseen since now - stale; each given to dropped() (may be NULL).  How many. */
size_t rpm_ctl_expire(struct rpm_ctl *c, unsigned long long now,
		      void (*dropped)(void *, size_t host, unsigned long long unseen_ns),
		      void *ctx);

/*
 * The pinglist of registered host over the hosts registered now: targets
 * with their QPNs (qpn: one per target, freed by the caller).  0, -ENOENT
 * (host not registered), -ENOMEM.
 */
int rpm_ctl_pinglist(const struct rpm_ctl *c, size_t host, struct rpm_pinglist *pl, uint32_t **qpn);

/* How many hosts are registered now. */
size_t rpm_ctl_live(const struct rpm_ctl *c);

/*
 * Serve agents on the listening socket lfd until duration_ms (0: until
 * SIGINT/SIGTERM), logging registrations, drops and lists on stderr.  An
 * rl_exit code.
 */
int rpm_ctl_serve(struct rpm_ctl *c, int lfd, long long duration_ms);

/* ---- the agent's side ------------------------------------------------------------------------ */

/*
 * A pinglist as it arrived whole: the targets of the host's RNICs, each
 * with its QPN, and the controller's generation and refresh.
 */
struct rpm_ctl_got {
	struct rpm_target *t;
	uint32_t *qpn;
	size_t n;
	uint32_t generation, refresh_ms;
};

/*
 * An agent's connection to its controller: connects (and reconnects each
 * second when it cannot), registers at connect and every refresh, and
 * hands over each pinglist that arrives whole.  Never blocks.
 */
struct rpm_ctlc {
	const struct inventory *inv;
	size_t host;
	int fd;
	unsigned fds; /* sockets fd has had: a new one may reuse a closed one's number */
	bool connecting, connected, said_down;
	struct sockaddr_in sa;
	const char *spec;
	unsigned long long next_try, next_reg, first_try; /* monotonic ns */
	uint32_t refresh_ms;
	uint8_t reg[sizeof(struct rec_frame) + sizeof(struct rpm_ctl_register) + 4 * 256];
	size_t reg_len;
	uint8_t in[4096];
	size_t in_len;
	struct rpm_ctl_got cur; /* the list arriving */
	size_t want;
	bool in_list;
	unsigned long long lists, malformed, refusals;
};

/*
 * Toward the controller at spec ("ADDR[:PORT]", RPM_CTL_PORT) for host
 * with epoch and its RNICs' QPNs.  0, or -EINVAL (spec) with err filled.
 */
int rpm_ctlc_open(struct rpm_ctlc *c, const struct inventory *inv, size_t host, const char *spec,
		  uint64_t epoch, const uint32_t *qpn, char *err, size_t errlen);
void rpm_ctlc_close(struct rpm_ctlc *c);
/* Connect when due, register when due; call every loop turn. */
void rpm_ctlc_service(struct rpm_ctlc *c, unsigned long long now);
/* The connection's pollfd when there is one (false: none). */
bool rpm_ctlc_pollfd(const struct rpm_ctlc *c, struct pollfd *p);
/*
 * Its poll() events: read what came.  Each pinglist that arrives whole is
 * given to got() (its arrays are the callee's to keep: free them);
 * anything unreadable is counted in malformed and skipped, or the
 * connection closed and made again.
 */
void rpm_ctlc_event(struct rpm_ctlc *c, short revents, unsigned long long now,
		    void (*got)(void *, struct rpm_ctl_got *), void *ctx);
/*
 * What the controller sent, len bytes (data NULL: already read into c->in
 * at c->in_len), taken frame by frame as rpm_ctlc_event() does: 0, or
 * -EPROTO when a frame is longer than any of the protocol's (the
 * connection is then to be made again).
 */
int rpm_ctlc_feed(struct rpm_ctlc *c, const void *data, size_t len,
		  void (*got)(void *, struct rpm_ctl_got *), void *ctx);

#endif
