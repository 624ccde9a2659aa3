/* lower_mem.c - storage and data movement: #create and #destroy for every
 * memory kind (docs/language.md, Storage) and #copy: per-thread
 * loops inside detours; at host level memcpy for contiguous layouts, the
 * runtime's strided copy engine after merging dimensions otherwise, and the
 * CUDA copy paths for device memory. */
#include "lower.h"

#include <ctype.h>
#include <string.h>

const char *lw_memkind_enum(int mem) {
  static const char *const e[] = {"PARRAY_PAGED", "PARRAY_PINNED", "PARRAY_DMEM", "PARRAY_SMEM", "PARRAY_RMEM"};
  return mem >= 0 && mem <= MK_RMEM ? e[mem] : "PARRAY_PAGED";
}

static const char *memname(int mem) {
  static const char *const e[] = {"paged", "pinned", "dmem", "smem", "rmem"};
  return mem >= 0 && mem <= MK_RMEM ? e[mem] : "paged";
}

static const char *dir_text(lw *w, item *it) {
  /* the directive as written, on one line */
  const char *t = lw_text(w, it->dir->loc);
  char *c = arena_strdup(w->ar, t);
  for (char *p = c; *p; p++)
    if (*p == '\n' || *p == '\t' || *p == '\r') *p = ' ';
  return c;
}

static bool single_ident(items *a, loc *out) {
  if (a->n != 1 || a->first->kind != IT_TOK || a->first->tk != T_IDENT) return false;
  *out = a->first->loc;
  return true;
}

static dnode *data_type(lw *w, loc name) {
  dnode *n = lw_resolve(w, name, true);
  if (!n) return NULL;
  if (n->type->thread != TK_DATA) {
    diag_error(w->dg, name, "'%s' is a thread array type, not a data type", n->path);
    return NULL;
  }
  return n;
}

/* sizes and offsets printed inside a detour capture the variables they name */
static char *ex_c(lw *w, ex *e) {
  e = lw_localize(w, e, w->rg->at);
  return ex_str(&w->ex, e, ex_needs_wide(e));
}

static char *bytes_text(lw *w, dnode *n) {
  ex *fp = lw_localize(w, ty_footprint(&w->ty, n), w->rg->at);
  int64_t v;
  if (ex_is_const(fp, &v)) return arena_printf(w->ar, "(parray_size_t)%lld * sizeof(%s)", (long long)v, n->type->elem);
  return arena_printf(w->ar, "(parray_size_t)(%s) * sizeof(%s)", ex_str(&w->ex, fp, ex_needs_wide(fp)), n->type->elem);
}

/* sizeof of a common scalar element type on the 64-bit targets (0: not known
 * to pac, then only the run-time check applies) */
static int64_t known_elem_size(const char *elem) {
  static const struct {
    const char *name;
    int64_t size;
  } k[] = {{"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"int8_t", 1}, {"uint8_t", 1}, {"bool", 1},
           {"short", 2}, {"unsigned short", 2}, {"int16_t", 2}, {"uint16_t", 2}, {"half", 2}, {"__half", 2},
           {"int", 4}, {"unsigned", 4}, {"unsigned int", 4}, {"int32_t", 4}, {"uint32_t", 4}, {"float", 4},
           {"long", 8}, {"unsigned long", 8}, {"long long", 8}, {"unsigned long long", 8}, {"int64_t", 8},
           {"uint64_t", 8}, {"size_t", 8}, {"ptrdiff_t", 8}, {"double", 8}};
  char norm[64];
  size_t n = 0;
  for (const char *p = elem; *p && n + 1 < sizeof norm; p++) {
    bool sp = *p == ' ' || *p == '\t' || *p == '\n';
    if (sp && (n == 0 || norm[n - 1] == ' ')) continue;
    norm[n++] = sp ? ' ' : *p;
  }
  while (n > 0 && norm[n - 1] == ' ') n--;
  norm[n] = 0;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (!strcmp(norm, k[i].name)) return k[i].size;
  return 0;
}

/* The byte count given to a #create. A constant footprint of a known element
 * type is checked here; otherwise the generated code computes the footprint
 * with checked arithmetic and parray_bytes_at stops the program, naming the
 * .pc line, when it does not fit. NULL after reporting an error. */
static char *create_bytes_text(lw *w, dnode *n, loc at, const char *loca) {
  ex *fp = lw_localize(w, ty_footprint(&w->ty, n), w->rg->at);
  const char *elem = n->type->elem;
  int64_t v, es = known_elem_size(elem);
  if (ex_is_const(fp, &v) && es) {
    if (v > INT64_MAX / es) {
      diag_error(w->dg, at, "'%s' cannot be allocated: %lld elements of %lld bytes are more than the largest "
                 "object (%lld bytes)", n->path, (long long)v, (long long)es, (long long)INT64_MAX);
      return NULL;
    }
    return bytes_text(w, n);
  }
  if (!ex_is_const(fp, NULL) && ex_atom_free(fp)) {
    diag_error(w->dg, at, "'%s' cannot be allocated: its footprint does not fit in 64 bits", n->path);
    return NULL;
  }
  char b_buf[512];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  sb_puts(&b, "parray_bytes_at(");
  ex_print_calls(&b, fp, "parray_ck_");
  sb_printf(&b, ", sizeof(%s), %s)", elem, loca);
  char *s = arena_strdup(w->ar, b.s);
  sb_free(&b);
  return s;
}

static bool in_cuda_region(lw *w) {
  for (region *r = w->rg; r; r = r->outer)
    if (r->kind == RG_CUDA) return true;
  return false;
}

/* #create of a type distributed over an mpi thread array: collective; each
 * process gets its block; the variable points to process 0's block and a
 * companion variable parray__h_<name> holds the handle. */
static void create_distributed(lw *w, item *it, dnode *n, items *arg) {
  directive *d = it->dir;
  loc vl;
  if (!single_ident(arg, &vl)) {
    diag_error(w->dg, arg->n ? arg->first->loc : d->loc, "a distributed array is created into a variable: give a name");
    return;
  }
  if (w->rg->kind != RG_HOST) {
    diag_error(w->dg, d->kw, "#create of the distributed type '%s' is collective: it belongs in the host code of "
               "process 0, not inside a detour", n->path);
    return;
  }
  const char *name = lw_text(w, vl), *elem = n->type->elem;
  sym *s = sc_find(&w->sc, name, strlen(name));
  bool fresh = !s || s->kind != SYM_VAR;
  if (!fresh && s->depth > 0 && !(s->created && s->created->type->mpi_ref)) {
    diag_error(w->dg, vl, "'%s' is already declared here: a distributed #create declares its own variable", name);
    return;
  }
  w->uses_mpi = true;
  const char *loca = lw_loc_args(w, d->loc, dir_text(w, it));
  const char *nprocs = ex_c(w, n->type->mpi_ref->size);
  const char *bytes = create_bytes_text(w, n, d->name, loca);
  if (!bytes) return;
  char *code;
  if (fresh)
    code = arena_printf(w->ar, "int parray__h_%s = parray_mpi_create(%s, %s); if (parray__h_%s < 0) "
                        "parray_fatal_at(%s, \"%%s\", parray_last_error()); %s *%s = (%s *)parray_mpi_local(parray__h_%s);",
                        name, bytes, nprocs, name, loca, elem, name, elem, name);
  else {
    if (!s->created || !s->created->type->mpi_ref)
      pr_hoist(&w->pr, arena_printf(w->ar, "static int parray__h_%s = -1;\n", name));
    code = arena_printf(w->ar, "parray__h_%s = parray_mpi_create(%s, %s); if (parray__h_%s < 0) "
                        "parray_fatal_at(%s, \"%%s\", parray_last_error()); %s = (%s *)parray_mpi_local(parray__h_%s);",
                        name, bytes, nprocs, name, loca, name, elem, name);
  }
  if (fresh) {
    lw_declare_var(w, name, strlen(name), elem, "*@", true);
    s = sc_find(&w->sc, name, strlen(name));
  }
  s->created = n, s->created_at = d->loc;
  lw_replace_dir(w, it, code);
}

void lower_create(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad) return;
  dnode *n = data_type(w, d->name);
  if (!n) return;
  items *args;
  if (lw_split_args(w, &d->args, &args) != 1 || args[0].n == 0) {
    diag_error(w->dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->loc,
               "#create takes one variable: '#create %s(x)'", n->path);
    return;
  }
  int mem = n->type->mem;
  const char *elem = n->type->elem;
  const char *what = dir_text(w, it);
  loc vl;
  bool ident = single_ident(&args[0], &vl);
  sym *existing = ident ? sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b) : NULL;
  bool fresh = ident && (mem == MK_SMEM || mem == MK_RMEM || !existing || existing->kind != SYM_VAR);
  /* a name being declared is written as is (never a capture of an outer variable) */
  const char *target = fresh ? lw_text(w, vl) : lw_list_text(w, &args[0]);
  char *code;
  if (in_cuda_region(w) && mem != MK_SMEM && mem != MK_RMEM) {
    diag_error(w->dg, d->name, "'%s' is %s memory, which cannot be allocated inside a cuda detour (only smem and "
               "rmem can)", n->path, memname(mem));
    return;
  }
  if (n->type->mpi_ref) {
    create_distributed(w, it, n, &args[0]);
    return;
  }
  if (mem == MK_SMEM || mem == MK_RMEM) {
    if (!in_cuda_region(w)) {
      diag_error(w->dg, d->name, "'%s' is %s memory, which exists only inside a cuda detour", n->path, memname(mem));
      return;
    }
    ex *fp = ty_footprint(&w->ty, n);
    int64_t v;
    if (!ex_is_const(fp, &v)) {
      diag_error(w->dg, d->name, "the footprint of %s array '%s' must be a compile-time constant", memname(mem),
                 n->path);
      return;
    }
    if (!ident) {
      diag_error(w->dg, args[0].first->loc, "#create of %s memory declares an array: give a plain name",
                 memname(mem));
      return;
    }
    /* shared arrays are 16-byte aligned, so that vector accesses into them are legal */
    code = arena_printf(w->ar, "%s%s %s[%lld];", mem == MK_SMEM ? "__shared__ __align__(16) " : "", elem, target,
                        (long long)v);
    lw_declare_var(w, w->src->text + vl.b, vl.e - vl.b, elem, arena_printf(w->ar, "@[%lld]", (long long)v), false);
    sym *s = sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b);
    s->is_array = true, s->created = n, s->created_at = d->loc;
    lw_replace_dir(w, it, code);
    return;
  }
  const char *call, *loca = lw_loc_args(w, d->loc, what), *bytes = create_bytes_text(w, n, d->name, loca);
  if (!bytes) return;
  if (mem == MK_DMEM || (mem == MK_PINNED && w->target == TARGET_CUDA)) {
    if (w->target != TARGET_CUDA) {
      diag_error(w->dg, d->name, "'%s' is dmem (GPU) memory, which needs the CUDA target", n->path);
      return;
    }
    w->uses_cuda = true;
    call = arena_printf(w->ar, "(%s *)parray_cuda_create(%s, %s, %s)", elem, lw_memkind_enum(mem), bytes, loca);
  } else {
    call = arena_printf(w->ar, "(%s *)parray_create_host(%s, %s, %s)", elem, lw_memkind_enum(mem), bytes, loca);
  }
  sym *s = existing;
  if (fresh) {
    code = arena_printf(w->ar, "%s *%s = %s;", elem, target, call);
    lw_declare_var(w, w->src->text + vl.b, vl.e - vl.b, elem, "*@", true);
    s = sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b);
  } else {
    code = arena_printf(w->ar, "%s = %s;", target, call);
  }
  if (s) s->created = n, s->created_at = d->loc;
  lw_replace_dir(w, it, code);
}

void lower_destroy(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad) return;
  dnode *n = data_type(w, d->name);
  if (!n) return;
  items *args;
  loc vl;
  if (lw_split_args(w, &d->args, &args) != 1 || !single_ident(&args[0], &vl)) {
    diag_error(w->dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->loc,
               "#destroy takes the variable given to #create: '#destroy %s(x)'", n->path);
    return;
  }
  sym *s = sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b);
  if (!s || !s->created) {
    diag_error(w->dg, vl, "#destroy of '%.*s', which was never created with #create", (int)(vl.e - vl.b),
               w->src->text + vl.b);
    return;
  }
  int mem = n->type->mem, cmem = s->created->type->mem;
  if (mem != cmem) {
    diag_error(w->dg, d->name, "'%.*s' was created as %s memory but is destroyed as %s memory ('%s')",
               (int)(vl.e - vl.b), w->src->text + vl.b, memname(cmem), memname(mem), n->path);
    diag_note(w->dg, s->created_at, "created here");
    return;
  }
  const char *target = lw_list_text(w, &args[0]);
  char *code;
  if (s->created->type->mpi_ref)
    code = arena_printf(w->ar, "parray_mpi_destroy(parray__h_%s); %s = 0;", target, target);
  else if (mem == MK_SMEM || mem == MK_RMEM)
    code = arena_printf(w->ar, "/* %s memory is released when the kernel ends */", memname(mem));
  else if (mem == MK_DMEM || (mem == MK_PINNED && w->target == TARGET_CUDA))
    code = arena_printf(w->ar, "parray_cuda_destroy(%s, %s, %s);", lw_memkind_enum(mem), target,
                        lw_loc_args(w, d->loc, dir_text(w, it)));
  else
    code = arena_printf(w->ar, "parray_destroy_host(%s, %s, %s);", lw_memkind_enum(mem), target,
                        bytes_text(w, s->created));
  lw_replace_dir(w, it, code);
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
  return it && it->kind == IT_TOK && it->tk == T_IDENT && str_eq(w->src->text + it->loc.b, it->loc.e - it->loc.b, s);
}

static bool is_idch(char c) { return c == '_' || isalnum((unsigned char)c); }

static bool text_has_word(lw *w, loc l, const char *name, size_t len) {
  const char *t = w->src->text;
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
    return it->tk == T_IDENT && str_eq(w->src->text + it->loc.b, it->loc.e - it->loc.b, name);
  case IT_GROUP: {
    bool m = false;
    ITEMS_FOREACH(k, it->grp->body) m |= item_mentions(w, k, name, len, label);
    return m;
  }
  case IT_DIR: {
    bool m = text_has_word(w, it->dir->loc, name, len);
    if (it->dir->block) m |= item_mentions(w, it->dir->block, name, len, label);
    ITEMS_FOREACH(k, it->dir->sub) m |= item_mentions(w, k, name, len, label);
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
  sym *s = sc_find(&w->sc, w->src->text + vl->b, vl->e - vl->b);
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
    if (tracked && str_eq(w->src->text + vl.b, vl.e - vl.b, e->name)) {
      diag_error(w->dg, it->dir->loc, "#destroy of '%s', which an earlier #destroy already released", e->name);
      diag_note(w->dg, e->at, "destroyed here");
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

/* ---- #copy ------------------------------------------------------------------ */

static bool same_elem(const char *a, const char *b) {
  /* compare ignoring white space differences */
  for (;;) {
    while (*a == ' ' || *a == '\t' || *a == '\n') a++;
    while (*b == ' ' || *b == '\t' || *b == '\n') b++;
    if (*a != *b) return false;
    if (!*a) return true;
    a++, b++;
  }
}

typedef struct jmode {
  ex *n, *ds, *ss;
} jmode;

/* A common refinement of two flat layouts over the same index space. */
static int joint_modes(lw *w, layout *ls, layout *ld, jmode *out, int max) {
  exctx *x = &w->ex;
  int i = ls->nm - 1, j = ld->nm - 1, k = 0;
  ex *rs = ls->m[i].n, *rd = ld->m[j].n, *ss = ls->m[i].d, *sd = ld->m[j].d;
  while (i >= 0 && j >= 0) {
    if (k == max) return -1;
    ex *q;
    if (ex_equal(rs, rd) || (i == 0 && j == 0)) {
      out[k++] = (jmode){rs, sd, ss};
      if (--i >= 0) rs = ls->m[i].n, ss = ls->m[i].d;
      if (--j >= 0) rd = ld->m[j].n, sd = ld->m[j].d;
    } else if ((q = ex_div_exact(x, rs, rd))) {
      out[k++] = (jmode){rd, sd, ss};
      ss = ex_mul(x, ss, rd), rs = q;
      if (--j >= 0) rd = ld->m[j].n, sd = ld->m[j].d;
    } else if ((q = ex_div_exact(x, rd, rs))) {
      out[k++] = (jmode){rs, sd, ss};
      sd = ex_mul(x, sd, rs), rd = q;
      if (--i >= 0) rs = ls->m[i].n, ss = ls->m[i].d;
    } else {
      return -1;
    }
  }
  if (i >= 0 || j >= 0) return -1;
  /* outermost first */
  for (int a = 0, b = k - 1; a < b; a++, b--) {
    jmode t = out[a];
    out[a] = out[b], out[b] = t;
  }
  return k;
}


/* dst[f_D(i)] = src[f_S(i)] for every i, as a loop */
static char *copy_loop(lw *w, dnode *ns, const char *src, dnode *nd, const char *dst, bool unroll) {
  exctx *x = &w->ex;
  int64_t sz;
  bool ks = ex_is_const(ns->size, &sz);
  ex *i = ex_atom(x, "parray__i", 0, ks ? sz - 1 : EX_INF);
  ex *fs = lw_localize(w, ty_offset_linear(&w->ty, ns, i), w->rg->at);
  ex *fd = lw_localize(w, ty_offset_linear(&w->ty, nd, i), w->rg->at);
  ex *count = lw_localize(w, ns->size, w->rg->at);
  bool wide = ex_needs_wide(fs) || ex_needs_wide(fd) || ex_needs_wide(count);
  return arena_printf(w->ar, "%sfor (%s parray__i = 0; parray__i < %s; parray__i++) (%s)[%s] = (%s)[%s];",
                      unroll ? "_Pragma(\"unroll\") " : "", wide ? "long long" : "int", ex_str(x, count, wide),
                      dst, ex_str(x, fd, false), src, ex_str(x, fs, false));
}

/* A common refinement of k flat layouts over one index space: modes
 * (n, stride_0 .. stride_{k-1}), outermost first. Returns the mode count or
 * -1 when a split cannot be proved to divide. */
static int refine(lw *w, layout **ls, int k, ex **shape, ex **strides /* [mode*k + j] */, int max) {
  exctx *x = &w->ex;
  int idx[8];
  ex *rem[8], *st[8];
  for (int j = 0; j < k; j++) idx[j] = ls[j]->nm - 1, rem[j] = ls[j]->m[idx[j]].n, st[j] = ls[j]->m[idx[j]].d;
  int nm = 0;
  for (;;) {
    bool done = true;
    for (int j = 0; j < k; j++) done &= idx[j] < 0;
    if (done) break;
    for (int j = 0; j < k; j++)
      if (idx[j] < 0) return -1;
    /* the smallest remaining extent must divide every other one */
    ex *m = NULL;
    for (int c = 0; c < k && !m; c++) {
      bool ok = true;
      for (int j = 0; j < k && ok; j++) ok = ex_div_exact(x, rem[j], rem[c]) != NULL;
      if (ok) m = rem[c];
    }
    if (!m || nm == max) return -1;
    shape[nm] = m;
    for (int j = 0; j < k; j++) {
      strides[nm * k + j] = st[j];
      ex *q = ex_div_exact(x, rem[j], m);
      int64_t one;
      if (ex_is_const(q, &one) && one == 1) {
        if (--idx[j] >= 0) rem[j] = ls[j]->m[idx[j]].n, st[j] = ls[j]->m[idx[j]].d;
      } else {
        rem[j] = q, st[j] = ex_mul(x, st[j], m);
      }
    }
    nm++;
  }
  /* outermost first */
  for (int a = 0, b = nm - 1; a < b; a++, b--) {
    ex *t = shape[a];
    shape[a] = shape[b], shape[b] = t;
    for (int j = 0; j < k; j++) {
      ex *u = strides[a * k + j];
      strides[a * k + j] = strides[b * k + j], strides[b * k + j] = u;
    }
  }
  return nm;
}

/* #copy where a side is distributed: scatter, gather or redistribution */
static void copy_distributed(lw *w, item *it, dnode *ns, items *sa, dnode *nd, items *da) {
  directive *d = it->dir;
  if (w->rg->kind != RG_HOST) {
    diag_error(w->dg, d->kw, "#copy of a distributed array is collective: it belongs in the host code of process 0");
    return;
  }
  dnode *side_n[2] = {nd, ns};
  items *side_a[2] = {da, sa};
  const char *handle[2], *ptr[2];
  for (int k = 0; k < 2; k++) {
    if (side_n[k]->type->mpi_ref) {
      loc vl;
      sym *s = single_ident(side_a[k], &vl) ? sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b) : NULL;
      if (!s || !s->created || !s->created->type->mpi_ref) {
        diag_error(w->dg, side_a[k]->n ? side_a[k]->first->loc : d->loc,
                   "'%s' is distributed: the #copy argument must be a variable given to its #create", side_n[k]->path);
        return;
      }
      handle[k] = arena_printf(w->ar, "parray__h_%.*s", (int)(vl.e - vl.b), w->src->text + vl.b);
      ptr[k] = "0";
    } else {
      if (side_n[k]->type->mem == MK_DMEM) {
        diag_error(w->dg, d->loc, "#copy between dmem and a distributed array: copy through host memory");
        return;
      }
      handle[k] = "-1";
      ptr[k] = lw_list_text(w, side_a[k]);
    }
  }
  layout *ls[4] = {ty_layout(&w->ty, nd), ty_proc_layout(&w->ty, nd), ty_layout(&w->ty, ns), ty_proc_layout(&w->ty, ns)};
  ex *shape[32], *st[32 * 4];
  int nm = (ls[0] && ls[1] && ls[2] && ls[3]) ? refine(w, ls, 4, shape, st, 32) : -1;
  if (nm < 0) {
    diag_error(w->dg, d->loc, "#copy between these distributions needs a split of dimensions that cannot be proved "
               "at compile time");
    return;
  }
  w->uses_mpi = true;
  static const char *const names[4] = {"parray__dl", "parray__dp", "parray__sl", "parray__sp"};
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  sb_puts(&b, "{ const parray_int64_t parray__shape[] = {");
  for (int m = 0; m < nm; m++) sb_printf(&b, "%s%s", m ? ", " : "", ex_c(w, shape[m]));
  sb_puts(&b, "}");
  for (int j = 0; j < 4; j++) {
    sb_printf(&b, ", %s[] = {", names[j]);
    for (int m = 0; m < nm; m++) sb_printf(&b, "%s%s", m ? ", " : "", ex_c(w, st[m * 4 + j]));
    sb_puts(&b, "}");
  }
  sb_printf(&b, ";\n  parray_mpi_side parray__d = {%s, %s, parray__dl, parray__dp}, parray__s = {%s, (void *)(%s), "
            "parray__sl, parray__sp};\n", handle[0], ptr[0], handle[1], ptr[1]);
  sb_printf(&b, "  if (parray_mpi_copy(&parray__d, &parray__s, parray__shape, %d, sizeof(%s)) != PARRAY_OK) "
            "parray_fatal_at(%s, \"%%s\", parray_last_error()); }", nm, ns->type->elem,
            lw_loc_args(w, d->loc, dir_text(w, it)));
  lw_replace_dir(w, it, b.s);
  sb_free(&b);
}

/* A #copy through type n of a variable created with another type must stay
 * inside what was allocated. */
static bool copy_fits(lw *w, dnode *n, items *arg, const char *verb) {
  loc vl;
  if (!single_ident(arg, &vl)) return true;
  sym *s = sc_find(&w->sc, w->src->text + vl.b, vl.e - vl.b);
  if (!s || !s->created || s->created == n) return true;
  int64_t need, have;
  if (!ex_is_const(ty_footprint(&w->ty, n), &need) || !ex_is_const(ty_footprint(&w->ty, s->created), &have))
    return true;
  if (need <= have) return true;
  diag_error(w->dg, vl, "#copy %s %lld elements of '%.*s' through '%s', but it was created as '%s' with room for %lld",
             verb, (long long)need, (int)(vl.e - vl.b), w->src->text + vl.b, n->path, s->created->path,
             (long long)have);
  diag_note(w->dg, s->created_at, "created here");
  return false;
}

void lower_copy(lw *w, item *it) {
  directive *d = it->dir;
  if (d->bad) return;
  dnode *ns = data_type(w, d->name), *nd = data_type(w, d->name2);
  if (!ns || !nd) return;
  items *sa, *da;
  if (lw_split_args(w, &d->args, &sa) != 1 || sa[0].n == 0) {
    diag_error(w->dg, d->argsloc.e > d->argsloc.b ? d->argsloc : d->loc, "#copy needs one source pointer");
    return;
  }
  if (lw_split_args(w, &d->args2, &da) != 1 || da[0].n == 0) {
    diag_error(w->dg, d->args2loc.e > d->args2loc.b ? d->args2loc : d->loc, "#copy needs one destination pointer");
    return;
  }
  if (!same_elem(ns->type->elem, nd->type->elem)) {
    diag_error(w->dg, loc_span(d->name, d->name2), "#copy between different element types: '%s' has %s, '%s' has %s",
               ns->path, ns->type->elem, nd->path, nd->type->elem);
    return;
  }
  int64_t s1, s2;
  bool k1 = ex_is_const(ns->size, &s1), k2 = ex_is_const(nd->size, &s2);
  if (k1 && k2 && s1 != s2) {
    diag_error(w->dg, loc_span(d->name, d->name2), "#copy size mismatch: '%s' has %lld elements, '%s' has %lld",
               ns->path, (long long)s1, nd->path, (long long)s2);
    return;
  }
  if (!copy_fits(w, ns, &sa[0], "reads") || !copy_fits(w, nd, &da[0], "writes")) return;
  if (ns->type->mpi_ref || nd->type->mpi_ref) {
    copy_distributed(w, it, ns, &sa[0], nd, &da[0]);
    return;
  }
  const char *src = lw_list_text(w, &sa[0]), *dst = lw_list_text(w, &da[0]);
  const char *what = dir_text(w, it);
  const char *loca = lw_loc_args(w, d->loc, what);
  char b_buf[1024];
  sbuf b;
  sb_init_in(&b, b_buf, sizeof b_buf);
  if (!(k1 && k2))
    sb_printf(&b, "if ((long long)(%s) != (long long)(%s)) parray_fatal_at(%s, \"#copy size mismatch: %%lld vs %%lld "
              "elements\", (long long)(%s), (long long)(%s));\n",
              ex_c(w, ns->size), ex_c(w, nd->size), loca, ex_c(w, ns->size), ex_c(w, nd->size));
  const char *elem = ns->type->elem;
  if (w->rg->kind != RG_HOST) {
    /* per-thread copy inside a detour */
    sb_puts(&b, copy_loop(w, ns, src, nd, dst, w->rg->kind == RG_CUDA && k1));
    lw_replace_dir(w, it, b.s);
    sb_free(&b);
    return;
  }
  bool dev = ns->type->mem == MK_DMEM || nd->type->mem == MK_DMEM;
  if (dev && w->target != TARGET_CUDA) {
    diag_error(w->dg, d->loc, "#copy involving dmem (GPU) memory needs the CUDA target");
    sb_free(&b);
    return;
  }
  int cs = ty_contiguous(&w->ty, ns), cd = ty_contiguous(&w->ty, nd);
  int64_t cnum;
  const char *count = ex_is_const(ns->size, &cnum) ? arena_printf(w->ar, "(parray_size_t)%lld", (long long)cnum)
                                                    : arena_printf(w->ar, "(parray_size_t)(%s)", ex_c(w, ns->size));
  if (cs == 1 && cd == 1) {
    if (dev)
      sb_printf(&b, "parray_cuda_memcpy(%s, %s, %s * sizeof(%s), %s);", dst, src, count, elem, loca);
    else
      sb_printf(&b, "__builtin_memcpy(%s, %s, %s * sizeof(%s));", dst, src, count, elem);
    lw_replace_dir(w, it, b.s);
    sb_free(&b);
    return;
  }
  layout *ls = ty_layout(&w->ty, ns), *ld = ty_layout(&w->ty, nd);
  jmode jm[32];
  int nj = (ls && ld) ? joint_modes(w, ls, ld, jm, 32) : -1;
  if (nj < 0) {
    if (dev) {
      diag_error(w->dg, d->loc, "#copy between these device layouts needs a split of dimensions that cannot be "
                 "proved at compile time");
      sb_free(&b);
      return;
    }
    sb_puts(&b, copy_loop(w, ns, src, nd, dst, false));
    lw_replace_dir(w, it, b.s);
    sb_free(&b);
    return;
  }
  bool allk = true;
  for (int k = 0; k < nj; k++)
    allk &= ex_is_const(jm[k].n, NULL) && ex_is_const(jm[k].ds, NULL) && ex_is_const(jm[k].ss, NULL);
  sb_printf(&b, "{ %sconst parray_int64_t parray__shape[] = {", allk ? "static " : "");
  for (int k = 0; k < nj; k++) sb_printf(&b, "%s%s", k ? ", " : "", ex_c(w, jm[k].n));
  sb_puts(&b, "}, parray__dstride[] = {");
  for (int k = 0; k < nj; k++) sb_printf(&b, "%s%s", k ? ", " : "", ex_c(w, jm[k].ds));
  sb_puts(&b, "}, parray__sstride[] = {");
  for (int k = 0; k < nj; k++) sb_printf(&b, "%s%s", k ? ", " : "", ex_c(w, jm[k].ss));
  sb_puts(&b, "};\n");
  if (dev)
    sb_printf(&b, "  parray_cuda_copy(%s, %s, parray__dstride, %s, %s, parray__sstride, parray__shape, %d, "
              "sizeof(%s), %s); }",
              lw_memkind_enum(nd->type->mem), dst, lw_memkind_enum(ns->type->mem), src, nj, elem, loca);
  else
    sb_printf(&b, "  if (parray_copy_strided_cpu(%s, parray__dstride, %s, parray__sstride, parray__shape, %d, "
              "sizeof(%s)) != PARRAY_OK) parray_fatal_at(%s, \"%%s\", parray_last_error()); }",
              dst, src, nj, elem, loca);
  lw_replace_dir(w, it, b.s);
  sb_free(&b);
}
