// SPDX-License-Identifier: MIT
/* What every command shares: the common options and subcommand tables. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/lib/common.h"

#include <getopt.h>
#include <stdint.h>
#include <string.h>

/*
 * Parse the common options plus extra long options; unknown options are usage
 * errors.  extra_fn handles extra options and returns nonzero to reject.
 */
int cli_parse_opts(int argc, char **argv, struct opts *o, const struct option *extra,
		   int (*extra_fn)(int c, const char *arg, void *ctx), void *ctx)
{
	struct option lo[32] = {
	    {"inventory", required_argument, NULL, 'i'},
	    {"json", no_argument, NULL, 'j'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	};
	size_t n = 5;
	char shorts[32];
	int c;

	for (; extra && extra[n - 5].name && n < ARRAY_SIZE(lo) - 1; n++)
		lo[n] = extra[n - 5];
	optind = 1;
	opterr = 0;
	/* ':' first: a missing value is reported as such, not as an unknown option */
	snprintf(shorts, sizeof(shorts), "%s:i:jqvh%s", o->stop_at_arg ? "+" : "",
		 o->shorts ? o->shorts : "");
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->inventory = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			o->help = true;
			break;
		case '?':
			if (optopt)
				return usage_error("%s: unknown option '-%c'", argv[0], optopt);
			return usage_error("%s: unknown option '%s'", argv[0], argv[optind - 1]);
		case ':':
			return usage_error("%s: option '%s' needs a value", argv[0],
					   argv[optind - 1]);
		default:
			if (!extra_fn || extra_fn(c, optarg, ctx))
				return RL_EXIT_USAGE;
		}
	}
	return 0;
}

/* Edit distance of a and b (insertions, deletions, substitutions), up to 32 characters. */
static size_t edits(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[33], prev, t;

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		d[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			t = d[j];
			d[j] = a[i - 1] == b[j - 1] ? prev : 1 + (prev < d[j] ? prev : d[j]);
			if (d[j] > d[j - 1] + 1)
				d[j] = d[j - 1] + 1;
			prev = t;
		}
	}
	return d[lb];
}

/* The command of tbl nearest to name (two edits at most, a third of it), or NULL. */
static const char *nearest(const struct cmd *tbl, const char *name)
{
	const char *best = NULL;
	size_t b = SIZE_MAX;

	for (const struct cmd *c = tbl; c->name; c++) {
		size_t e = edits(name, c->name);

		if (e < b && e <= 2 && e * 3 <= strlen(c->name)) {
			b = e;
			best = c->name;
		}
	}
	return best;
}

int cli_dispatch(const struct cmd *tbl, const char *what, int argc, char **argv)
{
	const char *near;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: rocelab %s%sCOMMAND [options]\n\ncommands:\n", what,
			what[0] ? " " : "");
		for (const struct cmd *c = tbl; c->name; c++)
			fprintf(f, "  %-10s %s\n", c->name, c->summary);
		fprintf(f, "\nEach command takes --help.\n");
		return argc < 2 ? RL_EXIT_USAGE : RL_EXIT_OK;
	}
	for (const struct cmd *c = tbl; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->fn(argc - 1, argv + 1);
	near = nearest(tbl, argv[1]);
	return usage_error("unknown %s%scommand '%s'%s%s%s", what, what[0] ? " " : "", argv[1],
			   near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "");
}

int cli_set_str(int c, const char *arg, void *ctx)
{
	(void)c;
	*(const char **)ctx = arg;
	return 0;
}
