/* SPDX-License-Identifier: Apache-2.0 */
/* cufftxt_peer.cu - cuFFT's single-process multi-GPU transform
 * (cufftXtSetGPUs) as the peer of the Parray FFT on several GPUs
 * (bench/fft/run.sh, PEERS=cufftxt): one process drives GPUs 0..G-1, the
 * N0 x N1 (x N2) transform forward in place over them
 * (CUFFT_XT_FORMAT_INPLACE in, cuFFT's shuffled order out). Median of REPS
 * executions after one warm-up, each ended by a synchronization of every
 * GPU. Checked by the round trip: the inverse of the result, scaled by 1/N,
 * against the random input.
 *   nvcc -O2 cufftxt_peer.cu -lcufft -o cufftxt_peer
 *   ./cufftxt_peer G N0 N1 [N2] [REPS] */
#include <cuda_runtime.h>
#include <cufftXt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <algorithm>
#include <vector>
#include "peer_common.h"

#define CHECK(call)                                                                          \
  do {                                                                                       \
    long long r_ = (long long)(call);                                                        \
    if (r_ != 0) {                                                                           \
      fprintf(stderr, "cufftxt_peer: %s failed (error %lld) at line %d\n", #call, r_, __LINE__); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static double now(void) {
  struct timeval tv;
  gettimeofday(&tv, 0);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

static void sync_all(int g) {
  for (int i = 0; i < g; i++) {
    CHECK(cudaSetDevice(i));
    CHECK(cudaDeviceSynchronize());
  }
}

int main(int argc, char **argv) {
  int g = argc > 3 ? atoi(argv[1]) : 0, n0 = argc > 3 ? atoi(argv[2]) : 0, n1 = argc > 3 ? atoi(argv[3]) : 0;
  int n2 = argc > 4 ? atoi(argv[4]) : 1, reps = argc > 5 ? atoi(argv[5]) : 5, have = 0;
  CHECK(cudaGetDeviceCount(&have));
  if (g < 2 || g > have || n0 < 1 || n1 < 1 || n2 < 1 || reps < 1) {
    fprintf(stderr, "usage: %s GPUS (2..%d) N0 N1 [N2 [REPS]]\n", argv[0], have);
    return 2;
  }
  std::vector<int> gpus(g);
  for (int i = 0; i < g; i++) gpus[i] = i;
  cufftHandle p;
  CHECK(cufftCreate(&p));
  CHECK(cufftXtSetGPUs(p, g, gpus.data()));
  std::vector<size_t> work(g);
  if (n2 > 1) CHECK(cufftMakePlan3d(p, n0, n1, n2, CUFFT_C2C, work.data()));
  else CHECK(cufftMakePlan2d(p, n0, n1, CUFFT_C2C, work.data()));
  cudaLibXtDesc *d = 0;
  CHECK(cufftXtMalloc(p, &d, CUFFT_XT_FORMAT_INPLACE));
  size_t n = (size_t)n0 * n1 * n2;
  std::vector<cufftComplex> in(n), out(n);
  peer_fill(in, 88172645463325252ull);
  std::vector<double> t;
  for (int k = -1; k < reps; k++) {
    CHECK(cufftXtMemcpy(p, d, in.data(), CUFFT_COPY_HOST_TO_DEVICE));
    sync_all(g);
    double t0 = now();
    CHECK(cufftXtExecDescriptorC2C(p, d, d, CUFFT_FORWARD));
    sync_all(g);
    if (k >= 0) t.push_back(now() - t0);
  }
  CHECK(cufftXtExecDescriptorC2C(p, d, d, CUFFT_INVERSE));
  sync_all(g);
  CHECK(cufftXtMemcpy(p, out.data(), d, CUFFT_COPY_DEVICE_TO_HOST));
  double nn = (double)n, num, den;
  peer_roundtrip_sums(in, out, nn, &num, &den);
  std::sort(t.begin(), t.end());
  double total = t[t.size() / 2], err = sqrt(num / den);
  char dims[64];
  peer_dims(dims, sizeof dims, n0, n1, n2);
  printf("cufftxt %s single forward gpus=%d: total %.6f s %.2f GFLOP/s roundtrip %.2e %s\n", dims, g, total,
         5.0 * nn * log2(nn) / total / 1e9, err, err < 1e-5 ? "PASS" : "FAIL");
  CHECK(cufftXtFree(d));
  CHECK(cufftDestroy(p));
  return err < 1e-5 ? 0 : 1;
}
