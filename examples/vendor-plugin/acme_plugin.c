/* acme_plugin.c: the entry point and the element helpers the kernels share.
 *
 * tabi_plugin_init is the one exported symbol: it checks the host's ABI major,
 * describes the plugin, registers the device table and every kernel. Kernels
 * are registered with kernel_ctx = the host table: the plugin keeps no global
 * state, so it can be loaded into several runtimes in one process.
 */
#include <string.h>

#include "acme.h"

const char *acme_op_name(const tabi_host_api *h, const tabi_call *call) {
  const tabi_op_info *info = h->op_info(h->ctx, call->op);
  return info ? info->name : "acme";
}

int acme_dtype_ok(tabi_dtype d) {
  return d == TABI_DTYPE_BOOL || tabi_dtype_is_integral(d, 0) || d == TABI_DTYPE_FLOAT32 ||
         d == TABI_DTYPE_FLOAT64;
}

tabi_status acme_check(const tabi_host_api *h, const tabi_call *call, const char *arg,
                       const tabi_tensor *t) {
  if (!acme_dtype_ok(tabi_tensor_dtype(t)))
    return TABI_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; acme supports bool, the "
                    "integers, float32 and float64", acme_op_name(h, call), arg,
                    tabi_dtype_name(tabi_tensor_dtype(t)));
  return TABI_OK;
}

double acme_get(const tabi_tensor *t, int64_t off) {
  const char *p = tabi_tensor_data(t);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: return ((const uint8_t *)p)[off] != 0;
    case TABI_DTYPE_UINT8: return ((const uint8_t *)p)[off];
    case TABI_DTYPE_INT8: return ((const int8_t *)p)[off];
    case TABI_DTYPE_INT16: return ((const int16_t *)p)[off];
    case TABI_DTYPE_INT32: return ((const int32_t *)p)[off];
    case TABI_DTYPE_INT64: return (double)((const int64_t *)p)[off];
    case TABI_DTYPE_FLOAT32: return ((const float *)p)[off];
    case TABI_DTYPE_FLOAT64: return ((const double *)p)[off];
    default: return 0.0;
  }
}

int64_t acme_get_i(const tabi_tensor *t, int64_t off) {
  if (tabi_tensor_dtype(t) == TABI_DTYPE_INT64) return ((const int64_t *)tabi_tensor_data(t))[off];
  return (int64_t)acme_get(t, off);
}

void acme_set(tabi_tensor *t, int64_t off, double v) {
  char *p = tabi_tensor_data(t);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_FLOAT32: ((float *)p)[off] = (float)v; break;
    case TABI_DTYPE_FLOAT64: ((double *)p)[off] = v; break;
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[off] = v != 0; break;
    default: acme_set_i(t, off, v != v ? 0 : (int64_t)v); break;
  }
}

void acme_set_i(tabi_tensor *t, int64_t off, int64_t v) {
  char *p = tabi_tensor_data(t);
  switch (tabi_tensor_dtype(t)) {
    case TABI_DTYPE_BOOL: ((uint8_t *)p)[off] = v != 0; break;
    case TABI_DTYPE_UINT8: ((uint8_t *)p)[off] = (uint8_t)v; break;
    case TABI_DTYPE_INT8: ((int8_t *)p)[off] = (int8_t)v; break;
    case TABI_DTYPE_INT16: ((int16_t *)p)[off] = (int16_t)v; break;
    case TABI_DTYPE_INT32: ((int32_t *)p)[off] = (int32_t)v; break;
    case TABI_DTYPE_INT64: ((int64_t *)p)[off] = v; break;
    default: acme_set(t, off, (double)v); break;
  }
}

int64_t acme_offset(const tabi_tensor *t, int64_t linear) {
  int64_t off = 0;
  for (int32_t d = t->dl.ndim - 1; d >= 0; d--) {
    int64_t size = t->dl.shape[d] > 0 ? t->dl.shape[d] : 1;
    off += (linear % size) * t->dl.strides[d];
    linear /= size;
  }
  return off;
}

tabi_status acme_empty_like(const tabi_host_api *h, const tabi_tensor *t, tabi_dtype d,
                            int32_t ndim, const int64_t *shape, tabi_tensor **out) {
  return h->tensor_empty(h->ctx, t->dl.device, d, ndim, shape, out);
}

static tabi_status register_table(const tabi_host_api *host, const acme_kernel *k) {
  for (; k->op; k++) {
    tabi_op op;
    tabi_status st = host->op_find(host->ctx, k->op, &op);
    if (st != TABI_OK) return st;
    st = host->kernel_register(host->ctx, op, TABI_LAYER_BACKEND, k->fn, (void *)host);
    if (st != TABI_OK) return st;
  }
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out); /* refuses a host of another ABI major */
  out->kind = TABI_PLUGIN_KIND_DEVICE;
  out->name = "acme";
  out->version = "1.0.0";
  out->description = "ACME pretend accelerator: prims on host memory (tabi example plugin)";
  out->device_type = ACME_DEVICE_TYPE;
  tabi_status st = acme_device_register(host);
  if (st == TABI_OK) st = register_table(host, acme_elementwise_kernels);
  if (st == TABI_OK) st = register_table(host, acme_shape_kernels);
  return st;
}
