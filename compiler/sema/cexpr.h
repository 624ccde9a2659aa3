/* SPDX-License-Identifier: Apache-2.0 */
/* cexpr.h - reading C expressions that appear inside Parray constructs
 * (dimension sizes, indices, copy sizes) into the expression IR: integer
 * constants are evaluated with C semantics, object-like macros expanded, and
 * anything else kept as opaque atoms. Also detects side effects, which are
 * not allowed in indices (the generated code may evaluate them twice). */
#ifndef PAC_CEXPR_H
#define PAC_CEXPR_H

#include "ast.h"
#include "expr.h"
#include "program.h"

/* A token after lowering: C tokens keep their text; a lowered $...$ (or a
 * substituted subprogram parameter) carries its value as an expression. */
enum { LT_EX = 100 };
typedef struct ltok {
  uint8_t kind; /* ctok_kind or LT_EX */
  uint16_t punct;
  const char *s;
  uint32_t len;
  ex *e;
  loc loc;
} ltok;

typedef struct cxenv {
  exctx *ex;
  arena *ar;
  /* where macros are looked up (program.h; NULL: none). Object-like ones
   * are expanded, function-like ones never are. */
  semaprog *prog;
  /* where errors in constant arithmetic are reported (an integer constant
   * too large, a division by zero, an overflow, a macro that is no
   * expression); NULL: not reported, the expression is only refused */
  diag *dg;
} cxenv;

/* The expression, or NULL when it is empty or has an error in its constant
 * arithmetic (reported through c->dg). */
ex *cx_parse(cxenv *c, const ltok *t, int n);
/* Index of the first token with a side effect (++, --, assignment, call),
 * or -1. */
int cx_side_effect(cxenv *c, const ltok *t, int n);
/* The C text of a token range (tokens separated where needed). */
char *cx_text(cxenv *c, const ltok *t, int n);
/* Split C text into tokens (for macro bodies and command-line values). */
int cx_tokenize(cxenv *c, const char *s, ltok **out);
/* e with every identifier of its atoms that is names[i] (not a member
 * after . or ->) replaced by the text repl[i], for i < n; e itself when
 * none is there. */
ex *cx_rename(cxenv *c, ex *e, const char *const *names, const char *const *repl, int n);

#endif
