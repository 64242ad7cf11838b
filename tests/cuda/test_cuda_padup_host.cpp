/* tests/cuda/test_cuda_padup_host.cpp: the CUDA/ROCm kernels of padding,
 * upsampling and col2im (plugins/cuda/tc_pad_up.cu) emulated on the host,
 * without a GPU, against the reference plugin.
 *
 * The kernels are grid-stride loops, one thread per output element, each
 * calling an element function of plugins/cuda/tc_pad_up.cuh; the geometry
 * they get comes from that header's *_init functions. This test compiles the
 * header as plain C++ and runs the same init and element functions over every
 * output index, on the same input bytes the reference plugin gets (random
 * values with NaN, +-inf and -0.0 mixed in; contiguous, transposed and
 * step-2 sliced inputs; every dtype the reference takes), and asks for the
 * reference's bits exactly (NaN where it has NaN): the kernels compute as the
 * reference does (copies; double arithmetic in its order, rounded once).
 * What this cannot show: the launch itself, or a device compiler that rounds
 * differently (the header keeps nvcc and clang from fusing multiply-adds).
 * The argument checks the kernels run first are the reference's own
 * (reference/ref_padup_check.c, linked here under a stand-in host table): they
 * must give the reference's output shapes for every case above (bad arguments
 * need no comparison: both run the one function). argv[1]:
 * libtabi_reference.so. constant_pad_nd's check (ref_constant_pad_check) also
 * gives the pad value's bytes, which the element function stores. */
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <tabi/runtime.h>

#include "check.h"
#include "host_case.h"
#include "ref_padup_check.h"
#include "tc_pad_up.cuh"

static int64_t big = 1; /* size multiplier: 1, then 4 for a round of larger cases */

static const tabi_dtype FLOATS[4] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                     TABI_DTYPE_FLOAT64};


/* Host bytes of n elements of dt. */
static std::vector<char> random_bytes(tabi_dtype dt, int64_t n, int specials) {
  int esz = tcp_esz(dt);
  std::vector<char> b((size_t)(n * esz) + 1);
  for (int64_t i = 0; i < n; i++) {
    char *p = b.data() + i * esz;
    double v = specials ? special_or_random((int)i) : urand() * 4 - 2, w = urand() * 4 - 2;
    switch (dt) {
      case TABI_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)irand(0, 255); break;
      case TABI_DTYPE_COMPLEX64: { float f[2] = {(float)v, (float)w}; memcpy(p, f, 8); break; }
      case TABI_DTYPE_COMPLEX128: { double d[2] = {v, w}; memcpy(p, d, 16); break; }
      default: tcp_st(p, dt, v); break;
    }
  }
  return b;
}

/* An input of `shape` and dtype dt on the CPU: mode 0 contiguous, 1 the last
 * two dims transposed (a permuted view), 2 every other element of the last
 * dim (a step-2 slice). *base is what to release besides the result. */
static tabi_tensor *make_input(tabi_dtype dt, int32_t nd, const int64_t *shape, int mode,
                               tabi_tensor **base) {
  int64_t bshape[8];
  memcpy(bshape, shape, sizeof(int64_t) * (size_t)nd);
  if (mode == 1 && nd >= 2) {
    bshape[nd - 1] = shape[nd - 2];
    bshape[nd - 2] = shape[nd - 1];
  } else if (mode == 2) {
    bshape[nd - 1] = 2 * shape[nd - 1] + 1;
  }
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= bshape[i];
  std::vector<char> bytes = random_bytes(dt, n, dt != TABI_DTYPE_UINT8);
  *base = NULL;
  CHECK_OK(tabi_tensor_from_host(ref, CPU, dt, nd, bshape, bytes.data(), (uint64_t)(n * tcp_esz(dt)), base));
  if (!*base) return NULL;
  if (mode == 0 || (mode == 1 && nd < 2)) {
    tabi_tensor *t = *base;
    *base = NULL;
    return t;
  }
  tabi_value r;
  if (mode == 1) {
    int64_t perm[8];
    for (int32_t i = 0; i < nd; i++) perm[i] = i;
    perm[nd - 1] = nd - 2;
    perm[nd - 2] = nd - 1;
    tabi_value a[2] = {tabi_tensor_value(*base), tabi_int_list(perm, nd)};
    r = call_ref("aten::permute", a, 2);
  } else {
    tabi_value a[5] = {tabi_tensor_value(*base), tabi_int(nd - 1), tabi_int(1), tabi_none(), tabi_int(2)};
    r = call_ref("aten::slice.Tensor", a, 5);
  }
  return r.u.t;
}

/* --- the shared checks (reference/ref_padup_check.c) under a stand-in host table */
/* the stand-in host table: host_stub.h */

/* The check the device kernel runs for `name` on args (a[0] the tensor). */
static tabi_status run_check(const char *name, tabi_value *a, int64_t *oshape) {
  tabi_call call = fake_call(name);
  const tabi_tensor *x = a[0].u.t;
  if (strstr(name, "_pad")) {
    int32_t k = name[strlen(name) - 2] - '0', is_pad[TCP_MAX_DIMS];
    int64_t padl[TCP_MAX_DIMS];
    return ref_pad_check(&FAKE, &call, x, &a[1], k, strstr(name, "reflection") != NULL, oshape, padl, is_pad);
  }
  if (strstr(name, "upsample")) {
    int bil = strstr(name, "bilinear") != NULL, has_scale;
    double sc[2];
    oshape[0] = x->dl.ndim == 4 ? x->dl.shape[0] : 0;
    oshape[1] = x->dl.ndim == 4 ? x->dl.shape[1] : 0;
    return ref_up_check(&FAKE, &call, x, &a[1], &a[bil ? 3 : 2], bil, oshape + 2, &has_scale, sc);
  }
  int64_t nb[2], o4[4];
  int batched;
  tabi_status st = ref_col2im_check(&FAKE, &call, x, a, o4, &batched, nb);
  if (st == TABI_OK) memcpy(oshape, batched ? o4 : o4 + 1, sizeof(int64_t) * (batched ? 4 : 3));
  return st;
}

/* Valid arguments: the check passes and gives the reference's output shape. */
static void check_shape(const char *name, tabi_value *a, const tabi_tensor *refout) {
  int64_t oshape[8] = {0};
  tabi_status st = run_check(name, a, oshape);
  int same = st == TABI_OK;
  for (int32_t d = 0; same && d < refout->dl.ndim; d++) same = oshape[d] == refout->dl.shape[d];
  CHECK_MSG(same, "%s: check status %d (%s), or output shape differs from the reference's", name,
            (int)st, fake_msg);
}

/* --- padding ----------------------------------------------------------------- */
static void pad_case(int32_t k, int reflect, tabi_dtype dt, int mode, int batch0) {
  static const char *names[2][4] = {{NULL, NULL, "aten::replication_pad2d", "aten::replication_pad3d"},
                                    {NULL, "aten::reflection_pad1d", "aten::reflection_pad2d",
                                     "aten::reflection_pad3d"}};
  const char *name = names[reflect][k];
  int32_t nd = (int32_t)(k + 1 + (batch0 || urand() < 0.5));
  int64_t shape[TCP_MAX_DIMS], pad[6];
  for (int32_t d = 0; d < nd; d++) shape[d] = d < nd - k ? irand(1, 3) : irand(1, 7 * big);
  if (batch0) shape[0] = 0;
  for (int32_t i = 0; i < k; i++) {
    int64_t size = shape[nd - 1 - i];
    for (int s = 0; s < 2; s++)
      pad[2 * i + s] = reflect ? irand(-(size - 1), size - 1) : irand(-(size - 1), 2 * size);
    while (size + pad[2 * i] + pad[2 * i + 1] < 1) pad[2 * i + (pad[2 * i] < pad[2 * i + 1] ? 0 : 1)]++;
  }
  tabi_tensor *base = NULL, *x = make_input(dt, nd, shape, mode, &base);
  if (!x) return;
  tabi_value a[2] = {tabi_tensor_value(x), tabi_int_list(pad, 2 * k)};
  tabi_value r = call_ref(name, a, 2);
  if (r.u.t) {
    check_shape(name, a, r.u.t);
    int64_t padl[TCP_MAX_DIMS] = {0};
    int32_t is_pad[TCP_MAX_DIMS] = {0};
    for (int32_t i = 0; i < k; i++) {
      padl[nd - 1 - i] = pad[2 * i];
      is_pad[nd - 1 - i] = 1;
    }
    tcp_pad_geom g;
    tcp_pad_init(&g, nd, x->dl.shape, x->dl.strides, r.u.t->dl.shape, padl, is_pad, reflect, dt);
    int64_t n = numel_of(r.u.t);
    std::vector<char> ours((size_t)(n * g.esz) + 1);
    for (int64_t i = 0; i < n; i++) tcp_pad_elem(&g, (const char *)tabi_tensor_data(x), ours.data(), i);
    host_compare(name, dt, ours, n, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}

/* constant_pad_nd: 1-4 dims, 0 to all of them padded, negative pads (crops)
 * and positive ones, a pad value of each Scalar kind (NaN among the floats). */
static void cpad_case(tabi_dtype dt, int mode) {
  const char *name = "aten::constant_pad_nd";
  int32_t nd = (int32_t)irand(1, 4), np = (int32_t)irand(0, nd);
  int64_t shape[4], pad[8];
  for (int32_t d = 0; d < nd; d++) shape[d] = irand(1, 6 * big);
  for (int32_t i = 0; i < np; i++) {
    int64_t size = shape[nd - 1 - i];
    pad[2 * i] = irand(-size, 3);
    pad[2 * i + 1] = irand(-size - pad[2 * i], 3); /* never a negative size */
  }
  tabi_value v;
  double u = urand();
  if (u < 0.3) v = tabi_int(irand(-3, 3));
  else if (u < 0.5) v = tabi_float(NAN);
  else if (u < 0.6) v = tabi_bool(1);
  else if (u < 0.7 && tabi_dtype_is_complex(dt)) v = tabi_complex(1.5, -2);
  else v = tabi_float(urand() * 8 - 4);
  if (dt == TABI_DTYPE_UINT8 && v.tag == TABI_TAG_INT && v.u.i < 0) v = tabi_int(-v.u.i);
  if (dt == TABI_DTYPE_UINT8 && v.tag == TABI_TAG_FLOAT) v = tabi_float(isnan(v.u.f) ? 7 : fabs(v.u.f));
  tabi_tensor *base = NULL, *x = make_input(dt, nd, shape, mode, &base);
  if (!x) return;
  tabi_value a[3] = {tabi_tensor_value(x), tabi_int_list(pad, 2 * np), v};
  tabi_value r = call_ref(name, a, 3);
  if (r.u.t) {
    tcp_cpad_geom g;
    memset(&g, 0, sizeof g);
    tabi_call call = fake_call(name);
    tabi_status st = ref_constant_pad_check(&FAKE, &call, a, g.oshape, g.before, g.value);
    int same = st == TABI_OK && r.u.t->dl.ndim == nd;
    for (int32_t d = 0; same && d < nd; d++) same = g.oshape[d] == r.u.t->dl.shape[d];
    CHECK_MSG(same, "%s: check status %d (%s), or output shape differs from the reference's", name,
              (int)st, fake_msg);
    g.nd = nd;
    g.esz = tcp_esz(dt);
    for (int32_t d = 0; d < nd; d++) {
      g.isize[d] = x->dl.shape[d];
      g.istride[d] = x->dl.strides[d];
    }
    int64_t n = numel_of(r.u.t);
    std::vector<char> ours((size_t)(n * g.esz) + 1);
    if (same)
      for (int64_t i = 0; i < n; i++) tcp_cpad_elem(&g, (const char *)tabi_tensor_data(x), ours.data(), i);
    host_compare(name, dt, ours, n, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}

/* --- upsampling ---------------------------------------------------------------- */
static void up_case(int bilinear, tabi_dtype dt, int mode) {
  const char *name = bilinear ? "aten::upsample_bilinear2d.vec" : "aten::upsample_nearest2d.vec";
  int64_t shape[4] = {irand(1, 2), irand(1, 3), irand(1, 9 * big), irand(1, 9 * big)}, osz[2];
  double sf[2];
  static const double scales[] = {0.5, 0.75, 1.0, 1.3, 1.7, 2.0, 2.5, 3.0, 1.0 / 3.0};
  int use_scale = urand() < 0.5, align = bilinear && urand() < 0.5;
  for (int i = 0; i < 2; i++) {
    int64_t in = shape[2 + i];
    if (use_scale) {
      do sf[i] = urand() < 0.7 ? scales[irand(0, 8)] : 0.3 + urand() * 3;
      while ((int64_t)((double)in * sf[i]) < 1);
    } else {
      double u = urand();
      osz[i] = u < 0.2 ? in : u < 0.4 ? 2 * in : irand(1, 20 * big);
    }
  }
  tabi_tensor *base = NULL, *x = make_input(dt, 4, shape, mode, &base);
  if (!x) return;
  tabi_value a[4];
  int na = 0;
  a[na++] = tabi_tensor_value(x);
  a[na++] = use_scale ? tabi_none() : tabi_int_list(osz, 2);
  if (bilinear) a[na++] = tabi_bool(align);
  a[na++] = use_scale ? tabi_float_list(sf, 2) : tabi_none();
  tabi_value r = call_ref(name, a, na);
  if (r.u.t) {
    check_shape(name, a, r.u.t);
    int64_t out[2] = {r.u.t->dl.shape[2], r.u.t->dl.shape[3]};
    tcp_up_geom g;
    tcp_up_init(&g, x->dl.shape, x->dl.strides, out, use_scale, sf, dt, align);
    int64_t n = numel_of(r.u.t);
    std::vector<char> ours((size_t)(n * g.esz) + 1);
    const char *in = (const char *)tabi_tensor_data(x);
    for (int64_t i = 0; i < n; i++) {
      if (bilinear) tcp_bilinear_elem(&g, in, ours.data(), i);
      else tcp_nearest_elem(&g, in, ours.data(), i);
    }
    char what[160];
    snprintf(what, sizeof what, "%s in %lldx%lld out %lldx%lld %s align %d mode %d", name,
             (long long)shape[2], (long long)shape[3], (long long)out[0], (long long)out[1],
             use_scale ? "scale" : "size", align, mode);
    host_compare(what, dt, ours, n, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}

/* --- col2im ------------------------------------------------------------------------ */
static void col2im_case(tabi_dtype dt, int mode) {
  int64_t ks[2], dil[2], pad[2], str[2], osz[2], nb[2];
  for (int i = 0; i < 2; i++) {
    do {
      ks[i] = irand(1, 3);
      dil[i] = irand(1, 2);
      pad[i] = irand(0, 2);
      str[i] = irand(1, 3);
      osz[i] = irand(1, 9 * big);
      int64_t span = osz[i] + 2 * pad[i] - dil[i] * (ks[i] - 1) - 1;
      nb[i] = span < 0 ? 0 : span / str[i] + 1;
    } while (nb[i] < 1);
  }
  int batched = urand() < 0.5;
  int64_t c = irand(1, 3), shape[3] = {irand(1, 2), c * ks[0] * ks[1], nb[0] * nb[1]};
  int32_t nd = batched ? 3 : 2;
  tabi_tensor *base = NULL, *x = make_input(dt, nd, batched ? shape : shape + 1, mode, &base);
  if (!x) return;
  tabi_value a[6] = {tabi_tensor_value(x), tabi_int_list(osz, 2), tabi_int_list(ks, 2),
                     tabi_int_list(dil, 2), tabi_int_list(pad, 2), tabi_int_list(str, 2)};
  tabi_value r = call_ref("aten::col2im", a, 6);
  if (r.u.t) {
    check_shape("aten::col2im", a, r.u.t);
    tcp_col2im_geom g;
    tcp_col2im_init(&g, nd, x->dl.shape, x->dl.strides, dt, osz, ks, dil, pad, str);
    const int64_t *rs = r.u.t->dl.shape;
    CHECK(r.u.t->dl.ndim == nd + 1 && g.c == rs[nd - 2] && g.oh == rs[nd - 1] && g.ow == rs[nd] &&
          g.n == (batched ? rs[0] : 1) && g.nb[0] == nb[0] && g.nb[1] == nb[1]);
    int64_t n = numel_of(r.u.t);
    std::vector<char> ours((size_t)(n * tcp_esz(dt)) + 1);
    for (int64_t i = 0; i < n; i++) tcp_col2im_elem(&g, (const char *)tabi_tensor_data(x), ours.data(), i);
    char what[200];
    snprintf(what, sizeof what, "aten::col2im out %lldx%lld k %lldx%lld d %lldx%lld p %lldx%lld s %lldx%lld mode %d",
             (long long)osz[0], (long long)osz[1], (long long)ks[0], (long long)ks[1], (long long)dil[0],
             (long long)dil[1], (long long)pad[0], (long long)pad[1], (long long)str[0], (long long)str[1], mode);
    host_compare(what, dt, ours, n, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}


int main(int argc, char **argv) {
  rng = 0x9e3779b97f4a7c15ull;
  if (!host_open(argc, argv)) return host_exit();
  const tabi_dtype pad_dts[6] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                 TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
  const tabi_dtype near_dts[5] = {TABI_DTYPE_UINT8, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                                  TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64};
  for (int mode = 0; mode < 3; mode++) {
    for (int d = 0; d < 6; d++) {
      for (int rep = 0; rep < 6; rep++) {
        pad_case(1, 1, pad_dts[d], mode, 0);
        pad_case(2, 1, pad_dts[d], mode, 0);
        pad_case(3, 1, pad_dts[d], mode, 0);
        pad_case(2, 0, pad_dts[d], mode, 0);
        pad_case(3, 0, pad_dts[d], mode, 0);
        col2im_case(pad_dts[d], mode);
      }
      if (mode == 0) pad_case(2, 1, pad_dts[d], mode, 1); /* batch of 0: an empty output */
    }
    const tabi_dtype cpad_dts[5] = {TABI_DTYPE_UINT8, TABI_DTYPE_FLOAT16, TABI_DTYPE_FLOAT32,
                                    TABI_DTYPE_FLOAT64, TABI_DTYPE_COMPLEX64};
    for (int d = 0; d < 5; d++)
      for (int rep = 0; rep < 12; rep++) cpad_case(cpad_dts[d], mode);
    for (int d = 0; d < 5; d++)
      for (int rep = 0; rep < 12; rep++) up_case(0, near_dts[d], mode);
    for (int d = 0; d < 4; d++)
      for (int rep = 0; rep < 12; rep++) up_case(1, FLOATS[d], mode);
  }
  /* larger sizes: indices past the small cases' ranges */
  big = 4;
  for (int mode = 0; mode < 3; mode++)
    for (int d = 0; d < 6; d++) {
      pad_case(1 + d % 3, 1, pad_dts[d], mode, 0);
      pad_case(2 + d % 2, 0, pad_dts[d], mode, 0);
      col2im_case(pad_dts[d], mode);
      cpad_case(pad_dts[d], mode);
      if (d < 5) up_case(0, near_dts[d], mode);
      if (d < 4) up_case(1, FLOATS[d], mode);
    }
  printf("%lld cases, %lld output elements compared\n", checked_cases, checked_elems);
  return host_exit();
}
