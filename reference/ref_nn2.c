/* reference/ref_nn2.c: pooling. max_pool{2,3}d_with_indices (+ 2d backward),
 * avg_pool{1,2,3}d (+ 2d backward), adaptive average pooling (1d, 2d, 3d, 2d
 * backward).
 *
 * Every op treats the dims before the spatial ones as independent "planes"
 * (batched or not), and pads the spatial dims to three with size 1, so one loop
 * nest serves 1d-3d. The rules are ATen's:
 *  - output size: floor or ceil of (in + 2*pad - dil*(k-1) - 1) / stride, plus
 *    one; with ceil_mode the last window must start inside the input or the
 *    left padding, else it is dropped.
 *  - pad <= kernel/2 (per dim), kernel, stride, dilation > 0, output >= 1.
 *  - max: NaN wins (a later NaN replaces an earlier one, as ATen's
 *    `val > max || isnan(val)`); the index is the flat position in the input's
 *    plane (d*H*W + h*W + w); a window of -inf reports its first element.
 *  - avg: divisor_override, else the window clipped to input+padding
 *    (count_include_pad) or to the input alone. int64 is taken (sum / divisor
 *    truncates, in int64, as ATen's integer division).
 *  - adaptive: window [floor(i*in/out), ceil((i+1)*in/out)).
 * dtypes: floats (float16 too: ATen today has it on the CPU, torch 1.13 not for
 * every op); int64 for avg pooling, as ATen. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_nn_util.h"
#include "ref_pool_check.h"

/* the checked geometry (ref_pool_check.h): spatial dims, leading (plane) dims,
 * sizes, window */
typedef ref_pool_dims pool_geom;

/* Offset of plane `pl` (row-major over the leading dims). */
static int64_t plane_off(const tabi_tensor *t, int32_t nlead, int64_t pl) {
  int64_t o = 0;
  for (int32_t i = nlead - 1; i >= 0; i--) {
    o += (pl % t->dl.shape[i]) * t->dl.strides[i];
    pl /= t->dl.shape[i];
  }
  return o;
}

static int64_t sp_off(const tabi_tensor *t, int32_t nlead, int32_t ns, const int64_t *pos) {
  int64_t o = 0;
  for (int32_t i = 0; i < ns; i++) o += pos[i] * t->dl.strides[nlead + i];
  return o;
}

static tabi_status pool_alloc(const tabi_host_api *h, const tabi_tensor *x, const pool_geom *g,
                              const int64_t *sp, tabi_dtype dt, tabi_tensor **out) {
  int64_t shape[REF_MAX_DIMS];
  for (int32_t i = 0; i < g->nlead; i++) shape[i] = x->dl.shape[i];
  for (int32_t i = 0; i < g->ns; i++) shape[g->nlead + i] = sp[i];
  return ref_empty(h, x, dt, g->nlead + g->ns, shape, out);
}

/* --- max pooling ---------------------------------------------------------- */

static tabi_status max_pool(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                            tabi_value *outs, int32_t ns) {
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  pool_geom g;
  tabi_status st;
  if ((st = ref_pool_max_check(h, call, args, ns, &g))) return st;
  tabi_tensor *out, *idx;
  if ((st = pool_alloc(h, x, &g, g.out, dt, &out))) return st;
  if ((st = pool_alloc(h, x, &g, g.out, TABI_DTYPE_INT64, &idx))) {
    h->tensor_release(h->ctx, out);
    return st;
  }
  int64_t o = 0, op[3], kp[3], ip[3];
  for (int64_t pl = 0; pl < g.planes; pl++) {
    int64_t base = plane_off(x, g.nlead, pl);
    for (op[0] = 0; op[0] < g.out[0]; op[0]++)
      for (op[1] = 0; op[1] < g.out[1]; op[1]++)
        for (op[2] = 0; op[2] < g.out[2]; op[2]++, o++) {
          /* Per dim, the window taps [klo, khi) that land in the input, in
           * the window's order: the taps outside are skipped, and a huge
           * kernel (the check allows kernel_size 2^62 over a small input) is
           * not walked tap by tap. first: the first tap at or past 0, the
           * index ATen reports for a window that holds no input element. */
          int64_t first[3], klo[3], khi[3];
          for (int i = 0; i < 3; i++) {
            int64_t start = op[i] * g.s[i] - g.p[i];
            klo[i] = start < 0 ? (-start - 1) / g.d[i] + 1 : 0;
            khi[i] = start >= g.in[i] ? 0 : (g.in[i] - 1 - start) / g.d[i] + 1;
            if (khi[i] > g.k[i]) khi[i] = g.k[i];
            first[i] = start + klo[i] * g.d[i];
          }
          double best = -INFINITY;
          int64_t best_i = (first[0] * g.in[1] + first[1]) * g.in[2] + first[2];
          for (kp[0] = klo[0]; kp[0] < khi[0]; kp[0]++)
            for (kp[1] = klo[1]; kp[1] < khi[1]; kp[1]++)
              for (kp[2] = klo[2]; kp[2] < khi[2]; kp[2]++) {
                for (int i = 0; i < 3; i++) ip[i] = op[i] * g.s[i] - g.p[i] + kp[i] * g.d[i];
                double v = ref_load_f(x, base + sp_off(x, g.nlead, ns, ip));
                if (v > best || isnan(v)) {
                  best = v;
                  best_i = (ip[0] * g.in[1] + ip[1]) * g.in[2] + ip[2];
                }
              }
          ref_store_f(out, o, best);
          ref_store_i(idx, o, best_i);
        }
  }
  ref_set_out(outs, 0, out);
  ref_set_out(outs, 1, idx);
  return TABI_OK;
}

static tabi_status k_max_pool2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return max_pool(ctx, call, args, outs, 2);
}
static tabi_status k_max_pool3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return max_pool(ctx, call, args, outs, 3);
}

/* grad_input[plane, indices[o]] += grad_output[o]. */
static tabi_status k_max_pool2d_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                         tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t, *ind = args[7].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  pool_geom g;
  tabi_status st;
  if ((st = ref_pool_max_bwd_check(h, call, args, &g))) return st;
  tabi_tensor *gi;
  if ((st = ref_empty(h, x, dt, x->dl.ndim, x->dl.shape, &gi))) return st;
  int64_t plane = g.in[0] * g.in[1] * g.in[2], outn = g.out[0] * g.out[1];
  double *acc = ref_nn_zeros(g.planes * plane);
  if (!acc) {
    h->tensor_release(h->ctx, gi);
    return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
  }
  for (int64_t pl = 0; pl < g.planes; pl++)
    for (int64_t o = 0; o < outn; o++) {
      int64_t pos[2] = {o / g.out[1], o % g.out[1]};
      int64_t i = ref_load_i(ind, plane_off(ind, g.nlead, pl) + sp_off(ind, g.nlead, 2, pos));
      if (i < 0 || i >= plane) {
        ref_nn_free(acc);
        h->tensor_release(h->ctx, gi);
        return ref_pool_max_bwd_index_error(h, call, i, plane);
      }
      acc[pl * plane + i] += ref_load_f(go, plane_off(go, g.nlead, pl) + sp_off(go, g.nlead, 2, pos));
    }
  for (int64_t i = 0; i < g.planes * plane; i++) ref_store_f(gi, i, acc[i]);
  ref_nn_free(acc);
  ref_set_out(outs, 0, gi);
  return TABI_OK;
}

/* --- average pooling ------------------------------------------------------- */

/* The window of output position op, clipped: [lo, hi) per dim, and the divisor. */
static int64_t avg_window(const pool_geom *g, const int64_t *op, int include_pad, int64_t dov,
                          int64_t *lo, int64_t *hi) {
  int64_t pool = 1, cnt = 1;
  for (int i = 0; i < 3; i++) {
    int64_t start = op[i] * g->s[i] - g->p[i];
    int64_t end = start + g->k[i];
    if (end > g->in[i] + g->p[i]) end = g->in[i] + g->p[i];
    pool *= end - start;
    lo[i] = start < 0 ? 0 : start;
    hi[i] = end > g->in[i] ? g->in[i] : end;
    cnt *= hi[i] - lo[i];
  }
  if (dov) return dov;
  return include_pad ? pool : cnt;
}

/* args: self, kernel_size, stride, padding, ceil_mode, count_include_pad,
 * [divisor_override] (not for avg_pool1d). */
static tabi_status avg_pool(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                            tabi_value *outs, int32_t ns) {
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  pool_geom g;
  tabi_status st;
  if ((st = ref_pool_avg_check(h, call, args, ns, &g))) return st;
  tabi_tensor *out;
  if ((st = pool_alloc(h, x, &g, g.out, dt, &out))) return st;
  int isint = dt == TABI_DTYPE_INT64;
  int64_t o = 0, op[3], lo[3], hi[3], ip[3];
  for (int64_t pl = 0; pl < g.planes; pl++) {
    int64_t base = plane_off(x, g.nlead, pl);
    for (op[0] = 0; op[0] < g.out[0]; op[0]++)
      for (op[1] = 0; op[1] < g.out[1]; op[1]++)
        for (op[2] = 0; op[2] < g.out[2]; op[2]++, o++) {
          int64_t div = avg_window(&g, op, g.include_pad, g.dov, lo, hi);
          double sf = 0;
          int64_t si = 0;
          for (ip[0] = lo[0]; ip[0] < hi[0]; ip[0]++)
            for (ip[1] = lo[1]; ip[1] < hi[1]; ip[1]++)
              for (ip[2] = lo[2]; ip[2] < hi[2]; ip[2]++) {
                int64_t off = base + sp_off(x, g.nlead, ns, ip);
                if (isint) si = ref_wrap_add(si, ref_load_i(x, off));
                else sf += ref_load_f(x, off);
              }
          if (isint) ref_store_i(out, o, (si == INT64_MIN && div == -1) ? si : si / div);
          else ref_store_f(out, o, sf / (double)div);
        }
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

static tabi_status k_avg_pool1d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return avg_pool(ctx, call, args, outs, 1);
}
static tabi_status k_avg_pool2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return avg_pool(ctx, call, args, outs, 2);
}
static tabi_status k_avg_pool3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return avg_pool(ctx, call, args, outs, 3);
}

/* grad_input[window] += grad_output / divisor (the division in the element
 * type, as ATen: truncating for int64). */
static tabi_status k_avg_pool2d_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                         tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  pool_geom g;
  tabi_status st;
  if ((st = ref_pool_avg_bwd_check(h, call, args, &g))) return st;
  int isint = dt == TABI_DTYPE_INT64;
  int64_t plane = g.in[0] * g.in[1];
  double *acc = ref_nn_zeros(g.planes * plane);
  int64_t *iacc = ref_nn_izeros(g.planes * plane);
  tabi_tensor *gi = NULL;
  if (!acc || !iacc || (st = ref_empty(h, x, dt, x->dl.ndim, x->dl.shape, &gi))) {
    ref_nn_free(acc);
    ref_nn_free(iacc);
    return acc && iacc ? st : REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
  }
  int64_t op[3] = {0, 0, 0}, lo[3], hi[3];
  for (int64_t pl = 0; pl < g.planes; pl++)
    for (op[0] = 0; op[0] < g.out[0]; op[0]++)
      for (op[1] = 0; op[1] < g.out[1]; op[1]++) {
        int64_t div = avg_window(&g, op, g.include_pad, g.dov, lo, hi);
        int64_t goff = plane_off(go, g.nlead, pl) + sp_off(go, g.nlead, 2, op);
        double df = ref_load_f(go, goff) / (double)div;
        int64_t gv = ref_load_i(go, goff);
        int64_t di = (gv == INT64_MIN && div == -1) ? gv : gv / div;
        for (int64_t y = lo[0]; y < hi[0]; y++)
          for (int64_t xx = lo[1]; xx < hi[1]; xx++) {
            int64_t k = pl * plane + y * g.in[1] + xx;
            if (isint) iacc[k] = ref_wrap_add(iacc[k], di);
            else acc[k] += df;
          }
      }
  for (int64_t i = 0; i < g.planes * plane; i++) {
    if (isint) ref_store_i(gi, i, iacc[i]);
    else ref_store_f(gi, i, acc[i]);
  }
  ref_nn_free(acc);
  ref_nn_free(iacc);
  ref_set_out(outs, 0, gi);
  return TABI_OK;
}

/* --- adaptive average pooling ------------------------------------------------ */

static int64_t ad_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
static int64_t ad_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

static tabi_status adaptive_avg(const tabi_host_api *h, const tabi_call *call, tabi_value *args,
                                tabi_value *outs, int32_t ns) {
  const tabi_tensor *x = args[0].u.t;
  pool_geom g;
  tabi_status st;
  if ((st = ref_pool_adaptive_check(h, call, args, ns, &g))) return st;
  tabi_tensor *out;
  if ((st = pool_alloc(h, x, &g, g.out, tabi_tensor_dtype(x), &out))) return st;
  int64_t o = 0, op[3], ip[3];
  /* an empty output may still have a huge dim (output_size [2^40, 0]): no loops */
  for (int64_t pl = 0; pl < g.planes && tabi_tensor_numel(out) > 0; pl++) {
    int64_t base = plane_off(x, g.nlead, pl);
    for (op[0] = 0; op[0] < g.out[0]; op[0]++)
      for (op[1] = 0; op[1] < g.out[1]; op[1]++)
        for (op[2] = 0; op[2] < g.out[2]; op[2]++, o++) {
          double s = 0;
          int64_t cnt = 1, lo[3], hi[3];
          for (int i = 0; i < 3; i++) {
            lo[i] = ad_start(op[i], g.out[i], g.in[i]);
            hi[i] = ad_end(op[i], g.out[i], g.in[i]);
            cnt *= hi[i] - lo[i];
          }
          for (ip[0] = lo[0]; ip[0] < hi[0]; ip[0]++)
            for (ip[1] = lo[1]; ip[1] < hi[1]; ip[1]++)
              for (ip[2] = lo[2]; ip[2] < hi[2]; ip[2]++) s += ref_load_f(x, base + sp_off(x, g.nlead, ns, ip));
          ref_store_f(out, o, s / (double)cnt);
        }
  }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

static tabi_status k_adaptive_avg_pool1d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return adaptive_avg(ctx, call, args, outs, 1);
}
static tabi_status k_adaptive_avg_pool2d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return adaptive_avg(ctx, call, args, outs, 2);
}
static tabi_status k_adaptive_avg_pool3d(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return adaptive_avg(ctx, call, args, outs, 3);
}

/* grad_input[window] += grad_output / window size; the output size is
 * grad_output's spatial shape. */
static tabi_status k_adaptive_avg_pool2d_backward(void *ctx, const tabi_call *call, tabi_value *args,
                                                  tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *go = args[0].u.t, *x = args[1].u.t;
  pool_geom g;
  tabi_status st;
  if ((st = ref_pool_adaptive_bwd_check(h, call, args, &g))) return st;
  int64_t plane = g.in[0] * g.in[1];
  double *acc = ref_nn_zeros(g.planes * plane);
  tabi_tensor *gi = NULL;
  if (!acc || (st = ref_empty(h, x, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &gi))) {
    ref_nn_free(acc);
    return acc ? st : REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
  }
  int64_t op[2];
  for (int64_t pl = 0; pl < g.planes; pl++)
    for (op[0] = 0; op[0] < g.out[0]; op[0]++)
      for (op[1] = 0; op[1] < g.out[1]; op[1]++) {
        int64_t y0 = ad_start(op[0], g.out[0], g.in[0]), y1 = ad_end(op[0], g.out[0], g.in[0]);
        int64_t x0 = ad_start(op[1], g.out[1], g.in[1]), x1 = ad_end(op[1], g.out[1], g.in[1]);
        double v = ref_load_f(go, plane_off(go, g.nlead, pl) + sp_off(go, g.nlead, 2, op)) /
                   (double)((y1 - y0) * (x1 - x0));
        for (int64_t y = y0; y < y1; y++)
          for (int64_t xx = x0; xx < x1; xx++) acc[pl * plane + y * g.in[1] + xx] += v;
      }
  for (int64_t i = 0; i < g.planes * plane; i++) ref_store_f(gi, i, acc[i]);
  ref_nn_free(acc);
  ref_set_out(outs, 0, gi);
  return TABI_OK;
}

const ref_kernel ref_nn2_kernels[] = {
    {"aten::max_pool2d_with_indices", k_max_pool2d},
    {"aten::max_pool3d_with_indices", k_max_pool3d},
    {"aten::max_pool2d_with_indices_backward", k_max_pool2d_backward},
    {"aten::avg_pool1d", k_avg_pool1d},
    {"aten::avg_pool2d", k_avg_pool2d},
    {"aten::avg_pool3d", k_avg_pool3d},
    {"aten::avg_pool2d_backward", k_avg_pool2d_backward},
    {"aten::adaptive_avg_pool1d", k_adaptive_avg_pool1d},
    {"aten::_adaptive_avg_pool2d", k_adaptive_avg_pool2d},
    {"aten::_adaptive_avg_pool3d", k_adaptive_avg_pool3d},
    {"aten::_adaptive_avg_pool2d_backward", k_adaptive_avg_pool2d_backward},
    {NULL, NULL},
};
