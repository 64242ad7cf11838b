/* conform_grad.c: gradcheck through the autograd plugin. See conform_grad.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/ext_autograd.h>

#include "conform_grad.h"
#include "conform_int.h"
#include "sample.h"

#define GC_MAX_IN 32
#define GC_MAX_OUT 16

void conform_grad_options_init(conform_grad_options *o) {
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
}

typedef struct gc {
  tabi_runtime *rt;
  const tabi_autograd_api *ag;
  const conform_grad_options *opt;
  double eps, atol, rtol;
  int32_t max_elems;
  uint64_t rng;
} gc;

static double gc_rand(gc *g) {
  g->rng = g->rng * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return (double)(g->rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* One case's inputs and outputs. */
typedef struct gcase {
  tabi_value args[CONFORM_MAX_ARGS];
  tabi_tensor *lists[CONFORM_MAX_ARGS][CONFORM_MAX_LIST];
  tabi_tensor *in[GC_MAX_IN]; /* the float64/complex128 inputs (owned copies) */
  int32_t nin;
  tabi_value outs[GC_MAX_OUT];
  int32_t nouts;
  tabi_tensor *v[GC_MAX_OUT]; /* random grad_outputs, per flattened float64/complex128 output */
  tabi_tensor *roots[GC_MAX_OUT];
  int32_t root_v[GC_MAX_OUT];
  int32_t nroots;
} gcase;

/* doubles per element: 2 for complex128, else 1 */
static int64_t parts(const tabi_tensor *t) { return tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX128 ? 2 : 1; }

static int all_finite(gc *g, tabi_tensor *t, double **out_vals) {
  int64_t n = tabi_tensor_numel(t) * parts(t);
  double *buf = malloc(sizeof(double) * (size_t)(n ? n : 1));
  if (!buf) return 0;
  if (tabi_tensor_to_host(g->rt, t, buf, (uint64_t)n * 8) != TABI_OK) { free(buf); return 0; }
  int ok = 1;
  for (int64_t i = 0; i < n; i++) ok &= isfinite(buf[i]) != 0;
  if (out_vals) *out_vals = buf;
  else free(buf);
  return ok;
}

static tabi_tensor *copy_contig(gc *g, tabi_tensor *t) {
  tabi_tensor *c = NULL;
  if (tabi_tensor_empty(g->rt, t->dl.device, tabi_tensor_dtype(t), t->dl.ndim, t->dl.shape, &c) != TABI_OK)
    return NULL;
  const tabi_host_api *h = tabi_runtime_host(g->rt);
  if (h->tensor_copy(h->ctx, c, t) != TABI_OK) { tabi_tensor_release(c); return NULL; }
  return c;
}

/* float64 and complex128 tensors take part (inputs perturbed, outputs in L). */
static int is_diff(const tabi_tensor *t) {
  return t && (tabi_tensor_dtype(t) == TABI_DTYPE_FLOAT64 || tabi_tensor_dtype(t) == TABI_DTYPE_COMPLEX128);
}

static void case_free(gcase *k) {
  for (int32_t i = 0; i < k->nin; i++) tabi_tensor_release(k->in[i]);
  for (int32_t i = 0; i < k->nouts; i++) tabi_value_release(&k->outs[i]);
  for (int32_t i = 0; i < GC_MAX_OUT; i++) tabi_tensor_release(k->v[i]);
  memset(k, 0, sizeof *k);
}

/* Replaces every float64/complex128 tensor argument by a contiguous owned copy. */
static int case_setup(gc *g, const tabi_op_info *info, const conform_sample *s, gcase *k) {
  memset(k, 0, sizeof *k);
  for (int32_t i = 0; i < s->nargs; i++) {
    k->args[i] = s->args[i];
    const tabi_arg_info *a = conform_arg_at(info, i);
    if (i >= info->nargs || (a->flags & TABI_ARG_MUTABLE)) continue;
    /* Not differentiable by definition (ATen has no derivative for them). */
    if (a->name && (strcmp(a->name, "running_mean") == 0 || strcmp(a->name, "running_var") == 0))
      continue;
    if (s->args[i].tag == TABI_TAG_TENSOR && is_diff(s->args[i].u.t)) {
      if (k->nin == GC_MAX_IN) return 0;
      tabi_tensor *c = copy_contig(g, s->args[i].u.t);
      if (!c) return 0;
      k->in[k->nin++] = c;
      k->args[i] = tabi_tensor_value(c);
    } else if (s->args[i].tag == TABI_TAG_TENSOR_LIST) {
      int64_t n = s->args[i].u.list.len;
      if (n > CONFORM_MAX_LIST) return 0;
      for (int64_t e = 0; e < n; e++) {
        tabi_tensor *t = tabi_value_tensors(&s->args[i])[e];
        k->lists[i][e] = t;
        if (!is_diff(t) || k->nin == GC_MAX_IN) continue;
        tabi_tensor *c = copy_contig(g, t);
        if (!c) return 0;
        k->in[k->nin++] = c;
        k->lists[i][e] = c;
      }
      k->args[i] = tabi_tensor_list(k->lists[i], n);
    }
  }
  return 1;
}

/* <v, f(x)> with grad mode off. */
static tabi_status dot_forward(gc *g, tabi_op op, const tabi_op_info *info, const conform_sample *s,
                               gcase *k, double *out) {
  tabi_value outs[GC_MAX_OUT];
  int32_t nr = info->nreturns;
  for (int32_t i = 0; i < GC_MAX_OUT; i++) outs[i] = tabi_none();
  int32_t prev = g->ag->set_grad_enabled(g->ag->ctx, 0);
  tabi_status st = tabi_call(g->rt, op, k->args, s->nargs, outs, nr);
  g->ag->set_grad_enabled(g->ag->ctx, prev);
  if (st != TABI_OK) return st;
  double acc = 0.0;
  int32_t vi = 0;
  for (int32_t r = 0; r < nr; r++) {
    tabi_tensor *const *ts = NULL;
    int64_t n = 0;
    if (outs[r].tag == TABI_TAG_TENSOR) { ts = &outs[r].u.t; n = 1; }
    else if (outs[r].tag == TABI_TAG_TENSOR_LIST) { ts = tabi_value_tensors(&outs[r]); n = outs[r].u.list.len; }
    for (int64_t e = 0; e < n; e++) {
      if (!is_diff(ts[e]) || vi >= GC_MAX_OUT) continue;
      tabi_tensor *v = k->v[vi++];
      /* Re(conj(v) y) for complex: the parts' products summed */
      int64_t m = tabi_tensor_numel(ts[e]) * parts(ts[e]);
      double *y = malloc(sizeof(double) * (size_t)(m ? m : 1));
      if (!y) { st = TABI_ERR_OUT_OF_MEMORY; break; }
      tabi_tensor_to_host(g->rt, ts[e], y, (uint64_t)m * 8);
      const double *vv = (const double *)tabi_tensor_data(v);
      for (int64_t j = 0; j < m; j++) acc += vv[j] * y[j];
      free(y);
    }
  }
  for (int32_t r = 0; r < nr; r++) tabi_value_release(&outs[r]);
  *out = acc;
  return st;
}

static void report(gc *g, conform_grad_case_fn fn, void *user, const char *op, const char *sample,
                   int32_t status, const char *msg, conform_grad_result *res) {
  if (status == CONFORM_GRAD_PASS) res->passed++;
  else if (status == CONFORM_GRAD_FAIL) res->failed++;
  else res->skipped++;
  if (status == CONFORM_GRAD_FAIL)
    fprintf(g->opt->log ? g->opt->log : stderr, "FAIL %s [%s] %s: gradcheck: %s\n", op,
            g->opt->dtype == TABI_DTYPE_COMPLEX128 ? "complex128" : "float64", sample, msg);
  if (fn) fn(user, op, sample, status, msg);
}

/* Runs one sample; returns CONFORM_GRAD_* with a message in msg. */
static int32_t check_sample(gc *g, tabi_op op, const tabi_op_info *info, const conform_sample *s,
                            char *msg, size_t msgn) {
  if (s->flags & (CONFORM_EXPECT_ERROR | CONFORM_RANDOM | CONFORM_UNINIT | CONFORM_TIES | CONFORM_SINGULAR)) {
    snprintf(msg, msgn, "sample kind not gradchecked");
    return CONFORM_GRAD_SKIP;
  }
  /* ATen gives padding_idx rows no gradient by design, though the forward reads them. */
  if (strcmp(info->name, "aten::embedding") == 0 && s->nargs > 2 &&
      s->args[2].tag == TABI_TAG_INT && s->args[2].u.i != -1) {
    snprintf(msg, msgn, "padding_idx rows get no gradient by design");
    return CONFORM_GRAD_SKIP;
  }
  /* With full_matrices and a non-square input, U or Vh has columns beyond the
   * rank: an arbitrary orthonormal completion the backend picks. ATen's
   * svd_backward ignores their gradient by design (torch.linalg.svd documents
   * it), so finite differences of them cannot match: those samples are left out. */
  if (strcmp(info->name, "prims::svd") == 0 && s->nargs > 1 && s->args[1].tag == TABI_TAG_BOOL &&
      s->args[1].u.i && s->args[0].tag == TABI_TAG_TENSOR && s->args[0].u.t &&
      s->args[0].u.t->dl.ndim >= 2 &&
      s->args[0].u.t->dl.shape[s->args[0].u.t->dl.ndim - 1] !=
          s->args[0].u.t->dl.shape[s->args[0].u.t->dl.ndim - 2]) {
    snprintf(msg, msgn,
             "full_matrices of a non-square input: the completed columns get no gradient by design");
    return CONFORM_GRAD_SKIP;
  }
  gcase k;
  int32_t result = CONFORM_GRAD_SKIP;
  snprintf(msg, msgn, "no float64 or complex128 input");
  if (!case_setup(g, info, s, &k) || k.nin == 0) goto done;
  for (int32_t i = 0; i < k.nin; i++)
    if (!all_finite(g, k.in[i], NULL)) { snprintf(msg, msgn, "non-finite input"); goto done; }
  for (int32_t i = 0; i < k.nin; i++) g->ag->set_requires_grad(g->ag->ctx, k.in[i], 1);
  for (int32_t i = 0; i < GC_MAX_OUT; i++) k.outs[i] = tabi_none();
  k.nouts = info->nreturns;
  if (tabi_call(g->rt, op, k.args, s->nargs, k.outs, k.nouts) != TABI_OK) {
    snprintf(msg, msgn, "forward refused: %s", tabi_last_error());
    goto done;
  }
  /* Random grad_outputs for every float64/complex128 output. */
  int32_t nv = 0;
  for (int32_t r = 0; r < k.nouts; r++) {
    tabi_tensor *const *ts = NULL;
    int64_t n = 0;
    if (k.outs[r].tag == TABI_TAG_TENSOR) { ts = &k.outs[r].u.t; n = 1; }
    else if (k.outs[r].tag == TABI_TAG_TENSOR_LIST) { ts = tabi_value_tensors(&k.outs[r]); n = k.outs[r].u.list.len; }
    for (int64_t e = 0; e < n; e++) {
      if (!is_diff(ts[e]) || nv >= GC_MAX_OUT) continue;
      if (!all_finite(g, ts[e], NULL)) { snprintf(msg, msgn, "non-finite output"); goto done; }
      tabi_tensor *v = NULL;
      if (tabi_tensor_empty(g->rt, ts[e]->dl.device, tabi_tensor_dtype(ts[e]), ts[e]->dl.ndim,
                            ts[e]->dl.shape, &v) != TABI_OK)
        goto done;
      /* An output that does not require grad (a norm's mean/rstd) is left out
       * of <v, f>: its v is zero. */
      int rg = g->ag->requires_grad(g->ag->ctx, ts[e]);
      double *vv = (double *)tabi_tensor_data(v);
      for (int64_t j = 0; j < tabi_tensor_numel(v) * parts(v); j++) vv[j] = rg ? gc_rand(g) : 0.0;
      k.v[nv++] = v;
      if (rg) {
        k.root_v[k.nroots] = nv - 1;
        k.roots[k.nroots++] = ts[e];
      }
    }
  }
  if (nv == 0) { snprintf(msg, msgn, "no float64 or complex128 output"); goto done; }
  /* Analytic: J^T v, one backward over the roots that require grad. */
  tabi_tensor *an[GC_MAX_IN] = {0};
  if (k.nroots > 0) {
    tabi_tensor *gos[GC_MAX_OUT];
    for (int32_t r = 0; r < k.nroots; r++) gos[r] = k.v[k.root_v[r]];
    tabi_status bs = g->ag->grad_of(g->ag->ctx, k.nroots, k.roots, gos, k.nin, k.in, 0, 0, an);
    if (bs != TABI_OK) {
      int missing = bs == TABI_ERR_UNIMPLEMENTED && g->opt->missing_is_skip;
      snprintf(msg, msgn, "%s: %s", missing ? "no derivative" : "backward failed", tabi_last_error());
      result = missing ? CONFORM_GRAD_MISSING : CONFORM_GRAD_FAIL;
      goto done;
    }
  }
  /* Numeric, element by element, compared as we go. */
  result = CONFORM_GRAD_PASS;
  snprintf(msg, msgn, "ok");
  double base;
  if (dot_forward(g, op, info, s, &k, &base) != TABI_OK) {
    snprintf(msg, msgn, "forward without grad failed: %s", tabi_last_error());
    result = CONFORM_GRAD_FAIL;
  }
  for (int32_t i = 0; i < k.nin && result == CONFORM_GRAD_PASS; i++) {
    /* a complex input's real and imaginary parts are perturbed one by one:
       n counts doubles, and element e of the gradient is ag_vals[e] likewise */
    int64_t n = tabi_tensor_numel(k.in[i]) * parts(k.in[i]);
    double *ag_vals = NULL;
    if (an[i]) {
      ag_vals = malloc(sizeof(double) * (size_t)(n ? n : 1));
      tabi_tensor *ac = copy_contig(g, an[i]);
      if (!ag_vals || !ac || tabi_tensor_dtype(ac) != tabi_tensor_dtype(k.in[i]) ||
          tabi_tensor_numel(ac) * parts(ac) != n ||
          tabi_tensor_to_host(g->rt, ac, ag_vals, (uint64_t)n * 8) != TABI_OK) {
        snprintf(msg, msgn, "input %d: the gradient has the wrong shape or dtype", (int)i);
        result = CONFORM_GRAD_FAIL;
      }
      tabi_tensor_release(ac);
    }
    int64_t step = n <= g->max_elems ? 1 : (n + g->max_elems - 1) / g->max_elems;
    double *x = (double *)tabi_tensor_data(k.in[i]);
    for (int64_t e = 0; e < n && result == CONFORM_GRAD_PASS; e += step) {
      double x0 = x[e], lp, lm;
      x[e] = x0 + g->eps;
      tabi_status s1 = dot_forward(g, op, info, s, &k, &lp);
      x[e] = x0 - g->eps;
      tabi_status s2 = dot_forward(g, op, info, s, &k, &lm);
      x[e] = x0;
      if (s1 != TABI_OK || s2 != TABI_OK) continue; /* outside the domain */
      double num = (lp - lm) / (2 * g->eps);
      double fwd = (lp - base) / g->eps, bwd = (base - lm) / g->eps;
      if (!isfinite(num) || fabs(fwd - bwd) > 1e-2 * (1.0 + fabs(fwd) + fabs(bwd))) continue;
      double a = ag_vals ? ag_vals[e] : 0.0;
      if (!(fabs(a - num) <= g->atol + g->rtol * fabs(num))) {
        if (parts(k.in[i]) == 2)
          snprintf(msg, msgn, "input %d element %lld (%s part): analytic %.10g, numeric %.10g", (int)i,
                   (long long)(e / 2), e % 2 ? "imaginary" : "real", a, num);
        else
          snprintf(msg, msgn, "input %d element %lld: analytic %.10g, numeric %.10g", (int)i, (long long)e, a,
                   num);
        result = CONFORM_GRAD_FAIL;
      }
    }
    free(ag_vals);
  }
  for (int32_t i = 0; i < k.nin; i++) tabi_tensor_release(an[i]);
done:
  case_free(&k);
  return result;
}

static tabi_status load(tabi_runtime *rt, const char *name, const char *fallback) {
  if (tabi_runtime_load_plugin(rt, name, NULL) == TABI_OK) return TABI_OK;
  if (!fallback) return TABI_ERR_NOT_FOUND;
  tabi_clear_error();
  return tabi_runtime_load_plugin(rt, fallback, NULL);
}

tabi_status conform_gradcheck_plugin(const conform_grad_options *opt, conform_grad_case_fn on_case,
                                     void *user, conform_grad_result *res) {
  conform_grad_options dflt;
  if (!opt) { conform_grad_options_init(&dflt); opt = &dflt; }
  if (!res) return TABI_ERR_INVALID_ARGUMENT;
  memset(res, 0, sizeof *res);
  gc g;
  memset(&g, 0, sizeof g);
  g.opt = opt;
  g.eps = opt->eps > 0 ? opt->eps : 1e-6;
  g.atol = opt->atol > 0 ? opt->atol : 1e-5;
  g.rtol = opt->rtol > 0 ? opt->rtol : 1e-3;
  g.max_elems = opt->max_elems > 0 ? opt->max_elems : 24;
  g.rng = opt->seed ^ UINT64_C(0x853c49e6748fea9b);
  int32_t max_samples = opt->max_samples > 0 ? opt->max_samples : 8;
  tabi_status st = tabi_runtime_create(NULL, &g.rt);
  if (st != TABI_OK) return st;
  if ((st = load(g.rt, opt->backend ? opt->backend : "cpu",
                 opt->fallback ? opt->fallback : "reference")) != TABI_OK)
    goto out;
  if (tabi_runtime_load_plugin(g.rt, opt->decomp ? opt->decomp : "decomp", NULL) != TABI_OK)
    tabi_clear_error();
  if ((st = tabi_runtime_load_plugin(g.rt, opt->autograd ? opt->autograd : "autograd", NULL)) != TABI_OK)
    goto out;
  if ((st = tabi_runtime_extension(g.rt, TABI_AUTOGRAD_EXTENSION, 1, (const void **)&g.ag)) != TABI_OK)
    goto out;
  char msg[512];
  for (tabi_op op = 0; op < tabi_op_count(g.rt); op++) {
    const tabi_op_info *info = tabi_op_get_info(g.rt, op);
    if (!info || (opt->ops && !strstr(info->name, opt->ops))) continue;
    if (opt->op_exact && strcmp(info->name, opt->op_exact) != 0) continue;
    conform_sample_list list = {0};
    int32_t known = 0;
    conform_samples_generate(g.rt, info, opt->dtype == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_FLOAT64,
                             opt->seed, &list, &known);
    int32_t p0 = res->passed, f0 = res->failed, n = 0;
    for (int32_t i = 0; i < list.count && n < max_samples; i++) {
      int32_t r = check_sample(&g, op, info, &list.items[i], msg, sizeof msg);
      if (r != CONFORM_GRAD_SKIP) n++;
      report(&g, on_case, user, info->name, list.items[i].name, r, msg, res);
    }
    conform_sample_list_clear(&list);
    if (res->failed > f0) res->ops_failed++;
    else if (res->passed > p0) res->ops_passed++;
    else res->ops_skipped++;
    if (opt->verbose)
      fprintf(opt->log ? opt->log : stderr, "%-48s %s (%d passed, %d failed)\n", info->name,
              res->failed > f0 ? "FAIL" : res->passed > p0 ? "ok" : (known ? "skipped" : "no samples"),
              res->passed - p0, res->failed - f0);
  }
out:
  tabi_runtime_destroy(g.rt);
  return st;
}
