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
/* "hostmesh, ..." */
const char *component_names(char *buf, size_t len);

#endif
