/* error.c: the thread-local error message, status names, small string helpers.
 *
 * One fixed buffer per thread, shared by every runtime in the thread, so setting
 * an error never allocates (it happens on hot failure paths and in low memory).
 * A sequence number lets the dispatcher notice a kernel that failed without
 * saying why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define TABI_ERROR_BUF 1024

static _Thread_local char err_buf[TABI_ERROR_BUF];
static _Thread_local uint32_t err_seq;

tabi_status tabi_set_error_v(tabi_status st, const char *fmt, va_list ap) {
  /* Format into a scratch buffer first: callers may pass tabi_last_error()
   * itself as an argument (to prefix it), which would overlap err_buf. */
  char tmp[TABI_ERROR_BUF];
  vsnprintf(tmp, sizeof tmp, fmt ? fmt : "", ap);
  memcpy(err_buf, tmp, sizeof tmp);
  err_seq++;
  return st;
}

tabi_status tabi_set_error(tabi_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tabi_set_error_v(st, fmt, ap);
  va_end(ap);
  return st;
}

uint32_t tabi_error_seq(void) { return err_seq; }

void tabi_error_save(tabi_error_saved *s) {
  memcpy(s->msg, err_buf, sizeof s->msg);
  s->seq = err_seq;
}

void tabi_error_restore(const tabi_error_saved *s) {
  memcpy(err_buf, s->msg, sizeof s->msg);
  err_seq = s->seq;
}

TABI_API const char *tabi_last_error(void) { return err_buf; }

TABI_API void tabi_clear_error(void) { err_buf[0] = 0; }

TABI_API const char *tabi_status_name(tabi_status status) {
  static const char *const names[TABI_STATUS_COUNT] = {
      "TABI_OK",           "TABI_ERR_INVALID_ARGUMENT", "TABI_ERR_OUT_OF_MEMORY",
      "TABI_ERR_NOT_FOUND", "TABI_ERR_UNIMPLEMENTED",   "TABI_ERR_ABI_MISMATCH",
      "TABI_ERR_ALREADY_EXISTS", "TABI_ERR_TYPE",       "TABI_ERR_SHAPE",
      "TABI_ERR_INDEX",    "TABI_ERR_DEVICE",           "TABI_ERR_NONDETERMINISTIC",
      "TABI_ERR_PARSE",    "TABI_ERR_PLUGIN",           "TABI_ERR_INTERNAL",
      "TABI_ERR_UNAVAILABLE", "TABI_ERR_READ_ONLY"};
  if (status < 0 || status >= TABI_STATUS_COUNT) return "TABI_ERR_UNKNOWN";
  return names[status];
}

const char *tabi_device_type_name(const tabi_runtime *rt, int32_t device_type) {
  if (rt && device_type >= 1 && device_type <= TABI_MAX_DEVICE_TYPE) {
    const tabi_device_api *api =
        atomic_load_explicit(&((tabi_runtime *)rt)->devices[device_type], memory_order_acquire);
    if (api && api->name && api->name[0]) return api->name;
  }
  switch (device_type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLVPI: return "vpi";
    case kDLROCM: return "rocm";
    case kDLROCMHost: return "rocm_host";
    case kDLExtDev: return "extdev";
    case kDLCUDAManaged: return "cuda_managed";
    case 14: return "oneapi";
    case 15: return "webgpu";
    case 16: return "hexagon";
    default: return "unknown";
  }
}

const char *tabi_device_str(const tabi_runtime *rt, DLDevice d, char *buf, size_t n) {
  const char *name = tabi_device_type_name(rt, d.device_type);
  if (d.device_type == kDLCPU && d.device_id == 0)
    snprintf(buf, n, "%s", name);
  else if (strcmp(name, "unknown") == 0)
    snprintf(buf, n, "device type %d:%d", (int)d.device_type, (int)d.device_id);
  else
    snprintf(buf, n, "%s:%d", name, (int)d.device_id);
  return buf;
}

const char *tabi_tag_name(int32_t tag) {
  static const char *const names[TABI_TAG_COUNT] = {
      "None", "bool", "int", "float", "complex", "Tensor", "int list",
      "float list", "bool list", "Tensor list", "ScalarType", "Device", "str", "default"};
  if (tag < 0 || tag >= TABI_TAG_COUNT) return "invalid tag";
  return names[tag];
}

char *tabi_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}
