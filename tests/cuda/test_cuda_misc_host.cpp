/* tests/cuda/test_cuda_misc_host.cpp: the CUDA/ROCm kernels of
 * grid_sampler_2d, _cdist_forward, _pdist_forward and embedding_dense_backward
 * (plugins/cuda/tc_misc.cu) emulated on the host, without a GPU, against the
 * reference plugin (the pattern of test_cuda_padup_host.cpp).
 *
 * The kernels are grid-stride loops, one thread per output element, each
 * calling an element function of plugins/cuda/tc_misc.cuh with the geometry of
 * that header's *_init functions (embedding_dense_backward also with the
 * bucket list of tc_misc.cuh's tc_embbw_buckets). This test compiles the
 * header as plain C++ and runs the same init and element functions over every
 * output index, on the same input bytes the reference plugin gets (random
 * values with NaN, +-inf, -0.0 and grid points on pixel centres and half-pixel
 * ties mixed in; contiguous, transposed and step-2 sliced inputs; every dtype
 * the reference takes), and asks for the reference's bits exactly. What this
 * cannot show: the launch itself, or a device compiler or math library that
 * rounds differently (the header keeps nvcc and clang from fusing
 * multiply-adds; CUDA's pow() is not glibc's, so cdist/pdist with p other
 * than 0, 1, 2, inf may differ in the last bits on a GPU). The argument checks
 * the kernels run first are the reference's own (reference/ref_misc_check.c,
 * linked here under a stand-in host table): they must give the reference's
 * output shapes for every case above (bad arguments need no comparison: both
 * run the one function). argv[1]: libtabi_reference.so. */
#include <algorithm>
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
#include "ref_misc_check.h"
#include "tc_misc.cuh"

static int64_t big = 1; /* size multiplier: 1, then 4 for a round of larger cases */


/* Host bytes of n elements of dt (floating: random with specials when asked;
 * integers: random over the dtype's range, so sums wrap). */
static std::vector<char> random_bytes(tabi_dtype dt, int64_t n, int specials) {
  int esz = tcn_esz(dt);
  std::vector<char> b((size_t)(n * esz) + 8);
  for (int64_t i = 0; i < n; i++) {
    char *p = b.data() + i * esz;
    double v = specials ? special_or_random((int)i) : urand() * 4 - 2;
    if (host_is_float(dt)) tcp_st(p, dt, v);
    else host_any_int(p, esz, i); /* integers: any bit pattern of the element */
  }
  return b;
}

/* --- the shared checks (reference/ref_misc_check.c) under a stand-in host table */
/* the stand-in host table: host_stub.h */

/* The checks the device kernel runs for `name` on args, and the output shape. */
static tabi_status run_check(const char *name, tabi_value *a, int32_t *ond, int64_t *oshape) {
  tabi_call call = fake_call(name);
  tabi_status st;
  if (strstr(name, "grid_sampler")) {
    st = ref_grid_check(&FAKE, &call, a);
    if (st == TABI_OK) {
      *ond = 4;
      oshape[0] = a[0].u.t->dl.shape[0];
      oshape[1] = a[0].u.t->dl.shape[1];
      oshape[2] = a[1].u.t->dl.shape[1];
      oshape[3] = a[1].u.t->dl.shape[2];
    }
    return st;
  }
  if (strstr(name, "cdist")) {
    int64_t bshape[TCM_MAX_DIMS];
    int32_t bnd = 0;
    st = ref_cdist_check(&FAKE, &call, a, &bnd, bshape, oshape);
    *ond = bnd + 2;
    return st;
  }
  if (strstr(name, "pdist")) {
    *ond = 1;
    return ref_pdist_check(&FAKE, &call, a, oshape);
  }
  int64_t D = 0;
  st = ref_embbw_check(&FAKE, &call, a, &D);
  if (st != TABI_OK) return st;
  std::vector<int64_t> iv = host_ints(a[1].u.t);
  st = ref_embbw_check_indices(&FAKE, &call, iv.data(), numel_of(a[1].u.t), a[2].u.i);
  *ond = 2;
  oshape[0] = a[2].u.i;
  oshape[1] = D;
  return st;
}

/* Valid arguments: the check passes and gives the reference's output shape. */
static void check_shape(const char *name, tabi_value *a, const tabi_tensor *refout) {
  int64_t oshape[TCM_MAX_DIMS] = {0};
  int32_t ond = -1;
  tabi_status st = run_check(name, a, &ond, oshape);
  int same = st == TABI_OK && ond == refout->dl.ndim;
  for (int32_t d = 0; same && d < refout->dl.ndim; d++) same = oshape[d] == refout->dl.shape[d];
  CHECK_MSG(same, "%s: check status %d (%s), or output shape differs from the reference's", name, (int)st,
            fake_msg);
}

/* --- grid_sampler_2d ------------------------------------------------------------- */
/* Grid coordinates: random in [-1.3, 1.3], exact multiples of 1/8 (pixel
 * centres and half-pixel ties for nearest's round-half-even), the corners
 * +-1, far outside (reflection folds many times), and non-finite values. */
static double grid_value(int i) {
  double u = urand();
  if (u < 0.45) return urand() * 2.6 - 1.3;
  if (u < 0.75) return (double)irand(-10, 10) / 8;
  if (u < 0.82) return urand() < 0.5 ? -1.0 : 1.0;
  if (u < 0.9) return (urand() * 2 - 1) * (urand() < 0.5 ? 9.0 : 3e9);
  return special_or_random(i);
}

static int64_t prod(int32_t nd, const int64_t *s) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= s[i];
  return n;
}

static void grid_case(tabi_dtype dt, int mode, int interp, int padm, int align) {
  const char *name = "aten::grid_sampler_2d";
  int64_t n = irand(1, 2), c = irand(1, 3);
  int64_t ishape[4] = {n, c, irand(1, 6 * big), irand(1, 6 * big)};
  int64_t gshape[4] = {n, urand() < 0.05 ? 0 : irand(1, 5 * big), irand(1, 5 * big), 2};
  int esz = tcn_esz(dt);
  std::vector<char> ib = random_bytes(dt, prod(4, ishape), 1);
  int64_t gn = prod(4, gshape);
  std::vector<char> gb((size_t)(gn * esz) + 8);
  for (int64_t i = 0; i < gn; i++) tcp_st(gb.data() + i * esz, dt, grid_value((int)i));
  tabi_tensor *ibase = NULL, *gbase = NULL;
  tabi_tensor *x = host_tensor(dt, 4, ishape, mode, ib, &ibase);
  /* the grid's layouts: contiguous, or its last dim (x, y) a step-2 slice */
  tabi_tensor *g = host_tensor(dt, 4, gshape, mode == 1 ? 2 : 0, gb, &gbase);
  if (!x || !g) return;
  tabi_value a[5] = {tabi_tensor_value(x), tabi_tensor_value(g), tabi_int(interp), tabi_int(padm), tabi_bool(align)};
  tabi_value r = call_ref(name, a, 5);
  if (r.u.t) {
    check_shape(name, a, r.u.t);
    tcm_grid_geom geo;
    tcm_grid_init(&geo, x->dl.shape, x->dl.strides, g->dl.shape, g->dl.strides, dt, interp, padm, align);
    int64_t on = numel_of(r.u.t);
    std::vector<char> ours((size_t)(on * esz) + 8);
    for (int64_t i = 0; i < on; i++)
      tcm_grid_elem(&geo, (const char *)tabi_tensor_data(x), (const char *)tabi_tensor_data(g), ours.data(), i);
    char what[160];
    snprintf(what, sizeof what, "%s in %lldx%lld out %lldx%lld interp %d pad %d align %d mode %d", name,
             (long long)ishape[2], (long long)ishape[3], (long long)gshape[1], (long long)gshape[2], interp,
             padm, align, mode);
    host_compare(what, dt, ours, on, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  tabi_tensor_release(g);
  if (ibase) tabi_tensor_release(ibase);
  if (gbase) tabi_tensor_release(gbase);
}

/* --- cdist / pdist --------------------------------------------------------------- */
static const double PS[8] = {0.0, 1.0, 2.0, INFINITY, 0.5, 1.5, 3.0, 2.25};

static void cdist_case(tabi_dtype dt, int mode) {
  const char *name = "aten::_cdist_forward";
  int32_t bnd = (int32_t)irand(0, 2), n1 = bnd + 2, n2 = (int32_t)irand(2, bnd + 2);
  int64_t s1[6], s2[6], m = irand(0, 9 * big);
  for (int32_t i = 0; i < bnd; i++) s1[i] = irand(1, 3);
  for (int32_t i = 0; i < n2 - 2; i++) {
    int64_t o = s1[bnd - (n2 - 2) + i];
    double u = urand();
    s2[i] = u < 0.3 ? 1 : o;
    if (u > 0.85) s1[bnd - (n2 - 2) + i] = 1, s2[i] = irand(1, 3);
  }
  s1[n1 - 2] = irand(0 + (urand() < 0.95), 6 * big);
  s1[n1 - 1] = m;
  s2[n2 - 2] = irand(1, 6 * big);
  s2[n2 - 1] = m;
  double p = PS[irand(0, 7)];
  int specials = urand() < 0.3;
  std::vector<char> b1 = random_bytes(dt, prod(n1, s1), specials), b2 = random_bytes(dt, prod(n2, s2), specials);
  /* some exactly equal rows, so p = 0 counts and 0-distances come up */
  int esz = tcn_esz(dt);
  if (urand() < 0.5 && prod(n1, s1) > 0 && prod(n2, s2) >= m)
    memcpy(b2.data(), b1.data(), (size_t)(m * esz));
  tabi_tensor *base1 = NULL, *base2 = NULL;
  tabi_tensor *x1 = host_tensor(dt, n1, s1, mode, b1, &base1), *x2 = host_tensor(dt, n2, s2, (mode + 1) % 3, b2, &base2);
  if (!x1 || !x2) return;
  int64_t cm = irand(-1, 2);
  tabi_value a[4] = {tabi_tensor_value(x1), tabi_tensor_value(x2), tabi_float(p), cm < 0 ? tabi_none() : tabi_int(cm)};
  tabi_value r = call_ref(name, a, 4);
  if (r.u.t) {
    check_shape(name, a, r.u.t);
    int32_t gbnd = 0;
    int64_t bshape[TCM_MAX_DIMS], oshape[TCM_MAX_DIMS];
    tabi_call call = fake_call(name);
    CHECK_OK(ref_cdist_check(&FAKE, &call, a, &gbnd, bshape, oshape));
    tcm_cdist_geom g;
    tcm_cdist_init(&g, x1->dl.ndim, x1->dl.shape, x1->dl.strides, x2->dl.ndim, x2->dl.shape, x2->dl.strides, gbnd,
                   bshape, dt, p);
    int64_t on = numel_of(r.u.t);
    std::vector<char> ours((size_t)(on * esz) + 8);
    for (int64_t i = 0; i < on; i++)
      tcm_cdist_elem(&g, (const char *)tabi_tensor_data(x1), (const char *)tabi_tensor_data(x2), ours.data(), i);
    char what[160];
    snprintf(what, sizeof what, "%s bnd %d/%d m %lld p %g mode %d", name, (int)bnd, (int)(n2 - 2), (long long)m, p,
             mode);
    host_compare(what, dt, ours, on, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(x1);
  tabi_tensor_release(x2);
  if (base1) tabi_tensor_release(base1);
  if (base2) tabi_tensor_release(base2);
}

static void pdist_case(tabi_dtype dt, int mode) {
  const char *name = "aten::_pdist_forward";
  int64_t shape[2] = {irand(0, 9 * big), irand(0, 7 * big)};
  if (big > 1) shape[0] = irand(20, 60); /* pair indices past small triangles */
  double p = PS[irand(0, 7)];
  int esz = tcn_esz(dt);
  std::vector<char> b = random_bytes(dt, prod(2, shape), urand() < 0.3);
  if (shape[0] >= 3 && urand() < 0.5) /* a repeated row */
    memcpy(b.data() + 2 * shape[1] * esz, b.data(), (size_t)(shape[1] * esz));
  tabi_tensor *base = NULL, *x = host_tensor(dt, 2, shape, mode, b, &base);
  if (!x) return;
  tabi_value a[2] = {tabi_tensor_value(x), tabi_float(p)};
  tabi_value r = call_ref(name, a, 2);
  if (r.u.t) {
    check_shape(name, a, r.u.t);
    tcm_pdist_geom g;
    tcm_pdist_init(&g, x->dl.shape, x->dl.strides, dt, p);
    int64_t on = numel_of(r.u.t);
    std::vector<char> ours((size_t)(on * esz) + 8);
    for (int64_t i = 0; i < on; i++) tcm_pdist_elem(&g, (const char *)tabi_tensor_data(x), ours.data(), i);
    char what[160];
    snprintf(what, sizeof what, "%s %lldx%lld p %g mode %d", name, (long long)shape[0], (long long)shape[1], p, mode);
    host_compare(what, dt, ours, on, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(x);
  if (base) tabi_tensor_release(base);
}

/* Every pair index of triangles up to n = 400 maps back to its (i, j). */
static void pdist_pairs() {
  for (int64_t n = 2; n <= 400; n++) {
    int64_t k = 0, bad = 0;
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = i + 1; j < n; j++, k++) {
        int64_t pi, pj;
        tcm_pdist_pair(n, k, &pi, &pj);
        bad += pi != i || pj != j;
      }
    CHECK_MSG(bad == 0, "tcm_pdist_pair: %lld wrong pairs for n = %lld", (long long)bad, (long long)n);
  }
  /* large n: the estimate's rounding at the ends of rows */
  const int64_t ns[3] = {100003, 1 << 20, 3037000};
  for (int t = 0; t < 3; t++) {
    int64_t n = ns[t];
    for (int64_t i = 0; i < n - 1; i += 1 + (n - 1) / 997) {
      int64_t s = tcm_pdist_start(n, i), pi, pj;
      tcm_pdist_pair(n, s, &pi, &pj);
      CHECK(pi == i && pj == i + 1);
      tcm_pdist_pair(n, s + (n - i - 2), &pi, &pj);
      CHECK(pi == i && pj == n - 1);
    }
  }
}

/* --- embedding_dense_backward ------------------------------------------------------- */
static void embbw_case(tabi_dtype dt, tabi_dtype idt, int mode) {
  const char *name = "aten::embedding_dense_backward";
  int32_t ind_nd = (int32_t)irand(0, 2);
  int64_t ishape[3], gshape[4];
  for (int32_t i = 0; i < ind_nd; i++) ishape[i] = irand(urand() < 0.05 ? 0 : 1, 7 * big);
  int64_t V = irand(urand() < 0.03 ? 0 : 1, 6 * big), D = irand(1, 5 * big);
  int64_t ni = prod(ind_nd, ishape);
  if (V == 0) ni = 0, ind_nd = 1, ishape[0] = 0;
  memcpy(gshape, ishape, sizeof(int64_t) * (size_t)ind_nd);
  gshape[ind_nd] = D;
  int iesz = tcn_esz(idt), esz = tcn_esz(dt);
  std::vector<char> ib((size_t)(ni * iesz) + 8);
  for (int64_t i = 0; i < ni; i++) {
    int64_t v = irand(0, V - 1);
    if (idt == TABI_DTYPE_INT32) {
      int32_t w = (int32_t)v;
      memcpy(ib.data() + i * 4, &w, 4);
    } else {
      memcpy(ib.data() + i * 8, &v, 8);
    }
  }
  std::vector<char> gb = random_bytes(dt, ni * D, urand() < 0.3);
  tabi_tensor *ibase = NULL, *gbase = NULL;
  tabi_tensor *ind = host_tensor(idt, ind_nd, ishape, ind_nd ? mode : 0, ib, &ibase);
  tabi_tensor *go = host_tensor(dt, ind_nd + 1, gshape, (mode + 1) % 3, gb, &gbase);
  if (!ind || !go) return;
  double u = urand();
  int64_t pad = u < 0.3 ? -1 : u < 0.8 ? irand(0, V) : V + 3;
  int scale = urand() < 0.5;
  tabi_value a[5] = {tabi_tensor_value(go), tabi_tensor_value(ind), tabi_int(V), tabi_int(pad), tabi_bool(scale)};
  tabi_value r = call_ref(name, a, 5);
  if (r.u.t) {
    check_shape(name, a, r.u.t);
    std::vector<int64_t> iv = host_ints(ind), starts((size_t)V + 1), pos((size_t)(ni > 0 ? ni : 1));
    tc_embbw_buckets(iv.data(), ni, V, starts.data(), pos.data());
    tcm_embbw_geom g;
    tcm_embbw_init(&g, go->dl.ndim, go->dl.shape, go->dl.strides, dt, V, D, pad, scale);
    int64_t on = V * D;
    std::vector<char> ours((size_t)(on * esz) + 8);
    for (int64_t i = 0; i < on; i++)
      tcm_embbw_elem(&g, (const char *)tabi_tensor_data(go), starts.data(), pos.data(), ours.data(), i);
    char what[160];
    snprintf(what, sizeof what, "%s ni %lld V %lld D %lld pad %lld scale %d %s mode %d", name, (long long)ni,
             (long long)V, (long long)D, (long long)pad, scale, tabi_dtype_name(idt), mode);
    host_compare(what, dt, ours, on, r.u.t);
  }
  tabi_value_release(&r);
  tabi_tensor_release(ind);
  tabi_tensor_release(go);
  if (ibase) tabi_tensor_release(ibase);
  if (gbase) tabi_tensor_release(gbase);
}

/* The buckets against a direct scan, including rows nobody uses. */
static void bucket_cases() {
  for (int t = 0; t < 200; t++) {
    int64_t V = irand(1, 30), ni = irand(0, 100);
    std::vector<int64_t> iv((size_t)ni + 1), starts((size_t)V + 1), pos((size_t)ni + 1);
    for (int64_t i = 0; i < ni; i++) iv[(size_t)i] = irand(0, V - 1);
    tc_embbw_buckets(iv.data(), ni, V, starts.data(), pos.data());
    int ok = starts[0] == 0 && starts[(size_t)V] == ni;
    for (int64_t r = 0; r < V && ok; r++) {
      int64_t k = starts[(size_t)r];
      for (int64_t i = 0; i < ni && ok; i++)
        if (iv[(size_t)i] == r) ok = k < starts[(size_t)r + 1] && pos[(size_t)k++] == i;
      ok = ok && k == starts[(size_t)r + 1];
    }
    CHECK_MSG(ok, "tc_embbw_buckets: wrong buckets (V %lld, ni %lld)", (long long)V, (long long)ni);
  }
}

/* --- _embedding_bag ------------------------------------------------------------------ */
/* An int64 host vector as bytes of integer dtype it. */
static std::vector<char> int_bytes(const int64_t *v, int64_t n, tabi_dtype it) {
  std::vector<char> b((size_t)(n * tcn_esz(it)) + 8);
  for (int64_t i = 0; i < n; i++) tcn_st(b.data() + i * tcn_esz(it), it, v[i]);
  return b;
}

static void ebag_case(tabi_dtype dt, tabi_dtype it, int mode, int layout) {
  const char *name = "aten::_embedding_bag";
  int64_t V = irand(1, 8 * big), D = irand(1, 5 * big), n = irand(urand() < 0.1 ? 0 : 1, 12 * big);
  int ilo = urand() < 0.4;
  int64_t B = irand(ilo ? 0 : 0, 5 * big), noff = B + ilo;
  if (!ilo && urand() < 0.05) B = noff = 0;
  std::vector<int64_t> iv((size_t)n + 1), offv((size_t)noff + 1);
  for (int64_t i = 0; i < n; i++) iv[(size_t)i] = irand(0, V - 1);
  for (int64_t b = 0; b < noff; b++) offv[(size_t)b] = b == 0 ? 0 : irand(0, n);
  std::sort(offv.begin() + (noff > 0 ? 1 : 0), offv.begin() + noff);
  double u = urand();
  int64_t pad = u < 0.4 ? -1 : u < 0.9 ? irand(0, V - 1) : V + 2;
  int use_psw = mode == 0 && urand() < 0.5;
  int64_t wshape[2] = {V, D};
  std::vector<char> wb = random_bytes(dt, V * D, urand() < 0.3), pb = random_bytes(dt, n, 0);
  std::vector<char> ib = int_bytes(iv.data(), n, it), ob = int_bytes(offv.data(), noff, it);
  tabi_tensor *wbase = NULL, *ibase = NULL, *obase = NULL, *pbase = NULL;
  tabi_tensor *w = host_tensor(dt, 2, wshape, layout, wb, &wbase);
  tabi_tensor *ind = host_tensor(it, 1, &n, layout == 2 ? 2 : 0, ib, &ibase);
  tabi_tensor *off = host_tensor(it, 1, &noff, 0, ob, &obase);
  tabi_tensor *psw = use_psw ? host_tensor(dt, 1, &n, urand() < 0.5 ? 2 : 0, pb, &pbase) : NULL;
  if (!w || !ind || !off || (use_psw && !psw)) return;
  tabi_value a[9] = {tabi_tensor_value(w),   tabi_tensor_value(ind), tabi_tensor_value(off),
                     tabi_bool(0),           tabi_int(mode),         tabi_bool(0),
                     psw ? tabi_tensor_value(psw) : tabi_none(), tabi_bool(ilo), tabi_int(pad)};
  tabi_op op;
  tabi_value r[4] = {tabi_none(), tabi_none(), tabi_none(), tabi_none()};
  CHECK_OK(tabi_op_find(ref, name, &op));
  tabi_status st = tabi_call(ref, op, a, 9, r, 4);
  CHECK_MSG(st == TABI_OK, "%s: %s", name, tabi_last_error());
  if (st == TABI_OK) {
    /* the kernel's host side */
    tabi_call call = fake_call(name);
    int64_t gB = -1;
    int o2b_empty = 0;
    CHECK_OK(ref_ebag_check(&FAKE, &call, a, &gB, &o2b_empty));
    std::vector<int64_t> hiv = host_ints(ind), hoff = host_ints(off);
    CHECK_OK(ref_ebag_check_values(&FAKE, &call, hoff.data(), noff, hiv.data(), n, V));
    std::vector<int64_t> starts((size_t)B + 2), o2b((size_t)n + 1), cnt((size_t)B + 1), zero((size_t)B + 1, 0);
    tc_ebag_layout(hoff.data(), gB, hiv.data(), n, pad, starts.data(), o2b.data(), cnt.data());
    CHECK(gB == B && r[0].u.t->dl.shape[0] == B && numel_of(r[1].u.t) == (o2b_empty ? 0 : n) &&
          numel_of(r[2].u.t) == B && numel_of(r[3].u.t) == (mode == 2 ? B * D : B));
    tcm_ebag_geom g;
    tcm_ebag_init(&g, w->dl.shape, w->dl.strides, dt, it, mode, psw != NULL, psw ? psw->dl.strides[0] : 0, pad);
    std::vector<char> out((size_t)(B * D * tcn_esz(dt)) + 8), mxi((size_t)(B * D * 8) + 8);
    for (int64_t i = 0; i < B * D; i++)
      tcm_ebag_elem(&g, (const char *)tabi_tensor_data(w), hiv.data(), psw ? (const char *)tabi_tensor_data(psw) : NULL,
                    starts.data(), out.data(), mxi.data(), i);
    char what[200];
    snprintf(what, sizeof what, "%s V %lld D %lld n %lld B %lld ilo %d mode %d psw %d pad %lld layout %d", name,
             (long long)V, (long long)D, (long long)n, (long long)B, ilo, mode, use_psw, (long long)pad, layout);
    host_compare(what, dt, out, B * D, r[0].u.t);
    if (!o2b_empty) host_compare(what, it, int_bytes(o2b.data(), n, it), n, r[1].u.t);
    host_compare(what, it, int_bytes(mode == 0 ? zero.data() : cnt.data(), B, it), B, r[2].u.t);
    if (mode == 2) host_compare(what, it, mxi, B * D, r[3].u.t);
    else host_compare(what, it, int_bytes(mode == 1 ? cnt.data() : zero.data(), B, it), B, r[3].u.t);
  }
  for (int k = 0; k < 4; k++) tabi_value_release(&r[k]);
  tabi_tensor_release(w);
  tabi_tensor_release(ind);
  tabi_tensor_release(off);
  if (psw) tabi_tensor_release(psw);
  for (tabi_tensor *t : {wbase, ibase, obase, pbase})
    if (t) tabi_tensor_release(t);
}

int main(int argc, char **argv) {
  rng = 0x2545f4914f6cdd1dull;
  if (!host_open(argc, argv)) return host_exit();
  const tabi_dtype dist_dts[2] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64};
  const tabi_dtype emb_dts[9] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64,
                                 TABI_DTYPE_UINT8,   TABI_DTYPE_INT8,     TABI_DTYPE_INT16,   TABI_DTYPE_INT32,
                                 TABI_DTYPE_INT64};
  for (int round = 0; round < 2; round++) {
    big = round ? 4 : 1;
    int reps = round ? 1 : 3;
    for (int mode = 0; mode < 3; mode++) {
      for (int d = 0; d < 2; d++) {
        for (int interp = 0; interp < 3; interp++)
          for (int padm = 0; padm < 3; padm++)
            for (int align = 0; align < 2; align++)
              for (int rep = 0; rep < reps; rep++) grid_case(dist_dts[d], mode, interp, padm, align);
        for (int rep = 0; rep < 8 * reps; rep++) {
          cdist_case(dist_dts[d], mode);
          pdist_case(dist_dts[d], mode);
        }
      }
      for (int d = 0; d < 9; d++)
        for (int rep = 0; rep < 2 * reps; rep++) {
          embbw_case(emb_dts[d], TABI_DTYPE_INT64, mode);
          embbw_case(emb_dts[d], TABI_DTYPE_INT32, mode);
        }
      for (int d = 0; d < 4; d++)
        for (int em = 0; em < 3; em++)
          for (int rep = 0; rep < 2 * reps; rep++) {
            ebag_case(emb_dts[d], TABI_DTYPE_INT64, em, mode);
            ebag_case(emb_dts[d], TABI_DTYPE_INT32, em, mode);
          }
    }
  }
  pdist_pairs();
  bucket_cases();
  printf("%lld cases, %lld output elements compared\n", checked_cases, checked_elems);
  return host_exit();
}
