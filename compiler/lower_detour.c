/* lower_detour.c - thread arrays: #detour and #sync (LANGUAGE.md 6). */
#include "lower.h"

void lower_detour(lw *w, item *it) {
  diag_error(w->dg, it->dir->kw, "#detour is not implemented yet");
}

void lower_sync(lw *w, item *it) {
  if (w->rg->kind == RG_HOST) {
    diag_error(w->dg, it->dir->kw, "#sync outside a detour: it is a barrier over the threads of a thread array");
    return;
  }
}

const char *lower_capture_ref(lw *w, region *r, sym *s, loc use) {
  (void)w, (void)r, (void)s, (void)use;
  return NULL;
}

void lower_tid(lw *w, dollar *d, ex **out) {
  *out = NULL;
  if (w->rg->kind == RG_HOST) diag_error(w->dg, d->loc, "$tid$ used outside a detour");
}
