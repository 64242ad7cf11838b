/* plugins/cuda/tc_pad_up.cu: constant_pad_nd, reflection_pad{1,2,3}d, replication_pad{2,3}d,
 * upsample_nearest2d.vec, upsample_bilinear2d.vec and col2im.
 *
 * The argument checks are the reference's own (reference/ref_padup_check.c,
 * linked in); the kernels are grid-stride loops with one thread per output
 * element calling the element functions of tc_pad_up.cuh, which
 * tests/cuda/test_cuda_padup_host runs on the host against the reference
 * plugin. Outputs are contiguous
 * (as the reference's); inputs are read through their strides. col2im
 * gathers each output element's contributions in a fixed order (no atomics):
 * deterministic, so deterministic mode has nothing to refuse here. */
#include <string.h>

#include "tc.h"
#include "tc_pad_up.cuh"
#include "ref_padup_check.h"

#define NT 256

__global__ void __launch_bounds__(NT) pad_kernel(tcp_pad_geom g, const char *in, char *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcp_pad_elem(&g, in, out, i);
}
__global__ void __launch_bounds__(NT) cpad_kernel(tcp_cpad_geom g, const char *in, char *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcp_cpad_elem(&g, in, out, i);
}
__global__ void __launch_bounds__(NT) nearest_kernel(tcp_up_geom g, const char *in, char *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcp_nearest_elem(&g, in, out, i);
}
__global__ void __launch_bounds__(NT) bilinear_kernel(tcp_up_geom g, const char *in, char *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcp_bilinear_elem(&g, in, out, i);
}
__global__ void __launch_bounds__(NT) col2im_kernel(tcp_col2im_geom g, const char *in, char *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)NT + threadIdx.x; i < n; i += (int64_t)gridDim.x * NT)
    tcp_col2im_elem(&g, in, out, i);
}

/* The input's device made current and a contiguous output there; on failure
 * nothing is left allocated. */
static tabi_status prepare(tc_ctx *c, const char *op, const tabi_tensor *x, const char *arg,
                           int32_t nd, const int64_t *shape, tabi_tensor **out) {
  tabi_status st = tc_check_cuda(c, x, op, arg);
  if (st == TABI_OK) st = tc_use_device(c, x, op);
  if (st == TABI_OK) st = tc_empty(c, x->dl.device, tabi_tensor_dtype(x), nd, shape, out);
  return st;
}

static tabi_status finish(tc_ctx *c, const char *op, int launched, tabi_tensor *out, tabi_value *outs) {
  tabi_status st = launched ? tc_launch_status(c, op) : TABI_OK;
  if (st != TABI_OK) {
    c->h->tensor_release(c->h->ctx, out);
    return st;
  }
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

static tabi_status pad(TC_ARGS, int32_t k, int reflect) {
  TC_CTX;
  tabi_tensor *s = args[0].u.t;
  int64_t oshape[TCP_MAX_DIMS], padl[TCP_MAX_DIMS];
  int32_t is_pad[TCP_MAX_DIMS];
  tabi_status st = ref_pad_check(c->h, call, s, &args[1], k, reflect, oshape, padl, is_pad);
  if (st != TABI_OK) return st;
  tcp_pad_geom g;
  tcp_pad_init(&g, s->dl.ndim, s->dl.shape, s->dl.strides, oshape, padl, is_pad, reflect,
               tabi_tensor_dtype(s));
  tabi_tensor *out = NULL;
  if ((st = prepare(c, OPN, s, "self", g.nd, g.oshape, &out)) != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  if (n > 0)
    TC_LAUNCH(tc_blocks(n, NT), NT, pad_kernel)(g, (const char *)tabi_tensor_data(s), (char *)tabi_tensor_data(out), n);
  return finish(c, OPN, n > 0, out, outs);
}
static tabi_status k_reflection_pad1d(TC_ARGS) { return pad(ctx, call, args, outs, 1, 1); }
static tabi_status k_reflection_pad2d(TC_ARGS) { return pad(ctx, call, args, outs, 2, 1); }
static tabi_status k_reflection_pad3d(TC_ARGS) { return pad(ctx, call, args, outs, 3, 1); }
static tabi_status k_replication_pad2d(TC_ARGS) { return pad(ctx, call, args, outs, 2, 0); }
static tabi_status k_replication_pad3d(TC_ARGS) { return pad(ctx, call, args, outs, 3, 0); }

/* constant_pad_nd: one pass over the output (the decomposition filled it and
 * then copied the input into a view of it: two kernels, the overlap written
 * twice). */
static tabi_status k_constant_pad_nd(TC_ARGS) {
  TC_CTX;
  tabi_tensor *s = args[0].u.t;
  if (s->dl.ndim > TCP_CPAD_DIMS)
    return TC_ERR(c, TABI_ERR_SHAPE, "%s: argument 'self' has %d dims; at most %d are supported", OPN,
                  (int)s->dl.ndim, TCP_CPAD_DIMS);
  tcp_cpad_geom g;
  memset(&g, 0, sizeof g);
  tabi_status st = ref_constant_pad_check(c->h, call, args, g.oshape, g.before, g.value);
  if (st != TABI_OK) return st;
  g.nd = s->dl.ndim;
  g.esz = (int32_t)tabi_dtype_size(tabi_tensor_dtype(s));
  for (int32_t d = 0; d < g.nd; d++) {
    g.isize[d] = s->dl.shape[d];
    g.istride[d] = s->dl.strides[d];
  }
  tabi_tensor *out = NULL;
  if ((st = prepare(c, OPN, s, "self", g.nd, g.oshape, &out)) != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  if (n > 0)
    TC_LAUNCH(tc_blocks(n, NT), NT, cpad_kernel)(g, (const char *)tabi_tensor_data(s), (char *)tabi_tensor_data(out), n);
  return finish(c, OPN, n > 0, out, outs);
}

/* args: input, output_size, [align_corners,] scale_factors */
static tabi_status upsample(TC_ARGS, int bilinear) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  int64_t osz[2];
  int has_scale;
  double scale[2];
  tabi_status st = ref_up_check(c->h, call, x, &args[1], &args[bilinear ? 3 : 2], bilinear, osz,
                               &has_scale, scale);
  if (st != TABI_OK) return st;
  tcp_up_geom g;
  memset(&g, 0, sizeof g);
  tcp_up_init(&g, x->dl.shape, x->dl.strides, osz, has_scale, scale, tabi_tensor_dtype(x),
              bilinear && args[2].u.i != 0);
  int64_t shape[4] = {x->dl.shape[0], x->dl.shape[1], osz[0], osz[1]};
  tabi_tensor *out = NULL;
  if ((st = prepare(c, OPN, x, "input", 4, shape, &out)) != TABI_OK) return st;
  int64_t n = tabi_tensor_numel(out);
  const char *ip = (const char *)tabi_tensor_data(x);
  char *op = (char *)tabi_tensor_data(out);
  if (n > 0) {
    if (bilinear) TC_LAUNCH(tc_blocks(n, NT), NT, bilinear_kernel)(g, ip, op, n);
    else TC_LAUNCH(tc_blocks(n, NT), NT, nearest_kernel)(g, ip, op, n);
  }
  return finish(c, OPN, n > 0, out, outs);
}
static tabi_status k_upsample_nearest2d(TC_ARGS) { return upsample(ctx, call, args, outs, 0); }
static tabi_status k_upsample_bilinear2d(TC_ARGS) { return upsample(ctx, call, args, outs, 1); }

static tabi_status k_col2im(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  int64_t oshape[4], nb[2];
  int batched;
  tabi_status st = ref_col2im_check(c->h, call, x, args, oshape, &batched, nb);
  if (st != TABI_OK) return st;
  tcp_col2im_geom g;
  tcp_col2im_init(&g, x->dl.ndim, x->dl.shape, x->dl.strides, tabi_tensor_dtype(x),
                  tabi_value_ints(&args[1]), tabi_value_ints(&args[2]), tabi_value_ints(&args[3]),
                  tabi_value_ints(&args[4]), tabi_value_ints(&args[5]));
  tabi_tensor *out = NULL;
  if ((st = prepare(c, OPN, x, "self", batched ? 4 : 3, batched ? oshape : oshape + 1, &out)) != TABI_OK)
    return st;
  int64_t n = tabi_tensor_numel(out);
  if (n > 0)
    TC_LAUNCH(tc_blocks(n, NT), NT, col2im_kernel)(g, (const char *)tabi_tensor_data(x), (char *)tabi_tensor_data(out), n);
  return finish(c, OPN, n > 0, out, outs);
}

TC_KTABLE tc_kernel tc_pad_up_kernels[] = {
    {"aten::constant_pad_nd", k_constant_pad_nd},
    {"aten::reflection_pad1d", k_reflection_pad1d},
    {"aten::reflection_pad2d", k_reflection_pad2d},
    {"aten::reflection_pad3d", k_reflection_pad3d},
    {"aten::replication_pad2d", k_replication_pad2d},
    {"aten::replication_pad3d", k_replication_pad3d},
    {"aten::upsample_nearest2d.vec", k_upsample_nearest2d},
    {"aten::upsample_bilinear2d.vec", k_upsample_bilinear2d},
    {"aten::col2im", k_col2im},
    {NULL, NULL},
};
