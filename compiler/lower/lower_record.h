/* SPDX-License-Identifier: Apache-2.0 */
/* lower_record.h - what the lowering decided, as records: the plan of a
 * directive (emit/plan.h: data, with its expressions as ex trees wherever
 * the emitter prints them) and where it goes in the output; the program's
 * structure (#parray, #mainhost, #subprog, #insert, #global, .pc
 * includes); the walk's substitutions of $...$ and of names, and the starts
 * of top-level items. A planner decides and returns (or hands on, lw_put);
 * the print pass (lower_print.c) alone hands a record to the target's
 * emitter and the printer. A planner that reported an error returns
 * LR_NONE: nothing replaces the directive. A construct with a body that is
 * walked in between (#mainhost, #global, #insert, a .pc include, a
 * #detour's body) is two
 * records, LP_OPEN before the body and LP_CLOSE after it; the body's own
 * records come between them. The last record of a program with #mainhost
 * is its entry (LR_ENTRY). */
#ifndef PAC_LOWER_RECORD_H
#define PAC_LOWER_RECORD_H

#include "ast.h"
#include "plan.h"

typedef enum { /* the plans first, up to LR_LAST_PLAN */
  LR_NONE, LR_COPY, LR_ALLOC, LR_DESTROY, LR_DETOUR, LR_SYNC, LR_WAIT, LR_SCAN,
  LR_TOPLEVEL, /* the walker: a top-level item of the output starts at the item (code hoisted
                  while it is translated goes in front of it) */
  LR_SUBST,    /* a $...$ or a name of the enclosing code: its C text in place of the source */
  LR_TYPE,     /* #parray: a type declared; the directive stays as a comment */
  LR_MAINHOST, /* #mainhost: the program's entry (LP_OPEN, LP_CLOSE) */
  LR_SUBPROG,  /* #subprog: a template for its #inserts; nothing is printed in its place */
  LR_GLOBAL,   /* #global: its body, translated apart, goes to file scope (LP_OPEN, LP_CLOSE) */
  LR_INSERT,   /* #insert: an instance of a subprogram, in a block of its own (LP_OPEN, LP_CLOSE) */
  LR_INCLUDE,  /* #include "x.pc": the file translated in line (LP_OPEN, LP_CLOSE) or once only (LP_WHOLE) */
  LR_ENTRY,    /* after the file: the program's entry (main) around #mainhost; at is NULL */
  LR_DETOUR_BODY, /* a #detour's body, printed apart (LP_OPEN, LP_CLOSE); its LR_DETOUR, which follows
                     unless the planner reported an error, takes that text as its plan's body */
  LR_LAST_PLAN = LR_SCAN
} lr_kind;

/* the part of a construct with a body that a record is */
typedef enum { LP_WHOLE, LP_OPEN, LP_CLOSE } lr_phase;

/* what an LR_SUBST replaces */
typedef enum { SUB_DOLLAR, SUB_NAME } lr_subst_kind;

/* a body translated apart (#global, #insert, a .pc include) */
typedef struct lr_body {
  lr_phase phase;
  uint32_t from, to; /* the body's source: from (LP_OPEN) up to to (LP_CLOSE) */
  const char *name;  /* LR_INSERT: the subprogram; LR_INCLUDE: the file */
  int instance;      /* LR_INSERT: the instance's number (its private names end in it) */
  bool in_line;      /* LR_INCLUDE: at file scope, its items are top-level items of the output */
  const char *types; /* LR_DETOUR_BODY, LP_CLOSE: the enclosing function's local types the body uses,
                        to open it with (NULL: none, or the plan declares them) */
} lr_body;

typedef struct lw_record {
  lr_kind kind;
  item *at; /* the item the code replaces or starts at (LR_ENTRY: NULL) */
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
    plan_scan scan;       /* LR_SCAN: the #scan of a body with scan variables */
    struct {              /* LR_WAIT: host code waits for the device (#sync of a stream-ordered target) */
      plan_site site;
      bool pending_only;
    } wait;
    struct {              /* LR_SUBST */
      lr_subst_kind what;
      loc span;           /* the source replaced (a $...$ alone in brackets: without its outer parentheses) */
      const char *text;   /* its C text (a detour's captures written as the target's emitter names them) */
    } subst;
    const struct ptype *type; /* LR_TYPE: the type built */
    struct {              /* LR_MAINHOST */
      lr_phase phase;
      loc kw;             /* LP_OPEN: the keyword, replaced by the entry's head */
      uint32_t body;      /* LP_OPEN: the body's first offset after its '{'; LP_CLOSE: its '}' */
      uint32_t end;       /* LP_CLOSE: the offset after the block */
      bool wait;          /* LP_CLOSE: a stream-ordered target: the detours launched without a wait end
                             (and report) before the program does */
      plan_site site;     /* LP_CLOSE: that wait's site */
    } mainhost;
    struct {              /* LR_SUBPROG */
      const char *name;
      const char **params;
      int nparams;
    } subprog;
    lr_body body;         /* LR_GLOBAL, LR_INSERT, LR_INCLUDE */
    const plan_entry *entry; /* LR_ENTRY: what the program uses, its mpi bodies */
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
static inline void lw_record_subst(lw_record *r, item *at, lr_subst_kind what, loc span, const char *text) {
  r->kind = LR_SUBST, r->at = at, r->u.subst.what = what, r->u.subst.span = span, r->u.subst.text = text;
}
static inline void lw_record_body(lw_record *r, lr_kind kind, item *at, lr_phase phase, uint32_t from, uint32_t to,
                                  const char *name) {
  r->kind = kind, r->at = at;
  r->u.body = (lr_body){.phase = phase, .from = from, .to = to, .name = name};
}
static inline void lw_record_destroy(lw_record *r, item *at, const plan_destroy *p) {
  r->kind = LR_DESTROY, r->at = at, r->u.destroy = *p;
}

/* Every record the print pass prints is shown first to w->print.observe when it
 * is set (pac_io.observe: the unit tests of plans). A planner hands its
 * records on through lw_put (lower.h); the walker sets where they go. */

#endif
