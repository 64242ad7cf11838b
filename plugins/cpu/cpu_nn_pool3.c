/* plugins/cpu/cpu_nn_pool3.c: avg_pool1d, avg_pool3d, max_pool3d_with_indices,
 * adaptive_avg_pool1d, _adaptive_avg_pool2d, _adaptive_avg_pool3d and
 * _adaptive_avg_pool2d_backward for float32/float64/float16/bfloat16 inputs of
 * any strides ([C, *] or [N, C, *]).
 *
 * As in the reference (reference/ref_nn2.c), the dims before the spatial ones
 * are "planes" and the spatial dims are padded to three (here at the front,
 * with size 1), so one loop nest serves 1d-3d. The window arithmetic is the
 * shared one of cpu_pool_win.h. Numerics are the reference's, in its order:
 *  - average: the window's elements summed in double, depth-row-column order,
 *    divided once and rounded once (through float for float16/bfloat16), so
 *    float32/float64 results are the reference's bit for bit;
 *  - max: compared in double (exact for every input dtype), `v > max ||
 *    isnan(v)` so a later NaN wins; the index is (z*H + y)*W + x in the plane;
 *    a window with nothing larger than -inf reports its first in-range tap;
 *  - adaptive backward: per plane, gradients accumulated in double in output
 *    order and rounded once.
 * Every output depends on one task only, so results do not depend on the
 * thread count. Output rows (plane, z, y) are the parallel unit. Speed comes
 * from overlapping independent chains, never from reordering one: global
 * pooling (one window = the whole plane) sums eight planes at a time, the
 * other pools take four neighbouring outputs at a time (max: branch-free in
 * SSE2 registers, as random data mispredicts the record updates).
 *
 * Anything else (integer dtypes, empty tensors, output sizes of 0, argument
 * values or geometries the reference refuses, huge sizes) runs the reference
 * kernel, which owns the error messages.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/half.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu.h"
#include "cpu_pool_win.h"

typedef struct p3_geom {
  int32_t ns, nd;
  tabi_dtype dt;
  int64_t planes, c;     /* c: the size of the last leading dim */
  int64_t ls[2];         /* leading strides: plane pl at (pl / c)*ls[0] + (pl % c)*ls[1] */
  int64_t lead[2];       /* leading sizes (for the output's shape) */
  /* spatial, padded to 3 at the front (size 1, stride 0) */
  int64_t in[3], out[3], k[3], s[3], p[3], d[3], xs[3];
  int64_t dov;           /* avg: divisor_override (0: none) */
  int include_pad;
  int64_t *tab;          /* avg/adaptive: per dim, lo/hi/pool of each output position */
  int64_t *lo[3], *hi[3], *pool[3];
} p3_geom;

/* --- setup ----------------------------------------------------------------------- */

/* The input: a float tensor on the CPU with ns + 1 or ns + 2 dims, none empty. */
static int p3_input(const tabi_value *a, int32_t ns, p3_geom *g) {
  memset(g, 0, sizeof *g);
  if (a->tag != TABI_TAG_TENSOR) return 0;
  const tabi_tensor *x = a->u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int32_t nd = x->dl.ndim;
  if ((nd != ns + 1 && nd != ns + 2) || (!cpu_is_fast_float(dt) && dt != TABI_DTYPE_FLOAT64) ||
      x->dl.device.device_type != kDLCPU)
    return 0;
  for (int32_t i = 0; i < nd; i++)
    if (x->dl.shape[i] < 1 || x->dl.shape[i] > CPU_PW_MAX) return 0;
  g->ns = ns;
  g->nd = nd;
  g->dt = dt;
  int32_t nlead = nd - ns;
  g->lead[0] = x->dl.shape[0];
  g->lead[1] = nlead == 2 ? x->dl.shape[1] : 1;
  g->planes = g->lead[0] * g->lead[1];
  g->c = x->dl.shape[nlead - 1];
  g->ls[0] = nlead == 2 ? x->dl.strides[0] : 0;
  g->ls[1] = x->dl.strides[nlead - 1];
  for (int32_t i = 0; i < 3; i++) {
    int32_t j = i - (3 - ns); /* the spatial dim of slot i, < 0: padding */
    g->in[i] = j < 0 ? 1 : x->dl.shape[nlead + j];
    g->xs[i] = j < 0 ? 0 : x->dl.strides[nlead + j];
    g->out[i] = g->k[i] = g->s[i] = g->d[i] = 1;
    g->p[i] = 0;
  }
  return 1;
}

/* Rows per task for `work` element visits per row (a double: products of
 * kernel sizes may pass int64's range). */
static int64_t p3_grain(double work) { return work >= 16384 ? 1 : 1 + (int64_t)(16384 / (work > 1 ? work : 1)); }

static int64_t p3_plane_off(const p3_geom *g, int64_t pl) {
  return (pl / g->c) * g->ls[0] + (pl % g->c) * g->ls[1];
}

/* Output numel within reach (no int64 overflow in row/offset arithmetic). */
static int p3_out_ok(const p3_geom *g) {
  int64_t n = g->planes;
  for (int i = 0; i < 3; i++)
    if (__builtin_mul_overflow(n, g->out[i], &n)) return 0;
  return n <= ((int64_t)1 << 50);
}

/* a: self, kernel_size, stride, padding[, dilation] (windowed pools). */
static int p3_windowed(const tabi_value *a, int32_t ns, int has_dil, int ceil_mode, p3_geom *g) {
  if (!p3_input(&a[0], ns, g)) return 0;
  int64_t k[3], s[3], p[3], d[3] = {1, 1, 1};
  if (!cpu_pw_list(&a[1], ns, NULL, 1, k) || !cpu_pw_list(&a[2], ns, k, 1, s) ||
      !cpu_pw_list(&a[3], ns, NULL, 0, p) || (has_dil && !cpu_pw_list(&a[4], ns, NULL, 1, d)))
    return 0;
  for (int32_t j = 0; j < ns; j++) {
    int32_t i = 3 - ns + j;
    g->k[i] = k[j];
    g->s[i] = s[j];
    g->p[i] = p[j];
    g->d[i] = d[j];
    g->out[i] = cpu_pw_out_size(g->in[i], k[j], s[j], p[j], d[j], ceil_mode);
    if (g->out[i] < 1) return 0;
  }
  /* the padded window's size (avg's divisor) must stay far from overflow */
  if ((double)g->k[0] * (double)g->k[1] * (double)g->k[2] > (double)((int64_t)1 << 40)) return 0;
  return p3_out_ok(g);
}

/* The per-dim window tables of average (adaptive: 1) pooling. 0: no memory. */
static int p3_tables(p3_geom *g, int adaptive) {
  int64_t n = g->out[0] + g->out[1] + g->out[2];
  g->tab = malloc(sizeof(int64_t) * 3 * (size_t)n);
  if (!g->tab) return 0;
  int64_t *t = g->tab;
  for (int i = 0; i < 3; i++) {
    g->lo[i] = t;
    g->hi[i] = t + g->out[i];
    g->pool[i] = t + 2 * g->out[i];
    t += 3 * g->out[i];
    for (int64_t o = 0; o < g->out[i]; o++) {
      if (adaptive) {
        g->lo[i][o] = cpu_pw_ad_start(o, g->out[i], g->in[i]);
        g->hi[i][o] = cpu_pw_ad_end(o, g->out[i], g->in[i]);
        g->pool[i][o] = g->hi[i][o] - g->lo[i][o];
      } else {
        cpu_pw_avg_win(o, g->s[i], g->p[i], g->k[i], g->in[i], &g->lo[i][o], &g->hi[i][o], &g->pool[i][o]);
      }
    }
  }
  return 1;
}

static tabi_status p3_alloc(const cpu_ctx *c, const tabi_tensor *x, const p3_geom *g, tabi_dtype dt,
                            tabi_tensor **out) {
  int64_t shape[5];
  int32_t nlead = g->nd - g->ns;
  for (int32_t i = 0; i < nlead; i++) shape[i] = x->dl.shape[i];
  for (int32_t j = 0; j < g->ns; j++) shape[nlead + j] = g->out[3 - g->ns + j];
  return cpu_empty(c, x, dt, g->nd, shape, out);
}

/* --- element access (dt is a constant after inlining) ------------------------------ */

#define P3_INLINE static inline __attribute__((always_inline))

P3_INLINE double p3_ld(const void *x, int64_t off, tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: return ((const float *)x)[off];
    case TABI_DTYPE_FLOAT64: return ((const double *)x)[off];
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(((const uint16_t *)x)[off]);
    default: return tabi_bf16_to_f32(((const uint16_t *)x)[off]);
  }
}

/* As the reference's store: one rounding to float32, then to the half type. */
P3_INLINE void p3_st(void *y, int64_t off, double v, tabi_dtype dt) {
  switch (dt) {
    case TABI_DTYPE_FLOAT32: ((float *)y)[off] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)y)[off] = v; break;
    case TABI_DTYPE_FLOAT16: ((uint16_t *)y)[off] = tabi_f32_to_f16((float)v); break;
    default: ((uint16_t *)y)[off] = tabi_f32_to_bf16((float)v); break;
  }
}

/* Calls body(dt) with dt a compile-time constant of the job's dtype. */
#define P3_DISPATCH(dt, CALL)                                         \
  switch (dt) {                                                       \
    case TABI_DTYPE_FLOAT32: CALL(TABI_DTYPE_FLOAT32); break;         \
    case TABI_DTYPE_FLOAT64: CALL(TABI_DTYPE_FLOAT64); break;         \
    case TABI_DTYPE_FLOAT16: CALL(TABI_DTYPE_FLOAT16); break;         \
    default: CALL(TABI_DTYPE_BFLOAT16); break;                        \
  }

typedef struct p3_job {
  const p3_geom *g;
  const void *x;
  void *y;
  int64_t *idx;
  int bad;
} p3_job;

/* --- average and adaptive average ---------------------------------------------------- */

/* Output rows [b, e) (row = (plane * out0 + z) * out1 + y). */
/* One output's window sum, depth-row-column order (the reference's). */
P3_INLINE double avg_sum1(const p3_job *j, int64_t base, int64_t z0, int64_t z1, int64_t y0, int64_t y1,
                          int64_t x0, int64_t x1, tabi_dtype dt) {
  const p3_geom *g = j->g;
  double sum = 0;
  for (int64_t z = z0; z < z1; z++)
    for (int64_t y = y0; y < y1; y++) {
      int64_t ro = base + z * g->xs[0] + y * g->xs[1];
      for (int64_t xx = x0; xx < x1; xx++) sum += p3_ld(j->x, ro + xx * g->xs[2], dt);
    }
  return sum;
}

/* Output rows [b, e) (row = (plane * out0 + z) * out1 + y). Four neighbouring
 * outputs are summed together (four independent chains instead of one; each
 * still in the reference's order). */
P3_INLINE void avg_rows(const p3_job *j, int64_t b, int64_t e, tabi_dtype dt) {
  const p3_geom *g = j->g;
  int64_t o01 = g->out[0] * g->out[1], ow = g->out[2];
  const int64_t *xlo = g->lo[2], *xhi = g->hi[2], *xpool = g->pool[2];
  for (int64_t r = b; r < e; r++) {
    int64_t pl = r / o01, oz = (r % o01) / g->out[1], oy = r % g->out[1];
    int64_t base = p3_plane_off(g, pl);
    int64_t z0 = g->lo[0][oz], z1 = g->hi[0][oz], y0 = g->lo[1][oy], y1 = g->hi[1][oy];
    int64_t pzy = g->pool[0][oz] * g->pool[1][oy], czy = (z1 - z0) * (y1 - y0);
    int64_t ox = 0;
    for (; ox + 4 <= ow; ox += 4) {
      /* per (z, y) row: the columns all four windows have, side by side, then
       * each window's remaining columns (adaptive widths differ by one) */
      int64_t w = xhi[ox] - xlo[ox];
      for (int q = 1; q < 4; q++)
        if (xhi[ox + q] - xlo[ox + q] < w) w = xhi[ox + q] - xlo[ox + q];
      double sum[4] = {0, 0, 0, 0};
      int64_t a0 = xlo[ox] * g->xs[2], a1 = xlo[ox + 1] * g->xs[2], a2 = xlo[ox + 2] * g->xs[2];
      int64_t a3 = xlo[ox + 3] * g->xs[2];
      for (int64_t z = z0; z < z1; z++)
        for (int64_t y = y0; y < y1; y++) {
          int64_t ro = base + z * g->xs[0] + y * g->xs[1];
          for (int64_t k = 0; k < w; k++) {
            int64_t kk = ro + k * g->xs[2];
            sum[0] += p3_ld(j->x, kk + a0, dt);
            sum[1] += p3_ld(j->x, kk + a1, dt);
            sum[2] += p3_ld(j->x, kk + a2, dt);
            sum[3] += p3_ld(j->x, kk + a3, dt);
          }
          for (int q = 0; q < 4; q++)
            for (int64_t xx = xlo[ox + q] + w; xx < xhi[ox + q]; xx++) sum[q] += p3_ld(j->x, ro + xx * g->xs[2], dt);
        }
      for (int q = 0; q < 4; q++) {
        int64_t c = ox + q;
        int64_t div = g->dov ? g->dov : g->include_pad ? pzy * xpool[c] : czy * (xhi[c] - xlo[c]);
        p3_st(j->y, r * ow + c, sum[q] / (double)div, dt);
      }
    }
    for (; ox < ow; ox++) {
      double sum = avg_sum1(j, base, z0, z1, y0, y1, xlo[ox], xhi[ox], dt);
      int64_t div = g->dov ? g->dov : g->include_pad ? pzy * xpool[ox] : czy * (xhi[ox] - xlo[ox]);
      p3_st(j->y, r * ow + ox, sum / (double)div, dt);
    }
  }
}

static void avg_range(void *arg, int64_t b, int64_t e) {
  const p3_job *j = arg;
#define AVG_CALL(D) avg_rows(j, b, e, D)
  P3_DISPATCH(j->g->dt, AVG_CALL)
#undef AVG_CALL
}

/* Global pooling (each window is its whole plane): planes [b, e), eight at a
 * time so their independent sums overlap (each in the reference's order). A
 * compact plane (the common NCHW case) is one run of elements; planes evenly
 * spaced (no batch, or a dense batch) need no division for their offsets. */
P3_INLINE void glob_planes(const p3_job *j, int64_t b, int64_t e, tabi_dtype dt) {
  const p3_geom *g = j->g;
  int64_t div = g->dov ? g->dov : g->include_pad ? g->pool[0][0] * g->pool[1][0] * g->pool[2][0]
                                                 : g->in[0] * g->in[1] * g->in[2];
  int compact = (g->in[2] == 1 || g->xs[2] == 1) && (g->in[1] == 1 || g->xs[1] == g->in[2]) &&
                (g->in[0] == 1 || g->xs[0] == g->in[1] * g->in[2]);
  int even = g->nd == g->ns + 1 || g->lead[0] == 1 || g->ls[0] == g->c * g->ls[1];
  int64_t n = g->in[0] * g->in[1] * g->in[2];
  int64_t pl = b;
  for (; pl + 8 <= e; pl += 8) {
    int64_t o[8];
    double sm[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int q = 0; q < 8; q++) o[q] = even ? (pl + q) * g->ls[1] : p3_plane_off(g, pl + q);
    if (compact) {
      for (int64_t i = 0; i < n; i++)
        for (int q = 0; q < 8; q++) sm[q] += p3_ld(j->x, o[q] + i, dt);
    } else {
      for (int64_t z = 0; z < g->in[0]; z++)
        for (int64_t y = 0; y < g->in[1]; y++) {
          int64_t ro = z * g->xs[0] + y * g->xs[1];
          for (int64_t xx = 0; xx < g->in[2]; xx++) {
            int64_t off = ro + xx * g->xs[2];
            for (int q = 0; q < 8; q++) sm[q] += p3_ld(j->x, o[q] + off, dt);
          }
        }
    }
    for (int q = 0; q < 8; q++) p3_st(j->y, pl + q, sm[q] / (double)div, dt);
  }
  for (; pl < e; pl++) {
    int64_t o0 = p3_plane_off(g, pl);
    double s0 = 0;
    for (int64_t z = 0; z < g->in[0]; z++)
      for (int64_t y = 0; y < g->in[1]; y++) {
        int64_t ro = o0 + z * g->xs[0] + y * g->xs[1];
        for (int64_t xx = 0; xx < g->in[2]; xx++) s0 += p3_ld(j->x, ro + xx * g->xs[2], dt);
      }
    p3_st(j->y, pl, s0 / (double)div, dt);
  }
}

static void glob_range(void *arg, int64_t b, int64_t e) {
  const p3_job *j = arg;
#define GLOB_CALL(D) glob_planes(j, b, e, D)
  P3_DISPATCH(j->g->dt, GLOB_CALL)
#undef GLOB_CALL
}

/* Runs an average pool whose geometry (and tables) g describes. */
static tabi_status avg_run(const cpu_ctx *c, const tabi_tensor *x, p3_geom *g, tabi_value *outs) {
  tabi_tensor *y = NULL;
  tabi_status st = p3_alloc(c, x, g, g->dt, &y);
  if (st != TABI_OK) return st;
  p3_job j = {g, tabi_tensor_data(x), tabi_tensor_data(y), NULL, 0};
  int glob = 1;
  for (int i = 0; i < 3; i++) glob = glob && g->out[i] == 1 && g->lo[i][0] == 0 && g->hi[i][0] == g->in[i];
  /* elements per window: the kernel (adaptive: about in/out + 1), clipped */
  double win = 1;
  for (int i = 0; i < 3; i++) {
    int64_t w = g->in[i] / g->out[i] + 1;
    w = g->k[i] > w ? g->k[i] : w;
    win *= (double)(w < g->in[i] ? w : g->in[i]);
  }
  if (glob) {
    int64_t plane = g->in[0] * g->in[1] * g->in[2];
    cpu_parallel_for(c->pool, g->planes, p3_grain((double)plane), glob_range, &j);
  } else {
    cpu_parallel_for(c->pool, g->planes * g->out[0] * g->out[1], p3_grain((double)g->out[2] * win), avg_range,
                     &j);
  }
  outs[0] = tabi_tensor_value(y);
  return TABI_OK;
}

/* args: self, kernel_size, stride, padding, ceil_mode, count_include_pad[,
 * divisor_override] (dov: NULL for avg_pool1d). */
static int avg_setup(tabi_value *args, const tabi_value *dov, int32_t ns, p3_geom *g) {
  if (args[4].tag != TABI_TAG_BOOL || args[5].tag != TABI_TAG_BOOL) return 0;
  if (dov && dov->tag == TABI_TAG_INT) {
    if (dov->u.i == 0) return 0;
    g->dov = dov->u.i;
  } else if (dov && dov->tag != TABI_TAG_NONE) {
    return 0;
  }
  int64_t keep = g->dov;
  if (!p3_windowed(args, ns, 0, args[4].u.i != 0, g)) return 0;
  g->dov = keep;
  g->include_pad = args[5].u.i != 0;
  return p3_tables(g, 0);
}

tabi_status cpu_k_avg_pool1d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  p3_geom g = {0};
  if (!avg_setup(args, NULL, 1, &g)) {
    free(g.tab);
    return CPU_FALLBACK(c, AVG_POOL1D);
  }
  tabi_status st = avg_run(c, args[0].u.t, &g, outs);
  free(g.tab);
  return st;
}

tabi_status cpu_k_avg_pool3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  p3_geom g = {0};
  if (!avg_setup(args, &args[6], 3, &g)) {
    free(g.tab);
    return CPU_FALLBACK(c, AVG_POOL3D);
  }
  tabi_status st = avg_run(c, args[0].u.t, &g, outs);
  free(g.tab);
  return st;
}

/* args: self, output_size (ns values, each >= 1: 0 gives an empty output,
 * which the reference makes). */
static int adaptive_setup(tabi_value *args, int32_t ns, p3_geom *g) {
  if (!p3_input(&args[0], ns, g)) return 0;
  if (args[1].tag != TABI_TAG_INT_LIST || args[1].u.list.len != ns) return 0;
  const int64_t *os = tabi_value_ints(&args[1]);
  for (int32_t j = 0; j < ns; j++) {
    if (os[j] < 1 || os[j] > CPU_PW_MAX) return 0;
    g->out[3 - ns + j] = os[j];
  }
  g->include_pad = 1; /* pool = hi - lo: the divisor is the window's size */
  return p3_out_ok(g) && p3_tables(g, 1);
}

#define ADAPTIVE_KERNEL(fn, ID, NS)                                                        \
  tabi_status fn(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {   \
    const cpu_ctx *c = ctx;                                                                \
    p3_geom g = {0};                                                                       \
    if (!adaptive_setup(args, NS, &g)) {                                                   \
      free(g.tab);                                                                         \
      return CPU_FALLBACK(c, ID);                                                          \
    }                                                                                      \
    tabi_status st = avg_run(c, args[0].u.t, &g, outs);                                    \
    free(g.tab);                                                                           \
    return st;                                                                             \
  }
ADAPTIVE_KERNEL(cpu_k_adaptive_avg_pool1d, ADAPTIVE_AVG_POOL1D, 1)
ADAPTIVE_KERNEL(cpu_k_adaptive_avg_pool2d, ADAPTIVE_AVG_POOL2D, 2)
ADAPTIVE_KERNEL(cpu_k_adaptive_avg_pool3d, ADAPTIVE_AVG_POOL3D, 3)

/* --- max_pool3d_with_indices ---------------------------------------------------------- */

P3_INLINE void max_rows(const p3_job *j, int64_t b, int64_t e, tabi_dtype dt) {
  const p3_geom *g = j->g;
  int64_t o01 = g->out[0] * g->out[1], ow = g->out[2];
  for (int64_t r = b; r < e; r++) {
    int64_t pl = r / o01, oz = (r % o01) / g->out[1], oy = r % g->out[1];
    int64_t base = p3_plane_off(g, pl);
    /* taps start + m*d, m < k, inside [0, in): from the first in range */
    int64_t sz = oz * g->s[0] - g->p[0], sy = oy * g->s[1] - g->p[1];
    int64_t fz = cpu_pw_first_tap(sz, g->d[0]), fy = cpu_pw_first_tap(sy, g->d[1]);
    int64_t ez = sz + (g->k[0] - 1) * g->d[0], ey = sy + (g->k[1] - 1) * g->d[1];
    if (ez >= g->in[0]) ez = g->in[0] - 1;
    if (ey >= g->in[1]) ey = g->in[1] - 1;
    int64_t ox = 0, dx = g->d[2];
    for (; ox + 4 <= ow; ox += 4) {
      /* four outputs side by side over the taps they all have, then each
       * one's remaining taps, per (z, y) row: each output still sees its taps
       * in the reference's order (ties keep the first, a later NaN wins) */
      int64_t fx[4], nx[4], bi[4], m;
      double best[4];
      for (int q = 0; q < 4; q++) {
        int64_t sx = (ox + q) * g->s[2] - g->p[2], ex = sx + (g->k[2] - 1) * dx;
        fx[q] = cpu_pw_first_tap(sx, dx);
        if (ex >= g->in[2]) ex = g->in[2] - 1;
        nx[q] = ex >= fx[q] ? (ex - fx[q]) / dx + 1 : 0;
        best[q] = -INFINITY;
        bi[q] = (fz * g->in[1] + fy) * g->in[2] + fx[q];
      }
      m = nx[0];
      for (int q = 1; q < 4; q++) m = nx[q] < m ? nx[q] : m;
      for (int64_t z = fz; z <= ez; z += g->d[0])
        for (int64_t y = fy; y <= ey; y += g->d[1]) {
          int64_t ro = base + z * g->xs[0] + y * g->xs[1], io = (z * g->in[1] + y) * g->in[2];
#if defined(__SSE2__)
          /* branch-free, two outputs per register: on random data the record
           * updates (about 4 of 27 taps) would mispredict */
          __m128d b01 = _mm_loadu_pd(best), b23 = _mm_loadu_pd(best + 2);
          __m128i i01 = _mm_loadu_si128((const __m128i *)bi), i23 = _mm_loadu_si128((const __m128i *)(bi + 2));
          for (int64_t t = 0; t < m; t++) {
            int64_t x0 = fx[0] + t * dx, x1 = fx[1] + t * dx, x2 = fx[2] + t * dx, x3 = fx[3] + t * dx;
            __m128d v01 = _mm_set_pd(p3_ld(j->x, ro + x1 * g->xs[2], dt), p3_ld(j->x, ro + x0 * g->xs[2], dt));
            __m128d v23 = _mm_set_pd(p3_ld(j->x, ro + x3 * g->xs[2], dt), p3_ld(j->x, ro + x2 * g->xs[2], dt));
            __m128d k01 = _mm_or_pd(_mm_cmpgt_pd(v01, b01), _mm_cmpunord_pd(v01, v01));
            __m128d k23 = _mm_or_pd(_mm_cmpgt_pd(v23, b23), _mm_cmpunord_pd(v23, v23));
            b01 = _mm_or_pd(_mm_and_pd(k01, v01), _mm_andnot_pd(k01, b01));
            b23 = _mm_or_pd(_mm_and_pd(k23, v23), _mm_andnot_pd(k23, b23));
            __m128i m01 = _mm_castpd_si128(k01), m23 = _mm_castpd_si128(k23);
            i01 = _mm_or_si128(_mm_and_si128(m01, _mm_set_epi64x(io + x1, io + x0)), _mm_andnot_si128(m01, i01));
            i23 = _mm_or_si128(_mm_and_si128(m23, _mm_set_epi64x(io + x3, io + x2)), _mm_andnot_si128(m23, i23));
          }
          _mm_storeu_pd(best, b01);
          _mm_storeu_pd(best + 2, b23);
          _mm_storeu_si128((__m128i *)bi, i01);
          _mm_storeu_si128((__m128i *)(bi + 2), i23);
#else
          for (int64_t t = 0; t < m; t++)
            for (int q = 0; q < 4; q++) {
              int64_t xx = fx[q] + t * dx;
              double v = p3_ld(j->x, ro + xx * g->xs[2], dt);
              if (v > best[q] || isnan(v)) {
                best[q] = v;
                bi[q] = io + xx;
              }
            }
#endif
          for (int q = 0; q < 4; q++)
            for (int64_t t = m; t < nx[q]; t++) {
              int64_t xx = fx[q] + t * dx;
              double v = p3_ld(j->x, ro + xx * g->xs[2], dt);
              if (v > best[q] || isnan(v)) {
                best[q] = v;
                bi[q] = io + xx;
              }
            }
        }
      for (int q = 0; q < 4; q++) {
        p3_st(j->y, r * ow + ox + q, best[q], dt);
        j->idx[r * ow + ox + q] = bi[q];
      }
    }
    for (; ox < ow; ox++) {
      int64_t sx = ox * g->s[2] - g->p[2], fx = cpu_pw_first_tap(sx, g->d[2]);
      int64_t ex = sx + (g->k[2] - 1) * g->d[2];
      if (ex >= g->in[2]) ex = g->in[2] - 1;
      double best = -INFINITY;
      int64_t bi = (fz * g->in[1] + fy) * g->in[2] + fx;
      for (int64_t z = fz; z <= ez; z += g->d[0])
        for (int64_t y = fy; y <= ey; y += g->d[1]) {
          int64_t ro = base + z * g->xs[0] + y * g->xs[1];
          for (int64_t xx = fx; xx <= ex; xx += g->d[2]) {
            double v = p3_ld(j->x, ro + xx * g->xs[2], dt);
            if (v > best || isnan(v)) {
              best = v;
              bi = (z * g->in[1] + y) * g->in[2] + xx;
            }
          }
        }
      p3_st(j->y, r * ow + ox, best, dt);
      j->idx[r * ow + ox] = bi;
    }
  }
}

static void max_range(void *arg, int64_t b, int64_t e) {
  const p3_job *j = arg;
#define MAX_CALL(D) max_rows(j, b, e, D)
  P3_DISPATCH(j->g->dt, MAX_CALL)
#undef MAX_CALL
}

/* args: self, kernel_size, stride, padding, dilation, ceil_mode. */
tabi_status cpu_k_max_pool3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  p3_geom g;
  if (args[5].tag != TABI_TAG_BOOL || !p3_windowed(args, 3, 1, args[5].u.i != 0, &g))
    return CPU_FALLBACK(c, MAX_POOL3D);
  const tabi_tensor *x = args[0].u.t;
  tabi_tensor *y = NULL, *idx = NULL;
  tabi_status st = p3_alloc(c, x, &g, g.dt, &y);
  if (st == TABI_OK) st = p3_alloc(c, x, &g, TABI_DTYPE_INT64, &idx);
  if (st != TABI_OK) {
    if (y) c->host->tensor_release(c->host->ctx, y);
    return st;
  }
  p3_job j = {&g, tabi_tensor_data(x), tabi_tensor_data(y), tabi_tensor_data(idx), 0};
  double work = (double)g.out[2] * (double)g.k[0] * (double)g.k[1] * (double)g.k[2];
  cpu_parallel_for(c->pool, g.planes * g.out[0] * g.out[1], p3_grain(work), max_range, &j);
  outs[0] = tabi_tensor_value(y);
  outs[1] = tabi_tensor_value(idx);
  return TABI_OK;
}

/* --- _adaptive_avg_pool2d_backward ------------------------------------------------------ */

typedef struct adb_job {
  const p3_geom *g;  /* x's geometry; out = grad_output's spatial sizes */
  const void *go;
  void *gi;
  int64_t gls[2], gs[2]; /* grad_output's leading and spatial strides */
  int bad;
} adb_job;

/* Planes [b, e): grad_input[window] += grad_output / window size. */
P3_INLINE void adb_planes(adb_job *j, int64_t b, int64_t e, tabi_dtype dt) {
  const p3_geom *g = j->g;
  int64_t ih = g->in[1], iw = g->in[2], oh = g->out[1], ow = g->out[2], plane = ih * iw;
  double *acc = malloc(sizeof(double) * (size_t)plane);
  if (!acc) {
    __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t pl = b; pl < e; pl++) {
    memset(acc, 0, sizeof(double) * (size_t)plane);
    int64_t gb = (pl / g->c) * j->gls[0] + (pl % g->c) * j->gls[1];
    for (int64_t oy = 0; oy < oh; oy++) {
      int64_t y0 = g->lo[1][oy], y1 = g->hi[1][oy];
      for (int64_t ox = 0; ox < ow; ox++) {
        int64_t x0 = g->lo[2][ox], x1 = g->hi[2][ox];
        double v = p3_ld(j->go, gb + oy * j->gs[0] + ox * j->gs[1], dt) / (double)((y1 - y0) * (x1 - x0));
        for (int64_t y = y0; y < y1; y++)
          for (int64_t xx = x0; xx < x1; xx++) acc[y * iw + xx] += v;
      }
    }
    for (int64_t i = 0; i < plane; i++) p3_st(j->gi, pl * plane + i, acc[i], dt);
  }
  free(acc);
}

static void adb_range(void *arg, int64_t b, int64_t e) {
  adb_job *j = arg;
#define ADB_CALL(D) adb_planes(j, b, e, D)
  P3_DISPATCH(j->g->dt, ADB_CALL)
#undef ADB_CALL
}

/* args: grad_output, self. The output size is grad_output's spatial shape. */
tabi_status cpu_k_adaptive_avg_pool2d_bwd(void *ctx, const tabi_call *call, tabi_value *args,
                                          tabi_value *outs) {
  const cpu_ctx *c = ctx;
  p3_geom g = {0};
  if (args[0].tag != TABI_TAG_TENSOR || !p3_input(&args[1], 2, &g))
    return CPU_FALLBACK(c, ADAPTIVE_AVG_POOL2D_BWD);
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t;
  int32_t nd = x->dl.ndim, nlead = nd - 2;
  if (go->dl.ndim != nd || tabi_tensor_dtype(go) != g.dt || go->dl.device.device_type != kDLCPU)
    return CPU_FALLBACK(c, ADAPTIVE_AVG_POOL2D_BWD);
  for (int32_t i = 0; i < nd; i++)
    if ((i < nlead && go->dl.shape[i] != x->dl.shape[i]) || go->dl.shape[i] < 1 || go->dl.shape[i] > CPU_PW_MAX)
      return CPU_FALLBACK(c, ADAPTIVE_AVG_POOL2D_BWD);
  g.out[1] = go->dl.shape[nlead];
  g.out[2] = go->dl.shape[nlead + 1];
  if (!p3_out_ok(&g) || !p3_tables(&g, 1)) {
    free(g.tab);
    return CPU_FALLBACK(c, ADAPTIVE_AVG_POOL2D_BWD);
  }
  tabi_tensor *gi = NULL;
  tabi_status st = cpu_empty(c, x, g.dt, nd, x->dl.shape, &gi);
  if (st != TABI_OK) {
    free(g.tab);
    return st;
  }
  adb_job j = {&g, tabi_tensor_data(go), tabi_tensor_data(gi), {0, 0}, {0, 0}, 0};
  j.gls[0] = nlead == 2 ? go->dl.strides[0] : 0;
  j.gls[1] = go->dl.strides[nlead - 1];
  j.gs[0] = go->dl.strides[nlead];
  j.gs[1] = go->dl.strides[nlead + 1];
  /* work per plane: the plane's stores plus every output's window */
  double wy = (double)((g.in[1] + g.out[1] - 1) / g.out[1] + 1), wx = (double)((g.in[2] + g.out[2] - 1) / g.out[2] + 1);
  double work = (double)(g.in[1] * g.in[2]) + (double)g.out[1] * (double)g.out[2] * wy * wx;
  cpu_parallel_for(c->pool, g.planes, p3_grain(work), adb_range, &j);
  free(g.tab);
  if (j.bad) {
    c->host->tensor_release(c->host->ctx, gi);
    return CPU_FALLBACK(c, ADAPTIVE_AVG_POOL2D_BWD);
  }
  outs[0] = tabi_tensor_value(gi);
  return TABI_OK;
}
