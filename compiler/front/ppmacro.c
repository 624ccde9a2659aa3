/* SPDX-License-Identifier: Apache-2.0 */
/* ppmacro.c - the preprocessing half of the #if evaluator (ppeval.c is the
 * arithmetic half): a small tokenizer, the macro table of #define/#undef and
 * -D/-U, and macro expansion as GCC does it (object- and function-like, # and
 * ##, variadic, the "blue paint" rule through disabled macros). Everything
 * is bounded: nesting, expanded tokens and bytes, so no input can hang or
 * exhaust memory. */
#include "ppint.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokens --------------------------------------------------------------- */
static const struct {
  const char *s;
  int code;
} pp_puncts[] = {
    {"%:%:", P_HASHHASH}, {"...", P_ELLIPSIS}, {"<<=", P_OTHER}, {">>=", P_OTHER}, {"##", P_HASHHASH},
    {"%:", P_HASH},       {"<:", P_OTHER},     {":>", P_OTHER},  {"<%", P_OTHER},  {"%>", P_OTHER},
    {"->", P_OTHER},      {"++", P_OTHER},     {"--", P_OTHER},  {"<<", P_SHL},    {">>", P_SHR},
    {"<=", P_LE},         {">=", P_GE},        {"==", P_EQ},     {"!=", P_NE},     {"&&", P_ANDAND},
    {"||", P_OROR},       {"*=", P_OTHER},     {"/=", P_OTHER},  {"%=", P_OTHER},  {"+=", P_OTHER},
    {"-=", P_OTHER},      {"&=", P_OTHER},     {"^=", P_OTHER},  {"|=", P_OTHER},  {"(", P_LPAREN},
    {")", P_RPAREN},      {",", P_COMMA},      {"?", P_QUEST},   {":", P_COLON},   {"|", P_OR},
    {"^", P_XOR},         {"&", P_AND},        {"<", P_LT},      {">", P_GT},      {"+", P_PLUS},
    {"-", P_MINUS},       {"*", P_STAR},       {"/", P_SLASH},   {"%", P_PCT},     {"~", P_TILDE},
    {"!", P_NOT},         {"#", P_HASH},       {"[", P_OTHER},   {"]", P_OTHER},   {"{", P_OTHER},
    {"}", P_OTHER},       {".", P_OTHER},      {";", P_OTHER},   {"=", P_OTHER},
};

static bool pp_isid(int c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || (!first && c >= '0' && c <= '9');
}
static bool pp_isdigit(int c) { return c >= '0' && c <= '9'; }

/* Skips blanks and comments from *pos; false for an unterminated comment. */
static bool pp_skip_white(const char *s, size_t len, size_t *pos) {
  size_t i = *pos;
  for (;;) {
    if (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f' || s[i] == '\v' || s[i] == '\r' || s[i] == '\n')) {
      i++;
    } else if (i + 1 < len && s[i] == '/' && s[i + 1] == '/') {
      while (i < len && s[i] != '\n') i++;
    } else if (i + 1 < len && s[i] == '/' && s[i + 1] == '*') {
      size_t j = i + 2;
      while (j + 1 < len && !(s[j] == '*' && s[j + 1] == '/')) j++;
      if (j + 1 >= len) {
        *pos = i;
        return false;
      }
      i = j + 2;
    } else {
      break;
    }
  }
  *pos = i;
  return true;
}

/* The end of a quoted literal starting at q (the quote), or len when unterminated. */
static size_t pp_quote_end(const char *s, size_t len, size_t q, bool *ok) {
  char c = s[q];
  size_t i = q + 1;
  while (i < len && s[i] != c && s[i] != '\n') i += (s[i] == '\\' && i + 1 < len) ? 2 : 1;
  *ok = i < len && s[i] == c;
  return *ok ? i + 1 : len;
}

static size_t pp_number_end(const char *s, size_t len, size_t i) {
  i++;
  while (i < len) {
    char c = s[i];
    if ((c == '+' || c == '-') && strchr("eEpP", s[i - 1])) i++;
    else if (pp_isid(c, false) || c == '.') i++;
    else break;
  }
  return i;
}

/* The next token of s from *pos (K_EOF at the end). *bad_comment is set for
 * an unterminated comment, which ends the text. */
static pp_tok pp_lex(const char *s, size_t len, size_t *pos, bool *bad_comment) {
  size_t i = *pos;
  pp_tok t = {0};
  if (!pp_skip_white(s, len, &i)) { /* the text ends in the comment */
    *bad_comment = true, t.off = (uint32_t)i, *pos = len;
    return t;
  }
  t.flags = i != *pos ? F_WHITE : 0;
  t.off = (uint32_t)i;
  t.s = s + i;
  size_t e = i + 1;
  bool ok;
  if (i >= len) {
    t.kind = K_EOF, e = i;
  } else if (pp_isdigit(s[i]) || (s[i] == '.' && i + 1 < len && pp_isdigit(s[i + 1]))) {
    t.kind = K_NUM, e = pp_number_end(s, len, i);
  } else if (pp_isid(s[i], true)) {
    while (e < len && pp_isid(s[e], false)) e++;
    size_t n = e - i;
    bool prefix = (n == 1 && strchr("LuU", s[i])) || (n == 2 && s[i] == 'u' && s[i + 1] == '8');
    if (prefix && e < len && (s[e] == '\'' || s[e] == '"')) {
      char q = s[e];
      e = pp_quote_end(s, len, e, &ok);
      t.kind = !ok ? K_BADQ : q == '"' ? K_STR : K_CHAR;
    } else {
      t.kind = K_IDENT;
    }
  } else if (s[i] == '\'' || s[i] == '"') {
    e = pp_quote_end(s, len, i, &ok);
    t.kind = !ok ? K_BADQ : s[i] == '"' ? K_STR : K_CHAR;
  } else {
    t.kind = K_OTHER;
    for (size_t k = 0; k < sizeof pp_puncts / sizeof *pp_puncts; k++) {
      size_t n = strlen(pp_puncts[k].s);
      if (n <= len - i && memcmp(s + i, pp_puncts[k].s, n) == 0) {
        t.kind = K_PUNCT, t.aux = pp_puncts[k].code, e = i + n;
        break;
      }
    }
  }
  t.len = (uint32_t)(e - i);
  *pos = e;
  return t;
}

/* ---- errors ---------------------------------------------------------------- */
void pp_fail(pp_err *e, size_t off, const char *fmt, ...) {
  if (e->failed) return;
  e->failed = true;
  e->off = off;
  if (!e->buf || !e->cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->buf, e->cap, fmt, ap);
  va_end(ap);
}

/* ---- the macro table -------------------------------------------------------- */
typedef struct pp_macro {
  const char *name;
  size_t namelen;
  bool fn, variadic;
  int nparams;
  pp_tok *body;
  int nbody;
} pp_macro;

struct ppmacros {
  arena ar;
  strmap map; /* name -> pp_macro*, NULL once #undef'd */
};

ppmacros *pp_macros_new(void) {
  ppmacros *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  arena_init(&m->ar);
  strmap_init(&m->map);
  return m;
}

void pp_macros_free(ppmacros *m) {
  if (!m) return;
  strmap_free(&m->map);
  arena_free(&m->ar);
  free(m);
}

static void pp_trim(const char **name, size_t *len) {
  while (*len && (**name == ' ' || **name == '\t')) (*name)++, (*len)--;
  while (*len && ((*name)[*len - 1] == ' ' || (*name)[*len - 1] == '\t')) (*len)--;
}

static const pp_macro *pp_lookup(const ppmacros *m, const char *name, size_t len) {
  return strmap_get(&m->map, name, len);
}

void pp_undef(ppmacros *m, const char *name, size_t len) {
  pp_trim(&name, &len);
  const pp_macro *old = pp_lookup(m, name, len);
  if (old) strmap_put(&m->map, old->name, old->namelen, NULL);
}

static bool pp_is_has_operator(const char *name, size_t len) {
  static const char *const ops[] = {"__has_include", "__has_include_next", "__has_attribute", "__has_cpp_attribute",
                                    "__has_c_attribute", "__has_builtin", "__has_feature", "__has_extension",
                                    "__has_embed"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (str_eq(name, len, ops[i])) return true;
  return false;
}

bool pp_is_defined(const ppmacros *m, const char *name, size_t len) {
  pp_trim(&name, &len);
  return pp_lookup(m, name, len) != NULL || pp_is_has_operator(name, len);
}

/* The parameter list after "NAME(": fills mac and the names in pnames;
 * returns the index of the token after ')' or -1. */
static int pp_parse_params(pp_macro *mac, const pp_tok *t, int n, int i, const pp_tok **pnames, pp_err *e) {
  if (i < n && pp_is_punct(&t[i], P_RPAREN)) return i + 1;
  for (;;) {
    if (i >= n) break;
    if (pp_is_punct(&t[i], P_ELLIPSIS)) {
      pnames[mac->nparams++] = NULL, mac->variadic = true, i++;
    } else if (t[i].kind == K_IDENT && !pp_tok_is(&t[i], "__VA_ARGS__")) {
      for (int k = 0; k < mac->nparams; k++)
        if (pnames[k]->len == t[i].len && memcmp(pnames[k]->s, t[i].s, t[i].len) == 0)
          return pp_fail(e, t[i].off, "duplicate macro parameter \"%.*s\"", PP_SPELL(&t[i])), -1;
      pnames[mac->nparams++] = &t[i++];
      if (i < n && pp_is_punct(&t[i], P_ELLIPSIS)) mac->variadic = true, i++; /* GNU: args... */
    } else {
      return pp_fail(e, t[i].off, "expected parameter name, found \"%.*s\"", PP_SPELL(&t[i])), -1;
    }
    if (i < n && pp_is_punct(&t[i], P_RPAREN)) return i + 1;
    if (mac->variadic || i >= n || !pp_is_punct(&t[i], P_COMMA)) break;
    i++;
  }
  return pp_fail(e, i < n ? t[i].off : (i ? t[i - 1].off + t[i - 1].len : 0),
                 mac->variadic ? "missing ')' after \"...\"" : "missing ')' in macro parameter list"),
         -1;
}

/* Marks parameters, # and ## in the body t[i..n) and checks their use. */
static bool pp_mark_body(pp_macro *mac, pp_tok *t, int n, int i, const pp_tok **pnames, pp_err *e) {
  for (int k = i; k < n; k++) {
    for (int p = 0; mac->fn && t[k].kind == K_IDENT && p < mac->nparams; p++) {
      const pp_tok *pn = pnames[p];
      bool va = !pn && pp_tok_is(&t[k], "__VA_ARGS__");
      if (va || (pn && pn->len == t[k].len && memcmp(pn->s, t[k].s, t[k].len) == 0)) t[k].kind = K_PARAM, t[k].aux = p;
    }
    if (pp_is_punct(&t[k], P_HASHHASH)) {
      if (k == i || k == n - 1)
        return pp_fail(e, t[k].off, "'##' cannot appear at either end of a macro expansion"), false;
      t[k].kind = K_PASTEOP;
    }
  }
  for (int k = i; mac->fn && k < n; k++) {
    if (!pp_is_punct(&t[k], P_HASH)) continue;
    if (k + 1 >= n || t[k + 1].kind != K_PARAM)
      return pp_fail(e, t[k].off, "'#' is not followed by a macro parameter"), false;
    t[k].kind = K_STROP;
  }
  return true;
}

static int pp_lex_all(arena *ar, const char *s, size_t len, pp_tok **out) {
  size_t pos = 0, cap = 16;
  int n = 0;
  bool badc = false;
  pp_tok *t = malloc(cap * sizeof *t);
  if (!t) abort();
  for (;;) {
    pp_tok k = pp_lex(s, len, &pos, &badc);
    if (k.kind == K_EOF) break;
    if ((size_t)n == cap) {
      cap *= 2;
      t = realloc(t, cap * sizeof *t);
      if (!t) abort();
    }
    t[n++] = k;
  }
  *out = arena_alloc(ar, (size_t)(n ? n : 1) * sizeof **out);
  memcpy(*out, t, (size_t)n * sizeof *t);
  free(t);
  return n;
}

int pp_define_checked(ppmacros *m, const char *text, size_t len, char *err, size_t errlen, size_t *erroff) {
  pp_err e = {err, errlen, 0, false, NULL};
  const char *s = arena_strndup(&m->ar, len ? text : "", len);
  pp_tok *t;
  int n = pp_lex_all(&m->ar, s, len, &t);
  if (n == 0 || t[0].kind != K_IDENT) {
    pp_fail(&e, n ? t[0].off : len, n ? "macro names must be identifiers" : "no macro name given in #define directive");
  } else if (pp_tok_is(&t[0], "defined") || pp_is_has_operator(t[0].s, t[0].len)) {
    pp_fail(&e, t[0].off, "\"%.*s\" cannot be used as a macro name", PP_SPELL(&t[0]));
  } else {
    pp_macro *mac = arena_alloc(&m->ar, sizeof *mac);
    mac->name = t[0].s, mac->namelen = t[0].len;
    int i = 1;
    const pp_tok **pnames = malloc((size_t)n * sizeof *pnames);
    if (!pnames) abort();
    if (n > 1 && pp_is_punct(&t[1], P_LPAREN) && !(t[1].flags & F_WHITE)) {
      mac->fn = true;
      i = pp_parse_params(mac, t, n, 2, pnames, &e);
    }
    if (i >= 0 && pp_mark_body(mac, t, n, i, pnames, &e)) {
      mac->body = t + i, mac->nbody = n - i;
      if (mac->nbody) mac->body[0].flags &= (uint16_t)~F_WHITE;
      strmap_put(&m->map, mac->name, mac->namelen, mac);
    }
    free(pnames);
  }
  if (erroff) *erroff = e.off;
  return e.failed ? -1 : 0;
}

void pp_define(ppmacros *m, const char *text, size_t len) {
  size_t off;
  pp_define_checked(m, text, len, NULL, 0, &off);
}

void pp_define_option(ppmacros *m, const char *arg) {
  sbuf b;
  sb_init(&b);
  const char *eq = strchr(arg, '=');
  if (eq) {
    sb_write(&b, arg, (size_t)(eq - arg));
    sb_putc(&b, ' ');
    sb_puts(&b, eq + 1);
  } else {
    sb_puts(&b, arg);
    sb_puts(&b, " 1");
  }
  pp_define(m, b.s, b.len);
  sb_free(&b);
}

/* ---- macro expansion -------------------------------------------------------- */
typedef struct pp_ctx {
  const pp_tok *t;
  int n, i;
  const pp_macro *m; /* disabled while its expansion is read */
  bool barrier;      /* a text or an argument: reading stops at its end */
} pp_ctx;

typedef struct pp_ex {
  const ppmacros *M;
  arena *ar;
  pp_err *e;
  pp_ctx *ctx;
  int nctx, capctx, nest;
  strmap disabled; /* macro name -> count of its expansions being read */
  size_t ntoks, nbytes;
  uint32_t call_off; /* where the macro call being expanded starts in the text */
} pp_ex;

static bool pp_budget(pp_ex *x, size_t toks, size_t bytes, size_t off) {
  x->ntoks += toks, x->nbytes += bytes;
  if (x->ntoks > PP_MAX_TOKENS || x->nbytes > PP_MAX_BYTES)
    pp_fail(x->e, x->nest ? x->call_off : off, "macro expansion too large (more than %d tokens or %d bytes)",
            PP_MAX_TOKENS, PP_MAX_BYTES);
  return !x->e->failed;
}

static bool pp_push(pp_ex *x, pp_vec *v, pp_tok t) {
  if (!pp_budget(x, 1, 0, t.off)) return false;
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 8;
    pp_tok *nv = arena_alloc(x->ar, (size_t)cap * sizeof *nv);
    if (v->n) memcpy(nv, v->v, (size_t)v->n * sizeof *nv);
    v->v = nv, v->cap = cap;
  }
  v->v[v->n++] = t;
  return true;
}

static intptr_t pp_disabled(pp_ex *x, const pp_macro *m) {
  return (intptr_t)strmap_get(&x->disabled, m->name, m->namelen);
}
static void pp_disable(pp_ex *x, const pp_macro *m, intptr_t d) {
  strmap_put(&x->disabled, m->name, m->namelen, (void *)(pp_disabled(x, m) + d));
}

static void pp_push_ctx(pp_ex *x, const pp_tok *t, int n, const pp_macro *m, bool barrier) {
  if (x->nctx == x->capctx) {
    int cap = x->capctx ? 2 * x->capctx : 16;
    pp_ctx *nc = arena_alloc(x->ar, (size_t)cap * sizeof *nc);
    if (x->nctx) memcpy(nc, x->ctx, (size_t)x->nctx * sizeof *nc);
    x->ctx = nc, x->capctx = cap;
  }
  x->ctx[x->nctx++] = (pp_ctx){t, n, 0, m, barrier};
  if (m) pp_disable(x, m, 1);
}

static void pp_pop_ctx(pp_ex *x) {
  pp_ctx *c = &x->ctx[--x->nctx];
  if (c->m) pp_disable(x, c->m, -1);
}

/* The next token without taking it; finished expansions are left (and their
 * macros enabled again), but not the innermost text or argument. */
static const pp_tok *pp_peek(pp_ex *x) {
  while (x->nctx && x->ctx[x->nctx - 1].i >= x->ctx[x->nctx - 1].n && !x->ctx[x->nctx - 1].barrier) pp_pop_ctx(x);
  if (!x->nctx) return NULL;
  pp_ctx *c = &x->ctx[x->nctx - 1];
  return c->i < c->n ? &c->t[c->i] : NULL;
}

static const pp_tok *pp_take(pp_ex *x) {
  const pp_tok *t = pp_peek(x);
  if (t) x->ctx[x->nctx - 1].i++;
  return t;
}

static pp_tok pp_number_tok(bool one, uint32_t off) { return (pp_tok){one ? "1" : "0", 1, off, K_NUM, 0, 0}; }

/* `defined NAME` or `defined ( NAME )`, written in the condition itself */
static bool pp_defined(pp_ex *x, const pp_tok *d, pp_vec *out) {
  const pp_tok *t = pp_take(x);
  bool paren = t && pp_is_punct(t, P_LPAREN);
  if (paren) t = pp_take(x);
  if (!t || t->kind != K_IDENT)
    return pp_fail(x->e, t ? t->off : d->off, "operator \"defined\" requires an identifier"), false;
  if (paren) {
    const pp_tok *r = pp_take(x);
    if (!r || !pp_is_punct(r, P_RPAREN))
      return pp_fail(x->e, r ? r->off : d->off, "missing ')' after \"defined\""), false;
  }
  return pp_push(x, out, pp_number_tok(pp_is_defined(x->M, t->s, t->len), d->off));
}

/* __has_include(...), __has_builtin(...) and the like: 0, for pac has no
 * headers to look for and no compiler to ask (a fallback branch is taken). */
static bool pp_has(pp_ex *x, const pp_tok *h, pp_vec *out) {
  const pp_tok *t = pp_peek(x);
  if (!t || !pp_is_punct(t, P_LPAREN)) {
    if (!pp_is_has_operator(h->s, h->len)) return pp_push(x, out, *h); /* __has_other alone: an identifier */
    return pp_fail(x->e, t ? t->off : h->off, "missing '(' after \"%.*s\"", PP_SPELL(h)), false;
  }
  pp_take(x);
  for (int depth = 1; depth;) {
    t = pp_take(x);
    if (!t) return pp_fail(x->e, h->off, "missing ')' after \"%.*s\" operand", PP_SPELL(h)), false;
    depth += pp_is_punct(t, P_LPAREN) ? 1 : pp_is_punct(t, P_RPAREN) ? -1 : 0;
  }
  return pp_push(x, out, pp_number_tok(false, h->off));
}

/* The arguments of a call of mac after its '(' (taken), into *args. */
static int pp_collect_args(pp_ex *x, const pp_macro *mac, const pp_tok *name, pp_vec **args) {
  int nargs = 1, cap = 4, depth = 0;
  *args = arena_alloc(x->ar, (size_t)cap * sizeof **args);
  for (;;) {
    const pp_tok *t = pp_take(x);
    if (!t) return pp_fail(x->e, name->off, "unterminated argument list invoking macro \"%.*s\"", PP_SPELL(name)), -1;
    if (pp_is_punct(t, P_RPAREN) && depth-- == 0) break;
    if (pp_is_punct(t, P_LPAREN)) depth++;
    if (pp_is_punct(t, P_COMMA) && depth == 0 && !(mac->variadic && nargs == mac->nparams)) {
      if (!pp_budget(x, 1, 0, t->off)) return -1;
      if (nargs == cap) {
        pp_vec *na = arena_alloc(x->ar, (size_t)cap * 2 * sizeof *na);
        memcpy(na, *args, (size_t)cap * sizeof *na);
        *args = na, cap *= 2;
      }
      nargs++;
      continue;
    }
    if (!pp_push(x, &(*args)[nargs - 1], *t)) return -1;
  }
  if (mac->nparams == 0 && nargs == 1 && (*args)[0].n == 0) return 0;
  if (mac->variadic && nargs == mac->nparams - 1) { /* no variable arguments: an empty one */
    if (nargs == cap) {
      pp_vec *na = arena_alloc(x->ar, (size_t)(cap + 1) * sizeof *na);
      memcpy(na, *args, (size_t)cap * sizeof *na);
      *args = na;
    }
    return nargs + 1;
  }
  if (nargs < mac->nparams)
    return pp_fail(x->e, name->off, "macro \"%.*s\" requires %d arguments, but only %d given", PP_SPELL(name),
                   mac->nparams, nargs),
           -1;
  if (nargs > mac->nparams)
    return pp_fail(x->e, name->off, "macro \"%.*s\" passed %d arguments, but takes just %d", PP_SPELL(name), nargs,
                   mac->nparams),
           -1;
  return nargs;
}

/* #param: the argument's spelling as a string literal */
static pp_tok pp_stringize(pp_ex *x, const pp_vec *a, uint32_t off) {
  sbuf b;
  sb_init(&b);
  sb_putc(&b, '"');
  for (int k = 0; k < a->n; k++) {
    const pp_tok *t = &a->v[k];
    if (k && (t->flags & F_WHITE)) sb_putc(&b, ' ');
    bool quoted = t->kind == K_STR || t->kind == K_CHAR || t->kind == K_BADQ;
    for (uint32_t c = 0; c < t->len; c++) {
      if (quoted && (t->s[c] == '"' || t->s[c] == '\\')) sb_putc(&b, '\\');
      sb_putc(&b, t->s[c]);
    }
  }
  sb_putc(&b, '"');
  pp_tok r = {NULL, 0, off, K_STR, 0, 0};
  if (pp_budget(x, 0, b.len, off)) r.s = arena_strndup(x->ar, b.s, b.len), r.len = (uint32_t)b.len;
  sb_free(&b);
  return r;
}

/* l ## r into *l: one valid token, or an error */
static bool pp_paste(pp_ex *x, pp_tok *l, const pp_tok *r, uint32_t off) {
  if (l->kind == K_PLACE) {
    uint16_t w = l->flags & F_WHITE;
    *l = *r, l->flags = (uint16_t)((r->flags & ~F_WHITE) | w);
    return true;
  }
  size_t n = (size_t)l->len + r->len;
  if (!r->s || !pp_budget(x, 0, n, off)) return false;
  char *s = arena_alloc(x->ar, n + 1);
  memcpy(s, l->s, l->len);
  memcpy(s + l->len, r->s, r->len);
  s[n] = 0;
  size_t pos = 0;
  bool badc = false;
  pp_tok t = pp_lex(s, n, &pos, &badc);
  if (t.kind == K_EOF || t.kind == K_BADQ || (t.flags & F_WHITE) || pos != n || badc)
    return pp_fail(x->e, off, "pasting \"%.*s\" and \"%.*s\" does not give a valid preprocessing token", PP_SPELL(l),
                   PP_SPELL(r)),
           false;
  t.off = l->off, t.flags = l->flags & F_WHITE;
  *l = t;
  return true;
}

static bool pp_expand(pp_ex *x, const pp_tok *t, int n, pp_vec *out);

static bool pp_append(pp_ex *x, pp_vec *res, const pp_vec *a, int from) {
  for (int k = from; k < a->n; k++)
    if (!pp_push(x, res, a->v[k])) return false;
  return true;
}

/* The right operand of ## at body[i] (a parameter, #parameter or a token)
 * pasted onto the last token of res; returns the index of the last body
 * token used, or -1. */
static int pp_paste_rhs(pp_ex *x, const pp_macro *mac, const pp_vec *args, int i, pp_vec *res, uint32_t off) {
  const pp_tok *r = &mac->body[i];
  if (res->n == 0 && !pp_push(x, res, (pp_tok){"", 0, off, K_PLACE, 0, 0})) return -1;
  pp_tok *l = &res->v[res->n - 1];
  if (r->kind == K_STROP) {
    pp_tok s = pp_stringize(x, &args[mac->body[i + 1].aux], off);
    return pp_paste(x, l, &s, off) ? i + 1 : -1;
  }
  if (r->kind != K_PARAM) {
    pp_tok c = *r;
    c.off = off;
    return pp_paste(x, l, &c, off) ? i : -1;
  }
  const pp_vec *a = &args[r->aux];
  if (mac->variadic && r->aux == mac->nparams - 1 && pp_is_punct(l, P_COMMA)) { /* GNU , ## __VA_ARGS__ */
    if (a->n == 0) res->n--;
    return pp_append(x, res, a, 0) ? i : -1;
  }
  if (a->n == 0) return i;
  return pp_paste(x, l, &a->v[0], off) && pp_append(x, res, a, 1) ? i : -1;
}

/* mac's body with its arguments substituted, # and ## applied */
static bool pp_substitute(pp_ex *x, const pp_macro *mac, const pp_vec *args, uint32_t off, pp_vec *res) {
  pp_vec *expanded = mac->nparams ? arena_alloc(x->ar, (size_t)mac->nparams * sizeof *expanded) : NULL;
  bool *done = mac->nparams ? arena_alloc(x->ar, (size_t)mac->nparams) : NULL;
  for (int i = 0; i < mac->nbody && !x->e->failed; i++) {
    const pp_tok *b = &mac->body[i];
    bool before_paste = i + 1 < mac->nbody && mac->body[i + 1].kind == K_PASTEOP;
    if (b->kind == K_STROP) {
      pp_push(x, res, pp_stringize(x, &args[mac->body[++i].aux], off));
    } else if (b->kind == K_PASTEOP) {
      i = pp_paste_rhs(x, mac, args, i + 1, res, off);
      if (i < 0) return false;
    } else if (b->kind == K_PARAM && before_paste) {
      const pp_vec *a = &args[b->aux];
      if (a->n == 0) pp_push(x, res, (pp_tok){"", 0, off, K_PLACE, 0, 0});
      else pp_append(x, res, a, 0);
    } else if (b->kind == K_PARAM) {
      if (!done[b->aux]) {
        done[b->aux] = true;
        if (!pp_expand(x, args[b->aux].v, args[b->aux].n, &expanded[b->aux])) return false;
      }
      pp_append(x, res, &expanded[b->aux], 0);
    } else {
      pp_tok c = *b;
      c.off = off;
      pp_push(x, res, c);
    }
  }
  int k = 0;
  for (int i = 0; i < res->n; i++)
    if (res->v[i].kind != K_PLACE) res->v[k++] = res->v[i];
  res->n = k;
  return !x->e->failed;
}

/* A macro name just taken: expands it (pushes its expansion to be read),
 * or leaves it for out when it is not a call. */
static bool pp_macro_name(pp_ex *x, const pp_macro *mac, const pp_tok *t, pp_vec *out) {
  if (pp_disabled(x, mac)) {
    pp_tok c = *t;
    c.flags |= F_NOEXPAND;
    return pp_push(x, out, c);
  }
  pp_vec *args = NULL;
  if (mac->fn) {
    const pp_tok *p = pp_peek(x);
    if (!p || !pp_is_punct(p, P_LPAREN)) return pp_push(x, out, *t);
    pp_take(x);
    if (pp_collect_args(x, mac, t, &args) < 0) return false;
  }
  pp_vec res = {0};
  if (!pp_substitute(x, mac, args, t->off, &res)) return false;
  pp_push_ctx(x, res.v, res.n, mac, false);
  return true;
}

/* Expands t[0..n) into out (a text, or an argument before substitution). */
static bool pp_expand(pp_ex *x, const pp_tok *t, int n, pp_vec *out) {
  if (++x->nest > PP_MAX_NEST)
    return pp_fail(x->e, x->call_off, "macro expansion nested too deeply (more than %d levels)", PP_MAX_NEST), false;
  pp_push_ctx(x, t, n, NULL, true);
  int base = x->nctx;
  const pp_tok *k;
  while (!x->e->failed && (k = pp_peek(x))) {
    bool in_text = x->nest == 1 && x->nctx == base;
    if (in_text) x->call_off = k->off;
    pp_take(x);
    const pp_macro *mac = k->kind == K_IDENT && !(k->flags & F_NOEXPAND) ? pp_lookup(x->M, k->s, k->len) : NULL;
    if (mac) pp_macro_name(x, mac, k, out);
    else if (in_text && pp_tok_is(k, "defined")) pp_defined(x, k, out);
    else if (k->kind == K_IDENT && k->len > 6 && memcmp(k->s, "__has_", 6) == 0) pp_has(x, k, out);
    else pp_push(x, out, *k);
  }
  while (x->nctx >= base) pp_pop_ctx(x);
  x->nest--;
  return !x->e->failed;
}

bool pp_expand_condition(const ppmacros *m, const char *text, size_t len, arena *ar, pp_err *e, pp_vec *out) {
  pp_ex x = {.M = m, .ar = ar, .e = e};
  strmap_init(&x.disabled);
  size_t pos = 0;
  bool badc = false;
  pp_vec text_toks = {0};
  pp_tok t;
  while (!e->failed && (t = pp_lex(text, len, &pos, &badc)).kind != K_EOF) pp_push(&x, &text_toks, t);
  if (badc) pp_fail(e, t.off, "unterminated comment");
  if (!e->failed) pp_expand(&x, text_toks.v, text_toks.n, out);
  strmap_free(&x.disabled);
  return !e->failed;
}
