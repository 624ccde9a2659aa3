/* lower_detour.c - thread arrays (docs/threads.md): a #detour body is
 * outlined into a function at file scope -- a pthread body, an MPI body or a
 * CUDA kernel -- and replaced by the code that runs it and waits for it.
 * Variables of the enclosing scopes that the body uses are found through the
 * translator's scopes and captured: by reference for pthd, by value for mpi
 * and cuda (a pointer there is an error that names it). $tid$ and #sync are
 * lowered per kind. */
#include "emit.h"

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
static const char *fresh_name(lw *w, const char *what, const char *type, loc at) {
  const char *base = arena_printf(w->ar, "parray__%s_%s_L%d", what, type, src_line(w->src, at.b));
  const char *n = base;
  for (int k = 2; strmap_get(&w->fnames, n, strlen(n)); k++) n = arena_printf(w->ar, "%s_%d", base, k);
  strmap_put(&w->fnames, n, strlen(n), (void *)1);
  return n;
}

/* ---- declarations of captured variables ---------------------------------- */

static bool storage_word(const char *s, size_t n) {
  static const char *const ws[] = {"typedef", "extern", "static", "auto", "register", "_Thread_local", "__thread",
                                   "thread_local", "inline", "__inline", "__inline__", "_Noreturn",
                                   "__forceinline__", "__device__", "__host__", "__global__", "__shared__",
                                   "__constant__", "__managed__", NULL};
  for (const char *const *p = ws; *p; p++)
    if (str_eq(s, n, *p)) return true;
  return false;
}

/* "TYPE FIELD" declaring a member that holds the capture of s in this mode */
static char *field_decl(lw *w, sym *s, cap_mode mode, const char *field) {
  const char *spec, *decl;
  if (mode == CAP_HANDLE) return arena_printf(w->ar, "int %s", field);
  if (s->type_spec) {
    spec = s->type_spec;
    decl = s->type_decl;
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
    w->rsub_item = s->decl.name;
    w->rsub_text = param_array ? "*@" : "@";
    w->rskip_item = param_array ? s->decl.array_suffix : NULL;
    decl = lw_items_text(w, s->decl.decl_first, s->decl.decl_last);
    w->rsub_item = w->rskip_item = NULL;
  }
  /* apply the mode to the declarator pattern */
  const char *at = strchr(decl, '@');
  if (!at) return arena_printf(w->ar, "%s %s", spec, field);
  const char *inner = mode == CAP_PTR ? arena_printf(w->ar, "(*%s)", field) : field;
  if (mode == CAP_DECAY) {
    /* drop the array's first bound: "@[3][4]" -> "(*f)[4]" */
    const char *br = at + 1;
    while (*br == ' ') br++;
    if (*br == '[') {
      int depth = 0;
      const char *e = br;
      for (; *e; e++) {
        if (*e == '[') depth++;
        else if (*e == ']' && --depth == 0) break;
      }
      return arena_printf(w->ar, "%s %.*s(*%s)%s", spec, (int)(at - decl), decl, field, *e ? e + 1 : "");
    }
    inner = arena_printf(w->ar, "(*%s)", field);
  }
  return arena_printf(w->ar, "%s %.*s%s%s", spec, (int)(at - decl), decl, inner, at + 1);
}

static const char *sym_name(lw *w, sym *s) { return arena_strndup(w->ar, s->name, s->len); }

/* how the body refers to a capture */
static const char *capture_use(lw *w, region *r, capture *c) {
  switch (c->mode) {
  case CAP_PTR: return arena_printf(w->ar, "(*parray__ctx->%s)", c->field);
  case CAP_DECAY: return arena_printf(w->ar, "parray__ctx->%s", c->field);
  case CAP_VALUE: return r->kind == RG_CUDA ? c->field : arena_printf(w->ar, "parray__ctx->%s", c->field);
  case CAP_HANDLE: return arena_printf(w->ar, "parray__l_%s", c->field);
  case CAP_ERROR: return c->field;
  }
  return c->field;
}

const char *lower_capture_ref(lw *w, region *r, sym *s, loc use) {
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].s == s) return capture_use(w, r, &r->caps[i]);
  capture c = {.s = s, .field = sym_name(w, s)};
  const char *nm = c.field;
  if (r->kind == RG_PTHD) {
    c.mode = s->is_array ? CAP_DECAY : CAP_PTR;
    if (s->decl.is_register && s->has_decl) {
      diag_error(w->dg, use, "'%s' is a register variable: a pthd detour shares variables by reference and cannot "
                 "take its address", nm);
      c.mode = CAP_ERROR;
    }
  } else if (r->kind == RG_MPI) {
    if (s->created && s->created->type->mpi_ref) {
      c.mode = CAP_HANDLE;
    } else if (s->is_pointer || s->is_array) {
      diag_error(w->dg, use, "'%s' is a host %s captured by an mpi detour; processes do not share memory: move the "
                 "data with #copy to a distributed array", nm, s->is_array ? "array" : "pointer");
      c.mode = CAP_ERROR;
    } else {
      c.mode = CAP_VALUE;
    }
  } else {
    if (s->is_pointer || s->is_array) {
      diag_error(w->dg, use, "host variable '%s' is used in the body of a cuda detour but is not a parameter of "
                 "'%s'; pass it through the detour's parameters", nm, r->thread->name);
      c.mode = CAP_ERROR;
    } else {
      c.mode = CAP_VALUE; /* Decision: scalars are passed by value automatically */
    }
  }
  if (r->ncaps == r->capcaps) {
    r->capcaps = r->capcaps ? r->capcaps * 2 : 8;
    capture *nc = arena_alloc(w->ar, sizeof *nc * (size_t)r->capcaps);
    if (r->ncaps) memcpy(nc, r->caps, sizeof *nc * (size_t)r->ncaps);
    r->caps = nc;
  }
  r->caps[r->ncaps++] = c;
  return capture_use(w, r, &c);
}

/* The value used to initialise a capture, as written in the enclosing code. */
static const char *capture_init(lw *w, region *r, capture *c) {
  region *o = r->outer;
  sym *s = c->s;
  const char *base = sym_name(w, s);
  if (c->mode == CAP_HANDLE) base = arena_printf(w->ar, "parray__h_%s", base);
  if (o->kind != RG_HOST && s->depth < o->depth) {
    /* captured by the enclosing detour too */
    if (c->mode == CAP_HANDLE) {
      diag_error(w->dg, r->at, "a distributed array cannot be passed through nested detours");
    } else {
      base = lower_capture_ref(w, o, s, r->at);
    }
  }
  return c->mode == CAP_PTR ? arena_printf(w->ar, "&%s", base) : base;
}

/* ---- the detour ----------------------------------------------------------------- */

/* Walk the body with region r into a buffer; returns the body text. */
static char *walk_body(lw *w, item *it, region *r, cd_stmt *params) {
  item *blk = it->dir->block;
  bool saved_need = w->pr.need_line;
  pr_src_to(&w->pr, it->loc.b);
  pr_push(&w->pr);
  w->pr.copied = blk->loc.b;
  w->pr.need_line = true;
  region *saved = w->rg;
  w->rg = r;
  sc_push(&w->sc);
  r->depth = w->sc.depth;
  if (params)
    for (int i = 0; i < params->ndecls; i++) {
      cd_decl *d = &params->decls[i];
      sym *s = sc_add(&w->sc, SYM_VAR, w->src->text + d->name->loc.b, d->name->loc.e - d->name->loc.b);
      s->decl = *d, s->has_decl = true, s->is_param = true, s->is_pointer = d->is_pointer, s->region = r->id;
    }
  lw_walk_block(w, blk);
  sc_pop(&w->sc);
  w->rg = saved;
  pr_src_to(&w->pr, blk->loc.e);
  char *text = pr_pop(&w->pr, w->ar);
  w->pr.copied = it->loc.b;
  w->pr.need_line = saved_need;
  return text;
}

/* struct type holding the captures; NULL when there are none */
static const char *ctx_struct(lw *w, region *r, const char *fname, sbuf *hoist) {
  int n = 0;
  for (int i = 0; i < r->ncaps; i++) n += r->caps[i].mode != CAP_ERROR;
  if (!n) return NULL;
  const char *st = arena_printf(w->ar, "struct %s_ctx", fname);
  sb_printf(hoist, "%s {\n", st);
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].mode != CAP_ERROR)
      sb_printf(hoist, "  %s;\n", field_decl(w, r->caps[i].s, r->caps[i].mode, r->caps[i].field));
  sb_puts(hoist, "};\n");
  return st;
}

static void ctx_init(lw *w, region *r, const char *st, sbuf *call) {
  sb_printf(call, "%s parray__c = {", st);
  bool first = true;
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].mode != CAP_ERROR) {
      sb_printf(call, "%s%s", first ? "" : ", ", capture_init(w, r, &r->caps[i]));
      first = false;
    }
  sb_puts(call, "};\n  ");
}

static void detour_host_threads(lw *w, item *it, region *r) {
  directive *d = it->dir;
  ptype *T = r->thread;
  const char *tname = T->name;
  char *body = walk_body(w, it, r, NULL);
  const char *fname = fresh_name(w, r->kind == RG_PTHD ? "pthd" : "mpi", tname, d->loc);
  sbuf h, call;
  sb_init(&h);
  sb_init(&call);
  const char *st = ctx_struct(w, r, fname, &h);
  bool wide = ex_needs_wide(T->root->size);
  if (r->kind == RG_PTHD)
    sb_printf(&h, "static void %s(void *parray__vctx, parray_team *parray__team, parray_int64_t parray__tid64) {\n", fname);
  else
    sb_printf(&h, "static void %s(void *parray__vctx, parray_int64_t parray__tid64) {\n", fname);
  if (st) sb_printf(&h, "  %s *parray__ctx = (%s *)parray__vctx;\n", st, st);
  else sb_puts(&h, "  (void)parray__vctx;\n");
  sb_printf(&h, "  const %s parray__tid = (%s)parray__tid64;\n  (void)parray__tid;%s\n", wide ? "parray_int64_t" : "int",
            wide ? "parray_int64_t" : "int", r->kind == RG_PTHD ? " (void)parray__team;" : "");
  /* this process's blocks of the distributed arrays the body uses */
  for (int i = 0; i < r->ncaps; i++)
    if (r->caps[i].mode == CAP_HANDLE) {
      const char *el = r->caps[i].s->created->type->elem;
      sb_printf(&h, "  %s *const parray__l_%s = (%s *)parray_mpi_local(parray__ctx->%s);\n", el, r->caps[i].field, el,
                r->caps[i].field);
    }
  sb_puts(&h, body);
  sb_puts(&h, "\n}\n");
  pr_hoist(&w->pr, h.s);

  const char *loca = lw_loc_args(w, d->loc, arena_printf(w->ar, "#detour %s", tname));
  /* the enclosing code starts the threads: inside another detour, it captures the sizes' variables */
  const char *count = ex_str(&w->ex, lw_localize(w, T->root->size, d->loc), wide);
  sb_puts(&call, "{ ");
  if (st) ctx_init(w, r, st, &call);
  if (r->kind == RG_PTHD) {
    sb_printf(&call, "if (parray_pthd_run(%s, %s, %s) != PARRAY_OK) parray_fatal_at(%s, \"%%s\", parray_last_error()); }",
              count, fname, st ? "&parray__c" : "0", loca);
  } else {
    int id = w->nmpi_bodies++;
    const char **nb = arena_alloc(w->ar, sizeof *nb * (size_t)w->nmpi_bodies);
    if (id) memcpy(nb, w->mpi_bodies, sizeof *nb * (size_t)id);
    nb[id] = fname;
    w->mpi_bodies = nb;
    sb_printf(&call, "if (parray_mpi_detour(%d, %s, %s, %s) != PARRAY_OK) parray_fatal_at(%s, \"%%s\", "
              "parray_last_error()); }", id, st ? "&parray__c" : "0", st ? "sizeof parray__c" : "0", count, loca);
  }
  lw_replace_dir(w, it, call.s);
  sb_free(&h);
  sb_free(&call);
}

void lower_detour(lw *w, item *it) {
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
    emit_cuda_detour(w, it, r);
    return;
  }
  if (r->kind == RG_PTHD) w->uses_pthd = true;
  if (r->kind == RG_MPI) w->uses_mpi = true;
  detour_host_threads(w, it, r);
}

/* cuda kernels need the body walker and the capture helpers */
char *lower_walk_body(lw *w, item *it, region *r, cd_stmt *params) { return walk_body(w, it, r, params); }
const char *lower_capture_init(lw *w, region *r, capture *c) { return capture_init(w, r, c); }
char *lower_field_decl(lw *w, sym *s, cap_mode mode, const char *field) { return field_decl(w, s, mode, field); }
const char *lower_fresh_name(lw *w, const char *what, const char *type, loc at) { return fresh_name(w, what, type, at); }

void lower_sync(lw *w, item *it) {
  directive *d = it->dir;
  region *r = thread_region(w);
  if (!r) {
    diag_error(w->dg, d->kw, "#sync outside a detour: it is a barrier over the threads of a thread array");
    return;
  }
  const char *kw = w->src->text + d->kw.b;
  size_t kl = d->kw.e - d->kw.b;
  const char *path = memchr(kw, '_', kl);
  if (r->kind == RG_CUDA) {
    emit_cuda_sync(w, it, r, path ? arena_strndup(w->ar, path, (size_t)(kw + kl - path)) : NULL);
    return;
  }
  if (path) {
    diag_error(w->dg, d->kw, "'#sync%.*s': barriers over part of a thread array exist only for cuda thread arrays "
               "(#sync_0, #sync_1)", (int)(kw + kl - path), path);
    return;
  }
  r->uses_sync = true;
  lw_replace_dir(w, it, r->kind == RG_PTHD ? "parray_team_sync(parray__team);" : "parray_mpi_sync();");
}

void lower_tid(lw *w, dollar *d, ex **out) {
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
    *out = emit_cuda_tid(w, r, p);
    return;
  }
  int64_t sz;
  ex *tid = ex_atom(&w->ex, "parray__tid", 0, ex_is_const(r->thread->root->size, &sz) ? sz - 1 : EX_INF);
  *out = p == r->thread->root ? tid : ty_tid_digit(&w->ty, p, tid);
}
