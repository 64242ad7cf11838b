/* plugins/cpu/cpu_reduce_prod.c: aten::prod, prod.dim_int and prims::prod in
 * both forms of cpu_reduce_plan.h (reduced elements of an output one contiguous
 * run, or columns contiguous across the kept inner dim).
 *
 * Floats (float32/float16/bfloat16/float64 in, the same or an exactly wider
 * float out): each output is the product in double of its elements in the
 * reference's order (row-major over the reduced dims), one multiply after the
 * other, rounded once at the store: the reference's bits, including where a
 * partial product overflows to inf or underflows to 0 before a later factor
 * would have brought it back (a reordered or split product would differ there,
 * by far more than any tolerance). So a float output is never split: outputs
 * are spread over the pool (rows: one output per task; columns: blocks of
 * adjacent columns, vectorized across them), and a full reduction is one
 * dependent multiply chain on one thread.
 * Integers and bool (to int64, or to the input's dtype for prims and an equal
 * dtype=): products in uint64 (two's complement wrap, as the reference's
 * int64 accumulator); exact and associative, so long runs are cut into fixed
 * chunks and combined in order.
 * Everything else (complex, dtype= that converts otherwise, 0-d and empty
 * inputs, bad arguments, layouts of neither form) runs the reference kernel.
 */
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu_reduce_kern.h"
#include "cpu_reduce_plan.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3
#define PCB 1024 /* column block (doubles / uint64 accumulators on the stack) */

static int is_float(tabi_dtype d) { return cpu_is_fast_float(d) || d == TABI_DTYPE_FLOAT64; }
static int is_int(tabi_dtype d) {
  return d == TABI_DTYPE_UINT8 || d == TABI_DTYPE_INT8 || d == TABI_DTYPE_INT16 ||
         d == TABI_DTYPE_INT32 || d == TABI_DTYPE_INT64;
}

/* --- float: one dependent chain per output ------------------------------------- */

static double row_prod_f(tabi_dtype dt, const void *x, int64_t n) {
  double acc = 1.0;
  switch (dt) {
    case TABI_DTYPE_FLOAT32: {
      const float *p = x;
      for (int64_t i = 0; i < n; i++) acc *= (double)p[i];
      break;
    }
    case TABI_DTYPE_FLOAT64: {
      const double *p = x;
      for (int64_t i = 0; i < n; i++) acc *= p[i];
      break;
    }
    case TABI_DTYPE_FLOAT16: {
      const uint16_t *p = x;
      for (int64_t i = 0; i < n; i++) acc *= (double)tabi_f16_to_f32(p[i]);
      break;
    }
    default: {
      const uint16_t *p = x;
      for (int64_t i = 0; i < n; i++) acc *= (double)tabi_bf16_to_f32(p[i]);
      break;
    }
  }
  return acc;
}

/* Four rows at once, each still one chain in order (the same bits as one row
 * at a time): four multiplies in flight instead of one (latency-bound). */
#define ROWS4(T, CVT)                                                                \
  {                                                                                  \
    const T *p0 = x[0], *p1 = x[1], *p2 = x[2], *p3 = x[3];                          \
    for (int64_t i = 0; i < n; i++) {                                                \
      a0 *= (double)CVT(p0[i]);                                                      \
      a1 *= (double)CVT(p1[i]);                                                      \
      a2 *= (double)CVT(p2[i]);                                                      \
      a3 *= (double)CVT(p3[i]);                                                      \
    }                                                                                \
  }
#define ID_CVT(v) (v)
static void rows4_prod_f(tabi_dtype dt, const void *const *x, int64_t n, double *r) {
  double a0 = 1.0, a1 = 1.0, a2 = 1.0, a3 = 1.0;
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ROWS4(float, ID_CVT) break;
    case TABI_DTYPE_FLOAT64: ROWS4(double, ID_CVT) break;
    case TABI_DTYPE_FLOAT16: ROWS4(uint16_t, tabi_f16_to_f32) break;
    default: ROWS4(uint16_t, tabi_bf16_to_f32) break;
  }
  r[0] = a0;
  r[1] = a1;
  r[2] = a2;
  r[3] = a3;
}

/* acc[i] *= x[i], i < w: independent columns, vectorized */
CLONES static void col_f32(double *restrict acc, const float *restrict x, int64_t w) {
  for (int64_t i = 0; i < w; i++) acc[i] *= (double)x[i];
}
CLONES static void col_f64(double *restrict acc, const double *restrict x, int64_t w) {
  for (int64_t i = 0; i < w; i++) acc[i] *= x[i];
}
static void col_prod_f(tabi_dtype dt, double *acc, const void *x, int64_t w) {
  if (dt == TABI_DTYPE_FLOAT32) {
    col_f32(acc, x, w);
  } else if (dt == TABI_DTYPE_FLOAT64) {
    col_f64(acc, x, w);
  } else {
    const uint16_t *p = x;
    if (dt == TABI_DTYPE_FLOAT16)
      for (int64_t i = 0; i < w; i++) acc[i] *= (double)tabi_f16_to_f32(p[i]);
    else
      for (int64_t i = 0; i < w; i++) acc[i] *= (double)tabi_bf16_to_f32(p[i]);
  }
}

/* --- integers: uint64 products (wrap) -------------------------------------------- */

#define FOR_INTS(X) \
  X(u8, uint8_t) X(i8, int8_t) X(i16, int16_t) X(i32, int32_t) X(i64, int64_t)
#define DEF_INT(S, T)                                                               \
  CLONES static uint64_t rprod_##S(const T *x, int64_t n) {                         \
    uint64_t a[4] = {1, 1, 1, 1};                                                   \
    int64_t i = 0;                                                                  \
    for (; i + 4 <= n; i += 4)                                                      \
      for (int k = 0; k < 4; k++) a[k] *= (uint64_t)(int64_t)x[i + k];              \
    for (; i < n; i++) a[0] *= (uint64_t)(int64_t)x[i];                             \
    return a[0] * a[1] * a[2] * a[3];                                               \
  }                                                                                 \
  CLONES static void cprod_##S(uint64_t *restrict acc, const T *restrict x, int64_t w) { \
    for (int64_t i = 0; i < w; i++) acc[i] *= (uint64_t)(int64_t)x[i];              \
  }
FOR_INTS(DEF_INT)

static uint64_t row_prod_i(tabi_dtype dt, const void *x, int64_t n) {
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: return rprod_u8(x, n);
    case TABI_DTYPE_INT8: return rprod_i8(x, n);
    case TABI_DTYPE_INT16: return rprod_i16(x, n);
    case TABI_DTYPE_INT32: return rprod_i32(x, n);
    default: return rprod_i64(x, n);
  }
}
static void col_prod_i(tabi_dtype dt, uint64_t *acc, const void *x, int64_t w) {
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: cprod_u8(acc, x, w); break;
    case TABI_DTYPE_INT8: cprod_i8(acc, x, w); break;
    case TABI_DTYPE_INT16: cprod_i16(acc, x, w); break;
    case TABI_DTYPE_INT32: cprod_i32(acc, x, w); break;
    default: cprod_i64(acc, x, w); break;
  }
}

/* the int64 product wrapped into an integer dtype (as the reference's store) */
static void store_i(tabi_dtype dt, void *p, int64_t i, uint64_t v) {
  switch (dt) {
    case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    default: ((int64_t *)p)[i] = (int64_t)v; break;
  }
}

/* --- the jobs ------------------------------------------------------------------------ */

typedef struct prod_job {
  const cpu_red_plan *p;
  tabi_dtype dt, odt;
  int flt;
  const char *x;
  int64_t es;
  int64_t nch, chunk, nb; /* rows: chunks per output (integers only); cols: blocks */
  uint64_t *part;
  void *out;
} prod_job;

static void prod_rows(void *arg, int64_t b, int64_t e) {
  const prod_job *j = arg;
  const cpu_red_plan *p = j->p;
  if (j->flt)
    for (; b + 4 <= e; b += 4) {
      const void *x[4];
      double v[4];
      for (int q = 0; q < 4; q++) {
        int64_t o = b + q;
        x[q] = j->x + ((o / p->n2) * p->s1 + (o % p->n2) * p->s2) * j->es;
      }
      rows4_prod_f(j->dt, x, p->R, v);
      for (int q = 0; q < 4; q++) cpu_red_store(j->odt, j->out, b + q, v[q]);
    }
  for (int64_t k = b; k < e; k++) {
    int64_t o = k / j->nch, start = (k % j->nch) * j->chunk;
    int64_t n = p->R - start < j->chunk ? p->R - start : j->chunk;
    const char *x = j->x + ((o / p->n2) * p->s1 + (o % p->n2) * p->s2 + start) * j->es;
    if (j->flt) {
      cpu_red_store(j->odt, j->out, o, row_prod_f(j->dt, x, n));
    } else {
      uint64_t v = row_prod_i(j->dt, x, n);
      if (j->nch == 1) store_i(j->odt, j->out, o, v);
      else j->part[k] = v;
    }
  }
}

static void prod_cols(void *arg, int64_t b, int64_t e) {
  const prod_job *j = arg;
  const cpu_red_plan *p = j->p;
  union { double d[PCB]; uint64_t u[PCB]; } acc;
  for (int64_t k = b; k < e; k++) {
    int64_t blk = k % j->nb, o1 = k / j->nb;
    int64_t c0 = blk * PCB, w = p->n2 - c0 < PCB ? p->n2 - c0 : PCB;
    const char *x = j->x + (o1 * p->s1 + c0) * j->es;
    if (j->flt) {
      for (int64_t i = 0; i < w; i++) acc.d[i] = 1.0;
      for (int64_t r = 0; r < p->R; r++) col_prod_f(j->dt, acc.d, x + r * p->sr * j->es, w);
      for (int64_t i = 0; i < w; i++) cpu_red_store(j->odt, j->out, o1 * p->n2 + c0 + i, acc.d[i]);
    } else {
      for (int64_t i = 0; i < w; i++) acc.u[i] = 1;
      for (int64_t r = 0; r < p->R; r++) col_prod_i(j->dt, acc.u, x + r * p->sr * j->es, w);
      for (int64_t i = 0; i < w; i++) store_i(j->odt, j->out, o1 * p->n2 + c0 + i, acc.u[i]);
    }
  }
}

static tabi_status prod_run(const cpu_ctx *c, const tabi_tensor *t, const cpu_red_plan *p,
                            tabi_tensor *out) {
  tabi_dtype dt = tabi_tensor_dtype(t);
  prod_job j = {p, dt, tabi_tensor_dtype(out), is_float(dt), tabi_tensor_data(t),
                (int64_t)tabi_dtype_size(dt), 1, p->R, 1, NULL, tabi_tensor_data(out)};
  if (p->cols) {
    j.nb = (p->n2 + PCB - 1) / PCB;
    int64_t per = p->R * (p->n2 < PCB ? p->n2 : PCB);
    cpu_parallel_for(c->pool, p->n1 * j.nb, 1 + 32768 / (per > 0 ? per : 1), prod_cols, &j);
    return TABI_OK;
  }
  if (!j.flt && p->R > CPU_REDUCE_CHUNK) {
    j.nch = (p->R + CPU_REDUCE_CHUNK - 1) / CPU_REDUCE_CHUNK;
    j.chunk = CPU_REDUCE_CHUNK;
    j.part = malloc((size_t)(p->nout * j.nch) * sizeof(uint64_t));
    if (!j.part) return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "cpu: prod: out of memory");
  }
  int64_t run = j.chunk < p->R ? j.chunk : p->R;
  cpu_parallel_for(c->pool, p->nout * j.nch, 1 + 32768 / (run > 0 ? run : 1), prod_rows, &j);
  if (j.part) {
    for (int64_t o = 0; o < p->nout; o++) {
      uint64_t v = 1;
      for (int64_t ch = 0; ch < j.nch; ch++) v *= j.part[o * j.nch + ch];
      store_i(j.odt, j.out, o, v);
    }
    free(j.part);
  }
  return TABI_OK;
}

/* --- kernels -------------------------------------------------------------------------------- */

/* The output dtype of the fast path, or INVALID (reference). `want`: dtype= /
 * output_dtype (NONE: the default). Floats: the input's dtype or an exact
 * widening (the cast of the input is then exact). Integers and bool: int64
 * (aten's default) or, for integers, their own dtype (prims' default). */
static tabi_dtype prod_out_dtype(tabi_dtype dt, const tabi_value *want, int prim) {
  tabi_dtype odt = TABI_DTYPE_INVALID;
  if (want->tag == TABI_TAG_DTYPE) odt = want->u.dtype;
  else if (want->tag != TABI_TAG_NONE) return TABI_DTYPE_INVALID;
  if (is_float(dt)) {
    if (odt == TABI_DTYPE_INVALID || odt == dt) return dt;
    if (odt == TABI_DTYPE_FLOAT64) return odt;
    if (odt == TABI_DTYPE_FLOAT32 && dt != TABI_DTYPE_FLOAT64) return odt;
    return TABI_DTYPE_INVALID;
  }
  if (!is_int(dt) && dt != TABI_DTYPE_BOOL) return TABI_DTYPE_INVALID;
  if (odt == TABI_DTYPE_INVALID) odt = prim ? dt : TABI_DTYPE_INT64;
  if (odt == TABI_DTYPE_INT64 || (odt == dt && is_int(dt))) return odt;
  return TABI_DTYPE_INVALID;
}

/* 1 when taken (*st set), 0 to fall back */
static int prod_fast(const cpu_ctx *c, const tabi_value *self, const tabi_value *dims,
                     int empty_is_all, int keepdim, const tabi_value *want, tabi_value *outs,
                     tabi_status *st) {
  if (self->tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *t = self->u.t;
  if (t->dl.ndim < 1 || t->dl.ndim > 16 || tabi_tensor_numel(t) == 0) return 0;
  tabi_dtype odt = prod_out_dtype(tabi_tensor_dtype(t), want, !empty_is_all);
  if (odt == TABI_DTYPE_INVALID) return 0;
  uint8_t reduced[16];
  int32_t ond;
  int64_t oshape[16];
  cpu_red_plan p;
  if (!cpu_red_dims(t, dims, empty_is_all, keepdim, reduced, &ond, oshape)) return 0;
  /* ordered: the reduced dims merge in their own order, so a run is walked in
   * the reference's order */
  if (!cpu_red_plan_make(t, reduced, 1, &p) || p.R0 != 1) return 0;
  tabi_tensor *o = NULL;
  if ((*st = cpu_empty(c, t, odt, ond, oshape, &o)) != TABI_OK) return 1;
  if ((*st = prod_run(c, t, &p, o)) != TABI_OK) {
    c->host->tensor_release(c->host->ctx, o);
    return 1;
  }
  outs[0] = tabi_tensor_value(o);
  return 1;
}

tabi_status cpu_k_prod(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  tabi_value none = tabi_none();
  if (prod_fast(c, &args[0], &none, 1, 0, &args[1], outs, &st)) return st;
  return CPU_FALLBACK(c, PROD);
}

tabi_status cpu_k_prod_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  int keep = args[2].tag == TABI_TAG_BOOL && args[2].u.i != 0;
  if (args[1].tag == TABI_TAG_INT && prod_fast(c, &args[0], &args[1], 1, keep, &args[3], outs, &st))
    return st;
  return CPU_FALLBACK(c, PROD_DIM);
}

tabi_status cpu_k_p_prod(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (prod_fast(c, &args[0], &args[1], 0, 0, &args[2], outs, &st)) return st;
  return CPU_FALLBACK(c, P_PROD);
}
