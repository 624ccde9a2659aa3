/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_copy_plan.c - the plan of a collective #copy (mpi_copy_plan.h), which
 * the host engine (mpi_copy.c), the staged engine (mpi_copy_staged.c) and
 * the grouped one (mpi_copy_grouped.c) all run: the walk over the combos of
 * the process modes, the per-peer counts and displacements, packing and
 * unpacking one peer's blocks, the host pack buffers kept between copies and
 * the descriptor as process 0 broadcasts it. The engines call it; it calls
 * none of them. docs/mpi_runtime.md describes the algorithm. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_copy_plan.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXM RMPI_MAXM

/* Pack buffers are kept between copies (first-touching fresh pages on every
 * copy would cost more than the copy). Only the MPI thread uses them. */
static struct {
  void *p;
  size_t bytes;
} cache[2];

void *rmpi_cached(int which, size_t bytes) {
  if (cache[which].bytes >= bytes) return cache[which].p;
  parray_host_free(PARRAY_PAGED, cache[which].p, cache[which].bytes);
  cache[which].p = parray_host_alloc(PARRAY_PAGED, bytes);
  cache[which].bytes = cache[which].p ? bytes : 0;
  return cache[which].p;
}

void rmpi_copy_cleanup(void) {
  for (int i = 0; i < 2; i++) {
    parray_host_free(PARRAY_PAGED, cache[i].p, cache[i].bytes);
    cache[i].p = NULL;
    cache[i].bytes = 0;
  }
}

static void combo_eval(const copy_desc *d, combo *c) {
  c->ps = c->pd = 0;
  c->os = d->sbase, c->od = d->dbase;
  for (int k = 0; k < d->u; k++) {
    c->ps += c->idx[k] * d->sp[k];
    c->pd += c->idx[k] * d->dp[k];
    c->os += c->idx[k] * d->sl[k];
    c->od += c->idx[k] * d->dl[k];
  }
}

void rmpi_combo_first(const copy_desc *d, combo *c) {
  memset(c->idx, 0, sizeof c->idx);
  combo_eval(d, c);
}

bool rmpi_combo_next(const copy_desc *d, combo *c) {
  for (int k = (int)d->u - 1; k >= 0; k--) {
    if (++c->idx[k] < d->shape[k]) {
      combo_eval(d, c);
      return true;
    }
    c->idx[k] = 0;
  }
  return false;
}

/* Inner modes laid out row-major and contiguous with these strides? */
static bool inner_contiguous(const copy_desc *d, const int64_t *str) {
  int64_t want = 1;
  for (int k = (int)d->n - 1; k >= (int)d->u; k--) {
    if (str[k] != want) return false;
    want *= d->shape[k];
  }
  return true;
}

void rmpi_plan_free(plan *pl) {
  free(pl->scnt);
  pl->scnt = NULL;
}

parray_status rmpi_strided(const parray_mpi_memory *m, int lane, void *dst, const int64_t *ds, const void *src,
                           const int64_t *ss, const int64_t *shape, int n, size_t es) {
  if (!m) return parray_copy_strided_cpu(dst, ds, src, ss, shape, n, es);
  return m->copy(m->ctx, lane, dst, ds, src, ss, shape, n, es);
}

/* Record one combo's block in the counts of its peer: cnt/dsp the peer's
 * count and first displacement, next where its run continues (-1: none yet);
 * *zc stays true while every peer's blocks follow each other. */
static void count_run(int64_t *cnt, int64_t *dsp, int64_t *next, int64_t off, int64_t inner, bool *zc) {
  *cnt += inner;
  if (*next < 0)
    *dsp = off;
  else if (*next != off)
    *zc = false;
  *next = off + inner;
}

parray_status rmpi_plan_count(const copy_desc *d, plan *pl, char *sbase, char *rbase, bool self_peer) {
  memset(pl, 0, sizeof *pl);
  pl->P = rmpi_size();
  pl->me = rmpi_rank();
  pl->self_peer = self_peer;
  pl->sbase = sbase;
  pl->rbase = rbase;
  size_t P = (size_t)pl->P;
  pl->scnt = calloc(6 * P, sizeof(int64_t));
  if (!pl->scnt) {
    parray_set_error("#copy: out of memory");
    return PARRAY_ERR_ALLOC;
  }
  pl->sdsp = pl->scnt + P, pl->rcnt = pl->scnt + 2 * P, pl->rdsp = pl->scnt + 3 * P;
  pl->cur = pl->scnt + 4 * P, pl->next = pl->scnt + 5 * P;
  pl->inner = 1;
  for (int k = (int)d->n - 1; k >= (int)d->u; k--) {
    pl->pk[k] = pl->inner;
    pl->inner *= d->shape[k];
  }
  pl->szc = inner_contiguous(d, d->sl);
  pl->rzc = inner_contiguous(d, d->dl);
  /* next[p] / cur[p]: where the run for peer p continues (send / receive) */
  for (size_t p = 0; p < P; p++) pl->next[p] = pl->cur[p] = -1;
  combo c;
  rmpi_combo_first(d, &c);
  do {
    bool self = c.ps == c.pd && !self_peer;
    if (c.ps == pl->me && !self) count_run(&pl->scnt[c.pd], &pl->sdsp[c.pd], &pl->next[c.pd], c.os, pl->inner, &pl->szc);
    if (c.pd == pl->me && !self) count_run(&pl->rcnt[c.ps], &pl->rdsp[c.ps], &pl->cur[c.ps], c.od, pl->inner, &pl->rzc);
  } while (rmpi_combo_next(d, &c));
  int64_t so = 0, ro = 0;
  for (size_t p = 0; p < P; p++) {
    if (!pl->szc) pl->sdsp[p] = so;
    if (!pl->rzc) pl->rdsp[p] = ro;
    so += pl->scnt[p];
    ro += pl->rcnt[p];
  }
  pl->stot = pl->szc ? 0 : so;
  pl->rtot = pl->rzc ? 0 : ro;
  return PARRAY_OK;
}

parray_status rmpi_pack_peer(const copy_desc *d, const plan *pl, int q, const parray_mpi_memory *m, int lane,
                             char *buf) {
  int64_t es = d->es, at = pl->sdsp[q];
  int n = (int)(d->n - d->u);
  combo c;
  rmpi_combo_first(d, &c);
  do {
    if (c.ps != pl->me || c.pd != q) continue;
    parray_status s = rmpi_strided(m, lane, buf + at * es, pl->pk + d->u, pl->sbase + c.os * es, d->sl + d->u,
                                   d->shape + d->u, n, (size_t)es);
    if (s != PARRAY_OK) return s;
    at += pl->inner;
  } while (rmpi_combo_next(d, &c));
  return PARRAY_OK;
}

parray_status rmpi_copy_self(const copy_desc *d, const plan *pl, const parray_mpi_memory *m, int lane) {
  int64_t es = d->es;
  combo c;
  rmpi_combo_first(d, &c);
  do {
    if (c.ps != pl->me || c.pd != pl->me) continue;
    parray_status s = rmpi_strided(m, lane, pl->rbase + c.od * es, d->dl + d->u, pl->sbase + c.os * es, d->sl + d->u,
                                   d->shape + d->u, (int)(d->n - d->u), (size_t)es);
    if (s != PARRAY_OK) return s;
  } while (rmpi_combo_next(d, &c));
  return PARRAY_OK;
}

parray_status rmpi_unpack_peer(const copy_desc *d, const plan *pl, int p, const parray_mpi_memory *m, int lane,
                               const char *buf) {
  int64_t es = d->es, at = pl->rdsp[p];
  combo c;
  rmpi_combo_first(d, &c);
  do {
    if (c.pd != pl->me || c.ps != p) continue;
    parray_status s = rmpi_strided(m, lane, pl->rbase + c.od * es, d->dl + d->u, buf + at * es, pl->pk + d->u,
                                   d->shape + d->u, (int)(d->n - d->u), (size_t)es);
    if (s != PARRAY_OK) return s;
    at += pl->inner;
  } while (rmpi_combo_next(d, &c));
  return PARRAY_OK;
}

bool rmpi_desc_unpack(copy_desc *d, const int64_t *w, size_t bytes) {
  if (bytes < DESC_HEAD * sizeof *w) return false;
  int64_t n = w[0];
  if (n < 0 || n > MAXM || bytes != (size_t)(DESC_HEAD + 5 * n) * sizeof *w) return false;
  d->n = n, d->u = w[1], d->src_h = w[2], d->dst_h = w[3], d->es = w[4], d->p2p = w[5];
  d->sbase = w[6], d->dbase = w[7];
  if (d->sbase < 0 || d->dbase < 0) return false;
  int64_t *arr[5] = {d->shape, d->sl, d->sp, d->dl, d->dp};
  for (int j = 0; j < 5; j++) memcpy(arr[j], w + DESC_HEAD + j * n, (size_t)n * sizeof *w);
  return true;
}
