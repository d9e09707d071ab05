// SPDX-License-Identifier: MIT
/* Inventory parser (libyaml document API) and validator; every error carries file:line:col. */
#define _GNU_SOURCE
#include "harness/lib/inventory.h"

#include "harness/lib/common.h"
#include "harness/lib/yamldoc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_ERRORS 50

/* A problem found, kept until the whole file is read: they are printed in the file's order. */
struct diag {
	struct inv_loc l;
	size_t seq;
	char *text;
};

struct ctx {
	const char *path;
	yaml_document_t *doc;
	FILE *errf;
	int nerr;
	struct diag *diags;
	size_t n_diags;
	struct inventory *inv;
	struct inv_host *host;	   /* the host whose RNICs are being parsed */
	struct inv_switch *sw;	   /* the switch whose ports are being parsed */
	struct inv_tenant *tenant; /* the tenant whose members are being parsed */
};

static struct inv_loc loc_of(const yaml_node_t *n)
{
	return (struct inv_loc){(unsigned)n->start_mark.line + 1,
				(unsigned)n->start_mark.column + 1};
}

__attribute__((format(printf, 3, 4))) static void diag_at(struct ctx *c, struct inv_loc l,
							  const char *fmt, ...)
{
	va_list ap;
	struct diag *d;
	size_t len = 0;
	FILE *m;

	if (c->nerr++ >= MAX_ERRORS || !c->errf)
		return;
	d = RL_PUSH(c->diags, c->n_diags);
	*d = (struct diag){.l = l, .seq = c->n_diags};
	if (!(m = open_memstream(&d->text, &len)))
		abort(); /* out of memory */
	va_start(ap, fmt);
	rl_vfprintf_text(m, fmt, ap);
	va_end(ap);
	fclose(m);
}

static int diag_order(const void *a, const void *b)
{
	const struct diag *x = a, *y = b;

	if (x->l.line != y->l.line)
		return x->l.line < y->l.line ? -1 : 1;
	if (x->l.col != y->l.col)
		return x->l.col < y->l.col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The problems found, by line and column, then how many (issue 58). */
static void diags_print(struct ctx *c)
{
	if (c->n_diags) /* qsort() takes no NULL array, even empty */
		qsort(c->diags, c->n_diags, sizeof(*c->diags), diag_order);
	for (size_t i = 0; i < c->n_diags; i++) {
		fprintf(c->errf, "%s:%u:%u: %s\n", c->path, c->diags[i].l.line, c->diags[i].l.col,
			c->diags[i].text);
		free(c->diags[i].text);
	}
	if (c->errf && c->nerr > MAX_ERRORS)
		fprintf(c->errf, "%s: %d problems (the first %d found shown)\n", c->path, c->nerr,
			MAX_ERRORS);
	else if (c->errf && c->nerr > 1)
		fprintf(c->errf, "%s: %d problems\n", c->path, c->nerr);
	free(c->diags);
	c->diags = NULL;
	c->n_diags = 0;
}

#define diag(c, node, ...) diag_at((c), loc_of(node), __VA_ARGS__)

static yaml_node_t *node(struct ctx *c, int idx)
{
	return yaml_document_get_node(c->doc, idx);
}

static const char *node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

/* ---- scalars ---------------------------------------------------------- */

static const char *scalar(struct ctx *c, yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE) {
		diag(c, n, "%s must be a scalar, not %s", what, node_kind(n));
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static int get_str(struct ctx *c, yaml_node_t *n, char *buf, size_t size, const char *what)
{
	const char *s = scalar(c, n, what);

	if (!s)
		return -EINVAL;
	if (strlen(s) >= size) {
		diag(c, n, "%s '%s' is too long (at most %zu characters)", what, s, size - 1);
		return -EINVAL;
	}
	strcpy(buf, s);
	return 0;
}

static int get_name(struct ctx *c, yaml_node_t *n, char *buf, size_t size, const char *what)
{
	if (get_str(c, n, buf, size, what))
		return -EINVAL;
	if (!rl_name_ok(buf, size - 1) || strchr(buf, ':')) {
		diag(c, n, "%s '%s' is not a valid name: use letters, digits, '_', '.' and '-'",
		     what, buf);
		buf[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

static int get_int(struct ctx *c, yaml_node_t *n, int *v, int min, int max, const char *what)
{
	const char *s = scalar(c, n, what);
	char *end;
	long x;

	if (!s)
		return -EINVAL;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < min || x > max) {
		diag(c, n, "%s must be a whole number from %d to %d, not '%s'", what, min, max, s);
		return -EINVAL;
	}
	*v = (int)x;
	return 0;
}

/* need_len: 1 requires "/N", 0 allows it, -1 forbids it. */
static int get_prefix(struct ctx *c, yaml_node_t *n, struct inv_prefix *p, int need_len,
		      const char *what)
{
	const char *s = scalar(c, n, what);
	char buf[64];
	char *slash, *end;

	if (!s)
		return -EINVAL;
	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	p->len = -1;
	slash = strchr(buf, '/');
	if (slash) {
		long l;

		if (need_len < 0) {
			diag(c, n, "%s '%s' takes no prefix length: write the address alone", what,
			     s);
			return -EINVAL;
		}
		*slash = '\0';
		errno = 0;
		l = strtol(slash + 1, &end, 10);
		if (errno || end == slash + 1 || *end || l < 0 || l > 32)
			goto bad;
		p->len = (int)l;
	} else if (need_len > 0) {
		diag(c, n, "%s '%s' needs a prefix length, e.g. '%s/24'", what, s, s);
		return -EINVAL;
	}
	if (inet_pton(AF_INET, buf, &p->addr) != 1)
		goto bad;
	return 0;
bad:
	diag(c, n, "%s '%s' is not a valid IPv4 address%s", what, s,
	     need_len >= 0 ? " (expected a.b.c.d or a.b.c.d/len)" : "");
	return -EINVAL;
}

static int get_addr(struct ctx *c, yaml_node_t *n, struct in_addr *a, const char *what)
{
	struct inv_prefix p;

	if (get_prefix(c, n, &p, -1, what))
		return -EINVAL;
	*a = p.addr;
	return 0;
}

/* ---- mappings with a key table -------------------------------------- */

struct field {
	const char *key;
	bool required;
	int (*parse)(struct ctx *c, yaml_node_t *val, void *obj);
};

/*
 * Check every key of map against fields (unknown, duplicate, missing
 * required), then run the parsers in table order, so that later fields may
 * rely on earlier ones whatever the order in the file.
 */
static int walk_map(struct ctx *c, yaml_node_t *map, const struct field *fields, size_t nfields,
		    void *obj, const char *what)
{
	yaml_node_t *vals[16] = {0};
	yaml_node_t *keys[16] = {0};
	int ret = 0;

	if (map->type != YAML_MAPPING_NODE) {
		diag(c, map, "%s must be a mapping (key: value), not %s", what, node_kind(map));
		return -EINVAL;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node(c, p->key);
		const char *ks =
		    k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
		size_t i;

		if (!ks) {
			diag(c, k, "keys of %s must be scalars", what);
			ret = -EINVAL;
			continue;
		}
		for (i = 0; i < nfields; i++)
			if (!strcmp(ks, fields[i].key))
				break;
		if (i == nfields) {
			char expect[256] = "";

			for (size_t j = 0; j < nfields; j++) {
				strncat(expect, j ? ", " : "", sizeof(expect) - strlen(expect) - 1);
				strncat(expect, fields[j].key, sizeof(expect) - strlen(expect) - 1);
			}
			if (!strcmp(ks, "password") || !strcmp(ks, "passwd"))
				diag(c, k,
				     "passwords are not accepted in an inventory: use 'credential: "
				     "key:PATH' or 'credential: agent'");
			else
				diag(c, k, "unknown key '%s' in %s (expected one of: %s)", ks, what,
				     expect);
			ret = -EINVAL;
			continue;
		}
		if (keys[i]) {
			diag(c, k, "duplicate key '%s' in %s (first given at line %u)", ks, what,
			     (unsigned)keys[i]->start_mark.line + 1);
			ret = -EINVAL;
			continue;
		}
		keys[i] = k;
		vals[i] = node(c, p->value);
	}
	for (size_t i = 0; i < nfields; i++) {
		if (!vals[i]) {
			if (fields[i].required) {
				diag(c, map, "%s is missing the required key '%s'", what,
				     fields[i].key);
				ret = -EINVAL;
			}
			continue;
		}
		if (fields[i].parse(c, vals[i], obj))
			ret = -EINVAL;
	}
	return ret;
}

#define WALK(c, n, tbl, obj, what) walk_map((c), (n), (tbl), ARRAY_SIZE(tbl), (obj), (what))

/* Run fn on every item of a list node. */
static int walk_seq(struct ctx *c, yaml_node_t *seq, int (*fn)(struct ctx *, yaml_node_t *),
		    const char *what)
{
	int ret = 0;

	if (seq->type != YAML_SEQUENCE_NODE) {
		diag(c, seq, "%s must be a list, not %s", what, node_kind(seq));
		return -EINVAL;
	}
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++)
		if (fn(c, node(c, *it)))
			ret = -EINVAL;
	return ret;
}

/* ---- ssh ------------------------------------------------------------- */

static int ssh_user(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_name(c, v, ((struct inv_ssh *)o)->user, INV_NAME_MAX + 1, "ssh user");
}

static int ssh_credential(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_ssh *s = o;
	const char *str = scalar(c, v, "ssh credential");

	if (!str)
		return -EINVAL;
	if (!strcmp(str, "lab-key")) {
		s->auth = INV_AUTH_LAB_KEY;
	} else if (!strcmp(str, "agent")) {
		s->auth = INV_AUTH_AGENT;
	} else if (!strncmp(str, "key:", 4) && str[4]) {
		s->auth = INV_AUTH_KEY_FILE;
		s->key_file = rl_xstrdup(str + 4);
	} else {
		diag(c, v,
		     "ssh credential '%s' is not one of: lab-key (the virtual lab's own key), "
		     "agent (ssh-agent), key:PATH (a private key file)",
		     str);
		return -EINVAL;
	}
	return 0;
}

static int ssh_port(struct ctx *c, yaml_node_t *v, void *o)
{
	int p;

	if (get_int(c, v, &p, 1, 65535, "ssh port"))
		return -EINVAL;
	((struct inv_ssh *)o)->port = (unsigned)p;
	return 0;
}

static const struct field ssh_fields[] = {
    {"user", true, ssh_user},
    {"credential", true, ssh_credential},
    {"port", false, ssh_port},
};

static int parse_ssh(struct ctx *c, yaml_node_t *v, struct inv_ssh *s)
{
	s->port = 22;
	return WALK(c, v, ssh_fields, s, "ssh");
}

/* ---- hosts and RNICs ------------------------------------------------- */

static int rnic_name(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_rnic *r = o;

	r->loc = loc_of(v);
	return get_name(c, v, r->name, sizeof(r->name), "RNIC name");
}

static int rnic_netdev(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_name(c, v, ((struct inv_rnic *)o)->netdev, INV_NETDEV_MAX + 1, "netdev");
}

static int rnic_ibdev(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_name(c, v, ((struct inv_rnic *)o)->ibdev, INV_NAME_MAX + 1, "ibdev");
}

static int rnic_rail(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_int(c, v, &((struct inv_rnic *)o)->rail, 1, 1024, "rail");
}

static int rnic_address(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_rnic *r = o;

	if (get_prefix(c, v, &r->addr, 1, "RNIC address"))
		return -EINVAL;
	if (r->addr.len < 8 || r->addr.len > 32) {
		diag(c, v, "RNIC address prefix /%d is out of range (8..32)", r->addr.len);
		return -EINVAL;
	}
	return 0;
}

static int rnic_gateway(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_addr(c, v, &((struct inv_rnic *)o)->gateway, "gateway");
}

static int rnic_gid(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_int(c, v, &((struct inv_rnic *)o)->gid_index, 0, 255, "gid_index");
}

static const struct field rnic_fields[] = {
    {"name", true, rnic_name},	     {"netdev", false, rnic_netdev},
    {"ibdev", false, rnic_ibdev},    {"rail", false, rnic_rail},
    {"address", true, rnic_address}, {"gateway", false, rnic_gateway},
    {"gid_index", false, rnic_gid},
};

static uint32_t prefix_mask(int len)
{
	return len <= 0 ? 0 : len >= 32 ? 0xffffffffu : ~((1u << (32 - len)) - 1);
}

static int parse_rnic(struct ctx *c, yaml_node_t *n)
{
	struct inv_host *h = c->host;
	struct inv_rnic *r = RL_PUSH(h->rnics, h->n_rnics);
	int ret;

	r->gid_index = -1;
	r->host = (size_t)(h - c->inv->hosts);
	r->loc = loc_of(n);
	ret = WALK(c, n, rnic_fields, r, "RNIC");
	if (ret)
		return ret;
	if (!r->netdev[0])
		strcpy(r->netdev, strlen(r->name) <= INV_NETDEV_MAX ? r->name : "");
	if (!r->netdev[0]) {
		diag(c, n, "RNIC '%s' needs 'netdev:' (its name is longer than a netdev name)",
		     r->name);
		return -EINVAL;
	}
	if (r->rail == 0) {
		diag(c, n,
		     "RNIC '%s' of host '%s' has no rail: add 'rail: N', the index of the rail "
		     "it is cabled to",
		     r->name, h->name);
		ret = -EINVAL;
	}
	uint32_t a = ntohl(r->addr.addr.s_addr), m = prefix_mask(r->addr.len);

	if (r->gateway.s_addr == 0) {
		if (r->addr.len > 30) {
			diag(c, n, "RNIC '%s' has a /%d address: give its 'gateway:'", r->name,
			     r->addr.len);
			return -EINVAL;
		}
		r->gateway.s_addr = htonl((a & m) | (~m - 1));
	} else if ((ntohl(r->gateway.s_addr) & m) != (a & m) ||
		   r->gateway.s_addr == r->addr.addr.s_addr) {
		diag(c, n, "gateway of RNIC '%s' must be another address inside %s/%d", r->name,
		     inet_ntoa(r->addr.addr), r->addr.len);
		ret = -EINVAL;
	}
	if (r->addr.len <= 30 && ((a & ~m) == 0 || (a & ~m) == ~m)) {
		diag(c, n, "RNIC address of '%s' is the network or broadcast address of its prefix",
		     r->name);
		ret = -EINVAL;
	}
	return ret;
}

static int host_name(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_host *h = o;

	h->loc = loc_of(v);
	return get_name(c, v, h->name, sizeof(h->name), "host name");
}

static int host_mgmt(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_host *h = o;

	h->has_mgmt = true;
	return get_addr(c, v, &h->mgmt, "management address");
}

static int host_ssh(struct ctx *c, yaml_node_t *v, void *o)
{
	return parse_ssh(c, v, &((struct inv_host *)o)->ssh);
}

/* An absolute path of plain characters: it reaches a remote shell's command line. */
static int host_rocelab(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_host *h = o;
	const char *p;

	if (get_str(c, v, h->rocelab, sizeof(h->rocelab), "rocelab path"))
		return -EINVAL;
	for (p = h->rocelab; *p && (isalnum((unsigned char)*p) || strchr("/._-+", *p)); p++)
		;
	if (!strcmp(h->rocelab, INV_ROCELAB_COPY))
		return 0;
	if (h->rocelab[0] != '/' || *p || strstr(h->rocelab, "..")) {
		diag(c, v,
		     "rocelab path '%s' must be an absolute path of letters, digits and '/._-+' "
		     "(the rocelab binary on that host), or 'copy' (this one, copied there for "
		     "the run)",
		     h->rocelab);
		h->rocelab[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

static int host_rnics(struct ctx *c, yaml_node_t *v, void *o)
{
	c->host = o;
	int ret = walk_seq(c, v, parse_rnic, "rnics");

	if (!ret && c->host->n_rnics == 0) {
		diag(c, v, "host '%s' has no RNICs: list at least one under 'rnics:'",
		     c->host->name);
		ret = -EINVAL;
	}
	return ret;
}

static const struct field host_fields[] = {
    {"name", true, host_name},	      {"mgmt", false, host_mgmt},  {"ssh", false, host_ssh},
    {"rocelab", false, host_rocelab}, {"rnics", true, host_rnics},
};

static int parse_host(struct ctx *c, yaml_node_t *n)
{
	struct inventory *inv = c->inv;
	struct inv_host *h = RL_PUSH(inv->hosts, inv->n_hosts);

	h->loc = loc_of(n);
	return WALK(c, n, host_fields, h, "host");
}

/* ---- switches and ports ---------------------------------------------- */

static const char *const role_names[] = {
    [INV_ROLE_RAIL] = "rail",
    [INV_ROLE_SPINE] = "spine",
    [INV_ROLE_LEAF] = "leaf",
    [INV_ROLE_TOR] = "tor",
};
static const char *const dialect_names[] = {
    [INV_DIALECT_LINUX] = "linux",
    [INV_DIALECT_SONIC] = "sonic",
    [INV_DIALECT_EOS] = "eos",
    [INV_DIALECT_NVUE] = "nvue",
};

const char *inv_role_name(enum inv_role r)
{
	return role_names[r];
}

const char *inv_dialect_name(enum inv_dialect d)
{
	return dialect_names[d];
}

static int get_enum(struct ctx *c, yaml_node_t *v, const char *const *names, size_t n, int *out,
		    const char *what)
{
	const char *s = scalar(c, v, what);

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(s, names[i])) {
			*out = (int)i;
			return 0;
		}
	}
	char expect[128] = "";

	for (size_t i = 0; i < n; i++) {
		strncat(expect, i ? "|" : "", sizeof(expect) - strlen(expect) - 1);
		strncat(expect, names[i], sizeof(expect) - strlen(expect) - 1);
	}
	diag(c, v, "%s '%s' is not one of %s", what, s, expect);
	return -EINVAL;
}

/* Switch port names may carry '/' (EOS "Ethernet1/1"); a virtual lab rejects that later. */
static int get_port_name(struct ctx *c, yaml_node_t *v, char *buf, size_t size)
{
	if (get_str(c, v, buf, size, "port name"))
		return -EINVAL;
	if (!rl_port_name_ok(buf, size - 1) || strchr(buf, ':')) {
		diag(c, v,
		     "port name '%s' is not a valid name: use letters, digits, '_', '.', '-' "
		     "and '/'",
		     buf);
		buf[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

static int port_name(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_port *p = o;

	p->loc = loc_of(v);
	return get_port_name(c, v, p->name, sizeof(p->name));
}

static int port_address(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_port *p = o;

	p->has_addr = true;
	return get_prefix(c, v, &p->addr, 1, "port address");
}

static const struct field port_fields[] = {
    {"name", true, port_name},
    {"address", false, port_address},
};

static int parse_port(struct ctx *c, yaml_node_t *n)
{
	struct inv_switch *s = c->sw;
	struct inv_port *p = RL_PUSH(s->ports, s->n_ports);

	p->loc = loc_of(n);
	if (n->type == YAML_SCALAR_NODE)
		return get_port_name(c, n, p->name, sizeof(p->name));
	return WALK(c, n, port_fields, p, "port");
}

static int sw_name(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_switch *s = o;

	s->loc = loc_of(v);
	return get_name(c, v, s->name, sizeof(s->name), "switch name");
}

static int sw_role(struct ctx *c, yaml_node_t *v, void *o)
{
	int r;

	if (get_enum(c, v, role_names, ARRAY_SIZE(role_names), &r, "role"))
		return -EINVAL;
	((struct inv_switch *)o)->role = (enum inv_role)r;
	return 0;
}

static int sw_dialect(struct ctx *c, yaml_node_t *v, void *o)
{
	int d;

	if (get_enum(c, v, dialect_names, ARRAY_SIZE(dialect_names), &d, "dialect"))
		return -EINVAL;
	((struct inv_switch *)o)->dialect = (enum inv_dialect)d;
	return 0;
}

static int sw_emulated(struct ctx *c, yaml_node_t *v, void *o)
{
	static const char *const truth[] = {"false", "true"};
	int t;

	if (get_enum(c, v, truth, ARRAY_SIZE(truth), &t, "emulated"))
		return -EINVAL;
	((struct inv_switch *)o)->emulated = t;
	return 0;
}

static int sw_version(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_nos *n = &((struct inv_switch *)o)->nos;

	return get_name(c, v, n->version, sizeof(n->version), "NOS version");
}

static int sw_model(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_nos *n = &((struct inv_switch *)o)->nos;

	return get_name(c, v, n->model, sizeof(n->model), "switch model");
}

/* SONiC's DEVICE_METADATA|localhost buffer_model (sonic-buildimage: traditional when unset). */
static int sw_buffer_model(struct ctx *c, yaml_node_t *v, void *o)
{
	static const char *const models[] = {"traditional", "dynamic"};
	struct inv_nos *n = &((struct inv_switch *)o)->nos;
	int m;

	if (get_enum(c, v, models, ARRAY_SIZE(models), &m, "buffer-model"))
		return -EINVAL;
	snprintf(n->buffer_model, sizeof(n->buffer_model), "%s", models[m]);
	return 0;
}

static int sw_rail(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_int(c, v, &((struct inv_switch *)o)->rail, 1, 1024, "rail");
}

static int sw_mgmt(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_addr(c, v, &((struct inv_switch *)o)->mgmt, "management address");
}

static int sw_ssh(struct ctx *c, yaml_node_t *v, void *o)
{
	return parse_ssh(c, v, &((struct inv_switch *)o)->ssh);
}

static int sw_ports(struct ctx *c, yaml_node_t *v, void *o)
{
	c->sw = o;
	return walk_seq(c, v, parse_port, "ports");
}

static const struct field switch_fields[] = {
    {"name", true, sw_name},
    {"role", true, sw_role},
    {"dialect", true, sw_dialect},
    {"rail", false, sw_rail},
    {"mgmt", true, sw_mgmt},
    {"ssh", true, sw_ssh},
    {"ports", true, sw_ports},
    {"emulated", false, sw_emulated},
    {"version", false, sw_version},
    {"model", false, sw_model},
    {"buffer-model", false, sw_buffer_model},
};

static int parse_switch(struct ctx *c, yaml_node_t *n)
{
	struct inventory *inv = c->inv;
	struct inv_switch *s = RL_PUSH(inv->switches, inv->n_switches);

	s->loc = loc_of(n);
	return WALK(c, n, switch_fields, s, "switch");
}

/* ---- links and tenants ----------------------------------------------- */

/* FNV-1a: device names are short and chosen by people, not adversaries of the table (a crafted
 * inventory only makes its own load slower). */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static const char *dev_name(const struct inventory *inv, size_t d)
{
	return d < inv->n_hosts ? inv->hosts[d].name : inv->switches[d - inv->n_hosts].name;
}

/* Hash every device name (again): lookups by name are O(1) from here until devices are added. */
static void index_names(struct inventory *inv)
{
	size_t n = inv->n_hosts + inv->n_switches, cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	free(inv->name_slots);
	inv->name_slots = rl_xcalloc(cap, sizeof(*inv->name_slots));
	inv->name_cap = cap;
	for (size_t d = 0; d < n; d++) {
		size_t i = name_hash(dev_name(inv, d)) & (cap - 1);

		while (inv->name_slots[i] &&
		       strcmp(dev_name(inv, inv->name_slots[i] - 1), dev_name(inv, d)))
			i = (i + 1) & (cap - 1);
		if (!inv->name_slots[i])
			inv->name_slots[i] = (uint32_t)d + 1;
	}
	inv->name_devs = n;
}

/* The first device named name (index as in name_slots), or -1; -2: the index is out of date. */
static ssize_t find_dev(const struct inventory *inv, const char *name)
{
	size_t i;

	if (!inv->name_slots || inv->name_devs != inv->n_hosts + inv->n_switches)
		return -2;
	for (i = name_hash(name) & (inv->name_cap - 1); inv->name_slots[i];
	     i = (i + 1) & (inv->name_cap - 1))
		if (!strcmp(dev_name(inv, inv->name_slots[i] - 1), name))
			return (ssize_t)inv->name_slots[i] - 1;
	return -1;
}

struct inv_host *inventory_host(const struct inventory *inv, const char *name)
{
	ssize_t d = find_dev(inv, name);

	if (d >= 0 || d == -1) /* hosts come first: the first of a name is a host if any is */
		return d >= 0 && (size_t)d < inv->n_hosts ? &inv->hosts[d] : NULL;
	for (size_t i = 0; i < inv->n_hosts; i++)
		if (!strcmp(inv->hosts[i].name, name))
			return &inv->hosts[i];
	return NULL;
}

struct inv_switch *inventory_switch(const struct inventory *inv, const char *name)
{
	ssize_t d = find_dev(inv, name);

	if (d == -1)
		return NULL;
	if (d >= 0 && (size_t)d >= inv->n_hosts)
		return &inv->switches[d - inv->n_hosts];
	/* out of date, or a host holds the name (an inventory already in error): scan */
	for (size_t i = 0; i < inv->n_switches; i++)
		if (!strcmp(inv->switches[i].name, name))
			return &inv->switches[i];
	return NULL;
}

int inventory_endpoint_form(const char *spec, char *msg, size_t msglen)
{
	const char *colon = strchr(spec, ':');
	size_t dl = colon ? (size_t)(colon - spec) : strlen(spec);

	if (!colon || dl == 0 || dl >= INV_NAME_MAX + 2 || strlen(colon + 1) >= INV_NAME_MAX + 2 ||
	    !colon[1] || strchr(colon + 1, ':')) {
		snprintf(msg, msglen, "'%s' is not of the form device:port (e.g. rail1:swp5)",
			 spec);
		return -EINVAL;
	}
	return 0;
}

int inventory_endpoint(const struct inventory *inv, const char *spec, struct inv_endpoint *ep,
		       char *msg, size_t msglen)
{
	char dev[INV_NAME_MAX + 2], port[INV_NAME_MAX + 2];
	const char *colon = strchr(spec, ':');
	size_t dl = colon ? (size_t)(colon - spec) : strlen(spec);

	if (inventory_endpoint_form(spec, msg, msglen))
		return -EINVAL;
	memcpy(dev, spec, dl);
	dev[dl] = '\0';
	strcpy(port, colon + 1);

	struct inv_host *h = inventory_host(inv, dev);
	struct inv_switch *s = h ? NULL : inventory_switch(inv, dev);

	if (h) {
		ep->kind = INV_DEV_HOST;
		ep->dev = (size_t)(h - inv->hosts);
		for (size_t i = 0; i < h->n_rnics; i++) {
			if (!strcmp(h->rnics[i].name, port)) {
				ep->port = i;
				return 0;
			}
		}
		snprintf(msg, msglen, "host '%s' has no RNIC '%s'", dev, port);
		return -ENOENT;
	}
	if (s) {
		ep->kind = INV_DEV_SWITCH;
		ep->dev = (size_t)(s - inv->switches);
		for (size_t i = 0; i < s->n_ports; i++) {
			if (!strcmp(s->ports[i].name, port)) {
				ep->port = i;
				return 0;
			}
		}
		snprintf(msg, msglen, "switch '%s' has no port '%s'", dev, port);
		return -ENOENT;
	}
	snprintf(msg, msglen, "no host or switch is named '%s'", dev);
	return -ENOENT;
}

const char *inventory_device_name(const struct inventory *inv, const struct inv_endpoint *ep)
{
	return ep->kind == INV_DEV_HOST ? inv->hosts[ep->dev].name : inv->switches[ep->dev].name;
}

const char *inventory_netdev(const struct inventory *inv, const struct inv_endpoint *ep)
{
	return ep->kind == INV_DEV_HOST ? inv->hosts[ep->dev].rnics[ep->port].netdev
					: inv->switches[ep->dev].ports[ep->port].name;
}

const char *inventory_endpoint_name(const struct inventory *inv, const struct inv_endpoint *ep,
				    char *buf, size_t len)
{
	if (ep->kind == INV_DEV_HOST)
		snprintf(buf, len, "%s:%s", inv->hosts[ep->dev].name,
			 inv->hosts[ep->dev].rnics[ep->port].name);
	else
		snprintf(buf, len, "%s:%s", inv->switches[ep->dev].name,
			 inv->switches[ep->dev].ports[ep->port].name);
	return buf;
}

static bool ep_eq(const struct inv_endpoint *a, const struct inv_endpoint *b)
{
	return a->kind == b->kind && a->dev == b->dev && a->port == b->port;
}

/* Where an endpoint's link index is kept. */
static size_t *link1_of(const struct inventory *inv, const struct inv_endpoint *ep)
{
	return ep->kind == INV_DEV_HOST ? &inv->hosts[ep->dev].rnics[ep->port].link1
					: &inv->switches[ep->dev].ports[ep->port].link1;
}

const struct inv_link *inventory_link_at(const struct inventory *inv, const struct inv_endpoint *ep)
{
	size_t k = *link1_of(inv, ep);

	return k ? &inv->links[k - 1] : NULL;
}

const struct inv_endpoint *inv_link_other_end(const struct inv_link *l,
					      const struct inv_endpoint *ep)
{
	return ep_eq(&l->a, ep) ? &l->b : &l->a;
}

int inventory_peer(const struct inventory *inv, const struct inv_endpoint *ep,
		   struct inv_endpoint *peer)
{
	const struct inv_link *l = inventory_link_at(inv, ep);

	if (!l)
		return -ENOENT;
	*peer = *inv_link_other_end(l, ep);
	return 0;
}

static int get_endpoint(struct ctx *c, yaml_node_t *v, struct inv_endpoint *ep, const char *what)
{
	char msg[160];
	const char *s = scalar(c, v, what);

	if (!s)
		return -EINVAL;
	if (inventory_endpoint(c->inv, s, ep, msg, sizeof(msg))) {
		diag(c, v, "%s: %s", what, msg);
		return -EINVAL;
	}
	return 0;
}

static int link_a(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_endpoint(c, v, &((struct inv_link *)o)->a, "link endpoint a");
}

static int link_b(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_endpoint(c, v, &((struct inv_link *)o)->b, "link endpoint b");
}

static int link_speed(struct ctx *c, yaml_node_t *v, void *o)
{
	const char *s = scalar(c, v, "speed");
	unsigned long long mbps;

	if (!s)
		return -EINVAL;
	if (rl_parse_rate_mbps(s, &mbps) || mbps == 0) {
		diag(c, v, "speed '%s' is not a rate such as 100g, 25g or 400gbit", s);
		return -EINVAL;
	}
	((struct inv_link *)o)->speed_mbps = mbps;
	((struct inv_link *)o)->speed_given = true;
	return 0;
}

static const struct field link_fields[] = {
    {"a", true, link_a},
    {"b", true, link_b},
    {"speed", false, link_speed},
};

static int parse_link(struct ctx *c, yaml_node_t *n)
{
	struct inventory *inv = c->inv;
	struct inv_link *l = RL_PUSH(inv->links, inv->n_links);
	char an[80], bn[80];
	int ret;

	l->loc = loc_of(n);
	l->speed_mbps = 100000;
	ret = WALK(c, n, link_fields, l, "link");
	if (ret) {
		inv->n_links--; /* keep half-parsed links out of the endpoint checks */
		return ret;
	}
	if (ep_eq(&l->a, &l->b)) {
		diag(c, n, "link connects %s to itself",
		     inventory_endpoint_name(inv, &l->a, an, 80));
		inv->n_links--;
		return -EINVAL;
	}
	if (l->a.kind == INV_DEV_HOST && l->b.kind == INV_DEV_HOST) {
		diag(c, n, "link %s -- %s joins two hosts: one end must be a switch port",
		     inventory_endpoint_name(inv, &l->a, an, 80),
		     inventory_endpoint_name(inv, &l->b, bn, 80));
		inv->n_links--;
		return -EINVAL;
	}
	for (int e = 0; e < 2; e++) {
		const struct inv_endpoint *ep = e ? &l->b : &l->a;
		const struct inv_link *o = inventory_link_at(inv, ep);

		if (o) {
			diag(c, n, "%s is already used by the link at line %u",
			     inventory_endpoint_name(inv, ep, an, 80), o->loc.line);
			inv->n_links--;
			return -EINVAL;
		}
	}
	*link1_of(inv, &l->a) = *link1_of(inv, &l->b) = inv->n_links;
	return 0;
}

static int tenant_name(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inv_tenant *t = o;

	t->loc = loc_of(v);
	return get_name(c, v, t->name, sizeof(t->name), "tenant name");
}

static int parse_member(struct ctx *c, yaml_node_t *n)
{
	struct inv_tenant *t = c->tenant;
	struct inv_endpoint ep;

	if (get_endpoint(c, n, &ep, "tenant member"))
		return -EINVAL;
	if (ep.kind != INV_DEV_HOST) {
		diag(c, n, "tenant members are host RNICs (host:rnic), not switch ports");
		return -EINVAL;
	}
	for (size_t i = 0; i < c->inv->n_tenants; i++) {
		const struct inv_tenant *o = &c->inv->tenants[i];

		for (size_t j = 0; j < o->n_members; j++) {
			if (ep_eq(&o->members[j], &ep)) {
				char en[80];

				diag(c, n, "%s is already a member of tenant '%s'",
				     inventory_endpoint_name(c->inv, &ep, en, sizeof(en)), o->name);
				return -EINVAL;
			}
		}
	}
	*RL_PUSH(t->members, t->n_members) = ep;
	return 0;
}

static int tenant_members(struct ctx *c, yaml_node_t *v, void *o)
{
	c->tenant = o;
	return walk_seq(c, v, parse_member, "members");
}

static const struct field tenant_fields[] = {
    {"name", true, tenant_name},
    {"members", true, tenant_members},
};

static int parse_tenant(struct ctx *c, yaml_node_t *n)
{
	struct inventory *inv = c->inv;
	struct inv_tenant *t = RL_PUSH(inv->tenants, inv->n_tenants);

	t->loc = loc_of(n);
	return WALK(c, n, tenant_fields, t, "tenant");
}

/* ---- top level ------------------------------------------------------- */

static int top_lab(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_name(c, v, ((struct inventory *)o)->name, INV_NAME_MAX + 1, "lab name");
}

static const char *const lab_kind_names[] = {
    [INV_LAB_VIRTUAL] = "virtual",
    [INV_LAB_SSH] = "ssh",
};

const char *inv_lab_kind_name(enum inv_lab_kind k)
{
	return (size_t)k < ARRAY_SIZE(lab_kind_names) ? lab_kind_names[k] : "?";
}

static int top_kind(struct ctx *c, yaml_node_t *v, void *o)
{
	const char *s = scalar(c, v, "kind");

	for (size_t i = 0; s && i < ARRAY_SIZE(lab_kind_names); i++)
		if (!strcmp(s, lab_kind_names[i])) {
			((struct inventory *)o)->kind = (enum inv_lab_kind)i;
			((struct inventory *)o)->kind_loc = loc_of(v);
			return 0;
		}
	if (s)
		diag(c, v,
		     "kind '%s' is not one of: virtual (rocelab builds it on this machine), ssh (a "
		     "standing lab reached over SSH)",
		     s);
	return -EINVAL;
}

static int top_controller(struct ctx *c, yaml_node_t *v, void *o)
{
	return get_addr(c, v, &((struct inventory *)o)->controller, "controller address");
}

static int top_management(struct ctx *c, yaml_node_t *v, void *o)
{
	struct inventory *inv = o;

	if (get_prefix(c, v, &inv->management, 1, "management"))
		return -EINVAL;
	if (inv->management.len < 8 || inv->management.len > 30) {
		diag(c, v, "management prefix /%d is out of range (8..30)", inv->management.len);
		return -EINVAL;
	}
	return 0;
}

static int top_hosts(struct ctx *c, yaml_node_t *v, void *o)
{
	(void)o;
	return walk_seq(c, v, parse_host, "hosts");
}

static int top_switches(struct ctx *c, yaml_node_t *v, void *o)
{
	(void)o;
	return walk_seq(c, v, parse_switch, "switches");
}

static int top_links(struct ctx *c, yaml_node_t *v, void *o)
{
	(void)o;
	index_names(c->inv); /* hosts and switches are in: links and tenants name them */
	return walk_seq(c, v, parse_link, "links");
}

static int top_tenants(struct ctx *c, yaml_node_t *v, void *o)
{
	(void)o;
	index_names(c->inv);
	return walk_seq(c, v, parse_tenant, "tenants");
}

/* Order matters: links and tenants refer to hosts and switches. */
static const struct field top_fields[] = {
    {"lab", false, top_lab},
    {"kind", false, top_kind},
    {"controller", false, top_controller},
    {"management", false, top_management},
    {"hosts", true, top_hosts},
    {"switches", false, top_switches},
    {"links", false, top_links},
    {"tenants", false, top_tenants},
};

/* ---- cross checks ----------------------------------------------------- */

struct addr_use {
	uint32_t addr;
	struct inv_loc loc;
	bool shared; /* a gateway: many ports may carry it */
	char what[80];
};

static int addr_use_cmp(const void *a, const void *b)
{
	const struct addr_use *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	return x->loc.col < y->loc.col ? -1 : x->loc.col > y->loc.col;
}

static void check_names(struct ctx *c)
{
	struct inventory *inv = c->inv;

	/* Hosts and switches share one name space: targets say "device:port".  The name index
	 * holds each name's first device. */
	for (size_t i = 0; i < inv->n_hosts + inv->n_switches; i++) {
		const char *ni = dev_name(inv, i);
		ssize_t first = ni[0] ? find_dev(inv, ni) : -1;

		if (first >= 0 && (size_t)first != i)
			diag_at(c,
				i < inv->n_hosts ? inv->hosts[i].loc
						 : inv->switches[i - inv->n_hosts].loc,
				"duplicate device name '%s' (first defined at line %u)", ni,
				(size_t)first < inv->n_hosts
				    ? inv->hosts[first].loc.line
				    : inv->switches[first - inv->n_hosts].loc.line);
	}
	for (size_t h = 0; h < inv->n_hosts; h++) {
		struct inv_host *host = &inv->hosts[h];

		for (size_t i = 0; i < host->n_rnics; i++) {
			for (size_t j = 0; j < i; j++) {
				struct inv_rnic *a = &host->rnics[i], *b = &host->rnics[j];

				if (a->name[0] && !strcmp(a->name, b->name))
					diag_at(c, a->loc,
						"duplicate RNIC name '%s' on host '%s' (first "
						"defined at line %u)",
						a->name, host->name, b->loc.line);
				else if (a->netdev[0] && !strcmp(a->netdev, b->netdev))
					diag_at(c, a->loc,
						"netdev '%s' of RNIC '%s' is already used by RNIC "
						"'%s' on host '%s'",
						a->netdev, a->name, b->name, host->name);
				else if (a->ibdev[0] && !strcmp(a->ibdev, b->ibdev))
					diag_at(c, a->loc,
						"ibdev '%s' of RNIC '%s' is already used by RNIC "
						"'%s' on host '%s'",
						a->ibdev, a->name, b->name, host->name);
			}
		}
	}
	for (size_t s = 0; s < inv->n_switches; s++) {
		struct inv_switch *sw = &inv->switches[s];

		for (size_t i = 0; i < sw->n_ports; i++)
			for (size_t j = 0; j < i; j++)
				if (sw->ports[i].name[0] &&
				    !strcmp(sw->ports[i].name, sw->ports[j].name))
					diag_at(c, sw->ports[i].loc,
						"duplicate port '%s' on switch '%s' (first defined "
						"at line %u)",
						sw->ports[i].name, sw->name, sw->ports[j].loc.line);
	}
	for (size_t i = 0; i < inv->n_tenants; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(inv->tenants[i].name, inv->tenants[j].name))
				diag_at(c, inv->tenants[i].loc,
					"duplicate tenant name '%s' (first defined at line %u)",
					inv->tenants[i].name, inv->tenants[j].loc.line);
}

static void check_addresses(struct ctx *c)
{
	struct inventory *inv = c->inv;
	struct addr_use *u = NULL;
	size_t n = 0;

	if (inv->management.len > 0) {
		struct addr_use *x = RL_PUSH(u, n);

		x->addr = ntohl(inv->management.addr.s_addr);
		x->loc = (struct inv_loc){0, 0};
		snprintf(x->what, sizeof(x->what), "the management bridge");
	}
	for (size_t h = 0; h < inv->n_hosts; h++) {
		struct inv_host *host = &inv->hosts[h];

		if (host->has_mgmt) {
			struct addr_use *x = RL_PUSH(u, n);

			x->addr = ntohl(host->mgmt.s_addr);
			x->loc = host->loc;
			snprintf(x->what, sizeof(x->what), "host '%s' (mgmt)", host->name);
		}
		for (size_t r = 0; r < host->n_rnics; r++) {
			struct inv_rnic *rn = &host->rnics[r];
			struct addr_use *x = RL_PUSH(u, n);

			x->addr = ntohl(rn->addr.addr.s_addr);
			x->loc = rn->loc;
			snprintf(x->what, sizeof(x->what), "%s:%s", host->name, rn->name);
			x = RL_PUSH(u, n);
			x->addr = ntohl(rn->gateway.s_addr);
			x->loc = rn->loc;
			x->shared = true;
			snprintf(x->what, sizeof(x->what), "the gateway of %s:%s", host->name,
				 rn->name);
		}
	}
	for (size_t s = 0; s < inv->n_switches; s++) {
		struct inv_switch *sw = &inv->switches[s];
		struct addr_use *x = RL_PUSH(u, n);

		x->addr = ntohl(sw->mgmt.s_addr);
		x->loc = sw->loc;
		snprintf(x->what, sizeof(x->what), "switch '%s' (mgmt)", sw->name);
		for (size_t p = 0; p < sw->n_ports; p++) {
			if (!sw->ports[p].has_addr)
				continue;
			x = RL_PUSH(u, n);
			x->addr = ntohl(sw->ports[p].addr.addr.s_addr);
			x->loc = sw->ports[p].loc;
			snprintf(x->what, sizeof(x->what), "%s:%s", sw->name, sw->ports[p].name);
		}
	}
	rl_sort(u, n, sizeof(*u), addr_use_cmp);
	for (size_t i = 1; i < n; i++) {
		if (u[i].addr == 0 || u[i].addr != u[i - 1].addr ||
		    (u[i].shared && u[i - 1].shared))
			continue;
		struct in_addr a = {htonl(u[i].addr)};
		/* Report at the later position; the earlier one is named. */
		struct addr_use *first = &u[i - 1], *dup = &u[i];

		if (dup->loc.line == 0) {
			first = &u[i];
			dup = &u[i - 1];
		}
		if (first->loc.line)
			diag_at(c, dup->loc, "address %s of %s is already used by %s (line %u)",
				inet_ntoa(a), dup->what, first->what, first->loc.line);
		else
			diag_at(c, dup->loc, "address %s of %s is already used by %s", inet_ntoa(a),
				dup->what, first->what);
	}
	free(u);
}

/* An SSH lab reaches every host at its mgmt address, and its hosts reach the controller. */
static void check_ssh_lab(struct ctx *c, yaml_node_t *root)
{
	struct inventory *inv = c->inv;

	if (inv->kind != INV_LAB_SSH)
		return;
	if (!inv->controller.s_addr)
		diag(c, root,
		     "a lab of kind ssh needs 'controller: ADDRESS', the address its hosts reach "
		     "this "
		     "machine at (the analyzer listens there)");
	for (size_t h = 0; h < inv->n_hosts; h++) {
		const struct inv_host *host = &inv->hosts[h];

		if (!host->has_mgmt || !host->ssh.user[0])
			diag_at(c, host->loc,
				"host '%s' of a lab of kind ssh needs 'mgmt:' and 'ssh: { user, "
				"credential }': rocelab reaches its hosts over SSH",
				host->name);
	}
}

static void check_rails(struct ctx *c)
{
	struct inventory *inv = c->inv;

	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];
		const struct inv_endpoint *h = l->a.kind == INV_DEV_HOST ? &l->a : &l->b;
		const struct inv_endpoint *s = h == &l->a ? &l->b : &l->a;

		if (h->kind != INV_DEV_HOST || s->kind != INV_DEV_SWITCH)
			continue;
		const struct inv_rnic *r = &inv->hosts[h->dev].rnics[h->port];
		const struct inv_switch *sw = &inv->switches[s->dev];

		if (sw->rail && r->rail && sw->rail != r->rail)
			diag_at(
			    c, l->loc,
			    "RNIC %s:%s is on rail %d but is cabled to '%s', the switch of rail %d",
			    inv->hosts[h->dev].name, r->name, r->rail, sw->name, sw->rail);
	}
}

struct inventory *inventory_parse(const char *path, const char *text, size_t len, FILE *errf)
{
	struct inventory *inv = rl_xcalloc(1, sizeof(*inv));
	struct ctx c = {.path = path, .errf = errf, .inv = inv};
	struct rl_yaml_err ye;
	yaml_document_t doc;
	yaml_node_t *root;

	inv->path = rl_xstrdup(path);
	strcpy(inv->name, "lab");
	if (rl_yaml_load(text, len, &doc, &ye)) {
		diag_at(&c, (struct inv_loc){ye.line, ye.col}, "YAML %s", ye.why);
		diags_print(&c);
		inventory_free(inv);
		errno = EINVAL;
		return NULL;
	}
	c.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		diag_at(&c, (struct inv_loc){1, 1},
			"the inventory is empty: it needs at least 'hosts:'");
	} else {
		/* Cross checks run even after errors, on what did parse: a duplicate name
		 * is worth reporting beside the dangling links it causes. */
		WALK(&c, root, top_fields, inv, "the inventory");
		index_names(inv);
		check_names(&c);
		check_addresses(&c);
		check_rails(&c);
		check_ssh_lab(&c, root);
	}
	yaml_document_delete(&doc);
	diags_print(&c);
	if (c.nerr) {
		inventory_free(inv);
		errno = EINVAL;
		return NULL;
	}
	return inv;
}

struct inventory *inventory_load(const char *path, FILE *errf)
{
	size_t len;
	char *text = rl_read_file(path, &len);
	struct inventory *inv;

	if (!text) {
		if (errf)
			fprintf(errf, "%s: cannot read the inventory: %s\n", path,
				rl_read_strerror(errno));
		return NULL;
	}
	inv = inventory_parse(path, text, len, errf);
	free(text);
	return inv;
}

/* ---- writing ---------------------------------------------------------- */

/* A YAML double-quoted scalar. */
static void write_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_ssh(FILE *f, const struct inv_ssh *s)
{
	fprintf(f, "    ssh: { user: %s, credential: ", s->user);
	switch (s->auth) {
	case INV_AUTH_KEY_FILE: {
		char cred[4200];

		snprintf(cred, sizeof(cred), "key:%s", s->key_file);
		write_quoted(f, cred);
		break;
	}
	case INV_AUTH_AGENT:
		fputs("agent", f);
		break;
	default:
		fputs("lab-key", f);
	}
	if (s->port)
		fprintf(f, ", port: %u", s->port);
	fputs(" }\n", f);
}

static void write_endpoint(FILE *f, const struct inventory *inv, const struct inv_endpoint *ep)
{
	char buf[2 * INV_NAME_MAX + 2];

	fputs(inventory_endpoint_name(inv, ep, buf, sizeof(buf)), f);
}

int inventory_write(const struct inventory *inv, FILE *f)
{
	fprintf(f, "lab: %s\nkind: %s\n", inv->name, inv_lab_kind_name(inv->kind));
	if (inv->controller.s_addr)
		fprintf(f, "controller: %s\n", inet_ntoa(inv->controller));
	if (inv->management.len > 0)
		fprintf(f, "management: %s/%d\n", inet_ntoa(inv->management.addr),
			inv->management.len);
	fputs("\nhosts:\n", f);
	for (size_t h = 0; h < inv->n_hosts; h++) {
		const struct inv_host *host = &inv->hosts[h];

		fprintf(f, "  - name: %s\n", host->name);
		if (host->has_mgmt)
			fprintf(f, "    mgmt: %s\n", inet_ntoa(host->mgmt));
		if (host->ssh.user[0])
			write_ssh(f, &host->ssh);
		if (host->rocelab[0])
			fprintf(f, "    rocelab: %s\n", host->rocelab);
		fputs("    rnics:\n", f);
		for (size_t i = 0; i < host->n_rnics; i++) {
			const struct inv_rnic *r = &host->rnics[i];

			fprintf(f, "      - { name: %s, netdev: %s, rail: %d, address: %s/%d",
				r->name, r->netdev, r->rail, inet_ntoa(r->addr.addr), r->addr.len);
			fprintf(f, ", gateway: %s", inet_ntoa(r->gateway));
			if (r->ibdev[0])
				fprintf(f, ", ibdev: %s", r->ibdev);
			if (r->gid_index >= 0)
				fprintf(f, ", gid_index: %d", r->gid_index);
			fputs(" }\n", f);
		}
	}
	fputs(inv->n_switches ? "\nswitches:\n" : "", f);
	for (size_t s = 0; s < inv->n_switches; s++) {
		const struct inv_switch *sw = &inv->switches[s];

		fprintf(f, "  - name: %s\n    role: %s\n    dialect: %s\n", sw->name,
			inv_role_name(sw->role), inv_dialect_name(sw->dialect));
		if (sw->rail)
			fprintf(f, "    rail: %d\n", sw->rail);
		if (sw->emulated)
			fprintf(f, "    emulated: true\n");
		if (sw->nos.version[0])
			fprintf(f, "    version: %s\n", sw->nos.version);
		if (sw->nos.model[0])
			fprintf(f, "    model: %s\n", sw->nos.model);
		if (sw->nos.buffer_model[0])
			fprintf(f, "    buffer-model: %s\n", sw->nos.buffer_model);
		fprintf(f, "    mgmt: %s\n", inet_ntoa(sw->mgmt));
		write_ssh(f, &sw->ssh);
		fputs("    ports:\n", f);
		for (size_t p = 0; p < sw->n_ports; p++) {
			const struct inv_port *pt = &sw->ports[p];

			if (pt->has_addr)
				fprintf(f, "      - { name: %s, address: %s/%d }\n", pt->name,
					inet_ntoa(pt->addr.addr), pt->addr.len);
			else
				fprintf(f, "      - %s\n", pt->name);
		}
	}
	fputs(inv->n_links ? "\nlinks:\n" : "", f);
	for (size_t i = 0; i < inv->n_links; i++) {
		fputs("  - { a: ", f);
		write_endpoint(f, inv, &inv->links[i].a);
		fputs(", b: ", f);
		write_endpoint(f, inv, &inv->links[i].b);
		fprintf(f, ", speed: %llumbit }\n", inv->links[i].speed_mbps);
	}
	fputs(inv->n_tenants ? "\ntenants:\n" : "", f);
	for (size_t t = 0; t < inv->n_tenants; t++) {
		const struct inv_tenant *tn = &inv->tenants[t];

		fprintf(f, "  - name: %s\n    members: [", tn->name);
		for (size_t m = 0; m < tn->n_members; m++) {
			fputs(m ? ", " : "", f);
			write_endpoint(f, inv, &tn->members[m]);
		}
		fputs("]\n", f);
	}
	return ferror(f) ? -EIO : 0;
}

static void ssh_free(struct inv_ssh *s)
{
	free(s->key_file);
}

void inventory_free(struct inventory *inv)
{
	if (!inv)
		return;
	for (size_t i = 0; i < inv->n_hosts; i++) {
		free(inv->hosts[i].rnics);
		ssh_free(&inv->hosts[i].ssh);
	}
	for (size_t i = 0; i < inv->n_switches; i++) {
		free(inv->switches[i].ports);
		ssh_free(&inv->switches[i].ssh);
	}
	for (size_t i = 0; i < inv->n_tenants; i++)
		free(inv->tenants[i].members);
	free(inv->hosts);
	free(inv->switches);
	free(inv->links);
	free(inv->tenants);
	free(inv->name_slots);
	free(inv->path);
	free(inv);
}

struct inv_prefix inventory_management(const struct inventory *inv)
{
	struct inv_prefix p = inv->management;

	if (p.len <= 0) {
		inet_pton(AF_INET, INV_MGMT_DEFAULT, &p.addr);
		p.len = INV_MGMT_DEFAULT_LEN;
	}
	return p;
}

/* Is a in p (p.len bits)? */
static bool in_prefix(struct inv_prefix p, struct in_addr a)
{
	uint32_t mask = p.len <= 0 ? 0 : p.len >= 32 ? 0xffffffffu : ~(0xffffffffu >> p.len);

	return p.len > 0 && (ntohl(a.s_addr) & mask) == (ntohl(p.addr.s_addr) & mask);
}

bool inventory_peer_ok(const struct inventory *inv, struct in_addr a)
{
	if ((ntohl(a.s_addr) >> 24) == 127 || in_prefix(inventory_management(inv), a))
		return true;
	for (size_t h = 0; h < inv->n_hosts; h++) {
		const struct inv_host *x = &inv->hosts[h];

		if (x->has_mgmt && x->mgmt.s_addr == a.s_addr)
			return true;
		for (size_t r = 0; r < x->n_rnics; r++)
			if (x->rnics[r].addr.addr.s_addr &&
			    x->rnics[r].addr.addr.s_addr == a.s_addr)
				return true;
	}
	return false;
}
