/* ac_scaler.c: the gradient scaler's two ops (PyTorch's
 * _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_), as
 * composite kernels built from ATen and prims calls so they run on every device
 * without a host synchronization (no value is read back). See ext_autocast.h.
 */
#include <string.h>

#include "ac.h"

#define UNSCALE_SCHEMA TABI_AMP_UNSCALE_OP \
  "(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()"
#define UPDATE_SCHEMA TABI_AMP_UPDATE_SCALE_OP \
  "(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf, float scale_growth_factor, " \
  "float scale_backoff_factor, int growth_interval) -> Tensor(a!)"

/* Op handles the kernels call; looked up in one place so a missing one fails the
 * kernel with its name rather than the plugin's load. */
enum { S_ISFINITE, S_NOT, S_ANY, S_TO_COPY, S_MAX, S_MUL, S_COPY_TO, S_GT_S, S_ADD_S, S_EQ_S,
       S_MUL_S, S_WHERE, S_FULL_LIKE, S_AND, S_COUNT };
static const char *const s_names[S_COUNT] = {
    "prims::isfinite", "aten::logical_not", "aten::any", "aten::_to_copy", "aten::maximum",
    "aten::mul.Tensor", "prims::copy_to", "aten::gt.Scalar", "aten::add.Scalar",
    "aten::eq.Scalar", "aten::mul.Scalar", "aten::where.self", "aten::full_like",
    "aten::logical_and"};

typedef struct sc_ctx {
  const tabi_host_api *h;
  const char *opname;
  tabi_tensor *tmp[24];
  int32_t ntmp;
} sc_ctx;

/* Calls ops[id] on args and keeps the (single) result in the temporaries. */
static tabi_status sc_call(sc_ctx *c, int32_t id, tabi_value *args, int32_t nargs,
                           tabi_tensor **out) {
  const tabi_host_api *h = c->h;
  tabi_op op;
  *out = NULL;
  if (h->op_find(h->ctx, s_names[id], &op) != TABI_OK)
    return TABI_ERR(h, TABI_ERR_UNIMPLEMENTED, "%s: needs %s, which is not registered", c->opname,
                    s_names[id]);
  tabi_value r = tabi_none();
  tabi_status s = h->call(h->ctx, op, args, nargs, &r, 1);
  if (s != TABI_OK) return s;
  if (r.tag != TABI_TAG_TENSOR || c->ntmp == 24) {
    h->value_release(h->ctx, &r);
    return TABI_ERR(h, TABI_ERR_INTERNAL, "%s: %s returned no tensor", c->opname, s_names[id]);
  }
  c->tmp[c->ntmp++] = r.u.t;
  *out = r.u.t;
  return TABI_OK;
}

static void sc_done(sc_ctx *c) {
  for (int32_t i = 0; i < c->ntmp; i++) c->h->tensor_release(c->h->ctx, c->tmp[i]);
  c->ntmp = 0;
}

static tabi_status check_one_float(sc_ctx *c, const tabi_tensor *t, const char *arg) {
  if (tabi_tensor_numel(t) != 1 || tabi_tensor_dtype(t) != TABI_DTYPE_FLOAT32)
    return TABI_ERR(c->h, TABI_ERR_INVALID_ARGUMENT,
                    "%s: argument '%s' must be a 1-element float32 tensor, got %lld elements "
                    "of %s", c->opname, arg, (long long)tabi_tensor_numel(t),
                    tabi_dtype_name(tabi_tensor_dtype(t)));
  return TABI_OK;
}

#define TRY(x) do { s = (x); if (s != TABI_OK) goto done; } while (0)

static tabi_status unscale_kernel(void *ctx, const tabi_call *call, tabi_value *args,
                                  tabi_value *outs) {
  (void)call; (void)outs;
  sc_ctx c = {ctx, TABI_AMP_UNSCALE_OP, {0}, 0};
  const tabi_host_api *h = c.h;
  tabi_tensor *found = args[1].u.t, *inv = args[2].u.t, *inv0 = NULL;
  tabi_status s = check_one_float(&c, found, "found_inf");
  if (s == TABI_OK) s = check_one_float(&c, inv, "inv_scale");
  if (s != TABI_OK) return s;
  /* A 0-d view of inv_scale: multiplies any grad without changing its dtype or
   * shape (a 0-d operand does not promote), as the fused kernel writes back in
   * the grad's dtype. */
  TRY(h->tensor_view(h->ctx, inv, 0, NULL, NULL, (int64_t)inv->dl.byte_offset, &inv0));
  tabi_tensor *const *gs = tabi_value_tensors(&args[0]);
  for (int64_t i = 0; i < args[0].u.list.len; i++) {
    tabi_tensor *g = gs[i], *fin, *nf, *any, *anyf, *mx, *scaled, *w;
    if (!tabi_dtype_is_floating(tabi_tensor_dtype(g))) {
      s = TABI_ERR(h, TABI_ERR_TYPE, "%s: argument 'self'[%lld] must be floating, got %s",
                   c.opname, (long long)i, tabi_dtype_name(tabi_tensor_dtype(g)));
      goto done;
    }
    tabi_value a1[1] = {tabi_tensor_value(g)};
    TRY(sc_call(&c, S_ISFINITE, a1, 1, &fin));
    tabi_value a2[1] = {tabi_tensor_value(fin)};
    TRY(sc_call(&c, S_NOT, a2, 1, &nf));
    tabi_value a3[1] = {tabi_tensor_value(nf)};
    TRY(sc_call(&c, S_ANY, a3, 1, &any));
    tabi_value a4[2] = {tabi_tensor_value(any), tabi_dtype_value(TABI_DTYPE_FLOAT32)};
    TRY(sc_call(&c, S_TO_COPY, a4, 2, &anyf));
    tabi_value a5[2] = {tabi_tensor_value(found), tabi_tensor_value(anyf)};
    TRY(sc_call(&c, S_MAX, a5, 2, &mx));
    tabi_value a6[2] = {tabi_tensor_value(found), tabi_tensor_value(mx)};
    TRY(sc_call(&c, S_COPY_TO, a6, 2, &w));
    tabi_value a7[2] = {tabi_tensor_value(g), tabi_tensor_value(inv0)};
    TRY(sc_call(&c, S_MUL, a7, 2, &scaled));
    tabi_value a8[2] = {tabi_tensor_value(g), tabi_tensor_value(scaled)};
    TRY(sc_call(&c, S_COPY_TO, a8, 2, &w));
    sc_done(&c);
  }
done:
  sc_done(&c);
  h->tensor_release(h->ctx, inv0);
  return s;
}

static tabi_status update_kernel(void *ctx, const tabi_call *call, tabi_value *args,
                                 tabi_value *outs) {
  (void)call;
  sc_ctx c = {ctx, TABI_AMP_UPDATE_SCALE_OP, {0}, 0};
  const tabi_host_api *h = c.h;
  tabi_tensor *scale = args[0].u.t, *tracker = args[1].u.t, *found = args[2].u.t;
  double growth = args[3].u.f, backoff = args[4].u.f;
  int64_t interval = args[5].u.i;
  tabi_status s = check_one_float(&c, scale, "self");
  if (s == TABI_OK) s = check_one_float(&c, found, "found_inf");
  if (s != TABI_OK) return s;
  if (tabi_tensor_numel(tracker) != 1 || tabi_tensor_dtype(tracker) != TABI_DTYPE_INT32)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                    "%s: argument 'growth_tracker' must be a 1-element int32 tensor, got %lld "
                    "elements of %s", c.opname, (long long)tabi_tensor_numel(tracker),
                    tabi_dtype_name(tabi_tensor_dtype(tracker)));
  tabi_tensor *inf, *succ, *grow, *grown, *gfin, *gok, *backed, *s1, *ns, *zero, *t1, *nt, *w;
  tabi_value a[3];
  a[0] = tabi_tensor_value(found); a[1] = tabi_float(0.0);
  TRY(sc_call(&c, S_GT_S, a, 2, &inf));
  a[0] = tabi_tensor_value(tracker); a[1] = tabi_int(1);
  TRY(sc_call(&c, S_ADD_S, a, 2, &succ));
  a[0] = tabi_tensor_value(succ); a[1] = tabi_int(interval);
  TRY(sc_call(&c, S_EQ_S, a, 2, &grow));
  a[0] = tabi_tensor_value(scale); a[1] = tabi_float(growth);
  TRY(sc_call(&c, S_MUL_S, a, 2, &grown));
  a[0] = tabi_tensor_value(grown);
  TRY(sc_call(&c, S_ISFINITE, a, 1, &gfin));
  a[0] = tabi_tensor_value(grow); a[1] = tabi_tensor_value(gfin);
  TRY(sc_call(&c, S_AND, a, 2, &gok));
  a[0] = tabi_tensor_value(scale); a[1] = tabi_float(backoff);
  TRY(sc_call(&c, S_MUL_S, a, 2, &backed));
  a[0] = tabi_tensor_value(gok); a[1] = tabi_tensor_value(grown); a[2] = tabi_tensor_value(scale);
  TRY(sc_call(&c, S_WHERE, a, 3, &s1));
  a[0] = tabi_tensor_value(inf); a[1] = tabi_tensor_value(backed); a[2] = tabi_tensor_value(s1);
  TRY(sc_call(&c, S_WHERE, a, 3, &ns));
  a[0] = tabi_tensor_value(tracker); a[1] = tabi_int(0);
  TRY(sc_call(&c, S_FULL_LIKE, a, 2, &zero));
  a[0] = tabi_tensor_value(grow); a[1] = tabi_tensor_value(zero); a[2] = tabi_tensor_value(succ);
  TRY(sc_call(&c, S_WHERE, a, 3, &t1));
  a[0] = tabi_tensor_value(inf); a[1] = tabi_tensor_value(zero); a[2] = tabi_tensor_value(t1);
  TRY(sc_call(&c, S_WHERE, a, 3, &nt));
  /* Both results are computed before either is written: a failure leaves the
   * scale and the tracker as they were. */
  a[0] = tabi_tensor_value(scale); a[1] = tabi_tensor_value(ns);
  TRY(sc_call(&c, S_COPY_TO, a, 2, &w));
  a[0] = tabi_tensor_value(tracker); a[1] = tabi_tensor_value(nt);
  TRY(sc_call(&c, S_COPY_TO, a, 2, &w));
  h->tensor_retain(h->ctx, scale);
  outs[0] = tabi_tensor_value(scale);
done:
  sc_done(&c);
  return s;
}

tabi_status ac_scaler_register(ac_state *st) {
  const tabi_host_api *h = st->h;
  tabi_op op;
  tabi_status s = h->op_register(h->ctx, UNSCALE_SCHEMA, &op);
  if (s == TABI_OK)
    s = h->kernel_register(h->ctx, op, TABI_LAYER_COMPOSITE, unscale_kernel, (void *)h);
  if (s == TABI_OK) s = h->op_register(h->ctx, UPDATE_SCHEMA, &op);
  if (s == TABI_OK)
    s = h->kernel_register(h->ctx, op, TABI_LAYER_COMPOSITE, update_kernel, (void *)h);
  return s;
}
