// SPDX-License-Identifier: MIT
/* Verdicts and metrics, the typed interface between components and the grader. */
#define _GNU_SOURCE
#include "harness/component/component.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int copy_str(const json_t *o, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s || strlen(s) >= len)
		return -EINVAL;
	strcpy(buf, s);
	return 0;
}

int verdict_from_json(const json_t *o, struct verdict *v)
{
	const json_t *w = json_object_get(o, VERDICT_K_WINDOW),
		     *sus = json_object_get(o, VERDICT_K_SUSP), *e;
	size_t i;

	memset(v, 0, sizeof(*v));
	if (!json_is_object(o) || !json_is_array(w) || json_array_size(w) != 2 ||
	    copy_str(o, VERDICT_K_CLASS, v->cls, sizeof(v->cls)) ||
	    copy_str(o, VERDICT_K_TARGET, v->target, sizeof(v->target)))
		return -EINVAL;
	v->win[0] = json_number_value(json_array_get(w, 0));
	v->win[1] = json_number_value(json_array_get(w, 1));
	v->time = json_is_number(json_object_get(o, VERDICT_K_TIME))
		      ? json_number_value(json_object_get(o, VERDICT_K_TIME))
		      : v->win[1];
	v->emitted = json_number_value(json_object_get(o, VERDICT_K_EMITTED));
	v->votes = json_integer_value(json_object_get(o, VERDICT_K_VOTES));
	json_array_foreach(sus, i, e)
	{
		struct suspect *s = &v->sus[v->n_sus];

		if (v->n_sus == VERDICT_SUSPECTS)
			break;
		if (copy_str(e, VERDICT_K_TARGET, s->target, sizeof(s->target)))
			return -EINVAL;
		s->votes = json_integer_value(json_object_get(e, VERDICT_K_VOTES));
		s->good = json_integer_value(json_object_get(e, VERDICT_K_GOOD));
		v->n_sus++;
	}
	/* a set: strings, its size as named (a larger one than kept is still that large) */
	json_array_foreach(json_object_get(o, VERDICT_K_SET), i, e)
	{
		if (!json_is_string(e) || json_string_length(e) >= sizeof(v->set[0]))
			return -EINVAL;
		if (i < VERDICT_SET_MAX)
			strcpy(v->set[i], json_string_value(e));
		v->n_set++;
	}
	v->app_timed = json_integer_value(json_object_get(o, VERDICT_K_APP_TIMED));
	json_array_foreach(json_object_get(o, VERDICT_K_APP_HOSTS), i, e)
	{
		if (!json_is_string(e) || json_string_length(e) >= sizeof(v->app_hosts[0]))
			return -EINVAL;
		if (v->n_app_hosts < VERDICT_SET_MAX)
			strcpy(v->app_hosts[v->n_app_hosts++], json_string_value(e));
	}
	return 0;
}

json_t *verdict_to_json(const struct verdict *v)
{
	json_t *o = json_object(), *sus = json_array();

	json_object_set_new(o, VERDICT_K_TIME, json_real(v->time));
	if (v->emitted > 0)
		json_object_set_new(o, VERDICT_K_EMITTED, json_real(v->emitted));
	json_object_set_new(o, VERDICT_K_WINDOW, json_pack("[f,f]", v->win[0], v->win[1]));
	json_object_set_new(o, VERDICT_K_CLASS, json_string(v->cls));
	json_object_set_new(o, VERDICT_K_TARGET, json_string(v->target));
	json_object_set_new(o, VERDICT_K_VOTES, json_integer(v->votes));
	for (size_t i = 0; i < v->n_sus; i++)
		json_array_append_new(sus,
				      json_pack("{s:s,s:I,s:I}", VERDICT_K_TARGET, v->sus[i].target,
						VERDICT_K_VOTES, (json_int_t)v->sus[i].votes,
						VERDICT_K_GOOD, (json_int_t)v->sus[i].good));
	json_object_set_new(o, VERDICT_K_SUSP, sus);
	if (v->n_set) {
		json_t *set = json_array();

		for (size_t i = 0; i < v->n_set && i < VERDICT_SET_MAX; i++)
			json_array_append_new(set, json_string(v->set[i]));
		json_object_set_new(o, VERDICT_K_SET, set);
	}
	if (v->app_timed || v->n_app_hosts) {
		json_t *h = json_array();

		for (size_t i = 0; i < v->n_app_hosts && i < VERDICT_SET_MAX; i++)
			json_array_append_new(h, json_string(v->app_hosts[i]));
		json_object_set_new(o, VERDICT_K_APP_TIMED, json_integer(v->app_timed));
		json_object_set_new(o, VERDICT_K_APP_HOSTS, h);
	}
	return o;
}

void comp_obs_clear(struct comp_obs *o)
{
	for (size_t i = 0; i < o->n_services; i++)
		free(o->services[i].sender);
	free(o->services);
	free(o->verdicts);
	free(o->paths);
	free(o->metrics);
	json_decref(o->section);
	memset(o, 0, sizeof(*o));
}

int comp_obs_path(struct comp_obs *o, const json_t *j)
{
	const json_t *t = json_object_get(j, "t"), *links = json_object_get(j, "links"), *v;
	struct comp_path p = {0};
	size_t i;

	if (!json_is_number(t) || !json_is_array(links) || !json_array_size(links) ||
	    json_array_size(links) > COMP_PATH_LINKS)
		return -EINVAL;
	json_array_foreach(links, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 0xffff)
			return -EINVAL;
		p.links[p.n++] = (size_t)json_integer_value(v);
	}
	p.t = json_number_value(t);
	*RL_PUSH(o->paths, o->n_paths) = p;
	return 0;
}

struct verdict *comp_obs_verdict(struct comp_obs *o)
{
	return RL_PUSH(o->verdicts, o->n_verdicts); /* zeroed */
}

struct svc_obs *comp_obs_service(struct comp_obs *o, const char *from, const char *to,
				 unsigned sport)
{
	struct svc_obs *s;

	if (strlen(from) >= sizeof(s->from) || strlen(to) >= sizeof(s->to))
		return NULL;
	for (size_t i = 0; i < o->n_services; i++) {
		s = &o->services[i];
		if (s->sport == sport && !strcmp(s->from, from) && !strcmp(s->to, to))
			return s;
	}
	s = RL_PUSH(o->services, o->n_services);
	strcpy(s->from, from);
	strcpy(s->to, to);
	s->sport = sport;
	return s;
}

json_t *comp_obs_services_json(const struct comp_obs *o)
{
	json_t *all = json_object();

	for (size_t i = 0; i < o->n_services; i++) {
		const struct svc_obs *s = &o->services[i];
		char key[200];
		json_t *j =
		    json_pack("{s:s,s:s,s:i,s:I,s:I,s:I}", "from", s->from, "to", s->to, "sport",
			      (int)s->sport, "windows", (json_int_t)s->windows, "impacted",
			      (json_int_t)s->impacted, "network_related", (json_int_t)s->network);

		if (s->n_sender) {
			json_t *w = json_array();

			for (size_t k = 0; k < s->n_sender; k++)
				json_array_append_new(
				    w, json_pack("[f,f,f,f]", s->sender[k].start, s->sender[k].end,
						 s->sender[k].rate_mbps, s->sender[k].best_mbps));
			json_object_set_new(j, "sender_windows", w);
		}
		snprintf(key, sizeof(key), "%s>%s/%u", s->from, s->to, s->sport);
		json_object_set_new(all, key, j);
	}
	return all;
}

void comp_obs_metric(struct comp_obs *o, const char *name, double value, const char *unit)
{
	struct metric *m = RL_PUSH(o->metrics, o->n_metrics);

	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
}

double comp_t0(const struct comp_times *t)
{
	return t->t_origin > 0 ? t->t_origin : t->t_start;
}

/* What time zero is: 0 the run's start (no origin), 1 the fault's start, 2 its phase's. */
static int time_zero_kind(const struct comp_times *t)
{
	return t->t_origin <= 0 ? 0 : t->t_fault > 0 ? 1 : 2;
}

const char *comp_time_zero(const struct comp_times *t)
{
	static const char *const zero[] = {"from the start", "from the start of the fault",
					   "from the start of the fault phase"};

	return zero[time_zero_kind(t)];
}

const char *comp_time_label(const struct comp_times *t)
{
	static const char *const label[] = {
	    "time since start (s)", "time from the start of the fault (s)",
	    "time from the start of the fault phase (s; nothing injected)"};

	return label[time_zero_kind(t)];
}

/* x to a tenth, as "%.1f" prints it: what gnuplot reads back. */
static double tenth(double x)
{
	char b[64];

	snprintf(b, sizeof(b), "%.1f", x);
	return strtod(b, NULL);
}

/* The plotted time, from time zero: the run's, to a tenth of a second. */
static void plot_range(const struct comp_times *t, double *lo, double *hi)
{
	double t0 = comp_t0(t);

	*lo = tenth(t->t_start - t0);
	*hi = tenth(t->t_end - t0);
}

/*
 * The shared time axis (x 0: the fault's start, the baseline before it
 * negative), the fault window shaded and a flapping link's down intervals darker.
 */
static void time_axis(const struct comp_report *r, FILE *f)
{
	const struct comp_times *t = r->t;
	double t0 = comp_t0(t), lo, hi;

	plot_range(t, &lo, &hi);
	fprintf(f, "set xrange [%.1f:%.1f]\n", lo, hi);
	if (t->t_fault > 0)
		fprintf(f,
			"set object 1 rect from %.3f, graph 0 to %.3f, graph 1 behind "
			"fc rgb '#ffd8d8' fs solid 0.6 noborder\n",
			t->t_fault - t0, t->t_revert - t0);
	/* a flapping link's down intervals, from the injector's own log */
	for (size_t k = 0; k < r->n_down; k++)
		fprintf(f,
			"set object %zu rect from %.3f, graph 0 to %.3f, graph 1 behind "
			"fc rgb '#f09090' fs solid 0.6 noborder\n",
			k + 2, r->down[k][0] - t0, r->down[k][1] - t0);
}

/* r and params as the plot's description (comp_plot_desc_read() reads it back): 0 or -errno. */
/* The rig's data file's columns: 6 from a folder written before the run queue was drawn. */
static int rig_cols(const struct comp_report *r)
{
	return r->rig_cols >= 6 && r->rig_cols <= 8 ? r->rig_cols : 6;
}

static int plot_desc_write(const struct comp_report *r, const json_t *params, const char *path)
{
	const struct comp_times *t = r->t;
	json_t *down = json_array(),
	       *d = json_pack("{s:i,s:s,s:s,s:s,s:s,s:{s:f,s:f,s:f,s:f},s:o,s:o}", "rocelab_plot",
			      1, "component", r->component ? r->component : "", "png", r->png,
			      "title", r->title ? r->title : "", "caption",
			      r->caption ? r->caption : "", "times", "start", t->t_start, "end",
			      t->t_end, "fault", t->t_fault, "revert", t->t_revert, "down", down,
			      "params", params ? json_incref((json_t *)params) : json_object());
	int ret;

	if (!d)
		return -ENOMEM;
	/* time zero of its data files; a description without it is older: theirs is the start */
	if (t->t_origin > 0)
		json_object_set_new(json_object_get(d, "times"), "origin", json_real(t->t_origin));
	for (size_t k = 0; k < r->n_down && k < COMP_PLOT_DOWN; k++)
		json_array_append_new(down, json_pack("[f,f]", r->down[k][0], r->down[k][1]));
	if (r->rig_dat)
		json_object_set_new(d, "rig",
				    json_pack("{s:s,s:s,s:f,s:i}", "data", r->rig_dat, "source",
					      r->rig_source ? r->rig_source : "", "bound",
					      r->rig_bound, "columns", rig_cols(r)));
	ret = json_dump_file(d, path, JSON_INDENT(1) | JSON_SORT_KEYS) ? -EIO : 0;
	json_decref(d);
	return ret;
}

/*
 * A plot's title (rl_gp_text()'s: no backslash in it) broken at spaces into
 * lines of about cols characters with gnuplot's "\n", the only backslashes:
 * a long grade (a rig-limited load's, with its figures) ran off both sides of
 * the page on one line.
 */
static const char *gp_wrap(const char *s, size_t cols, char *buf, size_t len)
{
	size_t o = 0, line = 0;

	for (; *s && o + 3 < len; s++) {
		if (*s == ' ' && line >= cols) {
			buf[o++] = '\\', buf[o++] = 'n';
			line = 0;
		} else {
			buf[o++] = *s;
			line++;
		}
	}
	if (len)
		buf[o] = '\0';
	return buf;
}

FILE *comp_plot_begin(const struct comp_report *r, const char *what, const json_t *params, int rows,
		      int height, char *gp, size_t gplen)
{
	char title[1024], wrapped[1100], caption[512], named[1200];
	FILE *f;

	const char *dot = strrchr(r->png, '.');
	int stem = dot ? (int)(dot - r->png) : (int)strlen(r->png), e;

	/* report.png from report.gp, report-NAME.png from report-NAME.gp: one each a component */
	if (r->rig_dat) /* the rig's panel, last */
		rows++, height += 260;
	snprintf(gp, gplen, "%s/%.*s" COMP_PLOT_DESC, r->dir, stem, r->png);
	if ((e = plot_desc_write(r, params, gp))) {
		errno = -e;
		return NULL;
	}
	snprintf(gp, gplen, "%s/%.*s.gp", r->dir, stem, r->png);
	if (!(f = fopen(gp, "we")))
		return NULL;
	fprintf(f, "# rocelab incident report, %s: 'gnuplot %.*s.gp' in this folder\n", what, stem,
		r->png);
	fprintf(f, "set terminal pngcairo size 1200,%d font 'Sans,10'\n", height);
	fprintf(f, "set output '%s'\n", r->png);
	/* each component's plot named by it (issue 58): "Hostmesh - rnic-flap: pass" */
	snprintf(named, sizeof(named), "%s - %s", what, r->title ? r->title : "");
	fprintf(f, "set multiplot layout %d,1 title \"%s\" font 'Sans,13' noenhanced\n", rows,
		gp_wrap(rl_gp_text(named, title, sizeof(title)), 110, wrapped, sizeof(wrapped)));
	/*
	 * bottom right, below the keys and clear of the last panel's centred time
	 * label: one part a line ("lab L", "seed N", ...; gnuplot's "\n" between
	 * them, the only backslashes: the parts are rl_gp_text()'s, which has none)
	 */
	if (r->caption) {
		int lines = 1;

		fprintf(f, "set label 100 \"");
		rl_gp_text(r->caption, caption, sizeof(caption));
		for (const char *p = caption, *c; *p; p = c + 2, lines++) {
			if (!(c = strstr(p, ", "))) {
				fputs(p, f);
				break;
			}
			fprintf(f, "%.*s\\n", (int)(c - p), p);
		}
		/* its first line's centre: 8 pt lines are 12 px apart, the last 6 px up */
		fprintf(f, "\" at screen 0.99, screen %.4f right front font 'Sans,8' noenhanced\n",
			(6.0 + 12.0 * (lines - 1)) / height);
	}
	/* The same plot area in every panel, so their time axes line up. */
	fprintf(f, "set lmargin at screen 0.08\nset rmargin at screen 0.78\n");
	fprintf(f, "set grid\nset key outside right top\n");
	time_axis(r, f);
	return f;
}

/* It resets what panels before it may have changed. */
static void plot_rig(const struct comp_report *r, FILE *f)
{
	char src[256];

	if (!r->rig_dat)
		return;
	fprintf(f, "unset logscale y\nset autoscale y\nunset object\nunset label\n");
	fprintf(f, "set style data lines\nset xtics norotate center autofreq font 'Sans,10'\n");
	fprintf(f, "set yrange [0:*]\n");
	time_axis(r, f);
	fprintf(f, "set title \"the rig: %s\" noenhanced\n",
		rl_gp_text(r->rig_source ? r->rig_source : "this machine", src, sizeof(src)));
	fprintf(f, "set ylabel 'share; CPUs; tasks/CPU'\nset xlabel '%s'\n", comp_time_label(r->t));
	/* its stalls (a thread's latest wake-up in each sample, ms) on the right-hand axis */
	fprintf(f, "set y2range [0:*]\nset y2tics\n");
	fprintf(f,
		"plot '%s' using 1:($2 >= 0 ? $2 : 1/0) lw 2 title 'CPU pressure (PSI some)', "
		"'' using 1:3 title 'CPUs busy', '' using 1:4 dt 2 title 'controller (CPUs)', "
		"%g dt 3 lc rgb '#a00000' title 'PSI bound (set aside)', "
		"'' using 1:5 axes x1y2 lc rgb '#d07000' "
		"title 'worst stall (ms, right)'",
		r->rig_dat, r->rig_bound);
	/* tasks waiting or running per CPU, a 1 s mean (over 1: more than the CPUs could run) */
	if (rig_cols(r) >= 7)
		fprintf(f, ", '' using 1:($7 >= 0 ? $7 : 1/0) dt 4 lc rgb '#606060' "
			   "title 'run queue per CPU, 1 s'");
	/* over SSH the lab's hosts are not this machine: the most loaded one */
	if (rig_cols(r) >= 8)
		fprintf(f, ", '' using 1:($8 >= 0 ? $8 : 1/0) lw 2 lc rgb '#0060c0' "
			   "title 'CPU pressure, worst host'");
	fputc('\n', f);
}

/* One marker's label: its verdicts, one window's, "cls target; cls+cls target". */
static void verdict_label(const struct comp_obs *o, size_t i, size_t *next, char *buf, size_t len)
{
	const struct verdict *v = &o->verdicts[i];
	size_t k = i + 1, n;

	n = (size_t)snprintf(buf, len, "%s", v->cls);
	for (; k < o->n_verdicts && o->verdicts[k].time - v->time < 1e-3; k++)
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s",
				      strcmp(o->verdicts[k].target, v->target) ? "; " : "+",
				      o->verdicts[k].cls);
	snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, " %s", v->target);
	*next = k;
}

int comp_plot_verdicts(const struct comp_report *r, const char *name)
{
	double t0 = comp_t0(r->t);
	char path[PATH_MAX + 32], label[512], last[512] = "";
	size_t runs = 0, row = 0;
	double at = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	if (!(f = fopen(path, "we")))
		return -errno;
	/* index 0: a marker a window with verdicts */
	fprintf(f, "# t_s label (the verdicts of one window on one line; t: %s)\n",
		comp_time_label(r->t));
	for (size_t i = 0, k; i < r->obs->n_verdicts; i = k) {
		verdict_label(r->obs, i, &k, label, sizeof(label));
		fprintf(f, "%.3f \"%s\"\n", r->obs->verdicts[i].time - t0, label);
	}
	/*
	 * index 1: what they said, written level and clear of the markers (issue 58:
	 * a label a marker, turned upright on it, could not be read): the same
	 * label in windows one after another once, with how many, each where its
	 * first marker is, on one of three rows near the top of the panel (y as
	 * a share of its height) so that neighbours do not overlap.
	 */
	fprintf(f, "\n\n# t_s row_y label (the same label of windows in a row once)\n");
	for (size_t i = 0, k; i <= r->obs->n_verdicts; i = k) {
		if (i < r->obs->n_verdicts)
			verdict_label(r->obs, i, &k, label, sizeof(label));
		else
			k = i + 1, label[0] = '\0';
		if (runs && (i == r->obs->n_verdicts || strcmp(label, last))) {
			fprintf(f, "%.3f %.2f \"%s", at, 0.93 - 0.08 * (double)(row++ % 3), last);
			fprintf(f, runs > 1 ? " (x%zu)\"\n" : "\"\n", runs);
			runs = 0;
		}
		if (i == r->obs->n_verdicts)
			break;
		if (!runs)
			at = r->obs->verdicts[i].time - t0,
			snprintf(last, sizeof(last), "%s", label);
		runs++;
	}
	return fclose(f) ? -errno : 0;
}

const char *comp_plot_verdict_series(const char *file, char *buf, size_t len)
{
	snprintf(buf, len,
		 "'%s' index 0 using 1:(0) with points pt 9 ps 1.8 lc rgb '#a00000' "
		 "title 'verdict (listed in report.html)', "
		 "'' index 1 using 1:2:3 axes x1y2 with labels left font 'Sans,7' "
		 "tc rgb '#a00000' notitle",
		 file);
	return buf;
}

bool comp_plot_span(const struct comp_times *t, double start, double end, double span[2])
{
	double t0 = comp_t0(t), lo, hi;

	/*
	 * Clipped to the x range as the script gives it (a tenth): one window over
	 * the whole run, clipped to its exact start and end, fell 3 ms outside a
	 * range rounded inwards, and gnuplot found no point to draw.
	 */
	plot_range(t, &lo, &hi);
	lo = fmax(start - t0, lo);
	hi = fmin(end - t0, hi);
	if (!(lo < hi))
		return false;
	span[0] = lo;
	span[1] = hi;
	return true;
}

#define NO_POINTS_LABEL 101 /* label 100: the caption, on the first panel */

void comp_plot_yaxis(FILE *f, bool points, const char *yrange, double lo, double hi)
{
	if (points) {
		fprintf(f, "set yrange %s\n", yrange);
		return;
	}
	fprintf(f, "set yrange [%g:%g]\n", lo, hi);
	fprintf(f,
		"set label %d 'no window of the analyzer has a value in this time' "
		"at graph 0.5, graph 0.5 center font 'Sans,9'\n",
		NO_POINTS_LABEL);
}

void comp_plot_yaxis_end(FILE *f)
{
	fprintf(f, "unset label %d\n", NO_POINTS_LABEL);
}

static int comp_plot_draw(const struct comp_report *r, const char *gp)
{
	/*
	 * It runs in the scenario's folder, so report.gp redraws from there as
	 * it is; gp named from there (an OUTDIR given relative was looked for
	 * twice over, and no plot was drawn).
	 */
	const char *base = strrchr(gp, '/');
	int rc = proc_gnuplot(r->dir, base ? base + 1 : gp);

	if (rc == -ENOENT)
		rl_warn("gnuplot is not installed; %s/%s not drawn ('make deps')", r->dir, r->png);
	else if (rc)
		rl_warn("gnuplot failed (%d) on %s, see %s/gnuplot.log", rc, gp, r->dir);
	return rc == -ENOENT ? rc : rc ? -EIO : 0;
}

int comp_plot_end(const struct comp_report *r, FILE *f, const char *gp)
{
	plot_rig(r, f);
	fprintf(f, "unset multiplot\n");
	fclose(f);
	return comp_plot_draw(r, gp);
}

/* ---- a plot's description read back ------------------------------------------------------- */

/* The string at key into buf: false when absent, not a string, holding a NUL or too long. */
static bool desc_str(const json_t *o, const char *key, char *buf, size_t len)
{
	const json_t *v = json_object_get(o, key);
	const char *s = json_string_value(v);

	if (!s || strlen(s) != json_string_length(v) || strlen(s) >= len)
		return false;
	strcpy(buf, s);
	return true;
}

/* A time of the description: finite, within CLOCK_REALTIME's seconds of the next 1,000 years. */
static bool desc_time(const json_t *o, const char *key, double *v)
{
	return comp_param_num(o, key, 0, 4e10, v);
}

int comp_plot_desc_read(struct comp_plot_desc *d, const char *text, size_t len, char *err,
			size_t errlen)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *v;
	const json_t *t, *down, *rig;
	const char *bad = NULL;
	double bound = 0, cols = 6;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!root || !json_is_object(root)) {
		if (root)
			snprintf(err, errlen, "not a plot's description (not an object)");
		else
			snprintf(err, errlen, "not a plot's description (%d:%d: %s)", je.line,
				 je.column, je.text);
		json_decref(root);
		return -EINVAL;
	}
	t = json_object_get(root, "times");
	down = json_object_get(root, "down");
	rig = json_object_get(root, "rig");
	if (json_integer_value(json_object_get(root, "rocelab_plot")) != 1)
		bad = "rocelab_plot (1)";
	else if (!desc_str(root, "component", d->component, sizeof(d->component)) ||
		 !rl_name_ok(d->component, sizeof(d->component) - 1))
		bad = "component";
	else if (!desc_str(root, "png", d->png, sizeof(d->png)) || !rl_file_name_ok(d->png, ".png"))
		bad = "png (a file name [A-Za-z0-9_.-] ending in .png)";
	else if (!desc_str(root, "title", d->title, sizeof(d->title)))
		bad = "title";
	else if (!desc_str(root, "caption", d->caption, sizeof(d->caption)))
		bad = "caption";
	else if (!desc_time(t, "start", &d->t.t_start) || !desc_time(t, "end", &d->t.t_end) ||
		 !desc_time(t, "fault", &d->t.t_fault) || !desc_time(t, "revert", &d->t.t_revert) ||
		 (json_object_get(t, "origin") && !desc_time(t, "origin", &d->t.t_origin)) ||
		 d->t.t_end < d->t.t_start)
		bad = "times (start, end, fault, revert, origin: seconds, end after start)";
	else if (!json_is_array(down) || json_array_size(down) > COMP_PLOT_DOWN)
		bad = "down (at most 64 intervals)";
	else if (rig && (!desc_str(rig, "data", d->rig_dat, sizeof(d->rig_dat)) ||
			 !rl_file_name_ok(d->rig_dat, ".dat") ||
			 !desc_str(rig, "source", d->rig_source, sizeof(d->rig_source)) ||
			 !comp_param_num(rig, "bound", 0, 1e3, &bound) ||
			 (json_object_get(rig, "columns") &&
			  !comp_param_num(rig, "columns", 6, 8, &cols)) ||
			 cols != (int)cols))
		bad = "rig (data: a .dat file name, source, bound, columns 6-8)";
	else if (!json_is_object(json_object_get(root, "params")))
		bad = "params (an object)";
	if (!bad)
		json_array_foreach(down, i, v)
		{
			json_t *a = json_array_get(v, 0), *b = json_array_get(v, 1);

			if (json_array_size(v) != 2 || !json_is_number(a) || !json_is_number(b) ||
			    !isfinite(json_number_value(a)) || !isfinite(json_number_value(b))) {
				bad = "down (pairs of seconds)";
				break;
			}
			d->down[i][0] = json_number_value(a);
			d->down[i][1] = json_number_value(b);
		}
	if (bad) {
		snprintf(err, errlen, "%s is missing or wrong", bad);
		json_decref(root);
		return -EINVAL;
	}
	d->params = json_incref(json_object_get(root, "params"));
	d->r = (struct comp_report){.png = d->png,
				    .title = d->title,
				    .caption = d->caption,
				    .t = &d->t,
				    .down = d->down,
				    .n_down = json_array_size(down),
				    .rig_dat = rig ? d->rig_dat : NULL,
				    .rig_source = d->rig_source,
				    .rig_bound = bound,
				    .rig_cols = (int)cols,
				    .component = d->component};
	json_decref(root);
	return 0;
}

void comp_plot_desc_free(struct comp_plot_desc *d)
{
	json_decref(d->params);
	d->params = NULL;
}

bool comp_param_num(const json_t *params, const char *key, double lo, double hi, double *v)
{
	const json_t *j = json_object_get(params, key);
	double x = json_number_value(j);

	if (!json_is_number(j) || !isfinite(x) || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

bool comp_param_flag(const json_t *params, const char *key, bool *v)
{
	const json_t *j = json_object_get(params, key);

	if (!json_is_boolean(j))
		return false;
	*v = json_is_true(j);
	return true;
}

bool comp_param_flag_opt(const json_t *params, const char *key, bool *v)
{
	return !json_object_get(params, key) || comp_param_flag(params, key, v);
}

bool comp_plot_window_flags(const json_t *params, bool *drawn, bool *latency, char *err,
			    size_t errlen)
{
	*drawn = *latency = true;
	if (comp_param_flag_opt(params, "windows", drawn) &&
	    comp_param_flag_opt(params, "latency", latency))
		return true;
	snprintf(err, errlen, "windows and latency are true or false");
	return false;
}

int comp_param_choice(const json_t *params, const char *key, const char *const *list)
{
	const char *s = json_string_value(json_object_get(params, key));

	for (int i = 0; s && list[i]; i++)
		if (!strcmp(s, list[i]))
			return i;
	return -1;
}
