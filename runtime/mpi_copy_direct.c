/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_copy_direct.c - the direct engine of the collective #copy: when the
 * blocks of a distributed array are shared by every process (one machine;
 * mpi.c maps them), the elements move once, with no pack buffer and no
 * message. With a shared destination each process writes the blocks it
 * holds of the source straight into their owners' destination blocks
 * (push); copying shared blocks to process 0's own buffer, process 0
 * reads them straight from their owners (pull). Each block is one strided
 * copy of the CPU copy engine, which walks the destination in order and
 * transposes in cache-sized tiles. A barrier before the copy lets every
 * process finish what it was doing with these blocks; one after makes the
 * writes visible to their owners before anyone goes on. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_copy_plan.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* One block this process moves: its peer and its offsets on both sides. */
typedef struct job {
  int64_t key; /* the peer's distance after this process: peers are served in turn, not all at once */
  int64_t peer, os, od;
} job;

static int by_key(const void *a, const void *b) {
  const job *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->os > y->os) - (x->os < y->os);
}

/* The blocks this process moves, in the order it moves them. */
static parray_status list_jobs(const copy_desc *d, bool push, int me, int P, job **out, int64_t *n) {
  int64_t count = 0;
  combo c;
  rmpi_combo_first(d, &c);
  do count += (push ? c.ps : c.pd) == me;
  while (rmpi_combo_next(d, &c));
  *n = count;
  *out = NULL;
  if (!count) return PARRAY_OK;
  job *j = malloc((size_t)count * sizeof *j);
  if (!j) {
    parray_set_error("#copy: out of memory");
    return PARRAY_ERR_ALLOC;
  }
  int64_t k = 0;
  rmpi_combo_first(d, &c);
  do {
    if ((push ? c.ps : c.pd) != me) continue;
    int64_t peer = push ? c.pd : c.ps;
    j[k++] = (job){(peer - me + P) % P, peer, c.os, c.od};
  } while (rmpi_combo_next(d, &c));
  qsort(j, (size_t)count, sizeof *j, by_key);
  *out = j;
  return PARRAY_OK;
}

static parray_status move_jobs(const copy_desc *d, bool push, const job *j, int64_t n, char *sbase, char *rbase) {
  char *const *peers = rmpi_blocks((int)(push ? d->dst_h : d->src_h));
  int m = (int)(d->n - d->u);
  for (int64_t k = 0; k < n; k++) {
    char *dst = push ? peers[j[k].peer] : rbase, *src = push ? sbase : peers[j[k].peer];
    if (!dst || !src) {
      parray_set_error("#copy: process %lld holds no block of the %s array", (long long)j[k].peer,
                       push ? "destination" : "source");
      return PARRAY_ERR_INVALID;
    }
    parray_status s = parray_copy_strided_cpu(dst + j[k].od * d->es, d->dl + d->u, src + j[k].os * d->es,
                                              d->sl + d->u, d->shape + d->u, m, (size_t)d->es);
    if (s != PARRAY_OK) return s;
  }
  return PARRAY_OK;
}

parray_status rmpi_copy_direct(const copy_desc *d, char *sbase, char *rbase) {
  bool push = d->p2p == RMPI_MOVE_PUSH;
  int me = rmpi_rank(), P = rmpi_size();
  MPI_Comm comm = rmpi_comm();
  job *j = NULL;
  int64_t n = 0;
  parray_status s = list_jobs(d, push, me, P, &j, &n);
  int rc = MPI_Barrier(comm);
  if (rc != MPI_SUCCESS) {
    free(j);
    return rmpi_error(rc, "#copy (shared blocks)");
  }
  if (s == PARRAY_OK) s = move_jobs(d, push, j, n, sbase, rbase);
  free(j);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  /* every process reaches this barrier, whatever happened, so that none
   * waits for one that returned early; a failure then ends the job */
  rc = MPI_Barrier(comm);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (s == PARRAY_OK && rc != MPI_SUCCESS) s = rmpi_error(rc, "#copy (shared blocks)");
  return s;
}
