/* SPDX-License-Identifier: Apache-2.0 */
/* lower_walk.c - the walker: goes through the items of the file in order,
 * keeps the C scopes up to date with every declaration it reads (file
 * scope, function parameters, block locals, for-loop variables), copies C
 * text through unchanged and hands each Parray construct to its planner.
 * It alone calls the planners; a planner of a construct with a body (a
 * detour, #mainhost, #subprog, #insert, #global) walks the body through
 * w->walk_items and w->walk_block, which lw_file sets, so that no planner
 * calls back into this file. */
#include "lower.h"
#include "lower_copy.h"
#include "lower_detour.h"
#include "lower_devuse.h"
#include "lower_dollar.h"
#include "lower_kinds.h"
#include "lower_localtypes.h"
#include "lower_mem.h"
#include "lower_print.h"
#include "lower_prog.h"
#include "lower_reduce.h"

#include <stdlib.h>
#include <string.h>

static bool is_ident(const item *it) { return it && it->kind == IT_TOK && it->tk == T_IDENT; }
static bool is_punct(const item *it, int p) { return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p; }
static bool word_is(lw *w, const item *it, const char *s) {
  return is_ident(it) && str_eq(w->in.src->text + it->loc.b, it->loc.e - it->loc.b, s);
}

/* ---- symbols from declarations ------------------------------------------- */

static void add_decl(lw *w, cd_decl *d, bool is_param) {
  const char *name = w->in.src->text + d->name->loc.b;
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
      sym *s = sc_add(&w->sc, SYM_ENUMC, w->in.src->text + en[i]->loc.b, en[i]->loc.e - en[i]->loc.b);
      s->region = w->rg->id;
    }
  }
}

/* Is the identifier a member name (after . or ->)? */
static bool after_member_op(item *prev) { return is_punct(prev, '.') || is_punct(prev, P_ARROW); }

/* ---- the walk ----------------------------------------------------------------- */

static void walk_item(lw *w, item *it, item *prev);
static void walk_items(lw *w, items *list, bool file_scope);

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
    lw_record r;
    lw_record_subst(&r, d, SUB_DOLLAR, d->loc, t);
    lw_put(w, &r);
    return;
  }
  ITEMS_FOREACH(k, g->grp->body) {
    walk_item(w, k, prev);
    prev = k;
  }
}

static void walk_block(lw *w, item *group) {
  const item *prev = w->kb.prev, *prev2 = w->kb.prev2, *prev3 = w->kb.prev3, *prev4 = w->kb.prev4;
  bool sw = w->kb.in_switch_block;
  lw_scope_push(w);
  lw_kinds_block(w, group, prev, prev2);
  walk_items(w, &group->grp->body, false);
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
  walk_block(w, st->body);
  w->fn_depth = saved, w->fn_name = saved_name;
  lw_scope_pop(w);
}

/* A directive goes to its planner. The planners of #create, #destroy,
 * #copy, #detour and #sync return a record of their plan, which goes on to
 * the print pass; the others (#parray, #mainhost, #subprog, #global,
 * #insert) hand on records of their own as they go (lw_put), the ones
 * with a body one before it and one after. */
static void walk_directive(lw *w, item *it) {
  lw_record rec = {.kind = LR_NONE};
  switch (it->dir->kind) {
  case D_PARRAY: lw_parray(w, it); break;
  case D_CREATE: lw_create(w, it, &rec); break;
  case D_DESTROY: lw_destroy(w, it, &rec); break;
  case D_COPY: lw_copy(w, it, &rec); break;
  case D_DETOUR: lw_detour(w, it, &rec); break;
  case D_MAINHOST: lw_mainhost(w, it); break;
  case D_SYNC: lw_sync(w, it, &rec); break;
  case D_SUBPROG: lw_subprog(w, it); break;
  case D_GLOBAL: lw_global(w, it); break;
  case D_INSERT: lw_insert(w, it); break;
  case D_SCAN: lw_scan(w, it, &rec); break;
  case D_END: break;
  }
  if (rec.kind != LR_NONE) lw_put(w, &rec);
}

static void walk_item(lw *w, item *it, item *prev) {
  switch (it->kind) {
  case IT_PPLINE:
    lw_ppline(w, it);
    return;
  case IT_DOLLAR: {
    lw_record r;
    lw_record_subst(&r, it, SUB_DOLLAR, it->loc, lw_dollar_text(w, it->dol, LW_CAPTURE));
    lw_put(w, &r);
    return;
  }
  case IT_DIR:
    walk_directive(w, it);
    return;
  case IT_GROUP:
    if (it->grp->open == '{') walk_block(w, it);
    else walk_group_body(w, it);
    return;
  case IT_TOK:
    if (is_ident(it) && !after_member_op(prev)) {
      lw_atomic_check(w, it);
      const char *rep = lw_reduce_word(w, it);
      if (!rep) rep = lw_ident_replacement(w, it, LW_CAPTURE);
      if (rep) {
        lw_record r;
        lw_record_subst(&r, it, SUB_NAME, it->loc, rep);
        lw_put(w, &r);
      }
    }
    return;
  }
}

/* a top-level item of the output starts at it */
static void toplevel(lw *w, item *it) {
  lw_record r = {.kind = LR_TOPLEVEL, .at = it};
  lw_put(w, &r);
}

static void walk_items(lw *w, items *list, bool file_scope) {
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
      if (file_scope) toplevel(w, it);
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
      toplevel(w, it);
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
  lw_cd_init(w);
  w->walk_items = walk_items, w->walk_block = walk_block;
  w->cx.dg = w->in.dg; /* errors in constant arithmetic of sizes and indices */
  w->host = (region){.kind = RG_HOST, .id = 0};
  emit_init(&w->tg.em, w->tg.kind, w->tg.ranges, &w->pr, w->in.src, &w->ex, w->in.ar);
  w->rg = &w->host;
  strmap_init(&w->ins.subprogs);
  strmap_init(&w->fnames);
  sb_init(&w->epilogue);
  walk_items(w, file, true);
  strmap_free(&w->ins.subprogs);
  strmap_free(&w->fnames);
  cd_free(&w->cd);
  if (w->entry.nmpi_bodies && !w->has_mainhost)
    diag_error(w->in.dg, (loc){0, 0}, "a program with mpi detours needs #mainhost (process 0 drives the others)");
  if (w->has_mainhost) {
    lw_record r = {.kind = LR_ENTRY, .u.entry = &w->entry};
    lw_put(w, &r);
  }
  lw_print_all(w);
  return w->in.dg->errors ? 1 : 0;
}
