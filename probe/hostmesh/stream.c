// SPDX-License-Identifier: MIT
/* An agent's record stream into the analyzer: frames checked, then handed on by type. */
#include "harness/lib/common.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/pathmap.h"

#include <string.h>

static int hello(struct az *az, const struct inventory *inv, struct rec_stream *s,
		 const uint8_t *body)
{
	struct hm_hello m;

	if (s->host >= 0) {
		rl_err("analyze: %s: a second hello; dropping the stream", s->peer);
		return -1;
	}
	memcpy(&m, body, sizeof(m));
	m.host[sizeof(m.host) - 1] = '\0';
	if (m.magic != HM_MAGIC || m.version != HM_VERSION) {
		rl_err("analyze: %s: not a Hostmesh record stream (version %u)", s->peer,
		       m.version);
		return -1;
	}
	s->host = az_host_index(az, m.host);
	if (s->host < 0 || m.inv_fingerprint != inventory_fingerprint(inv)) {
		rl_err("analyze: %s: agent of host '%s' uses another inventory than '%s'; give "
		       "both the same -i",
		       s->peer, m.host, inv->name);
		return -1;
	}
	s->transport = m.transport ? "verbs" : "udp";
	rl_info("analyze: agent %s (%s, %u RNICs, %s transport) connected", m.host, s->peer,
		m.n_rnics, s->transport);
	return 0;
}

int hm_stream_take(struct az *az, const struct inventory *inv, struct rec_stream *s)
{
	size_t off = 0;
	int r = 0;

	while (!r && s->len - off >= sizeof(struct rec_frame)) {
		struct rec_frame h;
		const uint8_t *body;
		struct rec_stats st;

		memcpy(&h, s->buf + off, sizeof(h));
		if (h.len > HM_MAX_FRAME) {
			rl_err("analyze: %s: a frame of %u bytes, more than %u: not a Hostmesh "
			       "record stream; dropping it",
			       s->peer, h.len, HM_MAX_FRAME);
			return -1;
		}
		if (s->len - off < sizeof(h) + h.len)
			break;
		body = s->buf + off + sizeof(h);
		off += sizeof(h) + h.len;
		if (h.type == HM_HELLO && h.len >= sizeof(struct hm_hello)) {
			r = hello(az, inv, s, body);
		} else if (s->host < 0) {
			rl_err("analyze: %s: records before the hello; dropping the stream",
			       s->peer);
			r = -1;
		} else if (h.type == HM_PROBE && h.len >= sizeof(struct hm_probe)) {
			struct hm_probe p;

			memcpy(&p, body, sizeof(p));
			az_probe(az, (size_t)s->host, &p);
		} else if (h.type == HM_PATH && h.len >= sizeof(struct hm_path)) {
			struct hm_path p;

			memcpy(&p, body, sizeof(p));
			az_path(az, (size_t)s->host, &p);
		} else if (h.type == HM_STATS && rec_stats_read(body, h.len, &st)) {
			az_agent_stats(az, (size_t)s->host, s->transport, &st);
		}
		/* other frame types: skipped by length */
	}
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
	return r;
}
