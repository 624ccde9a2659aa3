/* shim.h - runs the cuda detours of programs written with
 * parray/primitives.cuh on the CPU, to check the primitives' logic (packs,
 * boundary predicates, shuffles, shared memory) without a GPU (emu.sh):
 * one std::thread per CUDA thread, blocks one after another, a std::barrier
 * per block for __syncthreads and one per warp for the shuffles, __shared__
 * arrays static; the CUDA runtime calls the programs make, and the
 * runtime's device memory (#create, #copy of dmem), are done in host
 * memory. The CUDA headers are only read for their host-side types and the
 * fp16/bf16 conversions. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <barrier>
#include <thread>
#include <vector>

/* parray/elementwise.cuh needs nvcc (its launchers); the primitives take
 * only its 16-byte Pack from it, the same type here. */
#define PARRAY_ELEMENTWISE_CUH
namespace parray_ew {
template <typename T, int P>
struct alignas(sizeof(T) * P) Pack {
  T e[P];
};
} // namespace parray_ew

#undef __shared__
#define __shared__ static
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __expf expf
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }

thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;

/* The block's barrier, and the warp of the calling thread. */
struct EmuWarp {
  std::barrier<> *bar;
  unsigned char slot[32][16];
};
static std::barrier<> *emu_block_bar;
thread_local EmuWarp *emu_warp;
thread_local int emu_lane;

static inline void __syncthreads() { emu_block_bar->arrive_and_wait(); }

/* Lane `lane ^ off` of the group of `width` lanes (off < width). */
template <class T>
static inline T __shfl_xor_sync(unsigned, T v, int off, int width = 32) {
  static_assert(sizeof(T) <= 16, "shuffle of a value over 16 bytes");
  (void)width;
  memcpy(emu_warp->slot[emu_lane], &v, sizeof(T));
  emu_warp->bar->arrive_and_wait();
  T r;
  memcpy(&r, emu_warp->slot[emu_lane ^ off], sizeof(T));
  emu_warp->bar->arrive_and_wait();
  return r;
}

template <class... P, class... A>
static void emu(dim3 g, dim3 b, void (*k)(P...), A... args) {
  const unsigned nt = b.x * b.y * b.z, nw = (nt + 31) / 32;
  for (unsigned bz = 0; bz < g.z; bz++)
    for (unsigned by = 0; by < g.y; by++)
      for (unsigned bx = 0; bx < g.x; bx++) {
        std::barrier<> bar(nt);
        std::vector<std::barrier<> *> wbars;
        std::vector<EmuWarp> warps(nw);
        for (unsigned w = 0; w < nw; w++) {
          wbars.push_back(new std::barrier<>(nt - 32 * w < 32 ? nt - 32 * w : 32));
          warps[w].bar = wbars.back();
        }
        emu_block_bar = &bar;
        std::vector<std::thread> th;
        for (unsigned t = 0; t < nt; t++)
          th.emplace_back([=, &warps] {
            blockIdx = uint3{bx, by, bz};
            threadIdx = uint3{t % b.x, t / b.x % b.y, t / (b.x * b.y)};
            blockDim = b, gridDim = g;
            emu_warp = &warps[t / 32], emu_lane = (int)(t % 32);
            k(args...);
          });
        for (auto &x : th) x.join();
        for (auto *p : wbars) delete p;
      }
}

/* ---- the runtime calls of the programs, in host memory ---------------- */
extern "C" {
cudaError_t cudaMalloc(void **p, size_t n) { return (*p = malloc(n)) ? cudaSuccess : cudaErrorMemoryAllocation; }
cudaError_t cudaFree(void *p) { return free(p), cudaSuccess; }
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) { return memcpy(d, s, n), cudaSuccess; }
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) {
  return memcpy(d, s, n), cudaSuccess;
}
cudaError_t cudaMemset(void *d, int v, size_t n) { return memset(d, v, n), cudaSuccess; }
const char *cudaGetErrorString(cudaError_t) { return "emulated CUDA runtime error"; }
/* Timing is not emulated: --bench is for the GPU. */
cudaError_t cudaEventCreate(cudaEvent_t *) { return cudaErrorNotSupported; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaErrorNotSupported; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaErrorNotSupported; }
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t) { return cudaErrorNotSupported; }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaErrorNotSupported; }
cudaError_t cudaGetDevice(int *) { return cudaErrorNotSupported; }
cudaError_t cudaDeviceGetAttribute(int *, cudaDeviceAttr, int) { return cudaErrorNotSupported; }
}
/* The runtime: its host part from libparray, its CUDA part here. */
#include "parray/core.h"
#include "parray/cuda.h"
#undef INIT_GPU
#define INIT_GPU(n) ((void)(n))
void *parray_cuda_create(parray_memkind, size_t bytes, const char *, int, const char *) { return malloc(bytes); }
void parray_cuda_destroy(parray_memkind, void *p, const char *, int, const char *) { free(p); }
void parray_cuda_memcpy(void *d, const void *s, size_t n, const char *, int, const char *) { memcpy(d, s, n); }
void parray_cuda_check_launch(const char *, int, const char *) {}
void parray_cuda_launched(const char *, int, const char *) {}
void parray_cuda_wait(const char *, int, const char *) {}
void parray_cuda_wait_pending(const char *, int, const char *) {}
void parray_cuda_check_home(const void *, const char *, const char *, int, const char *) {}
