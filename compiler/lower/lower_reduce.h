/* SPDX-License-Identifier: Apache-2.0 */
/* lower_reduce.h - the reduce(...) clause of #detour (lower_reduce.c). */
#ifndef PAC_LOWER_REDUCE_H
#define PAC_LOWER_REDUCE_H

#include "lower.h"

/* The detour's clauses other than wait and nowait: reduce(op: var, ...)
 * clauses become r's reductions (checked against the enclosing code, where
 * the walk stands when this is called, before the body is walked); false
 * after reporting a clause that is wrong. */
bool lw_reduce_clauses(lw *w, directive *d, region *r);
/* an identifier of the body being walked that the reductions replace: a
 * 'return' ends the thread's part at the reductions' end (NULL: none) */
const char *lw_reduce_word(lw *w, const item *it);
/* an identifier of the code being walked: parray_atomic_* in the body of
 * an mpi detour (not in a pthd or cuda detour inside it) is reported */
void lw_atomic_check(lw *w, const item *it);
/* #scan in the body of a detour with scan(...) or exscan(...) */
void lw_scan(lw *w, item *it, lw_record *out);
/* A cuda detour with reduce(...) and 'unordered' whose body names neither
 * blockIdx nor gridDim, has no scan variables and no bulk tensor copy:
 * r->fold, so that its kernel runs about one wave of blocks, each taking
 * the place of several in turn (called before the body is walked) */
void lw_reduce_fold(lw *w, item *body, region *r);
/* the plan's reductions, from r's; false after reporting a body with
 * scan variables and no #scan */
bool lw_reduce_plan(lw *w, region *r, plan_detour *p);

#endif
