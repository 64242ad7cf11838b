/* plugins/cpu/cpu_nn3_up.c: upsample_nearest2d.vec and upsample_bilinear2d.vec
 * (align_corners either way, output_size or scale_factors) for 4-D CPU inputs
 * of any strides.
 *
 * Geometry is the reference's (reference/ref_nn4.c): the output size is
 * floor(in * scale) or output_size; the nearest source index is computed in
 * float32 exactly as ATen (floor is discontinuous, so the same operations in
 * the same precision: this file is built with -ffp-contract=off); bilinear
 * source coordinates and the interpolation are in double, the same expression
 * as the reference, so float32/float64 results are the reference's bits.
 *
 * The source index/weight of every output column and row is tabled once per
 * call; output rows (n, c, y) run on the pool. Nearest copies element bytes
 * (any dtype the reference takes: floats and uint8). Bilinear loads the two
 * source rows into double buffers (any strides, half types converted), reusing
 * them while consecutive output rows read the same source rows.
 *
 * Bad arguments, empty tensors and non-CPU tensors run the reference kernel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_nn3.h"

typedef struct up_geom {
  int64_t in[2], out[2];
  int has_scale;
  double scale[2];
} up_geom;

/* 1 when the arguments are ones the reference accepts and the sizes are sane. */
static int up_setup(const tabi_tensor *x, const tabi_value *osv, const tabi_value *sfv, up_geom *g) {
  int has_os = osv->tag != TABI_TAG_NONE, has_sf = sfv->tag != TABI_TAG_NONE;
  if (has_os == has_sf || (has_os ? osv->u.list.len : sfv->u.list.len) != 2) return 0;
  if (x->dl.ndim != 4 || x->dl.device.device_type != kDLCPU) return 0;
  if (x->dl.shape[0] < 1 || x->dl.shape[1] < 1) return 0;
  g->has_scale = has_sf;
  for (int i = 0; i < 2; i++) {
    g->in[i] = x->dl.shape[2 + i];
    if (has_sf) {
      g->scale[i] = tabi_value_floats(sfv)[i];
      double o = (double)g->in[i] * g->scale[i];
      if (!(o >= 1 && o < 1e12)) return 0; /* NaN, too large, or an empty output */
      g->out[i] = (int64_t)o;
    } else {
      g->out[i] = tabi_value_ints(osv)[i];
    }
    if (g->in[i] <= 0 || g->out[i] <= 0 || g->out[i] > ((int64_t)1 << 40)) return 0;
  }
  return 1;
}

/* The reference's nearest_idx: float32 scale, floor, clamp; exact shortcuts
 * for out == in and out == 2*in. */
static int64_t nearest_idx(const up_geom *g, int i, int64_t dst) {
  if (g->out[i] == g->in[i]) return dst;
  if (g->out[i] == 2 * g->in[i]) return dst >> 1;
  float scale = g->has_scale && g->scale[i] > 0 ? (float)(1.0 / g->scale[i])
                                                 : (float)g->in[i] / (float)g->out[i];
  int64_t s = (int64_t)floorf((float)dst * scale);
  return s < g->in[i] - 1 ? s : g->in[i] - 1;
}

/* The reference's linear_src. */
static double linear_src(const up_geom *g, int i, int64_t dst, int align) {
  if (align) return g->out[i] > 1 ? (double)(g->in[i] - 1) / (double)(g->out[i] - 1) * (double)dst : 0.0;
  double scale = g->has_scale && g->scale[i] > 0 ? 1.0 / g->scale[i] : (double)g->in[i] / (double)g->out[i];
  double s = scale * ((double)dst + 0.5) - 0.5;
  return s < 0 ? 0 : s;
}

typedef struct up_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  int64_t es, C, Hi, Wi, Ho, Wo;
  int64_t st[4];
  const char *x;
  char *y;
  const int64_t *ix0, *ix1, *iy0, *iy1; /* nearest: ix0/iy0 only */
  const double *lx, *ly;
  double *buf;        /* bilinear: nblk blocks of 2*Wi + Wo doubles */
  int64_t rows, nblk; /* bilinear: output rows, blocks */
} up_job;

/* --- nearest -------------------------------------------------------------------- */

#define UP_COPY(T)                                                                  \
  for (int64_t q = 0; q < j->Wo; q++) {                                             \
    T v;                                                                            \
    memcpy(&v, src + j->ix0[q] * s3 * (int64_t)sizeof(T), sizeof(T));               \
    memcpy(dst + q * (int64_t)sizeof(T), &v, sizeof(T));                            \
  }

static void nearest_range(void *arg, int64_t rb, int64_t re) {
  const up_job *j = arg;
  int64_t s3 = j->st[3];
  for (int64_t r = rb; r < re; r++) {
    int64_t p = r / j->Ho, yy = r % j->Ho, n = p / j->C, ch = p % j->C;
    const char *src = j->x + (n * j->st[0] + ch * j->st[1] + j->iy0[yy] * j->st[2]) * j->es;
    char *dst = j->y + r * j->Wo * j->es;
    switch (j->es) {
      case 1: UP_COPY(uint8_t) break;
      case 2: UP_COPY(uint16_t) break;
      case 4: UP_COPY(uint32_t) break;
      default: UP_COPY(uint64_t) break;
    }
  }
}

tabi_status cpu_k_upsample_nearest2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, UPSAMPLE_NEAREST2D);
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  up_geom g;
  if ((dt != TABI_DTYPE_UINT8 && !cpu_nn3_float(x)) || !up_setup(x, &args[1], &args[2], &g))
    return CPU_FALLBACK(c, UPSAMPLE_NEAREST2D);
  int64_t *tab = malloc(sizeof(int64_t) * (size_t)(g.out[0] + g.out[1]));
  if (!tab) return CPU_FALLBACK(c, UPSAMPLE_NEAREST2D);
  int64_t shape[4] = {x->dl.shape[0], x->dl.shape[1], g.out[0], g.out[1]};
  tabi_tensor *out;
  tabi_status st = cpu_empty(c, x, dt, 4, shape, &out);
  if (st) {
    free(tab);
    return st;
  }
  for (int64_t q = 0; q < g.out[0]; q++) tab[q] = nearest_idx(&g, 0, q);
  for (int64_t q = 0; q < g.out[1]; q++) tab[g.out[0] + q] = nearest_idx(&g, 1, q);
  up_job j = {c, dt, dt == TABI_DTYPE_UINT8 ? 1 : cpu_nn3_esize(dt), shape[1], g.in[0], g.in[1], g.out[0],
              g.out[1], {0}, tabi_tensor_data(x), tabi_tensor_data(out), tab + g.out[0], NULL, tab, NULL,
              NULL, NULL, NULL, 0, 0};
  memcpy(j.st, x->dl.strides, sizeof j.st);
  cpu_parallel_for(c->pool, shape[0] * shape[1] * g.out[0], 1 + 16384 / g.out[1], nearest_range, &j);
  free(tab);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

/* --- bilinear ------------------------------------------------------------------- */

static void bilinear_rows(const up_job *j, double *buf, int64_t rb, int64_t re) {
  double *r0 = buf, *r1 = buf + j->Wi, *o = buf + 2 * j->Wi;
  int64_t have0 = -1, have1 = -1; /* plane * Hi + source row held in r0 / r1 */
  for (int64_t r = rb; r < re; r++) {
    int64_t p = r / j->Ho, yy = r % j->Ho, n = p / j->C, ch = p % j->C;
    const char *plane = j->x + (n * j->st[0] + ch * j->st[1]) * j->es;
    int64_t k0 = p * j->Hi + j->iy0[yy], k1 = p * j->Hi + j->iy1[yy];
    if (k0 != have0) {
      if (k0 == have1) {
        double *t = r0; r0 = r1; r1 = t;
        have1 = have0;
      } else {
        cpu_nn3_load_n(j->c, j->dt, plane + j->iy0[yy] * j->st[2] * j->es, j->st[3], r0, j->Wi);
      }
      have0 = k0;
    }
    if (k1 != have1) {
      cpu_nn3_load_n(j->c, j->dt, plane + j->iy1[yy] * j->st[2] * j->es, j->st[3], r1, j->Wi);
      have1 = k1;
    }
    double ly = j->ly[yy];
    const int64_t *x0 = j->ix0, *x1 = j->ix1;
    const double *lx = j->lx;
    for (int64_t q = 0; q < j->Wo; q++)
      o[q] = (1 - ly) * ((1 - lx[q]) * r0[x0[q]] + lx[q] * r0[x1[q]]) +
             ly * ((1 - lx[q]) * r1[x0[q]] + lx[q] * r1[x1[q]]);
    cpu_nn3_store_n(j->c, j->dt, o, j->y + r * j->Wo * j->es, j->Wo);
  }
}

/* Block b of nblk (rows [b*R/nblk, (b+1)*R/nblk)) with its own row buffers:
 * buffers are allocated before the parallel part, so no range can fail. */
static void bilinear_range(void *arg, int64_t bb, int64_t be) {
  const up_job *j = arg;
  for (int64_t b = bb; b < be; b++) {
    int64_t R = j->rows, rb = b * R / j->nblk, re = (b + 1) * R / j->nblk;
    bilinear_rows(j, j->buf + b * (2 * j->Wi + j->Wo), rb, re);
  }
}

tabi_status cpu_k_upsample_bilinear2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, UPSAMPLE_BILINEAR2D);
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  int align = args[2].u.i != 0;
  up_geom g;
  if (!cpu_nn3_float(x) || !up_setup(x, &args[1], &args[3], &g)) return CPU_FALLBACK(c, UPSAMPLE_BILINEAR2D);
  int64_t ntab = g.out[0] + g.out[1];
  int64_t *itab = malloc(sizeof(int64_t) * (size_t)(2 * ntab));
  double *wtab = malloc(sizeof(double) * (size_t)ntab);
  int64_t shape[4] = {x->dl.shape[0], x->dl.shape[1], g.out[0], g.out[1]};
  int64_t rows = shape[0] * shape[1] * g.out[0], grain = 1 + 8192 / g.out[1];
  int64_t nblk = (rows + grain - 1) / grain;
  if (nblk > c->nthreads) nblk = c->nthreads > 0 ? c->nthreads : 1;
  double *buf = malloc(sizeof(double) * (size_t)(nblk * (2 * g.in[1] + g.out[1])));
  if (!itab || !wtab || !buf) {
    free(itab);
    free(wtab);
    free(buf);
    return CPU_FALLBACK(c, UPSAMPLE_BILINEAR2D);
  }
  tabi_tensor *out;
  tabi_status st = cpu_empty(c, x, dt, 4, shape, &out);
  if (st) {
    free(itab);
    free(wtab);
    free(buf);
    return st;
  }
  /* itab: [y0 | x0 | y1 | x1]; wtab: [ly | lx] */
  for (int i = 0; i < 2; i++)
    for (int64_t q = 0; q < g.out[i]; q++) {
      int64_t k = (i ? g.out[0] : 0) + q;
      double s = linear_src(&g, i, q, align);
      int64_t v0 = (int64_t)s;
      if (v0 > g.in[i] - 1) v0 = g.in[i] - 1;
      itab[k] = v0;
      itab[ntab + k] = v0 + (v0 < g.in[i] - 1);
      wtab[k] = s - (double)v0;
    }
  up_job j = {c, dt, cpu_nn3_esize(dt), shape[1], g.in[0], g.in[1], g.out[0], g.out[1], {0},
              tabi_tensor_data(x), tabi_tensor_data(out), itab + g.out[0], itab + ntab + g.out[0],
              itab, itab + ntab, wtab + g.out[0], wtab, buf, rows, nblk};
  memcpy(j.st, x->dl.strides, sizeof j.st);
  cpu_parallel_for(c->pool, nblk, 1, bilinear_range, &j);
  free(buf);
  free(itab);
  free(wtab);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
