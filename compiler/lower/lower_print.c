/* SPDX-License-Identifier: Apache-2.0 */
/* lower_print.c - the print pass: a record a planner returned
 * (lower_record.h) goes to the target's emitter, and the code it prints
 * replaces the directive in the output (with the directive as a comment in
 * front). The planners of records never call the emitter or the printer;
 * this is the one place that does for them. */
#include "lower.h"
#include "lower_print.h"

void lw_print_record(lw *w, const lw_record *r) {
  if (w->observe) w->observe(w->observe_env, r);
  const char *code = NULL;
  switch (r->kind) {
  case LR_NONE: return;
  case LR_COPY: code = emit_copy(&w->em, &r->u.copy); break;
  case LR_ALLOC: code = emit_alloc(&w->em, &r->u.alloc); break;
  case LR_DESTROY: code = emit_destroy(&w->em, &r->u.destroy); break;
  case LR_DETOUR:
    code = emit_detour(&w->em, &r->u.detour.p);
    if (r->u.detour.wait_first)
      code = arena_printf(w->ar, "%s\n  %s", w->em.ops->wait(&w->em, &r->u.detour.wait_site, true), code);
    break;
  case LR_SYNC: code = w->em.ops->sync(&w->em, r->u.sync.kind, r->u.sync.sync); break;
  case LR_WAIT: code = emit_wait(&w->em, &r->u.wait.site, r->u.wait.pending_only); break;
  }
  lw_replace_dir(w, r->at, code);
}
