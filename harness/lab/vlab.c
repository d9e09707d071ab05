// SPDX-License-Identifier: MIT
/* The virtual lab: builds, inspects and removes it, and is the lab kind whose devices are
 * namespaces here. */
#define _GNU_SOURCE
#include "harness/lab/vlab.h"

#include "harness/lab/lab.h"

#include "harness/lab/vlab_sshd.h"
#include "harness/lib/common.h"
#include "harness/lib/netns.h"
#include "harness/lib/nl.h"
#include "harness/lib/out.h"
#include "harness/lib/proc.h"
#include "harness/lib/state.h"
#include "harness/lib/topo.h"
#include "harness/lib/version.h"

#ifndef ROCELAB_DATADIR
#define ROCELAB_DATADIR "/usr/local/share/rocelab"
#endif

#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <linux/rtnetlink.h>
#include <netlink/route/link.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOCAL_RULE_PREF 1000 /* the local table moves below the per-RNIC rules */

const char *vlab_root_host(void)
{
	static char saved[INV_NAME_MAX + 2];
	const char *h = getenv("ROCELAB_HOST_IN_ROOT_NS");
	char path[4096], *text;

	if (h && *h)
		return h;
	/* A lab built that way says so in its state, for every later command. */
	text = rl_read_file(state_path(path, sizeof(path), "root-host"), NULL);
	if (!text)
		return NULL;
	snprintf(saved, sizeof(saved), "%s", text);
	saved[strcspn(saved, "\n")] = 0;
	free(text);
	return *saved ? saved : NULL;
}

/*
 * Namespace name of a device: "rl-<name>" into buf, or "" (the namespace
 * rocelab runs in) for the host named by ROCELAB_HOST_IN_ROOT_NS.
 */
static const char *vlab_ns(char *buf, size_t len, const char *device)
{
	const char *root = vlab_root_host();

	if (root && !strcmp(root, device))
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, NETNS_PREFIX "%s", device);
	return buf;
}

/* Root-host mode: only in a namespace with nothing but loopback (and what a lab of ours left). */
static int root_host_check(const struct inventory *inv, struct nsctx *root)
{
	const char *h = vlab_root_host();
	const struct inv_host *host;
	struct nl_cache *cache;
	int ret = 0;

	if (!h)
		return 0;
	if (!(host = inventory_host(inv, h))) {
		rl_err("lab up: ROCELAB_HOST_IN_ROOT_NS=%s: no such host in inventory %s", h,
		       inv->name);
		return -ENOENT;
	}
	if (rtnl_link_alloc_cache(root->sk, AF_UNSPEC, &cache) < 0)
		return -EIO;
	for (struct nl_object *o = nl_cache_get_first(cache); o && !ret; o = nl_cache_get_next(o)) {
		const char *name = rtnl_link_get_name((struct rtnl_link *)o);

		if (!name || !strcmp(name, "lo"))
			continue;
		rl_err("lab up: ROCELAB_HOST_IN_ROOT_NS=%s builds host %s in this namespace, "
		       "which is only done in a throwaway VM without a network; this one has "
		       "interface %s: refusing (unset ROCELAB_HOST_IN_ROOT_NS)",
		       h, h, name);
		ret = -EPERM;
	}
	nl_cache_free(cache);
	return ret;
}

/* Undo what a root host changed in this namespace: its rules; its links die with the switches. */
static int root_host_unconfigure(void)
{
	struct nsctx root;
	char path[4096];
	int ret = 0;

	/* Only what a lab up recorded (after its check passed), never on the word of the
	 * environment. */
	if (access(state_path(path, sizeof(path), "root-host"), F_OK) || nsctx_open(&root, NULL))
		return 0;
	for (unsigned i = 0; i < 64; i++) /* per-RNIC rules; absent ones fail harmlessly */
		nl_rule_del(&root, topo_host_table(i), NULL, NULL, topo_host_table(i));
	/*
	 * The local table's rule back at pref 0, then ours at LOCAL_RULE_PREF gone.  Added
	 * exclusively rather than looked up: a dump leaves out a pref of 0, so libnl reports 0
	 * for rules it cannot tell apart from it (the lookup said "there" when it was not, and
	 * the namespace was left with no local rule at all).
	 */
	ret = nl_rule_add(&root, 0, NULL, NULL, RT_TABLE_LOCAL);
	if (ret == -EEXIST)
		ret = 0;
	if (!ret && nl_rule_exists(&root, LOCAL_RULE_PREF) == 1)
		ret = nl_rule_del(&root, LOCAL_RULE_PREF, NULL, NULL, RT_TABLE_LOCAL);
	nsctx_close(&root);
	return ret;
}

/* Names of our namespaces in /run/netns (rl-*); returns the count, array of strdup'd names. */
static size_t list_lab_ns(char ***names)
{
	DIR *d = opendir(NETNS_RUN_DIR);
	struct dirent *e;
	size_t n = 0;

	*names = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, NETNS_PREFIX, strlen(NETNS_PREFIX)) != 0)
			continue;
		*names = rl_xrealloc(*names, n + 1, sizeof(**names));
		(*names)[n++] = rl_xstrdup(e->d_name);
	}
	closedir(d);
	return n;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

size_t vlab_devices(char ***names)
{
	size_t n = list_lab_ns(names);

	for (size_t i = 0; i < n; i++)
		memmove((*names)[i], (*names)[i] + strlen(NETNS_PREFIX),
			strlen((*names)[i]) - strlen(NETNS_PREFIX) + 1);
	return n;
}

bool vlab_is_up(void)
{
	char path[4096], **names;
	size_t n;

	if (access(state_path(path, sizeof(path), STATE_UP), F_OK) == 0)
		return true;
	n = list_lab_ns(&names);
	free_names(names, n);
	return n > 0;
}

struct inventory *vlab_inventory(FILE *errf)
{
	return state_up_inventory(errf);
}

/* ---- bring-up ------------------------------------------------------- */

struct build {
	const struct inventory *inv;
	const struct topo *topo;
	struct nsctx root;
	struct nsctx *hns, *sns; /* per host, per switch */
	const char *step;	 /* what is being done, for error messages */
	bool remote;		 /* an sshd in every host namespace too */
};

#define CHECK(b, expr, ...)                                                                        \
	do {                                                                                       \
		int r__ = (expr);                                                                  \
		if (r__ < 0) {                                                                     \
			char m__[256];                                                             \
			snprintf(m__, sizeof(m__), __VA_ARGS__);                                   \
			rl_err("lab up: %s: %s: %s", (b)->step, m__, strerror(-r__));              \
			return r__;                                                                \
		}                                                                                  \
		if (rl_interrupted)                                                                \
			return -EINTR;                                                             \
	} while (0)

static const char *const sysctl_all[][2] = {
    {"net/ipv6/conf/all/disable_ipv6", "1"}, /* no IPv6 chatter on the fabric */
    {"net/ipv6/conf/default/disable_ipv6", "1"},
    {"net/ipv4/conf/all/rp_filter", "0"},
    {"net/ipv4/conf/default/rp_filter", "0"},
};
static const char *const sysctl_switch[][2] = {
    {"net/ipv4/ip_forward", "1"},
    {"net/ipv4/fib_multipath_hash_policy", "1"}, /* ECMP on the L4 5-tuple */
    {"net/ipv4/icmp_ratelimit", "0"},		 /* path tracing must not be rate-limited away */
    {"net/ipv4/icmp_errors_use_inbound_ifaddr", "1"}, /* a hop names the link it came in on */
};
static const char *const sysctl_switch_optional[][2] = {
    {"net/ipv4/icmp_msgs_per_sec", "1000000"},
    {"net/ipv4/icmp_msgs_burst", "1000000"},
};
static const char *const sysctl_host[][2] = {
    /* Same-host RNIC traffic leaves through the fabric and comes back with a local source. */
    {"net/ipv4/conf/default/accept_local", "1"},
    {"net/ipv4/conf/all/arp_ignore", "1"},
    {"net/ipv4/conf/all/arp_announce", "2"},
};

static int set_sysctls(struct build *b, const struct nsctx *c, const char *const (*tbl)[2],
		       size_t n, bool optional)
{
	for (size_t i = 0; i < n; i++) {
		int r = netns_sysctl(c, tbl[i][0], tbl[i][1]);

		if (r < 0 && !optional)
			CHECK(b, r, "sysctl %s=%s in %s", tbl[i][0], tbl[i][1], c->name);
	}
	return 0;
}

/*
 * The switches' ECMP hash seed: one for the whole lab, from its name (FNV-1a;
 * never 0, which is the kernel's seed drawn at boot).  Left to the kernel,
 * each boot of a CI machine spread MP-RDMA's virtual paths and the monitors'
 * probes over other spines, and a figure that depends on that spread graded
 * the boot.  One seed for every switch keeps the kernel's symmetric hash
 * symmetric across them: a reply crosses the spine its request did (a seed
 * each made the paths one-way, and the suite is written for symmetric ones).
 * Kernels before 6.11 have no such sysctl: there the spread still changes
 * with the boot.
 */
static void ecmp_seed(const struct nsctx *c, const char *lab)
{
	uint32_t h = 2166136261u;
	char v[16];

	for (const char *p = lab; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	snprintf(v, sizeof(v), "%u", h ? h : 1);
	netns_sysctl(c, "net/ipv4/fib_multipath_hash_seed", v);
}

static int make_namespaces(struct build *b)
{
	const struct inventory *inv = b->inv;
	char ns[64];

	b->step = "creating namespaces";
	for (size_t i = 0; i < inv->n_hosts + inv->n_switches; i++) {
		bool host = i < inv->n_hosts;
		const char *name = host ? inv->hosts[i].name : inv->switches[i - inv->n_hosts].name;
		struct nsctx *c = host ? &b->hns[i] : &b->sns[i - inv->n_hosts];

		if (*vlab_ns(ns, sizeof(ns), name))
			CHECK(b, netns_add(ns), "namespace %s", ns);
		CHECK(b, nsctx_open(c, ns), "opening namespace %s", *ns ? ns : "(root)");
		CHECK(b, set_sysctls(b, c, sysctl_all, ARRAY_SIZE(sysctl_all), false), "%s", ns);
		if (host) {
			CHECK(b, set_sysctls(b, c, sysctl_host, ARRAY_SIZE(sysctl_host), false),
			      "%s", ns);
		} else {
			CHECK(b, set_sysctls(b, c, sysctl_switch, ARRAY_SIZE(sysctl_switch), false),
			      "%s", ns);
			set_sysctls(b, c, sysctl_switch_optional,
				    ARRAY_SIZE(sysctl_switch_optional), true);
			ecmp_seed(c, inv->name);
		}
		CHECK(b, nl_link_set_up(c, "lo", true), "loopback of %s", ns);
	}
	return 0;
}

static struct nsctx *ep_ns(struct build *b, const struct inv_endpoint *ep)
{
	return ep->kind == INV_DEV_HOST ? &b->hns[ep->dev] : &b->sns[ep->dev];
}

static int make_links(struct build *b)
{
	const struct inventory *inv = b->inv;

	b->step = "cabling links";
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];
		const char *an = inventory_netdev(inv, &l->a), *bn = inventory_netdev(inv, &l->b);

		CHECK(b, nl_veth_add(ep_ns(b, &l->a), an, ep_ns(b, &l->b), bn),
		      "veth %s:%s -- %s:%s", ep_ns(b, &l->a)->name, an, ep_ns(b, &l->b)->name, bn);
	}
	return 0;
}

static int make_mgmt(struct build *b)
{
	const struct inventory *inv = b->inv;
	const struct topo *t = b->topo;

	b->step = "management network";
	CHECK(b, nl_bridge_add(&b->root, VLAB_MGMT_BRIDGE), "bridge %s", VLAB_MGMT_BRIDGE);
	CHECK(b, nl_addr_add(&b->root, VLAB_MGMT_BRIDGE, t->mgmt.addr, t->mgmt.len), "address");
	CHECK(b, nl_link_set_up(&b->root, VLAB_MGMT_BRIDGE, true), "bridge up");
	for (size_t i = 0; i < inv->n_hosts + inv->n_switches; i++) {
		bool host = i < inv->n_hosts;
		struct nsctx *c = host ? &b->hns[i] : &b->sns[i - inv->n_hosts];
		struct in_addr a;
		char rootname[16];

		if (host && !inv->hosts[i].has_mgmt)
			continue;
		if (host && !*c->name)
			continue; /* the root host reaches the bridge's address directly */
		a = host ? inv->hosts[i].mgmt : inv->switches[i - inv->n_hosts].mgmt;
		snprintf(rootname, sizeof(rootname), "rlm%c%zu", host ? 'h' : 's',
			 host ? i : i - inv->n_hosts);
		CHECK(b, nl_veth_add(c, "mgmt0", &b->root, rootname), "veth %s", rootname);
		CHECK(b, nl_link_enslave(&b->root, VLAB_MGMT_BRIDGE, rootname), "enslave %s",
		      rootname);
		CHECK(b, nl_link_set_up(&b->root, rootname, true), "%s up", rootname);
		CHECK(b, nl_link_set_up(c, "mgmt0", true), "mgmt0 up in %s", c->name);
		CHECK(b, nl_addr_add(c, "mgmt0", a, t->mgmt.len), "mgmt address in %s", c->name);
	}
	return 0;
}

static int configure_switches(struct build *b)
{
	const struct inventory *inv = b->inv;

	b->step = "configuring switches";
	for (size_t s = 0; s < inv->n_switches; s++) {
		const struct inv_switch *sw = &inv->switches[s];
		const struct topo_switch *ts = &b->topo->sw[s];
		struct nsctx *c = &b->sns[s];

		for (size_t p = 0; p < sw->n_ports; p++) {
			if (ts->port_link[p] < 0)
				continue; /* uncabled port: nothing to create */
			const char *pn = sw->ports[p].name;

			if (ts->port_addr[p].len == 32) {
				char key[96];

				/* A routed host port answers ARP for the rail's subnet. */
				snprintf(key, sizeof(key), "net/ipv4/conf/%s/proxy_arp", pn);
				CHECK(b, netns_sysctl(c, key, "1"), "%s", key);
			}
			CHECK(b, nl_addr_add(c, pn, ts->port_addr[p].addr, ts->port_addr[p].len),
			      "address of %s:%s", sw->name, pn);
			CHECK(b, nl_link_set_up(c, pn, true), "%s:%s up", sw->name, pn);
		}
		for (size_t r = 0; r < ts->n_routes; r++) {
			const struct topo_route *rt = &ts->routes[r];
			struct nl_nexthop nh[64];
			size_t n = rt->n_nh < ARRAY_SIZE(nh) ? rt->n_nh : ARRAY_SIZE(nh);

			for (size_t k = 0; k < n; k++) {
				nh[k].gw = rt->nh[k].gw;
				nh[k].dev = sw->ports[rt->nh[k].port].name;
			}
			CHECK(b,
			      nl_route_add(c, RT_TABLE_MAIN, rt->dst, rt->len, nh, n,
					   n ? NULL : sw->ports[rt->dev_port].name),
			      "route %s/%d on %s", inet_ntoa(rt->dst), rt->len, sw->name);
		}
	}
	return 0;
}

static int configure_hosts(struct build *b)
{
	const struct inventory *inv = b->inv;
	const struct in_addr any = {0};

	b->step = "configuring hosts";
	for (size_t h = 0; h < inv->n_hosts; h++) {
		const struct inv_host *host = &inv->hosts[h];
		struct nsctx *c = &b->hns[h];

		for (size_t r = 0; r < host->n_rnics; r++) {
			const struct inv_rnic *rn = &host->rnics[r];
			uint32_t tbl = topo_host_table(r);
			struct nl_nexthop gw = {rn->gateway, rn->netdev};
			struct inv_endpoint ep = {INV_DEV_HOST, h, r};

			if (!inventory_link_at(inv, &ep))
				continue; /* an uncabled RNIC has no netdev in the lab */
			CHECK(b, nl_addr_add(c, rn->netdev, rn->addr.addr, rn->addr.len),
			      "address of %s:%s", host->name, rn->name);
			CHECK(b, nl_link_set_up(c, rn->netdev, true), "%s:%s up", host->name,
			      rn->name);
			CHECK(b, nl_route_add(c, tbl, any, 0, &gw, 1, NULL), "table %u on %s", tbl,
			      host->name);
			CHECK(b, nl_rule_add(c, tbl, &rn->addr.addr, "lo", tbl), "rule %u on %s",
			      tbl, host->name);
		}
		/* Let the per-RNIC rules win over the local table for locally sent traffic. */
		CHECK(b, nl_rule_add(c, LOCAL_RULE_PREF, NULL, NULL, RT_TABLE_LOCAL),
		      "local rule on %s", host->name);
		CHECK(b, nl_rule_del(c, 0, NULL, NULL, RT_TABLE_LOCAL), "pref 0 rule on %s",
		      host->name);
	}
	return 0;
}

static int start_sshds(struct build *b)
{
	const struct inventory *inv = b->inv;

	size_t n = vlab_sshd_count(inv, b->remote);
	struct vlab_sshd_dev d;

	b->step = "starting sshd";
	CHECK(b, vlab_ssh_prepare(inv, b->remote), "keys and configs");
	for (size_t i = 0; i < n; i++) {
		vlab_sshd_dev(inv, i, &d);
		CHECK(b, vlab_sshd_start(inv, i), "sshd of %s", d.name);
	}
	for (size_t i = 0; i < n; i++) {
		vlab_sshd_dev(inv, i, &d);
		CHECK(b, vlab_wait_tcp(d.mgmt, d.port, 10000),
		      "sshd of %s did not listen on %s (see %s/ssh/%s/sshd.log)", d.name,
		      inet_ntoa(d.mgmt), state_dir(), d.name);
	}
	return 0;
}

char *vlab_ssh_inventory_path(char *buf, size_t len)
{
	return state_path(buf, len, "ssh-inventory.yaml");
}

/*
 * The lab that is up as a lab of kind ssh: the same devices, every one
 * reached over SSH with the lab key, hosts running this rocelab binary, the
 * analyzer on the management bridge.
 */
static int write_ssh_inventory(struct inventory *inv)
{
	char path[4096], key[4096], self[PATH_MAX] = "", name[INV_NAME_MAX + 1];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;
	int r;

	self[k > 0 ? k : 0] = '\0';
	vlab_lab_key_path(key, sizeof(key));
	snprintf(name, sizeof(name), "%.27s-ssh", inv->name);
	snprintf(inv->name, sizeof(inv->name), "%s", name);
	inv->kind = INV_LAB_SSH;
	inv->controller = inventory_management(inv).addr;
	for (size_t i = 0; i < inv->n_hosts + inv->n_switches; i++) {
		struct inv_ssh *ssh =
		    i < inv->n_hosts ? &inv->hosts[i].ssh : &inv->switches[i - inv->n_hosts].ssh;

		if (i < inv->n_hosts) {
			if (!ssh->user[0])
				snprintf(ssh->user, sizeof(ssh->user), "root");
			snprintf(inv->hosts[i].rocelab, sizeof(inv->hosts[i].rocelab), "%s", self);
		} else /* a namespace: the Linux dialect's emulations are what it is for */
			inv->switches[i - inv->n_hosts].emulated = true;
		free(ssh->key_file);
		ssh->auth = INV_AUTH_KEY_FILE;
		ssh->key_file = rl_xstrdup(key);
	}
	f = fopen(vlab_ssh_inventory_path(path, sizeof(path)), "we");
	if (!f)
		return -errno;
	fprintf(f, "# The virtual lab that is up, as a lab reached over SSH only (written by\n"
		   "# 'rocelab lab up --remote'; it goes with 'rocelab lab down').\n");
	r = inventory_write(inv, f);
	if (fclose(f) && !r)
		r = -errno;
	return r;
}

static int build_lab(struct build *b)
{
	int (*const steps[])(struct build *) = {
	    make_namespaces,	make_links,	 make_mgmt,
	    configure_switches, configure_hosts, start_sshds,
	};

	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		int r = steps[i](b);

		if (r)
			return r;
	}
	return 0;
}

static int save_inventory(const char *inv_path)
{
	char path[4096];
	size_t len;
	char *text = rl_read_file(inv_path, &len);
	char *real = realpath(inv_path, NULL);
	int ret;

	if (!text) {
		free(real);
		return -errno;
	}
	ret = rl_write_file(state_path(path, sizeof(path), STATE_INVENTORY), text, len);
	if (!ret && real)
		ret = rl_write_file(state_path(path, sizeof(path), "inventory.path"), real,
				    strlen(real));
	free(text);
	free(real);
	return ret;
}

int vlab_up(const char *inv_path, bool quiet, bool remote)
{
	struct inventory *inv = inventory_load(inv_path, stderr);
	struct topo *topo = NULL;
	struct build b = {0};
	unsigned long long t0 = rl_now_ns();
	char path[4096];
	int ret = RL_EXIT_SETUP;

	if (!inv)
		return RL_EXIT_USAGE;
	rl_signals_install(); /* SIGINT/SIGTERM unwind the build instead of abandoning it */
	topo = topo_build(inv, true, stderr);
	if (!topo) {
		ret = RL_EXIT_USAGE;
		goto free_inv;
	}
	if (access(SSHD_BIN, X_OK) || access(SSH_KEYGEN_BIN, X_OK)) {
		rl_err("lab up: OpenSSH (%s, %s) is not installed: run 'make deps' as root",
		       SSHD_BIN, SSH_KEYGEN_BIN);
		goto free_topo;
	}
	if (geteuid() != 0) {
		rl_err("lab up: building namespaces needs root: run it as root (or with sudo)");
		goto free_topo;
	}
	if (state_lock()) {
		rl_err("lab up: cannot take the lab lock: %s", strerror(errno));
		goto free_topo;
	}
	if (vlab_is_up()) {
		rl_err("lab up: a lab is already up (or left over from a crash): see 'rocelab lab "
		       "status', or remove it with 'rocelab lab down'");
		goto unlock;
	}
	if (rl_mkdir_p(state_dir(), 0700) || save_inventory(inv_path)) {
		rl_err("lab up: cannot write the state directory %s: %s", state_dir(),
		       strerror(errno));
		goto unlock;
	}
	if (!quiet)
		rl_info("lab up: %s: %zu hosts, %zu switches, %zu links", inv->name, inv->n_hosts,
			inv->n_switches, inv->n_links);
	b.inv = inv;
	b.topo = topo;
	b.remote = remote;
	b.hns = rl_xcalloc(inv->n_hosts, sizeof(*b.hns));
	b.sns = rl_xcalloc(inv->n_switches, sizeof(*b.sns));
	for (size_t i = 0; i < inv->n_hosts; i++)
		b.hns[i].fd = -1;
	for (size_t i = 0; i < inv->n_switches; i++)
		b.sns[i].fd = -1;
	if (nsctx_open(&b.root, NULL)) {
		rl_err("lab up: netlink: %s", strerror(errno));
		goto close_ns;
	}
	int r = root_host_check(inv, &b.root);

	if (r == 0 && vlab_root_host())
		r = rl_write_file(state_path(path, sizeof(path), "root-host"), vlab_root_host(),
				  strlen(vlab_root_host()));
	if (r == 0)
		r = build_lab(&b);
	if (r == 0 && remote && (r = write_ssh_inventory(inv)))
		rl_err("lab up: cannot write %s: %s", vlab_ssh_inventory_path(path, sizeof(path)),
		       strerror(-r));

	/* The up mark says who brought the lab up: 'lab status' shows it, and a test run that
	 * was killed knows its own lab from one a person brought up (tests/vlab/run.sh). */
	char up[96];
	int up_len = snprintf(up, sizeof(up), "pid %d\nsession %d\nsince %lld\n", (int)getppid(),
			      (int)getsid(0), (long long)time(NULL));

	if (r == 0 && rl_write_file(state_path(path, sizeof(path), STATE_UP), up, up_len) == 0) {
		ret = RL_EXIT_OK;
		if (!quiet)
			rl_info("lab up: ready in %.2f s (state in %s)",
				(double)(rl_now_ns() - t0) / 1e9, state_dir());
	} else if (r == -EINTR) {
		rl_err("lab up: interrupted; removing what was created");
	} else {
		rl_err("lab up: failed; removing what was created");
	}
close_ns:
	for (size_t i = 0; i < inv->n_hosts; i++)
		nsctx_close(&b.hns[i]);
	for (size_t i = 0; i < inv->n_switches; i++)
		nsctx_close(&b.sns[i]);
	nsctx_close(&b.root);
	free(b.hns);
	free(b.sns);
	if (ret != RL_EXIT_OK)
		vlab_down(true);
unlock:
	state_unlock();
free_topo:
	topo_free(topo);
free_inv:
	inventory_free(inv);
	return ret;
}

/* ---- teardown ------------------------------------------------------- */

/* Delete our links in the root namespace: the mgmt bridge and the rlm* veth ends. */
static int delete_root_links(void)
{
	struct nsctx root;
	struct nl_cache *cache;
	char **names = NULL;
	size_t n = 0;
	int ret = 0;

	if (nsctx_open(&root, NULL))
		return -errno;
	if (rtnl_link_alloc_cache(root.sk, AF_UNSPEC, &cache) < 0) {
		nsctx_close(&root);
		return -EIO;
	}
	for (struct nl_object *o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		const char *name = rtnl_link_get_name((struct rtnl_link *)o);

		if (name && (!strncmp(name, "rlm", 3) || !strcmp(name, VLAB_MGMT_BRIDGE))) {
			names = rl_xrealloc(names, n + 1, sizeof(*names));
			names[n++] = rl_xstrdup(name);
		}
	}
	nl_cache_free(cache);
	for (size_t i = 0; i < n; i++) {
		int r = nl_link_del(&root, names[i]);

		if (r && r != -ENODEV && !ret)
			ret = r;
	}
	free_names(names, n);
	nsctx_close(&root);
	return ret;
}

int vlab_down(bool quiet)
{
	char **names;
	size_t n;
	int killed = 0, ret = RL_EXIT_OK;
	unsigned long long t0 = rl_now_ns();

	if (geteuid() != 0) {
		rl_err("lab down: removing namespaces needs root");
		return RL_EXIT_SETUP;
	}
	rl_signals_install(); /* a signal must not stop a teardown half-way */
	if (state_lock()) {
		rl_err("lab down: cannot take the lab lock: %s", strerror(errno));
		return RL_EXIT_SETUP;
	}
	n = list_lab_ns(&names);
	if (!quiet && n == 0 && !vlab_is_up())
		rl_info("lab down: no lab is up; cleaning leftovers only");
	for (size_t i = 0; i < n; i++) {
		int k = netns_kill_all(names[i], 2000);

		if (k > 0)
			killed += k;
	}
	if (root_host_unconfigure()) {
		rl_err("lab down: could not restore the rules of this namespace: %s",
		       strerror(errno));
		ret = RL_EXIT_SETUP;
	}
	if (delete_root_links()) {
		rl_err("lab down: could not delete the management links: %s", strerror(errno));
		ret = RL_EXIT_SETUP;
	}
	for (size_t i = 0; i < n; i++) {
		int r = netns_del(names[i]);

		if (r) {
			rl_err("lab down: could not remove namespace %s: %s", names[i],
			       strerror(-r));
			ret = RL_EXIT_SETUP;
		}
	}
	free_names(names, n);
	int r = rl_rm_rf(state_dir());

	if (r) {
		rl_err("lab down: could not remove %s: %s", state_dir(), strerror(-r));
		ret = RL_EXIT_SETUP;
	}
	if (!quiet)
		rl_info("lab down: removed %zu namespaces, stopped %d processes in %.2f s", n,
			killed, (double)(rl_now_ns() - t0) / 1e9);
	state_unlock();
	return ret;
}

/* ---- status --------------------------------------------------------- */

static const char *link_state(const char *ns, const char *dev)
{
	struct nsctx c;
	struct nl_link_info li;
	int r;

	if (nsctx_open(&c, ns))
		return "missing";
	r = nl_link_info(&c, dev, &li);
	nsctx_close(&c);
	if (r)
		return "missing";
	return li.oper_up ? "up" : "down";
}

/* A link is up when both ends are; missing when either netdev is gone. */
static const char *link_ends_state(const struct inventory *inv, const struct inv_link *l)
{
	char nsa[64], nsb[64];
	const char *sa = link_state(vlab_ns(nsa, sizeof(nsa), inventory_device_name(inv, &l->a)),
				    inventory_netdev(inv, &l->a));
	const char *sb = link_state(vlab_ns(nsb, sizeof(nsb), inventory_device_name(inv, &l->b)),
				    inventory_netdev(inv, &l->b));

	if (!strcmp(sa, "up") && !strcmp(sb, "up"))
		return "up";
	return !strcmp(sa, "missing") || !strcmp(sb, "missing") ? "missing" : "down";
}

/* Who brought the lab up, from the up mark (absent in a mark from before it said so). */
static void up_owner_print(struct out *o)
{
	char path[4096], *up = rl_read_file(state_path(path, sizeof(path), STATE_UP), NULL);
	long long pid = 0, sid = 0, since = 0;

	if (!up)
		return;
	if (sscanf(up, "pid %lld session %lld since %lld", &pid, &sid, &since) == 3 && since > 0) {
		char when[32];
		time_t t = (time_t)since;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
		out_open_object(o, "brought_up_by");
		out_int(o, PRINT_ANY, "pid", "brought up by pid %lld", pid);
		out_int(o, PRINT_ANY, "session", " (session %lld)", sid);
		out_int(o, PRINT_JSON, "since", NULL, since);
		out_text(o, " at %s%s\n", when, proc_alive((pid_t)pid) ? "" : "; it has ended");
		out_close(o);
	}
	free(up);
}

/* One pass for both views: JSON gets every field, text the tables a person reads. */
static void status_print(struct out *o, const struct inventory *inv)
{
	char ns[64], buf[96], path[4096];
	char *orig = rl_read_file(state_path(path, sizeof(path), "inventory.path"), NULL);
	size_t n_up = 0;

	out_open_object(o, NULL);
	out_bool(o, PRINT_JSON, "up", NULL, true);
	out_string(o, PRINT_ANY, "lab", "lab %s", inv->name);
	out_string(o, PRINT_ANY, "inventory", " (inventory %s)\n", orig ? orig : inv->path);
	out_string(o, PRINT_JSON, "state_dir", NULL, state_dir());
	free(orig);
	up_owner_print(o);
	if (!access(vlab_ssh_inventory_path(path, sizeof(path)), R_OK))
		out_string(o, PRINT_ANY, "ssh_inventory", "as a lab reached over SSH: %s\n", path);
	out_text(o, "\nHOST      RNIC     NETDEV   ADDRESS             RAIL  STATE\n");
	out_open_array(o, "hosts");
	for (size_t h = 0; h < inv->n_hosts; h++) {
		const struct inv_host *host = &inv->hosts[h];

		out_open_object(o, NULL);
		out_string(o, PRINT_JSON, "name", NULL, host->name);
		out_string(o, PRINT_JSON, "namespace", NULL, vlab_ns(ns, sizeof(ns), host->name));
		out_bool(o, PRINT_JSON, "present", NULL, !*ns || netns_exists(ns));
		if (host->has_mgmt)
			out_string(o, PRINT_JSON, "mgmt", NULL, inet_ntoa(host->mgmt));
		out_open_array(o, "rnics");
		for (size_t r = 0; r < host->n_rnics; r++) {
			const struct inv_rnic *x = &host->rnics[r];

			snprintf(buf, sizeof(buf), "%s/%d", inet_ntoa(x->addr.addr), x->addr.len);
			out_open_object(o, NULL);
			out_text(o, "%-9s ", r ? "" : host->name);
			out_string(o, PRINT_ANY, "name", "%-8s ", x->name);
			out_string(o, PRINT_ANY, "netdev", "%-8s ", x->netdev);
			out_string(o, PRINT_ANY, "address", "%-19s ", buf);
			out_string(o, PRINT_JSON, "gateway", NULL, inet_ntoa(x->gateway));
			out_int(o, PRINT_ANY, "rail", "%-5lld ", x->rail);
			out_string(o, PRINT_ANY, "state", "%s\n", link_state(ns, x->netdev));
			out_close(o);
		}
		out_close(o);
		out_close(o);
	}
	out_close(o);
	out_text(o, "\nSWITCH    ROLE   DIALECT  MGMT             SSHD\n");
	out_open_array(o, "switches");
	for (size_t s = 0; s < inv->n_switches; s++) {
		const struct inv_switch *sw = &inv->switches[s];

		out_open_object(o, NULL);
		out_string(o, PRINT_ANY, "name", "%-9s ", sw->name);
		out_string(o, PRINT_ANY, "role", "%-6s ", inv_role_name(sw->role));
		out_string(o, PRINT_ANY, "dialect", "%-8s ", inv_dialect_name(sw->dialect));
		out_string(o, PRINT_JSON, "namespace", NULL, vlab_ns(ns, sizeof(ns), sw->name));
		out_bool(o, PRINT_JSON, "present", NULL, netns_exists(ns));
		out_string(o, PRINT_ANY, "mgmt", "%-16s ", inet_ntoa(sw->mgmt));
		out_string(o, PRINT_ANY, "sshd", "%s\n",
			   proc_alive(vlab_sshd_pid(sw->name)) ? "running" : "stopped");
		out_close(o);
	}
	out_close(o);
	out_open_array(o, "links");
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];
		const char *st = link_ends_state(inv, l);
		enum out_what w =
		    strcmp(st, "up") ? PRINT_ANY : PRINT_JSON; /* text: what is not up */
		char an[80], bn[80];

		n_up += w == PRINT_JSON;
		out_open_object(o, NULL);
		out_string(o, w, "a", "link %s", inventory_endpoint_name(inv, &l->a, an, 80));
		out_string(o, w, "b", " -- %s", inventory_endpoint_name(inv, &l->b, bn, 80));
		out_uint(o, PRINT_JSON, "speed_mbps", NULL, l->speed_mbps);
		out_string(o, w, "state", " is %s\n", st);
		out_close(o);
	}
	out_close(o);
	out_text(o, "\nlinks: %zu of %zu up\n", n_up, inv->n_links);
	out_close(o);
}

int vlab_status(bool json)
{
	struct inventory *inv = vlab_inventory(stderr);
	struct out o;

	out_init(&o, stdout, json ? OUT_JSON : OUT_TEXT);
	if (!inv) {
		out_open_object(&o, NULL);
		out_bool(&o, PRINT_JSON, "up", NULL, false);
		out_text(&o, "no lab is up (start one with 'rocelab lab up')\n");
		out_close(&o);
		return RL_EXIT_SETUP;
	}
	status_print(&o, inv);
	inventory_free(inv);
	return RL_EXIT_OK;
}

const char *vlab_builtin_inventory(char *buf, size_t len)
{
	return rl_data_path(VLAB_BUILTIN_INVENTORY, buf, len);
}

struct inventory *vlab_target_inventory(const char *path)
{
	return state_target_inventory(path);
}

/* ---- the lab kind: every device a namespace of this machine ------------------------------ */

static int vlab_exec(struct lab *l, const char *dev, const char *const argv[], const char *input,
		     char **out, char *err, size_t errlen)
{
	char ns[64], *errout = NULL;
	int r = proc_capture(argv, vlab_ns(ns, sizeof(ns), dev), input, out, &errout);

	(void)l;
	if (r < 0)
		snprintf(err, errlen, "%s: cannot run %s: %s", dev, argv[0],
			 r == -ENXIO ? "no such namespace" : strerror(-r));
	else if (r > 0)
		snprintf(err, errlen, "%s: %s exited %d: %.*s", dev, argv[0], r,
			 (int)strcspn(errout, "\n"), errout);
	free(errout);
	return r;
}

static int vlab_spawn(struct lab *l, const char *dev, const char *const argv[], const char *log,
		      struct lab_proc *p)
{
	char ns[64];

	(void)l;
	p->pid = proc_spawn_tied(argv, vlab_ns(ns, sizeof(ns), dev), log);
	return p->pid < 0 ? (int)p->pid : 0;
}

static int vlab_stop(struct lab *l, struct lab_proc *p, int grace_ms)
{
	(void)l;
	return proc_stop(p->pid, grace_ms);
}

static bool vlab_alive(struct lab *l, struct lab_proc *p)
{
	(void)l;
	return proc_alive(p->pid);
}

/* Namespaces share this machine's file system: a copy is a copy. */
static int copy_file(const char *from, const char *to, unsigned mode)
{
	size_t len;
	char *buf = rl_read_file(from, &len);
	int r;

	if (!buf)
		return -errno;
	r = rl_write_file_mode(to, buf, len, mode);
	free(buf);
	return r;
}

static int vlab_put(struct lab *l, const char *dev, const char *local, const char *path)
{
	(void)l, (void)dev;
	return copy_file(local, path, 0600);
}

static int vlab_get(struct lab *l, const char *dev, const char *path, const char *local)
{
	(void)l, (void)dev;
	return copy_file(path, local, 0644); /* into results people archive */
}

static int vlab_nsctx(struct lab *l, const char *dev, struct nsctx *c)
{
	char ns[64];

	(void)l;
	return nsctx_open(c, vlab_ns(ns, sizeof(ns), dev));
}

static int vlab_enter(struct lab *l, const char *dev, int *saved)
{
	char ns[64];

	(void)l;
	return netns_enter_name(vlab_ns(ns, sizeof(ns), dev), saved);
}

static void vlab_leave(struct lab *l, int saved)
{
	(void)l;
	netns_leave(saved);
}

const struct lab_ops vlab_lab_ops = {
    .name = "vlab",
    .exec = vlab_exec,
    .spawn = vlab_spawn,
    .stop = vlab_stop,
    .alive = vlab_alive,
    .put = vlab_put,
    .get = vlab_get,
    .nsctx = vlab_nsctx,
    .enter = vlab_enter,
    .leave = vlab_leave,
};
