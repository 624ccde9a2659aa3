/* bench_kernels.cu - times the elementwise and reduction kernels of the
 * runtime with CUDA events (median of 30 runs after 5 warm-ups, a fresh
 * buffer set per run from a rotation whose footprint is several times the L2)
 * next to cudaMemcpy device-to-device moving the same number of bytes.
 * Bandwidth counts bytes read + bytes written. Also times tuning variants of
 * the elementwise engine (packs per thread per trip U, grid cap in waves).
 * Output: CSV lines "name,bytes,us,TB/s,copy TB/s" on stdout; merged with the
 * PyTorch numbers by compare.py. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "../../runtime/cuda/kern_ops.cuh"
#include "parray/elementwise.cuh"
#include "parray/kernels.h"

#define CK(call)                                                                                          \
  do {                                                                                                    \
    cudaError_t e_ = (call);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                                            \
    }                                                                                                     \
  } while (0)
#define PK(call)                                                                               \
  do {                                                                                         \
    parray_status s_ = (call);                                                                 \
    if (s_ != PARRAY_OK) {                                                                     \
      fprintf(stderr, "parray error at %s:%d: %s\n", __FILE__, __LINE__, parray_last_error()); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

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

/* median time in microseconds of f(set index) */
static double time_us(int nsets, const std::function<void(int)> &f) {
  cudaEvent_t e[2 * kRuns];
  for (auto &x : e) CK(cudaEventCreate(&x));
  for (int i = 0; i < kWarm; ++i) f(i % nsets);
  for (int i = 0; i < kRuns; ++i) {
    CK(cudaEventRecord(e[2 * i], g_s));
    f((i + kWarm) % nsets);
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

/* device-to-device copy moving `bytes_rw` bytes (read + written) */
static double copy_tbs(size_t bytes_rw) {
  const size_t b = bytes_rw / 2 / 256 * 256;
  Sets s = make_sets(1, b, b);
  const double us = time_us(s.k, [&](int i) { CK(cudaMemcpyAsync(s.out[i], s.in[0][i], b, cudaMemcpyDeviceToDevice, g_s)); });
  free_sets(s);
  return (double)(2 * b) / us * 1e-6;
}

static void report(const std::string &name, size_t bytes_rw, double us) {
  const double tbs = (double)bytes_rw / us * 1e-6;
  const double c = copy_tbs(bytes_rw);
  printf("%s,%zu,%.2f,%.3f,%.3f\n", name.c_str(), bytes_rw, us, tbs, c);
  fflush(stdout);
}

static std::string mb(size_t bytes) { return std::to_string(bytes >> 20) + "MB"; }

/* Elementwise through the library API. */
static void bench_ew_api(const char *op, parray_dtype t, size_t in_bytes) {
  const size_t es = parray_dtype_size(t);
  const int64_t n = (int64_t)(in_bytes / es);
  const bool add = !strcmp(op, "add"), cast = !strcmp(op, "cast");
  const parray_dtype ot = cast ? (t == PARRAY_F32 ? PARRAY_F16 : PARRAY_F32) : t;
  const size_t out_bytes = n * parray_dtype_size(ot);
  Sets s = make_sets(add ? 2 : 1, in_bytes, out_bytes);
  const double us = time_us(s.k, [&](int i) {
    if (add) PK(parray_binary_cuda(PARRAY_OP_ADD, t, s.out[i], s.in[0][i], s.in[1][i], n, g_s));
    else if (cast) PK(parray_cast_cuda(ot, s.out[i], t, s.in[0][i], n, g_s));
    else PK(parray_unary_cuda(PARRAY_OP_RELU, t, s.out[i], s.in[0][i], n, 0, g_s));
  });
  free_sets(s);
  report(std::string(op) + " " + parray_dtype_name(t) + " " + mb(in_bytes), (add ? 2 : 1) * in_bytes + out_bytes, us);
}

/* Tuning variants of the engine for fp32 add / relu / cast->f16. */
template <int U, int W>
static void bench_ew_variant(const char *op, size_t in_bytes) {
  using Tun = parray_ew::Tuning<U, W>;
  const int64_t n = (int64_t)(in_bytes / 4);
  const bool add = !strcmp(op, "add"), cast = !strcmp(op, "cast");
  const size_t out_bytes = cast ? n * 2 : n * 4;
  Sets s = make_sets(add ? 2 : 1, in_bytes, out_bytes);
  const double us = time_us(s.k, [&](int i) {
    cudaError_t e;
    if (add)
      e = parray_ew::binary<Tun>(parray_k::OpAdd<float>{}, n, (float *)s.out[i], (const float *)s.in[0][i],
                                 (const float *)s.in[1][i], g_s);
    else if (cast)
      e = parray_ew::unary<Tun>(parray_k::OpCast<__half, float>{}, n, (__half *)s.out[i], (const float *)s.in[0][i], g_s);
    else
      e = parray_ew::unary<Tun>(parray_k::OpRelu<float>{}, n, (float *)s.out[i], (const float *)s.in[0][i], g_s);
    CK(e);
  });
  free_sets(s);
  char name[96];
  snprintf(name, sizeof name, "v%d.%d %s f32 %s", U, W, op, mb(in_bytes).c_str());
  const size_t rw = (add ? 2 : 1) * in_bytes + out_bytes;
  printf("%s,%zu,%.2f,%.3f,\n", name, rw, us, (double)rw / us * 1e-6);
  fflush(stdout);
}

static void bench_reduce(const char *kind, parray_dtype t, int64_t rows, int64_t cols, const char *label) {
  const size_t es = parray_dtype_size(t);
  const size_t in_bytes = (size_t)rows * cols * es;
  const bool all = !strcmp(kind, "sum"), rowk = !strcmp(kind, "rowsum");
  const int64_t nout = all ? 1 : rowk ? rows : cols;
  const parray_dtype ot = t == PARRAY_F64 ? PARRAY_F64 : PARRAY_F32;
  const size_t out_bytes = nout * parray_dtype_size(ot);
  Sets s = make_sets(1, in_bytes, out_bytes < 256 ? 256 : out_bytes);
  const size_t wb = all ? parray_reduce_all_workspace(t, rows * cols) : parray_reduce_cols_workspace(t, rows, cols);
  void *work;
  CK(cudaMalloc(&work, wb));
  CK(cudaMemset(work, 0, wb));
  const double us = time_us(s.k, [&](int i) {
    if (all) PK(parray_reduce_all_cuda(PARRAY_REDUCE_SUM, ot, s.out[i], t, s.in[0][i], rows * cols, work, wb, g_s));
    else if (rowk) PK(parray_reduce_rows_cuda(PARRAY_REDUCE_SUM, ot, s.out[i], t, s.in[0][i], rows, cols, cols, g_s));
    else PK(parray_reduce_cols_cuda(PARRAY_REDUCE_SUM, ot, s.out[i], t, s.in[0][i], rows, cols, cols, work, wb, g_s));
  });
  cudaFree(work);
  free_sets(s);
  report(std::string(kind) + " " + parray_dtype_name(t) + " " + label, in_bytes + out_bytes, us);
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
  printf("name,bytes_rw,us,tbs,copy_tbs\n");
  if (variants) {
    for (const char *op : {"add", "relu", "cast"})
      for (size_t sz : sizes) {
        bench_ew_variant<1, 32>(op, sz);
        bench_ew_variant<2, 32>(op, sz);
        bench_ew_variant<4, 32>(op, sz);
        bench_ew_variant<2, 4>(op, sz);
        bench_ew_variant<4, 2>(op, sz);
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
    const size_t wb = parray_reduce_cols_workspace(PARRAY_F32, 1 << 20, 32) + parray_reduce_all_workspace(PARRAY_F32, n);
    CK(cudaMalloc(&w, wb));
    CK(cudaMemset(w, 0, wb));
    PK(parray_binary_cuda(PARRAY_OP_ADD, PARRAY_F32, y, a, b, n, g_s));
    PK(parray_cast_cuda(PARRAY_F16, y, PARRAY_F32, a, n, g_s));
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
