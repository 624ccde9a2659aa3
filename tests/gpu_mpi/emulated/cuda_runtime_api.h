/* cuda_runtime_api.h (emulated) - the CUDA runtime calls of
 * runtime/cuda/mpi_dev.c on host memory, so that the distributed device
 * array runtime (allocation per process, the copy engine's packing, pieces,
 * streams and events, scatter, gather, all-to-all, staging) is tested under
 * mpirun on machines without a GPU, sanitizers included
 * (tests/gpu_mpi/emulated.pc). "Device" memory is host memory filled with a
 * poison byte; more than 64 GiB fails as out of memory. Work "on a stream"
 * is done at once, but an event reports "not ready" to every other query,
 * so that the engine's waiting paths run too. */
#ifndef PARRAY_EMULATED_CUDA_RUNTIME_API_H
#define PARRAY_EMULATED_CUDA_RUNTIME_API_H
#include <stdlib.h>
#include <string.h>

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorNotReady = 600 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2 };
typedef struct CUstream_st *cudaStream_t;
typedef struct emulated_event {
  int polls;
} *cudaEvent_t;

static inline const char *cudaGetErrorString(cudaError_t e) { return e ? "out of memory (emulated)" : "no error"; }
static inline cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorMemoryAllocation; }
static inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  if (bytes > ((size_t)1 << 36) || !(*p = malloc(bytes))) return cudaErrorMemoryAllocation;
  memset(*p, 0x7f, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
static inline cudaError_t cudaMallocHost(void **p, size_t bytes) { return cudaMalloc(p, bytes); }
static inline cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k) {
  (void)k;
  memcpy(dst, src, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k,
                                          cudaStream_t s) {
  (void)s;
  return cudaMemcpy(dst, src, bytes, k);
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  (void)flags;
  *s = (cudaStream_t)malloc(1);
  return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  (void)s;
  return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  free(s);
  return cudaSuccess;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  (void)flags;
  *e = (cudaEvent_t)calloc(1, sizeof **e);
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  (void)s;
  e->polls = 0;
  return cudaSuccess;
}
static inline cudaError_t cudaEventQuery(cudaEvent_t e) { return e->polls++ % 2 ? cudaSuccess : cudaErrorNotReady; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  free(e);
  return cudaSuccess;
}
#endif
