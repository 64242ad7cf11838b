/* ac_kernel.c: the autocast kernel of every listed op, the per-thread state and
 * the cast cache.
 *
 * The kernel follows PyTorch's WrapFunction_: decide the target dtype from the
 * policy, cast the eligible tensor arguments (floating, not float64, on the
 * call's device type), then run the layers below with the autocast key excluded
 * so the op's own nested calls (decompositions, autograd) are not cast again.
 */
#include <stdlib.h>
#include <string.h>

#include "ac.h"

#define AC_LOCAL_ARGS 24
#define AC_MAX_OWNED 64

tabi_dtype ac_default_dtype(int32_t device_type) {
  return device_type == kDLCPU ? TABI_DTYPE_BFLOAT16 : TABI_DTYPE_FLOAT16;
}

/* ---- per-thread state ------------------------------------------------------- */

void ac_cache_clear(ac_thread *th) {
  if (!th) return;
  const tabi_host_api *h = th->st->h;
  for (int32_t i = 0; i < th->ncache; i++) {
    h->tensor_release(h->ctx, th->cache[i].dst);
    h->tensor_release(h->ctx, th->cache[i].src);
  }
  th->ncache = 0;
}

void ac_thread_free(void *p) {
  ac_thread *th = p;
  if (!th) return;
  ac_cache_clear(th);
  free(th->cache);
  free(th);
}

ac_thread *ac_thread_get(ac_state *st, int32_t create) {
  if (!st->tls_ok) return NULL;
  ac_thread *th = pthread_getspecific(st->tls);
  if (th || !create) return th;
  th = calloc(1, sizeof *th);
  if (!th) return NULL;
  th->st = st;
  th->cache_on = 1;
  for (int32_t d = 0; d <= AC_MAX_DEVICE_TYPE; d++) th->dtype[d] = ac_default_dtype(d);
  if (pthread_setspecific(st->tls, th) != 0) {
    free(th);
    return NULL;
  }
  return th;
}

/* ---- casts -------------------------------------------------------------------- */

static const tabi_autograd_api *ac_autograd(ac_state *st) {
  if (atomic_load_explicit(&st->ag_looked, memory_order_acquire))
    return atomic_load_explicit(&st->ag, memory_order_acquire);
  const void *t = NULL;
  const tabi_autograd_api *ag = NULL;
  if (st->h->extension_get(st->h->ctx, TABI_AUTOGRAD_EXTENSION, TABI_AUTOGRAD_VERSION, &t) ==
      TABI_OK)
    ag = t;
  atomic_store_explicit(&st->ag, ag, memory_order_release);
  atomic_store_explicit(&st->ag_looked, 1, memory_order_release);
  return ag;
}

static int eligible(const tabi_tensor *t, int32_t device_type) {
  if (!t || (int32_t)t->dl.device.device_type != device_type) return 0;
  tabi_dtype d = tabi_tensor_dtype(t);
  return tabi_dtype_is_floating(d) && d != TABI_DTYPE_FLOAT64;
}

/* PyTorch's prioritize(): float32 wins, equal half types stay, a float16 and
 * bfloat16 mix becomes float32. */
static tabi_dtype prioritize(tabi_dtype cur, tabi_dtype next) {
  if (cur == TABI_DTYPE_FLOAT32 || next == TABI_DTYPE_FLOAT32) return TABI_DTYPE_FLOAT32;
  if (cur == next) return cur;
  return TABI_DTYPE_FLOAT32;
}

/* A weight: a float32 leaf that requires grad. Only those are cached, as in
 * PyTorch (activations would only pin memory). */
static int cacheable(ac_state *st, ac_thread *th, const tabi_tensor *t, tabi_dtype to,
                     int32_t device_type, uint32_t *out_version) {
  if (!th->cache_on || to != th->dtype[device_type] ||
      tabi_tensor_dtype(t) != TABI_DTYPE_FLOAT32)
    return 0;
  const tabi_autograd_api *ag = ac_autograd(st);
  if (!ag || !ag->requires_grad(ag->ctx, t) || !ag->is_leaf(ag->ctx, t)) return 0;
  *out_version = TABI_FIELD_PRESENT(tabi_autograd_api, ag, version_counter) && ag->version_counter
                     ? ag->version_counter(ag->ctx, t) : 0u;
  return 1;
}

/* *out is a new reference to `t` cast to `to` (t itself when it already is). */
static tabi_status ac_cast(ac_state *st, ac_thread *th, tabi_tensor *t, tabi_dtype to,
                           int32_t device_type, tabi_tensor **out) {
  const tabi_host_api *h = st->h;
  *out = NULL;
  if (tabi_tensor_dtype(t) == to) {
    h->tensor_retain(h->ctx, t);
    *out = t;
    return TABI_OK;
  }
  uint32_t version = 0;
  int cache = cacheable(st, th, t, to, device_type, &version);
  if (cache) {
    for (int32_t i = 0; i < th->ncache; i++) {
      ac_cache_ent *c = &th->cache[i];
      if (c->src == t && c->dtype == to && c->version == version) {
        h->tensor_retain(h->ctx, c->dst);
        *out = c->dst;
        return TABI_OK;
      }
    }
  }
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(to)};
  tabi_value r = tabi_none();
  tabi_status s = h->call(h->ctx, st->to_copy, a, 2, &r, 1);
  if (s != TABI_OK) return s;
  *out = r.u.t;
  if (cache) {
    /* A stale entry of the same weight (its version moved on) is replaced. */
    ac_cache_ent *slot = NULL;
    for (int32_t i = 0; i < th->ncache && !slot; i++)
      if (th->cache[i].src == t && th->cache[i].dtype == to) slot = &th->cache[i];
    if (slot) {
      h->tensor_release(h->ctx, slot->dst);
    } else {
      if (th->ncache == th->capcache) {
        int32_t cap = th->capcache ? th->capcache * 2 : 16;
        ac_cache_ent *n = realloc(th->cache, sizeof *n * (size_t)cap);
        if (!n) return TABI_OK; /* no cache entry: only a later recast is lost */
        th->cache = n;
        th->capcache = cap;
      }
      slot = &th->cache[th->ncache++];
      h->tensor_retain(h->ctx, t);
      slot->src = t;
      slot->dtype = to;
    }
    h->tensor_retain(h->ctx, r.u.t);
    slot->dst = r.u.t;
    slot->version = version;
  }
  return TABI_OK;
}

/* ---- the kernel ----------------------------------------------------------------- */

typedef struct ac_frame {
  tabi_tensor *owned[AC_MAX_OWNED];
  int32_t nowned;
  tabi_tensor **lists[8];
  int32_t nlists;
} ac_frame;

static void frame_release(const tabi_host_api *h, ac_frame *f) {
  for (int32_t i = 0; i < f->nowned; i++) h->tensor_release(h->ctx, f->owned[i]);
  for (int32_t i = 0; i < f->nlists; i++) free(f->lists[i]);
}

static tabi_status cast_one(ac_state *st, ac_thread *th, ac_frame *f, tabi_tensor *t,
                            tabi_dtype to, int32_t dt, const char *opname, tabi_tensor **out) {
  *out = t;
  if (!eligible(t, dt) || tabi_tensor_dtype(t) == to) return TABI_OK;
  if (f->nowned == AC_MAX_OWNED)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                    "%s (autocast): more than %d tensor arguments to cast", opname, AC_MAX_OWNED);
  tabi_tensor *c;
  tabi_status s = ac_cast(st, th, t, to, dt, &c);
  if (s != TABI_OK) return s;
  f->owned[f->nowned++] = c;
  *out = c;
  return TABI_OK;
}

/* Casts the eligible tensors of args (not the mutable ones) to `to`. */
static tabi_status cast_args(ac_state *st, ac_thread *th, ac_frame *f, const tabi_op_info *info,
                             tabi_value *local, int32_t nargs, tabi_dtype to, int32_t dt) {
  const tabi_host_api *h = st->h;
  for (int32_t i = 0; i < nargs; i++) {
    const tabi_arg_info *a = &info->args[i];
    if (a->flags & TABI_ARG_MUTABLE) continue;
    if (local[i].tag == TABI_TAG_TENSOR) {
      tabi_status s = cast_one(st, th, f, local[i].u.t, to, dt, info->name, &local[i].u.t);
      if (s != TABI_OK) return s;
    } else if (local[i].tag == TABI_TAG_TENSOR_LIST && local[i].u.list.len > 0) {
      tabi_tensor *const *ts = tabi_value_tensors(&local[i]);
      int64_t n = local[i].u.list.len, need = 0;
      for (int64_t k = 0; k < n; k++)
        if (eligible(ts[k], dt) && tabi_tensor_dtype(ts[k]) != to) need = 1;
      if (!need) continue;
      if (f->nlists == 8)
        return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s (autocast): too many tensor lists",
                        info->name);
      tabi_tensor **copy = malloc(sizeof *copy * (size_t)n);
      if (!copy) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s (autocast): out of memory",
                                 info->name);
      f->lists[f->nlists++] = copy;
      for (int64_t k = 0; k < n; k++) {
        copy[k] = ts[k];
        if (!ts[k]) continue;
        tabi_status s = cast_one(st, th, f, ts[k], to, dt, info->name, &copy[k]);
        if (s != TABI_OK) return s;
      }
      local[i].u.list.data = copy;
    }
  }
  return TABI_OK;
}

static tabi_dtype promote_dtype(const tabi_value *local, int32_t nargs, tabi_dtype start,
                                int32_t dt) {
  tabi_dtype cur = start;
  for (int32_t i = 0; i < nargs; i++) {
    if (local[i].tag == TABI_TAG_TENSOR) {
      if (eligible(local[i].u.t, dt)) cur = prioritize(cur, tabi_tensor_dtype(local[i].u.t));
    } else if (local[i].tag == TABI_TAG_TENSOR_LIST) {
      tabi_tensor *const *ts = tabi_value_tensors(&local[i]);
      for (int64_t k = 0; k < local[i].u.list.len; k++)
        if (eligible(ts[k], dt)) cur = prioritize(cur, tabi_tensor_dtype(ts[k]));
    }
  }
  return cur;
}

/* Runs the layers below with autocast excluded on this thread. */
static tabi_status run_below(ac_state *st, const tabi_call *call, tabi_value *args,
                             tabi_value *outs) {
  const tabi_host_api *h = st->h;
  uint64_t ex = h->tls_get(h->ctx, TABI_TLS_EXCLUDED);
  h->tls_set(h->ctx, TABI_TLS_EXCLUDED, ex | st->key);
  tabi_status s = h->redispatch(h->ctx, call, args, outs);
  h->tls_set(h->ctx, TABI_TLS_EXCLUDED, ex);
  return s;
}

tabi_status ac_kernel(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  ac_op *o = ctx;
  ac_state *st = o->st;
  const tabi_host_api *h = st->h;
  uint64_t backends = call->keys & ((UINT64_C(1) << TABI_KEY_BACKEND_BITS) - 1);
  int32_t dt = backends ? __builtin_ctzll(backends) + 1 : kDLCPU;
  ac_thread *th = ac_thread_get(st, 0);
  int32_t policy = dt == kDLCPU ? o->policy_cpu : o->policy_other;
  if (!th || !(th->enabled & (1u << (dt - 1))) || policy == TABI_AUTOCAST_POLICY_NONE)
    return h->redispatch(h->ctx, call, args, outs);

  const tabi_op_info *info = h->op_info(h->ctx, call->op);
  int32_t n = call->nargs;
  tabi_value stackv[AC_LOCAL_ARGS];
  tabi_value *local = n <= AC_LOCAL_ARGS ? stackv : malloc(sizeof *local * (size_t)n);
  if (!local || !info)
    return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "autocast: out of memory");
  memcpy(local, args, sizeof *local * (size_t)n);
  ac_frame f;
  f.nowned = 0;
  f.nlists = 0;
  tabi_status s = TABI_OK;
  switch (policy) {
    case TABI_AUTOCAST_POLICY_LOWER_PRECISION:
      s = cast_args(st, th, &f, info, local, n, th->dtype[dt], dt);
      break;
    case TABI_AUTOCAST_POLICY_FP32:
      s = cast_args(st, th, &f, info, local, n, TABI_DTYPE_FLOAT32, dt);
      break;
    case TABI_AUTOCAST_POLICY_PROMOTE:
      s = cast_args(st, th, &f, info, local, n, promote_dtype(local, n, th->dtype[dt], dt), dt);
      break;
    case TABI_AUTOCAST_POLICY_FP32_SET_OPT_DTYPE:
      /* Only when the first argument is eligible, as PyTorch's firstarg check. */
      if (o->dtype_arg >= 0 && o->dtype_arg < n && local[o->dtype_arg].tag == TABI_TAG_NONE &&
          n > 0 && local[0].tag == TABI_TAG_TENSOR && eligible(local[0].u.t, dt))
        local[o->dtype_arg] = tabi_dtype_value(TABI_DTYPE_FLOAT32);
      break;
    default:
      break;
  }
  if (s == TABI_OK) s = run_below(st, call, local, outs);
  frame_release(h, &f);
  if (local != stackv) free(local);
  return s;
}
