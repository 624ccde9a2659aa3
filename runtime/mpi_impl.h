/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_impl.h - what the files of the MPI runtime share (mpi.c: process
 * state, commands, detours, distributed-array table; mpi_copy*.c: the
 * collective #copy; mpi_main.c: start, dispatcher, end). The calls go one
 * way: mpi_main.c calls the others, mpi_copy*.c call mpi.c.
 * Private to runtime/; nothing here is part of the public API. Internal
 * names start with rmpi_/RMPI_: the MPI standard reserves PMPI_ (and
 * pmpi_) for its profiling interface. */
#ifndef PARRAY_MPI_IMPL_H
#define PARRAY_MPI_IMPL_H

#include <mpi.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parray/mpi.h"

#if defined(__GNUC__)
#define RMPI_HIDDEN __attribute__((visibility("hidden")))
#else
#define RMPI_HIDDEN
#endif

/* Commands process 0 broadcasts to the dispatchers of the other processes. */
enum { RMPI_CMD_FINISH = 1, RMPI_CMD_DETOUR, RMPI_CMD_CREATE, RMPI_CMD_DESTROY, RMPI_CMD_COPY, RMPI_CMD_COPY_SPLIT };

/* The header of a command. Payload bytes up to RMPI_CMD_INLINE (the
 * captured values of a detour, the descriptor of a copy with up to 11
 * modes) travel inside it; a larger payload follows in a second broadcast. */
#define RMPI_CMD_INLINE 464
typedef struct rmpi_cmd_header {
  int32_t op, id;
  int64_t a, b;
  int64_t bytes; /* payload size */
  alignas(16) unsigned char inl[RMPI_CMD_INLINE];
} rmpi_cmd_header;

/* The most modes a copy may have (the CPU copy engine's limit). */
#define RMPI_MAXM 16

/* Process 0 only: true when a collective command may be issued now (MPI is
 * up, we are process 0's #mainhost code, not inside a detour body); false
 * with the error text set (naming `what`) otherwise. */
RMPI_HIDDEN bool rmpi_can_command(const char *what);
/* Process 0: broadcast a command header (op, a, b) and payload bytes. */
RMPI_HIDDEN parray_status rmpi_command(int op, int64_t a, int64_t b, const void *payload, size_t bytes);
/* The rank and size of MPI_COMM_WORLD. */
RMPI_HIDDEN int rmpi_rank(void);
RMPI_HIDDEN int rmpi_size(void);
/* The runtime's own duplicate of MPI_COMM_WORLD. */
RMPI_HIDDEN MPI_Comm rmpi_comm(void);
/* A live distributed array: its local block on this process (NULL where it
 * holds none), local size in bytes and process count. */
RMPI_HIDDEN bool rmpi_lookup(int handle, void **ptr, size_t *bytes, int64_t *nprocs);
/* Where a distributed array's blocks are shared by every process (one
 * machine, large blocks; docs/mpi_runtime.md): every process's block as
 * mapped here, indexed by rank (NULL where it holds none); NULL for
 * private blocks. */
RMPI_HIDDEN char *const *rmpi_blocks(int handle);
/* Set the error text for a failed MPI call and return PARRAY_ERR_MPI. */
RMPI_HIDDEN parray_status rmpi_error(int rc, const char *what);

/* Report the last error and end the whole job (a dispatcher cannot return
 * a status to anyone). */
RMPI_HIDDEN _Noreturn void rmpi_fatal(void);
/* Every process's part of a command: run detour body id on processes
 * 0..nprocs-1; create a distributed array (the handle, or -1 with the
 * error text set on process 0); destroy one. */
RMPI_HIDDEN parray_status rmpi_run_detour(int id, int64_t nprocs, const void *ctx, size_t ctx_bytes);
RMPI_HIDDEN int rmpi_run_create(size_t bytes, int64_t nprocs);
RMPI_HIDDEN void rmpi_run_destroy(int64_t h);
/* Start: the runtime's communicator, ranks, the program (own_init: the
 * runtime initialised MPI, so it finalises). End: free everything, and
 * finalise MPI where the runtime initialised it. */
RMPI_HIDDEN void rmpi_start(const parray_mpi_program *prog, bool own_init);
RMPI_HIDDEN void rmpi_end(void);
/* Process 0 enters or leaves its #mainhost code; rmpi_leave_mainhost is for
 * exit() called there: true when it was running (now left). */
RMPI_HIDDEN void rmpi_set_mainhost(bool on);
RMPI_HIDDEN bool rmpi_leave_mainhost(void);

/* mpi_copy.c: a dispatcher's part of a copy command (every process other
 * than 0 calls it with the broadcast descriptor); mpi_copy_plan.c: freeing
 * the cached pack buffers at the end. */
RMPI_HIDDEN parray_status rmpi_copy_serve(const void *payload, size_t bytes);
RMPI_HIDDEN void rmpi_copy_cleanup(void);
/* Process 0: check one side of a copy over n modes of extents shape (handle
 * live, process indices within its processes, local offsets within its
 * block of block_bytes (< 0: the distributed array's own), strides
 * non-negative); *lmax: its largest local offset. */
RMPI_HIDDEN parray_status rmpi_check_side(const parray_mpi_side *s, const char *name, const int64_t *shape, int n,
                                          size_t es, int64_t block_bytes, int64_t *lmax);
/* mpi_copy_split.c: a dispatcher's part of a copy planned at run time. */
RMPI_HIDDEN parray_status rmpi_copy_split_serve(const void *payload, size_t bytes);

#endif
