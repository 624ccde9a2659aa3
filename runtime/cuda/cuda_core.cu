/* cuda_core.cu - CUDA side of the runtime core: device selection
 * (INIT_GPU), checked allocation, host/device copies between layouts and
 * launch checking, each reporting failures with the .pc line. Kernels live
 * in their own files. */
#include "parray/cuda.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

static bool is_device(parray_memkind k) { return k == PARRAY_DMEM; }

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

static void check(cudaError_t e, const char *file, int line, const char *what, const char *call) {
  if (e != cudaSuccess) parray_fatal_at(file, line, what, "%s failed: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}

static int init_gpu_choice = -1;

int parray_cuda_init_gpu_choice(void) { return init_gpu_choice; }

void parray_cuda_init_gpu(int n, const char *file, int line) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    parray_fatal_at(file, line, "INIT_GPU", "no CUDA device is available (%s)",
                    e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
  if (n < 0 || n >= count) parray_fatal_at(file, line, "INIT_GPU", "GPU %d does not exist (this machine has %d)", n, count);
  check(cudaSetDevice(n), file, line, "INIT_GPU", "cudaSetDevice");
  init_gpu_choice = n;
}

void *parray_cuda_create(parray_memkind kind, size_t bytes, const char *file, int line, const char *what) {
  void *p = NULL;
  cudaError_t e = kind == PARRAY_DMEM ? cudaMalloc(&p, bytes ? bytes : 1) : cudaMallocHost(&p, bytes ? bytes : 1);
  if (e != cudaSuccess)
    parray_fatal_at(file, line, what, "cannot allocate %zu bytes of %s memory: %s", bytes,
                    kind == PARRAY_DMEM ? "dmem (GPU)" : "pinned", cudaGetErrorString(e));
  return p;
}

void parray_cuda_destroy(parray_memkind kind, void *p, const char *file, int line, const char *what) {
  if (!p) return;
  check(kind == PARRAY_DMEM ? cudaFree(p) : cudaFreeHost(p), file, line, what,
        kind == PARRAY_DMEM ? "cudaFree" : "cudaFreeHost");
}

void parray_cuda_memcpy(void *dst, const void *src, size_t bytes, const char *file, int line, const char *what) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), file, line, what, "cudaMemcpy");
}

/* strides of the row-major (index-order) layout of shape */
static void rowmajor(const int64_t *shape, int n, int64_t *st) {
  int64_t s = 1;
  for (int k = n - 1; k >= 0; k--) st[k] = s, s *= shape[k];
}

static bool is_rowmajor(const int64_t *shape, const int64_t *st, int n) {
  int64_t s = 1;
  for (int k = n - 1; k >= 0; k--) {
    if (shape[k] != 1 && st[k] != s) return false;
    s *= shape[k];
  }
  return true;
}

void parray_cuda_copy(parray_memkind dkind, void *dst, const int64_t *dstride, parray_memkind skind, const void *src,
                      const int64_t *sstride, const int64_t *shape, int ndim, size_t es, const char *file, int line,
                      const char *what) {
  int64_t count = 1;
  for (int k = 0; k < ndim; k++) count *= shape[k];
  if (count == 0) return;
  bool dd = is_device(dkind), sd = is_device(skind);
  if (!dd && !sd) {
    if (parray_copy_strided_cpu(dst, dstride, src, sstride, shape, ndim, es) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    return;
  }
  if (dd && sd) {
    if (parray_copy_strided_cuda(dst, dstride, src, sstride, shape, ndim, es, 0) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    check(cudaDeviceSynchronize(), file, line, what, "the device copy");
    return;
  }
  /* one side on the host, one on the device */
  int64_t rm[16];
  rowmajor(shape, ndim, rm);
  size_t bytes = (size_t)count * es;
  /* after normalising (byte strides, the innermost dimension is bytes):
   * one contiguous run is a cudaMemcpy; rows with one outer stride are a
   * cudaMemcpy2D */
  parray_copy_dim nd[17];
  int m = parray_copy_normalise(nd, shape, dstride, sstride, ndim, es);
  if (m == 1 && nd[0].dst_stride == 1 && nd[0].src_stride == 1) {
    check(cudaMemcpy(dst, src, (size_t)nd[0].n, cudaMemcpyDefault), file, line, what, "cudaMemcpy");
    return;
  }
  if (m == 2 && nd[1].dst_stride == 1 && nd[1].src_stride == 1 && nd[0].dst_stride >= nd[1].n &&
      nd[0].src_stride >= nd[1].n) {
    check(cudaMemcpy2D(dst, (size_t)nd[0].dst_stride, src, (size_t)nd[0].src_stride, (size_t)nd[1].n, (size_t)nd[0].n,
                       cudaMemcpyDefault),
          file, line, what, "cudaMemcpy2D");
    return;
  }
  void *dev = NULL, *host = NULL;
  check(cudaMalloc(&dev, bytes), file, line, what, "cudaMalloc (staging buffer)");
  if (sd) {
    /* device -> host: reorder on the device into index order, then copy out */
    if (parray_copy_strided_cuda(dev, rm, src, sstride, shape, ndim, es, 0) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    if (is_rowmajor(shape, dstride, ndim)) {
      check(cudaMemcpy(dst, dev, bytes, cudaMemcpyDeviceToHost), file, line, what, "cudaMemcpy");
    } else {
      check(cudaMallocHost(&host, bytes), file, line, what, "cudaMallocHost (staging buffer)");
      check(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), file, line, what, "cudaMemcpy");
      if (parray_copy_strided_cpu(dst, dstride, host, rm, shape, ndim, es) != PARRAY_OK)
        parray_fatal_at(file, line, what, "%s", parray_last_error());
    }
  } else {
    /* host -> device: bring the data over in index order, reorder on the device */
    if (is_rowmajor(shape, sstride, ndim)) {
      check(cudaMemcpy(dev, src, bytes, cudaMemcpyHostToDevice), file, line, what, "cudaMemcpy");
    } else {
      check(cudaMallocHost(&host, bytes), file, line, what, "cudaMallocHost (staging buffer)");
      if (parray_copy_strided_cpu(host, rm, src, sstride, shape, ndim, es) != PARRAY_OK)
        parray_fatal_at(file, line, what, "%s", parray_last_error());
      check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), file, line, what, "cudaMemcpy");
    }
    if (parray_copy_strided_cuda(dst, dstride, dev, rm, shape, ndim, es, 0) != PARRAY_OK)
      parray_fatal_at(file, line, what, "%s", parray_last_error());
    check(cudaDeviceSynchronize(), file, line, what, "the device copy");
  }
  if (host) cudaFreeHost(host);
  cudaFree(dev);
}

void parray_cuda_check_launch(const char *file, int line, const char *what) {
  check(cudaGetLastError(), file, line, what, "the kernel launch");
  check(cudaDeviceSynchronize(), file, line, what, "the kernel");
}

}

void parray_cuda_launch_cooperative(const void *fn, dim3 grid, dim3 block, void **args, const char *file, int line,
                                    const char *what) {
  int dev = 0, coop = 0, sms = 0, per_sm = 0;
  check(cudaGetDevice(&dev), file, line, what, "cudaGetDevice");
  check(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev), file, line, what, "cudaDeviceGetAttribute");
  if (!coop) parray_fatal_at(file, line, what, "#sync_0 needs a GPU that supports cooperative launches");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), file, line, what, "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, (int)(block.x * block.y * block.z), 0), file, line,
        what, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  long long blocks = (long long)grid.x * grid.y * grid.z, room = (long long)per_sm * sms;
  if (blocks > room)
    parray_fatal_at(file, line, what, "#sync_0 needs all %lld blocks of the grid resident at once, but this GPU holds "
                    "at most %lld of them (%d multiprocessors x %d)", blocks, room, sms, per_sm);
  check(cudaLaunchCooperativeKernel(fn, grid, block, args, 0, 0), file, line, what, "cudaLaunchCooperativeKernel");
  check(cudaDeviceSynchronize(), file, line, what, "the kernel");
}
