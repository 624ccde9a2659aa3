/* fft_local.h - the per-process part of fft.pc: the element type, the local
 * transforms each process runs on its own block, stage by stage (FFTW3 on the
 * CPU; cuFFT on the process's GPU with -DFFT_GPU, called with the device
 * block), and the single-process double-precision FFTW reference of the
 * check. Included by fft.pc after NP (or P0 and P1), N0, N1 and N2 are
 * defined; every function runs on one process and stops the whole job
 * (MPI_Abort) when a library call fails. */
#ifndef FFT_LOCAL_H
#define FFT_LOCAL_H
#include <fftw3.h>
#include <mpi.h>
#include <stdio.h>
#ifdef FFT_GPU
#include <cuda_runtime.h>
#include <cufft.h>
#endif

#ifdef FFT_DOUBLE
typedef double real;
#define PRECISION "double"
#define TOLERANCE 1e-12
#else
typedef float real;
#define PRECISION "single"
#define TOLERANCE 1e-5
#endif
/* the layout of fftw_complex / fftwf_complex and of cuFFT's complex types */
typedef struct {
  real re, im;
} cplx;

static void fft_fail(const char *what, const char *why) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "fft: process %d: %s failed: %s\n", rank, what, why);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The local transforms, stage by stage: in stage k each process transforms,
 * in its own block, howmany[k] arrays of st_n[k] points (st_rank[k]
 * dimensions), contiguous and st_dist[k] elements apart.
 * Slabs: stage 0 the (N1, N2) planes of X (1-D along N1 when N2 is 1),
 * stage 1 the N0 rows of T. Pencils: stage 0 along N2 in X, 1 along N1 in Y,
 * 2 along N0 in T. */
#ifdef FFT_PENCIL
#define STAGES 3
#define DECOMPOSITION "pencils"
static const int st_rank[STAGES] = {1, 1, 1};
static int st_n[STAGES][2] = {{N2, 1}, {N1, 1}, {N0, 1}};
static const int st_howmany[STAGES] = {N0 / P0 * (N1 / P1), N0 / P0 * (N2 / P1), N1 / P0 * (N2 / P1)};
static const int st_dist[STAGES] = {N2, N1, N0};
#else
#define STAGES 2
#define DECOMPOSITION "slabs"
static const int st_rank[STAGES] = {N2 > 1 ? 2 : 1, 1};
static int st_n[STAGES][2] = {{N1, N2}, {N0, 1}};
static const int st_howmany[STAGES] = {N0 / NP, N1 / NP * N2};
static const int st_dist[STAGES] = {N1 * N2, N0};
#endif

#ifndef FFT_GPU
#define BACKEND "cpu/fftw"
#ifdef FFT_DOUBLE
#define FFTW(f) fftw_##f
#else
#define FFTW(f) fftwf_##f
#endif
static FFTW(plan) plans[STAGES][2]; /* [stage][0 forward, 1 backward] */

/* a: this process's block that stage k transforms (FFTW_MEASURE overwrites it) */
static void local_plan(int k, cplx *a, int estimate) {
  FFTW(complex) *f = (FFTW(complex) *)a;
  for (int d = 0; d < 2; d++) {
    plans[k][d] = FFTW(plan_many_dft)(st_rank[k], st_n[k], st_howmany[k], f, NULL, 1, st_dist[k], f, NULL, 1,
                                      st_dist[k], d ? FFTW_BACKWARD : FFTW_FORWARD,
                                      estimate ? FFTW_ESTIMATE : FFTW_MEASURE);
    if (!plans[k][d]) fft_fail("FFTW planning", "no plan for a local transform");
  }
}
/* sign -1: forward, +1: backward (unscaled) */
static void fft_stage(int k, cplx *a, int sign) {
  FFTW(execute_dft)(plans[k][sign > 0], (FFTW(complex) *)a, (FFTW(complex) *)a);
}
static void local_free(void) {
  for (int k = 0; k < STAGES; k++) FFTW(destroy_plan)(plans[k][0]), FFTW(destroy_plan)(plans[k][1]);
}

#else /* FFT_GPU */
#define BACKEND "gpu/cufft"
#ifdef FFT_DOUBLE
typedef cufftDoubleComplex gpu_complex;
#define FFT_TYPE CUFFT_Z2Z
#define FFT_EXEC cufftExecZ2Z
#else
typedef cufftComplex gpu_complex;
#define FFT_TYPE CUFFT_C2C
#define FFT_EXEC cufftExecC2C
#endif
static cufftHandle plans[STAGES];

static void check_cufft(cufftResult r, const char *what) {
  char why[32];
  snprintf(why, sizeof why, "cuFFT error %d", (int)r);
  if (r != CUFFT_SUCCESS) fft_fail(what, why);
}
static void check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) fft_fail(what, cudaGetErrorString(e));
}
/* a cuFFT plan on this process's GPU (the runtime chose it at the #create of
 * the blocks); the blocks are device memory, never read here */
static void local_plan(int k, cplx *a, int estimate) {
  (void)a, (void)estimate;
  check_cufft(cufftPlanMany(&plans[k], st_rank[k], st_n[k], NULL, 1, st_dist[k], NULL, 1, st_dist[k], FFT_TYPE,
                            st_howmany[k]),
              "cufftPlanMany");
}
static void fft_stage(int k, cplx *a, int sign) {
  check_cufft(FFT_EXEC(plans[k], (gpu_complex *)a, (gpu_complex *)a, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE),
              "cuFFT execution");
  check_cuda(cudaDeviceSynchronize(), "cuFFT execution"); /* the detour's time is the transform's */
}
static void local_free(void) {
  for (int k = 0; k < STAGES; k++) check_cufft(cufftDestroy(plans[k]), "cufftDestroy");
}
#endif

/* The check's reference: the whole N0 x N1 x N2 transform in double
 * precision on one process (in and out: N interleaved complex numbers). */
static int reference(double *in, double *out, int sign) {
  int n[3] = {N0, N1, N2};
  fftw_plan p = fftw_plan_dft(3, n, (fftw_complex *)in, (fftw_complex *)out, sign, FFTW_ESTIMATE);
  if (!p) {
    fprintf(stderr, "fft: FFTW cannot plan the reference transform\n");
    return -1;
  }
  fftw_execute(p);
  fftw_destroy_plan(p);
  return 0;
}
#endif
