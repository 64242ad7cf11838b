/* plugins/cpu/cpu_reduce_any.c: any, any.dim, any.dims over every real dtype
 * (bool, integers, float16/bfloat16/float32/float64) when the reduced
 * elements of each output are contiguous runs (the rows form of
 * cpu_reduce_plan.h).
 *
 * "Nonzero" on the bits: an integer is nonzero when any bit is set, a float
 * when any bit but the sign is (so -0.0 is false and NaN true, as ATen). A run
 * is OR-reduced in blocks of 512 elements with an early exit; exact, so any
 * split gives the same answer. The output is bool (uint8 for uint8 input, as
 * ATen). Complex, empty inputs and columns run the reference kernel.
 */
#include "cpu_reduce_plan.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3
#define BLOCK 512

#define DEF_ANY(NAME, T)                                                   \
  CLONES static int NAME(const T *x, int64_t n, int shift) {               \
    for (int64_t i = 0; i < n; i += BLOCK) {                               \
      int64_t m = n - i < BLOCK ? n - i : BLOCK;                           \
      T acc = 0;                                                           \
      for (int64_t k = 0; k < m; k++) acc |= (T)(x[i + k] << shift);       \
      if (acc) return 1;                                                   \
    }                                                                      \
    return 0;                                                              \
  }
DEF_ANY(any8, uint8_t)
DEF_ANY(any16, uint16_t)
DEF_ANY(any32, uint32_t)
DEF_ANY(any64, uint64_t)

static int any_run(int64_t es, const void *x, int64_t n, int shift) {
  switch (es) {
    case 1: return any8(x, n, shift);
    case 2: return any16(x, n, shift);
    case 4: return any32(x, n, shift);
    default: return any64(x, n, shift);
  }
}

typedef struct any_job {
  const cpu_red_plan *p;
  const char *x;
  int64_t es;
  int shift;
  uint8_t *out;
} any_job;

static void any_range(void *arg, int64_t b, int64_t e) {
  const any_job *j = arg;
  const cpu_red_plan *p = j->p;
  for (int64_t o = b; o < e; o++) {
    const char *x = j->x + ((o / p->n2) * p->s1 + (o % p->n2) * p->s2) * j->es;
    j->out[o] = (uint8_t)any_run(j->es, x, p->R, j->shift);
  }
}

static int any_fast(const cpu_ctx *c, const tabi_value *self, const tabi_value *dims, int keepdim,
                    tabi_value *outs, tabi_status *st) {
  if (self->tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *t = self->u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  int flt = cpu_is_fast_float(dt) || dt == TABI_DTYPE_FLOAT64;
  int intg = dt == TABI_DTYPE_BOOL || dt == TABI_DTYPE_UINT8 || dt == TABI_DTYPE_INT8 ||
             dt == TABI_DTYPE_INT16 || dt == TABI_DTYPE_INT32 || dt == TABI_DTYPE_INT64;
  if (!(flt || intg) || t->dl.ndim < 1 || tabi_tensor_numel(t) == 0) return 0;
  uint8_t reduced[16];
  int32_t ond;
  int64_t oshape[16];
  cpu_red_plan p;
  if (!cpu_red_dims(t, dims, 1, keepdim, reduced, &ond, oshape)) return 0;
  if (!cpu_red_plan_make(t, reduced, 0, &p) || p.cols || p.R0 != 1) return 0;
  tabi_tensor *o = NULL;
  tabi_dtype odt = dt == TABI_DTYPE_UINT8 ? TABI_DTYPE_UINT8 : TABI_DTYPE_BOOL;
  if ((*st = cpu_empty(c, t, odt, ond, oshape, &o)) != TABI_OK) return 1;
  any_job j = {&p, tabi_tensor_data(t), tabi_dtype_size(dt), flt, tabi_tensor_data(o)};
  cpu_parallel_for(c->pool, p.nout, 1 + 32768 / p.R, any_range, &j);
  outs[0] = tabi_tensor_value(o);
  return 1;
}

tabi_status cpu_k_any(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  tabi_value none = tabi_none();
  if (any_fast(c, &args[0], &none, 0, outs, &st)) return st;
  return CPU_FALLBACK(c, ANY);
}

tabi_status cpu_k_any_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[2].tag == TABI_TAG_BOOL && any_fast(c, &args[0], &args[1], (int)args[2].u.i, outs, &st))
    return st;
  return CPU_FALLBACK(c, ANY_DIM);
}

tabi_status cpu_k_any_dims(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  tabi_status st = TABI_OK;
  if (args[2].tag == TABI_TAG_BOOL && any_fast(c, &args[0], &args[1], (int)args[2].u.i, outs, &st))
    return st;
  return CPU_FALLBACK(c, ANY_DIMS);
}
