/* tests/cuda/test_cuda_ops_vec.c: the elementwise engine's vector kernels
 * (plugins/cuda/tc_ew_vec.cu: contiguous float32, float16 and bfloat16, four
 * elements a load, one loop per op, in float where that gives the same number
 * as the reference's double) on the values where a shortcut would show:
 * signed zeros, infinities, NaN, subnormals of each dtype, ties of float16's
 * and bfloat16's rounding, float16's overflow edge (65504, 65520). Each case
 * has 4k + 3 elements, so the last three take the scalar tail. The exact ops
 * must give the reference's values exactly (-0.0 apart from 0.0, any NaN for
 * a NaN); the transcendental ones (in double, but gelu's erf form in float)
 * within the dtype's tolerance. Alongside, the launches the float path must turn away (alpha 2,
 * a Scalar that is no value of the dtype, a slope of 0.1) against the same
 * reference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

#define N 43 /* 4 * 10 + 3 */

static const double special[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 2.5, -2.5, 3.0, 1e-3, -7.25, 65504.0, 65520.0, -65520.0, 1e5, -3e38,
    INFINITY, -INFINITY, NAN, -NAN, 5.960464477539063e-08 /* 2^-24, float16's least */, 2.98e-08,
    6.103515625e-05 /* float16's least normal */, 1e-40 /* a float32 subnormal */, 1.00048828125 /* 1 + 2^-11 */,
    1.00146484375 /* 1 + 3 * 2^-11 */, 1.00390625 /* 1 + 2^-8 */, 0.1, 1.0 / 3.0, -0.75, 255.5, -8.5,
    1.1754943508222875e-38 /* float32's least normal */, 3.4028234663852886e38, 0.25};

static void fill(double *h, int salt) {
  int ns = (int)(sizeof special / sizeof special[0]);
  for (int i = 0; i < N; i++) h[i] = i < ns ? special[(i + salt) % ns] : 4 * urand() - 2;
}

/* g and r hold the same values: equal as float64 and of the same sign (so
 * -0.0 is not 0.0), or both NaN. */
static void same_values(const char *what, tabi_tensor *g, tabi_tensor *r) {
  if (!g || !r) return;
  CHECK_MSG(tabi_tensor_dtype(g) == tabi_tensor_dtype(r) && tabi_tensor_numel(g) == tabi_tensor_numel(r),
            "%s: dtype or size differs from the reference's", what);
  if (tabi_tensor_numel(g) != tabi_tensor_numel(r) || tabi_tensor_numel(g) > N) return;
  tabi_tensor *gh = NULL, *rh = NULL;
  convert_pair(g, r, TABI_DTYPE_FLOAT64, &gh, &rh);
  double x[N], y[N];
  int64_t n = tabi_tensor_numel(g);
  CHECK_OK(tabi_tensor_to_host(gpu, gh, x, (uint64_t)n * 8));
  CHECK_OK(tabi_tensor_to_host(ref, rh, y, (uint64_t)n * 8));
  int bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (!(isnan(x[i]) && isnan(y[i])) && !(x[i] == y[i] && signbit(x[i]) == signbit(y[i]))) bad = (int)i;
  CHECK_MSG(bad < 0, "%s: element %d is %.17g, the reference's %.17g", what, bad, bad < 0 ? 0 : x[bad],
            bad < 0 ? 0 : y[bad]);
  tabi_tensor_release(gh);
  tabi_tensor_release(rh);
}

/* name(x, extra...) (or name(x, y, extra...) when two, y of dtype dy) on both runtimes:
 * exact (tol < 0) or within tol relative; run: x and y of one dtype. */
static void run2(const char *what, const char *name, tabi_dtype dt, tabi_dtype dy, int two, const tabi_value *extra,
                 int ne, double tol, int salt) {
  int64_t shape[1] = {N};
  double h[N], h2[N];
  fill(h, salt);
  fill(h2, salt + 7);
  tabi_tensor *gx, *rx, *gy = NULL, *ry = NULL;
  both_tensor(dt, 1, shape, h, &gx, &rx);
  if (two) both_tensor(dy, 1, shape, h2, &gy, &ry);
  tabi_value ga[6], ra[6];
  int na = 0;
  ga[na] = tabi_tensor_value(gx);
  ra[na++] = tabi_tensor_value(rx);
  if (two) {
    ga[na] = tabi_tensor_value(gy);
    ra[na++] = tabi_tensor_value(ry);
  }
  for (int k = 0; k < ne; k++, na++) ga[na] = ra[na] = extra[k];
  tabi_tensor *g = call_tensor(gpu, name, ga, na), *r = call_tensor(ref, name, ra, na);
  char msg[160];
  if (dy == dt) snprintf(msg, sizeof msg, "%s %s", what, tabi_dtype_name(dt));
  else snprintf(msg, sizeof msg, "%s %s, %s", what, tabi_dtype_name(dt), tabi_dtype_name(dy));
  if (tol < 0) same_values(msg, g, r);
  else if (g && r) same_tensor(msg, g, r, tol, 1e-5);
  tabi_tensor_release(g);
  tabi_tensor_release(r);
  tabi_tensor_release(gx);
  tabi_tensor_release(rx);
  tabi_tensor_release(gy);
  tabi_tensor_release(ry);
}

static void run(const char *what, const char *name, tabi_dtype dt, int two, const tabi_value *extra, int ne,
                double tol, int salt) {
  run2(what, name, dt, dt, two, extra, ne, tol, salt);
}

/* gelu's erf form, computed in float, over [-14, 14] densely: within the
 * dtype's tolerance of the reference's double everywhere, the far negative
 * side (erfc of up to 10) included. */
static void gelu_sweep(tabi_dtype dt, double rtol) {
  enum { M = 4099 };
  int64_t shape[1] = {M};
  double *h = malloc(M * sizeof *h);
  for (int i = 0; i < M; i++) h[i] = -14.0 + 28.0 * i / (M - 1);
  tabi_tensor *gx, *rx;
  both_tensor(dt, 1, shape, h, &gx, &rx);
  free(h);
  tabi_value ga[2] = {tabi_tensor_value(gx), tabi_string("none", 4)}, ra[2] = {tabi_tensor_value(rx), ga[1]};
  tabi_tensor *g = call_tensor(gpu, "aten::gelu", ga, 2), *r = call_tensor(ref, "aten::gelu", ra, 2);
  char msg[64];
  snprintf(msg, sizeof msg, "gelu sweep %s", tabi_dtype_name(dt));
  if (g && r) same_tensor(msg, g, r, rtol, 1e-5);
  tabi_tensor_release(g);
  tabi_tensor_release(r);
  tabi_tensor_release(gx);
  tabi_tensor_release(rx);
}

/* Every float16 and bfloat16 bit pattern (65536 of them, then 3 more for
 * the scalar tail), or for float32 65536 patterns scattered over the 2^32
 * with the NaNs' edges (quiet and signalling, both signs, smallest and
 * largest payload), through the unary ops whose vector step may work on
 * bits (relu, neg and abs: tc_vec_sign_bits), and the conversions
 * between the three dtypes: the reference's bits
 * exactly, NaN payloads and their quiet bit included, but for a
 * signalling NaN's quiet bit (snan_quiet_bit; same_values lets any NaN
 * stand for a NaN). The H200 of 2026-11-30 gave 0x7fff for every
 * float16 NaN through neg's float step: the device's float negation
 * returns the canonical NaN. */
static uint32_t bits_pattern(int i, size_t sz) {
  static const uint32_t f32_edges[] = {0x7f800001u, 0x7fbfffffu, 0x7fc00000u, 0x7fffffffu, 0xff800001u,
                                       0xffbfffffu, 0xffc00001u, 0xffffffffu, 0x7f800000u, 0xff800000u,
                                       0x80000000u, 0x00000000u, 0x80000001u, 0x00000001u};
  enum { NE = sizeof f32_edges / sizeof f32_edges[0] };
  if (sz == 2) return (uint16_t)(i * 40503u); /* every pattern, scattered over the vectors */
  return i < NE ? f32_edges[i] : (uint32_t)i * 2654435761u;
}
/* The output's quiet bit where the input (dtype dt) is a signalling NaN,
 * else 0: whether a signalling NaN comes back quiet is left to the plugin.
 * IEEE 754 makes negate and abs bit operations that keep it signalling (the
 * CPU plugin does, as torch on the CPU), while the reference, through
 * double, quiets it. Its payload and sign are still compared. */
static uint32_t snan_quiet_bit(const unsigned char *p, tabi_dtype dt, tabi_dtype to) {
  uint32_t v = 0, mag, inf, quiet;
  memcpy(&v, p, tabi_dtype_size(dt));
  if (dt == TABI_DTYPE_FLOAT32) mag = v & 0x7fffffffu, inf = 0x7f800000u, quiet = 0x400000u;
  else if (dt == TABI_DTYPE_FLOAT16) mag = v & 0x7fffu, inf = 0x7c00u, quiet = 0x200u;
  else mag = v & 0x7fffu, inf = 0x7f80u, quiet = 0x40u;
  if (mag <= inf || (v & quiet)) return 0;
  return to == TABI_DTYPE_FLOAT32 ? 0x400000u : to == TABI_DTYPE_FLOAT16 ? 0x200u : 0x40u;
}
static void all_bits(const char *name, tabi_dtype dt, tabi_dtype to) {
  enum { M = 65536 + 3 };
  size_t sz = tabi_dtype_size(dt), osz = tabi_dtype_size(to);
  int64_t shape[1] = {M};
  unsigned char *h = malloc(M * sz), *gb = malloc(M * osz), *rb = malloc(M * osz);
  for (int i = 0; i < M; i++) {
    uint32_t v = bits_pattern(i, sz);
    if (sz == 2) {
      uint16_t v16 = (uint16_t)v;
      memcpy(h + i * sz, &v16, 2);
    } else {
      memcpy(h + i * sz, &v, 4);
    }
  }
  tabi_tensor *gx = NULL, *rx = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, dt, 1, shape, h, M * sz, &gx));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, dt, 1, shape, h, M * sz, &rx));
  /* a conversion (to != dt) takes the dtype as its second argument */
  int na = to == dt ? 1 : 2;
  tabi_value ga[2] = {tabi_tensor_value(gx), tabi_dtype_value(to)}, ra[2] = {tabi_tensor_value(rx), tabi_dtype_value(to)};
  tabi_tensor *g = call_tensor(gpu, name, ga, na), *r = call_tensor(ref, name, ra, na);
  if (g && r) {
    CHECK_OK(tabi_tensor_to_host(gpu, g, gb, M * osz));
    CHECK_OK(tabi_tensor_to_host(ref, r, rb, M * osz));
    int bad = -1, nbad = 0;
    for (int i = 0; i < M; i++) {
      uint32_t gv = 0, rv = 0, q = snan_quiet_bit(h + i * sz, dt, to);
      memcpy(&gv, gb + i * osz, osz);
      memcpy(&rv, rb + i * osz, osz);
      if ((gv & ~q) != (rv & ~q) && nbad++ == 0) bad = i;
    }
    uint32_t hx = 0, gx_ = 0, rx_ = 0;
    if (bad >= 0) {
      memcpy(&hx, h + bad * sz, sz); /* little-endian: the low bytes */
      memcpy(&gx_, gb + bad * osz, osz);
      memcpy(&rx_, rb + bad * osz, osz);
    }
    CHECK_MSG(nbad == 0, "%s %s to %s on every bit pattern: %d differ; 0x%0*x gives 0x%0*x, the reference 0x%0*x",
              name, tabi_dtype_name(dt), tabi_dtype_name(to), nbad, (int)sz * 2, hx, (int)osz * 2, gx_,
              (int)osz * 2, rx_);
  }
  tabi_tensor_release(g);
  tabi_tensor_release(r);
  tabi_tensor_release(gx);
  tabi_tensor_release(rx);
  free(h);
  free(gb);
  free(rb);
}

void vec_cases(void) {
  const tabi_dtype dts[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double mtol[3] = {1.3e-6, 1e-3, 1.6e-2}; /* shared/spec/tolerances.md */
  const char *un[] = {"aten::relu",  "aten::neg",   "aten::abs",  "aten::sqrt",  "aten::reciprocal",
                      "aten::floor", "aten::ceil",  "aten::round", "aten::trunc", "aten::sign"};
  const char *bin[] = {"aten::sub.Tensor", "aten::mul.Tensor", "aten::div.Tensor", "aten::maximum",
                       "aten::minimum"};
  for (int d = 0; d < 3; d++) {
    tabi_dtype dt = dts[d];
    for (size_t k = 0; k < sizeof un / sizeof un[0]; k++)
      for (int salt = 0; salt < 3; salt++) run(un[k], un[k], dt, 0, NULL, 0, -1, salt);
    for (size_t k = 0; k < sizeof bin / sizeof bin[0]; k++)
      for (int salt = 0; salt < 3; salt++) run(bin[k], bin[k], dt, 1, NULL, 0, -1, salt);
    tabi_value one = tabi_int(1), two = tabi_int(2);
    run("add alpha 1", "aten::add.Tensor", dt, 1, &one, 1, -1, 0);
    run("add alpha 2 (double)", "aten::add.Tensor", dt, 1, &two, 1, -1, 1);
    tabi_value s25[2] = {tabi_float(2.5), tabi_int(1)}, s01[2] = {tabi_float(0.1), tabi_int(1)};
    run("mul.Scalar 2.5", "aten::mul.Scalar", dt, 0, s25, 1, -1, 2);
    run("mul.Scalar 0.1", "aten::mul.Scalar", dt, 0, s01, 1, -1, 3);
    run("add.Scalar 2.5", "aten::add.Scalar", dt, 0, s25, 2, -1, 4);
    run("add.Scalar 0.1 alpha 1", "aten::add.Scalar", dt, 0, s01, 2, -1, 5);
    /* float32 and a Scalar that is a float32 value: tc_f32_binary<1> */
    tabi_value sm3[2] = {tabi_float(-3.0), tabi_int(1)}, s0[1] = {tabi_float(0.0)}, si[1] = {tabi_float(INFINITY)};
    run("sub.Scalar -3", "aten::sub.Scalar", dt, 0, sm3, 2, -1, 6);
    run("div.Scalar 2.5", "aten::div.Scalar", dt, 0, s25, 1, -1, 7);
    run("div.Scalar 0", "aten::div.Scalar", dt, 0, s0, 1, -1, 8);
    run("mul.Scalar inf", "aten::mul.Scalar", dt, 0, si, 1, -1, 9);
    tabi_value cl[2] = {tabi_float(-0.5), tabi_float(0.75)}, cl2[2] = {tabi_float(0.1), tabi_none()};
    run("clamp -0.5 0.75", "aten::clamp", dt, 0, cl, 2, -1, 6);
    run("clamp 0.1", "aten::clamp", dt, 0, cl2, 2, -1, 7);
    tabi_value sl = tabi_float(0.25), sl2 = tabi_float(0.1);
    run("leaky_relu 0.25", "aten::leaky_relu", dt, 0, &sl, 1, -1, 8);
    run("leaky_relu 0.1", "aten::leaky_relu", dt, 0, &sl2, 1, -1, 9);
    /* conversions among the three: the float path with a rounding in */
    for (int e = 0; e < 3; e++) {
      tabi_value to = tabi_dtype_value(dts[e]);
      char what[64];
      snprintf(what, sizeof what, "convert to %s", tabi_dtype_name(dts[e]));
      for (int salt = 0; salt < 3; salt++) run(what, "prims::convert_element_type", dt, 0, &to, 1, -1, salt);
    }
    /* the transcendental ones, in double */
    const char *math[] = {"aten::exp", "aten::tanh", "aten::sigmoid", "aten::rsqrt"};
    for (size_t k = 0; k < sizeof math / sizeof math[0]; k++) run(math[k], math[k], dt, 0, NULL, 0, mtol[d], 1);
    tabi_value ap[2] = {tabi_string("none", 4), tabi_string("tanh", 4)};
    run("gelu", "aten::gelu", dt, 0, &ap[0], 1, mtol[d], 2);
    run("gelu tanh", "aten::gelu", dt, 0, &ap[1], 1, mtol[d], 3);
    gelu_sweep(dt, mtol[d]);
    tabi_value elu[3] = {tabi_float(1), tabi_int(1), tabi_int(1)};
    run("elu", "aten::elu", dt, 0, elu, 3, mtol[d], 4);
    /* x and y of two dtypes (promoted): the vector kernels take inputs of
       one size, and are built for one 2-byte dtype a launch, so these take
       the flat kernel; exact */
    for (int e = 0; e < 3; e++)
      if (e != d) {
        run2("aten::mul.Tensor", "aten::mul.Tensor", dt, dts[e], 1, NULL, 0, -1, e);
        run2("aten::maximum", "aten::maximum", dt, dts[e], 1, NULL, 0, -1, e + 3);
      }
  }
  const char *bits_ops[] = {"aten::relu", "aten::neg", "aten::abs"};
  for (int d = 0; d < 3; d++) {
    for (int k = 0; k < 3; k++) all_bits(bits_ops[k], dts[d], dts[d]);
    /* conversions between the three (the vector kernel rounds once, in its
       encoder, tc_ew_vec_half; float16 <-> bfloat16 takes the flat one) */
    for (int e = 0; e < 3; e++)
      if (e != d) all_bits("prims::convert_element_type", dts[d], dts[e]);
  }
}
