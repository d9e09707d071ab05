// SPDX-License-Identifier: MIT
/* RC WRITE load over rdma-core: the exchange, the receiver and the senders (rcload.h). */
#define _GNU_SOURCE
#include "transport/dp/rcload.h"

#include "harness/lib/common.h"
#include "probe/verbs_dl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_ 160 /* the longest line of the exchange, and more */
#define CQ_DEPTH  512
#define DEPTH_DEF 64

/* ---- the exchange -------------------------------------------------------------------- */

#define MAGIC "rocelab-rc 1"

int rcl_format(const struct rcl_msg *m, bool reply, char *buf, size_t len)
{
	if (reply)
		return snprintf(buf, len, MAGIC " qpn=%u psn=%u mtu=%u rkey=%u addr=%llu len=%u\n",
				m->qpn, m->psn, m->mtu, m->rkey, (unsigned long long)m->addr,
				m->len);
	return snprintf(buf, len, MAGIC " qpn=%u psn=%u mtu=%u\n", m->qpn, m->psn, m->mtu);
}

/* " NAME=DIGITS" at *s, at most max: 0 and *s past it, or -EINVAL. */
static int field(const char **s, const char *name, unsigned long long max, unsigned long long *v)
{
	const char *p = *s;
	size_t n = strlen(name), digits = 0;

	if (*p++ != ' ' || strncmp(p, name, n) || p[n] != '=')
		return -EINVAL;
	p += n + 1;
	*v = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits == 20 || *v > (max - (unsigned)(*p - '0')) / 10)
			return -EINVAL;
		*v = *v * 10 + (unsigned)(*p - '0');
	}
	if (!digits || (*p && *p != ' ' && *p != '\n'))
		return -EINVAL;
	*s = p;
	return 0;
}

int rcl_parse(const char *line, bool reply, struct rcl_msg *m, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		unsigned long long max;
	} want[] = {{"qpn", 0xffffff},	  {"psn", 0xffffff},	{"mtu", 4096},
		    {"rkey", UINT32_MAX}, {"addr", UINT64_MAX}, {"len", RCL_SIZE_MAX}};
	unsigned long long v[6] = {0};
	size_t n = reply ? 6 : 3, i;
	const char *s = line;

	memset(m, 0, sizeof(*m));
	if (strncmp(s, MAGIC, strlen(MAGIC)))
		return rl_fail(err, errlen, EINVAL,
			       "not a rocelab RC exchange line (want '%s ...')", MAGIC);
	s += strlen(MAGIC);
	for (i = 0; i < n; i++)
		if (field(&s, want[i].name, want[i].max, &v[i]))
			return rl_fail(err, errlen, EINVAL,
				       "field %zu: want ' %s=N' with N from 0 to %llu", i + 1,
				       want[i].name, want[i].max);
	if (*s == '\n')
		s++;
	if (*s)
		return rl_fail(err, errlen, EINVAL, "more after the %zu fields of the line", n);
	m->qpn = (uint32_t)v[0], m->psn = (uint32_t)v[1], m->mtu = (unsigned)v[2];
	m->rkey = (uint32_t)v[3], m->addr = v[4], m->len = (uint32_t)v[5];
	if (m->mtu != 256 && m->mtu != 512 && m->mtu != 1024 && m->mtu != 2048 && m->mtu != 4096)
		return rl_fail(err, errlen, EINVAL, "mtu=%u is not an RDMA path MTU (256 to 4096)",
			       m->mtu);
	if (reply && !m->len)
		return rl_fail(err, errlen, EINVAL, "len=0: the receiver has no buffer");
	return 0;
}

static enum ibv_mtu mtu_enum(unsigned bytes)
{
	return bytes >= 4096   ? IBV_MTU_4096
	       : bytes >= 2048 ? IBV_MTU_2048
	       : bytes >= 1024 ? IBV_MTU_1024
	       : bytes >= 512  ? IBV_MTU_512
			       : IBV_MTU_256;
}

static unsigned mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;
}

/* A line of at most LINE_MAX_ - 1 bytes from fd, its newline kept, within timeout_ms. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t n = 0;
	unsigned long long end = rl_now_ns() + (unsigned long long)timeout_ms * 1000000ULL;

	while (n + 1 < len) {
		struct pollfd p = {fd, POLLIN, 0};
		long long left = (long long)(end - rl_now_ns()) / 1000000;
		ssize_t r;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		r = read(fd, buf + n, 1); /* one at a time: nothing of what follows is taken */
		if (r <= 0)
			return r == 0 ? -ECONNRESET : -errno;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return n && buf[n - 1] == '\n' ? (int)n : -EMSGSIZE;
}

/* ---- an RNIC's verbs objects --------------------------------------------------------- */

struct ep {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	void *buf;
	size_t len;
	int gid;
	uint8_t port;
	enum ibv_mtu mtu;
	char name[48];
};

static void ep_close(struct ep *e)
{
	if (e->mr)
		ibv_dereg_mr(e->mr);
	free(e->buf);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	memset(e, 0, sizeof(*e));
}

static int ep_open(struct ep *e, const struct pt_cfg *cfg, size_t len, int access, char *err,
		   size_t errlen)
{
	struct ibv_port_attr pa;
	int r;

	memset(e, 0, sizeof(*e));
	if (!(e->ctx = pt_verbs_open_device(cfg, &e->gid, &e->port, err, errlen, &r)))
		return r;
	snprintf(e->name, sizeof(e->name), "%s (%s)", ibv_get_device_name(e->ctx->device),
		 cfg->netdev ? cfg->netdev : "?");
	if ((r = ibv_query_port(e->ctx, e->port, &pa))) {
		r = rl_fail(err, errlen, r, "%s: query port %u: %s", e->name, e->port, strerror(r));
		goto fail;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		r = rl_fail(err, errlen, ENETDOWN, "%s: port %u is %s, not active", e->name,
			    e->port, ibv_port_state_str(pa.state));
		goto fail;
	}
	e->mtu = pa.active_mtu;
	e->len = len;
	if (!(e->pd = ibv_alloc_pd(e->ctx)) ||
	    !(e->cq = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0))) {
		r = rl_fail(err, errlen, errno, "%s: PD/CQ: %s", e->name, strerror(errno));
		goto fail;
	}
	if (!(e->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095)) ||
	    !(e->mr = ibv_reg_mr(e->pd, e->buf, len, access))) {
		r = rl_fail(err, errlen, errno ? errno : ENOMEM,
			    "%s: registering %zu bytes: %s (locked memory limit: ulimit -l)",
			    e->name, len, strerror(errno));
		goto fail;
	}
	memset(e->buf, 0x5a, len);
	return 0;
fail:
	ep_close(e);
	return r;
}

/* An RC QP on e in INIT; NULL with why in err. */
static struct ibv_qp *qp_init(struct ep *e, int depth, char *err, size_t errlen)
{
	struct ibv_qp_init_attr qa = {
	    .send_cq = e->cq,
	    .recv_cq = e->cq,
	    .qp_type = IBV_QPT_RC,
	    .cap = {.max_send_wr = (uint32_t)depth,
		    .max_recv_wr = 1,
		    .max_send_sge = 1,
		    .max_recv_sge = 1},
	};
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
				.pkey_index = 0,
				.port_num = e->port,
				.qp_access_flags = IBV_ACCESS_REMOTE_WRITE};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &qa);
	int r;

	if (!qp) {
		rl_fail(err, errlen, errno, "%s: RC QP: %s", e->name, strerror(errno));
		return NULL;
	}
	if ((r = ibv_modify_qp(
		 qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))) {
		rl_fail(err, errlen, r, "%s: RC QP to INIT: %s", e->name, strerror(r));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* qp (INIT) connected to the peer at addr that said m: RTR, then RTS from psn. */
static int qp_connect(struct ep *e, struct ibv_qp *qp, struct in_addr addr, const struct rcl_msg *m,
		      uint32_t psn, uint8_t tos, int timeout, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
	    .qp_state = IBV_QPS_RTR,
	    .path_mtu = mtu_enum(m->mtu) < e->mtu ? mtu_enum(m->mtu) : e->mtu,
	    .dest_qp_num = m->qpn,
	    .rq_psn = m->psn,
	    .max_dest_rd_atomic = 1,
	    .min_rnr_timer = 12,
	    .ah_attr = {.is_global = 1,
			.port_num = e->port,
			.grh = {.sgid_index = (uint8_t)e->gid,
				.hop_limit = 64,
				.traffic_class = tos}},
	};
	int r;

	a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
	memcpy(a.ah_attr.grh.dgid.raw + 12, &addr, 4);
	if ((r = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER)))
		return rl_fail(err, errlen, r, "%s: RC QP to RTR toward %s: %s", e->name,
			       inet_ntoa(addr), strerror(r));
	/* the ACK timeout (rcload.h: RCL_TIMEOUT), 7 retries as ibv_rc_pingpong and NCCL */
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS,
				 .timeout = (uint8_t)(timeout > 0 ? timeout : RCL_TIMEOUT),
				 .retry_cnt = 7,
				 .rnr_retry = 7,
				 .sq_psn = psn,
				 .max_rd_atomic = 1};
	if ((r = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)))
		return rl_fail(err, errlen, r, "%s: RC QP to RTS: %s", e->name, strerror(r));
	return 0;
}

static uint32_t new_psn(void)
{
	return (uint32_t)((rl_now_ns() ^ (unsigned long long)getpid() << 12) & 0xffffff);
}

/* ---- the receiver -------------------------------------------------------------------- */

struct peer {
	int fd;
	struct in_addr addr;
	struct ibv_qp *qp;
	char line[LINE_MAX_];
	size_t n;
};

static void peer_drop(struct peer *p)
{
	if (p->qp)
		ibv_destroy_qp(p->qp);
	if (p->fd >= 0)
		close(p->fd);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/* A peer's line is complete in p->line: its QP, connected, and the reply.  0 or -errno. */
static int peer_answer(const struct rcl_serve_cfg *c, struct ep *e, struct peer *p)
{
	struct rcl_msg m, me;
	char err[200], out[LINE_MAX_];
	uint32_t psn = new_psn();
	int n;

	if (rcl_parse(p->line, false, &m, err, sizeof(err))) {
		rl_warn("rc load: %s: %s", inet_ntoa(p->addr), err);
		return -EINVAL;
	}
	if (!(p->qp = qp_init(e, 1, err, sizeof(err))) ||
	    qp_connect(e, p->qp, p->addr, &m, psn, c->rnic.tos, c->timeout, err, sizeof(err))) {
		rl_warn("rc load: %s", err);
		return -EIO;
	}
	me = (struct rcl_msg){.qpn = p->qp->qp_num,
			      .psn = psn,
			      .mtu = mtu_bytes(e->mtu),
			      .rkey = e->mr->rkey,
			      .addr = (uintptr_t)e->buf,
			      .len = (uint32_t)e->len};
	n = rcl_format(&me, true, out, sizeof(out));
	if (write(p->fd, out, (size_t)n) != n)
		return -EIO;
	rl_info("rc load: serving %s (its QPN %u) on QPN %u", inet_ntoa(p->addr), m.qpn,
		p->qp->qp_num);
	return 0;
}

int rcl_serve(const struct rcl_serve_cfg *c, char *err, size_t errlen)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(c->port ? c->port : RCL_PORT),
				 .sin_addr = c->rnic.addr};
	struct peer peers[RCL_FLOWS];
	struct pollfd pf[RCL_FLOWS + 1];
	unsigned long long end = rl_now_ns() + (unsigned long long)c->ms * 1000000ULL;
	struct ep e;
	int lfd, one = 1, served = 0, r;

	if ((r = ep_open(&e, &c->rnic, RCL_SIZE_MAX,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, err, errlen)))
		return r;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, RCL_FLOWS)) {
		r = rl_fail(err, errlen, errno, "rc load: listening on %s:%u: %s",
			    inet_ntoa(c->rnic.addr), ntohs(sa.sin_port), strerror(errno));
		if (lfd >= 0)
			close(lfd);
		ep_close(&e);
		return r;
	}
	for (size_t i = 0; i < RCL_FLOWS; i++)
		peers[i] = (struct peer){.fd = -1};
	rl_info("rc load: %s receives RC WRITEs, the exchange on TCP %s:%u", e.name,
		inet_ntoa(c->rnic.addr), ntohs(sa.sin_port));
	while (!rl_interrupted && rl_now_ns() < end) {
		size_t np = 0;

		pf[np++] = (struct pollfd){lfd, POLLIN, 0};
		for (size_t i = 0; i < RCL_FLOWS; i++)
			pf[np++] = (struct pollfd){peers[i].fd, POLLIN, 0}; /* -1: ignored */
		if (poll(pf, np, 100) <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			int fd = accept4(lfd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
			size_t i;

			for (i = 0; fd >= 0 && i < RCL_FLOWS && peers[i].fd >= 0; i++)
				;
			if (fd >= 0 && (i == RCL_FLOWS ||
					(c->peer_ok && !c->peer_ok(from.sin_addr, c->ctx)))) {
				rl_warn("rc load: %s refused (%s)", inet_ntoa(from.sin_addr),
					i == RCL_FLOWS ? "all its QPs are taken"
						       : "not an RNIC of the lab");
				close(fd);
			} else if (fd >= 0) {
				peers[i] = (struct peer){.fd = fd, .addr = from.sin_addr};
			}
		}
		for (size_t i = 0; i < RCL_FLOWS; i++) {
			struct peer *p = &peers[i];
			ssize_t got;

			if (p->fd < 0 || !(pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (p->qp) { /* connected: the sender's end closing is the end */
				char b[64];

				if (read(p->fd, b, sizeof(b)) <= 0)
					peer_drop(p);
				continue;
			}
			got = read(p->fd, p->line + p->n, 1);
			if (got <= 0 || (p->line[p->n++] != '\n' && p->n + 1 >= sizeof(p->line))) {
				if (got > 0)
					rl_warn("rc load: %s: a line longer than %zu bytes",
						inet_ntoa(p->addr), sizeof(p->line) - 1);
				peer_drop(p);
				continue;
			}
			if (p->line[p->n - 1] != '\n')
				continue;
			p->line[p->n] = '\0';
			if (peer_answer(c, &e, p))
				peer_drop(p);
			else
				served++;
		}
	}
	for (size_t i = 0; i < RCL_FLOWS; i++)
		if (peers[i].fd >= 0)
			peer_drop(&peers[i]);
	close(lfd);
	ep_close(&e);
	return served;
}

/* ---- the senders --------------------------------------------------------------------- */

struct sflow {
	struct ep e;
	struct ibv_qp *qp;
	int fd; /* the exchange's connection, open while the flow runs */
	struct rcl_msg peer;
	unsigned long long next_ns, done, refused;
	int out;
	bool dead;
};

/*
 * A TCP connection from src to dst:port, retried while refused (the receiver starting) for at
 * most 5 s, and never longer than the load is to run (ms).
 */
static int exchange_connect(struct in_addr src, struct in_addr dst, uint16_t port, long long ms,
			    char *err, size_t errlen)
{
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr = src};
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = dst};
	unsigned long long end =
	    rl_now_ns() + (unsigned long long)(ms < 5000 ? ms : 5000) * 1000000ULL;
	char d[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &dst, d, sizeof(d));
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), e;

		if (fd < 0)
			return rl_fail(err, errlen, errno, "rc load: socket: %s", strerror(errno));
		if (!bind(fd, (struct sockaddr *)&me, sizeof(me)) &&
		    !connect(fd, (struct sockaddr *)&to, sizeof(to)))
			return fd;
		e = errno;
		close(fd);
		if (e != ECONNREFUSED || rl_now_ns() > end || rl_interrupted)
			return rl_fail(err, errlen, e,
				       "rc load: the exchange with %s:%u from %s: %s (is 'rocelab "
				       "load rc --serve' running there?)",
				       d, port, inet_ntoa(src), strerror(e));
		usleep(50000);
	}
}

static int flow_open(const struct rcl_send_cfg *c, const struct rcl_flow *f, struct sflow *s,
		     char *err, size_t errlen)
{
	int depth = c->depth > 0 ? c->depth : DEPTH_DEF;
	uint16_t port = c->port ? c->port : RCL_PORT;
	struct rcl_msg me;
	char line[LINE_MAX_], why[200];
	uint32_t psn = new_psn();
	int r, n;

	s->fd = -1;
	if ((r = ep_open(&s->e, &f->src, (size_t)c->size, IBV_ACCESS_LOCAL_WRITE, err, errlen)))
		return r;
	if (!(s->qp = qp_init(&s->e, depth, err, errlen)))
		return -EIO;
	if ((s->fd = exchange_connect(f->src.addr, f->dst, port, c->ms, err, errlen)) < 0)
		return s->fd;
	me = (struct rcl_msg){.qpn = s->qp->qp_num, .psn = psn, .mtu = mtu_bytes(s->e.mtu)};
	n = rcl_format(&me, false, line, sizeof(line));
	if (write(s->fd, line, (size_t)n) != n)
		return rl_fail(err, errlen, errno, "rc load: the exchange with %s: %s",
			       inet_ntoa(f->dst), strerror(errno));
	if ((r = read_line(s->fd, line, sizeof(line), 5000)) < 0)
		return rl_fail(err, errlen, -r, "rc load: no answer from %s: %s", inet_ntoa(f->dst),
			       strerror(-r));
	if (rcl_parse(line, true, &s->peer, why, sizeof(why)))
		return rl_fail(err, errlen, EPROTO, "rc load: %s answered: %s", inet_ntoa(f->dst),
			       why);
	if ((int)s->peer.len < c->size)
		return rl_fail(err, errlen, EPROTO,
			       "rc load: %s takes WRITEs of %u bytes at most, not %d",
			       inet_ntoa(f->dst), s->peer.len, c->size);
	return qp_connect(&s->e, s->qp, f->dst, &s->peer, psn, c->tos, c->timeout, err, errlen);
}

static void flow_close(struct sflow *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->fd >= 0)
		close(s->fd);
	ep_close(&s->e);
}

static int post_write(const struct rcl_send_cfg *c, struct sflow *s, uint64_t id)
{
	struct ibv_sge sge = {(uintptr_t)s->e.buf, (uint32_t)c->size, s->e.mr->lkey};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED,
				 .wr.rdma = {.remote_addr = s->peer.addr, .rkey = s->peer.rkey}},
			   *bad;

	return ibv_post_send(s->qp, &wr, &bad);
}

static void progress(const struct rcl_send_cfg *c, size_t i, const struct sflow *s)
{
	struct timespec ts;

	if (c->progress_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	dprintf(c->progress_fd, "sent %zu %lld.%03ld %llu %llu\n", i, (long long)ts.tv_sec,
		ts.tv_nsec / 1000000, s->done, s->refused);
}

/* Take flow s's completions; false when one completed in error (the flow is dead). */
static bool reap(struct sflow *s, size_t i, char *err, size_t errlen)
{
	struct ibv_wc wc[32];
	int n;

	while ((n = ibv_poll_cq(s->e.cq, ARRAY_SIZE(wc), wc)) > 0)
		for (int k = 0; k < n; k++) {
			s->out--;
			if (wc[k].status == IBV_WC_SUCCESS) {
				s->done++;
				continue;
			}
			if (!s->dead)
				rl_fail(err, errlen, EIO,
					"rc load: flow %zu (%s): a WRITE completed %s", i,
					s->e.name, ibv_wc_status_str(wc[k].status));
			s->dead = true;
		}
	return !s->dead;
}

long long rcl_send(const struct rcl_send_cfg *c, char *err, size_t errlen)
{
	struct sflow *s = rl_xcalloc(c->n ? c->n : 1, sizeof(*s));
	unsigned long long interval = c->pps ? 1000000000ULL / c->pps : 0, now, end, next_progress;
	int depth = c->depth > 0 ? c->depth : DEPTH_DEF;
	long long total = 0;
	int r = 0;
	bool failed = false;

	if (c->size < 1 || c->size > RCL_SIZE_MAX || !c->n || c->n > RCL_FLOWS) {
		free(s);
		return rl_fail(err, errlen, EINVAL, "rc load: %zu flows of %d-byte WRITEs", c->n,
			       c->size);
	}
	for (size_t i = 0; i < c->n; i++)
		s[i].fd = -1;
	for (size_t i = 0; i < c->n && !r; i++)
		r = flow_open(c, &c->flows[i], &s[i], err, errlen);
	if (r)
		goto out;
	now = rl_now_ns();
	end = now + (unsigned long long)c->ms * 1000000ULL;
	next_progress = now;
	for (size_t i = 0; i < c->n; i++)
		s[i].next_ns = now + (interval ? interval * i / c->n : 0); /* spread */
	while (!rl_interrupted && (now = rl_now_ns()) < end) {
		unsigned long long wake = now + 1000000ULL; /* at most 1 ms asleep */
		bool alive = false;

		for (size_t i = 0; i < c->n; i++) {
			struct sflow *f = &s[i];

			if (!reap(f, i, err, errlen))
				failed = true;
			if (f->dead)
				continue;
			alive = true;
			/* what was due: posted while there is room, refused when not */
			while (f->next_ns <= now) {
				bool room = f->out < depth && !post_write(c, f, i);

				if (room)
					f->out++;
				if (!interval) { /* as fast as it goes: until the queue is full */
					if (!room)
						break;
					continue;
				}
				if (!room)
					f->refused++;
				f->next_ns += interval;
			}
			if (interval && f->next_ns < wake)
				wake = f->next_ns;
			else if (!interval)
				wake = now + 50000ULL;
		}
		if (!alive)
			break;
		if (now >= next_progress) {
			for (size_t i = 0; i < c->n; i++)
				progress(c, i, &s[i]);
			next_progress += 100000000ULL;
		}
		if (next_progress < wake)
			wake = next_progress;
		if (wake > now) {
			struct timespec ts = {(time_t)((wake - now) / 1000000000ULL),
					      (long)((wake - now) % 1000000000ULL)};

			nanosleep(&ts, NULL);
		}
	}
	/* what is in flight completes (or not) within a second */
	for (unsigned long long stop = rl_now_ns() + 1000000000ULL; rl_now_ns() < stop;) {
		bool any = false;

		for (size_t i = 0; i < c->n; i++) {
			if (!reap(&s[i], i, err, errlen))
				failed = true;
			any |= s[i].out > 0 && !s[i].dead;
		}
		if (!any)
			break;
		usleep(1000);
	}
	for (size_t i = 0; i < c->n; i++) {
		progress(c, i, &s[i]);
		total += (long long)s[i].done;
	}
out:
	for (size_t i = 0; i < c->n; i++)
		flow_close(&s[i]);
	free(s);
	if (r)
		return r;
	return failed ? -EIO : total;
}
