/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_dev.c - distributed device arrays: a dmem type with a dimension over an
 * mpi thread array gives each process its block in the memory of its own GPU
 * (the GPU INIT_GPU selected on that process, else local rank mod the node's
 * GPU count, chosen once per process at the first use). Built only on top of
 * the public MPI runtime (parray/mpi.h): each process's record {device
 * pointer, bytes} lives in a small host distributed array, and the work
 * every process must do (allocate, free, copy) runs as the runtime's own
 * detour body parray_mpi_dev_service, which the translator puts in the
 * program's body table. A #copy runs the MPI runtime's copy engine over the
 * GPU's memory as this file describes it (a parray_mpi_memory: packing
 * kernels, two streams, events, device scratch and pinned host buffers kept
 * while a distributed dmem array lives), with NCCL as its transport
 * (mpi_nccl.c) and the peers' blocks of the same node mapped for the direct
 * path (mpi_peers.c). PARRAY_MPI_TRANSPORT=nccl|direct|staged forces one
 * path; PARRAY_MPI_TRACE=1 prints the path of every pair of processes.
 * Library parray_mpi_cuda (docs/cuda.md, docs/mpi_runtime.md). */
#include "mpi_dev_impl.h"
#include "parray/permute.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what a process holds for each distributed device array */
typedef struct dev_block {
  void *dev;      /* its block in device memory */
  size_t bytes;   /* the block's size */
  int64_t nprocs; /* processes holding a block */
  int gpu;        /* the GPU it lives on */
} dev_block;

enum { OP_ALLOC = 1, OP_FREE, OP_COPY, OP_SPLIT };

/* the detour context of a service call: values only (it is copied to every
 * process); the .pc site travels as text so that any process can name it */
typedef struct service_ctx {
  int32_t op, handle, line;
  int64_t bytes;
  char file[128];
  char what[176];
  /* OP_COPY, OP_SPLIT: the described copy (a split one's in the longer
   * description) and its sides (handle < 0: process 0's buffer, whose
   * address is meaningful on process 0 only) */
  int32_t nwords, dst_h, src_h, dst_dev, src_dev, path, trace;
  uint64_t dst_ptr, src_ptr;
  int64_t chunk;
  parray_int64_t words[PARRAY_MPI_SPLIT_DESC_WORDS];
} service_ctx;
_Static_assert(PARRAY_MPI_SPLIT_DESC_WORDS >= PARRAY_MPI_COPY_DESC_WORDS, "room for both descriptions");

/* Bytes per message piece of a copy (PARRAY_MPI_COPY_PIECE overrides). */
#define PIECE_BYTES ((int64_t)8 << 20)

static int chosen_gpu = -1;

/* parray_cuda's INIT_GPU record, its wait for the detours this thread
 * launched without one, which names them if a kernel failed, and its record
 * of which GPU each block lives on, which a cuda detour's launch checks
 * (weak: the emulated tests link no parray_cuda) */
#if defined(__GNUC__)
#define PDEV_WEAK __attribute__((weak))
#else
#define PDEV_WEAK
#endif
extern int parray_cuda_init_gpu_choice(void) PDEV_WEAK;
extern void parray_cuda_wait_pending(const char *file, int line, const char *what) PDEV_WEAK;
extern void parray_cuda_home_add(const void *p, size_t bytes, int gpu) PDEV_WEAK;
extern void parray_cuda_home_remove(const void *p) PDEV_WEAK;

/* this process's GPU: the one INIT_GPU selected, or else local rank mod the
 * GPU count, chosen once */
static int select_gpu(const service_ctx *c) {
  int user = parray_cuda_init_gpu_choice ? parray_cuda_init_gpu_choice() : -1;
  if (user >= 0) return chosen_gpu = user; /* INIT_GPU made it current */
  if (chosen_gpu >= 0) return chosen_gpu;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    parray_fatal_at(c->file, c->line, c->what, "process %d: no CUDA device is available for a distributed dmem "
                    "array (%s)", parray_mpi_rank(), e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
  int g = parray_mpi_node_rank() % count;
  e = cudaSetDevice(g);
  if (e != cudaSuccess)
    parray_fatal_at(c->file, c->line, c->what, "process %d: cudaSetDevice(%d) failed: %s", parray_mpi_rank(), g,
                    cudaGetErrorString(e));
  chosen_gpu = g;
  return g;
}

static void check(cudaError_t e, const service_ctx *c, const char *call) {
  if (e != cudaSuccess)
    parray_fatal_at(c->file, c->line, c->what, "process %d: %s failed: %s", parray_mpi_rank(), call,
                    cudaGetErrorString(e));
}

/* ---- the GPU's memory as the copy engine uses it ---------------------------- */

/* This process's streams, events and buffers, kept while a distributed dmem
 * array lives on it. */
/* Streams of the direct path: copies on several streams keep several of
 * the GPU's copy engines busy at once. */
#define PEER_STREAMS 4

static struct {
  int live;                /* distributed dmem arrays alive here */
  bool lanes_made;
  cudaStream_t lane[2];    /* 0: what is sent, 1: what is received */
  cudaEvent_t sent;        /* the exchange's wait for lane 0 */
  cudaEvent_t before;      /* a copy's wait for the program's work */
  cudaStream_t peer[PEER_STREAMS]; /* the direct path's writes */
  cudaEvent_t fence[PEER_STREAMS];  /* the ends of a round of them */
  cudaEvent_t *ev;         /* marks, reused from one copy to the next */
  int64_t nev, used;
  struct {
    void *p;
    size_t bytes;
  } buf[4],                /* 0, 1: device scratch; 2, 3: pinned host */
      idx[2];              /* per lane: the offsets of a copy by a list */
  const service_ctx *c;    /* the copy running: its .pc site */
} mem;

static parray_status cuda_fail(cudaError_t e, const char *call) {
  parray_set_error("process %d: %s failed: %s", parray_mpi_rank(), call, cudaGetErrorString(e));
  return PARRAY_ERR_CUDA;
}

static parray_status make_lanes(void) {
  if (mem.lanes_made) return PARRAY_OK;
  select_gpu(mem.c);
  for (int l = 0; l < 2; l++) {
    /* blocking streams: they wait for work the program left on the legacy
     * default stream */
    cudaError_t e = cudaStreamCreateWithFlags(&mem.lane[l], cudaStreamDefault);
    if (e != cudaSuccess) return cuda_fail(e, "cudaStreamCreateWithFlags");
  }
  for (int l = 0; l < PEER_STREAMS; l++) {
    cudaError_t e = cudaStreamCreateWithFlags(&mem.peer[l], cudaStreamDefault);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&mem.fence[l], cudaEventDisableTiming);
    if (e != cudaSuccess) return cuda_fail(e, "cudaStreamCreateWithFlags/cudaEventCreateWithFlags");
  }
  cudaError_t e = cudaEventCreateWithFlags(&mem.sent, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&mem.before, cudaEventDisableTiming);
  if (e != cudaSuccess) return cuda_fail(e, "cudaEventCreateWithFlags");
  mem.lanes_made = true;
  return PARRAY_OK;
}

static void *mem_buffer(void *ctx, int which, size_t bytes) {
  (void)ctx;
  if (mem.buf[which].bytes >= bytes) return mem.buf[which].p;
  if (make_lanes() != PARRAY_OK) return NULL;
  if (mem.buf[which].p) {
    if (which < 2) cudaFree(mem.buf[which].p);
    else cudaFreeHost(mem.buf[which].p);
  }
  mem.buf[which].p = NULL, mem.buf[which].bytes = 0;
  void *p = NULL;
  cudaError_t e = which < 2 ? cudaMalloc(&p, bytes) : cudaMallocHost(&p, bytes);
  if (e != cudaSuccess) {
    cuda_fail(e, which < 2 ? "cudaMalloc (copy scratch)" : "cudaMallocHost (copy staging)");
    return NULL;
  }
  mem.buf[which].p = p, mem.buf[which].bytes = bytes;
  return p;
}

/* A direct-path copy to or from another GPU's block: pitched rows of 512
 * bytes and more go to the GPU's copy engines (cudaMemcpy2DAsync), which
 * move them over NVLink faster than a kernel's remote stores; others run
 * the copy kernels. PARRAY_MPI_DIRECT_ENGINE=kernel keeps every copy on
 * the kernels. */
#define DIRECT_OPTS 1 /* copy_strided.cu's OPT_MEMCPY2D */
extern parray_status parray__copy_strided_cuda_opts(void *dst, const int64_t *dst_stride, const void *src,
                                                    const int64_t *src_stride, const int64_t *shape, int ndim,
                                                    size_t elem_size, int opts, cudaStream_t s) PDEV_WEAK;

static parray_status strided(void *dst, const int64_t *ds, const void *src, const int64_t *ss, const int64_t *shape,
                             int n, size_t unit, cudaStream_t s, bool peer) {
  static int engines = -1; /* copy engines for the direct path: 1 yes, 0 no */
  if (engines < 0) {
    const char *v = getenv("PARRAY_MPI_DIRECT_ENGINE");
    engines = !v || strcmp(v, "kernel") != 0;
  }
  if (peer && engines && parray__copy_strided_cuda_opts)
    return parray__copy_strided_cuda_opts(dst, ds, src, ss, shape, n, unit, DIRECT_OPTS, s);
  return parray_copy_strided_cuda(dst, ds, src, ss, shape, n, unit, s);
}

/* the device copy engine takes elements of 1 to 16 bytes: larger ones are
 * moved as an inner mode of smaller units */
static parray_status mem_copy(void *ctx, int lane, void *dst, const int64_t *ds, const void *src, const int64_t *ss,
                              const int64_t *shape, int n, size_t es) {
  (void)ctx;
  parray_status st = make_lanes();
  if (st != PARRAY_OK) return st;
  int64_t d2[17], s2[17], sh[17];
  size_t unit = es;
  if (es > 16)
    for (unit = 16; es % unit; unit /= 2) {}
  int64_t k = (int64_t)(es / unit);
  if (n + (k > 1) > 16) {
    parray_set_error("#copy: %d modes of %zu-byte elements are beyond the device copy engine", n, es);
    return PARRAY_ERR_UNSUPPORTED;
  }
  for (int i = 0; i < n; i++) d2[i] = ds[i] * k, s2[i] = ss[i] * k, sh[i] = shape[i];
  if (k > 1) d2[n] = s2[n] = 1, sh[n] = k, n++;
  return strided(dst, d2, src, s2, sh, n, unit, lane < 0 ? mem.peer[-1 - lane] : mem.lane[lane], lane < 0);
}

/* copies by a list of offsets: the list goes to the lane's own device
 * buffer (kept with the scratch), then the kernel runs on the lane */
extern parray_status parray__copy_gather_cuda(void *dst, const void *src, const int64_t *idx, int64_t n, size_t es,
                                              cudaStream_t s);
extern parray_status parray__copy_scatter_cuda(void *dst, const int64_t *idx, const void *src, int64_t n, size_t es,
                                               cudaStream_t s);

static parray_status mem_indexed(int lane, void *dst, const void *src, const int64_t *idx, int64_t n, size_t es,
                                 bool scatter) {
  parray_status st = make_lanes();
  if (st != PARRAY_OK || n <= 0) return st;
  size_t bytes = (size_t)n * sizeof *idx;
  if (mem.idx[lane].bytes < bytes) {
    if (mem.idx[lane].p) cudaFree(mem.idx[lane].p);
    mem.idx[lane].p = NULL, mem.idx[lane].bytes = 0;
    cudaError_t e = cudaMalloc(&mem.idx[lane].p, bytes);
    if (e != cudaSuccess) return cuda_fail(e, "cudaMalloc (a copy's offsets)");
    mem.idx[lane].bytes = bytes;
  }
  /* from pageable memory: the list is read before the call returns */
  cudaError_t e = cudaMemcpyAsync(mem.idx[lane].p, idx, bytes, cudaMemcpyHostToDevice, mem.lane[lane]);
  if (e != cudaSuccess) return cuda_fail(e, "cudaMemcpyAsync (a copy's offsets)");
  const int64_t *di = (const int64_t *)mem.idx[lane].p;
  return scatter ? parray__copy_scatter_cuda(dst, di, src, n, es, mem.lane[lane])
                 : parray__copy_gather_cuda(dst, src, di, n, es, mem.lane[lane]);
}

static parray_status mem_gather(void *ctx, int lane, void *dst, const void *src, const int64_t *idx, int64_t n,
                                size_t es) {
  (void)ctx;
  return mem_indexed(lane, dst, src, idx, n, es, false);
}

static parray_status mem_scatter(void *ctx, int lane, void *dst, const int64_t *idx, const void *src, int64_t n,
                                 size_t es) {
  (void)ctx;
  return mem_indexed(lane, dst, src, idx, n, es, true);
}

/* the direct path's round is over: every peer stream waits for all of them */
static parray_status mem_peer_fence(void *ctx) {
  (void)ctx;
  parray_status st = make_lanes();
  if (st != PARRAY_OK) return st;
  for (int l = 0; l < PEER_STREAMS; l++) {
    cudaError_t e = cudaEventRecord(mem.fence[l], mem.peer[l]);
    for (int j = 0; e == cudaSuccess && j < PEER_STREAMS; j++)
      if (j != l) e = cudaStreamWaitEvent(mem.peer[j], mem.fence[l], 0);
    if (e != cudaSuccess) return cuda_fail(e, "cudaEventRecord/cudaStreamWaitEvent (between the direct rounds)");
  }
  return PARRAY_OK;
}

/* a direct-path copy, on the peer stream of its slot */
static parray_status mem_copy_peer(void *ctx, int slot, void *dst, const int64_t *ds, const void *src,
                                   const int64_t *ss, const int64_t *shape, int n, size_t es) {
  return mem_copy(ctx, -1 - (int)((unsigned)slot % PEER_STREAMS), dst, ds, src, ss, shape, n, es);
}

static parray_status mem_to_host(void *ctx, int lane, void *host, const void *p, size_t bytes) {
  (void)ctx;
  parray_status st = make_lanes();
  if (st != PARRAY_OK) return st;
  cudaError_t e = cudaMemcpyAsync(host, p, bytes, cudaMemcpyDeviceToHost, mem.lane[lane]);
  return e == cudaSuccess ? PARRAY_OK : cuda_fail(e, "cudaMemcpyAsync (device to host)");
}

static parray_status mem_from_host(void *ctx, int lane, void *p, const void *host, size_t bytes) {
  (void)ctx;
  parray_status st = make_lanes();
  if (st != PARRAY_OK) return st;
  cudaError_t e = cudaMemcpyAsync(p, host, bytes, cudaMemcpyHostToDevice, mem.lane[lane]);
  return e == cudaSuccess ? PARRAY_OK : cuda_fail(e, "cudaMemcpyAsync (host to device)");
}

static parray_status mem_mark(void *ctx, int lane, int64_t *ticket) {
  (void)ctx;
  parray_status st = make_lanes();
  if (st != PARRAY_OK) return st;
  if (mem.used == mem.nev) {
    int64_t n = mem.nev ? 2 * mem.nev : 64;
    cudaEvent_t *ev = realloc(mem.ev, (size_t)n * sizeof *ev);
    if (!ev) {
      parray_set_error("#copy: out of memory for %lld events", (long long)n);
      return PARRAY_ERR_ALLOC;
    }
    mem.ev = ev;
    for (; mem.nev < n; mem.nev++) {
      cudaError_t e = cudaEventCreateWithFlags(&mem.ev[mem.nev], cudaEventDisableTiming);
      if (e != cudaSuccess) return cuda_fail(e, "cudaEventCreateWithFlags");
    }
  }
  cudaError_t e = cudaEventRecord(mem.ev[mem.used], mem.lane[lane]);
  if (e != cudaSuccess) return cuda_fail(e, "cudaEventRecord");
  *ticket = mem.used++;
  return PARRAY_OK;
}

static int mem_reached(void *ctx, int64_t ticket) {
  (void)ctx;
  cudaError_t e = cudaEventQuery(mem.ev[ticket]);
  if (e == cudaSuccess) return 1;
  if (e == cudaErrorNotReady) return 0;
  cuda_fail(e, "a copy on the GPU");
  return -1;
}

static parray_status mem_finish(void *ctx) {
  (void)ctx;
  mem.used = 0;
  for (int l = 0; mem.lanes_made && l < 2 + PEER_STREAMS; l++) {
    cudaError_t e = cudaStreamSynchronize(l < 2 ? mem.lane[l] : mem.peer[l - 2]);
    if (e != cudaSuccess) return cuda_fail(e, "a copy on the GPU");
  }
  return PARRAY_OK;
}

/* the last distributed dmem array of this process is gone: so are the
 * buffers, events and streams */
static void mem_release(void) {
  for (int w = 0; w < 4; w++) {
    if (mem.buf[w].p) {
      if (w < 2) cudaFree(mem.buf[w].p);
      else cudaFreeHost(mem.buf[w].p);
    }
    mem.buf[w].p = NULL, mem.buf[w].bytes = 0;
  }
  for (int l = 0; l < 2; l++) {
    if (mem.idx[l].p) cudaFree(mem.idx[l].p);
    mem.idx[l].p = NULL, mem.idx[l].bytes = 0;
  }
  for (int64_t i = 0; i < mem.nev; i++) cudaEventDestroy(mem.ev[i]);
  free(mem.ev);
  mem.ev = NULL, mem.nev = mem.used = 0;
  for (int l = 0; mem.lanes_made && l < 2; l++) cudaStreamDestroy(mem.lane[l]);
  for (int l = 0; mem.lanes_made && l < PEER_STREAMS; l++) cudaStreamDestroy(mem.peer[l]), cudaEventDestroy(mem.fence[l]);
  if (mem.lanes_made) cudaEventDestroy(mem.sent), cudaEventDestroy(mem.before);
  mem.lanes_made = false;
}

/* MPI reads and writes device memory: PARRAY_MPI_CUDA_AWARE=0/1 decides,
 * else Open MPI's report at run time */
static int mpi_reaches_gpu(void) {
  const char *v = getenv("PARRAY_MPI_CUDA_AWARE");
  if (v && (*v == '0' || *v == '1')) return *v == '1';
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

/* NCCL's group on lane 1, after what lane 0 was given (the packs) */
static parray_status mem_exchange(void *ctx, const parray_mpi_message *msgs, int n) {
  (void)ctx;
  parray_status st = make_lanes();
  if (st != PARRAY_OK) return st;
  cudaError_t e = cudaEventRecord(mem.sent, mem.lane[0]);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(mem.lane[1], mem.sent, 0);
  if (e != cudaSuccess) return cuda_fail(e, "cudaEventRecord/cudaStreamWaitEvent (before NCCL)");
  return pdev_nccl_exchange(mem.lane[1], msgs, n);
}

static parray_mpi_memory gpu_memory(void) {
  return (parray_mpi_memory){.ctx = NULL, .mpi_direct = mpi_reaches_gpu(), .buffer = mem_buffer, .copy = mem_copy,
                             .to_host = mem_to_host, .from_host = mem_from_host, .mark = mem_mark,
                             .reached = mem_reached, .finish = mem_finish,
                             .exchange = pdev_nccl_available() ? mem_exchange : NULL,
                             .copy_peer = mem_copy_peer, .peer_fence = mem_peer_fence,
                             .gather = mem_gather, .scatter = mem_scatter};
}

/* ---- the service: what every process does ----------------------------------- */

/* this process's memory of one side of a copy (NULL where it has none) */
static void *side_mem(int32_t h, int32_t dev, uint64_t ptr) {
  if (h < 0) return parray_mpi_rank() == 0 ? (void *)(uintptr_t)ptr : NULL;
  if (!dev) return parray_mpi_local(h);
  const dev_block *r = (const dev_block *)parray_mpi_local(h);
  return r ? r->dev : NULL;
}

/* PARRAY_MPI_TRACE=1: the path of every pair of this process, one line:
 * "direct with 1,2; nccl with 3; own part" */
static void trace(const service_ctx *c, const int *used) {
  static const char *const names[] = {"", "staged with ", "nccl with ", "direct with ", "own part"};
  static const int order[] = {PARRAY_MPI_PATH_DIRECT, PARRAY_MPI_PATH_EXCHANGE, PARRAY_MPI_PATH_STAGED,
                              PARRAY_MPI_PATH_LOCAL};
  char line[1024] = "";
  size_t n = 0;
  for (int i = 0; i < 4; i++) {
    int k = order[i];
    const char *sep = n ? "; " : "";
    for (int q = 0; q < parray_mpi_size() && n < sizeof line - 32; q++) {
      if (used[q] != k) continue;
      if (k == 4) n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", sep, names[k]);
      else n += (size_t)snprintf(line + n, sizeof line - n, "%s%s%d", sep, *sep == ',' ? "" : names[k], q);
      sep = ",";
    }
  }
  fprintf(stderr, "%s:%d: note: #copy on process %d: %s\n", c->file, c->line, parray_mpi_rank(), n ? line : "nothing");
  fflush(stderr);
}

/* per process, its block of a distributed dmem side as this process
 * reaches it (NULL: not a distributed dmem side) */
static void *const *side_peers(int32_t h, int32_t dev, void *mine, const service_ctx *c) {
  if (h < 0 || !dev || c->op == OP_SPLIT || c->path == PARRAY_MPI_PATH_STAGED || c->path == PARRAY_MPI_PATH_EXCHANGE) return NULL;
  void *const *p = pdev_peers(h, mine, chosen_gpu);
  if (!p) parray_fatal_at(c->file, c->line, c->what, "%s", parray_last_error());
  return p;
}

/* NCCL takes one GPU per process: in a job with more processes than GPUs
 * it cannot form a communicator (and some processes would wait in
 * ncclCommInitRank for ever), so every process tells the others its GPU at
 * the first copy, which all of them serve, and the pairs that would have
 * taken NCCL go staged. */
static void check_gpus(const service_ctx *c) {
  static bool checked;
  if (checked) return;
  checked = true;
  char why[256];
  if (pdev_gpus_shared(select_gpu(c), why, sizeof why)) pdev_nccl_forbid(why);
}

static void serve_copy(const service_ctx *c) {
  void *dst = side_mem(c->dst_h, c->dst_dev, c->dst_ptr), *src = side_mem(c->src_h, c->src_dev, c->src_ptr);
  mem.c = c;
  if (c->dst_dev || c->src_dev) {
    /* every process takes part (NCCL's communicator, the IPC handles) on
     * its GPU; the copy sees what the program did before it on the legacy
     * default stream and on blocking streams, still running or not (a
     * cudaMemcpy from pageable memory may return before its transfer ends):
     * an event recorded on the legacy stream waits for all of it. Work on a
     * non-blocking stream goes on during the copy: a program overlaps its
     * own kernels with a copy that way (docs/cuda.md). */
    select_gpu(c);
    if (parray_cuda_wait_pending) parray_cuda_wait_pending(c->file, c->line, c->what); /* names them */
    parray_status ls = make_lanes();
    if (ls != PARRAY_OK) parray_fatal_at(c->file, c->line, c->what, "%s", parray_last_error());
    check(cudaEventRecord(mem.before, cudaStreamLegacy), c, "cudaEventRecord (before a #copy)");
    check(cudaEventSynchronize(mem.before), c, "cudaEventSynchronize (before a #copy)");
    check_gpus(c);
  }
  parray_mpi_memory gpu = gpu_memory();
  if (c->path == PARRAY_MPI_PATH_EXCHANGE && (c->dst_dev || c->src_dev) && !pdev_nccl_available())
    parray_fatal_at(c->file, c->line, c->what, "process %d: the NCCL transport was asked for "
                    "(PARRAY_MPI_TRANSPORT=nccl), but %s", parray_mpi_rank(), pdev_nccl_why());
  int *used = c->trace ? calloc((size_t)parray_mpi_size(), sizeof *used) : NULL;
  parray_mpi_copy_run run = {.dst = dst, .src = src, .dmem = c->dst_dev ? &gpu : NULL, .smem = c->src_dev ? &gpu : NULL,
                             .dst_peers = side_peers(c->dst_h, c->dst_dev, dst, c),
                             .src_peers = (const void *const *)side_peers(c->src_h, c->src_dev, src, c),
                             .chunk_bytes = c->chunk, .path = c->path, .used = used};
  parray_status st = c->op == OP_SPLIT ? parray_mpi_copy_split_execute(c->words, c->nwords, &run)
                                       : parray_mpi_copy_execute(c->words, c->nwords, &run);
  mem.c = NULL;
  if (st != PARRAY_OK) parray_fatal_at(c->file, c->line, c->what, "%s", parray_last_error());
  if (used) trace(c, used);
  free(used);
}

static void serve_block(const service_ctx *c, dev_block *r) {
  int g = select_gpu(c);
  switch (c->op) {
  case OP_ALLOC: {
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, c->bytes ? (size_t)c->bytes : 1);
    if (e != cudaSuccess)
      parray_fatal_at(c->file, c->line, c->what, "process %d cannot allocate its block of %lld bytes on GPU %d: %s",
                      parray_mpi_rank(), (long long)c->bytes, g, cudaGetErrorString(e));
    *r = (dev_block){p, (size_t)c->bytes, r->nprocs, g};
    if (parray_cuda_home_add) parray_cuda_home_add(p, (size_t)c->bytes, g);
    mem.live++;
    break;
  }
  case OP_FREE:
    if (r->dev) {
      if (parray_cuda_home_remove) parray_cuda_home_remove(r->dev);
      check(cudaFree(r->dev), c, "cudaFree");
    }
    r->dev = NULL;
    if (--mem.live == 0) mem_release();
    break;
  }
}

void parray_mpi_dev_service(void *vctx, parray_int64_t tid) {
  const service_ctx *c = (const service_ctx *)vctx;
  (void)tid;
  if (c->op == OP_COPY || c->op == OP_SPLIT) {
    serve_copy(c);
    return;
  }
  if (c->op == OP_FREE) {
    /* every process of the job: its mappings of the blocks are closed
     * before any block is freed */
    pdev_peers_forget(c->handle);
    MPI_Comm comm = pdev_comm();
    if (comm == MPI_COMM_NULL || MPI_Barrier(comm) != MPI_SUCCESS)
      parray_fatal_at(c->file, c->line, c->what, "process %d: the barrier before freeing the blocks failed",
                      parray_mpi_rank());
  }
  dev_block *r = (dev_block *)parray_mpi_local(c->handle);
  if (r) serve_block(c, r);
}

/* ---- process 0 ------------------------------------------------------------- */

static service_ctx make_ctx(int op, int handle, const char *file, int line, const char *what) {
  service_ctx c = {.op = op, .handle = handle, .line = line};
  snprintf(c.file, sizeof c.file, "%s", file ? file : "?");
  snprintf(c.what, sizeof c.what, "%s", what ? what : "");
  return c;
}

int parray_mpi_create_dev(int service, parray_size_t local_bytes, parray_int64_t nprocs, const char *file, int line,
                          const char *what) {
  int h = parray_mpi_create(sizeof(dev_block), nprocs);
  if (h < 0) return -1;
  /* every process's record starts empty; process 0 knows the process count,
   * which its OP_ALLOC keeps */
  dev_block *r0 = (dev_block *)parray_mpi_local(h);
  r0->nprocs = nprocs;
  service_ctx c = make_ctx(OP_ALLOC, h, file, line, what);
  c.bytes = (int64_t)local_bytes;
  if (parray_mpi_detour(service, &c, sizeof c, nprocs) != PARRAY_OK) {
    parray_mpi_destroy(h);
    return -1;
  }
  return h;
}

void *parray_mpi_dev_local(int handle) {
  const dev_block *r = (const dev_block *)parray_mpi_local(handle);
  if (!r) return NULL;
  if (chosen_gpu >= 0) cudaSetDevice(chosen_gpu); /* a kernel of this process runs on its GPU */
  return r->dev;
}

void parray_mpi_destroy_dev(int service, int handle, const char *file, int line, const char *what) {
  const dev_block *r = (const dev_block *)parray_mpi_local(handle);
  if (!r) return;
  service_ctx c = make_ctx(OP_FREE, handle, file, line, what);
  if (parray_mpi_detour(service, &c, sizeof c, parray_mpi_size()) != PARRAY_OK)
    parray_fatal_at(file, line, what, "%s", parray_last_error());
  parray_mpi_destroy(handle);
}

/* process 0's record of a distributed dmem array (NULL: not one) */
static const dev_block *record(int handle) {
  const dev_block *r = handle >= 0 ? (const dev_block *)parray_mpi_local(handle) : NULL;
  if (!r && handle >= 0) parray_set_error("#copy: %d is not a live distributed dmem array", handle);
  return r;
}

/* PARRAY_MPI_TRANSPORT: the path every pair must take (unset or "auto":
 * chosen per pair) */
static parray_status transport_path(int32_t *path) {
  static const struct {
    const char *name;
    int path;
  } t[] = {{"auto", PARRAY_MPI_PATH_NONE}, {"nccl", PARRAY_MPI_PATH_EXCHANGE}, {"direct", PARRAY_MPI_PATH_DIRECT},
           {"staged", PARRAY_MPI_PATH_STAGED}};
  const char *v = getenv("PARRAY_MPI_TRANSPORT");
  *path = PARRAY_MPI_PATH_NONE;
  if (!v || !*v) return PARRAY_OK;
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(v, t[i].name)) {
      *path = t[i].path;
      return PARRAY_OK;
    }
  parray_set_error("PARRAY_MPI_TRANSPORT=%s: expected auto, nccl, direct or staged", v);
  return PARRAY_ERR_INVALID;
}

/* the copy's description, made by describe (0: a parray_mpi_copy, 1: a
 * split one) */
typedef struct copy_args {
  const parray_mpi_side *dst, *src;
  const int64_t *shape, *dshape, *sshape; /* shape for a copy, dshape/sshape for a split one */
  int nmodes, dn, sn;
  size_t es;
} copy_args;

/* Process 0: describe the copy, then run it on every process of the job
 * (the service's OP_COPY or OP_SPLIT) */
static parray_status submit(int service, int op, int dst_dev, int src_dev, const copy_args *a, const char *file,
                            int line, const char *what) {
  if (parray_cuda_wait_pending) parray_cuda_wait_pending(file, line, what); /* process 0's detours, named */
  if (!a->dst || !a->src) {
    parray_set_error("#copy: null side");
    return PARRAY_ERR_INVALID;
  }
  const parray_mpi_side *side[2] = {a->dst, a->src};
  int dev[2] = {dst_dev != 0, src_dev != 0};
  int64_t block[2] = {-1, -1};
  for (int k = 0; k < 2; k++) {
    if (!dev[k] || side[k]->handle < 0) continue;
    const dev_block *r = record(side[k]->handle);
    if (!r) return PARRAY_ERR_INVALID;
    block[k] = (int64_t)r->bytes;
  }
  service_ctx *c = calloc(1, sizeof *c);
  if (!c) {
    parray_set_error("#copy: out of memory");
    return PARRAY_ERR_ALLOC;
  }
  *c = make_ctx(op, -1, file, line, what);
  parray_status st = op == OP_SPLIT ? parray_mpi_copy_split_describe(a->dst, a->dshape, a->dn, a->src, a->sshape,
                                                                     a->sn, a->es, block, c->words, &c->nwords)
                                    : parray_mpi_copy_describe(a->dst, a->src, a->shape, a->nmodes, a->es, block,
                                                               c->words, &c->nwords);
  if (st == PARRAY_OK && c->nwords > 0) {
    c->dst_h = a->dst->handle < 0 ? -1 : a->dst->handle, c->src_h = a->src->handle < 0 ? -1 : a->src->handle;
    c->dst_dev = dev[0], c->src_dev = dev[1];
    c->dst_ptr = (uint64_t)(uintptr_t)a->dst->ptr, c->src_ptr = (uint64_t)(uintptr_t)a->src->ptr;
    const char *v = getenv("PARRAY_MPI_COPY_PIECE");
    c->chunk = v && atoll(v) > 0 ? atoll(v) : PIECE_BYTES;
    v = getenv("PARRAY_MPI_TRACE");
    c->trace = v && *v == '1';
    st = transport_path(&c->path);
    if (st == PARRAY_OK) st = parray_mpi_detour(service, c, sizeof *c, parray_mpi_size());
  }
  free(c);
  return st;
}

parray_status parray_mpi_copy_dev(int service, int dst_dev, int src_dev, const parray_mpi_side *dst,
                                  const parray_mpi_side *src, const parray_int64_t *shape, int nmodes,
                                  parray_size_t elem_size, const char *file, int line, const char *what) {
  copy_args a = {.dst = dst, .src = src, .shape = shape, .nmodes = nmodes, .es = elem_size};
  return submit(service, OP_COPY, dst_dev, src_dev, &a, file, line, what);
}

/* copies planned at run time: packed and unpacked on the GPUs by lists of
 * offsets, the messages over NCCL (else MPI) */
parray_status parray_mpi_copy_split_dev(int service, int dst_dev, int src_dev, const parray_mpi_side *dst,
                                        const parray_int64_t *dshape, int dn, const parray_mpi_side *src,
                                        const parray_int64_t *sshape, int sn, parray_size_t elem_size,
                                        const char *file, int line, const char *what) {
  copy_args a = {.dst = dst, .src = src, .dshape = dshape, .dn = dn, .sshape = sshape, .sn = sn, .es = elem_size};
  return submit(service, OP_SPLIT, dst_dev, src_dev, &a, file, line, what);
}
