/* SPDX-License-Identifier: MIT */
/*
 * A containerlab topology (TOPO.clab.yml) as a rocelab inventory of a lab
 * reached over SSH ('rocelab inventory import containerlab').
 */
#ifndef ROCELAB_CLABIMPORT_H
#define ROCELAB_CLABIMPORT_H

#include <stddef.h>
#include <stdio.h>

/*
 * The inventory of the topology at path, written to out: nodes of kinds
 * rocelab drives become switches (sonic-vs, sonic-vm, dell_sonic: sonic;
 * ceos, arista_ceos, arista_veos: eos; cvx, cumulus_cvx: nvue; linux with
 * label rocelab.role: switch: linux) or hosts (linux), each cable a link,
 * a host's cables to switches its RNICs (addresses from its exec's 'ip
 * addr add ADDR dev IFACE'), switches with hosts on them rails, the others
 * spines.  What the topology does not say, or rocelab cannot drive, is
 * reported to err as "TOPO:LINE:COL: ..." and written as a comment where it
 * goes.  Returns how many such problems (0: the inventory is whole), or
 * -errno when the topology could not be read (nothing written; err says).
 */
int clab_import(const char *path, FILE *out, FILE *err);
/* As clab_import(), of text (len bytes) read from path. */
int clab_import_text(const char *path, const char *text, size_t len, FILE *out, FILE *err);

#endif
