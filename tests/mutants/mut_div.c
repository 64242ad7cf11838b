/* tests/mutants/mut_div.c: aten::div.Tensor_mode with the wrong rounding mode.
 * BUG: rounding_mode="floor" rounds toward zero (what "trunc" does), so every
 * negative non-integral quotient is one too high. Expected: value-mismatch on
 * aten::div.Tensor_mode. */
#include <math.h>
#include <string.h>

#include "mutant.h"

static double div_true(double a, double b, double alpha) { (void)alpha; return a / b; }
static double div_trunc(double a, double b, double alpha) { (void)alpha; return trunc(a / b); }
static int64_t idiv_trunc(int64_t a, int64_t b, int64_t alpha, int *err) {
  (void)alpha;
  if (b == 0) { *err = 1; return 0; }
  if (b == -1) return (int64_t)(0u - (uint64_t)a);
  return a / b;
}

static tabi_status k_div(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  const char *op = "aten::div.Tensor_mode";
  if (args[2].tag == TABI_TAG_NONE) {
    /* True division: integer inputs give float32. */
    tabi_dtype rt = mut_result_type(args[0].u.t, args[1].u.t, NULL);
    if (rt != TABI_DTYPE_INVALID && !tabi_dtype_is_floating(rt)) {
      tabi_tensor *out;
      tabi_tensor *a = args[0].u.t, *b = args[1].u.t;
      int32_t nd;
      int64_t shape[MUT_MAX_DIMS];
      tabi_status st = mut_broadcast(h, op, a, b, &nd, shape);
      if (st == TABI_OK) st = mut_empty(h, TABI_DTYPE_FLOAT32, nd, shape, &out);
      if (st != TABI_OK) return st;
      for (int64_t i = 0; i < tabi_tensor_numel(out); i++)
        mut_set(out, i, (double)mut_get_i(a, mut_offset(a, nd, shape, i)) /
                            (double)mut_get_i(b, mut_offset(b, nd, shape, i)));
      outs[0] = tabi_tensor_value(out);
      return TABI_OK;
    }
    return mut_binary(h, op, args, 0, div_true, NULL, outs);
  }
  const char *mode = tabi_value_str(&args[2]);
  int64_t len = args[2].u.list.len;
  int is_trunc = len == 5 && memcmp(mode, "trunc", 5) == 0;
  int is_floor = len == 5 && memcmp(mode, "floor", 5) == 0;
  if (!is_trunc && !is_floor)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: rounding_mode must be 'trunc' or 'floor'", op);
  /* The bug: "floor" takes the "trunc" path. */
  return mut_binary(h, op, args, 0, div_trunc, idiv_trunc, outs);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  mut_plugin_info(out, "mut_div", "mutant: div floor mode truncates");
  return mut_register(host, "aten::div.Tensor_mode", k_div);
}
