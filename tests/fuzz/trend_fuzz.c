// SPDX-License-Identifier: MIT
/*
 * History rows as the trend page draws them (reports/pages.c, pages_trend_write): the
 * first line is the scenario's name, the rest its rows (JSON).  The script gnuplot would
 * run holds no text of theirs as a command: it has as many quotes, backticks, '@', '$',
 * backslashes and lines as the script of a plain name over the same rows.
 */
#include "reports/pages.h"
#include "tests/fuzz/fuzz.h"

/* The script for name over rows, in a new buffer (free()). */
static char *script(const char *name, const json_t *rows)
{
	char *dat = NULL, *gp = NULL;
	size_t dl = 0, gl = 0;
	FILE *d = open_memstream(&dat, &dl), *g = open_memstream(&gp, &gl);

	if (!d || !g)
		abort();
	pages_trend_write(d, g, "x", name, rows);
	fclose(d);
	fclose(g);
	free(dat);
	return gp;
}

static size_t count(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *rows_text = strchr(text, '\n'), *a, *b;
	json_t *rows;

	if (!rows_text) {
		free(text);
		return 0;
	}
	*rows_text++ = '\0';
	rows = json_loads(rows_text, JSON_DECODE_ANY, NULL);
	a = script(text, rows);
	b = script("plain", rows);
	for (const char *c = "`'\"@$\\\n"; *c; c++)
		if (count(a, *c) != count(b, *c))
			abort(); /* the name or a row reached the script as more than text */
	free(a);
	free(b);
	json_decref(rows);
	free(text);
	return 0;
}
