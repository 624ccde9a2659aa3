/* test_kernels_user_op.cu - user-defined elementwise operations written as
 * C expressions with the macros of parray/elementwise.cuh: unary, binary,
 * ternary, with a scalar argument, mixed element types (so the pack width is
 * set by the widest type), fp16 through the same engine; odd sizes, pointers
 * offset by one element, every output element checked after poisoning.
 * Exits 77 without a GPU. */
#include <cuda_fp16.h>

#include <vector>

#include "../common/cuda_check.h"
#include "kref.h"
#include "parray/elementwise.cuh"

/* y = 2.5*a + b (fp32) */
PARRAY_ELEMENTWISE_BINARY(user_axpb, float, float, float, 2.5f * a + b)
/* y = a > 0 ? b : c (a select) */
PARRAY_ELEMENTWISE_TERNARY(user_where, float, float, float, float, a > 0.f ? b : c)
/* fp32 -> int32 after scaling by s, clamped (mixed types: 4-element packs) */
PARRAY_ELEMENTWISE_UNARY_S(user_quant, int32_t, float, float, x * s > 1000.f ? 1000 : (x * s < -1000.f ? -1000 : (int32_t)(x * s)))
/* an expression with commas */
PARRAY_ELEMENTWISE_BINARY(user_clamp, float, float, float, fminf(fmaxf(a, -b), b))
/* fp16 in, fp16 out, computed in fp32 */
PARRAY_ELEMENTWISE_UNARY(user_sq_h, __half, __half, __float2half(__half2float(x) * __half2float(x)))
/* int64 = int32 * int8 + s (mixed widths: 2-element packs) */
PARRAY_ELEMENTWISE_BINARY_S(user_mad_i, int64_t, int32_t, int8_t, int64_t, (int64_t)a * b + s)

template <typename T>
static T *dev_copy(const std::vector<T> &h, int off) {
  T *d;
  CK(cudaMalloc(&d, (h.size() + 2) * sizeof(T)));
  CK(cudaMemcpy(d + off, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T>
static std::vector<T> dev_get(const T *d, size_t n) {
  std::vector<T> h(n);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static void run(int64_t n, int off, int yoff) {
  std::vector<float> a(n), b(n), c(n);
  std::vector<uint16_t> hh(n);
  std::vector<int32_t> ia(n);
  std::vector<int8_t> ib(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = (float)(kr_unif() * 200 - 100), b[i] = (float)(kr_unif() * 200 - 100), c[i] = (float)(kr_unif() * 2 - 1);
    hh[i] = parray_f16_from_double(kr_unif() * 300 - 150);
    ia[i] = (int32_t)(kr_next() >> 33) - (1 << 30);
    ib[i] = (int8_t)kr_next();
  }
  float *da = dev_copy(a, off), *db = dev_copy(b, off), *dc = dev_copy(c, off);
  __half *dh = (__half *)dev_copy(hh, off);
  int32_t *dia = dev_copy(ia, off);
  int8_t *dib = dev_copy(ib, off);
  float *dy;
  int32_t *dq;
  __half *dyh;
  int64_t *dl;
  CK(cudaMalloc(&dy, (n + 2) * 4));
  CK(cudaMalloc(&dq, (n + 2) * 4));
  CK(cudaMalloc(&dyh, (n + 2) * 2));
  CK(cudaMalloc(&dl, (n + 2) * 8));
  for (int poison = 0; poison < 2; ++poison) {
    const int pb = poison ? 0x5a : 0xa5;
    CK(cudaMemset(dy, pb, (n + 2) * 4));
    CK(cudaMemset(dq, pb, (n + 2) * 4));
    CK(cudaMemset(dyh, pb, (n + 2) * 2));
    CK(cudaMemset(dl, pb, (n + 2) * 8));
    KR_CHECK(user_axpb(dy + yoff, da + off, db + off, n, 0) == PARRAY_OK, "axpb: %s", parray_last_error());
    std::vector<float> y = dev_get(dy + yoff, n);
    for (int64_t i = 0; i < n; ++i) {
      const double ref = 2.5 * a[i] + (double)b[i]; /* fused or not: within 1 ulp */
      if (!kr_close(PARRAY_F32, y[i], ref, 1.0)) KR_CHECK(0, "axpb n=%lld i=%lld: %g want %g", (long long)n, (long long)i, y[i], ref);
    }
    KR_CHECK(user_where(dy + yoff, da + off, db + off, dc + off, n, 0) == PARRAY_OK, "where");
    y = dev_get(dy + yoff, n);
    for (int64_t i = 0; i < n; ++i)
      if (y[i] != (a[i] > 0 ? b[i] : c[i])) KR_CHECK(0, "where i=%lld", (long long)i);
    KR_CHECK(user_clamp(dy + yoff, da + off, db + off, n, 0) == PARRAY_OK, "clamp");
    y = dev_get(dy + yoff, n);
    for (int64_t i = 0; i < n; ++i)
      if (y[i] != fminf(fmaxf(a[i], -b[i]), b[i])) KR_CHECK(0, "clamp i=%lld", (long long)i);
    KR_CHECK(user_quant(dq + yoff, da + off, n, 13.0f, 0) == PARRAY_OK, "quant");
    std::vector<int32_t> q = dev_get(dq + yoff, n);
    for (int64_t i = 0; i < n; ++i) {
      const float v = a[i] * 13.0f;
      const int32_t want = v > 1000.f ? 1000 : v < -1000.f ? -1000 : (int32_t)v;
      if (q[i] != want) KR_CHECK(0, "quant i=%lld: %d want %d", (long long)i, q[i], want);
    }
    KR_CHECK(user_sq_h(dyh + yoff, dh + off, n, 0) == PARRAY_OK, "sq_h");
    std::vector<__half> yh = dev_get(dyh + yoff, n);
    for (int64_t i = 0; i < n; ++i) {
      const float x = parray_f16_to_float(hh[i]);
      const uint16_t want = parray_f16_from_float(x * x);
      uint16_t got;
      memcpy(&got, &yh[i], 2);
      if (got != want) KR_CHECK(0, "sq_h i=%lld: %04x want %04x", (long long)i, got, want);
    }
    KR_CHECK(user_mad_i(dl + yoff, dia + off, dib + off, n, -7, 0) == PARRAY_OK, "mad_i");
    std::vector<int64_t> l = dev_get(dl + yoff, n);
    for (int64_t i = 0; i < n; ++i)
      if (l[i] != (int64_t)ia[i] * ib[i] - 7) KR_CHECK(0, "mad_i i=%lld", (long long)i);
  }
  /* nothing outside [yoff, yoff+n) was written */
  std::vector<float> all = dev_get(dy, n + 2);
  uint32_t w;
  memcpy(&w, &all[yoff ? 0 : n], 4);
  KR_CHECK(w == 0x5a5a5a5au, "user op wrote outside its output");
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dh), cudaFree(dia), cudaFree(dib);
  cudaFree(dy), cudaFree(dq), cudaFree(dyh), cudaFree(dl);
}

int main(void) {
  if (parray_cuda_device_count() == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  kr_seed_init();
  const int64_t sizes[] = {1, 3, 8, 17, 1000, 65537, 1000001};
  for (int64_t n : sizes) {
    run(n, 0, 0);
    run(n, 1, 1);
    run(n, 1, 0);
  }
  KR_CHECK(user_axpb(NULL, NULL, NULL, 5, 0) == PARRAY_ERR_INVALID, "null pointers rejected");
  KR_CHECK(user_axpb(NULL, NULL, NULL, 0, 0) == PARRAY_OK, "n == 0 is a no-op");
  if (kr_failures) {
    fprintf(stderr, "%d failures\n", kr_failures);
    return 1;
  }
  printf("kernels user ops: all checks passed\n");
  return 0;
}
