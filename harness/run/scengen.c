// SPDX-License-Identifier: MIT
/*
 * Random scenarios for Hostmesh: a seed draws each scenario's fault kind, its
 * target by role (with a drawn rail, host or spine), the fault's parameters
 * and any load it needs; the expectation (class, time to detect) follows
 * from the kind and target, as in the hand-written CI scenarios.  Every
 * scenario carries the CI suite's Hostmesh parameters.  What the scenario
 * loader refuses is a bug here, so each file is loaded back before the next.
 */
#define _GNU_SOURCE
#include "harness/run/scengen.h"

#include "harness/lib/common.h"
#include "harness/lib/roles.h"
#include "harness/lib/sbuf.h"
#include "harness/run/scenario.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* What the kinds need to know of the lab. */
struct shape {
	int hosts, rails, spines;
	int host_rnics;	 /* the most RNICs of one host */
	int other_rnics; /* RNICs on another host and another rail than any one RNIC */
};

/* What a kind writes: its fault's target and options (after "- kind:") and any load as YAML,
 * the expectation, a description. */
struct draw {
	struct sbuf yaml; /* "faults:" ... and "load:" ... */
	char desc[200];
	const char *cls;
	int within_s;
};

struct kind {
	const char *name;
	bool (*fits)(const struct shape *sh);
	void (*draw)(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
		     struct draw *d);
};

static int pick(struct role_rng *rng, int lo, int hi)
{
	return lo + (int)role_rng_below(rng, (unsigned)(hi - lo + 1));
}

static const char *host_name(struct role_rng *rng, const struct inventory *inv)
{
	return inv->hosts[role_rng_below(rng, (unsigned)inv->n_hosts)].name;
}

static bool any_lab(const struct shape *sh)
{
	(void)sh;
	return true;
}

static bool two_rails(const struct shape *sh)
{
	return sh->rails >= 2;
}

/*
 * Hostmesh probes between the RNICs of a host: with two rails, every probe
 * that crosses one uplink of a spine crosses the other too, so a link fault
 * can be told from its spine only on three rails or more.
 */
static bool three_rails(const struct shape *sh)
{
	return sh->rails >= 3;
}

static bool incast_fits(const struct shape *sh)
{
	return sh->other_rnics >= 1;
}

/* A fabric link by one of its two roles, on a drawn rail and spine; what says which, for people. */
static void fabric_link(struct role_rng *rng, const struct shape *sh, struct draw *d, char *what,
			size_t len)
{
	bool uplink = role_rng_below(rng, 2);
	int rail = pick(rng, 1, sh->rails), spine = pick(rng, 1, sh->spines);

	sb_printf(&d->yaml, "    target: { role: %s, rail: %d, spine: spine%d }\n",
		  uplink ? "rail-uplink" : "spine-port", rail, spine);
	snprintf(what, len, "the link of a rail %d switch to spine%d (at its %s end)", rail, spine,
		 uplink ? "rail" : "spine");
}

/* An RNIC on a drawn host and rail; what names it, for people. */
static void rnic_target(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
			struct draw *d, char *what, size_t len)
{
	const char *host = host_name(rng, inv);
	int rail = pick(rng, 1, sh->rails);

	sb_printf(&d->yaml, "    target: { role: rnic, host: %s, rail: %d }\n", host, rail);
	snprintf(what, len, "the RNIC of %s on rail %d", host, rail);
}

static void draw_flap(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
		      struct draw *d)
{
	int period = pick(rng, 4, 5), down = pick(rng, 4, 5) * 500; /* 2 or 2.5 s */
	bool rnic = role_rng_below(rng, 3) == 0;
	char what[96];

	if (rnic)
		rnic_target(rng, sh, inv, d, what, sizeof(what));
	else
		fabric_link(rng, sh, d, what, sizeof(what));
	sb_printf(&d->yaml, "    options: { period: %ds, down: %dms }\n", period, down);
	snprintf(d->desc, sizeof(d->desc), "%s%s flaps: down %d ms of every %d s",
		 rnic ? "the link of " : "", what, down, period);
	d->cls = rnic ? "rnic" : "switch-link";
	d->within_s = 6;
}

static void draw_corruption(struct role_rng *rng, const struct shape *sh,
			    const struct inventory *inv, struct draw *d)
{
	static const int rates[] = {5, 6, 8, 10};
	int rate = rates[role_rng_below(rng, 4)];
	char what[96];

	(void)inv;
	fabric_link(rng, sh, d, what, sizeof(what));
	sb_printf(&d->yaml, "    options: { rate: %d%% }\n", rate);
	snprintf(d->desc, sizeof(d->desc), "%s corrupts %d%% of its packets", what, rate);
	d->cls = "switch-link";
	d->within_s = 8; /* random loss: a window short of votes, as in ci/packet-corruption */
}

static void draw_ipid(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
		      struct draw *d)
{
	int mod = pick(rng, 5, 10), rem = pick(rng, 0, mod - 1);
	char what[96];

	(void)inv;
	fabric_link(rng, sh, d, what, sizeof(what));
	sb_printf(&d->yaml, "    options: { mod: %d, rem: %d, roce-only: true }\n", mod, rem);
	snprintf(d->desc, sizeof(d->desc), "%s drops the RoCE packets of IP ID %d modulo %d", what,
		 rem, mod);
	d->cls = "switch-link";
	d->within_s = 6;
}

static void draw_route(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
		       struct draw *d)
{
	char what[96];

	rnic_target(rng, sh, inv, d, what, sizeof(what));
	snprintf(d->desc, sizeof(d->desc), "%s loses its policy route", what);
	d->cls = "rnic";
	d->within_s = 6;
}

static void draw_acl(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
		     struct draw *d)
{
	const char *host = host_name(rng, inv);

	(void)sh;
	sb_printf(&d->yaml,
		  "    target: { role: switch, of: spine }\n"
		  "    all-ports: true\n"
		  "    options:\n      from: { role: rnic, host: %s }\n"
		  "      to: { role: rnic, host: same, rail: other }\n",
		  host);
	snprintf(d->desc, sizeof(d->desc),
		 "a spine drops what one RNIC of %s sends another of its RNICs", host);
	d->cls = "switch";
	/* One pair through one spine of several: a weak fault, found by evidence over windows. */
	d->within_s = 10;
}

static void draw_degrade(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
			 struct draw *d)
{
	int rail = pick(rng, 1, sh->rails), spine = pick(rng, 1, sh->spines);

	(void)inv;
	sb_printf(&d->yaml,
		  "    target: { role: rail-uplink, rail: %d, spine: spine%d }\n"
		  "    options: { rate: [10mbit, 10g] }\n"
		  "load:\n  - kind: stream\n    across: fault\n    rate: 120mbit\n",
		  rail, spine);
	snprintf(d->desc, sizeof(d->desc),
		 "the uplink of rail %d to spine%d degrades to 10 Mbit/s under a 120 Mbit/s stream",
		 rail, spine);
	d->cls = "congestion";
	d->within_s = 8;
}

static void draw_storm(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
		       struct draw *d)
{
	int n = sh->other_rnics < 3 ? sh->other_rnics : 3;
	char what[96];

	rnic_target(rng, sh, inv, d, what, sizeof(what));
	sb_printf(&d->yaml,
		  "    options: { priority: 3, rate: 4000/s }\n"
		  "load:\n  - kind: incast\n    to: { role: rnic, host: fault, rail: fault }\n"
		  "    from: { role: rnic, host: other, rail: other, count: %d }\n"
		  "    rate: 100mbit\n    priority: 3\n",
		  n);
	snprintf(d->desc, sizeof(d->desc), "%s sends 4000 PFC pauses/s while %d RNIC(s) send to it",
		 what, n);
	d->cls = "rnic";
	d->within_s = 6;
}

static void draw_alpha(struct role_rng *rng, const struct shape *sh, const struct inventory *inv,
		       struct draw *d)
{
	int n = sh->other_rnics < 6 ? sh->other_rnics : 6;
	/*
	 * ECMP spreads the 160 Mbit/s incast over every spine: a spine's port toward the
	 * target carries 160/spines.  Its emulated queue drains at half that, so it congests
	 * on any width (20 Mbit/s under four spines, the CI lab's).  A fixed 20 Mbit/s left
	 * seven or eight spines at 1.1-1.2x it: no congestion, the fault there but not its
	 * effect (two drawn shapes of 2026-11-29, both missed).
	 */
	int emu = 80 / (sh->spines > 0 ? sh->spines : 1);

	(void)rng;
	(void)inv;
	emu = emu < 1 ? 1 : emu;
	sb_printf(&d->yaml,
		  "    target: { role: switch, of: spine }\n"
		  "    options: { alpha: 1/64, priority: 3, emu-rate: %dmbit }\n"
		  "load:\n  - kind: incast\n    to: { role: rnic }\n"
		  "    from: { role: rnic, host: other, rail: other, count: %d }\n"
		  "    rate: 160mbit\n    priority: 3\n",
		  emu, n);
	snprintf(d->desc, sizeof(d->desc),
		 "a spine's buffer alpha is 1/64 (emulated %d Mbit/s queue, half its share of the "
		 "incast over %d spine(s)) under an incast of %d",
		 emu, sh->spines, n);
	d->cls = "congestion";
	d->within_s = 8;
}

static const struct kind kinds[] = {
    {"link-flap", three_rails, draw_flap},  {"packet-corruption", three_rails, draw_corruption},
    {"ipid-drop", three_rails, draw_ipid},  {"rnic-route-missing", any_lab, draw_route},
    {"acl-error", two_rails, draw_acl},	    {"link-degrade", three_rails, draw_degrade},
    {"pfc-storm", incast_fits, draw_storm}, {"buffer-alpha", incast_fits, draw_alpha},
};

const char *scengen_kinds(void)
{
	return "link-flap,packet-corruption,ipid-drop,rnic-route-missing,acl-error,link-degrade,"
	       "pfc-storm,buffer-alpha";
}

static struct shape shape_of(const struct inventory *inv)
{
	struct shape sh = {.hosts = (int)inv->n_hosts};
	int rnics = 0;

	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t r = 0; r < inv->hosts[h].n_rnics; r++) {
			rnics++;
			if ((int)r + 1 > sh.host_rnics)
				sh.host_rnics = (int)r + 1;
			if (inv->hosts[h].rnics[r].rail > sh.rails)
				sh.rails = inv->hosts[h].rnics[r].rail;
		}
	for (size_t s = 0; s < inv->n_switches; s++)
		sh.spines += inv->switches[s].role == INV_ROLE_SPINE;
	/* Fewest RNICs on another host and rail, over every RNIC (a host may have fewer). */
	sh.other_rnics = rnics;
	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t r = 0; r < inv->hosts[h].n_rnics; r++) {
			int n = 0;

			for (size_t g = 0; g < inv->n_hosts; g++)
				for (size_t q = 0; q < inv->hosts[g].n_rnics && g != h; q++)
					n += inv->hosts[g].rnics[q].rail !=
					     inv->hosts[h].rnics[r].rail;
			if (n < sh.other_rnics)
				sh.other_rnics = n;
		}
	return sh;
}

static bool kind_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *e = strchrnul(p, ',');

		if ((size_t)(e - p) == n && !strncmp(p, name, n))
			return true;
		p = *e ? e + 1 : e;
	}
	return !list;
}

/* Every name in list is a kind; else -EINVAL with the first that is not. */
static int check_kinds(const char *list)
{
	for (const char *p = list; p && *p;) {
		const char *e = strchrnul(p, ',');
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			known |= strlen(kinds[i].name) == (size_t)(e - p) &&
				 !strncmp(p, kinds[i].name, (size_t)(e - p));
		if (!known) {
			rl_err("scenario gen: --kinds: '%.*s' is not one of %s", (int)(e - p), p,
			       scengen_kinds());
			return -EINVAL;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

#define CI_SPORTS     32
#define CI_TRACE_RATE 100
/* The CI suite's profile (probe/hostmesh/component.c): its sports and trace rate are these. */
static const char hostmesh_ci[] =
    "hostmesh:\n  profile: ci            # the CI suite's: 50 probes/s per RNIC, 2 s windows\n";

/*
 * The baseline: a probe's timeout is voted only once its path is known, so the agents first
 * trace each of a host's probe 5-tuples (RNIC pairs x source ports) at the trace rate: 18 s
 * for a host of 8 RNICs, 2 s for 3.  Then 3 s more, and never less than the CI suite's 6 s.
 */
static int baseline_s(const struct shape *sh)
{
	int tuples = sh->host_rnics * (sh->host_rnics - 1) * CI_SPORTS,
	    t = (tuples + CI_TRACE_RATE - 1) / CI_TRACE_RATE + 3;

	return t < 6 ? 6 : t;
}

/* Write one scenario to path; the loader must take it back. */
static int write_one(const struct scengen_opts *o, const struct shape *sh, const char *path,
		     const char *name, int index, const struct draw *d)
{
	FILE *f = fopen(path, "wx");
	struct scenario *s;

	if (!f) {
		rl_err("scenario gen: cannot create %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f,
		"# Generated by 'rocelab scenario gen --seed %u', scenario %d, for lab '%s'.\n"
		"name: %s\nsuite: random-%u\ndescription: >\n  %c%s.\n",
		o->seed, index, o->inv->name, name, o->seed,
		d ? toupper((unsigned char)d->desc[0]) : 'N',
		d ? d->desc + 1 : "othing is injected: the monitor must stay silent");
	if (d) {
		/* Fault phase: the time to detect, and 4 s past it to see the verdict keep coming.
		 */
		fprintf(f, "phases: { baseline: %ds, fault: %ds, recovery: 6s }\n", baseline_s(sh),
			d->within_s + 4 < 10 ? 10 : d->within_s + 4);
		fprintf(f, "components: [hostmesh]\n%s%s", hostmesh_ci, d->yaml.p);
		fprintf(f, "expect:\n  class: %s\n  within: %ds\n", d->cls, d->within_s);
	} else {
		char fr[32];

		fprintf(f, "phases: { baseline: %ds, fault: %s, recovery: 4s }\n", baseline_s(sh),
			rl_format_duration_ms(o->free_ms > 0 ? o->free_ms : 30000, fr, sizeof(fr)));
		fprintf(f, "components: [hostmesh]\n%s", hostmesh_ci);
		fprintf(f, "expect:\n  silent: true\n  max-false-positives: 0\n");
	}
	if (fclose(f)) {
		rl_err("scenario gen: cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	s = scenario_load(path, o->inv_path, o->inv_path, o->seed, stderr);
	if (!s) {
		rl_err("scenario gen: the scenario loader refused %s (a generator bug)", path);
		return -EINVAL;
	}
	scenario_free(s);
	return 0;
}

static int make_dir(const char *dir)
{
	DIR *d;
	struct dirent *e;

	if (!mkdir(dir, 0755))
		return 0;
	if (errno != EEXIST || !(d = opendir(dir))) {
		rl_err("scenario gen: cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			closedir(d);
			rl_err("scenario gen: %s is not empty; give a new or empty folder", dir);
			return -EEXIST;
		}
	closedir(d);
	return 0;
}

int scengen_write(const struct scengen_opts *o, FILE *log)
{
	struct shape sh = shape_of(o->inv);
	const struct kind *usable[ARRAY_SIZE(kinds)];
	struct role_rng rng;
	size_t n_usable = 0;
	int r;

	if (o->faults < 0 || o->fault_free < 0 || o->faults + o->fault_free < 1 ||
	    o->faults + o->fault_free > 999) {
		rl_err("scenario gen: ask for 1 to 999 scenarios in all (--faults, --fault-free)");
		return -EINVAL;
	}
	if (check_kinds(o->kinds))
		return -EINVAL;
	if (sh.rails < 1 || sh.spines < 1) {
		rl_err("scenario gen: lab '%s' has no rails or no spines; generate one with "
		       "'rocelab inventory gen'",
		       o->inv->name);
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kind_listed(o->kinds, kinds[i].name) && kinds[i].fits(&sh))
			usable[n_usable++] = &kinds[i];
	if (o->faults && !n_usable) {
		rl_err("scenario gen: none of the kinds asked for fits lab '%s' (link faults need "
		       "three rails, acl-error two, pfc-storm and buffer-alpha an RNIC on "
		       "another host and rail)",
		       o->inv->name);
		return -EINVAL;
	}
	if ((r = make_dir(o->dir)))
		return r;
	role_rng_init(&rng, o->seed, "scenario gen");
	for (int i = 1; i <= o->faults + o->fault_free; i++) {
		char name[SCN_NAME_MAX + 1], path[4096];
		struct draw d = {0};
		const struct kind *k = NULL;

		/* Kinds come from a shuffled deck of every usable one, reshuffled when it runs out:
		 * random order, and every kind as often as any other, give or take one. */
		if (i <= o->faults) {
			size_t at = (size_t)(i - 1) % n_usable;

			if (!at)
				for (size_t j = n_usable - 1; j > 0; j--) {
					size_t x = role_rng_below(&rng, (unsigned)j + 1);
					const struct kind *t = usable[j];

					usable[j] = usable[x];
					usable[x] = t;
				}
			k = usable[at];
		}

		snprintf(name, sizeof(name), "r%u-%03d-%s", o->seed, i, k ? k->name : "no-fault");
		snprintf(path, sizeof(path), "%s/%s.yaml", o->dir, name);
		if (k) {
			sb_printf(&d.yaml, "faults:\n  - kind: %s\n", k->name);
			k->draw(&rng, &sh, o->inv, &d);
		}
		r = write_one(o, &sh, path, name, i, k ? &d : NULL);
		if (log && !r)
			fprintf(log, "%s: %s%s%s\n", path, k ? d.desc : "no fault",
				k ? "; expect " : "", k ? d.cls : "");
		sb_free(&d.yaml);
		if (r)
			return r;
	}
	return 0;
}
