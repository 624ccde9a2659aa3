/* SPDX-License-Identifier: Apache-2.0 */
/* lower.c - the walker: goes through the items of the file in order, keeps
 * the C scopes up to date with every declaration it reads (file scope,
 * function parameters, block locals, for-loop variables), copies C text
 * through unchanged and hands each Parray construct to its lowering. */
#include "lower.h"

#include <string.h>

const char *lw_text(lw *w, loc l) { return arena_strndup(w->ar, w->src->text + l.b, l.e - l.b); }

static bool is_ident(const item *it) { return it && it->kind == IT_TOK && it->tk == T_IDENT; }
static bool is_punct(const item *it, int p) { return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p; }
static bool word_is(lw *w, const item *it, const char *s) {
  return is_ident(it) && str_eq(w->src->text + it->loc.b, it->loc.e - it->loc.b, s);
}

/* ---- symbols from declarations ------------------------------------------- */

static void add_decl(lw *w, cd_decl *d, bool is_param) {
  const char *name = w->src->text + d->name->loc.b;
  size_t len = d->name->loc.e - d->name->loc.b;
  sym_kind k = d->is_typedef ? SYM_TYPEDEF : d->is_function ? SYM_FUNC : SYM_VAR;
  sym *s = sc_add(&w->sc, k, name, len);
  s->decl = *d, s->has_decl = true, s->is_param = is_param;
  s->is_pointer = d->is_pointer, s->is_array = d->is_array;
  s->region = w->rg->id;
}

static void add_stmt_decls(lw *w, cd_stmt *st) {
  for (int i = 0; i < st->ndecls; i++) add_decl(w, &st->decls[i], false);
  if (st->enum_body) {
    item **en;
    int n = cd_enumerators(&w->cd, st->enum_body, &en);
    for (int i = 0; i < n; i++) {
      sym *s = sc_add(&w->sc, SYM_ENUMC, w->src->text + en[i]->loc.b, en[i]->loc.e - en[i]->loc.b);
      s->region = w->rg->id;
    }
  }
}

void lw_declare_var(lw *w, const char *name, size_t len, const char *spec, const char *decl, bool is_pointer) {
  sym *s = sc_add(&w->sc, SYM_VAR, name, len);
  s->type_spec = spec, s->type_decl = decl, s->is_pointer = is_pointer, s->region = w->rg->id;
}

static bool cd_is_typedef(void *env, const char *name, size_t len) {
  lw *w = env;
  sym *s = sc_find(&w->sc, name, len);
  if (s) return s->kind == SYM_TYPEDEF;
  /* a subprogram's value parameter whose argument is a type name (not parenthesized) */
  const char *v = w->inst ? strmap_get(&w->inst->vals, name, len) : NULL;
  if (v) return *v != '(';
  return w->hdr && strmap_get(&w->hdr->typedefs, name, len) != NULL;
}

bool lw_is_type_name(lw *w, const char *s, size_t n) { return lw_is_type_word(w, s, n) || cd_is_typedef(w, s, n); }

static bool cd_is_type_macro(void *env, const char *name, size_t len) {
  lw *w = env;
  if (!w->hdr) return false;
  macro *m = strmap_get(&w->hdr->macros, name, len);
  if (!m || m->funclike || !m->body) return false;
  /* the first word of the expansion is a type word or typedef name */
  const char *b = m->body;
  while (*b == ' ' || *b == '\t' || *b == '(') b++;
  size_t n = 0;
  while ((b[n] >= 'a' && b[n] <= 'z') || (b[n] >= 'A' && b[n] <= 'Z') || (b[n] >= '0' && b[n] <= '9') || b[n] == '_')
    n++;
  if (!n || str_eq(name, len, b)) return false;
  return lw_is_type_word(w, b, n) || strmap_get(&w->hdr->typedefs, b, n) != NULL;
}

bool lw_is_type_word_cb(void *env, const char *name, size_t len) {
  lw *w = env;
  return lw_is_type_name(w, name, len) || lw_is_type_word(w, name, len);
}

const char *lw_macro_body_cb(void *env, const char *name, size_t len) {
  lw *w = env;
  macro *m = w->hdr ? strmap_get(&w->hdr->macros, name, len) : NULL;
  return m && !m->funclike ? m->body : NULL;
}

bool lw_is_type_word(lw *w, const char *s, size_t n) {
  (void)w;
  static const char *const tw[] = {"void", "char", "short", "int", "long", "float", "double", "signed",
                                   "unsigned", "_Bool", "struct", "union", "enum", "const", "volatile", NULL};
  for (const char *const *p = tw; *p; p++)
    if (str_eq(s, n, *p)) return true;
  return false;
}

/* ---- identifier replacement ------------------------------------------------ */

const char *lw_ident_replacement(lw *w, item *it, lw_names names) {
  const char *name = w->src->text + it->loc.b;
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
    return arena_printf(w->ar, "\"%s\"", w->fn_name);
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
    diag_error(w->dg, it->dir->kw, "a directive cannot appear inside an expression");
    rep = "";
  }
  if (it->kind == IT_GROUP && !rep) {
    r->prev = it;
    ITEMS_FOREACH(k, it->grp->body) render_item(r, k);
    r->prev = it;
    return;
  }
  if (rep) {
    sb_write(&r->out, w->src->text + r->cur, it->loc.b - r->cur);
    sb_puts(&r->out, rep);
    r->cur = it->loc.e;
    if (s && it == s->sub) s->sub_pos = (int)r->out.len;
  }
  r->prev = it;
}

char *lw_items_text(lw *w, item *first, item *last) { return lw_items_subst(w, first, last, NULL); }

char *lw_items_subst(lw *w, item *first, item *last, lw_subst *s) {
  if (s) s->sub_pos = -1;
  if (!first) return arena_strdup(w->ar, "");
  render r = {.w = w, .cur = first->loc.b, .s = s};
  char buf[1024];
  sb_init_in(&r.out, buf, sizeof buf);
  for (item *it = first; it; it = it->next) {
    render_item(&r, it);
    if (it == last) break;
  }
  uint32_t end = last ? last->loc.e : first->loc.e;
  if (end > r.cur) sb_write(&r.out, w->src->text + r.cur, end - r.cur);
  char *text = arena_strdup(w->ar, r.out.s ? r.out.s : "");
  sb_free(&r.out);
  return text;
}

char *lw_list_text(lw *w, items *list) { return lw_items_text(w, list->first, list->last); }

int lw_split_args(lw *w, items *args, items **out) {
  int n = 0, cap = 4;
  items *v = arena_alloc(w->ar, sizeof *v * (size_t)cap);
  items cur = items_empty();
  for (item *it = args->first, *next; it; it = next) {
    next = it->next;
    if (is_punct(it, ',')) {
      if (n == cap) {
        items *nv = arena_alloc(w->ar, sizeof *nv * (size_t)cap * 2);
        memcpy(nv, v, sizeof *v * (size_t)n);
        v = nv, cap *= 2;
      }
      v[n++] = cur;
      cur = items_empty();
      continue;
    }
    /* items_add relinks; keep the original chain intact by copying */
    item *c = arena_alloc(w->ar, sizeof *c);
    *c = *it;
    cur = items_add(cur, c);
  }
  if (cur.n || n) {
    if (n == cap) {
      items *nv = arena_alloc(w->ar, sizeof *nv * (size_t)cap * 2);
      memcpy(nv, v, sizeof *v * (size_t)n);
      v = nv;
    }
    v[n++] = cur;
  }
  *out = v;
  return n;
}

plan_site lw_site(lw *w, loc at, const char *what) {
  return (plan_site){at.b, what, !w->rg || w->rg->kind != RG_CUDA};
}

char *lw_comment(lw *w, loc l) {
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  sb_puts(&b, "/* ");
  bool sp = false;
  for (uint32_t i = l.b; i < l.e; i++) {
    char c = w->src->text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      sp = true;
      continue;
    }
    if (sp && b.len > 3) sb_putc(&b, ' ');
    sp = false;
    if (c == '/' && b.len && b.s[b.len - 1] == '*') sb_putc(&b, ' '); /* no early end of the comment */
    sb_putc(&b, c);
  }
  sb_puts(&b, " */");
  char *s = arena_strdup(w->ar, b.s);
  sb_free(&b);
  return s;
}

void lw_replace_dir(lw *w, item *it, const char *code) {
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  /* the comment on its own line above, the lowering below at the same indentation */
  sb_puts(&b, lw_comment(w, it->dir->loc));
  sb_putc(&b, '\n');
  sb_puts(&b, pr_line_text(&w->pr, w->ar, it->loc.b)); /* the code is the directive's line, not the comment's next */
  uint32_t ls = src_line_start_of(w->src, it->loc.b);
  for (uint32_t i = ls; i < it->loc.b && (w->src->text[i] == ' ' || w->src->text[i] == '\t'); i++)
    sb_putc(&b, w->src->text[i]);
  sb_puts(&b, code);
  pr_replace(&w->pr, it->loc.b, it->loc.e, b.s);
  sb_free(&b);
}

/* ---- the walk ----------------------------------------------------------------- */

static void walk_item(lw *w, item *it, item *prev);

static void walk_group_body(lw *w, item *g) {
  item *prev = NULL;
  /* a[$T[i]$]: the offset alone inside brackets needs no parentheses */
  if (g->grp->open == '[' && g->grp->body.n == 1 && g->grp->body.first->kind == IT_DOLLAR) {
    item *d = g->grp->body.first;
    char *t = lw_dollar_text(w, d->dol, LW_CAPTURE);
    size_t n = strlen(t);
    if (n > 2 && t[0] == '(' && t[n - 1] == ')') {
      int depth = 0;
      bool outer = true;
      for (size_t i = 0; i < n; i++) {
        if (t[i] == '(') depth++;
        else if (t[i] == ')' && --depth == 0 && i != n - 1) outer = false;
      }
      if (outer) t[n - 1] = 0, t++;
    }
    pr_replace(&w->pr, d->loc.b, d->loc.e, t);
    return;
  }
  ITEMS_FOREACH(k, g->grp->body) {
    walk_item(w, k, prev);
    prev = k;
  }
}

void lw_walk_block(lw *w, item *group) {
  const item *prev = w->kb.prev, *prev2 = w->kb.prev2, *prev3 = w->kb.prev3, *prev4 = w->kb.prev4;
  bool sw = w->kb.in_switch_block;
  lw_scope_push(w);
  lw_kinds_block(w, group, prev, prev2);
  lw_walk_items(w, &group->grp->body, false);
  lw_scope_pop(w);
  w->kb.in_switch_block = sw, w->kb.prev = prev, w->kb.prev2 = prev2, w->kb.prev3 = prev3, w->kb.prev4 = prev4;
}

static void walk_function(lw *w, cd_stmt *st) {
  /* the name is visible in its own body (recursion) */
  add_decl(w, &st->decls[0], false);
  lw_scope_push(w);
  int saved = w->fn_depth;
  const char *saved_name = w->fn_name;
  w->fn_depth = w->sc.depth;
  w->fn_name = st->decls[0].name ? lw_text(w, st->decls[0].name->loc) : NULL;
  w->kb.nconds = 0; /* the ifs of one function say nothing of another's */
  if (st->params) {
    cd_stmt ps = cd_params(&w->cd, st->params);
    for (int i = 0; i < ps.ndecls; i++) add_decl(w, &ps.decls[i], true);
  }
  lw_walk_block(w, st->body);
  w->fn_depth = saved, w->fn_name = saved_name;
  lw_scope_pop(w);
}

static void walk_item(lw *w, item *it, item *prev) {
  switch (it->kind) {
  case IT_PPLINE:
    lw_ppline(w, it);
    return;
  case IT_DOLLAR: {
    char *t = lw_dollar_text(w, it->dol, LW_CAPTURE);
    pr_replace(&w->pr, it->loc.b, it->loc.e, t);
    return;
  }
  case IT_DIR:
    switch (it->dir->kind) {
    case D_PARRAY: lw_parray(w, it); break;
    case D_CREATE: lw_create(w, it); break;
    case D_DESTROY: lw_destroy(w, it); break;
    case D_COPY: lw_copy(w, it); break;
    case D_DETOUR: lw_detour(w, it); break;
    case D_MAINHOST: lw_mainhost(w, it); break;
    case D_SYNC: lw_sync(w, it); break;
    case D_SUBPROG: lw_subprog(w, it); break;
    case D_GLOBAL: lw_global(w, it); break;
    case D_INSERT: lw_insert(w, it); break;
    case D_END: break;
    }
    return;
  case IT_GROUP:
    if (it->grp->open == '{') lw_walk_block(w, it);
    else walk_group_body(w, it);
    return;
  case IT_TOK:
    if (is_ident(it) && !after_member_op(prev)) {
      const char *rep = lw_ident_replacement(w, it, LW_CAPTURE);
      if (rep) pr_replace(&w->pr, it->loc.b, it->loc.e, rep);
    }
    return;
  }
}

void lw_walk_items(lw *w, items *list, bool file_scope) {
  item *prev = NULL, *prev2 = NULL, *prev3 = NULL, *prev4 = NULL;
  cd_stmt st = {0};
  item *stmt_first = NULL;
  bool in_stmt = false;
  int pending_pops = 0;
  lw_dtrack destroyed = {.n = 0};
  for (item *it = list->first; it; prev4 = prev3, prev3 = prev2, prev2 = prev, prev = it, it = it->next) {
    w->kb.prev = prev, w->kb.prev2 = prev2, w->kb.prev3 = prev3, w->kb.prev4 = prev4;
    /* an if's then-block not followed by an else-block: it joins the state before */
    if (w->kb.npending && w->kb.pending_depth == w->sc.depth && !word_is(w, it, "else") &&
        !(word_is(w, prev, "else") && it->kind == IT_GROUP && it->grp->open == '{'))
      lw_kinds_settle(w);
    bool destroy = it->kind == IT_DIR && it->dir->kind == D_DESTROY;
    if ((destroyed.n || destroy) && lw_destroy_twice(w, &destroyed, it, prev)) continue;
    if (!in_stmt && (it->kind == IT_TOK || it->kind == IT_GROUP || it->kind == IT_DOLLAR)) {
      in_stmt = true;
      if (file_scope) pr_toplevel(&w->pr, it->loc.b);
      st = cd_statement(&w->cd, it, file_scope);
      stmt_first = it;
      w->ndecl_names = 0;
      for (int i = 0; i < st.ndecls && i < 64; i++) w->decl_names[w->ndecl_names++] = st.decls[i].name;
      if (!st.is_fundef) lw_check_device_uses(w, it, st.is_decl ? st.last : NULL);
      if (st.is_fundef) {
        /* walk the header (parameter types may hold $...$), then the body */
        for (item *h = it; h != st.body; prev = h, h = h->next) walk_item(w, h, prev);
        w->ndecl_names = 0;
        walk_function(w, &st);
        it = st.body;
        in_stmt = false;
        continue;
      }
    } else if (!in_stmt && it->kind == IT_DIR && file_scope) {
      pr_toplevel(&w->pr, it->loc.b);
    }
    /* for (declaration; ...): the declared names live in the loop */
    if (word_is(w, it, "for") && it->next && it->next->kind == IT_GROUP && it->next->grp->open == '(') {
      lw_scope_push(w);
      pending_pops++;
      if (destroyed.n) lw_destroy_twice(w, &destroyed, it->next, it);
      cd_stmt fs = cd_statement(&w->cd, it->next->grp->body.first, false);
      int saved = w->ndecl_names;
      for (int i = 0; i < fs.ndecls && w->ndecl_names < 64; i++) w->decl_names[w->ndecl_names++] = fs.decls[i].name;
      add_stmt_decls(w, &fs);
      walk_item(w, it, prev);
      walk_group_body(w, it->next);
      w->ndecl_names = saved;
      prev = it;
      it = it->next;
      continue;
    }
    walk_item(w, it, prev);
    bool ends = false;
    if (st.is_decl && in_stmt) ends = it == st.last;
    else if (in_stmt) ends = is_punct(it, ';') || (it->kind == IT_GROUP && it->grp->open == '{');
    if (it->kind == IT_DIR || it->kind == IT_PPLINE) ends = !in_stmt || ends;
    if (ends && in_stmt) {
      if (st.is_decl) add_stmt_decls(w, &st), lw_local_type_note(w, &st, stmt_first);
      while (pending_pops > 0) lw_scope_pop(w), pending_pops--;
      in_stmt = false;
      st = (cd_stmt){0};
      w->ndecl_names = 0;
    }
  }
  while (pending_pops > 0) lw_scope_pop(w), pending_pops--;
  if (w->kb.npending && w->kb.pending_depth == w->sc.depth) lw_kinds_settle(w);
}

int lw_file(lw *w, items *file) {
  w->cd = (cdctx){.text = w->src->text, .ar = w->ar, .is_typedef = cd_is_typedef,
                  .is_type_macro = cd_is_type_macro, .env = w};
  cd_init(&w->cd);
  w->cx.dg = w->dg; /* errors in constant arithmetic of sizes and indices */
  w->host = (region){.kind = RG_HOST, .id = 0};
  emit_init(&w->em, w->target, &w->pr, w->src, &w->ex, w->ar);
  w->rg = &w->host;
  strmap_init(&w->subprogs);
  strmap_init(&w->fnames);
  sb_init(&w->epilogue);
  lw_walk_items(w, file, true);
  strmap_free(&w->subprogs);
  strmap_free(&w->fnames);
  cd_free(&w->cd);
  if (w->entry.nmpi_bodies && !w->has_mainhost)
    diag_error(w->dg, (loc){0, 0}, "a program with mpi detours needs #mainhost (process 0 drives the others)");
  if (w->has_mainhost) sb_puts(&w->epilogue, w->em.ops->entry(&w->em, &w->entry));
  return w->dg->errors ? 1 : 0;
}
