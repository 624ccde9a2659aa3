/* SPDX-License-Identifier: Apache-2.0 */
/* fftw_mpi_peer.c - the peer of the Parray FFT (examples/fft/fft.pc) in
 * bench/fft/run.sh: FFTW-MPI's own distributed plan of the same transform
 * (fftw_mpi_plan_dft_2d/3d, forward, in place, FFTW_MEASURE, output left
 * transposed with FFTW_MPI_TRANSPOSED_OUT), on the same processes. Median of
 * REPS executions after one warm-up, each between barriers. FFTW-MPI does not
 * say where its time goes: the transposition is estimated by timing FFTW-MPI's
 * own transpose plan of the same data (N0 x N1 elements of N2 complex
 * numbers) the same way, and the local transforms are the rest.
 *   mpicc -O2 [-DFFT_DOUBLE] fftw_mpi_peer.c -lfftw3f_mpi -lfftw3f -lfftw3_mpi -lfftw3 -lm
 *   mpirun -np P ./peer N0 N1 [N2] [REPS]
 * Prints one line: total, estimated local and transposition times, GFLOP/s
 * (5 N log2 N), and a check (Parseval and the DC term on constant input). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <fftw3-mpi.h>
#ifdef FFT_DOUBLE
#define F(name) fftw_##name
#define FM(name) fftw_mpi_##name
#define PRECISION "double"
typedef double real;
#else
#define F(name) fftwf_##name
#define FM(name) fftwf_mpi_##name
#define PRECISION "single"
typedef float real;
#endif
#define MAXREPS 101

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the median of reps timed executions of p, after one warm-up */
static double time_plan(F(plan) p, int reps) {
  double t[MAXREPS];
  for (int k = -1; k < reps; k++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    F(execute)(p);
    MPI_Barrier(MPI_COMM_WORLD);
    if (k >= 0) t[k] = MPI_Wtime() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  return t[reps / 2];
}

/* constant input 1: the transform is N at frequency 0 and 0 elsewhere, so
 * the sum of |X|^2 is N^2 and X[0] = N; returns the larger relative error */
static double check(const F(complex) *x, ptrdiff_t nlocal, double n, int rank, int first_here) {
  double s = 0, all = 0;
  for (ptrdiff_t i = 0; i < nlocal; i++) s += (double)x[i][0] * x[i][0] + (double)x[i][1] * x[i][1];
  MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double dc = rank == 0 && first_here ? fabs(x[0][0] - n) / n : 0, worst = 0;
  MPI_Allreduce(&dc, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double parseval = fabs(all - n * n) / (n * n);
  return parseval > worst ? parseval : worst;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  FM(init)();
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  ptrdiff_t n0 = argc > 2 ? atol(argv[1]) : 0, n1 = argc > 2 ? atol(argv[2]) : 0;
  ptrdiff_t n2 = argc > 3 ? atol(argv[3]) : 1;
  int reps = argc > 4 ? atoi(argv[4]) : 5;
  if (n0 < 1 || n1 < 1 || n2 < 1 || reps < 1 || reps > MAXREPS) {
    if (rank == 0) fprintf(stderr, "usage: %s N0 N1 [N2 [REPS (1..%d)]]\n", argv[0], MAXREPS);
    MPI_Finalize();
    return 2;
  }
  ptrdiff_t ln0, s0, ln1, s1, n[3] = {n0, n1, n2};
  int rank3 = n2 > 1 ? 3 : 2;
  ptrdiff_t alloc = FM(local_size_many_transposed)(rank3, n, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                                   MPI_COMM_WORLD, &ln0, &s0, &ln1, &s1);
  ptrdiff_t nlocal = ln0 * n1 * n2;
  F(complex) *x = F(alloc_complex)(alloc > 0 ? alloc : 1);
  real *y = (real *)F(alloc_complex)(alloc > 0 ? alloc : 1);
  F(plan) p = rank3 == 3 ? FM(plan_dft_3d)(n0, n1, n2, x, x, MPI_COMM_WORLD, FFTW_FORWARD,
                                           FFTW_MEASURE | FFTW_MPI_TRANSPOSED_OUT)
                         : FM(plan_dft_2d)(n0, n1, x, x, MPI_COMM_WORLD, FFTW_FORWARD,
                                           FFTW_MEASURE | FFTW_MPI_TRANSPOSED_OUT);
  /* the same exchange alone: N0 x N1 elements of 2 * N2 reals */
  F(plan) tp = FM(plan_many_transpose)(n0, n1, 2 * n2, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, y, y,
                                       MPI_COMM_WORLD, FFTW_MEASURE);
  if (!p || !tp) {
    if (rank == 0) fprintf(stderr, "fftw_mpi_peer: FFTW-MPI cannot plan this transform\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (ptrdiff_t i = 0; i < nlocal; i++) x[i][0] = 1, x[i][1] = 0;
  double total = time_plan(p, reps);
  /* the timed runs transformed the transform: start again from constant input */
  for (ptrdiff_t i = 0; i < nlocal; i++) x[i][0] = 1, x[i][1] = 0;
  F(execute)(p);
  double nn = (double)n0 * n1 * n2, err = check(x, ln1 * n0 * n2, nn, rank, ln1 > 0);
  double comm = time_plan(tp, reps);
  if (rank == 0) {
    char size[64];
    if (rank3 == 3) snprintf(size, sizeof size, "3-D %tdx%tdx%td", n0, n1, n2);
    else snprintf(size, sizeof size, "2-D %tdx%td", n0, n1);
    double tol = sizeof(real) == 8 ? 1e-12 : 1e-5;
    printf("fftw-mpi %s %s forward transposed np=%d: total %.6f s local %.6f s transposition %.6f s "
           "%.2f GFLOP/s check %.2e %s\n", size, PRECISION, np, total, total > comm ? total - comm : 0, comm,
           5.0 * nn * log2(nn) / total / 1e9, err, err < tol ? "PASS" : "FAIL");
  }
  F(destroy_plan)(p);
  F(destroy_plan)(tp);
  F(free)(x);
  F(free)(y);
  FM(cleanup)();
  MPI_Finalize();
  return 0;
}
