/* SPDX-License-Identifier: MIT */
/*
 * A monitor, as the command line and the run see it: an agent on every
 * host that streams records (recin.h) to an analyzer on the controller,
 * which writes windows and verdicts (monaz.h).  Each monitor fills the two
 * tables below in its own folder; probe/monitors/monitors.def lists them
 * by name.  The agent's table is apart from the analyzer's so that
 * rocelab-agent links only what an agent uses.
 */
#ifndef ROCELAB_MONITOR_H
#define ROCELAB_MONITOR_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/ptrans.h"
#include "probe/recin.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What every monitor's agent has among its parameters, as the first member
 * (a) of its own: the common command line (--host, --analyzer,
 * --controller, --out, --duration, --clock-offset) fills the first six,
 * its options table the rest.  Defaults: agent_cfg_defaults().
 */
struct agent_cfg {
	const char *host;	   /* whose RNICs probe */
	const char *analyzer;	   /* ADDR[:PORT] to stream records to, or NULL */
	const char *controller;	   /* ADDR[:PORT] to take pinglists from, or NULL */
	const char *out;	   /* a file for records ("-": stdout), or NULL */
	long long duration_ms;	   /* 0: until SIGINT/SIGTERM */
	long long clock_offset_ns; /* this host's clock minus the analyzer's: taken off the
				      times in records (0) */
	const struct pt_ops *transport;
	long long timeout_ms;	    /* a probe unanswered by then is lost: 500 ms */
	long long rotate_ms;	    /* source ports are replaced this often (the monitor's) */
	double trace_rate;	    /* path traces per second at most (switch ICMP budget): 2 */
	long long trace_refresh_ms; /* re-trace a 5-tuple after: 60 s */
	long long trace_timeout_ms; /* wait for ICMP answers per trace: 300 ms */
	int max_ttl;		    /* hops traced at most: 6 */
	int dscp;		    /* of probes: 26, the RoCE class, PFC priority 3 */
	size_t buffer_bytes;	    /* records kept while the analyzer is away: 1 MiB */
	long long orphan_ms;	    /* exit after this long without the analyzer: 30 s (0: never) */
	unsigned seed;		    /* 0: from the clock and pid */
};

static inline void agent_cfg_defaults(struct agent_cfg *a)
{
	*a = (struct agent_cfg){
	    .transport = &pt_udp_ops,
	    .timeout_ms = 500,
	    .rotate_ms = 60000,
	    .trace_rate = 2,
	    .trace_refresh_ms = 60000,
	    .trace_timeout_ms = 300,
	    .max_ttl = 6,
	    .dscp = 26,
	    .buffer_bytes = 1 << 20,
	    .orphan_ms = 30000,
	};
}

struct agent_loop;

/* 'rocelab agent NAME': a monitor's probing agent. */
struct mon_agent {
	const char *name;  /* "hostmesh": the word after 'rocelab agent' */
	const char *about; /* --help's paragraph: what the agent does */
	uint16_t port;	   /* its analyzer's TCP port */
	uint16_t ctl_port; /* its controller's (0: it has none) */
	const struct opt_desc *opts;
	size_t cfg_size;
	void (*defaults)(void *cfg);
	/* cfg (its struct agent_cfg filled from the command line) checked and completed: 0, or a
	 * usage error (rl_usage_error of cmd).  NULL: nothing to check. */
	int (*finish)(const char *cmd, void *cfg);
	const struct agent_loop *loop; /* its probing (probe/agentcore.h) */
};

/* 'rocelab analyze --monitor NAME': a monitor's analyzer. */
struct mon_analyzer {
	const char *name;  /* "hostmesh" */
	const char *title; /* "Hostmesh" */
	const char *about; /* --help's paragraph: what it analyzes and writes */
	uint16_t port;	   /* its TCP port for agents' streams */
	const struct opt_desc *opts;
	size_t cfg_size;
	void (*defaults)(void *cfg);
	long long (*window_ms)(const void *cfg);
	/* A new analyzer writing JSON lines on out; free with free_az(). */
	void *(*new_az)(const struct inventory *inv, const void *cfg, FILE *out);
	void (*free_az)(void *az);
	int (*take)(void *az, const struct inventory *inv, struct rec_stream *s);
	void (*tick)(void *az, uint64_t now_ns);
	void (*flush)(void *az);
	/* Warns of the records it left out (over its bounds, late, unknown), if any. */
	void (*left_out)(const void *az);
};

/*
 * A monitor's analyzer functions, typed (T *NEW(const struct inventory *,
 * const C *, FILE *), FREE(T *), TAKE(T *, inv, stream), TICK(T *, now),
 * FLUSH(T *), DEFAULTS(C *)), as the table's: MON_ANALYZER_FNS defines the
 * adapters in the monitor's file, MON_ANALYZER_OPS names them in its
 * table.
 */
#define MON_ANALYZER_FNS(T, C, NEW, FREE, TAKE, TICK, FLUSH, DEFAULTS)                             \
	static void mon_az_defaults(void *c)                                                       \
	{                                                                                          \
		DEFAULTS((C *)c);                                                                  \
	}                                                                                          \
	static long long mon_az_window_ms(const void *c)                                           \
	{                                                                                          \
		return ((const C *)c)->window_ms;                                                  \
	}                                                                                          \
	static void *mon_az_new(const struct inventory *inv, const void *c, FILE *out)             \
	{                                                                                          \
		return NEW(inv, (const C *)c, out);                                                \
	}                                                                                          \
	static void mon_az_free(void *az)                                                          \
	{                                                                                          \
		FREE((T *)az);                                                                     \
	}                                                                                          \
	static int mon_az_take(void *az, const struct inventory *inv, struct rec_stream *s)        \
	{                                                                                          \
		return TAKE((T *)az, inv, s);                                                      \
	}                                                                                          \
	static void mon_az_tick(void *az, uint64_t now_ns)                                         \
	{                                                                                          \
		TICK((T *)az, now_ns);                                                             \
	}                                                                                          \
	static void mon_az_flush(void *az)                                                         \
	{                                                                                          \
		FLUSH((T *)az);                                                                    \
	}
#define MON_ANALYZER_OPS                                                                           \
	.defaults = mon_az_defaults, .window_ms = mon_az_window_ms, .new_az = mon_az_new,          \
	.free_az = mon_az_free, .take = mon_az_take, .tick = mon_az_tick, .flush = mon_az_flush

/* getopt values of a monitor's parameter table start here, in both its commands. */
#define MON_OPT_BASE 0x200

/*
 * What both a monitor's commands do alike with an option o that
 * getopt_long returned (over their own options and tab's, from
 * MON_OPT_BASE) and that is not the command's own: -v, a missing value,
 * --duration ('d') into *duration_ms, tab's options into cfg, an unknown
 * option.  0, or a usage error (rl_usage_error of cmd).
 */
int mon_opt(const char *cmd, int o, char **argv, const struct opt_desc *tab, void *cfg,
	    long long *duration_ms);

/* 'rocelab agent NAME ...' (argv[0] NAME): options, inventory, then m->run.  An exit status. */
int mon_agent_main(const struct mon_agent *m, int argc, char **argv);

/* 'rocelab analyze --monitor NAME ...' (argv[0] "analyze"): likewise.  An exit status. */
int mon_analyze_main(const struct mon_analyzer *m, int argc, char **argv);

#endif
