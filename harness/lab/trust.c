// SPDX-License-Identifier: MIT
/*
 * Trust on first use, made explicit: every SSH device's host key is read
 * and shown with its fingerprint; known_hosts changes only with --yes, only
 * by adding keys it does not have, and never when a key differs from the
 * one on file (a reinstalled switch, or someone in the middle).
 */
#define _GNU_SOURCE
#include "harness/lab/trust.h"

#include "harness/lib/common.h"
#include "harness/lib/out.h"
#include "harness/lib/sshc.h"

#include <arpa/inet.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

struct seen {
	const char *name;
	struct sshc_target t;
	struct sshc_host_key key;
	int err; /* 0, or -errno: not reached */
};

static const char *const state_names[] = {
    [SSHC_KEY_KNOWN] = "known",
    [SSHC_KEY_NEW] = "new",
    [SSHC_KEY_CHANGED] = "CHANGED",
};

/* The devices l reaches over SSH, in inventory order: switches, then hosts it does not enter. */
static size_t ssh_devices(struct lab *l, const char **names, size_t max)
{
	const struct inventory *inv = l->inv;
	size_t n = 0;

	for (size_t i = 0; i < inv->n_switches && n < max; i++)
		names[n++] = inv->switches[i].name;
	if (lab_can(l, LAB_CAP_NETLINK)) /* hosts are reached locally: no sshd to trust */
		return n;
	for (size_t i = 0; i < inv->n_hosts && n < max; i++)
		if (inv->hosts[i].has_mgmt)
			names[n++] = inv->hosts[i].name;
	return n;
}

static void print_key(struct out *o, const struct seen *s, const char *why)
{
	char addr[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &s->t.addr, addr, sizeof(addr));
	out_open_object(o, NULL);
	out_string(o, PRINT_ANY, "device", "%-10s", s->name);
	out_string(o, PRINT_ANY, "address", " %-15s", addr);
	if (s->err) {
		out_string(o, PRINT_ANY, "state", " %s", "unreachable");
		out_string(o, PRINT_ANY, "error", ": %s\n", why);
	} else {
		out_string(o, PRINT_ANY, "type", " %-20s", s->key.type);
		out_string(o, PRINT_ANY, "fingerprint", " %s", s->key.fingerprint);
		out_string(o, PRINT_ANY, "state", "  %s\n", state_names[s->key.state]);
	}
	out_close(o);
}

/* known_hosts' folder, made private if it is missing. */
static int make_dir_of(const char *path)
{
	char *copy = rl_xstrdup(path);
	int r = rl_mkdir_p(dirname(copy), 0700);

	free(copy);
	return r;
}

int lab_trust(struct lab *l, bool yes, bool json)
{
	const char *names[512];
	size_t n = ssh_devices(l, names, ARRAY_SIZE(names)), n_new = 0, n_bad = 0, written = 0;
	struct seen *seen = rl_xcalloc(n + 1, sizeof(*seen));
	struct out o;
	char err[512];
	int ret = RL_EXIT_OK;

	out_init(&o, stdout, json ? OUT_JSON : OUT_TEXT);
	out_open_object(&o, NULL);
	out_string(&o, PRINT_ANY, "known_hosts", "host keys against %s\n", l->known_hosts);
	out_open_array(&o, "devices");
	/* First every key is read: nothing is written unless all of them can be trusted. */
	for (size_t i = 0; i < n; i++) {
		seen[i].name = names[i];
		lab_ssh_target(l, names[i], &seen[i].t);
		seen[i].err = sshc_host_key(&seen[i].t, 10, &seen[i].key, err, sizeof(err));
		print_key(&o, &seen[i], err);
		n_new += !seen[i].err && seen[i].key.state == SSHC_KEY_NEW;
		n_bad += seen[i].err || seen[i].key.state == SSHC_KEY_CHANGED;
	}
	out_close(&o);
	if (n_bad) {
		rl_err(
		    "lab trust: %zu device(s) unreachable or with a key other than the one in %s; "
		    "nothing written (if a device was reinstalled, remove its line there first)",
		    n_bad, l->known_hosts);
		ret = RL_EXIT_SETUP;
	} else if (n_new && !yes) {
		rl_info(
		    "lab trust: %zu new key(s) not written: compare the fingerprints with the "
		    "devices' own (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on each), then run "
		    "again with --yes",
		    n_new);
	} else if (n_new && make_dir_of(l->known_hosts)) {
		rl_err("lab trust: cannot create the folder of %s: %s", l->known_hosts,
		       strerror(errno));
		ret = RL_EXIT_SETUP;
	} else if (n_new) {
		/* exactly the keys shown and compared, not a second connection's */
		for (size_t i = 0; i < n && !ret; i++) {
			if (seen[i].key.state != SSHC_KEY_NEW)
				continue;
			if (sshc_record_key(l->known_hosts, &seen[i].key, err, sizeof(err))) {
				rl_err("lab trust: %s", err);
				ret = RL_EXIT_SETUP;
			} else {
				written++;
			}
		}
	}
	out_uint(&o, PRINT_ANY, "written", "%llu new key(s) written\n", written);
	out_close(&o);
	free(seen);
	return ret;
}
