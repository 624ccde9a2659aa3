/* SPDX-License-Identifier: Apache-2.0 */
/* lower_side.c - what a plain #copy (lower_copy.c) and a bulk tensor copy
 * (lower_tma.c) share about their sides: the element types agree, and a
 * source's top-level dimensions and logical layout. */
#include "lower.h"
#include "lower_side.h"
#include "ctcanon.h"

#include <string.h>

/* two element types written alike (white space aside) */
static bool same_elem(const char *a, const char *b) {
  for (;;) {
    while (*a == ' ' || *a == '\t' || *a == '\n') a++;
    while (*b == ' ' || *b == '\t' || *b == '\n') b++;
    if (*a != *b) return false;
    if (!*a) return true;
    a++, b++;
  }
}

/* The source's top-level dimensions: extents and weights (a leaf: itself) */
int lw_top_dims(dnode *ns, ex **n, ex **wt, exctx *x) {
  if (!ns->nkids) {
    n[0] = ns->size, wt[0] = ex_const(x, 1);
    return 1;
  }
  for (int k = 0; k < ns->nkids; k++) n[k] = ns->kids[k]->size, wt[k] = ns->kids[k]->weight;
  return ns->nkids;
}

/* The source's logical index space split at its top-level dimensions: mode
 * k has the extent of dimension k and its weight as stride. */
layout *lw_logical_layout(lw *w, dnode *ns) {
  layout *l = arena_alloc(w->in.ar, sizeof *l);
  l->m = arena_alloc(w->in.ar, sizeof *l->m * (size_t)(ns->nkids ? ns->nkids : 1));
  ex *n[64], *wt[64];
  if (ns->nkids > 64) return NULL;
  l->nm = lw_top_dims(ns, n, wt, &w->ex);
  for (int k = 0; k < l->nm; k++) l->m[k] = (mode){n[k], wt[k]};
  return l;
}

bool lw_copy_elems_agree(lw *w, directive *d, dnode *ns, dnode *nd) {
  /* by meaning: typedefs expanded, one spelling per arithmetic type */
  ctenv e = lw_ctenv(w);
  if (same_elem(ns->type->elem, nd->type->elem) || ct_same(&e, ns->type->elem, nd->type->elem, w->in.ar)) return true;
  diag_error(w->in.dg, loc_span(d->name, d->copy.dst),
             "#copy between different element types: '%s' has %s, '%s' has %s", ns->path, ns->type->elem, nd->path,
             nd->type->elem);
  return false;
}
