/* mpi_copy_split.c - the collective #copy planned at run time
 * (parray_mpi_copy_split): used by the translator when the two sides of a
 * copy split the index space in ways whose common refinement cannot be
 * proved at compile time (e.g. [[#P][2]][2] over 3 processes to a view
 * [[#G_0][#G_2]][#G_1] of [2][2][3]). Each side comes with modes of its own
 * (extent, local stride, process stride); process 0 checks both sides and
 * broadcasts them. Every process then walks the whole index space in
 * row-major order with one odometer per side, which gives each element's
 * source and destination (process, local offset): it counts what it sends
 * to and receives from each peer, packs in that order, exchanges with
 * MPI_Alltoallv, and unpacks walking in the same order, so sender and
 * receiver agree on the order of the elements of every message without
 * exchanging anything else. The walk costs O(elements) on every process
 * (docs/mpi_runtime.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXM PMPI_MAXM
#define HEAD 5

/* One side: its modes and where the walk is. */
typedef struct walk {
  int64_t n;
  int64_t shape[MAXM], l[MAXM], p[MAXM];
  int64_t idx[MAXM];
  int64_t off, proc; /* local offset and process of the current element */
} walk;

typedef struct split_desc {
  int64_t src_h, dst_h, es;
  walk s, d;
} split_desc;

static void walk_reset(walk *w) {
  memset(w->idx, 0, sizeof w->idx);
  w->off = 0, w->proc = 0;
}

/* the next element in row-major order */
static void walk_next(walk *w) {
  for (int64_t k = w->n - 1; k >= 0; k--) {
    if (++w->idx[k] < w->shape[k]) {
      w->off += w->l[k], w->proc += w->p[k];
      return;
    }
    w->off -= w->l[k] * (w->shape[k] - 1), w->proc -= w->p[k] * (w->shape[k] - 1);
    w->idx[k] = 0;
  }
}

static int64_t walk_total(const walk *w) {
  int64_t t = 1;
  for (int64_t k = 0; k < w->n; k++) t *= w->shape[k];
  return t;
}

/* this process's part: counts per peer, pack, exchange, unpack */
typedef struct part {
  int P, me;
  int *scnt, *sdsp, *rcnt, *rdsp, *cur;
  char *sbuf, *rbuf;
} part;

static void part_free(part *pt) {
  free(pt->scnt), free(pt->sbuf), free(pt->rbuf);
  memset(pt, 0, sizeof *pt);
}

/* counts and displacements per peer, in elements (all fit int: process 0
 * checked that the copy has at most INT_MAX elements) */
static parray_status part_make(split_desc *d, int64_t total, part *pt) {
  memset(pt, 0, sizeof *pt);
  pt->P = pmpi_size(), pt->me = pmpi_rank();
  int P = pt->P;
  pt->scnt = calloc((size_t)P * 5, sizeof *pt->scnt);
  if (!pt->scnt) goto nomem;
  pt->sdsp = pt->scnt + P, pt->rcnt = pt->scnt + 2 * P, pt->rdsp = pt->scnt + 3 * P, pt->cur = pt->scnt + 4 * P;
  walk_reset(&d->s), walk_reset(&d->d);
  for (int64_t i = 0; i < total; i++, walk_next(&d->s), walk_next(&d->d)) {
    if (d->s.proc == pt->me) pt->scnt[d->d.proc]++;
    if (d->d.proc == pt->me) pt->rcnt[d->s.proc]++;
  }
  int64_t st = 0, rt = 0;
  for (int q = 0; q < P; q++) pt->sdsp[q] = (int)st, pt->rdsp[q] = (int)rt, st += pt->scnt[q], rt += pt->rcnt[q];
  pt->sbuf = malloc(st ? (size_t)(st * d->es) : 1);
  pt->rbuf = malloc(rt ? (size_t)(rt * d->es) : 1);
  if (pt->sbuf && pt->rbuf) return PARRAY_OK;
nomem:
  part_free(pt);
  parray_set_error("#copy: process %d cannot allocate its buffers for a copy planned at run time", pmpi_rank());
  return PARRAY_ERR_ALLOC;
}

static parray_status split_run(split_desc *d, char *sbase, char *dbase) {
  int64_t total = walk_total(&d->s);
  size_t es = (size_t)d->es;
  part pt;
  parray_status s = part_make(d, total, &pt);
  if (s != PARRAY_OK) return s;
  walk_reset(&d->s), walk_reset(&d->d);
  for (int64_t i = 0; i < total; i++, walk_next(&d->s), walk_next(&d->d))
    if (d->s.proc == pt.me) {
      int64_t q = d->d.proc;
      memcpy(pt.sbuf + (size_t)(pt.sdsp[q] + pt.cur[q]++) * es, sbase + (size_t)d->s.off * es, es);
    }
  MPI_Datatype t;
  int rc = MPI_Type_contiguous((int)es, MPI_BYTE, &t);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Alltoallv(pt.sbuf, pt.scnt, pt.sdsp, t, pt.rbuf, pt.rcnt, pt.rdsp, t, pmpi_comm());
    MPI_Type_free(&t);
  }
  if (rc != MPI_SUCCESS) {
    part_free(&pt);
    return pmpi_error(rc, "#copy (planned at run time): the exchange");
  }
  memset(pt.cur, 0, sizeof *pt.cur * (size_t)pt.P);
  walk_reset(&d->s), walk_reset(&d->d);
  for (int64_t i = 0; i < total; i++, walk_next(&d->s), walk_next(&d->d))
    if (d->d.proc == pt.me) {
      int64_t q = d->s.proc;
      memcpy(dbase + (size_t)d->d.off * es, pt.rbuf + (size_t)(pt.rdsp[q] + pt.cur[q]++) * es, es);
    }
  part_free(&pt);
  return PARRAY_OK;
}

/* Drop extents of 1 and merge modes that chain on both strides. */
static void walk_simplify(walk *w) {
  int64_t m = 0;
  for (int64_t k = 0; k < w->n; k++) {
    if (w->shape[k] == 1) continue;
    if (m > 0 && w->l[m - 1] == w->l[k] * w->shape[k] && w->p[m - 1] == w->p[k] * w->shape[k]) {
      w->shape[m - 1] *= w->shape[k];
      w->l[m - 1] = w->l[k], w->p[m - 1] = w->p[k];
      continue;
    }
    w->shape[m] = w->shape[k], w->l[m] = w->l[k], w->p[m] = w->p[k];
    m++;
  }
  w->n = m;
}

static size_t desc_pack(const split_desc *d, int64_t *w) {
  w[0] = d->s.n, w[1] = d->d.n, w[2] = d->src_h, w[3] = d->dst_h, w[4] = d->es;
  int64_t *o = w + HEAD;
  const walk *side[2] = {&d->s, &d->d};
  for (int j = 0; j < 2; j++) {
    size_t n = (size_t)side[j]->n;
    memcpy(o, side[j]->shape, n * sizeof *o), o += n;
    memcpy(o, side[j]->l, n * sizeof *o), o += n;
    memcpy(o, side[j]->p, n * sizeof *o), o += n;
  }
  return (size_t)(o - w) * sizeof *w;
}

static bool desc_unpack(split_desc *d, const int64_t *w, size_t bytes) {
  if (bytes < HEAD * sizeof *w) return false;
  if (w[0] < 0 || w[0] > MAXM || w[1] < 0 || w[1] > MAXM ||
      bytes != (size_t)(HEAD + 3 * (w[0] + w[1])) * sizeof *w || w[4] <= 0 || w[4] > INT_MAX)
    return false;
  memset(d, 0, sizeof *d);
  d->s.n = w[0], d->d.n = w[1], d->src_h = w[2], d->dst_h = w[3], d->es = w[4];
  const int64_t *o = w + HEAD;
  walk *side[2] = {&d->s, &d->d};
  for (int j = 0; j < 2; j++) {
    size_t n = (size_t)side[j]->n;
    memcpy(side[j]->shape, o, n * sizeof *o), o += n;
    memcpy(side[j]->l, o, n * sizeof *o), o += n;
    memcpy(side[j]->p, o, n * sizeof *o), o += n;
  }
  return true;
}

static char *base_of(int64_t h, void *ptr_on_0) {
  if (h < 0) return pmpi_rank() == 0 ? ptr_on_0 : NULL;
  return parray_mpi_local((int)h);
}

/* one side's modes into w (false after setting the error text) */
static bool side_modes(walk *w, const parray_mpi_side *s, const int64_t *shape, int n, const char *name,
                       int64_t *total) {
  if (n < 0 || n > MAXM || (n > 0 && !shape)) {
    parray_set_error("#copy: the %s has %d modes (the runtime supports %d)", name, n, MAXM);
    return false;
  }
  memset(w, 0, sizeof *w);
  w->n = n;
  *total = 1;
  for (int k = 0; k < n; k++) {
    if (shape[k] < 0 || __builtin_mul_overflow(*total, shape[k], total)) {
      parray_set_error("#copy: bad extent %lld of the %s's mode %d", (long long)shape[k], name, k);
      return false;
    }
    w->shape[k] = shape[k], w->l[k] = s->local ? s->local[k] : 0;
    w->p[k] = s->handle < 0 || !s->proc ? 0 : s->proc[k];
  }
  return true;
}

/* process 0's checks of the two sides, and the descriptor it broadcasts */
static parray_status split_check(const parray_mpi_side *dst, const int64_t *dshape, int dn,
                                 const parray_mpi_side *src, const int64_t *sshape, int sn, size_t es,
                                 split_desc *d, int64_t *total) {
  int64_t st, dt, lmax;
  if (!dst || !src || es == 0 || es > INT_MAX) {
    parray_set_error("#copy: bad arguments (element size %zu)", es);
    return PARRAY_ERR_INVALID;
  }
  if (!side_modes(&d->s, src, sshape, sn, "source", &st) || !side_modes(&d->d, dst, dshape, dn, "destination", &dt))
    return PARRAY_ERR_INVALID;
  if (st != dt) {
    parray_set_error("#copy: the source has %lld elements, the destination %lld", (long long)st, (long long)dt);
    return PARRAY_ERR_INVALID;
  }
  parray_status s;
  if ((s = pmpi_check_side(src, "source", sshape, sn, es, -1, &lmax)) != PARRAY_OK ||
      (s = pmpi_check_side(dst, "destination", dshape, dn, es, -1, &lmax)) != PARRAY_OK)
    return s;
  if (src->handle >= 0 && src->handle == dst->handle) {
    parray_set_error("#copy: source and destination are the same distributed array");
    return PARRAY_ERR_UNSUPPORTED;
  }
  if (st > INT_MAX) {
    parray_set_error("#copy: %lld elements: a copy planned at run time supports at most %d", (long long)st, INT_MAX);
    return PARRAY_ERR_UNSUPPORTED;
  }
  d->src_h = src->handle < 0 ? -1 : src->handle, d->dst_h = dst->handle < 0 ? -1 : dst->handle;
  d->es = (int64_t)es;
  walk_simplify(&d->s), walk_simplify(&d->d);
  *total = st;
  return PARRAY_OK;
}

parray_status parray_mpi_copy_split(const parray_mpi_side *dst, const int64_t *dshape, int dn,
                                    const parray_mpi_side *src, const int64_t *sshape, int sn, size_t elem_size) {
  split_desc d;
  int64_t total;
  parray_status s = split_check(dst, dshape, dn, src, sshape, sn, elem_size, &d, &total);
  if (s != PARRAY_OK || total == 0) return s;
  if (d.src_h < 0 && d.dst_h < 0) { /* both on process 0: a local copy, by element */
    walk_reset(&d.s), walk_reset(&d.d);
    for (int64_t i = 0; i < total; i++, walk_next(&d.s), walk_next(&d.d))
      memcpy((char *)dst->ptr + (size_t)d.d.off * elem_size, (const char *)src->ptr + (size_t)d.s.off * elem_size,
             elem_size);
    return PARRAY_OK;
  }
  if (!pmpi_can_command("#copy of a distributed array")) return PARRAY_ERR_INVALID;
  int64_t words[HEAD + 6 * MAXM];
  size_t bytes = desc_pack(&d, words);
  if ((s = pmpi_command(PMPI_CMD_COPY_SPLIT, 0, 0, words, bytes)) != PARRAY_OK) return s;
  return split_run(&d, base_of(d.src_h, src->ptr), base_of(d.dst_h, dst->ptr));
}

parray_status pmpi_copy_split_serve(const void *payload, size_t bytes) {
  split_desc d;
  if (!desc_unpack(&d, payload, bytes)) {
    parray_set_error("#copy: malformed descriptor from process 0");
    return PARRAY_ERR_INVALID;
  }
  return split_run(&d, base_of(d.src_h, NULL), base_of(d.dst_h, NULL));
}
