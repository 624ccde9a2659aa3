/* SPDX-License-Identifier: Apache-2.0 */
/* expr.c - construction, simplification, printing and evaluation of the
 * integer expression IR (see expr.h). All simplifications rely only on
 * identities valid for non-negative operands, and are applied only when the
 * operands' ranges are known to be non-negative. */
#include "expr.h"

#include <stdio.h>
#include <string.h>

void ex_init(exctx *x, arena *ar) {
  x->ar = ar;
  strmap_init(&x->atoms);
  x->natoms = 0;
  memset(x->small, 0, sizeof x->small);
}

void ex_fini(exctx *x) { strmap_free(&x->atoms); }

static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (a == EX_INF || b == EX_INF || __builtin_add_overflow(a, b, &r)) return EX_INF;
  return r;
}

static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (a == 0 || b == 0) return 0;
  if (a == EX_INF || b == EX_INF || __builtin_mul_overflow(a, b, &r)) return EX_INF;
  return r;
}

static int64_t lo_add(int64_t a, int64_t b) {
  int64_t r;
  if (a <= -EX_INF || b <= -EX_INF) return -EX_INF;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? -EX_INF : EX_INF;
  return r;
}

ex_fold_status ex_fold(ex_kind op, int64_t a, int64_t b, int64_t *r) {
  int64_t v;
  switch (op) {
  case EX_ADD: if (__builtin_add_overflow(a, b, &v)) return EXF_OVERFLOW; break;
  case EX_SUB: if (__builtin_sub_overflow(a, b, &v)) return EXF_OVERFLOW; break;
  case EX_MUL: if (__builtin_mul_overflow(a, b, &v)) return EXF_OVERFLOW; break;
  case EX_DIV:
  case EX_MOD:
    if (b == 0) return EXF_DIV_ZERO;
    if (a == INT64_MIN && b == -1) return EXF_OVERFLOW; /* traps on x86, for '%' too */
    v = op == EX_DIV ? a / b : a % b;
    break;
  default: return EXF_OVERFLOW;
  }
  *r = v;
  return EXF_OK;
}

/* both constant and their result fits: *r */
static bool fold2(ex_kind op, const ex *a, const ex *b, int64_t *r) {
  return a->k == EX_CONST && b->k == EX_CONST && ex_fold(op, a->c, b->c, r) == EXF_OK;
}

static ex *mk(exctx *x, ex_kind k, ex *a, ex *b, int64_t lo, int64_t hi) {
  ex *e = arena_alloc(x->ar, sizeof *e);
  e->k = k, e->a = a, e->b = b, e->lo = lo, e->hi = hi;
  return e;
}

ex *ex_const(exctx *x, int64_t v) {
  bool small = v >= EX_SMALL_LO && v < EX_SMALL_HI;
  if (small && x->small[v - EX_SMALL_LO]) return x->small[v - EX_SMALL_LO];
  ex *e = mk(x, EX_CONST, NULL, NULL, v, v);
  e->c = v;
  if (small) x->small[v - EX_SMALL_LO] = e;
  return e;
}

static bool is_simple_text(const char *t) {
  if (!*t) return false;
  /* a cast of a simple operand, "(int)threadIdx.x", binds like an operand */
  if (t[0] == '(' && !strncmp(t, "(int)", 5)) t += 5;
  bool ok = true;
  for (const char *p = t; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
          *p == '.'))
      ok = false;
  if (ok) return true;
  /* fully parenthesized: "( ... )" where the first '(' closes at the end */
  size_t n = strlen(t);
  if (t[0] != '(' || t[n - 1] != ')') return false;
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    if (t[i] == '(') depth++;
    else if (t[i] == ')' && --depth == 0 && i != n - 1) return false;
  }
  return true;
}

ex *ex_atom(exctx *x, const char *text, int64_t lo, int64_t hi) {
  if (lo == hi) return ex_const(x, lo); /* an index whose range is one value is that value */
  size_t n = strlen(text);
  intptr_t id = (intptr_t)strmap_get(&x->atoms, text, n);
  if (!id) {
    char *k = arena_strndup(x->ar, text, n);
    id = ++x->natoms;
    strmap_put(&x->atoms, k, n, (void *)id);
    text = k;
  }
  ex *e = mk(x, EX_ATOM, NULL, NULL, lo, hi);
  e->text = arena_strdup(x->ar, text);
  e->id = (int)id;
  e->simple = is_simple_text(text);
  return e;
}

ex *ex_map_atoms(exctx *x, ex *e, const char *(*f)(void *env, const char *text), void *env) {
  if (!e || e->k == EX_CONST) return e;
  if (e->k == EX_ATOM) {
    const char *t = f(env, e->text);
    if (!t) return e;
    ex *a = ex_atom(x, t, e->lo, e->hi);
    a->trusted = e->trusted;
    return a;
  }
  ex *a = ex_map_atoms(x, e->a, f, env), *b = ex_map_atoms(x, e->b, f, env);
  if (a == e->a && b == e->b) return e;
  ex *c = arena_alloc(x->ar, sizeof *c);
  *c = *e;
  c->a = a, c->b = b;
  return c;
}

ex *ex_with_range(exctx *x, ex *e, int64_t lo, int64_t hi) {
  if (lo < e->lo) lo = e->lo;
  if (hi > e->hi) hi = e->hi;
  if (lo == e->lo && hi == e->hi) return e;
  ex *c = arena_alloc(x->ar, sizeof *c);
  *c = *e;
  c->lo = lo, c->hi = hi;
  c->trusted = true;
  return c;
}

bool ex_is_const(const ex *e, int64_t *v) {
  if (e->k != EX_CONST) return false;
  if (v) *v = e->c;
  return true;
}

bool ex_equal(const ex *a, const ex *b) {
  if (a == b) return true;
  if (a->k != b->k) return false;
  switch (a->k) {
  case EX_CONST: return a->c == b->c;
  case EX_ATOM: return a->id == b->id;
  default: return ex_equal(a->a, b->a) && ex_equal(a->b, b->b);
  }
}

static bool nonneg(const ex *e) { return e->lo >= 0; }

ex *ex_add(exctx *x, ex *a, ex *b) {
  int64_t ca, cb;
  bool ka = ex_is_const(a, &ca), kb = ex_is_const(b, &cb);
  int64_t r;
  if (fold2(EX_ADD, a, b, &r)) return ex_const(x, r);
  if (ka && ca == 0) return b;
  if (kb && cb == 0) return a;
  if (ka && !kb) return ex_add(x, b, a); /* constants on the right */
  /* (p + c1) + c2 -> p + (c1 + c2); not through an index the user wrote,
   * whose inside keeps the user's own types */
  if (kb && a->k == EX_ADD && a->b->k == EX_CONST && !a->trusted) {
    if (fold2(EX_ADD, a->b, b, &r)) return ex_add(x, a->a, ex_const(x, r));
    /* c1 + c2 overflows: kept as a constant sum (ex_has_failed_fold sees it),
     * built directly, since the rule below would undo it and loop */
    return mk(x, EX_ADD, a->a, mk(x, EX_ADD, a->b, b, -EX_INF, EX_INF), -EX_INF, EX_INF);
  }
  /* p + (q + c) -> (p + q) + c, keeping the constant last */
  if (b->k == EX_ADD && b->b->k == EX_CONST && !b->trusted) return ex_add(x, ex_add(x, a, b->a), b->b);
  /* x*c1 + x*c2 -> x*(c1+c2) */
  if (a->k == EX_MUL && b->k == EX_MUL && a->b->k == EX_CONST && b->b->k == EX_CONST && ex_equal(a->a, b->a))
    return ex_mul(x, a->a, ex_add(x, a->b, b->b)); /* folds unless c1+c2 overflows */
  return mk(x, EX_ADD, a, b, lo_add(a->lo, b->lo), sat_add(a->hi, b->hi));
}

ex *ex_sub(exctx *x, ex *a, ex *b) {
  int64_t cb, r;
  bool kb = ex_is_const(b, &cb);
  if (fold2(EX_SUB, a, b, &r)) return ex_const(x, r);
  if (kb && cb == 0) return a;
  if (ex_equal(a, b)) return ex_const(x, 0);
  int64_t lo, hi;
  if (b->hi == EX_INF || a->lo <= -EX_INF || __builtin_sub_overflow(a->lo, b->hi, &lo)) lo = -EX_INF;
  if (a->hi == EX_INF || b->lo <= -EX_INF || __builtin_sub_overflow(a->hi, b->lo, &hi)) hi = EX_INF;
  return mk(x, EX_SUB, a, b, lo, hi);
}

ex *ex_mul(exctx *x, ex *a, ex *b) {
  int64_t ca, cb;
  bool ka = ex_is_const(a, &ca), kb = ex_is_const(b, &cb);
  int64_t r;
  if (fold2(EX_MUL, a, b, &r)) return ex_const(x, r);
  if ((ka && ca == 0) || (kb && cb == 0)) return ex_const(x, 0);
  if (ka && ca == 1) return b;
  if (kb && cb == 1) return a;
  if (ka && !kb) return ex_mul(x, b, a);
  /* (p * c1) * c2 -> p * (c1*c2) */
  if (kb && a->k == EX_MUL && a->b->k == EX_CONST) {
    if (fold2(EX_MUL, a->b, b, &r)) return ex_mul(x, a->a, ex_const(x, r));
    /* c1 * c2 overflows: kept as a constant product (ex_has_failed_fold sees
     * it), built directly, since the swap above would undo it and loop */
    return mk(x, EX_MUL, a->a, mk(x, EX_MUL, a->b, b, -EX_INF, EX_INF), -EX_INF, EX_INF);
  }
  /* (p + q) * c stays; a chained stride is merged by the layout code */
  int64_t lo, hi;
  if (nonneg(a) && nonneg(b)) lo = sat_mul(a->lo, b->lo), hi = sat_mul(a->hi, b->hi);
  else lo = -EX_INF, hi = EX_INF;
  return mk(x, EX_MUL, a, b, lo, hi);
}

/* a divisible by constant d, proved structurally: returns a/d or NULL */
static ex *div_by_const(exctx *x, ex *a, int64_t d) {
  int64_t c;
  if (d == 1) return a;
  if (ex_is_const(a, &c)) return c % d == 0 ? ex_const(x, c / d) : NULL;
  if (a->k == EX_MUL) {
    if (a->b->k == EX_CONST && a->b->c % d == 0) return ex_mul(x, a->a, ex_const(x, a->b->c / d));
    ex *q = div_by_const(x, a->a, d);
    if (q) return ex_mul(x, q, a->b);
    q = div_by_const(x, a->b, d);
    if (q) return ex_mul(x, a->a, q);
  }
  if (a->k == EX_ADD && nonneg(a->a) && nonneg(a->b)) {
    ex *p = div_by_const(x, a->a, d), *q = p ? div_by_const(x, a->b, d) : NULL;
    if (q) return ex_add(x, p, q);
  }
  return NULL;
}

/* the terms of a sum of non-negative terms */
static int sum_terms(ex *e, ex **out, int max, int n) {
  if (e->k == EX_ADD && nonneg(e->a) && nonneg(e->b)) {
    n = sum_terms(e->a, out, max, n);
    return n < 0 ? n : sum_terms(e->b, out, max, n);
  }
  if (n >= max) return -1;
  out[n++] = e;
  return n;
}

/* a = D + R with every term of D divisible by d: returns D/d (or NULL when
 * no term divides) and sets *rest to R (NULL when empty) */
static ex *split_divisible(exctx *x, ex *a, int64_t d, ex **rest) {
  ex *t[32];
  int n = sum_terms(a, t, 32, 0);
  if (n < 2) return NULL;
  ex *q = NULL, *r = NULL;
  for (int i = 0; i < n; i++) {
    ex *qi = div_by_const(x, t[i], d);
    if (qi) q = q ? ex_add(x, q, qi) : qi;
    else r = r ? ex_add(x, r, t[i]) : t[i];
  }
  *rest = r;
  return q;
}

ex *ex_div(exctx *x, ex *a, ex *b) {
  int64_t ca, d, r;
  if (fold2(EX_DIV, a, b, &r)) return ex_const(x, r);
  if (ex_is_const(b, &d) && d > 0 && nonneg(a)) {
    if (d == 1) return a;
    if (ex_is_const(a, &ca)) return ex_const(x, ca / d);
    if (a->hi < d) return ex_const(x, 0);
    ex *q = div_by_const(x, a, d);
    if (q) return q;
    /* (p*c)/d where d = c*k -> p/k */
    if (a->k == EX_MUL && a->b->k == EX_CONST && a->b->c > 0 && d % a->b->c == 0)
      return ex_div(x, a->a, ex_const(x, d / a->b->c));
    /* (p/e)/d -> p/(e*d) */
    if (a->k == EX_DIV && a->b->k == EX_CONST && a->b->c > 0 && !__builtin_mul_overflow(a->b->c, d, &r))
      return ex_div(x, a->a, ex_const(x, r));
    /* (p % m)/d with d | m -> (p/d) % (m/d) */
    if (a->k == EX_MOD && a->b->k == EX_CONST && a->b->c % d == 0)
      return ex_mod(x, ex_div(x, a->a, b), ex_const(x, a->b->c / d));
    /* (D + R)/d where d divides every term of D and all terms are >= 0 -> D/d + R/d */
    if (a->k == EX_ADD && nonneg(a->a) && nonneg(a->b)) {
      ex *rest;
      ex *q = split_divisible(x, a, d, &rest);
      if (q) return rest ? ex_add(x, q, ex_div(x, rest, b)) : q;
    }
    return mk(x, EX_DIV, a, b, a->lo / d, a->hi == EX_INF ? EX_INF : a->hi / d);
  }
  if (ex_is_const(b, &d) && d == 1) return a;
  if (ex_equal(a, b) && nonneg(a) && a->lo > 0) return ex_const(x, 1);
  ex *q = ex_div_exact(x, a, b);
  if (q) return q;
  bool nn = nonneg(a) && b->lo > 0;
  return mk(x, EX_DIV, a, b, nn ? 0 : -EX_INF, nn ? a->hi : EX_INF);
}

ex *ex_mod(exctx *x, ex *a, ex *b) {
  int64_t ca, m, r;
  if (fold2(EX_MOD, a, b, &r)) return ex_const(x, r);
  if (ex_is_const(b, &m) && m > 0 && nonneg(a)) {
    if (m == 1) return ex_const(x, 0);
    if (ex_is_const(a, &ca)) return ex_const(x, ca % m);
    if (a->hi < m) return a;
    if (div_by_const(x, a, m)) return ex_const(x, 0);
    /* (p % n) % m: m | n -> p % m;  n | m -> p % n */
    if (a->k == EX_MOD && a->b->k == EX_CONST && a->b->c > 0) {
      if (a->b->c % m == 0) return ex_mod(x, a->a, b);
      if (m % a->b->c == 0) return a;
    }
    /* (D + R) % m where m divides every term of D -> R % m */
    if (a->k == EX_ADD && nonneg(a->a) && nonneg(a->b)) {
      ex *rest;
      if (split_divisible(x, a, m, &rest)) return rest ? ex_mod(x, rest, b) : ex_const(x, 0);
    }
    return mk(x, EX_MOD, a, b, 0, a->hi < m - 1 ? a->hi : m - 1);
  }
  if (nonneg(a) && b->lo > 0 && a->hi < b->lo) return a;
  if (ex_div_exact(x, a, b)) return ex_const(x, 0);
  bool nn = nonneg(a) && b->lo > 0;
  return mk(x, EX_MOD, a, b, nn ? 0 : -EX_INF, nn ? (b->hi == EX_INF ? EX_INF : b->hi - 1) : EX_INF);
}

ex *ex_div_exact(exctx *x, ex *a, ex *b) {
  int64_t cb, ca;
  if (ex_is_const(b, &cb)) {
    if (cb == 0) return NULL;
    if (cb == 1) return a;
    int64_t rem, q;
    if (ex_is_const(a, &ca))
      return ex_fold(EX_MOD, ca, cb, &rem) == EXF_OK && rem == 0 && ex_fold(EX_DIV, ca, cb, &q) == EXF_OK
                 ? ex_const(x, q)
                 : NULL;
    return cb > 0 ? div_by_const(x, a, cb) : NULL;
  }
  if (ex_equal(a, b)) return ex_const(x, 1);
  if (b->k == EX_MUL) {
    ex *q = ex_div_exact(x, a, b->a);
    return q ? ex_div_exact(x, q, b->b) : NULL;
  }
  if (a->k == EX_MUL) {
    ex *q = ex_div_exact(x, a->a, b);
    if (q) return ex_mul(x, q, a->b);
    q = ex_div_exact(x, a->b, b);
    if (q) return ex_mul(x, a->a, q);
  }
  return NULL;
}

/* ---- printing --------------------------------------------------------------- */
static int prec(const ex *e) {
  switch (e->k) {
  case EX_ADD: case EX_SUB: return 1;
  case EX_MUL: case EX_DIV: case EX_MOD: return 2;
  default: return 3;
  }
}

static void print_rec(sbuf *o, const ex *e, bool wide) {
  switch (e->k) {
  case EX_CONST: {
    char buf[32], *p = buf + sizeof buf;
    uint64_t v = e->c < 0 ? 0 - (uint64_t)e->c : (uint64_t)e->c;
    *--p = 0;
    if (e->c > INT32_MAX || e->c < INT32_MIN) *--p = 'L', *--p = 'L';
    do *--p = (char)('0' + v % 10); while (v /= 10);
    if (e->c < 0) *--p = '-';
    sb_puts(o, p);
    return;
  }
  case EX_ATOM:
    if (wide) sb_puts(o, "(long long)");
    if (e->simple) sb_puts(o, e->text);
    else sb_printf(o, "(%s)", e->text);
    return;
  default: break;
  }
  static const char *ops[] = {[EX_ADD] = " + ", [EX_SUB] = " - ", [EX_MUL] = " * ", [EX_DIV] = " / ",
                              [EX_MOD] = " % "};
  int p = prec(e);
  bool pa = prec(e->a) < p, pb = prec(e->b) < p || (prec(e->b) == p && e->k != EX_ADD && e->k != EX_MUL);
  if (pa) sb_putc(o, '(');
  print_rec(o, e->a, wide);
  if (pa) sb_putc(o, ')');
  sb_puts(o, ops[e->k]);
  if (pb) sb_putc(o, '(');
  print_rec(o, e->b, wide);
  if (pb) sb_putc(o, ')');
}

void ex_print(sbuf *out, const ex *e, bool wide) { print_rec(out, e, wide); }

void ex_print_calls(sbuf *o, const ex *e, const char *prefix) {
  static const char *fn[] = {[EX_ADD] = "add", [EX_SUB] = "sub", [EX_MUL] = "mul", [EX_DIV] = "div",
                             [EX_MOD] = "mod"};
  if (e->k == EX_CONST || e->k == EX_ATOM) {
    print_rec(o, e, e->k == EX_ATOM);
    return;
  }
  sb_printf(o, "%s%s(", prefix, fn[e->k]);
  ex_print_calls(o, e->a, prefix);
  sb_puts(o, ", ");
  ex_print_calls(o, e->b, prefix);
  sb_putc(o, ')');
}

bool ex_has_failed_fold(const ex *e) {
  if (e->k == EX_CONST || e->k == EX_ATOM) return false;
  if (e->a->k == EX_CONST && e->b->k == EX_CONST) return true;
  return ex_has_failed_fold(e->a) || ex_has_failed_fold(e->b);
}

bool ex_atom_free(const ex *e) {
  if (e->k == EX_CONST) return true;
  if (e->k == EX_ATOM) return false;
  return ex_atom_free(e->a) && ex_atom_free(e->b);
}

char *ex_str(exctx *x, const ex *e, bool wide) {
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  ex_print(&b, e, wide);
  char *s = arena_strdup(x->ar, b.s);
  sb_free(&b);
  return s;
}

bool ex_needs_wide(const ex *e) {
  if (e->hi > INT32_MAX || e->lo < INT32_MIN) return true;
  /* an index the user wrote is evaluated in the user's own types */
  if (e->k == EX_CONST || e->k == EX_ATOM || e->trusted) return false;
  return ex_needs_wide(e->a) || ex_needs_wide(e->b);
}

int64_t ex_eval(const ex *e, const int64_t *av, bool *ok) {
  switch (e->k) {
  case EX_CONST: return e->c;
  case EX_ATOM: return av[e->id];
  default: break;
  }
  int64_t a = ex_eval(e->a, av, ok), b = ex_eval(e->b, av, ok), r;
  if (ex_fold(e->k, a, b, &r) != EXF_OK) return *ok = false, 0;
  return r;
}
