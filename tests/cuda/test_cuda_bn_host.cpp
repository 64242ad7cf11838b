/* tests/cuda/test_cuda_bn_host.cpp: the CUDA/ROCm batch-norm kernels
 * (plugins/cuda/tc_bn.cu: _native_batch_norm_legit, .no_stats, _no_training)
 * emulated on the host, without a GPU, against the reference plugin
 * (reference/ref_nn5.c).
 *
 * tc_bn.cu makes the input contiguous, then runs, in training, one block of NT
 * threads per channel through the phases of plugins/cuda/tc_bn.cuh separated
 * by barriers (partial sums, a tree, the mean, partial squared deviations, a
 * tree, thread 0 finishing the channel), in evaluation one thread per channel;
 * then one thread per element. This test compiles the header as plain C++ and
 * emulates a block by running each phase for every thread index before the
 * next phase, with T = 1, 5, 64 and 256 threads, on the logical bytes of the
 * input the reference gets (contiguous, transposed and step-2 sliced views;
 * 2-D to 5-D; every float dtype and the float32-parameter "mixed" case of the
 * half types, parameter by parameter; weight/bias present or absent; the
 * three forms, training on and off; N*S = 1 (NaN running var); empty inputs
 * and C = 0; NaN/inf/-0.0 inputs in some cases). weight, bias and the running
 * statistics are read (and the running statistics written) through their
 * stride in their own memory, as the kernel does: contiguous or every other
 * element of a buffer, whose whole memory (the gaps too) is compared.
 *
 * What is asserted, for every output element and every running-statistic slot:
 *  - evaluation (every T), and training with T = 1 (thread 0 sums the
 *    elements in the reference's serial order and the tree is empty): the
 *    reference's bits (NaN where it has NaN);
 *  - training with T > 1: the tree sums in another order, so within
 *    shared/spec/tolerances.md's |a - e| <= atol + rtol*|e| of the element's
 *    dtype (float64 1e-7/1e-7, float32 1.3e-6/1e-5, float16 1e-3/1e-5,
 *    bfloat16 1.6e-2/1e-5), NaN exactly where the reference has NaN and
 *    infinities equal;
 *  - outputs' dtypes and shapes (save_mean/save_invstd [C] in training, [0] in
 *    evaluation) are the reference's.
 * Bad arguments: the shared check (reference/ref_nn_bn_check.c, which the
 * plugins call) run on the boxed arguments under a stand-in host gives the
 * status and message the reference plugin's kernel gave through the runtime;
 * the read-only branch (the runtime refuses read-only (a!) arguments before a
 * kernel runs) is asserted directly. argv[1]: libtabi_reference.so. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tabi/runtime.h>

#include "check.h"
#include "host_case.h"
#include "ref_nn_bn_check.h"
#include "tc_bn.cuh"

static long long checked_slots, exact_cases, checked_errors;

static const tabi_dtype FLOATS[4] = {TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT32,
                                     TABI_DTYPE_FLOAT64};
static const int THREADS[4] = {1, 5, 64, 256};
static const char *FORMS[3] = {"aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit.no_stats",
                               "aten::_native_batch_norm_legit_no_training"};

/* n values in [lo, lo + 4) (NaN, +-inf, -0.0 mixed in when `specials`). */
static std::vector<char> random_bytes(tabi_dtype dt, int64_t n, int specials, double lo = -2) {
  int esz = tcp_esz(dt);
  std::vector<char> b((size_t)(n * esz) + 8, 0);
  for (int64_t i = 0; i < n; i++) {
    double v = lo + urand() * 4;
    tcp_st(b.data() + i * esz, dt, specials ? host_special_or(v, 40) : v);
  }
  return b;
}

/* A 1-D parameter of C elements, as the kernel sees it: the tensor handed to
 * the reference (contiguous, or every other element of a [2C] buffer), its
 * memory (the whole buffer) and its element stride. */
struct Param {
  tabi_tensor *t = NULL, *base = NULL;
  std::vector<char> mem;
  int64_t stride = 1;
  tabi_dtype dt = TABI_DTYPE_FLOAT32;
};
static void make_param(Param *p, tabi_dtype dt, int64_t C, int strided, int specials, double lo) {
  p->dt = dt;
  std::vector<char> v = random_bytes(dt, C, specials, lo);
  p->t = host_laid_out(dt, tcp_esz(dt), 1, &C, strided ? 2 : 0, v, &p->base);
  p->stride = p->t->dl.strides[0];
  p->mem = host_bytes_of(p->base ? p->base : p->t);
}
static void release_param(Param *p) {
  if (p->t) tabi_tensor_release(p->t);
  if (p->base) tabi_tensor_release(p->base);
}

/* n elements of dtype dt: ours against theirs; bit-exact (NaN matching NaN)
 * when `exact`, else within the dtype's tolerance. Returns the count. */
static int64_t compare_bytes(const char *what, tabi_dtype dt, int64_t n, const char *ours, const char *theirs,
                             int exact) {
  int esz = tcp_esz(dt);
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n; i++) {
    int ok = exact ? host_same(ours + i * esz, theirs + i * esz, dt, esz) : host_close(ours + i * esz, theirs + i * esz, dt);
    if (!ok && first < 0) first = i;
    bad += !ok;
  }
  double fa = first >= 0 ? tcp_ld(ours + first * esz, dt) : 0, fb = first >= 0 ? tcp_ld(theirs + first * esz, dt) : 0;
  CHECK_MSG(bad == 0, "%s %s (%s): %lld of %lld differ; first at %lld: %.17g vs %.17g", what, tabi_dtype_name(dt),
            exact ? "exact" : "tolerance", (long long)bad, (long long)n, (long long)first, fa, fb);
  return n;
}

/* An output of ours (dtype dt, 1-D of n or x's shape) against the reference's tensor. */
static void compare_out(const char *what, tabi_dtype dt, int32_t nd, const int64_t *shape,
                        const std::vector<char> &ours, const tabi_value *rv, int exact) {
  const tabi_tensor *r = rv->tag == TABI_TAG_TENSOR ? rv->u.t : NULL;
  if (!host_same_shape(what, r, dt, nd, shape)) return;
  std::vector<char> theirs = host_bytes_of(r);
  int64_t n = numel_of(r);
  checked_elems += compare_bytes(what, dt, n, ours.data(), theirs.data(), exact);
  empty_cases += n == 0;
}

/* tc_bn.cu's launches, a block of T threads emulated phase by phase. rm/rv:
 * the running statistics' memory (NULL: absent), updated in place. */
static void emulate(const tcb_geom *g, int T, const char *x, const char *w, const char *b, char *rm, char *rv,
                    std::vector<char> *out, std::vector<char> *sm, std::vector<char> *si) {
  int64_t C = g->C, n = g->N * g->C * g->S;
  out->assign((size_t)(n * g->xsz) + 8, 0);
  sm->assign((size_t)((g->training ? C : 0) * g->ssz) + 8, 0);
  si->assign(sm->size(), 0);
  if (C == 0) return;
  std::vector<double> ms((size_t)(2 * C)), part((size_t)T);
  for (int64_t c = 0; c < C; c++) {
    if (!g->training) {
      tcb_chan_eval(g, c, rm, rv, ms.data()); /* one thread per channel */
      continue;
    }
    for (int t = 0; t < T; t++) tcb_sum_part(g, x, c, t, T, part.data());
    for (int h = tcb_tree_top(T); h > 0; h >>= 1)
      for (int t = 0; t < T; t++) tcb_tree_step(part.data(), t, T, h);
    double mu = tcb_mean(g, part.data());
    for (int t = 0; t < T; t++) tcb_dev_part(g, x, c, mu, t, T, part.data());
    for (int h = tcb_tree_top(T); h > 0; h >>= 1)
      for (int t = 0; t < T; t++) tcb_tree_step(part.data(), t, T, h);
    tcb_chan_train(g, c, mu, part[0], sm->data(), si->data(), rm, rv, ms.data());
  }
  for (int64_t i = 0; i < n; i++) tcb_elem(g, x, w, b, ms.data(), out->data(), i);
}

/* Boxed arguments of `form`. */
static int box(int form, tabi_tensor *x, tabi_tensor *w, tabi_tensor *b, tabi_tensor *rm, tabi_tensor *rv,
               int training, double momentum, double eps, tabi_value *a) {
  a[0] = tabi_tensor_value(x);
  a[1] = w ? tabi_tensor_value(w) : tabi_none();
  a[2] = b ? tabi_tensor_value(b) : tabi_none();
  if (form == REF_BN_NO_STATS) {
    a[3] = tabi_bool(training);
    a[4] = tabi_float(momentum);
    a[5] = tabi_float(eps);
    return 6;
  }
  a[3] = tabi_tensor_value(rm);
  a[4] = tabi_tensor_value(rv);
  if (form == REF_BN_NO_TRAINING) {
    a[5] = tabi_float(momentum);
    a[6] = tabi_float(eps);
    return 7;
  }
  a[5] = tabi_bool(training);
  a[6] = tabi_float(momentum);
  a[7] = tabi_float(eps);
  return 8;
}

/* --- one random case ---------------------------------------------------------------- */

static void bn_case(tabi_dtype dt, int mixed, int form, int mode, int64_t scale) {
  int32_t nd = (int32_t)irand(2, 5);
  int64_t shape[5], S = 1;
  shape[0] = irand(1, 3 * scale);
  shape[1] = irand(1, 5);
  for (int32_t i = 2; i < nd; i++) shape[i] = irand(1, nd == 3 ? 8 * scale : nd == 4 ? 2 * scale : 3);
  if (irand(0, 9) == 0) /* N*S = 1: the unbiased running variance is 0/0 */
    for (int32_t i = 0; i < nd; i++)
      if (i != 1) shape[i] = 1;
  if (irand(0, 24) == 0) shape[0] = 0;
  if (irand(0, 24) == 0 && nd > 2) shape[nd - 1] = 0;
  if (irand(0, 24) == 0) shape[1] = 0;
  for (int32_t i = 2; i < nd; i++) S *= shape[i];
  int64_t N = shape[0], C = shape[1], n = N * C * S;
  int training = form == REF_BN_NO_TRAINING ? 0 : form == REF_BN_NO_STATS ? 1 : (int)irand(0, 1);
  int specials = irand(0, 3) == 0;
  auto pdt = [&]() { return mixed && irand(0, 1) ? TABI_DTYPE_FLOAT32 : dt; };
  double momentum = irand(0, 4) == 0 ? (double)irand(0, 1) : urand();
  double eps = irand(0, 3) == 0 ? 0.0 : 1e-5;

  std::vector<char> xb = random_bytes(dt, n, specials);
  tabi_tensor *xbase, *x = host_laid_out(dt, tcp_esz(dt), nd, shape, mode, xb, &xbase);
  Param w, b, rm, rv;
  int has_w = irand(0, 3) != 0, has_b = irand(0, 3) != 0, has_stats = form != REF_BN_NO_STATS;
  if (has_w) make_param(&w, pdt(), C, irand(0, 1), specials, -2);
  if (has_b) make_param(&b, pdt(), C, irand(0, 1), specials, -2);
  if (has_stats) {
    make_param(&rm, pdt(), C, irand(0, 1), specials, -2);
    make_param(&rv, pdt(), C, irand(0, 1), specials, 0.05); /* a variance: positive but for specials */
  }
  std::vector<char> rm0 = rm.mem, rv0 = rv.mem; /* before the reference updates them in place */

  tabi_value a[8], o[3];
  int na = box(form, x, w.t, b.t, rm.t, rv.t, training, momentum, eps, a);
  tabi_status sr = host_call(FORMS[form], a, na, o, 3);
  CHECK_MSG(sr == TABI_OK, "%s: %s", FORMS[form], tabi_last_error());
  ref_bn_args ba;
  ref_bn_dims d;
  tabi_call call = fake_call(FORMS[form]);
  ref_nn_bn_args(a, form, &ba);
  tabi_status sc = ref_nn_bn_check(&FAKE, &call, &ba, &d);
  CHECK_MSG(sc == TABI_OK, "%s: check %d (%s)", FORMS[form], (int)sc, fake_msg);
  if (sr == TABI_OK && sc == TABI_OK) {
    CHECK(d.N == N && d.C == C && d.S == S);
    std::vector<char> rm_ref = has_stats ? host_bytes_of(rm.base ? rm.base : rm.t) : std::vector<char>();
    std::vector<char> rv_ref = has_stats ? host_bytes_of(rv.base ? rv.base : rv.t) : std::vector<char>();
    tcb_geom g;
    memset(&g, 0, sizeof g);
    tcb_init(&g, N, C, S, dt, d.sdt, has_w ? (int)w.dt : -1, w.stride, has_b ? (int)b.dt : -1, b.stride,
             has_stats ? (int)rm.dt : -1, rm.stride, has_stats ? (int)rv.dt : -1, rv.stride, training, momentum,
             eps);
    int64_t cs = training ? C : 0;
    for (int ti = 0; ti < 4; ti++) {
      int T = THREADS[ti], exact = !training || T == 1;
      std::vector<char> rmm = rm0, rvm = rv0, out, sm, si;
      emulate(&g, T, xb.data(), has_w ? w.mem.data() : NULL, has_b ? b.mem.data() : NULL,
              has_stats ? rmm.data() : NULL, has_stats ? rvm.data() : NULL, &out, &sm, &si);
      char what[160];
      snprintf(what, sizeof what, "%s %dD T=%d training=%d%s", FORMS[form], (int)nd, T, training,
               specials ? " specials" : "");
      compare_out(what, dt, nd, shape, out, &o[0], exact);
      compare_out(what, (tabi_dtype)d.sdt, 1, &cs, sm, &o[1], exact);
      compare_out(what, (tabi_dtype)d.sdt, 1, &cs, si, &o[2], exact);
      if (has_stats) { /* the whole buffers: the slots and the gaps between them */
        checked_slots += compare_bytes(what, rm.dt, (int64_t)(rm_ref.size() / (size_t)tcp_esz(rm.dt)),
                                       rmm.data(), rm_ref.data(), exact);
        checked_slots += compare_bytes(what, rv.dt, (int64_t)(rv_ref.size() / (size_t)tcp_esz(rv.dt)),
                                       rvm.data(), rv_ref.data(), exact);
      }
      checked_cases++;
      exact_cases += exact;
    }
  }
  for (int i = 0; i < 3; i++) tabi_value_release(&o[i]);
  tabi_tensor_release(x);
  if (xbase) tabi_tensor_release(xbase);
  release_param(&w);
  release_param(&b);
  release_param(&rm);
  release_param(&rv);
}

/* --- bad arguments -------------------------------------------------------------------- */

/* The reference's error through the runtime against the shared check's under
 * the stand-in host (valid argument sets are skipped). */
static void check_error(int form, tabi_value *a, int na) {
  tabi_value out[3];
  tabi_status sr = host_call(FORMS[form], a, na, out, 3);
  char rmsg[1024];
  snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
  for (int i = 0; i < 3; i++) tabi_value_release(&out[i]);
  if (sr == TABI_OK) return;
  ref_bn_args ba;
  ref_bn_dims d;
  tabi_call call = fake_call(FORMS[form]);
  ref_nn_bn_args(a, form, &ba);
  tabi_status sc = ref_nn_bn_check(&FAKE, &call, &ba, &d);
  checked_errors++;
  CHECK_MSG(sc == sr && strcmp(rmsg, fake_msg) == 0, "%s: check %d \"%s\", reference %d \"%s\"", FORMS[form],
            (int)sc, fake_msg, (int)sr, rmsg);
}

static void error_cases() {
  /* x candidates, then parameter candidates */
  struct Spec { tabi_dtype dt; int32_t nd; int64_t shape[3]; };
  const Spec specs[12] = {
      {TABI_DTYPE_FLOAT32, 2, {2, 3, 0}}, {TABI_DTYPE_FLOAT32, 3, {2, 3, 4}}, {TABI_DTYPE_FLOAT32, 1, {3, 0, 0}},
      {TABI_DTYPE_INT32, 2, {2, 3, 0}},   {TABI_DTYPE_FLOAT16, 2, {2, 3, 0}}, {TABI_DTYPE_FLOAT64, 3, {2, 3, 1}},
      {TABI_DTYPE_FLOAT32, 1, {3, 0, 0}}, {TABI_DTYPE_FLOAT64, 1, {3, 0, 0}}, {TABI_DTYPE_FLOAT16, 1, {3, 0, 0}},
      {TABI_DTYPE_FLOAT32, 1, {4, 0, 0}}, {TABI_DTYPE_FLOAT32, 2, {3, 1, 0}}, {TABI_DTYPE_INT64, 1, {3, 0, 0}}};
  tabi_tensor *t[12];
  for (int i = 0; i < 12; i++) {
    int64_t n = 1;
    for (int32_t j = 0; j < specs[i].nd; j++) n *= specs[i].shape[j];
    std::vector<char> z((size_t)(n * 8) + 8, 0);
    tabi_dtype dt = specs[i].dt;
    int esz = dt == TABI_DTYPE_INT32 ? 4 : dt == TABI_DTYPE_INT64 ? 8 : tcp_esz(dt);
    CHECK_OK(tabi_tensor_from_host(ref, CPU, dt, specs[i].nd, specs[i].shape, z.data(), (uint64_t)(n * esz),
                                   &t[i]));
  }
  for (int q = 0; q < 600; q++) {
    auto param = [&]() { return irand(0, 3) == 0 ? NULL : t[irand(0, 11)]; };
    int form = (int)irand(0, 2);
    tabi_tensor *x = t[irand(0, 5)], *rm = t[irand(0, 11)], *rv = irand(0, 1) ? t[irand(5, 11)] : rm;
    tabi_value a[8];
    int na = box(form, x, param(), param(), rm, rv, (int)irand(0, 1), 0.1, 1e-5, a);
    check_error(form, a, na);
  }
  /* The read-only branch, on the check itself (the runtime refuses read-only
   * (a!) arguments before a kernel runs): training refuses, evaluation reads. */
  tabi_tensor ro = *t[6];
  ro.flags |= TABI_TENSOR_READ_ONLY;
  const char *names[2] = {"running_mean", "running_var"};
  for (int which = 0; which < 2; which++)
    for (int training = 0; training < 2; training++) {
      tabi_value a[8];
      box(REF_BN_LEGIT, t[0], NULL, NULL, which ? t[6] : &ro, which ? &ro : t[6], training, 0.1, 1e-5, a);
      ref_bn_args ba;
      ref_bn_dims d;
      tabi_call call = fake_call(FORMS[REF_BN_LEGIT]);
      ref_nn_bn_args(a, REF_BN_LEGIT, &ba);
      tabi_status sc = ref_nn_bn_check(&FAKE, &call, &ba, &d);
      char want[256];
      snprintf(want, sizeof want,
               "aten::_native_batch_norm_legit: argument '%s' is read-only but is updated in training",
               names[which]);
      if (training)
        CHECK_MSG(sc == TABI_ERR_READ_ONLY && strcmp(fake_msg, want) == 0, "read-only %s: %d \"%s\"", names[which],
                  (int)sc, fake_msg);
      else
        CHECK_MSG(sc == TABI_OK, "read-only %s in evaluation: %d \"%s\"", names[which], (int)sc, fake_msg);
      checked_errors++;
    }
  for (int i = 0; i < 12; i++) tabi_tensor_release(t[i]);
}

/* The tree itself: any T folds T partials into part[0] (integers: exact). */
static void tree_cases() {
  for (int T = 1; T <= 300; T++) {
    std::vector<double> part((size_t)T);
    double want = 0;
    for (int t = 0; t < T; t++) want += part[(size_t)t] = (double)(t * 7 + 3);
    for (int h = tcb_tree_top(T); h > 0; h >>= 1)
      for (int t = 0; t < T; t++) tcb_tree_step(part.data(), t, T, h);
    CHECK_MSG(part[0] == want, "tree T=%d: %g, want %g", T, part[0], want);
  }
}

int main(int argc, char **argv) {
  if (!host_open(argc, argv)) return host_exit();
  rng = 0xb47c4a0e5d11f00dull;
  tree_cases();
  for (int round = 0; round < 2; round++) {
    int64_t scale = round ? 8 : 1;
    int reps = round ? 2 : 6;
    for (int mode = 0; mode < 3; mode++)
      for (int di = 0; di < 4; di++)
        for (int mixed = 0; mixed < (di < 2 ? 2 : 1); mixed++)
          for (int form = 0; form < 3; form++)
            for (int rep = 0; rep < reps; rep++) bn_case(FLOATS[di], mixed, form, mode, scale);
  }
  error_cases();
  printf("%lld emulated runs (%lld asserted bit-exact, %lld empty outputs): %lld output elements and %lld "
         "running-statistic slots compared; %lld bad-argument cases\n",
         checked_cases, exact_cases, empty_cases, checked_elems, checked_slots, checked_errors);
  return host_exit();
}
