/* SPDX-License-Identifier: MIT */
/*
 * One print path for text and JSON, as iproute2's print_*(PRINT_ANY, ...):
 * each value is given once with its JSON key and its text format.  In JSON
 * mode values go into a jansson tree, so every string is escaped, and each
 * top-level object is written when it closes (one per line with
 * OUT_JSON_LINES, indented otherwise).  In text mode the formats print.
 */
#ifndef ROCELAB_OUT_H
#define ROCELAB_OUT_H

#include <stdbool.h>
#include <stdio.h>

enum out_what {
	PRINT_TEXT = 1, /* text mode only */
	PRINT_JSON = 2, /* JSON mode only */
	PRINT_ANY = 3,
};

enum out_mode { OUT_TEXT, OUT_JSON, OUT_JSON_LINES };

#define OUT_DEPTH 8

struct out {
	FILE *f;
	enum out_mode mode;
	void *stack[OUT_DEPTH]; /* json_t: the open objects and arrays */
	int depth;
};

void out_init(struct out *o, FILE *f, enum out_mode mode);
static inline bool out_json(const struct out *o)
{
	return o->mode != OUT_TEXT;
}

/* Objects and arrays exist in JSON only; key is NULL inside an array and at the top. */
void out_open_object(struct out *o, const char *key);
void out_open_array(struct out *o, const char *key);
/* Closing the outermost writes it (and a newline). */
void out_close(struct out *o);

/*
 * A value under key (JSON) and through fmt (text), which takes the value as
 * given: %s, %lld, %llu, %f, and %s for a bool ("true"/"false").  fmt NULL
 * prints nothing in text mode.
 */
void out_string(struct out *o, enum out_what w, const char *key, const char *fmt, const char *v);
void out_int(struct out *o, enum out_what w, const char *key, const char *fmt, long long v);
void out_uint(struct out *o, enum out_what w, const char *key, const char *fmt,
	      unsigned long long v);
/* JSON: v rounded to decimals places. */
void out_float(struct out *o, enum out_what w, const char *key, const char *fmt, int decimals,
	       double v);
void out_bool(struct out *o, enum out_what w, const char *key, const char *fmt, bool v);
void out_null(struct out *o, const char *key);

/* Text mode only: a line or a piece of one. */
void out_text(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
