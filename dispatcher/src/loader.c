/* loader.c: plugin loading with staged registration, discovery, unloading.
 *
 * A plugin's registrations are staged in its record while its init runs and are
 * committed to the runtime only when init succeeded and every check passed; on
 * any failure the staging is dropped and the library closed, so the runtime is
 * exactly as before.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"
#include "registry.h"

#ifndef TABI_PLUGIN_INSTALL_DIR_FULL
#define TABI_PLUGIN_INSTALL_DIR_FULL "/usr/local/lib/tabi/plugins"
#endif

/* ---- staging ------------------------------------------------------------------ */

static const char *rec_label(const plugin_rec *rec) {
  if (rec->init_out && rec->init_out->name) return rec->init_out->name;
  return rec->path ? rec->path : "framework";
}

__attribute__((format(printf, 3, 4)))
static tabi_status stage_fail(plugin_rec *rec, tabi_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tabi_set_error_v(st, fmt, ap);
  va_end(ap);
  if (rec->state == PLUGIN_STAGING && rec->st.error == TABI_OK) {
    rec->st.error = st;
    snprintf(rec->st.error_msg, sizeof rec->st.error_msg, "%s", tabi_last_error());
  }
  return st;
}

static tabi_status must_stage(plugin_rec *rec, const char *slot) {
  if (rec->state == PLUGIN_STAGING) return TABI_OK;
  return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                        "%s: registration is only possible during tabi_plugin_init", slot);
}

#define GROW(arr, n, cap)                                                          \
  do {                                                                             \
    if ((n) == (cap)) {                                                            \
      int32_t nc_ = (cap) ? (cap) * 2 : 16;                                        \
      void *p_ = realloc((arr), sizeof(*(arr)) * (size_t)nc_);                     \
      if (!p_) return stage_fail(rec, TABI_ERR_OUT_OF_MEMORY, "registration: out of memory"); \
      (arr) = p_;                                                                  \
      (cap) = nc_;                                                                 \
    }                                                                              \
  } while (0)

static op_entry *staged_op(plugin_rec *rec, tabi_op op) {
  int32_t base = atomic_load_explicit(&rec->rt->nops, memory_order_acquire);
  if (op >= base && op < base + rec->st.nops) return rec->st.ops[op - base];
  return NULL;
}

tabi_status tabi_op_find_for(plugin_rec *rec, const char *name, tabi_op *out) {
  tabi_runtime *rt = rec->rt;
  *out = TABI_OP_INVALID;
  if (!name) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "op_find: NULL name");
  pthread_mutex_lock(&rt->lock);
  tabi_op op = tabi_registry_lookup_locked(rt, name);
  pthread_mutex_unlock(&rt->lock);
  if (op == TABI_OP_INVALID && rec->state == PLUGIN_STAGING) {
    int32_t base = atomic_load_explicit(&rt->nops, memory_order_acquire);
    for (int32_t i = 0; i < rec->st.nops; i++)
      if (strcmp(rec->st.ops[i]->info.name, name) == 0) op = base + i;
  }
  if (op == TABI_OP_INVALID) return tabi_set_error(TABI_ERR_NOT_FOUND, "%s: no such op", name);
  *out = op;
  return TABI_OK;
}

const tabi_op_info *tabi_op_info_for(plugin_rec *rec, tabi_op op) {
  op_entry *e = tabi_op_get(rec->rt, op);
  if (!e && rec->state == PLUGIN_STAGING) e = staged_op(rec, op);
  return e ? &e->info : NULL;
}

tabi_status tabi_stage_op_register(plugin_rec *rec, const char *schema, tabi_op *out) {
  tabi_status st = must_stage(rec, "op_register");
  if (st != TABI_OK) return st;
  if (!out) return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "op_register: NULL out_op");
  *out = TABI_OP_INVALID;
  op_entry *e;
  st = tabi_op_entry_create(rec->rt, schema, rec, &e);
  if (st != TABI_OK)
    return stage_fail(rec, st, "op_register: %s", tabi_last_error());
  tabi_op existing;
  if (tabi_op_find_for(rec, e->info.name, &existing) == TABI_OK) {
    const tabi_op_info *info = tabi_op_info_for(rec, existing);
    int same = strcmp(info->schema, e->info.schema) == 0;
    char name[256];
    snprintf(name, sizeof name, "%s", e->info.name);
    tabi_op_entry_free(e);
    if (!same)
      return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                        "op_register: %s is already registered with a different schema: %s",
                        name, info->schema);
    *out = existing;
    return TABI_OK;
  }
  tabi_clear_error();
  if (rec->st.nops == rec->st.cap_ops) {
    int32_t nc = rec->st.cap_ops ? rec->st.cap_ops * 2 : 16;
    op_entry **p = realloc(rec->st.ops, sizeof(*p) * (size_t)nc);
    if (!p) {
      tabi_op_entry_free(e);
      return stage_fail(rec, TABI_ERR_OUT_OF_MEMORY, "op_register: out of memory");
    }
    rec->st.ops = p;
    rec->st.cap_ops = nc;
  }
  e->handle = atomic_load_explicit(&rec->rt->nops, memory_order_acquire) + rec->st.nops;
  rec->st.ops[rec->st.nops++] = e;
  *out = e->handle;
  return TABI_OK;
}

static const char *layer_owner(plugin_rec *rec, int32_t idx, int *out_present) {
  tabi_runtime *rt = rec->rt;
  *out_present = 1;
  if (rt->layers[idx].present) return rt->layers[idx].plugin ? rt->layers[idx].plugin->name : "?";
  for (int32_t i = 0; i < rec->st.nlayers; i++)
    if (rec->st.layers[i].priority == idx + 1) return rec_label(rec);
  *out_present = 0;
  return NULL;
}

tabi_status tabi_stage_layer(plugin_rec *rec, const char *name, int32_t priority, uint64_t *out_key) {
  tabi_status st = must_stage(rec, "layer_declare");
  if (st != TABI_OK) return st;
  if (!name || !name[0] || !out_key)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "layer_declare: NULL or empty %s",
                      !out_key ? "out_key" : "name");
  if (priority < 1 || priority > TABI_NUM_LAYERS)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                      "layer_declare: layer '%s' has priority %d (must be 1..48)", name, (int)priority);
  int present;
  const char *owner = layer_owner(rec, priority - 1, &present);
  if (present)
    return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                      "layer_declare: priority %d (layer '%s') is already declared by plugin '%s'",
                      (int)priority, name, owner);
  GROW(rec->st.layers, rec->st.nlayers, rec->st.cap_layers);
  char *copy = tabi_strdup(name);
  if (!copy) return stage_fail(rec, TABI_ERR_OUT_OF_MEMORY, "layer_declare: out of memory");
  rec->st.layers[rec->st.nlayers].priority = priority;
  rec->st.layers[rec->st.nlayers].name = copy;
  rec->st.nlayers++;
  *out_key = TABI_LAYER_KEY(priority);
  return TABI_OK;
}

static int32_t own_device_type(plugin_rec *rec) {
  return rec->init_out ? rec->init_out->device_type : 0;
}

/* Maps a `layer` argument to a slot code (0..15 backend, 16..63 layer bit,
 * STAGE_COMPOSITE), or -1 with an error set. */
static int32_t layer_slot(plugin_rec *rec, const char *what, const char *opname, int64_t layer,
                          int allow_backend) {
  if (layer == TABI_LAYER_COMPOSITE) {
    if (!allow_backend) {
      stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "%s: a fallback needs a feature layer, not the "
                 "composite layer", what);
      return -1;
    }
    return STAGE_COMPOSITE;
  }
  int32_t dt = own_device_type(rec);
  if (layer == TABI_LAYER_BACKEND || (layer > 0 && layer <= (int64_t)TABI_BACKEND_MASK)) {
    if (!allow_backend) {
      stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "%s: a fallback needs a feature layer", what);
      return -1;
    }
    if (dt < 1 || dt > TABI_MAX_DEVICE_TYPE) {
      stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                 "%s%s%s: a backend kernel needs the plugin's device_type set in tabi_plugin "
                 "before registering (it is %d)", what, opname ? " " : "", opname ? opname : "",
                 (int)dt);
      return -1;
    }
    if (layer != TABI_LAYER_BACKEND && (uint64_t)layer != TABI_BACKEND_KEY(dt)) {
      stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                 "%s%s%s: key 0x%llx is another device type's backend", what, opname ? " " : "",
                 opname ? opname : "", (unsigned long long)layer);
      return -1;
    }
    return dt - 1;
  }
  uint64_t key = (uint64_t)layer;
  if (key == 0 || (key & (key - 1)) != 0 || (key & TABI_BACKEND_MASK)) {
    stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "%s%s%s: layer 0x%llx is not a layer key",
               what, opname ? " " : "", opname ? opname : "", (unsigned long long)key);
    return -1;
  }
  int32_t bit = 63 - __builtin_clzll(key);
  int present;
  layer_owner(rec, bit - 16, &present);
  if (!present) {
    stage_fail(rec, TABI_ERR_NOT_FOUND, "%s%s%s: layer key 0x%llx (priority %d) was never declared",
               what, opname ? " " : "", opname ? opname : "", (unsigned long long)key, bit - 15);
    return -1;
  }
  return bit;
}

static const char *slot_name(int32_t slot, char *buf, size_t n) {
  if (slot == STAGE_COMPOSITE) snprintf(buf, n, "composite");
  else if (slot < 16) snprintf(buf, n, "backend %s", tabi_device_type_name(NULL, slot + 1));
  else snprintf(buf, n, "layer priority %d", slot - 15);
  return buf;
}

tabi_status tabi_stage_kernel(plugin_rec *rec, tabi_op op, int64_t layer, tabi_kernel_fn fn,
                              void *ctx) {
  tabi_status st = must_stage(rec, "kernel_register");
  if (st != TABI_OK) return st;
  op_entry *e = tabi_op_get(rec->rt, op);
  if (!e) e = staged_op(rec, op);
  if (!e)
    return stage_fail(rec, TABI_ERR_NOT_FOUND,
                      "kernel_register: op handle %d is not a registered op", (int)op);
  int32_t slot = layer_slot(rec, "kernel_register", e->info.name, layer, 1);
  if (slot < 0) return rec->st.error;
  if (!fn && slot < 16)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                      "kernel_register %s: a NULL kernel (fallthrough) is only for feature layers",
                      e->info.name);
  if (!fn && slot == STAGE_COMPOSITE)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                      "kernel_register %s: a NULL kernel (fallthrough) is only for feature layers",
                      e->info.name);
  const kernel_reg *k = slot == STAGE_COMPOSITE ? &e->composite
                        : slot < 16 ? &e->backend[slot] : &e->layer[slot - 16];
  char sb[64];
  if (k->present)
    return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                      "kernel_register %s: a %s kernel is already registered by plugin '%s'",
                      e->info.name, slot_name(slot, sb, sizeof sb),
                      k->plugin && k->plugin->name ? k->plugin->name : "?");
  for (int32_t i = 0; i < rec->st.nkernels; i++)
    if (rec->st.kernels[i].op == op && rec->st.kernels[i].slot == slot)
      return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                        "kernel_register %s: a %s kernel is registered twice by this plugin",
                        e->info.name, slot_name(slot, sb, sizeof sb));
  GROW(rec->st.kernels, rec->st.nkernels, rec->st.cap_kernels);
  staged_kernel *s = &rec->st.kernels[rec->st.nkernels++];
  s->op = op;
  s->slot = slot;
  s->fn = fn;
  s->ctx = ctx;
  return TABI_OK;
}

tabi_status tabi_stage_fallback(plugin_rec *rec, int64_t layer, tabi_kernel_fn fn, void *ctx) {
  tabi_status st = must_stage(rec, "fallback_register");
  if (st != TABI_OK) return st;
  int32_t slot = layer_slot(rec, "fallback_register", NULL, layer, 0);
  if (slot < 0) return rec->st.error;
  const layer_rec *l = &rec->rt->layers[slot - 16];
  int dup = l->fallback.present;
  for (int32_t i = 0; i < rec->st.nfallbacks; i++)
    if (rec->st.fallbacks[i].slot == slot) dup = 1;
  if (dup)
    return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                      "fallback_register: layer priority %d already has a fallback", slot - 15);
  GROW(rec->st.fallbacks, rec->st.nfallbacks, rec->st.cap_fallbacks);
  staged_kernel *s = &rec->st.fallbacks[rec->st.nfallbacks++];
  s->op = TABI_OP_INVALID;
  s->slot = slot;
  s->fn = fn;
  s->ctx = ctx;
  return TABI_OK;
}

tabi_status tabi_stage_device(plugin_rec *rec, const tabi_device_api *api) {
  tabi_status st = must_stage(rec, "device_register");
  if (st != TABI_OK) return st;
  if (!api) return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "device_register: NULL table");
  if (api->struct_size < offsetof(tabi_device_api, synchronize) + sizeof(api->synchronize))
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                      "device_register: struct_size %u is too small for the required slots",
                      (unsigned)api->struct_size);
  int32_t dt = api->device_type;
  if (dt < 1 || dt > TABI_MAX_DEVICE_TYPE)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                      "device_register: device type %d is out of range (1..16)", (int)dt);
  if (dt == kDLCPU)
    return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                      "device_register: the host provides the kDLCPU device table");
  if (own_device_type(rec) != dt)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                      "device_register: table for device type %d but the plugin's device_type "
                      "is %d", (int)dt, (int)own_device_type(rec));
  if (!api->count || !api->properties || !api->alloc || !api->free || !api->copy || !api->synchronize)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT,
                      "device_register: a required slot (count, properties, alloc, free, copy, "
                      "synchronize) is NULL");
  if (atomic_load_explicit(&rec->rt->devices[dt], memory_order_acquire) || rec->st.device)
    return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                      "device_register: device type %s already has a device table",
                      tabi_device_type_name(rec->rt, dt));
  tabi_device_api *copy = calloc(1, sizeof *copy);
  if (!copy) return stage_fail(rec, TABI_ERR_OUT_OF_MEMORY, "device_register: out of memory");
  size_t n = api->struct_size < sizeof *copy ? api->struct_size : sizeof *copy;
  memcpy(copy, api, n);
  rec->st.device = copy;
  return TABI_OK;
}

tabi_status tabi_stage_extension(plugin_rec *rec, const char *name, uint32_t version,
                                 const void *table) {
  tabi_status st = must_stage(rec, "extension_register");
  if (st != TABI_OK) return st;
  if (!name || !name[0] || !table)
    return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "extension_register: NULL %s",
                      !table ? "table" : "name");
  int dup = 0;
  pthread_mutex_lock(&rec->rt->lock);
  for (extension_rec *x = rec->rt->extensions; x; x = x->next)
    if (strcmp(x->name, name) == 0) dup = 1;
  pthread_mutex_unlock(&rec->rt->lock);
  for (int32_t i = 0; i < rec->st.nexts; i++)
    if (strcmp(rec->st.exts[i].name, name) == 0) dup = 1;
  if (dup)
    return stage_fail(rec, TABI_ERR_ALREADY_EXISTS,
                      "extension_register: extension '%s' is already registered", name);
  GROW(rec->st.exts, rec->st.nexts, rec->st.cap_exts);
  char *copy = tabi_strdup(name);
  if (!copy) return stage_fail(rec, TABI_ERR_OUT_OF_MEMORY, "extension_register: out of memory");
  rec->st.exts[rec->st.nexts].name = copy;
  rec->st.exts[rec->st.nexts].version = version;
  rec->st.exts[rec->st.nexts].table = table;
  rec->st.nexts++;
  return TABI_OK;
}

tabi_status tabi_stage_slot(plugin_rec *rec, int32_t *out_slot) {
  tabi_status st = must_stage(rec, "slot_declare");
  if (st != TABI_OK) return st;
  if (!out_slot) return stage_fail(rec, TABI_ERR_INVALID_ARGUMENT, "slot_declare: NULL out_slot");
  int32_t n = atomic_load_explicit(&rec->rt->nslots, memory_order_acquire) + rec->st.nslots;
  if (n >= TABI_MAX_SLOTS)
    return stage_fail(rec, TABI_ERR_OUT_OF_MEMORY, "slot_declare: all %d tensor slots are taken",
                      TABI_MAX_SLOTS);
  rec->st.nslots++;
  *out_slot = n;
  return TABI_OK;
}

static void stage_free(stage *s) {
  for (int32_t i = 0; i < s->nops; i++) tabi_op_entry_free(s->ops[i]);
  free(s->ops);
  free(s->kernels);
  free(s->fallbacks);
  for (int32_t i = 0; i < s->nlayers; i++) free(s->layers[i].name);
  free(s->layers);
  for (int32_t i = 0; i < s->nexts; i++) free(s->exts[i].name);
  free(s->exts);
  free(s->device);
  memset(s, 0, sizeof *s);
}

/* ---- commit ---------------------------------------------------------------------- */

static tabi_status commit_locked(tabi_runtime *rt, plugin_rec *rec) {
  stage *s = &rec->st;
  for (int32_t i = 0; i < s->nops; i++) {
    tabi_status st = tabi_registry_add_locked(rt, s->ops[i]);
    if (st != TABI_OK) return st; /* only when the registry is full; checked before */
    s->ops[i] = NULL;
  }
  rec->ops_registered = s->nops;
  for (int32_t i = 0; i < s->nlayers; i++) {
    layer_rec *l = &rt->layers[s->layers[i].priority - 1];
    l->present = 1;
    l->name = s->layers[i].name;
    l->plugin = rec;
    s->layers[i].name = NULL;
    if (!rec->layer_priority) rec->layer_priority = s->layers[i].priority;
  }
  for (int32_t i = 0; i < s->nkernels; i++) {
    const staged_kernel *k = &s->kernels[i];
    op_entry *e = atomic_load_explicit(&rt->ops[k->op], memory_order_relaxed);
    kernel_reg *r = k->slot == STAGE_COMPOSITE ? &e->composite
                    : k->slot < 16 ? &e->backend[k->slot] : &e->layer[k->slot - 16];
    r->fn = k->fn;
    r->ctx = k->ctx;
    r->plugin = rec;
    r->present = 1;
    r->fallthrough = k->fn == NULL;
    rec->kernels++;
  }
  for (int32_t i = 0; i < s->nfallbacks; i++) {
    const staged_kernel *k = &s->fallbacks[i];
    kernel_reg *r = &rt->layers[k->slot - 16].fallback;
    r->fn = k->fn;
    r->ctx = k->ctx;
    r->plugin = rec;
    r->present = 1;
    r->fallthrough = k->fn == NULL;
  }
  if (s->device) {
    int32_t dt = s->device->device_type;
    rt->device_copies[dt] = s->device;
    atomic_store_explicit(&rt->devices[dt], s->device, memory_order_release);
    s->device = NULL;
  }
  for (int32_t i = 0; i < s->nexts; i++) {
    extension_rec *x = calloc(1, sizeof *x);
    if (!x) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "extension: out of memory");
    x->name = s->exts[i].name;
    x->version = s->exts[i].version;
    x->table = s->exts[i].table;
    x->plugin = rec;
    s->exts[i].name = NULL;
    x->next = rt->extensions;
    rt->extensions = x;
  }
  atomic_fetch_add_explicit(&rt->nslots, s->nslots, memory_order_release);
  tabi_status st = tabi_registry_rebuild_locked(rt);
  int32_t n = atomic_load_explicit(&rt->nplugins, memory_order_relaxed);
  rec->index = n;
  rec->state = PLUGIN_LOADED;
  rt->plugins[n] = rec;
  atomic_store_explicit(&rt->nplugins, n + 1, memory_order_release);
  stage_free(s);
  return st;
}

/* ---- load ----------------------------------------------------------------------------- */

static int no_dlclose(void) {
  const char *v = getenv("TABI_NO_DLCLOSE");
  return v && v[0] == '1';
}

static void rec_free(plugin_rec *rec) {
  stage_free(&rec->st);
  free(rec->path);
  free(rec->name);
  free(rec->version);
  free(rec->description);
  free(rec);
}

/* Finds libtabi_<name>.so on TABI_PLUGIN_PATH, then in the install folder. */
static tabi_status find_by_name(const char *name, char *out, size_t n) {
  const char *env = getenv("TABI_PLUGIN_PATH");
  char dir[PATH_MAX];
  while (env && *env) {
    const char *colon = strchr(env, ':');
    size_t len = colon ? (size_t)(colon - env) : strlen(env);
    if (len > 0 && len < sizeof dir) {
      memcpy(dir, env, len);
      dir[len] = 0;
      int w = snprintf(out, n, "%s/libtabi_%s.so", dir, name);
      if (w > 0 && (size_t)w < n && access(out, F_OK) == 0) return TABI_OK;
    }
    env = colon ? colon + 1 : NULL;
  }
  int w = snprintf(out, n, "%s/libtabi_%s.so", TABI_PLUGIN_INSTALL_DIR_FULL, name);
  if (w > 0 && (size_t)w < n && access(out, F_OK) == 0) return TABI_OK;
  const char *p = getenv("TABI_PLUGIN_PATH");
  return tabi_set_error(TABI_ERR_NOT_FOUND,
                        "plugin '%s': libtabi_%s.so is not in TABI_PLUGIN_PATH (%s) nor in %s",
                        name, name, p ? p : "unset", TABI_PLUGIN_INSTALL_DIR_FULL);
}

static plugin_rec *find_loaded(tabi_runtime *rt, const char *name) {
  int32_t n = atomic_load_explicit(&rt->nplugins, memory_order_acquire);
  for (int32_t i = 0; i < n; i++)
    if (rt->plugins[i]->name && strcmp(rt->plugins[i]->name, name) == 0) return rt->plugins[i];
  return NULL;
}

static int has_backend_kernels(const stage *s) {
  for (int32_t i = 0; i < s->nkernels; i++)
    if (s->kernels[i].slot < 16) return 1;
  return 0;
}

/* Runs init and every check; on success commits. Called with load_lock held. */
static tabi_status load_locked(tabi_runtime *rt, const char *path, int32_t discover,
                               int32_t *out_index) {
  plugin_rec *rec = calloc(1, sizeof *rec);
  if (!rec) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  rec->rt = rt;
  rec->state = PLUGIN_STAGING;
  rec->path = tabi_strdup(path);
  tabi_host_api_fill(rec);
  tabi_status st;
  int init_ok = 0;
  tabi_plugin out;

  dlerror();
  rec->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!rec->dl) {
    const char *why = dlerror();
    st = tabi_set_error(access(path, F_OK) == 0 ? TABI_ERR_PLUGIN : TABI_ERR_NOT_FOUND,
                        "%s: not a loadable shared object: %s", path, why ? why : "dlopen failed");
    goto fail;
  }
  union { void *p; tabi_plugin_init_fn fn; } sym;
  sym.p = dlsym(rec->dl, TABI_PLUGIN_ENTRY_SYMBOL);
  if (!sym.p) {
    st = tabi_set_error(TABI_ERR_NOT_FOUND, "%s: not a tabi plugin: no %s symbol", path,
                        TABI_PLUGIN_ENTRY_SYMBOL);
    goto fail;
  }
  memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  rec->init_out = &out;
  uint32_t seq = tabi_error_seq();
  st = sym.fn(&rec->host, &out);
  /* What the plugin wrote, with fields past its struct_size read as absent. */
  tabi_plugin p;
  memset(&p, 0, sizeof p);
  memcpy(&p, &out, out.struct_size < sizeof p ? out.struct_size : sizeof p);
  p.struct_size = out.struct_size;
  rec->plugin = p;
  rec->init_out = NULL;
  uint32_t major = TABI_FIELD_PRESENT(tabi_plugin, &p, abi_major) ? p.abi_major : 0;
  uint32_t minor = TABI_FIELD_PRESENT(tabi_plugin, &p, abi_minor) ? p.abi_minor : 0;
  const char *name = TABI_FIELD_PRESENT(tabi_plugin, &p, name) ? p.name : NULL;
  int32_t kind = TABI_FIELD_PRESENT(tabi_plugin, &p, kind) ? p.kind : 0;
  int32_t dt = TABI_FIELD_PRESENT(tabi_plugin, &p, device_type) ? p.device_type : 0;
  int is_backend = kind == TABI_PLUGIN_KIND_DEVICE || kind == TABI_PLUGIN_KIND_REFERENCE;
  /* Checks in order of what explains the failure best: a plugin refused for its
   * identity (version, name, device type taken) usually also failed to register
   * (its kernels collide), and the identity is the reason to report. */
  if (major != TABI_ABI_VERSION_MAJOR && (major != 0 || st == TABI_OK)) {
    /* Another major's tabi_plugin may be laid out differently: never call its
     * destroy through our idea of the struct. */
    st = tabi_set_error(TABI_ERR_ABI_MISMATCH, "%s: built against tabi ABI %u.%u, this host is ABI %d.%d",
                        path, major, minor, TABI_ABI_VERSION_MAJOR, TABI_ABI_VERSION_MINOR);
    goto fail;
  }
  init_ok = st == TABI_OK;
  if (discover && kind == TABI_PLUGIN_KIND_REFERENCE) {
    st = TABI_LOAD_SKIPPED;
    goto fail;
  }
  plugin_rec *other = name ? find_loaded(rt, name) : NULL;
  if (other) {
    if (discover) {
      st = TABI_LOAD_SKIPPED;
      goto fail;
    }
    st = tabi_set_error(TABI_ERR_ALREADY_EXISTS, "%s: a plugin named '%s' is already loaded (from %s)",
                        path, name, other->path);
    goto fail;
  }
  if (is_backend && dt >= 1 && dt <= TABI_MAX_DEVICE_TYPE) {
    int32_t n = atomic_load_explicit(&rt->nplugins, memory_order_acquire);
    for (int32_t i = 0; i < n; i++) {
      plugin_rec *o = rt->plugins[i];
      if ((o->plugin.kind == TABI_PLUGIN_KIND_DEVICE || o->plugin.kind == TABI_PLUGIN_KIND_REFERENCE) &&
          o->plugin.device_type == dt) {
        st = tabi_set_error(TABI_ERR_ALREADY_EXISTS,
                            "%s: device type %s already has a backend: plugin '%s' (%s)", path,
                            tabi_device_type_name(rt, dt), o->name, o->path);
        goto fail;
      }
    }
  }
  if (rec->st.error != TABI_OK) {
    st = tabi_set_error(rec->st.error, "%s: a registration failed: %s", path, rec->st.error_msg);
    goto fail;
  }
  if (st != TABI_OK) {
    char msg[600];
    snprintf(msg, sizeof msg, "%s", tabi_error_seq() != seq ? tabi_last_error() : "(no message)");
    st = tabi_set_error(TABI_ERR_PLUGIN, "%s: tabi_plugin_init failed with %s: %s", path,
                        tabi_status_name(st), msg);
    goto fail;
  }
  if (!name || !name[0]) {
    st = tabi_set_error(TABI_ERR_PLUGIN, "%s: the plugin sets no name in tabi_plugin", path);
    goto fail;
  }
  if (kind < TABI_PLUGIN_KIND_DEVICE || kind > TABI_PLUGIN_KIND_REFERENCE) {
    st = tabi_set_error(TABI_ERR_PLUGIN, "%s: plugin '%s' has unknown kind %d", path, name, (int)kind);
    goto fail;
  }
  if (is_backend) {
    if (dt < 1 || dt > TABI_MAX_DEVICE_TYPE) {
      st = tabi_set_error(TABI_ERR_PLUGIN, "%s: device plugin '%s' has device_type %d (must be 1..16)",
                          path, name, (int)dt);
      goto fail;
    }
    if (!atomic_load_explicit(&rt->devices[dt], memory_order_acquire) && !rec->st.device) {
      st = tabi_set_error(TABI_ERR_PLUGIN, "%s: device plugin '%s' registers no device table for %s",
                          path, name, tabi_device_type_name(rt, dt));
      goto fail;
    }
  } else if (has_backend_kernels(&rec->st)) {
    st = tabi_set_error(TABI_ERR_PLUGIN, "%s: plugin '%s' is not a device plugin but registers "
                        "backend kernels", path, name);
    goto fail;
  }
  if (atomic_load_explicit(&rt->nplugins, memory_order_relaxed) >= TABI_MAX_PLUGINS ||
      atomic_load_explicit(&rt->nops, memory_order_relaxed) + rec->st.nops > TABI_MAX_OPS) {
    st = tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: too many plugins or ops", path);
    goto fail;
  }
  rec->name = tabi_strdup(name);
  rec->version = tabi_strdup(TABI_FIELD_PRESENT(tabi_plugin, &p, version) && p.version ? p.version : "");
  rec->description = tabi_strdup(
      TABI_FIELD_PRESENT(tabi_plugin, &p, description) && p.description ? p.description : "");
  if (!rec->name || !rec->version || !rec->description) {
    st = tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    goto fail;
  }
  const uint32_t host_minor = TABI_ABI_VERSION_MINOR;
  rec->abi_minor_in_effect = minor < host_minor ? minor : host_minor;
  pthread_mutex_lock(&rt->lock);
  st = commit_locked(rt, rec);
  pthread_mutex_unlock(&rt->lock);
  if (out_index) *out_index = rec->index;
  if (st == TABI_OK) tabi_clear_error();
  return st;

fail:;
  /* Keep the reason while the plugin cleans up (its destroy may set errors). */
  tabi_error_saved saved;
  tabi_error_save(&saved);
  if (init_ok && TABI_FIELD_PRESENT(tabi_plugin, &rec->plugin, destroy) && rec->plugin.destroy)
    rec->plugin.destroy(rec->plugin.ctx);
  if (rec->dl && !no_dlclose()) dlclose(rec->dl);
  rec_free(rec);
  tabi_error_restore(&saved);
  return st;
}

tabi_status tabi_loader_load(tabi_runtime *rt, const char *path_or_name, int32_t discover,
                             int32_t *out_index) {
  if (out_index) *out_index = -1;
  if (!rt || !path_or_name || !path_or_name[0])
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_load_plugin: NULL %s",
                          !rt ? "runtime" : "path");
  char path[PATH_MAX];
  if (strchr(path_or_name, '/')) {
    if (strlen(path_or_name) >= sizeof path)
      return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_load_plugin: path too long");
    memcpy(path, path_or_name, strlen(path_or_name) + 1);
  } else {
    tabi_status st = find_by_name(path_or_name, path, sizeof path);
    if (st != TABI_OK) return st;
  }
  pthread_mutex_lock(&rt->load_lock);
  tabi_status st = load_locked(rt, path, discover, out_index);
  pthread_mutex_unlock(&rt->load_lock);
  return st;
}

void tabi_loader_unload_all(tabi_runtime *rt) {
  int32_t n = atomic_load_explicit(&rt->nplugins, memory_order_acquire);
  for (int32_t i = n - 1; i >= 0; i--) {
    plugin_rec *rec = rt->plugins[i];
    if (TABI_FIELD_PRESENT(tabi_plugin, &rec->plugin, destroy) && rec->plugin.destroy)
      rec->plugin.destroy(rec->plugin.ctx);
  }
  int keep = no_dlclose();
  for (int32_t i = n - 1; i >= 0; i--) {
    plugin_rec *rec = rt->plugins[i];
    if (rec->dl && !keep) dlclose(rec->dl);
    rec->dl = NULL;
  }
}

/* ---- discovery ------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void discover_dir(tabi_runtime *rt, const char *dir, tabi_load_error_fn on_error,
                         void *user, int32_t *loaded) {
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    size_t len = strlen(ent->d_name);
    if (len <= 11 || strncmp(ent->d_name, "libtabi_", 8) != 0 ||
        strcmp(ent->d_name + len - 3, ".so") != 0)
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **p = realloc(names, cap * sizeof *p);
      if (!p) break;
      names = p;
    }
    names[n] = tabi_strdup(ent->d_name);
    if (names[n]) n++;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    char path[PATH_MAX], pname[256];
    size_t len = strlen(names[i]);
    int w1 = snprintf(pname, sizeof pname, "%.*s", (int)(len - 11), names[i] + 8);
    int w2 = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    free(names[i]);
    if (w1 < 0 || (size_t)w1 >= sizeof pname || w2 < 0 || (size_t)w2 >= sizeof path) continue;
    pthread_mutex_lock(&rt->load_lock);
    if (find_loaded(rt, pname)) {
      pthread_mutex_unlock(&rt->load_lock);
      continue;
    }
    tabi_status st = load_locked(rt, path, 1, NULL);
    pthread_mutex_unlock(&rt->load_lock);
    if (st == TABI_OK) (*loaded)++;
    else if (st != TABI_LOAD_SKIPPED && on_error) on_error(user, path, st, tabi_last_error());
  }
  free(names);
}

TABI_API tabi_status tabi_runtime_load_discovered(tabi_runtime *rt, tabi_load_error_fn on_error,
                                                  void *user, int32_t *out_loaded) {
  int32_t loaded = 0;
  if (out_loaded) *out_loaded = 0;
  if (!rt) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_runtime_load_discovered: NULL runtime");
  const char *env = getenv("TABI_PLUGIN_PATH");
  char dir[PATH_MAX];
  while (env && *env) {
    const char *colon = strchr(env, ':');
    size_t len = colon ? (size_t)(colon - env) : strlen(env);
    if (len > 0 && len < sizeof dir) {
      memcpy(dir, env, len);
      dir[len] = 0;
      discover_dir(rt, dir, on_error, user, &loaded);
    }
    env = colon ? colon + 1 : NULL;
  }
  discover_dir(rt, TABI_PLUGIN_INSTALL_DIR_FULL, on_error, user, &loaded);
  if (out_loaded) *out_loaded = loaded;
  tabi_clear_error();
  return TABI_OK;
}

TABI_API tabi_status tabi_runtime_load_plugin(tabi_runtime *rt, const char *path_or_name,
                                              int32_t *out_index) {
  return tabi_loader_load(rt, path_or_name, 0, out_index);
}
