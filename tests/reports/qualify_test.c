// SPDX-License-Identifier: MIT
/* Qualification: rules parsed and checked, a manifest signed, verified, and a tampered file. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "reports/qualify.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char dir[] = "/tmp/rocelab-qualify-test.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	rl_rm_rf(dir);
}

TestSuite(qualify, .init = setup, .fini = teardown);

/* What errf received. */
static char *errs_of(const char *path, struct qrules *q, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = qualify_rules_load(path, q, f);
	fclose(f);
	return buf;
}

Test(qualify, bad_rules_say_file_line_col_and_what_to_do)
{
	struct qrules q;
	int r;
	char *e = errs_of("reports/rules/bad.yaml", &q, &r);

	cr_assert_eq(r, -EINVAL);
	cr_assert(strstr(e, "reports/rules/bad.yaml:3:15: 'time_to_detect_s <= five': "
			    "time_to_detect_s is compared with a number, not 'five'\n"),
		  "%s", e);
	cr_assert(strstr(e, "reports/rules/bad.yaml:3:41: 'precision => 0.9': after precision "
			    "comes one of <= < >= > == !=\n"),
		  "%s", e);
	cr_assert(strstr(e, "reports/rules/bad.yaml:4:15: scenario: a scenario's name, or \"*\""),
		  "%s", e);
	cr_assert(strstr(e, "reports/rules/bad.yaml:7:5: unknown key 'needs' in a rule"), "%s", e);
	cr_assert(strstr(e, "reports/rules/bad.yaml:6:5: a rule needs scenario:"), "%s", e);
	cr_assert_eq(q.n, 0);
	free(e);
	e = errs_of("reports/rules/none.yaml", &q, &r);
	cr_assert_eq(r, -ENOENT);
	free(e);
}

Test(qualify, rules_hold_or_fail_on_each_scenario_they_name)
{
	struct qrules q;
	size_t failed;
	int r;
	char *e = errs_of("reports/rules/good.yaml", &q, &r);
	json_t *res, *out;
	const json_t *x;
	size_t i;
	char got[1024] = "";

	cr_assert_eq(r, 0, "%s", e);
	free(e);
	cr_assert_eq(q.n, 6);
	res = json_pack("{s:[{s:s,s:s,s:f,s:f,s:i,s:i,s:{}},{s:s,s:s,s:n,s:n,s:n,s:i,s:{s:{s:{s:{"
			"s:f}}}}}]}",
			"scenarios", "name", "rnic-flap", "verdict", "pass", "time_to_detect_s",
			6.5, "precision", 0.95, "rank", 1, "false_positives", 0, "components",
			"name", "lossy-paths", "verdict", "fail", "time_to_detect_s", "precision",
			"rank", "false_positives", 1, "components", "mprdma", "metrics",
			"goodput-vs-optimal", "value", 0.93);
	out = qualify_check(&q, res, &failed);
	json_array_foreach(out, i, x)
	{
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s %s %s;",
			 json_string_value(json_object_get(x, "scenario")),
			 json_string_value(json_object_get(x, "rule")),
			 json_is_true(json_object_get(x, "pass")) ? "pass" : "FAIL");
	}
	cr_assert_str_eq(got,
			 "rnic-flap verdict == pass pass;lossy-paths verdict == pass FAIL;"
			 "rnic-flap false_positives == 0 pass;lossy-paths false_positives == 0 "
			 "FAIL;rnic-flap time_to_detect_s <= 5 FAIL;rnic-flap precision >= 0.9 "
			 "pass;rnic-flap rank<2 pass;lossy-paths goodput-vs-optimal >= 0.9 pass;");
	cr_assert_eq(failed, 3);
	json_decref(out);
	/* A scenario the run did not have fails, saying so. */
	snprintf(q.r[5].scenario, sizeof(q.r[5].scenario), "elsewhere");
	out = qualify_check(&q, res, &failed);
	x = json_array_get(out, json_array_size(out) - 1);
	cr_assert_str_eq(json_string_value(json_object_get(x, "why")),
			 "the run has no such scenario");
	json_decref(out);
	json_decref(res);
	qualify_rules_free(&q);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

/* What qualify_verify printed, and its result. */
static char *verify(const char *signers, int *ret)
{
	char *buf = NULL, d[PATH_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	snprintf(d, sizeof(d), "%s/run", dir);
	*ret = qualify_verify(d, signers, f);
	fclose(f);
	return buf;
}

Test(qualify, a_signed_manifest_verifies_and_a_tampered_file_does_not)
{
	char run[PATH_MAX], key[PATH_MAX], err[512], signers[PATH_MAX], lib[PATH_MAX];
	char *out;
	int r;

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(key, sizeof(key), "%s/key", dir);
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	setenv("ROCELAB_LIB_DIR", lib, 1); /* no allowed_signers configured */
	cr_assert_eq(sh("ssh-keygen -q -t ed25519 -N '' -C q@lab -f '%s'", key), 0);
	cr_assert_eq(sh("mkdir -p '%s/s1' && echo '{}' > '%s/results.json' && echo log > "
			"'%s/s1/inject.log' && echo '{\"passed\": true, \"failed\": 0}' > "
			"'%s/qualification.json'",
			run, run, run, run),
		     0);
	cr_assert_eq(qualify_manifest(run, err, sizeof(err)), 3, "%s", err);
	cr_assert_eq(qualify_sign(run, key, err, sizeof(err)), 0, "%s", err);
	/* The folder's own signer.pub vouches for nothing (issue 56). */
	out = verify(NULL, &r);
	cr_assert_eq(r, QV_NOT_VERIFIED, "%s", out);
	cr_assert(strstr(out, "signature: untrusted: made by key SHA256:"), "%s", out);
	free(out);
	/* Trusting a named key: its principal and fingerprint are said, its verdict given. */
	snprintf(signers, sizeof(signers), "%s/allowed", dir);
	cr_assert_eq(sh("printf 'qa@lab namespaces=\"%s\" %%s\\n' \"$(cat '%s.pub')\" > '%s'",
			QUALIFY_NAMESPACE, key, signers),
		     0);
	out = verify(signers, &r);
	cr_assert_eq(r, QV_PASSED, "%s", out);
	cr_assert(strstr(out, "signature: good, by qa@lab, key SHA256:"), "%s", out);
	cr_assert(strstr(out, "qualification: passed"), "%s", out);
	free(out);
	/* ... or the keys of $ROCELAB_LIB_DIR/allowed_signers */
	cr_assert_eq(sh("mkdir -p '%s' && cp '%s' '%s/allowed_signers'", lib, signers, lib), 0);
	out = verify(NULL, &r);
	cr_assert_eq(r, QV_PASSED, "%s", out);
	free(out);
	/* One byte changed, one file added, one removed: each named. */
	cr_assert_eq(sh("echo LOG > '%s/s1/inject.log' && echo x > '%s/extra' && rm "
			"'%s/results.json'",
			run, run, run),
		     0);
	out = verify(signers, &r);
	cr_assert_eq(r, QV_NOT_VERIFIED, "%s", out);
	cr_assert(strstr(out, "changed: s1/inject.log (sha256 "), "%s", out);
	cr_assert(strstr(out, "added: extra (not in the manifest)"), "%s", out);
	cr_assert(strstr(out, "missing: results.json"), "%s", out);
	free(out);
	/* A manifest edited to match: the signature no longer holds. */
	cr_assert_eq(
	    sh("cd '%s' && rm extra && echo '{}' > results.json && sed -i "
	       "\"s/^[0-9a-f]*  s1/$(sha256sum s1/inject.log | cut -c1-64)  s1/\" MANIFEST",
	       run),
	    0);
	out = verify(signers, &r);
	cr_assert_eq(r, QV_NOT_VERIFIED, "%s", out);
	cr_assert(strstr(out, "signature: does not verify"), "%s", out);
	cr_assert_null(strstr(out, "changed:"), "%s", out);
	free(out);
	/* Re-signed by another key, its signer.pub swapped in: not trusted. */
	cr_assert_eq(sh("ssh-keygen -q -t ed25519 -N '' -f '%s/other' && cd '%s' && rm -f "
			"MANIFEST.sig && cp '%s/other.pub' signer.pub && ssh-keygen -Y sign -q -f "
			"'%s/other' -n %s MANIFEST",
			dir, run, dir, dir, QUALIFY_NAMESPACE),
		     0);
	out = verify(signers, &r);
	cr_assert_eq(r, QV_NOT_VERIFIED, "%s", out);
	cr_assert(strstr(out, "signature: signed by no key of "), "%s", out);
	free(out);
	/* Signed as it is by the trusted key, and failed: verified, and its verdict is FAILED. */
	cr_assert_eq(sh("cd '%s' && echo '{\"passed\": false, \"failed\": 2}' > "
			"qualification.json",
			run),
		     0);
	cr_assert_eq(qualify_manifest(run, err, sizeof(err)), 3, "%s", err);
	cr_assert_eq(qualify_sign(run, key, err, sizeof(err)), 0, "%s", err);
	out = verify(signers, &r);
	cr_assert_eq(r, QV_FAILED, "%s", out);
	cr_assert(strstr(out, "qualification: FAILED (2 rule check(s) failed)"), "%s", out);
	free(out);
	unsetenv("ROCELAB_LIB_DIR");
}

/* A file over 16 MiB (a long run's logs) is hashed as it streams, not refused (issue 56). */
Test(qualify, large_files_are_hashed_by_streaming)
{
	char path[PATH_MAX], hex[65], want[80] = "";
	FILE *p;

	snprintf(path, sizeof(path), "%s/big.log", dir);
	cr_assert_eq(sh("head -c 17825792 /dev/zero | tr '\\\\0' x > '%s'", path), 0);
	cr_assert_eq(rl_sha256_file(path, hex), 0);
	snprintf(want, sizeof(want), "sha256sum '%s'", path);
	cr_assert_not_null(p = popen(want, "r"));
	cr_assert_not_null(fgets(want, sizeof(want), p));
	pclose(p);
	cr_assert_eq(strncmp(hex, want, 64), 0, "%s vs %.64s", hex, want);
}
