/* plugins/cpu/cpu_misc_scan.c: cumsum.
 *
 * The reference scans each lane (every index but `dim`) in order, with a
 * double accumulator for float dtypes (each prefix rounded once, at the store)
 * and a wrapping int64 one for integers and bool (output int64). This kernel
 * adds in the same order with the same accumulator types, so the result is
 * bitwise the reference's, but over a contiguous input viewed as
 * [outer, n, inner]: for inner > 1 a unit is one outer index and a chunk of
 * up to IC inner columns, scanned along n with IC accumulators (unit-stride
 * loads and stores); for inner == 1 a unit is one lane. Units run on the pool.
 * Non-contiguous inputs, a `dtype=` argument, complex dtypes and bad dims go
 * to the reference kernel.
 */
#include <string.h>

#include <tabi/half.h>

#include "cpu.h"

#define IC 256

typedef struct cs_job {
  tabi_dtype dt, odt;
  int64_t outer, n, inner, chunks;
  const void *src;
  void *dst;
} cs_job;

static double ldf(const void *p, tabi_dtype dt, int64_t i) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[i];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)p)[i]);
    default: return tabi_bf16_to_f32(((const uint16_t *)p)[i]);
  }
}

static void stf(void *p, tabi_dtype dt, int64_t i, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = tabi_f32_to_f16((float)v); break;
    default: ((uint16_t *)p)[i] = tabi_f32_to_bf16((float)v); break;
  }
}

static int64_t ldi(const void *p, tabi_dtype dt, int64_t i) {
  switch (dt) {
    case TABI_DTYPE_BOOL: return ((const uint8_t *)p)[i] != 0;
    case TABI_DTYPE_UINT8: return ((const uint8_t *)p)[i];
    case TABI_DTYPE_INT8: return ((const int8_t *)p)[i];
    case TABI_DTYPE_INT16: return ((const int16_t *)p)[i];
    case TABI_DTYPE_INT32: return ((const int32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
  }
}

static void cs_range(void *arg, int64_t b, int64_t e) {
  const cs_job *j = arg;
  int flt = tabi_dtype_is_floating(j->dt);
  for (int64_t u = b; u < e; u++) {
    int64_t o = u / j->chunks, c0 = (u % j->chunks) * IC;
    int64_t w = j->inner - c0 < IC ? j->inner - c0 : IC;
    int64_t base = o * j->n * j->inner + c0;
    if (flt && j->dt == TABI_DTYPE_FLOAT32) { /* the common case, typed */
      const float *x = (const float *)j->src + base;
      float *y = (float *)j->dst + base;
      double acc[IC];
      for (int64_t q = 0; q < w; q++) acc[q] = 0.0;
      for (int64_t k = 0; k < j->n; k++, x += j->inner, y += j->inner)
        for (int64_t q = 0; q < w; q++) {
          acc[q] += (double)x[q];
          y[q] = (float)acc[q];
        }
    } else if (flt) {
      double acc[IC];
      for (int64_t q = 0; q < w; q++) acc[q] = 0.0;
      for (int64_t k = 0; k < j->n; k++)
        for (int64_t q = 0; q < w; q++) {
          int64_t i = base + k * j->inner + q;
          acc[q] += ldf(j->src, j->dt, i);
          stf(j->dst, j->odt, i, acc[q]);
        }
    } else {
      uint64_t acc[IC];
      int64_t *y = j->dst;
      for (int64_t q = 0; q < w; q++) acc[q] = 0;
      for (int64_t k = 0; k < j->n; k++)
        for (int64_t q = 0; q < w; q++) {
          int64_t i = base + k * j->inner + q;
          acc[q] += (uint64_t)ldi(j->src, j->dt, i);
          y[i] = (int64_t)acc[q];
        }
    }
  }
}

/* aten::cumsum(self, dim, dtype) */
tabi_status cpu_k_cumsum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_INT || args[2].tag != TABI_TAG_NONE)
    return CPU_FALLBACK(c, CUMSUM);
  const tabi_tensor *s = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(s);
  int32_t nd = s->dl.ndim, dim = cpu_wrap_dim(args[1].u.i, nd);
  int flt = dt == TABI_DTYPE_FLOAT64 || cpu_is_fast_float(dt);
  int integ = dt == TABI_DTYPE_BOOL || dt == TABI_DTYPE_UINT8 || dt == TABI_DTYPE_INT8 ||
              dt == TABI_DTYPE_INT16 || dt == TABI_DTYPE_INT32 || dt == TABI_DTYPE_INT64;
  if (dim < 0 || nd > 16 || !cpu_contig(s) || s->dl.device.device_type != kDLCPU || !(flt || integ))
    return CPU_FALLBACK(c, CUMSUM);
  cs_job j = {dt, flt ? dt : TABI_DTYPE_INT64, 1, 1, 1, 1, tabi_tensor_data(s), NULL};
  if (nd > 0) {
    for (int32_t d = 0; d < dim; d++) j.outer *= s->dl.shape[d];
    j.n = s->dl.shape[dim];
    for (int32_t d = dim + 1; d < nd; d++) j.inner *= s->dl.shape[d];
  }
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, s, j.odt, nd, s->dl.shape, &o);
  if (st != TABI_OK) return st;
  j.dst = tabi_tensor_data(o);
  if (tabi_tensor_numel(s) > 0) {
    j.chunks = (j.inner + IC - 1) / IC;
    int64_t per = j.n * (j.inner < IC ? j.inner : IC); /* elements a unit scans */
    cpu_parallel_for(c->pool, j.outer * j.chunks, 1 + 32768 / per, cs_range, &j);
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
