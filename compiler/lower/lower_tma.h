/* SPDX-License-Identifier: Apache-2.0 */
/* lower_tma.h - the planner of a bulk tensor copy (tma #copy) (lower_tma.c). */
#ifndef PAC_LOWER_TMA_H
#define PAC_LOWER_TMA_H

#include "lower.h"

/* lower_tma.c */
/* #copy A(a) at(...) to S(s) tma(bar) (or a #copy with one of those clauses) */
void lw_copy_tma(lw *w, item *it, dnode *ns, items *sa, dnode *nd, items *da, lw_record *out);
/* before a cuda detour's body (the directive's block) is walked: the names
 * its tma #copies write to, in r->tma_smem */
void lw_tma_prescan(lw *w, item *body, region *r);
/* name (n bytes) is one of them: an smem array created under it is 128-byte aligned */
bool lw_tma_dest(const region *r, const char *name, size_t n);

#endif
