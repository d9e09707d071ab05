// SPDX-License-Identifier: MIT
/*
 * dcqcn-off: an RNIC's congestion control (DCQCN) off for one priority, at
 * its notification point (it sends no CNP for the CE marks it receives),
 * its reaction point (it does not slow down for the CNPs it gets), or both:
 * the switches mark, nobody reacts, and incast fills the queues.  Through
 * the per-priority switches MLNX_OFED's and DOCA-OFED's mlx5 driver gives,
 * /sys/class/net/DEV/ecn/roce_np/enable/PRIO and roce_rp/enable/PRIO
 * (NVIDIA, "Explicit Congestion Notification": "X - priority {0..7},
 * protocol - roce_rp / roce_np"), each read before (not 1: refused, there
 * is nothing to turn off), written 0, read back, and written back to 1.
 * An RNIC without them (the virtual lab's veth, an upstream-only mlx5, rxe)
 * is refused before anything changes.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/effect.h"
#include "injectors/host_cmd.h"
#include "injectors/kinds/kinds.h"
#include "injectors/nos/readback.h"

#include <stdlib.h>
#include <string.h>

#define DCQCN_NP 1 /* the notification point: CNPs for CE-marked packets */
#define DCQCN_RP 2 /* the reaction point: rate cuts for CNPs */

struct dcqcn_off_opts {
	int priority; /* 0..7 */
	int points;   /* DCQCN_NP | DCQCN_RP */
};
FAULT_KIND_OPTS(dq, struct dcqcn_off_opts)

#define FS(f) offsetof(struct dcqcn_off_opts, f)

static int points_parse(const struct opt_desc *d, const char *v, void *field, char *err,
			size_t errlen)
{
	int p = !strcmp(v, "np")     ? DCQCN_NP
		: !strcmp(v, "rp")   ? DCQCN_RP
		: !strcmp(v, "both") ? DCQCN_NP | DCQCN_RP
				     : 0;

	if (!p) {
		snprintf(err, errlen, "%s '%s': give np, rp or both", d->name, v);
		return -EINVAL;
	}
	*(int *)field = p;
	return 0;
}

static const char *points_print(const void *field, char *buf, size_t len)
{
	int p = *(const int *)field;

	snprintf(buf, len, "%s", p == DCQCN_NP ? "np" : p == DCQCN_RP ? "rp" : "both");
	return buf;
}

static const struct opt_desc opts[] = {
    {"priority", OPT_INT, 0, 7, FS(priority), "the priority whose congestion control is off"},
    {"point", OPT_CUSTOM, 0, 0, FS(points),
     "np (no CNPs sent for CE marks), rp (no rate cut for CNPs) or both", points_parse,
     points_print},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	dq_rw(s)->priority = 3;
	dq_rw(s)->points = DCQCN_NP | DCQCN_RP;
}

/*
 * dcqcn DEV PRIO np|rp 0|1: the switch written.  Its words reach the
 * script as arguments, never as code, and are checked there again (a
 * journal is read back after a crash).
 */
static const char dcqcn_set[] =
    "case $1 in ''|*/*|.*) exit 2;; esac; case $2 in [0-7]) ;; *) exit 2;; esac\n"
    "case $3 in np|rp) ;; *) exit 2;; esac; case $4 in 0|1) ;; *) exit 2;; esac\n"
    "f=/sys/class/net/$1/ecn/roce_$3/enable/$2\n"
    "[ -e \"$f\" ] || { echo \"$1 has no $f\" >&2; exit 1; }\n"
    "echo \"$4\" > \"$f\"\n";

static void set_cmd(struct host_cmd *c, char *const w[], size_t n)
{
	(void)n;
	host_cmd_words(c, (const char *const[]){"sh", "-c", NULL});
	host_cmd_fixed(c, dcqcn_set);
	host_cmd_words(c, (const char *const[]){"dcqcn", w[1], w[2], w[3], w[4], NULL});
}

static const struct host_verb verb_set = {"dcqcn", 5, set_cmd};
HOST_VERB(verb_set)

static const char *point_name(int bit)
{
	return bit == DCQCN_NP ? "np" : "rp";
}

/* Each point: written 0, undone to 1, its switch read before, during and after. */
static int plan_host(struct render_ctx *rc)
{
	const struct fault_spec *s = rc->spec;
	const struct inv_host *h = &rc->inv->hosts[s->tdev];
	const char *netdev = h->rnics[s->tport].netdev;
	struct fault_plan *p = rc->plan;

	for (int bit = DCQCN_NP; bit <= DCQCN_RP; bit <<= 1) {
		char path[160], cmd[192], as[192];

		if (!(dq_of(s)->points & bit))
			continue;
		fault_plan_host_op(p, h->name, "dcqcn %s %d %s 0", "dcqcn %s %d %s 1", netdev,
				   dq_of(s)->priority, point_name(bit));
		snprintf(path, sizeof(path), "/sys/class/net/%s/ecn/roce_%s/enable/%d", netdev,
			 point_name(bit), dq_of(s)->priority);
		snprintf(cmd, sizeof(cmd), "cat %s", path);
		snprintf(as, sizeof(as), "sysfs %s", path);
		fault_action_read(&p->acts[p->n_acts - 1], cmd, as);
	}
	return 0;
}

/* An RNIC without the switches cannot have them turned off: say so before the journal. */
static int precheck(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	const char *netdev = h->rnics[s->tport].netdev;
	char *out = NULL;
	int r =
	    lab_exec(f->lab, h->name,
		     (const char *const[]){"sh", "-c", "[ -d /sys/class/net/$1/ecn ] || echo none",
					   "dcqcn", netdev, NULL},
		     NULL, &out, f->err, sizeof(f->err));

	if (r) {
		free(out);
		return -EIO;
	}
	if (out && strstr(out, "none")) {
		snprintf(f->err, sizeof(f->err),
			 "%s:%s has no DCQCN switches (/sys/class/net/%s/ecn/roce_np, roce_rp: "
			 "mlx5 with MLNX_OFED or DOCA-OFED has them; veth, rxe and upstream-only "
			 "drivers do not), so its congestion control cannot be turned off here",
			 h->name, netdev, netdev);
		r = -EOPNOTSUPP;
	}
	free(out);
	return r;
}

/* A point that is off already has nothing to turn off: refused, nothing changed. */
static int enabled(struct fault_run *f, struct fault_plan *p, size_t i, const struct readback *rb,
		   void *ctx)
{
	(void)ctx;
	if (strcmp(rb->value, "1")) {
		snprintf(f->err, sizeof(f->err),
			 "DCQCN is not on before the fault on %s (%s): there is no congestion "
			 "control to turn off",
			 p->acts[i].device, rb->canon);
		return -EALREADY;
	}
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	return fault_judge_found(f, p, "DCQCN", enabled, NULL);
}

static bool took(const struct fault_run *f, const struct fault_action *a, const struct readback *rb)
{
	(void)f;
	(void)a;
	return !strcmp(rb->value, "0");
}

static int verify(struct fault_run *f)
{
	return fault_verify_reads(f, took);
}

const struct fault_kind_ops fk_dcqcn_off = {
    .name = "dcqcn-off",
    .usage = "--target HOST:RNIC   (an mlx5 RNIC with MLNX_OFED/DOCA-OFED's ecn switches)",
    .targets = FT_RNIC,
    .example = "host1:rnic1",
    .opts = opts,
    .opts_size = sizeof(struct dcqcn_off_opts),
    .defaults = defaults,
    .plan_host = plan_host,
    .cannot = "turn DCQCN off",
    .precheck = precheck,
    .discover = discover,
    .verify = verify,
    .follows_host = "NVIDIA MLNX_OFED/DOCA-OFED 'Explicit Congestion Notification' "
		    "(/sys/class/net/DEV/ecn/roce_np|roce_rp/enable/PRIO)",
};
