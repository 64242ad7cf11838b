/* tests/cpu/test_cpu_reduce.c: the CPU plugin's reductions against the
 * reference kernels. The same inputs go into a runtime with libtabi_cpu.so
 * and one with the reference plugin; outputs are compared with the tolerances
 * of shared/spec/tolerances.md (NaN where the reference has NaN, infinities
 * exact, integers and indices exact).
 *
 * Inputs: long (threaded, chunked) runs with NaN/inf, odd lengths, every
 * float dtype, last-dim, first-dim (column) and middle-dim reductions, dim
 * lists, keepdim, transposed, stepped and expanded views (planned or handed to
 * the reference), dtype= arguments. Then bitwise identity of results between
 * TABI_NUM_THREADS=1 and 3 in deterministic mode, on shapes that take the
 * chunked paths.
 *
 * usage: test_cpu_reduce CPU_PLUGIN REFERENCE_PLUGIN
 * (ctest runs it once per TABI_CPU_ISA=avx512|avx2|scalar.)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>
#include <tabi/runtime.h>

#include "check.h"
#include "cpu_rt.h"

static const DLDevice cpu = {kDLCPU, 0};
static uint64_t rng_state;

static double rnd(void) { /* uniform in [-1, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / (double)(1ull << 52) - 1.0;
}

#define L_PLAIN 0
#define L_T 1      /* last two dims swapped (a transposed view) */
#define L_STEP 2   /* every other element of the last dim */
#define L_EXPAND 3 /* dim 0 broadcast (stride 0) */

#define F_RAND 0
#define F_SPECIAL 1 /* NaN, +-inf, -0.0 sprinkled in */
#define F_NAN_FREE_INF 2 /* infinities but no NaN */
#define F_INT 3    /* integers in [-50, 50) */
#define F_SPARSE 4 /* zeros (+-0.0) but every 4999th element */

typedef struct tspec {
  int32_t ndim;
  int64_t shape[3];
  tabi_dtype dt;
  int fill;
  int layout;
} tspec;

static double special(int64_t i, int with_nan) {
  static const double s[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e30, -1e-30, 3.5};
  double v = s[i % 8];
  return !with_nan && isnan(v) ? 2.0 : v;
}

static void put(char *p, tabi_dtype dt, int64_t i, double v) {
  if (!tabi_dtype_is_floating(dt) && !isfinite(v)) v = 1.0; /* no NaN -> integer casts */
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)(v < 0 ? -v : v); break;
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[i] = v > 0; break;
    default: break;
  }
}

/* Makes the storage for s (bigger when the view needs it), fills it, returns the view. */
static tabi_tensor *make(tabi_runtime *rt, const tspec *s) {
  int32_t nd = s->ndim;
  int64_t shape[3] = {1, 1, 1}, n = 1;
  for (int32_t i = 0; i < nd; i++) shape[i] = s->shape[i];
  if (s->layout == L_T && nd >= 2) {
    int64_t t = shape[nd - 1]; shape[nd - 1] = shape[nd - 2]; shape[nd - 2] = t;
  }
  if (s->layout == L_STEP) shape[nd - 1] *= 2;
  if (s->layout == L_EXPAND) shape[0] = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, s->dt, nd, shape, &t) != TABI_OK) return NULL;
  char *p = tabi_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double v = rnd() * 4.0;
    if ((s->fill == F_SPECIAL || s->fill == F_NAN_FREE_INF) && i % 7 == 3)
      v = special(i / 7, s->fill == F_SPECIAL);
    if (s->fill == F_INT) v = floor(v * 12.5);
    if (s->fill == F_SPARSE) v = i % 4999 == 17 ? (i % 3 ? NAN : 1.0) : (i % 2 ? -0.0 : 0.0);
    put(p, s->dt, i, v);
  }
  if (s->layout == L_PLAIN) return t;
  int64_t vshape[3], vstr[3];
  for (int32_t i = 0; i < nd; i++) { vshape[i] = s->shape[i]; vstr[i] = t->dl.strides[i]; }
  if (s->layout == L_T) {
    int32_t a = nd - 2, b = nd - 1;
    int64_t x = vstr[a]; vstr[a] = vstr[b]; vstr[b] = x;
  } else if (s->layout == L_STEP) {
    vstr[nd - 1] *= 2;
  } else {
    vstr[0] = 0;
  }
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, nd, vshape, vstr, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

static double load(const tabi_tensor *t, int64_t i, int *is_int, int64_t *iv) {
  const char *p = tabi_tensor_data(t);
  *is_int = 0;
  switch (tabi_dtype_from_dl(t->dl.dtype)) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
    case TABI_DTYPE_INT64: *is_int = 1; *iv = ((const int64_t *)p)[i]; return 0;
    case TABI_DTYPE_INT32: *is_int = 1; *iv = ((const int32_t *)p)[i]; return 0;
    case TABI_DTYPE_INT16: *is_int = 1; *iv = ((const int16_t *)p)[i]; return 0;
    case TABI_DTYPE_INT8: *is_int = 1; *iv = ((const int8_t *)p)[i]; return 0;
    case TABI_DTYPE_UINT8: case TABI_DTYPE_BOOL: *is_int = 1; *iv = ((const uint8_t *)p)[i]; return 0;
    default: return NAN;
  }
}

static void tol(tabi_dtype dt, double *rtol, double *atol) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: *rtol = 1e-3; *atol = 1e-5; break;
    case TABI_DTYPE_BFLOAT16: *rtol = 1.6e-2; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT32: *rtol = 1.3e-6; *atol = 1e-5; break;
    case TABI_DTYPE_FLOAT64: *rtol = 1e-7; *atol = 1e-7; break;
    default: *rtol = 0; *atol = 0; break;
  }
}

static int same(const char *what, const tabi_tensor *a, const tabi_tensor *b) {
  if (!a || !b) return a == b;
  if (a->dl.ndim != b->dl.ndim || memcmp(&a->dl.dtype, &b->dl.dtype, sizeof a->dl.dtype) != 0) {
    fprintf(stderr, "%s: dtype or rank differs\n", what);
    return 0;
  }
  int64_t n = 1;
  for (int32_t i = 0; i < a->dl.ndim; i++) {
    if (a->dl.shape[i] != b->dl.shape[i]) { fprintf(stderr, "%s: shape differs\n", what); return 0; }
    n *= a->dl.shape[i];
  }
  double rtol, atol;
  tol(tabi_dtype_from_dl(a->dl.dtype), &rtol, &atol);
  for (int64_t i = 0; i < n; i++) {
    int ia, ib;
    int64_t xa = 0, xb = 0;
    double x = load(a, i, &ia, &xa), y = load(b, i, &ib, &xb);
    if (ia) {
      if (xa == xb) continue;
      fprintf(stderr, "%s: element %lld: fast %lld, reference %lld\n", what, (long long)i,
              (long long)xa, (long long)xb);
      return 0;
    }
    if (isnan(x) && isnan(y)) continue;
    if (x == y) continue;
    if (!isinf(x) && !isinf(y) && fabs(x - y) <= atol + rtol * fabs(y)) continue;
    fprintf(stderr, "%s: element %lld: fast %.9g, reference %.9g\n", what, (long long)i, x, y);
    return 0;
  }
  return 1;
}

typedef struct callspec {
  const char *op;
  int32_t nargs;
  tspec t;            /* the tensor argument, at position 0 */
  tabi_value extra[6]; /* the other arguments at their positions (slot 0 ignored) */
  int32_t nouts;
} callspec;

static tabi_status run(tabi_runtime *rt, const callspec *c, uint64_t seed, tabi_value *outs) {
  tabi_value args[6];
  rng_state = seed;
  for (int32_t i = 0; i < c->nargs; i++) args[i] = c->extra[i];
  tabi_tensor *t = make(rt, &c->t);
  args[0] = tabi_tensor_value(t);
  tabi_op op;
  tabi_status st = tabi_op_find(rt, c->op, &op);
  for (int32_t i = 0; i < c->nouts; i++) outs[i] = tabi_none();
  if (st == TABI_OK) st = tabi_call(rt, op, args, c->nargs, outs, c->nouts);
  tabi_tensor_release(t);
  return st;
}

static void diff(tabi_runtime *fast, tabi_runtime *ref, const callspec *c, const char *label) {
  tabi_value a[2], b[2];
  tabi_status sa = run(fast, c, 42, a), sb = run(ref, c, 42, b);
  CHECK_MSG(sa == sb, "%s %s %s: status fast %d, reference %d (%s)", c->op, label,
            tabi_dtype_name(c->t.dt), (int)sa, (int)sb, tabi_last_error());
  if (sa == TABI_OK && sb == TABI_OK)
    for (int32_t i = 0; i < c->nouts; i++) {
      char what[200];
      snprintf(what, sizeof what, "%s %s %s [%lld, %lld, %lld] layout %d out %d", c->op, label,
               tabi_dtype_name(c->t.dt), (long long)c->t.shape[0], (long long)c->t.shape[1],
               (long long)c->t.shape[2], c->t.layout, (int)i);
      CHECK_MSG(same(what, a[i].tag == TABI_TAG_TENSOR ? a[i].u.t : NULL,
                     b[i].tag == TABI_TAG_TENSOR ? b[i].u.t : NULL), "%s", what);
    }
  for (int32_t i = 0; i < c->nouts; i++) { tabi_value_release(&a[i]); tabi_value_release(&b[i]); }
}

static void bitwise(tabi_runtime *r1, tabi_runtime *r3, const callspec *c, const char *label) {
  tabi_value a[2], b[2];
  tabi_status sa = run(r1, c, 7, a), sb = run(r3, c, 7, b);
  CHECK_MSG(sa == TABI_OK && sb == TABI_OK, "%s %s: %s", c->op, label, tabi_last_error());
  for (int32_t i = 0; sa == TABI_OK && sb == TABI_OK && i < c->nouts; i++) {
    const tabi_tensor *x = a[i].u.t, *y = b[i].u.t;
    int64_t n = 1;
    for (int32_t d = 0; d < x->dl.ndim; d++) n *= x->dl.shape[d];
    size_t bytes = (size_t)n * (x->dl.dtype.bits / 8);
    CHECK_MSG(memcmp(tabi_tensor_data(x), tabi_tensor_data(y), bytes) == 0,
              "%s %s: results differ between 1 and 3 threads in deterministic mode", c->op, label);
  }
  for (int32_t i = 0; i < c->nouts; i++) { tabi_value_release(&a[i]); tabi_value_release(&b[i]); }
}

static const tabi_dtype fdts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                   TABI_DTYPE_FLOAT64};

/* The (shape, layout, dims) cases every reduction op runs on. */
typedef struct dcase {
  tspec t;
  int64_t dims[3];
  int32_t ndims; /* -1: None */
  int keepdim;
  const char *label;
} dcase;

#define S1(a) 1, {a, 1, 1}
#define S2(a, b) 2, {a, b, 1}
#define S3(a, b, c) 3, {a, b, c}

static const dcase dcases[] = {
    {{S1(300007), 0, 0, L_PLAIN}, {0}, -1, 0, "full, chunked"},
    {{S1(1000), 0, 0, L_PLAIN}, {0}, 0, 1, "full [] keepdim"},
    {{S2(513, 1001), 0, 0, L_PLAIN}, {-1}, 1, 0, "last dim"},
    {{S2(5, 150001), 0, 0, L_PLAIN}, {1}, 1, 1, "long rows, keepdim"},
    {{S2(1001, 513), 0, 0, L_PLAIN}, {0}, 1, 0, "first dim (columns)"},
    {{S2(20011, 3), 0, 0, L_PLAIN}, {0}, 1, 1, "first dim, narrow, chunked rows"},
    {{S3(7, 301, 35), 0, 0, L_PLAIN}, {1}, 1, 0, "middle dim"},
    {{S3(7, 31, 35), 0, 0, L_PLAIN}, {0, 2}, 2, 1, "dims [0, 2] (7 runs per output)"},
    {{S3(3, 5, 70001), 0, 0, L_PLAIN}, {2, 0}, 2, 0, "dims [2, 0], chunked runs"},
    {{S3(5, 33, 9), 0, 0, L_T}, {0, 1}, 2, 0, "transposed, dims [0, 1]"},
    {{S3(7, 31, 35), 0, 0, L_PLAIN}, {2, 1}, 2, 0, "dims [2, 1]"},
    {{S2(301, 257), 0, 0, L_T}, {0}, 1, 0, "transposed, dim 0"},
    {{S2(301, 257), 0, 0, L_T}, {1}, 1, 1, "transposed, dim 1"},
    {{S2(301, 257), 0, 0, L_STEP}, {1}, 1, 0, "stepped, last dim"},
    {{S2(301, 257), 0, 0, L_EXPAND}, {0}, 1, 0, "expanded, dim 0"},
    {{S1(17), 0, 0, L_PLAIN}, {0}, 1, 0, "short"},
};
#define NDCASES (sizeof dcases / sizeof *dcases)

static tabi_value dims_value(const dcase *d) {
  return d->ndims < 0 ? tabi_none() : tabi_int_list(d->dims, d->ndims);
}

static void float_cases(tabi_runtime *f, tabi_runtime *r) {
  for (int di = 0; di < 4; di++)
    for (size_t k = 0; k < NDCASES; k++)
      for (int fill = 0; fill < 2; fill++) {
        const dcase *d = &dcases[k];
        tspec t = d->t;
        t.dt = fdts[di];
        t.fill = fill ? F_SPECIAL : F_RAND;
        tabi_value dims = dims_value(d), kd = tabi_bool(d->keepdim);
        callspec cs[] = {
            {"aten::sum.dim_IntList", 4, t, {{0}, dims, kd, tabi_none()}, 1},
            {"aten::mean.dim", 4, t, {{0}, dims, kd, tabi_none()}, 1},
            {"aten::amax", 3, t, {{0}, d->ndims < 0 ? tabi_int_list(NULL, 0) : dims, kd}, 1},
            {"aten::amin", 3, t, {{0}, d->ndims < 0 ? tabi_int_list(NULL, 0) : dims, kd}, 1},
            {"prims::sum", 3, t, {{0}, dims, tabi_none()}, 1},
            {"prims::amax", 3, t, {{0}, dims, tabi_none()}, 1},
            {"prims::amin", 3, t, {{0}, dims, tabi_none()}, 1},
            {"aten::sum.dim_IntList", 4, t, {{0}, dims, kd, tabi_dtype_value(TABI_DTYPE_FLOAT64)}, 1},
            {"aten::mean.dim", 4, t, {{0}, dims, kd, tabi_dtype_value(TABI_DTYPE_FLOAT32)}, 1},
        };
        for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) diff(f, r, &cs[i], d->label);
        /* var: every dims case; correction 0, 1 (None), 2 */
        callspec vs[] = {
            {"aten::var.correction", 4, t, {{0}, dims, tabi_none(), kd}, 1},
            {"aten::var.correction", 4, t, {{0}, dims, tabi_int(0), kd}, 1},
            {"aten::var.correction", 4, t, {{0}, dims, tabi_int(2), kd}, 1},
            {"aten::var.dim", 4, t, {{0}, dims, tabi_bool(0), kd}, 1},
            {"prims::var", 4, t, {{0}, dims, tabi_int(1), tabi_none()}, 1},
        };
        for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) diff(f, r, &vs[i], d->label);
        /* positions: one dim, or None (flattened) */
        if (d->ndims > 1 || (d->ndims == 0)) continue;
        tabi_value dim = d->ndims < 0 ? tabi_none() : tabi_int(d->dims[0]);
        callspec as[] = {
            {"aten::argmax", 3, t, {{0}, dim, kd}, 1},
            {"aten::argmin", 3, t, {{0}, dim, kd}, 1},
            {"aten::max.dim", 3, t, {{0}, tabi_int(d->ndims < 0 ? 0 : d->dims[0]), kd}, 2},
            {"aten::min.dim", 3, t, {{0}, tabi_int(d->ndims < 0 ? 0 : d->dims[0]), kd}, 2},
        };
        for (size_t i = 0; i < sizeof as / sizeof *as; i++) diff(f, r, &as[i], d->label);
      }
  /* ties: few distinct values, so the first of equal extremes decides */
  for (int di = 0; di < 4; di++) {
    callspec ties = {"aten::argmax", 3, {S2(33, 4099), fdts[di], F_INT, L_PLAIN}, {{0}, tabi_int(1), tabi_bool(0)}, 1};
    diff(f, r, &ties, "ties");
    ties.op = "aten::min.dim";
    ties.nouts = 2;
    diff(f, r, &ties, "ties");
    callspec tiesl = {"aten::argmin", 3, {S1(200003), fdts[di], F_INT, L_PLAIN}, {{0}, tabi_none(), tabi_bool(0)}, 1};
    diff(f, r, &tiesl, "ties, chunked");
    tiesl.t.fill = F_NAN_FREE_INF;
    diff(f, r, &tiesl, "infinities, chunked");
  }
  callspec mean = {"aten::mean", 2, {S1(300007), TABI_DTYPE_FLOAT32, F_SPECIAL, 0}, {{0}, tabi_none()}, 1};
  diff(f, r, &mean, "full");
  mean.t.fill = F_RAND;
  diff(f, r, &mean, "full");
  mean.t.dt = TABI_DTYPE_BFLOAT16;
  diff(f, r, &mean, "full");
}

static void int_cases(tabi_runtime *f, tabi_runtime *r) {
  static const tabi_dtype idts[] = {TABI_DTYPE_INT64, TABI_DTYPE_INT32, TABI_DTYPE_INT16,
                                    TABI_DTYPE_INT8, TABI_DTYPE_UINT8, TABI_DTYPE_BOOL};
  for (size_t di = 0; di < sizeof idts / sizeof *idts; di++)
    for (size_t k = 0; k < NDCASES; k++) {
      const dcase *d = &dcases[k];
      tspec t = d->t;
      t.dt = idts[di];
      t.fill = F_INT;
      tabi_value dims = dims_value(d), kd = tabi_bool(d->keepdim);
      callspec cs[] = {
          {"aten::sum.dim_IntList", 4, t, {{0}, dims, kd, tabi_none()}, 1},
          {"aten::sum.dim_IntList", 4, t, {{0}, dims, kd, tabi_dtype_value(TABI_DTYPE_INT64)}, 1},
          {"aten::amax", 3, t, {{0}, d->ndims < 0 ? tabi_int_list(NULL, 0) : dims, kd}, 1},
          {"aten::amin", 3, t, {{0}, d->ndims < 0 ? tabi_int_list(NULL, 0) : dims, kd}, 1},
          {"prims::sum", 3, t, {{0}, dims, tabi_none()}, 1},
          {"prims::amax", 3, t, {{0}, dims, tabi_none()}, 1},
          {"aten::any.dims", 3, t, {{0}, dims, kd}, 1},
      };
      for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) diff(f, r, &cs[i], d->label);
    }
  /* any: sparse nonzeros (a run is false unless one lands in it), -0.0, NaN */
  for (int di = 0; di < 4; di++) {
    callspec a = {"aten::any.dim", 3, {S2(301, 1003), fdts[di], F_SPARSE, L_PLAIN}, {{0}, tabi_int(1), tabi_bool(0)}, 1};
    diff(f, r, &a, "sparse");
    a.t.dt = di == 0 ? TABI_DTYPE_BOOL : di == 1 ? TABI_DTYPE_UINT8 : di == 2 ? TABI_DTYPE_INT16 : TABI_DTYPE_INT64;
    diff(f, r, &a, "sparse");
    callspec full = {"aten::any", 1, {S1(100003), fdts[di], F_RAND, L_PLAIN}, {{0}}, 1};
    diff(f, r, &full, "full");
  }
}

static void determinism(const char *plugin) {
  tabi_runtime *r1 = load_rt(plugin, "1"), *r3 = load_rt(plugin, "3");
  CHECK(r1 != NULL && r3 != NULL);
  if (!r1 || !r3) return;
  tabi_runtime_set_deterministic(r1, 1);
  tabi_runtime_set_deterministic(r3, 1);
  for (int di = 0; di < 4; di++)
    for (size_t k = 0; k < NDCASES; k++) {
      const dcase *d = &dcases[k];
      tspec t = d->t;
      t.dt = fdts[di];
      tabi_value dims = dims_value(d), kd = tabi_bool(d->keepdim);
      callspec cs[] = {
          {"aten::sum.dim_IntList", 4, t, {{0}, dims, kd, tabi_none()}, 1},
          {"aten::amax", 3, t, {{0}, d->ndims < 0 ? tabi_int_list(NULL, 0) : dims, kd}, 1},
          {"aten::var.correction", 4, t, {{0}, dims, tabi_none(), kd}, 1},
          {"aten::argmax", 3, t, {{0}, d->ndims == 1 ? tabi_int(d->dims[0]) : tabi_none(), kd}, 1},
      };
      for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) bitwise(r1, r3, &cs[i], d->label);
    }
  tabi_runtime_destroy(r1);
  tabi_runtime_destroy(r3);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CPU_PLUGIN REFERENCE_PLUGIN\n", argv[0]);
    return 2;
  }
  tabi_runtime *f = load_rt(argv[1], "2"), *r = load_rt(argv[2], NULL);
  CHECK(f != NULL && r != NULL);
  if (!f || !r) return check_report();
  float_cases(f, r);
  int_cases(f, r);
  tabi_runtime_destroy(f);
  tabi_runtime_destroy(r);
  determinism(argv[1]);
  return check_report();
}
