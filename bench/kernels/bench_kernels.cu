/* SPDX-License-Identifier: Apache-2.0 */
/* bench_kernels.cu - times the elementwise and reduction kernels of the
 * runtime next to cudaMemcpy device-to-device moving the same number of
 * bytes, two ways: CUDA events around each call (median of 30 runs, after a
 * warm-up of at least 25 ms of GPU time), and back-to-back calls replayed
 * from a CUDA graph (30 calls per graph, median of 7 replays), which leaves
 * no host launch gaps between the calls. Every run takes a fresh buffer set
 * from a rotation whose footprint is several times the L2. Bandwidth counts
 * bytes read + bytes written. --variants times tuning variants of the
 * elementwise engine and of the row/column reductions instead.
 * Output: CSV on stdout; merged with the PyTorch numbers by compare.py. */
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "../../kernels/elementwise/elementwise_ops.cuh"
#include "../../tests/common/cuda_check.h"
#include "parray/elementwise.cuh"
#include "parray/kernels.h"

static const int kWarm = 5, kRuns = 30;
static const size_t kFootprint = (size_t)512 << 20; /* rotate until this much memory is touched */
static cudaStream_t g_s;

__global__ void fill_rand(uint32_t *p, size_t words, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t z = (uint32_t)i * 2654435761u ^ seed;
    z ^= z >> 15, z *= 2246822519u, z ^= z >> 13, z *= 3266489917u, z ^= z >> 16;
    /* keep floats finite and moderate: clear the top exponent bit of each half-word/word */
    p[i] = z & 0xbfffbfffu;
  }
}

/* A set of buffers: `nin` inputs of in_bytes and one output of out_bytes. */
struct Sets {
  std::vector<char *> in[3], out;
  int k = 0;
};
static Sets make_sets(int nin, size_t in_bytes, size_t out_bytes) {
  Sets s;
  const size_t per = nin * in_bytes + out_bytes;
  s.k = (int)std::max<size_t>(1, (kFootprint + per - 1) / per);
  for (int i = 0; i < s.k; ++i) {
    for (int j = 0; j < nin; ++j) {
      char *p;
      CK(cudaMalloc(&p, in_bytes));
      fill_rand<<<2048, 256, 0, g_s>>>((uint32_t *)p, in_bytes / 4, 1234u + 77u * i + j);
      s.in[j].push_back(p);
    }
    char *o;
    CK(cudaMalloc(&o, out_bytes));
    CK(cudaMemsetAsync(o, 0xff, out_bytes, g_s));
    s.out.push_back(o);
  }
  CK(cudaStreamSynchronize(g_s));
  return s;
}
static void free_sets(Sets &s) {
  for (int j = 0; j < 3; ++j)
    for (char *p : s.in[j]) cudaFree(p);
  for (char *p : s.out) cudaFree(p);
}

/* Warm-up: kWarm calls, then more until about kWarmMs of GPU time has run
 * (the first calls after an idle spell or fresh allocations ran up to 8%
 * slower on the H200). Returns the number of calls made. */
static const double kWarmMs = 25.0;
static int warm_up(int nsets, const std::function<void(int)> &f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, g_s));
  for (int i = 0; i < kWarm; ++i) f(i % nsets);
  CK(cudaEventRecord(b, g_s));
  CK(cudaStreamSynchronize(g_s));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  int more = ms > 0 ? (int)((kWarmMs - ms) / (ms / kWarm)) : 0;
  if (more > 2000) more = 2000;
  for (int i = 0; i < more; ++i) f((kWarm + i) % nsets);
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return kWarm + (more > 0 ? more : 0);
}

/* median time in microseconds of f(set index): CUDA events around each call */
static double time_us(int nsets, const std::function<void(int)> &f) {
  cudaEvent_t e[2 * kRuns];
  for (auto &x : e) CK(cudaEventCreate(&x));
  const int w = warm_up(nsets, f);
  for (int i = 0; i < kRuns; ++i) {
    CK(cudaEventRecord(e[2 * i], g_s));
    f((i + w) % nsets);
    CK(cudaEventRecord(e[2 * i + 1], g_s));
  }
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_s));
  std::vector<float> ms(kRuns);
  for (int i = 0; i < kRuns; ++i) CK(cudaEventElapsedTime(&ms[i], e[2 * i], e[2 * i + 1]));
  for (auto &x : e) cudaEventDestroy(x);
  std::sort(ms.begin(), ms.end());
  return 1e3 * (kRuns % 2 ? ms[kRuns / 2] : 0.5 * (ms[kRuns / 2 - 1] + ms[kRuns / 2]));
}

/* Back-to-back calls without host launch gaps: kRuns calls (rotating sets)
 * captured in a CUDA graph; the median over kReplays timed replays of the
 * graph, divided by kRuns. */
static const int kReplays = 7;
static double time_graph_us(int nsets, const std::function<void(int)> &f) {
  warm_up(nsets, f);
  CK(cudaStreamSynchronize(g_s));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(g_s, cudaStreamCaptureModeRelaxed));
  for (int i = 0; i < kRuns; ++i) f(i % nsets);
  CK(cudaStreamEndCapture(g_s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t e[2 * kReplays];
  for (auto &x : e) CK(cudaEventCreate(&x));
  CK(cudaGraphLaunch(ge, g_s));
  for (int i = 0; i < kReplays; ++i) {
    CK(cudaEventRecord(e[2 * i], g_s));
    CK(cudaGraphLaunch(ge, g_s));
    CK(cudaEventRecord(e[2 * i + 1], g_s));
  }
  CK(cudaStreamSynchronize(g_s));
  std::vector<float> ms(kReplays);
  for (int i = 0; i < kReplays; ++i) CK(cudaEventElapsedTime(&ms[i], e[2 * i], e[2 * i + 1]));
  for (auto &x : e) cudaEventDestroy(x);
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));
  std::sort(ms.begin(), ms.end());
  return 1e3 * ms[kReplays / 2] / kRuns;
}

/* device-to-device copy moving `bytes_rw` bytes (read + written); *graph_tbs
 * gets the back-to-back (graph) figure */
static double copy_tbs(size_t bytes_rw, double *graph_tbs) {
  const size_t b = bytes_rw / 2 / 256 * 256;
  Sets s = make_sets(1, b, b);
  auto f = [&](int i) { CK(cudaMemcpyAsync(s.out[i], s.in[0][i], b, cudaMemcpyDeviceToDevice, g_s)); };
  const double us = time_us(s.k, f);
  *graph_tbs = (double)(2 * b) / time_graph_us(s.k, f) * 1e-6;
  free_sets(s);
  return (double)(2 * b) / us * 1e-6;
}

/* CSV: name, bytes, us, TB/s, copy TB/s (events), then us, TB/s, copy TB/s
 * of the back-to-back graph timing */
static void report(const std::string &name, size_t bytes_rw, double us, double us_graph) {
  const double tbs = (double)bytes_rw / us * 1e-6;
  double cg = 0;
  const double c = copy_tbs(bytes_rw, &cg);
  printf("%s,%zu,%.2f,%.3f,%.3f,%.2f,%.3f,%.3f\n", name.c_str(), bytes_rw, us, tbs, c, us_graph,
         (double)bytes_rw / us_graph * 1e-6, cg);
  fflush(stdout);
}

static std::string mb(size_t bytes) { return std::to_string(bytes >> 20) + "MB"; }

/* False when BENCH_ONLY in the environment names other cases only (a
 * comma-separated list of case names, to time some cases alone, e.g. under a
 * profiler; torch_kernels.py reads it too). */
static bool wanted(const std::string &name) {
  const char *only = getenv("BENCH_ONLY");
  if (!only || !*only) return true;
  const std::string list = std::string(",") + only + ",";
  return list.find("," + name + ",") != std::string::npos;
}
/* With BENCH_ONLY, a profiler started with --profile-from-start off sees
 * only what follows the inputs' generation. */
static void profile_from_here() {
  const char *only = getenv("BENCH_ONLY");
  if (only && *only) CK(cudaProfilerStart());
}

/* Elementwise through the library API. */
static void bench_ew_api(const char *op, parray_dtype t, size_t in_bytes) {
  if (!wanted(std::string(op) + " " + parray_dtype_name(t) + " " + mb(in_bytes))) return;
  const size_t es = parray_dtype_size(t);
  const int64_t n = (int64_t)(in_bytes / es);
  const bool add = !strcmp(op, "add"), cast = !strcmp(op, "cast");
  const parray_dtype ot = cast ? (t == PARRAY_F32 ? PARRAY_F16 : PARRAY_F32) : t;
  const size_t out_bytes = n * parray_dtype_size(ot);
  Sets s = make_sets(add ? 2 : 1, in_bytes, out_bytes);
  profile_from_here();
  auto f = [&](int i) {
    if (add) PK(parray_binary_cuda(PARRAY_OP_ADD, t, s.out[i], s.in[0][i], s.in[1][i], n, g_s));
    else if (cast) PK(parray_cast_cuda(ot, s.out[i], t, s.in[0][i], n, g_s));
    else PK(parray_unary_cuda(PARRAY_OP_RELU, t, s.out[i], s.in[0][i], n, 0, g_s));
  };
  const double us = time_us(s.k, f), usg = time_graph_us(s.k, f);
  double us_fix = 0, usg_fix = 0;
  if (!add && !cast) { /* every run into one output buffer, as torch.relu's caching allocator does */
    auto ff = [&](int i) { PK(parray_unary_cuda(PARRAY_OP_RELU, t, s.out[0], s.in[0][i], n, 0, g_s)); };
    us_fix = time_us(s.k, ff);
    usg_fix = time_graph_us(s.k, ff);
  }
  free_sets(s);
  report(std::string(op) + " " + parray_dtype_name(t) + " " + mb(in_bytes), (add ? 2 : 1) * in_bytes + out_bytes, us,
         usg);
  if (us_fix > 0)
    report(std::string("relu_fix ") + parray_dtype_name(t) + " " + mb(in_bytes), in_bytes + out_bytes, us_fix, usg_fix);
}

/* Tuning variants of the engine (parray_ew::Tuning<U, waves, threads,
 * hints, wide>) for add / relu / cast of f32 (cast to f16) and f16 (cast to
 * f32), on one rotation of buffer sets per case. "cur" is the library
 * default, timed first and last ("cur#2") to show the run-to-run spread.
 * "fixout" rows write every run to the same output buffer (what torch.relu
 * does through its caching allocator), all others rotate outputs too. */
namespace ew = parray_ew;
template <typename Tun, typename T, typename O>
static cudaError_t ew_run(int op, int64_t n, void *y, const void *a, const void *b, cudaStream_t s) {
  if (op == 0) return ew::binary<Tun>(parray_k::OpAdd<T>{}, n, (T *)y, (const T *)a, (const T *)b, s);
  if (op == 1) return ew::unary<Tun>(parray_k::OpRelu<T>{}, n, (T *)y, (const T *)a, s);
  return ew::unary<Tun>(parray_k::OpCast<O, T>{}, n, (O *)y, (const T *)a, s);
}
using EwFn = cudaError_t (*)(int, int64_t, void *, const void *, const void *, cudaStream_t);
struct EwVariant {
  const char *name;
  EwFn f32, f16;
};
#define EWV(name, ...)                                                                          \
  EwVariant {                                                                                   \
    name, ew_run<ew::Tuning<__VA_ARGS__>, float, __half>, ew_run<ew::Tuning<__VA_ARGS__>, __half, float> \
  }
static const EwVariant kEwVariants[] = {
    {"cur", ew_run<ew::DefaultTuning, float, __half>, ew_run<ew::DefaultTuning, __half, float>},
    EWV("u1w32", 1, 32),
    EWV("t128u2", 2, 0, 128),
    EWV("t128u1", 1, 0, 128),
    EWV("t256u2", 2, 0, 256),
    EWV("t256u1", 1, 0, 256),
    EWV("t128u4", 4, 0, 128),
    EWV("t128u2cs", 2, 0, 128, ew::kHintLoadCs | ew::kHintStoreCs),
    EWV("t128u2stcs", 2, 0, 128, ew::kHintStoreCs),
    EWV("t128u2ef", 2, 0, 128, ew::kHintEvictFirst),
    EWV("t128u2pf", 2, 0, 128, ew::kHintPrefetch),
    EWV("u1w32stcs", 1, 32, 256, ew::kHintStoreCs),
    EWV("t128u2w", 2, 0, 128, 0, true),
    EWV("t128u1w", 1, 0, 128, 0, true),
    EWV("t256u1w", 1, 0, 256, 0, true),
    EWV("u1stcs", 1, 0, 128, ew::kHintStoreCs), /* the default shape, streaming stores */
    EWV("u1ldcs", 1, 0, 128, ew::kHintLoadCs),
    EWV("u1ef", 1, 0, 128, ew::kHintEvictFirst),
    EWV("occ8", 1, 0, 128, 0, false, 8), /* the default shape, at most 8 blocks per multiprocessor */
    EWV("occ10", 1, 0, 128, 0, false, 10),
    EWV("occ12", 1, 0, 128, 0, false, 12), /* PyTorch's residency for its 33 registers */
    EWV("occ13", 0, 0, 128, 0, false, 13),
    EWV("occ14", 1, 0, 128, 0, false, 14),
    EWV("occ15", 0, 0, 128, 0, false, 15),
    EWV("occ12cs", 1, 0, 128, ew::kHintStoreCs, false, 12),
    EWV("nocap", 0, 0, 128), /* no residency cap */
    {"cur#2", ew_run<ew::DefaultTuning, float, __half>, ew_run<ew::DefaultTuning, __half, float>},
};

static void bench_ew_variants(int op, parray_dtype t, size_t in_bytes) {
  static const char *ops[] = {"add", "relu", "cast"};
  if (!wanted(std::string(ops[op]) + " " + parray_dtype_name(t) + " " + mb(in_bytes))) return;
  const size_t es = parray_dtype_size(t);
  const int64_t n = (int64_t)(in_bytes / es);
  const size_t out_bytes = op == 2 ? n * (t == PARRAY_F32 ? 2 : 4) : n * es;
  Sets s = make_sets(op == 0 ? 2 : 1, in_bytes, out_bytes);
  const size_t rw = (op == 0 ? 2 : 1) * in_bytes + out_bytes;
  auto emit = [&](const char *vn, double us) {
    printf("v%s %s %s %s,%zu,%.2f,%.3f,\n", vn, ops[op], parray_dtype_name(t), mb(in_bytes).c_str(), rw, us,
           (double)rw / us * 1e-6);
    fflush(stdout);
  };
  const char *only = getenv("EWV"); /* comma-separated variant names to time (default: all) */
  for (const EwVariant &v : kEwVariants) {
    if (only && *only && (std::string(",") + only + ",").find(std::string(",") + v.name + ",") == std::string::npos)
      continue;
    const EwFn f = t == PARRAY_F32 ? v.f32 : v.f16;
    emit(v.name, time_us(s.k, [&](int i) { CK(f(op, n, s.out[i], s.in[0][i], op == 0 ? s.in[1][i] : nullptr, g_s)); }));
  }
  if (op == 1) { /* one output buffer for every run, like torch.relu's allocator */
    const EwFn f = t == PARRAY_F32 ? kEwVariants[0].f32 : kEwVariants[0].f16;
    emit("fixout-cur", time_us(s.k, [&](int i) { CK(f(op, n, s.out[0], s.in[0][i], nullptr, g_s)); }));
  }
  free_sets(s);
}

extern "C" parray_status parray__reduce_rows_sum_variant(int variant, float *y, parray_dtype xdt, const void *x,
                                                         int64_t rows, int64_t cols, cudaStream_t s);
extern "C" parray_status parray__reduce_cols_sum_variant(int variant, float *y, parray_dtype xdt, const void *x,
                                                         int64_t rows, int64_t cols, void *work,
                                                         size_t *work_bytes, cudaStream_t s);
extern "C" parray_status parray__reduce_cols_stamps(unsigned long long *host, int max_blocks);

/* Column variants to time: COLV in the environment (comma-separated
 * numbers), else every variant reduce_cols.cu has. */
static std::vector<int> col_variant_list(parray_dtype t) {
  std::vector<int> v;
  const char *e = getenv("COLV");
  if (e && *e) {
    for (const char *p = e; *p;) {
      v.push_back(atoi(p));
      while (*p && *p != ',') ++p;
      if (*p == ',') ++p;
    }
    return v;
  }
  size_t wb = 0;
  for (int k = 0; parray__reduce_cols_sum_variant(k, nullptr, t, nullptr, 64, 32, nullptr, &wb, g_s) == PARRAY_OK; ++k)
    v.push_back(k);
  return v;
}

/* After a stamped variant's timing: one more call, then per block the
 * globaltimer stamps (start, block folded, ticket taken, last block done),
 * summarised relative to the earliest start, in microseconds, on stderr. */
static void print_stamps(int v, const char *name, const std::function<void()> &call) {
  const int nb = 1024, K = 6; /* kStampBlocks, kStamps of reduce_cols.cu */
  std::vector<unsigned long long> st((size_t)nb * K);
  PK(parray__reduce_cols_stamps(nullptr, nb));
  call();
  CK(cudaStreamSynchronize(g_s));
  PK(parray__reduce_cols_stamps(st.data(), nb));
  std::vector<double> s0, s1, s2;
  unsigned long long t0 = ~0ull, fin = 0, ld = 0, tree = 0, tk = 0;
  for (int b = 0; b < nb; ++b)
    if (st[K * b]) t0 = std::min(t0, st[K * b]);
  for (int b = 0; b < nb; ++b) {
    const unsigned long long *p = &st[(size_t)K * b];
    if (!p[0]) continue;
    s0.push_back((p[0] - t0) * 1e-3);
    s1.push_back((p[1] - t0) * 1e-3);
    if (p[2]) s2.push_back((p[2] - t0) * 1e-3);
    if (p[3] && p[3] > fin) fin = p[3], tk = p[2], ld = p[4], tree = p[5];
  }
  auto q = [](std::vector<double> x, double f) {
    if (x.empty()) return -1.0;
    std::sort(x.begin(), x.end());
    return x[(size_t)(f * (x.size() - 1))];
  };
  auto at = [&](unsigned long long t) { return t ? (t - t0) * 1e-3 : -1.0; };
  fprintf(stderr, "stamps vc%d %s: %zu blocks; start last %.2f; folded min %.2f p10 %.2f med %.2f p90 %.2f max %.2f; "
          "ticket max %.2f; last block: ticket %.2f, partial rows loaded %.2f, tree %.2f, done %.2f us\n",
          v, name, s0.size(), q(s0, 1), q(s1, 0), q(s1, 0.1), q(s1, 0.5), q(s1, 0.9), q(s1, 1), q(s2, 1), at(tk),
          at(ld), at(tree), at(fin));
}

/* Row- and column-sum kernel variants (see reduce_rows.cu / reduce_cols.cu). */
static void bench_reduce_variants(bool rowk, parray_dtype t, int64_t rows, int64_t cols, const char *label) {
  if (!wanted(std::string(rowk ? "rowsum " : "colsum ") + parray_dtype_name(t) + " " + label)) return;
  const size_t in_bytes = (size_t)rows * cols * parray_dtype_size(t);
  const int64_t nout = rowk ? rows : cols;
  const size_t out_bytes = nout * 4, rw = in_bytes + out_bytes;
  Sets s = make_sets(1, in_bytes, out_bytes < 256 ? 256 : out_bytes);
  const int rv[] = {0, 1, 41, 81, 80, 0};
  const std::vector<int> cv = rowk ? std::vector<int>() : col_variant_list(t);
  const int ncv = (int)cv.size(); /* column variants (kColVariants of reduce_cols.cu), the first again last */
  const int nv = rowk ? (int)(sizeof rv / sizeof rv[0]) : ncv + 1;
  for (int k = 0; k < nv; ++k) {
    const int v = rowk ? rv[k] : cv[k % ncv];
    double us;
    void *work = nullptr;
    size_t wb = 0;
    if (rowk) {
      us = time_us(s.k, [&](int i) { PK(parray__reduce_rows_sum_variant(v, (float *)s.out[i], t, s.in[0][i], rows, cols, g_s)); });
    } else {
      PK(parray__reduce_cols_sum_variant(v, nullptr, t, nullptr, rows, cols, nullptr, &wb, g_s));
      CK(cudaMalloc(&work, wb));
      CK(cudaMemset(work, 0, wb));
      us = time_us(s.k, [&](int i) {
        PK(parray__reduce_cols_sum_variant(v, (float *)s.out[i], t, s.in[0][i], rows, cols, work, &wb, g_s));
      });
      if (v == 22 || v == 23) /* the stamped variants */
        print_stamps(v, (std::string(parray_dtype_name(t)) + " " + label).c_str(), [&] {
          PK(parray__reduce_cols_sum_variant(v, (float *)s.out[0], t, s.in[0][0], rows, cols, work, &wb, g_s));
        });
      CK(cudaFree(work));
    }
    printf("v%s%d%s %s %s %s,%zu,%.2f,%.3f,\n", rowk ? "r" : "c", v, k == nv - 1 ? "#2" : "",
           rowk ? "rowsum" : "colsum", parray_dtype_name(t), label, rw, us, (double)rw / us * 1e-6);
    fflush(stdout);
  }
  free_sets(s);
}

static void bench_reduce(const char *kind, parray_dtype t, int64_t rows, int64_t cols, const char *label) {
  if (!wanted(std::string(kind) + " " + parray_dtype_name(t) + " " + label)) return;
  const size_t es = parray_dtype_size(t);
  const size_t in_bytes = (size_t)rows * cols * es;
  const bool all = !strcmp(kind, "sum"), rowk = !strcmp(kind, "rowsum");
  const int64_t nout = all ? 1 : rowk ? rows : cols;
  const parray_dtype ot = t == PARRAY_F64 ? PARRAY_F64 : PARRAY_F32;
  const size_t out_bytes = nout * parray_dtype_size(ot);
  Sets s = make_sets(1, in_bytes, out_bytes < 256 ? 256 : out_bytes);
  profile_from_here();
  const size_t wb = all ? parray_reduce_all_workspace(t, rows * cols) : parray_reduce_cols_workspace(t, rows, cols);
  void *work;
  CK(cudaMalloc(&work, wb));
  CK(cudaMemset(work, 0, wb));
  auto f = [&](int i) {
    if (all) PK(parray_reduce_all_cuda(PARRAY_REDUCE_SUM, ot, s.out[i], t, s.in[0][i], rows * cols, work, wb, g_s));
    else if (rowk) PK(parray_reduce_rows_cuda(PARRAY_REDUCE_SUM, ot, s.out[i], t, s.in[0][i], rows, cols, cols, g_s));
    else PK(parray_reduce_cols_cuda(PARRAY_REDUCE_SUM, ot, s.out[i], t, s.in[0][i], rows, cols, cols, work, wb, g_s));
  };
  const double us = time_us(s.k, f), usg = time_graph_us(s.k, f);
  cudaFree(work);
  free_sets(s);
  report(std::string(kind) + " " + parray_dtype_name(t) + " " + label, in_bytes + out_bytes, us, usg);
}

int main(int argc, char **argv) {
  const bool variants = argc > 1 && !strcmp(argv[1], "--variants");
  const bool profile = argc > 1 && !strcmp(argv[1], "--profile"); /* one call each, for ncu */
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  fprintf(stderr, "device: %s, %d SMs, L2 %d MB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  const size_t sizes[] = {(size_t)16 << 20, (size_t)64 << 20, (size_t)256 << 20, (size_t)1 << 30};
  printf("name,bytes_rw,us,tbs,copy_tbs,us_graph,tbs_graph,copy_tbs_graph\n");
  if (variants) {
    for (parray_dtype t : {PARRAY_F32, PARRAY_F16})
      for (int op = 0; op < 3; ++op)
        for (size_t sz : sizes) bench_ew_variants(op, t, sz);
    for (parray_dtype t : {PARRAY_F32, PARRAY_F16}) {
      bench_reduce_variants(true, t, 1 << 20, 32, "1Mx32");
      bench_reduce_variants(true, t, 1 << 16, 1024, "64Kx1024");
      bench_reduce_variants(false, t, 1 << 20, 32, "1Mx32");
      bench_reduce_variants(false, t, 1 << 16, 1024, "64Kx1024");
    }
    return 0;
  }
  if (profile) {
    const int64_t n = (int64_t)1 << 26; /* 256 MB of fp32 */
    char *a, *b, *y, *w;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMalloc(&y, n * 4));
    fill_rand<<<2048, 256, 0, g_s>>>((uint32_t *)a, n, 1);
    fill_rand<<<2048, 256, 0, g_s>>>((uint32_t *)b, n, 2);
    const size_t wb = parray_reduce_cols_workspace(PARRAY_F32, 1 << 20, 32) +
                      parray_reduce_cols_workspace(PARRAY_F16, 1 << 20, 32) + parray_reduce_all_workspace(PARRAY_F32, n);
    CK(cudaMalloc(&w, wb));
    CK(cudaMemset(w, 0, wb));
    PK(parray_binary_cuda(PARRAY_OP_ADD, PARRAY_F32, y, a, b, n, g_s));
    PK(parray_cast_cuda(PARRAY_F16, y, PARRAY_F32, a, n, g_s));
    PK(parray_cast_cuda(PARRAY_F32, y, PARRAY_F16, a, n / 2, g_s));
    PK(parray__reduce_rows_sum_variant(1, (float *)y, PARRAY_F32, a, 1 << 20, 32, g_s)); /* first version */
    PK(parray__reduce_rows_sum_variant(1, (float *)y, PARRAY_F16, a, 1 << 20, 32, g_s));
    PK(parray_reduce_rows_cuda(PARRAY_REDUCE_SUM, PARRAY_F32, y, PARRAY_F16, a, 1 << 20, 32, 32, g_s));
    PK(parray_reduce_cols_cuda(PARRAY_REDUCE_SUM, PARRAY_F32, y, PARRAY_F16, a, 1 << 20, 32, 32, w, wb, g_s));
    PK(parray_reduce_rows_cuda(PARRAY_REDUCE_SUM, PARRAY_F32, y, PARRAY_F32, a, 1 << 20, 32, 32, g_s));
    PK(parray_reduce_rows_cuda(PARRAY_REDUCE_SUM, PARRAY_F32, y, PARRAY_F32, a, 1 << 16, 1024, 1024, g_s));
    PK(parray_reduce_cols_cuda(PARRAY_REDUCE_SUM, PARRAY_F32, y, PARRAY_F32, a, 1 << 20, 32, 32, w, wb, g_s));
    PK(parray_reduce_all_cuda(PARRAY_REDUCE_SUM, PARRAY_F32, y, PARRAY_F32, a, n, w, wb, g_s));
    CK(cudaMemcpyAsync(y, a, n * 4, cudaMemcpyDeviceToDevice, g_s));
    CK(cudaStreamSynchronize(g_s));
    return 0;
  }
  for (parray_dtype t : {PARRAY_F32, PARRAY_F16})
    for (const char *op : {"add", "relu", "cast"})
      for (size_t sz : sizes) bench_ew_api(op, t, sz);
  bench_reduce("rowsum", PARRAY_F32, 1 << 20, 32, "1Mx32");
  bench_reduce("rowsum", PARRAY_F32, 1 << 16, 1024, "64Kx1024");
  bench_reduce("colsum", PARRAY_F32, 1 << 20, 32, "1Mx32");
  bench_reduce("sum", PARRAY_F32, 1, 1 << 28, "1GB");
  bench_reduce("rowsum", PARRAY_F16, 1 << 20, 32, "1Mx32");
  bench_reduce("colsum", PARRAY_F16, 1 << 20, 32, "1Mx32");
  bench_reduce("colsum", PARRAY_F32, 1 << 16, 1024, "64Kx1024");
  bench_reduce("sum", PARRAY_F16, 1, 1 << 29, "1GB");
  CK(cudaStreamDestroy(g_s));
  return 0;
}
