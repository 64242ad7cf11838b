/* tests/cuda/test_rocm_tiles.cpp: the ROCm plugin's own kernels (the tiled
 * GEMM and the implicit-GEMM convolution of plugins/rocm/rocm_tile.cuh, the
 * DFT of rocm_dft.cuh) run on the host, without an AMD GPU, against naive
 * loops in double and, for the DFT, against its own identities (inverse of
 * forward, r2c against c2c, c2r of r2c) and a shifted impulse.
 *
 * The kernels are device code with no runtime calls, so gpusim's executor
 * (plugins/gpusim/tc_sim.h, tc_sim.cpp: a block's threads are fibers that
 * switch at __syncthreads, in alternating order) runs them as they are, the
 * way `gpusim_conform` runs the whole plugin. Grids smaller than the problem
 * exercise the kernels' loops over row tiles and batches. What this cannot
 * show: anything about AMD's compiler or hardware (wave size, memory model);
 * it checks the index math, tiling, edges, strides, groups and the epilogue. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tabi/tabi.h>

#include "tc_port.h" /* TC_SIM: the executor's qualifiers, threadIdx & co */

#include "rocm_dft.cuh"
#include "rocm_fft.cuh"
#include "rocm_bluestein.cuh"
#include "rocm_tile.cuh"

/* The fields the kernels read, named as tc_blas.cu's mm_args and tc_conv.cu's
 * conv_args / conv_geom. */
struct mm_j {
  const char *a, *m, *s;
  char *o;
  int32_t dt, use_self, use_beta;
  int64_t nb, n, k, p;
  int64_t ast[3], mst[3], sst[3];
  double alpha[2], beta[2];
};
struct geom {
  int64_t n, cl, ch, groups;
  int64_t lsp[3], hsp[3], k[3];
  int64_t s[3], p[3], d[3];
};
struct conv_a {
  geom g;
  const char *in, *w, *b;
  char *out;
  int64_t ist[5], wst[5], ost[5], bst;
  int64_t oshape[5];
};

static int failures, checks;

/* kern() once per thread of the grid, nt threads a block (a closure over the
 * kernel's arguments); a launch the executor refuses is a failure. */
template <class K>
static void launch(dim3 grid, K kern, unsigned nt = RG_NT) {
  tc_sim_run(grid, dim3(nt), 0, [](void *k) { (*(K *)k)(); }, &kern);
  cudaError_t e = cudaGetLastError();
  checks++;
  if (e != cudaSuccess) {
    fprintf(stderr, "launch of %u x %u x %u blocks of %u refused (%d)\n", grid.x, grid.y, grid.z, nt, (int)e);
    failures++;
  }
}

/* Host buffers of one dtype, filled from doubles (rounded to the dtype). */
struct buf {
  int dt;
  std::vector<char> b;
  buf(int dt_, int64_t n) : dt(dt_), b((size_t)(n * tabi_dtype_size((tabi_dtype)dt_)) + 16, 0) {}
  void set(int64_t i, double v) {
    switch (dt) {
      case TABI_DTYPE_FLOAT32: { float f = (float)v; memcpy(&b[i * 4], &f, 4); break; }
      case TABI_DTYPE_FLOAT64: memcpy(&b[i * 8], &v, 8); break;
      case TABI_DTYPE_FLOAT16: { uint16_t h = tabi_f32_to_f16((float)v); memcpy(&b[i * 2], &h, 2); break; }
      default: { uint16_t h = tabi_f32_to_bf16((float)v); memcpy(&b[i * 2], &h, 2); break; }
    }
  }
  double get(int64_t i) const {
    switch (dt) {
      case TABI_DTYPE_FLOAT32: { float f; memcpy(&f, &b[i * 4], 4); return f; }
      case TABI_DTYPE_FLOAT64: { double d; memcpy(&d, &b[i * 8], 8); return d; }
      case TABI_DTYPE_FLOAT16: { uint16_t h; memcpy(&h, &b[i * 2], 2); return tabi_f16_to_f32(h); }
      default: { uint16_t h; memcpy(&h, &b[i * 2], 2); return tabi_bf16_to_f32(h); }
    }
  }
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand() {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0 * 4 - 2;
}

static double rtol_of(int dt) {
  return dt == TABI_DTYPE_FLOAT64 ? 1e-12 : dt == TABI_DTYPE_FLOAT32 ? 1e-5
         : dt == TABI_DTYPE_FLOAT16 ? 2e-3 : 1.6e-2;
}

static void expect(const char *what, int dt, double got, double want, double scale) {
  checks++;
  double tol = rtol_of(dt) * (fabs(want) + scale) + 1e-12;
  if (!(fabs(got - want) <= tol)) {
    if (failures < 10) fprintf(stderr, "%s: got %.10g, want %.10g\n", what, got, want);
    failures++;
  }
}

template <int DT>
static void mm_case(const char *name, int64_t nb, int64_t n, int64_t k, int64_t p, int trans_a,
                    int addmm, dim3 grid) {
  buf a(DT, nb * n * k), m(DT, nb * k * p), s(DT, p), o(DT, nb * n * p);
  for (int64_t i = 0; i < nb * n * k; i++) a.set(i, urand());
  for (int64_t i = 0; i < nb * k * p; i++) m.set(i, urand());
  for (int64_t i = 0; i < p; i++) s.set(i, urand());
  mm_j j;
  memset(&j, 0, sizeof j);
  j.a = a.b.data(); j.m = m.b.data(); j.s = s.b.data(); j.o = o.b.data();
  j.dt = DT; j.nb = nb; j.n = n; j.k = k; j.p = p;
  /* a stored [nb][n][k], or transposed [nb][k][n] (column-major rows) */
  j.ast[0] = n * k;
  j.ast[1] = trans_a ? 1 : k;
  j.ast[2] = trans_a ? n : 1;
  j.mst[0] = k * p; j.mst[1] = p; j.mst[2] = 1;
  j.sst[0] = 0; j.sst[1] = 0; j.sst[2] = 1; /* self [p] broadcast over rows */
  j.use_self = addmm; j.use_beta = addmm;
  j.alpha[0] = 0.5; j.beta[0] = -2;
  launch(grid, [&] { rg_tiled<DT, mm_j>(j); });
  for (int64_t b = 0; b < nb; b++)
    for (int64_t r = 0; r < n; r++)
      for (int64_t c = 0; c < p; c++) {
        double acc = 0, mag = 0;
        for (int64_t i = 0; i < k; i++) {
          double x = a.get(b * j.ast[0] + r * j.ast[1] + i * j.ast[2]) * m.get(b * k * p + i * p + c);
          acc += x;
          mag += fabs(x);
        }
        if (addmm) acc = 0.5 * acc - 2 * s.get(c);
        expect(name, DT, o.get((b * n + r) * p + c), acc, mag);
      }
}

template <int DT>
static void conv_case(const char *name, int64_t groups, dim3 grid_limit) {
  const int64_t N = 2, C = 6, H = 9, W = 7, K = 8, KH = 3, KW = 2;
  const int64_t s0 = 2, s1 = 1, p0 = 1, p1 = 0, d0 = 1, d1 = 2;
  const int64_t OH = (H + 2 * p0 - d0 * (KH - 1) - 1) / s0 + 1, OW = (W + 2 * p1 - d1 * (KW - 1) - 1) / s1 + 1;
  const int64_t cpg = C / groups, kpg = K / groups;
  buf x(DT, N * C * H * W), w(DT, K * cpg * KH * KW), bias(DT, K), o(DT, N * K * OH * OW);
  for (int64_t i = 0; i < N * C * H * W; i++) x.set(i, urand());
  for (int64_t i = 0; i < K * cpg * KH * KW; i++) w.set(i, urand());
  for (int64_t i = 0; i < K; i++) bias.set(i, urand());
  conv_a a;
  memset(&a, 0, sizeof a);
  a.g.n = N; a.g.cl = K; a.g.ch = C; a.g.groups = groups;
  a.g.k[0] = KH; a.g.k[1] = KW; a.g.k[2] = 1;
  a.g.s[0] = s0; a.g.s[1] = s1; a.g.p[0] = p0; a.g.p[1] = p1; a.g.d[0] = d0; a.g.d[1] = d1;
  a.g.hsp[0] = H; a.g.hsp[1] = W; a.g.lsp[0] = OH; a.g.lsp[1] = OW;
  a.in = x.b.data(); a.w = w.b.data(); a.b = bias.b.data(); a.out = o.b.data();
  /* input channels-last ([N][H][W][C] memory), weight and output contiguous */
  a.ist[0] = H * W * C; a.ist[1] = 1; a.ist[2] = W * C; a.ist[3] = C;
  a.wst[0] = cpg * KH * KW; a.wst[1] = KH * KW; a.wst[2] = KW; a.wst[3] = 1;
  a.ost[0] = K * OH * OW; a.ost[1] = OH * OW; a.ost[2] = OW; a.ost[3] = 1;
  a.bst = 1;
  a.oshape[0] = N; a.oshape[1] = K; a.oshape[2] = OH; a.oshape[3] = OW;
  int64_t rows = N * OH * OW;
  unsigned gy = (unsigned)((rows + RG_BM - 1) / RG_BM);
  if (gy > grid_limit.y) gy = grid_limit.y;
  launch(dim3{(unsigned)((kpg + RG_BN - 1) / RG_BN), gy, (unsigned)groups},
         [&] { rc_igemm<DT, conv_a>(a); });
  for (int64_t n = 0; n < N; n++)
    for (int64_t oc = 0; oc < K; oc++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          int64_t gi = oc / kpg;
          double acc = bias.get(oc), mag = fabs(acc);
          for (int64_t ic = 0; ic < cpg; ic++)
            for (int64_t kh = 0; kh < KH; kh++)
              for (int64_t kw = 0; kw < KW; kw++) {
                int64_t ih = oh * s0 - p0 + kh * d0, iw = ow * s1 - p1 + kw * d1;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                double v = x.get(n * H * W * C + ih * W * C + iw * C + gi * cpg + ic) *
                           w.get(oc * cpg * KH * KW + ic * KH * KW + kh * KW + kw);
                acc += v;
                mag += fabs(v);
              }
          expect(name, DT, o.get(n * K * OH * OW + oc * OH * OW + oh * OW + ow), acc, mag);
        }
}

static void dft_check(const char *what, double got, double want, double scale) {
  checks++;
  if (!(fabs(got - want) <= 1e-12 * scale + 1e-12)) {
    if (failures < 10) fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    failures++;
  }
}

/* rows of `batch` signals of length n: kind/fwd as rd_dft; 2 blocks of 64
 * threads, fewer than the outputs, so the grid-stride loop is taken. */
static std::vector<double> dft(const std::vector<double> &in, int kind, int fwd, int64_t batch, int64_t n) {
  std::vector<double> out((size_t)(batch * (kind == 1 ? n / 2 + 1 : n) * (kind == 2 ? 1 : 2)));
  const char *src = (const char *)in.data();
  char *dst = (char *)out.data();
  launch(dim3{2, 1, 1}, [&] { rd_dft<double>(src, dst, kind, fwd, batch, n); }, 64);
  return out;
}

static void dft_case(int64_t n) {
  const int64_t batch = 3, m = n / 2 + 1;
  std::vector<double> x((size_t)(batch * n)), xc((size_t)(batch * n * 2));
  for (int64_t i = 0; i < batch * n; i++) {
    x[i] = urand();
    xc[2 * i] = x[i];
    xc[2 * i + 1] = 0;
  }
  std::vector<double> r2c = dft(x, 1, 1, batch, n), c2c = dft(xc, 0, 1, batch, n);
  for (int64_t b = 0; b < batch; b++)
    for (int64_t k = 0; k < m; k++)
      for (int e = 0; e < 2; e++)
        dft_check("r2c == c2c of the real signal", r2c[(b * m + k) * 2 + e], c2c[(b * n + k) * 2 + e], (double)n);
  std::vector<double> back = dft(c2c, 0, 0, batch, n);
  for (int64_t i = 0; i < batch * n * 2; i++)
    dft_check("c2c inverse of forward == n x", back[i], (double)n * xc[i], (double)n);
  /* c2r reads bins 0..n/2 with the imaginary parts of 0 and n/2 zeroed */
  std::vector<double> half = r2c;
  for (int64_t b = 0; b < batch; b++) {
    half[(b * m) * 2 + 1] = 0;
    if (n % 2 == 0) half[(b * m + n / 2) * 2 + 1] = 0;
  }
  std::vector<double> real = dft(half, 2, 0, batch, n);
  for (int64_t i = 0; i < batch * n; i++)
    dft_check("c2r of r2c == n x", real[i], (double)n * x[i], (double)n);
  /* an impulse at t = 1: X[k] = e^{-2 pi i k / n} */
  std::vector<double> imp((size_t)(n * 2), 0.0);
  if (n > 1) imp[2] = 1;
  else imp[0] = 1;
  std::vector<double> ix = dft(imp, 0, 1, 1, n);
  for (int64_t k = 0; k < n; k++) {
    double ang = n > 1 ? -RD_TWO_PI * (double)k / (double)n : 0;
    dft_check("impulse re", ix[2 * k], cos(ang), 1);
    dft_check("impulse im", ix[2 * k + 1], sin(ang), 1);
  }
}

/* ---- the Stockham FFT of rocm_fft.cuh ----
 * Run as tc_fft.cu's TC_HIP branch runs it: load into half A of a scratch of
 * 2*batch*n double complex, one stage per radix ping-ponging A/B, store from
 * the last. Compared with (a) rd_dft on the same storage (all outputs; n <=
 * 1000, and one row of each kind at 4096) and (b) a naive DFT in long double
 * with exact phase reduction (all outputs up to n = 1000 and for one row at
 * 4096, 24 bins a row above). Errors are relative to the largest |reference|
 * of the compared set; elementwise, float64 outputs must meet tolerances.md's
 * float64 rtol/atol against the reference and float32 outputs its float32
 * rtol/atol against the reference rounded to float. */
/* 2 blocks of 8 threads: the grid-stride loops are taken (no shared memory
 * or barriers in these kernels) */
#define FFT_NT 8
template <typename R>
static std::vector<R> bs_run(const std::vector<R> &in, int kind, int fwd, int64_t batch, int64_t n,
                             int *stages);
template <typename R>
static std::vector<R> fft_run(const std::vector<R> &in, int kind, int fwd, int64_t batch, int64_t n,
                              int *stages) {
  rd_fft_step st[RD_FFT_MAX_STAGES];
  int ns = rd_fft_plan(n, st);
  if (ns < 0 && n >= RD_FFT_MIN) return bs_run(in, kind, fwd, batch, n, stages);
  *stages = ns;
  std::vector<R> out((size_t)(batch * (kind == 1 ? n / 2 + 1 : n) * (kind == 2 ? 1 : 2)));
  if (ns < 0) return out;
  std::vector<double> scratch((size_t)(4 * batch * n));
  double *buf2[2] = {scratch.data(), scratch.data() + 2 * batch * n};
  const char *src = (const char *)in.data();
  char *dst = (char *)out.data();
  auto load = [&] { rd_fft_load<R>(src, buf2[0], kind, batch, n); };
  launch(dim3{2, 1, 1}, load, FFT_NT);
  for (int s = 0; s < ns; s++) {
    const double *x = buf2[s % 2];
    double *y = buf2[(s + 1) % 2];
    auto stage = [&] { rd_fft_stage(x, y, batch, n, st[s].p, st[s].radix, kind != 2 && fwd); };
    launch(dim3{2, 1, 1}, stage, FFT_NT);
  }
  const double *last = buf2[ns % 2];
  auto store = [&] { rd_fft_store<R>(last, dst, kind, batch, n); };
  launch(dim3{2, 1, 1}, store, FFT_NT);
  return out;
}

/* Bluestein (rocm_bluestein.cuh) as tc_fft.cu's bluestein() launches it:
 * the filter's spectrum in F0/F1, the data forward A<->B, the product, the
 * inverse, the store from A. *stages: the length-m plan's, -1 without one. */
template <typename R>
static std::vector<R> bs_run(const std::vector<R> &in, int kind, int fwd, int64_t batch, int64_t n,
                             int *stages) {
  rd_fft_step st[RD_FFT_MAX_STAGES];
  const int64_t m = rd_bs_len(n);
  const int ns = m > 0 ? rd_fft_plan(m, st) : -1;
  *stages = ns;
  std::vector<R> out((size_t)(batch * (kind == 1 ? n / 2 + 1 : n) * (kind == 2 ? 1 : 2)));
  if (ns <= 0) return out;
  std::vector<double> scratch((size_t)(2 * (2 * batch + 2) * m));
  double *ab[2] = {scratch.data(), scratch.data() + 2 * batch * m};
  double *fb[2] = {scratch.data() + 4 * batch * m, scratch.data() + 4 * batch * m + 2 * m};
  const char *src = (const char *)in.data();
  char *dst = (char *)out.data();
  launch(dim3{2, 1, 1}, [&] { rd_bs_filter(fb[0], kind, fwd, n, m); }, FFT_NT);
  for (int s = 0; s < ns; s++)
    launch(dim3{2, 1, 1}, [&] { rd_fft_stage(fb[s % 2], fb[(s + 1) % 2], 1, m, st[s].p, st[s].radix, 1); },
           FFT_NT);
  launch(dim3{2, 1, 1}, [&] { rd_bs_load<R>(src, ab[0], kind, fwd, batch, n, m); }, FFT_NT);
  for (int s = 0; s < 2 * ns; s++) {
    if (s == ns) launch(dim3{2, 1, 1}, [&] { rd_bs_mul(ab[s % 2], fb[ns % 2], batch, m); }, FFT_NT);
    const rd_fft_step sp = st[s % ns];
    launch(dim3{2, 1, 1},
           [&] { rd_fft_stage(ab[s % 2], ab[(s + 1) % 2], batch, m, sp.p, sp.radix, s < ns); }, FFT_NT);
  }
  launch(dim3{2, 1, 1}, [&] { rd_bs_store<R>(ab[0], dst, kind, fwd, batch, n, m); }, FFT_NT);
  return out;
}

template <typename R>
static std::vector<R> rd_dft_run(const std::vector<R> &in, int kind, int fwd, int64_t batch,
                                 int64_t n) {
  std::vector<R> out((size_t)(batch * (kind == 1 ? n / 2 + 1 : n) * (kind == 2 ? 1 : 2)));
  const char *src = (const char *)in.data();
  char *dst = (char *)out.data();
  auto dft = [&] { rd_dft<R>(src, dst, kind, fwd, batch, n); };
  launch(dim3{2, 1, 1}, dft, FFT_NT);
  return out;
}

static double fft_worst[2][3];  /* [double storage][kind]: max relative error vs naive */
static double fft_worst_dft[2]; /* [double storage]: max relative difference from rd_dft */
static int fft_compared;
/* the same for the lengths Bluestein takes (fft_case sets fft_bs) */
static double bs_worst[2][3], bs_worst_dft[2], bs_worst_rms[2];
static int bs_compared, fft_bs;

/* Output element (row b, bin/sample j) of the naive transform, long double. */
template <typename R>
static void naive_at(const std::vector<R> &in, const std::vector<long double> &cs,
                     const std::vector<long double> &sn, int kind, int fwd, int64_t n, int64_t b,
                     int64_t j, long double *re, long double *im) {
  const int64_t in_len = kind == 2 ? n / 2 + 1 : n;
  const long double sgn = (kind == 2 || !fwd) ? 1.0L : -1.0L;
  long double ar = 0, ai = 0;
  for (int64_t t = 0; t < n; t++) {
    long double xr, xi;
    if (kind == 1) {
      xr = in[(size_t)(b * n + t)];
      xi = 0;
    } else if (kind == 0) {
      xr = in[(size_t)(2 * (b * n + t))];
      xi = in[(size_t)(2 * (b * n + t) + 1)];
    } else {
      int64_t s = t < in_len ? t : n - t;
      xr = in[(size_t)(2 * (b * in_len + s))];
      xi = in[(size_t)(2 * (b * in_len + s) + 1)];
      if (t >= in_len) xi = -xi;
    }
    int64_t q = (t * j) % n;
    long double c = cs[(size_t)q], s = sgn * sn[(size_t)q];
    ar += xr * c - xi * s;
    ai += xr * s + xi * c;
  }
  *re = ar;
  *im = ai;
}

template <typename R>
static void fft_case(int64_t n, int64_t batch, int kind, int fwd) {
  const int dbl = sizeof(R) == 8;
  const int64_t in_len = kind == 2 ? n / 2 + 1 : n, out_len = kind == 1 ? n / 2 + 1 : n;
  const int64_t in_el = batch * in_len * (kind == 1 ? 1 : 2);
  std::vector<R> in((size_t)in_el);
  for (int64_t i = 0; i < in_el; i++) in[(size_t)i] = (R)urand();
  if (kind == 2) /* the caller's Hermitian fix-up: imag of bins 0 and n/2 */
    for (int64_t b = 0; b < batch; b++) {
      in[(size_t)(2 * b * in_len + 1)] = 0;
      if (n % 2 == 0) in[(size_t)(2 * (b * in_len + n / 2) + 1)] = 0;
    }
  int ns = 0;
  rd_fft_step plan[RD_FFT_MAX_STAGES];
  fft_bs = n >= RD_FFT_MIN && rd_fft_plan(n, plan) < 0;
  std::vector<R> got = fft_run(in, kind, fwd, batch, n, &ns);
  checks++;
  if (ns < 0) {
    fprintf(stderr, "fft n=%lld: no plan\n", (long long)n);
    failures++;
    return;
  }
  const int cplx = kind != 2;
  char what[96];
  snprintf(what, sizeof what, "fft %s kind %d fwd %d n=%lld batch %lld", dbl ? "f64" : "f32", kind,
           fwd, (long long)n, (long long)batch);
  /* (a) against rd_dft on the same storage (O(n^2) with a sincos a term:
   * at n = 4096 one row of each kind) */
  if (n <= 1000 || (n <= 4096 && batch == 1 && fwd == (kind != 2))) {
    std::vector<R> ref = rd_dft_run(in, kind, fwd, batch, n);
    double mx = 0, err = 0;
    for (size_t i = 0; i < ref.size(); i++) mx = fmax(mx, fabs((double)ref[i]));
    for (size_t i = 0; i < ref.size(); i++) {
      double d = fabs((double)got[i] - (double)ref[i]);
      err = fmax(err, d);
      checks++;
      /* both round one double sum to R: within one ulp of R of the larger */
      double tol = dbl ? 1e-12 * (mx + 1) : 2.5e-7 * fmax(fabs((double)ref[i]), 1e-30) + 1e-12 * mx;
      if (!(d <= tol)) {
        if (failures < 10)
          fprintf(stderr, "%s vs rd_dft [%zu]: got %.15g, want %.15g\n", what, i, (double)got[i],
                  (double)ref[i]);
        failures++;
      }
    }
    double *w = fft_bs ? bs_worst_dft : fft_worst_dft;
    w[dbl] = fmax(w[dbl], mx > 0 ? err / mx : err);
  }
  /* (b) against the naive long double DFT */
  std::vector<long double> cs((size_t)n), sn((size_t)n);
  for (int64_t t = 0; t < n; t++) {
    long double a = 2 * 3.14159265358979323846264338327950288L * (long double)t / (long double)n;
    cs[(size_t)t] = cosl(a);
    sn[(size_t)t] = sinl(a);
  }
  std::vector<int64_t> bins;
  if (n <= 1000 || (n <= 4096 && batch == 1)) {
    for (int64_t j = 0; j < out_len; j++) bins.push_back(j);
  } else { /* the edges and a spread of others */
    for (int64_t j : {(int64_t)0, (int64_t)1, out_len / 2, out_len - 1}) bins.push_back(j);
    for (int64_t k = 1; k <= 20; k++) bins.push_back((k * 1000003) % out_len);
  }
  for (int64_t b = 0; b < batch; b++) {
    std::vector<long double> wr, wi;
    double mx = 0, err = 0, ss = 0;
    for (int64_t j : bins) {
      long double re, im;
      naive_at(in, cs, sn, kind, fwd, n, b, j, &re, &im);
      wr.push_back(re);
      wi.push_back(im);
      mx = fmax(mx, fabs((double)re));
      if (cplx) mx = fmax(mx, fabs((double)im));
      ss += (double)(re * re + (cplx ? im * im : 0));
    }
    for (size_t q = 0; q < bins.size(); q++) {
      int64_t o = b * out_len + bins[q];
      for (int e = 0; e < 1 + cplx; e++) {
        double g = (double)got[(size_t)(cplx ? 2 * o + e : o)];
        long double w = e ? wi[q] : wr[q];
        double d = (double)fabsl((long double)g - w);
        err = fmax(err, d);
        /* tolerances.md, float32 against the reference rounded to float */
        double want = dbl ? (double)w : (double)(float)w, dw = fabs(g - want);
        double tol = dbl ? 1e-7 + 1e-7 * fabs(want) : 1e-5 + 1.3e-6 * fabs(want);
        checks++;
        fft_compared++;
        bs_compared += fft_bs;
        if (!(dw <= tol) || !(d <= (dbl ? 1e-13 : 1.2e-7) * (mx + 1e-300) + 1e-300)) {
          if (failures < 10)
            fprintf(stderr, "%s vs naive bin %lld.%d: got %.15g, want %.15Lg\n", what,
                    (long long)bins[q], e, g, w);
          failures++;
        }
      }
    }
    double rel = mx > 0 ? err / mx : err;
    double rel_rms = ss > 0 ? err / sqrt(ss / (double)bins.size()) : err;
    double *w = fft_bs ? bs_worst[dbl] : fft_worst[dbl];
    w[kind] = fmax(w[kind], rel);
    if (fft_bs) bs_worst_rms[dbl] = fmax(bs_worst_rms[dbl], rel_rms);
    if ((n >= 65536 || (fft_bs && n >= 1000 && batch == 1)) && b == 0) /* and to the rms |ref| */
      printf("  %s%s: max |err| / max |ref| %.3g, / rms |ref| %.3g\n", what,
             fft_bs ? " (Bluestein)" : "", rel, rel_rms);
  }
}

static void fft_plan_checks() {
  rd_fft_step st[RD_FFT_MAX_STAGES];
  const struct {
    int64_t n;
    int want;
  } cases[] = {{1, 0},    {2, 1},    {7, -1},
               {45, 3},   {60, 3},   {64, 3},
               {1000, 5}, {4096, 6}, {(int64_t)1 << 24, 12},
               {14, -1},  {0, -1},   {3 * 7 * 1024, -1}};
  for (auto &c : cases) {
    int ns = rd_fft_plan(c.n, st);
    int64_t prod = 1, ok = 1;
    for (int s = 0; s < ns; s++) {
      ok &= st[s].p == prod;
      prod *= st[s].radix;
    }
    checks++;
    if (ns != c.want || (ns >= 0 && (prod != c.n || !ok))) {
      fprintf(stderr, "rd_fft_plan(%lld) = %d stages, want %d\n", (long long)c.n, ns, c.want);
      failures++;
    }
  }
}

/* rd_bs_len: the smallest 2,3,5-smooth m >= 2n-1, against a scan */
static void bs_len_checks() {
  rd_fft_step st[RD_FFT_MAX_STAGES];
  for (int64_t n : {2, 3, 7, 32, 37, 97, 143, 257, 1009, 65537, 1048573}) {
    int64_t want = 2 * n - 1;
    while (rd_fft_plan(want, st) < 0) want++;
    checks++;
    if (rd_bs_len(n) != want) {
      fprintf(stderr, "rd_bs_len(%lld) = %lld, want %lld\n", (long long)n, (long long)rd_bs_len(n),
              (long long)want);
      failures++;
    }
  }
  checks += 2;
  if (rd_bs_len(1) != -1 || rd_bs_len(RD_BS_MAX_N + 1) != -1) {
    fprintf(stderr, "rd_bs_len: out-of-range lengths accepted\n");
    failures++;
  }
}

/* Bluestein's lengths: primes, 7-smooth, 11*13-type, 17*241 */
static void fft_bs_all(int big) {
  bs_len_checks();
  for (int64_t n : {33, 37, 49, 97, 143, 257, 448, 1001, 1009, 4097, 9152, 65537})
    for (int64_t batch : {1, 3})
      for (int kind = 0; kind < 3; kind++)
        for (int fwd = 0; fwd < 2; fwd++) {
          if (n > 4097 && (batch == 3 || fwd == (kind == 2))) continue; /* one direction a kind */
          fft_case<double>(n, batch, kind, fwd);
          fft_case<float>(n, batch, kind, fwd);
        }
  if (big) /* near 2^20: a prime (m = 2^21) and 7^7 */
    for (int kind = 0; kind < 3; kind++) {
      fft_case<double>(1048573, 1, kind, 1);
      fft_case<float>(1048573, 1, kind, kind == 2);
      if (kind == 0) {
        fft_case<double>(823543, 1, 0, 0);
        fft_case<float>(823543, 1, 0, 1);
      }
    }
}

static void fft_all(int big) {
  fft_plan_checks();
  if (big == 2) { /* "--n24": the benchmark length only, by hand (1.5 GB) */
    fft_case<double>((int64_t)1 << 24, 1, 0, 1);
    fft_case<float>((int64_t)1 << 24, 1, 1, 1);
    return;
  }
  for (int64_t n : {1, 2, 3, 4, 5, 8, 12, 60, 64, 1000, 4096, 65536})
    for (int64_t batch : {1, 3})
      for (int kind = 0; kind < 3; kind++)
        for (int fwd = 0; fwd < 2; fwd++) {
          if (n > 4096 && batch == 3 && kind != 0) continue; /* c2c covers batching at this size */
          fft_case<double>(n, batch, kind, fwd);
          fft_case<float>(n, batch, kind, fwd);
        }
  if (big)
    for (int kind = 0; kind < 3; kind++) {
      fft_case<double>((int64_t)1 << 20, 1, kind, 1);
      fft_case<float>((int64_t)1 << 20, 1, kind, kind == 2);
    }
}

/* The Stockham and Bluestein FFTs against the naive DFT, with a summary. */
static void fft_cases(int big) {
  fft_all(big);
  printf("fft: %d outputs compared with the naive DFT; max relative error", fft_compared);
  printf(" (to the largest |ref|):\n");
  for (int d = 1; d >= 0; d--)
    printf("  %s storage: c2c %.3g, r2c %.3g, c2r %.3g; vs rd_dft %.3g\n",
           d ? "float64" : "float32", fft_worst[d][0], fft_worst[d][1], fft_worst[d][2],
           fft_worst_dft[d]);
  fft_bs_all(big);
  printf("bluestein: %d outputs compared with the naive DFT; max relative error", bs_compared);
  printf(" (to the largest |ref|; last column to the rms |ref|):\n");
  for (int d = 1; d >= 0; d--)
    printf("  %s storage: c2c %.3g, r2c %.3g, c2r %.3g; vs rd_dft %.3g; rms %.3g\n",
           d ? "float64" : "float32", bs_worst[d][0], bs_worst[d][1], bs_worst[d][2],
           bs_worst_dft[d], bs_worst_rms[d]);
}

/* The DFT's identities, the tiled GEMM and the implicit-GEMM convolution. */
static void tile_cases(void) {
  for (int64_t n : {1, 2, 7, 8, 16, 45}) dft_case(n);
  mm_case<TABI_DTYPE_FLOAT32>("mm f32 70x37x130", 1, 70, 37, 130, 0, 0, dim3{3, 2, 1});
  mm_case<TABI_DTYPE_FLOAT32>("mm f32 transposed a, row tiles looped", 1, 130, 20, 65, 1, 0, dim3{2, 1, 1});
  mm_case<TABI_DTYPE_FLOAT64>("bmm f64 3x33x17x40, batches looped", 3, 33, 17, 40, 0, 0, dim3{1, 1, 2});
  mm_case<TABI_DTYPE_FLOAT64>("addmm f64", 1, 40, 64, 70, 0, 1, dim3{2, 1, 1});
  mm_case<TABI_DTYPE_FLOAT16>("mm f16", 1, 64, 48, 64, 0, 0, dim3{1, 1, 1});
  mm_case<TABI_DTYPE_BFLOAT16>("addmm bf16", 1, 20, 33, 70, 1, 1, dim3{2, 1, 1});
  conv_case<TABI_DTYPE_FLOAT32>("conv f32 groups=1", 1, dim3{1, 65535, 1});
  conv_case<TABI_DTYPE_FLOAT64>("conv f64 groups=2, row tiles looped", 2, dim3{1, 1, 1});
  conv_case<TABI_DTYPE_FLOAT16>("conv f16 groups=2", 2, dim3{1, 65535, 1});
}

int main(int argc, char **argv) {
  /* "--no-big": skip n = 2^20 (slow under the sanitizers); "--n24": the
   * FFT at n = 2^24 only; "--tiles": the DFT, GEMM and convolution cases only */
  const char *arg = argc > 1 ? argv[1] : "";
  if (strcmp(arg, "--n24") == 0) {
    fft_all(2);
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 && checks > 0 ? 0 : 1;
  }
  int tiles = strcmp(arg, "--tiles") == 0;
  if (!tiles) fft_cases(strcmp(arg, "--no-big") != 0);
  tile_cases();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 && checks > 0 ? 0 : 1;
}
