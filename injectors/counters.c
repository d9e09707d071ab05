// SPDX-License-Identifier: MIT
/* Counters as evidence: a fault's ends read before and after, the differences kept. */
#define _GNU_SOURCE
#include "injectors/counters.h"

#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/nos/nos_ops.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

json_t *fault_ctr_delta(json_t *before, json_t *after)
{
	json_t *d = json_object(), *v;
	const char *k;

	json_object_foreach(after, k, v)
	{
		json_t *b = json_object_get(before, k), *sub;

		if (json_is_object(v)) {
			/* an end or group unread before: nothing to count from */
			if (!json_is_object(b))
				continue;
			sub = fault_ctr_delta(b, v);
			if (json_object_size(sub))
				json_object_set_new(d, k, sub);
			else
				json_decref(sub);
		} else if (json_is_string(v)) {
			/* a state (PFC_WD_STATUS): "was -> now" when it changed */
			const char *was = json_is_string(b) ? json_string_value(b) : "?";

			if (strcmp(was, json_string_value(v)))
				json_object_set_new(
				    d, k, json_sprintf("%s -> %s", was, json_string_value(v)));
		} else if (json_is_integer(v)) {
			/* one not there before counts from 0: a qdisc the fault added, its drops */
			json_int_t was = json_is_integer(b) ? json_integer_value(b) : 0;

			if (json_integer_value(v) != was)
				json_object_set_new(d, k,
						    json_integer(json_integer_value(v) - was));
		}
	}
	return d;
}

/* ---- the ends ---- */

static void add_end(struct fault_counters *c, const struct inventory *inv,
		    const struct inv_endpoint *e)
{
	struct fault_ctr_end *x;

	if (c->n_ends == FAULT_CTR_ENDS)
		return;
	for (size_t i = 0; i < c->n_ends; i++)
		if (c->ends[i].kind == e->kind && c->ends[i].dev == e->dev &&
		    c->ends[i].port == e->port)
			return;
	x = &c->ends[c->n_ends++];
	x->kind = e->kind, x->dev = e->dev, x->port = e->port;
	if (e->kind == INV_DEV_HOST)
		snprintf(x->name, sizeof(x->name), "%s:%s", inv->hosts[e->dev].name,
			 inv->hosts[e->dev].rnics[e->port].name);
	else
		snprintf(x->name, sizeof(x->name), "%s:%s", inv->switches[e->dev].name,
			 inv->switches[e->dev].ports[e->port].name);
}

/* e, and what it is cabled to */
static void add_link(struct fault_counters *c, const struct inventory *inv,
		     const struct inv_endpoint *e)
{
	struct inv_endpoint peer;

	add_end(c, inv, e);
	if (inventory_peer(inv, e, &peer) == 0)
		add_end(c, inv, &peer);
}

void fault_counters_ends(const struct inventory *inv, const struct fault_spec *s,
			 struct fault_counters *c)
{
	char v[16];
	const char *prio = fault_spec_value(s, "priority", v, sizeof(v));

	*c = (struct fault_counters){.prio = prio ? atoi(prio) : -1};
	if (s->tkind == INV_DEV_SWITCH && s->tport >= 0) {
		add_link(c, inv, &(struct inv_endpoint){INV_DEV_SWITCH, s->tdev, (size_t)s->tport});
	} else if (s->tkind == INV_DEV_SWITCH) {
		const struct inv_switch *sw = &inv->switches[s->tdev];

		for (size_t p = 0; p < sw->n_ports; p++)
			if (sw->ports[p].link1)
				add_end(c, inv, &(struct inv_endpoint){INV_DEV_SWITCH, s->tdev, p});
	} else if (s->tport >= 0) {
		add_link(c, inv, &(struct inv_endpoint){INV_DEV_HOST, s->tdev, (size_t)s->tport});
	} else {
		for (size_t r = 0; r < inv->hosts[s->tdev].n_rnics; r++)
			add_end(c, inv, &(struct inv_endpoint){INV_DEV_HOST, s->tdev, r});
	}
}

/* A read of end on dev, its output parsed into end's group; a failure said in unread. */
static void read_one(struct fault_run *f, const char *dev, const struct nos_ctr_read *rd,
		     const char *port, json_t *end, const char *end_name, json_t *unread)
{
	char *out = NULL, err[256] = "";
	json_t *g = json_object();
	int r = rd->line[0] ? lab_cli(f->lab, dev, rd->line, NULL, &out, err, sizeof(err))
			    : lab_exec(f->lab, dev, rd->argv, NULL, &out, err, sizeof(err));

	if (r || rd->parse(port, out, g) < 0) {
		char what[sizeof(rd->line)];

		if (rd->line[0])
			snprintf(what, sizeof(what), "%s", rd->line);
		else
			snprintf(what, sizeof(what), "%s %s", rd->argv[0], rd->argv[1]);
		json_array_append_new(unread, json_sprintf("%s: '%s' %s", end_name, what,
							   err[0] ? err : "printed no counters"));
		json_decref(g);
	} else {
		json_object_set_new(end, rd->group, g);
	}
	free(out);
}

/* One end read (lab_each(): ends on several devices at once). */
struct end_job {
	struct fault_run *f;
	const struct fault_counters *c;
	const struct fault_ctr_end *e;
	json_t *end, *unread; /* what it read by group; what it could not */
};

static void *read_end(void *job)
{
	struct end_job *j = job;
	struct fault_run *f = j->f;
	const struct fault_counters *c = j->c;
	const struct fault_ctr_end *e = j->e;
	struct nos_ctr_read rd[NOS_CTR_READS + 1];
	char link[2 * INV_NAME_MAX + 16]; /* "DEV/PORT", an rdma read's argument */
	const char *dev, *port;
	size_t n;

	if (e->kind == INV_DEV_SWITCH) {
		const struct inv_switch *sw = &f->inv->switches[e->dev];

		dev = sw->name;
		port = sw->ports[e->port].name;
		n = nos_ops_of(sw->dialect)->counters(port, c->prio, rd, NOS_CTR_READS);
	} else {
		const struct inv_host *h = &f->inv->hosts[e->dev];
		char *out = NULL, err[256];

		dev = h->name;
		port = h->rnics[e->port].netdev;
		n = nos_ctr_linux(port, false, true, rd, NOS_CTR_READS);
		/* an RDMA device on the netdev, if any: none is no error (a virtual lab's veth) */
		if (!lab_exec(f->lab, dev,
			      (const char *const[]){"rdma", "-j", "link", "show", NULL}, NULL, &out,
			      err, sizeof(err)) &&
		    !nos_ctr_rdma_link(out, port, link, sizeof(link)))
			rd[n++] = (struct nos_ctr_read){
			    .group = "rdma",
			    .argv = {"rdma", "-j", "statistic", "show", "link", link},
			    .parse = nos_ctr_rdma_stat};
		free(out);
	}
	j->end = json_object();
	j->unread = json_array();
	for (size_t i = 0; i < n; i++) /* also after a signal: the revert reads them */
		read_one(f, dev, &rd[i], port, j->end, e->name, j->unread);
	return NULL;
}

/* Every end's counters now, the ends on several devices at once (over SSH). */
static json_t *read_all(struct fault_run *f, struct fault_counters *c)
{
	struct end_job *jobs = rl_xcalloc(c->n_ends ? c->n_ends : 1, sizeof(*jobs));
	json_t *all = json_object();

	for (size_t i = 0; i < c->n_ends; i++)
		jobs[i] = (struct end_job){.f = f, .c = c, .e = &c->ends[i]};
	lab_each(f->lab, jobs, c->n_ends, sizeof(*jobs), read_end);
	for (size_t i = 0; i < c->n_ends; i++) { /* in the ends' order */
		if (json_object_size(jobs[i].end))
			json_object_set(all, jobs[i].e->name, jobs[i].end);
		json_array_extend(c->unread, jobs[i].unread);
		json_decref(jobs[i].end);
		json_decref(jobs[i].unread);
	}
	free(jobs);
	return all;
}

void fault_counters_begin(struct fault_run *f, struct fault_counters *c)
{
	unsigned long long t0 = rl_now_ns();

	fault_counters_clear(c);
	c->unread = json_array();
	c->before = read_all(f, c);
	c->t_ns = rl_now_ns();
	c->read_s = (double)(c->t_ns - t0) / 1e9;
}

void fault_counters_clear(struct fault_counters *c)
{
	json_decref(c->before);
	json_decref(c->unread);
	c->before = c->unread = NULL;
}

json_t *fault_counters_end(struct fault_run *f, struct fault_counters *c)
{
	json_t *after, *r, *unread;
	unsigned long long t0;

	if (!c->before || (!c->n_ends && !json_array_size(c->unread)))
		return fault_counters_clear(c), NULL;
	/* what was unread before stays said; what fails only now is said too */
	unread = c->unread;
	c->unread = json_array();
	t0 = rl_now_ns();
	after = read_all(f, c);
	for (size_t i = 0; i < json_array_size(c->unread); i++) {
		json_t *u = json_array_get(c->unread, i);
		bool said = false;

		for (size_t k = 0; k < json_array_size(unread) && !said; k++)
			said = json_equal(u, json_array_get(unread, k));
		if (!said)
			json_array_append(unread, u);
	}
	/* what the reads took, before the first action and before the undo */
	r = json_pack("{s:f, s:o, s:O, s:[f,f]}", "span_s", (double)(rl_now_ns() - c->t_ns) / 1e9,
		      "deltas", fault_ctr_delta(c->before, after), "unread", unread, "read_s",
		      c->read_s, (double)(rl_now_ns() - t0) / 1e9);
	json_decref(after);
	json_decref(unread);
	fault_counters_clear(c);
	return r;
}

/* ---- said ---- */

struct said {
	char what[160];
	long long d;
	const char *state; /* a state's change ("operational -> stormed"), else NULL */
	int rank; /* what tells of a fault first: drops, errors, pauses, marks; bytes last */
};

static int rank(const char *name)
{
	static const char *const tell[] = {"drop",   "discard",	  "err", "pause",      "pfc",
					   "marked", "ecn",	  "cnp", "out_of_seq", "timeout",
					   "retr",   "overlimit", "crc"};

	for (size_t i = 0; i < sizeof(tell) / sizeof(tell[0]); i++)
		if (strcasestr(name, tell[i]))
			return 2;
	return strcasestr(name, "bytes") ? 0 : 1;
}

static int by_size(const void *a, const void *b)
{
	const struct said *x = a, *y = b;
	long long dx = llabs(x->d), dy = llabs(y->d);

	if (x->rank != y->rank)
		return y->rank - x->rank;
	return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->what, y->what);
}

void fault_counters_say(json_t *deltas, size_t max, struct sbuf *b)
{
	const char *end, *group, *name;
	json_t *e, *g, *v;

	json_object_foreach(deltas, end, e)
	{
		struct said s[256];
		size_t n = 0;

		json_object_foreach(e, group, g) json_object_foreach(g, name, v)
		{
			if (n == sizeof(s) / sizeof(s[0]))
				break;
			snprintf(s[n].what, sizeof(s[n].what), "%s %s", group, name);
			s[n].rank = json_is_string(v) ? 3 : rank(name); /* a state first */
			s[n].state = json_string_value(v);
			s[n++].d = (long long)json_integer_value(v);
		}
		qsort(s, n, sizeof(s[0]), by_size);
		sb_printf(b, "%s:", end);
		for (size_t i = 0; i < n && i < max; i++)
			if (s[i].state)
				sb_printf(b, "%s %s %s", i ? "," : "", s[i].what, s[i].state);
			else
				sb_printf(b, "%s %s %+lld", i ? "," : "", s[i].what, s[i].d);
		if (n > max)
			sb_printf(b, " (and %zu more)", n - max);
		sb_printf(b, "\n");
	}
}

void fault_counters_text(json_t *c, size_t max, struct sbuf *b)
{
	json_t *u = json_object_get(c, "unread");

	fault_counters_say(json_object_get(c, "deltas"), max, b);
	for (size_t k = 0; k < json_array_size(u); k++)
		sb_printf(b, "unread: %s\n", json_string_value(json_array_get(u, k)) ?: "");
}
