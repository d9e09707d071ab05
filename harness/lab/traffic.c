// SPDX-License-Identifier: MIT
/* Generates verification and load traffic from RNIC addresses, opened in the hosts' network
 * contexts. */
#define _GNU_SOURCE
#include "harness/lab/traffic.h"

#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "harness/lib/topo.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/ip.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * A flow's sender: a raw IPv4 socket (IPPROTO_RAW: our own header) bound to
 * the RNIC's address, each source port numbering its own IP IDs one after
 * another, as an RNIC numbers a QP's packets.  The kernel numbers all a
 * flow's datagrams from one counter (ip_idents, by source and destination),
 * so a sender rotating over 32 source ports gave each port every 32nd ID:
 * all even or all odd.  ECMP takes some ports across a link and not others,
 * and a drop of one ID in 10 took a fifth of one port's datagrams and none of
 * the next, so what crossed a link lost anything from 5% to 15%.  Where no
 * raw socket can be opened (EPERM: not root), UDP sockets, one per source
 * port, and the kernel's IDs.
 */
#define FLOW_TX_PORTS 64
#define FLOW_TX_HDR   28 /* IPv4 and UDP headers */

struct flow_tx {
	int raw;		/* -1: the UDP sockets */
	int udp[FLOW_TX_PORTS]; /* by source port when raw is -1 */
	uint16_t port[FLOW_TX_PORTS];
	int n;
	uint16_t id[FLOW_TX_PORTS]; /* each port's next IP ID */
	struct sockaddr_in to;
	size_t len; /* the datagram from the IPv4 header on */
	/* sends the host refused for want of room (EAGAIN, ENOBUFS): what is downstream held
	 * them (a full queue, a paused NIC), not this CPU */
	unsigned long long refused;
	uint8_t pkt[FLOW_TX_HDR + 1472];
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A UDP socket on the flow's host, bound to its RNIC address and sport. */
static int flow_socket(struct lab *l, const struct inv_host *h, const struct flow *f,
		       uint16_t sport, int tos)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_addr = h->rnics[f->src.port].addr.addr,
				 .sin_port = htons(sport)};
	int fd, one = 1, ret;

	fd = lab_socket(l, h->name, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static void flow_tx_close(struct flow_tx *t)
{
	if (t->raw >= 0)
		close(t->raw);
	for (int k = 0; k < t->n; k++)
		if (t->udp[k] >= 0)
			close(t->udp[k]);
	t->raw = -1;
	t->n = 0;
}

/*
 * Open f's sender on ports[0, n) (n <= FLOW_TX_PORTS) to dport, with IP TOS
 * tos and payload bytes of text.  0, or -errno when no port can send (a UDP
 * socket that cannot be bound is warned about and skipped).
 */
static int flow_tx_open(struct lab *l, const struct flow *f, const uint16_t *ports, int n,
			uint16_t dport, int tos, int payload, const char *text, struct flow_tx *t)
{
	const struct inv_host *h = &l->inv->hosts[f->src.dev];
	struct in_addr src = h->rnics[f->src.port].addr.addr;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = src};
	int ok = 0, r;

	*t = (struct flow_tx){
	    .raw = -1,
	    .n = n,
	    .to = {.sin_family = AF_INET, .sin_addr = f->dst, .sin_port = htons(dport)},
	    .len = FLOW_TX_HDR + (size_t)payload};
	memcpy(t->port, ports, (size_t)n * sizeof(*ports));
	for (int k = 0; k < FLOW_TX_PORTS; k++)
		t->udp[k] = -1;
	for (int k = 0; k < n; k++) {
		/* a start of its own (the same each run), as QPs start anywhere */
		uint32_t x = (ntohl(src.s_addr) * 2654435761u ^ ntohl(f->dst.s_addr)) * 40503u +
			     ports[k] * 2246822519u;

		t->id[k] = (uint16_t)(1 + (x ^ x >> 15) % 0xffff);
	}
	snprintf((char *)t->pkt + FLOW_TX_HDR, sizeof(t->pkt) - FLOW_TX_HDR, "%s", text);
	t->pkt[0] = 0x45;
	t->pkt[1] = (uint8_t)tos;
	put16(t->pkt + 2, (uint16_t)t->len);
	put16(t->pkt + 6, 0x4000); /* DF, as the kernel's UDP and RoCE stacks send */
	t->pkt[8] = 64;
	t->pkt[9] = IPPROTO_UDP;
	memcpy(t->pkt + 12, &src, 4);
	memcpy(t->pkt + 16, &f->dst, 4);
	/* the header checksum and total length the kernel fills; UDP checksum 0 (IPv4 allows it) */
	put16(t->pkt + 22, dport);
	put16(t->pkt + 24, (uint16_t)(t->len - 20));

	if ((r = lab_socket(l, h->name, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW)) >= 0) {
		setsockopt(r, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)); /* routed by it */
		if (bind(r, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			t->raw = r;
			return 0;
		}
		ok = -errno;
		close(r);
		return ok;
	}
	if (r != -EPERM && r != -EACCES)
		return r;
	rl_warn("load: no raw socket on %s (%s): UDP sockets, the kernel numbering IP IDs", h->name,
		strerror(-r));
	for (int k = 0; k < n; k++) {
		t->udp[k] = flow_socket(l, h, f, ports[k], tos);
		if (t->udp[k] >= 0)
			ok++;
		else
			rl_warn("load: flow to %s: no socket on source port %u: %s",
				inet_ntoa(f->dst), ports[k], strerror(-t->udp[k]));
	}
	return ok ? 0 : -EADDRNOTAVAIL;
}

/* A send that failed: counted as refused when the host had no room for it. */
static bool flow_tx_failed(struct flow_tx *t)
{
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		t->refused++;
	return false;
}

/* Send one datagram from port k: true when it left. */
static bool flow_tx_send(struct flow_tx *t, int k, int flags)
{
	if (t->raw < 0) {
		if (t->udp[k] < 0)
			return false;
		return sendto(t->udp[k], t->pkt + FLOW_TX_HDR, t->len - FLOW_TX_HDR, flags,
			      (struct sockaddr *)&t->to, sizeof(t->to)) > 0 ||
		       flow_tx_failed(t);
	}
	put16(t->pkt + 4, t->id[k]);
	put16(t->pkt + 20, t->port[k]);
	if (sendto(t->raw, t->pkt, t->len, flags, (struct sockaddr *)&t->to, sizeof(t->to)) <= 0)
		return flow_tx_failed(t);
	t->id[k] = t->id[k] == 0xffff ? 1 : t->id[k] + 1; /* not 0: the kernel would pick one */
	return true;
}

static bool dst_ok(struct in_addr a)
{
	/* Never send anywhere but the lab's own range. */
	return topo_addr_is_lab(a);
}

int traffic_send(struct lab *l, const struct flow *flows, size_t n, uint16_t dport, uint16_t sport0,
		 int n_sports, int pkts, int tos, int payload)
{
	uint16_t ports[FLOW_TX_PORTS];
	int sent = 0;

	if (payload < 16 || payload > 1472 || n_sports < 1 || n_sports > FLOW_TX_PORTS)
		return -EINVAL;
	for (int s = 0; s < n_sports; s++)
		ports[s] = (uint16_t)(sport0 + s);
	for (size_t i = 0; i < n; i++) {
		struct flow_tx t;
		int rc;

		if (!dst_ok(flows[i].dst))
			return -EPERM;
		if ((rc = flow_tx_open(l, &flows[i], ports, n_sports, dport, tos, payload,
				       "rocelab-verify", &t)) < 0)
			return rc;
		for (int s = 0; s < n_sports; s++)
			for (int k = 0; k < pkts; k++)
				sent += flow_tx_send(&t, s, 0);
		flow_tx_close(&t);
	}
	return sent;
}

/* A sender told to stop (SIGTERM, SIGINT) ends its loop and still reports what it sent. */
static volatile sig_atomic_t blast_stopped;
static int blast_progress_fd = -1;

void traffic_blast_progress(int fd)
{
	blast_progress_fd = fd;
}

/*
 * One "sent FLOW REALTIME COUNT REFUSED" line: what flow has sent by then,
 * and how many sends the host refused for want of room (a single write).
 */
static void blast_progress(size_t flow, long long sent, unsigned long long refused)
{
	struct timespec ts;

	if (blast_progress_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	dprintf(blast_progress_fd, "sent %zu %lld.%03ld %lld %llu\n", flow, (long long)ts.tv_sec,
		ts.tv_nsec / 1000000, sent, refused);
}

static void blast_stop(int sig)
{
	(void)sig;
	blast_stopped = 1;
}

#define BLAST_DEPTH_MS	  50	    /* a paced sender's bucket */
#define BLAST_PROGRESS_NS 100000000 /* traffic_blast_progress() lines this often */

long long traffic_blast(struct lab *l, const struct flow *flows, size_t n, uint16_t dport, int tos,
			int payload, int n_sports, uint16_t sport0, long long duration_ms,
			unsigned long long pps)
{
	pid_t *pids = rl_xcalloc(n, sizeof(*pids));
	int pipefd[2];
	long long total = 0;

	if (payload < 16 || payload > 1472 || n_sports < 1)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!dst_ok(flows[i].dst)) {
			free(pids);
			return -EPERM;
		}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		free(pids);
		return -errno;
	}
	for (size_t i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			continue;
		if (pids[i] == 0) {
			struct flow_tx t;
			uint16_t ports[FLOW_TX_PORTS];
			long long sent = 0;
			unsigned long long start = rl_now_ns(),
					   end =
					       start + (unsigned long long)duration_ms * 1000000ULL;
			const struct flow *fl = &flows[i];
			int ns = fl->n_pin		    ? (int)fl->n_pin
				 : n_sports > FLOW_TX_PORTS ? FLOW_TX_PORTS
							    : n_sports;
			int first = sport0 ? sport0 + (int)i : 50000 + 97 * (int)i, rc;

			struct sigaction stop = {.sa_handler = blast_stop};

			sigaction(SIGINT, &stop, NULL);
			sigaction(SIGTERM, &stop, NULL);
			for (int s = 0; s < ns; s++)
				ports[s] = (uint16_t)(fl->n_pin ? fl->pin[s] : first + s);
			if ((rc = flow_tx_open(l, fl, ports, ns, dport, tos, payload,
					       "rocelab-load", &t)) < 0) {
				rl_warn("load: flow %zu to %s: cannot send: %s", i,
					inet_ntoa(fl->dst), strerror(-rc));
				t.n = 0;
				end = start;
			}
			/*
			 * Paced: a token bucket at pps, BLAST_DEPTH_MS deep.  A sender the
			 * CPU held back does not catch up in a burst: what it could not
			 * send then is not sent (a monitor comparing a flow's rate with
			 * its best would take the burst as the best).
			 */
			unsigned long long depth = pps * BLAST_DEPTH_MS / 1000 + 1, paid = 0,
					   next = start + BLAST_PROGRESS_NS;

			blast_progress(i, 0, 0);
			for (unsigned k = 0;; k++) {
				unsigned long long now = rl_now_ns(), due;

				if (now >= end || blast_stopped)
					break;
				if (now >= next) {
					blast_progress(i, sent, t.refused);
					next = now + BLAST_PROGRESS_NS;
				}
				/* in microseconds: an hour at 10 million a second fits 64 bits */
				due = (now - start) / 1000 * pps / 1000000ULL;
				if (pps && due > paid + depth)
					paid =
					    due - depth; /* the debt past the bucket is forgiven */
				/* sleeping 1 ms when ahead */
				if (pps && paid >= due) {
					struct timespec ms = {0, 1000000};

					nanosleep(&ms, NULL);
					continue;
				}
				if (t.n && flow_tx_send(&t, (int)(k % (unsigned)ns), MSG_DONTWAIT))
					sent++, paid++;
			}
			blast_progress(i, sent, t.refused);
			if (write(pipefd[1], &sent, sizeof(sent)) < 0)
				_exit(1);
			_exit(0);
		}
	}
	close(pipefd[1]);
	for (size_t i = 0; i < n; i++) {
		long long s;

		if (pids[i] > 0) {
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR) {
				if (rl_interrupted)
					kill(pids[i], SIGTERM);
			}
		}
		if (read(pipefd[0], &s, sizeof(s)) == sizeof(s))
			total += s;
	}
	close(pipefd[0]);
	free(pids);
	return total;
}

/* What (sw, port) is cabled to. */
static bool port_peer(const struct inventory *inv, size_t sw, size_t port,
		      struct inv_endpoint *peer)
{
	struct inv_endpoint ep = {INV_DEV_SWITCH, sw, port};

	return inventory_peer(inv, &ep, peer) == 0;
}

/* RNICs cabled to switch sw. */
static size_t rnics_under(const struct inventory *inv, size_t sw, struct inv_endpoint *out,
			  size_t max)
{
	size_t n = 0;

	for (size_t p = 0; p < inv->switches[sw].n_ports && n < max; p++) {
		struct inv_endpoint peer;

		if (port_peer(inv, sw, p, &peer) && peer.kind == INV_DEV_HOST)
			out[n++] = peer;
	}
	return n;
}

static bool is_edge(const struct inventory *inv, size_t sw)
{
	struct inv_endpoint tmp;

	return rnics_under(inv, sw, &tmp, 1) > 0;
}

static struct in_addr rnic_addr(const struct inventory *inv, const struct inv_endpoint *e)
{
	return inv->hosts[e->dev].rnics[e->port].addr.addr;
}

/* Add flows from each of a[] to a partner in b[] (same host preferred, as Hostmesh probes). */
static size_t pair_flows(const struct inventory *inv, const struct inv_endpoint *a, size_t na,
			 const struct inv_endpoint *b, size_t nb, struct flow *out, size_t n,
			 size_t max)
{
	for (size_t i = 0; i < na && n < max; i++) {
		const struct inv_endpoint *best = NULL;

		for (size_t j = 0; j < nb; j++) {
			if (b[j].dev == a[i].dev && b[j].port != a[i].port) {
				best = &b[j];
				break;
			}
		}
		if (!best && nb)
			best = &b[i % nb];
		if (!best || (best->dev == a[i].dev && best->port == a[i].port))
			continue;
		out[n].src = a[i];
		out[n].dst = rnic_addr(inv, best);
		n++;
	}
	return n;
}

size_t traffic_flows_across(const struct inventory *inv, size_t sw, ssize_t port,
			    bool egress_to_peer, struct flow *out, size_t max)
{
	struct inv_endpoint under[256], others[512], peer;
	size_t nu = 0, no = 0, n = 0, edge = sw;

	if (port >= 0 && !port_peer(inv, sw, (size_t)port, &peer))
		return 0; /* nothing crosses an uncabled port */
	if (port >= 0 && peer.kind == INV_DEV_HOST) {
		/* Host port: everyone else sends to the RNIC (its egress) and it answers back. */
		for (size_t h = 0; h < inv->n_hosts; h++)
			for (size_t r = 0; r < inv->hosts[h].n_rnics && no < 512; r++)
				if (!(h == peer.dev && r == peer.port))
					others[no++] = (struct inv_endpoint){INV_DEV_HOST, h, r};
		for (size_t i = 0; i < no && n < max; i++) {
			out[n].src = others[i];
			out[n++].dst = rnic_addr(inv, &peer);
		}
		if (!egress_to_peer)
			n = pair_flows(inv, &peer, 1, others, no, out, n, max);
		return n;
	}
	/* Fabric port or whole switch: traffic between the RNICs under one edge and the rest. */
	if (port >= 0) {
		edge = is_edge(inv, sw) ? sw : peer.dev;
	} else if (!is_edge(inv, sw)) {
		for (size_t s = 0; s < inv->n_switches; s++)
			if (is_edge(inv, s)) {
				edge = s;
				break;
			}
	}
	nu = rnics_under(inv, edge, under, 256);
	for (size_t h = 0; h < inv->n_hosts; h++) {
		for (size_t r = 0; r < inv->hosts[h].n_rnics && no < 512; r++) {
			bool mine = false;

			for (size_t i = 0; i < nu; i++)
				mine |= under[i].dev == h && under[i].port == r;
			if (!mine)
				others[no++] = (struct inv_endpoint){INV_DEV_HOST, h, r};
		}
	}
	/* Leaving the edge upward: port on the edge toward a spine, or the spine's port toward the
	 * edge (inbound). */
	bool up = port < 0 || is_edge(inv, sw);

	if (!egress_to_peer || up)
		n = pair_flows(inv, under, nu, others, no, out, n, max);
	if (!egress_to_peer || !up)
		n = pair_flows(inv, others, no, under, nu, out, n, max);
	return n;
}

unsigned traffic_ecmp_width(const struct inventory *inv, size_t sw, size_t port)
{
	struct inv_endpoint peer;
	unsigned up = 0;
	size_t edge;

	if (!port_peer(inv, sw, port, &peer) || peer.kind == INV_DEV_HOST)
		return 1;
	edge = is_edge(inv, sw) ? sw : peer.dev;
	for (size_t p = 0; p < inv->switches[edge].n_ports; p++) {
		struct inv_endpoint q;

		up += port_peer(inv, edge, p, &q) && q.kind == INV_DEV_SWITCH;
	}
	return up ? up : 1;
}

size_t traffic_host_send_argv(const struct inventory *inv, size_t h, const struct flow *flows,
			      size_t n, const struct host_send *hs, struct host_send_argv *a)
{
	const struct inv_host *host = &inv->hosts[h];
	size_t len = 0, mine = 0, k = 0;

	a->list[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (flows[i].src.kind == INV_DEV_HOST && flows[i].src.dev == h &&
		    len < sizeof(a->list)) {
			len += (size_t)snprintf(a->list + len, sizeof(a->list) - len, "%s%s:%s",
						len ? "," : "", host->rnics[flows[i].src.port].name,
						inet_ntoa(flows[i].dst));
			/* pinned: ":PORT+PORT..." ('load send' reads them back) */
			for (unsigned p = 0; p < flows[i].n_pin && len < sizeof(a->list); p++)
				len += (size_t)snprintf(a->list + len, sizeof(a->list) - len,
							"%c%u", p ? '+' : ':', flows[i].pin[p]);
			mine++;
		}
	if (!mine)
		return 0;
	snprintf(a->num[0], sizeof(a->num[0]), "%lldms", hs->ms);
	snprintf(a->num[1], sizeof(a->num[1]), "%llu", hs->pps);
	snprintf(a->num[2], sizeof(a->num[2]), "%d", hs->priority);
	snprintf(a->num[3], sizeof(a->num[3]), "%d", hs->size);
	snprintf(a->num[4], sizeof(a->num[4]), "%d", hs->n_sports);
	snprintf(a->num[5], sizeof(a->num[5]), "%d", hs->ecn);
	snprintf(a->num[6], sizeof(a->num[6]), "%d", hs->sport0);
	snprintf(a->num[7], sizeof(a->num[7]), "%d", hs->dscp ? hs->dscp : hs->priority << 3);
	const char *const argv[] = {
	    hs->prog,  "load",	  "send",    "-i",	 hs->inv_there, "--host",  host->name,
	    "--flows", a->list,	  "--for",   a->num[0],	 "--pps",	a->num[1], "--priority",
	    a->num[2], "--size",  a->num[3], "--sports", a->num[4],	"--ecn",   a->num[5],
	    "--sport", a->num[6], "--dscp",  a->num[7],	 NULL};

	for (k = 0; k < ARRAY_SIZE(argv); k++)
		a->argv[k] = argv[k];
	if (hs->progress) /* in the place of the NULL, which moves on */
		a->argv[k - 1] = "--progress", a->argv[k] = NULL;
	return mine;
}

double traffic_sent_mbps(const char *path, int bytes, unsigned long long *refused)
{
	FILE *f = fopen(path, "re");
	char line[160];
	struct {
		double t0, c0, t, c;
		unsigned long long refused;
	} fl[256];
	size_t n = 0;
	double mbps = 0;
	bool any = false;

	*refused = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t k;
		double t, c;
		unsigned long long x = 0;

		if (sscanf(line, "sent %zu %lf %lf %llu", &k, &t, &c, &x) < 3 ||
		    k >= ARRAY_SIZE(fl) || c < 0)
			continue;
		for (; n <= k; n++)
			fl[n].t0 = -1;
		if (fl[k].t0 < 0)
			fl[k].t0 = t, fl[k].c0 = c;
		fl[k].t = t, fl[k].c = c, fl[k].refused = x;
	}
	fclose(f);
	for (size_t k = 0; k < n; k++) {
		if (fl[k].t0 < 0)
			continue;
		*refused += fl[k].refused;
		if (fl[k].t > fl[k].t0 && fl[k].c >= fl[k].c0) {
			mbps += (fl[k].c - fl[k].c0) * bytes * 8 / (fl[k].t - fl[k].t0) / 1e6;
			any = true;
		}
	}
	return any ? mbps : -1;
}

double traffic_sent_between(const char *path, size_t flow, double from, double to)
{
	FILE *f = fopen(path, "re");
	char line[160];
	double pt = -1, pc = 0, base = 0, at[2] = {-1, -1}, want[2] = {from, to};

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t fl;
		double t, c;

		if (sscanf(line, "sent %zu %lf %lf", &fl, &t, &c) != 3 || fl != flow)
			continue;
		if (c + base < pc)
			base = pc; /* a sender started again (a service's slowdown): counted on */
		c += base;
		for (int k = 0; k < 2; k++)
			if (at[k] < 0 && t >= want[k] && pt >= 0 && pt <= want[k])
				at[k] = t > pt ? pc + (c - pc) * (want[k] - pt) / (t - pt) : c;
		pt = t, pc = c;
	}
	fclose(f);
	return at[0] >= 0 && at[1] >= 0 ? at[1] - at[0] : -1;
}

double traffic_sent_mbps_within(const char *path, int bytes, double from, double to)
{
	FILE *f = fopen(path, "re");
	char line[160];
	struct {
		double t0, t1;
	} fl[256];
	size_t n = 0;
	double mbps = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) { /* each flow's first and last line */
		size_t k;
		double t, c;

		if (sscanf(line, "sent %zu %lf %lf", &k, &t, &c) != 3 || k >= ARRAY_SIZE(fl))
			continue;
		for (; n <= k; n++)
			fl[n].t0 = -1;
		if (fl[k].t0 < 0)
			fl[k].t0 = t;
		fl[k].t1 = t;
	}
	fclose(f);
	for (size_t k = 0; k < n; k++) {
		double lo = fl[k].t0 > from ? fl[k].t0 : from, hi = fl[k].t1 < to ? fl[k].t1 : to,
		       d;

		if (fl[k].t0 < 0 || hi - lo < 0.2 ||
		    (d = traffic_sent_between(path, k, lo, hi)) < 0)
			continue;
		mbps = (mbps < 0 ? 0 : mbps) + d * bytes * 8 / (hi - lo) / 1e6;
	}
	return mbps;
}
