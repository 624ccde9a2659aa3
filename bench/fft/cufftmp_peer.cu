/* SPDX-License-Identifier: Apache-2.0 */
/* cufftmp_peer.cu - NVIDIA's multi-process FFT (cuFFTMp) as the peer of the
 * Parray FFT on several GPUs (bench/fft/run.sh, PEERS=cufftmp): one process
 * per GPU (rank r on GPU r mod the count), the N0 x N1 (x N2) transform
 * planned over MPI_COMM_WORLD (cufftMpAttachComm), the data in slabs of N0
 * (CUFFT_XT_FORMAT_INPLACE), forward in place; the result is left in slabs
 * of N1, natural order within them (cuFFTMp's shuffled output), as the
 * Parray FFT leaves it without -t. Median of REPS executions after one
 * warm-up, each between two barriers (the time of the slowest process).
 * Checked by the round trip: the inverse of the result, scaled by 1/N,
 * against the random input.
 *   nvcc -O2 -I CUFFTMP/include cufftmp_peer.cu -L CUFFTMP/lib -lcufftMp -lmpi -o cufftmp_peer
 *   mpirun -np P ./cufftmp_peer N0 N1 [N2] [REPS] */
#include <cuda_runtime.h>
#include <cufftMp.h>
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
#include "peer_common.h"

#define CHECK(call)                                                                          \
  do {                                                                                       \
    long long r_ = (long long)(call);                                                        \
    if (r_ != 0) {                                                                           \
      fprintf(stderr, "cufftmp_peer: %s failed (error %lld) at line %d\n", #call, r_, __LINE__); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
    }                                                                                        \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, ngpu = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n0 = argc > 2 ? atoi(argv[1]) : 0, n1 = argc > 2 ? atoi(argv[2]) : 0;
  int n2 = argc > 3 ? atoi(argv[3]) : 1, reps = argc > 4 ? atoi(argv[4]) : 5;
  if (n0 < 1 || n1 < 1 || n2 < 1 || reps < 1) {
    if (rank == 0) fprintf(stderr, "usage: %s N0 N1 [N2 [REPS]]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  CHECK(cudaGetDeviceCount(&ngpu));
  CHECK(cudaSetDevice(rank % ngpu));
  MPI_Comm comm = MPI_COMM_WORLD;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cufftHandle p;
  CHECK(cufftCreate(&p));
  CHECK(cufftMpAttachComm(p, CUFFT_COMM_MPI, &comm));
  CHECK(cufftSetStream(p, s));
  size_t work = 0;
  if (n2 > 1) CHECK(cufftMakePlan3d(p, n0, n1, n2, CUFFT_C2C, &work));
  else CHECK(cufftMakePlan2d(p, n0, n1, CUFFT_C2C, &work));
  cudaLibXtDesc *d = 0;
  CHECK(cufftXtMalloc(p, &d, CUFFT_XT_FORMAT_INPLACE));
  /* this process's slab of N0: rows [n0 * rank / size, n0 * (rank + 1) / size) */
  size_t r0 = (size_t)n0 * rank / size, r1 = (size_t)n0 * (rank + 1) / size, plane = (size_t)n1 * n2;
  size_t mine = (r1 - r0) * plane;
  std::vector<cufftComplex> in(mine), out(mine);
  peer_fill(in, 88172645463325252ull + 7919ull * (unsigned)rank);
  std::vector<double> t;
  for (int k = -1; k < reps; k++) {
    CHECK(cufftXtMemcpy(p, d, in.data(), CUFFT_COPY_HOST_TO_DEVICE));
    CHECK(cudaStreamSynchronize(s));
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    CHECK(cufftXtExecDescriptor(p, d, d, CUFFT_FORWARD));
    CHECK(cudaStreamSynchronize(s));
    MPI_Barrier(comm);
    if (k >= 0) t.push_back(MPI_Wtime() - t0);
  }
  /* the round trip: back to slabs of N0, scaled by 1 / N */
  CHECK(cufftXtExecDescriptor(p, d, d, CUFFT_INVERSE));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cufftXtMemcpy(p, out.data(), d, CUFFT_COPY_DEVICE_TO_HOST));
  double nn = (double)n0 * n1 * n2, sums[2], all[2];
  peer_roundtrip_sums(in, out, nn, &sums[0], &sums[1]);
  MPI_Reduce(sums, all, 2, MPI_DOUBLE, MPI_SUM, 0, comm);
  std::sort(t.begin(), t.end());
  double total = t[t.size() / 2];
  int ok = 1;
  if (rank == 0) {
    double err = sqrt(all[0] / all[1]);
    ok = err < 1e-5;
    char dims[64];
    peer_dims(dims, sizeof dims, n0, n1, n2);
    printf("cufftmp %s single forward np=%d: total %.6f s %.2f GFLOP/s roundtrip %.2e %s\n", dims, size, total,
           5.0 * nn * log2(nn) / total / 1e9, err, ok ? "PASS" : "FAIL");
  }
  CHECK(cufftXtFree(d));
  CHECK(cufftDestroy(p));
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  MPI_Finalize();
  return ok ? 0 : 1;
}
