/* plugins/cpu/cpu_nn2_pool.c: avg_pool2d and its backward for contiguous float32/float16/
 * bfloat16/float64 [C, H, W] / [N, C, H, W].
 *
 * The geometry and the divisor are the reference's (reference/ref_nn2.c,
 * ATen's rules; the window arithmetic is cpu_pool_win.h's, shared with the
 * other pools): floor/ceil output size (with ceil_mode the last window must
 * start inside the input or the left padding), pad <= kernel/2; the window
 * [start, min(start + k, in + pad)) is clipped to the input for the sum; the
 * divisor is divisor_override when given, else the unclipped window size with
 * count_include_pad, else the clipped one. Sums are taken in double in the
 * reference's order and divided once, so float32/float64 results equal the
 * reference's up to the final rounding. Half inputs: the window's rows are
 * converted to float32 per output row (exact), results rounded through float.
 *
 * Anything the fast path does not validate exactly (list lengths, values,
 * empty planes, integer dtypes, strides) runs the reference kernel, which
 * owns the error messages. One output row per task.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "cpu_pool_win.h"

typedef struct ap_geom {
  int64_t planes, ih, iw, oh, ow;
  int64_t k[2], s[2], p[2];
  int64_t dov; /* 0: none */
  int include_pad;
} ap_geom;

/* a: kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override. */
static int ap_setup(const tabi_tensor *x, const tabi_value *a, ap_geom *g) {
  int32_t nd = x->dl.ndim;
  tabi_dtype dt = tabi_tensor_dtype(x);
  if ((nd != 3 && nd != 4) || (!cpu_is_fast_float(dt) && dt != TABI_DTYPE_FLOAT64) || !cpu_contig(x) ||
      x->dl.device.device_type != kDLCPU)
    return 0;
  if (a[3].tag != TABI_TAG_BOOL || a[4].tag != TABI_TAG_BOOL) return 0;
  if (a[5].tag == TABI_TAG_INT) {
    if (a[5].u.i == 0) return 0;
    g->dov = a[5].u.i;
  } else if (a[5].tag == TABI_TAG_NONE) {
    g->dov = 0;
  } else {
    return 0;
  }
  /* values past CPU_PW_MAX (whose size arithmetic could overflow) are the reference's */
  if (!cpu_pw_list(&a[0], 2, NULL, 1, g->k) || !cpu_pw_list(&a[1], 2, g->k, 1, g->s) ||
      !cpu_pw_list(&a[2], 2, NULL, 0, g->p))
    return 0;
  g->include_pad = a[4].u.i != 0;
  for (int32_t i = 0; i < nd; i++)
    if (x->dl.shape[i] < 1) return 0;
  g->planes = x->dl.shape[0] * (nd == 4 ? x->dl.shape[1] : 1);
  g->ih = x->dl.shape[nd - 2];
  g->iw = x->dl.shape[nd - 1];
  int ceil_mode = a[3].u.i != 0;
  g->oh = cpu_pw_out_size(g->ih, g->k[0], g->s[0], g->p[0], 1, ceil_mode);
  g->ow = cpu_pw_out_size(g->iw, g->k[1], g->s[1], g->p[1], 1, ceil_mode);
  return g->oh >= 1 && g->ow >= 1;
}

typedef struct ap_job {
  const cpu_ctx *c;
  const ap_geom *g;
  tabi_dtype dt;
  const char *x;
  char *y;
  int bad; /* a task could not get its buffers: the reference runs instead */
} ap_job;

static void ap_range(void *arg, int64_t b, int64_t e) {
  ap_job *j = arg;
  const ap_geom *g = j->g;
  float *rows = NULL; /* half dtypes: the window's input rows as float32 */
  double *acc = malloc(sizeof(double) * (size_t)g->ow);
  if (j->dt == TABI_DTYPE_FLOAT16 || j->dt == TABI_DTYPE_BFLOAT16)
    rows = malloc(sizeof(float) * (size_t)(g->k[0] * g->iw + (g->ow > 0 ? g->ow : 1)));
  if (!acc || ((j->dt == TABI_DTYPE_FLOAT16 || j->dt == TABI_DTYPE_BFLOAT16) && !rows)) {
    free(acc);
    free(rows);
    __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
    return;
  }
  int64_t es = j->dt == TABI_DTYPE_FLOAT64 ? 8 : j->dt == TABI_DTYPE_FLOAT32 ? 4 : 2;
  for (int64_t r = b; r < e; r++) { /* r = plane * oh + output row */
    int64_t pl = r / g->oh, oy = r % g->oh, ylo, yhi, ypool;
    cpu_pw_avg_win(oy, g->s[0], g->p[0], g->k[0], g->ih, &ylo, &yhi, &ypool);
    const char *plane = j->x + pl * g->ih * g->iw * es;
    int64_t nrows = yhi - ylo;
    /* accumulate each output column's window in double, row by row in the
     * reference's order (row-major within the window) */
    for (int64_t ox = 0; ox < g->ow; ox++) acc[ox] = 0;
    if (j->dt == TABI_DTYPE_FLOAT64) {
      const double *src = (const double *)plane + ylo * g->iw;
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t xlo, xhi, xpool;
        cpu_pw_avg_win(ox, g->s[1], g->p[1], g->k[1], g->iw, &xlo, &xhi, &xpool);
        double sf = 0;
        for (int64_t iy = 0; iy < nrows; iy++)
          for (int64_t ix = xlo; ix < xhi; ix++) sf += src[iy * g->iw + ix];
        acc[ox] = sf;
      }
    } else {
      const float *src;
      if (j->dt == TABI_DTYPE_FLOAT32) {
        src = (const float *)plane + ylo * g->iw;
      } else {
        cpu_to_f32(j->c, j->dt, plane + ylo * g->iw * 2, rows, nrows * g->iw);
        src = rows;
      }
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t xlo, xhi, xpool;
        cpu_pw_avg_win(ox, g->s[1], g->p[1], g->k[1], g->iw, &xlo, &xhi, &xpool);
        double sf = 0;
        for (int64_t iy = 0; iy < nrows; iy++)
          for (int64_t ix = xlo; ix < xhi; ix++) sf += (double)src[iy * g->iw + ix];
        acc[ox] = sf;
      }
    }
    /* divide and store */
    char *out = j->y + r * g->ow * es;
    float *of = rows ? rows + g->k[0] * g->iw : NULL; /* half: staged as float */
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t xlo, xhi, xpool, div;
      cpu_pw_avg_win(ox, g->s[1], g->p[1], g->k[1], g->iw, &xlo, &xhi, &xpool);
      div = g->dov ? g->dov : g->include_pad ? ypool * xpool : nrows * (xhi - xlo);
      double v = acc[ox] / (double)div;
      if (j->dt == TABI_DTYPE_FLOAT64) ((double *)out)[ox] = v;
      else if (j->dt == TABI_DTYPE_FLOAT32) ((float *)out)[ox] = (float)v;
      else of[ox] = (float)v;
    }
    if (j->dt == TABI_DTYPE_FLOAT16 || j->dt == TABI_DTYPE_BFLOAT16) cpu_from_f32(j->c, j->dt, of, out, g->ow);
  }
  free(acc);
  free(rows);
}

tabi_status cpu_k_avg_pool2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  ap_geom g;
  if (args[0].tag != TABI_TAG_TENSOR || !ap_setup(args[0].u.t, &args[1], &g)) return CPU_FALLBACK(c, AVG_POOL2D);
  const tabi_tensor *x = args[0].u.t;
  /* the per-task buffers must fit: absurd geometries go to the reference */
  if (g.k[0] > (int64_t)1 << 20 || g.iw > (int64_t)1 << 30 || g.ow > (int64_t)1 << 30)
    return CPU_FALLBACK(c, AVG_POOL2D);
  int64_t shape[4];
  int32_t nd = x->dl.ndim;
  for (int32_t i = 0; i < nd - 2; i++) shape[i] = x->dl.shape[i];
  shape[nd - 2] = g.oh;
  shape[nd - 1] = g.ow;
  tabi_tensor *y = NULL;
  tabi_status st = cpu_empty(c, x, tabi_tensor_dtype(x), nd, shape, &y);
  if (st != TABI_OK) return st;
  ap_job j = {c, &g, tabi_tensor_dtype(x), tabi_tensor_data(x), tabi_tensor_data(y), 0};
  int64_t work = g.ow * g.k[0] * g.k[1];
  cpu_parallel_for(c->pool, g.planes * g.oh, 1 + 16384 / (work > 0 ? work : 1), ap_range, &j);
  if (j.bad) {
    c->host->tensor_release(c->host->ctx, y);
    return CPU_FALLBACK(c, AVG_POOL2D);
  }
  outs[0] = tabi_tensor_value(y);
  return TABI_OK;
}

/* --- backward ------------------------------------------------------------------- */

/* grad_input[window] += grad_output / divisor, accumulated per plane in double
 * in the reference's order (output row-major, window row-major) and rounded
 * once: results equal the reference's bit for bit for float32/float64 and do
 * not depend on the thread count. One plane per task. */
typedef struct apb_job {
  const cpu_ctx *c;
  const ap_geom *g;
  tabi_dtype dt;
  const char *go;
  char *gi;
  int bad;
} apb_job;

static void apb_range(void *arg, int64_t b, int64_t e) {
  apb_job *j = arg;
  const ap_geom *g = j->g;
  int64_t plane = g->ih * g->iw, outn = g->oh * g->ow;
  int64_t es = j->dt == TABI_DTYPE_FLOAT64 ? 8 : j->dt == TABI_DTYPE_FLOAT32 ? 4 : 2;
  int half = es == 2;
  double *acc = malloc(sizeof(double) * (size_t)plane);
  float *buf = half ? malloc(sizeof(float) * (size_t)(outn > plane ? outn : plane)) : NULL;
  if (!acc || (half && !buf)) {
    free(acc);
    free(buf);
    __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t pl = b; pl < e; pl++) {
    memset(acc, 0, sizeof(double) * (size_t)plane);
    const char *go = j->go + pl * outn * es;
    if (half) cpu_to_f32(j->c, j->dt, go, buf, outn);
    for (int64_t oy = 0; oy < g->oh; oy++) {
      int64_t ylo, yhi, ypool;
      cpu_pw_avg_win(oy, g->s[0], g->p[0], g->k[0], g->ih, &ylo, &yhi, &ypool);
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t xlo, xhi, xpool, o = oy * g->ow + ox;
        cpu_pw_avg_win(ox, g->s[1], g->p[1], g->k[1], g->iw, &xlo, &xhi, &xpool);
        int64_t div = g->dov ? g->dov : g->include_pad ? ypool * xpool : (yhi - ylo) * (xhi - xlo);
        double v = half ? (double)buf[o] : es == 4 ? (double)((const float *)go)[o] : ((const double *)go)[o];
        double df = v / (double)div;
        for (int64_t y = ylo; y < yhi; y++)
          for (int64_t x = xlo; x < xhi; x++) acc[y * g->iw + x] += df;
      }
    }
    char *gi = j->gi + pl * plane * es;
    if (es == 8) {
      memcpy(gi, acc, sizeof(double) * (size_t)plane);
    } else if (es == 4) {
      for (int64_t i = 0; i < plane; i++) ((float *)gi)[i] = (float)acc[i];
    } else {
      for (int64_t i = 0; i < plane; i++) buf[i] = (float)acc[i];
      cpu_from_f32(j->c, j->dt, buf, gi, plane);
    }
  }
  free(acc);
  free(buf);
}

tabi_status cpu_k_avg_pool2d_bwd(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  ap_geom g;
  /* grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override */
  if (args[0].tag != TABI_TAG_TENSOR || args[1].tag != TABI_TAG_TENSOR || !ap_setup(args[1].u.t, &args[2], &g))
    return CPU_FALLBACK(c, AVG_POOL2D_BWD);
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t;
  int32_t nd = x->dl.ndim;
  if (go->dl.ndim != nd || !cpu_contig(go) || tabi_tensor_dtype(go) != tabi_tensor_dtype(x) ||
      go->dl.device.device_type != kDLCPU)
    return CPU_FALLBACK(c, AVG_POOL2D_BWD);
  for (int32_t i = 0; i < nd; i++)
    if (go->dl.shape[i] != (i < nd - 2 ? x->dl.shape[i] : (i == nd - 2 ? g.oh : g.ow)))
      return CPU_FALLBACK(c, AVG_POOL2D_BWD);
  tabi_tensor *gi = NULL;
  tabi_status st = cpu_empty(c, x, tabi_tensor_dtype(x), nd, x->dl.shape, &gi);
  if (st != TABI_OK) return st;
  apb_job j = {c, &g, tabi_tensor_dtype(x), tabi_tensor_data(go), tabi_tensor_data(gi), 0};
  int64_t work = g.ih * g.iw + g.oh * g.ow * g.k[0] * g.k[1];
  cpu_parallel_for(c->pool, g.planes, 1 + 16384 / (work > 0 ? work : 1), apb_range, &j);
  if (j.bad) {
    c->host->tensor_release(c->host->ctx, gi);
    return CPU_FALLBACK(c, AVG_POOL2D_BWD);
  }
  outs[0] = tabi_tensor_value(gi);
  return TABI_OK;
}
