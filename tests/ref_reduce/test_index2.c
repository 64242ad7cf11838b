/* tests/ref_reduce/test_index2.c: index.Tensor, index_put, masked_scatter,
 * nonzero against torch 1.13 semantics. `A` is torch.ops.aten, `t` torch.tensor,
 * `L` = lambda *a: torch.tensor(a, dtype=torch.long), `x3` = torch.arange(24.).reshape(2,3,4),
 * `x` = torch.arange(6.).reshape(2,3). */
#include "helpers.h"

#define F32 TABI_DTYPE_FLOAT32
#define I64 TABI_DTYPE_INT64
#define F64 TABI_DTYPE_FLOAT64

static tabi_tensor *arange(tabi_dtype dt, const int64_t *shape, int32_t nd) {
  double v[64];
  for (int i = 0; i < 64; i++) v[i] = i;
  return mk(dt, shape, nd, v);
}

/* Calls aten::index.Tensor(self, list). */
static tabi_tensor *index_of(tabi_tensor *self, tabi_tensor *const *list, int64_t n) {
  tabi_value a[2] = {TV(self), tabi_tensor_list(list, n)};
  return run1("aten::index.Tensor", a, 2);
}
static tabi_status index_err(tabi_tensor *self, tabi_tensor *const *list, int64_t n) {
  tabi_value a[2] = {TV(self), tabi_tensor_list(list, n)}, out[1];
  return run("aten::index.Tensor", a, 2, out, 1);
}

static void test_index(void) {
  tabi_tensor *x3 = arange(F32, SH(2, 3, 4));
  tabi_tensor *i10 = mk(I64, SH(2), V(1, 0)), *i20 = mk(I64, SH(2), V(2, 0));
  tabi_tensor *i13 = mk(I64, SH(2), V(1, 3));
  /* A.index.Tensor(x3,[L(1,0)]) -> shape [2,3,4], rows 12.. then 0.. */
  tabi_tensor *r = index_of(x3, (tabi_tensor *[]){i10}, 1);
  CHECK_T(r, F32, SH(2, 3, 4), V(12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  REL(r);
  /* adjacent indices stay in place: A.index.Tensor(x3,[None,L(2,0),L(1,3)]) -> [[9,3],[21,15]] */
  r = index_of(x3, (tabi_tensor *[]){NULL, i20, i13}, 3);
  CHECK_T(r, F32, SH(2, 2), V(9, 3, 21, 15));
  REL(r);
  /* separated by a slice, the index dims come first: A.index.Tensor(x3,[L(1,0),None,L(1,3)])
   * -> shape [2,3]: [[13,17,21],[3,7,11]] */
  r = index_of(x3, (tabi_tensor *[]){i10, NULL, i13}, 3);
  CHECK_T(r, F32, SH(2, 3), V(13, 17, 21, 3, 7, 11));
  REL(r);
  /* broadcasting index tensors: A.index.Tensor(x3,[L(1,0),None,L([1],[3])]) -> [2,2,3] */
  tabi_tensor *c13 = mk(I64, SH(2, 1), V(1, 3));
  r = index_of(x3, (tabi_tensor *[]){i10, NULL, c13}, 3);
  CHECK_T(r, F32, SH(2, 2, 3), V(13, 17, 21, 1, 5, 9, 15, 19, 23, 3, 7, 11));
  REL(r);
  /* A.index.Tensor(x3,[L([0],[1]),None,L(1,2,3)]) -> [2,3,3] */
  tabi_tensor *c01 = mk(I64, SH(2, 1), V(0, 1)), *i123 = mk(I64, SH(3), V(1, 2, 3));
  r = index_of(x3, (tabi_tensor *[]){c01, NULL, i123}, 3);
  CHECK_T(r, F32, SH(2, 3, 3), V(1, 5, 9, 2, 6, 10, 3, 7, 11, 13, 17, 21, 14, 18, 22, 15, 19, 23));
  REL(r);
  /* every dim: A.index.Tensor(x3,[L(1,0),L(2,0),L(1,3)]) -> [21, 3] */
  r = index_of(x3, (tabi_tensor *[]){i10, i20, i13}, 3);
  CHECK_T(r, F32, SH(2), V(21, 3));
  REL(r);
  /* 0-d index drops the dim: A.index.Tensor(x3,[None,L(1)[0]]) -> shape [2,4] */
  tabi_tensor *s1 = mk0(I64, 1);
  r = index_of(x3, (tabi_tensor *[]){NULL, s1}, 2);
  CHECK_T(r, F32, SH(2, 4), V(4, 5, 6, 7, 16, 17, 18, 19));
  REL(r);
  /* A.index.Tensor(x3,[L(1)[0],None,L(1)[0]]) -> [13,17,21] */
  r = index_of(x3, (tabi_tensor *[]){s1, NULL, s1}, 3);
  CHECK_T(r, F32, SH(3), V(13, 17, 21));
  REL(r);
  /* negative wraps: A.index.Tensor(x3,[L(-1)]) -> x3[1:2] */
  tabi_tensor *m1 = mk(I64, SH(1), V(-1));
  r = index_of(x3, (tabi_tensor *[]){m1}, 1);
  CHECK_T(r, F32, SH(1, 3, 4), V(12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23));
  REL(r);
  /* int32 indices (current ATen; 1.13 refuses them): same as int64 */
  tabi_tensor *i10_32 = mk(TABI_DTYPE_INT32, SH(2), V(1, 0));
  r = index_of(x3, (tabi_tensor *[]){NULL, NULL, i10_32}, 3);
  CHECK_T(r, F32, SH(2, 3, 2), V(1, 0, 5, 4, 9, 8, 13, 12, 17, 16, 21, 20));
  REL(r);
  /* bool masks: A.index.Tensor(x3,[t([[T,F,T],[F,F,T]])]) -> [[0..3],[8..11],[20..23]] */
  tabi_tensor *m2 = mk(TABI_DTYPE_BOOL, SH(2, 3), V(1, 0, 1, 0, 0, 1));
  r = index_of(x3, (tabi_tensor *[]){m2}, 1);
  CHECK_T(r, F32, SH(3, 4), V(0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23));
  REL(r);
  /* A.index.Tensor(x3,[None,t([True,False,True])]) -> shape [2,2,4] */
  tabi_tensor *m3 = mk(TABI_DTYPE_BOOL, SH(3), V(1, 0, 1));
  r = index_of(x3, (tabi_tensor *[]){NULL, m3}, 2);
  CHECK_T(r, F32, SH(2, 2, 4), V(0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23));
  REL(r);
  /* uint8 is a mask too: A.index.Tensor(x,[t([0,1]).to(torch.uint8)]) -> [[3,4,5]] */
  tabi_tensor *x = arange(F32, SH(2, 3));
  tabi_tensor *u = mk(TABI_DTYPE_UINT8, SH(2), V(0, 1));
  r = index_of(x, (tabi_tensor *[]){u}, 1);
  CHECK_T(r, F32, SH(1, 3), V(3, 4, 5));
  REL(r);
  /* a mask with an index: A.index.Tensor(x3,[t([True,False]),None,L(1,2)]) -> [[1,5,9],[2,6,10]] */
  tabi_tensor *mtf = mk(TABI_DTYPE_BOOL, SH(2), V(1, 0)), *i12 = mk(I64, SH(2), V(1, 2));
  r = index_of(x3, (tabi_tensor *[]){mtf, NULL, i12}, 3);
  CHECK_T(r, F32, SH(2, 3), V(1, 5, 9, 2, 6, 10));
  REL(r);
  /* a transposed self: A.index.Tensor(x.t(),[L(2,0)]) -> [[2,5],[0,3]] */
  tabi_tensor *xt = tr2(x);
  r = index_of(xt, (tabi_tensor *[]){i20}, 1);
  CHECK_T(r, F32, SH(2, 2), V(2, 5, 0, 3));
  REL(r);
  REL(xt);

  /* errors */
  tabi_tensor *i5 = mk(I64, SH(1), V(5)), *i3 = mk(I64, SH(1), V(-3));
  /* A.index.Tensor(x3,[L(1,0),L(5)]) -> IndexError "index 5 is out of bounds for dimension 1 with size 3" */
  CHECK_ERR(index_err(x3, (tabi_tensor *[]){i10, i5}, 2), TABI_ERR_INDEX,
            "index 5 is out of bounds for dimension 1 with size 3");
  /* A.index.Tensor(x3,[L(-3)]) -> "index -3 is out of bounds for dimension 0 with size 2" */
  CHECK_ERR(index_err(x3, (tabi_tensor *[]){i3}, 1), TABI_ERR_INDEX,
            "index -3 is out of bounds for dimension 0 with size 2");
  /* A.index.Tensor(x3,[L(1,0),L(0,1,2)]) -> shapes [2], [3] do not broadcast */
  tabi_tensor *i012 = mk(I64, SH(3), V(0, 1, 2));
  CHECK_ERR(index_err(x3, (tabi_tensor *[]){i10, i012}, 2), TABI_ERR_SHAPE, "broadcast");
  /* too many: A.index.Tensor(x3,[L(1,0),L(2,0),L(1,3),L(0)]) -> "too many indices for tensor of dimension 3" */
  tabi_tensor *i0 = mk(I64, SH(1), V(0));
  CHECK_ERR(index_err(x3, (tabi_tensor *[]){i10, i20, i13, i0}, 4), TABI_ERR_INDEX,
            "too many indices for tensor of dimension 3");
  /* float indices: "tensors used as indices must be long, byte or bool tensors" */
  tabi_tensor *fi = mk(F32, SH(1), V(0));
  CHECK_ERR(index_err(x3, (tabi_tensor *[]){fi}, 1), TABI_ERR_TYPE, "tensors used as indices");
  /* mask shape: A.index.Tensor(x3,[t([True,False,True])]) -> "The shape of the mask [3] at index 0 does not match" */
  CHECK_ERR(index_err(x3, (tabi_tensor *[]){m3}, 1), TABI_ERR_INDEX, "The shape of the mask [3] at index 0");
  /* no index tensor at all (1.13 asserts internally) */
  CHECK_ERR(index_err(x3, (tabi_tensor *[]){NULL}, 1), TABI_ERR_INVALID_ARGUMENT, "at least one index");
  /* empty dim: A.index.Tensor(torch.zeros(0,3),[L(0)]) -> IndexError; L() -> shape [0,3] */
  tabi_tensor *z = mk(F32, SH(0, 3), NULL), *e = mk(I64, SH(0), NULL);
  CHECK_ERR(index_err(z, (tabi_tensor *[]){i0}, 1), TABI_ERR_INDEX, "out of bounds");
  r = index_of(z, (tabi_tensor *[]){e}, 1);
  CHECK_T(r, F32, SH(0, 3), NULL);
  REL(r);
  REL(z);
  REL(e);
  REL(i0);
  REL(fi);
  REL(i012);
  REL(i5);
  REL(i3);
  REL(mtf);
  REL(i12);
  REL(u);
  REL(x);
  REL(m2);
  REL(m3);
  REL(i10_32);
  REL(m1);
  REL(s1);
  REL(c01);
  REL(i123);
  REL(c13);
  REL(i10);
  REL(i20);
  REL(i13);
  REL(x3);
}

static void test_index_put(void) {
  tabi_value out[1];
  tabi_tensor *x = arange(F32, SH(2, 3));
  tabi_tensor *i00 = mk(I64, SH(2), V(0, 0)), *v = mk(F32, SH(3), V(1, 2, 3));
  tabi_tensor *list[2] = {i00, NULL};
  /* duplicates, last wins: A.index_put(x,[L(0,0)],t([1.,2,3])) -> [[1,2,3],[3,4,5]] */
  tabi_value a[4] = {TV(x), tabi_tensor_list(list, 1), TV(v), tabi_bool(0)};
  tabi_tensor *r = run1("aten::index_put", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(1, 2, 3, 3, 4, 5));
  REL(r);
  CHECK(getf(x, 0) == 0); /* self untouched */
  /* accumulate: A.index_put(x,[L(0,0)],t([1.,2,3]),True) -> [[2,5,8],[3,4,5]] */
  a[3] = tabi_bool(1);
  r = run1("aten::index_put", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(2, 5, 8, 3, 4, 5));
  REL(r);
  /* a 0-d value broadcasts: A.index_put(x,[L(0,0)],t(7.),True) -> [[14,15,16],[3,4,5]] */
  tabi_tensor *v7 = mk0(F32, 7);
  a[2] = TV(v7);
  r = run1("aten::index_put", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(14, 15, 16, 3, 4, 5));
  REL(r);
  /* a [2,1] value: A.index_put(x,[L(0,0)],t([[1.],[2]]),True) -> [[3,4,5],[3,4,5]] */
  tabi_tensor *v21 = mk(F32, SH(2, 1), V(1, 2));
  a[2] = TV(v21);
  r = run1("aten::index_put", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(3, 4, 5, 3, 4, 5));
  REL(r);
  /* shape mismatch: t([[1.,2,3,4]]) -> "shape mismatch: value tensor of shape [1, 4] cannot be broadcast" */
  tabi_tensor *v14 = mk(F32, SH(1, 4), V(1, 2, 3, 4));
  a[2] = TV(v14);
  CHECK_ERR(run("aten::index_put", a, 4, out, 1), TABI_ERR_SHAPE, "cannot be broadcast to indexing result");
  /* extra leading dims are not squeezed: A.index_put(x,[L(0)],torch.ones(1,1,3)) -> error */
  tabi_tensor *v113 = mk(F32, SH(1, 1, 3), V(1, 1, 1));
  a[2] = TV(v113);
  CHECK_ERR(run("aten::index_put", a, 4, out, 1), TABI_ERR_SHAPE, "cannot be broadcast");
  /* dtype must match: "Index put requires the source and destination dtypes match" */
  tabi_tensor *vi = mk(I64, SH(3), V(1, 2, 3));
  a[2] = TV(vi);
  CHECK_ERR(run("aten::index_put", a, 4, out, 1), TABI_ERR_TYPE, "dtypes match");
  /* on the last dim with a wrapped index: A.index_put(x,[None,L(2,-1)],t([10.,20]),True) -> [[0,1,32],[3,4,35]] */
  tabi_tensor *i2m = mk(I64, SH(2), V(2, -1)), *v1020 = mk(F32, SH(2), V(10, 20));
  list[0] = NULL;
  list[1] = i2m;
  a[1] = tabi_tensor_list(list, 2);
  a[2] = TV(v1020);
  r = run1("aten::index_put", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(0, 1, 32, 3, 4, 35));
  REL(r);
  /* out of bounds: A.index_put(x,[None,L(3)],t([10.]),True) -> IndexError */
  tabi_tensor *i3 = mk(I64, SH(1), V(3));
  list[1] = i3;
  CHECK_ERR(run("aten::index_put", a, 4, out, 1), TABI_ERR_INDEX, "index 3 is out of bounds");
  /* a mask: A.index_put(x,[x>2],t([10.,20,30])) -> [[0,1,2],[10,20,30]] */
  tabi_tensor *mask = mk(TABI_DTYPE_BOOL, SH(2, 3), V(0, 0, 0, 1, 1, 1));
  tabi_tensor *v3 = mk(F32, SH(3), V(10, 20, 30));
  list[0] = mask;
  a[1] = tabi_tensor_list(list, 1);
  a[2] = TV(v3);
  a[3] = tabi_bool(0);
  r = run1("aten::index_put", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(0, 1, 2, 10, 20, 30));
  REL(r);
  REL(x);
  /* int8 accumulation wraps: A.index_put(x.to(torch.int8),[L(0,0)],t([100,100,100],dtype=torch.int8),True)
   * -> [[-56,-55,-54],[3,4,5]] */
  x = arange(TABI_DTYPE_INT8, SH(2, 3));
  tabi_tensor *v8 = mk(TABI_DTYPE_INT8, SH(3), V(100, 100, 100));
  list[0] = i00;
  a[0] = TV(x);
  a[2] = TV(v8);
  a[3] = tabi_bool(1);
  r = run1("aten::index_put", a, 4);
  CHECK_T(r, TABI_DTYPE_INT8, SH(2, 3), V(-56, -55, -54, 3, 4, 5));
  REL(r);
  REL(x);
  /* bool accumulate is "or": A.index_put(x.bool(),[L(0,0)],t([True,False,True]),True) -> all True */
  x = arange(TABI_DTYPE_BOOL, SH(2, 3));
  tabi_tensor *vb = mk(TABI_DTYPE_BOOL, SH(3), V(1, 0, 1));
  a[0] = TV(x);
  a[2] = TV(vb);
  r = run1("aten::index_put", a, 4);
  CHECK_T(r, TABI_DTYPE_BOOL, SH(2, 3), V(1, 1, 1, 1, 1, 1));
  REL(r);
  REL(x);
  REL(vb);
  REL(v8);
  REL(v3);
  REL(mask);
  REL(i3);
  REL(i2m);
  REL(v1020);
  REL(vi);
  REL(v113);
  REL(v14);
  REL(v21);
  REL(v7);
  REL(v);
  REL(i00);
}

static void test_masked_scatter_nonzero(void) {
  tabi_value out[1];
  tabi_tensor *x = arange(F32, SH(2, 3));
  tabi_tensor *mask = mk(TABI_DTYPE_BOOL, SH(2, 3), V(0, 0, 0, 1, 1, 1));
  tabi_tensor *src = mk(F32, SH(2, 2), V(10, 20, 30, 40));
  /* A.masked_scatter(x,x>2,t([[10.,20],[30,40]])) -> [[0,1,2],[10,20,30]] */
  tabi_value a[3] = {TV(x), TV(mask), TV(src)};
  tabi_tensor *r = run1("aten::masked_scatter", a, 3);
  CHECK_T(r, F32, SH(2, 3), V(0, 1, 2, 10, 20, 30));
  REL(r);
  REL(src);
  /* too small: "Number of elements of source < number of ones in mask" */
  src = mk(F32, SH(2), V(10, 20));
  a[2] = TV(src);
  CHECK_ERR(run("aten::masked_scatter", a, 3, out, 1), TABI_ERR_SHAPE, "Number of elements of source");
  REL(src);
  REL(mask);
  /* the mask broadcasts: A.masked_scatter(x,t([True,False,True]),torch.arange(10.)) -> [[0,1,1],[2,4,3]] */
  mask = mk(TABI_DTYPE_BOOL, SH(3), V(1, 0, 1));
  src = arange(F32, SH(10));
  a[1] = TV(mask);
  a[2] = TV(src);
  r = run1("aten::masked_scatter", a, 3);
  CHECK_T(r, F32, SH(2, 3), V(0, 1, 1, 2, 4, 3));
  REL(r);
  REL(mask);
  /* so does self: A.masked_scatter(x[0],torch.ones(2,3,dtype=torch.bool),torch.arange(10.)) -> shape [2,3], 0..5 */
  tabi_tensor *row = view(x, SH(3), (const int64_t[]){1}, 0);
  mask = mk(TABI_DTYPE_BOOL, SH(2, 3), V(1, 1, 1, 1, 1, 1));
  a[0] = TV(row);
  a[1] = TV(mask);
  r = run1("aten::masked_scatter", a, 3);
  CHECK_T(r, F32, SH(2, 3), V(0, 1, 2, 3, 4, 5));
  REL(r);
  REL(row);
  /* a transposed mask that does not broadcast: [3,2] vs [2,3] -> error */
  tabi_tensor *mt = tr2(mask);
  a[0] = TV(x);
  a[1] = TV(mt);
  CHECK_ERR(run("aten::masked_scatter", a, 3, out, 1), TABI_ERR_SHAPE, "aten::masked_scatter");
  REL(mt);
  REL(mask);
  /* an int64 mask is refused (current ATen: boolean masks only) */
  mask = mk(I64, SH(3), V(1, 0, 1));
  a[1] = TV(mask);
  CHECK_ERR(run("aten::masked_scatter", a, 3, out, 1), TABI_ERR_TYPE, "mask");
  REL(mask);
  /* source dtype: "masked_scatter: expected self and source to have same dtypes" */
  mask = mk(TABI_DTYPE_BOOL, SH(3), V(1, 0, 1));
  tabi_tensor *srci = arange(I64, SH(10));
  a[1] = TV(mask);
  a[2] = TV(srci);
  CHECK_ERR(run("aten::masked_scatter", a, 3, out, 1), TABI_ERR_TYPE, "same dtypes");
  REL(srci);
  REL(mask);
  REL(src);
  REL(x);

  /* nonzero: A.nonzero(t([[0,1],[2,0]])) -> [[0,1],[1,0]] */
  x = mk(TABI_DTYPE_INT32, SH(2, 2), V(0, 1, 2, 0));
  tabi_value n[1] = {TV(x)};
  r = run1("aten::nonzero", n, 1);
  CHECK_T(r, I64, SH(2, 2), V(0, 1, 1, 0));
  REL(r);
  /* row-major order even for a transposed input: A.nonzero(t([[0,1],[2,0]]).t()) -> [[0,1],[1,0]] */
  tabi_tensor *xt = tr2(x);
  n[0] = TV(xt);
  r = run1("aten::nonzero", n, 1);
  CHECK_T(r, I64, SH(2, 2), V(0, 1, 1, 0));
  REL(r);
  REL(xt);
  REL(x);
  /* 0-d: A.nonzero(t(5)) -> shape [1,0]; A.nonzero(t(0)) -> [0,0]; A.nonzero(torch.zeros(2,0)) -> [0,2] */
  x = mk0(I64, 5);
  n[0] = TV(x);
  r = run1("aten::nonzero", n, 1);
  CHECK_T(r, I64, SH(1, 0), NULL);
  REL(r);
  REL(x);
  x = mk0(I64, 0);
  n[0] = TV(x);
  r = run1("aten::nonzero", n, 1);
  CHECK_T(r, I64, SH(0, 0), NULL);
  REL(r);
  REL(x);
  x = mk(F32, SH(2, 0), NULL);
  n[0] = TV(x);
  r = run1("aten::nonzero", n, 1);
  CHECK_T(r, I64, SH(0, 2), NULL);
  REL(r);
  REL(x);
  /* NaN is nonzero, -0.0 is zero: A.nonzero(t([nan,0,-0.])) -> [[0]] */
  x = mk(F64, SH(3), V(NAN, 0, -0.0));
  n[0] = TV(x);
  r = run1("aten::nonzero", n, 1);
  CHECK_T(r, I64, SH(1, 1), V(0));
  REL(r);
  REL(x);
  /* complex: A.nonzero(t([0j,1j])) -> [[1]] */
  x = mkc(TABI_DTYPE_COMPLEX64, SH(2), V(0, 0), V(0, 1));
  n[0] = TV(x);
  r = run1("aten::nonzero", n, 1);
  CHECK_T(r, I64, SH(1, 1), V(1));
  REL(r);
  REL(x);
}

int main(int argc, char **argv) {
  if (argc < 2 || !setup(argv[1])) {
    fprintf(stderr, "usage: %s PLUGIN\n", argv[0]);
    return 1;
  }
  test_index();
  test_index_put();
  test_masked_scatter_nonzero();
  teardown();
  return check_report();
}
