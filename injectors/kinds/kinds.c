// SPDX-License-Identifier: MIT
/* The fault kinds by name, from the list in kinds.def. */
#include "injectors/kinds/kinds.h"

#include "harness/lib/common.h"

#include <string.h>

static const struct fault_kind_ops *const kinds[] = {
#define FAULT_KIND(id) &fk_##id,
#include "injectors/kinds/kinds.def"
#undef FAULT_KIND
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
