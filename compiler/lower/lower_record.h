/* SPDX-License-Identifier: Apache-2.0 */
/* lower_record.h - what a planner returns for a directive: a record of the
 * plan it decided (emit/plan.h: data, with its expressions as ex trees
 * wherever the emitter prints them), and where it goes in the output. The
 * planner decides and returns; the print pass (lower_print.c) alone hands
 * a record to the target's emitter and the printer. A planner that
 * reported an error returns LR_NONE: nothing replaces the directive.
 * Planned this way so far: #copy, #create, #destroy. */
#ifndef PAC_LOWER_RECORD_H
#define PAC_LOWER_RECORD_H

#include "ast.h"
#include "plan.h"

typedef enum { LR_NONE, LR_COPY, LR_ALLOC, LR_DESTROY } lr_kind;

typedef struct lw_record {
  lr_kind kind;
  item *at; /* the directive the code replaces */
  union {
    plan_copy copy;       /* LR_COPY */
    plan_alloc alloc;     /* LR_ALLOC */
    plan_destroy destroy; /* LR_DESTROY */
  } u;
} lw_record;

static inline void lw_record_copy(lw_record *r, item *at, const plan_copy *p) {
  r->kind = LR_COPY, r->at = at, r->u.copy = *p;
}
static inline void lw_record_alloc(lw_record *r, item *at, const plan_alloc *p) {
  r->kind = LR_ALLOC, r->at = at, r->u.alloc = *p;
}
static inline void lw_record_destroy(lw_record *r, item *at, const plan_destroy *p) {
  r->kind = LR_DESTROY, r->at = at, r->u.destroy = *p;
}

/* Every record the print pass prints is shown first to this function when
 * it is set (the unit tests of plans, tests/compiler/test_plans.c). */
extern void (*lw_record_observer)(void *env, const lw_record *r);
extern void *lw_record_observer_env;

#endif
