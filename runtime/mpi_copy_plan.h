/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_copy_plan.h - the plan of a collective #copy, shared by the host
 * engine (mpi_copy.c: MPI_Scatterv / Gatherv / Alltoallv or messages of at
 * most 1 GiB) and the staged engine (mpi_copy_staged.c: a side in another
 * memory, moved in pieces that overlap transfers with the exchange).
 * Defined in mpi_copy_plan.c, which calls none of the engines, so that the
 * engines depend on it and not on each other's files.
 * docs/mpi_runtime.md describes the algorithm. Private to runtime/. */
#ifndef PARRAY_MPI_COPY_PLAN_H
#define PARRAY_MPI_COPY_PLAN_H

#include "mpi_impl.h"

#define DESC_HEAD 8
#define DESC_WORDS (DESC_HEAD + 5 * RMPI_MAXM)

/* How a copy's elements move: one MPI collective call; point-to-point
 * messages of at most 1 GiB; the pipelined staged engine; written by the
 * processes that hold the source straight into the shared destination
 * blocks, or read by process 0 straight from the shared source blocks
 * (mpi_copy_direct.c). */
enum { RMPI_MOVE_COLLECTIVE, RMPI_MOVE_P2P, RMPI_MOVE_PIPELINE, RMPI_MOVE_PUSH, RMPI_MOVE_PULL };

/* A copy after process 0 checked and simplified it. */
typedef struct copy_desc {
  int64_t n, u;                 /* modes; the first u are process modes */
  int64_t src_h, dst_h;         /* handles; < 0: the process-0 buffer */
  int64_t es, p2p;              /* element size; how it moves (RMPI_MOVE_*) */
  int64_t sbase, dbase;         /* where each side starts in every block */
  int64_t shape[RMPI_MAXM];     /* extents */
  int64_t sl[RMPI_MAXM], sp[RMPI_MAXM]; /* source local / process strides */
  int64_t dl[RMPI_MAXM], dp[RMPI_MAXM]; /* destination local / process strides */
} copy_desc;

/* One combo of the process modes. */
typedef struct combo {
  int64_t idx[RMPI_MAXM];
  int64_t ps, pd, os, od; /* source / destination process and local offset */
} combo;

/* What one process does in a copy. */
typedef struct plan {
  int P, me;
  bool self_peer;                      /* what we send ourselves is counted like a message */
  char *sbase, *rbase;                 /* this process's source / destination memory */
  int64_t *scnt, *sdsp, *rcnt, *rdsp;  /* per peer, in elements */
  int64_t *cur, *next;                 /* scratch: cursors, contiguity checks */
  bool szc, rzc;                       /* send / receive in place (no packing) */
  int64_t stot, rtot;                  /* elements packed / to unpack */
  int64_t inner;                       /* elements per combo */
  int64_t pk[RMPI_MAXM];               /* strides of a packed inner block */
  char *sbuf, *rbuf;                   /* the pack / unpack buffers */
} plan;

/* A strided copy dst[i.ds] = src[i.ss] for i < shape (n modes, in elements)
 * in memory m (NULL: host memory, the CPU copy engine), on m's lane. */
RMPI_HIDDEN parray_status rmpi_strided(const parray_mpi_memory *m, int lane, void *dst, const int64_t *ds,
                                       const void *src, const int64_t *ss, const int64_t *shape, int n, size_t es);

RMPI_HIDDEN void rmpi_combo_first(const copy_desc *d, combo *c);
RMPI_HIDDEN bool rmpi_combo_next(const copy_desc *d, combo *c);
/* Count what this process sends and receives (self_peer: its own blocks
 * too) and decide where packing is needed; no buffers. */
RMPI_HIDDEN parray_status rmpi_plan_count(const copy_desc *d, plan *pl, char *sbase, char *rbase, bool self_peer);
RMPI_HIDDEN void rmpi_plan_free(plan *pl);
/* The direct engine (mode RMPI_MOVE_PUSH or _PULL): every process's part,
 * with its own source and destination memory. */
RMPI_HIDDEN parray_status rmpi_copy_direct(const copy_desc *d, char *sbase, char *rbase);
/* Host pack buffers kept between copies (which: 0 send, 1 receive). */
RMPI_HIDDEN void *rmpi_cached(int which, size_t bytes);
/* Pack what this process sends to q into buf (packed displacements), copy
 * its own blocks directly, unpack what came from p out of buf; each block
 * with rmpi_strided in memory m. */
RMPI_HIDDEN parray_status rmpi_pack_peer(const copy_desc *d, const plan *pl, int q, const parray_mpi_memory *m,
                                         int lane, char *buf);
RMPI_HIDDEN parray_status rmpi_copy_self(const copy_desc *d, const plan *pl, const parray_mpi_memory *m, int lane);
RMPI_HIDDEN parray_status rmpi_unpack_peer(const copy_desc *d, const plan *pl, int p, const parray_mpi_memory *m,
                                           int lane, const char *buf);
RMPI_HIDDEN bool rmpi_desc_unpack(copy_desc *d, const int64_t *w, size_t bytes);
/* mpi_copy_staged.c: run a copy with a side in another memory. */
RMPI_HIDDEN parray_status rmpi_copy_staged(const copy_desc *d, char *dbase, const parray_mpi_memory *dm, char *sbase,
                                           const parray_mpi_memory *sm, int64_t chunk);

/* mpi_copy_grouped.c: run a copy with a side in another memory, choosing
 * per pair of processes the direct path, the memory's exchange, or (for the
 * whole copy) the staged engine. */
RMPI_HIDDEN parray_status rmpi_copy_grouped(const copy_desc *d, const parray_mpi_copy_run *run, int64_t chunk);

#endif
