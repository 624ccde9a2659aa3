// SPDX-License-Identifier: Apache-2.0
/* cub_scan.cu - bench/reduce's second scan peer: CUB's inclusive prefix sum
 * (cub::DeviceScan::InclusiveSum, from the CUDA toolkit) over the same
 * number of floats as reduce_gpu, against cudaMemcpy of the same bytes in
 * the same run: what NVIDIA's own library reaches on this GPU, beside the
 * exscan detours of reduce_gpu.pc. The median of REPS runs after a warm-up,
 * timed with CUDA events; the result checked against float64 on the host
 * (its largest relative error). CSV on stdout (the columns of reduce_gpu):
 *   op,form,bytes,ms,gbs,of_copy,rel_err
 * Usage: cub_scan [MiB (default 1024)] [REPS (default 50)] */
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cub_scan: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/* the median of reps timings of f after three warm-up runs */
template <class F> static float median_ms(int reps, F f) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  std::vector<float> t;
  for (int k = -3; k < reps; k++) {
    check(cudaEventRecord(a), "cudaEventRecord");
    f();
    check(cudaGetLastError(), "the scan's launch");
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    if (k >= 0) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  long mib = argc > 1 ? std::atol(argv[1]) : 1024;
  int reps = argc > 2 ? std::atoi(argv[2]) : 50;
  if (mib < 1 || mib > 8192 || reps < 1 || reps > 1000) {
    std::fprintf(stderr, "usage: cub_scan [MiB (1..8192)] [REPS (1..1000)]\n");
    return 2;
  }
  const size_t n = (size_t)mib * 262144; /* floats */
  std::vector<float> h(n);
  unsigned long long rng = 88172645463325252ull ^ (unsigned long long)n; /* reduce_gpu's data */
  for (size_t i = 0; i < n; i++) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    h[i] = (float)((double)(rng >> 40) / 16777216.0) + 0.25f;
  }
  float *x, *y;
  check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&y, n * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  size_t tmp_bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, x, y, (long long)n), "cub::DeviceScan (size)");
  void *tmp;
  check(cudaMalloc(&tmp, tmp_bytes), "cudaMalloc");
  const double bytes = (double)n * sizeof(float);
  float copy_ms = median_ms(reps, [&] { check(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice), "cudaMemcpyAsync"); });
  check(cudaMemset(y, 0xff, n * sizeof(float)), "cudaMemset"); /* poisoned */
  float ms = median_ms(reps, [&] { check(cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, x, y, (long long)n), "cub::DeviceScan"); });
  check(cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  double run = 0, worst = 0;
  rng = 88172645463325252ull ^ (unsigned long long)n;
  for (size_t i = 0; i < n; i++) { /* the input again, from its generator */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    run += (float)((double)(rng >> 40) / 16777216.0) + 0.25f;
    double e = std::fabs(h[i] - run) / run;
    if (!(e <= worst)) worst = e; /* NaN: a missed element */
  }
  const double copy_gbs = 2 * bytes / copy_ms / 1e6, gbs = 2 * bytes / ms / 1e6;
  std::printf("op,form,bytes,ms,gbs,of_copy,rel_err\n");
  std::printf("copy,cudaMemcpy,%.0f,%.4f,%.1f,1.000,0\n", bytes, copy_ms, copy_gbs);
  std::printf("cumsum,cub InclusiveSum,%.0f,%.4f,%.1f,%.3f,%.2e\n", bytes, ms, gbs, gbs / copy_gbs, worst);
  cudaFree(tmp);
  cudaFree(x);
  cudaFree(y);
  return worst < 1e-4 ? 0 : 1;
}
