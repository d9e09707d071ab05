// SPDX-License-Identifier: MIT
/*
 * SONiC read back in its own words: CONFIG_DB, APPL_DB and COUNTERS_DB
 * through sonic-db-cli, and the show commands of sonic-utilities; and its
 * port states (links.h).  Each parser names the source its format was
 * checked against.
 */
#define _GNU_SOURCE
#include "injectors/nos/nos_ops.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/nos/nos_text.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name CONFIG_DB can hold and a command line can carry: letters, digits, _ . - | [ ]. */
static bool db_name(const char *v)
{
	return strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-|[]") ==
	       strlen(v);
}

/* A CONFIG_DB key of a port table: names, and the commas of a port list. */
static bool db_key(const char *k)
{
	return strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-|,") ==
	       strlen(k);
}

/* Ascending by key, for a table's entries in one order however the device printed them. */
static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct rb_entry *)a)->key, ((const struct rb_entry *)b)->key);
}

/*
 * The entries of port in a CONFIG_DB table as 'sonic-cfggen -d --var-json
 * TABLE' prints it (sonic-buildimage src/sonic-config-engine/sonic-cfggen:
 * one JSON object, each key its tuple joined with '|' by
 * FormatConverter.to_serialized, "PORTS|INDEX" for QUEUE and BUFFER_PG,
 * PORTS one port or a comma list; no output: no table), into rb->ent,
 * sorted, with every key, field and value a plain CONFIG_DB word: they are
 * what a revert writes back (issue 61: the tables read and restored whole).
 */
static int db_port_entries(const char *table, const char *port, const char *out,
			   struct readback *rb, char *err, size_t errlen)
{
	json_t *v = nos_json_or_empty(out, strlen(out)), *x;
	const char *k;
	int r = 0;

	rb->ent_read = true;
	if (!json_is_object(v)) {
		snprintf(err, errlen, "'sonic-cfggen -d --var-json %s' printed no table", table);
		json_decref(v);
		return -EINVAL;
	}
	json_object_foreach(v, k, x)
	{
		const char *bar = strchr(k, '|'), *f;
		char ports[128];
		json_t *fv;
		struct rb_entry *e;
		struct sbuf fs = {0};

		if (!bar || strchr(bar + 1, '|') || (size_t)(bar - k) >= sizeof(ports))
			continue; /* not PORTS|INDEX */
		snprintf(ports, sizeof(ports), "%.*s", (int)(bar - k), k);
		if (!nos_in_list(ports, port))
			continue;
		if (!db_key(k) || strlen(k) >= sizeof(e->key) || !json_is_object(x)) {
			snprintf(err, errlen,
				 "CONFIG_DB %s key '%.60s' is not one rocelab can restore", table,
				 k);
			r = -EINVAL;
			break;
		}
		if (rb->n_ent == (int)ARRAY_SIZE(rb->ent)) {
			snprintf(
			    err, errlen,
			    "%s has more than %zu CONFIG_DB %s entries: too many to restore whole",
			    port, ARRAY_SIZE(rb->ent), table);
			r = -E2BIG;
			break;
		}
		e = &rb->ent[rb->n_ent++];
		snprintf(e->key, sizeof(e->key), "%s", k);
		{
			/* fields in name order: one text for one state */
			const char *names[16];
			size_t n = 0;

			json_object_foreach(x, f, fv) if (n < ARRAY_SIZE(names)) names[n++] = f;
			qsort(names, n, sizeof(*names), nos_cmp_str);
			for (size_t i = 0; i < n && !r; i++) {
				const char *val = json_string_value(json_object_get(x, names[i]));

				if (!val || !*val || !db_name(names[i]) || !db_name(val))
					r = -EINVAL;
				else
					sb_printf(&fs, "%s%s %s", i ? " " : "", names[i], val);
			}
			if (!r && (n == ARRAY_SIZE(names) || fs.len >= sizeof(e->fields)))
				r = -E2BIG;
		}
		if (r) {
			snprintf(
			    err, errlen,
			    "CONFIG_DB %s|%s holds %s no command may carry whole: not restored "
			    "from it",
			    table, k, r == -E2BIG ? "more fields than" : "a field or value");
			sb_free(&fs);
			break;
		}
		snprintf(e->fields, sizeof(e->fields), "%s", fs.p ? fs.p : "");
		sb_free(&fs);
	}
	json_decref(v);
	qsort(rb->ent, (size_t)rb->n_ent, sizeof(rb->ent[0]), cmp_key);
	return r;
}

/* The entries as one line, "KEY{FIELD VALUE ...} ...": what drift compares. */
static void ent_items(const struct readback *rb, struct sbuf *b)
{
	for (int i = 0; i < rb->n_ent; i++)
		sb_printf(b, "%s%s{%s}", i ? " " : "", rb->ent[i].key, rb->ent[i].fields);
	if (!rb->n_ent)
		sb_printf(b, "none");
}

/*
 * SONiC 'show pfc priority PORT' (pfc/main.py showPfcPrio): a table of
 * "Interface  Lossless priorities" rows from CONFIG_DB PORT_QOS_MAP
 * pfc_enable, a "Namespace asicN" line above each table on multi-ASIC
 * switches, and "Cannot find interface PORT" when the port has no entry
 * (no PFC).  An empty pfc_enable prints no second column; a missing one
 * prints N/A.
 */
static int show_pfc(const char *port, const char *out, struct readback *rb, char *err,
		    size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	rb->pfc_on = true;
	while ((l = nos_next_line(&s, &n))) {
		char w[2][NOS_WORD_MAX], pr[24];
		int k = nos_words(l, n, w, 2), m = 0;

		if (!k)
			continue;
		if (!strcmp(w[0], "Cannot") && strstr(l, "find interface")) {
			snprintf(rb->canon, sizeof(rb->canon),
				 "lossless none (no PORT_QOS_MAP entry for %s)", port);
			return 0;
		}
		if (strcmp(w[0], port))
			continue;
		if (k == 2 && strcmp(w[1], "N/A") && (m = nos_prio_list(w[1], strlen(w[1]))) < 0) {
			snprintf(err, errlen, "'show pfc priority %s': '%s' is not a priority list",
				 port, w[1]);
			return -EINVAL;
		}
		rb->lossless = (unsigned)m;
		snprintf(rb->canon, sizeof(rb->canon), "lossless %s",
			 readback_prios(rb->lossless, pr, sizeof(pr)));
		return 0;
	}
	snprintf(err, errlen, "'show pfc priority %s' printed no row for %s", port, port);
	return -EINVAL;
}

/*
 * What pfc-misconfig reads on SONiC (pfc_misconfig.c): 'show pfc priority
 * PORT', then after SONIC_BUFFER_PG_MARK the BUFFER_PG table
 * (db_port_entries): on the traditional buffer model buffermgrd writes a
 * lossless PG entry for every run of lossless priorities and never removes
 * one (sonic-swss cfgmgr/buffermgr.cpp doSpeedUpdateTask), so turning a
 * priority off leaves an entry behind; the port's entries are compared
 * whole.  A read without the mark (an older journal) is PFC alone.
 */
static int sonic_pfc(const char *port, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	const char *mark = strstr(out, SONIC_BUFFER_PG_MARK "\n");
	char *head = strndup(out, mark ? (size_t)(mark - out) : strlen(out));
	struct sbuf items = {0};
	char was[sizeof(rb->canon) + 16];
	int r;

	if (!head)
		return -ENOMEM;
	r = show_pfc(port, head, rb, err, errlen);
	free(head);
	if (r || !mark)
		return r;
	r = db_port_entries("BUFFER_PG", port, mark + strlen(SONIC_BUFFER_PG_MARK) + 1, rb, err,
			    errlen);
	if (r)
		return r;
	ent_items(rb, &items);
	snprintf(was, sizeof(was), "%s; BUFFER_PG ", rb->canon);
	nos_canon_list(rb, was, items.p, "");
	sb_free(&items);
	return 0;
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET PORT|P speed' then '... autoneg', one
 * value a line (an empty line: the field is not set).  CONFIG_DB PORT speed
 * is in Mbit/s (sonic-utilities config/main.py 'config interface speed',
 * scripts/portconfig); autoneg "on"/"off".
 */
static int sonic_speed(const char *port, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	if ((l = nos_next_line(&s, &n)) && n) {
		if (n >= sizeof(rb->speed) || strspn(l, "0123456789") != n) {
			snprintf(err, errlen, "CONFIG_DB PORT|%s speed '%.*s' is not Mbit/s", port,
				 (int)(n < 40 ? n : 40), l);
			return -EINVAL;
		}
		snprintf(rb->speed, sizeof(rb->speed), "%.*s", (int)n, l);
	}
	if ((l = nos_next_line(&s, &n)) && n)
		snprintf(rb->autoneg, sizeof(rb->autoneg), "%.*s",
			 (int)(n < sizeof(rb->autoneg) ? n : sizeof(rb->autoneg) - 1), l);
	snprintf(rb->canon, sizeof(rb->canon), "speed %s, autoneg %s",
		 rb->speed[0] ? rb->speed : "not set", rb->autoneg[0] ? rb->autoneg : "not set");
	return 0;
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET PORT|P admin_status', what 'config
 * interface shutdown/startup P' writes ("down"/"up": sonic-utilities
 * config/main.py, checked by its tests as CONFIG_DB PORT|Ethernet0
 * admin_status); an empty line: not set.
 */
static int sonic_admin(const char *port, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	size_t n;

	if ((l = nos_next_line(&s, &n)) && n) {
		if (n >= sizeof(rb->admin) || strspn(l, "abcdefghijklmnopqrstuvwxyz") != n) {
			snprintf(err, errlen, "CONFIG_DB PORT|%s admin_status '%.*s' is not a word",
				 port, (int)(n < 40 ? n : 40), l);
			return -EINVAL;
		}
		snprintf(rb->admin, sizeof(rb->admin), "%.*s", (int)n, l);
	}
	rb->up = !strcmp(rb->admin, "up");
	snprintf(rb->canon, sizeof(rb->canon), "admin_status %s",
		 rb->admin[0] ? rb->admin : "not set");
	return 0;
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB KEYS ACL_TABLE|*' then '... ACL_RULE|*',
 * one key a line, as sonic-mgmt's ACL tests read them (tests/acl, 'keys
 * "ACL_RULE|*" | xargs sonic-db-cli CONFIG_DB del').  The tables (sorted),
 * how many rules, and whether the fault's own table is there; and, where
 * the read lists them too (ipid-drop's), the keys of ACL_TABLE_TYPE, UDF and
 * UDF_SELECTOR, sorted: what a user-defined match adds.
 */
static int sonic_acl(const char *name, const char *out, struct readback *rb, char *err,
		     size_t errlen)
{
	static const char *const other[] = {"ACL_TABLE_TYPE|", "UDF|", "UDF_SELECTOR|"};
	const char *l, *s = out;
	char **tables = NULL, **keys = NULL, tail[96];
	size_t n, nt = 0, nk = 0, rules = 0, nl = strlen(name);
	struct sbuf items = {0};

	(void)err;
	(void)errlen;
	while ((l = nos_next_line(&s, &n))) {
		if (n > 10 && !strncmp(l, "ACL_TABLE|", 10)) {
			char **t = RL_PUSH(tables, nt);

			*t = rl_xstrdup(l + 10);
			(*t)[n - 10] = '\0';
			rb->exists |= n - 10 == nl && !strncmp(l + 10, name, nl);
		} else if (n > 9 && !strncmp(l, "ACL_RULE|", 9)) {
			rules++;
			rb->exists |= n > 9 + nl && !strncmp(l + 9, name, nl) && l[9 + nl] == '|';
		} else {
			for (size_t i = 0; i < ARRAY_SIZE(other); i++)
				if (n > strlen(other[i]) &&
				    !strncmp(l, other[i], strlen(other[i]))) {
					char **k = RL_PUSH(keys, nk);

					*k = rl_xstrdup(l);
					(*k)[n] = '\0';
				}
		}
	}
	if (nt)
		rl_sort(tables, nt, sizeof(*tables), nos_cmp_str);
	for (size_t i = 0; i < nt; i++) {
		sb_printf(&items, "%s%s", i ? ", " : "", tables[i]);
		free(tables[i]);
	}
	free(tables);
	snprintf(tail, sizeof(tail), "; %zu rule(s); %s %s", rules, name,
		 rb->exists ? "there" : "not there");
	if (nk) {
		rl_sort(keys, nk, sizeof(*keys), nos_cmp_str);
		sb_printf(&items, "; other keys: ");
		for (size_t i = 0; i < nk; i++) {
			sb_printf(&items, "%s%s", i ? ", " : "", keys[i]);
			free(keys[i]);
		}
	}
	free(keys);
	nos_canon_list(rb, nt ? "ACL tables " : "no ACL tables", items.p ? items.p : "", tail);
	sb_free(&items);
	return 0;
}

/*
 * SONiC 'aclshow -a -t NAME' (sonic-utilities scripts/aclshow; the format
 * of tests/aclshow_test.py): "RULE NAME  TABLE NAME  PRIO  PACKETS COUNT
 * BYTES COUNT" under a line of dashes; N/A where COUNTERS_DB has no value
 * (ACL counter polling off, or not polled yet).  The fault's rules are
 * RULE_<n> of its table.
 */
static int sonic_aclshow(const char *name, const char *out, struct readback *rb, char *err,
			 size_t errlen)
{
	const char *l, *s = out;
	char w[5][NOS_WORD_MAX];
	size_t n, rules = 0, na = 0;

	while ((l = nos_next_line(&s, &n))) {
		if (nos_words(l, n, w, 5) < 5 || strcmp(w[1], name) || strncmp(w[0], "RULE_", 5))
			continue;
		rules++;
		if (!strcmp(w[3], "N/A"))
			na++;
		else
			rb->packets += strtoull(w[3], NULL, 10);
	}
	if (!rules) {
		snprintf(err, errlen, "aclshow lists no RULE_ of %s", name);
		return -EINVAL;
	}
	rb->counted = na < rules;
	snprintf(rb->canon, sizeof(rb->canon), "%zu rule(s) of %s: %llu packet(s)%s", rules, name,
		 rb->packets,
		 na ? (rb->counted ? ", some N/A" : ", N/A (counters not polled)") : "");
	return 0;
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET BUFFER_PROFILE|P dynamic_th', one
 * integer (mmuconfig's -8..8); an empty line: the profile is not there or
 * has a static threshold instead.
 */
static int sonic_dynth(const char *prof, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	const char *l, *s = out;
	size_t n = 0;
	char *end;
	long v;

	if ((l = nos_next_line(&s, &n)) && n) {
		char num[24];

		snprintf(num, sizeof(num), "%.*s", (int)(n < 23 ? n : 23), l);
		v = strtol(num, &end, 10);
		if (n > 3 || end == num || *end || v < -8 || v > 8) {
			snprintf(err, errlen,
				 "CONFIG_DB BUFFER_PROFILE|%s dynamic_th '%s' is not an alpha "
				 "exponent (-8..8)",
				 prof, num);
			return -EINVAL;
		}
		snprintf(rb->alpha, sizeof(rb->alpha), "%ld", v);
	}
	if (rb->alpha[0])
		snprintf(rb->canon, sizeof(rb->canon), "%s dynamic_th %s", prof, rb->alpha);
	else
		snprintf(rb->canon, sizeof(rb->canon), "%s has no dynamic_th", prof);
	return 0;
}

/*
 * SONiC: 'sonic-cfggen -d --var-json BUFFER_PROFILE', the running CONFIG_DB's
 * BUFFER_PROFILE table as one JSON object of profiles and their fields (no
 * output: no table).  Checked to be that; the kind reads the profiles.
 */
static int sonic_bufprofiles(const char *what, const char *out, struct readback *rb, char *err,
			     size_t errlen)
{
	json_t *v = nos_json_or_empty(out, strlen(out)), *x;
	const char *k;
	size_t n = 0, dyn = 0;

	if (!json_is_object(v)) {
		snprintf(err, errlen,
			 "'sonic-cfggen -d --var-json BUFFER_PROFILE' printed no table");
		json_decref(v);
		return -EINVAL;
	}
	json_object_foreach(v, k, x)
	{
		n++;
		dyn += json_is_string(json_object_get(x, "dynamic_th"));
	}
	snprintf(rb->canon, sizeof(rb->canon),
		 "BUFFER_PROFILE: %zu profile(s), %zu with a dynamic threshold (%s)", n, dyn, what);
	json_decref(v);
	return 0;
}

/*
 * SONiC: CONFIG_DB PFC_WD|PORT's detection_time, restoration_time and action,
 * a line each (an empty line: not set), as pfc-storm reads them; what
 * sonic-utilities' 'pfcwd start' writes (pfcwd/main.py).  rb->value: "D R A"
 * (R 0 and A "-" when not set), "" when the port has no watchdog.  Device
 * output is untrusted: a time that is not a number of ms, or an action that
 * is not one of drop, forward, alert, is refused.
 */
static int sonic_pfcwd_cfg(const char *port, const char *out, struct readback *rb, char *err,
			   size_t errlen)
{
	static const char *const actions[] = {"drop", "forward", "alert"};
	const char *l, *s = out;
	char f[3][16] = {"", "", ""};
	size_t n, k = 0;

	while (k < 3 && (l = nos_next_line(&s, &n))) {
		if (n >= sizeof(f[0])) {
			snprintf(err, errlen, "PFC_WD|%s: a field of %zu bytes is no watchdog's",
				 port, n);
			return -EINVAL;
		}
		snprintf(f[k++], sizeof(f[0]), "%.*s", (int)n, l);
	}
	for (int i = 0; i < 2; i++)
		if (f[i][0] && (strspn(f[i], "0123456789") != strlen(f[i]) || strlen(f[i]) > 6)) {
			snprintf(err, errlen, "PFC_WD|%s: %s is not a number of ms", port,
				 i ? "restoration_time" : "detection_time");
			return -EINVAL;
		}
	if (f[2][0]) {
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
			known |= !strcmp(f[2], actions[i]);
		if (!known) {
			snprintf(err, errlen, "PFC_WD|%s: action is none of drop, forward, alert",
				 port);
			return -EINVAL;
		}
	}
	if (!f[0][0]) {
		snprintf(rb->canon, sizeof(rb->canon), "PFC_WD|%s: no watchdog", port);
		return 0;
	}
	snprintf(rb->value, sizeof(rb->value), "%s %s %s", f[0], f[1][0] ? f[1] : "0",
		 f[2][0] ? f[2] : "-");
	snprintf(rb->canon, sizeof(rb->canon),
		 "PFC_WD|%s: detection %s ms, restoration %s ms, action %s", port, f[0],
		 f[1][0] ? f[1] : "not set", f[2][0] ? f[2] : "not set");
	return 0;
}

/*
 * SONiC: 'sonic-db-cli CONFIG_DB HGET QUEUE|PORT|Q wred_profile', the WRED
 * profile bound to the queue (its name, or "[WRED_PROFILE|NAME]" before
 * sonic-utilities' db_migrator dropped the brackets); an empty line: none
 * bound, no WRED or ECN on the queue.  arg: "PORT Q".
 */
static int sonic_wred(const char *arg, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	const char *l, *s = out;
	size_t n = 0;
	char port[64];
	const char *q = readback_port_queue(arg, port, sizeof(port));

	if ((l = nos_next_line(&s, &n)) && n) {
		snprintf(rb->ecn, sizeof(rb->ecn), "%.*s", (int)n, l);
		if (n >= sizeof(rb->ecn) || !db_name(rb->ecn)) {
			snprintf(err, errlen,
				 "CONFIG_DB QUEUE|%s|%s wred_profile '%.40s' is not a profile name",
				 port, q, rb->ecn);
			rb->ecn[0] = '\0';
			return -EINVAL;
		}
	}
	snprintf(rb->canon, sizeof(rb->canon), "QUEUE|%s|%s wred_profile %.100s", port, q,
		 rb->ecn[0] ? rb->ecn : "not set (no WRED/ECN)");
	return 0;
}

/*
 * SONiC: the QUEUE table read whole ('sonic-cfggen -d --var-json QUEUE';
 * db_port_entries), arg "PORT Q": the port's entries, and the one that holds
 * queue Q: its own key "PORT|Q" first, else a range or a port list that
 * names it ("Ethernet0|3-4", "Ethernet0,Ethernet4|3": sonic-swss
 * orchagent/qosorch.cpp handleQueueTable takes either), with its
 * wred_profile as ecn (a name, or "[WRED_PROFILE|NAME]" before
 * sonic-utilities' db_migrator dropped the brackets).
 */
static int sonic_queue(const char *arg, const char *out, struct readback *rb, char *err,
		       size_t errlen)
{
	char port[64], head[224], own[80];
	const char *q = readback_port_queue(arg, port, sizeof(port)), *w;
	struct sbuf items = {0};
	int r = db_port_entries("QUEUE", port, out, rb, err, errlen), qi = atoi(q);

	if (r)
		return r;
	rb->cover = -1;
	snprintf(own, sizeof(own), "%s|%s", port, q);
	for (int i = 0; i < rb->n_ent; i++)
		if (!strcmp(rb->ent[i].key, own) ||
		    (rb->cover < 0 && readback_index_has(rb->ent[i].key, qi)))
			rb->cover = i;
	rb->shared = rb->cover >= 0 && strcmp(rb->ent[rb->cover].key, own);
	if (rb->cover >= 0 && (w = strstr(rb->ent[rb->cover].fields, "wred_profile ")) &&
	    (w == rb->ent[rb->cover].fields || w[-1] == ' '))
		snprintf(rb->ecn, sizeof(rb->ecn), "%.*s", (int)strcspn(w + 13, " "), w + 13);
	if (rb->cover < 0)
		snprintf(head, sizeof(head), "queue %s of %s in no QUEUE entry (no WRED/ECN); ", q,
			 port);
	else
		snprintf(head, sizeof(head), "QUEUE|%s wred_profile %s; ", rb->ent[rb->cover].key,
			 rb->ecn[0] ? rb->ecn : "not set (no WRED/ECN)");
	ent_items(rb, &items);
	nos_canon_list(rb, head, items.p, "");
	sb_free(&items);
	return 0;
}

/* A CONFIG_DB number of one or two digits, at most hi: its value, or -1. */
static int db_small(const char *v, int hi)
{
	size_t n = v ? strlen(v) : 0;

	if (!n || n > 2 || strspn(v, "0123456789") != n || atoi(v) > hi)
		return -1;
	return atoi(v);
}

/*
 * SONiC dscp-mismatch's read, arg "PORT DSCP": 'sonic-cfggen -d --var-json
 * PORT_QOS_MAP', a line SONIC_DSCP_MAP_MARK, then '... DSCP_TO_TC_MAP' (one
 * JSON object each, nothing for no table: db_port_entries).  The map the
 * port classifies by is its entry's dscp_to_tc_map (an entry of its own, or
 * of a port list that holds it: rb->shared, ent[0] its key), else
 * PORT_QOS_MAP|global's, the switch's (sonic-swss orchagent/qosorch.cpp:
 * handlePortQosMapTable, handleGlobalQosMap), a name or
 * "[DSCP_TO_TC_MAP|NAME]" as older images write references; a map's fields
 * are DSCP: TC (DscpToTcMapHandler::convertFieldValuesToAttributes).  Into
 * profile the reference as written, map the map whole ("DSCP TC ..."), and
 * dscp_prio the DSCP's TC; canon also holds both tables whole (drift).
 */
static int sonic_dscp(const char *arg, const char *out, struct readback *rb, char *err,
		      size_t errlen)
{
	char port[64], head[224];
	int dscp = atoi(readback_port_queue(arg, port, sizeof(port))), tc[64], r = 0;
	const char *mark = strstr(out, SONIC_DSCP_MAP_MARK), *k, *ref = NULL, *whose = "";
	json_t *pqm = NULL, *maps = NULL, *x, *pe = NULL, *g, *m = NULL;
	struct sbuf items = {0};
	char *dump;

	rb->dscp_prio = -1;
	if (!mark) {
		snprintf(err, errlen,
			 "no '" SONIC_DSCP_MAP_MARK "' line: not what rocelab's read "
			 "of PORT_QOS_MAP and DSCP_TO_TC_MAP prints");
		return -EINVAL;
	}
	pqm = nos_json_or_empty(out, (size_t)(mark - out));
	mark += strlen(SONIC_DSCP_MAP_MARK);
	maps = nos_json_or_empty(mark, strlen(mark));
	if (!json_is_object(pqm) || !json_is_object(maps)) {
		snprintf(err, errlen, "'sonic-cfggen -d --var-json %s' printed no table",
			 json_is_object(pqm) ? "DSCP_TO_TC_MAP" : "PORT_QOS_MAP");
		r = -EINVAL;
		goto done;
	}
	if (json_is_object(x = json_object_get(pqm, port)))
		pe = x;
	else
		json_object_foreach(pqm, k, x) if (strchr(k, ',') && nos_in_list(k, port) &&
						   json_is_object(x))
		{
			if (!db_key(k) || strlen(k) >= sizeof(rb->ent[0].key)) {
				snprintf(
				    err, errlen,
				    "CONFIG_DB PORT_QOS_MAP key '%.60s' is not one rocelab can "
				    "name",
				    k);
				r = -EINVAL;
				goto done;
			}
			pe = x;
			rb->shared = true;
			snprintf(rb->ent[0].key, sizeof(rb->ent[0].key), "%s", k);
			rb->n_ent = 1;
			break;
		}
	g = json_object_get(pqm, "global");
	if ((ref = json_string_value(json_object_get(pe, "dscp_to_tc_map")))) {
		rb->bound = true;
		whose = rb->shared ? "its port list's" : "its own";
	} else if ((ref = json_string_value(json_object_get(g, "dscp_to_tc_map")))) {
		whose = "the switch's, PORT_QOS_MAP|global";
	}
	if (ref) {
		const char *name = ref;
		size_t nl = strlen(ref);

		if (!db_name(ref) || nl >= sizeof(rb->profile)) {
			snprintf(err, errlen,
				 "CONFIG_DB dscp_to_tc_map '%.40s' is not a map name rocelab can "
				 "write back",
				 ref);
			r = -EINVAL;
			goto done;
		}
		snprintf(rb->profile, sizeof(rb->profile), "%s", ref);
		if (!strncmp(ref, "[DSCP_TO_TC_MAP|", 16) && ref[nl - 1] == ']') {
			snprintf(head, sizeof(head), "%.*s", (int)(nl - 17), ref + 16);
			m = json_object_get(maps, head);
		} else {
			m = json_object_get(maps, name);
		}
	}
	for (int d = 0; d < 64; d++)
		tc[d] = -1;
	json_object_foreach(m, k, x)
	{
		int d = db_small(k, 63), t = db_small(json_string_value(x), 15);

		if (d < 0 || t < 0) {
			snprintf(err, errlen,
				 "CONFIG_DB DSCP_TO_TC_MAP|%s holds '%.8s' to '%.8s', not a DSCP "
				 "(0-63) to a traffic class (0-15)",
				 rb->profile, k, json_is_string(x) ? json_string_value(x) : "?");
			r = -EINVAL;
			goto done;
		}
		tc[d] = t;
	}
	for (int d = 0, o = 0; d < 64; d++)
		if (tc[d] >= 0)
			o += snprintf(rb->map + o, sizeof(rb->map) - (size_t)o, "%s%d %d",
				      o ? " " : "", d, tc[d]);
	rb->dscp_prio = dscp >= 0 && dscp < 64 ? tc[dscp] : -1;
	if (!ref)
		snprintf(head, sizeof(head),
			 "%s has no dscp_to_tc_map, nor PORT_QOS_MAP|global: DSCP %d in no map; ",
			 port, dscp);
	else if (!m)
		snprintf(head, sizeof(head),
			 "%s dscp_to_tc_map %s (%s) is not in DSCP_TO_TC_MAP: DSCP %d in no map; ",
			 port, ref, whose, dscp);
	else if (rb->dscp_prio < 0)
		snprintf(head, sizeof(head), "%s dscp_to_tc_map %s (%s): DSCP %d not in it; ", port,
			 ref, whose, dscp);
	else
		snprintf(head, sizeof(head), "%s dscp_to_tc_map %s (%s): DSCP %d -> TC %d; ", port,
			 ref, whose, dscp, rb->dscp_prio);
	/* both tables whole, keys sorted: the same state reads the same */
	dump = json_dumps(pe ? pe : json_null(), JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	sb_printf(&items, "PORT_QOS_MAP %s %s", port, dump ? dump : "");
	free(dump);
	dump = json_dumps(g ? g : json_null(), JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	sb_printf(&items, " global %s", dump ? dump : "");
	free(dump);
	dump = json_dumps(maps, JSON_SORT_KEYS | JSON_COMPACT);
	sb_printf(&items, " DSCP_TO_TC_MAP %s", dump ? dump : "");
	free(dump);
	nos_canon_list(rb, head, items.p, "");
done:
	sb_free(&items);
	json_decref(pqm);
	json_decref(maps);
	return r;
}

/*
 * SONiC: 'sonic-db-cli COUNTERS_DB HGET "COUNTERS:<oid>"
 * SAI_PORT_STAT_PFC_<p>_RX_PKTS', one number (the counter pfcstat shows as
 * "PFC<p>" under Rx).  An empty line: no such port or counter.
 */
static int sonic_pfc_rx(const char *arg, const char *out, struct readback *rb, char *err,
			size_t errlen)
{
	char port[64], *end;
	int prio = atoi(readback_port_queue(arg, port, sizeof(port)));
	unsigned long long n;

	errno = 0;
	n = strtoull(out, &end, 10);
	if (errno || end == out || *out == '-' || strspn(end, " \r\n") != strlen(end)) {
		snprintf(err, errlen,
			 "COUNTERS_DB has '%.40s' for %s's SAI_PORT_STAT_PFC_%d_RX_PKTS, not a "
			 "count (is %s in COUNTERS_PORT_NAME_MAP?)",
			 out, port, prio, port);
		return -EINVAL;
	}
	return nos_pfc_rx_found(rb, port, prio, n);
}

/* ---- port states (links.h) ---- */

/*
 * APPL_DB PORT_TABLE:<port> oper_status, the field `show interfaces status`
 * prints as Oper (sonic-utilities scripts/intfutil, PORT_STATUS_TABLE_PREFIX
 * and PORT_OPER_STATUS), read with sonic-db-cli.
 */
static char *sonic_links_command(const struct inv_switch *sw, const char *const **argv)
{
	struct sbuf b = {0};

	(void)argv;
	sb_printf(&b, "for p in");
	for (size_t p = 0; p < sw->n_ports; p++)
		sb_printf(&b, " %s", sw->ports[p].name);
	sb_printf(&b, "; do echo \"$p $(sonic-db-cli APPL_DB HGET \"PORT_TABLE:$p\" "
		      "oper_status)\"; done");
	return sb_take(&b);
}

/* "Ethernet0 up" lines; an empty state is a port APPL_DB does not know. */
static int sonic_links_parse(const struct inv_switch *sw, const char *out, struct port_state *st,
			     char *err, size_t errlen)
{
	char *text = rl_xstrdup(out), *save = NULL;
	int lines = 0;

	for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		char *word = strchr(ln, ' ');
		int p;

		if (word)
			*word++ = '\0';
		p = nos_port_index(sw, ln);
		if (p < 0)
			continue;
		lines++;
		word = word ? word + strspn(word, " \t") : NULL;
		if (word && *word) {
			word[strcspn(word, " \t\r")] = '\0';
			nos_port_set(&st[p], word, !strcmp(word, "up"));
		}
	}
	free(text);
	if (!lines && sw->n_ports) {
		snprintf(err, errlen, "%s: no 'PORT oper_status' line in what sonic-db-cli printed",
			 sw->name);
		return -EINVAL;
	}
	return 0;
}

static const struct nos_parser parsers[] = {
    {"sonic-pfc", sonic_pfc},
    {"sonic-speed", sonic_speed},
    {"sonic-admin", sonic_admin},
    {"sonic-acl", sonic_acl},
    {"sonic-aclshow", sonic_aclshow},
    {"sonic-dynth", sonic_dynth},
    {"sonic-wred", sonic_wred},
    {"sonic-queue", sonic_queue},
    {"sonic-pfc-rx", sonic_pfc_rx},
    {"sonic-bufprofiles", sonic_bufprofiles},
    {"sonic-pfcwd", sonic_pfcwd_cfg},
    {"sonic-dscp", sonic_dscp},
    {NULL, NULL},
};

/* ---- counters (ctr.h) ---- */

/* "sonic-db-cli COUNTERS_DB HGETALL" of MAP's object for key: its whole SAI counter hash. */
static void sonic_hash_read(struct nos_ctr_read *r, const char *group, const char *map,
			    const char *key)
{
	*r = (struct nos_ctr_read){.parse = nos_ctr_sonic_hash};
	snprintf(r->group, sizeof(r->group), "%s", group);
	snprintf(r->line, sizeof(r->line),
		 "sonic-db-cli COUNTERS_DB HGETALL \"COUNTERS:$(sonic-db-cli COUNTERS_DB HGET %s "
		 "%s)\"",
		 map, key);
}

/*
 * The port's SAI counters in COUNTERS_DB, its object found in
 * COUNTERS_PORT_NAME_MAP: what portstat ('show interfaces counters') and
 * pfcstat ('show pfc counters') read (sonic-utilities scripts/portstat,
 * scripts/pfcstat), unmodified by their 'clear' snapshots:
 * SAI_PORT_STAT_IF_IN_DISCARDS, SAI_PORT_STAT_PFC_3_RX_PKTS, ...  With a
 * priority, its queue's ("PORT:P" in COUNTERS_QUEUE_NAME_MAP: what queuestat
 * reads, SAI_QUEUE_STAT_DROPPED_PACKETS, and the PFC watchdog's
 * PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED ... on the same object, as 'pfcwd
 * show stats' reads them, pfcwd/main.py) and its priority group's
 * ("PORT:P" in COUNTERS_PG_NAME_MAP, SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS,
 * scripts/pg-drop).  Queue P for priority P is the default TC map's
 * (inferred, as ecn-misconfig takes it).
 */
static size_t sonic_counters(const char *port, int prio, struct nos_ctr_read *r, size_t max)
{
	char key[96], group[16];
	size_t n = 0;

	if (n < max)
		sonic_hash_read(&r[n++], "sai", "COUNTERS_PORT_NAME_MAP", port);
	if (prio < 0 || prio > 7)
		return n;
	snprintf(key, sizeof(key), "%s:%d", port, prio);
	snprintf(group, sizeof(group), "queue %d", prio);
	if (n < max)
		sonic_hash_read(&r[n++], group, "COUNTERS_QUEUE_NAME_MAP", key);
	snprintf(group, sizeof(group), "pg %d", prio);
	if (n < max)
		sonic_hash_read(&r[n++], group, "COUNTERS_PG_NAME_MAP", key);
	return n;
}

/*
 * The PFC watchdog of port's queue prio: its state, PFC_WD_STATUS in the
 * queue's COUNTERS_DB hash ("operational", "stormed": what 'pfcwd show
 * stats' prints, sonic-utilities pfcwd/main.py show_stats(); sonic-db-cli
 * prints an empty line for a field that is not there, redis-cli's form,
 * sonic-swss-common sonic-db-cli.cpp), and its restoration time, CONFIG_DB
 * PFC_WD|PORT restoration_time in ms (pfcwd/main.py start_cmd(): 'pfcwd
 * start --restoration-time', else twice the detection time).
 */
static void sonic_pfcwd(const char *port, int prio, struct sbuf *state, struct sbuf *restore)
{
	sb_printf(state,
		  "sonic-db-cli COUNTERS_DB HGET \"COUNTERS:$(sonic-db-cli COUNTERS_DB HGET "
		  "COUNTERS_QUEUE_NAME_MAP %s:%d)\" PFC_WD_STATUS",
		  port, prio);
	sb_printf(restore, "sonic-db-cli CONFIG_DB HGET \"PFC_WD|%s\" restoration_time", port);
}

const struct nos_ops nos_sonic = {
    .dialect = INV_DIALECT_SONIC,
    .parsers = parsers,
    .links_command = sonic_links_command,
    .links_source = "sonic-db-cli APPL_DB PORT_TABLE oper_status",
    .links_parse = sonic_links_parse,
    .counters = sonic_counters,
    .pfcwd = sonic_pfcwd,
};
