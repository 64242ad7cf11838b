/* plugins/cpu/cpu_fft_tmpl.h: the FFT's execution code for one precision.
 * cpu_fft.c includes it twice: FT = float with FN(x) = x##_f32, and FT = double
 * with FN(x) = x##_f64 (float data is computed in float, as pocketfft does; the
 * twiddles it reads were computed in double and rounded once). Indices count
 * complex elements; arrays are interleaved (re, im). See cpu_fft_impl.h for the
 * Stockham pass this runs. No include guard: it is meant to be included once
 * per precision. */

/* Butterflies of one pass over j in [j0, j1), q in [q0, q1). */
static void FN(pass_scalar)(const fft_pass *P, const FT *twt, const FT *x, FT *y, int64_t j0,
                            int64_t j1, int64_t q0, int64_t q1) {
  const int64_t m = P->m, s = P->s;
  const int32_t p = P->radix;
  const FT *tw = twt + 2 * P->tw;
  const FT c3 = (FT)-0.86602540378443864676; /* -sin(2pi/3) */
  const FT c51 = (FT)0.30901699437494742410, c52 = (FT)-0.80901699437494742410;
  const FT s51 = (FT)-0.95105651629515357212, s52 = (FT)-0.58778525229247312917;
  for (int64_t j = j0; j < j1; j++) {
    FT wr[FFT_MAX_RADIX], wi[FFT_MAX_RADIX];
    wr[0] = 1;
    wi[0] = 0;
    for (int32_t k = 1; k < p; k++) {
      wr[k] = tw[2 * ((k - 1) * m + j)];
      wi[k] = tw[2 * ((k - 1) * m + j) + 1];
    }
    for (int64_t q = q0; q < q1; q++) {
      const FT *xi = x + 2 * (q + s * j);
      FT *yo = y + 2 * (q + s * p * j);
      const int64_t d = 2 * s * m, o = 2 * s;
      FT ore[FFT_MAX_RADIX] = {0}, oim[FFT_MAX_RADIX] = {0};
      if (p == 4) {
        FT t0r = xi[0] + xi[2 * d], t0i = xi[1] + xi[2 * d + 1];
        FT t1r = xi[0] - xi[2 * d], t1i = xi[1] - xi[2 * d + 1];
        FT t2r = xi[d] + xi[3 * d], t2i = xi[d + 1] + xi[3 * d + 1];
        FT t3r = xi[d + 1] - xi[3 * d + 1], t3i = xi[3 * d] - xi[d]; /* -i (a1 - a3) */
        ore[0] = t0r + t2r; oim[0] = t0i + t2i;
        ore[1] = t1r + t3r; oim[1] = t1i + t3i;
        ore[2] = t0r - t2r; oim[2] = t0i - t2i;
        ore[3] = t1r - t3r; oim[3] = t1i - t3i;
      } else if (p == 2) {
        ore[0] = xi[0] + xi[d]; oim[0] = xi[1] + xi[d + 1];
        ore[1] = xi[0] - xi[d]; oim[1] = xi[1] - xi[d + 1];
      } else if (p == 3) {
        FT tr = xi[d] + xi[2 * d], ti = xi[d + 1] + xi[2 * d + 1];
        FT ur = -c3 * (xi[d + 1] - xi[2 * d + 1]), ui = c3 * (xi[d] - xi[2 * d]); /* i c3 (a1-a2) */
        FT vr = xi[0] - (FT)0.5 * tr, vi = xi[1] - (FT)0.5 * ti;
        ore[0] = xi[0] + tr; oim[0] = xi[1] + ti;
        ore[1] = vr + ur; oim[1] = vi + ui;
        ore[2] = vr - ur; oim[2] = vi - ui;
      } else if (p == 5) {
        FT b1r = xi[d] + xi[4 * d], b1i = xi[d + 1] + xi[4 * d + 1];
        FT b2r = xi[2 * d] + xi[3 * d], b2i = xi[2 * d + 1] + xi[3 * d + 1];
        FT d1r = xi[d] - xi[4 * d], d1i = xi[d + 1] - xi[4 * d + 1];
        FT d2r = xi[2 * d] - xi[3 * d], d2i = xi[2 * d + 1] - xi[3 * d + 1];
        FT r1r = xi[0] + c51 * b1r + c52 * b2r, r1i = xi[1] + c51 * b1i + c52 * b2i;
        FT r2r = xi[0] + c52 * b1r + c51 * b2r, r2i = xi[1] + c52 * b1i + c51 * b2i;
        /* i1 = i (s51 d1 + s52 d2), i2 = i (s52 d1 - s51 d2) */
        FT i1r = -(s51 * d1i + s52 * d2i), i1i = s51 * d1r + s52 * d2r;
        FT i2r = -(s52 * d1i - s51 * d2i), i2i = s52 * d1r - s51 * d2r;
        ore[0] = xi[0] + b1r + b2r; oim[0] = xi[1] + b1i + b2i;
        ore[1] = r1r + i1r; oim[1] = r1i + i1i;
        ore[2] = r2r + i2r; oim[2] = r2i + i2i;
        ore[3] = r2r - i2r; oim[3] = r2i - i2i;
        ore[4] = r1r - i1r; oim[4] = r1i - i1i;
      } else { /* a prime p <= FFT_MAX_RADIX: direct size-p DFT with its roots */
        const FT *rt = twt + 2 * P->roots;
        for (int32_t k = 0; k < p; k++) {
          FT ar = 0, ai = 0;
          int32_t t = 0;
          for (int32_t r = 0; r < p; r++) {
            FT xr = xi[r * d], xim = xi[r * d + 1], cr = rt[2 * t], ci = rt[2 * t + 1];
            ar += xr * cr - xim * ci;
            ai += xr * ci + xim * cr;
            t += k;
            if (t >= p) t -= p;
          }
          ore[k] = ar;
          oim[k] = ai;
        }
      }
      yo[0] = ore[0];
      yo[1] = oim[0];
      for (int32_t k = 1; k < p; k++) {
        yo[k * o] = ore[k] * wr[k] - oim[k] * wi[k];
        yo[k * o + 1] = ore[k] * wi[k] + oim[k] * wr[k];
      }
    }
  }
}

typedef struct FN(pass_job) {
  const cpu_fft_plan *plan;
  const fft_pass *P;
  const FT *x;
  FT *y;
  int by_j;
} FN(pass_job);

static void FN(pass_run)(const cpu_fft_plan *plan, const fft_pass *P, const FT *x, FT *y, int64_t j0,
                         int64_t j1, int64_t q0, int64_t q1) {
#ifdef FFT_VECTOR_PASS
  if (plan->avx2 && FFT_VECTOR_PASS(P, (const FT *)plan->tw, x, y, j0, j1, q0, q1)) return;
#endif
  FN(pass_scalar)(P, (const FT *)plan->tw, x, y, j0, j1, q0, q1);
}

static void FN(pass_range)(void *arg, int64_t b, int64_t e) {
  const FN(pass_job) *J = arg;
  if (J->by_j) {
    FN(pass_run)(J->plan, J->P, J->x, J->y, b, e, 0, J->P->s);
  } else { /* ranges of q in units of 8, so vector code sees whole vectors */
    int64_t q1 = 8 * e < J->P->s ? 8 * e : J->P->s;
    FN(pass_run)(J->plan, J->P, J->x, J->y, 0, J->P->m, 8 * b, q1);
  }
}

/* The passes of a Stockham plan: in -> out, with scratch of n elements. */
static void FN(stockham)(const cpu_fft_plan *p, cpu_pool *pool, const FT *in, FT *out, FT *scr) {
  int64_t n = p->n;
  if (p->npass == 0) {
    if (out != in) memcpy(out, in, sizeof(FT) * 2 * (size_t)n);
    return;
  }
  /* Pick the ping-pong order so the last pass writes `out`. */
  const FT *src = in;
  FT *bufs[2];
  if (in == out) {
    bufs[0] = scr;
    bufs[1] = out;
  } else if (p->npass % 2) {
    bufs[0] = out;
    bufs[1] = scr;
  } else {
    bufs[0] = scr;
    bufs[1] = out;
  }
  int32_t threads = pool ? cpu_pool_threads(pool) : 1;
  for (int32_t f = 0; f < p->npass; f++) {
    const fft_pass *P = &p->pass[f];
    FT *dst = bufs[f % 2];
    if (threads > 1 && n >= 32768) {
      FN(pass_job) J = {p, P, src, dst, P->m >= 64};
      if (J.by_j) cpu_parallel_for(pool, P->m, 1 + 4096 / P->s, FN(pass_range), &J);
      else cpu_parallel_for(pool, (P->s + 7) / 8, 1 + 512 / P->m, FN(pass_range), &J);
    } else {
      FN(pass_run)(p, P, src, dst, 0, P->m, 0, P->s);
    }
    src = dst;
  }
  if (src != out) memcpy(out, src, sizeof(FT) * 2 * (size_t)n);
}

static void FN(c2c_any)(const cpu_fft_plan *p, cpu_pool *pool, const FT *in, FT *out, FT *scr);

/* Bluestein: the DFT as a circular convolution with the chirp, of length M. */
static void FN(bluestein)(const cpu_fft_plan *p, cpu_pool *pool, const FT *in, FT *out, FT *scr) {
  int64_t n = p->n, M = p->M;
  const FT *ch = p->chirp, *bh = p->bhat;
  FT *a = scr, *sub = scr + 2 * M;
  for (int64_t k = 0; k < n; k++) {
    FT xr = in[2 * k], xi = in[2 * k + 1], cr = ch[2 * k], ci = ch[2 * k + 1];
    a[2 * k] = xr * cr - xi * ci;
    a[2 * k + 1] = xr * ci + xi * cr;
  }
  memset(a + 2 * n, 0, sizeof(FT) * 2 * (size_t)(M - n));
  FN(c2c_any)(p->sub, pool, a, a, sub);
  /* inverse FFT of A*B as conj(FFT(conj(A*B))) (bhat holds the 1/M) */
  for (int64_t k = 0; k < M; k++) {
    FT ar = a[2 * k], ai = a[2 * k + 1], br = bh[2 * k], bi = bh[2 * k + 1];
    a[2 * k] = ar * br - ai * bi;
    a[2 * k + 1] = -(ar * bi + ai * br);
  }
  FN(c2c_any)(p->sub, pool, a, a, sub);
  for (int64_t k = 0; k < n; k++) {
    FT ar = a[2 * k], ai = -a[2 * k + 1], cr = ch[2 * k], ci = ch[2 * k + 1];
    out[2 * k] = ar * cr - ai * ci;
    out[2 * k + 1] = ar * ci + ai * cr;
  }
}

static void FN(c2c_any)(const cpu_fft_plan *p, cpu_pool *pool, const FT *in, FT *out, FT *scr) {
  if (p->sub) FN(bluestein)(p, pool, in, out, scr);
  else FN(stockham)(p, pool, in, out, scr);
}

/* r2c's split pass: Z = FFT_h of the pairs, in place in out (h + 1 slots):
 * X[k] = E + w^k O and X[h-k] = conj(E - w^k O), with E = (Z[k] + conj Z[h-k])/2
 * and O = -i (Z[k] - conj Z[h-k])/2. */
typedef struct FN(split_job) {
  FT *out;
  const FT *src; /* c2r's merge reads here (the caller's input) and writes out */
  const FT *w;
  int64_t h;
  FT scale; /* folded into the pass: the caller's normalization */
} FN(split_job);

static void FN(r2c_split)(void *arg, int64_t b, int64_t e) {
  const FN(split_job) *J = arg;
  FT *o = J->out;
  const FT *w = J->w;
  int64_t h = J->h;
  for (int64_t k = b; k < e; k++) {
    int64_t c = h - k;
    FT ar = o[2 * k], ai = o[2 * k + 1], br = o[2 * c], bi = -o[2 * c + 1];
    FT hs = (FT)0.5 * J->scale;
    FT er = hs * (ar + br), ei = hs * (ai + bi);
    FT orr = hs * (ai - bi), oi = -hs * (ar - br);
    FT wr = w[2 * k], wi = w[2 * k + 1];
    FT tr = wr * orr - wi * oi, ti = wr * oi + wi * orr;
    o[2 * k] = er + tr;
    o[2 * k + 1] = ei + ti;
    o[2 * c] = er - tr;
    o[2 * c + 1] = -(ei - ti);
  }
}

/* c2r's merge pass, from the input x (h + 1 values) into g (h slots; g[0] is
 * the caller's, from the real parts of x[0] and x[h]):
 * G[k] = conj(P) - i conj(Q), G[h-k] = P - i Q with P = X[k] + conj X[h-k],
 * Q = (X[k] - conj X[h-k]) conj(w^k); FFT_h(G) is then conj of the backward
 * transform of the pairs. */
static void FN(c2r_merge)(void *arg, int64_t b, int64_t e) {
  const FN(split_job) *J = arg;
  const FT *x = J->src;
  FT *g = J->out;
  const FT *w = J->w;
  int64_t h = J->h;
  for (int64_t k = b; k < e; k++) {
    int64_t c = h - k;
    FT sc = J->scale;
    FT ar = sc * x[2 * k], ai = sc * x[2 * k + 1], br = sc * x[2 * c], bi = -sc * x[2 * c + 1];
    FT pr = ar + br, pi = ai + bi, dr = ar - br, di = ai - bi;
    FT wr = w[2 * k], wi = -w[2 * k + 1];
    FT qr = dr * wr - di * wi, qi = dr * wi + di * wr;
    /* conj(P) - i conj(Q) = (pr - qi, -pi - qr); P - iQ = (pr + qi, pi - qr) */
    g[2 * k] = pr - qi;
    g[2 * k + 1] = -pi - qr;
    g[2 * c] = pr + qi;
    g[2 * c + 1] = pi - qr;
  }
}

/* cpu_parallel_for ranges start at 0; the split passes start at k = 1. */
static void FN(r2c_split1)(void *arg, int64_t b, int64_t e) { FN(r2c_split)(arg, b + 1, e + 1); }
static void FN(c2r_merge1)(void *arg, int64_t b, int64_t e) { FN(c2r_merge)(arg, b + 1, e + 1); }

static void FN(r2c)(const cpu_fft_plan *p, cpu_pool *pool, const FT *in, FT *out, FT *scr, FT sc) {
  int64_t n = p->n;
  int par = pool && cpu_pool_threads(pool) > 1 && n >= 65536;
  if (n % 2) {
    FT *buf = scr, *sub = scr + 2 * n;
    for (int64_t k = 0; k < n; k++) {
      buf[2 * k] = in[k];
      buf[2 * k + 1] = 0;
    }
    FN(c2c_any)(p->half, par ? pool : NULL, buf, buf, sub);
    for (int64_t k = 0; k < 2 * (n / 2 + 1); k++) out[k] = sc * buf[k];
    return;
  }
  int64_t h = n / 2;
  FN(c2c_any)(p->half, par ? pool : NULL, in, out, scr);
  FT z0r = out[0], z0i = out[1];
  out[0] = sc * (z0r + z0i);
  out[1] = 0;
  out[2 * h] = sc * (z0r - z0i);
  out[2 * h + 1] = 0;
  FN(split_job) J = {out, out, p->post, h, sc};
  if (par) cpu_parallel_for(pool, h / 2, 4096, FN(r2c_split1), &J);
  else FN(r2c_split)(&J, 1, h / 2 + 1);
}

static void FN(c2r)(const cpu_fft_plan *p, cpu_pool *pool, const FT *in, FT *out, FT *scr, FT sc) {
  int64_t n = p->n;
  int par = pool && cpu_pool_threads(pool) > 1 && n >= 65536;
  if (n % 2) {
    FT *buf = scr, *sub = scr + 2 * n;
    buf[0] = sc * in[0];
    buf[1] = 0;
    for (int64_t k = 1; k <= n / 2; k++) {
      buf[2 * k] = sc * in[2 * k];
      buf[2 * k + 1] = -sc * in[2 * k + 1];
      buf[2 * (n - k)] = sc * in[2 * k];
      buf[2 * (n - k) + 1] = sc * in[2 * k + 1];
    }
    FN(c2c_any)(p->half, par ? pool : NULL, buf, buf, sub);
    for (int64_t k = 0; k < n; k++) out[k] = buf[2 * k];
    return;
  }
  int64_t h = n / 2;
  FT *g = scr, *sub = scr + 2 * h;
  FT x0 = in[0], xh = in[2 * h];
  g[0] = sc * (x0 + xh);
  g[1] = -sc * (x0 - xh);
  FN(split_job) J = {g, in, p->post, h, sc};
  if (par) cpu_parallel_for(pool, h / 2, 4096, FN(c2r_merge1), &J);
  else FN(c2r_merge)(&J, 1, h / 2 + 1);
  FN(c2c_any)(p->half, par ? pool : NULL, g, out, sub);
  for (int64_t k = 0; k < h; k++) out[2 * k + 1] = -out[2 * k + 1];
}
