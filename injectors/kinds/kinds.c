// SPDX-License-Identifier: MIT
/* The fault kinds by name: adding a kind is a file beside this one and a line below. */
#include "injectors/kinds/kinds.h"

#include "harness/lib/common.h"

#include <string.h>

static const struct fault_kind_ops *const kinds[] = {
    &fk_link_flap,	    &fk_acl_error,     &fk_pfc_misconfig,     &fk_ipid_drop,
    &fk_rnic_route_missing, &fk_link_degrade,  &fk_packet_corruption, &fk_pfc_storm,
    &fk_buffer_alpha,	    &fk_ecn_misconfig, &fk_host_down,	      &fk_cpu_hog,
};

const struct fault_kind_ops *fault_kind_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}

const struct fault_kind_ops *fault_kind_at(size_t i)
{
	return i < ARRAY_SIZE(kinds) ? kinds[i] : NULL;
}

const char *fault_kind_names(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(kinds) && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", kinds[i]->name);
	return buf;
}
