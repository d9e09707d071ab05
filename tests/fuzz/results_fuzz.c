// SPDX-License-Identifier: MIT
/*
 * A results.json someone handed over, as 'rocelab report' and 'history --import' read
 * it (reports/pages.c, reports/history.c): the suite's page written from it must hold
 * none of its text as markup, and the import check must hold.
 */
#include "harness/lib/common.h"
#include "reports/history.h"
#include "reports/pages.h"
#include "tests/fuzz/fuzz.h"

static const char *dir(void)
{
	static char d[] = "/tmp/rocelab-fuzz-results.XXXXXX";
	static bool made;

	if (!made && !(made = mkdtemp(d)))
		abort();
	return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), err[512], path[PATH_MAX], *page;
	json_t *root = json_loads(text, JSON_DECODE_ANY, NULL), *m;

	free(text);
	if (!root)
		return 0;
	history_check(root, err, sizeof(err));
	m = pages_monitors(json_object_get(root, "scenarios"));
	json_decref(m);
	if (json_is_object(root) && !pages_suite_index(dir(), root)) {
		snprintf(path, sizeof(path), "%s/index.html", dir());
		if (!(page = rl_read_file(path, NULL)))
			abort();
		/* whatever the file said, no script, handler or image of its own, and every link a
		 * name in the folder (no scheme: no ':') */
		if (strstr(page, "<script") || strstr(page, " onerror=") || strstr(page, "<img"))
			abort();
		for (const char *h = page; (h = strstr(h, "href=\"")); h += 6)
			if (strcspn(h + 6, ":\"") < strcspn(h + 6, "\""))
				abort();
		free(page);
	}
	json_decref(root);
	return 0;
}
