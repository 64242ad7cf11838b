/* tests/cuda/test_cuda_ops.c: the GPU kernels against the reference plugin on
 * random inputs (GPU only; exits 77 "skipped" when no device is present).
 * Each case builds the same host data in two runtimes, calls the op in both,
 * and compares within the float tolerance; random ops must match bit for bit
 * for a shared seed. The ROCm plugin compiles the same kernel sources, so the
 * same cases run against it (argv[3] = 10, kDLROCM). argv[1]: the device plugin; argv[2]: libtabi_reference.so;
 * argv[3]: its DLDeviceType (default 2, kDLCUDA; 1 runs the cases against the
 * CPU plugin, ctest's cuda_ops_cases_on_cpu, to test the cases without a GPU;
 * 12, kDLExtDev, against gpusim, ctest's gpusim_ops: the kernel sources on the
 * host). This file: main and the core
 * cases (elementwise, reductions, scans, FFT, matmul, Philox); the op families'
 * cases are in test_cuda_ops_nn.c, test_cuda_ops_misc.c and test_cuda_ops_red.c, the shared
 * helpers in gpu_harness.c. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

/* A random tensor of dt in both runtimes, sliced with step 2 along `dim`. */
static void both_sliced(tabi_dtype dt, int32_t nd, const int64_t *shape, int64_t dim, tabi_tensor **g,
                        tabi_tensor **r) {
  both_random(dt, nd, shape, g, r);
  tabi_value slice[4] = {tabi_int(dim), tabi_none(), tabi_none(), tabi_int(2)};
  if (*g && *r) both_view("aten::slice.Tensor", slice, 4, g, r);
}

/* mm, bmm and addmm of operands with no unit stride (step-2 slices along
 * their last dim): the CUDA plugin copies them contiguous for cuBLAS
 * (tc_blas.cu), the ROCm GEMM reads them strided. */
static void mm_strided_cases(void) {
  const tabi_dtype dts[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_COMPLEX64};
  const double rt[4] = {1e-5, 1e-10, 1e-2, 1e-5}, at[4] = {1e-4, 1e-10, 1e-2, 1e-4};
  for (int d = 0; d < 4; d++) {
    tabi_tensor *ga = NULL, *ra = NULL, *gm = NULL, *rm = NULL, *gs = NULL, *rs = NULL;
    int64_t as[2] = {70, 96}, ms[2] = {48, 82}; /* [70, 48] @ [48, 41], strides [96, 2] and [82, 2] */
    both_sliced(dts[d], 2, as, 1, &ga, &ra);
    both_sliced(dts[d], 2, ms, 1, &gm, &rm);
    tabi_value gv[2] = {tabi_tensor_value(ga), tabi_tensor_value(gm)};
    tabi_value rv[2] = {tabi_tensor_value(ra), tabi_tensor_value(rm)};
    if (ga && gm) compare_built("aten::mm", gv, rv, 2, rt[d], at[d]);
    int64_t ss[2] = {70, 82}; /* addmm's self: [70, 41], strides [82, 2] */
    both_sliced(dts[d], 2, ss, 1, &gs, &rs);
    tabi_value gv3[5] = {tabi_tensor_value(gs), tabi_tensor_value(ga), tabi_tensor_value(gm), tabi_float(0.5),
                         tabi_float(-2)};
    tabi_value rv3[5] = {tabi_tensor_value(rs), tabi_tensor_value(ra), tabi_tensor_value(rm), tabi_float(0.5),
                         tabi_float(-2)};
    if (gs && ga && gm) compare_built("aten::addmm", gv3, rv3, 5, rt[d], at[d]);
    tabi_tensor *t[6] = {ga, ra, gm, rm, gs, rs};
    for (int i = 0; i < 6; i++) tabi_tensor_release(t[i]);
    /* bmm: [3, 33, 20] (strides [1320, 40, 2]) @ [3, 20, 17] contiguous */
    int64_t bs[3] = {3, 33, 40}, bm[3] = {3, 20, 17};
    both_sliced(dts[d], 3, bs, 2, &ga, &ra);
    both_random(dts[d], 3, bm, &gm, &rm);
    tabi_value gb[2] = {tabi_tensor_value(ga), tabi_tensor_value(gm)};
    tabi_value rb[2] = {tabi_tensor_value(ra), tabi_tensor_value(rm)};
    if (ga && gm) compare_built("aten::bmm", gb, rb, 2, rt[d], at[d]);
    tabi_tensor_release(ga);
    tabi_tensor_release(ra);
    tabi_tensor_release(gm);
    tabi_tensor_release(rm);
  }
}

/* addmm with a bias row: the CUDA plugin's cuBLASLt path (tc_blas.cu's
 * lt_addmm), whose heuristic answers are cached per configuration. Every call
 * must match the reference: a cached algorithm reused for operands aligned
 * less than it assumes faults on a GPU (gpusim_cuda's stand-in: NaN). Where
 * the plugin is gpusim_cuda, the stand-in's count of heuristic calls shows
 * the cache: one per new configuration, none for a repeat. */
static void lt_cache_cases(const char *plugin_path) {
  void *so = dlopen(plugin_path, RTLD_NOW | RTLD_NOLOAD);
  int (*heuristics)(void) = so ? (int (*)(void))dlsym(so, "tc_sim_lt_heuristics") : NULL;
  /* mat1 [37, 32] (rows of 128 bytes, its start 256-byte aligned), then the
   * same shape and strides one element into a flat buffer (4-byte aligned):
   * two configurations that differ only in alignment */
  int64_t as[2] = {37, 32}, flat[1] = {37 * 32 + 1}, ms[2] = {32, 24}, bs[1] = {24};
  const int plan[5] = {0, 0, 1, 1, 0}; /* which mat1 each call takes */
  const int new_config[5] = {1, 0, 1, 0, 0};
  for (int i = 0; i < 5; i++) {
    tabi_tensor *ga = NULL, *ra = NULL, *gm = NULL, *rm = NULL, *gb = NULL, *rb = NULL;
    if (plan[i]) {
      both_random(TABI_DTYPE_FLOAT32, 1, flat, &ga, &ra);
      tabi_value slice[4] = {tabi_int(0), tabi_int(1), tabi_none(), tabi_int(1)}, view[1] = {tabi_int_list(as, 2)};
      if (ga && ra) both_view("aten::slice.Tensor", slice, 4, &ga, &ra);
      if (ga && ra) both_view("aten::view", view, 1, &ga, &ra);
    } else {
      both_random(TABI_DTYPE_FLOAT32, 2, as, &ga, &ra);
    }
    both_random(TABI_DTYPE_FLOAT32, 2, ms, &gm, &rm);
    both_random(TABI_DTYPE_FLOAT32, 1, bs, &gb, &rb);
    int before = heuristics ? heuristics() : 0;
    tabi_value gv[5] = {tabi_tensor_value(gb), tabi_tensor_value(ga), tabi_tensor_value(gm), tabi_float(1),
                        tabi_float(1.5)};
    tabi_value rv[5] = {tabi_tensor_value(rb), tabi_tensor_value(ra), tabi_tensor_value(rm), tabi_float(1),
                        tabi_float(1.5)};
    if (ga && gm && gb) compare_built("aten::addmm", gv, rv, 5, 1e-5, 1e-4);
    if (heuristics && heuristics() - before != new_config[i]) {
      fprintf(stderr, "addmm bias call %d (mat1 %s): %d cuBLASLt heuristic calls, expected %d\n", i,
              plan[i] ? "4-byte aligned" : "aligned", heuristics() - before, new_config[i]);
      CHECK(0);
    }
    tabi_tensor *t[6] = {ga, ra, gm, rm, gb, rb};
    for (int k = 0; k < 6; k++) tabi_tensor_release(t[k]);
  }
  if (so) dlclose(so);
}

/* A random complex tensor (real and imaginary parts drawn) in both runtimes. */
static void both_complex(tabi_dtype dt, int32_t nd, const int64_t *shape, tabi_tensor **g, tabi_tensor **r) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *h = malloc(sizeof(double) * (size_t)(2 * n + 1));
  tabi_tensor *tg = NULL, *tr = NULL;
  *g = *r = NULL;
  CHECK(h != NULL);
  if (!h) return;
  for (int64_t i = 0; i < 2 * n; i++) h[i] = urand() * 2 - 1;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_COMPLEX128, nd, shape, h, (uint64_t)n * 16, &tg));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_COMPLEX128, nd, shape, h, (uint64_t)n * 16, &tr));
  free(h);
  if (tg && tr) convert_pair(tg, tr, dt, g, r);
  tabi_tensor_release(tg);
  tabi_tensor_release(tr);
}

/* An FFT prim on x (device) and rx (CPU), both outputs compared: real and
 * imaginary parts, since a transform of the wrong sign differs from the right
 * one only in the imaginary parts for real data. */
static void fft_pair(const char *name, tabi_tensor *x, tabi_tensor *rx, int64_t dim, tabi_value flag, double tol) {
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value ga[3] = {tabi_tensor_value(x), tabi_int_list(&dim, 1), flag};
  tabi_value ra[3] = {tabi_tensor_value(rx), tabi_int_list(&dim, 1), flag};
  tabi_value go = tabi_none(), ro = tabi_none();
  CHECK_MSG(tabi_call(gpu, og, ga, 3, &go, 1) == TABI_OK, "%s: %s", name, tabi_last_error());
  CHECK_MSG(tabi_call(ref, orf, ra, 3, &ro, 1) == TABI_OK, "%s (reference): %s", name, tabi_last_error());
  if (go.tag == TABI_TAG_TENSOR && ro.tag == TABI_TAG_TENSOR) {
    const char *parts[2] = {"prims::real", "prims::imag"};
    int cx = tabi_tensor_dtype(ro.u.t) == TABI_DTYPE_COMPLEX64 || tabi_tensor_dtype(ro.u.t) == TABI_DTYPE_COMPLEX128;
    if (!cx) compare_built("prims::view_of", &go, &ro, 1, tol, tol);
    for (int p = 0; p < 2 && cx; p++) compare_built(parts[p], &go, &ro, 1, tol, tol);
  }
  tabi_value_release(&go);
  tabi_value_release(&ro);
}

/* The FFTs of one length in every direction. The ROCm path (gpusim) runs
 * lengths with a prime factor above 5 through Bluestein's algorithm, whose
 * filter spectrum (per device, sign and length) it computes once and keeps
 * (tc_fft.cu): each call must still match the reference, whichever sign the
 * cached filter was made for. On gpusim the plugin's counts show the cache: a
 * filter computed for each new (sign, length), none for a repeat; once the
 * cache is full, a new length is computed on every call. */
static void bs_cache_cases(const char *plugin_path) {
  void *so = dlopen(plugin_path, RTLD_NOW | RTLD_NOLOAD);
  int (*filters)(void) = so ? (int (*)(void))dlsym(so, "tc_sim_bs_filters") : NULL;
  int (*cached)(void) = so ? (int (*)(void))dlsym(so, "tc_sim_bs_cached") : NULL;
  int64_t cs[2] = {3, 61}, hs[2] = {3, 31};
  tabi_tensor *x = NULL, *rx = NULL, *h = NULL, *rh = NULL, *f = NULL, *rf = NULL;
  both_complex(TABI_DTYPE_COMPLEX64, 2, cs, &x, &rx);
  both_complex(TABI_DTYPE_COMPLEX64, 2, hs, &h, &rh);
  both_random(TABI_DTYPE_FLOAT32, 2, cs, &f, &rf);
  struct {
    const char *op;
    tabi_tensor *g, *r;
    tabi_value flag;
    int new_filter;
  } steps[6] = {
      {"prims::fft_c2c", x, rx, tabi_bool(1), 1}, /* sign -1, n 61 */
      {"prims::fft_c2c", x, rx, tabi_bool(1), 0}, /* again */
      {"prims::fft_c2c", x, rx, tabi_bool(0), 1}, /* sign +1 */
      {"prims::fft_r2c", f, rf, tabi_bool(1), 0}, /* sign -1 */
      {"prims::fft_c2r", h, rh, tabi_int(61), 0}, /* sign +1 */
      {"prims::fft_r2c", f, rf, tabi_bool(0), 0}, /* two-sided */
  };
  for (int i = 0; i < 6 && x && h && f; i++) {
    int before = filters ? filters() : 0;
    fft_pair(steps[i].op, steps[i].g, steps[i].r, 1, steps[i].flag, 1e-4);
    if (filters && filters() - before != steps[i].new_filter) {
      fprintf(stderr, "%s step %d: %d Bluestein filters computed, expected %d\n", steps[i].op, i,
              filters() - before, steps[i].new_filter);
      CHECK(0);
    }
  }
  tabi_tensor *t[6] = {x, rx, h, rh, f, rf};
  for (int k = 0; k < 6; k++) tabi_tensor_release(t[k]);
  /* new lengths until the cache is full, then one of them twice */
  static const int64_t primes[] = {71, 73, 79, 83, 89, 101, 103, 107, 109, 113, 127, 131,
                                   137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193};
  int full = 0;
  for (size_t i = 0; i < sizeof primes / sizeof primes[0] && !full; i++) {
    int64_t sh[2] = {2, primes[i]};
    both_complex(TABI_DTYPE_COMPLEX128, 2, sh, &x, &rx);
    for (int rep = 0; rep < 2 && x; rep++) {
      int f0 = filters ? filters() : 0, c0 = cached ? cached() : 0;
      fft_pair("prims::fft_c2c", x, rx, 1, tabi_bool(1), 1e-9);
      if (!filters || !cached) continue;
      int df = filters() - f0, dc = cached() - c0;
      if (rep == 0 && dc == 0) full = 1; /* no room: the repeat computes again */
      if (df != (rep == 0 || full) || dc != (rep == 0 && !full)) {
        fprintf(stderr, "fft_c2c n=%lld call %d: %d filters computed, %d cached (cache %s)\n",
                (long long)primes[i], rep, df, dc, full ? "full" : "not full");
        CHECK(0);
      }
    }
    tabi_tensor_release(x);
    tabi_tensor_release(rx);
  }
  if (filters && cached) CHECK_MSG(full, "the Bluestein cache never filled (%d entries)", cached());
  if (so) dlclose(so);
}

/* prims::copy_to between layouts whose unit strides lie on different dims:
 * the tiled transposing copy (tc_shape.cu's tc_copy_tiled) for every element
 * size, with batch dims, edges off the 32-element tile, a transposed
 * destination, a broadcast source and a copy too small for the tiles; the
 * reference's bits exactly. */
static void copy_tiled_case(tabi_dtype dt, int32_t nd, const int64_t *shape, const int64_t *perm,
                            int dst_view) {
  int64_t n = 1, pshape[8];
  for (int32_t i = 0; i < nd; i++) {
    n *= shape[i];
    pshape[i] = shape[perm[i]];
  }
  double *h = calloc((size_t)n, sizeof(double));
  CHECK(h != NULL);
  if (!h) return;
  for (int64_t i = 0; i < n; i++) h[i] = (double)(i % 251) - 100 + (i % 7) * 0.25;
  tabi_tensor *gs = NULL, *rs = NULL, *gd = NULL, *rd = NULL;
  if (dst_view) { /* a contiguous source into a permuted destination */
    both_tensor(dt, nd, pshape, h, &gs, &rs);
    for (int64_t i = 0; i < n; i++) h[i] = 0;
    both_tensor(dt, nd, shape, h, &gd, &rd);
    if (gd && rd) both_permute(&gd, &rd, nd, perm);
  } else { /* a permuted source into a contiguous destination */
    both_tensor(dt, nd, shape, h, &gs, &rs);
    if (gs && rs) both_permute(&gs, &rs, nd, perm);
    for (int64_t i = 0; i < n; i++) h[i] = 0;
    both_tensor(dt, nd, pshape, h, &gd, &rd);
  }
  free(h);
  tabi_value ga[2] = {tabi_tensor_value(gd), tabi_tensor_value(gs)};
  tabi_value ra[2] = {tabi_tensor_value(rd), tabi_tensor_value(rs)};
  if (gs && rs && gd && rd) compare_built("prims::copy_to", ga, ra, 2, 0, 0);
  tabi_tensor *t[4] = {gs, rs, gd, rd};
  for (int i = 0; i < 4; i++) tabi_tensor_release(t[i]);
}

static void copy_tiled_cases(void) {
  const tabi_dtype dts[8] = {TABI_DTYPE_BOOL, TABI_DTYPE_INT8, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
                             TABI_DTYPE_FLOAT32, TABI_DTYPE_INT64, TABI_DTYPE_COMPLEX64,
                             TABI_DTYPE_COMPLEX128};
  int64_t s2[2] = {70, 97}, p2[2] = {1, 0};
  int64_t s3[3] = {3, 33, 65}, p3[3] = {0, 2, 1};
  int64_t s3b[3] = {40, 5, 48}, p3b[3] = {2, 1, 0};
  int64_t s4[4] = {2, 3, 17, 130}, p4[4] = {0, 3, 1, 2};
  int64_t small[2] = {20, 30};
  for (int d = 0; d < 8; d++) {
    copy_tiled_case(dts[d], 2, s2, p2, 0);
    copy_tiled_case(dts[d], 3, s3, p3, 0);
    copy_tiled_case(dts[d], 3, s3b, p3b, 1);
    copy_tiled_case(dts[d], 4, s4, p4, 0);
    copy_tiled_case(dts[d], 2, small, p2, 0);
  }
  /* a transposed [1, 40, 50] source broadcast into a [4, 40, 50] destination:
   * a batch dim whose source stride is 0 */
  {
    int64_t src_shape[3] = {1, 50, 40}, dst_shape[3] = {4, 40, 50}, perm[3] = {0, 2, 1};
    static double h[2000], z[8000];
    for (int i = 0; i < 2000; i++) h[i] = i * 0.5 - 300;
    tabi_tensor *gs = NULL, *rs = NULL, *gd = NULL, *rd = NULL;
    both_tensor(TABI_DTYPE_FLOAT32, 3, src_shape, h, &gs, &rs);
    if (gs && rs) both_permute(&gs, &rs, 3, perm);
    tabi_value expand[2] = {tabi_int_list(dst_shape, 3), tabi_bool(0)};
    if (gs && rs) both_view("aten::expand", expand, 2, &gs, &rs); /* [4, 40, 50], strides [0, 1, 40] */
    both_tensor(TABI_DTYPE_FLOAT32, 3, dst_shape, z, &gd, &rd);
    tabi_value ga[2] = {tabi_tensor_value(gd), tabi_tensor_value(gs)};
    tabi_value ra[2] = {tabi_tensor_value(rd), tabi_tensor_value(rs)};
    if (gs && rs && gd && rd) compare_built("prims::copy_to", ga, ra, 2, 0, 0);
    tabi_tensor *t[4] = {gs, rs, gd, rd};
    for (int i = 0; i < 4; i++) tabi_tensor_release(t[i]);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  CHECK_OK(tabi_runtime_create(NULL, &gpu));
  CHECK_OK(tabi_runtime_create(NULL, &ref));
  CHECK_OK(tabi_runtime_load_plugin(gpu, argv[1], NULL));
  CHECK_OK(tabi_runtime_load_plugin(ref, argv[2], NULL));
  int32_t ndev = 0;
  if (argc > 3) CUDA0.device_type = (DLDeviceType)atoi(argv[3]);
  int rocm = CUDA0.device_type == kDLROCM;
  tabi_plugin_info pi;
  memset(&pi, 0, sizeof pi);
  pi.struct_size = sizeof pi;
  CHECK_OK(tabi_runtime_plugin_info(gpu, 0, &pi));
  LIB_ACCUM = pi.name && (strcmp(pi.name, "cuda") == 0 || strcmp(pi.name, "gpusim_cuda") == 0 ||
                          strcmp(pi.name, "cpu") == 0);
  CHECK_OK(tabi_runtime_device_count(gpu, CUDA0.device_type, &ndev));
  if (ndev <= 0) {
    printf("SKIP: no %s device present (tabi_runtime_device_count gave %d)\n", rocm ? "ROCm" : "CUDA",
           (int)ndev);
    return 77;
  }
  int64_t s2[2] = {37, 53}, s3[3] = {4, 33, 65};
  const tabi_dtype fdt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
  const double frt[4] = {1.3e-6, 1e-7, 1e-3, 1.6e-2};
  for (int d = 0; d < 4; d++) {
    compare("prims::add", fdt[d], 2, 2, s2, NULL, 0, frt[d], 1e-5);
    compare("prims::mul", fdt[d], 2, 3, s3, NULL, 0, frt[d], 1e-5);
    compare("prims::sin", fdt[d], 1, 3, s3, NULL, 0, frt[d], 1e-5);
    compare("prims::exp", fdt[d], 1, 2, s2, NULL, 0, frt[d], 1e-5);
    compare("prims::lgamma", fdt[d], 1, 2, s2, NULL, 0, frt[d], 1e-5);
    compare("aten::add.Tensor", fdt[d], 2, 2, s2, (tabi_value[]){tabi_int(1)}, 1, frt[d], 1e-5);
    compare("aten::atan2.out", fdt[d], 3, 2, s2, NULL, 0, frt[d], 1e-5); /* out: the third tensor */
    int64_t dims[1] = {1};
    compare("prims::sum", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int_list(dims, 1)}, 1, frt[d] * 10, 1e-4);
    compare("prims::amax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int_list(dims, 1)}, 1, 0, 0);
    compare("prims::var", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int_list(dims, 1), tabi_int(1)}, 2,
            frt[d] * 10, 1e-4);
    compare("aten::_softmax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, frt[d] * 4, 1e-5);
    compare("aten::_log_softmax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(2), tabi_bool(0)}, 2, frt[d] * 4, 1e-5);
    int64_t ns[1] = {65};
    compare("aten::native_layer_norm", fdt[d], 1, 3, s3,
            (tabi_value[]){tabi_int_list(ns, 1), tabi_none(), tabi_none(), tabi_float(1e-5)}, 4,
            frt[d] * 10, 1e-4);
  }
  /* positions and scans */
  for (int d = 0; d < 2; d++) {
    compare("aten::argmax", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, 0, 0);
    compare("aten::argmin", fdt[d], 1, 3, s3, (tabi_value[]){tabi_none(), tabi_bool(0)}, 2, 0, 0);
    compare("aten::max.dim", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(2), tabi_bool(1)}, 2, 0, 0);
    compare("aten::cumsum", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(2)}, 1, frt[d] * 10, 1e-5);
    compare("aten::sort", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(-1), tabi_bool(1)}, 2, 0, 0);
    compare("aten::sort", fdt[d], 1, 3, s3, (tabi_value[]){tabi_int(1), tabi_bool(0)}, 2, 0, 0);
    compare("aten::topk", fdt[d], 1, 3, s3,
            (tabi_value[]){tabi_int(5), tabi_int(-1), tabi_bool(1), tabi_bool(1)}, 4, 0, 0);
  }
  compare("aten::cumsum", TABI_DTYPE_INT32, 1, 2, s2, (tabi_value[]){tabi_int(0)}, 1, 0, 0);
  /* FFTs (the real parts of complex results are compared) */
  {
    int64_t fd[1] = {1};
    compare("aten::_fft_r2c", TABI_DTYPE_FLOAT32, 1, 2, s2,
            (tabi_value[]){tabi_int_list(fd, 1), tabi_int(0), tabi_bool(1)}, 3, 1e-4, 1e-4);
    compare("aten::_fft_r2c", TABI_DTYPE_FLOAT64, 1, 3, s3,
            (tabi_value[]){tabi_int_list(fd, 1), tabi_int(2), tabi_bool(0)}, 3, 1e-9, 1e-9);
    compare("aten::_fft_c2r", TABI_DTYPE_COMPLEX128, 1, 2, s2,
            (tabi_value[]){tabi_int_list(fd, 1), tabi_int(2), tabi_int(100)}, 3, 1e-9, 1e-9);
  }
  /* mm: square operands so both are [n, n] */
  int64_t sq[2] = {64, 64}, bsq[3] = {3, 40, 40};
  compare("aten::mm", TABI_DTYPE_FLOAT32, 2, 2, sq, NULL, 0, 1e-5, 1e-4);
  compare("aten::mm", TABI_DTYPE_FLOAT64, 2, 2, sq, NULL, 0, 1e-10, 1e-10);
  compare("aten::mm", TABI_DTYPE_FLOAT16, 2, 2, sq, NULL, 0, 1e-2, 1e-2);
  compare("aten::mm", TABI_DTYPE_INT32, 2, 2, sq, NULL, 0, 0, 0);
  compare("aten::bmm", TABI_DTYPE_FLOAT32, 2, 3, bsq, NULL, 0, 1e-5, 1e-4);
  compare("aten::mm", TABI_DTYPE_COMPLEX64, 2, 2, sq, NULL, 0, 1e-5, 1e-4);
  /* sizes off the 64x64 tiles of the ROCm GEMM; addmm's epilogue; bfloat16 */
  int64_t odd[2] = {130, 130};
  compare("aten::mm", TABI_DTYPE_FLOAT32, 2, 2, odd, NULL, 0, 1e-5, 1e-4);
  compare("aten::mm", TABI_DTYPE_BFLOAT16, 2, 2, sq, NULL, 0, 3e-2, 3e-2);
  compare("aten::addmm", TABI_DTYPE_FLOAT32, 3, 2, odd, (tabi_value[]){tabi_float(0.5), tabi_float(2)}, 2,
          1e-5, 1e-4);
  compare("aten::addmm", TABI_DTYPE_FLOAT64, 3, 2, sq, (tabi_value[]){tabi_float(-1), tabi_float(0.25)}, 2,
          1e-10, 1e-10);
  /* alpha 1e-310 is 0 in float32's math type, so inf in mat1 makes NaN rows
   * (torch 1.13 on the CPU: 0 * inf); in float64 it is not (inf rows). gcc
   * 12.2 once vectorized the plugin's rounding away (tc_blas.cu). A zero
   * alpha still forms the product, where BLAS skips it (an H200 gave
   * beta * self; gpusim's cuBLAS and rocBLAS skip it too). */
  {
    static const struct {
      tabi_dtype dt;
      double alpha, beta;
      int inf_in_m, k;
    } zc[] = {
        {TABI_DTYPE_FLOAT32, 1e-310, 1, 0, 1},  {TABI_DTYPE_FLOAT64, 1e-310, 1, 0, 1},
        {TABI_DTYPE_FLOAT32, 0, 0, 0, 3},       {TABI_DTYPE_FLOAT32, 0, 2, 1, 3},
        {TABI_DTYPE_FLOAT64, 0, 1, 1, 3},       {TABI_DTYPE_FLOAT16, 0, 1, 0, 3},
        {TABI_DTYPE_BFLOAT16, 0, 0.5, 1, 3},    {TABI_DTYPE_COMPLEX64, 0, 1, 0, 3},
        {TABI_DTYPE_COMPLEX128, 0, -1, 1, 3},
    };
    for (size_t z = 0; z < sizeof zc / sizeof zc[0]; z++) {
      int64_t k = zc[z].k, s1[1] = {4}, a2[2] = {4, k}, m2[2] = {k, 4};
      double hs[4] = {-1.64, 0.5, 3, -0.0}, ha[12], hm[12];
      for (int i = 0; i < 12; i++) {
        ha[i] = i % 3 == 1 ? -0.0 : 0.37 * i - 2;
        hm[i] = 1.31 - 0.29 * i;
      }
      if (zc[z].inf_in_m) hm[k * 4 - 2] = -INFINITY; /* the last row of mat2, column 2 */
      else ha[k * 3 + k - 1] = INFINITY;            /* row 3 of mat1 when k is 1, row 1 else */
      tabi_tensor *gs = NULL, *rs = NULL, *ga = NULL, *ra = NULL, *gm = NULL, *rm = NULL;
      both_tensor(zc[z].dt, z < 2 ? 0 : 1, s1, hs, &gs, &rs); /* the first two: a 0-d self, beta True */
      tabi_value beta = z < 2 ? tabi_bool(1) : tabi_float(zc[z].beta);
      both_tensor(zc[z].dt, 2, a2, ha, &ga, &ra);
      both_tensor(zc[z].dt, 2, m2, hm, &gm, &rm);
      tabi_value gv[5] = {tabi_tensor_value(gs), tabi_tensor_value(ga), tabi_tensor_value(gm),
                          beta, tabi_float(zc[z].alpha)};
      tabi_value rv[5] = {tabi_tensor_value(rs), tabi_tensor_value(ra), tabi_tensor_value(rm), beta,
                          tabi_float(zc[z].alpha)};
      if (gs && ga && gm) compare_built("aten::addmm", gv, rv, 5, 0, 0);
      tabi_tensor *t[6] = {gs, rs, ga, ra, gm, rm};
      for (int i = 0; i < 6; i++) tabi_tensor_release(t[i]);
    }
  }
  /* integer division by zero is an error, not garbage */
  {
    int64_t one[1] = {3};
    int32_t num[3] = {7, -7, 1}, den[3] = {2, 0, 1};
    tabi_tensor *a = NULL, *b = NULL;
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT32, 1, one, num, sizeof num, &a));
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_INT32, 1, one, den, sizeof den, &b));
    tabi_op op;
    tabi_op_find(gpu, "prims::div", &op);
    tabi_value args[2] = {tabi_tensor_value(a), tabi_tensor_value(b)}, o = tabi_none();
    CHECK_ERR(tabi_call(gpu, op, args, 2, &o, 1), TABI_ERR_INVALID_ARGUMENT, "ZeroDivisionError");
    tabi_tensor_release(a);
    tabi_tensor_release(b);
  }
  /* Philox: the same seed gives the same numbers as the reference, bit for
   * bit, for uniform in every floating dtype (lo + span * u: a span that is
   * not a power of two makes the product inexact, so a fused multiply-add
   * would round differently: the GPU plugins are built without contraction,
   * plugins/cuda/CMakeLists.txt) */
  {
    const tabi_dtype udt[4] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16};
    const double lo[2] = {-1, -0.3}, hi[2] = {3, 2.9};
    for (int d = 0; d < 4; d++)
      for (int r = 0; r < 2; r++) {
        int64_t shape[2] = {100, 37};
        tabi_runtime_manual_seed(gpu, CUDA0, 1234 + r);
        tabi_runtime_manual_seed(ref, CPU, 1234 + r);
        tabi_op og, orf;
        tabi_op_find(gpu, "prims::uniform", &og);
        tabi_op_find(ref, "prims::uniform", &orf);
        tabi_value ga[5] = {tabi_int_list(shape, 2), tabi_float(lo[r]), tabi_float(hi[r]),
                            tabi_dtype_value(udt[d]), tabi_device_value(CUDA0)};
        tabi_value ra[5] = {tabi_int_list(shape, 2), tabi_float(lo[r]), tabi_float(hi[r]),
                            tabi_dtype_value(udt[d]), tabi_device_value(CPU)};
        tabi_value go = tabi_none(), ro = tabi_none();
        CHECK_OK(tabi_call(gpu, og, ga, 5, &go, 1));
        CHECK_OK(tabi_call(ref, orf, ra, 5, &ro, 1));
        static double x[3700], y[3700];
        size_t nb = 3700 * tabi_dtype_size(udt[d]);
        if (go.u.t && ro.u.t) {
          CHECK_OK(tabi_tensor_to_host(gpu, go.u.t, x, nb));
          CHECK_OK(tabi_tensor_to_host(ref, ro.u.t, y, nb));
          if (memcmp(x, y, nb) != 0) {
            fprintf(stderr, "prims::uniform %s [%g, %g): not the reference's bits\n",
                    tabi_dtype_name(udt[d]), lo[r], hi[r]);
            CHECK(0);
          }
        }
        tabi_value_release(&go);
        tabi_value_release(&ro);
      }
  }
  padup_cases();
  pool_cases();
  misc_cases();
  norm_cases();
  idx_cases(); /* index, index_put, scatter_reduce.two, masked_scatter, nonzero, randperm (tc_idx.cu) */
  conv_bwd_cases(); /* convolution_backward (tc_conv.cu) */
  bn_cases();       /* the three batch-norm forms (tc_bn.cu) */
  create_cases();   /* empty, full, full_like, fill, scalar_tensor (tc_create.cu) */
  vec_cases();      /* contiguous float32/float16/bfloat16 elementwise (tc_ew_vec.cu) */
  svd_cases(); /* prims::svd (tc_svd.cu) */
  /* last, so the cases above keep the inputs of the GPU runs that passed them
   * (every case draws from one urand sequence) */
  rows_cases(); /* softmax and layer norm rows of every length class (tc_nn.cu) */
  red_cases();  /* reductions, argmax, sort, cumsum at sizes that take every path */
  aten_unary_cases(); /* aten unary ops run natively (TC_ATEN_UNARY_LIST) */
  aten_binary_cases(); /* and the binary ones (TC_ATEN_BINARY_OPS) */
  aten_red_cases();    /* the aten reductions (REF_RED_ATEN_LIST) */
  dropout_cases();     /* native_dropout, one pass (tc_random.cu) */
  cat_cases();         /* prims::cat, batched launches (tc_shape.cu) */
  mm_strided_cases();  /* matmul operands with no unit stride (tc_blas.cu) */
  copy_tiled_cases();  /* transposing copies through tiles (tc_shape.cu) */
  lt_cache_cases(argv[1]); /* addmm's bias epilogue, its cached heuristic (tc_blas.cu) */
  bs_cache_cases(argv[1]); /* FFTs of one length both ways; ROCm's Bluestein filter cache (tc_fft.cu) */
  select_cases();          /* index_select, a block a row (tc_index.cu) */
  tabi_runtime_destroy(gpu);
  tabi_runtime_destroy(ref);
  return check_report();
}
