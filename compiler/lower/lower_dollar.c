/* SPDX-License-Identifier: Apache-2.0 */
/* lower_dollar.c - $...$ expressions: offsets $T[..]$, $dim(T)$, $dim_p(T)$,
 * $size(T)$, $cnt(T)$ (docs/language.md), plus the evaluation of the C
 * expressions inside them and inside dimension sizes. */
#include "lower.h"

#include <string.h>

dnode *lw_resolve(lw *w, loc name, bool report) {
  return ty_resolve(&w->ty, w->src->text + name.b, name.e - name.b, name, report);
}

/* ---- variables in sizes, used inside a detour --------------------------------
 * The sizes of a type are read where the type is declared, so a type
 * declared before a #detour and sized by a local variable holds that
 * variable's name, which the outlined body cannot see: each such name is
 * replaced by the detour's capture of the variable, as if the body had
 * written it. */
typedef struct localizer {
  lw *w;
  loc at;
} localizer;

static const char *localize_atom(void *env, const char *text) {
  localizer *c = env;
  lw *w = c->w;
  ltok *t;
  int n = cx_tokenize(&w->cx, text, &t);
  sbuf b;
  sb_init(&b);
  const char *done = text;
  for (int i = 0; i < n; i++) {
    if (t[i].kind != T_IDENT || (i > 0 && t[i - 1].kind == T_PUNCT && (t[i - 1].punct == '.' || t[i - 1].punct == P_ARROW)))
      continue;
    sym *s = sc_find(&w->sc, t[i].s, t[i].len);
    if (!s || s->kind != SYM_VAR || s->depth == 0 || s->depth >= w->rg->depth) continue;
    sb_write(&b, done, (size_t)(t[i].s - done));
    sb_puts(&b, lw_capture_ref(w, w->rg, s, c->at));
    done = t[i].s + t[i].len;
  }
  const char *r = NULL;
  if (done != text) {
    sb_puts(&b, done);
    r = arena_strdup(w->ar, b.s);
  }
  sb_free(&b);
  return r;
}

ex *lw_localize(lw *w, ex *e, loc at) {
  if (!e || w->rg->kind == RG_HOST) return e;
  localizer c = {w, at};
  return ex_map_atoms(&w->ex, e, localize_atom, &c);
}

const char *lw_localize_text(lw *w, const char *text, loc at) {
  if (w->rg->kind == RG_HOST) return text;
  localizer c = {w, at};
  const char *r = localize_atom(&c, text);
  return r ? r : text;
}

static void push_tok(lw *w, ltok **v, int *n, int *cap, ltok t) {
  if (*n == *cap) {
    int nc = *cap * 2; /* lw_ltoks starts every vector with room */
    ltok *nv = arena_alloc(&w->scratch, sizeof *nv * (size_t)nc);
    if (*n) memcpy(nv, *v, sizeof *nv * (size_t)*n);
    *v = nv, *cap = nc;
  }
  (*v)[(*n)++] = t;
}

static void flatten(lw *w, items *list, ltok **v, int *n, int *cap, lw_names names) {
  item *prev = NULL;
  ITEMS_FOREACH(it, *list) {
    switch (it->kind) {
    case IT_TOK: {
      const char *rep = NULL;
      if (it->tk == T_IDENT && !(prev && prev->kind == IT_TOK && (prev->punct == '.' || prev->punct == P_ARROW)))
        rep = lw_ident_replacement(w, it, names);
      if (rep) {
        ltok *toks;
        int k = cx_tokenize(&w->cx, rep, &toks);
        for (int i = 0; i < k; i++) toks[i].loc = it->loc, push_tok(w, v, n, cap, toks[i]);
      } else {
        push_tok(w, v, n, cap, (ltok){.kind = it->tk, .punct = it->punct, .s = w->src->text + it->loc.b,
                                      .len = it->loc.e - it->loc.b, .loc = it->loc});
      }
      break;
    }
    case IT_GROUP: {
      char close = it->grp->open == '(' ? ')' : it->grp->open == '[' ? ']' : '}';
      push_tok(w, v, n, cap, (ltok){.kind = T_PUNCT, .punct = (uint16_t)it->grp->open,
                                    .s = w->src->text + it->loc.b, .len = 1, .loc = it->loc});
      flatten(w, &it->grp->body, v, n, cap, names);
      push_tok(w, v, n, cap, (ltok){.kind = T_PUNCT, .punct = (uint16_t)close,
                                    .s = w->src->text + it->grp->close.b, .len = 1, .loc = it->grp->close});
      break;
    }
    case IT_DOLLAR: {
      ex *e = lw_dollar(w, it->dol, names);
      if (!e) e = ex_const(&w->ex, 0);
      push_tok(w, v, n, cap, (ltok){.kind = LT_EX, .e = e, .loc = it->loc});
      break;
    }
    default:
      diag_error(w->dg, it->loc, "unexpected construct inside an expression");
      break;
    }
    prev = it;
  }
}

int lw_ltoks(lw *w, items *expr, ltok **out, lw_names names) {
  int n = 0, cap = expr->n + 4; /* most lists need no more: one token per item, two per group */
  ltok *v = arena_alloc(&w->scratch, sizeof *v * (size_t)cap);
  flatten(w, expr, &v, &n, &cap, names);
  *out = v;
  return n;
}

ex *lw_size_expr(lw *w, items *expr, loc where, const char *what) {
  ltok *t;
  arena_mark m = arena_save(&w->scratch);
  int n = lw_ltoks(w, expr, &t, LW_CAPTURE);
  int se = n ? cx_side_effect(&w->cx, t, n) : -1;
  if (n == 0) diag_error(w->dg, where, "empty %s", what);
  else if (se >= 0) diag_error(w->dg, t[se].loc, "a %s cannot have side effects", what);
  ex *e = n && se < 0 ? cx_parse(&w->cx, t, n) : NULL;
  arena_restore(&w->scratch, m);
  if (!e) return NULL;
  int64_t v;
  if (ex_has_failed_fold(e)) {
    diag_error(w->dg, where, "integer overflow in this %s: a constant part does not fit in 64 bits", what);
    return NULL;
  }
  if (ex_is_const(e, &v)) {
    if (v <= 0) {
      diag_error(w->dg, where, "%s must be positive (it is %lld)", what, (long long)v);
      return NULL;
    }
    return e;
  }
  return ex_with_range(&w->ex, e, 1, EX_INF);
}

/* Build the index tree of $T[...]...$ for node n. */
static bool build_index(lw *w, dnode *n, index_t *idx, int nidx, ty_index **out, lw_names names) {
  ty_index *v = arena_alloc(w->ar, sizeof *v * (size_t)(nidx ? nidx : 1));
  bool linear = nidx == 1 && !idx->sub;
  if (!linear && nidx != n->nkids) {
    loc at = loc_span(idx->loc, idx->loc);
    for (index_t *x = idx; x; x = x->next) at = loc_span(at, x->loc);
    if (n->nkids == 0)
      diag_error(w->dg, at, "index has more brackets than the dimension tree has levels: '%s' has no "
                 "sub-dimensions", n->path);
    else
      diag_error(w->dg, at, "'%s' has %d dimension%s but %d ind%s given", n->path, n->nkids,
                 n->nkids == 1 ? "" : "s", nidx, nidx == 1 ? "ex is" : "ices are");
    return false;
  }
  int j = 0;
  for (index_t *x = idx; x; x = x->next, j++) {
    dnode *c = linear ? n : n->kids[j];
    v[j].loc = x->loc;
    if (x->sub) {
      int ns = 0;
      for (index_t *y = x->sub; y; y = y->next) ns++;
      if (!build_index(w, c, x->sub, ns, &v[j].sub, names)) return false;
      v[j].nsub = ns;
      continue;
    }
    ltok *t;
    arena_mark m = arena_save(&w->scratch);
    int nt = lw_ltoks(w, &x->expr, &t, names);
    int se = cx_side_effect(&w->cx, t, nt);
    if (se >= 0) {
      diag_error(w->dg, t[se].loc, "an index cannot have side effects (the generated code may evaluate it "
                 "more than once)");
      arena_restore(&w->scratch, m);
      return false;
    }
    ex *e = cx_parse(&w->cx, t, nt);
    arena_restore(&w->scratch, m);
    if (!e) {
      if (nt == 0) diag_error(w->dg, x->loc, "empty index");
      return false; /* an error in its constant arithmetic was reported */
    }
    int64_t cv, sz;
    bool ksz = ex_is_const(c->size, &sz);
    if (ex_is_const(e, &cv)) {
      if (cv < 0 || (ksz && cv >= sz)) {
        diag_error(w->dg, x->loc, "index %lld is out of range for '%s' (size %lld)", (long long)cv, c->path,
                   (long long)sz);
        return false;
      }
    } else {
      e = ex_with_range(&w->ex, e, 0, ksz ? sz - 1 : EX_INF);
    }
    v[j].e = e;
  }
  *out = v;
  return true;
}

static bool parse_digits(const char *s, size_t n, int *digits, int *nd) {
  *nd = 0;
  size_t i = 0;
  while (i < n) {
    if (s[i] != '_' || i + 1 >= n) return false;
    i++;
    size_t st = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == st || *nd == 16) return false;
    digits[(*nd)++] = ty_path_index(s + st, i - st);
  }
  return true;
}

static ex *dollar_here(lw *w, dollar *d, lw_names names);

ex *lw_dollar(lw *w, dollar *d, lw_names names) {
  ex *e = dollar_here(w, d, names);
  return names == LW_CAPTURE ? lw_localize(w, e, d->loc) : e;
}

static ex *dollar_here(lw *w, dollar *d, lw_names names) {
  exctx *x = &w->ex;
  const char *name = w->src->text + d->name.b;
  size_t nl = d->name.e - d->name.b;
  switch (d->kind) {
  case DL_TID: {
    if (nl >= 3 && memcmp(name, "tid", 3) == 0) {
      ex *e = NULL;
      lw_tid(w, d, &e);
      return e;
    }
    diag_error(w->dg, d->name, "'$%.*s$' is not a Parray expression: an array type needs an index, as in "
               "'$%.*s[i]$'", (int)nl, name, (int)nl, name);
    return NULL;
  }
  case DL_FUNC: {
    dnode *n = lw_resolve(w, d->arg, true);
    if (!n) return NULL;
    if (str_eq(name, nl, "size") || str_eq(name, nl, "dim")) return n->size;
    if (str_eq(name, nl, "cnt")) {
      int c = ty_contiguous(&w->ty, n);
      if (c < 0)
        diag_warning(w->dg, d->loc, "contiguity of '%s' depends on sizes unknown at compile time; "
                     "$cnt$ is 0", n->path);
      return ex_const(x, c == 1);
    }
    if (nl > 3 && memcmp(name, "dim", 3) == 0) {
      int digits[16], nd;
      if (parse_digits(name + 3, nl - 3, digits, &nd)) {
        for (int k = 0; k < nd; k++) {
          if (digits[k] >= n->nkids) {
            diag_error(w->dg, d->name, "'%.*s' goes past the dimension tree of '%s'", (int)nl, name, n->path);
            return NULL;
          }
          n = n->kids[digits[k]];
        }
        return n->size;
      }
    }
    diag_error(w->dg, d->name, "unknown Parray function '%.*s' (expected dim, dim_P, size or cnt)", (int)nl, name);
    return NULL;
  }
  case DL_ACCESS: {
    dnode *n = lw_resolve(w, d->name, true);
    if (!n) return NULL;
    if (n->type && n->type->thread != TK_DATA) {
      diag_error(w->dg, d->name, "'%s' is a thread array type: use $tid$ / $tid_P$ for thread indices", n->path);
      return NULL;
    }
    ty_index *idx;
    if (!build_index(w, n, d->idx, d->nidx, &idx, names)) return NULL;
    ex *off = ty_offset_index(&w->ty, n, idx, d->nidx, d->loc);
    if (off && ex_has_failed_fold(off)) {
      diag_error(w->dg, d->loc, "integer overflow in this offset: a constant part does not fit in 64 bits");
      return NULL;
    }
    return off;
  }
  }
  return NULL;
}

char *lw_dollar_text(lw *w, dollar *d, lw_names names) {
  ex *e = lw_dollar(w, d, names);
  if (!e) return arena_strdup(w->ar, "0");
  bool wide = ex_needs_wide(e);
  char *s = ex_str(&w->ex, e, wide);
  int64_t v;
  if (ex_is_const(e, &v) || (e->k == EX_ATOM && e->simple && !wide)) return s;
  size_t n = strlen(s);
  char *p = arena_alloc(w->ar, n + 3);
  p[0] = '(';
  memcpy(p + 1, s, n);
  p[n + 1] = ')';
  return p;
}
