/* plugins/cpu/cpu_elementwise_int.c: integer div "trunc"/"floor", fmod and
 * remainder (aten and prims), threaded and vectorized (see cpu_elementwise_int.h).
 *
 * Semantics are the reference's (ATen's): truncating division, floor division
 * (q - 1 where the remainder is nonzero and the signs differ), fmod with the
 * dividend's sign, remainder with the divisor's; INT_MIN / -1 wraps to INT_MIN
 * (fmod and remainder by -1 are 0); a zero divisor is an error, which the
 * reference raises: any zero divisor element sends the whole call there.
 *
 * x86 has no vector integer division, but a floating division is exact enough:
 * for integers |a| < 2^53 and b != 0 the correctly rounded quotient fl(a/b) lies
 * within |a/b| * 2^-53 < 1/|b| of a/b, and a non-integer a/b is at least 1/|b|
 * away from the integers around it, so trunc(fl(a/b)) and floor(fl(a/b)) are the
 * exact integer quotients (an integer a/b is exact). So int32 divides in double,
 * int16/int8/uint8 in float (|a| <= 2^15 < 2^24 by the same bound), and int64 in
 * double for every block whose operands lie within +-2^52 (q*b is then exact
 * too); other int64 blocks use the scalar division.
 *
 * Contiguous operands of the result dtype (or a Scalar / 0-d tensor on either
 * side) take the typed loops below; broadcast, strided or promoted operands go
 * through the elementwise engine's int64 blocks (cpu_ew_engine.h), divided by
 * the int64 loops (every dtype's values fit the double path there).
 */
#include "cpu_elementwise_int.h"

#include <math.h>
#include <string.h>

#include "../../reference/ref_elementwise.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3
#define IBLK 1024
#define I64_LIM ((int64_t)1 << 52)

/* --- typed loops (b has no zero: checked per block before) ------------------------ */

/* One loop per dtype and op: F is the floating type that divides exactly; GUARD
 * maps the one quotient that does not fit the int32 step (INT32_MIN / -1 =
 * 2^31) to its wrapped value, as the reference's int64 result stored to int32. */
#define NARROW_LOOPS(T, F, SUF, TRUNCF, FLOORF, GUARD)                                        \
  CLONES static void SUF##_trunc(T *o, const T *a, const T *b, int64_t n) {                   \
    for (int64_t i = 0; i < n; i++) {                                                         \
      F q = (F)a[i] / (F)b[i];                                                                \
      o[i] = (T)(int32_t)(GUARD(q));                                                          \
    }                                                                                         \
  }                                                                                           \
  CLONES static void SUF##_floor(T *o, const T *a, const T *b, int64_t n) {                   \
    for (int64_t i = 0; i < n; i++) {                                                         \
      F q = FLOORF((F)a[i] / (F)b[i]);                                                        \
      o[i] = (T)(int32_t)(GUARD(q));                                                          \
    }                                                                                         \
  }                                                                                           \
  CLONES static void SUF##_fmod(T *o, const T *a, const T *b, int64_t n) {                    \
    for (int64_t i = 0; i < n; i++) {                                                         \
      F x = (F)a[i], y = (F)b[i];                                                             \
      o[i] = (T)(int32_t)(x - TRUNCF(x / y) * y);                                             \
    }                                                                                         \
  }                                                                                           \
  CLONES static void SUF##_rem(T *o, const T *a, const T *b, int64_t n) {                     \
    for (int64_t i = 0; i < n; i++) {                                                         \
      F x = (F)a[i], y = (F)b[i];                                                             \
      o[i] = (T)(int32_t)(x - FLOORF(x / y) * y);                                             \
    }                                                                                         \
  }                                                                                           \
  CLONES static int SUF##_has_zero(const T *b, int64_t n) {                                   \
    int z = 0;                                                                                \
    for (int64_t i = 0; i < n; i++) z |= b[i] == 0;                                           \
    return z;                                                                                 \
  }

#define NO_GUARD(q) (q)
#define I32_GUARD(q) ((q) >= 2147483648.0 ? -2147483648.0 : (q))
NARROW_LOOPS(int32_t, double, i32, trunc, floor, I32_GUARD)
NARROW_LOOPS(int16_t, float, i16, truncf, floorf, NO_GUARD)
NARROW_LOOPS(int8_t, float, i8, truncf, floorf, NO_GUARD)
NARROW_LOOPS(uint8_t, float, u8, truncf, floorf, NO_GUARD)

/* floor(q) as trunc(q) - (trunc(q) > q): gcc folds (int64_t)floor(q) into an
 * lfloor call that has no vector form */
static inline double floor_v(double q) {
  double t = trunc(q);
  return t - (double)(t > q);
}

/* int64 through double: only for blocks within +-2^52 (i64_small) */
#define I64_DBL(name, expr)                                                                   \
  CLONES static void name(int64_t *o, const int64_t *a, const int64_t *b, int64_t n) {        \
    for (int64_t i = 0; i < n; i++) {                                                         \
      double x = (double)a[i], y = (double)b[i];                                              \
      o[i] = (int64_t)(expr);                                                                 \
    }                                                                                         \
  }
I64_DBL(i64d_trunc, x / y)
I64_DBL(i64d_floor, floor_v(x / y))
I64_DBL(i64d_fmod, x - trunc(x / y) * y)
I64_DBL(i64d_rem, x - floor(x / y) * y)

/* 1 when every p[i] lies in [-2^52, 2^52] (a vectorizable reduction) */
CLONES static int i64_small(const int64_t *p, int64_t n) {
  uint64_t bad = 0;
  for (int64_t i = 0; i < n; i++) bad |= (uint64_t)((uint64_t)p[i] + (uint64_t)I64_LIM) > (uint64_t)(2 * I64_LIM);
  return bad == 0;
}
CLONES static int i64_has_zero(const int64_t *b, int64_t n) {
  int z = 0;
  for (int64_t i = 0; i < n; i++) z |= b[i] == 0;
  return z;
}

/* The scalar division as the reference's int64 element functions (b != 0; INT64_MIN
 * / -1 wraps), one loop per op (/ and % share one idiv). */
#define I64_SCALAR(name, expr)                                                                \
  static void name(int64_t *o, const int64_t *a, const int64_t *b, int64_t n) {               \
    for (int64_t i = 0; i < n; i++) {                                                         \
      int64_t x = a[i], y = b[i], q, r;                                                       \
      if (y == -1) {                                                                          \
        q = (int64_t)(0 - (uint64_t)x);                                                       \
        r = 0;                                                                                \
      } else {                                                                                \
        q = x / y;                                                                            \
        r = x % y;                                                                            \
      }                                                                                       \
      (void)q;                                                                                \
      (void)r;                                                                                \
      o[i] = (expr);                                                                          \
    }                                                                                         \
  }
I64_SCALAR(i64s_trunc, q)
I64_SCALAR(i64s_floor, r != 0 && ((r < 0) != (y < 0)) ? q - 1 : q)
I64_SCALAR(i64s_fmod, r)
I64_SCALAR(i64s_rem, r != 0 && ((r < 0) != (y < 0)) ? r + y : r)

static void i64_scalar(int32_t op, int64_t *o, const int64_t *a, const int64_t *b, int64_t n) {
  switch (op) {
    case CPU_IDIV_TRUNC: i64s_trunc(o, a, b, n); break;
    case CPU_IDIV_FLOOR: i64s_floor(o, a, b, n); break;
    case CPU_IDIV_FMOD: i64s_fmod(o, a, b, n); break;
    default: i64s_rem(o, a, b, n); break;
  }
}

/* --- the contiguous job -------------------------------------------------------------- */

typedef struct idiv_job {
  int32_t op;
  tabi_dtype dt;
  int32_t esz;
  const char *a, *b; /* NULL: the repeated element below */
  char *o;
  int64_t av, bv;    /* repeated operands, cast to dt */
  int zero;          /* set when a zero divisor was seen */
} idiv_job;

static void fill_rep(unsigned char *buf, tabi_dtype dt, int64_t v, int64_t n) {
  for (int64_t i = 0; i < n; i++) ref_store_i_ptr(buf + i * (int64_t)tabi_dtype_size(dt), dt, v);
}

/* The narrow loop of (dt, op): int32 ... uint8. */
static void run_narrow(tabi_dtype dt, int32_t op, void *o, const void *a, const void *b,
                       int64_t n) {
#define PICK(SUF, T)                                                                          \
  switch (op) {                                                                               \
    case CPU_IDIV_TRUNC: SUF##_trunc((T *)o, (const T *)a, (const T *)b, n); break;           \
    case CPU_IDIV_FLOOR: SUF##_floor((T *)o, (const T *)a, (const T *)b, n); break;           \
    case CPU_IDIV_FMOD: SUF##_fmod((T *)o, (const T *)a, (const T *)b, n); break;             \
    default: SUF##_rem((T *)o, (const T *)a, (const T *)b, n); break;                         \
  }
  switch (dt) {
    case TABI_DTYPE_INT32: PICK(i32, int32_t) break;
    case TABI_DTYPE_INT16: PICK(i16, int16_t) break;
    case TABI_DTYPE_INT8: PICK(i8, int8_t) break;
    default: PICK(u8, uint8_t) break;
  }
#undef PICK
}

static int has_zero(tabi_dtype dt, const void *b, int64_t n) {
  switch (dt) {
    case TABI_DTYPE_INT64: return i64_has_zero(b, n);
    case TABI_DTYPE_INT32: return i32_has_zero(b, n);
    case TABI_DTYPE_INT16: return i16_has_zero(b, n);
    case TABI_DTYPE_INT8: return i8_has_zero(b, n);
    default: return u8_has_zero(b, n);
  }
}

static void run_i64(int32_t op, int64_t *o, const int64_t *a, const int64_t *b, int64_t n) {
  if (!i64_small(a, n) || !i64_small(b, n)) {
    i64_scalar(op, o, a, b, n);
    return;
  }
  switch (op) {
    case CPU_IDIV_TRUNC: i64d_trunc(o, a, b, n); break;
    case CPU_IDIV_FLOOR: i64d_floor(o, a, b, n); break;
    case CPU_IDIV_FMOD: i64d_fmod(o, a, b, n); break;
    default: i64d_rem(o, a, b, n); break;
  }
}

static void idiv_range(void *arg, int64_t begin, int64_t end) {
  idiv_job *j = arg;
  _Alignas(64) unsigned char ra[IBLK * 8], rb[IBLK * 8];
  const int64_t es = j->esz;
  if (!j->a) fill_rep(ra, j->dt, j->av, IBLK);
  if (!j->b) fill_rep(rb, j->dt, j->bv, IBLK);
  for (int64_t off = begin; off < end; off += IBLK) {
    if (__atomic_load_n(&j->zero, __ATOMIC_RELAXED)) return; /* the reference redoes it */
    int64_t m = end - off < IBLK ? end - off : IBLK;
    const void *a = j->a ? (const void *)(j->a + off * es) : (const void *)ra;
    const void *b = j->b ? (const void *)(j->b + off * es) : (const void *)rb;
    if (j->b && has_zero(j->dt, b, m)) {
      __atomic_store_n(&j->zero, 1, __ATOMIC_RELAXED);
      return;
    }
    void *o = j->o + off * es;
    if (j->dt == TABI_DTYPE_INT64) run_i64(j->op, o, a, b, m);
    else run_narrow(j->dt, j->op, o, a, b, m);
  }
}

/* --- the engine's int64 loop for broadcast / strided / promoted operands ------------- */

typedef struct idiv_ecall {
  cpu_ew_call e; /* first: the engine hands back &e */
  int *zero;
} idiv_ecall;

/* A block of at most CPU_EW_BLOCK int64 values (narrower dtypes widened: the
 * engine's store wraps them back, as the reference's int64 results are). */
static void idiv_ifn(int64_t *x, const int64_t *y, int64_t n, const cpu_ew_call *e) {
  const idiv_ecall *w = (const idiv_ecall *)(const void *)e;
  if (i64_has_zero(y, n)) { /* the reference redoes the call and raises */
    __atomic_store_n(w->zero, 1, __ATOMIC_RELAXED);
    return;
  }
  _Alignas(64) int64_t t[CPU_EW_BLOCK];
  run_i64((int32_t)e->pi[0], t, x, y, n);
  memcpy(x, t, (size_t)n * sizeof *t);
}

/* --- entry ------------------------------------------------------------------------------ */

/* A Scalar or 0-d tensor cast to dt as the reference casts it; 0 when v is neither. */
static int rep_value(const tabi_value *v, tabi_dtype dt, int64_t *out) {
  if (v->tag == TABI_TAG_TENSOR) {
    if (v->u.t->dl.ndim != 0) return 0;
    *out = ref_ew_load(v->u.t, 0, dt).i;
    return 1;
  }
  if (v->tag != TABI_TAG_BOOL && v->tag != TABI_TAG_INT) return 0;
  tabi_dtype sdt;
  ref_ew_val s = ref_ew_scalar(v, &sdt);
  *out = ref_ew_cast(s, sdt, dt).i;
  return 1;
}

static int dimensioned(const tabi_value *v) {
  return v->tag == TABI_TAG_TENSOR && v->u.t->dl.ndim > 0;
}

/* A dimensioned operand the typed loops read directly. */
static int direct(const tabi_value *v, tabi_dtype dt) {
  return tabi_tensor_dtype(v->u.t) == dt && cpu_contig(v->u.t);
}

tabi_status cpu_ew_int_divmod(const cpu_ctx *c, const tabi_call *call, tabi_value *args,
                              tabi_value *outs, int32_t op, int32_t prim) {
  const tabi_value *a = &args[0], *b = &args[1];
  tabi_dtype dt;
  if (prim) {
    if (a->tag != TABI_TAG_TENSOR || b->tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
    dt = tabi_tensor_dtype(a->u.t);
    if (tabi_tensor_dtype(b->u.t) != dt || !cpu_same_shape(a->u.t, b->u.t)) return CPU_EW_DECLINE;
  } else {
    if (a->tag != TABI_TAG_TENSOR && b->tag != TABI_TAG_TENSOR) return CPU_EW_DECLINE;
    dt = ref_ew_result_type(a, b, NULL);
  }
  if (!tabi_dtype_is_integral(dt, 0)) return CPU_EW_DECLINE;
  int da = dimensioned(a), db = dimensioned(b);
  if (!da && !db) return CPU_EW_DECLINE; /* one element: the reference */
  const tabi_tensor *like = da ? a->u.t : b->u.t;
  if (tabi_tensor_numel(like) == 0) return CPU_EW_DECLINE;
  for (int k = 0; k < 2; k++) {
    const tabi_value *v = &args[k];
    if (v->tag != TABI_TAG_TENSOR && v->tag != TABI_TAG_BOOL && v->tag != TABI_TAG_INT)
      return CPU_EW_DECLINE;
  }
  idiv_job j;
  memset(&j, 0, sizeof j);
  j.op = op;
  j.dt = dt;
  j.esz = (int32_t)tabi_dtype_size(dt);
  if (!da) (void)rep_value(a, dt, &j.av);
  if (!db) {
    (void)rep_value(b, dt, &j.bv);
    if (j.bv == 0) return CPU_EW_DECLINE;
  }
  int fast = (!da || direct(a, dt)) && (!db || direct(b, dt)) &&
             (!da || !db || cpu_same_shape(a->u.t, b->u.t));
  tabi_tensor *out = NULL;
  tabi_status st;
  if (fast) {
    st = cpu_empty(c, like, dt, like->dl.ndim, like->dl.shape, &out);
    if (st != TABI_OK) return st;
    j.a = da ? tabi_tensor_data(a->u.t) : NULL;
    j.b = db ? tabi_tensor_data(b->u.t) : NULL;
    j.o = tabi_tensor_data(out);
    cpu_parallel_for(c->pool, tabi_tensor_numel(out), 16384, idiv_range, &j);
    outs[0] = tabi_tensor_value(out);
  } else {
    idiv_ecall w;
    memset(&w, 0, sizeof w);
    w.zero = &j.zero;
    w.e.kind = CPU_EWK_BINARY;
    w.e.in[0] = a;
    w.e.in[1] = b;
    w.e.cd = w.e.od = dt;
    w.e.fop = -1;
    w.e.ifn = idiv_ifn;
    w.e.heavy = 1;
    w.e.pi[0] = op;
    st = cpu_ew_run(c, &w.e, outs);
    if (st != TABI_OK) return st;
  }
  if (__atomic_load_n(&j.zero, __ATOMIC_RELAXED)) {
    c->host->tensor_release(c->host->ctx, outs[0].u.t);
    outs[0] = tabi_none();
    return CPU_EW_DECLINE;
  }
  return TABI_OK;
}
