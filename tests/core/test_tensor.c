/* test_tensor.c: tensors, views, sizes, copies, the caching allocator, guards,
 * memory hooks, DLPack in and out, Philox, versioned device properties. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tcore_util.h"

static void test_create_and_views(tabi_runtime *rt) {
  tabi_tensor *t = NULL;
  int64_t shape[2] = {2, 3};
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 2, shape, &t));
  CHECK(t->dl.strides[0] == 3 && t->dl.strides[1] == 1 && t->dl.byte_offset == 0);
  CHECK(t->keys == TABI_BACKEND_KEY(kDLCPU) && t->dl.dtype.code == kDLFloat && t->dl.dtype.bits == 32);
  CHECK(tabi_tensor_storage_nbytes(t) == 24 && ((uintptr_t)t->dl.data % 64) == 0);
  float *d = tabi_tensor_data(t);
  for (int i = 0; i < 6; i++) d[i] = (float)i;
  /* A transposed view shares storage and reads back transposed. */
  int64_t ts[2] = {3, 2}, tst[2] = {1, 3};
  tabi_tensor *v;
  CHECK_OK(tabi_tensor_view(rt, t, 2, ts, tst, 0, &v));
  CHECK(tabi_tensor_storage_id(v) == tabi_tensor_storage_id(t));
  float out[6];
  CHECK_OK(tabi_tensor_to_host(rt, v, out, sizeof out));
  CHECK(out[1] == 3.f && out[2] == 1.f && out[5] == 5.f);
  CHECK_ERR(tabi_tensor_to_host(rt, v, out, 8), TABI_ERR_INVALID_ARGUMENT, "nbytes is 8");
  /* Views keep storage alive after the base dies. */
  tabi_tensor_release(t);
  CHECK(((float *)tabi_tensor_data(v))[3] == 3.f);
  int64_t one[1] = {2}, st1[1] = {1};
  tabi_tensor *v2;
  CHECK_OK(tabi_tensor_view(rt, v, 1, one, st1, 16, &v2));
  CHECK(((float *)tabi_tensor_data(v2))[0] == 4.f);
  tabi_tensor_release(v2);
  CHECK_ERR(tabi_tensor_view(rt, v, 1, one, st1, 20, &v2), TABI_ERR_INDEX, "outside a storage of 24 bytes");
  CHECK(v2 == NULL);
  /* A first element off its size's alignment is refused (a GPU would fault),
   * from the runtime and from a plugin's host table alike; an empty view
   * reads nothing and may start there. */
  CHECK_ERR(tabi_tensor_view(rt, v, 1, one, st1, 6, &v2), TABI_ERR_INVALID_ARGUMENT,
            "+ byte_offset 6) is not aligned to its 4-byte size");
  CHECK(v2 == NULL);
  const tabi_host_api *host = tabi_runtime_host(rt);
  CHECK_ERR(host->tensor_view(host->ctx, v, 1, one, st1, 1, &v2), TABI_ERR_INVALID_ARGUMENT, "4-byte size");
  CHECK(v2 == NULL);
  int64_t empty1[1] = {0};
  CHECK_OK(tabi_tensor_view(rt, v, 1, empty1, st1, 3, &v2));
  tabi_tensor_release(v2);
  {
    tabi_tensor *c;
    int64_t four[1] = {4}, c1[1] = {1};
    CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_COMPLEX128, 1, four, &c));
    CHECK_ERR(tabi_tensor_view(rt, c, 1, c1, c1, 8, &v2), TABI_ERR_INVALID_ARGUMENT, "16-byte size");
    CHECK_OK(tabi_tensor_view(rt, c, 1, c1, c1, 16, &v2));
    tabi_tensor_release(v2);
    tabi_tensor_release(c);
  }
  /* A view of no elements may start anywhere (ATen: x[1:] of a [2, 0] tensor). */
  int64_t none[2] = {1, 0}, nst[2] = {1, 1};
  CHECK_OK(tabi_tensor_view(rt, v, 2, none, nst, 4000, &v2));
  CHECK(tabi_tensor_numel(v2) == 0 && v2->dl.byte_offset == 4000);
  tabi_tensor_release(v2);
  CHECK_OK(tabi_tensor_view(rt, v, 1, one, st1, 16, &v2));
  tabi_tensor_retain(v2);
  tabi_tensor_release(v2);
  tabi_tensor_release(v2);
  tabi_tensor_release(v);
  tabi_tensor_release(NULL);

  /* Bad sizes name the dim. */
  int64_t neg[3] = {2, -3, 4}, big[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 1};
  CHECK_ERR(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 3, neg, &t), TABI_ERR_INVALID_ARGUMENT,
            "size of dim 1 is -3");
  CHECK(t == NULL);
  CHECK_ERR(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 3, big, &t), TABI_ERR_INVALID_ARGUMENT,
            "overflows int64 at dim 1");
  int64_t big2[1] = {INT64_C(1) << 62};
  CHECK_ERR(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 1, big2, &t), TABI_ERR_INVALID_ARGUMENT,
            "overflow int64");
  int64_t zero_big[2] = {0, -1};
  CHECK_ERR(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 2, zero_big, &t), TABI_ERR_INVALID_ARGUMENT,
            "dim 1");
  CHECK_ERR(tabi_tensor_empty(rt, CPU, 42, 2, shape, &t), TABI_ERR_TYPE, "dtype 42");
  CHECK_ERR(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, -1, shape, &t), TABI_ERR_INVALID_ARGUMENT, "ndim");
  CHECK_ERR(tabi_tensor_empty(rt, TDEV0, TABI_DTYPE_FLOAT32, 2, shape, &t), TABI_ERR_DEVICE,
            "no loaded plugin provides device type");
  int64_t negst[2] = {1, -1};
  CHECK_ERR(tabi_tensor_empty_strided(rt, CPU, TABI_DTYPE_FLOAT32, 2, shape, negst, &t),
            TABI_ERR_INVALID_ARGUMENT, "stride of dim 1");
  /* Empty, 0-d and many-dim tensors. */
  int64_t empty[2] = {0, 5};
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_INT64, 2, empty, &t));
  CHECK(tabi_tensor_numel(t) == 0 && t->dl.data != NULL);
  tabi_tensor_release(t);
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_COMPLEX128, 0, NULL, &t));
  CHECK(tabi_tensor_numel(t) == 1 && tabi_tensor_storage_nbytes(t) == 16);
  tabi_tensor_release(t);
  int64_t many[20];
  for (int i = 0; i < 20; i++) many[i] = 1 + (i == 19);
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_BOOL, 20, many, &t));
  CHECK(t->dl.ndim == 20 && t->dl.strides[18] == 2 && tabi_tensor_numel(t) == 2);
  tabi_tensor_release(t);
  int64_t sstr[2] = {1, 4};
  CHECK_OK(tabi_tensor_empty_strided(rt, CPU, TABI_DTYPE_INT16, 2, shape, sstr, &t));
  CHECK(tabi_tensor_storage_nbytes(t) == (1 + 1 * 1 + 2 * 4) * 2);
  tabi_tensor_release(t);
}

static void test_copy_resize_slots(tabi_runtime *rt) {
  const tabi_host_api *h = tabi_runtime_host(rt);
  int64_t shape[2] = {2, 3};
  float v[6] = {0, 1, 2, 3, 4, 5};
  tabi_tensor *c = tensor_f32(rt, CPU, 2, shape, v);
  tabi_tensor *d = NULL;
  int64_t ts[2] = {3, 2}, tst[2] = {1, 3}, cst[2] = {2, 1};
  tabi_tensor *ct;
  CHECK_OK(tabi_tensor_view(rt, c, 2, ts, tst, 0, &ct));
  /* CPU (strided) -> device (strided) -> CPU. */
  CHECK_OK(tabi_tensor_empty_strided(rt, TDEV0, TABI_DTYPE_FLOAT32, 2, ts, cst, &d));
  CHECK_OK(h->tensor_copy(h->ctx, d, ct));
  float out[6];
  CHECK_OK(tabi_tensor_to_host(rt, d, out, sizeof out));
  CHECK(out[0] == 0.f && out[1] == 3.f && out[2] == 1.f && out[5] == 5.f);
  tabi_tensor *dt;
  CHECK_ERR(tabi_tensor_view(rt, d, 2, shape, tst, 0, &dt), TABI_ERR_INDEX, "32 bytes");
  CHECK(dt == NULL);
  tabi_tensor *back;
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 2, ts, &back));
  CHECK_OK(h->tensor_copy(h->ctx, back, d));
  CHECK(((float *)tabi_tensor_data(back))[1] == 3.f);
  CHECK_ERR(h->tensor_copy(h->ctx, back, c), TABI_ERR_SHAPE, "dim 0");
  tabi_tensor *i64;
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_INT32, 2, ts, &i64));
  CHECK_ERR(h->tensor_copy(h->ctx, i64, back), TABI_ERR_TYPE, "int32");
  tabi_tensor_release(i64);
  /* resize_ keeps the old bytes. */
  int64_t bigger[1] = {100};
  CHECK_OK(h->tensor_resize(h->ctx, back, 1, bigger));
  CHECK(back->dl.ndim == 1 && back->dl.shape[0] == 100 && ((float *)tabi_tensor_data(back))[1] == 3.f);
  CHECK(tabi_tensor_storage_nbytes(back) >= 400);
  /* Slots are declared only by plugins at init. */
  int32_t slot;
  CHECK(h->slot_declare(h->ctx, &slot) == TABI_ERR_INVALID_ARGUMENT);
  CHECK_ERR(h->slot_set(h->ctx, back, 0, back, NULL), TABI_ERR_INVALID_ARGUMENT, "never declared");
  CHECK(h->slot_get(h->ctx, back, 0) == NULL);
  tabi_tensor_release(back);
  tabi_tensor_release(d);
  tabi_tensor_release(ct);
  tabi_tensor_release(c);
}

static void test_allocator(void) {
  tabi_runtime *rt = rt_new(0);
  tabi_memory_stats s0, s1, s2;
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s0));
  int64_t shape[1] = {1000};
  tabi_tensor *t;
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 1, shape, &t));
  void *first = t->dl.data;
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s1));
  CHECK(s1.allocated - s0.allocated == 4096 && s1.num_allocs == s0.num_allocs + 1);
  CHECK(s1.num_device_allocs == s0.num_device_allocs + 1 && s1.peak_allocated >= s1.allocated);
  tabi_tensor_release(t);
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s2));
  CHECK(s2.allocated == s0.allocated && s2.num_frees == s0.num_frees + 1 && s2.reserved == s1.reserved);
  /* Same bucket: the cached block is reused, no new device allocation. */
  int64_t shape2[1] = {900};
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 1, shape2, &t));
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s2));
  CHECK(t->dl.data == first && s2.num_device_allocs == s1.num_device_allocs);
  tabi_tensor_release(t);
  /* A smaller request served by a larger cached block (6144 bytes for 4000)
   * counts the block, in and out alike: in use goes back to where it was. */
  int64_t big[1] = {1536}, small[1] = {1000};
  CHECK_OK(tabi_runtime_empty_cache(rt, CPU));
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 1, big, &t));
  tabi_tensor_release(t);
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 1, small, &t));
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s2));
  CHECK(s2.allocated - s0.allocated == 6144);
  tabi_tensor_release(t);
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s2));
  CHECK(s2.allocated == s0.allocated);
  CHECK_OK(tabi_runtime_empty_cache(rt, CPU));
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s2));
  CHECK(s2.reserved == 0 && s2.allocated == 0 && s2.peak_allocated >= 4096);
  CHECK_ERR(tabi_runtime_memory_stats(rt, TDEV0, &s2), TABI_ERR_DEVICE, "vulkan");
  CHECK(load(rt, "dev"));
  CHECK_OK(tabi_runtime_memory_stats(rt, TDEV1, &s2));
  CHECK_ERR(tabi_runtime_memory_stats(rt, (DLDevice){kDLVulkan, 2}, &s2), TABI_ERR_DEVICE,
            "index 2 out of range");
  tabi_runtime_destroy(rt);

  /* No cache: every free returns memory. */
  rt = rt_new(TABI_RUNTIME_NO_CACHE);
  for (int i = 0; i < 3; i++) {
    CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 1, shape, &t));
    tabi_tensor_release(t);
  }
  CHECK_OK(tabi_runtime_memory_stats(rt, CPU, &s2));
  CHECK(s2.num_device_allocs == 3 && s2.reserved == 0 && s2.num_allocs == 3 && s2.num_frees == 3);
  tabi_runtime_destroy(rt);
}

static int64_t hook_sum;
static int hook_calls;
static void hook(void *user, DLDevice d, int64_t nbytes) {
  hook_sum += nbytes;
  hook_calls++;
  CHECK(user == &hook_sum && d.device_type == kDLCPU);
}

static void test_guards_and_hooks(void) {
  tabi_runtime *rt = rt_new(TABI_RUNTIME_GUARD_ALLOCATIONS);
  const tabi_host_api *h = tabi_runtime_host(rt);
  int32_t id;
  CHECK_OK(h->memory_hook_add(h->ctx, hook, &hook_sum, &id));
  int64_t shape[1] = {10};
  tabi_tensor *t;
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_FLOAT32, 1, shape, &t));
  CHECK(hook_calls == 1 && hook_sum == 40);
  CHECK_OK(tabi_tensor_check_guards(rt, t));
  unsigned char *p = tabi_tensor_data(t);
  p[40] = 0; /* one byte past the end (inside the 512-byte block) */
  CHECK_ERR(tabi_tensor_check_guards(rt, t), TABI_ERR_PLUGIN, "0 bytes before and 1 bytes after");
  p[-3] = 0;
  CHECK_ERR(tabi_tensor_check_guards(rt, t), TABI_ERR_PLUGIN, "1 bytes before and 1 bytes after");
  tabi_clear_error();
  tabi_tensor_release(t);
  CHECK(tabi_runtime_guard_violations(rt) == 1);
  CHECK(hook_calls == 2 && hook_sum == 0);
  CHECK_OK(h->memory_hook_remove(h->ctx, id));
  CHECK_ERR(h->memory_hook_remove(h->ctx, id), TABI_ERR_NOT_FOUND, "no hook");
  /* Device memory guards go through the device table's copies. */
  CHECK(load(rt, "dev"));
  CHECK_OK(tabi_tensor_empty(rt, TDEV0, TABI_DTYPE_FLOAT32, 1, shape, &t));
  CHECK_OK(tabi_tensor_check_guards(rt, t));
  ((unsigned char *)tabi_tensor_data(t))[41] = 1; /* test device memory is host memory */
  CHECK_ERR(tabi_tensor_check_guards(rt, t), TABI_ERR_PLUGIN, "1 bytes after");
  tabi_tensor_release(t);
  CHECK(tabi_runtime_guard_violations(rt) == 2 && hook_calls == 2);
  tabi_runtime_destroy(rt);
}

static int deleted;
static void count_deleter(DLManagedTensor *m) { deleted++; (void)m; }
static void count_deleter_v(DLManagedTensorVersioned *m) { deleted++; (void)m; }

static void test_dlpack(tabi_runtime *rt) {
  int64_t shape[2] = {2, 3};
  float v[6] = {1, 2, 3, 4, 5, 6};
  tabi_tensor *t = tensor_f32(rt, CPU, 2, shape, v), *back;
  /* Plain round trip: zero-copy, the export holds a reference. */
  DLManagedTensor *m;
  CHECK_OK(tabi_tensor_to_dlpack(t, &m));
  CHECK(m->dl_tensor.data == t->dl.data && m->dl_tensor.shape[1] == 3 && m->dl_tensor.strides[0] == 3);
  CHECK_OK(tabi_tensor_from_dlpack(rt, m, &back));
  tabi_tensor_release(t);
  CHECK(tabi_tensor_data(back) == tabi_tensor_data(back) && ((float *)tabi_tensor_data(back))[5] == 6.f);
  CHECK(back->dl.strides != NULL && !(back->flags & TABI_TENSOR_READ_ONLY));
  tabi_tensor_release(back); /* runs the export's deleter, which drops the last reference */

  /* Versioned round trip, with bool exported as kDLBool/8. */
  tabi_tensor *b;
  CHECK_OK(tabi_tensor_empty(rt, CPU, TABI_DTYPE_BOOL, 2, shape, &b));
  DLManagedTensorVersioned *mv;
  CHECK_OK(tabi_tensor_to_dlpack_versioned(b, &mv));
  CHECK(mv->version.major == 1 && mv->flags == 0);
  CHECK(mv->dl_tensor.dtype.code == TABI_DL_BOOL && mv->dl_tensor.dtype.bits == 8);
  CHECK_OK(tabi_tensor_from_dlpack_versioned(rt, mv, &back));
  CHECK(tabi_tensor_dtype(back) == TABI_DTYPE_BOOL && back->dl.data == b->dl.data);
  tabi_tensor_release(back);
  tabi_tensor_release(b);

  /* Hand-made producers: NULL strides, a deleter run exactly once, errors leave
   * ownership with the caller. */
  float data[6] = {0};
  int64_t s6[1] = {6};
  DLManagedTensor hm;
  memset(&hm, 0, sizeof hm);
  hm.dl_tensor.data = data;
  hm.dl_tensor.device = CPU;
  hm.dl_tensor.ndim = 1;
  hm.dl_tensor.shape = s6;
  hm.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 1};
  hm.deleter = count_deleter;
  deleted = 0;
  CHECK_OK(tabi_tensor_from_dlpack(rt, &hm, &t));
  CHECK(t->dl.strides[0] == 1 && tabi_tensor_data(t) == data);
  tabi_tensor *tv;
  int64_t s2[1] = {2}, st2[1] = {3};
  CHECK_OK(tabi_tensor_view(rt, t, 1, s2, st2, 4, &tv));
  tabi_tensor_release(t);
  CHECK(deleted == 0);
  tabi_tensor_release(tv);
  CHECK(deleted == 1);
  hm.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 4};
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_TYPE, "code 2, bits 32, lanes 4");
  hm.dl_tensor.dtype = (DLDataType){kDLFloat, 8, 1};
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_TYPE, "code 2, bits 8, lanes 1");
  hm.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 1};
  hm.dl_tensor.device = (DLDevice){kDLCUDA, 0};
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_DEVICE, "cuda:0");
  hm.dl_tensor.device = CPU;
  int64_t negs[1] = {-6};
  hm.dl_tensor.shape = negs;
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_INVALID_ARGUMENT, "size of dim 0 is -6");
  hm.dl_tensor.shape = s6;
  int64_t negst[1] = {-1};
  hm.dl_tensor.strides = negst;
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_INVALID_ARGUMENT, "stride of dim 0");
  hm.dl_tensor.strides = NULL;
  hm.dl_tensor.data = NULL;
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_INVALID_ARGUMENT, "NULL data");
  CHECK_ERR(tabi_tensor_from_dlpack(rt, NULL, &t), TABI_ERR_INVALID_ARGUMENT, "NULL");
  CHECK(deleted == 1 && t == NULL);
  /* Misaligned elements, by the offset or by the pointer itself: refused,
   * ownership stays with the caller. */
  hm.dl_tensor.data = data;
  hm.dl_tensor.byte_offset = 2;
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_INVALID_ARGUMENT, "not aligned to its 4-byte size");
  hm.dl_tensor.byte_offset = 0;
  hm.dl_tensor.data = (char *)data + 1;
  hm.dl_tensor.shape = s2;
  CHECK_ERR(tabi_tensor_from_dlpack(rt, &hm, &t), TABI_ERR_INVALID_ARGUMENT, "not aligned to its 4-byte size");
  hm.dl_tensor.byte_offset = 3; /* together: data + 4 */
  CHECK_OK(tabi_tensor_from_dlpack(rt, &hm, &t));
  CHECK(tabi_tensor_data(t) == (void *)&data[1]);
  tabi_tensor_release(t);
  CHECK(deleted == 2);
  hm.dl_tensor.byte_offset = 0;
  hm.dl_tensor.shape = s6;
  /* Bool the old way (kDLUInt, 1 bit) is accepted. */
  hm.dl_tensor.data = data;
  hm.dl_tensor.dtype = (DLDataType){kDLUInt, 1, 1};
  CHECK_OK(tabi_tensor_from_dlpack(rt, &hm, &t));
  CHECK(tabi_tensor_dtype(t) == TABI_DTYPE_BOOL && t->dl.dtype.code == TABI_DL_BOOL);
  tabi_tensor_release(t);
  CHECK(deleted == 3);

  /* Versioned: read-only respected, other majors refused. */
  DLManagedTensorVersioned hv;
  memset(&hv, 0, sizeof hv);
  hv.version.major = 2;
  hv.dl_tensor = hm.dl_tensor;
  hv.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 1};
  hv.deleter = count_deleter_v;
  hv.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK_ERR(tabi_tensor_from_dlpack_versioned(rt, &hv, &t), TABI_ERR_INVALID_ARGUMENT, "version 2.0");
  hv.version.major = 1;
  CHECK_OK(tabi_tensor_from_dlpack_versioned(rt, &hv, &t));
  CHECK(t->flags & TABI_TENSOR_READ_ONLY);
  CHECK_OK(tabi_tensor_view(rt, t, 1, s2, st2, 0, &tv));
  CHECK(tv->flags & TABI_TENSOR_READ_ONLY);
  const tabi_host_api *h = tabi_runtime_host(rt);
  CHECK_ERR(h->tensor_copy(h->ctx, tv, tv), TABI_ERR_READ_ONLY, "read-only");
  CHECK_ERR(tabi_tensor_to_dlpack(tv, &m), TABI_ERR_READ_ONLY, "versioned");
  CHECK_OK(tabi_tensor_to_dlpack_versioned(tv, &mv));
  CHECK(mv->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
  mv->deleter(mv);
  tabi_tensor_release(tv);
  tabi_tensor_release(t);
  CHECK(deleted == 4);
}

static void test_philox(void) {
  tabi_runtime *r1 = rt_new(0), *r2 = rt_new(0);
  const tabi_host_api *h1 = tabi_runtime_host(r1), *h2 = tabi_runtime_host(r2);
  CHECK_OK(tabi_runtime_manual_seed(r1, CPU, 42));
  CHECK_OK(tabi_runtime_manual_seed(r2, CPU, 42));
  uint64_t seed, off, seed2, off2;
  CHECK_OK(h1->rng_reserve(h1->ctx, CPU, 10, &seed, &off));
  CHECK(seed == 42 && off == 0);
  CHECK_OK(h1->rng_reserve(h1->ctx, CPU, 5, &seed, &off));
  CHECK(off == 10);
  CHECK_OK(h2->rng_reserve(h2->ctx, CPU, 10, &seed2, &off2));
  CHECK_OK(h2->rng_reserve(h2->ctx, CPU, 5, &seed2, &off2));
  CHECK(seed2 == seed && off2 == off);
  int same = 1;
  for (uint64_t i = 0; i < 5; i++) {
    tabi_philox_out a = tabi_philox4x32(seed, off + i), b = tabi_philox4x32(seed2, off2 + i);
    same &= memcmp(&a, &b, sizeof a) == 0;
  }
  CHECK(same);
  CHECK_OK(tabi_runtime_manual_seed(r1, CPU, 7));
  CHECK_OK(h1->rng_reserve(h1->ctx, CPU, 1, &seed, &off));
  CHECK(seed == 7 && off == 0);
  /* Random123's known answer for Philox4x32-10 with zero key and counter. */
  tabi_philox_out z = tabi_philox4x32(0, 0);
  CHECK(z.w[0] == 0x6627e8d5u && z.w[1] == 0xe169c58du && z.w[2] == 0xbc57ac4cu && z.w[3] == 0x9b00dbd8u);
  CHECK_ERR(h1->rng_reserve(h1->ctx, TDEV0, 1, &seed, &off), TABI_ERR_DEVICE, "vulkan");
  tabi_runtime_destroy(r1);
  tabi_runtime_destroy(r2);
}

/* tabi_device_props_copy_out: an older caller's shorter struct gets no byte
 * past its struct_size, 0 means the whole struct, a size larger than ours is
 * clamped to ours, and struct_size always says what was written. */
static void test_props_copy_out(void) {
  tabi_device_props full;
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.index = 3;
  strcpy(full.name, "a device with a name of some length");
  full.multiprocessors = 7;
  const uint32_t sizes[] = {0, 1, 4, 8, 24, (uint32_t)sizeof full, (uint32_t)sizeof full + 40};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    unsigned char buf[sizeof full + 64];
    memset(buf, 0x5a, sizeof buf);
    tabi_device_props *out = (tabi_device_props *)(void *)buf;
    out->struct_size = sizes[k];
    tabi_device_props_copy_out(out, &full);
    uint32_t want = sizes[k] == 0 || sizes[k] > sizeof full ? (uint32_t)sizeof full
                    : sizes[k] < 4                          ? 4
                                                            : sizes[k];
    CHECK_MSG(out->struct_size == want, "size %u: struct_size %u, wanted %u", sizes[k],
              out->struct_size, want);
    size_t past = 0;
    for (size_t i = want; i < sizeof buf; i++) past += buf[i] != 0x5a;
    CHECK_MSG(past == 0, "size %u: %zu bytes written past %u", sizes[k], past, want);
    CHECK_MSG(memcmp(buf + 4, (const unsigned char *)&full + 4, want - 4) == 0,
              "size %u: the copied bytes differ", sizes[k]);
  }
}

int main(void) {
  tabi_runtime *rt = rt_new(0);
  test_create_and_views(rt);
  CHECK(load(rt, "dev"));
  test_copy_resize_slots(rt);
  test_dlpack(rt);
  tabi_runtime_destroy(rt);
  test_allocator();
  test_guards_and_hooks();
  test_philox();
  test_props_copy_out();
  return check_report();
}
