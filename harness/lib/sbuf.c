// SPDX-License-Identifier: MIT
/* Growable string for commands, scripts and collected output. */
#define _GNU_SOURCE
#include "harness/lib/sbuf.h"

#include "harness/lib/common.h"

#include <stdlib.h>
#include <string.h>

static void reserve(struct sbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = rl_xrealloc(b->p, b->cap, 1);
	}
}

void sb_add(struct sbuf *b, const char *data, size_t n)
{
	reserve(b, n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *sb_take(struct sbuf *b)
{
	char *s = b->p ? b->p : rl_xstrdup("");

	b->p = NULL;
	b->len = b->cap = 0;
	return s;
}

void sb_free(struct sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void sb_add_shell_word(struct sbuf *b, const char *s)
{
	sb_add(b, "'", 1);
	for (; *s; s++)
		if (*s == '\'')
			sb_add(b, "'\\''", 4);
		else
			sb_add(b, s, 1);
	sb_add(b, "'", 1);
}
