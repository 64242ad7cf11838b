/* plugins/cuda/tc_pad_up.cuh: the index arithmetic and per-element math of
 * reflection/replication padding, nearest/bilinear upsampling and col2im.
 *
 * Every function here is `__host__ __device__` (plain `static inline` when the
 * file is compiled as ordinary C++): tc_pad_up.cu's kernels are thin
 * grid-stride loops over the output calling the *_elem functions, and
 * tests/cuda/test_cuda_padup_host.cpp runs the very same functions on the host
 * over every output index against the reference plugin, so the logic is
 * proven without a GPU. Each thread owns one output element (col2im gathers
 * its contributions in the reference's fixed order: no atomics, deterministic).
 *
 * Numerics follow the reference (reference/ref_shape_pad.c, ref_nn4.c,
 * ref_nn.c): padding and nearest are copies of the element's bytes; bilinear
 * computes in double with the reference's expression and rounds once;
 * col2im sums in double (complex: each part in double). The products and sums
 * are written with TCP_MUL/TCP_ADD so that no compiler contracts them into
 * FMAs (nvcc does by default, clang for HIP too), which would round
 * differently from the reference's separate operations. Scales are computed
 * once on the host (tcp_up_init), so the device does no division. */
#ifndef TABI_TC_PAD_UP_CUH
#define TABI_TC_PAD_UP_CUH

#include <math.h>
#include <stdint.h>

#include <tabi/dtype.h>
#include <tabi/half.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TCP_HD static inline __host__ __device__
#else
#define TCP_HD static inline
#endif

/* Separate IEEE multiply and add, never fused. */
#if defined(__CUDA_ARCH__) && !defined(__HIPCC__)
#define TCP_MUL(a, b) __dmul_rn((a), (b))
#define TCP_ADD(a, b) __dadd_rn((a), (b))
#define TCP_NOCONTRACT
#elif defined(__clang__)
#define TCP_MUL(a, b) ((a) * (b))
#define TCP_ADD(a, b) ((a) + (b))
#define TCP_NOCONTRACT _Pragma("clang fp contract(off)")
#else
#define TCP_MUL(a, b) ((a) * (b))
#define TCP_ADD(a, b) ((a) + (b))
#define TCP_NOCONTRACT
#endif

#define TCP_MAX_DIMS 5 /* padding: k spatial dims (<= 3) + channel + batch */

/* --- element access (float16/bfloat16/float32/float64 as double, the
 * reference's ref_load_f / ref_store_f_ptr; half types round through float) - */

TCP_HD double tcp_ld(const char *p, int dt) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: return tabi_f16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_BFLOAT16: return tabi_bf16_to_f32(*(const uint16_t *)p);
    case TABI_DTYPE_FLOAT32: case TABI_DTYPE_COMPLEX64: return *(const float *)p;
    case TABI_DTYPE_UINT8: return *(const uint8_t *)p;
    default: return *(const double *)p; /* float64, complex128 (real part) */
  }
}
TCP_HD void tcp_st(char *p, int dt, double v) {
  switch (dt) {
    case TABI_DTYPE_FLOAT16: *(uint16_t *)p = tabi_f32_to_f16((float)v); break;
    case TABI_DTYPE_BFLOAT16: *(uint16_t *)p = tabi_f32_to_bf16((float)v); break;
    case TABI_DTYPE_FLOAT32: *(float *)p = (float)v; break;
    default: *(double *)p = v; break;
  }
}
/* v as a float, rounded to nearest: from halfway past FLT_MAX (0x1.ffffffp127)
 * on, an infinity, without the host's undefined conversion. */
TCP_HD float tcp_f32(double v) {
  if (fabs(v) >= 3.4028235677973366e38) return v > 0 ? INFINITY : -INFINITY;
  return (float)v;
}
/* A norm's 1 / sqrt(var + eps) in the opmath of the input dtype xdt: float
 * below float64, var and eps cast to it, as ATen (the device's copy of
 * reference/ref_nn_util.c's ref_nn_opmath_invstd). */
TCP_HD double tcp_opmath_invstd(double var, double eps, int xdt) {
  TCP_NOCONTRACT
  if (xdt == TABI_DTYPE_FLOAT64) return 1 / sqrt(TCP_ADD(var, eps));
  return 1.0f / sqrtf(tcp_f32(var) + tcp_f32(eps));
}
/* The element size of the dtypes these ops take. */
TCP_HD int tcp_esz(int dt) {
  switch (dt) {
    case TABI_DTYPE_UINT8: return 1;
    case TABI_DTYPE_FLOAT16: case TABI_DTYPE_BFLOAT16: return 2;
    case TABI_DTYPE_FLOAT32: return 4;
    case TABI_DTYPE_COMPLEX128: return 16;
    default: return 8; /* float64, complex64 */
  }
}
/* Atomics whose outcome does not depend on their order (randperm's
 * reservations and list appends, the radix sort's digit counts): atomic on
 * the device; plain on the host, where the host tests and gpusim (one
 * simulated thread at a time between barriers) need no more. atomic_add
 * gives the old value back. */
template <class T> TCP_HD void tcp_atomic_max(T *p, T v) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  atomicMax(p, v);
#else
  if (*p < v) *p = v;
#endif
}
template <class T> TCP_HD T tcp_atomic_add(T *p, T v) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return atomicAdd(p, v);
#else
  T old = *p;
  *p = old + v;
  return old;
#endif
}

/* Copies one element of esz bytes (tensors are element-aligned; complex128
 * moves as two 8-byte words). */
TCP_HD void tcp_copy(char *dst, const char *src, int esz) {
  switch (esz) {
    case 1: *(uint8_t *)dst = *(const uint8_t *)src; break;
    case 2: *(uint16_t *)dst = *(const uint16_t *)src; break;
    case 4: *(uint32_t *)dst = *(const uint32_t *)src; break;
    case 8: *(uint64_t *)dst = *(const uint64_t *)src; break;
    default:
      ((uint64_t *)dst)[0] = ((const uint64_t *)src)[0];
      ((uint64_t *)dst)[1] = ((const uint64_t *)src)[1];
      break;
  }
}

/* --- reflection / replication padding ---------------------------------------
 * Output [.., o_d, ..] contiguous; out element `lin` copies the input element
 * at the reflected (or clamped) index along each padded dim. */
typedef struct tcp_pad_geom {
  int32_t nd, reflect, esz, pad_;
  int64_t oshape[TCP_MAX_DIMS];
  int64_t isize[TCP_MAX_DIMS];  /* input sizes */
  int64_t istride[TCP_MAX_DIMS]; /* input strides, elements */
  int64_t padl[TCP_MAX_DIMS];    /* left pad of a padded dim */
  int32_t is_pad[TCP_MAX_DIMS];
} tcp_pad_geom;

/* The input index of output index j along one dim (the reference's pad_index,
 * ATen's cpu_padding: negative pads crop). */
TCP_HD int64_t tcp_pad_index(int reflect, int64_t j, int64_t size, int64_t pad_l) {
  int64_t i_start = pad_l < 0 ? -pad_l : 0, o_start = pad_l > 0 ? pad_l : 0, ip;
  if (reflect) {
    if (j < pad_l) ip = pad_l * 2 - j;
    else if (j < size + pad_l) ip = j;
    else ip = (size + pad_l - 1) * 2 - j;
  } else {
    if (j < pad_l) ip = pad_l;
    else if (j < size + pad_l) ip = j;
    else ip = size + pad_l - 1;
  }
  return ip - o_start + i_start;
}

/* Geometry from the input (nd <= TCP_MAX_DIMS) and the validated output
 * shape, left pads and padded-dim flags (ref_pad_check). Host side. */
TCP_HD void tcp_pad_init(tcp_pad_geom *g, int32_t nd, const int64_t *shape, const int64_t *strides,
                         const int64_t *oshape, const int64_t *padl, const int32_t *is_pad,
                         int reflect, int dt) {
  g->nd = nd;
  g->reflect = reflect;
  g->esz = tcp_esz(dt);
  g->pad_ = 0;
  for (int32_t d = 0; d < TCP_MAX_DIMS; d++) {
    int in = d < nd;
    g->oshape[d] = in ? oshape[d] : 1;
    g->isize[d] = in ? shape[d] : 1;
    g->istride[d] = in ? strides[d] : 0;
    g->padl[d] = in ? padl[d] : 0;
    g->is_pad[d] = in ? is_pad[d] : 0;
  }
}

/* Input element offset (in elements) of output element lin. */
TCP_HD int64_t tcp_pad_src(const tcp_pad_geom *g, int64_t lin) {
  int64_t off = 0;
  for (int32_t d = g->nd - 1; d >= 0; d--) {
    int64_t n = g->oshape[d], j = lin % n;
    lin /= n;
    if (g->is_pad[d]) j = tcp_pad_index(g->reflect, j, g->isize[d], g->padl[d]);
    off += j * g->istride[d];
  }
  return off;
}

TCP_HD void tcp_pad_elem(const tcp_pad_geom *g, const char *in, char *out, int64_t lin) {
  tcp_copy(out + lin * g->esz, in + tcp_pad_src(g, lin) * g->esz, g->esz);
}

/* --- constant padding (constant_pad_nd, any rank up to TCP_CPAD_DIMS) -------
 * Output contiguous; out element `lin` copies the input element at its index
 * minus the left pads, or is the pad value where that falls outside the input
 * (negative pads crop: those indices are never outside on that side). */
#define TCP_CPAD_DIMS 16
typedef struct tcp_cpad_geom {
  int32_t nd, esz;
  int64_t value[2]; /* the pad value as one element of the dtype (ref_constant_pad_check) */
  int64_t oshape[TCP_CPAD_DIMS];
  int64_t isize[TCP_CPAD_DIMS];
  int64_t istride[TCP_CPAD_DIMS]; /* input strides, elements */
  int64_t before[TCP_CPAD_DIMS];  /* left pad per dim (0 where unpadded) */
} tcp_cpad_geom;

TCP_HD void tcp_cpad_elem(const tcp_cpad_geom *g, const char *in, char *out, int64_t lin) {
  int64_t off = 0, rem = lin;
  int inside = 1;
  for (int32_t d = g->nd - 1; d >= 0; d--) {
    int64_t n = g->oshape[d], j = rem % n - g->before[d];
    rem /= n;
    inside &= j >= 0 && j < g->isize[d];
    off += j * g->istride[d];
  }
  tcp_copy(out + lin * g->esz, inside ? in + off * g->esz : (const char *)g->value, g->esz);
}

/* --- upsampling (input [N, C, H, W], any strides; output contiguous) ------- */
typedef struct tcp_up_geom {
  int64_t n, c, in[2], out[2];
  int64_t ist[4];   /* input strides, elements */
  int32_t dt, esz;
  int32_t align;    /* bilinear: align_corners */
  int32_t pad_;
  float nscale[2];  /* nearest: ATen's float32 source scale */
  double lscale[2]; /* bilinear: the source scale (align or pixel-centre form) */
} tcp_up_geom;

/* Geometry from the validated sizes (the reference's up_setup has checked
 * them): has_scale with the given scale factors, else output_size. Host side. */
TCP_HD void tcp_up_init(tcp_up_geom *g, const int64_t shape[4], const int64_t strides[4],
                        const int64_t out[2], int has_scale, const double scale[2], int dt,
                        int align) {
  g->n = shape[0];
  g->c = shape[1];
  for (int i = 0; i < 4; i++) g->ist[i] = strides[i];
  g->dt = dt;
  g->esz = tcp_esz(dt);
  g->align = align;
  g->pad_ = 0;
  for (int i = 0; i < 2; i++) {
    int64_t in = shape[2 + i], o = out[i];
    g->in[i] = in;
    g->out[i] = o;
    int sc = has_scale && scale[i] > 0;
    /* reference nearest_idx: (float)(1/scale) or (float)in / (float)out */
    g->nscale[i] = sc ? (float)(1.0 / scale[i]) : (float)in / (float)o;
    /* reference linear_src */
    if (align) g->lscale[i] = o > 1 ? (double)(in - 1) / (double)(o - 1) : 0.0;
    else g->lscale[i] = sc ? 1.0 / scale[i] : (double)in / (double)o;
  }
}

/* ATen's nearest source index, float32 arithmetic (floor is discontinuous, so
 * it is reproduced exactly); out == in and out == 2*in are exact shortcuts. */
TCP_HD int64_t tcp_nearest_idx(const tcp_up_geom *g, int i, int64_t dst) {
  if (g->out[i] == g->in[i]) return dst;
  if (g->out[i] == 2 * g->in[i]) return dst >> 1;
  int64_t s = (int64_t)floorf((float)dst * g->nscale[i]);
  return s < g->in[i] - 1 ? s : g->in[i] - 1;
}

TCP_HD void tcp_nearest_elem(const tcp_up_geom *g, const char *in, char *out, int64_t lin) {
  int64_t x = lin % g->out[1], r = lin / g->out[1];
  int64_t y = r % g->out[0];
  r /= g->out[0];
  int64_t ch = r % g->c, n = r / g->c;
  int64_t off = n * g->ist[0] + ch * g->ist[1] + tcp_nearest_idx(g, 0, y) * g->ist[2] +
                tcp_nearest_idx(g, 1, x) * g->ist[3];
  tcp_copy(out + lin * g->esz, in + off * g->esz, g->esz);
}

/* The source coordinate of dst along dim i (the reference's linear_src). */
TCP_HD double tcp_linear_src(const tcp_up_geom *g, int i, int64_t dst) {
  TCP_NOCONTRACT
  if (g->align) return g->out[i] > 1 ? TCP_MUL(g->lscale[i], (double)dst) : 0.0;
  double s = TCP_MUL(g->lscale[i], (double)dst + 0.5) - 0.5;
  return s < 0 ? 0 : s;
}

/* The two neighbours along dim i and the weight of the second. */
TCP_HD void tcp_linear_taps(const tcp_up_geom *g, int i, int64_t dst, int64_t *i0, int64_t *i1,
                            double *l) {
  TCP_NOCONTRACT
  double s = tcp_linear_src(g, i, dst);
  int64_t a = (int64_t)s;
  if (a > g->in[i] - 1) a = g->in[i] - 1;
  *i0 = a;
  *i1 = a + (a < g->in[i] - 1);
  *l = s - (double)a;
}

TCP_HD void tcp_bilinear_elem(const tcp_up_geom *g, const char *in, char *out, int64_t lin) {
  TCP_NOCONTRACT
  int64_t x = lin % g->out[1], r = lin / g->out[1];
  int64_t y = r % g->out[0];
  r /= g->out[0];
  int64_t ch = r % g->c, n = r / g->c;
  int64_t y0, y1, x0, x1;
  double ly, lx;
  tcp_linear_taps(g, 0, y, &y0, &y1, &ly);
  tcp_linear_taps(g, 1, x, &x0, &x1, &lx);
  const char *b = in + (n * g->ist[0] + ch * g->ist[1]) * g->esz;
  int64_t s2 = g->ist[2] * g->esz, s3 = g->ist[3] * g->esz;
  double v00 = tcp_ld(b + y0 * s2 + x0 * s3, g->dt), v01 = tcp_ld(b + y0 * s2 + x1 * s3, g->dt);
  double v10 = tcp_ld(b + y1 * s2 + x0 * s3, g->dt), v11 = tcp_ld(b + y1 * s2 + x1 * s3, g->dt);
  /* (1-ly)*((1-lx)*v00 + lx*v01) + ly*((1-lx)*v10 + lx*v11), as the reference */
  double t0 = TCP_ADD(TCP_MUL(1 - lx, v00), TCP_MUL(lx, v01));
  double t1 = TCP_ADD(TCP_MUL(1 - lx, v10), TCP_MUL(lx, v11));
  tcp_st(out + lin * g->esz, g->dt, TCP_ADD(TCP_MUL(1 - ly, t0), TCP_MUL(ly, t1)));
}

/* --- col2im --------------------------------------------------------------------
 * self [N?, C*kh*kw, L] -> out [N, C, oh, ow] contiguous; block (by, bx),
 * kernel (i, j) lands at (by*sh - ph + i*dh, bx*sw - pw + j*dw). Each output
 * element gathers its contributions over (i, j) in the reference's order. */
typedef struct tcp_col2im_geom {
  int64_t n, c, oh, ow;
  int64_t k[2], d[2], p[2], s[2], nb[2];
  int64_t st[3]; /* input strides (batch: 0 when unbatched), elements */
  int32_t dt, cplx;
} tcp_col2im_geom;

/* Geometry from the validated arguments (ref_col2im_check): input of nd (2 or
 * 3) dims, output_size, kernel_size, dilation, padding, stride. Host side. */
TCP_HD void tcp_col2im_init(tcp_col2im_geom *g, int32_t nd, const int64_t *shape,
                            const int64_t *strides, int dt, const int64_t osz[2],
                            const int64_t ks[2], const int64_t dil[2], const int64_t pad[2],
                            const int64_t str[2]) {
  int batched = nd == 3;
  g->n = batched ? shape[0] : 1;
  g->c = shape[nd - 2] / (ks[0] * ks[1]);
  g->oh = osz[0];
  g->ow = osz[1];
  for (int i = 0; i < 2; i++) {
    g->k[i] = ks[i];
    g->d[i] = dil[i];
    g->p[i] = pad[i];
    g->s[i] = str[i];
    int64_t span = osz[i] + 2 * pad[i] - dil[i] * (ks[i] - 1) - 1;
    g->nb[i] = span < 0 ? 0 : span / str[i] + 1;
  }
  g->st[0] = batched ? strides[0] : 0;
  g->st[1] = strides[nd - 2];
  g->st[2] = strides[nd - 1];
  g->dt = dt;
  g->cplx = dt == TABI_DTYPE_COMPLEX64 || dt == TABI_DTYPE_COMPLEX128;
}

TCP_HD void tcp_col2im_elem(const tcp_col2im_geom *g, const char *in, char *out, int64_t lin) {
  int64_t x = lin % g->ow, r = lin / g->ow;
  int64_t y = r % g->oh;
  r /= g->oh;
  int64_t ch = r % g->c, b = r / g->c;
  int esz = tcp_esz(g->dt);
  double re = 0, im = 0;
  for (int64_t i = 0; i < g->k[0]; i++) {
    int64_t ny = y + g->p[0] - i * g->d[0];
    if (ny < 0 || ny % g->s[0]) continue;
    int64_t by = ny / g->s[0];
    if (by >= g->nb[0]) continue;
    for (int64_t j = 0; j < g->k[1]; j++) {
      int64_t nx = x + g->p[1] - j * g->d[1];
      if (nx < 0 || nx % g->s[1]) continue;
      int64_t bx = nx / g->s[1];
      if (bx >= g->nb[1]) continue;
      int64_t off = b * g->st[0] + (ch * g->k[0] * g->k[1] + i * g->k[1] + j) * g->st[1] +
                    (by * g->nb[1] + bx) * g->st[2];
      const char *p = in + off * esz;
      re += tcp_ld(p, g->dt);
      if (g->cplx) im += tcp_ld(p + esz / 2, g->dt);
    }
  }
  char *o = out + lin * esz;
  if (g->cplx) {
    if (g->dt == TABI_DTYPE_COMPLEX64) {
      ((float *)o)[0] = (float)re;
      ((float *)o)[1] = (float)im;
    } else {
      ((double *)o)[0] = re;
      ((double *)o)[1] = im;
    }
  } else {
    tcp_st(o, g->dt, re);
  }
}

#endif /* TABI_TC_PAD_UP_CUH */
