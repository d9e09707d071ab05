// SPDX-License-Identifier: MIT
/*
 * The verbs probe transport: real RoCEv2 UD SENDs through rdma-core on the
 * RNIC (or Soft-RoCE, rxe).  Per port: the ibverbs device of the RNIC (named
 * by the inventory's ibdev, else the one whose GID table has the netdev), a
 * PD, one CQ with a completion channel, UD QPs and one registered buffer.
 *
 * GID: the RoCEv2 entry holding the RNIC's IPv4 address (::ffff:a.b.c.d) is
 * looked up in the GID table; an inventory gid_index is checked against it.
 *
 * Source ports.  mlx5 derives a UD packet's UDP source port from the AH flow
 * label, so one QP serves every source port with one AH per flow label.  rxe
 * (and any device not known to do that) sends every packet of a QP from one
 * port, 0xC000 + hash(QPN); there the port keeps a pool of UD QPs and maps
 * each requested source port onto one QP, reporting the port really used.
 *
 * Timestamps.  When the device reports hca_core_clock and a completion
 * timestamp mask, the CQ is created with completion timestamps and ticks are
 * converted to CLOCK_REALTIME ns (wrap handled with the mask); otherwise the
 * send time is the post time and the receive time the poll time, both
 * clock_gettime, and labelled as such.
 *
 * Received probes: the first 40 bytes of a UD receive are the GRH area; for
 * RoCEv2 over IPv4 its last 20 are the IPv4 header (TOS/ECN, ID, TTL).
 */
#define _GNU_SOURCE
#include "probe/ptrans.h"

#include "harness/lib/common.h"
#include "probe/roce.h"
#include "probe/verbs_dl.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSG_MAX	   256		 /* largest probe payload */
#define RECV_N	   256		 /* receive buffers posted on the probe QP */
#define SEND_N	   128		 /* sends outstanding per port */
#define QP_MAX	   64		 /* rxe: QPs in the source port pool */
#define AH_N	   256		 /* cached address handles */
#define AH_TTL_NS  1000000000ULL /* re-resolve an AH (route, neighbour) this often */
#define MLX_VENDOR 0x02c9
#define RXE_VENDOR 0xffffff

struct ah_ent {
	struct ibv_ah *ah;
	uint32_t dst;
	uint16_t flow; /* flow label (flow-label mode), 0 otherwise */
	uint8_t ttl;
	unsigned long long born, used;
};

struct qp_ent {
	struct ibv_qp *qp;
	uint16_t sport; /* the UDP source port its packets carry */
	uint16_t owner; /* requested source port mapped onto it, 0: none */
	unsigned long long used;
	int inflight;
};

struct tx_slot {
	bool used;
	uint8_t qp;
	uint64_t cookie;
};

struct pt_port {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;      /* send and receive completions, one channel */
	struct ibv_cq_ex *scqx, *rcqx; /* the same, with completion timestamps, else NULL */
	struct ibv_mr *mr;
	uint8_t *buf; /* RECV_N receive slots, then SEND_N send slots */
	struct qp_ent qps[QP_MAX];
	int n_qp;
	/*
	 * The receive buffers, shared by every QP of the pool: an answer comes
	 * back to the QP that sent the probe (R-Pingmesh's ACKs to the probe's
	 * source QPN), and on rxe that is any of them.  NULL (no SRQ on the
	 * device): receives on the first QP only.
	 */
	struct ibv_srq *srq;
	bool flow_label; /* the device takes the source port from the AH flow label */
	bool rxe;
	struct ah_ent ahs[AH_N];
	struct tx_slot tx[SEND_N];
	unsigned tx_next;
	uint8_t port_num;
	int gid_index;
	struct in_addr addr;
	uint8_t tos;
	uint32_t qkey;
	unsigned max_inline;
	struct pt_hwclock clk; /* completion timestamps; clk.khz 0: software */
	char name[64];
};

/* rxe: the source port of a QP's packets (kernel: RXE_ROCE_V2_SPORT + hash_32(qpn, 14)). */
uint16_t pt_rxe_sport(uint32_t qpn)
{
	return (uint16_t)(0xc000 + ((qpn * 0x61c88647u) >> 18));
}

static void ipv4_gid(union ibv_gid *g, struct in_addr a)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = g->raw[11] = 0xff;
	memcpy(g->raw + 12, &a, 4);
}

static const char *gid_str(const union ibv_gid *g, char *buf, size_t len)
{
	return inet_ntop(AF_INET6, g->raw, buf, (socklen_t)len) ? buf : "?";
}

static const char *gid_type_name(uint32_t t)
{
	return t == IBV_GID_TYPE_ROCE_V2 ? "RoCEv2" : t == IBV_GID_TYPE_ROCE_V1 ? "RoCEv1" : "IB";
}

/*
 * Find the GID for cfg->addr on ctx: RoCEv2 type, ::ffff:addr, on the RNIC's
 * netdev.  With want >= 0, that entry must be it.  Returns the index or -errno.
 */
static int find_gid(struct ibv_context *ctx, const struct pt_cfg *cfg, int want, uint8_t *port,
		    char *err, size_t errlen)
{
	struct ibv_gid_entry ents[256];
	union ibv_gid g;
	unsigned ifindex = cfg->netdev && *cfg->netdev ? if_nametoindex(cfg->netdev) : 0;
	const char *dev = ibv_get_device_name(ctx->device);
	ssize_t n = ibv_query_gid_table(ctx, ents, ARRAY_SIZE(ents), 0);
	char a[64];

	ipv4_gid(&g, cfg->addr);
	if (n < 0)
		return rl_fail(err, errlen, (int)-n, "%s: cannot read the GID table: %s", dev,
			       strerror((int)-n));
	for (ssize_t i = 0; i < n; i++) {
		const struct ibv_gid_entry *e = &ents[i];
		bool match = e->gid_type == IBV_GID_TYPE_ROCE_V2 &&
			     !memcmp(e->gid.raw, g.raw, sizeof(g.raw)) &&
			     (!ifindex || e->ndev_ifindex == ifindex);

		if (want >= 0 && (int)e->gid_index == want) {
			if (!match)
				return rl_fail(
				    err, errlen, EINVAL,
				    "%s: gid_index %d is %s %s (netdev ifindex %u), not "
				    "RoCEv2 %s on %s: remove gid_index from the inventory "
				    "to find it, or fix it (ibv_devinfo -v lists the table)",
				    dev, want, gid_type_name(e->gid_type),
				    gid_str(&e->gid, a, sizeof(a)), e->ndev_ifindex,
				    gid_str(&g, a + 32, 32), cfg->netdev);
			*port = (uint8_t)e->port_num;
			return want;
		}
		if (want < 0 && match) {
			*port = (uint8_t)e->port_num;
			return (int)e->gid_index;
		}
	}
	if (want >= 0)
		return rl_fail(err, errlen, ENOENT, "%s: gid_index %d is not in the GID table", dev,
			       want);
	return rl_fail(err, errlen, ENOENT,
		       "%s: no RoCEv2 GID %s on %s (is the address on the netdev and RoCEv2 "
		       "enabled? 'ibv_devinfo -v' lists the GID table)",
		       dev, gid_str(&g, a, sizeof(a)), cfg->netdev ? cfg->netdev : "?");
}

struct ibv_context *pt_verbs_open_device(const struct pt_cfg *cfg, int *gid, uint8_t *port,
					 char *err, size_t errlen, int *ret)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;
	bool named = cfg->ibdev && *cfg->ibdev;

	*ret = 0;
	if (!list && verbs_dl_error()) {
		*ret = rl_fail(err, errlen, ENOSYS, "no verbs: %s", verbs_dl_error());
		goto out;
	}
	if (!list || n == 0) {
		*ret =
		    rl_fail(err, errlen, ENODEV,
			    "no RDMA devices (load the RNIC driver, or for Soft-RoCE: 'rdma link "
			    "add rxe0 type rxe netdev %s')",
			    cfg->netdev ? cfg->netdev : "DEV");
		goto out;
	}
	for (int i = 0; i < n && !ctx; i++) {
		const char *name = ibv_get_device_name(list[i]);
		char e2[256];

		if (named && strcmp(name, cfg->ibdev))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			if (named)
				*ret = rl_fail(err, errlen, errno, "cannot open RDMA device %s: %s",
					       name, strerror(errno));
			continue;
		}
		*gid = find_gid(ctx, cfg, named ? cfg->gid_index : -1, port, named ? err : e2,
				named ? errlen : sizeof(e2));
		if (*gid < 0) {
			if (named)
				*ret = *gid;
			ibv_close_device(ctx);
			ctx = NULL;
		}
	}
	if (!ctx && !*ret) {
		if (named) {
			*ret = rl_fail(err, errlen, ENODEV,
				       "no RDMA device '%s' (ibv_devices lists "
				       "them)",
				       cfg->ibdev);
		} else {
			*ret = rl_fail(err, errlen, ENODEV,
				       "no RDMA device has a RoCEv2 GID for %s on netdev %s "
				       "(ibv_devices lists devices; name one with 'ibdev' in the "
				       "inventory)",
				       inet_ntoa(cfg->addr), cfg->netdev);
		}
	}
	if (ctx && !named && cfg->gid_index >= 0) {
		/* matched by netdev: an inventory gid_index must agree */
		int g = find_gid(ctx, cfg, cfg->gid_index, port, err, errlen);

		if (g < 0) {
			*ret = g;
			ibv_close_device(ctx);
			ctx = NULL;
		} else {
			*gid = g;
		}
	}
out:
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static int qp_up(struct pt_port *p, struct ibv_qp *qp, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
	    .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = p->port_num, .qkey = p->qkey};
	int r;

	if ((r = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)))
		return rl_fail(err, errlen, r, "%s: UD QP to INIT: %s", p->name, strerror(r));
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR};
	if ((r = ibv_modify_qp(qp, &a, IBV_QP_STATE)))
		return rl_fail(err, errlen, r, "%s: UD QP to RTR: %s", p->name, strerror(r));
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .sq_psn = (uint32_t)random() & 0xffffff};
	if ((r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)))
		return rl_fail(err, errlen, r, "%s: UD QP to RTS: %s", p->name, strerror(r));
	return 0;
}

static uint8_t *recv_buf(struct pt_port *p, unsigned i)
{
	return p->buf + (size_t)i * (PT_GRH_LEN + MSG_MAX);
}

static uint8_t *send_buf(struct pt_port *p, unsigned i)
{
	return p->buf + (size_t)RECV_N * (PT_GRH_LEN + MSG_MAX) + (size_t)i * MSG_MAX;
}

static int post_recv(struct pt_port *p, unsigned i)
{
	struct ibv_sge sge = {(uintptr_t)recv_buf(p, i), PT_GRH_LEN + MSG_MAX, p->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad;

	if (p->srq)
		return -ibv_post_srq_recv(p->srq, &wr, &bad);
	return -ibv_post_recv(p->qps[0].qp, &wr, &bad);
}

static void verbs_close(struct pt_port *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < AH_N; i++)
		if (p->ahs[i].ah)
			ibv_destroy_ah(p->ahs[i].ah);
	for (int i = p->n_qp - 1; i >= 0; i--)
		if (p->qps[i].qp)
			ibv_destroy_qp(p->qps[i].qp);
	if (p->srq)
		ibv_destroy_srq(p->srq);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	free(p->buf);
	if (p->rcq)
		ibv_destroy_cq(p->rcq);
	if (p->scq)
		ibv_destroy_cq(p->scq);
	if (p->ch)
		ibv_destroy_comp_channel(p->ch);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->ctx)
		ibv_close_device(p->ctx);
	free(p);
}

/* Start the completion clock when the device has one (clock and mask); else p->clk stays 0. */
static void start_hwclock(struct pt_port *p, const struct ibv_device_attr_ex *dx)
{
	struct ibv_values_ex v = {.comp_mask = IBV_VALUES_MASK_RAW_CLOCK};

	if (!dx->hca_core_clock || !dx->completion_timestamp_mask ||
	    getenv("ROCELAB_VERBS_SW_TS") || ibv_query_rt_values_ex(p->ctx, &v))
		return;
	p->clk.mask = dx->completion_timestamp_mask;
	p->clk.khz = dx->hca_core_clock;
	p->clk.base_ns = rl_realtime_ns();
	/* raw cycles come in tv_nsec (tv_sec is 0 on mlx5) */
	p->clk.base_ticks =
	    (uint64_t)v.raw_clock.tv_sec * 1000000000ULL + (uint64_t)v.raw_clock.tv_nsec;
}

/*
 * A CQ with completion timestamps while the clock runs, else a plain one,
 * on channel ch (NULL: never wakes anyone); 0 or -errno.
 */
static int make_cq(struct pt_port *p, int cqe, struct ibv_comp_channel *ch, struct ibv_cq **cq,
		   struct ibv_cq_ex **cqx)
{
	*cqx = NULL;
	if (p->clk.khz) {
		struct ibv_cq_init_attr_ex ca = {
		    .cqe = (uint32_t)cqe,
		    .channel = ch,
		    .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | IBV_WC_EX_WITH_BYTE_LEN |
				IBV_WC_EX_WITH_SRC_QP,
		};

		if ((*cqx = ibv_create_cq_ex(p->ctx, &ca))) {
			*cq = ibv_cq_ex_to_cq(*cqx);
			return 0;
		}
		if (p->scq) /* the send CQ has timestamps: both or neither */
			return -ENOTSUP;
		memset(&p->clk, 0, sizeof(p->clk)); /* no timestamped CQ after all: software */
	}
	*cq = ibv_create_cq(p->ctx, cqe, NULL, ch, 0);
	return *cq ? 0 : -(errno ? errno : ENOMEM);
}

uint64_t pt_hwclock_ns(struct pt_hwclock *c, uint64_t ticks)
{
	uint64_t d = (ticks - c->base_ticks) & c->mask;
	uint64_t ns = d / c->khz * 1000000ULL + d % c->khz * 1000000ULL / c->khz;

	if (d > c->mask / 4) { /* rebase well before the counter wraps */
		c->base_ticks = ticks & c->mask;
		c->base_ns += ns;
		return c->base_ns;
	}
	return c->base_ns + ns;
}

static int verbs_open(const struct pt_cfg *cfg, struct pt_port **out, char *err, size_t errlen)
{
	struct pt_port *p = rl_xcalloc(1, sizeof(*p));
	struct ibv_device_attr_ex dx = {0};
	const struct ibv_device_attr *da = &dx.orig_attr;
	struct ibv_port_attr pa;
	size_t bytes = (size_t)RECV_N * (PT_GRH_LEN + MSG_MAX) + (size_t)SEND_N * MSG_MAX;
	int r, want_qps;

	p->addr = cfg->addr;
	p->tos = cfg->tos;
	p->qkey = cfg->qkey ? cfg->qkey : ROCE_DEFAULT_QKEY;
	p->ctx = pt_verbs_open_device(cfg, &p->gid_index, &p->port_num, err, errlen, &r);
	if (!p->ctx) {
		free(p);
		return r;
	}
	snprintf(p->name, sizeof(p->name), "verbs transport on %s (%s, GID %d)",
		 ibv_get_device_name(p->ctx->device), cfg->netdev ? cfg->netdev : "?",
		 p->gid_index);
	if ((r = ibv_query_device_ex(p->ctx, NULL, &dx)) ||
	    (r = ibv_query_port(p->ctx, p->port_num, &pa))) {
		r = rl_fail(err, errlen, r, "%s: query device/port: %s", p->name, strerror(r));
		goto fail;
	}
	if (pa.state != IBV_PORT_ACTIVE)
		rl_warn("%s: port %u is %s (probes may fail until it is active)", p->name,
			p->port_num, ibv_port_state_str(pa.state));
	p->rxe = da->vendor_id == RXE_VENDOR;
	p->flow_label = da->vendor_id == MLX_VENDOR && getenv("ROCELAB_VERBS_QP_POOL") == NULL;
	want_qps = p->flow_label ? 1 : cfg->sports > 0 ? cfg->sports : 16;
	if (want_qps > QP_MAX)
		want_qps = QP_MAX;
	if (want_qps > da->max_qp - 1)
		want_qps = da->max_qp - 1;
	if (!(p->pd = ibv_alloc_pd(p->ctx)) || !(p->ch = ibv_create_comp_channel(p->ctx))) {
		r = rl_fail(err, errlen, errno, "%s: PD/completion channel: %s", p->name,
			    strerror(errno));
		goto fail;
	}
	if (fcntl(p->ch->fd, F_SETFL, fcntl(p->ch->fd, F_GETFL) | O_NONBLOCK) < 0) {
		r = rl_fail(err, errlen, errno, "%s: completion channel: %s", p->name,
			    strerror(errno));
		goto fail;
	}
	start_hwclock(p, &dx);
	/*
	 * Only receives wake the caller: the send CQ is on no channel.  Send
	 * completions only free slots (and carry ② when the device timestamps
	 * them), so they are taken at the next poll_tx() or poll(); a send CQ on
	 * the channel cost one more wake-up, channel read and re-arm per probe
	 * (make bench: vm_agent_cpu_verbs).
	 */
	if ((r = make_cq(p, SEND_N + 16, NULL, &p->scq, &p->scqx)) ||
	    (r = make_cq(p, RECV_N + 16, p->ch, &p->rcq, &p->rcqx))) {
		r = rl_fail(err, errlen, -r, "%s: completion queues: %s", p->name, strerror(-r));
		goto fail;
	}
	p->buf = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
	if (!p->buf || !(p->mr = ibv_reg_mr(p->pd, p->buf, bytes, IBV_ACCESS_LOCAL_WRITE))) {
		r = rl_fail(err, errlen, errno ? errno : ENOMEM,
			    "%s: registering %zu bytes: %s "
			    "(locked memory limit: ulimit -l)",
			    p->name, bytes, strerror(errno));
		goto fail;
	}
	if (want_qps > 1) {
		struct ibv_srq_init_attr sa = {.attr = {.max_wr = RECV_N, .max_sge = 1}};

		if (!(p->srq = ibv_create_srq(p->pd, &sa)))
			rl_warn("%s: no shared receive queue (%s): answers to the pool's other "
				"QPs than the first are lost",
				p->name, strerror(errno));
	}
	for (int i = 0; i < want_qps; i++) {
		struct ibv_qp_init_attr qa = {
		    .send_cq = p->scq,
		    .recv_cq = p->rcq,
		    .srq = p->srq,
		    .qp_type = IBV_QPT_UD,
		    .cap = {.max_send_wr = SEND_N,
			    .max_recv_wr = i ? 1 : RECV_N,
			    .max_send_sge = 1,
			    .max_recv_sge = 1,
			    .max_inline_data = MSG_MAX},
		};
		struct ibv_qp *qp = ibv_create_qp(p->pd, &qa);

		if (!qp && i == 0) { /* no inline data on this device */
			qa.cap.max_inline_data = 0;
			qp = ibv_create_qp(p->pd, &qa);
		}
		if (!qp) {
			if (i > 0) { /* fewer source ports than asked: say so, go on */
				rl_warn("%s: %d UD QPs (asked %d): %s", p->name, i, want_qps,
					strerror(errno));
				break;
			}
			r = rl_fail(err, errlen, errno, "%s: creating a UD QP: %s", p->name,
				    strerror(errno));
			goto fail;
		}
		p->qps[p->n_qp++].qp = qp;
		if (i == 0)
			p->max_inline = qa.cap.max_inline_data;
		if ((r = qp_up(p, qp, err, errlen)))
			goto fail;
		p->qps[i].sport = p->flow_label ? 0 : pt_rxe_sport(qp->qp_num);
	}
	for (unsigned i = 0; i < RECV_N; i++)
		if ((r = post_recv(p, i))) {
			r = rl_fail(err, errlen, -r, "%s: posting receive buffers: %s", p->name,
				    strerror(-r));
			goto fail;
		}
	if ((r = ibv_req_notify_cq(p->rcq, 0))) {
		r = rl_fail(err, errlen, r, "%s: arming the CQ: %s", p->name, strerror(r));
		goto fail;
	}
	*out = p;
	return 0;
fail:
	verbs_close(p);
	return r;
}

static int verbs_fds(struct pt_port *p, int *fds, int max)
{
	if (max < 1)
		return -ENOSPC;
	fds[0] = p->ch->fd;
	return 1;
}

/* The QP that sends from (as close as the device allows to) sport. */
static int pick_qp(struct pt_port *p, uint16_t sport)
{
	int best = 0;

	if (p->flow_label || p->n_qp == 1)
		return 0;
	for (int i = 0; i < p->n_qp; i++)
		if (p->qps[i].owner == sport)
			return i;
	/* Unmapped: take the QP unused for longest (rotated-out ports free theirs). */
	for (int i = 1; i < p->n_qp; i++)
		if (p->qps[i].used < p->qps[best].used)
			best = i;
	p->qps[best].owner = sport;
	p->qps[best].used = rl_now_ns(); /* taken now, even if only asked about (a trace) */
	return best;
}

static struct ibv_ah *get_ah(struct pt_port *p, struct in_addr dst, uint16_t flow, uint8_t ttl,
			     unsigned long long now, int *err)
{
	struct ah_ent *e = NULL, *old = &p->ahs[0];

	for (size_t i = 0; i < AH_N; i++) {
		struct ah_ent *x = &p->ahs[i];

		if (x->ah && x->dst == dst.s_addr && x->flow == flow && x->ttl == ttl) {
			e = x;
			break;
		}
		if (!x->ah || (old->ah && x->used < old->used))
			old = x;
	}
	if (e && now - e->born < AH_TTL_NS) {
		e->used = now;
		return e->ah;
	}
	if (!e)
		e = old;
	if (e->ah)
		ibv_destroy_ah(e->ah);
	memset(e, 0, sizeof(*e));
	struct ibv_ah_attr aa = {
	    .is_global = 1,
	    .port_num = p->port_num,
	    .grh = {.flow_label = flow,
		    .sgid_index = (uint8_t)p->gid_index,
		    .hop_limit = ttl,
		    .traffic_class = p->tos},
	};

	ipv4_gid(&aa.grh.dgid, dst);
	e->ah = ibv_create_ah(p->pd, &aa);
	if (!e->ah) { /* the kernel resolves the route and neighbour here */
		*err = -(errno ? errno : EHOSTUNREACH);
		return NULL;
	}
	e->dst = dst.s_addr;
	e->flow = flow;
	e->ttl = ttl;
	e->born = e->used = now;
	return e->ah;
}

static uint16_t verbs_wire_sport(struct pt_port *p, uint16_t sport);

static int verbs_prepare(struct pt_port *p, const struct pt_dst *dst)
{
	int r = 0;

	return get_ah(p, dst->addr, 0, 64, rl_now_ns(), &r) ? 0 : r;
}

static int verbs_send(struct pt_port *p, const struct pt_dst *dst, uint16_t sport, uint8_t ttl,
		      const void *payload, size_t len, uint64_t cookie, uint16_t *sport_used,
		      uint16_t *ip_id)
{
	unsigned long long now = rl_now_ns();
	uint16_t flow = p->flow_label ? (uint16_t)(sport & 0x3fff) : 0;
	int q = pick_qp(p, sport), r = 0;
	unsigned slot = SEND_N;
	struct ibv_ah *ah;

	if (len > MSG_MAX)
		return -EMSGSIZE;
	for (unsigned k = 0; k < SEND_N; k++)
		if (!p->tx[(p->tx_next + k) % SEND_N].used) {
			slot = (p->tx_next + k) % SEND_N;
			break;
		}
	if (slot == SEND_N || p->qps[q].inflight >= SEND_N - 1)
		return -ENOBUFS; /* send queue full: completions are not being polled */
	if (!(ah = get_ah(p, dst->addr, flow, ttl, now, &r)))
		return r;
	memcpy(send_buf(p, slot), payload, len);
	struct ibv_sge sge = {(uintptr_t)send_buf(p, slot), (uint32_t)len, p->mr->lkey};
	struct ibv_send_wr wr =
			       {
				   .wr_id = slot,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED |
						 (len <= p->max_inline ? IBV_SEND_INLINE : 0),
				   .wr.ud = {.ah = ah,
					     .remote_qpn = dst->qpn,
					     .remote_qkey = p->qkey},
			       },
			   *bad;

	if ((r = ibv_post_send(p->qps[q].qp, &wr, &bad)))
		return -r;
	p->tx[slot] = (struct tx_slot){.used = true, .qp = (uint8_t)q, .cookie = cookie};
	p->tx_next = slot + 1;
	p->qps[q].inflight++;
	p->qps[q].used = now;
	*sport_used = verbs_wire_sport(p, sport);
	*ip_id = 0; /* chosen by the RNIC */
	return 0;
}

int pt_grh_rx(const uint8_t *b, uint32_t byte_len, bool rxe, struct pt_rx *rx)
{
	const uint8_t *ip = b + PT_GRH_LEN - 20;

	if (byte_len < PT_GRH_LEN || (ip[0] >> 4) != 4)
		return -EPROTO; /* not RoCEv2 over IPv4 */
	rx->tos = ip[1];
	rx->ip_id = (uint16_t)(ip[4] << 8 | ip[5]);
	rx->ttl = ip[8];
	memcpy(&rx->src, ip + 12, 4);
	/* The UDP header is not in the GRH: a sender like us (rxe) used its QP's port. */
	rx->sport = rxe ? pt_rxe_sport(rx->src_qpn) : 0;
	rx->payload = b + PT_GRH_LEN;
	rx->len = byte_len - PT_GRH_LEN;
	return 0;
}

/* Received UD message in slot: GRH area, then the payload. */
static void deliver(struct pt_port *p, unsigned slot, uint32_t byte_len, uint32_t src_qp,
		    uint64_t rx_ns, enum pt_ts ts, const struct pt_events *ev, void *ctx)
{
	struct pt_rx rx = {.rx_ns = rx_ns, .rx_ts = ts, .src_qpn = src_qp};
	int r = pt_grh_rx(recv_buf(p, slot), byte_len, p->rxe, &rx);

	if (r && ev->bad)
		ev->bad(ctx, r);
	else if (!r && ev->rx)
		ev->rx(ctx, &rx);
}

static void completion(struct pt_port *p, enum ibv_wc_opcode op, enum ibv_wc_status st,
		       uint64_t wr_id, uint32_t byte_len, uint32_t src_qp, uint64_t ts_ns,
		       enum pt_ts ts, const struct pt_events *ev, void *ctx)
{
	if (!(op & IBV_WC_RECV) && st == IBV_WC_SUCCESS) {
		struct tx_slot *t = &p->tx[wr_id % SEND_N];

		if (!t->used)
			return;
		t->used = false;
		p->qps[t->qp].inflight--;
		if (ev->tx_done)
			ev->tx_done(ctx, t->cookie, ts_ns, ts);
		return;
	}
	if (st == IBV_WC_SUCCESS)
		deliver(p, (unsigned)wr_id, byte_len, src_qp, ts_ns, ts, ev, ctx);
	else if (st != IBV_WC_WR_FLUSH_ERR && ev->bad)
		ev->bad(ctx, -EIO);
	if (st != IBV_WC_WR_FLUSH_ERR && post_recv(p, (unsigned)wr_id))
		rl_warn("%s: re-posting a receive buffer failed", p->name);
}

/* An error completion has an undefined opcode: which queue it came from tells. */
static void send_error(struct pt_port *p, uint64_t wr_id, enum ibv_wc_status st,
		       const struct pt_events *ev, void *ctx)
{
	struct tx_slot *t = &p->tx[wr_id % SEND_N];

	rl_dbg("%s: send completion: %s", p->name, ibv_wc_status_str(st));
	if (!t->used)
		return;
	t->used = false;
	p->qps[t->qp].inflight--;
	/* A flushed send never went out either: the QP had failed before it. */
	if (ev->tx_failed)
		ev->tx_failed(ctx, t->cookie, -EIO);
}

/* Deliver up to 512 completions of one CQ. */
static int drain(struct pt_port *p, struct ibv_cq *cq, struct ibv_cq_ex *cqx, bool send,
		 const struct pt_events *ev, void *ctx)
{
	int n = 0;

	if (cqx) {
		struct ibv_poll_cq_attr pa = {0};
		int r = ibv_start_poll(cqx, &pa);

		if (r == ENOENT)
			return 0;
		if (r)
			return -r;
		do {
			if (send && cqx->status != IBV_WC_SUCCESS)
				send_error(p, cqx->wr_id, cqx->status, ev, ctx);
			else
				completion(p, send ? IBV_WC_SEND : IBV_WC_RECV, cqx->status,
					   cqx->wr_id, send ? 0 : ibv_wc_read_byte_len(cqx),
					   send ? 0 : ibv_wc_read_src_qp(cqx),
					   pt_hwclock_ns(&p->clk, ibv_wc_read_completion_ts(cqx)),
					   PT_TS_HW, ev, ctx);
			n++;
		} while (n < 512 && !ibv_next_poll(cqx));
		ibv_end_poll(cqx);
		return n;
	}
	for (;;) {
		struct ibv_wc wc[32];
		int k = ibv_poll_cq(cq, ARRAY_SIZE(wc), wc);
		uint64_t now = rl_realtime_ns();

		if (k < 0)
			return -EIO;
		for (int i = 0; i < k; i++)
			if (send && wc[i].status != IBV_WC_SUCCESS)
				send_error(p, wc[i].wr_id, wc[i].status, ev, ctx);
			else
				completion(p, send ? IBV_WC_SEND : IBV_WC_RECV, wc[i].status,
					   wc[i].wr_id, wc[i].byte_len, wc[i].src_qp, now,
					   PT_TS_APP, ev, ctx);
		n += k;
		if (k < (int)ARRAY_SIZE(wc) || n >= 512)
			return n;
	}
}

/* Take the channel's events (the receive CQ is its only CQ) and re-arm, then drain: nothing is
 * missed in between. */
static void rearm(struct pt_port *p)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	unsigned n = 0;

	while (ibv_get_cq_event(p->ch, &cq, &cq_ctx) == 0)
		n++;
	if (!n)
		return;
	ibv_ack_cq_events(p->rcq, n);
	ibv_req_notify_cq(p->rcq, 0);
}

static int verbs_poll_tx(struct pt_port *p, const struct pt_events *ev, void *ctx)
{
	int n = drain(p, p->scq, p->scqx, true, ev, ctx);

	return n < 0 ? n : 0;
}

static int verbs_poll(struct pt_port *p, const struct pt_events *ev, void *ctx)
{
	int n;

	rearm(p);
	if ((n = drain(p, p->scq, p->scqx, true, ev, ctx)) < 0)
		return n;
	n = drain(p, p->rcq, p->rcqx, false, ev, ctx);
	return n < 0 ? n : 0;
}

static uint16_t verbs_wire_sport(struct pt_port *p, uint16_t sport)
{
	return p->flow_label ? (uint16_t)(0xc000 | (sport & 0x3fff))
			     : p->qps[pick_qp(p, sport)].sport;
}

static uint32_t verbs_qpn(struct pt_port *p)
{
	return p->qps[0].qp->qp_num;
}

static const char *verbs_describe(struct pt_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s: QPN 0x%x, %d UD QP(s)%s, source port per %s, %s timestamps",
		 p->name, p->qps[0].qp->qp_num, p->n_qp,
		 p->srq ? " receiving on one shared queue" : "",
		 p->flow_label ? "AH flow label" : "QP",
		 p->scqx ? "hardware completion" : "software (clock_gettime)");
	return buf;
}

const struct pt_ops pt_verbs_ops = {
    .name = "verbs",
    .open = verbs_open,
    .close = verbs_close,
    .fds = verbs_fds,
    .send = verbs_send,
    .poll_tx = verbs_poll_tx,
    .poll = verbs_poll,
    .qpn = verbs_qpn,
    .wire_sport = verbs_wire_sport,
    .prepare = verbs_prepare,
    .describe = verbs_describe,
};
