/* tests/ref_reduce/test_reduce.c: sum, prod, mean, amax, amin, any, var (aten and
 * prims) against torch 1.13 semantics. `A` in the comments is torch.ops.aten,
 * `P` torch.ops.prims, `t` torch.tensor. */
#include "helpers.h"

static const double NaN = NAN;
#define F32 TABI_DTYPE_FLOAT32
#define F64 TABI_DTYPE_FLOAT64
#define I64 TABI_DTYPE_INT64

static void test_sum(void) {
  tabi_tensor *x = mk(F32, SH(2, 3), V(0, 1, 2, 3, 4, 5));
  tabi_value a[4] = {TV(x), IL(1)};
  tabi_tensor *r = run1("aten::sum.dim_IntList", a, 2); /* A.sum.dim_IntList(x,[1]) -> [3,12] */
  CHECK_T(r, F32, SH(2), V(3, 12));
  REL(r);
  a[1] = tabi_int(1); /* a single int for int[1]? */
  a[2] = tabi_bool(1); /* keepdim -> [[3],[12]] */
  r = run1("aten::sum.dim_IntList", a, 3);
  CHECK_T(r, F32, SH(2, 1), V(3, 12));
  REL(r);
  a[1] = IL0; /* dim=[] means every dim: A.sum.dim_IntList(x,[]) -> 15 */
  r = run1("aten::sum.dim_IntList", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(15));
  REL(r);
  a[1] = tabi_none(); /* None too, keepdim -> [[15]] */
  a[2] = tabi_bool(1);
  r = run1("aten::sum.dim_IntList", a, 3);
  CHECK_T(r, F32, SH(1, 1), V(15));
  REL(r);
  tabi_value out[1];
  a[1] = IL(0, -2); /* "dim 0 appears multiple times in the list of dims" */
  CHECK_ERR(run("aten::sum.dim_IntList", a, 2, out, 1), TABI_ERR_INVALID_ARGUMENT,
            "appears multiple times");
  a[1] = IL(2); /* IndexError: Dimension out of range */
  CHECK_ERR(run("aten::sum.dim_IntList", a, 2, out, 1), TABI_ERR_INDEX, "aten::sum.dim_IntList");

  /* a transposed (non-contiguous) input: x.t().sum(1) -> [3,5,7] */
  tabi_tensor *xt = tr2(x);
  a[0] = TV(xt);
  a[1] = IL(1);
  a[2] = tabi_bool(0);
  r = run1("aten::sum.dim_IntList", a, 3);
  CHECK_T(r, F32, SH(3), V(3, 5, 7));
  REL(r);
  /* a zero-stride (expanded) input: t([1.,2]).expand(3,2).sum(0) -> [3,6] */
  tabi_tensor *e = view(x, SH(3, 2), (const int64_t[]){0, 1}, 1);
  a[0] = TV(e);
  a[1] = IL(0);
  r = run1("aten::sum.dim_IntList", a, 2);
  CHECK_T(r, F32, SH(2), V(3, 6));
  REL(r);
  REL(e);
  REL(xt);
  REL(x);

  /* integers sum to int64: t([100,100],dtype=torch.int8).sum() -> 200 */
  tabi_tensor *i8 = mk(TABI_DTYPE_INT8, SH(2), V(100, 100));
  tabi_value b[4] = {TV(i8), tabi_none()};
  r = run1("aten::sum.dim_IntList", b, 2);
  CHECK_T(r, I64, SCALAR_SHAPE, V(200));
  REL(r);
  /* dtype= casts first and wraps: t([100,100],dtype=torch.int8).sum(dtype=torch.int8) -> -56 */
  b[2] = tabi_bool(0);
  b[3] = DT(TABI_DTYPE_INT8);
  r = run1("aten::sum.dim_IntList", b, 4);
  CHECK_T(r, TABI_DTYPE_INT8, SCALAR_SHAPE, V(-56));
  REL(r);
  REL(i8);
  /* t([True,True]).sum() -> tensor(2) int64 */
  tabi_tensor *bo = mk(TABI_DTYPE_BOOL, SH(2), V(1, 1));
  b[0] = TV(bo);
  r = run1("aten::sum.dim_IntList", b, 2);
  CHECK_T(r, I64, SCALAR_SHAPE, V(2));
  REL(r);
  REL(bo);
  /* the cast happens per element: t([1.5,2.7]).sum(dtype=torch.int32) -> 3 */
  tabi_tensor *f = mk(F32, SH(2), V(1.5, 2.7));
  b[0] = TV(f);
  b[3] = DT(TABI_DTYPE_INT32);
  r = run1("aten::sum.dim_IntList", b, 4);
  CHECK_T(r, TABI_DTYPE_INT32, SCALAR_SHAPE, V(3));
  REL(r);
  REL(f);
  /* empty: torch.zeros(0,3).sum(0) -> [0,0,0] */
  tabi_tensor *z = mk(F32, SH(0, 3), NULL);
  b[0] = TV(z);
  b[1] = IL(0);
  r = run1("aten::sum.dim_IntList", b, 2);
  CHECK_T(r, F32, SH(3), V(0, 0, 0));
  REL(r);
  REL(z);
  /* 0-d: dims 0 and -1 are the same dim: torch.tensor(5.).sum([0,-1]) -> error */
  tabi_tensor *s = mk0(F32, 5);
  b[0] = TV(s);
  b[1] = IL(0, -1);
  CHECK_ERR(run("aten::sum.dim_IntList", b, 2, out, 1), TABI_ERR_INVALID_ARGUMENT, "multiple");
  b[1] = IL(-1); /* torch.tensor(5.).sum(-1) -> 5 */
  r = run1("aten::sum.dim_IntList", b, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(5));
  REL(r);
  REL(s);
  /* complex: t([1+2j,3+4j]).sum() -> 4+6j */
  tabi_tensor *c = mkc(TABI_DTYPE_COMPLEX64, SH(2), V(1, 3), V(2, 4));
  b[0] = TV(c);
  b[1] = tabi_none();
  r = run1("aten::sum.dim_IntList", b, 2);
  CHECK_T(r, TABI_DTYPE_COMPLEX64, SCALAR_SHAPE, V(4));
  CHECK(r && geti_im(r, 0) == 6);
  REL(r);
  REL(c);
}

static void test_prod_mean(void) {
  tabi_value out[1];
  /* int64 wraps: t([2**40,2**40]).prod() -> 0 */
  tabi_tensor *x = mk(I64, SH(2), V(1099511627776.0, 1099511627776.0));
  tabi_value a[5] = {TV(x)};
  tabi_tensor *r = run1("aten::prod", a, 1);
  CHECK_T(r, I64, SCALAR_SHAPE, V(0));
  REL(r);
  REL(x);
  /* t([True,False]).prod() -> tensor(0) int64 */
  x = mk(TABI_DTYPE_BOOL, SH(2), V(1, 0));
  a[0] = TV(x);
  r = run1("aten::prod", a, 1);
  CHECK_T(r, I64, SCALAR_SHAPE, V(0));
  REL(r);
  REL(x);
  /* torch.zeros(0).prod() -> 1. */
  x = mk(F32, SH(0), NULL);
  a[0] = TV(x);
  r = run1("aten::prod", a, 1);
  CHECK_T(r, F32, SCALAR_SHAPE, V(1));
  REL(r);
  /* torch.zeros(0).mean() -> nan */
  r = run1("aten::mean", a, 1);
  CHECK_T(r, F32, SCALAR_SHAPE, V(NaN));
  REL(r);
  REL(x);
  /* prod.dim_int with NaN and dtype: t([[1.,2,3],[4,nan,6]]).prod(1) -> [6, nan] */
  x = mk(F64, SH(2, 3), V(1, 2, 3, 4, NaN, 6));
  a[0] = TV(x);
  a[1] = tabi_int(1);
  r = run1("aten::prod.dim_int", a, 2);
  CHECK_T(r, F64, SH(2), V(6, NaN));
  REL(r);
  /* prod(1, keepdim=True, dtype=torch.float32) -> [[6],[nan]] float32 */
  a[2] = tabi_bool(1);
  a[3] = DT(F32);
  r = run1("aten::prod.dim_int", a, 4);
  CHECK_T(r, F32, SH(2, 1), V(6, NaN));
  REL(r);
  REL(x);
  /* float16 prod: ATen CPU gained Half prod after 1.13; 1.13 refuses it.
   * t([2.,3]).prod() -> 6 in float16 on current ATen */
  x = mk(TABI_DTYPE_FLOAT16, SH(2), V(2, 3));
  a[0] = TV(x);
  r = run1("aten::prod", a, 1);
  CHECK_T(r, TABI_DTYPE_FLOAT16, SCALAR_SHAPE, V(6));
  REL(r);
  REL(x);

  /* mean: t([1,2]).mean() -> RuntimeError "mean(): could not infer output dtype. Input dtype..." */
  x = mk(I64, SH(2), V(1, 2));
  a[0] = TV(x);
  CHECK_ERR(run("aten::mean", a, 1, out, 1), TABI_ERR_TYPE, "Input dtype must be either a floating");
  /* t([1,2]).mean(dtype=torch.float32) -> 1.5 */
  a[1] = DT(F32);
  r = run1("aten::mean", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(1.5));
  REL(r);
  REL(x);
  /* t([1.,2]).mean(dtype=torch.int64) -> "Optional dtype must be either a floating point..." */
  x = mk(F32, SH(2), V(1, 2));
  a[0] = TV(x);
  a[1] = DT(I64);
  CHECK_ERR(run("aten::mean", a, 2, out, 1), TABI_ERR_TYPE, "Optional dtype");
  REL(x);
  /* t([True]).mean() -> error too */
  x = mk(TABI_DTYPE_BOOL, SH(1), V(1));
  a[0] = TV(x);
  CHECK_ERR(run("aten::mean", a, 1, out, 1), TABI_ERR_TYPE, "aten::mean");
  REL(x);
  /* mean.dim: torch.arange(6.).reshape(2,3).mean(1, dtype=torch.float64) -> [1., 4.] */
  x = mk(F32, SH(2, 3), V(0, 1, 2, 3, 4, 5));
  tabi_value m[4] = {TV(x), IL(1), tabi_bool(0), DT(F64)};
  r = run1("aten::mean.dim", m, 4);
  CHECK_T(r, F64, SH(2), V(1, 4));
  REL(r);
  /* mean over a transposed view: x.t().mean(0) -> [1., 4.] */
  tabi_tensor *xt = tr2(x);
  m[0] = TV(xt);
  m[1] = IL(0);
  r = run1("aten::mean.dim", m, 2);
  CHECK_T(r, F32, SH(2), V(1, 4));
  REL(r);
  REL(xt);
  REL(x);
  /* torch.zeros(0,3).mean(0) -> [nan,nan,nan]; .mean(1) -> shape [0] */
  x = mk(F32, SH(0, 3), NULL);
  m[0] = TV(x);
  m[1] = IL(0);
  r = run1("aten::mean.dim", m, 2);
  CHECK_T(r, F32, SH(3), V(NaN, NaN, NaN));
  REL(r);
  m[1] = IL(1);
  r = run1("aten::mean.dim", m, 2);
  CHECK_T(r, F32, SH(0), NULL);
  REL(r);
  REL(x);
  /* complex: t([1+2j,3+4j]).mean() -> 2+3j */
  x = mkc(TABI_DTYPE_COMPLEX128, SH(2), V(1, 3), V(2, 4));
  a[0] = TV(x);
  r = run1("aten::mean", a, 1);
  CHECK_T(r, TABI_DTYPE_COMPLEX128, SCALAR_SHAPE, V(2));
  CHECK(r && geti_im(r, 0) == 3);
  REL(r);
  REL(x);
  /* mean is sum(...).div_(n), a complex division: a NaN in either part of the sum makes
   * both parts NaN. x = tensor([[complex(1,nan), 2+0j], [complex(nan,1), 1+1j],
   * [1+1j, 3+1j]], dtype=complex128): x.mean(1) -> [nan+nanj, nan+nanj, 2+1j] */
  x = mkc(TABI_DTYPE_COMPLEX128, SH(3, 2), V(1, 2, NaN, 1, 1, 3), V(NaN, 0, 1, 1, 1, 1));
  m[0] = TV(x);
  m[1] = IL(1);
  r = run1("aten::mean.dim", m, 2);
  CHECK_T(r, TABI_DTYPE_COMPLEX128, SH(3), V(NaN, NaN, 2));
  CHECK(r && isnan(geti_im(r, 0)) && isnan(geti_im(r, 1)) && geti_im(r, 2) == 1);
  REL(r);
  REL(x);
}

static void test_amax_amin_any(void) {
  tabi_value out[1];
  /* NaN propagates: A.amax(t([1.,nan,3]),[]) -> nan */
  tabi_tensor *x = mk(F32, SH(3), V(1, NaN, 3));
  tabi_value a[3] = {TV(x)};
  tabi_tensor *r = run1("aten::amax", a, 1);
  CHECK_T(r, F32, SCALAR_SHAPE, V(NaN));
  REL(r);
  r = run1("aten::amin", a, 1);
  CHECK_T(r, F32, SCALAR_SHAPE, V(NaN));
  REL(r);
  REL(x);
  /* the first of equal values: A.amax(t([-0.,0.]),[0]) -> -0.0; A.amax(t([0.,-0.]),[0]) -> 0.0 */
  x = mk(F64, SH(2), V(-0.0, 0.0));
  a[0] = TV(x);
  a[1] = IL(0);
  r = run1("aten::amax", a, 2);
  CHECK_T(r, F64, SCALAR_SHAPE, V(-0.0));
  REL(r);
  REL(x);
  /* A.amin(t([0.,-0.]),[0]) -> 0.0 */
  x = mk(F64, SH(2), V(0.0, -0.0));
  a[0] = TV(x);
  r = run1("aten::amin", a, 2);
  CHECK_T(r, F64, SCALAR_SHAPE, V(0.0));
  REL(r);
  REL(x);
  /* A.amax(t([[1,5],[7,2]],dtype=torch.uint8),[0,1],True) -> [[7]] uint8 */
  x = mk(TABI_DTYPE_UINT8, SH(2, 2), V(1, 5, 7, 2));
  a[0] = TV(x);
  a[1] = IL(0, 1);
  a[2] = tabi_bool(1);
  r = run1("aten::amax", a, 3);
  CHECK_T(r, TABI_DTYPE_UINT8, SH(1, 1), V(7));
  REL(r);
  /* A.amin(x, [1]) -> [1, 2] */
  a[1] = IL(1);
  a[2] = tabi_bool(0);
  r = run1("aten::amin", a, 3);
  CHECK_T(r, TABI_DTYPE_UINT8, SH(2), V(1, 2));
  REL(r);
  REL(x);
  /* bool: A.amax(t([True,False])) -> True */
  x = mk(TABI_DTYPE_BOOL, SH(2), V(1, 0));
  a[0] = TV(x);
  r = run1("aten::amax", a, 1);
  CHECK_T(r, TABI_DTYPE_BOOL, SCALAR_SHAPE, V(1));
  REL(r);
  REL(x);
  /* complex refused: "max_values_cpu" not implemented for 'ComplexFloat' */
  x = mkc(TABI_DTYPE_COMPLEX64, SH(1), V(0), V(1));
  a[0] = TV(x);
  CHECK_ERR(run("aten::amax", a, 1, out, 1), TABI_ERR_TYPE, "complex64");
  REL(x);
  /* empty: A.amax(torch.zeros(0,3)) -> "Expected reduction dim to be specified for input.numel() == 0" */
  x = mk(F32, SH(0, 3), NULL);
  a[0] = TV(x);
  CHECK_ERR(run("aten::amax", a, 1, out, 1), TABI_ERR_SHAPE, "Expected reduction dim to be specified");
  /* A.amax(torch.zeros(0,3),[0]) -> IndexError "Expected reduction dim 0 to have non-zero size." */
  a[1] = IL(0);
  CHECK_ERR(run("aten::amin", a, 2, out, 1), TABI_ERR_INDEX, "non-zero size");
  /* A.amax(torch.zeros(0,3),[1]) -> tensor([]) */
  a[1] = IL(1);
  r = run1("aten::amax", a, 2);
  CHECK_T(r, F32, SH(0), NULL);
  REL(r);
  REL(x);

  /* any: uint8 stays uint8: A.any(t([0,2],dtype=torch.uint8)) -> tensor(1, dtype=torch.uint8) */
  x = mk(TABI_DTYPE_UINT8, SH(2), V(0, 2));
  a[0] = TV(x);
  r = run1("aten::any", a, 1);
  CHECK_T(r, TABI_DTYPE_UINT8, SCALAR_SHAPE, V(1));
  REL(r);
  REL(x);
  /* A.any(t([nan])) -> True; A.any(torch.zeros(0)) -> False */
  x = mk(F32, SH(1), V(NaN));
  a[0] = TV(x);
  r = run1("aten::any", a, 1);
  CHECK_T(r, TABI_DTYPE_BOOL, SCALAR_SHAPE, V(1));
  REL(r);
  REL(x);
  x = mk(F32, SH(0), NULL);
  a[0] = TV(x);
  r = run1("aten::any", a, 1);
  CHECK_T(r, TABI_DTYPE_BOOL, SCALAR_SHAPE, V(0));
  REL(r);
  REL(x);
  /* any.dim: A.any.dim(t([[0,1],[0,0]]),1) -> [True, False]; A.any.dim(torch.zeros(0,2),0,True) -> [[F,F]] */
  x = mk(TABI_DTYPE_INT32, SH(2, 2), V(0, 1, 0, 0));
  a[0] = TV(x);
  a[1] = tabi_int(1);
  a[2] = tabi_bool(0);
  r = run1("aten::any.dim", a, 3);
  CHECK_T(r, TABI_DTYPE_BOOL, SH(2), V(1, 0));
  REL(r);
  /* any.dims (newer than 1.13): dims [0] -> [False, True]; None -> True */
  a[1] = IL(0);
  r = run1("aten::any.dims", a, 3);
  CHECK_T(r, TABI_DTYPE_BOOL, SH(2), V(0, 1));
  REL(r);
  a[1] = tabi_none();
  r = run1("aten::any.dims", a, 3);
  CHECK_T(r, TABI_DTYPE_BOOL, SCALAR_SHAPE, V(1));
  REL(r);
  REL(x);
  x = mk(F32, SH(0, 2), NULL);
  a[0] = TV(x);
  a[1] = tabi_int(0);
  a[2] = tabi_bool(1);
  r = run1("aten::any.dim", a, 3);
  CHECK_T(r, TABI_DTYPE_BOOL, SH(1, 2), V(0, 0));
  REL(r);
  REL(x);
  /* complex counts its imaginary part (current ATen; 1.13's cast to bool read only the real part) */
  x = mkc(TABI_DTYPE_COMPLEX64, SH(2), V(0, 0), V(0, 0.5));
  a[0] = TV(x);
  r = run1("aten::any", a, 1);
  CHECK_T(r, TABI_DTYPE_BOOL, SCALAR_SHAPE, V(1));
  REL(r);
  REL(x);
}

static void test_var(void) {
  tabi_value out[1];
  /* A.var.correction(t([1.,2.,4.]),None) -> 2.3333 (correction None = 1) */
  tabi_tensor *x = mk(F32, SH(3), V(1, 2, 4));
  tabi_value a[4] = {TV(x), tabi_none(), tabi_none(), tabi_bool(0)};
  tabi_tensor *r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(7.0 / 3.0));
  REL(r);
  a[2] = tabi_int(0); /* correction=0 -> 1.5556 */
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(14.0 / 9.0));
  REL(r);
  a[2] = tabi_int(3); /* correction=3 -> inf (divisor 0) */
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(INFINITY));
  REL(r);
  a[2] = tabi_int(4); /* correction=4 -> inf (divisor clamps at 0) */
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(INFINITY));
  REL(r);
  a[2] = tabi_int(-1); /* correction=-1 -> 1.1667 */
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(14.0 / 3.0 / 4.0));
  REL(r);
  /* var.dim: A.var.dim(x,[0],False) -> 1.5556; A.var.dim(x,None,True,True) -> [2.3333] */
  tabi_value d[4] = {TV(x), IL(0), tabi_bool(0), tabi_bool(0)};
  r = run1("aten::var.dim", d, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(14.0 / 9.0));
  REL(r);
  d[1] = tabi_none();
  d[2] = tabi_bool(1);
  d[3] = tabi_bool(1);
  r = run1("aten::var.dim", d, 4);
  CHECK_T(r, F32, SH(1), V(7.0 / 3.0));
  REL(r);
  REL(x);
  /* one element: A.var.correction(torch.ones(1),None,correction=1) -> nan; correction=0 -> 0 */
  x = mk(F32, SH(1), V(1));
  a[0] = TV(x);
  a[2] = tabi_none();
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(NaN));
  REL(r);
  a[2] = tabi_int(0);
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SCALAR_SHAPE, V(0));
  REL(r);
  REL(x);
  /* empty: A.var.correction(torch.zeros(0,3),[0],correction=0) -> [nan,nan,nan] */
  x = mk(F32, SH(0, 3), NULL);
  a[0] = TV(x);
  a[1] = IL(0);
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SH(3), V(NaN, NaN, NaN));
  REL(r);
  /* even when the divisor is positive: A.var.correction(torch.zeros(0,3),[0],correction=-1) -> [nan,nan,nan] */
  a[2] = tabi_int(-1);
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F32, SH(3), V(NaN, NaN, NaN));
  REL(r);
  REL(x);
  /* complex gives real: A.var.correction(t([1+1j,2-1j,0j]),None,correction=1) -> 1.0+2.0*... */
  x = mkc(TABI_DTYPE_COMPLEX64, SH(3), V(1, 2, 0), V(1, -1, 0));
  a[0] = TV(x);
  a[1] = tabi_none();
  a[2] = tabi_int(1);
  r = run1("aten::var.correction", a, 4);
  /* mean 1+0j; |d|^2 = 1, 2, 1 -> 4 / 2 = 2 */
  CHECK_T(r, F32, SCALAR_SHAPE, V(2));
  REL(r);
  REL(x);
  /* 2-d over both dims, keepdim: A.var.correction(t([[1.,2],[4,8]]),[0,1],correction=1,keepdim=True) -> [[9.5833]] */
  x = mk(F64, SH(2, 2), V(1, 2, 4, 8));
  a[0] = TV(x);
  a[1] = IL(0, 1);
  a[3] = tabi_bool(1);
  r = run1("aten::var.correction", a, 4);
  CHECK_T(r, F64, SH(1, 1), V(115.0 / 12.0));
  REL(r);
  REL(x);
  /* integers refused: "std and var only support floating point and complex dtypes" */
  x = mk(I64, SH(2), V(1, 2));
  a[0] = TV(x);
  a[1] = tabi_none();
  a[3] = tabi_bool(0);
  CHECK_ERR(run("aten::var.correction", a, 4, out, 1), TABI_ERR_TYPE, "floating point and complex");
  REL(x);
}

static void test_prims(void) {
  tabi_value out[1];
  /* P.sum(t([1.,2,4]),[0]) -> 7; P.amax(...,[0]) -> 4; P.prod -> 8 */
  tabi_tensor *x = mk(F32, SH(3), V(1, 2, 4));
  tabi_value a[4] = {TV(x), IL(0)};
  tabi_tensor *r = run1("prims::sum", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(7));
  REL(r);
  r = run1("prims::prod", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(8));
  REL(r);
  r = run1("prims::amax", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(4));
  REL(r);
  r = run1("prims::amin", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(1));
  REL(r);
  /* P.var(x,[0],correction=1) -> 2.3333 */
  tabi_value v[4] = {TV(x), IL(0), tabi_int(1)};
  r = run1("prims::var", v, 3);
  CHECK_T(r, F32, SCALAR_SHAPE, V(7.0 / 3.0));
  REL(r);
  /* output_dtype: sum in float64 */
  a[2] = DT(F64);
  r = run1("prims::sum", a, 3);
  CHECK_T(r, F64, SCALAR_SHAPE, V(7));
  REL(r);
  /* prims reduce exactly the listed dims: [] reduces none (the prim's meta) */
  a[1] = IL0;
  a[2] = tabi_none();
  r = run1("prims::sum", a, 2);
  CHECK_T(r, F32, SH(3), V(1, 2, 4));
  REL(r);
  /* None reduces every dim */
  a[1] = tabi_none();
  r = run1("prims::sum", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(7));
  REL(r);
  a[1] = IL(0, 0);
  CHECK_ERR(run("prims::sum", a, 2, out, 1), TABI_ERR_INVALID_ARGUMENT, "multiple");
  REL(x);
  /* no promotion: int8 sums in int8 (wrapping) unless output_dtype says otherwise */
  x = mk(TABI_DTYPE_INT8, SH(2), V(100, 100));
  a[0] = TV(x);
  a[1] = IL(0);
  r = run1("prims::sum", a, 2);
  CHECK_T(r, TABI_DTYPE_INT8, SCALAR_SHAPE, V(-56));
  REL(r);
  a[2] = DT(I64);
  r = run1("prims::sum", a, 3);
  CHECK_T(r, I64, SCALAR_SHAPE, V(200));
  REL(r);
  REL(x);
  /* P.amax(t([1.,nan]),[0]) -> nan; P.amax(torch.zeros(0,2),[0]) -> IndexError */
  x = mk(F32, SH(2), V(1, NaN));
  a[0] = TV(x);
  a[2] = tabi_none();
  r = run1("prims::amax", a, 2);
  CHECK_T(r, F32, SCALAR_SHAPE, V(NaN));
  REL(r);
  REL(x);
  x = mk(F32, SH(0, 2), NULL);
  a[0] = TV(x);
  CHECK_ERR(run("prims::amax", a, 2, out, 1), TABI_ERR_INDEX, "non-zero size");
  REL(x);
  /* prims::var of complex gives the real dtype: P.var(t([1j,2]),[0],correction=1) -> 2.5 */
  x = mkc(TABI_DTYPE_COMPLEX128, SH(2), V(0, 2), V(1, 0));
  v[0] = TV(x);
  r = run1("prims::var", v, 3);
  CHECK_T(r, F64, SCALAR_SHAPE, V(2.5));
  REL(r);
  REL(x);
}

int main(int argc, char **argv) {
  if (argc < 2 || !setup(argv[1])) {
    fprintf(stderr, "usage: %s PLUGIN\n", argv[0]);
    return 1;
  }
  test_sum();
  test_prod_mean();
  test_amax_amin_any();
  test_var();
  test_prims();
  teardown();
  return check_report();
}
