/* reference/ref_padup_check.c: see ref_padup_check.h. */
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "ref_padup_check.h"
#include "ref_shape_util.h"

#define OPN ref_op_name(h, call)

tabi_status ref_constant_pad_check(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                                   int64_t *oshape, int64_t *before, void *value_out) {
  const tabi_tensor *s = args[0].u.t;
  int64_t np = args[1].u.list.len;
  const int64_t *pad = tabi_value_ints(&args[1]);
  int32_t nd = s->dl.ndim;
  if (np % 2 != 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'pad': Length of pad must be even but instead it equals %lld",
                   OPN, (long long)np);
  if (np / 2 > nd)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                   "%s: argument 'pad': Length of pad should be no more than twice the number of "
                   "dimensions of the input. Pad length is %lld while the input has %d dimensions.",
                   OPN, (long long)np, (int)nd);
  tabi_status st = rs_check_scalar(h, call, "value", &args[2], tabi_tensor_dtype(s));
  if (st != TABI_OK) return st;
  for (int32_t d = 0; d < nd; d++) {
    oshape[d] = s->dl.shape[d];
    before[d] = 0;
  }
  for (int64_t i = 0; i < np / 2; i++) {
    int32_t d = nd - 1 - (int32_t)i;
    int64_t l = pad[2 * i], r = pad[2 * i + 1], n;
    if (__builtin_add_overflow(s->dl.shape[d], l, &n) || __builtin_add_overflow(n, r, &n) || n < 0)
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: argument 'pad': The input size %lld, plus negative padding %lld and %lld "
                     "resulted in a negative output size, which is invalid. Check dimension %d of "
                     "your input.",
                     OPN, (long long)s->dl.shape[d], (long long)l, (long long)r, (int)d);
    oshape[d] = n;
    /* Clamped to [-size, n]: every output index maps to the same inside or
     * outside as with l itself, and index - before cannot overflow (l may be
     * INT64_MIN when r makes up for it). */
    before[d] = l < -s->dl.shape[d] ? -s->dl.shape[d] : l > n ? n : l;
  }
  memset(value_out, 0, 16);
  rs_store_scalar_ptr(value_out, tabi_tensor_dtype(s), &args[2]);
  return TABI_OK;
}

tabi_status ref_pad_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *s,
                          const tabi_value *padding, int32_t k, int reflect, int64_t *oshape,
                          int64_t *padl, int32_t *is_pad) {
  const int64_t *pad = tabi_value_ints(padding);
  int32_t nd = s->dl.ndim;
  char b[256];
  tabi_status st = ref_check_dtype(h, call, "self", tabi_tensor_dtype(s), REF_DTS_FLOAT | REF_DTS_COMPLEX);
  if (st != TABI_OK) return st;
  if (padding->u.list.len != 2 * k)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'padding': expected %d values, got %lld",
                   OPN, (int)(2 * k), (long long)padding->u.list.len);
  int valid = nd == k + 1 || nd == k + 2;
  for (int32_t d = nd == k + 2 ? 1 : 0; valid && d < nd; d++) valid = s->dl.shape[d] != 0;
  if (!valid)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'self': Expected %dD or %dD (batch mode) tensor with possibly 0 "
                   "batch size and other non-zero dimensions for input, but got: %s",
                   OPN, (int)(k + 1), (int)(k + 2), ref_shape_str(b, sizeof b, nd, s->dl.shape));
  for (int32_t d = 0; d < nd; d++) {
    oshape[d] = s->dl.shape[d];
    padl[d] = 0;
    is_pad[d] = 0;
  }
  for (int32_t i = 0; i < k; i++) {
    int32_t d = nd - 1 - i;
    int64_t l = pad[2 * i], r = pad[2 * i + 1], size = s->dl.shape[d], n;
    if (reflect && (l >= size || r >= size))
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                     "%s: argument 'padding': Padding size should be less than the corresponding "
                     "input dimension, but got: padding (%lld, %lld) at dimension %d of input %s",
                     OPN, (long long)l, (long long)r, (int)d, ref_shape_str(b, sizeof b, nd, s->dl.shape));
    if (__builtin_add_overflow(size, l, &n) || __builtin_add_overflow(n, r, &n) || n < 1)
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: argument 'padding': input (size %lld at dimension %d) is too small. "
                     "Calculated output size: %lld",
                     OPN, (long long)size, (int)d, (long long)n);
    oshape[d] = n;
    /* A crop past the whole dim (only replication allows one: reflection's
     * pads are under the size, so l > -2 size) maps every output index as a
     * crop of exactly the size does; clamped, -l cannot overflow. */
    padl[d] = l < -size ? -size : l;
    is_pad[d] = 1;
  }
  return TABI_OK;
}

tabi_status ref_up_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                         const tabi_value *osv, const tabi_value *sfv, int bilinear, int64_t out[2],
                         int *has_scale, double scale[2]) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st = ref_check_dtype(h, call, "input", dt,
                                   bilinear ? REF_DTS_FLOAT : REF_DTS_FLOAT | REF_DT(TABI_DTYPE_UINT8));
  if (st != TABI_OK) return st;
  int has_os = osv->tag != TABI_TAG_NONE, has_sf = sfv->tag != TABI_TAG_NONE;
  if (has_os == has_sf)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: must specify exactly one of output_size and scale_factors",
                   OPN);
  if ((has_os ? osv->u.list.len : sfv->u.list.len) != 2)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' must have 2 values (one per spatial dim)",
                   OPN, has_os ? "output_size" : "scale_factors");
  if (x->dl.ndim != 4) {
    char b[96];
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'input' must be a 4-D tensor [N, C, H, W], got %s",
                   OPN, ref_shape_str(b, sizeof b, x->dl.ndim, x->dl.shape));
  }
  *has_scale = has_sf;
  int64_t in[2];
  for (int i = 0; i < 2; i++) {
    in[i] = x->dl.shape[2 + i];
    scale[i] = 0;
    if (has_sf) {
      scale[i] = tabi_value_floats(sfv)[i];
      double o = (double)in[i] * scale[i];
      /* ATen casts without a check; outside int64 (or NaN) C leaves the cast
       * undefined, and x86 gives INT64_MIN, which the size check below refuses */
      out[i] = o >= -0x1p63 && o < 0x1p63 ? (int64_t)o : INT64_MIN;
    } else {
      out[i] = tabi_value_ints(osv)[i];
    }
  }
  /* both dims first: the message prints both */
  for (int i = 0; i < 2; i++) {
    if (in[i] <= 0 || out[i] <= 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: input and output sizes should be greater than 0, "
                     "but got input (H: %lld, W: %lld) output (H: %lld, W: %lld)", OPN,
                     (long long)in[0], (long long)in[1], (long long)out[0], (long long)out[1]);
  }
  return TABI_OK;
}

tabi_status ref_col2im_check(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                             const tabi_value *args, int64_t oshape[4], int *batched, int64_t nb[2]) {
  const int64_t *osz = tabi_value_ints(&args[1]), *ks = tabi_value_ints(&args[2]);
  const int64_t *dil = tabi_value_ints(&args[3]), *pad = tabi_value_ints(&args[4]);
  const int64_t *str = tabi_value_ints(&args[5]);
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "self", dt, REF_DTS_FLOAT | REF_DTS_COMPLEX))) return st;
  const char *names[4] = {"kernel_size", "dilation", "stride", "padding"};
  const int64_t *vals[4] = {ks, dil, str, pad};
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < 2; i++)
      if (a < 3 ? vals[a][i] <= 0 : vals[a][i] < 0)
        return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s' has value %lld; expected %s",
                       OPN, names[a], (long long)vals[a][i], a < 3 ? "> 0" : ">= 0");
  int32_t nd = x->dl.ndim;
  *batched = nd == 3;
  if ((nd != 2 && nd != 3) || x->dl.shape[nd - 2] == 0 || x->dl.shape[nd - 1] == 0)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: argument 'self' must be 2-D or 3-D (batch mode) with non-zero dims but the "
                   "batch, got %dD",
                   OPN, (int)nd);
  int64_t n = *batched ? x->dl.shape[0] : 1, ckk = x->dl.shape[nd - 2], L = x->dl.shape[nd - 1];
  int64_t kk, blocks;
  if (__builtin_mul_overflow(ks[0], ks[1], &kk))
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'kernel_size' (%lld, %lld): its product "
                   "overflows int64", OPN, (long long)ks[0], (long long)ks[1]);
  if (ckk % kk != 0)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: dim %d of 'self' (%lld) is not divisible by the kernel "
                   "size product %lld", OPN, (int)(nd - 2), (long long)ckk, (long long)kk);
  for (int i = 0; i < 2; i++) {
    /* (osz + 2 pad - dil (ks - 1) - 1) / str + 1, every step checked: the
     * arguments are a caller's, and C's int64 overflow is undefined */
    int64_t span, t;
    int ovf = __builtin_mul_overflow(pad[i], 2, &t) || __builtin_add_overflow(osz[i], t, &span) ||
              __builtin_mul_overflow(dil[i], ks[i] - 1, &t) || __builtin_sub_overflow(span, t, &span) ||
              __builtin_sub_overflow(span, 1, &span);
    if (ovf)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: output_size (%lld), padding (%lld), dilation "
                     "(%lld) and kernel_size (%lld) of dim %d overflow int64", OPN, (long long)osz[i],
                     (long long)pad[i], (long long)dil[i], (long long)ks[i], i);
    nb[i] = span < 0 ? 0 : span / str[i] + 1;
  }
  if (__builtin_mul_overflow(nb[0], nb[1], &blocks) || blocks != L || nb[0] < 1 || nb[1] < 1)
    return REF_ERR(h, TABI_ERR_SHAPE,
                   "%s: expected dim %d of 'self' to be the number of sliding blocks %lld * %lld, "
                   "got %lld", OPN, (int)(nd - 1), (long long)nb[0], (long long)nb[1], (long long)L);
  oshape[0] = n;
  oshape[1] = ckk / kk;
  oshape[2] = osz[0];
  oshape[3] = osz[1];
  return TABI_OK;
}
