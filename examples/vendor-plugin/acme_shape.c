/* acme_shape.c: views, conversions, factories and a reduction.
 *
 * Views are new shape/strides/offset over the input's storage through
 * host->tensor_view: the schema marks them Tensor(a), and `tabi conform` checks
 * that the result really shares storage. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "acme.h"

static tabi_status view(const tabi_host_api *h, tabi_tensor *a, int32_t nd, const int64_t *shape,
                        const int64_t *strides, tabi_value *outs) {
  tabi_tensor *v;
  tabi_status st = h->tensor_view(h->ctx, a, nd, shape, strides, (int64_t)a->dl.byte_offset, &v);
  if (st == TABI_OK) outs[0] = tabi_tensor_value(v);
  return st;
}

static tabi_status k_view_of(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  (void)call;
  tabi_tensor *a = args[0].u.t;
  return view(ctx, a, a->dl.ndim, a->dl.shape, a->dl.strides, outs);
}

/* broadcast_in_dim(a, shape, broadcast_dimensions): input dim i becomes output
 * dim bd[i]; every other output dim (and any size-1 input dim) gets stride 0. */
static tabi_status k_broadcast_in_dim(void *ctx, const tabi_call *call, tabi_value *args,
                                      tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  const int64_t *shape = tabi_value_ints(&args[1]), *bd = tabi_value_ints(&args[2]);
  int64_t nd = args[1].u.list.len, nb = args[2].u.list.len;
  if (nd > ACME_MAX_DIMS || nb != a->dl.ndim)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: broadcast_dimensions must name every input dim",
                    acme_op_name(h, call));
  int64_t strides[ACME_MAX_DIMS] = {0};
  for (int64_t i = 0; i < nb; i++) {
    if (bd[i] < 0 || bd[i] >= nd || (i > 0 && bd[i] <= bd[i - 1]) ||
        (a->dl.shape[i] != 1 && a->dl.shape[i] != shape[bd[i]]))
      return TABI_ERR(h, TABI_ERR_SHAPE, "%s: input dim %lld does not broadcast to dim %lld",
                      acme_op_name(h, call), (long long)i, (long long)bd[i]);
    strides[bd[i]] = a->dl.shape[i] == 1 ? 0 : a->dl.strides[i];
  }
  return view(h, a, (int32_t)nd, shape, strides, outs);
}

static tabi_status k_squeeze(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  const int64_t *dims = tabi_value_ints(&args[1]);
  int drop[ACME_MAX_DIMS] = {0};
  for (int64_t i = 0; i < args[1].u.list.len; i++) {
    int64_t d = dims[i] < 0 ? dims[i] + a->dl.ndim : dims[i];
    if (d < 0 || d >= a->dl.ndim || a->dl.shape[d] != 1 || drop[d])
      return TABI_ERR(h, TABI_ERR_INDEX, "%s: dim %lld is not a distinct dim of size 1",
                      acme_op_name(h, call), (long long)dims[i]);
    drop[d] = 1;
  }
  int64_t shape[ACME_MAX_DIMS], strides[ACME_MAX_DIMS];
  int32_t n = 0;
  for (int32_t d = 0; d < a->dl.ndim; d++)
    if (!drop[d]) {
      shape[n] = a->dl.shape[d];
      strides[n++] = a->dl.strides[d];
    }
  return view(h, a, n, shape, strides, outs);
}

static tabi_status k_transpose(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  const int64_t *perm = tabi_value_ints(&args[1]);
  int seen[ACME_MAX_DIMS] = {0};
  int64_t shape[ACME_MAX_DIMS], strides[ACME_MAX_DIMS];
  if (args[1].u.list.len != a->dl.ndim)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: permutation has the wrong length",
                    acme_op_name(h, call));
  for (int32_t i = 0; i < a->dl.ndim; i++) {
    int64_t d = perm[i] < 0 ? perm[i] + a->dl.ndim : perm[i];
    if (d < 0 || d >= a->dl.ndim || seen[d])
      return TABI_ERR(h, TABI_ERR_INDEX, "%s: not a permutation", acme_op_name(h, call));
    seen[d] = 1;
    shape[i] = a->dl.shape[d];
    strides[i] = a->dl.strides[d];
  }
  return view(h, a, a->dl.ndim, shape, strides, outs);
}

/* convert_element_type(a, dtype): a new contiguous tensor of `dtype`. */
static tabi_status k_convert(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  tabi_dtype to = args[1].u.dtype;
  tabi_status st = acme_check(h, call, "a", a);
  if (st != TABI_OK) return st;
  if (!acme_dtype_ok(to))
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'dtype' is %s; acme supports bool, the "
                    "integers, float32 and float64", acme_op_name(h, call), tabi_dtype_name(to));
  tabi_tensor *out;
  st = acme_empty_like(h, a, to, a->dl.ndim, a->dl.shape, &out);
  if (st != TABI_OK) return st;
  int from_float = tabi_dtype_is_floating(tabi_tensor_dtype(a));
  for (int64_t i = 0; i < tabi_tensor_numel(a); i++) {
    int64_t o = acme_offset(a, i);
    if (!from_float) acme_set_i(out, i, acme_get_i(a, o));
    else if (tabi_dtype_is_floating(to) || to == TABI_DTYPE_BOOL) acme_set(out, i, acme_get(a, o));
    else {
      double v = acme_get(a, o); /* out-of-range casts: x86's answer, without C's UB */
      int64_t iv = (v != v || v >= 9.2233720368547758e18 || v < -9.2233720368547758e18)
                       ? INT64_MIN : (int64_t)v;
      acme_set_i(out, i, iv);
    }
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status sum_in(const tabi_host_api *h, const tabi_call *call, tabi_value *args, tabi_tensor *a,
                          tabi_value *outs);

/* sum(inp, dims?, output_dtype?): accumulates in the output's dtype. With
 * output_dtype, the input is converted to it first, as torch.sum(dtype=)
 * does (a float input summed as int64 is truncated element by element). */
static tabi_status k_sum(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor *a = args[0].u.t;
  tabi_status st = acme_check(h, call, "inp", a);
  if (st != TABI_OK) return st;
  tabi_dtype d = tabi_tensor_dtype(a), od = args[2].tag == TABI_TAG_DTYPE ? args[2].u.dtype : d;
  if (od == d) return sum_in(h, call, args, a, outs);
  if (!acme_dtype_ok(od))
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'output_dtype' is %s, which acme does not support",
                    acme_op_name(h, call), tabi_dtype_name(od));
  tabi_tensor *c;
  if ((st = acme_empty_like(h, a, od, a->dl.ndim, a->dl.shape, &c)) != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(a);
  for (int64_t i = 0; i < n; i++) {
    int64_t o = acme_offset(a, i);
    if (tabi_dtype_is_floating(od)) acme_set(c, i, tabi_dtype_is_floating(d) ? acme_get(a, o) : (double)acme_get_i(a, o));
    else if (tabi_dtype_is_floating(d)) { /* C leaves NaN and out-of-range casts undefined: x86's answer */
      double v = acme_get(a, o);
      acme_set_i(c, i, v >= -0x1p63 && v < 0x1p63 ? (int64_t)v : INT64_MIN);
    }
    else acme_set_i(c, i, acme_get_i(a, o));
  }
  st = sum_in(h, call, args, c, outs);
  h->tensor_release(h->ctx, c);
  return st;
}

static tabi_status sum_in(const tabi_host_api *h, const tabi_call *call, tabi_value *args, tabi_tensor *a,
                          tabi_value *outs) {
  tabi_status st;
  tabi_dtype d = tabi_tensor_dtype(a);
  if (d == TABI_DTYPE_BOOL)
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'inp' is bool", acme_op_name(h, call));
  int red[ACME_MAX_DIMS] = {0};
  int32_t nd = a->dl.ndim;
  if (args[1].tag == TABI_TAG_NONE) {
    for (int32_t i = 0; i < nd; i++) red[i] = 1;
  } else {
    for (int64_t i = 0; i < args[1].u.list.len; i++) {
      int64_t x = tabi_value_ints(&args[1])[i];
      int64_t dd = x < 0 ? x + (nd ? nd : 1) : x;
      if (nd == 0 && dd == 0) continue; /* a 0-d tensor reduces over dim 0 or -1 */
      if (dd < 0 || dd >= nd || red[dd])
        return TABI_ERR(h, TABI_ERR_INDEX, "%s: dim %lld out of range or repeated",
                        acme_op_name(h, call), (long long)x);
      red[dd] = 1;
    }
  }
  int64_t oshape[ACME_MAX_DIMS];
  int32_t ond = 0;
  for (int32_t i = 0; i < nd; i++)
    if (!red[i]) oshape[ond++] = a->dl.shape[i];
  tabi_tensor *out;
  st = acme_empty_like(h, a, d, ond, oshape, &out);
  if (st != TABI_OK) return st;
  int64_t on = tabi_tensor_numel(out), n = tabi_tensor_numel(a);
  int fl = tabi_dtype_is_floating(d);
  for (int64_t j = 0; j < on; j++) {
    if (fl) acme_set(out, j, 0.0);
    else acme_set_i(out, j, 0);
  }
  /* Walk the input in row-major order; the output position drops reduced dims. */
  for (int64_t i = 0; i < n; i++) {
    int64_t rem = i, opos = 0, mul = 1;
    for (int32_t dd = nd - 1; dd >= 0; dd--) {
      int64_t idx = rem % a->dl.shape[dd];
      rem /= a->dl.shape[dd];
      if (!red[dd]) {
        opos += idx * mul;
        mul *= a->dl.shape[dd];
      }
    }
    int64_t o = acme_offset(a, i);
    if (fl) acme_set(out, opos, acme_get(out, opos) + acme_get(a, o));
    else acme_set_i(out, opos, (int64_t)((uint64_t)acme_get_i(out, opos) + (uint64_t)acme_get_i(a, o)));
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

const acme_kernel acme_shape_kernels[] = {
    {"prims::view_of", k_view_of}, {"prims::broadcast_in_dim", k_broadcast_in_dim},
    {"prims::squeeze", k_squeeze}, {"prims::transpose", k_transpose},
    {"prims::convert_element_type", k_convert}, {"prims::sum", k_sum}, {NULL, NULL}};
