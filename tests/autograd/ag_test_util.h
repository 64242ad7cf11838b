/* tests/autograd/ag_test_util.h: small helpers shared by the autograd tests. */
#ifndef TABI_AG_TEST_UTIL_H
#define TABI_AG_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <tabi/runtime.h>
#include <tabi/ext_autograd.h>

static const DLDevice agt_cpu = {kDLCPU, 0};

/* A runtime with the CPU backend ("cpu" when built, else "reference"), the
 * decompositions and autograd. */
static inline tabi_runtime *agt_runtime(const tabi_autograd_api **out_ag) {
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(NULL, &rt) != TABI_OK) return NULL;
  int ok = 0;
#ifdef TABI_CPU_PLUGIN
  ok = tabi_runtime_load_plugin(rt, TABI_CPU_PLUGIN, NULL) == TABI_OK;
#endif
  if (!ok && tabi_runtime_load_plugin(rt, TABI_REF_PLUGIN, NULL) != TABI_OK) {
    fprintf(stderr, "cannot load the reference: %s\n", tabi_last_error());
    tabi_runtime_destroy(rt);
    return NULL;
  }
  if (tabi_runtime_load_plugin(rt, TABI_DECOMP_PLUGIN, NULL) != TABI_OK) tabi_clear_error();
  if (tabi_runtime_load_plugin(rt, TABI_AUTOGRAD_PLUGIN, NULL) != TABI_OK ||
      tabi_runtime_extension(rt, "tabi.autograd", 1, (const void **)out_ag) != TABI_OK) {
    fprintf(stderr, "cannot load autograd: %s\n", tabi_last_error());
    tabi_runtime_destroy(rt);
    return NULL;
  }
  return rt;
}

static inline tabi_tensor *agt_tensor(tabi_runtime *rt, int32_t ndim, const int64_t *shape,
                                      const double *data) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; i++) n *= shape[i];
  tabi_tensor *t = NULL;
  if (tabi_tensor_from_host(rt, agt_cpu, TABI_DTYPE_FLOAT64, ndim, shape, data,
                            (uint64_t)n * sizeof(double), &t) != TABI_OK)
    return NULL;
  return t;
}

static inline tabi_tensor *agt_scalar(tabi_runtime *rt, double v) {
  return agt_tensor(rt, 0, NULL, &v);
}

/* Reads a float64 (or float32) tensor into host doubles; returns numel, -1 on error. */
static inline int64_t agt_read(tabi_runtime *rt, const tabi_tensor *t, double *out, int64_t cap) {
  if (!t) return -1;
  int64_t n = tabi_tensor_numel(t);
  if (n > cap) return -1;
  tabi_dtype d = tabi_tensor_dtype(t);
  if (d == TABI_DTYPE_FLOAT64) {
    if (tabi_tensor_to_host(rt, t, out, (uint64_t)n * 8) != TABI_OK) return -1;
  } else if (d == TABI_DTYPE_FLOAT32) {
    float *f = malloc(sizeof(float) * (size_t)(n ? n : 1));
    if (!f || tabi_tensor_to_host(rt, t, f, (uint64_t)n * 4) != TABI_OK) { free(f); return -1; }
    for (int64_t i = 0; i < n; i++) out[i] = f[i];
    free(f);
  } else {
    return -1;
  }
  return n;
}

static inline double agt_item(tabi_runtime *rt, const tabi_tensor *t) {
  double v = NAN;
  agt_read(rt, t, &v, 1);
  return v;
}

/* Calls op `name` with the args, returns output 0 (new reference) or NULL. */
static inline tabi_tensor *agt_call(tabi_runtime *rt, const char *name, tabi_value *args,
                                    int32_t nargs) {
  tabi_op op;
  if (tabi_op_find(rt, name, &op) != TABI_OK) return NULL;
  tabi_value out[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  const tabi_op_info *info = tabi_op_get_info(rt, op);
  if (tabi_call(rt, op, args, nargs, out, info->nreturns > 4 ? 4 : info->nreturns) != TABI_OK)
    return NULL;
  for (int32_t i = 1; i < 4; i++) tabi_value_release(&out[i]);
  return out[0].tag == TABI_TAG_TENSOR ? out[0].u.t : NULL;
}

static inline tabi_tensor *agt_b(tabi_runtime *rt, const char *name, tabi_tensor *a, tabi_tensor *b) {
  tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  return agt_call(rt, name, args, 2);
}

static inline tabi_tensor *agt_u(tabi_runtime *rt, const char *name, tabi_tensor *a) {
  tabi_value args[1] = {tabi_tensor_value(a)};
  return agt_call(rt, name, args, 1);
}

static inline tabi_tensor *agt_sum(tabi_runtime *rt, tabi_tensor *a) {
  tabi_value args[2] = {tabi_tensor_value(a), tabi_none()};
  return agt_call(rt, "aten::sum.dim_IntList", args, 2);
}

#endif /* TABI_AG_TEST_UTIL_H */
