/* plugins/cuda/tc_ref_glue.c: see tc_ref_glue.h. */
#include <string.h>

#include "ref_elementwise.h"
#include "ref_reduce_util.h"
#include "ref_shape_util.h"
#include "tc_ref_glue.h"

/* The plans' fixed arrays hold the reference's largest rank. */
_Static_assert(REF_MAX_DIMS == 16,
               "tc_red_plan, tc_ew_aten_bplan, tc_ew_where_plan and tc_ew_clamp_tensor_plan hold 16 dims");

static void red_plan_of(const ref_red *r, tc_red_plan *out) {
  memset(out, 0, sizeof *out);
  out->ndim = r->ndim;
  out->dims_empty = r->dims_empty;
  for (int32_t i = 0; i < r->ndim; i++) out->reduced[i] = r->reduced[i];
  out->out_ndim = r->out_ndim;
  for (int32_t i = 0; i < r->out_ndim; i++) out->out_shape[i] = r->out_shape[i];
  out->group = r->group;
}

tabi_status tc_red_plan_init(const tabi_host_api *h, const tabi_call *call, const char *arg,
                             const tabi_tensor *self, const tabi_value *dims, int empty_is_all,
                             int keepdim, int check_nonempty, tc_red_plan *out) {
  ref_red r;
  tabi_status st = ref_red_init(h, call, arg, self, dims, empty_is_all, keepdim, &r);
  if (st == TABI_OK && check_nonempty) st = ref_red_check_nonempty(h, call, self, &r);
  if (st != TABI_OK) return st;
  red_plan_of(&r, out);
  return TABI_OK;
}

typedef tabi_status (*red_planner)(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, ref_red_aten_plan *out);
#define TC_AR_FN(name, opname) ref_red_plan_##name,
static const red_planner aten_red[TC_AR_COUNT] = {REF_RED_ATEN_LIST(TC_AR_FN)};

tabi_status tc_red_aten_plan(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             int which, tc_red_aten_plan_t *out) {
  memset(out, 0, sizeof *out);
  if (which < 0 || which >= TC_AR_COUNT)
    return REF_ERR(h, TABI_ERR_INTERNAL, "%s: no aten reduction plan %d", ref_op_name(h, call),
                   which);
  ref_red_aten_plan pl;
  tabi_status st = aten_red[which](h, call, args, &pl);
  if (st != TABI_OK) return st;
  red_plan_of(&pl.r, &out->r);
  out->kind = pl.kind;
  out->as = pl.as;
  out->out_dt = pl.out_dt;
  out->correction = pl.correction;
  return TABI_OK;
}

#define TC_AU_DESC(name, sel) &ref_ew_aten_##name,
static const ref_ew_unary_op *const aten_unary[TC_AU_COUNT] = {TC_ATEN_UNARY_LIST(TC_AU_DESC)};
#define TC_AU_ONE(name) +1
_Static_assert((0 REF_EW_ATEN_UNARY_LIST(TC_AU_ONE)) == TC_AU_COUNT,
               "TC_ATEN_UNARY_LIST must name every op of REF_EW_ATEN_UNARY_LIST");

tabi_status tc_ew_aten_unary_plan(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *args, int which, tc_ew_aten_plan *out) {
  memset(out, 0, sizeof *out);
  if (which < 0 || which >= TC_AU_COUNT)
    return REF_ERR(h, TABI_ERR_INTERNAL, "%s: no aten unary descriptor %d", ref_op_name(h, call),
                   which);
  ref_ew_unary_plan pl;
  tabi_status st = ref_ew_unary_plan_init(h, call, args, aten_unary[which], &pl);
  if (st != TABI_OK) return st;
  out->cd = pl.cd;
  out->outdt = pl.outdt;
  for (int k = 0; k < 3; k++) out->pf[k] = pl.x.pf[k];
  out->pi = pl.x.pi[0];
  return TABI_OK;
}

#define TC_AB_DESC(name) &ref_ew_aten2_##name,
static const ref_ew_binary_op *const aten_binary[TC_AB_COUNT] = {REF_EW_ATEN_BINARY_LIST(TC_AB_DESC)};

tabi_status tc_ew_aten_binary_plan(const tabi_host_api *h, const tabi_call *call,
                                   const tabi_value *args, int which, tc_ew_aten_bplan *out) {
  memset(out, 0, sizeof *out);
  if (which < 0 || which >= TC_AB_COUNT)
    return REF_ERR(h, TABI_ERR_INTERNAL, "%s: no aten binary descriptor %d", ref_op_name(h, call),
                   which);
  ref_ew_binary_plan pl;
  tabi_status st = ref_ew_binary_plan_init(h, call, args, aten_binary[which], &pl);
  if (st != TABI_OK) return st;
  out->cd = pl.cd;
  out->outdt = pl.outdt;
  out->nd = pl.nd;
  for (int32_t i = 0; i < pl.nd; i++) out->shape[i] = pl.shape[i];
  for (int k = 0; k < 2; k++) {
    out->t[k] = (tabi_tensor *)pl.t[k];
    out->si[k] = pl.sv[k].i;
    out->sf[k][0] = ref_ew_category(pl.cd) == 2 ? creal(pl.sv[k].c) : pl.sv[k].f;
    out->sf[k][1] = cimag(pl.sv[k].c);
  }
  out->pi = pl.x.pi[0];
  out->pf = pl.x.pf[0];
  out->pc[0] = creal(pl.x.pc[0]);
  out->pc[1] = cimag(pl.x.pc[0]);
  /* ref_elementwise2.c's prep_pow_ts keeps the unrounded exponent in pi[1],
     pf[1], pc[1] */
  if (which == TC_AB_pow_ts && pl.x.pi[1])
    out->plain_pow = ref_ew_category(pl.cd) == 2 ? pl.x.pc[1] != pl.sv[1].c : pl.x.pf[1] != pl.sv[1].f;
  return TABI_OK;
}

tabi_status tc_ew_aten_sub_check(const tabi_host_api *h, const tabi_call *call,
                                 const tabi_value *args, int scalar_form) {
  return ref_ew_sub_check(h, call, args, scalar_form);
}

tabi_status tc_ew_aten_div_mode(const tabi_host_api *h, const tabi_call *call,
                                const tabi_value *args, int *out_which) {
  const ref_ew_binary_op *op = NULL;
  tabi_status st = ref_ew_div_mode_op(h, call, args, &op);
  *out_which = op == &ref_ew_aten2_div_trunc ? TC_AB_div_trunc
               : op == &ref_ew_aten2_div_floor ? TC_AB_div_floor : TC_AB_div;
  return st;
}

tabi_status tc_ew_aten_zero_div_error(const tabi_host_api *h, const tabi_call *call) {
  return ref_ew_zero_div_error(h, call, ref_ew_arg_name(h, call, 1));
}

tabi_status tc_ew_aten_clamp_plan(const tabi_host_api *h, const tabi_call *call,
                                  const tabi_value *args, int hardtanh, tc_ew_clamp_plan *out) {
  ref_ew_clamp_plan pl;
  memset(out, 0, sizeof *out);
  tabi_status st = ref_ew_clamp_plan_init(h, call, args, hardtanh, &pl);
  if (st != TABI_OK) return st;
  out->rt = pl.rt;
  out->flags = (pl.has_min ? TC_CLAMP_MIN : 0) | (pl.has_max ? TC_CLAMP_MAX : 0) |
               (pl.all_nan ? TC_CLAMP_ALL_NAN : 0);
  out->lo_i = pl.lo.i;
  out->hi_i = pl.hi.i;
  out->lo_f = pl.lo.f;
  out->hi_f = pl.hi.f;
  return TABI_OK;
}

tabi_status tc_ew_aten_clamp_tensor_plan(const tabi_host_api *h, const tabi_call *call,
                                         const tabi_value *args, tc_ew_clamp_tensor_plan *out) {
  ref_ew_clamp_tensor_plan pl;
  memset(out, 0, sizeof *out);
  tabi_status st = ref_ew_clamp_tensor_plan_init(h, call, args, &pl);
  if (st != TABI_OK) return st;
  out->rt = pl.rt;
  out->flags = (pl.has_min ? TC_CLAMP_MIN : 0) | (pl.has_max ? TC_CLAMP_MAX : 0);
  out->nd = pl.nd;
  for (int32_t i = 0; i < pl.nd; i++) out->shape[i] = pl.shape[i];
  return TABI_OK;
}

tabi_status tc_ew_aten_where_plan(const tabi_host_api *h, const tabi_call *call, const tabi_value *args,
                             int prim, tc_ew_where_plan *out) {
  ref_ew_where_plan pl;
  memset(out, 0, sizeof *out);
  tabi_status st = ref_ew_where_plan_init(h, call, args, prim, &pl);
  if (st != TABI_OK) return st;
  out->rt = pl.rt;
  out->nd = pl.nd;
  for (int32_t i = 0; i < pl.nd; i++) out->shape[i] = pl.shape[i];
  return TABI_OK;
}
