/* tests/cuda/test_cuda_svd_host.cpp: the CUDA/ROCm prims::svd (plugins/cuda/tc_svd.cu)
 * emulated on the host, without a GPU, against the reference plugin.
 *
 * tc_svd.cu runs tcs_matrix (plugins/cuda/tc_svd.cuh) with one thread block
 * per matrix; tcs_matrix is a sequence of phases over an executor. Here the
 * executor runs every phase for thread t = 0..T-1 in turn (what the block's
 * barriers make the device do), for T = 1, 7, 32 and 256 (and again with
 * the threads of each phase in reverse order: the same bits, so no phase
 * reads what another thread writes in it), on the logical
 * bytes of the input the reference gets (contiguous or a transposed view), with
 * the scratch and the outputs filled with NaN first, so a read of anything
 * not written shows.
 *
 * The factors are not unique, so against the reference: the shapes and dtypes
 * of U, S, Vh; S within the dtype's rtol (shared/spec/tolerances.md) times
 * the largest singular value; U diag(S) Vh == A and U^H U == I, Vh Vh^H == I
 * within BOUND (the reference's own residuals are held to the same bound, so
 * the bound is one the oracle meets). With T = 1 every sum runs in the
 * reference's order, so there U, S and Vh must be the reference's bits.
 * Cases: the four dtypes, square/tall/wide, batch dims (batch 0 too), empty
 * matrices, full_matrices both, random, rank-deficient, zero, and repeated
 * singular values; non-finite input (the device flag, the reference's error
 * and message), and the argument checks (the reference's own functions).
 * argv[1]: libtabi_reference.so. */
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tabi/runtime.h>

#include "check.h"
#include "host_case.h"
#include "tc_svd.cuh"

extern "C" {
tabi_status ref_linalg_svd_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *A,
                                 int64_t *m, int64_t *n, int64_t *batch);
tabi_status ref_linalg_svd_nonfinite(const tabi_host_api *h, const tabi_call *call);
}

typedef std::complex<double> cd;
static long long bit_cases, bad_cases, order_cases;

static const tabi_dtype DTS[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64,
                                  TABI_DTYPE_COMPLEX128};
static const int THREADS[4] = {1, 7, 32, 256};

/* The emulated block: each phase for t = 0..T-1 in turn (rev: T-1..0; a
 * phase whose threads read what another thread of the same phase writes, a
 * race on the device, gives different bits in the two orders). */
struct host_block {
  int T, rev;
  template <class F> void run(F f) {
    for (int i = 0; i < T; i++) f(rev ? T - 1 - i : i, T);
  }
  int threads() const { return T; }
};

static int single(tabi_dtype dt) { return dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_COMPLEX64; }
/* tolerances.md: rtol of float32/complex64 1.3e-6, of float64/complex128 1e-7 */
static double rtol_of(tabi_dtype dt) { return single(dt) ? 1.3e-6 : 1e-7; }
/* residual bound: a few roundings of the stored factors times the sizes here */
static double bound_of(tabi_dtype dt) { return single(dt) ? 2e-5 : 1e-12; }

static void put(std::vector<char> &b, tabi_dtype dt, int64_t e, cd v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)b.data())[e] = (float)v.real(); break;
    case TABI_DTYPE_FLOAT64: ((double *)b.data())[e] = v.real(); break;
    case TABI_DTYPE_COMPLEX64:
      ((float *)b.data())[2 * e] = (float)v.real();
      ((float *)b.data())[2 * e + 1] = (float)v.imag();
      break;
    default:
      ((double *)b.data())[2 * e] = v.real();
      ((double *)b.data())[2 * e + 1] = v.imag();
      break;
  }
}
static cd get(const char *p, tabi_dtype dt, int64_t e) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[e];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[e];
    case TABI_DTYPE_COMPLEX64: return cd(((const float *)p)[2 * e], ((const float *)p)[2 * e + 1]);
    default: return cd(((const double *)p)[2 * e], ((const double *)p)[2 * e + 1]);
  }
}
static cd rnd(tabi_dtype dt) {
  double re = urand() * 4 - 2;
  return tabi_dtype_is_complex(dt) ? cd(re, urand() * 4 - 2) : cd(re, 0);
}

/* One m x n matrix (row-major) of kind 0 random, 1 rank r < k (a product
 * B C), 2 zero, 3 H diag(d) G with Householder H, G and repeated d. */
static void matrix(std::vector<cd> &a, int64_t m, int64_t n, int kind, tabi_dtype dt) {
  int64_t k = m < n ? m : n;
  a.assign((size_t)(m * n), cd(0, 0));
  if (kind == 0) {
    for (auto &x : a) x = rnd(dt);
  } else if (kind == 1 && k > 0) {
    int64_t r = irand(0, k - 1);
    std::vector<cd> B((size_t)(m * r)), C((size_t)(r * n));
    for (auto &x : B) x = rnd(dt);
    for (auto &x : C) x = rnd(dt);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < r; l++) a[(size_t)(i * n + j)] += B[(size_t)(i * r + l)] * C[(size_t)(l * n + j)];
  } else if (kind == 3) {
    std::vector<cd> v((size_t)m), w((size_t)n), d((size_t)k);
    double vv = 0, ww = 0;
    for (auto &x : v) vv += std::norm(x = rnd(dt));
    for (auto &x : w) ww += std::norm(x = rnd(dt));
    for (int64_t l = 0; l < k; l++) d[(size_t)l] = (double)(2 - l / 2 % 3); /* 2 2 1 1 0 0 2 2 ... */
    auto H = [&](int64_t i, int64_t l) { return (i == l ? 1.0 : 0.0) - 2.0 * v[(size_t)i] * std::conj(v[(size_t)l]) / vv; };
    auto G = [&](int64_t l, int64_t j) { return (l == j ? 1.0 : 0.0) - 2.0 * w[(size_t)l] * std::conj(w[(size_t)j]) / ww; };
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) a[(size_t)(i * n + j)] += H(i, l) * d[(size_t)l] * G(l, j);
  }
}

static tabi_status ref_svd(tabi_tensor *A, int full, tabi_value *o) {
  tabi_op op;
  for (int i = 0; i < 3; i++) o[i] = tabi_none();
  CHECK_OK(tabi_op_find(ref, "prims::svd", &op));
  tabi_value a[2] = {tabi_tensor_value(A), tabi_bool(full)};
  return tabi_call(ref, op, a, 2, o, 3);
}

/* Residuals of one batch element's factors (row-major, contiguous): max |U
 * diag(S) Vh - A| / max |A| (absolute when A is 0), max |U^H U - I|, max
 * |Vh Vh^H - I|. */
static void residuals(const tcs_geom &g, tabi_dtype dt, const char *a, const char *u, const char *s,
                      const char *vh, double *rec, double *ou, double *ov) {
  tabi_dtype sdt = (tabi_dtype)g.sdt;
  double worst = 0, big = 0;
  for (int64_t i = 0; i < g.m; i++)
    for (int64_t j = 0; j < g.n; j++) {
      cd acc = 0;
      for (int64_t q = 0; q < g.k; q++) acc += get(u, dt, i * g.ucols + q) * get(s, sdt, q).real() * get(vh, dt, q * g.n + j);
      cd x = get(a, dt, i * g.n + j);
      worst = fmax(worst, std::abs(acc - x));
      big = fmax(big, std::abs(x));
    }
  *rec = big > 0 ? worst / big : worst;
  *ou = *ov = 0;
  for (int64_t p = 0; p < g.ucols; p++)
    for (int64_t q = 0; q < g.ucols; q++) {
      cd d = 0;
      for (int64_t i = 0; i < g.m; i++) d += std::conj(get(u, dt, i * g.ucols + p)) * get(u, dt, i * g.ucols + q);
      *ou = fmax(*ou, std::abs(d - (p == q ? 1.0 : 0.0)));
    }
  for (int64_t p = 0; p < g.vrows; p++)
    for (int64_t q = 0; q < g.vrows; q++) {
      cd d = 0;
      for (int64_t j = 0; j < g.n; j++) d += get(vh, dt, p * g.n + j) * std::conj(get(vh, dt, q * g.n + j));
      *ov = fmax(*ov, std::abs(d - (p == q ? 1.0 : 0.0)));
    }
  checked_elems += g.m * g.n + g.ucols * g.ucols + g.vrows * g.vrows;
}

static int64_t numel_shape(int32_t nd, const int64_t *s) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= s[i];
  return n;
}

/* One case: batch dims bd[0..nb), m x n, kind, layout mode, poison: a
 * non-finite element at a random place (needs m*n > 0 and batch > 0). */
static void svd_case(tabi_dtype dt, int32_t nb, const int64_t *bd, int64_t m, int64_t n, int full, int kind,
                     int mode, int poison) {
  int32_t nd = nb + 2;
  int64_t shape[HOST_MAX_DIMS];
  for (int32_t i = 0; i < nb; i++) shape[i] = bd[i];
  shape[nb] = m;
  shape[nb + 1] = n;
  int64_t batch = numel_shape(nb, bd), esz = tcs_esz(dt);
  std::vector<char> bytes((size_t)(batch * m * n * esz) + 16, 0);
  std::vector<cd> a;
  for (int64_t b = 0; b < batch; b++) {
    matrix(a, m, n, kind, dt);
    for (int64_t e = 0; e < m * n; e++) put(bytes, dt, b * m * n + e, a[(size_t)e]);
  }
  if (poison) /* NaN, or an infinite part (the imaginary one where there is one) */
    put(bytes, dt, irand(0, batch * m * n - 1),
        irand(0, 1) ? cd(NAN, 0) : tabi_dtype_is_complex(dt) ? cd(0, INFINITY) : cd(-INFINITY, 0));
  tabi_tensor *base = NULL, *A = host_laid_out(dt, (int)esz, nd, shape, mode, bytes, &base);
  if (!A) return;
  tabi_value o[3];
  tabi_status sr = ref_svd(A, full, o);
  char what[160];
  snprintf(what, sizeof what, "svd %s batch %lld %lldx%lld full %d kind %d mode %d", tabi_dtype_name(dt),
           (long long)batch, (long long)m, (long long)n, full, kind, mode);
  tcs_geom g;
  tcs_init(&g, m, n, full, dt);
  int64_t nu = batch * m * g.ucols, ns = batch * g.k, nv = batch * g.vrows * n;
  /* the emulated kernel over the batch: outputs and scratch poisoned with NaN */
  auto emulate = [&](int T, int rev, std::vector<char> &U, std::vector<char> &S, std::vector<char> &Vh, int *bad) {
    U.assign((size_t)(nu * esz) + 16, (char)0xff);
    S.assign((size_t)(ns * tcs_esz(g.sdt)) + 16, (char)0xff);
    Vh.assign((size_t)(nv * esz) + 16, (char)0xff);
    std::vector<double> wk((size_t)g.per, NAN), part((size_t)(4 * T), NAN);
    *bad = 0;
    host_block x{T, rev};
    for (int64_t b = 0; b < batch; b++) {
      std::fill(wk.begin(), wk.end(), NAN);
      tcs_matrix(x, &g, bytes.data() + b * m * n * esz, wk.data(), part.data(), bad,
                 U.data() + b * m * g.ucols * esz, S.data() + b * g.k * tcs_esz(g.sdt),
                 Vh.data() + b * g.vrows * n * esz);
    }
  };
  for (int T : THREADS) {
    std::vector<char> U, S, Vh;
    int bad = 0;
    emulate(T, 0, U, S, Vh, &bad);
    if (T > 1 && !poison) { /* the threads of a phase in the other order: the same bits */
      std::vector<char> U2, S2, Vh2;
      int bad2 = 0;
      emulate(T, 1, U2, S2, Vh2, &bad2);
      CHECK_MSG(U == U2 && S == S2 && Vh == Vh2 && bad == bad2, "%s T %d: depends on the threads' order", what, T);
      order_cases++;
    }
    if (poison) {
      CHECK_MSG(bad && sr == TABI_ERR_INVALID_ARGUMENT, "%s: non-finite: flag %d, reference status %d", what, bad,
                (int)sr);
      if (sr != TABI_OK) {
        tabi_call call = fake_call("prims::svd");
        CHECK(ref_linalg_svd_nonfinite(&FAKE, &call) == TABI_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strcmp(fake_msg, tabi_last_error()) == 0, "%s: message '%s', reference '%s'", what, fake_msg,
                  tabi_last_error());
      }
      bad_cases++;
      continue;
    }
    CHECK_MSG(!bad && sr == TABI_OK, "%s T %d: flag %d, reference status %d (%s)", what, T, bad, (int)sr,
              tabi_last_error());
    if (sr != TABI_OK) break;
    /* shapes and dtypes: the reference's */
    const tabi_tensor *ru = o[0].u.t, *rs = o[1].u.t, *rv = o[2].u.t;
    int shapes_ok = ru->dl.ndim == nd && rs->dl.ndim == nd - 1 && rv->dl.ndim == nd &&
                    tabi_tensor_dtype(ru) == dt && tabi_tensor_dtype(rv) == dt &&
                    (int)tabi_tensor_dtype(rs) == g.sdt;
    for (int32_t i = 0; shapes_ok && i < nb; i++)
      shapes_ok = ru->dl.shape[i] == bd[i] && rs->dl.shape[i] == bd[i] && rv->dl.shape[i] == bd[i];
    shapes_ok = shapes_ok && ru->dl.shape[nb] == m && ru->dl.shape[nb + 1] == g.ucols && rs->dl.shape[nb] == g.k &&
                rv->dl.shape[nb] == g.vrows && rv->dl.shape[nb + 1] == n;
    CHECK_MSG(shapes_ok, "%s: output shapes/dtypes differ from the reference's", what);
    if (!shapes_ok) break;
    const char *pu = (const char *)tabi_tensor_data(ru), *ps = (const char *)tabi_tensor_data(rs),
               *pv = (const char *)tabi_tensor_data(rv);
    if (T == 1) { /* the reference's order of every sum: its bits */
      int same = memcmp(U.data(), pu, (size_t)(nu * esz)) == 0 &&
                 memcmp(S.data(), ps, (size_t)(ns * tcs_esz(g.sdt))) == 0 &&
                 memcmp(Vh.data(), pv, (size_t)(nv * esz)) == 0;
      CHECK_MSG(same, "%s T 1: not the reference's bits", what);
      bit_cases++;
      checked_elems += nu + ns + nv;
    }
    double rt = rtol_of(dt), bound = bound_of(dt);
    for (int64_t b = 0; b < batch; b++) {
      double smax = 0;
      for (int64_t j = 0; j < g.k; j++) smax = fmax(smax, get(ps, (tabi_dtype)g.sdt, b * g.k + j).real());
      for (int64_t j = 0; j < g.k; j++) {
        double s = get(S.data(), (tabi_dtype)g.sdt, b * g.k + j).real(), r = get(ps, (tabi_dtype)g.sdt, b * g.k + j).real();
        CHECK_MSG(fabs(s - r) <= rt * smax, "%s T %d: batch %lld S[%lld] %.17g, reference %.17g", what, T,
                  (long long)b, (long long)j, s, r);
        CHECK_MSG(j == 0 || s <= get(S.data(), (tabi_dtype)g.sdt, b * g.k + j - 1).real(), "%s: S not descending", what);
      }
      checked_elems += g.k;
      const char *ab = bytes.data() + b * m * n * esz;
      double e[3], re[3];
      residuals(g, dt, ab, U.data() + b * m * g.ucols * esz, S.data() + b * g.k * tcs_esz(g.sdt),
                Vh.data() + b * g.vrows * n * esz, &e[0], &e[1], &e[2]);
      residuals(g, dt, ab, pu + b * m * g.ucols * esz, ps + b * g.k * tcs_esz(g.sdt), pv + b * g.vrows * n * esz,
                &re[0], &re[1], &re[2]);
      for (int r = 0; r < 3; r++) {
        static const char *const names[3] = {"|U S Vh - A|/|A|", "|U^H U - I|", "|Vh Vh^H - I|"};
        CHECK_MSG(e[r] <= bound, "%s T %d: batch %lld %s = %g (bound %g)", what, T, (long long)b, names[r], e[r], bound);
        CHECK_MSG(re[r] <= bound, "%s: the reference's %s = %g (bound %g)", what, names[r], re[r], bound);
      }
    }
    checked_cases++;
    if (nu + ns + nv == 0) empty_cases++;
  }
  for (int i = 0; i < 3; i++) tabi_value_release(&o[i]);
  tabi_tensor_release(A);
  if (base) tabi_tensor_release(base);
}

/* The argument checks: the reference's own function, here under a stand-in
 * host, must give what the reference runtime gives. */
static void error_cases() {
  const tabi_dtype dts[4] = {TABI_DTYPE_INT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_FLOAT32, TABI_DTYPE_BOOL};
  const int64_t s1[1] = {4}, s3[3] = {2, 3, 4};
  for (int d = 0; d < 4; d++)
    for (int shp = 0; shp < 2; shp++) {
      int32_t nd = shp ? 3 : 1;
      std::vector<char> z(256, 0);
      tabi_tensor *t = NULL;
      CHECK_OK(tabi_tensor_from_host(ref, CPU, dts[d], nd, shp ? s3 : s1, z.data(),
                                     (uint64_t)(numel_shape(nd, shp ? s3 : s1) * (dts[d] == TABI_DTYPE_INT64 ? 8 : dts[d] == TABI_DTYPE_FLOAT32 ? 4 : dts[d] == TABI_DTYPE_FLOAT16 ? 2 : 1)), &t));
      if (!t) continue;
      tabi_value o[3];
      tabi_status sr = ref_svd(t, 0, o);
      tabi_call call = fake_call("prims::svd");
      int64_t m = -1, n = -1, b = -1;
      tabi_status sc = ref_linalg_svd_check(&FAKE, &call, t, &m, &n, &b);
      CHECK_MSG(sc == sr, "svd check %s nd %d: status %d, reference %d", tabi_dtype_name(dts[d]), nd, (int)sc, (int)sr);
      if (sr != TABI_OK) {
        CHECK_MSG(strcmp(fake_msg, tabi_last_error()) == 0, "svd check: '%s' vs '%s'", fake_msg, tabi_last_error());
        bad_cases++;
      } else {
        CHECK(m == 3 && n == 4 && b == 2);
      }
      for (int i = 0; i < 3; i++) tabi_value_release(&o[i]);
      tabi_tensor_release(t);
    }
}

int main(int argc, char **argv) {
  rng = 0x5bd1e9955bd1e995ull;
  if (!host_open(argc, argv)) return host_exit();
  /* fixed shapes: square, tall, wide, vectors, empty, batch 0 */
  static const int64_t MN[][2] = {{1, 1}, {3, 3}, {5, 2}, {2, 5}, {6, 1}, {1, 6}, {0, 3}, {3, 0}, {0, 0}, {8, 8}};
  for (int d = 0; d < 4; d++)
    for (const auto &mn : MN)
      for (int full = 0; full < 2; full++)
        for (int kind = 0; kind < 4; kind++) {
          int64_t bd1[1] = {2};
          svd_case(DTS[d], kind == 0 ? 1 : 0, bd1, mn[0], mn[1], full, kind, (int)irand(0, 1), 0);
        }
  for (int d = 0; d < 4; d++) {
    int64_t b0[2] = {0, 3}, b1[2] = {2, 3};
    svd_case(DTS[d], 2, b0, 4, 3, 1, 0, 0, 0); /* batch 0 */
    svd_case(DTS[d], 2, b1, 4, 3, 1, 0, 1, 0); /* two batch dims, transposed */
  }
  /* random: shapes up to 24, batch dims, every kind, both layouts */
  for (int rep = 0; rep < 40; rep++) {
    tabi_dtype dt = DTS[rep % 4];
    int32_t nb = (int32_t)irand(0, 2);
    int64_t bd[2] = {irand(1, 2), irand(1, 2)};
    int64_t m = irand(1, rep < 36 ? 12 : 24), n = irand(1, rep < 36 ? 12 : 24);
    svd_case(dt, nb, bd, m, n, (int)irand(0, 1), (int)irand(0, 3), (int)irand(0, 1), 0);
  }
  /* larger: more rows than the widest emulated block has threads' worth of work */
  for (int d = 0; d < 4; d++) {
    svd_case(DTS[d], 0, NULL, 40, 17, 1, d, 1, 0);
    svd_case(DTS[d], 0, NULL, 13, 33, 1, 3 - d, 0, 0);
  }
  /* non-finite input */
  for (int d = 0; d < 4; d++) {
    int64_t bd[1] = {3};
    svd_case(DTS[d], 1, bd, 4, 3, 0, 0, (int)irand(0, 1), 1);
  }
  error_cases();
  printf("%lld cases x threads (%lld empty, %lld bit-exact at T=1, %lld the same in reverse thread order), "
         "%lld elements compared; %lld error cases\n",
         checked_cases, empty_cases, bit_cases, order_cases, checked_elems, bad_cases);
  return host_exit();
}
