/* reference/ref_nn6.c: aten::_embedding_bag. Listed in ref_nn3.c's table.
 *
 * weight [V, D], indices [n] and offsets (int32/int64, 1-D). B bags: len(offsets)
 * (minus one with include_last_offset). Index i belongs to the last bag b whose
 * offsets[b] <= i (so with include_last_offset and offsets[-1] < n the trailing
 * indices join the last bag; torch 1.13 is inconsistent between modes there).
 * Indices equal to padding_idx (when >= 0) are skipped and not counted.
 * Returns, as torch 1.13 CPU does:
 *  - output [B, D]: sum (times per_sample_weights, mode sum only), mean (0 for
 *    an empty bag) or max (first maximum wins; 0 for an empty bag);
 *  - offset2bag: the bag of each index, [n]; EMPTY ([0]) on ATen's sum-mode fast
 *    path (float32/float16/bfloat16 weight with stride(1) == 1,
 *    per_sample_weights with stride(0) == 1, no padding_idx), which does not
 *    build it;
 *  - bag_size [B]: indices counted per bag; zeros in sum mode;
 *  - max_indices: [B, D] row of each maximum (0 for an empty bag) in max mode,
 *    a copy of bag_size in mean mode, zeros [B] in sum mode.
 * The three index outputs have the indices' dtype. */
#include <math.h>
#include <stdio.h>

#include "ref.h"
#include "ref_nn_util.h"

tabi_status ref_nn_embedding_bag(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *w = args[0].u.t, *ind = args[1].u.t, *off = args[2].u.t;
  int64_t mode = args[4].u.i, pad = args[8].u.i;
  const tabi_tensor *psw = args[6].tag == TABI_TAG_TENSOR ? args[6].u.t : NULL;
  int ilo = args[7].u.i != 0;
  tabi_dtype dt = tabi_tensor_dtype(w), it = tabi_tensor_dtype(ind);
  const uint32_t idts = REF_DT(TABI_DTYPE_INT32) | REF_DT(TABI_DTYPE_INT64);
  tabi_status st;
  if ((st = ref_check_dtype(h, call, "weight", dt, REF_DTS_FLOAT)) ||
      (st = ref_check_dtype(h, call, "indices", it, idts)) ||
      (st = ref_check_dtype(h, call, "offsets", tabi_tensor_dtype(off), idts)))
    return st;
  if (mode < 0 || mode > 2)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'mode' is %lld; expected 0 (sum), 1 (mean) "
                   "or 2 (max)", ref_op_name(h, call), (long long)mode);
  if (w->dl.ndim != 2 || ind->dl.ndim != 1 || off->dl.ndim != 1)
    return REF_ERR(h, TABI_ERR_SHAPE, "%s: expected weight 2-D, indices 1-D and offsets 1-D; got %dD, %dD, %dD",
                   ref_op_name(h, call), (int)w->dl.ndim, (int)ind->dl.ndim, (int)off->dl.ndim);
  if (psw) {
    if (mode != 0)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: per_sample_weights is only supported with mode sum (0)",
                     ref_op_name(h, call));
    if (tabi_tensor_dtype(psw) != dt)
      return REF_ERR(h, TABI_ERR_TYPE, "%s: argument 'per_sample_weights' has dtype %s; expected %s (weight's)",
                     ref_op_name(h, call), tabi_dtype_name(tabi_tensor_dtype(psw)), tabi_dtype_name(dt));
    if (psw->dl.ndim != 1 || psw->dl.shape[0] != ind->dl.shape[0])
      return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument 'per_sample_weights' must have the shape of indices",
                     ref_op_name(h, call));
  }
  int64_t V = w->dl.shape[0], D = w->dl.shape[1], n = ind->dl.shape[0];
  int64_t B = off->dl.shape[0] - (ilo ? 1 : 0);
  if (B < 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: include_last_offset needs at least one offset",
                   ref_op_name(h, call));
  int64_t prev = 0;
  for (int64_t b = 0; b < off->dl.shape[0]; b++) {
    int64_t o = ref_load_i(off, b * off->dl.strides[0]);
    if ((b == 0 && o != 0) || o < prev || o > n)
      return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'offsets' must start at 0 and be "
                     "non-decreasing and <= %lld (the number of indices); offsets[%lld] is %lld",
                     ref_op_name(h, call), (long long)n, (long long)b, (long long)o);
    prev = o;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t v = ref_load_i(ind, i * ind->dl.strides[0]);
    if (v < 0 || v >= V)
      return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'indices' holds %lld, out of range for %lld rows",
                     ref_op_name(h, call), (long long)v, (long long)V);
  }
  /* ATen's sum-mode fast path (is_fast_path: a float32/float16/bfloat16 weight
   * with weight.stride(1) == 1, per_sample_weights.stride(0) == 1, padding_idx
   * < 0) does not build offset2bag; every other case returns it, [n]. */
  int fast = mode == 0 && pad < 0 &&
             (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT16 || dt == TABI_DTYPE_BFLOAT16) &&
             w->dl.strides[1] == 1 && (!psw || psw->dl.strides[0] == 1);
  int64_t oshape[2] = {B, D}, o2b_n = fast ? 0 : n;
  tabi_tensor *out = NULL, *o2b = NULL, *bsz = NULL, *mxi = NULL;
  double *acc = ref_nn_zeros(B * D);
  int64_t *arg = ref_nn_izeros(B * D), *cnt = ref_nn_izeros(B);
  if (!acc || !arg || !cnt) {
    st = REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
    goto done;
  }
  if ((st = ref_empty(h, w, dt, 2, oshape, &out)) || (st = ref_empty(h, w, it, 1, &o2b_n, &o2b)) ||
      (st = ref_empty(h, w, it, 1, &B, &bsz)) ||
      (st = ref_empty(h, w, it, mode == 2 ? 2 : 1, oshape, &mxi)))
    goto done;
  int64_t bag = 0;
  for (int64_t i = 0; i < n; i++) {
    while (bag + 1 < B && ref_load_i(off, (bag + 1) * off->dl.strides[0]) <= i) bag++;
    if (o2b_n) ref_store_i(o2b, i, bag);
    int64_t v = ref_load_i(ind, i * ind->dl.strides[0]);
    if (B == 0 || v == pad) continue;
    double sc = psw ? ref_load_f(psw, i * psw->dl.strides[0]) : 1;
    for (int64_t d = 0; d < D; d++) {
      double x = ref_load_f(w, v * w->dl.strides[0] + d * w->dl.strides[1]);
      double *a = &acc[bag * D + d];
      if (mode == 2) {
        if (cnt[bag] == 0 || x > *a) {
          *a = x;
          arg[bag * D + d] = v;
        }
      } else {
        *a += x * sc;
      }
    }
    cnt[bag]++;
  }
  for (int64_t b = 0; b < B; b++) {
    for (int64_t d = 0; d < D; d++) {
      double v = acc[b * D + d];
      if (mode == 1) v = cnt[b] ? v / (double)cnt[b] : 0;
      ref_store_f(out, b * D + d, v);
      if (mode == 2) ref_store_i(mxi, b * D + d, arg[b * D + d]);
    }
    ref_store_i(bsz, b, mode == 0 ? 0 : cnt[b]);
    if (mode != 2) ref_store_i(mxi, b, mode == 1 ? cnt[b] : 0);
  }
done:
  ref_nn_free(acc);
  ref_nn_free(arg);
  ref_nn_free(cnt);
  if (st) {
    h->tensor_release(h->ctx, out);
    h->tensor_release(h->ctx, o2b);
    h->tensor_release(h->ctx, bsz);
    h->tensor_release(h->ctx, mxi);
    return st;
  }
  ref_set_out(outs, 0, out);
  ref_set_out(outs, 1, o2b);
  ref_set_out(outs, 2, bsz);
  ref_set_out(outs, 3, mxi);
  return TABI_OK;
}
