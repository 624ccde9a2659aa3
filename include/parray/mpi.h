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
PARRAY_API int parray_mpi_rank(void);
PARRAY_API int parray_mpi_size(void);

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
 * for a process-0 buffer). */
typedef struct parray_mpi_side {
  int handle;
  void *ptr;
  const parray_int64_t *local;
  const parray_int64_t *proc;
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
 * sides flagged dst_dev / src_dev are distributed device arrays: their blocks
 * are staged through host blocks on every process. */
PARRAY_API void parray_mpi_dev_service(void *ctx, parray_int64_t tid);
PARRAY_API int parray_mpi_create_dev(int service, parray_size_t local_bytes, parray_int64_t nprocs, const char *file,
                                     int line, const char *what);
PARRAY_API void parray_mpi_destroy_dev(int service, int handle, const char *file, int line, const char *what);
PARRAY_API void *parray_mpi_dev_local(int handle);
PARRAY_API parray_status parray_mpi_copy_dev(int service, int dst_dev, int src_dev, const parray_mpi_side *dst,
                                             const parray_mpi_side *src, const parray_int64_t *shape, int nmodes,
                                             parray_size_t elem_size, const char *file, int line, const char *what);

/* The same copy when the two sides split the index space in ways that do not
 * nest (no common refinement of their modes): each side has its own modes,
 * with extents dshape (dn modes) and sshape (sn modes) of the same product,
 * and strides per mode of its own. Every process walks the index space and
 * moves the elements it holds (MPI_Alltoallv); slower than parray_mpi_copy,
 * which the translator uses whenever the common refinement is proved. */
PARRAY_API parray_status parray_mpi_copy_split(const parray_mpi_side *dst, const parray_int64_t *dshape, int dn,
                                               const parray_mpi_side *src, const parray_int64_t *sshape, int sn,
                                               parray_size_t elem_size);

#ifdef __cplusplus
}
#endif
#endif
