// SPDX-License-Identifier: MIT
/* The run's fault to its injector and the injector's word back: one schema (handoff.h). */
#define _GNU_SOURCE
#include "injectors/cmd/handoff.h"

#include "harness/lib/sbuf.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"
#include "injectors/kinds/kinds.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

char *fault_handoff_write(const struct fault_spec *s)
{
	json_t *o = json_object(), *opts = json_object();
	struct fault_spec d;
	char v[OPT_VALUE_MAX], dv[OPT_VALUE_MAX], *line = NULL, *text;

	fault_spec_init(&d, s->kind);
	json_object_set_new(o, "schema", json_integer(FAULT_HANDOFF_SCHEMA));
	json_object_set_new(o, "kind", json_string(s->kind->name));
	json_object_set_new(o, "target", json_string(s->target));
	json_object_set_new(o, "hold", json_boolean(s->hold));
	json_object_set_new(o, "all_ports", json_boolean(s->all_ports));
	json_object_set_new(o, "for_ms", json_integer(s->for_ms));
	if (s->hold_ms)
		json_object_set_new(o, "hold_ms", json_integer(s->hold_ms));
	if (s->deadman_ms)
		json_object_set_new(o, "deadman_ms", json_integer(s->deadman_ms));
	/* the kind's own options that differ from its defaults, as its table writes them */
	for (const struct opt_desc *t = s->kind->opts; t->type != OPT_END; t++) {
		if (strlen(opt_value(t, s->opts, v, sizeof(v))) + 1 >= sizeof(v))
			goto out;
		if (strcmp(v, opt_value(t, d.opts, dv, sizeof(dv))))
			json_object_set_new(opts, t->name, json_string(v));
	}
	json_object_set(o, "options", opts);
	text = json_dumps(o, JSON_COMPACT);
	if (text && asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	free(text);
out:
	json_decref(opts);
	json_decref(o);
	return line;
}

int fault_handoff_read(const char *line, struct fault_spec *s, char *why, size_t whylen)
{
	json_error_t je;
	json_t *o = json_loads(line, JSON_DISABLE_EOF_CHECK, &je), *opts, *v;
	const struct fault_kind_ops *k;
	const char *name, *str;
	int r = -EINVAL;

	if (!json_is_object(o)) {
		snprintf(why, whylen, "the handoff is not a JSON object: %s", o ? "" : je.text);
		goto out;
	}
	if (json_integer_value(json_object_get(o, "schema")) != FAULT_HANDOFF_SCHEMA) {
		snprintf(why, whylen,
			 "the handoff is not of schema %d (a rocelab of another version?)",
			 FAULT_HANDOFF_SCHEMA);
		goto out;
	}
	if (!(str = json_string_value(json_object_get(o, "kind"))) || !(k = fault_kind_find(str))) {
		snprintf(why, whylen, "the handoff names no fault kind rocelab has");
		goto out;
	}
	fault_spec_init(s, k);
	if (!(str = json_string_value(json_object_get(o, "target")))) {
		snprintf(why, whylen, "the handoff gives no target");
		goto out;
	}
	if (fault_spec_set(s, "target", str, why, whylen))
		goto out;
	s->hold = json_is_true(json_object_get(o, "hold"));
	s->all_ports = json_is_true(json_object_get(o, "all_ports"));
	s->for_ms = json_integer_value(json_object_get(o, "for_ms"));
	/* 0: not given; else within the bound 'for' has as an option */
	if (s->for_ms < 0 || s->for_ms > opt_find(fault_common_opts, "for")->hi) {
		snprintf(why, whylen, "the handoff's for_ms %lld is not a duration", s->for_ms);
		goto out;
	}
	s->hold_ms = json_integer_value(json_object_get(o, "hold_ms"));
	if (s->hold_ms < 0 || s->hold_ms > opt_find(fault_common_opts, "for")->hi ||
	    (s->hold_ms && !s->hold)) {
		snprintf(why, whylen, "the handoff's hold_ms %lld is not a held fault's duration",
			 s->hold_ms);
		goto out;
	}
	s->deadman_ms = json_integer_value(json_object_get(o, "deadman_ms"));
	if (s->deadman_ms && (s->deadman_ms < opt_find(fault_common_opts, "deadman")->lo ||
			      s->deadman_ms > opt_find(fault_common_opts, "deadman")->hi)) {
		snprintf(why, whylen, "the handoff's deadman_ms %lld is not a lease rocelab takes",
			 s->deadman_ms);
		goto out;
	}
	opts = json_object_get(o, "options");
	if (opts && !json_is_object(opts)) {
		snprintf(why, whylen, "the handoff's options are not an object");
		goto out;
	}
	json_object_foreach(opts, name, v)
	{
		if (!opt_find(k->opts, name)) { /* the kind's own: the common ones are above */
			snprintf(why, whylen, "%s has no option '%s'", k->name, name);
			goto out;
		}
		if (!json_is_string(v)) {
			snprintf(why, whylen, "the handoff's option '%s' is not text", name);
			goto out;
		}
		if (fault_spec_set(s, name, json_string_value(v), why, whylen))
			goto out;
	}
	r = fault_spec_check(s, why, whylen);
out:
	json_decref(o);
	return r;
}

void fault_outcome_print(FILE *f, const struct fault_outcome *v, bool json)
{
	struct out o;

	out_init(&o, f, json ? OUT_JSON_LINES : OUT_TEXT);
	out_open_object(&o, NULL);
	out_uint(&o, PRINT_ANY, "id", "fault %llu", v->id);
	out_string(&o, PRINT_ANY, "kind", " %s", v->kind);
	out_string(&o, PRINT_ANY, "target", " %s", v->target);
	out_string(&o, PRINT_ANY, "outcome", ": %s", v->outcome);
	if (v->applied_at > 0)
		out_float(&o, PRINT_JSON, "applied_at", NULL, 6, v->applied_at);
	out_string(&o, PRINT_ANY, "evidence", " (%s)\n", v->evidence);
	out_bool(&o, PRINT_JSON, "emulated", NULL, v->emulated);
	if (v->note[0])
		out_string(&o, PRINT_ANY, "note", "  %s\n", v->note);
	out_close(&o);
	fflush(f);
}

void fault_drift_print(FILE *f, unsigned id, bool reverted, unsigned count, const char *drift)
{
	struct out o;

	out_init(&o, f, OUT_JSON_LINES);
	out_open_object(&o, NULL);
	out_uint(&o, PRINT_JSON, "id", NULL, id);
	out_bool(&o, PRINT_JSON, "reverted", NULL, reverted);
	out_uint(&o, PRINT_JSON, "drift_count", NULL, count);
	out_string(&o, PRINT_JSON, "drift", NULL, drift);
	out_close(&o);
	fflush(f);
}

void fault_short_print(FILE *f, unsigned id, const char *short_of)
{
	struct out o;

	out_init(&o, f, OUT_JSON_LINES);
	out_open_object(&o, NULL);
	out_uint(&o, PRINT_JSON, "id", NULL, id);
	out_string(&o, PRINT_JSON, "short", NULL, short_of);
	out_close(&o);
	fflush(f);
}

/* {"id": id, key: v} as a line of its own. */
static void id_line_print(FILE *f, unsigned id, const char *key, json_t *v)
{
	json_t *o = json_pack("{s:I, s:O}", "id", (json_int_t)id, key, v);

	json_dumpf(o, f, JSON_COMPACT);
	fputc('\n', f);
	fflush(f);
	json_decref(o);
}

/*
 * Such a line's key object (with member must an object too, when given),
 * with "fault": its id; a new reference, or NULL when line is not one.
 */
static json_t *id_line_read(const char *line, const char *key, const char *must)
{
	json_t *o = json_loads(line, JSON_DISABLE_EOF_CHECK, NULL), *v = json_object_get(o, key),
	       *r = NULL;

	if (json_is_object(v) && (!must || json_is_object(json_object_get(v, must))) &&
	    json_is_integer(json_object_get(o, "id"))) {
		r = json_deep_copy(v);
		json_object_set(r, "fault", json_object_get(o, "id"));
	}
	json_decref(o);
	return r;
}

void fault_counters_print(FILE *f, unsigned id, json_t *c)
{
	id_line_print(f, id, "counters", c);
}

json_t *fault_counters_read(const char *line)
{
	return id_line_read(line, "counters", "deltas");
}

void fault_measured_print(FILE *f, unsigned id, json_t *m)
{
	id_line_print(f, id, "measured", m);
}

json_t *fault_measured_read(const char *line)
{
	return id_line_read(line, "measured", NULL);
}

/* ", DID by N s" of a bound key of wd ("tripped_by_s"), or ", did not DO" when it is null. */
static void wd_bound(struct sbuf *b, json_t *wd, const char *key, const char *did, const char *to)
{
	json_t *v = json_object_get(wd, key);

	if (json_is_number(v))
		sb_printf(b, ", %s by %.2f s", did, json_number_value(v));
	else
		sb_printf(b, ", did not %s", to);
}

void fault_measured_text(json_t *m, struct sbuf *b)
{
	json_t *wd = json_object_get(m, "pfcwd"), *why = json_object_get(wd, "why");
	const char *mode = json_string_value(json_object_get(wd, "mode"));

	if (!mode)
		return;
	sb_printf(b, "PFC watchdog (pfcwd %s, detection %lld ms", mode,
		  (long long)json_integer_value(json_object_get(wd, "detection_ms")));
	if (json_object_get(wd, "restoration_ms"))
		sb_printf(b, ", restoration %lld ms",
			  (long long)json_integer_value(json_object_get(wd, "restoration_ms")));
	sb_printf(b, ")");
	if (json_object_get(wd, "tripped_by_s")) /* none: not read (EOS) */
		wd_bound(b, wd, "tripped_by_s", "tripped", "trip");
	if (json_object_get(wd, "restored_after_s"))
		wd_bound(b, wd, "restored_by_s", "gave the queue back", "give the queue back");
	sb_printf(b, ": %s%s%s\n", json_string_value(json_object_get(wd, "grade")) ?: "?",
		  why ? ": " : "", why ? json_string_value(why) : "");
}

static void text(json_t *o, const char *key, char *buf, size_t len)
{
	const char *v = json_string_value(json_object_get(o, key));

	if (v)
		snprintf(buf, len, "%s", v);
}

int fault_outcome_read(const char *line, struct fault_outcome *v)
{
	json_t *o = json_loads(line, JSON_DISABLE_EOF_CHECK, NULL);
	int r = 0;

	if (json_is_string(json_object_get(o, "outcome"))) {
		v->id = (unsigned)json_integer_value(json_object_get(o, "id"));
		text(o, "kind", v->kind, sizeof(v->kind));
		text(o, "target", v->target, sizeof(v->target));
		text(o, "outcome", v->outcome, sizeof(v->outcome));
		v->applied_at = json_number_value(json_object_get(o, "applied_at"));
		text(o, "evidence", v->evidence, sizeof(v->evidence));
		v->emulated = json_is_true(json_object_get(o, "emulated"));
		text(o, "note", v->note, sizeof(v->note));
	} else if (json_is_string(json_object_get(o, "drift"))) {
		const char *d = json_string_value(json_object_get(o, "drift"));
		size_t at = strlen(v->drift);

		v->drift_said = true;
		v->reverted = json_is_true(json_object_get(o, "reverted"));
		v->drift_count += (unsigned)json_integer_value(json_object_get(o, "drift_count"));
		if (d[0])
			snprintf(v->drift + at, sizeof(v->drift) - at, "%s%s", at ? "; " : "", d);
	} else if (json_is_string(json_object_get(o, "short"))) {
		text(o, "short", v->short_of, sizeof(v->short_of));
	} else {
		r = -EINVAL;
	}
	json_decref(o);
	return r;
}
