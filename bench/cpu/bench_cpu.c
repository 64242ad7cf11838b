/* bench/cpu/bench_cpu.c: times tabi's CPU plugin on the issue-5 cases, plus
 * oneDNN called directly (mm, convolution: the ceiling) and a plain memcpy
 * (the bandwidth the elementwise ops are measured against).
 *
 * Prints one line per case, "name<TAB>milliseconds" (the median of --iters
 * runs after a warm-up), which run.sh joins with bench_torch.py's output.
 *
 * usage: bench_cpu --plugin PATH [--iters N] [--small] [--only SUBSTR]
 * The thread count is the plugin's: TABI_NUM_THREADS or the cores present.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

#include <tabi/runtime.h>

#ifdef TABI_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.h>
extern void omp_set_num_threads(int n);
#endif

static const DLDevice cpu = {kDLCPU, 0};
static int iters = 10;
static int small = 0;
static const char *only = NULL;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static uint64_t rs = 12345;
static double urand(void) {
  rs = rs * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rs >> 11) / (double)(1ull << 53);
}

/* A tensor filled with uniform [-1, 1) (floats) or [0, hi) (int64). */
static tabi_tensor *tensor(tabi_runtime *rt, tabi_dtype dt, int32_t nd, const int64_t *shape,
                           int64_t hi) {
  tabi_tensor *t = NULL;
  if (tabi_tensor_empty(rt, cpu, dt, nd, shape, &t) != TABI_OK) {
    fprintf(stderr, "bench: %s\n", tabi_last_error());
    exit(2);
  }
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  char *p = tabi_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double v = urand();
    switch (dt) {
      case TABI_DTYPE_FLOAT32: ((float *)p)[i] = (float)(2 * v - 1); break;
      case TABI_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)(v * (double)hi); break;
      case TABI_DTYPE_FLOAT16: ((uint16_t *)p)[i] = (uint16_t)(0x3800 + (int)(v * 1000)); break;
      case TABI_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = (uint16_t)(0x3f00 + (int)(v * 100)); break;
      default: break;
    }
  }
  return t;
}

static void report(const char *name, double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_d);
  printf("%s\t%.4f\n", name, t[n / 2]);
  fflush(stdout);
}

static int wanted(const char *name) { return !only || strstr(name, only) != NULL; }

/* Times op(args) `iters` times after one warm-up, releasing outputs each time. */
static void bench_op(tabi_runtime *rt, const char *name, const char *opname, tabi_value *args,
                     int32_t nargs, int32_t nouts) {
  if (!wanted(name)) return;
  tabi_op op;
  if (tabi_op_find(rt, opname, &op) != TABI_OK) { fprintf(stderr, "%s: no op\n", opname); return; }
  double t[64];
  for (int i = -1; i < iters; i++) {
    tabi_value outs[3];
    double t0 = now_ms();
    tabi_status st = tabi_call(rt, op, args, nargs, outs, nouts);
    double t1 = now_ms();
    if (st != TABI_OK) { fprintf(stderr, "%s: %s\n", name, tabi_last_error()); return; }
    for (int32_t o = 0; o < nouts; o++) tabi_value_release(&outs[o]);
    if (i >= 0) t[i] = t1 - t0;
  }
  report(name, t, iters);
}

/* The copy bandwidth ceiling: memcpy on one thread and split over the plugin's
 * thread count (persistent threads meeting at a barrier, so only the copy is
 * timed); memcpy_f32 is the faster of the two, the stricter ceiling. */
typedef struct copy_part {
  pthread_barrier_t *start, *done;
  const char *src;
  char *dst;
  size_t bytes;
  int rounds;
} copy_part;

static void *copy_worker(void *arg) {
  copy_part *p = arg;
  for (int r = 0; r < p->rounds; r++) {
    pthread_barrier_wait(p->start);
    memcpy(p->dst, p->src, p->bytes);
    pthread_barrier_wait(p->done);
  }
  return NULL;
}

static int bench_threads(void) {
  const char *s = getenv("TABI_NUM_THREADS");
  long n = s && atoi(s) > 0 ? atoi(s) : sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static double copy_threaded(const char *a, char *b, size_t bytes, int nt) {
  pthread_barrier_t start, done;
  pthread_barrier_init(&start, NULL, (unsigned)nt);
  pthread_barrier_init(&done, NULL, (unsigned)nt);
  copy_part parts[64];
  pthread_t th[64];
  int rounds = iters + 1;
  for (int w = 0; w < nt; w++) {
    size_t lo = bytes * (size_t)w / (size_t)nt / 64 * 64;
    size_t hi = w == nt - 1 ? bytes : bytes * (size_t)(w + 1) / (size_t)nt / 64 * 64;
    parts[w] = (copy_part){&start, &done, a + lo, b + lo, hi - lo, rounds};
  }
  int started = 1;
  for (int w = 1; w < nt; w++)
    if (pthread_create(&th[w], NULL, copy_worker, &parts[w]) == 0) started++;
  double t[64], best = -1;
  if (started == nt) {
    for (int i = -1; i < iters; i++) {
      pthread_barrier_wait(&start);
      double t0 = now_ms();
      memcpy(parts[0].dst, parts[0].src, parts[0].bytes);
      pthread_barrier_wait(&done);
      double t1 = now_ms();
      if (i >= 0) t[i] = t1 - t0;
    }
    qsort(t, (size_t)iters, sizeof *t, cmp_d);
    best = t[iters / 2];
  }
  for (int w = 1; w < started; w++) pthread_join(th[w], NULL);
  pthread_barrier_destroy(&start);
  pthread_barrier_destroy(&done);
  return best;
}

static void bench_memcpy(int64_t n) { /* always: the bandwidth notes need it */
  size_t bytes = sizeof(float) * (size_t)n;
  char *a = malloc(bytes), *b = malloc(bytes);
  if (!a || !b) { free(a); free(b); return; }
  memset(a, 1, bytes);
  memset(b, 0, bytes);
  double t[64];
  for (int i = -1; i < iters; i++) {
    double t0 = now_ms();
    memcpy(b, a, bytes);
    double t1 = now_ms();
    if (i >= 0) t[i] = t1 - t0;
  }
  qsort(t, (size_t)iters, sizeof *t, cmp_d);
  double one = t[iters / 2], par = bench_threads() > 1 ? copy_threaded(a, b, bytes, bench_threads()) : -1;
  printf("memcpy1_f32\t%.4f\nmemcpyT_f32\t%.4f\n", one, par > 0 ? par : one);
  printf("memcpy_f32\t%.4f\n", par > 0 && par < one ? par : one);
  fflush(stdout);
  free(a);
  free(b);
}

#ifdef TABI_BENCH_ONEDNN
/* oneDNN directly: primitives built once, memory in the layouts they choose,
 * only execution timed: the ceiling for mm and convolution. */
static int dnnl_threads(void) {
  const char *s = getenv("TABI_NUM_THREADS");
  return s && atoi(s) > 0 ? atoi(s) : 0;
}

static dnnl_memory_t mem_for(dnnl_engine_t e, const dnnl_memory_desc_t *md) {
  dnnl_memory_t m;
  dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE);
  return m;
}

static void time_prim(const char *name, dnnl_primitive_t p, dnnl_stream_t s, int nargs,
                      dnnl_exec_arg_t *args) {
  double t[64];
  for (int i = -1; i < iters; i++) {
    double t0 = now_ms();
    dnnl_primitive_execute(p, s, nargs, args);
    dnnl_stream_wait(s);
    double t1 = now_ms();
    if (i >= 0) t[i] = t1 - t0;
  }
  report(name, t, iters);
}

static void dnnl_mm(dnnl_engine_t e, dnnl_stream_t s, const char *name, int64_t n) {
  if (!wanted(name)) return;
  dnnl_dims_t d = {n, n};
  dnnl_memory_desc_t md;
  dnnl_memory_desc_init_by_tag(&md, 2, d, dnnl_f32, dnnl_ab);
  dnnl_matmul_desc_t desc;
  dnnl_matmul_desc_init(&desc, &md, &md, NULL, &md);
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t p;
  if (dnnl_primitive_desc_create(&pd, &desc, NULL, e, NULL) != dnnl_success) return;
  dnnl_primitive_create(&p, pd);
  dnnl_memory_t a = mem_for(e, &md), b = mem_for(e, &md), c = mem_for(e, &md);
  dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
  time_prim(name, p, s, 3, args);
  dnnl_memory_destroy(a); dnnl_memory_destroy(b); dnnl_memory_destroy(c);
  dnnl_primitive_destroy(p);
  dnnl_primitive_desc_destroy(pd);
}

static void dnnl_conv(dnnl_engine_t e, dnnl_stream_t s, int64_t n, int64_t c, int64_t hw) {
  dnnl_dims_t xd = {n, c, hw, hw}, wd = {c, c, 3, 3}, yd = {n, c, hw, hw};
  dnnl_dims_t st = {1, 1}, dil = {0, 0}, pad = {1, 1};
  dnnl_memory_desc_t x, w, y;
  dnnl_memory_desc_init_by_tag(&x, 4, xd, dnnl_f32, dnnl_format_tag_any);
  dnnl_memory_desc_init_by_tag(&w, 4, wd, dnnl_f32, dnnl_format_tag_any);
  dnnl_memory_desc_init_by_tag(&y, 4, yd, dnnl_f32, dnnl_format_tag_any);
  dnnl_convolution_desc_t fd, bd, wdsc;
  dnnl_primitive_desc_t fpd, bpd, wpd;
  dnnl_dilated_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &x,
                                             &w, NULL, &y, st, dil, pad, pad);
  if (dnnl_primitive_desc_create(&fpd, &fd, NULL, e, NULL) != dnnl_success) return;
  dnnl_dilated_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &x, &w, &y, st, dil,
                                                   pad, pad);
  dnnl_dilated_convolution_backward_weights_desc_init(&wdsc, dnnl_convolution_direct, &x, &w, NULL,
                                                      &y, st, dil, pad, pad);
  dnnl_primitive_desc_create(&bpd, &bd, NULL, e, fpd);
  dnnl_primitive_desc_create(&wpd, &wdsc, NULL, e, fpd);
  dnnl_primitive_t fp, bp, wp;
  dnnl_primitive_create(&fp, fpd);
  dnnl_primitive_create(&bp, bpd);
  dnnl_primitive_create(&wp, wpd);
  dnnl_memory_t mx = mem_for(e, dnnl_primitive_desc_query_md(fpd, dnnl_query_src_md, 0));
  dnnl_memory_t mw = mem_for(e, dnnl_primitive_desc_query_md(fpd, dnnl_query_weights_md, 0));
  dnnl_memory_t my = mem_for(e, dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0));
  dnnl_memory_t mdx = mem_for(e, dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0));
  dnnl_memory_t mdy = mem_for(e, dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0));
  dnnl_memory_t mw2 = mem_for(e, dnnl_primitive_desc_query_md(bpd, dnnl_query_weights_md, 0));
  dnnl_memory_t mx3 = mem_for(e, dnnl_primitive_desc_query_md(wpd, dnnl_query_src_md, 0));
  dnnl_memory_t mdy3 = mem_for(e, dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_dst_md, 0));
  dnnl_memory_t mdw = mem_for(e, dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_weights_md, 0));
  dnnl_exec_arg_t fa[3] = {{DNNL_ARG_SRC, mx}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, my}};
  dnnl_exec_arg_t ba[3] = {{DNNL_ARG_DIFF_DST, mdy}, {DNNL_ARG_WEIGHTS, mw2}, {DNNL_ARG_DIFF_SRC, mdx}};
  dnnl_exec_arg_t wa[3] = {{DNNL_ARG_SRC, mx3}, {DNNL_ARG_DIFF_DST, mdy3}, {DNNL_ARG_DIFF_WEIGHTS, mdw}};
  if (wanted("dnnl_conv_fwd")) time_prim("dnnl_conv_fwd", fp, s, 3, fa);
  if (wanted("dnnl_conv_bwd")) {
    double t[64];
    for (int i = -1; i < iters; i++) {
      double t0 = now_ms();
      dnnl_primitive_execute(bp, s, 3, ba);
      dnnl_primitive_execute(wp, s, 3, wa);
      dnnl_stream_wait(s);
      double t1 = now_ms();
      if (i >= 0) t[i] = t1 - t0;
    }
    report("dnnl_conv_bwd", t, iters);
  }
  dnnl_memory_t ms[9] = {mx, mw, my, mdx, mdy, mw2, mx3, mdy3, mdw};
  for (int i = 0; i < 9; i++) dnnl_memory_destroy(ms[i]);
  dnnl_primitive_destroy(fp); dnnl_primitive_destroy(bp); dnnl_primitive_destroy(wp);
  dnnl_primitive_desc_destroy(fpd); dnnl_primitive_desc_destroy(bpd); dnnl_primitive_desc_destroy(wpd);
}

static void bench_dnnl(int64_t m1, int64_t m2, int64_t cn, int64_t cc, int64_t chw) {
  if (dnnl_threads() > 0) omp_set_num_threads(dnnl_threads());
  dnnl_engine_t e;
  dnnl_stream_t s;
  if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success) return;
  dnnl_stream_create(&s, e, dnnl_stream_default_flags);
  dnnl_mm(e, s, "dnnl_mm_1024", m1);
  dnnl_mm(e, s, "dnnl_mm_2048", m2);
  dnnl_conv(e, s, cn, cc, chw);
  dnnl_stream_destroy(s);
  dnnl_engine_destroy(e);
}
#endif

/* More convolutions (informative: the case is conv_fwd/conv_bwd): a
 * grouped and a depthwise 3x3, a stride-2 transposed one, a 3-d one, and the
 * ResNet layer in bfloat16. Names as in bench_torch.py. */
static void bench_conv_more(tabi_runtime *rt, int sm) {
  int64_t n = sm ? 2 : 8, c = sm ? 16 : 128, hw = sm ? 8 : 28, one[3] = {1, 1, 1};
  int64_t two[2] = {2, 2}, zero[3] = {0, 0, 0};
  int64_t xs[4] = {n, c, hw, hw}, half[4] = {n, c, hw / 2, hw / 2};
  static const struct { const char *name; int64_t groups; } grp[2] = {{"conv_grouped_fwd", 32},
                                                                      {"conv_depthwise_fwd", 0}};
  for (int k = 0; k < 2; k++) {
    int64_t g = grp[k].groups ? (grp[k].groups < c ? grp[k].groups : c) : c;
    int64_t ws[4] = {c, c / g, 3, 3};
    tabi_tensor *x = tensor(rt, TABI_DTYPE_FLOAT32, 4, xs, 0), *w = tensor(rt, TABI_DTYPE_FLOAT32, 4, ws, 0);
    tabi_value cv[9] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(), tabi_int_list(one, 2),
                        tabi_int_list(one, 2), tabi_int_list(one, 2), tabi_bool(0), tabi_int_list(zero, 2),
                        tabi_int(g)};
    bench_op(rt, grp[k].name, "aten::convolution", cv, 9, 1);
    tabi_tensor_release(x); tabi_tensor_release(w);
  }
  { /* transposed: [n, c, hw/2, hw/2] -> [n, c/2, hw, hw], k 4, stride 2, pad 1 */
    int64_t ws[4] = {c, c / 2, 4, 4};
    tabi_tensor *x = tensor(rt, TABI_DTYPE_FLOAT32, 4, half, 0), *w = tensor(rt, TABI_DTYPE_FLOAT32, 4, ws, 0);
    tabi_value cv[9] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(), tabi_int_list(two, 2),
                        tabi_int_list(one, 2), tabi_int_list(one, 2), tabi_bool(1), tabi_int_list(zero, 2),
                        tabi_int(1)};
    bench_op(rt, "conv_transposed_fwd", "aten::convolution", cv, 9, 1);
    tabi_tensor_release(x); tabi_tensor_release(w);
  }
  { /* 3-d: [2, c/4, 16, hw, hw] (*) [c/4, c/4, 3, 3, 3], pad 1 */
    int64_t xs5[5] = {2, c / 4, sm ? 4 : 16, hw, hw}, ws5[5] = {c / 4, c / 4, 3, 3, 3};
    tabi_tensor *x = tensor(rt, TABI_DTYPE_FLOAT32, 5, xs5, 0), *w = tensor(rt, TABI_DTYPE_FLOAT32, 5, ws5, 0);
    tabi_value cv[9] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(), tabi_int_list(one, 3),
                        tabi_int_list(one, 3), tabi_int_list(one, 3), tabi_bool(0), tabi_int_list(zero, 3),
                        tabi_int(1)};
    bench_op(rt, "conv3d_fwd", "aten::convolution", cv, 9, 1);
    tabi_tensor_release(x); tabi_tensor_release(w);
  }
  { /* the ResNet layer of conv_fwd in bfloat16 */
    int64_t ws[4] = {c, c, 3, 3};
    tabi_tensor *x = tensor(rt, TABI_DTYPE_BFLOAT16, 4, xs, 0), *w = tensor(rt, TABI_DTYPE_BFLOAT16, 4, ws, 0);
    tabi_value cv[9] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(), tabi_int_list(one, 2),
                        tabi_int_list(one, 2), tabi_int_list(one, 2), tabi_bool(0), tabi_int_list(zero, 2),
                        tabi_int(1)};
    bench_op(rt, "conv_bf16_fwd", "aten::convolution", cv, 9, 1);
    tabi_tensor_release(x); tabi_tensor_release(w);
  }
}

int main(int argc, char **argv) {
  const char *plugin = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--plugin") && i + 1 < argc) plugin = argv[++i];
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--small")) small = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else { fprintf(stderr, "usage: %s --plugin PATH [--iters N] [--small] [--only S]\n", argv[0]); return 2; }
  }
  if (iters < 1) iters = 1;
  if (iters > 64) iters = 64;
  tabi_runtime *rt;
  if (!plugin || tabi_runtime_create(NULL, &rt) != TABI_OK ||
      tabi_runtime_load_plugin(rt, plugin, NULL) != TABI_OK) {
    fprintf(stderr, "bench_cpu: cannot load the plugin: %s\n", tabi_last_error());
    return 2;
  }
  int64_t N = small ? 100000 : 10000000, R = small ? 256 : 4096, M1 = small ? 128 : 1024,
          M2 = small ? 256 : 2048, ROWS = small ? 10000 : 1000000, F = small ? 4096 : 1 << 20;
  int64_t CN = small ? 2 : 8, CC = small ? 16 : 128, CHW = small ? 8 : 28;
  bench_memcpy(N);
  static const tabi_dtype dts[3] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  static const char *dn[3] = {"f32", "f16", "bf16"};
  for (int d = 0; d < 3; d++) {
    tabi_tensor *a = tensor(rt, dts[d], 1, &N, 0), *b = tensor(rt, dts[d], 1, &N, 0);
    char name[64];
    tabi_value ab[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
    snprintf(name, sizeof name, "add_%s", dn[d]); bench_op(rt, name, "aten::add.Tensor", ab, 2, 1);
    snprintf(name, sizeof name, "mul_%s", dn[d]); bench_op(rt, name, "aten::mul.Tensor", ab, 2, 1);
    snprintf(name, sizeof name, "exp_%s", dn[d]); bench_op(rt, name, "aten::exp", ab, 1, 1);
    snprintf(name, sizeof name, "gelu_%s", dn[d]); bench_op(rt, name, "aten::gelu", ab, 1, 1);
    tabi_tensor_release(a);
    tabi_tensor_release(b);
  }
  {
    tabi_tensor *v = tensor(rt, TABI_DTYPE_FLOAT32, 1, &N, 0);
    int64_t rs2[2] = {R, R}, last[1] = {-1};
    tabi_tensor *m = tensor(rt, TABI_DTYPE_FLOAT32, 2, rs2, 0);
    tabi_value full[2] = {tabi_tensor_value(v), tabi_none()};
    tabi_value rows[3] = {tabi_tensor_value(m), tabi_int_list(last, 1), tabi_bool(0)};
    tabi_value amaxf[2] = {tabi_tensor_value(v), tabi_int_list(NULL, 0)};
    bench_op(rt, "sum_1e7", "aten::sum.dim_IntList", full, 2, 1);
    bench_op(rt, "mean_1e7", "aten::mean", full, 1, 1);
    bench_op(rt, "amax_1e7", "aten::amax", amaxf, 2, 1);
    bench_op(rt, "sum_rows", "aten::sum.dim_IntList", rows, 3, 1);
    bench_op(rt, "mean_rows", "aten::mean.dim", rows, 3, 1);
    bench_op(rt, "amax_rows", "aten::amax", rows, 3, 1);
    tabi_value sm[3] = {tabi_tensor_value(m), tabi_int(-1), tabi_bool(0)};
    bench_op(rt, "softmax", "aten::_softmax", sm, 3, 1);
    tabi_tensor *w = tensor(rt, TABI_DTYPE_FLOAT32, 1, &R, 0), *bb = tensor(rt, TABI_DTYPE_FLOAT32, 1, &R, 0);
    int64_t ns[1] = {R};
    tabi_value ln[5] = {tabi_tensor_value(m), tabi_int_list(ns, 1), tabi_tensor_value(w),
                        tabi_tensor_value(bb), tabi_float(1e-5)};
    bench_op(rt, "layer_norm", "aten::native_layer_norm", ln, 5, 3);
    tabi_tensor_release(v); tabi_tensor_release(m); tabi_tensor_release(w); tabi_tensor_release(bb);
  }
  for (int k = 0; k < 2; k++) {
    int64_t n = k ? M2 : M1, s[2] = {n, n};
    tabi_tensor *a = tensor(rt, TABI_DTYPE_FLOAT32, 2, s, 0), *b = tensor(rt, TABI_DTYPE_FLOAT32, 2, s, 0);
    tabi_value ab[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
    bench_op(rt, k ? "mm_2048" : "mm_1024", "aten::mm", ab, 2, 1);
    tabi_tensor_release(a); tabi_tensor_release(b);
  }
  { /* informative: mm 2048^3 in bfloat16 */
    int64_t s[2] = {M2, M2};
    tabi_tensor *a = tensor(rt, TABI_DTYPE_BFLOAT16, 2, s, 0), *b = tensor(rt, TABI_DTYPE_BFLOAT16, 2, s, 0);
    tabi_value ab[2] = {tabi_tensor_value(a), tabi_tensor_value(b)};
    bench_op(rt, "mm_bf16_2048", "aten::mm", ab, 2, 1);
    tabi_tensor_release(a); tabi_tensor_release(b);
  }
  {
    int64_t xs[4] = {CN, CC, CHW, CHW}, ws[4] = {CC, CC, 3, 3}, one[2] = {1, 1}, zero[2] = {0, 0};
    int64_t mask[3] = {1, 1, 0};
    tabi_tensor *x = tensor(rt, TABI_DTYPE_FLOAT32, 4, xs, 0), *w = tensor(rt, TABI_DTYPE_FLOAT32, 4, ws, 0);
    tabi_tensor *dy = tensor(rt, TABI_DTYPE_FLOAT32, 4, xs, 0);
    tabi_value cv[9] = {tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(), tabi_int_list(one, 2),
                        tabi_int_list(one, 2), tabi_int_list(one, 2), tabi_bool(0), tabi_int_list(zero, 2),
                        tabi_int(1)};
    bench_op(rt, "conv_fwd", "aten::convolution", cv, 9, 1);
    tabi_value cb[11] = {tabi_tensor_value(dy), tabi_tensor_value(x), tabi_tensor_value(w), tabi_none(),
                         tabi_int_list(one, 2), tabi_int_list(one, 2), tabi_int_list(one, 2), tabi_bool(0),
                         tabi_int_list(zero, 2), tabi_int(1), tabi_bool_list(mask, 3)};
    bench_op(rt, "conv_bwd", "aten::convolution_backward", cb, 11, 3);
    tabi_tensor_release(x); tabi_tensor_release(w); tabi_tensor_release(dy);
  }
  bench_conv_more(rt, small);
  {
    tabi_tensor *x = tensor(rt, TABI_DTYPE_FLOAT32, 1, &F, 0);
    int64_t last[1] = {-1};
    tabi_value a[4] = {tabi_tensor_value(x), tabi_int_list(last, 1), tabi_int(0), tabi_bool(1)};
    bench_op(rt, "fft_r2c", "aten::_fft_r2c", a, 4, 1);
    /* fft_c2r: back from the onesided spectrum of the same signal (irfft, norm 1/n) */
    tabi_op r2c;
    tabi_value X = tabi_none();
    if (wanted("fft_c2r") && tabi_op_find(rt, "aten::_fft_r2c", &r2c) == TABI_OK &&
        tabi_call(rt, r2c, a, 4, &X, 1) == TABI_OK) {
      tabi_value b[4] = {X, tabi_int_list(last, 1), tabi_int(2), tabi_int(F)};
      bench_op(rt, "fft_c2r", "aten::_fft_c2r", b, 4, 1);
      tabi_value_release(&X);
    }
    tabi_tensor_release(x);
  }
  {
    int64_t ts[2] = {ROWS, 16};
    tabi_tensor *tab = tensor(rt, TABI_DTYPE_FLOAT32, 2, ts, 0), *src = tensor(rt, TABI_DTYPE_FLOAT32, 2, ts, 0);
    tabi_tensor *i1 = tensor(rt, TABI_DTYPE_INT64, 1, &ROWS, ROWS), *i2 = tensor(rt, TABI_DTYPE_INT64, 2, ts, ROWS);
    tabi_value is[3] = {tabi_tensor_value(tab), tabi_int(0), tabi_tensor_value(i1)};
    bench_op(rt, "index_select", "aten::index_select", is, 3, 1);
    tabi_value ga[4] = {tabi_tensor_value(tab), tabi_int(0), tabi_tensor_value(i2), tabi_bool(0)};
    bench_op(rt, "gather", "aten::gather", ga, 4, 1);
    tabi_value sa[4] = {tabi_tensor_value(tab), tabi_int(0), tabi_tensor_value(i2), tabi_tensor_value(src)};
    bench_op(rt, "scatter_add", "aten::scatter_add", sa, 4, 1);
    tabi_tensor_release(tab); tabi_tensor_release(src); tabi_tensor_release(i1); tabi_tensor_release(i2);
  }
  {
    tabi_tensor *x = tensor(rt, TABI_DTYPE_FLOAT32, 1, &ROWS, 0);
    tabi_value so[3] = {tabi_tensor_value(x), tabi_int(-1), tabi_bool(0)};
    bench_op(rt, "sort", "aten::sort", so, 3, 2);
    tabi_value tk[5] = {tabi_tensor_value(x), tabi_int(1000), tabi_int(-1), tabi_bool(1), tabi_bool(1)};
    bench_op(rt, "topk", "aten::topk", tk, 5, 2);
    tabi_tensor_release(x);
  }
  { /* prims::svd of a 256x256 float32 matrix (thin), informative */
    int64_t ss[2] = {small ? 32 : 256, small ? 32 : 256};
    tabi_tensor *a = tensor(rt, TABI_DTYPE_FLOAT32, 2, ss, 0);
    tabi_value sv[2] = {tabi_tensor_value(a), tabi_bool(0)};
    bench_op(rt, "svd_256", "prims::svd", sv, 2, 3);
    tabi_tensor_release(a);
  }
#ifdef TABI_BENCH_ONEDNN
  bench_dnnl(M1, M2, CN, CC, CHW);
#endif
  tabi_runtime_destroy(rt);
  return 0;
}
