/* tests/cpu/test_cpu_fft.c: the CPU plugin's FFT (plugins/cpu/cpu_fft*.c)
 * against a naive DFT in long double computed here, and against the reference
 * plugin for the multi-dim cases.
 *
 * Lengths: every n in 1..64, primes (97, 1009, 10007: Bluestein), products of
 * small primes (generic radix), 2^a 3^b 5^c, and powers of two up to 2^20
 * and 2^22 (which splits its passes over the pool; long transforms are
 * checked on a sample of bins, each an O(n) sum). Error
 * bound per output: C * eps * (log2 n + 1) * ||x||_2, the growth of a stable
 * FFT's error (a wrong twiddle or index gives errors of order ||x||). Also:
 * batched rows, transposed and stepped inputs, the aten norms, onesided and
 * full r2c, c2r with shorter/longer inputs, c2r(r2c(x)) == x, and many
 * threads planning more lengths than the plan cache holds at once.
 *
 * usage: test_cpu_fft CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>

#include "check.h"
#include "cpu_rt.h"

static const DLDevice cpu = {kDLCPU, 0};
static const long double PI_L = 3.141592653589793238462643383279502884L;

static double rnd(uint64_t *s) { /* uniform in [-1, 1) */
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / (double)(1ull << 52) - 1.0;
}

/* A contiguous tensor of random values (complex dtypes: both parts). */
static tabi_tensor *make(tabi_runtime *rt, tabi_dtype dt, int32_t nd, const int64_t *shape, uint64_t seed) {
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, nd, shape, &t) != TABI_OK) return NULL;
  int64_t n = tabi_tensor_numel(t);
  int cplx = dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128;
  int f64 = dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_COMPLEX128;
  for (int64_t i = 0; i < n * (cplx ? 2 : 1); i++) {
    double v = rnd(&seed);
    if (f64) ((double *)tabi_tensor_data(t))[i] = v;
    else ((float *)tabi_tensor_data(t))[i] = (float)v;
  }
  return t;
}

/* Element i (row-major over the shape, through the strides) of t, as complex. */
static void get(const tabi_tensor *t, int64_t i, long double *re, long double *im) {
  int64_t off = 0;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    off += (i % t->dl.shape[d]) * t->dl.strides[d];
    i /= t->dl.shape[d];
  }
  const char *p = tabi_tensor_data(t);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_FLOAT32: *re = ((const float *)(const void *)p)[off]; *im = 0; break;
    case TABI_DTYPE_FLOAT64: *re = ((const double *)(const void *)p)[off]; *im = 0; break;
    case TABI_DTYPE_COMPLEX64:
      *re = ((const float *)(const void *)p)[2 * off];
      *im = ((const float *)(const void *)p)[2 * off + 1];
      break;
    case TABI_DTYPE_COMPLEX128:
      *re = ((const double *)(const void *)p)[2 * off];
      *im = ((const double *)(const void *)p)[2 * off + 1];
      break;
    default: *re = *im = NAN; break;
  }
}

static tabi_status call(tabi_runtime *rt, const char *name, tabi_value *args, int32_t n, tabi_tensor **out) {
  tabi_op op;
  tabi_value o = tabi_none();
  *out = NULL;
  tabi_status st = tabi_op_find(rt, name, &op);
  if (st == TABI_OK) st = tabi_call(rt, op, args, n, &o, 1);
  if (st == TABI_OK && o.tag == TABI_TAG_TENSOR) *out = o.u.t;
  return st;
}

static double eps_of(tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_COMPLEX128 ? 2.2e-16 : 1.2e-7;
}

/* Checks one transformed line of `out` (elements obase + k*ostep, k < olen)
 * against the naive DFT of the input line (ibase + j*istep, j < len of m
 * stored values): kind 0 forward c2c/r2c, 1 backward c2c, 2 c2r (Hermitian
 * input of m values, n outputs). Long outputs are checked on a sample of bins. */
static int check_line(const char *what, const tabi_tensor *in, int64_t ibase, int64_t istep, int64_t m,
                      const tabi_tensor *out, int64_t obase, int64_t ostep, int64_t olen, int64_t n,
                      int kind, double scale) {
  long double *xr = malloc(sizeof(long double) * (size_t)n), *xi = malloc(sizeof(long double) * (size_t)n);
  if (!xr || !xi) { free(xr); free(xi); return 0; }
  long double norm2 = 0;
  for (int64_t j = 0; j < n; j++) {
    xr[j] = xi[j] = 0;
    if (kind == 2) { /* Hermitian extension of the stored half */
      int64_t src = j <= n / 2 ? j : n - j;
      if (src < m) {
        get(in, ibase + src * istep, &xr[j], &xi[j]);
        if (j > n / 2) xi[j] = -xi[j];
        if (j == 0 || (n % 2 == 0 && j == n / 2)) xi[j] = 0;
      }
    } else if (j < m) {
      get(in, ibase + j * istep, &xr[j], &xi[j]);
    }
    norm2 += xr[j] * xr[j] + xi[j] * xi[j];
  }
  double bound = 8.0 * eps_of(tabi_tensor_dtype(out)) * (log2((double)n) + 1) * sqrt((double)norm2) *
                     fabs(scale) + 1e-300;
  int ok = 1;
  long double *cs = malloc(sizeof(long double) * (size_t)n), *sn = malloc(sizeof(long double) * (size_t)n);
  for (int64_t t = 0; cs && sn && t < n; t++) {
    cs[t] = cosl(2 * PI_L * (long double)t / (long double)n);
    sn[t] = sinl(2 * PI_L * (long double)t / (long double)n) * (kind == 0 ? -1 : 1);
  }
  int64_t step = olen > 96 ? olen / (n >= (1 << 20) ? 7 : 29) + 1 : 1; /* each bin costs O(n) */
  /* bins 0, step, 2 step, ..., and always the last one */
  for (int64_t k = 0; cs && sn && ok && k < olen; k = k + step < olen - 1 ? k + step : k == olen - 1 ? olen : olen - 1) {
    long double ar = 0, ai = 0;
    for (int64_t j = 0; j < n; j++) {
      int64_t t = (j * k) % n;
      ar += xr[j] * cs[t] - xi[j] * sn[t];
      ai += xr[j] * sn[t] + xi[j] * cs[t];
    }
    ar *= scale;
    ai *= scale;
    long double gr, gi;
    get(out, obase + k * ostep, &gr, &gi);
    if (kind == 2) ai = 0;
    double err = (double)hypotl(gr - ar, gi - ai);
    if (!(err <= bound)) {
      fprintf(stderr, "%s: bin %lld: got (%g, %g), want (%g, %g), error %g > bound %g\n", what, (long long)k,
              (double)gr, (double)gi, (double)ar, (double)ai, err, bound);
      ok = 0;
    }
  }
  if (!cs || !sn) ok = 0;
  free(cs);
  free(sn);
  free(xr);
  free(xi);
  return ok;
}

static const int64_t extra_lens[] = {97, 100, 128, 360, 1000, 1001, 1009, 2250, 4096, 6144, 10007,
                                     15625, 65536, 1 << 17, 3 << 15, 1 << 20, 1 << 22};
#define N_EXTRA ((int)(sizeof extra_lens / sizeof extra_lens[0]))

static int64_t len_at(int i) { return i < 64 ? i + 1 : extra_lens[i - 64]; }

/* prims::fft_c2c over 1-D complex inputs of every length, both directions. */
static void c2c_lengths(tabi_runtime *rt) {
  for (int i = 0; i < 64 + N_EXTRA; i++)
    for (int f64 = 0; f64 < 2; f64++) {
      int64_t n = len_at(i), d0 = 0;
      int fwd = i % 2 == 0 || n > 1000;
      if (f64 && n > (1 << 20)) continue; /* the pool-split path: float32 is enough, and cheaper */
      tabi_tensor *x = make(rt, f64 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64, 1, &n, (uint64_t)(n * 7 + f64)), *y;
      tabi_value a[3] = {tabi_tensor_value(x), tabi_int_list(&d0, 1), tabi_bool(fwd)};
      CHECK_OK(call(rt, "prims::fft_c2c", a, 3, &y));
      char what[96];
      snprintf(what, sizeof what, "c2c n=%lld %s fwd=%d", (long long)n, f64 ? "c128" : "c64", fwd);
      if (y) CHECK_MSG(check_line(what, x, 0, 1, n, y, 0, 1, n, n, fwd ? 0 : 1, 1.0), "%s", what);
      tabi_tensor_release(x);
      tabi_tensor_release(y);
    }
}

/* aten::_fft_r2c over [rows, n] (last dim), every length, norms and onesided. */
static void r2c_lengths(tabi_runtime *rt) {
  for (int i = 0; i < 64 + N_EXTRA; i++)
    for (int f64 = 0; f64 < 2; f64++) {
      int64_t n = len_at(i), rows = n > 5000 ? 1 : 3, shape[2] = {rows, n}, last = -1;
      if (f64 && n > (1 << 20)) continue;
      int64_t norm = (i + f64) % 3;
      int one = i % 2 == 0 || n > 5000;
      tabi_tensor *x = make(rt, f64 ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, 2, shape, (uint64_t)n), *y;
      tabi_value a[4] = {tabi_tensor_value(x), tabi_int_list(&last, 1), tabi_int(norm), tabi_bool(one)};
      CHECK_OK(call(rt, "aten::_fft_r2c", a, 4, &y));
      double scale = norm == 0 ? 1 : norm == 1 ? 1 / sqrt((double)n) : 1 / (double)n;
      int64_t olen = one ? n / 2 + 1 : n;
      if (y) CHECK(y->dl.ndim == 2 && y->dl.shape[1] == olen);
      for (int64_t r = 0; y && r < rows; r++) {
        char what[96];
        snprintf(what, sizeof what, "r2c n=%lld %s row %lld norm %lld onesided %d", (long long)n,
                 f64 ? "f64" : "f32", (long long)r, (long long)norm, one);
        CHECK_MSG(check_line(what, x, r * n, 1, n, y, r * olen, 1, olen, n, 0, scale), "%s", what);
      }
      tabi_tensor_release(x);
      tabi_tensor_release(y);
    }
}

/* c2r: inputs of n/2+1 values (and shorter / longer ones), norms. */
static void c2r_lengths(tabi_runtime *rt) {
  for (int i = 0; i < 64 + N_EXTRA; i++)
    for (int f64 = 0; f64 < 2; f64++) {
      int64_t n = len_at(i), m = n / 2 + 1 + (i % 3 == 1 ? 2 : i % 3 == 2 && n > 4 ? -1 : 0);
      int64_t rows = n > 5000 ? 1 : 2, shape[2] = {rows, m}, last = 1, norm = i % 3;
      if (f64 && n > (1 << 20)) continue;
      tabi_tensor *x = make(rt, f64 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64, 2, shape, (uint64_t)n + 5), *y;
      tabi_value a[4] = {tabi_tensor_value(x), tabi_int_list(&last, 1), tabi_int(norm), tabi_int(n)};
      CHECK_OK(call(rt, "aten::_fft_c2r", a, 4, &y));
      double scale = norm == 0 ? 1 : norm == 1 ? 1 / sqrt((double)n) : 1 / (double)n;
      if (y) CHECK(y->dl.ndim == 2 && y->dl.shape[1] == n);
      for (int64_t r = 0; y && r < rows; r++) {
        char what[96];
        snprintf(what, sizeof what, "c2r n=%lld m=%lld %s row %lld", (long long)n, (long long)m,
                 f64 ? "c128" : "c64", (long long)r);
        CHECK_MSG(check_line(what, x, r * m, 1, m, y, r * n, 1, n, n, 2, scale), "%s", what);
      }
      tabi_tensor_release(x);
      tabi_tensor_release(y);
    }
}

/* Strided inputs: a transposed [cols, n] view of [n, cols], and dim 0 of it. */
static void strided(tabi_runtime *rt) {
  static const int64_t lens[] = {6, 16, 45, 97, 1024, 3000};
  for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
    int64_t n = lens[i], cols = 5, shape[2] = {n, cols};
    tabi_tensor *base = make(rt, TABI_DTYPE_FLOAT32, 2, shape, 99), *v = NULL, *y = NULL;
    int64_t vs[2] = {cols, n}, vst[2] = {1, cols}, last = -1, d0 = 0;
    CHECK_OK(tabi_tensor_view(rt, base, 2, vs, vst, (int64_t)base->dl.byte_offset, &v));
    if (!v) { tabi_tensor_release(base); continue; }
    tabi_value a[4] = {tabi_tensor_value(v), tabi_int_list(&last, 1), tabi_int(0), tabi_bool(1)};
    CHECK_OK(call(rt, "aten::_fft_r2c", a, 4, &y));
    int64_t olen = n / 2 + 1;
    for (int64_t r = 0; y && r < cols; r++) {
      char what[96];
      snprintf(what, sizeof what, "r2c transposed n=%lld row %lld", (long long)n, (long long)r);
      CHECK_MSG(check_line(what, v, r * n, 1, n, y, r * olen, 1, olen, n, 0, 1), "%s", what);
    }
    tabi_tensor_release(y);
    /* dim 0 of the contiguous [n, cols]: lines with stride cols, full output */
    tabi_value b[4] = {tabi_tensor_value(base), tabi_int_list(&d0, 1), tabi_int(1), tabi_bool(0)};
    CHECK_OK(call(rt, "aten::_fft_r2c", b, 4, &y));
    for (int64_t c = 0; y && c < cols; c++) {
      char what[96];
      snprintf(what, sizeof what, "r2c dim 0 n=%lld col %lld", (long long)n, (long long)c);
      CHECK_MSG(check_line(what, base, c, cols, n, y, c, cols, n, n, 0, 1 / sqrt((double)n)), "%s", what);
    }
    tabi_tensor_release(y);
    /* a stepped complex view: every other element of [2n] */
    int64_t n2 = 2 * n, sn = n, ss = 2;
    tabi_tensor *cb = make(rt, TABI_DTYPE_COMPLEX64, 1, &n2, 3), *cv = NULL;
    CHECK_OK(tabi_tensor_view(rt, cb, 1, &sn, &ss, (int64_t)cb->dl.byte_offset, &cv));
    if (cv) {
      tabi_value c[3] = {tabi_tensor_value(cv), tabi_int_list(&d0, 1), tabi_bool(0)};
      CHECK_OK(call(rt, "prims::fft_c2c", c, 3, &y));
      if (y) CHECK_MSG(check_line("c2c stepped", cv, 0, 1, n, y, 0, 1, n, n, 1, 1), "c2c stepped n=%lld", (long long)n);
      tabi_tensor_release(y);
    }
    tabi_tensor_release(cv);
    tabi_tensor_release(cb);
    tabi_tensor_release(v);
    tabi_tensor_release(base);
  }
}

/* c2r(r2c(x), norm 1/n) == x. */
static void round_trip(tabi_runtime *rt) {
  static const int64_t lens[] = {1, 2, 3, 4, 5, 7, 8, 12, 31, 97, 100, 1000, 1009, 4096, 1 << 20};
  for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
    for (int f64 = 0; f64 < 2; f64++) {
      int64_t n = lens[i], rows = n > 5000 ? 1 : 4, shape[2] = {rows, n}, last = -1;
      tabi_tensor *x = make(rt, f64 ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, 2, shape, 17), *X = NULL, *y = NULL;
      tabi_value a[4] = {tabi_tensor_value(x), tabi_int_list(&last, 1), tabi_int(0), tabi_bool(1)};
      CHECK_OK(call(rt, "aten::_fft_r2c", a, 4, &X));
      if (X) {
        tabi_value b[4] = {tabi_tensor_value(X), tabi_int_list(&last, 1), tabi_int(2), tabi_int(n)};
        CHECK_OK(call(rt, "aten::_fft_c2r", b, 4, &y));
      }
      double worst = 0, bound = 8 * eps_of(tabi_tensor_dtype(x)) * (log2((double)n) + 1) * 2;
      for (int64_t k = 0; y && k < rows * n; k++) {
        long double a0, b0, a1, b1;
        get(x, k, &a0, &b0);
        get(y, k, &a1, &b1);
        double e = (double)fabsl(a0 - a1);
        if (e > worst) worst = e;
      }
      CHECK_MSG(y && worst <= bound, "round trip n=%lld f64=%d: error %g > %g", (long long)n, f64, worst, bound);
      tabi_tensor_release(x);
      tabi_tensor_release(X);
      tabi_tensor_release(y);
    }
}

/* Multi-dim transforms: the plugin against the reference plugin. */
static void multi_dim(tabi_runtime *rt, tabi_runtime *ref) {
  int64_t s2[2] = {6, 10}, s3[3] = {4, 6, 5}, d01[2] = {0, 1}, d20[2] = {2, 0}, d102[3] = {1, 0, 2};
  struct { const char *op; tabi_dtype dt; int32_t nd; const int64_t *shape; const int64_t *dims; int32_t ndims; int64_t p2, p3; } cs[] = {
      {"aten::_fft_r2c", TABI_DTYPE_FLOAT32, 2, s2, d01, 2, 1, 1},
      {"aten::_fft_r2c", TABI_DTYPE_FLOAT64, 3, s3, d20, 2, 2, 0},
      {"aten::_fft_c2r", TABI_DTYPE_COMPLEX64, 2, s2, d01, 2, 2, 18},
      {"aten::_fft_c2r", TABI_DTYPE_COMPLEX128, 3, s3, d102, 3, 1, 9},
      {"prims::fft_c2c", TABI_DTYPE_COMPLEX64, 3, s3, d102, 3, 0, -1},
      {"prims::fft_c2c", TABI_DTYPE_COMPLEX128, 3, s3, d20, 2, 1, -1},
      {"prims::fft_r2c", TABI_DTYPE_FLOAT32, 3, s3, d102, 3, 0, -1},
      {"prims::fft_c2r", TABI_DTYPE_COMPLEX64, 3, s3, d20, 2, 7, -1},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    tabi_tensor *xa = make(rt, cs[i].dt, cs[i].nd, cs[i].shape, 5 + i), *xb = make(ref, cs[i].dt, cs[i].nd, cs[i].shape, 5 + i);
    tabi_tensor *ya = NULL, *yb = NULL;
    int prim = strncmp(cs[i].op, "prims", 5) == 0;
    tabi_value a[4] = {tabi_tensor_value(xa), tabi_int_list(cs[i].dims, cs[i].ndims), {0}, {0}};
    if (prim) a[2] = strstr(cs[i].op, "c2r") ? tabi_int(cs[i].p2) : tabi_bool(cs[i].p2);
    else {
      a[2] = tabi_int(cs[i].p2);
      a[3] = strstr(cs[i].op, "c2r") ? tabi_int(cs[i].p3) : tabi_bool(cs[i].p3);
    }
    tabi_value b[4];
    memcpy(b, a, sizeof b);
    b[0] = tabi_tensor_value(xb);
    int32_t na = prim ? 3 : 4;
    CHECK_OK(call(rt, cs[i].op, a, na, &ya));
    CHECK_OK(call(ref, cs[i].op, b, na, &yb));
    if (ya && yb) {
      int same = ya->dl.ndim == yb->dl.ndim && tabi_tensor_numel(ya) == tabi_tensor_numel(yb) &&
                 tabi_tensor_dtype(ya) == tabi_tensor_dtype(yb);
      int f64 = cs[i].dt == TABI_DTYPE_FLOAT64 || cs[i].dt == TABI_DTYPE_COMPLEX128;
      double rtol = f64 ? 1e-7 : 1.3e-6, atol = f64 ? 1e-7 : 1e-5;
      for (int64_t k = 0; same && k < tabi_tensor_numel(ya); k++) {
        long double ar, ai, br, bi;
        get(ya, k, &ar, &ai);
        get(yb, k, &br, &bi);
        if (!((double)hypotl(ar - br, ai - bi) <= atol + rtol * (double)hypotl(br, bi))) {
          fprintf(stderr, "%s case %zu: element %lld: (%g, %g) vs reference (%g, %g)\n", cs[i].op, i,
                  (long long)k, (double)ar, (double)ai, (double)br, (double)bi);
          same = 0;
        }
      }
      CHECK_MSG(same, "%s multi-dim case %zu matches the reference", cs[i].op, i);
    }
    tabi_tensor_release(xa); tabi_tensor_release(xb); tabi_tensor_release(ya); tabi_tensor_release(yb);
  }
}

/* Threads planning 48 lengths at once (more than the cache's 32 entries, so
 * plans are evicted while other threads use theirs). */
typedef struct thr_arg { tabi_runtime *rt; int id; int bad; } thr_arg;

static void *thr_main(void *p) {
  thr_arg *a = p;
  for (int round = 0; round < 3; round++)
    for (int64_t n = 1; n <= 48; n++) {
      int64_t len = (n * (a->id + 1) * 7) % 48 + 1, d0 = 0;
      tabi_tensor *x = make(a->rt, TABI_DTYPE_COMPLEX64, 1, &len, (uint64_t)len), *y = NULL;
      tabi_value v[3] = {tabi_tensor_value(x), tabi_int_list(&d0, 1), tabi_bool(1)};
      if (call(a->rt, "prims::fft_c2c", v, 3, &y) != TABI_OK || !y ||
          !check_line("threaded c2c", x, 0, 1, len, y, 0, 1, len, len, 0, 1))
        a->bad++;
      tabi_tensor_release(x);
      tabi_tensor_release(y);
    }
  return NULL;
}

static void threads(tabi_runtime *rt) {
  pthread_t th[4];
  thr_arg args[4];
  int started[4] = {0};
  for (int i = 0; i < 4; i++) {
    args[i] = (thr_arg){rt, i, 0};
    started[i] = pthread_create(&th[i], NULL, thr_main, &args[i]) == 0;
  }
  for (int i = 0; i < 4; i++) {
    if (started[i]) pthread_join(th[i], NULL);
    CHECK_MSG(started[i] && args[i].bad == 0, "thread %d: %d bad transforms", i, args[i].bad);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  setenv("TABI_NUM_THREADS", "2", 1);
  tabi_runtime *rt = load_rt(argv[1], NULL), *ref = load_rt(argv[2], NULL);
  CHECK(rt != NULL && ref != NULL);
  if (!rt || !ref) return check_report();
  c2c_lengths(rt);
  r2c_lengths(rt);
  c2r_lengths(rt);
  strided(rt);
  round_trip(rt);
  multi_dim(rt, ref);
  threads(rt);
  tabi_runtime_destroy(rt);
  tabi_runtime_destroy(ref);
  return check_report();
}
