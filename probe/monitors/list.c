// SPDX-License-Identifier: MIT
/* The monitors' names (monitors.def): what both tables and the help texts list. */
#include "probe/monitors/monitors.h"

#include <string.h>

const struct mon_entry mon_list[] = {
#define MONITOR(n, about) {#n, about},
#include "probe/monitors/monitors.def"
#undef MONITOR
};
const size_t mon_count = sizeof(mon_list) / sizeof(mon_list[0]);

const char *mon_names(const char *sep, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < mon_count && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? sep : "", mon_list[i].name);
	return buf;
}

void mon_list_print(FILE *f)
{
	for (size_t i = 0; i < mon_count; i++)
		fprintf(f, "  %-11s %s\n", mon_list[i].name, mon_list[i].about);
}
