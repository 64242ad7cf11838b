/* plugins/cpu/cpu_reduce_var.c: var.correction, var.dim and prims::var for
 * float32/float16/bfloat16/float64 whose reduced elements form contiguous runs
 * (the rows form of cpu_reduce_plan.h; reduced dims in any order).
 *
 * Two passes, as the reference: the mean (cpu_red_sum / N), then the sum of
 * squared deviations from it in double (cpu_red_sumsq_dev), divided by
 * max(N - correction, 0) (x/0 = inf, 0/0 = NaN, as ATen). Runs longer than
 * CPU_REDUCE_CHUNK are cut into fixed chunks whose partials combine in order:
 * results do not depend on the thread count. Columns, complex input,
 * output_dtype and the error cases run the reference kernel.
 */
#include <stdlib.h>

#include "cpu_reduce_kern.h"
#include "cpu_reduce_plan.h"

typedef struct var_job {
  const cpu_red_plan *p;
  tabi_dtype dt;
  const char *x;
  int64_t es;
  int64_t nch, chunk;
  int pass;      /* 0: sums, 1: squared deviations */
  double *mean;  /* per output, after pass 0 */
  double *part;  /* per task */
} var_job;

static void var_range(void *arg, int64_t b, int64_t e) {
  const var_job *j = arg;
  const cpu_red_plan *p = j->p;
  for (int64_t k = b; k < e; k++) {
    int64_t o = k / j->nch, start = (k % j->nch) * j->chunk;
    int64_t n = p->R - start < j->chunk ? p->R - start : j->chunk;
    const char *x = j->x + ((o / p->n2) * p->s1 + (o % p->n2) * p->s2 + start) * j->es;
    j->part[k] = j->pass == 0 ? cpu_red_sum(j->dt, x, n) : cpu_red_sumsq_dev(j->dt, x, n, j->mean[o]);
  }
}

/* 0 to fall back. */
static int var_fast(const cpu_ctx *c, const tabi_value *self, const tabi_value *dims,
                    int empty_is_all, int keepdim, int64_t correction, tabi_value *outs,
                    tabi_status *st) {
  if (self->tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *t = self->u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (!(cpu_is_fast_float(dt) || dt == TABI_DTYPE_FLOAT64) || t->dl.ndim < 1 ||
      tabi_tensor_numel(t) == 0)
    return 0;
  uint8_t reduced[16];
  int32_t ond;
  int64_t oshape[16];
  cpu_red_plan p;
  if (!cpu_red_dims(t, dims, empty_is_all, keepdim, reduced, &ond, oshape)) return 0;
  if (!cpu_red_plan_make(t, reduced, 0, &p) || p.cols || p.R0 != 1) return 0;
  var_job j = {&p, dt, tabi_tensor_data(t), tabi_dtype_size(dt), 1, p.R, 0, NULL, NULL};
  if (p.R > CPU_REDUCE_CHUNK) {
    j.nch = (p.R + CPU_REDUCE_CHUNK - 1) / CPU_REDUCE_CHUNK;
    j.chunk = CPU_REDUCE_CHUNK;
  }
  int64_t tasks = p.nout * j.nch;
  j.mean = malloc((size_t)p.nout * sizeof(double));
  j.part = malloc((size_t)tasks * sizeof(double));
  tabi_tensor *o = NULL;
  if (!j.mean || !j.part) {
    *st = TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "cpu: var: out of memory");
  } else if ((*st = cpu_empty(c, t, dt, ond, oshape, &o)) == TABI_OK) {
    int64_t grain = 1 + 32768 / (j.chunk < p.R ? j.chunk : p.R);
    cpu_parallel_for(c->pool, tasks, grain, var_range, &j);
    for (int64_t r = 0; r < p.nout; r++) {
      double s = 0;
      for (int64_t ch = 0; ch < j.nch; ch++) s += j.part[r * j.nch + ch];
      j.mean[r] = s / (double)p.R;
    }
    j.pass = 1;
    cpu_parallel_for(c->pool, tasks, grain, var_range, &j);
    double div = (double)p.R - (double)correction;
    if (div < 0) div = 0;
    void *od = tabi_tensor_data(o);
    for (int64_t r = 0; r < p.nout; r++) {
      double m2 = 0;
      for (int64_t ch = 0; ch < j.nch; ch++) m2 += j.part[r * j.nch + ch];
      cpu_red_store(dt, od, r, m2 / div);
    }
    outs[0] = tabi_tensor_value(o);
  }
  free(j.mean);
  free(j.part);
  return 1;
}

tabi_status cpu_k_var_correction(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  int64_t corr = args[2].tag == TABI_TAG_INT ? args[2].u.i : 1;
  if ((args[2].tag == TABI_TAG_INT || args[2].tag == TABI_TAG_NONE) &&
      args[3].tag == TABI_TAG_BOOL &&
      var_fast(c, &args[0], &args[1], 1, (int)args[3].u.i, corr, outs, &st))
    return st;
  return CPU_FALLBACK(c, VAR_CORRECTION);
}

tabi_status cpu_k_var_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[2].tag == TABI_TAG_BOOL && args[3].tag == TABI_TAG_BOOL &&
      var_fast(c, &args[0], &args[1], 1, (int)args[3].u.i, args[2].u.i ? 1 : 0, outs, &st))
    return st;
  return CPU_FALLBACK(c, VAR_DIM);
}

tabi_status cpu_k_p_var(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[2].tag == TABI_TAG_INT && args[3].tag == TABI_TAG_NONE &&
      var_fast(c, &args[0], &args[1], 0, 0, args[2].u.i, outs, &st))
    return st;
  return CPU_FALLBACK(c, P_VAR);
}
