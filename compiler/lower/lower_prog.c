/* SPDX-License-Identifier: Apache-2.0 */
/* lower_prog.c - program structure: #parray declarations, #mainhost (the
 * program's entry), #subprog templates and their #insert instances with
 * private names, #global blocks hoisted to file scope, and .pc includes
 * (docs/language.md: types, #mainhost, subprograms). Each planner checks
 * and hands records of what it decided on (lw_put; lower_record.h), one
 * before a body it walks and one after; the print pass prints them. */
#include "lower.h"
#include "lower_dollar.h"
#include "lower_kinds.h"
#include "lower_prog.h"

#include "target.h"

#include <ctype.h>
#include <string.h>

/* An element type written in a subprogram with its value parameters
 * replaced by the instance's arguments ({rmem ELEM [4]}, #insert F(float)). */
static const char *inst_elem(lw *w, const char *e) {
  char b_buf[256];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  for (size_t i = 0; e[i];) {
    size_t n = 0;
    while (e[i + n] == '_' || isalnum((unsigned char)e[i + n])) n++;
    if (!n) {
      sb_putc(&b, e[i++]);
      continue;
    }
    const char *v = isdigit((unsigned char)e[i]) ? NULL : strmap_get(&w->inst->vals, e + i, n);
    if (v) sb_puts(&b, v);
    else sb_printf(&b, "%.*s", (int)n, e + i);
    i += n;
  }
  const char *r = arena_strdup(w->in.ar, b.s);
  sb_free(&b);
  return r;
}

void lw_parray(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad) return;
  const char *name = w->in.src->text + d->name.b;
  size_t len = d->name.e - d->name.b;
  if (cd_is_keyword(&w->cd, name, len)) {
    diag_error(w->in.dg, d->name, "expected a name for the type after '}': '%.*s' is a C keyword", (int)len, name);
    return;
  }
  /* visible (as "under construction") while it is built: a reference to it is a
   * cycle; if it cannot be built it stays visible as failed, so that later uses
   * stay silent instead of reporting a cycle or an unknown type */
  ptype *placeholder = arena_alloc(w->in.ar, sizeof *placeholder);
  placeholder->name = lw_text(w, d->name), placeholder->building = true;
  dnode *pn = arena_alloc(w->in.ar, sizeof *pn);
  pn->type = placeholder, pn->path = placeholder->name;
  sc_add_type(&w->sc, name, len, pn, placeholder);
  w->ty.failed = NULL;
  ptype *t = ty_build(&w->ty, lw_text(w, d->name), d->name, d->parray.body, w->inst ? w->inst->id : 0);
  if (!t) {
    placeholder->building = false, placeholder->bad = true;
    return;
  }
  if (w->inst && t->elem) t->elem = inst_elem(w, t->elem);
  sc_add_type(&w->sc, name, len, t->root, t);
  if (!w->inst) strmap_put(&w->all_types, name, len, t);
  if (t->thread == TK_PTHD) w->entry.uses_pthd = true;
  if (t->thread == TK_MPI) w->entry.uses_mpi = true;
  if (t->thread == TK_CUDA) {
    w->entry.uses_cuda = true;
    t->bad = !tgt_cuda_check_type(w->in.dg, t, d->name);
  }
  lw_record r = {.kind = LR_TYPE, .at = it, .u.type = t};
  lw_put(w, &r);
}

void lw_mainhost(lw *w, item *it) {
  directive *d = it->dir;
  if (w->sc.depth != 0 || w->rg->kind != RG_HOST || w->inst) {
    diag_error(w->in.dg, d->kw, "#mainhost must be at file scope");
    return;
  }
  if (w->has_mainhost) {
    diag_error(w->in.dg, d->kw, "a second #mainhost: a program has one entry");
    return;
  }
  w->has_mainhost = true;
  item *blk = d->block;
  lw_block_conditionals(w, &blk->grp->body, "the block of #mainhost", d->kw);
  lw_record r = {.kind = LR_MAINHOST, .at = it};
  r.u.mainhost.phase = LP_OPEN, r.u.mainhost.kw = d->kw, r.u.mainhost.body = blk->loc.b + 1;
  lw_put(w, &r);
  lw_scope_push(w);
  int saved = w->fn_depth;
  const char *saved_name = w->fn_name;
  w->fn_depth = w->sc.depth, w->fn_name = "main"; /* #mainhost is the program's main */
  w->kb.nconds = 0;
  lw_declare_var(w, "argc", 4, "int", "@", false);
  lw_declare_var(w, "argv", 4, "char", "**@", true);
  lw_walk_block(w, blk);
  w->fn_depth = saved, w->fn_name = saved_name;
  lw_scope_pop(w);
  r = (lw_record){.kind = LR_MAINHOST, .at = it};
  r.u.mainhost.phase = LP_CLOSE, r.u.mainhost.body = blk->grp->close.b, r.u.mainhost.end = blk->loc.e;
  /* the detours launched without a wait end (and report) before the program does */
  r.u.mainhost.wait = lw_caps(w)->stream_ordered;
  if (r.u.mainhost.wait) r.u.mainhost.site = lw_site(w, blk->grp->close, "the end of #mainhost");
  lw_put(w, &r);
}

void lw_subprog(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad) return;
  if (w->sc.depth != 0 || w->inst) {
    diag_error(w->in.dg, d->kw, "#subprog must be at file scope");
    return;
  }
  if (!lw_block_conditionals(w, &d->subprog.body, "the body of this #subprog", d->kw)) return;
  subprog *sp = arena_alloc(w->in.ar, sizeof *sp);
  sp->d = d;
  items *ps;
  int n = lw_split_args(w, &d->args, &ps);
  sp->params = arena_alloc(w->in.ar, sizeof *sp->params * (size_t)(n ? n : 1));
  sp->paramlocs = arena_alloc(w->in.ar, sizeof *sp->paramlocs * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    if (ps[i].n != 1 || ps[i].first->kind != IT_TOK || ps[i].first->tk != T_IDENT) {
      diag_error(w->in.dg, ps[i].n ? ps[i].first->loc : d->argsloc, "a #subprog parameter must be a name");
      return;
    }
    sp->params[i] = lw_text(w, ps[i].first->loc);
    sp->paramlocs[i] = ps[i].first->loc;
  }
  sp->nparams = n;
  const char *name = w->in.src->text + d->name.b;
  size_t len = d->name.e - d->name.b;
  subprog *old = strmap_get(&w->ins.subprogs, name, len);
  if (old) {
    diag_error(w->in.dg, d->name, "subprogram '%.*s' is defined twice", (int)len, name);
    diag_note(w->in.dg, old->d->name, "first defined here");
    return;
  }
  strmap_put(&w->ins.subprogs, name, len, sp);
  lw_record r = {.kind = LR_SUBPROG, .at = it};
  r.u.subprog.name = lw_text(w, d->name), r.u.subprog.params = sp->params, r.u.subprog.nparams = n;
  lw_put(w, &r);
}

/* names declared by C declarations in a #global block become private to the instance */
static void collect_renames(lw *w, instance *in, items *body) {
  const char *spname = lw_text(w, in->sp->d->name);
  ITEMS_FOREACH(it, *body) {
    if (it->kind != IT_TOK) continue;
    cd_stmt st = cd_statement(&w->cd, it, true);
    for (int i = 0; i < st.ndecls; i++) {
      item *nm = st.decls[i].name;
      const char *priv = arena_printf(w->in.ar, "%.*s__%s_%d", (int)(nm->loc.e - nm->loc.b),
                                      w->in.src->text + nm->loc.b, spname, in->id);
      strmap_put(&in->renames, w->in.src->text + nm->loc.b, nm->loc.e - nm->loc.b, (void *)priv);
    }
    if (st.is_decl && st.last) it = st.last;
  }
}

static void prescan_globals(lw *w, instance *in, items *body) {
  ITEMS_FOREACH(it, *body) {
    if (it->kind == IT_DIR && it->dir->kind == D_GLOBAL && it->dir->block)
      collect_renames(w, in, &it->dir->block->grp->body);
  }
}

void lw_global(lw *w, item *it) {
  directive *d = it->dir;
  item *blk = d->block;
  lw_block_conditionals(w, &blk->grp->body, "the block of this #global", d->kw);
  /* walk the contents at the current scope (types declared there stay
   * visible), into a buffer that goes to file scope */
  lw_record r;
  lw_record_body(&r, LR_GLOBAL, it, LP_OPEN, blk->loc.b + 1, 0, NULL);
  lw_put(w, &r);
  region *saved_rg = w->rg;
  w->rg = &w->host;
  w->apart++;
  lw_walk_items(w, &blk->grp->body, true);
  w->apart--;
  w->rg = saved_rg;
  lw_record_body(&r, LR_GLOBAL, it, LP_CLOSE, blk->loc.b + 1, blk->grp->close.b, NULL);
  lw_put(w, &r);
}

/* The texts of an argument: as the code at the #insert writes it, and with
 * the variables of the code around by their own names (different inside a
 * detour, where they are captures; a detour inside the instance captures
 * them itself). The second is read only when the first was reported
 * nothing, so that nothing is reported twice. */
static bool is_type_name(lw *w, items *arg) {
  if (!arg->n) return false;
  for (item *t = arg->first;; t = t->next) {
    if (t->kind != IT_TOK) return false;
    const char *s = w->in.src->text + t->loc.b;
    size_t n = t->loc.e - t->loc.b;
    bool tagged = t->tk == T_IDENT && (str_eq(s, n, "struct") || str_eq(s, n, "union") || str_eq(s, n, "enum"));
    if (tagged) { /* struct pair: the tag is part of the type */
      if (t == arg->last || t->next->kind != IT_TOK || t->next->tk != T_IDENT) return false;
      t = t->next;
    } else if (!(t->tk == T_IDENT && lw_is_type_name(w, s, n)) && !(n == 1 && *s == '*')) {
      return false;
    }
    if (t == arg->last) return true;
  }
}

static void arg_texts(lw *w, instance *in, const char *param, items *arg) {
  size_t len = strlen(param);
  int errors = w->in.dg->errors, warnings = w->in.dg->warnings;
  /* a type name (float, unsigned int, a typedef) goes in as written: it may
   * be an element type or a kernel parameter's type, where parentheses are wrong */
  const char *fmt = is_type_name(w, arg) ? "%s" : "(%s)";
  const char *val = arena_printf(w->in.ar, fmt, lw_list_text(w, arg)), *raw = val;
  if (w->rg != &w->host && w->in.dg->errors == errors && w->in.dg->warnings == warnings) {
    lw_subst as_written = {.names = LW_AS_WRITTEN};
    raw = arena_printf(w->in.ar, fmt, lw_items_subst(w, arg->first, arg->last, &as_written));
  }
  strmap_put(&in->vals, param, len, (void *)val);
  strmap_put(&in->raw, param, len, (void *)raw);
}

/* A limit of #insert expansion crossed at d: the error (the chain of
 * #inserts that led there follows as the diagnostics' context notes);
 * nothing expands after it. */
static void insert_limit(lw *w, directive *d, const char *what) {
  diag_error(w->in.dg, d->loc, "%s", what);
  w->ins.over = true;
}

/* the instance's records: its body walked between its two records; its
 * bytes count towards the limit: the body's source, about what its block,
 * comment and line markers print (INSERT_FRAME_BYTES), and the instances
 * expanded inside it */
#define INSERT_FRAME_BYTES 64
static void expand(lw *w, item *it, subprog *sp, const instance *in) {
  directive *d = it->dir;
  int64_t outer_nested = w->ins.nested;
  w->ins.nested = 0;
  lw_record r;
  const char *spname = lw_text(w, d->name);
  lw_record_body(&r, LR_INSERT, it, LP_OPEN, sp->d->loc.e, 0, spname);
  r.u.body.instance = in->id;
  lw_put(w, &r);
  w->apart++;
  lw_walk_items(w, &sp->d->subprog.body, false);
  w->apart--;
  lw_record_body(&r, LR_INSERT, it, LP_CLOSE, sp->d->loc.e, sp->d->subprog.end.b, spname);
  r.u.body.instance = in->id;
  lw_put(w, &r);
  int64_t size = (int64_t)(sp->d->subprog.end.b - sp->d->loc.e) + INSERT_FRAME_BYTES + w->ins.nested;
  w->ins.nested = outer_nested + size;
  w->ins.bytes += size;
  if (w->ins.bytes > w->ins.max_bytes && !w->ins.over)
    insert_limit(w, d, arena_printf(w->in.ar, "the #insert expansions reach %lld bytes: the limit is %lld (raise it "
                                           "with --max-insert-bytes=N)", (long long)w->ins.bytes,
                                    (long long)w->ins.max_bytes));
}

void lw_insert(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad || w->ins.over) return;
  int nest = w->inst ? w->inst->nest + 1 : 1;
  if (nest > w->ins.max_depth) {
    insert_limit(w, d, arena_printf(w->in.ar, "#insert nested %d deep: the limit is %lld (raise it with "
                                           "--max-insert-depth=N)", nest, (long long)w->ins.max_depth));
    return;
  }
  const char *name = w->in.src->text + d->name.b;
  size_t len = d->name.e - d->name.b;
  subprog *sp = strmap_get(&w->ins.subprogs, name, len);
  if (!sp) {
    diag_error(w->in.dg, d->name, "#insert of unknown subprogram '%.*s'", (int)len, name);
    return;
  }
  items *args;
  int n = lw_split_args(w, &d->args, &args);
  if (n == 1 && args[0].n == 0) n = 0;
  if (n != sp->nparams) {
    diag_error(w->in.dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->name,
               "#insert %.*s with %d argument%s; the subprogram takes %d", (int)len, name, n, n == 1 ? "" : "s",
               sp->nparams);
    diag_note(w->in.dg, sp->d->loc, "defined here");
    return;
  }
  for (instance *in = w->inst; in; in = in->outer)
    if (in->sp == sp) {
      diag_error(w->in.dg, d->loc, "subprogram '%.*s' inserts itself", (int)len, name);
      return;
    }
  instance *in = arena_alloc(w->in.ar, sizeof *in);
  in->sp = sp, in->id = ++w->next_id, in->at = d->loc, in->outer = w->inst, in->nest = nest;
  strmap_init(&in->vals);
  strmap_init(&in->raw);
  strmap_init(&in->renames);
  in->rg = w->rg;
  lw_scope_push(w);
  in->depth = w->sc.depth;
  for (int i = 0; i < n; i++) {
    arg_texts(w, in, sp->params[i], &args[i]);
    if (args[i].n == 1 && args[i].first->kind == IT_TOK && args[i].first->tk == T_IDENT) {
      dnode *tn = lw_resolve(w, args[i].first->loc, false);
      if (!tn) tn = w->ty.failed; /* a failed type: the parameter stays silent too */
      if (tn) sc_add_type(&w->sc, sp->params[i], strlen(sp->params[i]), tn, tn->type);
    }
  }
  prescan_globals(w, in, &sp->d->subprog.body);
  w->inst = in;
  diag_push_context(w->in.dg, d->loc,
                    arena_printf(w->in.ar, "in instance of subprogram '%.*s' inserted here", (int)len, name));

  expand(w, it, sp, in);
  diag_pop_context(w->in.dg);
  w->inst = in->outer;
  lw_scope_pop(w);
  strmap_free(&in->vals);
  strmap_free(&in->raw);
  strmap_free(&in->renames);
}

/* ---- conditionals inside a block that moves ------------------------------------ */

/* the conditional keyword of a preprocessor line: 1 opens (#if...), 2 goes on
 * (#elif..., #else), 3 closes (#endif), 0 none */
static int cond_kind(lw *w, const item *it) {
  const char *t = w->in.src->text + it->loc.b, *e = w->in.src->text + it->loc.e;
  while (t < e && (*t == ' ' || *t == '\t')) t++;
  if (t < e && *t == '#') t++;
  while (t < e && (*t == ' ' || *t == '\t')) t++;
  size_t n = 0;
  while (t + n < e && ((t[n] >= 'a' && t[n] <= 'z'))) n++;
  if (str_eq(t, n, "if") || str_eq(t, n, "ifdef") || str_eq(t, n, "ifndef")) return 1;
  if (str_eq(t, n, "elif") || str_eq(t, n, "elifdef") || str_eq(t, n, "elifndef") || str_eq(t, n, "else")) return 2;
  return str_eq(t, n, "endif") ? 3 : 0;
}

static void cond_scan(lw *w, items *list, int *depth, item **open, const char *what, loc at, bool *bad) {
  ITEMS_FOREACH(it, *list) {
    if (*bad) return;
    if (it->kind == IT_GROUP) {
      cond_scan(w, &it->grp->body, depth, open, what, at, bad);
      continue;
    }
    if (it->kind != IT_PPLINE) continue;
    int k = cond_kind(w, it);
    if (k == 1 && (*depth)++ == 0) *open = it;
    if ((k == 2 && *depth == 0) || (k == 3 && (*depth)-- == 0)) {
      diag_error(w->in.dg, it->loc, "this conditional line continues one opened outside %s: a conditional must open "
                 "and close inside it", what);
      diag_note(w->in.dg, at, "the construct is here");
      *bad = true;
    }
  }
}

bool lw_block_conditionals(lw *w, items *body, const char *what, loc at) {
  int depth = 0;
  item *open = NULL;
  bool bad = false;
  cond_scan(w, body, &depth, &open, what, at, &bad);
  if (!bad && depth > 0) {
    diag_error(w->in.dg, open->loc, "this conditional is not closed inside %s: a conditional must open and close "
               "inside it", what);
    diag_note(w->in.dg, at, "the construct is here");
    bad = true;
  }
  return !bad;
}

/* A #define whose body holds a $...$: pac translates the program before the
 * C preprocessor expands macros, so the dollar expression would reach the C
 * compiler untranslated; it is an error at the '$' (docs/language.md). */
static void define_dollar(lw *w, const item *it) {
  const char *t = w->in.src->text + it->loc.b, *e = w->in.src->text + it->loc.e;
  while (t < e && (*t == ' ' || *t == '\t')) t++;
  if (t == e || *t != '#') return;
  for (t++; t < e && (*t == ' ' || *t == '\t'); t++) {}
  if (e - t < 6 || strncmp(t, "define", 6) != 0) return;
  char quote = 0;
  for (const char *p = t + 6; p < e; p++) {
    if (quote) {
      if (*p == '\\' && p + 1 < e) p++;
      else if (*p == quote) quote = 0;
    } else if (*p == '"' || *p == '\'') {
      quote = *p;
    } else if (*p == '/' && p + 1 < e && p[1] == '*') {
      const char *c = strstr(p + 2, "*/");
      p = c && c < e ? c + 1 : e;
    } else if (*p == '$') {
      uint32_t at = (uint32_t)(p - w->in.src->text);
      diag_error(w->in.dg, (loc){at, at + 1},
                 "a $...$ expression in a #define is not translated (pac translates before "
                 "macros are expanded): write it where the macro is used, or make the macro a #subprog");
      return;
    }
  }
}

void lw_ppline(lw *w, item *it) {
  define_dollar(w, it);
  for (int i = 0; i < w->in.pc.ninc; i++) {
    if (w->in.pc.inc[i].at != it->loc.b) continue;
    srcseg *sg = &w->in.src->segs[w->in.pc.inc[i].seg];
    lw_record r;
    if (!w->in.pc.inc[i].first) {
      lw_record_body(&r, LR_INCLUDE, it, LP_WHOLE, sg->base, sg->base + sg->len, sg->name);
      lw_put(w, &r);
      return;
    }
    /* at file scope: translated in line, as top-level items of their own;
     * inside a block (or a body translated apart): into the block */
    bool in_line = w->sc.depth == 0 && w->rg == &w->host && !w->apart;
    lw_record_body(&r, LR_INCLUDE, it, LP_OPEN, sg->base, sg->base + sg->len, sg->name);
    r.u.body.in_line = in_line;
    lw_put(w, &r);
    w->apart += !in_line;
    lw_walk_items(w, &w->in.pc.seg_items[w->in.pc.inc[i].seg], in_line);
    w->apart -= !in_line;
    r.u.body.phase = LP_CLOSE;
    lw_put(w, &r);
    return;
  }
}
