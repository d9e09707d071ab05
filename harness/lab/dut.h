/* SPDX-License-Identifier: MIT */
/* The devices under test: what a run tested, read through the lab before its first scenario. */
#ifndef ROCELAB_DUT_H
#define ROCELAB_DUT_H

#include "harness/lab/lab.h"

#include <jansson.h>

/*
 * Per host its kernel ('uname -r') and per RNIC its driver, driver version,
 * firmware and bus ('ethtool -i NETDEV'), its RDMA device ('rdma -j link
 * show', or the inventory's ibdev) with that device's firmware and board
 * (ibv_devinfo), all of a host read with one command; per switch its NOS, version and model through
 * the dialect's own show command.  What cannot be read is null, and why is
 * under "unread": a run on a lab without ethtool still runs.  A new object
 * {hosts: {...}, switches: {...}} as results.schema.json has it.
 */
json_t *lab_dut(struct lab *l);

/*
 * The parsers, on what the commands print (for tests): "KEY: VALUE" lines
 * (ethtool -i, ibv_devinfo, SONiC's show version) into o under the names
 * map gives ({"key as printed", "name in o"} pairs, NULL-terminated);
 * values that are empty stay null.
 */
void dut_parse_lines(const char *text, const char *const (*map)[2], json_t *o);

/*
 * A host's object from what its one command printed (out: uname -r, then
 * after "@@rocelab rdma", "@@rocelab ethtool NETDEV" and "@@rocelab
 * ibv_devinfo" marker lines what those printed; "@@rocelab failed" after a
 * command that failed); out NULL: the command could not run, err says why.
 */
json_t *dut_host_parse(const struct inv_host *h, const char *out, const char *err);
/*
 * A switch's identity from what its NOS printed (Linux 'uname -sr', SONiC 'show
 * version', EOS 'show version | json', NVUE 'nv show system -o json'): {"dialect",
 * "nos", "version", "model"} (null where unread, "unread": why).  A new reference.
 */
json_t *dut_switch_parse(enum inv_dialect d, const char *out);
/* That object as sw's show command prints it through l (its "unread" says why not). */
json_t *dut_switch(struct lab *l, const struct inv_switch *sw);

#endif
