/* ops.c - include/parray/atomic.h on one thread: every operation returns the
 * old value and leaves the right new one, for every type; compiled as C11,
 * as C++ and by nvcc as CUDA C++ (the host side run, the device side
 * compiled into a kernel), -Wall -Wextra -Werror
 * (header.sh). The contended cases are tests/compiler/run/atomic_pthd.pc
 * and tests/gpu/atomic.pc. */
#include <stdio.h>
#include <string.h>
#include "parray/atomic.h"

static int bad;
#define EXPECT(c) (void)((c) || (printf("FAIL line %d: %s\n", __LINE__, #c), bad++))

/* *a, starting at 12, through every operation; a points into slot (on the
 * device shared memory: CUDA has no atomics on local memory) */
#define ANY(T)                                                                     \
  {                                                                                \
    T *a = (T *)(void *)slot;                                                      \
    *a = 12;                                                                       \
    EXPECT(parray_atomic_add(a, (T)5) == 12 && *a == 17);                          \
    EXPECT(parray_atomic_sub(a, (T)7) == 17 && *a == 10);                          \
    EXPECT(parray_atomic_min(a, (T)11) == 10 && *a == 10);                         \
    EXPECT(parray_atomic_min(a, (T)3) == 10 && *a == 3);                           \
    EXPECT(parray_atomic_max(a, (T)2) == 3 && *a == 3);                            \
    EXPECT(parray_atomic_max(a, (T)9) == 3 && *a == 9);                            \
    EXPECT(parray_atomic_exch(a, (T)4) == 9 && *a == 4);                           \
    EXPECT(parray_atomic_cas(a, (T)5, (T)6) == 4 && *a == 4);                      \
    EXPECT(parray_atomic_cas(a, (T)4, (T)6) == 4 && *a == 6);                      \
  }
#define INT(T)                                                                     \
  ANY(T) {                                                                         \
    T *a = (T *)(void *)slot;                                                      \
    *a = 12;                                                                       \
    EXPECT(parray_atomic_and(a, (T)10) == 12 && *a == 8);                          \
    EXPECT(parray_atomic_or(a, (T)3) == 8 && *a == 11);                            \
    EXPECT(parray_atomic_xor(a, (T)6) == 11 && *a == 13);                          \
  }

#ifdef __CUDACC__
/* the device side, compiled (run by tests/gpu/atomics.pc) */
__global__ void parray_test_device(int *out) {
  int bad = 0;
  __shared__ unsigned long long slot[1];
  INT(int) INT(unsigned) INT(long) INT(unsigned long) INT(long long) INT(unsigned long long)
  ANY(float) ANY(double)
  __half *h = (__half *)(void *)slot;
  *h = __float2half(1.0f);
  EXPECT(__half2float(parray_atomic_add(h, __float2half(2.0f))) == 1.0f && __half2float(*h) == 3.0f);
  __nv_bfloat16 *b = (__nv_bfloat16 *)(void *)slot;
  *b = __float2bfloat16(1.0f);
  EXPECT(__bfloat162float(parray_atomic_add(b, __float2bfloat16(2.0f))) == 1.0f && __bfloat162float(*b) == 3.0f);
  *out = bad;
}
#endif

#ifdef __CUDACC__
#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) return printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)), 1;       \
  } while (0)
/* --device: run the kernel on GPU 0 (exit 77 where there is none) */
static int on_device(void) {
  int n = 0, *d, got = -1;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return printf("SKIP: no CUDA device\n"), 77;
  CK(cudaMalloc((void **)&d, sizeof *d));
  CK(cudaMemset(d, 0xff, sizeof *d)); /* poison */
  parray_test_device<<<1, 1>>>(d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  printf("%s\n", got == 0 ? "PASS" : "FAIL");
  return got != 0;
}
#endif

int main(int argc, char **argv) {
  unsigned long long slot[1];
#ifdef __CUDACC__
  if (argc > 1 && !strcmp(argv[1], "--device")) return on_device();
#else
  (void)argc, (void)argv;
#endif
  INT(int) INT(unsigned) INT(long) INT(unsigned long) INT(long long) INT(unsigned long long)
  ANY(float) ANY(double)
  {
    long long m = -5; /* signed order */
    EXPECT(parray_atomic_min(&m, -9LL) == -5 && m == -9);
    EXPECT(parray_atomic_max(&m, 1LL) == -9 && m == 1);
    double d = 0.5; /* floating-point order and sums */
    EXPECT(parray_atomic_add(&d, 0.25) == 0.5 && d == 0.75);
    EXPECT(parray_atomic_min(&d, -1.5) == 0.75 && d == -1.5);
  }
#ifdef __CUDACC__
  { /* and the host side of the 16-bit types */
    __half h = __float2half(1.0f);
    EXPECT(__half2float(parray_atomic_add(&h, __float2half(2.0f))) == 1.0f && __half2float(h) == 3.0f);
    __nv_bfloat16 b = __float2bfloat16(1.0f);
    EXPECT(__bfloat162float(parray_atomic_add(&b, __float2bfloat16(2.0f))) == 1.0f && __bfloat162float(b) == 3.0f);
  }
#endif
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
