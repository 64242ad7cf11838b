/* copy.c: element copies between tensors on any devices.
 *
 * Host to host is a strided loop over elements. When a device is involved the
 * elements travel through a contiguous host buffer: gather, then one device copy
 * (or the reverse). Slow but obviously right; device plugins with fast paths
 * register their own copy kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

static int64_t elsize(const tabi_tensor *t) { return (t->dl.dtype.bits * t->dl.dtype.lanes + 7) / 8; }

/* Copies every element of a strided n-d array into another (strides in elements;
 * NULL strides = contiguous). */
static void strided_copy(char *dst, const int64_t *dstr, const char *src, const int64_t *sstr,
                         const int64_t *shape, int32_t ndim, int64_t es) {
  int64_t numel = 1;
  for (int32_t i = 0; i < ndim; i++) numel *= shape[i];
  if (numel == 0) return;
  int64_t idx[TABI_MAX_NDIM] = {0};
  int64_t cstr[TABI_MAX_NDIM];
  int64_t run = 1;
  for (int32_t i = ndim - 1; i >= 0; i--) {
    cstr[i] = run;
    run *= shape[i];
  }
  if (!dstr) dstr = cstr;
  if (!sstr) sstr = cstr;
  int64_t doff = 0, soff = 0;
  for (int64_t n = 0; n < numel; n++) {
    char *d = dst + doff * es;
    const char *s = src + soff * es;
    switch (es) {
      case 1: *d = *s; break;
      case 2: memcpy(d, s, 2); break;
      case 4: memcpy(d, s, 4); break;
      case 8: memcpy(d, s, 8); break;
      default: memcpy(d, s, (size_t)es); break;
    }
    for (int32_t i = ndim - 1; i >= 0; i--) {
      if (++idx[i] < shape[i]) {
        doff += dstr[i];
        soff += sstr[i];
        break;
      }
      doff -= dstr[i] * (shape[i] - 1);
      soff -= sstr[i] * (shape[i] - 1);
      idx[i] = 0;
    }
  }
}

static uint64_t span_bytes(const tabi_tensor *t) {
  int64_t span = 1;
  for (int32_t i = 0; i < t->dl.ndim; i++) span += (t->dl.shape[i] - 1) * t->dl.strides[i];
  return (uint64_t)span * (uint64_t)elsize(t);
}

static tabi_status device_api(tabi_runtime *rt, DLDevice d, const tabi_device_api **out) {
  char buf[48];
  *out = NULL;
  if (d.device_type >= 1 && d.device_type <= TABI_MAX_DEVICE_TYPE)
    *out = atomic_load_explicit(&rt->devices[d.device_type], memory_order_acquire);
  if (!*out)
    return tabi_set_error(TABI_ERR_DEVICE, "tensor copy: no loaded plugin provides device %s",
                          tabi_device_str(rt, d, buf, sizeof buf));
  return TABI_OK;
}

tabi_status tabi_gather_to_host(tabi_runtime *rt, const tabi_tensor *src, void *dst) {
  int64_t es = elsize(src);
  if (tabi_tensor_numel(src) == 0) return TABI_OK;
  if (src->dl.device.device_type == kDLCPU) {
    strided_copy(dst, NULL, tabi_tensor_data(src), src->dl.strides, src->dl.shape, src->dl.ndim, es);
    return TABI_OK;
  }
  const tabi_device_api *api;
  tabi_status st = device_api(rt, src->dl.device, &api);
  if (st != TABI_OK) return st;
  DLDevice host = {kDLCPU, 0};
  if (tabi_tensor_is_contiguous(src))
    return api->copy(api->ctx, dst, host, tabi_tensor_data(src), src->dl.device,
                     (uint64_t)tabi_tensor_numel(src) * (uint64_t)es, NULL);
  uint64_t span = span_bytes(src);
  char *tmp = malloc((size_t)span);
  if (!tmp) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "tensor copy: out of memory");
  st = api->copy(api->ctx, tmp, host, tabi_tensor_data(src), src->dl.device, span, NULL);
  if (st == TABI_OK) strided_copy(dst, NULL, tmp, src->dl.strides, src->dl.shape, src->dl.ndim, es);
  free(tmp);
  return st;
}

tabi_status tabi_scatter_from_host(tabi_runtime *rt, tabi_tensor *dst, const void *src) {
  int64_t es = elsize(dst);
  if (tabi_tensor_numel(dst) == 0) return TABI_OK;
  if (dst->dl.device.device_type == kDLCPU) {
    strided_copy(tabi_tensor_data(dst), dst->dl.strides, src, NULL, dst->dl.shape, dst->dl.ndim, es);
    return TABI_OK;
  }
  const tabi_device_api *api;
  tabi_status st = device_api(rt, dst->dl.device, &api);
  if (st != TABI_OK) return st;
  DLDevice host = {kDLCPU, 0};
  if (tabi_tensor_is_contiguous(dst))
    return api->copy(api->ctx, tabi_tensor_data(dst), dst->dl.device, src, host,
                     (uint64_t)tabi_tensor_numel(dst) * (uint64_t)es, NULL);
  /* Read-modify-write the span so bytes between the elements stay as they were. */
  uint64_t span = span_bytes(dst);
  char *tmp = malloc((size_t)span);
  if (!tmp) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "tensor copy: out of memory");
  st = api->copy(api->ctx, tmp, host, tabi_tensor_data(dst), dst->dl.device, span, NULL);
  if (st == TABI_OK) {
    strided_copy(tmp, dst->dl.strides, src, NULL, dst->dl.shape, dst->dl.ndim, es);
    st = api->copy(api->ctx, tabi_tensor_data(dst), dst->dl.device, tmp, host, span, NULL);
  }
  free(tmp);
  return st;
}

tabi_status tabi_tensor_copy_impl(tabi_runtime *rt, tabi_tensor *dst, const tabi_tensor *src) {
  const char *who = "tensor_copy";
  if (!dst || !src)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: NULL %s", who, !dst ? "dst" : "src");
  if (dst->flags & TABI_TENSOR_READ_ONLY)
    return tabi_set_error(TABI_ERR_READ_ONLY, "%s: dst is read-only", who);
  if (dst->dl.dtype.code != src->dl.dtype.code || dst->dl.dtype.bits != src->dl.dtype.bits ||
      dst->dl.dtype.lanes != src->dl.dtype.lanes)
    return tabi_set_error(TABI_ERR_TYPE, "%s: dst is %s but src is %s", who,
                          tabi_dtype_name(tabi_tensor_dtype(dst)),
                          tabi_dtype_name(tabi_tensor_dtype(src)));
  if (dst->dl.ndim != src->dl.ndim)
    return tabi_set_error(TABI_ERR_SHAPE, "%s: dst has %d dims but src has %d", who,
                          (int)dst->dl.ndim, (int)src->dl.ndim);
  for (int32_t i = 0; i < dst->dl.ndim; i++)
    if (dst->dl.shape[i] != src->dl.shape[i])
      return tabi_set_error(TABI_ERR_SHAPE, "%s: dim %d is %lld in dst but %lld in src", who,
                            (int)i, (long long)dst->dl.shape[i], (long long)src->dl.shape[i]);
  int64_t es = elsize(dst);
  if (dst->dl.device.device_type == kDLCPU && src->dl.device.device_type == kDLCPU) {
    strided_copy(tabi_tensor_data(dst), dst->dl.strides, tabi_tensor_data(src), src->dl.strides,
                 dst->dl.shape, dst->dl.ndim, es);
    return TABI_OK;
  }
  uint64_t n = (uint64_t)tabi_tensor_numel(dst) * (uint64_t)es;
  if (n == 0) return TABI_OK;
  /* Same device, both contiguous: one device copy, no trip through the host. */
  if (dst->dl.device.device_type == src->dl.device.device_type &&
      dst->dl.device.device_id == src->dl.device.device_id && tabi_tensor_is_contiguous(dst) &&
      tabi_tensor_is_contiguous(src)) {
    const tabi_device_api *api;
    tabi_status st = device_api(rt, dst->dl.device, &api);
    if (st != TABI_OK) return st;
    return api->copy(api->ctx, tabi_tensor_data(dst), dst->dl.device, tabi_tensor_data(src),
                     src->dl.device, n, NULL);
  }
  char *tmp = malloc((size_t)n);
  if (!tmp) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
  tabi_status st = tabi_gather_to_host(rt, src, tmp);
  if (st == TABI_OK) st = tabi_scatter_from_host(rt, dst, tmp);
  free(tmp);
  return st;
}
