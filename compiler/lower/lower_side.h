/* SPDX-License-Identifier: Apache-2.0 */
/* lower_side.h - what a plain and a tma #copy share (lower_side.c). */
#ifndef PAC_LOWER_SIDE_H
#define PAC_LOWER_SIDE_H

#include "lower.h"

/* lower_side.c: what a plain and a tma #copy share */
/* the element types of a #copy's source ns and destination nd are written
 * alike, white space aside (false after reporting, over the two names; a
 * plain #copy and a tma #copy share the check and its message) */
bool lw_copy_elems_agree(lw *w, directive *d, dnode *ns, dnode *nd);
/* the logical index space of n split at its top-level dimensions: mode k
 * has the extent of dimension k and its weight as stride */
layout *lw_logical_layout(lw *w, dnode *n);
/* the top-level dimensions of ns: extents and weights (a leaf: itself) */
int lw_top_dims(dnode *ns, ex **n, ex **wt, exctx *x);

#endif
