// SPDX-License-Identifier: MIT
/* What each NOS version can be told: one table, and the switch read before a fault. */
#define _GNU_SOURCE
#include "injectors/nos/caps.h"

#include "harness/lab/dut.h"
#include "harness/lab/lab.h"
#include "harness/lib/common.h"
#include "injectors/nos/nos_ops.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The NVUE rows are from NVIDIA's own documentation sources
 * (github.com/CumulusNetworks/docs): each release's "What's New" lists the
 * commands it added and changed.  Cumulus Linux 5.9's lists no change to a
 * command rocelab renders (content/cumulus-linux-59/Whats-New/_index.md),
 * so 5.9 renders as 5.7 does.
 */
const struct nos_cap_row nos_cap_rows[] = {
    {NOS_CAP_NVUE_QOS, INV_DIALECT_NVUE, 5, 3, NULL, "NVUE's QoS commands",
     "PFC, ECN and DSCP mapping profiles ('nv set qos pfc|congestion-control|mapping PROFILE "
     "...', 'nv set interface P qos pfc|congestion-control|mapping profile PROFILE'): "
     "pfc-misconfig, ecn-misconfig, dscp-mismatch",
     "CumulusNetworks/docs content/cumulus-linux-53/Whats-New/_index.md: QoS commands new in "
     "5.3.0"},
    {NOS_CAP_NVUE_BUFFER, INV_DIALECT_NVUE, 5, 4, NULL, "'nv set qos advance-buffer-config'",
     "'nv set qos advance-buffer-config default-global ingress-lossless-buffer shared-alpha': "
     "buffer-alpha",
     "NVUE command reference, Set-and-Unset-Commands/QoS: 'Introduced in Cumulus Linux 5.4.0'"},
    {NOS_CAP_NVUE_COUNTERS_QOS, INV_DIALECT_NVUE, 5, 5, NULL, "'counters qos pfc-stats'",
     "'nv show interface P counters qos pfc-stats' (5.4 and earlier: 'nv show interface P qos "
     "counters pfc-stats'): pfc-storm's PFC counter",
     "CumulusNetworks/docs content/cumulus-linux-55/Whats-New/_index.md, Changed commands"},
    {NOS_CAP_NVUE_ACL_L4, INV_DIALECT_NVUE, 5, 7, NULL, "'match ip udp dest-port'",
     "'nv set acl A rule R match ip udp dest-port 4791' (5.6 and earlier: 'match ip dest-port "
     "4791'): acl-error",
     "CumulusNetworks/docs content/cumulus-linux-57/Whats-New/_index.md, Changed Commands"},
    {NOS_CAP_NVUE_PFCWD, INV_DIALECT_NVUE, 5, 6, NULL, "NVUE's PFC watchdog",
     "'nv set interface P qos pfc-watchdog state enable|disable', 'nv show interface P qos "
     "pfc-watchdog': pfc-storm --pfcwd",
     "CumulusNetworks/docs content/cumulus-linux-56/Whats-New/_index.md: 'QOS PFC watchdog for "
     "lossless queues' new in 5.6.0"},
    {NOS_CAP_EOS_TRIDENT, INV_DIALECT_EOS, -1, -1, "model", "a Trident ASIC",
     "'platform trident mmu queue profile': buffer-alpha; not on the DNX models (7020R, 7280, "
     "7500 and 7800 series); their queues are 'tx-queue Q', not 'uc-tx-queue Q' (ecn-misconfig "
     "renders either)",
     "aristanetworks/avd eos_cli_config_gen templates eos/platform-trident.j2 and "
     "eos/ethernet-interfaces.j2; Arista's 7280R3, 7500R and 7800R3 architecture papers for "
     "the ASICs"},
    {NOS_CAP_SONIC_STATIC_PG, INV_DIALECT_SONIC, -1, -1, "buffer model",
     "the traditional buffer model",
     "lossless priority groups' profiles in CONFIG_DB's BUFFER_PROFILE, which 'mmuconfig -p' "
     "changes: buffer-alpha.  On the dynamic buffer model buffermgrd makes them itself, their "
     "alpha DEFAULT_LOSSLESS_BUFFER_PARAMETER's default_dynamic_th, taken only when a port's "
     "profiles are next recalculated",
     "sonic-net/sonic-swss cfgmgr/buffermgrdyn.cpp (handleDefaultLossLessBufferParam, "
     "refreshPgsForPort); sonic-buildimage dockers/docker-orchagent/buffermgrd.sh (dynamic only "
     "when DEVICE_METADATA|localhost buffer_model is 'dynamic')"},
    {NOS_CAP_SONIC_UDF, INV_DIALECT_SONIC, -1, -1, "image", "UDF tables",
     "user-defined ACL fields: ipid-drop's match on the IPv4 identification (L3 base, offset "
     "4, 2 bytes), read as the image's /usr/local/yang-models/sonic-udf.yang",
     "sonic-net/SONiC#2299 (UDF HLD), sonic-swss#4493 (UdfOrch), sonic-buildimage#26874 "
     "(sonic-udf.yang): open pull requests, the schema as they give it; the YANG directory "
     "as sonic-utilities config/config_mgmt.py names it"},
    {0, 0, 0, 0, NULL, NULL, NULL, NULL},
};

static const struct nos_cap_row *row_of(enum nos_cap cap)
{
	for (const struct nos_cap_row *r = nos_cap_rows; r->what; r++)
		if (r->cap == cap)
			return r;
	abort(); /* every capability has its row */
}

int nos_version_parse(const char *text, int *major, int *minor)
{
	for (const char *p = text; *p; p++) {
		char *end, *end2;
		long a, b;

		if (!isdigit((unsigned char)*p) || (p > text && isdigit((unsigned char)p[-1])))
			continue;
		a = strtol(p, &end, 10);
		if (*end != '.' || !isdigit((unsigned char)end[1]))
			continue;
		b = strtol(end + 1, &end2, 10);
		if (a > 1000 || b > 1000)
			continue;
		*major = (int)a;
		*minor = (int)b;
		return 0;
	}
	return -EINVAL;
}

static const char *nos_name(enum inv_dialect d)
{
	switch (d) {
	case INV_DIALECT_SONIC:
		return "SONiC";
	case INV_DIALECT_EOS:
		return "EOS";
	case INV_DIALECT_NVUE:
		return "NVUE (Cumulus Linux)";
	default:
		return "Linux";
	}
}

bool nos_has(const struct inv_switch *sw, enum nos_cap cap)
{
	const struct nos_cap_row *r = row_of(cap);
	int ma, mi;

	if (sw->dialect != r->dialect)
		return true;
	switch (cap) {
	case NOS_CAP_EOS_TRIDENT:
		return !sw->nos.model[0] || !eos_model_sand(sw->nos.model);
	case NOS_CAP_SONIC_STATIC_PG:
		return strcmp(sw->nos.buffer_model, "dynamic") != 0;
	case NOS_CAP_SONIC_UDF:
		return !sw->nos.read || sw->nos.udf;
	default:
		if (nos_version_parse(sw->nos.version, &ma, &mi))
			return true; /* not known: the newest */
		return ma > r->major || (ma == r->major && mi >= r->minor);
	}
}

static const char *whose(const struct inv_switch *sw)
{
	return sw->nos.read ? "read from the switch" : "as the inventory declares";
}

int nos_need(const struct inv_switch *sw, enum nos_cap cap, const char *what, char *why,
	     size_t whylen)
{
	const struct nos_cap_row *r = row_of(cap);

	if (nos_has(sw, cap))
		return 0;
	if (cap == NOS_CAP_EOS_TRIDENT)
		snprintf(why, whylen,
			 "%s is an Arista %s (%s), a DNX (Jericho/Arad/Qumran) platform: %s is "
			 "Trident's CLI ('platform trident'), and rocelab has no command tree "
			 "for DNX's buffers checked against a source; refused with nothing "
			 "changed",
			 sw->name, sw->nos.model, whose(sw), what);
	else if (cap == NOS_CAP_SONIC_UDF)
		snprintf(why, whylen,
			 "%s's image has no UDF tables (no /usr/local/yang-models/sonic-udf.yang; "
			 "%s): %s matches the IP ID with a user-defined ACL field, which SONiC "
			 "gains with sonic-net/SONiC#2299; refused with nothing changed",
			 sw->name, whose(sw), what);
	else if (cap == NOS_CAP_SONIC_STATIC_PG)
		snprintf(why, whylen,
			 "%s runs SONiC's dynamic buffer model (%s), where buffermgrd makes the "
			 "lossless priority groups' profiles itself (sonic-swss buffermgrdyn.cpp): "
			 "%s changes CONFIG_DB's; give --profile NAME to change one of those; "
			 "refused with nothing changed",
			 sw->name, whose(sw), what);
	else
		snprintf(why, whylen,
			 "%s runs %s %s (%s): %s needs %s, from %d.%d on (see 'rocelab faults "
			 "--nos'); refused with nothing changed",
			 sw->name, nos_name(sw->dialect), sw->nos.version, whose(sw), what, r->name,
			 r->major, r->minor);
	return -EOPNOTSUPP;
}

void nos_rendered_for(const struct inv_switch *sw, char *buf, size_t len)
{
	int ma, mi, newest_ma = 0, newest_mi = 0;
	size_t n;

	buf[0] = '\0';
	if (sw->dialect == INV_DIALECT_LINUX)
		return;
	for (const struct nos_cap_row *r = nos_cap_rows; r->what; r++)
		if (r->dialect == sw->dialect && r->major >= 0 &&
		    (r->major > newest_ma || (r->major == newest_ma && r->minor > newest_mi))) {
			newest_ma = r->major;
			newest_mi = r->minor;
		}
	n = (size_t)snprintf(buf, len, "%s%s%s", nos_name(sw->dialect),
			     sw->nos.version[0] ? " " : "", sw->nos.version);
	if (n < len && newest_ma && nos_version_parse(sw->nos.version, &ma, &mi))
		n += (size_t)snprintf(
		    buf + n, len - n, "%s: rendered for the newest rocelab knows (%d.%d and later)",
		    sw->nos.version[0] ? ", not a version number" : ", version not known",
		    newest_ma, newest_mi);
	if (n < len && sw->nos.model[0])
		n += (size_t)snprintf(buf + n, len - n, ", model %s", sw->nos.model);
	if (n < len && sw->dialect == INV_DIALECT_SONIC)
		n += (size_t)snprintf(
		    buf + n, len - n,
		    sw->nos.buffer_model[0]
			? ", %s buffer model"
			: ", buffer model not known: rendered for the traditional one",
		    sw->nos.buffer_model);
	if (n < len &&
	    (sw->nos.read || sw->nos.version[0] || sw->nos.model[0] || sw->nos.buffer_model[0]))
		snprintf(buf + n, len - n, " (%s)", whose(sw));
}

/* A word the NOS printed, kept only when it is one (no spaces, no control bytes). */
static void keep_word(char *dst, size_t size, const char *v)
{
	size_t n = v ? strlen(v) : 0;

	if (!n || n >= size)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("._-+", v[i]))
			return;
	memcpy(dst, v, n + 1);
}

int nos_caps_read(struct lab *l, struct inv_switch *sw, char *err, size_t errlen)
{
	json_t *o;
	const char *v, *why;
	char version[INV_NOS_WORD_MAX + 1] = "";

	if (sw->dialect == INV_DIALECT_LINUX)
		return 0;
	o = dut_switch(l, sw);
	if ((why = json_string_value(json_object_get(o, "unread"))) &&
	    !json_string_value(json_object_get(o, "version"))) {
		snprintf(err, errlen, "%s's NOS version could not be read: %s", sw->name, why);
		json_decref(o);
		return -EIO;
	}
	/* "Cumulus Linux 5.9.1": the version as its number */
	if ((v = json_string_value(json_object_get(o, "version")))) {
		int ma, mi;
		const char *d = v;

		if (!nos_version_parse(v, &ma, &mi))
			while (*d && !isdigit((unsigned char)*d))
				d++;
		snprintf(version, sizeof(version), "%.*s", (int)strcspn(d, " \t"), d);
	}
	keep_word(sw->nos.version, sizeof(sw->nos.version), version);
	keep_word(sw->nos.model, sizeof(sw->nos.model),
		  json_string_value(json_object_get(o, "model")));
	json_decref(o);
	if (sw->dialect == INV_DIALECT_SONIC) {
		char *out = NULL, e[256] = "";

		/*
		 * the buffer model, empty when unset: traditional (buffermgrd.sh); then
		 * whether the image knows UDF tables
		 */
		if (!lab_cli(
			l, sw->name,
			"sonic-db-cli CONFIG_DB HGET 'DEVICE_METADATA|localhost' buffer_model; "
			"test -e /usr/local/yang-models/sonic-udf.yang && echo udf || echo "
			"no-udf",
			NULL, &out, e, sizeof(e)) &&
		    out) {
			size_t n = strcspn(out, "\r\n");

			snprintf(sw->nos.buffer_model, sizeof(sw->nos.buffer_model), "%s",
				 n == 7 && !strncmp(out, "dynamic", 7) ? "dynamic" : "traditional");
			sw->nos.udf = strstr(out, "\nudf") != NULL;
		}
		free(out);
	}
	sw->nos.read = true;
	return 0;
}
