/* registry.h: operators by name and handle, and their dispatch tables.
 *
 * Builtin ops (every schema of abi/ops/core_aten.schema, then abi/ops/prims.schema,
 * in file order, comments and blank lines skipped) are registered first at runtime
 * create, so builtin op handle i is index i of that combined list. Generated typed
 * wrappers rely on this; do not reorder.
 *
 * Threading: lookups by handle are lock-free (acquire loads); mutation and name
 * lookups hold rt->lock.
 */
#ifndef TABI_DISPATCHER_REGISTRY_H
#define TABI_DISPATCHER_REGISTRY_H

#include "internal.h"

/* The generated table (builtin_ops.c, made from the schema files at build time). */
extern TABI_INTERNAL const char *const tabi_builtin_schemas[];
extern TABI_INTERNAL const int32_t tabi_builtin_schema_count;
extern TABI_INTERNAL const int32_t tabi_builtin_aten_count;

TABI_INTERNAL tabi_status tabi_registry_init(tabi_runtime *rt);
TABI_INTERNAL void tabi_registry_destroy(tabi_runtime *rt);

/* A new, unregistered op from a schema (table = the empty table). */
TABI_INTERNAL tabi_status tabi_op_entry_create(tabi_runtime *rt, const char *schema,
                                               plugin_rec *owner, op_entry **out);
TABI_INTERNAL void tabi_op_entry_free(op_entry *e);

/* Under rt->lock: handle of a name, or TABI_OP_INVALID. */
TABI_INTERNAL tabi_op tabi_registry_lookup_locked(tabi_runtime *rt, const char *name);
/* Under rt->lock: publishes e with the next handle (which must equal e->handle). */
TABI_INTERNAL tabi_status tabi_registry_add_locked(tabi_runtime *rt, op_entry *e);
/* Under rt->lock: recomputes every op's dispatch table from its registrations,
 * replacing (and retiring) only tables that changed. */
TABI_INTERNAL tabi_status tabi_registry_rebuild_locked(tabi_runtime *rt);

static inline op_entry *tabi_op_get(tabi_runtime *rt, tabi_op op) {
  if ((uint32_t)op >= (uint32_t)atomic_load_explicit(&rt->nops, memory_order_acquire)) return NULL;
  return atomic_load_explicit(&rt->ops[op], memory_order_acquire);
}

#endif /* TABI_DISPATCHER_REGISTRY_H */
