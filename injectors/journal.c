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
#include <sys/stat.h>
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
	fd = open(journal_path(path, sizeof(path)), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* a new journal: its name made durable too, not only its bytes */
		fd =
		    open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			int dfd = open(journal_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (dfd < 0 || fsync(dfd) < 0)
				ret = -errno;
			if (dfd >= 0)
				close(dfd);
		}
	}
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
	/* with its start time: revert signals this process, never one that took its pid since */
	json_object_set_new(o, "pid_start", json_integer((json_int_t)rl_proc_start(getpid())));
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
	char path[4096], err[512];
	int fd =
	    open(journal_path(path, sizeof(path)), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	FILE *f;
	int r;

	*recs = NULL;
	*n = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* a folder or a FIFO in its place is no journal: said, not read as empty or waited on */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		r = S_ISREG(st.st_mode) ? -errno : -EINVAL;
		rl_err("%s: %s", path, r == -EINVAL ? "not a regular file" : strerror(-r));
		close(fd);
		errno = -r;
		return r;
	}
	r = journal_read(f, recs, n, err, sizeof(err));
	fclose(f);
	if (r) {
		rl_err("%s:%s", path, err);
		journal_free(*recs, *n);
		*recs = NULL;
		*n = 0;
		errno = -r;
	}
	return r;
}

int journal_read(FILE *f, struct journal_rec **recs, size_t *n, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t len;
	int ret = 0;

	*recs = NULL;
	*n = 0;
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		unsigned id;
		const char *ev;

		no++;
		if (!o && !strncmp(line, "{\"id\":", 6) && !memchr(line, '\n', (size_t)len - 1)) {
			/* a line of ours cut short by a crash mid-append (append_json() starts the
			 * next on a line of its own): the records before it stand */
			rl_warn("journal line %zu: a record cut short by a crash: left out", no);
			continue;
		}
		if (!o || !json_is_integer(json_object_get(o, "id")) ||
		    !json_is_string(json_object_get(o, "event"))) {
			snprintf(
			    err, errlen,
			    "%zu: not a journal record (no id and event): a fault's undo may be "
			    "in it; repair or remove that line by hand, then revert again",
			    no);
			json_decref(o);
			ret = -EBADMSG;
			break;
		}
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
			r->pid_start =
			    (unsigned long long)json_integer_value(json_object_get(o, "pid_start"));
			r->inventory = rl_xstrdup(str(o, "inventory"));
			snprintf(r->inv_sha256, sizeof(r->inv_sha256), "%s",
				 str(o, "inventory_sha256"));
			json_array_foreach(json_object_get(o, "actions"), i, ja)
			{
				struct fault_action *a = RL_PUSH(r->acts, r->n_acts);
				const char *in = json_string_value(json_object_get(ja, "input"));

				a->backend = !strcmp(str(ja, "backend"), "shell")     ? FB_SHELL
					     : !strcmp(str(ja, "backend"), "session") ? FB_SESSION
					     : json_is_true(json_object_get(ja, "host_op")) ||
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
			size_t i;

			for (i = 0; i < *n && (*recs)[i].id != id; i++)
				;
			if (strcmp(ev, "applied") && strcmp(ev, "reverted")) {
				snprintf(err, errlen,
					 "%zu: event '%.32s' of fault %u is no event of a journal: "
					 "repair or remove that line by hand, then revert again",
					 no, ev, id);
				ret = -EBADMSG;
			} else if (i < *n) /* a mark of a fault never planned changes nothing */
				(*recs)[i].state =
				    !strcmp(ev, "applied") ? JS_APPLIED : JS_REVERTED;
		}
		json_decref(o);
	}
	free(line);
	return ret;
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
