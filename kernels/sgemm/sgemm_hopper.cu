/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm_hopper.cu - parray_sgemm's kernel for Hopper (compute capability
 * 9.0, compiled for sm_90a only): plain FP32 FFMA like the other kernels, fed
 * by the tensor memory accelerator, with warp specialisation.
 *
 *   block      384 threads = 3 warpgroups, one block per SM, persistent over
 *              the 256 x 128 tiles of C (grouped by group_m tile rows, default
 *              8, for L2 reuse); or (the cluster form, CL = 2) clusters of 2
 *              blocks persistent over 256 x 256 pairs of tiles side by side
 *              in n, which share every A slice: each block loads half of it
 *              (8 of the 16 k rows) and multicasts it to both
 *              (cp.async.bulk.tensor ... .multicast::cluster), halving the
 *              L2 -> SM traffic of A, and a stage is free again only when the
 *              consumers of both blocks are done with it (each consumer warp
 *              arrives on its own block's "empty" mbarrier and, through mapa,
 *              on the other's)
 *   producer   warpgroup 0 gives its registers away (setmaxnreg 40); one
 *              thread issues the bulk tensor copies (cp.async.bulk.tensor) of
 *              the A and B slices, 16 deep in k, into a ring of `stages` (6) shared
 *              buffers, each guarded by a "full" mbarrier (expect_tx of the
 *              slice's bytes) and an "empty" one (one arrival per consumer warp)
 *   consumers  warpgroups 1-2 (setmaxnreg 232): 8 warps as 4 (m) x 2 (n), warp
 *              tile 64 x 64, 8 x 16 accumulators per thread (lane = ly*4 + lx)
 *
 * A is always m-contiguous here (see below). Shared layouts, chosen so that
 * every fragment read is one LDS.128 wavefront:
 *   k-contiguous B (B transposed): the slice as stored, rows of 16 floats
 *     (64 bytes) with the TMA 64-byte swizzle (the 16-byte chunk c of row r
 *     lies at chunk c ^ ((r >> 1) & 3)); a thread reads a float4 along k per
 *     row, 4 k steps at once; the 8 rows one read instruction touches
 *     (consecutive) fill the 32 banks once.
 *   m- or n-contiguous operand: the slice as stored, [16][BM] or [16][BN],
 *     unswizzled; a thread reads float4 along m / n per k step.
 * So the thread's rows are ly*4 + 32(i/4) + i%4,
 * and its columns lx*4 + 16(j/4) + j%4 (B n-contiguous) or lx + 4j, within
 * its warp tile; the epilogue stores alpha*acc + beta*C (C not read when
 * beta == 0) straight from the registers, with predicates at the matrix
 * edges, while the producer already loads the next tile. Out-of-range parts
 * of a slice (edges, the last partial k slice) are zero-filled by the TMA.
 *
 * Reading k-contiguous A (float4 along k, 4 steps of 8 rows at once) is the
 * slow case (0.91 of cuBLAS against 1.01-1.03 with A m-contiguous: the 8
 * reads each quad of steps starts with delay its FFMAs). So A k-contiguous
 * with B n-contiguous (row-major NN) is computed as C^T = B^T A^T, whose A is
 * m-contiguous and B k-contiguous, with a transposed epilogue (CT). Both
 * k-contiguous (row-major NT) has no such way out here (C^T of NT is NT):
 * parray_sgemm's dispatch (sgemm.cu, nt_plan) transposes one operand into
 * scratch memory first, and the kernel has no form for it (hopper_unsupported
 * says so). So A is m-contiguous in every form the kernel has.
 * Tried and dropped (bench/RESULTS.md, 2026-11-24): reading the next quad of
 * k-contiguous A midway through the current one (0.85), transposing
 * k-contiguous operands into the ring by the producer warpgroup (0.80-0.88),
 * and stream-K over the last wave with atomic fix-up (commit 33042f7: its
 * work list made the whole-tile loop 6-8% slower, more than it saved).
 * The cluster form (H100, bench/RESULTS.md): halving A's L2 -> SM
 * traffic did not make row-NN (as C^T: 0.969-0.972 of cuBLAS at 8192
 * against 0.977-0.981) or row-TN (0.913-0.918 against 0.984-0.987) faster;
 * ncu on row-NN at 8192 shows an issue-bound kernel either way (memory busy
 * 47%, no eligible warp 14.7% one-block, 16.2% cluster, cuBLAS 10.0%). It
 * won only on row-TT (A m-contiguous, B k-contiguous, no swap) from 6144 up
 * (0.984-0.990 against 0.966-0.978), where sgemm.cu's automatic choice
 * takes it. */
#include "sgemm_hopper.h"
#include "parray/cuda.h" /* parray_cuda_driver_entry */

#include <cuda.h> // CUtensorMap and the driver's types only: libcuda is reached through the CUDA runtime

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace parray_sgemm_detail {

namespace {

constexpr int BM = HOPPER_BM, BN = HOPPER_BN, BK = 16, THREADS = 384;
// Ring depth and tile-row grouping: defaults, and the limits of the tuning hook.
constexpr int STAGES = 6, MAX_STAGES = 8, GROUP_M = 8;
constexpr int A_FLOATS = BM * BK, B_FLOATS = BN * BK;
constexpr unsigned STAGE_BYTES = (A_FLOATS + B_FLOATS) * 4;
size_t smem_bytes(int stages) { return 1024 + (size_t)stages * STAGE_BYTES + 2 * stages * 8; }

struct KParams {
  float *C;
  long long ldc;
  int M, N, kblocks;
  float alpha, beta;
  int tiles_m, units_n; // units_n: columns of work units (CL tiles side by side in n)
  int vecC;
  int stages, group_m; // ring depth (2 .. MAX_STAGES), tile rows per group
};

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PARRAY_HOPPER_DEVICE 1

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* Arrival on the mbarrier at the same shared offset as `bar` in block `rank`
 * of the cluster. The default semantics (release at CTA scope), as CUTLASS's
 * ClusterBarrier::arrive: with .release.cluster (and the producer's wait
 * .acquire.cluster) the cluster form ran at 0.79-0.84 of cuBLAS against
 * 0.97-1.02 for the one-block form (H100). */
__device__ __forceinline__ void mbar_arrive_remote(uint32_t bar, unsigned rank) {
  asm volatile("{\n"
               ".reg .b32 ra;\n"
               "mapa.shared::cluster.u32 ra, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [ra];\n"
               "}\n" ::"r"(bar),
               "r"(rank)
               : "memory");
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, unsigned parity) {
  asm volatile("{\n"
               ".reg .pred p;\n"
               "WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               "@!p bra WAIT;\n"
               "}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               ::"r"(dst), "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
               : "memory");
}

/* The box lands at offset dst (and completes bytes on the mbarrier at offset
 * bar) in every block of the cluster whose bit is set in mask. */
__device__ __forceinline__ void tma_load_2d_mc(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1,
                                               uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
               " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
               "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
               : "memory");
}

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/* All threads of both blocks of the cluster (the non-.aligned forms: the
 * producer warp's lanes arrive from diverged paths). */
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n"
               "barrier.cluster.wait.acquire;" ::: "memory");
}

/* Work unit t of the persistent schedule (CL tiles side by side in n): groups
 * of group_m tile rows, column by column within a group, so that concurrent
 * blocks share A and B slices; this block's tile of it (rank: its place in
 * the cluster). */
template <int CL>
__device__ __forceinline__ void tile_origin(const KParams &P, int t, unsigned rank, int &m0, int &n0) {
  const int per_group = P.group_m * P.units_n;
  const int g = t / per_group, first = g * P.group_m;
  const int rows = P.tiles_m - first < P.group_m ? P.tiles_m - first : P.group_m;
  const int r = t - g * per_group;
  m0 = (first + r % rows) * BM;
  n0 = ((r / rows) * CL + (int)rank) * BN;
}

/* The producer thread: every k slice of every tile of this block into the
 * ring. CL == 2: both blocks of the cluster have the same m0, so the same A
 * slice; this one loads k rows 8*rank .. 8*rank + 7 of it into both (the A
 * map's box is 8 k rows deep then), B as before; its "empty" barrier counts
 * the consumer warps of both blocks. */
template <bool BKC, int CL>
__device__ __forceinline__ void produce(const KParams &P, const CUtensorMap *ma, const CUtensorMap *mb, uint32_t sa,
                                        uint32_t sb, uint32_t full, uint32_t empty) {
  asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)ma) : "memory");
  asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)mb) : "memory");
  const unsigned rank = CL > 1 ? cluster_rank() : 0;
  constexpr int AROWS = BK / CL; // k rows of the A slice this block loads
  int s = 0;
  unsigned ph = 0;
  const int nunits = P.tiles_m * P.units_n, unit0 = blockIdx.x / CL, nclusters = gridDim.x / CL;
  for (int t = unit0; t < nunits; t += nclusters) {
    int m0, n0;
    tile_origin<CL>(P, t, rank, m0, n0);
    for (int kb = 0; kb < P.kblocks; ++kb) {
      const int k0 = kb * BK;
      mbar_wait(empty + 8 * s, ph ^ 1);
      mbar_expect_tx(full + 8 * s, STAGE_BYTES);
      if constexpr (CL > 1)
        tma_load_2d_mc(sa + (s * A_FLOATS + rank * AROWS * BM) * 4, ma, full + 8 * s, m0, k0 + rank * AROWS,
                       (uint16_t)((1u << CL) - 1));
      else
        tma_load_2d(sa + s * A_FLOATS * 4, ma, full + 8 * s, m0, k0);
      tma_load_2d(sb + s * B_FLOATS * 4, mb, full + 8 * s, BKC ? k0 : n0, BKC ? n0 : k0);
      if (++s == P.stages) {
        s = 0;
        ph ^= 1;
      }
    }
  }
}

/* One k slice (16 steps) into the accumulators, 4 steps per fragment of A
 * (m-contiguous: k step 4q + i/2, rows 32(i%2) + 0..3). aoff / boff: the
 * thread's first element in the A / B slice; xb: its swizzle term (B
 * k-contiguous only). */
template <bool BKC>
__device__ __forceinline__ void slice_fma(const float *sa, const float *sb, int aoff, int boff, int xb,
                                          float (&acc)[8][16]) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    float a[4][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const float4 v = *reinterpret_cast<const float4 *>(sa + (4 * q + i / 2) * BM + aoff + 32 * (i % 2));
      float *d = &a[i / 2][4 * (i % 2)];
      d[0] = v.x, d[1] = v.y, d[2] = v.z, d[3] = v.w;
    }
    if constexpr (!BKC) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float b[16];
#pragma unroll
        for (int j4 = 0; j4 < 4; ++j4) {
          const float4 v = *reinterpret_cast<const float4 *>(sb + (4 * q + kk) * BN + boff + 16 * j4);
          b[4 * j4] = v.x, b[4 * j4 + 1] = v.y, b[4 * j4 + 2] = v.z, b[4 * j4 + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 16; ++j) acc[i][j] = fmaf(a[kk][i], b[j], acc[i][j]);
      }
    } else {
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const float4 v = *reinterpret_cast<const float4 *>(sb + boff + j * 64 + ((q ^ xb ^ ((j & 1) << 1)) << 2));
        const float b[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
          for (int i = 0; i < 8; ++i) acc[i][j] = fmaf(a[kk][i], b[kk], acc[i][j]);
      }
    }
  }
}

__device__ __forceinline__ void store1(const KParams &P, float *c, float v) {
  *c = P.beta != 0.0f ? P.alpha * v + P.beta * *c : P.alpha * v;
}

/* The transposed epilogue (A m-contiguous, B k-contiguous: rows rbase +
 * 32h + 0..3, columns cbase + 4j): the product computed is C^T, so element
 * (r, c) goes to C[c*ldc + r], the thread's 4 consecutive rows as one float4
 * (8 lanes cover 128 contiguous bytes of C). */
__device__ __forceinline__ void store_tile_t(const KParams &P, int rbase, int cbase, const float (&acc)[8][16]) {
  {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = rbase + 32 * h;
      if (r >= P.M) continue;
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const int c = cbase + 4 * j;
        if (c >= P.N) continue;
        float *p = P.C + (long long)c * P.ldc + r;
        if (P.vecC && r + 3 < P.M) {
          float4 v = make_float4(P.alpha * acc[4 * h][j], P.alpha * acc[4 * h + 1][j], P.alpha * acc[4 * h + 2][j],
                                 P.alpha * acc[4 * h + 3][j]);
          if (P.beta != 0.0f) {
            const float4 o = *reinterpret_cast<const float4 *>(p);
            v.x += P.beta * o.x, v.y += P.beta * o.y, v.z += P.beta * o.z, v.w += P.beta * o.w;
          }
          *reinterpret_cast<float4 *>(p) = v;
        } else {
#pragma unroll
          for (int t = 0; t < 4; ++t)
            if (r + t < P.M) store1(P, p + t, acc[4 * h + t][j]);
        }
      }
    }
  }
}

/* C (tile origin m0, n0) = alpha*acc + beta*C, rows rbase + row(i), columns
 * cbase + col(j) as in the file comment. */
template <bool BKC>
__device__ __forceinline__ void store_tile(const KParams &P, int rbase, int cbase, const float (&acc)[8][16]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = rbase + 32 * (i / 4) + i % 4;
    if (r >= P.M) continue;
    float *crow = P.C + (long long)r * P.ldc;
    if constexpr (!BKC) {
#pragma unroll
      for (int j4 = 0; j4 < 4; ++j4) {
        const int c = cbase + 16 * j4;
        if (P.vecC && c + 3 < P.N) {
          float4 *p = reinterpret_cast<float4 *>(crow + c);
          float4 v = make_float4(P.alpha * acc[i][4 * j4], P.alpha * acc[i][4 * j4 + 1], P.alpha * acc[i][4 * j4 + 2],
                                 P.alpha * acc[i][4 * j4 + 3]);
          if (P.beta != 0.0f) {
            const float4 o = *p;
            v.x += P.beta * o.x, v.y += P.beta * o.y, v.z += P.beta * o.z, v.w += P.beta * o.w;
          }
          *p = v;
        } else {
#pragma unroll
          for (int t = 0; t < 4; ++t)
            if (c + t < P.N) store1(P, crow + c + t, acc[i][4 * j4 + t]);
        }
      }
    } else {
#pragma unroll
      for (int j = 0; j < 16; ++j)
        if (cbase + 4 * j < P.N) store1(P, crow + cbase + 4 * j, acc[i][j]);
    }
  }
}

/* A consumer thread: every tile of this block, slice by slice from the ring.
 * A stage is freed by one arrival per warp on this block's "empty" barrier
 * and, with CL == 2, one on the other block's (whose producer multicasts
 * half of the A slice into this block's stage). */
template <bool BKC, bool CT, int CL>
__device__ __forceinline__ void consume(const KParams &P, const float *sA, const float *sB, uint32_t full,
                                       uint32_t empty) {
  const int ct = threadIdx.x - 128, warp = ct >> 5, lane = ct & 31;
  const int wm = warp & 3, wn = warp >> 2, ly = lane >> 2, lx = lane & 3;
  const int aoff = wm * 64 + ly * 4;
  const int boff = BKC ? (wn * 64 + lx) * BK : wn * 64 + lx * 4, xb = lx >> 1;
  const int rw = wm * 64 + ly * 4, cw = wn * 64 + (BKC ? lx : lx * 4);
  const unsigned rank = CL > 1 ? cluster_rank() : 0;
  int s = 0;
  unsigned ph = 0;
  const int nunits = P.tiles_m * P.units_n, unit0 = blockIdx.x / CL, nclusters = gridDim.x / CL;
  for (int t = unit0; t < nunits; t += nclusters) {
    float acc[8][16];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 16; ++j) acc[i][j] = 0.0f;
    for (int kb = 0; kb < P.kblocks; ++kb) {
      mbar_wait(full + 8 * s, ph);
      slice_fma<BKC>(sA + s * A_FLOATS, sB + s * B_FLOATS, aoff, boff, xb, acc);
      // this thread's reads of the stage (generic proxy) before the bulk copy
      // that refills it (async proxy): without the fence the Parray twin of
      // this loop (include/parray/sgemm.pc, SGEMM_TMA) computed wrong products
      // under stress at 4096 and 8192 (bench/RESULTS.md)
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + 8 * s);
      if (CL > 1 && lane == 1) mbar_arrive_remote(empty + 8 * s, rank ^ 1);
      if (++s == P.stages) {
        s = 0;
        ph ^= 1;
      }
    }
    int m0, n0;
    tile_origin<CL>(P, t, rank, m0, n0);
    if constexpr (CT) {
      static_assert(BKC, "transposed store: rows ly*4 + 32h + 0..3, columns lx + 4j");
      store_tile_t(P, m0 + rw, n0 + cw, acc);
    } else {
      store_tile<BKC>(P, m0 + rw, n0 + cw, acc);
    }
  }
}
#endif

/* BKC: B k-contiguous; CT: the product is C^T (transposed epilogue); CL:
 * blocks per cluster (1, or 2 sharing A through multicast; launched with that
 * cluster dimension). */
template <bool BKC, bool CT, int CL>
__global__ void __launch_bounds__(THREADS, 1)
    sgemm_hopper_kernel(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb, const KParams P) {
#ifdef PARRAY_HOPPER_DEVICE
  static_assert(CL == 1 || CL == 2, "clusters of 1 or 2 blocks");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  // The 64-byte swizzle is a function of the shared address: stages on 1024-byte
  // boundaries (the same offsets in every block of a cluster: the multicast's).
  const uint32_t raw = smem_u32(smem_raw), pad = (1024u - (raw & 1023u)) & 1023u;
  float *sA = reinterpret_cast<float *>(smem_raw + pad);
  float *sB = sA + P.stages * A_FLOATS;
  const uint32_t full = smem_u32(sB + P.stages * B_FLOATS), empty = full + 8 * P.stages;
  if (threadIdx.x == 0) {
    for (int s = 0; s < P.stages; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, 8 * CL);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  // CL == 2: the other block's barriers are initialised before any arrival or multicast reaches them.
  if constexpr (CL > 1) cluster_sync();
  else __syncthreads();
  if (threadIdx.x < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    if (threadIdx.x == 0) produce<BKC, CL>(P, &ma, &mb, smem_u32(sA), smem_u32(sB), full, empty);
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    consume<BKC, CT, CL>(P, sA, sB, full, empty);
  }
  // CL == 2: no block exits while the other's consumers may still arrive on its barriers.
  if constexpr (CL > 1) {
    __syncwarp();
    cluster_sync();
  }
#endif
}

using encode_tiled_fn = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* cuTensorMapEncodeTiled (parray_cuda_driver_entry, looked up once), or
 * null when the driver has none. */
encode_tiled_fn encode_tiled() {
  static std::once_flag once;
  static encode_tiled_fn fn = nullptr;
  std::call_once(once, [] { fn = reinterpret_cast<encode_tiled_fn>(parray_cuda_driver_entry("cuTensorMapEncodeTiled")); });
  return fn;
}

/* A row-major operand slice map: `inner` elements per row (unit stride),
 * `outer` rows ld apart, boxes of box_in x box_out; swizzled when the box's
 * rows are 64 bytes (the k-contiguous case). */
bool encode(encode_tiled_fn fn, CUtensorMap *map, const float *p, long long inner, long long outer, long long ld,
            unsigned box_in, unsigned box_out) {
  const cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer};
  const cuuint64_t strides[1] = {(cuuint64_t)ld * 4};
  const cuuint32_t box[2] = {box_in, box_out}, estr[2] = {1, 1};
  const CUtensorMapSwizzle sw = box_in * 4 == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_NONE;
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float *>(p), dims, strides, box, estr,
            CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* The tuning hook for the benchmark: PARRAY_SGEMM_HOPPER_TUNE="stages,group_m"
 * (read once; values out of range keep the defaults). */
void tuning(int *stages, int *group_m) {
  static int st = STAGES, gm = GROUP_M;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *v = getenv("PARRAY_SGEMM_HOPPER_TUNE");
    int a = 0, b = 0;
    if (v && sscanf(v, "%d,%d", &a, &b) == 2) {
      if (a >= 2 && a <= MAX_STAGES) st = a;
      if (b >= 1 && b <= 64) gm = b;
    }
  });
  *stages = st;
  *group_m = gm;
}

/* How many clusters of CL blocks of this kernel fit on device dev at once
 * (cudaOccupancyMaxActiveClusters: a GPC whose SM count is odd leaves one SM
 * of it out of clusters of 2), asked once per device and kernel; 0 when the
 * runtime cannot say. */
template <bool BKC, bool CT, int CL>
int max_clusters(int dev, size_t smem) {
  enum { MAX_DEV = 64 };
  static std::mutex mu;
  static int known[MAX_DEV]; // 0: not asked yet; -1: asked, no answer
  if (dev < 0 || dev >= MAX_DEV) return 0;
  std::lock_guard<std::mutex> lock(mu);
  if (known[dev] == 0) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CL, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(2 * CL, 1, 1);
    cfg.blockDim = dim3(THREADS, 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, sgemm_hopper_kernel<BKC, CT, CL>, &cfg) != cudaSuccess || n <= 0) {
      cudaGetLastError();
      n = -1;
    }
    known[dev] = n;
  }
  return known[dev] > 0 ? known[dev] : 0;
}

template <bool BKC, bool CT, int CL>
cudaError_t launch_kernel(const CUtensorMap &ma, const CUtensorMap &mb, const KParams &P, int dev, int sms,
                          cudaStream_t s) {
  const size_t smem = smem_bytes(P.stages);
  cudaError_t e =
      cudaFuncSetAttribute(sgemm_hopper_kernel<BKC, CT, CL>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess) return e;
  const int nunits = P.tiles_m * P.units_n;
  if (CL == 1) {
    sgemm_hopper_kernel<BKC, CT, CL><<<nunits < sms ? nunits : sms, THREADS, smem, s>>>(ma, mb, P);
    return cudaGetLastError();
  }
  const int fit = max_clusters<BKC, CT, CL>(dev, smem);
  if (fit == 0) return cudaErrorNotSupported;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = CL, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  cfg.gridDim = dim3(CL * (nunits < fit ? nunits : fit), 1, 1);
  cfg.blockDim = dim3(THREADS, 1, 1);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  e = cudaLaunchKernelEx(&cfg, sgemm_hopper_kernel<BKC, CT, CL>, ma, mb, P);
  return e != cudaSuccess ? e : cudaGetLastError();
}

template <int CL>
cudaError_t launch_cl(bool ct, bool bk, const CUtensorMap &ma, const CUtensorMap &mb, const KParams &P, int dev,
                      int sms, cudaStream_t s) {
  if (ct) return launch_kernel<true, true, CL>(ma, mb, P, dev, sms, s);
  return bk ? launch_kernel<true, false, CL>(ma, mb, P, dev, sms, s)
            : launch_kernel<false, false, CL>(ma, mb, P, dev, sms, s);
}

} // namespace

const char *hopper_unsupported(const HopperArgs &a, int device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return "cannot read the device's compute capability";
  }
  if (major != 9 || minor != 0) return "needs a compute capability 9.0 device";
  if (a.M <= 0 || a.N <= 0 || a.K <= 0) return "needs m, n, k > 0";
  if (a.ak && a.bk) return "has no form for both operands k-contiguous (one is transposed first)";
  if (a.K > INT_MAX - BK || (long long)((a.M + BM - 1) / BM) * ((a.N + BN - 1) / BN) > INT_MAX)
    return "too large for one launch";
  const long long lim = 1LL << 36; // TMA strides: multiples of 16 bytes below 2^40
  if (((uintptr_t)a.A & 15) || ((uintptr_t)a.B & 15) || (a.lda & 3) || (a.ldb & 3) || a.lda >= lim || a.ldb >= lim)
    return "needs 16-byte aligned A and B with leading dimensions a multiple of 4";
  if (!encode_tiled()) return "the driver has no cuTensorMapEncodeTiled";
  return nullptr;
}

cudaError_t hopper_launch(const HopperArgs &a0, cudaStream_t s) {
  if (a0.ak && a0.bk) return cudaErrorNotSupported; // hopper_unsupported says so
  // A k-contiguous and B n-contiguous (row-major NN): compute C^T = op(B)^T op(A)^T
  // instead, whose A is m-contiguous and B k-contiguous, and store it
  // transposed; reading A's k-contiguous slices in the consumers is slower.
  const bool ct = a0.ak && !a0.bk;
  HopperArgs a = a0;
  if (ct) {
    a.A = a0.B, a.B = a0.A, a.lda = a0.ldb, a.ldb = a0.lda, a.M = a0.N, a.N = a0.M;
    a.ak = 0, a.bk = 1;
  }
  const int cl = a.cluster == 2 ? 2 : 1;
  encode_tiled_fn fn = encode_tiled();
  if (!fn) return cudaErrorNotSupported;
  CUtensorMap ma, mb;
  // A is m-contiguous (a.ak is 0 here); in a cluster of 2 each block loads 8 of a slice's 16 k rows.
  const bool ok = encode(fn, &ma, a.A, a.M, a.K, a.lda, BM, BK / cl) &&
                  (a.bk ? encode(fn, &mb, a.B, a.K, a.N, a.ldb, BK, BN) : encode(fn, &mb, a.B, a.N, a.K, a.ldb, BN, BK));
  if (!ok) return cudaErrorNotSupported;
  int dev = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e != cudaSuccess) return e;
  KParams P;
  P.C = a.C;
  P.ldc = a.ldc;
  P.M = a.M;
  P.N = a.N;
  P.kblocks = (a.K + BK - 1) / BK;
  P.alpha = a.alpha;
  P.beta = a.beta;
  P.tiles_m = (a.M + BM - 1) / BM;
  P.units_n = (a.N + cl * BN - 1) / (cl * BN);
  P.vecC = ((uintptr_t)a.C & 15) == 0 && (a.ldc & 3) == 0;
  tuning(&P.stages, &P.group_m);
  return cl == 2 ? launch_cl<2>(ct, a.bk, ma, mb, P, dev, sms, s) : launch_cl<1>(ct, a.bk, ma, mb, P, dev, sms, s);
}

} // namespace parray_sgemm_detail
