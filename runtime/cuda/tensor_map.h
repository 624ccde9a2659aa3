/* SPDX-License-Identifier: Apache-2.0 */
/* tensor_map.h - the runtime's one way to cuTensorMapEncodeTiled: the
 * driver's entry point found through the CUDA runtime (the libraries do
 * not link libcuda), shared by parray_cuda_tensor_map (tensor_map.cu) and
 * parray_sgemm's Hopper kernel (sgemm_hopper.cu). Private to the runtime. */
#ifndef PARRAY_TENSOR_MAP_H
#define PARRAY_TENSOR_MAP_H

#include <cuda.h> // CUtensorMap and the driver's types only

typedef CUresult (*parray_encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                           const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                           CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                           CUtensorMapFloatOOBfill);

/* cuTensorMapEncodeTiled (looked up once), or null when the driver has none. */
parray_encode_tiled_fn parray_cuda_encode_tiled(void);

#endif
