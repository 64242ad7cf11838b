/* plugins/cpu/cpu_matmul.c: convolution and convolution_backward for float32
 * (mm, bmm and addmm are in cpu_nn_mm.c).
 *
 * oneDNN computes where it is built in (cpu_dnnl.c, cached primitives). Convolutions take the
 * common case (2-d, not transposed, one group, contiguous NCHW/OIHW) through
 * oneDNN; everything else, and every float type other than float32, runs the
 * reference kernel.
 *
 * Deterministic mode: oneDNN is called with one thread, because its
 * reductions (the batch reduction of a weight gradient) are split by thread
 * count.
 */
#include <string.h>

#include "cpu.h"
#include "cpu_dnnl.h"

/* One thread in deterministic mode and in a forked child (libgomp's team of
 * the parent does not exist there; a region of one thread never waits on it). */
static int32_t dnnl_threads(const cpu_ctx *c) {
  if (cpu_pool_forked(c->pool)) return 1;
  return c->host->deterministic(c->host->ctx) ? 1 : c->nthreads;
}

/* --- convolution ----------------------------------------------------------------- */

/* A spatial parameter list of length 1 (both dims) or 2. */
static int pair(const tabi_value *v, int64_t *out) {
  if (v->tag != TABI_TAG_INT_LIST || v->u.list.len < 1 || v->u.list.len > 2) return 0;
  const int64_t *p = tabi_value_ints(v);
  out[0] = p[0];
  out[1] = v->u.list.len == 2 ? p[1] : p[0];
  return 1;
}

/* The geometry of a plain 2-d convolution (args in aten::convolution order from
 * `stride`), or 0 when the fast path does not take it. */
static int conv_geom(const tabi_tensor *x, const tabi_tensor *w, const tabi_value *stride,
                     const tabi_value *padding, const tabi_value *dilation,
                     const tabi_value *transposed, const tabi_value *groups, cpu_conv_geom *g) {
  if (x->dl.ndim != 4 || w->dl.ndim != 4 || tabi_tensor_dtype(x) != TABI_DTYPE_FLOAT32 ||
      tabi_tensor_dtype(w) != TABI_DTYPE_FLOAT32 || !cpu_contig(x) || !cpu_contig(w))
    return 0;
  if (transposed->tag != TABI_TAG_BOOL || transposed->u.i) return 0;
  if (groups->tag != TABI_TAG_INT || groups->u.i != 1) return 0;
  int64_t s[2], p[2], d[2];
  if (!pair(stride, s) || !pair(padding, p) || !pair(dilation, d)) return 0;
  if (s[0] < 1 || s[1] < 1 || p[0] < 0 || p[1] < 0 || d[0] < 1 || d[1] < 1) return 0;
  g->n = x->dl.shape[0]; g->ic = x->dl.shape[1]; g->ih = x->dl.shape[2]; g->iw = x->dl.shape[3];
  g->oc = w->dl.shape[0]; g->kh = w->dl.shape[2]; g->kw = w->dl.shape[3];
  if (w->dl.shape[1] != g->ic || g->n < 1 || g->ic < 1 || g->oc < 1 || g->kh < 1 || g->kw < 1)
    return 0;
  g->sh = s[0]; g->sw = s[1]; g->ph = p[0]; g->pw = p[1]; g->dh = d[0]; g->dw = d[1];
  g->oh = (g->ih + 2 * g->ph - g->dh * (g->kh - 1) - 1) / g->sh + 1;
  g->ow = (g->iw + 2 * g->pw - g->dw * (g->kw - 1) - 1) / g->sw + 1;
  if (g->ih + 2 * g->ph - g->dh * (g->kh - 1) - 1 < 0 || g->iw + 2 * g->pw - g->dw * (g->kw - 1) - 1 < 0)
    return 0;
  return g->oh >= 1 && g->ow >= 1;
}

tabi_status cpu_k_conv(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  cpu_conv_geom g;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR || !c->dnnl ||
      !conv_geom(args[0].u.t, args[1].u.t, &args[3], &args[4], &args[5], &args[6], &args[8], &g))
    return CPU_FALLBACK(c, CONV);
  const float *bias = NULL;
  if (args[2].tag == TABI_TAG_TENSOR) {
    const tabi_tensor *b = args[2].u.t;
    if (b->dl.ndim != 1 || b->dl.shape[0] != g.oc || tabi_tensor_dtype(b) != TABI_DTYPE_FLOAT32 ||
        !cpu_contig(b))
      return CPU_FALLBACK(c, CONV);
    bias = tabi_tensor_data(b);
  }
  int64_t shape[4] = {g.n, g.oc, g.oh, g.ow};
  tabi_tensor *o = NULL;
  tabi_status st = cpu_empty(c, args[0].u.t, TABI_DTYPE_FLOAT32, 4, shape, &o);
  if (st != TABI_OK) return st;
  if (!cpu_dnnl_conv_fwd(c->dnnl, c->host, dnnl_threads(c), &g, tabi_tensor_data(args[0].u.t),
                         tabi_tensor_data(args[1].u.t), bias, tabi_tensor_data(o))) {
    c->host->tensor_release(c->host->ctx, o);
    return CPU_FALLBACK(c, CONV);
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

typedef struct bias_job {
  const float *dy;
  float *db;
  int64_t n, oc, hw;
} bias_job;

static void bias_range(void *arg, int64_t b, int64_t e) {
  const bias_job *j = arg;
  for (int64_t ch = b; ch < e; ch++) {
    double acc = 0.0;
    for (int64_t i = 0; i < j->n; i++) {
      const float *p = j->dy + (i * j->oc + ch) * j->hw;
      for (int64_t q = 0; q < j->hw; q++) acc += p[q];
    }
    j->db[ch] = (float)acc;
  }
}

tabi_status cpu_k_conv_bwd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  cpu_conv_geom g;
  /* grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
   * output_padding, groups, output_mask */
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR ||
      args[2].tag != TABI_TAG_TENSOR || !c->dnnl || args[10].tag != TABI_TAG_BOOL_LIST ||
      args[10].u.list.len != 3 ||
      !conv_geom(args[1].u.t, args[2].u.t, &args[4], &args[5], &args[6], &args[7], &args[9], &g))
    return CPU_FALLBACK(c, CONV_BWD);
  const tabi_tensor *dy = args[0].u.t;
  if (dy->dl.ndim != 4 || tabi_tensor_dtype(dy) != TABI_DTYPE_FLOAT32 || !cpu_contig(dy) ||
      dy->dl.shape[0] != g.n || dy->dl.shape[1] != g.oc || dy->dl.shape[2] != g.oh ||
      dy->dl.shape[3] != g.ow)
    return CPU_FALLBACK(c, CONV_BWD);
  const int64_t *mask = tabi_value_ints(&args[10]);
  const tabi_tensor *x = args[1].u.t, *w = args[2].u.t;
  tabi_tensor *dx = NULL, *dw = NULL, *db = NULL;
  tabi_status st = TABI_OK;
  int32_t nt = dnnl_threads(c);
  if (mask[0]) {
    st = cpu_empty(c, x, TABI_DTYPE_FLOAT32, 4, x->dl.shape, &dx);
    if (st == TABI_OK && !cpu_dnnl_conv_bwd_data(c->dnnl, c->host, nt, &g, tabi_tensor_data(dy),
                                                 tabi_tensor_data(w), tabi_tensor_data(dx)))
      st = TABI_ERR_UNIMPLEMENTED;
  }
  if (st == TABI_OK && mask[1]) {
    st = cpu_empty(c, w, TABI_DTYPE_FLOAT32, 4, w->dl.shape, &dw);
    if (st == TABI_OK && !cpu_dnnl_conv_bwd_weights(c->dnnl, c->host, nt, &g, tabi_tensor_data(x),
                                                    tabi_tensor_data(dy), tabi_tensor_data(dw), NULL))
      st = TABI_ERR_UNIMPLEMENTED;
  }
  if (st == TABI_OK && mask[2]) {
    int64_t oc = g.oc;
    st = cpu_empty(c, dy, TABI_DTYPE_FLOAT32, 1, &oc, &db);
    if (st == TABI_OK) {
      bias_job j = {tabi_tensor_data(dy), tabi_tensor_data(db), g.n, g.oc, g.oh * g.ow};
      cpu_parallel_for(c->pool, g.oc, 1, bias_range, &j);
    }
  }
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, dx);
    c->host->tensor_release(c->host->ctx, dw);
    c->host->tensor_release(c->host->ctx, db);
    if (st == TABI_ERR_UNIMPLEMENTED) return CPU_FALLBACK(c, CONV_BWD);
    return st;
  }
  outs[0] = tabi_tensor_value(dx);
  outs[1] = tabi_tensor_value(dw);
  outs[2] = tabi_tensor_value(db);
  return TABI_OK;
}
