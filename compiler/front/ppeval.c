/* SPDX-License-Identifier: Apache-2.0 */
/* ppeval.c - evaluates #if/#elif conditions the way GCC's preprocessor does
 * (C11 6.10.1), for pac --no-cpp: the arithmetic half. ppmacro.c tokenizes
 * the condition and expands its macros; here its integer and character
 * constants get their values and the expression is evaluated in
 * int64_t/uint64_t with C's conversions, nesting bounded. */
#include "ppint.h"

#include <string.h>

/* ---- constants ---------------------------------------------------------------- */
typedef struct pp_val {
  uint64_t v;
  bool u; /* unsigned (uintmax_t), else signed (intmax_t) */
} pp_val;

static int pp_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

/* u, l, ll, ul, lu, ull, llu in either case (ll not mixed): sets *u */
static bool pp_suffix(const char *s, size_t n, bool *u) {
  size_t i = 0;
  *u = false;
  if (i < n && (s[i] == 'u' || s[i] == 'U')) *u = true, i++;
  if (i + 1 < n && ((s[i] == 'l' && s[i + 1] == 'l') || (s[i] == 'L' && s[i + 1] == 'L'))) i += 2;
  else if (i < n && (s[i] == 'l' || s[i] == 'L')) i++;
  if (!*u && i < n && (s[i] == 'u' || s[i] == 'U')) *u = true, i++;
  return i == n;
}

static bool pp_number(const pp_tok *t, pp_val *out, pp_err *e) {
  const char *s = t->s;
  size_t n = t->len, i = 0;
  int base = 10;
  if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, i = 2;
  else if (n > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, i = 2;
  else if (s[0] == '0') base = 8;
  size_t start = i, bad = n;
  uint64_t v = 0;
  bool big = false;
  for (; i < n && pp_digit(s[i]) < (base == 16 ? 16 : 10); i++) {
    int d = pp_digit(s[i]);
    if (d >= base && bad == n) bad = i;
    big |= __builtin_mul_overflow(v, (uint64_t)base, &v) | __builtin_add_overflow(v, (uint64_t)d, &v);
  }
  bool fl = i < n && (s[i] == '.' || (base == 16 ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E')));
  if (fl || s[0] == '.') return pp_fail(e, t->off, "floating constant in preprocessor expression"), false;
  if (bad != n)
    return pp_fail(e, pp_off_in(e, t, bad), "invalid digit \"%c\" in %s constant", s[bad], base == 8 ? "octal" : "binary"),
           false;
  bool u;
  if ((i == start && base != 8) || !pp_suffix(s + i, n - i, &u)) {
    size_t from = i == start && base != 8 ? 1 : i;
    int shown = (int)(n - from > 40 ? 40 : n - from);
    return pp_fail(e, pp_off_in(e, t, from), "invalid suffix \"%.*s\" on integer constant", shown, s + from), false;
  }
  if (big) return pp_fail(e, t->off, "integer constant is too large for its type"), false;
  *out = (pp_val){v, u || v > (uint64_t)INT64_MAX};
  return true;
}

/* One character of a character constant from s[*i] (escapes decoded). */
static uint64_t pp_char_unit(const char *s, size_t n, size_t *i, bool *ucn) {
  static const char esc[] = "n\nt\tv\vb\br\rf\fa\ae\033E\033";
  char c = s[(*i)++];
  *ucn = false;
  if (c != '\\' || *i >= n) return (unsigned char)c;
  c = s[(*i)++];
  for (const char *p = esc; *p; p += 2)
    if (*p == c) return (unsigned char)p[1];
  uint64_t v = 0;
  if (c >= '0' && c <= '7') {
    v = (uint64_t)(c - '0');
    for (int k = 0; k < 2 && *i < n && s[*i] >= '0' && s[*i] <= '7'; k++) v = v * 8 + (uint64_t)(s[(*i)++] - '0');
    return v;
  }
  if (c == 'x' || c == 'u' || c == 'U') {
    int max = c == 'x' ? 64 : c == 'u' ? 4 : 8;
    for (int k = 0; k < max && *i < n && pp_digit(s[*i]) < 16; k++) v = (v << 4) | (uint64_t)pp_digit(s[(*i)++]);
    *ucn = c != 'x';
    return v;
  }
  return (unsigned char)c; /* \' \" \? \\, and unknown escapes as GCC: the character */
}

/* 'a', '\n', L'x', u'x', U'x', u8'x': the value as the C type of the constant */
static bool pp_charconst(const pp_tok *t, pp_val *out, pp_err *e) {
  size_t q = 0;
  while (t->s[q] != '\'') q++;
  int bits = q == 0 ? 8 : t->s[0] == 'L' || t->s[0] == 'U' ? 32 : t->s[q - 1] == '8' ? 8 : 16;
  bool wide = q != 0, uns = wide && t->s[0] != 'L';
  uint64_t v = 0, mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
  int count = 0;
  for (size_t i = q + 1; i < t->len - 1; count++) {
    bool ucn;
    uint64_t c = pp_char_unit(t->s, t->len - 1, &i, &ucn);
    if (!wide && ucn && c >= 0x80) { /* a UCN in a plain constant: its UTF-8 bytes */
      int nb = c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      for (int k = nb - 1; k >= 0; k--)
        v = (v << 8) | (k == nb - 1 ? (0xF00u >> nb) & 0xFF : 0x80) | ((c >> (6 * k)) & 0x3F);
      count += nb - 1;
      continue;
    }
    v = wide ? c & mask : (v << 8) | (c & 0xFF);
  }
  if (count == 0) return pp_fail(e, t->off, "empty character constant"), false;
  if (!wide && count > 1) bits = 32; /* a multi-character constant is an int */
  v &= ((uint64_t)1 << bits) - 1;
  if (!uns && (v >> (bits - 1)) & 1) v |= ~(((uint64_t)1 << bits) - 1);
  *out = (pp_val){v, uns};
  return true;
}

/* ---- the expression ----------------------------------------------------------- */
typedef struct pp_parser {
  const pp_tok *t;
  int n, i, depth;
  const pp_tok *prev_op; /* the operator just taken, for "has no right operand" */
  pp_tok eof;
  pp_err *e;
} pp_parser;

static const pp_tok *pp_cur(pp_parser *p) { return p->i < p->n ? &p->t[p->i] : &p->eof; }
static void pp_take_op(pp_parser *p) { p->prev_op = pp_cur(p), p->i++; }

static int pp_binprec(const pp_tok *t) {
  if (t->kind != K_PUNCT) return 0;
  switch (t->aux) {
  case P_OROR: return 1;
  case P_ANDAND: return 2;
  case P_OR: return 3;
  case P_XOR: return 4;
  case P_AND: return 5;
  case P_EQ: case P_NE: return 6;
  case P_LT: case P_GT: case P_LE: case P_GE: return 7;
  case P_SHL: case P_SHR: return 8;
  case P_PLUS: case P_MINUS: return 9;
  case P_STAR: case P_SLASH: case P_PCT: return 10;
  default: return 0;
  }
}

/* a token where an expression must go on but cannot */
static bool pp_unexpected(pp_parser *p, const pp_tok *t) {
  if (pp_is_punct(t, P_RPAREN)) pp_fail(p->e, t->off, "missing '(' in expression");
  else if (pp_is_punct(t, P_COLON)) pp_fail(p->e, t->off, "':' without preceding '?'");
  else if (t->kind == K_IDENT || t->kind == K_NUM || t->kind == K_CHAR || t->kind == K_STR ||
           pp_is_punct(t, P_LPAREN) || pp_is_punct(t, P_TILDE) || pp_is_punct(t, P_NOT))
    pp_fail(p->e, t->off, "missing binary operator before token \"%.*s\"", PP_SPELL(t));
  else pp_fail(p->e, t->off, "token \"%.*s\" is not valid in preprocessor expressions", PP_SPELL(t));
  return false;
}

/* where an operand is wanted and t is no operand */
static bool pp_no_operand(pp_parser *p, const pp_tok *t) {
  const pp_tok *op = p->prev_op;
  if (op && pp_is_punct(op, P_LPAREN) && t->kind == K_EOF) pp_fail(p->e, op->off, "missing ')' in expression");
  else if (op && pp_is_punct(op, P_LPAREN) && pp_is_punct(t, P_RPAREN))
    pp_fail(p->e, t->off, "missing expression between '(' and ')'");
  else if (op && !pp_is_punct(op, P_LPAREN))
    pp_fail(p->e, op->off, "operator '%.*s' has no right operand", PP_SPELL(op));
  else if (t->kind == K_EOF) pp_fail(p->e, t->off, "#if with no expression");
  else if (pp_is_punct(t, P_RPAREN) || pp_is_punct(t, P_COLON)) return pp_unexpected(p, t);
  else pp_fail(p->e, t->off, "operator '%.*s' has no left operand", PP_SPELL(t));
  return false;
}

static bool pp_comma(pp_parser *p, bool live, pp_val *v);

static bool pp_primary(pp_parser *p, bool live, pp_val *v) {
  const pp_tok *t = pp_cur(p);
  switch (t->kind) {
  case K_NUM: p->i++, p->prev_op = NULL; return pp_number(t, v, p->e);
  case K_CHAR: p->i++, p->prev_op = NULL; return pp_charconst(t, v, p->e);
  case K_IDENT:
    if (pp_tok_is(t, "defined"))
      return pp_fail(p->e, t->off,
                     "\"defined\" produced by a macro expansion cannot be evaluated without the preprocessor"),
             false;
    p->i++, p->prev_op = NULL, *v = (pp_val){0, false}; /* an identifier that is no macro is 0 */
    return true;
  case K_STR:
    return pp_fail(p->e, t->off, "string literal %.*s is not valid in preprocessor expressions", PP_SPELL(t)), false;
  case K_BADQ: {
    const char *q = t->s; /* after a prefix (L, u, U, u8), the opening quote */
    while (*q != '\'' && *q != '"') q++;
    return pp_fail(p->e, t->off, "missing terminating %c character", *q), false;
  }
  case K_OTHER: return pp_fail(p->e, t->off, "stray '%.*s' in preprocessor expression", PP_SPELL(t)), false;
  default: break;
  }
  if (pp_is_punct(t, P_LPAREN)) {
    pp_take_op(p);
    if (!pp_comma(p, live, v)) return false;
    if (pp_is_punct(pp_cur(p), P_RPAREN)) return p->i++, p->prev_op = NULL, true;
    if (pp_cur(p)->kind == K_EOF) return pp_fail(p->e, t->off, "missing ')' in expression"), false;
    return pp_unexpected(p, pp_cur(p));
  }
  if (t->kind == K_PUNCT && t->aux != P_RPAREN && t->aux != P_COLON && t->aux != P_COMMA && t->aux != P_QUEST &&
      !pp_binprec(t))
    return pp_fail(p->e, t->off, "token \"%.*s\" is not valid in preprocessor expressions", PP_SPELL(t)), false;
  return pp_no_operand(p, t);
}

static bool pp_unary(pp_parser *p, bool live, pp_val *v) {
  const pp_tok *t = pp_cur(p);
  if (++p->depth > PP_MAX_PARENS)
    return pp_fail(p->e, t->off, "expression nested too deeply (more than %d levels)", PP_MAX_PARENS), false;
  bool ok;
  if (t->kind == K_PUNCT && (t->aux == P_PLUS || t->aux == P_MINUS || t->aux == P_TILDE || t->aux == P_NOT)) {
    pp_take_op(p);
    ok = pp_unary(p, live, v);
    if (t->aux == P_MINUS) v->v = 0 - v->v;
    else if (t->aux == P_TILDE) v->v = ~v->v;
    else if (t->aux == P_NOT) *v = (pp_val){v->v == 0, false};
  } else {
    ok = pp_primary(p, live, v);
  }
  p->depth--;
  return ok;
}

static uint64_t pp_shift(pp_val a, pp_val b, bool left) {
  uint64_t n = b.v;
  if (!b.u && (int64_t)n < 0) left = !left, n = 0 - n; /* a negative count shifts the other way, as in GCC */
  if (left) return n >= 64 ? 0 : a.v << n;
  bool neg = !a.u && (int64_t)a.v < 0;
  if (n >= 64) return neg ? ~(uint64_t)0 : 0;
  return neg ? ~(~a.v >> n) : a.v >> n;
}

static bool pp_divide(pp_val a, pp_val b, int op, pp_val *r) {
  if (b.v == 0) return false;
  if (r->u) r->v = op == P_SLASH ? a.v / b.v : a.v % b.v;
  else if ((int64_t)b.v == -1) r->v = op == P_SLASH ? 0 - a.v : 0; /* INT64_MIN / -1 wraps */
  else r->v = (uint64_t)(op == P_SLASH ? (int64_t)a.v / (int64_t)b.v : (int64_t)a.v % (int64_t)b.v);
  return true;
}

/* a op b with C's usual conversions (shifts take the left operand's type) */
static bool pp_binary(pp_parser *p, const pp_tok *op, pp_val a, pp_val b, bool live, pp_val *r) {
  r->u = a.u || b.u;
  bool lt = r->u ? a.v < b.v : (int64_t)a.v < (int64_t)b.v, gt = r->u ? a.v > b.v : (int64_t)a.v > (int64_t)b.v;
  switch (op->aux) {
  case P_PLUS: r->v = a.v + b.v; break;
  case P_MINUS: r->v = a.v - b.v; break;
  case P_STAR: r->v = a.v * b.v; break;
  case P_SLASH: case P_PCT:
    if (!pp_divide(a, b, op->aux, r)) {
      if (live) return pp_fail(p->e, op->off, "%s by zero in #if", op->aux == P_SLASH ? "division" : "modulo"), false;
      *r = a; /* unevaluated: GCC gives the left operand, with its type */
    }
    break;
  case P_SHL: case P_SHR: r->u = a.u, r->v = pp_shift(a, b, op->aux == P_SHL); break;
  case P_AND: r->v = a.v & b.v; break;
  case P_OR: r->v = a.v | b.v; break;
  case P_XOR: r->v = a.v ^ b.v; break;
  case P_EQ: *r = (pp_val){a.v == b.v, false}; break;
  case P_NE: *r = (pp_val){a.v != b.v, false}; break;
  case P_LT: *r = (pp_val){lt, false}; break;
  case P_GT: *r = (pp_val){gt, false}; break;
  case P_LE: *r = (pp_val){!gt, false}; break;
  case P_GE: *r = (pp_val){!lt, false}; break;
  case P_ANDAND: *r = (pp_val){a.v && b.v, false}; break;
  case P_OROR: *r = (pp_val){a.v || b.v, false}; break;
  }
  return true;
}

/* operators of precedence minprec and above (precedence climbing) */
static bool pp_binop(pp_parser *p, int minprec, bool live, pp_val *v) {
  if (!pp_unary(p, live, v)) return false;
  for (;;) {
    const pp_tok *op = pp_cur(p);
    int prec = pp_binprec(op);
    if (!prec || prec < minprec) return true;
    pp_take_op(p);
    bool rlive = op->aux == P_ANDAND ? live && v->v : op->aux == P_OROR ? live && !v->v : live;
    pp_val r;
    if (!pp_binop(p, prec + 1, rlive, &r) || !pp_binary(p, op, *v, r, live, v)) return false;
  }
}

static bool pp_cond(pp_parser *p, bool live, pp_val *v) {
  if (!pp_binop(p, 1, live, v)) return false;
  const pp_tok *q = pp_cur(p);
  if (!pp_is_punct(q, P_QUEST)) return true;
  if (++p->depth > PP_MAX_PARENS)
    return pp_fail(p->e, q->off, "expression nested too deeply (more than %d levels)", PP_MAX_PARENS), false;
  pp_take_op(p);
  pp_val a, b;
  bool c = v->v != 0;
  if (!pp_comma(p, live && c, &a)) return false;
  if (!pp_is_punct(pp_cur(p), P_COLON)) return pp_fail(p->e, q->off, "'?' without following ':'"), false;
  pp_take_op(p);
  if (!pp_cond(p, live && !c, &b)) return false;
  p->depth--;
  *v = (pp_val){c ? a.v : b.v, a.u || b.u};
  return true;
}

static bool pp_comma(pp_parser *p, bool live, pp_val *v) {
  if (!pp_cond(p, live, v)) return false;
  while (pp_is_punct(pp_cur(p), P_COMMA)) {
    pp_take_op(p);
    if (!pp_cond(p, live, v)) return false;
  }
  return true;
}

int pp_eval(const ppmacros *m, const char *text, size_t len, int64_t *value, char *err, size_t errlen, size_t *erroff) {
  if (!len) text = ""; /* not a null pointer to do arithmetic on */
  pp_err e = {err, errlen, 0, false, text};
  if (err && errlen) err[0] = 0;
  if (len > UINT32_MAX / 2) {
    pp_fail(&e, 0, "condition too long");
  } else {
    arena ar;
    arena_init(&ar);
    pp_vec out = {0};
    if (pp_expand_condition(m, text, len, &ar, &e, &out)) {
      pp_parser p = {.t = out.v, .n = out.n, .eof = {"", 0, (uint32_t)len, K_EOF, 0, 0}, .e = &e};
      pp_val v;
      if (pp_comma(&p, true, &v) && pp_cur(&p)->kind != K_EOF) pp_unexpected(&p, pp_cur(&p));
      if (!e.failed) *value = (int64_t)v.v;
    }
    arena_free(&ar);
  }
  if (erroff) *erroff = e.off;
  return e.failed ? -1 : 0;
}
