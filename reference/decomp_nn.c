/* reference/decomp_nn.c: matrix products, convolution, average pooling, dropout
 * and the layer-norm backward, as prims.
 *
 * prims have no matrix product, so mm is a broadcast multiply and a sum over the
 * shared dim: slow and memory-hungry, but it lets a backend that has only the
 * prims run every model; a real backend registers mm natively. Convolution and
 * pooling unfold the (padded) input into windows with prims::as_strided, which
 * turns them into that product and into reductions.
 */
#include <math.h>
#include <string.h>

#include "decomp.h"

#define KERNEL(name) \
  static tabi_status name(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs)

static tabi_dtype opmath(tabi_dtype d) {
  return d == TABI_DTYPE_FLOAT16 || d == TABI_DTYPE_BFLOAT16 ? TABI_DTYPE_FLOAT32 : d;
}

static tabi_tensor *konst(dc_scope *s, double v, tabi_tensor *like) {
  if (!like) return NULL;
  return dc_broadcast_like(s, dc_scalar_f(s, v, tabi_tensor_dtype(like), like->dl.device), like);
}

/* [.., M, K] x [.., K, N] -> [.., M, N] over `batch` leading dims, in the
 * computation dtype: sum_k a[.., m, k, 1] * b[.., 1, k, n]. */
static tabi_tensor *matmul(dc_scope *s, tabi_tensor *a, tabi_tensor *b, int32_t batch) {
  if (!a || !b) return NULL;
  int64_t M = a->dl.shape[batch], K = a->dl.shape[batch + 1], N = b->dl.shape[batch + 1];
  int64_t shape[REF_MAX_DIMS], abd[REF_MAX_DIMS], bbd[REF_MAX_DIMS];
  for (int32_t i = 0; i < batch; i++) {
    shape[i] = a->dl.shape[i];
    abd[i] = bbd[i] = i;
  }
  shape[batch] = M;
  shape[batch + 1] = K;
  shape[batch + 2] = N;
  abd[batch] = batch;
  abd[batch + 1] = batch + 1;
  bbd[batch] = batch + 1;
  bbd[batch + 1] = batch + 2;
  tabi_value aa[3] = {tabi_tensor_value(a), tabi_int_list(shape, batch + 3),
                      tabi_int_list(abd, batch + 2)};
  tabi_value ba[3] = {tabi_tensor_value(b), tabi_int_list(shape, batch + 3),
                      tabi_int_list(bbd, batch + 2)};
  tabi_tensor *prod = dc_binary(s, DC_P_MUL, dc_call(s, DC_P_BROADCAST_IN_DIM, aa, 3),
                                dc_call(s, DC_P_BROADCAST_IN_DIM, ba, 3));
  int32_t kdim = batch + 1;
  return dc_reduce(s, DC_P_SUM, prod, &kdim, 1, 0, -1);
}

static tabi_status mm_impl(dc_scope *s, tabi_value *outs, tabi_tensor *a, tabi_tensor *b,
                           int32_t batch) {
  if (a->dl.ndim != batch + 2 || b->dl.ndim != batch + 2)
    return dc_error(s, TABI_ERR_SHAPE, "expected %d-D tensors, got %d-D and %d-D", (int)batch + 2,
                    (int)a->dl.ndim, (int)b->dl.ndim);
  if ((batch && a->dl.shape[0] != b->dl.shape[0]) || a->dl.shape[batch + 1] != b->dl.shape[batch])
    return dc_error(s, TABI_ERR_SHAPE, "shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                    (long long)a->dl.shape[batch], (long long)a->dl.shape[batch + 1],
                    (long long)b->dl.shape[batch], (long long)b->dl.shape[batch + 1]);
  tabi_dtype dt = tabi_tensor_dtype(a);
  if (!dc_check_dtype(s, "self", dt, REF_DTS_INT | REF_DTS_FLOAT | REF_DTS_COMPLEX))
    return dc_abandon(s, s->st);
  if (tabi_tensor_dtype(b) != dt)
    return dc_error(s, TABI_ERR_TYPE,
                    "expected both operands to have the same dtype, got %s and %s",
                    tabi_dtype_name(dt), tabi_dtype_name(tabi_tensor_dtype(b)));
  tabi_tensor *r = matmul(s, dc_convert(s, a, opmath(dt)), dc_convert(s, b, opmath(dt)), batch);
  return dc_finish(s, outs, 0, dc_convert(s, r, dt));
}

KERNEL(d_mm) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return mm_impl(&s, outs, args[0].u.t, args[1].u.t, 0);
}

KERNEL(d_bmm) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return mm_impl(&s, outs, args[0].u.t, args[1].u.t, 1);
}

/* Zero-pads the spatial dims (2..) of x by lo[i] before and hi[i] after. */
static tabi_tensor *pad_spatial(dc_scope *s, tabi_tensor *x, const int64_t *lo, const int64_t *hi,
                                double value) {
  if (!x) return NULL;
  int32_t nd = x->dl.ndim;
  int64_t shape[REF_MAX_DIMS], any = 0;
  for (int32_t d = 0; d < nd; d++) {
    shape[d] = x->dl.shape[d] + (d >= 2 ? lo[d - 2] + hi[d - 2] : 0);
    if (d >= 2) any |= lo[d - 2] | hi[d - 2];
  }
  if (!any) return x;
  tabi_value v = tabi_float(value);
  tabi_tensor *out = dc_full(s, nd, shape, &v, tabi_tensor_dtype(x), x->dl.device);
  if (!out) return NULL;
  int64_t off = 0;
  for (int32_t d = 2; d < nd; d++) off += lo[d - 2] * out->dl.strides[d];
  if (tabi_tensor_numel(x) > 0) {
    tabi_tensor *dst = dc_as_strided(s, out, nd, x->dl.shape, out->dl.strides, off);
    tabi_value a[2] = {tabi_tensor_value(dst), tabi_tensor_value(x)};
    if (dst) dc_call(s, DC_P_COPY_TO, a, 2);
  }
  return out;
}

/* Sliding windows of a contiguous x [N, C, *in] as [N, C, *out, *kernel]. */
static tabi_tensor *windows(dc_scope *s, tabi_tensor *x, int32_t sp, const int64_t *out_size,
                            const int64_t *kernel, const int64_t *stride, const int64_t *dilation) {
  if (!x) return NULL;
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  shape[0] = x->dl.shape[0];
  shape[1] = x->dl.shape[1];
  strides[0] = x->dl.strides[0];
  strides[1] = x->dl.strides[1];
  for (int32_t i = 0; i < sp; i++) {
    shape[2 + i] = out_size[i];
    strides[2 + i] = x->dl.strides[2 + i] * stride[i];
    shape[2 + sp + i] = kernel[i];
    strides[2 + sp + i] = x->dl.strides[2 + i] * dilation[i];
  }
  return dc_as_strided(s, x, 2 + 2 * sp, shape, strides, dc_elem_offset(x));
}

/* A list argument of `sp` entries; a single entry repeats (ATen's expand_param). */
static int param(dc_scope *s, const tabi_value *v, int32_t sp, int64_t dflt, const char *name,
                 int64_t *out) {
  int64_t n = v->tag == TABI_TAG_INT_LIST ? v->u.list.len : 0;
  if (n != 0 && n != 1 && n != sp) {
    dc_fail(s, TABI_ERR_INVALID_ARGUMENT, "argument '%s' must have 1 or %d entries, got %lld", name,
            (int)sp, (long long)n);
    return 0;
  }
  for (int32_t i = 0; i < sp; i++) out[i] = n == 0 ? dflt : tabi_value_ints(v)[n == 1 ? 0 : i];
  return 1;
}

KERNEL(d_convolution) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t, *w = args[1].u.t;
  tabi_tensor *bias = args[2].tag == TABI_TAG_TENSOR ? args[2].u.t : NULL;
  int64_t groups = args[8].u.i;
  if (args[6].u.i)
    return dc_error(&s, TABI_ERR_UNIMPLEMENTED,
                    "transposed convolution has no decomposition; a native kernel is needed");
  if (!dc_check_dtype(&s, "input", tabi_tensor_dtype(x), REF_DTS_INT | REF_DTS_FLOAT))
    return dc_abandon(&s, s.st);
  int32_t sp = x->dl.ndim - 2;
  if (sp < 1 || sp > 3 || w->dl.ndim != x->dl.ndim)
    return dc_error(&s, TABI_ERR_SHAPE,
                    "expected a batched 3-D, 4-D or 5-D input and a weight of the "
                    "same rank, got %d-D and %d-D",
                    (int)x->dl.ndim, (int)w->dl.ndim);
  int64_t stride[3], pad[3], dil[3], out_sz[3], kernel[3];
  if (!param(&s, &args[3], sp, 1, "stride", stride) ||
      !param(&s, &args[4], sp, 0, "padding", pad) || !param(&s, &args[5], sp, 1, "dilation", dil))
    return dc_abandon(&s, s.st);
  int64_t N = x->dl.shape[0], C = x->dl.shape[1], K = w->dl.shape[0];
  if (groups <= 0 || C % groups || K % groups || w->dl.shape[1] * groups != C)
    return dc_error(&s, TABI_ERR_SHAPE,
                    "input channels (%lld) and weight %lldx%lld do not fit groups=%lld",
                    (long long)C, (long long)K, (long long)w->dl.shape[1], (long long)groups);
  for (int32_t i = 0; i < sp; i++) {
    kernel[i] = w->dl.shape[2 + i];
    if (stride[i] <= 0 || dil[i] <= 0 || pad[i] < 0)
      return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                      "stride and dilation must be positive, padding non-negative");
    out_sz[i] = (x->dl.shape[2 + i] + 2 * pad[i] - dil[i] * (kernel[i] - 1) - 1) / stride[i] + 1;
    if (out_sz[i] <= 0)
      return dc_error(&s, TABI_ERR_SHAPE,
                      "the kernel (%lld, dilated) is larger than the padded input (%lld)",
                      (long long)kernel[i], (long long)(x->dl.shape[2 + i] + 2 * pad[i]));
  }
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_tensor *xp = dc_copy(&s, pad_spatial(&s, dc_convert(&s, x, opmath(dt)), pad, pad, 0.0));
  tabi_tensor *win = windows(&s, xp, sp, out_sz, kernel, stride, dil); /* [N, C, *out, *k] */
  /* move C next to the kernel dims: [N, *out, C, *k], then flatten to [N*P, C*KK] */
  int64_t perm[REF_MAX_DIMS], P = 1, KK = 1;
  int32_t k = 0;
  perm[k++] = 0;
  for (int32_t i = 0; i < sp; i++) perm[k++] = 2 + i, P *= out_sz[i], KK *= kernel[i];
  perm[k++] = 1;
  for (int32_t i = 0; i < sp; i++) perm[k++] = 2 + sp + i;
  tabi_tensor *cols = dc_copy(&s, dc_transpose(&s, win, perm));
  int64_t Cg = C / groups, Kg = K / groups;
  int64_t cshape[3] = {N * P, groups, Cg * KK};
  cols = dc_reshape(&s, cols, 3, cshape);
  int64_t wshape[3] = {groups, Kg, Cg * KK};
  tabi_tensor *wm = dc_reshape(&s, dc_copy(&s, dc_convert(&s, w, opmath(dt))), 3, wshape);
  /* per group: [G, NP, CgKK] x [G, CgKK, Kg] */
  int64_t p1[3] = {1, 0, 2}, p2[3] = {0, 2, 1};
  tabi_tensor *r =
      matmul(&s, dc_transpose(&s, cols, p1), dc_transpose(&s, wm, p2), 1); /* [G, NP, Kg] */
  int64_t rshape[REF_MAX_DIMS];
  r = dc_copy(&s, dc_transpose(&s, r, p1)); /* [NP, G, Kg] */
  rshape[0] = N;
  for (int32_t i = 0; i < sp; i++) rshape[1 + i] = out_sz[i];
  rshape[1 + sp] = K;
  r = dc_reshape(&s, r, 2 + sp, rshape); /* [N, *out, K] */
  int64_t back[REF_MAX_DIMS];
  back[0] = 0;
  back[1] = 1 + sp;
  for (int32_t i = 0; i < sp; i++) back[2 + i] = 1 + i;
  r = dc_transpose(&s, r, back); /* [N, K, *out] */
  if (bias && r) {
    int64_t bd = 1;
    tabi_value ba[3] = {tabi_tensor_value(dc_convert(&s, bias, opmath(dt))),
                        tabi_int_list(r->dl.shape, r->dl.ndim), tabi_int_list(&bd, 1)};
    r = dc_binary(&s, DC_P_ADD, r, dc_call(&s, DC_P_BROADCAST_IN_DIM, ba, 3));
  }
  return dc_finish(&s, outs, 0, dc_copy(&s, dc_convert(&s, r, dt)));
}

/* avg_pool{1,2,3}d: window sums over the zero-padded input, divided by the
 * count of the window that lies inside the padded input (count_include_pad)
 * or inside the input, unless divisor_override. */
static tabi_status avg_pool(dc_scope *s, tabi_value *outs, tabi_value *args, int32_t sp) {
  tabi_tensor *x = args[0].u.t;
  if (!dc_check_dtype(s, "self", tabi_tensor_dtype(x), REF_DT(TABI_DTYPE_INT64) | REF_DTS_FLOAT))
    return dc_abandon(s, s->st);
  int32_t batched = x->dl.ndim == sp + 2;
  if (x->dl.ndim != sp + 2 && x->dl.ndim != sp + 1)
    return dc_error(s, TABI_ERR_SHAPE, "expected a %d-D or %d-D input, got %d-D", (int)sp + 1,
                    (int)sp + 2, (int)x->dl.ndim);
  int64_t kernel[3], stride[3], pad[3], one[3] = {1, 1, 1}, out_sz[3], hi[3];
  if (!param(s, &args[1], sp, 1, "kernel_size", kernel) ||
      !param(s, &args[3], sp, 0, "padding", pad))
    return dc_abandon(s, s->st);
  if (args[2].tag == TABI_TAG_INT_LIST && args[2].u.list.len == 0)
    memcpy(stride, kernel, sizeof stride);
  else if (!param(s, &args[2], sp, 1, "stride", stride))
    return dc_abandon(s, s->st);
  int ceil_mode = (int)args[4].u.i, include_pad = (int)args[5].u.i;
  int has_override = sp > 1 && args[6].tag == TABI_TAG_INT;
  int64_t divisor = has_override ? args[6].u.i : 0;
  if (has_override && divisor == 0)
    return dc_error(s, TABI_ERR_INVALID_ARGUMENT, "divisor must be not zero");
  int64_t shape4[REF_MAX_DIMS];
  /* an unbatched input is a batch of one */
  for (int32_t d = 0; d < sp + 2; d++)
    shape4[d] = batched ? x->dl.shape[d] : d == 0 ? 1 : x->dl.shape[d - 1];
  for (int32_t i = 0; i < sp; i++) {
    int64_t in = shape4[2 + i];
    /* pad > kernel / 2 is pad * 2 > kernel without its overflow */
    if (kernel[i] <= 0 || stride[i] <= 0 || pad[i] < 0 || pad[i] > kernel[i] / 2)
      return dc_error(s, TABI_ERR_INVALID_ARGUMENT,
                      "pad should be at most half of the kernel size, "
                      "kernel and stride positive");
    int64_t padded;
    if (__builtin_add_overflow(in, 2 * pad[i], &padded))
      return dc_error(s, TABI_ERR_INVALID_ARGUMENT, "the padded input size of spatial dim %d overflows int64",
                      (int)i);
    /* ATen's pooling_output_shape, floor division: a kernel larger than the
       padded input still gives one window in ceil mode (3 wide, kernel 6,
       stride 4), none without it */
    int64_t num = padded - kernel[i], q = num / stride[i], rem = num % stride[i];
    if (rem < 0) {
      q--;
      rem += stride[i];
    }
    int64_t o = q + (ceil_mode && rem != 0) + 1;
    if (ceil_mode && (o - 1) * stride[i] >= in + pad[i]) o--; /* last window must start inside */
    if (o <= 0) return dc_error(s, TABI_ERR_SHAPE, "output size is too small");
    out_sz[i] = o;
    hi[i] = (o - 1) * stride[i] + kernel[i] - in - pad[i]; /* right padding incl. ceil overhang */
    if (hi[i] < pad[i]) hi[i] = pad[i];
  }
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_tensor *x4 = dc_reshape(s, dc_convert(s, x, opmath(dt)), sp + 2, shape4);
  tabi_tensor *xp = dc_copy(s, pad_spatial(s, x4, pad, hi, 0.0));
  int32_t red[3];
  for (int32_t i = 0; i < sp; i++) red[i] = 2 + sp + i;
  tabi_tensor *sum =
      dc_reduce(s, DC_P_SUM, windows(s, xp, sp, out_sz, kernel, stride, one), red, sp, 0, -1);
  tabi_tensor *r;
  if (has_override) {
    r = dc_binary(s, DC_P_DIV, sum, konst(s, (double)divisor, sum));
  } else {
    /* count: ones over the input (and over the symmetric padding when included) */
    tabi_tensor *ones = konst(s, 1.0, x4);
    int64_t inner_lo[3], inner_hi[3];
    for (int32_t i = 0; i < sp; i++) {
      inner_lo[i] = include_pad ? pad[i] : 0;
      inner_hi[i] = include_pad ? pad[i] : 0;
    }
    tabi_tensor *mask =
        pad_spatial(s, dc_copy(s, ones), inner_lo, inner_hi, include_pad ? 1.0 : 0.0);
    int64_t lo2[3], hi2[3];
    for (int32_t i = 0; i < sp; i++) {
      lo2[i] = pad[i] - inner_lo[i];
      hi2[i] = hi[i] - inner_hi[i];
    }
    mask = dc_copy(s, pad_spatial(s, mask, lo2, hi2, 0.0));
    tabi_tensor *cnt =
        dc_reduce(s, DC_P_SUM, windows(s, mask, sp, out_sz, kernel, stride, one), red, sp, 0, -1);
    r = dc_binary(s, DC_P_DIV, sum, cnt);
  }
  if (!batched && r) {
    int64_t shp[REF_MAX_DIMS];
    for (int32_t d = 0; d < sp + 1; d++) shp[d] = r->dl.shape[d + 1];
    r = dc_reshape(s, r, sp + 1, shp);
  }
  return dc_finish(s, outs, 0, dc_convert(s, r, dt));
}

KERNEL(d_avg_pool1d) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return avg_pool(&s, outs, args, 1);
}
KERNEL(d_avg_pool2d) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return avg_pool(&s, outs, args, 2);
}
KERNEL(d_avg_pool3d) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  return avg_pool(&s, outs, args, 3);
}

/* native_dropout: keep where a uniform draw is >= p, the draw made by
 * prims::uniform in float32 (float64 for float64 input) so the mask is the one
 * the reference kernel draws from the same counters. */
KERNEL(d_native_dropout) {
  dc_scope s;
  dc_begin(&s, ctx, call, args);
  tabi_tensor *x = args[0].u.t;
  double p = args[1].u.f;
  int train = args[2].tag != TABI_TAG_BOOL || args[2].u.i;
  if (!dc_check_dtype(&s, "input", tabi_tensor_dtype(x), REF_DTS_FLOAT | REF_DTS_COMPLEX))
    return dc_abandon(&s, s.st);
  if (p < 0 || p > 1)
    return dc_error(&s, TABI_ERR_INVALID_ARGUMENT,
                    "dropout probability has to be between 0 and 1, but got %g", p);
  tabi_value t = tabi_bool(1);
  tabi_dtype dt = tabi_tensor_dtype(x);
  /* ATen's quirk: an empty input gets a mask of its own dtype, not bool, in
     either mode */
  tabi_dtype mdt = tabi_tensor_numel(x) == 0 ? dt : TABI_DTYPE_BOOL;
  if (!train) {
    tabi_tensor *res[2] = {dc_copy(&s, x), dc_full(&s, x->dl.ndim, x->dl.shape, &t, mdt, x->dl.device)};
    return dc_finish_n(&s, outs, 2, res);
  }
  tabi_dtype udt = dt == TABI_DTYPE_FLOAT64 ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32;
  tabi_value ua[5] = {tabi_int_list(x->dl.shape, x->dl.ndim), tabi_float(0.0), tabi_float(1.0),
                      tabi_dtype_value(udt), tabi_device_value(x->dl.device)};
  tabi_tensor *u = dc_call(&s, DC_P_UNIFORM, ua, 5);
  tabi_tensor *mask = dc_binary(&s, DC_P_GE, u, konst(&s, p, u));
  tabi_tensor *c = dc_convert(&s, x, opmath(dt));
  double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  tabi_tensor *y = dc_binary(&s, DC_P_MUL,
                             dc_binary(&s, DC_P_MUL, c, dc_convert(&s, mask, c ? tabi_tensor_dtype(c) : dt)),
                             konst(&s, scale, c));
  mask = dc_convert(&s, mask, mdt);
  tabi_tensor *res[2] = {dc_convert(&s, y, dt), mask};
  return dc_finish_n(&s, outs, 2, res);
}

const dc_kernel dc_nn_kernels[] = {{"aten::mm", d_mm},
                                   {"aten::bmm", d_bmm},
                                   {"aten::convolution", d_convolution},
                                   {"aten::avg_pool1d", d_avg_pool1d},
                                   {"aten::avg_pool2d", d_avg_pool2d},
                                   {"aten::avg_pool3d", d_avg_pool3d},
                                   {"aten::native_dropout", d_native_dropout},
                                   {NULL, NULL}};
