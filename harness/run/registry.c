// SPDX-License-Identifier: MIT
/*
 * The components under test, by name.  A new component is its folder and one
 * line here; tests register their own with component_register().
 */
#include "harness/run/registry.h"

#include "probe/hostmesh/component.h"
#include "probe/rpingmesh/component.h"
#include "transport/mpr_comp.h"

#include <stdio.h>
#include <string.h>

static const struct component_ops *table[COMPONENTS_MAX] = {
    &hostmesh_component,
    &rpingmesh_component,
    &mprdma_component,
    &eunomia_component,
};

int component_register(const struct component_ops *ops)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i] && !strcmp(table[i]->name, ops->name))
			return table[i] == ops ? 0 : -EEXIST;
		if (!table[i]) {
			table[i] = ops;
			return 0;
		}
	}
	return -ENOSPC;
}

const struct component_ops *component_find(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && table[i]; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

const char *component_names(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && table[i] && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", table[i]->name);
	return buf;
}
