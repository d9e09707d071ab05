/* SPDX-License-Identifier: MIT */
/* The lab inventory: hosts, RNICs, switches, ports, links, tenants, parsed from YAML and validated.
 */
#ifndef ROCELAB_INVENTORY_H
#define ROCELAB_INVENTORY_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define INV_NAME_MAX	 31	/* device, RNIC, port and tenant names */
#define INV_ROCELAB_COPY "copy" /* host 'rocelab: copy' */
#define INV_NETDEV_MAX	 15	/* IFNAMSIZ - 1 */
#define INV_NOS_WORD_MAX 63	/* a switch's NOS version and model */

/* 1-based position in the inventory file. */
struct inv_loc {
	unsigned line, col;
};

enum inv_auth { INV_AUTH_NONE, INV_AUTH_LAB_KEY, INV_AUTH_KEY_FILE, INV_AUTH_AGENT };

/* How rocelab logs into a device: user plus a credential reference, never a password. */
struct inv_ssh {
	char user[INV_NAME_MAX + 1];
	enum inv_auth auth;
	char *key_file; /* INV_AUTH_KEY_FILE: path to the private key */
	unsigned port;
};

struct inv_prefix {
	struct in_addr addr;
	int len; /* -1 when the file gave no prefix length */
};

struct inv_rnic {
	char name[INV_NAME_MAX + 1];
	char netdev[INV_NETDEV_MAX + 1];
	char ibdev[INV_NAME_MAX + 1]; /* "" when not given: matched by netdev */
	int rail;		      /* >= 1 */
	struct inv_prefix addr;
	struct in_addr gateway; /* default: last usable address of the prefix */
	int gid_index;		/* -1: found by querying the GID table */
	size_t host;		/* index of the owning host */
	size_t link1;		/* its link's index + 1; 0: none (inventory_link_at()) */
	struct inv_loc loc;
};

struct inv_host {
	char name[INV_NAME_MAX + 1];
	struct in_addr mgmt;
	bool has_mgmt;
	struct inv_ssh ssh;
	char rocelab[256]; /* the rocelab binary on the host (SSH labs); "" : "rocelab" on PATH;
			      INV_ROCELAB_COPY: this one, copied there for the run */
	struct inv_rnic *rnics;
	size_t n_rnics;
	struct inv_loc loc;
};

enum inv_role { INV_ROLE_RAIL, INV_ROLE_SPINE, INV_ROLE_LEAF, INV_ROLE_TOR };
enum inv_dialect { INV_DIALECT_LINUX, INV_DIALECT_SONIC, INV_DIALECT_EOS, INV_DIALECT_NVUE };
#define INV_DIALECT_N (INV_DIALECT_NVUE + 1) /* their count */

struct inv_port {
	char name[INV_NETDEV_MAX + 1];
	struct inv_prefix addr; /* len == 0 and addr 0: not given (assigned by the lab) */
	bool has_addr;
	size_t link1; /* its link's index + 1; 0: none (inventory_link_at()) */
	struct inv_loc loc;
};

struct inv_switch {
	char name[INV_NAME_MAX + 1];
	enum inv_role role;
	enum inv_dialect dialect;
	int rail; /* rail index for rail switches, 0 when not given */
	struct in_addr mgmt;
	struct inv_ssh ssh;
	struct inv_port *ports;
	size_t n_ports;
	/*
	 * A Linux switch that is a lab's stand-in (a namespace, a VM), not a
	 * router carrying real traffic: the Linux dialect's emulations (tc
	 * queues standing for PFC, ECN and buffers) may run on it in a lab of
	 * kind ssh.  Always so in the virtual lab.
	 */
	bool emulated;
	/*
	 * What its NOS is, as the inventory declares it (version:, model:,
	 * buffer-model:) or, in 'rocelab inject', as the switch itself says at
	 * pre-flight (read true): what the renderers choose commands by
	 * (injectors/nos/caps.h).  "" when neither says.
	 */
	struct inv_nos {
		char version[INV_NOS_WORD_MAX + 1]; /* "5.7.0", "4.30.1F", "SONiC.202305.1" */
		char model[INV_NOS_WORD_MAX + 1];   /* "DCS-7280SR3-48YC8", an HwSKU */
		char buffer_model[16];		    /* SONiC: "traditional", "dynamic" */
		bool udf; /* SONiC, read only: its image has user-defined ACL fields */
		bool read;
	} nos;
	struct inv_loc loc;
};

enum inv_dev_kind { INV_DEV_HOST, INV_DEV_SWITCH };

/* One end of a link: a host's RNIC or a switch's port. */
struct inv_endpoint {
	enum inv_dev_kind kind;
	size_t dev;  /* index into hosts[] or switches[] */
	size_t port; /* index into rnics[] or ports[] */
};

struct inv_link {
	struct inv_endpoint a, b;
	unsigned long long speed_mbps; /* 100 Gbit/s when not given */
	bool speed_given;
	struct inv_loc loc;
};

struct inv_tenant {
	char name[INV_NAME_MAX + 1];
	struct inv_endpoint *members; /* host RNICs */
	size_t n_members;
	struct inv_loc loc;
};

/*
 * The management network of a virtual lab when the inventory names none:
 * the bridge's address (the controller, as agents and sshd see it) and prefix.
 */
#define INV_MGMT_DEFAULT     "198.19.128.1"
#define INV_MGMT_DEFAULT_LEN 17

/*
 * What a lab is: one rocelab builds on this machine (namespaces), or a
 * standing lab whose hosts and switches are reached over SSH at their mgmt
 * addresses, where rocelab brings nothing up and takes nothing down.
 */
enum inv_lab_kind { INV_LAB_VIRTUAL, INV_LAB_SSH };

struct inventory {
	char *path;
	char name[INV_NAME_MAX + 1];
	enum inv_lab_kind kind;
	struct inv_loc kind_loc;      /* where the file says it (0: not said, virtual) */
	struct in_addr controller;    /* SSH labs: where hosts reach this machine (the analyzer) */
	struct inv_prefix management; /* management bridge address of a virtual lab */
	struct inv_host *hosts;
	size_t n_hosts;
	struct inv_switch *switches;
	size_t n_switches;
	struct inv_link *links;
	size_t n_links;
	struct inv_tenant *tenants;
	size_t n_tenants;
	/* Device names, hashed (open addressing): each slot 0 or a device's index + 1, hosts
	 * first, then switches at n_hosts + i; the first device of a name holds it.  Built once
	 * hosts and switches are parsed; lookups scan when it is out of date. */
	uint32_t *name_slots;
	size_t name_cap, name_devs;
};

/*
 * Parse and validate an inventory file.  Every problem found is printed to
 * errf as "file:line:col: message".  Returns a new inventory (free with
 * inventory_free()) or NULL with errno set: EINVAL for bad input, or the
 * error that kept the file from being read.
 */
struct inventory *inventory_load(const char *path, FILE *errf);

/* Same as inventory_load() on an in-memory text; path is used in messages only. */
struct inventory *inventory_parse(const char *path, const char *text, size_t len, FILE *errf);

void inventory_free(struct inventory *inv);

/*
 * Write inv as inventory YAML to f (every value explicit, defaults filled
 * in), so that inventory_load() of it gives the same lab.  0 or -errno.
 */
int inventory_write(const struct inventory *inv, FILE *f);

/* Lookups; return NULL when absent.  Results are borrowed from inv. */
struct inv_host *inventory_host(const struct inventory *inv, const char *name);
struct inv_switch *inventory_switch(const struct inventory *inv, const char *name);

/*
 * Is spec of the form "device:port" (one ':', neither side empty, each short enough for a
 * name)?  0, or -EINVAL with msg saying so; what it names is not looked up.
 */
int inventory_endpoint_form(const char *spec, char *msg, size_t msglen);

/*
 * Resolve "device:port" (or "device" alone when allow_bare) to an endpoint.
 * Returns 0, or -ENOENT with a message in msg (size msglen) saying what is unknown.
 */
int inventory_endpoint(const struct inventory *inv, const char *spec, struct inv_endpoint *ep,
		       char *msg, size_t msglen);

/* The device an endpoint is on: "host1", "rail1". Borrowed from inv. */
const char *inventory_device_name(const struct inventory *inv, const struct inv_endpoint *ep);

/* The endpoint's netdev: the RNIC's netdev, or the switch port's name. Borrowed from inv. */
const char *inventory_netdev(const struct inventory *inv, const struct inv_endpoint *ep);

/* "host1:rnic1" / "rail1:swp1" for an endpoint; returns buf. */
const char *inventory_endpoint_name(const struct inventory *inv, const struct inv_endpoint *ep,
				    char *buf, size_t len);

/* The end of link l that is not ep. Borrowed from l. */
const struct inv_endpoint *inv_link_other_end(const struct inv_link *l,
					      const struct inv_endpoint *ep);

/* What ep is cabled to: 0 with *peer filled, or -ENOENT when it is uncabled. */
int inventory_peer(const struct inventory *inv, const struct inv_endpoint *ep,
		   struct inv_endpoint *peer);

/* The link attached to an endpoint, or NULL. */
const struct inv_link *inventory_link_at(const struct inventory *inv,
					 const struct inv_endpoint *ep);

const char *inv_role_name(enum inv_role r);
const char *inv_lab_kind_name(enum inv_lab_kind k);
const char *inv_dialect_name(enum inv_dialect d);

/* The inventory's management prefix, or INV_MGMT_DEFAULT/INV_MGMT_DEFAULT_LEN. */
struct inv_prefix inventory_management(const struct inventory *inv);

/*
 * May a and the lab's agents talk?  Loopback, the management prefix, a host's mgmt or
 * RNIC address: what connects to an analyzer or controller from elsewhere is refused.
 */
bool inventory_peer_ok(const struct inventory *inv, struct in_addr a);

#endif
