/* SPDX-License-Identifier: MIT */
/* Probe transports: send and receive probes on one RNIC, with completion times and a chosen UDP
 * source port. */
#ifndef ROCELAB_PTRANS_H
#define ROCELAB_PTRANS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a timestamp came from; records and results carry it. */
enum pt_ts {
	PT_TS_APP,    /* clock_gettime in the agent around the system call */
	PT_TS_KERNEL, /* SO_TIMESTAMPING software timestamp taken by the kernel */
	PT_TS_HW,     /* RNIC completion timestamp */
};
const char *pt_ts_name(enum pt_ts t);

struct pt_cfg {
	const char *netdev;  /* RNIC netdev (udp: socket bound to it) */
	const char *ibdev;   /* verbs device, "" or NULL: matched by netdev */
	struct in_addr addr; /* RNIC address */
	int prefix_len;	     /* of addr's subnet (the rail); 32 when unknown */
	int gid_index;	     /* verbs: -1 finds the RoCEv2 IPv4 GID */
	uint8_t tos;	     /* DSCP << 2 | ECN of every probe */
	uint32_t qkey;
	uint32_t qpn;	 /* udp: the QPN this port answers to (verbs: assigned) */
	int sports;	 /* source ports the caller uses (verbs on rxe: UD QPs), 0: 16 */
	bool share_port; /* udp: UDP 4791 may be held already (by rxe in the same namespace) */
	bool send_only;	 /* udp: no receive path (a path tracer beside another transport) */
};

/* A destination: the RNIC address and the QPN that receives probes there. */
struct pt_dst {
	struct in_addr addr;
	uint32_t qpn;
};

/* One received probe, valid during the callback. */
struct pt_rx {
	struct in_addr src;
	uint16_t sport;
	uint16_t ip_id;
	uint8_t ttl, tos;
	uint32_t src_qpn;
	uint64_t rx_ns;	  /* ③ (CLOCK_REALTIME ns) */
	enum pt_ts rx_ts; /* where ③ came from */
	const uint8_t *payload;
	size_t len;
};

/*
 * A UD receive buffer of byte_len bytes (the 40-byte GRH area, whose last 20
 * bytes hold a RoCEv2 packet's IPv4 header, then the payload) into rx's
 * addresses and payload; rx->src_qpn must be set.  -EPROTO when it is not
 * RoCEv2 over IPv4.  rxe: the sender used its QP's UDP port (pt_rxe_sport).
 */
#define PT_GRH_LEN 40
int pt_grh_rx(const uint8_t *b, uint32_t byte_len, bool rxe, struct pt_rx *rx);

/* What poll() reports back. */
struct pt_events {
	/* The probe sent with this cookie left at tx_ns (②) measured by ts. */
	void (*tx_done)(void *ctx, uint64_t cookie, uint64_t tx_ns, enum pt_ts ts);
	void (*rx)(void *ctx, const struct pt_rx *rx);
	/*
	 * A packet arrived that is not a probe (foreign, malformed, bad ICRC): a counter, never
	 * fatal.  -EXDEV: a probe for another monitor's QP on this RNIC (pt_sibling_qpn), which
	 * runs beside this one and is not foreign.
	 */
	void (*bad)(void *ctx, int reason);
	/*
	 * The probe sent with this cookie was not sent after all: its send
	 * completed in error (verbs: a QP or transport error; -EIO).  Failures
	 * send() returns itself are its return value, not this.  NULL: ignored.
	 */
	void (*tx_failed)(void *ctx, uint64_t cookie, int err);
};

struct pt_port;

/* One transport.  Every call returns 0 or -errno (and fills err where given). */
struct pt_ops {
	const char *name;
	/*
	 * Whether send() honours ttl per packet and reports the IP ID.  verbs
	 * cannot: the kernel sets an AH's hop limit from the route.  Path traces
	 * then go out of a send-only udp port with the same 5-tuple.
	 */
	bool traces;
	int (*open)(const struct pt_cfg *cfg, struct pt_port **out, char *err, size_t errlen);
	void (*close)(struct pt_port *p);
	/* File descriptors to wait on (readable or error) before calling poll(). */
	int (*fds)(struct pt_port *p, int *fds, int max);
	/*
	 * Send one probe payload to dst from UDP source port sport with IP TTL ttl.
	 * Sets *tx_ns to the time of the send call (①..② in app time), *sport_used
	 * to the source port the packet really carries and *ip_id to its IP ID when
	 * the transport chooses it (else 0).  The send completion arrives later
	 * through pt_events.tx_done with cookie.
	 */
	int (*send)(struct pt_port *p, const struct pt_dst *dst, uint16_t sport, uint8_t ttl,
		    const void *payload, size_t len, uint64_t cookie, uint16_t *sport_used,
		    uint16_t *ip_id);
	/*
	 * Deliver pending send completions only (non-blocking).  Send completions
	 * need not make fds() readable (verbs: only receives wake): call this
	 * after sending, or send() runs out of slots (-ENOBUFS).
	 */
	int (*poll_tx)(struct pt_port *p, const struct pt_events *ev, void *ctx);
	/* Deliver everything pending: send completions, then received probes (non-blocking). */
	int (*poll)(struct pt_port *p, const struct pt_events *ev, void *ctx);
	/*
	 * Resolve what sending to dst needs (verbs: the address handle, whose
	 * creation waits for the kernel's route and ARP), so the first probe is
	 * not held up in send() past its own timeout.  NULL: nothing to do.
	 */
	int (*prepare)(struct pt_port *p, const struct pt_dst *dst);
	/* The UDP source port send() would use for sport (NULL: sport itself). */
	uint16_t (*wire_sport)(struct pt_port *p, uint16_t sport);
	/*
	 * Packets the receive path dropped because it was full, since open
	 * (udp: the socket's SO_RXQ_OVFL count).  Probes lost there are the
	 * agent's, not the network's.  NULL: the transport cannot tell.
	 */
	uint32_t (*rx_overflow)(struct pt_port *p);
	/* The QPN probes to this port must carry. */
	uint32_t (*qpn)(struct pt_port *p);
	/* One line on what the port is (device, QPN, timestamps), for logs. */
	const char *(*describe)(struct pt_port *p, char *buf, size_t len);
};

extern const struct pt_ops pt_udp_ops;
extern const struct pt_ops pt_verbs_ops;
/*
 * "auto": no transport of its own, a choice an agent makes at start with
 * pt_resolve(): verbs where the host's RNIC has an RDMA device, udp where it
 * has none (a lab whose hosts differ, as the Soft-RoCE VM's).
 */
extern const struct pt_ops pt_auto_ops;

/*
 * The transport to use for t on host h: t itself, or for pt_auto_ops verbs
 * when a verbs port opens on h's first RNIC (it is closed again), else udp.
 * how says which and why (the verbs error when it is udp).
 */
struct inv_host;
const struct pt_ops *pt_resolve(const struct pt_ops *t, const struct inv_host *h, char *how,
				size_t howlen);

/*
 * rocelab's probe QPs: Hostmesh's are 0x100 + i, R-Pingmesh's 0x200 + i.  Is
 * qpn another monitor's than ours (both monitors run on the same RNICs)?
 */
static inline bool pt_sibling_qpn(uint32_t ours, uint32_t qpn)
{
	return qpn >> 8 != ours >> 8 && (qpn >> 8 == 1 || qpn >> 8 == 2);
}

/*
 * The udp transport's receive filter (classic BPF over the IP header, into f[PT_UDP_FILTER_LEN])
 * for probe QP qpn: IPv4 without options carrying UDP to port 4791, at most 256 bytes, and not for
 * the other monitor's QPs (pt_sibling_qpn), which would wake this agent for nothing at every probe
 * of theirs.  What it passes the transport still parses: anything short or foreign is counted
 * there.
 */
#define PT_UDP_FILTER_LEN 16
struct sock_filter;
void pt_udp_filter(struct sock_filter *f, uint32_t qpn);

/*
 * The configuration of a port on inventory RNIC r (its netdev, verbs device, address, subnet and
 * GID index), every probe and packet sent with tos; the caller sets the rest.
 */
struct inv_rnic;
struct pt_cfg pt_rnic_cfg(const struct inv_rnic *r, uint8_t tos);

/* The names of all transports, for messages: "udp, verbs, auto". */
const char *pt_names(void);

/*
 * An RNIC's free-running completion clock mapped to CLOCK_REALTIME:
 * ns = base_ns + ((ticks - base_ticks) & mask) / khz * 1e6.  The base moves
 * forward once a quarter of the counter's range has passed, so a wrap of the
 * counter is always one step (verbs transport with completion timestamps).
 */
struct pt_hwclock {
	uint64_t mask, khz, base_ticks, base_ns;
};
uint64_t pt_hwclock_ns(struct pt_hwclock *c, uint64_t ticks);

/*
 * The verbs device for cfg's RNIC (rdma-core, loaded on first use): cfg->ibdev by name, else the
 * one with a RoCEv2 GID of cfg->addr on cfg->netdev; its GID index and port into *gid and *port
 * (cfg->gid_index >= 0: that entry, which must be it).  NULL with *ret -errno and why in err.
 */
struct ibv_context;
struct ibv_context *pt_verbs_open_device(const struct pt_cfg *cfg, int *gid, uint8_t *port,
					 char *err, size_t errlen, int *ret);

/* rxe sends a QP's packets from UDP port 0xC000 + hash_32(QPN, 14); this computes it. */
uint16_t pt_rxe_sport(uint32_t qpn);

/* The transport called name ("udp", "verbs", "auto"), or NULL. */
const struct pt_ops *pt_find(const char *name);

/* An option table's transport (OPT_CUSTOM parse and print of a const struct pt_ops *). */
struct opt_desc;
int pt_opt_parse(const struct opt_desc *d, const char *v, void *field, char *err, size_t errlen);
const char *pt_opt_print(const void *field, char *buf, size_t len);

#endif
