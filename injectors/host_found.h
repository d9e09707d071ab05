/* SPDX-License-Identifier: MIT */
/*
 * Rules and routes as found on a host ('ip -j rule', 'ip -j route'), as the
 * iproute2 commands that delete them and put them back exactly as found.
 * For labs whose routing rocelab did not lay out itself.
 */
#ifndef ROCELAB_HOST_FOUND_H
#define ROCELAB_HOST_FOUND_H

#include "harness/lib/sbuf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The keys of 'ip -j rule' and 'ip -j route' objects that the commands below restore. */
extern const char *const host_rule_keys[], *const host_route_keys[];

/* A value of o (integer or string) that can stand as one word of a command; NULL if not. */
const char *host_found_word(json_t *o, const char *key, char *buf, size_t len);

/* true when o has only known keys; else false with the first other key in bad. */
bool host_found_keys(json_t *o, const char *const *known, char *bad, size_t len);

/* "ip rule VERB ..." selecting found rule r into b; -EINVAL if a value cannot be a word. */
int host_rule_cmd(json_t *r, const char *verb, struct sbuf *b);

/* What a route command does: false and true (del, add) read as before. */
enum host_route_verb { HOST_ROUTE_DEL, HOST_ROUTE_ADD, HOST_ROUTE_REPLACE };

/*
 * "ip [-6] route add|del|replace DST table TBL ..." for found route r of
 * table tbl into b: a delete names the route (destination, gateway, device,
 * metric), an add or a replace (idempotent: an undo's) restores it (protocol,
 * scope, source, preference, onlink too).
 */
int host_route_cmd(json_t *r, const char *tbl, bool v6, enum host_route_verb verb, struct sbuf *b);

/*
 * Does a device's management path run through one of names[0, n) (netdevs
 * or ports a fault is about to take down)?  addrs: its 'ip -j addr show'
 * (the management address mgmt held by one of them); route: its 'ip -j route
 * get CONTROLLER from MGMT' (the device its answers to this controller leave
 * by), or NULL when not asked.  The name it runs through, or NULL.
 */
const char *host_mgmt_through(json_t *addrs, json_t *route, const char *mgmt,
			      const char *const *names, size_t n);

#endif
