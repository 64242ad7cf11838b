/* tests/cuda/test_cuda_convbwd_host.cpp: the CUDA/ROCm direct kernel of
 * aten::convolution_backward (plugins/cuda/tc_conv.cu) emulated on the host,
 * without a GPU, against the reference plugin; the pattern of
 * test_cuda_pool_host.cpp.
 *
 * The kernel is a grid-stride loop, one thread per element of grad_input,
 * grad_weight or grad_bias, calling tcb_elem of plugins/cuda/tc_convbwd.cuh on
 * the geometry tc_conv.cu builds; this test compiles the header as plain C++,
 * builds the geometry the same way (tcb_init/tcb_strides, the operands the
 * kernel passes) and runs every index on the same input bytes the reference
 * gets: random 1-3 d convolutions (stride, padding, dilation, groups,
 * transposed with output_padding, batch 0, every output_mask), every dtype the
 * reference takes (floats with NaN, +-inf, -0.0; integers with int64 extremes
 * for the wrapping sums), contiguous, transposed and step-2 sliced operands.
 * It asks for the reference's bits (NaN where it has NaN).
 * argv[1]: libtabi_reference.so. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <tabi/runtime.h>

#include "check.h"
#include "host_case.h"
#include "tc_convbwd.cuh"

static long long skipped;

static const tabi_dtype DTS[9] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                  TABI_DTYPE_FLOAT64, TABI_DTYPE_UINT8,   TABI_DTYPE_INT8,
                                  TABI_DTYPE_INT16,   TABI_DTYPE_INT32,   TABI_DTYPE_INT64};

/* n logical values of dt: floats with specials (sometimes), integers with
 * int64's extremes (wrapping). */
static std::vector<char> random_bytes(tabi_dtype dt, int64_t n, int specials) {
  int esz = tcn_esz(dt);
  std::vector<char> b((size_t)(n * esz) + 8);
  for (int64_t i = 0; i < n; i++) {
    char *p = b.data() + i * esz;
    if (tcn_is_int(dt)) {
      tcn_st(p, dt, host_int_or_extreme(300, dt == TABI_DTYPE_INT64));
      continue;
    }
    double v = urand() * 4 - 2;
    tcp_st(p, dt, specials ? host_special_or(v, 60) : v);
  }
  return b;
}

/* host_tensor with the bytes before the mode: the calls draw their mode from
 * the random stream in the same argument (evaluation) order as ever. */
static tabi_tensor *make_tensor(tabi_dtype dt, int32_t nd, const int64_t *shape, const std::vector<char> &v,
                                int mode, tabi_tensor **base) {
  return host_tensor(dt, nd, shape, mode, v, base);
}

/* Runs tcb_elem over every index (the kernel's threads) and compares with the
 * reference's output. */
static void run_compare(const char *what, const tcb_geom *g, const tabi_tensor *x, const tabi_tensor *y,
                        const tabi_tensor *refout) {
  int esz = g->esz;
  int64_t n = tcb_count(g);
  CHECK_MSG(refout && numel_of(refout) == n, "%s: reference output has %lld elements, ours %lld", what,
            refout ? (long long)numel_of(refout) : -1LL, (long long)n);
  if (!refout || numel_of(refout) != n) return;
  std::vector<char> ours((size_t)(n * esz) + 8);
  const char *xp = (const char *)tabi_tensor_data(x), *yp = y ? (const char *)tabi_tensor_data(y) : NULL;
  for (int64_t o = 0; o < n; o++) tcb_elem(g, xp, yp, ours.data(), o);
  host_compare(what, (tabi_dtype)g->dt, ours.data(), n, (tabi_tensor *)refout);
}

static void one_case(tabi_dtype dt, int big) {
  int32_t ns = (int32_t)irand(1, 3), nd = ns + 2;
  int transposed = urand() < 0.4;
  int64_t groups = irand(1, 3), n = urand() < 0.05 ? 0 : irand(1, 2);
  int64_t cin = groups * irand(1, 3), cout = groups * irand(1, 3);
  int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1}, op[3] = {0, 0, 0}, k[3] = {1, 1, 1};
  int64_t ishape[5] = {n, cin}, wshape[5], oshape[5] = {n, cout}, lsp[3] = {1, 1, 1}, hsp[3] = {1, 1, 1};
  int maxsz = (ns == 3 ? 4 : ns == 2 ? 7 : 12) * big;
  for (int32_t i = 0; i < ns; i++) {
    k[i] = irand(1, 3);
    s[i] = irand(1, 3);
    d[i] = irand(1, 2);
    p[i] = irand(0, 2);
    int64_t span = d[i] * (k[i] - 1) + 1;
    if (transposed) {
      op[i] = irand(0, (s[i] > d[i] ? s[i] : d[i]) - 1);
      ishape[2 + i] = irand(1, maxsz);
      oshape[2 + i] = (ishape[2 + i] - 1) * s[i] - 2 * p[i] + span + op[i];
      if (oshape[2 + i] < 1) { /* too small: drop the padding */
        p[i] = 0;
        oshape[2 + i] = (ishape[2 + i] - 1) * s[i] + span + op[i];
      }
      lsp[i] = ishape[2 + i];
      hsp[i] = oshape[2 + i];
    } else {
      int64_t lo = span - 2 * p[i] > 1 ? span - 2 * p[i] : 1;
      ishape[2 + i] = irand(lo, lo + maxsz);
      oshape[2 + i] = (ishape[2 + i] + 2 * p[i] - span) / s[i] + 1;
      hsp[i] = ishape[2 + i];
      lsp[i] = oshape[2 + i];
    }
  }
  wshape[0] = transposed ? cin : cout;
  wshape[1] = transposed ? cout / groups : cin / groups;
  for (int32_t i = 0; i < ns; i++) wshape[2 + i] = k[i];
  int64_t ni = 1, nw = 1, no = 1;
  for (int32_t i = 0; i < nd; i++) {
    ni *= ishape[i];
    nw *= wshape[i];
    no *= oshape[i];
  }
  int specials = urand() < 0.3;
  tabi_tensor *bi, *bw, *bo;
  tabi_tensor *in = make_tensor(dt, nd, ishape, random_bytes(dt, ni, specials), (int)irand(0, 2), &bi);
  tabi_tensor *w = make_tensor(dt, nd, wshape, random_bytes(dt, nw, specials), (int)irand(0, 2), &bw);
  tabi_tensor *go = make_tensor(dt, nd, oshape, random_bytes(dt, no, specials), (int)irand(0, 2), &bo);
  int64_t mask[3] = {urand() < 0.8, urand() < 0.8, urand() < 0.6}, bsz[1] = {cout};
  tabi_value a[11] = {tabi_tensor_value(go), tabi_tensor_value(in), tabi_tensor_value(w),
                      mask[2] ? tabi_int_list(bsz, 1) : tabi_none(), tabi_int_list(s, ns),
                      tabi_int_list(p, ns), tabi_int_list(d, ns), tabi_bool(transposed),
                      tabi_int_list(op, ns), tabi_int(groups), tabi_bool_list(mask, 3)};
  tabi_value out[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_op bop;
  CHECK_OK(tabi_op_find(ref, "aten::convolution_backward", &bop));
  tabi_status st = tabi_call(ref, bop, a, 11, out, 3);
  CHECK_MSG(st == TABI_OK, "reference refused a valid case: %s", tabi_last_error());
  if (st == TABI_OK) {
    /* the geometry tc_conv.cu builds: L = output (normal) or input (transposed) */
    int64_t cl = transposed ? cin : cout, ch = transposed ? cout : cin;
    tcb_geom g;
    int64_t gs[5], is[5], ws[5];
    tcb_strides(gs, ns, go->dl.strides);
    tcb_strides(is, ns, in->dl.strides);
    tcb_strides(ws, ns, w->dl.strides);
    if (mask[0]) {
      tcb_init(&g, dt, transposed ? TCB_GATHER_L : TCB_GATHER_H, n, cl, ch, groups, lsp, hsp, k, s, p, d);
      memcpy(g.xs, gs, sizeof gs);
      memcpy(g.ys, ws, sizeof ws);
      run_compare(transposed ? "grad_input (transposed)" : "grad_input", &g, go, w, out[0].u.t);
    }
    if (mask[1]) {
      tcb_init(&g, dt, TCB_WEIGHT, n, cl, ch, groups, lsp, hsp, k, s, p, d);
      memcpy(g.xs, transposed ? is : gs, sizeof gs);
      memcpy(g.ys, transposed ? gs : is, sizeof gs);
      run_compare(transposed ? "grad_weight (transposed)" : "grad_weight", &g, transposed ? in : go,
                  transposed ? go : in, out[1].u.t);
    }
    if (mask[2]) {
      int64_t osp[3] = {1, 1, 1};
      for (int32_t i = 0; i < ns; i++) osp[i] = oshape[2 + i];
      tcb_init(&g, dt, TCB_BIAS, n, cout, cout, 1, osp, osp, k, s, p, d);
      memcpy(g.xs, gs, sizeof gs);
      run_compare("grad_bias", &g, go, NULL, out[2].u.t);
    }
    for (int i = 0; i < 3; i++) {
      CHECK((out[i].tag == TABI_TAG_TENSOR) == (mask[i] != 0));
      tabi_value_release(&out[i]);
    }
  } else {
    skipped++;
  }
  tabi_tensor_release(in);
  tabi_tensor_release(w);
  tabi_tensor_release(go);
  if (bi) tabi_tensor_release(bi);
  if (bw) tabi_tensor_release(bw);
  if (bo) tabi_tensor_release(bo);
}

int main(int argc, char **argv) {
  if (!host_open(argc, argv)) return host_exit();
  for (int round = 0; round < 2; round++)
    for (int dti = 0; dti < 9; dti++)
      for (int rep = 0; rep < (round ? 20 : 150); rep++) one_case(DTS[dti], round ? 3 : 1);
  printf("%lld outputs (%lld empty), %lld elements compared, %lld cases the reference refused\n",
         checked_cases, empty_cases, checked_elems, skipped);
  return host_exit();
}
