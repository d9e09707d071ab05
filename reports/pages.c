// SPDX-License-Identifier: MIT
/* Self-contained report pages, the suite index, re-rendering, and the history's trend page. */
#define _GNU_SOURCE
#include "reports/pages.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "harness/run/registry.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- inlining ------------------------------------------------------------------------------ */

/* The value of attr="..." within tag[0, len), into buf; false when absent. */
static bool attr_of(const char *tag, size_t len, const char *attr, char *buf, size_t blen)
{
	size_t al = strlen(attr);

	for (const char *p = tag + 1; p + al + 2 < tag + len; p++)
		if ((p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n') && !strncmp(p, attr, al) &&
		    p[al] == '=' && p[al + 1] == '"') {
			const char *v = p + al + 2, *e = memchr(v, '"', (size_t)(tag + len - v));

			if (!e)
				return false;
			snprintf(buf, blen, "%.*s", (int)(e - v), v);
			return true;
		}
	return false;
}

/* The tag's text with attr="..." left out (the rest of its attributes kept). */
static void put_without(FILE *o, const char *tag, size_t len, const char *const *attrs)
{
	const char *p = tag, *end = tag + len;

	while (p < end) {
		bool cut = false;

		if (*p == ' ')
			for (const char *const *a = attrs; *a; a++) {
				size_t al = strlen(*a);

				if (p + al + 2 < end && !strncmp(p + 1, *a, al) &&
				    p[1 + al] == '=' && p[2 + al] == '"') {
					const char *e =
					    memchr(p + 3 + al, '"', (size_t)(end - (p + 3 + al)));

					if (e) {
						p = e + 1;
						cut = true;
					}
					break;
				}
			}
		if (!cut)
			fputc(*p++, o);
	}
}

/* name in dirfd as base64, when it is a PNG file there (no link, PNG's signature); NULL if not. */
static char *base64_png_at(int dirfd, const char *name)
{
	static const char sig[8] = "\x89PNG\r\n\x1a\n";
	size_t len;
	char *data = rl_read_at(dirfd, name, &len), *b64 = NULL;

	if (data && len >= sizeof(sig) && !memcmp(data, sig, sizeof(sig))) {
		b64 = rl_xcalloc(4 * ((len + 2) / 3) + 1, 1);
		EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)data, (int)len);
	}
	free(data);
	return b64;
}

/* pages_inline_images() of name in dirfd: read and replaced there, no link followed. */
static int inline_at(int dirfd, const char *page)
{
	static const char *const drop[] = {"src", "data-file", NULL};
	char name[256], *out = NULL;
	size_t len, olen = 0;
	char *text = rl_read_at(dirfd, page, &len);
	const char *p, *tag;
	FILE *o;
	int r;

	if (!text)
		return -errno;
	o = open_memstream(&out, &olen);
	for (p = text; (tag = strstr(p, "<img ")); p = tag) {
		const char *end = strchr(tag, '>');
		size_t tl;
		char *b64 = NULL;

		if (!end)
			break;
		tl = (size_t)(end - tag);
		fwrite(p, 1, (size_t)(tag - p), o);
		if (!attr_of(tag, tl, "data-file", name, sizeof(name)) &&
		    (!attr_of(tag, tl, "src", name, sizeof(name)) || !strncmp(name, "data:", 5)))
			name[0] = '\0';
		/* Only plots beside the page: no path, no way out of its folder, no link. */
		if (rl_file_name_ok(name, ".png"))
			b64 = base64_png_at(dirfd, name);
		if (b64) {
			fprintf(o, "<img data-file=\"%s\" src=\"data:image/png;base64,%s\"", name,
				b64);
			put_without(o, tag + 4, tl - 4, drop);
			free(b64);
		} else
			fwrite(tag, 1, tl, o);
		tag = end;
	}
	fputs(p, o);
	fclose(o);
	free(text);
	r = rl_replace_at(dirfd, page, out, olen, 0644);
	free(out);
	return r;
}

int pages_inline_images(const char *html)
{
	char dir[PATH_MAX], base[PATH_MAX];
	int dfd, r;

	snprintf(dir, sizeof(dir), "%s", html);
	snprintf(base, sizeof(base), "%s", html);
	if ((dfd = rl_open_dir(dirname(dir))) < 0)
		return dfd;
	r = inline_at(dfd, basename(base));
	close(dfd);
	return r;
}

/* ---- the suite index ------------------------------------------------------------------------- */

static const char page_style[] =
    "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left;"
    "vertical-align:top}.pass{color:#070}.fail{color:#b00}.invalid{color:#a60}"
    "table.grid td,table.grid th{border-bottom:1px solid #ddd}</style>";

static const char *text_of(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* A verdict as a CSS class: one of the three, whatever a results.json says. */
static const char *verdict_class(const char *v)
{
	return !strcmp(v, "pass") ? "pass" : !strcmp(v, "fail") ? "fail" : "invalid";
}

/* A number cell with decimals places, "-" for null. */
static void cell_num(FILE *f, const json_t *v, int decimals)
{
	if (json_is_number(v))
		fprintf(f, "<td>%.*f</td>", decimals, json_number_value(v));
	else
		fprintf(f, "<td>-</td>");
}

/* o's string k escaped, or "?" when it could not be read (null). */
static void esc_or_unknown(FILE *f, const json_t *o, const char *k)
{
	rl_xml_fputs(f, json_is_string(json_object_get(o, k)) ? text_of(o, k) : "?");
}

/* ", LABEL VALUE" when o has a string k. */
static void esc_opt(FILE *f, const char *label, const json_t *o, const char *k)
{
	if (json_is_string(json_object_get(o, k)))
		fprintf(f, "%s", label), rl_xml_fputs(f, text_of(o, k));
}

/* The devices under test, one row per host and switch. */
static void dut_table(FILE *f, const json_t *dut)
{
	const char *name, *rn;
	const json_t *d, *r;

	fprintf(f, "<h2>devices under test</h2>\n<table class=\"grid\">\n");
	json_object_foreach((json_t *)json_object_get(dut, "hosts"), name, d)
	{
		fprintf(f, "<tr><th>");
		rl_xml_fputs(f, name);
		fprintf(f, "</th><td>kernel ");
		esc_or_unknown(f, d, "kernel");
		json_object_foreach((json_t *)json_object_get(d, "rnics"), rn, r)
		{
			fprintf(f, "<br>");
			rl_xml_fputs(f, rn);
			fprintf(f, " (");
			rl_xml_fputs(f, text_of(r, "netdev"));
			fprintf(f, "): driver ");
			esc_or_unknown(f, r, "driver");
			esc_opt(f, ", firmware ", r, "firmware");
			esc_opt(f, ", RDMA ", r, "rdma_device");
		}
		fprintf(f, "</td></tr>\n");
	}
	json_object_foreach((json_t *)json_object_get(dut, "switches"), name, d)
	{
		fprintf(f, "<tr><th>");
		rl_xml_fputs(f, name);
		fprintf(f, "</th><td>");
		esc_or_unknown(f, d, "nos");
		esc_opt(f, " ", d, "version");
		esc_opt(f, ", ", d, "model");
		if (json_is_string(json_object_get(d, "unread")))
			fprintf(f, " <small>(unread: "), rl_xml_fputs(f, text_of(d, "unread")),
			    fprintf(f, ")</small>");
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* ---- the monitors side by side ------------------------------------------------------------- */

/* What pages_monitors() sums for one monitor in one suite (n: how many values a mean has). */
struct mon_sum {
	long long scenarios, passed, blind, faults, detected, top1, class_ok, silent, kept, fp;
	double ttd, ttd_max, prec, cover, over[5];
	long long n_ttd, n_prec, n_cover, n_over[5];
};

static const char *const over_keys[] = {"probes-per-rnic", "packets-per-rnic", "bytes-per-rnic",
					"agent-cpu", "agent-rss"};
static const char *const over_json[] = {"probes_s", "packets_s", "bytes_s", "agent_cpu_pct",
					"agent_rss_mb"};

static double metric_of(const json_t *c, const char *name, bool *has)
{
	const json_t *v =
	    json_object_get(json_object_get(json_object_get(c, "metrics"), name), "value");

	*has = json_is_number(v);
	return json_number_value(v);
}

static void mon_add(struct mon_sum *m, const json_t *c)
{
	const json_t *e = json_object_get(c, "expected"),
		     *t = json_object_get(c, "time_to_detect_s"),
		     *p = json_object_get(c, "precision");
	bool silent = json_is_true(json_object_get(e, "silent")), has;
	bool detected = json_is_true(json_object_get(c, "detected"));
	double v;

	m->scenarios++;
	m->passed += !strcmp(text_of(c, "verdict"), "pass");
	/* failed where it is known not to meet its expectation today (skipped, not failed) */
	m->blind += strcmp(text_of(c, "verdict"), "pass") &&
		    json_is_string(json_object_get(c, "known_blind"));
	m->fp += json_integer_value(json_object_get(c, "false_positives"));
	if (silent) {
		m->silent++;
		m->kept += !detected;
	} else {
		m->faults++;
		m->detected += detected;
		m->top1 += json_integer_value(json_object_get(c, "rank")) == 1;
		m->class_ok += json_is_true(json_object_get(c, "class_ok"));
		if (json_is_number(t)) {
			m->ttd += json_number_value(t);
			m->ttd_max = fmax(m->ttd_max, json_number_value(t));
			m->n_ttd++;
		}
		if (json_is_number(p)) {
			m->prec += json_number_value(p);
			m->n_prec++;
		}
	}
	v = metric_of(c, "link-coverage", &has);
	if (has) {
		m->cover += v;
		m->n_cover++;
	}
	for (int k = 0; k < 5; k++) {
		v = metric_of(c, over_keys[k], &has);
		if (!has)
			continue;
		m->over[k] = k == 4 ? fmax(m->over[k], v) : m->over[k] + v; /* RSS: the worst */
		m->n_over[k]++;
	}
}

static json_t *mean_or_null(double sum, long long n, double scale)
{
	return n ? json_real(round(sum / (double)n * scale) / scale) : json_null();
}

static json_t *mon_json(const struct mon_sum *m)
{
	json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "scenarios", m->scenarios,
			      "passed", m->passed, "faults", m->faults, "detected", m->detected,
			      "top1", m->top1, "class_ok", m->class_ok, "silent_expected",
			      m->silent, "silent_kept", m->kept, "false_positives", m->fp);
	json_t *ov = json_object();

	json_object_set_new(o, "known_blind", json_integer(m->blind));
	json_object_set_new(o, "time_to_detect_mean_s", mean_or_null(m->ttd, m->n_ttd, 100));
	json_object_set_new(o, "time_to_detect_max_s",
			    m->n_ttd ? json_real(round(m->ttd_max * 100) / 100) : json_null());
	json_object_set_new(o, "precision_mean", mean_or_null(m->prec, m->n_prec, 1000));
	json_object_set_new(o, "link_coverage_mean", mean_or_null(m->cover, m->n_cover, 1000));
	for (int k = 0; k < 5; k++)
		json_object_set_new(
		    ov, over_json[k],
		    k == 4 ? (m->n_over[k] ? json_real(round(m->over[k] * 10) / 10) : json_null())
			   : mean_or_null(m->over[k], m->n_over[k], 100));
	json_object_set_new(o, "overhead", ov);
	return o;
}

json_t *pages_monitors(const json_t *scenarios)
{
	json_t *out = json_object(), *s, *c;
	struct mon_sum *sums = NULL; /* per (suite, monitor) pair, in order of first sight */
	struct {
		const char *suite, *name;
	} *keys = NULL;
	size_t n = 0, i;
	const char *name;

	json_array_foreach(scenarios, i, s)
	{
		json_object_foreach((json_t *)json_object_get(s, "components"), name, c)
		{
			const json_t *e = json_object_get(c, "expected");
			const char *suite = text_of(s, "suite");
			size_t k;

			/* graded on verdicts: a monitor (a transport's expectation is metrics) */
			if (!*text_of(e, "class") && !json_is_true(json_object_get(e, "silent")))
				continue;
			for (k = 0;
			     k < n && (strcmp(keys[k].suite, suite) || strcmp(keys[k].name, name));
			     k++)
				;
			if (k == n) {
				sums = rl_xrealloc(sums, n + 1, sizeof(*sums));
				keys = rl_xrealloc(keys, n + 1, sizeof(*keys));
				sums[n] = (struct mon_sum){0};
				keys[n].suite = suite;
				keys[n].name = name;
				n++;
			}
			mon_add(&sums[k], c);
		}
	}
	for (size_t k = 0; k < n; k++) {
		json_t *suite = json_object_get(out, keys[k].suite);

		if (!suite) {
			suite = json_pack("{s:[]}", "monitors");
			json_object_set_new(out, keys[k].suite, suite);
		}
		json_array_append_new(json_object_get(suite, "monitors"),
				      json_string(keys[k].name));
		json_object_set_new(suite, keys[k].name, mon_json(&sums[k]));
	}
	free(sums);
	free(keys);
	return out;
}

/* One row of the comparison: a figure of each monitor (fmt "I": integer, "F.d": number). */
static void mon_row(FILE *f, const json_t *suite, const char *label, const char *key,
		    const char *sub, int decimals)
{
	const json_t *m;
	size_t i;

	fprintf(f, "<tr><th>%s</th>", label);
	json_array_foreach(json_object_get(suite, "monitors"), i, m)
	{
		const json_t *o = json_object_get(suite, json_string_value(m));

		cell_num(f, json_object_get(sub ? json_object_get(o, sub) : o, key), decimals);
	}
	fprintf(f, "</tr>\n");
}

/* "k of n" cells. */
static void mon_share_row(FILE *f, const json_t *suite, const char *label, const char *key,
			  const char *of)
{
	const json_t *m;
	size_t i;

	fprintf(f, "<tr><th>%s</th>", label);
	json_array_foreach(json_object_get(suite, "monitors"), i, m)
	{
		const json_t *o = json_object_get(suite, json_string_value(m));

		fprintf(f, "<td>%lld of %lld</td>",
			(long long)json_integer_value(json_object_get(o, key)),
			(long long)json_integer_value(json_object_get(o, of)));
	}
	fprintf(f, "</tr>\n");
}

/* A table's head: corner, then a column per monitor. */
static void mon_head(FILE *f, const json_t *suite, const char *corner)
{
	const json_t *m;
	size_t i;

	fprintf(f, "<table class=\"grid\"><tr><th>%s</th>", corner);
	json_array_foreach(json_object_get(suite, "monitors"), i, m)
	{
		fprintf(f, "<th>");
		rl_xml_fputs(f, json_string_value(m));
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr>\n");
}

/* The monitors side by side: per suite, then per scenario (each monitor's verdict and what it
 * said). */
static void monitors_html(FILE *f, const json_t *root)
{
	json_t *mons = json_object_get(root, "monitors")
			   ? json_incref(json_object_get(root, "monitors"))
			   : pages_monitors(json_object_get(root, "scenarios"));
	const char *suite_name;
	const json_t *suite, *m, *s;
	size_t i, j;

	json_object_foreach(mons, suite_name, suite)
	{
		if (json_array_size(json_object_get(suite, "monitors")) < 2)
			continue; /* one monitor: the scenario table says it all */
		fprintf(f, "<h2>monitors side by side: suite ");
		rl_xml_fputs(f, suite_name);
		fprintf(f, "</h2>\n");
		mon_head(f, suite, "");
		mon_share_row(f, suite, "passed", "passed", "scenarios");
		mon_share_row(f, suite, "known blind (skipped)", "known_blind", "scenarios");
		mon_share_row(f, suite, "faults detected", "detected", "faults");
		mon_share_row(f, suite, "truth ranked first", "top1", "faults");
		mon_share_row(f, suite, "class right", "class_ok", "faults");
		mon_share_row(f, suite, "silent where expected", "silent_kept", "silent_expected");
		mon_row(f, suite, "time to detect, mean (s)", "time_to_detect_mean_s", NULL, 1);
		mon_row(f, suite, "time to detect, worst (s)", "time_to_detect_max_s", NULL, 1);
		mon_row(f, suite, "precision, mean", "precision_mean", NULL, 2);
		mon_row(f, suite, "false positives", "false_positives", NULL, 0);
		mon_row(f, suite, "link coverage, baseline", "link_coverage_mean", NULL, 2);
		mon_row(f, suite, "probes/s per RNIC", "probes_s", "overhead", 1);
		mon_row(f, suite, "packets/s per RNIC", "packets_s", "overhead", 1);
		mon_row(f, suite, "bytes/s per RNIC", "bytes_s", "overhead", 0);
		mon_row(f, suite, "agent CPU (% of a core)", "agent_cpu_pct", "overhead", 2);
		mon_row(f, suite, "agent RSS, worst (MB)", "agent_rss_mb", "overhead", 1);
		fprintf(f, "</table>\n");
		mon_head(f, suite, "scenario");
		json_array_foreach(json_object_get(root, "scenarios"), j, s)
		{
			if (strcmp(text_of(s, "suite"), suite_name))
				continue;
			fprintf(f, "<tr><td>");
			rl_xml_fputs(f, text_of(s, "name"));
			fprintf(f, "</td>");
			json_array_foreach(json_object_get(suite, "monitors"), i, m)
			{
				const json_t *c = json_object_get(json_object_get(s, "components"),
								  json_string_value(m));
				const json_t *got = json_object_get(c, "got"),
					     *t = json_object_get(c, "time_to_detect_s");

				if (!c) {
					fprintf(f, "<td>-</td>");
					continue;
				}
				fprintf(f, "<td class=\"%s\">",
					verdict_class(text_of(c, "verdict")));
				if (json_is_true(json_object_get(c, "detected"))) {
					rl_xml_fputs(f, text_of(got, "class"));
					fprintf(f, " ");
					rl_xml_fputs(f, text_of(got, "target"));
					if (json_is_number(t))
						fprintf(f, " (%.1f s)", json_number_value(t));
				} else {
					fprintf(f, "silent");
				}
				fprintf(f, "</td>");
			}
			fprintf(f, "</tr>\n");
		}
		fprintf(f, "</table>\n");
	}
	json_decref(mons);
}

/*
 * A scenario's report link, when it is one a run writes (NAME/report.html, NAME a
 * test's name): never another scheme (javascript:) or a way out of the folder.
 */
static bool report_link_ok(const char *href)
{
	const char *slash = strchr(href, '/');
	char name[128];

	if (!slash || strcmp(slash, "/report.html") || (size_t)(slash - href) >= sizeof(name))
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)(slash - href), href);
	return rl_test_name_ok(name, 95);
}

static void index_html(FILE *f, const json_t *root);

/* ---- the suite's page: failures first ---------------------------------------------------------
 */

const char *pages_result_of(const json_t *s)
{
	const json_t *obs = json_object_get(s, "observability");
	const char *v = text_of(s, "verdict");

	if (!strcmp(v, "fail") && (json_is_string(json_object_get(s, "known_blind")) ||
				   json_is_false(json_object_get(obs, "observable"))))
		return "known-blind";
	return !strcmp(v, "pass") || !strcmp(v, "fail") ? v : "invalid";
}

/*
 * Where a scenario's row goes: what did not pass first (failures, then
 * invalid), then what is known blind (skipped), then passes.
 */
static int triage_rank(const json_t *s)
{
	static const char *const order[] = {"fail", "invalid", "known-blind", "pass"};
	const char *r = pages_result_of(s);
	int k = 0;

	while (strcmp(order[k], r))
		k++;
	return k;
}

/* '<a href="PATHSUFFIX">' to a file of the results folder, PATH checked by the caller. */
static void local_href(FILE *f, const char *path, const char *suffix)
{
	/* "./": a name with ':' before its first '/' would read as a scheme */
	fprintf(f, "<a href=\"%s", strchr(path, ':') ? "./" : "");
	rl_xml_fputs(f, path);
	fprintf(f, "%s\">", suffix);
}

/* The report's link around the scenario's name (only a report of this folder). */
static void cell_name(FILE *f, const json_t *s)
{
	fprintf(f, "<td>");
	if (report_link_ok(text_of(s, "report"))) {
		local_href(f, text_of(s, "report"), "");
		rl_xml_fputs(f, text_of(s, "name"));
		fprintf(f, "</a>");
	} else
		rl_xml_fputs(f, text_of(s, "name"));
	fprintf(f, "</td>");
}

/* "kind target; ..." of its faults, or "none". */
static void cell_faults(FILE *f, const json_t *s)
{
	const json_t *x;
	size_t i;

	fprintf(f, "<td>");
	json_array_foreach(json_object_get(s, "faults"), i, x)
	{
		fprintf(f, "%s", i ? "; " : "");
		rl_xml_fputs(f, text_of(x, "kind"));
		fputc(' ', f);
		rl_xml_fputs(f, text_of(x, "target"));
	}
	fprintf(f, "%s</td>", json_array_size(json_object_get(s, "faults")) ? "" : "none");
}

/* Expected: silence, or CLASS on TARGET; got: the class and target it was graded on. */
static void cell_expect_got(FILE *f, const json_t *s)
{
	const json_t *e = json_object_get(s, "expected"), *g = json_object_get(s, "got");

	fprintf(f, "<td>");
	if (json_is_true(json_object_get(e, "silent")))
		fprintf(f, "silence");
	else {
		rl_xml_fputs(f, *text_of(e, "class") ? text_of(e, "class") : "a verdict");
		if (*text_of(e, "target")) {
			fprintf(f, " on ");
			rl_xml_fputs(f, text_of(e, "target"));
		}
	}
	fprintf(f, "</td><td>");
	if (*text_of(g, "class") || *text_of(g, "target")) {
		rl_xml_fputs(f, text_of(g, "class"));
		fputc(' ', f);
		rl_xml_fputs(f, text_of(g, "target"));
	} else
		fprintf(f, "-");
	fprintf(f, "</td>");
}

/* "2.8 of 8 s" (red when late), "not detected (8 s)" where a fault was to be found, else "-". */
static void cell_ttd(FILE *f, const json_t *s)
{
	const json_t *e = json_object_get(s, "expected"),
		     *t = json_object_get(s, "time_to_detect_s"),
		     *w = json_object_get(e, "within_s");
	bool fault = !json_is_true(json_object_get(e, "silent")) &&
		     json_array_size(json_object_get(s, "faults"));

	if (json_is_number(t) && json_is_number(w))
		fprintf(f, "<td class=\"%s\">%.1f of %.0f s</td>",
			json_number_value(t) > json_number_value(w) ? "fail" : "pass",
			json_number_value(t), json_number_value(w));
	else if (json_is_number(t))
		fprintf(f, "<td>%.1f s</td>", json_number_value(t));
	else if (fault && json_is_number(w))
		fprintf(f, "<td class=\"fail\">not detected (%.0f s)</td>", json_number_value(w));
	else
		fprintf(f, "<td>-</td>");
}

/*
 * Against the scenario's last good run on this lab (the run history's): for
 * what did not pass, when it last passed and how fast it detected then; for
 * a pass, how much later or sooner it detected.
 */
static void cell_last_good(FILE *f, const json_t *s)
{
	const json_t *lg = json_object_get(s, "last_good"),
		     *t = json_object_get(s, "time_to_detect_s"),
		     *lt = json_object_get(lg, "time_to_detect_s"),
		     *at = json_object_get(lg, "started");
	char ts[32];

	fprintf(f, "<td>");
	if (!lg)
		fprintf(f, "-");
	else if (json_is_null(lg))
		fprintf(f, "%s",
			strcmp(text_of(s, "verdict"), "pass") ? "never passed on this lab"
							      : "first pass on this lab");
	else if (strcmp(text_of(s, "verdict"), "pass")) {
		fprintf(f, "passed in ");
		rl_xml_fputs(f, text_of(lg, "run_id"));
		if (json_is_number(at))
			fprintf(f, " (%s UTC)",
				rl_utc(json_number_value(at), "%Y-%m-%d %H:%M", ts, sizeof(ts)));
		if (json_is_number(lt))
			fprintf(f, ", detected after %.1f s", json_number_value(lt));
	} else if (json_is_number(t) && json_is_number(lt)) {
		double d = json_number_value(t) - json_number_value(lt);

		fprintf(f, "<span class=\"%s\">%+.1f s</span> against ", d > 2 ? "fail" : "pass",
			d);
		rl_xml_fputs(f, text_of(lg, "run_id"));
	} else {
		fprintf(f, "passed in ");
		rl_xml_fputs(f, text_of(lg, "run_id"));
	}
	fprintf(f, "</td>");
}

/*
 * The scenarios, what did not pass first: each with its fault, what was
 * expected and what it got, time to detect against its bound, rank,
 * precision, false positives, its last good run and the reason; each
 * row links its report.
 */
static void scenario_rows(FILE *f, const json_t *root)
{
	const json_t *sc = json_object_get(root, "scenarios"), *s;
	size_t i, bad = 0;

	json_array_foreach(sc, i, s) bad += triage_rank(s) < 2;
	fprintf(f, "<h2>scenarios</h2>\n");
	if (bad)
		fprintf(f, "<p class=\"fail\">%zu did not pass: first below.</p>\n", bad);
	fprintf(f, "<table class=\"grid\"><tr><th>scenario</th><th>verdict</th><th>fault</th>"
		   "<th>expected</th><th>got</th><th>time to detect</th><th>rank</th>"
		   "<th>precision</th><th>false positives</th><th>last good run</th>"
		   "<th>reason</th></tr>\n");
	for (int rank = 0; rank < 4; rank++)
		json_array_foreach(sc, i, s)
		{
			json_int_t runs = json_integer_value(json_object_get(s, "attempts"));

			if (triage_rank(s) != rank)
				continue;
			fprintf(f, "<tr>");
			cell_name(f, s);
			fprintf(f, "<td class=\"%s\">%s</td>",
				rank == 2 ? "invalid" : verdict_class(text_of(s, "verdict")),
				rank == 2 ? "known blind" : verdict_class(text_of(s, "verdict")));
			cell_faults(f, s);
			cell_expect_got(f, s);
			cell_ttd(f, s);
			cell_num(f, json_object_get(s, "rank"), 0);
			cell_num(f, json_object_get(s, "precision"), 2);
			cell_num(f, json_object_get(s, "false_positives"), 0);
			cell_last_good(f, s);
			fprintf(f, "<td>");
			rl_xml_fputs(f, text_of(s, "reason"));
			if (runs > 1) /* run --retries */
				fprintf(f, "%s(%s %lld runs)", *text_of(s, "reason") ? " " : "",
					strcmp(text_of(s, "verdict"), "pass")
					    ? "failed all"
					    : "flaky: passed on the last of",
					(long long)runs);
			fprintf(f, "</td></tr>\n");
		}
	fprintf(f, "</table>\n");
	if (json_array_size(json_object_get(root, "unplaced"))) {
		const json_t *u;

		fprintf(f, "<p>Skipped, this lab having nothing for a target they give by role "
			   "(<code>run --strict</code> refuses the run instead):</p>\n<ul>\n");
		json_array_foreach(json_object_get(root, "unplaced"), i, u)
		{
			fprintf(f, "<li>");
			rl_xml_fputs(f, text_of(u, "file"));
			fprintf(f, ": ");
			rl_xml_fputs(f, text_of(u, "reason"));
			fprintf(f, "</li>\n");
		}
		fprintf(f, "</ul>\n");
	}
}

int pages_suite_index(const char *outdir, const json_t *root)
{
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);
	int dfd, r;

	if (!f)
		return -errno;
	index_html(f, root);
	if (fclose(f))
		return -errno;
	if ((dfd = rl_open_dir(outdir)) < 0) {
		free(page);
		return dfd;
	}
	r = rl_replace_at(dfd, "index.html", page, len, 0644);
	close(dfd);
	free(page);
	return r;
}

/*
 * The scenarios run as variants: a link to each one's side-by-side page
 * (OF.variants/index.html, reports/variants.c), from its first variant's
 * entry.  A results folder is untrusted: a name that is not a scenario's is
 * not linked.
 */
static void variants_links(FILE *f, const json_t *root)
{
	const json_t *s, *v;
	size_t i;
	bool any = false;

	json_array_foreach(json_object_get(root, "scenarios"), i, s)
	{
		const char *of = text_of(v = json_object_get(s, "variant"), "of");

		if (json_integer_value(json_object_get(v, "index")) != 1 || !rl_name_ok(of, 95))
			continue;
		if (!any)
			fprintf(f, "<h2>variants side by side</h2>\n<ul>\n");
		any = true;
		fprintf(f, "<li>");
		local_href(f, of, ".variants/index.html");
		rl_xml_fputs(f, of);
		fprintf(f, "</a>: %lld variants, one plot</li>\n",
			(long long)json_integer_value(json_object_get(v, "count")));
	}
	if (any)
		fprintf(f, "</ul>\n");
}

static void index_html(FILE *f, const json_t *root)
{
	char ts[32];
	const json_t *s, *base = json_object_get(root, "baseline");
	size_t i, pass = 0, n = json_array_size(json_object_get(root, "scenarios"));

	json_array_foreach(json_object_get(root, "scenarios"), i, s) pass +=
	    !strcmp(text_of(s, "verdict"), "pass");
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rocelab run ");
	rl_xml_fputs(f, text_of(root, "run_id"));
	fprintf(f, "</title>\n%s</head><body>\n<h1>run ", page_style);
	rl_xml_fputs(f, text_of(root, "run_id"));
	fprintf(f, ": <span class=\"%s\">%zu of %zu passed</span></h1>\n",
		pass == n ? "pass" : "fail", pass, n);
	fprintf(f, "<table>\n<tr><th>lab</th><td>");
	rl_xml_fputs(f, text_of(root, "lab"));
	fprintf(f, " (");
	rl_xml_fputs(f, text_of(root, "lab_kind"));
	fprintf(f, ")</td></tr>\n<tr><th>inventory</th><td>");
	rl_xml_fputs(f, text_of(root, "inventory"));
	fprintf(f, " <small>sha256 ");
	{
		char sha[17];

		snprintf(sha, sizeof(sha), "%s", text_of(root, "inventory_sha256"));
		rl_xml_fputs(f, sha);
	}
	fprintf(f, "</small></td></tr>\n");
	fprintf(f, "<tr><th>seed</th><td>%lld</td></tr>\n",
		(long long)json_integer_value(json_object_get(root, "seed")));
	fprintf(f, "<tr><th>started</th><td>%s UTC</td></tr>\n",
		json_is_number(json_object_get(root, "started"))
		    ? rl_utc(json_number_value(json_object_get(root, "started")),
			     "%Y-%m-%d %H:%M:%S", ts, sizeof(ts))
		    : "?");
	fprintf(f, "<tr><th>version</th><td>");
	rl_xml_fputs(f, text_of(root, "versions"));
	fprintf(f, "</td></tr>\n");
	if (base) {
		size_t nr = json_array_size(json_object_get(base, "regressions"));

		fprintf(f, "<tr><th>baseline</th><td class=\"%s\">", nr ? "fail" : "pass");
		rl_xml_fputs(f, text_of(json_object_get(base, "a"), "run_id"));
		fprintf(f, ": %zu regression(s)</td></tr>\n", nr);
	}
	fprintf(f, "</table>\n");
	scenario_rows(f, root);
	variants_links(f, root);
	monitors_html(f, root);
	dut_table(f, json_object_get(root, "dut"));
	fprintf(f, "<p><a href=\"results.json\">results.json</a> <a href=\"junit.xml\">junit.xml"
		   "</a></p>\n</body></html>\n");
}

/* ---- re-rendering ------------------------------------------------------------------------------
 */

/* A listing of dirfd's folder with a position of its own (a dup() would share the caller's). */
static DIR *opendir_at(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (fd >= 0 && !d)
		close(fd);
	return d;
}

/* Every file of from named *ext copied into to (no link followed in from); 0 or -errno. */
static int copy_files(int from, int to, const char *ext)
{
	DIR *d = opendir_at(from);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (e = readdir(d))) {
		size_t len;
		char *data;

		if (!rl_file_name_ok(e->d_name, ext) || !(data = rl_read_at(from, e->d_name, &len)))
			continue; /* a link, a folder, or too large: not a plot's */
		ret = rl_replace_at(to, e->d_name, data, len, 0644);
		free(data);
	}
	closedir(d);
	return ret;
}

/*
 * Redraw one plot of a scenario's folder (sfd) from its description, desc
 * (STEM.plot.json, comp_plot_begin()): the component that wrote the script
 * writes it again (a results folder is untrusted input: no script found in
 * one ever runs), in a new private folder with the folder's data files
 * copied in; gnuplot runs there, and the plot and its script are copied back
 * by rl_replace_at().  1 drawn, 0 not (said why; the plot stays as it is),
 * or -errno.
 */
static int redraw_at(int sfd, const char *sd, const char *desc)
{
	char tmp[] = "/tmp/rocelab-plot.XXXXXX", why[320] = "", png[256];
	const struct component_ops *ops = NULL;
	struct comp_plot_desc d;
	size_t len, stem = strlen(desc) - strlen(COMP_PLOT_DESC);
	char *text = rl_read_at(sfd, desc, &len);
	int tfd = -1, r;
	bool made = false;

	if (!text && errno != ELOOP && errno != EINVAL && errno != EFBIG)
		return -errno;
	if (!text) {
		memset(&d, 0, sizeof(d));
		snprintf(why, sizeof(why), "a link, not a file, or over %u MiB", RL_READ_MAX >> 20);
		r = -EINVAL;
	} else
		r = comp_plot_desc_read(&d, text, len, why, sizeof(why));
	free(text);
	snprintf(png, sizeof(png), "%.*s.png", (int)stem, desc);
	if (!r && strcmp(d.png, png)) {
		snprintf(why, sizeof(why), "png is not %s", png);
		r = -EINVAL;
	} else if (!r && (!(ops = component_find(d.component)) || !ops->replot)) {
		snprintf(why, sizeof(why), "component '%s' is not one whose plot rocelab draws",
			 d.component);
		r = -EINVAL;
	}
	if (!r && !(made = mkdtemp(tmp) != NULL))
		r = -errno;
	else if (!r && (tfd = rl_open_dir(tmp)) < 0)
		r = tfd;
	else if (!r && !(r = copy_files(sfd, tfd, ".dat"))) {
		d.r.dir = tmp;
		if (!(r = ops->replot(&d.r, d.params, why, sizeof(why))) &&
		    !(r = copy_files(tfd, sfd, ".png")))
			r = copy_files(tfd, sfd, ".gp");
	}
	comp_plot_desc_free(&d);
	if (tfd >= 0)
		close(tfd);
	if (made)
		rl_rm_rf(tmp);
	if (r == -EINVAL) {
		rl_warn("report: %s/%s: %s: not redrawn; its plot stays as it is", sd, desc, why);
		return 0;
	}
	return r ? r : 1;
}

/*
 * Every plot of a scenario's folder redrawn from its description; a script
 * with none beside it is said and left as it is.  How many, or -errno (err
 * says which).
 */
static int redraw_scenario(int sfd, const char *sd, char *err, size_t errlen)
{
	DIR *d = opendir_at(sfd);
	struct dirent *e;
	int n = 0, r = 0;
	char name[256];

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "report", 6))
			continue;
		if (rl_file_name_ok(e->d_name, ".gp")) {
			snprintf(name, sizeof(name), "%.*s" COMP_PLOT_DESC, (int)(len - 3),
				 e->d_name);
			if (faccessat(sfd, name, F_OK, AT_SYMLINK_NOFOLLOW))
				rl_warn(
				    "report: %s/%s: no description (%s) beside it: not run (a "
				    "results folder is untrusted input); its plot stays as it is",
				    sd, e->d_name, name);
			continue;
		}
		if (!rl_file_name_ok(e->d_name, COMP_PLOT_DESC))
			continue;
		snprintf(name, sizeof(name), "%s", e->d_name);
		if ((r = redraw_at(sfd, sd, name)) < 0) {
			snprintf(err, errlen, "%s/%s: %s", sd, name,
				 r == -ENOENT ? "gnuplot is not installed"
				 : r == -EIO  ? "gnuplot failed"
					      : strerror(-r));
			break;
		}
		n += r;
	}
	closedir(d);
	return r < 0 ? r : n;
}

int pages_rerender(const char *dir, char *err, size_t errlen)
{
	char sd[PATH_MAX];
	json_error_t je;
	json_t *root = NULL;
	const json_t *s;
	size_t i, len;
	char *text;
	int n = 0, r = 0, dfd = rl_open_dir(dir);

	if (dfd < 0 || !(text = rl_read_at(dfd, "results.json", &len)) ||
	    !(root = json_loadb(text, len, 0, &je)) || !json_is_object(root)) {
		snprintf(err, errlen, "%s/results.json: %s: not a results folder of 'rocelab run'",
			 dir,
			 dfd < 0 ? strerror(-dfd)
			 : root	 ? "not an object"
				 : je.text);
		if (dfd >= 0)
			close(dfd);
		json_decref(root);
		return -ENOENT;
	}
	free(text);
	json_array_foreach(json_object_get(root, "scenarios"), i, s)
	{
		const char *name = text_of(s, "name");
		int sfd;

		/* a folder of this results folder, nothing else, and no link */
		if (!rl_test_name_ok(name, 95) || (sfd = rl_open_subdir(dfd, name)) < 0)
			continue;
		snprintf(sd, sizeof(sd), "%s/%s", dir, name);
		if ((r = redraw_scenario(sfd, sd, err, errlen)) > 0) {
			n++;
			if ((r = inline_at(sfd, "report.html")) == -ENOENT)
				r = 0;
			else if (r)
				snprintf(err, errlen, "%s/report.html: %s", sd, strerror(-r));
		}
		close(sfd);
		if (r < 0)
			break;
	}
	if (r >= 0 && (r = pages_suite_index(dir, root)))
		snprintf(err, errlen, "%s/index.html: %s", dir, strerror(-r));
	json_decref(root);
	close(dfd);
	return r < 0 ? r : n;
}

/* ---- the history's trends ----------------------------------------------------------------------
 */

/* A scenario name as a file name: what is not [A-Za-z0-9_.-] becomes '_'. */
static void file_name(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		buf[i] = (strchr("_.-", name[i]) || (name[i] >= 'a' && name[i] <= 'z') ||
			  (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9'))
			     ? name[i]
			     : '_';
	buf[i] = '\0';
}

void pages_trend_write(FILE *dat, FILE *gp, const char *fname, const char *scenario,
		       const json_t *rows)
{
	char ts[32], text[256];
	const json_t *r;
	size_t i, detected = 0, failed = 0;
	double tmax = 1, fpmax = 1; /* fixed ranges: an axis without a point is an error */

	fprintf(dat, "# run started(UTC) time_to_detect_s false_positives passed\n");
	json_array_foreach(rows, i, r)
	{
		const json_t *t = json_object_get(r, "time_to_detect_s");
		long long fp = (long long)json_integer_value(json_object_get(r, "false_positives"));
		bool pass = !strcmp(text_of(r, "verdict"), "pass");

		/* a history is another person's file too: numbers held to what a run gives */
		fp = fp < 0 ? 0 : fp > 1000000000 ? 1000000000 : fp;
		fprintf(dat, "%zu %s ", i + 1,
			rl_utc(json_number_value(json_object_get(r, "started")), "%m-%dT%H:%M", ts,
			       sizeof(ts)));
		if (json_is_number(t) && json_number_value(t) >= 0 && json_number_value(t) < 1e9) {
			fprintf(dat, "%.3f", json_number_value(t));
			tmax = json_number_value(t) > tmax ? json_number_value(t) : tmax;
			detected++;
		} else
			fprintf(dat, "-");
		fprintf(dat, " %lld %d\n", fp, pass);
		fpmax = (double)fp > fpmax ? (double)fp : fpmax;
		failed += !pass;
	}
	/* the name as data: a history import is another person's file (rl_gp_text()) */
	rl_gp_text(scenario, text, sizeof(text));
	fprintf(gp, "# rocelab history trend of %s: 'gnuplot trend-%s.gp' in this folder\n", text,
		fname);
	fprintf(gp, "set terminal pngcairo size 900,300 font 'Sans,9'\nset output 'trend-%s.png'\n",
		fname);
	fprintf(gp,
		"set datafile missing '-'\nset title '%s: time to detect and false positives "
		"per run (red: failed)' noenhanced\n",
		text);
	fprintf(gp,
		"set ylabel 'time to detect (s)'\nset y2label 'false positives'\n"
		"set yrange [0:%.2f]\nset y2range [0:%.0f]\nset ytics nomirror\nset y2tics %lld\n"
		"set xtics rotate by -30 font ',7'\nset key top left\nset grid ytics\n"
		"set xrange [0.5:%zu.5]\nset style fill solid 0.3\nset boxwidth 0.4\n",
		tmax * 1.25, fpmax * 1.25 + 0.5,
		(long long)(fpmax + 4) / 5, /* whole false positives */
		json_array_size(rows));
	/* Only series with a point: gnuplot stops at one whose points are all undefined. */
	fprintf(gp,
		"plot 'trend-%s.dat' using 1:4:xtic(2) axes x1y2 with boxes lc rgb '#cc8800' "
		"title 'false positives'",
		fname);
	if (detected)
		fprintf(gp, ", \\\n     '' using 1:3 with linespoints pt 7 lc rgb '#2060c0' "
			    "title 'time to detect'");
	if (failed)
		fprintf(gp, ", \\\n     '' using 1:($5 == 0 ? 0 : 1/0) with points pt 7 ps 1.5 "
			    "lc rgb '#c00000' title 'failed'");
	fprintf(gp, "\n");
}

/* trend-NAME.dat and .gp, drawn: one scenario's runs, oldest first. */
static int trend_plot(const char *dir, const char *fname, const char *scenario, const json_t *rows)
{
	char path[PATH_MAX + 300], gpn[300];
	FILE *dat, *gp;
	int rc;

	snprintf(path, sizeof(path), "%s/trend-%s.dat", dir, fname);
	if (!(dat = fopen(path, "we")))
		return -errno;
	snprintf(path, sizeof(path), "%s/trend-%s.gp", dir, fname);
	if (!(gp = fopen(path, "we"))) {
		rc = -errno;
		fclose(dat);
		return rc;
	}
	pages_trend_write(dat, gp, fname, scenario, rows);
	rc = fclose(dat) ? -errno : 0;
	if (fclose(gp) && !rc)
		rc = -errno;
	if (rc)
		return rc;
	snprintf(gpn, sizeof(gpn), "trend-%s.gp", fname);
	rc = proc_gnuplot(dir, gpn);
	return rc == -ENOENT ? rc : rc ? -EIO : 0;
}

int pages_trends(const char *dir, const json_t *runs, const json_t *per_scenario, char *err,
		 size_t errlen)
{
	char path[PATH_MAX + 16], fname[128], ts[32];
	const char *name;
	const json_t *rows, *r;
	size_t i;
	FILE *f;
	int ret = 0;

	if (rl_mkdir_p(dir, 0755)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/index.html", dir);
	if (!(f = fopen(path, "we"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rocelab run "
		"history</title>\n%s</head><body>\n<h1>run history</h1>\n",
		page_style);
	json_object_foreach((json_t *)per_scenario, name, rows)
	{
		file_name(name, fname, sizeof(fname));
		if ((ret = trend_plot(dir, fname, name, rows))) {
			snprintf(err, errlen, "trend of %s: gnuplot %s (see %s/gnuplot.log)", name,
				 ret == -ENOENT ? "is not installed" : "failed", dir);
			break;
		}
		fprintf(f, "<h2>");
		rl_xml_fputs(f, name);
		fprintf(f, "</h2>\n<p><img src=\"trend-%s.png\" alt=\"trend\" width=\"900\"></p>\n",
			fname);
	}
	fprintf(f, "<h2>runs</h2>\n<table class=\"grid\"><tr><th>run</th><th>started (UTC)</th>"
		   "<th>lab</th><th>passed</th><th>failed</th><th>invalid</th><th>results</th>"
		   "</tr>\n");
	json_array_foreach(runs, i, r)
	{
		fprintf(f, "<tr><td>");
		rl_xml_fputs(f, text_of(r, "run_id"));
		fprintf(f, "</td><td>%s</td><td>",
			rl_utc(json_number_value(json_object_get(r, "started")),
			       "%Y-%m-%d %H:%M:%S", ts, sizeof(ts)));
		rl_xml_fputs(f, text_of(r, "lab"));
		fprintf(f,
			"</td><td class=\"pass\">%lld</td><td class=\"fail\">%lld</td>"
			"<td class=\"invalid\">%lld</td><td>",
			(long long)json_integer_value(json_object_get(r, "passed")),
			(long long)json_integer_value(json_object_get(r, "failed")),
			(long long)json_integer_value(json_object_get(r, "invalid")));
		if (*text_of(r, "outdir")) {
			fprintf(f, "<a href=\"file://");
			rl_xml_fputs(f, text_of(r, "outdir"));
			fprintf(f, "/index.html\">");
			rl_xml_fputs(f, text_of(r, "outdir"));
			fprintf(f, "</a>");
		}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n</body></html>\n");
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && (ret = pages_inline_images(path)))
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}
