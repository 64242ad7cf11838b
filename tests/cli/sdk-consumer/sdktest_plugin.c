/* sdktest: a LIBRARY plugin built out of tree against the installed SDK. It adds
 * the op sdktest::twice(Tensor self) -> Tensor, as a composite kernel that calls
 * aten::add.Tensor(self, self), so every backend with add serves it. */
#include <tabi/tabi.h>

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

static tabi_status twice(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *host = ctx;
  tabi_op add; /* looked up per call: a plugin keeps no global mutable state */
  (void)call;
  if (host->op_find(host->ctx, "aten::add.Tensor", &add) != TABI_OK)
    return TABI_ERR(host, TABI_ERR_NOT_FOUND, "sdktest::twice: no aten::add.Tensor");
  tabi_value a[2] = {args[0], args[0]};
  return host->call(host->ctx, add, a, 2, outs, 1);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_LIBRARY;
  out->name = "sdktest";
  out->version = "0.0.1";
  out->description = "out-of-tree test plugin: sdktest::twice";
  tabi_op op;
  tabi_status st = host->op_register(host->ctx, "sdktest::twice(Tensor self) -> Tensor", &op);
  if (st != TABI_OK) return st;
  return host->kernel_register(host->ctx, op, TABI_LAYER_COMPOSITE, twice, (void *)host);
}
