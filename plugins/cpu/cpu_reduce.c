/* plugins/cpu/cpu_reduce.c: sum, mean, amax, amin over all elements or over the
 * last dim of a contiguous float32/float16/bfloat16 tensor.
 *
 * Full reductions cut the input into CPU_REDUCE_CHUNK-element chunks (a fixed
 * size, not a thread count), reduce the chunks in parallel and combine the
 * partials in chunk order: bitwise identical results for every thread count,
 * so deterministic mode needs nothing more. Last-dim reductions give each row
 * to one thread. Sums accumulate in double, as the reference does. Every other
 * case (other dims, dtypes, an explicit dtype=, strided input, empty or 0-d
 * tensors) runs the reference kernel.
 */
#include <math.h>
#include <stdlib.h>

#include <tabi/half.h>

#include "cpu_reduce_kern.h"

#define RED_SUM 0
#define RED_MEAN 1
#define RED_MAX 2
#define RED_MIN 3
#define RED_BLOCK 4096

/* Reduces n contiguous elements of dtype dt at p: a sum (double) or max/min. */
static double reduce_run(const cpu_ctx *c, tabi_dtype dt, const char *p, int64_t n, int kind) {
  int is_max = kind == RED_MAX || kind == RED_MIN;
  if (dt == TABI_DTYPE_FLOAT32)
    return is_max ? (double)cpu_max_f32(c, (const float *)p, n, kind == RED_MIN)
                  : cpu_sum_f32(c, (const float *)p, n);
  float buf[RED_BLOCK];
  double acc = 0.0;
  for (int64_t i = 0; i < n; i += RED_BLOCK) {
    int64_t m = n - i < RED_BLOCK ? n - i : RED_BLOCK;
    cpu_to_f32(c, dt, p + 2 * i, buf, m);
    if (!is_max) {
      acc += cpu_sum_f32(c, buf, m);
    } else {
      double v = cpu_max_f32(c, buf, m, kind == RED_MIN);
      if (i == 0 || isnan(v)) acc = v;
      else if (!isnan(acc)) acc = kind == RED_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc);
    }
  }
  return acc;
}

static void store_f(tabi_dtype dt, void *p, int64_t i, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    default: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
  }
}

typedef struct red_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  const char *x;
  int64_t len;   /* of a row (last-dim) or of the whole input (full) */
  int64_t nparts;
  double *partial;
  void *out;
  int kind;
} red_job;

static void full_range(void *arg, int64_t b, int64_t e) {
  const red_job *j = arg;
  int64_t es = tabi_dtype_size(j->dt);
  for (int64_t k = b; k < e; k++) {
    int64_t s = k * CPU_REDUCE_CHUNK;
    int64_t n = j->len - s < CPU_REDUCE_CHUNK ? j->len - s : CPU_REDUCE_CHUNK;
    j->partial[k] = reduce_run(j->c, j->dt, j->x + s * es, n, j->kind);
  }
}

static void rows_range(void *arg, int64_t b, int64_t e) {
  const red_job *j = arg;
  int64_t es = tabi_dtype_size(j->dt);
  for (int64_t r = b; r < e; r++) {
    double v = reduce_run(j->c, j->dt, j->x + r * j->len * es, j->len, j->kind);
    if (j->kind == RED_MEAN) v /= (double)j->len;
    store_f(j->dt, j->out, r, v);
  }
}

/* Which dims: 0 = not fast, 1 = all, 2 = the last one only. */
static int classify_dims(const tabi_tensor *t, const tabi_value *dim) {
  int32_t nd = t->dl.ndim;
  if (dim->tag == TABI_TAG_NONE || (dim->tag == TABI_TAG_INT_LIST && dim->u.list.len == 0))
    return 1;
  if (dim->tag != TABI_TAG_INT_LIST || dim->u.list.len != 1) return 0;
  int32_t d = cpu_wrap_dim(tabi_value_ints(dim)[0], nd);
  if (d != nd - 1) return 0;
  return nd == 1 ? 1 : 2;
}

/* The fast path; returns 0 to fall back. */
static int reduce_fast(const cpu_ctx *c, const tabi_tensor *t, const tabi_value *dim, int keepdim,
                       const tabi_value *dtype, int kind, tabi_value *outs, tabi_status *st) {
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (!cpu_is_fast_float(dt) || !cpu_contig(t) || t->dl.ndim < 1 || t->dl.ndim > 16) return 0;
  if (dtype && dtype->tag != TABI_TAG_NONE) return 0;
  int64_t numel = tabi_tensor_numel(t);
  if (numel == 0) return 0;
  int how = classify_dims(t, dim);
  if (!how) return 0;
  int32_t nd = t->dl.ndim, ond = 0;
  int64_t oshape[16];
  if (how == 1) {
    if (keepdim) for (ond = 0; ond < nd; ond++) oshape[ond] = 1;
  } else {
    for (ond = 0; ond < nd - 1; ond++) oshape[ond] = t->dl.shape[ond];
    if (keepdim) oshape[ond++] = 1;
  }
  tabi_tensor *o = NULL;
  if ((*st = cpu_empty(c, t, dt, ond, oshape, &o)) != TABI_OK) return 1;
  red_job j = {c, dt, tabi_tensor_data(t), 0, 0, NULL, tabi_tensor_data(o), kind};
  if (how == 1) {
    j.len = numel;
    j.nparts = (numel + CPU_REDUCE_CHUNK - 1) / CPU_REDUCE_CHUNK;
    j.partial = malloc((size_t)j.nparts * sizeof(double));
    if (!j.partial) {
      c->host->tensor_release(c->host->ctx, o);
      *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "cpu: reduction: out of memory");
      return 1;
    }
    cpu_parallel_for(c->pool, j.nparts, 1, full_range, &j);
    double acc = j.partial[0];
    for (int64_t k = 1; k < j.nparts; k++) {
      double v = j.partial[k];
      if (kind == RED_SUM || kind == RED_MEAN) acc += v;
      else if (isnan(acc) || isnan(v)) acc = NAN;
      else acc = kind == RED_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc);
    }
    free(j.partial);
    if (kind == RED_MEAN) acc /= (double)numel;
    store_f(dt, j.out, 0, acc);
  } else {
    j.len = t->dl.shape[nd - 1];
    int64_t rows = numel / j.len;
    cpu_parallel_for(c->pool, rows, 1 + 16384 / j.len, rows_range, &j);
  }
  outs[0] = tabi_tensor_value(o);
  return 1;
}

static int arg_bool(const tabi_value *v) { return v->tag == TABI_TAG_BOOL && v->u.i != 0; }

tabi_status cpu_k_sum_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[0].tag == TABI_TAG_TENSOR &&
      reduce_fast(c, args[0].u.t, &args[1], arg_bool(&args[2]), &args[3], RED_SUM, outs, &st))
    return st;
  return CPU_FALLBACK(c, SUM_DIM);
}

tabi_status cpu_k_mean(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  tabi_value none = tabi_none();
  if (args[0].tag == TABI_TAG_TENSOR &&
      reduce_fast(c, args[0].u.t, &none, 0, &args[1], RED_MEAN, outs, &st))
    return st;
  return CPU_FALLBACK(c, MEAN);
}

tabi_status cpu_k_mean_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[0].tag == TABI_TAG_TENSOR &&
      reduce_fast(c, args[0].u.t, &args[1], arg_bool(&args[2]), &args[3], RED_MEAN, outs, &st))
    return st;
  return CPU_FALLBACK(c, MEAN_DIM);
}

tabi_status cpu_k_amax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[0].tag == TABI_TAG_TENSOR &&
      reduce_fast(c, args[0].u.t, &args[1], arg_bool(&args[2]), NULL, RED_MAX, outs, &st))
    return st;
  return CPU_FALLBACK(c, AMAX);
}

tabi_status cpu_k_amin(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[0].tag == TABI_TAG_TENSOR &&
      reduce_fast(c, args[0].u.t, &args[1], arg_bool(&args[2]), NULL, RED_MIN, outs, &st))
    return st;
  return CPU_FALLBACK(c, AMIN);
}
