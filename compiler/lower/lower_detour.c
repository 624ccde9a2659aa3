/* SPDX-License-Identifier: Apache-2.0 */
/* lower_detour.c - thread arrays (docs/threads.md): a #detour is checked,
 * its body walked (the print pass prints it apart), the variables of the enclosing scopes that
 * the body uses found through the translator's scopes and captured (by
 * reference for pthd, by value for mpi and cuda; a pointer there is an
 * error that names it), and the result planned as a plan_detour that the
 * target's emitter prints as an outlined function or kernel and the code
 * that runs it. A cuda detour launched from host code waits for its kernel
 * unless nothing the host does next can observe it before the next wait
 * (launch_waits; docs/cuda.md). $tid$ and #sync are lowered per kind; #sync
 * in the host code of a CUDA program waits for the device. */
#include "lower.h"
#include "lower_detour.h"
#include "lower_devuse.h"
#include "lower_dollar.h"
#include "lower_kinds.h"
#include "lower_localtypes.h"
#include "lower_mem.h"
#include "lower_prog.h"
#include "lower_reduce.h"
#include "lower_tma.h"

#include "runtime_names.h"
#include "target.h"

#include <string.h>

static const char *kind_word(region_kind k) {
  return k == RG_PTHD ? "pthd" : k == RG_MPI ? "mpi" : k == RG_CUDA ? "cuda" : "host";
}


/* ---- the detour ----------------------------------------------------------------- */

/* Walk the body with region r, its records between the two of the body
 * (LR_DETOUR_BODY): the print pass prints it apart and gives the text to
 * the detour's plan. The text opens with the enclosing function's local
 * types it uses unless a capture has one of them: then *local_types (when
 * given) gets them. */
static void walk_body(lw *w, item *it, region *r, cd_stmt *params, const char **local_types) {
  item *blk = it->dir->block;
  lw_block_conditionals(w, &blk->grp->body, "the block of this #detour", it->dir->kw);
  lw_record rec;
  lw_record_body(&rec, LR_DETOUR_BODY, it, LP_OPEN, blk->loc.b, 0, NULL);
  lw_put(w, &rec);
  region *saved = w->rg;
  w->rg = r;
  lw_scope_push(w);
  r->depth = w->sc.depth;
  if (params)
    for (int i = 0; i < params->ndecls; i++) {
      cd_decl *d = &params->decls[i];
      sym *s = sc_add(&w->sc, SYM_VAR, w->in.src->text + d->name->loc.b, d->name->loc.e - d->name->loc.b);
      s->decl = *d, s->has_decl = true, s->is_param = true, s->is_pointer = d->is_pointer, s->region = r->id;
    }
  lw_walk_block(w, blk);
  lw_scope_pop(w);
  w->rg = saved;
  /* the enclosing function's local types the body uses go with it */
  w->ltypes_used = NULL;
  char *types = lw_local_types_for(w, blk, r);
  bool local = false;
  for (int i = 0; i < r->ncaps; i++) local |= r->caps[i].local;
  if (types && local && local_types) *local_types = types, types = NULL;
  lw_record_body(&rec, LR_DETOUR_BODY, it, LP_CLOSE, blk->loc.b, blk->loc.e, NULL);
  rec.u.body.types = types;
  lw_put(w, &rec);
}

/* The region's captures, for the plan. With decls, every declaration comes
 * first, then *localize is made valid in the enclosing code, then the
 * values; without, each value follows its declaration. (Declarations and
 * values may capture in the enclosing detour too: this is their order.) */
static plan_capture *plan_captures(lw *w, region *r, bool decls, ex **localize) {
  plan_capture *pc = arena_alloc(w->in.ar, sizeof *pc * (size_t)(r->ncaps ? r->ncaps : 1));
  for (int i = 0; i < r->ncaps; i++) {
    capture *c = &r->caps[i];
    pc[i] = (plan_capture){.mode = c->mode, .field = c->field, .bytes = c->bytes};
    if (c->mode == CAP_HANDLE)
      pc[i].elem = c->s->created->type->elem, pc[i].device = c->s->created->type->mem == MK_DMEM;
    else if (c->use && decls) pc[i].decl = (plan_decl){"void *", ""}; /* a variable-length array */
    else if (c->mode != CAP_ERROR && decls) pc[i].decl = lw_field_decl(w, c->s, c->mode);
  }
  if (localize) *localize = lw_localize(w, *localize, r->at);
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].mode != CAP_ERROR) {
      if (!decls && r->caps[i].mode == CAP_VALUE) pc[i].decl = lw_field_decl(w, r->caps[i].s, CAP_VALUE);
      pc[i].init = lw_capture_init(w, r, &r->caps[i]);
    }
  return pc;
}

/* The thread's position for a debugger (docs/debugging.md): its linear
 * index (cuda: the outlined host function has it already) and its index
 * along each dimension of the thread array's root, as $tid_<k>$ is. */
static void thread_position(lw *w, region *r, bool cuda, plan_detour *p) {
  ptype *T = r->thread;
  dnode *root = T->root;
  int64_t sz;
  ex *tid = cuda ? tgt_cuda_tid_from(&w->ty, T, root, lw_block_index(r))
                 : ex_atom(&w->ex, PLAN_THREAD_INDEX, 0, ex_is_const(root->size, &sz) ? sz - 1 : EX_INF);
  if (cuda) p->tid = tid;
  p->npos = root->nkids;
  p->pos = arena_alloc(w->in.ar, sizeof *p->pos * (size_t)(root->nkids ? root->nkids : 1));
  for (int k = 0; k < root->nkids; k++)
    p->pos[k] = cuda ? tgt_cuda_tid_from(&w->ty, T, root->kids[k], lw_block_index(r))
                     : ty_tid_digit(&w->ty, root->kids[k], tid);
}

static void detour_host_threads(lw *w, item *it, region *r, lw_record *out) {
  directive *d = it->dir;
  ptype *T = r->thread;
  plan_detour p = {.kind = lw_kind_of(r), .type = T->name, .wide = ex_needs_wide(T->root->size)};
  walk_body(w, it, r, NULL, &p.local_types);
  p.typedefs_used = w->ltypes_used;
  p.fname = lw_fresh_name(w, r->kind == RG_PTHD ? "pthd" : "mpi", T->name, d->loc);
  p.site = lw_site(w, d->loc, arena_printf(w->in.ar, "#detour %s", T->name));
  /* the enclosing code starts the threads: inside another detour, it captures the sizes' variables */
  p.count = T->root->size;
  p.caps = plan_captures(w, r, true, &p.count);
  p.ncaps = r->ncaps;
  if (!lw_reduce_plan(w, r, &p)) return;
  thread_position(w, r, false, &p);
  if (r->kind == RG_MPI) {
    plan_entry *en = &w->entry;
    p.mpi_body = en->nmpi_bodies++;
    const char **nb = arena_alloc(w->in.ar, sizeof *nb * (size_t)en->nmpi_bodies);
    if (p.mpi_body) memcpy(nb, en->mpi_bodies, sizeof *nb * (size_t)p.mpi_body);
    nb[p.mpi_body] = p.fname;
    en->mpi_bodies = nb;
  }
  /* the threads' own waits must not find (and claim) an error of a kernel this thread launched */
  bool wait_first = lw_caps(w)->stream_ordered && !lw_thread_region(w);
  lw_record_detour(out, it, &p, wait_first, lw_site(w, d->loc, p.site.what));
}

static item *params_group(lw *w, ptype *T) {
  item *g = arena_alloc(w->in.ar, sizeof *g);
  g->kind = IT_GROUP;
  g->grp = arena_alloc(w->in.ar, sizeof *g->grp);
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
    diag_error(w->in.dg, T->min_blocks_loc, "min_blocks needs the block size of '%s' to be a compile-time constant",
               T->name);
    diag_note(w->in.dg, d->name, "in the kernel of this #detour");
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
    diag_error(w->in.dg, d->has_args ? d->argsloc : d->name,
               "#detour %s passes %d argument%s; the kernel of '%s' takes %d", T->name, nargs, nargs == 1 ? "" : "s",
               T->name, ps->ndecls);
    return false;
  }
  /* the parameters' own names are declarations, never substituted */
  item **names = arena_alloc(w->in.ar, sizeof *names * (size_t)(ps->ndecls ? ps->ndecls : 1));
  for (int i = 0; i < ps->ndecls; i++) names[i] = ps->decls[i].name;
  lw_subst keep = {.keep = names, .nkeep = ps->ndecls};
  p->params = lw_items_subst(w, T->cuda_params.first, T->cuda_params.last, &keep);
  p->nargs = nargs;
  p->args = arena_alloc(w->in.ar, sizeof *p->args * (size_t)(nargs ? nargs : 1));
  for (int i = 0; i < nargs; i++) p->args[i].arg = lw_list_text(w, &(*args)[i]);
  return true;
}

/* a cooperative launch passes its arguments through locals declared like the parameters */
static void coop_params(lw *w, cd_stmt *ps, plan_detour *p) {
  for (int i = 0; i < ps->ndecls; i++) {
    lw_subst sub = {.sub = ps->decls[i].name, .sub_text = ""};
    char *decl = lw_items_subst(w, ps->decls[i].decl_first, ps->decls[i].decl_last, &sub);
    int at = sub.sub_pos < 0 ? (int)strlen(decl) : sub.sub_pos;
    p->args[i].decl = (plan_decl){arena_strndup(w->in.ar, decl, (size_t)at), decl + at};
    p->args[i].spec = lw_items_text(w, ps->decls[i].spec_first, ps->decls[i].spec_last);
  }
}

/* ---- sizes written with the kernel's parameters ------------------------------
 * `cuda(long n) [(n + 255) / 256][256]`: the grid is sized by what the
 * #detour passes as n, not by a variable of the enclosing code that happens
 * to have that name. Such a name in a size becomes the launch's local
 * holding the argument (every argument is then evaluated once, in order,
 * into locals declared like the parameters, before the grid is computed):
 * p->bind_args when a size names one. */
static void bind_sizes(lw *w, cd_stmt *ps, plan_detour *p) {
  const char **names = arena_alloc(w->in.ar, sizeof *names * (size_t)(ps->ndecls ? ps->ndecls : 1));
  const char **repl = arena_alloc(w->in.ar, sizeof *repl * (size_t)(ps->ndecls ? ps->ndecls : 1));
  int n = 0;
  for (int k = 0; k < ps->ndecls; k++)
    if (ps->decls[k].name)
      names[n] = lw_text(w, ps->decls[k].name->loc), repl[n++] = arena_printf(w->in.ar, GEN_LAUNCH_ARG "%d", k);
  p->bind_args = false;
  for (int k = 0; k < 3; k++) {
    ex *g = p->grid[k] ? cx_rename(&w->cx, p->grid[k], names, repl, n) : NULL;
    ex *b = p->block[k] ? cx_rename(&w->cx, p->block[k], names, repl, n) : NULL;
    p->bind_args |= g != p->grid[k] || b != p->block[k];
    p->grid[k] = g, p->block[k] = b;
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
    p->args[i].name = d->name ? lw_text(w, d->name->loc) : arena_printf(w->in.ar, "#%d", i + 1);
    p->args[i].home = d->is_pointer || d->is_array || d->array_suffix;
    if (!p->args[i].home || p->grid_sync || p->bind_args) continue; /* those check their locals */
    ltok *t;
    arena_mark mk = arena_save(&w->scratch);
    int nt = lw_ltoks(w, &args[i], &t, LW_CAPTURE);
    p->args[i].home = cx_side_effect(&w->cx, t, nt) < 0;
    arena_restore(&w->scratch, mk);
  }
}

/* ---- whether the launch waits ------------------------------------------------ */

typedef enum { CL_NONE, CL_WAIT, CL_NOWAIT, CL_BAD } clause_kind;

/* the word clause after the detour's arguments (wait, nowait, or a
 * misspelling of them), NULL if none; reports a second one (with report) */
static dir_clause *word_clause(lw *w, directive *d, bool report) {
  dir_clause *found = NULL;
  for (int i = 0; i < d->detour.nclauses; i++) {
    dir_clause *c = &d->detour.clauses[i];
    if (c->word != CLAUSE_WORD) continue;
    const char *s = w->in.src->text + c->kw.b;
    size_t n = c->kw.e - c->kw.b;
    bool near = str_edit_distance(s, n, "nowait", 6) <= 2 || str_edit_distance(s, n, "wait", 4) <= 2;
    if (!near && !str_eq(s, n, "wait") && !str_eq(s, n, "nowait")) continue; /* reported with the other clauses */
    if (found) {
      if (report) diag_error(w->in.dg, c->kw, "a second 'wait' or 'nowait' after #detour");
      return found;
    }
    found = c;
  }
  return found;
}

/* the wait clause after the detour's arguments; reports a misspelled one */
static clause_kind detour_clause(lw *w, directive *d) {
  dir_clause *c = word_clause(w, d, false);
  if (!c) return CL_NONE;
  const char *s = w->in.src->text + c->kw.b;
  size_t n = c->kw.e - c->kw.b;
  if (str_eq(s, n, "wait")) return CL_WAIT;
  if (str_eq(s, n, "nowait")) return CL_NOWAIT;
  const char *near = str_edit_distance(s, n, "nowait", 6) <= 2 ? "nowait" : "wait";
  diag_error(w->in.dg, c->kw, "unknown clause '%.*s' after #detour; did you mean '%s'?", (int)n, s, near);
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
                                   "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", RT_INT64_T,
                                   RT_SIZE_T, NULL};
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
  return arith_spec(w, w->in.src->text + d->spec_first->loc.b, d->spec_last->loc.e - d->spec_first->loc.b);
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
  if (r->nreds) { /* the host reads the result */
    if (cl == CL_NOWAIT)
      diag_error(w->in.dg, word_clause(w, d, false)->kw,
                 "'nowait' on a cuda detour with reduce(...): the host waits for the "
                 "reduced values");
    return true;
  }
  if (lw_thread_region(w)) {
    if (cl == CL_NOWAIT)
      diag_error(w->in.dg, word_clause(w, d, false)->kw,
                 "'nowait' on a cuda detour inside a %s detour: a launch from the threads "
                 "of a thread array always waits",
                 kind_word(lw_thread_region(w)->kind));
    return true;
  }
  return cl != CL_NOWAIT && !unobservable(w, ps, args, r);
}

/* The tensor maps of the body's bulk tensor copies (lower_tma.c), as the
 * enclosing code computes them before the launch: the tensor is the
 * argument of a parameter, evaluated once more there, so it must be free of
 * side effects (false after reporting). */
static bool tensor_maps(lw *w, directive *d, region *r, items *args, plan_detour *p) {
  p->tmaps = r->cu->tmaps, p->ntmaps = r->cu->ntmaps;
  for (int i = 0; i < r->cu->ntmaps; i++) {
    plan_tmap *m = &r->cu->tmaps[i];
    items *a = &args[r->cu->tmap_arg[i]];
    ltok *t;
    arena_mark mk = arena_save(&w->scratch);
    int nt = lw_ltoks(w, a, &t, LW_CAPTURE);
    int se = cx_side_effect(&w->cx, t, nt);
    loc at = se >= 0 ? t[se].loc : d->loc;
    arena_restore(&w->scratch, mk);
    if (se >= 0) {
      diag_error(w->in.dg, at, "this argument is the tensor of a tma #copy in the body: the host reads it again to "
                 "build the tensor map, so it cannot have side effects");
      return false;
    }
    m->base = p->args[r->cu->tmap_arg[i]].arg;
    for (int j = 0; j < 2 * m->rank; j++) m->dims[j] = lw_localize(w, m->dims[j], r->at);
  }
  return true;
}

static void detour_cuda(lw *w, item *it, region *r, lw_record *out) {
  directive *d = it->dir;
  ptype *T = r->thread;
  if (!lw_caps(w)->kernels) {
    diag_error(w->in.dg, d->name, "'%s' is a cuda thread array: this file needs the CUDA target (--emit=cuda)",
               T->name);
    return;
  }
  for (region *o = w->rg; o; o = o->outer)
    if (o->kind == RG_CUDA) {
      diag_error(w->in.dg, d->kw, "a cuda detour inside a cuda detour: kernels cannot launch kernels here");
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
  for (int i = 0; i < r->nreds; i++) /* the body names the copy and the parameter alike */
    for (int k = 0; k < ps.ndecls; k++)
      if (ps.decls[k].name && !strcmp(lw_text(w, ps.decls[k].name->loc), r->reds[i].p.name)) {
        diag_error(w->in.dg, d->name, "'%s' is reduced by this #detour and is also a parameter of the kernel of '%s': "
                   "rename one", r->reds[i].p.name, T->name);
        return;
      }
  r->cu = arena_alloc(w->in.ar, sizeof *r->cu);
  *r->cu = (lw_kernel){.params = ps, .walking = true};
  if (lw_caps(w)->tma) lw_tma_prescan(w, it->dir->block, r);
  lw_smem_prescan(w, it->dir->block, r);
  lw_reduce_fold(w, it->dir->block, r);
  walk_body(w, it, r, &ps, NULL);
  p.typedefs_used = w->ltypes_used;
  p.smem_bytes = r->cu->dsmem_bytes;
  r->cu->walking = false;
  p.fname = lw_fresh_name(w, "k", T->name, d->loc);
  if (!tensor_maps(w, d, r, args, &p)) return;
  tgt_cuda_dims(T, 0, p.grid);
  tgt_cuda_dims(T, 1, p.block);
  bind_sizes(w, &ps, &p);
  /* launched from a pthd or mpi body: the sizes' variables are that body's captures */
  for (int k = 0; k < 3; k++) {
    if (p.grid[k]) p.grid[k] = lw_localize(w, p.grid[k], d->loc);
    if (p.block[k]) p.block[k] = lw_localize(w, p.block[k], d->loc);
  }
  launch_bounds(w, T, d, &p);
  p.caps = plan_captures(w, r, false, NULL);
  p.ncaps = r->ncaps;
  p.site = lw_site(w, d->loc, arena_printf(w->in.ar, "#detour %s", T->name));
  p.grid_sync = r->uses_sync;
  if (p.grid_sync && r->nreds) {
    diag_error(w->in.dg, d->kw, "reduce(...) on a cuda detour with a grid-wide #sync_0 is not supported: reduce in a "
               "detour of its own");
    return;
  }
  if (!lw_reduce_plan(w, r, &p)) return;
  thread_position(w, r, true, &p);
  if (p.grid_sync || p.bind_args) coop_params(w, &ps, &p);
  home_checks(w, &ps, args, &p);
  p.wait = launch_waits(w, d, cl, &ps, args, r);
  lw_record_detour(out, it, &p, false, p.site);
}

void lw_detour(lw *w, item *it, lw_record *out) {
  directive *d = it->dir;
  if (d->bad) return;
  dnode *n = lw_resolve(w, d->name, true);
  if (!n) return;
  ptype *T = n->type;
  if (T->bad) return;
  if (T->thread == TK_DATA) {
    diag_error(w->in.dg, d->name, "#detour needs a thread array type; '%s' is a data type", n->path);
    return;
  }
  if (n != T->root) {
    diag_error(w->in.dg, d->name, "#detour runs a whole thread array: use '%s', not its dimension '%s'", T->name,
               n->path);
    return;
  }
  region *r = arena_alloc(w->in.ar, sizeof *r);
  r->kind = T->thread == TK_PTHD ? RG_PTHD : T->thread == TK_MPI ? RG_MPI : RG_CUDA;
  r->thread = T, r->id = ++w->next_id, r->outer = w->rg, r->at = d->loc;
  dir_clause *word = word_clause(w, d, true);
  if (r->kind != RG_CUDA && word) {
    diag_error(w->in.dg, word->kw, "'%.*s' after a %s detour: only the launch of a cuda detour may wait or not "
               "('wait', 'nowait'); a %s detour ends when its threads do", (int)(word->kw.e - word->kw.b),
               w->in.src->text + word->kw.b, kind_word(r->kind), kind_word(r->kind));
    return;
  }
  if (r->kind != RG_CUDA && d->has_args && d->args.n) {
    diag_error(w->in.dg, d->argsloc, "a %s detour takes no arguments: the body uses the variables around it",
               kind_word(r->kind));
    return;
  }
  if (r->kind == RG_MPI && lw_thread_region(w)) {
    diag_error(w->in.dg, d->kw, "an mpi detour must be started from the host code of process 0, not from inside "
               "another detour");
    return;
  }
  if (!lw_reduce_clauses(w, d, r)) return;
  if (r->kind == RG_CUDA) {
    detour_cuda(w, it, r, out);
    return;
  }
  if (r->kind == RG_PTHD) w->entry.uses_pthd = true;
  if (r->kind == RG_MPI) w->entry.uses_mpi = true;
  detour_host_threads(w, it, r, out);
}

void lw_sync(lw *w, item *it, lw_record *out) {
  directive *d = it->dir;
  region *r = lw_thread_region(w);
  if (!r && lw_caps(w)->stream_ordered && !memchr(w->in.src->text + d->kw.b, '_', d->kw.e - d->kw.b)) {
    /* host code of a CUDA program: wait for the device */
    lw_record_wait(out, it, lw_site(w, d->loc, "#sync"), false);
    return;
  }
  if (!r) {
    diag_error(w->in.dg, d->kw, "#sync outside a detour: it is a barrier over the threads of a thread array%s",
               lw_caps(w)->stream_ordered ? " (in host code, plain #sync waits for the GPU)" : "");
    return;
  }
  const char *kw = w->in.src->text + d->kw.b;
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
      diag_error(w->in.dg, d->kw,
                 "'#sync%.*s': a cuda thread array has barriers over the block (#sync, #sync_1) and the "
                 "grid (#sync_0) only",
                 pl, path);
      return;
    }
  } else if (path) {
    diag_error(w->in.dg, d->kw, "'#sync%.*s': barriers over part of a thread array exist only for cuda thread arrays "
               "(#sync_0, #sync_1)", pl, path);
    return;
  } else {
    r->uses_sync = true;
  }
  lw_record_sync(out, it, lw_kind_of(r), s);
}
