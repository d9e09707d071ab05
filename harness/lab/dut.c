// SPDX-License-Identifier: MIT
/* The devices under test, read through the lab: hosts by exec, switches in their dialect. */
#define _GNU_SOURCE
#include "harness/lab/dut.h"

#include "harness/lib/common.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void dut_parse_lines(const char *text, const char *const (*map)[2], json_t *o)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *colon;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		colon = memchr(line, ':', len);
		if (colon)
			for (size_t i = 0; map[i][0]; i++) {
				const char *k = line, *v = colon + 1;
				size_t kl = (size_t)(colon - line), vl;

				while (kl && (*k == ' ' || *k == '\t'))
					k++, kl--;
				while (kl && (k[kl - 1] == ' ' || k[kl - 1] == '\t'))
					kl--;
				if (kl != strlen(map[i][0]) || strncmp(k, map[i][0], kl))
					continue;
				while (v < line + len && (*v == ' ' || *v == '\t'))
					v++;
				vl = (size_t)(line + len - v);
				while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
					vl--;
				if (vl)
					json_object_set_new(o, map[i][1], json_stringn(v, vl));
				break;
			}
		line = end ? end + 1 : NULL;
	}
}

/* Keys set to null first, so that every one is there whether or not it was read. */
static json_t *nulls(const char *const *keys)
{
	json_t *o = json_object();

	for (; *keys; keys++)
		json_object_set_new(o, *keys, json_null());
	return o;
}

static void unread(json_t *o, const char *why)
{
	const char *was = json_string_value(json_object_get(o, "unread"));

	if (was)
		json_object_set_new(o, "unread", json_sprintf("%s; %s", was, why));
	else
		json_object_set_new(o, "unread", json_string(why));
}

/*
 * A host is read with one command, so one exec (one SSH channel on a remote
 * lab): each command's output follows a marker line.  One command each was
 * 2 + 2 an RNIC, and an exec is a second or two under qemu (ibv_devinfo loads
 * every provider): 20 s of every run there for a 4-RNIC host.  The netdevs
 * are arguments, never part of the script.  ibv_devinfo runs once, for every
 * device, when the host has one ('rdma link' lists it or the inventory names
 * it).
 */
#define MARK "@@rocelab "
static const char host_script[] =
    "ib=$1; shift; uname -r; echo '" MARK "rdma'; r=$(rdma -j link show 2>/dev/null); "
    "printf '%s\\n' \"$r\"; "
    "for n do echo \"" MARK "ethtool $n\"; ethtool -i \"$n\" 2>&1 || echo '" MARK "failed'; done; "
    "case $r in *ifname*) ib=ib ;; esac; "
    "if [ \"$ib\" = ib ]; then echo '" MARK "ibv_devinfo'; "
    "ibv_devinfo 2>&1 || echo '" MARK "failed'; fi";

/* The text after the marker line "@@rocelab WHAT" up to the next marker (NULL: none), copied. */
static char *section(const char *out, const char *what)
{
	size_t wl = strlen(what);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *body, *next;

		if (strncmp(p, MARK, strlen(MARK)) || strncmp(p + strlen(MARK), what, wl) ||
		    (p[strlen(MARK) + wl] != '\n' && p[strlen(MARK) + wl] != '\0'))
			continue;
		body = p + strlen(MARK) + wl;
		body += *body == '\n';
		/* up to the next command's marker ("failed" is the command's own) */
		for (next = body; next && *next &&
				  (strncmp(next, MARK, strlen(MARK)) ||
				   !strncmp(next, MARK "failed", strlen(MARK "failed")));)
			next = strchr(next, '\n'), next = next ? next + 1 : NULL;
		return strndup(body, next && *next ? (size_t)(next - body) : strlen(body));
	}
	return NULL;
}

/* What a command printed when it failed ("@@rocelab failed" follows it): its first line. */
static bool failed(const char *out, const char *cmd, json_t *o)
{
	const char *f = strstr(out, MARK "failed");
	char why[256];

	if (!f)
		return false;
	snprintf(why, sizeof(why), "%s failed%s%.*s", cmd, f == out ? "" : ": ",
		 (int)strcspn(out, "\n"), out);
	unread(o, why);
	return true;
}

/* netdev -> RDMA device, from 'rdma -j link show' ([{"ifname": "mlx5_0/1", "netdev": ...}]). */
static void rdma_devices(const char *text, json_t *map)
{
	json_t *links = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL, *x;
	size_t i;

	json_array_foreach(links, i, x)
	{
		const char *ifn = json_string_value(json_object_get(x, "ifname"));
		const char *nd = json_string_value(json_object_get(x, "netdev"));

		if (ifn && nd)
			json_object_set_new(map, nd, json_stringn(ifn, strcspn(ifn, "/")));
	}
	json_decref(links);
}

/* ibv_devinfo's block for device ib ("hca_id:\tIB" up to the next hca_id), copied, or NULL. */
static char *devinfo_block(const char *text, const char *ib)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v = p + strlen("hca_id:"), *next;

		if (strncmp(p, "hca_id:", strlen("hca_id:")))
			continue;
		v += strspn(v, " \t");
		if (strncmp(v, ib, strlen(ib)) || (v[strlen(ib)] != '\n' && v[strlen(ib)] != '\0'))
			continue;
		next = strstr(v, "\nhca_id:");
		return strndup(p, next ? (size_t)(next - p + 1) : strlen(p));
	}
	return NULL;
}

/* What an RNIC's object holds, null until read. */
static const char *const rnic_keys[] = {"driver",      "driver_version", "firmware", "bus",
					"rdma_device", "model",		 NULL};

static json_t *dut_rnic(const char *out, const struct inv_rnic *r, const json_t *ibdevs)
{
	/* ethtool -i: ethtool's own labels (ethtool.c, dump_drvinfo()) */
	static const char *const ethtool_map[][2] = {{"driver", "driver"},
						     {"version", "driver_version"},
						     {"firmware-version", "firmware"},
						     {"bus-info", "bus"},
						     {NULL, NULL}};
	/* ibv_devinfo: rdma-core's libibverbs/examples/devinfo.c labels */
	static const char *const devinfo_map[][2] = {
	    {"fw_ver", "ib_firmware"}, {"board_id", "model"}, {NULL, NULL}};
	json_t *o = nulls(rnic_keys);
	const char *ib =
	    r->ibdev[0] ? r->ibdev : json_string_value(json_object_get(ibdevs, r->netdev));
	char what[sizeof("ethtool ") + INV_NETDEV_MAX], *text, *block;

	json_object_set_new(o, "netdev", json_string(r->netdev));
	snprintf(what, sizeof(what), "ethtool %s", r->netdev);
	if (!(text = section(out, what)))
		unread(o, "ethtool -i did not run");
	else if (!failed(text, "ethtool -i", o))
		dut_parse_lines(text, ethtool_map, o);
	free(text);
	if (!ib)
		return o;
	json_object_set_new(o, "rdma_device", json_string(ib));
	if (!(text = section(out, "ibv_devinfo")))
		unread(o, "ibv_devinfo did not run");
	else if (!(block = devinfo_block(text, ib))) {
		char why[sizeof("ibv_devinfo does not list ") + INV_NAME_MAX];

		snprintf(why, sizeof(why), "ibv_devinfo does not list %s", ib);
		if (!failed(text, "ibv_devinfo", o))
			unread(o, why);
	} else {
		dut_parse_lines(block, devinfo_map, o);
		/* The RDMA device's firmware where the netdev's driver tells none (rxe). */
		if (json_is_null(json_object_get(o, "firmware")) &&
		    json_object_get(o, "ib_firmware"))
			json_object_set(o, "firmware", json_object_get(o, "ib_firmware"));
		json_object_del(o, "ib_firmware");
		free(block);
	}
	free(text);
	return o;
}

json_t *dut_host_parse(const struct inv_host *h, const char *out, const char *err)
{
	static const char *const keys[] = {"kernel", NULL};
	json_t *o = nulls(keys), *rnics = json_object(), *ibdevs = json_object();
	char *text = out ? section(out, "rdma") : NULL;
	size_t kl = out ? strcspn(out, "\n") : 0;

	if (!out)
		unread(o, err && *err ? err : "its command did not run");
	else if (kl && strncmp(out, MARK, strlen(MARK)))
		json_object_set_new(o, "kernel", json_stringn(out, kl));
	else
		unread(o, "uname -r failed");
	rdma_devices(text, ibdevs);
	free(text);
	for (size_t i = 0; i < h->n_rnics; i++) {
		json_t *r;

		if (out)
			r = dut_rnic(out, &h->rnics[i], ibdevs);
		else {
			r = nulls(rnic_keys);
			json_object_set_new(r, "netdev", json_string(h->rnics[i].netdev));
			unread(r, err && *err ? err : "its command did not run");
		}
		json_object_set_new(rnics, h->rnics[i].name, r);
	}
	json_object_set_new(o, "rnics", rnics);
	json_decref(ibdevs);
	return o;
}

static json_t *dut_host(struct lab *l, const struct inv_host *h)
{
	const char **argv = rl_xcalloc(h->n_rnics + 6, sizeof(*argv));
	char *out = NULL, err[256] = "";
	json_t *o;
	size_t n = 5;

	argv[0] = "sh", argv[1] = "-c", argv[2] = host_script, argv[3] = "sh", argv[4] = "-";
	for (size_t i = 0; i < h->n_rnics; i++) {
		if (h->rnics[i].ibdev[0])
			argv[4] = "ib";
		argv[n++] = h->rnics[i].netdev;
	}
	argv[n] = NULL;
	if (lab_exec(l, h->name, argv, NULL, &out, err, sizeof(err)) < 0) {
		free(out);
		out = NULL;
	} else if (!out)
		out = strdup("");
	o = dut_host_parse(h, out, err);
	free(out);
	free(argv);
	return o;
}

/*
 * A switch's NOS, version and model through its dialect's show command:
 *  - linux: 'uname -sr';
 *  - SONiC: 'show version', its "SONiC Software Version:" and "HwSKU:" lines
 *    (sonic-utilities show/main.py version(); doc/Command-Reference.md);
 *  - EOS: 'show version | json', its "version" and "modelName" (EOS eAPI);
 *  - NVUE: 'nv show system -o json', its "build" (else "product-release") and
 *    "platform" [inferred from NVIDIA's NVUE command reference examples, not
 *    a published schema].
 */
json_t *dut_switch_parse(enum inv_dialect d, const char *out)
{
	static const char *const keys[] = {"nos", "version", "model", NULL};
	static const char *const sonic_map[][2] = {
	    {"SONiC Software Version", "version"}, {"HwSKU", "model"}, {NULL, NULL}};
	json_t *o = nulls(keys), *j = NULL;
	char *text = rl_xstrdup(out);

	json_object_set_new(o, "dialect", json_string(inv_dialect_name(d)));
	switch (d) {
	case INV_DIALECT_LINUX: {
		char *sp = strchr(text, ' ');

		text[strcspn(text, "\n")] = '\0';
		if (sp)
			*sp++ = '\0';
		json_object_set_new(o, "nos", json_string(text));
		if (sp && *sp)
			json_object_set_new(o, "version", json_string(sp));
		break;
	}
	case INV_DIALECT_SONIC:
		json_object_set_new(o, "nos", json_string("SONiC"));
		dut_parse_lines(text, sonic_map, o);
		break;
	case INV_DIALECT_EOS:
	case INV_DIALECT_NVUE: {
		const bool eos = d == INV_DIALECT_EOS;
		const char *v;

		json_object_set_new(o, "nos", json_string(eos ? "EOS" : "Cumulus Linux"));
		if (!(j = json_loads(text, 0, NULL))) {
			unread(o, "its output is not JSON");
			break;
		}
		v = json_string_value(json_object_get(j, eos ? "version" : "build"));
		if (!v && !eos)
			v = json_string_value(json_object_get(j, "product-release"));
		if (v)
			json_object_set_new(o, "version", json_string(v));
		if ((v = json_string_value(json_object_get(j, eos ? "modelName" : "platform"))))
			json_object_set_new(o, "model", json_string(v));
		break;
	}
	default:
		unread(o, "a NOS rocelab does not read");
	}
	if (json_is_null(json_object_get(o, "version")) && !json_object_get(o, "unread"))
		unread(o, "no version in its output");
	json_decref(j);
	free(text);
	return o;
}

json_t *dut_switch(struct lab *l, const struct inv_switch *sw)
{
	static const char *const keys[] = {"nos", "version", "model", NULL};
	static const char *const cmds[] = {
	    [INV_DIALECT_LINUX] = "uname -sr",
	    [INV_DIALECT_SONIC] = "show version",
	    [INV_DIALECT_EOS] = "show version | json",
	    [INV_DIALECT_NVUE] = "nv show system -o json",
	};
	json_t *o;
	char *out = NULL, err[256];

	/*
	 * A Linux switch's command is a program and its arguments, as its links are
	 * read (injectors/nos/links.c): over SSH on a real lab, in its namespace on the
	 * virtual one, without a login (6 logins were 16 s of each run under qemu).
	 */
	if ((sw->dialect == INV_DIALECT_LINUX
		 ? lab_exec(l, sw->name, (const char *const[]){"uname", "-sr", NULL}, NULL, &out,
			    err, sizeof(err))
		 : lab_cli(l, sw->name, cmds[sw->dialect], NULL, &out, err, sizeof(err))) ||
	    !out) {
		o = nulls(keys);
		json_object_set_new(o, "dialect", json_string(inv_dialect_name(sw->dialect)));
		unread(o, err[0] ? err : "no output");
		free(out);
		return o;
	}
	o = dut_switch_parse(sw->dialect, out);
	free(out);
	return o;
}

/* A switch read, a host read, or (neither) every host's, as the lab reaches them. */
struct dut_job {
	struct lab *l;
	const struct inv_switch *sw;
	const struct inv_host *h;
	struct dut_job *hosts; /* the hosts' jobs */
	json_t *o;
};

static void *dut_job_run(void *p)
{
	struct dut_job *j = p;

	if (j->sw)
		j->o = dut_switch(j->l, j->sw);
	else if (j->h)
		j->o = dut_host(j->l, j->h);
	else
		lab_each(j->l, j->hosts, j->l->inv->n_hosts, sizeof(*j->hosts), dut_job_run);
	return NULL;
}

/*
 * The switches are read DUT_SWITCHES_AT_ONCE at a time (lab_pool()), each over
 * its own session (the lab's, kept for the run), while the hosts are read
 * (lab_each(): over SSH, the lab's fan-out at once): a login and a command are
 * a third of a second a switch here, one after the other 2.5 s of every run on
 * the built-in lab, and seconds each under qemu.
 */
#define DUT_SWITCHES_AT_ONCE 16

json_t *lab_dut(struct lab *l)
{
	json_t *hosts = json_object(), *sws = json_object();
	size_t n = l->inv->n_switches;
	/* job 0 reads the hosts, 1..n the switches */
	struct dut_job *j = rl_xcalloc(n + 1, sizeof(*j));
	struct dut_job *hj = rl_xcalloc(l->inv->n_hosts + 1, sizeof(*hj));

	for (size_t i = 0; i < l->inv->n_hosts; i++)
		hj[i] = (struct dut_job){.l = l, .h = &l->inv->hosts[i]};
	j[0] = (struct dut_job){.l = l, .hosts = hj};
	for (size_t i = 0; i < n; i++)
		j[i + 1] = (struct dut_job){.l = l, .sw = &l->inv->switches[i]};
	lab_pool(j, n + 1, sizeof(*j), dut_job_run, 1 + DUT_SWITCHES_AT_ONCE);
	for (size_t i = 0; i < l->inv->n_hosts; i++)
		json_object_set_new(hosts, l->inv->hosts[i].name, hj[i].o);
	for (size_t i = 0; i < n; i++)
		json_object_set_new(sws, l->inv->switches[i].name, j[i + 1].o);
	free(j);
	free(hj);
	return json_pack("{s:o,s:o}", "hosts", hosts, "switches", sws);
}
