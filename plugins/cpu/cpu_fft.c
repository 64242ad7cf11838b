/* plugins/cpu/cpu_fft.c: FFT plans, the plan cache, and the entry points (see
 * cpu_fft.h). The per-precision execution code is cpu_fft_tmpl.h, included
 * once for float and once for double; the AVX2 float passes are
 * cpu_fft_avx2.c. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_fft_impl.h"

#define FT float
#define FN(x) x##_f32
#define FFT_VECTOR_PASS cpu_fft_pass_avx2
#include "cpu_fft_tmpl.h"
#undef FT
#undef FN
#undef FFT_VECTOR_PASS
#define FT double
#define FN(x) x##_f64
#include "cpu_fft_tmpl.h"
#undef FT
#undef FN

#define FFT_TWO_PI 6.283185307179586476925286766559
#define FFT_CACHE_ENTRIES 32
#define FFT_CACHE_BYTES ((size_t)256 << 20)

/* --- plans ----------------------------------------------------------------- */

/* t[i] = e^{-2 pi i num/den} in the plan's precision; num is reduced mod den
 * first, so the angle is exact up to one rounding of num/den, and the value is
 * computed in double and rounded once (float twiddles from float sincos would
 * cost float32 FFTs several ulps). */
static void tw_put(void *t, int f64, int64_t i, int64_t num, int64_t den) {
  int64_t r = num % den;
  double a = FFT_TWO_PI * (double)r / (double)den, c = cos(a), s = -sin(a);
  if (f64) {
    ((double *)t)[2 * i] = c;
    ((double *)t)[2 * i + 1] = s;
  } else {
    ((float *)t)[2 * i] = (float)c;
    ((float *)t)[2 * i + 1] = (float)s;
  }
}

static void plan_free(cpu_fft_plan *p) {
  if (!p) return;
  plan_free(p->sub);
  plan_free(p->half);
  free(p->tw);
  free(p->chirp);
  free(p->bhat);
  free(p->post);
  free(p);
}

int64_t cpu_fft_scratch(const cpu_fft_plan *p) {
  if (p->real) {
    int64_t hs = cpu_fft_scratch(p->half);
    return p->n % 2 ? p->n + hs : p->n / 2 + hs; /* c2r's merged input */
  }
  if (p->sub) return p->M + cpu_fft_scratch(p->sub);
  return p->n;
}

/* The smallest 2^a 3^b 5^c >= n: Bluestein's convolution length. */
static int64_t good_length(int64_t n) {
  int64_t best = 1;
  while (best < n) best *= 2;
  for (int64_t p5 = 1; p5 < best; p5 *= 5)
    for (int64_t p35 = p5; p35 < best; p35 *= 3) {
      int64_t v = p35;
      while (v < n) v *= 2;
      if (v < best) best = v;
    }
  return best;
}

static cpu_fft_plan *plan_build(int64_t n, int f64, int real, int avx2);

static int plan_stockham(cpu_fft_plan *p, const int32_t *fac, int32_t nf) {
  size_t es = p->f64 ? 2 * sizeof(double) : 2 * sizeof(float);
  int64_t L = p->n, total = 0;
  for (int32_t f = 0; f < nf; f++) {
    fft_pass *P = &p->pass[f];
    P->radix = fac[f];
    P->m = L / fac[f];
    P->s = p->n / L;
    P->tw = total;
    total += (int64_t)(fac[f] - 1) * P->m;
    P->roots = total;
    if (fac[f] > 5) total += fac[f];
    L = P->m;
  }
  p->npass = nf;
  p->tw = malloc(es * (size_t)(total ? total : 1));
  if (!p->tw) return 0;
  p->bytes += es * (size_t)total;
  for (int32_t f = 0; f < nf; f++) {
    const fft_pass *P = &p->pass[f];
    int64_t Lf = P->radix * P->m;
    for (int32_t k = 1; k < P->radix; k++)
      for (int64_t j = 0; j < P->m; j++) tw_put(p->tw, p->f64, P->tw + (k - 1) * P->m + j, j * k, Lf);
    if (P->radix > 5)
      for (int32_t t = 0; t < P->radix; t++) tw_put(p->tw, p->f64, P->roots + t, t, P->radix);
  }
  return 1;
}

static int plan_bluestein(cpu_fft_plan *p) {
  int64_t n = p->n, M = good_length(2 * n - 1);
  p->M = M;
  p->sub = plan_build(M, p->f64, 0, p->avx2);
  /* The kernel's spectrum is computed in double whatever the plan's precision. */
  cpu_fft_plan *dsub = plan_build(M, 1, 0, 0);
  double *ch = malloc(sizeof(double) * 2 * (size_t)n);
  double *bh = calloc((size_t)M, sizeof(double) * 2);
  double *scr = malloc(sizeof(double) * 2 * (size_t)M);
  size_t es = p->f64 ? sizeof(double) : sizeof(float);
  p->chirp = malloc(es * 2 * (size_t)n);
  p->bhat = malloc(es * 2 * (size_t)M);
  int ok = p->sub && dsub && ch && bh && scr && p->chirp && p->bhat;
  if (ok) {
    p->bytes += p->sub->bytes + es * 2 * (size_t)(n + M);
    for (int64_t k = 0; k < n; k++) {
      /* e^{-pi i k^2/n} = e^{-2 pi i (k^2 mod 2n) / 2n}: exact phase, no overflow */
      int64_t q = (int64_t)(((unsigned __int128)k * (unsigned __int128)k) % (unsigned __int128)(2 * n));
      tw_put(ch, 1, k, q, 2 * n);
    }
    bh[0] = 1; /* conj(chirp[0]) = e^0 */
    bh[1] = 0;
    for (int64_t k = 1; k < n; k++) {
      bh[2 * k] = bh[2 * (M - k)] = ch[2 * k];
      bh[2 * k + 1] = bh[2 * (M - k) + 1] = -ch[2 * k + 1];
    }
    c2c_any_f64(dsub, NULL, bh, bh, scr);
    for (int64_t k = 0; k < 2 * M; k++) bh[k] /= (double)M;
    if (p->f64) {
      memcpy(p->chirp, ch, sizeof(double) * 2 * (size_t)n);
      memcpy(p->bhat, bh, sizeof(double) * 2 * (size_t)M);
    } else {
      for (int64_t k = 0; k < 2 * n; k++) ((float *)p->chirp)[k] = (float)ch[k];
      for (int64_t k = 0; k < 2 * M; k++) ((float *)p->bhat)[k] = (float)bh[k];
    }
  }
  plan_free(dsub);
  free(ch);
  free(bh);
  free(scr);
  return ok;
}

static cpu_fft_plan *plan_build(int64_t n, int f64, int real, int avx2) {
  if (n < 1) return NULL;
  cpu_fft_plan *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->n = n;
  p->f64 = f64;
  p->real = real;
  p->avx2 = avx2 && !f64;
  p->bytes = sizeof *p;
  int ok;
  if (real) {
    p->half = plan_build(n % 2 ? n : n / 2, f64, 0, avx2);
    ok = p->half != NULL;
    if (ok && n % 2 == 0) {
      int64_t cnt = n / 4 + 1; /* k <= h/2 */
      p->post = malloc((f64 ? sizeof(double) : sizeof(float)) * 2 * (size_t)cnt);
      ok = p->post != NULL;
      for (int64_t k = 0; ok && k < cnt; k++) tw_put(p->post, f64, k, k, n);
    }
    if (ok) p->bytes += p->half->bytes + (size_t)n / 4 * 16;
  } else {
    int32_t fac[FFT_MAX_PASSES], nf = 0;
    int64_t r = n;
    while (r % 4 == 0) { fac[nf++] = 4; r /= 4; }
    if (r % 2 == 0) { fac[nf++] = 2; r /= 2; }
    for (int32_t q = 3; q <= FFT_MAX_RADIX && r > 1; q += 2)
      while (r % q == 0) { fac[nf++] = q; r /= q; }
    ok = r == 1 ? plan_stockham(p, fac, nf) : plan_bluestein(p);
  }
  if (!ok) {
    plan_free(p);
    return NULL;
  }
  return p;
}

/* --- execution ------------------------------------------------------------- */

void cpu_fft_c2c(const cpu_fft_plan *p, cpu_pool *pool, const void *in, void *out, void *scratch) {
  if (p->f64) c2c_any_f64(p, pool, in, out, scratch);
  else c2c_any_f32(p, pool, in, out, scratch);
}

void cpu_fft_r2c(const cpu_fft_plan *p, cpu_pool *pool, const void *in, void *out, void *scratch,
                 double scale) {
  if (p->f64) r2c_f64(p, pool, in, out, scratch, scale);
  else r2c_f32(p, pool, in, out, scratch, (float)scale);
}

void cpu_fft_c2r(const cpu_fft_plan *p, cpu_pool *pool, const void *in, void *out, void *scratch,
                 double scale) {
  if (p->f64) c2r_f64(p, pool, in, out, scratch, scale);
  else c2r_f32(p, pool, in, out, scratch, (float)scale);
}

/* --- the cache ------------------------------------------------------------- */

typedef struct fft_entry {
  int64_t n;
  int f64, real;
  cpu_fft_plan *plan;
  int32_t refs;
  uint64_t stamp;
} fft_entry;

struct cpu_fft_cache {
  pthread_mutex_t mu;
  int avx2;
  int32_t count;
  uint64_t clock;
  size_t bytes;
  fft_entry e[FFT_CACHE_ENTRIES];
};

cpu_fft_cache *cpu_fft_cache_create(int use_avx2) {
  cpu_fft_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (pthread_mutex_init(&c->mu, NULL) != 0) {
    free(c);
    return NULL;
  }
  c->avx2 = use_avx2;
  return c;
}

void cpu_fft_cache_destroy(cpu_fft_cache *c) {
  if (!c) return;
  for (int32_t i = 0; i < c->count; i++) plan_free(c->e[i].plan);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

int32_t cpu_fft_cache_count(cpu_fft_cache *c) {
  if (!c) return 0;
  pthread_mutex_lock(&c->mu);
  int32_t n = c->count;
  pthread_mutex_unlock(&c->mu);
  return n;
}

static fft_entry *cache_find(cpu_fft_cache *c, int64_t n, int f64, int real) {
  for (int32_t i = 0; i < c->count; i++)
    if (c->e[i].n == n && c->e[i].f64 == f64 && c->e[i].real == real) return &c->e[i];
  return NULL;
}

/* Drops unused plans, least recently used first, until `need` more bytes and
 * one more entry fit. Returns 0 when plans in use leave no room. */
static int cache_make_room(cpu_fft_cache *c, size_t need) {
  while (c->count == FFT_CACHE_ENTRIES || (c->count > 0 && c->bytes + need > FFT_CACHE_BYTES)) {
    int32_t victim = -1;
    for (int32_t i = 0; i < c->count; i++)
      if (c->e[i].refs == 0 && (victim < 0 || c->e[i].stamp < c->e[victim].stamp)) victim = i;
    if (victim < 0) return 0;
    c->bytes -= c->e[victim].plan->bytes;
    plan_free(c->e[victim].plan);
    c->e[victim] = c->e[--c->count];
  }
  return 1;
}

const cpu_fft_plan *cpu_fft_plan_get(cpu_fft_cache *c, int64_t n, int f64, int real) {
  f64 = f64 != 0;
  real = real != 0;
  if (!c) {
    __builtin_cpu_init();
    return plan_build(n, f64, real, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
  }
  pthread_mutex_lock(&c->mu);
  fft_entry *e = cache_find(c, n, f64, real);
  if (e) {
    /* Read the plan under the lock: an eviction by another thread moves
     * entries, so `e` may name a different plan once the lock is dropped. */
    const cpu_fft_plan *hit = e->plan;
    e->refs++;
    e->stamp = ++c->clock;
    pthread_mutex_unlock(&c->mu);
    return hit;
  }
  pthread_mutex_unlock(&c->mu);
  /* Built outside the lock: other lengths need not wait for this one. */
  cpu_fft_plan *p = plan_build(n, f64, real, c->avx2);
  if (!p) return NULL;
  pthread_mutex_lock(&c->mu);
  e = cache_find(c, n, f64, real);
  if (e) { /* another thread built it meanwhile: use theirs */
    const cpu_fft_plan *theirs = e->plan;
    e->refs++;
    e->stamp = ++c->clock;
    pthread_mutex_unlock(&c->mu);
    plan_free(p);
    return theirs;
  }
  if (cache_make_room(c, p->bytes)) {
    fft_entry *ne = &c->e[c->count++];
    ne->n = n;
    ne->f64 = f64;
    ne->real = real;
    ne->plan = p;
    ne->refs = 1;
    ne->stamp = ++c->clock;
    c->bytes += p->bytes;
  } /* else: not cached; cpu_fft_plan_put frees it */
  pthread_mutex_unlock(&c->mu);
  return p;
}

void cpu_fft_plan_put(cpu_fft_cache *c, const cpu_fft_plan *plan) {
  if (!plan) return;
  if (c) {
    pthread_mutex_lock(&c->mu);
    for (int32_t i = 0; i < c->count; i++)
      if (c->e[i].plan == plan) {
        c->e[i].refs--;
        pthread_mutex_unlock(&c->mu);
        return;
      }
    pthread_mutex_unlock(&c->mu);
  }
  plan_free((cpu_fft_plan *)(uintptr_t)plan);
}
