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
 * in its own block, st_howmany[k] arrays of st_n[k] points (st_rank[k]
 * dimensions), st_stride[k] elements between points (1: contiguous) and
 * st_dist[k] elements between arrays.
 * Slabs: stage 0 the (N1, N2) planes of X (1-D along N1 when N2 is 1),
 * stage 1 the N0 points of T (transposed order): on the GPU its contiguous
 * rows, on the CPU the columns of stride N2 of its N1/NP planes (T keeps N2
 * contiguous there: a guru plan, not the arrays below), stage 2 the N0
 * columns of N (natural order: N0 outermost, so N1 / NP * N2 columns with
 * stride N1 / NP * N2), stage 3 the planes of one piece of X (FFT_PIECES),
 * stage 4 the whole transform in one plan (one process, natural order: no
 * transposition, so the library's own plan of the whole array).
 * Pencils: stage 0 along N2 in X, 1 along N1 in Y, 2 along N0 in T. */
#ifdef FFT_PENCIL
#define STAGES 3
#define DECOMPOSITION "pencils"
static const int st_rank[STAGES] = {1, 1, 1};
static int st_n[STAGES][3] = {{N2, 1}, {N1, 1}, {N0, 1}};
static const int st_howmany[STAGES] = {N0 / P0 * (N1 / P1), N0 / P0 * (N2 / P1), N1 / P0 * (N2 / P1)};
static const int st_stride[STAGES] = {1, 1, 1};
static const int st_dist[STAGES] = {N2, N1, N0};
#else
#define STAGES 5
#define DECOMPOSITION "slabs"
static const int st_rank[STAGES] = {N2 > 1 ? 2 : 1, 1, 1, N2 > 1 ? 2 : 1, N2 > 1 ? 3 : 2};
static int st_n[STAGES][3] = {{N1, N2}, {N0, 1}, {N0, 1}, {N1, N2}, {N0, N1, N2}};
static const int st_howmany[STAGES] = {N0 / NP, N1 / NP * N2, N1 / NP * N2, PIECE_ROWS, 1};
static const int st_stride[STAGES] = {1, 1, N1 / NP * N2, 1, 1};
static const int st_dist[STAGES] = {N1 * N2, N0, 1, N1 * N2, N0 * N1 * N2};
#endif

#ifndef FFT_GPU
#define BACKEND "cpu/fftw"
#ifdef FFT_DOUBLE
#define FFTW(f) fftw_##f
#else
#define FFTW(f) fftwf_##f
#endif
static FFTW(plan) plans[STAGES][2]; /* [stage][0 forward, 1 backward] */

/* a: this process's block that stage k transforms (FFTW_MEASURE overwrites
 * it). The pieces' plan (stage 3) runs on every piece of the block: planned
 * FFTW_UNALIGNED only when a piece starts at another alignment than the
 * block, since that flag keeps FFTW from its SIMD codelets (1.6x slower
 * rows of 8192 points). */
static void local_plan(int k, cplx *a, int estimate) {
  FFTW(complex) *f = (FFTW(complex) *)a;
  const int unaligned = k == 3 && FFT_PIECES > 1 &&
                        FFTW(alignment_of)((real *)(a + (size_t)PIECE_ROWS * N1 * N2)) != FFTW(alignment_of)((real *)a);
  const unsigned flags = (estimate ? FFTW_ESTIMATE : FFTW_MEASURE) | (unaligned ? FFTW_UNALIGNED : 0);
#ifndef FFT_PENCIL
  /* stage 1, T on the CPU (N1/NP x N0 x N2): the N0 columns, stride N2, of each of its planes */
  FFTW(iodim) col = {N0, N2, N2};
  FFTW(iodim) many[2] = {{N1 / NP, N0 * N2, N0 * N2}, {N2, 1, 1}};
#endif
  for (int d = 0; d < 2; d++) {
    const int sign = d ? FFTW_BACKWARD : FFTW_FORWARD;
#ifndef FFT_PENCIL
    if (k == 1)
      plans[k][d] = FFTW(plan_guru_dft)(1, &col, 2, many, f, f, sign, flags);
    else
#endif
      plans[k][d] = FFTW(plan_many_dft)(st_rank[k], st_n[k], st_howmany[k], f, NULL, st_stride[k], st_dist[k], f,
                                        NULL, st_stride[k], st_dist[k], sign, flags);
    if (!plans[k][d]) fft_fail("FFTW planning", "no plan for a local transform");
  }
}
/* sign -1: forward, +1: backward (unscaled) */
static void fft_stage(int k, cplx *a, int sign) {
  FFTW(execute_dft)(plans[k][sign > 0], (FFTW(complex) *)a, (FFTW(complex) *)a);
}
/* The pieces of stage 0 (slabs): wait for piece k's transforms, start those
 * of piece k + 1. On the CPU the process runs each piece's transforms
 * itself, so nothing overlaps the transpositions: the pieces only show
 * what the GPU's overlap is measured against. */
static void fft_piece_next(int k, cplx *a, int sign) {
  if (k + 1 < FFT_PIECES) FFTW(execute_dft)(plans[3][sign > 0], (FFTW(complex) *)(a + (size_t)(k + 1) * PIECE_ROWS * N1 * N2),
                                            (FFTW(complex) *)(a + (size_t)(k + 1) * PIECE_ROWS * N1 * N2));
}
/* The pieces of stage 0 on the way back (slabs): transform piece k, which
 * has just arrived in X; nothing is left to wait for. */
static void fft_piece_start(int k, cplx *a, int sign) {
  FFTW(execute_dft)(plans[3][sign > 0], (FFTW(complex) *)(a + (size_t)k * PIECE_ROWS * N1 * N2),
                    (FFTW(complex) *)(a + (size_t)k * PIECE_ROWS * N1 * N2));
}
static void fft_pieces_wait(void) {}
static void local_free(void) {
  for (int k = 0; k < STAGES; k++)
    if (plans[k][0]) FFTW(destroy_plan)(plans[k][0]), FFTW(destroy_plan)(plans[k][1]);
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
static int planned[STAGES];
static void *work;                      /* one work area for every plan: they never run at once */
static size_t work_bytes, work_need;
static cudaStream_t stream;             /* the transforms' stream: non-blocking, so that a #copy does not wait for it */
static cudaEvent_t piece_done[FFT_PIECES]; /* the end of each piece's transforms */

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
  if (!stream) {
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    for (int i = 0; i < FFT_PIECES; i++)
      check_cuda(cudaEventCreateWithFlags(&piece_done[i], cudaEventDisableTiming), "cudaEventCreateWithFlags");
  }
  size_t need = 0;
  check_cufft(cufftCreate(&plans[k]), "cufftCreate");
  check_cufft(cufftSetAutoAllocation(plans[k], 0), "cufftSetAutoAllocation");
  check_cufft(cufftMakePlanMany(plans[k], st_rank[k], st_n[k], st_n[k], st_stride[k], st_dist[k], st_n[k],
                                st_stride[k], st_dist[k], FFT_TYPE, st_howmany[k], &need),
              "cufftMakePlanMany");
  check_cufft(cufftSetStream(plans[k], stream), "cufftSetStream");
  planned[k] = 1;
  if (need > work_need) work_need = need;
}
static void exec(int k, cplx *a, int sign) {
  if (work_bytes < work_need) { /* the largest plan's work area, shared */
    if (work) check_cuda(cudaFree(work), "cudaFree");
    check_cuda(cudaMalloc(&work, work_need), "cudaMalloc (cuFFT work area)");
    work_bytes = work_need;
    for (int j = 0; j < STAGES; j++)
      if (planned[j]) check_cufft(cufftSetWorkArea(plans[j], work), "cufftSetWorkArea");
  }
  check_cufft(FFT_EXEC(plans[k], (gpu_complex *)a, (gpu_complex *)a, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE),
              "cuFFT execution");
}
static void fft_stage(int k, cplx *a, int sign) {
  exec(k, a, sign);
  check_cuda(cudaStreamSynchronize(stream), "cuFFT execution"); /* the detour's time is the transform's */
}
/* The pieces of stage 0 (slabs): wait for the transforms of piece k (on
 * the GPU since the last call), start those of piece k + 1 and return: the
 * #copy of piece k that follows runs while they do (k = -1: start piece 0). */
static void fft_piece_next(int k, cplx *a, int sign) {
  if (k >= 0) check_cuda(cudaEventSynchronize(piece_done[k]), "cuFFT execution");
  if (k + 1 >= FFT_PIECES) return;
  exec(3, a + (size_t)(k + 1) * PIECE_ROWS * N1 * N2, sign);
  check_cuda(cudaEventRecord(piece_done[k + 1], stream), "cudaEventRecord");
}
/* The pieces of stage 0 on the way back (slabs): start the transforms of
 * piece k, which has just arrived in X, and return, so that the #copy of
 * piece k + 1 runs while they do; fft_pieces_wait waits for the last. */
static void fft_piece_start(int k, cplx *a, int sign) {
  exec(3, a + (size_t)k * PIECE_ROWS * N1 * N2, sign);
}
static void fft_pieces_wait(void) {
  check_cuda(cudaStreamSynchronize(stream), "cuFFT execution");
}
static void local_free(void) {
  for (int k = 0; k < STAGES; k++)
    if (planned[k]) check_cufft(cufftDestroy(plans[k]), "cufftDestroy");
  for (int i = 0; i < FFT_PIECES; i++) check_cuda(cudaEventDestroy(piece_done[i]), "cudaEventDestroy");
  check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
  if (work) check_cuda(cudaFree(work), "cudaFree");
}
#endif

/* The check's reference: the whole N0 x N1 x N2 transform in double
 * precision on one process (in and out: N interleaved complex numbers). */
static int reference(double *in, double *out, int sign) {
  int n[3] = {N0, N1, N2};
#ifdef FFT_REF_THREADS /* the reference on that many threads (link -lfftw3_threads) */
  if (!fftw_init_threads()) return -1;
  fftw_plan_with_nthreads(FFT_REF_THREADS);
#endif
  fftw_plan p = fftw_plan_dft(3, n, (fftw_complex *)in, (fftw_complex *)out, sign, FFTW_ESTIMATE);
  if (!p) {
    fprintf(stderr, "fft: FFTW cannot plan the reference transform\n");
    return -1;
  }
  fftw_execute(p);
  fftw_destroy_plan(p);
#ifdef FFT_REF_THREADS
  fftw_plan_with_nthreads(1); /* the local plans of a double-precision run stay on one thread */
#endif
  return 0;
}
#endif
