// SPDX-License-Identifier: MIT
/* Dead-man timers on the devices a fault changes: armed first, re-armed while live, cancelled last.
 */
#define _GNU_SOURCE
#include "injectors/deadman.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/host_cmd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fault_deadman_owner(char *buf, size_t len)
{
	char *id = rl_read_file("/etc/machine-id", NULL), host[256] = "";
	const char *from = id && id[0] ? id : host;
	size_t n = 0;

	if (!id || !id[0])
		gethostname(host, sizeof(host) - 1);
	for (const char *p = from; *p && n < 8 && n + 1 < len; p++)
		if (isalnum((unsigned char)*p))
			buf[n++] = *p;
	buf[n] = '\0';
	free(id);
	return buf;
}

/*
 * Can a's undo run in a shell on its device: a host, or a switch whose login
 * is a shell (Linux; SONiC's and Cumulus's, where 'config' and 'nv' are
 * commands of bash)?  EOS logs into its own CLI.
 */
static bool shell_device(const struct inventory *inv, const struct fault_action *a)
{
	const struct inv_switch *sw;

	if (a->backend == FB_HOST)
		return true;
	if (a->backend != FB_SSH || !(sw = inventory_switch(inv, a->device)))
		return a->backend == FB_SSH; /* a host's own command line */
	return sw->dialect == INV_DIALECT_LINUX || sw->dialect == INV_DIALECT_SONIC ||
	       sw->dialect == INV_DIALECT_NVUE;
}

/* a's undo as a shell line into b ("" for a host op that runs nothing); 0 or -E2BIG. */
static int undo_line(const struct fault_action *a, struct sbuf *b, char *why, size_t whylen)
{
	char buf[512], err[256];
	const char *argv[HOST_CMD_MAX_WORDS];

	if (a->backend != FB_HOST) {
		sb_printf(b, "%s", a->revert);
		return 0;
	}
	if (host_op_command(a->revert, buf, sizeof(buf), argv, err, sizeof(err))) {
		snprintf(why, whylen, "the undo '%s' on %s cannot be a dead-man timer's: %s",
			 a->revert, a->device, err);
		return -E2BIG;
	}
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sb_add(b, " ", 1);
		/* a word as it stands when nothing in it means anything to the shell */
		if (argv[i][0] &&
		    !argv[i][strspn(argv[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "abcdefghijklmnopqrstuvwxyz0123456789_./:,@%+=-")])
			sb_printf(b, "%s", argv[i]);
		else
			sb_add_shell_word(b, argv[i]);
	}
	return 0;
}

/*
 * The timer itself, run as 'sh -c BODY rocelab-deadman LEASE' in a session of
 * its own: it sleeps toward the deadline its lease holds, DEADMAN_NAP_S at
 * most at a time, and reads it again, so that it wakes every few seconds
 * rather than every second beside the traffic under test; a re-arm wakes it
 * (SIGUSR1) to read the new deadline at once, for the one after the
 * verification brings it nearer.  Gone when its lease file is, or at
 * SIGTERM with its sleep (the cancel); fired when the deadline has passed:
 * the lease removed, a note of when left beside it for the controller, then
 * the undo, which no SIGTERM interrupts.
 */
#define DEADMAN_NAP_S 5
static void timer_body(struct sbuf *b, const char *undo)
{
	sb_printf(b,
		  "f=$1\n"
		  "s=\n"
		  "trap 'kill $s 2>/dev/null; exit 0' TERM\n"
		  "trap 'kill $s 2>/dev/null' USR1\n"
		  "while [ -e \"$f\" ] || exit 0; do\n"
		  "\tw=1\n"
		  "\tread -r dl <\"$f\" || dl=\n"
		  "\tcase $dl in\n"
		  "\t'' | *[!0-9]*) ;;\n"
		  "\t*)\n"
		  "\t\tnow=$(date +%%s)\n"
		  "\t\t[ \"$now\" -lt \"$dl\" ] || break\n"
		  "\t\tw=$((dl - now))\n"
		  "\t\t[ \"$w\" -le %d ] || w=%d\n"
		  "\t\t;;\n"
		  "\tesac\n"
		  "\tsleep \"$w\" &\n"
		  "\ts=$!\n"
		  "\twait \"$s\"\n"
		  "done\n"
		  "trap '' TERM\n"
		  "rm -f \"$f\" \"$f.pid\"\n"
		  "date '+%%Y-%%m-%%dT%%H:%%M:%%S%%z' >\"$f.fired\"\n"
		  "%s\n",
		  DEADMAN_NAP_S, DEADMAN_NAP_S, undo);
}

/* Is a's device an EOS switch, whose timer is a configuration session's commit timer? */
static bool eos_device(const struct inventory *inv, const struct fault_action *a)
{
	const struct inv_switch *sw;

	return a->backend == FB_SSH && (sw = inventory_switch(inv, a->device)) &&
	       sw->dialect == INV_DIALECT_EOS;
}

/* s seconds as EOS's commit timer takes them, hh:mm:ss (napalm's EOS driver: "%H:%M:%S"). */
static const char *hms(long long s, char *buf, size_t len)
{
	snprintf(buf, len, "%02lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

/*
 * A timer as the plan's action at i (before the device's first step), with
 * its re-arm, lease and what firing does.
 */
static void insert_timer(struct fault_plan *p, size_t i, enum fault_backend be, const char *dev,
			 const char *arm, const char *cancel, const char *rearm, long long lease_s,
			 const char *fires)
{
	struct fault_action tmp = *fault_plan_add(p, be, dev, arm, NULL, cancel), *t;

	memmove(&p->acts[i + 1], &p->acts[i], (p->n_acts - 1 - i) * sizeof(tmp));
	p->acts[i] = tmp;
	t = &p->acts[i];
	t->rearm = rl_xstrdup(rearm);
	t->lease_ms = lease_s * 1000;
	t->fires = rl_xstrdup(fires);
}

/*
 * EOS (issue 63): its login is its own CLI, so the timer is EOS's own.  An
 * empty configuration session committed with a commit timer: unless the
 * session is committed again before the timer passes, EOS rolls the running
 * configuration back to what it was at that commit, which is what the fault
 * found, undoing every step it took there since (and anything else changed
 * there meanwhile: a dead-man's rollback takes the switch back whole).  The
 * injector moves it on by giving the commit timer again; at the revert, after
 * the fault's own undo, it confirms the session ('configure session S
 * commit'), which ends the timer and keeps what the undo restored.  The
 * commands as napalm's EOS driver gives them (napalm/eos/eos.py:
 * commit_config(revert_in), confirm_commit(), _get_pending_commits(): state
 * pendingCommitTimer); none has run on an EOS switch here.
 */
static void eos_timer(struct fault_plan *p, size_t i, const char *dev, unsigned id,
		      const char *owner, long long lease_s, const char *fires)
{
	char name[64], first[32], again[32], arm[320], rearm[192], cancel[192], what[2048];

	snprintf(name, sizeof(name), "rocelab-f%u-%s", id, owner);
	hms(lease_s + DEADMAN_VERIFY_MS / 1000, first, sizeof(first));
	hms(lease_s, again, sizeof(again));
	snprintf(arm, sizeof(arm),
		 "configure session %s\nend\nconfigure session %s commit timer %s", name, name,
		 first);
	snprintf(rearm, sizeof(rearm), "configure session %s commit timer %s", name, again);
	snprintf(cancel, sizeof(cancel), "configure session %s commit", name);
	/* the device's undo, one line: "configure; interface Ethernet1; no shutdown; end" */
	size_t n = (size_t)snprintf(what, sizeof(what),
				    "EOS rolls back to its configuration as armed, undoing: ");

	for (const char *c = fires; *c && n + 3 < sizeof(what); c++)
		if (*c == '\n')
			n += (size_t)snprintf(what + n, sizeof(what) - n, "; ");
		else
			what[n++] = *c;
	what[n < sizeof(what) ? n : sizeof(what) - 1] = '\0';
	insert_timer(p, i, FB_SESSION, dev, arm, cancel, rearm, lease_s, what);
}

bool fault_spec_stays(const struct fault_spec *s)
{
	return s->for_ms || s->hold || s->kind->live;
}

int fault_plan_deadman(struct fault_plan *p, const struct inventory *inv,
		       const struct fault_spec *s, unsigned id, const char *owner, char *why,
		       size_t whylen)
{
	long long lease_s = ((s->deadman_ms ? s->deadman_ms : DEADMAN_LEASE_MS) + 999) / 1000;
	char others[160] = "";

	if (!fault_spec_stays(s))
		return 0;

	for (size_t i = 0; i < p->n_acts; i++) {
		const struct fault_action *a = &p->acts[i];
		struct sbuf undo = {0}, fires = {0}, body = {0}, arm = {0}, cancel = {0},
			    rearm = {0};
		char name[INV_NAME_MAX + 48], dev[INV_NAME_MAX + 1];
		bool seen = false;
		int r = 0;

		for (size_t k = 0; k < i; k++)
			seen |= !strcmp(p->acts[k].device, a->device);
		if (seen || fault_action_is_deadman(a))
			continue;
		if (!shell_device(inv, a) && !eos_device(inv, a)) {
			if (!fault_plan_names(others, a->device))
				snprintf(others + strlen(others), sizeof(others) - strlen(others),
					 "%s%s", others[0] ? " " : "", a->device);
			continue;
		}
		/* the undo of every action of this device, newest first */
		for (size_t k = p->n_acts; k-- > i && !r;) {
			size_t at = undo.len;

			if (strcmp(p->acts[k].device, a->device))
				continue;
			r = undo_line(&p->acts[k], &undo, why, whylen);
			if (undo.len > at) {
				sb_add(&undo, "\n", 1);
				sb_printf(&fires, "%s%.*s", fires.len ? "; " : "",
					  (int)(undo.len - at - 1), undo.p + at);
			}
		}
		if (r) {
			sb_free(&undo);
			sb_free(&fires);
			return r;
		}
		snprintf(dev, sizeof(dev), "%s", a->device);
		if (eos_device(inv, a)) {
			eos_timer(p, i, dev, id, owner, lease_s, fires.len ? fires.p : "nothing");
			i++; /* past the device's first action, now at i + 1 */
			sb_free(&undo);
			sb_free(&fires);
			continue;
		}
		snprintf(name, sizeof(name), "f%u-%s-%s", id, dev, owner);
		timer_body(&body, undo.len ? undo.p : ":\n");
		sb_printf(&arm,
			  DEADMAN_DIR_SH
			  "umask 077; f=\"$d/%s\"; "
			  "{ mkdir -p \"$d\" && [ -O \"$d\" ] && [ ! -h \"$d\" ]; } || "
			  "{ echo \"cannot keep a dead-man timer in $d (not made, or not this "
			  "login's own)\" >&2; exit 1; }; "
			  "rm -f \"$f.fired\" && "
			  "echo $(( $(date +%%s) + %lld )) >\"$f\" && "
			  "{ setsid sh -c ",
			  name, lease_s + DEADMAN_VERIFY_MS / 1000);
		sb_add_shell_word(&arm, body.p);
		sb_printf(&arm, " rocelab-deadman \"$f\" </dev/null >/dev/null 2>&1 & "
				"echo $! >\"$f.pid\"; } && kill -0 \"$(cat \"$f.pid\")\"");
		sb_printf(
		    &rearm,
		    DEADMAN_DIR_SH
		    "umask 077; f=\"$d/%s\"; "
		    "if [ -e \"$f\" ] && p=$(cat \"$f.pid\" 2>/dev/null) && "
		    "grep -qsF \"$f\" \"/proc/$p/cmdline\"; then "
		    "echo $(( $(date +%%s) + %lld )) >\"$f.new\" && mv -f \"$f.new\" \"$f\" && "
		    "kill -USR1 \"$p\"; "
		    "else cat \"$f.fired\" 2>/dev/null; exit %d; fi",
		    name, lease_s, DEADMAN_GONE);
		sb_printf(&cancel,
			  DEADMAN_DIR_SH
			  "f=\"$d/%s\"; "
			  "p=$(cat \"$f.pid\" 2>/dev/null); rm -f \"$f\" \"$f.new\" \"$f.pid\" "
			  "\"$f.fired\"; "
			  "if [ -n \"$p\" ] && grep -qsF \"$f\" \"/proc/$p/cmdline\"; then "
			  "kill \"$p\"; fi; rmdir \"$d\" 2>/dev/null; true",
			  name);
		/* before the device's first action: it is armed before anything changes there */
		insert_timer(p, i, FB_SHELL, dev, arm.p, cancel.p, rearm.p, lease_s,
			     fires.len ? fires.p : "nothing");
		i++; /* past the device's first action, now at i + 1 */
		sb_free(&undo);
		sb_free(&fires);
		sb_free(&body);
		sb_free(&arm);
		sb_free(&rearm);
		sb_free(&cancel);
	}
	if (others[0]) {
		size_t n = strlen(p->note);

		for (char *c = others; (c = strchr(c, ' ')); c++)
			*c = ','; /* "spine1,spine2" */
		snprintf(p->note + n, sizeof(p->note) - n,
			 "%sno dead-man timer on %s (its CLI is not a shell): the injector's own "
			 "revert, or 'rocelab revert'",
			 n ? "; " : "", others);
	}
	return 0;
}

bool fault_action_is_deadman(const struct fault_action *a)
{
	return (a->backend == FB_SHELL || a->backend == FB_SESSION) && a->rearm;
}

void fault_deadman_format(const struct fault_action *a, FILE *f)
{
	if (a->backend == FB_SESSION) {
		fprintf(f,
			"ssh %s dead-man: armed before the fault's first step there, an empty "
			"configuration session committed with a timer (for %lld s, and the "
			"verification's %lld s more): %s\n",
			a->device, a->lease_ms / 1000, DEADMAN_VERIFY_MS / 1000, a->apply);
		fprintf(f,
			"ssh %s dead-man: its timer given again, %lld s, every %lld s while the "
			"injector lives: %s; if it passes, %s\n",
			a->device, a->lease_ms / 1000, a->lease_ms / 3000, a->rearm, a->fires);
		fprintf(f, "ssh %s dead-man: confirmed after the revert, ending the timer: %s\n",
			a->device, a->revert);
		return;
	}
	fprintf(f,
		"shell %s dead-man: armed before the fault's first step there (for %lld s, and "
		"the verification's %lld s more), its deadline moved on to %lld s every %lld s "
		"while the injector lives; if it passes, %s runs: %s\n",
		a->device, a->lease_ms / 1000, DEADMAN_VERIFY_MS / 1000, a->lease_ms / 1000,
		a->lease_ms / 3000, a->device, a->fires);
	fprintf(f, "shell %s dead-man: cancelled after the revert\n", a->device);
}

void fault_deadman_beat(struct fault_run *f, bool now)
{
	unsigned long long t = rl_now_ns();
	long long lease_ms = 0;
	bool retry = false;

	if (!f->deadman_at || f->deadman_fired)
		return;
	for (size_t i = 0; i < f->plan->n_acts; i++)
		if (fault_action_is_deadman(&f->plan->acts[i]))
			lease_ms = f->plan->acts[i].lease_ms;
	if (!now && t < f->deadman_at + (unsigned long long)lease_ms * 1000000ULL / 3)
		return;
	for (size_t i = 0; i < f->plan->n_acts; i++) {
		const struct fault_action *a = &f->plan->acts[i];
		const char *argv[] = {"sh", "-c", a->rearm, NULL};
		char err[384], *out = NULL;
		int r;

		if (!fault_action_is_deadman(a))
			continue;
		if (a->backend == FB_SESSION) {
			/* EOS refusing the timer: none is pending (it passed, or a hand confirmed)
			 */
			r = lab_cli(f->lab, a->device, a->rearm, NULL, NULL, err, sizeof(err));
			r = r > 0 ? DEADMAN_GONE : r;
		} else {
			r = lab_exec(f->lab, a->device, argv, NULL, &out, err, sizeof(err));
		}
		rl_dbg("fault %u: %s's dead-man timer re-armed for %lld s: %d", f->id, a->device,
		       lease_ms / 1000, r);
		if (r == DEADMAN_GONE) {
			char line[480];

			if (out)
				out[strcspn(out, "\n")] = '\0';
			if (out && out[0])
				snprintf(line, sizeof(line),
					 "%s's dead-man timer fired at %.40s before the injector "
					 "re-armed it: %s reverted the fault itself",
					 a->device, out, a->device);
			else if (a->backend == FB_SESSION)
				snprintf(
				    line, sizeof(line),
				    "%s refused its dead-man session's timer (%.200s): none is "
				    "pending, so it passed and %s rolled the fault back itself, "
				    "or a hand confirmed it",
				    a->device, err, a->device);
			else /* no note of when: not by its deadline */
				snprintf(line, sizeof(line),
					 "%s's dead-man timer is gone (cancelled there by another "
					 "hand?): the fault may have been reverted on %s",
					 a->device, a->device);
			rl_err("fault %u: %s", f->id, line);
			if (!f->short_of[0])
				snprintf(f->short_of, sizeof(f->short_of), "%s", line);
			f->deadman_fired = true;
		} else if (r) {
			rl_warn("fault %u: cannot re-arm %s's dead-man timer (%s): it reverts the "
				"fault by itself unless reached within its lease",
				f->id, a->device, err[0] ? err : "exit status");
			retry = true;
		}
		free(out);
	}
	/* one that could not be reached is tried again a second later */
	f->deadman_at =
	    retry ? t - (unsigned long long)lease_ms * 1000000ULL / 3 + 1000000000ULL : t;
}

/* Is the lease at path (its timer's pid in path.pid) still kept by a timer that runs? */
static bool lease_kept(const char *path)
{
	char p[PATH_MAX + 8], *txt, *cmd;
	size_t len = 0;
	bool kept = false;
	int pid;

	snprintf(p, sizeof(p), "%s.pid", path);
	if (!(txt = rl_read_file(p, NULL)))
		return false;
	pid = atoi(txt);
	free(txt);
	snprintf(p, sizeof(p), "/proc/%d/cmdline", pid);
	if (pid > 0 && (cmd = rl_read_file(p, &len))) {
		/* its argv: sh -c BODY rocelab-deadman LEASE, NUL-separated */
		for (size_t i = 0; i < len && !kept; i += strlen(cmd + i) + 1)
			kept = !strcmp(cmd + i, path);
		free(cmd);
	}
	return kept;
}

int fault_deadman_sweep_local(char *const *devices, size_t n)
{
	const char *env = getenv("ROCELAB_DEADMAN_DIR");
	const char *dir = env && env[0] ? env : DEADMAN_DIR;
	char owner[16], tail[32];
	DIR *d = opendir(dir);
	struct dirent *e;
	int swept = 0;

	if (!d)
		return 0;
	fault_deadman_owner(owner, sizeof(owner));
	snprintf(tail, sizeof(tail), "-%s", owner);
	while ((e = readdir(d))) {
		const char *name = e->d_name, *dev;
		size_t len = strlen(name), tl = strlen(tail);
		char path[PATH_MAX];

		/* a lease: f<id>-<device>-<owner>, no extension */
		if (name[0] != 'f' || !isdigit((unsigned char)name[1]) || len <= tl ||
		    strcmp(name + len - tl, tail))
			continue;
		dev = name + 1 + strspn(name + 1, "0123456789");
		if (*dev != '-')
			continue;
		dev++;
		for (size_t i = 0; i < n; i++) {
			size_t dl = strlen(devices[i]);

			if (dev + dl != name + len - tl || strncmp(dev, devices[i], dl))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			if (lease_kept(path))
				break;
			static const char *const ext[] = {"", ".pid", ".new", ".fired"};
			for (size_t k = 0; k < ARRAY_SIZE(ext); k++) {
				char f[PATH_MAX + 8];

				snprintf(f, sizeof(f), "%s%s", path, ext[k]);
				if (unlink(f) && errno != ENOENT)
					rl_warn("cannot remove %s: %s", f, strerror(errno));
			}
			swept++;
			break;
		}
	}
	closedir(d);
	rmdir(dir); /* when that emptied it */
	return swept;
}
