/* parray/cuda.h - CUDA part of the runtime API: device selection, checked
 * allocation and copies, launch checking. Needs the CUDA runtime headers. */
#ifndef PARRAY_CUDA_H
#define PARRAY_CUDA_H

#include <cuda_runtime_api.h>

#include "parray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Convert a CUDA error into a status, recording "what: message" as the last
 * error text. */
PARRAY_API parray_status parray_cuda_status(cudaError_t e, const char *what);
/* Number of CUDA devices, 0 when there is none or no driver. */
PARRAY_API int parray_cuda_device_count(void);

#ifdef __cplusplus
}
#endif
#endif
