// SPDX-License-Identifier: MIT
/*
 * 'rocelab analyze --monitor NAME': what every monitor's analyzer command
 * does alike (monitor.h): its options and inventory, then agents' streams
 * over TCP or record files into the monitor's analyzer.
 */
#define _GNU_SOURCE
#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "probe/monitor.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void analyze_help(const struct mon_analyzer *m)
{
	void *d = rl_xcalloc(1, m->cfg_size);

	m->defaults(d);
	printf("usage: rocelab analyze --monitor %s [-i INVENTORY] (--listen ADDR[:PORT] | "
	       "FILE...)\n"
	       "       [options]\n\n%s\n\n"
	       "  --listen ADDR[:PORT]   take agents' record streams over TCP (port %u)\n"
	       "  FILE...                record files written by 'agent %s --out'\n",
	       m->name, m->about, m->port, m->name);
	opt_help(m->opts, d, 2, stdout);
	fputs("  --duration D           stop listening after D (default: at SIGINT/SIGTERM)\n"
	      "  -o FILE                JSON lines here (default stdout)\n"
	      "exit: 0 done; 2 bad options or records from another inventory; 3 cannot listen.\n",
	      stdout);
	free(d);
}

struct az_args {
	const char *inv_path, *listen, *out;
	long long duration_ms;
};

/* 0, -1 after help, or a usage error. */
static int parse(const struct mon_analyzer *m, const char *cmd, int argc, char **argv,
		 struct az_args *g, void *cfg)
{
	static const struct option own[] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"listen", required_argument, NULL, 'l'},
	    {"duration", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct option lo[48];
	int o, r = 0;

	opt_longopts(m->opts, MON_OPT_BASE, own, lo, ARRAY_SIZE(lo));
	optind = 1;
	opterr = 0;
	while (!r && (o = getopt_long(argc, argv, ":i:o:vh", lo, NULL)) != -1) {
		switch (o) {
		case 'i':
			g->inv_path = optarg;
			break;
		case 'l':
			g->listen = optarg;
			break;
		case 'o':
			g->out = optarg;
			break;
		case 'h':
			analyze_help(m);
			return -1;
		default:
			r = mon_opt(cmd, o, argv, m->opts, cfg, &g->duration_ms);
		}
	}
	if (!r && !g->listen == (optind == argc))
		r = rl_usage_error(cmd,
				   "give either --listen ADDR[:PORT] or record files ('agent %s "
				   "--out')",
				   m->name);
	return r;
}

/* What the intake drives: the monitor's analyzer through its table. */
struct sink_ctx {
	const struct mon_analyzer *m;
	void *az;
};

static int sink_take(void *ctx, const struct inventory *inv, struct rec_stream *s)
{
	struct sink_ctx *c = ctx;

	return c->m->take(c->az, inv, s);
}

static void sink_tick(void *ctx, uint64_t now_ns)
{
	struct sink_ctx *c = ctx;

	c->m->tick(c->az, now_ns);
}

static void sink_flush(void *ctx)
{
	struct sink_ctx *c = ctx;

	c->m->flush(c->az);
}

int mon_analyze_main(const struct mon_analyzer *m, int argc, char **argv)
{
	struct az_args g = {0};
	void *cfg = rl_xcalloc(1, m->cfg_size);
	char cmd[64], err[160];
	struct inventory *inv = NULL;
	FILE *out = stdout;
	struct sink_ctx c = {m, NULL};
	const struct rec_sink sink = {&c, sink_take, sink_tick, sink_flush};
	int r, lfd = -1;

	snprintf(cmd, sizeof(cmd), "analyze --monitor %s", m->name);
	m->defaults(cfg);
	if ((r = parse(m, cmd, argc, argv, &g, cfg))) {
		r = r < 0 ? 0 : r; /* -1: help was asked for */
		goto free_cfg;
	}
	if (!(inv = lab_target_inventory(g.inv_path))) {
		r = errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
		goto free_cfg;
	}
	if (g.listen && (lfd = recin_listen(g.listen, m->port, err, sizeof(err))) < 0) {
		rl_err("analyze: %s", err);
		r = lfd == -EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
		goto free_inv;
	}
	if (g.out && !(out = fopen(g.out, "we"))) {
		rl_err("analyze: cannot write %s: %s", g.out, strerror(errno));
		r = RL_EXIT_SETUP;
		goto close_listen;
	}
	c.az = m->new_az(inv, cfg, out);
	rl_signals_install();
	if (lfd >= 0) {
		rl_info("analyze: %s: listening on %s (window %lld ms)", m->title, g.listen,
			m->window_ms(cfg));
		r = recin_serve(&sink, inv, lfd, g.duration_ms);
	} else {
		r = recin_replay(&sink, inv, argv + optind, argc - optind);
	}
	m->left_out(c.az);
	m->free_az(c.az);
	if (out != stdout)
		fclose(out);
close_listen:
	if (lfd >= 0)
		close(lfd);
free_inv:
	inventory_free(inv);
free_cfg:
	free(cfg);
	return r;
}
