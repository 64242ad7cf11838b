/* tests/cpu/test_cpu_misc.c: the CPU plugin's random, fill and creation
 * kernels (plugins/cpu/cpu_misc_*.c) against the reference kernels.
 *
 * Outputs are compared bit for bit (any NaN matches any NaN: payloads are
 * unspecified). Random ops must give the reference's numbers for a seed: both
 * runtimes are seeded alike, every output is compared with memcmp, and a
 * second call checks that both advanced the generator by the same amount.
 * Sizes straddle the block and thread split (0, 1, odd, > 1e5); the plugin is
 * also run with 1 and 3 threads and must agree with itself. Fills and arange
 * are compared bitwise too (values, dtype, shape and strides), including
 * full_like of a transposed input (strides preserved), out-of-range fill values
 * (the same error), and errors of the random ops.
 *
 * Then a timing of a few ops (fast vs reference, printed, not asserted).
 *
 * usage: test_cpu_misc CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "check.h"
#include "cpu_rt.h"

static const DLDevice cpu = {kDLCPU, 0};

static tabi_status call(tabi_runtime *rt, const char *name, tabi_value *args, int32_t nargs,
                        tabi_value *out) {
  tabi_op op;
  *out = tabi_none();
  tabi_status st = tabi_op_find(rt, name, &op);
  if (st == TABI_OK) st = tabi_call(rt, op, args, nargs, out, 1);
  return st;
}

/* Bitwise equality: dtype, shape, strides, and every byte of the dense span. */
static int identical(const tabi_tensor *a, const tabi_tensor *b) {
  if (a->dl.ndim != b->dl.ndim || memcmp(&a->dl.dtype, &b->dl.dtype, sizeof a->dl.dtype) != 0) return 0;
  int64_t n = 1;
  for (int32_t i = 0; i < a->dl.ndim; i++) {
    if (a->dl.shape[i] != b->dl.shape[i]) return 0;
    if (a->dl.shape[i] > 1 && a->dl.strides[i] != b->dl.strides[i]) return 0;
    n *= a->dl.shape[i];
  }
  if (n == 0 || memcmp(tabi_tensor_data(a), tabi_tensor_data(b), (size_t)n * (a->dl.dtype.bits / 8)) == 0)
    return 1;
  /* NaN's sign and payload are not specified (x86 keeps the first operand's,
   * and compilers may swap the operands of an add): any NaN matches any NaN */
  tabi_dtype dt = tabi_dtype_from_dl(a->dl.dtype);
  for (int64_t i = 0; i < n; i++) {
    double x, y;
    switch (dt) {
      case TABI_DTYPE_FLOAT32: x = ((const float *)tabi_tensor_data(a))[i]; y = ((const float *)tabi_tensor_data(b))[i]; break;
      case TABI_DTYPE_FLOAT64: x = ((const double *)tabi_tensor_data(a))[i]; y = ((const double *)tabi_tensor_data(b))[i]; break;
      case TABI_DTYPE_FLOAT16:
        x = tabi_f16_to_f32(((const uint16_t *)tabi_tensor_data(a))[i]);
        y = tabi_f16_to_f32(((const uint16_t *)tabi_tensor_data(b))[i]);
        break;
      case TABI_DTYPE_BFLOAT16:
        x = tabi_bf16_to_f32(((const uint16_t *)tabi_tensor_data(a))[i]);
        y = tabi_bf16_to_f32(((const uint16_t *)tabi_tensor_data(b))[i]);
        break;
      default: return 0;
    }
    if (isnan(x) && isnan(y)) continue;
    if (memcmp(&x, &y, sizeof x) != 0) return 0; /* bitwise: -0.0 differs from 0.0 */
  }
  return 1;
}

/* Calls `name` in both runtimes (same args), compares status and output. */
static void same(tabi_runtime *f, tabi_runtime *r, const char *name, tabi_value *args, int32_t nargs,
                 const char *label) {
  tabi_value a, b;
  tabi_status sa = call(f, name, args, nargs, &a);
  char ea[512];
  snprintf(ea, sizeof ea, "%s", tabi_last_error());
  tabi_status sb = call(r, name, args, nargs, &b);
  CHECK_MSG(sa == sb, "%s %s: status fast %d (%s), reference %d (%s)", name, label, (int)sa, ea, (int)sb,
            tabi_last_error());
  if (sa == TABI_OK && sb == TABI_OK)
    CHECK_MSG(identical(a.u.t, b.u.t), "%s %s: outputs differ", name, label);
  else if (sa == sb)
    CHECK_MSG(strcmp(ea, tabi_last_error()) == 0, "%s %s: messages differ: '%s' vs '%s'", name, label, ea,
              tabi_last_error());
  tabi_value_release(&a);
  tabi_value_release(&b);
}

static const tabi_dtype fdts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                                   TABI_DTYPE_BFLOAT16};

static void random_cases(tabi_runtime *f, tabi_runtime *r) {
  static const int64_t sizes[][3] = {{0, 1, 1}, {1, 1, 1}, {511, 1, 1}, {513, 1, 1}, {3, 0, 5},
                                     {100003, 1, 1}, {7, 333, 67}};
  for (int d = 0; d < 4; d++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      int32_t nd = s == 4 || s == 6 ? 3 : 1;
      tabi_value sz = tabi_int_list(sizes[s], nd);
      char label[96];
      snprintf(label, sizeof label, "%s size %lld", tabi_dtype_name(fdts[d]), (long long)sizes[s][0]);
      uint64_t seed = 1234 + (uint64_t)s;
      tabi_runtime_manual_seed(f, cpu, seed);
      tabi_runtime_manual_seed(r, cpu, seed);
      for (int rep = 0; rep < 2; rep++) { /* the second call checks the generator's advance */
        tabi_value ra[5] = {sz, tabi_dtype_value(fdts[d]), tabi_none(), tabi_none(), tabi_none()};
        same(f, r, "aten::rand", ra, 5, label);
        same(f, r, "aten::randn", ra, 5, label);
        tabi_value ua[5] = {sz, tabi_float(-2.5), tabi_float(7.25), tabi_dtype_value(fdts[d]),
                            tabi_device_value(cpu)};
        same(f, r, "prims::uniform", ua, 5, label);
        tabi_value na[6] = {sz, tabi_float(3.0), tabi_float(0.125), tabi_dtype_value(fdts[d]),
                            tabi_device_value(cpu), tabi_bool(0)};
        same(f, r, "prims::normal", na, 6, label);
        tabi_value ia[6] = {sz, tabi_int(-1), tabi_int(2), tabi_dtype_value(fdts[d]), tabi_device_value(cpu),
                            tabi_bool(0)};
        same(f, r, "prims::normal", ia, 6, "int mean/std");
      }
    }
  /* many float32 normals: the vector log/cos path must round every one as libm's
   * does (a cancelling mean included) */
  int64_t big[1] = {3000017};
  tabi_runtime_manual_seed(f, cpu, 5);
  tabi_runtime_manual_seed(r, cpu, 5);
  tabi_value bn[5] = {tabi_int_list(big, 1), tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_none(), tabi_none(),
                      tabi_none()};
  same(f, r, "aten::randn", bn, 5, "3e6 float32");
  tabi_value cn[6] = {tabi_int_list(big, 1), tabi_float(1.0), tabi_float(1.0), tabi_dtype_value(TABI_DTYPE_FLOAT32),
                      tabi_device_value(cpu), tabi_bool(0)};
  same(f, r, "prims::normal", cn, 6, "3e6 float32, mean 1 std 1");
  /* randperm: int64 (default), int32, float (reference), sizes around the block split */
  static const int64_t pn[] = {0, 1, 2, 511, 513, 100003};
  static const tabi_dtype pdt[] = {TABI_DTYPE_INT64, TABI_DTYPE_INT32, TABI_DTYPE_FLOAT32};
  for (size_t k = 0; k < sizeof pn / sizeof *pn; k++)
    for (size_t d = 0; d < 4; d++) {
      char label[64];
      snprintf(label, sizeof label, "n %lld dtype %s", (long long)pn[k], d < 3 ? tabi_dtype_name(pdt[d]) : "none");
      tabi_value pa[5] = {tabi_int(pn[k]), d < 3 ? tabi_dtype_value(pdt[d]) : tabi_none(), tabi_none(), tabi_none(),
                          tabi_none()};
      same(f, r, "aten::randperm", pa, 5, label);
      same(f, r, "aten::randperm", pa, 5, label); /* the generator advanced alike */
    }
  tabi_value pneg[5] = {tabi_int(-3), tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  same(f, r, "aten::randperm", pneg, 5, "negative n");
  /* errors (the reference's words), and the default dtype, and complex (fallback) */
  int64_t neg[2] = {3, -1}, ok[1] = {1001};
  tabi_value bad[5] = {tabi_int_list(neg, 2), tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  same(f, r, "aten::randn", bad, 5, "negative size");
  tabi_value dflt[5] = {tabi_int_list(ok, 1), tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  same(f, r, "aten::rand", dflt, 5, "default dtype");
  tabi_value cx[5] = {tabi_int_list(ok, 1), tabi_dtype_value(TABI_DTYPE_COMPLEX64), tabi_none(), tabi_none(),
                      tabi_none()};
  same(f, r, "aten::randn", cx, 5, "complex64");
  tabi_value lay[5] = {tabi_int_list(ok, 1), tabi_none(), tabi_int(1), tabi_none(), tabi_none()};
  same(f, r, "aten::rand", lay, 5, "sparse layout");
  tabi_value inv[5] = {tabi_int_list(ok, 1), tabi_float(2.0), tabi_float(1.0),
                       tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(cpu)};
  same(f, r, "prims::uniform", inv, 5, "low > high");
  tabi_value nsd[6] = {tabi_int_list(ok, 1), tabi_float(0.0), tabi_float(-1.0),
                       tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(cpu), tabi_bool(0)};
  same(f, r, "prims::normal", nsd, 6, "negative std");
}

/* The plugin at 1 and 3 threads: the same numbers. */
static void thread_counts(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (!r1 || !r3) return;
  int64_t big[1] = {300001};
  for (int d = 0; d < 4; d++) {
    tabi_runtime_manual_seed(r1, cpu, 99);
    tabi_runtime_manual_seed(r3, cpu, 99);
    tabi_value ra[5] = {tabi_int_list(big, 1), tabi_dtype_value(fdts[d]), tabi_none(), tabi_none(), tabi_none()};
    same(r1, r3, "aten::randn", ra, 5, "1 vs 3 threads");
    same(r1, r3, "aten::rand", ra, 5, "1 vs 3 threads");
  }
  tabi_runtime_destroy(r1);
  tabi_runtime_destroy(r3);
}

static void fill_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype all[] = {TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,   TABI_DTYPE_INT8,
                                   TABI_DTYPE_INT16,   TABI_DTYPE_INT32,   TABI_DTYPE_INT64,
                                   TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                   TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  const tabi_value vals[] = {tabi_float(-1.75), tabi_int(300), tabi_bool(1), tabi_float(NAN),
                             tabi_float(-INFINITY), tabi_complex(1.5, -2.0), tabi_float(-0.0),
                             tabi_int(-7)};
  int64_t shape[2] = {413, 301};
  for (size_t d = 0; d < sizeof all / sizeof *all; d++) {
    /* a transposed input for the like ops: empty_like keeps its strides */
    tabi_tensor *base = NULL, *tr = NULL;
    CHECK_OK(tabi_tensor_empty(f, cpu, all[d], 2, shape, &base));
    int64_t vs[2] = {301, 413}, vst[2] = {1, 301};
    CHECK_OK(tabi_tensor_view(f, base, 2, vs, vst, (int64_t)base->dl.byte_offset, &tr));
    for (size_t v = 0; v < sizeof vals / sizeof *vals; v++) {
      char label[96];
      snprintf(label, sizeof label, "%s value %zu", tabi_dtype_name(all[d]), v);
      tabi_value fa[6] = {tabi_int_list(shape, 2), vals[v], tabi_dtype_value(all[d]), tabi_none(), tabi_none(),
                          tabi_none()};
      same(f, r, "aten::full", fa, 6, label);
      tabi_value pf[5] = {tabi_int_list(shape, 2), vals[v], tabi_dtype_value(all[d]), tabi_device_value(cpu),
                          tabi_bool(0)};
      same(f, r, "prims::full", pf, 5, label);
      tabi_value fl[7] = {tabi_tensor_value(tr), vals[v], tabi_none(), tabi_none(), tabi_none(), tabi_none(),
                          tabi_none()};
      same(f, r, "aten::full_like", fl, 7, label);
      tabi_value pl[5] = {tabi_tensor_value(tr), vals[v], tabi_dtype_value(all[d]), tabi_device_value(cpu),
                          tabi_bool(0)};
      same(f, r, "prims::full_like", pl, 5, label);
      tabi_value fi[2] = {tabi_tensor_value(tr), vals[v]};
      same(f, r, "aten::fill.Scalar", fi, 2, label);
      same(f, r, "prims::fill", fi, 2, label);
    }
    tabi_tensor_release(tr);
    tabi_tensor_release(base);
  }
  int64_t zero[3] = {4, 0, 2};
  tabi_value fz[6] = {tabi_int_list(zero, 3), tabi_float(2.0), tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  same(f, r, "aten::full", fz, 6, "empty");
  tabi_value f0[6] = {tabi_int_list(NULL, 0), tabi_int(5), tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  same(f, r, "aten::full", f0, 6, "0-d, default dtype");
}

static void arange_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[] = {TABI_DTYPE_INT64, TABI_DTYPE_INT32, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64,
                                   TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_INT16};
  const tabi_value se[][3] = {
      {tabi_int(0), tabi_int(100003), tabi_int(1)},       {tabi_int(-5), tabi_int(70001), tabi_int(3)},
      {tabi_int(50), tabi_int(-20), tabi_int(-7)},        {tabi_float(0.5), tabi_float(1000.25), tabi_float(0.1)},
      {tabi_float(-3.0), tabi_float(3.0), tabi_float(1e-4)}, {tabi_int(0), tabi_int(10), tabi_int(0)},
      {tabi_float(1.0), tabi_float(0.0), tabi_float(0.5)}, {tabi_float(0.0), tabi_float(INFINITY), tabi_float(1.0)},
      {tabi_int(INT64_MAX - 10), tabi_int(INT64_MAX), tabi_int(3)}};
  for (size_t d = 0; d < sizeof dts / sizeof *dts + 1; d++)
    for (size_t k = 0; k < sizeof se / sizeof *se; k++) {
      char label[64];
      snprintf(label, sizeof label, "case %zu dtype %s", k, d < 7 ? tabi_dtype_name(dts[d]) : "none");
      tabi_value a[7] = {se[k][0], se[k][1], se[k][2], d < 7 ? tabi_dtype_value(dts[d]) : tabi_none(),
                         tabi_none(), tabi_none(), tabi_none()};
      same(f, r, "aten::arange.start_step", a, 7, label);
    }
}

/* A [rows, cols] tensor of dtype dt with mixed values (specials for floats),
 * viewed transposed when tr (then non-contiguous). */
static tabi_tensor *mixed(tabi_runtime *rt, tabi_dtype dt, int64_t rows, int64_t cols, int tr) {
  static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 65519.0, 65520.0, 1e-8, -3.5e38, 300.7, -129.5,
                              3.0e9, -9.3e18, 16777217.0, 2.5, -2.5, 0.49999997};
  int64_t shape[2] = {rows, cols};
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, 2, shape, &t) != TABI_OK) return NULL;
  int64_t n = rows * cols;
  char *p = tabi_tensor_data(t);
  uint64_t s = 88172645463325252ull;
  for (int64_t i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    double v = i % 5 == 2 ? sp[(i / 5) % 16] : (double)(int64_t)(s % 200001) / 64.0 - 1500.0;
    switch (dt) {
      case TABI_DTYPE_BOOL: p[i] = (char)(s & 1); break;
      case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)s; break;
      case TABI_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)(uint8_t)s; break;
      case TABI_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)(uint16_t)s; break;
      case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)(uint32_t)s; break;
      case TABI_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)(s >> (i % 3 == 0 ? 1 : 30)) - (int64_t)(s >> 40); break;
      case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
      case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
      case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
      case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
      case TABI_DTYPE_COMPLEX64: ((float *)p)[2 * i] = (float)v; ((float *)p)[2 * i + 1] = (float)-v; break;
      case TABI_DTYPE_COMPLEX128: ((double *)p)[2 * i] = v; ((double *)p)[2 * i + 1] = 0.5 * v; break;
      default: break;
    }
  }
  if (!tr) return t;
  int64_t vs[2] = {cols, rows}, vst[2] = {1, cols};
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, 2, vs, vst, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

static void convert_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype all[] = {TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,   TABI_DTYPE_INT8,
                                   TABI_DTYPE_INT16,   TABI_DTYPE_INT32,   TABI_DTYPE_INT64,
                                   TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                   TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  const size_t nd = sizeof all / sizeof *all;
  for (size_t a = 0; a < nd; a++)
    for (int tr = 0; tr < 3; tr++) {
      /* contiguous (threaded size), transposed, and a 1-column slice view */
      tabi_tensor *x = mixed(f, all[a], tr == 1 ? 257 : 301, tr == 1 ? 263 : 333, tr == 1);
      if (tr == 2 && x) {
        int64_t vs[1] = {301}, vst[1] = {333};
        tabi_tensor *v = NULL;
        tabi_tensor_view(f, x, 1, vs, vst, (int64_t)x->dl.byte_offset + 5 * (x->dl.dtype.bits / 8), &v);
        tabi_tensor_release(x);
        x = v;
      }
      CHECK(x != NULL);
      if (!x) continue;
      for (size_t b = 0; b < nd; b++) {
        char label[96];
        snprintf(label, sizeof label, "%s -> %s layout %d", tabi_dtype_name(all[a]), tabi_dtype_name(all[b]), tr);
        tabi_value args[2] = {tabi_tensor_value(x), tabi_dtype_value(all[b])};
        same(f, r, "prims::convert_element_type", args, 2, label);
      }
      tabi_tensor_release(x);
    }
}

static void layout_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[] = {TABI_DTYPE_BOOL, TABI_DTYPE_INT16, TABI_DTYPE_FLOAT32, TABI_DTYPE_INT64,
                                   TABI_DTYPE_COMPLEX128, TABI_DTYPE_BFLOAT16};
  static const int64_t dl[][3] = {{0}, {1}, {0, 1}, {-1}, {1, -2}, {0, 0}, {5}};
  static const int64_t dn[] = {1, 1, 2, 1, 2, 2, 1};
  static const int64_t reps[][4] = {{2, 3}, {1, 1}, {3, 1, 2}, {2, 0}, {1, -1}, {4, 1, 1, 2}};
  static const int64_t rn[] = {2, 2, 3, 2, 2, 4};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int tr = 0; tr < 2; tr++) {
      tabi_tensor *x = mixed(f, dts[d], 301, 263, tr);
      CHECK(x != NULL);
      if (!x) continue;
      for (size_t k = 0; k < sizeof dn / sizeof *dn; k++) {
        char label[96];
        snprintf(label, sizeof label, "%s layout %d dims case %zu", tabi_dtype_name(dts[d]), tr, k);
        tabi_value a[2] = {tabi_tensor_value(x), tabi_int_list(dl[k], dn[k])};
        same(f, r, "aten::flip", a, 2, label);
        same(f, r, "prims::rev", a, 2, label);
      }
      for (size_t k = 0; k < sizeof rn / sizeof *rn; k++) {
        char label[96];
        snprintf(label, sizeof label, "%s layout %d repeats case %zu", tabi_dtype_name(dts[d]), tr, k);
        tabi_value a[2] = {tabi_tensor_value(x), tabi_int_list(reps[k], rn[k])};
        same(f, r, "aten::repeat", a, 2, label);
      }
      tabi_tensor_release(x);
    }
  /* 0-d */
  tabi_tensor *z = NULL;
  CHECK_OK(tabi_tensor_empty(f, cpu, TABI_DTYPE_FLOAT64, 0, NULL, &z));
  if (z) {
    *(double *)tabi_tensor_data(z) = 2.5;
    int64_t m1[1] = {-1}, r3[2] = {3, 2};
    tabi_value a[2] = {tabi_tensor_value(z), tabi_int_list(m1, 1)};
    same(f, r, "aten::flip", a, 2, "0-d");
    tabi_value b[2] = {tabi_tensor_value(z), tabi_int_list(r3, 2)};
    same(f, r, "aten::repeat", b, 2, "0-d");
    tabi_value e[2] = {tabi_tensor_value(z), tabi_int_list(NULL, 0)};
    same(f, r, "aten::repeat", e, 2, "0-d no repeats");
    tabi_tensor_release(z);
  }
}

/* A tensor of `shape` (nd <= 5) with mixed values; tr swaps the last two dims
 * through the strides (non-contiguous). */
static tabi_tensor *shaped(tabi_runtime *rt, tabi_dtype dt, int32_t nd, const int64_t *shape, int tr) {
  int64_t n = 1, st[5], sh[5];
  for (int32_t i = 0; i < nd; i++) { n *= shape[i]; sh[i] = shape[i]; }
  tabi_tensor *flat = mixed(rt, dt, 1, n, 0), *v = NULL;
  if (!flat) return NULL;
  if (tr) { int64_t t = sh[nd - 1]; sh[nd - 1] = sh[nd - 2]; sh[nd - 2] = t; }
  int64_t e = 1;
  for (int32_t i = nd - 1; i >= 0; i--) { st[i] = e; e *= sh[i]; }
  if (tr) {
    int64_t t = st[nd - 1]; st[nd - 1] = st[nd - 2]; st[nd - 2] = t;
    t = sh[nd - 1]; sh[nd - 1] = sh[nd - 2]; sh[nd - 2] = t;
  }
  tabi_tensor_view(rt, flat, nd, sh, st, (int64_t)flat->dl.byte_offset, &v);
  tabi_tensor_release(flat);
  return v;
}

static void pad_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_BFLOAT16,
                                   TABI_DTYPE_COMPLEX64, TABI_DTYPE_INT32};
  static const struct { const char *op; int32_t k; } ops[] = {
      {"aten::reflection_pad1d", 1}, {"aten::reflection_pad2d", 2}, {"aten::reflection_pad3d", 3},
      {"aten::replication_pad2d", 2}, {"aten::replication_pad3d", 3}};
  static const int64_t pads[][6] = {{1, 2, 3, 0, 2, 2}, {5, 4, 1, 1, 0, 3}, {-2, 3, 2, -1, 1, -1},
                                    {0, 0, 0, 0, 0, 0}, {40, 1, 1, 1, 1, 1}};
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
      for (int batch = 0; batch < 2; batch++)
        for (int tr = 0; tr < 2; tr++) {
          int32_t k = ops[o].k, nd = k + 1 + batch;
          int64_t shape[5] = {3, 4, 5, 6, 7};
          if (k == 1) shape[nd - 1] = 3001; /* a threaded size */
          if (k == 2) { shape[nd - 1] = 97; shape[nd - 2] = 31; }
          tabi_tensor *x = shaped(f, dts[d], nd, shape, tr);
          CHECK(x != NULL);
          if (!x) continue;
          for (size_t p = 0; p < sizeof pads / sizeof *pads; p++) {
            char label[96];
            snprintf(label, sizeof label, "%s nd %d layout %d pads %zu", tabi_dtype_name(dts[d]), (int)nd, tr, p);
            tabi_value a[2] = {tabi_tensor_value(x), tabi_int_list(pads[p], 2 * k)};
            same(f, r, ops[o].op, a, 2, label);
          }
          tabi_tensor_release(x);
        }
}

static void cumsum_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                   TABI_DTYPE_INT32,   TABI_DTYPE_INT64,   TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,
                                   TABI_DTYPE_COMPLEX64};
  static const int64_t s3[3] = {7, 300, 301};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int tr = 0; tr < 2; tr++) {
      tabi_tensor *x = shaped(f, dts[d], 3, s3, tr);
      CHECK(x != NULL);
      if (!x) continue;
      for (int64_t dim = -3; dim < 3; dim++) {
        char label[96];
        snprintf(label, sizeof label, "%s layout %d dim %lld", tabi_dtype_name(dts[d]), tr, (long long)dim);
        tabi_value a[3] = {tabi_tensor_value(x), tabi_int(dim), tabi_none()};
        same(f, r, "aten::cumsum", a, 3, label);
      }
      tabi_value bad[3] = {tabi_tensor_value(x), tabi_int(3), tabi_none()};
      same(f, r, "aten::cumsum", bad, 3, "dim out of range");
      tabi_value wd[3] = {tabi_tensor_value(x), tabi_int(1), tabi_dtype_value(TABI_DTYPE_FLOAT64)};
      same(f, r, "aten::cumsum", wd, 3, "dtype=float64");
      tabi_tensor_release(x);
    }
  tabi_tensor *z = mixed(f, TABI_DTYPE_FLOAT32, 1, 1, 0), *z0 = NULL;
  if (z) {
    tabi_tensor_view(f, z, 0, NULL, NULL, (int64_t)z->dl.byte_offset, &z0);
    tabi_value a[3] = {tabi_tensor_value(z0), tabi_int(-1), tabi_none()};
    same(f, r, "aten::cumsum", a, 3, "0-d");
    tabi_tensor_release(z0);
    tabi_tensor_release(z);
  }
}

static void nonzero_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[] = {TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,    TABI_DTYPE_INT16,     TABI_DTYPE_INT32,
                                   TABI_DTYPE_INT64,   TABI_DTYPE_FLOAT16,  TABI_DTYPE_BFLOAT16,  TABI_DTYPE_FLOAT32,
                                   TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  static const int64_t s3[3] = {5, 301, 67};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int tr = 0; tr < 2; tr++) {
      /* mostly zeros with a few values (and -0.0, NaN among the specials) */
      tabi_tensor *x = shaped(f, dts[d], 3, s3, tr);
      CHECK(x != NULL);
      if (!x) continue;
      if (!tr) {
        int64_t es = x->dl.dtype.bits / 8, n = 5 * 301 * 67;
        unsigned char *p = tabi_tensor_data(x);
        for (int64_t i = 0; i < n; i++)
          if (i % 7 != 2 && i % 11 != 0) memset(p + i * es, 0, (size_t)es);
        if (dts[d] == TABI_DTYPE_FLOAT32) ((float *)(void *)p)[4] = -0.0f;
      }
      char label[64];
      snprintf(label, sizeof label, "%s layout %d", tabi_dtype_name(dts[d]), tr);
      tabi_value a[1] = {tabi_tensor_value(x)};
      same(f, r, "aten::nonzero", a, 1, label);
      tabi_tensor_release(x);
    }
  tabi_tensor *z = mixed(f, TABI_DTYPE_INT32, 1, 1, 0), *z0 = NULL;
  if (z) {
    tabi_tensor_view(f, z, 0, NULL, NULL, (int64_t)z->dl.byte_offset, &z0);
    tabi_value a[1] = {tabi_tensor_value(z0)};
    same(f, r, "aten::nonzero", a, 1, "0-d");
    tabi_tensor_release(z0);
    tabi_tensor_release(z);
  }
}

static void masked_scatter_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype dts[] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_INT64, TABI_DTYPE_BFLOAT16, TABI_DTYPE_COMPLEX128,
                                   TABI_DTYPE_BOOL};
  static const int64_t s2[2] = {301, 333}, few[1] = {50};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int mt = 0; mt < 2; mt++)
      for (int tr = 0; tr < 2; tr++) {
        tabi_tensor *x = shaped(f, dts[d], 2, s2, tr), *src = shaped(f, dts[d], 2, s2, 0);
        tabi_tensor *m = shaped(f, mt ? TABI_DTYPE_UINT8 : TABI_DTYPE_BOOL, 2, s2, 0);
        tabi_tensor *small = shaped(f, dts[d], 1, few, 0);
        CHECK(x && src && m && small);
        if (!x || !src || !m || !small) continue;
        unsigned char *mp = tabi_tensor_data(m);
        for (int64_t i = 0; i < 301 * 333; i++) mp[i] = (unsigned char)(i % 3 == 1 || i % 17 == 0);
        char label[96];
        snprintf(label, sizeof label, "%s mask %s layout %d", tabi_dtype_name(dts[d]), mt ? "uint8" : "bool", tr);
        tabi_value a[3] = {tabi_tensor_value(x), tabi_tensor_value(m), tabi_tensor_value(src)};
        same(f, r, "aten::masked_scatter", a, 3, label);
        tabi_value b[3] = {tabi_tensor_value(x), tabi_tensor_value(m), tabi_tensor_value(small)};
        same(f, r, "aten::masked_scatter", b, 3, "too few source elements");
        tabi_tensor_release(x);
        tabi_tensor_release(src);
        tabi_tensor_release(m);
        tabi_tensor_release(small);
      }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double time_op(tabi_runtime *rt, const char *name, tabi_value *args, int32_t nargs, int reps) {
  double best = 1e30;
  for (int i = 0; i < reps; i++) {
    tabi_value o;
    double t0 = now();
    tabi_status st = call(rt, name, args, nargs, &o);
    double t = now() - t0;
    if (st == TABI_OK && t < best) best = t;
    tabi_value_release(&o);
  }
  return best;
}

static void timings(tabi_runtime *f, tabi_runtime *r) {
  int64_t n[1] = {10000000};
  tabi_value rf[5] = {tabi_int_list(n, 1), tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_none(), tabi_none(),
                      tabi_none()};
  tabi_value ff[6] = {tabi_int_list(n, 1), tabi_float(1.5), tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_none(),
                      tabi_none(), tabi_none()};
  tabi_tensor *src = NULL;
  tabi_tensor_empty(f, cpu, TABI_DTYPE_FLOAT32, 1, n, &src);
  if (src) memset(tabi_tensor_data(src), 0, (size_t)n[0] * 4);
  tabi_value cv[2] = {tabi_tensor_value(src), tabi_dtype_value(TABI_DTYPE_BFLOAT16)};
  int64_t m2[2] = {1000, 10000}, p4[4] = {8, 16, 256, 256}, d0[1] = {0}, r2[2] = {2, 2}, pd[4] = {3, 3, 3, 3};
  tabi_tensor *mat = shaped(f, TABI_DTYPE_FLOAT32, 2, m2, 0), *img = shaped(f, TABI_DTYPE_FLOAT32, 4, p4, 0);
  tabi_value fl[2] = {tabi_tensor_value(mat), tabi_int_list(d0, 1)};
  tabi_value cu[3] = {tabi_tensor_value(mat), tabi_int(1), tabi_none()};
  tabi_value nz[1] = {tabi_tensor_value(mat)};
  tabi_value rp[2] = {tabi_tensor_value(mat), tabi_int_list(r2, 2)};
  tabi_value pa[2] = {tabi_tensor_value(img), tabi_int_list(pd, 4)};
  tabi_value pm[5] = {tabi_int(n[0]), tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  tabi_value ar[7] = {tabi_int(0), tabi_int(n[0]), tabi_int(1), tabi_dtype_value(TABI_DTYPE_FLOAT32),
                      tabi_none(), tabi_none(), tabi_none()};
  struct { const char *op; tabi_value *a; int32_t na; } cs[] = {
      {"aten::rand", rf, 5}, {"aten::randn", rf, 5}, {"aten::full", ff, 6}, {"aten::arange.start_step", ar, 7},
      {"prims::convert_element_type", cv, 2}, {"aten::flip", fl, 2}, {"aten::cumsum", cu, 3},
      {"aten::nonzero", nz, 1}, {"aten::repeat", rp, 2}, {"aten::reflection_pad2d", pa, 2},
      {"aten::randperm", pm, 5}};
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    double tf = time_op(f, cs[i].op, cs[i].a, cs[i].na, 3), tr = time_op(r, cs[i].op, cs[i].a, cs[i].na, 1);
    printf("timing %-28s ~1e7 float32: fast %8.2f ms, reference %8.2f ms, speedup %.1fx\n", cs[i].op, tf * 1e3,
           tr * 1e3, tr / tf);
  }
  tabi_tensor_release(src);
  tabi_tensor_release(mat);
  tabi_tensor_release(img);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  tabi_runtime *f = load_rt(argv[1], "2"), *r = load_rt(argv[2], NULL);
  CHECK(f != NULL && r != NULL);
  if (!f || !r) return check_report();
  random_cases(f, r);
  fill_cases(f, r);
  arange_cases(f, r);
  convert_cases(f, r);
  layout_cases(f, r);
  pad_cases(f, r);
  cumsum_cases(f, r);
  nonzero_cases(f, r);
  masked_scatter_cases(f, r);
  if (getenv("TABI_TEST_TIMINGS")) timings(f, r);
  tabi_runtime_destroy(f);
  tabi_runtime_destroy(r);
  thread_counts(argv[1]);
  return check_report();
}
