/* SPDX-License-Identifier: Apache-2.0 */
/* lower_print.c - the print pass: after the walk, the file's records
 * (lower_record.h), in order, go to the target's emitter and the printer. A plan's
 * code replaces its directive in the output (with the directive as a
 * comment in front); a substitution replaces its source; a top-level item
 * starts where the walker says; the records of
 * program structure open and close the bodies translated apart (#global,
 * #insert, .pc includes, a #detour's body, which its plan then takes) and
 * #mainhost, and the program's entry goes
 * after everything (w->epilogue). The planners never call
 * the emitter or the printer for their records; this is the one place that
 * does. */
#include "lower.h"
#include "lower_print.h"

#include <stdlib.h> /* vec_free */

/* replace a directive by its lowering, with the directive as a comment in front */
static void replace_dir(lw *w, item *it, const char *code) {
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  /* the comment on its own line above, the lowering below at the same indentation */
  sb_puts(&b, lw_comment(w, it->dir->loc));
  sb_putc(&b, '\n');
  sb_puts(&b, pr_line_text(&w->pr, w->in.ar, it->loc.b)); /* the code is the directive's line, not the comment's next */
  uint32_t ls = src_line_start_of(w->in.src, it->loc.b);
  for (uint32_t i = ls; i < it->loc.b && (w->in.src->text[i] == ' ' || w->in.src->text[i] == '\t'); i++)
    sb_putc(&b, w->in.src->text[i]);
  sb_puts(&b, code);
  pr_replace(&w->pr, it->loc.b, it->loc.e, b.s);
  pr_need_line(&w->pr); /* its marker restarted the count: the code after it is marked too */
  sb_free(&b);
}

/* the printed body of the detour at `at` (those of detours whose planner
 * reported an error after their body are dropped on the way) */
static const char *detour_body(lw *w, const item *at) {
  lw_printing *p = &w->print;
  while (p->dbodies.n > 0)
    if (p->dbodies.v[--p->dbodies.n].at == at) return p->dbodies.v[p->dbodies.n].text;
  return "{}"; /* not reached: a detour's plan follows its body's records */
}

/* a plan through the target's emitter, its code in place of the directive */
static void print_plan(lw *w, const lw_record *r) {
  const char *code = NULL;
  plan_detour d;
  switch (r->kind) {
  case LR_COPY: code = emit_copy(&w->tg.em, &r->u.copy); break;
  case LR_ALLOC: code = emit_alloc(&w->tg.em, &r->u.alloc); break;
  case LR_DESTROY: code = emit_destroy(&w->tg.em, &r->u.destroy); break;
  case LR_DETOUR:
    d = r->u.detour.p;
    d.body = detour_body(w, r->at);
    code = emit_detour(&w->tg.em, &d);
    if (r->u.detour.wait_first)
      code = arena_printf(w->in.ar, "%s\n  %s", w->tg.em.ops->wait(&w->tg.em, &r->u.detour.wait_site, true), code);
    break;
  case LR_SYNC: code = w->tg.em.ops->sync(&w->tg.em, r->u.sync.kind, r->u.sync.sync); break;
  case LR_WAIT: code = emit_wait(&w->tg.em, &r->u.wait.site, r->u.wait.pending_only); break;
  case LR_SCAN: code = emit_red_scan(&w->tg.em, &r->u.scan); break;
  default: return;
  }
  replace_dir(w, r->at, code);
}

/* #mainhost: the keyword becomes the entry's head, the block its body */
static void print_mainhost(lw *w, const lw_record *r) {
  if (r->u.mainhost.phase == LP_OPEN) {
    pr_replace(&w->pr, r->u.mainhost.kw.b, r->u.mainhost.kw.e, emit_mainhost_head);
    pr_src_to(&w->pr, r->u.mainhost.body);
    pr_gen(&w->pr, emit_mainhost_open);
    return;
  }
  pr_src_to(&w->pr, r->u.mainhost.body);
  if (r->u.mainhost.wait)
    pr_gen(&w->pr, arena_printf(w->in.ar, "%s ", w->tg.em.ops->wait(&w->tg.em, &r->u.mainhost.site, true)));
  pr_gen(&w->pr, emit_mainhost_close);
  pr_src_to(&w->pr, r->u.mainhost.end);
}

/* the body's code from here on goes into a buffer of its own, the output
 * around stands at the construct */
static void open_apart(lw *w, const lw_record *r) {
  lw_printing *p = &w->print;
  if (p->bodies.n >= p->bodies.cap) /* pr_outline_begin fills the new one in place */
    vec_grow_((void **)&p->bodies.v, &p->bodies.cap, sizeof *p->bodies.v, p->bodies.n + 1);
  pr_outline_begin(&w->pr, &p->bodies.v[p->bodies.n++], r->at->loc.b, r->u.body.from);
}

static char *close_apart(lw *w, const lw_record *r) {
  return pr_outline_end(&w->pr, &w->print.bodies.v[--w->print.bodies.n], r->u.body.to, w->in.ar);
}

/* a detour's body: printed apart, kept for its plan (opened with the local types it takes along) */
static void print_detour_body(lw *w, const lw_record *r) {
  if (r->u.body.phase == LP_OPEN) {
    open_apart(w, r);
    return;
  }
  char *text = close_apart(w, r);
  if (r->u.body.types) text = arena_printf(w->in.ar, "{ %s\n%s }", r->u.body.types, text);
  vec_push(w->print.dbodies, ((struct lw_detour_text){r->at, text}));
}

/* a body translated apart */
static void print_body(lw *w, const lw_record *r) {
  const lr_body *b = &r->u.body;
  item *at = r->at;
  if (r->kind == LR_INCLUDE && b->phase == LP_WHOLE) {
    pr_replace(&w->pr, at->loc.b, at->loc.e, arena_printf(w->in.ar, "/* %s: included already */", b->name));
    return;
  }
  if (r->kind == LR_INCLUDE && b->in_line) {
    /* its items are top-level items of their own, so that code hoisted
     * out of them (kernels, outlined detours) lands before them */
    if (b->phase == LP_OPEN) {
      pr_replace(&w->pr, at->loc.b, at->loc.e, arena_printf(w->in.ar, "/* %s */\n", lw_text(w, at->loc)));
      pr_jump(&w->pr, b->from);
    } else {
      pr_src_to(&w->pr, b->to);
      pr_jump(&w->pr, at->loc.e);
    }
    return;
  }
  if (b->phase == LP_OPEN) {
    open_apart(w, r);
    return;
  }
  char *text = close_apart(w, r);
  switch (r->kind) {
  case LR_GLOBAL:
    pr_hoist(&w->pr, text);
    pr_hoist(&w->pr, "\n");
    pr_replace(&w->pr, at->loc.b, at->loc.e, "");
    break;
  case LR_INSERT:
    pr_replace(&w->pr, at->loc.b, at->loc.e, arena_printf(w->in.ar, "{ /* #insert %s */\n%s\n}", b->name, text));
    break;
  default: /* LR_INCLUDE inside a block */
    pr_replace(&w->pr, at->loc.b, at->loc.e, arena_printf(w->in.ar, "/* %s */\n%s\n", lw_text(w, at->loc), text));
    break;
  }
}

static void print_record(lw *w, const lw_record *r) {
  if (w->print.observe) w->print.observe(w->print.observe_env, r);
  switch (r->kind) {
  case LR_NONE: return;
  case LR_TOPLEVEL: pr_toplevel(&w->pr, r->at->loc.b); return;
  case LR_SUBST: pr_replace(&w->pr, r->u.subst.span.b, r->u.subst.span.e, r->u.subst.text); return;
  case LR_TYPE: pr_replace(&w->pr, r->at->loc.b, r->at->loc.e, lw_comment(w, r->at->dir->loc)); return;
  case LR_SUBPROG: pr_replace(&w->pr, r->at->loc.b, r->at->loc.e, ""); return;
  case LR_MAINHOST: print_mainhost(w, r); return;
  case LR_ENTRY: sb_puts(&w->epilogue, w->tg.em.ops->entry(&w->tg.em, r->u.entry)); return;
  case LR_DETOUR_BODY: print_detour_body(w, r); return;
  case LR_GLOBAL:
  case LR_INSERT:
  case LR_INCLUDE: print_body(w, r); return;
  default: print_plan(w, r); return;
  }
}

void lw_print_all(lw *w) {
  lw_printing *p = &w->print;
  for (int i = 0; i < p->recs.n; i++) print_record(w, p->recs.v[i]);
  vec_free(p->recs);
  vec_free(p->bodies);
  vec_free(p->dbodies);
}
