/* SPDX-License-Identifier: MIT */
/* 'rocelab lab trust': collect the host keys of a lab's SSH devices, show them, record new ones. */
#ifndef ROCELAB_TRUST_H
#define ROCELAB_TRUST_H

#include "harness/lab/lab.h"

#include <stdbool.h>

/*
 * Read the host key of every device l reaches over SSH (switches, and hosts
 * unless the lab reaches them locally) and print each with its fingerprint
 * and state against l->known_hosts.  With yes, new keys are added there;
 * nothing is written when any device is unreachable or has a key other than
 * the one on file.  Returns an rl_exit code: 0, or 3 (unreachable, changed,
 * or the file cannot be written).
 */
int lab_trust(struct lab *l, bool yes, bool json);

#endif
