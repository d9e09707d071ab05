/* SPDX-License-Identifier: MIT */
/* Named network namespaces (iproute2-compatible, /run/netns) and a netlink socket inside each. */
#ifndef ROCELAB_NETNS_H
#define ROCELAB_NETNS_H

#include <stdbool.h>

#define NETNS_RUN_DIR "/run/netns"
#define NETNS_PREFIX  "rl-" /* every namespace rocelab creates starts with this */

struct nl_sock;

/* A namespace rocelab works in: its fd and a route netlink socket opened inside it. */
struct nsctx {
	char name[64]; /* "" for the namespace rocelab was started in */
	int fd;
	struct nl_sock *sk;
};

/* Create the named namespace (fails with -EEXIST if it is there). */
int netns_add(const char *name);
/* Remove the name (the namespace dies with its last user); 0 if it was absent. */
int netns_del(const char *name);
bool netns_exists(const char *name);

/* Open a context in the named namespace (NULL or "" = the current one). */
int nsctx_open(struct nsctx *c, const char *name);
void nsctx_close(struct nsctx *c);

/*
 * Enter c's namespace in this thread; *saved receives a fd of the namespace
 * left behind, to give back to netns_leave().
 */
int netns_enter(const struct nsctx *c, int *saved);
int netns_enter_name(const char *name, int *saved);
void netns_leave(int saved);

/* Write a sysctl ("net/ipv4/ip_forward") inside c's namespace. */
int netns_sysctl(const struct nsctx *c, const char *key, const char *value);

#endif
