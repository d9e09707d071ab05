// SPDX-License-Identifier: MIT
/* The option schema: one table per config struct for getopt, YAML and child argv. */
#define _GNU_SOURCE
#include "harness/lib/opt.h"

#include "harness/lib/common.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(obj, d) ((char *)(obj) + (d)->off)

const struct opt_desc *opt_find(const struct opt_desc *tab, const char *name)
{
	for (; tab->type != OPT_END; tab++)
		if (!strcmp(tab->name, name))
			return tab;
	return NULL;
}

static int parse_num(const char *v, double *x)
{
	char *end;

	errno = 0;
	*x = rl_strtod(v, &end);
	return errno || end == v || *end || !isfinite(*x) ? -EINVAL : 0;
}

int opt_set(const struct opt_desc *d, void *obj, const char *v, char *err, size_t errlen)
{
	void *f = FIELD(obj, d);
	char want[128];
	long long t;
	double x;

	switch (d->type) {
	case OPT_MS:
	case OPT_US: {
		bool us = d->type == OPT_US;
		double ms;

		if (us ? rl_parse_duration_us(v, &t) : rl_parse_duration_ms(v, &t))
			goto bad_duration;
		ms = us ? (double)t / 1e3 : (double)t;
		if (ms < d->lo || ms > d->hi)
			goto bad_duration;
		*(long long *)f = t;
		return 0;
	}
	case OPT_INT:
	case OPT_UINT:
		if (parse_num(v, &x) || x < d->lo || x > d->hi || x != floor(x))
			goto bad_number;
		if (d->type == OPT_INT)
			*(int *)f = (int)x;
		else
			*(unsigned *)f = (unsigned)x;
		return 0;
	case OPT_DOUBLE:
		if (parse_num(v, &x) || x < d->lo || x > d->hi)
			goto bad_number;
		*(double *)f = x;
		return 0;
	case OPT_BOOL:
		if (v && strcmp(v, "true") && strcmp(v, "false")) {
			snprintf(err, errlen, "%s '%s': give true or false", d->name, v);
			return -EINVAL;
		}
		*(bool *)f = !v || !strcmp(v, "true");
		return 0;
	case OPT_STR:
		if (strlen(v) >= d->size || !*v) {
			snprintf(err, errlen, "%s '%.40s': give a name of 1 to %zu characters",
				 d->name, v, d->size - 1);
			return -EINVAL;
		}
		snprintf(f, d->size, "%s", v);
		return 0;
	case OPT_CUSTOM:
		return d->parse(d, v, f, err, errlen);
	case OPT_END:
		break;
	}
	snprintf(err, errlen, "%s: not an option", d->name);
	return -EINVAL;
bad_duration:
	if (d->hi >= 1000 && d->type == OPT_MS) /* whole milliseconds */
		snprintf(err, errlen, "%s '%s': %s", d->name, v,
			 rl_duration_range((long long)d->lo, (long long)d->hi, want, sizeof(want)));
	else if (d->hi >= 1000)
		snprintf(err, errlen,
			 "%s '%s': give a duration from %g ms to %g s (e.g. 500us, 2ms)", d->name,
			 v, d->lo, d->hi / 1000);
	else
		snprintf(err, errlen, "%s '%s': give a duration from %g ms to %g ms", d->name, v,
			 d->lo, d->hi);
	return -EINVAL;
bad_number:
	snprintf(err, errlen, "%s '%s': give %s from %g to %g", d->name, v,
		 d->type == OPT_DOUBLE ? "a number" : "a whole number", d->lo, d->hi);
	return -EINVAL;
}

const char *opt_value(const struct opt_desc *d, const void *obj, char *buf, size_t len)
{
	const void *f = (const char *)obj + d->off;

	switch (d->type) {
	case OPT_MS:
		snprintf(buf, len, "%lldms", *(const long long *)f);
		break;
	case OPT_US:
		snprintf(buf, len, "%lldus", *(const long long *)f);
		break;
	case OPT_INT:
		snprintf(buf, len, "%d", *(const int *)f);
		break;
	case OPT_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)f);
		break;
	case OPT_DOUBLE:
		snprintf(buf, len, "%.17g", *(const double *)f);
		break;
	case OPT_BOOL:
		snprintf(buf, len, "%s", *(const bool *)f ? "true" : "false");
		break;
	case OPT_STR:
		snprintf(buf, len, "%s", (const char *)f);
		break;
	case OPT_CUSTOM:
		return d->print(f, buf, len);
	case OPT_END:
		buf[0] = '\0';
		break;
	}
	return buf;
}

const char *opt_names(const struct opt_desc *tab, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (; tab->type != OPT_END && o < len; tab++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", tab->name);
	return buf;
}

const char *opt_human(const struct opt_desc *d, const void *obj, char *buf, size_t len)
{
	const void *f = (const char *)obj + d->off;
	long long v;

	if (d->type == OPT_DOUBLE) { /* opt_value's %.17g is for round trips, not for people */
		snprintf(buf, len, "%g", *(const double *)f);
		return buf;
	}
	if (d->type != OPT_MS && d->type != OPT_US)
		return opt_value(d, obj, buf, len);
	v = *(const long long *)f;
	if (d->type == OPT_US && v % 1000) {
		snprintf(buf, len, "%lldus", v);
		return buf;
	}
	return rl_format_duration_ms(d->type == OPT_US ? v / 1000 : v, buf, len);
}

/* A default outside the option's range (0 for "--mod 2..") or empty means "not given". */
static bool unset(const struct opt_desc *d, const void *obj)
{
	const void *f = (const char *)obj + d->off;
	char buf[64];

	switch (d->type) {
	case OPT_MS:
	case OPT_US:
		return *(const long long *)f == 0 && d->lo > 0;
	case OPT_INT:
		return *(const int *)f < d->lo;
	case OPT_UINT:
		return *(const unsigned *)f < d->lo;
	case OPT_CUSTOM:
		return !*opt_value(d, obj, buf, sizeof(buf));
	default:
		return false;
	}
}

int opt_cli_set(const char *cmd, const struct opt_desc *d, void *obj, const char *v)
{
	char err[256];

	if (opt_set(d, obj, v, err, sizeof(err)))
		return rl_usage_error(cmd, "--%s", err);
	return 0;
}

int opt_cli_clock_offset(const char *cmd, const char *v, long long *ns)
{
	char *end;
	double off = rl_strtod(v, &end);

	if (end == v || *end || !(off >= -3600 && off <= 3600))
		return rl_usage_error(cmd,
				      "--clock-offset: '%s' is not seconds in [-3600, 3600] (e.g. "
				      "0.012 or -0.4)",
				      v);
	*ns = (long long)(off * 1e9);
	return 0;
}

int opt_cli_ms(const char *cmd, const char *opt, const char *v, long long lo, long long hi,
	       long long *out)
{
	char want[128];

	if (rl_parse_duration_ms(v, out) || *out < lo || *out > hi)
		return rl_usage_error(cmd, "%s '%s': %s", opt, v,
				      rl_duration_range(lo, hi, want, sizeof(want)));
	return 0;
}

void opt_help(const struct opt_desc *tab, const void *defaults, int indent, FILE *f)
{
	char v[64], left[96];

	for (; tab->type != OPT_END; tab++) {
		if (tab->type == OPT_BOOL)
			snprintf(left, sizeof(left), "--%s", tab->name);
		else if (tab->type == OPT_STR && !*((const char *)defaults + tab->off))
			snprintf(left, sizeof(left), "--%s NAME", tab->name);
		else if (unset(tab, defaults))
			snprintf(left, sizeof(left), "--%s %s", tab->name,
				 tab->type == OPT_MS || tab->type == OPT_US ? "DURATION" : "VALUE");
		else
			snprintf(left, sizeof(left), "--%s %s", tab->name,
				 opt_human(tab, defaults, v, sizeof(v)));
		fprintf(f, "%*s%-22s %s\n", indent, "", left, tab->help);
	}
}

size_t opt_longopts(const struct opt_desc *tab, int base, const struct option *extra,
		    struct option *out, size_t max)
{
	size_t n = 0, need = 1;

	for (const struct option *e = extra; e && e->name; e++)
		need++;
	for (int i = 0; tab[i].type != OPT_END; i++)
		need++;
	if (need > max) {
		/* a table outgrew its caller's array: options would vanish from the command line */
		fprintf(stderr, "rocelab: internal error: %zu long options do not fit %zu\n", need,
			max);
		abort();
	}
	for (; extra && extra->name; extra++)
		out[n++] = *extra;
	for (int i = 0; tab[i].type != OPT_END; i++)
		out[n++] = (struct option){
		    tab[i].name, tab[i].type == OPT_BOOL ? no_argument : required_argument, NULL,
		    base + i};
	out[n] = (struct option){0};
	return n;
}

int opt_argv(const struct opt_desc *tab, const void *obj, const void *defaults, const char **argv,
	     size_t *n, size_t max, struct opt_store *store)
{
	char v[OPT_VALUE_MAX], dv[OPT_VALUE_MAX];

	for (; tab->type != OPT_END; tab++) {
		if (strlen(opt_value(tab, obj, v, sizeof(v))) + 1 >= sizeof(v))
			return -E2BIG;
		if (defaults && !strcmp(v, opt_value(tab, defaults, dv, sizeof(dv))))
			continue;
		if (tab->type == OPT_BOOL && !*(const bool *)((const char *)obj + tab->off))
			continue;
		if (*n + 3 > max)
			return -E2BIG;
		store->s = rl_xrealloc(store->s, store->n + 2, sizeof(*store->s));
		if (asprintf(&store->s[store->n], "--%s", tab->name) < 0)
			return -ENOMEM;
		argv[(*n)++] = store->s[store->n++];
		if (tab->type == OPT_BOOL)
			continue;
		store->s[store->n] = rl_xstrdup(v);
		argv[(*n)++] = store->s[store->n++];
	}
	argv[*n] = NULL;
	return 0;
}

void opt_store_free(struct opt_store *store)
{
	for (size_t i = 0; i < store->n; i++)
		free(store->s[i]);
	free(store->s);
	store->s = NULL;
	store->n = 0;
}
