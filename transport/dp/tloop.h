/* SPDX-License-Identifier: MIT */
/*
 * One event loop per endpoint: a timer wheel and the file descriptors to
 * wake on, waited for with epoll_pwait2() (a nanosecond timeout, so a timer
 * 200 µs away is not rounded to a millisecond).  No busy polling: the
 * kernel's softirqs share the machine's cores with it.
 */
#ifndef ROCELAB_TLOOP_H
#define ROCELAB_TLOOP_H

#include "transport/dp/twheel.h"

#include <signal.h>

#define TLOOP_FDS  4
#define TLOOP_TICK 16000 /* ns: the wheel's resolution */

struct tloop {
	int ep;
	struct twheel tw;
	struct {
		int fd;
		void (*fn)(void *ctx, uint64_t now);
		void *ctx;
	} fds[TLOOP_FDS];
	int nfds;
	bool done;			  /* a callback ends the loop */
	unsigned long long wakeups, busy; /* waits, and waits that found work */
};

/* CLOCK_MONOTONIC, ns: the clock the state machines and the wheel run on. */
uint64_t tloop_now(void);
int tloop_init(struct tloop *l);
void tloop_fini(struct tloop *l);
/* Call fn when fd is readable (or in error). */
int tloop_watch(struct tloop *l, int fd, void (*fn)(void *ctx, uint64_t now), void *ctx);
/* Run until a callback sets l->done or *stop is set (a signal); 0 or -errno. */
int tloop_run(struct tloop *l, const volatile sig_atomic_t *stop);

#endif
