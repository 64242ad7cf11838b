/* ag_engine.c: the backward engine.
 *
 * One pass finds the nodes reachable from the roots and counts, for each, the
 * edges that lead into it; then nodes run in topological order (a node runs once
 * every node that sends it a gradient has run), so each node sees the full sum
 * of its output gradients. Leaf gradients accumulate into .grad (or, for
 * grad_of, into the caller's array). Without create_graph, backward runs with
 * grad mode off, so the formulas' calls cost nothing extra; with it, they are
 * recorded like any call and the result can be differentiated again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag.h"

typedef struct nodevec {
  ag_node **p;
  int32_t n, cap;
} nodevec;

static int push(nodevec *v, ag_node *n) {
  if (v->n == v->cap) {
    int32_t cap = v->cap ? v->cap * 2 : 64;
    ag_node **p = realloc(v->p, sizeof *p * (size_t)cap);
    if (!p) return 0;
    v->p = p;
    v->cap = cap;
  }
  v->p[v->n++] = n;
  return 1;
}

static void fctx_clear(ag_fctx *c) {
  for (int32_t i = 0; i < c->ntmp; i++) c->st->h->tensor_release(c->st->h->ctx, c->tmp[i]);
  c->ntmp = 0;
}

typedef struct run {
  ag_state *st;
  int32_t create_graph;
  int32_t n_inputs;
  tabi_tensor *const *inputs;
  tabi_tensor **out_grads; /* grad_of mode when non-NULL */
  ag_fctx ec;              /* scratch context for the engine's own calls */
} run;

/* sum into *slot (new reference stored); g is borrowed. */
static tabi_status accumulate(run *r, tabi_tensor **slot, tabi_tensor *g) {
  const tabi_host_api *h = r->st->h;
  if (!*slot) {
    h->tensor_retain(h->ctx, g);
    *slot = g;
    return TABI_OK;
  }
  T sum = ag_b(&r->ec, AG_OP_ADD, *slot, g);
  if (!sum) return r->ec.status;
  h->tensor_retain(h->ctx, sum);
  h->tensor_release(h->ctx, *slot);
  *slot = sum;
  fctx_clear(&r->ec);
  return TABI_OK;
}

static tabi_status to_leaf(run *r, tabi_tensor *leaf, tabi_tensor *g) {
  if (r->out_grads) {
    for (int32_t j = 0; j < r->n_inputs; j++)
      if (r->inputs[j] == leaf) return accumulate(r, &r->out_grads[j], g);
    return TABI_OK;
  }
  ag_meta *m = ag_meta_get(r->st, leaf);
  if (!m) return TABI_OK;
  /* .grad keeps a dense layout even when the gradient is an expanded view. */
  if (!m->grad && !tabi_tensor_is_contiguous(g)) {
    tabi_value args[2] = {tabi_tensor_value(g), tabi_int(0)};
    T cg = ag_call_t(&r->ec, AG_OP_CLONE, args, 2);
    if (!cg) return r->ec.status;
    tabi_status s = accumulate(r, &m->grad, cg);
    fctx_clear(&r->ec);
    return s;
  }
  return accumulate(r, &m->grad, g);
}

/* Gradient of an input back to the input's shape, dtype and device. */
static T validate(run *r, ag_node *n, int32_t slot, T g) {
  ag_fctx *c = &r->ec;
  const ag_tmeta *m = &n->in_meta[slot];
  const int64_t *shape = ag_tmeta_shape(m);
  g = ag_sum_to(c, g, m->ndim, shape);
  if (!g) {
    const tabi_host_api *h = r->st->h;
    char msg[400];
    snprintf(msg, sizeof msg, "%s", h->last_error(h->ctx));
    c->status = TABI_ERR(h, c->status, "%s: autograd: the gradient of input %d does not fit the input: %s",
                         n->name, (int)slot, msg);
    return NULL;
  }
  if (tabi_tensor_dtype(g) != m->dtype) {
    /* A real input of an op with a complex result (a cast to complex, type
     * promotion): its gradient is the real part (ATen's handle_r_to_c). */
    if (tabi_dtype_is_complex(tabi_tensor_dtype(g)) && !tabi_dtype_is_complex(m->dtype))
      g = ag_u(c, AG_OP_REAL, g);
    g = ag_to_dtype(c, g, m->dtype);
  }
  if (g && (g->dl.device.device_type != m->device.device_type ||
            g->dl.device.device_id != m->device.device_id)) {
    tabi_value args[4] = {tabi_tensor_value(g), tabi_default(), tabi_default(),
                          tabi_device_value(m->device)};
    g = ag_call_t(c, AG_OP_TO_COPY, args, 4);
  }
  return g;
}

static tabi_status check_saved(ag_state *st, ag_node *n) {
  if (n->released)
    return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                    "autograd: trying to backward through the graph a second time (or directly "
                    "access saved tensors after they have already been freed) at %s. Saved "
                    "intermediate values of the graph are freed when you call backward; pass "
                    "retain_graph=1 if you need to backward through the graph a second time",
                    n->name);
  for (int32_t i = 0; i < n->nsaved; i++) {
    uint32_t now = atomic_load(&n->saved[i].vc->version);
    if (now != n->saved[i].version)
      return TABI_ERR(st->h, TABI_ERR_INVALID_ARGUMENT,
                      "autograd: one of the variables needed for gradient computation has been "
                      "modified by an inplace operation (%s): a tensor saved by %s is at version "
                      "%u; expected version %u instead",
                      n->saved[i].vc->last_op ? n->saved[i].vc->last_op : "?", n->name,
                      (unsigned)now, (unsigned)n->saved[i].version);
  }
  return TABI_OK;
}

/* With create_graph, saved outputs come back as tensors whose grad_fn is the node
 * itself (as ATen's SavedVariable does), so double backward sees through them. */
static tabi_status unpack_outs(run *r, ag_node *n, tabi_tensor **outs) {
  const tabi_host_api *h = r->st->h;
  for (int32_t k = 0; k < n->nout; k++) {
    outs[k] = NULL;
    tabi_tensor *s = n->saved_out ? n->saved_out[k] : NULL;
    if (!s) continue;
    if (!r->create_graph) {
      h->tensor_retain(h->ctx, s);
      outs[k] = s;
      continue;
    }
    tabi_tensor *v = NULL;
    tabi_status st = h->tensor_view(h->ctx, s, s->dl.ndim, s->dl.shape, s->dl.strides,
                                    (int64_t)s->dl.byte_offset, &v);
    if (st != TABI_OK) return st;
    ag_meta *m = ag_meta_ensure(r->st, v);
    if (!m) { h->tensor_release(h->ctx, v); return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory"); }
    ag_node_ref(n);
    m->grad_fn = n;
    m->output_nr = k;
    m->requires_grad = 1;
    outs[k] = v;
  }
  return TABI_OK;
}

static tabi_status run_node(run *r, ag_node *n, nodevec *ready) {
  ag_state *st = r->st;
  const tabi_host_api *h = st->h;
  tabi_status s;
  for (int32_t k = 0; k < n->nout; k++) {
    if (!n->buf[k]) continue;
    if (n->retain[k] && !r->out_grads) {
      s = accumulate(r, &n->retain[k]->grad, n->buf[k]);
      if (s != TABI_OK) return s;
    }
    if (r->out_grads) {
      for (int32_t j = 0; j < r->n_inputs; j++) {
        ag_meta *m = ag_meta_get(st, r->inputs[j]);
        if (m && m->grad_fn == n && m->output_nr == k) {
          s = accumulate(r, &r->out_grads[j], n->buf[k]);
          if (s != TABI_OK) return s;
        }
      }
    }
  }
  if (!n->f)
    return TABI_ERR(h, TABI_ERR_UNIMPLEMENTED,
                    "autograd: %s is not differentiable: the derivative for it is not "
                    "implemented, so backward cannot pass through it", n->name);
  s = check_saved(st, n);
  if (s != TABI_OK) return s;
  ag_fctx c;
  memset(&c, 0, sizeof c);
  c.st = st;
  c.node = n;
  c.args = n->args;
  c.gout = n->buf;
  tabi_tensor *outs_local[64];
  c.outs = outs_local;
  c.gin = calloc((size_t)(n->nin ? n->nin : 1), sizeof *c.gin);
  if (!c.gin) return TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory");
  s = unpack_outs(r, n, outs_local);
  if (s == TABI_OK) {
    s = n->f->fn(&c);
    if (s == TABI_OK) s = c.status;
  }
  for (int32_t k = 0; k < n->nout && k < 64; k++) h->tensor_release(h->ctx, outs_local[k]);
  fctx_clear(&c);
  free(c.tmp);
  if (s != TABI_OK) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", h->last_error(h->ctx));
    if (!strstr(msg, n->name)) TABI_ERR(h, s, "in the backward of %s: %s", n->name, msg);
  }
  for (int32_t j = 0; j < n->nin; j++) {
    ag_edge *e = &n->next[j];
    T g = c.gin[j];
    if (s == TABI_OK && g && (e->node || e->leaf)) {
      T v = validate(r, n, j, g);
      if (!v) s = r->ec.status;
      else if (e->node) s = accumulate(r, &e->node->buf[e->nr], v);
      else s = to_leaf(r, e->leaf, v);
      fctx_clear(&r->ec);
      r->ec.status = TABI_OK;
    }
    if (g) h->tensor_release(h->ctx, g);
    if (e->node && e->node->epoch == n->epoch && --e->node->deps == 0)
      if (!push(ready, e->node) && s == TABI_OK)
        s = TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "autograd: out of memory");
  }
  free(c.gin);
  return s;
}

tabi_status ag_run_backward(ag_state *st, int32_t n, tabi_tensor *const *roots,
                            tabi_tensor *const *grad_outputs, int32_t n_inputs,
                            tabi_tensor *const *inputs, int32_t retain_graph,
                            int32_t create_graph, tabi_tensor **out_grads) {
  const tabi_host_api *h = st->h;
  if (n <= 0 || !roots)
    return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT, "autograd backward: no roots given");
  if (create_graph) retain_graph = 1;
  for (int32_t j = 0; out_grads && j < n_inputs; j++) {
    out_grads[j] = NULL;
    if (!ag_requires_grad(st, inputs[j]))
      return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                      "autograd grad: input %d does not require grad", (int)j);
  }
  for (int32_t i = 0; i < n; i++) {
    ag_meta *m = ag_meta_get(st, roots[i]);
    if (!m || !m->requires_grad)
      return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                      "autograd backward: element %d of tensors does not require grad and "
                      "does not have a grad_fn", (int)i);
    tabi_tensor *go = grad_outputs ? grad_outputs[i] : NULL;
    if (!go && tabi_tensor_numel(roots[i]) != 1)
      return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                      "autograd backward: grad can be implicitly created only for scalar "
                      "outputs (root %d has %lld elements)", (int)i,
                      (long long)tabi_tensor_numel(roots[i]));
    if (go) {
      int ok = go->dl.ndim == roots[i]->dl.ndim;
      for (int32_t d = 0; ok && d < go->dl.ndim; d++) ok = go->dl.shape[d] == roots[i]->dl.shape[d];
      if (!ok)
        return TABI_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                        "autograd backward: grad_outputs[%d] has a different shape than "
                        "root %d", (int)i, (int)i);
    }
  }
  run r;
  memset(&r, 0, sizeof r);
  r.st = st;
  r.create_graph = create_graph;
  r.n_inputs = n_inputs;
  r.inputs = inputs;
  r.out_grads = out_grads;
  r.ec.st = st;
  int32_t prev_mode = ag_set_grad_enabled(st, create_graph);
  uint64_t epoch = atomic_fetch_add(&st->epoch, 1) + 1;
  nodevec all = {0}, stack = {0}, ready = {0};
  tabi_status s = TABI_OK;

  /* Discover the graph and count incoming edges. */
  for (int32_t i = 0; i < n && s == TABI_OK; i++) {
    ag_node *g = ag_meta_get(st, roots[i])->grad_fn;
    if (!g || g->epoch == epoch) continue;
    g->epoch = epoch;
    g->deps = 0;
    g->buf = calloc((size_t)(g->nout ? g->nout : 1), sizeof *g->buf);
    if (!g->buf || !push(&all, g) || !push(&stack, g)) s = TABI_ERR_OUT_OF_MEMORY;
  }
  while (s == TABI_OK && stack.n > 0) {
    ag_node *x = stack.p[--stack.n];
    for (int32_t j = 0; j < x->nin; j++) {
      ag_node *y = x->next[j].node;
      if (!y) continue;
      if (y->epoch != epoch) {
        y->epoch = epoch;
        y->deps = 0;
        free(y->buf);
        y->buf = calloc((size_t)(y->nout ? y->nout : 1), sizeof *y->buf);
        if (!y->buf || !push(&all, y) || !push(&stack, y)) { s = TABI_ERR_OUT_OF_MEMORY; break; }
      }
      y->deps++;
    }
  }
  if (s == TABI_ERR_OUT_OF_MEMORY) s = TABI_ERR(h, s, "autograd backward: out of memory");

  /* Seed the roots. */
  for (int32_t i = 0; i < n && s == TABI_OK; i++) {
    ag_meta *m = ag_meta_get(st, roots[i]);
    T go = grad_outputs ? grad_outputs[i] : NULL;
    if (!go) {
      go = ag_full_like(&r.ec, roots[i], 1.0);
      if (!go) { s = r.ec.status; break; }
    }
    if (m->grad_fn) s = accumulate(&r, &m->grad_fn->buf[m->output_nr], go);
    else s = to_leaf(&r, roots[i], go);
    fctx_clear(&r.ec);
  }
  for (int32_t i = 0; i < all.n && s == TABI_OK; i++)
    if (all.p[i]->deps == 0 && !push(&ready, all.p[i]))
      s = TABI_ERR(h, TABI_ERR_OUT_OF_MEMORY, "autograd backward: out of memory");

  while (s == TABI_OK && ready.n > 0) {
    ag_node *x = ready.p[--ready.n];
    s = run_node(&r, x, &ready);
    for (int32_t k = 0; k < x->nout; k++) {
      h->tensor_release(h->ctx, x->buf[k]);
      x->buf[k] = NULL;
    }
    if (s == TABI_OK && !retain_graph) ag_node_release_saved(x);
  }

  for (int32_t i = 0; i < all.n; i++) {
    ag_node *x = all.p[i];
    for (int32_t k = 0; x->buf && k < x->nout; k++) h->tensor_release(h->ctx, x->buf[k]);
    free(x->buf);
    x->buf = NULL;
    x->epoch = 0;
  }
  if (s != TABI_OK && out_grads)
    for (int32_t j = 0; j < n_inputs; j++) {
      h->tensor_release(h->ctx, out_grads[j]);
      out_grads[j] = NULL;
    }
  fctx_clear(&r.ec);
  free(r.ec.tmp);
  free(all.p);
  free(stack.p);
  free(ready.p);
  ag_set_grad_enabled(st, prev_mode);
  return s;
}
