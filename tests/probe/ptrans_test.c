// SPDX-License-Identifier: MIT
/*
 * Probe transports by name, and 'auto': verbs where the RNIC has an RDMA
 * device, udp where it has none (this machine has none; the VM tier checks
 * the verbs side on rxe), a monitor's transports summarized from its
 * agents' lines, and the udp transport's receive filter.
 */
#define _GNU_SOURCE
#include "harness/component/component.h"
#include "harness/lib/inventory.h"
#include "probe/moncomp.h"
#include "probe/ptrans.h"
#include "probe/roce.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <linux/filter.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

Test(ptrans, names_and_auto)
{
	cr_assert_eq(pt_find("udp"), &pt_udp_ops);
	cr_assert_eq(pt_find("verbs"), &pt_verbs_ops);
	cr_assert_eq(pt_find("auto"), &pt_auto_ops);
	cr_assert_null(pt_find("tcp"));
	cr_assert_str_eq(pt_names(), "udp, verbs, auto");
}

Test(ptrans, resolve_keeps_a_named_transport)
{
	char how[320];

	cr_assert_eq(pt_resolve(&pt_udp_ops, NULL, how, sizeof(how)), &pt_udp_ops);
	cr_assert_str_eq(how, "udp transport");
	cr_assert_eq(pt_resolve(&pt_verbs_ops, NULL, how, sizeof(how)), &pt_verbs_ops);
	cr_assert_str_eq(how, "verbs transport");
}

Test(ptrans, auto_without_an_rdma_device_is_udp_and_says_why)
{
	struct inv_rnic rn = {.name = "rnic1", .netdev = "rlnosuchdev", .gid_index = -1};
	struct inv_host h = {.name = "host1", .rnics = &rn, .n_rnics = 1};
	char how[320];

	inet_pton(AF_INET, "198.18.1.1", &rn.addr.addr);
	rn.addr.len = 24;
	cr_assert_eq(pt_resolve(&pt_auto_ops, &h, how, sizeof(how)), &pt_udp_ops);
	cr_assert(strstr(how, "udp transport (auto: ") == how, "%s", how);
	/* Either no device at all or none with this RNIC's address: the verbs error, named. */
	cr_assert(strstr(how, "RDMA device"), "%s", how);
	cr_assert_eq(pt_resolve(&pt_auto_ops, NULL, how, sizeof(how)), &pt_udp_ops);
	cr_assert_str_eq(how, "udp transport (auto: no RNIC to try verbs on)");
}

static json_t *agent(const char *host, const char *transport)
{
	json_t *j = json_pack("{s:s, s:s}", "type", "agent", "host", host);

	if (transport)
		json_object_set_new(j, "transport", json_string(transport));
	return j;
}

static const char *summary(json_t *agents, const char *configured, json_t **per)
{
	static char buf[32];
	struct comp_obs obs = {.section = json_object()};

	mon_transport(agents, configured, &obs);
	snprintf(buf, sizeof(buf), "%s",
		 json_string_value(json_object_get(obs.section, "transport")));
	*per = json_incref(json_object_get(obs.section, "transports"));
	json_decref(obs.section);
	json_decref(agents);
	return buf;
}

Test(ptrans, a_monitors_transports_from_its_agents)
{
	json_t *per;

	cr_assert_str_eq(summary(json_pack("[oo]", agent("host1", "verbs"), agent("host2", "udp")),
				 "auto", &per),
			 "mixed");
	cr_assert_str_eq(json_string_value(json_object_get(per, "host1")), "verbs");
	cr_assert_str_eq(json_string_value(json_object_get(per, "host2")), "udp");
	json_decref(per);
	cr_assert_str_eq(
	    summary(json_pack("[oo]", agent("host1", "udp"), agent("host1", "udp")), "auto", &per),
	    "udp");
	json_decref(per);
	/* No agent said (an older agent, or none ran): the configured one. */
	cr_assert_str_eq(summary(json_pack("[o]", agent("host1", NULL)), "verbs", &per), "verbs");
	cr_assert_eq(json_object_size(per), 0);
	json_decref(per);
}

/*
 * The udp transport's receive filter, run by the kernel on a datagram
 * socket: a probe for our QP and a foreign one pass (the transport counts
 * the foreign), the other monitor's is dropped before it wakes us, and so
 * is what is not RoCEv2 or too long.  Too short for a BTH passes, to be
 * counted malformed.
 */
static bool passes(int rx, int tx, const uint8_t *pkt, size_t len)
{
	uint8_t buf[512];

	cr_assert_eq(send(tx, pkt, len, 0), (ssize_t)len);
	return recv(rx, buf, sizeof(buf), MSG_DONTWAIT) == (ssize_t)len;
}

static size_t probe_to(uint8_t *pkt, size_t cap, uint32_t qpn, size_t payload)
{
	static const uint8_t data[300];
	struct roce_ip ip = {.sport = 50000, .dport = 4791, .ttl = 64, .id = 7};
	struct roce_ud ud = {.dst_qpn = qpn, .qkey = ROCE_DEFAULT_QKEY, .src_qpn = 0x101};
	ssize_t n;

	inet_pton(AF_INET, "198.18.1.1", &ip.src);
	inet_pton(AF_INET, "198.18.2.1", &ip.dst);
	n = roce_build_ud(pkt, cap, &ip, &ud, data, payload);
	cr_assert_gt(n, 0);
	return (size_t)n;
}

Test(ptrans, udp_filter_keeps_the_other_monitors_probes_out)
{
	struct sock_filter code[PT_UDP_FILTER_LEN];
	struct sock_fprog prog = {.len = PT_UDP_FILTER_LEN, .filter = code};
	uint8_t pkt[512];
	size_t n;
	int sv[2];

	for (int mon = 0; mon < 2; mon++) {
		uint32_t ours = mon ? 0x203 : 0x100, theirs = mon ? 0x100 : 0x203;

		cr_assert_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
		pt_udp_filter(code, ours);
		cr_assert_eq(setsockopt(sv[0], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)),
			     0);
		n = probe_to(pkt, sizeof(pkt), ours, 40);
		cr_assert(passes(sv[0], sv[1], pkt, n), "ours (QPN %#x)", ours);
		n = probe_to(pkt, sizeof(pkt), theirs, 40);
		cr_assert_not(passes(sv[0], sv[1], pkt, n), "the other monitor's (QPN %#x)",
			      theirs);
		n = probe_to(pkt, sizeof(pkt), 0x10203, 40);
		cr_assert(passes(sv[0], sv[1], pkt, n), "a foreign QPN, counted by the transport");
		n = probe_to(pkt, sizeof(pkt), 0x300, 40);
		cr_assert(passes(sv[0], sv[1], pkt, n), "a QPN of neither monitor");
		n = probe_to(pkt, sizeof(pkt), ours, 280);
		cr_assert_not(passes(sv[0], sv[1], pkt, n), "longer than any probe");
		n = probe_to(pkt, sizeof(pkt), ours, 40);
		pkt[23] = 0x12; /* UDP destination port 4791 -> 4626 */
		cr_assert_not(passes(sv[0], sv[1], pkt, n), "not RoCEv2");
		n = probe_to(pkt, sizeof(pkt), theirs, 40);
		pkt[2] = 0, pkt[3] = 34; /* an IP total length too short for the BTH */
		cr_assert(passes(sv[0], sv[1], pkt, 34), "short: to be counted malformed");
		close(sv[0]);
		close(sv[1]);
	}
}
