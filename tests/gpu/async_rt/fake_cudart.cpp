/* fake_cudart.cpp - a CUDA runtime without a GPU, for check.cpp: memory is
 * host memory, kernels are nothing, the machine has fake_devices GPUs (one
 * unless the test says more), and the test decides when an error
 * appears -- at the next wait (a kernel that failed while running, sticky
 * from then on, as a real failure is) or once at a launch (a bad launch
 * configuration). Only the functions runtime/cuda/cuda_core.cu calls. */
#include "parray/cuda.h"

#include <cstdlib>
#include <cstring>

extern "C" {
int fake_fail_at_sync;          /* set: the next wait finds a failed kernel */
int fake_sticky;                /* a kernel failed: every call says so */
cudaError_t fake_launch_error;  /* returned once by cudaGetLastError */
int fake_syncs;                 /* cudaDeviceSynchronize calls */

static cudaError_t st(void) { return fake_sticky ? cudaErrorLaunchFailure : cudaSuccess; }

cudaError_t cudaGetLastError(void) {
  cudaError_t e = fake_sticky ? cudaErrorLaunchFailure : fake_launch_error;
  fake_launch_error = cudaSuccess;
  return e;
}
cudaError_t cudaDeviceSynchronize(void) {
  fake_syncs++;
  if (fake_fail_at_sync) fake_sticky = 1;
  return st();
}
const char *cudaGetErrorString(cudaError_t e) {
  if (e == cudaErrorLaunchFailure) return "unspecified launch failure";
  return e == cudaErrorInvalidConfiguration ? "invalid configuration argument" : "some error";
}
const char *cudaGetErrorName(cudaError_t e) {
  if (e == cudaErrorLaunchFailure) return "cudaErrorLaunchFailure";
  return e == cudaErrorInvalidConfiguration ? "cudaErrorInvalidConfiguration" : "cudaErrorUnknown";
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
  if (!fake_sticky) memcpy(d, s, n);
  return st();
}
cudaError_t cudaMemcpy2D(void *, size_t, const void *, size_t, size_t, size_t, cudaMemcpyKind) { return st(); }
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) {
  if (!fake_sticky) memcpy(d, s, n);
  return st();
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) {
  if (!fake_sticky) memset(d, v, n);
  return st();
}
cudaError_t cudaMalloc(void **p, size_t n) { return (*p = malloc(n)) ? st() : cudaErrorMemoryAllocation; }
cudaError_t cudaMallocHost(void **p, size_t n) { return (*p = malloc(n)) ? st() : cudaErrorMemoryAllocation; }
cudaError_t cudaFree(void *p) { free(p); return st(); }
cudaError_t cudaFreeHost(void *p) { free(p); return st(); }
int fake_devices = 1;  /* GPUs of the machine */
int fake_device;       /* the current GPU */
int fake_get_device;   /* cudaGetDevice calls */
cudaError_t cudaGetDevice(int *d) { fake_get_device++; *d = fake_device; return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *n) { *n = fake_devices; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) {
  if (d < 0 || d >= fake_devices) return cudaErrorInvalidDevice;
  fake_device = d;
  return cudaSuccess;
}
int fake_dyn_smem;  /* the kernel's dynamic shared memory limit (cudaFuncSetAttribute) */
int fake_func_sets; /* cudaFuncSetAttribute calls */
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int) {
  *v = a == cudaDevAttrMaxSharedMemoryPerBlockOptin ? 232448 : 1; /* Hopper's 227 KB */
  return cudaSuccess;
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *fa, const void *) {
  memset(fa, 0, sizeof *fa);
  fa->sharedSizeBytes = 1024; /* the kernel's own __shared__ variables */
  return st();
}
cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute a, int v) {
  fake_func_sets++;
  if (a == cudaFuncAttributeMaxDynamicSharedMemorySize) fake_dyn_smem = v;
  return st();
}
cudaError_t cudaLaunchCooperativeKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t) { return st(); }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *, int, size_t) {
  *n = 1;
  return cudaSuccess;
}
parray_status parray_copy_strided_cuda(void *, const int64_t *, const void *, const int64_t *, const int64_t *, int,
                                       size_t, cudaStream_t) {
  return PARRAY_OK;
}
}
