/* ac_plugin.c: libtabi_autocast.so's entry point: declares the "autocast" layer,
 * registers one kernel per listed op (no fallback: unlisted ops never reach the
 * layer), the gradient scaler ops and the "tabi.autocast" extension. */
#include <stdlib.h>
#include <string.h>

#include "ac.h"

static void ac_destroy(void *ctx) {
  ac_state *st = ctx;
  if (!st) return;
  if (st->tls_ok) {
    /* Other threads' states leak here (pthread gives no way to reach them);
     * the calling thread's goes now. */
    ac_thread_free(pthread_getspecific(st->tls));
    pthread_setspecific(st->tls, NULL);
    pthread_key_delete(st->tls);
  }
  free(st->ops);
  free(st);
}

static int32_t find_dtype_arg(const tabi_op_info *info) {
  for (int32_t i = 0; i < info->nargs; i++)
    if (info->args[i].type == TABI_TYPE_SCALAR_TYPE && !strcmp(info->args[i].name, "dtype"))
      return i;
  return -1;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_FEATURE;
  out->name = "autocast";
  out->version = "0.1.0";
  out->description = "automatic mixed precision: PyTorch's autocast policies per device type";
  ac_state *st = calloc(1, sizeof *st);
  if (!st) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "autocast: out of memory");
  st->h = host;
  st->ops = calloc((size_t)ac_policy_table_len, sizeof *st->ops);
  if (!st->ops) {
    free(st);
    return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "autocast: out of memory");
  }
  if (pthread_key_create(&st->tls, ac_thread_free) != 0) {
    free(st->ops);
    free(st);
    return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "autocast: no thread-local key left");
  }
  st->tls_ok = 1;
  out->ctx = st;
  out->destroy = ac_destroy;
  tabi_status s = host->layer_declare(host->ctx, "autocast", TABI_PRIORITY_AUTOCAST, &st->key);
  if (s == TABI_OK) s = host->op_find(host->ctx, "aten::_to_copy", &st->to_copy);
  for (int32_t i = 0; s == TABI_OK && i < ac_policy_table_len; i++) {
    const ac_policy_row *r = &ac_policy_table[i];
    tabi_op op;
    /* An op missing from this runtime's set is skipped, not fatal: the
     * policies of the others still hold. */
    if (host->op_find(host->ctx, r->op, &op) != TABI_OK) continue;
    ac_op *o = &st->ops[st->nops++];
    o->st = st;
    o->op = op;
    o->policy_cpu = r->cpu;
    o->policy_other = r->other;
    o->dtype_arg = find_dtype_arg(host->op_info(host->ctx, op));
    s = host->kernel_register(host->ctx, op, (int64_t)st->key, ac_kernel, o);
  }
  if (s == TABI_OK) s = ac_scaler_register(st);
  ac_ext_fill(st);
  if (s == TABI_OK)
    s = host->extension_register(host->ctx, TABI_AUTOCAST_EXTENSION, TABI_AUTOCAST_VERSION,
                                 &st->ext);
  if (s != TABI_OK) {
    /* The host runs destroy only after a successful init: clean up here. */
    ac_destroy(st);
    out->ctx = NULL;
    out->destroy = NULL;
  }
  return s;
}
