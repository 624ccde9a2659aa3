/* prims_harness.h - host-side helpers shared by the examples written with
 * parray/primitives.cuh (softmax.pc, layernorm.pc, bcast_add.pc): random
 * data, fp16 conversion, device buffers with poisoned contents, comparison
 * with a float64 reference, and the timing used by their --bench mode (CUDA
 * events around each call, median after a warm-up). Host code of a CUDA
 * program (C++ compiled by nvcc); the examples' kernels are their detours. */
#ifndef PRIMS_HARNESS_H
#define PRIMS_HARNESS_H
#ifdef __cplusplus /* pac reads headers with the C preprocessor: nothing here for it */

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#define PH_CHECK(call)                                                                       \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      abort();                                                                               \
    }                                                                                        \
  } while (0)

/* Uniform values in [lo, hi) from a fixed seed (xorshift). */
static inline void ph_random(float *h, size_t n, unsigned long long seed, float lo, float hi) {
  unsigned long long s = seed * 2654435761ull + 88172645463325252ull;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    h[i] = lo + (hi - lo) * (float)((s >> 40) * (1.0 / 16777216.0));
  }
}

static inline size_t ph_size(int f16) { return f16 ? sizeof(__half) : sizeof(float); }

/* A device copy of h (n values) as fp32, or rounded to fp16; h takes the
 * rounded values so that the reference sees what the GPU sees. */
static inline void *ph_upload(int f16, float *h, size_t n) {
  void *d = NULL;
  PH_CHECK(cudaMalloc(&d, n * ph_size(f16) + 16));
  if (f16) {
    std::vector<__half> t(n);
    for (size_t i = 0; i < n; ++i) t[i] = __float2half(h[i]), h[i] = __half2float(t[i]);
    PH_CHECK(cudaMemcpy(d, t.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  } else {
    PH_CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
  }
  return d;
}

/* A device buffer of n values filled with NaN (every byte 0xff). */
static inline void *ph_poisoned(int f16, size_t n) {
  void *d = NULL;
  PH_CHECK(cudaMalloc(&d, n * ph_size(f16) + 16));
  PH_CHECK(cudaMemset(d, 0xff, n * ph_size(f16) + 16));
  return d;
}

static inline void ph_download(int f16, float *h, const void *d, size_t n) {
  if (f16) {
    std::vector<__half> t(n);
    PH_CHECK(cudaMemcpy(t.data(), d, n * sizeof(__half), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) h[i] = __half2float(t[i]);
  } else {
    PH_CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
  }
}

/* Largest |got - ref| / max(|ref|, floor); NaN or inf in got counts as inf. */
static inline double ph_max_rel(const float *got, const double *ref, size_t n, double floor) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = fabs((double)got[i] - ref[i]) / std::max(fabs(ref[i]), floor);
    if (!(e <= worst)) worst = isfinite(got[i]) ? e : INFINITY;
  }
  return worst;
}

/* Does the 16-byte guard past a device buffer of `bytes` still hold the
 * poison (no write ran past the end)? */
static inline int ph_guard_ok(const void *d, size_t bytes) {
  unsigned char g[16];
  PH_CHECK(cudaMemcpy(g, (const char *)d + bytes, 16, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i)
    if (g[i] != 0xff) return 0;
  return 1;
}

/* Median time in microseconds of `runs` calls of fn(i) (i rotates the
 * buffer set), CUDA events around each call, after a warm-up of 5 calls
 * and at least 20 ms. */
template <typename F>
static float ph_time_us(F fn, int runs) {
  cudaEvent_t a, b;
  PH_CHECK(cudaEventCreate(&a));
  PH_CHECK(cudaEventCreate(&b));
  int k = 0;
  PH_CHECK(cudaEventRecord(a));
  for (; k < 5; ++k) fn(k);
  PH_CHECK(cudaEventRecord(b));
  PH_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  PH_CHECK(cudaEventElapsedTime(&ms, a, b));
  for (int more = ms > 0 ? (int)(20.0f / (ms / 5)) : 0; more > 0 && k < 2000; --more) fn(k++);
  std::vector<float> t(runs);
  for (int r = 0; r < runs; ++r, ++k) {
    PH_CHECK(cudaEventRecord(a));
    fn(k);
    PH_CHECK(cudaEventRecord(b));
    PH_CHECK(cudaEventSynchronize(b));
    PH_CHECK(cudaEventElapsedTime(&t[r], a, b));
  }
  std::sort(t.begin(), t.end());
  PH_CHECK(cudaEventDestroy(a));
  PH_CHECK(cudaEventDestroy(b));
  return 1e3f * t[runs / 2];
}

/* A benchmark row (CSV, header PH_BENCH_HEADER): the time as measured
 * (a detour waits for its kernel, so it includes that wait), the kernel's
 * time (minus the wait of an empty detour, timed the same way), its
 * bandwidth over the bytes read and written, the error and its verdict. */
#define PH_BENCH_HEADER "op,dtype,shape,bytes,us_waited,us,tbs,max_rel_err,check"
static inline void ph_report(const char *op, int f16, long long rows, long long n, double bytes, float us_waited,
                             float wait_us, double err, double tol) {
  const double us = us_waited - wait_us > 0 ? us_waited - wait_us : us_waited;
  printf("%s,%s,%lldx%lld,%.0f,%.2f,%.2f,%.3f,%.3g,%s\n", op, f16 ? "f16" : "f32", rows, n, bytes, us_waited, us,
         bytes / us * 1e-6, err, err <= tol ? "ok" : "WRONG");
  fflush(stdout);
}

/* Buffer sets to rotate so that one method's sets exceed 2.5x the L2. */
static inline int ph_sets(size_t bytes_per_set) {
  int l2 = 0, dev = 0;
  PH_CHECK(cudaGetDevice(&dev));
  PH_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const size_t want = (size_t)(2.5 * l2);
  int s = (int)((want + bytes_per_set - 1) / bytes_per_set);
  return s < 1 ? 1 : s > 16 ? 16 : s;
}

/* A benchmark row "copy": cudaMemcpyAsync of rows x n values between two
 * device buffers (sets rotated), no wait: the bandwidth a streaming kernel
 * over the same bytes aims at. */
static inline void ph_copy_row(int f16, long long rows, long long n) {
  const size_t bytes = (size_t)(rows * n) * ph_size(f16);
  const int sets = ph_sets(2 * bytes);
  std::vector<void *> a(sets), b(sets);
  for (int s = 0; s < sets; ++s) a[s] = ph_poisoned(f16, rows * n), b[s] = ph_poisoned(f16, rows * n);
  const float us = ph_time_us(
      [&](int i) { PH_CHECK(cudaMemcpyAsync(b[i % sets], a[i % sets], bytes, cudaMemcpyDeviceToDevice)); }, 30);
  ph_report("copy", f16, rows, n, 2.0 * bytes, us, 0, 0, 0);
  for (int s = 0; s < sets; ++s) {
    PH_CHECK(cudaFree(a[s]));
    PH_CHECK(cudaFree(b[s]));
  }
}

/* One case of an example: random inputs (counts `ins`, values in [-5, 5),
 * fp16 when f16), a poisoned output of `out` values, launch(y, x) (x: the
 * input pointers; 0 when it ran), ref(r, h) the float64 reference from the
 * host inputs h. Returns the largest error relative to max(|ref|, floor),
 * inf when the launch failed or a value past the output was written. With
 * wait_us >= 0 it also times the launch (buffer sets rotated) and prints a
 * benchmark row over the bytes of all inputs and the output. */
template <typename Launch, typename Ref>
static double ph_run(const char *op, int f16, long long rows, long long n, std::vector<size_t> ins, size_t out,
                     unsigned seed, float wait_us, double floor, double tol, Launch launch, Ref ref) {
  const size_t es = ph_size(f16);
  size_t set_bytes = out * es;
  for (size_t c : ins) set_bytes += c * es;
  const int sets = wait_us >= 0 ? ph_sets(set_bytes) : 1;
  std::vector<std::vector<float>> h(ins.size());
  std::vector<std::vector<void *>> x(sets, std::vector<void *>(ins.size()));
  std::vector<void *> y(sets);
  for (size_t k = 0; k < ins.size(); ++k) {
    h[k].resize(ins[k]);
    ph_random(h[k].data(), ins[k], seed * 31 + (unsigned)k, -5.0f, 5.0f);
    for (int s = 0; s < sets; ++s) x[s][k] = ph_upload(f16, h[k].data(), ins[k]);
  }
  for (int s = 0; s < sets; ++s) y[s] = ph_poisoned(f16, out);
  double e = INFINITY;
  if (launch(y[0], x[0].data()) == 0) {
    float us = 0;
    if (wait_us >= 0) us = ph_time_us([&](int i) { launch(y[i % sets], x[i % sets].data()); }, 30);
    std::vector<float> got(out);
    std::vector<double> r(out);
    ph_download(f16, got.data(), y[0], out);
    ref(r.data(), h);
    e = ph_guard_ok(y[0], out * es) ? ph_max_rel(got.data(), r.data(), out, floor) : INFINITY;
    if (wait_us >= 0) ph_report(op, f16, rows, n, (double)set_bytes, us, wait_us, e, tol);
  }
  for (int s = 0; s < sets; ++s) {
    for (void *p : x[s]) PH_CHECK(cudaFree(p));
    PH_CHECK(cudaFree(y[s]));
  }
  return e;
}

/* The --bench mode of an example: case(f16, rows, n, seed, wait_us) timed
 * for fp32 and fp16 over the given shapes (wait_us: the time of an empty
 * detour, measured the same way). */
template <typename Case>
static int ph_bench(const int (*shapes)[2], int count, float wait_us, Case run) {
  for (int f16 = 0; f16 < 2; f16++)
    for (int k = 0; k < count; k++) run(f16, shapes[k][0], shapes[k][1], 1 + k, wait_us);
  return 0;
}

/* The self-test of an example: case(f16, rows, n, seed) for fp32 and fp16
 * over the given shapes, against tolerances tol32 and tol16; prints a line
 * per failure and PASS or FAIL; returns the process exit status. */
template <typename Case>
static int ph_selftest(const int (*shapes)[2], int count, double tol32, double tol16, Case run) {
  int bad = 0;
  for (int f16 = 0; f16 < 2; f16++)
    for (int k = 0; k < count; k++) {
      const double e = run(f16, shapes[k][0], shapes[k][1], 7 * k + f16);
      if (!(e <= (f16 ? tol16 : tol32))) {
        printf("FAIL %s %dx%d: max relative error %g\n", f16 ? "f16" : "f32", shapes[k][0], shapes[k][1], e);
        bad++;
      }
    }
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}

#endif /* __cplusplus */
#endif
