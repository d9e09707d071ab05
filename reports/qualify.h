/* SPDX-License-Identifier: MIT */
/*
 * Qualification runs: threshold rules (YAML) checked against a run's
 * results.json, a manifest of every artifact's sha256, signed and verified
 * with 'ssh-keygen -Y sign|verify'.
 */
#ifndef ROCELAB_QUALIFY_H
#define ROCELAB_QUALIFY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum qop { QOP_LE, QOP_LT, QOP_GE, QOP_GT, QOP_EQ, QOP_NE };

/* One requirement: "FIELD OP VALUE" for a scenario ("*": each of the run's scenarios). */
struct qrule {
	char scenario[96];
	char
	    field[48]; /* a graded field (time_to_detect_s, precision, ...) or a component metric */
	enum qop op;
	double value;
	char word[16];	      /* verdict == pass: a word instead of a number ("" : a number) */
	char text[128];	      /* as written */
	unsigned line, col;   /* of the requirement */
	unsigned sline, scol; /* of its scenario: */
};

struct qrules {
	char path[4096];
	struct qrule *r;
	size_t n;
};

/*
 * Parse a rules file:
 *   rules:
 *     - scenario: rnic-flap          # or "*": every scenario of the run
 *       require: [time_to_detect_s <= 5, precision >= 0.9]
 * Every problem is printed to errf as file:line:col; -EINVAL then, or the
 * error that kept the file from being read.
 */
int qualify_rules_load(const char *path, struct qrules *q, FILE *errf);
/* The same on the text of a rules file (path: for messages). */
int qualify_rules_parse(const char *path, const char *text, size_t len, struct qrules *q,
			FILE *errf);
void qualify_rules_free(struct qrules *q);

/*
 * Check every rule against a run's results.json (root): an array of
 * {scenario, rule, value, pass, why}, one per rule and scenario it covers;
 * *failed counts those that did not pass.  A rule naming a scenario the run
 * did not have, or a figure it did not report, fails (value null, why says).
 */
json_t *qualify_check(const struct qrules *q, const json_t *root, size_t *failed);

/*
 * dir/MANIFEST: "SHA256  PATH" (sha256sum's format, paths relative to dir,
 * sorted) for every regular file under dir but MANIFEST and MANIFEST.sig.
 * How many files, or -errno with err.
 */
int qualify_manifest(const char *dir, char *err, size_t errlen);

/*
 * Sign dir/MANIFEST with key (a private key file, or a public key whose
 * private half the ssh-agent holds): dir/MANIFEST.sig, namespace
 * QUALIFY_NAMESPACE, and the public key as dir/signer.pub.  0 or -errno.
 */
#define QUALIFY_NAMESPACE "rocelab-qualification@rocelab"
int qualify_sign(const char *dir, const char *key, char *err, size_t errlen);

/*
 * Verify dir: the signature of MANIFEST by a key that signers lists (an
 * allowed_signers file; NULL: state_lib_dir()/allowed_signers when it exists;
 * a folder's own signer.pub vouches for nothing), then every file's hash, no
 * file missing and none added; then the qualification's verdict
 * (qualification.json "passed").  Each finding, and the signing key's
 * fingerprint, printed to f.  QV_PASSED or QV_FAILED when verified;
 * QV_NOT_VERIFIED when untrusted, badly signed or changed; -errno when dir is
 * no signed folder.
 */
enum { QV_PASSED = 0, QV_FAILED = 1, QV_NOT_VERIFIED = 3 };

/*
 * A MANIFEST's text (as a folder holds it: anyone's; changed in place) against the
 * files under dir: each line malformed, file changed, missing or added printed to f.
 * How many problems.
 */
int qualify_manifest_check(const char *dir, char *manifest, FILE *f);
int qualify_verify(const char *dir, const char *signers, FILE *f);

#endif
