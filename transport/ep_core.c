// SPDX-License-Identifier: MIT
/* What every transport endpoint has: its RNIC, datapath, loop and statistics clock (ep_core.h). */
#define _GNU_SOURCE
#include "transport/ep_core.h"

#include "harness/lib/common.h"
#include "transport/mprdma/mprdma.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* An RNIC of the inventory, named "host:rnic". */
int ep_find_rnic(const struct inventory *inv, const char *spec, const struct inv_rnic **out)
{
	struct inv_endpoint e;
	char msg[256];

	if (inventory_endpoint(inv, spec, &e, msg, sizeof(msg)) || e.kind != INV_DEV_HOST) {
		fprintf(stderr, "rocelab: transport: '%s' %s\n", spec,
			msg[0] && e.kind == INV_DEV_HOST ? msg : "is not an RNIC (give host:rnic)");
		return -ENOENT;
	}
	*out = &inv->hosts[e.dev].rnics[e.port];
	return 0;
}

static int open_port(const struct inv_rnic *r, uint32_t qpn, uint32_t span, struct dp_port **port)
{
	struct dp_cfg c = {.netdev = r->netdev,
			   .addr = r->addr.addr,
			   .prefix_len = r->addr.len,
			   .qpn = qpn,
			   .qpn_span = span};
	char err[300], what[200];
	int e = dp_raw_ops.open(&c, port, err, sizeof(err));

	if (e) {
		fprintf(stderr, "rocelab: transport: %s\n", err);
		return e;
	}
	fprintf(stderr, "rocelab: transport: %s\n", dp_raw_ops.describe(*port, what, sizeof(what)));
	return 0;
}

uint16_t ep_fresh_ip_id(uint64_t *rng)
{
	uint16_t id;

	/* Fresh on every packet, retransmissions too, so ipid-drop --mod N samples at random. */
	do
		id = (uint16_t)(mpr_rand(rng) >> 48);
	while (!id);
	return id;
}

void ep_emit(FILE *out, json_t *o)
{
	json_dumpf(o, out, JSON_COMPACT);
	fputc('\n', out);
	fflush(out);
	json_decref(o);
}

/* What is unsent goes; the datapath counts what it could not send. */
void ep_txq_flush(struct txq *q)
{
	if (q->n)
		q->dp->send(q->port, q->tx, q->n);
	q->n = 0;
}

/* The packet of len bytes built in buf[n], to dst; a full batch goes at once. */
void ep_txq_push(struct txq *q, size_t len, struct in_addr dst)
{
	q->tx[q->n] = (struct dp_tx){q->buf[q->n], len, dst};
	if (++q->n == DP_BATCH)
		ep_txq_flush(q);
}

/*
 * The loop thread's time on a CPU and waiting for one (ns), from its
 * /proc/thread-self/schedstat (the kernel's schedstats: run, run-queue
 * delay, timeslices), opened once by ep_core_open() and read again from its
 * start each line; 0 and 0 when the kernel keeps none.
 */
static void sched_now(const struct ep_core *c, uint64_t *run, uint64_t *wait)
{
	char buf[96];
	ssize_t n = c->sched_fd < 0 ? -1 : pread(c->sched_fd, buf, sizeof(buf) - 1, 0);
	unsigned long long r = 0, w = 0;

	if (n > 0)
		buf[n] = 0;
	if (n <= 0 || sscanf(buf, "%llu %llu", &r, &w) != 2)
		r = w = 0;
	*run = r;
	*wait = w;
}

/*
 * A statistics line's CPU figures since the last one, into o: the
 * endpoint's time on a CPU and waiting for one (ms).  Their sum near the
 * interval means the endpoint never idled: the rig's CPU was its limit.
 */
static void core_sched(struct ep_core *c, json_t *o)
{
	uint64_t run, wait;

	sched_now(c, &run, &wait);
	json_object_set_new(o, "cpu_ms", json_real((double)(run - c->run_bin) / 1e6));
	json_object_set_new(o, "runq_ms", json_real((double)(wait - c->wait_bin) / 1e6));
	c->run_bin = run;
	c->wait_bin = wait;
}

/* The end line's: the whole run's (s). */
static void core_sched_total(const struct ep_core *c, json_t *o)
{
	uint64_t run, wait;

	sched_now(c, &run, &wait);
	json_object_set_new(o, "cpu_s", json_real((double)(run - c->run0) / 1e9));
	json_object_set_new(o, "runq_s", json_real((double)(wait - c->wait0) / 1e9));
}

/* A statistics line, with its CPU figures. */
void ep_emit_bin(struct ep_core *c, json_t *o)
{
	core_sched(c, o);
	ep_emit(c->out, o);
}

/* The end line, with the run's CPU figures. */
void ep_emit_end(struct ep_core *c, json_t *o)
{
	core_sched_total(c, o);
	ep_emit(c->out, o);
}

static void on_end(void *ctx, uint64_t now)
{
	(void)now;
	((struct tloop *)ctx)->done = true;
}

int ep_core_open(struct ep_core *c, const struct inv_rnic *me, uint32_t qpn, uint32_t qpn_span,
		 long long interval_ms, long long duration_ms, void (*on_rx)(void *, uint64_t),
		 void (*on_bin)(void *, uint64_t), void *ctx)
{
	c->q.dp = &dp_raw_ops;
	if (tloop_init(&c->loop))
		return -1;
	if (open_port(me, qpn, qpn_span, &c->q.port))
		goto clean_loop;
	if (tloop_watch(&c->loop, c->q.dp->fd(c->q.port), on_rx, ctx))
		goto clean_port;
	tw_timer_init(&c->t_bin, on_bin, ctx);
	tw_timer_init(&c->t_end, on_end, &c->loop);
	c->interval_ns = (uint64_t)interval_ms * 1000000;
	c->t0 = tloop_now();
	c->sched_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	sched_now(c, &c->run0, &c->wait0);
	c->run_bin = c->run0;
	c->wait_bin = c->wait0;
	tw_arm(&c->loop.tw, &c->t_bin, c->t0 + c->interval_ns);
	if (duration_ms)
		tw_arm(&c->loop.tw, &c->t_end, c->t0 + (uint64_t)duration_ms * 1000000);
	return 0;
clean_port:
	c->q.dp->close(c->q.port);
clean_loop:
	tloop_fini(&c->loop);
	return -1;
}

/* Run until the end or *stop; the seconds it ran, or -1 when the loop failed. */
double ep_core_run(struct ep_core *c, const volatile sig_atomic_t *stop)
{
	int r = tloop_run(&c->loop, stop);

	ep_txq_flush(&c->q);
	return r ? -1 : (double)(tloop_now() - c->t0) / 1e9;
}

void ep_core_close(struct ep_core *c)
{
	if (c->sched_fd >= 0)
		close(c->sched_fd);
	c->q.dp->close(c->q.port);
	tloop_fini(&c->loop);
}

/* The next statistics line's timer. */
void ep_core_next_bin(struct ep_core *c)
{
	c->bin++;
	tw_arm(&c->loop.tw, &c->t_bin, c->t0 + (c->bin + 1) * c->interval_ns);
}

bool ep_sojourn(struct ep_sojourn *s, uint64_t rx_mono, uint64_t tx_ns)
{
	int64_t owd = (int64_t)(rx_mono - tx_ns);
	uint64_t queued;

	if (!s->have_owd || owd < s->min_owd)
		s->min_owd = owd, s->have_owd = true;
	queued = (uint64_t)(owd - s->min_owd);
	s->queue_us_sum += (double)queued / 1e3;
	s->n++;
	if (queued / 1000 > s->queue_us_max)
		s->queue_us_max = queued / 1000;
	return queued > s->k_ns;
}

void ep_core_drain(struct ep_core *c, void (*each)(void *ctx, const struct dp_rx *rx, uint64_t now),
		   void *ctx, uint64_t now, uint64_t *rt_off)
{
	struct dp_rx rx[DP_BATCH];
	int n;

	while ((n = c->q.dp->recv(c->q.port, rx, DP_BATCH)) > 0) {
		if (rt_off)
			*rt_off = rl_realtime_ns() - tloop_now();
		for (int i = 0; i < n; i++)
			each(ctx, &rx[i], now);
		ep_txq_flush(&c->q);
		if (n < DP_BATCH)
			break;
	}
}
