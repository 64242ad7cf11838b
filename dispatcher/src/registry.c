/* registry.c: the op registry (name -> handle) and dispatch-table computation. */
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "schema.h"

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static tabi_status name_insert(tabi_runtime *rt, const char *name, tabi_op op) {
  if ((rt->name_count + 1) * 2 > rt->name_cap) {
    uint32_t cap = rt->name_cap ? rt->name_cap * 2 : 1024;
    int32_t *slots = calloc(cap, sizeof(int32_t));
    if (!slots) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "op registry: out of memory");
    for (uint32_t i = 0; i < rt->name_cap; i++) {
      int32_t v = rt->name_slots[i];
      if (!v) continue;
      op_entry *e = atomic_load_explicit(&rt->ops[v - 1], memory_order_relaxed);
      uint32_t j = name_hash(e->info.name) & (cap - 1);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = v;
    }
    free(rt->name_slots);
    rt->name_slots = slots;
    rt->name_cap = cap;
  }
  uint32_t j = name_hash(name) & (rt->name_cap - 1);
  while (rt->name_slots[j]) j = (j + 1) & (rt->name_cap - 1);
  rt->name_slots[j] = op + 1;
  rt->name_count++;
  return TABI_OK;
}

tabi_op tabi_registry_lookup_locked(tabi_runtime *rt, const char *name) {
  if (!rt->name_cap || !name) return TABI_OP_INVALID;
  uint32_t j = name_hash(name) & (rt->name_cap - 1);
  while (rt->name_slots[j]) {
    int32_t v = rt->name_slots[j];
    op_entry *e = atomic_load_explicit(&rt->ops[v - 1], memory_order_relaxed);
    if (strcmp(e->info.name, name) == 0) return v - 1;
    j = (j + 1) & (rt->name_cap - 1);
  }
  return TABI_OP_INVALID;
}

tabi_status tabi_op_entry_create(tabi_runtime *rt, const char *schema, plugin_rec *owner,
                                 op_entry **out) {
  *out = NULL;
  op_entry *e = calloc(1, sizeof *e);
  if (!e) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "op registry: out of memory");
  tabi_status st = tabi_schema_parse(schema, e);
  if (st != TABI_OK) {
    free(e);
    return st;
  }
  atomic_init(&e->table, &rt->empty_table);
  e->handle = TABI_OP_INVALID;
  e->owner = owner;
  *out = e;
  return TABI_OK;
}

void tabi_op_entry_free(op_entry *e) {
  if (!e) return;
  tabi_arena_destroy(e->arena);
  free(e);
}

tabi_status tabi_registry_add_locked(tabi_runtime *rt, op_entry *e) {
  int32_t n = atomic_load_explicit(&rt->nops, memory_order_relaxed);
  if (n >= TABI_MAX_OPS)
    return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: the op registry is full (%d ops)",
                          e->info.name, TABI_MAX_OPS);
  e->handle = n;
  atomic_store_explicit(&rt->ops[n], e, memory_order_release);
  tabi_status st = name_insert(rt, e->info.name, n);
  if (st != TABI_OK) {
    atomic_store_explicit(&rt->ops[n], NULL, memory_order_relaxed);
    return st;
  }
  atomic_store_explicit(&rt->nops, n + 1, memory_order_release);
  return TABI_OK;
}

static void compute_table(tabi_runtime *rt, const op_entry *e, disp_table *t) {
  memset(t, 0, sizeof *t);
  for (int b = 0; b < TABI_MAX_DEVICE_TYPE; b++) {
    const kernel_reg *k = e->backend[b].present ? &e->backend[b]
                          : e->composite.present ? &e->composite : NULL;
    if (k && k->fn) {
      t->e[b].fn = k->fn;
      t->e[b].ctx = k->ctx;
      t->e[b].plugin = k->plugin;
    }
  }
  for (int l = 0; l < TABI_NUM_LAYERS; l++) {
    const kernel_reg *k = NULL;
    if (e->layer[l].present) {
      if (!e->layer[l].fallthrough) k = &e->layer[l];
    } else if (rt->layers[l].present && rt->layers[l].fallback.present &&
               !rt->layers[l].fallback.fallthrough) {
      k = &rt->layers[l].fallback;
    }
    if (k && k->fn) {
      t->e[16 + l].fn = k->fn;
      t->e[16 + l].ctx = k->ctx;
      t->e[16 + l].plugin = k->plugin;
    }
  }
  for (int b = 0; b < TABI_NUM_KEYS; b++)
    if (t->e[b].fn) t->mask |= UINT64_C(1) << b;
}

tabi_status tabi_registry_rebuild_locked(tabi_runtime *rt) {
  int32_t n = atomic_load_explicit(&rt->nops, memory_order_relaxed);
  disp_table fresh;
  for (int32_t i = 0; i < n; i++) {
    op_entry *e = atomic_load_explicit(&rt->ops[i], memory_order_relaxed);
    disp_table *old = atomic_load_explicit(&e->table, memory_order_relaxed);
    compute_table(rt, e, &fresh);
    if (memcmp(&fresh, old, sizeof fresh) == 0) continue;
    if (rt->nretired == rt->cap_retired) {
      int32_t cap = rt->cap_retired ? rt->cap_retired * 2 : 64;
      disp_table **r = realloc(rt->retired, sizeof(*r) * (size_t)cap);
      if (!r) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "dispatch tables: out of memory");
      rt->retired = r;
      rt->cap_retired = cap;
    }
    disp_table *t = malloc(sizeof *t);
    if (!t) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "dispatch tables: out of memory");
    *t = fresh;
    /* A call in flight may still read the old table: keep it until destroy. */
    if (old != &rt->empty_table) rt->retired[rt->nretired++] = old;
    atomic_store_explicit(&e->table, t, memory_order_release);
  }
  return TABI_OK;
}

tabi_status tabi_registry_init(tabi_runtime *rt) {
  rt->ops = calloc(TABI_MAX_OPS, sizeof(*rt->ops));
  if (!rt->ops) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "op registry: out of memory");
  for (int32_t i = 0; i < tabi_builtin_schema_count; i++) {
    op_entry *e;
    tabi_status st = tabi_op_entry_create(rt, tabi_builtin_schemas[i], NULL, &e);
    if (st != TABI_OK)
      return tabi_set_error(TABI_ERR_INTERNAL, "builtin schema %d does not parse: %s", i,
                            tabi_last_error());
    if (tabi_registry_lookup_locked(rt, e->info.name) != TABI_OP_INVALID) {
      tabi_set_error(TABI_ERR_INTERNAL, "builtin op %s listed twice", e->info.name);
      tabi_op_entry_free(e);
      return TABI_ERR_INTERNAL;
    }
    st = tabi_registry_add_locked(rt, e);
    if (st != TABI_OK) {
      tabi_op_entry_free(e);
      return st;
    }
  }
  rt->nbuiltin = tabi_builtin_schema_count;
  return TABI_OK;
}

void tabi_registry_destroy(tabi_runtime *rt) {
  if (rt->ops) {
    int32_t n = atomic_load_explicit(&rt->nops, memory_order_relaxed);
    for (int32_t i = 0; i < n; i++) {
      op_entry *e = atomic_load_explicit(&rt->ops[i], memory_order_relaxed);
      if (!e) continue;
      disp_table *t = atomic_load_explicit(&e->table, memory_order_relaxed);
      if (t != &rt->empty_table) free(t);
      tabi_op_entry_free(e);
    }
    free(rt->ops);
    rt->ops = NULL;
  }
  for (int32_t i = 0; i < rt->nretired; i++) free(rt->retired[i]);
  free(rt->retired);
  free(rt->name_slots);
}

/* ---- public lookups ------------------------------------------------------- */

TABI_API tabi_status tabi_op_find(tabi_runtime *rt, const char *name, tabi_op *out_op) {
  if (out_op) *out_op = TABI_OP_INVALID;
  if (!rt || !name || !out_op)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_op_find: NULL %s",
                          !rt ? "runtime" : !name ? "name" : "out_op");
  pthread_mutex_lock(&rt->lock);
  tabi_op op = tabi_registry_lookup_locked(rt, name);
  pthread_mutex_unlock(&rt->lock);
  if (op == TABI_OP_INVALID)
    return tabi_set_error(TABI_ERR_NOT_FOUND, "%s: no such op", name);
  *out_op = op;
  return TABI_OK;
}

TABI_API const tabi_op_info *tabi_op_get_info(tabi_runtime *rt, tabi_op op) {
  if (!rt) return NULL;
  op_entry *e = tabi_op_get(rt, op);
  return e ? &e->info : NULL;
}

TABI_API int32_t tabi_op_count(const tabi_runtime *rt) {
  if (!rt) return 0;
  return atomic_load_explicit(&((tabi_runtime *)rt)->nops, memory_order_acquire);
}

TABI_API int32_t tabi_op_backend_status(tabi_runtime *rt, tabi_op op, int32_t device_type) {
  if (!rt || device_type < 1 || device_type > TABI_MAX_DEVICE_TYPE) return TABI_IMPL_MISSING;
  op_entry *e = tabi_op_get(rt, op);
  if (!e) return TABI_IMPL_MISSING;
  /* Read the published table, not the registrations: it is what calls see. */
  disp_table *t = atomic_load_explicit(&e->table, memory_order_acquire);
  const disp_entry *d = &t->e[device_type - 1];
  if (!d->fn) return TABI_IMPL_MISSING;
  if (e->backend[device_type - 1].present && e->backend[device_type - 1].fn == d->fn &&
      e->backend[device_type - 1].ctx == d->ctx)
    return TABI_IMPL_NATIVE;
  return TABI_IMPL_DECOMPOSED;
}
