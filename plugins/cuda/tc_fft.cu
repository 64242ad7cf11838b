/* plugins/cuda/tc_fft.cu: _fft_r2c, _fft_c2r and prims::fft_r2c/c2r/c2c on cuFFT.
 *
 * Multi-dim transforms run one dim at a time, as the reference does (r2c: the
 * last listed dim first, then c2c forward over the others; c2r: c2c backward
 * over all but the last, then the Hermitian c2r of the last). Each 1-D stage
 * brings its dim last in a contiguous buffer and runs one batched plan.
 * Plans are cached per (type, n, batch, device, thread): cuFFT lets several
 * threads run FFTs only with distinct plans. The ROCm plugin (TC_HIP; no
 * rocFFT on Debian 12) runs each 1-D stage on its own kernels instead: the
 * Stockham FFT of rocm_fft.cuh for 2,3,5-smooth lengths, Bluestein's
 * algorithm over it (rocm_bluestein.cuh) for other lengths from RD_FFT_MIN,
 * the direct DFT of rocm_dft.cuh for shorter rows. */
#if !defined(__HIPCC__) && !defined(TC_SIM) /* ROCm and gpusim compile this file too: rocm_fft.cuh */
#include <cufft.h>
#endif
#include <stdlib.h>

#include "tc_ew_dev.cuh"

#ifndef TC_HIP
/* The simulator keeps 2 entries: its tests (four threads at once under TSan
 * among them) then evict, and find every entry busy, often. */
#ifdef TC_SIM
#define FFT_CACHE 2
#else
#define FFT_CACHE 32
#endif

typedef struct fft_entry {
  int used, busy; /* busy: its thread is running it now, so no eviction */
  int type, dev;
  long long n, batch;
  pthread_t thread;
  cufftHandle plan;
} fft_entry;

typedef struct fft_cache {
  fft_entry e[FFT_CACHE];
  int next;
} fft_cache;

/* The calling thread's plan for (type, n, batch) on the current device, marked
 * busy until put_plan. *slot is its cache entry, or -1 when every entry was
 * busy and the plan was made for this call only (put_plan destroys it). The
 * plan runs after the lock is dropped, so eviction skips busy entries: another
 * thread's miss must not destroy a plan in use. */
static tabi_status get_plan(tc_ctx *c, const char *op, cufftType type, long long n, long long batch,
                            cufftHandle *out, int *slot) {
  int dev = 0;
  cudaGetDevice(&dev);
  pthread_t self = pthread_self();
  *slot = -1;
  pthread_mutex_lock(&c->mu);
  if (!c->fft) c->fft = calloc(1, sizeof(fft_cache));
  fft_cache *fc = (fft_cache *)c->fft;
  tabi_status st = TABI_OK;
  if (!fc) {
    st = TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
  } else {
    int found = -1;
    for (int i = 0; i < FFT_CACHE && found < 0; i++)
      if (fc->e[i].used && fc->e[i].type == (int)type && fc->e[i].dev == dev && fc->e[i].n == n &&
          fc->e[i].batch == batch && pthread_equal(fc->e[i].thread, self))
        found = i;
    if (found < 0) {
      int victim = -1; /* round robin over the entries not in use */
      for (int k = 0; k < FFT_CACHE && victim < 0; k++)
        if (!fc->e[(fc->next + k) % FFT_CACHE].busy) victim = (fc->next + k) % FFT_CACHE;
      if (victim >= 0) {
        fc->next = (victim + 1) % FFT_CACHE;
        if (fc->e[victim].used) cufftDestroy(fc->e[victim].plan); /* before planning: its memory */
        fc->e[victim].used = 0;
      }
      cufftHandle p;
      size_t ws = 0;
      long long nn = n;
      cufftResult r = cufftCreate(&p);
      if (r == CUFFT_SUCCESS) {
        r = cufftMakePlanMany64(p, 1, &nn, NULL, 1, 0, NULL, 1, 0, type, batch, &ws);
        if (r != CUFFT_SUCCESS) cufftDestroy(p);
      }
      if (r == CUFFT_ALLOC_FAILED) { /* a refusal a good call can get, as ATen's OOM */
        st = TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory for the cuFFT plan of n=%lld batch=%lld",
                    op, n, batch);
      } else if (r != CUFFT_SUCCESS) {
        st = TC_ERR(c, TABI_ERR_DEVICE, "%s: cuFFT plan for n=%lld batch=%lld failed (%d)", op, n,
                    batch, (int)r);
      } else if (victim < 0) {
        *out = p; /* uncached */
      } else {
        fft_entry *e = &fc->e[victim];
        e->used = 1;
        e->type = (int)type;
        e->dev = dev;
        e->n = n;
        e->batch = batch;
        e->thread = self;
        e->plan = p;
        found = victim;
      }
    }
    if (st == TABI_OK && found >= 0) {
      fc->e[found].busy = 1;
      *out = fc->e[found].plan;
      *slot = found;
    }
  }
  pthread_mutex_unlock(&c->mu);
  return st;
}

static void put_plan(tc_ctx *c, cufftHandle plan, int slot) {
  if (slot < 0) {
    cufftDestroy(plan);
    return;
  }
  pthread_mutex_lock(&c->mu);
  ((fft_cache *)c->fft)->e[slot].busy = 0;
  pthread_mutex_unlock(&c->mu);
}

void tc_fft_destroy(tc_ctx *c);
void tc_fft_destroy(tc_ctx *c) {
  fft_cache *fc = (fft_cache *)c->fft;
  if (!fc) return;
  for (int i = 0; i < FFT_CACHE; i++)
    if (fc->e[i].used) cufftDestroy(fc->e[i].plan);
  free(fc);
  c->fft = NULL;
}

#else
#include "rocm_dft.cuh"
#include "rocm_fft.cuh"
#include "rocm_bluestein.cuh"
#endif /* TC_HIP */

static void release(tc_ctx *c, tabi_tensor *t) { c->h->tensor_release(c->h->ctx, t); }

/* cuFFT reads a contiguous buffer of `want`; cuFFT's out-of-place R2C/C2C
 * leave their input intact, so the caller's tensor can be read directly. */
static int tabi_dtype_tensor_ok(const tabi_tensor *t, tabi_dtype want) {
  return tabi_tensor_dtype(t) == want && tabi_tensor_is_contiguous(t) &&
         ((uintptr_t)tabi_tensor_data(t) % 16) == 0;
}

/* A view of t with dim d moved last (metadata only). */
static tabi_status move_last(tc_ctx *c, tabi_tensor *t, int32_t d, tabi_tensor **out) {
  int32_t nd = t->dl.ndim;
  int64_t shape[TC_MAX_DIMS], st[TC_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < nd; i++)
    if (i != d) {
      shape[k] = t->dl.shape[i];
      st[k++] = t->dl.strides[i];
    }
  shape[k] = t->dl.shape[d];
  st[k] = t->dl.strides[d];
  return c->h->tensor_view(c->h->ctx, t, nd, shape, st, (int64_t)t->dl.byte_offset, out);
}
/* The inverse of move_last. */
static tabi_status move_back(tc_ctx *c, tabi_tensor *t, int32_t d, tabi_tensor **out) {
  int32_t nd = t->dl.ndim;
  int64_t shape[TC_MAX_DIMS], st[TC_MAX_DIMS];
  int32_t k = 0;
  for (int32_t i = 0; i < nd; i++) {
    if (i == d) {
      shape[i] = t->dl.shape[nd - 1];
      st[i] = t->dl.strides[nd - 1];
    } else {
      shape[i] = t->dl.shape[k];
      st[i] = t->dl.strides[k++];
    }
  }
  return c->h->tensor_view(c->h->ctx, t, nd, shape, st, (int64_t)t->dl.byte_offset, out);
}

__global__ void scale_kernel(char *p, int dbl, int64_t n, double s) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (dbl) ((double *)p)[i] *= s;
    else ((float *)p)[i] = (float)(((float *)p)[i] * s);
  }
}

/* The input of a c2r stage, in one pass: src[r][k] = scale * v[r][k] for k
 * below both len and m (= n/2 + 1), zeros past v's end, and zero imaginary
 * parts at k = 0 and k = n/2 (n even), which the Hermitian transform ignores
 * but cuFFT would not. A copy is needed anyway (cuFFT's C2R overwrites its
 * input), and the transform is linear, so the normalisation rides along
 * instead of a pass over the output. v: rows of len complex elements, row r
 * at r * rs, element k at k * es (in elements). Rows go along blockIdx.y. */
template <typename T>
__global__ void herm_load(const T *v, T *src, int64_t rows, int64_t len, int64_t rs, int64_t es,
                          int64_t m, int64_t n, double scale) {
  int64_t kstride = (int64_t)gridDim.x * blockDim.x, half = n % 2 == 0 ? n / 2 : -1;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += kstride) {
      T re = 0, im = 0;
      if (k < len) {
        const T *p = v + 2 * (r * rs + k * es);
        re = (T)(p[0] * scale);
        im = (T)(p[1] * scale);
      }
      if (k == 0 || k == half) im = 0;
      src[2 * (r * m + k)] = re;
      src[2 * (r * m + k) + 1] = im;
    }
}

static int grid(int64_t n) {
  int64_t g = (n + 255) / 256;
  return (int)(g < 1 ? 1 : g > 65536 ? 65536 : g);
}

#ifdef TC_HIP
/* Bluestein's filter spectra, kept per (device, sign, n): the filter depends
 * on nothing else, and computing it (m double sin/cos and a length-m FFT) is
 * a third of a one-row transform's work. The spectra live in device memory
 * from cudaMalloc, outside the core's caching allocator: conformance counts
 * that allocator's bytes after every call, and a cache's would read as a leak
 * (cuFFT's plans keep their workspace outside it too). Never evicted, so no
 * entry is freed while a queued kernel may read it: BS_CACHE_N entries of at
 * most BS_CACHE_BYTES together, and past that a call computes its own filter
 * in its scratch, as every call did before. Ordering: every launch of the
 * plugin goes to the device's default stream, and an entry is published only
 * after the kernels that fill it are queued, so whoever finds it queues its
 * reads after them. Freed with the context (tc_fft_destroy). */
#define BS_CACHE_N 16
#define BS_CACHE_BYTES ((int64_t)256 << 20)

typedef struct bs_entry {
  int dev, sgn;
  int64_t n;
  double *spec; /* m double complex */
} bs_entry;

typedef struct bs_cache {
  int count;
  int64_t bytes;
  bs_entry e[BS_CACHE_N];
} bs_cache;

#ifdef TC_SIM
/* gpusim's counts, for tests/cuda/test_cuda_ops.c: filters computed, and
 * spectra cached (every context's). */
static int bs_computed, bs_cached;
extern "C" __attribute__((visibility("default"))) int tc_sim_bs_filters(void) {
  return __atomic_load_n(&bs_computed, __ATOMIC_RELAXED);
}
extern "C" __attribute__((visibility("default"))) int tc_sim_bs_cached(void) {
  return __atomic_load_n(&bs_cached, __ATOMIC_RELAXED);
}
#define BS_COUNT(var, k) __atomic_fetch_add(&(var), (k), __ATOMIC_RELAXED)
#else
#define BS_COUNT(var, k) ((void)0)
#endif

/* the cached spectrum, or NULL; under c->mu */
static double *bs_find(tc_ctx *c, int dev, int sgn, int64_t n) {
  bs_cache *bc = (bs_cache *)c->fft;
  for (int i = 0; bc && i < bc->count; i++)
    if (bc->e[i].dev == dev && bc->e[i].sgn == sgn && bc->e[i].n == n) return bc->e[i].spec;
  return NULL;
}

static double *bs_lookup(tc_ctx *c, int dev, int sgn, int64_t n) {
  pthread_mutex_lock(&c->mu);
  double *p = bs_find(c, dev, sgn, n);
  pthread_mutex_unlock(&c->mu);
  return p;
}

/* Keeps a copy of spec (m double complex, just queued) when there is room;
 * a failure only means the next call computes it again. */
static void bs_keep(tc_ctx *c, int dev, int sgn, int64_t n, int64_t m, const double *spec) {
  int64_t bytes = 16 * m;
  pthread_mutex_lock(&c->mu);
  if (!c->fft) c->fft = calloc(1, sizeof(bs_cache));
  bs_cache *bc = (bs_cache *)c->fft;
  void *p = NULL;
  if (bc && !bs_find(c, dev, sgn, n) && bc->count < BS_CACHE_N && bytes <= BS_CACHE_BYTES - bc->bytes &&
      cudaMalloc(&p, (size_t)bytes) == cudaSuccess) {
    if (cudaMemcpyAsync(p, spec, (size_t)bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess) {
      bc->e[bc->count++] = (bs_entry){dev, sgn, n, (double *)p};
      bc->bytes += bytes;
      BS_COUNT(bs_cached, 1);
    } else {
      cudaFree(p);
    }
  }
  (void)cudaGetLastError(); /* a refused allocation is not the op's error */
  pthread_mutex_unlock(&c->mu);
}

void tc_fft_destroy(tc_ctx *c) {
  bs_cache *bc = (bs_cache *)c->fft;
  if (!bc) return;
  for (int i = 0; i < bc->count; i++) cudaFree(bc->e[i].spec);
  BS_COUNT(bs_cached, -bc->count);
  free(bc);
  c->fft = NULL;
}

/* rocm_bluestein.cuh's launch order for a batch of rows of length n on the
 * Stockham FFT of length m (steps/ns its plan), ip -> opp: the filter's
 * spectrum (cached, or computed for the whole batch), then forward,
 * pointwise product, inverse. Scratch: 2*batch*m double complex, and 2*m
 * more for a filter computed here. */
static tabi_status bluestein(tc_ctx *c, const char *op, DLDevice dev, const char *ip, char *opp,
                             int kind, int fwd, int dbl, int64_t batch, int64_t n, int64_t m,
                             const rd_fft_step *steps, int ns) {
  const int sgn = kind == 2 || !fwd ? 1 : -1; /* rd_bs_sign's */
  const double *spec = bs_lookup(c, dev.device_id, sgn, n);
  tabi_tensor *scr = NULL;
  int64_t scr_n = (2 * batch + (spec ? 0 : 2)) * m;
  tabi_status st = tc_empty(c, dev, TABI_DTYPE_COMPLEX128, 1, &scr_n, &scr);
  if (st != TABI_OK) return st;
  double *base = (double *)tabi_tensor_data(scr);
  double *ab[2] = {base, base + 2 * batch * m};
  if (!spec) {
    double *fb[2] = {base + 4 * batch * m, base + 4 * batch * m + 2 * m};
    TC_LAUNCH(grid(m), 256, rd_bs_filter)(fb[0], kind, fwd, n, m);
    st = tc_launch_status(c, op);
    for (int s = 0; s < ns && st == TABI_OK; s++) {
      TC_LAUNCH(grid(m / steps[s].radix), 256, rd_fft_stage)(fb[s % 2], fb[(s + 1) % 2], 1, m, steps[s].p,
                                                      steps[s].radix, 1);
      st = tc_launch_status(c, op);
    }
    spec = fb[ns % 2];
    if (st == TABI_OK) {
      BS_COUNT(bs_computed, 1);
      bs_keep(c, dev.device_id, sgn, n, m, spec);
    }
  }
  if (st == TABI_OK) {
    if (dbl)
      TC_LAUNCH(grid(batch * m), 256, rd_bs_load<double>)(ip, ab[0], kind, fwd, batch, n, m);
    else
      TC_LAUNCH(grid(batch * m), 256, rd_bs_load<float>)(ip, ab[0], kind, fwd, batch, n, m);
    st = tc_launch_status(c, op);
  }
  for (int s = 0; s < 2 * ns && st == TABI_OK; s++) {
    if (s == ns) { /* ab[ns % 2] holds FFT_m(a) */
      TC_LAUNCH(grid(batch * m), 256, rd_bs_mul)(ab[s % 2], spec, batch, m);
      st = tc_launch_status(c, op);
      if (st != TABI_OK) break;
    }
    const rd_fft_step *sp = &steps[s % ns];
    TC_LAUNCH(grid(batch * (m / sp->radix)), 256, rd_fft_stage)(ab[s % 2], ab[(s + 1) % 2], batch, m, sp->p,
                                                         sp->radix, s < ns);
    st = tc_launch_status(c, op);
  }
  if (st == TABI_OK) { /* 2*ns stages: the result is back in ab[0] */
    int64_t outs_n = batch * (kind == 1 ? n / 2 + 1 : n);
    if (dbl)
      TC_LAUNCH(grid(outs_n), 256, rd_bs_store<double>)(ab[0], opp, kind, fwd, batch, n, m);
    else
      TC_LAUNCH(grid(outs_n), 256, rd_bs_store<float>)(ab[0], opp, kind, fwd, batch, n, m);
    st = tc_launch_status(c, op);
  }
  /* back to the allocator: its next user is ordered after these launches */
  release(c, scr);
  return st;
}
#endif

/* One 1-D stage along dim d of `in` (any layout). kind: 0 c2c (sign), 1 r2c
 * onesided, 2 c2r to length n. Returns a new tensor in `in`'s dim order. */
static tabi_status stage(tc_ctx *c, const char *op, tabi_tensor *in, int32_t d, int kind, int fwd,
                         int64_t n, double scale, tabi_tensor **out) {
  tabi_dtype dt = tabi_tensor_dtype(in);
  int dbl = dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_COMPLEX128;
  tabi_dtype cdt = dbl ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64;
  tabi_dtype rdt = dbl ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32;
  int32_t nd = in->dl.ndim;
  tabi_tensor *v = NULL, *src = NULL, *dst = NULL, *back = NULL;
  tabi_status st = move_last(c, in, d, &v);
  int64_t shape[TC_MAX_DIMS];
  if (st == TABI_OK) memcpy(shape, v->dl.shape, sizeof(int64_t) * (size_t)nd);
  int64_t len = st == TABI_OK ? shape[nd - 1] : 0, batch = 1;
  for (int32_t i = 0; i < nd - 1; i++) batch *= shape[i];
  if (st == TABI_OK) {
    if (kind == 2) {
      /* the first n/2+1 elements of the last dim, scaled; zeros past the
       * input's end (herm_load). v is of cdt already (c2r takes complex
       * input, and earlier stages give cdt). Its rows must be one stride
       * apart: the batch dims of v collapse, or v is first made contiguous. */
      int64_t m = n / 2 + 1, sh2[TC_MAX_DIMS];
      memcpy(sh2, shape, sizeof(int64_t) * (size_t)nd);
      sh2[nd - 1] = m;
      tabi_tensor *vc = NULL; /* the contiguous copy, when one is made */
      int64_t rs = len, es = v->dl.strides[nd - 1];
      int flat = 1;
      for (int32_t i = nd - 2, prev = -1; i >= 0 && flat; i--) {
        if (shape[i] == 1) continue; /* its stride is never used */
        if (prev < 0) rs = v->dl.strides[i];
        else flat = v->dl.strides[i] == v->dl.strides[prev] * shape[prev];
        prev = i;
      }
      if (!flat) {
        st = tc_contiguous(c, op, v, &vc);
        rs = len;
        es = 1;
      }
      const tabi_tensor *vr = vc ? vc : v;
      if (st == TABI_OK) st = tc_empty(c, in->dl.device, cdt, nd, sh2, &src);
      if (st == TABI_OK && batch > 0) {
        int64_t gx = (m + 255) / 256, gy;
        gx = gx > 65535 ? 65535 : gx;
        gy = 262144 / gx;
        gy = gy < 1 ? 1 : gy > batch ? batch : gy > 65535 ? 65535 : gy;
        dim3 g((unsigned)gx, (unsigned)gy);
        if (dbl)
          TC_LAUNCH(g, 256, herm_load<double>)((const double *)tabi_tensor_data(vr),
                                               (double *)tabi_tensor_data(src), batch, len, rs, es, m, n, scale);
        else
          TC_LAUNCH(g, 256, herm_load<float>)((const float *)tabi_tensor_data(vr),
                                              (float *)tabi_tensor_data(src), batch, len, rs, es, m, n, scale);
        st = tc_launch_status(c, op);
      }
      release(c, vc);
    } else {
      tabi_dtype want = kind == 1 ? rdt : cdt;
      if (tabi_dtype_tensor_ok(v, want)) { /* already a dense buffer of the right type */
        c->h->tensor_retain(c->h->ctx, v);
        src = v;
      } else {
        st = tc_empty(c, in->dl.device, want, nd, shape, &src);
        if (st == TABI_OK) st = tc_copy_convert(c, op, src, v);
      }
    }
  }
  int64_t oshape[TC_MAX_DIMS];
  if (st == TABI_OK) {
    memcpy(oshape, shape, sizeof(int64_t) * (size_t)nd);
    oshape[nd - 1] = kind == 1 ? len / 2 + 1 : kind == 2 ? n : len;
    st = tc_empty(c, in->dl.device, kind == 2 ? rdt : cdt, nd, oshape, &dst);
  }
  int64_t sig = kind == 2 ? n : len;
  if (st == TABI_OK && batch > 0 && sig > 0) {
#ifdef TC_HIP
    /* No rocFFT: the Stockham FFT of rocm_fft.cuh for 2,3,5-smooth lengths
     * from RD_FFT_MIN (a scratch of two double complex copies of the batch,
     * 32*batch*n bytes; r2c/c2r run as full complex transforms); other
     * lengths from RD_FFT_MIN Bluestein's algorithm of rocm_bluestein.cuh on
     * the Stockham FFT of a 2,3,5-smooth m >= 2n-1 (scratch 16*(2*batch+2)*m
     * bytes); shorter rows the direct DFT of rocm_dft.cuh (O(n^2), no
     * scratch). */
    const char *ip = (const char *)tabi_tensor_data(src);
    char *opp = (char *)tabi_tensor_data(dst);
    rd_fft_step steps[RD_FFT_MAX_STAGES];
    int ns = sig >= RD_FFT_MIN ? rd_fft_plan(sig, steps) : -1;
    int64_t bs_m = ns < 0 && sig >= RD_FFT_MIN ? rd_bs_len(sig) : -1;
    int bs_ns = bs_m > 0 ? rd_fft_plan(bs_m, steps) : -1;
    if (bs_ns > 0) {
      st = bluestein(c, op, in->dl.device, ip, opp, kind, fwd, dbl, batch, sig, bs_m, steps,
                     bs_ns);
    } else if (ns >= 0) {
      tabi_tensor *scr = NULL;
      int64_t scr_n = 2 * batch * sig;
      st = tc_empty(c, in->dl.device, TABI_DTYPE_COMPLEX128, 1, &scr_n, &scr);
      if (st == TABI_OK) {
        double *buf2[2] = {(double *)tabi_tensor_data(scr),
                           (double *)tabi_tensor_data(scr) + 2 * batch * sig};
        int g = grid(batch * sig);
        if (dbl)
          TC_LAUNCH(g, 256, rd_fft_load<double>)(ip, buf2[0], kind, batch, sig);
        else
          TC_LAUNCH(g, 256, rd_fft_load<float>)(ip, buf2[0], kind, batch, sig);
        st = tc_launch_status(c, op);
        for (int s = 0; s < ns && st == TABI_OK; s++) {
          TC_LAUNCH(grid(batch * (sig / steps[s].radix)), 256, rd_fft_stage)(
              buf2[s % 2], buf2[(s + 1) % 2], batch, sig, steps[s].p, steps[s].radix,
              kind != 2 && fwd);
          st = tc_launch_status(c, op);
        }
        int64_t outs_n = batch * (kind == 1 ? sig / 2 + 1 : sig);
        if (st == TABI_OK) {
          if (dbl)
            TC_LAUNCH(grid(outs_n), 256, rd_fft_store<double>)(buf2[ns % 2], opp, kind, batch, sig);
          else
            TC_LAUNCH(grid(outs_n), 256, rd_fft_store<float>)(buf2[ns % 2], opp, kind, batch, sig);
          st = tc_launch_status(c, op);
        }
      }
      /* back to the allocator: its next user is ordered after these launches */
      release(c, scr);
    } else {
      int64_t outs_n = batch * (kind == 1 ? sig / 2 + 1 : sig);
      if (dbl)
        TC_LAUNCH(grid(outs_n), 256, rd_dft<double>)(ip, opp, kind, fwd, batch, sig);
      else
        TC_LAUNCH(grid(outs_n), 256, rd_dft<float>)(ip, opp, kind, fwd, batch, sig);
      st = tc_launch_status(c, op);
    }
#else
    cufftType type = kind == 0 ? (dbl ? CUFFT_Z2Z : CUFFT_C2C)
                     : kind == 1 ? (dbl ? CUFFT_D2Z : CUFFT_R2C) : (dbl ? CUFFT_Z2D : CUFFT_C2R);
    cufftHandle plan = 0;
    int slot = -1;
    st = get_plan(c, op, type, sig, batch, &plan, &slot);
    if (st == TABI_OK) {
      cufftSetStream(plan, 0);
      void *ip = tabi_tensor_data(src), *opp = tabi_tensor_data(dst);
      cufftResult r;
      int dir = fwd ? CUFFT_FORWARD : CUFFT_INVERSE;
      switch (type) {
        case CUFFT_C2C: r = cufftExecC2C(plan, (cufftComplex *)ip, (cufftComplex *)opp, dir); break;
        case CUFFT_Z2Z: r = cufftExecZ2Z(plan, (cufftDoubleComplex *)ip, (cufftDoubleComplex *)opp, dir); break;
        case CUFFT_R2C: r = cufftExecR2C(plan, (cufftReal *)ip, (cufftComplex *)opp); break;
        case CUFFT_D2Z: r = cufftExecD2Z(plan, (cufftDoubleReal *)ip, (cufftDoubleComplex *)opp); break;
        case CUFFT_C2R: r = cufftExecC2R(plan, (cufftComplex *)ip, (cufftReal *)opp); break;
        default: r = cufftExecZ2D(plan, (cufftDoubleComplex *)ip, (cufftDoubleReal *)opp); break;
      }
      if (r == CUFFT_ALLOC_FAILED)
        st = TC_ERR(c, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory in cuFFT", op);
      else if (r != CUFFT_SUCCESS)
        st = TC_ERR(c, TABI_ERR_DEVICE, "%s: cuFFT exec failed (%d)", op, (int)r);
      put_plan(c, plan, slot);
    }
#endif
  } else if (st == TABI_OK && tabi_tensor_numel(dst) > 0) {
    tabi_value zero = tabi_float(0.0);
    st = tc_fill(c, op, dst, &zero); /* an empty signal transforms to zeros */
  }
  if (st == TABI_OK) st = move_back(c, dst, d, &back);
  release(c, v);
  release(c, src);
  release(c, dst);
  if (st != TABI_OK) {
    release(c, back);
    return st;
  }
  *out = back;
  return TABI_OK;
}

typedef struct fft_dims {
  int32_t n;
  int32_t d[TC_MAX_DIMS];
} fft_dims;

static tabi_status get_dims(tc_ctx *c, const char *op, const tabi_tensor *t, const tabi_value *v,
                            int need_one, fft_dims *out) {
  int64_t len = v->tag == TABI_TAG_NONE ? 0 : v->u.list.len;
  const int64_t *ds = tabi_value_ints(v);
  out->n = 0;
  if (t->dl.ndim == 0)
    return TC_ERR(c, TABI_ERR_INDEX, "%s: argument 'self' is 0-d; FFTs need at least 1 dim", op);
  if (need_one && len == 0)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dim' must name at least one dim", op);
  if (len > t->dl.ndim)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dim' has %lld entries for a %dD tensor",
                  op, (long long)len, (int)t->dl.ndim);
  for (int64_t i = 0; i < len; i++) {
    int32_t w;
    tabi_status st = tc_wrap_dim(c, op, "dim", ds[i], t->dl.ndim, &w);
    if (st) return st;
    for (int32_t j = 0; j < out->n; j++)
      if (out->d[j] == w)
        return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dim': dim %d appears twice", op, (int)w);
    out->d[out->n++] = w;
  }
  return TABI_OK;
}

/* Chains stages, releasing intermediates; *cur starts retained. */
static tabi_status chain(tc_ctx *c, const char *op, tabi_tensor **cur, int32_t d, int kind, int fwd,
                         int64_t n, double scale) {
  tabi_tensor *nx = NULL;
  tabi_status st = stage(c, op, *cur, d, kind, fwd, n, scale, &nx);
  release(c, *cur);
  *cur = nx;
  return st;
}

/* Makes the final result contiguous, scaled by `scale`. */
static tabi_status finish(tc_ctx *c, const char *op, tabi_tensor *cur, double scale, tabi_value *outs) {
  tabi_tensor *o = NULL;
  tabi_status st = TABI_OK;
  if (tabi_tensor_is_contiguous(cur)) {
    o = cur;
  } else {
    st = tc_empty(c, cur->dl.device, tabi_tensor_dtype(cur), cur->dl.ndim, cur->dl.shape, &o);
    if (st == TABI_OK) st = tc_copy_convert(c, op, o, cur);
    release(c, cur);
  }
  if (st == TABI_OK && scale != 1.0) {
    tabi_dtype dt = tabi_tensor_dtype(o);
    int dbl = dt == TABI_DTYPE_FLOAT64 || dt == TABI_DTYPE_COMPLEX128;
    int64_t n = tabi_tensor_numel(o) * (tabi_dtype_is_complex(dt) ? 2 : 1);
    if (n > 0) {
      TC_LAUNCH(grid(n), 256, scale_kernel)((char *)tabi_tensor_data(o), dbl, n, scale);
      st = tc_launch_status(c, op);
    }
  }
  if (st != TABI_OK) {
    release(c, o);
    return st;
  }
  outs[0] = tabi_tensor_value(o);
  return TABI_OK;
}

static double norm_scale(int64_t norm, double n) {
  if (n <= 0) return 1;
  if (norm == 1) return 1 / sqrt(n);
  if (norm == 2) return 1 / n;
  return 1;
}

static tabi_status check_common(tc_ctx *c, const char *op, tabi_tensor *x, uint32_t complex_in) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  int ok = complex_in ? tabi_dtype_is_complex(dt) : (dt == TABI_DTYPE_FLOAT32 || dt == TABI_DTYPE_FLOAT64);
  if (!ok)
    return TC_ERR(c, TABI_ERR_TYPE, "%s: argument 'self' has dtype %s; expected %s", op, tabi_dtype_name(dt),
                  complex_in ? "complex64 or complex128" : "float32 or float64");
  tabi_status st = tc_check_cuda(c, x, op, "self");
  if (st == TABI_OK) st = tc_use_device(c, x, op);
  return st;
}

static tabi_status r2c(tc_ctx *c, const tabi_call *call, tabi_value *args, int64_t norm, int onesided,
                       tabi_value *outs) {
  const char *op = tc_op_name(c, call);
  tabi_tensor *x = args[0].u.t;
  fft_dims fd;
  tabi_status st = check_common(c, op, x, 0);
  if (st == TABI_OK) st = get_dims(c, op, x, &args[1], 1, &fd);
  if (st != TABI_OK) return st;
  double n = 1;
  tabi_tensor *cur = x;
  c->h->tensor_retain(c->h->ctx, cur);
  for (int32_t i = fd.n - 1; i >= 0 && st == TABI_OK; i--) {
    int32_t d = fd.d[i];
    n *= (double)cur->dl.shape[d];
    int first = i == fd.n - 1;
    st = chain(c, op, &cur, d, first && onesided ? 1 : 0, 1, 0, 1.0);
  }
  if (st != TABI_OK) {
    release(c, cur);
    return st;
  }
  return finish(c, op, cur, norm_scale(norm, n), outs);
}

static tabi_status c2r(tc_ctx *c, const tabi_call *call, tabi_value *args, int64_t norm, int64_t last,
                       tabi_value *outs) {
  const char *op = tc_op_name(c, call);
  tabi_tensor *x = args[0].u.t;
  fft_dims fd;
  tabi_status st = check_common(c, op, x, 1);
  if (st == TABI_OK) st = get_dims(c, op, x, &args[1], 1, &fd);
  if (st != TABI_OK) return st;
  if (last < 1)
    return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'last_dim_size' is %lld; expected >= 1", op,
                  (long long)last);
  double n = 1;
  tabi_tensor *cur = x;
  c->h->tensor_retain(c->h->ctx, cur);
  for (int32_t i = 0; i < fd.n - 1 && st == TABI_OK; i++) {
    n *= (double)cur->dl.shape[fd.d[i]];
    st = chain(c, op, &cur, fd.d[i], 0, 0, 0, 1.0);
  }
  n *= (double)last;
  /* the normalisation is applied to the last stage's input (herm_load) */
  if (st == TABI_OK) st = chain(c, op, &cur, fd.d[fd.n - 1], 2, 0, last, norm_scale(norm, n));
  if (st != TABI_OK) {
    release(c, cur);
    return st;
  }
  return finish(c, op, cur, 1.0, outs);
}

static tabi_status check_norm(tc_ctx *c, const char *op, int64_t norm) {
  if (norm >= 0 && norm <= 2) return TABI_OK;
  return TC_ERR(c, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'normalization' is %lld; expected 0 (none), "
                "1 (1/sqrt(n)) or 2 (1/n)", op, (long long)norm);
}

static tabi_status k_fft_r2c(TC_ARGS) {
  TC_CTX;
  tabi_status st = check_norm(c, OPN, args[2].u.i);
  return st ? st : r2c(c, call, args, args[2].u.i, args[3].u.i != 0, outs);
}
static tabi_status k_fft_c2r(TC_ARGS) {
  TC_CTX;
  tabi_status st = check_norm(c, OPN, args[2].u.i);
  return st ? st : c2r(c, call, args, args[2].u.i, args[3].u.i, outs);
}
static tabi_status k_prims_r2c(TC_ARGS) { return r2c((tc_ctx *)ctx, call, args, 0, args[2].u.i != 0, outs); }
static tabi_status k_prims_c2r(TC_ARGS) { return c2r((tc_ctx *)ctx, call, args, 0, args[2].u.i, outs); }
static tabi_status k_prims_c2c(TC_ARGS) {
  TC_CTX;
  tabi_tensor *x = args[0].u.t;
  fft_dims fd;
  tabi_status st = check_common(c, OPN, x, 1);
  if (st == TABI_OK) st = get_dims(c, OPN, x, &args[1], 0, &fd);
  if (st != TABI_OK) return st;
  tabi_tensor *cur = x;
  c->h->tensor_retain(c->h->ctx, cur);
  for (int32_t i = 0; i < fd.n && st == TABI_OK; i++) st = chain(c, OPN, &cur, fd.d[i], 0, args[2].u.i != 0, 0, 1.0);
  if (st == TABI_OK && cur == x) { /* no dims: a copy */
    tabi_tensor *o = NULL;
    st = tc_empty(c, x->dl.device, tabi_tensor_dtype(x), x->dl.ndim, x->dl.shape, &o);
    if (st == TABI_OK) st = tc_copy_convert(c, OPN, o, x);
    release(c, cur);
    cur = o;
  }
  if (st != TABI_OK) {
    release(c, cur);
    return st;
  }
  return finish(c, OPN, cur, 1.0, outs);
}

TC_KTABLE tc_kernel tc_fft_kernels[] = {
    {"aten::_fft_r2c", k_fft_r2c},    {"aten::_fft_c2r", k_fft_c2r},
    {"prims::fft_r2c", k_prims_r2c},  {"prims::fft_c2r", k_prims_c2r},
    {"prims::fft_c2c", k_prims_c2c},  {NULL, NULL}};
