/* SPDX-License-Identifier: Apache-2.0 */
/* parray/atomic_cuda.h - parray/atomic.h for C++ (generated CUDA code, and
 * C++ that includes parray.h): the same parray_atomic_* names as
 * overloads, each callable from host threads (__atomic builtins,
 * sequentially consistent) and from device code (CUDA's atomics, or
 * compare-and-swap loops where CUDA has none for the type). Included by
 * parray/atomic.h only. */
#ifndef PARRAY_ATOMIC_CUDA_H
#define PARRAY_ATOMIC_CUDA_H

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define PARRAY__AT __host__ __device__ __forceinline__
#else
#define PARRAY__AT inline
#endif

/* the unsigned integer of a type's size, for its bits */
template <int N> struct parray__bits_of;
template <> struct parray__bits_of<2> { typedef unsigned short type; };
template <> struct parray__bits_of<4> { typedef unsigned type; };
template <> struct parray__bits_of<8> { typedef unsigned long long type; };

/* the bits of *q, read where other threads' atomics write */
template <class U> PARRAY__AT U parray__load_bits(U *q) {
#ifdef __CUDA_ARCH__
  return *reinterpret_cast<volatile U *>(q);
#else
  return __atomic_load_n(q, __ATOMIC_SEQ_CST);
#endif
}
/* compare-and-swap of bits: the bits *q had (d stored if they were e) */
template <class U> PARRAY__AT U parray__cas_bits(U *q, U e, U d) {
#ifdef __CUDA_ARCH__
  return atomicCAS(q, e, d);
#else
  __atomic_compare_exchange_n(q, &e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return e;
#endif
}
/* *p = f(*p) atomically, by compare-and-swap of its 2, 4 or 8 bytes; the old
 * value (the bits are copied through void *: g++ -Wall warns of a memcpy into
 * a class with protected members, which __half and __nv_bfloat16 are) */
template <class T, class F> PARRAY__AT T parray__cas_loop(T *p, F f) {
  typedef typename parray__bits_of<sizeof(T)>::type U;
  U *q = reinterpret_cast<U *>(p);
  U ob = parray__load_bits(q);
  for (;;) {
    T o, n;
    __builtin_memcpy((void *)&o, (const void *)&ob, sizeof o);
    n = f(o);
    U nb;
    __builtin_memcpy((void *)&nb, (const void *)&n, sizeof nb);
    U seen = parray__cas_bits(q, ob, nb);
    if (seen == ob) return o;
    ob = seen;
  }
}

/* the operations the loop applies: 0 add, 1 sub, 2 min, 3 max, 4 exch */
template <class T> struct parray__rmw {
  T v;
  int op;
  PARRAY__AT T operator()(T o) const {
    return op == 0 ? T(o + v) : op == 1 ? T(o - v) : op == 2 ? (v < o ? v : o) : op == 3 ? (v > o ? v : o) : v;
  }
};
template <class T> PARRAY__AT T parray__cas_rmw(T *p, T v, int op) { return parray__cas_loop(p, parray__rmw<T>{v, op}); }

template <class T> PARRAY__AT T parray__cas(T *p, T e, T d) {
  typedef typename parray__bits_of<sizeof(T)>::type U;
  U eb, db;
  __builtin_memcpy((void *)&eb, (const void *)&e, sizeof eb);
  __builtin_memcpy((void *)&db, (const void *)&d, sizeof db);
  eb = parray__cas_bits(reinterpret_cast<U *>(p), eb, db);
  __builtin_memcpy((void *)&e, (const void *)&eb, sizeof e);
  return e;
}

/* integers: CUDA's own atomics on the types it has them for (64-bit ones
 * through unsigned long long, which two's complement makes exact for add,
 * sub and the bitwise operations), the __atomic builtins on the host */
#ifdef __CUDA_ARCH__
#define PARRAY__DEV_INT(T, U)                                                                                     \
  PARRAY__AT T parray_atomic_add(T *p, T v) { return (T)atomicAdd((U *)p, (U)v); }                              \
  PARRAY__AT T parray_atomic_sub(T *p, T v) { return (T)atomicAdd((U *)p, (U)(0 - (U)v)); }                     \
  PARRAY__AT T parray_atomic_and(T *p, T v) { return (T)atomicAnd((U *)p, (U)v); }                              \
  PARRAY__AT T parray_atomic_or(T *p, T v) { return (T)atomicOr((U *)p, (U)v); }                                \
  PARRAY__AT T parray_atomic_xor(T *p, T v) { return (T)atomicXor((U *)p, (U)v); }                              \
  PARRAY__AT T parray_atomic_exch(T *p, T v) { return (T)atomicExch((U *)p, (U)v); }                            \
  PARRAY__AT T parray_atomic_cas(T *p, T e, T d) { return (T)atomicCAS((U *)p, (U)e, (U)d); }
#define PARRAY__DEV_MINMAX(T, M)                                                                                  \
  PARRAY__AT T parray_atomic_min(T *p, T v) { return (T)atomicMin((M *)p, (M)v); }                              \
  PARRAY__AT T parray_atomic_max(T *p, T v) { return (T)atomicMax((M *)p, (M)v); }
#else
#define PARRAY__DEV_INT(T, U)                                                                                     \
  PARRAY__AT T parray_atomic_add(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }              \
  PARRAY__AT T parray_atomic_sub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }              \
  PARRAY__AT T parray_atomic_and(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }              \
  PARRAY__AT T parray_atomic_or(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }                \
  PARRAY__AT T parray_atomic_xor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }              \
  PARRAY__AT T parray_atomic_exch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }            \
  PARRAY__AT T parray_atomic_cas(T *p, T e, T d) {                                                              \
    __atomic_compare_exchange_n(p, &e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                           \
    return e;                                                                                                   \
  }
#define PARRAY__DEV_MINMAX(T, M)                                                                                  \
  PARRAY__AT T parray_atomic_min(T *p, T v) { return parray__cas_rmw(p, v, 2); }                                \
  PARRAY__AT T parray_atomic_max(T *p, T v) { return parray__cas_rmw(p, v, 3); }
#endif
PARRAY__DEV_INT(int, int)
PARRAY__DEV_INT(unsigned, unsigned)
PARRAY__DEV_INT(long long, unsigned long long)
PARRAY__DEV_INT(unsigned long long, unsigned long long)
PARRAY__DEV_MINMAX(int, int)
PARRAY__DEV_MINMAX(unsigned, unsigned)
PARRAY__DEV_MINMAX(long long, long long)
PARRAY__DEV_MINMAX(unsigned long long, unsigned long long)
#if __SIZEOF_LONG__ == 8
PARRAY__DEV_INT(long, unsigned long long)
PARRAY__DEV_INT(unsigned long, unsigned long long)
PARRAY__DEV_MINMAX(long, long long)
PARRAY__DEV_MINMAX(unsigned long, unsigned long long)
#endif
#undef PARRAY__DEV_INT
#undef PARRAY__DEV_MINMAX

/* floating types: add (and sub) natively on the device, the rest by CAS */
PARRAY__AT float parray_atomic_add(float *p, float v) {
#ifdef __CUDA_ARCH__
  return atomicAdd(p, v);
#else
  return parray__cas_rmw(p, v, 0);
#endif
}
PARRAY__AT double parray_atomic_add(double *p, double v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
  return atomicAdd(p, v);
#else
  return parray__cas_rmw(p, v, 0);
#endif
}
PARRAY__AT float parray_atomic_sub(float *p, float v) { return parray_atomic_add(p, -v); }
PARRAY__AT double parray_atomic_sub(double *p, double v) { return parray_atomic_add(p, -v); }
PARRAY__AT float parray_atomic_min(float *p, float v) { return parray__cas_rmw(p, v, 2); }
PARRAY__AT double parray_atomic_min(double *p, double v) { return parray__cas_rmw(p, v, 2); }
PARRAY__AT float parray_atomic_max(float *p, float v) { return parray__cas_rmw(p, v, 3); }
PARRAY__AT double parray_atomic_max(double *p, double v) { return parray__cas_rmw(p, v, 3); }
PARRAY__AT float parray_atomic_exch(float *p, float v) { return parray__cas_rmw(p, v, 4); }
PARRAY__AT double parray_atomic_exch(double *p, double v) { return parray__cas_rmw(p, v, 4); }
PARRAY__AT float parray_atomic_cas(float *p, float e, float d) { return parray__cas(p, e, d); }
PARRAY__AT double parray_atomic_cas(double *p, double e, double d) { return parray__cas(p, e, d); }

#ifdef __CUDACC__
/* 16-bit floating types: add on the device (sm_70 for __half, sm_80 for
 * __nv_bfloat16), else by compare-and-swap of the bits, summed in float (in
 * a kernel that needs sm_70: CUDA has no 16-bit compare-and-swap before) */
template <class H> struct parray__half_plus {
  H v;
  __host__ __device__ H operator()(H o) const { return H(float(o) + float(v)); }
};
template <class H> __host__ __device__ __forceinline__ H parray__half_add(H *p, H v) {
  return parray__cas_loop(p, parray__half_plus<H>{v});
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define PARRAY__HALF_ADD(p, v) atomicAdd(p, v)
#else
#define PARRAY__HALF_ADD(p, v) parray__half_add(p, v)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define PARRAY__BF16_ADD(p, v) atomicAdd(p, v)
#else
#define PARRAY__BF16_ADD(p, v) parray__half_add(p, v)
#endif
__host__ __device__ __forceinline__ __half parray_atomic_add(__half *p, __half v) { return PARRAY__HALF_ADD(p, v); }
__host__ __device__ __forceinline__ __nv_bfloat16 parray_atomic_add(__nv_bfloat16 *p, __nv_bfloat16 v) {
  return PARRAY__BF16_ADD(p, v);
}
#undef PARRAY__HALF_ADD
#undef PARRAY__BF16_ADD
#endif

#undef PARRAY__AT
#endif
