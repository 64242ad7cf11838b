/* tests/mutants/mut_out_overlap.c: aten::atan2.out without ATen's overlap checks.
 * BUG: the kernel computes into a temporary and then copies it into `out`,
 * so no overlap between `out` and an input can spoil its values, and its
 * author left out ATen's out= checks as needless: it takes an `out` whose
 * elements share memory (a broadcast dim) and an `out` that overlaps `self`
 * or `other` in part, both of which ATen refuses ("unsupported operation").
 * Every value it computes is right and no sample passes aliased arguments:
 * only a random call that passes one tensor's storage twice, checked against
 * the reference (which refuses it), finds it. Expected: accepted-bad-input on
 * aten::atan2.out, in a random call. */
#include <math.h>
#include <string.h>

#include "mutant.h"

#define OP "aten::atan2.out"

static double atan2_f(double a, double b, double alpha) {
  (void)alpha;
  return atan2(a, b);
}

static int claimed(tabi_dtype d) { return d == TABI_DTYPE_FLOAT32 || d == TABI_DTYPE_FLOAT64; }

static tabi_status k_atan2_out(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  tabi_tensor *a = args[0].u.t, *b = args[1].u.t, *out = args[2].u.t;
  /* float32 and float64 only: the tests claim those (--dtypes) */
  if (!claimed(tabi_tensor_dtype(a)) || !claimed(tabi_tensor_dtype(b)) || !claimed(tabi_tensor_dtype(out)))
    return TABI_ERR(h, TABI_ERR_TYPE, OP ": only float32 and float64 are supported");
  if (out->flags & TABI_TENSOR_READ_ONLY) return TABI_ERR(h, TABI_ERR_READ_ONLY, OP ": argument 'out' is read-only");
  tabi_value r;
  tabi_status st = mut_binary(h, OP, args, 0, atan2_f, NULL, &r);
  if (st != TABI_OK) return st;
  tabi_tensor *t = r.u.t;
  int same = out->dl.ndim == t->dl.ndim && !memcmp(out->dl.shape, t->dl.shape, sizeof(int64_t) * (size_t)t->dl.ndim);
  if (!same) st = h->tensor_resize(h->ctx, out, t->dl.ndim, t->dl.shape);
  /* the bug: no check of out against itself, self or other; the temporary
     keeps the values right, and ATen's refusals are lost */
  for (int64_t i = 0; st == TABI_OK && i < tabi_tensor_numel(t); i++)
    mut_set(out, mut_offset(out, t->dl.ndim, t->dl.shape, i), mut_get(t, i));
  h->tensor_release(h->ctx, t);
  if (st != TABI_OK) return st;
  h->tensor_retain(h->ctx, out);
  outs[0] = tabi_tensor_value(out);
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_out_overlap", "mutant: atan2.out without ATen's overlap checks on out");
  return mut_register(host, OP, k_atan2_out);
}
