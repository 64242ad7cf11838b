/* reference/ref_fft.c: discrete Fourier transforms (aten::_fft_r2c, _fft_c2r,
 * prims::fft_c2c, fft_r2c, fft_c2r).
 *
 * A direct O(n^2) sum per transformed dim, in complex double: obviously right.
 * The twiddle of (j, k) uses (j*k) mod n before forming the angle, so the angle
 * stays in [0, 2*pi) and large products lose no precision.
 *
 * Conventions (ATen's): the forward transform has exponent -2*pi*i*jk/n, the
 * backward +. normalization (the aten ops only; prims never normalize): 0 none,
 * 1 times 1/sqrt(n), 2 times 1/n, where n is the product of the signal sizes
 * of the transformed dims (the OUTPUT's for c2r). The caller picks the mode that
 * matches its direction (irfft with norm="backward" calls c2r with 2).
 * c2r reads elements 0..last_dim_size/2 of the last dim as the non-redundant half
 * of a Hermitian signal; the imaginary parts of element 0 (and n/2 for even n)
 * are ignored, as pocketfft does; elements past the input's length count as 0.
 *
 * dtypes: real float32/float64 <-> complex64/complex128. float16/bfloat16 are
 * refused with TABI_ERR_TYPE: ATen supports half FFTs only on CUDA (cuFFT),
 * never on the CPU, and this is a CPU plugin. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

#define FFT_TWO_PI 6.283185307179586476925286766559

static ref_cplx twiddle(int64_t jk, int64_t n, int sign) {
  int64_t r = jk % n;
  double a = FFT_TWO_PI * (double)r / (double)n;
  return CMPLX(cos(a), sign * sin(a));
}

/* A contiguous complex double buffer with its shape. */
typedef struct fft_buf {
  int32_t ndim;
  int64_t shape[REF_MAX_DIMS];
  int64_t numel;
  ref_cplx *data;
} fft_buf;

/* Replaces dim d of b (length m) by its transform of size n, producing `cnt`
 * outputs: out[j] = sum_{k<n} x[k] w^{jk}, with x[k] = in[k] for k < m, else 0;
 * hermitian: x[k] for k > n/2 is conj(in[n-k]) and the result is its real part.
 * Returns 0 on out-of-memory. */
static int dft_dim(fft_buf *b, int32_t d, int64_t n, int64_t cnt, int sign, int hermitian) {
  int64_t m = b->shape[d], inner = 1, outer = 1;
  for (int32_t i = d + 1; i < b->ndim; i++) inner *= b->shape[i];
  for (int32_t i = 0; i < d; i++) outer *= b->shape[i];
  int64_t total;
  /* cnt is a caller's size (last_dim_size): a product past int64 cannot be allocated either */
  if (__builtin_mul_overflow(outer, cnt, &total) || __builtin_mul_overflow(total, inner, &total) ||
      (uint64_t)total > SIZE_MAX / sizeof(ref_cplx))
    return 0;
  ref_cplx *out = malloc((size_t)(total ? total : 1) * sizeof *out);
  if (!out) return 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++)
      for (int64_t j = 0; j < cnt; j++) {
        ref_cplx acc = 0;
        for (int64_t k = 0; k < n; k++) {
          ref_cplx x;
          int64_t src = k;
          int cj = 0;
          if (hermitian && k > n / 2) {
            src = n - k;
            cj = 1;
          }
          if (src >= m) continue;
          x = b->data[(o * m + src) * inner + in];
          if (cj) x = conj(x);
          acc += x * twiddle(j * k, n, sign);
        }
        out[(o * cnt + j) * inner + in] = hermitian ? CMPLX(creal(acc), 0.0) : acc;
      }
  free(b->data);
  b->data = out;
  b->shape[d] = cnt;
  b->numel = total;
  return 1;
}

/* Loads t into a fresh buffer. Returns 0 on out-of-memory. */
static int buf_load(fft_buf *b, const tabi_tensor *t) {
  b->ndim = t->dl.ndim;
  b->numel = tabi_tensor_numel(t);
  for (int32_t i = 0; i < b->ndim; i++) b->shape[i] = t->dl.shape[i];
  b->data = malloc((size_t)(b->numel ? b->numel : 1) * sizeof *b->data);
  if (!b->data) return 0;
  for (int64_t i = 0; i < b->numel; i++) b->data[i] = ref_load_c(t, ref_offset_of(t, i));
  return 1;
}

typedef struct fft_dims {
  int32_t n;
  int32_t d[REF_MAX_DIMS];
} fft_dims;

/* Wraps the dim list; refuses an empty list (when need_one), duplicates and a
 * 0-d input. */
static tabi_status get_dims(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *t,
                            const tabi_value *v, int need_one, fft_dims *out) {
  int64_t len = ref_list_len(v);
  const int64_t *ds = tabi_value_ints(v);
  out->n = 0;
  if (t->dl.ndim == 0)
    return REF_ERR(h, TABI_ERR_INDEX, "%s: argument 'self' is 0-d; FFTs need at least 1 dim",
                   ref_op_name(h, call));
  if (need_one && len == 0)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dim' must name at least one dim",
                   ref_op_name(h, call));
  if (len > t->dl.ndim)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dim' has %lld entries for a %dD tensor",
                   ref_op_name(h, call), (long long)len, (int)t->dl.ndim);
  for (int64_t i = 0; i < len; i++) {
    int32_t w;
    tabi_status st = ref_wrap_dim(h, call, "dim", ds[i], t->dl.ndim, &w);
    if (st) return st;
    for (int32_t j = 0; j < out->n; j++)
      if (out->d[j] == w)
        return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'dim': dim %d appears twice",
                       ref_op_name(h, call), (int)w);
    out->d[out->n++] = w;
  }
  return TABI_OK;
}

static tabi_status oom(const tabi_host_api *h, const tabi_call *call, fft_buf *b) {
  free(b->data);
  b->data = NULL;
  return REF_ERR(h, TABI_ERR_OUT_OF_MEMORY, "%s: out of memory", ref_op_name(h, call));
}

static double norm_scale(int64_t norm, double n) {
  if (n <= 0) return 1; /* empty signal: nothing to scale */
  if (norm == 1) return 1 / sqrt(n);
  if (norm == 2) return 1 / n;
  return 1;
}

static tabi_status check_norm(const tabi_host_api *h, const tabi_call *call, int64_t norm) {
  if (norm >= 0 && norm <= 2) return TABI_OK;
  return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT,
                 "%s: argument 'normalization' is %lld; expected 0 (none), 1 (1/sqrt(n)) or 2 (1/n)",
                 ref_op_name(h, call), (long long)norm);
}

/* Stores buffer b (scaled) into a new tensor of dtype dt. */
static tabi_status emit(const tabi_host_api *h, const tabi_tensor *like, tabi_dtype dt, fft_buf *b,
                        double scale, tabi_value *outs) {
  tabi_tensor *out;
  tabi_status st = ref_empty(h, like, dt, b->ndim, b->shape, &out);
  if (st == TABI_OK) {
    for (int64_t i = 0; i < b->numel; i++) ref_store_c(out, i, b->data[i] * scale);
    ref_set_out(outs, 0, out);
  }
  free(b->data);
  b->data = NULL;
  return st;
}

static const uint32_t REAL_DTS = REF_DT(TABI_DTYPE_FLOAT32) | REF_DT(TABI_DTYPE_FLOAT64);

/* r2c: the last listed dim is transformed first (onesided keeps n/2+1 of it),
 * then the others, all forward. */
static tabi_status r2c(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                       const tabi_value *dimv, int64_t norm, int onesided, tabi_value *outs) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st;
  fft_dims fd;
  if ((st = ref_check_dtype(h, call, "self", dt, REAL_DTS))) return st;
  if ((st = get_dims(h, call, x, dimv, 1, &fd))) return st;
  fft_buf b;
  if (!buf_load(&b, x)) return oom(h, call, &b);
  double n = 1;
  for (int32_t i = fd.n - 1; i >= 0; i--) {
    int32_t d = fd.d[i];
    int64_t len = b.shape[d];
    n *= (double)len;
    int64_t cnt = (i == fd.n - 1 && onesided) ? len / 2 + 1 : len;
    if (!dft_dim(&b, d, len, cnt, -1, 0)) return oom(h, call, &b);
  }
  return emit(h, x, dt == TABI_DTYPE_FLOAT64 ? TABI_DTYPE_COMPLEX128 : TABI_DTYPE_COMPLEX64, &b,
              norm_scale(norm, n), outs);
}

/* c2r: backward c2c over every listed dim but the last, then the Hermitian
 * backward transform of the last to last_dim_size real outputs. */
static tabi_status c2r(const tabi_host_api *h, const tabi_call *call, const tabi_tensor *x,
                       const tabi_value *dimv, int64_t norm, int64_t last, tabi_value *outs) {
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st;
  fft_dims fd;
  if ((st = ref_check_dtype(h, call, "self", dt, REF_DTS_COMPLEX))) return st;
  if ((st = get_dims(h, call, x, dimv, 1, &fd))) return st;
  if (last < 1)
    return REF_ERR(h, TABI_ERR_INVALID_ARGUMENT, "%s: argument 'last_dim_size' is %lld; expected >= 1",
                   ref_op_name(h, call), (long long)last);
  fft_buf b;
  if (!buf_load(&b, x)) return oom(h, call, &b);
  double n = 1;
  for (int32_t i = 0; i < fd.n - 1; i++) {
    int32_t d = fd.d[i];
    n *= (double)b.shape[d];
    if (!dft_dim(&b, d, b.shape[d], b.shape[d], +1, 0)) return oom(h, call, &b);
  }
  n *= (double)last;
  if (!dft_dim(&b, fd.d[fd.n - 1], last, last, +1, 1)) return oom(h, call, &b);
  return emit(h, x, dt == TABI_DTYPE_COMPLEX128 ? TABI_DTYPE_FLOAT64 : TABI_DTYPE_FLOAT32, &b,
              norm_scale(norm, n), outs);
}

static tabi_status k_fft_r2c(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_status st = check_norm(h, call, args[2].u.i);
  if (st) return st;
  return r2c(h, call, args[0].u.t, &args[1], args[2].u.i, args[3].u.i != 0, outs);
}

static tabi_status k_fft_c2r(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  tabi_status st = check_norm(h, call, args[2].u.i);
  if (st) return st;
  return c2r(h, call, args[0].u.t, &args[1], args[2].u.i, args[3].u.i, outs);
}

static tabi_status k_prims_r2c(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return r2c(ctx, call, args[0].u.t, &args[1], 0, args[2].u.i != 0, outs);
}

static tabi_status k_prims_c2r(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  return c2r(ctx, call, args[0].u.t, &args[1], 0, args[2].u.i, outs);
}

/* prims::fft_c2c: unnormalized, forward or backward over the listed dims (an
 * empty list gives a copy). */
static tabi_status k_prims_c2c(void *ctx, const tabi_call *call, tabi_value *args, tabi_value *outs) {
  const tabi_host_api *h = ctx;
  const tabi_tensor *x = args[0].u.t;
  tabi_dtype dt = tabi_tensor_dtype(x);
  tabi_status st;
  fft_dims fd;
  if ((st = ref_check_dtype(h, call, "self", dt, REF_DTS_COMPLEX))) return st;
  if ((st = get_dims(h, call, x, &args[1], 0, &fd))) return st;
  int sign = args[2].u.i ? -1 : +1;
  fft_buf b;
  if (!buf_load(&b, x)) return oom(h, call, &b);
  for (int32_t i = 0; i < fd.n; i++) {
    int32_t d = fd.d[i];
    if (!dft_dim(&b, d, b.shape[d], b.shape[d], sign, 0)) return oom(h, call, &b);
  }
  return emit(h, x, dt, &b, 1.0, outs);
}

const ref_kernel ref_fft_kernels[] = {
    {"aten::_fft_r2c", k_fft_r2c},
    {"aten::_fft_c2r", k_fft_c2r},
    {"prims::fft_r2c", k_prims_r2c},
    {"prims::fft_c2r", k_prims_c2r},
    {"prims::fft_c2c", k_prims_c2c},
    {NULL, NULL},
};
