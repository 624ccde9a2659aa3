/* SPDX-License-Identifier: Apache-2.0 */
/* lower_program.c - the program as sema asks about it (compiler/sema/
 * program.h): the lowering's state answers which names are typedefs and
 * array types at the current point of the walk, what the headers' macros
 * expand to, and what a size expression is worth. The one place where sema's
 * interface is implemented; sema holds no function pointer into lower. */
#include "lower.h"
#include "lower_dollar.h"

#include <string.h>

/* A semaprog is the lowering's state, which sema sees as opaque
 * (lw_semaprog, lower.h). */
struct semaprog {
  lw w;
};

static lw *of(semaprog *p) { return &p->w; }

ex *sp_eval_size(semaprog *p, items *expr, loc where, const char *what) {
  return lw_size_expr(of(p), expr, where, what);
}

const char *sp_macro_body(semaprog *p, const char *name, size_t len) {
  lw *w = of(p);
  macro *m = w->in.hdr ? strmap_get(&w->in.hdr->macros, name, len) : NULL;
  return m && !m->funclike ? m->body : NULL;
}

const char *sp_macro(semaprog *p, const char *name, size_t len, bool *funclike) {
  lw *w = of(p);
  if (!w->in.hdr) return NULL;
  macro *m = strmap_get(&w->in.hdr->macros, name, len);
  if (!m) return NULL;
  *funclike = m->funclike;
  return m->body;
}

bool sp_is_typedef(semaprog *p, const char *name, size_t len) { return lw_is_typedef(of(p), name, len); }

bool sp_is_type_macro(semaprog *p, const char *name, size_t len) {
  lw *w = of(p);
  if (!w->in.hdr) return false;
  macro *m = strmap_get(&w->in.hdr->macros, name, len);
  if (!m || m->funclike || !m->body) return false;
  /* the first word of the expansion is a type word or typedef name */
  const char *b = m->body;
  while (*b == ' ' || *b == '\t' || *b == '(') b++;
  size_t n = 0;
  while ((b[n] >= 'a' && b[n] <= 'z') || (b[n] >= 'A' && b[n] <= 'Z') || (b[n] >= '0' && b[n] <= '9') || b[n] == '_')
    n++;
  if (!n || str_eq(name, len, b)) return false;
  return lw_is_type_word(w, b, n) || strmap_get(&w->in.hdr->typedefs, b, n) != NULL;
}

bool sp_is_type_word(semaprog *p, const char *name, size_t len) {
  lw *w = of(p);
  return lw_is_type_name(w, name, len) || lw_is_type_word(w, name, len);
}

dnode *sp_lookup_type(semaprog *p, const char *name, size_t len, loc where, bool report) {
  lw *w = of(p);
  (void)where;
  tybind *b = sc_find_type(&w->sc, name, len);
  if (b && b->type && b->type->building && report) return NULL;
  return b ? b->node : NULL;
}
