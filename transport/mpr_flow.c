// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's endpoints through the lab (also 'rocelab transport run'): a
 * flow's receiver and sender, their tracers, and a single path placed
 * across a port or VPs balanced over the spines by tracing.
 */
#define _GNU_SOURCE
#include "transport/mpr_comp_int.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "transport/mpr_vpmap.h"
#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- endpoints through the lab (also 'rocelab transport run') --------------------------- */

/* The host of "host:rnic" into host; -EINVAL when there is no ':' or it does not fit. */
int mpr_host_of(const char *spec, char *host, size_t len)
{
	const char *c = strchr(spec, ':');

	if (!c || (size_t)(c - spec) >= len)
		return -EINVAL;
	memcpy(host, spec, (size_t)(c - spec));
	host[c - spec] = '\0';
	return 0;
}

/*
 * One sweep of 'rocelab transport paths' from RNIC from to RNIC to on from's
 * host, kept in log, read into routes[n] (VP_LO + i each); how many VPs
 * were traced, or -errno with why.
 */
static int trace_once(struct lab *l, const char *self, const struct inventory *inv,
		      const char *inv_path, const char *from, const char *to, const char *log,
		      struct mpr_route *routes, size_t n, char *why, size_t whylen)
{
	char host[INV_NAME_MAX + 1], inv_there[PATH_MAX], err[256] = "";
	struct topo *topo;
	char *out = NULL;
	FILE *f;
	int r;

	if (mpr_host_of(from, host, sizeof(host)))
		return snprintf(why, whylen, "%s is no HOST:RNIC", from), -EINVAL;
	if ((r = lab_share(l, host, inv_path, inv_there, sizeof(inv_there))))
		return snprintf(why, whylen, "%s: cannot share the inventory", host), r;
	const char *argv[] = {lab_program(l, host, self),
			      "transport",
			      "paths",
			      "-i",
			      inv_there,
			      "--from",
			      from,
			      "--to",
			      to,
			      NULL};

	if ((r = lab_exec(l, host, argv, NULL, &out, err, sizeof(err)))) {
		snprintf(why, whylen, "tracing %s -> %s: %s", from, to, err);
		free(out);
		return r;
	}
	if (!(f = fopen(log, "we"))) {
		free(out);
		return snprintf(why, whylen, "%s: %s", log, strerror(errno)), -errno;
	}
	fputs(out ? out : "", f);
	fclose(f);
	free(out);
	topo = topo_build(inv, false, NULL);
	r = mpr_routes_read(log, inv, topo, from, to, 0, 1e18, VP_LO, routes, n);
	topo_free(topo);
	if (r < 0)
		snprintf(why, whylen, "cannot read the traces in %s", log);
	return r < 0 ? -EIO : r;
}

int mpr_pin_ports(struct lab *l, const char *self, const struct inventory *inv,
		  const char *inv_path, const char *from, const char *to, const char *across,
		  bool avoid, const char *log, uint16_t *sports, size_t max, char *why,
		  size_t whylen)
{
	struct mpr_route routes[64] = {0};
	struct inv_endpoint ep;
	char err[256] = "";
	ssize_t link;
	size_t got = 0;
	int n;

	if (inventory_endpoint(inv, across, &ep, err, sizeof(err)) ||
	    (link = pathmap_link_index(inv, &ep)) < 0) {
		snprintf(why, whylen, "%s is no cabled port (%s)", across, err);
		return -EINVAL;
	}
	n = trace_once(l, self, inv, inv_path, from, to, log, routes, ARRAY_SIZE(routes), why,
		       whylen);
	if (n < 0)
		return n;
	for (size_t i = 0; i < ARRAY_SIZE(routes) && got < max; i++)
		if (routes[i].complete && mpr_route_has(&routes[i], (size_t)link) != avoid)
			sports[got++] = (uint16_t)(VP_LO + (unsigned)i);
	if (got)
		return (int)got;
	snprintf(why, whylen, "none of the %d source ports traced from %s to %s %s %s (see %s)", n,
		 from, to, avoid ? "avoids" : "crosses", across, log);
	return -ENOENT;
}

int mpr_pin_port(struct lab *l, const char *self, const struct inventory *inv, const char *inv_path,
		 const char *from, const char *to, const char *across, bool avoid, const char *log,
		 uint16_t *sport, char *why, size_t whylen)
{
	int r = mpr_pin_ports(l, self, inv, inv_path, from, to, across, avoid, log, sport, 1, why,
			      whylen);

	return r < 0 ? r : 0;
}

int mpr_balance_vps(struct lab *l, const char *self, const struct inventory *inv,
		    const char *inv_path, const char *from, const char *to, unsigned per,
		    const char *log, char *set, size_t setlen, char *why, size_t whylen)
{
	struct mpr_route routes[64] = {0};
	rec_link_t uplink[64]; /* the distinct first links out of from's rail */
	unsigned count[64] = {0}, n_up = 0, take = per, k = 0;
	size_t len = 0;
	int n = trace_once(l, self, inv, inv_path, from, to, log, routes, ARRAY_SIZE(routes), why,
			   whylen);

	if (n < 0)
		return n;
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
		unsigned u;

		if (!routes[i].complete || routes[i].n < 2)
			continue;
		for (u = 0; u < n_up && uplink[u] != routes[i].links[1]; u++)
			;
		if (u == n_up)
			uplink[n_up++] = routes[i].links[1];
		count[u]++;
	}
	for (unsigned u = 0; u < n_up; u++)
		take = count[u] < take ? count[u] : take;
	if (!n_up || !take) {
		snprintf(why, whylen,
			 "the %d source ports traced from %s to %s leave by %u paths "
			 "(see %s): none to balance over",
			 n, from, to, n_up, log);
		return -ENOENT;
	}
	set[0] = '\0';
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
		unsigned u;

		if (!routes[i].complete || routes[i].n < 2)
			continue;
		for (u = 0; uplink[u] != routes[i].links[1]; u++)
			;
		if (count[u] == take)
			continue;
		count[u]++;
		len += (size_t)snprintf(set + len, len < setlen ? setlen - len : 0, "%s%u",
					k++ ? "," : "", VP_LO + (unsigned)i);
	}
	if (len >= setlen) {
		snprintf(why, whylen, "%u source ports do not fit the VP set", k);
		return -E2BIG;
	}
	return (int)k;
}

json_t *mpr_last_line(const char *path, const char *type)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	json_t *found = NULL;

	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = line[0] == '{' ? json_loads(line, 0, NULL) : NULL;
		const char *t = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (t && !strcmp(t, type)) {
			json_decref(found);
			found = j;
		} else {
			json_decref(j);
		}
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/* 'rocelab transport VERB' on host, where (NULL-ended) naming the RNICs; 0 or -errno. */
int mpr_spawn(struct lab *l, const char *self, const char *inv_path, const char *host,
	      const char *verb, const char *const *where, const struct ep_params *p,
	      long long duration_ms, const char *log, struct lab_proc *proc)
{
	const char *argv[96];
	char inv_there[PATH_MAX], dur[32];
	struct opt_store store = {0};
	struct ep_params d, q = *p;
	size_t n = 0;
	int r = lab_share(l, host, inv_path, inv_there, sizeof(inv_there));

	if (r)
		return r;
	ep_defaults(&d);
	q.duration_ms = 0;
	argv[n++] = lab_program(l, host, self);
	argv[n++] = "transport";
	argv[n++] = verb;
	argv[n++] = "-i";
	argv[n++] = inv_there;
	for (; *where; where++)
		argv[n++] = *where;
	if (opt_argv(ep_opts, &q, &d, argv, &n, ARRAY_SIZE(argv) - 3, &store)) {
		opt_store_free(&store);
		return -E2BIG;
	}
	if (duration_ms) {
		snprintf(dur, sizeof(dur), "%lldms", duration_ms);
		argv[n++] = "--duration";
		argv[n++] = dur;
	}
	argv[n] = NULL;
	r = lab_spawn(l, host, argv, log, proc);
	opt_store_free(&store);
	return r;
}

int mpr_flow_check(const struct inventory *inv, const char *from, const char *to, char *why,
		   size_t whylen)
{
	struct inv_endpoint a, b;
	char msg[160];

	if (inventory_endpoint(inv, from, &a, msg, sizeof(msg)) || a.kind != INV_DEV_HOST ||
	    inventory_endpoint(inv, to, &b, msg, sizeof(msg)) || b.kind != INV_DEV_HOST) {
		snprintf(why, whylen, "from %s / to %s: not RNICs (host:rnic) of %s", from, to,
			 inv->name);
		return -ENOENT;
	}
	return 0;
}

/*
 * Wait for the receiver's first statistics line (its sockets are open), up to
 * 2 s; a lab that brings logs back only at the end (over SSH) gets those 2 s.
 */
static bool receiver_up(struct mpr_flow *fl)
{
	for (int i = 0; i < 40; i++) {
		json_t *j = mpr_last_line(fl->rlog, "rcv");

		json_decref(j);
		if (j)
			return true;
		if (!lab_alive(fl->lab, &fl->rcv))
			return false;
		usleep(50000);
	}
	return lab_alive(fl->lab, &fl->rcv);
}

int mpr_flow_start(struct mpr_flow *fl, struct lab *l, const char *self, const char *inv_path,
		   const char *from, const char *to, const struct ep_params *p,
		   long long duration_ms, const char *slog, const char *rlog, char *what,
		   size_t whatlen)
{
	const char *rwhere[] = {"--at", to, NULL}, *swhere[] = {"--from", from, "--to", to, NULL};
	char sh[INV_NAME_MAX + 1], rh[INV_NAME_MAX + 1];
	int r;

	*fl = (struct mpr_flow){.lab = l, .slog = slog, .rlog = rlog};
	if (mpr_host_of(from, sh, sizeof(sh)) || mpr_host_of(to, rh, sizeof(rh))) {
		snprintf(what, whatlen, "from %s / to %s: give host:rnic", from, to);
		return -EINVAL;
	}
	r = mpr_spawn(l, self, inv_path, rh, "recv", rwhere, p, 0, rlog, &fl->rcv);
	if (r || !receiver_up(fl)) {
		snprintf(what, whatlen, "the receiver on %s did not start; see %s", rh, rlog);
		mpr_flow_stop(fl);
		return r ? r : -EIO;
	}
	fl->started_at = (double)rl_realtime_ns() / 1e9;
	r = mpr_spawn(l, self, inv_path, sh, "send", swhere, p, duration_ms, slog, &fl->snd);
	if (r) {
		snprintf(what, whatlen, "cannot start the sender on %s: %s", sh, strerror(-r));
		mpr_flow_stop(fl);
	}
	return r;
}

void mpr_flow_stop(struct mpr_flow *fl)
{
	if (fl->snd.pid > 0) {
		lab_stop(fl->lab, &fl->snd, 3000);
		usleep(100000); /* what is in flight arrives */
	}
	if (fl->rcv.pid > 0)
		lab_stop(fl->lab, &fl->rcv, 3000);
	fl->snd.pid = fl->rcv.pid = 0;
}
