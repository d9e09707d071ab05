/* SPDX-License-Identifier: MIT */
/*
 * One option schema per config struct: a table of {name, type, range,
 * offset, help} drives the command line (getopt_long), the scenario's YAML
 * and the argv handed to child processes, so each parameter is spelled once.
 * "interval" is --interval on the command line and interval: in YAML.
 */
#ifndef ROCELAB_OPT_H
#define ROCELAB_OPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_END,
	OPT_MS,	    /* long long, a duration in milliseconds ("500ms", "20s") */
	OPT_US,	    /* long long, a duration kept in microseconds ("500us", "1ms") */
	OPT_INT,    /* int */
	OPT_UINT,   /* unsigned */
	OPT_DOUBLE, /* double */
	OPT_BOOL,   /* bool: a flag on the command line, true/false in YAML */
	OPT_STR,    /* char[size]: a name, checked later by whoever resolves it */
	OPT_CUSTOM, /* parse and print given */
};

struct opt_desc {
	const char *name;
	enum opt_type type;
	double lo, hi; /* OPT_MS, OPT_US: milliseconds; OPT_CUSTOM: the parser's to use */
	size_t off;    /* offsetof() in the config struct */
	const char *help;
	/* OPT_CUSTOM: 0 or -EINVAL with a message in err */
	int (*parse)(const struct opt_desc *d, const char *v, void *field, char *err,
		     size_t errlen);
	const char *(*print)(const void *field, char *buf, size_t len);
	size_t size; /* OPT_STR: sizeof the char array */
};

/*
 * Room for any option's value as text, with its '\0': the longest is a
 * fault's list of 64 five-digit IP IDs.  Every value opt_argv passes on to
 * a child fits in it (it refuses one that would not).
 */
#define OPT_VALUE_MAX 512

#define OPT_TABLE_END                                                                              \
	{                                                                                          \
		.type = OPT_END                                                                    \
	}

const struct opt_desc *opt_find(const struct opt_desc *tab, const char *name);

/* Set one option from its text (OPT_BOOL: NULL is true); -EINVAL with what to give in err. */
int opt_set(const struct opt_desc *d, void *obj, const char *v, char *err, size_t errlen);

/* opt_set for command cmd's --NAME v: a usage error naming the option (RL_EXIT_USAGE), or 0. */
int opt_cli_set(const char *cmd, const struct opt_desc *d, void *obj, const char *v);

/*
 * An agent's --clock-offset v (its host's clock minus the analyzer's, in
 * seconds, within an hour) into *ns: 0, or a usage error.
 */
int opt_cli_clock_offset(const char *cmd, const char *v, long long *ns);

/* Command cmd's duration option opt (v, from lo to hi ms) into *out: 0, or a usage error. */
int opt_cli_ms(const char *cmd, const char *opt, const char *v, long long lo, long long hi,
	       long long *out);

/* The option's value as text that opt_set takes back. */
const char *opt_value(const struct opt_desc *d, const void *obj, char *buf, size_t len);

/* The value as a person writes it (500ms, 20s, 0.1), for help and plans. */
const char *opt_human(const struct opt_desc *d, const void *obj, char *buf, size_t len);

/* "interval, timeout, ..." */
const char *opt_names(const struct opt_desc *tab, char *buf, size_t len);

/* Help lines "--name DEFAULT   help", indent spaces in, from the values in defaults. */
void opt_help(const struct opt_desc *tab, const void *defaults, int indent, FILE *f);

/*
 * Long options for getopt_long: one per table entry, val = base + index,
 * after the entries of extra (the command's own options, ending {0}).
 * Aborts when they and the closing {0} do not fit max (the caller's array
 * is too small for its tables: a program error, never the user's).
 */
size_t opt_longopts(const struct opt_desc *tab, int base, const struct option *extra,
		    struct option *out, size_t max);

/*
 * Child argv: "--name value" for each option ("--name" for a true OPT_BOOL,
 * nothing for a false one), appended at argv[*n]; with defaults, only the
 * options whose value differs from it.  Strings are owned by store, freed
 * with opt_store_free.  -E2BIG when max is too small or a value does not
 * fit in OPT_VALUE_MAX (a child must never get a value cut short).
 */
struct opt_store {
	char **s;
	size_t n;
};
int opt_argv(const struct opt_desc *tab, const void *obj, const void *defaults, const char **argv,
	     size_t *n, size_t max, struct opt_store *store);
void opt_store_free(struct opt_store *store);

#endif
