/* plugins/cpu/cpu_nn3_col2im.c: col2im for float32/float64/float16/bfloat16
 * CPU inputs of any strides, 2-D or 3-D (batch mode).
 *
 * The reference (reference/ref_nn.c) gathers, for every output pixel, the
 * column entries of kernel offsets (i, j) in that order, summing in double.
 * Here every output plane (batch, channel) is one task that scatters instead:
 * for each kernel offset (i, j) in order, the column row of (ch, i, j) is added
 * into a double plane at its sliding positions. Every pixel still receives its
 * terms in (i, j) order, each added once to a double sum that started at 0, so
 * the sums are the reference's, bit for bit; the plane is rounded once.
 *
 * Complex inputs, bad arguments and empty inputs run the reference kernel.
 */
#include <stdlib.h>

#include "cpu_nn3.h"

typedef struct c2i_job {
  const cpu_ctx *c;
  tabi_dtype dt;
  int64_t es, C, oh, ow, kh, kw, dh, dw, ph, pw, sh, sw, nbh, nbw;
  int64_t s0, s1, s2;
  const char *x;
  char *y;
  double *buf; /* [nblk][oh*ow + nbw] */
  int64_t planes, nblk;
} c2i_job;

static void c2i_plane(const c2i_job *j, double *acc, double *row, int64_t p) {
  int64_t b = p / j->C, ch = p % j->C, P = j->oh * j->ow;
  for (int64_t q = 0; q < P; q++) acc[q] = 0;
  for (int64_t i = 0; i < j->kh; i++)
    for (int64_t k = 0; k < j->kw; k++) {
      const char *src = j->x + (b * j->s0 + (ch * j->kh * j->kw + i * j->kw + k) * j->s1) * j->es;
      for (int64_t by = 0; by < j->nbh; by++) {
        int64_t yy = by * j->sh - j->ph + i * j->dh;
        if (yy < 0 || yy >= j->oh) continue;
        cpu_nn3_load_n(j->c, j->dt, src + by * j->nbw * j->s2 * j->es, j->s2, row, j->nbw);
        double *dst = acc + yy * j->ow;
        int64_t x0 = k * j->dw - j->pw;
        for (int64_t bx = 0; bx < j->nbw; bx++) {
          int64_t xx = bx * j->sw + x0;
          if (xx >= 0 && xx < j->ow) dst[xx] += row[bx];
        }
      }
    }
  cpu_nn3_store_n(j->c, j->dt, acc, j->y + p * P * j->es, P);
}

static void c2i_range(void *arg, int64_t bb, int64_t be) {
  const c2i_job *j = arg;
  for (int64_t b = bb; b < be; b++) {
    double *acc = j->buf + b * (j->oh * j->ow + j->nbw);
    for (int64_t p = b * j->planes / j->nblk; p < (b + 1) * j->planes / j->nblk; p++)
      c2i_plane(j, acc, acc + j->oh * j->ow, p);
  }
}

tabi_status cpu_k_col2im(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const cpu_ctx *c = ctx;
  if (args[0].tag != TABI_TAG_TENSOR) return CPU_FALLBACK(c, COL2IM);
  const tabi_tensor *x = args[0].u.t;
  for (int a = 1; a <= 5; a++)
    if (args[a].tag == TABI_TAG_NONE || args[a].u.list.len != 2) return CPU_FALLBACK(c, COL2IM);
  const int64_t *osz = tabi_value_ints(&args[1]), *ks = tabi_value_ints(&args[2]);
  const int64_t *dil = tabi_value_ints(&args[3]), *pad = tabi_value_ints(&args[4]);
  const int64_t *str = tabi_value_ints(&args[5]);
  tabi_dtype dt = tabi_tensor_dtype(x);
  int32_t nd = x->dl.ndim;
  if (!cpu_nn3_float(x) || (nd != 2 && nd != 3)) return CPU_FALLBACK(c, COL2IM);
  /* small, positive geometry (else the reference reports, or the products could overflow) */
  const int64_t lim = (int64_t)1 << 24;
  for (int i = 0; i < 2; i++)
    if (ks[i] <= 0 || dil[i] <= 0 || str[i] <= 0 || pad[i] < 0 || osz[i] < 1 || ks[i] > lim ||
        dil[i] > lim || str[i] > lim || pad[i] > lim || osz[i] > lim)
      return CPU_FALLBACK(c, COL2IM);
  int batched = nd == 3;
  int64_t n = batched ? x->dl.shape[0] : 1, ckk = x->dl.shape[nd - 2], L = x->dl.shape[nd - 1];
  if (n < 1 || ckk < 1 || L < 1 || ckk % (ks[0] * ks[1]) != 0) return CPU_FALLBACK(c, COL2IM);
  int64_t nb[2];
  for (int i = 0; i < 2; i++) {
    int64_t e = osz[i] + 2 * pad[i] - dil[i] * (ks[i] - 1) - 1;
    if (e < 0) return CPU_FALLBACK(c, COL2IM);
    nb[i] = e / str[i] + 1;
  }
  if (nb[0] * nb[1] != L) return CPU_FALLBACK(c, COL2IM);
  int64_t C = ckk / (ks[0] * ks[1]), planes = n * C, P = osz[0] * osz[1];
  int64_t per = ckk / C * L + P, grain = 1 + 32768 / per, nblk = (planes + grain - 1) / grain;
  if (nblk > c->nthreads) nblk = c->nthreads > 0 ? c->nthreads : 1;
  double *buf = malloc(sizeof(double) * (size_t)(nblk * (P + nb[1])));
  if (!buf) return CPU_FALLBACK(c, COL2IM);
  int64_t oshape[4] = {n, C, osz[0], osz[1]};
  tabi_tensor *out;
  tabi_status st = cpu_empty(c, x, dt, batched ? 4 : 3, batched ? oshape : oshape + 1, &out);
  if (st) {
    free(buf);
    return st;
  }
  c2i_job j = {c, dt, cpu_nn3_esize(dt), C, osz[0], osz[1], ks[0], ks[1], dil[0], dil[1], pad[0], pad[1],
               str[0], str[1], nb[0], nb[1], batched ? x->dl.strides[0] : 0, x->dl.strides[nd - 2],
               x->dl.strides[nd - 1], tabi_tensor_data(x), tabi_tensor_data(out), buf, planes, nblk};
  cpu_parallel_for(c->pool, nblk, 1, c2i_range, &j);
  free(buf);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}
