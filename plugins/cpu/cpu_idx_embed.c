/* plugins/cpu/cpu_idx_embed.c: aten::embedding_dense_backward and
 * aten::_embedding_bag, float weights (float32/64, float16, bfloat16).
 *
 * Both accumulate one output row from rows picked by indices, in double, in
 * index order, and round once, as the reference does; so each output row is
 * one task's and the result is the reference's, bitwise, at every thread
 * count. The backward first groups the positions of each weight row with a
 * stable counting sort (positions stay in increasing order per row); a bag's
 * indices are already one contiguous run. Integer gradients, bad indices or
 * offsets and other layouts go to the reference. This file is compiled without
 * FMA contraction so that `acc += x * w` rounds as the reference's does.
 */
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>

#include "cpu_idx.h"

#define EMB_AHEAD 8  /* rows prefetched ahead */
#define EMB_COLS 256 /* columns accumulated at once (a double and an index each, on the stack) */

static int float_dt(tabi_dtype dt) {
  return dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_FLOAT16 ||
         dt == TABI_DTYPE_BFLOAT16;
}

static inline double ld(const char *p, tabi_dtype dt, int64_t i) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return ((const float *)(const void *)p)[i];
    case TABI_DTYPE_FLOAT64: return ((const double *)(const void *)p)[i];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)(const void *)p)[i]);
    default: return tabi_bf16_to_f32(((const uint16_t *)(const void *)p)[i]);
  }
}

/* n elements from p[base + i * stride] as doubles (the dtype switch once per row). */
static void ld_row(const char *p, tabi_dtype dt, int64_t base, int64_t stride, int64_t n, double *out) {
#define LR(T, CONV)                                                                \
  do {                                                                             \
    const T *q = (const T *)(const void *)p + base;                                \
    if (stride == 1)                                                               \
      for (int64_t i = 0; i < n; i++) out[i] = CONV(q[i]);                         \
    else                                                                           \
      for (int64_t i = 0; i < n; i++) out[i] = CONV(q[i * stride]);                \
  } while (0)
#define ID(x) (double)(x)
#define H16(x) (double)tabi_f16_to_f32(x)
#define B16(x) (double)tabi_bf16_to_f32(x)
  switch (dt) {
    case TABI_DTYPE_FLOAT32: LR(float, ID); break;
    case TABI_DTYPE_FLOAT64: LR(double, ID); break;
    case TABI_DTYPE_FLOAT16: LR(uint16_t, H16); break;
    default: LR(uint16_t, B16); break;
  }
#undef LR
#undef ID
#undef H16
#undef B16
}

static inline void st_f(char *p, tabi_dtype dt, int64_t i, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)(void *)p)[i] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)(void *)p)[i] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)(void *)p)[i] = tabi_f32_to_f16((float)v); break;
    default: ((uint16_t *)(void *)p)[i] = tabi_f32_to_bf16((float)v); break;
  }
}

static inline void st_i(char *p, int is64, int64_t i, int64_t v) {
  if (is64) ((int64_t *)(void *)p)[i] = v;
  else ((int32_t *)(void *)p)[i] = (int32_t)v;
}

/* --- embedding_dense_backward ------------------------------------------------------ */

typedef struct ebw_job {
  const char *go;
  char *out;
  tabi_dtype dt;
  int64_t D, pad, es;
  int scale;
  const int64_t *start, *pos, *cnt;
} ebw_job;

static void ebw_rows(void *arg, int64_t r0, int64_t r1) {
  const ebw_job *j = arg;
  double acc[EMB_COLS], x[EMB_COLS];
  const int64_t kend = j->start[r1];
  for (int64_t r = r0; r < r1; r++)
    for (int64_t c0 = 0; c0 < j->D; c0 += EMB_COLS) { /* columns in blocks: each keeps index order */
      int64_t nc = j->D - c0 < EMB_COLS ? j->D - c0 : EMB_COLS;
      memset(acc, 0, sizeof(double) * (size_t)nc);
      if (r != j->pad) {
        double cnt = (double)j->cnt[r];
        for (int64_t k = j->start[r]; k < j->start[r + 1]; k++) {
          if (k + EMB_AHEAD < kend) /* rows come from random places: several misses in flight */
            __builtin_prefetch(j->go + (j->pos[k + EMB_AHEAD] * j->D + c0) * j->es, 0, 0);
          ld_row(j->go, j->dt, j->pos[k] * j->D + c0, 1, nc, x);
          if (j->scale)
            for (int64_t d = 0; d < nc; d++) acc[d] += x[d] / cnt;
          else
            for (int64_t d = 0; d < nc; d++) acc[d] += x[d];
        }
      }
      for (int64_t d = 0; d < nc; d++) st_f(j->out, j->dt, r * j->D + c0 + d, acc[d]);
    }
}

tabi_status cpu_k_embedding_dense_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                           tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, EMBEDDING_DENSE_BWD);
  const tabi_tensor *go = args[0].u.t, *ind = args[1].u.t;
  tabi_dtype dt = tabi_tensor_dtype(go), it = tabi_tensor_dtype(ind);
  int64_t V = args[2].u.i, pad = args[3].u.i, ni = tabi_tensor_numel(ind);
  if (!float_dt(dt) || (it != TABI_DTYPE_INT64 && it != TABI_DTYPE_INT32) || V <= 0 || go->dl.ndim < 1 ||
      go->dl.ndim != ind->dl.ndim + 1 || !cpu_contig(go) || !cpu_contig(ind))
    return CPU_FALLBACK(c, EMBEDDING_DENSE_BWD);
  int64_t D = go->dl.shape[go->dl.ndim - 1], vd;
  /* a [V, D] result past int64 (or V + 1 row starts past it): the reference's error */
  if (D < 1 || tabi_tensor_numel(go) != ni * D || __builtin_mul_overflow(V, D, &vd) || V == INT64_MAX)
    return CPU_FALLBACK(c, EMBEDDING_DENSE_BWD);
  const void *ip = tabi_tensor_data(ind);
  int is64 = it == TABI_DTYPE_INT64;
  /* num_weights is the caller's: (V + 1) * 8 bytes could wrap size_t (V = 2^62) */
  int64_t *cnt = calloc((size_t)V, sizeof(int64_t));
  int64_t *start = (uint64_t)V < SIZE_MAX / sizeof(int64_t) ? malloc(sizeof(int64_t) * (size_t)(V + 1)) : NULL;
  int64_t *pos = malloc(sizeof(int64_t) * (size_t)(ni > 0 ? ni : 1));
  int bad = !cnt || !start || !pos;
  for (int64_t i = 0; i < ni && !bad; i++) {
    int64_t v = cpu_idx_load(ip, is64, i);
    if ((uint64_t)v >= (uint64_t)V) bad = 1;
    else cnt[v]++;
  }
  tabi_tensor *o = NULL;
  tabi_status st = TABI_OK;
  if (!bad) {
    start[0] = 0;
    for (int64_t r = 0; r < V; r++) start[r + 1] = start[r] + cnt[r];
    int64_t *fill = cnt; /* reused as the write cursor, then restored */
    for (int64_t r = 0; r < V; r++) fill[r] = start[r];
    for (int64_t i = 0; i < ni; i++) pos[fill[cpu_idx_load(ip, is64, i)]++] = i;
    for (int64_t r = 0; r < V; r++) cnt[r] = start[r + 1] - start[r];
    int64_t shape[2] = {V, D};
    st = cpu_empty(c, go, dt, 2, shape, &o);
    if (st == TABI_OK) {
      ebw_job j = {tabi_tensor_data(go), tabi_tensor_data(o), dt, D, pad, tabi_dtype_size(dt), args[4].u.i != 0,
                   start, pos, cnt};
      cpu_parallel_for(c->pool, V, 1 + 16384 / (D * (1 + ni / V)), ebw_rows, &j);
    }
  }
  free(cnt);
  free(start);
  free(pos);
  if (bad) return CPU_FALLBACK(c, EMBEDDING_DENSE_BWD);
  if (st != TABI_OK) return st;
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* --- _embedding_bag ------------------------------------------------------------------ */

typedef struct bag_job {
  const char *w, *psw;
  const void *ind, *off;
  int is64, off64;
  tabi_dtype dt;
  int64_t ws0, ws1, is, os, ps; /* strides: weight rows / cols, indices, offsets, psw */
  int64_t B, D, n, pad, mode, es;
  char *out, *o2b, *bsz, *mxi;  /* o2b NULL: not built */
  int mx64;
} bag_job;

static void bag_range(void *arg, int64_t b0, int64_t b1) {
  const bag_job *j = arg;
  double acc[EMB_COLS], x[EMB_COLS];
  int64_t am[EMB_COLS];
  for (int64_t b = b0; b < b1; b++) {
    int64_t i0 = cpu_idx_load(j->off, j->off64, b * j->os);
    int64_t i1 = b + 1 < j->B ? cpu_idx_load(j->off, j->off64, (b + 1) * j->os) : j->n;
    int64_t cnt = 0;
    if (j->o2b)
      for (int64_t i = i0; i < i1; i++) st_i(j->o2b, j->is64, i, b);
    for (int64_t c0 = 0; c0 < j->D; c0 += EMB_COLS) { /* columns in blocks: each keeps index order */
      int64_t nc = j->D - c0 < EMB_COLS ? j->D - c0 : EMB_COLS;
      memset(acc, 0, sizeof(double) * (size_t)nc);
      memset(am, 0, sizeof(int64_t) * (size_t)nc);
      cnt = 0;
      for (int64_t i = i0; i < i1; i++) {
        if (i + EMB_AHEAD < j->n) /* the weight row a few indices on */
          __builtin_prefetch(j->w + (cpu_idx_load(j->ind, j->is64, (i + EMB_AHEAD) * j->is) * j->ws0 + c0 * j->ws1) *
                                        j->es, 0, 0);
        int64_t v = cpu_idx_load(j->ind, j->is64, i * j->is);
        if (v == j->pad) continue;
        ld_row(j->w, j->dt, v * j->ws0 + c0 * j->ws1, j->ws1, nc, x);
        if (j->mode == 2) {
          for (int64_t d = 0; d < nc; d++)
            if (cnt == 0 || x[d] > acc[d]) { acc[d] = x[d]; am[d] = v; }
        } else if (j->psw) {
          double sc = ld(j->psw, j->dt, i * j->ps);
          for (int64_t d = 0; d < nc; d++) acc[d] += x[d] * sc;
        } else {
          for (int64_t d = 0; d < nc; d++) acc[d] += x[d] * 1.0; /* as the reference: x * 1 */
        }
        cnt++;
      }
      for (int64_t d = 0; d < nc; d++) {
        double v = acc[d];
        if (j->mode == 1) v = cnt ? v / (double)cnt : 0;
        st_f(j->out, j->dt, b * j->D + c0 + d, v);
        if (j->mode == 2) st_i(j->mxi, j->mx64, b * j->D + c0 + d, am[d]);
      }
    }
    st_i(j->bsz, j->mx64, b, j->mode == 0 ? 0 : cnt);
    if (j->mode != 2) st_i(j->mxi, j->mx64, b, j->mode == 1 ? cnt : 0);
  }
}

tabi_status cpu_k_embedding_bag(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR || args[2].tag != TABI_TAG_TENSOR)
    return CPU_FALLBACK(c, EMBEDDING_BAG);
  const tabi_tensor *w = args[0].u.t, *ind = args[1].u.t, *off = args[2].u.t;
  const tabi_tensor *psw = args[6].tag == TABI_TAG_TENSOR ? args[6].u.t : NULL;
  int64_t mode = args[4].u.i, pad = args[8].u.i;
  int ilo = args[7].u.i != 0;
  tabi_dtype dt = tabi_tensor_dtype(w), it = tabi_tensor_dtype(ind), ot = tabi_tensor_dtype(off);
  if (!float_dt(dt) || (it != TABI_DTYPE_INT64 && it != TABI_DTYPE_INT32) ||
      (ot != TABI_DTYPE_INT64 && ot != TABI_DTYPE_INT32) || mode < 0 || mode > 2 || w->dl.ndim != 2 ||
      ind->dl.ndim != 1 || off->dl.ndim != 1 ||
      (psw && (mode != 0 || tabi_tensor_dtype(psw) != dt || psw->dl.ndim != 1 ||
               psw->dl.shape[0] != ind->dl.shape[0])))
    return CPU_FALLBACK(c, EMBEDDING_BAG);
  bag_job j;
  memset(&j, 0, sizeof j);
  int64_t V = w->dl.shape[0];
  j.D = w->dl.shape[1];
  j.n = ind->dl.shape[0];
  j.B = off->dl.shape[0] - (ilo ? 1 : 0);
  if (j.B <= 0 || j.D <= 0) return CPU_FALLBACK(c, EMBEDDING_BAG);
  j.w = tabi_tensor_data(w);
  j.ind = tabi_tensor_data(ind);
  j.off = tabi_tensor_data(off);
  j.psw = psw ? tabi_tensor_data(psw) : NULL;
  j.is64 = it == TABI_DTYPE_INT64;
  j.off64 = ot == TABI_DTYPE_INT64;
  j.mx64 = j.is64;
  j.dt = dt;
  j.es = tabi_dtype_size(dt);
  j.ws0 = w->dl.strides[0];
  j.ws1 = w->dl.strides[1];
  j.is = ind->dl.strides[0];
  j.os = off->dl.strides[0];
  j.ps = psw ? psw->dl.strides[0] : 0;
  j.pad = pad;
  j.mode = mode;
  /* offsets start at 0, never decrease, stay <= n; indices in range (else the reference reports) */
  int64_t prev = 0;
  for (int64_t b = 0; b < off->dl.shape[0]; b++) {
    int64_t o = cpu_idx_load(j.off, j.off64, b * j.os);
    if ((b == 0 && o != 0) || o < prev || o > j.n) return CPU_FALLBACK(c, EMBEDDING_BAG);
    prev = o;
  }
  uint64_t badv = 0;
  for (int64_t i = 0; i < j.n; i++) badv |= (uint64_t)cpu_idx_load(j.ind, j.is64, i * j.is) >= (uint64_t)V;
  if (badv) return CPU_FALLBACK(c, EMBEDDING_BAG);
  /* ATen's sum-mode fast path does not build offset2bag (see the reference) */
  int fast = mode == 0 && pad < 0 &&
             (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16) &&
             j.ws1 == 1 && (!psw || j.ps == 1);
  int64_t oshape[2] = {j.B, j.D}, o2b_n = fast ? 0 : j.n;
  tabi_tensor *out = NULL, *o2b = NULL, *bsz = NULL, *mxi = NULL;
  tabi_status st;
  if ((st = cpu_empty(c, w, dt, 2, oshape, &out)) || (st = cpu_empty(c, w, it, 1, &o2b_n, &o2b)) ||
      (st = cpu_empty(c, w, it, 1, &j.B, &bsz)) || (st = cpu_empty(c, w, it, mode == 2 ? 2 : 1, oshape, &mxi))) {
    c->host->tensor_release(c->host->ctx, out);
    c->host->tensor_release(c->host->ctx, o2b);
    c->host->tensor_release(c->host->ctx, bsz);
    c->host->tensor_release(c->host->ctx, mxi);
    return st;
  }
  j.out = tabi_tensor_data(out);
  j.o2b = o2b_n ? tabi_tensor_data(o2b) : NULL;
  j.bsz = tabi_tensor_data(bsz);
  j.mxi = tabi_tensor_data(mxi);
  cpu_parallel_for(c->pool, j.B, 1 + 16384 / (j.D * (1 + j.n / j.B)), bag_range, &j);
  outs[0] = tabi_tensor_value(out);
  outs[1] = tabi_tensor_value(o2b);
  outs[2] = tabi_tensor_value(bsz);
  outs[3] = tabi_tensor_value(mxi);
  return TABI_OK;
}
