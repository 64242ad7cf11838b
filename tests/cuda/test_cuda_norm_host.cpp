/* tests/cuda/test_cuda_norm_host.cpp: the CUDA/ROCm native_group_norm,
 * native_layer_norm_backward and native_group_norm_backward kernels
 * (plugins/cuda/tc_norm.cu) emulated on the host, without a GPU, against the
 * reference plugin; the pattern of test_cuda_pool_host.cpp.
 *
 * tc_norm.cu makes its inputs contiguous, then runs grid-stride loops calling
 * the functions of plugins/cuda/tc_norm.cuh: per set (statistics / backward
 * sums into a double scratch), per element, per parameter. This test compiles
 * the header as plain C++ and runs the same functions, in that order, over
 * every set, element and parameter, on the logical bytes of the inputs the
 * reference gets (random values with NaN, +-inf, -0.0 mixed in; contiguous,
 * transposed and step-2 sliced views to the reference; every float dtype, the
 * float32-parameter "mixed" case of the half types, with and without weight
 * and bias, all 8 output masks, empty and zero-size dims), with the geometry
 * and output dtypes/shapes of the shared checks (reference/ref_norm_check.c,
 * which the reference kernels run too; here under a stand-in host table), and
 * asks for the reference's bits (NaN where it has NaN). A sum tc_norm.cu
 * splits (tcn_split: more than TCN_SERIAL terms) is emulated split, partial
 * by partial, and what depends on it is compared within the dtype's
 * tolerance; the last round's large sets make sure every split path runs.
 * argv[1]: libtabi_reference.so. */
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
#include "tc_norm.cuh"
#include "ref_norm_check.h"


static const tabi_dtype FLOATS[4] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                     TABI_DTYPE_FLOAT64};

/* n random values (specials mixed in when `specials`). */
static std::vector<char> random_bytes(tabi_dtype dt, int64_t n, int specials) {
  int esz = host_esz(dt);
  std::vector<char> b((size_t)(n * esz) + 8, 0);
  for (int64_t i = 0; i < n; i++) {
    double v = urand() * 4 - 2;
    tcp_st(b.data() + i * esz, dt, specials ? host_special_or(v, 60) : v);
  }
  return b;
}

/* ours (dtype dt, shape nd/shape) against the reference's output tensor. */
static void compare(const char *what, tabi_dtype dt, int32_t nd, const int64_t *shape,
                    const std::vector<char> &ours, tabi_tensor *refout, int tolerant) {
  if (host_same_shape(what, refout, dt, nd, shape)) host_compare(what, dt, ours, numel_of(refout), refout, tolerant);
}

/* --- the shared checks (reference/ref_norm_check.c) under a stand-in host table -- */
/* the stand-in host table: host_stub.h. The reference kernels run the same
 * checks, so only the geometry they give is used here (bad arguments need no
 * comparison). */

static tabi_status run_check(const char *name, const tabi_value *a, ref_norm_dims *d) {
  tabi_call call = fake_call(name);
  if (strstr(name, "layer_norm")) return ref_norm_ln_bwd_check(&FAKE, &call, a, d);
  if (strstr(name, "backward")) return ref_norm_gn_bwd_check(&FAKE, &call, a, d);
  return ref_norm_gn_check(&FAKE, &call, a, d);
}

/* --- the emulated kernels ------------------------------------------------------------ */

/* How many emulated runs took each split path (each must be reached). */
static long long split_fw, split_bw, split_param;

/* tc_norm.cu's backward: dx (mask[0]), then grad_weight/grad_bias, each split
 * as tc_norm.cu splits it. *dx_split, *p_split: whether that sum was. */
static void emulate_backward(const tcn_geom *g, const ref_norm_dims *d, const char *go, const char *x,
                             const char *mean, const char *rstd, const char *w, const int64_t *mask,
                             std::vector<char> *gi, std::vector<char> *dg, int dgdt, std::vector<char> *db,
                             int dbdt, int *dx_split, int *p_split) {
  int64_t n = d->rows * d->cnt;
  gi->assign((size_t)(n * g->xsz) + 8, 0);
  dg->assign((size_t)(d->pn * tcp_esz(dgdt)) + 8, 0);
  db->assign((size_t)(d->pn * tcp_esz(dbdt)) + 8, 0);
  int64_t ks = tcn_split(d->cnt), kp = tcn_split(tcn_param_terms(g, 0).n);
  *dx_split = ks > 1;
  *p_split = kp > 1;
  if (mask[0] && n > 0) {
    std::vector<double> s((size_t)(2 * d->rows));
    if (ks == 1) {
      for (int64_t r = 0; r < d->rows; r++) tcn_bw_set(g, go, x, mean, rstd, w, s.data(), r);
    } else {
      split_bw++;
      std::vector<double> part((size_t)(2 * d->rows * ks));
      for (int64_t i = d->rows * ks - 1; i >= 0; i--) /* any order: each partial its own */
        tcn_bw_part(g, go, x, mean, rstd, w, i / ks, i % ks, ks, part.data() + 2 * i);
      for (int64_t r = 0; r < d->rows; r++) tcn_bw_combine(part.data() + 2 * r * ks, ks, s.data(), r);
    }
    for (int64_t i = 0; i < n; i++) tcn_dx_elem(g, go, x, mean, rstd, w, s.data(), gi->data(), i);
  }
  char *dgp = mask[1] ? dg->data() : NULL, *dbp = mask[2] ? db->data() : NULL;
  if ((mask[1] || mask[2]) && kp == 1) {
    for (int64_t p = 0; p < d->pn; p++) tcn_param_elem(g, go, x, mean, rstd, dgp, dgdt, dbp, dbdt, p);
  } else if (mask[1] || mask[2]) {
    split_param++;
    std::vector<double> part((size_t)(2 * d->pn * kp));
    for (int64_t i = kp * d->pn - 1; i >= 0; i--)
      tcn_param_part(g, go, x, mean, rstd, i % d->pn, i / d->pn, kp, part.data() + 2 * i);
    for (int64_t p = 0; p < d->pn; p++) tcn_param_store(part.data() + 2 * p, kp, d->pn, dgp, dgdt, dbp, dbdt, p);
  }
}

/* One backward case: the reference's outputs against the emulation's. */
static void backward_compare(const char *name, tabi_value *a, int na, const int64_t *mask, tabi_tensor *x,
                             const std::vector<char> &xb, tabi_dtype godt, const std::vector<char> &gob,
                             tabi_tensor *mean, tabi_tensor *rstd, tabi_tensor *w, const std::vector<char> &wb,
                             tabi_tensor *b) {
  tabi_value out[3];
  tabi_status sr = host_call(name, a, na, out, 3);
  CHECK_OK(sr);
  ref_norm_dims d;
  tabi_status sc = run_check(name, a, &d);
  CHECK_MSG(sc == TABI_OK, "%s: check %d (%s)", name, (int)sc, fake_msg);
  if (sr == TABI_OK && sc == TABI_OK) {
    tabi_dtype dt = tabi_tensor_dtype(x);
    tcn_geom g;
    memset(&g, 0, sizeof g);
    tcn_init(&g, &d, dt, godt, tabi_tensor_dtype(mean), tabi_tensor_dtype(rstd), w ? (int)tabi_tensor_dtype(w) : -1,
             -1, 0);
    std::vector<char> mb = host_bytes_of(mean), rb = host_bytes_of(rstd), gi, dg, db;
    int dgdt = w ? (int)tabi_tensor_dtype(w) : (int)dt, dbdt = b ? (int)tabi_tensor_dtype(b) : (int)dt;
    int dx_split, p_split;
    emulate_backward(&g, &d, gob.data(), xb.data(), mb.data(), rb.data(), w ? wb.data() : NULL, mask, &gi, &dg,
                     dgdt, &db, dbdt, &dx_split, &p_split);
    char what[128];
    for (int i = 0; i < 3; i++) {
      snprintf(what, sizeof what, "%s out %d (mask %d%d%d, %s weight)", name, i, (int)mask[0], (int)mask[1],
               (int)mask[2], w ? "with" : "no");
      if (!mask[i]) {
        CHECK_MSG(out[i].tag == TABI_TAG_NONE, "%s: the reference returns an output the mask leaves out", what);
        continue;
      }
      if (i == 0) compare(what, dt, x->dl.ndim, x->dl.shape, gi, out[0].u.t, dx_split);
      else
        compare(what, (tabi_dtype)(i == 1 ? dgdt : dbdt), d.pnd, d.pshape, i == 1 ? dg : db, out[i].u.t, p_split);
    }
  }
  for (int i = 0; i < 3; i++) tabi_value_release(&out[i]);
}

/* --- layer norm backward ------------------------------------------------------------ */

static void ln_case(tabi_dtype dt, int mixed, int mode, int64_t scale) {
  int32_t nd = (int32_t)irand(1, 4), k = (int32_t)irand(1, nd);
  int64_t shape[4], n = 1;
  if (scale >= 24) { /* large: two dims of up to 1200 (rows and sets past TCN_SERIAL) */
    nd = 2;
    k = (int32_t)irand(1, 2);
  }
  for (int32_t i = 0; i < nd; i++) {
    shape[i] = scale >= 24 ? irand(1, 1200) : irand(1, 5 * scale);
    if (irand(0, 25) == 0) shape[i] = 0;
    n *= shape[i];
  }
  tabi_dtype pdt = mixed ? TABI_DTYPE_FLOAT32 : dt;
  int has_w = (int)irand(0, 3) != 0, has_b = (int)irand(0, 3) != 0;
  int64_t pn = 1;
  for (int32_t i = nd - k; i < nd; i++) pn *= shape[i];
  /* large sets: mostly no specials, else nearly every sum is NaN and a wrong split would pass */
  int sp = scale < 24 || irand(0, 4) == 0;
  std::vector<char> xb = random_bytes(dt, n, sp), wb = random_bytes(pdt, pn, sp), bb = random_bytes(pdt, pn, sp);
  tabi_dtype godt = irand(0, 5) == 0 ? FLOATS[irand(0, 3)] : dt; /* the reference reads any grad_out dtype */
  std::vector<char> gob = random_bytes(godt, n, sp);
  tabi_tensor *xbase, *gbase, *wbase, *bbase;
  tabi_tensor *x = host_tensor(dt, nd, shape, mode, xb, &xbase);
  tabi_tensor *go = host_tensor(godt, nd, shape, (mode + 1) % 3, gob, &gbase);
  tabi_tensor *w = has_w ? host_tensor(pdt, k, shape + nd - k, mode, wb, &wbase) : NULL;
  tabi_tensor *b = has_b ? host_tensor(pdt, k, shape + nd - k, 0, bb, &bbase) : NULL;
  if (!has_w) wbase = NULL;
  if (!has_b) bbase = NULL;
  /* mean/rstd from the reference's forward (its statistics' dtype) */
  tabi_value fa[5] = {tabi_tensor_value(x), tabi_int_list(shape + nd - k, k), tabi_tensor_value(w),
                      tabi_tensor_value(b), tabi_float(irand(0, 3) == 0 ? 0.0 : 1e-5)};
  tabi_value fo[3];
  CHECK_OK(host_call("aten::native_layer_norm", fa, 5, fo, 3));
  if (fo[1].tag == TABI_TAG_TENSOR && fo[2].tag == TABI_TAG_TENSOR)
    for (int m = 0; m < 8; m++) {
      int64_t mask[3] = {m & 1, (m >> 1) & 1, (m >> 2) & 1};
      tabi_value a[8] = {tabi_tensor_value(go), tabi_tensor_value(x), tabi_int_list(shape + nd - k, k), fo[1],
                         fo[2], tabi_tensor_value(w), tabi_tensor_value(b), tabi_bool_list(mask, 3)};
      backward_compare("aten::native_layer_norm_backward", a, 8, mask, x, xb, godt, gob, fo[1].u.t, fo[2].u.t, w,
                       wb, b);
    }
  for (int i = 0; i < 3; i++) tabi_value_release(&fo[i]);
  tabi_tensor *rel[8] = {x, xbase, go, gbase, w, wbase, b, bbase};
  for (int i = 0; i < 8; i++)
    if (rel[i]) tabi_tensor_release(rel[i]);
}

/* --- group norm ---------------------------------------------------------------------- */

static void gn_case(tabi_dtype dt, int mixed, int mode, int64_t scale) {
  int64_t G = irand(1, 3), D = irand(1, 3), N = irand(1, 3 * scale), C = G * D;
  int32_t ns = (int32_t)irand(0, 2), nd = 2 + ns;
  int64_t shape[4] = {N, C, irand(1, 4 * scale), irand(1, scale > 6 ? scale : 4)}, HxW = 1;
  if (irand(0, 20) == 0) shape[0] = N = 0;
  if (irand(0, 20) == 0 && ns) shape[2] = 0;
  for (int32_t i = 2; i < nd; i++) HxW *= shape[i];
  int64_t n = N * C * HxW;
  tabi_dtype pdt = mixed ? TABI_DTYPE_FLOAT32 : dt;
  int has_w = (int)irand(0, 3) != 0, has_b = (int)irand(0, 3) != 0;
  int sp = scale < 24 || irand(0, 4) == 0; /* as ln_case */
  std::vector<char> xb = random_bytes(dt, n, sp), wb = random_bytes(pdt, C, sp), bb = random_bytes(pdt, C, sp);
  tabi_dtype godt = irand(0, 5) == 0 ? FLOATS[irand(0, 3)] : dt;
  std::vector<char> gob = random_bytes(godt, n, sp);
  tabi_tensor *xbase, *gbase, *wbase = NULL, *bbase = NULL;
  tabi_tensor *x = host_tensor(dt, nd, shape, mode, xb, &xbase);
  tabi_tensor *go = host_tensor(godt, nd, shape, (mode + 2) % 3, gob, &gbase);
  tabi_tensor *w = has_w ? host_tensor(pdt, 1, &C, mode ? 2 : 0, wb, &wbase) : NULL;
  tabi_tensor *b = has_b ? host_tensor(pdt, 1, &C, 0, bb, &bbase) : NULL;
  double eps = irand(0, 3) == 0 ? 0.0 : 1e-5;
  tabi_value fa[8] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_tensor_value(b), tabi_int(N),
                      tabi_int(C), tabi_int(HxW), tabi_int(G), tabi_float(eps)};
  tabi_value fo[3];
  tabi_status sr = host_call("aten::native_group_norm", fa, 8, fo, 3);
  CHECK_OK(sr);
  ref_norm_dims d;
  tabi_status sc = run_check("aten::native_group_norm", fa, &d);
  CHECK_MSG(sc == TABI_OK, "native_group_norm: check %d (%s)", (int)sc, fake_msg);
  if (sr == TABI_OK && sc == TABI_OK) {
    /* the forward, as tc_norm.cu runs it */
    tcn_geom g;
    memset(&g, 0, sizeof g);
    tcn_init(&g, &d, dt, -1, d.sdt, d.sdt, has_w ? (int)pdt : -1, has_b ? (int)pdt : -1, eps);
    int ssz = tcp_esz(d.sdt);
    std::vector<char> out((size_t)(n * tcp_esz(dt)) + 8), mean((size_t)(d.rows * ssz) + 8),
        rstd((size_t)(d.rows * ssz) + 8);
    std::vector<double> ms((size_t)(2 * d.rows) + 2);
    int64_t k = tcn_split(d.cnt);
    if (k == 1) {
      for (int64_t r = 0; r < d.rows; r++) tcn_fw_set(&g, xb.data(), mean.data(), rstd.data(), ms.data(), r);
    } else { /* partials of x, means, partials of squares, statistics */
      split_fw++;
      std::vector<double> part((size_t)(d.rows * k));
      for (int sq = 0; sq < 2; sq++) {
        for (int64_t i = d.rows * k - 1; i >= 0; i--)
          part[(size_t)i] = tcn_fw_part(&g, xb.data(), i / k, i % k, k, sq, sq ? ms[(size_t)(2 * (i / k))] : 0);
        for (int64_t r = 0; r < d.rows; r++) {
          if (sq) tcn_fw_stats(&g, part.data() + r * k, k, mean.data(), rstd.data(), ms.data(), r);
          else tcn_fw_mean(&g, part.data() + r * k, k, ms.data(), r);
        }
      }
    }
    for (int64_t i = 0; i < n; i++)
      tcn_fw_elem(&g, xb.data(), has_w ? wb.data() : NULL, has_b ? bb.data() : NULL, ms.data(), out.data(), i);
    int64_t sshape[2] = {N, G};
    compare("native_group_norm out", dt, nd, shape, out, fo[0].u.t, k > 1);
    compare("native_group_norm mean", (tabi_dtype)d.sdt, 2, sshape, mean, fo[1].u.t, k > 1);
    compare("native_group_norm rstd", (tabi_dtype)d.sdt, 2, sshape, rstd, fo[2].u.t, k > 1);
    /* the backward on the forward's statistics */
    for (int m = 0; m < 8; m++) {
      int64_t mask[3] = {m & 1, (m >> 1) & 1, (m >> 2) & 1};
      tabi_value a[10] = {tabi_tensor_value(go), tabi_tensor_value(x), fo[1], fo[2], tabi_tensor_value(w),
                          tabi_int(N), tabi_int(C), tabi_int(HxW), tabi_int(G), tabi_bool_list(mask, 3)};
      backward_compare("aten::native_group_norm_backward", a, 10, mask, x, xb, godt, gob, fo[1].u.t, fo[2].u.t, w,
                       wb, NULL);
    }
  }
  for (int i = 0; i < 3; i++) tabi_value_release(&fo[i]);
  tabi_tensor *rel[8] = {x, xbase, go, gbase, w, wbase, b, bbase};
  for (int i = 0; i < 8; i++)
    if (rel[i]) tabi_tensor_release(rel[i]);
}

int main(int argc, char **argv) {
  if (!host_open(argc, argv)) return host_exit();
  for (int round = 0; round < 3; round++) { /* small, larger, large sets (split sums) */
    int64_t scale = round == 2 ? 24 : round ? 6 : 1;
    int reps = round ? 2 : 6;
    for (int mode = 0; mode < 3; mode++)
      for (int d = 0; d < 4; d++)
        for (int mixed = 0; mixed < (d < 2 ? 2 : 1); mixed++)
          for (int rep = 0; rep < reps; rep++) {
            ln_case(FLOATS[d], mixed, mode, scale);
            gn_case(FLOATS[d], mixed, mode, scale);
          }
  }
  printf("%lld outputs (%lld empty), %lld elements compared; split sums: %lld group norm, %lld backward sets, "
         "%lld backward parameters\n", checked_cases, empty_cases, checked_elems, split_fw, split_bw, split_param);
  CHECK_MSG(split_fw > 0 && split_bw > 0 && split_param > 0, "a split path of tc_norm.cu was not reached");
  return host_exit();
}
