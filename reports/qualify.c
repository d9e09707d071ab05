// SPDX-License-Identifier: MIT
/* Qualification: rules over results.json, a sha256 manifest, ssh-keygen -Y signatures. */
#define _GNU_SOURCE
#include "reports/qualify.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "harness/lib/state.h"
#include "harness/lib/yamldoc.h"

#include <ctype.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- rules ---------------------------------------------------------------------------- */

struct rctx {
	const char *path;
	yaml_document_t *doc;
	FILE *errf;
	int errors;
};

__attribute__((format(printf, 3, 4))) static void rerr(struct rctx *c, const yaml_node_t *n,
						       const char *fmt, ...)
{
	va_list ap;

	fprintf(c->errf, "%s:%zu:%zu: ", c->path, n ? n->start_mark.line + 1 : 1,
		n ? n->start_mark.column + 1 : 1);
	va_start(ap, fmt);
	rl_vfprintf_text(c->errf, fmt, ap);
	va_end(ap);
	fputc('\n', c->errf);
	c->errors++;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The figures results.json grades every scenario on; anything else is a component metric. */
static const char *const graded[] = {
    "time_to_detect_s", "precision", "false_positives", "rank",	  "detected",
    "localized",	"class_ok",  "duration_s",	"verdict"};

static bool is_graded(const char *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(graded); i++)
		if (!strcmp(graded[i], f))
			return true;
	return false;
}

static const char *const op_text[] = {"<=", "<", ">=", ">", "==", "!="};

/* "FIELD OP VALUE" into r; a one-line reason on failure. */
static int parse_require(const char *s, struct qrule *r, char *why, size_t whylen)
{
	const char *p = s, *f;
	size_t fl;
	char *end;

	snprintf(r->text, sizeof(r->text), "%s", s);
	while (isspace((unsigned char)*p))
		p++;
	for (f = p; isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.'; p++)
		;
	fl = (size_t)(p - f);
	if (!fl || fl >= sizeof(r->field)) {
		snprintf(why, whylen, "'%s': give FIELD OP VALUE, as 'time_to_detect_s <= 5'", s);
		return -EINVAL;
	}
	memcpy(r->field, f, fl);
	r->field[fl] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	r->op = (enum qop) - 1;
	for (int i = 0; i < (int)ARRAY_SIZE(op_text); i++)
		if (!strncmp(p, op_text[i], 2) && op_text[i][1]) { /* two-character ones first */
			r->op = (enum qop)i;
			p += 2;
			break;
		}
	if ((int)r->op < 0 && (*p == '<' || *p == '>')) {
		r->op = *p == '<' ? QOP_LT : QOP_GT;
		p++;
	}
	if ((int)r->op < 0) {
		snprintf(why, whylen, "'%s': after %s comes one of <= < >= > == !=", s, r->field);
		return -EINVAL;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (!strcmp(r->field, "verdict")) {
		if ((r->op != QOP_EQ && r->op != QOP_NE) ||
		    (strcmp(p, "pass") && strcmp(p, "fail") && strcmp(p, "invalid"))) {
			snprintf(why, whylen,
				 "'%s': verdict takes == or != and one of pass, fail, invalid", s);
			return -EINVAL;
		}
		snprintf(r->word, sizeof(r->word), "%s", p);
		return 0;
	}
	errno = 0;
	r->value = rl_strtod(p, &end);
	while (end && isspace((unsigned char)*end))
		end++;
	if (p == end || *end || errno || !isfinite(r->value)) {
		snprintf(why, whylen, "'%s': %s is compared with a number, not '%s'", s, r->field,
			 p);
		return -EINVAL;
	}
	return 0;
}

static void rule_entry(struct rctx *c, struct qrules *q, const char *scenario,
		       const yaml_node_t *sn, yaml_node_t *n)
{
	const char *s = scalar(n);
	struct qrule *r;
	char why[256];

	if (!s) {
		rerr(c, n, "a requirement is a string such as 'precision >= 0.9'");
		return;
	}
	r = RL_PUSH(q->r, q->n);
	snprintf(r->scenario, sizeof(r->scenario), "%s", scenario);
	r->line = (unsigned)n->start_mark.line + 1;
	r->col = (unsigned)n->start_mark.column + 1;
	r->sline = (unsigned)sn->start_mark.line + 1;
	r->scol = (unsigned)sn->start_mark.column + 1;
	if (parse_require(s, r, why, sizeof(why)))
		rerr(c, n, "%s", why);
}

static void rule(struct rctx *c, struct qrules *q, yaml_node_t *m)
{
	yaml_node_t *scn = NULL, *req = NULL;
	const char *name;

	if (m->type != YAML_MAPPING_NODE) {
		rerr(c, m, "a rule is a map with scenario: and require:");
		return;
	}
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key),
			    *v = yaml_document_get_node(c->doc, p->value);
		const char *ks = scalar(k);

		if (ks && !strcmp(ks, "scenario"))
			scn = v;
		else if (ks && !strcmp(ks, "require"))
			req = v;
		else
			rerr(c, k, "unknown key '%s' in a rule (scenario, require)", ks ? ks : "?");
	}
	if (!scn || !req) {
		rerr(c, m, "a rule needs scenario: (a name, or \"*\" for each) and require:");
		return;
	}
	name = scalar(scn);
	if (!name || (strcmp(name, "*") && !rl_name_ok(name, sizeof(q->r->scenario) - 1))) {
		rerr(c, scn, "scenario: a scenario's name, or \"*\" for each of the run's");
		return;
	}
	if (req->type == YAML_SEQUENCE_NODE) {
		if (req->data.sequence.items.start == req->data.sequence.items.top)
			rerr(c, req, "require: an empty list checks nothing");
		for (yaml_node_item_t *i = req->data.sequence.items.start;
		     i < req->data.sequence.items.top; i++)
			rule_entry(c, q, name, scn, yaml_document_get_node(c->doc, *i));
	} else
		rule_entry(c, q, name, scn, req);
}

int qualify_rules_load(const char *path, struct qrules *q, FILE *errf)
{
	size_t len;
	char *text = rl_read_file(path, &len);
	int r;

	if (!text) {
		int e = errno;

		memset(q, 0, sizeof(*q));
		fprintf(errf, "%s: %s\n", path, rl_read_strerror(e));
		return -e;
	}
	r = qualify_rules_parse(path, text, len, q, errf);
	free(text);
	return r;
}

int qualify_rules_parse(const char *path, const char *text, size_t len, struct qrules *q,
			FILE *errf)
{
	struct rctx c = {.path = path, .errf = errf};
	struct rl_yaml_err ye;
	yaml_document_t doc;
	yaml_node_t *root, *rules = NULL;

	memset(q, 0, sizeof(*q));
	snprintf(q->path, sizeof(q->path), "%s", path);
	if (rl_yaml_load(text, len, &doc, &ye)) {
		fprintf(errf, "%s:%u:%u: %s\n", path, ye.line, ye.col, ye.why);
		return -EINVAL;
	}
	c.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
		     p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			const char *ks = scalar(k);

			if (ks && !strcmp(ks, "rules"))
				rules = yaml_document_get_node(&doc, p->value);
			else
				rerr(&c, k, "unknown key '%s' (a rules file has rules:)",
				     ks ? ks : "?");
		}
	if (!rules || rules->type != YAML_SEQUENCE_NODE ||
	    rules->data.sequence.items.start == rules->data.sequence.items.top)
		rerr(&c, rules ? rules : root,
		     "rules: a list of {scenario: NAME, require: [FIELD OP VALUE, ...]}");
	else
		for (yaml_node_item_t *i = rules->data.sequence.items.start;
		     i < rules->data.sequence.items.top; i++)
			rule(&c, q, yaml_document_get_node(&doc, *i));
	yaml_document_delete(&doc);
	if (c.errors) {
		qualify_rules_free(q);
		return -EINVAL;
	}
	return 0;
}

void qualify_rules_free(struct qrules *q)
{
	free(q->r);
	q->r = NULL;
	q->n = 0;
}

/* ---- checking ---------------------------------------------------------------------------- */

/* The figure a rule names in one scenario's results: a graded field or a component metric. */
static const json_t *figure(const json_t *s, const char *field)
{
	const char *name;
	const json_t *c, *v;

	if (is_graded(field))
		return json_object_get(s, field);
	json_object_foreach((json_t *)json_object_get(s, "components"), name, c)
	{
		if ((v = json_object_get(json_object_get(c, "metrics"), field)))
			return json_object_get(v, "value");
	}
	return NULL;
}

static bool holds(enum qop op, double v, double want)
{
	switch (op) {
	case QOP_LE:
		return v <= want;
	case QOP_LT:
		return v < want;
	case QOP_GE:
		return v >= want;
	case QOP_GT:
		return v > want;
	case QOP_EQ:
		return fabs(v - want) <= 1e-9 * fmax(1, fabs(want));
	case QOP_NE:
		return fabs(v - want) > 1e-9 * fmax(1, fabs(want));
	}
	return false;
}

static void check_one(const struct qrule *r, const char *name, const json_t *s, json_t *out,
		      size_t *failed)
{
	const json_t *v = s ? figure(s, r->field) : NULL;
	json_t *value = json_null();
	const char *why = "";
	bool pass = false;

	if (!s)
		why = "the run has no such scenario";
	else if (!v || json_is_null(v))
		why = is_graded(r->field) ? "not reported (null: e.g. not detected)"
					  : "no component reported this metric";
	else if (r->word[0]) {
		pass = json_is_string(v) &&
		       (!strcmp(json_string_value(v), r->word) == (r->op == QOP_EQ));
		value = json_deep_copy(v);
	} else if (json_is_number(v) || json_is_boolean(v)) {
		double x = json_is_boolean(v) ? json_is_true(v) : json_number_value(v);

		pass = holds(r->op, x, r->value);
		value = json_deep_copy(v);
	} else
		why = "not a number";
	*failed += !pass;
	json_array_append_new(out, json_pack("{s:s,s:s,s:o,s:b,s:s,s:i}", "scenario", name, "rule",
					     r->text, "value", value, "pass", pass, "why", why,
					     "line", (int)r->line));
}

json_t *qualify_check(const struct qrules *q, const json_t *root, size_t *failed)
{
	const json_t *scs = json_object_get(root, "scenarios"), *s;
	json_t *out = json_array();
	size_t k;

	*failed = 0;
	for (size_t i = 0; i < q->n; i++) {
		const struct qrule *r = &q->r[i];
		bool any = false;

		json_array_foreach(scs, k, s)
		{
			const char *name = json_string_value(json_object_get(s, "name"));

			if (name && (!strcmp(r->scenario, "*") || !strcmp(r->scenario, name))) {
				check_one(r, name, s, out, failed);
				any = true;
			}
		}
		if (!any)
			check_one(r, r->scenario, NULL, out, failed);
	}
	return out;
}

/* ---- manifest, signature, verification ------------------------------------------------------ */

static bool unlisted(const char *rel)
{
	return !strcmp(rel, "MANIFEST") || !strcmp(rel, "MANIFEST.sig") ||
	       !strcmp(rel, "signer.pub");
}

/* Every regular file under dir (relative paths, sorted); symlinks and others are refused. */
static char **walk_files;
static size_t walk_n, walk_root;
static int walk_bad;

static int walk_fn(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (type == FTW_F) {
		if (!unlisted(path + walk_root))
			*RL_PUSH(walk_files, walk_n) = rl_xstrdup(path + walk_root);
	} else if (type == FTW_SL || type == FTW_NS || type == FTW_DNR)
		walk_bad++;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void files_free(void)
{
	for (size_t i = 0; i < walk_n; i++)
		free(walk_files[i]);
	free(walk_files);
	walk_files = NULL;
	walk_n = 0;
}

static int files_of(const char *dir)
{
	files_free();
	walk_bad = 0;
	walk_root = strlen(dir) + 1;
	if (nftw(dir, walk_fn, 16, FTW_PHYS))
		return -errno;
	rl_sort(walk_files, walk_n, sizeof(*walk_files), str_cmp);
	return walk_bad ? -ELOOP : 0;
}

int qualify_manifest(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX], hex[65];
	FILE *m;
	int r = files_of(dir), n = 0;

	if (r) {
		snprintf(err, errlen, "%s: %s", dir,
			 r == -ELOOP ? "holds a symlink or an unreadable entry: a manifest "
				       "lists regular files only"
				     : strerror(-r));
		files_free();
		return r;
	}
	snprintf(path, sizeof(path), "%s/MANIFEST", dir);
	if (!(m = fopen(path, "we"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		files_free();
		return -errno;
	}
	for (size_t i = 0; i < walk_n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, walk_files[i]);
		if (rl_sha256_file(path, hex)) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			r = -EIO;
			break;
		}
		fprintf(m, "%s  %s\n", hex, walk_files[i]);
		n++;
	}
	files_free();
	if (fclose(m) && !r) {
		snprintf(err, errlen, "%s/MANIFEST: %s", dir, strerror(errno));
		r = -EIO;
	}
	return r ? r : n;
}

/* Run ssh-keygen; its stderr's first line into err when it fails. */
static int keygen(const char *const argv[], const char *input, char **out, char *err, size_t errlen)
{
	char *eo = NULL;
	int r = proc_capture(argv, NULL, input, out, &eo);

	if (r) {
		if (eo)
			eo[strcspn(eo, "\n")] = '\0';
		snprintf(err, errlen, "ssh-keygen -Y %s: %s", argv[2],
			 r < 0	     ? strerror(-r)
			 : eo && *eo ? eo
				     : "failed");
	}
	free(eo);
	return r;
}

int qualify_sign(const char *dir, const char *key, char *err, size_t errlen)
{
	char manifest[PATH_MAX], pub[PATH_MAX], *out = NULL;
	size_t kl = strlen(key);
	int r;

	snprintf(manifest, sizeof(manifest), "%s/MANIFEST", dir);
	snprintf(pub, sizeof(pub), "%s/MANIFEST.sig", dir);
	unlink(pub); /* ssh-keygen will not overwrite a signature */
	{
		const char *argv[] = {"ssh-keygen",	 "-Y",	   "sign", "-q", "-f", key, "-n",
				      QUALIFY_NAMESPACE, manifest, NULL};

		if ((r = keygen(argv, NULL, NULL, err, errlen)))
			return r < 0 ? r : -EPERM;
	}
	/* The public key beside it: key.pub as given, or derived from the private key. */
	if (kl > 4 && !strcmp(key + kl - 4, ".pub")) {
		size_t len;

		out = rl_read_file(key, &len);
	} else {
		const char *argv[] = {"ssh-keygen", "-y", "-f", key, NULL};

		if (proc_capture(argv, NULL, NULL, &out, NULL)) {
			snprintf(err, errlen, "cannot read the public key of %s", key);
			free(out);
			return -EIO;
		}
	}
	if (!out) {
		snprintf(err, errlen, "cannot read %s", key);
		return -EIO;
	}
	snprintf(pub, sizeof(pub), "%s/signer.pub", dir);
	r = rl_write_file_mode(pub, out, strlen(out), 0644);
	free(out);
	if (r)
		snprintf(err, errlen, "%s: %s", pub, strerror(-r));
	return r;
}

int qualify_manifest_check(const char *dir, char *manifest, FILE *f)
{
	char path[PATH_MAX], hex[65];
	int bad = 0, r = files_of(dir);
	size_t lineno = 0;

	if (r) {
		fprintf(f, "%s: %s\n", dir,
			r == -ELOOP ? "holds a symlink or an unreadable entry" : strerror(-r));
		bad++;
	}
	for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
		char *name = line + 66;
		bool listed = false;

		lineno++;
		if (strlen(line) < 67 || line[64] != ' ' || line[65] != ' ' || strstr(name, "..") ||
		    name[0] == '/') {
			fprintf(f, "MANIFEST:%zu: not 'SHA256  PATH'\n", lineno);
			bad++;
			continue;
		}
		for (size_t i = 0; i < walk_n; i++)
			if (!strcmp(walk_files[i], name)) {
				listed = true;
				walk_files[i][0] = '\0'; /* accounted for */
				break;
			}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (!listed || rl_sha256_file(path, hex)) {
			fprintf(f, "missing: %s\n", name);
			bad++;
		} else if (strncmp(hex, line, 64)) {
			fprintf(f, "changed: %s (sha256 %.16s..., the manifest says %.16s...)\n",
				name, hex, line);
			bad++;
		}
	}
	for (size_t i = 0; i < walk_n; i++)
		if (walk_files[i][0]) {
			fprintf(f, "added: %s (not in the manifest)\n", walk_files[i]);
			bad++;
		}
	files_free();
	return bad;
}

/* The key's fingerprint in ssh-keygen -Y's "Good ... signature ... key SHA256:..." line. */
static void fingerprint_of(const char *out, char *fp, size_t len)
{
	const char *k = out ? strstr(out, " key SHA256:") : NULL;

	snprintf(fp, len, "%.*s", k ? (int)strcspn(k + 5, " \n") : 1, k ? k + 5 : "?");
}

int qualify_verify(const char *dir, const char *signers, FILE *f)
{
	char manifest[PATH_MAX], sig[PATH_MAX], conf[PATH_MAX], err[512], fp[128], *text,
	    *principal = NULL, *out = NULL;
	size_t len;
	int r, bad = 0;
	json_t *q;

	snprintf(manifest, sizeof(manifest), "%s/MANIFEST", dir);
	snprintf(sig, sizeof(sig), "%s/MANIFEST.sig", dir);
	if (!(text = rl_read_file(manifest, &len))) {
		fprintf(f, "%s: %s: not a signed qualification folder\n", manifest,
			rl_read_strerror(errno));
		return -ENOENT;
	}
	if (access(sig, R_OK)) {
		fprintf(f, "%s: %s: the manifest is not signed\n", sig, strerror(errno));
		free(text);
		return QV_NOT_VERIFIED;
	}
	state_lib_path(conf, sizeof(conf), "allowed_signers");
	if (!signers && !access(conf, R_OK))
		signers = conf;
	if (!signers) {
		/* whose key, for the message; the folder's own signer.pub vouches for nothing */
		const char *argv[] = {
		    "ssh-keygen", "-Y", "check-novalidate", "-n", QUALIFY_NAMESPACE, "-s",
		    sig,	  NULL};

		r = keygen(argv, text, &out, err, sizeof(err));
		fingerprint_of(out, fp, sizeof(fp));
		fprintf(f,
			"signature: untrusted: %s by key %s, but no key is trusted here: give "
			"--signers ALLOWED_SIGNERS, or list the keys you trust in %s\n",
			r ? "not even good" : "made", fp, conf);
		bad++;
	} else { /* whose key it is, among those trusted */
		const char *argv[] = {"ssh-keygen", "-Y", "find-principals", "-s",
				      sig,	    "-f", signers,	     NULL};

		if (keygen(argv, NULL, &principal, err, sizeof(err)) || !principal) {
			fprintf(f, "signature: signed by no key of %s (%s)\n", signers, err);
			bad++;
		} else {
			const char *vargv[] = {"ssh-keygen", "-Y", "verify", "-f", signers, "-I",
					       NULL,	     "-n", NULL,     "-s", sig,	    NULL};

			principal[strcspn(principal, "\n")] = '\0';
			vargv[6] = principal;
			vargv[8] = QUALIFY_NAMESPACE;
			if (keygen(vargv, text, &out, err, sizeof(err))) {
				fprintf(f, "signature: does not verify: %s\n", err);
				bad++;
			} else {
				fingerprint_of(out, fp, sizeof(fp));
				fprintf(f, "signature: good, by %s, key %s (trusted by %s)\n",
					principal, fp, signers);
			}
		}
	}
	free(out);
	free(principal);
	bad += qualify_manifest_check(dir, text, f);
	free(text);
	if (bad)
		return QV_NOT_VERIFIED;
	/* As signed: what did the qualification find? */
	snprintf(manifest, sizeof(manifest), "%s/qualification.json", dir);
	if (!(q = json_load_file(manifest, 0, NULL)) ||
	    !json_is_boolean(json_object_get(q, "passed"))) {
		fprintf(f, "%s: no verdict ('passed') in it: not a qualification\n", manifest);
		json_decref(q);
		return QV_NOT_VERIFIED;
	}
	r = json_is_true(json_object_get(q, "passed")) ? QV_PASSED : QV_FAILED;
	fprintf(f, "qualification: %s (%lld rule check(s) failed)\n",
		r == QV_PASSED ? "passed" : "FAILED",
		(long long)json_integer_value(json_object_get(q, "failed")));
	json_decref(q);
	return r;
}
