/* SPDX-License-Identifier: Apache-2.0 */
/* lower_record.h - what a planner returns for a directive: a record of the
 * plan it decided (emit/plan.h: data, with its expressions as ex trees
 * wherever the emitter prints them), and where it goes in the output. The
 * planner decides and returns; the print pass (lower_print.c) alone hands
 * a record to the target's emitter and the printer. A planner that
 * reported an error returns LR_NONE: nothing replaces the directive.
 * Planned this way so far: #copy, #create, #destroy, #detour, #sync. */
#ifndef PAC_LOWER_RECORD_H
#define PAC_LOWER_RECORD_H

#include "ast.h"
#include "plan.h"

typedef enum { LR_NONE, LR_COPY, LR_ALLOC, LR_DESTROY, LR_DETOUR, LR_SYNC, LR_WAIT } lr_kind;

typedef struct lw_record {
  lr_kind kind;
  item *at; /* the directive the code replaces */
  union {
    plan_copy copy;       /* LR_COPY */
    plan_alloc alloc;     /* LR_ALLOC */
    plan_destroy destroy; /* LR_DESTROY */
    struct {              /* LR_DETOUR */
      plan_detour p;
      bool wait_first;    /* stream-ordered target, host code: wait first for what this thread launched */
      plan_site wait_site;
    } detour;
    struct {              /* LR_SYNC: a barrier of the threads of a detour */
      plan_kind kind;
      plan_sync sync;
    } sync;
    struct {              /* LR_WAIT: host code waits for the device (#sync of a stream-ordered target) */
      plan_site site;
      bool pending_only;
    } wait;
  } u;
} lw_record;

static inline void lw_record_copy(lw_record *r, item *at, const plan_copy *p) {
  r->kind = LR_COPY, r->at = at, r->u.copy = *p;
}
static inline void lw_record_alloc(lw_record *r, item *at, const plan_alloc *p) {
  r->kind = LR_ALLOC, r->at = at, r->u.alloc = *p;
}
static inline void lw_record_detour(lw_record *r, item *at, const plan_detour *p, bool wait_first,
                                    plan_site wait_site) {
  r->kind = LR_DETOUR, r->at = at, r->u.detour.p = *p, r->u.detour.wait_first = wait_first;
  r->u.detour.wait_site = wait_site;
}
static inline void lw_record_sync(lw_record *r, item *at, plan_kind k, plan_sync s) {
  r->kind = LR_SYNC, r->at = at, r->u.sync.kind = k, r->u.sync.sync = s;
}
static inline void lw_record_wait(lw_record *r, item *at, plan_site site, bool pending_only) {
  r->kind = LR_WAIT, r->at = at, r->u.wait.site = site, r->u.wait.pending_only = pending_only;
}
static inline void lw_record_destroy(lw_record *r, item *at, const plan_destroy *p) {
  r->kind = LR_DESTROY, r->at = at, r->u.destroy = *p;
}

/* Every record the print pass prints is shown first to w->observe when it
 * is set (pac_io.observe: the unit tests of plans). */

#endif
