/* SPDX-License-Identifier: Apache-2.0 */
/* types.c - building dimension trees from #parray bodies: defaults for memory
 * kind and element type, references to other types' dimensions, sizes,
 * sibling weights and the strides of natural leaves (docs/language.md).
 * It calls nothing of layout.c: layouts are computed from built trees
 * (layout.c, which uses ty_is_mpi_ref from here), one way. */
#include "types.h"

#include <limits.h>
#include <ctype.h>
#include <string.h>

static dnode *new_node(tyctx *t, dn_kind k, ptype *ty, loc l) {
  dnode *n = arena_alloc(t->ar, sizeof *n);
  n->kind = k, n->type = ty, n->loc = l;
  return n;
}

static const char *text(tyctx *t, loc l) {
  while (l.b < l.e && (t->src->text[l.b] == ' ' || t->src->text[l.b] == '\t' || t->src->text[l.b] == '\n')) l.b++;
  while (l.e > l.b && (t->src->text[l.e - 1] == ' ' || t->src->text[l.e - 1] == '\t' || t->src->text[l.e - 1] == '\n'))
    l.e--;
  return arena_strndup(t->ar, t->src->text + l.b, l.e - l.b);
}

int ty_path_index(const char *s, size_t n) {
  int v = 0;
  for (size_t k = 0; k < n; k++) {
    int d = s[k] - '0';
    if (v > (INT_MAX - d) / 10) return INT_MAX;
    v = v * 10 + d;
  }
  return v;
}

dnode *ty_resolve(tyctx *t, const char *name, size_t len, loc where, bool report) {
  /* Split trailing _digits groups off until the rest names a type. */
  int digits[32], nd = 0;
  size_t n = len;
  dnode *base = NULL;
  t->failed = NULL;
  for (;;) {
    base = sp_lookup_type(t->prog, name, n, where, false);
    if (base) break;
    size_t i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    if (i == n || i < 2 || name[i - 1] != '_' || nd == 32) break;
    digits[nd++] = ty_path_index(name + i, n - i);
    n = i - 1;
  }
  if (!base) {
    if (report) {
      /* let the lookup report (it knows about cycles) */
      if (!sp_lookup_type(t->prog, name, len, where, true))
        diag_error(t->dg, where, "unknown array type '%.*s'", (int)len, name);
    }
    return NULL;
  }
  if (base->type && base->type->bad && !base->type->root) {
    t->failed = base; /* its declaration failed and was reported: uses stay silent */
    return NULL;
  }
  if (base->type && base->type->building) {
    if (report) diag_error(t->dg, where, "reference cycle: type '%s' refers to itself", base->type->name);
    return NULL;
  }
  dnode *cur = base;
  for (int k = nd - 1; k >= 0; k--) {
    if (digits[k] >= cur->nkids) {
      if (report) {
        if (cur->nkids == 0)
          diag_error(t->dg, where, "'%.*s' goes past the dimension tree: '%s' has no sub-dimensions", (int)len,
                     name, cur->path);
        else
          diag_error(t->dg, where, "'%.*s' goes past the dimension tree: '%s' has %d dimension%s", (int)len, name,
                     cur->path, cur->nkids, cur->nkids == 1 ? "" : "s");
      }
      return NULL;
    }
    cur = cur->kids[digits[k]];
  }
  return cur;
}

/* The number of elements of a node with these children: their product,
 * which must fit in 64 bits when it is known at compile time. */
static ex *size_product(tyctx *t, ptype *ty, dnode **kids, int n, loc where, bool *ok) {
  ex *s = ex_const(t->ex, 1);
  for (int i = 0; i < n; i++) {
    int64_t a, b, r;
    if (ex_is_const(s, &a) && ex_is_const(kids[i]->size, &b) && ex_fold(EX_MUL, a, b, &r) != EXF_OK) {
      diag_error(t->dg, where, "type '%s' has too many elements: %lld x %lld does not fit in 64 bits", ty->name,
                 (long long)a, (long long)b);
      *ok = false;
      return NULL;
    }
    s = ex_mul(t->ex, s, kids[i]->size);
  }
  return s;
}

static dnode *resolve_ref(tyctx *t, loc ref) {
  return ty_resolve(t, t->src->text + ref.b, ref.e - ref.b, ref, true);
}

/* Build the node for one dimension of the #parray body. */
static dnode *build_dim(tyctx *t, ptype *ty, dimast *d, bool under_ref, bool *ok) {
  dnode *n = NULL;
  switch (d->kind) {
  case DA_SIZE:
    n = new_node(t, DN_LEAF, ty, d->loc);
    n->size = sp_eval_size(t->prog, &d->size, d->sizeloc, "dimension size");
    break;
  case DA_REF:
  case DA_SREF:
  case DA_CREF: {
    if (under_ref) {
      diag_error(t->dg, d->loc, "a dimension inside a referencing dimension cannot reference another type");
      *ok = false;
    }
    dnode *r = resolve_ref(t, d->ref);
    if (!r) {
      *ok = false;
      return NULL;
    }
    if (r->type && r->type->thread != TK_DATA && ty->thread == TK_DATA && r->type->thread != TK_MPI) {
      diag_error(t->dg, d->ref, "'%.*s' is a thread array type; a data type may reference only data types or "
                 "an mpi thread array", (int)(d->ref.e - d->ref.b), t->src->text + d->ref.b);
      *ok = false;
    }
    n = new_node(t, d->kind == DA_REF ? DN_REF : d->kind == DA_SREF ? DN_SREF : DN_CREF, ty, d->loc);
    n->ref = r;
    if (r->type && r->type->thread == TK_MPI && !ty->mpi_ref) ty->mpi_ref = n;
    /* a view of a distributed type is distributed: its local and process
     * layouts come through the reference */
    if (r->type && r->type->mpi_ref && ty->thread == TK_DATA && !ty->mpi_ref) ty->mpi_ref = r->type->mpi_ref;
    if (d->kind == DA_REF) {
      n->size = r->size;
      n->kids = r->kids, n->nkids = r->nkids; /* takes T_p's children as its own */
    } else if (d->kind == DA_SREF) {
      n->size = sp_eval_size(t->prog, &d->size, d->sizeloc, "dimension size");
    }
    break;
  }
  case DA_COMP:
    n = new_node(t, DN_COMP, ty, d->loc);
    break;
  }
  if (d->kind == DA_COMP || d->kind == DA_CREF) {
    n->nkids = d->nkids;
    n->kids = arena_alloc(t->ar, sizeof *n->kids * (size_t)d->nkids);
    int j = 0;
    for (dimast *k = d->kids; k; k = k->next, j++) {
      dnode *c = build_dim(t, ty, k, under_ref || d->kind == DA_CREF, ok);
      if (!c) return NULL;
      c->parent = n, c->pos = j;
      n->kids[j] = c;
    }
    n->size = size_product(t, ty, n->kids, n->nkids, d->loc, ok);
  }
  if (!n->size) {
    *ok = false;
    return NULL; /* a size that could not be read was reported */
  }
  return n;
}

/* Paths, weights, derived flags; then natural strides over the leaf sequence. */
static void finish_node(tyctx *t, dnode *n, const char *path, bool derived) {
  n->path = path;
  n->derived = derived;
  if (n->kind == DN_REF) return; /* children belong to the referenced type */
  ex *w = ex_const(t->ex, 1);
  for (int j = n->nkids - 1; j >= 0; j--) {
    n->kids[j]->weight = w;
    w = ex_mul(t->ex, w, n->kids[j]->size);
  }
  for (int j = 0; j < n->nkids; j++)
    finish_node(t, n->kids[j], arena_printf(t->ar, "%s_%d", path, j), derived || n->kind == DN_CREF);
}

static void collect_leaves(dnode *n, dnode ***out, int *cnt, int *cap, arena *ar) {
  bool leaf = n->kind != DN_COMP || n->nkids == 0;
  if (n->derived) return;
  if (leaf) {
    if (*cnt == *cap) {
      int nc = *cap ? *cap * 2 : 16;
      dnode **nv = arena_alloc(ar, sizeof *nv * (size_t)nc);
      if (*cnt) memcpy(nv, *out, sizeof *nv * (size_t)*cnt);
      *out = nv, *cap = nc;
    }
    (*out)[(*cnt)++] = n;
    return;
  }
  for (int j = 0; j < n->nkids; j++) collect_leaves(n->kids[j], out, cnt, cap, ar);
}

bool ty_is_mpi_ref(const dnode *n) {
  return (n->kind == DN_REF || n->kind == DN_SREF || n->kind == DN_CREF) && n->ref && n->ref->type &&
         n->ref->type->thread == TK_MPI;
}

/* Natural strides over the leaf sequence. A reference to an mpi thread array
 * selects the process and takes no room in the local block (its process
 * index is the referenced node's offset in the thread array: ty_layout). */
static void set_strides(tyctx *t, dnode *root) {
  dnode **lv = NULL;
  int cnt = 0, cap = 0;
  collect_leaves(root, &lv, &cnt, &cap, t->ar);
  ex *s = ex_const(t->ex, 1);
  for (int i = cnt - 1; i >= 0; i--) {
    if (ty_is_mpi_ref(lv[i])) continue;
    if (lv[i]->kind == DN_LEAF) lv[i]->stride = s;
    s = ex_mul(t->ex, s, lv[i]->size);
  }
}

static dnode *first_data_ref(dnode *n) {
  if (n->ref && n->ref->type && n->ref->type->thread == TK_DATA) return n->ref;
  if (n->kind == DN_REF) return NULL;
  for (int j = 0; j < n->nkids; j++) {
    dnode *r = first_data_ref(n->kids[j]);
    if (r) return r;
  }
  return NULL;
}

/* where the source text defines the macro name (false: not in this text,
 * as for a header's) */
static bool find_define(const tyctx *t, const char *name, size_t n, loc *at) {
  const char *x = t->src->text, *end = x + t->src->len;
  for (const char *p = x; p < end; p++) {
    if (p != x && p[-1] != '\n') continue;
    const char *q = p;
    while (q < end && (*q == ' ' || *q == '\t')) q++;
    if (q == end || *q != '#') continue;
    for (q++; q < end && (*q == ' ' || *q == '\t'); q++) {}
    if (end - q < 7 || strncmp(q, "define", 6) != 0 || (q[6] != ' ' && q[6] != '\t')) continue;
    for (q += 6; q < end && (*q == ' ' || *q == '\t'); q++) {}
    if ((size_t)(end - q) > n && !strncmp(q, name, n) && !(isalnum((unsigned char)q[n]) || q[n] == '_')) {
      *at = (loc){(uint32_t)(p - x), (uint32_t)(q + n - x)};
      return true;
    }
  }
  return false;
}

/* The element type's text, or NULL when there is none. Without a memory
 * kind, a first word that is a macro expanding to one ({MEM float [4]},
 * #define MEM dmem; through as many macros as the C preprocessor would
 * expand) gives it. A first word that is a macro expanding to another lone
 * word which is neither a memory kind nor a type, before an element type,
 * is an error: it was meant as a memory kind ({MEM float [4]}, #define MEM
 * dram). */
static const char *elem_text(tyctx *t, const tbody *b, int *mem) {
  if (!b->has_elem) return NULL;
  const char *e = text(t, b->elem);
  if (*mem != MK_NONE || !t->prog) return e;
  size_t n = 0;
  while (e[n] && e[n] != ' ' && e[n] != '\t' && e[n] != '*') n++;
  const char *word = e, *body = NULL;
  size_t wn = n;
  for (int depth = 0; depth < 64 && wn; depth++) { /* the first word, expanded while it is a macro */
    const char *nb = sp_macro_body(t->prog, word, wn);
    if (!nb) break;
    while (*nb == ' ' || *nb == '\t') nb++;
    body = nb;
    word = nb, wn = 0;
    while (word[wn] && word[wn] != ' ' && word[wn] != '\t' && word[wn] != '*' && word[wn] != '(') wn++;
    if (word[wn] && word[wn] != ' ' && word[wn] != '\t') break; /* more than a word: stop here */
  }
  if (!body) return e;
  static const char *const kinds[] = {"paged", "pinned", "dmem", "smem", "rmem"};
  static const memkind_t mk[] = {MK_PAGED, MK_PINNED, MK_DMEM, MK_SMEM, MK_RMEM};
  for (int k = 0; k < 5; k++) {
    size_t m = strlen(kinds[k]);
    if (strncmp(body, kinds[k], m) || (body[m] && body[m] != ' ' && body[m] != '\t')) continue;
    *mem = mk[k];
    const char *rest = arena_printf(t->ar, "%s%s", body + m, e + n);
    while (*rest == ' ' || *rest == '\t') rest++;
    return *rest ? rest : NULL;
  }
  /* MEM float with MEM a lone word that no type starts with: a misspelt kind */
  bool lone = body[wn] == 0 || (body[wn] == ' ' && !body[wn + 1]);
  bool more = e[n] == ' ' || e[n] == '\t';
  if (lone && more && wn && t->prog && !sp_is_type_word(t->prog, body, wn)) {
    diag_error(t->dg, b->elem, "'%.*s' (from the macro '%.*s') is no memory kind (paged, pinned, dmem, smem, rmem)",
               (int)wn, body, (int)n, e);
    loc at;
    if (find_define(t, e, n, &at)) diag_note(t->dg, at, "the macro is defined here");
    return e; /* reported once: the type goes on with the words as written */
  }
  return e;
}

ptype *ty_build(tyctx *t, const char *name, loc nameloc, tbody *b, int instance) {
  ptype *ty = arena_alloc(t->ar, sizeof *ty);
  ty->name = name, ty->loc = nameloc, ty->thread = b->thread, ty->mem = b->mem, ty->instance = instance;
  ty->cuda_params = b->cuda_params, ty->cuda_params_loc = b->cuda_params_loc;
  const char *elem = elem_text(t, b, &ty->mem);
  ty->building = true;
  bool ok = true;
  dnode *root;
  if (b->is_whole) {
    /* {MEM ELEM #T}: the same dimension tree and offsets as T */
    dnode *r = resolve_ref(t, b->whole);
    if (!r) {
      ty->building = false;
      return NULL;
    }
    root = new_node(t, DN_REF, ty, b->whole);
    root->ref = r, root->size = r->size, root->kids = r->kids, root->nkids = r->nkids;
    if (r->type && r->type->mpi_ref) ty->mpi_ref = r->type->mpi_ref;
  } else {
    root = new_node(t, DN_COMP, ty, b->loc);
    root->nkids = b->ndims;
    root->kids = arena_alloc(t->ar, sizeof *root->kids * (size_t)(b->ndims ? b->ndims : 1));
    int j = 0;
    for (dimast *d = b->dims; d; d = d->next, j++) {
      dnode *c = build_dim(t, ty, d, false, &ok);
      if (!c) {
        ok = false;
        break;
      }
      c->parent = root, c->pos = j;
      root->kids[j] = c;
    }
    if (ok) root->size = size_product(t, ty, root->kids, root->nkids, b->loc, &ok);
  }
  ty->building = false;
  if (!ok) return NULL;
  ty->root = root;
  finish_node(t, root, name, false);
  set_strides(t, root);

  /* defaults: memory kind and element type of the first referenced type */
  dnode *first = first_data_ref(root);
  if (ty->thread == TK_DATA) {
    if (ty->mem == MK_NONE) ty->mem = first ? first->type->mem : MK_PAGED;
    if (elem) ty->elem = elem;
    else if (first) ty->elem = first->type->elem;
    else {
      diag_error(t->dg, nameloc, "type '%s' has no element type and references no other data type to take it from",
                 name);
      return NULL;
    }
  } else if (b->has_elem || ty->mem != MK_NONE) {
    diag_error(t->dg, b->loc, "a thread array type has no memory kind or element type");
    return NULL;
  }
  if (ty->thread != TK_DATA && !ty_is_natural(root)) {
    diag_error(t->dg, b->loc, "thread array types cannot reference other types");
    return NULL;
  }
  if (b->min_blocks.first) {
    ty->min_blocks_loc = b->min_blocks_loc;
    ty->min_blocks = sp_eval_size(t->prog, &b->min_blocks, b->min_blocks_loc, "min_blocks count");
    if (!ty->min_blocks) return NULL;
  }
  return ty;
}

bool ty_is_natural(dnode *n) {
  if (n->kind == DN_REF || n->kind == DN_SREF || n->kind == DN_CREF) return false;
  for (int j = 0; j < n->nkids; j++)
    if (!ty_is_natural(n->kids[j])) return false;
  return true;
}
