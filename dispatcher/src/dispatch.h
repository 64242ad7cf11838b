/* dispatch.h: key sets, calls and redispatch, argument checking and default
 * filling, thread-local enabled/excluded keys.
 *
 * Hot path (tabi_call, host->call): no malloc (for ops of <= 16 args), no string
 * hashing, no locks: one acquire load of the op's table, a loop over the schema's
 * arguments, an indirect call.
 */
#ifndef TABI_DISPATCHER_DISPATCH_H
#define TABI_DISPATCHER_DISPATCH_H

#include "internal.h"

/* What tabi_call.dispatch points to during a call. */
typedef struct dispatch_state {
  tabi_runtime *rt;
  const op_entry *e;
  const disp_table *table; /* the table the call started with, kept for redispatch */
  DLDevice device;
} dispatch_state;

TABI_INTERNAL tabi_status tabi_dispatch_call(tabi_runtime *rt, tabi_op op, tabi_value *args,
                                             int32_t nargs, tabi_value *outs, int32_t nouts);
TABI_INTERNAL tabi_status tabi_dispatch_redispatch(const tabi_call *call, tabi_value *args,
                                                   tabi_value *outs);
TABI_INTERNAL uint64_t tabi_tls_get(const tabi_runtime *rt, int32_t which);
TABI_INTERNAL uint64_t tabi_tls_set(const tabi_runtime *rt, int32_t which, uint64_t keys);
TABI_INTERNAL void tabi_value_release_impl(tabi_value *v);
TABI_INTERNAL tabi_status tabi_list_alloc_impl(int64_t n, tabi_tensor ***out);

#endif
