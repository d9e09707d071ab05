// SPDX-License-Identifier: MIT
/*
 * What a host prints for 'ip -j rule' and 'ip -j route' (injectors/host_found.c), which
 * becomes the commands that delete and restore what was found, and for 'ip -j addr' and
 * 'ip -j route get', which says whether its management path runs through a netdev: any JSON.  Every
 * command built is words of [A-Za-z0-9.:/_-] and spaces, or no command: a finding otherwise.
 */
#include "harness/lib/sbuf.h"
#include "injectors/host_found.h"
#include "tests/fuzz/fuzz.h"

#include <jansson.h>

static void words_only(struct sbuf *b)
{
	if (b->p && strspn(b->p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				 ".:/_- ") != b->len)
		abort(); /* a device's text would reach a shell as more than a word */
	sb_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), bad[64];
	json_t *a = json_loads(text, JSON_DECODE_ANY, NULL), *o;
	size_t i;

	json_array_foreach(a, i, o)
	{
		struct sbuf b = {0};

		if (host_found_keys(o, host_rule_keys, bad, sizeof(bad))) {
			if (host_rule_cmd(o, "del", &b) == 0)
				words_only(&b);
			sb_free(&b);
			if (host_rule_cmd(o, "add", &b) == 0)
				words_only(&b);
			sb_free(&b);
		}
		if (host_found_keys(o, host_route_keys, bad, sizeof(bad))) {
			if (host_route_cmd(o, "101", false, false, &b) == 0)
				words_only(&b);
			sb_free(&b);
			if (host_route_cmd(o, "main", true, HOST_ROUTE_REPLACE, &b) == 0)
				words_only(&b);
			sb_free(&b);
		}
	}
	/* the same text as 'ip -j addr show' and as 'ip -j route get' (issue 63) */
	{
		static const char *const names[] = {"rnic1", "mgmt0"};
		const char *t = host_mgmt_through(a, a, "198.19.128.11", names, 2);

		if (t && t != names[0] && t != names[1])
			abort(); /* the name it runs through is one it was asked about */
	}
	json_decref(a);
	free(text);
	return 0;
}
