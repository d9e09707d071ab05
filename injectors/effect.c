// SPDX-License-Identifier: MIT
/* Reading a fault's effect back: JSON through the lab's exec, counters under test traffic. */
#define _GNU_SOURCE
#include "injectors/effect.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/deadman.h"
#include "injectors/exec.h"
#include "injectors/host_found.h"
#include "injectors/render.h"

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

json_t *fault_read_json(struct fault_run *f, const char *dev, const char *const argv[])
{
	return lab_exec_json(f->lab, dev, argv, f->err, sizeof(f->err));
}

int fault_refuse_roce(struct fault_run *f, const struct fault_action *a, const struct readback *rb)
{
	snprintf(f->err, sizeof(f->err),
		 "%s is in NVUE's RoCE mode (%s, 'nv set qos roce'): the mode sets PFC and ECN "
		 "itself, which 'nv config show' does not list (Cumulus Linux, RDMA over "
		 "Converged Ethernet: PFC on switch priority 3 in lossless mode), and rocelab "
		 "does not change them under it; refused with nothing changed",
		 a->device, rb->roce);
	return -EOPNOTSUPP;
}

json_t *fault_read_nft_table(struct fault_run *f, const char *dev)
{
	return fault_read_json(
	    f, dev,
	    (const char *const[]){"nft", "-j", "list", "table", "inet", f->plan->table, NULL});
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
	/* sent from here in the hosts' namespaces, else by the hosts themselves (fault_send) */
	if (sw && sw->dialect == INV_DIALECT_LINUX)
		return true;
	if (!sw)
		snprintf(f->evidence, sizeof(f->evidence), "its commands exited 0; not read back");
	else
		snprintf(f->evidence, sizeof(f->evidence),
			 "its commands exited 0 on %s; not read back: %s has no read-back for this "
			 "kind yet",
			 sw->name, inv_dialect_name(sw->dialect));
	return false;
}

/* The fault's table is there, bound on every port it names ("eos-acl T P1,P2"). */
static bool table_took(const struct fault_run *f, const struct fault_action *a,
		       const struct readback *rb)
{
	const char *ports = strchr(fault_read_port(a), ' ');
	unsigned want = 1;

	(void)f;
	if (!rb->exists)
		return false;
	if (!ports)
		return true;
	for (const char *c = ports; (c = strchr(c, ',')); c++)
		want++;
	return rb->n_bound >= want;
}

int fault_verify_table_read(struct fault_run *f)
{
	for (size_t i = 0; i < f->plan->n_acts; i++)
		if (f->plan->acts[i].read)
			return fault_verify_reads(f, table_took);
	return 0; /* f->evidence says why it was not read back */
}

static void evidence_add(struct fault_run *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void evidence_add(struct fault_run *f, const char *fmt, ...)
{
	size_t at = strlen(f->evidence);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->evidence + at, sizeof(f->evidence) - at, fmt, ap);
	va_end(ap);
}

/* How long a NOS may take to show its ACL counters: SONiC polls them every 10 s by default. */
#define ACL_COUNTERS_WAIT_MS 12000

/* The hosts' test datagrams: 200 a flow over 32 source ports, as the 6 x 32 sent from here. */
static const struct host_send test_traffic = {
    .ms = FAULT_TEST_MS, .pps = FAULT_TEST_PPS, .priority = 0, .size = 64, .n_sports = 32};

/* A send's count; on failure f->err says why. */
static long long sent_or_why(struct fault_run *f, long long sent)
{
	if (sent < 0)
		snprintf(f->err, sizeof(f->err), "cannot send test traffic: %s",
			 strerror((int)-sent));
	return sent;
}

int fault_verify_acl_counters(struct fault_run *f, const struct flow *flows, size_t n)
{
	const struct inv_switch *sw = &f->inv->switches[f->spec->tdev];
	const char *cmd = f->plan->counters;
	struct fault_action a = {.backend = FB_SSH};
	struct readback before, now;
	unsigned long long until;
	char err[400];
	long long sent;

	if (!cmd[0])
		return 0;
	if (!n) {
		evidence_add(f, "; no counters read: no test traffic of this lab crosses it");
		return 0;
	}
	snprintf(a.device, sizeof(a.device), "%s", sw->name);
	a.read = (char *)f->plan->counters; /* read only */
	a.read_as = (char *)f->plan->counters_as;
	if (fault_read_now(f->lab, &a, NULL, &before, err, sizeof(err))) {
		evidence_add(f, "; ACL counters not read: %s", err);
		return 0;
	}
	if (!before.counted) {
		evidence_add(f, "; '%s' on %s: %s", cmd, sw->name, before.canon);
		return 0;
	}
	if ((sent = fault_send(f, flows, n, &test_traffic)) <= 0) {
		if (sent < 0)
			fault_unsent(f, 0);
		else
			evidence_add(f, "; no counters read: no datagram sent");
		return 0;
	}
	until = rl_now_ns() + ACL_COUNTERS_WAIT_MS * 1000000ULL;
	do {
		if (fault_read_now(f->lab, &a, NULL, &now, err, sizeof(err))) {
			snprintf(f->err, sizeof(f->err), "reading the ACL counters back: %s", err);
			return -EIO;
		}
		if (now.packets > before.packets) {
			evidence_add(f, "; '%.300s' on %s: %llu of %lld test datagrams counted%s",
				     cmd, sw->name, now.packets - before.packets, sent,
				     fault_sent_by(f));
			return 0;
		}
		fault_sleep_ms(2000);
	} while (rl_now_ns() < until && !rl_interrupted);
	snprintf(f->err, sizeof(f->err),
		 "'%.300s' on %s counted none of %lld test datagrams in %d s: the fault is not on "
		 "their path",
		 cmd, sw->name, sent, ACL_COUNTERS_WAIT_MS / 1000);
	return -EIO;
}

long long fault_log_count(const char *log, const char *after)
{
	char *text = rl_read_file(log, NULL), *said = text ? strstr(text, after) : NULL;
	long long n = said ? strtoll(said + strlen(after), NULL, 10) : -1;

	free(text);
	return n;
}

int fault_self(struct fault_run *f, char *self)
{
	ssize_t k = readlink("/proc/self/exe", self, PATH_MAX - 1);
	int e = errno;

	if (k <= 0) {
		snprintf(f->err, sizeof(f->err), "cannot find this program: %s", strerror(e));
		return -e;
	}
	self[k] = '\0';
	return 0;
}

int fault_copy_self(struct fault_run *f, size_t h, const char *self)
{
	const char *host = f->inv->hosts[h].name;
	char there[PATH_MAX];
	int r;

	if (strcmp(f->inv->hosts[h].rocelab, INV_ROCELAB_COPY))
		return 0;
	if ((r = lab_share(f->lab, host, self, there, sizeof(there))))
		snprintf(f->err, sizeof(f->err), "cannot copy rocelab to %s: %s", host,
			 strerror(-r));
	return r;
}

/*
 * Every sending host runs 'rocelab load send' with its flows, all at once (an
 * incast needs its senders together); their logs come back here and say
 * what each sent.
 */
static long long send_from_hosts(struct fault_run *f, const struct flow *flows, size_t n,
				 const struct host_send *how)
{
	char self[PATH_MAX], there[PATH_MAX], logs[16][64];
	struct host_send hs = *how;
	struct lab_proc procs[16];
	unsigned long long until;
	long long total = 0;
	size_t np = 0;
	int r = fault_self(f, self);

	if (r)
		return r;
	hs.inv_there = there;
	for (size_t h = 0; h < f->inv->n_hosts && np < ARRAY_SIZE(procs) && !r; h++) {
		const char *host = f->inv->hosts[h].name;
		struct host_send_argv a;

		hs.prog = lab_program(f->lab, host, self);
		if (!traffic_host_send_argv(f->inv, h, flows, n, &hs, &a))
			continue;
		r = fault_copy_self(f, h, self);
		if (!r)
			r = lab_share(f->lab, host, f->inv->path, there, sizeof(there));
		snprintf(logs[np], sizeof(logs[np]), "/tmp/rocelab-send.%d.%zu", (int)getpid(), np);
		if (!r && !(r = lab_spawn(f->lab, host, a.argv, logs[np], &procs[np])))
			np++;
		else
			snprintf(f->err, sizeof(f->err),
				 "cannot start 'rocelab load send' on %s: %s", host, strerror(-r));
	}
	if (!r)
		fault_sleep_ms(hs.ms);
	/* each says what it sent as it ends: up to 10 s more for SSH and a loaded host */
	until = rl_now_ns() + (unsigned long long)(r ? 0 : 10000) * 1000000ULL;
	for (size_t i = 0; i < np; i++) {
		long long said;

		while (rl_now_ns() < until && !rl_interrupted && lab_alive(f->lab, &procs[i]))
			fault_sleep_ms(100);
		lab_stop(f->lab, &procs[i], 1000);
		said = fault_log_count(logs[i], "pps each: ");
		unlink(logs[i]);
		if (said < 0 && !r) {
			snprintf(f->err, sizeof(f->err),
				 "'rocelab load send' on %.64s did not say what it sent",
				 procs[i].dev);
			r = -EIO;
		}
		total += said > 0 ? said : 0;
	}
	return r ? r : total;
}

int fault_unsent(struct fault_run *f, int verified)
{
	char why[sizeof(f->err)];

	snprintf(why, sizeof(why), "%s", f->err);
	f->err[0] = '\0';
	if (verified)
		return verified;
	evidence_add(f, "; no counters read: %s", why);
	return 0;
}

const char *fault_sent_by(const struct fault_run *f)
{
	return lab_can(f->lab, LAB_CAP_ENTER) ? "" : " (sent by 'rocelab load send' on the hosts)";
}

long long fault_send(struct fault_run *f, const struct flow *flows, size_t n,
		     const struct host_send *hs)
{
	if (!lab_can(f->lab, LAB_CAP_ENTER)) {
		for (size_t i = 0; i < n; i++)
			if (!f->inv->hosts[flows[i].src.dev].has_mgmt) {
				snprintf(
				    f->err, sizeof(f->err),
				    "%s is not reached over SSH (no mgmt address) to send test "
				    "traffic",
				    f->inv->hosts[flows[i].src.dev].name);
				return -EHOSTUNREACH;
			}
		return send_from_hosts(f, flows, n, hs);
	}
	return sent_or_why(
	    f, traffic_blast(f->lab, flows, n, ROCEV2_UDP_PORT,
			     (hs->dscp ? hs->dscp << 2 : hs->priority << 5) | hs->ecn, hs->size,
			     hs->n_sports, (uint16_t)hs->sport0, hs->ms, hs->pps));
}

/*
 * The packets counted by a fault table's rules ('nft -j list table'): those
 * of its crossing rules (render.h: NOS_NFT_CROSSED) in crossed, the others'
 * (the drops) in matched.
 */
static void nft_counts(json_t *v, unsigned long long *crossed, unsigned long long *matched)
{
	json_t *it;
	size_t i;

	*crossed = *matched = 0;
	json_array_foreach(json_object_get(v, "nftables"), i, it)
	{
		json_t *rule = json_object_get(it, "rule");
		const char *c = json_string_value(json_object_get(rule, "comment"));
		unsigned long long k = fault_json_sum(json_object_get(rule, "expr"), "packets");

		if (c && !strncmp(c, NOS_NFT_CROSSED, strlen(NOS_NFT_CROSSED)))
			*crossed += k;
		else
			*matched += k;
	}
}

int fault_verify_nft(struct fault_run *f, struct flow *flows, size_t n)
{
	const struct inv_switch *sw = &f->inv->switches[f->spec->tdev];
	unsigned long long pkts, crossed;
	json_t *v;
	long long sent;

	if (!fault_counters_readable(f, sw)) {
		int r = fault_verify_table_read(f);

		return r ? r : fault_verify_acl_counters(f, flows, n);
	}
	if (lab_can(f->lab, LAB_CAP_ENTER))
		sent = sent_or_why(
		    f, traffic_send(f->lab, flows, n, ROCEV2_UDP_PORT, 41000, 32, 6, 0, 64));
	else if ((sent = fault_send(f, flows, n, &test_traffic)) < 0)
		return fault_unsent(f, fault_verify_table_read(f));
	if (sent < 0)
		return (int)sent;
	if (!(v = fault_read_nft_table(f, sw->name)))
		return -EIO;
	nft_counts(v, &crossed, &pkts);
	json_decref(v);
	if (pkts == 0) {
		snprintf(f->err, sizeof(f->err),
			 "the rule on %s matched none of %lld test datagrams: the fault is not on "
			 "their path",
			 sw->name, sent);
		return -EIO;
	}
	if (crossed) /* a share of what crossed the target, not of all that was sent */
		snprintf(f->evidence, sizeof(f->evidence),
			 "nft counters on %s: %llu of %llu RoCE packets through %s dropped (%lld "
			 "test datagrams sent)%s",
			 sw->name, pkts, crossed, f->spec->target, sent, fault_sent_by(f));
	else
		snprintf(f->evidence, sizeof(f->evidence),
			 "nft counters on %s: %llu of %lld test datagrams dropped%s", sw->name,
			 pkts, sent, fault_sent_by(f));
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

	/* the devices' dead-man timers stay armed from the first step to the revert */
	for (size_t k = 0; k < f->plan->n_acts; k++) {
		size_t i = undo ? f->plan->n_acts - 1 - k : k;
		const struct fault_action *a = &f->plan->acts[i];

		if (!fault_action_is_deadman(a) &&
		    fault_exec_action(f->lab, a, undo, err, sizeof(err)))
			rl_warn("fault %u: %s", f->id, err);
	}
}

int fault_read_now(struct lab *l, const struct fault_action *a, char **out, struct readback *rb,
		   char *err, size_t errlen)
{
	const struct inv_switch *sw = inventory_switch(l->inv, a->device);
	char *o = NULL;
	/*
	 * A host's or a Linux switch's read is a shell command line: run where
	 * the device is (its namespace on the virtual lab, without an SSH
	 * round trip); a NOS's is in its own CLI, over SSH.
	 */
	int r = a->backend == FB_HOST || (sw && sw->dialect == INV_DIALECT_LINUX)
		    ? lab_exec(l, a->device, (const char *const[]){"sh", "-c", a->read, NULL}, NULL,
			       &o, err, errlen)
		    : lab_cli(l, a->device, a->read, NULL, &o, err, errlen);

	if (r) {
		char why[384];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "'%s' on %s: %s", a->read, a->device,
			 r > 0 ? (why[0] ? why : "it failed") : why);
		free(o);
		return r > 0 ? -EIO : r;
	}
	r = readback_parse(a->read_as, o, rb, err, errlen);
	if (r || !out)
		free(o);
	else
		*out = o;
	return r;
}

int fault_read_found(struct lab *l, struct fault_plan *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->n_acts; i++) {
		struct fault_action *a = &p->acts[i];
		struct readback rb;
		char *out = NULL;
		int r;

		if (!a->read)
			continue;
		if ((r = fault_read_now(l, a, &out, &rb, err, errlen)))
			return r;
		free(a->found);
		a->found = out;
		rl_info("read on %s before the fault: %s (%s)", a->device, rb.canon, a->read);
	}
	return 0;
}

int fault_reread(struct fault_run *f, const struct fault_action *a, struct readback *rb)
{
	char err[400];

	if (!fault_read_now(f->lab, a, NULL, rb, err, sizeof(err)))
		return 0;
	snprintf(f->err, sizeof(f->err), "reading back: %s", err);
	return -EIO;
}

size_t fault_drift(struct lab *l, const struct fault_action *acts, size_t n, struct sbuf *said)
{
	size_t drift = 0;

	for (size_t i = 0; i < n; i++) {
		const struct fault_action *a = &acts[i];
		struct readback before, after;
		char err[512], line[600];

		if (!a->read || !a->found ||
		    readback_parse(a->read_as, a->found, &before, err, sizeof(err)))
			continue;
		if (fault_read_now(l, a, NULL, &after, err, sizeof(err)))
			snprintf(line, sizeof(line), "%s: not read back after the revert: %s",
				 a->device, err);
		else if (strcmp(before.canon, after.canon))
			snprintf(line, sizeof(line),
				 "%s (%s): '%s' before the fault, '%s' after its revert", a->device,
				 a->read, before.canon, after.canon);
		else
			continue;
		drift++;
		rl_warn("drift: %s", line);
		if (said)
			sb_printf(said, "%s%s", said->len ? "; " : "", line);
	}
	return drift;
}

const char *fault_read_port(const struct fault_action *a)
{
	return strchr(a->read_as, ' ') + 1;
}

int fault_found(struct fault_run *f, const struct fault_action *a, struct readback *rb,
		const char *what)
{
	char err[256];

	if (readback_parse(a->read_as, a->found, rb, err, sizeof(err))) {
		snprintf(f->err, sizeof(f->err), "%s: %s", a->device, err);
		return -EIO;
	}
	if (strncmp(a->read_as, "tc-root ", 8) || !strcmp(rb->handle, "0:"))
		return 0;
	snprintf(f->err, sizeof(f->err),
		 "%s:%s has a root qdisc of its own (%s, '%s'): %s would replace it and its undo "
		 "would not give it back; remove it or target another port",
		 a->device, fault_read_port(a), rb->canon, a->read, what);
	return -EBUSY;
}

/* A sysfs file of the target RNIC's netdev, read on its host: its first line in buf. */
static int rnic_sysfs(struct fault_run *f, const char *cmd, const char *file, char *buf, size_t len)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	char path[160], *out = NULL;
	int r;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", h->rnics[s->tport].netdev, file);
	r = lab_exec(f->lab, h->name, (const char *const[]){cmd, path, NULL}, NULL, &out, f->err,
		     sizeof(f->err));
	snprintf(buf, len, "%s", !r && out ? out : "");
	buf[strcspn(buf, "\r\n")] = '\0';
	free(out);
	return r;
}

long long fault_rnic_carrier(struct fault_run *f)
{
	char v[32], *end;
	long long n;

	if (lab_can(f->lab, LAB_CAP_NETLINK) ||
	    rnic_sysfs(f, "cat", "carrier_changes", v, sizeof(v)))
		return -1;
	n = strtoll(v, &end, 10);
	return end != v && !*end && n >= 0 ? n : -1;
}

void fault_rnic_facts(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	char link[256], *base;

	f->rnic = (struct fault_rnic){.carrier_chg = -1, .read_rt = rl_realtime_ns()};
	if (s->tkind != INV_DEV_HOST || s->tport < 0 || lab_can(f->lab, LAB_CAP_NETLINK))
		return; /* the virtual lab's veths: no driver to ask */
	/* a netdev without a device (veth, bond) has no driver link: readlink fails, "" */
	rnic_sysfs(f, "readlink", "device/driver", link, sizeof(link));
	base = strrchr(link, '/');
	base = base ? base + 1 : "";
	/* a device's word: a driver's name or nothing, never text for a line */
	if (strlen(base) < sizeof(f->rnic.driver) &&
	    strspn(base, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == strlen(base))
		snprintf(f->rnic.driver, sizeof(f->rnic.driver), "%s", base);
	f->err[0] = '\0';
	f->rnic.carrier_chg = fault_rnic_carrier(f);
	f->err[0] = '\0';
}

void fault_rnic_flapped(struct fault_run *f, long long now, const char *why, int wait_ms)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	char state[32] = "", where[2 * INV_NAME_MAX + 2];
	size_t n = strlen(f->evidence);
	unsigned long long until = rl_now_ns() + (unsigned long long)wait_ms * 1000000ULL;

	if (f->rnic.carrier_chg < 0 || now <= f->rnic.carrier_chg)
		return;
	snprintf(where, sizeof(where), "%s:%s", h->name, h->rnics[s->tport].name);
	/* up again: the flap's end (a link retrains for seconds) */
	while (!rnic_sysfs(f, "cat", "operstate", state, sizeof(state)) && strcmp(state, "up") &&
	       rl_now_ns() < until && !rl_interrupted)
		fault_sleep_ms(100);
	f->err[0] = '\0';
	snprintf(
	    f->evidence + n, sizeof(f->evidence) - n,
	    "%s%s's link went down and up with the change (%s; carrier_changes %lld -> %lld%s)",
	    n ? "; " : "", where, why, f->rnic.carrier_chg, now,
	    strcmp(state, "up") ? ", not up again yet" : "");
	rl_info("effect: link-flap %s (clock %.3f to %.3f; again at revert): %s", where,
		(double)f->rnic.read_rt / 1e9, (double)rl_realtime_ns() / 1e9, why);
}

int fault_verify_reads(struct fault_run *f,
		       bool (*took)(const struct fault_run *f, const struct fault_action *a,
				    const struct readback *rb))
{
	const struct fault_plan *p = f->plan;
	struct sbuf ev = {0};
	size_t reads = 0;
	int r = 0;

	for (size_t i = 0; i < p->n_acts && !r; i++) {
		const struct fault_action *a = &p->acts[i];
		struct readback rb;

		if (!a->read)
			continue;
		if ((r = fault_reread(f, a, &rb)))
			break;
		if (!took(f, a, &rb)) {
			snprintf(f->err, sizeof(f->err), "'%s' on %s still says %s", a->read,
				 a->device, rb.canon);
			r = -EIO;
		} else if (reads++ < 2) {
			sb_printf(&ev, "%s'%s' on %s: %s", ev.len ? "; " : "", a->read, a->device,
				  rb.canon);
		}
	}
	if (reads > 2)
		sb_printf(&ev, "; and %zu more", reads - 2);
	if (!r)
		snprintf(f->evidence, sizeof(f->evidence), "%s", ev.p ? ev.p : "");
	sb_free(&ev);
	return r;
}

int fault_judge_found(struct fault_run *f, struct fault_plan *p, const char *what,
		      int (*judge)(struct fault_run *f, struct fault_plan *p, size_t i,
				   const struct readback *rb, void *ctx),
		      void *ctx)
{
	for (size_t i = 0; i < p->n_acts;) {
		const struct fault_action *a = &p->acts[i];
		struct readback rb;
		int r = 0;

		if (a->read && a->found) {
			if ((r = fault_found(f, a, &rb, what)))
				return r;
			if (strncmp(a->read_as, "tc-root ", 8) &&
			    (r = judge(f, p, i, &rb, ctx)) < 0)
				return r;
		}
		i += r != FAULT_FOUND_REMOVED;
	}
	return 0;
}

static int table_free(struct fault_run *f, struct fault_plan *p, size_t i,
		      const struct readback *rb, void *ctx)
{
	const struct fault_action *a = &p->acts[i];

	(void)ctx;
	if (rb->exists) {
		snprintf(f->err, sizeof(f->err),
			 "%s already has the fault's own table %.*s ('%s': %s): left by a run "
			 "that was not reverted? 'rocelab revert' undoes what the journal holds; "
			 "else remove it by hand",
			 a->device, (int)strcspn(fault_read_port(a), " "), fault_read_port(a),
			 a->read, rb->canon);
		return -EBUSY;
	}
	if (rb->clash[0]) {
		snprintf(f->err, sizeof(f->err),
			 "%s: %s ('%s'): the fault's ACL would replace it, and its undo would not "
			 "give it back; remove it or target another port",
			 a->device, rb->clash, a->read);
		return -EBUSY;
	}
	return 0;
}

int fault_found_free(struct fault_run *f, struct fault_plan *p)
{
	return fault_judge_found(f, p, "the fault", table_free, NULL);
}

/* The class 1:10 counter key of port pn on switch w, or -1 with f->err. */
static long long class_count(struct fault_run *f, const char *w, const char *pn, const char *key)
{
	json_t *v = fault_read_json(f, w,
				    (const char *const[]){"tc", "-j", "-s", "qdisc", "show", "dev",
							  pn, "parent", "1:10", NULL});
	unsigned long long count;

	if (!v)
		return -1;
	count = fault_json_sum(v, key);
	json_decref(v);
	return (long long)count;
}

int fault_verify_class(struct fault_run *f, size_t sw, size_t port, int dscp, int ecn,
		       unsigned long long rate_kbit, const char *key, const char *what,
		       const char *tag,
		       bool (*took)(const struct fault_run *f, const struct fault_action *a,
				    const struct readback *rb))
{
	const struct inv_switch *w = &f->inv->switches[sw];
	const char *pn = w->ports[port].name;
	struct host_send hs = {
	    .priority = dscp >> 3, .dscp = dscp, .size = 1000, .n_sports = 8, .ecn = ecn};
	long long count = 0, sent = 0, step;
	const char *how = "";
	char in[24]; /* what the datagrams are sent in: a priority's class selector, or a DSCP */
	struct flow fl[64] = {0};
	size_t n;

	n = traffic_flows_across(f->inv, sw, (ssize_t)port, true, fl, 8);
	/*
	 * First paced: twice the class's rate at the port for a quarter second
	 * (ECMP sends 1/width of it there; 42 bytes of headers a datagram), which
	 * overfills any queue it has.  A second of incast as fast as each sender
	 * can saturated this 2-core machine: a transport under test stalled on
	 * every path and was still backing off its timers when its fault phase
	 * was graded (issue 64: the harness must not perturb what it measures).
	 * Only when that counted nothing, or the rate is not known, as fast as
	 * each sender can for a second.
	 */
	if (rate_kbit && n) {
		hs.ms = 250;
		hs.pps = (2 * rate_kbit * 1000 * traffic_ecmp_width(f->inv, sw, port) /
			      (8 * (unsigned long long)(hs.size + 42)) +
			  n - 1) /
			 n;
		if ((sent = fault_send(f, fl, n, &hs)) >= 0 &&
		    (count = class_count(f, w->name, pn, key)) < 0)
			return -EIO;
		how = ", paced";
	}
	if (sent >= 0 && count == 0) {
		hs.ms = 1000, hs.pps = 0;
		step = fault_send(f, fl, n, &hs);
		sent = step < 0 ? step : sent + step;
		if (step >= 0 && (count = class_count(f, w->name, pn, key)) < 0)
			return -EIO;
		how = rate_kbit ? ", paced then as fast as they could" : "";
	}
	if (sent < 0) /* over SSH: as the reads say, and why no incast was sent */
		return lab_can(f->lab, LAB_CAP_ENTER)
			   ? (int)sent
			   : fault_unsent(f, fault_verify_reads(f, took));
	snprintf(in, sizeof(in), dscp & 7 ? "DSCP %d" : "priority %d", dscp & 7 ? dscp : dscp >> 3);
	if (count == 0) {
		snprintf(f->err, sizeof(f->err),
			 "%sincast of %lld datagrams from %zu RNICs: %s on %s:%s %s none",
			 ecn ? "ECN-capable " : "", sent, n, in, w->name, pn, what);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence),
		 "%sincast of %lld datagrams from %zu RNICs%s%s: %s of %s:%s %s %lld (%s)",
		 ecn ? "ECN-capable " : "", sent, n, how, fault_sent_by(f), in, w->name, pn, what,
		 count, tag);
	return 0;
}

int fault_verify_tail_drops(struct fault_run *f, size_t sw, size_t port, int prio,
			    unsigned long long rate_kbit,
			    bool (*took)(const struct fault_run *f, const struct fault_action *a,
					 const struct readback *rb))
{
	return fault_verify_class(f, sw, port, prio << 3, 0, rate_kbit, "drops", "tail-dropped",
				  "emulated", took);
}

/* ---- what taking a host netdev down loses ---------------------------------------------- */

/* This controller's address toward addr (the source a connection to it gets), or -errno. */
static int controller_addr(struct in_addr addr, char *buf, size_t len)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(22), .sin_addr = addr},
			   me = {0};
	socklen_t ml = sizeof(me);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

	/* a datagram socket's connect() sends nothing: the kernel picks the route and source */
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) ||
	    getsockname(fd, (struct sockaddr *)&me, &ml))
		r = -errno;
	else
		inet_ntop(AF_INET, &me.sin_addr, buf, (socklen_t)len);
	if (fd >= 0)
		close(fd);
	return r;
}

int fault_mgmt_check(struct fault_run *f, const char *dev, const char *const *names, size_t n)
{
	const struct inv_host *h = inventory_host(f->inv, dev);
	const struct inv_switch *sw = h ? NULL : inventory_switch(f->inv, dev);
	enum inv_dialect d = h ? INV_DIALECT_LINUX : sw ? sw->dialect : INV_DIALECT_EOS;
	char mgmt[INET_ADDRSTRLEN], ctrl[INET_ADDRSTRLEN];
	json_t *addrs, *route = NULL;
	const char *through;

	if (lab_can(f->lab, LAB_CAP_NETLINK) || d == INV_DIALECT_EOS || (h && !h->has_mgmt))
		return 0;
	inet_ntop(AF_INET, h ? &h->mgmt : &sw->mgmt, mgmt, sizeof(mgmt));
	if (controller_addr(h ? h->mgmt : sw->mgmt, ctrl, sizeof(ctrl))) {
		snprintf(f->err, sizeof(f->err),
			 "no route from this controller to %s's management address %s", dev, mgmt);
		return -EHOSTUNREACH;
	}
	if (!(addrs =
		  fault_read_json(f, dev, (const char *const[]){"ip", "-j", "addr", "show", NULL})))
		return -EIO;
	if (d == INV_DIALECT_LINUX &&
	    !(route = fault_read_json(
		  f, dev,
		  (const char *const[]){"ip", "-j", "route", "get", ctrl, "from", mgmt, NULL})))
		f->err[0] = '\0'; /* mgmt not its own (a NAT): the address is asked all the same */
	through = host_mgmt_through(addrs, route, mgmt, names, n);
	if (through)
		snprintf(f->err, sizeof(f->err),
			 "%s is managed through %s (its management address %s is there, or its "
			 "route back to this controller at %s leaves by it): taking %s down would "
			 "cut rocelab off from %s, and the fault could not be reverted; choose "
			 "another target, or manage %s out of band",
			 dev, through, mgmt, ctrl, through, dev, dev);
	json_decref(addrs);
	json_decref(route);
	return through ? -EPERM : 0;
}

size_t fault_nvue_pending_text(const char *out)
{
	size_t n = 0;

	for (const char *l = out; l && *l; l += strcspn(l, "\n"), l += *l == '\n')
		n += !strncmp(l + strspn(l, " \t"), "nv ", 3);
	return n;
}

int fault_nvue_pending(struct fault_run *f)
{
	for (const char *d = f->plan->nvue; *d; d += strcspn(d, " "), d += *d == ' ') {
		char err[384], dev[INV_NAME_MAX + 1], *out = NULL;
		size_t n;
		int r;

		snprintf(dev, sizeof(dev), "%.*s", (int)strcspn(d, " "), d);
		r = lab_cli(f->lab, dev, FAULT_NVUE_PENDING, NULL, &out, err, sizeof(err));
		if (r) {
			snprintf(f->err, sizeof(f->err),
				 "cannot ask %s for pending NVUE changes ('%s'): %s", dev,
				 FAULT_NVUE_PENDING, err);
			free(out);
			return r < 0 ? r : -EIO;
		}
		n = fault_nvue_pending_text(out);
		free(out);
		if (n) {
			snprintf(
			    f->err, sizeof(f->err),
			    "%s has %zu pending NVUE change(s) ('%s' lists them) that the fault's "
			    "'nv config apply' would apply too, and on Cumulus Linux 5.9 and later "
			    "save to the startup configuration: apply, or 'nv config detach', them "
			    "first",
			    dev, n, FAULT_NVUE_PENDING);
			return -EBUSY;
		}
	}
	return 0;
}

int fault_found_route(struct fault_run *f, json_t *x, const char *dev, const char *netdev, bool v6,
		      enum host_route_verb verb, struct sbuf *b)
{
	char bad[64] = "", tbl[16];

	if (!host_found_word(x, "table", tbl, sizeof(tbl)))
		snprintf(tbl, sizeof(tbl), "main");
	if (host_found_keys(x, host_route_keys, bad, sizeof(bad)) &&
	    !host_route_cmd(x, tbl, v6, verb, b))
		return 0;
	snprintf(f->err, sizeof(f->err),
		 "%s: a route through %s has an attribute rocelab cannot restore as found ('%s'): "
		 "it would be lost when the link goes down",
		 dev, netdev, bad[0] ? bad : "?");
	return -EOPNOTSUPP;
}

/*
 * The routes through the RNIC's netdev that admin-down flushes, read from a
 * host whose routing rocelab did not lay out: every table, IPv4 and IPv6.
 * The kernel puts back its own (proto kernel, the local table, RA-learned)
 * when the link comes up; the others come back from the journal, as found.
 */
static int found_routes(struct fault_run *f, struct fault_plan *found, const char *host,
			const char *netdev, bool v6)
{
	const char *argv[] = {"ip",  v6 ? "-6" : "-4", "-j", "route", "show", "table", "all",
			      "dev", netdev,	       NULL};
	json_t *routes = fault_read_json(f, host, argv), *x;
	char proto[16];
	size_t i;
	int r = 0;

	if (!routes)
		return -EIO;
	json_array_foreach(routes, i, x)
	{
		struct sbuf add = {0};

		if (json_object_get(x, "type") ||
		    (host_found_word(x, "protocol", proto, sizeof(proto)) &&
		     (!strcmp(proto, "kernel") || !strcmp(proto, "ra"))))
			continue; /* the kernel's own: back with the link */
		json_object_set_new(x, "dev", json_string(netdev)); /* 'dev' filtered: not shown */
		/* A multipath route has no single device: 'dev' does not list it, and it stays. */
		if (!(r = fault_found_route(f, x, host, netdev, v6, HOST_ROUTE_ADD, &add)))
			fault_plan_add(found, FB_HOST, host, "noop", NULL, add.p);
		sb_free(&add);
		if (r)
			break;
	}
	json_decref(routes);
	return r;
}

/*
 * The static IPv6 addresses of netdev, which admin-down removes (unless
 * keep_addr_on_down): put back after link-up.  Link-local and autoconfigured
 * ones the kernel makes again.
 */
static int found_addrs(struct fault_run *f, struct fault_plan *found, const char *host,
		       const char *netdev)
{
	static const char *const flags[] = {"nodad", "noprefixroute", "home", "mngtmpaddr"};
	const char *argv[] = {"ip", "-6", "-j", "addr", "show", "dev", netdev, NULL};
	json_t *links = fault_read_json(f, host, argv), *a;
	size_t i;
	int r = 0;

	if (!links)
		return -EIO;
	json_array_foreach(json_object_get(json_array_get(links, 0), "addr_info"), i, a)
	{
		char addr[64], len[8];
		struct sbuf add = {0};

		if (!host_found_word(a, "scope", addr, sizeof(addr)) || strcmp(addr, "global") ||
		    json_is_true(json_object_get(a, "dynamic")))
			continue;
		if (!host_found_word(a, "local", addr, sizeof(addr)) ||
		    !host_found_word(a, "prefixlen", len, sizeof(len))) {
			snprintf(f->err, sizeof(f->err),
				 "%s: an IPv6 address of %s that rocelab cannot read back", host,
				 netdev);
			r = -EOPNOTSUPP;
			break;
		}
		sb_printf(&add, "ip -6 addr add %s/%s dev %s", addr, len, netdev);
		for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
			if (json_is_true(json_object_get(a, flags[k])))
				sb_printf(&add, " %s", flags[k]);
		fault_plan_add(found, FB_HOST, host, "noop", NULL, add.p);
		sb_free(&add);
	}
	json_decref(links);
	return r;
}

int fault_found_link(struct fault_run *f, struct fault_plan *found, const char *host,
		     const char *netdev, size_t *n_routes)
{
	size_t n0 = found->n_acts;
	int r = found_routes(f, found, host, netdev, false);

	if (!r)
		r = found_routes(f, found, host, netdev, true);
	*n_routes = found->n_acts - n0;
	if (!r)
		r = found_addrs(f, found, host, netdev);
	return r;
}
