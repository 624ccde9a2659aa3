/* cuda_check.h - the error checks of the GPU tests and benchmarks (tests/
 * and bench/, C and CUDA C++ alike): CK(call) for a CUDA runtime call and
 * PK(call) for a parray call. On failure each prints the file, line, call
 * and reason on stderr and exits with status 1 (a test then fails, a
 * benchmark stops). */
#ifndef PARRAY_TESTS_CUDA_CHECK_H
#define PARRAY_TESTS_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "parray/core.h"

#define CK(call)                                                                                          \
  do {                                                                                                    \
    cudaError_t e_ = (call);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                                            \
    }                                                                                                     \
  } while (0)

#define PK(call)                                                                                          \
  do {                                                                                                    \
    parray_status s_ = (call);                                                                            \
    if (s_ != PARRAY_OK) {                                                                                \
      fprintf(stderr, "parray error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call, parray_last_error()); \
      exit(1);                                                                                            \
    }                                                                                                     \
  } while (0)

#endif
