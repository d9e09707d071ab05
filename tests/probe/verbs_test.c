// SPDX-License-Identifier: MIT
/*
 * The verbs transport against a real RoCEv2 stack, and wire interop with the
 * udp transport.  Tests that need an RDMA device run in the VM tier (make
 * vm-check: Soft-RoCE on the VM lab's RNICs, described by ROCELAB_TEST_RNICS
 * "netdev=addr/len,netdev=addr/len"); without any RDMA device they skip and
 * say so.  Error paths that need no device always run.
 *
 * ROCELAB_PCAP_OUT=FILE: the udp-to-verbs test writes the probe it captured
 * on the receiving netdev (AF_PACKET) there, for tshark to dissect.
 */
#define _GNU_SOURCE
#include "probe/ptrans.h"
#include "probe/roce.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct rnic {
	char netdev[32];
	struct in_addr addr;
	int len;
};

static int device_count(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);

	if (l)
		ibv_free_device_list(l);
	return n;
}

/* The test lab's RNIC i, or skip (no device) / fail (devices but no lab described). */
static void need_rnic(int i, struct rnic *r)
{
	const char *env = getenv("ROCELAB_TEST_RNICS");
	char buf[512], *save = NULL, *tok;
	int k = 0;

	if (device_count() == 0)
		cr_skip_test("no RDMA device on this machine: the verbs tests run in the Soft-RoCE "
			     "VM tier ('make vm-check')");
	if (!env || !*env)
		cr_skip_test("RDMA devices exist, but ROCELAB_TEST_RNICS (netdev=addr/len,...) "
			     "does not name two RNICs whose traffic crosses a fabric: set it to "
			     "run these tests here");
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++) {
		char *eq = strchr(tok, '='), *sl;

		if (k != i)
			continue;
		cr_assert(eq, "ROCELAB_TEST_RNICS entry '%s' is not netdev=addr/len", tok);
		*eq = 0;
		sl = strchr(eq + 1, '/');
		if (sl)
			*sl = 0;
		snprintf(r->netdev, sizeof(r->netdev), "%s", tok);
		cr_assert(inet_pton(AF_INET, eq + 1, &r->addr) == 1, "bad address in '%s'", env);
		r->len = sl ? atoi(sl + 1) : 32;
		return;
	}
	cr_assert_fail("ROCELAB_TEST_RNICS names fewer than %d RNICs", i + 1);
}

static struct pt_cfg cfg_of(const struct rnic *r)
{
	return (struct pt_cfg){.netdev = r->netdev,
			       .addr = r->addr,
			       .prefix_len = r->len,
			       .gid_index = -1,
			       .tos = 26 << 2,
			       .sports = 8};
}

/* ---- what every callback saw ---------------------------------------------------- */

#define SEEN_MAX 256
struct seen {
	int rx, tx, bad;
	struct pt_rx rxs[SEEN_MAX];
	uint8_t payloads[SEEN_MAX][64];
	uint64_t cookies[SEEN_MAX];
	enum pt_ts tx_ts;
};

static void on_tx(void *ctx, uint64_t cookie, uint64_t tx_ns, enum pt_ts ts)
{
	struct seen *s = ctx;

	(void)tx_ns;
	if (s->tx < SEEN_MAX)
		s->cookies[s->tx] = cookie;
	s->tx++;
	s->tx_ts = ts;
}

static void on_rx(void *ctx, const struct pt_rx *rx)
{
	struct seen *s = ctx;

	if (s->rx < SEEN_MAX) {
		s->rxs[s->rx] = *rx;
		memcpy(s->payloads[s->rx], rx->payload, rx->len < 64 ? rx->len : 64);
		s->rxs[s->rx].payload = NULL;
	}
	s->rx++;
}

static void on_bad(void *ctx, int reason)
{
	(void)reason;
	((struct seen *)ctx)->bad++;
}

static const struct pt_events events = {on_tx, on_rx, on_bad};

/* Poll both ports until rx has `want` receives at `into` (or 3 s pass). */
static void pump(const struct pt_ops *oa, struct pt_port *a, struct seen *sa,
		 const struct pt_ops *ob, struct pt_port *b, struct seen *sb, int want)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pf[8];
		int n = 0, fa[4], fb[4];
		int ka = oa->fds(a, fa, 4), kb = ob->fds(b, fb, 4);

		for (int i = 0; i < ka; i++)
			pf[n++] = (struct pollfd){.fd = fa[i], .events = POLLIN};
		for (int i = 0; i < kb; i++)
			pf[n++] = (struct pollfd){.fd = fb[i], .events = POLLIN};
		poll(pf, (nfds_t)n, 50);
		oa->poll(a, &events, sa);
		ob->poll(b, &events, sb);
		if (sb->rx >= want)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > 3000)
			return;
	}
}

static void fill(uint8_t *p, size_t n, int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + (int)i);
}

/* ---- always: errors that need no device -------------------------------------------- */

Test(verbs, unknown_device_is_a_clear_error)
{
	struct pt_cfg c = {.netdev = "lo", .ibdev = "no-such-rnic", .gid_index = -1};
	struct pt_port *p = NULL;
	char err[512] = "";
	int r;

	inet_pton(AF_INET, "198.18.250.1", &c.addr);
	r = pt_verbs_ops.open(&c, &p, err, sizeof(err));
	cr_assert_eq(r, -ENODEV, "open: %d (%s)", r, err);
	cr_assert_null(p);
	cr_assert(strstr(err, "no RDMA device") || strstr(err, "no RDMA devices"), "%s", err);
}

Test(verbs, address_without_gid_is_a_clear_error)
{
	struct pt_cfg c = {.netdev = "lo", .gid_index = -1};
	struct pt_port *p = NULL;
	char err[512] = "";

	inet_pton(AF_INET, "198.18.250.1", &c.addr);
	cr_assert_eq(pt_verbs_ops.open(&c, &p, err, sizeof(err)), -ENODEV, "%s", err);
	cr_assert(strstr(err, "RoCEv2 GID for 198.18.250.1") || strstr(err, "no RDMA devices"),
		  "%s", err);
}

Test(verbs, rxe_source_port_formula)
{
	/* 0xC000 + hash_32(qpn, 14), kernel GOLDEN_RATIO_32; checked on rxe by verbs_to_udp. */
	cr_assert_eq(pt_rxe_sport(0x11), (uint16_t)(0xc000 + ((0x11u * 0x61c88647u) >> 18)));
	for (uint32_t q = 1; q < 5000; q++)
		cr_assert_geq(pt_rxe_sport(q), 0xc000);
}

Test(verbs, completion_clock_converts_and_survives_wraps)
{
	/* ConnectX-4: 156.25 MHz, 48-bit counter (hca_core_clock 156250 kHz). */
	struct pt_hwclock c = {
	    .mask = (1ULL << 48) - 1, .khz = 156250, .base_ticks = 1000, .base_ns = 5000000000ULL};

	cr_assert_eq(pt_hwclock_ns(&c, 1000), 5000000000ULL);
	cr_assert_eq(pt_hwclock_ns(&c, 1000 + 156250), 5000000000ULL + 1000000, "1 ms");
	cr_assert_eq(pt_hwclock_ns(&c, 1000 + 25), 5000000000ULL + 160, "6.4 ns a tick");

	/* Just before and just after the counter wraps. */
	c = (struct pt_hwclock){
	    .mask = 0xffff, .khz = 1000000, .base_ticks = 0xff00, .base_ns = 1000};
	cr_assert_eq(pt_hwclock_ns(&c, 0xff10), 1000 + 0x10);
	cr_assert_eq(pt_hwclock_ns(&c, 0x0010), 1000 + 0x110, "across the wrap");

	/* Steps of an eighth of the range over five wraps: time only moves forward, exactly. */
	c = (struct pt_hwclock){.mask = 0xffff, .khz = 1000000, .base_ticks = 0x1234, .base_ns = 0};
	for (uint64_t k = 1, t = 0x1234; k <= 40; k++) {
		t = (t + 0x2000) & 0xffff;
		cr_assert_eq(pt_hwclock_ns(&c, t), k * 0x2000, "step %llu", (unsigned long long)k);
	}
}

/* ---- with a device --------------------------------------------------------------------- */

Test(verbs, open_finds_the_gid_and_rejects_a_wrong_one)
{
	struct rnic r;
	struct pt_port *p = NULL;
	char err[512] = "", desc[256];
	struct pt_cfg c;
	int gid;

	need_rnic(0, &r);
	c = cfg_of(&r);
	cr_assert_eq(pt_verbs_ops.open(&c, &p, err, sizeof(err)), 0, "%s", err);
	pt_verbs_ops.describe(p, desc, sizeof(desc));
	cr_log_info("%s", desc);
	cr_assert_neq(pt_verbs_ops.qpn(p), 0);
	cr_assert(strstr(desc, "GID "), "%s", desc);
	gid = atoi(strstr(desc, "GID ") + 4);
	pt_verbs_ops.close(p);

	/* The GID just before the right one is some other address or type. */
	c.gid_index = gid > 0 ? gid - 1 : gid + 1;
	p = NULL;
	cr_assert_lt(pt_verbs_ops.open(&c, &p, err, sizeof(err)), 0, "gid %d accepted",
		     c.gid_index);
	cr_assert_null(p);
	cr_assert(strstr(err, "gid_index"), "%s", err);
	cr_log_info("wrong GID: %s", err);
}

/* The two RNICs of ROCELAB_TEST_RNICS, each with a verbs port open. */
static void open_two(struct rnic *ra, struct rnic *rb, struct pt_port **a, struct pt_port **b)
{
	struct pt_cfg ca, cb;
	char err[512];

	need_rnic(0, ra);
	need_rnic(1, rb);
	ca = cfg_of(ra);
	cb = cfg_of(rb);
	cr_assert_eq(pt_verbs_ops.open(&ca, a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(pt_verbs_ops.open(&cb, b, err, sizeof(err)), 0, "%s", err);
}

Test(verbs, probes_between_two_rnics_cross_the_fabric)
{
	struct rnic ra, rb;
	struct pt_port *a = NULL, *b = NULL;
	static struct seen sa, sb;
	uint16_t want_sport[4];
	const int n = 40;

	open_two(&ra, &rb, &a, &b);
	struct pt_dst dst = {rb.addr, pt_verbs_ops.qpn(b)};

	for (int i = 0; i < n; i++) {
		uint8_t pl[50];
		uint16_t used = 0, id = 1;

		fill(pl, sizeof(pl), i);
		cr_assert_eq(pt_verbs_ops.send(a, &dst, (uint16_t)(50000 + i % 4), 64, pl,
					       sizeof(pl), 1000 + (uint64_t)i, &used, &id),
			     0);
		cr_assert_eq(id, 0, "the RNIC picks IP IDs");
		cr_assert_geq(used, 0xc000);
		if (i < 4)
			want_sport[i] = used;
		else
			cr_assert_eq(used, want_sport[i % 4], "a requested port keeps its QP");
		if (i % 8 == 7)
			pump(&pt_verbs_ops, a, &sa, &pt_verbs_ops, b, &sb, 0);
	}
	for (int i = 1; i < 4; i++)
		for (int j = 0; j < i; j++)
			cr_assert_neq(want_sport[i], want_sport[j], "4 ports, 4 QPs");
	pump(&pt_verbs_ops, a, &sa, &pt_verbs_ops, b, &sb, n);
	cr_assert_eq(sb.rx, n, "received %d of %d", sb.rx, n);
	cr_assert_eq(sa.tx, n, "send completions %d of %d", sa.tx, n);
	cr_assert_eq(sb.bad, 0);
	for (int i = 0; i < n; i++) {
		const struct pt_rx *rx = &sb.rxs[i];
		uint8_t pl[50];
		int k = -1;

		for (int j = 0; j < n && k < 0; j++) {
			fill(pl, sizeof(pl), j);
			if (!memcmp(pl, sb.payloads[i], sizeof(pl)))
				k = j;
		}
		cr_assert_geq(k, 0, "payload %d not one that was sent", i);
		cr_assert_eq(rx->len, 50);
		cr_assert_eq(rx->src.s_addr, ra.addr.s_addr);
		/* RNIC -> rail -> spine -> rail -> RNIC: three routed hops. */
		cr_assert_eq(rx->ttl, 61, "TTL %d: the probe did not cross the fabric", rx->ttl);
		cr_assert_eq(rx->tos, 26 << 2, "TOS 0x%x", rx->tos);
		cr_assert_eq(rx->sport, want_sport[k % 4]);
		cr_assert_eq(rx->rx_ts, PT_TS_APP, "rxe has no completion timestamps");
	}
	pt_verbs_ops.close(a);
	pt_verbs_ops.close(b);
}

/* Capture the next RoCEv2 frame on netdev (AF_PACKET) and write it as a pcap file. */
/*
 * An answer goes back to the QP that sent the probe (R-Pingmesh's ACKs to the
 * probe's source QPN), and on rxe a pool of QPs sends them: every QP of the
 * pool must receive (one shared receive queue), not only the first.
 */
Test(verbs, answers_to_any_qp_of_the_pool_arrive)
{
	struct rnic ra, rb;
	struct pt_port *a = NULL, *b = NULL;
	static struct seen sa, sb;
	char err[512];
	uint32_t qpns[4];
	const int n = 4;

	open_two(&ra, &rb, &a, &b);
	cr_assert(strstr(pt_verbs_ops.describe(a, err, sizeof(err)), "one shared queue"), "%s",
		  err);
	struct pt_dst to_b = {rb.addr, pt_verbs_ops.qpn(b)};

	/* a -> b from four source ports: four QPs of a's pool. */
	for (int i = 0; i < n; i++) {
		uint8_t pl[50];
		uint16_t used = 0, id = 0;

		fill(pl, sizeof(pl), i);
		cr_assert_eq(pt_verbs_ops.send(a, &to_b, (uint16_t)(50000 + i), 64, pl, sizeof(pl),
					       (uint64_t)i, &used, &id),
			     0);
	}
	pump(&pt_verbs_ops, a, &sa, &pt_verbs_ops, b, &sb, n);
	cr_assert_eq(sb.rx, n, "received %d of %d", sb.rx, n);
	for (int i = 0; i < n; i++) {
		qpns[i] = sb.rxs[i].src_qpn;
		for (int j = 0; j < i; j++)
			cr_assert_neq(qpns[i], qpns[j], "four ports, four source QPs");
	}
	/* b answers each to the QP it came from: a receives all four. */
	for (int i = 0; i < n; i++) {
		struct pt_dst back = {ra.addr, qpns[i]};
		uint8_t pl[50];
		uint16_t used = 0, id = 0;

		fill(pl, sizeof(pl), 100 + i);
		cr_assert_eq(pt_verbs_ops.send(b, &back, 50100, 64, pl, sizeof(pl),
					       (uint64_t)(100 + i), &used, &id),
			     0);
	}
	pump(&pt_verbs_ops, b, &sb, &pt_verbs_ops, a, &sa, n);
	cr_assert_eq(sa.rx, n, "answers received at the pool's QPs: %d of %d", sa.rx, n);
	cr_assert_eq(sa.bad, 0);
	pt_verbs_ops.close(a);
	pt_verbs_ops.close(b);
}

static int capture_open(const char *netdev)
{
	int fd =
	    socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK, htons(ETH_P_IP)); /* from the IP header */
	struct sockaddr_ll sll = {.sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_IP),
				  .sll_ifindex = (int)if_nametoindex(netdev)};

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sll, sizeof(sll)), 0);
	return fd;
}

static bool capture_write(int fd, const char *path)
{
	uint8_t f[2048];

	for (;;) {
		ssize_t n = recv(fd, f, sizeof(f), 0);

		if (n < 0)
			return false;
		if (n > 20 + 8 + 14 && f[9] == 17 && (f[22] << 8 | f[23]) == 4791) {
			/* cooked IPv4 (LINKTYPE_RAW 101): the frame from its IP header on */
			FILE *o = fopen(path, "wb");
			uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 101};
			uint32_t rh[4] = {(uint32_t)time(NULL), 0, (uint32_t)n, (uint32_t)n};

			if (!o)
				return false;
			fwrite(gh, sizeof(gh), 1, o);
			fwrite(rh, sizeof(rh), 1, o);
			fwrite(f, (size_t)n, 1, o);
			return fclose(o) == 0;
		}
	}
}

/* A udp port (answering to udp_qpn) on the first test RNIC and a verbs port on the second. */
static void open_interop(struct rnic *ra, struct rnic *rb, uint32_t udp_qpn, struct pt_port **u,
			 struct pt_port **v)
{
	struct pt_cfg cu, cv;
	char err[512];

	need_rnic(0, ra);
	need_rnic(1, rb);
	cu = cfg_of(ra);
	cu.share_port = true; /* rxe holds UDP 4791 in this namespace */
	cu.qpn = udp_qpn;
	cv = cfg_of(rb);
	cr_assert_eq(pt_udp_ops.open(&cu, u, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(pt_verbs_ops.open(&cv, v, err, sizeof(err)), 0, "%s", err);
}

Test(verbs, udp_transport_probes_complete_on_a_real_ud_qp)
{
	struct rnic ra, rb;
	struct pt_port *u = NULL, *v = NULL;
	static struct seen su, sv;
	uint16_t ids[8], used;
	const char *pcap = getenv("ROCELAB_PCAP_OUT");
	int cap = -1;

	open_interop(&ra, &rb, 0x1234, &u, &v);
	if (pcap)
		cap = capture_open(rb.netdev);
	/* QPN and Q_Key "out of band": this process knows both. */
	struct pt_dst dst = {rb.addr, pt_verbs_ops.qpn(v)};

	for (int i = 0; i < 8; i++) {
		uint8_t pl[50];

		fill(pl, sizeof(pl), 100 + i);
		cr_assert_eq(pt_udp_ops.send(u, &dst, (uint16_t)(49200 + i), 64, pl, sizeof(pl),
					     (uint64_t)i, &used, &ids[i]),
			     0);
		cr_assert_eq(used, 49200 + i);
		cr_assert_neq(ids[i], 0);
	}
	pump(&pt_udp_ops, u, &su, &pt_verbs_ops, v, &sv, 8);
	cr_assert_eq(sv.rx, 8, "the rxe UD QP completed %d of 8 udp-transport probes", sv.rx);
	for (int i = 0; i < 8; i++) {
		uint8_t pl[50];
		int k = -1;

		for (int j = 0; j < 8; j++)
			if (ids[j] == sv.rxs[i].ip_id)
				k = j;
		cr_assert_geq(k, 0, "IP ID %u (from the GRH) is none we sent", sv.rxs[i].ip_id);
		fill(pl, sizeof(pl), 100 + k);
		cr_assert_eq(memcmp(pl, sv.payloads[i], sizeof(pl)), 0, "payload of probe %d", k);
		cr_assert_eq(sv.rxs[i].src_qpn, 0x1234, "source QPN from the DETH");
		cr_assert_eq(sv.rxs[i].src.s_addr, ra.addr.s_addr);
		cr_assert_eq(sv.rxs[i].ttl, 61);
	}
	if (cap >= 0) {
		cr_assert(capture_write(cap, pcap), "no RoCEv2 frame captured on %s", rb.netdev);
		close(cap);
	}
	pt_udp_ops.close(u);
	pt_verbs_ops.close(v);
}

Test(verbs, real_ud_sends_parse_in_the_udp_transport)
{
	struct rnic ra, rb;
	struct pt_port *u = NULL, *v = NULL;
	static struct seen su, sv;
	uint16_t used[8], id;

	open_interop(&ra, &rb, 0x4321, &u, &v);
	struct pt_dst dst = {ra.addr, 0x4321};

	for (int i = 0; i < 8; i++) {
		uint8_t pl[50];

		fill(pl, sizeof(pl), 200 + i);
		cr_assert_eq(pt_verbs_ops.send(v, &dst, (uint16_t)(60000 + i), 64, pl, sizeof(pl),
					       (uint64_t)i, &used[i], &id),
			     0);
	}
	pump(&pt_verbs_ops, v, &sv, &pt_udp_ops, u, &su, 8);
	cr_assert_eq(su.rx, 8, "the udp transport parsed %d of 8 rxe probes (bad: %d)", su.rx,
		     su.bad);
	for (int i = 0; i < 8; i++) {
		uint8_t pl[50];
		int k = -1;

		for (int j = 0; j < 8; j++) {
			fill(pl, sizeof(pl), 200 + j);
			if (!memcmp(pl, su.payloads[i], sizeof(pl)))
				k = j;
		}
		cr_assert_geq(k, 0, "payload %d is none we sent", i);
		cr_assert_eq(su.rxs[i].len, 50);
		cr_assert_eq(su.rxs[i].src.s_addr, rb.addr.s_addr);
		/* The real UDP source port of rxe's packet is the one the transport reported. */
		cr_assert_eq(su.rxs[i].sport, used[k], "rxe sent from %u, transport said %u",
			     su.rxs[i].sport, used[k]);
		cr_assert_eq(su.rxs[i].sport, pt_rxe_sport(su.rxs[i].src_qpn));
		cr_assert_eq(su.rxs[i].tos, 26 << 2);
		cr_assert_eq(su.rxs[i].ttl, 61);
	}
	pt_udp_ops.close(u);
	pt_verbs_ops.close(v);
}
