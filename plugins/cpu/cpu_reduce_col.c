/* plugins/cpu/cpu_reduce_col.c: column kernels (see cpu_reduce_plan.h).
 *
 * The loops run across the kept columns, elementwise, so gcc vectorizes them
 * without reassociating anything; target_clones gives AVX-512, AVX2 and
 * baseline builds picked at load time. Sums add every row into a double
 * accumulator per column (up to CPU_RED_CB of them, in L1/L2, while whole rows
 * stream in memory order): exact widening, and no slower than float32 here,
 * where the loads are the bottleneck. float16/bfloat16 rows are widened with
 * cpu_to_f32. */
#include <string.h>

#include "cpu_reduce_plan.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3

CLONES static void acc_f32(double *acc, const float *u, int64_t w) {
  for (int64_t i = 0; i < w; i++) acc[i] += (double)u[i];
}
CLONES static void acc_f64(double *acc, const double *x, int64_t w) {
  for (int64_t i = 0; i < w; i++) acc[i] += x[i];
}
/* NaN-sticky: a NaN acc stays, a NaN x is taken. */
CLONES static void max_f32(double *acc, const float *x, int64_t w, int mn) {
  if (mn)
    for (int64_t i = 0; i < w; i++) {
      double a = acc[i], v = x[i];
      acc[i] = (a == a && (v != v || v < a)) ? v : a;
    }
  else
    for (int64_t i = 0; i < w; i++) {
      double a = acc[i], v = x[i];
      acc[i] = (a == a && (v != v || v > a)) ? v : a;
    }
}
CLONES static void max_f64(double *acc, const double *x, int64_t w, int mn) {
  if (mn)
    for (int64_t i = 0; i < w; i++) {
      double a = acc[i], v = x[i];
      acc[i] = (a == a && (v != v || v < a)) ? v : a;
    }
  else
    for (int64_t i = 0; i < w; i++) {
      double a = acc[i], v = x[i];
      acc[i] = (a == a && (v != v || v > a)) ? v : a;
    }
}

/* Row r as float32: the row itself for float32, else widened into buf. */
static const float *row_f32(const cpu_ctx *c, tabi_dtype dt, const char *x, int64_t w, float *buf) {
  if (dt == TABI_DTYPE_FLOAT32) return (const float *)x;
  cpu_to_f32(c, dt, x, buf, w);
  return buf;
}

void cpu_red_col_sum(const cpu_ctx *c, tabi_dtype dt, const char *x, int64_t rows, int64_t rs,
                     int64_t w, double *acc) {
  if (dt == TABI_DTYPE_FLOAT64) {
    for (int64_t r = 0; r < rows; r++) acc_f64(acc, (const double *)(x + r * rs), w);
    return;
  }
  float buf[CPU_RED_CB];
  for (int64_t r = 0; r < rows; r++) acc_f32(acc, row_f32(c, dt, x + r * rs, w, buf), w);
}

void cpu_red_col_max(const cpu_ctx *c, tabi_dtype dt, const char *x, int64_t rows, int64_t rs,
                     int64_t w, double *acc, int take_min) {
  if (dt == TABI_DTYPE_FLOAT64) {
    memcpy(acc, x, (size_t)w * sizeof(double));
    for (int64_t r = 1; r < rows; r++) max_f64(acc, (const double *)(x + r * rs), w, take_min);
    return;
  }
  float buf[CPU_RED_CB];
  const float *r0 = row_f32(c, dt, x, w, buf);
  for (int64_t i = 0; i < w; i++) acc[i] = r0[i];
  for (int64_t r = 1; r < rows; r++) max_f32(acc, row_f32(c, dt, x + r * rs, w, buf), w, take_min);
}
