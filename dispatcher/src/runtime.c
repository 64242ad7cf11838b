/* runtime.c: runtime lifetime, plugin info, modes, devices and memory, RNG seeds. */
#include <stdlib.h>
#include <string.h>

#include "allocator.h"
#include "dispatch.h"
#include "host_device.h"
#include "loader.h"
#include "registry.h"

static _Atomic uint64_t next_runtime_id = 1;

static void runtime_free(tabi_runtime *rt) {
  for (int t = 0; t <= TABI_MAX_DEVICE_TYPE; t++)
    for (int i = 0; i < TABI_MAX_DEVICE_INDEX; i++)
      tabi_devstate_destroy(atomic_load_explicit(&rt->devstates[t][i], memory_order_relaxed));
  for (int t = 0; t <= TABI_MAX_DEVICE_TYPE; t++) free(rt->device_copies[t]);
  pthread_mutex_destroy(&rt->lock);
  pthread_mutex_destroy(&rt->load_lock);
  free(rt);
}

void tabi_runtime_unref(tabi_runtime *rt) {
  if (atomic_fetch_sub_explicit(&rt->refs, 1, memory_order_acq_rel) == 1) runtime_free(rt);
}

TABI_API tabi_status tabi_runtime_create(const tabi_runtime_options *options, tabi_runtime **out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_create: NULL out_runtime");
  *out = NULL;
  tabi_runtime *rt = calloc(1, sizeof *rt);
  if (!rt) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "tabi_runtime_create: out of memory");
  rt->id = atomic_fetch_add_explicit(&next_runtime_id, 1, memory_order_relaxed);
  if (options && options->struct_size >= offsetof(tabi_runtime_options, flags) + sizeof(uint32_t))
    rt->flags = options->flags;
  atomic_init(&rt->refs, 1);
  pthread_mutex_init(&rt->lock, NULL);
  pthread_mutex_init(&rt->load_lock, NULL);
  rt->framework.rt = rt;
  rt->framework.state = PLUGIN_FRAMEWORK;
  rt->framework.index = -1;
  tabi_host_api_fill(&rt->framework);

  tabi_device_api *cpu = calloc(1, sizeof *cpu);
  if (!cpu) {
    runtime_free(rt);
    return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "tabi_runtime_create: out of memory");
  }
  tabi_host_device_fill(cpu);
  rt->device_copies[kDLCPU] = cpu;
  atomic_store_explicit(&rt->devices[kDLCPU], cpu, memory_order_release);
  DLDevice host = {kDLCPU, 0};
  tabi_status st = tabi_devstate_get(rt, host, "tabi_runtime_create", &rt->cpu);
  if (st == TABI_OK) {
    pthread_mutex_lock(&rt->lock);
    st = tabi_registry_init(rt);
    pthread_mutex_unlock(&rt->lock);
  }
  if (st != TABI_OK) {
    tabi_registry_destroy(rt);
    runtime_free(rt);
    return st;
  }
  *out = rt;
  return TABI_OK;
}

TABI_API void tabi_runtime_destroy(tabi_runtime *rt) {
  if (!rt) return;
  /* Return cached blocks while the device plugins are still there to free them. */
  for (int t = 0; t <= TABI_MAX_DEVICE_TYPE; t++)
    for (int i = 0; i < TABI_MAX_DEVICE_INDEX; i++) {
      dev_state *ds = atomic_load_explicit(&rt->devstates[t][i], memory_order_relaxed);
      if (ds) tabi_empty_cache(ds);
    }
  tabi_loader_unload_all(rt);
  atomic_store_explicit(&rt->dead, 1, memory_order_release);
  tabi_registry_destroy(rt);
  for (int l = 0; l < TABI_NUM_LAYERS; l++) free(rt->layers[l].name);
  extension_rec *x = rt->extensions;
  while (x) {
    extension_rec *n = x->next;
    free(x->name);
    free(x);
    x = n;
  }
  rt->extensions = NULL;
  int32_t n = atomic_load_explicit(&rt->nplugins, memory_order_relaxed);
  for (int32_t i = 0; i < n; i++) {
    plugin_rec *rec = rt->plugins[i];
    free(rec->path);
    free(rec->name);
    free(rec->version);
    free(rec->description);
    free(rec);
  }
  atomic_store_explicit(&rt->nplugins, 0, memory_order_relaxed);
  tabi_runtime_unref(rt);
}

TABI_API int32_t tabi_runtime_plugin_count(const tabi_runtime *rt) {
  return rt ? atomic_load_explicit(&((tabi_runtime *)rt)->nplugins, memory_order_acquire) : 0;
}

TABI_API tabi_status tabi_runtime_plugin_info(const tabi_runtime *crt, int32_t index,
                                              tabi_plugin_info *out) {
  tabi_runtime *rt = (tabi_runtime *)crt;
  if (!rt || !out)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_plugin_info: NULL %s",
                          !rt ? "runtime" : "out_info");
  int32_t n = atomic_load_explicit(&rt->nplugins, memory_order_acquire);
  if (index < 0 || index >= n)
    return tabi_set_error(TABI_ERR_NOT_FOUND, "tabi_runtime_plugin_info: no plugin %d (%d loaded)",
                          (int)index, (int)n);
  const plugin_rec *r = rt->plugins[index];
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  out->kind = r->plugin.kind;
  out->name = r->name;
  out->version = r->version;
  out->description = r->description;
  out->path = r->path;
  out->abi_major = r->plugin.abi_major;
  out->abi_minor = r->plugin.abi_minor;
  out->abi_minor_in_effect = r->abi_minor_in_effect;
  out->device_type = r->plugin.device_type;
  out->layer_priority = r->layer_priority;
  out->kernels = r->kernels;
  out->ops_registered = r->ops_registered;
  return TABI_OK;
}

TABI_API tabi_status tabi_runtime_plugin_find(const tabi_runtime *crt, const char *name,
                                              int32_t *out_index) {
  tabi_runtime *rt = (tabi_runtime *)crt;
  if (out_index) *out_index = -1;
  if (!rt || !name || !out_index)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_plugin_find: NULL argument");
  int32_t n = atomic_load_explicit(&rt->nplugins, memory_order_acquire);
  for (int32_t i = 0; i < n; i++)
    if (strcmp(rt->plugins[i]->name, name) == 0) {
      *out_index = i;
      return TABI_OK;
    }
  return tabi_set_error(TABI_ERR_NOT_FOUND, "tabi_runtime_plugin_find: no plugin named '%s' is loaded", name);
}

TABI_API int32_t tabi_runtime_set_deterministic(tabi_runtime *rt, int32_t on) {
  if (!rt) return 0;
  return atomic_exchange_explicit(&rt->deterministic, on != 0, memory_order_relaxed);
}

TABI_API int32_t tabi_runtime_deterministic(const tabi_runtime *rt) {
  return rt ? atomic_load_explicit(&((tabi_runtime *)rt)->deterministic, memory_order_relaxed) : 0;
}

TABI_API tabi_status tabi_runtime_manual_seed(tabi_runtime *rt, DLDevice device, uint64_t seed) {
  if (!rt) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_manual_seed: NULL runtime");
  dev_state *ds;
  tabi_status st = tabi_devstate_get(rt, device, "tabi_runtime_manual_seed", &ds);
  if (st != TABI_OK) return st;
  atomic_store_explicit(&ds->rng_seed, seed, memory_order_relaxed);
  atomic_store_explicit(&ds->rng_offset, 0, memory_order_relaxed);
  return TABI_OK;
}

TABI_API uint64_t tabi_runtime_tls_get(tabi_runtime *rt, int32_t which) { return tabi_tls_get(rt, which); }

TABI_API uint64_t tabi_runtime_tls_set(tabi_runtime *rt, int32_t which, uint64_t keys) {
  return tabi_tls_set(rt, which, keys);
}

TABI_API tabi_status tabi_runtime_extension(tabi_runtime *rt, const char *name, uint32_t min_version,
                                            const void **out) {
  if (out) *out = NULL;
  if (!rt || !name || !out)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "extension_get: NULL argument");
  const void *found = NULL;
  uint32_t have = 0;
  int exists = 0;
  pthread_mutex_lock(&rt->lock);
  for (extension_rec *x = rt->extensions; x; x = x->next) {
    if (strcmp(x->name, name) != 0) continue;
    exists = 1;
    have = x->version;
    if (x->version >= min_version) found = x->table;
  }
  pthread_mutex_unlock(&rt->lock);
  if (!found) {
    if (exists)
      return tabi_set_error(TABI_ERR_NOT_FOUND, "extension '%s': version %u is loaded, %u wanted",
                            name, have, min_version);
    return tabi_set_error(TABI_ERR_NOT_FOUND, "extension '%s' is not registered by any loaded plugin", name);
  }
  *out = found;
  return TABI_OK;
}

TABI_API const tabi_host_api *tabi_runtime_host(tabi_runtime *rt) { return rt ? &rt->framework.host : NULL; }

TABI_API tabi_status tabi_runtime_device_count(tabi_runtime *rt, int32_t device_type, int32_t *out) {
  if (!rt || !out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_device_count: NULL argument");
  *out = 0;
  if (device_type < 1 || device_type > TABI_MAX_DEVICE_TYPE)
    return tabi_set_error(TABI_ERR_DEVICE, "tabi_runtime_device_count: device type %d out of range",
                          (int)device_type);
  const tabi_device_api *api = atomic_load_explicit(&rt->devices[device_type], memory_order_acquire);
  if (!api) return TABI_OK; /* no plugin: no devices, not an error */
  return api->count(api->ctx, out);
}

TABI_API tabi_status tabi_runtime_memory_stats(tabi_runtime *rt, DLDevice device, tabi_memory_stats *out) {
  if (!rt || !out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "memory_stats: NULL argument");
  dev_state *ds;
  tabi_status st = tabi_devstate_get(rt, device, "memory_stats", &ds);
  if (st != TABI_OK) return st;
  pthread_mutex_lock(&ds->mu);
  *out = ds->stats;
  pthread_mutex_unlock(&ds->mu);
  out->struct_size = sizeof *out;
  return TABI_OK;
}

TABI_API tabi_status tabi_runtime_empty_cache(tabi_runtime *rt, DLDevice device) {
  if (!rt) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "empty_cache: NULL runtime");
  dev_state *ds;
  tabi_status st = tabi_devstate_get(rt, device, "empty_cache", &ds);
  if (st != TABI_OK) return st;
  tabi_empty_cache(ds);
  return TABI_OK;
}

TABI_API uint64_t tabi_runtime_guard_violations(const tabi_runtime *rt) {
  return rt ? atomic_load_explicit(&((tabi_runtime *)rt)->guard_violations, memory_order_relaxed) : 0;
}
