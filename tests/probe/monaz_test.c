// SPDX-License-Identifier: MIT
/*
 * What every monitor's analyzer shares (probe/monaz.h): windows opened by
 * time, closed oldest first once their grace is over, and the verdict
 * stream's head and suspects as JSON a run reads back.
 */
#define _GNU_SOURCE
#include "harness/component/component.h"
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/out.h"
#include "probe/monaz.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC 1000000000ULL

/* A monitor's window: the head first, then its own. */
struct win {
	struct az_win at;
	int opened_as; /* the open() that made it, counting from 1 */
};

struct fake {
	struct win win[3];
	struct az_ring ring;
	int opens;
	uint64_t closed[16]; /* starts of the windows closed, in order */
	size_t n_closed;
};

static void on_open(void *ctx, void *w, uint64_t start, uint64_t end)
{
	struct fake *f = ctx;

	cr_assert_eq(end - start, 10 * SEC);
	cr_assert_not(((struct win *)w)->at.used, "a window in use is opened again");
	((struct win *)w)->opened_as = ++f->opens;
}

static void on_close(void *ctx, void *w)
{
	struct fake *f = ctx;

	cr_assert(((struct win *)w)->at.used, "a free window is closed");
	f->closed[f->n_closed++] = ((struct win *)w)->at.start;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	az_ring_init(&f->ring, f->win, 3, sizeof(f->win[0]), 10000, 2000, f, on_open, on_close);
}

Test(monaz, a_record_finds_its_window)
{
	struct fake f;
	struct win *a, *b;

	fake_init(&f);
	a = az_ring_get(&f.ring, 100 * SEC + 3);
	cr_assert_eq(a->at.start, 100 * SEC);
	cr_assert_eq(a->at.end, 110 * SEC);
	cr_assert_eq(az_ring_get(&f.ring, 109 * SEC), a, "the same window for the same span");
	b = az_ring_get(&f.ring, 110 * SEC);
	cr_assert_neq(a, b);
	cr_assert_eq(b->at.start, 110 * SEC);
	cr_assert_eq(f.opens, 2);
	cr_assert_eq(f.n_closed, 0);
}

Test(monaz, windows_close_after_their_grace_oldest_first)
{
	struct fake f;

	fake_init(&f);
	az_ring_get(&f.ring, 120 * SEC); /* opened out of order */
	az_ring_get(&f.ring, 100 * SEC);
	az_ring_get(&f.ring, 110 * SEC);
	az_ring_close(&f.ring, 111 * SEC, false);
	cr_assert_eq(f.n_closed, 0, "[100, 110) has 2 s of grace left at 111 s");
	az_ring_close(&f.ring, 122 * SEC, false);
	cr_assert_eq(f.n_closed, 2);
	cr_assert_eq(f.closed[0], 100 * SEC, "the oldest first");
	cr_assert_eq(f.closed[1], 110 * SEC);
	az_ring_close(&f.ring, 0, true);
	cr_assert_eq(f.n_closed, 3);
	cr_assert_eq(f.closed[2], 120 * SEC);
	for (int i = 0; i < 3; i++)
		cr_assert_not(f.win[i].at.used);
	az_ring_close(&f.ring, 0, true);
	cr_assert_eq(f.n_closed, 3, "closed windows are not closed again");
}

Test(monaz, a_full_ring_closes_its_oldest_and_refuses_older_records)
{
	struct fake f;
	struct win *w;

	fake_init(&f);
	for (int i = 0; i < 3; i++)
		az_ring_get(&f.ring, (uint64_t)(100 + 10 * i) * SEC);
	w = az_ring_get(&f.ring, 130 * SEC);
	cr_assert_not_null(w);
	cr_assert_eq(f.n_closed, 1);
	cr_assert_eq(f.closed[0], 100 * SEC, "the oldest made room");
	cr_assert_eq(w->at.start, 130 * SEC);
	cr_assert_null(az_ring_get(&f.ring, 105 * SEC), "a record for a closed window");
	cr_assert_eq(f.n_closed, 1, "and nothing more closed for it");
}

Test(monaz, the_verdict_head_and_suspects_are_json_a_run_reads)
{
	struct inventory *inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	struct az_win w = {.used = true, .start = 100 * SEC, .end = 120 * SEC};
	struct cand c[3] = {{.id = 0, .votes = 9, .good = 1}, {.id = 1, .votes = 4}, {.id = 2}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out o;
	json_error_t je;
	json_t *v, *s;

	cr_assert_not_null(inv);
	out_init(&o, f, OUT_JSON_LINES);
	az_verdict_head(&o, "testmesh", &w, "switch-link", "rail1:swp1--spine1:swp1", 9, 0.75);
	az_suspects(&o, inv, "suspects", true, c, 3, 2);
	out_close(&o);
	fclose(f);
	v = json_loads(buf, 0, &je);
	cr_assert_not_null(v, "%s: %s", je.text, buf);
	cr_assert_str_eq(json_string_value(json_object_get(v, "type")), "verdict");
	cr_assert_str_eq(json_string_value(json_object_get(v, "monitor")), "testmesh");
	cr_assert_str_eq(json_string_value(json_object_get(v, "class")), "switch-link");
	cr_assert_float_eq(json_number_value(json_object_get(v, "time")), 120.0, 1e-9);
	cr_assert_float_eq(json_number_value(json_array_get(json_object_get(v, "window"), 0)),
			   100.0, 1e-9);
	cr_assert_eq(json_integer_value(json_object_get(v, "votes")), 9);
	cr_assert_float_eq(json_number_value(json_object_get(v, "share")), 0.75, 1e-9);
	s = json_object_get(v, "suspects");
	cr_assert_eq(json_array_size(s), 2, "at most max suspects");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(s, 0), "kind")), "link");
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(s, 0), "good")), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(s, 1), "votes")), 4);
	{
		struct verdict vd;

		cr_assert_eq(verdict_from_json(v, &vd), 0, "the run reads what monitors write");
		cr_assert_str_eq(vd.cls, "switch-link");
		cr_assert_str_eq(vd.target, "rail1:swp1--spine1:swp1");
		cr_assert_float_eq(vd.win[1], 120.0, 1e-9);
		cr_assert_eq(vd.n_sus, 2);
		cr_assert_eq(vd.sus[0].votes, 9);
	}
	json_decref(v);
	free(buf);
	inventory_free(inv);
}

/*
 * Issue 64: the paths a monitor's probes took, each link set written once
 * the first time it is seen, as the run reads them (comp_obs_path()).
 */
Test(monaz, each_traced_path_is_written_once_and_read_back)
{
	const rec_link_t p1[] = {0, 17, 21, 5}, p2[] = {5, 21, 17, 0}, p3[] = {0, 17};
	struct az_pathset ps = {0};
	struct comp_obs obs = {0};
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out o;

	out_init(&o, f, OUT_JSON_LINES);
	az_path_seen(&ps, &o, 100 * SEC, p1, 4);
	az_path_seen(&ps, &o, 101 * SEC, p1, 4); /* again: not written */
	az_path_seen(&ps, &o, 102 * SEC, p2, 4); /* the way back: another path */
	az_path_seen(&ps, &o, 103 * SEC, p3, 2);
	for (int i = 0; i < 600; i++) /* the set grows past its first size */
		az_path_seen(&ps, &o, 104 * SEC, (const rec_link_t[]){(rec_link_t)i, 1, 2}, 3);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		json_t *j = json_loads(line, 0, NULL);

		cr_assert_not_null(j, "%s", line);
		cr_assert_str_eq(json_string_value(json_object_get(j, "type")), "path");
		cr_assert_eq(comp_obs_path(&obs, j), 0, "%s", line);
		json_decref(j);
	}
	cr_assert_eq(n, 603);
	cr_assert_eq(ps.n, 603);
	cr_assert_eq(obs.n_paths, 603);
	cr_assert_float_eq(obs.paths[0].t, 100.0, 1e-9);
	cr_assert_eq(obs.paths[0].n, 4);
	cr_assert_eq(obs.paths[0].links[1], 17);
	cr_assert_float_eq(obs.paths[1].t, 102.0, 1e-9, "the second line is the way back");
	cr_assert_eq(obs.paths[1].links[0], 5);
	/* a line that is no path is refused, nothing kept */
	{
		const char *bad[] = {
		    "{\"t\":1,\"links\":[]}", "{\"t\":1,\"links\":[-1]}",
		    "{\"t\":\"x\",\"links\":[1]}", "{\"t\":1,\"links\":[1.5]}",
		    "{\"t\":1,\"links\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}"};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			json_t *j = json_loads(bad[i], 0, NULL);

			cr_assert_eq(comp_obs_path(&obs, j), -EINVAL, "%s", bad[i]);
			json_decref(j);
		}
		cr_assert_eq(obs.n_paths, 603);
	}
	comp_obs_clear(&obs);
	az_pathset_free(&ps);
	free(buf);
}
