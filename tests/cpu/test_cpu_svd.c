/* tests/cpu/test_cpu_svd.c: the CPU plugin's prims::svd (LAPACK where built
 * in) against the reference's Jacobi. The factors are unique up to a sign
 * (phase) per singular vector, so the check is: S equal within tolerance,
 * |U| and |Vh| equal elementwise (the completion of full_matrices follows the
 * reference's rule, so it agrees too), and U diag(S) Vh == A. Real and complex,
 * single and double, tall, wide, square, batched, transposed views, rank
 * deficient (the completion path), and non-finite input (the reference's
 * error, same status).
 *
 * usage: test_cpu_svd CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>

#include "cpu_harness.h"

static double complex elem(const tabi_tensor *t, int64_t i) {
  const char *p = tabi_tensor_data(t);
  switch (tabi_dtype_from_dl(t->dl.dtype)) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_COMPLEX64: return CMPLX(((const float *)p)[2 * i], ((const float *)p)[2 * i + 1]);
    default: return CMPLX(((const double *)p)[2 * i], ((const double *)p)[2 * i + 1]);
  }
}

static int64_t numel(const tabi_tensor *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->dl.ndim; i++) n *= t->dl.shape[i];
  return n;
}

/* |a| vs |b| elementwise (moduli for complex), tolerance of dtype dt widened by scale. */
static int same_abs(const char *what, const tabi_tensor *a, const tabi_tensor *b, tabi_dtype dt, double scale) {
  if (numel(a) != numel(b)) {
    fprintf(stderr, "%s: sizes differ\n", what);
    return 0;
  }
  double rtol, atol;
  tol(dt, &rtol, &atol);
  for (int64_t i = 0; i < numel(a); i++) {
    double x = cabs(elem(a, i)), y = cabs(elem(b, i));
    if (fabs(x - y) > scale * (atol + rtol * y)) {
      fprintf(stderr, "%s: element %lld: |fast| %.9g, |reference| %.9g\n", what, (long long)i, x, y);
      return 0;
    }
  }
  return 1;
}

/* max |U diag(S) Vh - A| over the batch, relative to max |A|. */
static double recon_error(const tabi_tensor *A, const tabi_tensor *U, const tabi_tensor *S, const tabi_tensor *Vh) {
  int32_t nd = A->dl.ndim;
  int64_t m = A->dl.shape[nd - 2], n = A->dl.shape[nd - 1], k = S->dl.shape[nd - 2];
  int64_t uc = U->dl.shape[nd - 1], vr = Vh->dl.shape[nd - 2], batch = numel(A) / (m * n);
  double worst = 0, big = 0;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex acc = 0;
        for (int64_t q = 0; q < k; q++)
          acc += elem(U, b * m * uc + i * uc + q) * creal(elem(S, b * k + q)) * elem(Vh, b * vr * n + q * n + j);
        /* A may be a view: walk its strides */
        int64_t off = i * A->dl.strides[nd - 2] + j * A->dl.strides[nd - 1], r = b;
        for (int32_t d = nd - 3; d >= 0; d--) {
          off += (r % A->dl.shape[d]) * A->dl.strides[d];
          r /= A->dl.shape[d];
        }
        double complex a = elem(A, off);
        worst = fmax(worst, cabs(acc - a));
        big = fmax(big, cabs(a));
      }
  return big > 0 ? worst / big : worst;
}

typedef struct svd_case {
  const char *name;
  int32_t nd;
  int64_t shape[4];
  int full, transpose, rank_cut; /* rank_cut: zero columns from there on (rank deficient) */
} svd_case;

static const svd_case cases[] = {
    {"tall 200x120", 2, {200, 120}, 0, 0, 0},
    {"wide 70x150 full", 2, {70, 150}, 1, 0, 0},
    {"tall 90x40 full", 2, {90, 40}, 1, 0, 0},
    {"square 64x64", 2, {64, 64}, 0, 0, 0},
    {"batched 6x2x9x5", 4, {6, 2, 9, 5}, 1, 0, 0},
    {"batched transposed 16x7x11", 3, {16, 7, 11}, 0, 1, 0},
    {"rank 3 of 12x8", 2, {12, 8}, 0, 0, 3},
    {"rank 2 of 6x10 full", 2, {6, 10}, 1, 0, 2},
    {"1x1", 2, {1, 1}, 1, 0, 0},
};

static const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64,
                                  TABI_DTYPE_COMPLEX128};

/* The input: random (complex: real and imaginary parts random), the columns
 * from rank_cut on set to zero; a transposed view when asked. */
static tabi_tensor *make_a(tabi_runtime *rt, const svd_case *c, tabi_dtype dt, uint64_t seed) {
  rng_state = seed;
  int64_t shape[4];
  int32_t nd = c->nd;
  for (int32_t i = 0; i < nd; i++) shape[i] = c->shape[i];
  if (c->transpose) { int64_t t = shape[nd - 1]; shape[nd - 1] = shape[nd - 2]; shape[nd - 2] = t; }
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, nd, shape, &t) != TABI_OK) return NULL;
  int64_t n = numel(t), cols = shape[nd - 1];
  int cplx = tabi_dtype_is_complex(dt);
  for (int64_t i = 0; i < n; i++) {
    double re = rnd(), im = cplx ? rnd() : 0;
    if (c->rank_cut && i % cols >= c->rank_cut) re = im = 0;
    char *p = tabi_tensor_data(t);
    switch (dt) {
      case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)re; break;
      case TABI_DTYPE_FLOAT64: ((double *)p)[i] = re; break;
      case TABI_DTYPE_COMPLEX64: ((float *)p)[2 * i] = (float)re; ((float *)p)[2 * i + 1] = (float)im; break;
      default: ((double *)p)[2 * i] = re; ((double *)p)[2 * i + 1] = im; break;
    }
  }
  if (!c->transpose) return t;
  int64_t vs[4], vst[4];
  for (int32_t i = 0; i < nd; i++) { vs[i] = shape[i]; vst[i] = t->dl.strides[i]; }
  int64_t x = vs[nd - 1]; vs[nd - 1] = vs[nd - 2]; vs[nd - 2] = x;
  x = vst[nd - 1]; vst[nd - 1] = vst[nd - 2]; vst[nd - 2] = x;
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, nd, vs, vst, 0, &v);
  tabi_tensor_release(t);
  return v;
}

static tabi_status svd(tabi_runtime *rt, tabi_tensor *A, int full, tabi_value *outs) {
  tabi_op op;
  tabi_status st = tabi_op_find(rt, "prims::svd", &op);
  tabi_value args[2] = {tabi_tensor_value(A), tabi_bool(full)};
  for (int i = 0; i < 3; i++) outs[i] = tabi_none();
  return st == TABI_OK ? tabi_call(rt, op, args, 2, outs, 3) : st;
}

static void svd_cases(tabi_runtime *f, tabi_runtime *r) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int d = 0; d < 4; d++) {
      const svd_case *c = &cases[i];
      tabi_dtype dt = dts[d];
      char what[128];
      snprintf(what, sizeof what, "svd %s %s", c->name, tabi_dtype_name(dt));
      tabi_tensor *af = make_a(f, c, dt, 11 + i), *ar = make_a(r, c, dt, 11 + i);
      CHECK_MSG(af && ar, "%s: input", what);
      if (!af || !ar) continue;
      tabi_value o[3], q[3];
      tabi_status sf = svd(f, af, c->full, o), sr = svd(r, ar, c->full, q);
      CHECK_MSG(sf == TABI_OK && sr == TABI_OK, "%s: status %d/%d (%s)", what, (int)sf, (int)sr, tabi_last_error());
      if (sf == TABI_OK && sr == TABI_OK) {
        int single = dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_COMPLEX64;
        tabi_dtype real = single ? TABI_DTYPE_FLOAT32 : TABI_DTYPE_FLOAT64;
        /* S to a few roundings of the sums; vectors to what their conditioning allows */
        CHECK_MSG(same_abs(what, o[1].u.t, q[1].u.t, real, 20), "%s: S", what);
        CHECK_MSG(same_abs(what, o[0].u.t, q[0].u.t, dt, single ? 50 : 1e4), "%s: |U|", what);
        CHECK_MSG(same_abs(what, o[2].u.t, q[2].u.t, dt, single ? 50 : 1e4), "%s: |Vh|", what);
        double e = recon_error(af, o[0].u.t, o[1].u.t, o[2].u.t);
        CHECK_MSG(e < (single ? 1e-5 : 1e-12), "%s: |U S Vh - A| / |A| = %g", what, e);
        for (int32_t a = 0; a < 2; a++)
          CHECK_MSG(o[0].u.t->dl.shape[a + c->nd - 2] == q[0].u.t->dl.shape[a + c->nd - 2] &&
                        o[2].u.t->dl.shape[a + c->nd - 2] == q[2].u.t->dl.shape[a + c->nd - 2],
                    "%s: factor shapes", what);
      }
      for (int k = 0; k < 3; k++) { tabi_value_release(&o[k]); tabi_value_release(&q[k]); }
      tabi_tensor_release(af);
      tabi_tensor_release(ar);
    }
}

/* NaN in the input: the reference's error, with its status. */
static void nonfinite(tabi_runtime *f, tabi_runtime *r) {
  for (int d = 0; d < 4; d++) {
    tabi_tensor *a = make_a(f, &cases[3], dts[d], 5), *b = make_a(r, &cases[3], dts[d], 5);
    if (!a || !b) { CHECK(0); continue; }
    if (dts[d] == TABI_DTYPE_FLOAT32 || dts[d] == TABI_DTYPE_COMPLEX64) {
      ((float *)tabi_tensor_data(a))[77] = NAN;
      ((float *)tabi_tensor_data(b))[77] = NAN;
    } else {
      ((double *)tabi_tensor_data(a))[77] = INFINITY;
      ((double *)tabi_tensor_data(b))[77] = INFINITY;
    }
    tabi_value o[3], q[3];
    tabi_status sf = svd(f, a, 0, o), sr = svd(r, b, 0, q);
    CHECK_MSG(sf == TABI_ERR_INVALID_ARGUMENT && sf == sr, "non-finite %s: status %d, reference %d",
              tabi_dtype_name(dts[d]), (int)sf, (int)sr);
    for (int k = 0; k < 3; k++) { tabi_value_release(&o[k]); tabi_value_release(&q[k]); }
    tabi_tensor_release(a);
    tabi_tensor_release(b);
  }
}

int main(int argc, char **argv) {
  static const harness_cases_fn all[] = {svd_cases, nonfinite, NULL};
  return harness_main(argc, argv, all, NULL);
}
