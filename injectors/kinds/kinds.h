/* SPDX-License-Identifier: MIT */
/* The fault kinds by name: one file each in this folder, one line each in kinds.def. */
#ifndef ROCELAB_KINDS_H
#define ROCELAB_KINDS_H

#include "injectors/fault.h"
#include <jansson.h>

#define FAULT_KIND(id) extern const struct fault_kind_ops fk_##id;
#include "injectors/kinds/kinds.def"
#undef FAULT_KIND

/* ---- what a kind's file offers beyond its ops (its checks read them too) ---- */

struct sbuf;

/*
 * acl-error, reading SONiC back: the shell command into cmd that prints
 * "KEY=STATUS" for the plan's table and each of its rules from STATE_DB
 * (ACL_TABLE_TABLE|NAME, ACL_RULE_TABLE|NAME|RULE_n: orchagent's "Active" or
 * "Inactive"); returns how many rules.  Then its output judged: -EIO with
 * err when one is not Active, else 0 with evidence (saying so when this
 * SONiC keeps no status).  out is split in place.
 */
/*
 * SONiC: orchagent's word on the fault's ACL table and each rule it writes
 * ("HSET 'ACL_RULE|..."), from STATE_DB (acl_error_sonic_status): 0 with
 * f->evidence, or the error with f->err.
 */
int acl_error_verify_sonic(struct fault_run *f);
size_t acl_error_sonic_status_cmd(const struct fault_plan *p, struct sbuf *cmd);
int acl_error_sonic_status(char *out, const char *dev, const struct fault_plan *p, size_t rules,
			   char *evidence, size_t elen, char *err, size_t errlen);

/*
 * link-flap on NVUE, its undo from what its read found: the port's 'link
 * state' as it was, or unset when none was set (also when found is NULL: a
 * dry run).
 */
void link_flap_nvue_state_revert(struct fault_action *a, const char *port, const char *found);

/*
 * pfc-misconfig on NVUE, one port from what its read found (NULL: not read
 * yet, as a port on the default profile shows): a's apply copies the
 * port's profile as table without prio and binds the port to it; its
 * revert binds the port back as found.
 */
void pfc_misconfig_nvue(struct fault_action *a, const char *port, int prio, const char *table,
			const char *found);

/*
 * pfc-storm: the command that shows how many PFC frames port has received
 * for priority prio in switch sw's CLI, as its NOS version words it
 * (caps.h), and the parser for it (readback.h: "sonic-pfc-rx",
 * "eos-pfc-rx", "nvue-pfc-rx", each "PARSER PORT PRIO"); -EOPNOTSUPP for
 * Linux (veth counts none: the frames are captured instead).
 */
int pfc_storm_rx_counter(const struct inv_switch *sw, const char *port, int prio, struct sbuf *cmd,
			 struct sbuf *read_as);

/*
 * link-degrade across ends[2]: 0 when both are shaped (TBF on Linux ends
 * and RNICs), else the port speed in Mbit/s that rate_kbit names (a
 * switch port runs at a speed both ends take), or -EOPNOTSUPP with why
 * listing the speeds.
 */
int link_degrade_port_speed(const struct inventory *inv, const struct inv_endpoint ends[2],
			    unsigned long long rate_kbit, char *why, size_t whylen);
/*
 * A port-speed action's undo from what its read found: the speed as read
 * (or the NOS's default when none was set).  found NULL (not read yet, a
 * dry run): an undo that says it restores what is read.
 */
void link_degrade_speed_revert(struct fault_action *a, const char *port, const char *found);
/*
 * How the dcb of 'dcb -V' (version: "dcb utility, iproute2-6.1.0") writes a
 * rate DCBNL takes in kbit/s: "kbit" from iproute2 6.18, "Bps" before it
 * (which handed its bytes/s to DCBNL as kbit/s); NULL: not a version.
 */
const char *link_degrade_dcb_unit(const char *version);
/*
 * The speeds (Mbit/s) a port can take, as its device says them: SONiC's
 * STATE_DB supported_speeds ("10000,25000,100000"), 'ethtool DEV' text's
 * Supported link modes ("100000baseCR4/Full ..."); into mbps (max), how
 * many; 0: not said.
 */
size_t link_degrade_speeds_sonic(const char *out, unsigned long long *mbps, size_t max);
size_t link_degrade_speeds_ethtool(const char *out, unsigned long long *mbps, size_t max);

/*
 * buffer-alpha: alpha = 2^n as dialect d writes it into buf ("-6" SONiC
 * dynamic_th, "1/64" EOS, "alpha_1_64" NVUE, "1/64" Linux); -EOPNOTSUPP
 * with why (the NOS's range) when d cannot set it.
 */
int buffer_alpha_word(enum inv_dialect d, int n, char *buf, size_t len, char *why, size_t whylen);
/*
 * buffer-alpha's apply and undo on a switch of dialect d (a NOS) from what
 * its read found (NULL: not read yet, a dry run): SONiC sets the
 * dynamic_th found back; NVUE sets the shared-alpha found or unsets it;
 * EOS changes the MMU queue profile found applied in place (its threshold
 * line back, or removed), or, with none applied, applies a profile of the
 * fault's own (table) and removes it.
 */
void buffer_alpha_plan(struct fault_action *a, enum inv_dialect d, const struct fault_spec *s,
		       const char *table, const char *found);

/*
 * ecn-misconfig's apply and undo on a NOS switch port from what its read
 * (a->read_as "sonic-wred|eos-ecn|nvue-ecn PORT Q") found (NULL: not read
 * yet, a dry run): SONiC binds a WRED profile of the fault's own (table,
 * upper case) to CONFIG_DB QUEUE|PORT|Q, or deletes the binding (--off),
 * and puts back the one found; EOS sets or removes the uc-tx-queue's (a
 * DNX platform's tx-queue's) random-detect ecn line and puts back the line found; NVUE binds the
 * port to a copy of its congestion-control profile (table) with the queue's ECN changed, and binds
 * it back as found.
 */
void ecn_misconfig_plan(struct fault_action *a, const struct inv_switch *sw,
			const struct fault_spec *s, const char *table, const char *found);
/*
 * The EOS uc-tx-queue line ecn-misconfig sets ("random-detect ecn
 * minimum-threshold ... bytes ..."), as the read then shows it; "" for --off.
 */
void ecn_misconfig_eos_line(const struct fault_spec *s, char *buf, size_t len);

/*
 * What an RNIC's driver does with a PFC change from the host, by its name
 * and its DCBX mode as 'dcb -j dcbx show' gives it ({"host":true,...};
 * NULL: not read): -EPERM with why in msg (bnxt_en without host IEEE DCBX
 * refuses it), 1 with a note in msg (mlx5_core flaps the link with it), else 0.
 */
int pfc_rnic_driver_check(const char *where, const char *driver, const json_t *dcbx, char *msg,
			  size_t len);

/* The kind named name, or NULL. */
const struct fault_kind_ops *fault_kind_find(const char *name);

/* The i-th kind, NULL past the last. */
const struct fault_kind_ops *fault_kind_at(size_t i);

/* "link-flap, acl-error, ..." */
const char *fault_kind_names(char *buf, size_t len);

#endif
