/* SPDX-License-Identifier: Apache-2.0 */
/* cufft_peer.cu - the GPU peer of the Parray FFT (examples/fft/fft.pc
 * -DFFT_GPU) in bench/fft/run.sh: one cuFFT plan of the whole N0 x N1 (x N2)
 * transform on one GPU, forward, in place, natural order. Median of REPS
 * executions after one warm-up, timed with CUDA events. Checked on constant
 * input (the transform is N at frequency 0, 0 elsewhere).
 *   nvcc -O2 [-DFFT_DOUBLE] cufft_peer.cu -lcufft -o cufft_peer
 *   ./cufft_peer N0 N1 [N2] [REPS] */
#include <cuda_runtime.h>
#include <cufft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>
#include "peer_common.h"
#ifdef FFT_DOUBLE
typedef cufftDoubleComplex cplx;
#define FFT_TYPE CUFFT_Z2Z
#define EXEC(p, x) cufftExecZ2Z(p, x, x, CUFFT_FORWARD)
#define PRECISION "double"
#else
typedef cufftComplex cplx;
#define FFT_TYPE CUFFT_C2C
#define EXEC(p, x) cufftExecC2C(p, x, x, CUFFT_FORWARD)
#define PRECISION "single"
#endif

#define CHECK(call)                                                         \
  do {                                                                      \
    long long r_ = (long long)(call);                                       \
    if (r_ != 0) {                                                          \
      fprintf(stderr, "cufft_peer: %s failed (error %lld)\n", #call, r_);   \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

/* the whole transform's error on constant input: |X[0] - N| / N and the
 * largest |X[k]| / N elsewhere */
static double check(const std::vector<cplx> &h, double n) {
  double worst = fabs(h[0].x - n) / n + fabs(h[0].y) / n;
  for (size_t i = 1; i < h.size(); i++) worst = std::max(worst, (fabs(h[i].x) + fabs(h[i].y)) / n);
  return worst;
}

int main(int argc, char **argv) {
  int n0 = argc > 2 ? atoi(argv[1]) : 0, n1 = argc > 2 ? atoi(argv[2]) : 0;
  int n2 = argc > 3 ? atoi(argv[3]) : 1, reps = argc > 4 ? atoi(argv[4]) : 5;
  if (n0 < 1 || n1 < 1 || n2 < 1 || reps < 1) {
    fprintf(stderr, "usage: %s N0 N1 [N2 [REPS]]\n", argv[0]);
    return 2;
  }
  size_t n = (size_t)n0 * n1 * n2;
  std::vector<cplx> h(n);
  for (size_t i = 0; i < n; i++) h[i].x = 1, h[i].y = 0;
  cplx *d = 0;
  CHECK(cudaMalloc((void **)&d, n * sizeof(cplx)));
  cufftHandle p;
  int dims[3] = {n0, n1, n2};
  CHECK(cufftPlanMany(&p, n2 > 1 ? 3 : 2, dims, NULL, 1, 0, NULL, 1, 0, FFT_TYPE, 1));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(cplx), cudaMemcpyHostToDevice));
  std::vector<double> t;
  for (int k = -1; k < reps; k++) {
    CHECK(cudaEventRecord(a));
    CHECK(EXEC(p, d));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (k >= 0) t.push_back(ms / 1e3);
  }
  std::sort(t.begin(), t.end());
  double total = t[t.size() / 2];
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(cplx), cudaMemcpyHostToDevice)); /* constant input again */
  CHECK(EXEC(p, d));
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(cplx), cudaMemcpyDeviceToHost));
  double nn = (double)n, err = check(h, nn), tol = sizeof(h[0].x) == 8 ? 1e-12 : 1e-5;
  char size[64];
  peer_dims(size, sizeof size, n0, n1, n2);
  printf("cufft %s %s forward: total %.6f s %.2f GFLOP/s check %.2e %s\n", size, PRECISION, total,
         5.0 * nn * log2(nn) / total / 1e9, err, err < tol ? "PASS" : "FAIL");
  cufftDestroy(p);
  cudaFree(d);
  return err < tol ? 0 : 1;
}
