// SPDX-License-Identifier: MIT
/* The one print path: text through the formats, JSON through an escaping writer. */
#define _GNU_SOURCE
#include "harness/lib/out.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* One record of a fault result, printed in the given mode; returns what was written. */
static char *record(enum out_mode mode, const char *target)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out o;

	out_init(&o, f, mode);
	out_open_object(&o, NULL);
	out_uint(&o, PRINT_ANY, "id", "fault %llu", 7);
	out_string(&o, PRINT_ANY, "target", " %s", target);
	out_float(&o, PRINT_ANY, "share", " %.2f", 3, 0.123456);
	out_bool(&o, PRINT_JSON, "emulated", NULL, true);
	out_open_array(&o, "window");
	out_float(&o, PRINT_JSON, NULL, NULL, 3, 1.5);
	out_float(&o, PRINT_JSON, NULL, NULL, 3, 2.0004);
	out_close(&o);
	out_open_object(&o, "net_us");
	out_int(&o, PRINT_JSON, "p50", NULL, -3);
	out_close(&o);
	out_null(&o, "address");
	out_text(&o, "\n");
	out_close(&o);
	fclose(f);
	return buf;
}

Test(out, text_uses_the_formats)
{
	char *s = record(OUT_TEXT, "rail1:swp1");

	cr_assert_str_eq(s, "fault 7 rail1:swp1 0.12\n");
	free(s);
}

Test(out, json_lines_is_one_compact_escaped_object)
{
	const char *nasty = "sw\"1\\\n\t<x>";
	char *s = record(OUT_JSON_LINES, nasty);
	json_error_t e;
	json_t *v;

	cr_assert_eq(strchr(s, '\n'), s + strlen(s) - 1, "one line: %s", s);
	v = json_loads(s, 0, &e);
	cr_assert_not_null(v, "not JSON: %s (%s)", s, e.text);
	cr_assert_str_eq(json_string_value(json_object_get(v, "target")), nasty);
	cr_assert_eq(json_integer_value(json_object_get(v, "id")), 7);
	cr_assert_float_eq(json_real_value(json_object_get(v, "share")), 0.123, 1e-12);
	cr_assert(json_is_true(json_object_get(v, "emulated")));
	cr_assert_float_eq(json_real_value(json_array_get(json_object_get(v, "window"), 1)), 2.0,
			   1e-12);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(v, "net_us"), "p50")), -3);
	cr_assert(json_is_null(json_object_get(v, "address")));
	cr_assert_null(strstr(s, "0.12300000"), "rounded, not %s", s);
	json_decref(v);
	free(s);
}

Test(out, json_keeps_key_order_and_indents)
{
	char *s = record(OUT_JSON, "a");

	cr_assert(strstr(s, "{\n  \"id\": 7,\n  \"target\": \"a\""), "%s", s);
	free(s);
}
