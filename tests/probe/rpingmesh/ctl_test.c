// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's controller (ctl.h): the registry (registration, renewal, a
 * new epoch, stale hosts dropped, pinglists over the registered hosts with
 * their QPNs), the checks of what arrives from the network, and an agent's
 * connection against the real server over loopback TCP: a list arrives
 * whole, a bad registration is refused, junk is counted, never fatal.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "probe/recin.h"
#include "probe/rpingmesh/ctl.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MS 1000000ULL

static struct inventory *inv;

static void load(void)
{
	inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	cr_assert_not_null(inv);
}

static void unload(void)
{
	inventory_free(inv);
}

TestSuite(ctl, .init = load, .fini = unload);

static const uint32_t qpn_a[4] = {0x200, 0x201, 0x202, 0x203}, qpn_b[4] = {17, 18, 19, 20};

static struct rpm_ctl *fresh(long long refresh, long long stale)
{
	struct rpm_ctl_cfg c;

	rpm_ctl_defaults(&c);
	c.refresh_ms = refresh;
	c.stale_ms = stale;
	c.pl.sports = 6;
	return rpm_ctl_new(inv, &c);
}

Test(ctl, lists_cover_only_registered_hosts_with_their_qpns)
{
	struct rpm_ctl *c = fresh(5000, 15000);
	struct rpm_pinglist pl;
	uint32_t *q;

	cr_assert_eq(rpm_ctl_pinglist(c, 0, &pl, &q), -ENOENT, "not registered: no list");
	cr_assert_eq(rpm_ctl_register(c, 0, 1, qpn_a, 1 * MS), 1);
	cr_assert_eq(rpm_ctl_pinglist(c, 0, &pl, &q), 0);
	cr_assert_eq(pl.n, 0, "alone: nothing to probe");
	free(q);
	rpm_pinglist_free(&pl);

	cr_assert_eq(rpm_ctl_register(c, 1, 7, qpn_b, 2 * MS), 1);
	cr_assert_eq(rpm_ctl_pinglist(c, 0, &pl, &q), 0);
	/* host2's 4 RNICs: each of host1's RNICs has one under its rail (ToR-mesh) and three
	 * under the other rails (inter-ToR). */
	cr_assert_eq(pl.n, 16);
	for (size_t i = 0; i < pl.n; i++) {
		cr_assert_eq(pl.t[i].host, 1);
		cr_assert_eq(q[i], qpn_b[pl.t[i].rnic], "the QPN host2 registered");
		cr_assert_eq(pl.t[i].list,
			     pl.t[i].rnic == pl.t[i].src_rnic ? RPM_TOR_MESH : RPM_INTER_TOR);
	}
	free(q);
	rpm_pinglist_free(&pl);
	cr_assert_eq(rpm_ctl_live(c), 2);
	rpm_ctl_free(c);
}

Test(ctl, renewals_change_nothing_a_new_epoch_or_qpn_does)
{
	struct rpm_ctl *c = fresh(5000, 15000);
	uint32_t g;

	rpm_ctl_register(c, 0, 1, qpn_a, 1 * MS);
	g = c->generation;
	cr_assert_eq(rpm_ctl_register(c, 0, 1, qpn_a, 2 * MS), 0, "a renewal");
	cr_assert_eq(c->generation, g);
	cr_assert_eq(rpm_ctl_register(c, 0, 2, qpn_a, 3 * MS), 1, "the agent restarted");
	cr_assert_eq(rpm_ctl_register(c, 0, 2, qpn_b, 4 * MS), 1, "its QPNs changed");
	cr_assert_eq(c->generation, g + 2);
	cr_assert_eq(c->renewed, 1);
	rpm_ctl_free(c);
}

static size_t dropped_host = SIZE_MAX;
static unsigned long long dropped_unseen;

static void on_drop(void *ctx, size_t host, unsigned long long unseen)
{
	(void)ctx;
	dropped_host = host;
	dropped_unseen = unseen;
}

Test(ctl, a_host_unseen_for_stale_is_dropped_from_every_list)
{
	struct rpm_ctl *c = fresh(5000, 15000);
	struct rpm_pinglist pl;
	uint32_t *q;

	rpm_ctl_register(c, 0, 1, qpn_a, 0);
	rpm_ctl_register(c, 1, 1, qpn_a, 0);
	rpm_ctl_register(c, 2, 1, qpn_a, 0);
	rpm_ctl_register(c, 0, 1, qpn_a, 10000 * MS); /* renewals of host1 and host2 */
	rpm_ctl_register(c, 1, 1, qpn_a, 10000 * MS);
	cr_assert_eq(rpm_ctl_expire(c, 14999 * MS, on_drop, NULL), 0, "not stale yet");
	cr_assert_eq(rpm_ctl_expire(c, 15000 * MS, on_drop, NULL), 1);
	cr_assert_eq(dropped_host, 2, "host3, unseen since 0");
	cr_assert_eq(dropped_unseen, 15000 * MS);
	cr_assert_eq(rpm_ctl_pinglist(c, 0, &pl, &q), 0);
	for (size_t i = 0; i < pl.n; i++)
		cr_assert_eq(pl.t[i].host, 1, "host3 is in no list once dropped");
	cr_assert_eq(pl.n, 16);
	free(q);
	rpm_pinglist_free(&pl);
	cr_assert_eq(rpm_ctl_register(c, 2, 1, qpn_a, 16000 * MS), 1, "back: registered anew");
	cr_assert_eq(rpm_ctl_live(c), 3);
	rpm_ctl_free(c);
}

/* A REGISTER body for host with n RNICs and QPNs q. */
static size_t reg_body(uint8_t *buf, const char *host, unsigned n, const uint32_t *q, uint64_t fp)
{
	struct rpm_ctl_register m = {.magic = RPM_CTL_MAGIC,
				     .version = RPM_CTL_VERSION,
				     .n_rnics = (uint8_t)n,
				     .inv_fingerprint = fp,
				     .epoch = 42};

	snprintf(m.host, sizeof(m.host), "%s", host);
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), q, 4 * n);
	return sizeof(m) + 4 * n;
}

Test(ctl, registrations_from_the_network_are_checked)
{
	uint8_t b[512];
	uint32_t q[256], bad[4] = {0x200, 0, 0x202, 0x203}, big[4] = {1, 2, 3, 0x1000000};
	uint64_t fp = inventory_fingerprint(inv), epoch;
	size_t h, n;
	char why[256];

	n = reg_body(b, "host3", 4, qpn_a, fp);
	cr_assert_eq(rpm_ctl_read_register(inv, b, n, &h, &epoch, q, why, sizeof(why)), 0);
	cr_assert_eq(h, 2);
	cr_assert_eq(epoch, 42);
	cr_assert_eq(q[3], 0x203);
	cr_assert_eq(rpm_ctl_read_register(inv, b, n - 1, &h, &epoch, q, why, sizeof(why)), -EPROTO,
		     "cut short");
	cr_assert_eq(rpm_ctl_read_register(inv, b, 10, &h, &epoch, q, why, sizeof(why)), -EPROTO);
	n = reg_body(b, "host3", 4, qpn_a, fp ^ 1);
	cr_assert_eq(rpm_ctl_read_register(inv, b, n, &h, &epoch, q, why, sizeof(why)), -ESTALE);
	cr_assert(strstr(why, "another inventory"), "%s", why);
	n = reg_body(b, "host9", 4, qpn_a, fp);
	cr_assert_eq(rpm_ctl_read_register(inv, b, n, &h, &epoch, q, why, sizeof(why)), -ENOENT);
	n = reg_body(b, "host1", 3, qpn_a, fp);
	cr_assert_eq(rpm_ctl_read_register(inv, b, n, &h, &epoch, q, why, sizeof(why)), -ERANGE);
	cr_assert(strstr(why, "registers 3 RNICs"), "%s", why);
	n = reg_body(b, "host1", 4, bad, fp);
	cr_assert_eq(rpm_ctl_read_register(inv, b, n, &h, &epoch, q, why, sizeof(why)), -ERANGE);
	n = reg_body(b, "host1", 4, big, fp);
	cr_assert_eq(rpm_ctl_read_register(inv, b, n, &h, &epoch, q, why, sizeof(why)), -ERANGE);
	b[0] ^= 0xff;
	cr_assert_eq(rpm_ctl_read_register(inv, b, n, &h, &epoch, q, why, sizeof(why)), -EPROTO,
		     "bad magic");
}

Test(ctl, targets_from_the_network_are_checked)
{
	const struct inv_rnic *r = &inv->hosts[1].rnics[2];
	struct rpm_ctl_target m = {.host = 1,
				   .rnic = 2,
				   .addr = r->addr.addr.s_addr,
				   .qpn = 0x202,
				   .src_rnic = 0,
				   .list = RPM_INTER_TOR,
				   .n_sports = 2,
				   .paths = 4,
				   .sports = {50000, 50001}};
	struct rpm_ctl_target x;
	struct rpm_target t;
	uint32_t q;
	char why[200];

	cr_assert_eq(rpm_ctl_read_target(inv, 0, &m, sizeof(m), &t, &q, why, sizeof(why)), 0);
	cr_assert_eq(t.host, 1);
	cr_assert_eq(t.rnic, 2);
	cr_assert_eq(t.sports[1], 50001);
	cr_assert_eq(q, 0x202);
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &m, sizeof(m) - 2, &t, &q, why, sizeof(why)),
		     -EPROTO);
	x = m, x.list = RPM_SERVICE;
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &x, sizeof(x), &t, &q, why, sizeof(why)), -EPROTO);
	x = m, x.n_sports = 0;
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &x, sizeof(x), &t, &q, why, sizeof(why)), -EPROTO);
	x = m, x.n_sports = RPM_SPORTS_MAX + 1;
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &x, sizeof(x), &t, &q, why, sizeof(why)), -EPROTO);
	x = m, x.host = 4;
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &x, sizeof(x), &t, &q, why, sizeof(why)), -ERANGE);
	x = m, x.src_rnic = 4;
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &x, sizeof(x), &t, &q, why, sizeof(why)), -ERANGE);
	x = m, x.qpn = 0;
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &x, sizeof(x), &t, &q, why, sizeof(why)), -ERANGE);
	x = m, x.addr ^= htonl(1);
	cr_assert_eq(rpm_ctl_read_target(inv, 0, &x, sizeof(x), &t, &q, why, sizeof(why)), -ESTALE);
}

/* ---- an agent's connection against the real server ------------------------------------------- */

struct srv {
	struct rpm_ctl *c;
	int lfd;
	atomic_bool done; /* serve() has returned */
};

static void *serve(void *arg)
{
	struct srv *s = arg;

	rpm_ctl_serve(s->c, s->lfd, 6000);
	atomic_store(&s->done, true);
	return NULL;
}

struct seen {
	size_t lists, last_n;
	uint32_t last_qpn, generation;
};

static void got(void *ctx, struct rpm_ctl_got *g)
{
	struct seen *s = ctx;

	s->lists++;
	s->last_n = g->n;
	s->last_qpn = g->n ? g->qpn[0] : 0;
	s->generation = g->generation;
}

/* Turn the agents' connections until cond holds (NULL: never) or ms pass. */
static void turn(struct rpm_ctlc *a, size_t n, struct seen *s,
		 bool (*cond)(struct rpm_ctlc *, struct seen *), unsigned long long ms)
{
	unsigned long long until = rl_now_ns() + ms * MS;

	while (!(cond && cond(a, s)) && rl_now_ns() < until) {
		struct pollfd p[4];
		size_t k[4], m = 0;

		for (size_t i = 0; i < n; i++) {
			rpm_ctlc_service(&a[i], rl_now_ns());
			if (rpm_ctlc_pollfd(&a[i], &p[m]))
				k[m++] = i;
		}
		poll(p, m, 20);
		for (size_t i = 0; i < m; i++)
			if (p[i].revents)
				rpm_ctlc_event(&a[k[i]], p[i].revents, rl_now_ns(), got, &s[k[i]]);
	}
}

static bool both_have_16(struct rpm_ctlc *a, struct seen *s)
{
	(void)a;
	return s[0].last_n == 16 && s[1].last_n == 16;
}

static bool refused(struct rpm_ctlc *a, struct seen *s)
{
	(void)s;
	return a->refusals > 0;
}

Test(ctl, agents_register_and_get_whole_lists_over_tcp)
{
	struct srv s = {fresh(1000, 3000), -1};
	struct rpm_ctlc a[3];
	struct seen seen[3] = {{0}};
	char err[160];
	pthread_t th;
	int sp[1];

	s.lfd = recin_listen("127.0.0.1", 0, err, sizeof(err)); /* any free port */
	cr_assert_geq(s.lfd, 0, "%s", err);
	{
		struct sockaddr_in sa;
		socklen_t l = sizeof(sa);
		static char spec[32];

		getsockname(s.lfd, (struct sockaddr *)&sa, &l);
		snprintf(spec, sizeof(spec), "127.0.0.1:%u", ntohs(sa.sin_port));
		cr_assert_eq(rpm_ctlc_open(&a[0], inv, 0, spec, 1, qpn_a, err, sizeof(err)), 0);
		cr_assert_eq(rpm_ctlc_open(&a[1], inv, 1, spec, 2, qpn_b, err, sizeof(err)), 0);
		cr_assert_eq(rpm_ctlc_open(&a[2], inv, 2, spec, 3, qpn_b, err, sizeof(err)), 0);
	}
	/* Junk first: a client sending garbage is counted and closed, never fatal. */
	sp[0] = socket(AF_INET, SOCK_STREAM, 0);
	{
		struct sockaddr_in sa;
		socklen_t l = sizeof(sa);

		getsockname(s.lfd, (struct sockaddr *)&sa, &l);
		cr_assert_eq(connect(sp[0], (struct sockaddr *)&sa, sizeof(sa)), 0);
	}
	cr_assert_eq(pthread_create(&th, NULL, serve, &s), 0);
	cr_assert_eq(write(sp[0], "\x07\x00\x04\x00junkjunkjunk\xff\xff\xff\xff", 20), 20);
	/* Two agents: each gets a list naming the other's 4 RNICs with their QPNs. */
	turn(a, 2, seen, both_have_16, 3000);
	cr_assert_eq(seen[0].last_n, 16);
	cr_assert_eq(seen[1].last_n, 16);
	cr_assert_eq(seen[0].last_qpn, qpn_b[0], "host1's first target is host2:rnic1");
	cr_assert_eq(seen[1].last_qpn, qpn_a[0]);
	cr_assert_eq(a[0].refresh_ms, 1000, "the controller says its refresh");
	/* A third with a mangled registration is refused (and says so), the others go on. */
	memset(a[2].reg + sizeof(struct rec_frame), 0, 4);
	turn(&a[2], 1, &seen[2], refused, 3000);
	cr_assert_geq(a[2].refusals, 1);
	cr_assert_eq(seen[2].lists, 0);
	rpm_ctlc_close(&a[2]);
	/* Renewals every refresh keep both registered past stale (3 s): no host dropped. */
	turn(a, 2, seen, NULL, 3500);
	cr_assert_geq(seen[0].lists, 3, "the list again at each renewal");
	cr_assert_eq(s.c->dropped, 0);
	/*
	 * ... and renewing until the controller stops: agents that stopped at 3.5 s
	 * were stale (3 s) before its 6 s were out whenever their last renewal came
	 * early in that second (a clean-clone CI saw both dropped).
	 */
	while (!atomic_load(&s.done))
		turn(a, 2, seen, NULL, 50);
	pthread_join(th, NULL);
	cr_assert_eq(s.c->dropped, 0);
	cr_assert_geq(s.c->renewed, 2);
	cr_assert_eq(a[0].malformed + a[1].malformed, 0);
	rpm_ctlc_close(&a[0]);
	rpm_ctlc_close(&a[1]);
	close(sp[0]);
	close(s.lfd);
	rpm_ctl_free(s.c);
}
