/* sgemm_kernel.cu - the FP32 SGEMM kernel template behind parray_sgemm
 * (included by sgemm.cu and sgemm_variants.cu; it defines templates only, so
 * compiling it alone produces nothing). Row-major view only: the host code maps
 * column-major calls onto it by computing C^T = op(B)^T op(A)^T.
 *
 * Blocking (one configuration = RM, RN, WM, WN, BK; the default is
 * RM=RN=2, WM=4, WN=2, BK=8 -> 128x128x8 with 256 threads):
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
 * with atomicAdd after the host has scaled C by beta (or zeroed it). */
#ifndef PARRAY_SGEMM_KERNEL_CU
#define PARRAY_SGEMM_KERNEL_CU

#include <cuda_runtime.h>

#include <cstdint>

namespace parray_sgemm_detail {

struct Params {
  const float *A, *B;
  float *C;
  long long lda, ldb, ldc;
  int M, N, K;      // K: full depth
  int kchunk;       // k per split (a multiple of BK); == K rounded up when splits == 1
  float alpha, beta;
  int tiles_m, tiles_n, group_m;
  int vecA, vecB, vecC; // 16-byte global access allowed (aligned base, ld % 4 == 0)
  int atomic;           // split-K epilogue
};

template <int RM_, int RN_, int WM_, int WN_, int BK_, int MINB_, int KU_ = BK_>
struct Cfg {
  static constexpr int RM = RM_, RN = RN_, WM = WM_, WN = WN_, BK = BK_, MINB = MINB_, KU = KU_;
  static_assert(KU % 2 == 0 && BK % KU == 0, "k chunk must be even and divide BK");
  static constexpr int T = WM * WN * 32;
  static constexpr int TM = 4 * RM, TN = 4 * RN;
  static constexpr int WTM = 16 * RM, WTN = 32 * RN;
  static constexpr int BM = WM * WTM, BN = WN * WTN;
  static constexpr int SA = BM + 4, SB = BN + 4; // padded k-major row strides (floats)
};

__device__ __forceinline__ float4 ldg4(const float *p) { return __ldg(reinterpret_cast<const float4 *>(p)); }

/* Moves a ROWS x BK tile of one operand (ROWS along m for A, along n for B)
 * from global memory to a k-major shared tile s[BK][SR]. Element (r, c) of the
 * tile (r < ROWS along m/n, c < BK along k) is at g[r*sr + c*sk]; the unit
 * stride is along k (KCONTIG) or along r (!KCONTIG). */
template <int ROWS, int BK, int T, int SR, bool KCONTIG>
struct TileLoader {
  static constexpr int NL = ROWS * BK / (4 * T); // float4 per thread per slice
  static_assert(NL >= 1 && ROWS * BK == NL * 4 * T, "tile must split evenly into float4 per thread");
  // KCONTIG: 2 threads per row, each a k-quad; passes over rows (MP) and k octets (KP).
  static constexpr int KP = BK / 8, MP = KCONTIG ? ROWS / (T / 2) : 1;
  static_assert(!KCONTIG || (BK % 8 == 0 && MP * KP == NL), "k-contiguous mapping");
  // !KCONTIG: a k row has ROWS/4 float4; T threads cover T*4/ROWS k rows per pass.
  static constexpr int KROWS = KCONTIG ? 1 : T * 4 / ROWS;
  static_assert(KCONTIG || (T * 4) % ROWS == 0, "contiguous mapping");

  const float *p;      // this thread's element (r0, c0) of the current slice
  long long ld;        // leading dimension (the non-unit stride)
  int r0, c0;          // this thread's first element within the tile
  int rows_left;       // rows of the matrix from the tile origin
  bool vec_rows;       // vector path allowed for this tile's rows
  float4 v[NL];

  __device__ __forceinline__ void init(const float *g, long long ld_, int rows_left_, bool vec, int tid) {
    ld = ld_;
    rows_left = rows_left_;
    vec_rows = vec && rows_left_ >= ROWS;
    if (KCONTIG) {
      r0 = tid >> 1;
      c0 = (tid & 1) * 4;
      p = g + (long long)r0 * ld + c0;
    } else {
      c0 = tid / (ROWS / 4);
      r0 = (tid % (ROWS / 4)) * 4;
      p = g + (long long)c0 * ld + r0;
    }
  }
  __device__ __forceinline__ void advance() { p += KCONTIG ? (long long)BK : (long long)BK * ld; }

  __device__ __forceinline__ void load(int k_left) {
    if (vec_rows && k_left >= BK) {
#pragma unroll
      for (int l = 0; l < NL; ++l) {
        if (KCONTIG) {
          const int mp = l / KP, kp = l % KP;
          v[l] = ldg4(p + (long long)mp * (T / 2) * ld + kp * 8);
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
          const int r = r0 + mp * (T / 2), c = c0 + kp * 8;
          const float *q = p + (long long)mp * (T / 2) * ld + kp * 8;
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
        float *q = s + (c0 + kp * 8) * SR + r0 + mp * (T / 2);
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

template <class C>
__device__ __forceinline__ void load_frag(const float *sa, const float *sb, int am, int bn, float (&fa)[C::TM],
                                          float (&fb)[C::TN]) {
#pragma unroll
  for (int r = 0; r < C::RM; ++r) {
    const float4 t = *reinterpret_cast<const float4 *>(sa + am + r * 16);
    fa[4 * r] = t.x;
    fa[4 * r + 1] = t.y;
    fa[4 * r + 2] = t.z;
    fa[4 * r + 3] = t.w;
  }
#pragma unroll
  for (int c = 0; c < C::RN; ++c) {
    const float4 t = *reinterpret_cast<const float4 *>(sb + bn + c * 32);
    fb[4 * c] = t.x;
    fb[4 * c + 1] = t.y;
    fb[4 * c + 2] = t.z;
    fb[4 * c + 3] = t.w;
  }
}

template <class C, bool AK, bool BKC>
__global__ void __launch_bounds__(C::T, C::MINB) sgemm_kernel(const Params P) {
  constexpr int BK = C::BK, KU = C::KU, BM = C::BM, BN = C::BN, TM = C::TM, TN = C::TN;
  __shared__ __align__(16) float sA[2][BK][C::SA];
  __shared__ __align__(16) float sB[2][BK][C::SB];

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
  const int wy = warp / C::WN, wx = warp % C::WN;
  const int am = wy * C::WTM + ty * 4, bn = wx * C::WTN + tx * 4;

  const int kbeg = blockIdx.y * P.kchunk;
  const int kblk = min(P.K - kbeg, P.kchunk); // this block's depth (may be <= 0 for an empty slice)
  const int row0 = tile_m * BM, col0 = tile_n * BN;

  TileLoader<BM, BK, C::T, C::SA, AK> la;
  TileLoader<BN, BK, C::T, C::SB, BKC> lb;
  // op(A)(i, p): A[i*lda + p] when A is k-contiguous, else A[p*lda + i].
  la.init(P.A + (AK ? (long long)row0 * P.lda + kbeg : (long long)kbeg * P.lda + row0), P.lda, P.M - row0,
          P.vecA != 0, tid);
  // op(B)(p, j): B[j*ldb + p] when B is k-contiguous, else B[p*ldb + j].
  lb.init(P.B + (BKC ? (long long)col0 * P.ldb + kbeg : (long long)kbeg * P.ldb + col0), P.ldb, P.N - col0,
          P.vecB != 0, tid);

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  const int KT = kblk > 0 ? (kblk + BK - 1) / BK : 0;
  if (KT > 0) {
    float fa[2][TM], fb[2][TN];
    la.load(kblk);
    lb.load(kblk);
    la.store(&sA[0][0][0]);
    lb.store(&sB[0][0][0]);
    __syncthreads();
    load_frag<C>(&sA[0][0][0], &sB[0][0][0], am, bn, fa[0], fb[0]);
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
      // The k slice in chunks of KU steps; the chunk body is unrolled, the
      // chunk loop is not when KU < BK (a shorter loop body for the
      // instruction cache). KU is even, so fragment buffer parity is static.
#pragma unroll 1
      for (int kb = 0; kb < BK; kb += KU) {
#pragma unroll
        for (int j = 0; j < KU; ++j) {
          if (j < KU - 1 || kb + KU < BK) {
            const int kn = kb + j + 1;
            load_frag<C>(&sA[cur][kn][0], &sB[cur][kn][0], am, bn, fa[(j + 1) & 1], fb[(j + 1) & 1]);
          } else if (more) {
            la.store(&sA[cur ^ 1][0][0]);
            lb.store(&sB[cur ^ 1][0][0]);
            __syncthreads();
            load_frag<C>(&sA[cur ^ 1][0][0], &sB[cur ^ 1][0][0], am, bn, fa[0], fb[0]);
          }
#pragma unroll
          for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int jj = 0; jj < TN; ++jj) acc[i][jj] = fmaf(fa[j & 1][i], fb[j & 1][jj], acc[i][jj]);
        }
      }
    }
  }

  // Epilogue: C = alpha*acc + beta*C (beta == 0: C is not read), or the
  // split-K atomic add of alpha*acc.
  const int rbase = row0 + am, cbase = col0 + bn;
  const bool full = P.vecC && row0 + BM <= P.M && col0 + BN <= P.N && !P.atomic;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
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

typedef cudaError_t (*LaunchFn)(const Params &, int splits, cudaStream_t);

template <class C, bool AK, bool BKC>
cudaError_t launch(const Params &P, int splits, cudaStream_t s) {
  dim3 grid((unsigned)(P.tiles_m * P.tiles_n), (unsigned)splits);
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
