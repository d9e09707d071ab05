// SPDX-License-Identifier: MIT
/* R-Pingmesh's controller: registry, pinglists over the registered hosts, its server (ctl.h). */
#define _GNU_SOURCE
#include "probe/rpingmesh/ctl.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "probe/recout.h"
#include "probe/rpingmesh/params.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NS_PER_MS 1000000ULL

void rpm_ctl_defaults(struct rpm_ctl_cfg *c)
{
	*c = (struct rpm_ctl_cfg){.refresh_ms = 300000, .stale_ms = 900000};
	rpm_pl_cfg_default(&c->pl);
}

#define CT(f)	 offsetof(struct rpm_ctl_cfg, f)
#define CT_PL(f) offsetof(struct rpm_ctl_cfg, pl.f)

const struct opt_desc rpm_ctl_opts[] = {
    RPM_PL_OPTS(CT_PL),
    {"seed", OPT_UINT, 0, 4294967295.0, CT(pl.seed), "inter-ToR picks and source ports"},
    {"refresh", OPT_MS, 100, 86400000, CT(refresh_ms),
     "send every agent its pinglists again this often (agents register again as often)"},
    {"stale", OPT_MS, 100, 86400000, CT(stale_ms),
     "drop a host from every pinglist when unseen this long"},
    OPT_TABLE_END,
};

/* ---- checks ------------------------------------------------------------------------------- */

int rpm_ctl_read_register(const struct inventory *inv, const void *body, size_t len, size_t *host,
			  uint64_t *epoch, uint32_t *qpn, char *why, size_t whylen)
{
	struct rpm_ctl_register m;
	const struct inv_host *h;

	if (len < sizeof(m)) {
		snprintf(why, whylen, "a registration of %zu bytes (at least %zu)", len, sizeof(m));
		return -EPROTO;
	}
	memcpy(&m, body, sizeof(m));
	if (m.magic != RPM_CTL_MAGIC || m.version != RPM_CTL_VERSION) {
		snprintf(why, whylen, "not an R-Pingmesh registration of version %d",
			 RPM_CTL_VERSION);
		return -EPROTO;
	}
	if (len != sizeof(m) + 4u * m.n_rnics) {
		snprintf(why, whylen, "a registration of %zu bytes for %u RNICs (%zu)", len,
			 m.n_rnics, sizeof(m) + 4u * m.n_rnics);
		return -EPROTO;
	}
	m.host[sizeof(m.host) - 1] = 0;
	if (m.inv_fingerprint != inventory_fingerprint(inv)) {
		snprintf(why, whylen,
			 "host '%s' runs another inventory than the controller's %s (fingerprint "
			 "%016llx, here %016llx): give both the same file",
			 m.host, inv->name, (unsigned long long)m.inv_fingerprint,
			 (unsigned long long)inventory_fingerprint(inv));
		return -ESTALE;
	}
	if (!(h = inventory_host(inv, m.host))) {
		snprintf(why, whylen, "no host '%s' in inventory %s", m.host, inv->name);
		return -ENOENT;
	}
	if (m.n_rnics != h->n_rnics) {
		snprintf(why, whylen, "host %s registers %u RNICs; the inventory gives it %zu",
			 h->name, m.n_rnics, h->n_rnics);
		return -ERANGE;
	}
	memcpy(qpn, (const uint8_t *)body + sizeof(m), 4u * m.n_rnics);
	for (size_t i = 0; i < m.n_rnics; i++)
		if (!qpn[i] || qpn[i] > RPM_QPN_MAX) {
			snprintf(why, whylen, "host %s: RNIC %s's QPN %u is not in 1..%u", h->name,
				 h->rnics[i].name, qpn[i], RPM_QPN_MAX);
			return -ERANGE;
		}
	*host = (size_t)(h - inv->hosts);
	*epoch = m.epoch;
	return 0;
}

int rpm_ctl_read_target(const struct inventory *inv, size_t host, const void *body, size_t len,
			struct rpm_target *t, uint32_t *qpn, char *why, size_t whylen)
{
	struct rpm_ctl_target m;
	const struct inv_rnic *r;

	if (len != sizeof(m)) {
		snprintf(why, whylen, "a target of %zu bytes (%zu)", len, sizeof(m));
		return -EPROTO;
	}
	memcpy(&m, body, sizeof(m));
	if (m.list != RPM_TOR_MESH && m.list != RPM_INTER_TOR) {
		snprintf(why, whylen, "a target on list %u (0 ToR-mesh, 1 inter-ToR)", m.list);
		return -EPROTO;
	}
	if (!m.n_sports || m.n_sports > RPM_SPORTS_MAX) {
		snprintf(why, whylen, "a target with %u source ports (1..%d)", m.n_sports,
			 RPM_SPORTS_MAX);
		return -EPROTO;
	}
	if (host >= inv->n_hosts || m.src_rnic >= inv->hosts[host].n_rnics ||
	    m.host >= inv->n_hosts || m.rnic >= inv->hosts[m.host].n_rnics) {
		snprintf(why, whylen, "a target %u:%u from RNIC %u: past the inventory", m.host,
			 m.rnic, m.src_rnic);
		return -ERANGE;
	}
	if (!m.qpn || m.qpn > RPM_QPN_MAX) {
		snprintf(why, whylen, "a target's QPN %u is not in 1..%u", m.qpn, RPM_QPN_MAX);
		return -ERANGE;
	}
	r = &inv->hosts[m.host].rnics[m.rnic];
	if (m.addr != r->addr.addr.s_addr) {
		snprintf(why, whylen, "target %s:%s at another address than the inventory's",
			 inv->hosts[m.host].name, r->name);
		return -ESTALE;
	}
	*t = (struct rpm_target){.src_rnic = m.src_rnic,
				 .host = m.host,
				 .rnic = m.rnic,
				 .list = (enum rpm_list)m.list,
				 .paths = m.paths,
				 .n_sports = m.n_sports};
	memcpy(t->sports, m.sports, sizeof(m.sports));
	*qpn = m.qpn;
	return 0;
}

/* ---- the registry ---------------------------------------------------------------------------- */

struct rpm_ctl *rpm_ctl_new(const struct inventory *inv, const struct rpm_ctl_cfg *cfg)
{
	struct rpm_ctl *c = rl_xcalloc(1, sizeof(*c));

	c->inv = inv;
	c->cfg = *cfg;
	c->h = rl_xcalloc(inv->n_hosts ? inv->n_hosts : 1, sizeof(*c->h));
	c->live = rl_xcalloc(inv->n_hosts ? inv->n_hosts : 1, sizeof(*c->live));
	c->cfg.pl.live = c->live;
	c->fab = rpm_fabric_new(inv);
	for (size_t i = 0; i < inv->n_hosts; i++)
		c->h[i].qpn = rl_xcalloc(inv->hosts[i].n_rnics + 1, sizeof(uint32_t));
	return c;
}

void rpm_ctl_free(struct rpm_ctl *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->inv->n_hosts; i++)
		free(c->h[i].qpn);
	free(c->h);
	free(c->live);
	rpm_fabric_free(c->fab);
	free(c);
}

int rpm_ctl_register(struct rpm_ctl *c, size_t host, uint64_t epoch, const uint32_t *qpn,
		     unsigned long long now)
{
	struct rpm_ctl_host *h = &c->h[host];
	size_t n = c->inv->hosts[host].n_rnics;
	bool changed = !h->live || h->epoch != epoch || memcmp(h->qpn, qpn, 4 * n);

	h->seen = now;
	if (!changed) {
		c->renewed++;
		return 0;
	}
	h->live = c->live[host] = true;
	h->epoch = epoch;
	memcpy(h->qpn, qpn, 4 * n);
	c->registered++;
	c->generation++;
	return 1;
}

size_t rpm_ctl_expire(struct rpm_ctl *c, unsigned long long now,
		      void (*dropped)(void *, size_t host, unsigned long long unseen_ns), void *ctx)
{
	unsigned long long stale = (unsigned long long)c->cfg.stale_ms * NS_PER_MS;
	size_t n = 0;

	for (size_t i = 0; i < c->inv->n_hosts; i++) {
		struct rpm_ctl_host *h = &c->h[i];

		if (!h->live || now - h->seen < stale)
			continue;
		h->live = c->live[i] = false;
		c->dropped++;
		n++;
		if (dropped)
			dropped(ctx, i, now - h->seen);
	}
	if (n)
		c->generation++;
	return n;
}

size_t rpm_ctl_live(const struct rpm_ctl *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->inv->n_hosts; i++)
		n += c->h[i].live;
	return n;
}

int rpm_ctl_pinglist(const struct rpm_ctl *c, size_t host, struct rpm_pinglist *pl, uint32_t **qpn)
{
	int r;

	*qpn = NULL;
	if (host >= c->inv->n_hosts || !c->h[host].live) {
		*pl = (struct rpm_pinglist){.host = host};
		return -ENOENT;
	}
	r = rpm_pinglist_on(c->fab, host, &c->cfg.pl, pl);
	if (r)
		return r;
	*qpn = rl_xcalloc(pl->n ? pl->n : 1, sizeof(**qpn));
	for (size_t i = 0; i < pl->n; i++)
		(*qpn)[i] = c->h[pl->t[i].host].qpn[pl->t[i].rnic];
	return 0;
}

/* ---- the server -------------------------------------------------------------------------------
 */

#define IN_MAX	      (sizeof(struct rec_frame) + sizeof(struct rpm_ctl_register) + 4 * 256)
#define OUT_MAX	      (64u << 20) /* a connection that takes no lists is dropped past this */
#define REG_WITHIN_NS (10ULL * 1000000000ULL)

struct cconn {
	int fd;
	int host; /* -1 until it registers */
	bool closing;
	unsigned long long since;
	char peer[48];
	uint8_t in[IN_MAX];
	size_t in_len;
	uint8_t *out;
	size_t out_len, out_off, out_cap;
};

struct server {
	struct rpm_ctl *c;
	struct cconn *cn;
	size_t n, max;
	unsigned long long malformed, refused, lists, targets;
};

static void queue(struct cconn *k, uint16_t type, const void *body, uint16_t len)
{
	struct rec_frame f = {type, len};

	if (k->out_len + sizeof(f) + len > k->out_cap) {
		k->out_cap = (k->out_len + sizeof(f) + len) * 2;
		k->out = rl_xrealloc(k->out, k->out_cap, 1);
	}
	memcpy(k->out + k->out_len, &f, sizeof(f));
	memcpy(k->out + k->out_len + sizeof(f), body, len);
	k->out_len += sizeof(f) + len;
}

static void refuse(struct server *s, struct cconn *k, const char *why)
{
	struct rpm_ctl_refuse m = {{0}};

	snprintf(m.why, sizeof(m.why), "%.159s", why);
	queue(k, RPM_CTL_REFUSE, &m, sizeof(m));
	k->closing = true;
	s->refused++;
}

static void send_list(struct server *s, struct cconn *k)
{
	const struct inventory *inv = s->c->inv;
	struct rpm_pinglist pl;
	uint32_t *qpn;
	struct rpm_ctl_list l = {.generation = s->c->generation,
				 .refresh_ms = (uint32_t)s->c->cfg.refresh_ms};

	if (rpm_ctl_pinglist(s->c, (size_t)k->host, &pl, &qpn))
		return;
	l.count = (uint32_t)pl.n;
	queue(k, RPM_CTL_LIST, &l, sizeof(l));
	for (size_t i = 0; i < pl.n; i++) {
		const struct rpm_target *t = &pl.t[i];
		struct rpm_ctl_target m = {
		    .host = (uint16_t)t->host,
		    .rnic = (uint16_t)t->rnic,
		    .addr = inv->hosts[t->host].rnics[t->rnic].addr.addr.s_addr,
		    .qpn = qpn[i],
		    .src_rnic = (uint8_t)t->src_rnic,
		    .list = (uint8_t)t->list,
		    .n_sports = (uint8_t)t->n_sports,
		    .paths = (uint16_t)t->paths,
		};

		memcpy(m.sports, t->sports, sizeof(m.sports));
		queue(k, RPM_CTL_TARGET, &m, sizeof(m));
	}
	queue(k, RPM_CTL_END, &(struct rpm_ctl_end){l.generation, l.count},
	      sizeof(struct rpm_ctl_end));
	s->lists++;
	s->targets += pl.n;
	free(qpn);
	rpm_pinglist_free(&pl);
}

static void list_all(struct server *s)
{
	size_t hosts = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->cn[i].host >= 0 && !s->cn[i].closing && s->c->h[s->cn[i].host].live) {
			send_list(s, &s->cn[i]);
			hosts++;
		}
	rl_info("controller: pinglists generation %u to %zu agents (%zu hosts registered)",
		s->c->generation, hosts, rpm_ctl_live(s->c));
}

/* A REGISTER frame: true when every list is to be sent again. */
static bool take_register(struct server *s, struct cconn *k, const void *body, size_t len,
			  unsigned long long now)
{
	const struct inventory *inv = s->c->inv;
	uint32_t qpn[256];
	uint64_t epoch;
	size_t h;
	char why[256];
	int r = rpm_ctl_read_register(inv, body, len, &h, &epoch, qpn, why, sizeof(why));
	bool was_live, known;

	if (r) {
		rl_warn("controller: %s: refused: %s", k->peer, why);
		refuse(s, k, why);
		return false;
	}
	for (size_t i = 0; i < s->n; i++)
		if (&s->cn[i] != k && s->cn[i].host == (int)h) {
			rl_info("controller: %s registers again from %s: the old connection "
				"is closed",
				inv->hosts[h].name, k->peer);
			s->cn[i].host = -1;
			s->cn[i].closing = true;
		}
	k->host = (int)h;
	was_live = s->c->h[h].live;
	known = s->c->h[h].epoch != 0 || s->c->h[h].seen != 0;
	if (!rpm_ctl_register(s->c, h, epoch, qpn, now)) {
		send_list(s, k); /* the refresh: the same list again */
		return false;
	}
	rl_info("controller: %s %s (epoch %016llx, %zu RNICs, first QPN 0x%x, from %s)",
		inv->hosts[h].name,
		was_live ? "registered anew: its agent restarted"
		: known	 ? "registered again after it was dropped"
			 : "registered",
		(unsigned long long)epoch, inv->hosts[h].n_rnics, qpn[0], k->peer);
	return true;
}

/* The whole frames in k->in; false when the connection is to be closed. */
static bool take_frames(struct server *s, struct cconn *k, bool *all, unsigned long long now)
{
	size_t off = 0;

	while (k->in_len - off >= sizeof(struct rec_frame)) {
		struct rec_frame f;

		memcpy(&f, k->in + off, sizeof(f));
		if (sizeof(f) + f.len > sizeof(k->in)) {
			rl_warn("controller: %s: a frame of %u bytes (type %u): not an agent; "
				"closed",
				k->peer, f.len, f.type);
			s->malformed++;
			return false;
		}
		if (k->in_len - off < sizeof(f) + f.len)
			break;
		if (f.type == RPM_CTL_REGISTER)
			*all |= take_register(s, k, k->in + off + sizeof(f), f.len, now);
		else
			s->malformed++; /* not for a controller: skipped by its length */
		off += sizeof(f) + f.len;
	}
	memmove(k->in, k->in + off, k->in_len - off);
	k->in_len -= off;
	return true;
}

static void conn_close(struct server *s, size_t i)
{
	close(s->cn[i].fd);
	free(s->cn[i].out);
	s->cn[i] = s->cn[--s->n];
}

static void accept_all(struct server *s, int lfd, unsigned long long now)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd;

	while ((fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC)) >=
	       0) {
		struct cconn *k;

		sl = sizeof(sa);
		if (!inventory_peer_ok(s->c->inv,
				       sa.sin_addr)) { /* pinglists: the lab's hosts only */
			rl_warn("controller: %s is no host of %s: refused", inet_ntoa(sa.sin_addr),
				s->c->inv->name);
			close(fd);
			continue;
		}
		if (s->n == s->max) {
			rl_warn("controller: %zu connections already: one refused", s->n);
			close(fd);
			continue;
		}
		k = &s->cn[s->n++];
		*k = (struct cconn){.fd = fd, .host = -1, .since = now};
		snprintf(k->peer, sizeof(k->peer), "%s:%u", inet_ntoa(sa.sin_addr),
			 ntohs(sa.sin_port));
		sl = sizeof(sa);
	}
}

/* One connection's turn: false when it is to be closed. */
static bool conn_turn(struct server *s, struct cconn *k, short rev, bool *all,
		      unsigned long long now)
{
	if (k->host < 0 && !k->closing && now - k->since > REG_WITHIN_NS) {
		rl_warn("controller: %s: no registration within 10 s; closed", k->peer);
		return false;
	}
	if (rev & POLLOUT && k->out_off < k->out_len) {
		ssize_t w = send(k->fd, k->out + k->out_off, k->out_len - k->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (w > 0 && (k->out_off += (size_t)w) == k->out_len)
			k->out_off = k->out_len = 0;
	}
	if (k->out_len - k->out_off > OUT_MAX) {
		rl_warn("controller: %s: takes no lists (%zu bytes waiting); closed", k->peer,
			k->out_len - k->out_off);
		return false;
	}
	if (k->closing)
		return k->out_off < k->out_len;
	if (rev & (POLLIN | POLLHUP | POLLERR)) {
		ssize_t r = read(k->fd, k->in + k->in_len, sizeof(k->in) - k->in_len);

		if (r < 0)
			return errno == EAGAIN || errno == EINTR;
		if (r == 0) {
			if (k->host >= 0)
				rl_info("controller: %s's agent disconnected",
					s->c->inv->hosts[k->host].name);
			return false;
		}
		k->in_len += (size_t)r;
		return take_frames(s, k, all, now);
	}
	return true;
}

static void said_dropped(void *ctx, size_t host, unsigned long long unseen)
{
	struct server *s = ctx;

	rl_info("controller: %s unseen for %.1f s: dropped from every pinglist (%zu hosts "
		"registered)",
		s->c->inv->hosts[host].name, (double)unseen / 1e9, rpm_ctl_live(s->c));
}

int rpm_ctl_serve(struct rpm_ctl *c, int lfd, long long duration_ms)
{
	struct server s = {.c = c, .max = 2 * c->inv->n_hosts + 16};
	unsigned long long start = rl_now_ns(), next_expire = start,
			   end = duration_ms ? start + (unsigned long long)duration_ms * NS_PER_MS
					     : ULLONG_MAX;
	struct pollfd *pfd;

	s.cn = rl_xcalloc(s.max, sizeof(*s.cn));
	pfd = rl_xcalloc(s.max + 1, sizeof(*pfd));
	rl_info("controller: R-Pingmesh: %zu hosts in %s, refresh %.1f s, stale after %.1f s",
		c->inv->n_hosts, c->inv->name, (double)c->cfg.refresh_ms / 1e3,
		(double)c->cfg.stale_ms / 1e3);
	while (!rl_interrupted) {
		unsigned long long now = rl_now_ns();
		bool all = false;
		int nfd = 0;

		if (now >= end)
			break;
		if (now >= next_expire) {
			all |= rpm_ctl_expire(c, now, said_dropped, &s) > 0;
			next_expire = now + 250 * NS_PER_MS;
		}
		pfd[nfd++] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (size_t i = 0; i < s.n; i++)
			pfd[nfd++] = (struct pollfd){
			    .fd = s.cn[i].fd,
			    .events = (short)(POLLIN |
					      (s.cn[i].out_off < s.cn[i].out_len ? POLLOUT : 0))};
		if (poll(pfd, (nfds_t)nfd, 250) < 0 && errno != EINTR)
			break;
		now = rl_now_ns();
		if (pfd[0].revents)
			accept_all(&s, lfd, now);
		for (size_t i = (size_t)nfd - 1; i >= 1; i--)
			if (i - 1 < s.n && !conn_turn(&s, &s.cn[i - 1], pfd[i].revents, &all, now))
				conn_close(&s, i - 1);
		if (all)
			list_all(&s);
		/* What was just queued goes now, not at the next turn. */
		for (size_t i = 0; i < s.n; i++)
			if (s.cn[i].out_off < s.cn[i].out_len &&
			    !conn_turn(&s, &s.cn[i], POLLOUT, &all, now))
				conn_close(&s, i--);
	}
	rl_info("controller: %llu registrations (%llu renewals), %llu hosts dropped as stale, "
		"%llu pinglists sent (%llu targets), %llu malformed frames, %llu agents refused",
		c->registered, c->renewed, c->dropped, s.lists, s.targets, s.malformed, s.refused);
	while (s.n)
		conn_close(&s, s.n - 1);
	free(s.cn);
	free(pfd);
	return RL_EXIT_OK;
}

/* ---- the agent's side ------------------------------------------------------------------------ */

int rpm_ctlc_open(struct rpm_ctlc *c, const struct inventory *inv, size_t host, const char *spec,
		  uint64_t epoch, const uint32_t *qpn, char *err, size_t errlen)
{
	const struct inv_host *h = &inv->hosts[host];
	struct rec_frame f = {RPM_CTL_REGISTER,
			      (uint16_t)(sizeof(struct rpm_ctl_register) + 4 * h->n_rnics)};
	struct rpm_ctl_register m = {.magic = RPM_CTL_MAGIC,
				     .version = RPM_CTL_VERSION,
				     .n_rnics = (uint8_t)h->n_rnics,
				     .inv_fingerprint = inventory_fingerprint(inv),
				     .epoch = epoch};

	*c = (struct rpm_ctlc){.inv = inv, .host = host, .fd = -1, .spec = spec};
	if (recout_parse_addr(spec, RPM_CTL_PORT, &c->sa)) {
		snprintf(err, errlen, "--controller '%s' is not ADDR[:PORT] with an IPv4 address",
			 spec);
		return -EINVAL;
	}
	snprintf(m.host, sizeof(m.host), "%s", h->name);
	memcpy(c->reg, &f, sizeof(f));
	memcpy(c->reg + sizeof(f), &m, sizeof(m));
	memcpy(c->reg + sizeof(f) + sizeof(m), qpn, 4 * h->n_rnics);
	c->reg_len = sizeof(f) + f.len;
	return 0;
}

static void got_free(struct rpm_ctl_got *g)
{
	free(g->t);
	free(g->qpn);
	*g = (struct rpm_ctl_got){0};
}

static void ctlc_drop(struct rpm_ctlc *c, const char *why, unsigned long long now)
{
	if (c->fd >= 0)
		close(c->fd);
	if (!c->first_try)
		c->first_try = now;
	/* Started beside it, an agent may come first: it says so after 3 s of trying. */
	if (c->connected ||
	    (!c->said_down && (c->lists || now - c->first_try > 3000 * NS_PER_MS))) {
		rl_warn("agent: controller at %s: %s; trying again every second (the pinglist "
			"stays as it was)",
			c->spec, why);
		c->said_down = true;
	}
	c->fd = -1;
	c->connecting = c->connected = c->in_list = false;
	c->in_len = 0;
	got_free(&c->cur);
	c->next_try = now + (c->lists ? 1000 : 200) * NS_PER_MS;
}

void rpm_ctlc_close(struct rpm_ctlc *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	got_free(&c->cur);
}

static void ctlc_register(struct rpm_ctlc *c, unsigned long long now)
{
	ssize_t w = send(c->fd, c->reg, c->reg_len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (w >= 0 && (size_t)w < c->reg_len)
		ctlc_drop(c, "a registration cut short", now);
	else if (w < 0 && errno != EAGAIN && errno != EINTR)
		ctlc_drop(c, strerror(errno), now);
	/* Within a refresh, and a little before it runs out. */
	c->next_reg =
	    now + (unsigned long long)(c->refresh_ms ? c->refresh_ms : 1000) * NS_PER_MS * 3 / 4;
}

void rpm_ctlc_service(struct rpm_ctlc *c, unsigned long long now)
{
	if (c->fd < 0 && now >= c->next_try) {
		c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->fd < 0) {
			ctlc_drop(c, strerror(errno), now);
			return;
		}
		c->fds++;
		if (connect(c->fd, (struct sockaddr *)&c->sa, sizeof(c->sa)) == 0)
			c->connected = true;
		else if (errno == EINPROGRESS)
			c->connecting = true;
		else {
			ctlc_drop(c, strerror(errno), now);
			return;
		}
		if (c->connected)
			ctlc_register(c, now);
	}
	if (c->connected && now >= c->next_reg)
		ctlc_register(c, now);
}

bool rpm_ctlc_pollfd(const struct rpm_ctlc *c, struct pollfd *p)
{
	if (c->fd < 0)
		return false;
	*p = (struct pollfd){.fd = c->fd, .events = (short)(c->connecting ? POLLOUT : POLLIN)};
	return true;
}

/* One frame from the controller. */
static void ctlc_frame(struct rpm_ctlc *c, const struct rec_frame *f, const uint8_t *body,
		       void (*got)(void *, struct rpm_ctl_got *), void *ctx)
{
	char why[200];

	switch (f->type) {
	case RPM_CTL_LIST: {
		struct rpm_ctl_list l;

		if (f->len != sizeof(l))
			break;
		memcpy(&l, body, sizeof(l));
		got_free(&c->cur);
		c->cur.generation = l.generation;
		c->cur.refresh_ms = l.refresh_ms;
		c->want = l.count;
		c->in_list = true;
		return;
	}
	case RPM_CTL_TARGET: {
		struct rpm_target t;
		uint32_t q;

		if (!c->in_list || c->cur.n >= c->want)
			break;
		if (rpm_ctl_read_target(c->inv, c->host, body, f->len, &t, &q, why, sizeof(why))) {
			rl_warn("agent: controller at %s: %s: the list is left out", c->spec, why);
			c->in_list = false;
			break;
		}
		*RL_PUSH(c->cur.t, c->cur.n) = t;
		c->cur.qpn = rl_xrealloc(c->cur.qpn, c->cur.n, sizeof(*c->cur.qpn));
		c->cur.qpn[c->cur.n - 1] = q;
		return;
	}
	case RPM_CTL_END: {
		struct rpm_ctl_end e;

		if (f->len != sizeof(e) || !c->in_list)
			break;
		memcpy(&e, body, sizeof(e));
		c->in_list = false;
		if (e.generation != c->cur.generation || e.count != c->cur.n)
			break;
		if (c->cur.refresh_ms)
			c->refresh_ms = c->cur.refresh_ms;
		c->lists++;
		got(ctx, &c->cur);
		got_free(&c->cur);
		return;
	}
	case RPM_CTL_REFUSE: {
		struct rpm_ctl_refuse r;

		if (f->len != sizeof(r))
			break;
		memcpy(&r, body, sizeof(r));
		r.why[sizeof(r.why) - 1] = 0;
		rl_err("agent: the controller at %s refused this agent: %s", c->spec, r.why);
		c->refusals++;
		return;
	}
	}
	c->malformed++;
}

void rpm_ctlc_event(struct rpm_ctlc *c, short revents, unsigned long long now,
		    void (*got)(void *, struct rpm_ctl_got *), void *ctx)
{
	ssize_t r;

	if (c->connecting && (revents & (POLLOUT | POLLERR | POLLHUP))) {
		int e = 0;
		socklen_t l = sizeof(e);

		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &l);
		c->connecting = false;
		if (e) {
			ctlc_drop(c, strerror(e), now);
			return;
		}
		c->connected = true;
		c->said_down = false;
		rl_info("agent: registering with the controller at %s", c->spec);
		ctlc_register(c, now);
		return;
	}
	if (!c->connected || !(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	r = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		ctlc_drop(c, r == 0 ? "closed" : strerror(errno), now);
		return;
	}
	if (r > 0 && rpm_ctlc_feed(c, NULL, (size_t)r, got, ctx))
		ctlc_drop(c, "a frame longer than any of the protocol's", now);
}

int rpm_ctlc_feed(struct rpm_ctlc *c, const void *data, size_t len,
		  void (*got)(void *, struct rpm_ctl_got *), void *ctx)
{
	size_t off = 0;

	if (data) {
		if (len > sizeof(c->in) - c->in_len)
			len = sizeof(c->in) - c->in_len;
		memcpy(c->in + c->in_len, data, len);
	}
	c->in_len += len;
	while (c->in_len - off >= sizeof(struct rec_frame)) {
		struct rec_frame f;

		memcpy(&f, c->in + off, sizeof(f));
		if (sizeof(f) + f.len > sizeof(c->in)) {
			c->malformed++;
			c->in_len = 0;
			return -EPROTO;
		}
		if (c->in_len - off < sizeof(f) + f.len)
			break;
		ctlc_frame(c, &f, c->in + off + sizeof(f), got, ctx);
		off += sizeof(f) + f.len;
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return 0;
}
