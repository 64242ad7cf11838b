/* tests/cuda/test_cuda_ops_create.c: the factory ops built on the device
 * (plugins/cuda/tc_create.cu): empty, empty_strided, full, full_like, fill and
 * scalar_tensor, aten and prims, against the reference's host-built results,
 * byte for byte (every dtype, fill values whose bytes repeat and ones that do
 * not, sizes off the 8-byte words, dense permuted layouts), with the
 * reference's errors; and two properties of building on the device: no host
 * storage is allocated, and a size no device holds fails at once with
 * TABI_ERR_OUT_OF_MEMORY (the H200 session's prims::full of 9.9 TB ran past
 * its timeout). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

/* g (device) and r (CPU): same dtype, shape and strides, and the same bytes in
 * logical order (bitwise: -0.0, NaN payloads, complex imaginary parts). */
static void same_bytes(const char *what, tabi_tensor *g, tabi_tensor *r) {
  if (!g || !r) return;
  int ok = tabi_tensor_dtype(g) == tabi_tensor_dtype(r) && g->dl.ndim == r->dl.ndim &&
           g->dl.device.device_type == CUDA0.device_type;
  for (int32_t i = 0; ok && i < g->dl.ndim; i++)
    ok = g->dl.shape[i] == r->dl.shape[i] && (g->dl.shape[i] < 2 || g->dl.strides[i] == r->dl.strides[i]);
  CHECK_MSG(ok, "%s: dtype/shape/strides/device differ from the reference's", what);
  if (!ok) return;
  uint64_t nb = (uint64_t)tabi_tensor_numel(g) * (uint64_t)tabi_dtype_size(tabi_tensor_dtype(g));
  unsigned char *x = malloc(nb + 1), *y = malloc(nb + 1);
  CHECK_OK(tabi_tensor_to_host(gpu, g, x, nb));
  CHECK_OK(tabi_tensor_to_host(ref, r, y, nb));
  uint64_t first = nb;
  for (uint64_t i = 0; i < nb && first == nb; i++)
    if (x[i] != y[i]) first = i;
  CHECK_MSG(first == nb, "%s: byte %llu of %llu is %02x, the reference's %02x", what, (unsigned long long)first,
            (unsigned long long)nb, first < nb ? x[first] : 0, first < nb ? y[first] : 0);
  free(x);
  free(y);
}

/* cuda_ops_cases_on_cpu runs these cases with the CPU plugin as the device
 * under test: its results are host storage. */
#define on_host (CUDA0.device_type == kDLCPU)

static uint64_t host_allocs(void) {
  tabi_memory_stats s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  CHECK_OK(tabi_runtime_memory_stats(gpu, CPU, &s));
  return s.num_allocs;
}

/* aten::full and prims::full of each dtype with values whose bytes repeat
 * (memset) and do not (the word kernel), at sizes around the words. */
static void full_cases(void) {
  static const tabi_dtype dts[] = {
      TABI_DTYPE_BOOL,    TABI_DTYPE_UINT8,    TABI_DTYPE_INT8,    TABI_DTYPE_INT16,
      TABI_DTYPE_INT32,   TABI_DTYPE_INT64,    TABI_DTYPE_FLOAT16, TABI_DTYPE_BFLOAT16,
      TABI_DTYPE_FLOAT32, TABI_DTYPE_FLOAT64,  TABI_DTYPE_COMPLEX64, TABI_DTYPE_COMPLEX128,
  };
  const int64_t s0[1] = {0}, s1[3] = {5, 7, 3}, s2[1] = {1000003}, s3[2] = {3, 1};
  const int64_t *shapes[5] = {s0, NULL, s1, s2, s3};
  const int32_t nds[5] = {1, 0, 3, 1, 2};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    tabi_dtype dt = dts[d];
    int fl = tabi_dtype_is_floating(dt), cx = tabi_dtype_is_complex(dt);
    /* 0 and -1 repeat their bytes; the third does not (but for bool: True) */
    tabi_value vals[3] = {
        tabi_int(0),
        dt == TABI_DTYPE_BOOL ? tabi_bool(1) : dt == TABI_DTYPE_UINT8 ? tabi_int(255) : tabi_int(-1),
        cx   ? tabi_complex(1.5, -2.25)
        : fl ? tabi_float(-0.1)
        : dt == TABI_DTYPE_BOOL ? tabi_float(0.5)
        : dt == TABI_DTYPE_UINT8 || dt == TABI_DTYPE_INT8 ? tabi_int(93)
                                                          : tabi_int(-12345 + (dt == TABI_DTYPE_INT64 ? 0 : 1))};
    for (int k = 0; k < 3; k++)
      for (int s = 0; s < 5; s++) {
        char what[96];
        snprintf(what, sizeof what, "full %s value %d shape %d", tabi_dtype_name(dt), k, s);
        const int64_t *sh = shapes[s] ? shapes[s] : s0;
        tabi_value ga[6] = {tabi_int_list(sh, nds[s]), vals[k], tabi_dtype_value(dt), tabi_none(),
                            tabi_device_value(CUDA0), tabi_none()};
        tabi_value ra[6];
        memcpy(ra, ga, sizeof ra);
        ra[4] = tabi_device_value(CPU);
        const char *name = s % 2 ? "prims::full" : "aten::full";
        if (s % 2) { /* prims::full(shape, fill_value, *, dtype, device, requires_grad) */
          ga[3] = tabi_device_value(CUDA0);
          ra[3] = tabi_device_value(CPU);
          ga[4] = ra[4] = tabi_bool(0);
        }
        uint64_t before = host_allocs();
        tabi_tensor *g = call_tensor(gpu, name, ga, s % 2 ? 5 : 6);
        CHECK_MSG(on_host || host_allocs() == before, "%s: %llu host storage allocations on the way", what,
                  (unsigned long long)(host_allocs() - before));
        tabi_tensor *r = call_tensor(ref, name, ra, s % 2 ? 5 : 6);
        same_bytes(what, g, r);
        tabi_tensor_release(g);
        tabi_tensor_release(r);
      }
  }
}

/* full_like / fill of a permuted (channels-last) self keep its strides;
 * scalar_tensor; empty's geometry; full_like to the CPU (the reference's
 * build, from the device kernel). */
static void like_cases(void) {
  const int64_t sh[4] = {2, 4, 5, 3}, perm[4] = {0, 3, 1, 2};
  tabi_tensor *g = NULL, *r = NULL;
  both_random(TABI_DTYPE_FLOAT32, 4, sh, &g, &r);
  both_permute(&g, &r, 4, perm);
  for (int dti = 0; dti < 3; dti++) {
    tabi_dtype dt = dti == 0 ? TABI_DTYPE_FLOAT32 : dti == 1 ? TABI_DTYPE_FLOAT16 : TABI_DTYPE_COMPLEX128;
    tabi_value ga[7] = {tabi_tensor_value(g), tabi_float(2.5), tabi_dtype_value(dt), tabi_none(),
                        tabi_none(),          tabi_none(),     tabi_none()};
    tabi_value ra[7];
    memcpy(ra, ga, sizeof ra);
    ra[0] = tabi_tensor_value(r);
    tabi_tensor *go = call_tensor(gpu, "aten::full_like", ga, 7), *ro = call_tensor(ref, "aten::full_like", ra, 7);
    same_bytes("full_like of a channels-last self", go, ro);
    if (go) CHECK(go->dl.strides[1] == 1); /* preserved: C innermost */
    tabi_tensor_release(go);
    tabi_tensor_release(ro);
  }
  {
    tabi_value ga[2] = {tabi_tensor_value(g), tabi_float(-7.75)}, ra[2] = {tabi_tensor_value(r), tabi_float(-7.75)};
    const char *names[2] = {"aten::fill.Scalar", "prims::fill"};
    for (int k = 0; k < 2; k++) {
      tabi_tensor *go = call_tensor(gpu, names[k], ga, 2), *ro = call_tensor(ref, names[k], ra, 2);
      same_bytes(names[k], go, ro);
      tabi_tensor_release(go);
      tabi_tensor_release(ro);
    }
  }
  {
    tabi_value ga[7] = {tabi_tensor_value(g), tabi_int(3), tabi_none(), tabi_none(),
                        tabi_device_value(CPU), tabi_none(), tabi_none()};
    tabi_tensor *go = call_tensor(gpu, "aten::full_like", ga, 7);
    CHECK(go && go->dl.device.device_type == kDLCPU && ((const float *)tabi_tensor_data(go))[7] == 3.0f);
    tabi_tensor_release(go);
  }
  {
    tabi_value ga[5] = {tabi_complex(0.5, 4), tabi_dtype_value(TABI_DTYPE_COMPLEX64), tabi_none(),
                        tabi_device_value(CUDA0), tabi_none()};
    tabi_value ra[5];
    memcpy(ra, ga, sizeof ra);
    ra[3] = tabi_device_value(CPU);
    tabi_tensor *go = call_tensor(gpu, "aten::scalar_tensor", ga, 5), *ro = call_tensor(ref, "aten::scalar_tensor", ra, 5);
    same_bytes("scalar_tensor", go, ro);
    tabi_tensor_release(go);
    tabi_tensor_release(ro);
  }
  {
    /* empty_strided with a gap: the strides asked for, on the device */
    const int64_t size[2] = {3, 4}, stride[2] = {9, 2};
    tabi_value ga[6] = {tabi_int_list(size, 2), tabi_int_list(stride, 2), tabi_dtype_value(TABI_DTYPE_INT16),
                        tabi_none(),            tabi_device_value(CUDA0), tabi_none()};
    tabi_tensor *go = call_tensor(gpu, "aten::empty_strided", ga, 6);
    CHECK(go && go->dl.device.device_type == CUDA0.device_type && go->dl.strides[0] == 9 &&
          go->dl.strides[1] == 2 && tabi_tensor_dtype(go) == TABI_DTYPE_INT16);
    tabi_tensor_release(go);
  }
  tabi_tensor_release(g);
  tabi_tensor_release(r);
}

/* The reference's errors, word for word; a size no device holds fails at
 * once; nothing is left allocated by a failed call. */
static void error_cases(void) {
  struct {
    const char *name;
    int64_t size[3];
    int32_t nd;
    tabi_value v;
    tabi_dtype dt;
  } es[] = {
      {"aten::full", {2, -1}, 2, tabi_float(1), TABI_DTYPE_FLOAT32},  /* negative dim */
      {"aten::full", {4}, 1, tabi_int(300), TABI_DTYPE_INT8},         /* does not fit */
      {"aten::full", {4}, 1, tabi_complex(1, 2), TABI_DTYPE_FLOAT32}, /* complex into real */
      {"aten::full", {4}, 1, tabi_float(NAN), TABI_DTYPE_INT32},      /* NaN into an integer */
  };
  for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
    tabi_value ga[6] = {tabi_int_list(es[i].size, es[i].nd), es[i].v, tabi_dtype_value(es[i].dt), tabi_none(),
                        tabi_device_value(CUDA0), tabi_none()};
    tabi_value ra[6];
    memcpy(ra, ga, sizeof ra);
    ra[4] = tabi_device_value(CPU);
    char what[64];
    snprintf(what, sizeof what, "%s case %zu", es[i].name, i);
    same_error_built(what, es[i].name, ga, ra, 6);
  }
  /* prims::full([3, 3, 2^40], True, bool): 9.9 TB (not on the host, which
   * may overcommit: that is the host's business, as for ATen) */
  if (on_host) return;
  const int64_t huge[3] = {3, 3, (int64_t)1 << 40};
  tabi_memory_stats s0, s1;
  memset(&s0, 0, sizeof s0);
  s0.struct_size = s1.struct_size = sizeof s0;
  CHECK_OK(tabi_runtime_memory_stats(gpu, CUDA0, &s0));
  uint64_t before = host_allocs();
  tabi_value ga[5] = {tabi_int_list(huge, 3), tabi_bool(1), tabi_dtype_value(TABI_DTYPE_BOOL),
                      tabi_device_value(CUDA0), tabi_bool(0)};
  tabi_op op;
  CHECK_OK(tabi_op_find(gpu, "prims::full", &op));
  tabi_value o = tabi_none();
  CHECK_ERR(tabi_call(gpu, op, ga, 5, &o, 1), TABI_ERR_OUT_OF_MEMORY, "cannot allocate");
  CHECK(o.tag == TABI_TAG_NONE && host_allocs() == before);
  CHECK_OK(tabi_runtime_memory_stats(gpu, CUDA0, &s1));
  CHECK(s1.allocated == s0.allocated);
}

void create_cases(void) {
  full_cases();
  like_cases();
  error_cases();
}
