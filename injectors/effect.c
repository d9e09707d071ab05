// SPDX-License-Identifier: MIT
/* Reading a fault's effect back: JSON through the lab's exec, counters under test traffic. */
#define _GNU_SOURCE
#include "injectors/effect.h"

#include "harness/lib/common.h"
#include "injectors/exec.h"

#include <string.h>
#include <time.h>

json_t *fault_read_json(struct fault_run *f, const char *dev, const char *const argv[])
{
	return lab_exec_json(f->lab, dev, argv, f->err, sizeof(f->err));
}

unsigned long long fault_json_sum(json_t *v, const char *key)
{
	unsigned long long total = 0;
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
		{
			if (!strcmp(k, key) && json_is_integer(x))
				total += (unsigned long long)json_integer_value(x);
			else
				total += fault_json_sum(x, key);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) total += fault_json_sum(x, key);
	}
	return total;
}

/*
 * In slices: a signal held while an ssh command ran arrives before
 * nanosleep starts, not during it.
 */
void fault_sleep_ms(long long ms)
{
	unsigned long long end = rl_now_ns() + (unsigned long long)ms * 1000000ULL;

	for (unsigned long long now; !rl_interrupted && (now = rl_now_ns()) < end;) {
		unsigned long long left = end - now < 100000000ULL ? end - now : 100000000ULL;

		nanosleep(&(struct timespec){0, (long)left}, NULL);
	}
}

bool fault_end_readable(const struct inventory *inv, const struct inv_endpoint *ep)
{
	return ep->kind == INV_DEV_HOST || inv->switches[ep->dev].dialect == INV_DIALECT_LINUX;
}

int fault_target_ends(struct fault_run *f, struct inv_endpoint *t, struct inv_endpoint *peer)
{
	const struct fault_spec *s = f->spec;

	*t = (struct inv_endpoint){s->tkind, s->tdev, (size_t)s->tport};
	if (s->tport < 0 || inventory_peer(f->inv, t, peer)) { /* resolve refused these */
		snprintf(f->err, sizeof(f->err), "%s is not cabled", s->target);
		return -EINVAL;
	}
	return 0;
}

bool fault_counters_readable(struct fault_run *f, const struct inv_switch *sw)
{
	if (sw && lab_can(f->lab, LAB_CAP_ENTER) && sw->dialect == INV_DIALECT_LINUX)
		return true;
	snprintf(f->evidence, sizeof(f->evidence), "dialect commands succeeded (no counters read)");
	return false;
}

int fault_verify_nft(struct fault_run *f, struct flow *flows, size_t n)
{
	const struct inv_switch *sw = &f->inv->switches[f->spec->tdev];
	unsigned long long pkts;
	json_t *v;
	int sent;

	if (!fault_counters_readable(f, sw))
		return 0;
	sent = traffic_send(f->lab, flows, n, ROCEV2_UDP_PORT, 41000, 32, 6, 0, 64);
	if (sent < 0) {
		snprintf(f->err, sizeof(f->err), "cannot send test traffic: %s", strerror(-sent));
		return sent;
	}
	v = fault_read_json(
	    f, sw->name,
	    (const char *const[]){"nft", "-j", "list", "table", "inet", f->plan->table, NULL});
	if (!v)
		return -EIO;
	pkts = fault_json_sum(v, "packets");
	json_decref(v);
	if (pkts == 0) {
		snprintf(f->err, sizeof(f->err),
			 "the rule on %s matched none of %d test datagrams: the fault is not on "
			 "their path",
			 sw->name, sent);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence),
		 "nft counters on %s: %llu of %d test datagrams dropped", sw->name, pkts, sent);
	return 0;
}

int fault_undo_actions(struct lab *l, const struct fault_action *acts, size_t n)
{
	char err[512];
	int ret = 0;

	for (size_t i = n; i-- > 0;) {
		int r = fault_exec_action(l, &acts[i], true, err, sizeof(err));

		if (r) {
			rl_err("revert: %s", err);
			ret = r;
		}
	}
	return ret;
}

void fault_run_actions(struct fault_run *f, bool undo)
{
	char err[512];

	if (undo) {
		fault_undo_actions(f->lab, f->plan->acts, f->plan->n_acts);
		return;
	}
	for (size_t i = 0; i < f->plan->n_acts; i++)
		if (fault_exec_action(f->lab, &f->plan->acts[i], false, err, sizeof(err)))
			rl_warn("fault %u: %s", f->id, err);
}
