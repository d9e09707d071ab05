/* SPDX-License-Identifier: MIT */
/*
 * What a monitor can tell apart on a lab (issue 64): the network tomography
 * of its probe paths.  Given the pairs of RNICs a monitor probes, every
 * equal-cost path between them on the inventory's two-tier fabric is a
 * probe path; two elements (links, switches) that lie on exactly the same
 * set of probe paths cannot be told apart by any probe of that monitor (one
 * identifiability class), and an element on no probe path is unobservable
 * by it.
 *
 * An RNIC is its access link here (and a switch port its link): every path
 * that crosses one crosses the other, so no probe tells them apart, and the
 * grader already takes a link for either of its ends.
 */
#ifndef ROCELAB_OBSERVE_H
#define ROCELAB_OBSERVE_H

#include "harness/component/component.h"
#include "harness/lib/inventory.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Elements are the inventory's links (0 .. n_links-1, inventory order) then
 * its switches (n_links + switch index).
 */
struct observe {
	const struct inventory *inv; /* borrowed */
	size_t n_el;
	size_t n_paths;	  /* probe paths, every ECMP path of every pair */
	size_t *class_of; /* per element: its class */
	size_t *cls_size; /* per class: its members */
	bool *cls_seen;	  /* per class: on at least one probe path */
	size_t n_cls;
};

/*
 * The classes of the lab under pairs (duplicates are fine).  Returns a new
 * observe (free with observe_free()), or NULL with errno (ENOMEM).
 */
struct observe *observe_new(const struct inventory *inv, const struct comp_pair *pairs, size_t n);

/*
 * The same, pair by pair (a monitor's pairs need not be held at once: a
 * lab of 80,000 RNICs has tens of millions): observe_begin(), then
 * observe_pair() for each, then observe_end() (which frees the builder).
 * NULL with errno (ENOMEM).
 */
struct observe_builder;
struct observe_builder *observe_begin(const struct inventory *inv);
void observe_pair(struct observe_builder *b, const struct comp_pair *p);
size_t observe_pairs_seen(const struct observe_builder *b); /* pairs given so far */
/*
 * Or a path as a monitor traced it (issue 64: the paths it really used):
 * its n links (inventory indexes, at most COMP_PATH_LINKS), the switches at their ends
 * with them.  Two elements on the same traced paths are one class; one on
 * none of them is unobservable.  A path naming a link the inventory lacks
 * is left out.
 */
void observe_path(struct observe_builder *b, const size_t *links, size_t n);
struct observe *observe_end(struct observe_builder *b);
void observe_free(struct observe *o);

/* Element el's name: a link "a:p--b:q" (pathmap's canonical name) or a switch's name. */
const char *observe_el_name(const struct observe *o, size_t el, char *buf, size_t len);
bool observe_el_is_switch(const struct observe *o, size_t el);
/* An access link: one end is a host's RNIC. */
bool observe_el_is_access(const struct observe *o, size_t el);

/*
 * The element a fault target stands for: a switch name, a switch port
 * ("rail1:swp3") or an RNIC ("host1:rnic2") as its link, or a link
 * "a--b".  -1 when it is none of them (a host: host-down, cpu-hog).
 */
ssize_t observe_element_of(const struct observe *o, const char *target);

/*
 * Does a verdict's target (a link "a--b", a switch, an RNIC or port) name
 * class cls: one of its members, an end of a member link, or the switch
 * every member link of the class touches ("the class's switch")?
 */
bool observe_names_class(const struct observe *o, const char *target, size_t cls);

/* Does class cls hold a switch and a link (a switch fault and a link fault look alike)? */
bool observe_class_mixes(const struct observe *o, size_t cls);

/* Class cls's members' names, comma-separated, into buf (truncated with "..."). */
size_t observe_class_names(const struct observe *o, size_t cls, char *buf, size_t len);

/* Per kind (links between switches, access links standing for RNICs, switches). */
struct observe_share {
	size_t total, alone, unobservable;
};
struct observe_cover {
	struct observe_share fabric, access, switches;
};
void observe_cover(const struct observe *o, struct observe_cover *c);

/*
 * What monitor can localize on the lab, as one object of out (text: a few
 * lines; JSON: monitor, pairs, paths, a share per kind, the classes of more
 * than one element and the unobservable elements).
 */
struct out;
void observe_print(struct out *out, const char *monitor, size_t n_pairs, const struct observe *o);

#endif
