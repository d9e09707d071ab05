// SPDX-License-Identifier: MIT
/* The monitors' agents by name (monitors.def); apart from their analyzers (monitors.h). */
#include "probe/monitors/monitors.h"

#include <string.h>

#define MONITOR(n, about) extern const struct mon_agent n##_agent;
#include "probe/monitors/monitors.def"
#undef MONITOR

static const struct mon_agent *const agents[] = {
#define MONITOR(n, about) &n##_agent,
#include "probe/monitors/monitors.def"
#undef MONITOR
};

const struct mon_agent *mon_agent_find(const char *name)
{
	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++)
		if (!strcmp(agents[i]->name, name))
			return agents[i];
	return NULL;
}
