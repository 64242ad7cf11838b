/* ag_plugin.c: the autograd plugin's entry point and the "tabi.autograd"
 * extension (abi/tabi/ext_autograd.h). */
#include <stdlib.h>
#include <string.h>

#include "ag.h"

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out);

/* --- the extension ---------------------------------------------------------- */

static tabi_status x_set_requires_grad(void *ctx, tabi_tensor *t, int32_t rg) {
  ag_state *st = ctx;
  if (!t) return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT, "autograd set_requires_grad: NULL tensor");
  ag_meta *m = ag_meta_get(st, t);
  if (m && m->grad_fn && !rg)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                    "autograd set_requires_grad: you can only change requires_grad flags of leaf "
                    "variables (this tensor is the output of %s)", m->grad_fn->name);
  if (m && m->grad_fn) return TABI_OK;
  if (rg) {
    tabi_dtype d = tabi_tensor_dtype(t);
    if (!tabi_dtype_is_floating(d) && !tabi_dtype_is_complex(d))
      return TABI_ERR(st->h, TABI_ERR_TYPE,
                      "autograd set_requires_grad: only tensors of floating point and complex "
                      "dtype can require gradients (got %s)", tabi_dtype_name(d));
    m = ag_meta_ensure(st, t);
    if (!m) return TABI_ERR(st->h, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory");
  }
  if (m) m->requires_grad = rg != 0;
  return TABI_OK;
}

static int32_t x_requires_grad(void *ctx, const tabi_tensor *t) { return ag_requires_grad(ctx, t); }

static int32_t x_is_leaf(void *ctx, const tabi_tensor *t) {
  ag_meta *m = ag_meta_get(ctx, t);
  return !m || !m->grad_fn;
}

static tabi_status x_grad(void *ctx, const tabi_tensor *t, tabi_tensor **out) {
  ag_state *st = ctx;
  if (!out) return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT, "autograd grad: NULL out_grad");
  *out = NULL;
  ag_meta *m = ag_meta_get(st, t);
  if (m && m->grad) {
    st->h->tensor_retain(st->h->ctx, m->grad);
    *out = m->grad;
  }
  return TABI_OK;
}

static tabi_status x_set_grad(void *ctx, tabi_tensor *t, tabi_tensor *g) {
  ag_state *st = ctx;
  if (!t) return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT, "autograd set_grad: NULL tensor");
  if (g) {
    int ok = g->dl.ndim == t->dl.ndim && tabi_tensor_dtype(g) == tabi_tensor_dtype(t);
    for (int32_t i = 0; ok && i < t->dl.ndim; i++) ok = g->dl.shape[i] == t->dl.shape[i];
    if (!ok)
      return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                      "autograd set_grad: the gradient must have the tensor's shape and dtype");
  }
  ag_meta *m = g ? ag_meta_ensure(st, t) : ag_meta_get(st, t);
  if (!m) return g ? TABI_ERR(st->h, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory") : TABI_OK;
  if (g) st->h->tensor_retain(st->h->ctx, g);
  st->h->tensor_release(st->h->ctx, m->grad);
  m->grad = g;
  return TABI_OK;
}

static tabi_status x_zero_grad(void *ctx, tabi_tensor *t) { return x_set_grad(ctx, t, NULL); }

static tabi_status x_backward(void *ctx, int32_t n, tabi_tensor *const *roots,
                              tabi_tensor *const *gos, int32_t retain, int32_t create) {
  return ag_run_backward(ctx, n, roots, gos, 0, NULL, retain, create, NULL);
}

static tabi_status x_grad_of(void *ctx, int32_t n, tabi_tensor *const *roots,
                             tabi_tensor *const *gos, int32_t ni, tabi_tensor *const *inputs,
                             int32_t retain, int32_t create, tabi_tensor **out) {
  ag_state *st = ctx;
  if (ni <= 0 || !inputs || !out)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT, "autograd grad_of: no inputs given");
  return ag_run_backward(ctx, n, roots, gos, ni, inputs, retain, create, out);
}

static int32_t x_set_grad_enabled(void *ctx, int32_t on) { return ag_set_grad_enabled(ctx, on); }
static int32_t x_grad_enabled(void *ctx) { return ag_grad_enabled(ctx); }

static tabi_status x_detach(void *ctx, tabi_tensor *t, tabi_tensor **out) {
  ag_state *st = ctx;
  const tabi_host_api *h = st->h;
  if (!t || !out) return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "autograd detach: NULL argument");
  *out = NULL;
  tabi_tensor *v = NULL;
  tabi_status s = h->tensor_view(h->ctx, t, t->dl.ndim, t->dl.shape, t->dl.strides,
                                 (int64_t)t->dl.byte_offset, &v);
  if (s != TABI_OK) return s;
  ag_meta *bm = ag_meta_get(st, t);
  if (bm && bm->vc) {
    /* Shares the version counter, as ATen's detach does. */
    ag_meta *m = ag_meta_ensure(st, v);
    if (m && m->vc != bm->vc) {
      ag_vc_unref(m->vc);
      ag_vc_ref(bm->vc);
      m->vc = bm->vc;
    }
  } else {
    h->tensor_set_keys(h->ctx, v, v->keys & ~st->key);
  }
  *out = v;
  return TABI_OK;
}

static tabi_status x_retain_grad(void *ctx, tabi_tensor *t) {
  ag_state *st = ctx;
  ag_meta *m = ag_meta_get(st, t);
  if (!m || !m->requires_grad)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                    "autograd retain_grad: can't retain_grad on a tensor that has requires_grad=False");
  if (!m->grad_fn || m->retains_grad) return TABI_OK;
  ag_node *n = m->grad_fn;
  if (m->output_nr < 0 || m->output_nr >= n->nout) return TABI_OK;
  if (n->retain[m->output_nr]) ag_meta_unref(n->retain[m->output_nr]);
  atomic_fetch_add(&m->refs, 1);
  n->retain[m->output_nr] = m;
  m->retains_grad = 1;
  return TABI_OK;
}

static const char *x_grad_fn_name(void *ctx, const tabi_tensor *t) {
  ag_meta *m = ag_meta_get(ctx, t);
  return m && m->grad_fn ? m->grad_fn->name : NULL;
}

static uint32_t x_version(void *ctx, const tabi_tensor *t) {
  ag_meta *m = ag_meta_get(ctx, t);
  return m && m->vc ? atomic_load(&m->vc->version) : 0u;
}

/* --- init ---------------------------------------------------------------------- */

static void destroy(void *ctx) {
  ag_state *st = ctx;
  if (!st) return;
  free(st->by_op);
  free(st);
}

static tabi_status add_table(ag_state *st, const ag_formula *tab) {
  for (const ag_formula *f = tab; f->op; f++) {
    tabi_op op;
    if (st->h->op_find(st->h->ctx, f->op, &op) != TABI_OK) continue; /* op set without it */
    if (op >= st->nformulas) {
      int32_t n = op + 64;
      const ag_formula **p = realloc(st->by_op, sizeof *p * (size_t)n);
      if (!p) return TABI_ERR_OUT_OF_MEMORY;
      for (int32_t i = st->nformulas; i < n; i++) p[i] = NULL;
      st->by_op = p;
      st->nformulas = n;
    }
    st->by_op[op] = f;
  }
  return TABI_OK;
}

TABI_PLUGIN_EXPORT tabi_status tabi_plugin_init(const tabi_host_api *host, tabi_plugin *out) {
  TABI_PLUGIN_CHECK_HOST(host, out);
  out->kind = TABI_PLUGIN_KIND_FEATURE;
  out->name = "autograd";
  out->version = "0.1.0";
  out->description = "reverse-mode automatic differentiation over the dispatcher (tabi.autograd)";
  ag_state *st = calloc(1, sizeof *st);
  if (!st) return TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory");
  st->h = host;
  atomic_init(&st->epoch, 0);
  tabi_status s;
  static const char *const names[AG_OP_COUNT] = {
#define AG_NAME(id, name) name,
      AG_OPS(AG_NAME)
#undef AG_NAME
  };
  for (int32_t i = 0; i < AG_OP_COUNT; i++) {
    if (host->op_find(host->ctx, names[i], &st->op[i]) != TABI_OK) {
      s = TABI_ERR(host, TABI_ERR_NOT_FOUND, "autograd: the runtime lacks %s, which derivative "
                   "formulas call", names[i]);
      goto fail;
    }
  }
  if (add_table(st, ag_formulas_pointwise) != TABI_OK || add_table(st, ag_formulas_shape) != TABI_OK ||
      add_table(st, ag_formulas_reduce) != TABI_OK ||
      add_table(st, ag_formulas_nn) != TABI_OK || add_table(st, ag_formulas_nn2) != TABI_OK ||
      add_table(st, ag_formulas_grid) != TABI_OK || add_table(st, ag_formulas_special) != TABI_OK ||
      add_table(st, ag_formulas_linalg) != TABI_OK) {
    s = TABI_ERR(host, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory");
    goto fail;
  }
  if ((s = host->layer_declare(host->ctx, "autograd", TABI_PRIORITY_AUTOGRAD, &st->key)) != TABI_OK)
    goto fail;
  if ((s = host->slot_declare(host->ctx, &st->slot)) != TABI_OK) goto fail;
  if ((s = host->fallback_register(host->ctx, (int64_t)st->key, ag_kernel, st)) != TABI_OK) goto fail;
  tabi_autograd_api *x = &st->ext;
  x->struct_size = sizeof *x;
  x->version = TABI_AUTOGRAD_VERSION;
  x->ctx = st;
  x->set_requires_grad = x_set_requires_grad;
  x->requires_grad = x_requires_grad;
  x->is_leaf = x_is_leaf;
  x->grad = x_grad;
  x->set_grad = x_set_grad;
  x->zero_grad = x_zero_grad;
  x->backward = x_backward;
  x->set_grad_enabled = x_set_grad_enabled;
  x->grad_enabled = x_grad_enabled;
  x->detach = x_detach;
  x->retain_grad = x_retain_grad;
  x->grad_fn_name = x_grad_fn_name;
  x->version_counter = x_version;
  x->grad_of = x_grad_of;
  if ((s = host->extension_register(host->ctx, TABI_AUTOGRAD_EXTENSION, TABI_AUTOGRAD_VERSION, x)) != TABI_OK)
    goto fail;
  out->ctx = st;
  out->destroy = destroy;
  return TABI_OK;
fail:
  destroy(st);
  return s;
}
