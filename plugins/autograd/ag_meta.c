/* ag_meta.c: per-tensor autograd state, version counters, node lifetime, grad
 * mode. */
#include <stdlib.h>
#include <string.h>

#include "ag.h"

ag_vc *ag_vc_new(void) {
  ag_vc *vc = calloc(1, sizeof *vc);
  if (!vc) return NULL;
  atomic_init(&vc->refs, 1);
  atomic_init(&vc->version, 0u);
  return vc;
}

void ag_vc_ref(ag_vc *vc) {
  if (vc) atomic_fetch_add(&vc->refs, 1);
}

void ag_vc_unref(ag_vc *vc) {
  if (vc && atomic_fetch_sub(&vc->refs, 1) == 1) free(vc);
}

ag_meta *ag_meta_get(ag_state *st, const tabi_tensor *t) {
  if (!t || !(t->keys & st->key)) return NULL;
  return (ag_meta *)st->h->slot_get(st->h->ctx, t, st->slot);
}

int32_t ag_requires_grad(ag_state *st, const tabi_tensor *t) {
  ag_meta *m = ag_meta_get(st, t);
  return m && m->requires_grad;
}

void ag_meta_unref(ag_meta *m) {
  if (!m || atomic_fetch_sub(&m->refs, 1) != 1) return;
  ag_node_unref(m->grad_fn);
  m->st->h->tensor_release(m->st->h->ctx, m->grad);
  ag_vc_unref(m->vc);
  free(m);
}

/* The slot's destructor: the tensor died. Its graph link and .grad go now (a
 * node still holding the meta for retain_grad only writes a grad nobody reads). */
static void meta_slot_dtor(void *p) {
  ag_meta *m = p;
  ag_node *n = m->grad_fn;
  tabi_tensor *g = m->grad;
  m->grad_fn = NULL;
  m->grad = NULL;
  ag_node_unref(n);
  m->st->h->tensor_release(m->st->h->ctx, g);
  ag_meta_unref(m);
}

ag_meta *ag_meta_ensure(ag_state *st, tabi_tensor *t) {
  ag_meta *m = (ag_meta *)st->h->slot_get(st->h->ctx, t, st->slot);
  if (!m) {
    m = calloc(1, sizeof *m);
    if (!m) return NULL;
    atomic_init(&m->refs, 1);
    m->st = st;
    m->vc = ag_vc_new();
    if (!m->vc || st->h->slot_set(st->h->ctx, t, st->slot, m, meta_slot_dtor) != TABI_OK) {
      ag_vc_unref(m->vc);
      free(m);
      return NULL;
    }
  }
  if (!(t->keys & st->key)) st->h->tensor_set_keys(st->h->ctx, t, t->keys | st->key);
  return m;
}

void ag_node_ref(ag_node *n) {
  if (n) atomic_fetch_add(&n->refs, 1);
}

void ag_tmeta_set(ag_tmeta *m, const tabi_tensor *t) {
  m->dtype = tabi_tensor_dtype(t);
  m->ndim = t->dl.ndim;
  m->device = t->dl.device;
  m->big_shape = NULL;
  int64_t *dst = m->shape;
  if (t->dl.ndim > 8) {
    m->big_shape = malloc(sizeof(int64_t) * (size_t)t->dl.ndim);
    dst = m->big_shape;
    if (!dst) { m->ndim = 0; return; }
  }
  for (int32_t i = 0; i < t->dl.ndim; i++) dst[i] = t->dl.shape[i];
}

int64_t ag_tmeta_numel(const ag_tmeta *m) {
  const int64_t *s = ag_tmeta_shape(m);
  int64_t n = 1;
  for (int32_t i = 0; i < m->ndim; i++) n *= s[i];
  return n;
}

const int64_t *ag_tmeta_shape(const ag_tmeta *m) { return m->big_shape ? m->big_shape : m->shape; }

void ag_tmeta_clear(ag_tmeta *m) {
  free(m->big_shape);
  m->big_shape = NULL;
}

static void release_value(ag_state *st, tabi_value *v) {
  if (v->tag == TABI_TAG_TENSOR) {
    st->h->tensor_release(st->h->ctx, v->u.t);
  } else if (v->tag == TABI_TAG_TENSOR_LIST) {
    tabi_tensor **a = (tabi_tensor **)(uintptr_t)v->u.list.data;
    for (int64_t k = 0; k < v->u.list.len; k++) st->h->tensor_release(st->h->ctx, a[k]);
    free(a);
  } else if (v->tag == TABI_TAG_INT_LIST || v->tag == TABI_TAG_BOOL_LIST ||
             v->tag == TABI_TAG_FLOAT_LIST || v->tag == TABI_TAG_STRING) {
    free((void *)(uintptr_t)v->u.list.data);
  }
  *v = tabi_none();
}

/* Drops what backward needs (saved tensors): after a backward without
 * retain_graph, or when the node dies. */
void ag_node_release_saved(ag_node *n) {
  ag_state *st = n->st;
  for (int32_t i = 0; i < n->nargs; i++) {
    /* Non-tensor args stay: they are small and the error paths name them. */
    if (n->args[i].tag == TABI_TAG_TENSOR || n->args[i].tag == TABI_TAG_TENSOR_LIST)
      release_value(st, &n->args[i]);
  }
  for (int32_t i = 0; n->saved_out && i < n->nout; i++) {
    st->h->tensor_release(st->h->ctx, n->saved_out[i]);
    n->saved_out[i] = NULL;
  }
  for (int32_t i = 0; i < n->nsaved; i++) ag_vc_unref(n->saved[i].vc);
  n->nsaved = 0;
  n->released = 1;
}

void ag_node_unref(ag_node *n) {
  /* Iterative over chains: a long graph's last reference would otherwise recurse
   * once per node. */
  while (n && atomic_fetch_sub(&n->refs, 1) == 1) {
    ag_state *st = n->st;
    ag_node *next_free = NULL;
    ag_node_release_saved(n);
    for (int32_t i = 0; i < n->nargs; i++) release_value(st, &n->args[i]);
    free(n->args);
    free(n->saved_out);
    for (int32_t i = 0; i < n->nout; i++) {
      ag_tmeta_clear(&n->out_meta[i]);
      if (n->retain && n->retain[i]) ag_meta_unref(n->retain[i]);
    }
    free(n->out_meta);
    free(n->retain);
    for (int32_t i = 0; i < n->nin; i++) {
      ag_tmeta_clear(&n->in_meta[i]);
      st->h->tensor_release(st->h->ctx, n->next[i].leaf);
      if (!n->next[i].node) continue;
      if (!next_free) next_free = n->next[i].node;
      else ag_node_unref(n->next[i].node);
    }
    free(n->next);
    free(n->in_meta);
    free(n->arg_slot);
    free(n->saved);
    free(n->buf);
    free(n);
    n = next_free;
  }
}

int32_t ag_grad_enabled(ag_state *st) {
  return (st->h->tls_get(st->h->ctx, TABI_TLS_EXCLUDED) & st->key) == 0;
}

/* Grad mode off is the layer excluded on this thread: calls skip the layer at no
 * cost, exactly as if the plugin were not loaded. */
int32_t ag_set_grad_enabled(ag_state *st, int32_t enabled) {
  uint64_t ex = st->h->tls_get(st->h->ctx, TABI_TLS_EXCLUDED);
  int32_t prev = (ex & st->key) == 0;
  uint64_t nx = enabled ? (ex & ~st->key) : (ex | st->key);
  if (nx != ex) st->h->tls_set(st->h->ctx, TABI_TLS_EXCLUDED, nx);
  return prev;
}
