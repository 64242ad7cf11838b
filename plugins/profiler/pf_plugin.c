/* pf_plugin.c: libtabi_profiler.so's entry point: declares the "profiler" layer
 * with a boxed fallback for every op, and the "tabi.profiler" extension. The
 * layer's key is enabled only on threads taking part in a session. */
#include <stdlib.h>

#include "pf.h"

static void pf_destroy(void *ctx) {
  pf_state *st = ctx;
  if (!st) return;
  if (st->hook_on) st->h->memory_hook_remove(st->h->ctx, st->hook_id);
  pf_session_clear(st);
  if (st->tls_ok) {
    pthread_key_delete(st->tls);
    pthread_key_delete(st->tls_session);
  }
  pthread_mutex_destroy(&st->mu);
  free(st);
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_FEATURE;
  out->name = "profiler";
  out->version = "0.1.0";
  out->description = "op profiler: times, shapes, memory, key_averages table, Chrome trace";
  pf_state *st = calloc(1, sizeof *st);
  if (!st) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "profiler: out of memory");
  st->h = host;
  pthread_mutex_init(&st->mu, NULL);
  /* No destructor: a thread's record belongs to its session, freed with it. */
  if (pthread_key_create(&st->tls, NULL) != 0) {
    pthread_mutex_destroy(&st->mu);
    free(st);
    return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "profiler: no thread-local key left");
  }
  if (pthread_key_create(&st->tls_session, NULL) != 0) {
    pthread_key_delete(st->tls);
    pthread_mutex_destroy(&st->mu);
    free(st);
    return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "profiler: no thread-local key left");
  }
  st->tls_ok = 1;
  pf_ext_fill(st);
  tabi_status s = host->layer_declare(host->ctx, "profiler", TABI_PRIORITY_PROFILER, &st->key);
  if (s == TABI_OK) s = host->fallback_register(host->ctx, (int64_t)st->key, pf_kernel, st);
  if (s == TABI_OK)
    s = host->extension_register(host->ctx, TABI_PROFILER_EXTENSION, TABI_PROFILER_VERSION,
                                 &st->ext);
  if (s != TABI_OK) {
    /* The host runs destroy only after a successful init. */
    pf_destroy(st);
    return s;
  }
  out->ctx = st;
  out->destroy = pf_destroy;
  return TABI_OK;
}
