/* tests/ref_shape/test_shape_create.c: creation ops, tensor -> Scalar ops and the
 * random ops (Philox convention, reproducibility, statistics). Expected values
 * from torch 1.13 (one-liner beside each). */
#include "shape_helpers.h"

#define TV(t) tabi_tensor_value(t)

static void test_full_fill(void) {
  tabi_status st;
  tabi_value o[1];
  /* torch.full((2,),1).dtype == int64; True -> bool; 1j -> complex64; 1.5 -> float32 */
  const tabi_value fills[4] = {tabi_int(1), tabi_bool(1), tabi_complex(0, 1), tabi_float(1.5)};
  const tabi_dtype want[4] = {TABI_DTYPE_INT64, TABI_DTYPE_BOOL, TABI_DTYPE_COMPLEX64, TABI_DTYPE_FLOAT32};
  for (int i = 0; i < 4; i++) {
    tabi_tensor *v = h_call1("aten::full", (tabi_value[]){IL(2), fills[i]}, 2, &st);
    CHECK_MSG(st == TABI_OK && v && tabi_tensor_dtype(v) == want[i], "full dtype case %d", i);
    t_free(v);
  }
  /* torch.full((2,),-1,dtype=torch.uint8) == [255,255]; 300 overflows; -1.0 overflows */
  tabi_tensor *v = h_call1("aten::full", (tabi_value[]){IL(2), tabi_int(-1), tabi_dtype_value(TABI_DTYPE_UINT8)}, 3, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 255, 255);
  t_free(v);
  CHECK_ERR(h_call("aten::full", (tabi_value[]){IL(2), tabi_int(300), tabi_dtype_value(TABI_DTYPE_UINT8)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "cannot be converted to type uint8");
  CHECK_ERR(h_call("aten::full", (tabi_value[]){IL(2), tabi_float(-1.0), tabi_dtype_value(TABI_DTYPE_UINT8)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "without overflow");
  /* torch.full((2,),65504.5,dtype=torch.float16) overflows; nan into int32 overflows */
  CHECK_ERR(h_call("aten::full", (tabi_value[]){IL(2), tabi_float(65504.5), tabi_dtype_value(TABI_DTYPE_FLOAT16)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "float16");
  CHECK_ERR(h_call("aten::full", (tabi_value[]){IL(2), tabi_float(NAN), tabi_dtype_value(TABI_DTYPE_INT32)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "int32");
  CHECK_ERR(h_call("aten::full", (tabi_value[]){IL(-2), tabi_int(1)}, 2, o, 1), TABI_ERR_INVALID_ARGUMENT,
            "negative dimension -2");
  v = h_call1("prims::full", (tabi_value[]){IL(3), tabi_float(2.5), tabi_dtype_value(TABI_DTYPE_FLOAT64),
                                           tabi_device_value(h_cpu()), tabi_bool(0)}, 5, &st);
  CHECK(st == TABI_OK && v && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT64);
  CHECK_VALS(v, 2.5, 2.5, 2.5);
  t_free(v);
  /* torch.ops.aten.fill(x.t(), 2).stride() == (1,3) */
  tabi_tensor *x = t_iota(2, SHP(2, 3));
  tabi_tensor *xt = h_call1("aten::permute", (tabi_value[]){TV(x), IL(1, 0)}, 2, NULL);
  v = h_call1("aten::fill.Scalar", (tabi_value[]){TV(xt), tabi_int(2)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)));
  CHECK_VALS(v, 2, 2, 2, 2, 2, 2);
  CHECK(t_get(x, 1) == 1.0); /* functional: the input is untouched */
  t_free(v);
  /* torch.ops.aten.fill(x.int(), 2.7) -> 2; -2.7 -> -2; fill(x.bool(), 1j) -> False; 0.1 -> True */
  tabi_tensor *xi = t_make(TABI_DTYPE_INT32, 1, SHP(2), NULL);
  v = h_call1("aten::fill.Scalar", (tabi_value[]){TV(xi), tabi_float(-2.7)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, -2, -2);
  t_free(v);
  tabi_tensor *xb = t_make(TABI_DTYPE_BOOL, 1, SHP(2), NULL);
  v = h_call1("prims::fill", (tabi_value[]){TV(xb), tabi_complex(0, 1)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 0, 0);
  t_free(v);
  v = h_call1("aten::fill.Scalar", (tabi_value[]){TV(xb), tabi_float(0.1)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 1, 1);
  t_free(v);
  CHECK_ERR(h_call("aten::fill.Scalar", (tabi_value[]){TV(xi), tabi_float(1e20)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "int32");
  /* torch.full_like(x.t(),1).stride() == (1,3); torch.full_like(x[:, ::2],1).stride() == (2,1) */
  v = h_call1("aten::full_like", (tabi_value[]){TV(xt), tabi_int(1)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)) && v && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT32);
  t_free(v);
  tabi_tensor *sl = h_call1("aten::slice.Tensor", (tabi_value[]){TV(x), tabi_int(1), tabi_none(), tabi_none(), tabi_int(2)}, 5, NULL);
  v = h_call1("aten::full_like", (tabi_value[]){TV(sl), tabi_int(1), tabi_dtype_value(TABI_DTYPE_INT16)}, 3, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(2, 1)) && v && tabi_tensor_dtype(v) == TABI_DTYPE_INT16);
  t_free(v);
  t_free(sl);
  t_free(xb);
  t_free(xi);
  t_free(xt);
  t_free(x);
}

static void test_empty_scalar_arange(void) {
  tabi_status st;
  tabi_value o[1];
  /* torch.empty((2,3,4,5), memory_format=torch.channels_last).stride() == (60,1,15,3) */
  tabi_value a6[6] = {IL(2, 3, 4, 5), tabi_none(), tabi_none(), tabi_none(), tabi_none(), tabi_int(2)};
  tabi_tensor *v = h_call1("aten::empty.memory_format", a6, 6, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(60, 1, 15, 3)) && v && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT32);
  t_free(v);
  a6[5] = tabi_int(1); /* preserve: "unsupported memory format Preserve" */
  CHECK_ERR(h_call("aten::empty.memory_format", a6, 6, o, 1), TABI_ERR_INVALID_ARGUMENT, "Preserve");
  CHECK_ERR(h_call("aten::empty.memory_format", (tabi_value[]){IL(-2, 3)}, 1, o, 1), TABI_ERR_INVALID_ARGUMENT,
            "negative dimension -2: [-2, 3]");
  v = h_call1("aten::empty_strided", (tabi_value[]){IL(2, 3), IL(0, 0)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(0, 0)));
  t_free(v);
  CHECK_ERR(h_call("aten::empty_strided", (tabi_value[]){IL(2, 3), IL(-1, 1)}, 2, o, 1), TABI_ERR_INVALID_ARGUMENT, "stride");
  v = h_call1("prims::empty", (tabi_value[]){IL(4), tabi_dtype_value(TABI_DTYPE_INT8), tabi_device_value(h_cpu()), tabi_bool(0)}, 4, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 1, SHP(4)) && tabi_tensor_dtype(v) == TABI_DTYPE_INT8);
  t_free(v);
  /* torch.scalar_tensor(1).dtype == float32; scalar_tensor(3.7, dtype=int32) == 3; 1e10 overflows */
  v = h_call1("aten::scalar_tensor", (tabi_value[]){tabi_int(1)}, 1, &st);
  CHECK(st == TABI_OK && v && v->dl.ndim == 0 && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT32);
  t_free(v);
  v = h_call1("aten::scalar_tensor", (tabi_value[]){tabi_float(3.7), tabi_dtype_value(TABI_DTYPE_INT32)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 3);
  t_free(v);
  CHECK_ERR(h_call("aten::scalar_tensor", (tabi_value[]){tabi_float(1e10), tabi_dtype_value(TABI_DTYPE_INT32)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "overflow");
  /* torch.arange(0,5.5,dtype=torch.int64) has 5 elements, int32 has 6 (size in double) */
  v = h_call1("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_float(5.5), tabi_int(1), tabi_dtype_value(TABI_DTYPE_INT64)}, 4, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 0, 1, 2, 3, 4);
  t_free(v);
  v = h_call1("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_float(5.5), tabi_int(1), tabi_dtype_value(TABI_DTYPE_INT32)}, 4, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 0, 1, 2, 3, 4, 5);
  t_free(v);
  /* torch.arange(0,5,1.5) == [0,1.5,3,4.5] float32; torch.arange(1,3).dtype == int64 */
  v = h_call1("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_int(5), tabi_float(1.5)}, 3, &st);
  CHECK(st == TABI_OK && v && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT32);
  CHECK_VALS(v, 0, 1.5, 3, 4.5);
  t_free(v);
  v = h_call1("aten::arange.start_step", (tabi_value[]){tabi_bool(1), tabi_int(3)}, 2, &st);
  CHECK(st == TABI_OK && v && tabi_tensor_dtype(v) == TABI_DTYPE_INT64);
  CHECK_VALS(v, 1, 2);
  t_free(v);
  /* torch.arange(-3,3,2,dtype=torch.uint8) == [253,255,1] */
  v = h_call1("aten::arange.start_step", (tabi_value[]){tabi_int(-3), tabi_int(3), tabi_int(2), tabi_dtype_value(TABI_DTYPE_UINT8)}, 4, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 253, 255, 1);
  t_free(v);
  /* torch.arange(0.1,0.35,0.05) has 5 elements */
  v = h_call1("aten::arange.start_step", (tabi_value[]){tabi_float(0.1), tabi_float(0.35), tabi_float(0.05)}, 3, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 1, SHP(5)));
  t_free(v);
  CHECK_ERR(h_call("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_int(5), tabi_int(0)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "step must be nonzero");
  CHECK_ERR(h_call("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_int(5), tabi_float(0.5), tabi_dtype_value(TABI_DTYPE_INT64)}, 4, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "step must be nonzero");
  CHECK_ERR(h_call("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_int(5), tabi_int(-1)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "inconsistent with step sign");
  CHECK_ERR(h_call("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_float(NAN)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "unsupported range");
  CHECK_ERR(h_call("aten::arange.start_step", (tabi_value[]){tabi_int(0), tabi_int(5), tabi_int(1), tabi_dtype_value(TABI_DTYPE_BOOL)}, 4, o, 1),
            TABI_ERR_TYPE, "bool");
}

static void test_item(void) {
  tabi_value o[1];
  /* torch.ones(1,1,dtype=torch.int8).item() == 1 (an int) */
  tabi_tensor *t = t_make(TABI_DTYPE_INT8, 2, SHP(1, 1), VALS(-7));
  CHECK_OK(h_call("aten::_local_scalar_dense", (tabi_value[]){TV(t)}, 1, o, 1));
  CHECK(o[0].tag == TABI_TAG_INT && o[0].u.i == -7);
  t_free(t);
  t = t_make(TABI_DTYPE_FLOAT16, 0, NULL, VALS(0.1));
  CHECK_OK(h_call("prims::item", (tabi_value[]){TV(t)}, 1, o, 1));
  CHECK(o[0].tag == TABI_TAG_FLOAT && o[0].u.f == (double)tabi_f16_to_f32(tabi_f32_to_f16(0.1f)));
  t_free(t);
  t = t_make(TABI_DTYPE_BOOL, 1, SHP(1), VALS(1));
  CHECK_OK(h_call("aten::_local_scalar_dense", (tabi_value[]){TV(t)}, 1, o, 1));
  CHECK(o[0].tag == TABI_TAG_BOOL && o[0].u.i == 1);
  t_free(t);
  t = t_make(TABI_DTYPE_COMPLEX128, 1, SHP(1), VALS(2));
  CHECK_OK(h_call("aten::_local_scalar_dense", (tabi_value[]){TV(t)}, 1, o, 1));
  CHECK(o[0].tag == TABI_TAG_COMPLEX && o[0].u.c[0] == 2.0);
  t_free(t);
  t = t_iota(1, SHP(2));
  CHECK_ERR(h_call("aten::_local_scalar_dense", (tabi_value[]){TV(t)}, 1, o, 1), TABI_ERR_INVALID_ARGUMENT,
            "a Tensor with 2 elements cannot be converted to Scalar");
  t_free(t);
  /* torch._prims.maximum_value: float16 65504.0, int64 2**63-1, bool True */
  CHECK_OK(h_call("prims::maximum_value", (tabi_value[]){tabi_dtype_value(TABI_DTYPE_FLOAT16)}, 1, o, 1));
  CHECK(o[0].tag == TABI_TAG_FLOAT && o[0].u.f == 65504.0);
  CHECK_OK(h_call("prims::maximum_value", (tabi_value[]){tabi_dtype_value(TABI_DTYPE_INT64)}, 1, o, 1));
  CHECK(o[0].tag == TABI_TAG_INT && o[0].u.i == INT64_MAX);
  CHECK_OK(h_call("prims::maximum_value", (tabi_value[]){tabi_dtype_value(TABI_DTYPE_BOOL)}, 1, o, 1));
  CHECK(o[0].tag == TABI_TAG_BOOL && o[0].u.i == 1);
}

/* --- random ------------------------------------------------------------------ */

static void seed(uint64_t s) { CHECK_OK(tabi_runtime_manual_seed(rt_, h_cpu(), s)); }

static tabi_tensor *rand_of(const char *op, int64_t n, tabi_dtype dt) {
  tabi_status st;
  tabi_tensor *v = h_call1(op, (tabi_value[]){tabi_int_list(&n, 1), tabi_dtype_value(dt)}, 2, &st);
  CHECK_OK(st);
  return v;
}

static void moments(const tabi_tensor *t, double *mean, double *var) {
  int64_t n = tabi_tensor_numel(t);
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; i++) s += t_get(t, i);
  *mean = s / (double)n;
  for (int64_t i = 0; i < n; i++) s2 += (t_get(t, i) - *mean) * (t_get(t, i) - *mean);
  *var = s2 / (double)(n - 1);
}

static void test_random(void) {
  const tabi_host_api *h = tabi_runtime_host(rt_);
  uint64_t ks = 0, ko = 0;
  /* the convention: element i draws counter offset + i */
  seed(1234);
  CHECK_OK(h->rng_reserve(h->ctx, h_cpu(), 8, &ks, &ko));
  seed(1234);
  tabi_tensor *a = rand_of("aten::rand", 8, TABI_DTYPE_FLOAT32);
  tabi_tensor *d = rand_of("aten::rand", 8, TABI_DTYPE_FLOAT64); /* counters offset+8.. */
  tabi_tensor *n = rand_of("aten::randn", 8, TABI_DTYPE_FLOAT32);
  for (int i = 0; a && d && n && i < 8; i++) {
    CHECK(t_get(a, i) == (double)tabi_philox_uniform_float(tabi_philox4x32(ks, ko + (uint64_t)i)));
    CHECK(t_get(d, i) == tabi_philox_uniform_double(tabi_philox4x32(ks, ko + 8 + (uint64_t)i)));
    CHECK(t_get(n, i) == (double)(float)tabi_philox_normal(tabi_philox4x32(ks, ko + 16 + (uint64_t)i)));
  }
  /* same seed, same numbers; the stream moves on otherwise */
  seed(1234);
  tabi_tensor *a2 = rand_of("aten::rand", 8, TABI_DTYPE_FLOAT32);
  tabi_tensor *a3 = rand_of("aten::rand", 8, TABI_DTYPE_FLOAT32);
  int same = 1, differ = 0;
  for (int i = 0; a && a2 && a3 && i < 8; i++) {
    same &= t_get(a, i) == t_get(a2, i);
    differ |= t_get(a, i) != t_get(a3, i);
  }
  CHECK(same && differ);
  t_free(a), t_free(a2), t_free(a3), t_free(d), t_free(n);
  /* statistics over 1e5 samples: U(0,1) mean 1/2 var 1/12; N(0,1) */
  double m, v;
  tabi_tensor *u = rand_of("aten::rand", 100000, TABI_DTYPE_FLOAT64);
  if (u) {
    moments(u, &m, &v);
    CHECK_MSG(fabs(m - 0.5) < 0.005 && fabs(v - 1.0 / 12) < 0.002, "rand mean %g var %g", m, v);
    double lo = 1, hi = 0;
    for (int64_t i = 0; i < 100000; i++) lo = fmin(lo, t_get(u, i)), hi = fmax(hi, t_get(u, i));
    CHECK(lo >= 0 && hi < 1);
  }
  t_free(u);
  tabi_tensor *g = rand_of("aten::randn", 100000, TABI_DTYPE_FLOAT32);
  if (g) {
    moments(g, &m, &v);
    CHECK_MSG(fabs(m) < 0.02 && fabs(sqrt(v) - 1) < 0.02, "randn mean %g std %g", m, sqrt(v));
  }
  t_free(g);
  /* complex randn: each part has variance 1/2 (torch.randn(10**5, dtype=torch.complex64).real.var() ~ 0.5) */
  tabi_tensor *c = rand_of("aten::randn", 100000, TABI_DTYPE_COMPLEX64);
  if (c) {
    double si = 0, si2 = 0;
    moments(c, &m, &v);
    for (int64_t i = 0; i < 100000; i++) si += t_get_im(c, i), si2 += t_get_im(c, i) * t_get_im(c, i);
    CHECK_MSG(fabs(m) < 0.02 && fabs(v - 0.5) < 0.02 && fabs(si / 1e5) < 0.02 && fabs(si2 / 1e5 - 0.5) < 0.02,
              "complex randn re var %g im var %g", v, si2 / 1e5);
  }
  t_free(c);
  tabi_tensor *bf = rand_of("aten::rand", 1000, TABI_DTYPE_BFLOAT16);
  CHECK(bf && tabi_tensor_dtype(bf) == TABI_DTYPE_BFLOAT16);
  /* uniform draws are exact in the dtype: never rounded up to 1.0 */
  int in_range = 1;
  for (int i = 0; bf && i < 1000; i++) in_range &= t_get(bf, i) >= 0 && t_get(bf, i) < 1;
  CHECK(in_range);
  t_free(bf);
  tabi_value o[1];
  int64_t three = 3;
  CHECK_ERR(h_call("aten::rand", (tabi_value[]){tabi_int_list(&three, 1), tabi_dtype_value(TABI_DTYPE_INT64)}, 2, o, 1),
            TABI_ERR_TYPE, "int64");
  /* prims::uniform(low=2, high=5), prims::normal(mean=3, std=2) */
  int64_t big = 100000;
  tabi_tensor *pu = h_call1("prims::uniform", (tabi_value[]){tabi_int_list(&big, 1), tabi_float(2), tabi_float(5),
                                                             tabi_dtype_value(TABI_DTYPE_FLOAT64), tabi_device_value(h_cpu())}, 5, NULL);
  if (pu) {
    moments(pu, &m, &v);
    CHECK_MSG(fabs(m - 3.5) < 0.02 && fabs(v - 0.75) < 0.02, "uniform mean %g var %g", m, v);
  }
  CHECK(pu != NULL);
  t_free(pu);
  CHECK_ERR(h_call("prims::uniform", (tabi_value[]){tabi_int_list(&three, 1), tabi_float(5), tabi_float(2),
                                                    tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(h_cpu())}, 5, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "from=5 > to=2");
  tabi_tensor *pn = h_call1("prims::normal", (tabi_value[]){tabi_int_list(&big, 1), tabi_float(3), tabi_float(2),
                                                            tabi_dtype_value(TABI_DTYPE_FLOAT64), tabi_device_value(h_cpu()), tabi_bool(0)}, 6, NULL);
  if (pn) {
    moments(pn, &m, &v);
    CHECK_MSG(fabs(m - 3) < 0.03 && fabs(sqrt(v) - 2) < 0.03, "normal mean %g std %g", m, sqrt(v));
  }
  CHECK(pn != NULL);
  t_free(pn);
  CHECK_ERR(h_call("prims::normal", (tabi_value[]){tabi_int_list(&three, 1), tabi_float(0), tabi_float(-1),
                                                   tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(h_cpu()), tabi_bool(0)}, 6, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "non-negative standard deviation");
}

static void test_randperm(void) {
  const tabi_host_api *h = tabi_runtime_host(rt_);
  tabi_status st;
  tabi_value o[1];
  uint64_t ks = 0, ko = 0;
  seed(7);
  CHECK_OK(h->rng_reserve(h->ctx, h_cpu(), 10, &ks, &ko));
  seed(7);
  tabi_tensor *p = h_call1("aten::randperm", (tabi_value[]){tabi_int(10)}, 1, &st);
  CHECK(st == TABI_OK && p && tabi_tensor_dtype(p) == TABI_DTYPE_INT64 && t_shape_is(p, 1, SHP(10)));
  /* the documented algorithm: Fisher-Yates from the last element, counter offset + i */
  int64_t want[10];
  for (int i = 0; i < 10; i++) want[i] = i;
  for (int i = 9; i >= 1; i--) {
    double uu = tabi_philox_uniform_double(tabi_philox4x32(ks, ko + (uint64_t)i));
    int64_t j = (int64_t)floor(uu * (i + 1));
    int64_t tmp = want[i];
    want[i] = want[j];
    want[j] = tmp;
  }
  for (int i = 0; p && i < 10; i++) CHECK(t_get(p, i) == (double)want[i]);
  t_free(p);
  /* a permutation of 0..n-1, in float32 too */
  tabi_tensor *q = h_call1("aten::randperm", (tabi_value[]){tabi_int(1000), tabi_dtype_value(TABI_DTYPE_FLOAT32)}, 2, &st);
  CHECK_OK(st);
  if (q) {
    static char seen[1000];
    int ok = 1, moved = 0;
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < 1000; i++) {
      double vv = t_get(q, i);
      if (vv < 0 || vv >= 1000 || vv != floor(vv) || seen[(int)vv]) ok = 0;
      else seen[(int)vv] = 1;
      moved += vv != i;
    }
    CHECK(ok && moved > 900);
  }
  t_free(q);
  q = h_call1("aten::randperm", (tabi_value[]){tabi_int(0)}, 1, &st);
  CHECK(st == TABI_OK && t_shape_is(q, 1, SHP(0)));
  t_free(q);
  /* torch.randperm(256,dtype=torch.uint8) ok; 257 overflows; randperm(2050, dtype=float16) fails */
  q = h_call1("aten::randperm", (tabi_value[]){tabi_int(256), tabi_dtype_value(TABI_DTYPE_UINT8)}, 2, &st);
  CHECK_OK(st);
  t_free(q);
  CHECK_ERR(h_call("aten::randperm", (tabi_value[]){tabi_int(257), tabi_dtype_value(TABI_DTYPE_UINT8)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "overflow");
  CHECK_ERR(h_call("aten::randperm", (tabi_value[]){tabi_int(2050), tabi_dtype_value(TABI_DTYPE_FLOAT16)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "2049");
  CHECK_ERR(h_call("aten::randperm", (tabi_value[]){tabi_int(-1)}, 1, o, 1), TABI_ERR_INVALID_ARGUMENT, "non-negative");
  CHECK_ERR(h_call("aten::randperm", (tabi_value[]){tabi_int(3), tabi_dtype_value(TABI_DTYPE_BOOL)}, 2, o, 1),
            TABI_ERR_TYPE, "bool");
}

int main(void) {
  h_setup();
  test_full_fill();
  test_empty_scalar_arange();
  test_item();
  test_random();
  test_randperm();
  h_teardown();
  return check_report();
}
