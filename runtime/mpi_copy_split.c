/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_copy_split.c - the collective #copy planned at run time
 * (parray_mpi_copy_split): used by the translator when the two sides of a
 * copy split the index space in ways whose common refinement cannot be
 * proved at compile time (e.g. [[#P][2]][2] over 3 processes to a view
 * [[#G_0][#G_2]][#G_1] of [2][2][3]). Each side comes with modes of its own
 * (extent, local stride, process stride); process 0 checks both sides and
 * broadcasts them. Every process then walks the whole index space in
 * row-major order with one odometer per side, which gives each element's
 * source and destination (process, local offset): it counts what it sends
 * to and receives from each peer and lists the offsets of both in walk
 * order, so sender and receiver agree on the order of the elements of every
 * message without exchanging anything else. It packs by its list, moves the
 * messages and unpacks by the other list. A side in a memory (the GPUs'
 * memory, parray_mpi_copy_split_execute) is packed and unpacked there by
 * the memory's gather and scatter, and the messages go over the memory's
 * exchange (NCCL) when every process has one, else MPI_Alltoallv. The walk
 * costs O(elements) on every process (docs/mpi_runtime.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXM RMPI_MAXM
#define HEAD 7
_Static_assert(HEAD + 6 * MAXM == PARRAY_MPI_SPLIT_DESC_WORDS, "the split description's size");

/* One side: its modes and where the walk is. */
typedef struct walk {
  int64_t n;
  int64_t shape[MAXM], l[MAXM], p[MAXM];
  int64_t idx[MAXM];
  int64_t off, proc; /* local offset and process of the current element */
  int64_t base;      /* where the side starts in every block */
} walk;

typedef struct split_desc {
  int64_t src_h, dst_h, es;
  walk s, d;
} split_desc;

static void walk_reset(walk *w) {
  memset(w->idx, 0, sizeof w->idx);
  w->off = w->base, w->proc = 0;
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

/* this process's part: counts and displacements per peer (elements; all fit
 * int: process 0 checked that the copy has at most INT_MAX elements), and
 * the local offsets of what it sends (sidx) and receives (ridx), message by
 * message in walk order */
typedef struct part {
  int P, me;
  int *scnt, *sdsp, *rcnt, *rdsp, *cur;
  int64_t stot, rtot;
  int64_t *sidx, *ridx;
  char *shost, *rhost; /* host buffers allocated here (freed with the part) */
} part;

static void part_free(part *pt) {
  free(pt->scnt), free(pt->sidx), free(pt->ridx), free(pt->shost), free(pt->rhost);
  memset(pt, 0, sizeof *pt);
}

static parray_status part_make(split_desc *d, int64_t total, part *pt) {
  memset(pt, 0, sizeof *pt);
  pt->P = rmpi_size(), pt->me = rmpi_rank();
  int P = pt->P, me = pt->me;
  pt->scnt = calloc((size_t)P * 5, sizeof *pt->scnt);
  if (!pt->scnt) goto nomem;
  pt->sdsp = pt->scnt + P, pt->rcnt = pt->scnt + 2 * P, pt->rdsp = pt->scnt + 3 * P, pt->cur = pt->scnt + 4 * P;
  walk_reset(&d->s), walk_reset(&d->d);
  for (int64_t i = 0; i < total; i++, walk_next(&d->s), walk_next(&d->d)) {
    if (d->s.proc == me) pt->scnt[d->d.proc]++;
    if (d->d.proc == me) pt->rcnt[d->s.proc]++;
  }
  for (int q = 0; q < P; q++) {
    pt->sdsp[q] = (int)pt->stot, pt->rdsp[q] = (int)pt->rtot;
    pt->stot += pt->scnt[q], pt->rtot += pt->rcnt[q];
  }
  pt->sidx = malloc((size_t)(pt->stot ? pt->stot : 1) * sizeof *pt->sidx);
  pt->ridx = malloc((size_t)(pt->rtot ? pt->rtot : 1) * sizeof *pt->ridx);
  if (!pt->sidx || !pt->ridx) goto nomem;
  int *rcur = calloc((size_t)P, sizeof *rcur);
  if (!rcur) goto nomem;
  walk_reset(&d->s), walk_reset(&d->d);
  for (int64_t i = 0; i < total; i++, walk_next(&d->s), walk_next(&d->d)) {
    if (d->s.proc == me) pt->sidx[pt->sdsp[d->d.proc] + pt->cur[d->d.proc]++] = d->s.off;
    if (d->d.proc == me) pt->ridx[pt->rdsp[d->s.proc] + rcur[d->s.proc]++] = d->d.off;
  }
  free(rcur);
  return PARRAY_OK;
nomem:
  part_free(pt);
  parray_set_error("#copy: process %d cannot allocate its lists for a copy planned at run time", rmpi_rank());
  return PARRAY_ERR_ALLOC;
}

/* host memory of n bytes: the memory's pinned scratch `which` where there
 * is a memory, else a buffer of the part */
static char *host_buffer(const parray_mpi_memory *m, int which, int64_t bytes, char **own) {
  size_t b = bytes > 0 ? (size_t)bytes : 16;
  if (m) return m->buffer(m->ctx, which, b);
  return *own = malloc(b);
}

/* the run: where its data is and how it moves */
typedef struct split_exec {
  const split_desc *d;
  const parray_mpi_copy_run *r;
  const parray_mpi_memory *m; /* the memory of a side (both are the same), or NULL */
  part pt;
  size_t es;
  bool xchg;        /* the messages go over m's exchange */
  char *sbuf, *rbuf; /* what is sent and received, packed */
  bool sin_mem, rin_mem; /* ... in m (else in host memory) */
} split_exec;

static parray_status no_room(const split_exec *x, const char *what) {
  parray_set_error("#copy: process %d cannot get the %s of a copy planned at run time", x->pt.me, what);
  return PARRAY_ERR_ALLOC;
}

/* what this process sends, packed in message order: in the memory when the
 * source is there (and on the CPU otherwise, moved there for the exchange) */
static parray_status pack(split_exec *x) {
  const parray_mpi_memory *sm = x->r->smem, *m = x->m;
  int64_t bytes = x->pt.stot * (int64_t)x->es;
  parray_status s = PARRAY_OK;
  if (sm) {
    if (!(x->sbuf = sm->buffer(sm->ctx, 0, bytes > 0 ? (size_t)bytes : 16))) return no_room(x, "send buffer");
    x->sin_mem = true;
    return x->pt.stot ? sm->gather(sm->ctx, 0, x->sbuf, x->r->src, x->pt.sidx, x->pt.stot, x->es) : PARRAY_OK;
  }
  char *h = host_buffer(m, 2, bytes, &x->pt.shost);
  if (!h) return no_room(x, "send buffer");
  for (int64_t i = 0; i < x->pt.stot; i++)
    memcpy(h + (size_t)i * x->es, (const char *)x->r->src + (size_t)x->pt.sidx[i] * x->es, x->es);
  x->sbuf = h;
  if (!x->xchg) return PARRAY_OK;
  if (!(x->sbuf = m->buffer(m->ctx, 0, bytes > 0 ? (size_t)bytes : 16))) return no_room(x, "send buffer");
  x->sin_mem = true;
  if (bytes) s = m->from_host(m->ctx, 0, x->sbuf, h, (size_t)bytes);
  return s;
}

/* the messages over the memory's exchange; this process's own part is
 * copied inside the memory before it */
static parray_status move_exchange(split_exec *x) {
  const parray_mpi_memory *m = x->m;
  part *pt = &x->pt;
  int64_t bytes = pt->rtot * (int64_t)x->es;
  if (!(x->rbuf = m->buffer(m->ctx, 1, bytes > 0 ? (size_t)bytes : 16))) return no_room(x, "receive buffer");
  x->rin_mem = true;
  parray_status s = PARRAY_OK;
  int me = pt->me, n = 0;
  if (pt->scnt[me]) {
    int64_t one = 1, cnt = pt->scnt[me];
    s = m->copy(m->ctx, 0, x->rbuf + (size_t)pt->rdsp[me] * x->es, &one, x->sbuf + (size_t)pt->sdsp[me] * x->es,
                &one, &cnt, 1, x->es);
  }
  parray_mpi_message *msg = malloc((size_t)pt->P * 2 * sizeof *msg + 1);
  if (!msg) return no_room(x, "message list");
  for (int q = 0; q < pt->P && s == PARRAY_OK; q++) {
    if (q == me) continue;
    if (pt->scnt[q])
      msg[n++] = (parray_mpi_message){q, 0, x->sbuf + (size_t)pt->sdsp[q] * x->es, (size_t)pt->scnt[q] * x->es};
    if (pt->rcnt[q])
      msg[n++] = (parray_mpi_message){q, 1, x->rbuf + (size_t)pt->rdsp[q] * x->es, (size_t)pt->rcnt[q] * x->es};
  }
  if (s == PARRAY_OK) s = m->exchange(m->ctx, msg, n);
  free(msg);
  return s;
}

/* the messages over MPI (MPI_Alltoallv): from and into host memory, or the
 * memory itself where MPI reaches it */
static parray_status move_mpi(split_exec *x) {
  const parray_mpi_memory *m = x->m;
  part *pt = &x->pt;
  int64_t sbytes = pt->stot * (int64_t)x->es, rbytes = pt->rtot * (int64_t)x->es;
  parray_status s = PARRAY_OK;
  const char *sp = x->sbuf;
  if (x->sin_mem && !m->mpi_direct) {
    char *h = m->buffer(m->ctx, 2, sbytes > 0 ? (size_t)sbytes : 16);
    if (!h) return no_room(x, "send staging");
    if (sbytes) s = m->to_host(m->ctx, 0, h, x->sbuf, (size_t)sbytes);
    sp = h;
  }
  if (s == PARRAY_OK && m) s = m->finish(m->ctx);
  bool rmem = x->r->dmem && m->mpi_direct;
  char *rp = rmem ? m->buffer(m->ctx, 1, rbytes > 0 ? (size_t)rbytes : 16) : host_buffer(m, 3, rbytes, &pt->rhost);
  if (!rp) return no_room(x, "receive buffer");
  if (s != PARRAY_OK) return s;
  MPI_Datatype t;
  int rc = MPI_Type_contiguous((int)x->es, MPI_BYTE, &t);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Alltoallv(sp, pt->scnt, pt->sdsp, t, rp, pt->rcnt, pt->rdsp, t, rmpi_comm());
    MPI_Type_free(&t);
  }
  if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (planned at run time): the exchange");
  x->rbuf = rp, x->rin_mem = rmem;
  if (x->r->dmem && !rmem) { /* into the memory, for the scatter */
    if (!(x->rbuf = m->buffer(m->ctx, 1, rbytes > 0 ? (size_t)rbytes : 16))) return no_room(x, "receive buffer");
    x->rin_mem = true;
    if (rbytes) s = m->from_host(m->ctx, 1, x->rbuf, rp, (size_t)rbytes);
  }
  return s;
}

/* what arrived, into the destination: by the memory's scatter when it is
 * there, else on the CPU (moved out of the memory first) */
static parray_status unpack(split_exec *x) {
  const parray_mpi_memory *dm = x->r->dmem, *m = x->m;
  part *pt = &x->pt;
  parray_status s = PARRAY_OK;
  if (dm) return pt->rtot ? dm->scatter(dm->ctx, 1, x->r->dst, pt->ridx, x->rbuf, pt->rtot, x->es) : PARRAY_OK;
  const char *h = x->rbuf;
  if (x->rin_mem) {
    int64_t bytes = pt->rtot * (int64_t)x->es;
    char *b = m->buffer(m->ctx, 3, bytes > 0 ? (size_t)bytes : 16);
    if (!b) return no_room(x, "receive staging");
    if (bytes) s = m->to_host(m->ctx, 1, b, x->rbuf, (size_t)bytes);
    if (s == PARRAY_OK) s = m->finish(m->ctx);
    h = b;
  }
  for (int64_t i = 0; s == PARRAY_OK && i < pt->rtot; i++)
    memcpy((char *)x->r->dst + (size_t)pt->ridx[i] * x->es, h + (size_t)i * x->es, x->es);
  return s;
}

/* every process agrees whether the exchange carries the messages */
static parray_status agree(split_exec *x) {
  const parray_mpi_memory *m = x->m;
  int has = m && m->exchange && m->gather && m->scatter && x->r->path != PARRAY_MPI_PATH_STAGED;
  int rc = MPI_Allreduce(MPI_IN_PLACE, &has, 1, MPI_INT, MPI_MIN, rmpi_comm());
  if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (planned at run time): the choice of transport");
  x->xchg = has != 0;
  return PARRAY_OK;
}

static parray_status split_run(split_desc *d, const parray_mpi_copy_run *r) {
  split_exec x = {.d = d, .r = r, .m = r->smem ? r->smem : r->dmem, .es = (size_t)d->es};
  if ((r->smem && !r->smem->gather) || (r->dmem && !r->dmem->scatter)) {
    parray_set_error("#copy (planned at run time): the memory of a side cannot copy by offsets");
    return PARRAY_ERR_UNSUPPORTED;
  }
  parray_status s = agree(&x);
  if (s != PARRAY_OK) return s;
  if ((s = part_make(d, walk_total(&d->s), &x.pt)) != PARRAY_OK) return s;
  if ((s = pack(&x)) == PARRAY_OK) s = x.xchg ? move_exchange(&x) : move_mpi(&x);
  if (s == PARRAY_OK) s = unpack(&x);
  if (x.m) { /* both lanes end, on an error too (nothing left writing) */
    parray_status f = x.m->finish(x.m->ctx);
    if (s == PARRAY_OK) s = f;
  }
  for (int q = 0; r->used && q < x.pt.P; q++)
    if (x.pt.scnt[q] || x.pt.rcnt[q])
      r->used[q] = q == x.pt.me ? PARRAY_MPI_PATH_LOCAL : x.xchg ? PARRAY_MPI_PATH_EXCHANGE : PARRAY_MPI_PATH_STAGED;
  part_free(&x.pt);
  return s;
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
  w[5] = d->s.base, w[6] = d->d.base;
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
  d->s.base = w[5], d->d.base = w[6];
  if (d->s.base < 0 || d->d.base < 0) return false;
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
  if (h < 0) return rmpi_rank() == 0 ? ptr_on_0 : NULL;
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
  w->base = s->handle < 0 ? 0 : s->base;
  return true;
}

/* process 0's checks of the two sides, and the descriptor it broadcasts */
static parray_status split_check(const parray_mpi_side *dst, const int64_t *dshape, int dn,
                                 const parray_mpi_side *src, const int64_t *sshape, int sn, size_t es,
                                 const int64_t *block_bytes, split_desc *d, int64_t *total) {
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
  if ((s = rmpi_check_side(src, "source", sshape, sn, es, block_bytes ? block_bytes[1] : -1, &lmax)) != PARRAY_OK ||
      (s = rmpi_check_side(dst, "destination", dshape, dn, es, block_bytes ? block_bytes[0] : -1, &lmax)) != PARRAY_OK)
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

parray_status parray_mpi_copy_split_describe(const parray_mpi_side *dst, const int64_t *dshape, int dn,
                                             const parray_mpi_side *src, const int64_t *sshape, int sn,
                                             size_t elem_size, const int64_t *block_bytes, int64_t *words,
                                             int *nwords) {
  split_desc d;
  int64_t total;
  if (!words || !nwords) {
    parray_set_error("#copy: bad arguments (no room for the description)");
    return PARRAY_ERR_INVALID;
  }
  *nwords = 0;
  parray_status s = split_check(dst, dshape, dn, src, sshape, sn, elem_size, block_bytes, &d, &total);
  if (s == PARRAY_OK && total > 0) *nwords = (int)(desc_pack(&d, words) / sizeof *words);
  return s;
}

parray_status parray_mpi_copy_split_execute(const int64_t *words, int nwords, const parray_mpi_copy_run *run) {
  split_desc d;
  if (!run || nwords < 0 || !desc_unpack(&d, words, (size_t)nwords * sizeof *words)) {
    parray_set_error("#copy: malformed description of a copy planned at run time");
    return PARRAY_ERR_INVALID;
  }
  return split_run(&d, run);
}

parray_status parray_mpi_copy_split(const parray_mpi_side *dst, const int64_t *dshape, int dn,
                                    const parray_mpi_side *src, const int64_t *sshape, int sn, size_t elem_size) {
  split_desc d;
  int64_t total;
  parray_status s = split_check(dst, dshape, dn, src, sshape, sn, elem_size, NULL, &d, &total);
  if (s != PARRAY_OK || total == 0) return s;
  if (d.src_h < 0 && d.dst_h < 0) { /* both on process 0: a local copy, by element */
    walk_reset(&d.s), walk_reset(&d.d);
    for (int64_t i = 0; i < total; i++, walk_next(&d.s), walk_next(&d.d))
      memcpy((char *)dst->ptr + (size_t)d.d.off * elem_size, (const char *)src->ptr + (size_t)d.s.off * elem_size,
             elem_size);
    return PARRAY_OK;
  }
  if (!rmpi_can_command("#copy of a distributed array")) return PARRAY_ERR_INVALID;
  int64_t words[PARRAY_MPI_SPLIT_DESC_WORDS];
  size_t bytes = desc_pack(&d, words);
  if ((s = rmpi_command(RMPI_CMD_COPY_SPLIT, 0, 0, words, bytes)) != PARRAY_OK) return s;
  parray_mpi_copy_run r = {.dst = base_of(d.dst_h, dst->ptr), .src = base_of(d.src_h, src->ptr)};
  return split_run(&d, &r);
}

parray_status rmpi_copy_split_serve(const void *payload, size_t bytes) {
  split_desc d;
  if (!desc_unpack(&d, payload, bytes)) {
    parray_set_error("#copy: malformed descriptor from process 0");
    return PARRAY_ERR_INVALID;
  }
  parray_mpi_copy_run r = {.dst = base_of(d.dst_h, NULL), .src = base_of(d.src_h, NULL)};
  return split_run(&d, &r);
}
