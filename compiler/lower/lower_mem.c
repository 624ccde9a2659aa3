/* SPDX-License-Identifier: Apache-2.0 */
/* lower_mem.c - storage: #create and #destroy for every memory kind
 * (docs/language.md, Storage) are checked here and planned as an
 * allocation on the host, on the device, in a kernel (smem, rmem) or
 * distributed over the processes of an mpi thread array; and a second
 * #destroy of what straight-line code already released is reported. */
#include "lower.h"
#include "lower_dollar.h"
#include "lower_kinds.h"
#include "lower_mem.h"
#include "lower_tma.h"

#include <ctype.h>
#include <string.h>

/* The dimensions below n whose sizes are known only at run time (at most
 * 16), for their one-by-one check. */
static void run_time_dims(lw *w, dnode *n, plan_bytes *b, sbuf *names) {
  if (n->nkids == 0) {
    int64_t v;
    if (!n->size || ex_is_const(n->size, &v) || b->ndims == 16) return;
    if (!b->dims) b->dims = arena_alloc(w->in.ar, 16 * sizeof *b->dims);
    b->dims[b->ndims++] = lw_localize(w, n->size, w->rg->at);
    sb_printf(names, "%s%s", names->len ? " " : "", n->path);
    return;
  }
  for (int i = 0; i < n->nkids; i++) run_time_dims(w, n->kids[i], b, names);
}

/* The byte count of n's footprint. A constant footprint of a known element
 * type is checked here; otherwise the generated code computes it with
 * checked arithmetic and stops the program, naming the .pc line, when it
 * does not fit. False after reporting an error. */
static bool create_bytes(lw *w, dnode *n, loc at, plan_bytes *out) {
  ex *fp = lw_localize(w, ty_footprint(&w->ty, n), w->rg->at);
  const char *elem = n->type->elem;
  int64_t v, es = lw_elem_bytes(w, elem);
  *out = (plan_bytes){.elems = fp, .elem = elem};
  if (ex_is_const(fp, &v) && es) {
    if (v > INT64_MAX / es) {
      diag_error(w->in.dg, at, "'%s' cannot be allocated: %lld elements of %lld bytes are more than the largest "
                 "object (%lld bytes)", n->path, (long long)v, (long long)es, (long long)INT64_MAX);
      return false;
    }
    return true;
  }
  if (!ex_is_const(fp, NULL) && ex_atom_free(fp)) {
    diag_error(w->in.dg, at, "'%s' cannot be allocated: its footprint does not fit in 64 bits", n->path);
    return false;
  }
  out->checked = true;
  sbuf names;
  sb_init(&names);
  run_time_dims(w, n, out, &names);
  out->dim_names = arena_strdup(w->in.ar, names.s ? names.s : "");
  sb_free(&names);
  return true;
}

static bool in_cuda_region(lw *w) {
  for (region *r = w->rg; r; r = r->outer)
    if (r->kind == RG_CUDA) return true;
  return false;
}
/* #create of a type distributed over an mpi thread array: collective; the
 * variable points to process 0's block (its handle is the emitter's); a
 * dmem type puts each process's block on its GPU (CUDA target only) */
static void create_distributed(lw *w, item *it, dnode *n, items *arg, lw_record *out) {
  directive *d = it->dir;
  loc vl;
  if (!lw_single_ident(arg, &vl)) {
    diag_error(w->in.dg, arg->n ? arg->first->loc : d->loc,
               "a distributed array is created into a variable: give a name");
    return;
  }
  if (w->rg->kind != RG_HOST) {
    diag_error(w->in.dg, d->kw, "#create of the distributed type '%s' is collective: it belongs in the host code of "
               "process 0, not inside a detour", n->path);
    return;
  }
  const char *name = lw_text(w, vl);
  sym *s = sc_find(&w->sc, name, strlen(name));
  bool fresh = !s || s->kind != SYM_VAR;
  if (!fresh && s->depth > 0 && !(s->created && s->created->type->mpi_ref)) {
    diag_error(w->in.dg, vl, "'%s' is already declared here: a distributed #create declares its own variable", name);
    return;
  }
  w->entry.uses_mpi = true;
  plan_alloc p = {.kind = AL_DIST, .mem = n->type->mem, .elem = n->type->elem, .target = name, .declare = fresh,
                  .site = lw_site(w, d->loc, lw_dir_text(w, it))};
  p.nprocs = lw_localize(w, ty_nprocs(&w->ty, n), w->rg->at);
  if (!create_bytes(w, n, d->name, &p.bytes)) return;
  if (p.mem == MK_DMEM && lw_caps(w)->dist_device) p.service = lw_dev_service(w), w->entry.uses_cuda = true;
  p.file_handle = !fresh && !(s->created && s->created->type->mpi_ref);
  if (fresh) {
    lw_declare_var(w, name, strlen(name), p.elem, "*@", true);
    s = sc_find(&w->sc, name, strlen(name));
  }
  s->created = n, s->created_at = d->loc;
  lw_kinds_create(w, s, n, d->loc);
  if (p.mem == MK_DMEM && !lw_caps(w)->dist_device) { /* reported once: its uses are not errors again */
    diag_error(w->in.dg, d->name, "'%s' is distributed dmem (GPU) memory, which needs the CUDA target (--emit=cuda)",
               n->path);
    return;
  }
  lw_record_alloc(out, it, &p);
}

/* ---- dynamic shared memory ---------------------------------------------------
 * A kernel may declare at most 48 KB of shared memory statically; past that
 * it must take dynamic shared memory, which the launch asks for (and the
 * runtime allows past 48 KB). The body's smem #creates are sized before the
 * walk; when they need more, each becomes a view of a 128-byte aligned slot
 * of the kernel's dynamic shared memory, in the order written. */
enum { STATIC_SMEM_MAX = 48 * 1024, DYNAMIC_SMEM_ALIGN = 128 };

static void smem_slots(lw *w, item *it, region *r) {
  for (; it; it = it->next) {
    if (it->kind == IT_GROUP) smem_slots(w, it->grp->body.first, r);
    if (it->kind != IT_DIR || it->dir->kind != D_CREATE || it->dir->bad) continue;
    dnode *n = lw_resolve(w, it->dir->name, false); /* errors are reported when the #create is walked */
    int64_t ne = 0, es = 0;
    if (!n || n->type->thread != TK_DATA || n->type->mem != MK_SMEM || !ex_is_const(ty_footprint(&w->ty, n), &ne) ||
        ne <= 0 || (es = lw_elem_bytes(w, n->type->elem)) <= 0 || ne > INT64_MAX / 4 / es)
      continue;
    int64_t off = (r->cu->dsmem_bytes + DYNAMIC_SMEM_ALIGN - 1) / DYNAMIC_SMEM_ALIGN * DYNAMIC_SMEM_ALIGN;
    r->cu->dsmem = arena_grow1(w->in.ar, r->cu->dsmem, (size_t)r->cu->ndsmem, sizeof *r->cu->dsmem);
    r->cu->dsmem[r->cu->ndsmem++] = (struct lw_smem_slot){it->dir, off};
    /* no overflow: off and ne * es are both below INT64_MAX / 4 + 128 */
    r->cu->dsmem_bytes = off + ne * es < INT64_MAX / 4 ? off + ne * es : INT64_MAX / 4;
  }
}

void lw_smem_prescan(lw *w, item *body, region *r) {
  smem_slots(w, body->grp->body.first, r);
  if (r->cu->dsmem_bytes <= STATIC_SMEM_MAX) r->cu->ndsmem = 0, r->cu->dsmem_bytes = 0;
}

/* the slot of the #create d in the cuda region around it (NULL: static) */
static const struct lw_smem_slot *smem_slot(lw *w, const directive *d) {
  for (region *r = w->rg; r; r = r->outer)
    if (r->kind == RG_CUDA && r->cu)
      for (int i = 0; i < r->cu->ndsmem; i++)
        if (r->cu->dsmem[i].d == d) return &r->cu->dsmem[i];
  return NULL;
}

/* #create of smem inside a kernel or of rmem anywhere (a thread's own
 * array: in a kernel, a pthd or mpi body, or host code): an array of
 * constant size */
static void create_array(lw *w, item *it, dnode *n, items *arg, plan_alloc *p, lw_record *out) {
  directive *d = it->dir;
  const char *mem = ty_mem_name(p->mem);
  if (p->mem == MK_SMEM && !in_cuda_region(w)) {
    diag_error(w->in.dg, d->name, "'%s' is %s memory, which exists only inside a cuda detour", n->path, mem);
    return;
  }
  if (!ex_is_const(ty_footprint(&w->ty, n), &p->nelems)) {
    diag_error(w->in.dg, d->name, "the footprint of %s array '%s' must be a compile-time constant", mem, n->path);
    return;
  }
  loc vl;
  if (!lw_single_ident(arg, &vl)) {
    diag_error(w->in.dg, arg->first->loc, "#create of %s memory declares an array: give a plain name", mem);
    return;
  }
  p->kind = AL_ARRAY, p->target = lw_text(w, vl), p->declare = true;
  p->align = p->mem == MK_SMEM && lw_tma_dest(w->rg, w->in.src->text + vl.b, vl.e - vl.b) ? 128 : 16;
  const struct lw_smem_slot *slot = p->mem == MK_SMEM ? smem_slot(w, d) : NULL;
  if (slot) p->dynamic = true, p->offset = slot->off;
  lw_declare_var(w, w->in.src->text + vl.b, vl.e - vl.b, p->elem,
                 arena_printf(w->in.ar, "@[%lld]", (long long)p->nelems), false);
  sym *s = sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b);
  s->is_array = true, s->created = n, s->created_at = d->loc;
  lw_kinds_create(w, s, n, d->loc);
  lw_record_alloc(out, it, p);
}

/* device memory, and pinned memory on the CUDA target, come from the CUDA runtime */
static bool on_device(lw *w, int mem) { return mem == MK_DMEM || (mem == MK_PINNED && lw_caps(w)->device_mem); }

/* the data type of #create or #destroy and its one argument (NULL when there is not exactly one) */
static dnode *mem_directive(lw *w, directive *d, items **arg) {
  if (d->bad) return NULL;
  dnode *n = lw_data_type(w, d->name);
  items *args;
  if (n) *arg = lw_split_args(w, &d->args, &args) == 1 ? &args[0] : NULL;
  return n;
}

void lw_create(lw *w, item *it, lw_record *out) {
  directive *d = it->dir;
  items *args;
  dnode *n = mem_directive(w, d, &args);
  if (!n) return;
  if (!args || args[0].n == 0) {
    diag_error(w->in.dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->loc,
               "#create takes one variable: '#create %s(x)'", n->path);
    return;
  }
  plan_alloc p = {.mem = n->type->mem, .elem = n->type->elem, .site = lw_site(w, d->loc, lw_dir_text(w, it))};
  loc vl;
  bool ident = lw_single_ident(&args[0], &vl);
  sym *existing = ident ? sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b) : NULL;
  bool array = p.mem == MK_SMEM || p.mem == MK_RMEM;
  p.declare = ident && (array || !existing || existing->kind != SYM_VAR);
  /* a name being declared is written as is (never a capture of an outer variable) */
  p.target = p.declare ? lw_text(w, vl) : lw_list_text(w, &args[0]);
  if (in_cuda_region(w) && !array) {
    diag_error(w->in.dg, d->name, "'%s' is %s memory, which cannot be allocated inside a cuda detour (only smem and "
               "rmem can)", n->path, ty_mem_name(p.mem));
    return;
  }
  if (n->type->mpi_ref) {
    create_distributed(w, it, n, &args[0], out);
    return;
  }
  if (array) {
    create_array(w, it, n, &args[0], &p, out);
    return;
  }
  if (!create_bytes(w, n, d->name, &p.bytes)) return;
  p.kind = on_device(w, p.mem) ? AL_DEVICE : AL_HOST;
  if (p.kind == AL_DEVICE) {
    if (!lw_caps(w)->device_mem) {
      diag_error(w->in.dg, d->name, "'%s' is dmem (GPU) memory, which needs the CUDA target", n->path);
      return;
    }
    w->entry.uses_cuda = true;
  }
  sym *s = existing;
  if (p.declare) {
    lw_declare_var(w, w->in.src->text + vl.b, vl.e - vl.b, p.elem, "*@", true);
    s = sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b);
  }
  if (s) s->created = n, s->created_at = d->loc;
  lw_kinds_create(w, s, n, d->loc);
  lw_record_alloc(out, it, &p);
}

void lw_destroy(lw *w, item *it, lw_record *out) {
  directive *d = it->dir;
  items *args;
  dnode *n = mem_directive(w, d, &args);
  if (!n) return;
  loc vl;
  if (!args || !lw_single_ident(&args[0], &vl)) {
    diag_error(w->in.dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->loc,
               "#destroy takes the variable given to #create: '#destroy %s(x)'", n->path);
    return;
  }
  sym *s = sc_find(&w->sc, w->in.src->text + vl.b, vl.e - vl.b);
  if (!s || !s->created) {
    diag_error(w->in.dg, vl, "#destroy of '%.*s', which was never created with #create", (int)(vl.e - vl.b),
               w->in.src->text + vl.b);
    return;
  }
  /* every kind a #create may have given it on the way here must be this one */
  int mem = n->type->mem;
  unsigned kinds = lw_kinds_of(w, s);
  for (int k = 0; k < LW_NKINDS; k++) {
    loc at;
    dnode *c = k != mem ? lw_kinds_node(w, s, k, &at) : NULL;
    if (!c) continue;
    diag_error(w->in.dg, d->name, "'%.*s' %s created as %s memory but is destroyed as %s memory ('%s')",
               (int)(vl.e - vl.b), w->in.src->text + vl.b, kinds & ~(1u << k) ? "may have been" : "was",
               ty_mem_name(k), ty_mem_name(mem), n->path);
    diag_note(w->in.dg, at, "created here");
    return;
  }
  dnode *created = lw_kinds_node(w, s, mem, NULL);
  if (!created) created = s->created;
  lw_kinds_forget(w, s, false);
  plan_destroy p = {.mem = mem, .target = lw_list_text(w, &args[0]), .site = lw_site(w, d->loc, lw_dir_text(w, it))};
  if (created->type->mpi_ref) {
    p.kind = AL_DIST;
    if (mem == MK_DMEM) p.service = lw_dev_service(w);
  } else if (mem == MK_SMEM || mem == MK_RMEM) {
    p.kind = AL_ARRAY;
    p.kernel = in_cuda_region(w);
  } else if (on_device(w, mem)) {
    p.kind = AL_DEVICE;
  } else {
    p.kind = AL_HOST;
    p.bytes = (plan_bytes){.elems = lw_localize(w, ty_footprint(&w->ty, created), w->rg->at),
                           .elem = created->type->elem};
  }
  lw_record_destroy(out, it, &p);
}

/* ---- #destroy twice ----------------------------------------------------------
 * Within one list of items (a block), a #destroy of a variable that an earlier
 * #destroy of the same list released is an error, unless something between
 * them may have given the variable new storage or changed the path: a mention
 * of its name (an assignment, a #create, a nested block using it), a label,
 * case or '?:' anywhere between (a jump may enter there), a jump or a
 * preprocessor line at this level. A #destroy that is the body of an
 * if/else/for/while/do is not straight-line code and is not tracked. */

static bool is_word(lw *w, const item *it, const char *s) {
  return it && it->kind == IT_TOK && it->tk == T_IDENT && str_eq(w->in.src->text + it->loc.b, it->loc.e - it->loc.b, s);
}

static bool is_idch(char c) { return c == '_' || isalnum((unsigned char)c); }

static bool text_has_word(lw *w, loc l, const char *name, size_t len) {
  const char *t = w->in.src->text;
  for (uint32_t i = l.b; i + len <= l.e; i++)
    if (!memcmp(t + i, name, len) && !(i > l.b && is_idch(t[i - 1])) && !(i + len < l.e && is_idch(t[i + len])))
      return true;
  return false;
}

/* does the item use the name, or hold a place a jump may land on? */
static bool item_mentions(lw *w, const item *it, const char *name, size_t len, bool *label) {
  switch (it->kind) {
  case IT_TOK:
    if (it->tk == T_PUNCT && it->punct == ':') *label = true;
    if (is_word(w, it, "case") || is_word(w, it, "default")) *label = true;
    return it->tk == T_IDENT && str_eq(w->in.src->text + it->loc.b, it->loc.e - it->loc.b, name);
  case IT_GROUP: {
    bool m = false;
    ITEMS_FOREACH(k, it->grp->body) m |= item_mentions(w, k, name, len, label);
    return m;
  }
  case IT_DIR: {
    bool m = text_has_word(w, it->dir->loc, name, len);
    if (it->dir->block) m |= item_mentions(w, it->dir->block, name, len, label);
    if (it->dir->kind == D_SUBPROG)
      ITEMS_FOREACH(k, it->dir->subprog.body) m |= item_mentions(w, k, name, len, label);
    return m;
  }
  default:
    return text_has_word(w, it->loc, name, len);
  }
}

/* the name #destroy releases, when it is a plain name created before */
static bool destroyed_name(lw *w, item *it, loc *vl) {
  directive *d = it->dir;
  if (d->bad || d->args.n != 1 || d->args.first->kind != IT_TOK || d->args.first->tk != T_IDENT) return false;
  *vl = d->args.first->loc;
  sym *s = sc_find(&w->sc, w->in.src->text + vl->b, vl->e - vl->b);
  return s && s->created;
}

bool lw_destroy_twice(lw *w, lw_dtrack *t, item *it, item *prev) {
  bool destroy = it->kind == IT_DIR && it->dir->kind == D_DESTROY;
  if (t->n == 0 && !destroy) return false; /* nothing to forget, nothing to track */
  if (it->kind == IT_PPLINE || is_word(w, it, "return") || is_word(w, it, "goto") || is_word(w, it, "break") ||
      is_word(w, it, "continue")) {
    t->n = 0;
    return false;
  }
  bool controlled = prev && ((prev->kind == IT_GROUP && prev->grp->open == '(') || is_word(w, prev, "else") ||
                             is_word(w, prev, "do"));
  loc vl = {0, 0};
  bool tracked = destroy && !controlled && destroyed_name(w, it, &vl);
  for (int i = 0; i < t->n; i++) {
    struct lw_destroyed *e = &t->v[i];
    if (tracked && str_eq(w->in.src->text + vl.b, vl.e - vl.b, e->name)) {
      diag_error(w->in.dg, it->dir->loc, "#destroy of '%s', which an earlier #destroy already released", e->name);
      diag_note(w->in.dg, e->at, "destroyed here");
      return true;
    }
    bool label = false;
    if (item_mentions(w, it, e->name, e->len, &label) || label) t->v[i--] = t->v[--t->n];
    if (label) t->n = 0;
  }
  if (tracked) {
    if (t->n == (int)(sizeof t->v / sizeof t->v[0])) memmove(t->v, t->v + 1, sizeof t->v[0] * (size_t)--t->n);
    t->v[t->n++] = (struct lw_destroyed){lw_text(w, vl), vl.e - vl.b, it->dir->loc};
  }
  return false;
}
