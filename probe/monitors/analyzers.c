// SPDX-License-Identifier: MIT
/* The monitors' analyzers by name (monitors.def); apart from their agents (monitors.h). */
#include "probe/monitors/monitors.h"

#include <string.h>

#define MONITOR(n, about) extern const struct mon_analyzer n##_analyzer;
#include "probe/monitors/monitors.def"
#undef MONITOR

static const struct mon_analyzer *const analyzers[] = {
#define MONITOR(n, about) &n##_analyzer,
#include "probe/monitors/monitors.def"
#undef MONITOR
};

const struct mon_analyzer *mon_analyzer_find(const char *name)
{
	for (size_t i = 0; i < sizeof(analyzers) / sizeof(analyzers[0]); i++)
		if (!strcmp(analyzers[i]->name, name))
			return analyzers[i];
	return NULL;
}
