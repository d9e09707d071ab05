// SPDX-License-Identifier: MIT
/* Verdicts and metrics, the typed interface between components and the grader. */
#define _GNU_SOURCE
#include "harness/component/component.h"

#include "harness/lib/common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The verdict's keys, written and read here only. */
#define K_TIME	  "time"
#define K_EMITTED "emitted"
#define K_WINDOW  "window"
#define K_CLASS	  "class"
#define K_TARGET  "target"
#define K_VOTES	  "votes"
#define K_SUSP	  "suspects"
#define K_GOOD	  "good"

static int copy_str(const json_t *o, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s || strlen(s) >= len)
		return -EINVAL;
	strcpy(buf, s);
	return 0;
}

int verdict_from_json(const json_t *o, struct verdict *v)
{
	const json_t *w = json_object_get(o, K_WINDOW), *sus = json_object_get(o, K_SUSP), *e;
	size_t i;

	memset(v, 0, sizeof(*v));
	if (!json_is_object(o) || !json_is_array(w) || json_array_size(w) != 2 ||
	    copy_str(o, K_CLASS, v->cls, sizeof(v->cls)) ||
	    copy_str(o, K_TARGET, v->target, sizeof(v->target)))
		return -EINVAL;
	v->win[0] = json_number_value(json_array_get(w, 0));
	v->win[1] = json_number_value(json_array_get(w, 1));
	v->time = json_is_number(json_object_get(o, K_TIME))
		      ? json_number_value(json_object_get(o, K_TIME))
		      : v->win[1];
	v->emitted = json_number_value(json_object_get(o, K_EMITTED));
	v->votes = json_integer_value(json_object_get(o, K_VOTES));
	json_array_foreach(sus, i, e)
	{
		struct suspect *s = &v->sus[v->n_sus];

		if (v->n_sus == VERDICT_SUSPECTS)
			break;
		if (copy_str(e, K_TARGET, s->target, sizeof(s->target)))
			return -EINVAL;
		s->votes = json_integer_value(json_object_get(e, K_VOTES));
		s->good = json_integer_value(json_object_get(e, K_GOOD));
		v->n_sus++;
	}
	return 0;
}

json_t *verdict_to_json(const struct verdict *v)
{
	json_t *o = json_object(), *sus = json_array();

	json_object_set_new(o, K_TIME, json_real(v->time));
	if (v->emitted > 0)
		json_object_set_new(o, K_EMITTED, json_real(v->emitted));
	json_object_set_new(o, K_WINDOW, json_pack("[f,f]", v->win[0], v->win[1]));
	json_object_set_new(o, K_CLASS, json_string(v->cls));
	json_object_set_new(o, K_TARGET, json_string(v->target));
	json_object_set_new(o, K_VOTES, json_integer(v->votes));
	for (size_t i = 0; i < v->n_sus; i++)
		json_array_append_new(sus, json_pack("{s:s,s:I,s:I}", K_TARGET, v->sus[i].target,
						     K_VOTES, (json_int_t)v->sus[i].votes, K_GOOD,
						     (json_int_t)v->sus[i].good));
	json_object_set_new(o, K_SUSP, sus);
	return o;
}

void comp_obs_clear(struct comp_obs *o)
{
	free(o->verdicts);
	free(o->metrics);
	json_decref(o->section);
	memset(o, 0, sizeof(*o));
}

struct verdict *comp_obs_verdict(struct comp_obs *o)
{
	return RL_PUSH(o->verdicts, o->n_verdicts); /* zeroed */
}

void comp_obs_metric(struct comp_obs *o, const char *name, double value, const char *unit)
{
	struct metric *m = RL_PUSH(o->metrics, o->n_metrics);

	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
}
