/* host_api.c: the tabi_host_api table each plugin gets.
 *
 * One table per loaded plugin (and one for the framework side, from
 * tabi_runtime_host), whose ctx is the plugin's record: every slot knows which
 * runtime it serves and, for registrations, which plugin is registering.
 */
#include <stdio.h>
#include <string.h>

#include "allocator.h"
#include "dispatch.h"
#include "loader.h"
#include "tensor.h"

#define REC(ctx) ((plugin_rec *)(ctx))
#define RT(ctx) (REC(ctx)->rt)

static tabi_status h_set_error(void *ctx, tabi_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tabi_set_error_v(st, fmt, ap);
  va_end(ap);
  return st;
}

static const char *h_last_error(void *ctx) { return tabi_last_error(); }

static tabi_status h_tensor_empty(void *ctx, DLDevice device, tabi_dtype dtype, int32_t ndim,
                                  const int64_t *shape, tabi_tensor **out) {
  return tabi_tensor_empty_impl(RT(ctx), device, dtype, ndim, shape, NULL, "tensor_empty", out);
}

static tabi_status h_tensor_empty_strided(void *ctx, DLDevice device, tabi_dtype dtype,
                                          int32_t ndim, const int64_t *shape,
                                          const int64_t *strides, tabi_tensor **out) {
  if (ndim > 0 && !strides)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tensor_empty_strided: NULL strides");
  return tabi_tensor_empty_impl(RT(ctx), device, dtype, ndim, shape, strides,
                                "tensor_empty_strided", out);
}

static tabi_status h_tensor_view(void *ctx, tabi_tensor *base, int32_t ndim, const int64_t *shape,
                                 const int64_t *strides, int64_t byte_offset, tabi_tensor **out) {
  return tabi_tensor_view_impl(base, ndim, shape, strides, byte_offset, "tensor_view", out);
}

static void h_tensor_retain(void *ctx, tabi_tensor *t) { tabi_tensor_retain(t); }
static void h_tensor_release(void *ctx, tabi_tensor *t) { tabi_tensor_release(t); }
static uint64_t h_storage_nbytes(void *ctx, const tabi_tensor *t) { return tabi_tensor_storage_nbytes(t); }
static uint64_t h_storage_id(void *ctx, const tabi_tensor *t) { return tabi_tensor_storage_id(t); }

static tabi_status h_tensor_resize(void *ctx, tabi_tensor *t, int32_t ndim, const int64_t *shape) {
  return tabi_tensor_resize_impl(t, ndim, shape);
}

static tabi_status h_tensor_set_keys(void *ctx, tabi_tensor *t, uint64_t keys) {
  return tabi_tensor_set_keys_impl(t, keys);
}

static tabi_status h_slot_declare(void *ctx, int32_t *out) { return tabi_stage_slot(REC(ctx), out); }
static void *h_slot_get(void *ctx, const tabi_tensor *t, int32_t slot) { return tabi_slot_get_impl(t, slot); }
static tabi_status h_slot_set(void *ctx, tabi_tensor *t, int32_t slot, void *v, tabi_slot_dtor_fn d) {
  return tabi_slot_set_impl(t, slot, v, d);
}

static tabi_status h_tensor_copy(void *ctx, tabi_tensor *dst, const tabi_tensor *src) {
  return tabi_tensor_copy_impl(RT(ctx), dst, src);
}

static tabi_status h_list_alloc(void *ctx, int64_t n, tabi_tensor ***out) {
  return tabi_list_alloc_impl(n, out);
}

static void h_value_release(void *ctx, tabi_value *v) { tabi_value_release_impl(v); }

static tabi_status h_op_find(void *ctx, const char *name, tabi_op *out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "op_find: NULL out_op");
  return tabi_op_find_for(REC(ctx), name, out);
}

static const tabi_op_info *h_op_info(void *ctx, tabi_op op) { return tabi_op_info_for(REC(ctx), op); }

static tabi_status h_call(void *ctx, tabi_op op, tabi_value *args, int32_t nargs, tabi_value *outs,
                          int32_t nouts) {
  return tabi_dispatch_call(RT(ctx), op, args, nargs, outs, nouts);
}

static tabi_status h_redispatch(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return tabi_dispatch_redispatch(call, args, outs);
}

static tabi_status h_op_register(void *ctx, const char *schema, tabi_op *out) {
  return tabi_stage_op_register(REC(ctx), schema, out);
}

static tabi_status h_layer_declare(void *ctx, const char *name, int32_t priority, uint64_t *out) {
  return tabi_stage_layer(REC(ctx), name, priority, out);
}

static tabi_status h_kernel_register(void *ctx, tabi_op op, int64_t layer, tabi_kernel_fn fn, void *kctx) {
  return tabi_stage_kernel(REC(ctx), op, layer, fn, kctx);
}

static tabi_status h_fallback_register(void *ctx, int64_t layer, tabi_kernel_fn fn, void *kctx) {
  return tabi_stage_fallback(REC(ctx), layer, fn, kctx);
}

static tabi_status h_device_register(void *ctx, const tabi_device_api *api) {
  return tabi_stage_device(REC(ctx), api);
}

static tabi_status h_extension_register(void *ctx, const char *name, uint32_t version, const void *t) {
  return tabi_stage_extension(REC(ctx), name, version, t);
}

static tabi_status h_extension_get(void *ctx, const char *name, uint32_t min_version, const void **out) {
  return tabi_runtime_extension(RT(ctx), name, min_version, out);
}

static uint64_t h_tls_get(void *ctx, int32_t which) { return tabi_tls_get(RT(ctx), which); }
static uint64_t h_tls_set(void *ctx, int32_t which, uint64_t keys) { return tabi_tls_set(RT(ctx), which, keys); }

static int32_t h_deterministic(void *ctx) {
  return atomic_load_explicit(&RT(ctx)->deterministic, memory_order_relaxed);
}

static tabi_status h_rng_reserve(void *ctx, DLDevice device, uint64_t n, uint64_t *out_seed,
                                 uint64_t *out_offset) {
  dev_state *ds;
  if (!out_seed || !out_offset)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "rng_reserve: NULL out_seed or out_offset");
  tabi_status st = tabi_devstate_get(RT(ctx), device, "rng_reserve", &ds);
  if (st != TABI_OK) return st;
  *out_seed = atomic_load_explicit(&ds->rng_seed, memory_order_relaxed);
  *out_offset = atomic_fetch_add_explicit(&ds->rng_offset, n, memory_order_relaxed);
  return TABI_OK;
}

static tabi_status h_device_get(void *ctx, int32_t device_type, const tabi_device_api **out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "device_get: NULL out_device");
  *out = NULL;
  if (device_type >= 1 && device_type <= TABI_MAX_DEVICE_TYPE)
    *out = atomic_load_explicit(&RT(ctx)->devices[device_type], memory_order_acquire);
  if (!*out)
    return tabi_set_error(TABI_ERR_NOT_FOUND, "device_get: no loaded plugin provides device type %s",
                          tabi_device_type_name(RT(ctx), device_type));
  return TABI_OK;
}

static tabi_status h_memory_stats(void *ctx, DLDevice device, tabi_memory_stats *out) {
  return tabi_runtime_memory_stats(RT(ctx), device, out);
}

static tabi_status h_memory_hook_add(void *ctx, tabi_memory_hook_fn fn, void *user, int32_t *out_id) {
  tabi_runtime *rt = RT(ctx);
  if (!fn || !out_id)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "memory_hook_add: NULL %s", !fn ? "fn" : "out_id");
  pthread_mutex_lock(&rt->lock);
  for (int32_t i = 0; i < TABI_MAX_HOOKS; i++) {
    if (atomic_load_explicit(&rt->hooks[i].fn, memory_order_relaxed)) continue;
    atomic_store_explicit(&rt->hooks[i].user, user, memory_order_relaxed);
    atomic_store_explicit(&rt->hooks[i].fn, fn, memory_order_release);
    atomic_fetch_add_explicit(&rt->nhooks, 1, memory_order_release);
    pthread_mutex_unlock(&rt->lock);
    *out_id = i;
    return TABI_OK;
  }
  pthread_mutex_unlock(&rt->lock);
  return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "memory_hook_add: all %d hooks are taken", TABI_MAX_HOOKS);
}

static tabi_status h_memory_hook_remove(void *ctx, int32_t id) {
  tabi_runtime *rt = RT(ctx);
  if (id < 0 || id >= TABI_MAX_HOOKS)
    return tabi_set_error(TABI_ERR_NOT_FOUND, "memory_hook_remove: no hook %d", (int)id);
  pthread_mutex_lock(&rt->lock);
  tabi_memory_hook_fn fn = atomic_exchange_explicit(&rt->hooks[id].fn, NULL, memory_order_acq_rel);
  if (fn) atomic_fetch_sub_explicit(&rt->nhooks, 1, memory_order_release);
  pthread_mutex_unlock(&rt->lock);
  if (!fn) return tabi_set_error(TABI_ERR_NOT_FOUND, "memory_hook_remove: no hook %d", (int)id);
  return TABI_OK;
}

void tabi_host_api_fill(plugin_rec *rec) {
  tabi_host_api *h = &rec->host;
  memset(h, 0, sizeof *h);
  h->struct_size = sizeof *h;
  h->abi_major = TABI_ABI_VERSION_MAJOR;
  h->abi_minor = TABI_ABI_VERSION_MINOR;
  h->ctx = rec;
  h->set_error = h_set_error;
  h->last_error = h_last_error;
  h->tensor_empty = h_tensor_empty;
  h->tensor_empty_strided = h_tensor_empty_strided;
  h->tensor_view = h_tensor_view;
  h->tensor_retain = h_tensor_retain;
  h->tensor_release = h_tensor_release;
  h->tensor_storage_nbytes = h_storage_nbytes;
  h->tensor_storage_id = h_storage_id;
  h->tensor_resize = h_tensor_resize;
  h->tensor_set_keys = h_tensor_set_keys;
  h->slot_declare = h_slot_declare;
  h->slot_get = h_slot_get;
  h->slot_set = h_slot_set;
  h->tensor_copy = h_tensor_copy;
  h->list_alloc = h_list_alloc;
  h->value_release = h_value_release;
  h->op_find = h_op_find;
  h->op_info = h_op_info;
  h->call = h_call;
  h->redispatch = h_redispatch;
  h->op_register = h_op_register;
  h->layer_declare = h_layer_declare;
  h->kernel_register = h_kernel_register;
  h->fallback_register = h_fallback_register;
  h->device_register = h_device_register;
  h->extension_register = h_extension_register;
  h->extension_get = h_extension_get;
  h->tls_get = h_tls_get;
  h->tls_set = h_tls_set;
  h->deterministic = h_deterministic;
  h->rng_reserve = h_rng_reserve;
  h->device_get = h_device_get;
  h->memory_stats = h_memory_stats;
  h->memory_hook_add = h_memory_hook_add;
  h->memory_hook_remove = h_memory_hook_remove;
}
