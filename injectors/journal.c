// SPDX-License-Identifier: MIT
/* Append-only JSON-lines journal of faults; each append is fsync'd before the fault is touched. */
#define _GNU_SOURCE
#include "injectors/journal.h"

#include "harness/lib/common.h"
#include "harness/lib/state.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const state_names[] = {"planned", "applied", "reverted"};

const char *journal_state_name(enum journal_state s)
{
	return state_names[s];
}

static char j_dir[4096], j_inv[4096], j_sha[65];

void journal_use(const char *dir, const char *inv_path, const char *inv_sha256)
{
	snprintf(j_dir, sizeof(j_dir), "%s", dir);
	snprintf(j_inv, sizeof(j_inv), "%s", inv_path ? inv_path : "");
	snprintf(j_sha, sizeof(j_sha), "%s", inv_sha256 ? inv_sha256 : "");
}

static const char *journal_dir(void)
{
	return j_dir[0] ? j_dir : state_dir();
}

char *journal_path(char *buf, size_t len)
{
	/* A folder that long is refused when the journal is opened, not cut silently. */
	if ((size_t)snprintf(buf, len, "%s/journal.jsonl", journal_dir()) >= len)
		buf[0] = '\0';
	return buf;
}

static int append_json(json_t *o)
{
	char path[4096];
	char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	int fd, ret = 0;
	size_t len;

	if (!line)
		return -ENOMEM;
	if ((ret = rl_mkdir_p(journal_dir(), 0700))) {
		free(line);
		return ret;
	}
	len = strlen(line);
	line = rl_xrealloc(line, len + 2, 1);
	line[len++] = '\n';
	fd = open(journal_path(path, sizeof(path)), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
	} else {
		char last = '\n';

		/* A crash may have left a torn last line: start on a line of our own. */
		if (lseek(fd, -1, SEEK_END) >= 0 && read(fd, &last, 1) == 1 && last != '\n' &&
		    write(fd, "\n", 1) != 1)
			ret = -errno ? -errno : -EIO;
		if (!ret && (write(fd, line, len) != (ssize_t)len || fsync(fd) < 0))
			ret = -errno ? -errno : -EIO;
		close(fd);
	}
	free(line);
	return ret;
}

int journal_append(const struct fault_plan *p, unsigned id)
{
	json_t *o = json_object(), *acts = json_array();
	char ts[32];
	int ret;

	rl_utc((double)time(NULL), "%Y-%m-%dT%H:%M:%SZ", ts, sizeof(ts));
	json_object_set_new(o, "id", json_integer(id));
	json_object_set_new(o, "event", json_string("planned"));
	json_object_set_new(o, "time", json_string(ts));
	json_object_set_new(o, "kind", json_string(p->kind->name));
	json_object_set_new(o, "target", json_string(p->target));
	json_object_set_new(o, "pid", json_integer(getpid()));
	if (j_inv[0]) {
		json_object_set_new(o, "inventory", json_string(j_inv));
		json_object_set_new(o, "inventory_sha256", json_string(j_sha));
	}
	if (p->note[0])
		json_object_set_new(o, "note", json_string(p->note));
	for (size_t i = 0; i < p->n_acts; i++) {
		const struct fault_action *a = &p->acts[i];
		json_t *ja = json_object();

		/* How it ran; a host op line runs by netlink or as commands, as its lab can. */
		json_object_set_new(ja, "backend", json_string(fault_action_via(p, a)));
		if (a->backend == FB_HOST)
			json_object_set_new(ja, "host_op", json_true());
		json_object_set_new(ja, "device", json_string(a->device));
		json_object_set_new(ja, "apply", json_string(a->apply));
		if (a->apply_input)
			json_object_set_new(ja, "input", json_string(a->apply_input));
		json_object_set_new(ja, "revert", json_string(a->revert));
		if (a->read) {
			json_object_set_new(ja, "read", json_string(a->read));
			json_object_set_new(ja, "read_as", json_string(a->read_as));
			json_object_set_new(ja, "found",
					    a->found ? json_string(a->found) : json_null());
		}
		json_array_append_new(acts, ja);
	}
	json_object_set_new(o, "actions", acts);
	ret = append_json(o);
	json_decref(o);
	return ret;
}

int journal_mark(unsigned id, enum journal_state st)
{
	json_t *o = json_pack("{s:i, s:s}", "id", (int)id, "event", state_names[st]);
	int ret = append_json(o);

	json_decref(o);
	return ret;
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

int journal_load(struct journal_rec **recs, size_t *n)
{
	char path[4096];
	FILE *f = fopen(journal_path(path, sizeof(path)), "re");

	*recs = NULL;
	*n = 0;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	journal_read(f, recs, n);
	fclose(f);
	return 0;
}

void journal_read(FILE *f, struct journal_rec **recs, size_t *n)
{
	char *line = NULL;
	size_t cap = 0;

	*recs = NULL;
	*n = 0;
	while (getline(&line, &cap, f) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		unsigned id;
		const char *ev;

		if (!o)
			continue; /* a torn last line after a crash: the record before it stands */
		id = (unsigned)json_integer_value(json_object_get(o, "id"));
		ev = str(o, "event");
		if (!strcmp(ev, "planned")) {
			struct journal_rec *r = RL_PUSH(*recs, *n);
			size_t i;
			json_t *ja;

			r->id = id;
			snprintf(r->kind, sizeof(r->kind), "%s", str(o, "kind"));
			snprintf(r->target, sizeof(r->target), "%s", str(o, "target"));
			snprintf(r->time, sizeof(r->time), "%s", str(o, "time"));
			snprintf(r->note, sizeof(r->note), "%s", str(o, "note"));
			r->pid = (pid_t)json_integer_value(json_object_get(o, "pid"));
			r->inventory = rl_xstrdup(str(o, "inventory"));
			snprintf(r->inv_sha256, sizeof(r->inv_sha256), "%s",
				 str(o, "inventory_sha256"));
			json_array_foreach(json_object_get(o, "actions"), i, ja)
			{
				struct fault_action *a = RL_PUSH(r->acts, r->n_acts);
				const char *in = json_string_value(json_object_get(ja, "input"));

				a->backend = json_is_true(json_object_get(ja, "host_op")) ||
						     strcmp(str(ja, "backend"), "ssh")
						 ? FB_HOST
						 : FB_SSH;
				snprintf(a->device, sizeof(a->device), "%s", str(ja, "device"));
				a->apply = rl_xstrdup(str(ja, "apply"));
				a->apply_input = in ? rl_xstrdup(in) : NULL;
				a->revert = rl_xstrdup(str(ja, "revert"));
				if (json_string_value(json_object_get(ja, "read"))) {
					const char *fd =
					    json_string_value(json_object_get(ja, "found"));

					fault_action_read(a, str(ja, "read"), str(ja, "read_as"));
					a->found = fd ? rl_xstrdup(fd) : NULL;
				}
			}
		} else {
			for (size_t i = 0; i < *n; i++)
				if ((*recs)[i].id == id)
					(*recs)[i].state = !strcmp(ev, "applied") ? JS_APPLIED
							   : !strcmp(ev, "reverted")
							       ? JS_REVERTED
							       : (*recs)[i].state;
		}
		json_decref(o);
	}
	free(line);
}

void journal_free(struct journal_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct fault_plan p = {.acts = recs[i].acts, .n_acts = recs[i].n_acts};

		fault_plan_clear(&p);
		free(recs[i].inventory);
	}
	free(recs);
}

unsigned journal_next_id(void)
{
	struct journal_rec *r;
	size_t n;
	unsigned max = 0;

	if (journal_load(&r, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (r[i].id > max)
				max = r[i].id;
		journal_free(r, n);
	}
	return max + 1;
}
