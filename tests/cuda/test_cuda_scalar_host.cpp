/* tests/cuda/test_cuda_scalar_host.cpp: the scalar math the GPU plugins take
 * from the reference's headers (reference/ref_special_impl.h through
 * tc_special.cuh, ref_floordiv.h, ref_cast.h), compiled as C++ the way the
 * device code includes them, run on the host and compared bit for bit with the
 * reference plugin's kernels (prims special functions, aten::div floor mode,
 * prims::convert_element_type). The reference is C with its own lgamma_r and
 * static locals: this catches a construct that means something else in the
 * C++/device reading of the shared text. */
#include "host_stub.h"

/* the device functions, as host C++ (no GPU here): `static __device__` -> static */
#define __device__
#define __forceinline__ inline
namespace dev {
#include "tc_special.cuh"
#define REF_FLOORDIV_FN static __device__ __forceinline__
#include "../../reference/ref_floordiv.h"
#define REF_CAST_FN static __device__ __forceinline__
#include "../../reference/ref_cast.h"
}  // namespace dev

static long long compared;

/* A float64 (or dt) 1-d CPU tensor of n elements from `v` (converted by dt). */
static tabi_tensor *tensor_of(tabi_dtype dt, const std::vector<char> &bytes, int64_t n) {
  tabi_tensor *t = NULL;
  CHECK_OK(tabi_tensor_from_host(ref, CPU, dt, 1, &n, bytes.data(), (uint64_t)bytes.size(), &t));
  return t;
}
static std::vector<char> doubles(const std::vector<double> &v) {
  std::vector<char> b(v.size() * 8);
  memcpy(b.data(), v.data(), b.size());
  return b;
}
static int same_bits(double a, double b) { return (std::isnan(a) && std::isnan(b)) || !memcmp(&a, &b, 8); }

/* inputs: specials, integers (poles), small, moderate and large magnitudes */
static double input(int i) {
  switch (i % 7) {
    case 0: return special_or_random(i / 7);
    case 1: return (double)irand(-20, 20);
    case 2: return urand() * 60 - 30;
    case 3: return urand() * 600;
    case 4: return urand() * 2 - 1;
    case 5: return urand() * 1e-4;
    default: return (urand() - 0.5) * 1e6;
  }
}

typedef double (*un_fn)(double);
typedef double (*bin_fn)(double, double);

static void unary(const char *op, un_fn f, int n) {
  std::vector<double> x(n);
  for (int i = 0; i < n; i++) x[i] = input(i);
  tabi_tensor *t = tensor_of(TABI_DTYPE_FLOAT64, doubles(x), n);
  tabi_value a[1] = {tabi_tensor_value(t)};
  tabi_value r = call_ref(op, a, 1);
  const double *y = (const double *)tabi_tensor_data(r.u.t);
  int bad = 0;
  for (int i = 0; i < n; i++, compared++)
    if (!same_bits(f(x[i]), y[i]) && bad++ < 5)
      CHECK_MSG(0, "%s(%a): device form %a, reference %a", op, x[i], f(x[i]), y[i]);
  CHECK_MSG(bad == 0, "%s: %d of %d differ", op, bad, n);
  tabi_value_release(&r);
  tabi_tensor_release(t);
}

static void binary(const char *op, bin_fn f, int n, int nonneg) {
  std::vector<double> x(n), q(n);
  for (int i = 0; i < n; i++) {
    x[i] = input(i);
    q[i] = input(i * 3 + 1);
    if (nonneg) { x[i] = fabs(x[i]); q[i] = fabs(q[i]); }
    /* Hurwitz zeta sums |q| terms for a negative non-integer q: keep q small */
    if (!nonneg && !(fabs(q[i]) < 1e4)) q[i] = urand() * 20 - 10;
  }
  tabi_tensor *ta = tensor_of(TABI_DTYPE_FLOAT64, doubles(x), n);
  tabi_tensor *tb = tensor_of(TABI_DTYPE_FLOAT64, doubles(q), n);
  tabi_value a[2] = {tabi_tensor_value(ta), tabi_tensor_value(tb)};
  tabi_value r = call_ref(op, a, 2);
  const double *y = (const double *)tabi_tensor_data(r.u.t);
  int bad = 0;
  for (int i = 0; i < n; i++, compared++)
    if (!same_bits(f(x[i], q[i]), y[i]) && bad++ < 5)
      CHECK_MSG(0, "%s(%a, %a): device form %a, reference %a", op, x[i], q[i], f(x[i], q[i]), y[i]);
  CHECK_MSG(bad == 0, "%s: %d of %d differ", op, bad, n);
  tabi_value_release(&r);
  tabi_tensor_release(ta);
  tabi_tensor_release(tb);
}

/* aten::div(a, b, rounding_mode="floor") in float64 and float32 */
static void floordiv(tabi_dtype dt, int n) {
  int esz = dt == TABI_DTYPE_FLOAT64 ? 8 : 4;
  std::vector<char> ba((size_t)n * esz), bb((size_t)n * esz);
  for (int i = 0; i < n; i++) {
    double a = input(i), b = i % 11 == 5 ? 0.0 : input(i * 5 + 2);
    if (esz == 8) { memcpy(&ba[i * 8], &a, 8); memcpy(&bb[i * 8], &b, 8); }
    else { float fa = (float)a, fb = (float)b; memcpy(&ba[i * 4], &fa, 4); memcpy(&bb[i * 4], &fb, 4); }
  }
  tabi_tensor *ta = tensor_of(dt, ba, n), *tb = tensor_of(dt, bb, n);
  tabi_value a[3] = {tabi_tensor_value(ta), tabi_tensor_value(tb), tabi_string("floor", 5)};
  tabi_value r = call_ref("aten::div.Tensor_mode", a, 3);
  const char *y = (const char *)tabi_tensor_data(r.u.t);
  int bad = 0;
  for (int i = 0; i < n; i++, compared++) {
    double got, want;
    if (esz == 8) {
      double xa, xb;
      memcpy(&xa, &ba[i * 8], 8); memcpy(&xb, &bb[i * 8], 8); memcpy(&want, y + i * 8, 8);
      got = dev::ref_floordiv_f64(xa, xb);
    } else {
      float xa, xb, w;
      memcpy(&xa, &ba[i * 4], 4); memcpy(&xb, &bb[i * 4], 4); memcpy(&w, y + i * 4, 4);
      got = dev::ref_floordiv_f32(xa, xb);
      want = w;
    }
    if (!same_bits(got, want) && bad++ < 5) CHECK_MSG(0, "floor div %d: %a vs %a", i, got, want);
  }
  CHECK_MSG(bad == 0, "floor div dtype %d: %d of %d differ", (int)dt, bad, n);
  tabi_value_release(&r);
  tabi_tensor_release(ta);
  tabi_tensor_release(tb);
}

/* prims::convert_element_type between the real dtypes: the device form is
 * tc_ew's (load in the source's category, store to the target) */
static int dt_size(tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: case TABI_DTYPE_INT8: return 1;
    case TABI_DTYPE_INT16: case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: return 2;
    case TABI_DTYPE_INT32: case TABI_DTYPE_FLOAT32: return 4;
    default: return 8;
  }
}
static int is_float(tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16 || dt == TABI_DTYPE_FLOAT32 ||
         dt == TABI_DTYPE_FLOAT64;
}
static void convert(tabi_dtype from, tabi_dtype to, int n) {
  int es = dt_size(from), ed = dt_size(to);
  std::vector<char> src((size_t)n * es);
  for (int i = 0; i < n; i++) {
    double v = i % 4 == 0 ? input(i) : i % 4 == 1 ? (double)irand(-70000, 70000)
               : i % 4 == 2 ? (urand() - 0.5) * 2e19 : (urand() - 0.5) * 1e10;
    if (from == TABI_DTYPE_INT64 && i % 4 == 2) { /* beyond 2^53: one rounding to float32 */
      int64_t w = (int64_t)(rng >> 1) * (i % 8 == 2 ? 1 : -1);
      urand();
      memcpy(&src[i * 8], &w, 8);
      continue;
    }
    if (is_float(from)) dev::ref_cast_st_f(&src[i * es], from, v);
    else dev::ref_cast_st_i(&src[i * es], from, (int64_t)fmod(v, 1e15));
  }
  tabi_tensor *t = tensor_of(from, src, n);
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(to)};
  tabi_value r = call_ref("prims::convert_element_type", a, 2);
  const char *y = (const char *)tabi_tensor_data(r.u.t);
  int bad = 0;
  for (int i = 0; i < n; i++, compared++) {
    alignas(16) char got[16] = {0}; /* room for a complex store: the compiler sees every case */
    if (is_float(from)) dev::ref_cast_st_f(got, to, dev::ref_cast_ld_f(&src[i * es], from));
    else dev::ref_cast_st_i(got, to, dev::ref_cast_ld_i(&src[i * es], from));
    if (memcmp(got, y + i * ed, (size_t)ed) && bad++ < 5)
      CHECK_MSG(0, "convert %s -> %s element %d differs", tabi_dtype_name(from), tabi_dtype_name(to), i);
  }
  CHECK_MSG(bad == 0, "convert %s -> %s: %d of %d differ", tabi_dtype_name(from), tabi_dtype_name(to), bad, n);
  tabi_value_release(&r);
  tabi_tensor_release(t);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s libtabi_reference.so\n", argv[0]);
    return 2;
  }
  rng = 0x51afd7ed558ccd01ull;
  CHECK_OK(tabi_runtime_create(NULL, &ref));
  CHECK_OK(tabi_runtime_load_plugin(ref, argv[1], NULL));
  if (check_failed_) return check_report();
  const int n = 20000;
  unary("prims::digamma", dev::ref_sf_digamma, n);
  unary("prims::erf_inv", dev::ref_sf_erfinv, n);
  unary("prims::bessel_i0", dev::ref_sf_i0, n);
  unary("prims::bessel_i0e", dev::ref_sf_i0e, n);
  unary("prims::bessel_i1", dev::ref_sf_i1, n);
  unary("prims::bessel_i1e", dev::ref_sf_i1e, n);
  unary("prims::bessel_j0", dev::ref_sf_j0, n);
  unary("prims::bessel_j1", dev::ref_sf_j1, n);
  unary("prims::spherical_bessel_j0", dev::ref_sf_spherical_j0, n);
  binary("prims::zeta", dev::ref_sf_zeta, n, 0);
  binary("prims::igamma", dev::ref_sf_igamma, n, 1);
  binary("prims::igammac", dev::ref_sf_igammac, n, 1);
  floordiv(TABI_DTYPE_FLOAT64, n);
  floordiv(TABI_DTYPE_FLOAT32, n);
  const tabi_dtype dts[10] = {TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,    TABI_DTYPE_INT8,    TABI_DTYPE_INT16,
                              TABI_DTYPE_INT32,   TABI_DTYPE_INT64,    TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                              TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64};
  for (int f = 0; f < 10; f++)
    for (int t = 0; t < 10; t++) convert(dts[f], dts[t], 2000);
  printf("%lld elements compared\n", compared);
  tabi_runtime_destroy(ref);
  return check_report();
}
