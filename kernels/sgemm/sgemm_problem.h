/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm_problem.h - the row-major product C = alpha*op(A)*op(B) + beta*C as
 * parray_sgemm's dispatch (sgemm.cu) hands it to a kernel, after the
 * column-major mapping: the part that the launch parameters of every kernel
 * share (Params of sgemm_kernel.cuh, HopperArgs of sgemm_hopper.h derive from
 * it), so that the dispatch fills it once. Private to kernels/sgemm. */
#ifndef PARRAY_SGEMM_PROBLEM_H
#define PARRAY_SGEMM_PROBLEM_H

namespace parray_sgemm_detail {

struct SgemmProblem {
  const float *A, *B;
  float *C;
  long long lda, ldb, ldc;
  int M, N, K; // K: full depth (0 when alpha == 0: A and B are not read)
  float alpha, beta;
};

} // namespace parray_sgemm_detail

#endif
