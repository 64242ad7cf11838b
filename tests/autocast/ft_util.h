/* tests/autocast/ft_util.h: helpers shared by the feature-plugin tests
 * (tests/autocast, tests/profiler): runtimes with a plugin set, float tensors
 * from host values, reads of any floating dtype, calls by op name. */
#ifndef TABI_FT_UTIL_H
#define TABI_FT_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>

static const DLDevice ft_cpu = {kDLCPU, 0};

/* Loads `path` into rt; returns 1 when loaded. Prints why not. */
static inline int ft_load(tabi_runtime *rt, const char *path) {
  if (tabi_runtime_load_plugin(rt, path, NULL) == TABI_OK) return 1;
  fprintf(stderr, "note: cannot load %s: %s\n", path, tabi_last_error());
  tabi_clear_error();
  return 0;
}

/* A runtime with the reference backend and the decompositions. */
static inline tabi_runtime *ft_runtime(void) {
  tabi_runtime *rt = NULL;
  if (tabi_runtime_create(NULL, &rt) != TABI_OK) return NULL;
  if (!ft_load(rt, TABI_REF_PLUGIN)) {
    tabi_runtime_destroy(rt);
    return NULL;
  }
  ft_load(rt, TABI_DECOMP_PLUGIN);
  return rt;
}

/* A float32 (or `dt`) tensor holding `data` (given as doubles). */
static inline tabi_tensor *ft_tensor(tabi_runtime *rt, tabi_dtype dt, int32_t ndim,
                                     const int64_t *shape, const double *data) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; i++) n *= shape[i];
  tabi_tensor *t = NULL;
  if (tabi_tensor_from_host(rt, ft_cpu, TABI_DTYPE_FLOAT64, ndim, shape, data,
                            (uint64_t)n * sizeof(double), &t) != TABI_OK)
    return NULL;
  if (dt == TABI_DTYPE_FLOAT64) return t;
  tabi_op op;
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(dt)}, r = tabi_none();
  if (tabi_op_find(rt, "aten::_to_copy", &op) != TABI_OK || tabi_call(rt, op, a, 2, &r, 1) != TABI_OK)
    r = tabi_none();
  tabi_tensor_release(t);
  return r.tag == TABI_TAG_TENSOR ? r.u.t : NULL;
}

/* Reads a floating tensor into doubles (converting through float64). Returns
 * numel, or -1 on error. */
static inline int64_t ft_read(tabi_runtime *rt, tabi_tensor *t, double *out, int64_t cap) {
  if (!t) return -1;
  int64_t n = tabi_tensor_numel(t);
  if (n > cap) return -1;
  tabi_op op;
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(TABI_DTYPE_FLOAT64)}, r = tabi_none();
  if (tabi_op_find(rt, "aten::_to_copy", &op) != TABI_OK || tabi_call(rt, op, a, 2, &r, 1) != TABI_OK)
    return -1;
  tabi_status s = tabi_tensor_to_host(rt, r.u.t, out, (uint64_t)n * sizeof(double));
  tabi_value_release(&r);
  return s == TABI_OK ? n : -1;
}

/* Calls `name`; returns output 0 (a new reference) or NULL (error printed). */
static inline tabi_tensor *ft_call(tabi_runtime *rt, const char *name, tabi_value *args,
                                   int32_t nargs) {
  tabi_op op;
  tabi_value outs[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  if (tabi_op_find(rt, name, &op) != TABI_OK) {
    fprintf(stderr, "%s: %s\n", name, tabi_last_error());
    return NULL;
  }
  const tabi_op_info *info = tabi_op_get_info(rt, op);
  if (tabi_call(rt, op, args, nargs, outs, info->nreturns > 4 ? 4 : info->nreturns) != TABI_OK) {
    fprintf(stderr, "%s: %s\n", name, tabi_last_error());
    return NULL;
  }
  for (int i = 1; i < 4; i++) tabi_value_release(&outs[i]);
  return outs[0].tag == TABI_TAG_TENSOR ? outs[0].u.t : NULL;
}

static inline tabi_tensor *ft_call2(tabi_runtime *rt, const char *name, tabi_tensor *a,
                                    tabi_tensor *b) {
  tabi_value v[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  return ft_call(rt, name, v, 2);
}

static inline tabi_dtype ft_dtype(const tabi_tensor *t) {
  return t ? tabi_tensor_dtype(t) : TABI_DTYPE_INVALID;
}

#endif /* TABI_FT_UTIL_H */
