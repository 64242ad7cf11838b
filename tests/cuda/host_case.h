/* tests/cuda/host_case.h: the case scaffolding the host-emulation tests
 * (test_cuda_*_host.cpp) share on top of host_stub.h: main's opening and
 * closing, the pieces of their random inputs, CPU tensors of given bytes, and
 * the bit-exact comparison with the reference's output that counts what it
 * compared. One copy, so every test compares by the same rule:
 *   equal bytes, or NaN where the reference has NaN (floating dtypes; complex
 *   part by part: a NaN part matches a NaN part, other parts compare bits);
 *   integer and bool elements compare bytes only.
 * Each test still prints its own counts (checked_elems, checked_cases,
 * empty_cases are kept here, by host_compare*). Header-only (static inline),
 * as host_stub.h: each test is one translation unit. */
#ifndef TABI_TESTS_CUDA_HOST_CASE_H
#define TABI_TESTS_CUDA_HOST_CASE_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tabi/dtype.h>
#include <tabi/runtime.h>

#include "check.h"
#include "host_stub.h"
#include "tc_int.cuh" /* tcn_is_int/tcn_ld; via tc_pad_up.cuh tcp_ld/tcp_st */

/* What host_compare* counted: elements, outputs, outputs of no elements. */
static long long checked_elems, checked_cases, empty_cases;
static int host_usage_;

/* main's opening: the reference runtime of argv[1]. false when the test
 * cannot run (no argument, or the runtime did not load: a failed CHECK);
 * main then returns host_exit(). The test seeds rng itself. */
static inline bool host_open(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s libtabi_reference.so\n", argv[0]);
    host_usage_ = 1;
    return false;
  }
  CHECK_OK(tabi_runtime_create(NULL, &ref));
  CHECK_OK(tabi_runtime_load_plugin(ref, argv[1], NULL));
  return !check_failed_;
}
/* main's closing: 2 after a usage error, else the CHECK report. */
static inline int host_exit() {
  if (host_usage_) return 2;
  if (ref) tabi_runtime_destroy(ref);
  ref = NULL;
  return check_report();
}

/* name on args in the reference runtime into out[0..nouts) (None first): its
 * status, for the caller to judge (a refused case may be expected). */
static inline tabi_status host_call(const char *name, tabi_value *args, int nargs, tabi_value *out, int nouts) {
  tabi_op op;
  for (int i = 0; i < nouts; i++) out[i] = tabi_none();
  CHECK_OK(tabi_op_find(ref, name, &op));
  return tabi_call(ref, op, args, nargs, out, nouts);
}

static inline int host_esz(tabi_dtype dt) { return (int)tabi_dtype_size(dt); }

/* --- random inputs (each draws from host_stub.h's stream in a fixed order, so
 * a test's cases are the same on every run) --------------------------------- */

/* v, or by irand(0, span) a special: 0 NaN, 1 +inf, 2 -inf, 3 -0.0. */
static inline double host_special_or(double v, int64_t span) {
  switch (irand(0, span)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0;
    default: return v;
  }
}
/* An integer in [-span, span]; with `extremes`, one time in 20 each near
 * INT64_MAX and INT64_MIN (the wrapping sums). Draws the same either way. */
static inline int64_t host_int_or_extreme(int64_t span, int extremes) {
  int64_t v = irand(-span, span);
  int r = (int)irand(0, 19);
  if (extremes && r == 0) v = INT64_MAX - irand(0, 3);
  if (extremes && r == 1) v = INT64_MIN + irand(0, 3);
  return v;
}
/* Element i of an integer dtype of esz bytes at p: half the time any bit
 * pattern, else a small value in [-3, 3] (ties, exact indices). */
static inline void host_any_int(char *p, int esz, int64_t i) {
  uint64_t r = rng ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
  urand();
  if (urand() < 0.5) r = (uint64_t)irand(-3, 3);
  memcpy(p, &r, (size_t)esz);
}

/* A CPU tensor of dt and `shape` holding the row-major bytes (host_laid_out's
 * modes: 0 contiguous, 1 last two dims transposed, 2 step-2 slice). */
static inline tabi_tensor *host_tensor(tabi_dtype dt, int32_t nd, const int64_t *shape, int mode,
                                       const std::vector<char> &bytes, tabi_tensor **base) {
  return host_laid_out(dt, host_esz(dt), nd, shape, mode, bytes, base);
}

/* The logical row-major bytes of a (reference output) tensor. */
static inline std::vector<char> host_bytes_of(const tabi_tensor *t) {
  int64_t n = numel_of(t), esz = host_esz(tabi_tensor_dtype(t));
  std::vector<char> b((size_t)(n * esz) + 8, 0); /* + 8: as the tests had it (bn counts its size) */
  if (n > 0) CHECK_OK(tabi_tensor_to_host(ref, (tabi_tensor *)t, b.data(), (uint64_t)(n * esz)));
  return b;
}

/* An integer (or bool) CPU tensor's values in row-major element order: what a
 * kernel's host copy of indices holds (tc_host_ints). */
static inline std::vector<int64_t> host_ints(const tabi_tensor *t) {
  int64_t n = numel_of(t);
  std::vector<int64_t> v((size_t)(n > 0 ? n : 1));
  tabi_dtype dt = tabi_tensor_dtype(t);
  int esz = host_esz(dt);
  for (int64_t e = 0; e < n; e++) {
    int64_t r = e, off = 0;
    for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
      off += (r % t->dl.shape[d]) * t->dl.strides[d];
      r /= t->dl.shape[d];
    }
    const char *p = (const char *)tabi_tensor_data(t) + off * esz;
    v[(size_t)e] = dt == TABI_DTYPE_BOOL ? *(const uint8_t *)p != 0 : tcn_ld(p, dt);
  }
  return v;
}

/* --- comparison ------------------------------------------------------------- */

static inline int host_is_float(tabi_dtype dt) { return dt != TABI_DTYPE_BOOL && !tcn_is_int(dt); }
static inline int host_is_complex(tabi_dtype dt) {
  return dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128;
}
/* Part k (0 real, 1 imaginary) of a complex element, as double. */
static inline double host_part(const char *p, tabi_dtype dt, int k) {
  if (dt == TABI_DTYPE_COMPLEX64) return ((const float *)p)[k];
  return ((const double *)p)[k];
}
/* One element as a double, for messages (complex: the real part). */
static inline double host_value(const char *p, tabi_dtype dt) {
  if (dt == TABI_DTYPE_BOOL) return *(const uint8_t *)p;
  if (tcn_is_int(dt)) return (double)tcn_ld(p, dt);
  if (host_is_complex(dt)) return host_part(p, dt, 0);
  return tcp_ld(p, dt);
}
/* ours matches theirs (the reference's) by the rule at the top. */
static inline int host_same(const char *a, const char *b, tabi_dtype dt, int esz) {
  if (memcmp(a, b, (size_t)esz) == 0) return 1;
  if (!host_is_float(dt)) return 0;
  if (!host_is_complex(dt)) return std::isnan(tcp_ld(a, dt)) && std::isnan(tcp_ld(b, dt));
  for (int k = 0; k < 2; k++) {
    double x = host_part(a, dt, k), y = host_part(b, dt, k);
    if (std::isnan(y) ? !std::isnan(x) : memcmp(&x, &y, sizeof x) != 0) return 0;
  }
  return 1;
}
/* torch.testing's default tolerances (shared/spec/tolerances.md), for the
 * kernels that sum in another order than the reference (split or tree sums). */
static inline void host_tolerances(tabi_dtype dt, double *rtol, double *atol) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: *rtol = 1e-3; *atol = 1e-5; break;
    case TABI_DTYPE_BFLOAT16: *rtol = 1.6e-2; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT32: *rtol = 1.3e-6; *atol = 1e-5; break;
    default: *rtol = 1e-7; *atol = 1e-7; break;
  }
}
/* ours is within the tolerance of theirs (a real float dtype): |a - e| <=
 * atol + rtol*|e|; NaN matches NaN, an infinity only itself. */
static inline int host_close(const char *a, const char *b, tabi_dtype dt) {
  double x = tcp_ld(a, dt), e = tcp_ld(b, dt), rtol, atol;
  host_tolerances(dt, &rtol, &atol);
  if (std::isnan(x) || std::isnan(e)) return std::isnan(x) && std::isnan(e);
  if (std::isinf(x) || std::isinf(e)) return x == e;
  return std::fabs(x - e) <= atol + rtol * std::fabs(e);
}
/* The reference's output r (NULL: missing) has dtype dt and shape nd/shape;
 * else a test failure naming what. */
static inline bool host_same_shape(const char *what, const tabi_tensor *r, tabi_dtype dt, int32_t nd,
                                   const int64_t *shape) {
  int same = r && tabi_tensor_dtype(r) == dt && r->dl.ndim == nd;
  for (int32_t i = 0; same && i < nd; i++) same = r->dl.shape[i] == shape[i];
  CHECK_MSG(same, "%s: the reference's output has another dtype or shape (or is missing)", what);
  return same;
}
/* n elements of dt, ours against theirs: counts them (and the output), and a
 * difference is a test failure naming what, the dtype, how many differ and
 * the first with both values. Bits by the rule at the top, or (tolerant, a
 * real float dtype) within host_close's tolerance. */
static inline void host_compare_bytes(const char *what, tabi_dtype dt, const char *ours, const char *theirs,
                                      int64_t n, int tolerant = 0) {
  int esz = host_esz(dt);
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n; i++) {
    int ok = tolerant ? host_close(ours + i * esz, theirs + i * esz, dt)
                      : host_same(ours + i * esz, theirs + i * esz, dt, esz);
    if (!ok && first < 0) first = i;
    bad += !ok;
  }
  checked_elems += n;
  checked_cases++;
  empty_cases += n == 0;
  CHECK_MSG(bad == 0, "%s %s%s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", what,
            tabi_dtype_name(dt), tolerant ? " (tolerance)" : "", (long long)bad, (long long)n, (long long)first,
            first >= 0 ? host_value(ours + first * esz, dt) : 0.0,
            first >= 0 ? host_value(theirs + first * esz, dt) : 0.0);
}
/* ours (n elements of dt, row-major) against the reference's output tensor
 * (read back as n row-major elements). */
static inline void host_compare(const char *what, tabi_dtype dt, const char *ours, int64_t n,
                                tabi_tensor *refout, int tolerant = 0) {
  int esz = host_esz(dt);
  std::vector<char> theirs((size_t)(n * esz) + 16);
  if (n > 0) CHECK_OK(tabi_tensor_to_host(ref, refout, theirs.data(), (uint64_t)(n * esz)));
  host_compare_bytes(what, dt, ours, theirs.data(), n, tolerant);
}

static inline void host_compare(const char *what, tabi_dtype dt, const std::vector<char> &ours, int64_t n,
                                tabi_tensor *refout, int tolerant = 0) {
  host_compare(what, dt, ours.data(), n, refout, tolerant);
}

#endif /* TABI_TESTS_CUDA_HOST_CASE_H */
