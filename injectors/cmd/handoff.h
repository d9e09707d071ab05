/* SPDX-License-Identifier: MIT */
/*
 * The one schema between a run and the injector it starts for each fault
 * ('rocelab inject --handoff - --cue -j'), written and read here only:
 *
 * - in, the fault typed: one JSON line on the injector's standard input,
 *   {"schema": 1, "kind", "target", "hold", "for_ms", "options": {NAME:
 *   VALUE}}, the kind's options by its own option table, as text that
 *   table takes back (so a value is never re-split as argv is).  The
 *   injector resolves and plans it itself: a plan's table names carry the
 *   journal id only the injector allocates, under the lab lock.
 * - out, on its standard output: a verdict line {"id", "kind", "target",
 *   "outcome", "applied_at", "evidence", "emulated", "note"} once the fault
 *   is verified (or is not), and after the revert, when something did not
 *   come back as found, a drift line {"id", "reverted", "drift_count",
 *   "drift"}; and what the fault's ends counted while it was in effect, a
 *   counters line {"id", "counters": {"span_s", "deltas", "unread"}}
 *   (counters.h); and what its kind measured of it, a measured line {"id",
 *   "measured": {MEASURE: {...}}} (a PFC watchdog's times, graded: "pfcwd").
 *   'rocelab inject -j' prints the same lines.
 */
#ifndef ROCELAB_HANDOFF_H
#define ROCELAB_HANDOFF_H

#include "injectors/fault.h"

struct sbuf;

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define FAULT_HANDOFF_SCHEMA 1

/* s as the handoff line (with its newline), malloc'ed; NULL when a value will not fit. */
char *fault_handoff_write(const struct fault_spec *s);

/*
 * The handoff line into s (its kind's defaults, then what the line gives),
 * checked as 'inject' checks its options: 0, or -EINVAL with why.
 */
int fault_handoff_read(const char *line, struct fault_spec *s, char *why, size_t whylen);

/* What an injector says of its fault. */
struct fault_outcome {
	unsigned id;
	char kind[32], target[FAULT_NAME_MAX];
	char outcome[24];  /* "applied", "not-effective" */
	double applied_at; /* wall time the first action took effect, 0: not said */
	char evidence[1024];
	bool emulated;
	char note[256];
	/* the drift line, after the revert */
	bool drift_said, reverted;
	unsigned drift_count;
	char drift[2048];
	/* the short line, after the revert: what of its schedule did not run as written */
	char short_of[512];
};

/* The verdict line: text ("fault 3 link-flap rail1:swp5: applied (...)") or JSON. */
void fault_outcome_print(FILE *f, const struct fault_outcome *o, bool json);

/*
 * The drift line of fault id, whole (JSON only: text says it as warnings):
 * count reads that did not come back as found, said in drift.
 */
void fault_drift_print(FILE *f, unsigned id, bool reverted, unsigned count, const char *drift);

/*
 * The short line of fault id (JSON only: text says it as a warning): what
 * of its schedule a live fault did not run as written (a flap's cycle that
 * came late), so that a run grades its scenario invalid, not pass or fail.
 */
void fault_short_print(FILE *f, unsigned id, const char *short_of);

/* The counters line of fault id (JSON only: text says it as notes), c as counters.h makes it. */
void fault_counters_print(FILE *f, unsigned id, json_t *c);

/*
 * A counters line's counters, with "fault": its id; a new reference, or
 * NULL when line is not one.
 */
json_t *fault_counters_read(const char *line);

/*
 * The measured line of fault id (JSON only: text says it as notes): {"id",
 * "measured": m}, what its kind measured while it lasted (effect.h).
 */
void fault_measured_print(FILE *f, unsigned id, json_t *m);

/* A measured line's measures, with "fault": its id; a new reference, or NULL when not one. */
json_t *fault_measured_read(const char *line);

/*
 * A measured line's measures as a person reads them, a line each into b
 * ("PFC watchdog (pfcwd on, detection 200 ms, restoration 400 ms): tripped
 * by 0.25 s, gave the queue back by 0.91 s: pass"); nothing for measures it
 * does not know.
 */
void fault_measured_text(json_t *m, struct sbuf *b);

/*
 * A line the injector printed, into o: a verdict line sets its fields, a
 * drift line the drift's (adding to what o has).  0, or -EINVAL when it is
 * neither (not JSON, or no "outcome" and no "drift").
 */
int fault_outcome_read(const char *line, struct fault_outcome *o);

#endif
