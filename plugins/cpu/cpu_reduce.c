/* plugins/cpu/cpu_reduce.c: sum, mean, amax, amin (aten and prims) over any
 * dims of a float32/float16/bfloat16/float64 tensor whose reduction has one of
 * the forms of cpu_reduce_plan.h (contiguous runs, or columns contiguous across
 * the kept inner dim), at any strides of the kept dims.
 *
 * Sums go through cpu_reduce_kern.h (float32 blocks into double: see there)
 * and are stored once, rounded from double, as the reference does; mean
 * divides that double by the group size. amax/amin propagate NaN. `dtype=`
 * is taken when casting the input to it is exact (a wider float). Integer and
 * bool sums into int64 and integer max/min run cpu_reduce_int.c (exact).
 * Every other case (complex, narrowing dtype=, 0-d, empty inputs and the
 * errors of bad arguments, layouts of neither form) runs the reference kernel.
 */
#include "cpu_reduce_plan.h"

static int is_float(tabi_dtype d) { return cpu_is_fast_float(d) || d == TABI_DTYPE_FLOAT64; }

/* bits of precision: casting a -> b is exact when b has at least a's range and bits */
static int widens_exactly(tabi_dtype a, tabi_dtype b) {
  if (a == b) return 1;
  if (b == TABI_DTYPE_FLOAT64) return is_float(a);
  if (b == TABI_DTYPE_FLOAT32) return a == TABI_DTYPE_FLOAT16 || a == TABI_DTYPE_BFLOAT16;
  return 0;
}

static int is_int(tabi_dtype d) {
  return d == TABI_DTYPE_UINT8 || d == TABI_DTYPE_INT8 || d == TABI_DTYPE_INT16 ||
         d == TABI_DTYPE_INT32 || d == TABI_DTYPE_INT64;
}

/* The output dtype of the fast path, or INVALID to fall back. Floats: sums
 * when the cast to `want` is exact, max/min into any float. Integers and
 * bool: sums into int64 (aten's default, or asked for), max/min of integers
 * in their own dtype. */
static tabi_dtype out_dtype(tabi_dtype dt, const tabi_value *want, int kind, int mean, int prim) {
  tabi_dtype odt = TABI_DTYPE_INVALID;
  if (want && want->tag == TABI_TAG_DTYPE) odt = want->u.dtype;
  else if (want && want->tag != TABI_TAG_NONE) return TABI_DTYPE_INVALID;
  if (is_float(dt)) {
    if (odt == TABI_DTYPE_INVALID) return dt;
    if (!is_float(odt) || (kind == CPU_RED_SUM && !widens_exactly(dt, odt))) return TABI_DTYPE_INVALID;
    return odt;
  }
  if (mean) return TABI_DTYPE_INVALID;
  if (kind == CPU_RED_SUM && (is_int(dt) || dt == TABI_DTYPE_BOOL)) {
    if (odt == TABI_DTYPE_INVALID) odt = prim ? dt : TABI_DTYPE_INT64;
    return odt == TABI_DTYPE_INT64 ? odt : TABI_DTYPE_INVALID;
  }
  if (kind != CPU_RED_SUM && is_int(dt) && (odt == TABI_DTYPE_INVALID || odt == dt)) return dt;
  return TABI_DTYPE_INVALID;
}

/* The fast path; 0 to fall back. `want`: the dtype argument (NONE: the input's). */
static int red_fast(const cpu_ctx *c, const tabi_value *self, const tabi_value *dims,
                    int empty_is_all, int keepdim, const tabi_value *want, int kind, int mean,
                    tabi_value *outs, tabi_status *st) {
  if (self->tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *t = self->u.t;
  tabi_dtype dt = tabi_tensor_dtype(t);
  if (t->dl.ndim < 1 || tabi_tensor_numel(t) == 0) return 0;
  tabi_dtype odt = out_dtype(dt, want, kind, mean, !empty_is_all);
  if (odt == TABI_DTYPE_INVALID) return 0;
  uint8_t reduced[16];
  int32_t ond;
  int64_t oshape[16];
  cpu_red_plan p;
  if (!cpu_red_dims(t, dims, empty_is_all, keepdim, reduced, &ond, oshape)) return 0;
  if (!cpu_red_plan_make(t, reduced, 0, &p)) return 0;
  if (!is_float(dt) && p.R0 != 1) return 0;
  tabi_tensor *o = NULL;
  if ((*st = cpu_empty(c, t, odt, ond, oshape, &o)) != TABI_OK) return 1;
  /* a float64 result from narrower floats: the sum in double throughout */
  if (kind == CPU_RED_SUM && odt == TABI_DTYPE_FLOAT64) kind = CPU_RED_SUMD;
  if (is_float(dt)) *st = cpu_red_run(c, t, &p, kind, mean ? (double)p.R * (double)p.R0 : 1.0, o);
  else *st = cpu_red_run_int(c, t, &p, kind, o);
  if (*st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, o);
    return 1;
  }
  outs[0] = tabi_tensor_value(o);
  return 1;
}

static int arg_bool(const tabi_value *v) { return v->tag == TABI_TAG_BOOL && v->u.i != 0; }

#define FAST_OR_FALLBACK(ID, ...)                      \
  do {                                                 \
    const cpu_ctx *c = ctx;                            \
    tabi_status st = TABI_OK;                          \
    if (red_fast(c, __VA_ARGS__, outs, &st)) return st; \
    return CPU_FALLBACK(c, ID);                        \
  } while (0)

tabi_status cpu_k_sum_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  FAST_OR_FALLBACK(SUM_DIM, &args[0], &args[1], 1, arg_bool(&args[2]), &args[3], CPU_RED_SUM, 0);
}

tabi_status cpu_k_mean(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  tabi_value none = tabi_none();
  FAST_OR_FALLBACK(MEAN, &args[0], &none, 1, 0, &args[1], CPU_RED_SUM, 1);
}

tabi_status cpu_k_mean_dim(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  FAST_OR_FALLBACK(MEAN_DIM, &args[0], &args[1], 1, arg_bool(&args[2]), &args[3], CPU_RED_SUM, 1);
}

tabi_status cpu_k_amax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  FAST_OR_FALLBACK(AMAX, &args[0], &args[1], 1, arg_bool(&args[2]), NULL, CPU_RED_MAX, 0);
}

tabi_status cpu_k_amin(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  FAST_OR_FALLBACK(AMIN, &args[0], &args[1], 1, arg_bool(&args[2]), NULL, CPU_RED_MIN, 0);
}

/* prims: exactly the listed dims ([] reduces none), no keepdim, output_dtype. */
tabi_status cpu_k_p_sum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  FAST_OR_FALLBACK(P_SUM, &args[0], &args[1], 0, 0, &args[2], CPU_RED_SUM, 0);
}

tabi_status cpu_k_p_amax(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  FAST_OR_FALLBACK(P_AMAX, &args[0], &args[1], 0, 0, &args[2], CPU_RED_MAX, 0);
}

tabi_status cpu_k_p_amin(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  FAST_OR_FALLBACK(P_AMIN, &args[0], &args[1], 0, 0, &args[2], CPU_RED_MIN, 0);
}
