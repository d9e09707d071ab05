// SPDX-License-Identifier: MIT
/*
 * Switch port link states in each dialect, from the NOS's own sources:
 * - linux: `ip -j link show` (iproute2), operstate UP;
 * - SONiC: APPL_DB PORT_TABLE:<port> oper_status, the field `show interfaces
 *   status` prints as Oper (sonic-utilities scripts/intfutil,
 *   PORT_STATUS_TABLE_PREFIX and PORT_OPER_STATUS), read with sonic-db-cli;
 * - EOS: `show interfaces status | json`, interfaceStatuses.<port>.linkStatus
 *   "connected" (else notconnect, disabled, errdisabled);
 * - NVUE: `nv show interface -o json`, <port>.link.oper-status "up".
 * Port names reach the command line only after inventory validation
 * (letters, digits, '_', '.', '-', '/').
 */
#define _GNU_SOURCE
#include "injectors/links.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const linux_argv[] = {"ip", "-j", "link", "show", NULL};

char *links_command(const struct inv_switch *sw, const char *const **argv)
{
	struct sbuf b = {0};

	*argv = NULL;
	switch (sw->dialect) {
	case INV_DIALECT_LINUX:
		*argv = linux_argv;
		return NULL;
	case INV_DIALECT_SONIC:
		sb_printf(&b, "for p in");
		for (size_t p = 0; p < sw->n_ports; p++)
			sb_printf(&b, " %s", sw->ports[p].name);
		sb_printf(&b, "; do echo \"$p $(sonic-db-cli APPL_DB HGET \"PORT_TABLE:$p\" "
			      "oper_status)\"; done");
		return sb_take(&b);
	case INV_DIALECT_EOS:
		return rl_xstrdup("show interfaces status | json");
	case INV_DIALECT_NVUE:
		return rl_xstrdup("nv show interface -o json");
	}
	return NULL;
}

static int port_index(const struct inv_switch *sw, const char *name)
{
	for (size_t p = 0; p < sw->n_ports; p++)
		if (!strcmp(sw->ports[p].name, name))
			return (int)p;
	return -1;
}

static void set_state(struct port_state *st, const char *word, bool up)
{
	st->seen = true;
	st->up = up;
	snprintf(st->word, sizeof(st->word), "%s", word && *word ? word : "?");
}

/* "Ethernet0 up" lines; an empty state is a port APPL_DB does not know. */
static int parse_sonic(const struct inv_switch *sw, const char *out, struct port_state *st,
		       char *err, size_t errlen)
{
	char *text = rl_xstrdup(out), *save = NULL;
	int lines = 0;

	for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		char *word = strchr(ln, ' ');
		int p;

		if (word)
			*word++ = '\0';
		p = port_index(sw, ln);
		if (p < 0)
			continue;
		lines++;
		word = word ? word + strspn(word, " \t") : NULL;
		if (word && *word) {
			word[strcspn(word, " \t\r")] = '\0';
			set_state(&st[p], word, !strcmp(word, "up"));
		}
	}
	free(text);
	if (!lines && sw->n_ports) {
		snprintf(err, errlen, "%s: no 'PORT oper_status' line in what sonic-db-cli printed",
			 sw->name);
		return -EINVAL;
	}
	return 0;
}

static int parse_json(const struct inv_switch *sw, const char *out, struct port_state *st,
		      char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(out, JSON_DECODE_ANY, &je), *v, *x;
	const char *name;
	size_t i;

	if (!root) {
		snprintf(err, errlen, "%s: its port states are not JSON: %s (line %d)", sw->name,
			 je.text, je.line);
		return -EINVAL;
	}
	switch (sw->dialect) {
	case INV_DIALECT_LINUX:
		if (!json_is_array(root))
			goto bad;
		json_array_foreach(root, i, v)
		{
			const char *op = json_string_value(json_object_get(v, "operstate"));
			bool lower_up = false;
			size_t j;
			int p =
			    port_index(sw, json_string_value(json_object_get(v, "ifname")) ?: "");

			json_array_foreach(json_object_get(v, "flags"), j, x) lower_up |=
			    !strcmp(json_string_value(x) ?: "", "LOWER_UP");
			/* A driver without operstate says UNKNOWN; its carrier decides. */
			if (p >= 0)
				set_state(&st[p], op,
					  op && (!strcmp(op, "UP") ||
						 (!strcmp(op, "UNKNOWN") && lower_up)));
		}
		break;
	case INV_DIALECT_EOS:
		v = json_object_get(root, "interfaceStatuses");
		if (!json_is_object(v))
			goto bad;
		json_object_foreach(v, name, x)
		{
			const char *ls = json_string_value(json_object_get(x, "linkStatus"));
			int p = port_index(sw, name);

			if (p >= 0)
				set_state(&st[p], ls, ls && !strcmp(ls, "connected"));
		}
		break;
	case INV_DIALECT_NVUE:
		if (!json_is_object(root))
			goto bad;
		json_object_foreach(root, name, x)
		{
			const char *os = json_string_value(
			    json_object_get(json_object_get(x, "link"), "oper-status"));
			int p = port_index(sw, name);

			if (p >= 0)
				set_state(&st[p], os, os && !strcmp(os, "up"));
		}
		break;
	case INV_DIALECT_SONIC:
		goto bad;
	}
	json_decref(root);
	return 0;
bad:
	snprintf(err, errlen, "%s: its port states are not in %s's format", sw->name,
		 inv_dialect_name(sw->dialect));
	json_decref(root);
	return -EINVAL;
}

int links_parse(const struct inv_switch *sw, const char *out, struct port_state *st, char *err,
		size_t errlen)
{
	memset(st, 0, sw->n_ports * sizeof(*st));
	if (sw->dialect == INV_DIALECT_SONIC)
		return parse_sonic(sw, out ? out : "", st, err, errlen);
	return parse_json(sw, out ? out : "", st, err, errlen);
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
	switch (d) {
	case INV_DIALECT_SONIC:
		return "sonic-db-cli APPL_DB PORT_TABLE oper_status";
	case INV_DIALECT_EOS:
		return "show interfaces status | json";
	case INV_DIALECT_NVUE:
		return "nv show interface -o json";
	case INV_DIALECT_LINUX:
		break;
	}
	return "ip -j link show";
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
