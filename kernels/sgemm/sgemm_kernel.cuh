/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm_kernel.cuh - the FP32 SGEMM kernel template behind parray_sgemm
 * (included by sgemm.cu and sgemm_variants.cu; it defines templates only, so
 * compiling it alone produces nothing). Row-major view only: the host code maps
 * column-major calls onto it by computing C^T = op(B)^T op(A)^T.
 *
 * Blocking (one configuration = RM, RN, WM, WN, BK; the default is
 * RM=RN=2, WM=4, WN=2, BK=16 -> 128x128x16 with 256 threads):
 *
 *   block tile   BM x BN = (WM*16*RM) x (WN*32*RN) of C, T = WM*WN*32 threads
 *   warp tile    WTM x WTN = (16*RM) x (32*RN); the warps form a WM x WN grid
 *   thread tile  TM x TN = (4*RM) x (4*RN) registers, as RM x RN sub-tiles of 4x4
 *                strided by 16 rows / 32 columns: lane = ty*8 + tx (ty < 4,
 *                tx < 8) owns rows  wy*WTM + r*16 + ty*4 + (0..3), r < RM,
 *                          columns wx*WTN + c*32 + tx*4 + (0..3), c < RN
 *   k slice      BK columns of op(A) / rows of op(B) per step, double-buffered
 *                in shared memory: sA[2][BK][BM+4] holds op(A) TRANSPOSED
 *                (k-major, m contiguous), sB[2][BK][BN+4] holds op(B) as is.
 *
 * Per k step every thread reads RM float4 of sA and RN float4 of sB (LDS.128):
 * a warp's A read touches 4 distinct 16-byte words (64 B) and its B read 8
 * (128 B), so each is one shared-memory wavefront (the other lanes get
 * broadcasts); then TM*TN FFMA. Fragments are double-buffered in registers
 * (the reads for step kk+1 are issued before the FFMAs of step kk).
 *
 * Global -> shared: register staging with 16-byte loads. The next k slice is
 * loaded into registers at the top of a step and written to the other shared
 * buffer before its last FFMA block, then one __syncthreads per slice. An
 * operand stored k-contiguous (A not transposed, B transposed) is transposed on
 * the way in: each thread loads a float4 along k and writes 4 floats to 4 rows
 * of the k-major tile; the +4 float row padding sends the two k-quads a warp
 * writes to disjoint bank halves, so these stores are conflict-free. An operand
 * stored contiguous along m / n is copied with STS.128.
 *
 * Edges: a tile that lies wholly inside the matrix, with 16-byte aligned
 * rows, uses the vector path; other tiles (matrix edges, the last partial k
 * slice, odd leading dimensions or misaligned pointers) load element by element
 * with predicates and zero fill, and the epilogue stores element by element
 * with predicates. Every branch between the paths is uniform over the block.
 *
 * Split-K (splits > 1, blockIdx.y = slice): each slice adds alpha*acc into C
 * with atomicAdd after the host has scaled C by beta (or zeroed it).
 *
 * Cfg::STAGES >= 2 selects sgemm_async_kernel instead: the same tiles fed by a
 * cp.async ring of STAGES shared buffers (no staging registers); used only by
 * the tuning configurations so far (see docs/sgemm.md). */
#ifndef PARRAY_SGEMM_KERNEL_CU
#define PARRAY_SGEMM_KERNEL_CU

#include <cuda_runtime.h>

#include <cstdint>

#include "sgemm_problem.h"

namespace parray_sgemm_detail {

/* The product (A, B, C, leading dimensions, M, N, K, alpha, beta) and how
 * this launch covers it. */
struct Params : SgemmProblem {
  int kchunk; // k per split (a multiple of BK); == K rounded up when splits == 1
  int tiles_m, tiles_n, group_m;
  int vecA, vecB, vecC; // 16-byte global access allowed (aligned base, ld % 4 == 0)
  int atomic;           // split-K epilogue
};

/* STAGES == 0: register-staged double buffer (sgemm_kernel); STAGES >= 2:
 * cp.async pipeline of that many shared-memory stages (sgemm_async_kernel).
 * KG: k groups, WM x WN warps each, sharing one tile (sgemm_kernel only):
 * group g does the KS = BK/KG steps from g*KS of every slice, and the groups
 * add their partial sums through shared memory at the end, group g storing
 * the rows of register sub-tile r = g (so RM == KG). */
template <int RM_, int RN_, int WM_, int WN_, int BK_, int MINB_, int KU_ = BK_, int STAGES_ = 0, int KG_ = 1>
struct Cfg {
  static constexpr int RM = RM_, RN = RN_, WM = WM_, WN = WN_, BK = BK_, MINB = MINB_, KU = KU_;
  static constexpr int STAGES = STAGES_, KG = KG_, KS = BK_ / KG_;
  static_assert(KG == 1 || (STAGES == 0 && RM == KG && BK % KG == 0), "k groups: register-staged kernel, RM == KG");
  static_assert(KU % 2 == 0 && KS % KU == 0, "k chunk must be even and divide the steps of a group");
  static constexpr int T = WM * WN * 32 * KG;
  static constexpr int TM = 4 * RM, TN = 4 * RN;
  static constexpr int WTM = 16 * RM, WTN = 32 * RN;
  static constexpr int BM = WM * WTM, BN = WN * WTN;
  static constexpr int SA = BM + 4, SB = BN + 4; // padded k-major row strides (floats)
};

__device__ __forceinline__ float4 ldg4(const float *p) { return __ldg(reinterpret_cast<const float4 *>(p)); }

/* Which elements of a ROWS x BK tile of one operand (ROWS along m for A,
 * along n for B) each of the T threads moves, as quads along the unit
 * stride, and where the thread's first one lies in global memory. Element
 * (r, c) of the tile (r < ROWS along m/n, c < BK along k) is at
 * g[r*sr + c*sk]; the unit stride is along k (KCONTIG) or along r
 * (!KCONTIG). Shared by the register-staged TileLoader and the cp.async
 * AsyncLoader, so that both write the same conflict-free places of the
 * k-major shared tile. */
template <int ROWS, int BK, int T, bool KCONTIG>
struct TileMap {
  static constexpr int NL = ROWS * BK / (4 * T); // float4 per thread per slice
  static_assert(NL >= 1 && ROWS * BK == NL * 4 * T, "tile must split evenly into float4 per thread");
  // KCONTIG: TPR threads per row (2, or T/ROWS when there are more threads
  // than 2 per row), each a k-quad; passes over rows (MP, RS rows apart) and
  // over k (KP, KSTEP columns apart).
  static constexpr int TPR = KCONTIG && T / ROWS > 2 ? T / ROWS : 2;
  static constexpr int RS = T / TPR, KSTEP = 4 * TPR;
  static constexpr int KP = BK / KSTEP, MP = KCONTIG ? ROWS / RS : 1;
  static_assert(!KCONTIG || (BK % KSTEP == 0 && MP * KP == NL), "k-contiguous mapping");
  // !KCONTIG: a k row has ROWS/4 float4; T threads cover T*4/ROWS k rows per pass.
  static constexpr int KROWS = KCONTIG ? 1 : T * 4 / ROWS;
  static_assert(KCONTIG || (T * 4) % ROWS == 0, "contiguous mapping");

  const float *p;      // this thread's element (r0, c0) of the current slice
  long long ld;        // leading dimension (the non-unit stride)
  int r0, c0;          // this thread's first element within the tile
  int rows_left;       // rows of the matrix from the tile origin
  bool vec_rows;       // vector path allowed for this tile's rows

  __device__ __forceinline__ void init(const float *g, long long ld_, int rows_left_, bool vec, int tid) {
    ld = ld_;
    rows_left = rows_left_;
    vec_rows = vec && rows_left_ >= ROWS;
    if (KCONTIG) {
      r0 = TPR == 2 ? tid >> 1 : tid / TPR;
      c0 = (TPR == 2 ? tid & 1 : tid % TPR) * 4;
      p = g + (long long)r0 * ld + c0;
    } else {
      c0 = tid / (ROWS / 4);
      r0 = (tid % (ROWS / 4)) * 4;
      p = g + (long long)c0 * ld + r0;
    }
  }
};

/* Moves a ROWS x BK tile of one operand from global memory to a k-major
 * shared tile s[BK][SR] through registers (the thread mapping of TileMap). */
template <int ROWS, int BK, int T, int SR, bool KCONTIG>
struct TileLoader : TileMap<ROWS, BK, T, KCONTIG> {
  typedef TileMap<ROWS, BK, T, KCONTIG> Map;
  using Map::NL, Map::RS, Map::KSTEP, Map::KP, Map::KROWS;
  using Map::p, Map::ld, Map::r0, Map::c0, Map::rows_left, Map::vec_rows;
  float4 v[NL];

  __device__ __forceinline__ void advance() { p += KCONTIG ? (long long)BK : (long long)BK * ld; }

  __device__ __forceinline__ void load(int k_left) {
    if (vec_rows && k_left >= BK) {
#pragma unroll
      for (int l = 0; l < NL; ++l) {
        if (KCONTIG) {
          const int mp = l / KP, kp = l % KP;
          v[l] = ldg4(p + (long long)mp * RS * ld + kp * KSTEP);
        } else {
          v[l] = ldg4(p + (long long)l * KROWS * ld);
        }
      }
    } else {
#pragma unroll
      for (int l = 0; l < NL; ++l) {
        float e[4];
        if (KCONTIG) {
          const int mp = l / KP, kp = l % KP;
          const int r = r0 + mp * RS, c = c0 + kp * KSTEP;
          const float *q = p + (long long)mp * RS * ld + kp * KSTEP;
#pragma unroll
          for (int i = 0; i < 4; ++i) e[i] = (r < rows_left && c + i < k_left) ? __ldg(q + i) : 0.0f;
        } else {
          const int c = c0 + l * KROWS;
          const float *q = p + (long long)l * KROWS * ld;
#pragma unroll
          for (int i = 0; i < 4; ++i) e[i] = (c < k_left && r0 + i < rows_left) ? __ldg(q + i) : 0.0f;
        }
        v[l] = make_float4(e[0], e[1], e[2], e[3]);
      }
    }
  }

  __device__ __forceinline__ void store(float *s) const {
#pragma unroll
    for (int l = 0; l < NL; ++l) {
      if (KCONTIG) {
        const int mp = l / KP, kp = l % KP;
        float *q = s + (c0 + kp * KSTEP) * SR + r0 + mp * RS;
        q[0] = v[l].x;
        q[SR] = v[l].y;
        q[2 * SR] = v[l].z;
        q[3 * SR] = v[l].w;
      } else {
        *reinterpret_cast<float4 *>(s + (c0 + l * KROWS) * SR + r0) = v[l];
      }
    }
  }
};

/* N float4 of a k row of a shared tile, STEP floats apart from s, into f. */
template <int N, int STEP>
__device__ __forceinline__ void load_quads(const float *s, float (&f)[4 * N]) {
#pragma unroll
  for (int r = 0; r < N; ++r) {
    const float4 t = *reinterpret_cast<const float4 *>(s + r * STEP);
    f[4 * r] = t.x;
    f[4 * r + 1] = t.y;
    f[4 * r + 2] = t.z;
    f[4 * r + 3] = t.w;
  }
}

/* The thread's fragments of one k step: RM quads of op(A) 16 rows apart and
 * RN quads of op(B) 32 columns apart (see the blocking above). */
template <class C>
__device__ __forceinline__ void load_frag(const float *sa, const float *sb, int am, int bn, float (&fa)[C::TM],
                                          float (&fb)[C::TN]) {
  load_quads<C::RM, 16>(sa + am, fa);
  load_quads<C::RN, 32>(sb + bn, fb);
}

/* Where this block and thread work: tile origin (row0, col0), the thread's
 * fragment offsets (am, bn) inside the tile, and the k range of this slice. */
template <class C>
struct Place {
  int row0, col0, am, bn, kbeg, kblk, kg, kofs;
  __device__ __forceinline__ Place(const Params &P) {
    // Grouped rasterisation: consecutive blocks walk group_m tile rows, then the
    // next tile column, so blocks running together share A and B panels in L2.
    const int pid = blockIdx.x;
    const int per_group = P.group_m * P.tiles_n;
    const int first_m = (pid / per_group) * P.group_m;
    const int gsize = min(P.tiles_m - first_m, P.group_m);
    const int tile_m = first_m + (pid % per_group) % gsize;
    const int tile_n = (pid % per_group) / gsize;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int ty = lane >> 3, tx = lane & 7;
    const int wg = C::KG > 1 ? warp % (C::WM * C::WN) : warp, wy = wg / C::WN, wx = wg % C::WN;
    kg = C::KG > 1 ? warp / (C::WM * C::WN) : 0; // k group
    kofs = kg * C::KS;                            // its first step of every slice
    am = wy * C::WTM + ty * 4;
    bn = wx * C::WTN + tx * 4;
    kbeg = blockIdx.y * P.kchunk;
    kblk = min(P.K - kbeg, P.kchunk); // this block's depth (<= 0 for an empty slice)
    row0 = tile_m * C::BM;
    col0 = tile_n * C::BN;
  }
  // op(A)(i, p): A[i*lda + p] when A is k-contiguous, else A[p*lda + i].
  __device__ __forceinline__ const float *a_origin(const Params &P, bool ak) const {
    return P.A + (ak ? (long long)row0 * P.lda + kbeg : (long long)kbeg * P.lda + row0);
  }
  // op(B)(p, j): B[j*ldb + p] when B is k-contiguous, else B[p*ldb + j].
  __device__ __forceinline__ const float *b_origin(const Params &P, bool bk) const {
    return P.B + (bk ? (long long)col0 * P.ldb + kbeg : (long long)kbeg * P.ldb + col0);
  }
};

template <class C>
__device__ __forceinline__ void fma_step(float (&acc)[C::TM][C::TN], const float (&fa)[C::TM],
                                         const float (&fb)[C::TN]) {
#pragma unroll
  for (int i = 0; i < C::TM; ++i)
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
}

/* Epilogue: C = alpha*acc + beta*C (beta == 0: C is not read), or the
 * split-K atomic add of alpha*acc. */
template <class C>
__device__ __forceinline__ void store_tile(const Params &P, const Place<C> &pl, const float (&acc)[C::TM][C::TN]) {
  const int rbase = pl.row0 + pl.am, cbase = pl.col0 + pl.bn;
  const bool full = P.vecC && pl.row0 + C::BM <= P.M && pl.col0 + C::BN <= P.N && !P.atomic;
#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
    if (C::KG > 1 && i / 4 != pl.kg) continue; // the other k group stores this row
    const int r = rbase + (i / 4) * 16 + (i % 4);
    float *crow = P.C + (long long)r * P.ldc;
#pragma unroll
    for (int c = 0; c < C::RN; ++c) {
      const int col = cbase + c * 32;
      float o[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) o[j] = P.alpha * acc[i][4 * c + j];
      if (full) {
        float4 *q = reinterpret_cast<float4 *>(crow + col);
        if (P.beta != 0.0f) {
          const float4 old = *q;
          o[0] = fmaf(P.beta, old.x, o[0]);
          o[1] = fmaf(P.beta, old.y, o[1]);
          o[2] = fmaf(P.beta, old.z, o[2]);
          o[3] = fmaf(P.beta, old.w, o[3]);
        }
        *q = make_float4(o[0], o[1], o[2], o[3]);
      } else if (r < P.M) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < P.N) {
            if (P.atomic)
              atomicAdd(crow + col + j, o[j]);
            else
              crow[col + j] = P.beta != 0.0f ? fmaf(P.beta, crow[col + j], o[j]) : o[j];
          }
        }
      }
    }
  }
}

/* With k groups: the partners (threads t and t + T/2) add their partial
 * sums, each the rows it stores (register sub-tile r = its group), through
 * the shared buffer x (at least 2 * TN * T floats), two rows (2 * TN sums)
 * per thread at a time ([2 TN][T]: a warp's accesses are consecutive words).
 * Every thread must have finished reading the slice buffers that x overlays. */
template <class C>
__device__ __forceinline__ void add_partner_sums(float *x, const Place<C> &pl, float (&acc)[C::TM][C::TN]) {
  constexpr int TN = C::TN, V = 2 * TN; // two rows of a 4-row sub-tile per round
  const int t = threadIdx.x, partner = (t + C::T / 2) % C::T;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    __syncthreads();
#pragma unroll
    for (int r = 0; r < C::RM; ++r)
      if (r != pl.kg)
#pragma unroll
        for (int v = 0; v < V; ++v) x[v * C::T + t] = acc[r * 4 + 2 * h + v / TN][v % TN];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < C::RM; ++r)
      if (r == pl.kg)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[r * 4 + 2 * h + v / TN][v % TN] += x[v * C::T + partner];
  }
}

/* What both kernels do first: point the loaders of op(A) and op(B) (a
 * TileLoader or an AsyncLoader pair) at this block's first k slice, zero the
 * accumulators, and return the number of k slices of the block. */
template <class C, bool AK, bool BKC, class LA, class LB>
__device__ __forceinline__ int start_tile(const Params &P, const Place<C> &pl, LA &la, LB &lb,
                                          float (&acc)[C::TM][C::TN]) {
  la.init(pl.a_origin(P, AK), P.lda, P.M - pl.row0, P.vecA != 0, threadIdx.x);
  lb.init(pl.b_origin(P, BKC), P.ldb, P.N - pl.col0, P.vecB != 0, threadIdx.x);
#pragma unroll
  for (int i = 0; i < C::TM; ++i)
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = 0.0f;
  return pl.kblk > 0 ? (pl.kblk + C::BK - 1) / C::BK : 0;
}

template <class C, bool AK, bool BKC>
__global__ void __launch_bounds__(C::T, C::MINB) sgemm_kernel(const Params P) {
  constexpr int BK = C::BK, KU = C::KU, KS = C::KS, TM = C::TM, TN = C::TN;
  __shared__ __align__(16) float sA[2][BK][C::SA];
  __shared__ __align__(16) float sB[2][BK][C::SB];
  const Place<C> pl(P);
  const int am = pl.am, bn = pl.bn, kblk = pl.kblk, k0 = pl.kofs;
  TileLoader<C::BM, BK, C::T, C::SA, AK> la;
  TileLoader<C::BN, BK, C::T, C::SB, BKC> lb;
  float acc[TM][TN];
  const int KT = start_tile<C, AK, BKC>(P, pl, la, lb, acc);
  if (KT > 0) {
    float fa[2][TM], fb[2][TN];
    la.load(kblk);
    lb.load(kblk);
    la.store(&sA[0][0][0]);
    lb.store(&sB[0][0][0]);
    __syncthreads();
    load_frag<C>(&sA[0][k0][0], &sB[0][k0][0], am, bn, fa[0], fb[0]);
    for (int kt = 0; kt < KT; ++kt) {
      const int cur = kt & 1;
      const bool more = kt + 1 < KT;
      if (more) {
        la.advance();
        lb.advance();
        const int k_left = kblk - (kt + 1) * BK;
        la.load(k_left);
        lb.load(k_left);
      }
      // This group's KS steps of the slice (from k0), in chunks of KU
      // steps; the chunk body is unrolled, the chunk loop is not when KU < KS
      // (a shorter loop body for the instruction cache). KU is even, so
      // fragment buffer parity is static.
#pragma unroll 1
      for (int kb = 0; kb < KS; kb += KU) {
#pragma unroll
        for (int j = 0; j < KU; ++j) {
          if (j < KU - 1 || kb + KU < KS) {
            const int kn = k0 + kb + j + 1;
            load_frag<C>(&sA[cur][kn][0], &sB[cur][kn][0], am, bn, fa[(j + 1) & 1], fb[(j + 1) & 1]);
          } else if (more) {
            la.store(&sA[cur ^ 1][0][0]);
            lb.store(&sB[cur ^ 1][0][0]);
            __syncthreads();
            load_frag<C>(&sA[cur ^ 1][k0][0], &sB[cur ^ 1][k0][0], am, bn, fa[0], fb[0]);
          }
          fma_step<C>(acc, fa[j & 1], fb[j & 1]);
        }
      }
    }
  }
  if constexpr (C::KG > 1) {
    static_assert(2 * TN * C::T <= 2 * BK * C::SA, "the partial sums are exchanged through sA");
    add_partner_sums<C>(&sA[0][0][0], pl, acc); // (its first barrier: all fragment reads are done)
  }
  store_tile<C>(P, pl, acc);
}

/* ---- cp.async pipeline (Cfg::STAGES >= 2) ------------------------------
 * The same tiles, loaded with cp.async straight into shared memory (no
 * staging registers), STAGES slices in flight. An operand contiguous along
 * m / n moves as 16-byte copies; a k-contiguous one as 4-byte copies that
 * land transposed (TileMap's thread mapping and padding, as TileLoader, so
 * the shared-memory writes are conflict-free). Out-of-range elements are
 * zero-filled by the copy itself (source size 0). */
__device__ __forceinline__ unsigned smem_addr(const float *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void cp_async16(float *s, const float *g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(s)), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async4(float *s, const float *g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_addr(s)), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async4_zfill(float *s, const float *g, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(s)), "l"(g), "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

template <int ROWS, int BK, int T, int SR, bool KCONTIG>
struct AsyncLoader : TileMap<ROWS, BK, T, KCONTIG> {
  typedef TileMap<ROWS, BK, T, KCONTIG> Map; // the same thread -> element mapping as TileLoader
  using Map::NL, Map::RS, Map::KSTEP, Map::KP, Map::KROWS;
  using Map::p, Map::ld, Map::r0, Map::c0, Map::rows_left, Map::vec_rows;
  const float *org; // the slice's origin (a valid address for zero-fill copies)

  __device__ __forceinline__ void init(const float *g, long long ld_, int rows_left_, bool vec, int tid) {
    Map::init(g, ld_, rows_left_, vec, tid);
    org = g;
  }
  __device__ __forceinline__ void advance() {
    const long long step = KCONTIG ? (long long)BK : (long long)BK * ld;
    p += step;
    org += step;
  }
  /* Issue the copies of the current slice into the k-major tile s[BK][SR]. */
  __device__ __forceinline__ void issue(float *s, int k_left) const {
    const bool fast = vec_rows && k_left >= BK;
#pragma unroll
    for (int l = 0; l < NL; ++l) {
      if (KCONTIG) {
        const int mp = l / KP, kp = l % KP;
        const int r = r0 + mp * RS, c = c0 + kp * KSTEP;
        const float *q = p + (long long)mp * RS * ld + kp * KSTEP;
        float *d = s + c * SR + r;
        if (fast) {
#pragma unroll
          for (int i = 0; i < 4; ++i) cp_async4(d + i * SR, q + i);
        } else {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const bool ok = r < rows_left && c + i < k_left;
            cp_async4_zfill(d + i * SR, ok ? q + i : org, ok);
          }
        }
      } else {
        const int c = c0 + l * KROWS;
        const float *q = p + (long long)l * KROWS * ld;
        float *d = s + c * SR + r0;
        if (fast) {
          cp_async16(d, q);
        } else {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const bool ok = c < k_left && r0 + i < rows_left;
            cp_async4_zfill(d + i, ok ? q + i : org, ok);
          }
        }
      }
    }
  }
};

template <class C, bool AK, bool BKC>
__global__ void __launch_bounds__(C::T, C::MINB) sgemm_async_kernel(const Params P) {
  constexpr int BK = C::BK, TM = C::TM, TN = C::TN, S = C::STAGES;
  static_assert(S >= 2 && C::KU == BK, "cp.async kernel: 2+ stages, k slice fully unrolled");
  static_assert(S * BK * (C::SA + C::SB) * 4 <= 48 * 1024, "static shared memory limit");
  __shared__ __align__(16) float sA[S][BK][C::SA];
  __shared__ __align__(16) float sB[S][BK][C::SB];
  const Place<C> pl(P);
  const int am = pl.am, bn = pl.bn, kblk = pl.kblk;
  AsyncLoader<C::BM, BK, C::T, C::SA, AK> la;
  AsyncLoader<C::BN, BK, C::T, C::SB, BKC> lb;
  float acc[TM][TN];
  const int KT = start_tile<C, AK, BKC>(P, pl, la, lb, acc);
  if (KT > 0) {
    // Prologue: slices 0 .. S-2 in flight (one commit group each, empty ones too).
#pragma unroll
    for (int st = 0; st < S - 1; ++st) {
      if (st < KT) {
        la.issue(&sA[st][0][0], kblk - st * BK);
        lb.issue(&sB[st][0][0], kblk - st * BK);
        la.advance();
        lb.advance();
      }
      cp_async_commit();
    }
    cp_async_wait<S - 2>();
    __syncthreads();
    float fa[2][TM], fb[2][TN];
    load_frag<C>(&sA[0][0][0], &sB[0][0][0], am, bn, fa[0], fb[0]);
    int rd = 0, wr = S - 1; // stage being read / written
    for (int kt = 0; kt < KT; ++kt) {
      // Slice kt+S-1 goes to the stage read in iteration kt-1: every thread
      // passed the barrier after its last read of it.
      if (kt + S - 1 < KT) {
        la.issue(&sA[wr][0][0], kblk - (kt + S - 1) * BK);
        lb.issue(&sB[wr][0][0], kblk - (kt + S - 1) * BK);
        la.advance();
        lb.advance();
      }
      cp_async_commit();
      const bool more = kt + 1 < KT;
      const int nx = rd + 1 == S ? 0 : rd + 1;
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        if (kk < BK - 1) {
          load_frag<C>(&sA[rd][kk + 1][0], &sB[rd][kk + 1][0], am, bn, fa[(kk + 1) & 1], fb[(kk + 1) & 1]);
        } else if (more) {
          cp_async_wait<S - 2>(); // slice kt+1 has landed (this thread's copies)
          __syncthreads();        // ... and everyone's
          load_frag<C>(&sA[nx][0][0], &sB[nx][0][0], am, bn, fa[0], fb[0]);
        }
        fma_step<C>(acc, fa[kk & 1], fb[kk & 1]);
      }
      rd = nx;
      wr = wr + 1 == S ? 0 : wr + 1;
    }
  }
  store_tile<C>(P, pl, acc);
}

typedef cudaError_t (*LaunchFn)(const Params &, int splits, cudaStream_t);

template <class C, bool AK, bool BKC>
cudaError_t launch(const Params &P, int splits, cudaStream_t s) {
  dim3 grid((unsigned)(P.tiles_m * P.tiles_n), (unsigned)splits);
  if constexpr (C::STAGES > 0)
    sgemm_async_kernel<C, AK, BKC><<<grid, C::T, 0, s>>>(P);
  else
    sgemm_kernel<C, AK, BKC><<<grid, C::T, 0, s>>>(P);
  return cudaGetLastError();
}

/* One configuration: its tile and the launchers for the four operand storage
 * cases, indexed [A k-contiguous][B k-contiguous] (null when not compiled). */
struct ConfigEntry {
  const char *name;
  int bm, bn, bk;
  LaunchFn fn[2][2];
};

/* ALL: the four storage cases; otherwise only row-major NN (A k-contiguous,
 * B n-contiguous), which is what the tuning benchmark times. */
template <class C, bool ALL>
ConfigEntry make_entry(const char *name) {
  ConfigEntry e;
  e.name = name;
  e.bm = C::BM;
  e.bn = C::BN;
  e.bk = C::BK;
  e.fn[0][0] = e.fn[0][1] = e.fn[1][1] = nullptr;
  e.fn[1][0] = &launch<C, true, false>;
  if constexpr (ALL) {
    e.fn[0][0] = &launch<C, false, false>;
    e.fn[0][1] = &launch<C, false, true>;
    e.fn[1][1] = &launch<C, true, true>;
  }
  return e;
}

} // namespace parray_sgemm_detail

#endif
