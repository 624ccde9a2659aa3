/* SPDX-License-Identifier: Apache-2.0 */
/* parray/kernels.h - the runtime kernel library, elementwise and reduction
 * half: built-in elementwise operations (unary, binary, ternary, casts) and
 * reductions (sum, mean, max, min over the whole array, over the last
 * dimension and over the leading dimension).
 *
 * Every GPU function `parray_X_cuda(..., cudaStream_t)` has a CPU twin
 * `parray_X_cpu(...)` with the same arguments minus the stream and the same
 * semantics (see docs/kernels.md). GPU functions only enqueue work: they
 * return PARRAY_ERR_CUDA when a launch fails, and errors of earlier work on
 * the stream may surface at the next synchronisation instead. Pointers given
 * to the GPU functions are device pointers (or managed/mapped memory).
 *
 * This header needs no CUDA headers: cudaStream_t is declared here exactly as
 * the CUDA runtime declares it. C users of fp16/bf16 data pass uint16_t
 * buffers holding IEEE binary16 / bfloat16 bit patterns. */
#ifndef PARRAY_KERNELS_H
#define PARRAY_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "parray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Same declaration as CUDA's driver_types.h (repeating a typedef is legal). */
typedef struct CUstream_st *cudaStream_t;

/* ------------------------------------------------------------------------ */
/* Elementwise operations.                                                    */
/* Element types: F32, F16, BF16, F64, I32, I64 (casts also take I8 and U8).  */
/* Arithmetic on F16/BF16 is done in fp32 (or with half2 instructions that   */
/* give the same correctly rounded result) and rounded once to nearest even. */
/* Integer arithmetic wraps (two's complement); x/0 == 0, MIN/-1 == MIN.      */
/* ------------------------------------------------------------------------ */
typedef enum parray_ew_op {
  /* unary: y = f(x) */
  PARRAY_OP_RELU = 0, /* x < 0 ? 0 : x (NaN stays NaN) */
  PARRAY_OP_GELU,     /* 0.5*x*erfc(-x/sqrt(2)) = 0.5*x*(1+erf(x/sqrt(2))); floating only */
  PARRAY_OP_EXP,      /* e^x; floating types only */
  PARRAY_OP_SCALE,    /* alpha*x; alpha rounded to fp32 for F32/F16/BF16,
                         to the integer type for I32/I64 (must be integral) */
  PARRAY_OP_NEG,      /* -x */
  PARRAY_OP_ABS,      /* |x| */
  /* binary: y = f(a, b) */
  PARRAY_OP_ADD,
  PARRAY_OP_SUB,
  PARRAY_OP_MUL,
  PARRAY_OP_DIV,
  PARRAY_OP_MIN, /* NaN if either operand is NaN */
  PARRAY_OP_MAX, /* NaN if either operand is NaN */
  /* ternary: y = f(a, b, c) */
  PARRAY_OP_FMA, /* a*b + c rounded once (fused) */
  PARRAY_OP_COUNT
} parray_ew_op;

PARRAY_API const char *parray_ew_op_name(parray_ew_op op);
/* 1, 2 or 3 for a valid operation, 0 otherwise. */
PARRAY_API int parray_ew_op_arity(parray_ew_op op);

/* y[i] = op(x[i]) for 0 <= i < n; alpha is used by PARRAY_OP_SCALE only.
 * y may equal x (in place); other overlaps are not allowed. */
PARRAY_API parray_status parray_unary_cpu(parray_ew_op op, parray_dtype dt, void *y, const void *x, int64_t n,
                                          double alpha);
PARRAY_API parray_status parray_unary_cuda(parray_ew_op op, parray_dtype dt, void *y, const void *x, int64_t n,
                                           double alpha, cudaStream_t stream);

/* y[i] = op(a[i], b[i]); y may equal a or b. */
PARRAY_API parray_status parray_binary_cpu(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b,
                                           int64_t n);
PARRAY_API parray_status parray_binary_cuda(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b,
                                            int64_t n, cudaStream_t stream);

/* y[i] = op(a[i], b[i], c[i]); y may equal any input. */
PARRAY_API parray_status parray_ternary_cpu(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b,
                                            const void *c, int64_t n);
PARRAY_API parray_status parray_ternary_cuda(parray_ew_op op, parray_dtype dt, void *y, const void *a, const void *b,
                                             const void *c, int64_t n, cudaStream_t stream);

/* y[i] = (ydt) x[i] between any two of the 8 element types:
 *   float -> float: round to nearest even (int -> F16/BF16 goes through F32);
 *   float -> int:   truncate toward zero, saturate to the range, NaN -> 0;
 *   int -> int:     keep the low bits (two's complement wrap).
 * ydt == xdt is a plain copy. y and x must not overlap unless equal and the
 * types have the same size. */
PARRAY_API parray_status parray_cast_cpu(parray_dtype ydt, void *y, parray_dtype xdt, const void *x, int64_t n);
PARRAY_API parray_status parray_cast_cuda(parray_dtype ydt, void *y, parray_dtype xdt, const void *x, int64_t n,
                                          cudaStream_t stream);

/* ------------------------------------------------------------------------ */
/* Reductions.                                                                */
/* Input types F32, F16, BF16, F64, I32, I64; the output type may be any of   */
/* those six. Accumulation: fp32 for F32/F16/BF16 on the GPU (fp64 on the    */
/* CPU), fp64 for F64, int64 (wrapping) for integers. Max/min propagate NaN. */
/* MEAN is SUM / count computed in fp64 and converted to the output type.    */
/* Conversion of the result to the output type follows parray_cast rules     */
/* (int64 accumulators -> I32 keep the low bits).                            */
/* Empty reductions: SUM gives 0; MEAN, MAX, MIN are PARRAY_ERR_INVALID.     */
/* GPU results are deterministic: the same inputs, shape and pointer          */
/* alignment (mod 16 bytes) give the same bits on any run and any device.    */
/* ------------------------------------------------------------------------ */
typedef enum parray_reduce_op {
  PARRAY_REDUCE_SUM = 0,
  PARRAY_REDUCE_MEAN,
  PARRAY_REDUCE_MAX,
  PARRAY_REDUCE_MIN,
  PARRAY_REDUCE_COUNT
} parray_reduce_op;

PARRAY_API const char *parray_reduce_op_name(parray_reduce_op op);

/* Workspace of the multi-block GPU reductions. `work` may be NULL: the GPU
 * function then allocates and frees one with cudaMallocAsync on the stream.
 * A caller-provided workspace must hold at least the returned number of bytes
 * and be zero-filled (cudaMemset) before its first use; every call leaves it
 * zero-filled again, so it can be reused by calls in the same stream order.
 * Two reductions running concurrently need two workspaces. The CPU twins
 * accept and ignore these arguments. */
PARRAY_API size_t parray_reduce_all_workspace(parray_dtype xdt, int64_t n);
PARRAY_API size_t parray_reduce_cols_workspace(parray_dtype xdt, int64_t rows, int64_t cols);

/* y[0] = op(x[0..n)). y is one element of type ydt (device memory for the
 * GPU version). */
PARRAY_API parray_status parray_reduce_all_cpu(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                               const void *x, int64_t n, void *work, size_t work_bytes);
PARRAY_API parray_status parray_reduce_all_cuda(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                const void *x, int64_t n, void *work, size_t work_bytes,
                                                cudaStream_t stream);

/* Reduce over the last dimension of a rows x cols array whose rows start
 * row_stride elements apart (row_stride >= cols; larger for padded rows):
 *   y[r] = op(x[r*row_stride + 0 .. r*row_stride + cols)),  0 <= r < rows.
 * Elements in the padding are never read. */
PARRAY_API parray_status parray_reduce_rows_cpu(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                const void *x, int64_t rows, int64_t cols, int64_t row_stride);
PARRAY_API parray_status parray_reduce_rows_cuda(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                 const void *x, int64_t rows, int64_t cols, int64_t row_stride,
                                                 cudaStream_t stream);

/* Reduce over the leading dimension (column reductions):
 *   y[c] = op(x[0*row_stride + c], ..., x[(rows-1)*row_stride + c]),  0 <= c < cols.
 * To reduce several leading dimensions, merge them into `rows` (their
 * strides must chain). */
PARRAY_API parray_status parray_reduce_cols_cpu(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                const void *x, int64_t rows, int64_t cols, int64_t row_stride,
                                                void *work, size_t work_bytes);
PARRAY_API parray_status parray_reduce_cols_cuda(parray_reduce_op op, parray_dtype ydt, void *y, parray_dtype xdt,
                                                 const void *x, int64_t rows, int64_t cols, int64_t row_stride,
                                                 void *work, size_t work_bytes, cudaStream_t stream);

/* ------------------------------------------------------------------------ */
/* Helpers.                                                                   */
/* ------------------------------------------------------------------------ */
/* Software fp16 / bf16 conversions (round to nearest even; NaN stays NaN). */
PARRAY_API float parray_f16_to_float(uint16_t h);
PARRAY_API float parray_bf16_to_float(uint16_t h);
PARRAY_API uint16_t parray_f16_from_double(double d);
PARRAY_API uint16_t parray_bf16_from_double(double d);
PARRAY_API uint16_t parray_f16_from_float(float f);
PARRAY_API uint16_t parray_bf16_from_float(float f);

/* Multiprocessor count and resident threads per multiprocessor of the
 * current CUDA device, queried once per device and cached (safe to call from
 * several threads). Used to size grids in waves. GPU builds only. */
PARRAY_API parray_status parray_cuda_device_shape(int *sm_count, int *threads_per_sm);

#ifdef __cplusplus
}
#endif
#endif
