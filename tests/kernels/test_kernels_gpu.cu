/* test_kernels_gpu.cu - the GPU elementwise and reduction kernels against
 * their CPU twins (bit-for-bit where the operation is correctly rounded) and
 * float64 references, on fresh random data with NaN/Inf/zero/subnormal
 * inputs: every operation and type, odd sizes and tails, pointers offset by
 * one element (same and different alignments), every output element checked
 * after poisoning with two different byte patterns, guard elements around
 * the output, deterministic reductions, and a size past 2^31 elements (u8
 * cast, fp16 add, sums) for the 64-bit index path. Exits 77 without a GPU. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <vector>

#include "../common/cuda_check.h"
#include "kref.h"
#include "parray/cuda.h"

static cudaStream_t g_s;
static const parray_dtype kTypes[6] = {PARRAY_F32, PARRAY_F16, PARRAY_BF16, PARRAY_F64, PARRAY_I32, PARRAY_I64};
static const int kGuard = 32; /* elements of guard on each side of an output */

static void sync_check(const char *what) {
  CK(cudaGetLastError());
  cudaError_t e = cudaStreamSynchronize(g_s);
  if (e != cudaSuccess) {
    fprintf(stderr, "CUDA error after %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

struct Dev {
  char *p = nullptr;
  size_t bytes = 0;
  explicit Dev(size_t b) : bytes(b) { CK(cudaMalloc(&p, b ? b : 1)); }
  ~Dev() { cudaFree(p); }
};

/* ---------------------------------------------------------------- elementwise */
static bool exact_op(parray_ew_op op) { return op != PARRAY_OP_EXP && op != PARRAY_OP_GELU; }

/* One elementwise case: inputs at element offset ioff, output at ooff. */
static void ew_case(parray_ew_op op, parray_dtype t, int64_t n, int ioff, int ooff, const std::vector<char> *host) {
  const size_t es = parray_dtype_size(t);
  const int ar = parray_ew_op_arity(op);
  const double alpha = t == PARRAY_I32 || t == PARRAY_I64 ? -3.0 : 0.3;
  std::vector<char> want((size_t)n * es), got((size_t)(n + 2 * kGuard) * es);
  const void *ha = host[0].data(), *hb = host[1].data(), *hc = host[2].data();
  parray_status st = ar == 1   ? parray_unary_cpu(op, t, want.data(), ha, n, alpha)
                     : ar == 2 ? parray_binary_cpu(op, t, want.data(), ha, hb, n)
                               : parray_ternary_cpu(op, t, want.data(), ha, hb, hc, n);
  if (st == PARRAY_ERR_UNSUPPORTED) return;
  PK(st);
  Dev da((n + 2) * es), db((n + 2) * es), dc((n + 2) * es), dy((n + 2 * kGuard) * es);
  char *pa = da.p + ioff * es, *pb = db.p + ioff * es, *pc = dc.p + ioff * es;
  char *py = dy.p + (kGuard + ooff) * es;
  CK(cudaMemcpyAsync(pa, ha, n * es, cudaMemcpyHostToDevice, g_s));
  CK(cudaMemcpyAsync(pb, hb, n * es, cudaMemcpyHostToDevice, g_s));
  CK(cudaMemcpyAsync(pc, hc, n * es, cudaMemcpyHostToDevice, g_s));
  const unsigned char poisons[2] = {0xa5, 0x5a};
  for (unsigned char poison : poisons) {
    CK(cudaMemsetAsync(dy.p, poison, dy.bytes, g_s));
    st = ar == 1   ? parray_unary_cuda(op, t, py, pa, n, alpha, g_s)
         : ar == 2 ? parray_binary_cuda(op, t, py, pa, pb, n, g_s)
                   : parray_ternary_cuda(op, t, py, pa, pb, pc, n, g_s);
    PK(st);
    sync_check(parray_ew_op_name(op));
    CK(cudaMemcpy(got.data(), dy.p, dy.bytes, cudaMemcpyDeviceToHost));
    const char *g = got.data() + (kGuard + ooff) * es;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      bool ok;
      if (!kr_is_float(t)) {
        ok = kr_geti(t, g, i) == kr_geti(t, want.data(), i);
      } else if (exact_op(op)) {
        ok = kr_same(kr_get(t, g, i), kr_get(t, want.data(), i));
      } else { /* exp, gelu: against float64 */
        const double x = kr_get(t, ha, i);
        const double ref = kr_ref_float(op, x, 0, 0, 0);
        const double ulps = t == PARRAY_F16 || t == PARRAY_BF16 ? 0.51 : 8.0;
        const double slack = op == PARRAY_OP_GELU ? kr_gelu_slack(x, kr_work_eps(t)) : 0;
        ok = kr_close_x(t, kr_get(t, g, i), ref, ulps, slack);
      }
      if (!ok && bad++ < 3)
        KR_CHECK(0, "%s %s n=%lld off=%d/%d i=%lld: gpu %.17g cpu %.17g (a=%.17g)", parray_ew_op_name(op),
                 parray_dtype_name(t), (long long)n, ioff, ooff, (long long)i, kr_get(t, g, i),
                 kr_get(t, want.data(), i), kr_get(t, ha, i));
    }
    if (bad > 3) KR_CHECK(0, "... %lld wrong elements in all", (long long)bad);
    for (int64_t k = 0; k < (kGuard + ooff) * (int64_t)es; ++k)
      if ((unsigned char)got[k] != poison) {
        KR_CHECK(0, "%s %s wrote before the output", parray_ew_op_name(op), parray_dtype_name(t));
        break;
      }
    for (size_t k = (kGuard + ooff + n) * es; k < got.size(); ++k)
      if ((unsigned char)got[k] != poison) {
        KR_CHECK(0, "%s %s n=%lld wrote past the output", parray_ew_op_name(op), parray_dtype_name(t), (long long)n);
        break;
      }
  }
}

static void test_elementwise(void) {
  const int64_t sizes[] = {1, 2, 7, 31, 33, 257, 4099, 1000003};
  const int64_t maxn = 1000003;
  const int offs[3][2] = {{0, 0}, {1, 1}, {1, 0}};
  for (parray_dtype t : kTypes) {
    std::vector<char> host[3];
    for (int k = 0; k < 3; ++k) {
      host[k].resize(maxn * parray_dtype_size(t));
      kr_fill(t, host[k].data(), maxn, t == PARRAY_F16 ? 200.0 : 1e4, 0.03, 1000);
    }
    std::vector<char> hexp(maxn * parray_dtype_size(t)); /* exp wants a modest range */
    kr_fill(t, hexp.data(), maxn, 12.0, 0.03, 1000);
    int cases = 0;
    for (int op = 0; op < PARRAY_OP_COUNT; ++op)
      for (int64_t n : sizes)
        for (auto &o : offs) {
          if (n == maxn && o[0] != o[1]) continue; /* the slow path at a small size is enough */
          std::vector<char> *h = host;
          std::vector<char> alt[3];
          if (op == PARRAY_OP_EXP) {
            alt[0] = hexp, alt[1] = host[1], alt[2] = host[2];
            h = alt;
          }
          ew_case((parray_ew_op)op, t, n, o[0], o[1], h);
          cases++;
        }
    printf("elementwise %-4s: %d cases\n", parray_dtype_name(t), cases);
  }
}

static void test_casts(void) {
  const int64_t sizes[] = {1, 5, 4099, 300007};
  const int offs[3][2] = {{0, 0}, {1, 1}, {0, 1}};
  int cases = 0;
  for (int from = 0; from < PARRAY_DTYPE_COUNT; ++from)
    for (int to = 0; to < PARRAY_DTYPE_COUNT; ++to) {
      const parray_dtype f = (parray_dtype)from, t = (parray_dtype)to;
      const size_t fs = parray_dtype_size(f), ts = parray_dtype_size(t);
      std::vector<char> hx(300007 * fs);
      kr_fill(f, hx.data(), 300007, f == PARRAY_F16 ? 6e4 : (from + to) % 2 ? 300.0 : 3e9, 0.03, 0);
      for (int64_t n : sizes)
        for (auto &o : offs) {
          std::vector<char> want(n * ts), got((n + 2 * kGuard) * ts);
          PK(parray_cast_cpu(t, want.data(), f, hx.data(), n));
          Dev dx((n + 2) * fs), dy((n + 2 * kGuard) * ts);
          char *px = dx.p + o[0] * fs, *py = dy.p + (kGuard + o[1]) * ts;
          CK(cudaMemcpyAsync(px, hx.data(), n * fs, cudaMemcpyHostToDevice, g_s));
          CK(cudaMemsetAsync(dy.p, 0xa5, dy.bytes, g_s));
          PK(parray_cast_cuda(t, py, f, px, n, g_s));
          sync_check("cast");
          CK(cudaMemcpy(got.data(), dy.p, dy.bytes, cudaMemcpyDeviceToHost));
          const char *g = got.data() + (kGuard + o[1]) * ts;
          int64_t bad = 0;
          for (int64_t i = 0; i < n; ++i) {
            const bool ok = kr_is_float(t) ? kr_same(kr_get(t, g, i), kr_get(t, want.data(), i))
                                           : kr_geti(t, g, i) == kr_geti(t, want.data(), i);
            if (!ok && bad++ < 3)
              KR_CHECK(0, "cast %s->%s n=%lld i=%lld: %.17g -> gpu %.17g cpu %.17g", parray_dtype_name(f),
                       parray_dtype_name(t), (long long)n, (long long)i, kr_get(f, hx.data(), i), kr_get(t, g, i),
                       kr_get(t, want.data(), i));
          }
          for (size_t k = (kGuard + o[1] + n) * ts; k < got.size(); ++k)
            if ((unsigned char)got[k] != 0xa5) {
              KR_CHECK(0, "cast %s->%s wrote past the output", parray_dtype_name(f), parray_dtype_name(t));
              break;
            }
          cases++;
        }
    }
  printf("casts: %d cases\n", cases);
}

/* NaN and Inf through the 16-bit paths (pairs and singles). */
static void test_nan_inf16(void) {
  const double av[8] = {NAN, INFINITY, -INFINITY, 1.0, NAN, INFINITY, 0.0, 70000.0};
  const double bv[8] = {1.0, 1.0, INFINITY, NAN, -INFINITY, -INFINITY, INFINITY, 1.0};
  for (parray_dtype t : {PARRAY_F16, PARRAY_BF16}) {
    const int64_t n = 64 + 3; /* packs, then a tail */
    std::vector<uint16_t> a(n), b(n), y(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = t == PARRAY_F16 ? parray_f16_from_double(av[i % 8]) : parray_bf16_from_double(av[i % 8]);
      b[i] = t == PARRAY_F16 ? parray_f16_from_double(bv[i % 8]) : parray_bf16_from_double(bv[i % 8]);
    }
    Dev da(n * 2), db(n * 2), dy(n * 2);
    CK(cudaMemcpy(da.p, a.data(), n * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db.p, b.data(), n * 2, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize()); /* a copy from pageable memory may still be in flight for g_s */
    for (parray_ew_op op : {PARRAY_OP_ADD, PARRAY_OP_SUB, PARRAY_OP_MUL, PARRAY_OP_DIV, PARRAY_OP_MIN, PARRAY_OP_MAX,
                            PARRAY_OP_RELU, PARRAY_OP_FMA, PARRAY_OP_EXP}) {
      CK(cudaMemsetAsync(dy.p, 0, n * 2, g_s)); /* ordered before the kernel (g_s does not wait for stream 0) */
      const int ar = parray_ew_op_arity(op);
      if (ar == 1) PK(parray_unary_cuda(op, t, dy.p, da.p, n, 1.0, g_s));
      if (ar == 2) PK(parray_binary_cuda(op, t, dy.p, da.p, db.p, n, g_s));
      if (ar == 3) PK(parray_ternary_cuda(op, t, dy.p, da.p, db.p, da.p, n, g_s));
      sync_check("nan/inf");
      CK(cudaMemcpy(y.data(), dy.p, n * 2, cudaMemcpyDeviceToHost));
      for (int64_t i = 0; i < n; ++i) {
        const double x = kr_get(t, a.data(), i), z = kr_get(t, b.data(), i);
        const double ref = kr_ref_float(op, x, z, x, 1.0);
        const double g = kr_get(t, y.data(), i);
        KR_CHECK(isnan(ref) ? isnan(g) : isinf(ref) ? g == ref : ((!isnan(g) && !isinf(g)) || op == PARRAY_OP_EXP),
                 "%s %s NaN/Inf i=%lld: %g op %g -> %g want %g", parray_ew_op_name(op), parray_dtype_name(t),
                 (long long)i, x, z, g, ref);
      }
    }
    /* 16-bit -> fp32 keeps NaN/Inf; fp32 -> 16-bit overflows to Inf */
    Dev df(n * 4);
    PK(parray_cast_cuda(PARRAY_F32, df.p, t, da.p, n, g_s));
    std::vector<float> f(n);
    sync_check("cast");
    CK(cudaMemcpy(f.data(), df.p, n * 4, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n; ++i)
      KR_CHECK(kr_same(f[i], kr_get(t, a.data(), i)), "cast %s->f32 of %g", parray_dtype_name(t), kr_get(t, a.data(), i));
    for (int64_t i = 0; i < n; ++i) f[i] = i % 2 ? 1e6f : -3.4e38f;
    CK(cudaMemcpy(df.p, f.data(), n * 4, cudaMemcpyHostToDevice));
    PK(parray_cast_cuda(t, dy.p, PARRAY_F32, df.p, n, g_s));
    sync_check("cast");
    CK(cudaMemcpy(y.data(), dy.p, n * 2, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n; ++i) {
      const double g = kr_get(t, y.data(), i);
      if (t == PARRAY_F16) KR_CHECK(isinf(g) && (g > 0) == (i % 2 == 1), "f32->f16 overflow i=%lld: %g", (long long)i, g);
      if (t == PARRAY_BF16) KR_CHECK(i % 2 ? g == 999424.0 : isinf(g) && g < 0, "f32->bf16 i=%lld: %g", (long long)i, g);
    }
    /* reductions see NaN and Inf */
    Dev dr(8);
    float r = 0;
    PK(parray_reduce_all_cuda(PARRAY_REDUCE_SUM, PARRAY_F32, dr.p, t, da.p, n, NULL, 0, g_s));
    sync_check("sum");
    CK(cudaMemcpy(&r, dr.p, 4, cudaMemcpyDeviceToHost));
    KR_CHECK(isnan(r), "%s sum with NaN gave %g", parray_dtype_name(t), r);
    PK(parray_reduce_all_cuda(PARRAY_REDUCE_MAX, PARRAY_F32, dr.p, t, da.p + 4, 6, NULL, 0, g_s)); /* -inf,1,nan,.. */
    sync_check("max");
    CK(cudaMemcpy(&r, dr.p, 4, cudaMemcpyDeviceToHost));
    KR_CHECK(isnan(r), "%s max with NaN gave %g", parray_dtype_name(t), r);
    PK(parray_reduce_all_cuda(PARRAY_REDUCE_MIN, PARRAY_F32, dr.p, t, da.p + 4, 2, NULL, 0, g_s)); /* -inf, 1 */
    sync_check("min");
    CK(cudaMemcpy(&r, dr.p, 4, cudaMemcpyDeviceToHost));
    KR_CHECK(isinf(r) && r < 0, "%s min with -Inf gave %g", parray_dtype_name(t), r);
  }
}

#include "test_kernels_gpu_reduce.inc"

/* --cols: the column-sum variants and a few whole-array sums only (what a
 * compute-sanitizer run of the reductions' finishing code needs). */
int main(int argc, char **argv) {
  const bool cols_only = argc > 1 && !strcmp(argv[1], "--cols");
  int ndev = parray_cuda_device_count();
  if (ndev == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  kr_seed_init();
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  /* a blocking stream: the tests' cudaMemcpy and cudaMemset run on the legacy
   * default stream, and a kernel on g_s must not start before they are done
   * (with a non-blocking stream the zeroing of a column-sum workspace could
   * still be running under the kernel, or after it: tickets lost, partial
   * rows zeroed; seen when other programs shared the GPU) */
  CK(cudaStreamCreate(&g_s));
  if (cols_only) {
    test_col_variants();
    std::vector<char> hx((size_t)2000003 * 4);
    for (parray_dtype t : {PARRAY_F32, PARRAY_F16}) {
      kr_fill(t, hx.data(), 2000003, 100.0, 0.0, 0);
      for (int64_t n : {16385, 100003, 2000003}) rd_case(RD_ALL, PARRAY_REDUCE_SUM, t, hx, 1, n, 0, 0, false, true);
    }
  } else {
    test_nan_inf16();
    test_elementwise();
    test_casts();
    test_reductions();
    test_col_variants();
    test_errors_gpu();
    test_large();
  }
  CK(cudaStreamDestroy(g_s));
  if (kr_failures) {
    fprintf(stderr, "%d failures\n", kr_failures);
    return 1;
  }
  printf("kernels gpu: all checks passed\n");
  return 0;
}
