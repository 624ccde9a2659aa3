/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_impl.h - what the files of the MPI runtime (mpi.c: start, dispatcher,
 * detours, distributed-array table; mpi_copy.c: the collective #copy) share.
 * Private to runtime/; nothing here is part of the public API. */
#ifndef PARRAY_MPI_IMPL_H
#define PARRAY_MPI_IMPL_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parray/mpi.h"

#if defined(__GNUC__)
#define PMPI_HIDDEN __attribute__((visibility("hidden")))
#else
#define PMPI_HIDDEN
#endif

/* Commands process 0 broadcasts to the dispatchers of the other processes. */
enum { PMPI_CMD_FINISH = 1, PMPI_CMD_DETOUR, PMPI_CMD_CREATE, PMPI_CMD_DESTROY, PMPI_CMD_COPY, PMPI_CMD_COPY_SPLIT };

/* The most modes a copy may have (the CPU copy engine's limit). */
#define PMPI_MAXM 16

/* Process 0 only: true when a collective command may be issued now (MPI is
 * up, we are process 0's #mainhost code, not inside a detour body); false
 * with the error text set (naming `what`) otherwise. */
PMPI_HIDDEN bool pmpi_can_command(const char *what);
/* Process 0: broadcast a command header (op, a, b) and payload bytes. */
PMPI_HIDDEN parray_status pmpi_command(int op, int64_t a, int64_t b, const void *payload, size_t bytes);
/* The rank and size of MPI_COMM_WORLD. */
PMPI_HIDDEN int pmpi_rank(void);
PMPI_HIDDEN int pmpi_size(void);
/* The runtime's own duplicate of MPI_COMM_WORLD. */
PMPI_HIDDEN MPI_Comm pmpi_comm(void);
/* A live distributed array: its local block on this process (NULL where it
 * holds none), local size in bytes and process count. */
PMPI_HIDDEN bool pmpi_lookup(int handle, void **ptr, size_t *bytes, int64_t *nprocs);
/* Set the error text for a failed MPI call and return PARRAY_ERR_MPI. */
PMPI_HIDDEN parray_status pmpi_error(int rc, const char *what);

/* mpi_copy.c: a dispatcher's part of a copy command (every process other
 * than 0 calls it with the broadcast descriptor); and freeing the cached
 * pack buffers at the end. */
PMPI_HIDDEN parray_status pmpi_copy_serve(const void *payload, size_t bytes);
PMPI_HIDDEN void pmpi_copy_cleanup(void);
/* Process 0: check one side of a copy over n modes of extents shape (handle
 * live, process indices within its processes, local offsets within its
 * block of block_bytes (< 0: the distributed array's own), strides
 * non-negative); *lmax: its largest local offset. */
PMPI_HIDDEN parray_status pmpi_check_side(const parray_mpi_side *s, const char *name, const int64_t *shape, int n,
                                          size_t es, int64_t block_bytes, int64_t *lmax);
/* mpi_copy_split.c: a dispatcher's part of a copy planned at run time. */
PMPI_HIDDEN parray_status pmpi_copy_split_serve(const void *payload, size_t bytes);

#endif
