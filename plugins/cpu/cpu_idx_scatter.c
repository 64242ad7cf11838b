/* plugins/cpu/cpu_idx_scatter.c: aten::scatter.src, aten::scatter.value and
 * aten::scatter_reduce.two (sum, prod, mean, amax, amin; include_self either).
 *
 * The result is a contiguous clone of self. A "lane" is one coordinate of every
 * dim but `dim`; two lanes never write the same output element (their other
 * coordinates differ), and within a lane the reference visits index entries in
 * increasing position. Tasks take whole lanes and walk them in that order, so
 * the last write wins and reductions combine in the reference's order: the
 * same bits at every thread count. Lanes are grouped as (outer, inner) with the
 * inner dim contiguous where the layout allows, and a task walks a run of inner
 * lanes position by position, so index, src and output are read along rows.
 *
 * Reductions run in the dtype (float32, float64, int32, int64) or, for float16
 * and bfloat16, in a float32 copy rounded once at the end (the reference rounds
 * once too). include_self=False starts each reached element at the identity
 * (-0.0 for sums: -0.0 + x == x bitwise). Mean keeps a count per element.
 * Out-of-range indices, other dtypes and shapes go to the reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_idx.h"
#include "ref.h"

#define MD CPU_IDX_MAX_DIMS

enum { SC_ASSIGN, SC_VALUE, SC_SUM, SC_PROD, SC_MEAN, SC_AMAX, SC_AMIN };

typedef struct sc_job {
  int kind, include_self;
  tabi_dtype dt;                /* compute dtype (float32 for the float16 copy) */
  int64_t es;
  const int64_t *idx;
  const char *src;
  char *dst;
  unsigned char value[16];      /* scatter.value: the element's bytes */
  int64_t *cnt;                 /* mean: hits per output element */
  int64_t size, len;            /* self.size(dim), index.size(dim) */
  int64_t ik, sk, od;           /* strides along dim: index, src, output */
  int32_t nout;                 /* outer lane dims */
  int64_t oshape[MD], ost[3][MD]; /* outer dims: shape, strides of index, src, output */
  int64_t nin, ic, sc, oc;      /* the inner lane dim: size and strides */
  int prefetch;
  int bad;
} sc_job;

static void ident(int kind, tabi_dtype dt, void *p) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32:
      *(float *)p = kind == SC_PROD ? 1.0f : kind == SC_AMAX ? -INFINITY : kind == SC_AMIN ? INFINITY : -0.0f;
      break;
    case TABI_DTYPE_FLOAT64:
      *(double *)p = kind == SC_PROD ? 1.0 : kind == SC_AMAX ? -INFINITY : kind == SC_AMIN ? INFINITY : -0.0;
      break;
    case TABI_DTYPE_INT32:
      *(int32_t *)p = kind == SC_PROD ? 1 : kind == SC_AMAX ? INT32_MIN : kind == SC_AMIN ? INT32_MAX : 0;
      break;
    default:
      *(int64_t *)p = kind == SC_PROD ? 1 : kind == SC_AMAX ? INT64_MIN : kind == SC_AMIN ? INT64_MAX : 0;
      break;
  }
}

/* The walk of lanes c0..c1 (bases ib, sb, ob) over positions k, with the
 * element statement inlined: `d` the output element, SRC the source value,
 * e_ the output element's offset. Targets `ahead` positions on are
 * prefetched (random writes into a large output: several misses in flight). */
#define SRC S[sb + k * sk + c * sc]
#define SC_WALK(T, ...)                                                                   \
  do {                                                                                    \
    T *D = (T *)(void *)j->dst;                                                           \
    const T *S = (const T *)(const void *)j->src;                                         \
    (void)S;                                                                              \
    for (int64_t k = 0; k < len; k++) {                                                   \
      const int64_t *ix = j->idx + ib + k * ik;                                           \
      if (ahead && k + ahead < len)                                                       \
        for (int64_t c = c0; c < c1; c++) {                                               \
          uint64_t tp = (uint64_t)ix[ahead * ik + c * ic];                                \
          if (tp < (uint64_t)size) __builtin_prefetch(D + ob + (int64_t)tp * od + c * oc, 1, 0); \
        }                                                                                 \
      for (int64_t c = c0; c < c1; c++) {                                                 \
        int64_t t = ix[c * ic];                                                           \
        if ((uint64_t)t >= (uint64_t)size) { bad = 1; continue; }                         \
        int64_t e_ = ob + t * od + c * oc;                                                \
        T *d = D + e_;                                                                    \
        (void)e_;                                                                         \
        __VA_ARGS__;                                                                      \
      }                                                                                   \
    }                                                                                     \
  } while (0)

#define SC_RED_FLOAT(T)                                                                   \
  switch (j->kind) {                                                                      \
    case SC_PROD: SC_WALK(T, *d = *d * SRC); break;                                       \
    case SC_MEAN: SC_WALK(T, *d = *d + SRC; j->cnt[e_]++); break;                          \
    case SC_AMAX: SC_WALK(T, T a = *d; T v = SRC; if (!isnan(a) && (isnan(v) || v > a)) *d = v); break; \
    case SC_AMIN: SC_WALK(T, T a = *d; T v = SRC; if (!isnan(a) && (isnan(v) || v < a)) *d = v); break; \
    default: SC_WALK(T, *d = *d + SRC); break;                                            \
  }

#define SC_RED_INT(T, U)                                                                  \
  switch (j->kind) {                                                                      \
    case SC_PROD: SC_WALK(T, *d = (T)((U)*d * (U)SRC)); break;                            \
    case SC_MEAN: SC_WALK(T, *d = (T)((U)*d + (U)SRC); j->cnt[e_]++); break;              \
    case SC_AMAX: SC_WALK(T, T v = SRC; if (v > *d) *d = v); break;                       \
    case SC_AMIN: SC_WALK(T, T v = SRC; if (v < *d) *d = v); break;                       \
    default: SC_WALK(T, *d = (T)((U)*d + (U)SRC)); break;                                 \
  }

#define SC_BY_SIZE(STMT_T)                                                                \
  switch (j->es) {                                                                        \
    case 1: STMT_T(uint8_t); break;                                                       \
    case 2: STMT_T(uint16_t); break;                                                      \
    case 4: STMT_T(uint32_t); break;                                                      \
    default: STMT_T(uint64_t); break; /* es 8: sc_run takes 1, 2, 4, 8 */                 \
  }
#define SC_ASSIGN_T(T) SC_WALK(T, *d = SRC)
#define SC_VALUE_T(T) do { T val; memcpy(&val, j->value, sizeof val); SC_WALK(T, *d = val); } while (0)

/* init: the identity pass of include_self=False. */
static void sc_walk(sc_job *j, int64_t ib, int64_t sb, int64_t ob, int64_t c0, int64_t c1, int init) {
  const int64_t size = j->size, len = j->len, ik = j->ik, sk = j->sk, od = j->od;
  const int64_t ic = j->ic, sc = j->sc, oc = j->oc;
  /* prefetch rows ahead when the output is too large for the caches */
  const int64_t ahead = j->prefetch ? 1 + 31 / (c1 - c0) : 0;
  int bad = 0;
  if (init) {
    switch (j->dt) {
      case TABI_DTYPE_FLOAT32: { float idv; ident(j->kind, j->dt, &idv); SC_WALK(float, *d = idv); break; }
      case TABI_DTYPE_FLOAT64: { double idv; ident(j->kind, j->dt, &idv); SC_WALK(double, *d = idv); break; }
      case TABI_DTYPE_INT32: { int32_t idv; ident(j->kind, j->dt, &idv); SC_WALK(int32_t, *d = idv); break; }
      default: { int64_t idv; ident(j->kind, j->dt, &idv); SC_WALK(int64_t, *d = idv); break; }
    }
  } else if (j->kind == SC_ASSIGN) {
    SC_BY_SIZE(SC_ASSIGN_T)
  } else if (j->kind == SC_VALUE) {
    SC_BY_SIZE(SC_VALUE_T)
  } else {
    switch (j->dt) {
      case TABI_DTYPE_FLOAT32: SC_RED_FLOAT(float) break;
      case TABI_DTYPE_FLOAT64: SC_RED_FLOAT(double) break;
      case TABI_DTYPE_INT32: SC_RED_INT(int32_t, uint32_t) break;
      default: SC_RED_INT(int64_t, uint64_t) break;
    }
  }
  if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

/* mean: each reached element divided by its count (+1 with self); integers floor. */
static void mean_range(void *arg, int64_t b, int64_t e) {
  const sc_job *j = arg;
  char *base = j->dst;
  for (int64_t i = b; i < e; i++) {
    int64_t k = j->cnt[i];
    if (!k) continue;
    k += j->include_self;
    switch (j->dt) {
      case TABI_DTYPE_FLOAT32: ((float *)(void *)base)[i] /= (float)k; break;
      case TABI_DTYPE_FLOAT64: ((double *)(void *)base)[i] /= (double)k; break;
      case TABI_DTYPE_INT32: {
        int32_t *p = (int32_t *)(void *)base + i;
        int64_t a = *p, qd = a / k;
        if (a % k != 0 && a < 0) qd--; /* floor, k > 0 */
        *p = (int32_t)qd;
        break;
      }
      default: {
        int64_t *p = (int64_t *)(void *)base + i, a = *p, qd = a / k;
        if (a % k != 0 && a < 0) qd--;
        *p = qd;
        break;
      }
    }
  }
}

/* Lanes (o, c0..c1): position-major (for k: for c) when the inner lanes are
 * adjacent in the index, so rows of index, src and output are read along;
 * else lane by lane (the position runs along each lane), which keeps a long
 * run of strided lanes from being swept once per position. */
static void sc_lanes(sc_job *j, int64_t o, int64_t c0, int64_t c1, int init) {
  int64_t ib = 0, sb = 0, ob = 0, q = o;
  for (int32_t d = j->nout - 1; d >= 0; d--) {
    int64_t x = q % j->oshape[d];
    q /= j->oshape[d];
    ib += x * j->ost[0][d];
    sb += x * j->ost[1][d];
    ob += x * j->ost[2][d];
  }
  if (j->ic == 1 || j->len < 4) {
    sc_walk(j, ib, sb, ob, c0, c1, init);
    return;
  }
  for (int64_t c = c0; c < c1; c++) sc_walk(j, ib, sb, ob, c, c + 1, init);
}

static void sc_range(void *arg, int64_t r0, int64_t r1) {
  sc_job *j = arg;
  for (int64_t r = r0; r < r1;) {
    int64_t o = r / j->nin, c0 = r % j->nin, c1 = c0 + (r1 - r);
    if (c1 > j->nin) c1 = j->nin;
    if (j->kind >= SC_SUM && !j->include_self) { /* identities first, in this task's own lanes */
      sc_lanes(j, o, c0, c1, 1);
    }
    sc_lanes(j, o, c0, c1, 0);
    r += c1 - c0;
  }
}

/* The call's shapes as the fast path takes them (else the reference checks). */
static int sc_shapes_ok(const tabi_tensor *self, int32_t dim, const tabi_tensor *index,
                        const tabi_tensor *src) {
  int32_t nd = self->dl.ndim;
  if (index->dl.ndim != nd || (src && src->dl.ndim != nd)) return 0;
  for (int32_t d = 0; d < nd; d++) {
    if (d != dim && index->dl.shape[d] > self->dl.shape[d]) return 0;
    if (src && index->dl.shape[d] > src->dl.shape[d]) return 0;
  }
  return 1;
}

/* A Scalar that surely converts to dt without ATen's overflow error (others:
 * the reference decides). */
static int value_fits(const tabi_value *v, tabi_dtype dt) {
  if (v->tag == TABI_TAG_BOOL || dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_BOOL) return v->tag != TABI_TAG_COMPLEX;
  if (v->tag == TABI_TAG_INT) {
    int64_t i = v->u.i;
    switch (dt) {
      case TABI_DTYPE_INT64: case TABI_DTYPE_FLOAT32: case TABI_DTYPE_BFLOAT16: return 1;
      case TABI_DTYPE_INT32: return i >= INT32_MIN && i <= INT32_MAX;
      case TABI_DTYPE_INT16: return i >= INT16_MIN && i <= INT16_MAX;
      case TABI_DTYPE_INT8: return i >= INT8_MIN && i <= INT8_MAX;
      case TABI_DTYPE_UINT8: return i >= 0 && i <= 255;
      case TABI_DTYPE_FLOAT16: return i >= -65504 && i <= 65504;
      default: return 0;
    }
  }
  if (v->tag == TABI_TAG_FLOAT) {
    double f = v->u.f;
    if (dt == TABI_DTYPE_FLOAT32) return !isfinite(f) || fabs(f) <= 3.4028234663852886e38;
    if (dt == TABI_DTYPE_FLOAT16) return !isfinite(f) || fabs(f) <= 65504.0;
    if (dt == TABI_DTYPE_BFLOAT16) return !isfinite(f) || fabs(f) <= 3.3895313892515355e38;
  }
  return 0;
}

static tabi_status sc_run(const cpu_ctx *c, int op, int kind, const tabi_call *call, tabi_value *args,
                          tabi_value *outs, int include_self) {
#define FALLBACK() (op == 0 ? CPU_FALLBACK(c, SCATTER_SRC) : op == 1 ? CPU_FALLBACK(c, SCATTER_VALUE) \
                                                                   : CPU_FALLBACK(c, SCATTER_REDUCE))
  int has_src = kind != SC_VALUE;
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR ||
      (has_src && args[3].tag != TABI_TAG_TENSOR))
    return FALLBACK();
  const tabi_tensor *self = args[0].u.t, *index = args[2].u.t, *src = has_src ? args[3].u.t : NULL;
  tabi_dtype dt = tabi_tensor_dtype(self);
  int32_t nd = self->dl.ndim, dim = cpu_wrap_dim(args[1].u.i, nd);
  int64_t es = tabi_dtype_size(dt);
  int half = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
  if (nd < 1 || nd > MD || dim < 0 || (es != 1 && es != 2 && es != 4 && es != 8) || tabi_tensor_dtype(index) != TABI_DTYPE_INT64 ||
      tabi_tensor_numel(index) == 0 || (src && tabi_tensor_dtype(src) != dt) ||
      !sc_shapes_ok(self, dim, index, src))
    return FALLBACK();
  if (kind >= SC_SUM && !half && dt != TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64 &&
      dt != TABI_DTYPE_INT32 && dt != TABI_DTYPE_INT64)
    return FALLBACK();
  sc_job j;
  memset(&j, 0, sizeof j);
  if (kind == SC_VALUE) {
    const tabi_value *v = &args[3];
    if (!value_fits(v, dt) || tabi_dtype_is_complex(dt)) return FALLBACK();
    if (v->tag == TABI_TAG_INT || v->tag == TABI_TAG_BOOL) ref_store_i_ptr(j.value, dt, v->u.i);
    else ref_store_f_ptr(j.value, dt, ref_scalar_f(v));
  }
  tabi_tensor *o = NULL;
  tabi_status st = cpu_idx_clone(c, self, &o);
  if (st != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(o), ost[MD], e = 1;
  for (int32_t d = nd - 1; d >= 0; d--) { ost[d] = e; e *= self->dl.shape[d]; }
  /* float16 / bfloat16 reductions: output and src as float32 copies (src
   * contiguous, so its strides become the row-major ones) */
  float *scratch = NULL, *fsrc = NULL;
  int64_t sst[MD];
  for (int32_t d = 0; src && d < nd; d++) sst[d] = src->dl.strides[d];
  if (kind >= SC_SUM && half) {
    tabi_tensor *sc = NULL;
    int64_t ns = tabi_tensor_numel(src);
    scratch = malloc(sizeof(float) * (size_t)n);
    fsrc = malloc(sizeof(float) * (size_t)ns);
    if (scratch && fsrc && cpu_idx_clone(c, src, &sc) == TABI_OK) {
      cpu_to_f32(c, dt, tabi_tensor_data(o), scratch, n);
      cpu_to_f32(c, dt, tabi_tensor_data(sc), fsrc, ns);
      c->host->tensor_release(c->host->ctx, sc);
      e = 1;
      for (int32_t d = nd - 1; d >= 0; d--) { sst[d] = e; e *= src->dl.shape[d]; }
    } else {
      free(scratch);
      free(fsrc);
      c->host->tensor_release(c->host->ctx, o);
      return FALLBACK();
    }
  }
  if (kind == SC_MEAN) {
    j.cnt = calloc((size_t)n, sizeof(int64_t));
    if (!j.cnt) {
      free(scratch);
      c->host->tensor_release(c->host->ctx, o);
      return FALLBACK();
    }
  }
  j.kind = kind;
  j.include_self = include_self;
  j.dt = scratch ? TABI_DTYPE_FLOAT32 : dt;
  j.es = scratch ? 4 : es;
  j.idx = tabi_tensor_data(index);
  j.src = fsrc ? (const char *)fsrc : src ? tabi_tensor_data(src) : NULL;
  j.dst = scratch ? (char *)scratch : tabi_tensor_data(o);
  j.size = self->dl.shape[dim];
  j.len = index->dl.shape[dim];
  j.ik = index->dl.strides[dim];
  j.sk = src ? sst[dim] : 0;
  j.od = ost[dim];
  /* the lane dims, collapsed where index, src and output all allow */
  int64_t lshape[MD], lst[3][MD];
  int32_t nl = 0;
  for (int32_t d = 0; d < nd; d++) {
    if (d == dim) continue;
    lshape[nl] = index->dl.shape[d];
    lst[0][nl] = index->dl.strides[d];
    lst[1][nl] = src ? sst[d] : 0;
    lst[2][nl] = ost[d];
    nl++;
  }
  nl = cpu_idx_collapse(nl, lshape, 3, lst);
  j.nin = 1;
  if (nl > 0) {
    nl--;
    j.nin = lshape[nl];
    j.ic = lst[0][nl];
    j.sc = lst[1][nl];
    j.oc = lst[2][nl];
  }
  j.nout = nl;
  int64_t lanes = j.nin;
  for (int32_t d = 0; d < nl; d++) {
    j.oshape[d] = lshape[d];
    for (int k = 0; k < 3; k++) j.ost[k][d] = lst[k][d];
    lanes *= lshape[d];
  }
  j.prefetch = n * j.es > (4 << 20);
  /* tasks of >= 16K elements (cnt is shared but each element is in one lane) */
  cpu_parallel_for(c->pool, lanes, 1 + 16384 / j.len, sc_range, &j);
  int bad = __atomic_load_n(&j.bad, __ATOMIC_RELAXED);
  if (!bad && kind == SC_MEAN) cpu_parallel_for(c->pool, n, 65536, mean_range, &j);
  if (!bad && scratch) cpu_from_f32(c, dt, scratch, tabi_tensor_data(o), n);
  free(scratch);
  free(fsrc);
  free(j.cnt);
  if (bad) {
    c->host->tensor_release(c->host->ctx, o);
    return FALLBACK(); /* the reference names the bad index */
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
#undef FALLBACK
}

tabi_status cpu_k_scatter_src(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return sc_run(ctx, 0, SC_ASSIGN, call, args, outs, 1);
}

tabi_status cpu_k_scatter_value(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return sc_run(ctx, 1, SC_VALUE, call, args, outs, 1);
}

tabi_status cpu_k_scatter_reduce(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  static const struct { const char *name; int kind; } reds[] = {
      {"sum", SC_SUM}, {"prod", SC_PROD}, {"mean", SC_MEAN}, {"amax", SC_AMAX}, {"amin", SC_AMIN}};
  if (args[4].tag != TABI_TAG_STRING) return CPU_FALLBACK(c, SCATTER_REDUCE);
  const char *s = tabi_value_str(&args[4]);
  int64_t len = args[4].u.list.len;
  for (size_t k = 0; k < sizeof reds / sizeof reds[0]; k++)
    if ((int64_t)strlen(reds[k].name) == len && memcmp(reds[k].name, s, (size_t)len) == 0)
      return sc_run(c, 2, reds[k].kind, call, args, outs, args[5].u.i != 0);
  return CPU_FALLBACK(c, SCATTER_REDUCE);
}
