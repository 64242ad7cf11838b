/* plugins/cpu/cpu_nn_conv64_tmpl.h: the typed body of cpu_nn_conv64.c,
 * included once per compute type with T (double: every float dtype;
 * uint64_t: every integer dtype, wrapping as the reference's int64 does) and
 * SFX(name) (name_f64, name_u64) defined, and SFX(mm) (the GEMM) declared
 * before. No include guard on purpose.
 *
 * Buffers: a batched tensor [N, C, spatial] is held "CN": [C][N][S] (S the
 * product of the three padded spatial sizes), so a group's channels times
 * a batch chunk are one matrix with row stride N*S; weights are held in their
 * own order [cl][chg][K]. */

/* --- loads and stores ---------------------------------------------------------- */

typedef struct SFX(io_job) {
  const char *src; /* tensor data (loads) */
  char *dst;       /* tensor data (stores) */
  T *buf;
  const T *bias;   /* stores: added per dim-1 index, or NULL */
  tabi_dtype dt;
  int64_t es, d0, d1, sz[3], st[5]; /* element bytes, dims 0/1, spatial sizes, strides */
  int cn;                           /* buffer rows in [d1][d0] order (else [d0][d1]) */
} SFX(io_job);

/* Row r = (i0, i1) of the tensor (dims 0 and 1) into its buffer row. */
static void SFX(load_range)(void *arg, int64_t b, int64_t e) {
  const SFX(io_job) *j = arg;
  int64_t S = j->sz[0] * j->sz[1] * j->sz[2];
  for (int64_t r = b; r < e; r++) {
    int64_t i0 = r / j->d1, i1 = r % j->d1;
    T *d = j->buf + (j->cn ? i1 * j->d0 + i0 : r) * S;
    int64_t base = i0 * j->st[0] + i1 * j->st[1];
    for (int64_t a = 0; a < j->sz[0]; a++)
      for (int64_t q = 0; q < j->sz[1]; q++) {
        int64_t o = base + a * j->st[2] + q * j->st[3];
#if SFX_IS_F64
        if (j->dt == TABI_DTYPE_FLOAT64) {
          const double *s = (const double *)j->src + o;
          for (int64_t t = 0; t < j->sz[2]; t++) d[t] = s[t * j->st[4]];
        } else if (j->dt == TABI_DTYPE_FLOAT32) {
          const float *s = (const float *)j->src + o;
          for (int64_t t = 0; t < j->sz[2]; t++) d[t] = (double)s[t * j->st[4]];
        } else
#endif
          for (int64_t t = 0; t < j->sz[2]; t++) d[t] = SFX(ld)(j->src + (o + t * j->st[4]) * j->es, j->dt);
        d += j->sz[2];
      }
  }
}

/* Buffer row into the contiguous result's row r = (i0, i1), bias[i1] added
 * (once, after the sum: the reference starts its sum with it, a rounding apart). */
static void SFX(store_range)(void *arg, int64_t b, int64_t e) {
  const SFX(io_job) *j = arg;
  int64_t S = j->sz[0] * j->sz[1] * j->sz[2];
  for (int64_t r = b; r < e; r++) {
    int64_t i0 = r / j->d1, i1 = r % j->d1;
    const T *s = j->buf + (j->cn ? i1 * j->d0 + i0 : r) * S;
    T add = j->bias ? j->bias[i1] : (T)0;
#if SFX_IS_F64
    if (j->dt == TABI_DTYPE_FLOAT64) {
      double *d = (double *)j->dst + r * S;
      for (int64_t t = 0; t < S; t++) d[t] = s[t] + add;
      continue;
    }
    if (j->dt == TABI_DTYPE_FLOAT32) {
      float *d = (float *)j->dst + r * S;
      for (int64_t t = 0; t < S; t++) d[t] = (float)(s[t] + add);
      continue;
    }
#endif
    char *d = j->dst + r * S * j->es;
    for (int64_t t = 0; t < S; t++) SFX(stv)(d + t * j->es, j->dt, s[t] + add);
  }
}

/* The tensor t [d0, d1, spatial...] as a buffer (CN order when cn). NULL when
 * it cannot be allocated. */
static T *SFX(load)(const cpu_ctx *c, c64_tmp *A, const tabi_tensor *t, int32_t ns, int cn) {
  if (!cn && tabi_tensor_dtype(t) == SFX(direct) && cpu_contig(t))
    return (T *)tabi_tensor_data(t); /* read only: used in place */
  SFX(io_job) j;
  memset(&j, 0, sizeof j);
  j.src = tabi_tensor_data(t);
  j.dt = tabi_tensor_dtype(t);
  j.es = t->dl.dtype.bits / 8;
  j.d0 = t->dl.shape[0];
  j.d1 = t->dl.shape[1];
  j.st[0] = t->dl.strides[0];
  j.st[1] = t->dl.strides[1];
  for (int32_t i = 0; i < 3; i++) { /* padded spatial dims: size 1, stride 0 */
    j.sz[i] = i < ns ? t->dl.shape[2 + i] : 1;
    j.st[2 + i] = i < ns ? t->dl.strides[2 + i] : 0;
  }
  j.cn = cn;
  int64_t n = tabi_tensor_numel(t);
  j.buf = c64_get(A, n);
  if (!j.buf) return NULL;
  cpu_parallel_for(c->pool, j.d0 * j.d1, 1 + 8192 / (n / (j.d0 * j.d1) + 1), SFX(load_range), &j);
  return j.buf;
}

/* buf (CN order when cn) into the contiguous tensor out [d0, d1, spatial...]. */
static void SFX(store)(const cpu_ctx *c, const T *buf, const T *bias, tabi_tensor *out, int cn) {
  if (buf == tabi_tensor_data(out) && !bias) return; /* computed in place */
  SFX(io_job) j;
  memset(&j, 0, sizeof j);
  j.dst = tabi_tensor_data(out);
  j.buf = (T *)buf;
  j.bias = bias;
  j.dt = tabi_tensor_dtype(out);
  j.es = out->dl.dtype.bits / 8;
  j.d0 = out->dl.shape[0];
  j.d1 = out->dl.shape[1];
  j.sz[0] = j.sz[1] = j.sz[2] = 1;
  j.sz[2] = tabi_tensor_numel(out) / (j.d0 * j.d1);
  j.cn = cn;
  cpu_parallel_for(c->pool, j.d0 * j.d1, 1 + 8192 / (j.sz[2] + 1), SFX(store_range), &j);
}

/* --- im2col / col2im ------------------------------------------------------------- */

typedef struct SFX(col_job) {
  const c64_geom *g;
  T *h;   /* H buffer (g->hcs, g->hns) */
  T *col; /* [chg*K][nb*Lsp] */
  int64_t grp, n0, nb;
} SFX(col_job);

/* col row (c, kidx), batch j: H[grp*chg + c][n0 + j][l*s - p + k*d], 0 outside. */
static void SFX(im2col_range)(void *arg, int64_t b, int64_t e) {
  const SFX(col_job) *J = arg;
  const c64_geom *g = J->g;
  for (int64_t it = b; it < e; it++) {
    int64_t row = it / J->nb, jb = it % J->nb, ci = row / g->kk, kidx = row % g->kk;
    int64_t k2 = kidx % g->k[2], k1 = (kidx / g->k[2]) % g->k[1], k0 = kidx / (g->k[2] * g->k[1]);
    const T *src = J->h + (J->grp * g->chg + ci) * g->hcs + (J->n0 + jb) * g->hns;
    T *dst = J->col + row * J->nb * g->lsp + jb * g->lsp;
    int64_t lo, hi, off = c64_range(g, 2, k2, &lo, &hi);
    for (int64_t l0 = 0; l0 < g->ls[0]; l0++) {
      int64_t h0 = l0 * g->s[0] - g->p[0] + k0 * g->d[0];
      for (int64_t l1 = 0; l1 < g->ls[1]; l1++, dst += g->ls[2]) {
        int64_t h1 = l1 * g->s[1] - g->p[1] + k1 * g->d[1];
        if (h0 < 0 || h0 >= g->hs[0] || h1 < 0 || h1 >= g->hs[1]) {
          for (int64_t t = 0; t < g->ls[2]; t++) dst[t] = 0;
          continue;
        }
        /* row start + lo*s - off is h = lo*s - off >= 0: inside the row */
        const T *restrict s = src + (h0 * g->hs[1] + h1) * g->hs[2] + (lo * g->s[2] - off);
        T *restrict dd = dst + lo;
        for (int64_t t = 0; t < lo; t++) dst[t] = 0;
        if (g->s[2] == 1)
          for (int64_t t = 0; t < hi - lo; t++) dd[t] = s[t];
        else
          for (int64_t t = 0; t < hi - lo; t++) dd[t] = s[t * g->s[2]];
        for (int64_t t = hi; t < g->ls[2]; t++) dst[t] = 0;
      }
    }
  }
}

/* H[grp*chg + c][n0 + j][h] = sum over (kidx, l) reaching h of col[(c, kidx)][(j, l)]:
 * one task per H row, so the sums need no atomics and do not depend on the
 * thread count. */
static void SFX(col2im_range)(void *arg, int64_t b, int64_t e) {
  const SFX(col_job) *J = arg;
  const c64_geom *g = J->g;
  for (int64_t it = b; it < e; it++) {
    int64_t ci = it / J->nb, jb = it % J->nb;
    T *dst = J->h + (J->grp * g->chg + ci) * g->hcs + (J->n0 + jb) * g->hns;
    for (int64_t t = 0; t < g->hsp; t++) dst[t] = 0;
    for (int64_t kidx = 0; kidx < g->kk; kidx++) {
      int64_t k2 = kidx % g->k[2], k1 = (kidx / g->k[2]) % g->k[1], k0 = kidx / (g->k[2] * g->k[1]);
      const T *src = J->col + (ci * g->kk + kidx) * J->nb * g->lsp + jb * g->lsp;
      int64_t lo, hi, off = c64_range(g, 2, k2, &lo, &hi);
      for (int64_t l0 = 0; l0 < g->ls[0]; l0++) {
        int64_t h0 = l0 * g->s[0] - g->p[0] + k0 * g->d[0];
        for (int64_t l1 = 0; l1 < g->ls[1]; l1++, src += g->ls[2]) {
          int64_t h1 = l1 * g->s[1] - g->p[1] + k1 * g->d[1];
          if (h0 < 0 || h0 >= g->hs[0] || h1 < 0 || h1 >= g->hs[1]) continue;
          T *restrict d = dst + (h0 * g->hs[1] + h1) * g->hs[2] + (lo * g->s[2] - off);
          const T *restrict sr = src + lo;
          if (g->s[2] == 1)
            for (int64_t t = 0; t < hi - lo; t++) d[t] += sr[t];
          else
            for (int64_t t = 0; t < hi - lo; t++) d[t * g->s[2]] += sr[t];
        }
      }
    }
  }
}

/* --- the three sums ------------------------------------------------------------ */

/* Batch items per chunk: the column matrix stays near g->budget elements.
 * One im2col/col2im (a pool region) per chunk and group; the GEMMs between
 * them cover the chunk at once (CN buffers) or one item each (NC buffers,
 * whose batch is not a uniform column stride), so the pool's threads and
 * BLAS's hand over once per chunk, not per item. */
static int64_t SFX(chunk)(const c64_geom *g) {
  int64_t per = g->chg * g->kk * g->lsp, nb = g->budget / (per > 0 ? per : 1);
  return nb < 1 ? 1 : nb > g->n ? g->n : nb;
}

/* L = W (*) H: per batch chunk and group, W_g [clg x chg*K] @ im2col(H_g). */
static int SFX(gather_l)(const cpu_ctx *c, c64_tmp *A, const c64_geom *g, T *h, const T *w, T *l) {
  int64_t nb = SFX(chunk)(g), ck = g->chg * g->kk;
  T *col = c64_get(A, ck * nb * g->lsp);
  if (!col) return 0;
  int ok = 1;
  for (int64_t n0 = 0; ok && n0 < g->n; n0 += nb) {
    int64_t m = g->n - n0 < nb ? g->n - n0 : nb;
    for (int64_t grp = 0; ok && grp < g->groups; grp++) {
      SFX(col_job) J = {g, h, col, grp, n0, m};
      cpu_parallel_for(c->pool, ck * m, 1 + 4096 / (g->lsp + 1), SFX(im2col_range), &J);
      int64_t per = g->nc ? 1 : m; /* items per GEMM */
      for (int64_t j = 0; ok && j < m; j += per)
        ok = SFX(mm)(c, g->clg, per * g->lsp, ck, w + grp * g->clg * ck, ck, 1, col + j * g->lsp, m * g->lsp, 1,
                     l + grp * g->clg * g->lcs + (n0 + j) * g->lns, g->lcs, 0);
    }
  }
  c64_put(A, col);
  return ok;
}

/* H = W^T (*) L: per chunk and group, col2im(W_g^T @ L_g). */
static int SFX(gather_h)(const cpu_ctx *c, c64_tmp *A, const c64_geom *g, const T *l, const T *w, T *h) {
  int64_t nb = SFX(chunk)(g), ck = g->chg * g->kk;
  T *col = c64_get(A, ck * nb * g->lsp);
  if (!col) return 0;
  int ok = 1;
  for (int64_t n0 = 0; ok && n0 < g->n; n0 += nb) {
    int64_t m = g->n - n0 < nb ? g->n - n0 : nb;
    for (int64_t grp = 0; ok && grp < g->groups; grp++) {
      int64_t per = g->nc ? 1 : m;
      for (int64_t j = 0; ok && j < m; j += per)
        ok = SFX(mm)(c, ck, per * g->lsp, g->clg, w + grp * g->clg * ck, 1, ck,
                     l + grp * g->clg * g->lcs + (n0 + j) * g->lns, g->lcs, 1, col + j * g->lsp, m * g->lsp, 0);
      SFX(col_job) J = {g, h, col, grp, n0, m};
      if (ok) cpu_parallel_for(c->pool, g->chg * m, 1 + 4096 / (g->hsp * g->kk + 1), SFX(col2im_range), &J);
    }
  }
  c64_put(A, col);
  return ok;
}

/* gW [cl][chg*K] = sum over chunks of L_g @ im2col(H_g)^T. */
static int SFX(wgrad)(const cpu_ctx *c, c64_tmp *A, const c64_geom *g, const T *l, T *h, T *gw) {
  int64_t nb = SFX(chunk)(g), ck = g->chg * g->kk;
  T *col = c64_get(A, ck * nb * g->lsp);
  if (!col) return 0;
  int ok = 1;
  for (int64_t n0 = 0; ok && n0 < g->n; n0 += nb) {
    int64_t m = g->n - n0 < nb ? g->n - n0 : nb;
    for (int64_t grp = 0; ok && grp < g->groups; grp++) {
      SFX(col_job) J = {g, h, col, grp, n0, m};
      cpu_parallel_for(c->pool, ck * m, 1 + 4096 / (g->lsp + 1), SFX(im2col_range), &J);
      int64_t per = g->nc ? 1 : m;
      for (int64_t j = 0; ok && j < m; j += per)
        ok = SFX(mm)(c, g->clg, ck, per * g->lsp, l + grp * g->clg * g->lcs + (n0 + j) * g->lns, g->lcs, 1,
                     col + j * g->lsp, 1, m * g->lsp, gw + grp * g->clg * ck, ck, n0 + j > 0);
    }
  }
  c64_put(A, col);
  return ok;
}

typedef struct SFX(bias_job) {
  const T *dy;
  T *db;
  int64_t n, cs, ns, len; /* batch, channel and batch strides, positions */
} SFX(bias_job);

/* Per channel, over batch then positions: the reference's order. */
static void SFX(bias_range)(void *arg, int64_t b, int64_t e) {
  const SFX(bias_job) *j = arg;
  for (int64_t ch = b; ch < e; ch++) {
    T acc = 0;
    for (int64_t i = 0; i < j->n; i++) {
      const T *r = j->dy + ch * j->cs + i * j->ns;
      for (int64_t t = 0; t < j->len; t++) acc += r[t];
    }
    j->db[ch] = acc;
  }
}

/* --- drivers ---------------------------------------------------------------------- */

/* Where a result is computed: the (contiguous) result itself when its dtype is
 * the compute type and its layout the buffers' (NC, or a weight gradient: g
 * NULL), else a temporary that store() converts. */
static T *SFX(out_buf)(c64_tmp *A, const c64_geom *g, tabi_tensor *out) {
  if (tabi_tensor_dtype(out) == SFX(direct) && (!g || g->nc)) return tabi_tensor_data(out);
  return c64_get(A, tabi_tensor_numel(out));
}

/* Output (already allocated, contiguous) = x (*) w (+ bias). 0: out of memory. */
static int SFX(fwd)(const cpu_ctx *c, const c64_geom *g, const tabi_tensor *x, const tabi_tensor *w,
                    const tabi_tensor *bias, tabi_tensor *out) {
  c64_tmp A = {c, {0}};
  T *xb = SFX(load)(c, &A, x, g->ns, !g->nc), *wb = SFX(load)(c, &A, w, g->ns, 0), *bb = NULL, *ob = NULL;
  int ok = xb && wb;
  if (ok && bias) {
    int64_t C = bias->dl.shape[0];
    bb = c64_get(&A, C);
    ok = bb != NULL;
    for (int64_t i = 0; ok && i < C; i++)
      bb[i] = SFX(ld)((const char *)tabi_tensor_data(bias) + i * bias->dl.strides[0] * (bias->dl.dtype.bits / 8),
                      tabi_tensor_dtype(bias));
  }
  if (ok) {
    ob = SFX(out_buf)(&A, g, out);
    ok = ob != NULL;
  }
  if (ok) ok = g->transposed ? SFX(gather_h)(c, &A, g, xb, wb, ob) : SFX(gather_l)(c, &A, g, xb, wb, ob);
  if (ok) SFX(store)(c, ob, bb, out, !g->nc);
  c64_free(&A);
  return ok;
}

/* The masked gradients into dx, dw, db (allocated, contiguous, NULL when off). */
static int SFX(bwd)(const cpu_ctx *c, const c64_geom *g, const tabi_tensor *dy, const tabi_tensor *x,
                    const tabi_tensor *w, tabi_tensor *dx, tabi_tensor *dw, tabi_tensor *db) {
  c64_tmp A = {c, {0}};
  T *dyb = SFX(load)(c, &A, dy, g->ns, !g->nc), *r = NULL;
  int ok = dyb != NULL;
  if (ok && dx) {
    T *wb = SFX(load)(c, &A, w, g->ns, 0);
    r = SFX(out_buf)(&A, g, dx);
    ok = wb && r;
    /* the input is H of a convolution, L of a transposed one */
    if (ok) ok = g->transposed ? SFX(gather_l)(c, &A, g, dyb, wb, r) : SFX(gather_h)(c, &A, g, dyb, wb, r);
    if (ok) SFX(store)(c, r, NULL, dx, !g->nc);
    c64_put(&A, r);
    c64_put(&A, wb);
  }
  if (ok && dw) {
    T *xb = SFX(load)(c, &A, x, g->ns, !g->nc);
    r = SFX(out_buf)(&A, NULL, dw);
    ok = xb && r;
    if (ok) ok = g->transposed ? SFX(wgrad)(c, &A, g, xb, dyb, r) : SFX(wgrad)(c, &A, g, dyb, xb, r);
    if (ok) SFX(store)(c, r, NULL, dw, 0);
    c64_put(&A, r);
    c64_put(&A, xb);
  }
  if (ok && db) {
    int64_t C = dy->dl.shape[1];
    r = c64_get(&A, C);
    ok = r != NULL;
    if (ok) {
      SFX(bias_job) j = {dyb, r, g->n, g->transposed ? g->hcs : g->lcs, g->transposed ? g->hns : g->lns,
                         g->transposed ? g->hsp : g->lsp};
      cpu_parallel_for(c->pool, C, 1, SFX(bias_range), &j);
      char *d = tabi_tensor_data(db);
      int64_t es = db->dl.dtype.bits / 8;
      for (int64_t i = 0; i < C; i++) SFX(stv)(d + i * es, tabi_tensor_dtype(db), r[i]);
    }
  }
  c64_free(&A);
  return ok;
}
