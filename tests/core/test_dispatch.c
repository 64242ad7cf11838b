/* test_dispatch.c: calls through libtabi into plugins built against abi/ only:
 * dispatch order across layers, fallback, fallthrough, redispatch, TLS, composite
 * fill-in, missing ops, argument checking and default filling, plugin bugs. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tcore_util.h"

static tabi_runtime *rt;

static tabi_op op(const char *name) {
  tabi_op o = TABI_OP_INVALID;
  CHECK_OK(tabi_op_find(rt, name, &o));
  return o;
}

static int starts_with_op(const char *name) {
  return strncmp(tabi_last_error(), name, strlen(name)) == 0;
}

static tabi_status add(tabi_tensor *a, tabi_tensor *b, tabi_value *out) {
  tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  return tabi_call(rt, op("aten::add.Tensor"), args, 2, out, 1);
}

static void test_calls_and_layers(void) {
  int64_t s3[1] = {3};
  float va[3] = {1, 2, 3}, vb[3] = {10, 20, 30};
  tabi_tensor *a = tensor_f32(rt, CPU, 1, s3, va), *b = tensor_f32(rt, CPU, 1, s3, vb);
  tabi_tensor *da = tensor_f32(rt, TDEV0, 1, s3, va), *db = tensor_f32(rt, TDEV0, 1, s3, vb);
  tabi_value out;

  /* A plain backend call; alpha filled from its default. */
  trace_clear();
  CHECK_OK(add(a, b, &out));
  CHECK(strcmp(trace_get(), "cpu:add") == 0);
  CHECK(out.tag == TABI_TAG_TENSOR && read_f32(rt, out.u.t, 2) == 33.f);
  tabi_value_release(&out);
  CHECK(out.tag == TABI_TAG_NONE);

  /* Keyword alpha as an int Scalar. */
  tabi_value args3[3] = {tabi_tensor_value(a), tabi_tensor_value(b), tabi_int(2)};
  CHECK_OK(tabi_call(rt, op("aten::add.Tensor"), args3, 3, &out, 1));
  CHECK(read_f32(rt, out.u.t, 0) == 21.f);
  tabi_value_release(&out);

  /* The other device's backend. */
  trace_clear();
  CHECK_OK(add(da, db, &out));
  CHECK(strcmp(trace_get(), "tdev:add") == 0);
  CHECK(out.u.t->dl.device.device_type == kDLVulkan && read_f32(rt, out.u.t, 1) == 22.f);
  tabi_value_release(&out);

  /* Composite fill-in: tdev has no sub, the decomposition runs on tdev. */
  trace_clear();
  tabi_value sargs[2] = {tabi_tensor_value(db), tabi_tensor_value(da)};
  CHECK_OK(tabi_call(rt, op("aten::sub.Tensor"), sargs, 2, &out, 1));
  CHECK_MSG(strcmp(trace_get(), "comp:sub,tdev:add") == 0, "trace %s", trace_get());
  CHECK(read_f32(rt, out.u.t, 2) == 27.f);
  tabi_value_release(&out);
  CHECK(tabi_op_backend_status(rt, op("aten::sub.Tensor"), kDLVulkan) == TABI_IMPL_DECOMPOSED);
  CHECK(tabi_op_backend_status(rt, op("aten::add.Tensor"), kDLVulkan) == TABI_IMPL_NATIVE);
  CHECK(tabi_op_backend_status(rt, op("aten::add.Tensor"), kDLCPU) == TABI_IMPL_NATIVE);
  CHECK(tabi_op_backend_status(rt, op("aten::mm"), kDLCPU) == TABI_IMPL_MISSING);

  /* Missing op, and a decomposition that bottoms out in a missing op. */
  tabi_value mm[2] = {tabi_tensor_value(da), tabi_tensor_value(db)};
  CHECK_ERR(tabi_call(rt, op("aten::mm"), mm, 2, &out, 1), TABI_ERR_UNIMPLEMENTED,
            "aten::mm has no kernel for device tdev:0 (no native kernel and no decomposition)");
  trace_clear();
  CHECK_ERR(tabi_call(rt, op("aten::mul.Tensor"), mm, 2, &out, 1), TABI_ERR_UNIMPLEMENTED,
            "aten::mm has no kernel for device tdev:0");
  CHECK(strcmp(trace_get(), "comp:mul") == 0);
  CHECK(out.tag == TABI_TAG_NONE);

  /* Feature layers: hi (30) above lo (20) above the backend. */
  uint64_t hi = TABI_LAYER_KEY(30), lo = TABI_LAYER_KEY(20);
  const void *ext = NULL;
  CHECK_OK(tabi_runtime_extension(rt, "tcore.feat", 1, &ext));
  CHECK(ext && ((const uint64_t *)ext)[0] == hi && ((const uint64_t *)ext)[1] == lo);
  CHECK_ERR(tabi_runtime_extension(rt, "tcore.feat", 3, &ext), TABI_ERR_NOT_FOUND, "tcore.feat");
  CHECK_ERR(tabi_runtime_extension(rt, "tcore.none", 1, &ext), TABI_ERR_NOT_FOUND, "tcore.none");

  CHECK(tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) == 0);
  uint64_t prev = tabi_runtime_tls_set(rt, TABI_TLS_ENABLED, hi | lo);
  CHECK(prev == 0);
  CHECK(tabi_runtime_tls_get(rt, TABI_TLS_ENABLED) == (hi | lo));
  trace_clear();
  CHECK_OK(add(a, b, &out));
  CHECK_MSG(strcmp(trace_get(), "hi:add,lo:aten::add.Tensor,cpu:add") == 0, "trace %s", trace_get());
  CHECK(read_f32(rt, out.u.t, 0) == 11.f);
  tabi_value_release(&out);

  /* Fallthrough at hi for tcore::noop: hi is skipped, lo's fallback still runs. */
  trace_clear();
  tabi_value na[1] = {tabi_tensor_value(a)};
  CHECK_OK(tabi_call(rt, op("tcore::noop"), na, 1, &out, 1));
  CHECK_MSG(strcmp(trace_get(), "lo:tcore::noop,cpu:noop") == 0, "trace %s", trace_get());
  tabi_value_release(&out);

  /* Exclude wins over enable. */
  uint64_t prev_ex = tabi_runtime_tls_set(rt, TABI_TLS_EXCLUDED, hi);
  CHECK(prev_ex == 0);
  trace_clear();
  CHECK_OK(add(a, b, &out));
  CHECK_MSG(strcmp(trace_get(), "lo:aten::add.Tensor,cpu:add") == 0, "trace %s", trace_get());
  tabi_value_release(&out);
  CHECK(tabi_runtime_tls_set(rt, TABI_TLS_EXCLUDED, prev_ex) == hi);

  /* Redispatch below the last kernel: lo's fallback for an op with no backend. */
  CHECK_ERR(tabi_call(rt, op("aten::mm"), na, 1, &out, 1), TABI_ERR_INVALID_ARGUMENT, "'mat2'");
  tabi_value mm2[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
  trace_clear();
  CHECK_ERR(tabi_call(rt, op("aten::mm"), mm2, 2, &out, 1), TABI_ERR_UNIMPLEMENTED,
            "aten::mm has no kernel for device cpu");
  CHECK(strcmp(trace_get(), "lo:aten::mm") == 0);

  /* Restore: layers nobody enabled cost nothing and do not run. */
  CHECK(tabi_runtime_tls_set(rt, TABI_TLS_ENABLED, prev) == (hi | lo));
  trace_clear();
  CHECK_OK(add(a, b, &out));
  CHECK(strcmp(trace_get(), "cpu:add") == 0);
  tabi_value_release(&out);

  /* A key carried by a tensor (autograd marks tensors this way). */
  const tabi_host_api *h = tabi_runtime_host(rt);
  tabi_tensor *ka;
  int64_t st1[1] = {1};
  CHECK_OK(tabi_tensor_view(rt, a, 1, s3, st1, 0, &ka));
  CHECK_OK(h->tensor_set_keys(h->ctx, ka, hi));
  CHECK(ka->keys == (hi | TABI_BACKEND_KEY(kDLCPU)));
  CHECK_ERR(h->tensor_set_keys(h->ctx, ka, TABI_BACKEND_KEY(kDLVulkan)), TABI_ERR_INVALID_ARGUMENT,
            "backend");
  trace_clear();
  CHECK_OK(add(ka, b, &out));
  CHECK_MSG(strcmp(trace_get(), "hi:add,cpu:add") == 0, "trace %s", trace_get());
  tabi_value_release(&out);
  tabi_tensor_release(ka);

  /* Factory ops: the device comes from the Device argument, else the CPU. */
  int64_t sz[2] = {2, 2};
  tabi_value fargs[5] = {tabi_int_list(sz, 2), tabi_float(3.5), tabi_default(), tabi_default(),
                         tabi_device_value(TDEV1)};
  trace_clear();
  CHECK_OK(tabi_call(rt, op("aten::full"), fargs, 2, &out, 1));
  CHECK(strcmp(trace_get(), "cpu:full") == 0 && out.u.t->dl.device.device_type == kDLCPU);
  tabi_value_release(&out);
  trace_clear();
  CHECK_OK(tabi_call(rt, op("aten::full"), fargs, 5, &out, 1));
  CHECK(strcmp(trace_get(), "tdev:full") == 0);
  CHECK(out.u.t->dl.device.device_type == kDLVulkan && out.u.t->dl.device.device_id == 1);
  CHECK(read_f32(rt, out.u.t, 3) == 3.5f);
  tabi_value_release(&out);

  /* A vendor namespace op with a composite kernel and a keyword default. */
  trace_clear();
  CHECK_OK(tabi_call(rt, op("myvendor::fused"), na, 1, &out, 1));
  CHECK(strcmp(trace_get(), "comp:vendor:2") == 0);
  tabi_value_release(&out);

  tabi_tensor_release(a);
  tabi_tensor_release(b);
  tabi_tensor_release(da);
  tabi_tensor_release(db);
}

static void test_bad_arguments(void) {
  int64_t s3[1] = {3};
  float va[3] = {1, 2, 3};
  tabi_tensor *a = tensor_f32(rt, CPU, 1, s3, va), *d0 = tensor_f32(rt, TDEV0, 1, s3, va);
  tabi_tensor *d1 = tensor_f32(rt, TDEV1, 1, s3, va);
  tabi_tensor *scalar = tensor_f32(rt, CPU, 0, NULL, va);
  tabi_value out = tabi_int(7);
  tabi_op addop = op("aten::add.Tensor");

  tabi_value five[5] = {tabi_tensor_value(a), tabi_tensor_value(a), tabi_int(1), tabi_int(1), tabi_int(1)};
  CHECK_ERR(tabi_call(rt, addop, five, 5, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "takes 3 arguments but 5 were given");
  CHECK(starts_with_op("aten::add.Tensor"));
  CHECK_ERR(tabi_call(rt, addop, five, 1, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "argument 'other' (position 1) is required");
  tabi_value wrong[2] = {tabi_tensor_value(a), tabi_float(1.0)};
  CHECK_ERR(tabi_call(rt, addop, wrong, 2, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "argument 'other' (position 1) must be Tensor, got float");
  tabi_value alpha_str[3] = {tabi_tensor_value(a), tabi_tensor_value(a), tabi_string("x", 1)};
  CHECK_ERR(tabi_call(rt, addop, alpha_str, 3, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "argument 'alpha' (position 2) must be Scalar, got str");
  tabi_value nul[2] = {tabi_tensor_value(a), tabi_tensor_value(a)};
  nul[0].u.t = NULL; /* tag TENSOR, pointer NULL */
  CHECK_ERR(tabi_call(rt, addop, nul, 2, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "argument 'self' (position 0) is a NULL tensor");
  tabi_value none_self[2] = {tabi_none(), tabi_tensor_value(a)};
  CHECK_ERR(tabi_call(rt, addop, none_self, 2, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "'self' (position 0) must be Tensor, got None");
  CHECK_ERR(tabi_call(rt, addop, nul, 2, &out, 0), TABI_ERR_INVALID_ARGUMENT, "output slots");
  CHECK_ERR(tabi_call(rt, 99999, nul, 2, &out, 1), TABI_ERR_NOT_FOUND, "handle 99999");
  CHECK(out.tag == TABI_TAG_INT); /* untouched by calls refused before dispatch */

  tabi_value mix[2] = {tabi_tensor_value(a), tabi_tensor_value(d0)};
  CHECK_ERR(tabi_call(rt, addop, mix, 2, &out, 1), TABI_ERR_DEVICE,
            "aten::add.Tensor: argument 'other' is on tdev:0 but 'self' is on cpu");
  tabi_value mix2[2] = {tabi_tensor_value(d0), tabi_tensor_value(d1)};
  CHECK_ERR(tabi_call(rt, addop, mix2, 2, &out, 1), TABI_ERR_DEVICE,
            "argument 'other' is on tdev:1 but 'self' is on tdev:0");
  /* A 0-d CPU tensor mixes with any device, and the call runs on that device. */
  tabi_value mix3[2] = {tabi_tensor_value(scalar), tabi_tensor_value(d1)};
  trace_clear();
  tabi_value mix4[2] = {tabi_tensor_value(d1), tabi_tensor_value(scalar)};
  CHECK_OK(tabi_call(rt, addop, mix4, 2, &out, 1));
  CHECK(strcmp(trace_get(), "tdev:add") == 0 && out.u.t->dl.device.device_id == 1);
  CHECK(read_f32(rt, out.u.t, 2) == 4.f);
  tabi_value_release(&out);
  (void)mix3;

  /* Default filling, conversions and expansion, seen by the kernel. */
  tabi_op probe = op("tcore::probe");
  tabi_tensor *list[2] = {a, NULL};
  tabi_value pargs[9] = {tabi_tensor_value(a), tabi_int(3), tabi_int(2), tabi_default(),
                         tabi_default(), tabi_default(), tabi_default(), tabi_default(),
                         tabi_tensor_list(list, 2)};
  probe_n = 0;
  CHECK_OK(tabi_call(rt, probe, pargs, 9, &out, 1));
  tabi_value_release(&out);
  CHECK(probe_n == 12);
  CHECK(probe_args[1].tag == TABI_TAG_INT_LIST && probe_args[1].u.list.len == 2);
  CHECK(probe_n == 12 && tabi_value_ints(&probe_args[1])[0] == 3 && tabi_value_ints(&probe_args[1])[1] == 3);
  CHECK(probe_args[2].tag == TABI_TAG_FLOAT && probe_args[2].u.f == 2.0);
  CHECK(probe_args[3].tag == TABI_TAG_INT && probe_args[3].u.i == 2);
  CHECK(probe_args[4].tag == TABI_TAG_BOOL && probe_args[4].u.i == 0);
  CHECK(probe_args[5].tag == TABI_TAG_NONE);
  CHECK(probe_args[6].tag == TABI_TAG_DTYPE && probe_args[6].u.dtype == TABI_DTYPE_INT64);
  CHECK(probe_args[7].tag == TABI_TAG_STRING && probe_args[7].u.list.len == 4 &&
        memcmp(tabi_value_str(&probe_args[7]), "none", 4) == 0);
  CHECK(probe_args[8].tag == TABI_TAG_TENSOR_LIST && probe_args[8].u.list.len == 2);
  CHECK(probe_args[9].tag == TABI_TAG_FLOAT_LIST && probe_args[9].u.list.len == 2 &&
        tabi_value_floats(&probe_args[9])[1] == 2.0);
  CHECK(probe_args[10].tag == TABI_TAG_BOOL_LIST && probe_args[10].u.list.len == 2 &&
        tabi_value_ints(&probe_args[10])[1] == 1);
  CHECK(probe_args[11].tag == TABI_TAG_INT_LIST && probe_args[11].u.list.len == 3 &&
        tabi_value_ints(&probe_args[11])[2] == 1);
  pargs[1] = tabi_float(1.0);
  CHECK_ERR(tabi_call(rt, probe, pargs, 3, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "tcore::probe: argument 'k' (position 1) must be int[], got float");
  pargs[1] = tabi_int(1);
  pargs[6] = tabi_dtype_value(99);
  CHECK_ERR(tabi_call(rt, probe, pargs, 7, &out, 1), TABI_ERR_TYPE, "argument 'dt'");
  pargs[6] = tabi_default();
  tabi_tensor *bad_list[1] = {NULL};
  pargs[8] = tabi_tensor_list(bad_list, -1);
  CHECK_ERR(tabi_call(rt, probe, pargs, 9, &out, 1), TABI_ERR_INVALID_ARGUMENT, "argument 'ts'");
  tabi_value cat[1] = {tabi_tensor_list(bad_list, 1)};
  CHECK_ERR(tabi_call(rt, op("aten::cat"), cat, 1, &out, 1), TABI_ERR_INVALID_ARGUMENT,
            "aten::cat: argument 'tensors' (position 0) element 0 is a NULL tensor");
  tabi_tensor *cat_mix[2] = {a, d0};
  cat[0] = tabi_tensor_list(cat_mix, 2);
  CHECK_ERR(tabi_call(rt, op("aten::cat"), cat, 1, &out, 1), TABI_ERR_DEVICE,
            "argument 'tensors'[1] is on tdev:0 but 'tensors'[0] is on cpu");

  /* Kernels that break the contract. */
  tabi_value one[1] = {tabi_tensor_value(a)};
  CHECK_ERR(tabi_call(rt, op("tcore::bad_out"), one, 1, &out, 1), TABI_ERR_PLUGIN,
            "tcore::bad_out: the kernel of plugin 'tcpu' returned OK but output 0 is None");
  CHECK_ERR(tabi_call(rt, op("tcore::bad_tag"), one, 1, &out, 1), TABI_ERR_PLUGIN,
            "output 0 is int where the schema returns Tensor");
  CHECK(out.tag == TABI_TAG_NONE);
  CHECK_ERR(tabi_call(rt, op("tcore::fail_silent"), one, 1, &out, 1), TABI_ERR_SHAPE,
            "tcore::fail_silent: the kernel of plugin 'tcpu' failed with TABI_ERR_SHAPE");

  /* Tensor[] outputs, released by tabi_value_release. */
  CHECK_OK(tabi_call(rt, op("tcore::list_out"), one, 1, &out, 1));
  CHECK(out.tag == TABI_TAG_TENSOR_LIST && out.u.list.len == 2 && tabi_value_tensors(&out)[1] == a);
  tabi_value_release(&out);

  /* Read-only tensors refuse mutable arguments. */
  tabi_tensor *ro;
  DLManagedTensorVersioned *mv;
  CHECK_OK(tabi_tensor_to_dlpack_versioned(a, &mv));
  mv->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK_OK(tabi_tensor_from_dlpack_versioned(rt, mv, &ro));
  CHECK(ro->flags & TABI_TENSOR_READ_ONLY);
  tabi_value roa[1] = {tabi_tensor_value(ro)};
  CHECK_ERR(tabi_call(rt, op("tcore::inplace"), roa, 1, &out, 1), TABI_ERR_READ_ONLY,
            "tcore::inplace: argument 'self' is written in place but the tensor is read-only");
  CHECK_OK(tabi_call(rt, op("tcore::noop"), roa, 1, &out, 1)); /* reading is fine */
  tabi_value_release(&out);
  CHECK_OK(tabi_call(rt, op("tcore::inplace"), one, 1, &out, 1));
  tabi_value_release(&out);
  tabi_tensor_release(ro);

  tabi_tensor_release(a);
  tabi_tensor_release(d0);
  tabi_tensor_release(d1);
  tabi_tensor_release(scalar);
}

static void test_registry(void) {
  tabi_op o;
  CHECK_ERR(tabi_op_find(rt, "aten::nonexistent", &o), TABI_ERR_NOT_FOUND, "aten::nonexistent");
  CHECK(o == TABI_OP_INVALID);
  CHECK_OK(tabi_op_find(rt, "aten::abs", &o));
  CHECK(strcmp(tabi_op_get_info(rt, o)->name, "aten::abs") == 0);
  CHECK(tabi_op_get_info(rt, -1) == NULL && tabi_op_get_info(rt, 1 << 20) == NULL);
  CHECK(tabi_op_count(rt) > 300);
  int32_t idx;
  CHECK_OK(tabi_runtime_plugin_find(rt, "tfeat", &idx));
  tabi_plugin_info info;
  CHECK_OK(tabi_runtime_plugin_info(rt, idx, &info));
  CHECK(info.kind == TABI_PLUGIN_KIND_FEATURE && info.layer_priority == 30 && info.kernels == 2);
  CHECK(strcmp(info.path, plugin_path("feat")) == 0 && strcmp(info.version, "0.0.1") == 0);
  CHECK(info.abi_major == TABI_ABI_VERSION_MAJOR && info.abi_minor_in_effect == TABI_ABI_VERSION_MINOR);
  CHECK_OK(tabi_runtime_plugin_find(rt, "tcpu", &idx));
  CHECK_OK(tabi_runtime_plugin_info(rt, idx, &info));
  CHECK(info.ops_registered == 7 && info.device_type == kDLCPU && info.kernels == 9);
  CHECK_ERR(tabi_runtime_plugin_find(rt, "nope", &idx), TABI_ERR_NOT_FOUND, "nope");
  CHECK_ERR(tabi_runtime_plugin_info(rt, 99, &info), TABI_ERR_NOT_FOUND, "99");
  int32_t n;
  CHECK_OK(tabi_runtime_device_count(rt, kDLVulkan, &n));
  CHECK(n == 2);
  CHECK_OK(tabi_runtime_device_count(rt, kDLCUDA, &n));
  CHECK(n == 0);
  const tabi_host_api *h = tabi_runtime_host(rt);
  CHECK(tabi_runtime_set_deterministic(rt, 1) == 0);
  CHECK(h->deterministic(h->ctx) == 1 && tabi_runtime_deterministic(rt) == 1);
  CHECK(tabi_runtime_set_deterministic(rt, 0) == 1);
  /* Registration from outside a plugin's init is refused. */
  CHECK_ERR(h->op_register(h->ctx, "x::y(Tensor a) -> Tensor", &o), TABI_ERR_INVALID_ARGUMENT,
            "only possible during tabi_plugin_init");
  CHECK(strcmp(tabi_status_name(TABI_ERR_READ_ONLY), "TABI_ERR_READ_ONLY") == 0);
  CHECK(strcmp(tabi_status_name(1000), "TABI_ERR_UNKNOWN") == 0);
  tabi_clear_error();
  CHECK(tabi_last_error()[0] == 0);
}

int main(void) {
  rt = rt_new(0);
  CHECK(load(rt, "cpu"));
  CHECK(load(rt, "dev"));
  CHECK(load(rt, "comp"));
  CHECK(load(rt, "feat"));
  test_calls_and_layers();
  test_bad_arguments();
  test_registry();
  destroyed_log[0] = 0;
  tabi_runtime_destroy(rt);
  CHECK_MSG(strcmp(destroyed_log, "tfeat,tcomp,tdev,tcpu") == 0, "destroy order %s", destroyed_log);
  return check_report();
}
