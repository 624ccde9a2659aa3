/* SPDX-License-Identifier: Apache-2.0 */
/* parray/mpi.h - the runtime of mpi thread arrays and distributed arrays
 * (docs/threads.md) on Open MPI. Every process runs the same
 * program; process 0 runs the #mainhost code and drives the others, which
 * serve its commands (detours, collective creation, copies) until the end.
 * Generated code calls these functions on process 0 only, except
 * parray_mpi_main (every process), parray_mpi_sync and parray_mpi_local
 * (inside detour bodies, on every process of the detour). */
#ifndef PARRAY_MPI_H
#define PARRAY_MPI_H

#include "parray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An outlined detour body: ctx is a copy of the captured values. */
typedef void (*parray_mpi_body)(void *ctx, parray_int64_t tid);

typedef struct parray_mpi_program {
  int (*mainhost)(int argc, char **argv); /* the #mainhost block */
  const parray_mpi_body *bodies;          /* every mpi detour body of the program, by id */
  int nbodies;
} parray_mpi_program;

/* The main() of a program with mpi thread arrays; every process calls it.
 * Initialises MPI; process 0 runs prog->mainhost and then releases the
 * others, which serve commands until then. Returns the exit status for main
 * (process 0's status on every process). A fatal error anywhere (including
 * parray_fatal_at) ends every process with a non-zero status: never a hang. */
PARRAY_API int parray_mpi_main(int argc, char **argv, const parray_mpi_program *prog);

/* Process 0: run bodies[id] on processes 0..nprocs-1 (tid = process index),
 * each with a copy of the ctx_bytes at ctx; return when all have finished.
 * PARRAY_ERR_INVALID when the job has fewer than nprocs processes. */
PARRAY_API parray_status parray_mpi_detour(int id, const void *ctx, parray_size_t ctx_bytes, parray_int64_t nprocs);

/* #sync inside an mpi detour body: a barrier over the detour's processes. */
PARRAY_API void parray_mpi_sync(void);
/* The end of an mpi detour body with reduce(...): every process of the
 * detour passes its private copy (bytes at mine); process 0 receives them
 * all in `all`, by process index (nprocs * bytes), which the other
 * processes ignore. Outside a body: PARRAY_ERR_INVALID. */
PARRAY_API parray_status parray_mpi_reduce_gather(const void *mine, parray_size_t bytes, void *all);
/* The #scan of an mpi detour body with scan(...): every process of the
 * detour passes its copy (bytes at mine) and gets every process's, by
 * process index, in a new array (free it with parray_mpi_scan_free); *n:
 * their number. NULL on failure (parray_last_error says why). */
PARRAY_API void *parray_mpi_scan_gather(const void *mine, parray_size_t bytes, parray_int64_t *n);
PARRAY_API void parray_mpi_scan_free(void *all);
PARRAY_API int parray_mpi_rank(void);
PARRAY_API int parray_mpi_size(void);
/* This process's rank among the job's processes on its machine, and their
 * number (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED at the start). */
PARRAY_API int parray_mpi_node_rank(void);
PARRAY_API int parray_mpi_node_size(void);

/* Distributed arrays. Process 0 calls parray_mpi_create; every process
 * 0..nprocs-1 allocates local_bytes (64-byte aligned). Returns a handle >= 0,
 * or -1 with the error text set. */
PARRAY_API int parray_mpi_create(parray_size_t local_bytes, parray_int64_t nprocs);
PARRAY_API void parray_mpi_destroy(int handle);
/* This process's block of a distributed array (NULL where it holds none). */
PARRAY_API void *parray_mpi_local(int handle);

/* One side of a copy: a buffer on process 0 (handle < 0) or a distributed
 * array. Strides are given per mode of the common index space, in elements:
 * `local` within a block (or the buffer), `proc` in process index (all zero
 * for a process-0 buffer). `base` (a distributed array only; 0 for a buffer,
 * whose ptr says where it starts) is the element of every process's block
 * where the side starts: #copy T(v + k) of a distributed v. */
typedef struct parray_mpi_side {
  int handle;
  void *ptr;
  const parray_int64_t *local;
  const parray_int64_t *proc;
  parray_int64_t base;
} parray_mpi_side;

/* Process 0; collective over all processes. For every index tuple
 * i = (i_0..i_{n-1}) < shape:
 *   dst[sum i_k*dst->proc[k]][sum i_k*dst->local[k]] = src[...same for src...]
 * Scatter (buffer -> distributed), gather (distributed -> buffer) and
 * redistribution between two distributions (all-to-all) are cases of it. */
PARRAY_API parray_status parray_mpi_copy(const parray_mpi_side *dst, const parray_mpi_side *src, const parray_int64_t *shape,
                                         int nmodes, parray_size_t elem_size);

/* Distributed device arrays (library parray_mpi_cuda): each process
 * 0..nprocs-1 holds its block in the memory of its GPU (local rank mod the
 * node's GPU count, selected once per process). `service` is the index of
 * parray_mpi_dev_service in the program's body table; file, line and what
 * name the .pc directive in errors (a process that cannot allocate ends the
 * job naming it). parray_mpi_create_dev returns a handle, or -1 with the
 * error text set; parray_mpi_dev_local is this process's device block (NULL
 * where it holds none). parray_mpi_copy_dev is parray_mpi_copy where the
 * sides flagged dst_dev / src_dev are in device memory: a distributed device
 * array (its handle) or process 0's device buffer (handle < 0, ptr a device
 * pointer). Processes of a node that reach each other's GPUs write straight
 * into the peer's block (CUDA IPC); other pairs pack on their GPUs and
 * exchange over NCCL, or without it in pieces through pinned host buffers
 * (or directly, with CUDA-aware MPI); a process's own part is copied on its
 * GPU (parray_mpi_copy_execute). */
PARRAY_API void parray_mpi_dev_service(void *ctx, parray_int64_t tid);
PARRAY_API int parray_mpi_create_dev(int service, parray_size_t local_bytes, parray_int64_t nprocs, const char *file,
                                     int line, const char *what);
PARRAY_API void parray_mpi_destroy_dev(int service, int handle, const char *file, int line, const char *what);
PARRAY_API void *parray_mpi_dev_local(int handle);
PARRAY_API parray_status parray_mpi_copy_dev(int service, int dst_dev, int src_dev, const parray_mpi_side *dst,
                                             const parray_mpi_side *src, const parray_int64_t *shape, int nmodes,
                                             parray_size_t elem_size, const char *file, int line, const char *what);

/* parray_mpi_copy_split where the sides flagged dst_dev / src_dev are in
 * device memory (as for parray_mpi_copy_dev): packed and unpacked on the
 * GPUs, the messages over NCCL (parray_mpi_copy_split_execute). */
PARRAY_API parray_status parray_mpi_copy_split_dev(int service, int dst_dev, int src_dev, const parray_mpi_side *dst,
                                                   const parray_int64_t *dshape, int dn, const parray_mpi_side *src,
                                                   const parray_int64_t *sshape, int sn, parray_size_t elem_size,
                                                   const char *file, int line, const char *what);

/* One point-to-point message of an exchange in a memory's own transport. */
typedef struct parray_mpi_message {
  int peer;            /* the other process */
  int receive;         /* 1: receive into mem; 0: send from mem */
  void *mem;           /* in the memory */
  parray_size_t bytes; /* > 0 */
} parray_mpi_message;

/* A memory other than host memory that a collective copy reads or writes
 * (the GPUs' memory, in parray_mpi_cuda), as the copy engine uses it. Lane 0
 * carries what a process sends and lane 1 what it receives; the calls on
 * one lane take effect in order, possibly after they return. */
typedef struct parray_mpi_memory {
  void *ctx;
  int mpi_direct; /* MPI reads and writes this memory itself (CUDA-aware MPI) */
  /* scratch kept between copies: which 0 and 1 in this memory, 2 and 3 in
   * host memory that transfers fast (pinned); NULL when there is no room */
  void *(*buffer)(void *ctx, int which, parray_size_t bytes);
  /* dst[i.dstride] = src[i.sstride] for every index i < shape (n modes,
   * strides in elements), both in this memory (either may be another
   * process's block as this process reaches it, on the direct path) */
  parray_status (*copy)(void *ctx, int lane, void *dst, const parray_int64_t *dstride, const void *src,
                        const parray_int64_t *sstride, const parray_int64_t *shape, int n, parray_size_t elem_size);
  parray_status (*to_host)(void *ctx, int lane, void *host, const void *mem, parray_size_t bytes);
  parray_status (*from_host)(void *ctx, int lane, void *mem, const void *host, parray_size_t bytes);
  /* a mark after what the lane was given so far; reached: 1 when everything
   * before it took effect, 0 not yet, -1 on an error (text set) */
  parray_status (*mark)(void *ctx, int lane, parray_int64_t *ticket);
  int (*reached)(void *ctx, parray_int64_t ticket);
  /* wait for both lanes */
  parray_status (*finish)(void *ctx);
  /* Optional (NULL: MPI carries what crosses processes). The memory's own
   * transport between processes (NCCL, for the GPUs): send and receive
   * these messages all at once, after everything both lanes were given so
   * far; what lane 1 is given afterwards sees the received data. Every
   * process of the job calls it once per copy that uses it (n may be 0). */
  parray_status (*exchange)(void *ctx, const parray_mpi_message *msgs, int n);
  /* Optional (NULL: copy on lane 0). A copy of the direct path, where dst
   * or src is another process's block: copies of different slots may run
   * at the same time (on different engines); all have taken effect when
   * finish returns. */
  parray_status (*copy_peer)(void *ctx, int slot, void *dst, const parray_int64_t *dstride, const void *src,
                             const parray_int64_t *sstride, const parray_int64_t *shape, int n,
                             parray_size_t elem_size);
  /* With copy_peer: the copies given after it start when every copy given
   * before it (on every slot) has taken effect. */
  parray_status (*peer_fence)(void *ctx);
  /* Optional (NULL: such copies stage their side through host memory).
   * Copies by a list of element offsets, idx[0..n-1] in host memory (read
   * before the call returns): gather dst[i] = src[idx[i]], scatter
   * dst[idx[i]] = src[i], both dst and src in this memory. */
  parray_status (*gather)(void *ctx, int lane, void *dst, const void *src, const parray_int64_t *idx,
                          parray_int64_t n, parray_size_t elem_size);
  parray_status (*scatter)(void *ctx, int lane, void *dst, const parray_int64_t *idx, const void *src,
                           parray_int64_t n, parray_size_t elem_size);
} parray_mpi_memory;

/* The words of a copy's description. */
#define PARRAY_MPI_COPY_DESC_WORDS 88
/* Process 0: check the copy parray_mpi_copy would do and describe it in
 * words[PARRAY_MPI_COPY_DESC_WORDS] (*nwords of them; 0: nothing to copy).
 * block_bytes (NULL: none) gives per side (0 destination, 1 source) the
 * bytes of each block when the blocks are not the distributed array's own
 * (those of a memory, whose records the array holds), else -1. */
PARRAY_API parray_status parray_mpi_copy_describe(const parray_mpi_side *dst, const parray_mpi_side *src,
                                                  const parray_int64_t *shape, int nmodes, parray_size_t elem_size,
                                                  const parray_int64_t *block_bytes, parray_int64_t *words,
                                                  int *nwords);

/* How the data of a pair of processes moves in parray_mpi_copy_execute. */
enum {
  PARRAY_MPI_PATH_NONE = 0, /* nothing between them (the choice: automatic) */
  PARRAY_MPI_PATH_STAGED,   /* MPI, through pinned host memory (or the memory itself with CUDA-aware MPI) */
  PARRAY_MPI_PATH_EXCHANGE, /* the memory's own transport (NCCL) */
  PARRAY_MPI_PATH_DIRECT,   /* written straight into the peer's block (CUDA IPC) */
  PARRAY_MPI_PATH_LOCAL     /* a process's own part, copied inside its memory */
};

/* What parray_mpi_copy_execute runs on one process. */
typedef struct parray_mpi_copy_run {
  void *dst;                       /* this process's memory of each side: its block, or process 0's */
  const void *src;                 /* buffer on process 0; NULL where it has none */
  const parray_mpi_memory *dmem;   /* the memory each side is in (NULL: host memory) */
  const parray_mpi_memory *smem;
  /* the direct path: for every process q of the job, q's block of each
   * distributed side in dmem/smem as this process reaches it (NULL where it
   * cannot, or no array: no direct path for that side) */
  void *const *dst_peers;
  const void *const *src_peers;
  parray_int64_t chunk_bytes; /* MPI pieces: about this many bytes (the same on every process) */
  int path;                   /* PARRAY_MPI_PATH_NONE (automatic) or the path every pair must take */
  int *used;                  /* NULL, or per process q the path taken with q (set on return) */
} parray_mpi_copy_run;

/* Every process of the job together, inside a detour body over all of them:
 * run a described copy. Automatic choice: pairs of processes that reach
 * each other's blocks write them directly; the others use the memory's
 * exchange when it has one, else MPI through pinned host memory (the staged
 * engine: pieces of chunk_bytes, transfers overlapping the exchange). */
PARRAY_API parray_status parray_mpi_copy_execute(const parray_int64_t *words, int nwords,
                                                 const parray_mpi_copy_run *run);

/* The same copy when the two sides split the index space in ways that do not
 * nest (no common refinement of their modes): each side has its own modes,
 * with extents dshape (dn modes) and sshape (sn modes) of the same product,
 * and strides per mode of its own. Every process walks the index space and
 * moves the elements it holds (MPI_Alltoallv); slower than parray_mpi_copy,
 * which the translator uses whenever the common refinement is proved. */
PARRAY_API parray_status parray_mpi_copy_split(const parray_mpi_side *dst, const parray_int64_t *dshape, int dn,
                                               const parray_mpi_side *src, const parray_int64_t *sshape, int sn,
                                               parray_size_t elem_size);

/* The words of a split copy's description. */
#define PARRAY_MPI_SPLIT_DESC_WORDS 103
/* Process 0: check the copy parray_mpi_copy_split would do and describe it
 * in words[PARRAY_MPI_SPLIT_DESC_WORDS] (*nwords of them; 0: nothing to
 * copy); block_bytes as for parray_mpi_copy_describe. */
PARRAY_API parray_status parray_mpi_copy_split_describe(const parray_mpi_side *dst, const parray_int64_t *dshape,
                                                        int dn, const parray_mpi_side *src,
                                                        const parray_int64_t *sshape, int sn,
                                                        parray_size_t elem_size, const parray_int64_t *block_bytes,
                                                        parray_int64_t *words, int *nwords);
/* Every process of the job together, inside a detour body over all of them:
 * run a described split copy. Each process lists the offsets of what it
 * sends and receives; a side in a memory is packed and unpacked there by
 * those lists (gather, scatter), the rest on the CPU; the messages go over
 * the memory's exchange when every process has one (and run->path is not
 * PARRAY_MPI_PATH_STAGED), else over MPI (through pinned host memory unless
 * MPI reaches the memory). run's peers and chunk_bytes are not used. */
PARRAY_API parray_status parray_mpi_copy_split_execute(const parray_int64_t *words, int nwords,
                                                       const parray_mpi_copy_run *run);

#ifdef __cplusplus
}
#endif
#endif
