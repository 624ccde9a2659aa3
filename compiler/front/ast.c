/* SPDX-License-Identifier: Apache-2.0 */
/* ast.c - constructors for the syntax tree (one per grammar action), and the
 * one question asked of the whole tree: whether the program needs CUDA. */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

static item *new_item(astctx *c, item_kind k, loc l) {
  item *it = arena_alloc(c->ar, sizeof *it);
  it->kind = (uint8_t)k;
  it->loc = l;
  return it;
}

item *ast_tok(astctx *c, loc l, int tokval) {
  item *it = new_item(c, IT_TOK, l);
  it->tk = (uint8_t)(tokval >> 16);
  it->punct = (uint16_t)(tokval & 0xffff);
  return it;
}

item *ast_ppline(astctx *c, loc l) { return new_item(c, IT_PPLINE, l); }

item *ast_group(astctx *c, loc open, char ch, items body, loc close) {
  item *it = new_item(c, IT_GROUP, loc_span(open, close));
  it->grp = arena_alloc(c->ar, sizeof *it->grp);
  it->grp->open = ch, it->grp->body = body, it->grp->close = close;
  return it;
}

void ast_fill_dollar(item *it, dollar *d) {
  it->kind = IT_DOLLAR, it->loc = d->loc;
  it->dol = d;
}

item *ast_dollar_item(astctx *c, dollar *d) {
  item *it = new_item(c, IT_DOLLAR, d->loc);
  ast_fill_dollar(it, d);
  return it;
}

void ast_fill_dir(item *it, directive *d) {
  it->kind = IT_DIR, it->loc = d->loc;
  it->dir = d;
  if (d->block) it->loc = loc_span(d->loc, d->block->loc);
  if (d->kind == D_SUBPROG && d->subprog.end.e) it->loc = loc_span(d->loc, d->subprog.end);
}

item *ast_dir_item(astctx *c, directive *d) {
  item *it = new_item(c, IT_DIR, d->loc);
  ast_fill_dir(it, d);
  return it;
}

static dollar *new_dollar(astctx *c, dollar_kind k, loc all, loc name) {
  dollar *d = arena_alloc(c->ar, sizeof *d);
  d->kind = k, d->loc = all, d->name = name;
  return d;
}

dollar *ast_dollar_tid(astctx *c, loc all, loc name) { return new_dollar(c, DL_TID, all, name); }

dollar *ast_dollar_func(astctx *c, loc all, loc name, loc arg) {
  dollar *d = new_dollar(c, DL_FUNC, all, name);
  d->arg = arg;
  return d;
}

dollar *ast_dollar_access(astctx *c, loc all, loc name, index_t *idx) {
  dollar *d = new_dollar(c, DL_ACCESS, all, name);
  d->idx = idx;
  for (index_t *x = idx; x; x = x->next) d->nidx++;
  return d;
}

/* NAME(list, x): the list of nodes of type T (linked through next) with x
 * appended; list may be NULL. The grammar builds indices and dimensions
 * left to right with these. */
#define DEFINE_APPEND(NAME, T)              \
  T *NAME(T *list, T *x) {                  \
    if (!list) return x;                    \
    T *p = list;                            \
    while (p->next) p = p->next;            \
    p->next = x;                            \
    return list;                            \
  }
DEFINE_APPEND(ast_index_append, index_t)
DEFINE_APPEND(ast_dim_append, dimast)

static index_t *new_index(astctx *c, loc l) {
  index_t *x = arena_alloc(c->ar, sizeof *x);
  x->loc = l;
  return x;
}

index_t *ast_index_expr(astctx *c, loc l, items expr) {
  index_t *x = new_index(c, l);
  x->expr = expr;
  return x;
}

index_t *ast_index_list(astctx *c, loc l, index_t *sub) {
  index_t *x = new_index(c, l);
  x->sub = sub;
  return x;
}

static dimast *new_dim(astctx *c, dimast_kind k, loc l) {
  dimast *d = arena_alloc(c->ar, sizeof *d);
  d->kind = k, d->loc = l;
  return d;
}

dimast *ast_dim_size(astctx *c, loc l, items size, loc sizeloc) {
  dimast *d = new_dim(c, DA_SIZE, l);
  d->size = size, d->sizeloc = sizeloc;
  return d;
}

dimast *ast_dim_ref(astctx *c, loc l, loc ref) {
  dimast *d = new_dim(c, DA_REF, l);
  d->ref = ref;
  return d;
}

dimast *ast_dim_sref(astctx *c, loc l, items size, loc sizeloc, loc ref) {
  dimast *d = new_dim(c, DA_SREF, l);
  d->size = size, d->sizeloc = sizeloc, d->ref = ref;
  return d;
}

static void set_kids(dimast *d, dimast *kids) {
  d->kids = kids;
  for (dimast *k = kids; k; k = k->next) d->nkids++;
}

dimast *ast_dim_comp(astctx *c, loc l, dimast *kids) {
  dimast *d = new_dim(c, DA_COMP, l);
  set_kids(d, kids);
  return d;
}

dimast *ast_dim_cref(astctx *c, loc l, dimast *kids, loc ref) {
  dimast *d = new_dim(c, DA_CREF, l);
  set_kids(d, kids);
  d->ref = ref;
  return d;
}

static tbody *new_tbody(astctx *c, loc l) {
  tbody *b = arena_alloc(c->ar, sizeof *b);
  b->loc = l, b->mem = MK_NONE, b->thread = TK_DATA;
  return b;
}

static void set_dims(tbody *b, dimast *dims) {
  b->dims = dims;
  for (dimast *d = dims; d; d = d->next) b->ndims++;
}

tbody *ast_tbody_data(astctx *c, loc l, int mem, loc elem, bool has_elem, dimast *dims) {
  tbody *b = new_tbody(c, l);
  b->mem = mem, b->elem = elem, b->has_elem = has_elem;
  set_dims(b, dims);
  return b;
}

tbody *ast_tbody_min_blocks(tbody *b, items expr, loc l) {
  b->min_blocks = expr, b->min_blocks_loc = l;
  return b;
}

tbody *ast_tbody_whole(astctx *c, loc l, int mem, loc elem, bool has_elem, loc ref) {
  tbody *b = new_tbody(c, l);
  b->mem = mem, b->elem = elem, b->has_elem = has_elem, b->whole = ref, b->is_whole = true;
  return b;
}

tbody *ast_tbody_thread(astctx *c, loc l, int kind, items params, loc ploc, dimast *dims) {
  tbody *b = new_tbody(c, l);
  b->thread = kind, b->cuda_params = params, b->cuda_params_loc = ploc;
  set_dims(b, dims);
  return b;
}

directive *ast_dir(astctx *c, dir_kind k, loc all, loc kw) {
  directive *d = arena_alloc(c->ar, sizeof *d);
  d->kind = k, d->loc = all, d->kw = kw;
  return d;
}

directive *ast_dir_parray(astctx *c, loc all, loc kw, tbody *b, loc name) {
  directive *d = ast_dir(c, D_PARRAY, all, kw);
  d->parray.body = b, d->name = name;
  return d;
}

directive *ast_dir_call(astctx *c, dir_kind k, loc all, loc kw, loc name, items args, loc argsloc) {
  directive *d = ast_dir(c, k, all, kw);
  d->name = name, d->args = args, d->argsloc = argsloc, d->has_args = true;
  return d;
}

directive *ast_dir_copy(astctx *c, loc all, loc kw, loc s, items sa, loc sal, dir_clause at, loc dt, items da, loc dal,
                        dir_clause after) {
  directive *d = ast_dir(c, D_COPY, all, kw);
  d->name = s, d->args = sa, d->argsloc = sal, d->has_args = true;
  d->copy.dst = dt, d->copy.dargs = da, d->copy.dargsloc = dal, d->copy.at = at;
  if (after.word == CLAUSE_BOUND) d->copy.bound = after;
  if (after.word == CLAUSE_TMA) d->copy.tma = after;
  return d;
}

dir_clause ast_clause(int word, loc kw, items args, loc argsloc) {
  return (dir_clause){word != CLAUSE_NONE, word, kw, args, argsloc};
}

dir_clauses ast_clauses_add(astctx *c, dir_clauses l, dir_clause x) {
  dir_clause *v = arena_alloc(c->ar, sizeof *v * (size_t)(l.n + 1));
  if (l.n) memcpy(v, l.v, sizeof *v * (size_t)l.n);
  v[l.n] = x;
  return (dir_clauses){v, l.n + 1};
}

directive *ast_dir_detour(astctx *c, loc all, loc kw, loc name, dir_clause args, dir_clauses cl, item *block) {
  directive *d = ast_dir(c, D_DETOUR, all, kw);
  d->name = name, d->has_args = args.has, d->block = block;
  d->args = args.args, d->argsloc = args.has ? args.argsloc : name;
  d->detour.clauses = cl.v, d->detour.nclauses = cl.n;
  return d;
}

directive *ast_dir_block(astctx *c, dir_kind k, loc all, loc kw, item *block) {
  directive *d = ast_dir(c, k, all, kw);
  d->block = block;
  return d;
}

directive *ast_dir_sync(astctx *c, loc all, loc kw, int level) {
  directive *d = ast_dir(c, D_SYNC, all, kw);
  d->sync.level = level;
  return d;
}

directive *ast_dir_subprog(astctx *c, loc all, loc kw, loc name, items params, loc ploc, items body, loc end) {
  directive *d = ast_dir(c, D_SUBPROG, all, kw);
  d->name = name, d->args = params, d->argsloc = ploc, d->has_args = true;
  d->subprog.body = body, d->subprog.end = end;
  return d;
}

directive *ast_dir_bad(astctx *c, dir_kind k, loc all, loc kw) {
  directive *d = ast_dir(c, k, all, kw);
  d->bad = true;
  return d;
}

/* What the target decision looks at in an item: a #parray of device memory
 * (dmem, smem; rmem is a local array on the host too) or of cuda threads,
 * or INIT_GPU in the C code. */
static bool item_needs_cuda(const char *text, const item *it) {
  if (it->kind == IT_TOK)
    return it->tk == T_IDENT && str_eq(text + it->loc.b, it->loc.e - it->loc.b, "INIT_GPU");
  if (it->kind != IT_DIR || it->dir->kind != D_PARRAY || it->dir->bad) return false;
  const tbody *b = it->dir->parray.body;
  return b->mem == MK_DMEM || b->mem == MK_SMEM || b->thread == TK_CUDA;
}

/* the C code inside an item: a group's, a directive's block, a #subprog's body */
static const item *item_inner(const item *it) {
  if (it->kind == IT_GROUP) return it->grp->body.first;
  if (it->kind != IT_DIR) return NULL;
  return it->dir->block ? it->dir->block : it->dir->kind == D_SUBPROG ? it->dir->subprog.body.first : NULL;
}

bool ast_needs_cuda(const char *text, items prog) {
  VEC(const item *) rest = {0}; /* where each enclosing level goes on */
  bool cuda = false;
  const item *it = prog.first;
  while (!cuda && (it || rest.n > 0)) {
    if (!it) {
      it = rest.v[--rest.n];
      continue;
    }
    cuda = item_needs_cuda(text, it);
    const item *inner = item_inner(it);
    if (inner && it->next) vec_push(rest, it->next);
    it = inner ? inner : it->next;
  }
  vec_free(rest);
  return cuda;
}
