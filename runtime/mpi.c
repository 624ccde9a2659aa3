/* SPDX-License-Identifier: Apache-2.0 */
/* mpi.c - the process state of the mpi runtime (docs/threads.md): the
 * commands process 0 broadcasts, detours, #sync and the table of
 * distributed arrays. Program start, the dispatcher that processes other
 * than 0 run while process 0 executes #mainhost, and the end are in
 * mpi_main.c; the collective #copy is in mpi_copy*.c. Neither is called
 * from here: they call this file. How it works: docs/mpi_runtime.md.
 *
 * Every command is one broadcast of a fixed-size header from process 0 (a
 * small payload, such as a detour's captured values, travels inside it;
 * a larger one follows in a second broadcast). The runtime talks over its own
 * duplicate of MPI_COMM_WORLD so that MPI calls made by user code in detour
 * bodies never match the runtime's messages. Any fatal error ends the whole
 * job through MPI_Abort (the fatal hook), never a hang. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_impl.h"

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct array_entry {
  void *ptr;      /* this process's block (NULL where it holds none) */
  size_t bytes;   /* local block size */
  int64_t nprocs; /* processes 0..nprocs-1 hold a block */
  bool used;
  MPI_Win win;    /* the shared window of the blocks (MPI_WIN_NULL: ptr is our own allocation) */
  char **blocks;  /* with a window: every process's block, mapped here */
} array_entry;

/* Process state. MPI runs with MPI_THREAD_FUNNELED: only the thread that
 * called parray_mpi_main touches this (pthd threads in a body may read the
 * array table through parray_mpi_local, which nothing changes meanwhile). */
static struct {
  int rank, size;
  int node_rank, node_size; /* among the processes of this machine */
  bool up;       /* MPI initialised by parray_mpi_main and not yet finalised */
  bool own_init; /* we called MPI_Init_thread (so we finalise) */
  bool mainhost; /* process 0 is running the #mainhost code */
  bool in_body;  /* this process is running a detour body */
  MPI_Comm comm; /* the runtime's duplicate of MPI_COMM_WORLD */
  MPI_Comm body_comm;
  const parray_mpi_program *prog;
  array_entry *arrays;
  int narrays;
  MPI_Comm *comms; /* per process count 1..size: processes 0..n-1 (MPI_COMM_NULL elsewhere) */
  bool *comm_made;
  size_t shared_min; /* blocks of this many bytes or more live in shared windows (SIZE_MAX: none) */
} st = {.rank = 0, .size = 1, .node_rank = 0, .node_size = 1, .shared_min = SIZE_MAX};

int rmpi_rank(void) { return st.rank; }
int rmpi_size(void) { return st.size; }
MPI_Comm rmpi_comm(void) { return st.comm; }
int parray_mpi_rank(void) { return st.rank; }
int parray_mpi_size(void) { return st.size; }
int parray_mpi_node_rank(void) { return st.node_rank; }
int parray_mpi_node_size(void) { return st.node_size; }

/* Blocks smaller than this stay private by default: a window costs a
 * collective call and a mapping, and small copies gain little from it. */
#define SHARED_MIN ((size_t)1 << 16)

/* This process's rank among the processes that share its machine (memory),
 * and whether the whole job does: then distributed blocks of at least
 * SHARED_MIN bytes are mapped by every process, and a #copy between them
 * moves each element once (mpi_copy_direct.c). Process 0's environment
 * decides: PARRAY_MPI_SHARED=0 keeps every block private, =1 shares every
 * block whatever its size. */
static void find_node_rank(void) {
  MPI_Comm node = MPI_COMM_NULL;
  st.node_rank = st.rank, st.node_size = st.size;
  if (MPI_Comm_split_type(st.comm, MPI_COMM_TYPE_SHARED, st.rank, MPI_INFO_NULL, &node) != MPI_SUCCESS) return;
  MPI_Comm_rank(node, &st.node_rank);
  MPI_Comm_size(node, &st.node_size);
  MPI_Comm_free(&node);
  const char *v = getenv("PARRAY_MPI_SHARED");
  int want = st.size == 1 || (v && !strcmp(v, "0")) ? 0 : v && !strcmp(v, "1") ? 2 : 1, all = 0;
  if (MPI_Bcast(&want, 1, MPI_INT, 0, st.comm) != MPI_SUCCESS) want = 0;
  if (MPI_Allreduce(&st.node_size, &all, 1, MPI_INT, MPI_MIN, st.comm) != MPI_SUCCESS || all != st.size) want = 0;
  st.shared_min = want == 0 ? SIZE_MAX : want == 2 ? 0 : SHARED_MIN;
}

parray_status rmpi_error(int rc, const char *what) {
  char msg[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error code %d", rc);
  parray_set_error("%s: MPI error on process %d: %s", what, st.rank, msg);
  return PARRAY_ERR_MPI;
}

/* A dispatcher cannot return a status to anyone: it reports and ends the job
 * through parray_fatal (whose hook calls MPI_Abort). */
_Noreturn void rmpi_fatal(void) { parray_fatal(NULL, "process %d: %s", st.rank, parray_last_error()); }

static void abort_hook(int status) {
  int fin = 1;
  if (MPI_Finalized(&fin) == MPI_SUCCESS && !fin) MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
}

bool rmpi_can_command(const char *what) {
  if (!st.up) {
    parray_set_error("%s: the mpi runtime is not running (the program must start in parray_mpi_main)", what);
    return false;
  }
  if (st.in_body || st.rank != 0 || !st.mainhost) {
    parray_set_error("%s: only process 0's host code (not a detour body) can do this", what);
    return false;
  }
  return true;
}

static parray_status send_command(int op, int id, int64_t a, int64_t b, const void *payload, size_t bytes) {
  rmpi_cmd_header h;
  memset(&h, 0, sizeof h);
  h.op = op, h.id = id, h.a = a, h.b = b, h.bytes = (int64_t)bytes;
  if (bytes > INT_MAX) {
    parray_set_error("command payload of %zu bytes is too large", bytes);
    return PARRAY_ERR_INVALID;
  }
  if (bytes && bytes <= RMPI_CMD_INLINE) memcpy(h.inl, payload, bytes);
  MPI_Request rq;
  int rc = MPI_Ibcast(&h, (int)sizeof h, MPI_BYTE, 0, st.comm, &rq);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && bytes > RMPI_CMD_INLINE) rc = MPI_Bcast((void *)payload, (int)bytes, MPI_BYTE, 0, st.comm);
  return rc == MPI_SUCCESS ? PARRAY_OK : rmpi_error(rc, "sending a command to the other processes");
}

parray_status rmpi_command(int op, int64_t a, int64_t b, const void *payload, size_t bytes) {
  return send_command(op, 0, a, b, payload, bytes);
}

/* The communicator of processes 0..n-1, made collectively (every process of
 * the job handles every command in the same order, so all agree on when it
 * is first needed) and kept. */
static parray_status comm_for(int64_t n, MPI_Comm *out) {
  if (!st.comm_made[n]) {
    int rc = MPI_Comm_split(st.comm, st.rank < n ? 0 : MPI_UNDEFINED, st.rank, &st.comms[n]);
    if (rc != MPI_SUCCESS) return rmpi_error(rc, "creating the communicator of a detour");
    st.comm_made[n] = true;
  }
  *out = st.comms[n];
  return PARRAY_OK;
}

/* Every process: run body `id` on processes 0..nprocs-1 with a private,
 * aligned copy of the captured values, then a barrier over those processes. */
parray_status rmpi_run_detour(int id, int64_t nprocs, const void *ctx, size_t ctx_bytes) {
  MPI_Comm comm = MPI_COMM_NULL;
  parray_status s = comm_for(nprocs, &comm);
  if (s != PARRAY_OK || st.rank >= nprocs) return s;
  alignas(64) unsigned char small[RMPI_CMD_INLINE];
  void *copy = small;
  if (ctx_bytes > sizeof small) {
    copy = aligned_alloc(64, (ctx_bytes + 63) / 64 * 64);
    if (!copy) {
      parray_set_error("cannot allocate %zu bytes for the captured values of a detour", ctx_bytes);
      return PARRAY_ERR_ALLOC;
    }
  }
  if (ctx_bytes) memcpy(copy, ctx, ctx_bytes);
  st.in_body = true;
  st.body_comm = comm;
  st.prog->bodies[id](copy, st.rank);
  st.in_body = false;
  st.body_comm = MPI_COMM_NULL;
  if (copy != small) free(copy);
  int rc = MPI_Barrier(comm);
  return rc == MPI_SUCCESS ? PARRAY_OK : rmpi_error(rc, "waiting for the end of a detour");
}

parray_status parray_mpi_detour(int id, const void *ctx, size_t ctx_bytes, int64_t nprocs) {
  if (!rmpi_can_command("mpi #detour")) return PARRAY_ERR_INVALID;
  if (id < 0 || id >= st.prog->nbodies || !st.prog->bodies[id]) {
    parray_set_error("mpi #detour: no detour body number %d (the program has %d)", id, st.prog->nbodies);
    return PARRAY_ERR_INVALID;
  }
  if (ctx_bytes && !ctx) {
    parray_set_error("mpi #detour: null captured values");
    return PARRAY_ERR_INVALID;
  }
  if (nprocs < 1) {
    parray_set_error("mpi #detour: the thread array has %lld processes", (long long)nprocs);
    return PARRAY_ERR_INVALID;
  }
  if (nprocs > st.size) {
    parray_set_error("this mpi detour needs %lld processes but the job has %d: start it with mpirun -np %lld",
                     (long long)nprocs, st.size, (long long)nprocs);
    return PARRAY_ERR_INVALID;
  }
  parray_status s = send_command(RMPI_CMD_DETOUR, id, nprocs, (int64_t)ctx_bytes, ctx, ctx_bytes);
  return s == PARRAY_OK ? rmpi_run_detour(id, nprocs, ctx, ctx_bytes) : s;
}

void parray_mpi_sync(void) {
  if (!st.in_body || st.body_comm == MPI_COMM_NULL) return;
  int rc = MPI_Barrier(st.body_comm);
  if (rc != MPI_SUCCESS) {
    rmpi_error(rc, "#sync");
    rmpi_fatal();
  }
}

parray_status parray_mpi_reduce_gather(const void *mine, size_t bytes, void *all) {
  if (!st.in_body || st.body_comm == MPI_COMM_NULL) {
    parray_set_error("reduce: the partial results are gathered only at the end of an mpi detour's body");
    return PARRAY_ERR_INVALID;
  }
  if (bytes > INT_MAX) {
    parray_set_error("reduce: a reduction variable of %zu bytes is too large", bytes);
    return PARRAY_ERR_INVALID;
  }
  int rc = MPI_Gather(mine, (int)bytes, MPI_BYTE, st.rank == 0 ? all : NULL, (int)bytes, MPI_BYTE, 0, st.body_comm);
  return rc == MPI_SUCCESS ? PARRAY_OK : rmpi_error(rc, "gathering the partial results of a reduction");
}

void *parray_mpi_scan_gather(const void *mine, size_t bytes, int64_t *n) {
  int np = 0;
  if (!st.in_body || st.body_comm == MPI_COMM_NULL || MPI_Comm_size(st.body_comm, &np) != MPI_SUCCESS) {
    parray_set_error("#scan: the copies are exchanged only in the body of an mpi detour");
    return NULL;
  }
  if (bytes > INT_MAX) {
    parray_set_error("#scan: a scan variable of %zu bytes is too large", bytes);
    return NULL;
  }
  void *all = malloc((size_t)np * bytes + 1);
  if (!all) {
    parray_set_error("#scan: cannot allocate %zu bytes for the processes' copies", (size_t)np * bytes);
    return NULL;
  }
  int rc = MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, st.body_comm);
  if (rc != MPI_SUCCESS) {
    free(all);
    rmpi_error(rc, "exchanging the copies of a #scan");
    return NULL;
  }
  *n = np;
  return all;
}

void parray_mpi_scan_free(void *all) { free(all); }

/* ---- distributed arrays --------------------------------------------------- */

/* The live array of this handle, or NULL. */
static array_entry *live(int64_t handle) {
  return handle >= 0 && handle < st.narrays && st.arrays[handle].used ? &st.arrays[handle] : NULL;
}

bool rmpi_lookup(int handle, void **ptr, size_t *bytes, int64_t *nprocs) {
  const array_entry *e = live(handle);
  if (!e) return false;
  if (ptr) *ptr = e->ptr;
  if (bytes) *bytes = e->bytes;
  if (nprocs) *nprocs = e->nprocs;
  return true;
}

void *parray_mpi_local(int handle) {
  void *p = NULL;
  return rmpi_lookup(handle, &p, NULL, NULL) ? p : NULL;
}

/* Every process: whether ok holds on all; where not, *bad is the lowest
 * process where it does not (-1 when the agreement itself failed, with the
 * error text set). */
static bool agree(int ok, int *bad) {
  struct {
    int ok, rank;
  } in = {ok, st.rank}, out = {0, 0};
  int rc = MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, st.comm);
  if (rc != MPI_SUCCESS) {
    rmpi_error(rc, "#create of a distributed array");
    *bad = -1;
    return false;
  }
  *bad = out.rank;
  return out.ok != 0;
}

#define BLOCK_ALIGN 64 /* as parray_host_alloc's paged blocks */

/* Every process: map this process's block of `mine` bytes in a window shared
 * by all, and every process's block. False, holding nothing, where no
 * window could be made (the caller then allocates privately); a window
 * made on some processes only ends the job. */
static bool shared_alloc(array_entry *e, size_t mine) {
  MPI_Info info = MPI_INFO_NULL;
  void *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  int rc = MPI_Info_create(&info);
  if (rc == MPI_SUCCESS) rc = MPI_Info_set(info, "alloc_shared_noncontig", "true");
  /* MPI aligns the blocks less than parray_host_alloc does: each is asked
   * BLOCK_ALIGN bytes more and starts at the next multiple of BLOCK_ALIGN,
   * which is the same offset in every process's mapping (mappings start on
   * page boundaries). */
  if (rc == MPI_SUCCESS)
    rc = MPI_Win_allocate_shared((MPI_Aint)(mine ? mine + BLOCK_ALIGN : 0), 1, info, st.comm, &base, &win);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  char **blocks = rc == MPI_SUCCESS ? calloc((size_t)st.size, sizeof *blocks) : NULL;
  for (int q = 0; blocks && q < st.size; q++) {
    MPI_Aint size = 0;
    int unit = 0;
    void *at = NULL;
    if (MPI_Win_shared_query(win, q, &size, &unit, &at) != MPI_SUCCESS) {
      free(blocks);
      blocks = NULL;
    } else {
      blocks[q] = size ? (char *)at + (BLOCK_ALIGN - (uintptr_t)at % BLOCK_ALIGN) % BLOCK_ALIGN : NULL;
    }
  }
  int bad = 0;
  if (agree(blocks != NULL, &bad)) {
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    e->win = win, e->blocks = blocks, e->ptr = mine ? blocks[st.rank] : NULL;
    return true;
  }
  free(blocks);
  int made[2] = {rc == MPI_SUCCESS, -(rc == MPI_SUCCESS)}, both[2] = {0, 0}; /* made everywhere, somewhere */
  if (bad < 0 || MPI_Allreduce(made, both, 2, MPI_INT, MPI_MIN, st.comm) != MPI_SUCCESS ||
      (both[1] && !both[0])) {
    parray_set_error("#create of a distributed array: the shared window of its blocks was made on some processes "
                     "only (PARRAY_MPI_SHARED=0 keeps blocks private)");
    rmpi_fatal();
  }
  if (both[0]) MPI_Win_free(&win); /* made, but a process could not map the others' blocks */
  return false;
}

/* Every process: take the lowest free slot (the same on every process),
 * allocate the local block where this process holds one (in a window
 * shared by all where the job allows it and the block is large), and agree
 * on success. Returns the handle, or -1 with the error text set on
 * process 0. */
int rmpi_run_create(size_t bytes, int64_t nprocs) {
  int h = 0, bad = 0;
  while (h < st.narrays && st.arrays[h].used) h++;
  int ok = 1;
  if (h == st.narrays) {
    int cap = st.narrays ? st.narrays * 2 : 16;
    array_entry *a = realloc(st.arrays, (size_t)cap * sizeof *a);
    if (a) {
      memset(a + st.narrays, 0, (size_t)(cap - st.narrays) * sizeof *a);
      st.arrays = a;
      st.narrays = cap;
    } else {
      ok = 0;
    }
  }
  if (!agree(ok, &bad)) {
    if (bad >= 0) parray_set_error("#create of a distributed array: process %d is out of memory", bad);
    return -1;
  }
  size_t mine = st.rank < nprocs ? bytes : 0;
  array_entry e = {NULL, bytes, nprocs, true, MPI_WIN_NULL, NULL};
  if (bytes > 0 && bytes >= st.shared_min && bytes <= (size_t)INT64_MAX - BLOCK_ALIGN && shared_alloc(&e, mine)) {
    st.arrays[h] = e;
    return h;
  }
  if (mine && !(e.ptr = parray_host_alloc(PARRAY_PAGED, bytes))) ok = 0;
  if (!agree(ok, &bad)) {
    parray_host_free(PARRAY_PAGED, e.ptr, mine);
    if (bad >= 0)
      parray_set_error("#create of a distributed array: process %d cannot allocate its block of %zu bytes", bad,
                       bytes);
    return -1;
  }
  st.arrays[h] = e;
  return h;
}

int parray_mpi_create(size_t local_bytes, int64_t nprocs) {
  if (!rmpi_can_command("#create of a distributed array")) return -1;
  if (nprocs < 1) {
    parray_set_error("#create of a distributed array over %lld processes", (long long)nprocs);
    return -1;
  }
  if (nprocs > st.size) {
    parray_set_error("this distributed array needs %lld processes but the job has %d: start it with mpirun -np %lld",
                     (long long)nprocs, st.size, (long long)nprocs);
    return -1;
  }
  if (local_bytes > (size_t)INT64_MAX) {
    parray_set_error("#create of a distributed array: %zu bytes per process is too large", local_bytes);
    return -1;
  }
  if (send_command(RMPI_CMD_CREATE, 0, (int64_t)local_bytes, nprocs, NULL, 0) != PARRAY_OK) return -1;
  return rmpi_run_create(local_bytes, nprocs);
}

/* Every process (a window's free is collective: every process destroys
 * the same arrays in the same order). */
void rmpi_run_destroy(int64_t h) {
  array_entry *e = live(h);
  if (!e) return;
  if (e->win != MPI_WIN_NULL) {
    MPI_Win_free(&e->win);
    free(e->blocks);
  } else {
    parray_host_free(PARRAY_PAGED, e->ptr, e->bytes);
  }
  *e = (array_entry){NULL, 0, 0, false, MPI_WIN_NULL, NULL};
}

char *const *rmpi_blocks(int handle) {
  const array_entry *e = live(handle);
  return e ? e->blocks : NULL;
}

void parray_mpi_destroy(int handle) {
  if (!rmpi_can_command("#destroy of a distributed array")) return;
  if (!rmpi_lookup(handle, NULL, NULL, NULL)) {
    parray_set_error("#destroy: %d is not a live distributed array", handle);
    return;
  }
  if (send_command(RMPI_CMD_DESTROY, 0, handle, 0, NULL, 0) != PARRAY_OK) {
    /* The others did not hear of it: nothing can be consistent any more. */
    rmpi_fatal();
  }
  rmpi_run_destroy(handle);
}

/* ---- start and end (called by mpi_main.c) -------------------------------- */

void rmpi_start(const parray_mpi_program *prog, bool own_init) {
  st.own_init = own_init;
  parray_set_fatal_hook(abort_hook);
  st.comm = MPI_COMM_NULL;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &st.comm) != MPI_SUCCESS) {
    fprintf(stderr, "parray: error: MPI_Comm_dup failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm_set_errhandler(st.comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(st.comm, &st.rank);
  MPI_Comm_size(st.comm, &st.size);
  find_node_rank();
  st.prog = prog;
  st.body_comm = MPI_COMM_NULL;
  st.comms = malloc(((size_t)st.size + 1) * sizeof *st.comms);
  st.comm_made = calloc((size_t)st.size + 1, sizeof *st.comm_made);
  if (!st.comms || !st.comm_made) {
    fprintf(stderr, "parray: error: process %d: out of memory at start\n", st.rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int n = 0; n <= st.size; n++) st.comms[n] = MPI_COMM_NULL;
  st.up = true;
}

void rmpi_set_mainhost(bool on) { st.mainhost = on; }

bool rmpi_leave_mainhost(void) {
  if (!st.up || st.rank != 0 || !st.mainhost) return false;
  st.mainhost = false;
  if (st.in_body) {
    fprintf(stderr, "parray: error: exit() inside an mpi detour body on process 0\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return true;
}

void rmpi_end(void) {
  for (int h = 0; h < st.narrays; h++) rmpi_run_destroy(h);
  free(st.arrays);
  st.arrays = NULL;
  st.narrays = 0;
  for (int n = 1; n <= st.size; n++)
    if (st.comm_made && st.comm_made[n] && st.comms[n] != MPI_COMM_NULL) MPI_Comm_free(&st.comms[n]);
  free(st.comms);
  free(st.comm_made);
  st.comms = NULL;
  st.comm_made = NULL;
  if (st.comm != MPI_COMM_NULL) MPI_Comm_free(&st.comm);
  st.up = false;
  parray_set_fatal_hook(NULL);
  if (st.own_init) MPI_Finalize();
}
