/* SPDX-License-Identifier: Apache-2.0 */
/* target.c - how cuda thread array types map onto the hardware (target.h). */
#include "target.h"

#include <string.h>

static const char *const hw_axis = "zyx";

/* the nodes of a dimension mapped to z, y, x */
static void map_dim(const dnode *c, dnode *out[3]) {
  memset(out, 0, sizeof(dnode *) * 3);
  if (c->nkids == 0 || c->nkids > 3) {
    out[2] = (dnode *)c;
    return;
  }
  for (int k = 0; k < c->nkids; k++) out[3 - c->nkids + k] = c->kids[k];
}

void tgt_cuda_dims(const ptype *T, int g, ex *out[3]) {
  dnode *m[3];
  map_dim(T->root->kids[g], m);
  for (int k = 0; k < 3; k++) out[k] = m[k] ? m[k]->size : NULL;
}

bool tgt_cuda_check_type(diag *dg, const ptype *T, loc at) {
  dnode *root = T->root;
  if (root->nkids != 2) {
    diag_error(dg, at, "a cuda thread array type has exactly two top-level dimensions (the grid and the block); "
               "'%s' has %d", T->name, root->nkids);
    return false;
  }
  static const int64_t block_lim[3] = {64, 1024, 1024}, grid_lim[3] = {65535, 65535, 2147483647};
  bool ok = true;
  for (int g = 0; g < 2; g++) {
    dnode *m[3];
    map_dim(root->kids[g], m);
    const int64_t *lim = g ? block_lim : grid_lim;
    for (int k = 0; k < 3; k++) {
      int64_t v;
      if (m[k] && ex_is_const(m[k]->size, &v) && v > lim[k]) {
        diag_error(dg, at, "'%s' maps to %sDim.%c = %lld, over the hardware limit of %lld", m[k]->path,
                   g ? "block" : "grid", hw_axis[k], (long long)v, (long long)lim[k]);
        ok = false;
      }
    }
  }
  int64_t threads;
  if (ok && ex_is_const(root->kids[1]->size, &threads) && threads > 1024) {
    diag_error(dg, at, "the block '%s' of '%s' has %lld threads; a CUDA block has at most 1024",
               root->kids[1]->path, T->name, (long long)threads);
    ok = false;
  }
  return ok;
}

ex *tgt_cuda_tid(tyctx *ty, const ptype *T, dnode *p) { return tgt_cuda_tid_from(ty, T, p, "blockIdx"); }

ex *tgt_cuda_tid_from(tyctx *ty, const ptype *T, dnode *p, const char *block) {
  exctx *x = ty->ex;
  ex *lin = ex_const(x, 0);
  for (int g = 0; g < 2; g++) {
    dnode *m[3];
    map_dim(T->root->kids[g], m);
    for (int k = 0; k < 3; k++) {
      if (!m[k]) continue;
      int64_t sz;
      const char *txt = arena_printf(ty->ar, "(int)%s.%c", g ? "threadIdx" : block, hw_axis[k]);
      ex *hw = ex_atom(x, txt, 0, ex_is_const(m[k]->size, &sz) ? sz - 1 : EX_INF);
      lin = ex_add(x, lin, ex_mul(x, hw, ty_last_stride(ty, m[k])));
    }
  }
  int64_t total;
  lin = ex_with_range(x, lin, 0, ex_is_const(T->root->size, &total) ? total - 1 : EX_INF);
  return p == T->root ? lin : ty_tid_digit(ty, p, lin);
}
