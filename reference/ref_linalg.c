/* reference/ref_linalg.c: matrix products (mm, bmm, addmm) and pairwise
 * distances (_cdist_forward, _pdist_forward). The SVD prim is in ref_linalg_svd.c.
 *
 * Products accumulate in int64 (wrapping, as two's complement: integers), double
 * (real floats) or complex double (complex), and round once at the store.
 * ATen CPU takes every dtype but bool for the products; float16 is taken too
 * (torch 1.13 CPU refuses it, ATen today has it). */
#include "ref.h"

#include <math.h>
#include <stdio.h>

#include "ref_elementwise.h" /* ref_ew_round_opmath */
#include "ref_linalg_util.h"
#include "ref_misc_check.h"

#define MM_DTS (REF_DTS_INT | REF_DTS_FLOAT | REF_DTS_COMPLEX)

static tabi_status need_ndim(const tabi_host_api *h, const tabi_call *call, const char *arg,
                             const tabi_tensor *t, int32_t nd) {
  if (t->dl.ndim == nd) return TABI_OK;
  return REF_ERR(h, TABI_ERR_SHAPE, "%s: argument '%s' must be a %dD tensor (a %s), got %dD",
                 ref_op_name(h, call), arg, (int)nd, nd == 2 ? "matrix" : "batch of matrices",
                 (int)t->dl.ndim);
}

static tabi_status same_dtype(const tabi_host_api *h, const tabi_call *call, const char *arg,
                              const tabi_tensor *t, const char *arg0, tabi_dtype want) {
  tabi_dtype d = tabi_tensor_dtype(t);
  if (d == want) return TABI_OK;
  return REF_ERR(h, TABI_ERR_TYPE, "%s: argument '%s' has dtype %s; expected %s (the dtype of '%s')",
                 ref_op_name(h, call), arg, tabi_dtype_name(d), tabi_dtype_name(want), arg0);
}

/* out[b] = beta * self[b] + alpha * (a[b] @ m[b]) for every batch b (nb = 1 and
 * batch strides 0 for the 2-D ops). `self` is NULL for mm/bmm; with beta == 0
 * self is not read at all, so NaN in it does not propagate (ATen's rule).
 * ATen applies alpha and beta in the op's math type (float for float32 and the
 * half types, complex float for complex64): a beta of 1e-310 is 0 there, and
 * self is not read. With an empty inner dim ATen tests the Scalar's own value
 * and then multiplies self by the rounded beta (inf * 0: NaN). */
typedef struct mm_job {
  const tabi_tensor *self;   /* broadcast to [nb?, n, p] through self_st */
  int64_t self_st[3];
  const tabi_tensor *a, *m;
  int64_t a_st[3], m_st[3];  /* batch, row, col strides */
  int64_t nb, n, k, p;
  tabi_value beta, alpha;    /* Scalars; beta NONE for mm/bmm */
} mm_job;

/* A Scalar as the op's math type computes it (see mm_job); integer dtypes
 * read their Scalars with ref_scalar_i. */
static ref_cplx opmath_scalar(const tabi_value *v, tabi_dtype dt) {
  ref_cplx x = ref_scalar_c(v);
  return ref_ew_round_opmath(creal(x), dt) + ref_ew_round_opmath(cimag(x), dt) * I;
}

static void mm_run(const mm_job *j, tabi_tensor *out) {
  tabi_dtype dt = tabi_tensor_dtype(out);
  int has_beta = j->beta.tag != TABI_TAG_NONE;
  ref_cplx alpha = j->self ? opmath_scalar(&j->alpha, dt) : 1, beta = has_beta ? opmath_scalar(&j->beta, dt) : 1;
  int use_beta = j->self && !(has_beta && (j->k == 0 ? ref_scalar_c(&j->beta) : beta) == 0);
  int64_t o = 0;
  for (int64_t b = 0; b < j->nb; b++)
    for (int64_t r = 0; r < j->n; r++)
      for (int64_t c = 0; c < j->p; c++, o++) {
        int64_t ao = b * j->a_st[0] + r * j->a_st[1];
        int64_t mo = b * j->m_st[0] + c * j->m_st[2];
        int64_t so = b * j->self_st[0] + r * j->self_st[1] + c * j->self_st[2];
        if (tabi_dtype_is_integral(dt, 1)) {
          int64_t acc = 0;
          for (int64_t i = 0; i < j->k; i++)
            acc = ref_wrap_add(acc, ref_wrap_mul(ref_load_i(j->a, ao + i * j->a_st[2]),
                                                 ref_load_i(j->m, mo + i * j->m_st[1])));
          if (j->self) {
            acc = ref_wrap_mul(acc, ref_scalar_i(&j->alpha));
            if (use_beta)
              acc = ref_wrap_add(acc, ref_wrap_mul(ref_scalar_i(&j->beta), ref_load_i(j->self, so)));
          }
          ref_store_i(out, o, acc);
        } else if (tabi_dtype_is_complex(dt)) {
          ref_cplx acc = 0;
          for (int64_t i = 0; i < j->k; i++)
            acc += ref_load_c(j->a, ao + i * j->a_st[2]) * ref_load_c(j->m, mo + i * j->m_st[1]);
          if (j->self) {
            acc *= alpha;
            if (use_beta) acc += beta * ref_load_c(j->self, so);
          }
          ref_store_c(out, o, acc);
        } else {
          double acc = 0;
          for (int64_t i = 0; i < j->k; i++)
            acc += ref_load_f(j->a, ao + i * j->a_st[2]) * ref_load_f(j->m, mo + i * j->m_st[1]);
          if (j->self) {
            acc *= creal(alpha);
            if (use_beta) acc += creal(beta) * ref_load_f(j->self, so);
          }
          ref_store_f(out, o, acc);
        }
      }
}

static tabi_status mm_common(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *self,
                             const tabi_tensor *a, const tabi_tensor *m, const char *an,
                             const char *mn, int batched, tabi_value beta, tabi_value alpha,
                             tabi_value *outs) {
  tabi_status st;
  int32_t nd = batched ? 3 : 2;
  tabi_dtype dt = tabi_tensor_dtype(a);
  if ((st = need_ndim(h, call, an, a, nd)) || (st = need_ndim(h, call, mn, m, nd))) return st;
  if ((st = ref_check_dtype(h, call, an, dt, MM_DTS))) return st;
  if ((st = same_dtype(h, call, mn, m, an, dt))) return st;
  if (self && (st = same_dtype(h, call, "self", self, an, dt))) return st;
  const int64_t *as = a->dl.shape, *ms = m->dl.shape;
  mm_job j = {0};
  j.a = a;
  j.m = m;
  j.self = self;
  j.beta = beta;
  j.alpha = alpha;
  if (batched) {
    if (ms[0] != as[0] || ms[1] != as[2])
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: '%s' and '%s' shapes cannot be multiplied (%lldx%lldx%lld and "
                     "%lldx%lldx%lld): expected '%s' to be [%lld, %lld, *]",
                     ref_op_name(h, call), an, mn, (long long)as[0], (long long)as[1],
                     (long long)as[2], (long long)ms[0], (long long)ms[1], (long long)ms[2], mn,
                     (long long)as[0], (long long)as[2]);
    j.nb = as[0];
    j.n = as[1];
    j.k = as[2];
    j.p = ms[2];
    for (int i = 0; i < 3; i++) {
      j.a_st[i] = a->dl.strides[i];
      j.m_st[i] = m->dl.strides[i];
    }
  } else {
    if (as[1] != ms[0])
      return REF_ERR(h, TABI_ERR_SHAPE,
                     "%s: %s and %s shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     ref_op_name(h, call), an, mn, (long long)as[0], (long long)as[1],
                     (long long)ms[0], (long long)ms[1]);
    j.nb = 1;
    j.n = as[0];
    j.k = as[1];
    j.p = ms[1];
    j.a_st[1] = a->dl.strides[0];
    j.a_st[2] = a->dl.strides[1];
    j.m_st[1] = m->dl.strides[0];
    j.m_st[2] = m->dl.strides[1];
  }
  if (self) { /* self broadcasts (expands) to [n, p] */
    int64_t target[2] = {j.n, j.p};
    if (self->dl.ndim > 2) goto bad_self;
    for (int32_t i = 0; i < self->dl.ndim; i++) {
      int32_t o = 2 - self->dl.ndim + i;
      int64_t s = self->dl.shape[i];
      if (s != target[o] && s != 1) goto bad_self;
      j.self_st[o + 1] = s == 1 ? 0 : self->dl.strides[i];
    }
  }
  if (self && (st = ref_addmm_scalars_check(h, call, j.n * j.p, j.k, dt, &beta, &alpha))) return st;
  {
    int64_t shape3[3] = {j.nb, j.n, j.p};
    tabi_tensor *out;
    if ((st = ref_empty(h, a, dt, nd, batched ? shape3 : shape3 + 1, &out))) return st;
    mm_run(&j, out);
    ref_set_out(outs, 0, out);
    return TABI_OK;
  }
bad_self: {
  char b1[64];
  return REF_ERR(h, TABI_ERR_SHAPE,
                 "%s: argument 'self' of shape %s does not broadcast to the product's shape "
                 "[%lld, %lld]",
                 ref_op_name(h, call), ref_shape_str(b1, sizeof b1, self->dl.ndim, self->dl.shape),
                 (long long)j.n, (long long)j.p);
}
}

static tabi_status k_mm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return mm_common(ctx, call, NULL, args[0].u.t, args[1].u.t, "self", "mat2", 0, tabi_none(),
                   tabi_none(), outs);
}

static tabi_status k_bmm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return mm_common(ctx, call, NULL, args[0].u.t, args[1].u.t, "self", "mat2", 1, tabi_none(),
                   tabi_none(), outs);
}

static tabi_status k_addmm(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return mm_common(ctx, call, args[0].u.t, args[1].u.t, args[2].u.t, "mat1", "mat2", 0, args[3],
                   args[4], outs);
}

/* --- distances ----------------------------------------------------------------
 * The p-"norm" of a difference vector as ATen's cdist/pdist define it: p = 0
 * counts non-zero entries, p = inf takes the largest magnitude, otherwise
 * (sum |d|^p)^(1/p). Computed exactly (ATen's matmul shortcut for p = 2 on
 * large inputs, compute_mode, is a speed choice and changes nothing here). */
typedef struct dist_acc {
  double p, acc;
} dist_acc;

static void dist_add(dist_acc *d, double diff) {
  double a = fabs(diff);
  if (d->p == 0) d->acc += a != 0;
  else if (isinf(d->p)) d->acc = (a > d->acc || isnan(a)) ? a : d->acc;
  else if (d->p == 1) d->acc += a;
  else if (d->p == 2) d->acc += a * a;
  else d->acc += pow(a, d->p);
}

static double dist_end(const dist_acc *d) {
  if (d->p == 0 || d->p == 1 || isinf(d->p)) return d->acc;
  if (d->p == 2) return sqrt(d->acc);
  return pow(d->acc, 1.0 / d->p);
}

static tabi_status k_cdist(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x1 = args[0].u.t, *x2 = args[1].u.t;
  double p = args[2].u.f;
  int32_t n1 = x1->dl.ndim, n2 = x2->dl.ndim, bnd;
  int64_t bshape[REF_MAX_DIMS], oshape[REF_MAX_DIMS];
  tabi_status st = ref_cdist_check(h, call, args, &bnd, bshape, oshape);
  if (st) return st;
  int64_t m = x1->dl.shape[n1 - 1];
  int64_t r1 = oshape[bnd], r2 = oshape[bnd + 1];
  tabi_tensor *out;
  if ((st = ref_empty(h, x1, tabi_tensor_dtype(x1), bnd + 2, oshape, &out))) return st;
  ref_iter it;
  ref_iter_init(&it, bnd, bshape);
  int32_t a = ref_iter_add_strided(&it, n1 - 2, x1->dl.shape, x1->dl.strides);
  int32_t b = ref_iter_add_strided(&it, n2 - 2, x2->dl.shape, x2->dl.strides);
  int64_t o = 0;
  for (; !ref_iter_done(&it); ref_iter_next(&it))
    for (int64_t i = 0; i < r1; i++)
      for (int64_t j = 0; j < r2; j++, o++) {
        dist_acc d = {p, 0};
        for (int64_t c = 0; c < m; c++) {
          double u = ref_load_f(x1, it.off[a] + i * x1->dl.strides[n1 - 2] + c * x1->dl.strides[n1 - 1]);
          double v = ref_load_f(x2, it.off[b] + j * x2->dl.strides[n2 - 2] + c * x2->dl.strides[n2 - 1]);
          dist_add(&d, u - v);
        }
        ref_store_f(out, o, dist_end(&d));
      }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

/* Row pairs (i, j), i < j, in row-major order: N*(N-1)/2 distances. torch.pdist
 * checks 2-D and p >= 0 before calling _pdist_forward (which itself reads any
 * shape); the reference refuses what torch.pdist refuses. */
static tabi_status k_pdist(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t;
  double p = args[1].u.f;
  int64_t cnt;
  tabi_status st = ref_pdist_check(h, call, args, &cnt);
  if (st) return st;
  int64_t n = x->dl.shape[0], m = x->dl.shape[1];
  tabi_tensor *out;
  if ((st = ref_empty(h, x, tabi_tensor_dtype(x), 1, &cnt, &out))) return st;
  int64_t o = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = i + 1; j < n; j++, o++) {
      dist_acc d = {p, 0};
      for (int64_t c = 0; c < m; c++)
        dist_add(&d, ref_load_f(x, i * x->dl.strides[0] + c * x->dl.strides[1]) -
                         ref_load_f(x, j * x->dl.strides[0] + c * x->dl.strides[1]));
      ref_store_f(out, o, dist_end(&d));
    }
  ref_set_out(outs, 0, out);
  return TABI_OK;
}

const ref_kernel ref_linalg_kernels[] = {
    {"aten::mm", k_mm},
    {"aten::bmm", k_bmm},
    {"aten::addmm", k_addmm},
    {"aten::_cdist_forward", k_cdist},
    {"aten::_pdist_forward", k_pdist},
    {"prims::svd", ref_linalg_svd},
    {NULL, NULL},
};
