/* SPDX-License-Identifier: Apache-2.0 */
/* parray/cuda.h - CUDA part of the runtime API: device selection (INIT_GPU),
 * checked allocation per memory kind, host/device copies between layouts,
 * launch checking, and the check that a kernel's pointer arguments do not
 * point into a block of another GPU. Needs the CUDA runtime headers;
 * generated .cu files include it through parray.h. */
#ifndef PARRAY_CUDA_H
#define PARRAY_CUDA_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "parray/core.h"

#ifdef __CUDACC__
#include <cooperative_groups.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Convert a CUDA error into a status, recording "what: message" as the last
 * error text. */
PARRAY_API parray_status parray_cuda_status(cudaError_t e, const char *what);
/* Number of CUDA devices, 0 when there is none or no driver. */
PARRAY_API int parray_cuda_device_count(void);

/* The functions below are called by generated code: on failure they print
 * "file.pc:LINE: error: ..." and end the program (parray_fatal_at). */

/* INIT_GPU(n): select GPU n for the calling thread or process. */
PARRAY_API void parray_cuda_init_gpu(int n, const char *file, int line);
/* The GPU the last INIT_GPU of this process selected; -1 when none did
 * (distributed dmem arrays then use local rank mod the GPU count). */
PARRAY_API int parray_cuda_init_gpu_choice(void);
#define INIT_GPU(n) parray_cuda_init_gpu((n), __FILE__, __LINE__)

/* The homes of device memory: the blocks of distributed dmem arrays that
 * this process holds, each on the GPU it lives on (runtime/cuda/mpi_dev.c
 * adds a block when the process allocates it, removes it before freeing
 * it). home_add of a pointer already registered replaces its record;
 * bytes 0 counts as 1; a NULL pointer is ignored. */
PARRAY_API void parray_cuda_home_add(const void *p, parray_size_t bytes, int gpu);
PARRAY_API void parray_cuda_home_remove(const void *p);
/* Before a cuda detour's launch, for each argument of a pointer parameter
 * (arg: the parameter's name): when p points into a registered home that
 * lives on a GPU other than the calling thread's current one, end the
 * program naming both GPUs (the kernel would fault on the block). NULL and
 * pointers outside every home pass; with no home registered it only reads
 * a counter. */
PARRAY_API void parray_cuda_check_home(const void *p, const char *arg, const char *file, int line, const char *what);

/* #create / #destroy of dmem (cudaMalloc) and, in CUDA programs, pinned
 * (cudaMallocHost) memory. */
PARRAY_API void *parray_cuda_create(parray_memkind kind, size_t bytes, const char *file, int line, const char *what);
PARRAY_API void parray_cuda_destroy(parray_memkind kind, void *p, const char *file, int line, const char *what);

/* #copy between contiguous layouts (host or device on either side). */
PARRAY_API void parray_cuda_memcpy(void *dst, const void *src, size_t bytes, const char *file, int line,
                                   const char *what);
/* #copy between any two layouts, host or device on either side: for every
 * index tuple < shape, dst[sum i*dstride] = src[sum i*sstride]. Uses
 * cudaMemcpy/cudaMemcpy2D where the layouts allow, otherwise a contiguous
 * staging buffer and the device copy engine (permute kernels). */
PARRAY_API void parray_cuda_copy(parray_memkind dkind, void *dst, const int64_t *dstride, parray_memkind skind,
                                 const void *src, const int64_t *sstride, const int64_t *shape, int ndim,
                                 size_t elem_size, const char *file, int line, const char *what);

/* Kernels and copies run in order on the default stream. After a kernel
 * launch that does not wait (a detour nothing on the host can observe before
 * the next wait): check the launch and record the detour for this host
 * thread's next wait, whose errors name the detours recorded since the last
 * one. With PARRAY_CUDA_WAIT=1 in the environment it waits, as
 * parray_cuda_check_launch. The first one registers a wait at program exit. */
PARRAY_API void parray_cuda_launched(const char *file, int line, const char *what);
/* After a kernel launch: check the launch and wait for the kernel. */
PARRAY_API void parray_cuda_check_launch(const char *file, int line, const char *what);
/* #sync in host code: wait for everything launched on the device. */
PARRAY_API void parray_cuda_wait(const char *file, int line, const char *what);
/* Wait when this thread launched detours that nothing has waited for yet
 * (the end of #mainhost; the runtime's copies and frees do it themselves). */
PARRAY_API void parray_cuda_wait_pending(const char *file, int line, const char *what);

/* Profiler ranges (NVTX v3, docs/cuda.md "Profiler ranges"). Generated code
 * of a CUDA program (unless translated with --no-nvtx) brackets the host
 * code of each #detour launch, #copy, #create, #destroy and #sync with
 * parray_range_push and parray_range_pop on a static parray_range of its
 * own, whose name pac wrote as "file.pc:LINE text" ({name, 0, 0, 0}). The
 * first push of a site registers the name in the NVTX domain "parray";
 * later pushes reuse the registered handle, so nothing is formatted or
 * copied per call. Without a tool attached, each is a few loads and an
 * untaken branch. */
typedef struct parray_range {
  const char *name; /* "gpu.pc:21 #copy H(ha) to M(a)" */
  void *domain;     /* the domain and the registered name, set by the runtime */
  void *handle;
  int ready;        /* 1 once they are set */
} parray_range;
PARRAY_API void parray_range_push(parray_range *r);
PARRAY_API void parray_range_pop(parray_range *r);

/* The tensor map of a bulk tensor copy (`#copy A(a) at(...) to S(s)
 * tma(bar)` in a cuda detour, docs/cuda.md): *map (a CUtensorMap, 64-byte
 * aligned) over the tensor at base with rank (1 to 5) dimensions of dims[k]
 * elements, strides[k] elements apart (strides[0] = 1), innermost first,
 * and boxes of box[k] elements; elements of 1, 2, 4 or 8 bytes, no swizzle,
 * zeros outside the tensor. Returns PARRAY_OK, or an error whose text
 * (parray_last_error) says which requirement of the tensor memory
 * accelerator failed. */
PARRAY_API parray_status parray_cuda_tensor_map_encode(void *map, const void *base, int elem_bytes, int rank,
                                                       const long long *dims, const long long *strides,
                                                       const int *box);
/* The CUDA driver's function name (version 12.0 of its interface) through
 * the CUDA runtime's entry points, looked up anew each call (callers keep
 * it), or NULL when the driver has none; libparray does not link libcuda.
 * The tensor maps above and the Hopper SGEMM find cuTensorMapEncodeTiled
 * this way. */
PARRAY_API void *parray_cuda_driver_entry(const char *name);
/* The same for generated code: a failure ends the program naming the #copy. */
PARRAY_API void parray_cuda_tensor_map(void *map, const void *base, int elem_bytes, int rank, const long long *dims,
                                       const long long *strides, const int *box, const char *file, int line,
                                       const char *what);

/* Before the launch of a kernel whose smem arrays take more than 48 KB of
 * dynamic shared memory: raise its limit to bytes, or end the program naming
 * the detour when the device allows less. */
PARRAY_API void parray_cuda_shared_size(const void *fn, size_t bytes, const char *file, int line, const char *what);

/* A cuda detour with reduce(...): device memory of at least bytes for its
 * blocks' partial results, this host thread's and the current GPU's, kept
 * for the next reduction (the program ends, naming the detour, when there
 * is none). */
PARRAY_API void *parray_cuda_reduce_scratch(size_t bytes, const char *file, int line, const char *what);
/* With scan variables: the same memory, its first bytes (the blocks' ticket
 * counter, their scan states, and any other results beside them) ready
 * for a launch with the epoch *epoch: zeroed in the launch's stream order,
 * unless word_states (the launch's scan states are all of the word form,
 * and nothing else is there) and they hold only zeros and such states of
 * earlier epochs (parray/reduce.cuh). */
PARRAY_API void *parray_cuda_scan_scratch(size_t bytes, int word_states, unsigned *epoch, const char *file, int line,
                                          const char *what);
/* Pinned host memory of at least bytes, this host thread's, where the last
 * block of a kernel with scan variables writes their totals (a device
 * address too: unified addressing); read after parray_cuda_scan_wait. */
PARRAY_API void *parray_cuda_scan_totals(size_t bytes, const char *file, int line, const char *what);
/* Wait for the kernels launched (their errors name their detours). */
PARRAY_API void parray_cuda_scan_wait(const char *file, int line, const char *what);
/* With 'unordered' and no scan: zeroed host memory of at least bytes,
 * this host thread's until its next call, where the detour lays out its
 * results' starting values (with their lock words zero) to copy them in
 * one parray_cuda_reduce_fill. */
PARRAY_API void *parray_cuda_reduce_stage(size_t bytes, const char *file, int line, const char *what);
/* With 'unordered': the bytes at src (host memory, free again on return)
 * copied to p before the launch (the results' starting values), in the
 * launch's stream order. */
PARRAY_API void parray_cuda_reduce_fill(void *p, const void *src, size_t bytes, const char *file, int line,
                                        const char *what);
/* Its result: wait for the kernels launched (their errors name their
 * detours), then copy bytes of device memory at src to the host. */
PARRAY_API void parray_cuda_reduce_result(void *dst, const void *src, size_t bytes, const char *file, int line,
                                          const char *what);

#ifdef __cplusplus
/* #sync_0: a cooperative launch with smem bytes of dynamic shared memory;
 * the grid must be co-resident. */
PARRAY_API void parray_cuda_launch_cooperative(const void *fn, dim3 grid, dim3 block, void **args, size_t smem,
                                               const char *file, int line, const char *what);
/* A folded kernel (reduce(...) with 'unordered'): the grid it runs, as many
 * blocks of `block` threads as the current GPU holds at once (one wave),
 * never more than the detour's grid has, in one dimension. The same on
 * every run on the same GPU. */
PARRAY_API dim3 parray_cuda_fold_grid(const void *fn, dim3 grid, dim3 block, size_t smem, const char *file, int line,
                                      const char *what);
#endif

#ifdef __cplusplus
}

#include <string.h>

/* A value captured by a cuda detour whose type the enclosing function
 * declared: a kernel parameter at file scope cannot name that type, so the
 * value travels as its bytes (the generated kernel is a template on their
 * number) and the body reads them as the type it declares again. */
template <unsigned long N> struct parray_value_bytes {
  alignas(16) unsigned char b[N];
};
template <class T> static inline parray_value_bytes<sizeof(T)> parray_to_bytes(const T &v) {
  parray_value_bytes<sizeof(T)> r;
  memcpy(r.b, &v, sizeof v);
  return r;
}
#endif
#ifdef __CUDACC__
#include "parray/reduce.cuh"
#endif
#endif
