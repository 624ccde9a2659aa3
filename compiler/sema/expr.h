/* SPDX-License-Identifier: Apache-2.0 */
/* expr.h - the integer expression IR used for sizes, strides and offsets.
 * Constructors simplify as they build (constants folded, strides chained into
 * one multiply, '/' and '%' removed where value ranges prove them redundant),
 * so the printed C is what a careful programmer would write. Atoms are
 * opaque C expressions (an index the user wrote, a macro of unknown value)
 * with a value range. */
#ifndef PAC_EXPR_H
#define PAC_EXPR_H

#include "util.h"

#define EX_INF INT64_MAX

typedef enum { EX_CONST, EX_ATOM, EX_ADD, EX_SUB, EX_MUL, EX_DIV, EX_MOD } ex_kind;

typedef struct ex ex;
struct ex {
  ex_kind k;
  int64_t c;        /* EX_CONST */
  const char *text; /* EX_ATOM: C text */
  int id;           /* EX_ATOM: same text, same id */
  bool simple;      /* EX_ATOM: prints without parentheses */
  bool trusted;     /* range given from outside (an index within its dimension): its inside is the user's arithmetic */
  ex *a, *b;
  int64_t lo, hi;   /* value range; hi == EX_INF: unknown/unbounded */
};

enum { EX_SMALL_LO = -8, EX_SMALL_HI = 1024 };

typedef struct exctx {
  arena *ar;
  strmap atoms; /* text -> id */
  int natoms;
  ex *small[EX_SMALL_HI - EX_SMALL_LO]; /* shared constant nodes (expressions are never modified) */
} exctx;

void ex_init(exctx *x, arena *ar);
void ex_fini(exctx *x);

ex *ex_const(exctx *x, int64_t v);
/* An opaque C expression with value range [lo, hi]. */
ex *ex_atom(exctx *x, const char *text, int64_t lo, int64_t hi);
ex *ex_add(exctx *x, ex *a, ex *b);
ex *ex_sub(exctx *x, ex *a, ex *b);
ex *ex_mul(exctx *x, ex *a, ex *b);
ex *ex_div(exctx *x, ex *a, ex *b); /* C division, simplified assuming a >= 0 when known */
ex *ex_mod(exctx *x, ex *a, ex *b);
/* Narrow the known range of e (returns a copy when it changes). */
ex *ex_with_range(exctx *x, ex *e, int64_t lo, int64_t hi);

/* Checked constant folding: *r = a OP b for OP one of EX_ADD .. EX_MOD, with
 * C's truncating division. Never traps: a result outside int64_t (INT64_MIN /
 * -1 and INT64_MIN % -1 included) is EXF_OVERFLOW, a zero divisor
 * EXF_DIV_ZERO; *r is set only on EXF_OK. */
typedef enum { EXF_OK, EXF_OVERFLOW, EXF_DIV_ZERO } ex_fold_status;
ex_fold_status ex_fold(ex_kind op, int64_t a, int64_t b, int64_t *r);

/* e with the text of each atom replaced by f(env, text), or kept where f
 * returns NULL; nodes are shared where nothing below them changed. */
ex *ex_map_atoms(exctx *x, ex *e, const char *(*f)(void *env, const char *text), void *env);

bool ex_is_const(const ex *e, int64_t *v);
bool ex_equal(const ex *a, const ex *b);
/* q = a / b when b divides a exactly and that can be proved; NULL otherwise. */
ex *ex_div_exact(exctx *x, ex *a, ex *b);

/* Print as C. With wide, atoms are converted to long long first so that the
 * whole computation is 64-bit. */
void ex_print(sbuf *out, const ex *e, bool wide);
char *ex_str(exctx *x, const ex *e, bool wide);
/* Print as C whose arithmetic is checked at run time: every operation is a
 * call PREFIXadd(a, b), PREFIXsub, PREFIXmul, PREFIXdiv or PREFIXmod on
 * 64-bit operands. */
void ex_print_calls(sbuf *out, const ex *e, const char *prefix);
/* True when e has no atom: a constant, or constants whose folding overflowed. */
bool ex_atom_free(const ex *e);
/* True when an operation of e has two constant operands: the constructors
 * fold those unless the result overflows or divides by zero. */
bool ex_has_failed_fold(const ex *e);
/* True when some intermediate value may exceed INT32_MAX (or is unknown). */
bool ex_needs_wide(const ex *e);
/* Evaluate with atom values given by id (for tests); *ok false on division
 * by 0 or on a value outside int64_t. */
int64_t ex_eval(const ex *e, const int64_t *atom_vals, bool *ok);

#endif
