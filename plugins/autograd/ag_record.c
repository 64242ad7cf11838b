/* ag_record.c: the autograd layer's kernel, a boxed fallback for every op.
 *
 * A call reaches it only when a tensor argument carries the layer's key (it
 * requires grad, or autograd watches its version) and grad mode is on. It runs
 * the layers below with the layer excluded on this thread (so decompositions
 * and backends calling ops record nothing), then records a node when some
 * input requires grad.
 */
#include <stdlib.h>
#include <string.h>

#include "ag.h"

const ag_formula *ag_formula_for(ag_state *st, tabi_op op) {
  if (op < 0 || op >= st->nformulas) return NULL;
  return st->by_op[op];
}

static const tabi_arg_info *arg_at(const tabi_op_info *info, const tabi_arg_info *base, int32_t i) {
  return (const tabi_arg_info *)((const char *)base + (size_t)i * info->arg_info_size);
}

static tabi_status below(ag_state *st, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = st->h;
  uint64_t ex = h->tls_get(h->ctx, TABI_TLS_EXCLUDED);
  h->tls_set(h->ctx, TABI_TLS_EXCLUDED, ex | st->key);
  tabi_status s = h->redispatch(h->ctx, call, args, outs);
  h->tls_set(h->ctx, TABI_TLS_EXCLUDED, ex);
  return s;
}

static int is_diff_dtype(tabi_dtype d) { return tabi_dtype_is_floating(d) || tabi_dtype_is_complex(d); }

/* The flattened output tensors of a call: Tensor returns and Tensor[] elements. */
typedef struct outlist {
  int32_t n;
  tabi_tensor **p[64];
} outlist;

static void collect_outs(const tabi_op_info *info, tabi_value *outs, outlist *ol) {
  ol->n = 0;
  for (int32_t r = 0; r < info->nreturns; r++) {
    if (outs[r].tag == TABI_TAG_TENSOR && outs[r].u.t) {
      if (ol->n < 64) ol->p[ol->n++] = &outs[r].u.t;
    } else if (outs[r].tag == TABI_TAG_TENSOR_LIST) {
      tabi_tensor **a = (tabi_tensor **)(uintptr_t)outs[r].u.list.data;
      for (int64_t k = 0; k < outs[r].u.list.len; k++)
        if (a[k] && ol->n < 64) ol->p[ol->n++] = &a[k];
    }
  }
}

/* The input whose storage a return aliases (`Tensor(a) self -> Tensor(a)`). */
static tabi_tensor *aliased_input(const tabi_op_info *info, tabi_value *args, int32_t r) {
  if (r >= info->nreturns) r = info->nreturns - 1;
  if (r < 0) return NULL;
  const tabi_arg_info *ret = arg_at(info, info->returns, r);
  if (ret->alias_set < 0) return NULL;
  for (int32_t i = 0; i < info->nargs; i++) {
    const tabi_arg_info *a = arg_at(info, info->args, i);
    if (a->alias_set == ret->alias_set && args[i].tag == TABI_TAG_TENSOR) return args[i].u.t;
  }
  return NULL;
}

static int is_mutable_input(const tabi_op_info *info, tabi_value *args, const tabi_tensor *t) {
  for (int32_t i = 0; i < info->nargs; i++) {
    const tabi_arg_info *a = arg_at(info, info->args, i);
    if ((a->flags & TABI_ARG_MUTABLE) && args[i].tag == TABI_TAG_TENSOR && args[i].u.t == t)
      return 1;
  }
  return 0;
}

/* Outputs that do not require grad: a view of a watched tensor shares its
 * version counter; anything else loses the layer's key a view may inherit. */
static void plain_output(ag_state *st, const tabi_op_info *info, tabi_value *args, int32_t r,
                         tabi_tensor *o) {
  const tabi_host_api *h = st->h;
  if (!(o->keys & st->key) || is_mutable_input(info, args, o)) return;
  tabi_tensor *base = aliased_input(info, args, r);
  ag_meta *bm = base ? ag_meta_get(st, base) : NULL;
  ag_meta *om = ag_meta_get(st, o);
  if (om && om->requires_grad) return; /* returned an input as is */
  if (bm && bm->vc) {
    om = ag_meta_ensure(st, o);
    if (om && om->vc != bm->vc) {
      ag_vc_unref(om->vc);
      ag_vc_ref(bm->vc);
      om->vc = bm->vc;
    }
    return;
  }
  h->tensor_set_keys(h->ctx, o, o->keys & ~st->key);
}

static void bump_mutables(ag_state *st, const tabi_op_info *info, const ag_formula *f,
                          tabi_value *args) {
  if (f && (f->flags & AG_F_IGNORE_MUT)) return;
  for (int32_t i = 0; i < info->nargs; i++) {
    const tabi_arg_info *a = arg_at(info, info->args, i);
    if (!(a->flags & TABI_ARG_MUTABLE) || args[i].tag != TABI_TAG_TENSOR) continue;
    ag_meta *m = ag_meta_get(st, args[i].u.t);
    if (m && m->vc) {
      atomic_fetch_add(&m->vc->version, 1u);
      m->vc->last_op = info->name;
    }
  }
}

static void fix_plain_outputs(ag_state *st, const tabi_op_info *info, tabi_value *args,
                              tabi_value *outs) {
  for (int32_t r = 0; r < info->nreturns; r++) {
    if (outs[r].tag == TABI_TAG_TENSOR && outs[r].u.t) {
      plain_output(st, info, args, r, outs[r].u.t);
    } else if (outs[r].tag == TABI_TAG_TENSOR_LIST) {
      tabi_tensor **a = (tabi_tensor **)(uintptr_t)outs[r].u.list.data;
      for (int64_t k = 0; k < outs[r].u.list.len; k++)
        if (a[k]) plain_output(st, info, args, r, a[k]);
    }
  }
}

static tabi_status copy_value(const tabi_host_api *h, const tabi_value *src, tabi_value *dst) {
  *dst = *src;
  size_t esz = 0;
  switch (src->tag) {
    case TABI_TAG_TENSOR: h->tensor_retain(h->ctx, src->u.t); return TABI_OK;
    case TABI_TAG_TENSOR_LIST: {
      int64_t n = src->u.list.len;
      tabi_tensor **a = calloc((size_t)(n ? n : 1), sizeof *a);
      if (!a) return TABI_ERR_OUT_OF_MEMORY;
      for (int64_t k = 0; k < n; k++) {
        a[k] = tabi_value_tensors(src)[k];
        if (a[k]) h->tensor_retain(h->ctx, a[k]);
      }
      dst->u.list.data = a;
      return TABI_OK;
    }
    case TABI_TAG_INT_LIST: case TABI_TAG_BOOL_LIST: esz = sizeof(int64_t); break;
    case TABI_TAG_FLOAT_LIST: esz = sizeof(double); break;
    case TABI_TAG_STRING: esz = 1; break;
    default: return TABI_OK;
  }
  size_t n = (size_t)src->u.list.len;
  void *p = malloc(n * esz + 1);
  if (!p) { *dst = tabi_none(); return TABI_ERR_OUT_OF_MEMORY; }
  if (n) memcpy(p, src->u.list.data, n * esz);
  dst->u.list.data = p;
  return TABI_OK;
}

static tabi_status oom(ag_state *st, const char *op) {
  return TABI_ERR(st->h, TABI_ERR_OUT_OF_MEMORY, "%s: autograd: out of memory recording the graph", op);
}

/* Builds the node for a call that ran; on failure the caller drops the outputs. */
static tabi_status record(ag_state *st, const tabi_op_info *info, const tabi_call *call,
                          const ag_formula *f, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = st->h;
  ag_node *n = calloc(1, sizeof *n);
  if (!n) return oom(st, info->name);
  atomic_init(&n->refs, 1);
  n->st = st;
  n->op = call->op;
  n->name = info->name;
  n->f = f;
  n->nargs = info->nargs;
  n->args = calloc((size_t)(info->nargs ? info->nargs : 1), sizeof *n->args);
  n->arg_slot = calloc((size_t)(info->nargs ? info->nargs : 1), sizeof *n->arg_slot);
  if (!n->args || !n->arg_slot) goto fail;
  /* Versions move first, so a saved in-place target is saved at its new version. */
  bump_mutables(st, info, f, args);
  int32_t nin = 0;
  for (int32_t i = 0; i < info->nargs; i++) {
    n->arg_slot[i] = -1;
    if (args[i].tag == TABI_TAG_TENSOR) { n->arg_slot[i] = nin; nin += 1; }
    else if (args[i].tag == TABI_TAG_TENSOR_LIST) { n->arg_slot[i] = nin; nin += (int32_t)args[i].u.list.len; }
  }
  n->nin = nin;
  n->next = calloc((size_t)(nin ? nin : 1), sizeof *n->next);
  n->in_meta = calloc((size_t)(nin ? nin : 1), sizeof *n->in_meta);
  n->saved = calloc((size_t)(nin ? nin : 1) + 64, sizeof *n->saved);
  if (!n->next || !n->in_meta || !n->saved) goto fail;
  for (int32_t i = 0; i < info->nargs; i++) {
    const tabi_arg_info *a = arg_at(info, info->args, i);
    int mut = (a->flags & TABI_ARG_MUTABLE) && !(f && (f->flags & AG_F_IGNORE_MUT));
    if (args[i].tag != TABI_TAG_TENSOR && args[i].tag != TABI_TAG_TENSOR_LIST) {
      if (copy_value(h, &args[i], &n->args[i]) != TABI_OK) goto fail;
      continue;
    }
    if ((mut && !(f && (f->flags & AG_F_SAVE_MUTABLE))) || !f) {
      n->args[i] = tabi_none(); /* in-place targets: the formula never reads them */
      continue;
    }
    if (copy_value(h, &args[i], &n->args[i]) != TABI_OK) goto fail;
    int64_t cnt = args[i].tag == TABI_TAG_TENSOR ? 1 : args[i].u.list.len;
    for (int64_t k = 0; k < cnt; k++) {
      tabi_tensor *t = args[i].tag == TABI_TAG_TENSOR ? args[i].u.t : tabi_value_tensors(&args[i])[k];
      int32_t slot = n->arg_slot[i] + (int32_t)k;
      if (!t) continue;
      ag_tmeta_set(&n->in_meta[slot], t);
      ag_meta *m = ag_meta_get(st, t);
      if (m && m->requires_grad) {
        if (m->grad_fn) {
          ag_node_ref(m->grad_fn);
          n->next[slot].node = m->grad_fn;
          n->next[slot].nr = m->output_nr;
        } else {
          h->tensor_retain(h->ctx, t);
          n->next[slot].leaf = t;
        }
      }
      m = ag_meta_ensure(st, t);
      if (m && m->vc) {
        ag_vc_ref(m->vc);
        n->saved[n->nsaved].vc = m->vc;
        n->saved[n->nsaved].version = atomic_load(&m->vc->version);
        n->nsaved++;
      }
    }
  }

  outlist ol;
  collect_outs(info, outs, &ol);
  n->nout = ol.n;
  n->out_meta = calloc((size_t)(ol.n ? ol.n : 1), sizeof *n->out_meta);
  n->retain = calloc((size_t)(ol.n ? ol.n : 1), sizeof *n->retain);
  if (!n->out_meta || !n->retain) goto fail;
  if (f && (f->flags & AG_F_SAVE_OUTPUTS)) {
    n->saved_out = calloc((size_t)(ol.n ? ol.n : 1), sizeof *n->saved_out);
    if (!n->saved_out) goto fail;
  }
  /* Which return each flattened output came from, for alias lookups. */
  int32_t ret_of[64];
  {
    int32_t k = 0;
    for (int32_t r = 0; r < info->nreturns && k < 64; r++) {
      if (outs[r].tag == TABI_TAG_TENSOR && outs[r].u.t) ret_of[k++] = r;
      else if (outs[r].tag == TABI_TAG_TENSOR_LIST)
        for (int64_t e = 0; e < outs[r].u.list.len && k < 64; e++)
          if (tabi_value_tensors(&outs[r])[e]) ret_of[k++] = r;
    }
  }
  for (int32_t k = 0; k < ol.n; k++) {
    tabi_tensor *o = *ol.p[k];
    ag_tmeta_set(&n->out_meta[k], o);
    int mut = is_mutable_input(info, args, o);
    if (!mut) {
      /* A kernel that hands an input back as is must not turn that input into
       * a non-leaf: give the output its own tensor object. */
      for (int32_t i = 0; i < info->nargs; i++) {
        if (args[i].tag == TABI_TAG_TENSOR && args[i].u.t == o) {
          tabi_tensor *v = NULL;
          if (h->tensor_view(h->ctx, o, o->dl.ndim, o->dl.shape, o->dl.strides,
                             (int64_t)o->dl.byte_offset, &v) != TABI_OK)
            goto fail;
          h->tensor_set_keys(h->ctx, v, v->keys & ~st->key);
          h->tensor_release(h->ctx, o);
          *ol.p[k] = o = v;
          break;
        }
      }
    }
    if (n->saved_out) {
      tabi_tensor *v = NULL;
      if (h->tensor_view(h->ctx, o, o->dl.ndim, o->dl.shape, o->dl.strides,
                         (int64_t)o->dl.byte_offset, &v) != TABI_OK)
        goto fail;
      h->tensor_set_keys(h->ctx, v, v->keys & ~st->key);
      n->saved_out[k] = v;
    }
    if (!is_diff_dtype(tabi_tensor_dtype(o)) || (f && k < 32 && (f->nodiff_outs >> k) & 1u)) {
      plain_output(st, info, args, ret_of[k], o);
      continue;
    }
    ag_meta *m = ag_meta_ensure(st, o);
    if (!m) goto fail;
    tabi_tensor *base = mut ? NULL : aliased_input(info, args, ret_of[k]);
    ag_meta *bm = base ? ag_meta_get(st, base) : NULL;
    if (bm && bm->vc && m->vc != bm->vc) {
      ag_vc_unref(m->vc);
      ag_vc_ref(bm->vc);
      m->vc = bm->vc;
      m->view_of_grad = bm->requires_grad;
    }
    ag_node *old = m->grad_fn;
    ag_node_ref(n);
    m->grad_fn = n;
    m->output_nr = k;
    m->requires_grad = 1;
    ag_node_unref(old);
    if (n->saved_out) {
      if (m->vc) {
        ag_vc_ref(m->vc);
        n->saved[n->nsaved].vc = m->vc;
        n->saved[n->nsaved].version = atomic_load(&m->vc->version);
        n->nsaved++;
      }
    }
  }
  ag_node_unref(n); /* the outputs hold it now */
  return TABI_OK;
fail:
  ag_node_unref(n);
  return oom(st, info->name);
}

tabi_status ag_kernel(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  ag_state *st = ctx;
  const tabi_host_api *h = st->h;
  const tabi_op_info *info = h->op_info(h->ctx, call->op);
  if (!info) return TABI_ERR(h, TABI_ERR_INTERNAL, "autograd: no op info for handle %d", (int)call->op);
  const ag_formula *f = ag_formula_for(st, call->op);
  int32_t any = 0, has_mut = 0, out_arg = 0;
  for (int32_t i = 0; i < info->nargs; i++) {
    const tabi_arg_info *a = arg_at(info, info->args, i);
    if (args[i].tag == TABI_TAG_TENSOR) {
      ag_meta *m = ag_meta_get(st, args[i].u.t);
      if ((a->flags & TABI_ARG_MUTABLE) && !(f && (f->flags & AG_F_IGNORE_MUT))) {
        has_mut = 1;
        if (a->flags & TABI_ARG_KWARG_ONLY) out_arg = 1;
        if (m && m->requires_grad && !m->grad_fn)
          return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                          "%s: a leaf tensor that requires grad is being used in an in-place "
                          "operation (argument '%s')", info->name, a->name);
        if (m && m->view_of_grad)
          return TABI_ERR(h, TABI_ERR_UNIMPLEMENTED,
                          "%s: an in-place write to a view of a tensor that requires grad "
                          "(argument '%s') is not supported by tabi autograd", info->name, a->name);
      }
      if (m && m->requires_grad) any = 1;
    } else if (args[i].tag == TABI_TAG_TENSOR_LIST) {
      for (int64_t k = 0; k < args[i].u.list.len; k++)
        if (ag_requires_grad(st, tabi_value_tensors(&args[i])[k])) any = 1;
    }
  }
  if (any && out_arg)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                    "%s: functions with out=... arguments don't support automatic "
                    "differentiation, but one of the arguments requires grad", info->name);
  if (any && has_mut && !f)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                    "%s: cannot run this in-place operation on tensors that require grad",
                    info->name);
  tabi_status s = below(st, call, args, outs);
  if (s != TABI_OK) return s;
  if (!any || (f && (f->flags & AG_F_NO_GRAD))) {
    if (has_mut) bump_mutables(st, info, f, args);
    fix_plain_outputs(st, info, args, outs);
    return TABI_OK;
  }
  /* No derivative: integer outputs simply do not require grad; floating ones get
   * a node that fails at backward, naming the op. */
  if (!f) {
    outlist ol;
    collect_outs(info, outs, &ol);
    int diff = 0;
    for (int32_t k = 0; k < ol.n; k++) diff |= is_diff_dtype(tabi_tensor_dtype(*ol.p[k]));
    if (!diff) {
      fix_plain_outputs(st, info, args, outs);
      return TABI_OK;
    }
  }
  s = record(st, info, call, f, args, outs);
  if (s != TABI_OK)
    for (int32_t r = 0; r < call->nouts; r++) h->value_release(h->ctx, &outs[r]);
  return s;
}
