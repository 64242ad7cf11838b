/* tplugin.c: the test plugins of tests/core, one source built as many variants
 * (TP_<VARIANT> defined by CMake). Built against abi/ only, never linked to
 * libtabi: the good variants prove a plugin needs nothing else.
 *
 * Test-only shortcut: kernels report what they ran to the test executable
 * through `tcore_trace` and `tcore_probe`, looked up with dlsym at init (the
 * tests export them). A real plugin keeps no global state.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/tabi.h>

typedef void (*trace_fn)(const char *what);
typedef void (*probe_fn)(const tabi_value *args, int32_t n);
typedef void (*destroyed_fn)(const char *name);

static trace_fn g_trace;
static probe_fn g_probe;
static destroyed_fn g_destroyed;

__attribute__((unused)) static void trace(const char *what) {
  if (g_trace) g_trace(what);
}

static void find_hooks(void) {
  union { void *p; trace_fn t; probe_fn pr; destroyed_fn d; } u;
  u.p = dlsym(RTLD_DEFAULT, "tcore_trace");
  g_trace = u.t;
  u.p = dlsym(RTLD_DEFAULT, "tcore_probe");
  g_probe = u.pr;
  u.p = dlsym(RTLD_DEFAULT, "tcore_destroyed");
  g_destroyed = u.d;
}

static void on_destroy(void *ctx) {
  if (g_destroyed) g_destroyed((const char *)ctx);
}

#define TRY(x) do { tabi_status s_ = (x); if (s_ != TABI_OK) return s_; } while (0)

static tabi_status find(const tabi_host_api *h, const char *name, tabi_op *op) {
  return h->op_find(h->ctx, name, op);
}

/* ---- kernels -------------------------------------------------------------- */

/* float32 add: same numel, or `other` with one element; contiguous only. */
__attribute__((unused)) static tabi_status add_impl(const tabi_host_api *h, tabi_tensor *a, tabi_tensor *b, double alpha,
                            tabi_value *outs) {
  if (tabi_tensor_dtype(a) != TABI_DTYPE_FLOAT32 || tabi_tensor_dtype(b) != TABI_DTYPE_FLOAT32)
    return TABI_ERR(h, TABI_ERR_TYPE, "aten::add.Tensor: test kernel takes float32 only");
  int64_t n = tabi_tensor_numel(a), nb = tabi_tensor_numel(b);
  if (nb != n && nb != 1)
    return TABI_ERR(h, TABI_ERR_SHAPE, "aten::add.Tensor: test kernel: %lld vs %lld elements",
                    (long long)n, (long long)nb);
  if (!tabi_tensor_is_contiguous(a) || !tabi_tensor_is_contiguous(b))
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "aten::add.Tensor: test kernel: contiguous only");
  tabi_tensor *o;
  TRY(h->tensor_empty(h->ctx, a->dl.device, TABI_DTYPE_FLOAT32, a->dl.ndim, a->dl.shape, &o));
  const float *x = tabi_tensor_data(a), *y = tabi_tensor_data(b);
  float *z = tabi_tensor_data(o);
  for (int64_t i = 0; i < n; i++) z[i] = x[i] + (float)alpha * y[nb == 1 ? 0 : i];
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

#if defined(TP_CPU) || defined(TP_DEV) || defined(TP_DUP_SAME) || defined(TP_REF)
static tabi_status k_add(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  trace(args[0].u.t->dl.device.device_type == kDLCPU ? "cpu:add" : "tdev:add");
  return add_impl(h, args[0].u.t, args[1].u.t, tabi_value_as_double(&args[2]), outs);
}

/* aten::full(SymInt[] size, Scalar fill_value, *, dtype, layout, device, pin_memory) */
__attribute__((unused)) static tabi_status k_full(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  DLDevice d = {kDLCPU, 0};
  if (args[4].tag == TABI_TAG_DEVICE) d = args[4].u.device;
  trace(d.device_type == kDLCPU ? "cpu:full" : "tdev:full");
  tabi_tensor *o;
  TRY(h->tensor_empty(h->ctx, d, TABI_DTYPE_FLOAT32, (int32_t)args[0].u.list.len,
                      tabi_value_ints(&args[0]), &o));
  float *z = tabi_tensor_data(o);
  for (int64_t i = 0; i < tabi_tensor_numel(o); i++) z[i] = (float)tabi_value_as_double(&args[1]);
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}
#endif

#ifdef TP_CPU
static tabi_status k_noop(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  trace("cpu:noop");
  h->tensor_retain(h->ctx, args[0].u.t);
  outs[0] = tabi_tensor_value(args[0].u.t);
  return TABI_OK;
}

static tabi_status k_bad_out(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return TABI_OK; /* forgets its output */
}

static tabi_status k_bad_tag(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  outs[0] = tabi_int(3);
  return TABI_OK;
}

static tabi_status k_fail_silent(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return TABI_ERR_SHAPE; /* no message */
}

static tabi_status k_probe(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  if (g_probe) g_probe(args, call->nargs);
  h->tensor_retain(h->ctx, args[0].u.t);
  outs[0] = tabi_tensor_value(args[0].u.t);
  return TABI_OK;
}

static tabi_status k_list_out(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_tensor **arr;
  TRY(h->list_alloc(h->ctx, 2, &arr));
  for (int i = 0; i < 2; i++) {
    h->tensor_retain(h->ctx, args[0].u.t);
    arr[i] = args[0].u.t;
  }
  outs[0] = tabi_tensor_list(arr, 2);
  return TABI_OK;
}
#endif

#ifdef TP_DEV
/* A fake device type backed by host memory, two devices. */
static tabi_status d_count(void *ctx, int32_t *out) { *out = 2; return TABI_OK; }
static tabi_status d_props(void *ctx, int32_t index, tabi_device_props *out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  out->index = index;
  strcpy(out->name, "test device");
  return TABI_OK;
}
static tabi_status d_alloc(void *ctx, int32_t index, uint64_t n, void **out) {
  *out = aligned_alloc(256, (size_t)((n + 255) / 256 * 256));
  return *out ? TABI_OK : TABI_ERR_OUT_OF_MEMORY;
}
static tabi_status d_free(void *ctx, int32_t index, void *p) { free(p); return TABI_OK; }
static tabi_status d_copy(void *ctx, void *dst, DLDevice dd, const void *src, DLDevice sd,
                          uint64_t n, tabi_stream s) {
  memmove(dst, src, (size_t)n);
  return TABI_OK;
}
static tabi_status d_sync(void *ctx, int32_t index) { return TABI_OK; }
#endif

#ifdef TP_FEAT
static tabi_status k_hi_add(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  trace("hi:add");
  return h->redispatch(h->ctx, call, args, outs);
}

static tabi_status k_lo_fallback(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  char buf[96] = "lo:";
  const tabi_op_info *info = h->op_info(h->ctx, call->op);
  strncat(buf, info ? info->name : "?", sizeof buf - 4);
  trace(buf);
  return h->redispatch(h->ctx, call, args, outs);
}

typedef struct feat_ext {
  uint64_t hi, lo;
} feat_ext;
#endif

#if defined(TP_COMP) || defined(TP_DUP_ACROSS)
static tabi_status k_sub(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  trace("comp:sub");
  tabi_op add;
  TRY(find(h, "aten::add.Tensor", &add));
  tabi_value a[3] = {args[0], args[1], tabi_float(-tabi_value_as_double(&args[2]))};
  return h->call(h->ctx, add, a, 3, outs, 1);
}
#endif

#ifdef TP_COMP
/* A decomposition that bottoms out in an op nobody implements. */
static tabi_status k_mul(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  trace("comp:mul");
  tabi_op mm;
  TRY(find(h, "aten::mm", &mm));
  tabi_value a[2] = {args[0], args[1]};
  return h->call(h->ctx, mm, a, 2, outs, 1);
}

static tabi_status k_vendor(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  trace(args[1].u.i == 2 ? "comp:vendor:2" : "comp:vendor");
  h->tensor_retain(h->ctx, args[0].u.t);
  outs[0] = tabi_tensor_value(args[0].u.t);
  return TABI_OK;
}
#endif

#ifdef TP_BAD_HANDLE
static tabi_status k_bad_handle_unused(void *ctx, const tabi_call *call, tabi_value *args,
                                       tabi_value *outs) {
  return TABI_OK;
}
#endif

/* ---- init ------------------------------------------------------------------ */

#ifdef TP_NOSYM
#define ENTRY tabi_plugin_init_misspelled
#else
#define ENTRY tabi_plugin_init
#endif

TABI_PLUGIN_EXPORT tabi_status ENTRY(const tabi_host_api *h, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status ENTRY(const tabi_host_api *h, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(h, out);
  find_hooks();
  out->version = "0.0.1";
  out->description = "tests/core test plugin";
  out->destroy = on_destroy;
  tabi_op add, sub, full, op;
  TRY(find(h, "aten::add.Tensor", &add));
  TRY(find(h, "aten::sub.Tensor", &sub));
  TRY(find(h, "aten::full", &full));
  (void)add; (void)sub; (void)full; (void)op;

#if defined(TP_CPU)
  out->name = "tcpu";
  out->ctx = (void *)"tcpu";
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->device_type = kDLCPU;
  TRY(h->kernel_register(h->ctx, add, TABI_LAYER_BACKEND, k_add, (void *)h));
  TRY(h->kernel_register(h->ctx, full, TABI_LAYER_BACKEND, k_full, (void *)h));
  TRY(h->op_register(h->ctx, "tcore::noop(Tensor self) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k_noop, (void *)h));
  TRY(h->op_register(h->ctx, "tcore::bad_out(Tensor self) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k_bad_out, (void *)h));
  TRY(h->op_register(h->ctx, "tcore::bad_tag(Tensor self) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k_bad_tag, (void *)h));
  TRY(h->op_register(h->ctx, "tcore::fail_silent(Tensor self) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k_fail_silent, (void *)h));
  TRY(h->op_register(h->ctx, "tcore::inplace(Tensor(a!) self) -> Tensor(a!)", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k_noop, (void *)h));
  TRY(h->op_register(h->ctx, "tcore::list_out(Tensor self) -> Tensor[]", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k_list_out, (void *)h));
  TRY(h->op_register(h->ctx,
                     "tcore::probe(Tensor self, int[2] k, float f, Scalar s=2, bool b=False, "
                     "int? o=None, ScalarType? dt=4, str mode=\"none\", Tensor?[] ts=[], "
                     "float[] fl=[0.5, 2], bool[2] bl=True, int[3] pad=1) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_BACKEND, k_probe, (void *)h));
  /* Registering the same schema again returns the same handle. */
  tabi_op again;
  TRY(h->op_register(h->ctx, "tcore::noop(Tensor self) -> Tensor", &again));
  TRY(find(h, "tcore::noop", &op));
  if (again != op) return TABI_ERR(h, TABI_ERR_INTERNAL, "tcpu: op_register is not idempotent");
#elif defined(TP_DEV)
  static const tabi_device_api dev = {
      sizeof(tabi_device_api), kDLVulkan, "tdev", NULL, d_count, d_props, d_alloc, d_free,
      d_copy, d_sync, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  out->name = "tdev";
  out->ctx = (void *)"tdev";
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->device_type = kDLVulkan;
  TRY(h->device_register(h->ctx, &dev));
  TRY(h->kernel_register(h->ctx, add, TABI_LAYER_BACKEND, k_add, (void *)h));
  TRY(h->kernel_register(h->ctx, full, TABI_LAYER_BACKEND, k_full, (void *)h));
#elif defined(TP_FEAT)
  static feat_ext ext; /* written once with the same keys in every runtime */
  uint64_t hi, lo;
  out->name = "tfeat";
  out->ctx = (void *)"tfeat";
  out->kind = TABI_PLUGIN_KIND_FEATURE;
  TRY(h->layer_declare(h->ctx, "test-hi", 30, &hi));
  TRY(h->layer_declare(h->ctx, "test-lo", 20, &lo));
  TRY(h->kernel_register(h->ctx, add, (int64_t)hi, k_hi_add, (void *)h));
  TRY(find(h, "tcore::noop", &op));
  TRY(h->kernel_register(h->ctx, op, (int64_t)hi, NULL, NULL)); /* fallthrough */
  TRY(h->fallback_register(h->ctx, (int64_t)lo, k_lo_fallback, (void *)h));
  ext.hi = hi;
  ext.lo = lo;
  TRY(h->extension_register(h->ctx, "tcore.feat", 2, &ext));
#elif defined(TP_COMP)
  out->name = "tcomp";
  out->ctx = (void *)"tcomp";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  tabi_op mul;
  TRY(find(h, "aten::mul.Tensor", &mul));
  TRY(h->kernel_register(h->ctx, sub, TABI_LAYER_COMPOSITE, k_sub, (void *)h));
  TRY(h->kernel_register(h->ctx, mul, TABI_LAYER_COMPOSITE, k_mul, (void *)h));
  TRY(h->op_register(h->ctx, "myvendor::fused(Tensor self, *, int times=2) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, op, TABI_LAYER_COMPOSITE, k_vendor, (void *)h));
#elif defined(TP_OLDMINOR)
  /* As if built against an older minor whose tabi_plugin ended before
   * device_type: the host must read device_type, ctx and destroy as absent. */
  out->name = "toldminor";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  out->device_type = 99; /* garbage past struct_size: must be ignored */
  out->struct_size = (uint32_t)offsetof(tabi_plugin, device_type);
  TRY(h->op_register(h->ctx, "toldminor::id(Tensor self) -> Tensor", &op));
#elif defined(TP_ABI_NEW)
  out->name = "tabinew";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  out->abi_major = TABI_ABI_VERSION_MAJOR + 1;
#elif defined(TP_ABI_OLD)
  out->name = "tabiold";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  out->abi_major = 0;
  out->abi_minor = 9;
#elif defined(TP_INIT_FAIL)
  out->name = "tinitfail";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  TRY(h->op_register(h->ctx, "tinitfail::x(Tensor self) -> Tensor", &op));
  return TABI_ERR(h, TABI_ERR_UNAVAILABLE, "tinitfail: refusing on purpose (no widget found)");
#elif defined(TP_DUP_SAME)
  out->name = "tdupsame";
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->device_type = kDLCPU;
  TRY(h->op_register(h->ctx, "tdupsame::x(Tensor self) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, add, TABI_LAYER_BACKEND, k_add, (void *)h));
  h->kernel_register(h->ctx, add, TABI_LAYER_BACKEND, k_add, (void *)h); /* ignores the error */
#elif defined(TP_DUP_ACROSS)
  out->name = "tdupacross";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  TRY(h->op_register(h->ctx, "tdupacross::x(Tensor self) -> Tensor", &op));
  TRY(h->kernel_register(h->ctx, sub, TABI_LAYER_COMPOSITE, k_sub, (void *)h));
#elif defined(TP_BAD_SCHEMA)
  out->name = "tbadschema";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  TRY(h->op_register(h->ctx, "tbadschema::x(Tensor self, int[2 k) -> Tensor", &op));
#elif defined(TP_BAD_HANDLE)
  out->name = "tbadhandle";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  TRY(h->kernel_register(h->ctx, 4242, TABI_LAYER_COMPOSITE, k_bad_handle_unused, (void *)h));
#elif defined(TP_CPU2)
  out->name = "tcpu2";
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->device_type = kDLCPU;
#elif defined(TP_NONAME)
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
#elif defined(TP_REF)
  out->name = "tref";
  out->kind = TABI_PLUGIN_KIND_REFERENCE;
  out->device_type = kDLCPU;
  TRY(h->kernel_register(h->ctx, add, TABI_LAYER_BACKEND, k_add, (void *)h));
#elif defined(TP_NOSYM)
  out->name = "tnosym";
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
#else
#error "define a TP_ variant"
#endif
  return TABI_OK;
}
