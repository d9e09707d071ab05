// SPDX-License-Identifier: MIT
/*
 * Reading a device's state back: what every NOS's parsers share, and the
 * dispatch of a read's "PARSER ARG" to its NOS's parser (nos_ops.h).  The
 * parsers themselves are in the NOS's own room (linux.c, sonic.c, eos.c,
 * nvue.c); the unit tests feed them outputs in each NOS's format
 * (tests/injectors/readback_test.c).
 */
#define _GNU_SOURCE
#include "injectors/nos/readback.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/nos/nos_ops.h"
#include "injectors/nos/nos_text.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *readback_prios(unsigned mask, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int p = 0; p < 8; p++)
		if (mask & (1u << p) && used + 3 < len)
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", p);
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

bool readback_lossless(const struct readback *rb, int prio)
{
	return rb->pfc_on && (rb->lossless & (1u << prio));
}

/* "3,4", "3-4", "3" (NVUE also writes ranges): a priority mask, or -1. */
int nos_prio_list(const char *s, size_t n)
{
	unsigned mask = 0;
	size_t i = 0;

	while (i < n) {
		int lo, hi;

		if (!isdigit((unsigned char)s[i]))
			return -1;
		lo = hi = s[i++] - '0';
		if (i < n && s[i] == '-') {
			if (++i >= n || !isdigit((unsigned char)s[i]))
				return -1;
			hi = s[i++] - '0';
		}
		if (lo > 7 || hi > 7 || lo > hi)
			return -1;
		for (int p = lo; p <= hi; p++)
			mask |= 1u << p;
		if (i < n && s[i++] != ',')
			return -1;
	}
	return (int)mask;
}

/* The next line of *s (without its newline, trailing spaces trimmed), or NULL at the end. */
const char *nos_next_line(const char **s, size_t *n)
{
	const char *l = *s;

	if (!*l)
		return NULL;
	*n = strcspn(l, "\n");
	*s = l + *n + (l[*n] == '\n');
	while (*n && isspace((unsigned char)l[*n - 1]))
		(*n)--;
	return l;
}

/* The first max words (space separated) of a line into w[], in one pass; how many. */
int nos_words(const char *l, size_t n, char w[][NOS_WORD_MAX], int max)
{
	size_t i = 0;
	int k = 0;

	while (k < max) {
		size_t b;

		while (i < n && isspace((unsigned char)l[i]))
			i++;
		if (i >= n)
			break;
		b = i;
		while (i < n && !isspace((unsigned char)l[i]))
			i++;
		snprintf(w[k++], NOS_WORD_MAX, "%.*s", (int)(i - b), l + b);
	}
	return k;
}

/* Is port one of the comma-separated names of list? */
bool nos_in_list(const char *list, const char *port)
{
	size_t pl = strlen(port);

	for (const char *it = list; *it;) {
		size_t n = strcspn(it, ",");

		if (n == pl && !strncmp(it, port, n))
			return true;
		it += n + (it[n] == ',');
	}
	return false;
}

/*
 * canon = head + items + tail; items that do not fit are cut, with an
 * FNV-1a hash of all of them, so that two readings still differ in canon
 * when they differ at all.
 */
void nos_canon_list(struct readback *rb, const char *head, const char *items, const char *tail)
{
	size_t fixed = strlen(head) + strlen(tail), room = sizeof(rb->canon) - 1;
	uint32_t h = 2166136261u;

	if (fixed + strlen(items) <= room) {
		snprintf(rb->canon, sizeof(rb->canon), "%s%s%s", head, items, tail);
		return;
	}
	for (const char *c = items; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	snprintf(rb->canon, sizeof(rb->canon), "%s%.*s... (fnv %08x)%s", head,
		 (int)(room > fixed + 24 ? room - fixed - 24 : 0), items, h, tail);
}

bool readback_index_has(const char *key, int q)
{
	const char *ix = strrchr(key, '|');
	char *end;
	long lo, hi;

	ix = ix ? ix + 1 : key;
	lo = strtol(ix, &end, 10);
	if (end == ix || lo < 0)
		return false;
	hi = lo;
	if (*end == '-') {
		const char *h = end + 1;

		hi = strtol(h, &end, 10);
		if (end == h || hi < lo)
			return false;
	}
	return !*end && q >= lo && q <= hi;
}

json_t *nos_json_or_empty(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len && isspace((unsigned char)text[i]))
		i++;
	return i == len ? json_object() : json_loadb(text, len, 0, NULL);
}

int nos_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *readback_port_queue(const char *arg, char *port, size_t len)
{
	size_t pl = strcspn(arg, " ");

	snprintf(port, len, "%.*s", (int)pl, arg);
	return arg + pl + (arg[pl] == ' ');
}

/* The count a PFC receive read found; canon names what was counted. */
int nos_pfc_rx_found(struct readback *rb, const char *port, int prio, unsigned long long n)
{
	rb->packets = n;
	rb->counted = true;
	snprintf(rb->canon, sizeof(rb->canon), "%.64s: PFC frames received for priority %d", port,
		 prio);
	return 0;
}

/*
 * What a device printed becomes part of a command that restores it (a speed, an
 * alpha, a profile, an ECN line): on every NOS alike, only words a NOS writes pass,
 * [A-Za-z0-9 _.,:/=+-] (SONiC's also '|' and brackets); a quote, '$', '`', ';', '&',
 * a newline and the like are refused, however the parser of that NOS read them
 * (issue 56).
 */
static int undo_words_ok(const char *read_as, const struct readback *rb, char *err, size_t errlen)
{
	/*
	 * SONiC's references are "[TABLE|NAME]" on older images, written back
	 * quoted (render.h: nos_shell_word); no other NOS's words hold '|' or
	 * brackets, which its commands would carry as they are (a pipe, a glob)
	 */
	const char *ok = !strncmp(read_as, "sonic-", 6)
			     ? "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       " _.,:/|=+-[]"
			     : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       " _.,:/=+-";
	const struct {
		const char *what, *v;
	} f[] = {{"profile", rb->profile}, {"speed", rb->speed}, {"autoneg", rb->autoneg},
		 {"alpha", rb->alpha},	   {"ecn", rb->ecn},	 {"qdisc", rb->qdisc},
		 {"handle", rb->handle},   {"admin", rb->admin}, {"map", rb->map}};

	for (int i = 0; i < rb->n_ent; i++)
		if (strspn(rb->ent[i].key, ok) != strlen(rb->ent[i].key) ||
		    strspn(rb->ent[i].fields, ok) != strlen(rb->ent[i].fields)) {
			snprintf(err, errlen,
				 "the device's CONFIG_DB entry as read holds characters no command "
				 "may carry (not restored from it): check the device");
			return -EINVAL;
		}
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (strspn(f[i].v, ok) != strlen(f[i].v)) {
			snprintf(err, errlen,
				 "the device's %s as read holds characters no command may carry "
				 "(not restored from it): check the device",
				 f[i].what);
			return -EINVAL;
		}
	return 0;
}

int readback_parse(const char *read_as, const char *out, struct readback *rb, char *err,
		   size_t errlen)
{
	size_t k = strcspn(read_as, " ");

	memset(rb, 0, sizeof(*rb));
	for (int d = 0; d < INV_DIALECT_N; d++)
		for (const struct nos_parser *p = nos_ops_of((enum inv_dialect)d)->parsers; p->name;
		     p++)
			if (strlen(p->name) == k && !strncmp(read_as, p->name, k) &&
			    read_as[k] == ' ') {
				int r = p->parse(read_as + k + 1, out ? out : "", rb, err, errlen);

				return r ? r : undo_words_ok(read_as, rb, err, errlen);
			}
	snprintf(err, errlen, "no parser '%.*s' for a read-back (a journal from a newer rocelab?)",
		 (int)k, read_as);
	return -EINVAL;
}
