/* SPDX-License-Identifier: MIT */
/* The program version: one place, printed by --version and recorded in results and the lab state.
 */
#ifndef ROCELAB_VERSION_H
#define ROCELAB_VERSION_H

#ifndef ROCELAB_VERSION
#define ROCELAB_VERSION "0.2.0"
#endif

#endif
