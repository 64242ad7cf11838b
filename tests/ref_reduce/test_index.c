/* tests/ref_reduce/test_index.c: gather, scatter.src/value, scatter_add,
 * scatter_reduce.two, index_select against torch 1.13 semantics.
 * `A` is torch.ops.aten, `t` torch.tensor, `x` = torch.arange(6.).reshape(2,3),
 * `L` = lambda *a: torch.tensor(a, dtype=torch.long). */
#include "helpers.h"

static const double NaN = NAN;
#define F32 TABI_DTYPE_FLOAT32
#define I64 TABI_DTYPE_INT64

static tabi_tensor *arange6(tabi_dtype dt) { return mk(dt, SH(2, 3), V(0, 1, 2, 3, 4, 5)); }

static void test_gather(void) {
  tabi_value out[1];
  tabi_tensor *x = arange6(F32);
  tabi_tensor *idx = mk(I64, SH(1, 2), V(0, 2));
  tabi_value a[4] = {TV(x), tabi_int(1), TV(idx)};
  tabi_tensor *r = run1("aten::gather", a, 3); /* A.gather(x,1,L([0,2])) -> [[0,2]] */
  CHECK_T(r, F32, SH(1, 2), V(0, 2));
  REL(r);
  REL(idx);
  /* index may be larger along dim: A.gather(x,1,L([0,1,2,0])) -> [[0,1,2,0]] */
  idx = mk(I64, SH(1, 4), V(0, 1, 2, 0));
  a[2] = TV(idx);
  r = run1("aten::gather", a, 3);
  CHECK_T(r, F32, SH(1, 4), V(0, 1, 2, 0));
  REL(r);
  REL(idx);
  /* along dim 0: A.gather(x,0,L([0],[1],[1])) -> "Size does not match": 3 rows > 2 is fine
   * only on dim 0 itself: A.gather(x,0,L([1,0,1],[0,0,0])) -> [[3,1,5],[0,1,2]] */
  idx = mk(I64, SH(2, 3), V(1, 0, 1, 0, 0, 0));
  a[1] = tabi_int(0);
  a[2] = TV(idx);
  r = run1("aten::gather", a, 3);
  CHECK_T(r, F32, SH(2, 3), V(3, 1, 5, 0, 1, 2));
  REL(r);
  /* on the transpose: A.gather(x.t(),1,L([1,0,1],[0,0,0]).t()) -> [[3,0],[1,1],[5,2]] */
  tabi_tensor *xt = tr2(x), *it = tr2(idx);
  a[0] = TV(xt);
  a[1] = tabi_int(1);
  a[2] = TV(it);
  r = run1("aten::gather", a, 3);
  CHECK_T(r, F32, SH(3, 2), V(3, 0, 1, 1, 5, 2));
  REL(r);
  REL(it);
  REL(xt);
  REL(idx);
  a[0] = TV(x);
  /* bounds: A.gather(x,1,L([0,3])) -> "index 3 is out of bounds for dimension 1 with size 3";
   * negatives are not wrapped: A.gather(x,1,L([0,-1])) -> error */
  idx = mk(I64, SH(1, 2), V(0, 3));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::gather", a, 3, out, 1), TABI_ERR_INDEX,
            "index 3 is out of bounds for dimension 1 with size 3");
  REL(idx);
  idx = mk(I64, SH(1, 2), V(0, -1));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::gather", a, 3, out, 1), TABI_ERR_INDEX, "index -1 is out of bounds");
  REL(idx);
  /* int32 refused: "gather(): Expected dtype int64 for index" */
  idx = mk(TABI_DTYPE_INT32, SH(1, 2), V(0, 1));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::gather", a, 3, out, 1), TABI_ERR_TYPE, "int64");
  REL(idx);
  /* rank mismatch: A.gather(x,1,L(0,1)) -> "Index tensor must have the same number of dimensions" */
  idx = mk(I64, SH(2), V(0, 1));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::gather", a, 3, out, 1), TABI_ERR_SHAPE, "same number of dimensions");
  REL(idx);
  /* too large off dim: A.gather(x,1,L([0],[0],[0])) -> error */
  idx = mk(I64, SH(3, 1), V(0, 0, 0));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::gather", a, 3, out, 1), TABI_ERR_SHAPE, "aten::gather");
  REL(idx);
  /* empty index skips the checks: A.gather(x,1,torch.zeros(0,dtype=torch.int32)) -> tensor([]) */
  idx = mk(TABI_DTYPE_INT32, SH(0), NULL);
  a[2] = TV(idx);
  r = run1("aten::gather", a, 3);
  CHECK_T(r, F32, SH(0), NULL);
  REL(r);
  a[1] = tabi_int(2); /* but the dim still wraps: IndexError */
  CHECK_ERR(run("aten::gather", a, 3, out, 1), TABI_ERR_INDEX, "aten::gather");
  REL(idx);
  REL(x);
  /* 0-d: A.gather(t(5.),0,L(0,0)) -> [5,5]; A.gather(t([5.,6]),0,t(1)) -> 6. */
  x = mk0(F32, 5);
  idx = mk(I64, SH(2), V(0, 0));
  a[0] = TV(x);
  a[1] = tabi_int(0);
  a[2] = TV(idx);
  r = run1("aten::gather", a, 3);
  CHECK_T(r, F32, SH(2), V(5, 5));
  REL(r);
  REL(idx);
  REL(x);
  x = mk(F32, SH(2), V(5, 6));
  idx = mk0(I64, 1);
  a[0] = TV(x);
  a[2] = TV(idx);
  r = run1("aten::gather", a, 3);
  CHECK_T(r, F32, SCALAR_SHAPE, V(6));
  REL(r);
  REL(idx);
  REL(x);
}

static void test_scatter(void) {
  tabi_value out[1];
  tabi_tensor *x = arange6(F32);
  tabi_tensor *idx = mk(I64, SH(1, 2), V(0, 2));
  tabi_tensor *src = mk(F32, SH(1, 3), V(10, 20, 30));
  /* A.scatter.src(x,1,L([0,2]),t([[10.,20,30]])) -> [[10,1,20],[3,4,5]] */
  tabi_value a[6] = {TV(x), tabi_int(1), TV(idx), TV(src)};
  tabi_tensor *r = run1("aten::scatter.src", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(10, 1, 20, 3, 4, 5));
  REL(r);
  /* self is not written (functional) */
  CHECK(getf(x, 0) == 0 && getf(x, 2) == 2);
  /* scatter.value: A.scatter.value(x,1,L([0,2]),7.5) -> [[7.5,1,7.5],[3,4,5]] */
  a[3] = tabi_float(7.5);
  r = run1("aten::scatter.value", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(7.5, 1, 7.5, 3, 4, 5));
  REL(r);
  /* complex value into a float tensor: "value cannot be converted to type float without overflow" */
  a[3] = tabi_complex(1, 2);
  CHECK_ERR(run("aten::scatter.value", a, 4, out, 1), TABI_ERR_INVALID_ARGUMENT, "without overflow");
  a[3] = tabi_float(1e300);
  CHECK_ERR(run("aten::scatter.value", a, 4, out, 1), TABI_ERR_INVALID_ARGUMENT, "without overflow");
  a[3] = tabi_float(INFINITY); /* inf fits a float: [[inf,1,inf],...] */
  r = run1("aten::scatter.value", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(INFINITY, 1, INFINITY, 3, 4, 5));
  REL(r);
  /* duplicates: the last write wins: A.scatter.src(x,1,L([0,2,1,0]),t([[10.,20,30,40]])) -> [[40,30,20],...] */
  REL(idx);
  REL(src);
  idx = mk(I64, SH(1, 4), V(0, 2, 1, 0));
  src = mk(F32, SH(1, 4), V(10, 20, 30, 40));
  a[2] = TV(idx);
  a[3] = TV(src);
  r = run1("aten::scatter.src", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(40, 30, 20, 3, 4, 5));
  REL(r);
  REL(src);
  /* src too small: A.scatter.src(x,1,L([0,2,1,0]),t([[10.,20]])) -> "Expected index [1, 4] to be smaller..." */
  src = mk(F32, SH(1, 2), V(10, 20));
  a[3] = TV(src);
  CHECK_ERR(run("aten::scatter.src", a, 4, out, 1), TABI_ERR_SHAPE, "to be smaller");
  REL(src);
  /* dtype of src: "scatter(): Expected self.dtype to be equal to src.dtype" */
  src = mk(I64, SH(1, 4), V(1, 2, 3, 4));
  a[3] = TV(src);
  CHECK_ERR(run("aten::scatter.src", a, 4, out, 1), TABI_ERR_TYPE, "src.dtype");
  CHECK_ERR(run("aten::scatter_add", a, 4, out, 1), TABI_ERR_TYPE, "src.dtype");
  REL(src);
  REL(idx);
  /* scatter_add: A.scatter_add(x,1,L([0,0]),t([[10.,20,30]])) -> [[30,1,2],[3,4,5]] */
  idx = mk(I64, SH(1, 2), V(0, 0));
  src = mk(F32, SH(1, 3), V(10, 20, 30));
  a[2] = TV(idx);
  a[3] = TV(src);
  r = run1("aten::scatter_add", a, 4);
  CHECK_T(r, F32, SH(2, 3), V(30, 1, 2, 3, 4, 5));
  REL(r);
  /* scatter_reduce mean, include_self: (0+10+20)/3 -> [[10,1,2],...] */
  a[4] = tabi_string("mean", 4);
  a[5] = tabi_bool(1);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, F32, SH(2, 3), V(10, 1, 2, 3, 4, 5));
  REL(r);
  /* without self: (10+20)/2 -> [[15,1,2],...] */
  a[5] = tabi_bool(0);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, F32, SH(2, 3), V(15, 1, 2, 3, 4, 5));
  REL(r);
  /* amax without self: [[20,1,2],...]; prod without self: 200 */
  a[4] = tabi_string("amax", 4);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, F32, SH(2, 3), V(20, 1, 2, 3, 4, 5));
  REL(r);
  a[4] = tabi_string("prod", 4);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, F32, SH(2, 3), V(200, 1, 2, 3, 4, 5));
  REL(r);
  /* prod with self: 0*10*20 = 0 */
  a[5] = tabi_bool(1);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, F32, SH(2, 3), V(0, 1, 2, 3, 4, 5));
  REL(r);
  /* a bad reduce: "reduce argument must be either sum, prod, mean, amax or amin." */
  a[4] = tabi_string("max", 3);
  CHECK_ERR(run("aten::scatter_reduce.two", a, 6, out, 1), TABI_ERR_INVALID_ARGUMENT,
            "sum, prod, mean, amax or amin");
  REL(src);
  /* NaN propagates: A.scatter_reduce.two(x,1,L([0,0]),t([[-20.,nan,30]]),"amax") -> [[nan,1,2],...] */
  src = mk(F32, SH(1, 3), V(-20, NaN, 30));
  a[3] = TV(src);
  a[4] = tabi_string("amax", 4);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, F32, SH(2, 3), V(NaN, 1, 2, 3, 4, 5));
  REL(r);
  REL(src);
  REL(x);
  /* integer mean floors: A.scatter_reduce.two(x.long(),1,L([0,0]),t([[-10,-21,30]]),"mean",include_self=False)
   * -> [[-16,1,2],...]; include_self=True -> [[-11,1,2],...] */
  x = arange6(I64);
  src = mk(I64, SH(1, 3), V(-10, -21, 30));
  a[0] = TV(x);
  a[3] = TV(src);
  a[4] = tabi_string("mean", 4);
  a[5] = tabi_bool(0);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, I64, SH(2, 3), V(-16, 1, 2, 3, 4, 5));
  REL(r);
  a[5] = tabi_bool(1);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, I64, SH(2, 3), V(-11, 1, 2, 3, 4, 5));
  REL(r);
  REL(src);
  REL(x);
  /* bool: sum is "or", prod is "and": x.bool() with L([1,1]) and t([[True,False,True]]):
   * sum -> [[F,T,T],[T,T,T]]; prod -> [[F,F,T],[T,T,T]]; mean refused */
  x = arange6(TABI_DTYPE_BOOL);
  src = mk(TABI_DTYPE_BOOL, SH(1, 3), V(1, 0, 1));
  REL(idx);
  idx = mk(I64, SH(1, 2), V(1, 1));
  a[0] = TV(x);
  a[2] = TV(idx);
  a[3] = TV(src);
  a[4] = tabi_string("sum", 3);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, TABI_DTYPE_BOOL, SH(2, 3), V(0, 1, 1, 1, 1, 1));
  REL(r);
  a[4] = tabi_string("prod", 4);
  r = run1("aten::scatter_reduce.two", a, 6);
  CHECK_T(r, TABI_DTYPE_BOOL, SH(2, 3), V(0, 0, 1, 1, 1, 1));
  REL(r);
  a[4] = tabi_string("mean", 4);
  CHECK_ERR(run("aten::scatter_reduce.two", a, 6, out, 1), TABI_ERR_TYPE, "aten::scatter_reduce.two");
  REL(src);
  REL(x);
  /* int8 accumulates in int8: scatter_add(t([[0,0]],dtype=int8),1,L([0,0]),t([[100,100]],dtype=int8)) -> [[-56,0]] */
  x = mk(TABI_DTYPE_INT8, SH(1, 2), V(0, 0));
  src = mk(TABI_DTYPE_INT8, SH(1, 2), V(100, 100));
  REL(idx);
  idx = mk(I64, SH(1, 2), V(0, 0));
  tabi_value b[4] = {TV(x), tabi_int(1), TV(idx), TV(src)};
  r = run1("aten::scatter_add", b, 4);
  CHECK_T(r, TABI_DTYPE_INT8, SH(1, 2), V(-56, 0));
  REL(r);
  /* scatter.value int8 with 300: "value cannot be converted to type int8_t without overflow" */
  b[3] = tabi_int(300);
  CHECK_ERR(run("aten::scatter.value", b, 4, out, 1), TABI_ERR_INVALID_ARGUMENT, "without overflow");
  b[3] = tabi_float(200.7);
  CHECK_ERR(run("aten::scatter.value", b, 4, out, 1), TABI_ERR_INVALID_ARGUMENT, "without overflow");
  REL(src);
  REL(x);
  /* uint8 takes -1 as 255: A.scatter.value(x.to(torch.uint8),1,L([0]),-1) -> [[255,1,2],...] */
  x = arange6(TABI_DTYPE_UINT8);
  REL(idx);
  idx = mk(I64, SH(1, 1), V(0));
  b[0] = TV(x);
  b[2] = TV(idx);
  b[3] = tabi_int(-1);
  r = run1("aten::scatter.value", b, 4);
  CHECK_T(r, TABI_DTYPE_UINT8, SH(2, 3), V(255, 1, 2, 3, 4, 5));
  REL(r);
  /* out of bounds: A.scatter_add(x,1,L([0,-1]),...) -> "index -1 is out of bounds" */
  REL(idx);
  idx = mk(I64, SH(1, 1), V(3));
  b[2] = TV(idx);
  CHECK_ERR(run("aten::scatter.value", b, 4, out, 1), TABI_ERR_INDEX,
            "index 3 is out of bounds for dimension 1 with size 3");
  REL(idx);
  REL(x);
  /* 0-d self with a 1-d index: A.scatter_add(t(1.),0,L(0,0),t([5.,6])) -> 12. */
  x = mk0(F32, 1);
  idx = mk(I64, SH(2), V(0, 0));
  src = mk(F32, SH(2), V(5, 6));
  b[0] = TV(x);
  b[1] = tabi_int(0);
  b[2] = TV(idx);
  b[3] = TV(src);
  r = run1("aten::scatter_add", b, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(12));
  REL(r);
  REL(src);
  /* src 0-d is too small for 2 indices: A.scatter_add(torch.ones(3),0,L(0,0),t(5.)) -> error */
  REL(x);
  x = mk(F32, SH(3), V(1, 1, 1));
  src = mk0(F32, 5);
  b[0] = TV(x);
  b[3] = TV(src);
  CHECK_ERR(run("aten::scatter_add", b, 4, out, 1), TABI_ERR_SHAPE, "to be smaller");
  REL(src);
  REL(idx);
  REL(x);
}

static void test_index_select(void) {
  tabi_value out[1];
  tabi_tensor *x = arange6(F32);
  tabi_tensor *idx = mk(I64, SH(3), V(2, 0, 2));
  tabi_value a[3] = {TV(x), tabi_int(1), TV(idx)};
  tabi_tensor *r = run1("aten::index_select", a, 3); /* A.index_select(x,1,L(2,0,2)) -> [[2,0,2],[5,3,5]] */
  CHECK_T(r, F32, SH(2, 3), V(2, 0, 2, 5, 3, 5));
  REL(r);
  REL(idx);
  /* int32 is accepted: A.index_select(x,1,t([2,0],dtype=torch.int32)) -> [[2,0],[5,3]] */
  idx = mk(TABI_DTYPE_INT32, SH(2), V(2, 0));
  a[2] = TV(idx);
  r = run1("aten::index_select", a, 3);
  CHECK_T(r, F32, SH(2, 2), V(2, 0, 5, 3));
  REL(r);
  /* from the transpose along dim 0: A.index_select(x.t(),0,t([2,0],dtype=torch.int32)) -> [[2,5],[0,3]] */
  tabi_tensor *xt = tr2(x);
  a[0] = TV(xt);
  a[1] = tabi_int(0);
  r = run1("aten::index_select", a, 3);
  CHECK_T(r, F32, SH(2, 2), V(2, 5, 0, 3));
  REL(r);
  REL(xt);
  REL(idx);
  a[0] = TV(x);
  a[1] = tabi_int(1);
  /* int16 refused: "index_select(): Expected dtype int32 or int64 for index" */
  idx = mk(TABI_DTYPE_INT16, SH(2), V(2, 0));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::index_select", a, 3, out, 1), TABI_ERR_TYPE, "int64");
  REL(idx);
  /* 0-d index keeps the dim: A.index_select(x,1,L(2)[0]) -> [[2],[5]] */
  idx = mk0(I64, 2);
  a[2] = TV(idx);
  r = run1("aten::index_select", a, 3);
  CHECK_T(r, F32, SH(2, 1), V(2, 5));
  REL(r);
  REL(idx);
  /* 2-d index: IndexError "index_select(): Index is supposed to be a vector" */
  idx = mk(I64, SH(1, 1), V(2));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::index_select", a, 3, out, 1), TABI_ERR_INDEX, "vector");
  REL(idx);
  /* out of range, no wrapping: A.index_select(x,1,L(3)) and L(-1) -> errors */
  idx = mk(I64, SH(1), V(3));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::index_select", a, 3, out, 1), TABI_ERR_INDEX, "index 3 is out of bounds");
  REL(idx);
  idx = mk(I64, SH(1), V(-1));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::index_select", a, 3, out, 1), TABI_ERR_INDEX, "out of bounds");
  REL(idx);
  REL(x);
  /* 0-d self: A.index_select(t(5.),0,L(0)) -> 5. (0-d); two values: "Index to scalar can have only 1 value" */
  x = mk0(TABI_DTYPE_COMPLEX64, 5);
  idx = mk(I64, SH(1), V(0));
  a[0] = TV(x);
  a[1] = tabi_int(0);
  a[2] = TV(idx);
  r = run1("aten::index_select", a, 3);
  CHECK_T(r, TABI_DTYPE_COMPLEX64, SCALAR_SHAPE, V(5));
  REL(r);
  REL(idx);
  idx = mk(I64, SH(2), V(0, 0));
  a[2] = TV(idx);
  CHECK_ERR(run("aten::index_select", a, 3, out, 1), TABI_ERR_INDEX, "only 1 value");
  REL(idx);
  REL(x);
  /* empty: A.index_select(torch.zeros(0,3),0,L()) -> shape [0,3] */
  x = mk(F32, SH(0, 3), NULL);
  idx = mk(I64, SH(0), NULL);
  a[0] = TV(x);
  a[2] = TV(idx);
  r = run1("aten::index_select", a, 3);
  CHECK_T(r, F32, SH(0, 3), NULL);
  REL(r);
  REL(idx);
  REL(x);
}

int main(int argc, char **argv) {
  if (argc < 2 || !setup(argv[1])) {
    fprintf(stderr, "usage: %s PLUGIN\n", argv[0]);
    return 1;
  }
  test_gather();
  test_scatter();
  test_index_select();
  teardown();
  return check_report();
}
