/* SPDX-License-Identifier: Apache-2.0 */
/* shim.h - runs the CUDA kernels that pac generates from include/parray/sgemm.pc
 * on the CPU, for checking the kernel's logic without a GPU (emu.sh): one
 * std::thread per CUDA thread, blocks one after another, a std::barrier per
 * block for __syncthreads, __shared__ arrays static. */
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
struct float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return float4{a, b, c, d}; }
struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
thread_local uint3 threadIdx, blockIdx;
static std::barrier<> *g_bar;
static inline void __syncthreads() { g_bar->arrive_and_wait(); }
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __location__(x)
#define __launch_bounds__(...)
#define __restrict__
static inline void parray_cuda_check_launch(const char *, int, const char *) {}
static inline void parray_cuda_launched(const char *, int, const char *) {}
static inline void parray_cuda_wait(const char *, int, const char *) {}
static inline void parray_cuda_wait_pending(const char *, int, const char *) {}
static inline void parray_cuda_check_home(const void *, const char *, const char *, int, const char *) {}
template <class... P, class... A>
static void emu(dim3 g, dim3 b, void (*k)(P...), A... args) {
  unsigned nt = b.x * b.y * b.z;
  for (unsigned bz = 0; bz < g.z; bz++)
    for (unsigned by = 0; by < g.y; by++)
      for (unsigned bx = 0; bx < g.x; bx++) {
        std::barrier<> bar(nt);
        g_bar = &bar;
        std::vector<std::thread> th;
        for (unsigned t = 0; t < nt; t++)
          th.emplace_back([=] {
            blockIdx = uint3{bx, by, bz};
            threadIdx = uint3{t % b.x, t / b.x % b.y, t / (b.x * b.y)};
            k(args...);
          });
        for (auto &x : th) x.join();
      }
}
