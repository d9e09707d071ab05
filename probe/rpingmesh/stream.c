// SPDX-License-Identifier: MIT
/* An R-Pingmesh agent's record stream into the analyzer: frames checked, handed on by type. */
#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "probe/rpingmesh/analyzer.h"

#include <string.h>

#define RPA_MAX_FRAME 1024

static int hello(const struct inventory *inv, struct rec_stream *s, const uint8_t *body)
{
	struct rpm_hello m;
	const struct inv_host *h;

	if (s->host >= 0) {
		rl_err("analyze: %s: a second hello; dropping the stream", s->peer);
		return -1;
	}
	memcpy(&m, body, sizeof(m));
	m.host[sizeof(m.host) - 1] = '\0';
	if (m.magic != RPM_REC_MAGIC || m.version != RPM_REC_VERSION) {
		rl_err("analyze: %s: not an R-Pingmesh record stream (version %u); Hostmesh's "
		       "records go to 'rocelab analyze' without --monitor rpingmesh",
		       s->peer, m.version);
		return -1;
	}
	h = inventory_host(inv, m.host);
	if (!h || m.inv_fingerprint != inventory_fingerprint(inv)) {
		rl_err("analyze: %s: agent of host '%s' uses another inventory than '%s'; give "
		       "both the same -i",
		       s->peer, m.host, inv->name);
		return -1;
	}
	s->host = (int)(h - inv->hosts);
	s->transport = m.transport ? "verbs" : "udp";
	rl_info("analyze: R-Pingmesh agent %s (%s, %u RNICs, %s transport) connected", m.host,
		s->peer, m.n_rnics, s->transport);
	return 0;
}

int rpa_stream_take(struct rpa *a, const struct inventory *inv, struct rec_stream *s)
{
	size_t off = 0;
	int r = 0;

	while (!r && s->len - off >= sizeof(struct rec_frame)) {
		struct rec_frame h;
		const uint8_t *body;
		struct rec_stats st;

		memcpy(&h, s->buf + off, sizeof(h));
		if (h.len > RPA_MAX_FRAME) {
			rl_err("analyze: %s: a frame of %u bytes, more than %u: not a record "
			       "stream; dropping it",
			       s->peer, h.len, RPA_MAX_FRAME);
			return -1;
		}
		if (s->len - off < sizeof(h) + h.len)
			break;
		body = s->buf + off + sizeof(h);
		off += sizeof(h) + h.len;
		if (h.type == RPM_REC_HELLO && h.len >= sizeof(struct rpm_hello)) {
			r = hello(inv, s, body);
		} else if (s->host < 0) {
			rl_err("analyze: %s: records before the hello (an R-Pingmesh agent's "
			       "starts with one); dropping the stream",
			       s->peer);
			r = -1;
		} else if (h.type == RPM_REC_PROBE && h.len >= sizeof(struct rpm_probe_rec)) {
			struct rpm_probe_rec p;

			memcpy(&p, body, sizeof(p));
			rpa_probe(a, (size_t)s->host, &p);
		} else if (h.type == RPM_REC_PATH && h.len >= sizeof(struct rpm_path_rec)) {
			struct rpm_path_rec p;

			memcpy(&p, body, sizeof(p));
			rpa_path(a, (size_t)s->host, &p);
		} else if (h.type == RPM_REC_FLOW && h.len >= sizeof(struct rpm_flow_rec)) {
			struct rpm_flow_rec f;

			memcpy(&f, body, sizeof(f));
			rpa_flow(a, (size_t)s->host, &f);
		} else if (h.type == HM_STATS && rec_stats_read(body, h.len, &st)) {
			rpa_stats(a, (size_t)s->host, s->transport, &st);
		}
		/* other frame types: skipped by length */
	}
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
	return r;
}
