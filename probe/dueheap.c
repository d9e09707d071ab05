// SPDX-License-Identifier: MIT
/* The due-time heap (dueheap.h). */
#include "probe/dueheap.h"

#include "harness/lib/common.h"

#include <stdlib.h>
#include <string.h>

static bool before(const struct dueheap *d, struct dh_ent e, struct dh_ent f)
{
	unsigned long long x = d->key(d->ctx, e), y = d->key(d->ctx, f);

	return x != y ? x < y : e.a != f.a ? e.a < f.a : e.b < f.b;
}

static void down(struct dueheap *d, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct dh_ent x;

		if (l < d->n && before(d, d->h[l], d->h[m]))
			m = l;
		if (l + 1 < d->n && before(d, d->h[l + 1], d->h[m]))
			m = l + 1;
		if (m == i)
			return;
		x = d->h[i], d->h[i] = d->h[m], d->h[m] = x;
		i = m;
	}
}

void dh_init(struct dueheap *d, unsigned long long (*key)(const void *, struct dh_ent),
	     const void *ctx)
{
	*d = (struct dueheap){.key = key, .ctx = ctx};
}

void dh_build(struct dueheap *d, const struct dh_ent *e, size_t n)
{
	if (n > d->cap) {
		free(d->h);
		d->h = rl_xcalloc(n, sizeof(*d->h));
		d->cap = n;
	}
	if (n)
		memcpy(d->h, e, n * sizeof(*e));
	d->n = n;
	for (size_t i = n / 2; i-- > 0;)
		down(d, i);
}

void dh_push(struct dueheap *d, struct dh_ent e)
{
	size_t i;

	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->h = rl_xrealloc(d->h, d->cap, sizeof(*d->h));
	}
	i = d->n++;
	while (i && before(d, e, d->h[(i - 1) / 2])) {
		d->h[i] = d->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	d->h[i] = e;
}

struct dh_ent dh_pop(struct dueheap *d)
{
	struct dh_ent top = d->h[0];

	d->h[0] = d->h[--d->n];
	down(d, 0);
	return top;
}

void dh_free(struct dueheap *d)
{
	free(d->h);
	d->h = NULL;
	d->n = d->cap = 0;
}
