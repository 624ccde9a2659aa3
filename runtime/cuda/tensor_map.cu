/* SPDX-License-Identifier: Apache-2.0 */
/* tensor_map.cu - the tensor maps of the bulk tensor copies a cuda detour
 * makes (`#copy A(a) at(...) to S(s) tma(bar)`, docs/cuda.md): the host
 * encodes one before the launch from the dmem type A (its extents and
 * strides, innermost first) and the box (the smem type's extents), checks
 * what the tensor memory accelerator requires with messages that name the
 * .pc line, and reaches cuTensorMapEncodeTiled through the CUDA runtime's
 * driver entry points (no libcuda link). */
#include "parray/cuda.h"

#include <cuda.h> // CUtensorMap and the driver's types only

#include <cstdint>
#include <cstdio>
#include <mutex>

typedef CUresult (*parray_encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                           const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                           CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                           CUtensorMapFloatOOBfill);

void *parray_cuda_driver_entry(const char *name) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
#else
  const cudaError_t e = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &q);
#endif
  if (e == cudaSuccess && q == cudaDriverEntryPointSuccess) return p;
  cudaGetLastError(); // not sticky: clear it
  return nullptr;
}

/* cuTensorMapEncodeTiled (looked up once), or null when the driver has none. */
static parray_encode_tiled_fn parray_cuda_encode_tiled(void) {
  static std::once_flag once;
  static parray_encode_tiled_fn fn = nullptr;
  std::call_once(once, [] { fn = reinterpret_cast<parray_encode_tiled_fn>(parray_cuda_driver_entry("cuTensorMapEncodeTiled")); });
  return fn;
}

static bool data_type(int elem_bytes, CUtensorMapDataType *t) {
  switch (elem_bytes) {
  case 1: *t = CU_TENSOR_MAP_DATA_TYPE_UINT8; return true;
  case 2: *t = CU_TENSOR_MAP_DATA_TYPE_UINT16; return true;
  case 4: *t = CU_TENSOR_MAP_DATA_TYPE_INT32; return true;
  case 8: *t = CU_TENSOR_MAP_DATA_TYPE_INT64; return true;
  default: return false;
  }
}

/* Why the tensor can not be a map with this box (a message in buf), or
 * null: what cuTensorMapEncodeTiled requires, said in the program's terms. */
static const char *unsuitable(const void *base, int elem_bytes, int rank, const long long *dims,
                              const long long *strides, const int *box, char *buf, size_t size) {
  if (rank < 1 || rank > 5) return snprintf(buf, size, "a tensor map has 1 to 5 dimensions, not %d", rank), buf;
  if ((uintptr_t)base & 15)
    return snprintf(buf, size, "the tensor's address %p is not 16-byte aligned", base), buf;
  if (strides[0] != 1) return snprintf(buf, size, "the innermost dimension's stride is %lld, not 1", strides[0]), buf;
  for (int k = 0; k < rank; k++) {
    if (dims[k] < 1 || dims[k] > (1LL << 32))
      return snprintf(buf, size, "dimension %d of the map has %lld elements (1 to 2^32)", k, dims[k]), buf;
    if (box[k] < 1 || box[k] > 256 || box[k] > dims[k])
      return snprintf(buf, size, "the box has %d elements along dimension %d of the map, which has %lld (at most "
                      "256, and at most the dimension)", box[k], k, dims[k]), buf;
    long long sb = strides[k] * elem_bytes;
    if (k > 0 && (strides[k] < 1 || sb % 16 || sb >= (1LL << 40)))
      return snprintf(buf, size, "the stride of dimension %d of the map is %lld bytes (a multiple of 16 below "
                      "2^40)", k, sb), buf;
  }
  if ((long long)box[0] * elem_bytes % 16)
    return snprintf(buf, size, "the box's innermost row is %lld bytes, not a multiple of 16",
                    (long long)box[0] * elem_bytes), buf;
  return nullptr;
}

extern "C" parray_status parray_cuda_tensor_map_encode(void *map, const void *base, int elem_bytes, int rank,
                                                       const long long *dims, const long long *strides,
                                                       const int *box) {
  char why[256];
  CUtensorMapDataType t;
  if (!data_type(elem_bytes, &t)) {
    parray_set_error("a tensor map's elements are 1, 2, 4 or 8 bytes, not %d", elem_bytes);
    return PARRAY_ERR_INVALID;
  }
  if (const char *w = unsuitable(base, elem_bytes, rank, dims, strides, box, why, sizeof why)) {
    parray_set_error("%s", w);
    return PARRAY_ERR_INVALID;
  }
  parray_encode_tiled_fn fn = parray_cuda_encode_tiled();
  if (!fn) {
    parray_set_error("the CUDA driver has no cuTensorMapEncodeTiled (it needs CUDA 12 and a driver that has it)");
    return PARRAY_ERR_CUDA;
  }
  cuuint64_t d[5], s[4];
  cuuint32_t b[5], e[5];
  for (int k = 0; k < rank; k++) {
    d[k] = (cuuint64_t)dims[k], b[k] = (cuuint32_t)box[k], e[k] = 1;
    if (k) s[k - 1] = (cuuint64_t)(strides[k] * elem_bytes);
  }
  CUresult r = fn(static_cast<CUtensorMap *>(map), t, (cuuint32_t)rank, const_cast<void *>(base), d, s, b, e,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    parray_set_error("cuTensorMapEncodeTiled refused the map (CUresult %d)", (int)r);
    return PARRAY_ERR_CUDA;
  }
  return PARRAY_OK;
}

extern "C" void parray_cuda_tensor_map(void *map, const void *base, int elem_bytes, int rank, const long long *dims,
                                       const long long *strides, const int *box, const char *file, int line,
                                       const char *what) {
  if (parray_cuda_tensor_map_encode(map, base, elem_bytes, rank, dims, strides, box) != PARRAY_OK)
    parray_fatal_at(file, line, what, "cannot build the tensor map: %s", parray_last_error());
}
