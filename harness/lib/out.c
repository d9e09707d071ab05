// SPDX-License-Identifier: MIT
/* The escaping writer behind every command's output: jansson builds and escapes the JSON. */
#define _GNU_SOURCE
#include "harness/lib/out.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>

void out_init(struct out *o, FILE *f, enum out_mode mode)
{
	*o = (struct out){.f = f, .mode = mode};
}

/* Put v under key in the innermost open container; at the top, it becomes that container. */
static void put(struct out *o, const char *key, json_t *v)
{
	json_t *top = o->depth ? o->stack[o->depth - 1] : NULL;

	if (!top)
		json_decref(v); /* a value outside any object: nothing to hold it */
	else if (json_is_array(top))
		json_array_append_new(top, v);
	else
		json_object_set_new(top, key ? key : "", v);
}

static void push(struct out *o, const char *key, json_t *c)
{
	if (!out_json(o) || o->depth == OUT_DEPTH) {
		json_decref(c);
		return;
	}
	if (o->depth)
		put(o, key, json_incref(c));
	o->stack[o->depth++] = c;
}

void out_open_object(struct out *o, const char *key)
{
	push(o, key, json_object());
}

void out_open_array(struct out *o, const char *key)
{
	push(o, key, json_array());
}

void out_close(struct out *o)
{
	json_t *c;

	if (!out_json(o) || !o->depth)
		return;
	c = o->stack[--o->depth];
	if (!o->depth) {
		size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) |
			       (o->mode == OUT_JSON_LINES ? JSON_COMPACT : JSON_INDENT(2));

		json_dumpf(c, o->f, flags);
		fputc('\n', o->f);
		fflush(o->f);
	}
	json_decref(c);
}

static void text(struct out *o, enum out_what w, const char *fmt, ...)
    __attribute__((format(printf, 3, 0)));

/* The format is the caller's, given with the value's own type: checked at each out_* call. */
static void text(struct out *o, enum out_what w, const char *fmt, ...)
{
	va_list ap;

	if (out_json(o) || !(w & PRINT_TEXT) || !fmt)
		return;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void out_string(struct out *o, enum out_what w, const char *key, const char *fmt, const char *v)
{
	if (out_json(o)) {
		if (w & PRINT_JSON)
			put(o, key, !v ? json_null() : json_string(v) ?: json_string("(not UTF-8)"));
		return;
	}
	text(o, w, fmt, v ? v : "");
}

void out_int(struct out *o, enum out_what w, const char *key, const char *fmt, long long v)
{
	if (out_json(o)) {
		if (w & PRINT_JSON)
			put(o, key, json_integer(v));
		return;
	}
	text(o, w, fmt, v);
}

void out_uint(struct out *o, enum out_what w, const char *key, const char *fmt,
	      unsigned long long v)
{
	if (out_json(o)) {
		if (w & PRINT_JSON)
			put(o, key, json_integer((json_int_t)v));
		return;
	}
	text(o, w, fmt, v);
}

void out_float(struct out *o, enum out_what w, const char *key, const char *fmt, int decimals,
	       double v)
{
	if (out_json(o)) {
		double p = pow(10, decimals);

		if (w & PRINT_JSON)
			put(o, key, isfinite(v) ? json_real(round(v * p) / p) : json_null());
		return;
	}
	text(o, w, fmt, v);
}

void out_bool(struct out *o, enum out_what w, const char *key, const char *fmt, bool v)
{
	if (out_json(o)) {
		if (w & PRINT_JSON)
			put(o, key, json_boolean(v));
		return;
	}
	text(o, w, fmt, v ? "true" : "false");
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (out_json(o))
		return;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}
#pragma GCC diagnostic pop

void out_null(struct out *o, const char *key)
{
	if (out_json(o))
		put(o, key, json_null());
}
