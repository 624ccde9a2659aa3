/* SPDX-License-Identifier: Apache-2.0 */
/* lower_detour.c - thread arrays (docs/threads.md): a #detour is checked,
 * its body walked into a buffer, the variables of the enclosing scopes that
 * the body uses found through the translator's scopes and captured (by
 * reference for pthd, by value for mpi and cuda; a pointer there is an
 * error that names it), and the result planned as a plan_detour that the
 * target's emitter prints as an outlined function or kernel and the code
 * that runs it. A cuda detour launched from host code waits for its kernel
 * unless nothing the host does next can observe it before the next wait
 * (launch_waits; docs/cuda.md). $tid$ and #sync are lowered per kind; #sync
 * in the host code of a CUDA program waits for the device. */
#include "lower.h"

#include "target.h"

#include <string.h>

static const char *kind_word(region_kind k) {
  return k == RG_PTHD ? "pthd" : k == RG_MPI ? "mpi" : k == RG_CUDA ? "cuda" : "host";
}

static region *thread_region(lw *w) {
  for (region *r = w->rg; r; r = r->outer)
    if (r->kind != RG_HOST) return r;
  return NULL;
}

/* A fresh file-scope name "parray__<what>_<TYPE>_L<line>" (suffixed if taken). */
const char *lw_fresh_name(lw *w, const char *what, const char *type, loc at) {
  const char *base = arena_printf(w->ar, "parray__%s_%s_L%d", what, type, src_line(w->src, at.b));
  const char *n = base;
  for (int k = 2; strmap_get(&w->fnames, n, strlen(n)); k++) n = arena_printf(w->ar, "%s_%d", base, k);
  strmap_put(&w->fnames, n, strlen(n), (void *)1);
  return n;
}

/* ---- declarations of captured variables ---------------------------------- */

static bool storage_word(const char *s, size_t n) {
  static const char *const ws[] = {"typedef", "extern", "static", "auto", "register", "_Thread_local", "__thread", "constexpr",
                                   "thread_local", "inline", "__inline", "__inline__", "_Noreturn",
                                   "__forceinline__", "__device__", "__host__", "__global__", "__shared__",
                                   "__constant__", "__managed__", NULL};
  for (const char *const *p = ws; *p; p++)
    if (str_eq(s, n, *p)) return true;
  return false;
}

/* the declaration of a member that holds the capture of s in this mode */
static plan_decl field_decl(lw *w, sym *s, cap_mode mode) {
  const char *spec, *pre, *post;
  if (s->type_spec) {
    /* declared by the lowering: a pattern with '@' for the name */
    spec = s->type_spec;
    const char *at = strchr(s->type_decl, '@');
    if (!at) return (plan_decl){arena_printf(w->ar, "%s ", spec), ""};
    pre = arena_strndup(w->ar, s->type_decl, (size_t)(at - s->type_decl)), post = at + 1;
  } else {
    sbuf b;
    sb_init(&b);
    for (item *it = s->decl.spec_first; it; it = it->next) {
      if (!(it->kind == IT_TOK && it->tk == T_IDENT && storage_word(w->src->text + it->loc.b, it->loc.e - it->loc.b))) {
        if (b.len) sb_putc(&b, ' ');
        sb_puts(&b, lw_items_text(w, it, it));
      }
      if (it == s->decl.spec_last) break;
    }
    spec = arena_strdup(w->ar, b.s ? b.s : "int");
    sb_free(&b);
    bool param_array = s->is_param && s->decl.array_suffix;
    lw_subst sub = {.sub = s->decl.name, .sub_text = param_array ? "*" : "", .skip = param_array ? s->decl.array_suffix : NULL};
    char *decl = lw_items_subst(w, s->decl.decl_first, s->decl.decl_last, &sub);
    if (sub.sub_pos < 0) return (plan_decl){arena_printf(w->ar, "%s ", spec), ""};
    pre = arena_strndup(w->ar, decl, (size_t)sub.sub_pos), post = decl + sub.sub_pos;
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
      return (plan_decl){arena_printf(w->ar, "%s %s(*", spec, pre), arena_printf(w->ar, ")%s", *e ? e + 1 : "")};
    }
  }
  if (mode == CAP_PTR || mode == CAP_DECAY)
    return (plan_decl){arena_printf(w->ar, "%s %s(*", spec, pre), arena_printf(w->ar, ")%s", post)};
  return (plan_decl){arena_printf(w->ar, "%s %s", spec, pre), post};
}

static const char *sym_name(lw *w, sym *s) { return arena_strndup(w->ar, s->name, s->len); }

static plan_kind kind_of(region *r) { return r->kind == RG_PTHD ? PK_PTHD : r->kind == RG_MPI ? PK_MPI : PK_CUDA; }

/* how the body refers to a capture: the emitter names what it defines */
static const char *capture_use(lw *w, region *r, capture *c) {
  return c->use ? c->use : emit_capture_ref(&w->em, kind_of(r), c->mode, c->field);
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
      sym *v = t->kind == IT_TOK && t->tk == T_IDENT ? sc_find(&w->sc, w->src->text + t->loc.b, t->loc.e - t->loc.b) : NULL;
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
    r2 = arena_printf(w->ar, "((%s (*)%s)%s)", sp.s ? sp.s : "int", b.s, ref);
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
      const char *t = w->src->text + it->loc.b;
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
    diag_error(w->dg, use, "'%s' is declared with %s: a detour's body moves to a function of its own, where the "
               "captured variables' types must be written out; declare '%s' with its type", nm, how, nm);
    diag_note(w->dg, s->decl.name->loc, "declared here");
    return CAP_ERROR;
  }
  if (r->kind == RG_PTHD) {
    if (s->decl.is_register && s->has_decl) {
      diag_error(w->dg, use, "'%s' is a register variable: a pthd detour shares variables by reference and cannot "
                 "take its address", nm);
      return CAP_ERROR;
    }
    return s->is_array ? CAP_DECAY : CAP_PTR;
  }
  if (r->kind == RG_MPI) {
    if (s->created && s->created->type->mpi_ref) return CAP_HANDLE;
    if (s->is_pointer || s->is_array) {
      diag_error(w->dg, use, "'%s' is a host %s captured by an mpi detour; processes do not share memory: move the "
                 "data with #copy to a distributed array", nm, s->is_array ? "array" : "pointer");
      return CAP_ERROR;
    }
    return CAP_VALUE;
  }
  if (s->is_pointer || s->is_array) {
    diag_error(w->dg, use, "host variable '%s' is used in the body of a cuda detour but is not a parameter of "
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
    if (it->kind == IT_TOK && it->tk == T_IDENT && lw_local_type_named(w, w->src->text + it->loc.b, it->loc.e - it->loc.b))
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
    bool storage = it->kind == IT_TOK && it->tk == T_IDENT && storage_word(w->src->text + it->loc.b, it->loc.e - it->loc.b);
    if (!storage) {
      if (sp.len) sb_putc(&sp, ' ');
      sb_puts(&sp, lw_items_text(w, it, it));
    }
    if (it == s->decl.spec_last) break;
  }
  const char *r = arena_printf(w->ar, "(*(%s *)%s)", sp.s ? sp.s : "int", ref);
  sb_free(&sp);
  return r;
}

const char *lw_capture_ref(lw *w, region *r, sym *s, loc use) {
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].s == s) return capture_use(w, r, &r->caps[i]);
  capture c = {.s = s, .field = sym_name(w, s)};
  c.mode = capture_mode(w, r, s, use, c.field);
  if (c.mode == CAP_VALUE && r->kind == RG_MPI && local_typed(w, s)) c.local = true;
  /* into a kernel, whose parameters (at file scope) cannot name the enclosing function's type: as bytes */
  if (c.mode == CAP_VALUE && r->kind == RG_CUDA && local_typed(w, s)) c.bytes = true;
  if (r->ncaps == r->capcaps) {
    r->capcaps = r->capcaps ? r->capcaps * 2 : 8;
    capture *nc = arena_alloc(w->ar, sizeof *nc * (size_t)r->capcaps);
    if (r->ncaps) memcpy(nc, r->caps, sizeof *nc * (size_t)r->ncaps);
    r->caps = nc;
  }
  int at = r->ncaps;
  r->caps[r->ncaps++] = c;
  /* its bounds or typeof may capture more: r->caps may move */
  const char *raw = emit_capture_ref(&w->em, kind_of(r), CAP_DECAY, c.field), *via = NULL;
  if (c.mode == CAP_DECAY && r->kind == RG_PTHD) via = vla_use(w, r, s, raw);
  else if (c.mode == CAP_PTR && r->kind == RG_PTHD) via = typeof_use(w, s, raw);
  if (!via && (c.mode == CAP_PTR || c.mode == CAP_DECAY) && r->kind == RG_PTHD && local_typed(w, s)) {
    plan_decl t = field_decl(w, s, c.mode); /* its type is the field's declarator without the name */
    via = arena_printf(w->ar, c.mode == CAP_PTR ? "(*(%s%s)%s)" : "((%s%s)%s)", t.pre, t.post, raw);
  }
  if (c.bytes) { /* the body declares the type again: its bytes read as that type */
    plan_decl t = field_decl(w, s, CAP_VALUE);
    via = arena_printf(w->ar, "(*(%s%s*)%s.b)", t.pre, t.post, c.field);
  }
  if (via) r->caps[at].use = via;
  return capture_use(w, r, &r->caps[at]);
}

/* The value a capture starts from, as written in the enclosing code (a
 * distributed array: its variable). */
static const char *capture_init(lw *w, region *r, capture *c) {
  region *o = r->outer;
  sym *s = c->s;
  if (o->kind != RG_HOST && s->depth < o->depth) {
    /* captured by the enclosing detour too */
    if (c->mode == CAP_HANDLE) diag_error(w->dg, r->at, "a distributed array cannot be passed through nested detours");
    else return lw_capture_ref(w, o, s, r->at);
  }
  return sym_name(w, s);
}

/* ---- the detour ----------------------------------------------------------------- */

/* Walk the body with region r into a buffer; returns the body text, which
 * opens with the enclosing function's local types it uses unless a capture
 * has one of them: then *local_types (when given) gets them. */
static char *walk_body(lw *w, item *it, region *r, cd_stmt *params, const char **local_types) {
  item *blk = it->dir->block;
  lw_block_conditionals(w, &blk->grp->body, "the block of this #detour", it->dir->kw);
  pr_outline o;
  pr_outline_begin(&w->pr, &o, it->loc.b, blk->loc.b);
  region *saved = w->rg;
  w->rg = r;
  lw_scope_push(w);
  r->depth = w->sc.depth;
  if (params)
    for (int i = 0; i < params->ndecls; i++) {
      cd_decl *d = &params->decls[i];
      sym *s = sc_add(&w->sc, SYM_VAR, w->src->text + d->name->loc.b, d->name->loc.e - d->name->loc.b);
      s->decl = *d, s->has_decl = true, s->is_param = true, s->is_pointer = d->is_pointer, s->region = r->id;
    }
  lw_walk_block(w, blk);
  lw_scope_pop(w);
  w->rg = saved;
  char *text = pr_outline_end(&w->pr, &o, blk->loc.e, w->ar);
  /* the enclosing function's local types the body uses go with it */
  w->ltypes_used = NULL;
  char *types = lw_local_types_for(w, blk, r);
  bool local = false;
  for (int i = 0; i < r->ncaps; i++) local |= r->caps[i].local;
  if (types && local && local_types) {
    *local_types = types;
    return text;
  }
  return types ? arena_printf(w->ar, "{ %s\n%s }", types, text) : text;
}

/* The region's captures, for the plan. With decls, every declaration comes
 * first, then *localize is made valid in the enclosing code, then the
 * values; without, each value follows its declaration. (Declarations and
 * values may capture in the enclosing detour too: this is their order.) */
static plan_capture *plan_captures(lw *w, region *r, bool decls, ex **localize) {
  plan_capture *pc = arena_alloc(w->ar, sizeof *pc * (size_t)(r->ncaps ? r->ncaps : 1));
  for (int i = 0; i < r->ncaps; i++) {
    capture *c = &r->caps[i];
    pc[i] = (plan_capture){.mode = c->mode, .field = c->field, .bytes = c->bytes};
    if (c->mode == CAP_HANDLE)
      pc[i].elem = c->s->created->type->elem, pc[i].device = c->s->created->type->mem == MK_DMEM;
    else if (c->use && decls) pc[i].decl = (plan_decl){"void *", ""}; /* a variable-length array */
    else if (c->mode != CAP_ERROR && decls) pc[i].decl = field_decl(w, c->s, c->mode);
  }
  if (localize) *localize = lw_localize(w, *localize, r->at);
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].mode != CAP_ERROR) {
      if (!decls && r->caps[i].mode == CAP_VALUE) pc[i].decl = field_decl(w, r->caps[i].s, CAP_VALUE);
      pc[i].init = capture_init(w, r, &r->caps[i]);
    }
  return pc;
}

static void detour_host_threads(lw *w, item *it, region *r) {
  directive *d = it->dir;
  ptype *T = r->thread;
  plan_detour p = {.kind = kind_of(r), .type = T->name, .wide = ex_needs_wide(T->root->size)};
  p.body = walk_body(w, it, r, NULL, &p.local_types);
  p.typedefs_used = w->ltypes_used;
  p.fname = lw_fresh_name(w, r->kind == RG_PTHD ? "pthd" : "mpi", T->name, d->loc);
  p.site = lw_site(w, d->loc, arena_printf(w->ar, "#detour %s", T->name));
  /* the enclosing code starts the threads: inside another detour, it captures the sizes' variables */
  p.count = T->root->size;
  p.caps = plan_captures(w, r, true, &p.count);
  p.ncaps = r->ncaps;
  if (r->kind == RG_MPI) {
    plan_entry *en = &w->entry;
    p.mpi_body = en->nmpi_bodies++;
    const char **nb = arena_alloc(w->ar, sizeof *nb * (size_t)en->nmpi_bodies);
    if (p.mpi_body) memcpy(nb, en->mpi_bodies, sizeof *nb * (size_t)p.mpi_body);
    nb[p.mpi_body] = p.fname;
    en->mpi_bodies = nb;
  }
  const char *code = emit_detour(&w->em, &p);
  if (w->target == TARGET_CUDA && !thread_region(w)) {
    /* the threads' own waits must not find (and claim) an error of a kernel this thread launched */
    plan_site site = lw_site(w, d->loc, p.site.what);
    code = arena_printf(w->ar, "%s\n  %s", emit_cuda_wait(&w->em, &site, true), code);
  }
  lw_replace_dir(w, it, code);
}

static item *params_group(lw *w, ptype *T) {
  item *g = arena_alloc(w->ar, sizeof *g);
  g->kind = IT_GROUP;
  g->grp = arena_alloc(w->ar, sizeof *g->grp);
  g->grp->open = '(';
  g->grp->body = T->cuda_params;
  g->loc = T->cuda_params_loc;
  return g;
}

/* the launch bounds of T's kernel (none after reporting min_blocks without a constant block) */
static void launch_bounds(lw *w, ptype *T, directive *d, plan_detour *p) {
  int64_t bthreads;
  bool bconst = ex_is_const(T->root->kids[1]->size, &bthreads);
  if (T->min_blocks && !bconst) {
    diag_error(w->dg, T->min_blocks_loc, "min_blocks needs the block size of '%s' to be a compile-time constant",
               T->name);
    diag_note(w->dg, d->name, "in the kernel of this #detour");
    return;
  }
  if (bconst) p->block_threads = bthreads;
  if (T->min_blocks) p->min_blocks = ex_str(&w->ex, T->min_blocks, false);
}

/* the kernel's parameters as declared, its arguments as the enclosing code
 * computes them; false after reporting a count that does not match */
static bool kernel_args(lw *w, directive *d, ptype *T, cd_stmt *ps, items **args, plan_detour *p) {
  int nargs = d->has_args ? lw_split_args(w, &d->args, args) : 0;
  if (nargs == 1 && (*args)[0].n == 0) nargs = 0;
  if (nargs != ps->ndecls) {
    diag_error(w->dg, d->has_args ? d->argsloc : d->name, "#detour %s passes %d argument%s; the kernel of '%s' takes %d",
               T->name, nargs, nargs == 1 ? "" : "s", T->name, ps->ndecls);
    return false;
  }
  /* the parameters' own names are declarations, never substituted */
  item **names = arena_alloc(w->ar, sizeof *names * (size_t)(ps->ndecls ? ps->ndecls : 1));
  for (int i = 0; i < ps->ndecls; i++) names[i] = ps->decls[i].name;
  lw_subst keep = {.keep = names, .nkeep = ps->ndecls};
  p->params = lw_items_subst(w, T->cuda_params.first, T->cuda_params.last, &keep);
  p->nargs = nargs;
  p->args = arena_alloc(w->ar, sizeof *p->args * (size_t)(nargs ? nargs : 1));
  for (int i = 0; i < nargs; i++) p->args[i].arg = lw_list_text(w, &(*args)[i]);
  return true;
}

/* a cooperative launch passes its arguments through locals declared like the parameters */
static void coop_params(lw *w, cd_stmt *ps, plan_detour *p) {
  for (int i = 0; i < ps->ndecls; i++) {
    lw_subst sub = {.sub = ps->decls[i].name, .sub_text = ""};
    char *decl = lw_items_subst(w, ps->decls[i].decl_first, ps->decls[i].decl_last, &sub);
    int at = sub.sub_pos < 0 ? (int)strlen(decl) : sub.sub_pos;
    p->args[i].decl = (plan_decl){arena_strndup(w->ar, decl, (size_t)at), decl + at};
    p->args[i].spec = lw_items_text(w, ps->decls[i].spec_first, ps->decls[i].spec_last);
  }
}

/* The arguments the launch checks against the GPUs of distributed dmem
 * blocks (docs/cuda.md): those of pointer parameters (declared as pointers,
 * or as arrays, which C adjusts to pointers). A cooperative launch checks
 * the local it passes; a plain one evaluates the argument once more for the
 * check, so it leaves out an argument with side effects (or a call). */
static void home_checks(lw *w, cd_stmt *ps, items *args, plan_detour *p) {
  for (int i = 0; i < ps->ndecls; i++) {
    cd_decl *d = &ps->decls[i];
    p->args[i].name = d->name ? lw_text(w, d->name->loc) : arena_printf(w->ar, "#%d", i + 1);
    p->args[i].home = d->is_pointer || d->is_array || d->array_suffix;
    if (!p->args[i].home || p->grid_sync) continue;
    ltok *t;
    arena_mark mk = arena_save(&w->scratch);
    int nt = lw_ltoks(w, &args[i], &t, LW_CAPTURE);
    p->args[i].home = cx_side_effect(&w->cx, t, nt) < 0;
    arena_restore(&w->scratch, mk);
  }
}

/* ---- whether the launch waits ------------------------------------------------ */

typedef enum { CL_NONE, CL_WAIT, CL_NOWAIT, CL_BAD } clause_kind;

/* the clause after the detour's arguments; reports one that is not a clause */
static clause_kind detour_clause(lw *w, directive *d) {
  if (!d->detour.word.has) return CL_NONE;
  const char *s = w->src->text + d->detour.word.kw.b;
  size_t n = d->detour.word.kw.e - d->detour.word.kw.b;
  if (str_eq(s, n, "wait")) return CL_WAIT;
  if (str_eq(s, n, "nowait")) return CL_NOWAIT;
  const char *near = str_edit_distance(s, n, "nowait", 6) <= 2 ? "nowait"
                     : str_edit_distance(s, n, "wait", 4) <= 2 ? "wait"
                                                               : NULL;
  if (near)
    diag_error(w->dg, d->detour.word.kw, "unknown clause '%.*s' after #detour; did you mean '%s'?", (int)n, s, near);
  else
    diag_error(w->dg, d->detour.word.kw, "unknown clause '%.*s' after #detour: a cuda detour takes 'wait' or 'nowait' after "
               "its arguments", (int)n, s);
  return CL_BAD;
}

static bool punct_item(const item *it, int p) {
  return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p;
}

/* An argument that is device memory of a dmem #create: its variable, or
 * pointer arithmetic on it (a + off, off + a), with no '?' that could pick
 * another pointer. */
static bool dmem_arg(lw *w, items *a) {
  if (a->n == 1 && a->first->kind == IT_GROUP && a->first->grp->open == '(') return dmem_arg(w, &a->first->grp->body);
  item *before_last = NULL;
  for (item *it = a->first; it; it = it->next) {
    if (punct_item(it, '?') || punct_item(it, '=')) return false;
    if (it->next && !it->next->next) before_last = it;
  }
  if (a->n == 1) return lw_names_dmem(w, a->first);
  item *f = a->first;
  if (lw_names_dmem(w, f) && (punct_item(f->next, '+') || punct_item(f->next, '-'))) return true;
  return before_last && punct_item(before_last, '+') && lw_names_dmem(w, a->last);
}

/* Declaration specifiers that make an arithmetic value, passed by value
 * with nothing the kernel could write through. */
static bool arith_spec(lw *w, const char *s, size_t n) {
  static const char *const ws[] = {"char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
                                   "bool", "const", "volatile", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t",
                                   "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "parray_int64_t",
                                   "parray_size_t", NULL};
  (void)w;
  for (size_t i = 0; i < n;) {
    if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) {
      i++;
      continue;
    }
    size_t b = i;
    while (i < n && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                     (s[i] >= '0' && s[i] <= '9')))
      i++;
    const char *const *p = ws;
    while (*p && !str_eq(s + b, i - b, *p)) p++;
    if (!*p) return false;
  }
  return true;
}

static bool arith_decl(lw *w, const cd_decl *d) {
  if (d->is_pointer || d->is_array || d->array_suffix || !d->spec_first) return false;
  return arith_spec(w, w->src->text + d->spec_first->loc.b, d->spec_last->loc.e - d->spec_first->loc.b);
}

/* Nothing the host does after the launch can observe the kernel before the
 * next wait: every pointer argument is dmem of a #create, every other
 * argument and every capture an arithmetic value. */
static bool unobservable(lw *w, cd_stmt *ps, items *args, region *r) {
  for (int i = 0; i < ps->ndecls; i++) {
    cd_decl *d = &ps->decls[i];
    if (d->is_pointer || d->is_array || d->array_suffix ? !dmem_arg(w, &args[i]) : !arith_decl(w, d)) return false;
  }
  for (int i = 0; i < r->ncaps; i++) {
    sym *s = r->caps[i].s;
    if (r->caps[i].mode != CAP_VALUE) return false;
    if (s->type_spec ? !arith_spec(w, s->type_spec, strlen(s->type_spec)) || strchr(s->type_decl, '*')
                     : !s->has_decl || !arith_decl(w, &s->decl))
      return false;
  }
  return true;
}

/* Whether the launch waits: as its clause says; from inside a pthd or mpi
 * detour always; from host code unless it is unobservable. */
static bool launch_waits(lw *w, directive *d, clause_kind cl, cd_stmt *ps, items *args, region *r) {
  if (cl == CL_WAIT) return true;
  if (thread_region(w)) {
    if (cl == CL_NOWAIT)
      diag_error(w->dg, d->detour.word.kw, "'nowait' on a cuda detour inside a %s detour: a launch from the threads of a "
                 "thread array always waits", kind_word(thread_region(w)->kind));
    return true;
  }
  return cl != CL_NOWAIT && !unobservable(w, ps, args, r);
}

/* The tensor maps of the body's bulk tensor copies (lower_tma.c), as the
 * enclosing code computes them before the launch: the tensor is the
 * argument of a parameter, evaluated once more there, so it must be free of
 * side effects (false after reporting). */
static bool tensor_maps(lw *w, directive *d, region *r, items *args, plan_detour *p) {
  p->tmaps = r->tmaps, p->ntmaps = r->ntmaps;
  for (int i = 0; i < r->ntmaps; i++) {
    plan_tmap *m = &r->tmaps[i];
    items *a = &args[r->tmap_arg[i]];
    ltok *t;
    arena_mark mk = arena_save(&w->scratch);
    int nt = lw_ltoks(w, a, &t, LW_CAPTURE);
    int se = cx_side_effect(&w->cx, t, nt);
    loc at = se >= 0 ? t[se].loc : d->loc;
    arena_restore(&w->scratch, mk);
    if (se >= 0) {
      diag_error(w->dg, at, "this argument is the tensor of a tma #copy in the body: the host reads it again to "
                 "build the tensor map, so it cannot have side effects");
      return false;
    }
    m->base = p->args[r->tmap_arg[i]].arg;
    for (int j = 0; j < 2 * m->rank; j++) m->dims[j] = lw_localize(w, m->dims[j], r->at);
  }
  return true;
}

static void detour_cuda(lw *w, item *it, region *r) {
  directive *d = it->dir;
  ptype *T = r->thread;
  if (w->target != TARGET_CUDA) {
    diag_error(w->dg, d->name, "'%s' is a cuda thread array: this file needs the CUDA target (--emit=cuda)", T->name);
    return;
  }
  for (region *o = w->rg; o; o = o->outer)
    if (o->kind == RG_CUDA) {
      diag_error(w->dg, d->kw, "a cuda detour inside a cuda detour: kernels cannot launch kernels here");
      return;
    }
  if (T->bad) return; /* reported at its declaration */
  clause_kind cl = detour_clause(w, d);
  if (cl == CL_BAD) return;
  w->entry.uses_cuda = true;
  cd_stmt ps = cd_params(&w->cd, params_group(w, T));
  items *args = NULL;
  plan_detour p = {.kind = PK_CUDA, .type = T->name};
  if (!kernel_args(w, d, T, &ps, &args, &p)) return;
  r->params = &ps;
  lw_tma_prescan(w, it->dir->block, r);
  lw_smem_prescan(w, it->dir->block, r);
  p.body = walk_body(w, it, r, &ps, NULL);
  p.typedefs_used = w->ltypes_used;
  p.smem_bytes = r->dsmem_bytes;
  r->params = NULL;
  p.fname = lw_fresh_name(w, "k", T->name, d->loc);
  if (!tensor_maps(w, d, r, args, &p)) return;
  tgt_cuda_dims(T, 0, p.grid);
  tgt_cuda_dims(T, 1, p.block);
  launch_bounds(w, T, d, &p);
  p.caps = plan_captures(w, r, false, NULL);
  p.ncaps = r->ncaps;
  p.site = lw_site(w, d->loc, arena_printf(w->ar, "#detour %s", T->name));
  p.grid_sync = r->uses_sync;
  if (p.grid_sync) coop_params(w, &ps, &p);
  home_checks(w, &ps, args, &p);
  p.wait = launch_waits(w, d, cl, &ps, args, r);
  lw_replace_dir(w, it, emit_detour(&w->em, &p));
}

void lw_detour(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad) return;
  dnode *n = lw_resolve(w, d->name, true);
  if (!n) return;
  ptype *T = n->type;
  if (T->bad) return;
  if (T->thread == TK_DATA) {
    diag_error(w->dg, d->name, "#detour needs a thread array type; '%s' is a data type", n->path);
    return;
  }
  if (n != T->root) {
    diag_error(w->dg, d->name, "#detour runs a whole thread array: use '%s', not its dimension '%s'", T->name, n->path);
    return;
  }
  region *r = arena_alloc(w->ar, sizeof *r);
  r->kind = T->thread == TK_PTHD ? RG_PTHD : T->thread == TK_MPI ? RG_MPI : RG_CUDA;
  r->thread = T, r->id = ++w->next_id, r->outer = w->rg, r->at = d->loc;
  if (r->kind != RG_CUDA && d->detour.word.has) {
    diag_error(w->dg, d->detour.word.kw, "'%.*s' after a %s detour: only the launch of a cuda detour may wait or not "
               "('wait', 'nowait'); a %s detour ends when its threads do", (int)(d->detour.word.kw.e - d->detour.word.kw.b),
               w->src->text + d->detour.word.kw.b, kind_word(r->kind), kind_word(r->kind));
    return;
  }
  if (r->kind != RG_CUDA && d->has_args && d->args.n) {
    diag_error(w->dg, d->argsloc, "a %s detour takes no arguments: the body uses the variables around it",
               kind_word(r->kind));
    return;
  }
  if (r->kind == RG_MPI && thread_region(w)) {
    diag_error(w->dg, d->kw, "an mpi detour must be started from the host code of process 0, not from inside "
               "another detour");
    return;
  }
  if (r->kind == RG_CUDA) {
    detour_cuda(w, it, r);
    return;
  }
  if (r->kind == RG_PTHD) w->entry.uses_pthd = true;
  if (r->kind == RG_MPI) w->entry.uses_mpi = true;
  detour_host_threads(w, it, r);
}

void lw_sync(lw *w, item *it) {
  directive *d = it->dir;
  region *r = thread_region(w);
  if (!r && w->target == TARGET_CUDA && !memchr(w->src->text + d->kw.b, '_', d->kw.e - d->kw.b)) {
    /* host code of a CUDA program: wait for the device */
    plan_site site = lw_site(w, d->loc, "#sync");
    lw_replace_dir(w, it, emit_cuda_wait(&w->em, &site, false));
    return;
  }
  if (!r) {
    diag_error(w->dg, d->kw, "#sync outside a detour: it is a barrier over the threads of a thread array%s",
               w->target == TARGET_CUDA ? " (in host code, plain #sync waits for the GPU)" : "");
    return;
  }
  const char *kw = w->src->text + d->kw.b;
  size_t kl = d->kw.e - d->kw.b;
  const char *path = memchr(kw, '_', kl);
  int pl = path ? (int)(kw + kl - path) : 0;
  plan_sync s = SYNC_TEAM;
  if (r->kind == RG_CUDA) {
    s = SYNC_BLOCK;
    if (path && str_eq(path, (size_t)pl, "_0")) {
      s = SYNC_GRID;
      r->uses_sync = true; /* grid-wide: cooperative launch */
    } else if (path && !str_eq(path, (size_t)pl, "_1")) {
      diag_error(w->dg, d->kw, "'#sync%.*s': a cuda thread array has barriers over the block (#sync, #sync_1) and the "
                 "grid (#sync_0) only", pl, path);
      return;
    }
  } else if (path) {
    diag_error(w->dg, d->kw, "'#sync%.*s': barriers over part of a thread array exist only for cuda thread arrays "
               "(#sync_0, #sync_1)", pl, path);
    return;
  } else {
    r->uses_sync = true;
  }
  lw_replace_dir(w, it, w->em.ops->sync(&w->em, kind_of(r), s));
}

void lw_tid(lw *w, dollar *d, ex **out) {
  *out = NULL;
  region *r = thread_region(w);
  if (!r) {
    diag_error(w->dg, d->loc, "$%.*s$ used outside a detour: it is the index of a thread in a thread array",
               (int)(d->name.e - d->name.b), w->src->text + d->name.b);
    return;
  }
  dnode *p = r->thread->root;
  const char *s = w->src->text + d->name.b + 3;
  const char *e = w->src->text + d->name.e;
  while (s < e) {
    if (*s != '_' || s + 1 >= e || s[1] < '0' || s[1] > '9') {
      diag_error(w->dg, d->name, "'%.*s' is not a thread index: use $tid$ or $tid_P$ with P a path such as 0 or 1_0",
                 (int)(d->name.e - d->name.b), w->src->text + d->name.b);
      return;
    }
    const char *ds = ++s;
    while (s < e && *s >= '0' && *s <= '9') s++;
    int k = ty_path_index(ds, (size_t)(s - ds));
    if (k >= p->nkids) {
      diag_error(w->dg, d->name, "'%.*s' goes past the dimension tree of thread array '%s'",
                 (int)(d->name.e - d->name.b), w->src->text + d->name.b, r->thread->name);
      return;
    }
    p = p->kids[k];
  }
  if (r->kind == RG_CUDA) {
    *out = tgt_cuda_tid(&w->ty, r->thread, p);
    return;
  }
  int64_t sz;
  ex *tid = ex_atom(&w->ex, PLAN_THREAD_INDEX, 0, ex_is_const(r->thread->root->size, &sz) ? sz - 1 : EX_INF);
  *out = p == r->thread->root ? tid : ty_tid_digit(&w->ty, p, tid);
}
