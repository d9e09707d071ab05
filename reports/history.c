// SPDX-License-Identifier: MIT
/*
 * The run history in SQLite: one row per run, per scenario's grade and per
 * component metric, recorded from the run's results.json.  Comparisons are
 * SQL joins of two runs' rows on the scenario name.
 */
#define _GNU_SOURCE
#include "reports/history.h"

#include "harness/lib/common.h"
#include "harness/lib/state.h"

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * PRAGMA user_version.  2 (issue 64): results.rank_class and class_size, the
 * truth's rank against its identifiability class and that class's size
 * (results.json's observability); a history of schema 1 gains them when a
 * run is next recorded, and reads as null there until then.
 */
#define HISTORY_SCHEMA 2

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS runs("
    " run_id TEXT PRIMARY KEY, lab TEXT NOT NULL, lab_kind TEXT, inventory TEXT,"
    " inventory_sha256 TEXT, seed INTEGER, version TEXT, started REAL NOT NULL, ended REAL,"
    " outdir TEXT, dut TEXT);"
    "CREATE TABLE IF NOT EXISTS results("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, scenario TEXT NOT NULL,"
    " verdict TEXT NOT NULL, reason TEXT, detected INTEGER, time_to_detect_s REAL,"
    " rank INTEGER, precision REAL, false_positives INTEGER, rank_class INTEGER,"
    " class_size INTEGER, PRIMARY KEY(run_id, scenario));"
    "CREATE TABLE IF NOT EXISTS metrics("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, scenario TEXT NOT NULL,"
    " component TEXT NOT NULL, name TEXT NOT NULL, value REAL, unit TEXT, better TEXT,"
    " PRIMARY KEY(run_id, scenario, component, name));"
    "CREATE INDEX IF NOT EXISTS runs_by_lab ON runs(lab, started);";

const char *history_path(const char *given, char *buf, size_t len)
{
	const char *env = getenv("ROCELAB_DB");

	if (given)
		snprintf(buf, len, "%s", given);
	else if (env && *env)
		snprintf(buf, len, "%s", env);
	else
		state_lib_path(buf, len, "history.sqlite");
	return buf;
}

static int db_error(sqlite3 *db, const char *path, int rc, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	return rc == SQLITE_CONSTRAINT ? -EEXIST : rc == SQLITE_BUSY ? -EBUSY : -EIO;
}

static const char migrate_1_2[] = "ALTER TABLE results ADD COLUMN rank_class INTEGER;"
				  "ALTER TABLE results ADD COLUMN class_size INTEGER;";

/* The schema of an open history (PRAGMA user_version), 0 when it cannot be read. */
static int db_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int ver = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		ver = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return ver;
}

/*
 * Open path (creating it and its folder when create), schema in place (an
 * older one brought up to date when create); NULL + err.
 */
static sqlite3 *db_open(const char *path, bool create, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int rc, ver = 0;

	if (!create && access(path, F_OK)) {
		snprintf(err, errlen,
			 "no run history at %s yet: 'rocelab run' records every run there (--db "
			 "or $ROCELAB_DB to name another)",
			 path);
		errno = ENOENT;
		return NULL;
	}
	if (create) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", path);
		if (rl_mkdir_p(dirname(dir), 0755)) {
			snprintf(err, errlen, "cannot create the folder of %s: %s", path,
				 strerror(errno));
			return NULL;
		}
	}
	rc = sqlite3_open_v2(
	    path, &db, create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY,
	    NULL);
	if (rc != SQLITE_OK)
		goto fail;
	sqlite3_busy_timeout(db, 10000); /* runs of two labs may finish together */
	if ((rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL)) != SQLITE_OK)
		goto fail;
	if (sqlite3_step(st) == SQLITE_ROW)
		ver = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (ver > HISTORY_SCHEMA) {
		snprintf(err, errlen,
			 "%s: a run history of schema %d, made by a newer rocelab (this one reads "
			 "%d)",
			 path, ver, HISTORY_SCHEMA);
		sqlite3_close(db);
		errno = EPROTO;
		return NULL;
	}
	/* Brought up to date under a write lock: another run may be doing the same. */
	if (create && ver < HISTORY_SCHEMA) {
		if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK)
			goto fail;
		ver = db_version(db);
		if (ver < HISTORY_SCHEMA &&
		    ((rc = sqlite3_exec(db, ver == 1 ? migrate_1_2 : schema_sql, NULL, NULL,
					NULL)) != SQLITE_OK ||
		     (rc = sqlite3_exec(db, "PRAGMA user_version = 2", NULL, NULL, NULL)) !=
			 SQLITE_OK)) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
			goto fail;
	}
	if ((rc = sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL)) != SQLITE_OK)
		goto fail;
	return db;
fail:
	db_error(db, path, rc, err, errlen);
	sqlite3_close(db);
	errno = EIO;
	return NULL;
}

/* Bind a JSON value: strings, numbers, booleans (0/1), null and absent as NULL. */
static void bind_json(sqlite3_stmt *st, int i, const json_t *v)
{
	if (json_is_string(v))
		sqlite3_bind_text(st, i, json_string_value(v), -1, SQLITE_TRANSIENT);
	else if (json_is_integer(v))
		sqlite3_bind_int64(st, i, json_integer_value(v));
	else if (json_is_real(v))
		sqlite3_bind_double(st, i, json_real_value(v));
	else if (json_is_boolean(v))
		sqlite3_bind_int(st, i, json_is_true(v));
	else
		sqlite3_bind_null(st, i);
}

static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int record_run(sqlite3 *db, const json_t *root, const char *outdir)
{
	static const char *const keys[] = {
	    "run_id", "lab",	 "lab_kind", "inventory", "inventory_sha256",
	    "seed",   "rocelab", "started",  "ended"};
	sqlite3_stmt *st;
	char *dut = NULL;
	int rc = sqlite3_prepare_v2(db,
				    "INSERT INTO runs(run_id, lab, lab_kind, inventory, "
				    "inventory_sha256, seed, version, started, ended, outdir, dut) "
				    "VALUES(?,?,?,?,?,?,?,?,?,?,?)",
				    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		bind_json(st, (int)i + 1, json_object_get(root, keys[i]));
	if (outdir) { /* absolute: the trend page links each run's folder */
		char *abs = realpath(outdir, NULL);

		sqlite3_bind_text(st, 10, abs ? abs : outdir, -1, SQLITE_TRANSIENT);
		free(abs);
	}
	if (json_object_get(root, "dut"))
		dut = json_dumps(json_object_get(root, "dut"), JSON_COMPACT | JSON_SORT_KEYS);
	if (dut)
		sqlite3_bind_text(st, 11, dut, -1, free);
	rc = step_done(st);
	sqlite3_finalize(st);
	return rc;
}

static int record_scenarios(sqlite3 *db, const char *run, const json_t *scenarios)
{
	static const char *const keys[] = {"verdict",	       "reason", "detected",
					   "time_to_detect_s", "rank",	 "precision",
					   "false_positives"},
				 *const obs_keys[] = {"rank_class", "class_size"};
	sqlite3_stmt *rs = NULL, *ms = NULL;
	const json_t *s;
	size_t i;
	int rc = sqlite3_prepare_v2(db,
				    "INSERT INTO results(run_id, scenario, verdict, reason, "
				    "detected, time_to_detect_s, rank, precision, false_positives, "
				    "rank_class, class_size) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
				    -1, &rs, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"INSERT INTO metrics(run_id, scenario, component, name, "
					"value, unit, better) VALUES(?,?,?,?,?,?,?)",
					-1, &ms, NULL);
	json_array_foreach(scenarios, i, s)
	{
		const char *name = json_string_value(json_object_get(s, "name")), *comp;
		const json_t *c;

		if (rc != SQLITE_OK)
			break;
		sqlite3_bind_text(rs, 1, run, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(rs, 2, name, -1, SQLITE_TRANSIENT);
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
			bind_json(rs, (int)k + 3, json_object_get(s, keys[k]));
		for (size_t k = 0; k < ARRAY_SIZE(obs_keys); k++)
			bind_json(
			    rs, (int)(ARRAY_SIZE(keys) + k) + 3,
			    json_object_get(json_object_get(s, "observability"), obs_keys[k]));
		if ((rc = step_done(rs)) != SQLITE_OK)
			break;
		json_object_foreach((json_t *)json_object_get(s, "components"), comp, c)
		{
			const char *m;
			const json_t *v;

			json_object_foreach((json_t *)json_object_get(c, "metrics"), m, v)
			{
				sqlite3_bind_text(ms, 1, run, -1, SQLITE_TRANSIENT);
				sqlite3_bind_text(ms, 2, name, -1, SQLITE_TRANSIENT);
				sqlite3_bind_text(ms, 3, comp, -1, SQLITE_TRANSIENT);
				sqlite3_bind_text(ms, 4, m, -1, SQLITE_TRANSIENT);
				bind_json(ms, 5, json_object_get(v, "value"));
				bind_json(ms, 6, json_object_get(v, "unit"));
				bind_json(ms, 7, json_object_get(v, "better"));
				if ((rc = step_done(ms)) != SQLITE_OK)
					break;
			}
			if (rc != SQLITE_OK)
				break;
		}
	}
	sqlite3_finalize(rs);
	sqlite3_finalize(ms);
	return rc;
}

int history_check(const json_t *root, char *err, size_t errlen)
{
	const char *run = json_string_value(json_object_get(root, "run_id"));
	const json_t *sc = json_object_get(root, "scenarios");

	if (!run || !json_is_string(json_object_get(root, "lab")) ||
	    !json_is_number(json_object_get(root, "started")) || !json_is_array(sc)) {
		snprintf(err, errlen,
			 "not the results of a run: run_id, lab, started and scenarios are needed "
			 "(results.json of schema_version 2 or later)");
		return -EINVAL;
	}
	/* A results folder may be anyone's: its names reach pages and plots (trends). */
	if (!rl_name_ok(run, 128) ||
	    !rl_name_ok(json_string_value(json_object_get(root, "lab")), 128)) {
		snprintf(err, errlen,
			 "run_id or lab is not a name ([A-Za-z0-9_.:-], not only dots)");
		return -EINVAL;
	}
	for (size_t i = 0; i < json_array_size(sc); i++)
		if (!rl_test_name_ok(
			json_string_value(json_object_get(json_array_get(sc, i), "name")), 95)) {
			snprintf(err, errlen,
				 "scenarios[%zu].name is not a scenario's name ([A-Za-z0-9_.:-], "
				 "#N after it; not only dots): nothing recorded",
				 i);
			return -EINVAL;
		}
	return 0;
}

int history_record(const char *path, const json_t *root, const char *outdir, char *err,
		   size_t errlen)
{
	const char *run = json_string_value(json_object_get(root, "run_id"));
	const json_t *sc = json_object_get(root, "scenarios");
	sqlite3 *db;
	int rc;

	if ((rc = history_check(root, err, errlen)))
		return rc;
	if (!(db = db_open(path, true, err, errlen)))
		return -errno;
	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK && (rc = record_run(db, root, outdir)) == SQLITE_CONSTRAINT) {
		snprintf(err, errlen, "run %s is in %s already", run, path);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(db);
		return -EEXIST;
	}
	if (rc == SQLITE_OK)
		rc = record_scenarios(db, run, sc);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int ret = db_error(db, path, rc, err, errlen);

		if (ret == -EEXIST) /* a scenario without a name or verdict, or twice */
			ret = -EINVAL;
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(db);
		return ret;
	}
	sqlite3_close(db);
	return 0;
}

/* A column as JSON: integer, real, text or null. */
static json_t *col_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_string((const char *)sqlite3_column_text(st, i));
	default:
		return json_null();
	}
}

/* Every row of a query as an object keyed by its column names; NULL on error. */
static json_t *query_rows(sqlite3 *db, const char *sql, const char *const *texts, size_t nt,
			  long long n)
{
	sqlite3_stmt *st;
	json_t *arr;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return NULL;
	for (size_t i = 0; i < nt; i++)
		sqlite3_bind_text(st, (int)i + 1, texts[i], -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, (int)nt + 1, n);
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		for (int i = 0; i < sqlite3_column_count(st); i++)
			json_object_set_new(o, sqlite3_column_name(st, i), col_json(st, i));
		json_array_append_new(arr, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		json_decref(arr), arr = NULL;
	return arr;
}

int history_resolve(const char *path, const char *lab, const char *ref, char *id, size_t idlen,
		    char *err, size_t errlen)
{
	const char *binds[2] = {lab ? lab : "", ref};
	sqlite3 *db = db_open(path, false, err, errlen);
	long long back = 0;
	json_t *ids;
	size_t k;

	if (!db)
		return -errno;
	if (!strncmp(ref, "last", 4) && (!ref[4] || ref[4] == '~')) {
		char *end = NULL;

		if (ref[4] && ((back = strtoll(ref + 5, &end, 10)) < 0 || *end || end == ref + 5)) {
			snprintf(err, errlen,
				 "'%s': give last, or last~N for the N-th run before it", ref);
			sqlite3_close(db);
			return -EINVAL;
		}
		ids = query_rows(db,
				 "SELECT run_id FROM runs WHERE (?1 = '' OR lab = ?1) ORDER BY "
				 "started DESC, run_id DESC LIMIT 1 OFFSET ?2",
				 binds, 1, back);
	} else
		ids = query_rows(db,
				 "SELECT run_id FROM runs WHERE (?1 = '' OR lab = ?1) AND "
				 "substr(run_id, 1, length(?2)) = ?2 LIMIT ?3",
				 binds, 2, 2);
	sqlite3_close(db);
	if (!ids) {
		snprintf(err, errlen, "%s: cannot read the run history", path);
		return -EIO;
	}
#define ID(i) json_string_value(json_object_get(json_array_get(ids, i), "run_id"))
	if (!(k = json_array_size(ids)))
		snprintf(err, errlen, "no run %s%s%s in %s ('rocelab history' lists them)", ref,
			 lab ? " of lab " : "", lab ? lab : "", path);
	else if (k > 1)
		snprintf(err, errlen, "'%s' names more than one run (%s, %s, ...): give more of it",
			 ref, ID(0), ID(1));
	else
		snprintf(id, idlen, "%s", ID(0));
#undef ID
	json_decref(ids);
	return k == 1 ? 0 : k ? -EINVAL : -ENOENT;
}

int history_last_good(const char *path, json_t *root, char *err, size_t errlen)
{
	const char *lab = json_string_value(json_object_get(root, "lab")),
		   *run = json_string_value(json_object_get(root, "run_id"));
	const json_t *started = json_object_get(root, "started");
	sqlite3 *db = db_open(path, false, err, errlen);
	sqlite3_stmt *st;
	json_t *s;
	size_t i;
	int rc;

	if (!db)
		return -errno;
	if (!lab || !run || !json_is_number(started)) {
		sqlite3_close(db);
		snprintf(err, errlen, "not the results of a run");
		return -EINVAL;
	}
	rc = sqlite3_prepare_v2(
	    db,
	    "SELECT r.run_id, r.started, s.time_to_detect_s, s.rank, s.precision, "
	    "s.false_positives FROM results s JOIN runs r ON r.run_id = s.run_id WHERE r.lab = ?1 "
	    "AND s.scenario = ?2 AND s.verdict = 'pass' AND r.run_id != ?3 AND r.started < ?4 "
	    "ORDER BY r.started DESC, r.run_id DESC LIMIT 1",
	    -1, &st, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EIO;
	}
	json_array_foreach(json_object_get(root, "scenarios"), i, s)
	{
		const char *name = json_string_value(json_object_get(s, "name"));
		json_t *o = json_null();

		if (!name || !json_is_object(s))
			continue;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, lab, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, run, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 4, json_number_value(started));
		if (sqlite3_step(st) == SQLITE_ROW) {
			o = json_object();
			for (int c = 0; c < sqlite3_column_count(st); c++)
				json_object_set_new(o, sqlite3_column_name(st, c), col_json(st, c));
		}
		json_object_set_new(s, "last_good", o);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}

int history_outdir(const char *path, const char *id, char *dir, size_t len, char *err,
		   size_t errlen)
{
	const char *binds[1] = {id};
	sqlite3 *db = db_open(path, false, err, errlen);
	json_t *rows;
	const char *d;
	int r = 0;

	if (!db)
		return -errno;
	rows = query_rows(db, "SELECT outdir FROM runs WHERE run_id = ?1", binds, 1, 0);
	sqlite3_close(db);
	d = json_string_value(json_object_get(json_array_get(rows, 0), "outdir"));
	if (!rows) {
		snprintf(err, errlen, "%s: cannot read the run history", path);
		r = -EIO;
	} else if (!d || !*d) {
		snprintf(err, errlen, "run %s has no results folder recorded in %s", id, path);
		r = -ENOENT;
	} else if (snprintf(dir, len, "%s", d) >= (int)len) {
		snprintf(err, errlen, "run %s: its results folder's path is too long", id);
		r = -ENAMETOOLONG;
	}
	json_decref(rows);
	return r;
}

json_t *history_list(const char *path, const char *lab, const char *scenario, int limit, char *err,
		     size_t errlen)
{
	const char *t[2] = {lab ? lab : "", scenario ? scenario : ""};
	sqlite3 *db = db_open(path, false, err, errlen);
	json_t *rows;

	if (!db)
		return NULL;
	if (scenario) {
		char sql[640];

		/* a history of schema 1 has no class columns: null there */
		snprintf(
		    sql, sizeof(sql),
		    "SELECT r.run_id, r.lab, r.seed, r.version, r.started, s.verdict, "
		    "s.reason, s.detected, s.time_to_detect_s, s.rank, s.precision, "
		    "s.false_positives, %s FROM results s JOIN runs r USING(run_id) WHERE (?1 "
		    "= '' OR r.lab = ?1) AND s.scenario = ?2 ORDER BY r.started DESC, r.run_id "
		    "DESC LIMIT ?3",
		    db_version(db) >= 2 ? "s.rank_class, s.class_size"
					: "NULL AS rank_class, NULL AS class_size");
		rows = query_rows(db, sql, t, 2, limit > 0 ? limit : -1);
	} else
		rows = query_rows(
		    db,
		    "SELECT r.run_id, r.lab, r.lab_kind, r.seed, r.version, r.started, r.ended, "
		    "r.outdir, count(s.scenario) AS scenarios, "
		    "coalesce(sum(s.verdict = 'pass'), 0) AS passed, "
		    "coalesce(sum(s.verdict = 'fail'), 0) AS failed, "
		    "coalesce(sum(s.verdict = 'invalid'), 0) AS invalid "
		    "FROM runs r LEFT JOIN results s USING(run_id) WHERE (?1 = '' OR r.lab = ?1) "
		    "GROUP BY r.run_id ORDER BY r.started DESC, r.run_id DESC LIMIT ?2",
		    t, 1, limit > 0 ? limit : -1);
	if (!rows)
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
	sqlite3_close(db);
	return rows;
}

static const char *utc_of(const json_t *t, char *buf, size_t len)
{
	return json_is_number(t) ? rl_utc(json_number_value(t), "%Y-%m-%d %H:%M:%S", buf, len)
				 : "-";
}

/* A number as text: "-" for null, decimals as given. */
static const char *num(const json_t *v, int decimals, char *buf, size_t len)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.*f", decimals, json_number_value(v));
	return buf;
}

/* "R/N": the truth's rank against its class of N (issue 64), "-/N" unranked, "-" unknown. */
static const char *class_col(const json_t *r, char *buf)
{
	const json_t *rank = json_object_get(r, "rank_class"),
		     *n = json_object_get(r, "class_size");

	if (!json_is_integer(n))
		return "-";
	if (json_is_integer(rank))
		snprintf(buf, 24, "%lld/%lld", (long long)json_integer_value(rank),
			 (long long)json_integer_value(n));
	else
		snprintf(buf, 24, "-/%lld", (long long)json_integer_value(n));
	return buf;
}

void history_print_list(const json_t *list, const char *scenario, FILE *f)
{
	const json_t *r;
	size_t i;
	char t[32], a[32], b[32], c[32], d[24];

	if (!json_array_size(list)) {
		fprintf(f, "no runs recorded%s%s\n", scenario ? " of " : "",
			scenario ? scenario : "");
		return;
	}
	if (scenario)
		fprintf(f, "%-22s %-19s %-7s %7s %4s %5s %9s %3s  %s\n", "RUN", "STARTED (UTC)",
			"VERDICT", "TTD(s)", "RANK", "CLASS", "PRECISION", "FP", "REASON");
	else
		fprintf(f, "%-22s %-19s %-16s %10s %4s %4s %7s  %s\n", "RUN", "STARTED (UTC)",
			"LAB", "SEED", "PASS", "FAIL", "INVALID", "VERSION");
	json_array_foreach(list, i, r)
	{
#define S(k) json_string_value(json_object_get(r, k))
#define I(k) (long long)json_integer_value(json_object_get(r, k))
		if (scenario)
			fprintf(f, "%-22s %-19s %-7s %7s %4s %5s %9s %3lld  %s\n", S("run_id"),
				utc_of(json_object_get(r, "started"), t, sizeof(t)), S("verdict"),
				num(json_object_get(r, "time_to_detect_s"), 1, a, sizeof(a)),
				num(json_object_get(r, "rank"), 0, b, sizeof(b)), class_col(r, d),
				num(json_object_get(r, "precision"), 2, c, sizeof(c)),
				I("false_positives"), S("reason") ? S("reason") : "");
		else
			fprintf(f, "%-22s %-19s %-16s %10lld %4lld %4lld %7lld  %s\n", S("run_id"),
				utc_of(json_object_get(r, "started"), t, sizeof(t)), S("lab"),
				I("seed"), I("passed"), I("failed"), I("invalid"),
				S("version") ? S("version") : "");
#undef S
#undef I
	}
}

/* ---- compare ------------------------------------------------------------------------- */

static void finding(json_t *arr, const char *scenario, const char *what, json_t *a, json_t *b,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void finding(json_t *arr, const char *scenario, const char *what, json_t *a, json_t *b,
		    const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	json_array_append_new(arr, json_pack("{s:s,s:s,s:o,s:o,s:s}", "scenario", scenario, "what",
					     what, "a", a, "b", b, "text", text));
}

static double dbl(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double worse_by(double a, double abs_m, double rel)
{
	return fmax(abs_m, rel * fabs(a));
}

/* One scenario's two grades (row of a join: a_* and b_*). */
static void compare_grades(const json_t *row, const struct history_margins *m, json_t *reg,
			   json_t *fixed)
{
	const char *sc = json_string_value(json_object_get(row, "scenario"));
	const char *va = json_string_value(json_object_get(row, "a_verdict"));
	const char *vb = json_string_value(json_object_get(row, "b_verdict"));
	const char *why = json_string_value(json_object_get(row, "b_reason"));
	double ta = dbl(row, "a_ttd"), tb = dbl(row, "b_ttd"), pa = dbl(row, "a_precision"),
	       pb = dbl(row, "b_precision"), ra = dbl(row, "a_rank"), rb = dbl(row, "b_rank");
	double fa = dbl(row, "a_fp"), fb = dbl(row, "b_fp");

	if (!strcmp(va, "pass") && strcmp(vb, "pass"))
		finding(reg, sc, "verdict", json_string(va), json_string(vb), "%s -> %s: %s", va,
			vb, why && *why ? why : "(no reason)");
	else if (strcmp(va, "pass") && !strcmp(vb, "pass"))
		finding(fixed, sc, "verdict", json_string(va), json_string(vb), "%s -> pass", va);
	if (!isnan(ta) && isnan(tb))
		finding(reg, sc, "detected", json_real(ta), json_null(),
			"no longer detected (was %.1f s after the fault)", ta);
	else if (!isnan(ta) && !isnan(tb) && tb > ta + worse_by(ta, m->ttd_abs, m->ttd_rel))
		finding(reg, sc, "time_to_detect_s", json_real(ta), json_real(tb),
			"time to detect %.1f s -> %.1f s", ta, tb);
	else if (!isnan(ta) && !isnan(tb) && tb < ta - worse_by(ta, m->ttd_abs, m->ttd_rel))
		finding(fixed, sc, "time_to_detect_s", json_real(ta), json_real(tb),
			"time to detect %.1f s -> %.1f s", ta, tb);
	if (!isnan(ra) && ra > 0 && (isnan(rb) || rb <= 0 || rb > ra)) {
		char rbs[32] = "not among the suspects";

		if (!isnan(rb) && rb > 0)
			snprintf(rbs, sizeof(rbs), "%.0f", rb);
		finding(reg, sc, "rank", json_integer((long long)ra),
			isnan(rb) || rb <= 0 ? json_null() : json_integer((long long)rb),
			"the fault's element ranked %.0f -> %s", ra, rbs);
	}
	if (!isnan(pa) && !isnan(pb) && pb < pa - m->precision)
		finding(reg, sc, "precision", json_real(pa), json_real(pb),
			"precision %.2f -> %.2f", pa, pb);
	if (!isnan(fa) && !isnan(fb) && fb > fa)
		finding(reg, sc, "false_positives", json_integer((long long)fa),
			json_integer((long long)fb), "false positives %.0f -> %.0f", fa, fb);
	else if (!isnan(fa) && !isnan(fb) && fb < fa)
		finding(fixed, sc, "false_positives", json_integer((long long)fa),
			json_integer((long long)fb), "false positives %.0f -> %.0f", fa, fb);
}

/* Metrics both runs reported: worse in the direction the scenario's expectation names. */
static void compare_metric(const json_t *row, const struct history_margins *m, json_t *reg,
			   json_t *fixed)
{
	const char *sc = json_string_value(json_object_get(row, "scenario"));
	const char *better = json_string_value(json_object_get(row, "better"));
	const char *unit = json_string_value(json_object_get(row, "unit"));
	double a = dbl(row, "a_value"), b = dbl(row, "b_value"), d = worse_by(a, 0, m->metric);
	char what[160];
	int dir;

	if (!better || isnan(a) || isnan(b))
		return;
	dir = !strcmp(better, "higher") ? 1 : !strcmp(better, "lower") ? -1 : 0;
	snprintf(what, sizeof(what), "metric %s/%s",
		 json_string_value(json_object_get(row, "component")),
		 json_string_value(json_object_get(row, "name")));
	if ((dir > 0 && b < a - d) || (dir < 0 && b > a + d))
		finding(reg, sc, what, json_real(a), json_real(b), "%s %g -> %g %s (%s is better)",
			what + 7, a, b, unit ? unit : "", better);
	else if ((dir > 0 && b > a + d) || (dir < 0 && b < a - d))
		finding(fixed, sc, what, json_real(a), json_real(b), "%s %g -> %g %s", what + 7, a,
			b, unit ? unit : "");
}

static json_t *run_row(sqlite3 *db, const char *id)
{
	const char *t[1] = {id};
	json_t *rows = query_rows(db,
				  "SELECT run_id, lab, seed, version, started, inventory_sha256 "
				  "FROM runs WHERE run_id = ?1 LIMIT ?2",
				  t, 1, 1);
	json_t *r = json_incref(json_array_get(rows, 0));

	json_decref(rows);
	return r;
}

json_t *history_compare(const char *path, const char *a, const char *b,
			const struct history_margins *m, char *err, size_t errlen)
{
	const char *ab[2] = {a, b};
	sqlite3 *db = db_open(path, false, err, errlen);
	json_t *ra, *rb, *grades, *metrics, *only_a, *only_b, *reg, *fixed, *out, *row;
	size_t i;

	if (!db)
		return NULL;
	ra = run_row(db, a);
	rb = run_row(db, b);
	grades = query_rows(
	    db,
	    "SELECT b.scenario AS scenario, a.verdict AS a_verdict, b.verdict AS b_verdict, "
	    "b.reason AS b_reason, a.time_to_detect_s AS a_ttd, b.time_to_detect_s AS b_ttd, "
	    "a.rank AS a_rank, b.rank AS b_rank, a.precision AS a_precision, "
	    "b.precision AS b_precision, a.false_positives AS a_fp, b.false_positives AS b_fp "
	    "FROM results b JOIN results a ON a.scenario = b.scenario "
	    "WHERE a.run_id = ?1 AND b.run_id = ?2 ORDER BY b.rowid LIMIT ?3",
	    ab, 2, -1);
	metrics =
	    query_rows(db,
		       "SELECT b.scenario AS scenario, b.component AS component, b.name AS "
		       "name, a.value AS a_value, b.value AS b_value, b.unit AS unit, "
		       "coalesce(b.better, a.better) AS better FROM metrics b JOIN metrics a "
		       "ON a.scenario = b.scenario AND a.component = b.component AND a.name = "
		       "b.name WHERE a.run_id = ?1 AND b.run_id = ?2 ORDER BY b.rowid LIMIT ?3",
		       ab, 2, -1);
	only_a = query_rows(db,
			    "SELECT scenario FROM results WHERE run_id = ?1 AND scenario NOT IN "
			    "(SELECT scenario FROM results WHERE run_id = ?2) ORDER BY 1 LIMIT ?3",
			    ab, 2, -1);
	only_b = query_rows(db,
			    "SELECT scenario FROM results WHERE run_id = ?2 AND scenario NOT IN "
			    "(SELECT scenario FROM results WHERE run_id = ?1) ORDER BY 1 LIMIT ?3",
			    ab, 2, -1);
	if (!ra || !rb || !grades || !metrics || !only_a || !only_b) {
		snprintf(err, errlen, "%s: cannot read runs %s and %s: %s", path, a, b,
			 !ra || !rb ? "not recorded" : sqlite3_errmsg(db));
		out = NULL;
		goto done;
	}
	reg = json_array();
	fixed = json_array();
	json_array_foreach(grades, i, row) compare_grades(row, m, reg, fixed);
	json_array_foreach(metrics, i, row) compare_metric(row, m, reg, fixed);
	out = json_pack("{s:O,s:O,s:I,s:o,s:o,s:[],s:[],s:{s:f,s:f,s:f,s:f}}", "a", ra, "b", rb,
			"compared", (json_int_t)json_array_size(grades), "regressions", reg,
			"improved", fixed, "only_a", "only_b", "margins", "ttd_s", m->ttd_abs,
			"ttd_share", m->ttd_rel, "metric_share", m->metric, "precision",
			m->precision);
	json_array_foreach(only_a, i, row)
	    json_array_append(json_object_get(out, "only_a"), json_object_get(row, "scenario"));
	json_array_foreach(only_b, i, row)
	    json_array_append(json_object_get(out, "only_b"), json_object_get(row, "scenario"));
done:
	json_decref(ra), json_decref(rb), json_decref(grades), json_decref(metrics);
	json_decref(only_a), json_decref(only_b);
	sqlite3_close(db);
	return out;
}

size_t history_print_compare(const json_t *c, FILE *f)
{
	const json_t *a = json_object_get(c, "a"), *b = json_object_get(c, "b"), *x;
	const json_t *reg = json_object_get(c, "regressions");
	char ta[32], tb[32];
	size_t i;

	fprintf(f, "compare %s (%s UTC) -> %s (%s UTC), lab %s: %lld scenario(s) in both\n",
		json_string_value(json_object_get(a, "run_id")),
		utc_of(json_object_get(a, "started"), ta, sizeof(ta)),
		json_string_value(json_object_get(b, "run_id")),
		utc_of(json_object_get(b, "started"), tb, sizeof(tb)),
		json_string_value(json_object_get(b, "lab")),
		(long long)json_integer_value(json_object_get(c, "compared")));
	json_array_foreach(reg, i, x)
	    fprintf(f, "  REGRESSED  %s: %s\n", json_string_value(json_object_get(x, "scenario")),
		    json_string_value(json_object_get(x, "text")));
	json_array_foreach(json_object_get(c, "improved"), i, x)
	    fprintf(f, "  improved   %s: %s\n", json_string_value(json_object_get(x, "scenario")),
		    json_string_value(json_object_get(x, "text")));
	json_array_foreach(json_object_get(c, "only_a"), i, x)
	    fprintf(f, "  only in A  %s\n", json_string_value(x));
	json_array_foreach(json_object_get(c, "only_b"), i, x)
	    fprintf(f, "  only in B  %s\n", json_string_value(x));
	if (json_array_size(reg))
		fprintf(f, "%zu regression(s)\n", json_array_size(reg));
	else
		fprintf(f, "no regressions\n");
	return json_array_size(reg);
}

json_t *history_trends(const char *path, const char *lab, int limit, char *err, size_t errlen)
{
	const char *t[1] = {lab ? lab : ""};
	sqlite3 *db = db_open(path, false, err, errlen);
	json_t *rows, *out, *row;
	size_t i;

	if (!db)
		return NULL;
	rows =
	    query_rows(db,
		       "SELECT s.scenario AS scenario, r.run_id, r.started, s.verdict, "
		       "s.time_to_detect_s, s.false_positives, s.precision FROM results s JOIN "
		       "runs r USING(run_id) WHERE r.run_id IN (SELECT run_id FROM runs WHERE "
		       "?1 = '' OR lab = ?1 ORDER BY started DESC LIMIT ?2) ORDER BY s.scenario, "
		       "r.started",
		       t, 1, limit > 0 ? limit : -1);
	if (!rows) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_close(db);
	out = json_object();
	json_array_foreach(rows, i, row)
	{
		const char *sc = json_string_value(json_object_get(row, "scenario"));
		json_t *arr = json_object_get(out, sc);

		if (!arr)
			json_object_set_new(out, sc, arr = json_array());
		json_array_append(arr, row);
	}
	json_decref(rows);
	return out;
}
