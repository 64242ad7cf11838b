/* bench/cuda/bench_cuda.c: the CUDA plugin's benchmarks, timed with the device
 * table's events on the default stream (the stream every kernel runs on).
 * Prints one JSON object per line: {"name":..., "ms":..., "extra":...}.
 * usage: bench_cuda PLUGIN [DEVICE_TYPE [smoke]]
 * DEVICE_TYPE is the DLDeviceType number (default 2, kDLCUDA); "smoke" runs
 * every benchmark at a small size, to check the program itself on a machine
 * without a GPU (ctest bench_cuda_smoke runs it against gpusim, 12): a
 * mistake here would otherwise first show in a scarce GPU session.
 * Environment, for profilers (gpu_session.sh's profile phase), which want
 * a few launches of a few rows:
 *   BENCH_CUDA_ONLY   comma-separated parts of row names: only the rows
 *                     whose name holds one of them run
 *   BENCH_CUDA_ITERS  calls a row, and no warm-up calls (a profiler
 *                     times each kernel alone); default: 3 warm-up calls,
 *                     then each row's own 5-20 timed */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tabi/runtime.h>

static tabi_runtime *rt;
static const tabi_device_api *dev;
static DLDevice G = {kDLCUDA, 0};
static int smoke;
static const char *only; /* BENCH_CUDA_ONLY */
static int iters_env;    /* BENCH_CUDA_ITERS, or 0 */

/* Does row `name` run? */
static int want(const char *name) {
  if (!only || !*only) return 1;
  for (const char *p = only; *p;) {
    size_t n = strcspn(p, ",");
    if (n > 0) {
      char part[64];
      snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
      if (strstr(name, part)) return 1;
    }
    p += n + (p[n] == ',');
  }
  return 0;
}

/* The full size, or the small one in smoke mode. */
static int64_t sz(int64_t full, int64_t small) { return smoke ? small : full; }

static void die(const char *what) {
  fprintf(stderr, "bench_cuda: %s: %s\n", what, tabi_last_error());
  exit(1);
}

static tabi_tensor *randt(tabi_dtype dt, int32_t nd, const int64_t *shape) {
  tabi_op op;
  if (tabi_op_find(rt, "prims::uniform", &op)) die("find uniform");
  tabi_value a[5] = {tabi_int_list(shape, nd), tabi_float(-1), tabi_float(1), tabi_dtype_value(dt),
                     tabi_device_value(G)};
  tabi_value o = tabi_none();
  if (tabi_call(rt, op, a, 5, &o, 1)) die("uniform");
  return o.u.t;
}

typedef struct job {
  tabi_op op;
  tabi_value args[12];
  int32_t nargs, nouts;
} job;

static void run1(job *j) {
  tabi_value o[3] = {tabi_none(), tabi_none(), tabi_none()};
  if (tabi_call(rt, j->op, j->args, j->nargs, o, j->nouts)) die("call");
  for (int i = 0; i < 3; i++) tabi_value_release(&o[i]);
}

/* median-free simple timing: warm up, then `iters` calls between two events */
static double time_ms(job *j, int iters) {
  if (iters_env > 0) iters = iters_env;
  for (int i = 0; i < (iters_env > 0 ? 0 : 3); i++) run1(j);
  tabi_event e0, e1;
  dev->event_create(dev->ctx, 0, &e0);
  dev->event_create(dev->ctx, 0, &e1);
  dev->event_record(dev->ctx, 0, e0, NULL);
  for (int i = 0; i < iters; i++) run1(j);
  dev->event_record(dev->ctx, 0, e1, NULL);
  dev->event_synchronize(dev->ctx, 0, e1);
  double ms = 0;
  dev->event_elapsed_ms(dev->ctx, 0, e0, e1, &ms);
  dev->event_destroy(dev->ctx, 0, e0);
  dev->event_destroy(dev->ctx, 0, e1);
  return ms / iters;
}

/* Host microseconds per call of j, called back to back: what dispatching and
 * launching cost while the device keeps up (PyTorch's loop in bench_torch.py
 * is the same: warm-up, a synchronize, then calls without one). */
static double host_us(job *j) {
  for (int i = 0; i < (int)sz(1000, 10); i++) run1(j);
  dev->synchronize(dev->ctx, 0);
  struct timespec t0, t1;
  int iters = iters_env > 0 ? iters_env : (int)sz(20000, 100);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < iters; i++) run1(j);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  dev->synchronize(dev->ctx, 0);
  return ((double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3) / iters;
}

/* Row `name`: job j timed over `iters` calls and printed, with a rate
 * (`unit`: work / ms, work in the unit's per-millisecond scale) when unit
 * is not NULL; nothing when BENCH_CUDA_ONLY leaves the row out. */
static void row(const char *name, job *j, int iters, const char *unit, double work) {
  if (!want(name)) return;
  double ms = time_ms(j, iters);
  if (unit) printf("{\"name\": \"%s\", \"ms\": %.4f, \"%s\": %.1f}\n", name, ms, unit, work / ms);
  else printf("{\"name\": \"%s\", \"ms\": %.4f}\n", name, ms);
}

static job mk(const char *name, int nouts) {
  job j;
  memset(&j, 0, sizeof j);
  if (tabi_op_find(rt, name, &j.op)) die(name);
  j.nouts = nouts;
  return j;
}

/* A job of three arguments, the shape of most rows. */
static job mk3(const char *name, int nouts, tabi_value a0, tabi_value a1, tabi_value a2) {
  job j = mk(name, nouts);
  j.args[0] = a0;
  j.args[1] = a1;
  j.args[2] = a2;
  j.nargs = 3;
  return j;
}

/* randperm(n) as int64 on the device */
static job randperm_job(int64_t n) {
  job j = mk("aten::randperm", 1);
  j.args[0] = tabi_int(n);
  j.args[1] = tabi_dtype_value(TABI_DTYPE_INT64);
  j.args[2] = tabi_none();
  j.args[3] = tabi_device_value(G);
  j.args[4] = tabi_none();
  j.nargs = 5;
  return j;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  if (argc > 2) G.device_type = (DLDeviceType)atoi(argv[2]);
  smoke = argc > 3 && strcmp(argv[3], "smoke") == 0;
  only = getenv("BENCH_CUDA_ONLY");
  iters_env = getenv("BENCH_CUDA_ITERS") ? atoi(getenv("BENCH_CUDA_ITERS")) : 0;
  if (tabi_runtime_create(NULL, &rt)) die("runtime");
  if (tabi_runtime_load_plugin(rt, argv[1], NULL)) die("load");
  int32_t n = 0;
  tabi_runtime_device_count(rt, G.device_type, &n);
  if (n <= 0) {
    printf("{\"skip\": \"no device of type %d\"}\n", (int)G.device_type);
    return 0;
  }
  const tabi_host_api *h = tabi_runtime_host(rt);
  if (h->device_get(h->ctx, G.device_type, &dev)) die("device");
  tabi_device_props p;
  memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  dev->properties(dev->ctx, 0, &p);
  printf("{\"gpu\": \"%s\"}\n", p.name);

  /* host cost of dispatching a 1-element add */
  int64_t one[1] = {1};
  tabi_tensor *u = randt(TABI_DTYPE_FLOAT32, 1, one), *v = randt(TABI_DTYPE_FLOAT32, 1, one);
  job add1 = mk3("aten::add.Tensor", 1, tabi_tensor_value(u), tabi_tensor_value(v), tabi_int(1));
  if (want("dispatch_add_1elem")) printf("{\"name\": \"dispatch_add_1elem\", \"us\": %.3f}\n", host_us(&add1));
  tabi_tensor_release(u);
  tabi_tensor_release(v);
  /* and of a small addmm with a bias row (a linear layer of batch 64): the
   * cuBLASLt path, its heuristic answer cached after the first call */
  int64_t s64[2] = {64, 64}, n64[1] = {64};
  tabi_tensor *la = randt(TABI_DTYPE_FLOAT32, 2, s64), *lm = randt(TABI_DTYPE_FLOAT32, 2, s64),
              *lbias = randt(TABI_DTYPE_FLOAT32, 1, n64);
  job lin = mk3("aten::addmm", 1, tabi_tensor_value(lbias), tabi_tensor_value(la), tabi_tensor_value(lm));
  lin.args[3] = tabi_int(1);
  lin.args[4] = tabi_int(1);
  lin.nargs = 5;
  if (want("dispatch_addmm_bias_64"))
    printf("{\"name\": \"dispatch_addmm_bias_64\", \"us\": %.3f}\n", host_us(&lin));
  tabi_tensor_release(la);
  tabi_tensor_release(lm);
  tabi_tensor_release(lbias);
  /* add float32 over 2^28 elements vs a device-to-device copy of the same bytes */
  int64_t big[1] = {sz((int64_t)1 << 28, 1 << 16)};
  tabi_tensor *x = randt(TABI_DTYPE_FLOAT32, 1, big), *y = randt(TABI_DTYPE_FLOAT32, 1, big);
  job add = mk3("aten::add.Tensor", 1, tabi_tensor_value(x), tabi_tensor_value(y), tabi_int(1));
  uint64_t bytes = (uint64_t)big[0] * 4;
  if (want("add_f32_2^28") || want("copy_d2d_2^28")) { /* the copy is add's yardstick: both or neither */
    double add_ms = time_ms(&add, 20), copy_ms = 0;
    tabi_event e0, e1;
    dev->event_create(dev->ctx, 0, &e0);
    dev->event_create(dev->ctx, 0, &e1);
    for (int i = 0; i < 3; i++) dev->copy(dev->ctx, tabi_tensor_data(y), G, tabi_tensor_data(x), G, bytes, NULL);
    dev->event_record(dev->ctx, 0, e0, NULL);
    for (int i = 0; i < 20; i++) dev->copy(dev->ctx, tabi_tensor_data(y), G, tabi_tensor_data(x), G, bytes, NULL);
    dev->event_record(dev->ctx, 0, e1, NULL);
    dev->event_synchronize(dev->ctx, 0, e1);
    dev->event_elapsed_ms(dev->ctx, 0, e0, e1, &copy_ms);
    dev->event_destroy(dev->ctx, 0, e0);
    dev->event_destroy(dev->ctx, 0, e1);
    copy_ms /= 20;
    printf("{\"name\": \"add_f32_2^28\", \"ms\": %.4f, \"gbps\": %.1f}\n", add_ms, 3.0 * bytes / add_ms / 1e6);
    printf("{\"name\": \"copy_d2d_2^28\", \"ms\": %.4f, \"gbps\": %.1f}\n", copy_ms,
           2.0 * bytes / copy_ms / 1e6);
  }
  /* aten elementwise ops that now run in one launch (no bar in issue 7) */
  {
    job ge = mk3("aten::gelu", 1, tabi_tensor_value(x), tabi_string("none", 4), tabi_none());
    ge.nargs = 2;
    row("gelu_f32_2^28", &ge, 20, "gbps", 2.0 * bytes / 1e6);
    job ms2 = mk3("aten::mul.Scalar", 1, tabi_tensor_value(x), tabi_float(2.5), tabi_none());
    ms2.nargs = 2;
    row("mul_scalar_f32_2^28", &ms2, 20, "gbps", 2.0 * bytes / 1e6);
    tabi_tensor *xh = randt(TABI_DTYPE_FLOAT16, 1, big);
    job re = mk3("aten::relu", 1, tabi_tensor_value(xh), tabi_none(), tabi_none());
    re.nargs = 1;
    row("relu_f16_2^28", &re, 20, "gbps", 1.0 * bytes / 1e6);
    /* native_dropout: one pass (draw, compare, mask, scale) since 2026-11-24 */
    job dr = mk3("aten::native_dropout", 2, tabi_tensor_value(x), tabi_float(0.1), tabi_bool(1));
    row("native_dropout_f32_2^28", &dr, 20, "gbps", 2.25 * bytes / 1e6);
    /* a float32 -> float16 conversion: the elementwise engine's flat kernel */
    job cv = mk3("prims::convert_element_type", 1, tabi_tensor_value(x),
                 tabi_dtype_value(TABI_DTYPE_FLOAT16), tabi_none());
    cv.nargs = 2;
    row("to_f16_f32_2^28", &cv, 20, "gbps", 1.5 * bytes / 1e6);
    tabi_tensor_release(xh);
    /* factories on the device (tc_create.cu, 2026-11-29; before, a host
     * build and a copy): a value whose bytes do not repeat (the word
     * kernel), and zeros (cudaMemsetAsync) */
    for (int z = 0; z < 2; z++) {
      job fu = mk3("aten::full", 1, tabi_int_list(big, 1), z ? tabi_int(0) : tabi_float(1.5),
                   tabi_dtype_value(TABI_DTYPE_FLOAT32));
      fu.args[3] = tabi_none();
      fu.args[4] = tabi_device_value(G);
      fu.args[5] = tabi_none();
      fu.nargs = 6;
      row(z ? "zeros_f32_2^28" : "full_f32_2^28", &fu, 20, "gbps", 1.0 * bytes / 1e6);
    }
  }
  /* reductions, positions, scans and sorts (no bar in issue 7; beside torch) */
  {
    /* aten::sum lowers to prims::sum (through the decomp plugin, not loaded here) */
    job sum = mk3("prims::sum", 1, tabi_tensor_value(x), tabi_none(), tabi_none());
    row("sum_f32_2^28", &sum, 20, "gbps", (double)bytes / 1e6);
    job am = mk3("aten::argmax", 1, tabi_tensor_value(x), tabi_none(), tabi_bool(0));
    row("argmax_f32_2^28", &am, 20, NULL, 0);
    /* 70000 in smoke mode: past tc_sort.cu's RX_MIN, so the radix sort runs */
    int64_t sq0[2] = {sz(8192, 96), sz(8192, 96)}, d0[1] = {0}, n24[1] = {sz((int64_t)1 << 24, 70000)};
    tabi_tensor *m2 = randt(TABI_DTYPE_FLOAT32, 2, sq0), *v24 = randt(TABI_DTYPE_FLOAT32, 1, n24);
    sum.args[0] = tabi_tensor_value(m2);
    sum.args[1] = tabi_int_list(d0, 1);
    row("sum_dim0_8192x8192_f32", &sum, 20, NULL, 0);
    job cs = mk3("aten::cumsum", 1, tabi_tensor_value(v24), tabi_int(0), tabi_none());
    row("cumsum_f32_2^24", &cs, 20, NULL, 0);
    job so = mk3("aten::sort", 2, tabi_tensor_value(v24), tabi_int(0), tabi_bool(0));
    row("sort_f32_2^24", &so, 5, NULL, 0);
    tabi_tensor_release(m2);
    tabi_tensor_release(v24);
    /* randperm: Fisher-Yates's permutation in parallel rounds (one thread
       before 2026-11-24); 8192 is the largest that one block does alone */
    int64_t rpn[2] = {sz((int64_t)1 << 24, 20000), 8192};
    const char *rpname[2] = {"randperm_2^24", "randperm_8192"};
    for (int k = 0; k < 2; k++) {
      job rp = randperm_job(rpn[k]);
      row(rpname[k], &rp, 10, NULL, 0);
    }
    /* cat of 64 [256, 1024] float32 tensors along dim 1: one batched launch
       (prims::cat; aten::cat lowers to it through the decomp plugin) */
    int64_t cs64[2] = {sz(256, 4), sz(1024, 8)};
    tabi_tensor *parts[64];
    for (int k = 0; k < 64; k++) parts[k] = randt(TABI_DTYPE_FLOAT32, 2, cs64);
    job ct = mk3("prims::cat", 1, tabi_tensor_list(parts, 64), tabi_int(1), tabi_none());
    ct.nargs = 2;
    row("cat_64x256x1024_f32", &ct, 20, "gbps", 2.0 * 64 * 4 * (double)(cs64[0] * cs64[1]) / 1e6);
    for (int k = 0; k < 64; k++) tabi_tensor_release(parts[k]);
    /* an embedding lookup: 8192 distinct random rows of a [50257, 1024]
       float32 table (index_select along dim 0; a block a row since stop 35).
       The call reads the index back to check it on the host, as every
       indexing op does to give the reference's error for the first bad
       value: a synchronization torch's device-side assert does not make.
       GB/s: the rows read and written */
    {
      int64_t es[2] = {sz(50257, 300), sz(1024, 96)}, ni = sz(8192, 50), one1 = 1;
      tabi_tensor *tab = randt(TABI_DTYPE_FLOAT32, 2, es), *iv = NULL;
      job rp = randperm_job(es[0]);
      tabi_value po = tabi_none();
      if (tabi_call(rt, rp.op, rp.args, 5, &po, 1)) die("randperm");
      if (tabi_tensor_view(rt, po.u.t, 1, &ni, &one1, 0, &iv)) die("view");
      job is = mk3("aten::index_select", 1, tabi_tensor_value(tab), tabi_int(0), tabi_tensor_value(iv));
      row("index_select_8192_of_50257x1024_f32", &is, 20, "gbps", 2.0 * 4 * (double)(ni * es[1]) / 1e6);
      tabi_tensor_release(iv);
      tabi_value_release(&po);
      tabi_tensor_release(tab);
    }
  }
  tabi_tensor_release(x);
  tabi_tensor_release(y);

  /* softmax and layer norm on 8192 x 8192 float32 */
  int64_t S = sz(8192, 96), sq[2] = {S, S};
  tabi_tensor *s = randt(TABI_DTYPE_FLOAT32, 2, sq);
  job sm = mk3("aten::_softmax", 1, tabi_tensor_value(s), tabi_int(1), tabi_bool(0));
  row("softmax_8192x8192_f32", &sm, 20, NULL, 0);
  /* log_softmax over a vocabulary's logits (GPT-2's 50257; 4096 rows):
     past the register kernels, tc_nn.cu's softmax_long_kernel (stop 35;
     before, three reads of the row in double). GB/s: one read and one
     write of the tensor */
  {
    int64_t vs[2] = {sz(4096, 3), sz(50257, 20001)};
    tabi_tensor *lg = randt(TABI_DTYPE_FLOAT32, 2, vs);
    job ls = mk3("aten::_log_softmax", 1, tabi_tensor_value(lg), tabi_int(1), tabi_bool(0));
    row("log_softmax_4096x50257_f32", &ls, 20, "gbps", 2.0 * 4 * (double)(vs[0] * vs[1]) / 1e6);
    tabi_tensor_release(lg);
  }
  int64_t ns[1] = {S};
  tabi_tensor *w = randt(TABI_DTYPE_FLOAT32, 1, ns), *b = randt(TABI_DTYPE_FLOAT32, 1, ns);
  job ln = mk("aten::native_layer_norm", 3);
  ln.args[0] = tabi_tensor_value(s);
  ln.args[1] = tabi_int_list(ns, 1);
  ln.args[2] = tabi_tensor_value(w);
  ln.args[3] = tabi_tensor_value(b);
  ln.args[4] = tabi_float(1e-5);
  ln.nargs = 5;
  row("layer_norm_8192x8192_f32", &ln, 20, NULL, 0);
  /* its backward, every output: grad_weight/grad_bias sum 8192 rows each, in
     split partial sums since 2026-11-29 (one thread per element before) */
  {
    tabi_value lo[3] = {tabi_none(), tabi_none(), tabi_none()};
    if (tabi_call(rt, ln.op, ln.args, ln.nargs, lo, 3)) die("layer_norm");
    int64_t all[3] = {1, 1, 1};
    job lb = mk("aten::native_layer_norm_backward", 3);
    lb.args[0] = tabi_tensor_value(s); /* grad_out: any values */
    lb.args[1] = tabi_tensor_value(s);
    lb.args[2] = tabi_int_list(ns, 1);
    lb.args[3] = lo[1];
    lb.args[4] = lo[2];
    lb.args[5] = tabi_tensor_value(w);
    lb.args[6] = tabi_tensor_value(b);
    lb.args[7] = tabi_bool_list(all, 3);
    lb.nargs = 8;
    row("layer_norm_backward_8192x8192_f32", &lb, 20, NULL, 0);
    for (int i = 0; i < 3; i++) tabi_value_release(&lo[i]);
  }
  /* a transposed copy (x.t().contiguous()): the strided elementwise engine,
     untiled, so one side of it is read or written S elements apart */
  {
    int64_t tsh[2] = {S, S}, tst[2] = {1, S}, cst[2] = {S, 1};
    tabi_tensor *st = NULL, *dst = NULL;
    if (tabi_tensor_view(rt, s, 2, tsh, tst, 0, &st)) die("view");
    if (tabi_tensor_empty_strided(rt, G, TABI_DTYPE_FLOAT32, 2, tsh, cst, &dst)) die("empty_strided");
    job tc = mk3("prims::copy_to", 1, tabi_tensor_value(dst), tabi_tensor_value(st), tabi_none());
    tc.nargs = 2;
    row("copy_transposed_8192x8192_f32", &tc, 20, "gbps", 2.0 * 4 * (double)S * (double)S / 1e6);
    tabi_tensor_release(st);
    tabi_tensor_release(dst);
  }
  tabi_tensor_release(s);
  tabi_tensor_release(w);
  tabi_tensor_release(b);

  /* mm 8192^3 */
  const tabi_dtype mdt[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_BFLOAT16, TABI_DTYPE_FLOAT16};
  const char *mnm[3] = {"f32", "bf16", "f16"};
  for (int k = 0; k < 3; k++) {
    tabi_tensor *a = randt(mdt[k], 2, sq), *m = randt(mdt[k], 2, sq);
    job mm = mk("aten::mm", 1);
    mm.args[0] = tabi_tensor_value(a);
    mm.args[1] = tabi_tensor_value(m);
    mm.nargs = 2;
    char name[32];
    snprintf(name, sizeof name, "mm_8192^3_%s", mnm[k]);
    row(name, &mm, 10, "tflops", 2.0 * (double)S * (double)S * (double)S / 1e9);
    if (k == 1) { /* addmm with a bias row: cuBLASLt's bias epilogue (since 2026-11-29) */
      int64_t ns1[1] = {S};
      tabi_tensor *bias = randt(mdt[k], 1, ns1);
      job am = mk3("aten::addmm", 1, tabi_tensor_value(bias), tabi_tensor_value(a), tabi_tensor_value(m));
      am.args[3] = tabi_int(1);
      am.args[4] = tabi_int(1);
      am.nargs = 5;
      row("addmm_bias_8192^3_bf16", &am, 10, "tflops", 2.0 * (double)S * (double)S * (double)S / 1e9);
      tabi_tensor_release(bias);
    }
    tabi_tensor_release(a);
    tabi_tensor_release(m);
  }

  /* convolution: ResNet-50 3x3 layer, N=64, C=K=256, 56x56, padding 1 */
  {
    int64_t N = sz(64, 2), C = sz(256, 8), HW = sz(56, 6);
    int64_t xs[4] = {N, C, HW, HW}, wsh[4] = {C, C, 3, 3};
    int64_t one1[1] = {1}, zero1[1] = {0};
    const tabi_dtype cdt[2] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16};
    const char *cnm[2] = {"conv_resnet3x3_f32_nchw", "conv_resnet3x3_f16_nhwc"};
    for (int k = 0; k < 2; k++) {
      tabi_tensor *xi = randt(cdt[k], 4, xs), *wi = randt(cdt[k], 4, wsh);
      if (k == 1) { /* channels-last copies */
        int64_t xst[4] = {C * HW * HW, 1, HW * C, C}, wst[4] = {C * 9, 1, 3 * C, C};
        tabi_tensor *xc = NULL, *wc = NULL;
        tabi_tensor_empty_strided(rt, G, cdt[k], 4, xs, xst, &xc);
        tabi_tensor_empty_strided(rt, G, cdt[k], 4, wsh, wst, &wc);
        tabi_op cp;
        tabi_op_find(rt, "prims::copy_to", &cp);
        tabi_value a1[2] = {tabi_tensor_value(xc), tabi_tensor_value(xi)}, o1 = tabi_none();
        tabi_value a2[2] = {tabi_tensor_value(wc), tabi_tensor_value(wi)}, o2 = tabi_none();
        if (tabi_call(rt, cp, a1, 2, &o1, 1) || tabi_call(rt, cp, a2, 2, &o2, 1)) die("copy_to");
        tabi_value_release(&o1);
        tabi_value_release(&o2);
        tabi_tensor_release(xi);
        tabi_tensor_release(wi);
        xi = xc;
        wi = wc;
      }
      job cv = mk("aten::convolution", 1);
      cv.args[0] = tabi_tensor_value(xi);
      cv.args[1] = tabi_tensor_value(wi);
      cv.args[2] = tabi_none();
      cv.args[3] = tabi_int_list(one1, 1);
      cv.args[4] = tabi_int_list(one1, 1);
      cv.args[5] = tabi_int_list(one1, 1);
      cv.args[6] = tabi_bool(0);
      cv.args[7] = tabi_int_list(zero1, 1);
      cv.args[8] = tabi_int(1);
      cv.nargs = 9;
      row(cnm[k], &cv, 10, "tflops", 2.0 * (double)(N * C * C * 9 * HW * HW) / 1e9);
      tabi_tensor_release(xi);
      tabi_tensor_release(wi);
    }
  }

  /* FFT of 2^24 float32 points: r2c (onesided) and c2r back */
  {
    int64_t fn[1] = {sz((int64_t)1 << 24, 1 << 12)}, d0[1] = {0};
    tabi_tensor *xr = randt(TABI_DTYPE_FLOAT32, 1, fn);
    job r2c = mk("aten::_fft_r2c", 1);
    r2c.args[0] = tabi_tensor_value(xr);
    r2c.args[1] = tabi_int_list(d0, 1);
    r2c.args[2] = tabi_int(0);
    r2c.args[3] = tabi_bool(1);
    r2c.nargs = 4;
    row("fft_r2c_2^24_f32", &r2c, 20, NULL, 0);
    tabi_value o = tabi_none();
    if (tabi_call(rt, r2c.op, r2c.args, 4, &o, 1)) die("r2c");
    job c2r = mk("aten::_fft_c2r", 1);
    c2r.args[0] = o;
    c2r.args[1] = tabi_int_list(d0, 1);
    c2r.args[2] = tabi_int(2);
    c2r.args[3] = tabi_int(fn[0]);
    c2r.nargs = 4;
    row("fft_c2r_2^24_f32", &c2r, 20, NULL, 0);
    tabi_value_release(&o);
    tabi_tensor_release(xr);
  }

  tabi_runtime_destroy(rt);
  return 0;
}
