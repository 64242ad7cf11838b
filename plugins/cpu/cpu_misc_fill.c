/* plugins/cpu/cpu_misc_fill.c: full, full_like, fill (aten and prims),
 * scalar_tensor (aten and prims), arange.start_step.
 *
 * The fill ops check their arguments with the reference's own helpers
 * (rs_check_sizes, ref_check_dtype, rs_check_scalar, rs_like_strides), so
 * errors read the same; any case off the fast path (another device, a layout
 * argument, a non-dense like-stride result, a complex fill of a real prim)
 * runs the reference kernel. The value is converted once, by rs_store_scalar
 * into element 0 of the output (c10's Scalar conversion), and its bytes are
 * then replicated over the output's storage span (the output is dense, so
 * the span is numel elements) with typed stores on the pool.
 *
 * arange computes element i = start + step * i in the accumulate type exactly
 * as the reference does (int64 wrap; float for half types; double else), one
 * range per thread; argument checks and every unusual case go to the reference.
 */
#include <math.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu.h"
#include "ref_shape_util.h"

static const DLDevice cpu0 = {kDLCPU, 0};

/* --- replicate one element over a dense buffer -------------------------------------- */

typedef struct rep_job {
  char *dst;
  int64_t es;
  unsigned char pat[16];
} rep_job;

static void rep_range(void *arg, int64_t b, int64_t e) {
  const rep_job *j = arg;
  int64_t n = e - b;
  switch (j->es) {
    case 1: memset(j->dst + b, j->pat[0], (size_t)n); break;
    case 2: {
      uint16_t v, *d = (uint16_t *)(void *)j->dst + b;
      memcpy(&v, j->pat, 2);
      for (int64_t i = 0; i < n; i++) d[i] = v;
      break;
    }
    case 4: {
      uint32_t v, *d = (uint32_t *)(void *)j->dst + b;
      memcpy(&v, j->pat, 4);
      for (int64_t i = 0; i < n; i++) d[i] = v;
      break;
    }
    case 8: {
      uint64_t v, *d = (uint64_t *)(void *)j->dst + b;
      memcpy(&v, j->pat, 8);
      for (int64_t i = 0; i < n; i++) d[i] = v;
      break;
    }
    default: { /* 16: complex128 */
      uint64_t v0, v1, *d = (uint64_t *)(void *)j->dst + 2 * b;
      memcpy(&v0, j->pat, 8);
      memcpy(&v1, j->pat + 8, 8);
      for (int64_t i = 0; i < n; i++) { d[2 * i] = v0; d[2 * i + 1] = v1; }
      break;
    }
  }
}

/* A dense host tensor of (shape, strides) holding `value` as dtype; returns -1
 * when the fast path declines (nothing allocated, nothing reported). */
static int filled(const cpu_ctx *c, const tabi_call *call, const char *size_arg, int32_t nd,
                  const int64_t *shape, const int64_t *strides, tabi_dtype dt, DLDevice dev,
                  const tabi_value *value, const char *value_arg, tabi_status *st,
                  tabi_value *out) {
  const tabi_host_api *h = c->host;
  if (dev.device_type != kDLCPU || nd > 16) return -1;
  int64_t cs[16];
  if (!strides) {
    rs_contig_strides(nd, shape, cs);
    strides = cs;
  }
  *st = rs_check_sizes(h, call, size_arg, nd, shape);
  if (*st == TABI_OK) *st = ref_check_dtype(h, call, "dtype", dt, REF_DTS_ALL);
  if (*st == TABI_OK) *st = rs_check_scalar(h, call, value_arg, value, dt);
  if (*st != TABI_OK) return 0;
  if (!rs_non_overlapping_and_dense(nd, shape, strides)) return -1;
  int64_t es = tabi_dtype_size(dt);
  if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16) return -1;
  tabi_tensor *t = NULL;
  *st = h->tensor_empty_strided(h->ctx, dev, dt, nd, shape, strides, &t);
  if (*st != TABI_OK) return 0;
  int64_t n = tabi_tensor_numel(t);
  if (n > 0) {
    rs_store_scalar(t, 0, value);
    /* dense with non-negative strides: element 0 starts the span of n elements */
    rep_job j = {tabi_tensor_data(t), es, {0}};
    memcpy(j.pat, j.dst, (size_t)es);
    cpu_parallel_for(c->pool, n, 1 + (1 << 17) / es, rep_range, &j);
  }
  *out = tabi_tensor_value(t);
  return 0;
}

static int layout_ok(const tabi_value *v) {
  return v->tag == TABI_TAG_NONE || (v->tag == TABI_TAG_INT && v->u.i == 0);
}

#define RUN_OR_FALLBACK(expr, id)           \
  do {                                      \
    tabi_status st_ = TABI_OK;              \
    if ((expr) < 0) return CPU_FALLBACK(c, id); \
    return st_;                             \
  } while (0)

static tabi_dtype full_dtype(const tabi_value *v) {
  switch (v->tag) {
    case TABI_TAG_BOOL: return TABI_DTYPE_BOOL;
    case TABI_TAG_INT: return TABI_DTYPE_INT64;
    case TABI_TAG_COMPLEX: return TABI_DTYPE_COMPLEX64;
    default: return TABI_DTYPE_FLOAT32;
  }
}

/* aten::full(size, fill_value, dtype, layout, device, pin_memory) */
tabi_status cpu_k_full(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (!layout_ok(&args[3]) || args[0].tag != TABI_TAG_INT_LIST) return CPU_FALLBACK(c, FULL);
  RUN_OR_FALLBACK(filled(c, call, "size", (int32_t)args[0].u.list.len, tabi_value_ints(&args[0]), NULL,
                         rs_dtype_arg(&args[2], full_dtype(&args[1])), rs_device_arg(&args[4], cpu0),
                         &args[1], "fill_value", &st_, &outs[0]),
                  FULL);
}

/* prims::full(shape, fill_value, dtype, device, requires_grad) */
tabi_status cpu_k_p_full(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_INT_LIST || args[2].tag != TABI_TAG_DTYPE ||
      args[3].tag != TABI_TAG_DEVICE)
    return CPU_FALLBACK(c, P_FULL);
  RUN_OR_FALLBACK(filled(c, call, "shape", (int32_t)args[0].u.list.len, tabi_value_ints(&args[0]), NULL,
                         args[2].u.dtype, args[3].u.device, &args[1], "fill_value", &st_, &outs[0]),
                  P_FULL);
}

/* self's shape with empty_like(self, fmt)'s strides */
static int like(const cpu_ctx *c, const tabi_call *call, const tabi_tensor *s, const tabi_value *value,
                const char *value_arg, tabi_dtype dt, DLDevice dev, int64_t fmt, tabi_status *st,
                tabi_value *out) {
  int64_t strides[16];
  if (s->dl.ndim > 16 || dev.device_type != kDLCPU) return -1;
  *st = rs_like_strides(c->host, call, s, fmt, strides);
  if (*st != TABI_OK) return 0;
  return filled(c, call, "self", s->dl.ndim, s->dl.shape, strides, dt, dev, value, value_arg, st, out);
}

/* aten::full_like(self, fill_value, dtype, layout, device, pin_memory, memory_format) */
tabi_status cpu_k_full_like(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || !layout_ok(&args[3])) return CPU_FALLBACK(c, FULL_LIKE);
  const tabi_tensor *s = args[0].u.t;
  RUN_OR_FALLBACK(like(c, call, s, &args[1], "fill_value", rs_dtype_arg(&args[2], tabi_tensor_dtype(s)),
                       rs_device_arg(&args[4], s->dl.device), rs_memfmt_arg(&args[6], RS_MF_PRESERVE),
                       &st_, &outs[0]),
                  FULL_LIKE);
}

/* prims::full_like(a, fill_value, dtype, device, requires_grad) */
tabi_status cpu_k_p_full_like(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_DTYPE || args[3].tag != TABI_TAG_DEVICE)
    return CPU_FALLBACK(c, P_FULL_LIKE);
  RUN_OR_FALLBACK(like(c, call, args[0].u.t, &args[1], "fill_value", args[2].u.dtype, args[3].u.device,
                       RS_MF_PRESERVE, &st_, &outs[0]),
                  P_FULL_LIKE);
}

/* aten::fill.Scalar(self, value) */
tabi_status cpu_k_fill(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, FILL);
  const tabi_tensor *s = args[0].u.t;
  RUN_OR_FALLBACK(like(c, call, s, &args[1], "value", tabi_tensor_dtype(s), s->dl.device, RS_MF_PRESERVE,
                       &st_, &outs[0]),
                  FILL);
}

/* prims::fill(a, value) */
tabi_status cpu_k_p_fill(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, P_FILL);
  const tabi_tensor *s = args[0].u.t;
  RUN_OR_FALLBACK(like(c, call, s, &args[1], "value", tabi_tensor_dtype(s), s->dl.device, RS_MF_PRESERVE,
                       &st_, &outs[0]),
                  P_FILL);
}

/* --- arange ---------------------------------------------------------------------- */

typedef struct ar_job {
  tabi_dtype dt;
  int64_t istart, istep;
  double fstart, fstep;
  void *dst;
} ar_job;

static void ar_range(void *arg, int64_t b, int64_t e) {
  const ar_job *j = arg;
  switch (j->dt) {
    case TABI_DTYPE_INT64: {
      int64_t *y = j->dst;
      for (int64_t i = b; i < e; i++)
        y[i] = (int64_t)((uint64_t)j->istart + (uint64_t)j->istep * (uint64_t)i);
      break;
    }
    case TABI_DTYPE_INT32: {
      int32_t *y = j->dst;
      for (int64_t i = b; i < e; i++)
        y[i] = (int32_t)(uint32_t)((uint64_t)j->istart + (uint64_t)j->istep * (uint64_t)i);
      break;
    }
    case TABI_DTYPE_FLOAT64: {
      double *y = j->dst;
      for (int64_t i = b; i < e; i++) y[i] = j->fstart + j->fstep * (double)i;
      break;
    }
    case TABI_DTYPE_FLOAT32: {
      float *y = j->dst;
      for (int64_t i = b; i < e; i++) y[i] = (float)(j->fstart + j->fstep * (double)i);
      break;
    }
    default: { /* float16 / bfloat16: accumulate type float */
      uint16_t *y = j->dst;
      float s = (float)j->fstart, p = (float)j->fstep;
      int f16 = j->dt == TABI_DTYPE_FLOAT16;
      for (int64_t i = b; i < e; i++) {
        float v = (float)(s + p * (float)i);
        y[i] = f16 ? tabi_f32_to_f16(v) : tabi_f32_to_bf16(v);
      }
      break;
    }
  }
}

static int num_arg(const tabi_value *v) { return v->tag == TABI_TAG_INT || v->tag == TABI_TAG_FLOAT; }

/* aten::arange.start_step(start, end, step, dtype, layout, device, pin_memory):
 * the fast path takes int or float bounds, int64/int32/float dtypes on the
 * CPU, and a valid range (the reference reports every error). */
tabi_status cpu_k_arange(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (!num_arg(&args[0]) || !num_arg(&args[1]) || !num_arg(&args[2]) || !layout_ok(&args[4]) ||
      (args[3].tag != TABI_TAG_NONE && args[3].tag != TABI_TAG_DTYPE) ||
      rs_device_arg(&args[5], cpu0).device_type != kDLCPU)
    return CPU_FALLBACK(c, ARANGE);
  int integral = args[0].tag == TABI_TAG_INT && args[1].tag == TABI_TAG_INT && args[2].tag == TABI_TAG_INT;
  tabi_dtype dt = rs_dtype_arg(&args[3], integral ? TABI_DTYPE_INT64 : TABI_DTYPE_FLOAT32);
  ar_job j = {dt, 0, 0, 0, 0, NULL};
  double size_d;
  if (dt == TABI_DTYPE_INT64 || dt == TABI_DTYPE_INT32) {
    if (!integral) return CPU_FALLBACK(c, ARANGE); /* float bounds: checked conversion */
    int64_t end = args[1].u.i;
    j.istart = args[0].u.i;
    j.istep = args[2].u.i;
    if (!((j.istep > 0 && end >= j.istart) || (j.istep < 0 && end <= j.istart)))
      return CPU_FALLBACK(c, ARANGE);
    if (dt == TABI_DTYPE_INT64)
      size_d = ceil((double)(int64_t)((uint64_t)end - (uint64_t)j.istart) / (double)j.istep);
    else
      size_d = ceil((ref_scalar_f(&args[1]) - ref_scalar_f(&args[0])) / ref_scalar_f(&args[2]));
    /* int32 needs every bound to fit (checked conversion): the reference says so */
    if (dt == TABI_DTYPE_INT32)
      for (int k = 0; k < 3; k++)
        if (args[k].u.i < INT32_MIN || args[k].u.i > INT32_MAX) return CPU_FALLBACK(c, ARANGE);
  } else if (cpu_is_fast_float(dt) || dt == TABI_DTYPE_FLOAT64) {
    double s = ref_scalar_f(&args[0]), e = ref_scalar_f(&args[1]), p = ref_scalar_f(&args[2]);
    int half = dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16;
    /* the accumulate type float must hold the bounds: leave overflow to the reference */
    if (!isfinite(s) || !isfinite(e) || !isfinite(p) ||
        (half && (fabs(s) > 3.0e38 || fabs(e) > 3.0e38 || fabs(p) > 3.0e38)))
      return CPU_FALLBACK(c, ARANGE);
    double fs = half ? (float)s : s, fe = half ? (float)e : e, fp = half ? (float)p : p;
    if (!((fp > 0 && fe >= fs) || (fp < 0 && fe <= fs)) || !isfinite(fs) || !isfinite(fe))
      return CPU_FALLBACK(c, ARANGE);
    j.fstart = fs;
    j.fstep = fp;
    size_d = ceil((e - s) / p);
  } else {
    return CPU_FALLBACK(c, ARANGE);
  }
  if (!(size_d >= 0 && size_d < 9.0e18)) return CPU_FALLBACK(c, ARANGE);
  int64_t n = (int64_t)size_d, one = 1;
  tabi_tensor *t = NULL;
  tabi_status st = c->host->tensor_empty_strided(c->host->ctx, cpu0, dt, 1, &n, &one, &t);
  if (st != TABI_OK) return st;
  j.dst = tabi_tensor_data(t);
  if (n > 0) cpu_parallel_for(c->pool, n, 32768, ar_range, &j);
  outs[0] = tabi_tensor_value(t);
  return TABI_OK;
}
