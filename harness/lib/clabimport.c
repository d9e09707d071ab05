// SPDX-License-Identifier: MIT
/*
 * 'rocelab inventory import containerlab': a containerlab topology as an
 * inventory to check, edit and use.  The topology's format is containerlab's
 * (containerlab.dev/manual/topo-def-file: name; topology.defaults.kind;
 * topology.nodes.NAME.{kind, mgmt-ipv4, exec, labels}; topology.links[]
 * .endpoints, as "node:iface" strings or {node, interface} maps; mgmt
 * .ipv4-gw and .ipv4-subnet).  A topology is anyone's file: every name,
 * interface and address it gives is checked before it is written, and what
 * is not one is reported, never copied into the inventory.
 */
#define _GNU_SOURCE
#include "harness/lib/clabimport.h"

#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/yamldoc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <yaml.h>

#define CLAB_NODES 512
#define CLAB_LINKS 4096
#define CLAB_PORTS 128

/* containerlab's kinds rocelab drives, and how (a linux node is a host unless labelled) */
static const struct {
	const char *kind, *dialect, *user;
} kinds[] = {
    {"sonic-vs", "sonic", "admin"},   {"sonic-vm", "sonic", "admin"},
    {"dell_sonic", "sonic", "admin"}, {"ceos", "eos", "admin"},
    {"arista_ceos", "eos", "admin"},  {"arista_veos", "eos", "admin"},
    {"cvx", "nvue", "cumulus"},	      {"cumulus_cvx", "nvue", "cumulus"},
    {"linux", NULL, "root"},
};

struct cnode {
	char name[INV_NAME_MAX + 1];
	const char *dialect, *user; /* NULL dialect: a host */
	char mgmt[INET_ADDRSTRLEN];
	unsigned line, col;
	bool skip; /* a kind rocelab does not drive */
	int rail;  /* a switch with hosts on it: its rail (1..); 0: a spine */
	yaml_node_t *exec;
	size_t n_ports, n_rnics;
	char ports[CLAB_PORTS][INV_NAME_MAX + 1];
};

struct cend {
	size_t node;
	char iface[INV_NAME_MAX + 1];
};

struct clink {
	struct cend e[2];
	unsigned line, col;
	size_t rnic; /* the host end's RNIC number (1..), 0: switch to switch */
	char addr[40];
};

struct cproblem {
	unsigned line, col;
	char *msg;
};

struct cctx {
	const char *path;
	FILE *err;
	yaml_document_t doc;
	int problems;
	struct cproblem *said; /* printed in file order at the end */
	struct cnode *nodes;
	size_t n_nodes;
	struct clink *links;
	size_t n_links;
	char gw[INET_ADDRSTRLEN];
};

static void problem(struct cctx *c, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void problem(struct cctx *c, unsigned line, unsigned col, const char *fmt, ...)
{
	struct cproblem *p = RL_PUSH(c->said, c->problems);
	va_list ap;

	p->line = line, p->col = col;
	va_start(ap, fmt);
	if (vasprintf(&p->msg, fmt, ap) < 0)
		p->msg = NULL;
	va_end(ap);
}

static int by_place(const void *a, const void *b)
{
	const struct cproblem *x = a, *y = b;

	return x->line != y->line ? (x->line > y->line) - (x->line < y->line)
				  : (x->col > y->col) - (x->col < y->col);
}

/* What was found, in the topology's order (printed as text: the names are the topology's). */
static void say_problems(struct cctx *c)
{
	if (!c->problems)
		return;
	qsort(c->said, (size_t)c->problems, sizeof(*c->said), by_place);
	for (int i = 0; i < c->problems; i++) {
		rl_fprintf_text(c->err, "%s:%u:%u: %s\n", c->path, c->said[i].line, c->said[i].col,
				c->said[i].msg ? c->said[i].msg : "out of memory");
		free(c->said[i].msg);
	}
	free(c->said);
}

static yaml_node_t *node_at(struct cctx *c, int i)
{
	return yaml_document_get_node(&c->doc, i);
}

/* The value of key in mapping m, or NULL. */
static yaml_node_t *get(struct cctx *c, yaml_node_t *m, const char *key)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(c, p->key);

		if (k && k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return node_at(c, p->value);
	}
	return NULL;
}

static const char *text(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

#define LINE(n) ((unsigned)(n)->start_mark.line + 1)
#define COL(n)	((unsigned)(n)->start_mark.column + 1)

/* An interface name an inventory can carry: [A-Za-z0-9_./-], not "." or "..", no leading '-'. */
static bool iface_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= INV_NAME_MAX && s[0] != '-' && strspn(s, ".") < n &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-") == n;
}

static bool ipv4_ok(const char *s)
{
	struct in_addr a;

	return s && inet_pton(AF_INET, s, &a) == 1;
}

/* ADDR/LEN with a prefix length 1..32 into out; false when it is none. */
static bool cidr_ok(const char *s, char *out, size_t len)
{
	char a[INET_ADDRSTRLEN + 4], *slash;
	long plen;

	if (!s || strlen(s) >= sizeof(a))
		return false;
	snprintf(a, sizeof(a), "%s", s);
	if (!(slash = strchr(a, '/')))
		return false;
	*slash = '\0';
	plen = strtol(slash + 1, NULL, 10);
	if (!ipv4_ok(a) || plen < 1 || plen > 32 ||
	    strspn(slash + 1, "0123456789") != strlen(slash + 1))
		return false;
	snprintf(out, len, "%s/%ld", a, plen);
	return true;
}

static ssize_t find_node(const struct cctx *c, const char *name)
{
	for (size_t i = 0; i < c->n_nodes; i++)
		if (!strcmp(c->nodes[i].name, name))
			return (ssize_t)i;
	return -1;
}

/* ---- nodes ------------------------------------------------------------------------------- */

static void read_node(struct cctx *c, yaml_node_t *key, yaml_node_t *v, const char *dflt)
{
	const char *name = text(key), *kind = text(get(c, v, "kind")),
		   *role = text(get(c, get(c, v, "labels"), "rocelab.role")),
		   *mgmt = text(get(c, v, "mgmt-ipv4"));
	struct cnode *n;
	size_t k;

	if (!rl_name_ok(name, INV_NAME_MAX)) {
		problem(c, LINE(key), COL(key),
			"node name '%s' is not a name an inventory takes ([A-Za-z0-9_.:-], at most "
			"%d): left out",
			name ? name : "?", INV_NAME_MAX);
		return;
	}
	if (c->n_nodes == CLAB_NODES) {
		problem(c, LINE(key), COL(key), "more than %d nodes: %s left out", CLAB_NODES,
			name);
		return;
	}
	n = &c->nodes[c->n_nodes++];
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->line = LINE(key), n->col = COL(key);
	n->exec = get(c, v, "exec");
	kind = kind ? kind : dflt;
	for (k = 0; kind && k < ARRAY_SIZE(kinds) && strcmp(kinds[k].kind, kind); k++)
		;
	if (!kind || k == ARRAY_SIZE(kinds)) {
		problem(
		    c, n->line, n->col,
		    "node %s: kind '%s' is not one rocelab drives (sonic-vs, sonic-vm, "
		    "dell_sonic, ceos, arista_ceos, arista_veos, cvx, cumulus_cvx, linux): left "
		    "out, with its links",
		    name, kind ? kind : "(none)");
		n->skip = true;
		return;
	}
	n->dialect = kinds[k].dialect;
	n->user = kinds[k].user;
	if (!n->dialect && role && !strcmp(role, "switch"))
		n->dialect = "linux";
	if (mgmt && ipv4_ok(mgmt))
		snprintf(n->mgmt, sizeof(n->mgmt), "%s", mgmt);
	else if (mgmt)
		problem(c, LINE(get(c, v, "mgmt-ipv4")), COL(get(c, v, "mgmt-ipv4")),
			"node %s: mgmt-ipv4 '%s' is no IPv4 address", name, mgmt);
	else
		problem(c, n->line, n->col,
			"node %s: no mgmt-ipv4 (containerlab gives one at deploy: 'containerlab "
			"inspect' shows it); set it in the topology, or mgmt in the inventory",
			name);
}

/* ---- links ------------------------------------------------------------------------------- */

/* One endpoint, "node:iface" or {node, interface}; false (said) when it is neither. */
static bool read_end(struct cctx *c, yaml_node_t *e, struct cend *out, bool *skipped)
{
	char buf[128];
	const char *node, *iface, *s = text(e);
	char *colon;
	ssize_t i;

	if (s) {
		if (strlen(s) >= sizeof(buf) || !(colon = strchr(strcpy(buf, s), ':')))
			goto bad;
		*colon = '\0';
		node = buf, iface = colon + 1;
	} else {
		node = text(get(c, e, "node"));
		iface = text(get(c, e, "interface"));
		if (!node || !iface)
			goto bad;
	}
	if ((i = find_node(c, node)) < 0) {
		/* host:, mgmt-net:, macvlan: and bridges are not cables between two nodes */
		problem(c, LINE(e), COL(e),
			"endpoint '%s:%s': %s is no node of the topology "
			"rocelab drives: the link is left out",
			node, iface, node);
		*skipped = true;
		return false;
	}
	if (c->nodes[i].skip) {
		*skipped = true;
		return false;
	}
	if (!iface_ok(iface)) {
		problem(c, LINE(e), COL(e),
			"endpoint of %s: interface '%s' is not a port name an inventory takes "
			"([A-Za-z0-9_./-], at most %d)",
			node, iface, INV_NAME_MAX);
		return false;
	}
	out->node = (size_t)i;
	snprintf(out->iface, sizeof(out->iface), "%s", iface);
	return true;
bad:
	problem(c, LINE(e), COL(e), "an endpoint is \"NODE:INTERFACE\" or {node, interface}");
	return false;
}

static void read_link(struct cctx *c, yaml_node_t *l)
{
	yaml_node_t *eps = get(c, l, "endpoints");
	const char *type = text(get(c, l, "type"));
	struct clink *k;
	bool skipped = false;

	if (type && strcmp(type, "veth")) {
		problem(c, LINE(l), COL(l),
			"a link of type %s is no cable between two nodes: left out", type);
		return;
	}
	if (!eps || eps->type != YAML_SEQUENCE_NODE ||
	    eps->data.sequence.items.top - eps->data.sequence.items.start != 2) {
		problem(c, LINE(l), COL(l), "a link needs 'endpoints' with two ends");
		return;
	}
	if (c->n_links == CLAB_LINKS) {
		problem(c, LINE(l), COL(l), "more than %d links: left out", CLAB_LINKS);
		return;
	}
	k = &c->links[c->n_links];
	k->line = LINE(l), k->col = COL(l);
	for (int i = 0; i < 2; i++)
		if (!read_end(c, node_at(c, eps->data.sequence.items.start[i]), &k->e[i], &skipped))
			return;
	if (!c->nodes[k->e[0].node].dialect && !c->nodes[k->e[1].node].dialect) {
		problem(c, k->line, k->col,
			"a link between two hosts (%s, %s): rocelab's labs cable hosts to "
			"switches; left out",
			c->nodes[k->e[0].node].name, c->nodes[k->e[1].node].name);
		return;
	}
	c->n_links++;
}

/* ---- the RNICs' addresses: 'ip [-4] addr|address|a add ADDR/LEN dev IFACE' in a host's exec */

static bool exec_address(struct cctx *c, const struct cnode *n, const char *iface, char *out,
			 size_t len)
{
	if (!n->exec || n->exec->type != YAML_SEQUENCE_NODE)
		return false;
	for (yaml_node_item_t *it = n->exec->data.sequence.items.start;
	     it < n->exec->data.sequence.items.top; it++) {
		const char *cmd = text(node_at(c, *it));
		char buf[256], *tok[16], *save = NULL;
		int nt = 0, i = 0;

		if (!cmd || strlen(cmd) >= sizeof(buf))
			continue;
		snprintf(buf, sizeof(buf), "%s", cmd);
		for (char *t = strtok_r(buf, " \t", &save); t && nt < 16;
		     t = strtok_r(NULL, " \t", &save))
			tok[nt++] = t;
		if (nt < 6 || strcmp(tok[i++], "ip"))
			continue;
		if (!strcmp(tok[i], "-4"))
			i++;
		if (strcmp(tok[i], "addr") && strcmp(tok[i], "address") && strcmp(tok[i], "a"))
			continue;
		if (strcmp(tok[++i], "add"))
			continue;
		for (int j = i + 1; j + 1 < nt; j++)
			if (!strcmp(tok[j], "dev") && !strcmp(tok[j + 1], iface))
				for (int a = i + 1; a < nt; a++)
					if (a != j && a != j + 1 && cidr_ok(tok[a], out, len))
						return true;
	}
	return false;
}

/* ---- the inventory ------------------------------------------------------------------------ */

static void add_port(struct cnode *n, const char *iface)
{
	for (size_t i = 0; i < n->n_ports; i++)
		if (!strcmp(n->ports[i], iface))
			return;
	if (n->n_ports < CLAB_PORTS)
		snprintf(n->ports[n->n_ports++], sizeof(n->ports[0]), "%s", iface);
}

/* Rails, RNICs, ports and addresses from the links. */
static void shape(struct cctx *c)
{
	int rails = 0;

	for (size_t i = 0; i < c->n_links; i++) {
		struct clink *k = &c->links[i];
		bool s0 = c->nodes[k->e[0].node].dialect, s1 = c->nodes[k->e[1].node].dialect;
		int h = s0 && s1 ? 0 : s0 ? 1 : -1; /* 1: e[1] the host, -1: e[0] */

		for (int e = 0; e < 2; e++)
			if (c->nodes[k->e[e].node].dialect)
				add_port(&c->nodes[k->e[e].node], k->e[e].iface);
		if (h) {
			struct cend *host = &k->e[h > 0], *sw = &k->e[h < 0];
			struct cnode *hn = &c->nodes[host->node], *sn = &c->nodes[sw->node];

			if (!sn->rail)
				sn->rail = ++rails;
			k->rnic = ++hn->n_rnics;
			if (!exec_address(c, hn, host->iface, k->addr, sizeof(k->addr)))
				problem(
				    c, k->line, k->col,
				    "%s:%s: no address (containerlab gives none; an exec line "
				    "'ip addr add ADDR/LEN dev %s' of %s, or the RNIC's address "
				    "in the inventory)",
				    hn->name, host->iface, host->iface, hn->name);
		}
	}
}

static void write_inventory(struct cctx *c, const char *lab, FILE *out)
{
	fprintf(out,
		"# rocelab inventory imported from a containerlab topology ('rocelab inventory\n"
		"# import containerlab': %zu nodes, %zu links).  Check it with 'rocelab inventory\n"
		"# check FILE'.  Ports keep containerlab's interface names: where the NOS names\n"
		"# them otherwise (SONiC's Ethernet0, EOS's Ethernet1), rename them here and in\n"
		"# links.  Logins: 'credential: agent' (ssh-agent); 'rocelab lab trust' records\n"
		"# the devices' host keys.\n",
		c->n_nodes, c->n_links);
	fprintf(out, "lab: %s\nkind: ssh\ncontroller: %s\n\nhosts:\n", lab, c->gw);
	for (size_t i = 0; i < c->n_nodes; i++) {
		const struct cnode *n = &c->nodes[i];

		if (n->skip || n->dialect)
			continue;
		fprintf(out, "  - name: %s\n", n->name);
		fprintf(out, n->mgmt[0] ? "    mgmt: %s\n" : "    # mgmt: (not in the topology)\n",
			n->mgmt);
		fprintf(out, "    ssh: { user: %s, credential: agent }\n    rnics:\n", n->user);
		for (size_t l = 0; l < c->n_links; l++) {
			const struct clink *k = &c->links[l];
			const struct cend *h = &k->e[c->nodes[k->e[0].node].dialect ? 1 : 0],
					  *s = &k->e[c->nodes[k->e[0].node].dialect ? 0 : 1];

			if (!k->rnic || h->node != i)
				continue;
			fprintf(out, "      - { name: rnic%zu, netdev: %s, rail: %d", k->rnic,
				h->iface, c->nodes[s->node].rail);
			if (k->addr[0])
				fprintf(out, ", address: %s }\n", k->addr);
			else
				fprintf(out, " }  # no address in the topology: add one\n");
		}
		if (!n->n_rnics)
			fprintf(out, "      []\n");
	}
	fprintf(out, "\nswitches:\n");
	for (size_t i = 0; i < c->n_nodes; i++) {
		const struct cnode *n = &c->nodes[i];

		if (n->skip || !n->dialect)
			continue;
		fprintf(out, "  - name: %s\n    role: %s\n", n->name, n->rail ? "rail" : "spine");
		if (n->rail)
			fprintf(out, "    rail: %d\n", n->rail);
		fprintf(out, "    dialect: %s\n", n->dialect);
		fprintf(out, n->mgmt[0] ? "    mgmt: %s\n" : "    # mgmt: (not in the topology)\n",
			n->mgmt);
		fprintf(out, "    ssh: { user: %s, credential: agent }\n    ports: [", n->user);
		for (size_t p = 0; p < n->n_ports; p++)
			fprintf(out, "%s%s", p ? ", " : "", n->ports[p]);
		fprintf(out, "]\n");
	}
	fprintf(out, "\nlinks:\n");
	for (size_t l = 0; l < c->n_links; l++) {
		const struct clink *k = &c->links[l];

		fprintf(out, "  - { a: ");
		for (int e = 0; e < 2; e++) {
			const struct cnode *n = &c->nodes[k->e[e].node];

			if (n->dialect)
				fprintf(out, "%s:%s", n->name, k->e[e].iface);
			else
				fprintf(out, "%s:rnic%zu", n->name, k->rnic);
			fprintf(out, e ? " }\n" : ", b: ");
		}
	}
}

/* The controller: where the lab's hosts reach this machine, the management network's gateway. */
static void controller(struct cctx *c, yaml_node_t *root)
{
	yaml_node_t *mg = get(c, root, "mgmt");
	const char *gw = text(get(c, mg, "ipv4-gw")), *sub = text(get(c, mg, "ipv4-subnet"));
	char net[40];
	struct in_addr a;

	/* containerlab's default management network is 172.20.20.0/24, its gateway .1 */
	snprintf(c->gw, sizeof(c->gw), "172.20.20.1");
	if (gw && ipv4_ok(gw)) {
		snprintf(c->gw, sizeof(c->gw), "%s", gw);
	} else if (sub && cidr_ok(sub, net, sizeof(net))) {
		*strchr(net, '/') = '\0';
		inet_pton(AF_INET, net, &a);
		a.s_addr = htonl(ntohl(a.s_addr) + 1);
		inet_ntop(AF_INET, &a, c->gw, sizeof(c->gw));
	} else if (gw || sub) {
		problem(c, LINE(mg), COL(mg),
			"mgmt: ipv4-gw or ipv4-subnet is no IPv4 address: the controller is "
			"172.20.20.1 (containerlab's default), change it if it is not");
	}
}

int clab_import(const char *path, FILE *out, FILE *err)
{
	size_t len;
	char *buf = rl_read_file(path, &len);
	int r;

	if (!buf) {
		r = -errno;
		rl_fprintf_text(err, "%s: %s\n", path, strerror(-r));
		return r;
	}
	r = clab_import_text(path, buf, len, out, err);
	free(buf);
	return r;
}

int clab_import_text(const char *path, const char *yaml, size_t len, FILE *out, FILE *err)
{
	struct cctx c = {.path = path, .err = err};
	struct rl_yaml_err ye;
	yaml_node_t *root, *topo, *nodes, *links;
	const char *lab, *dflt;
	int r = 0;

	if (rl_yaml_load(yaml, len, &c.doc, &ye)) {
		rl_fprintf_text(err, "%s:%u:%u: %s\n", path, ye.line, ye.col, ye.why);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&c.doc);
	topo = get(&c, root, "topology");
	nodes = get(&c, topo, "nodes");
	links = get(&c, topo, "links");
	lab = text(get(&c, root, "name"));
	if (!root || !nodes || nodes->type != YAML_MAPPING_NODE) {
		rl_fprintf_text(err, "%s: not a containerlab topology: no topology.nodes mapping\n",
				path);
		r = -EINVAL;
		goto out;
	}
	if (!rl_name_ok(lab, INV_NAME_MAX)) {
		rl_fprintf_text(err,
				"%s:%u:%u: the topology's name '%s' is not a lab name "
				"([A-Za-z0-9_.:-], at most %d)\n",
				path, LINE(root), COL(root), lab ? lab : "(none)", INV_NAME_MAX);
		r = -EINVAL;
		goto out;
	}
	c.nodes = rl_xcalloc(CLAB_NODES, sizeof(*c.nodes));
	c.links = rl_xcalloc(CLAB_LINKS, sizeof(*c.links));
	dflt = text(get(&c, get(&c, topo, "defaults"), "kind"));
	for (yaml_node_pair_t *p = nodes->data.mapping.pairs.start;
	     p < nodes->data.mapping.pairs.top; p++)
		read_node(&c, node_at(&c, p->key), node_at(&c, p->value), dflt);
	if (links && links->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *it = links->data.sequence.items.start;
		     it < links->data.sequence.items.top; it++)
			read_link(&c, node_at(&c, *it));
	controller(&c, root);
	shape(&c);
	write_inventory(&c, lab, out);
	r = c.problems;
	say_problems(&c);
	free(c.nodes);
	free(c.links);
out:
	yaml_document_delete(&c.doc);
	return r;
}
