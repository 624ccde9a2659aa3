/* SPDX-License-Identifier: Apache-2.0 */
/* lower_dollar.c - expressions and names in the code being lowered: $...$
 * expressions (offsets $T[..]$, $dim(T)$, $dim_p(T)$, $size(T)$, $cnt(T)$,
 * $tid$; docs/language.md), the evaluation of the C expressions inside them
 * and inside dimension sizes, what an identifier stands for here (an
 * #insert's argument, a renamed #global, a detour's capture), item ranges
 * rendered as C text with all that substituted, and the captures of a
 * detour (by reference for pthd, by value for mpi and cuda; a pointer there
 * is an error that names it). These call each other ($A[i]$ renders i, a
 * capture's bounds render their own names): one file. */
#include "lower.h"
#include "lower_dollar.h"
#include "lower_localtypes.h"

#include "target.h"

#include <string.h>


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
    if (t[i].kind != T_IDENT ||
        (i > 0 && t[i - 1].kind == T_PUNCT && (t[i - 1].punct == '.' || t[i - 1].punct == P_ARROW)))
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
    r = arena_strdup(w->in.ar, b.s);
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
        push_tok(w, v, n, cap, (ltok){.kind = it->tk, .punct = it->punct, .s = w->in.src->text + it->loc.b,
                                      .len = it->loc.e - it->loc.b, .loc = it->loc});
      }
      break;
    }
    case IT_GROUP: {
      char close = it->grp->open == '(' ? ')' : it->grp->open == '[' ? ']' : '}';
      push_tok(w, v, n, cap, (ltok){.kind = T_PUNCT, .punct = (uint16_t)it->grp->open,
                                    .s = w->in.src->text + it->loc.b, .len = 1, .loc = it->loc});
      flatten(w, &it->grp->body, v, n, cap, names);
      push_tok(w, v, n, cap, (ltok){.kind = T_PUNCT, .punct = (uint16_t)close,
                                    .s = w->in.src->text + it->grp->close.b, .len = 1, .loc = it->grp->close});
      break;
    }
    case IT_DOLLAR: {
      ex *e = lw_dollar(w, it->dol, names);
      if (!e) e = ex_const(&w->ex, 0);
      push_tok(w, v, n, cap, (ltok){.kind = LT_EX, .e = e, .loc = it->loc});
      break;
    }
    default:
      diag_error(w->in.dg, it->loc, "unexpected construct inside an expression");
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
  if (n == 0) diag_error(w->in.dg, where, "empty %s", what);
  else if (se >= 0) diag_error(w->in.dg, t[se].loc, "a %s cannot have side effects", what);
  ex *e = n && se < 0 ? cx_parse(&w->cx, t, n) : NULL;
  arena_restore(&w->scratch, m);
  if (!e) return NULL;
  int64_t v;
  if (ex_has_failed_fold(e)) {
    diag_error(w->in.dg, where, "integer overflow in this %s: a constant part does not fit in 64 bits", what);
    return NULL;
  }
  if (ex_is_const(e, &v)) {
    if (v <= 0) {
      diag_error(w->in.dg, where, "%s must be positive (it is %lld)", what, (long long)v);
      return NULL;
    }
    return e;
  }
  return ex_with_range(&w->ex, e, 1, EX_INF);
}

/* Build the index tree of $T[...]...$ for node n. */
static bool build_index(lw *w, dnode *n, index_t *idx, int nidx, ty_index **out, lw_names names) {
  ty_index *v = arena_alloc(w->in.ar, sizeof *v * (size_t)(nidx ? nidx : 1));
  bool linear = nidx == 1 && !idx->sub;
  if (!linear && nidx != n->nkids) {
    loc at = loc_span(idx->loc, idx->loc);
    for (index_t *x = idx; x; x = x->next) at = loc_span(at, x->loc);
    if (n->nkids == 0)
      diag_error(w->in.dg, at, "index has more brackets than the dimension tree has levels: '%s' has no "
                 "sub-dimensions", n->path);
    else
      diag_error(w->in.dg, at, "'%s' has %d dimension%s but %d ind%s given", n->path, n->nkids,
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
      diag_error(w->in.dg, t[se].loc, "an index cannot have side effects (the generated code may evaluate it "
                 "more than once)");
      arena_restore(&w->scratch, m);
      return false;
    }
    ex *e = cx_parse(&w->cx, t, nt);
    arena_restore(&w->scratch, m);
    if (!e) {
      if (nt == 0) diag_error(w->in.dg, x->loc, "empty index");
      return false; /* an error in its constant arithmetic was reported */
    }
    int64_t cv, sz;
    bool ksz = ex_is_const(c->size, &sz);
    if (ex_is_const(e, &cv)) {
      if (cv < 0 || (ksz && cv >= sz)) {
        diag_error(w->in.dg, x->loc, "index %lld is out of range for '%s' (size %lld)", (long long)cv, c->path,
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
  const char *name = w->in.src->text + d->name.b;
  size_t nl = d->name.e - d->name.b;
  switch (d->kind) {
  case DL_TID: {
    if (nl >= 3 && memcmp(name, "tid", 3) == 0) {
      ex *e = NULL;
      lw_tid(w, d, &e);
      return e;
    }
    diag_error(w->in.dg, d->name, "'$%.*s$' is not a Parray expression: an array type needs an index, as in "
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
        diag_warning(w->in.dg, d->loc, "contiguity of '%s' depends on sizes unknown at compile time; "
                     "$cnt$ is 0", n->path);
      return ex_const(x, c == 1);
    }
    if (nl > 3 && memcmp(name, "dim", 3) == 0) {
      int digits[16], nd;
      if (parse_digits(name + 3, nl - 3, digits, &nd)) {
        for (int k = 0; k < nd; k++) {
          if (digits[k] >= n->nkids) {
            diag_error(w->in.dg, d->name, "'%.*s' goes past the dimension tree of '%s'", (int)nl, name, n->path);
            return NULL;
          }
          n = n->kids[digits[k]];
        }
        return n->size;
      }
    }
    diag_error(w->in.dg, d->name, "unknown Parray function '%.*s' (expected dim, dim_P, size or cnt)", (int)nl, name);
    return NULL;
  }
  case DL_ACCESS: {
    dnode *n = lw_resolve(w, d->name, true);
    if (!n) return NULL;
    if (n->type && n->type->thread != TK_DATA) {
      diag_error(w->in.dg, d->name, "'%s' is a thread array type: use $tid$ / $tid_P$ for thread indices", n->path);
      return NULL;
    }
    ty_index *idx;
    if (!build_index(w, n, d->idx, d->nidx, &idx, names)) return NULL;
    ex *off = ty_offset_index(&w->ty, n, idx, d->nidx, d->loc);
    if (off && ex_has_failed_fold(off)) {
      diag_error(w->in.dg, d->loc, "integer overflow in this offset: a constant part does not fit in 64 bits");
      return NULL;
    }
    return off;
  }
  }
  return NULL;
}

char *lw_dollar_text(lw *w, dollar *d, lw_names names) {
  ex *e = lw_dollar(w, d, names);
  if (!e) return arena_strdup(w->in.ar, "0");
  bool wide = ex_needs_wide(e);
  char *s = ex_str(&w->ex, e, wide);
  int64_t v;
  if (ex_is_const(e, &v) || (e->k == EX_ATOM && e->simple && !wide)) return s;
  size_t n = strlen(s);
  char *p = arena_alloc(w->in.ar, n + 3);
  p[0] = '(';
  memcpy(p + 1, s, n);
  p[n + 1] = ')';
  return p;
}

static bool is_ident(const item *it) { return it && it->kind == IT_TOK && it->tk == T_IDENT; }
static bool is_punct(const item *it, int p) { return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p; }

/* ---- identifier replacement ------------------------------------------------ */

const char *lw_ident_replacement(lw *w, item *it, lw_names names) {
  const char *name = w->in.src->text + it->loc.b;
  size_t len = it->loc.e - it->loc.b;
  for (instance *in = w->inst; in; in = in->outer) {
    const char *r = strmap_get(&in->renames, name, len);
    if (r) return r;
  }
  for (int i = 0; i < w->ndecl_names; i++)
    if (w->decl_names[i] == it) return NULL;
  if (w->inst) {
    /* a name declared inside an instance (a local, a kernel parameter, a
     * nested instance's names) shadows the parameters of that instance and
     * of every instance around it */
    sym *s = sc_find(&w->sc, name, len);
    for (instance *in = w->inst; in; in = in->outer) {
      if (s && s->depth >= in->depth) break;
      const char *r = strmap_get(&in->vals, name, len);
      /* used in a detour inside the instance: the argument's variables are
       * the enclosing code's, captured like the body's own uses */
      if (r && (w->rg != in->rg || names == LW_AS_WRITTEN)) {
        r = strmap_get(&in->raw, name, len);
        if (names == LW_CAPTURE) r = lw_localize_text(w, r, it->loc);
      }
      if (r) return r;
    }
  }
  /* __func__ in a body that moves to a function of its own: the name of the
   * function it was written in */
  if (w->rg->kind != RG_HOST && w->fn_name && str_eq(name, len, "__func__") && !sc_find(&w->sc, name, len))
    return arena_printf(w->in.ar, "\"%s\"", w->fn_name);
  if (w->rg->kind != RG_HOST && names == LW_CAPTURE) {
    sym *s = sc_find(&w->sc, name, len);
    if (s && s->kind == SYM_VAR && s->depth > 0 && s->depth < w->rg->depth)
      return lw_capture_ref(w, w->rg, s, it->loc);
  }
  return NULL;
}

/* Is the identifier a member name (after . or ->)? */
static bool after_member_op(item *prev) { return is_punct(prev, '.') || is_punct(prev, P_ARROW); }

/* ---- rendering item ranges to text ---------------------------------------- */

typedef struct render {
  lw *w;
  sbuf out;
  uint32_t cur;
  item *prev;
  lw_subst *s;
} render;

static bool kept(const lw_subst *s, const item *it) {
  for (int i = 0; s && i < s->nkeep; i++)
    if (s->keep[i] == it) return true;
  return false;
}

static void render_item(render *r, item *it) {
  lw *w = r->w;
  lw_subst *s = r->s;
  lw_names names = s ? s->names : LW_CAPTURE;
  const char *rep = NULL;
  if (s && it == s->sub) rep = s->sub_text;
  else if (s && it == s->skip) rep = "";
  else if (kept(s, it)) rep = NULL;
  else if (it->kind == IT_DOLLAR) rep = lw_dollar_text(w, it->dol, names);
  else if (is_ident(it) && !after_member_op(r->prev)) rep = lw_ident_replacement(w, it, names);
  else if (it->kind == IT_DIR) {
    diag_error(w->in.dg, it->dir->kw, "a directive cannot appear inside an expression");
    rep = "";
  }
  if (it->kind == IT_GROUP && !rep) {
    r->prev = it;
    ITEMS_FOREACH(k, it->grp->body) render_item(r, k);
    r->prev = it;
    return;
  }
  if (rep) {
    sb_write(&r->out, w->in.src->text + r->cur, it->loc.b - r->cur);
    sb_puts(&r->out, rep);
    r->cur = it->loc.e;
    if (s && it == s->sub) s->sub_pos = (int)r->out.len;
  }
  r->prev = it;
}

char *lw_items_text(lw *w, item *first, item *last) { return lw_items_subst(w, first, last, NULL); }

char *lw_items_subst(lw *w, item *first, item *last, lw_subst *s) {
  if (s) s->sub_pos = -1;
  if (!first) return arena_strdup(w->in.ar, "");
  render r = {.w = w, .cur = first->loc.b, .s = s};
  char buf[1024];
  sb_init_in(&r.out, buf, sizeof buf);
  for (item *it = first; it; it = it->next) {
    render_item(&r, it);
    if (it == last) break;
  }
  uint32_t end = last ? last->loc.e : first->loc.e;
  if (end > r.cur) sb_write(&r.out, w->in.src->text + r.cur, end - r.cur);
  char *text = arena_strdup(w->in.ar, r.out.s ? r.out.s : "");
  sb_free(&r.out);
  return text;
}

char *lw_list_text(lw *w, items *list) { return lw_items_text(w, list->first, list->last); }

/* ---- declarations of captured variables ---------------------------------- */

static bool storage_word(const char *s, size_t n) {
  static const char *const ws[] = {
      "typedef",    "extern",       "static",     "auto",       "register",     "_Thread_local", "__thread",
      "constexpr",  "thread_local", "inline",     "__inline",   "__inline__",   "_Noreturn",     "__forceinline__",
      "__device__", "__host__",     "__global__", "__shared__", "__constant__", "__managed__",   NULL};
  for (const char *const *p = ws; *p; p++)
    if (str_eq(s, n, *p)) return true;
  return false;
}

/* the declaration of a member that holds the capture of s in this mode */
plan_decl lw_field_decl(lw *w, sym *s, cap_mode mode) {
  const char *spec, *pre, *post;
  if (s->type_spec) {
    /* declared by the lowering: a pattern with '@' for the name */
    spec = s->type_spec;
    const char *at = strchr(s->type_decl, '@');
    if (!at) return (plan_decl){arena_printf(w->in.ar, "%s ", spec), ""};
    pre = arena_strndup(w->in.ar, s->type_decl, (size_t)(at - s->type_decl)), post = at + 1;
  } else {
    sbuf b;
    sb_init(&b);
    for (item *it = s->decl.spec_first; it; it = it->next) {
      if (!(it->kind == IT_TOK && it->tk == T_IDENT &&
            storage_word(w->in.src->text + it->loc.b, it->loc.e - it->loc.b))) {
        if (b.len) sb_putc(&b, ' ');
        sb_puts(&b, lw_items_text(w, it, it));
      }
      if (it == s->decl.spec_last) break;
    }
    spec = arena_strdup(w->in.ar, b.s ? b.s : "int");
    sb_free(&b);
    bool param_array = s->is_param && s->decl.array_suffix;
    lw_subst sub = {
        .sub = s->decl.name, .sub_text = param_array ? "*" : "", .skip = param_array ? s->decl.array_suffix : NULL};
    char *decl = lw_items_subst(w, s->decl.decl_first, s->decl.decl_last, &sub);
    if (sub.sub_pos < 0) return (plan_decl){arena_printf(w->in.ar, "%s ", spec), ""};
    pre = arena_strndup(w->in.ar, decl, (size_t)sub.sub_pos), post = decl + sub.sub_pos;
  }
  /* apply the mode to the declarator */
  if (mode == CAP_DECAY) {
    /* drop the array's first bound: "[3][4]" -> "(*f)[4]" */
    const char *br = post;
    while (*br == ' ') br++;
    if (*br == '[') {
      int depth = 0;
      const char *e = br;
      for (; *e; e++) {
        if (*e == '[') depth++;
        else if (*e == ']' && --depth == 0) break;
      }
      return (plan_decl){arena_printf(w->in.ar, "%s %s(*", spec, pre), arena_printf(w->in.ar, ")%s", *e ? e + 1 : "")};
    }
  }
  if (mode == CAP_PTR || mode == CAP_DECAY)
    return (plan_decl){arena_printf(w->in.ar, "%s %s(*", spec, pre), arena_printf(w->in.ar, ")%s", post)};
  return (plan_decl){arena_printf(w->in.ar, "%s %s", spec, pre), post};
}

static const char *sym_name(lw *w, sym *s) { return arena_strndup(w->in.ar, s->name, s->len); }

/* how the body refers to a capture: the emitter names what it defines */
static const char *capture_use(lw *w, region *r, capture *c) {
  return c->use ? c->use : emit_capture_ref(&w->tg.em, lw_kind_of(r), c->mode, c->field);
}

/* A variable-length array (int v[n][k]) captured as a pointer: its inner
 * bounds are not constants, so the capture struct at file scope holds a
 * void pointer and each use in the body casts it to the array's type with
 * the bounds as the body sees them (captured too): ((int (*)[k'])p). NULL
 * when s is no such array. */
static const char *vla_use(lw *w, region *r, sym *s, const char *ref) {
  if (!s->has_decl || !s->decl.name || s->is_param) return NULL;
  sbuf b;
  sb_init(&b);
  bool first = true, variable = false;
  for (item *it = s->decl.name->next; it && it->kind == IT_GROUP && it->grp->open == '['; it = it->next) {
    if (first) {
      first = false;
      continue;
    }
    for (item *t = it->grp->body.first; t; t = t->next) {
      sym *v = t->kind == IT_TOK && t->tk == T_IDENT ? sc_find(&w->sc, w->in.src->text + t->loc.b, t->loc.e - t->loc.b)
                                                     : NULL;
      if (v && v->kind == SYM_VAR) variable = true;
      if (t->kind != IT_TOK) variable = true;
    }
    sb_puts(&b, lw_items_text(w, it, it));
    if (it == s->decl.decl_last) break;
  }
  const char *r2 = NULL;
  if (variable && b.s) {
    sbuf sp;
    sb_init(&sp);
    for (item *it = s->decl.spec_first; it; it = it->next) {
      if (sp.len) sb_putc(&sp, ' ');
      sb_puts(&sp, lw_items_text(w, it, it));
      if (it == s->decl.spec_last) break;
    }
    r2 = arena_printf(w->in.ar, "((%s (*)%s)%s)", sp.s ? sp.s : "int", b.s, ref);
    sb_free(&sp);
  }
  sb_free(&b);
  (void)r;
  return r2;
}

/* how s's type is deduced rather than written ("auto", "decltype", "typeof"; NULL: written) */
static const char *deduced_type(lw *w, const sym *s) {
  if (!s->has_decl || !s->decl.spec_first) return NULL;
  bool typed = false;
  const char *how = NULL;
  for (item *it = s->decl.spec_first; it; it = it->next) {
    if (it->kind == IT_TOK && it->tk == T_IDENT) {
      const char *t = w->in.src->text + it->loc.b;
      size_t n = it->loc.e - it->loc.b;
      if (str_eq(t, n, "auto") || str_eq(t, n, "__auto_type")) how = how ? how : "auto";
      else if (str_eq(t, n, "decltype")) how = "decltype";
      else if (str_eq(t, n, "typeof") || str_eq(t, n, "__typeof__") || str_eq(t, n, "__typeof")) how = "typeof";
      else if (!storage_word(t, n) && !str_eq(t, n, "const") && !str_eq(t, n, "volatile")) typed = true;
    }
    if (it == s->decl.spec_last) break;
  }
  if (how && !strcmp(how, "auto") && typed) return NULL; /* auto int x: C's storage class */
  return how;
}

/* the mode of a capture of s by a detour of r's kind; reports what cannot be captured */
static cap_mode capture_mode(lw *w, region *r, sym *s, loc use, const char *nm) {
  /* a deduced type has no name at file scope, where the captures are declared
   * (pthd: typeof travels through typeof_use) */
  const char *how = s->kind == SYM_VAR ? deduced_type(w, s) : NULL;
  if (how && (r->kind != RG_PTHD || strcmp(how, "typeof") != 0)) {
    diag_error(w->in.dg, use, "'%s' is declared with %s: a detour's body moves to a function of its own, where the "
               "captured variables' types must be written out; declare '%s' with its type", nm, how, nm);
    diag_note(w->in.dg, s->decl.name->loc, "declared here");
    return CAP_ERROR;
  }
  if (r->kind == RG_PTHD) {
    if (s->decl.is_register && s->has_decl) {
      diag_error(w->in.dg, use, "'%s' is a register variable: a pthd detour shares variables by reference and cannot "
                 "take its address", nm);
      return CAP_ERROR;
    }
    return s->is_array ? CAP_DECAY : CAP_PTR;
  }
  if (r->kind == RG_MPI) {
    if (s->created && s->created->type->mpi_ref) return CAP_HANDLE;
    if (s->is_pointer || s->is_array) {
      diag_error(w->in.dg, use, "'%s' is a host %s captured by an mpi detour; processes do not share memory: move the "
                 "data with #copy to a distributed array", nm, s->is_array ? "array" : "pointer");
      return CAP_ERROR;
    }
    return CAP_VALUE;
  }
  if (s->is_pointer || s->is_array) {
    diag_error(w->in.dg, use, "host variable '%s' is used in the body of a cuda detour but is not a parameter of "
               "'%s'; pass it through the detour's parameters", nm, r->thread->name);
    return CAP_ERROR;
  }
  return CAP_VALUE; /* Decision: scalars are passed by value automatically */
}

/* s's type names a local type (cell, struct pt), which the body takes
 * along but the capture struct at file scope cannot name */
static bool local_typed(lw *w, const sym *s) {
  if (!s->has_decl || !s->decl.spec_first) return false;
  for (item *it = s->decl.spec_first; it; it = it->next) {
    if (it->kind == IT_TOK && it->tk == T_IDENT &&
        lw_local_type_named(w, w->in.src->text + it->loc.b, it->loc.e - it->loc.b))
      return true;
    if (it == s->decl.spec_last) break;
  }
  return false;
}

/* A scalar declared with typeof (__typeof__(n) m) captured by reference:
 * the type names the enclosing function's variables, which file scope
 * does not see, so the capture struct holds a void pointer and each use
 * in the body is (*(typeof(n') *)p), n' as the body sees n. NULL when s is
 * no such variable. */
static const char *typeof_use(lw *w, sym *s, const char *ref) {
  if (!s->has_decl || !s->decl.spec_first || s->decl.decl_first != s->decl.name || s->decl.decl_last != s->decl.name)
    return NULL;
  const char *how = deduced_type(w, s);
  if (!how || strcmp(how, "typeof") != 0) return NULL;
  sbuf sp;
  sb_init(&sp);
  for (item *it = s->decl.spec_first; it; it = it->next) {
    bool storage =
        it->kind == IT_TOK && it->tk == T_IDENT && storage_word(w->in.src->text + it->loc.b, it->loc.e - it->loc.b);
    if (!storage) {
      if (sp.len) sb_putc(&sp, ' ');
      sb_puts(&sp, lw_items_text(w, it, it));
    }
    if (it == s->decl.spec_last) break;
  }
  const char *r = arena_printf(w->in.ar, "(*(%s *)%s)", sp.s ? sp.s : "int", ref);
  sb_free(&sp);
  return r;
}

const char *lw_capture_ref(lw *w, region *r, sym *s, loc use) {
  const char *priv = lw_red_private(r, s); /* the thread's own copy */
  if (priv) return priv;
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].s == s) return capture_use(w, r, &r->caps[i]);
  capture c = {.s = s, .field = sym_name(w, s)};
  c.mode = capture_mode(w, r, s, use, c.field);
  if (c.mode == CAP_VALUE && r->kind == RG_MPI && local_typed(w, s)) c.local = true;
  /* into a kernel, whose parameters (at file scope) cannot name the enclosing function's type: as bytes */
  if (c.mode == CAP_VALUE && r->kind == RG_CUDA && local_typed(w, s)) c.bytes = true;
  if (r->ncaps == r->capcaps) {
    r->capcaps = r->capcaps ? r->capcaps * 2 : 8;
    capture *nc = arena_alloc(w->in.ar, sizeof *nc * (size_t)r->capcaps);
    if (r->ncaps) memcpy(nc, r->caps, sizeof *nc * (size_t)r->ncaps);
    r->caps = nc;
  }
  int at = r->ncaps;
  r->caps[r->ncaps++] = c;
  /* its bounds or typeof may capture more: r->caps may move */
  const char *raw = emit_capture_ref(&w->tg.em, lw_kind_of(r), CAP_DECAY, c.field), *via = NULL;
  if (c.mode == CAP_DECAY && r->kind == RG_PTHD) via = vla_use(w, r, s, raw);
  else if (c.mode == CAP_PTR && r->kind == RG_PTHD) via = typeof_use(w, s, raw);
  if (!via && (c.mode == CAP_PTR || c.mode == CAP_DECAY) && r->kind == RG_PTHD && local_typed(w, s)) {
    plan_decl t = lw_field_decl(w, s, c.mode); /* its type is the field's declarator without the name */
    via = arena_printf(w->in.ar, c.mode == CAP_PTR ? "(*(%s%s)%s)" : "((%s%s)%s)", t.pre, t.post, raw);
  }
  if (c.bytes) { /* the body declares the type again: its bytes read as that type */
    plan_decl t = lw_field_decl(w, s, CAP_VALUE);
    via = arena_printf(w->in.ar, "(*(%s%s*)%s.b)", t.pre, t.post, c.field);
  }
  if (via) r->caps[at].use = via;
  return capture_use(w, r, &r->caps[at]);
}

/* The value a capture starts from, as written in the enclosing code (a
 * distributed array: its variable). */
const char *lw_capture_init(lw *w, region *r, capture *c) {
  region *o = r->outer;
  sym *s = c->s;
  if (o->kind != RG_HOST && s->depth < o->depth) {
    /* captured by the enclosing detour too */
    if (c->mode == CAP_HANDLE)
      diag_error(w->in.dg, r->at, "a distributed array cannot be passed through nested detours");
    else return lw_capture_ref(w, o, s, r->at);
  }
  return sym_name(w, s);
}

/* ---- $tid$ ------------------------------------------------------------------ */

void lw_tid(lw *w, dollar *d, ex **out) {
  *out = NULL;
  region *r = lw_thread_region(w);
  if (!r) {
    diag_error(w->in.dg, d->loc, "$%.*s$ used outside a detour: it is the index of a thread in a thread array",
               (int)(d->name.e - d->name.b), w->in.src->text + d->name.b);
    return;
  }
  dnode *p = r->thread->root;
  const char *s = w->in.src->text + d->name.b + 3;
  const char *e = w->in.src->text + d->name.e;
  while (s < e) {
    if (*s != '_' || s + 1 >= e || s[1] < '0' || s[1] > '9') {
      diag_error(w->in.dg, d->name, "'%.*s' is not a thread index: use $tid$ or $tid_P$ with P a path such as 0 or 1_0",
                 (int)(d->name.e - d->name.b), w->in.src->text + d->name.b);
      return;
    }
    const char *ds = ++s;
    while (s < e && *s >= '0' && *s <= '9') s++;
    int k = ty_path_index(ds, (size_t)(s - ds));
    if (k >= p->nkids) {
      diag_error(w->in.dg, d->name, "'%.*s' goes past the dimension tree of thread array '%s'",
                 (int)(d->name.e - d->name.b), w->in.src->text + d->name.b, r->thread->name);
      return;
    }
    p = p->kids[k];
  }
  if (r->kind == RG_CUDA) {
    *out = tgt_cuda_tid_from(&w->ty, r->thread, p, lw_block_index(r));
    return;
  }
  int64_t sz;
  ex *tid = ex_atom(&w->ex, PLAN_THREAD_INDEX, 0, ex_is_const(r->thread->root->size, &sz) ? sz - 1 : EX_INF);
  *out = p == r->thread->root ? tid : ty_tid_digit(&w->ty, p, tid);
}
