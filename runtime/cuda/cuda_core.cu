/* cuda_core.cu - CUDA side of the runtime core: device selection
 * (INIT_GPU), checked device allocation and error reporting that names the
 * .pc line. The generated code calls these; kernels live in their own files. */
#include "parray/cuda.h"

#include <cstdio>

extern "C" {

parray_status parray_cuda_status(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return PARRAY_OK;
  parray_set_error("%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? PARRAY_ERR_NODEVICE : PARRAY_ERR_CUDA;
}

int parray_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

}
