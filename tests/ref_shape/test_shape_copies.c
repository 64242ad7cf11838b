/* tests/ref_shape/test_shape_copies.c: copies (_to_copy, clone, copy, copy_to,
 * device_put), cat, the scatters, resize_, padding, repeat and flip against
 * torch 1.13 (one-liner beside each; x = torch.arange(6.).reshape(2,3)). */
#include "shape_helpers.h"

#define TV(t) tabi_tensor_value(t)

static tabi_tensor *perm(tabi_tensor *t, tabi_value dims) {
  return h_call1("aten::permute", (tabi_value[]){TV(t), dims}, 2, NULL);
}

static void test_copies(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  tabi_tensor *xt = perm(x, IL(1, 0));
  /* torch.ops.aten._to_copy(x.t()).stride() == (1,3): dense strides preserved */
  tabi_tensor *v = h_call1("aten::_to_copy", (tabi_value[]){TV(xt)}, 1, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)) && tabi_tensor_storage_id(v) != tabi_tensor_storage_id(x));
  CHECK_VALS(v, 0, 3, 1, 4, 2, 5);
  t_free(v);
  /* memory_format=torch.contiguous_format -> (2,1) */
  tabi_value a7[7] = {TV(xt), tabi_none(), tabi_none(), tabi_none(), tabi_none(), tabi_bool(0), tabi_int(0)};
  v = h_call1("aten::_to_copy", a7, 7, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(2, 1)));
  t_free(v);
  /* torch.tensor([2.7,-2.7,300]).to(torch.int32) == [2,-2,300]; .to(torch.uint8)[2] == 44 */
  tabi_tensor *f = t_make(TABI_DTYPE_FLOAT32, 1, SHP(3), VALS(2.7, -2.7, 300));
  v = h_call1("aten::_to_copy", (tabi_value[]){TV(f), tabi_dtype_value(TABI_DTYPE_INT32)}, 2, &st);
  CHECK(st == TABI_OK && tabi_tensor_dtype(v) == TABI_DTYPE_INT32);
  CHECK_VALS(v, 2, -2, 300);
  t_free(v);
  v = h_call1("aten::_to_copy", (tabi_value[]){TV(f), tabi_dtype_value(TABI_DTYPE_UINT8)}, 2, &st);
  CHECK(st == TABI_OK && v && t_get(v, 2) == 44.0);
  t_free(v);
  t_free(f);
  /* _to_copy(ones(2,3,4,5), memory_format=channels_last).stride() == (60,1,15,3) */
  tabi_tensor *c4 = t_iota(4, SHP(2, 3, 4, 5));
  tabi_value a7b[7] = {TV(c4), tabi_none(), tabi_none(), tabi_none(), tabi_none(), tabi_bool(0), tabi_int(2)};
  v = h_call1("aten::_to_copy", a7b, 7, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(60, 1, 15, 3)) && v && t_get(v, 61) == 61.0);
  t_free(v);
  a7b[0] = TV(x);
  CHECK_ERR(h_call("aten::_to_copy", a7b, 7, o, 1), TABI_ERR_INVALID_ARGUMENT, "rank 4");
  t_free(c4);
  /* torch.ops.aten.clone(x[:, 1:]).stride() == (2,1); clone(x.t()).stride() == (1,3) */
  tabi_tensor *sl = h_call1("aten::slice.Tensor", (tabi_value[]){TV(x), tabi_int(1), tabi_int(1)}, 3, NULL);
  v = h_call1("aten::clone", (tabi_value[]){TV(sl)}, 1, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(2, 1)));
  CHECK_VALS(v, 1, 2, 4, 5);
  t_free(v);
  v = h_call1("aten::clone", (tabi_value[]){TV(xt)}, 1, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)));
  t_free(v);
  v = h_call1("prims::device_put", (tabi_value[]){TV(xt), tabi_device_value(h_cpu())}, 2, &st);
  CHECK(st == TABI_OK && tabi_tensor_storage_id(v) != tabi_tensor_storage_id(x));
  CHECK_VALS(v, 0, 3, 1, 4, 2, 5);
  t_free(v);
  /* torch.ops.aten.copy(x.t(), torch.tensor([10.,20.])): stride (1,3), rows [10,20] */
  tabi_tensor *s2 = t_make(TABI_DTYPE_INT64, 1, SHP(2), VALS(10, 20));
  v = h_call1("aten::copy", (tabi_value[]){TV(xt), TV(s2)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)) && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT32);
  CHECK_VALS(v, 10, 20, 10, 20, 10, 20);
  t_free(v);
  /* torch.ops.aten.copy(x, torch.ones(3,1)) -> expanded size (2) must match ... (3) */
  tabi_tensor *c31 = t_iota(2, SHP(3, 1));
  CHECK_ERR(h_call("aten::copy", (tabi_value[]){TV(x), TV(c31)}, 2, o, 1), TABI_ERR_SHAPE, "must match");
  t_free(c31);
  t_free(s2);
  t_free(sl);
  t_free(xt);
}

static void test_copy_to(void) {
  tabi_value o[1];
  tabi_tensor *a = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 3), VALS(9, 9, 9, 9, 9, 9));
  tabi_tensor *b = t_make(TABI_DTYPE_INT64, 1, SHP(3), VALS(1, 2, 3));
  CHECK_ERR(h_call("prims::copy_to", (tabi_value[]){TV(a), TV(b)}, 2, o, 1), TABI_ERR_SHAPE,
            "Attempting to copy 3 elements to a tensor with 6 elements");
  tabi_tensor *b6 = t_make(TABI_DTYPE_INT64, 2, SHP(2, 3), VALS(1, 2, 3, 4, 5, 6));
  CHECK_OK(h_call("prims::copy_to", (tabi_value[]){TV(a), TV(b6)}, 2, o, 1));
  CHECK(o[0].tag == TABI_TAG_TENSOR && o[0].u.t == a);
  tabi_value_release(&o[0]);
  CHECK_VALS(a, 1, 2, 3, 4, 5, 6);
  /* a=torch.arange(4.); a[1:].copy_(a[:3]) -> RuntimeError (partial overlap) */
  tabi_tensor *r = t_iota(1, SHP(4));
  tabi_tensor *hi = h_call1("aten::slice.Tensor", (tabi_value[]){TV(r), tabi_int(0), tabi_int(1)}, 3, NULL);
  tabi_tensor *lo = h_call1("aten::slice.Tensor", (tabi_value[]){TV(r), tabi_int(0), tabi_int(0), tabi_int(3)}, 4, NULL);
  CHECK_ERR(h_call("prims::copy_to", (tabi_value[]){TV(hi), TV(lo)}, 2, o, 1), TABI_ERR_INVALID_ARGUMENT,
            "single memory location");
  /* a=torch.arange(4.); a[::2].copy_(a[1::2]) -> [1,1,3,3] */
  tabi_tensor *ev = h_call1("aten::slice.Tensor", (tabi_value[]){TV(r), tabi_int(0), tabi_int(0), tabi_none(), tabi_int(2)}, 5, NULL);
  tabi_tensor *od = h_call1("aten::slice.Tensor", (tabi_value[]){TV(r), tabi_int(0), tabi_int(1), tabi_none(), tabi_int(2)}, 5, NULL);
  CHECK_OK(h_call("prims::copy_to", (tabi_value[]){TV(ev), TV(od)}, 2, o, 1));
  tabi_value_release(&o[0]);
  CHECK_VALS(r, 1, 1, 3, 3);
  /* expanded destinations are refused */
  tabi_tensor *one = t_iota(1, SHP(1));
  tabi_tensor *ex = h_call1("aten::expand", (tabi_value[]){TV(one), IL(3)}, 2, NULL);
  CHECK_ERR(h_call("prims::copy_to", (tabi_value[]){TV(ex), TV(b)}, 2, o, 1), TABI_ERR_INVALID_ARGUMENT,
            "more than one element");
  /* ... but an expanded destination with no elements overlaps nothing (ATen:
   * an empty tensor is contiguous) */
  tabi_tensor *ex0 = h_call1("aten::expand", (tabi_value[]){TV(one), IL(3, 0)}, 2, NULL);
  tabi_tensor *e0 = h_call1("aten::expand", (tabi_value[]){TV(one), IL(3, 0)}, 2, NULL);
  CHECK(ex0 && ex0->dl.strides[0] == 0);
  CHECK_OK(h_call("prims::copy_to", (tabi_value[]){TV(ex0), TV(e0)}, 2, o, 1));
  tabi_value_release(&o[0]);
  t_free(ex0);
  t_free(e0);
  /* a read-only DLPack import is never written */
  float buf[3] = {1, 2, 3};
  int64_t shape[1] = {3};
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  m.dl_tensor.data = buf;
  m.dl_tensor.device = h_cpu();
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype = tabi_dtype_to_dl(TABI_DTYPE_FLOAT32);
  m.dl_tensor.shape = shape;
  tabi_tensor *ro = NULL;
  CHECK_OK(tabi_tensor_from_dlpack_versioned(rt_, &m, &ro));
  if (ro) {
    CHECK_ERR(h_call("prims::copy_to", (tabi_value[]){TV(ro), TV(b)}, 2, o, 1), TABI_ERR_READ_ONLY, "read-only");
    CHECK(buf[0] == 1 && buf[2] == 3);
  }
  t_free(ro);
  t_free(ex);
  t_free(one);
  t_free(ev);
  t_free(od);
  t_free(hi);
  t_free(lo);
  t_free(r);
  t_free(b6);
  t_free(b);
  t_free(a);
}

static tabi_value tl(tabi_tensor **ts, int64_t n) { return tabi_tensor_list(ts, n); }

static void test_cat(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  /* torch.cat([x, x], -1) == [[0,1,2,0,1,2],[3,4,5,3,4,5]] */
  tabi_tensor *xx[2] = {x, x};
  tabi_tensor *v = h_call1("aten::cat", (tabi_value[]){tl(xx, 2), tabi_int(-1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(2, 6)));
  CHECK_VALS(v, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5);
  t_free(v);
  /* torch.cat([torch.ones(2,dtype=torch.uint8), torch.ones(2,dtype=torch.int8)]).dtype == int16 */
  tabi_tensor *u8 = t_make(TABI_DTYPE_UINT8, 1, SHP(2), VALS(200, 1));
  tabi_tensor *i8 = t_make(TABI_DTYPE_INT8, 1, SHP(2), VALS(-1, 2));
  tabi_tensor *ui[2] = {u8, i8};
  v = h_call1("aten::cat", (tabi_value[]){tl(ui, 2)}, 1, &st);
  CHECK(st == TABI_OK && v && tabi_tensor_dtype(v) == TABI_DTYPE_INT16);
  CHECK_VALS(v, 200, 1, -1, 2);
  t_free(v);
  /* prims::cat does not promote */
  CHECK_ERR(h_call("prims::cat", (tabi_value[]){tl(ui, 2), tabi_int(0)}, 2, o, 1), TABI_ERR_TYPE, "prims::cat");
  /* torch.cat([torch.empty(0,dtype=torch.float64), torch.ones(2,3)]): skipped but promotes: float64 (2,3) */
  tabi_tensor *e = t_make(TABI_DTYPE_FLOAT64, 1, SHP(0), NULL);
  tabi_tensor *ex[3] = {e, x, e};
  v = h_call1("aten::cat", (tabi_value[]){tl(ex, 3), tabi_int(1)}, 2, &st);
  CHECK(st == TABI_OK && v && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT64 && t_shape_is(v, 2, SHP(2, 3)));
  t_free(v);
  /* torch.cat([torch.empty(0), torch.empty(0)], 5) -> tensor([]) (no dim check when all skipped) */
  tabi_tensor *ee[2] = {e, e};
  v = h_call1("aten::cat", (tabi_value[]){tl(ee, 2), tabi_int(5)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 1, SHP(0)));
  t_free(v);
  /* Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 */
  tabi_tensor *y = t_iota(2, SHP(2, 4));
  tabi_tensor *xy[2] = {x, y};
  CHECK_ERR(h_call("aten::cat", (tabi_value[]){tl(xy, 2)}, 1, o, 1), TABI_ERR_SHAPE,
            "Expected size 3 but got size 4 for tensor number 1");
  tabi_tensor *r = t_iota(1, SHP(3));
  tabi_tensor *xr[2] = {x, r};
  CHECK_ERR(h_call("aten::cat", (tabi_value[]){tl(xr, 2), tabi_int(1)}, 2, o, 1), TABI_ERR_SHAPE,
            "same number of dimensions: got 2 and 1");
  CHECK_ERR(h_call("aten::cat", (tabi_value[]){tl(xx, 2), tabi_int(2)}, 2, o, 1), TABI_ERR_INDEX, "out of range");
  tabi_tensor *z = t_make(TABI_DTYPE_FLOAT32, 0, NULL, VALS(1));
  tabi_tensor *zr[2] = {z, r};
  CHECK_ERR(h_call("aten::cat", (tabi_value[]){tl(zr, 2)}, 1, o, 1), TABI_ERR_SHAPE, "zero-dimensional tensor (at position 0)");
  CHECK_ERR(h_call("aten::cat", (tabi_value[]){tl(NULL, 0)}, 1, o, 1), TABI_ERR_INVALID_ARGUMENT, "non-empty");
  t_free(z);
  t_free(r);
  t_free(y);
  t_free(e);
  t_free(u8);
  t_free(i8);
}

static void test_scatter_resize(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  /* torch.select_scatter(x, torch.tensor([10,20,30]), 0, 1) == [[0,1,2],[10,20,30]] */
  tabi_tensor *s3 = t_make(TABI_DTYPE_INT64, 1, SHP(3), VALS(10, 20, 30));
  tabi_tensor *v = h_call1("aten::select_scatter", (tabi_value[]){TV(x), TV(s3), tabi_int(0), tabi_int(1)}, 4, &st);
  CHECK(st == TABI_OK && v && tabi_tensor_dtype(v) == TABI_DTYPE_FLOAT32);
  CHECK_VALS(v, 0, 1, 2, 10, 20, 30);
  CHECK_VALS(x, 0, 1, 2, 3, 4, 5); /* the input is untouched */
  t_free(v);
  tabi_tensor *s2 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 1), VALS(7, 8));
  CHECK_ERR(h_call("aten::select_scatter", (tabi_value[]){TV(x), TV(s2), tabi_int(0), tabi_int(1)}, 4, o, 1),
            TABI_ERR_SHAPE, "src size = [2, 1], slice size = [3]");
  CHECK_ERR(h_call("aten::select_scatter", (tabi_value[]){TV(x), TV(s3), tabi_int(0), tabi_int(2)}, 4, o, 1),
            TABI_ERR_INDEX, "out of range");
  /* torch.slice_scatter(x, torch.tensor([[7.],[8.]]), 1, 1, 2) == [[0,7,2],[3,8,5]] */
  v = h_call1("aten::slice_scatter", (tabi_value[]){TV(x), TV(s2), tabi_int(1), tabi_int(1), tabi_int(2)}, 5, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 0, 7, 2, 3, 8, 5);
  t_free(v);
  /* torch.slice_scatter(x, torch.tensor([[7.,8],[9,10]]), 1, 0, None, 2) == [[7,1,8],[9,4,10]] */
  tabi_tensor *s22 = t_make(TABI_DTYPE_FLOAT32, 2, SHP(2, 2), VALS(7, 8, 9, 10));
  v = h_call1("aten::slice_scatter", (tabi_value[]){TV(x), TV(s22), tabi_int(1), tabi_int(0), tabi_none(), tabi_int(2)}, 6, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 7, 1, 8, 9, 4, 10);
  t_free(v);
  /* torch.select_scatter(x.t(), torch.ones(2), 0, 2).stride() == (1,3) */
  tabi_tensor *xt = perm(x, IL(1, 0));
  tabi_tensor *s2b = t_make(TABI_DTYPE_FLOAT32, 1, SHP(2), VALS(-1, -2));
  v = h_call1("aten::select_scatter", (tabi_value[]){TV(xt), TV(s2b), tabi_int(0), tabi_int(2)}, 4, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)));
  CHECK_VALS(v, 0, 3, 1, 4, -1, -2);
  t_free(v);
  t_free(xt);
  t_free(s2b);
  t_free(s22);
  t_free(s2);
  t_free(s3);
  /* resize_ returns self: t = torch.arange(6.); t.resize_(2); t == [0,1] */
  tabi_tensor *t = t_iota(1, SHP(6));
  CHECK_OK(h_call("aten::resize_", (tabi_value[]){TV(t), IL(2)}, 2, o, 1));
  CHECK(o[0].tag == TABI_TAG_TENSOR && o[0].u.t == t && t_shape_is(t, 1, SHP(2)));
  tabi_value_release(&o[0]);
  CHECK_VALS(t, 0, 1);
  CHECK_OK(h_call("prims::resize", (tabi_value[]){TV(t), IL(4, 5)}, 2, o, 1));
  CHECK(t_shape_is(t, 2, SHP(4, 5)) && t_strides_are(t, SHP(5, 1)) && t_get(t, 1) == 1.0);
  tabi_value_release(&o[0]);
  CHECK_ERR(h_call("aten::resize_", (tabi_value[]){TV(t), IL(-1)}, 2, o, 1), TABI_ERR_INVALID_ARGUMENT,
            "negative dimension -1");
  t_free(t);
}

static void test_padding(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  /* torch.constant_pad_nd(x, [-1,2,1,0], 7.5) */
  tabi_tensor *v = h_call1("aten::constant_pad_nd", (tabi_value[]){TV(x), IL(-1, 2, 1, 0), tabi_float(7.5)}, 3, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(3, 4)));
  CHECK_VALS(v, 7.5, 7.5, 7.5, 7.5, 1, 2, 7.5, 7.5, 4, 5, 7.5, 7.5);
  t_free(v);
  /* torch.constant_pad_nd(x.long(), [1,0], 7.5) == [[7,0,1,2],[7,3,4,5]] */
  tabi_tensor *xl = t_make(TABI_DTYPE_INT64, 2, SHP(2, 3), NULL);
  v = h_call1("aten::constant_pad_nd", (tabi_value[]){TV(xl), IL(1, 0), tabi_float(7.5)}, 3, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 7, 0, 1, 2, 7, 3, 4, 5);
  t_free(v);
  t_free(xl);
  CHECK_ERR(h_call("aten::constant_pad_nd", (tabi_value[]){TV(x), IL(1, 1, 1)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "must be even");
  CHECK_ERR(h_call("aten::constant_pad_nd", (tabi_value[]){TV(x), IL(1, 1, 1, 1, 1, 1)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "no more than twice");
  CHECK_ERR(h_call("aten::constant_pad_nd", (tabi_value[]){TV(x), IL(-2, -2)}, 2, o, 1), TABI_ERR_SHAPE,
            "negative output size");
  /* torch.constant_pad_nd(x, [1,0], 1j) -> value cannot be converted to type float */
  CHECK_ERR(h_call("aten::constant_pad_nd", (tabi_value[]){TV(x), IL(1, 0), tabi_complex(0, 1)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "cannot be converted");
  /* reflection_pad1d(arange(5.).reshape(1,5), [-1,2]) == [1,2,3,4,3,2]; [2,-3] == [2,1,0,1] */
  tabi_tensor *r5 = t_iota(2, SHP(1, 5));
  v = h_call1("aten::reflection_pad1d", (tabi_value[]){TV(r5), IL(-1, 2)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 1, 2, 3, 4, 3, 2);
  t_free(v);
  v = h_call1("aten::reflection_pad1d", (tabi_value[]){TV(r5), IL(2, -3)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 2, 1, 0, 1);
  t_free(v);
  CHECK_ERR(h_call("aten::reflection_pad1d", (tabi_value[]){TV(x), IL(3, 0)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "should be less than the corresponding input dimension");
  tabi_tensor *r1 = t_iota(1, SHP(5));
  CHECK_ERR(h_call("aten::reflection_pad1d", (tabi_value[]){TV(r1), IL(1, 1)}, 2, o, 1), TABI_ERR_SHAPE,
            "2D or 3D (batch mode)");
  tabi_tensor *il = t_make(TABI_DTYPE_INT64, 2, SHP(1, 5), NULL);
  CHECK_ERR(h_call("aten::reflection_pad1d", (tabi_value[]){TV(il), IL(1, 1)}, 2, o, 1), TABI_ERR_TYPE, "int64");
  t_free(il);
  /* replication_pad2d(arange(5.).reshape(1,1,5), [2,-3,0,1]) == [[0,0,0,1],[0,0,0,1]] */
  tabi_tensor *r115 = t_iota(3, SHP(1, 1, 5));
  v = h_call1("aten::replication_pad2d", (tabi_value[]){TV(r115), IL(2, -3, 0, 1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 3, SHP(1, 2, 4)));
  CHECK_VALS(v, 0, 0, 0, 1, 0, 0, 0, 1);
  t_free(v);
  /* reflection_pad2d(arange(12.).reshape(1,3,4), [2,1,-1,2]) (values from torch) */
  tabi_tensor *r34 = t_iota(3, SHP(1, 3, 4));
  v = h_call1("aten::reflection_pad2d", (tabi_value[]){TV(r34), IL(2, 1, -1, 2)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 3, SHP(1, 4, 7)));
  CHECK_VALS(v, 6, 5, 4, 5, 6, 7, 6, 10, 9, 8, 9, 10, 11, 10, 6, 5, 4, 5, 6, 7, 6, 2, 1, 0, 1, 2, 3, 2);
  t_free(v);
  /* replication_pad2d(arange(12.).reshape(1,3,4), [1,2,0,1]) */
  v = h_call1("aten::replication_pad2d", (tabi_value[]){TV(r34), IL(1, 2, 0, 1)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 0, 0, 1, 2, 3, 3, 3, 4, 4, 5, 6, 7, 7, 7, 8, 8, 9, 10, 11, 11, 11, 8, 8, 9, 10, 11, 11, 11);
  t_free(v);
  /* replication_pad3d(arange(8.).reshape(1,2,2,2), [1,0,0,1,1,-1]): shape (1,2,3,3) */
  tabi_tensor *r8 = t_iota(4, SHP(1, 2, 2, 2));
  v = h_call1("aten::replication_pad3d", (tabi_value[]){TV(r8), IL(1, 0, 0, 1, 1, -1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 4, SHP(1, 2, 3, 3)));
  CHECK_VALS(v, 0, 0, 1, 2, 2, 3, 2, 2, 3, 0, 0, 1, 2, 2, 3, 2, 2, 3);
  t_free(v);
  /* reflection_pad3d(arange(8.).reshape(1,2,2,2), [1,0,0,1,1,0]): shape (1,3,3,3) */
  v = h_call1("aten::reflection_pad3d", (tabi_value[]){TV(r8), IL(1, 0, 0, 1, 1, 0)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 4, SHP(1, 3, 3, 3)));
  CHECK_VALS(v, 5, 4, 5, 7, 6, 7, 5, 4, 5, 1, 0, 1, 3, 2, 3, 1, 0, 1, 5, 4, 5, 7, 6, 7, 5, 4, 5);
  t_free(v);
  /* a zero batch is allowed, a zero channel is not: torch.ops.aten.replication_pad2d(torch.ones(1,0,2),[1]*4) fails */
  tabi_tensor *z = t_make(TABI_DTYPE_FLOAT32, 3, SHP(1, 0, 2), NULL);
  CHECK_ERR(h_call("aten::replication_pad2d", (tabi_value[]){TV(z), IL(1, 1, 1, 1)}, 2, o, 1), TABI_ERR_SHAPE,
            "possibly 0 batch size");
  tabi_tensor *zb = t_make(TABI_DTYPE_FLOAT32, 4, SHP(0, 1, 2, 2), NULL);
  v = h_call1("aten::replication_pad2d", (tabi_value[]){TV(zb), IL(1, 1, 1, 1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 4, SHP(0, 1, 4, 4)));
  t_free(v);
  t_free(zb);
  t_free(z);
  t_free(r8);
  t_free(r34);
  t_free(r115);
  t_free(r1);
  t_free(r5);
}

static void test_repeat_flip(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  /* x.repeat(1,2) == [[0,1,2,0,1,2],[3,4,5,3,4,5]]; x.repeat(2,1,1).shape == (2,2,3) */
  tabi_tensor *v = h_call1("aten::repeat", (tabi_value[]){TV(x), IL(1, 2)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5);
  t_free(v);
  v = h_call1("aten::repeat", (tabi_value[]){TV(x), IL(2, 1, 1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 3, SHP(2, 2, 3)) && v && t_get(v, 7) == 1.0);
  t_free(v);
  CHECK_ERR(h_call("aten::repeat", (tabi_value[]){TV(x), IL(2)}, 2, o, 1), TABI_ERR_SHAPE, "can not be smaller");
  CHECK_ERR(h_call("aten::repeat", (tabi_value[]){TV(x), IL(2, -1)}, 2, o, 1), TABI_ERR_INVALID_ARGUMENT, "negative");
  /* torch.flip(x,[0,-1]) == [[5,4,3],[2,1,0]] */
  v = h_call1("aten::flip", (tabi_value[]){TV(x), IL(0, -1)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 5, 4, 3, 2, 1, 0);
  t_free(v);
  CHECK_ERR(h_call("aten::flip", (tabi_value[]){TV(x), IL(0, -2)}, 2, o, 1), TABI_ERR_INVALID_ARGUMENT,
            "appears multiple times");
  /* torch.flip(x.t(),[0]): stride (1,3), values [[2,5],[1,4],[0,3]] */
  tabi_tensor *xt = perm(x, IL(1, 0));
  v = h_call1("prims::rev", (tabi_value[]){TV(xt), IL(0)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)));
  CHECK_VALS(v, 2, 5, 1, 4, 0, 3);
  t_free(v);
  t_free(xt);
}

int main(void) {
  h_setup();
  tabi_tensor *x = t_iota(2, SHP(2, 3));
  test_copies(x);
  test_copy_to();
  test_cat(x);
  test_scatter_resize(x);
  test_padding(x);
  test_repeat_flip(x);
  t_free(x);
  h_teardown();
  return check_report();
}
