/* SPDX-License-Identifier: MIT */
/*
 * Reading a device's state back in its own words: the parsers behind a
 * fault action's read (fault.h), each named by its read_as, "PARSER ARG":
 * - PFC: "sonic-pfc Ethernet4", "eos-pfc Ethernet1", "nvue-pfc swp2",
 *   "dcb-pfc ens1np0" (an RNIC);
 * - port speed: "sonic-speed Ethernet0", "eos-speed Ethernet1", "nvue-speed swp1";
 * - admin state: "sonic-admin Ethernet0", "eos-shut Ethernet1", "nvue-state
 *   swp1", "ip-link swp1" (a Linux switch port or an RNIC's netdev);
 * - ACLs: "sonic-acl NAME", "eos-acl NAME PORT,PORT", "nvue-acl NAME
 *   PORT,PORT", "nft-tables NAME" (NAME: the fault's own table);
 * - "tc-root swp1": the root qdisc;
 * - "sysfs PATH": a sysfs or procfs attribute of one value (a host's);
 * - buffer alpha: "sonic-dynth PROFILE" (CONFIG_DB dynamic_th), "eos-mmu PG"
 *   (the applied MMU queue profile and its priority group's threshold),
 *   "nvue-alpha default-global" (ingress-lossless-buffer shared-alpha);
 * - ECN of a port's queue: "sonic-queue PORT Q" (the port's CONFIG_DB QUEUE
 *   entries whole, and the one that holds Q), "sonic-wred PORT Q" (CONFIG_DB
 *   QUEUE|PORT|Q wred_profile: journals of an older rocelab), "eos-ecn PORT
 *   Q" (its uc-tx-queue's random-detect ecn), "nvue-ecn PORT Q" (its
 *   congestion-control profile's traffic-class);
 * - ACL counters of the fault's table: "sonic-aclshow NAME" (aclshow -a -t
 *   NAME), "eos-acl-counters NAME" (show ip access-lists NAME),
 *   "nvue-acl-counters NAME LAST" ('nv show interface P acl' per port, the
 *   rules up to LAST);
 * - PFC frames a port received for a priority (pfc-storm): "sonic-pfc-rx
 *   PORT PRIO", "eos-pfc-rx PORT PRIO", "nvue-pfc-rx PORT PRIO", the count
 *   in packets;
 * - the priority a DSCP maps to (dscp-mismatch): "sonic-dscp PORT DSCP"
 *   (PORT_QOS_MAP and DSCP_TO_TC_MAP whole), "nvue-dscp PORT DSCP" (the
 *   port's mapping profile), "eos-dscp DSCP" (the switch's qos map dscp
 *   lines), "dcb-app DEV DSCP" (an RNIC's DCB APP table).
 * What they return is compared before the fault and after its revert; a
 * difference is drift.  Each NOS's parsers live in its room (nos_ops.h:
 * linux.c, sonic.c, eos.c, nvue.c); readback_parse finds them by name.
 */
#ifndef ROCELAB_READBACK_H
#define ROCELAB_READBACK_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/*
 * pfc-misconfig's read on SONiC: 'show pfc priority PORT', a line of this,
 * then the BUFFER_PG table ("sonic-pfc PORT" parses both).
 */
#define SONIC_BUFFER_PG_MARK "# CONFIG_DB BUFFER_PG"
/*
 * dscp-mismatch's read on SONiC: 'sonic-cfggen -d --var-json PORT_QOS_MAP', a
 * line of this, then the DSCP_TO_TC_MAP table ("sonic-dscp PORT DSCP").
 */
#define SONIC_DSCP_MAP_MARK "# CONFIG_DB DSCP_TO_TC_MAP"

struct readback {
	/* *-pfc */
	unsigned lossless; /* bit p: priority p is lossless (PFC enabled) on the port */
	bool pfc_on;	   /* the port's PFC itself (EOS 'priority-flow-control on', NVUE rx/tx) */
	char profile[64];  /* nvue: the port's PFC profile; eos-mmu: the MMU profile applied */
	bool bound;	   /* nvue: the port names its own profile (else default-global) */
	/* *-speed: the port's configured speed as its NOS writes it ("": none set) */
	char speed[32];
	char autoneg[16]; /* sonic: CONFIG_DB autoneg ("": not set) */
	/* buffer alpha as the NOS writes it ("-6", "1/64", "alpha_1_64"; "": not set) */
	char alpha[24];
	/*
	 * ECN of a queue as the NOS writes it ("": none set): the WRED profile
	 * bound (sonic), the random-detect ecn line (eos), the traffic class's
	 * "KEY VALUE ..." in the port's congestion-control profile (nvue, whose
	 * name is in profile, bound when the port names it)
	 */
	char ecn[112];
	/* tc-root */
	char qdisc[24], handle[16];
	/* admin state: *-admin, eos-shut, nvue-state, ip-link */
	bool up;	/* administratively up (what a flap takes down) */
	char admin[16]; /* as the NOS writes it ("up", "down"; "": not set) */
	/* ACLs: is the fault's own table there already; what else would clash */
	bool exists;
	unsigned n_bound; /* ports that name the fault's table (eos, nvue) */
	char clash[128];  /* eos: "Ethernet1 has ip access-group X in" */
	/* ACL counters: packets its deny rules matched; counted: the NOS keeps them */
	unsigned long long packets;
	bool counted;
	/* sysfs: the attribute's value as the kernel prints it, trimmed */
	char value[32];
	/* nvue-pfc, nvue-ecn: the switch's RoCE mode ('nv set qos roce [mode M]'; "": none) */
	char roce[16];
	/*
	 * *-dscp, dcb-app: the priority (a switch's traffic class or switch
	 * priority, an RNIC's priority) the DSCP read maps to (-1: none, or not
	 * known: EOS's default map); the map or profile the port classifies by
	 * is profile, bound when the port names it itself (else the switch's
	 * global or default one); map: the whole map as "DSCP PRIO ..." where a
	 * copy of it is written (sonic); trust_dscp: the port classifies IP
	 * packets by their DSCP at all (nvue: trust l3 or both)
	 */
	int dscp_prio;
	char map[400];
	bool trust_dscp;
	/* dcb-maxrate: each TC's ETS max rate, kbit/s (0: none) */
	unsigned long long maxrate[8];
	/*
	 * sonic-queue, sonic-pfc: the port's entries of a CONFIG_DB table (QUEUE,
	 * BUFFER_PG), read whole: each key without the table name ("Ethernet0|3-4",
	 * "Ethernet0,Ethernet4|3") and its fields, "FIELD VALUE ..."; cover: the
	 * entry that holds the queue read (sonic-queue; -1: none), shared when it
	 * is a range or a port list, not the queue's own ("PORT|Q")
	 */
	struct rb_entry {
		char key[64];
		char fields[160];
	} ent[8];
	int n_ent, cover;
	bool shared;
	bool ent_read; /* the table was read (a journal of an older rocelab has not) */
	/* what it says, in one line: compared for drift, shown as evidence */
	char canon[192];
};

/* Queue (or PG) q in a SONiC key's index part: "3", or a range "3-4" (qosorch parseIndexRange). */
bool readback_index_has(const char *key, int q);

/*
 * Parse out, what read printed, as read_as says; 0, or -EINVAL with err
 * saying what was not in the NOS's format.
 */
int readback_parse(const char *read_as, const char *out, struct readback *rb, char *err,
		   size_t errlen);

/* Is priority prio lossless on the port (PFC on and the priority enabled)? */
bool readback_lossless(const struct readback *rb, int prio);

/*
 * NVUE: the attributes of profile name of 'qos FEATURE' (pfc,
 * congestion-control) in what 'nv config show -o commands' printed, but
 * those whose first word is in skip (NULL-terminated, may be NULL), one
 * "nv set qos FEATURE NEW ... && " each into sb.
 */
void readback_nvue_profile_copy(const char *out, const char *feature, const char *name,
				const char *newname, const char *const *skip, struct sbuf *sb);

/* An ECN read's argument "PORT Q": the port into port, and the queue as written ("3"). */
const char *readback_port_queue(const char *arg, char *port, size_t len);

/* "3,4" or "none" for a priority mask. */
const char *readback_prios(unsigned mask, char *buf, size_t len);

#endif
