/* SPDX-License-Identifier: MIT */
/* Portable targets: an RNIC, a rail uplink, a spine port or a switch given by role, resolved
 * against an inventory with a seed. */
#ifndef ROCELAB_ROLES_H
#define ROCELAB_ROLES_H

#include "harness/lib/inventory.h"

#include <stdbool.h>
#include <stdint.h>

#define ROLE_NAME_MAX  72 /* "device:port", as fault targets */
#define ROLE_PICKS     32
#define ROLE_COUNT_ALL 0 /* count: all: every match (at most ROLE_PICKS), in inventory order */

/* What a selector asks for. */
enum role_kind {
	ROLE_RNIC,	  /* HOST:RNIC */
	ROLE_RAIL_UPLINK, /* RAIL:PORT, the rail (leaf, tor) end of a link to a spine */
	ROLE_SPINE_PORT,  /* SPINE:PORT, the spine end of a link to a rail (leaf, tor) switch */
	ROLE_SWITCH,	  /* SWITCH */
	ROLE_HOST,	  /* HOST, a whole host (host-down) */
};

/* Special values of the rail and host keys. */
enum {
	ROLE_ANY = -1,
	ROLE_OTHER = -2, /* not one picked before in this fault or load */
	ROLE_SAME = -3,	 /* host: the host of the RNIC picked just before */
	ROLE_FAULT = -4, /* the rail (host) of the scenario's first fault's target (RNIC) */
};

/* { role: rnic, host: same, rail: other, count: 6 } and the like; see role_parse(). */
struct role_sel {
	enum role_kind kind;
	int rail;	/* N >= 1 or ROLE_ANY, ROLE_OTHER, ROLE_FAULT */
	int host;	/* host index or ROLE_ANY, ROLE_SAME, ROLE_OTHER, ROLE_FAULT */
	int spine;	/* switch index or ROLE_ANY */
	int of;		/* enum inv_role of a switch, or ROLE_ANY */
	unsigned count; /* how many distinct ones: 1 .. ROLE_PICKS, or ROLE_COUNT_ALL */
};

/* What one fault or load has picked so far, for 'same' and 'other'. */
struct role_picks {
	size_t hosts[ROLE_PICKS];
	size_t n_hosts;
	int rails[ROLE_PICKS];
	size_t n_rails;
	int fault_rail; /* the rail of the first fault's target, 0: none */
	int fault_host; /* 1 + the host index of the first fault's target RNIC, 0: none */
};

/* Deterministic picks: the same seed and salt give the same targets on the same inventory. */
struct role_rng {
	uint64_t s;
};

void role_rng_init(struct role_rng *r, unsigned seed, const char *salt);

/* The next draw: uniform over 0 .. n-1 (n >= 1). */
unsigned role_rng_below(struct role_rng *r, unsigned n);

/* A selector asking for any one of kind. */
void role_sel_init(struct role_sel *s, enum role_kind kind);

/* The kind named by text ("rnic", "rail-uplink", "spine-port", "switch"); -EINVAL, why. */
int role_kind_parse(const char *text, enum role_kind *kind, char *why, size_t whylen);

/*
 * Set key (rail, host, spine, of, count) of s from text, checked against inv;
 * -EINVAL with what to write instead in why.  s->kind must be set first.
 */
int role_set(struct role_sel *s, const struct inventory *inv, const char *key, const char *text,
	     char *why, size_t whylen);

/* The selector as it would be written: "{ role: rnic, rail: other }". */
const char *role_format(const struct role_sel *s, const struct inventory *inv, char *buf,
			size_t len);

/*
 * Pick s->count distinct names matching s from inv with rng, among those
 * usable(name, arg) accepts (usable may be NULL), into out[0 .. s->count-1];
 * ROLE_COUNT_ALL: every one (at least one), out ended by an empty name when
 * fewer than ROLE_PICKS.
 * RNICs picked are noted in picks.  0, or -ENOENT with why (nothing or too
 * little matches; says what to loosen).
 */
int role_resolve(const struct inventory *inv, const struct role_sel *s, struct role_picks *picks,
		 struct role_rng *rng,
		 bool (*usable)(const char *name, void *arg, char *why, size_t whylen), void *arg,
		 char out[][ROLE_NAME_MAX], char *why, size_t whylen);

/* Note a name written literally (an RNIC counts for 'same' and 'other'). */
void role_note(const struct inventory *inv, struct role_picks *picks, const char *name);

/*
 * The rail a target is on: an RNIC's, a rail switch's, or the rail switch's
 * at the other end of a spine port; 0 when it has none.
 */
int role_rail_of(const struct inventory *inv, const char *target);

/* 1 + the host index of target when it is an RNIC (HOST:RNIC) or a whole HOST, else 0. */
int role_host_of(const struct inventory *inv, const char *target);

#endif
