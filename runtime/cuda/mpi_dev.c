/* mpi_dev.c - distributed device arrays: a dmem type with a dimension over an
 * mpi thread array gives each process its block in the memory of its own GPU
 * (the GPU INIT_GPU selected on that process, else local rank mod the node's
 * GPU count, chosen once per process at the first use). Built only on top of the public MPI runtime (parray/mpi.h):
 * each process's record {device pointer, bytes} lives in a small host
 * distributed array, and the work every process must do (allocate, free,
 * copy between its device block and a host staging block) runs as the
 * runtime's own detour body parray_mpi_dev_service, which the translator
 * puts in the program's body table. Library parray_mpi_cuda (docs/cuda.md). */
#include "parray/mpi.h"

#include <cuda_runtime_api.h>
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

enum { OP_ALLOC = 1, OP_FREE, OP_D2H, OP_H2D };

/* the detour context of a service call: values only (it is copied to every
 * process); the .pc site travels as text so that any process can name it */
typedef struct service_ctx {
  int32_t op, handle, other, line;
  int64_t bytes;
  char file[128];
  char what[176];
} service_ctx;

static int chosen_gpu = -1;

/* parray_cuda's INIT_GPU record (weak: the emulated tests link no parray_cuda) */
#if defined(__GNUC__)
extern int parray_cuda_init_gpu_choice(void) __attribute__((weak));
#else
extern int parray_cuda_init_gpu_choice(void);
#endif

/* the process's rank among the processes of its node */
static int local_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) return atoi(v);
  }
  return parray_mpi_rank();
}

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
  int g = local_rank() % count;
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

void parray_mpi_dev_service(void *vctx, parray_int64_t tid) {
  const service_ctx *c = (const service_ctx *)vctx;
  (void)tid;
  dev_block *r = (dev_block *)parray_mpi_local(c->handle);
  if (!r) return;
  int g = select_gpu(c);
  switch (c->op) {
  case OP_ALLOC: {
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, c->bytes ? (size_t)c->bytes : 1);
    if (e != cudaSuccess)
      parray_fatal_at(c->file, c->line, c->what, "process %d cannot allocate its block of %lld bytes on GPU %d: %s",
                      parray_mpi_rank(), (long long)c->bytes, g, cudaGetErrorString(e));
    *r = (dev_block){p, (size_t)c->bytes, r->nprocs, g};
    break;
  }
  case OP_FREE:
    if (r->dev) check(cudaFree(r->dev), c, "cudaFree");
    r->dev = NULL;
    break;
  case OP_D2H:
  case OP_H2D: {
    void *h = parray_mpi_local(c->other);
    if (!h) return;
    if (c->op == OP_D2H) check(cudaMemcpy(h, r->dev, r->bytes, cudaMemcpyDeviceToHost), c, "cudaMemcpy");
    else check(cudaMemcpy(r->dev, h, r->bytes, cudaMemcpyHostToDevice), c, "cudaMemcpy");
    break;
  }
  }
}

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
  if (parray_mpi_detour(service, &c, sizeof c, r->nprocs) != PARRAY_OK)
    parray_fatal_at(file, line, what, "%s", parray_last_error());
  parray_mpi_destroy(handle);
}

/* a host staging copy of a device side (its handle becomes the stage's) */
static int stage(int service, int handle, bool load, const char *file, int line, const char *what) {
  const dev_block *r = (const dev_block *)parray_mpi_local(handle);
  if (!r) {
    parray_set_error("#copy: %d is not a live distributed dmem array", handle);
    return -1;
  }
  int s = parray_mpi_create(r->bytes, r->nprocs);
  if (s < 0) return -1;
  if (load) {
    service_ctx c = make_ctx(OP_D2H, handle, file, line, what);
    c.other = s;
    if (parray_mpi_detour(service, &c, sizeof c, r->nprocs) != PARRAY_OK) {
      parray_mpi_destroy(s);
      return -1;
    }
  }
  return s;
}

parray_status parray_mpi_copy_dev(int service, int dst_dev, int src_dev, const parray_mpi_side *dst,
                                  const parray_mpi_side *src, const parray_int64_t *shape, int nmodes,
                                  parray_size_t elem_size, const char *file, int line, const char *what) {
  if (dst_dev && src_dev && dst->handle == src->handle) {
    parray_set_error("#copy from a distributed array into itself");
    return PARRAY_ERR_UNSUPPORTED;
  }
  parray_mpi_side d = *dst, s = *src;
  int sd = -1, ss = -1;
  /* the destination is loaded too: the copy may write only part of it */
  if (dst_dev && (sd = stage(service, dst->handle, true, file, line, what)) < 0) return PARRAY_ERR_ALLOC;
  if (src_dev && (ss = stage(service, src->handle, true, file, line, what)) < 0) {
    if (sd >= 0) parray_mpi_destroy(sd);
    return PARRAY_ERR_ALLOC;
  }
  if (dst_dev) d.handle = sd;
  if (src_dev) s.handle = ss;
  parray_status st = parray_mpi_copy(&d, &s, shape, nmodes, elem_size);
  if (st == PARRAY_OK && dst_dev) {
    const dev_block *r = (const dev_block *)parray_mpi_local(dst->handle);
    service_ctx c = make_ctx(OP_H2D, dst->handle, file, line, what);
    c.other = sd;
    st = parray_mpi_detour(service, &c, sizeof c, r->nprocs);
  }
  if (sd >= 0) parray_mpi_destroy(sd);
  if (ss >= 0) parray_mpi_destroy(ss);
  return st;
}
