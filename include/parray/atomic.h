/* SPDX-License-Identifier: Apache-2.0 */
/* parray/atomic.h - atomic operations on array elements (and any object)
 * inside detour bodies, one spelling for every target (docs/threads.md,
 * "Atomics"): parray_atomic_add(&h[b], 1) in a pthd body, a cuda body, or
 * the host code of either. Each returns the value the object had before.
 *   add sub min max and or xor exch: (p, v); cas: (p, expected, desired)
 *   types: int, unsigned, long, unsigned long, long long, unsigned long long,
 *          float, double (and, in CUDA, __half and __nv_bfloat16 for add;
 *          in a kernel from sm_70 on)
 *   and, or, xor: the integer types only
 * Host threads: GCC/Clang __atomic builtins, sequentially consistent; float
 * and double (and min, max) by compare-and-swap loops. CUDA device code:
 * atomicAdd, atomicMin, ... (relaxed, device-wide, as CUDA's are), CAS loops
 * where CUDA has no such atomic. In C the type is chosen with _Generic, in
 * CUDA C++ by overloading. Included by parray.h; it includes nothing and
 * declares nothing outside parray_ and PARRAY_. pac reports these calls in
 * the body of an mpi detour, whose processes share no memory. */
#ifndef PARRAY_ATOMIC_H
#define PARRAY_ATOMIC_H

#ifndef __cplusplus
/* ---- C: host threads ---------------------------------------------------------- */

#define PARRAY__ATOMIC_INT(T, S)                                                                                  \
  static __inline__ T parray__atomic_add_##S(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }      \
  static __inline__ T parray__atomic_sub_##S(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }      \
  static __inline__ T parray__atomic_and_##S(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }      \
  static __inline__ T parray__atomic_or_##S(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }        \
  static __inline__ T parray__atomic_xor_##S(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }      \
  static __inline__ T parray__atomic_exch_##S(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }    \
  static __inline__ T parray__atomic_cas_##S(T *p, T e, T d) {                                                      \
    __atomic_compare_exchange_n(p, &e, d, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                               \
    return e;                                                                                                   \
  }                                                                                                             \
  static __inline__ T parray__atomic_min_##S(T *p, T v) {                                                           \
    T o = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                                 \
    while (v < o && !__atomic_compare_exchange_n(p, &o, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {           \
    }                                                                                                           \
    return o;                                                                                                   \
  }                                                                                                             \
  static __inline__ T parray__atomic_max_##S(T *p, T v) {                                                           \
    T o = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                                 \
    while (v > o && !__atomic_compare_exchange_n(p, &o, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {           \
    }                                                                                                           \
    return o;                                                                                                   \
  }
/* long long under names of the header's own: __extension__ keeps a program
 * built with -std=c89 -pedantic-errors (which has no long long) building */
__extension__ typedef long long parray__ll;
__extension__ typedef unsigned long long parray__ull;
PARRAY__ATOMIC_INT(int, i)
PARRAY__ATOMIC_INT(unsigned, u)
PARRAY__ATOMIC_INT(long, l)
PARRAY__ATOMIC_INT(unsigned long, ul)
PARRAY__ATOMIC_INT(parray__ll, ll)
PARRAY__ATOMIC_INT(parray__ull, ull)

/* floating types: the value's bits through an unsigned integer of its size */
#define PARRAY__ATOMIC_FLOAT(T, U, S)                                                                             \
  static __inline__ T parray__atomic_rmw_##S(T *p, T v, int op) { /* 0 add, 1 sub, 2 min, 3 max, 4 exch */        \
    U ob = __atomic_load_n((U *)p, __ATOMIC_SEQ_CST), nb;                                                       \
    for (;;) {                                                                                                  \
      T o, n;                                                                                                   \
      __builtin_memcpy(&o, &ob, sizeof o);                                                                      \
      n = op == 0 ? o + v : op == 1 ? o - v : op == 2 ? (v < o ? v : o) : op == 3 ? (v > o ? v : o) : v;       \
      if ((op == 2 || op == 3) && n == o) return o;                                                             \
      __builtin_memcpy(&nb, &n, sizeof nb);                                                                     \
      if (__atomic_compare_exchange_n((U *)p, &ob, nb, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return o;       \
    }                                                                                                           \
  }                                                                                                             \
  static __inline__ T parray__atomic_add_##S(T *p, T v) { return parray__atomic_rmw_##S(p, v, 0); }                \
  static __inline__ T parray__atomic_sub_##S(T *p, T v) { return parray__atomic_rmw_##S(p, v, 1); }                \
  static __inline__ T parray__atomic_min_##S(T *p, T v) { return parray__atomic_rmw_##S(p, v, 2); }                \
  static __inline__ T parray__atomic_max_##S(T *p, T v) { return parray__atomic_rmw_##S(p, v, 3); }                \
  static __inline__ T parray__atomic_exch_##S(T *p, T v) { return parray__atomic_rmw_##S(p, v, 4); }               \
  static __inline__ T parray__atomic_cas_##S(T *p, T e, T d) {                                                      \
    U eb, db;                                                                                                   \
    __builtin_memcpy(&eb, &e, sizeof eb);                                                                       \
    __builtin_memcpy(&db, &d, sizeof db);                                                                       \
    __atomic_compare_exchange_n((U *)p, &eb, db, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                        \
    __builtin_memcpy(&e, &eb, sizeof e);                                                                        \
    return e;                                                                                                   \
  }
PARRAY__ATOMIC_FLOAT(float, unsigned, f)
PARRAY__ATOMIC_FLOAT(double, parray__ull, d)

#define PARRAY__ATOMIC_ANY(op, p)                                                                                 \
  _Generic((p), int *: parray__atomic_##op##_i, unsigned *: parray__atomic_##op##_u,                            \
           long *: parray__atomic_##op##_l, unsigned long *: parray__atomic_##op##_ul,                         \
           parray__ll *: parray__atomic_##op##_ll, parray__ull *: parray__atomic_##op##_ull,              \
           float *: parray__atomic_##op##_f, double *: parray__atomic_##op##_d)
#define PARRAY__ATOMIC_INTS(op, p)                                                                                \
  _Generic((p), int *: parray__atomic_##op##_i, unsigned *: parray__atomic_##op##_u,                            \
           long *: parray__atomic_##op##_l, unsigned long *: parray__atomic_##op##_ul,                         \
           parray__ll *: parray__atomic_##op##_ll, parray__ull *: parray__atomic_##op##_ull)
#define parray_atomic_add(p, v) PARRAY__ATOMIC_ANY(add, p)((p), (v))
#define parray_atomic_sub(p, v) PARRAY__ATOMIC_ANY(sub, p)((p), (v))
#define parray_atomic_min(p, v) PARRAY__ATOMIC_ANY(min, p)((p), (v))
#define parray_atomic_max(p, v) PARRAY__ATOMIC_ANY(max, p)((p), (v))
#define parray_atomic_exch(p, v) PARRAY__ATOMIC_ANY(exch, p)((p), (v))
#define parray_atomic_cas(p, e, d) PARRAY__ATOMIC_ANY(cas, p)((p), (e), (d))
#define parray_atomic_and(p, v) PARRAY__ATOMIC_INTS(and, p)((p), (v))
#define parray_atomic_or(p, v) PARRAY__ATOMIC_INTS(or, p)((p), (v))
#define parray_atomic_xor(p, v) PARRAY__ATOMIC_INTS(xor, p)((p), (v))

#else
/* ---- C++ (generated CUDA): host threads and device code ------------------------ */
#include "parray/atomic_cuda.h"
#endif

#endif
