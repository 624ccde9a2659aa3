/* SPDX-License-Identifier: Apache-2.0 */
/* bench_permute.cu - times parray_permute_cuda / parray_copy_strided_cuda
 * (and engine variants) with CUDA events next to a cudaMemcpy D2D of the
 * same bytes, on buffers of 256 MiB .. 1 GiB (past the 60 MB L2): warm-up,
 * then the median of RUNS timed launches. Prints a table and writes a CSV
 * (argv[1], default bench_permute.csv) that torch_permute.py reads to time
 * PyTorch on the same cases in the same job. Bandwidth counts bytes read +
 * written. Not run by ctest. */
#include "parray/cuda.h"
#include "parray/permute.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../tests/common/cuda_check.h"

extern "C" parray_status parray__copy_strided_cuda_opts(void *, const int64_t *, const void *, const int64_t *,
                                                        const int64_t *, int, size_t, int, cudaStream_t);
extern "C" parray_status parray__permute_cuda_opts(void *, const void *, size_t, int, const int64_t *, const int *,
                                                   int, cudaStream_t);

static const int RUNS = 30, WARM = 3;

template <typename F> static double median_ms(F f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < WARM; i++) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < RUNS; i++) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Case {
  const char *name, *dtype;
  size_t es;
  int nd;
  int64_t sh[4];
  int perm[4];
  std::vector<std::pair<const char *, int>> variants;
};

static unsigned char *g_src, *g_dst;

static void check(parray_status st) {
  if (st != PARRAY_OK) {
    fprintf(stderr, "parray error %s: %s\n", parray_status_str(st), parray_last_error());
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (parray_cuda_device_count() == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  const char *csv_path = argc > 1 ? argv[1] : "bench_permute.csv";
  FILE *csv = fopen(csv_path, "w");
  if (!csv) {
    perror(csv_path);
    return 1;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  const size_t CAP = size_t(1) << 30;
  CK(cudaMalloc(&g_src, CAP + 64));
  CK(cudaMalloc(&g_dst, CAP + 64));
  /* random-ish, non-zero source */
  {
    std::vector<uint32_t> h(CAP / 4);
    uint32_t x = 2463534242u;
    for (auto &v : h) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      v = (x & 0x3fffffff) | 0x3c000000; /* finite floats/halves, never zero */
    }
    CK(cudaMemcpy(g_src, h.data(), CAP, cudaMemcpyHostToDevice));
  }
  /* engine options as in copy_strided.cu; (o+1) << 12 forces tile order o */
  using VL = std::vector<std::pair<const char *, int>>;
  const int O0 = 1 << 12, O1 = 2 << 12, O2 = 3 << 12, O3 = 4 << 12, O4 = 5 << 12;
  const int TR = 2048, NTR = 1 << 15; /* row tiles on / off */
  /* gather shapes: 1 or 2 units per thread, 128-thread blocks, the first version (4 units, 256 threads) */
  const int G1 = 1 << 16, G2 = 1 << 17, T128 = 1 << 18, G4 = 1 << 19;
  const int W8 = 1 << 20, NW8 = 1 << 21; /* 2-byte elements in 8-byte words (4 x 4) on / off */
  const VL F32 = {{"default", 0},         {"k1-ym2", 1024},       {"k1-ym4", 1024 | 128}, {"k8-ym2", 8},
                  {"order0", O0},         {"order1", O1},         {"order2", O2},         {"order3", O3},
                  {"old-default", 1024 | O0}, {"stream", 256},    {"persistent", 2}};
  const VL F16 = {{"default", 0}, {"order0", O0}, {"order2", O2}, {"ym1", 4},          {"stream", 256},
                  {"w8", W8},     {"nw8", NW8},   {"w8-order0", W8 | O0}, {"w8-order2", W8 | O2}};
  /* (2,1,0): every tile order, wider tiles, persistent grid, hints */
  const VL T210 = {{"default", 0},       {"order0", O0},          {"order2", O2},       {"order4", O4},
                   {"ym4-order2", 128 | O2}, {"stream-order2", 256 | O2}, {"w8", W8},          {"nw8", NW8},
                   {"w8-order0", W8 | O0}, {"w8-order2", W8 | O2},  {"w8-order4", W8 | O4}, {"default#2", 0}};
  const VL DV = {{"default", 0}, {"order0", O0}, {"order1", O1}};
  const VL RV = {{"default", 0},      {"g1t128", G1 | T128}, {"g2t128", G2 | T128}, {"g1", G1},
                 {"g2", G2},           {"gather4", G4},       {"tilerows", TR},       {"tilerows+g1t128", TR | G1 | T128},
                 {"untiled", NTR},     {"default#2", 0}};
  std::vector<Case> cases = {
      {"021", "f32", 4, 3, {64, 2048, 2048}, {0, 2, 1}, F32},
      {"021", "f16", 2, 3, {64, 2048, 2048}, {0, 2, 1}, F16},
      {"021", "f32", 4, 3, {1024, 1024, 64}, {0, 2, 1}, DV},
      {"021", "f16", 2, 3, {2048, 1024, 64}, {0, 2, 1}, DV},
      {"210", "f32", 4, 3, {256, 1024, 1024}, {2, 1, 0}, T210},
      {"210", "f16", 2, 3, {256, 1024, 1024}, {2, 1, 0}, T210},
      {"10", "f32", 4, 2, {16384, 16384}, {1, 0}, F32},
      {"10", "f16", 2, 2, {16384, 16384}, {1, 0}, F16},
      {"10", "u8", 1, 2, {32768, 32768}, {1, 0}, DV},
      {"10", "f64", 8, 2, {8192, 16384}, {1, 0}, DV},
      {"102", "f32", 4, 3, {512, 512, 1024}, {1, 0, 2}, RV},
      {"102", "f32", 4, 3, {2048, 2048, 64}, {1, 0, 2}, RV},
      {"102", "f16", 2, 3, {512, 512, 1024}, {1, 0, 2}, RV},
      {"102", "f16", 2, 3, {2048, 2048, 128}, {1, 0, 2}, RV},
      {"0213", "f16", 2, 4, {32, 1024, 32, 256}, {0, 2, 1, 3}, {{"default", 0}}}, /* attention heads */
      {"012", "f32", 4, 3, {256, 1024, 1024}, {0, 1, 2},
       {{"memcpy", 0}, {"kernel", 64}, {"kernel-g1t128", 64 | G1 | T128}, {"kernel-g2t128", 64 | G2 | T128},
        {"kernel-g1", 64 | G1}, {"kernel-gather4", 64 | G4}}},
  };
  printf("\n%-5s %-4s %-22s %-11s %9s %8s %9s %8s\n", "perm", "type", "shape", "variant", "ms", "TB/s", "copy TB/s",
         "vs copy");
  fprintf(csv, "kind,perm,dtype,shape,variant,bytes,ms,tbs,copy_ms,copy_tbs\n");
  for (const Case &c : cases) {
    int64_t total = 1;
    for (int i = 0; i < c.nd; i++) total *= c.sh[i];
    const size_t bytes = size_t(total) * c.es;
    const double copy_ms = median_ms([&] { CK(cudaMemcpyAsync(g_dst, g_src, bytes, cudaMemcpyDeviceToDevice, 0)); });
    const double copy_tbs = 2.0 * bytes / copy_ms / 1e9;
    std::string shape;
    for (int i = 0; i < c.nd; i++) shape += (i ? "x" : "") + std::to_string(c.sh[i]);
    std::string perm;
    for (int i = 0; i < c.nd; i++) perm += std::to_string(c.perm[i]);
    for (const auto &v : c.variants) {
      const double ms = median_ms([&] {
        check(parray__permute_cuda_opts(g_dst, g_src, c.es, c.nd, c.sh, c.perm, v.second, 0));
      });
      CK(cudaGetLastError());
      const double tbs = 2.0 * bytes / ms / 1e9;
      printf("%-5s %-4s %-22s %-11s %9.3f %8.3f %9.3f %7.1f%%\n", perm.c_str(), c.dtype, shape.c_str(), v.first, ms,
             tbs, copy_tbs, 100.0 * tbs / copy_tbs);
      fprintf(csv, "permute,%s,%s,%s,%s,%zu,%.5f,%.4f,%.5f,%.4f\n", perm.c_str(), c.dtype, shape.c_str(), v.first,
              bytes, ms, tbs, copy_ms, copy_tbs);
      fflush(stdout);
    }
  }
  /* pitched rows: 16000 rows of 16000 f32 from a pitch of 16320 to one of
   * 16384 elements: the engine (gather kernel) against cudaMemcpy2DAsync */
  {
    const int64_t rows = 16000, cols = 16000, sh[2] = {rows, cols}, ds[2] = {16384, 1}, ss[2] = {16320, 1};
    const size_t bytes = size_t(rows * cols) * 4;
    const double copy_ms = median_ms([&] { CK(cudaMemcpyAsync(g_dst, g_src, bytes, cudaMemcpyDeviceToDevice, 0)); });
    const double copy_tbs = 2.0 * bytes / copy_ms / 1e9;
    for (auto v : std::vector<std::pair<const char *, int>>{
             {"default", 0}, {"g1t128", G1 | T128}, {"gather4", G4}, {"memcpy2D", 1}}) {
      const double ms = median_ms(
          [&] { check(parray__copy_strided_cuda_opts(g_dst, ds, g_src, ss, sh, 2, 4, v.second, 0)); });
      const double tbs = 2.0 * bytes / ms / 1e9;
      printf("%-5s %-4s %-22s %-11s %9.3f %8.3f %9.3f %7.1f%%\n", "pitch", "f32", "16000x16000", v.first, ms, tbs,
             copy_tbs, 100.0 * tbs / copy_tbs);
      fprintf(csv, "pitched,pitch,f32,16000x16000,%s,%zu,%.5f,%.4f,%.5f,%.4f\n", v.first, bytes, ms, tbs, copy_ms,
              copy_tbs);
    }
  }
  fclose(csv);
  CK(cudaFree(g_src));
  CK(cudaFree(g_dst));
  return 0;
}
