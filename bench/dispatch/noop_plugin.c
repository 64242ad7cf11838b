/* bench/dispatch/noop_plugin.c: a LIBRARY plugin registering one trivial op,
 * `bench::noop(Tensor(a) self) -> Tensor(a)`, whose composite kernel returns its
 * argument: a call costs the dispatcher and nothing else. */
#include <tabi/tabi.h>

static tabi_status noop_kernel(void *ctx, const tabi_call *call, tabi_value *args,
                               tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call;
  h->tensor_retain(h->ctx, args[0].u.t);
  outs[0] = args[0];
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  out->name = "bench_noop";
  out->version = "0.1.0";
  out->description = "bench::noop, the no-op dispatch benchmark's op";
  tabi_op op;
  tabi_status s = host->op_register(host->ctx, "bench::noop(Tensor(a) self) -> Tensor(a)", &op);
  if (s == TABI_OK) s = host->kernel_register(host->ctx, op, TABI_LAYER_COMPOSITE, noop_kernel,
                                              (void *)host);
  return s;
}
