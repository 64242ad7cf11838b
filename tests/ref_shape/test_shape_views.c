/* tests/ref_shape/test_shape_views.c: the view ops of the reference plugin share
 * storage and follow ATen's shape/stride rules and errors. Expected values come
 * from torch 1.13 (one-liner beside each, x = torch.arange(6.).reshape(2,3)). */
#include "shape_helpers.h"

#define TV(t) tabi_tensor_value(t)

static int shares(const tabi_tensor *a, const tabi_tensor *b) {
  return a && b && tabi_tensor_storage_id(a) == tabi_tensor_storage_id(b);
}

static void test_view(tabi_tensor *x) {
  tabi_status st;
  /* x.view(-1, 2): shape (3,2) stride (2,1), aliases x */
  tabi_tensor *v = h_call1("aten::view", (tabi_value[]){TV(x), IL(-1, 2)}, 2, &st);
  CHECK_OK(st);
  CHECK(t_shape_is(v, 2, SHP(3, 2)) && t_strides_are(v, SHP(2, 1)) && shares(v, x));
  if (v) {
    ((float *)tabi_tensor_data(v))[5] = 42.0f; /* a write through the view shows in x */
    CHECK(t_get(x, 5) == 42.0);
    ((float *)tabi_tensor_data(v))[5] = 5.0f;
  }
  t_free(v);
  tabi_tensor *xt = h_call1("aten::permute", (tabi_value[]){TV(x), IL(1, 0)}, 2, NULL);
  /* x.t().view(6) -> RuntimeError view size is not compatible ... */
  CHECK_ERR(h_call("aten::view", (tabi_value[]){TV(xt), IL(6)}, 2, (tabi_value[1]){{0}}, 1),
            TABI_ERR_SHAPE, "view size is not compatible");
  /* x.t().view(3,2): shape (3,2) stride (1,3) */
  v = h_call1("aten::view", (tabi_value[]){TV(xt), IL(3, 2)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)));
  CHECK_VALS(v, 0, 3, 1, 4, 2, 5);
  t_free(v);
  t_free(xt);
  tabi_value o[1];
  CHECK_ERR(h_call("aten::view", (tabi_value[]){TV(x), IL(-1, -1)}, 2, o, 1), TABI_ERR_SHAPE,
            "only one dimension can be inferred");
  CHECK_ERR(h_call("aten::view", (tabi_value[]){TV(x), IL(4, -1)}, 2, o, 1), TABI_ERR_SHAPE,
            "shape '[4, -1]' is invalid for input of size 6");
  CHECK_ERR(h_call("aten::view", (tabi_value[]){TV(x), IL(-2, 3)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "invalid shape dimension -2");
  CHECK_ERR(h_call("aten::view", (tabi_value[]){TV(x), IL(5)}, 2, o, 1), TABI_ERR_SHAPE, "aten::view");
  /* torch.ones(0,3).view(0,-1) -> ambiguous; .view(3,0,5) -> stride (5,5,1) */
  tabi_tensor *e = t_make(TABI_DTYPE_FLOAT32, 2, SHP(0, 3), NULL);
  CHECK_ERR(h_call("aten::view", (tabi_value[]){TV(e), IL(0, -1)}, 2, o, 1), TABI_ERR_SHAPE, "ambiguous");
  v = h_call1("aten::view", (tabi_value[]){TV(e), IL(3, 0, 5)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 3, SHP(3, 0, 5)) && t_strides_are(v, SHP(5, 5, 1)));
  t_free(v);
  t_free(e);
  /* torch.ones(2,3,4).transpose(1,2).view(2,4,3).stride() == (12,1,4); .view(8,3) fails */
  tabi_tensor *y = t_iota(3, SHP(2, 3, 4));
  tabi_tensor *yt = h_call1("aten::permute", (tabi_value[]){TV(y), IL(0, 2, 1)}, 2, NULL);
  v = h_call1("aten::view", (tabi_value[]){TV(yt), IL(2, 4, 3)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(12, 1, 4)));
  t_free(v);
  CHECK_ERR(h_call("aten::view", (tabi_value[]){TV(yt), IL(8, 3)}, 2, o, 1), TABI_ERR_SHAPE, "compatible");
  /* torch.ones(2,3,4).transpose(0,1).view(3,2,2,2).stride() == (4,12,2,1) */
  tabi_tensor *y01 = h_call1("aten::permute", (tabi_value[]){TV(y), IL(1, 0, 2)}, 2, NULL);
  v = h_call1("aten::view", (tabi_value[]){TV(y01), IL(3, 2, 2, 2)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(4, 12, 2, 1)));
  t_free(v);
  /* prims::reshape copies: torch.arange(6.).reshape(2,3).t().reshape(6) == [0,3,1,4,2,5] */
  tabi_tensor *xt2 = h_call1("aten::permute", (tabi_value[]){TV(x), IL(1, 0)}, 2, NULL);
  v = h_call1("prims::reshape", (tabi_value[]){TV(xt2), IL(6)}, 2, &st);
  CHECK_OK(st);
  CHECK_VALS(v, 0, 3, 1, 4, 2, 5);
  CHECK(v && !shares(v, x));
  t_free(v);
  CHECK_ERR(h_call("prims::reshape", (tabi_value[]){TV(x), IL(4)}, 2, o, 1), TABI_ERR_SHAPE, "prims::reshape");
  t_free(xt2);
  t_free(y01);
  t_free(yt);
  t_free(y);
}

static void test_expand_permute(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  /* x.expand(4,2,3).stride() == (0,3,1) */
  tabi_tensor *v = h_call1("aten::expand", (tabi_value[]){TV(x), IL(4, 2, 3)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 3, SHP(4, 2, 3)) && t_strides_are(v, SHP(0, 3, 1)) && shares(v, x));
  CHECK(v && t_get(v, 23) == 5.0 && t_get(v, 6) == 0.0);
  t_free(v);
  CHECK_ERR(h_call("aten::expand", (tabi_value[]){TV(x), IL(-1, 2, 3)}, 2, o, 1), TABI_ERR_SHAPE,
            "leading, non-existing dimension 0");
  CHECK_ERR(h_call("aten::expand", (tabi_value[]){TV(x), IL(3)}, 2, o, 1), TABI_ERR_SHAPE,
            "the number of sizes provided (1)");
  CHECK_ERR(h_call("aten::expand", (tabi_value[]){TV(x), IL(2, 4)}, 2, o, 1), TABI_ERR_SHAPE,
            "must match the existing size (3) at non-singleton dimension 1");
  /* torch.ones(3,1).expand(1,3,4).stride() == (3,1,0) */
  tabi_tensor *c = t_iota(2, SHP(3, 1));
  v = h_call1("aten::expand", (tabi_value[]){TV(c), IL(1, 3, 4)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(3, 1, 0)));
  CHECK_VALS(v, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2);
  t_free(v);
  /* torch.ones(3,1).expand(3,0).stride() == (1,0) */
  v = h_call1("aten::expand", (tabi_value[]){TV(c), IL(3, 0)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(3, 0)));
  t_free(v);
  t_free(c);
  /* x.permute(-1,0).stride() == (1,3) */
  v = h_call1("aten::permute", (tabi_value[]){TV(x), IL(-1, 0)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)));
  t_free(v);
  CHECK_ERR(h_call("aten::permute", (tabi_value[]){TV(x), IL(0, 0)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "duplicate dims");
  CHECK_ERR(h_call("aten::permute", (tabi_value[]){TV(x), IL(1)}, 2, o, 1), TABI_ERR_SHAPE, "len(dims) = 1");
  CHECK_ERR(h_call("aten::permute", (tabi_value[]){TV(x), IL(0, 2)}, 2, o, 1), TABI_ERR_INDEX, "out of range");
  v = h_call1("prims::transpose", (tabi_value[]){TV(x), IL(1, 0)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(1, 3)) && shares(v, x));
  t_free(v);
  /* prims::broadcast_in_dim(arange(3), [2,3], [1]): strides (0,1) */
  tabi_tensor *a = t_iota(1, SHP(3));
  v = h_call1("prims::broadcast_in_dim", (tabi_value[]){TV(a), IL(2, 3), IL(1)}, 3, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(0, 1)) && shares(v, a));
  CHECK_VALS(v, 0, 1, 2, 0, 1, 2);
  t_free(v);
  CHECK_ERR(h_call("prims::broadcast_in_dim", (tabi_value[]){TV(a), IL(3, 2), IL(1)}, 3, o, 1),
            TABI_ERR_SHAPE, "prims::broadcast_in_dim");
  t_free(a);
}

static void test_select_slice_split(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  /* x.select(0,-1) == [3,4,5], storage_offset 3 */
  tabi_tensor *v = h_call1("aten::select.int", (tabi_value[]){TV(x), tabi_int(0), tabi_int(-1)}, 3, &st);
  CHECK(st == TABI_OK && t_offset(v) == 3 && shares(v, x));
  CHECK_VALS(v, 3, 4, 5);
  t_free(v);
  CHECK_ERR(h_call("aten::select.int", (tabi_value[]){TV(x), tabi_int(0), tabi_int(2)}, 3, o, 1),
            TABI_ERR_INDEX, "index 2 out of range for tensor of size [2, 3] at dimension 0");
  CHECK_ERR(h_call("aten::select.int", (tabi_value[]){TV(x), tabi_int(0), tabi_int(-3)}, 3, o, 1),
            TABI_ERR_INDEX, "index -3");
  tabi_tensor *z = t_make(TABI_DTYPE_FLOAT32, 0, NULL, VALS(7));
  CHECK_ERR(h_call("aten::select.int", (tabi_value[]){TV(z), tabi_int(0), tabi_int(0)}, 3, o, 1),
            TABI_ERR_INDEX, "0-dim");
  CHECK_ERR(h_call("aten::slice.Tensor", (tabi_value[]){TV(z), tabi_int(0), tabi_int(0), tabi_int(1)}, 4, o, 1),
            TABI_ERR_INDEX, "0-dim");
  /* torch.ops.aten.slice(x,1,-10,10,2): shape (2,2) stride (3,2) -> [0,2,3,5] */
  v = h_call1("aten::slice.Tensor", (tabi_value[]){TV(x), tabi_int(1), tabi_int(-10), tabi_int(10), tabi_int(2)}, 5, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(2, 2)) && t_strides_are(v, SHP(3, 2)));
  CHECK_VALS(v, 0, 2, 3, 5);
  t_free(v);
  /* torch.ops.aten.slice(x,1,5,1,2): shape (2,0), storage_offset 3 */
  v = h_call1("aten::slice.Tensor", (tabi_value[]){TV(x), tabi_int(1), tabi_int(5), tabi_int(1), tabi_int(2)}, 5, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(2, 0)) && t_offset(v) == 3);
  t_free(v);
  /* torch.ops.aten.slice(x,1,-1,None) == [[2],[5]], offset 2 */
  v = h_call1("aten::slice.Tensor", (tabi_value[]){TV(x), tabi_int(1), tabi_int(-1), tabi_none()}, 4, &st);
  CHECK(st == TABI_OK && t_offset(v) == 2);
  CHECK_VALS(v, 2, 5);
  t_free(v);
  CHECK_ERR(h_call("aten::slice.Tensor", (tabi_value[]){TV(x), tabi_int(1), tabi_int(0), tabi_int(3), tabi_int(0)}, 5, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "slice step must be positive");
  /* split_with_sizes(x,[1,2],1) -> [[0],[3]], [[1,2],[4,5]] */
  CHECK_OK(h_call("aten::split_with_sizes", (tabi_value[]){TV(x), IL(1, 2), tabi_int(1)}, 3, o, 1));
  CHECK(o[0].tag == TABI_TAG_TENSOR_LIST && o[0].u.list.len == 2);
  if (o[0].tag == TABI_TAG_TENSOR_LIST && o[0].u.list.len == 2) {
    tabi_tensor *const *p = tabi_value_tensors(&o[0]);
    CHECK_VALS(p[0], 0, 3);
    CHECK_VALS(p[1], 1, 2, 4, 5);
    CHECK(shares(p[1], x) && t_offset(p[1]) == 1);
  }
  tabi_value_release(&o[0]);
  CHECK_ERR(h_call("aten::split_with_sizes", (tabi_value[]){TV(x), IL(1, 1), tabi_int(1)}, 3, o, 1),
            TABI_ERR_SHAPE, "to sum exactly to 3");
  CHECK_ERR(h_call("aten::split_with_sizes", (tabi_value[]){TV(x), IL(4, -1), tabi_int(1)}, 3, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "non-negative");
  /* a sum that overflows is not the size, whatever it wraps to (INT64_MAX + 6
     overflowed, and adding 4 to the -1 that stood for it made 3) */
  CHECK_ERR(h_call("aten::split_with_sizes", (tabi_value[]){TV(x), IL(INT64_MAX, 6, 4), tabi_int(1)}, 3, o, 1),
            TABI_ERR_SHAPE, "to sum exactly to 3");
  t_free(z);
}

static void test_squeeze_unsqueeze_diag(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  tabi_tensor *a = t_iota(3, SHP(1, 2, 1));
  /* torch.ones(1,2,1).squeeze(0).shape == (2,1); .squeeze(1) keeps (1,2,1) */
  tabi_tensor *v = h_call1("aten::squeeze.dim", (tabi_value[]){TV(a), tabi_int(0)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(2, 1)));
  t_free(v);
  v = h_call1("aten::squeeze.dim", (tabi_value[]){TV(a), tabi_int(1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 3, SHP(1, 2, 1)));
  t_free(v);
  /* squeeze.dims (ATen 2.x): torch.ones(1,2,1).squeeze((0,2)).shape == (2,) */
  v = h_call1("aten::squeeze.dims", (tabi_value[]){TV(a), IL(0, -1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 1, SHP(2)) && shares(v, a));
  t_free(v);
  CHECK_ERR(h_call("aten::squeeze.dims", (tabi_value[]){TV(a), IL(0, 0)}, 2, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "appears multiple times");
  CHECK_ERR(h_call("aten::squeeze.dims", (tabi_value[]){TV(a), IL(3)}, 2, o, 1), TABI_ERR_INDEX, "out of range");
  v = h_call1("prims::squeeze", (tabi_value[]){TV(a), IL(0, 2)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 1, SHP(2)));
  t_free(v);
  CHECK_ERR(h_call("prims::squeeze", (tabi_value[]){TV(a), IL(1)}, 2, o, 1), TABI_ERR_SHAPE, "expected 1");
  /* torch.ones(()).squeeze(0) is 0-d; .squeeze(1) IndexError */
  tabi_tensor *z = t_make(TABI_DTYPE_FLOAT32, 0, NULL, VALS(7));
  v = h_call1("aten::squeeze.dim", (tabi_value[]){TV(z), tabi_int(0)}, 2, &st);
  CHECK(st == TABI_OK && v && v->dl.ndim == 0);
  t_free(v);
  CHECK_ERR(h_call("aten::squeeze.dim", (tabi_value[]){TV(z), tabi_int(1)}, 2, o, 1), TABI_ERR_INDEX, "dim");
  /* x.unsqueeze(1).stride() == (3,3,1); x.t().unsqueeze(1).stride() == (1,6,3) */
  v = h_call1("aten::unsqueeze", (tabi_value[]){TV(x), tabi_int(1)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(3, 3, 1)));
  t_free(v);
  tabi_tensor *xt = h_call1("aten::permute", (tabi_value[]){TV(x), IL(1, 0)}, 2, NULL);
  v = h_call1("aten::unsqueeze", (tabi_value[]){TV(xt), tabi_int(1)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 3, SHP(3, 1, 2)) && t_strides_are(v, SHP(1, 6, 3)));
  t_free(v);
  /* x.unsqueeze(-1).stride() == (3,1,1) */
  v = h_call1("aten::unsqueeze", (tabi_value[]){TV(x), tabi_int(-1)}, 2, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(3, 1, 1)));
  t_free(v);
  CHECK_ERR(h_call("aten::unsqueeze", (tabi_value[]){TV(x), tabi_int(3)}, 2, o, 1), TABI_ERR_INDEX, "out of range");
  /* x.diagonal() == [0,4] stride (4,); x.diagonal(1) == [1,5] offset 1; x.diagonal(-1) == [3] offset 3 */
  v = h_call1("aten::diagonal", (tabi_value[]){TV(x)}, 1, &st);
  CHECK(st == TABI_OK && t_strides_are(v, SHP(4)));
  CHECK_VALS(v, 0, 4);
  t_free(v);
  v = h_call1("aten::diagonal", (tabi_value[]){TV(x), tabi_int(1)}, 2, &st);
  CHECK(st == TABI_OK && t_offset(v) == 1);
  CHECK_VALS(v, 1, 5);
  t_free(v);
  v = h_call1("aten::diagonal", (tabi_value[]){TV(x), tabi_int(-1)}, 2, &st);
  CHECK(st == TABI_OK && t_offset(v) == 3);
  CHECK_VALS(v, 3);
  t_free(v);
  /* x.diagonal(5).shape == (0,), offset 0 */
  v = h_call1("aten::diagonal", (tabi_value[]){TV(x), tabi_int(5)}, 2, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 1, SHP(0)) && t_offset(v) == 0);
  t_free(v);
  CHECK_ERR(h_call("aten::diagonal", (tabi_value[]){TV(x), tabi_int(0), tabi_int(1), tabi_int(1)}, 4, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "cannot be identical");
  /* torch.ones(2,3,4).diagonal(1,-1,0): shape (3,1) stride (4,13) offset 12 */
  tabi_tensor *y = t_iota(3, SHP(2, 3, 4));
  v = h_call1("aten::diagonal", (tabi_value[]){TV(y), tabi_int(1), tabi_int(-1), tabi_int(0)}, 4, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(3, 1)) && t_strides_are(v, SHP(4, 13)) && t_offset(v) == 12);
  t_free(v);
  /* collapse_view(arange(24).reshape(2,3,4), 0, 2): shape (6,4) stride (4,1) */
  v = h_call1("prims::collapse_view", (tabi_value[]){TV(y), tabi_int(0), tabi_int(2)}, 3, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(6, 4)) && t_strides_are(v, SHP(4, 1)) && shares(v, y));
  t_free(v);
  tabi_tensor *y01 = h_call1("aten::permute", (tabi_value[]){TV(y), IL(1, 0, 2)}, 2, NULL);
  CHECK_ERR(h_call("prims::collapse_view", (tabi_value[]){TV(y01), tabi_int(0), tabi_int(2)}, 3, o, 1),
            TABI_ERR_SHAPE, "no such view exists");
  /* split_dim(arange(6), 0, 2): shape (2,3) stride (3,1) */
  tabi_tensor *r = t_iota(1, SHP(6));
  v = h_call1("prims::split_dim", (tabi_value[]){TV(r), tabi_int(0), tabi_int(2)}, 3, &st);
  CHECK(st == TABI_OK && t_shape_is(v, 2, SHP(2, 3)) && t_strides_are(v, SHP(3, 1)));
  t_free(v);
  CHECK_ERR(h_call("prims::split_dim", (tabi_value[]){TV(r), tabi_int(0), tabi_int(4)}, 3, o, 1),
            TABI_ERR_SHAPE, "outer length");
  t_free(r);
  t_free(y01);
  t_free(y);
  t_free(xt);
  t_free(z);
  t_free(a);
}

static void test_as_strided_alias(tabi_tensor *x) {
  tabi_status st;
  tabi_value o[1];
  /* x.as_strided((2,2),(1,2),1) == [[1,3],[2,4]] */
  tabi_tensor *v = h_call1("aten::as_strided", (tabi_value[]){TV(x), IL(2, 2), IL(1, 2), tabi_int(1)}, 4, &st);
  CHECK(st == TABI_OK && shares(v, x));
  CHECK_VALS(v, 1, 3, 2, 4);
  t_free(v);
  /* x[1].as_strided((2,),(1,)) keeps the storage offset 3 -> [3,4] */
  tabi_tensor *row = h_call1("aten::select.int", (tabi_value[]){TV(x), tabi_int(0), tabi_int(1)}, 3, NULL);
  v = h_call1("aten::as_strided", (tabi_value[]){TV(row), IL(2), IL(1)}, 3, &st);
  CHECK(st == TABI_OK && t_offset(v) == 3);
  CHECK_VALS(v, 3, 4);
  t_free(v);
  t_free(row);
  CHECK_ERR(h_call("aten::as_strided", (tabi_value[]){TV(x), IL(2, 2), IL(3, 3), tabi_int(1)}, 4, o, 1),
            TABI_ERR_INDEX, "out of bounds");
  CHECK_ERR(h_call("aten::as_strided", (tabi_value[]){TV(x), IL(2, 2), IL(1, -2), tabi_int(1)}, 4, o, 1),
            TABI_ERR_INVALID_ARGUMENT, "Negative strides");
  /* an empty view may point anywhere: x.as_strided((0,2),(30,3),7) */
  v = h_call1("aten::as_strided", (tabi_value[]){TV(x), IL(0, 2), IL(30, 3), tabi_int(7)}, 4, &st);
  CHECK(st == TABI_OK || st == TABI_ERR_INDEX); /* the host may refuse an offset past the end */
  t_free(v);
  v = h_call1("prims::as_strided", (tabi_value[]){TV(x), IL(3), IL(2), tabi_int(0)}, 4, &st);
  CHECK(st == TABI_OK);
  CHECK_VALS(v, 0, 2, 4);
  t_free(v);
  v = h_call1("aten::alias", (tabi_value[]){TV(x)}, 1, &st);
  CHECK(st == TABI_OK && shares(v, x) && v != x && t_shape_is(v, 2, SHP(2, 3)));
  t_free(v);
  v = h_call1("prims::view_of", (tabi_value[]){TV(x)}, 1, &st);
  CHECK(st == TABI_OK && shares(v, x));
  t_free(v);
}

int main(void) {
  h_setup();
  tabi_tensor *x = t_iota(2, SHP(2, 3));
  test_view(x);
  test_expand_permute(x);
  test_select_slice_split(x);
  test_squeeze_unsqueeze_diag(x);
  test_as_strided_alias(x);
  t_free(x);
  h_teardown();
  return check_report();
}
