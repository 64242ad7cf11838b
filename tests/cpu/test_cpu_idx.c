/* tests/cpu/test_cpu_idx.c: the CPU plugin's indexing kernels (plugins/cpu/cpu_idx_*.c:
 * index.Tensor, index_put, scatter.src/value, scatter_reduce.two, select_scatter,
 * slice_scatter, embedding_dense_backward, _embedding_bag) against the reference.
 *
 * Each case builds the same arguments (seeded) in three runtimes: the CPU plugin
 * at 3 threads, at 1 thread, and the reference plugin. The outputs must equal
 * the reference's bit for bit (copies, integer and bool results, the embedding
 * kernels which sum in double as the reference does, index_put's accumulation,
 * which rounds at every add as the reference's store does) or within
 * shared/spec/tolerances.md (scatter_reduce's float sums), and the two thread
 * counts must give the same bytes. Sizes pass the threading grain; indices
 * include negatives (index, index_put), duplicates, broadcast index tensors,
 * transposed and stepped (non-contiguous) inputs. Out-of-range indices must
 * fail with the reference's status and a message naming the op.
 *
 * TABI_TEST_TIMINGS=1 prints the time of each case on the fast and reference
 * runtimes.
 *
 * usage: test_cpu_idx CPU_PLUGIN REFERENCE_PLUGIN
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "cpu_harness.h"

/* A tensor argument: values random multiples of 0.5 in [-4, 4) (floats; exact
 * sums), integers in [lo, hi) (index tensors, int dtypes) or random bools;
 * layout 0 contiguous, 1 transposed (last two dims swapped), 2 every other
 * element of the last dim, 3 offsets of bags (from 0, non-decreasing up to hi). */
typedef struct td {
  tabi_dtype dt;
  int32_t nd;
  int64_t shape[4];
  int64_t lo, hi; /* hi > lo: integers in [lo, hi) */
  int layout;
} td;

enum { A_T = 1, A_L, A_I, A_F, A_B, A_S, A_N };

typedef struct aspec {
  int kind;
  int64_t i;        /* A_T: td index; A_I, A_B: value */
  double f;
  const char *s;
  int list[4];      /* A_L: td indices, -1 for None */
  int nlist;
} aspec;

typedef struct icase {
  const char *op;
  int32_t nargs;
  aspec a[10];
  td t[6];
  int32_t nouts;
  int exact;        /* 1: bitwise equal to the reference */
} icase;

#define T_(k) {A_T, k, 0, NULL, {0}, 0}
#define I_(v) {A_I, v, 0, NULL, {0}, 0}
#define F_(v) {A_F, 0, v, NULL, {0}, 0}
#define B_(v) {A_B, v, 0, NULL, {0}, 0}
#define S_(v) {A_S, 0, 0, v, {0}, 0}
#define N_ {A_N, 0, 0, NULL, {0}, 0}
#define L1(a) {A_L, 0, 0, NULL, {a}, 1}
#define L2(a, b) {A_L, 0, 0, NULL, {a, b}, 2}
#define L3(a, b, c) {A_L, 0, 0, NULL, {a, b, c}, 3}

static tabi_tensor *mk(tabi_runtime *rt, const td *s, uint64_t seed) {
  int64_t shape[4], n = 1;
  for (int32_t i = 0; i < s->nd; i++) { shape[i] = s->shape[i]; n *= shape[i]; }
  int tr = s->layout == 1 && s->nd >= 2, stepped = s->layout == 2 && s->nd >= 1;
  if (tr) { int64_t x = shape[s->nd - 1]; shape[s->nd - 1] = shape[s->nd - 2]; shape[s->nd - 2] = x; }
  if (stepped) { shape[s->nd - 1] *= 2; n *= 2; }
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, s->dt, s->nd, shape, &t) != TABI_OK) return NULL;
  rng_state = seed;
  char *p = tabi_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double r = rnd();
    double v = floor(r * 8.0) / 2.0;
    int64_t iv = s->hi > s->lo ? s->lo + (int64_t)((r + 1.0) * 0.5 * (double)(s->hi - s->lo)) : (int64_t)v;
    if (s->hi > s->lo && iv >= s->hi) iv = s->hi - 1;
    switch (s->dt) {
      case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
      case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
      case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
      case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
      case TABI_DTYPE_INT64: ((int64_t *)p)[i] = iv; break;
      case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)iv; break;
      case TABI_DTYPE_BOOL: ((uint8_t *)p)[i] = r > 0; break;
      case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = r > 0.3 ? 3 : 0; break; /* nonzero, not 1 */
      default: break;
    }
  }
  if (s->layout == 3) /* offsets: from 0, non-decreasing, every 7th bag empty */
    for (int64_t i = 0; i < n; i++) {
      int64_t o = i % 7 == 3 ? (i - 1) * s->hi / n : i * s->hi / n;
      if (s->dt == TABI_DTYPE_INT32) ((int32_t *)p)[i] = (int32_t)o;
      else ((int64_t *)p)[i] = o;
    }
  if (!tr && !stepped) return t;
  int64_t vs[4], vst[4];
  for (int32_t i = 0; i < s->nd; i++) { vs[i] = s->shape[i]; vst[i] = t->dl.strides[i]; }
  if (tr) { int64_t x = vst[s->nd - 1]; vst[s->nd - 1] = vst[s->nd - 2]; vst[s->nd - 2] = x; }
  if (stepped) vst[s->nd - 1] *= 2;
  tabi_tensor *v = NULL;
  tabi_tensor_view(rt, t, s->nd, vs, vst, (int64_t)t->dl.byte_offset, &v);
  tabi_tensor_release(t);
  return v;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int timings;

/* Builds the case's arguments in rt and calls the op; *secs gets the call's time. */
static tabi_status run_case(tabi_runtime *rt, const icase *c, tabi_value *outs, double *secs) {
  tabi_tensor *owned[6] = {0}, *lists[4][4];
  tabi_value args[10];
  int used[6] = {0};
  for (int32_t i = 0; i < c->nargs; i++) {
    if (c->a[i].kind == A_T) used[c->a[i].i] = 1;
    for (int k = 0; c->a[i].kind == A_L && k < c->a[i].nlist; k++)
      if (c->a[i].list[k] >= 0) used[c->a[i].list[k]] = 1;
  }
  for (int k = 0; k < 6; k++)
    if (used[k]) owned[k] = mk(rt, &c->t[k], 1000 + 77 * (uint64_t)k);
  int nl = 0;
  for (int32_t i = 0; i < c->nargs; i++) {
    const aspec *a = &c->a[i];
    switch (a->kind) {
      case A_T: args[i] = tabi_tensor_value(owned[a->i]); break;
      case A_L:
        for (int k = 0; k < a->nlist; k++) lists[nl][k] = a->list[k] < 0 ? NULL : owned[a->list[k]];
        args[i] = tabi_tensor_list(lists[nl], a->nlist);
        nl++;
        break;
      case A_I: args[i] = tabi_int(a->i); break;
      case A_F: args[i] = tabi_float(a->f); break;
      case A_B: args[i] = tabi_bool((int)a->i); break;
      case A_S: args[i] = tabi_string(a->s, (int64_t)strlen(a->s)); break;
      default: args[i] = tabi_none(); break;
    }
  }
  for (int32_t i = 0; i < c->nouts; i++) outs[i] = tabi_none();
  tabi_op op;
  tabi_status st = tabi_op_find(rt, c->op, &op);
  double t0 = now();
  if (st == TABI_OK) st = tabi_call(rt, op, args, c->nargs, outs, c->nouts);
  *secs = now() - t0;
  for (int k = 0; k < 6; k++) tabi_tensor_release(owned[k]);
  return st;
}

static int bytes_equal(const tabi_tensor *a, const tabi_tensor *b) {
  if (!a || !b) return a == b;
  if (a->dl.ndim != b->dl.ndim || memcmp(&a->dl.dtype, &b->dl.dtype, sizeof a->dl.dtype) != 0) return 0;
  int64_t n = 1;
  for (int32_t d = 0; d < a->dl.ndim; d++) {
    if (a->dl.shape[d] != b->dl.shape[d]) return 0;
    if (a->dl.shape[d] > 1 && a->dl.strides[d] != b->dl.strides[d]) return 0;
    n *= a->dl.shape[d];
  }
  return memcmp(tabi_tensor_data(a), tabi_tensor_data(b), (size_t)n * (a->dl.dtype.bits / 8)) == 0;
}

static tabi_runtime *fast, *fast1, *ref;

/* The case on the three runtimes: same status (an error naming the op), the
 * reference's values, the same bytes at 1 and 3 threads. */
static void check_case(const icase *c, const char *label) {
  tabi_value a[4], a1[4], b[4];
  double tf, t1, tr;
  tabi_status sa = run_case(fast, c, a, &tf);
  char err[512];
  snprintf(err, sizeof err, "%s", tabi_last_error());
  tabi_status s1 = run_case(fast1, c, a1, &t1);
  tabi_status sb = run_case(ref, c, b, &tr);
  CHECK_MSG(sa == sb && s1 == sb, "%s %s: status fast %d / %d, reference %d (%s)", c->op, label, (int)sa,
            (int)s1, (int)sb, err);
  if (sb != TABI_OK)
    CHECK_MSG(strstr(err, c->op) != NULL, "%s %s: error \"%s\" does not name the op", c->op, label, err);
  if (sa == TABI_OK && sb == TABI_OK && s1 == TABI_OK)
    for (int32_t i = 0; i < c->nouts; i++) {
      const tabi_tensor *x = a[i].tag == TABI_TAG_TENSOR ? a[i].u.t : NULL;
      const tabi_tensor *x1 = a1[i].tag == TABI_TAG_TENSOR ? a1[i].u.t : NULL;
      const tabi_tensor *y = b[i].tag == TABI_TAG_TENSOR ? b[i].u.t : NULL;
      char what[200];
      snprintf(what, sizeof what, "%s %s out %d", c->op, label, (int)i);
      if (c->exact) CHECK_MSG(bytes_equal(x, y), "%s: not bitwise equal to the reference", what);
      else CHECK_MSG(same(what, x, y, 1), "%s: differs from the reference", what);
      CHECK_MSG(bytes_equal(x, x1), "%s: 1 and 3 threads differ", what);
    }
  if (timings)
    printf("%-32s %-40s fast %8.3f ms  1 thread %8.3f ms  reference %9.3f ms\n", c->op, label, tf * 1e3,
           t1 * 1e3, tr * 1e3);
  for (int32_t i = 0; i < c->nouts; i++) {
    tabi_value_release(&a[i]);
    tabi_value_release(&a1[i]);
    tabi_value_release(&b[i]);
  }
}

#define F32 TABI_DTYPE_FLOAT32
#define F64 TABI_DTYPE_FLOAT64
#define F16 TABI_DTYPE_FLOAT16
#define BF16 TABI_DTYPE_BFLOAT16
#define I64 TABI_DTYPE_INT64
#define I32 TABI_DTYPE_INT32
#define BOOL TABI_DTYPE_BOOL

static const tabi_dtype all_dts[] = {F32, F64, F16, BF16, I64, I32, BOOL};

static void test_index(void) {
  for (size_t k = 0; k < sizeof all_dts / sizeof all_dts[0]; k++) {
    tabi_dtype dt = all_dts[k];
    char label[64];
    /* x[idx]: one index tensor, negatives, duplicates */
    icase c1 = {"aten::index.Tensor", 2, {T_(0), L1(1)},
                {{dt, 2, {20000, 8}, 0, 0, 0}, {I64, 1, {30000}, -20000, 20000, 0}}, 1, 1};
    snprintf(label, sizeof label, "x[idx] %s", tabi_dtype_name(dt));
    check_case(&c1, label);
    /* x[:, idx] with int32 negatives on a transposed x */
    icase c2 = {"aten::index.Tensor", 2, {T_(0), L2(-1, 1)},
                {{dt, 2, {64, 3000}, 0, 0, 1}, {I32, 1, {2500}, -3000, 3000, 0}}, 1, 1};
    snprintf(label, sizeof label, "x[:, idx] transposed %s", tabi_dtype_name(dt));
    check_case(&c2, label);
  }
  /* broadcast index pair on adjacent dims, a post dim */
  icase c3 = {"aten::index.Tensor", 2, {T_(0), L2(1, 2)},
              {{F16, 3, {300, 40, 50}, 0, 0, 0}, {I64, 2, {200, 1}, -300, 300, 0},
               {I64, 2, {1, 30}, -40, 40, 0}}, 1, 1};
  check_case(&c3, "x[i0, i1] broadcast");
  /* non-adjacent (a slice between): the broadcast dims come first */
  icase c4 = {"aten::index.Tensor", 2, {T_(0), L3(1, -1, 2)},
              {{BF16, 3, {50, 60, 70}, 0, 0, 0}, {I64, 1, {1000}, -50, 50, 0}, {I32, 1, {1000}, 0, 70, 0}}, 1, 1};
  check_case(&c4, "x[i0, :, i2]");
  /* stepped (non-contiguous) index tensor and pre dims */
  icase c5 = {"aten::index.Tensor", 2, {T_(0), L2(-1, 1)},
              {{F64, 3, {40, 500, 30}, 0, 0, 0}, {I64, 2, {20, 30}, -500, 500, 2}}, 1, 1};
  check_case(&c5, "x[:, idx2d] stepped idx");
  /* a 0-d index tensor broadcast against a vector */
  icase c6 = {"aten::index.Tensor", 2, {T_(0), L2(1, 2)},
              {{I64, 2, {300, 400}, 0, 0, 0}, {I64, 0, {0}, 3, 4, 0}, {I64, 1, {50000}, -400, 400, 0}}, 1, 1};
  check_case(&c6, "x[0-d, idx]");
  /* masks: bool over two dims, uint8 over one dim with a 0-d index after a slice */
  icase m1 = {"aten::index.Tensor", 2, {T_(0), L1(1)},
              {{F32, 3, {200, 300, 8}, 0, 0, 0}, {BOOL, 2, {200, 300}, 0, 0, 0}}, 1, 1};
  check_case(&m1, "x[mask2d]");
  icase m2 = {"aten::index.Tensor", 2, {T_(0), L3(1, -1, 2)},
              {{I64, 3, {3000, 40, 50}, 0, 0, 0}, {TABI_DTYPE_UINT8, 1, {3000}, 0, 0, 0}, {I64, 0, {0}, -50, 50, 0}},
              1, 1};
  check_case(&m2, "x[mask_u8, :, 0-d]");
  icase m3 = {"aten::index.Tensor", 2, {T_(0), L2(-1, 1)},
              {{F16, 3, {30, 200, 300}, 0, 0, 1}, {BOOL, 2, {200, 300}, 0, 0, 0}}, 1, 1};
  check_case(&m3, "xT[:, mask2d]");
  /* errors: out of range (positive and negative) */
  icase e1 = {"aten::index.Tensor", 2, {T_(0), L1(1)},
              {{F32, 2, {1000, 8}, 0, 0, 0}, {I64, 1, {20000}, -1000, 1001, 0}}, 1, 1};
  check_case(&e1, "out of range");
  icase e2 = {"aten::index.Tensor", 2, {T_(0), L2(-1, 1)},
              {{F32, 2, {100, 80}, 0, 0, 0}, {I32, 1, {20000}, -81, 80, 0}}, 1, 1};
  check_case(&e2, "out of range negative");
  /* huge indices: an error, and no offset arithmetic that overflows (UBSan) */
  icase e3 = {"aten::index.Tensor", 2, {T_(0), L2(1, 2)},
              {{F32, 2, {100, 80}, 0, 0, 0}, {I64, 1, {20000}, INT64_C(1) << 61, (INT64_C(1) << 61) + 5, 0},
               {I64, 1, {20000}, 0, 80, 0}}, 1, 1};
  check_case(&e3, "huge index, two tensors");
  icase e4 = {"aten::index.Tensor", 2, {T_(0), L1(1)},
              {{F32, 2, {100, 80}, 0, 0, 0}, {I64, 1, {20000}, -(INT64_C(1) << 61), -(INT64_C(1) << 61) + 5, 0}},
              1, 1};
  check_case(&e4, "huge negative index");
}

static void test_index_put(void) {
  for (size_t k = 0; k < sizeof all_dts / sizeof all_dts[0]; k++) {
    tabi_dtype dt = all_dts[k];
    char label[64];
    for (int acc = 0; acc < 2; acc++) {
      /* many duplicates: 60000 writes into 1000 rows */
      icase c1 = {"aten::index_put", 4, {T_(0), L1(1), T_(2), B_(acc)},
                  {{dt, 2, {1000, 16}, 0, 0, 0}, {I64, 1, {60000}, -1000, 1000, 0}, {dt, 2, {60000, 16}, 0, 0, 0}},
                  1, 1};
      snprintf(label, sizeof label, "x[idx] = v acc=%d %s", acc, tabi_dtype_name(dt));
      check_case(&c1, label);
      /* 1-d self, values broadcast from 0-d */
      icase c2 = {"aten::index_put", 4, {T_(0), L1(1), T_(2), B_(acc)},
                  {{dt, 1, {100000}, 0, 0, 0}, {I32, 1, {200000}, -100000, 100000, 0}, {dt, 0, {0}, 0, 0, 0}}, 1,
                  1};
      snprintf(label, sizeof label, "x1d[idx] = scalar acc=%d %s", acc, tabi_dtype_name(dt));
      check_case(&c2, label);
    }
  }
  for (int acc = 0; acc < 2; acc++) {
    char label[64];
    /* pre dims (by pre rows), values broadcast over the pre dim */
    icase c3 = {"aten::index_put", 4, {T_(0), L2(-1, 1), T_(2), B_(acc)},
                {{F32, 3, {200, 500, 8}, 0, 0, 0}, {I64, 1, {3000}, -500, 500, 0}, {F32, 2, {3000, 8}, 0, 0, 0}},
                1, 1};
    snprintf(label, sizeof label, "x[:, idx] = v acc=%d", acc);
    check_case(&c3, label);
    /* two broadcast index tensors, transposed self and values */
    icase c4 = {"aten::index_put", 4, {T_(0), L2(1, 2), T_(3), B_(acc)},
                {{F64, 2, {500, 400}, 0, 0, 1}, {I64, 2, {300, 1}, -500, 500, 0}, {I64, 2, {1, 200}, 0, 400, 0},
                 {F64, 2, {300, 200}, 0, 0, 1}},
                1, 1};
    snprintf(label, sizeof label, "xT[i0, i1] = vT acc=%d", acc);
    check_case(&c4, label);
    /* non-adjacent indexed dims, values row broadcast */
    icase c5 = {"aten::index_put", 4, {T_(0), L3(1, -1, 2), T_(3), B_(acc)},
                {{F16, 3, {60, 70, 80}, 0, 0, 0}, {I64, 1, {4000}, -60, 60, 0}, {I64, 1, {4000}, -80, 80, 0},
                 {F16, 1, {70}, 0, 0, 0}},
                1, 1};
    snprintf(label, sizeof label, "x[i0, :, i2] = row acc=%d", acc);
    check_case(&c5, label);
  }
  for (int acc = 0; acc < 2; acc++) {
    char label[64];
    icase m1 = {"aten::index_put", 4, {T_(0), L1(1), T_(2), B_(acc)},
                {{F32, 3, {200, 300, 8}, 0, 0, 0}, {BOOL, 2, {200, 300}, 0, 0, 0}, {F32, 1, {8}, 0, 0, 0}}, 1, 1};
    snprintf(label, sizeof label, "x[mask2d] = row acc=%d", acc);
    check_case(&m1, label);
    icase m2 = {"aten::index_put", 4, {T_(0), L2(-1, 1), T_(2), B_(acc)},
                {{I32, 2, {300, 5000}, 0, 0, 0}, {TABI_DTYPE_UINT8, 1, {5000}, 0, 0, 0}, {I32, 0, {0}, 0, 0, 0}}, 1, 1};
    snprintf(label, sizeof label, "x[:, mask_u8] = scalar acc=%d", acc);
    check_case(&m2, label);
  }
  icase e1 = {"aten::index_put", 4, {T_(0), L1(1), T_(2), B_(1)},
              {{F32, 2, {1000, 8}, 0, 0, 0}, {I64, 1, {20000}, -1001, 1000, 0}, {F32, 1, {8}, 0, 0, 0}}, 1, 1};
  check_case(&e1, "out of range");
}

static void test_scatter(void) {
  for (size_t k = 0; k < sizeof all_dts / sizeof all_dts[0]; k++) {
    tabi_dtype dt = all_dts[k];
    char label[64];
    for (int dim = 0; dim < 2; dim++) {
      /* index smaller than self (so lanes are strided), duplicates along dim */
      icase c1 = {"aten::scatter.src", 4, {T_(0), I_(dim), T_(1), T_(2)},
                  {{dt, 2, {400, 300}, 0, 0, 0}, {I64, 2, {350, 250}, 0, dim ? 300 : 400, 0},
                   {dt, 2, {380, 260}, 0, 0, dim}},
                  1, 1};
      snprintf(label, sizeof label, "dim %d %s", dim, tabi_dtype_name(dt));
      check_case(&c1, label);
    }
    icase c2 = {"aten::scatter.value", 4, {T_(0), I_(-1), T_(1), {dt == BOOL ? A_B : A_I, dt == BOOL ? 1 : 3, 0, NULL, {0}, 0}},
                {{dt, 3, {20, 300, 100}, 0, 0, 1}, {I64, 3, {20, 300, 60}, 0, 100, 0}}, 1, 1};
    snprintf(label, sizeof label, "int value, transposed self %s", tabi_dtype_name(dt));
    check_case(&c2, label);
  }
  icase c3 = {"aten::scatter.value", 4, {T_(0), I_(0), T_(1), F_(-2.5)},
              {{F32, 2, {3000, 64}, 0, 0, 0}, {I64, 2, {3000, 64}, 0, 3000, 2}}, 1, 1};
  check_case(&c3, "float value, stepped index");
  icase e1 = {"aten::scatter.src", 4, {T_(0), I_(1), T_(1), T_(2)},
              {{F32, 2, {400, 300}, 0, 0, 0}, {I64, 2, {400, 300}, 0, 301, 0}, {F32, 2, {400, 300}, 0, 0, 0}}, 1,
              1};
  check_case(&e1, "out of range");
  icase e2 = {"aten::scatter.value", 4, {T_(0), I_(0), T_(1), F_(1.0)},
              {{F32, 2, {400, 300}, 0, 0, 0}, {I64, 2, {400, 300}, -1, 400, 0}}, 1, 1};
  check_case(&e2, "negative index");
}

static void test_scatter_reduce(void) {
  static const tabi_dtype dts[] = {F32, F64, F16, BF16, I64, I32};
  static const char *reds[] = {"sum", "prod", "mean", "amax", "amin"};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
    for (int r = 0; r < 5; r++)
      for (int self_ = 0; self_ < 2; self_++) {
        tabi_dtype dt = dts[k];
        char label[64];
        int prod = r == 1;
        /* prod: few hits per element (exact products); others: many */
        icase c = {"aten::scatter_reduce.two", 6, {T_(0), I_(1), T_(1), T_(2), S_(reds[r]), B_(self_)},
                   {{dt, 2, {300, prod ? 2000 : 200}, 0, 0, 0}, {I64, 2, {300, 400}, 0, prod ? 2000 : 200, 0},
                    {dt, 2, {300, 400}, 0, 0, prod ? 0 : 1}},
                   1, dt == I64 || dt == I32 || r >= 3};
        snprintf(label, sizeof label, "%s include_self=%d %s", reds[r], self_, tabi_dtype_name(dt));
        check_case(&c, label);
      }
  icase c2 = {"aten::scatter_reduce.two", 6, {T_(0), I_(0), T_(1), T_(2), S_("mean"), B_(0)},
              {{F32, 2, {1000, 64}, 0, 0, 0}, {I64, 2, {20000, 64}, 0, 1000, 0}, {F32, 2, {20000, 64}, 0, 0, 0}},
              1, 0};
  check_case(&c2, "mean dim 0 many hits");
  icase e1 = {"aten::scatter_reduce.two", 6, {T_(0), I_(0), T_(1), T_(2), S_("amax"), B_(1)},
              {{F32, 2, {1000, 64}, 0, 0, 0}, {I64, 2, {2000, 64}, 0, 1001, 0}, {F32, 2, {2000, 64}, 0, 0, 0}}, 1,
              1};
  check_case(&e1, "out of range");
}

static void test_slices(void) {
  static const tabi_dtype dts[] = {F32, F16, I64, BOOL};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
    tabi_dtype dt = dts[k];
    char label[64];
    icase c1 = {"aten::select_scatter", 4, {T_(0), T_(1), I_(1), I_(-7)},
                {{dt, 3, {300, 50, 400}, 0, 0, 0}, {dt, 2, {300, 400}, 0, 0, 1}}, 1, 1};
    snprintf(label, sizeof label, "dim 1 index -7, transposed src %s", tabi_dtype_name(dt));
    check_case(&c1, label);
    icase c2 = {"aten::slice_scatter", 6, {T_(0), T_(1), I_(1), I_(-1000), I_(1900), I_(3)},
                {{dt, 2, {500, 2000}, 0, 0, 0}, {dt, 2, {500, 300}, 0, 0, 2}}, 1, 1};
    snprintf(label, sizeof label, "dim 1 step 3, stepped src %s", tabi_dtype_name(dt));
    check_case(&c2, label);
    icase c3 = {"aten::slice_scatter", 6, {T_(0), T_(1), I_(0), N_, N_, I_(1)},
                {{dt, 2, {5000, 60}, 0, 0, 0}, {dt, 2, {5000, 60}, 0, 0, 0}}, 1, 1};
    snprintf(label, sizeof label, "full dim 0 %s", tabi_dtype_name(dt));
    check_case(&c3, label);
  }
  icase e1 = {"aten::select_scatter", 4, {T_(0), T_(1), I_(0), I_(300)},
              {{F32, 2, {300, 40}, 0, 0, 0}, {F32, 1, {40}, 0, 0, 0}}, 1, 1};
  check_case(&e1, "index out of range");
}

static void test_embedding(void) {
  static const tabi_dtype dts[] = {F32, F64, F16, BF16};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
    tabi_dtype dt = dts[k];
    char label[80];
    for (int scale = 0; scale < 2; scale++) {
      icase c = {"aten::embedding_dense_backward", 5, {T_(0), T_(1), I_(1000), I_(scale ? 5 : -1), B_(scale)},
                 {{dt, 3, {50, 400, 64}, 0, 0, 0}, {scale ? I32 : I64, 2, {50, 400}, 0, 1000, 0}}, 1, 1};
      snprintf(label, sizeof label, "scale=%d %s", scale, tabi_dtype_name(dt));
      check_case(&c, label);
    }
    for (int mode = 0; mode < 3; mode++)
      for (int ilo = 0; ilo < 2; ilo++) {
        /* 5000 bags over 100000 indices, every 7th bag empty; mode 1 skips padding_idx 7; a
         * transposed weight (mode 2) reads rows with a stride */
        icase c = {"aten::_embedding_bag", 9,
                   {T_(0), T_(1), T_(2), B_(0), I_(mode), B_(0), N_, B_(ilo), I_(mode == 1 ? 7 : -1)},
                   {{dt, 2, {10000, 64}, 0, 0, mode == 2 ? 1 : 0}, {ilo ? I32 : I64, 1, {100000}, 0, 10000, 0},
                    {ilo ? I32 : I64, 1, {5000}, 0, 100000, 3}},
                   4, 1};
        snprintf(label, sizeof label, "mode %d include_last_offset=%d %s", mode, ilo, tabi_dtype_name(dt));
        check_case(&c, label);
      }
    icase w = {"aten::_embedding_bag", 9, {T_(0), T_(1), T_(2), B_(0), I_(0), B_(0), T_(3), B_(0), I_(-1)},
               {{dt, 2, {10000, 300}, 0, 0, 0}, {I64, 1, {40000}, 0, 10000, 0}, {I64, 1, {3000}, 0, 40000, 3},
                {dt, 1, {40000}, 0, 0, 2}},
               4, 1};
    snprintf(label, sizeof label, "per_sample_weights stepped, D 300 %s", tabi_dtype_name(dt));
    check_case(&w, label);
  }
  icase e1 = {"aten::embedding_dense_backward", 5, {T_(0), T_(1), I_(1000), I_(-1), B_(0)},
              {{F32, 2, {5000, 16}, 0, 0, 0}, {I64, 1, {5000}, 0, 1001, 0}}, 1, 1};
  check_case(&e1, "index out of range");
  icase e2 = {"aten::_embedding_bag", 9, {T_(0), T_(1), T_(2), B_(0), I_(1), B_(0), N_, B_(0), I_(-1)},
              {{F32, 2, {1000, 16}, 0, 0, 0}, {I64, 1, {5000}, 0, 1001, 0}, {I64, 1, {100}, 0, 5000, 3}}, 4, 1};
  check_case(&e2, "index out of range");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_cpu_idx CPU_PLUGIN REFERENCE_PLUGIN\n");
    return 2;
  }
  timings = getenv("TABI_TEST_TIMINGS") != NULL;
  fast = load_rt(argv[1], "3");
  fast1 = load_rt(argv[1], "1");
  ref = load_rt(argv[2], NULL);
  CHECK(fast && fast1 && ref);
  if (!fast || !fast1 || !ref) return check_report();
  test_index();
  test_index_put();
  test_scatter();
  test_scatter_reduce();
  test_slices();
  test_embedding();
  tabi_runtime_destroy(fast);
  tabi_runtime_destroy(fast1);
  tabi_runtime_destroy(ref);
  return check_report();
}
