/* tests/cpu/cpu_harness.h: the fast-vs-reference harness shared by the CPU
 * plugin's tests. The same inputs go into a runtime with libtabi_cpu.so and one
 * with the reference plugin; outputs compare with shared/spec/tolerances.md
 * (exact for integers and indices, NaN where the reference has NaN), widened by
 * a callspec's `scale` for long sums, and must have the reference's layout.
 *
 * A test describes a call as a callspec: the op, its boxed non-tensor args,
 * and up to 6 tensor args (tspec: shape, dtype, fill, transposed view) placed
 * at their positions. diff() runs it on both runtimes and compares status and
 * outputs; bitwise() runs it on two runtimes (thread counts) and demands the
 * same bytes. Everything is static: each test is one translation unit.
 */
#ifndef TABI_TESTS_CPU_HARNESS_H
#define TABI_TESTS_CPU_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "check.h"
#include "cpu_rt.h"

#if defined(__GNUC__)
#define CPU_HARNESS_MAYBE_UNUSED __attribute__((unused))
#else
#define CPU_HARNESS_MAYBE_UNUSED
#endif

static CPU_HARNESS_MAYBE_UNUSED const DLDevice cpu = {kDLCPU, 0};
static _Thread_local uint64_t rng_state; /* per thread: threads_case runs two at once */

static CPU_HARNESS_MAYBE_UNUSED double rnd(void) { /* uniform in [-1, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / (double)(1ull << 52) - 1.0;
}

/* A spec of one tensor argument: shape, dtype, how to fill it. */
typedef struct tspec {
  int32_t ndim;
  int64_t shape[5];
  tabi_dtype dt;
  int fill;        /* 0 random, 1 random with specials, 2 indices in [0, hi), 3 few distinct */
  int64_t hi;
  int transpose;   /* view with the last two dims swapped (non-contiguous) */
} tspec;

#define FILL_RAND 0
#define FILL_SPECIAL 1
#define FILL_INDEX 2
#define FILL_FEW 3

static CPU_HARNESS_MAYBE_UNUSED double special(int64_t i) {
  static const double s[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e30, -1e-30, 88.9, -104.5, 20.0};
  return s[i % 10];
}

static CPU_HARNESS_MAYBE_UNUSED tabi_tensor *make(tabi_runtime *rt, const tspec *s) {
  int64_t shape[5], n = 1;
  for (int32_t i = 0; i < s->ndim; i++) { shape[i] = s->shape[i]; n *= shape[i]; }
  if (s->transpose && s->ndim >= 2) {
    int64_t t = shape[s->ndim - 1]; shape[s->ndim - 1] = shape[s->ndim - 2]; shape[s->ndim - 2] = t;
  }
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, s->dt, s->ndim, shape, &t) != TABI_OK) return NULL;
  char *p = tabi_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double v = rnd() * 4.0;
    if (s->fill == FILL_SPECIAL && i % 7 == 3) v = special(i / 7);
    if (s->fill == FILL_FEW) v = floor(v * 2.0) / 2.0;
    if (s->fill == FILL_INDEX) v = (double)(int64_t)((rnd() + 1.0) * 0.5 * (double)s->hi) ;
    switch (s->dt) {
      case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
      case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
      case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
      case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
      case TABI_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)v < s->hi ? (int64_t)v : s->hi - 1; break;
      case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
      case TABI_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)(v * 1000); break;
      case TABI_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)(v * 30); break;
      case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)(fabs(v) * 60); break;
      case TABI_DTYPE_BOOL: ((uint8_t *)p)[i] = v > 0; break;
      default: memset(p + i * tabi_dtype_size(s->dt), 0, (size_t)tabi_dtype_size(s->dt)); break;
    }
  }
  if (!(s->transpose && s->ndim >= 2)) return t;
  int64_t vshape[5], vstr[5];
  for (int32_t i = 0; i < s->ndim; i++) { vshape[i] = shape[i]; vstr[i] = t->dl.strides[i]; }
  int32_t a = s->ndim - 2, b = s->ndim - 1;
  int64_t x = vshape[a]; vshape[a] = vshape[b]; vshape[b] = x;
  x = vstr[a]; vstr[a] = vstr[b]; vstr[b] = x;
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, s->ndim, vshape, vstr, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

static CPU_HARNESS_MAYBE_UNUSED double load(const tabi_tensor *t, int64_t i, int part) {
  const char *p = tabi_tensor_data(t);
  switch (tabi_dtype_from_dl(t->dl.dtype)) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_COMPLEX64: return ((const float *)p)[2 * i + part];
    case TABI_DTYPE_COMPLEX128: return ((const double *)p)[2 * i + part];
    case TABI_DTYPE_INT64: return (double)((const int64_t *)p)[i];
    case TABI_DTYPE_INT32: return (double)((const int32_t *)p)[i];
    case TABI_DTYPE_INT16: return (double)((const int16_t *)p)[i];
    case TABI_DTYPE_INT8: return (double)((const int8_t *)p)[i];
    case TABI_DTYPE_UINT8: case TABI_DTYPE_BOOL: return (double)((const uint8_t *)p)[i];
    default: return NAN;
  }
}

static CPU_HARNESS_MAYBE_UNUSED void tol(tabi_dtype dt, double *rtol, double *atol) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: *rtol = 1e-3; *atol = 1e-5; break;
    case TABI_DTYPE_BFLOAT16: *rtol = 1.6e-2; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: *rtol = 1.3e-6; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT64: case TABI_DTYPE_COMPLEX128: *rtol = 1e-7; *atol = 1e-7; break;
    default: *rtol = 0; *atol = 0; break;
  }
}

/* Compares two outputs (contiguous, as the kernels return them); `scale`
 * widens the tolerance for sums of many terms (FFT, GEMM). */
static CPU_HARNESS_MAYBE_UNUSED int same(const char *what, const tabi_tensor *a, const tabi_tensor *b, double scale) {
  if (!a || !b) return a == b;
  if (a->dl.ndim != b->dl.ndim || memcmp(&a->dl.dtype, &b->dl.dtype, sizeof a->dl.dtype) != 0) {
    fprintf(stderr, "%s: dtype or rank differs\n", what);
    return 0;
  }
  for (int32_t i = 0; i < a->dl.ndim; i++)
    if (a->dl.shape[i] != b->dl.shape[i]) { fprintf(stderr, "%s: shape differs\n", what); return 0; }
  /* same layout too (copies keep a dense input's strides; elements are then
   * compared in storage order, which is the same for both) */
  for (int32_t i = 0; i < a->dl.ndim; i++)
    if (a->dl.shape[i] > 1 && a->dl.strides[i] != b->dl.strides[i]) {
      fprintf(stderr, "%s: strides differ\n", what);
      return 0;
    }
  tabi_dtype dt = tabi_dtype_from_dl(a->dl.dtype);
  int parts = tabi_dtype_is_complex(dt) ? 2 : 1;
  double rtol, atol;
  tol(dt, &rtol, &atol);
  int64_t n = 1;
  for (int32_t i = 0; i < a->dl.ndim; i++) n *= a->dl.shape[i];
  for (int64_t i = 0; i < n; i++)
    for (int part = 0; part < parts; part++) {
      double x = load(a, i, part), y = load(b, i, part);
      if (isnan(x) && isnan(y)) continue;
      if (x == y) continue;
      if (fabs(x - y) <= scale * (atol + rtol * fabs(y))) continue;
      fprintf(stderr, "%s: element %lld: fast %.9g, reference %.9g\n", what, (long long)i, x, y);
      return 0;
    }
  return 1;
}

typedef struct callspec {
  const char *op;
  int32_t nargs;
  tspec t[6];        /* tensor args, placed at positions tpos */
  int32_t tpos[6];
  int32_t nt;
  tabi_value extra[12]; /* non-tensor args at their positions (TENSOR slots ignored) */
  int32_t nouts;
  double scale;
} callspec;

static CPU_HARNESS_MAYBE_UNUSED tabi_status run(tabi_runtime *rt, const callspec *c, uint64_t seed, tabi_value *outs) {
  tabi_value args[12];
  tabi_tensor *owned[6] = {0};
  rng_state = seed;
  for (int32_t i = 0; i < c->nargs; i++) args[i] = c->extra[i];
  for (int32_t k = 0; k < c->nt; k++) {
    owned[k] = make(rt, &c->t[k]);
    args[c->tpos[k]] = tabi_tensor_value(owned[k]);
  }
  tabi_op op;
  tabi_status st = tabi_op_find(rt, c->op, &op);
  for (int32_t i = 0; i < c->nouts; i++) outs[i] = tabi_none();
  if (st == TABI_OK) st = tabi_call(rt, op, args, c->nargs, outs, c->nouts);
  for (int32_t k = 0; k < c->nt; k++) tabi_tensor_release(owned[k]);
  return st;
}

/* fast vs reference */
static CPU_HARNESS_MAYBE_UNUSED void diff(tabi_runtime *fast, tabi_runtime *ref, const callspec *c, const char *label) {
  tabi_value a[3], b[3];
  tabi_status sa = run(fast, c, 42, a), sb = run(ref, c, 42, b);
  CHECK_MSG(sa == sb, "%s %s: status fast %d, reference %d (%s)", c->op, label, (int)sa, (int)sb,
            tabi_last_error());
  if (sa == TABI_OK && sb == TABI_OK)
    for (int32_t i = 0; i < c->nouts; i++) {
      char what[160];
      snprintf(what, sizeof what, "%s %s out %d", c->op, label, (int)i);
      CHECK_MSG(same(what, a[i].tag == TABI_TAG_TENSOR ? a[i].u.t : NULL,
                     b[i].tag == TABI_TAG_TENSOR ? b[i].u.t : NULL, c->scale > 0 ? c->scale : 1),
                "%s", what);
    }
  for (int32_t i = 0; i < 3 && i < c->nouts; i++) { tabi_value_release(&a[i]); tabi_value_release(&b[i]); }
}

/* bitwise equality of two runs (determinism across thread counts) */
static CPU_HARNESS_MAYBE_UNUSED void bitwise(tabi_runtime *r1, tabi_runtime *r2, const callspec *c, const char *label) {
  tabi_value a[3], b[3];
  tabi_status sa = run(r1, c, 7, a), sb = run(r2, c, 7, b);
  CHECK_MSG(sa == TABI_OK && sb == TABI_OK, "%s %s: %s", c->op, label, tabi_last_error());
  for (int32_t i = 0; sa == TABI_OK && sb == TABI_OK && i < c->nouts; i++) {
    if (a[i].tag != TABI_TAG_TENSOR) continue;
    const tabi_tensor *x = a[i].u.t, *y = b[i].u.t;
    int64_t n = 1;
    for (int32_t d = 0; d < x->dl.ndim; d++) n *= x->dl.shape[d];
    size_t bytes = (size_t)n * (x->dl.dtype.bits / 8);
    CHECK_MSG(memcmp(tabi_tensor_data(x), tabi_tensor_data(y), bytes) == 0,
              "%s %s: results differ between 1 and 3 threads in deterministic mode", c->op, label);
  }
  for (int32_t i = 0; i < c->nouts; i++) { tabi_value_release(&a[i]); tabi_value_release(&b[i]); }
}


typedef void (*harness_cases_fn)(tabi_runtime *fast, tabi_runtime *ref);

/* main() of a fast-vs-reference test: argv[1] the CPU plugin (loaded with 2
 * threads), argv[2] the reference plugin; runs each of `cases` (NULL ends the
 * list), destroys both runtimes, then calls `after` (may be NULL) with the
 * CPU plugin's path for checks that load it again (thread counts), and
 * returns check_report(). */
static CPU_HARNESS_MAYBE_UNUSED int harness_main(int argc, char **argv, const harness_cases_fn *cases,
                                                 void (*after)(const char *plugin)) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  tabi_runtime *f = load_rt(argv[1], "2"), *r = load_rt(argv[2], NULL);
  CHECK(f != NULL && r != NULL);
  if (f && r)
    for (const harness_cases_fn *c = cases; *c; c++) (*c)(f, r);
  if (f) tabi_runtime_destroy(f);
  if (r) tabi_runtime_destroy(r);
  if (f && r && after) after(argv[1]);
  return check_report();
}

#define T1(n0, dt_, fill_) {1, {n0}, dt_, fill_, 0, 0}
#define T2(n0, n1, dt_, fill_, tr) {2, {n0, n1}, dt_, fill_, 0, tr}

#endif /* TABI_TESTS_CPU_HARNESS_H */
