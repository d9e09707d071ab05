/* SPDX-License-Identifier: MIT */
/* A growable string: rendered commands and scripts, collected command output. */
#ifndef ROCELAB_SBUF_H
#define ROCELAB_SBUF_H

#include <stddef.h>

struct sbuf {
	char *p;
	size_t len, cap;
};

void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes of data (kept NUL-terminated). */
void sb_add(struct sbuf *b, const char *data, size_t n);
/* Append s as one single-quoted POSIX shell word (a quote in it as '\''). */
void sb_add_shell_word(struct sbuf *b, const char *s);
/* Take the string (never NULL); the sbuf is empty afterwards. free() it. */
char *sb_take(struct sbuf *b);
void sb_free(struct sbuf *b);

#endif
