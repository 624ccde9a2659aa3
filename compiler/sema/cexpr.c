/* SPDX-License-Identifier: Apache-2.0 */
/* cexpr.c - a precedence-climbing reader for C expressions over lowered
 * tokens (see cexpr.h). Constant arithmetic is folded with overflow checks:
 * a constant that does not fit, a division by zero or an overflow is an
 * error at the expression, never a trap in pac. */
#include "cexpr.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
  cxenv *c;
  const ltok *t;
  int n, i;
  int depth;
  const char *expanding[32]; /* macros being expanded */
  size_t explen[32];
  int nexp;
  bool bad; /* not an expression we understand */
  bool failed; /* an error was reported: the whole expression is refused */
  const ltok *macro; /* the outermost macro being expanded, or NULL */
} rd;

/* Report an error in constant arithmetic (once per expression). */
__attribute__((format(printf, 3, 4))) static void fail(rd *r, loc at, const char *fmt, ...) {
  if (!r->failed && r->c->dg) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->macro)
      diag_error(r->c->dg, r->macro->loc, "%s (in the expansion of macro '%.*s')", msg, (int)r->macro->len,
                 r->macro->s);
    else
      diag_error(r->c->dg, at, "%s", msg);
  }
  r->failed = r->bad = true;
}

/* the location of tokens [from, to) */
static loc span(const rd *r, int from, int to) {
  if (to > r->n) to = r->n;
  if (from >= to) return from < r->n ? r->t[from].loc : r->t[r->n - 1].loc;
  return loc_span(r->t[from].loc, r->t[to - 1].loc);
}

static ex *r_cond(rd *r);

static bool is_p(const rd *r, int ch) { return r->i < r->n && r->t[r->i].kind == T_PUNCT && r->t[r->i].punct == ch; }

static bool is_word(const ltok *t, const char *w) { return t->kind == T_IDENT && str_eq(t->s, t->len, w); }

char *cx_text(cxenv *c, const ltok *t, int n) {
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  for (int i = 0; i < n; i++) {
    bool word = t[i].kind == T_IDENT || t[i].kind == T_NUMBER;
    if (i > 0 && word && (t[i - 1].kind == T_IDENT || t[i - 1].kind == T_NUMBER)) sb_putc(&b, ' ');
    if (t[i].kind == LT_EX) {
      char e_buf[1024];
      sbuf e;
      sb_init_in(&e, e_buf, sizeof e_buf);
      ex_print(&e, t[i].e, false);
      if (t[i].e->k == EX_CONST || (t[i].e->k == EX_ATOM && t[i].e->simple)) sb_puts(&b, e.s);
      else sb_printf(&b, "(%s)", e.s);
      sb_free(&e);
    } else {
      sb_write(&b, t[i].s, t[i].len);
    }
  }
  char *s = arena_strdup(c->ar, b.s ? b.s : "");
  sb_free(&b);
  return s;
}

static ex *opaque(rd *r, int from, int to) {
  char *s = cx_text(r->c, r->t + from, to - from);
  return ex_atom(r->c->ex, s, -EX_INF, EX_INF);
}

/* An integer constant: 0 with *v set, 1 when it is not an integer constant
 * (a floating one, say), 2 when it does not fit in int64_t. */
static int parse_int(const char *s, size_t n, int64_t *v) {
  char buf[128];
  if (n == 0) return 1;
  if (n >= sizeof buf) { /* only digits (and suffixes) make a constant this long */
    for (size_t k = 0; k < n; k++)
      if (!isalnum((unsigned char)s[k]) || ((s[k] == 'e' || s[k] == 'E') && s[0] != '0')) return 1;
    return 2;
  }
  memcpy(buf, s, n);
  buf[n] = 0;
  size_t e = n;
  while (e > 0 && (buf[e - 1] == 'u' || buf[e - 1] == 'U' || buf[e - 1] == 'l' || buf[e - 1] == 'L')) e--;
  buf[e] = 0;
  uint64_t x = 0;
  int base = 10;
  const char *p = buf;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) base = 16, p += 2;
  else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) base = 2, p += 2;
  else if (p[0] == '0' && p[1]) base = 8, p += 1;
  if (!*p) return base == 8 ? (*v = 0, 0) : 1;
  bool big = false;
  for (; *p; p++) {
    int d;
    if (*p >= '0' && *p <= '9') d = *p - '0';
    else if (*p >= 'a' && *p <= 'f') d = *p - 'a' + 10;
    else if (*p >= 'A' && *p <= 'F') d = *p - 'A' + 10;
    else if (*p == '\'') continue;
    else return 1;
    if (d >= base) return 1;
    if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) big = true;
    else x = x * (uint64_t)base + (uint64_t)d;
  }
  if (big || x > (uint64_t)INT64_MAX) return 2;
  *v = (int64_t)x;
  return 0;
}

static int close_of(const rd *r, int i) {
  int depth = 0;
  for (int k = i; k < r->n; k++) {
    if (r->t[k].kind != T_PUNCT) continue;
    int p = r->t[k].punct;
    if (p == '(' || p == '[') depth++;
    else if ((p == ')' || p == ']') && --depth == 0) return k;
  }
  return r->n - 1;
}

static ex *expand_macro(rd *r, const ltok *id, int from) {
  bool fl = false;
  const char *body = r->c->prog ? sp_macro(r->c->prog, id->s, id->len, &fl) : NULL;
  if (!body || fl || r->nexp >= 32) return NULL;
  for (int k = 0; k < r->nexp; k++)
    if (r->explen[k] == id->len && memcmp(r->expanding[k], id->s, id->len) == 0) return NULL;
  ltok *toks;
  int nt = cx_tokenize(r->c, body, &toks);
  if (nt == 0) return NULL;
  for (int k = 0; k < nt; k++) toks[k].loc = id->loc; /* errors inside point at the macro's name */
  rd sub = *r;
  sub.t = toks, sub.n = nt, sub.i = 0, sub.bad = false;
  if (!sub.macro) sub.macro = id;
  sub.expanding[sub.nexp] = id->s, sub.explen[sub.nexp] = id->len, sub.nexp++;
  ex *e = r_cond(&sub);
  if (sub.failed) {
    r->failed = r->bad = true;
    return NULL;
  }
  if (sub.bad || sub.i != sub.n || !e) {
    /* used where a number is needed, a body that is no expression is an error */
    size_t bl = strlen(body);
    while (bl > 0 && isspace((unsigned char)body[bl - 1])) bl--;
    while (bl > 0 && isspace((unsigned char)*body)) body++, bl--;
    fail(r, id->loc, "macro '%.*s' does not expand to an expression ('%.*s')", (int)id->len, id->s, (int)bl, body);
    return NULL;
  }
  int64_t v;
  if (ex_is_const(e, &v)) return e;
  (void)from;
  return NULL; /* a macro of unknown value stays as written */
}

static ex *r_primary(rd *r) {
  if (r->i >= r->n) {
    r->bad = true;
    return NULL;
  }
  const ltok *t = &r->t[r->i];
  int start = r->i;
  ex *e = NULL;
  if (t->kind == LT_EX) {
    r->i++;
    e = t->e;
  } else if (t->kind == T_NUMBER) {
    int64_t v;
    r->i++;
    int k = parse_int(t->s, t->len, &v);
    if (k == 2) {
      fail(r, t->loc, "integer constant '%.*s' is too large (the largest is %lld)", (int)t->len, t->s,
           (long long)INT64_MAX);
      return NULL;
    }
    e = k == 0 ? ex_const(r->c->ex, v) : opaque(r, start, r->i);
  } else if (t->kind == T_IDENT) {
    r->i++;
    if (is_word(t, "sizeof") || is_word(t, "_Alignof") || is_word(t, "__alignof__")) {
      if (is_p(r, '(')) r->i = close_of(r, r->i) + 1;
      else r_primary(r);
      e = opaque(r, start, r->i);
    } else if (is_p(r, '(')) { /* a call or function-like macro */
      r->i = close_of(r, r->i) + 1;
      e = opaque(r, start, r->i);
    } else {
      e = expand_macro(r, t, start);
      if (!e) e = opaque(r, start, r->i);
    }
  } else if (t->kind == T_PUNCT && t->punct == '(') {
    r->i++;
    e = r_cond(r);
    if (!is_p(r, ')')) {
      r->bad = true;
      return e;
    }
    r->i++;
  } else {
    r->bad = true;
    r->i++;
    return NULL;
  }
  /* postfix: [..] . -> ++ -- (...) make the whole thing opaque */
  while (r->i < r->n && r->t[r->i].kind == T_PUNCT) {
    int p = r->t[r->i].punct;
    if (p == '[' || p == '(') r->i = close_of(r, r->i) + 1;
    else if ((p == '.' || p == P_ARROW) && r->i + 1 < r->n && r->t[r->i + 1].kind == T_IDENT) r->i += 2;
    else if (p == P_INC || p == P_DEC) r->i++;
    else if (p == '.' || p == P_ARROW) { /* a member access with no member */
      r->bad = true;
      return e;
    } else break;
    e = opaque(r, start, r->i);
  }
  return e;
}

static ex *fold_cmp(rd *r, int op, ex *a, ex *b, int start) {
  int64_t x, y;
  if (a && b && ex_is_const(a, &x) && ex_is_const(b, &y)) {
    int64_t v = 0;
    switch (op) {
    case '<': v = x < y; break;
    case '>': v = x > y; break;
    case P_LE: v = x <= y; break;
    case P_GE: v = x >= y; break;
    case P_EQ: v = x == y; break;
    case P_NE: v = x != y; break;
    case '&': v = x & y; break;
    case '|': v = x | y; break;
    case '^': v = x ^ y; break;
    case P_ANDAND: v = x && y; break;
    case P_OROR: v = x || y; break;
    case P_SHL:
    case P_SHR:
      if (y < 0 || y > 63) {
        fail(r, span(r, start, r->i), "shift count %lld is out of range (0 to 63)", (long long)y);
        return NULL;
      }
      if (op == P_SHR) v = x >> y;
      else if (x < 0 || (y > 0 && x > (INT64_MAX >> y))) {
        fail(r, span(r, start, r->i), "integer overflow in a constant expression: %lld << %lld does not fit in "
             "64 bits", (long long)x, (long long)y);
        return NULL;
      }
      else v = (int64_t)((uint64_t)x << y);
      break;
    }
    return ex_const(r->c->ex, v);
  }
  return opaque(r, start, r->i);
}

/* t[0..n-1] names an arithmetic type (the words of a cast); n > 0 */
static bool type_words(const ltok *t, int n) {
  static const char *tw[] = {"int", "long", "short", "char", "unsigned", "signed", "size_t", "ptrdiff_t",
                             "int64_t", "int32_t", "uint64_t", "uint32_t", "const", "float", "double"};
  for (int k = 0; k < n; k++) {
    bool w = false;
    for (size_t q = 0; q < sizeof tw / sizeof tw[0]; q++) w |= is_word(&t[k], tw[q]);
    if (!w) return false;
  }
  return n > 0;
}

static ex *r_unary(rd *r) {
  int start = r->i;
  if (r->i < r->n && r->t[r->i].kind == T_PUNCT) {
    int p = r->t[r->i].punct;
    if (p == '-' || p == '+' || p == '!' || p == '~') {
      r->i++;
      ex *a = r_unary(r);
      if (!a) return NULL;
      int64_t v;
      if (p == '+') return a;
      if (ex_is_const(a, &v) && v == INT64_MIN && p == '-') {
        fail(r, span(r, start, r->i), "integer overflow in a constant expression: -(%lld) does not fit in 64 bits",
             (long long)v);
        return NULL;
      }
      if (ex_is_const(a, &v)) return ex_const(r->c->ex, p == '-' ? -v : p == '!' ? !v : ~v);
      if (p == '-') return ex_sub(r->c->ex, ex_const(r->c->ex, 0), a);
      return opaque(r, start, r->i);
    }
    if (p == '(' && r->i + 1 < r->n) {
      /* a cast: '(' type-words ')' followed by an operand */
      int k = r->i + 1;
      while (k < r->n && !(r->t[k].kind == T_PUNCT && r->t[k].punct == ')')) k++;
      if (type_words(r->t + r->i + 1, k - r->i - 1) && k + 1 < r->n) {
        bool isfloat = false;
        for (int q = r->i + 1; q < k; q++) isfloat |= is_word(&r->t[q], "float") || is_word(&r->t[q], "double");
        r->i = k + 1;
        ex *a = r_unary(r);
        if (a && !isfloat && ex_is_const(a, NULL)) return a;
        return opaque(r, start, r->i);
      }
    }
    if (p == '*' || p == '&') {
      r->i++;
      r_unary(r);
      return opaque(r, start, r->i);
    }
  }
  return r_primary(r);
}

static int binprec(const ltok *t) {
  if (t->kind != T_PUNCT) return -1;
  switch (t->punct) {
  case '*': case '/': case '%': return 10;
  case '+': case '-': return 9;
  case P_SHL: case P_SHR: return 8;
  case '<': case '>': case P_LE: case P_GE: return 7;
  case P_EQ: case P_NE: return 6;
  case '&': return 5;
  case '^': return 4;
  case '|': return 3;
  case P_ANDAND: return 2;
  case P_OROR: return 1;
  default: return -1;
  }
}

static ex *r_binary(rd *r, int minp, int start) {
  ex *a = r_unary(r);
  while (a && r->i < r->n) {
    int p = binprec(&r->t[r->i]);
    if (p < minp || p < 0) break;
    int op = r->t[r->i].punct;
    r->i++;
    ex *b = r_binary(r, p + 1, r->i);
    if (!b) return NULL;
    exctx *x = r->c->ex;
    int64_t av, bv, v;
    static const ex_kind kind[128] = {['+'] = EX_ADD, ['-'] = EX_SUB, ['*'] = EX_MUL, ['/'] = EX_DIV, ['%'] = EX_MOD};
    bool arith = op == '+' || op == '-' || op == '*' || op == '/' || op == '%';
    if (arith && ex_is_const(b, &bv) && bv == 0 && (op == '/' || op == '%')) {
      fail(r, span(r, start, r->i), "division by zero in '%s'", cx_text(r->c, r->t + start, r->i - start));
      return NULL;
    }
    if (arith && ex_is_const(a, &av) && ex_is_const(b, &bv)) {
      if (ex_fold(kind[op], av, bv, &v) != EXF_OK) {
        fail(r, span(r, start, r->i), "integer overflow in a constant expression: %lld %c %lld does not fit in 64 "
             "bits", (long long)av, op, (long long)bv);
        return NULL;
      }
      a = ex_const(x, v);
      continue;
    }
    switch (op) {
    case '+': a = ex_add(x, a, b); break;
    case '-': a = ex_sub(x, a, b); break;
    case '*': a = ex_mul(x, a, b); break;
    case '/':
    case '%':
      if (a->lo >= 0 && b->lo > 0) a = op == '/' ? ex_div(x, a, b) : ex_mod(x, a, b);
      else a = opaque(r, start, r->i); /* C truncation with unknown signs: keep as written */
      break;
    default:
      a = fold_cmp(r, op, a, b, start);
      if (!a) return NULL;
      break;
    }
  }
  return a;
}

static ex *r_cond(rd *r) {
  int start = r->i;
  if (++r->depth > 200) {
    r->bad = true;
    return NULL;
  }
  ex *c = r_binary(r, 1, start);
  if (c && is_p(r, '?')) {
    r->i++;
    ex *a = r_cond(r);
    if (!is_p(r, ':')) {
      r->bad = true;
      return NULL;
    }
    r->i++;
    ex *b = r_cond(r);
    int64_t v;
    if (a && b && ex_is_const(c, &v)) c = v ? a : b;
    else c = opaque(r, start, r->i);
  }
  r->depth--;
  return c;
}

ex *cx_parse(cxenv *c, const ltok *t, int n) {
  rd r = {.c = c, .t = t, .n = n};
  if (n == 0) return NULL;
  ex *e = r_cond(&r);
  if (r.failed) return NULL;
  if (r.bad || r.i != n || !e) return ex_atom(c->ex, cx_text(c, t, n), -EX_INF, EX_INF);
  return e;
}

int cx_side_effect(cxenv *c, const ltok *t, int n) {
  for (int i = 0; i < n; i++) {
    if (t[i].kind != T_PUNCT) continue;
    int p = t[i].punct;
    if (p == P_INC || p == P_DEC || p == '=' || p == P_ASSIGNOP) return i;
    if (p == '(' && i > 0) {
      const ltok *f = &t[i - 1];
      if (f->kind == T_IDENT) {
        bool fl = false;
        if (is_word(f, "sizeof") || is_word(f, "_Alignof") || is_word(f, "__alignof__")) continue;
        if (c->prog && sp_macro(c->prog, f->s, f->len, &fl) && fl) continue;
        return i - 1;
      }
      if (f->kind == T_PUNCT && f->punct == ')') { /* (f)(x) calls; (long)(x) casts */
        int b = i - 1, depth = 0;
        for (; b >= 0; b--) {
          if (t[b].kind == T_PUNCT && t[b].punct == ')') depth++;
          if (t[b].kind == T_PUNCT && t[b].punct == '(' && --depth == 0) break;
        }
        if (b >= 0 && type_words(t + b + 1, i - 2 - b)) continue;
        return i;
      }
      if (f->kind == T_PUNCT && f->punct == ']') return i;
    }
  }
  return -1;
}

int cx_tokenize(cxenv *c, const char *s, ltok **out) {
  VEC(ltok) v = {0};
  static const char *multi[] = {"<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##"};
  static const int mcode[] = {P_ASSIGNOP, P_ASSIGNOP, P_ELLIPSIS, P_ARROW, P_INC, P_DEC, P_SHL, P_SHR,
                              P_LE, P_GE, P_EQ, P_NE, P_ANDAND, P_OROR, P_ASSIGNOP, P_ASSIGNOP,
                              P_ASSIGNOP, P_ASSIGNOP, P_ASSIGNOP, P_ASSIGNOP, P_ASSIGNOP, P_ASSIGNOP, P_HASHHASH};
  const char *p = s;
  while (*p) {
    if (isspace((unsigned char)*p)) {
      p++;
      continue;
    }
    ltok t = {0};
    const char *b = p;
    if (isalpha((unsigned char)*p) || *p == '_') {
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      t.kind = T_IDENT;
    } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
      while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
             ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E' || p[-1] == 'p' || p[-1] == 'P')))
        p++;
      t.kind = T_NUMBER;
    } else if (*p == '"' || *p == '\'') {
      char q = *p++;
      while (*p && *p != q) p += (*p == '\\' && p[1]) ? 2 : 1;
      if (*p) p++;
      t.kind = q == '"' ? T_STRING : T_CHAR;
    } else {
      t.kind = T_PUNCT;
      t.punct = (unsigned char)*p;
      size_t adv = 1;
      for (size_t k = 0; k < sizeof multi / sizeof multi[0]; k++)
        if (strncmp(p, multi[k], strlen(multi[k])) == 0) {
          t.punct = (uint16_t)mcode[k], adv = strlen(multi[k]);
          break;
        }
      p += adv;
    }
    t.s = b, t.len = (uint32_t)(p - b);
    vec_push(v, t);
  }
  ltok *res = arena_alloc(c->ar, sizeof *res * (size_t)(v.n ? v.n : 1));
  if (v.n) memcpy(res, v.v, sizeof *res * (size_t)v.n);
  int n = v.n;
  vec_free(v);
  *out = res;
  return n;
}

/* ---- renaming identifiers inside atoms -------------------------------------- */

typedef struct renamer {
  cxenv *c;
  const char *const *names, *const *repl;
  int n;
} renamer;

static const char *rename_atom(void *env, const char *text) {
  renamer *r = env;
  ltok *t;
  int nt = cx_tokenize(r->c, text, &t);
  sbuf b;
  sb_init(&b);
  const char *done = text;
  for (int i = 0; i < nt; i++) {
    if (t[i].kind != T_IDENT || (i > 0 && t[i - 1].kind == T_PUNCT && (t[i - 1].punct == '.' || t[i - 1].punct == P_ARROW)))
      continue;
    for (int k = 0; k < r->n; k++) {
      if (strlen(r->names[k]) != t[i].len || strncmp(r->names[k], t[i].s, t[i].len)) continue;
      sb_write(&b, done, (size_t)(t[i].s - done));
      sb_puts(&b, r->repl[k]);
      done = t[i].s + t[i].len;
      break;
    }
  }
  const char *out = NULL;
  if (done != text) {
    sb_puts(&b, done);
    out = arena_strdup(r->c->ar, b.s);
  }
  sb_free(&b);
  return out;
}

ex *cx_rename(cxenv *c, ex *e, const char *const *names, const char *const *repl, int n) {
  renamer r = {c, names, repl, n};
  return n ? ex_map_atoms(c->ex, e, rename_atom, &r) : e;
}
