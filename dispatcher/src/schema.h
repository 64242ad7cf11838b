/* schema.h: the ATen schema parser.
 *
 *   ns::name.overload(Type name=default, *, Type kwarg) -> Returns
 *
 * Types: Tensor int SymInt float bool Scalar ScalarType Device str Layout
 * MemoryFormat, with `?` (optional), lists `T[]` and `T[N]`, `Tensor?[]`, alias
 * annotations `(a)`, `(a!)`, `(a -> *)` before or after the list brackets.
 * Returns: `()`, one type, or a tuple with optional names.
 *
 * Not thread-safe per arena; parsing itself touches no global state.
 */
#ifndef TABI_DISPATCHER_SCHEMA_H
#define TABI_DISPATCHER_SCHEMA_H

#include "internal.h"

/* A bump allocator: everything one parsed schema owns, freed at once. */
TABI_INTERNAL schema_arena *tabi_arena_create(void);
TABI_INTERNAL void *tabi_arena_alloc(schema_arena *a, size_t n);
TABI_INTERNAL void tabi_arena_destroy(schema_arena *a);

/* Parses `text` into e->info, e->arena, e->device_arg and e->has_mutable (the
 * rest of *e untouched). On error: TABI_ERR_PARSE with the column and what was
 * expected, or OUT_OF_MEMORY; e->arena is NULL. */
TABI_INTERNAL tabi_status tabi_schema_parse(const char *text, op_entry *e);

#endif /* TABI_DISPATCHER_SCHEMA_H */
