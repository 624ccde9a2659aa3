/* fft_local.h - the per-process part of fft.pc: the element type, the local
 * transforms each process runs on its own block (FFTW3 on the CPU; cuFFT on
 * the process's GPU with -DFFT_GPU, called with the device block), and the
 * single-process double-precision FFTW reference of the check. Included by
 * fft.pc after NP, N0, N1 and N2 are defined; every function runs on one
 * process and stops the whole job (MPI_Abort) when a library call fails. */
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

/* Sizes of the local transforms: the (N1, N2) transforms of the N0/NP
 * planes of a slab of X (a 1-D transform of N1 when N2 is 1), and the N0
 * transforms of the N1/NP * N2 contiguous rows of a block of T. */
static int slab_rank = N2 > 1 ? 2 : 1, slab_n[2] = {N1, N2}, col_n[1] = {N0};

#ifndef FFT_GPU
#define BACKEND "cpu/fftw"
#ifdef FFT_DOUBLE
#define FFTW(f) fftw_##f
#else
#define FFTW(f) fftwf_##f
#endif
static FFTW(plan) slab_plan[2], col_plan[2]; /* [0] forward, [1] backward */

/* x and t: this process's blocks of X and T (FFTW_MEASURE overwrites them) */
static void local_plan(cplx *x, cplx *t, int estimate) {
  unsigned flags = estimate ? FFTW_ESTIMATE : FFTW_MEASURE;
  FFTW(complex) *fx = (FFTW(complex) *)x, *ft = (FFTW(complex) *)t;
  for (int d = 0; d < 2; d++) {
    int sign = d ? FFTW_BACKWARD : FFTW_FORWARD;
    slab_plan[d] = FFTW(plan_many_dft)(slab_rank, slab_n, N0 / NP, fx, NULL, 1, N1 * N2, fx, NULL, 1, N1 * N2, sign,
                                       flags);
    col_plan[d] = FFTW(plan_many_dft)(1, col_n, N1 / NP * N2, ft, NULL, 1, N0, ft, NULL, 1, N0, sign, flags);
    if (!slab_plan[d] || !col_plan[d]) fft_fail("FFTW planning", "no plan for the local transforms");
  }
}
/* sign -1: forward, +1: backward (unscaled) */
static void fft_slabs(cplx *x, int sign) {
  FFTW(execute_dft)(slab_plan[sign > 0], (FFTW(complex) *)x, (FFTW(complex) *)x);
}
static void fft_columns(cplx *t, int sign) {
  FFTW(execute_dft)(col_plan[sign > 0], (FFTW(complex) *)t, (FFTW(complex) *)t);
}
static void local_free(void) {
  for (int d = 0; d < 2; d++) FFTW(destroy_plan)(slab_plan[d]), FFTW(destroy_plan)(col_plan[d]);
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
static cufftHandle slab_plan, col_plan;

static void check_cufft(cufftResult r, const char *what) {
  char why[32];
  snprintf(why, sizeof why, "cuFFT error %d", (int)r);
  if (r != CUFFT_SUCCESS) fft_fail(what, why);
}
static void check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) fft_fail(what, cudaGetErrorString(e));
}
/* cuFFT plans on this process's GPU (the runtime chose it at the #create of
 * the blocks); the blocks are device memory, never read here */
static void local_plan(cplx *x, cplx *t, int estimate) {
  (void)x, (void)t, (void)estimate;
  check_cufft(cufftPlanMany(&slab_plan, slab_rank, slab_n, NULL, 1, N1 * N2, NULL, 1, N1 * N2, FFT_TYPE, N0 / NP),
              "cufftPlanMany (slabs)");
  check_cufft(cufftPlanMany(&col_plan, 1, col_n, NULL, 1, N0, NULL, 1, N0, FFT_TYPE, N1 / NP * N2),
              "cufftPlanMany (columns)");
}
static void run_plan(cufftHandle p, cplx *d, int sign, const char *what) {
  check_cufft(FFT_EXEC(p, (gpu_complex *)d, (gpu_complex *)d, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE), what);
  check_cuda(cudaDeviceSynchronize(), what); /* the detour's time is the transform's */
}
static void fft_slabs(cplx *x, int sign) { run_plan(slab_plan, x, sign, "cuFFT (slabs)"); }
static void fft_columns(cplx *t, int sign) { run_plan(col_plan, t, sign, "cuFFT (columns)"); }
static void local_free(void) {
  check_cufft(cufftDestroy(slab_plan), "cufftDestroy");
  check_cufft(cufftDestroy(col_plan), "cufftDestroy");
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
