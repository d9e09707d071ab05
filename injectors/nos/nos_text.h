/* SPDX-License-Identifier: MIT */
/*
 * What the NOS rooms' parsers share (readback.c, links.c): lines and words
 * of what a device printed, priority lists, canonical one-line summaries,
 * port states.  Private to injectors/nos/.
 */
#ifndef ROCELAB_NOS_TEXT_H
#define ROCELAB_NOS_TEXT_H

#include "harness/lib/inventory.h"
#include "injectors/nos/links.h"
#include "injectors/nos/readback.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define NOS_WORD_MAX 64

/* "3,4", "3-4", "3" (NVUE also writes ranges): a priority mask, or -1. */
int nos_prio_list(const char *s, size_t n);

/* The next line of *s (without its newline, trailing spaces trimmed), or NULL at the end. */
const char *nos_next_line(const char **s, size_t *n);

/* The first max words (space separated) of a line into w[], in one pass; how many. */
int nos_words(const char *l, size_t n, char w[][NOS_WORD_MAX], int max);

/* Is port one of the comma-separated names of list? */
bool nos_in_list(const char *list, const char *port);

/*
 * canon = head + items + tail; items that do not fit are cut, with an
 * FNV-1a hash of all of them, so that two readings still differ in canon
 * when they differ at all.
 */
void nos_canon_list(struct readback *rb, const char *head, const char *items, const char *tail);

/*
 * JSON a device printed in text[len] ('sonic-cfggen -d --var-json', 'dcb -j'):
 * nothing (blanks only) is an empty object; a new reference, NULL when it is
 * not JSON.
 */
json_t *nos_json_or_empty(const char *text, size_t len);

/* qsort's comparison of two strings (char *). */
int nos_cmp_str(const void *a, const void *b);

/* The count a PFC receive read found; canon names what was counted. */
int nos_pfc_rx_found(struct readback *rb, const char *port, int prio, unsigned long long n);

/* ---- port states (links.c) ---- */

/* The index of port name on sw, or -1. */
int nos_port_index(const struct inv_switch *sw, const char *name);

/* A port seen, up or not, in the NOS's own word ("?" when it gave none). */
void nos_port_set(struct port_state *st, const char *word, bool up);

#endif
