/* SPDX-License-Identifier: Apache-2.0 */
/* parray/tma.cuh - device helpers for the bulk tensor copies of the tensor
 * memory accelerator (compute capability 9.0 and later): what
 * `#copy A(a) at(i0, ...) to S(s) tma(bar)` prints inside a cuda detour
 * (parray_prim::tma_load, docs/cuda.md "Bulk tensor copies"), and the
 * mbarrier operations a program needs around it (init, the fence that makes
 * the init visible to the copy engine, arrive, expect_tx, wait on a phase's
 * parity). pac includes this header in a translation that has such a copy;
 * the tensor map is a CUtensorMap that the host encoded before the launch
 * (parray_cuda_tensor_map) and the kernel received as a __grid_constant__
 * parameter; and setmaxnreg_inc/dec for warp specialisation (sm_90a).
 * Compiling it for an architecture older than sm_90 is an error. */
#ifndef PARRAY_TMA_CUH
#define PARRAY_TMA_CUH

#include <cuda.h> /* CUtensorMap (types only: the runtime reaches the driver by its entry points) */
#include <stdint.h>
#include <stdio.h>

#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ < 12
#error "parray: '#copy ... tma(...)' (the tensor memory accelerator) needs CUDA 12 or later"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error "parray: '#copy ... tma(...)' uses the tensor memory accelerator (cp.async.bulk.tensor), which needs compute capability 9.0: compile for sm_90 or later only (pacc -arch=sm_90)"
#endif

namespace parray_prim {

/* the shared-memory address of a generic pointer into shared memory */
__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* Initialise the mbarrier *bar for `count` arrivals per phase (one thread,
 * before any use), then fence_mbarrier_init() and a block barrier
 * (__syncthreads / #sync) before another thread or a copy uses it. */
__device__ __forceinline__ void mbarrier_init(uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

/* makes the mbarrier inits of this thread visible to the copy engine */
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* orders this thread's earlier shared-memory accesses before later bulk
 * copies: before a copy overwrites a buffer that threads wrote (after their
 * barrier), and by each thread that read a buffer before it signals that a
 * copy may refill it (the mbarrier arrival alone let the copy overwrite
 * words not yet read: parray/sgemm.pc's SGEMM_TMA ring) */
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/* one arrival on *bar */
__device__ __forceinline__ void mbarrier_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/* one arrival on *bar that also announces `bytes` more bytes of copies for
 * the current phase (the tma #copy does this itself) */
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

/* whether the phase of *bar with this parity (0 for the first phase, then
 * 1, 0, ...) has completed: all its arrivals and all its announced bytes */
__device__ __forceinline__ bool mbarrier_try_wait(uint64_t *bar, unsigned parity) {
  uint32_t done;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(done)
               : "r"(smem_addr(bar)), "r"(parity)
               : "memory");
  return done != 0;
}

/* wait until the phase of *bar with this parity has completed; the data of
 * the copies it counted is then visible to the waiting thread */
__device__ __forceinline__ void mbarrier_wait(uint64_t *bar, unsigned parity) {
  while (!mbarrier_try_wait(bar, parity)) {
  }
}

/* Warp specialisation (sm_90a): setmaxnreg_dec<R>() lowers, setmaxnreg_inc<R>()
 * raises the registers per thread of the calling warpgroup to R (a multiple
 * of 8 from 24 to 256), so that warpgroups that only issue copies give their
 * registers to those that compute (parray/sgemm.pc's SGEMM_TMA: 40 and 232
 * in a block of 3 x 128 threads). All threads of a warpgroup execute the
 * same call. The instruction exists on the architecture-specific target
 * only (nvcc -arch=sm_90a, pacc -arch=sm_90a); compiled for another (sm_90)
 * these do nothing and every warp keeps what the launch bounds gave it. */
template <unsigned R> __device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: a multiple of 8 from 24 to 256");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R) : "memory");
#endif
}
template <unsigned R> __device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: a multiple of 8 from 24 to 256");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R) : "memory");
#endif
}

/* The destination of a bulk tensor copy must be 128-byte aligned: a message
 * naming the #copy, then a trap (reported by the next wait on the host). */
__device__ __forceinline__ void tma_check_dst(const void *dst, const char *site) {
  if (smem_addr(dst) & 127u) {
    printf("%s: error: the destination of a tma #copy is not 128-byte aligned (shared address %u)\n", site,
           smem_addr(dst));
    __trap();
  }
}

/* The box's first element along the tensor's stride-1 dimension (c0, of
 * elem bytes) must lie at a multiple of 16 bytes from the tensor's start
 * (the accelerator stops the kernel with an illegal instruction otherwise,
 * measured on sm_90, at negative coordinates too): a message naming the
 * #copy, then a trap. */
__device__ __forceinline__ void tma_check_start(int c0, unsigned elem, const char *site) {
  if (((long long)c0 * elem) % 16 != 0) {
    printf("%s: error: the box of a tma #copy starts at index %d of the tensor's stride-1 dimension; the tensor "
           "memory accelerator needs that index times the element size (%u bytes) to be a multiple of 16\n",
           site, c0, elem);
    __trap();
  }
}

/* `#copy A(a) at(...) to S(s) tma(bar)`: announce the box's bytes on *bar
 * (an arrival with expect_tx), then copy the box whose first element has
 * the coordinates c0 (innermost dimension of the map), c1, ... into dst;
 * elements outside the tensor are zero-filled; *bar's phase completes when
 * the bytes have landed. One thread issues it. */
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, unsigned bytes,
                                         unsigned elem, const char *site, int c0) {
  tma_check_dst(dst, site);
  tma_check_start(c0, elem, site);
  mbarrier_arrive_expect_tx(bar, bytes);
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
               ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(smem_addr(bar)), "r"(c0)
               : "memory");
}
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, unsigned bytes,
                                         unsigned elem, const char *site, int c0, int c1) {
  tma_check_dst(dst, site);
  tma_check_start(c0, elem, site);
  mbarrier_arrive_expect_tx(bar, bytes);
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, unsigned bytes,
                                         unsigned elem, const char *site, int c0, int c1, int c2) {
  tma_check_dst(dst, site);
  tma_check_start(c0, elem, site);
  mbarrier_arrive_expect_tx(bar, bytes);
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];"
               ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, unsigned bytes,
                                         unsigned elem, const char *site, int c0, int c1, int c2, int c3) {
  tma_check_dst(dst, site);
  tma_check_start(c0, elem, site);
  mbarrier_arrive_expect_tx(bar, bytes);
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];"
               ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, unsigned bytes,
                                         unsigned elem, const char *site, int c0, int c1, int c2, int c3, int c4) {
  tma_check_dst(dst, site);
  tma_check_start(c0, elem, site);
  mbarrier_arrive_expect_tx(bar, bytes);
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];"
               ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}

} // namespace parray_prim

#endif
