/* SPDX-License-Identifier: MIT */
/* The registry of components under test, by name. */
#ifndef ROCELAB_REGISTRY_H
#define ROCELAB_REGISTRY_H

#include "harness/component/component.h"

#include <errno.h>
#include <stddef.h>

/* Components a rocelab can know at once (so a scenario names at most this many). */
#define COMPONENTS_MAX 16

/* Add a component (tests add their own); -EEXIST for another one of that name. */
int component_register(const struct component_ops *ops);
const struct component_ops *component_find(const char *name);
/* The i-th registered component, or NULL past the last. */
const struct component_ops *component_at(size_t i);
/*
 * What a monitor (a component with probe_pairs) can tell apart on inv with cfg
 * (NULL: its defaults) and seed: a new observe (observe_free()), the pairs it
 * probes in *n_pairs; NULL with errno (EOPNOTSUPP: not a monitor).
 */
struct observe;
struct observe *component_observe(const struct component_ops *ops, const void *cfg,
				  const struct inventory *inv, unsigned seed, size_t *n_pairs);
/*
 * ops's profile name over cfg (its parameters set as the profile gives
 * them): 0; -ENOENT when it has no such profile, -EINVAL for a profile entry
 * that is not its parameter (a bug of the program's own), why said in why.
 */
int component_profile_apply(const struct component_ops *ops, void *cfg, const char *name, char *why,
			    size_t len);
/* "hostmesh, ..." */
const char *component_names(char *buf, size_t len);

#endif
