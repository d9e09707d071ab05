/* SPDX-License-Identifier: MIT */
/* The fault kinds by name: one file each in this folder, one entry each in kinds.c. */
#ifndef ROCELAB_KINDS_H
#define ROCELAB_KINDS_H

#include "injectors/fault.h"

extern const struct fault_kind_ops fk_link_flap, fk_acl_error, fk_pfc_misconfig, fk_ipid_drop,
    fk_rnic_route_missing, fk_link_degrade, fk_packet_corruption, fk_pfc_storm, fk_buffer_alpha,
    fk_ecn_misconfig, fk_host_down, fk_cpu_hog;

/* The kind named name, or NULL. */
const struct fault_kind_ops *fault_kind_find(const char *name);

/* The i-th kind, NULL past the last. */
const struct fault_kind_ops *fault_kind_at(size_t i);

/* "link-flap, acl-error, ..." */
const char *fault_kind_names(char *buf, size_t len);

#endif
