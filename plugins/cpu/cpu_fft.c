/* plugins/cpu/cpu_fft.c: mixed-radix Stockham FFT plus Bluestein (see
 * cpu_fft.h).
 *
 * A Stockham pass of radix p on a sequence of current length L = p*m with
 * stride s reads x[q + s*(j + r*m)], r < p, does a size-p DFT, multiplies
 * output k by w_L^{jk} and writes y[q + s*(p*j + k)]; the next pass runs on
 * length m with stride s*p. After the last pass the output is in natural
 * order, no bit reversal needed.
 */
#include "cpu_fft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FFT_MAX_FACTORS 64
#define FFT_PI 3.14159265358979323846

struct cpu_fft_plan {
  int64_t n;
  int32_t nf;
  int32_t factors[FFT_MAX_FACTORS];
  cpu_cplx *tw; /* tw[t] = e^{-2 pi i t / n}, t < n */
  /* Bluestein: */
  cpu_fft_plan *sub; /* power-of-two plan of length mlen */
  int64_t mlen;
  cpu_cplx *chirp;   /* e^{-pi i k^2 / n}, k < n */
  cpu_cplx *bhat;    /* FFT of the conjugate chirp, length mlen */
};

void cpu_fft_twiddles(cpu_cplx *t, int64_t n, int64_t count) {
  int64_t b = (int64_t)sqrt((double)n) + 1;
  cpu_cplx *lo = malloc(sizeof(cpu_cplx) * (size_t)b);
  cpu_cplx *hi = malloc(sizeof(cpu_cplx) * (size_t)(n / b + 1));
  if (!lo || !hi) {
    for (int64_t i = 0; i < count; i++) t[i] = cexp(-2.0 * FFT_PI * I * (double)i / (double)n);
  } else {
    for (int64_t i = 0; i < b; i++) lo[i] = cexp(-2.0 * FFT_PI * I * (double)i / (double)n);
    for (int64_t i = 0; i <= n / b; i++) hi[i] = cexp(-2.0 * FFT_PI * I * (double)(i * b) / (double)n);
    for (int64_t i = 0; i < count; i++) t[i] = hi[i / b] * lo[i % b];
  }
  free(lo);
  free(hi);
}

void cpu_fft_plan_destroy(cpu_fft_plan *p) {
  if (!p) return;
  cpu_fft_plan_destroy(p->sub);
  free(p->tw);
  free(p->chirp);
  free(p->bhat);
  free(p);
}

cpu_fft_plan *cpu_fft_plan_create(int64_t n) {
  cpu_fft_plan *p = calloc(1, sizeof *p);
  if (!p || n < 1) { free(p); return NULL; }
  p->n = n;
  int64_t r = n;
  while (r % 4 == 0) { p->factors[p->nf++] = 4; r /= 4; }
  while (r % 2 == 0) { p->factors[p->nf++] = 2; r /= 2; }
  while (r % 3 == 0) { p->factors[p->nf++] = 3; r /= 3; }
  while (r % 5 == 0) { p->factors[p->nf++] = 5; r /= 5; }
  if (r != 1) {
    /* Bluestein: a length-n DFT as a circular convolution of length mlen >= 2n-1. */
    p->nf = 0;
    p->mlen = 1;
    while (p->mlen < 2 * n - 1) p->mlen *= 2;
    p->sub = cpu_fft_plan_create(p->mlen);
    p->chirp = malloc(sizeof(cpu_cplx) * (size_t)n);
    p->bhat = calloc((size_t)p->mlen, sizeof(cpu_cplx));
    cpu_cplx *scratch = malloc(sizeof(cpu_cplx) * (size_t)p->mlen);
    if (!p->sub || !p->chirp || !p->bhat || !scratch) {
      free(scratch);
      cpu_fft_plan_destroy(p);
      return NULL;
    }
    for (int64_t k = 0; k < n; k++) {
      int64_t q = (int64_t)(((__int128)k * k) % (2 * n)); /* exact phase, no k^2 overflow */
      p->chirp[k] = cexp(-FFT_PI * I * (double)q / (double)n);
    }
    p->bhat[0] = conj(p->chirp[0]);
    for (int64_t k = 1; k < n; k++) p->bhat[k] = p->bhat[p->mlen - k] = conj(p->chirp[k]);
    cpu_fft_forward(p->sub, NULL, p->bhat, p->bhat, scratch);
    free(scratch);
    return p;
  }
  p->tw = malloc(sizeof(cpu_cplx) * (size_t)n);
  if (!p->tw) { cpu_fft_plan_destroy(p); return NULL; }
  cpu_fft_twiddles(p->tw, n, n);
  return p;
}

int64_t cpu_fft_scratch(const cpu_fft_plan *p) { return p->sub ? 3 * p->mlen : p->n; }

typedef struct pass_job {
  const cpu_fft_plan *p;
  const cpu_cplx *x;
  cpu_cplx *y;
  int64_t m, s, twstep; /* twstep = n / L */
  int32_t radix;
} pass_job;

/* Butterflies it in [b, e) of a pass: it = j*s + q. */
static void pass_range(void *arg, int64_t b, int64_t e) {
  const pass_job *J = arg;
  const cpu_cplx *x = J->x, *tw = J->p->tw;
  cpu_cplx *y = J->y;
  int64_t m = J->m, s = J->s, n = J->p->n, ts = J->twstep;
  const double c3 = -0.86602540378443864676; /* -sin(2pi/3) */
  const double c51 = 0.30901699437494742410, c52 = -0.80901699437494742410;
  const double s51 = -0.95105651629515357212, s52 = -0.58778525229247312917;
  for (int64_t it = b; it < e;) {
    int64_t j = it / s, q0 = it % s, q1 = s;
    if ((j + 1) * s > e) q1 = e - j * s;
    cpu_cplx w1 = tw[(j * ts) % n], w2 = tw[(2 * j * ts) % n];
    cpu_cplx w3 = tw[(3 * j * ts) % n], w4 = tw[(4 * j * ts) % n];
    for (int64_t q = q0; q < q1; q++) {
      const cpu_cplx *xi = x + q + s * j;
      cpu_cplx *yo = y + q + s * J->radix * j;
      switch (J->radix) {
        case 2: {
          cpu_cplx a = xi[0], c = xi[s * m];
          yo[0] = a + c;
          yo[s] = (a - c) * w1;
          break;
        }
        case 4: {
          cpu_cplx a0 = xi[0], a1 = xi[s * m], a2 = xi[2 * s * m], a3 = xi[3 * s * m];
          cpu_cplx t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, t3 = (a1 - a3) * -I;
          yo[0] = t0 + t2;
          yo[s] = (t1 + t3) * w1;
          yo[2 * s] = (t0 - t2) * w2;
          yo[3 * s] = (t1 - t3) * w3;
          break;
        }
        case 3: {
          cpu_cplx a0 = xi[0], a1 = xi[s * m], a2 = xi[2 * s * m];
          cpu_cplx t = a1 + a2, u = (a1 - a2) * (I * c3);
          cpu_cplx v = a0 - 0.5 * t;
          yo[0] = a0 + t;
          yo[s] = (v + u) * w1;
          yo[2 * s] = (v - u) * w2;
          break;
        }
        default: { /* 5 */
          cpu_cplx a0 = xi[0], a1 = xi[s * m], a2 = xi[2 * s * m], a3 = xi[3 * s * m],
                   a4 = xi[4 * s * m];
          cpu_cplx b1 = a1 + a4, b2 = a2 + a3, d1 = a1 - a4, d2 = a2 - a3;
          cpu_cplx r1 = a0 + c51 * b1 + c52 * b2, r2 = a0 + c52 * b1 + c51 * b2;
          cpu_cplx i1 = I * (s51 * d1 + s52 * d2), i2 = I * (s52 * d1 - s51 * d2);
          yo[0] = a0 + b1 + b2;
          yo[s] = (r1 + i1) * w1;
          yo[2 * s] = (r2 + i2) * w2;
          yo[3 * s] = (r2 - i2) * w3;
          yo[4 * s] = (r1 - i1) * w4;
          break;
        }
      }
    }
    it = j * s + q1;
  }
}

static void stockham(const cpu_fft_plan *p, cpu_pool *pool, cpu_cplx *x, cpu_cplx *y) {
  int64_t len = p->n, s = 1;
  cpu_cplx *a = x, *b = y;
  for (int32_t f = 0; f < p->nf; f++) {
    int32_t r = p->factors[f];
    pass_job J = {p, a, b, len / r, s, p->n / len, r};
    int64_t work = p->n / r;
    if (pool && work >= 8192) cpu_parallel_for(pool, work, 4096, pass_range, &J);
    else pass_range(&J, 0, work);
    len /= r;
    s *= r;
    cpu_cplx *t = a; a = b; b = t;
  }
  if (a != x) memcpy(x, a, sizeof(cpu_cplx) * (size_t)p->n);
}

void cpu_fft_forward(const cpu_fft_plan *p, cpu_pool *pool, const cpu_cplx *in, cpu_cplx *out,
                     cpu_cplx *scratch) {
  int64_t n = p->n;
  if (!p->sub) {
    if (out != in) memcpy(out, in, sizeof(cpu_cplx) * (size_t)n);
    stockham(p, pool, out, scratch);
    return;
  }
  int64_t M = p->mlen;
  cpu_cplx *a = scratch, *tmp = scratch + M;
  for (int64_t k = 0; k < n; k++) a[k] = in[k] * p->chirp[k];
  for (int64_t k = n; k < M; k++) a[k] = 0;
  cpu_fft_forward(p->sub, pool, a, a, tmp);
  /* inverse FFT of A*B as conj(FFT(conj(A*B))) / M */
  for (int64_t k = 0; k < M; k++) a[k] = conj(a[k] * p->bhat[k]);
  cpu_fft_forward(p->sub, pool, a, a, tmp);
  for (int64_t k = 0; k < n; k++) out[k] = conj(a[k]) / (double)M * p->chirp[k];
}
