/* plugins/cpu/cpu_reduce_arg.c: argmax, argmin, max.dim, min.dim for
 * float32/float16/bfloat16/float64 when the reduced elements of each output
 * are one contiguous run in logical order (the rows form of
 * cpu_reduce_plan.h, reduced dims never reordered).
 *
 * Each run (or fixed-size chunk of a long run) is scanned twice: its extreme
 * with cpu_red_max (NaN wins), then the first position holding it with
 * cpu_red_find. That is ATen's answer exactly: the first NaN, else the first of
 * equal extremes (-0.0 and 0.0 are equal). Chunks combine in order, keeping the
 * earlier on ties, so results do not depend on the thread count. The value
 * output is the input element itself. Integers, bool, columns and the error
 * cases run the reference kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_reduce_kern.h"
#include "cpu_reduce_plan.h"

typedef struct arg_job {
  const cpu_red_plan *p;
  tabi_dtype dt;
  const char *x;
  int64_t es;
  int mn;
  int64_t nch, chunk;
  double *pv;   /* chunk extremes (nch > 1) */
  int64_t *pi;  /* their positions in the run */
  char *vals;   /* NULL for argmax/argmin */
  int64_t *idx;
} arg_job;

static int64_t run_base(const cpu_red_plan *p, int64_t o) {
  return (o / p->n2) * p->s1 + (o % p->n2) * p->s2;
}

static void arg_range(void *arg, int64_t b, int64_t e) {
  const arg_job *j = arg;
  for (int64_t k = b; k < e; k++) {
    int64_t o = k / j->nch, ch = k % j->nch, start = ch * j->chunk;
    int64_t n = j->p->R - start < j->chunk ? j->p->R - start : j->chunk;
    const char *x = j->x + (run_base(j->p, o) + start) * j->es;
    double m = cpu_red_max(j->dt, x, n, j->mn);
    int64_t i = cpu_red_find(j->dt, x, n, m);
    if (j->nch > 1) {
      j->pv[k] = m;
      j->pi[k] = start + i;
      continue;
    }
    j->idx[o] = i;
    if (j->vals) memcpy(j->vals + o * j->es, x + i * j->es, (size_t)j->es);
  }
}

/* 0 to fall back. want_vals: max.dim/min.dim (two outputs). */
static int arg_fast(const cpu_ctx *c, tabi_value *args, int mn, int want_vals, tabi_value *outs,
                    tabi_status *st) {
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_BOOL) return 0;
  const tabi_tensor *t = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (!(cpu_is_fast_float(dt) || dt == TABI_DTYPE_FLOAT64) || t->dl.ndim < 1 ||
      tabi_tensor_numel(t) == 0)
    return 0;
  uint8_t reduced[16];
  int32_t ond;
  int64_t oshape[16];
  cpu_red_plan p;
  if (!cpu_red_dims(t, &args[1], 1, (int)args[2].u.i, reduced, &ond, oshape)) return 0;
  if (!cpu_red_plan_make(t, reduced, 1, &p) || p.cols || p.R0 != 1) return 0;
  tabi_tensor *vals = NULL, *idx = NULL;
  if (want_vals && (*st = cpu_empty(c, t, dt, ond, oshape, &vals)) != TABI_OK) return 1;
  if ((*st = cpu_empty(c, t, TABI_DTYPE_INT64, ond, oshape, &idx)) != TABI_OK) {
    if (vals) c->host->tensor_release(c->host->ctx, vals);
    return 1;
  }
  arg_job j = {&p, dt, tabi_tensor_data(t), tabi_dtype_size(dt), mn, 1, p.R, NULL, NULL,
               vals ? tabi_tensor_data(vals) : NULL, tabi_tensor_data(idx)};
  if (p.R > CPU_REDUCE_CHUNK) {
    j.nch = (p.R + CPU_REDUCE_CHUNK - 1) / CPU_REDUCE_CHUNK;
    j.chunk = CPU_REDUCE_CHUNK;
    j.pv = malloc((size_t)(p.nout * j.nch) * sizeof(double));
    j.pi = malloc((size_t)(p.nout * j.nch) * sizeof(int64_t));
    if (!j.pv || !j.pi) {
      free(j.pv);
      free(j.pi);
      if (vals) c->host->tensor_release(c->host->ctx, vals);
      c->host->tensor_release(c->host->ctx, idx);
      *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "cpu: argmax: out of memory");
      return 1;
    }
  }
  int64_t per = j.chunk < p.R ? j.chunk : p.R;
  cpu_parallel_for(c->pool, p.nout * j.nch, 1 + 32768 / per, arg_range, &j);
  if (j.nch > 1) {
    for (int64_t o = 0; o < p.nout; o++) {
      double best = j.pv[o * j.nch];
      int64_t bi = j.pi[o * j.nch];
      for (int64_t ch = 1; ch < j.nch; ch++) {
        double v = j.pv[o * j.nch + ch];
        if (best == best && (v != v || (mn ? v < best : v > best))) {
          best = v;
          bi = j.pi[o * j.nch + ch];
        }
      }
      j.idx[o] = bi;
      if (j.vals) memcpy(j.vals + o * j.es, j.x + (run_base(&p, o) + bi) * j.es, (size_t)j.es);
    }
    free(j.pv);
    free(j.pi);
  }
  if (vals) {
    outs[0] = tabi_tensor_value(vals);
    outs[1] = tabi_tensor_value(idx);
  } else {
    outs[0] = tabi_tensor_value(idx);
  }
  return 1;
}

#define ARG_OP(fn, ID, mn, vals)                                                            \
  tabi_status fn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {  \
    const cpu_ctx *c = ctx;                                                                \
    tabi_status st = TABI_OK;                                                              \
    if (arg_fast(c, args, mn, vals, outs, &st)) return st;                                 \
    return CPU_FALLBACK(c, ID);                                                            \
  }
ARG_OP(cpu_k_argmax, ARGMAX, 0, 0)
ARG_OP(cpu_k_argmin, ARGMIN, 1, 0)
ARG_OP(cpu_k_max_dim, MAX_DIM, 0, 1)
ARG_OP(cpu_k_min_dim, MIN_DIM, 1, 1)
