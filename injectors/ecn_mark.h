/* SPDX-License-Identifier: MIT */
/*
 * The emulated switch ECN marker (injectors/bpf/ecn_mark.bpf.c) on a Linux
 * port: a virtual queue at the port's rate, CE on ECN-capable packets past
 * a threshold.  Attached with libbpf to the port's clsact egress in the
 * calling thread's network namespace (lab_enter() first).
 */
#ifndef ROCELAB_ECN_MARK_H
#define ROCELAB_ECN_MARK_H

#include <stddef.h>

/*
 * Mark on dev: a queue draining at rate_kbit, threshold k bytes, holding at
 * most cap bytes.  -EEXIST with err when dev has a clsact qdisc already
 * (whose removal on undo would take someone else's filters); 0 or -errno.
 */
int ecn_mark_attach(const char *dev, unsigned long long rate_kbit, unsigned long long k,
		    unsigned long long cap, char *err, size_t errlen);

/* Remove dev's clsact qdisc and the marker with it; 0 when there is none. */
int ecn_mark_detach(const char *dev, char *err, size_t errlen);

/* Is the marker on dev: its filter found and its queue read through it?  0, -ENOENT: none. */
int ecn_mark_present(const char *dev);

#endif
