/* SPDX-License-Identifier: MIT */
/*
 * The rocelab command line: table-driven subcommands, results on stdout,
 * logs on stderr.  One file per command (NAME_cmd.c), main.c their table.
 */
#ifndef ROCELAB_CLI_H
#define ROCELAB_CLI_H

#include "harness/lib/common.h"
#include "harness/lib/inventory.h"

#include <getopt.h>
#include <stdbool.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* Common options: -i INVENTORY, -j (JSON), -q, -v, -h. */
struct opts {
	const char *inventory;
	bool json, quiet, help;
	bool stop_at_arg;   /* options end at the first argument (lab ssh SWITCH CMD -x ...) */
	const char *shorts; /* the command's own short options ("n:"), handled by extra_fn */
};

#define usage_error(...) rl_usage_error(NULL, __VA_ARGS__)

/*
 * Parse the common options plus extra long options; unknown options are usage
 * errors.  extra_fn handles extra options and returns nonzero to reject.
 */
int cli_parse_opts(int argc, char **argv, struct opts *o, const struct option *extra,
		   int (*extra_fn)(int c, const char *arg, void *ctx), void *ctx);
/* argv[1] looked up in tbl (what: "lab", ...), its help when none or -h. */
int cli_dispatch(const struct cmd *tbl, const char *what, int argc, char **argv);
/* An extra_fn that keeps the option's value in *(const char **)ctx. */
int cli_set_str(int c, const char *arg, void *ctx);

/* The virtual lab that is up, or NULL having said so ("no lab is up: start one ..."). */
struct inventory *cli_running_inventory(void);

/* The commands, each in its own file. */
int cmd_lab(int argc, char **argv);	     /* lab_cmd.c */
int cmd_inventory(int argc, char **argv);    /* inventory_cmd.c */
int cmd_scenario(int argc, char **argv);     /* scenario_cmd.c */
int cmd_trace(int argc, char **argv);	     /* trace_cmd.c */
int cmd_history(int argc, char **argv);	     /* history_cmd.c */
int cmd_compare(int argc, char **argv);	     /* history_cmd.c */
int cmd_export(int argc, char **argv);	     /* export_cmd.c */
int cmd_analyzes(int argc, char **argv);     /* history_cmd.c */
int cmd_agents(int argc, char **argv);	     /* history_cmd.c */
int cmd_observe(int argc, char **argv);	     /* observe_cmd.c */
int cmd_rig(int argc, char **argv);	     /* rig_cmd.c */
int cmd_load_any(int argc, char **argv);     /* load_cmd.c */
int cmd_run_reported(int argc, char **argv); /* run_cmd.c */
struct run_request;
/* 'rocelab run' as q asks, reported as the command reports it (qualify's runs). */
int cli_run(const struct run_request *q); /* run_cmd.c */
int cmd_qualify(int argc, char **argv);	  /* qualify_cmd.c */
int cmd_verify(int argc, char **argv);	  /* qualify_cmd.c */
int cmd_report(int argc, char **argv);	  /* qualify_cmd.c */

#endif
