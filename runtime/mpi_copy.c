/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_copy.c - the collective #copy of the mpi runtime (parray_mpi_copy):
 * scatter from a process-0 buffer to a distributed array, gather back, and
 * all-to-all redistribution between two distributions. The algorithm is
 * described in docs/mpi_runtime.md; in short:
 *
 * Process 0 checks the copy and simplifies its modes (drops extents of 1,
 * merges modes that chain on all four strides, puts the "process modes",
 * those with a non-zero process stride on either side, first), then
 * broadcasts the descriptor. The process modes span a small set of
 * "combos" (at most about P_src * P_dst); each combo fixes the source and
 * destination process and the base offsets, and the remaining "inner" modes
 * form one strided block of the same shape for every combo. Every process
 * walks the combos in row-major order, which defines the order of the
 * elements in each (source, destination) message on both ends: it packs the
 * blocks it sends with the CPU copy engine, copies the blocks it sends to
 * itself directly, exchanges with MPI_Scatterv / MPI_Gatherv /
 * MPI_Alltoallv, and unpacks what it received. A side whose data per peer
 * is one contiguous run is not packed at all: MPI reads or writes the
 * array in place. Counts are int64 here; when a count or displacement would
 * not fit MPI's int, the exchange uses point-to-point messages of at most
 * 1 GiB instead (PARRAY_MPI_COPY_P2P=1 forces that path, for tests).
 * Where the blocks are shared by every process (one machine), none of this
 * is needed: the direct engine (mpi_copy_direct.c) moves each element once. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_copy_plan.h"

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAXM RMPI_MAXM
/* The most combos a copy may have (far above P_src * P_dst for real jobs). */
#define MAX_COMBOS ((int64_t)1 << 26)
#define P2P_CHUNK ((int64_t)1 << 30)

/* The counts and the host pack buffers. */
static parray_status plan_make(const copy_desc *d, plan *pl, char *sbase, char *rbase) {
  parray_status s = rmpi_plan_count(d, pl, sbase, rbase, false);
  if (s != PARRAY_OK) return s;
  size_t es = (size_t)d->es;
  if (pl->stot && !(pl->sbuf = rmpi_cached(0, (size_t)pl->stot * es))) goto nomem;
  if (pl->rtot && !(pl->rbuf = rmpi_cached(1, (size_t)pl->rtot * es))) goto nomem;
  return PARRAY_OK;
nomem:
  parray_set_error("#copy: process %d cannot allocate a %lld-byte pack buffer", pl->me,
                   (long long)((pl->rtot > pl->stot ? pl->rtot : pl->stot) * d->es));
  rmpi_plan_free(pl);
  return PARRAY_ERR_ALLOC;
}

/* Everything received from other processes, from the unpack buffer: one
 * walk over the combos. */
static parray_status unpack_all(const copy_desc *d, plan *pl) {
  int64_t es = d->es;
  for (int p = 0; p < pl->P; p++) pl->cur[p] = pl->rdsp[p];
  combo c;
  rmpi_combo_first(d, &c);
  do {
    if (c.pd != pl->me || c.ps == pl->me) continue;
    parray_status s = parray_copy_strided_cpu(pl->rbase + c.od * es, d->dl + d->u, pl->rbuf + pl->cur[c.ps] * es,
                                              pl->pk + d->u, d->shape + d->u, (int)(d->n - d->u), (size_t)es);
    if (s != PARRAY_OK) return s;
    pl->cur[c.ps] += pl->inner;
  } while (rmpi_combo_next(d, &c));
  return PARRAY_OK;
}

/* Non-blocking messages of at most P2P_CHUNK bytes for one peer. */
static int post(bool send, char *base, int64_t bytes, int peer, MPI_Comm comm, MPI_Request *rq, int *n) {
  int rc = MPI_SUCCESS;
  for (int64_t off = 0, tag = 0; off < bytes && rc == MPI_SUCCESS; off += P2P_CHUNK, tag++) {
    int len = (int)(bytes - off < P2P_CHUNK ? bytes - off : P2P_CHUNK);
    rc = send ? MPI_Isend(base + off, len, MPI_BYTE, peer, (int)tag, comm, &rq[*n])
              : MPI_Irecv(base + off, len, MPI_BYTE, peer, (int)tag, comm, &rq[*n]);
    if (rc == MPI_SUCCESS) (*n)++;
  }
  return rc;
}

/* Point-to-point form: post every receive, then pack and send peer by peer
 * (me+1, me+2, ...) so that peers start pulling while we pack, copy our own
 * blocks, wait, unpack. Messages of at most 1 GiB: no int limit. */
static parray_status run_p2p(const copy_desc *d, plan *pl, MPI_Comm comm) {
  int64_t es = d->es, nreq = 0;
  for (int p = 0; p < pl->P; p++) {
    int64_t cs = (pl->scnt[p] * es + P2P_CHUNK - 1) / P2P_CHUNK, cr = (pl->rcnt[p] * es + P2P_CHUNK - 1) / P2P_CHUNK;
    if (cs > 32767 || cr > 32767) {
      parray_set_error("#copy: more than 32 TiB between two processes");
      return PARRAY_ERR_UNSUPPORTED;
    }
    nreq += cs + cr;
  }
  MPI_Request *rq = malloc((size_t)(nreq ? nreq : 1) * sizeof *rq);
  if (!rq) {
    parray_set_error("#copy: out of memory");
    return PARRAY_ERR_ALLOC;
  }
  char *sb = pl->szc ? pl->sbase : pl->sbuf, *rb = pl->rzc ? pl->rbase : pl->rbuf;
  int n = 0, rc = MPI_SUCCESS;
  parray_status s = PARRAY_OK;
  for (int k = 1; k < pl->P && rc == MPI_SUCCESS; k++) {
    int p = (pl->me - k + pl->P) % pl->P;
    rc = post(false, rb + pl->rdsp[p] * es, pl->rcnt[p] * es, p, comm, rq, &n);
  }
  for (int k = 1; k < pl->P && rc == MPI_SUCCESS && s == PARRAY_OK; k++) {
    int p = (pl->me + k) % pl->P;
    if (!pl->scnt[p]) continue;
    if (!pl->szc && (s = rmpi_pack_peer(d, pl, p, NULL, 0, pl->sbuf)) != PARRAY_OK) break;
    rc = post(true, sb + pl->sdsp[p] * es, pl->scnt[p] * es, p, comm, rq, &n);
  }
  if (s == PARRAY_OK && rc == MPI_SUCCESS) s = rmpi_copy_self(d, pl, NULL, 0);
  if (n) {
    int rc2 = MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS) rc = rc2;
  }
  free(rq);
  if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy (point-to-point exchange)");
  if (s == PARRAY_OK && !pl->rzc && pl->rtot) s = unpack_all(d, pl);
  return s;
}

/* Collective form: pack all, copy our own blocks, one MPI_Scatterv /
 * MPI_Gatherv / MPI_Alltoallv, unpack. */
static parray_status run_collective(const copy_desc *d, plan *pl, MPI_Comm comm) {
  parray_status s = PARRAY_OK;
  for (int p = 0; p < pl->P && s == PARRAY_OK; p++)
    if (p != pl->me && pl->scnt[p] && !pl->szc) s = rmpi_pack_peer(d, pl, p, NULL, 0, pl->sbuf);
  if (s == PARRAY_OK) s = rmpi_copy_self(d, pl, NULL, 0);
  if (s != PARRAY_OK) return s;
  char *sb = pl->szc ? pl->sbase : pl->sbuf, *rb = pl->rzc ? pl->rbase : pl->rbuf;
  int P = pl->P;
  int *iv = malloc(4 * (size_t)P * sizeof *iv);
  if (!iv) {
    parray_set_error("#copy: out of memory");
    return PARRAY_ERR_ALLOC;
  }
  int *sc = iv, *sd = iv + P, *rc_ = iv + 2 * P, *rd = iv + 3 * P;
  for (int p = 0; p < P; p++) /* process 0 checked that all of these fit */
    sc[p] = (int)pl->scnt[p], sd[p] = (int)pl->sdsp[p], rc_[p] = (int)pl->rcnt[p], rd[p] = (int)pl->rdsp[p];
  MPI_Datatype t;
  int rc = MPI_Type_contiguous((int)d->es, MPI_BYTE, &t);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
  if (rc == MPI_SUCCESS) {
    if (d->src_h < 0) /* scatter: only process 0 sends */
      rc = MPI_Scatterv(sb, sc, sd, t, rb ? rb + pl->rdsp[0] * d->es : NULL, rc_[0], t, 0, comm);
    else if (d->dst_h < 0) /* gather: only process 0 receives */
      rc = MPI_Gatherv(sb ? sb + pl->sdsp[0] * d->es : NULL, sc[0], t, rb, rc_, rd, t, 0, comm);
    else
      rc = MPI_Alltoallv(sb, sc, sd, t, rb, rc_, rd, t, comm);
    MPI_Type_free(&t);
  }
  free(iv);
  if (rc != MPI_SUCCESS) return rmpi_error(rc, "#copy");
  return !pl->rzc && pl->rtot ? unpack_all(d, pl) : PARRAY_OK;
}

/* RMPI_MOVE_PIPELINE: the pipelined form of the staged engine on host
 * memory (each peer's pack sent at once, each arrival unpacked at once) */
static parray_status plan_run(const copy_desc *d, plan *pl, MPI_Comm comm) {
  if (d->p2p == RMPI_MOVE_PIPELINE) return rmpi_copy_staged(d, pl->rbase, NULL, pl->sbase, NULL, P2P_CHUNK);
  return d->p2p == RMPI_MOVE_P2P ? run_p2p(d, pl, comm) : run_collective(d, pl, comm);
}

/* ---- process 0: checks and the descriptor ---------------------------------- */

/* Largest offset sum (shape_k - 1) * stride_k; false on a negative stride or
 * overflow. */
static bool extent(const int64_t *shape, const int64_t *str, int n, int64_t *max) {
  int64_t m = 0;
  for (int k = 0; k < n; k++) {
    if (shape[k] <= 1) continue;
    int64_t t;
    if (str[k] < 0 || __builtin_mul_overflow(shape[k] - 1, str[k], &t) || __builtin_add_overflow(m, t, &m))
      return false;
  }
  *max = m;
  return true;
}

parray_status rmpi_check_side(const parray_mpi_side *s, const char *name, const int64_t *shape, int n, size_t es,
                              int64_t block_bytes, int64_t *lmax) {
  if (!s->local) {
    parray_set_error("#copy: the %s has no local strides", name);
    return PARRAY_ERR_INVALID;
  }
  if (!extent(shape, s->local, n, lmax)) {
    parray_set_error("#copy: the %s has a negative or overflowing local stride", name);
    return PARRAY_ERR_INVALID;
  }
  if (s->handle < 0) {
    if (!s->ptr) {
      parray_set_error("#copy: the %s is a null process-0 buffer", name);
      return PARRAY_ERR_INVALID;
    }
    if (s->base != 0) {
      parray_set_error("#copy: the %s is a process-0 buffer but has a base offset", name);
      return PARRAY_ERR_INVALID;
    }
    for (int k = 0; s->proc && k < n; k++)
      if (shape[k] > 1 && s->proc[k] != 0) {
        parray_set_error("#copy: the %s is a process-0 buffer but has a process stride", name);
        return PARRAY_ERR_INVALID;
      }
    return PARRAY_OK;
  }
  size_t bytes;
  int64_t np, pmax;
  if (!rmpi_lookup(s->handle, NULL, &bytes, &np)) {
    parray_set_error("#copy: the %s (handle %d) is not a live distributed array", name, s->handle);
    return PARRAY_ERR_INVALID;
  }
  if (block_bytes >= 0) bytes = (size_t)block_bytes;
  if (!s->proc || !extent(shape, s->proc, n, &pmax) || pmax >= np) {
    parray_set_error("#copy: the %s's process strides reach beyond its %lld processes", name, (long long)np);
    return PARRAY_ERR_INVALID;
  }
  if (s->base < 0 || __builtin_add_overflow(*lmax, s->base, lmax) || (uint64_t)*lmax >= bytes / es) {
    if (s->base < 0)
      parray_set_error("#copy: the %s starts at element %lld of each block", name, (long long)s->base);
    else if (s->base)
      parray_set_error("#copy: the %s, starting at element %lld of each block, reaches element %lld of a "
                       "%zu-element block", name, (long long)s->base, (long long)*lmax, bytes / es);
    else
      parray_set_error("#copy: the %s's local offsets reach element %lld of a %zu-element block", name,
                       (long long)*lmax, bytes / es);
    return PARRAY_ERR_INVALID;
  }
  return PARRAY_OK;
}

/* Drop extents of 1, merge modes that chain on all four strides, put the
 * process modes first (keeping their order and that of the others). */
static void simplify(copy_desc *d) {
  int64_t *v[4] = {d->sl, d->sp, d->dl, d->dp};
  int m = 0;
  for (int k = 0; k < d->n; k++) {
    if (d->shape[k] == 1) continue;
    if (m > 0) {
      bool chain = true;
      for (int j = 0; j < 4; j++) chain = chain && v[j][m - 1] == v[j][k] * d->shape[k];
      if (chain) {
        d->shape[m - 1] *= d->shape[k];
        for (int j = 0; j < 4; j++) v[j][m - 1] = v[j][k];
        continue;
      }
    }
    d->shape[m] = d->shape[k];
    for (int j = 0; j < 4; j++) v[j][m] = v[j][k];
    m++;
  }
  d->n = m;
  copy_desc t = *d;
  int u = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < m; k++) {
      bool proc = t.sp[k] != 0 || t.dp[k] != 0;
      if (proc != (pass == 0)) continue;
      d->shape[u] = t.shape[k], d->sl[u] = t.sl[k], d->sp[u] = t.sp[k], d->dl[u] = t.dl[k], d->dp[u] = t.dp[k];
      u++;
    }
  d->u = 0;
  for (int k = 0; k < m; k++) d->u += t.sp[k] != 0 || t.dp[k] != 0;
}

static size_t desc_pack(const copy_desc *d, int64_t *w) {
  int64_t n = d->n;
  w[0] = d->n, w[1] = d->u, w[2] = d->src_h, w[3] = d->dst_h, w[4] = d->es, w[5] = d->p2p;
  w[6] = d->sbase, w[7] = d->dbase;
  const int64_t *arr[5] = {d->shape, d->sl, d->sp, d->dl, d->dp};
  for (int j = 0; j < 5; j++) memcpy(w + DESC_HEAD + j * n, arr[j], (size_t)n * sizeof *w);
  return (size_t)(DESC_HEAD + 5 * n) * sizeof *w;
}

static char *side_base(int64_t h, void *ptr_on_0) {
  if (h < 0) return rmpi_rank() == 0 ? ptr_on_0 : NULL;
  return parray_mpi_local((int)h);
}

/* Process 0: the direct engine where the blocks are shared (mpi.c maps
 * large blocks when the whole job is on one machine): writing the shared
 * destination, or reading the shared source into process 0's buffer;
 * otherwise `other`. */
static int64_t direct_mode(const copy_desc *d, int64_t other) {
  if (d->dst_h >= 0 && rmpi_blocks((int)d->dst_h)) return RMPI_MOVE_PUSH;
  if (d->dst_h < 0 && d->src_h >= 0 && rmpi_blocks((int)d->src_h)) return RMPI_MOVE_PULL;
  return other;
}

static bool is_direct(const copy_desc *d) { return d->p2p == RMPI_MOVE_PUSH || d->p2p == RMPI_MOVE_PULL; }

/* Process 0: check a copy and build its simplified descriptor; *total: its
 * elements (0: nothing to do), *smax / *dmax: the largest local offsets. */
static parray_status describe(const parray_mpi_side *dst, const parray_mpi_side *src, const int64_t *shape,
                              int nmodes, size_t elem_size, const int64_t *block_bytes, copy_desc *d, int64_t *total,
                              int64_t *smax, int64_t *dmax) {
  if (!dst || !src || nmodes < 0 || nmodes > MAXM || (nmodes > 0 && !shape) || elem_size == 0 ||
      elem_size > INT_MAX) {
    parray_set_error("#copy: bad arguments (%d modes, element size %zu)", nmodes, elem_size);
    return PARRAY_ERR_INVALID;
  }
  *total = 1;
  for (int k = 0; k < nmodes; k++) {
    if (shape[k] < 0 || __builtin_mul_overflow(*total, shape[k], total)) {
      parray_set_error("#copy: bad extent %lld of mode %d", (long long)shape[k], k);
      return PARRAY_ERR_INVALID;
    }
  }
  if (*total == 0) return PARRAY_OK;
  parray_status s;
  if ((s = rmpi_check_side(src, "source", shape, nmodes, elem_size, block_bytes ? block_bytes[1] : -1, smax)) !=
          PARRAY_OK ||
      (s = rmpi_check_side(dst, "destination", shape, nmodes, elem_size, block_bytes ? block_bytes[0] : -1, dmax)) !=
          PARRAY_OK)
    return s;
  if (src->handle >= 0 && src->handle == dst->handle) {
    parray_set_error("#copy: source and destination are the same distributed array");
    return PARRAY_ERR_UNSUPPORTED;
  }
  memset(d, 0, sizeof *d);
  d->n = nmodes, d->src_h = src->handle < 0 ? -1 : src->handle, d->dst_h = dst->handle < 0 ? -1 : dst->handle;
  d->es = (int64_t)elem_size;
  d->sbase = src->handle < 0 ? 0 : src->base, d->dbase = dst->handle < 0 ? 0 : dst->base;
  for (int k = 0; k < nmodes; k++) {
    d->shape[k] = shape[k];
    d->sl[k] = src->local[k], d->dl[k] = dst->local[k];
    d->sp[k] = src->handle < 0 || !src->proc ? 0 : src->proc[k];
    d->dp[k] = dst->handle < 0 || !dst->proc ? 0 : dst->proc[k];
  }
  simplify(d);
  int64_t combos = 1;
  for (int k = 0; k < d->u; k++) combos *= d->shape[k];
  if (combos > MAX_COMBOS) {
    parray_set_error("#copy: %lld process combinations (the runtime supports %lld)", (long long)combos,
                     (long long)MAX_COMBOS);
    return PARRAY_ERR_UNSUPPORTED;
  }
  return PARRAY_OK;
}

parray_status parray_mpi_copy(const parray_mpi_side *dst, const parray_mpi_side *src, const int64_t *shape,
                              int nmodes, size_t elem_size) {
  copy_desc d;
  int64_t total = 0, smax = 0, dmax = 0;
  parray_status s = describe(dst, src, shape, nmodes, elem_size, NULL, &d, &total, &smax, &dmax);
  if (s != PARRAY_OK || total == 0) return s;
  if (src->handle < 0 && dst->handle < 0) /* both on process 0: a local copy */
    return parray_copy_strided_cpu(dst->ptr, dst->local, src->ptr, src->local, shape, nmodes, elem_size);
  if (!rmpi_can_command("#copy of a distributed array")) return PARRAY_ERR_INVALID;
  /* Counts and packed displacements are at most `total`, in-place
   * displacements at most the largest local offset: MPI's int must hold them. */
  const char *force = getenv("PARRAY_MPI_COPY_P2P"), *pipe = getenv("PARRAY_MPI_COPY_PIPELINE");
  bool p2p = force && *force == '1', pipeline = pipe && *pipe == '1';
  d.p2p = p2p || total > INT_MAX || smax >= INT_MAX || dmax >= INT_MAX ? RMPI_MOVE_P2P : RMPI_MOVE_COLLECTIVE;
  if (pipeline) d.p2p = RMPI_MOVE_PIPELINE;
  else if (!p2p) d.p2p = direct_mode(&d, d.p2p);
  char *sbase = side_base(d.src_h, src->ptr), *rbase = side_base(d.dst_h, dst->ptr);
  bool direct = is_direct(&d);
  plan pl;
  if (!direct && (s = plan_make(&d, &pl, sbase, rbase)) != PARRAY_OK) return s;
  int64_t words[DESC_WORDS];
  size_t bytes = desc_pack(&d, words);
  if ((s = rmpi_command(RMPI_CMD_COPY, 0, 0, words, bytes)) == PARRAY_OK)
    s = direct ? rmpi_copy_direct(&d, sbase, rbase) : plan_run(&d, &pl, rmpi_comm());
  if (!direct) rmpi_plan_free(&pl);
  return s;
}

parray_status rmpi_copy_serve(const void *payload, size_t bytes) {
  copy_desc d;
  if (!rmpi_desc_unpack(&d, payload, bytes)) {
    parray_set_error("#copy: malformed descriptor from process 0");
    return PARRAY_ERR_INVALID;
  }
  if (is_direct(&d))
    return rmpi_copy_direct(&d, side_base(d.src_h, NULL), side_base(d.dst_h, NULL));
  plan pl;
  parray_status s = plan_make(&d, &pl, side_base(d.src_h, NULL), side_base(d.dst_h, NULL));
  if (s != PARRAY_OK) return s;
  s = plan_run(&d, &pl, rmpi_comm());
  rmpi_plan_free(&pl);
  return s;
}

/* ---- copies with a side in another memory (parray_mpi_cuda) ---------------- */

parray_status parray_mpi_copy_describe(const parray_mpi_side *dst, const parray_mpi_side *src, const int64_t *shape,
                                       int nmodes, size_t elem_size, const int64_t *block_bytes, int64_t *words,
                                       int *nwords) {
  copy_desc d;
  int64_t total = 0, smax = 0, dmax = 0;
  parray_status s = describe(dst, src, shape, nmodes, elem_size, block_bytes, &d, &total, &smax, &dmax);
  if (s != PARRAY_OK) return s;
  if (total == 0) {
    *nwords = 0;
    return PARRAY_OK;
  }
  d.p2p = RMPI_MOVE_P2P;
  *nwords = (int)(desc_pack(&d, words) / sizeof *words);
  return PARRAY_OK;
}

parray_status parray_mpi_copy_execute(const int64_t *words, int nwords, const parray_mpi_copy_run *run) {
  if (nwords == 0) return PARRAY_OK;
  copy_desc d;
  if (!run || nwords < 0 || !rmpi_desc_unpack(&d, words, (size_t)nwords * sizeof *words)) {
    parray_set_error("#copy: malformed descriptor");
    return PARRAY_ERR_INVALID;
  }
  int64_t chunk = run->chunk_bytes < d.es ? d.es : run->chunk_bytes;
  const parray_mpi_memory *m = run->dmem ? run->dmem : run->smem;
  if (!m || (run->path == PARRAY_MPI_PATH_STAGED && !run->used))
    return rmpi_copy_staged(&d, run->dst, run->dmem, (char *)run->src, run->smem, chunk);
  return rmpi_copy_grouped(&d, run, chunk);
}
