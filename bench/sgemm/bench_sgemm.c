/* SPDX-License-Identifier: Apache-2.0 */
/* bench_sgemm.c - times parray_sgemm against cuBLAS cublasSgemm with
 * CUBLAS_DEFAULT_MATH (plain FP32, TF32 tensor-op math off) in the same run.
 * Square sizes (default 1024 2048 4096 8192), random inputs in [-1, 1),
 * buffer sets rotated so that the sets together exceed 2.5x the L2 cache,
 * 3 warm-up runs then each run timed alone with CUDA events; the median is
 * reported as TFLOP/s (2 n^3 / t) and as a ratio to cuBLAS on the same
 * layout. Every parray result is checked against cuBLAS's
 * (||C - C_cublas||_F / ||C_cublas||_F, must be < 1e-5).
 *
 *   bench_sgemm [-s 1024,2048,...] [-r reps] [-v] [-l size] [-o file.csv]
 *     -v  also time every built kernel configuration (row-major NN) and
 *         split-K 2 and 4 for sizes <= 2048 (library built with
 *         -DPARRAY_SGEMM_VARIANTS=ON)
 *     -l  at this size also time all 8 layouts (row/col-major x NN,NT,TN,TT);
 *         -l -1: at every size
 *     -c  time only these row-major NN runs: -1 = cuBLAS, 0 = parray_sgemm,
 *         c > 0 = configuration c (for profiling one kernel under ncu)
 *     -L  the layout of the -c runs instead: 0-7 in -l's order, row-major
 *         then column-major, each NN, NT, TN, TT (1 = row-NT, 6 = col-TN)
 * The config column names the slot that parray_sgemm's automatic choice ran
 * ("auto -> 4") and, where it transposed an operand of the row-major product
 * first (both operands k-contiguous: row-NT, col-TN), which ("+B^T").
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/cuda_check.h"
#include "parray/cuda.h"
#include "parray/sgemm.h"

/* kernels/sgemm/sgemm.cu's test hook: what the last call on this thread ran. */
void parray__sgemm_last_choice(int *slot, int *transposed);

#define CB(call)                                                                                                \
  do {                                                                                                          \
    cublasStatus_t s_ = (call);                                                                                 \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                          \
      fprintf(stderr, "%s:%d %s: cublas status %d\n", __FILE__, __LINE__, #call, (int)s_);                     \
      exit(1);                                                                                                  \
    }                                                                                                           \
  } while (0)

typedef struct method {
  int cublas; /* 1: cuBLAS, 0: parray */
  parray_layout o;
  parray_trans ta, tb;
  int config, splits; /* parray: config 0 = parray_sgemm */
} method;

static cublasHandle_t H;
static float **dA, **dB, **dC;
static int nsets;
static float *dRef, *dDiff;

static void call(const method *m, int n, int set) {
  const float one = 1.0f, zero = 0.0f;
  float *A = dA[set], *B = dB[set], *C = dC[set];
  if (m->cublas) {
    cublasOperation_t oa = m->ta == PARRAY_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t ob = m->tb == PARRAY_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (m->o == PARRAY_ROW_MAJOR) /* row-major C = op(A)op(B) is column-major C^T = op(B)^T op(A)^T */
      CB(cublasSgemm(H, ob, oa, n, n, n, &one, B, n, A, n, &zero, C, n));
    else
      CB(cublasSgemm(H, oa, ob, n, n, n, &one, A, n, B, n, &zero, C, n));
  } else {
    parray_status st =
        m->config == 0 ? parray_sgemm(m->o, m->ta, m->tb, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n, NULL)
                       : parray_sgemm_config(m->config, m->splits, m->o, m->ta, m->tb, n, n, n, 1.0f, A, n, B, n, 0.0f,
                                             C, n, NULL);
    if (st != PARRAY_OK) {
      fprintf(stderr, "parray_sgemm: %s: %s\n", parray_status_str(st), parray_last_error());
      exit(1);
    }
  }
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

/* Median milliseconds of `reps` runs, each timed alone, rotating buffer sets. */
static float time_method(const method *m, int n, int reps) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int w = 0; w < 3; w++) call(m, n, w % nsets);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  float *t = malloc(sizeof(float) * reps);
  for (int r = 0; r < reps; r++) {
    const int set = (r + 3) % nsets;
    CK(cudaEventRecord(e0, NULL));
    call(m, n, set);
    CK(cudaEventRecord(e1, NULL));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    CK(cudaEventElapsedTime(&t[r], e0, e1));
  }
  qsort(t, reps, sizeof(float), cmp_float);
  const float med = reps % 2 ? t[reps / 2] : 0.5f * (t[reps / 2 - 1] + t[reps / 2]);
  free(t);
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return med;
}

/* ||C(set 0) - dRef|| / ||dRef|| after running m once on set 0. */
static double check_vs_ref(const method *m, int n) {
  const float one = 1.0f, mone = -1.0f;
  CK(cudaMemset(dC[0], 0xFF, sizeof(float) * (size_t)n * n)); /* NaN poison */
  call(m, n, 0);
  CK(cudaDeviceSynchronize());
  CB(cublasSgeam(H, CUBLAS_OP_N, CUBLAS_OP_N, n, n, &one, dC[0], n, &mone, dRef, n, dDiff, n));
  float a = 0, b = 0;
  CB(cublasSnrm2(H, n * n, dDiff, 1, &a));
  CB(cublasSnrm2(H, n * n, dRef, 1, &b));
  CK(cudaDeviceSynchronize());
  return isnan(a) ? INFINITY : (double)a / (b > 0 ? b : 1);
}

/* What the last parray call (time_method's) ran: the configuration's name,
 * for parray_sgemm's automatic choice the slot it took ("auto -> 4"), and
 * the operand of the row-major product it transposed first (both operands
 * k-contiguous: " +B^T"). */
static const char *parray_name(const method *m, char *buf, size_t size) {
  int slot = 0, tr = 0;
  parray__sgemm_last_choice(&slot, &tr);
  const int n = m->config == 0 ? snprintf(buf, size, "auto -> %d", slot)
                               : snprintf(buf, size, "%s", parray_sgemm_config_name(m->config));
  if (tr && n > 0 && (size_t)n < size) snprintf(buf + n, size - (size_t)n, " +%c^T", tr == 1 ? 'A' : 'B');
  return buf;
}

static const char *layout_name(const method *m, char *buf) {
  sprintf(buf, "%s-%s%s", m->o == PARRAY_ROW_MAJOR ? "row" : "col", m->ta == PARRAY_TRANS ? "T" : "N",
          m->tb == PARRAY_TRANS ? "T" : "N");
  return buf;
}

int main(int argc, char **argv) {
  int sizes[16] = {1024, 2048, 4096, 8192}, nsizes = 4, reps = 15, variants = 0, layouts_at = 0, conf_layout = 0;
  const char *csv = NULL;
  int confs[32], nconf = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-s") && i + 1 < argc) {
      nsizes = 0;
      for (char *p = strtok(argv[++i], ","); p && nsizes < 16; p = strtok(NULL, ",")) sizes[nsizes++] = atoi(p);
    } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-v")) {
      variants = 1;
    } else if (!strcmp(argv[i], "-l") && i + 1 < argc) {
      layouts_at = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
      nconf = 0;
      for (char *p = strtok(argv[++i], ","); p && nconf < 32; p = strtok(NULL, ",")) confs[nconf++] = atoi(p);
    } else if (!strcmp(argv[i], "-L") && i + 1 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 1]) < 8) {
      conf_layout = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      csv = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [-s sizes] [-r reps] [-v] [-l size] [-c configs [-L layout]] [-o csv]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 10) reps = 10;
  if (parray_cuda_device_count() == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  CB(cublasCreate(&H));
  CB(cublasSetMathMode(H, CUBLAS_DEFAULT_MATH));
  cublasMath_t mode;
  CB(cublasGetMathMode(H, &mode));
  if (mode & CUBLAS_TF32_TENSOR_OP_MATH) {
    fprintf(stderr, "cuBLAS math mode %d has TF32 enabled\n", (int)mode);
    return 1;
  }
  const char *ovr = getenv("NVIDIA_TF32_OVERRIDE");
  printf("device: %s, %d SMs, L2 %d MB, cuBLAS math mode %d (CUBLAS_DEFAULT_MATH), NVIDIA_TF32_OVERRIDE=%s\n",
         prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, (int)mode, ovr ? ovr : "(unset)");
  FILE *fc = csv ? fopen(csv, "w") : NULL;
  if (fc) fprintf(fc, "n,impl,layout,config,splits,ms,tflops,ratio,relerr\n");
  printf("%6s %-8s %-7s %-30s %3s %9s %8s %7s %9s\n", "n", "impl", "layout", "config", "spl", "ms", "TFLOP/s",
         "ratio", "rel.err");
  int fails = 0;
  for (int si = 0; si < nsizes; si++) {
    const int n = sizes[si];
    const size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    nsets = (int)ceil(2.5 * prop.l2CacheSize / (3.0 * bytes));
    if (nsets < 1) nsets = 1;
    if (nsets > 32) nsets = 32;
    float *h = malloc(bytes);
    uint64_t s = 0x2545F4914F6CDD1Dull ^ (uint64_t)n;
    dA = malloc(sizeof(float *) * nsets);
    dB = malloc(sizeof(float *) * nsets);
    dC = malloc(sizeof(float *) * nsets);
    for (int k = 0; k < nsets; k++) {
      CK(cudaMalloc((void **)&dA[k], bytes));
      CK(cudaMalloc((void **)&dB[k], bytes));
      CK(cudaMalloc((void **)&dC[k], bytes));
      CK(cudaMemset(dC[k], 0, bytes));
    }
    for (int which = 0; which < 2; which++) {
      for (size_t x = 0; x < elems; x++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        h[x] = (float)((double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0);
      }
      for (int k = 0; k < nsets; k++) CK(cudaMemcpy(which ? dB[k] : dA[k], h, bytes, cudaMemcpyHostToDevice));
    }
    free(h);
    CK(cudaMalloc((void **)&dRef, bytes));
    CK(cudaMalloc((void **)&dDiff, bytes));

    method list[64];
    int nm = 0;
    const int l0 = nconf > 0 ? conf_layout : 0;
    const method cub = {1, (parray_layout)(l0 / 4), (parray_trans)((l0 / 2) % 2), (parray_trans)(l0 % 2), 0, 1};
    if (nconf > 0) {
      for (int c = 0; c < nconf; c++) {
        method p = cub;
        p.cublas = confs[c] < 0;
        p.config = confs[c] < 0 ? 0 : confs[c];
        list[nm++] = p;
      }
    } else {
      /* row-major NN: cuBLAS, parray_sgemm, then (-v) every configuration;
       * then (-l) the other seven layouts, each cuBLAS then parray_sgemm. A
       * parray result is checked against, and its ratio taken to, the cuBLAS
       * run listed before it. */
      list[nm++] = cub;
      method p = cub;
      p.cublas = 0;
      list[nm++] = p;
      for (int c = 1; variants && c < parray_sgemm_config_count() && nm < 40; c++) {
        if (strcmp(parray_sgemm_config_name(c), "(not built)") == 0) continue;
        method v = {0, PARRAY_ROW_MAJOR, PARRAY_NOTRANS, PARRAY_NOTRANS, c, 1};
        list[nm++] = v;
        for (int sp = 2; sp <= 4 && n <= 2048 && nm < 40; sp += 2) {
          v.splits = sp;
          list[nm++] = v;
        }
      }
      for (int l = 1; (n == layouts_at || layouts_at < 0) && l < 8; l++) {
        method c = {1, (parray_layout)(l / 4), (parray_trans)((l / 2) % 2), (parray_trans)(l % 2), 0, 1};
        list[nm++] = c;
        c.cublas = 0;
        list[nm++] = c;
      }
    }
    /* The reference (row-major NN, or -L's layout), for -c lists that time no cuBLAS run. */
    call(&cub, n, 0);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(dRef, dC[0], bytes, cudaMemcpyDeviceToDevice));
    float cublas_ms = 0;
    for (int i = 0; i < nm; i++) {
      const method *m = &list[i];
      char lay[16];
      double err = 0;
      if (m->cublas) {
        /* The reference for this layout: cuBLAS on set 0. */
        call(m, n, 0);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(dRef, dC[0], bytes, cudaMemcpyDeviceToDevice));
      } else {
        err = check_vs_ref(m, n);
      }
      const float ms = time_method(m, n, reps);
      if (m->cublas) cublas_ms = ms;
      const double tf = 2.0 * n * (double)n * n / (ms * 1e-3) / 1e12;
      const double ratio = cublas_ms / ms;
      char cbuf[64];
      const char *cname = m->cublas ? "cublasSgemm" : parray_name(m, cbuf, sizeof cbuf);
      const int bad = !m->cublas && !(err < 1e-5);
      fails += bad;
      printf("%6d %-8s %-7s %-30s %3d %9.4f %8.2f %7.3f %9.2e%s\n", n, m->cublas ? "cublas" : "parray",
             layout_name(m, lay), cname, m->splits, ms, tf, ratio, err, bad ? "  WRONG" : "");
      if (fc)
        fprintf(fc, "%d,%s,%s,%s,%d,%.5f,%.3f,%.4f,%.3e\n", n, m->cublas ? "cublas" : "parray", lay, cname, m->splits,
                ms, tf, ratio, err);
      fflush(stdout);
    }
    for (int k = 0; k < nsets; k++) {
      CK(cudaFree(dA[k]));
      CK(cudaFree(dB[k]));
      CK(cudaFree(dC[k]));
    }
    free(dA);
    free(dB);
    free(dC);
    CK(cudaFree(dRef));
    CK(cudaFree(dDiff));
  }
  if (fc) fclose(fc);
  CB(cublasDestroy(H));
  if (fails) printf("%d results differ from cuBLAS by more than 1e-5\n", fails);
  return fails ? 1 : 0;
}
