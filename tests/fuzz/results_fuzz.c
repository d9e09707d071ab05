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

static char d[] = "/tmp/rocelab-fuzz-results.XXXXXX";

/* libFuzzer ends with exit(): the folder goes with it. */
static void dir_remove(void)
{
	rl_rm_rf(d);
}

static const char *dir(void)
{
	static bool made;

	if (!made) {
		if (!mkdtemp(d))
			abort();
		made = true;
		atexit(dir_remove);
	}
	return d;
}

static bool one_of(const char *w, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncmp(w, *list, n))
			return true;
	return false;
}

/*
 * The page's markup is the page's own, whatever the file said: each tag one the index
 * writes, each attribute class, href or charset, and no link with a scheme of its own.
 */
static bool page_ok(const char *page)
{
	static const char *const tags[] = {
	    "!DOCTYPE", "html", "/html", "head",  "/head",  "meta", "title", "/title", "style",
	    "/style",	"body", "/body", "h1",	  "/h1",    "h2",   "/h2",   "table",  "/table",
	    "tr",	"/tr",	"th",	 "/th",	  "td",	    "/td",  "span",  "/span",  "a",
	    "/a",	"p",	"/p",	 "small", "/small", "br",   NULL};
	static const char *const attrs[] = {"class", "href", "charset", NULL};

	for (const char *t = strchr(page, '<'); t; t = strchr(t + 1, '<')) {
		const char *end = strchr(t, '>');

		if (!end || !one_of(t + 1, strcspn(t + 1, " >"), tags))
			return false;
		for (const char *a = t + 1; a < end; a++) {
			size_t k;

			if (*a != ' ')
				continue;
			k = strcspn(a + 1, "=> ");
			if (a[1 + k] == '=' && (a[2 + k] != '"' || !one_of(a + 1, k, attrs)))
				return false;
			if (a[1 + k] == '=' && !strncmp(a + 1, "href", 4) &&
			    strcspn(a + 3 + k, ":\"") < strcspn(a + 3 + k, "/\""))
				return false; /* a scheme: a ':' before the first '/' (RFC 3986) */
			if (a[1 + k] == '=')  /* past the value */
				a = strchr(a + 3 + k, '"') ? strchr(a + 3 + k, '"') : end;
		}
	}
	return true;
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
		if (!page_ok(page))
			abort(); /* the file's text became markup */
		free(page);
	}
	json_decref(root);
	return 0;
}
