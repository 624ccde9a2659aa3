/* SPDX-License-Identifier: Apache-2.0 */
/* sgemm_hopper.h - the interface between parray_sgemm's dispatch (sgemm.cu)
 * and the Hopper-only kernel of sgemm_hopper.cu (compiled for sm_90a alone,
 * and only when the CUDA compiler can: PARRAY_SGEMM_HOPPER is then defined
 * for sgemm.cu). Private to kernels/sgemm. */
#ifndef PARRAY_SGEMM_HOPPER_H
#define PARRAY_SGEMM_HOPPER_H

#include <cuda_runtime.h>

#include "sgemm_problem.h"

namespace parray_sgemm_detail {

/* The row-major product as the dispatch hands it over (after the
 * column-major mapping): ak / bk say whether A / B are stored k-contiguous
 * (not both: the kernel has no form for that); cluster 2: the cluster form
 * (two blocks side by side in n share each A slice through TMA multicast),
 * else the one-block form. */
struct HopperArgs : SgemmProblem {
  int ak, bk;
  int cluster;
};

/* The block tile of the Hopper kernel (M x N of C). */
enum { HOPPER_BM = 256, HOPPER_BN = 128 };

/* Why the kernel cannot take these arguments (a constant string), or null
 * when it can: the device must be compute capability 9.0, K > 0, A and B not
 * both k-contiguous, and they must suit the tensor-memory accelerator
 * (16-byte aligned base pointers, leading dimensions a multiple of 4 floats). */
const char *hopper_unsupported(const HopperArgs &a, int device);

/* Launches the kernel on stream s (after hopper_unsupported said yes).
 * Errors: cudaErrorNotSupported when the driver lacks the tensor-map entry
 * point or refuses a tensor map, or no cluster of two fits the device, else
 * what the launch returned. */
cudaError_t hopper_launch(const HopperArgs &a, cudaStream_t s);

} // namespace parray_sgemm_detail

#endif
