/* tests/conform/nodev_plugin.c: a device plugin whose device is absent.
 *
 * Registers a kernel for aten::add.Tensor on its own device type (kDLExtDev) and
 * a device table reporting zero devices, like a GPU plugin on a machine without
 * the GPU. `tabi conform` must report every op and device group skipped ("no
 * nodev device present"), never failed.
 */
#include <string.h>

#include <tabi/tabi.h>

static tabi_status nd_count(void *ctx, int32_t *out) { (void)ctx; *out = 0; return TABI_OK; }
static tabi_status nd_props(void *ctx, int32_t index, tabi_device_props *p) {
  (void)ctx; (void)index; (void)p;
  return TABI_ERR_DEVICE;
}
static tabi_status nd_alloc(void *ctx, int32_t index, uint64_t n, void **out) {
  (void)ctx; (void)index; (void)n; *out = NULL;
  return TABI_ERR_DEVICE;
}
static tabi_status nd_free(void *ctx, int32_t index, void *p) { (void)ctx; (void)index; (void)p; return TABI_ERR_DEVICE; }
static tabi_status nd_copy(void *ctx, void *dst, DLDevice dd, const void *src, DLDevice sd, uint64_t n,
                           tabi_stream s) {
  (void)ctx; (void)dst; (void)dd; (void)src; (void)sd; (void)n; (void)s;
  return TABI_ERR_DEVICE;
}
static tabi_status nd_sync(void *ctx, int32_t index) { (void)ctx; (void)index; return TABI_ERR_DEVICE; }

static tabi_status nd_add(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  (void)call; (void)args; (void)outs;
  return TABI_ERR(h, TABI_ERR_DEVICE, "aten::add.Tensor: no nodev device present");
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);
TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "nodev";
  out->version = "0.0.1";
  out->description = "test: a device plugin whose device is absent";
  out->device_type = kDLExtDev;
  tabi_device_api d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.device_type = kDLExtDev;
  d.name = "nodev";
  d.count = nd_count;
  d.properties = nd_props;
  d.alloc = nd_alloc;
  d.free = nd_free;
  d.copy = nd_copy;
  d.synchronize = nd_sync;
  tabi_status st = host->device_register(host->ctx, &d);
  if (st != TABI_OK) return st;
  tabi_op op;
  st = host->op_find(host->ctx, "aten::add.Tensor", &op);
  if (st != TABI_OK) return st;
  return host->kernel_register(host->ctx, op, TABI_LAYER_BACKEND, nd_add, (void *)host);
}
