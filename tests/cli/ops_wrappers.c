/* tests/cli/ops_wrappers.c: the generated typed wrappers (tabi/ops.h).
 *
 * 1. Every TABI_OP_* constant equals what tabi_op_find returns for its name in a
 *    live runtime, and the registered schema is the one the wrapper was
 *    generated from (so a change in registration order cannot go unnoticed).
 * 2. With the reference plugin (argv[1]) loaded, a few wrappers compute what
 *    PyTorch would: add with alpha, a tuple return (max.dim), a Tensor[] return
 *    (split_with_sizes), a Scalar return (_local_scalar_dense); NULL outs drop
 *    results; errors leave outs NULL and name the op.
 */
#include <string.h>

#include <tabi/ops.h>
#include <tabi/runtime.h>

#include "check.h"

typedef struct { tabi_op handle; const char *name; const char *schema; } op_row;
static const op_row rows[] = {
#define X(handle, name, schema) {handle, name, schema},
#include "ops_table.inc"
#undef X
};

static void check_handles(tabi_runtime *rt) {
  int32_t n = (int32_t)(sizeof rows / sizeof rows[0]);
  CHECK(n == TABI_OP_BUILTIN_COUNT);
  CHECK(tabi_op_count(rt) >= n);
  int mismatches = 0;
  for (int32_t i = 0; i < n; i++) {
    tabi_op op = TABI_OP_INVALID;
    tabi_status st = tabi_op_find(rt, rows[i].name, &op);
    const tabi_op_info *info = tabi_op_get_info(rt, rows[i].handle);
    if (st != TABI_OK || op != rows[i].handle || !info || strcmp(info->name, rows[i].name) != 0 ||
        strcmp(info->schema, rows[i].schema) != 0) {
      if (mismatches++ < 5)
        fprintf(stderr, "%s: constant %d, tabi_op_find %d (%s), info %s\n", rows[i].name,
                (int)rows[i].handle, (int)op, tabi_status_name(st), info ? info->schema : "NULL");
    }
  }
  CHECK_MSG(mismatches == 0, "%d of %d handle constants disagree with the runtime", mismatches, n);
  tabi_op add;
  CHECK_OK(tabi_op_find(rt, "aten::add.Tensor", &add));
  CHECK(add == TABI_OP_ATEN_ADD_TENSOR);
  tabi_op sum;
  CHECK_OK(tabi_op_find(rt, "prims::sum", &sum));
  CHECK(sum == TABI_OP_PRIMS_SUM);
}

static tabi_tensor *floats(tabi_runtime *rt, int32_t ndim, const int64_t *shape, const float *v,
                           int64_t n) {
  tabi_tensor *t = NULL;
  DLDevice cpu = {kDLCPU, 0};
  CHECK_OK(tabi_tensor_from_host(rt, cpu, TABI_DTYPE_FLOAT32, ndim, shape, v,
                                 (uint64_t)n * sizeof(float), &t));
  return t;
}

static int native(tabi_runtime *rt, tabi_op op) {
  int yes = tabi_op_backend_status(rt, op, kDLCPU) != TABI_IMPL_MISSING;
  if (!yes) printf("skipped: no CPU kernel for op %d\n", (int)op);
  return yes;
}

static void check_calls(tabi_runtime *rt) {
  const int64_t s23[2] = {2, 3};
  const float av[6] = {1, 5, 2, -1, 0, 3}, bv[6] = {1, 1, 1, 2, 2, 2};
  tabi_tensor *a = floats(rt, 2, s23, av, 6), *b = floats(rt, 2, s23, bv, 6);
  if (!a || !b) goto done;

  if (native(rt, TABI_OP_ATEN_ADD_TENSOR)) {
    tabi_tensor *c = NULL;
    float got[6];
    CHECK_OK(tabi_aten_add_Tensor(rt, a, b, tabi_float(2.5), &c));
    CHECK(c != NULL);
    if (c) {
      CHECK_OK(tabi_tensor_to_host(rt, c, got, sizeof got));
      for (int i = 0; i < 6; i++) CHECK(got[i] == av[i] + 2.5f * bv[i]);
    }
    tabi_tensor_release(c);
    /* NULL out: the result is dropped (LSan checks it is released). */
    CHECK_OK(tabi_aten_add_Tensor(rt, a, b, tabi_default(), NULL));
    /* Errors: out stays NULL, the message names the op. */
    tabi_tensor *never = (tabi_tensor *)&never;
    CHECK_ERR(tabi_aten_add_Tensor(rt, NULL, b, tabi_default(), &never),
              TABI_ERR_INVALID_ARGUMENT, "aten::add.Tensor");
    CHECK(never == NULL);
  }
  if (native(rt, TABI_OP_ATEN_MAX_DIM)) {
    tabi_tensor *values = NULL, *indices = NULL;
    CHECK_OK(tabi_aten_max_dim(rt, a, 1, 0, &values, &indices));
    if (values && indices) {
      float v[2];
      int64_t ix[2];
      CHECK_OK(tabi_tensor_to_host(rt, values, v, sizeof v));
      CHECK_OK(tabi_tensor_to_host(rt, indices, ix, sizeof ix));
      CHECK(v[0] == 5 && v[1] == 3);
      CHECK(ix[0] == 1 && ix[1] == 2);
    } else {
      CHECK(values != NULL && indices != NULL);
    }
    tabi_tensor_release(values);
    tabi_tensor_release(indices);
    CHECK_OK(tabi_aten_max_dim(rt, a, 0, 1, NULL, &indices)); /* drop one of two */
    CHECK(indices != NULL && indices->dl.ndim == 2 && indices->dl.shape[0] == 1);
    tabi_tensor_release(indices);
  }
  if (native(rt, TABI_OP_ATEN_SPLIT_WITH_SIZES)) {
    const int64_t sizes[2] = {1, 2};
    tabi_value parts = tabi_none();
    CHECK_OK(tabi_aten_split_with_sizes(rt, a, sizes, 2, 1, &parts));
    CHECK(parts.tag == TABI_TAG_TENSOR_LIST && parts.u.list.len == 2);
    if (parts.tag == TABI_TAG_TENSOR_LIST && parts.u.list.len == 2) {
      tabi_tensor *second = tabi_value_tensors(&parts)[1];
      CHECK(second->dl.ndim == 2 && second->dl.shape[0] == 2 && second->dl.shape[1] == 2);
      CHECK(tabi_tensor_storage_id(second) == tabi_tensor_storage_id(a)); /* a view */
    }
    tabi_value_release(&parts);
  }
  if (native(rt, TABI_OP_ATEN__LOCAL_SCALAR_DENSE)) {
    const float one = 7.5f;
    tabi_tensor *scalar = floats(rt, 0, NULL, &one, 1);
    tabi_value v = tabi_none();
    CHECK_OK(tabi_aten__local_scalar_dense(rt, scalar, &v));
    CHECK(v.tag == TABI_TAG_FLOAT && v.u.f == 7.5);
    tabi_value_release(&v);
    tabi_tensor_release(scalar);
  }
done:
  tabi_tensor_release(a);
  tabi_tensor_release(b);
}

int main(int argc, char **argv) {
  tabi_runtime *rt = NULL;
  CHECK_OK(tabi_runtime_create(NULL, &rt));
  if (!rt) return check_report();
  check_handles(rt);
  if (argc > 1) {
    CHECK_OK(tabi_runtime_load_plugin(rt, argv[1], NULL));
    check_calls(rt);
  }
  tabi_runtime_destroy(rt);
  return check_report();
}
