/* SPDX-License-Identifier: Apache-2.0 */
/* lower.c - the helpers every planner of the lowering shares, and nothing
 * above them: the source text of an item, a directive as written, an
 * argument list split at its commas, the data type a directive names and
 * its element size, what a word means at this point (type word, typedef,
 * macro: the callbacks the semantic layer calls), the site of a run-time
 * error, a fresh file-scope name, and the replacement of a directive by its
 * code in the output. It calls no other file of compiler/lower. */
#include "lower.h"
#include "runtime_names.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

const char *lw_text(lw *w, loc l) { return arena_strndup(w->in.ar, w->in.src->text + l.b, l.e - l.b); }

static bool is_punct(const item *it, int p) { return it && it->kind == IT_TOK && it->tk == T_PUNCT && it->punct == p; }

void lw_declare_var(lw *w, const char *name, size_t len, const char *spec, const char *decl, bool is_pointer) {
  sym *s = sc_add(&w->sc, SYM_VAR, name, len);
  s->type_spec = spec, s->type_decl = decl, s->is_pointer = is_pointer, s->region = w->rg->id;
}

bool lw_is_typedef(lw *w, const char *name, size_t len) {
  sym *s = sc_find(&w->sc, name, len);
  if (s) return s->kind == SYM_TYPEDEF;
  /* a subprogram's value parameter whose argument is a type name (not parenthesized) */
  const char *v = w->inst ? strmap_get(&w->inst->vals, name, len) : NULL;
  if (v) return *v != '(';
  return w->in.hdr && strmap_get(&w->in.hdr->typedefs, name, len) != NULL;
}

bool lw_is_type_name(lw *w, const char *s, size_t n) { return lw_is_type_word(w, s, n) || lw_is_typedef(w, s, n); }

bool lw_is_type_word(lw *w, const char *s, size_t n) {
  (void)w;
  static const char *const tw[] = {"void", "char", "short", "int", "long", "float", "double", "signed",
                                   "unsigned", "_Bool", "struct", "union", "enum", "const", "volatile", NULL};
  for (const char *const *p = tw; *p; p++)
    if (str_eq(s, n, *p)) return true;
  return false;
}

void lw_cd_init(lw *w) {
  w->cd = (cdctx){.text = w->in.src->text, .ar = w->in.ar, .prog = lw_semaprog(w)};
  cd_init(&w->cd);
}

dnode *lw_resolve(lw *w, loc name, bool report) {
  return ty_resolve(&w->ty, w->in.src->text + name.b, name.e - name.b, name, report);
}

int lw_split_args(lw *w, items *args, items **out) {
  int n = 0, cap = 4;
  items *v = arena_alloc(w->in.ar, sizeof *v * (size_t)cap);
  items cur = items_empty();
  for (item *it = args->first, *next; it; it = next) {
    next = it->next;
    if (is_punct(it, ',')) {
      if (n == cap) {
        items *nv = arena_alloc(w->in.ar, sizeof *nv * (size_t)cap * 2);
        memcpy(nv, v, sizeof *v * (size_t)n);
        v = nv, cap *= 2;
      }
      v[n++] = cur;
      cur = items_empty();
      continue;
    }
    /* items_add relinks; keep the original chain intact by copying */
    item *c = arena_alloc(w->in.ar, sizeof *c);
    *c = *it;
    cur = items_add(cur, c);
  }
  if (cur.n || n) {
    if (n == cap) {
      items *nv = arena_alloc(w->in.ar, sizeof *nv * (size_t)cap * 2);
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
    char c = w->in.src->text[i];
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
  char *s = arena_strdup(w->in.ar, b.s);
  sb_free(&b);
  return s;
}

const char *lw_dir_text(lw *w, item *it) {
  /* the directive as written, on one line */
  const char *t = lw_text(w, it->dir->loc);
  char *c = arena_strdup(w->in.ar, t);
  for (char *p = c; *p; p++)
    if (*p == '\n' || *p == '\t' || *p == '\r') *p = ' ';
  return c;
}

bool lw_single_ident(items *a, loc *out) {
  if (a->n != 1 || a->first->kind != IT_TOK || a->first->tk != T_IDENT) return false;
  *out = a->first->loc;
  return true;
}

dnode *lw_data_type(lw *w, loc name) {
  dnode *n = lw_resolve(w, name, true);
  if (!n) return NULL;
  if (n->type->thread != TK_DATA) {
    diag_error(w->in.dg, name, "'%s' is a thread array type, not a data type", n->path);
    return NULL;
  }
  return n;
}

ctenv lw_ctenv(lw *w) {
  return (ctenv){.sc = &w->sc, .src = w->in.src->text, .prog = lw_semaprog(w)};
}

int64_t lw_elem_bytes(lw *w, const char *elem) {
  int64_t es = lw_elem_size(elem);
  if (es) return es;
  ctenv e = lw_ctenv(w);
  return lw_elem_size(ct_canonical(&e, elem, w->in.ar));
}

int64_t lw_elem_size(const char *elem) {
  static const struct {
    const char *name;
    int64_t size;
  } k[] = {{"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"int8_t", 1}, {"uint8_t", 1}, {"bool", 1},
           {"short", 2}, {"unsigned short", 2}, {"int16_t", 2}, {"uint16_t", 2}, {"half", 2}, {"__half", 2},
           {"int", 4}, {"unsigned", 4}, {"unsigned int", 4}, {"int32_t", 4}, {"uint32_t", 4}, {"float", 4},
           {"long", 8}, {"unsigned long", 8}, {"long long", 8}, {"unsigned long long", 8}, {"int64_t", 8},
           {"uint64_t", 8}, {"size_t", 8}, {"ptrdiff_t", 8}, {"double", 8},
           /* CUDA's vector and 16-bit float types */
           {"__nv_bfloat16", 2}, {"half2", 4}, {"__half2", 4}, {"char4", 4}, {"uchar4", 4}, {"short2", 4},
           {"ushort2", 4}, {"float2", 8}, {"int2", 8}, {"uint2", 8}, {"short4", 8}, {"ushort4", 8},
           {"float4", 16}, {"int4", 16}, {"uint4", 16}, {"double2", 16}, {"longlong2", 16}};
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

int lw_dev_service(lw *w) {
  plan_entry *en = &w->entry;
  for (int i = 0; i < en->nmpi_bodies; i++)
    if (!strcmp(en->mpi_bodies[i], RT_MPI_DEV_SERVICE)) return i;
  const char **nb = arena_alloc(w->in.ar, sizeof *nb * (size_t)(en->nmpi_bodies + 1));
  if (en->nmpi_bodies) memcpy(nb, en->mpi_bodies, sizeof *nb * (size_t)en->nmpi_bodies);
  nb[en->nmpi_bodies] = RT_MPI_DEV_SERVICE;
  en->mpi_bodies = nb;
  return en->nmpi_bodies++;
}
/* A fresh file-scope name "parray__<what>_<TYPE>_L<line>" (suffixed if taken). */
const char *lw_fresh_name(lw *w, const char *what, const char *type, loc at) {
  const char *base = arena_printf(w->in.ar, GEN_FRESH_FMT, what, type, src_line(w->in.src, at.b));
  const char *n = base;
  for (int k = 2; strmap_get(&w->fnames, n, strlen(n)); k++) n = arena_printf(w->in.ar, "%s_%d", base, k);
  strmap_put(&w->fnames, n, strlen(n), (void *)1);
  return n;
}

/* ---- the file's records -------------------------------------------------------- */

#define LW_MAX(a, b) ((a) > (b) ? (a) : (b))
/* the bytes of r kept: a plan's whole record; a record of structure or a
 * substitution (an #insert expansion makes them by the million) only the
 * union's members those kinds use */
static size_t record_bytes(const lw_record *r) {
  size_t part = LW_MAX(LW_MAX(sizeof r->u.subst, sizeof r->u.body), LW_MAX(sizeof r->u.mainhost, sizeof r->u.subprog));
  part = LW_MAX(part, LW_MAX(sizeof r->u.type, sizeof r->u.entry));
  return r->kind <= LR_LAST_PLAN ? sizeof *r : offsetof(lw_record, u) + part;
}

void lw_put(lw *w, const lw_record *r) {
  if (r->kind == LR_NONE) return;
  size_t n = record_bytes(r);
  lw_record *k = arena_alloc(w->in.ar, n);
  memcpy(k, r, n);
  vec_push(w->print.recs, k);
}
