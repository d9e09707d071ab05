/* SPDX-License-Identifier: MIT */
/*
 * Reading a port's counters (injectors/counters.h): what each NOS room runs
 * (nos_ops.counters) and the parsers of what the tools print, each into a
 * group {NAME: n}.  Names are a device's text: one that is not printable
 * ASCII is left out.
 */
#ifndef ROCELAB_NOS_CTR_H
#define ROCELAB_NOS_CTR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define NOS_CTR_READS 4

/* One read of a port's counters: a CLI line, or argv run as it stands; its group and parser. */
struct nos_ctr_read {
	char group[16]; /* "link", "qdisc", "ethtool", "sai", "queue 3", "pg 3", "interface", "pfc",
			 * "queues", "ecn" */
	char line[320]; /* a line in the switch's CLI (lab_cli); "": argv */
	const char *argv[10];
	/* what it printed for port into group: 0, or -EINVAL when it is not the tool's */
	int (*parse)(const char *port, const char *out, json_t *group);
};

/* Is s a name to keep: printable ASCII, not empty. */
bool nos_ctr_name_ok(const char *s);

/*
 * Each integer member (>= 0) of o into group as PREFIX NAME, and those of
 * its objects as PREFIX NAME.MEMBER (one level: EOS's inputErrorsDetail),
 * but the names in skip (NULL-ended, may be NULL).
 */
void nos_ctr_put_ints(json_t *group, const char *prefix, json_t *o, const char *const *skip);

/*
 * A Linux port's reads (the kernel's netdev counters, 'ip -s -j link show
 * dev P'; with qdisc its qdiscs', 'tc -s -j qdisc show dev P'; with ethtool
 * its driver's, 'ethtool -S P') into r[max], argv pointing into port.  How
 * many.
 */
size_t nos_ctr_linux(const char *port, bool qdisc, bool ethtool, struct nos_ctr_read *r,
		     size_t max);

/* 'ip -s -j link show dev D': the first interface's stats64 as "rx_packets", "tx_dropped", ... */
int nos_ctr_ip_link(const char *port, const char *out, json_t *group);
/* 'tc -s -j qdisc show dev D': "HANDLE KIND packets", "... drops", "... overlimits", ... */
int nos_ctr_tc_qdisc(const char *port, const char *out, json_t *group);
/* 'ethtool -S D': its "NAME: VALUE" lines */
int nos_ctr_ethtool(const char *port, const char *out, json_t *group);
/* 'rdma -j statistic show link DEV/PORT': the link's counters (ifname and port left out) */
int nos_ctr_rdma_stat(const char *port, const char *out, json_t *group);
/* 'rdma -j link show': the "DEV/PORT" whose netdev is netdev, into buf; -ENOENT: none */
int nos_ctr_rdma_link(const char *out, const char *netdev, char *buf, size_t len);

/*
 * SONiC: 'sonic-db-cli COUNTERS_DB HGETALL "COUNTERS:<oid>"' as sonic-db-cli
 * prints a hash without --json, redis-py's dict: {'SAI_PORT_STAT_...':
 * '123', ...} (sonic-swss-common common/redisreply.cpp, formatDictReply).
 * Counts, and a *_STATUS field's word as a string (a state: the PFC
 * watchdog's PFC_WD_STATUS on a queue, operational or stormed).
 */
int nos_ctr_sonic_hash(const char *port, const char *out, json_t *group);
/* EOS: 'show interfaces P | json', interfaces.P.interfaceCounters */
int nos_ctr_eos_interface(const char *port, const char *out, json_t *group);
/* EOS: 'show interfaces P priority-flow-control counters detail | json', priorities."N" */
int nos_ctr_eos_pfc(const char *port, const char *out, json_t *group);
/* EOS: 'show interfaces P counters queue detail | json', each TC's and DP's counts */
int nos_ctr_eos_queues(const char *port, const char *out, json_t *group);
/* EOS: 'show qos interfaces P ecn counters queue | json', each queue's CE-marked packets */
int nos_ctr_eos_ecn(const char *port, const char *out, json_t *group);

#endif
