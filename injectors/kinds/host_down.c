// SPDX-License-Identifier: MIT
/*
 * host-down: a whole host gone, as the fabric and the monitors see it: every
 * RNIC netdev of the host down and rocelab's monitor agents there frozen
 * (SIGSTOP), so that the host sends nothing and answers nothing.  Emulated:
 * the host itself keeps running (a real one lost power or its kernel); the
 * revert brings the links up and thaws the agents (SIGCONT), in that order.
 * R-Pingmesh's host-down verdict is what it tests: one verdict, not a fault
 * per RNIC.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/host_cmd.h"
#include "injectors/kinds/kinds.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

/*
 * "agents-stop" / "agents-cont": rocelab's monitor agents in the host's
 * network namespace (a host of the virtual lab, or the one a host reached
 * over SSH runs its sessions in) frozen and thawed by their command line
 * (SIGSTOP, SIGCONT); none is no error (pkill's 1).
 */
static void agents_signal(struct host_cmd *c, char *const w[], size_t n)
{
	(void)n;
	host_cmd_word(c, "sh");
	host_cmd_word(c, "-c");
	host_cmd_word(c, "pkill -%s --ns $$ --nslist net -f '%s'; [ $? -le 1 ]",
		      !strcmp(w[0], "agents-stop") ? "STOP" : "CONT", HOST_AGENTS_RE);
}

static const struct host_verb verb_stop = {"agents-stop", 1, agents_signal},
			      verb_cont = {"agents-cont", 1, agents_signal};
HOST_VERB(verb_stop)
HOST_VERB(verb_cont)

static const struct opt_desc opts[] = {OPT_TABLE_END};

/* Every RNIC goes down: the host may not be managed through one of them. */
static int precheck(struct fault_run *f)
{
	const struct inv_host *h = &f->inv->hosts[f->spec->tdev];
	const char **names = rl_xcalloc(h->n_rnics + 1, sizeof(*names));
	int r;

	for (size_t i = 0; i < h->n_rnics; i++)
		names[i] = h->rnics[i].netdev;
	r = fault_mgmt_check(f, h->name, names, h->n_rnics);
	free(names);
	return r;
}

static int plan_host(struct render_ctx *rc)
{
	const struct inv_host *h = &rc->inv->hosts[rc->spec->tdev];
	struct fault_plan *p = rc->plan;

	/* The agents first, so that they do not see their links go down; undone last. */
	fault_plan_host_op(p, h->name, "agents-stop", "agents-cont");
	for (size_t r = 0; r < h->n_rnics; r++) {
		char gw[16];

		/* Admin-down flushes the RNIC's policy route; the undo puts it back after link-up
		 * (on a lab reached over SSH, discover() reads what is there instead). */
		inet_ntop(AF_INET, &h->rnics[r].gateway, gw, sizeof(gw));
		fault_plan_host_op(p, h->name, "noop", "route-add %u 0.0.0.0/0 %s %s",
				   topo_host_table(r), gw, h->rnics[r].netdev);
		fault_plan_host_op(p, h->name, "link-down %s", "link-up %s", h->rnics[r].netdev,
				   h->rnics[r].netdev);
	}
	p->emulated = true;
	snprintf(p->note, sizeof(p->note),
		 "emulated: %s's %zu RNIC link(s) down and rocelab's monitor agents there "
		 "frozen (SIGSTOP); the host itself keeps running",
		 h->name, h->n_rnics);
	return 0;
}

/*
 * A host rocelab did not lay out: each RNIC's routes and static IPv6 addresses as found there
 * (what its link-down flushes), put back after its link-up.
 */
static int discover(struct fault_run *f, struct fault_plan *p)
{
	const struct inv_host *h = &f->inv->hosts[f->spec->tdev];
	struct fault_plan found = {0};
	size_t n_routes, total = 0;
	int r = 0;

	if (lab_can(f->lab, LAB_CAP_NETLINK))
		return 0; /* hosts rocelab laid out: the plan stands */
	fault_plan_add(&found, FB_HOST, h->name, "agents-stop", NULL, "agents-cont");
	for (size_t i = 0; !r && i < h->n_rnics; i++) {
		char down[64], up[64];

		r = fault_found_link(f, &found, h->name, h->rnics[i].netdev, &n_routes);
		total += n_routes;
		snprintf(down, sizeof(down), "link-down %s", h->rnics[i].netdev);
		snprintf(up, sizeof(up), "link-up %s", h->rnics[i].netdev);
		if (!r)
			fault_plan_add(&found, FB_HOST, h->name, down, NULL, up);
	}
	if (r) {
		fault_plan_clear(&found);
		return r;
	}
	fault_plan_take(p, &found);
	snprintf(p->note, sizeof(p->note),
		 "emulated: %s's %zu RNIC link(s) down and rocelab's monitor agents there frozen "
		 "(SIGSTOP); %zu route(s) through them as found, restored after link-up",
		 h->name, h->n_rnics, total);
	return 0;
}

/* The states of rocelab's agents on host, one word each ("T": stopped); -1 with f->err. */
static int agent_states(struct fault_run *f, const char *host, size_t *n, size_t *stopped)
{
	char script[256], *out = NULL, *save = NULL;
	int r;

	snprintf(script, sizeof(script),
		 "p=$(pgrep -d, --ns $$ --nslist net -f '%s'); [ -z \"$p\" ] || ps -o stat= -p "
		 "\"$p\"",
		 HOST_AGENTS_RE);
	r = lab_exec(f->lab, host, (const char *const[]){"sh", "-c", script, NULL}, NULL, &out,
		     f->err, sizeof(f->err));
	if (r) {
		free(out);
		return -1;
	}
	*n = *stopped = 0;
	for (char *t = strtok_r(out ? out : (char[]){""}, " \n", &save); t;
	     t = strtok_r(NULL, " \n", &save)) {
		(*n)++;
		*stopped += t[0] == 'T';
	}
	free(out);
	return 0;
}

static int verify(struct fault_run *f)
{
	const struct inv_host *h = &f->inv->hosts[f->spec->tdev];
	json_t *links =
	    fault_read_json(f, h->name, (const char *const[]){"ip", "-j", "link", NULL});
	size_t up = 0, n = 0, stopped = 0, i;
	char which[128] = "";
	json_t *x;

	if (!links)
		return -EIO;
	json_array_foreach(links, i, x)
	{
		const char *dev = json_string_value(json_object_get(x, "ifname"));
		json_t *fl, *flag;
		size_t k;

		for (size_t r = 0; dev && r < h->n_rnics; r++) {
			if (strcmp(dev, h->rnics[r].netdev))
				continue;
			fl = json_object_get(x, "flags");
			json_array_foreach(fl, k,
					   flag) if (!strcmp(json_string_value(flag) ?: "", "UP"))
			{
				up++;
				snprintf(which + strlen(which), sizeof(which) - strlen(which),
					 " %s", dev);
			}
		}
	}
	json_decref(links);
	if (up) {
		snprintf(f->err, sizeof(f->err), "%s: RNIC netdev(s) still up:%s", h->name, which);
		return -EIO;
	}
	if (agent_states(f, h->name, &n, &stopped))
		return -EIO;
	if (stopped < n) {
		snprintf(f->err, sizeof(f->err), "%s: %zu of %zu monitor agent(s) still running",
			 h->name, n - stopped, n);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence),
		 "%s: its %zu RNIC netdev(s) down, %zu monitor agent(s) stopped (state T)", h->name,
		 h->n_rnics, stopped);
	return 0;
}

const struct fault_kind_ops fk_host_down = {
    .name = "host-down",
    .usage = "--target HOST",
    .targets = FT_HOST,
    .example = "host3",
    .opts = opts,
    .plan_host = plan_host,
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
    .follows_host = "iproute2 ('ip link set DEV down'); SIGSTOP/SIGCONT of the agents: emulated",
};
