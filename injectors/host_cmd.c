// SPDX-License-Identifier: MIT
/* Renders host op lines as ip/tc/dcb commands and runs them through the lab's exec. */
#define _GNU_SOURCE
#include "injectors/host_cmd.h"

#include "harness/lib/common.h"
#include "harness/lib/nl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Split op into words in place; returns how many. */
static size_t split(char *s, char *w[], size_t max)
{
	size_t n = 0;

	for (char *save = NULL, *t = strtok_r(s, " ", &save); t && n < max;
	     t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	return n;
}

void host_cmd_word(struct host_cmd *c, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (c->n + 1 >= HOST_CMD_MAX_WORDS || c->used >= c->len) {
		c->overflow = true;
		return;
	}
	va_start(ap, fmt);
	k = vsnprintf(c->buf + c->used, c->len - c->used, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= c->len - c->used) {
		c->overflow = true;
		return;
	}
	c->argv[c->n++] = c->buf + c->used;
	c->used += (size_t)k + 1;
}

void host_cmd_fixed(struct host_cmd *c, const char *s)
{
	if (c->n + 1 >= HOST_CMD_MAX_WORDS) {
		c->overflow = true;
		return;
	}
	c->argv[c->n++] = s;
}

/* ---- the verbs fault kinds add ---- */

#define HOST_VERBS_MAX 32
static const struct host_verb *verbs[HOST_VERBS_MAX];
static size_t n_verbs;

void host_verb_register(const struct host_verb *v)
{
	if (n_verbs == HOST_VERBS_MAX || host_verb_find(v->name))
		abort(); /* a programming error: two kinds with one verb, or too many */
	verbs[n_verbs++] = v;
}

const struct host_verb *host_verb_find(const char *name)
{
	for (size_t i = 0; i < n_verbs; i++)
		if (!strcmp(verbs[i]->name, name))
			return verbs[i];
	return NULL;
}

void host_cmd_words(struct host_cmd *c, const char *const *w)
{
	for (; *w; w++)
		host_cmd_word(c, "%s", *w);
}

int host_op_command(const char *op, char *buf, size_t len, const char *argv[HOST_CMD_MAX_WORDS],
		    char *err, size_t errlen)
{
	char copy[512], *w[HOST_CMD_MAX_WORDS];
	size_t n;
	struct host_cmd c = {.argv = argv, .buf = buf, .len = len};
	const struct host_verb *kv;
	const char *v;

	snprintf(copy, sizeof(copy), "%s", op);
	n = split(copy, w, ARRAY_SIZE(w));
	v = n ? w[0] : "";
	if (n == 1 && !strcmp(v, "noop")) {
		/* nothing to run */
	} else if ((!strcmp(v, "link-down") || !strcmp(v, "link-up")) && n == 2) {
		host_cmd_words(&c,
			       (const char *const[]){"ip", "link", "set", "dev", w[1],
						     !strcmp(v, "link-up") ? "up" : "down", NULL});
	} else if ((!strcmp(v, "rule-del") || !strcmp(v, "rule-add")) && n == 5) {
		host_cmd_words(&c, (const char *const[]){"ip", "rule", v + 5, "pref", w[1], "from",
							 w[2], NULL});
		if (strcmp(w[3], "-"))
			host_cmd_words(&c, (const char *const[]){"iif", w[3], NULL});
		host_cmd_words(&c, (const char *const[]){"table", w[4], NULL});
	} else if (!strcmp(v, "route-del") && n == 3) {
		host_cmd_words(
		    &c, (const char *const[]){"ip", "route", "del", w[2], "table", w[1], NULL});
	} else if (!strcmp(v, "route-add") && n == 5) {
		host_cmd_words(&c, (const char *const[]){"ip", "route", "add", w[2], NULL});
		if (strcmp(w[3], "-"))
			host_cmd_words(&c, (const char *const[]){"via", w[3], NULL});
		/* As nl_route_add() writes it. */
		host_cmd_words(
		    &c, (const char *const[]){"dev", w[4], "table", w[1], "proto", "static", NULL});
	} else if (!strcmp(v, "tbf") && n == 3) {
		/* As nl_qdisc_tbf() makes it. */
		unsigned long long kbit = strtoull(w[2], NULL, 10);

		host_cmd_words(&c, (const char *const[]){"tc", "qdisc", "replace", "dev", w[1],
							 "root", "handle", "1:", "tbf", NULL});
		host_cmd_word(&c, "rate");
		host_cmd_word(&c, "%llukbit", kbit);
		host_cmd_word(&c, "burst");
		host_cmd_word(&c, "%llub", nl_tbf_burst(kbit));
		host_cmd_word(&c, "latency");
		host_cmd_word(&c, "%dms", NL_TBF_LATENCY_MS);
	} else if (!strcmp(v, "qdisc-del") && n == 2) {
		host_cmd_words(
		    &c, (const char *const[]){"tc", "qdisc", "del", "dev", w[1], "root", NULL});
	} else if (!strcmp(v, "ecn-unmark") && n == 2) {
		host_cmd_words(
		    &c, (const char *const[]){"tc", "qdisc", "del", "dev", w[1], "clsact", NULL});
	} else if (!strcmp(v, "ecn-mark")) {
		snprintf(err, errlen,
			 "'%s': the emulated ECN marker is a BPF program this machine loads into "
			 "its own kernel: the virtual lab only",
			 op);
		return -EOPNOTSUPP;
	} else if (!strcmp(v, "dcb-maxrate") && n == 11 &&
		   (!strcmp(w[2], "kbit") || !strcmp(w[2], "Bps"))) {
		/*
		 * Each TC's ETS max rate, in kbit/s at DCBNL (0: none).  iproute2
		 * before 6.18 handed its parsed bytes/s to DCBNL as kbit/s (fixed in
		 * e7d4c060, "dcb: fix tc-maxrate unit conversions"): there K kbit/s is
		 * written "KBps"; from 6.18 on "Kkbit".
		 */
		host_cmd_words(&c, (const char *const[]){"dcb", "maxrate", "set", "dev", w[1],
							 "tc-maxrate", NULL});
		for (int tc = 0; tc < 8; tc++)
			host_cmd_word(&c, "%d:%llu%s", tc, strtoull(w[3 + tc], NULL, 10), w[2]);
	} else if (!strcmp(v, "dcb-pfc") && n == 4) {
		host_cmd_words(
		    &c, (const char *const[]){"dcb", "pfc", "set", "dev", w[1], "prio-pfc", NULL});
		host_cmd_word(&c, "%s:%s", w[2], w[3]);
	} else if ((kv = host_verb_find(v)) && (!kv->words || n == kv->words)) {
		kv->command(&c, w, n);
	} else if (!strcmp(v, "ip") && n > 1) {
		for (size_t i = 0; i < n; i++)
			host_cmd_word(&c, "%s", w[i]);
	} else {
		snprintf(err, errlen, "unknown or malformed host op '%s'", op);
		return -EINVAL;
	}
	if (c.overflow) {
		snprintf(err, errlen, "host op '%.200s' is too long", op);
		return -E2BIG;
	}
	argv[c.n] = NULL;
	return 0;
}

const char *host_op_text(const char *op, char *buf, size_t len)
{
	char words_buf[512], err[256];
	const char *argv[HOST_CMD_MAX_WORDS];
	size_t used = 0;

	buf[0] = '\0';
	if (host_op_command(op, words_buf, sizeof(words_buf), argv, err, sizeof(err))) {
		snprintf(buf, len, "%s", op);
		return buf;
	}
	if (!argv[0])
		snprintf(buf, len, "(nothing)");
	for (size_t i = 0; argv[i] && used < len; i++) {
		int k = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);

		used += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* What iproute2 says when the state an undo wants is there already. */
static bool already(const char *err)
{
	static const char *const said[] = {
	    "File exists",
	    "No such process",
	    "No such file or directory",
	    "Cannot find device",
	    "Cannot delete qdisc with handle of zero",
	    "FIB table does not exist",
	    "address already assigned",
	};

	for (size_t i = 0; i < ARRAY_SIZE(said); i++)
		if (strstr(err, said[i]))
			return true;
	return false;
}

int host_op_exec(struct lab *l, const char *host, const char *op, bool undo, char *err,
		 size_t errlen)
{
	char buf[512];
	const char *argv[HOST_CMD_MAX_WORDS];
	int r = host_op_command(op, buf, sizeof(buf), argv, err, errlen);

	if (r || !argv[0])
		return r;
	r = lab_exec(l, host, argv, NULL, NULL, err, errlen);
	if (r > 0 && undo && already(err)) {
		err[0] = '\0';
		return 0;
	}
	if (r > 0 && strstr(err, "Operation not supported"))
		return -EOPNOTSUPP;
	return r > 0 ? -EIO : r;
}
