// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's service flows by packets (svc.h): which outgoing frames are
 * a service's (RoCEv2 not to a monitor's QP nor carrying a monitor's
 * payload), the flow table (one flow per RNIC, address and port; full; idle
 * flows end), and the packet socket's filter on a real netdev (lo).
 */
#define _GNU_SOURCE
#include "probe/hostmesh/hostmesh.h"
#include "probe/rpingmesh/rpm.h"
#include "probe/rpingmesh/svc.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Ethernet, IPv4 (20 bytes), UDP sport -> 4791, BTH to qpn, DETH, payload word w. */
static size_t frame(uint8_t *f, uint16_t sport, uint32_t qpn, uint32_t w, uint16_t frag)
{
	size_t n = 14 + 20 + 8 + 12 + 8 + 4 + 1000;

	memset(f, 0, n);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)((n - 14) >> 8), f[17] = (uint8_t)(n - 14);
	f[20] = (uint8_t)(frag >> 8), f[21] = (uint8_t)frag;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, (uint8_t[]){198, 18, 1, 1}, 4);
	memcpy(f + 30, (uint8_t[]){198, 18, 2, 3}, 4);
	f[34] = (uint8_t)(sport >> 8), f[35] = (uint8_t)sport;
	f[36] = 0x12, f[37] = 0xb7;
	f[42 + 5] = (uint8_t)(qpn >> 16), f[42 + 6] = (uint8_t)(qpn >> 8), f[42 + 7] = (uint8_t)qpn;
	f[62] = (uint8_t)(w >> 24), f[63] = (uint8_t)(w >> 16), f[64] = (uint8_t)(w >> 8),
	f[65] = (uint8_t)w;
	return n;
}

Test(svc, a_service_packet_is_roce_not_of_a_monitor)
{
	uint8_t f[1200];
	struct rpm_svc_pkt p;
	size_t n = frame(f, 50123, 0x11, 0, 0);

	cr_assert_eq(rpm_svc_parse(f, 128, &p), 1, "the first 128 bytes say it all");
	cr_assert_eq(p.sport, 50123);
	cr_assert_eq(p.qpn, 0x11);
	cr_assert_eq(p.len, n, "its length from the IP header, not the capture");
	cr_assert_eq(p.dst, inet_addr("198.18.2.3"));
	frame(f, 50123, 0x201, 0, 0);
	cr_assert_eq(rpm_svc_parse(f, 128, &p), 0, "R-Pingmesh's QP: a probe, an ACK or a trace");
	frame(f, 50123, 0x103, 0, 0);
	cr_assert_eq(rpm_svc_parse(f, 128, &p), 0, "Hostmesh's QP");
	frame(f, 50123, 0x11, RPM_MAGIC, 0);
	cr_assert_eq(rpm_svc_parse(f, 128, &p), 0, "R-Pingmesh's payload (rxe: any QPN)");
	frame(f, 50123, 0x11, __builtin_bswap32(HM_PAYLOAD_MAGIC), 0);
	cr_assert_eq(rpm_svc_parse(f, 128, &p), 0, "Hostmesh's payload");
	frame(f, 50123, 0x11, 0, 0x0010);
	cr_assert_eq(rpm_svc_parse(f, 128, &p), 0, "a later fragment has no UDP header");
	frame(f, 50123, 0x11, 0, 0);
	f[37] = 0xb8;
	cr_assert_eq(rpm_svc_parse(f, 128, &p), 0, "UDP 4792 is not RoCEv2");
	frame(f, 50123, 0x11, 0, 0);
	f[22] = 3;
	cr_assert_eq(rpm_svc_parse(f, 128, &p), 0, "TTL 3: a path trace's probe");
	frame(f, 50123, 0x11, 0, 0);
	cr_assert_eq(rpm_svc_parse(f, 40, &p), -EMSGSIZE);
	cr_assert_eq(rpm_svc_parse(f, 50, &p), -EMSGSIZE, "no room for its BTH");
}

static int ended;
static void on_end(void *ctx, const struct rpm_flow *f)
{
	(void)ctx;
	cr_assert_eq(f->pkts, 2);
	ended++;
}

Test(svc, flows_by_rnic_address_and_port_end_when_idle)
{
	static struct rpm_svc s = {.idle_ns = 1000000000ULL};
	struct rpm_svc_pkt p = {.dst = 1, .sport = 50123, .qpn = 0x11, .len = 1000};
	bool is_new;
	struct rpm_flow *f = rpm_svc_add(&s, 0, &p, 100, &is_new);

	cr_assert(f && is_new);
	cr_assert_eq(rpm_svc_add(&s, 0, &p, 200, &is_new), f);
	cr_assert(!is_new);
	cr_assert_eq(f->bytes, 2000);
	cr_assert_eq(f->last, 200);
	p.sport = 50124;
	cr_assert_neq(rpm_svc_add(&s, 0, &p, 300, &is_new), f, "another port: another flow");
	cr_assert(is_new);
	p.sport = 50123;
	cr_assert_neq(rpm_svc_add(&s, 1, &p, 300, &is_new), f, "another RNIC: another flow");
	for (int i = 0; i < RPM_SVC_MAX; i++) {
		p.sport = (uint16_t)(40000 + i);
		rpm_svc_add(&s, 2, &p, 400, &is_new);
	}
	cr_assert_eq(s.full, 3, "three flows past the table's %d", RPM_SVC_MAX);
	cr_assert_eq(rpm_svc_expire(&s, 1000000199ULL, on_end, NULL), 0);
	cr_assert_eq(rpm_svc_expire(&s, 1000000200ULL, on_end, NULL), 1, "idle for a second");
	cr_assert_eq(ended, 1);
}

Test(svc, the_packet_socket_opens_on_a_netdev_and_refuses_none)
{
	char err[160];
	int fd = rpm_svc_open("lo", err, sizeof(err));

	if (fd == -EPERM) {
		cr_skip_test("no CAP_NET_RAW here: %s", err);
		return;
	}
	cr_assert_geq(fd, 0, "%s", err);
	close(fd);
	cr_assert_lt(rpm_svc_open("no-such-netdev0", err, sizeof(err)), 0);
	cr_assert(strstr(err, "no netdev no-such-netdev0"), "%s", err);
}
