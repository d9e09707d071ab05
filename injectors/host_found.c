// SPDX-License-Identifier: MIT
/* Rules and routes found on a host, as the iproute2 commands that delete and restore them. */
#define _GNU_SOURCE
#include "injectors/host_found.h"

#include "harness/lib/common.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

const char *const host_rule_keys[] = {"priority", "src",      "srclen", "iif",	 "oif",
				      "fwmark",	  "protocol", "table",	"flags", NULL};
const char *const host_route_keys[] = {"dst",	 "gateway", "dev",  "protocol", "scope", "prefsrc",
				       "metric", "flags",   "type", "table",	"pref",	 NULL};

const char *host_found_word(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);
	const char *p;

	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else
		return NULL;
	for (p = buf; *p && (isalnum((unsigned char)*p) || strchr(".:/_-", *p)); p++)
		;
	return *p || !buf[0] ? NULL : buf;
}

bool host_found_keys(json_t *o, const char *const *known, char *bad, size_t len)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
	{
		size_t i;

		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (!known[i]) {
			snprintf(bad, len, "%s", k);
			return false;
		}
	}
	return true;
}

int host_rule_cmd(json_t *r, const char *verb, struct sbuf *b)
{
	static const char *const sel[][2] = {{"src", "from"},	    {"iif", "iif"},
					     {"oif", "oif"},	    {"fwmark", "fwmark"},
					     {"protocol", "proto"}, {"table", "table"}};
	char v[64], len[16];

	if (!host_found_word(r, "priority", v, sizeof(v)))
		return -EINVAL;
	sb_printf(b, "ip rule %s pref %s", verb, v);
	for (size_t i = 0; i < ARRAY_SIZE(sel); i++) {
		if (!json_object_get(r, sel[i][0]))
			continue;
		if (!host_found_word(r, sel[i][0], v, sizeof(v)))
			return -EINVAL;
		sb_printf(b, " %s %s", sel[i][1], v);
		if (!strcmp(sel[i][0], "src") && host_found_word(r, "srclen", len, sizeof(len)))
			sb_printf(b, "/%s", len);
	}
	return 0;
}

/* The one route flag a user sets; the others ("linkdown", "offload", ...) are state. */
static bool onlink(json_t *r)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(r, "flags"), i, f)
	{
		if (json_is_string(f) && !strcmp(json_string_value(f), "onlink"))
			return true;
	}
	return false;
}

int host_route_cmd(json_t *r, const char *tbl, bool v6, enum host_route_verb verb, struct sbuf *b)
{
	static const char *const verbs[] = {"del", "add", "replace"};
	bool add = verb != HOST_ROUTE_DEL;
	static const char *const opt[][2] = {
	    {"gateway", "via"}, {"dev", "dev"},	    {"metric", "metric"}, {"protocol", "proto"},
	    {"scope", "scope"}, {"prefsrc", "src"}, {"pref", "pref"}};
	char v[64];

	if (!host_found_word(r, "dst", v, sizeof(v)))
		return -EINVAL;
	sb_printf(b, "ip%s route %s %s table %s", v6 ? " -6" : "", verbs[verb], v, tbl);
	/* A delete names the route only: destination, gateway, device, metric. */
	for (size_t i = 0; i < (add ? ARRAY_SIZE(opt) : 3); i++) {
		if (!json_object_get(r, opt[i][0]))
			continue;
		if (!host_found_word(r, opt[i][0], v, sizeof(v)))
			return -EINVAL;
		sb_printf(b, " %s %s", opt[i][1], v);
	}
	if (add && onlink(r))
		sb_printf(b, " onlink");
	return 0;
}

/* names[i] equal to s, or NULL. */
static const char *among(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return names[i];
	return NULL;
}

const char *host_mgmt_through(json_t *addrs, json_t *route, const char *mgmt,
			      const char *const *names, size_t n)
{
	json_t *first = json_array_get(route, 0), *link, *a;
	const char *hit = among(json_string_value(json_object_get(first, "dev")), names, n);
	size_t i, k;

	json_array_foreach(hit ? NULL : addrs, i, link)
	{
		const char *name =
		    among(json_string_value(json_object_get(link, "ifname")), names, n);

		json_array_foreach(name ? json_object_get(link, "addr_info") : NULL, k, a)
		{
			const char *local = json_string_value(json_object_get(a, "local"));

			if (local && !strcmp(local, mgmt))
				return name;
		}
	}
	return hit;
}
