// SPDX-License-Identifier: MIT
/* 'rocelab observe': what each monitor can localize on a lab. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/lib/out.h"
#include "harness/run/registry.h"
#include "harness/run/runner.h"
#include "probe/observe.h"

#include <string.h>

static const char observe_help[] =
    "usage: rocelab observe [-i INVENTORY] [--monitor NAME [--set KEY=VALUE]...] [-j]\n"
    "What each monitor can localize on a lab, before anything runs (network tomography of\n"
    "its probes): every equal-cost path between the RNICs it probes is one of its probe\n"
    "paths; links and switches on exactly the same probe paths cannot be told apart by it\n"
    "(one class), and one on no probe path is unobservable by it. Prints, per monitor with\n"
    "its default parameters, the share of links, RNICs and switches it can name alone and\n"
    "the classes it cannot; the run grades localization against these classes. An RNIC is\n"
    "its link here (no probe crosses one and not the other), a switch port its link.\n"
    "Default: the built-in lab, every monitor. Touches no lab.\n"
    "  --monitor NAME     only this monitor (hostmesh, rpingmesh)\n"
    "  --set KEY=VALUE    one of its parameters, as a scenario gives it (profile=ci, or\n"
    "                     e.g. inter-tor=1: on thousands of hosts R-Pingmesh's default of\n"
    "                     every RNIC of every other ToR is billions of pairs)\n";

struct observe_args {
	const char *monitor;
	const char *set[16];
	size_t n_set;
};

static int observe_opt(int c, const char *arg, void *ctx)
{
	struct observe_args *a = ctx;

	if (c == 'm') {
		a->monitor = arg;
		return 0;
	}
	if (c != 's')
		return 1;
	if (a->n_set == sizeof(a->set) / sizeof(a->set[0])) {
		usage_error("observe: at most %zu --set", a->n_set);
		return 1;
	}
	a->set[a->n_set++] = arg;
	return 0;
}

/* The monitor's parameters: its defaults, then each --set (profile=NAME applies a profile). */
static void *observe_cfg(const struct component_ops *ops, const struct observe_args *a)
{
	void *cfg = rl_xcalloc(1, ops->cfg_size);
	char err[320];

	ops->defaults(cfg);
	for (size_t i = 0; i < a->n_set; i++) {
		const char *kv = a->set[i], *eq = strchr(kv, '=');
		char key[64];
		const struct opt_desc *d;

		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - kv) : 0, kv);
		if (!eq || !key[0]) {
			usage_error("observe: --set '%s' is not KEY=VALUE", kv);
			goto bad;
		}
		if (!strcmp(key, "profile")) {
			if (component_profile_apply(ops, cfg, eq + 1, err, sizeof(err))) {
				usage_error("observe: %s", err);
				goto bad;
			}
			continue;
		}
		if (!(d = opt_find(ops->params, key))) {
			char names[1024];

			usage_error("observe: %s has no parameter '%s' (it has: profile, %s)",
				    ops->name, key, opt_names(ops->params, names, sizeof(names)));
			goto bad;
		}
		if (opt_set(d, cfg, eq + 1, err, sizeof(err))) {
			usage_error("observe: --set %s: %s", kv, err);
			goto bad;
		}
	}
	return cfg;
bad:
	free(cfg);
	return NULL;
}

int cmd_observe(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"monitor", required_argument, NULL, 'm'}, {"set", required_argument, NULL, 's'}, {0}};
	struct observe_args a = {0};
	const char *monitor;
	void *cfg = NULL;
	struct opts o = {0};
	struct inventory *inv;
	struct topo *t;
	char builtin[4096];
	int r = cli_parse_opts(argc, argv, &o, extra, observe_opt, &a), ret = RL_EXIT_OK;
	size_t shown = 0;

	if (r)
		return r;
	if (o.help)
		return fputs(observe_help, stdout), 0;
	if (optind < argc)
		return usage_error("observe: unexpected argument '%s'", argv[optind]);
	monitor = a.monitor;
	if (a.n_set && !monitor)
		return usage_error("observe: --set needs --monitor (whose parameter it is)");
	if (monitor) {
		const struct component_ops *ops = component_find(monitor);

		if (!ops || !ops->probe_pairs)
			return usage_error("observe: --monitor '%s' is not a monitor (hostmesh, "
					   "rpingmesh)",
					   monitor);
		if (!(cfg = observe_cfg(ops, &a)))
			return RL_EXIT_USAGE;
	}
	inv = inventory_load(
	    o.inventory ? o.inventory : lab_builtin_inventory(builtin, sizeof(builtin)), stderr);
	if (!inv) {
		free(cfg);
		return RL_EXIT_USAGE;
	}
	/* Two tiers: what the paths are made of (the loader said what and where, if not). */
	t = topo_build(inv, false, stderr);
	if (!t) {
		inventory_free(inv);
		free(cfg);
		return RL_EXIT_USAGE;
	}
	topo_free(t);
	for (size_t i = 0; component_at(i); i++) {
		const struct component_ops *ops = component_at(i);
		struct observe *ob;
		struct out out;
		size_t n_pairs;

		if (!ops->probe_pairs || (monitor && strcmp(monitor, ops->name)))
			continue;
		ob = component_observe(ops, cfg, inv, 1, &n_pairs);
		if (!ob) {
			rl_err("observe: %s: %s", ops->name, strerror(errno));
			ret = RL_EXIT_SETUP;
			continue;
		}
		out_init(&out, stdout, o.json ? OUT_JSON_LINES : OUT_TEXT);
		observe_print(&out, ops->name, n_pairs, ob);
		observe_free(ob);
		shown++;
	}
	free(cfg);
	inventory_free(inv);
	return shown || ret ? ret : RL_EXIT_SETUP;
}
