/* dispatch.c: the call path. See dispatch.h and DESIGN.md "Dispatch". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "registry.h"

#define LOCAL_ARGS 16
#define EXPAND_BUF 64
#define TLS_ENTRIES 8

/* ---- thread-local enabled / excluded keys, per runtime --------------------- */

/* A small table keyed by the runtime's process-unique id (not its address, which
 * a later runtime may reuse). With more than TLS_ENTRIES runtimes holding
 * non-zero state in one thread, the oldest entry is reused. */
typedef struct tls_ent {
  uint64_t rt_id;
  uint64_t v[2];
} tls_ent;

static _Thread_local tls_ent tls_tab[TLS_ENTRIES];
static _Thread_local int32_t tls_used;

static inline void tls_read(const tabi_runtime *rt, uint64_t *en, uint64_t *ex) {
  for (int32_t i = 0; i < tls_used; i++) {
    if (tls_tab[i].rt_id == rt->id) {
      *en = tls_tab[i].v[0];
      *ex = tls_tab[i].v[1];
      return;
    }
  }
  *en = 0;
  *ex = 0;
}

uint64_t tabi_tls_get(const tabi_runtime *rt, int32_t which) {
  uint64_t v[2];
  if (!rt || which < 0 || which > 1) return 0;
  tls_read(rt, &v[0], &v[1]);
  return v[which];
}

uint64_t tabi_tls_set(const tabi_runtime *rt, int32_t which, uint64_t keys) {
  if (!rt || which < 0 || which > 1) return 0;
  tls_ent *slot = NULL;
  for (int32_t i = 0; i < tls_used; i++)
    if (tls_tab[i].rt_id == rt->id) slot = &tls_tab[i];
  if (!slot) {
    if (keys == 0) return 0;
    for (int32_t i = 0; i < tls_used && !slot; i++)
      if (tls_tab[i].v[0] == 0 && tls_tab[i].v[1] == 0) slot = &tls_tab[i];
    if (!slot) slot = tls_used < TLS_ENTRIES ? &tls_tab[tls_used++] : &tls_tab[0];
    slot->rt_id = rt->id;
    slot->v[0] = slot->v[1] = 0;
  }
  uint64_t old = slot->v[which];
  slot->v[which] = keys;
  return old;
}

/* ---- values ------------------------------------------------------------------ */

void tabi_value_release_impl(tabi_value *v) {
  if (!v) return;
  if (v->tag == TABI_TAG_TENSOR) {
    tabi_tensor_release(v->u.t);
  } else if (v->tag == TABI_TAG_TENSOR_LIST) {
    tabi_tensor **a = (tabi_tensor **)(uintptr_t)v->u.list.data;
    for (int64_t i = 0; a && i < v->u.list.len; i++) tabi_tensor_release(a[i]);
    free(a);
  }
  *v = tabi_none();
}

TABI_API void tabi_value_release(tabi_value *v) { tabi_value_release_impl(v); }

tabi_status tabi_list_alloc_impl(int64_t n, tabi_tensor ***out) {
  if (!out) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "list_alloc: NULL out_array");
  *out = NULL;
  if (n < 0 || n > (int64_t)1 << 40)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "list_alloc: bad length %lld", (long long)n);
  *out = calloc((size_t)(n ? n : 1), sizeof(tabi_tensor *));
  if (!*out) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "list_alloc: out of memory");
  return TABI_OK;
}

/* ---- argument checking --------------------------------------------------------- */

static const char *type_name(const tabi_arg_info *a, char *buf, size_t n) {
  const char *b;
  switch (a->type) {
    case TABI_TYPE_TENSOR: b = "Tensor"; break;
    case TABI_TYPE_INT: b = "int"; break;
    case TABI_TYPE_FLOAT: b = "float"; break;
    case TABI_TYPE_BOOL: b = "bool"; break;
    case TABI_TYPE_SCALAR: b = "Scalar"; break;
    case TABI_TYPE_SCALAR_TYPE: b = "ScalarType"; break;
    case TABI_TYPE_DEVICE: b = "Device"; break;
    case TABI_TYPE_STRING: b = "str"; break;
    case TABI_TYPE_LAYOUT: b = "Layout"; break;
    case TABI_TYPE_MEMORY_FORMAT: b = "MemoryFormat"; break;
    case TABI_TYPE_INT_LIST: b = "int[]"; break;
    case TABI_TYPE_FLOAT_LIST: b = "float[]"; break;
    case TABI_TYPE_BOOL_LIST: b = "bool[]"; break;
    case TABI_TYPE_TENSOR_LIST: b = (a->flags & TABI_ARG_ELEM_OPTIONAL) ? "Tensor?[]" : "Tensor[]"; break;
    default: b = "?"; break;
  }
  snprintf(buf, n, "%s%s", b, (a->flags & TABI_ARG_OPTIONAL) ? "?" : "");
  return buf;
}

static tabi_status bad_type(const op_entry *e, int32_t i, const tabi_value *v) {
  char tb[32];
  const tabi_arg_info *a = &e->info.args[i];
  return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                        "%s: argument '%s' (position %d) must be %s, got %s", e->info.name,
                        a->name, (int)i, type_name(a, tb, sizeof tb), tabi_tag_name(v->tag));
}

typedef struct devck {
  uint64_t keys;
  const tabi_tensor *prim;   /* first tensor that is not a 0-d CPU tensor */
  int32_t prim_arg, prim_elem;
  int32_t any_tensor;
} devck;

static tabi_status device_mismatch(tabi_runtime *rt, const op_entry *e, const devck *c, int32_t i,
                                   int64_t elem, const tabi_tensor *t) {
  char d1[48], d2[48], n1[64], n2[64];
  const char *a = e->info.args[i].name, *b = e->info.args[c->prim_arg].name;
  if (elem >= 0) snprintf(n1, sizeof n1, "'%s'[%lld]", a, (long long)elem);
  else snprintf(n1, sizeof n1, "'%s'", a);
  if (c->prim_elem >= 0) snprintf(n2, sizeof n2, "'%s'[%d]", b, (int)c->prim_elem);
  else snprintf(n2, sizeof n2, "'%s'", b);
  return tabi_set_error(TABI_ERR_DEVICE, "%s: argument %s is on %s but %s is on %s",
                        e->info.name, n1, tabi_device_str(rt, t->dl.device, d1, sizeof d1), n2,
                        tabi_device_str(rt, c->prim->dl.device, d2, sizeof d2));
}

static inline tabi_status note_tensor(tabi_runtime *rt, const op_entry *e, devck *c, int32_t i,
                                      int64_t elem, const tabi_tensor *t, uint32_t flags) {
  c->keys |= t->keys;
  c->any_tensor = 1;
  if ((flags & TABI_ARG_MUTABLE) && (t->flags & TABI_TENSOR_READ_ONLY) && !e->alias_only)
    return tabi_set_error(TABI_ERR_READ_ONLY,
                          "%s: argument '%s' is written in place but the tensor is read-only",
                          e->info.name, e->info.args[i].name);
  /* ATen lets 0-d CPU tensors mix with any device: they act as scalars. */
  if (t->dl.device.device_type == kDLCPU && t->dl.ndim == 0) return TABI_OK;
  if (!c->prim) {
    c->prim = t;
    c->prim_arg = i;
    c->prim_elem = (int32_t)elem;
    return TABI_OK;
  }
  if (t->dl.device.device_type != c->prim->dl.device.device_type ||
      t->dl.device.device_id != c->prim->dl.device.device_id)
    return device_mismatch(rt, e, c, i, elem, t);
  return TABI_OK;
}

static tabi_status check_list(const op_entry *e, int32_t i, const tabi_value *v) {
  if (v->u.list.len < 0 || (v->u.list.len > 0 && !v->u.list.data))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                          "%s: argument '%s' (position %d) is a list of length %lld with %s data",
                          e->info.name, e->info.args[i].name, (int)i, (long long)v->u.list.len,
                          v->u.list.data ? "non-NULL" : "NULL");
  return TABI_OK;
}

/* Checks args[i] (already defaulted) against the schema; may rewrite *v (int to
 * float, a single int to a fixed-size list). */
static tabi_status check_arg(tabi_runtime *rt, const op_entry *e, int32_t i, tabi_value *v,
                             devck *c, int64_t *expand, int32_t *nexp) {
  const tabi_arg_info *a = &e->info.args[i];
  if (v->tag == TABI_TAG_NONE) {
    if (a->flags & TABI_ARG_OPTIONAL) return TABI_OK;
    return bad_type(e, i, v);
  }
  switch (a->type) {
    case TABI_TYPE_TENSOR:
      if (v->tag != TABI_TAG_TENSOR) return bad_type(e, i, v);
      if (!v->u.t)
        return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                              "%s: argument '%s' (position %d) is a NULL tensor", e->info.name,
                              a->name, (int)i);
      return note_tensor(rt, e, c, i, -1, v->u.t, a->flags);
    case TABI_TYPE_INT: case TABI_TYPE_LAYOUT: case TABI_TYPE_MEMORY_FORMAT:
      return v->tag == TABI_TAG_INT ? TABI_OK : bad_type(e, i, v);
    case TABI_TYPE_FLOAT:
      if (v->tag == TABI_TAG_INT) *v = tabi_float((double)v->u.i);
      return v->tag == TABI_TAG_FLOAT ? TABI_OK : bad_type(e, i, v);
    case TABI_TYPE_BOOL:
      return v->tag == TABI_TAG_BOOL ? TABI_OK : bad_type(e, i, v);
    case TABI_TYPE_SCALAR:
      return (v->tag >= TABI_TAG_BOOL && v->tag <= TABI_TAG_COMPLEX) ? TABI_OK : bad_type(e, i, v);
    case TABI_TYPE_SCALAR_TYPE:
      if (v->tag == TABI_TAG_INT && v->u.i >= 0 && v->u.i < 64) *v = tabi_dtype_value((tabi_dtype)v->u.i);
      if (v->tag != TABI_TAG_DTYPE) return bad_type(e, i, v);
      if (tabi_dtype_size(v->u.dtype) == 0)
        return tabi_set_error(TABI_ERR_TYPE, "%s: argument '%s' (position %d) is dtype %d, not a "
                              "supported ScalarType", e->info.name, a->name, (int)i, (int)v->u.dtype);
      return TABI_OK;
    case TABI_TYPE_DEVICE:
      return v->tag == TABI_TAG_DEVICE ? TABI_OK : bad_type(e, i, v);
    case TABI_TYPE_STRING:
      if (v->tag != TABI_TAG_STRING) return bad_type(e, i, v);
      return check_list(e, i, v);
    case TABI_TYPE_INT_LIST: case TABI_TYPE_BOOL_LIST: {
      int32_t elem_tag = a->type == TABI_TYPE_INT_LIST ? TABI_TAG_INT : TABI_TAG_BOOL;
      int32_t list_tag = a->type == TABI_TYPE_INT_LIST ? TABI_TAG_INT_LIST : TABI_TAG_BOOL_LIST;
      if (v->tag == elem_tag && a->fixed_len > 0) {
        /* `int[2]` given one int: expand into the per-call buffer. */
        if (*nexp + a->fixed_len > EXPAND_BUF)
          return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: argument '%s': too many fixed-size "
                                "lists to expand", e->info.name, a->name);
        int64_t *d = expand + *nexp;
        for (int32_t k = 0; k < a->fixed_len; k++) d[k] = v->u.i;
        *nexp += a->fixed_len;
        *v = tabi_int_list(d, a->fixed_len);
        v->tag = list_tag;
        return TABI_OK;
      }
      if (v->tag != list_tag) return bad_type(e, i, v);
      return check_list(e, i, v);
    }
    case TABI_TYPE_FLOAT_LIST:
      if (v->tag != TABI_TAG_FLOAT_LIST) return bad_type(e, i, v);
      return check_list(e, i, v);
    case TABI_TYPE_TENSOR_LIST: {
      if (v->tag != TABI_TAG_TENSOR_LIST) return bad_type(e, i, v);
      tabi_status st = check_list(e, i, v);
      if (st != TABI_OK) return st;
      tabi_tensor *const *ts = tabi_value_tensors(v);
      for (int64_t k = 0; k < v->u.list.len; k++) {
        if (!ts[k]) {
          if (a->flags & TABI_ARG_ELEM_OPTIONAL) continue;
          return tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                                "%s: argument '%s' (position %d) element %lld is a NULL tensor",
                                e->info.name, a->name, (int)i, (long long)k);
        }
        st = note_tensor(rt, e, c, i, k, ts[k], a->flags);
        if (st != TABI_OK) return st;
      }
      return TABI_OK;
    }
    default:
      return tabi_set_error(TABI_ERR_INTERNAL, "%s: argument '%s' has unknown type %d",
                            e->info.name, a->name, (int)a->type);
  }
}

static int ret_ok(const tabi_arg_info *r, const tabi_value *v, int32_t masked) {
  if (v->tag == TABI_TAG_NONE)
    return (r->flags & TABI_ARG_OPTIONAL) != 0 || (masked && r->type == TABI_TYPE_TENSOR);
  switch (r->type) {
    case TABI_TYPE_TENSOR: return v->tag == TABI_TAG_TENSOR && v->u.t;
    case TABI_TYPE_TENSOR_LIST: {
      if (v->tag != TABI_TAG_TENSOR_LIST || v->u.list.len < 0) return 0;
      if (v->u.list.len > 0 && !v->u.list.data) return 0;
      if (r->flags & TABI_ARG_ELEM_OPTIONAL) return 1;
      for (int64_t k = 0; k < v->u.list.len; k++)
        if (!tabi_value_tensors(v)[k]) return 0;
      return 1;
    }
    case TABI_TYPE_SCALAR: return v->tag >= TABI_TAG_BOOL && v->tag <= TABI_TAG_COMPLEX;
    case TABI_TYPE_INT: case TABI_TYPE_LAYOUT: case TABI_TYPE_MEMORY_FORMAT:
      return v->tag == TABI_TAG_INT;
    case TABI_TYPE_FLOAT: return v->tag == TABI_TAG_FLOAT;
    case TABI_TYPE_BOOL: return v->tag == TABI_TAG_BOOL;
    case TABI_TYPE_SCALAR_TYPE: return v->tag == TABI_TAG_DTYPE;
    case TABI_TYPE_DEVICE: return v->tag == TABI_TAG_DEVICE;
    case TABI_TYPE_INT_LIST: return v->tag == TABI_TAG_INT_LIST;
    case TABI_TYPE_FLOAT_LIST: return v->tag == TABI_TAG_FLOAT_LIST;
    case TABI_TYPE_BOOL_LIST: return v->tag == TABI_TAG_BOOL_LIST;
    default: return 0; /* str: never returned */
  }
}

/* ---- running kernels ------------------------------------------------------------ */

static tabi_status no_kernel(const dispatch_state *st) {
  char d[48];
  return tabi_set_error(TABI_ERR_UNIMPLEMENTED,
                        "%s has no kernel for device %s (no native kernel and no decomposition)",
                        st->e->info.name, tabi_device_str(st->rt, st->device, d, sizeof d));
}

/* A failed call's message names its op: a kernel that gave none gets one, and
 * a message set below the op (the core's allocator, a decomposition's inner
 * op: "allocator: cpu: cannot allocate ...") is prefixed with the op's name
 * unless it already mentions it (by namespace::name, any overload). */
__attribute__((cold, noinline)) /* off the dispatch path: errors only */
static void name_failed_op(const char *name, const disp_entry *k, tabi_status s, uint32_t seq) {
  if (tabi_error_seq() == seq) {
    tabi_set_error(s, "%s: the kernel of plugin '%s' failed with %s without a message", name,
                   k->plugin && k->plugin->name ? k->plugin->name : "?", tabi_status_name(s));
    return;
  }
  char base[128];
  size_t ns = strstr(name, "::") ? (size_t)(strstr(name, "::") - name) + 2 : 0;
  size_t n = ns + strcspn(name + ns, ".");
  if (n >= sizeof base) n = sizeof base - 1;
  memcpy(base, name, n);
  base[n] = 0;
  if (!strstr(tabi_last_error(), base)) tabi_set_error(s, "%s: %s", name, tabi_last_error());
}

static inline tabi_status run_kernel(dispatch_state *st, uint64_t keys, tabi_value *args,
                                     tabi_value *outs, int32_t nouts) {
  int32_t bit = 63 - __builtin_clzll(keys);
  const disp_entry *k = &st->table->e[bit];
  tabi_call call;
  call.struct_size = sizeof call;
  call.op = st->e->handle;
  call.keys = keys;
  call.key = bit;
  call.nargs = st->e->info.nargs;
  call.nouts = nouts;
  call.reserved = 0;
  call.dispatch = st;
  uint32_t seq = tabi_error_seq();
  tabi_status s = k->fn(k->ctx, &call, args, outs);
  if (s != TABI_OK) name_failed_op(st->e->info.name, k, s, seq);
  return s;
}

tabi_status tabi_dispatch_call(tabi_runtime *rt, tabi_op op, tabi_value *args, int32_t nargs,
                               tabi_value *outs, int32_t nouts) {
  if (!rt) return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "tabi_call: NULL runtime");
  op_entry *e = tabi_op_get(rt, op);
  if (!e) return tabi_set_error(TABI_ERR_NOT_FOUND, "tabi_call: no op with handle %d", (int)op);
  const tabi_op_info *info = &e->info;
  const int32_t n = info->nargs, nr = info->nreturns;
  if (nargs < 0 || nargs > n || (nargs > 0 && !args))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: takes %d arguments but %d were given%s",
                          info->name, (int)n, (int)nargs, nargs > 0 && !args ? " (args is NULL)" : "");
  if (nouts < nr || (nouts > 0 && !outs))
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "%s: returns %d values but %d output slots "
                          "were given%s", info->name, (int)nr, (int)nouts,
                          nouts > 0 && !outs ? " (outs is NULL)" : "");
  tabi_value stackv[LOCAL_ARGS];
  int64_t expand[EXPAND_BUF];
  int32_t nexp = 0;
  tabi_value *local = stackv;
  if (n > LOCAL_ARGS) {
    local = malloc(sizeof(tabi_value) * (size_t)n);
    if (!local) return tabi_set_error(TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", info->name);
  }
  devck c = {0, NULL, -1, -1, 0};
  tabi_status s = TABI_OK;
  for (int32_t i = 0; i < n; i++) {
    const tabi_arg_info *a = &info->args[i];
    /* Filled and checked in place: building a value elsewhere and copying it
     * costs a store-forwarding stall per argument. */
    if (i < nargs && args[i].tag != TABI_TAG_DEFAULT) {
      local[i] = args[i];
    } else if (a->flags & TABI_ARG_HAS_DEFAULT) {
      local[i] = a->default_value;
    } else {
      s = tabi_set_error(TABI_ERR_INVALID_ARGUMENT,
                         "%s: argument '%s' (position %d) is required and has no default",
                         info->name, a->name, (int)i);
      goto done;
    }
    s = check_arg(rt, e, i, &local[i], &c, expand, &nexp);
    if (s != TABI_OK) goto done;
  }

  dispatch_state st;
  st.rt = rt;
  st.e = e;
  if (c.prim) {
    st.device = c.prim->dl.device;
  } else if (!c.any_tensor && e->device_arg >= 0 && local[e->device_arg].tag == TABI_TAG_DEVICE) {
    st.device = local[e->device_arg].u.device;
  } else {
    st.device.device_type = kDLCPU;
    st.device.device_id = 0;
  }
  if (st.device.device_type < 1 || st.device.device_type > TABI_MAX_DEVICE_TYPE) {
    s = tabi_set_error(TABI_ERR_DEVICE, "%s: device type %d is not supported", info->name,
                       (int)st.device.device_type);
    goto done;
  }
  uint64_t en, ex;
  tls_read(rt, &en, &ex);
  st.table = atomic_load_explicit(&e->table, memory_order_acquire);
  uint64_t keys = (c.keys & ~TABI_BACKEND_MASK) | TABI_BACKEND_KEY(st.device.device_type);
  keys = (keys | en) & ~ex & st.table->mask;
  for (int32_t i = 0; i < nouts; i++) outs[i] = tabi_none();
  if (!keys) {
    s = no_kernel(&st);
    goto done;
  }
  s = run_kernel(&st, keys, local, outs, nouts);
  if (s == TABI_OK) {
    for (int32_t r = 0; r < nr; r++) {
      if (ret_ok(&info->returns[r], &outs[r], e->masked_returns)) continue;
      char tb[32];
      const disp_entry *k = &st.table->e[63 - __builtin_clzll(keys)];
      int32_t got = outs[r].tag;
      for (int32_t j = 0; j < nouts; j++) tabi_value_release_impl(&outs[j]);
      s = tabi_set_error(TABI_ERR_PLUGIN,
                         "%s: the kernel of plugin '%s' returned OK but output %d is %s where "
                         "the schema returns %s", info->name,
                         k->plugin && k->plugin->name ? k->plugin->name : "?", (int)r,
                         got == TABI_TAG_TENSOR ? "a NULL tensor" : tabi_tag_name(got),
                         type_name(&info->returns[r], tb, sizeof tb));
      break;
    }
  }
done:
  if (local != stackv) free(local);
  return s;
}

tabi_status tabi_dispatch_redispatch(const tabi_call *call, tabi_value *args, tabi_value *outs) {
  if (!call || !call->dispatch)
    return tabi_set_error(TABI_ERR_INVALID_ARGUMENT, "redispatch: not called from a kernel");
  dispatch_state *st = call->dispatch;
  uint64_t below = call->key <= 0 ? 0 : call->keys & ((UINT64_C(1) << call->key) - 1);
  if (!below) return no_kernel(st);
  return run_kernel(st, below, args, outs, call->nouts);
}

TABI_API tabi_status tabi_call_op(tabi_runtime *rt, tabi_op op, tabi_value *args, int32_t nargs,
                                  tabi_value *outs, int32_t nouts) {
  return tabi_dispatch_call(rt, op, args, nargs, outs, nouts);
}
