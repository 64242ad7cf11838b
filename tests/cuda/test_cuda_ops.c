/* tests/cuda/test_cuda_ops.c: the GPU kernels against the reference plugin on
 * random inputs (GPU only; exits 77 "skipped" when no device is present).
 * Each case builds the same host data in two runtimes, calls the op in both,
 * and compares within the float tolerance; random ops must match bit for bit
 * for a shared seed. The ROCm plugin compiles the same kernel sources, so the
 * same cases run against it (argv[3] = 10, kDLROCM). argv[1]: the device plugin; argv[2]: libtabi_reference.so;
 * argv[3]: its DLDeviceType (default 2, kDLCUDA). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabi/runtime.h>

#include "check.h"

static tabi_runtime *gpu, *ref;
static int cmp_out; /* the output compare() checks (max pooling's indices: 1) */
static DLDevice CUDA0 = {kDLCUDA, 0}; /* the device under test (CUDA or ROCm) */
static const DLDevice CPU = {kDLCPU, 0};

static uint64_t rng = 88172645463325252ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* Calls `name` with tensor args built from the same float64 host data
 * (converted to dtype), plus extra trailing values, in both runtimes; compares
 * output 0 as float64 with rtol/atol. */
static void compare(const char *name, tabi_dtype dt, int nt, int32_t nd, const int64_t *shape,
                    const tabi_value *extra, int nextra, double rtol, double atol) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  tabi_value ga[8], ra[8];
  tabi_tensor *gt[4] = {0}, *rt[4] = {0};
  for (int k = 0; k < nt; k++) {
    double *h = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) h[i] = urand() * 4 - 2;
    tabi_tensor *tmp_g = NULL, *tmp_r = NULL;
    CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &tmp_g));
    CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &tmp_r));
    free(h);
    tabi_op cg, cr;
    tabi_op_find(gpu, "prims::convert_element_type", &cg);
    tabi_op_find(ref, "prims::convert_element_type", &cr);
    tabi_value a1[2] = {tabi_tensor_value(tmp_g), tabi_dtype_value(dt)}, o1 = tabi_none();
    tabi_value a2[2] = {tabi_tensor_value(tmp_r), tabi_dtype_value(dt)}, o2 = tabi_none();
    CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
    CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
    gt[k] = o1.u.t;
    rt[k] = o2.u.t;
    tabi_tensor_release(tmp_g);
    tabi_tensor_release(tmp_r);
    ga[k] = tabi_tensor_value(gt[k]);
    ra[k] = tabi_tensor_value(rt[k]);
  }
  for (int k = 0; k < nextra; k++) ga[nt + k] = ra[nt + k] = extra[k];
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_value go[3] = {tabi_none(), tabi_none(), tabi_none()}, ro[3] = {tabi_none(), tabi_none(), tabi_none()};
  tabi_status sg = tabi_call(gpu, og, ga, nt + nextra, go, 3);
  CHECK_MSG(sg == TABI_OK, "%s: %s", name, tabi_last_error());
  tabi_status sr = tabi_call(ref, orf, ra, nt + nextra, ro, 3);
  CHECK_MSG(sr == TABI_OK, "%s (reference): %s", name, tabi_last_error());
  if (sg == TABI_OK && sr == TABI_OK) {
    tabi_op cg, cr;
    tabi_op_find(gpu, "prims::convert_element_type", &cg);
    tabi_op_find(ref, "prims::convert_element_type", &cr);
    tabi_value a1[2] = {go[cmp_out], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o1 = tabi_none();
    tabi_value a2[2] = {ro[cmp_out], tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o2 = tabi_none();
    CHECK_OK(tabi_call(gpu, cg, a1, 2, &o1, 1));
    CHECK_OK(tabi_call(ref, cr, a2, 2, &o2, 1));
    int64_t m = o2.u.t ? 1 : 0;
    for (int32_t i = 0; o2.u.t && i < o2.u.t->dl.ndim; i++) m *= o2.u.t->dl.shape[i];
    double *x = calloc((size_t)m + 1, 8), *y = calloc((size_t)m + 1, 8);
    CHECK_OK(tabi_tensor_to_host(gpu, o1.u.t, x, (uint64_t)m * 8));
    CHECK_OK(tabi_tensor_to_host(ref, o2.u.t, y, (uint64_t)m * 8));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = x[i] == y[i] || (isnan(x[i]) && isnan(y[i])) || fabs(x[i] - y[i]) <= atol + rtol * fabs(y[i]);
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "%s %s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", name,
              tabi_dtype_name(dt), (long long)bad, (long long)m, (long long)first,
              first >= 0 ? x[first] : 0.0, first >= 0 ? y[first] : 0.0);
    free(x);
    free(y);
    tabi_value_release(&o1);
    tabi_value_release(&o2);
  }
  for (int k = 0; k < 3; k++) {
    tabi_value_release(&go[k]);
    tabi_value_release(&ro[k]);
  }
  for (int k = 0; k < nt; k++) {
    tabi_tensor_release(gt[k]);
    tabi_tensor_release(rt[k]);
  }
}

/* Bad arguments: the device kernel must refuse with the reference's status and
 * message (both runtimes get a float32 tensor of `shape`, then `extra`). */
static void same_error(const char *name, int32_t nd, const int64_t *shape, const tabi_value *extra,
                       int nextra) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  float *h = calloc((size_t)n + 1, sizeof(float));
  tabi_tensor *gt = NULL, *rt = NULL;
  CHECK_OK(tabi_tensor_from_host(gpu, CUDA0, TABI_DTYPE_FLOAT32, nd, shape, h, (uint64_t)n * 4, &gt));
  CHECK_OK(tabi_tensor_from_host(ref, CPU, TABI_DTYPE_FLOAT32, nd, shape, h, (uint64_t)n * 4, &rt));
  free(h);
  tabi_value ga[8], ra[8], go = tabi_none(), ro = tabi_none();
  ga[0] = tabi_tensor_value(gt);
  ra[0] = tabi_tensor_value(rt);
  for (int k = 0; k < nextra; k++) ga[1 + k] = ra[1 + k] = extra[k];
  tabi_op og, orf;
  CHECK_OK(tabi_op_find(gpu, name, &og));
  CHECK_OK(tabi_op_find(ref, name, &orf));
  tabi_status sr = tabi_call(ref, orf, ra, 1 + nextra, &ro, 1);
  char rmsg[512];
  snprintf(rmsg, sizeof rmsg, "%s", tabi_last_error());
  tabi_status sg = tabi_call(gpu, og, ga, 1 + nextra, &go, 1);
  CHECK_MSG(sr != TABI_OK && sg == sr && strcmp(tabi_last_error(), rmsg) == 0,
            "%s: status %d \"%s\", reference %d \"%s\"", name, (int)sg, tabi_last_error(), (int)sr, rmsg);
  tabi_value_release(&go);
  tabi_value_release(&ro);
  tabi_tensor_release(gt);
  tabi_tensor_release(rt);
}

/* A tensor of dt on (rt, dev) from float64 host values. */
static tabi_tensor *upload(tabi_runtime *rt, DLDevice dev, tabi_dtype dt, int32_t nd, const int64_t *shape,
                           const double *h) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  tabi_tensor *t = NULL;
  tabi_op cv;
  CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, nd, shape, h, (uint64_t)n * 8, &t));
  tabi_op_find(rt, "prims::convert_element_type", &cv);
  tabi_value a[2] = {tabi_tensor_value(t), tabi_dtype_value(dt)}, o = tabi_none();
  CHECK_OK(tabi_call(rt, cv, a, 2, &o, 1));
  tabi_tensor_release(t);
  return o.u.t;
}

/* Pooling backward on both runtimes: self random, grad_output random of the
 * forward's output shape, then bwd(grad_output, self, params[0..nbp), [indices]):
 * max (with_idx) takes the forward's indices, or (random_idx) the same random
 * in-plane indices on both. grad_input must match the reference exactly (the
 * kernels sum in the reference's order, in double). */
static void pool_backward(const char *fwd, const char *bwd, tabi_dtype dt, int32_t nd, const int64_t *shape,
                          const tabi_value *params, int np, int nbp, int with_idx, int random_idx) {
  int64_t n = 1;
  for (int32_t i = 0; i < nd; i++) n *= shape[i];
  double *hx = malloc(sizeof(double) * (size_t)n), *hg = NULL, *res[2] = {NULL, NULL};
  int64_t *hi = NULL, m = 0, no = 0;
  for (int64_t i = 0; i < n; i++) hx[i] = urand() * 4 - 2;
  for (int k = 0; k < 2; k++) {
    tabi_runtime *rt = k ? ref : gpu;
    DLDevice dev = k ? CPU : CUDA0;
    tabi_tensor *x = upload(rt, dev, dt, nd, shape, hx);
    tabi_value fa[8] = {tabi_tensor_value(x)}, fo[2] = {tabi_none(), tabi_none()}, go_ = tabi_none();
    for (int i = 0; i < np; i++) fa[1 + i] = params[i];
    tabi_op op;
    CHECK_OK(tabi_op_find(rt, fwd, &op));
    CHECK_OK(tabi_call(rt, op, fa, 1 + np, fo, with_idx ? 2 : 1));
    if (!fo[0].u.t) {
      tabi_tensor_release(x);
      break;
    }
    const tabi_tensor *ot = fo[0].u.t;
    if (!hg) { /* the same gradient and random indices on both */
      no = 1;
      for (int32_t i = 0; i < ot->dl.ndim; i++) no *= ot->dl.shape[i];
      hg = malloc(sizeof(double) * (size_t)no + 8);
      hi = malloc(sizeof(int64_t) * (size_t)no + 8);
      int64_t plane = shape[nd - 1] * shape[nd - 2];
      for (int64_t i = 0; i < no; i++) {
        hg[i] = urand() * 4 - 2;
        hi[i] = (int64_t)(urand() * (double)plane);
      }
    }
    tabi_tensor *g = upload(rt, dev, dt, ot->dl.ndim, ot->dl.shape, hg), *ri = NULL;
    if (random_idx)
      CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_INT64, ot->dl.ndim, ot->dl.shape, hi, (uint64_t)no * 8, &ri));
    tabi_value ba[10] = {tabi_tensor_value(g), tabi_tensor_value(x)};
    for (int i = 0; i < nbp; i++) ba[2 + i] = params[i];
    if (with_idx) ba[2 + nbp] = random_idx ? tabi_tensor_value(ri) : fo[1];
    CHECK_OK(tabi_op_find(rt, bwd, &op));
    tabi_status st = tabi_call(rt, op, ba, 2 + nbp + (with_idx ? 1 : 0), &go_, 1);
    CHECK_MSG(st == TABI_OK, "%s%s: %s", bwd, k ? " (reference)" : "", tabi_last_error());
    if (st == TABI_OK) {
      tabi_op cv;
      tabi_op_find(rt, "prims::convert_element_type", &cv);
      tabi_value a[2] = {go_, tabi_dtype_value(TABI_DTYPE_FLOAT64)}, o = tabi_none();
      CHECK_OK(tabi_call(rt, cv, a, 2, &o, 1));
      m = n;
      res[k] = calloc((size_t)n + 1, 8);
      if (o.u.t) CHECK_OK(tabi_tensor_to_host(rt, o.u.t, res[k], (uint64_t)n * 8));
      tabi_value_release(&o);
    }
    tabi_value_release(&go_);
    tabi_value_release(&fo[0]);
    tabi_value_release(&fo[1]);
    tabi_tensor_release(g);
    if (ri) tabi_tensor_release(ri);
    tabi_tensor_release(x);
  }
  if (res[0] && res[1]) {
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < m; i++) {
      int ok = res[0][i] == res[1][i] || (isnan(res[0][i]) && isnan(res[1][i]));
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
    CHECK_MSG(bad == 0, "%s %s%s: %lld of %lld elements differ; first at %lld: %.17g vs %.17g", bwd,
              tabi_dtype_name(dt), random_idx ? " (random indices)" : "", (long long)bad, (long long)m,
              (long long)first, first >= 0 ? res[0][first] : 0.0, first >= 0 ? res[1][first] : 0.0);
  }
  free(hx);
  free(hg);
  free(hi);
  free(res[0]);
  free(res[1]);
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
  /* Philox: the same seed gives the same numbers as the reference, bit for bit */
  {
    int64_t shape[2] = {100, 37};
    tabi_runtime_manual_seed(gpu, CUDA0, 1234);
    tabi_runtime_manual_seed(ref, CPU, 1234);
    tabi_op og, orf;
    tabi_op_find(gpu, "prims::uniform", &og);
    tabi_op_find(ref, "prims::uniform", &orf);
    tabi_value ga[5] = {tabi_int_list(shape, 2), tabi_float(-1), tabi_float(3),
                        tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(CUDA0)};
    tabi_value ra[5] = {tabi_int_list(shape, 2), tabi_float(-1), tabi_float(3),
                        tabi_dtype_value(TABI_DTYPE_FLOAT32), tabi_device_value(CPU)};
    tabi_value go = tabi_none(), ro = tabi_none();
    CHECK_OK(tabi_call(gpu, og, ga, 5, &go, 1));
    CHECK_OK(tabi_call(ref, orf, ra, 5, &ro, 1));
    float x[3700], y[3700];
    if (go.u.t && ro.u.t) {
      CHECK_OK(tabi_tensor_to_host(gpu, go.u.t, x, sizeof x));
      CHECK_OK(tabi_tensor_to_host(ref, ro.u.t, y, sizeof y));
      CHECK(memcmp(x, y, sizeof x) == 0);
    }
    tabi_value_release(&go);
    tabi_value_release(&ro);
  }
  /* padding, upsampling, col2im (tc_pad_up.cu); copies and nearest are exact */
  {
    int64_t p3[3] = {2, 5, 7}, p4[4] = {2, 3, 6, 7}, p5[5] = {2, 2, 4, 5, 6};
    int64_t rf1[2] = {3, -1}, rf2[4] = {2, 1, -1, 3}, rf3[6] = {1, 2, 0, 3, 2, 1};
    int64_t rp2[4] = {4, 9, 2, -1}, rp3[6] = {3, 1, 5, 0, 2, 2};
    int64_t os[2] = {9, 14}, os2[2] = {10, 14};
    double sf[2] = {1.7, 0.6};
    int64_t cos_[2] = {9, 8}, cks[2] = {3, 2}, cdl[2] = {1, 2}, cpd[2] = {1, 0}, cst[2] = {2, 1};
    int64_t cshape[3] = {2, 18, 30};
    const tabi_dtype pdt[6] = {TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64, TABI_DTYPE_FLOAT16,
                               TABI_DTYPE_BFLOAT16, TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128};
    for (int d = 0; d < 6; d++) {
      double rt_ = d < 4 ? frt[d] : 1e-6;
      compare("aten::reflection_pad1d", pdt[d], 1, 3, p3, (tabi_value[]){tabi_int_list(rf1, 2)}, 1, 0, 0);
      compare("aten::reflection_pad2d", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(rf2, 4)}, 1, 0, 0);
      compare("aten::reflection_pad3d", pdt[d], 1, 5, p5, (tabi_value[]){tabi_int_list(rf3, 6)}, 1, 0, 0);
      compare("aten::replication_pad2d", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(rp2, 4)}, 1, 0, 0);
      compare("aten::replication_pad3d", pdt[d], 1, 5, p5, (tabi_value[]){tabi_int_list(rp3, 6)}, 1, 0, 0);
      compare("aten::col2im", pdt[d], 1, 3, cshape,
              (tabi_value[]){tabi_int_list(cos_, 2), tabi_int_list(cks, 2), tabi_int_list(cdl, 2),
                             tabi_int_list(cpd, 2), tabi_int_list(cst, 2)}, 5, rt_, 1e-5);
      if (d >= 4) continue;
      compare("aten::upsample_nearest2d.vec", pdt[d], 1, 4, p4, (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2, 0, 0);
      compare("aten::upsample_nearest2d.vec", pdt[d], 1, 4, p4, (tabi_value[]){tabi_none(), tabi_float_list(sf, 2)}, 2, 0, 0);
      for (int al = 0; al < 2; al++) {
        compare("aten::upsample_bilinear2d.vec", pdt[d], 1, 4, p4,
                (tabi_value[]){tabi_int_list(os2, 2), tabi_bool(al), tabi_none()}, 3, rt_, 1e-5);
        compare("aten::upsample_bilinear2d.vec", pdt[d], 1, 4, p4,
                (tabi_value[]){tabi_none(), tabi_bool(al), tabi_float_list(sf, 2)}, 3, rt_, 1e-5);
      }
    }
    compare("aten::upsample_nearest2d.vec", TABI_DTYPE_UINT8, 1, 4, p4,
            (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2, 0, 0);
    /* their argument errors are the reference's */
    int64_t big[2] = {7, 0}, bad4[4] = {1, 1, 1, 1};
    int64_t s2d[2] = {6, 7}, cbad[3] = {2, 18, 29};
    same_error("aten::reflection_pad1d", 3, p3, (tabi_value[]){tabi_int_list(big, 2)}, 1);
    same_error("aten::reflection_pad2d", 2, p4, (tabi_value[]){tabi_int_list(bad4, 3)}, 1);
    same_error("aten::replication_pad3d", 3, p3, (tabi_value[]){tabi_int_list(rp3, 6)}, 1);
    same_error("aten::upsample_nearest2d.vec", 2, s2d, (tabi_value[]){tabi_int_list(os, 2), tabi_none()}, 2);
    same_error("aten::upsample_bilinear2d.vec", 4, p4,
               (tabi_value[]){tabi_int_list(os, 2), tabi_bool(0), tabi_float_list(sf, 2)}, 3);
    same_error("aten::col2im", 3, cbad,
               (tabi_value[]){tabi_int_list(cos_, 2), tabi_int_list(cks, 2), tabi_int_list(cdl, 2),
                              tabi_int_list(cpd, 2), tabi_int_list(cst, 2)}, 5);
  }
  /* pooling (tc_pool.cu): exact, as the reference (sums in double in its order) */
  {
    int64_t x4[4] = {2, 3, 17, 23}, x3[3] = {3, 11, 13}, x5[5] = {2, 2, 7, 9, 8}, xl[4] = {4, 16, 56, 56};
    int64_t k2[2] = {3, 2}, s2_[2] = {2, 1}, p2[2] = {1, 1}, d2[2] = {1, 2}, k3[3] = {3, 2, 3}, s3_[3] = {2, 2, 1},
            p3[3] = {1, 0, 1}, d3[3] = {2, 1, 1}, k1[1] = {4}, s1[1] = {3}, p1[1] = {2}, o1[1] = {5},
            o2[2] = {5, 7}, o3[3] = {3, 4, 5}, kl[2] = {3, 3}, sl[2] = {2, 2}, pl[2] = {1, 1}, dl[2] = {1, 1};
    for (int d = 0; d < 4; d++) {
      for (int ceil = 0; ceil < 2; ceil++) {
        tabi_value mp2[5] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2),
                             tabi_int_list(d2, 2), tabi_bool(ceil)};
        tabi_value mp3[5] = {tabi_int_list(k3, 3), tabi_int_list(s3_, 3), tabi_int_list(p3, 3),
                             tabi_int_list(d3, 3), tabi_bool(ceil)};
        for (cmp_out = 0; cmp_out < 2; cmp_out++) {
          compare("aten::max_pool2d_with_indices", fdt[d], 1, 4, x4, mp2, 5, 0, 0);
          compare("aten::max_pool2d_with_indices", fdt[d], 1, 3, x3, mp2, 5, 0, 0);
          compare("aten::max_pool3d_with_indices", fdt[d], 1, 5, x5, mp3, 5, 0, 0);
        }
        cmp_out = 0;
        for (int cip = 0; cip < 2; cip++)
          for (int dv = 0; dv < 2; dv++) {
            tabi_value ap2[6] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2),
                                 tabi_bool(ceil), tabi_bool(cip), dv ? tabi_int(-3) : tabi_none()};
            tabi_value ap3[6] = {tabi_int_list(k3, 3), tabi_int_list(s3_, 3), tabi_int_list(p3, 3),
                                 tabi_bool(ceil), tabi_bool(cip), dv ? tabi_int(5) : tabi_none()};
            tabi_value ap1[5] = {tabi_int_list(k1, 1), tabi_int_list(s1, 1), tabi_int_list(p1, 1),
                                 tabi_bool(ceil), tabi_bool(cip)};
            compare("aten::avg_pool2d", fdt[d], 1, 4, x4, ap2, 6, 0, 0);
            compare("aten::avg_pool3d", fdt[d], 1, 5, x5, ap3, 6, 0, 0);
            compare("aten::avg_pool1d", fdt[d], 1, 3, x3, ap1, 5, 0, 0);
            pool_backward("aten::avg_pool2d", "aten::avg_pool2d_backward", fdt[d], 4, x4, ap2, 6, 6, 0, 0);
          }
        pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", fdt[d], 4, x4,
                      mp2, 5, 5, 1, 0);
        pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", fdt[d], 3, x3,
                      mp2, 5, 5, 1, 1);
      }
      tabi_value a1[1] = {tabi_int_list(o1, 1)}, a2[1] = {tabi_int_list(o2, 2)}, a3[1] = {tabi_int_list(o3, 3)};
      compare("aten::adaptive_avg_pool1d", fdt[d], 1, 3, x3, a1, 1, 0, 0);
      compare("aten::_adaptive_avg_pool2d", fdt[d], 1, 4, x4, a2, 1, 0, 0);
      compare("aten::_adaptive_avg_pool3d", fdt[d], 1, 5, x5, a3, 1, 0, 0);
      pool_backward("aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d_backward", fdt[d], 4, x4, a2, 1, 0, 0, 0);
    }
    /* int64 average pooling; a ResNet-sized max pool and its backward (past one grid of blocks) */
    tabi_value ap2[6] = {tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(1),
                         tabi_bool(0), tabi_none()};
    compare("aten::avg_pool2d", TABI_DTYPE_INT64, 1, 4, x4, ap2, 6, 0, 0);
    pool_backward("aten::avg_pool2d", "aten::avg_pool2d_backward", TABI_DTYPE_INT64, 4, x4, ap2, 6, 6, 0, 0);
    tabi_value mpl[5] = {tabi_int_list(kl, 2), tabi_int_list(sl, 2), tabi_int_list(pl, 2), tabi_int_list(dl, 2),
                         tabi_bool(0)};
    cmp_out = 1;
    compare("aten::max_pool2d_with_indices", TABI_DTYPE_FLOAT32, 1, 4, xl, mpl, 5, 0, 0);
    cmp_out = 0;
    pool_backward("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", TABI_DTYPE_FLOAT32, 4,
                  xl, mpl, 5, 5, 1, 0);
    /* their argument errors are the reference's */
    int64_t kbig[2] = {9, 9}, pbad[2] = {2, 2}, oneg[2] = {-1, 2};
    same_error("aten::max_pool2d_with_indices", 4, x4,
               (tabi_value[]){tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(pbad, 2),
                              tabi_int_list(d2, 2), tabi_bool(0)}, 5);
    same_error("aten::avg_pool2d", 2, o2,
               (tabi_value[]){tabi_int_list(k2, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(0),
                              tabi_bool(1), tabi_none()}, 6);
    same_error("aten::avg_pool3d", 5, x5,
               (tabi_value[]){tabi_int_list(kbig, 2), tabi_int_list(s2_, 2), tabi_int_list(p2, 2), tabi_bool(0),
                              tabi_bool(1), tabi_int(0)}, 6);
    same_error("aten::_adaptive_avg_pool2d", 4, x4, (tabi_value[]){tabi_int_list(oneg, 2)}, 1);
    /* an index outside the plane: the reference's error */
    {
      int64_t gs[4] = {1, 1, 2, 2}, xs[4] = {1, 1, 3, 3}, iv[4] = {0, 4, 9, -1};
      double gv[4] = {1, 2, 3, 4}, xv[9] = {0};
      int64_t k22[2] = {2, 2}, s11[2] = {1, 1}, p00[2] = {0, 0};
      char msg[2][512];
      tabi_status stt[2];
      for (int k = 0; k < 2; k++) {
        tabi_runtime *rt = k ? ref : gpu;
        DLDevice dev = k ? CPU : CUDA0;
        tabi_tensor *g = NULL, *x = NULL, *ind = NULL;
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, 4, gs, gv, sizeof gv, &g));
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_FLOAT64, 4, xs, xv, sizeof xv, &x));
        CHECK_OK(tabi_tensor_from_host(rt, dev, TABI_DTYPE_INT64, 4, gs, iv, sizeof iv, &ind));
        tabi_value a[8] = {tabi_tensor_value(g), tabi_tensor_value(x), tabi_int_list(k22, 2), tabi_int_list(s11, 2),
                           tabi_int_list(p00, 2), tabi_int_list(s11, 2), tabi_bool(0), tabi_tensor_value(ind)};
        tabi_value o = tabi_none();
        tabi_op op;
        tabi_op_find(rt, "aten::max_pool2d_with_indices_backward", &op);
        stt[k] = tabi_call(rt, op, a, 8, &o, 1);
        snprintf(msg[k], sizeof msg[k], "%s", tabi_last_error());
        tabi_value_release(&o);
        tabi_tensor_release(g);
        tabi_tensor_release(x);
        tabi_tensor_release(ind);
      }
      CHECK_MSG(stt[1] == TABI_ERR_INDEX && stt[0] == stt[1] && strcmp(msg[0], msg[1]) == 0,
                "max_pool2d backward bad index: %d \"%s\" vs reference %d \"%s\"", (int)stt[0], msg[0],
                (int)stt[1], msg[1]);
    }
  }
  tabi_runtime_destroy(gpu);
  tabi_runtime_destroy(ref);
  return check_report();
}
