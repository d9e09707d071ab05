// SPDX-License-Identifier: MIT
/*
 * The option schema (harness/lib/opt.h) on both its paths: a command line
 * (getopt_long over the table, as 'rocelab agent|analyze|inject' parse it)
 * and "name: value" pairs (as a scenario's hostmesh: section and faults give
 * them).  Tables: the Hostmesh agent's, the analyzer's, each fault kind's.
 * Input: byte 0 picks the table, byte 1 the path, then one token per line.
 * Property checked beside the sanitizers: what was accepted, written back as
 * a child's argv (opt_argv: what differs from the defaults), parses again to
 * the same values.
 */
#include "harness/lib/opt.h"
#include "injectors/fault.h"
#include "injectors/kinds/kinds.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/hostmesh/hostmesh.h"
#include "tests/fuzz/fuzz.h"

#define MAX_TOK 32
#define BASE	1000
#define KBASE	2000

struct target {
	const struct opt_desc *tab[2]; /* [1]: a fault kind's own */
	size_t size;
	void (*init)(void *obj, const struct fault_kind_ops *k);
	const struct fault_kind_ops *kind;
};

static void agent_init(void *o, const struct fault_kind_ops *k)
{
	(void)k;
	hm_agent_defaults(o);
}

static void az_init(void *o, const struct fault_kind_ops *k)
{
	(void)k;
	az_defaults(o);
}

static void kind_init(void *o, const struct fault_kind_ops *k)
{
	fault_spec_init(o, k);
}

/* Where table i's options of obj live: a fault kind's own are in its spec's opts. */
static void *obj_of(const struct target *t, const void *obj, int i)
{
	return (void *)(t->kind && i == 1 ? ((const struct fault_spec *)obj)->opts : obj);
}

static int set(const struct target *t, void *obj, const char *name, const char *v)
{
	char err[512];

	if (t->kind)
		return fault_spec_set(obj, name, v, err, sizeof(err));
	for (int i = 0; i < 2 && t->tab[i]; i++) {
		const struct opt_desc *d = opt_find(t->tab[i], name);

		if (d)
			return opt_set(d, obj, v, err, sizeof(err));
	}
	return -1;
}

/* argv[0..argc) through getopt_long; 0 when every option was taken. */
static int parse_argv(const struct target *t, void *obj, int argc, char **argv)
{
	struct option base[96], lo[96];
	char err[512];
	int c, r = 0;

	opt_longopts(t->tab[0], BASE, NULL, base, 96);
	if (t->tab[1])
		opt_longopts(t->tab[1], KBASE, base, lo, 96);
	else
		memcpy(lo, base, sizeof(lo));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		const struct opt_desc *d = c >= KBASE  ? &t->tab[1][c - KBASE]
					   : c >= BASE ? &t->tab[0][c - BASE]
						       : NULL;

		if (!d || opt_set(d, obj_of(t, obj, c >= KBASE),
				  d->type == OPT_BOOL ? NULL : optarg, err, sizeof(err))) {
			if (getenv("FUZZ_VERBOSE"))
				fprintf(stderr, "option %d: %s\n", c, d ? err : "unknown");
			r = -1;
		}
	}
	return r;
}

/* Written back as a child's argv and parsed again: the same values. */
static void round_trip(const struct target *t, const void *obj)
{
	const char *argv[2 * 96 + 2] = {"fuzz"};
	struct opt_store store = {0};
	size_t n = 1;
	void *again = calloc(1, t->size), *defaults = calloc(1, t->size);

	t->init(again, t->kind);
	t->init(defaults, t->kind);
	/* As a child gets them: the options that differ from the defaults. */
	for (int i = 0; i < 2 && t->tab[i]; i++)
		if (opt_argv(t->tab[i], obj_of(t, obj, i), obj_of(t, defaults, i), argv, &n,
			     2 * 96 + 1, &store))
			abort();
	if (parse_argv(t, again, (int)n, (char **)argv)) {
		fprintf(stderr, "round trip: written options do not parse again:");
		for (size_t i = 1; i < n; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
		abort();
	}
	for (int i = 0; i < 2 && t->tab[i]; i++)
		for (const struct opt_desc *d = t->tab[i]; d->type != OPT_END; d++) {
			char a[512], b[512];

			opt_human(d, obj_of(t, obj, i), a, sizeof(a));
			if (strcmp(opt_value(d, obj_of(t, obj, i), a, sizeof(a)),
				   opt_value(d, obj_of(t, again, i), b, sizeof(b)))) {
				fprintf(stderr, "round trip: %s was '%s', is '%s'\n", d->name, a,
					b);
				abort();
			}
		}
	opt_store_free(&store);
	free(defaults);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n_kinds = 0;
	struct target t = {0};
	char *text, *tok[MAX_TOK + 1] = {"fuzz"}, *save = NULL;
	int ntok = 1, r;
	void *obj;

	if (size < 2)
		return 0;
	while (fault_kind_at(n_kinds))
		n_kinds++;
	switch (data[0] % (2 + n_kinds)) {
	case 0:
		t = (struct target){{hm_agent_opts}, sizeof(struct hm_agent_cfg), agent_init};
		break;
	case 1:
		t = (struct target){{az_opts}, sizeof(struct az_cfg), az_init};
		break;
	default:
		t.kind = fault_kind_at(data[0] % (2 + n_kinds) - 2);
		t = (struct target){{fault_common_opts, t.kind->opts},
				    sizeof(struct fault_spec),
				    kind_init,
				    t.kind};
	}
	text = fuzz_text(data + 2, size - 2);
	for (char *s = strtok_r(text, "\n", &save); s && ntok <= MAX_TOK;
	     s = strtok_r(NULL, "\n", &save))
		tok[ntok++] = s;
	obj = calloc(1, t.size);
	t.init(obj, t.kind);
	if (data[1] & 1) {
		r = parse_argv(&t, obj, ntok, tok);
	} else {
		r = 0;
		for (int i = 1; i < ntok && !r; i++) {
			char *v = strchr(tok[i], ':');

			if (!v)
				break;
			*v++ = '\0';
			r = set(&t, obj, tok[i], *v == ' ' ? v + 1 : v);
		}
	}
	if (!r && t.kind) {
		char why[512];

		r = fault_spec_check(obj, why, sizeof(why));
	}
	if (!r)
		round_trip(&t, obj);
	free(obj);
	free(text);
	return 0;
}
