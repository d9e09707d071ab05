// SPDX-License-Identifier: MIT
/*
 * Switch port link states, each read in its NOS's own words by its room
 * (nos_ops.h: linux.c, sonic.c, eos.c, nvue.c), and the check that every
 * cabled link of the inventory is up.  Port names reach the command line
 * only after inventory validation (letters, digits, '_', '.', '-', '/').
 */
#define _GNU_SOURCE
#include "injectors/nos/links.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/nos/nos_ops.h"
#include "injectors/nos/nos_text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *links_command(const struct inv_switch *sw, const char *const **argv)
{
	*argv = NULL;
	return nos_ops_of(sw->dialect)->links_command(sw, argv);
}

int nos_port_index(const struct inv_switch *sw, const char *name)
{
	for (size_t p = 0; p < sw->n_ports; p++)
		if (!strcmp(sw->ports[p].name, name))
			return (int)p;
	return -1;
}

void nos_port_set(struct port_state *st, const char *word, bool up)
{
	st->seen = true;
	st->up = up;
	snprintf(st->word, sizeof(st->word), "%s", word && *word ? word : "?");
}

/*
 * Port states printed as JSON: out parsed and handed to walk, which sets
 * st by port; 0, or -EINVAL with err when out is not JSON or walk finds it
 * not in the NOS's format (walk returns nonzero).
 */
static int links_json(const struct inv_switch *sw, const char *out, struct port_state *st,
		      int (*walk)(const struct inv_switch *sw, json_t *root, struct port_state *st),
		      char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(out, JSON_DECODE_ANY, &je);
	int r;

	if (!root) {
		snprintf(err, errlen, "%s: its port states are not JSON: %s (line %d)", sw->name,
			 je.text, je.line);
		return -EINVAL;
	}
	r = walk(sw, root, st);
	json_decref(root);
	if (r) {
		snprintf(err, errlen, "%s: its port states are not in %s's format", sw->name,
			 inv_dialect_name(sw->dialect));
		return -EINVAL;
	}
	return 0;
}

int links_parse(const struct inv_switch *sw, const char *out, struct port_state *st, char *err,
		size_t errlen)
{
	const struct nos_ops *ops = nos_ops_of(sw->dialect);

	memset(st, 0, sw->n_ports * sizeof(*st));
	return ops->links_walk ? links_json(sw, out ? out : "", st, ops->links_walk, err, errlen)
			       : ops->links_parse(sw, out ? out : "", st, err, errlen);
}

/* One switch's port states through the lab; 0 or -errno with err. */
static int read_switch(struct lab *l, const struct inv_switch *sw, struct port_state *st, char *err,
		       size_t errlen)
{
	const char *const *argv;
	char *cmd = links_command(sw, &argv), *out = NULL;
	int r = cmd ? lab_cli(l, sw->name, cmd, NULL, &out, err, errlen)
		    : lab_exec(l, sw->name, argv, NULL, &out, err, errlen);

	if (r > 0 && !err[0])
		snprintf(err, errlen, "%s: reading its port states exited %d", sw->name, r);
	if (!r)
		r = links_parse(sw, out, st, err, errlen);
	free(cmd);
	free(out);
	return r > 0 ? -EIO : r;
}

const char *links_source(enum inv_dialect d)
{
	return nos_ops_of(d)->links_source;
}

int links_port(struct lab *l, const struct inv_endpoint *ep, struct port_state *ps, char *err,
	       size_t errlen)
{
	const struct inventory *inv = l->inv;
	struct port_state *st;
	int r;

	err[0] = '\0';
	*ps = (struct port_state){0};
	if (ep->kind == INV_DEV_HOST) { /* as a one-port linux switch */
		const struct inv_host *h = &inv->hosts[ep->dev];
		struct inv_port port = {0};
		struct inv_switch one = {
		    .dialect = INV_DIALECT_LINUX, .ports = &port, .n_ports = 1};
		const char *argv[] = {"ip", "-j", "link", "show", "dev", h->rnics[ep->port].netdev,
				      NULL};
		char *out = NULL;

		snprintf(one.name, sizeof(one.name), "%s", h->name);
		snprintf(port.name, sizeof(port.name), "%s", h->rnics[ep->port].netdev);
		r = lab_exec(l, h->name, argv, NULL, &out, err, errlen);
		if (!r)
			r = links_parse(&one, out, ps, err, errlen);
		free(out);
	} else {
		const struct inv_switch *sw = &inv->switches[ep->dev];

		st = rl_xcalloc(sw->n_ports + 1, sizeof(*st));
		r = read_switch(l, sw, st, err, errlen);
		*ps = st[ep->port];
		free(st);
	}
	if (!r && !ps->seen) {
		snprintf(err, errlen, "%s does not show its port in what it printed",
			 ep->kind == INV_DEV_HOST ? inv->hosts[ep->dev].name
						  : inv->switches[ep->dev].name);
		r = -ENOENT;
	}
	return r > 0 ? -EIO : r;
}

int links_check(struct lab *l, const char *when, char *why, size_t whylen)
{
	const struct inventory *inv = l->inv;
	struct port_state **st = rl_xcalloc(inv->n_switches, sizeof(*st));
	size_t bad = 0, n_up = 0;
	char one[512], err[384];

	why[0] = '\0';
	for (size_t s = 0; s < inv->n_switches; s++) {
		const struct inv_switch *sw = &inv->switches[s];

		st[s] = rl_xcalloc(sw->n_ports + 1, sizeof(**st));
		err[0] = '\0';
		if (!read_switch(l, sw, st[s], err, sizeof(err)))
			continue;
		free(st[s]);
		st[s] = NULL;
		snprintf(one, sizeof(one), "cannot read the links of %s: %s", sw->name, err);
		lab_problem(when, one, why, whylen, &bad);
	}
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *k = &inv->links[i];
		const struct inv_endpoint *ends[2] = {&k->a, &k->b};
		char an[160], bn[160];
		bool ok = true;

		for (int e = 0; e < 2 && ok; e++) { /* one line a link: its first end down */
			const struct inv_endpoint *ep = ends[e];
			const struct inv_switch *sw;
			const struct port_state *ps;

			if (ep->kind != INV_DEV_SWITCH || !st[ep->dev])
				continue; /* RNICs: lab_health; unreadable switches: said above */
			sw = &inv->switches[ep->dev];
			ps = &st[ep->dev][ep->port];
			if (ps->seen && ps->up)
				continue;
			ok = false;
			if (ps->seen)
				snprintf(one, sizeof(one),
					 "link %s--%s is down at %s:%s (%s says %s)",
					 inventory_endpoint_name(inv, &k->a, an, sizeof(an)),
					 inventory_endpoint_name(inv, &k->b, bn, sizeof(bn)),
					 sw->name, sw->ports[ep->port].name, sw->name, ps->word);
			else
				snprintf(one, sizeof(one),
					 "%s has no port %s (of link %s--%s): fix the inventory",
					 sw->name, sw->ports[ep->port].name,
					 inventory_endpoint_name(inv, &k->a, an, sizeof(an)),
					 inventory_endpoint_name(inv, &k->b, bn, sizeof(bn)));
			lab_problem(when, one, why, whylen, &bad);
		}
		n_up += ok;
	}
	for (size_t s = 0; s < inv->n_switches; s++)
		free(st[s]);
	free(st);
	if (bad)
		return -EHOSTUNREACH;
	fprintf(stderr, "%s: %zu link(s) up at their switch ports\n", when, n_up);
	return 0;
}
