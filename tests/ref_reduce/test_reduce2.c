/* tests/ref_reduce/test_reduce2.c: argmax/argmin, max.dim/min.dim, cumsum, sort,
 * topk against torch 1.13 semantics. `A` is torch.ops.aten, `t` torch.tensor. */
#include "helpers.h"

static const double NaN = NAN;
#define F32 TABI_DTYPE_FLOAT32
#define F64 TABI_DTYPE_FLOAT64
#define I64 TABI_DTYPE_INT64

/* Runs a two-output op; returns 1 on success. */
static int run2(const char *name, tabi_value *args, int32_t nargs, tabi_tensor **v, tabi_tensor **i) {
  tabi_value out[2];
  tabi_status st = run(name, args, nargs, out, 2);
  if (st != TABI_OK) {
    fprintf(stderr, "%s failed: %s\n", name, tabi_last_error());
    *v = *i = NULL;
    return 0;
  }
  *v = out[0].u.t;
  *i = out[1].u.t;
  return 1;
}

static void test_arg(void) {
  tabi_value out[1];
  /* first NaN wins: A.argmax(t([1.,nan,3,nan])) -> 1; A.argmin(same) -> 1 */
  tabi_tensor *x = mk(F32, SH(4), V(1, NaN, 3, NaN));
  tabi_value a[3] = {TV(x)};
  tabi_tensor *r = run1("aten::argmax", a, 1);
  CHECK_T(r, I64, SCALAR_SHAPE, V(1));
  REL(r);
  r = run1("aten::argmin", a, 1);
  CHECK_T(r, I64, SCALAR_SHAPE, V(1));
  REL(r);
  REL(x);
  /* ties give the first: A.argmax(t([3,1,3])) -> 0; A.argmin(t([1,1,0,0])) -> 2 */
  x = mk(TABI_DTYPE_INT16, SH(3), V(3, 1, 3));
  a[0] = TV(x);
  r = run1("aten::argmax", a, 1);
  CHECK_T(r, I64, SCALAR_SHAPE, V(0));
  REL(r);
  REL(x);
  x = mk(I64, SH(4), V(1, 1, 0, 0));
  a[0] = TV(x);
  r = run1("aten::argmin", a, 1);
  CHECK_T(r, I64, SCALAR_SHAPE, V(2));
  REL(r);
  REL(x);
  /* flattened index with keepdim: A.argmax(t([[1.,2],[4,0]]),None,True) -> [[2]];
   * per row: A.argmin(t([[1.,2],[4,0]]),-1,True) -> [[0],[1]] */
  x = mk(F64, SH(2, 2), V(1, 2, 4, 0));
  a[0] = TV(x);
  a[1] = tabi_none();
  a[2] = tabi_bool(1);
  r = run1("aten::argmax", a, 3);
  CHECK_T(r, I64, SH(1, 1), V(2));
  REL(r);
  a[1] = tabi_int(-1);
  r = run1("aten::argmin", a, 3);
  CHECK_T(r, I64, SH(2, 1), V(0, 1));
  REL(r);
  /* on the transpose: A.argmax(t([[1.,2],[4,0]]).t(), 1) -> [1, 0] */
  tabi_tensor *xt = tr2(x);
  a[0] = TV(xt);
  a[1] = tabi_int(1);
  a[2] = tabi_bool(0);
  r = run1("aten::argmax", a, 3);
  CHECK_T(r, I64, SH(2), V(1, 0));
  REL(r);
  REL(xt);
  REL(x);
  /* per-row NaN: A.argmax(t([[1.,nan],[nan,5]]),1) -> [1, 0] */
  x = mk(F32, SH(2, 2), V(1, NaN, NaN, 5));
  a[0] = TV(x);
  r = run1("aten::argmax", a, 2);
  CHECK_T(r, I64, SH(2), V(1, 0));
  REL(r);
  REL(x);
  /* 0-d: A.argmax(t(5.)) -> 0 */
  x = mk0(TABI_DTYPE_BFLOAT16, 5);
  a[0] = TV(x);
  r = run1("aten::argmax", a, 1);
  CHECK_T(r, I64, SCALAR_SHAPE, V(0));
  REL(r);
  REL(x);
  /* empty: A.argmax(torch.zeros(0,3)) -> IndexError "Expected reduction dim to be specified";
   * A.argmax(torch.zeros(0,3),0) -> IndexError "dim 0 to have non-zero size";
   * A.argmax(torch.zeros(0,3),1) -> tensor([], dtype=int64) */
  x = mk(F32, SH(0, 3), NULL);
  a[0] = TV(x);
  CHECK_ERR(run("aten::argmax", a, 1, out, 1), TABI_ERR_INDEX, "Expected reduction dim to be specified");
  a[1] = tabi_int(0);
  CHECK_ERR(run("aten::argmin", a, 2, out, 1), TABI_ERR_INDEX, "non-zero size");
  a[1] = tabi_int(1);
  r = run1("aten::argmax", a, 2);
  CHECK_T(r, I64, SH(0), NULL);
  REL(r);
  REL(x);
  /* bool and complex refused: "argmax_cpu" not implemented for 'Bool' */
  x = mk(TABI_DTYPE_BOOL, SH(2), V(1, 0));
  a[0] = TV(x);
  CHECK_ERR(run("aten::argmax", a, 1, out, 1), TABI_ERR_TYPE, "aten::argmax");
  REL(x);
}

static void test_max_min_dim(void) {
  tabi_value out[2];
  tabi_tensor *v, *i;
  /* A.max.dim(t([1.,nan,nan,5]),0) -> (nan, 1); A.min.dim(t([1.,nan,nan,-5]),0) -> (nan, 1) */
  tabi_tensor *x = mk(F32, SH(4), V(1, NaN, NaN, 5));
  tabi_value a[3] = {TV(x), tabi_int(0)};
  if (run2("aten::max.dim", a, 2, &v, &i)) {
    CHECK_T(v, F32, SCALAR_SHAPE, V(NaN));
    CHECK_T(i, I64, SCALAR_SHAPE, V(1));
    REL(v);
    REL(i);
  }
  if (run2("aten::min.dim", a, 2, &v, &i)) {
    CHECK_T(v, F32, SCALAR_SHAPE, V(NaN));
    CHECK_T(i, I64, SCALAR_SHAPE, V(1));
    REL(v);
    REL(i);
  }
  REL(x);
  /* -0.0 vs 0.0 keeps the first: A.max.dim(t([-0.,0.]),0) -> (-0., 0) */
  x = mk(F64, SH(2), V(-0.0, 0.0));
  a[0] = TV(x);
  if (run2("aten::max.dim", a, 2, &v, &i)) {
    CHECK_T(v, F64, SCALAR_SHAPE, V(-0.0));
    CHECK_T(i, I64, SCALAR_SHAPE, V(0));
    REL(v);
    REL(i);
  }
  REL(x);
  /* rows with keepdim: A.max.dim(t([[3,1],[2,5]],dtype=torch.int8),1,True) -> ([[3],[5]], [[0],[1]]) */
  x = mk(TABI_DTYPE_INT8, SH(2, 2), V(3, 1, 2, 5));
  a[0] = TV(x);
  a[1] = tabi_int(1);
  a[2] = tabi_bool(1);
  if (run2("aten::max.dim", a, 3, &v, &i)) {
    CHECK_T(v, TABI_DTYPE_INT8, SH(2, 1), V(3, 5));
    CHECK_T(i, I64, SH(2, 1), V(0, 1));
    REL(v);
    REL(i);
  }
  /* A.min.dim(same, 0) -> ([2, 1], [1, 0]) */
  a[1] = tabi_int(0);
  a[2] = tabi_bool(0);
  if (run2("aten::min.dim", a, 3, &v, &i)) {
    CHECK_T(v, TABI_DTYPE_INT8, SH(2), V(2, 1));
    CHECK_T(i, I64, SH(2), V(1, 0));
    REL(v);
    REL(i);
  }
  REL(x);
  /* bool is accepted: A.max.dim(t([True,False]),0) -> (True, 0) */
  x = mk(TABI_DTYPE_BOOL, SH(2), V(0, 1));
  a[0] = TV(x);
  if (run2("aten::max.dim", a, 2, &v, &i)) {
    CHECK_T(v, TABI_DTYPE_BOOL, SCALAR_SHAPE, V(1));
    CHECK_T(i, I64, SCALAR_SHAPE, V(1));
    REL(v);
    REL(i);
  }
  REL(x);
  /* 0-d with keepdim stays 0-d: A.max.dim(t(5.),0,True) -> (5., 0) */
  x = mk0(F32, 5);
  a[0] = TV(x);
  a[2] = tabi_bool(1);
  if (run2("aten::max.dim", a, 3, &v, &i)) {
    CHECK_T(v, F32, SCALAR_SHAPE, V(5));
    CHECK_T(i, I64, SCALAR_SHAPE, V(0));
    REL(v);
    REL(i);
  }
  a[1] = tabi_int(1); /* IndexError: Dimension out of range */
  CHECK_ERR(run("aten::max.dim", a, 3, out, 2), TABI_ERR_INDEX, "aten::max.dim");
  REL(x);
  /* empty: A.max.dim(torch.zeros(0,3),0) -> IndexError; dim 1 -> empty results */
  x = mk(F32, SH(0, 3), NULL);
  a[0] = TV(x);
  a[1] = tabi_int(0);
  a[2] = tabi_bool(0);
  CHECK_ERR(run("aten::max.dim", a, 3, out, 2), TABI_ERR_INDEX, "non-zero size");
  a[1] = tabi_int(1);
  if (run2("aten::min.dim", a, 3, &v, &i)) {
    CHECK_T(v, F32, SH(0), NULL);
    CHECK_T(i, I64, SH(0), NULL);
    REL(v);
    REL(i);
  }
  REL(x);
  /* complex: "max(): does not support complex input" */
  x = mkc(TABI_DTYPE_COMPLEX128, SH(1), V(1), V(1));
  a[0] = TV(x);
  a[1] = tabi_int(0);
  CHECK_ERR(run("aten::max.dim", a, 2, out, 2), TABI_ERR_TYPE, "complex128");
  REL(x);
}

static void test_cumsum(void) {
  tabi_value out[1];
  /* int -> int64: A.cumsum(t([100,100],dtype=torch.int8),0) -> [100,200] int64 */
  tabi_tensor *x = mk(TABI_DTYPE_INT8, SH(2), V(100, 100));
  tabi_value a[3] = {TV(x), tabi_int(0)};
  tabi_tensor *r = run1("aten::cumsum", a, 2);
  CHECK_T(r, I64, SH(2), V(100, 200));
  REL(r);
  /* dtype=int8 wraps: A.cumsum(t([100,100],dtype=torch.int8),0,dtype=torch.int8) -> [100,-56] */
  a[2] = DT(TABI_DTYPE_INT8);
  r = run1("aten::cumsum", a, 3);
  CHECK_T(r, TABI_DTYPE_INT8, SH(2), V(100, -56));
  REL(r);
  /* a bool result is refused: "cumsum_out_cpu" not implemented for 'Bool' */
  a[2] = DT(TABI_DTYPE_BOOL);
  CHECK_ERR(run("aten::cumsum", a, 3, out, 1), TABI_ERR_TYPE, "aten::cumsum");
  REL(x);
  /* cast first: A.cumsum(t([1.5,2.5]),0,dtype=torch.int32) -> [1, 3] */
  x = mk(F32, SH(2), V(1.5, 2.5));
  a[0] = TV(x);
  a[2] = DT(TABI_DTYPE_INT32);
  r = run1("aten::cumsum", a, 3);
  CHECK_T(r, TABI_DTYPE_INT32, SH(2), V(1, 3));
  REL(r);
  REL(x);
  /* NaN carries on: A.cumsum(t([1.,nan,2]),0) -> [1, nan, nan] */
  x = mk(F32, SH(3), V(1, NaN, 2));
  a[0] = TV(x);
  r = run1("aten::cumsum", a, 2);
  CHECK_T(r, F32, SH(3), V(1, NaN, NaN));
  REL(r);
  REL(x);
  /* accumulation in double: A.cumsum(t([1e8,1.,-1e8]),0) -> [1e8, 1e8, 1.] */
  x = mk(F32, SH(3), V(1e8, 1, -1e8));
  a[0] = TV(x);
  r = run1("aten::cumsum", a, 2);
  CHECK_T(r, F32, SH(3), V(1e8, 1e8, 1));
  REL(r);
  REL(x);
  /* along dim 1 of a transpose: torch.arange(6.).reshape(2,3).t().cumsum(1) -> [[0,3],[1,5],[2,7]] */
  x = mk(F64, SH(2, 3), V(0, 1, 2, 3, 4, 5));
  tabi_tensor *xt = tr2(x);
  a[0] = TV(xt);
  a[1] = tabi_int(1);
  r = run1("aten::cumsum", a, 2);
  CHECK_T(r, F64, SH(3, 2), V(0, 3, 1, 5, 2, 7));
  REL(r);
  a[1] = tabi_int(-2); /* .cumsum(-2) -> [[0,3],[1,7],[3,12]] */
  r = run1("aten::cumsum", a, 2);
  CHECK_T(r, F64, SH(3, 2), V(0, 3, 1, 7, 3, 12));
  REL(r);
  a[1] = tabi_int(2);
  CHECK_ERR(run("aten::cumsum", a, 2, out, 1), TABI_ERR_INDEX, "aten::cumsum");
  REL(xt);
  REL(x);
  /* 0-d and empty: A.cumsum(t(3.),-1) -> 3.; A.cumsum(torch.zeros(0,2),1) -> shape [0,2] */
  x = mk0(F32, 3);
  a[0] = TV(x);
  a[1] = tabi_int(-1);
  r = run1("aten::cumsum", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(3));
  REL(r);
  REL(x);
  x = mk(F32, SH(0, 2), NULL);
  a[0] = TV(x);
  a[1] = tabi_int(1);
  r = run1("aten::cumsum", a, 2);
  CHECK_T(r, F32, SH(0, 2), NULL);
  REL(r);
  REL(x);
  /* complex: A.cumsum(t([1+1j,2]),0) -> [1+1j, 3+1j] */
  x = mkc(TABI_DTYPE_COMPLEX64, SH(2), V(1, 2), V(1, 0));
  a[0] = TV(x);
  a[1] = tabi_int(0);
  r = run1("aten::cumsum", a, 2);
  CHECK_T(r, TABI_DTYPE_COMPLEX64, SH(2), V(1, 3));
  CHECK(r && geti_im(r, 1) == 1);
  REL(r);
  REL(x);
}

static void test_sort_topk(void) {
  tabi_value out[2];
  tabi_tensor *v, *i;
  /* A.sort(t([3.,nan,-0.,0.,1,nan,-1])) -> ([-1,-0,0,1,3,nan,nan], [6,2,3,4,0,1,5]) */
  tabi_tensor *x = mk(F32, SH(7), V(3, NaN, -0.0, 0.0, 1, NaN, -1));
  tabi_value a[5] = {TV(x)};
  if (run2("aten::sort", a, 1, &v, &i)) {
    CHECK_T(v, F32, SH(7), V(-1, -0.0, 0.0, 1, 3, NaN, NaN));
    CHECK_T(i, I64, SH(7), V(6, 2, 3, 4, 0, 1, 5));
    REL(v);
    REL(i);
  }
  /* descending: ([nan,nan,3,1,-0,0,-1], [1,5,0,4,2,3,6]) */
  a[1] = tabi_int(-1);
  a[2] = tabi_bool(1);
  if (run2("aten::sort", a, 3, &v, &i)) {
    CHECK_T(v, F32, SH(7), V(NaN, NaN, 3, 1, -0.0, 0.0, -1));
    CHECK_T(i, I64, SH(7), V(1, 5, 0, 4, 2, 3, 6));
    REL(v);
    REL(i);
  }
  REL(x);
  /* stable descending ties: A.sort(t([2,1,2,1,2]),-1,True) -> ([2,2,2,1,1], [0,2,4,1,3]) */
  x = mk(TABI_DTYPE_INT32, SH(5), V(2, 1, 2, 1, 2));
  a[0] = TV(x);
  if (run2("aten::sort", a, 3, &v, &i)) {
    CHECK_T(v, TABI_DTYPE_INT32, SH(5), V(2, 2, 2, 1, 1));
    CHECK_T(i, I64, SH(5), V(0, 2, 4, 1, 3));
    REL(v);
    REL(i);
  }
  REL(x);
  /* along dim 0: A.sort(t([[3,1],[2,5]]),0) -> ([[2,1],[3,5]], [[1,0],[0,1]]) */
  x = mk(I64, SH(2, 2), V(3, 1, 2, 5));
  a[0] = TV(x);
  a[1] = tabi_int(0);
  a[2] = tabi_bool(0);
  if (run2("aten::sort", a, 3, &v, &i)) {
    CHECK_T(v, I64, SH(2, 2), V(2, 1, 3, 5));
    CHECK_T(i, I64, SH(2, 2), V(1, 0, 0, 1));
    REL(v);
    REL(i);
  }
  /* the transpose sorted along its last dim: A.sort(t([[3,1],[2,5]]).t()) -> ([[2,3],[1,5]], [[1,0],[0,1]]) */
  tabi_tensor *xt = tr2(x);
  a[0] = TV(xt);
  a[1] = tabi_int(-1);
  if (run2("aten::sort", a, 3, &v, &i)) {
    CHECK_T(v, I64, SH(2, 2), V(2, 3, 1, 5));
    CHECK_T(i, I64, SH(2, 2), V(1, 0, 0, 1));
    REL(v);
    REL(i);
  }
  REL(xt);
  REL(x);
  /* bool: A.sort(t([True,False,True])) -> ([F,T,T], [1,0,2]) */
  x = mk(TABI_DTYPE_BOOL, SH(3), V(1, 0, 1));
  a[0] = TV(x);
  if (run2("aten::sort", a, 1, &v, &i)) {
    CHECK_T(v, TABI_DTYPE_BOOL, SH(3), V(0, 1, 1));
    CHECK_T(i, I64, SH(3), V(1, 0, 2));
    REL(v);
    REL(i);
  }
  REL(x);
  /* 0-d and empty: A.sort(t(5.)) -> (5., 0); A.sort(torch.zeros(0)) -> ([], []) */
  x = mk0(F32, 5);
  a[0] = TV(x);
  if (run2("aten::sort", a, 1, &v, &i)) {
    CHECK_T(v, F32, SCALAR_SHAPE, V(5));
    CHECK_T(i, I64, SCALAR_SHAPE, V(0));
    REL(v);
    REL(i);
  }
  a[1] = tabi_int(1); /* IndexError: Dimension out of range */
  CHECK_ERR(run("aten::sort", a, 2, out, 2), TABI_ERR_INDEX, "aten::sort");
  REL(x);
  /* complex refused */
  x = mkc(TABI_DTYPE_COMPLEX64, SH(1), V(1), V(1));
  a[0] = TV(x);
  CHECK_ERR(run("aten::sort", a, 1, out, 2), TABI_ERR_TYPE, "aten::sort");
  REL(x);

  /* topk: NaN is the largest: A.topk(t([3.,nan,1,2]),2) -> ([nan,3], [1,0]);
   * largest=False -> ([1,2], [2,3]) */
  x = mk(F32, SH(4), V(3, NaN, 1, 2));
  tabi_value k[5] = {TV(x), tabi_int(2)};
  if (run2("aten::topk", k, 2, &v, &i)) {
    CHECK_T(v, F32, SH(2), V(NaN, 3));
    CHECK_T(i, I64, SH(2), V(1, 0));
    REL(v);
    REL(i);
  }
  k[2] = tabi_int(-1);
  k[3] = tabi_bool(0);
  if (run2("aten::topk", k, 4, &v, &i)) {
    CHECK_T(v, F32, SH(2), V(1, 2));
    CHECK_T(i, I64, SH(2), V(2, 3));
    REL(v);
    REL(i);
  }
  /* k out of range: A.topk(x,5) and A.topk(x,-1) -> "selected index k out of range" */
  k[1] = tabi_int(5);
  CHECK_ERR(run("aten::topk", k, 2, out, 2), TABI_ERR_INDEX, "selected index k out of range");
  k[1] = tabi_int(-1);
  CHECK_ERR(run("aten::topk", k, 2, out, 2), TABI_ERR_INDEX, "selected index k out of range");
  /* k = 0: empty results */
  k[1] = tabi_int(0);
  if (run2("aten::topk", k, 2, &v, &i)) {
    CHECK_T(v, F32, SH(0), NULL);
    CHECK_T(i, I64, SH(0), NULL);
    REL(v);
    REL(i);
  }
  REL(x);
  /* ties: A.topk(t([3.,1,3,2]),2) -> ([3,3], [0,2]) */
  x = mk(F64, SH(4), V(3, 1, 3, 2));
  k[0] = TV(x);
  k[1] = tabi_int(2);
  if (run2("aten::topk", k, 2, &v, &i)) {
    CHECK_T(v, F64, SH(2), V(3, 3));
    CHECK_T(i, I64, SH(2), V(0, 2));
    REL(v);
    REL(i);
  }
  REL(x);
  /* along dim 0 of a 2-d: A.topk(t([[1,5],[4,2],[3,6]]),2,0) -> ([[4,6],[3,5]], [[1,2],[2,0]]) */
  x = mk(TABI_DTYPE_INT16, SH(3, 2), V(1, 5, 4, 2, 3, 6));
  k[0] = TV(x);
  k[2] = tabi_int(0);
  k[3] = tabi_bool(1);
  if (run2("aten::topk", k, 4, &v, &i)) {
    CHECK_T(v, TABI_DTYPE_INT16, SH(2, 2), V(4, 6, 3, 5));
    CHECK_T(i, I64, SH(2, 2), V(1, 2, 2, 0));
    REL(v);
    REL(i);
  }
  REL(x);
  /* 0-d: A.topk(t(3.),1) -> (3., 0); A.topk(t(3.),2) -> error */
  x = mk0(F32, 3);
  k[0] = TV(x);
  k[1] = tabi_int(1);
  if (run2("aten::topk", k, 2, &v, &i)) {
    CHECK_T(v, F32, SCALAR_SHAPE, V(3));
    CHECK_T(i, I64, SCALAR_SHAPE, V(0));
    REL(v);
    REL(i);
  }
  k[1] = tabi_int(2);
  CHECK_ERR(run("aten::topk", k, 2, out, 2), TABI_ERR_INDEX, "selected index k out of range");
  REL(x);
  /* bool refused: "topk_cpu" not implemented for 'Bool' */
  x = mk(TABI_DTYPE_BOOL, SH(2), V(1, 0));
  k[0] = TV(x);
  k[1] = tabi_int(1);
  CHECK_ERR(run("aten::topk", k, 2, out, 2), TABI_ERR_TYPE, "aten::topk");
  REL(x);
}

int main(int argc, char **argv) {
  if (argc < 2 || !setup(argv[1])) {
    fprintf(stderr, "usage: %s PLUGIN\n", argv[0]);
    return 1;
  }
  test_arg();
  test_max_min_dim();
  test_cumsum();
  test_sort_topk();
  teardown();
  return check_report();
}
