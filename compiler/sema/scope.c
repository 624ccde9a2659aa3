/* SPDX-License-Identifier: Apache-2.0 */
/* scope.c - symbol tables with an undo log per block (see scope.h). */
#include "scope.h"

#include <stdlib.h>

void sc_init(scopes *s, arena *ar) {
  *s = (scopes){.ar = ar};
  strmap_init(&s->syms);
  strmap_init(&s->types);
}

void sc_free(scopes *s) {
  strmap_free(&s->syms);
  strmap_free(&s->types);
  free(s->log);
  free(s->marks);
}

void sc_push(scopes *s) {
  if (s->nmarks == s->capmarks) {
    s->capmarks = s->capmarks ? s->capmarks * 2 : 32;
    s->marks = realloc(s->marks, sizeof *s->marks * (size_t)s->capmarks);
  }
  s->marks[s->nmarks++] = s->nlog;
  s->depth++;
}

static void log_undo(scopes *s, bool is_type, const char *name, size_t len) {
  if (s->nlog == s->caplog) {
    s->caplog = s->caplog ? s->caplog * 2 : 64;
    s->log = realloc(s->log, sizeof *s->log * (size_t)s->caplog);
  }
  s->log[s->nlog++] = (struct undo){is_type, name, len};
}

void sc_pop(scopes *s) {
  if (!s->nmarks) return;
  int mark = s->marks[--s->nmarks];
  while (s->nlog > mark) {
    struct undo u = s->log[--s->nlog];
    if (u.is_type) {
      tybind *b = strmap_get(&s->types, u.name, u.len);
      strmap_put(&s->types, u.name, u.len, b ? b->prev : NULL);
    } else {
      sym *y = strmap_get(&s->syms, u.name, u.len);
      strmap_put(&s->syms, u.name, u.len, y ? y->prev : NULL);
    }
  }
  s->depth--;
}

sym *sc_add(scopes *s, sym_kind k, const char *name, size_t len) {
  sym *y = arena_alloc(s->ar, sizeof *y);
  y->kind = k, y->name = name, y->len = len, y->depth = s->depth;
  y->prev = strmap_get(&s->syms, name, len);
  strmap_put(&s->syms, name, len, y);
  log_undo(s, false, name, len);
  return y;
}

sym *sc_find(const scopes *s, const char *name, size_t len) { return strmap_get(&s->syms, name, len); }

void sc_add_type(scopes *s, const char *name, size_t len, dnode *node, ptype *type) {
  tybind *b = arena_alloc(s->ar, sizeof *b);
  b->node = node, b->type = type, b->depth = s->depth;
  b->prev = strmap_get(&s->types, name, len);
  strmap_put(&s->types, name, len, b);
  log_undo(s, true, name, len);
}

tybind *sc_find_type(const scopes *s, const char *name, size_t len) { return strmap_get(&s->types, name, len); }
