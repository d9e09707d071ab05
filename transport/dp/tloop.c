// SPDX-License-Identifier: MIT
/* An endpoint's event loop: epoll_pwait2() on its sockets, a timer wheel for its deadlines. */
#define _GNU_SOURCE
#include "transport/dp/tloop.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

uint64_t tloop_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

int tloop_init(struct tloop *l)
{
	memset(l, 0, sizeof(*l));
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0)
		return -errno;
	tw_init(&l->tw, tloop_now(), TLOOP_TICK);
	return 0;
}

void tloop_fini(struct tloop *l)
{
	if (l->ep >= 0)
		close(l->ep);
	l->ep = -1;
}

int tloop_watch(struct tloop *l, int fd, void (*fn)(void *ctx, uint64_t now), void *ctx)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)l->nfds};

	if (l->nfds == TLOOP_FDS)
		return -ENOSPC;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	l->fds[l->nfds].fd = fd;
	l->fds[l->nfds].fn = fn;
	l->fds[l->nfds].ctx = ctx;
	l->nfds++;
	return 0;
}

int tloop_run(struct tloop *l, const volatile sig_atomic_t *stop)
{
	while (!l->done && !(stop && *stop)) {
		struct epoll_event ev[TLOOP_FDS];
		uint64_t now = tloop_now(), next;
		struct timespec to, *top = NULL;
		int n;

		tw_run(&l->tw, now);
		if (l->done)
			break;
		next = tw_next(&l->tw);
		if (next != TW_NEVER) {
			uint64_t d = next > now ? next - now : 0;

			to.tv_sec = (time_t)(d / 1000000000ULL);
			to.tv_nsec = (long)(d % 1000000000ULL);
			top = &to;
		}
		n = epoll_pwait2(l->ep, ev, TLOOP_FDS, top, NULL);
		l->wakeups++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		l->busy += n > 0;
		now = tloop_now();
		for (int i = 0; i < n; i++)
			l->fds[ev[i].data.u32].fn(l->fds[ev[i].data.u32].ctx, now);
	}
	return 0;
}
