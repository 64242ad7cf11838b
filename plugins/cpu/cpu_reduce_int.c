/* plugins/cpu/cpu_reduce_int.c: sums (to int64) and max/min of integer and
 * bool tensors, in both forms of cpu_reduce_plan.h.
 *
 * Sums accumulate in uint64 (two's complement wrap, as ATen's int64 sum and
 * the reference, never signed overflow); integer arithmetic is exact and
 * associative, so any split gives the same bits and gcc may vectorize the
 * loops freely (target_clones: AVX-512, AVX2, baseline). */
#include <stdlib.h>
#include <string.h>

#include "cpu_reduce_kern.h"
#include "cpu_reduce_plan.h"
#include "cpu_clones.h"

#define CLONES CPU_CLONES_V4V3

#define FOR_INTS(X) \
  X(u8, uint8_t) X(i8, int8_t) X(i16, int16_t) X(i32, int32_t) X(i64, int64_t)

#define DEF_ROW(S, T)                                                              \
  CLONES static uint64_t rsum_##S(const T *x, int64_t n) {                        \
    uint64_t s = 0;                                                                \
    for (int64_t i = 0; i < n; i++) s += (uint64_t)(int64_t)x[i];                  \
    return s;                                                                      \
  }                                                                                \
  CLONES static int64_t rmax_##S(const T *x, int64_t n, int mn) {                 \
    T m = x[0];                                                                    \
    if (mn)                                                                        \
      for (int64_t i = 1; i < n; i++) m = x[i] < m ? x[i] : m;                     \
    else                                                                           \
      for (int64_t i = 1; i < n; i++) m = x[i] > m ? x[i] : m;                     \
    return (int64_t)m;                                                             \
  }                                                                                \
  CLONES static void csum_##S(uint64_t *acc, const T *x, int64_t w) {             \
    for (int64_t i = 0; i < w; i++) acc[i] += (uint64_t)(int64_t)x[i];             \
  }                                                                                \
  CLONES static void cmax_##S(int64_t *acc, const T *x, int64_t w, int mn) {      \
    if (mn)                                                                        \
      for (int64_t i = 0; i < w; i++) acc[i] = (int64_t)x[i] < acc[i] ? (int64_t)x[i] : acc[i]; \
    else                                                                           \
      for (int64_t i = 0; i < w; i++) acc[i] = (int64_t)x[i] > acc[i] ? (int64_t)x[i] : acc[i]; \
  }
FOR_INTS(DEF_ROW)

static int64_t row_red(tabi_dtype dt, const void *x, int64_t n, int kind) {
  int mn = kind == CPU_RED_MIN;
#define ROW_CASE(S, T) \
  return kind == CPU_RED_SUM ? (int64_t)rsum_##S((const T *)x, n) : rmax_##S((const T *)x, n, mn);
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: ROW_CASE(u8, uint8_t)
    case TABI_DTYPE_INT8: ROW_CASE(i8, int8_t)
    case TABI_DTYPE_INT16: ROW_CASE(i16, int16_t)
    case TABI_DTYPE_INT32: ROW_CASE(i32, int32_t)
    default: ROW_CASE(i64, int64_t)
  }
#undef ROW_CASE
}

static void col_red(tabi_dtype dt, const void *x, int64_t w, int kind, int64_t *acc) {
  int mn = kind == CPU_RED_MIN;
#define COL_CASE(S, T)                                                 \
  if (kind == CPU_RED_SUM) csum_##S((uint64_t *)acc, (const T *)x, w); \
  else cmax_##S(acc, (const T *)x, w, mn);                             \
  return;
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: COL_CASE(u8, uint8_t)
    case TABI_DTYPE_INT8: COL_CASE(i8, int8_t)
    case TABI_DTYPE_INT16: COL_CASE(i16, int16_t)
    case TABI_DTYPE_INT32: COL_CASE(i32, int32_t)
    default: COL_CASE(i64, int64_t)
  }
#undef COL_CASE
}

static void store_i(tabi_dtype dt, void *p, int64_t i, int64_t v) {
  switch (dt) {
    case TABI_DTYPE_BOOL: case TABI_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    default: ((int64_t *)p)[i] = v; break;
  }
}

typedef struct int_job {
  const cpu_red_plan *p;
  tabi_dtype dt, odt;
  const char *x;
  int64_t es;
  int kind;
  int64_t nch, chunk, nb;
  int64_t *part;
  void *out;
} int_job;

static int64_t comb(int kind, int64_t a, int64_t b) {
  if (kind == CPU_RED_SUM) return (int64_t)((uint64_t)a + (uint64_t)b);
  if (kind == CPU_RED_MIN) return b < a ? b : a;
  return b > a ? b : a;
}

static void int_rows(void *arg, int64_t b, int64_t e) {
  const int_job *j = arg;
  const cpu_red_plan *p = j->p;
  for (int64_t k = b; k < e; k++) {
    int64_t o = k / j->nch, start = (k % j->nch) * j->chunk;
    int64_t n = p->R - start < j->chunk ? p->R - start : j->chunk;
    const char *x = j->x + ((o / p->n2) * p->s1 + (o % p->n2) * p->s2 + start) * j->es;
    int64_t v = row_red(j->dt, x, n, j->kind);
    if (j->nch == 1) store_i(j->odt, j->out, o, v);
    else j->part[k] = v;
  }
}

static void int_cols(void *arg, int64_t b, int64_t e) {
  const int_job *j = arg;
  const cpu_red_plan *p = j->p;
  int64_t acc[CPU_RED_CB];
  for (int64_t k = b; k < e; k++) {
    int64_t blk = k % j->nb, o1 = k / j->nb;
    int64_t c0 = blk * CPU_RED_CB, w = p->n2 - c0 < CPU_RED_CB ? p->n2 - c0 : CPU_RED_CB;
    const char *x = j->x + (o1 * p->s1 + c0) * j->es;
    if (j->kind == CPU_RED_SUM) memset(acc, 0, (size_t)w * sizeof(int64_t));
    else for (int64_t i = 0; i < w; i++) acc[i] = j->kind == CPU_RED_MIN ? INT64_MAX : INT64_MIN;
    for (int64_t r = 0; r < p->R; r++) col_red(j->dt, x + r * p->sr * j->es, w, j->kind, acc);
    for (int64_t i = 0; i < w; i++) store_i(j->odt, j->out, o1 * p->n2 + c0 + i, acc[i]);
  }
}

tabi_status cpu_red_run_int(const cpu_ctx *c, const tabi_tensor *t, const cpu_red_plan *p,
                            int kind, tabi_tensor *out) {
  int_job j = {p, tabi_tensor_dtype(t), tabi_tensor_dtype(out), tabi_tensor_data(t),
               tabi_dtype_size(tabi_tensor_dtype(t)), kind, 1, p->R, 1, NULL,
               tabi_tensor_data(out)};
  if (p->cols) {
    j.nb = (p->n2 + CPU_RED_CB - 1) / CPU_RED_CB;
    int64_t per = p->R * (p->n2 < CPU_RED_CB ? p->n2 : CPU_RED_CB);
    cpu_parallel_for(c->pool, p->n1 * j.nb, 1 + 32768 / (per > 0 ? per : 1), int_cols, &j);
    return TABI_OK;
  }
  if (p->R > CPU_REDUCE_CHUNK) {
    j.nch = (p->R + CPU_REDUCE_CHUNK - 1) / CPU_REDUCE_CHUNK;
    j.chunk = CPU_REDUCE_CHUNK;
    j.part = malloc((size_t)(p->nout * j.nch) * sizeof(int64_t));
    if (!j.part) return TABI_ERR(c->host, TABI_ERR_OUT_OF_MEMORY, "cpu: reduction: out of memory");
  }
  cpu_parallel_for(c->pool, p->nout * j.nch, 1 + 32768 / (j.chunk < p->R ? j.chunk : p->R),
                   int_rows, &j);
  if (j.part) {
    for (int64_t o = 0; o < p->nout; o++) {
      int64_t v = j.part[o * j.nch];
      for (int64_t ch = 1; ch < j.nch; ch++) v = comb(kind, v, j.part[o * j.nch + ch]);
      store_i(j.odt, j.out, o, v);
    }
    free(j.part);
  }
  return TABI_OK;
}
