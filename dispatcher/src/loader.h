/* loader.h: loading plugins (dlopen, init, version negotiation, staged
 * registration committed only on success), discovery, unloading.
 *
 * Threading: loads are serialized by rt->load_lock. Calls on other threads may
 * run during a load: they see each op's old or new table, never a torn one.
 */
#ifndef TABI_DISPATCHER_LOADER_H
#define TABI_DISPATCHER_LOADER_H

#include "internal.h"

#define TABI_LOAD_SKIPPED (-1) /* discovery: dropped on purpose (reference, duplicate) */

TABI_INTERNAL tabi_status tabi_loader_load(tabi_runtime *rt, const char *path_or_name,
                                           int32_t discover, int32_t *out_index);
TABI_INTERNAL void tabi_loader_unload_all(tabi_runtime *rt);

/* Registration slots of the host table; valid only while rec is staging. */
TABI_INTERNAL tabi_status tabi_stage_op_register(plugin_rec *rec, const char *schema, tabi_op *out);
TABI_INTERNAL tabi_status tabi_stage_layer(plugin_rec *rec, const char *name, int32_t priority,
                                           uint64_t *out_key);
TABI_INTERNAL tabi_status tabi_stage_kernel(plugin_rec *rec, tabi_op op, int64_t layer,
                                            tabi_kernel_fn fn, void *ctx);
TABI_INTERNAL tabi_status tabi_stage_fallback(plugin_rec *rec, int64_t layer, tabi_kernel_fn fn,
                                              void *ctx);
TABI_INTERNAL tabi_status tabi_stage_device(plugin_rec *rec, const tabi_device_api *api);
TABI_INTERNAL tabi_status tabi_stage_extension(plugin_rec *rec, const char *name,
                                               uint32_t version, const void *table);
TABI_INTERNAL tabi_status tabi_stage_slot(plugin_rec *rec, int32_t *out_slot);
/* Lookups that also see the staged ops of `rec` (NULL rec: committed only). */
TABI_INTERNAL tabi_status tabi_op_find_for(plugin_rec *rec, const char *name, tabi_op *out);
TABI_INTERNAL const tabi_op_info *tabi_op_info_for(plugin_rec *rec, tabi_op op);

/* host_api.c */
TABI_INTERNAL void tabi_host_api_fill(plugin_rec *rec);

#endif
