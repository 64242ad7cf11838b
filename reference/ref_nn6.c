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
#include "ref_misc_check.h"
#include "ref_nn_util.h"

tabi_status ref_nn_embedding_bag(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *w = args[0].u.t, *ind = args[1].u.t, *off = args[2].u.t;
  int64_t mode = args[4].u.i, pad = args[8].u.i;
  const tabi_tensor *psw = args[6].tag == TABI_TAG_TENSOR ? args[6].u.t : NULL;
  tabi_dtype dt = tabi_tensor_dtype(w), it = tabi_tensor_dtype(ind);
  int64_t B;
  int fast; /* ATen's sum-mode fast path: no offset2bag (ref_ebag_check) */
  tabi_status st = ref_ebag_check(h, call, args, &B, &fast);
  if (st) return st;
  int64_t V = w->dl.shape[0], D = w->dl.shape[1], n = ind->dl.shape[0], noff = off->dl.shape[0];
  int64_t *vals = ref_nn_izeros(noff + n); /* offsets, then indices */
  if (!vals) return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
  for (int64_t b = 0; b < noff; b++) vals[b] = ref_load_i(off, b * off->dl.strides[0]);
  for (int64_t i = 0; i < n; i++) vals[noff + i] = ref_load_i(ind, i * ind->dl.strides[0]);
  st = ref_ebag_check_values(h, call, vals, noff, vals + noff, n, V);
  ref_nn_free(vals);
  if (st) return st;
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
