/* cuda_runtime_api.h (emulated) - the CUDA runtime calls of
 * runtime/cuda/mpi_dev.c, mpi_nccl.c and mpi_peers.c on host memory, so that
 * the distributed device array runtime (allocation per process, the copy
 * engine's packing, pieces, streams and events, scatter, gather, all-to-all,
 * staging, the NCCL transport over emulated/nccl.h, the direct path over
 * CUDA IPC) is tested under mpirun on machines without a GPU, sanitizers
 * included (tests/gpu_mpi/emulated.pc). "Device" memory is shared memory
 * (memfd_create + mmap) filled with a poison byte, so that another process
 * of the machine maps it through an IPC handle, as CUDA IPC does; more than
 * 64 GiB fails as out of memory. Work "on a stream" is done at once, but an
 * event reports "not ready" to every other query, so that the engine's
 * waiting paths run too. The calls with state (memory, devices, the last
 * error) are in emulated_cudart.c; EMULATED_GPUS (default 1) is the number
 * of devices, EMULATED_PEER_ACCESS=0 denies peer access between two of them. */
#ifndef PARRAY_EMULATED_CUDA_RUNTIME_API_H
#define PARRAY_EMULATED_CUDA_RUNTIME_API_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef int cudaError_t;
enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidDevice = 101,
  cudaErrorMapBufferObjectFailed = 205,
  cudaErrorPeerAccessUnsupported = 217,
  cudaErrorDeviceUninitialized = 201,
  cudaErrorNotReady = 600
};
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2 };
enum { cudaIpcMemLazyEnablePeerAccess = 1 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,
                      cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
};
typedef struct CUstream_st *cudaStream_t;
#define cudaStreamLegacy ((cudaStream_t)0x1) /* the legacy default stream: never dereferenced */
typedef struct emulated_event {
  int polls;
} *cudaEvent_t;
/* as CUDA's: 64 opaque bytes (here the owner's process id, memfd and size) */
typedef struct cudaIpcMemHandle_st {
  char reserved[64];
} cudaIpcMemHandle_t;

/* emulated_cudart.c */
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDevice(int *d);
/* "emulated:PID:DEVICE": each process its own GPU; with EMULATED_SAME_GPU=1
 * "emulated:DEVICE", the processes of a node sharing their GPUs as a job
 * with more processes than GPUs does */
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device);
cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);
/* device memory (an allocation or an opened IPC handle): its device; any
 * other pointer: unregistered host memory */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p);
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p);
cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags);
cudaError_t cudaIpcCloseMemHandle(void *p);

static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k) {
  (void)k;
  memcpy(dst, src, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k,
                                          cudaStream_t s) {
  (void)s;
  return cudaMemcpy(dst, src, bytes, k);
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  (void)flags;
  *s = (cudaStream_t)malloc(1);
  return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  (void)s;
  return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  free(s);
  return cudaSuccess;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  (void)flags;
  *e = (cudaEvent_t)calloc(1, sizeof **e);
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  (void)s;
  e->polls = 0;
  return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e) { return e ? cudaSuccess : cudaErrorInvalidValue; }
static inline cudaError_t cudaEventQuery(cudaEvent_t e) { return e->polls++ % 2 ? cudaSuccess : cudaErrorNotReady; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  free(e);
  return cudaSuccess;
}
/* the stream's work is done at once: what it waits for is done already */
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  (void)s, (void)flags;
  return e ? cudaSuccess : cudaErrorInvalidValue;
}
#endif
