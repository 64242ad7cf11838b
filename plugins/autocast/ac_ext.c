/* ac_ext.c: the "tabi.autocast" extension table (ext_autocast.h). */
#include "ac.h"

static int bad_device(ac_state *st, int32_t device_type, const char *fn) {
  if (device_type >= 1 && device_type <= AC_MAX_DEVICE_TYPE) return 0;
  TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
           "tabi.autocast %s: device_type %d is out of range (expected 1..%d)", fn,
           (int)device_type, AC_MAX_DEVICE_TYPE);
  return 1;
}

static int32_t ext_set_enabled(void *ctx, int32_t device_type, int32_t enabled) {
  ac_state *st = ctx;
  const tabi_host_api *h = st->h;
  if (bad_device(st, device_type, "set_enabled")) return -1;
  ac_thread *th = ac_thread_get(st, enabled != 0);
  if (!th) {
    if (!enabled) return 0; /* never enabled on this thread */
    TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "tabi.autocast set_enabled: out of memory");
    return -1;
  }
  uint32_t bit = 1u << (device_type - 1);
  int32_t prev = (th->enabled & bit) != 0;
  uint32_t before = th->enabled;
  th->enabled = enabled ? (th->enabled | bit) : (th->enabled & ~bit);
  uint64_t en = h->tls_get(h->ctx, TABI_TLS_ENABLED);
  if (th->enabled) {
    if (!(en & st->key)) h->tls_set(h->ctx, TABI_TLS_ENABLED, en | st->key);
  } else {
    if (en & st->key) h->tls_set(h->ctx, TABI_TLS_ENABLED, en & ~st->key);
    /* The outermost region exited: casts of this region are no longer valid. */
    if (before) ac_cache_clear(th);
  }
  return prev;
}

static int32_t ext_is_enabled(void *ctx, int32_t device_type) {
  ac_state *st = ctx;
  if (device_type < 1 || device_type > AC_MAX_DEVICE_TYPE) return 0;
  ac_thread *th = ac_thread_get(st, 0);
  return th && (th->enabled & (1u << (device_type - 1))) ? 1 : 0;
}

static tabi_dtype ext_get_dtype(void *ctx, int32_t device_type) {
  ac_state *st = ctx;
  if (device_type < 1 || device_type > AC_MAX_DEVICE_TYPE) return TABI_DTYPE_INVALID;
  ac_thread *th = ac_thread_get(st, 0);
  return th ? th->dtype[device_type] : ac_default_dtype(device_type);
}

static tabi_dtype ext_set_dtype(void *ctx, int32_t device_type, tabi_dtype dtype) {
  ac_state *st = ctx;
  if (bad_device(st, device_type, "set_dtype")) return TABI_DTYPE_INVALID;
  if (dtype != TABI_DTYPE_FLOAT16 && dtype != TABI_DTYPE_BFLOAT16) {
    TABI_ERR(st->h, TABI_ERR_TYPE,
             "tabi.autocast set_dtype: dtype must be float16 or bfloat16, got %s",
             tabi_dtype_name(dtype));
    return TABI_DTYPE_INVALID;
  }
  ac_thread *th = ac_thread_get(st, 1);
  if (!th) {
    TABI_ERR(st->h, TABI_ERR_OUT_OF_MEMORY, "tabi.autocast set_dtype: out of memory");
    return TABI_DTYPE_INVALID;
  }
  tabi_dtype prev = th->dtype[device_type];
  th->dtype[device_type] = dtype;
  return prev;
}

static void ext_clear_cache(void *ctx) { ac_cache_clear(ac_thread_get(ctx, 0)); }

static int32_t ext_set_cache_enabled(void *ctx, int32_t enabled) {
  ac_thread *th = ac_thread_get(ctx, 1);
  if (!th) return 1;
  int32_t prev = th->cache_on;
  th->cache_on = enabled != 0;
  if (!enabled) ac_cache_clear(th);
  return prev;
}

static int64_t ext_cache_size(void *ctx) {
  ac_thread *th = ac_thread_get(ctx, 0);
  return th ? th->ncache : 0;
}

static int32_t ext_policy(void *ctx, int32_t device_type, tabi_op op) {
  ac_state *st = ctx;
  for (int32_t i = 0; i < st->nops; i++)
    if (st->ops[i].op == op)
      return device_type == kDLCPU ? st->ops[i].policy_cpu : st->ops[i].policy_other;
  return TABI_AUTOCAST_POLICY_NONE;
}

static int32_t ext_listed_ops(void *ctx, int32_t device_type, tabi_op *out_ops, int32_t cap) {
  ac_state *st = ctx;
  int32_t n = 0;
  for (int32_t i = 0; i < st->nops; i++) {
    int32_t p = device_type == kDLCPU ? st->ops[i].policy_cpu : st->ops[i].policy_other;
    if (p == TABI_AUTOCAST_POLICY_NONE) continue;
    if (out_ops && n < cap) out_ops[n] = st->ops[i].op;
    n++;
  }
  return n;
}

void ac_ext_fill(ac_state *st) {
  tabi_autocast_api *e = &st->ext;
  e->struct_size = sizeof *e;
  e->version = TABI_AUTOCAST_VERSION;
  e->ctx = st;
  e->set_enabled = ext_set_enabled;
  e->is_enabled = ext_is_enabled;
  e->set_dtype = ext_set_dtype;
  e->get_dtype = ext_get_dtype;
  e->clear_cache = ext_clear_cache;
  e->set_cache_enabled = ext_set_cache_enabled;
  e->cache_size = ext_cache_size;
  e->policy = ext_policy;
  e->listed_ops = ext_listed_ops;
}
