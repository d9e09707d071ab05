/* SPDX-License-Identifier: MIT */
/*
 * A binary min-heap of (a, b) index pairs by a time the caller keeps
 * (key()), ties broken by a then b: the order a scan of a[] then b[] that
 * keeps the first smallest would meet them.  What is due first is its
 * root, found in O(1) and kept in O(log n), where a scan of every entry
 * (R-Pingmesh's 5-tuples to trace: thousands an agent) costs O(n) each
 * time.  An entry's key may change only while it is out of the heap
 * (popped, then pushed back), or for all of them before dh_build().
 */
#ifndef ROCELAB_DUEHEAP_H
#define ROCELAB_DUEHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dh_ent {
	uint32_t a, b;
};

struct dueheap {
	struct dh_ent *h;
	size_t n, cap;
	unsigned long long (*key)(const void *ctx, struct dh_ent e);
	const void *ctx;
};

void dh_init(struct dueheap *d, unsigned long long (*key)(const void *, struct dh_ent),
	     const void *ctx);
/* The heap of e[0..n) (copied), in O(n). */
void dh_build(struct dueheap *d, const struct dh_ent *e, size_t n);
/* Takes e in; room grows as needed. */
void dh_push(struct dueheap *d, struct dh_ent e);
/* The root out (d->n > 0). */
struct dh_ent dh_pop(struct dueheap *d);
void dh_free(struct dueheap *d);

#endif
