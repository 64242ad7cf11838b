/* plugins/cpu/cpu_nn_conv.c: convolution and convolution_backward (mm, bmm
 * and addmm are in cpu_nn_mm.c).
 *
 * oneDNN computes where it is built in (cpu_dnnl.c, cached primitives): 1-d,
 * 2-d and 3-d, strided, padded, dilated, grouped (depthwise included) and
 * transposed convolutions in float32, float16 and bfloat16. bfloat16 goes to oneDNN's bf16 kernels as it is, with float32
 * results (where the machine has such kernels; its products are exact in
 * float32 and it sums in float32); float16, and bfloat16 elsewhere, is widened
 * to float32 (exactly) first. Either way the result is rounded once at the
 * end, as the reference accumulates in double and rounds once: the
 * difference is float32's rounding of the sums, far inside the half types'
 * tolerance. Inputs may have any dense layout (channels-last,
 * transposed views): oneDNN reads them by their strides; results are
 * contiguous, as the reference's. Views oneDNN cannot describe (gaps,
 * overlaps) are copied to contiguous tensors by the plugin's clone first.
 * Everything else (float64, integers, output_padding larger than padding,
 * which oneDNN's deconvolution cannot express, builds without oneDNN) goes to
 * cpu_nn_conv64.c (im2col + GEMM in double or wrapping int64); empty tensors
 * and every argument error run the reference kernel, so errors read the same.
 *
 * Deterministic mode: oneDNN is called with one thread, because its
 * reductions (the batch reduction of a weight gradient) are split by thread
 * count. grad_bias is the plugin's own: per channel, in double, in the
 * reference's order, so it is the same for every thread count.
 */
#include <string.h>

#include "cpu.h"
#include "cpu_dnnl.h"
#include "cpu_nn_conv64.h"
#include "ref_shape_util.h"

/* One thread in deterministic mode and in a forked child (libgomp's team of
 * the parent does not exist there; a region of one thread never waits on it). */
static int32_t dnnl_threads(const cpu_ctx *c) {
  if (cpu_pool_forked(c->pool)) return 1;
  return c->host->deterministic(c->host->ctx) ? 1 : c->nthreads;
}

static int conv_dtype(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT32 || d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16;
}

#define SIZE_MAX31 ((int64_t)1 << 31)

/* Whether t's elements fill numel(t) consecutive slots from its data pointer
 * in some order of dims (contiguous, channels-last, a transposed view), and
 * its element strides with those of size-1 dims made consistent; 0 for views
 * with gaps, overlaps or negative strides, and strides past 2^31. */
static int dense_strides(const tabi_tensor *t, int64_t *out) {
  int32_t nd = t->dl.ndim, order[5];
  if (nd > 5) return 0;
  for (int32_t i = 0; i < nd; i++) order[i] = i;
  /* innermost first: by stride, then by dim index from the back */
  for (int32_t i = 1; i < nd; i++)
    for (int32_t j = i; j > 0; j--) {
      int32_t a = order[j - 1], b = order[j];
      int64_t sa = t->dl.shape[a] == 1 ? INT64_MAX : t->dl.strides[a];
      int64_t sb = t->dl.shape[b] == 1 ? INT64_MAX : t->dl.strides[b];
      if (sa < sb || (sa == sb && a > b)) break;
      order[j - 1] = b;
      order[j] = a;
    }
  int64_t expect = 1;
  for (int32_t i = 0; i < nd; i++) {
    int32_t d = order[i];
    if (t->dl.shape[d] != 1 && t->dl.strides[d] != expect) return 0;
    out[d] = expect;
    expect *= t->dl.shape[d];
    if (expect >= SIZE_MAX31) return 0;
  }
  return 1;
}

/* A spatial list of length 1 (every dim) or ns, each value in [lo, 2^31). */
static int sp_list(const tabi_value *v, int32_t ns, int64_t lo, int64_t *out) {
  if (v->tag != TABI_TAG_INT_LIST || (v->u.list.len != 1 && v->u.list.len != ns)) return 0;
  const int64_t *p = tabi_value_ints(v);
  for (int32_t i = 0; i < ns; i++) {
    out[i] = p[v->u.list.len == 1 ? 0 : i];
    if (out[i] < lo || out[i] >= SIZE_MAX31) return 0;
  }
  return 1;
}

/* The geometry of x (*) w with args `a` in aten::convolution's order from
 * `stride` (stride, padding, dilation, transposed, output_padding, groups), or
 * 0 when the fast path does not take it. */
static int conv_geom(const tabi_tensor *x, const tabi_tensor *w, const tabi_value *a, cpu_conv_geom *g) {
  int32_t nd = w->dl.ndim, ns = nd - 2;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (nd < 3 || nd > 5 || x->dl.ndim != nd || !conv_dtype(dt) || tabi_tensor_dtype(w) != dt)
    return 0;
  if (a[3].tag != TABI_TAG_BOOL || a[5].tag != TABI_TAG_INT || a[5].u.i < 1 || a[5].u.i >= SIZE_MAX31)
    return 0;
  memset(g, 0, sizeof *g);
  if (!dense_strides(x, g->xs) || !dense_strides(w, g->ws)) return 0;
  g->ns = ns;
  g->transposed = a[3].u.i != 0;
  g->groups = a[5].u.i;
  if (!sp_list(&a[0], ns, 1, g->s) || !sp_list(&a[1], ns, 0, g->p) || !sp_list(&a[2], ns, 1, g->d) ||
      !sp_list(&a[4], ns, 0, g->op))
    return 0;
  for (int32_t i = 0; i < nd; i++)
    if (x->dl.shape[i] < 1 || w->dl.shape[i] < 1 || x->dl.shape[i] >= SIZE_MAX31 ||
        w->dl.shape[i] >= SIZE_MAX31)
      return 0;
  int64_t G = g->groups;
  g->n = x->dl.shape[0];
  g->ic = x->dl.shape[1];
  if (g->transposed) {
    g->oc = w->dl.shape[1] * G;
    if (w->dl.shape[0] != g->ic || g->ic % G != 0 || g->oc >= SIZE_MAX31) return 0;
  } else {
    g->oc = w->dl.shape[0];
    if (w->dl.shape[1] * G != g->ic || g->oc % G != 0) return 0;
  }
  for (int32_t i = 0; i < ns; i++) {
    int64_t in = x->dl.shape[2 + i], k = w->dl.shape[2 + i], span = g->d[i] * (k - 1) + 1, out;
    g->in[i] = in;
    g->k[i] = k;
    if (g->transposed) {
      /* output_padding >= both stride and dilation is an error (the
       * reference says so); > padding is oneDNN's negative right padding */
      if ((g->op[i] >= g->s[i] && g->op[i] >= g->d[i]) || g->op[i] > g->p[i]) return 0;
      out = (in - 1) * g->s[i] - 2 * g->p[i] + span + g->op[i];
    } else {
      g->op[i] = 0; /* ignored by a plain convolution */
      if (in + 2 * g->p[i] < span) return 0;
      out = (in + 2 * g->p[i] - span) / g->s[i] + 1;
    }
    if (out < 1 || out >= SIZE_MAX31) return 0;
    g->out[i] = out;
  }
  return 1;
}

static void release(const cpu_ctx *c, tabi_tensor **t, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (t[i]) c->host->tensor_release(c->host->ctx, t[i]);
}

/* float32/float16/bfloat16 operands oneDNN cannot read (views with gaps or
 * overlaps) copied to contiguous ones by the plugin's clone kernel: a2 is args
 * with the first `nt` tensors replaced where needed, made[] the copies (to
 * release). 0 when nothing needed a copy or a copy failed (nothing held). */
static int densify(const cpu_ctx *c, const tabi_call *call, const tabi_value *args, int32_t nargs, int32_t nt,
                   tabi_value *a2, tabi_tensor **made) {
  int any = 0;
  memcpy(a2, args, sizeof *a2 * (size_t)nargs);
  for (int32_t i = 0; i < nt; i++) made[i] = NULL;
  for (int32_t i = 0; i < nt; i++) {
    if (args[i].tag != TABI_TAG_TENSOR) break;
    const tabi_tensor *t = args[i].u.t;
    int64_t st[5];
    if (!conv_dtype(tabi_tensor_dtype(t)) || t->dl.ndim < 3 || t->dl.ndim > 5 || tabi_tensor_numel(t) < 1 ||
        dense_strides(t, st))
      continue;
    tabi_value ca[2] = {args[i], tabi_int(RS_MF_CONTIGUOUS)}, co[1] = {tabi_none()};
    if (cpu_k_clone((void *)c, call, ca, co) != TABI_OK || co[0].tag != TABI_TAG_TENSOR) {
      any = 0;
      break;
    }
    made[i] = co[0].u.t;
    a2[i] = co[0];
    any = 1;
  }
  if (!any)
    for (int32_t i = 0; i < nt; i++)
      if (made[i]) c->host->tensor_release(c->host->ctx, made[i]);
  return any;
}

/* --- float16/bfloat16 through float32 ------------------------------------------ */

#define CVT_CHUNK 16384

typedef struct cvt_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  const void *src;
  void *dst;
  int64_t n;
  int widen; /* 1: half -> float32, 0: float32 -> half */
} cvt_job;

static void cvt_range(void *arg, int64_t b, int64_t e) {
  const cvt_job *j = arg;
  int64_t lo = b * CVT_CHUNK, hi = e * CVT_CHUNK < j->n ? e * CVT_CHUNK : j->n;
  if (j->widen)
    cpu_to_f32(j->c, j->dt, (const uint16_t *)j->src + lo, (float *)j->dst + lo, hi - lo);
  else
    cpu_from_f32(j->c, j->dt, (const float *)j->src + lo, (uint16_t *)j->dst + lo, hi - lo);
}

static void convert(const cpu_ctx *c, tabi_dtype dt, const void *src, void *dst, int64_t n, int widen) {
  cvt_job j = {c, dt, src, dst, n, widen};
  cpu_parallel_for(c->pool, (n + CVT_CHUNK - 1) / CVT_CHUNK, 1, cvt_range, &j);
}

/* The float32 data of t: its own for float32, else a widened copy in *tmp
 * (released by the caller). NULL when the copy cannot be allocated. */
static const float *as_f32(const cpu_ctx *c, const tabi_tensor *t, tabi_tensor **tmp) {
  *tmp = NULL;
  if (!t) return NULL;
  if (tabi_tensor_dtype(t) == TABI_DTYPE_FLOAT32) return tabi_tensor_data(t);
  int64_t n = tabi_tensor_numel(t);
  if (cpu_empty(c, t, TABI_DTYPE_FLOAT32, 1, &n, tmp) != TABI_OK) return NULL;
  convert(c, tabi_tensor_dtype(t), tabi_tensor_data(t), tabi_tensor_data(*tmp), n, 1);
  return tabi_tensor_data(*tmp);
}

/* Where a result of `out`'s dtype is computed in float32: out's own data, or
 * a float32 temporary that finish() rounds into out. */
static float *out_f32(const cpu_ctx *c, tabi_tensor *out, tabi_tensor **tmp) {
  *tmp = NULL;
  if (tabi_tensor_dtype(out) == TABI_DTYPE_FLOAT32) return tabi_tensor_data(out);
  int64_t n = tabi_tensor_numel(out);
  if (cpu_empty(c, out, TABI_DTYPE_FLOAT32, 1, &n, tmp) != TABI_OK) return NULL;
  return tabi_tensor_data(*tmp);
}

static void finish(const cpu_ctx *c, tabi_tensor *out, tabi_tensor *tmp) {
  if (!tmp) return;
  convert(c, tabi_tensor_dtype(out), tabi_tensor_data(tmp), tabi_tensor_data(out),
          tabi_tensor_numel(out), 0);
}


/* --- forward ----------------------------------------------------------------------- */

tabi_status cpu_k_conv(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  cpu_conv_geom g;
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR || !c->dnnl ||
      !conv_geom(args[0].u.t, args[1].u.t, &args[3], &g)) {
    tabi_value a2[9];
    tabi_tensor *made[2];
    if (!c->dnnl || !densify(c, call, args, 9, 2, a2, made)) return cpu_conv64_fwd(c, call, args, outs);
    tabi_status st = cpu_k_conv(ctx, call, a2, outs); /* on dense copies */
    release(c, made, 2);
    return st;
  }
  const tabi_tensor *x = args[0].u.t, *w = args[1].u.t, *b = NULL;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if (args[2].tag == TABI_TAG_TENSOR) {
    b = args[2].u.t;
    if (b->dl.ndim != 1 || b->dl.shape[0] != g.oc || tabi_tensor_dtype(b) != dt || !cpu_contig(b))
      return cpu_conv64_fwd(c, call, args, outs);
  }
  int64_t shape[5] = {g.n, g.oc};
  for (int32_t i = 0; i < g.ns; i++) shape[2 + i] = g.out[i];
  tabi_tensor *o = NULL, *tmp[4] = {0};
  tabi_status st = cpu_empty(c, x, dt, g.ns + 2, shape, &o);
  if (st != TABI_OK) return st;
  const float *bf = as_f32(c, b, &tmp[2]);
  float *yf = out_f32(c, o, &tmp[3]);
  int ok = 0, nt = dnnl_threads(c);
  if (yf && (bf || !b)) {
    if (dt == TABI_DTYPE_BFLOAT16) { /* oneDNN's bf16 kernels, where the machine has them */
      g.bf16 = 1;
      ok = cpu_dnnl_conv_fwd(c->dnnl, c->host, nt, &g, tabi_tensor_data(x), tabi_tensor_data(w), bf, yf);
      g.bf16 = 0;
    }
    if (!ok) {
      const float *xf = as_f32(c, x, &tmp[0]), *wf = as_f32(c, w, &tmp[1]);
      ok = xf && wf && cpu_dnnl_conv_fwd(c->dnnl, c->host, nt, &g, xf, wf, bf, yf);
    }
  }
  if (ok) finish(c, o, tmp[3]);
  release(c, tmp, 4);
  if (!ok) {
    c->host->tensor_release(c->host->ctx, o);
    return cpu_conv64_fwd(c, call, args, outs);
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

/* --- backward ---------------------------------------------------------------------- */

typedef struct bias_job {
  const float *dy;
  double *db;
  int64_t n, sz[3], st[5]; /* batch, spatial sizes (1 past ns), dy's strides (n, c, spatial) */
} bias_job;

/* grad_bias[ch] = sum over batch, then positions in row-major order, in
 * double: the reference's order, whatever dy's layout. */
static void bias_range(void *arg, int64_t b, int64_t e) {
  const bias_job *j = arg;
  for (int64_t ch = b; ch < e; ch++) {
    double acc = 0.0;
    for (int64_t i = 0; i < j->n; i++) {
      const float *p = j->dy + i * j->st[0] + ch * j->st[1];
      for (int64_t a = 0; a < j->sz[0]; a++)
        for (int64_t q = 0; q < j->sz[1]; q++) {
          const float *r = p + a * j->st[2] + q * j->st[3];
          if (j->st[4] == 1)
            for (int64_t t = 0; t < j->sz[2]; t++) acc += r[t];
          else
            for (int64_t t = 0; t < j->sz[2]; t++) acc += r[t * j->st[4]];
        }
    }
    j->db[ch] = acc;
  }
}

static tabi_status bias_grad(const cpu_ctx *c, const cpu_conv_geom *g, const tabi_tensor *dy,
                             const float *dyf, tabi_tensor **out_db) {
  tabi_dtype dt = tabi_tensor_dtype(dy);
  int64_t oc = g->oc;
  tabi_tensor *db = NULL, *acc = NULL;
  tabi_status st = cpu_empty(c, dy, dt, 1, &oc, &db);
  if (st == TABI_OK) st = cpu_empty(c, dy, TABI_DTYPE_FLOAT64, 1, &oc, &acc);
  if (st != TABI_OK) {
    c->host->tensor_release(c->host->ctx, db);
    return st;
  }
  bias_job j = {dyf, tabi_tensor_data(acc), g->n, {1, 1, 1}, {g->ys[0], g->ys[1], 0, 0, 0}};
  for (int32_t i = 0; i < g->ns; i++) { /* right-aligned: the last dim innermost */
    j.sz[3 - g->ns + i] = g->out[i];
    j.st[5 - g->ns + i] = g->ys[2 + i];
  }
  cpu_parallel_for(c->pool, g->oc, 1, bias_range, &j);
  const double *a = tabi_tensor_data(acc);
  void *d = tabi_tensor_data(db);
  for (int64_t ch = 0; ch < oc; ch++) {
    if (dt == TABI_DTYPE_FLOAT32) ((float *)d)[ch] = (float)a[ch];
    else if (dt == TABI_DTYPE_FLOAT16) ((uint16_t *)d)[ch] = tabi_f32_to_f16((float)a[ch]);
    else ((uint16_t *)d)[ch] = tabi_f32_to_bf16((float)a[ch]);
  }
  c->host->tensor_release(c->host->ctx, acc);
  *out_db = db;
  return TABI_OK;
}

tabi_status cpu_k_conv_bwd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  cpu_conv_geom g;
  /* grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
   * output_padding, groups, output_mask */
  int bad = args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR ||
            args[2].tag != TABI_TAG_TENSOR || !c->dnnl || args[10].tag != TABI_TAG_BOOL_LIST ||
            args[10].u.list.len != 3 || !conv_geom(args[1].u.t, args[2].u.t, &args[4], &g);
  const tabi_tensor *dy = args[0].u.t, *x = args[1].u.t, *w = args[2].u.t;
  tabi_dtype dt = bad ? TABI_DTYPE_FLOAT32 : tabi_tensor_dtype(x);
  if (!bad) {
    bad = dy->dl.ndim != g.ns + 2 || tabi_tensor_dtype(dy) != dt || !dense_strides(dy, g.ys) ||
          dy->dl.shape[0] != g.n || dy->dl.shape[1] != g.oc;
    for (int32_t i = 0; !bad && i < g.ns; i++) bad = dy->dl.shape[2 + i] != g.out[i];
  }
  if (bad) {
    tabi_value a2[11];
    tabi_tensor *made[3];
    if (!c->dnnl || !densify(c, call, args, 11, 3, a2, made)) return cpu_conv64_bwd(c, call, args, outs);
    tabi_status st = cpu_k_conv_bwd(ctx, call, a2, outs); /* on dense copies */
    release(c, made, 3);
    return st;
  }
  const int64_t *mask = tabi_value_ints(&args[10]);
  tabi_tensor *dx = NULL, *dw = NULL, *db = NULL, *tmp[5] = {0};
  tabi_status st = TABI_OK;
  int32_t nt = dnnl_threads(c);
  /* float32 copies of the half inputs, made when first needed (bfloat16
   * tries oneDNN's bf16 kernels on the inputs as they are first) */
  const float *dyf = NULL, *wf = NULL, *xf = NULL;
  int bf = dt == TABI_DTYPE_BFLOAT16;
  if (mask[0]) {
    st = cpu_empty(c, x, dt, x->dl.ndim, x->dl.shape, &dx);
    float *dxf = st == TABI_OK ? out_f32(c, dx, &tmp[2]) : NULL;
    int ok = 0;
    if (dxf && bf) {
      g.bf16 = 1;
      ok = cpu_dnnl_conv_bwd_data(c->dnnl, c->host, nt, &g, tabi_tensor_data(dy), tabi_tensor_data(w), dxf);
      g.bf16 = 0;
    }
    if (dxf && !ok) {
      if (!dyf) dyf = as_f32(c, dy, &tmp[0]);
      if (!wf) wf = as_f32(c, w, &tmp[1]);
      ok = dyf && wf && cpu_dnnl_conv_bwd_data(c->dnnl, c->host, nt, &g, dyf, wf, dxf);
    }
    if (st == TABI_OK && !ok) st = TABI_ERR_UNIMPLEMENTED;
    if (st == TABI_OK) finish(c, dx, tmp[2]);
  }
  if (st == TABI_OK && mask[1]) {
    st = cpu_empty(c, w, dt, w->dl.ndim, w->dl.shape, &dw);
    float *dwf = st == TABI_OK ? out_f32(c, dw, &tmp[4]) : NULL;
    int ok = 0;
    if (dwf && bf) {
      g.bf16 = 1;
      ok = cpu_dnnl_conv_bwd_weights(c->dnnl, c->host, nt, &g, tabi_tensor_data(x), tabi_tensor_data(dy), dwf,
                                     NULL);
      g.bf16 = 0;
    }
    if (dwf && !ok) {
      if (!dyf) dyf = as_f32(c, dy, &tmp[0]);
      if (!xf) xf = as_f32(c, x, &tmp[3]);
      ok = dyf && xf && cpu_dnnl_conv_bwd_weights(c->dnnl, c->host, nt, &g, xf, dyf, dwf, NULL);
    }
    if (st == TABI_OK && !ok) st = TABI_ERR_UNIMPLEMENTED;
    if (st == TABI_OK) finish(c, dw, tmp[4]);
  }
  if (st == TABI_OK && mask[2]) {
    if (!dyf) dyf = as_f32(c, dy, &tmp[0]);
    st = dyf ? bias_grad(c, &g, dy, dyf, &db) : TABI_ERR_UNIMPLEMENTED;
  }
  release(c, tmp, 5);
  if (st != TABI_OK) {
    tabi_tensor *made[3] = {dx, dw, db};
    release(c, made, 3);
    if (st == TABI_ERR_UNIMPLEMENTED) return cpu_conv64_bwd(c, call, args, outs);
    return st;
  }
  outs[0] = tabi_tensor_value(dx);
  outs[1] = tabi_tensor_value(dw);
  outs[2] = tabi_tensor_value(db);
  return TABI_OK;
}
