/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_common.cu - per-device launch shape shared by all runtime
 * kernels: multiprocessor count and resident threads per multiprocessor,
 * queried once per device and cached in atomics (safe across threads). */
#include <cuda_runtime.h>

#include <atomic>

#include "parray/cuda.h"
#include "parray/kernels.h"

namespace {
constexpr int kMaxDevices = 64;
/* packed (sm_count << 16) | threads_per_sm; 0 = not queried yet */
std::atomic<int> g_shape[kMaxDevices];
} // namespace

extern "C" parray_status parray_cuda_device_shape(int *sm_count, int *threads_per_sm) {
  if (!sm_count || !threads_per_sm) {
    parray_set_error("parray_cuda_device_shape: null pointer");
    return PARRAY_ERR_INVALID;
  }
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return parray_cuda_status(e, "cudaGetDevice");
  }
  int packed = (dev >= 0 && dev < kMaxDevices) ? g_shape[dev].load(std::memory_order_relaxed) : 0;
  if (packed == 0) {
    int sm = 0, tps = 0;
    e = cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&tps, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return parray_cuda_status(e, "cudaDeviceGetAttribute");
    }
    if (sm < 1) sm = 1;
    if (tps < 256) tps = 256;
    if (sm > 0x7fff) sm = 0x7fff;
    if (tps > 0xffff) tps = 0xffff;
    packed = (sm << 16) | tps;
    if (dev >= 0 && dev < kMaxDevices) g_shape[dev].store(packed, std::memory_order_relaxed);
  }
  *sm_count = packed >> 16;
  *threads_per_sm = packed & 0xffff;
  return PARRAY_OK;
}
