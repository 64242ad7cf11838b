/* tests/ref_nn/test_nn_linalg_fft.c: mm/bmm/addmm, cdist/pdist, svd and the FFTs
 * of the reference plugin. Expected values are torch 1.13's (one-liner beside
 * each; A = torch.ops.aten). */
#include <complex.h>

#include "nn_helpers.h"

static void test_mm(void) {
  tabi_status st;
  tabi_tensor *a = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), NULL);
  double bv[12];
  for (int i = 0; i < 12; i++) bv[i] = i - 5;
  tabi_tensor *b = t_make(TABI_DTYPE_FLOAT32, 2, SHP(3, 4), bv);
  /* torch.mm(torch.arange(6.).reshape(2,3), torch.arange(12.).reshape(3,4)-5) */
  tabi_tensor *r = h_call1("aten::mm", (tabi_value[]){TV(a), TV(b)}, 2, NULL);
  CHECK(t_shape_is(r, 2, SHP(2, 4)) && tabi_tensor_dtype(r) == TABI_DTYPE_FLOAT32);
  CHECK_CLOSE(r, 0, 5, 8, 11, 14, -4, 8, 20, 32);
  t_free(r);
  /* the same on non-contiguous (strided) inputs */
  tabi_tensor *an = t_noncontig(a), *bn = t_noncontig(b);
  r = h_call1("aten::mm", (tabi_value[]){TV(an), TV(bn)}, 2, NULL);
  CHECK_CLOSE(r, 0, 5, 8, 11, 14, -4, 8, 20, 32);
  t_free(r);
  /* torch.addmm(torch.tensor([1.,-1,2,0]), a, b, beta=0.5, alpha=2): self broadcasts */
  tabi_tensor *s = t_make(TABI_DTYPE_FLOAT32, 1, SHP(4), (const double[]){1, -1, 2, 0});
  r = h_call1("aten::addmm", (tabi_value[]){TV(s), TV(a), TV(b), tabi_float(0.5), tabi_int(2)}, 5, NULL);
  CHECK_CLOSE(r, 0, 10.5, 15.5, 23, 28, -7.5, 15.5, 41, 64);
  t_free(r);
  /* beta=0 ignores NaN in self: torch.addmm(torch.full((2,2),nan), ones(2,3), ones(3,2), beta=0) == 3 */
  tabi_tensor *nan = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 2), (const double[]){NAN, NAN, NAN, NAN});
  tabi_tensor *o23 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), (const double[]){1, 1, 1, 1, 1, 1});
  tabi_tensor *o32 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(3, 2), (const double[]){1, 1, 1, 1, 1, 1});
  r = h_call1("aten::addmm", (tabi_value[]){TV(nan), TV(o23), TV(o32), tabi_int(0)}, 4, NULL);
  CHECK_CLOSE(r, 0, 3, 3, 3, 3);
  t_free(r);
  /* ...but beta=1 propagates it */
  r = h_call1("aten::addmm", (tabi_value[]){TV(nan), TV(o23), TV(o32)}, 3, NULL);
  CHECK(r && isnan(t_get(r, 0)));
  t_free(r);
  /* beta in float: a 1e-310 beta is 0 for float32, so NaN in self is not read:
     torch.addmm(torch.full((2,2),nan), ones(2,3), ones(3,2), beta=1e-310) == 3; float64 reads it:
     torch.addmm(torch.full((2,2),nan,dtype=float64), ..., beta=1e-310) is nan */
  r = h_call1("aten::addmm", (tabi_value[]){TV(nan), TV(o23), TV(o32), tabi_float(1e-310)}, 4, NULL);
  CHECK_CLOSE(r, 0, 3, 3, 3, 3);
  t_free(r);
  {
    tabi_tensor *dn = t_make(TABI_DTYPE_FLOAT64, 2, SHP(2, 2), (const double[]){NAN, NAN, NAN, NAN});
    tabi_tensor *d23 = t_make(TABI_DTYPE_FLOAT64, 2, SHP(2, 3), (const double[]){1, 1, 1, 1, 1, 1});
    tabi_tensor *d32 = t_make(TABI_DTYPE_FLOAT64, 2, SHP(3, 2), (const double[]){1, 1, 1, 1, 1, 1});
    r = h_call1("aten::addmm", (tabi_value[]){TV(dn), TV(d23), TV(d32), tabi_float(1e-310)}, 4, NULL);
    CHECK(r && isnan(t_get(r, 0)));
    t_free(r);
    /* an empty inner dim tests the Scalar, then scales self by float beta (inf * 0):
       torch.addmm(tensor([[inf,1.],[2.,3.]]), empty(2,0), empty(0,2), beta=1e-310) == [[nan,0],[0,0]] */
    tabi_tensor *si = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 2), (const double[]){INFINITY, 1, 2, 3});
    tabi_tensor *x20 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 0), NULL), *x02 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(0, 2), NULL);
    r = h_call1("aten::addmm", (tabi_value[]){TV(si), TV(x20), TV(x02), tabi_float(1e-310)}, 4, NULL);
    CHECK(r && isnan(t_get(r, 0)) && t_get(r, 1) == 0 && t_get(r, 3) == 0);
    t_free(r);
    /* alpha in float: torch.addmm(tensor([[-1.]]), tensor([[1.]]), tensor([[16777218.]]),
       alpha=1+2**-30) == 16777216 (alpha is 1 in float: 16777217, a tie, to even); with alpha
       in double the sum is past the tie and rounds to 16777218 */
    tabi_tensor *c8 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(1, 1), (const double[]){-1});
    tabi_tensor *one = t_make(TABI_DTYPE_FLOAT32, 2, SHP(1, 1), (const double[]){1});
    tabi_tensor *three = t_make(TABI_DTYPE_FLOAT32, 2, SHP(1, 1), (const double[]){16777218});
    r = h_call1("aten::addmm", (tabi_value[]){TV(c8), TV(one), TV(three), tabi_int(1), tabi_float(1 + 0x1p-30)},
                5, NULL);
    CHECK(r && t_get(r, 0) == 16777216);
    t_free(r);
    tabi_tensor *more[] = {dn, d23, d32, si, x20, x02, c8, one, three};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) t_free(more[i]);
  }
  /* errors: torch.mm(ones(2,3), ones(4,5)) -> "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)" */
  tabi_tensor *m45 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(4, 5), NULL);
  tabi_value o[1];
  CHECK_ERR(h_call("aten::mm", (tabi_value[]){TV(o23), TV(m45)}, 2, o, 1), TABI_ERR_SHAPE,
            "aten::mm: self and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  /* torch.mm(ones(2,3), ones(3,5,dtype=float64)) -> expected scalar type Float but found Double */
  tabi_tensor *d35 = t_make(TABI_DTYPE_FLOAT64, 2, SHP(3, 5), NULL);
  CHECK_ERR(h_call("aten::mm", (tabi_value[]){TV(o23), TV(d35)}, 2, o, 1), TABI_ERR_TYPE, "mat2");
  /* torch.mm(ones(2,3,3), ...) -> self must be a matrix */
  tabi_tensor *a3 = t_make(TABI_DTYPE_FLOAT32, 3, SHP(2, 3, 3), NULL);
  CHECK_ERR(h_call("aten::mm", (tabi_value[]){TV(a3), TV(o32)}, 2, o, 1), TABI_ERR_SHAPE, "'self' must be a 2D");
  /* addmm self that does not expand: torch.addmm(ones(3), ones(2,3), ones(3,2)) fails */
  tabi_tensor *s3 = t_make(TABI_DTYPE_FLOAT32, 1, SHP(3), NULL);
  CHECK_ERR(h_call("aten::addmm", (tabi_value[]){TV(s3), TV(o23), TV(o32)}, 3, o, 1), TABI_ERR_SHAPE, "'self'");
  /* bool is refused: torch.mm(ones(2,2,dtype=bool), ...) -> not implemented for 'Bool' */
  tabi_tensor *bb = t_make(TABI_DTYPE_BOOL, 2, SHP(2, 2), NULL);
  CHECK_ERR(h_call("aten::mm", (tabi_value[]){TV(bb), TV(bb)}, 2, o, 1), TABI_ERR_TYPE, "aten::mm");
  /* integers wrap like int64: torch.mm(t:=torch.tensor([[100,-7],[3,2]]), t) == [9979,-714,306,-17] */
  tabi_tensor *ai = t_make(TABI_DTYPE_INT64, 2, SHP(2, 2), (const double[]){100, -7, 3, 2});
  r = h_call1("aten::mm", (tabi_value[]){TV(ai), TV(ai)}, 2, NULL);
  CHECK(r && tabi_tensor_dtype(r) == TABI_DTYPE_INT64);
  CHECK_CLOSE(r, 0, 9979, -714, 306, -17);
  t_free(r);
  /* int addmm truncates a float beta: torch.addmm(ones(2,2,long), ones(2,3,long), ones(3,2,long), beta=1.5) == 4 */
  tabi_tensor *l22 = t_make(TABI_DTYPE_INT64, 2, SHP(2, 2), (const double[]){1, 1, 1, 1});
  tabi_tensor *l23 = t_make(TABI_DTYPE_INT64, 2, SHP(2, 3), (const double[]){1, 1, 1, 1, 1, 1});
  tabi_tensor *l32 = t_make(TABI_DTYPE_INT64, 2, SHP(3, 2), (const double[]){1, 1, 1, 1, 1, 1});
  r = h_call1("aten::addmm", (tabi_value[]){TV(l22), TV(l23), TV(l32), tabi_float(1.5)}, 4, NULL);
  CHECK_CLOSE(r, 0, 4, 4, 4, 4);
  t_free(r);
  /* complex: torch.mm(tensor([[1+2j,3-1j]]), tensor([[2-1j],[1j]])) == 5+6j */
  tabi_tensor *c = t_make(TABI_DTYPE_COMPLEX64, 2, SHP(1, 2), (const double[]){1, 2, 3, -1});
  tabi_tensor *d = t_make(TABI_DTYPE_COMPLEX64, 2, SHP(2, 1), (const double[]){2, -1, 0, 1});
  r = h_call1("aten::mm", (tabi_value[]){TV(c), TV(d)}, 2, NULL);
  CHECK(r && t_get(r, 0) == 5 && t_at(r, 0, 1) == 6);
  t_free(r);
  /* bmm: torch.bmm(arange(12.).reshape(2,2,3), arange(12.).reshape(2,3,2)) */
  tabi_tensor *b1 = t_make(TABI_DTYPE_FLOAT64, 3, SHP(2, 2, 3), NULL), *b2 = t_make(TABI_DTYPE_FLOAT64, 3, SHP(2, 3, 2), NULL);
  r = h_call1("aten::bmm", (tabi_value[]){TV(b1), TV(b2)}, 2, NULL);
  CHECK(t_shape_is(r, 3, SHP(2, 2, 2)));
  CHECK_CLOSE(r, 0, 10, 13, 28, 40, 172, 193, 244, 274);
  t_free(r);
  CHECK_ERR(h_call("aten::bmm", (tabi_value[]){TV(b1), TV(b1)}, 2, o, 1), TABI_ERR_SHAPE, "cannot be multiplied");
  /* empty inner dim: torch.mm(ones(2,0), ones(0,3)) == zeros(2,3) */
  tabi_tensor *e20 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 0), NULL), *e03 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(0, 3), NULL);
  r = h_call1("aten::mm", (tabi_value[]){TV(e20), TV(e03)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(r, 2, SHP(2, 3)));
  CHECK_CLOSE(r, 0, 0, 0, 0, 0, 0, 0);
  t_free(r);
  tabi_tensor *all[] = {a, b, an, bn, s, nan, o23, o32, m45, d35, a3, s3, bb, ai, l22, l23, l32, c, d, b1, b2, e20, e03};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

static void test_dist(void) {
  tabi_tensor *x = t_make(TABI_DTYPE_FLOAT32, 2, SHP(3, 2), (const double[]){0, 0, 1, 1, 3, 0});
  tabi_tensor *y = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 2), (const double[]){1, 2, 0, 0});
  /* A._cdist_forward(x, y, 3.0, None).flatten() */
  tabi_tensor *r = h_call1("aten::_cdist_forward", (tabi_value[]){TV(x), TV(y), tabi_float(3), tabi_none()}, 4, NULL);
  CHECK(t_shape_is(r, 2, SHP(3, 2)));
  CHECK_CLOSE(r, 1e-6, 2.0800838470458984, 0.0, 1.0, 1.2599210739135742, 2.5198421478271484, 3.0);
  t_free(r);
  /* p = 0 counts differing coordinates, p = inf takes the largest: A._cdist_forward(x, y[:1], p, None) */
  tabi_tensor *y1 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(1, 2), (const double[]){1, 2});
  r = h_call1("aten::_cdist_forward", (tabi_value[]){TV(x), TV(y1), tabi_float(0), tabi_none()}, 4, NULL);
  CHECK_CLOSE(r, 0, 2, 1, 2);
  t_free(r);
  r = h_call1("aten::_cdist_forward", (tabi_value[]){TV(x), TV(y1), tabi_float(INFINITY), tabi_none()}, 4, NULL);
  CHECK_CLOSE(r, 0, 2, 1, 2);
  t_free(r);
  /* A._pdist_forward(x, 1.0) == [2, 3, 3]; p=2 == [1.41421, 3, 2.23607] */
  r = h_call1("aten::_pdist_forward", (tabi_value[]){TV(x), tabi_float(1)}, 2, NULL);
  CHECK_CLOSE(r, 0, 2, 3, 3);
  t_free(r);
  r = h_call1("aten::_pdist_forward", (tabi_value[]){TV(x), tabi_float(2)}, 2, NULL);
  CHECK_CLOSE(r, 1e-6, 1.4142135381698608, 3.0, 2.2360680103302);
  t_free(r);
  tabi_value o[1];
  /* cdist only supports non-negative p values; X1 and X2 must have the same number of columns */
  CHECK_ERR(h_call("aten::_cdist_forward", (tabi_value[]){TV(x), TV(y), tabi_float(-1), tabi_none()}, 4, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "non-negative");
  tabi_tensor *z = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), NULL);
  CHECK_ERR(h_call("aten::_cdist_forward", (tabi_value[]){TV(x), TV(z), tabi_float(2), tabi_none()}, 4, o, 1),
            TABI_ERR_SHAPE, "columns");
  /* batched broadcast: A._cdist_forward(randn(1,5,3), randn(2,1,4,3), 2., None).shape == (2,1,5,4) */
  tabi_tensor *p = t_make(TABI_DTYPE_FLOAT64, 3, SHP(1, 5, 3), NULL), *q = t_make(TABI_DTYPE_FLOAT64, 4, SHP(2, 1, 4, 3), NULL);
  r = h_call1("aten::_cdist_forward", (tabi_value[]){TV(p), TV(q), tabi_float(2), tabi_none()}, 4, NULL);
  CHECK(t_shape_is(r, 4, SHP(2, 1, 5, 4)));
  t_free(r);
  /* int input refused: cdist only supports floating-point dtypes */
  tabi_tensor *xi = t_make(TABI_DTYPE_INT64, 2, SHP(3, 2), NULL);
  CHECK_ERR(h_call("aten::_cdist_forward", (tabi_value[]){TV(xi), TV(xi), tabi_float(2), tabi_none()}, 4, o, 1),
            TABI_ERR_TYPE, "x1");
  tabi_tensor *all[] = {x, y, y1, z, p, q, xi};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

/* U diag(S) Vh == A, U^H U == I, Vh Vh^H == I, S sorted and >= 0. */
static void check_svd(tabi_dtype dt, int64_t m, int64_t n, int full, const double *vals) {
  tabi_tensor *a = t_make(dt, 2, (const int64_t[]){m, n}, vals);
  tabi_value o[3];
  CHECK_OK(h_call("prims::svd", (tabi_value[]){TV(a), tabi_bool(full)}, 2, o, 3));
  int64_t k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
  tabi_tensor *U = o[0].u.t, *S = o[1].u.t, *V = o[2].u.t;
  CHECK(t_shape_is(U, 2, (const int64_t[]){m, uc}) && t_shape_is(S, 1, &k) && t_shape_is(V, 2, (const int64_t[]){vr, n}));
  int cp = tabi_dtype_is_complex(dt);
  double err = 0;
#define EL(t, i) (t_at((t), (i), 0) + I * (cp ? t_at((t), (i), 1) : 0))
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double _Complex s = 0;
      for (int64_t l = 0; l < k; l++) s += EL(U, i * uc + l) * t_get(S, l) * EL(V, l * n + j);
      err = fmax(err, cabs(s - EL(a, i * n + j)));
    }
  CHECK_MSG(err < 1e-9, "svd %lldx%lld reconstruction error %g", (long long)m, (long long)n, err);
  double orth = 0;
  for (int64_t p = 0; p < uc; p++)
    for (int64_t q = 0; q < uc; q++) {
      double _Complex s = 0;
      for (int64_t i = 0; i < m; i++) s += conj(EL(U, i * uc + p)) * EL(U, i * uc + q);
      orth = fmax(orth, cabs(s - (p == q)));
    }
  for (int64_t p = 0; p < vr; p++)
    for (int64_t q = 0; q < vr; q++) {
      double _Complex s = 0;
      for (int64_t j = 0; j < n; j++) s += EL(V, p * n + j) * conj(EL(V, q * n + j));
      orth = fmax(orth, cabs(s - (p == q)));
    }
#undef EL
  CHECK_MSG(orth < 1e-9, "svd %lldx%lld orthogonality error %g", (long long)m, (long long)n, orth);
  for (int64_t l = 0; l < k; l++) CHECK(t_get(S, l) >= 0 && (l == 0 || t_get(S, l) <= t_get(S, l - 1)));
  outs_free(o, 3);
  t_free(a);
}

static void test_svd(void) {
  double v[24];
  for (int i = 0; i < 24; i++) v[i] = sin(1.3 * i + 0.2) * 3;
  check_svd(TABI_DTYPE_FLOAT64, 4, 3, 1, v);
  check_svd(TABI_DTYPE_FLOAT64, 4, 3, 0, v);
  check_svd(TABI_DTYPE_FLOAT64, 2, 5, 1, v);
  check_svd(TABI_DTYPE_FLOAT64, 2, 5, 0, v);
  check_svd(TABI_DTYPE_COMPLEX128, 3, 2, 1, v);
  check_svd(TABI_DTYPE_COMPLEX128, 2, 3, 0, v);
  /* rank-deficient: the completion of U must still be orthonormal */
  check_svd(TABI_DTYPE_FLOAT64, 3, 3, 1, (const double[]){1, 2, 3, 2, 4, 6, 1, 1, 1});
  check_svd(TABI_DTYPE_FLOAT64, 3, 2, 1, (const double[]){0, 0, 0, 0, 0, 0});
  /* torch.linalg.svd(diag([1,3,2])).S == [3,2,1] */
  tabi_tensor *a = t_make(TABI_DTYPE_FLOAT64, 2, SHP(3, 3), (const double[]){1, 0, 0, 0, 3, 0, 0, 0, 2});
  tabi_value o[3];
  CHECK_OK(h_call("prims::svd", (tabi_value[]){TV(a), tabi_bool(0)}, 2, o, 3));
  CHECK_CLOSE(o[1].u.t, 1e-12, 3, 2, 1);
  outs_free(o, 3);
  t_free(a);
  /* torch.linalg.svd(torch.zeros(3,0)).U == eye(3) */
  tabi_tensor *e = t_make(TABI_DTYPE_FLOAT32, 2, SHP(3, 0), NULL);
  CHECK_OK(h_call("prims::svd", (tabi_value[]){TV(e), tabi_bool(1)}, 2, o, 3));
  CHECK(t_shape_is(o[0].u.t, 2, SHP(3, 3)) && t_shape_is(o[2].u.t, 2, SHP(0, 0)));
  CHECK_CLOSE(o[0].u.t, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1);
  outs_free(o, 3);
  t_free(e);
  /* non-finite input: linalg.svd ... contained non-finite values */
  tabi_tensor *nf = t_make(TABI_DTYPE_FLOAT64, 2, SHP(2, 2), (const double[]){1, NAN, 0, 1});
  CHECK_ERR(h_call("prims::svd", (tabi_value[]){TV(nf), tabi_bool(0)}, 2, o, 3), TABI_ERR_INVALID_ARGUMENT, "non-finite");
  t_free(nf);
  tabi_tensor *hf = t_make(TABI_DTYPE_FLOAT16, 2, SHP(2, 2), NULL);
  CHECK_ERR(h_call("prims::svd", (tabi_value[]){TV(hf), tabi_bool(0)}, 2, o, 3), TABI_ERR_TYPE, "prims::svd");
  t_free(hf);
}

static void test_fft(void) {
  tabi_tensor *x = t_make(TABI_DTYPE_FLOAT64, 1, SHP(5), (const double[]){1, 2, 0, -1, 3});
  /* A._fft_r2c(tensor([1.,2,0,-1,3], dtype=float64), [0], 0, True) */
  tabi_tensor *r = h_call1("aten::_fft_r2c", (tabi_value[]){TV(x), IL(0), tabi_int(0), tabi_bool(1)}, 4, NULL);
  CHECK(t_shape_is(r, 1, SHP(3)) && tabi_tensor_dtype(r) == TABI_DTYPE_COMPLEX128);
  CHECK_CLOSE(r, 1e-12, 5.0, 3.3541019662496847, -3.3541019662496847);
  CHECK(r && fabs(t_at(r, 1, 1) - 0.3632712640026804) < 1e-12 && fabs(t_at(r, 2, 1) - 1.5388417685876266) < 1e-12);
  /* inverse with normalization 2 (1/n) gives x back: A._fft_c2r(X, [0], 2, 5) */
  tabi_tensor *back = h_call1("aten::_fft_c2r", (tabi_value[]){TV(r), IL(0), tabi_int(2), tabi_int(5)}, 4, NULL);
  CHECK(back && tabi_tensor_dtype(back) == TABI_DTYPE_FLOAT64);
  CHECK_CLOSE(back, 1e-12, 1, 2, 0, -1, 3);
  t_free(back);
  t_free(r);
  /* ortho: A._fft_r2c(x, [0], 1, True)[1] == 1.5+0.16245984811645314j */
  r = h_call1("aten::_fft_r2c", (tabi_value[]){TV(x), IL(0), tabi_int(1), tabi_bool(1)}, 4, NULL);
  CHECK(r && fabs(t_get(r, 1) - 1.5) < 1e-12 && fabs(t_at(r, 1, 1) - 0.16245984811645314) < 1e-12);
  t_free(r);
  /* 2-D, two-sided: A._fft_r2c(arange(6.).reshape(2,3), [0,1], 0, False) real parts */
  tabi_tensor *x2 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), NULL);
  r = h_call1("aten::_fft_r2c", (tabi_value[]){TV(x2), IL(0, 1), tabi_int(0), tabi_bool(0)}, 4, NULL);
  CHECK(t_shape_is(r, 2, SHP(2, 3)) && tabi_tensor_dtype(r) == TABI_DTYPE_COMPLEX64);
  CHECK_CLOSE(r, 1e-6, 15, -3, -3, -9, 0, 0);
  CHECK(r && fabs(t_at(r, 1, 1) - 1.7320508) < 1e-5 && fabs(t_at(r, 2, 1) + 1.7320508) < 1e-5);
  t_free(r);
  /* c2r ignores the imaginary part of element 0 (and n/2): A._fft_c2r(tensor([1+1j,2-1j,3+2j]), [0], 0, 4) == [8,0,0,-4] */
  tabi_tensor *h = t_make(TABI_DTYPE_COMPLEX64, 1, SHP(3), (const double[]){1, 1, 2, -1, 3, 2});
  r = h_call1("aten::_fft_c2r", (tabi_value[]){TV(h), IL(0), tabi_int(0), tabi_int(4)}, 4, NULL);
  CHECK(t_shape_is(r, 1, SHP(4)) && tabi_tensor_dtype(r) == TABI_DTYPE_FLOAT32);
  CHECK_CLOSE(r, 1e-6, 8, 0, 0, -4);
  t_free(r);
  /* prims::fft_c2c backward is unnormalized: torch.ops.prims.fft_c2c(c, dim=[0], forward=False) */
  tabi_tensor *c = t_make(TABI_DTYPE_COMPLEX128, 1, SHP(4), (const double[]){1, 2, 0.5, -1, 2, 0, -1, 1});
  r = h_call1("prims::fft_c2c", (tabi_value[]){TV(c), IL(0), tabi_bool(0)}, 3, NULL);
  CHECK_CLOSE(r, 1e-12, 2.5, 1.0, 3.5, -3.0);
  CHECK(r && fabs(t_at(r, 1, 1) - 3.5) < 1e-12 && fabs(t_at(r, 3, 1) - 0.5) < 1e-12);
  t_free(r);
  tabi_value o[1];
  /* half FFTs are CUDA-only in ATen: refused on the CPU */
  tabi_tensor *hx = t_make(TABI_DTYPE_FLOAT16, 1, SHP(4), NULL);
  CHECK_ERR(h_call("aten::_fft_r2c", (tabi_value[]){TV(hx), IL(0), tabi_int(0), tabi_bool(1)}, 4, o, 1),
            TABI_ERR_TYPE, "aten::_fft_r2c");
  /* r2c of a complex input: Expected self.is_floating_point() */
  CHECK_ERR(h_call("aten::_fft_r2c", (tabi_value[]){TV(c), IL(0), tabi_int(0), tabi_bool(1)}, 4, o, 1),
            TABI_ERR_TYPE, "self");
  /* duplicate dims: "dims must be unique" in torch */
  CHECK_ERR(h_call("aten::_fft_r2c", (tabi_value[]){TV(x2), IL(1, -1), tabi_int(0), tabi_bool(1)}, 4, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "twice");
  CHECK_ERR(h_call("aten::_fft_r2c", (tabi_value[]){TV(x2), IL(2), tabi_int(0), tabi_bool(1)}, 4, o, 1),
            TABI_ERR_INDEX, "dim");
  /* empty batch: A._fft_r2c(torch.randn(0,4), [1], 0, True).shape == (0, 3) */
  tabi_tensor *e = t_make(TABI_DTYPE_FLOAT32, 2, SHP(0, 4), NULL);
  r = h_call1("aten::_fft_r2c", (tabi_value[]){TV(e), IL(1), tabi_int(0), tabi_bool(1)}, 4, NULL);
  CHECK(t_shape_is(r, 2, SHP(0, 3)));
  t_free(r);
  tabi_tensor *all[] = {x, x2, h, c, hx, e};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) t_free(all[i]);
}

int main(void) {
  nn_setup();
  if (!nn_rt) return check_report();
  test_mm();
  test_dist();
  test_svd();
  test_fft();
  tabi_runtime_destroy(nn_rt);
  return check_report();
}
