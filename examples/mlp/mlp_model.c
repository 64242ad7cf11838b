/* examples/mlp/mlp_model.c: see mlp_model.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp_model.h"

static const DLDevice cpu = {kDLCPU, 0};

static tabi_status find_ops(mlp_ctx *m) {
  struct { tabi_op *op; const char *name; } t[] = {
      {&m->op_addmm, "aten::addmm"}, {&m->op_relu, "aten::relu"},
      {&m->op_logsm, "aten::_log_softmax"}, {&m->op_mul, "aten::mul.Tensor"},
      {&m->op_sum, "aten::sum.dim_IntList"}, {&m->op_mean, "aten::mean"},
      {&m->op_neg, "aten::neg"}, {&m->op_to_copy, "aten::_to_copy"},
      {&m->op_sub, "aten::sub.Tensor"}, {&m->op_copy_to, "prims::copy_to"}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    tabi_status s = tabi_op_find(m->rt, t[i].name, t[i].op);
    if (s != TABI_OK) return s;
  }
  return TABI_OK;
}

/* Calls op with args; *out gets output 0 (a new reference). */
static tabi_status call1(mlp_ctx *m, tabi_op op, tabi_value *args, int32_t n, tabi_tensor **out) {
  tabi_value r = tabi_none();
  tabi_status s = tabi_call(m->rt, op, args, n, &r, 1);
  *out = s == TABI_OK ? r.u.t : NULL;
  return s;
}

static void release_params(mlp_ctx *m) {
  for (int32_t i = 0; i < m->nlayers; i++) {
    tabi_tensor_release(m->W[i]);
    tabi_tensor_release(m->b[i]);
    m->W[i] = m->b[i] = NULL;
  }
  m->nlayers = 0;
}

static double uniform(uint64_t *s) {
  *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
  return (double)(*s >> 11) / 9007199254740992.0;
}

tabi_status mlp_init_layers(mlp_ctx *m, const int64_t *sizes, int32_t nsizes, uint64_t seed) {
  tabi_status s = find_ops(m);
  if (s != TABI_OK) return s;
  release_params(m);
  if (nsizes < 2 || nsizes - 1 > MLP_MAX_LAYERS) return TABI_ERR_INVALID_ARGUMENT;
  uint64_t rng = seed * 2654435761u + 1;
  for (int32_t l = 0; l + 1 < nsizes; l++) {
    int64_t in = sizes[l], out = sizes[l + 1];
    float *w = malloc(sizeof(float) * (size_t)(in * out));
    float *b = calloc((size_t)out, sizeof(float));
    if (!w || !b) {
      free(w);
      free(b);
      return TABI_ERR_OUT_OF_MEMORY;
    }
    double bound = sqrt(6.0 / (double)in);
    for (int64_t i = 0; i < in * out; i++) w[i] = (float)((2 * uniform(&rng) - 1) * bound);
    const int64_t sw[2] = {in, out}, sb[1] = {out};
    s = tabi_tensor_from_host(m->rt, cpu, TABI_DTYPE_FLOAT32, 2, sw, w,
                              sizeof(float) * (uint64_t)(in * out), &m->W[l]);
    if (s == TABI_OK)
      s = tabi_tensor_from_host(m->rt, cpu, TABI_DTYPE_FLOAT32, 1, sb, b,
                                sizeof(float) * (uint64_t)out, &m->b[l]);
    free(w);
    free(b);
    m->nlayers = l + 1;
    if (s == TABI_OK) s = m->ag->set_requires_grad(m->ag->ctx, m->W[l], 1);
    if (s == TABI_OK) s = m->ag->set_requires_grad(m->ag->ctx, m->b[l], 1);
    if (s != TABI_OK) return s;
  }
  m->k = (int32_t)sizes[nsizes - 1];
  return TABI_OK;
}

tabi_status mlp_init(mlp_ctx *m, int64_t in, int64_t hidden, int64_t out, uint64_t seed) {
  const int64_t sizes[4] = {in, hidden, hidden, out};
  return mlp_init_layers(m, sizes, 4, seed);
}

tabi_status mlp_set_data(mlp_ctx *m, const float *x, const int64_t *labels, int64_t n) {
  if (!m->nlayers) return TABI_ERR_INVALID_ARGUMENT;
  tabi_tensor_release(m->x);
  tabi_tensor_release(m->onehot);
  free(m->labels);
  m->x = m->onehot = NULL;
  int64_t in = m->W[0]->dl.shape[0];
  float *oh = calloc((size_t)(n * m->k), sizeof(float));
  m->labels = malloc(sizeof(int64_t) * (size_t)n);
  if (!oh || !m->labels) {
    free(oh);
    return TABI_ERR_OUT_OF_MEMORY;
  }
  for (int64_t i = 0; i < n; i++) {
    m->labels[i] = labels[i];
    oh[i * m->k + labels[i]] = 1.0f;
  }
  m->n = n;
  const int64_t sx[2] = {n, in}, so[2] = {n, m->k};
  tabi_status s = tabi_tensor_from_host(m->rt, cpu, TABI_DTYPE_FLOAT32, 2, sx, x,
                                        sizeof(float) * (uint64_t)(n * in), &m->x);
  if (s == TABI_OK)
    s = tabi_tensor_from_host(m->rt, cpu, TABI_DTYPE_FLOAT32, 2, so, oh,
                              sizeof(float) * (uint64_t)(n * m->k), &m->onehot);
  free(oh);
  return s;
}

/* logits = the MLP applied to m->x (a new reference). */
static tabi_status forward(mlp_ctx *m, tabi_tensor **out_logits) {
  tabi_tensor *h = m->x;
  tabi_tensor_retain(h); /* each layer releases its input */
  for (int32_t l = 0; l < m->nlayers; l++) {
    tabi_value a[3] = {tabi_tensor_value(m->b[l]), tabi_tensor_value(h), tabi_tensor_value(m->W[l])};
    tabi_tensor *z;
    tabi_status s = call1(m, m->op_addmm, a, 3, &z);
    tabi_tensor_release(h);
    if (s != TABI_OK) return s;
    if (l + 1 < m->nlayers) {
      tabi_value r[1] = {tabi_tensor_value(z)};
      s = call1(m, m->op_relu, r, 1, &h);
      tabi_tensor_release(z);
      if (s != TABI_OK) return s;
    } else {
      h = z;
    }
  }
  *out_logits = h;
  return TABI_OK;
}

tabi_status mlp_forward_backward(mlp_ctx *m, double *out_loss) {
  tabi_tensor *logits = NULL, *lf = NULL, *lp = NULL, *pr = NULL, *sm = NULL, *mn = NULL,
              *loss = NULL;
  tabi_status s = forward(m, &logits);
  if (s != TABI_OK) return s;
  /* The loss in float32 whatever the logits' dtype (as `loss_fn(out.float(), y)`). */
  if (tabi_tensor_dtype(logits) != TABI_DTYPE_FLOAT32) {
    tabi_value a[2] = {tabi_tensor_value(logits), tabi_dtype_value(TABI_DTYPE_FLOAT32)};
    s = call1(m, m->op_to_copy, a, 2, &lf);
  } else {
    tabi_tensor_retain(logits);
    lf = logits;
  }
  if (s == TABI_OK) {
    tabi_value a[3] = {tabi_tensor_value(lf), tabi_int(1), tabi_bool(0)};
    s = call1(m, m->op_logsm, a, 3, &lp);
  }
  if (s == TABI_OK) {
    tabi_value a[2] = {tabi_tensor_value(lp), tabi_tensor_value(m->onehot)};
    s = call1(m, m->op_mul, a, 2, &pr);
  }
  const int64_t dim1[1] = {1};
  if (s == TABI_OK) {
    tabi_value a[2] = {tabi_tensor_value(pr), tabi_int_list(dim1, 1)};
    s = call1(m, m->op_sum, a, 2, &sm);
  }
  if (s == TABI_OK) {
    tabi_value a[1] = {tabi_tensor_value(sm)};
    s = call1(m, m->op_mean, a, 1, &mn);
  }
  if (s == TABI_OK) {
    tabi_value a[1] = {tabi_tensor_value(mn)};
    s = call1(m, m->op_neg, a, 1, &loss);
  }
  if (s == TABI_OK) s = m->ag->backward(m->ag->ctx, 1, &loss, NULL, 0, 0);
  if (s == TABI_OK && out_loss) {
    float v = NAN;
    s = tabi_tensor_to_host(m->rt, loss, &v, sizeof v);
    *out_loss = v;
  }
  tabi_tensor *ts[] = {logits, lf, lp, pr, sm, mn, loss};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) tabi_tensor_release(ts[i]);
  return s;
}

tabi_status mlp_sgd_step(mlp_ctx *m, double lr) {
  int32_t prev = m->ag->set_grad_enabled(m->ag->ctx, 0);
  tabi_status s = TABI_OK;
  for (int32_t l = 0; l < m->nlayers && s == TABI_OK; l++) {
    tabi_tensor *ps[2] = {m->W[l], m->b[l]};
    for (int j = 0; j < 2 && s == TABI_OK; j++) {
      tabi_tensor *g = NULL, *np = NULL, *w = NULL;
      s = m->ag->grad(m->ag->ctx, ps[j], &g);
      if (s != TABI_OK || !g) continue;
      tabi_value a[3] = {tabi_tensor_value(ps[j]), tabi_tensor_value(g), tabi_float(lr)};
      s = call1(m, m->op_sub, a, 3, &np);
      if (s == TABI_OK) {
        tabi_value c[2] = {tabi_tensor_value(ps[j]), tabi_tensor_value(np)};
        s = call1(m, m->op_copy_to, c, 2, &w);
      }
      if (s == TABI_OK) s = m->ag->zero_grad(m->ag->ctx, ps[j]);
      tabi_tensor_release(g);
      tabi_tensor_release(np);
      tabi_tensor_release(w);
    }
  }
  m->ag->set_grad_enabled(m->ag->ctx, prev);
  return s;
}

double mlp_accuracy(mlp_ctx *m) {
  int32_t prev = m->ag->set_grad_enabled(m->ag->ctx, 0);
  tabi_tensor *logits = NULL, *lf = NULL;
  double acc = 0;
  if (forward(m, &logits) == TABI_OK) {
    tabi_value a[2] = {tabi_tensor_value(logits), tabi_dtype_value(TABI_DTYPE_FLOAT32)};
    float *v = malloc(sizeof(float) * (size_t)(m->n * m->k));
    if (v && call1(m, m->op_to_copy, a, 2, &lf) == TABI_OK &&
        tabi_tensor_to_host(m->rt, lf, v, sizeof(float) * (uint64_t)(m->n * m->k)) == TABI_OK) {
      int64_t right = 0;
      for (int64_t i = 0; i < m->n; i++) {
        int32_t best = 0;
        for (int32_t c = 1; c < m->k; c++)
          if (v[i * m->k + c] > v[i * m->k + best]) best = c;
        right += best == m->labels[i];
      }
      acc = (double)right / (double)m->n;
    }
    free(v);
  }
  tabi_tensor_release(logits);
  tabi_tensor_release(lf);
  m->ag->set_grad_enabled(m->ag->ctx, prev);
  return acc;
}

void mlp_free(mlp_ctx *m) {
  release_params(m);
  tabi_tensor_release(m->x);
  tabi_tensor_release(m->onehot);
  free(m->labels);
  m->x = m->onehot = NULL;
  m->labels = NULL;
}
