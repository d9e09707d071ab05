// SPDX-License-Identifier: MIT
#include "harness/lib/yamldoc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int fail(struct rl_yaml_err *e, yaml_mark_t m, const char *why, const char *ctx)
{
	e->line = (unsigned)m.line + 1;
	e->col = (unsigned)m.column + 1;
	snprintf(e->why, sizeof(e->why), "%.100s%s%.50s", why, ctx ? " " : "", ctx ? ctx : "");
	return -EINVAL;
}

static int syntax(struct rl_yaml_err *e, const yaml_parser_t *p)
{
	char why[sizeof(e->why)];

	snprintf(why, sizeof(why), "syntax error: %s", p->problem ? p->problem : "unknown");
	return fail(e, p->problem_mark, why, p->context);
}

/* The first pass: events only, nothing built; aliases and depth checked. */
static int screen(const char *text, size_t len, struct rl_yaml_err *e)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, r = 0;
	bool done = false;

	if (!yaml_parser_initialize(&p))
		return fail(e, (yaml_mark_t){0}, "out of memory starting libyaml", NULL);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done && !r) {
		if (!yaml_parser_parse(&p, &ev)) {
			r = syntax(e, &p);
			break;
		}
		switch (ev.type) {
		case YAML_ALIAS_EVENT: {
			char why[sizeof(e->why)];

			snprintf(why, sizeof(why),
				 "alias (*%.40s) refused: rocelab files take no aliases; write the "
				 "value out",
				 (const char *)ev.data.alias.anchor);
			r = fail(e, ev.start_mark, why, NULL);
			break;
		}
		case YAML_SCALAR_EVENT:
			/* "\0" in a quoted scalar: the value would end there, unseen */
			if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length))
				r = fail(e, ev.start_mark,
					 "a NUL character in this value refused: remove it", NULL);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > RL_YAML_MAX_DEPTH)
				r = fail(e, ev.start_mark, "nesting deeper than 32 levels refused",
					 NULL);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_DOCUMENT_END_EVENT: /* only the first document is read */
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return r;
}

int rl_yaml_load(const char *text, size_t len, yaml_document_t *doc, struct rl_yaml_err *e)
{
	yaml_parser_t p;
	int r = screen(text, len, e);

	if (r)
		return r;
	if (!yaml_parser_initialize(&p))
		return fail(e, (yaml_mark_t){0}, "out of memory starting libyaml", NULL);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, doc))
		r = syntax(e, &p);
	yaml_parser_delete(&p);
	return r;
}
