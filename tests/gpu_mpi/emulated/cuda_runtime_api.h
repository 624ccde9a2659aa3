/* cuda_runtime_api.h (emulated) - the few CUDA runtime calls of
 * runtime/cuda/mpi_dev.c on host memory, so that the distributed device
 * array runtime (allocation per process, staging, scatter, gather,
 * all-to-all) is tested under mpirun on machines without a GPU, sanitizers
 * included (tests/gpu_mpi/emulated.pc). "Device" memory is host memory
 * filled with a poison byte; more than 64 GiB fails as out of memory. */
#ifndef PARRAY_EMULATED_CUDA_RUNTIME_API_H
#define PARRAY_EMULATED_CUDA_RUNTIME_API_H
#include <stdlib.h>
#include <string.h>

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };

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
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k) {
  (void)k;
  memcpy(dst, src, bytes);
  return cudaSuccess;
}
#endif
