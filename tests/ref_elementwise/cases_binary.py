"""Binary elementwise cases (see gen_cases.py). Each case: the tabi op and args,
and the torch expression whose result is the expected value."""

INV = "TABI_ERR_INVALID_ARGUMENT"
TYPE = "TABI_ERR_TYPE"
SHAPE = "TABI_ERR_SHAPE"


def define(case, T, I, F, B, CX, STR, NONE, DTYPE):
    nan, inf = float("nan"), float("inf")
    i64min = -2**63

    # --- division: true division, rounding modes, zero, -0.0 -------------------------
    case("aten::div.Tensor", [T("int64", [5, -5, 7, 0]), T("int64", [2, 2, 0, 0])],
         "torch.div(T([5,-5,7,0]), T([2,2,0,0]))")
    case("aten::div.Tensor_mode", [T("int64", [-7, 7, -7, 7, -6]), T("int64", [2, -2, -2, 2, 4]), STR("trunc")],
         "torch.div(T([-7,7,-7,7,-6]), T([2,-2,-2,2,4]), rounding_mode='trunc')")
    case("aten::div.Tensor_mode", [T("int64", [-7, 7, -7, 7, -6]), T("int64", [2, -2, -2, 2, 4]), STR("floor")],
         "torch.div(T([-7,7,-7,7,-6]), T([2,-2,-2,2,4]), rounding_mode='floor')")
    case("aten::div.Tensor_mode", [T("int64", [5, 6]), T("int64", [2, 4]), NONE],
         "torch.div(T([5,6]), T([2,4]), rounding_mode=None)")
    case("aten::div.Tensor_mode", [T("float32", [-3.0, 3.0, -0.0, -0.5, 0.5, 5.0, -5.0, 0.0]),
                                   T("float32", [2.0, -2.0, 5.0, 2.0, -2.0, 0.0, 0.0, 0.0]), STR("floor")],
         "torch.div(T([-3.,3.,-0.,-0.5,0.5,5.,-5.,0.]), T([2.,-2.,5.,2.,-2.,0.,0.,0.]), rounding_mode='floor')")
    case("aten::div.Tensor_mode", [T("float64", [-0.5, 0.5, 7.5, -7.5]), T("float64", [2.0, -2.0, 2.0, 2.0]), STR("trunc")],
         "torch.div(T([-0.5,0.5,7.5,-7.5],dtype='float64'), T([2.,-2.,2.,2.],dtype='float64'), rounding_mode='trunc')")
    case("aten::div.Tensor_mode", [T("int64", [5, -5]), T("int64", [0, 0]), STR("trunc")],
         "torch.div(T([5,-5]), T([0,0]), rounding_mode='trunc')", err=(INV, "ZeroDivisionError"))
    case("aten::div.Tensor_mode", [T("int32", [5, -5]), T("int32", [1, 0]), STR("floor")],
         "torch.div(T([5,-5],dtype='int32'), T([1,0],dtype='int32'), rounding_mode='floor')", err=(INV, "ZeroDivisionError"))
    case("aten::div.Scalar_mode", [T("int64", [5, -5]), I(0), STR("floor")],
         "torch.div(T([5,-5]), 0, rounding_mode='floor')", err=(INV, "ZeroDivisionError"))
    case("aten::div.Tensor_mode", [T("int8", [-128, 100]), T("int8", [-1, -1]), STR("trunc")],
         "torch.div(T([-128,100],dtype='int8'), T([-1,-1],dtype='int8'), rounding_mode='trunc')")
    case("aten::div.Tensor_mode", [T("float32", [1.0]), T("float32", [1.0]), STR("round")],
         "torch.div(T([1.]), T([1.]), rounding_mode='round')", err=(INV, "rounding_mode"))
    case("aten::div.Scalar", [T("int64", [5, 6]), I(2)], "torch.div(T([5,6]), 2)")
    case("aten::div.Scalar_mode", [T("int64", [5, 6]), F(2.5), STR("floor")],
         "torch.div(T([5,6]), 2.5, rounding_mode='floor')")
    case("aten::div.Tensor", [T("bool", [True, False]), T("bool", [True, True])],
         "torch.div(T([True,False]), T([True,True]))")
    case("aten::div.Tensor", [T("complex64", [1 + 2j, -3j]), T("complex64", [1 - 1j, 2])],
         "torch.div(T([1+2j,-3j],dtype='complex64'), T([1-1j,2],dtype='complex64'))")

    # --- fmod / remainder signs ------------------------------------------------------
    case("aten::fmod.Tensor", [T("int64", [-3, 3, -3, 3]), T("int64", [2, 2, -2, -2])],
         "torch.fmod(T([-3,3,-3,3]), T([2,2,-2,-2]))")
    case("aten::remainder.Tensor", [T("int64", [-3, 3, -3, 3]), T("int64", [2, 2, -2, -2])],
         "torch.remainder(T([-3,3,-3,3]), T([2,2,-2,-2]))")
    case("aten::remainder.Tensor", [T("float32", [5.0, -5.0, -0.0, 0.0, -3.0, 3.0]), T("float32", [0.0, 3.0, 3.0, -3.0, inf, inf])],
         "torch.remainder(T([5.,-5.,-0.,0.,-3.,3.]), T([0.,3.,3.,-3.,inf,inf]))")
    case("aten::fmod.Tensor", [T("float32", [-3.0, 3.0, 5.0, -5.5]), T("float32", [inf, inf, 0.0, 2.0])],
         "torch.fmod(T([-3.,3.,5.,-5.5]), T([inf,inf,0.,2.]))")
    case("aten::remainder.Tensor", [T("int64", [5]), T("int64", [0])],
         "torch.remainder(T([5]), T([0]))", err=(INV, "ZeroDivisionError"))
    case("aten::fmod.Tensor", [T("uint8", [5]), T("uint8", [0])],
         "torch.fmod(T([5],dtype='uint8'), T([0],dtype='uint8'))", err=(INV, "ZeroDivisionError"))
    case("aten::remainder.Scalar", [T("int64", [5, 6]), F(2.5)], "torch.remainder(T([5,6]), 2.5)")
    case("aten::remainder.Scalar", [T("int64", [5, 6, -7]), I(-2)], "torch.remainder(T([5,6,-7]), -2)")
    case("aten::fmod.Scalar", [T("int64", [5, -6]), F(2.5)], "torch.fmod(T([5,-6]), 2.5)")
    case("aten::fmod.Tensor", [T("bool", [True]), T("bool", [True])],
         "torch.fmod(T([True]), T([True]))", err=(TYPE, "bool"))

    # --- add / sub / mul: alpha, bool, wrapping, promotion ------------------------------
    case("aten::add.Tensor", [T("int64", [1, 2]), T("int64", [1, 2]), I(3)], "torch.add(T([1,2]), T([1,2]), alpha=3)")
    case("aten::add.Tensor", [T("int64", [1, 2]), T("int64", [1, 2]), F(2.5)],
         "torch.add(T([1,2]), T([1,2]), alpha=2.5)", err=(INV, "alpha"))
    case("aten::add.Tensor", [T("int64", [1, 2]), T("int64", [1, 2]), B(True)],
         "torch.add(T([1,2]), T([1,2]), alpha=True)", err=(INV, "alpha"))
    case("aten::add.Tensor", [T("bool", [True, False, False]), T("bool", [True, True, False]), I(2)],
         "torch.add(T([True,False,False]), T([True,True,False]), alpha=2)")
    case("aten::add.Tensor", [T("float32", [1.0]), T("float32", [1.0]), CX(0, 1)],
         "torch.ops.aten.add.Tensor(T([1.]), T([1.]), alpha=1j)", err=(INV, "alpha"))
    case("aten::add.Tensor", [T("complex64", [1 + 2j]), T("float32", [1.0]), CX(0, 1)],
         "torch.add(T([1+2j]), T([1.]), alpha=1j)")
    case("aten::add.Scalar", [T("int64", [1, 2]), F(2.5), I(2)], "torch.ops.aten.add.Scalar(T([1,2]), 2.5, 2)")
    case("aten::add.Scalar", [T("int64", [1, 2]), I(2), F(2.5)],
         "torch.ops.aten.add.Scalar(T([1,2]), 2, 2.5)", err=(INV, "alpha"))
    case("aten::add.Tensor", [T("uint8", [200, 3]), T("int8", [100, -5]), I(1)],
         "torch.add(T([200,3],dtype='uint8'), T([100,-5],dtype='int8'))")
    case("aten::add.Tensor", [T("int32", [1, 2, 3]), T("float64", [0.5], shape=[]), I(1)],
         "torch.add(T([1,2,3],dtype='int32'), T(0.5,dtype='float64'))")
    case("aten::add.Tensor", [T("float16", [1.0, 2.0]), T("int64", [3], shape=[]), I(1)],
         "torch.add(T([1.,2.],dtype='float16'), T(3))")
    case("aten::add.Tensor", [T("int8", [1, 2]), T("int64", [1000], shape=[]), I(1)],
         "torch.add(T([1,2],dtype='int8'), T(1000))")
    case("aten::add.Tensor", [T("int64", [9223372036854775807]), T("int64", [1]), I(1)],
         "torch.add(T([9223372036854775807]), T([1]))")
    case("aten::add.Tensor", [T("float32", [1, 2, 3, 4, 5, 6], shape=[2, 3], layout="T"), T("float32", [10, 20, 30]), I(1)],
         "torch.add(T([[1.,2.,3.],[4.,5.,6.]]), T([10.,20.,30.]))")
    case("aten::add.Tensor", [T("float32", [1, 2, 3], shape=[3, 1], layout="step"), T("float32", [10, 20], shape=[1, 2]), I(1)],
         "torch.add(T([[1.],[2.],[3.]]), T([[10.,20.]]))")
    case("aten::add.Tensor", [T("float32", [], shape=[0, 3]), T("float32", [1, 2, 3]), I(1)],
         "torch.add(torch.zeros(0,3), T([1.,2.,3.]))")
    case("aten::add.Tensor", [T("float32", [1, 2, 3]), T("float32", [1, 2])], "torch.add(T([1.,2.,3.]), T([1.,2.]))",
         err=(SHAPE, "broadcast"))
    case("aten::sub.Tensor", [T("bool", [True]), T("bool", [True]), I(1)],
         "torch.sub(T([True]), T([True]))", err=(TYPE, "two bool tensors"))
    case("aten::sub.Tensor", [T("bool", [True]), T("int64", [1]), I(1)],
         "torch.sub(T([True]), T([1]))", err=(TYPE, "with a bool tensor"))
    case("aten::sub.Scalar", [T("int64", [1]), B(True), I(1)],
         "torch.sub(T([1]), True)", err=(TYPE, "with a bool tensor"))
    case("aten::sub.Tensor", [T("int64", [5, 1]), T("int64", [1, 2]), I(2)], "torch.sub(T([5,1]), T([1,2]), alpha=2)")
    case("aten::sub.Scalar", [T("uint8", [1, 0]), I(2), I(1)], "torch.sub(T([1,0],dtype='uint8'), 2)")
    case("aten::mul.Scalar", [T("bool", [True, False]), F(2.5)], "torch.mul(T([True,False]), 2.5)")
    case("aten::mul.Tensor", [T("bool", [True, False, True]), T("bool", [True, True, False])],
         "torch.mul(T([True,False,True]), T([True,True,False]))")
    case("aten::mul.Tensor", [T("int8", [1, 2]), T("int64", [1000], shape=[])],
         "torch.mul(T([1,2],dtype='int8'), T(1000))")
    case("aten::mul.Scalar", [T("int64", [3]), CX(0, 1)], "torch.mul(T([3]), 1j)")
    case("aten::mul.Tensor", [T("float16", [2.0]), T("bfloat16", [3.0])],
         "torch.mul(T([2.],dtype='float16'), T([3.],dtype='bfloat16'))")
    case("aten::mul.Tensor", [T("complex64", [1 + 1j]), T("float64", [2.0])],
         "torch.mul(T([1+1j],dtype='complex64'), T([2.],dtype='float64'))")

    # --- pow ------------------------------------------------------------------------
    case("aten::pow.Tensor_Tensor", [T("int64", [2, 3, 1, -1, -1, 0]), T("int64", [-1, 2, -5, -3, -2, 0])],
         "torch.pow(T([2,3,1,-1,-1,0]), T([-1,2,-5,-3,-2,0]))")
    case("aten::pow.Tensor_Scalar", [T("int64", [2, 3]), I(-1)],
         "torch.pow(T([2,3]), -1)", err=(INV, "negative integer powers"))
    case("aten::pow.Tensor_Scalar", [T("bool", [True, False]), I(2)], "torch.pow(T([True,False]), 2)")
    case("aten::pow.Tensor_Scalar", [T("int64", [2, 3]), F(0.5)], "torch.pow(T([2,3]), 0.5)")
    case("aten::pow.Tensor_Scalar", [T("float32", [-0.0, -inf, 4.0, nan]), F(0.5)], "torch.pow(T([-0.,-inf,4.,nan]), 0.5)")
    case("aten::pow.Tensor_Scalar", [T("float32", [-0.0, -inf, 4.0]), I(-1)], "torch.pow(T([-0.,-inf,4.]), -1)")
    case("aten::pow.Tensor_Scalar", [T("float32", [nan, -2.0, 3.0]), I(0)], "torch.pow(T([nan,-2.,3.]), 0)")
    case("aten::pow.Tensor_Scalar", [T("float64", [-2.0, 1.5]), I(3)], "torch.pow(T([-2.,1.5],dtype='float64'), 3)")
    case("aten::pow.Tensor_Tensor", [T("float32", [-0.0, -inf, 4.0, nan, 1.0, -1.0]), T("float32", [0.5, 0.5, 0.5, 0.0, nan, inf])],
         "torch.pow(T([-0.,-inf,4.,nan,1.,-1.]), T([0.5,0.5,0.5,0.,nan,inf]))")
    case("aten::pow.Scalar", [I(2), T("int64", [-1, 2, 10])], "torch.pow(2, T([-1,2,10]))")
    case("aten::pow.Scalar", [F(2.5), T("int64", [1, 2])], "torch.pow(2.5, T([1,2]))")
    case("aten::pow.Scalar", [B(True), T("int64", [1, 2])], "torch.pow(True, T([1,2]))")
    case("aten::pow.Tensor_Tensor", [T("bool", [True]), T("bool", [True])],
         "torch.pow(T([True]), T([True]))", err=(TYPE, "bool"))
    case("aten::pow.Tensor_Tensor", [T("int8", [3, -3]), T("int8", [5, 5])], "torch.pow(T([3,-3],dtype='int8'), T([5,5],dtype='int8'))")
    case("aten::pow.Tensor_Scalar", [T("complex128", [1 + 1j, -4]), F(0.5)], "torch.pow(T([1+1j,-4],dtype='complex128'), 0.5)")
    # ATen takes a float32 tensor's exponent as a double (no range check); a
    # half's and an integer's must fit their dtype
    case("aten::pow.Tensor_Scalar", [T("float32", [2.0, 0.5]), F(1e308)], "torch.pow(T([2.,0.5]), 1e308)")
    case("aten::pow.Tensor_Scalar", [T("float32", [2.0, 0.5]), F(-1e308)], "torch.pow(T([2.,0.5]), -1e308)")
    case("aten::pow.Tensor_Scalar", [T("float16", [2.0, 0.5]), F(1e10)],
         "torch.pow(T([2.,0.5],dtype='float16'), 1e10)", err=(INV, "overflow"))
    case("aten::pow.Tensor_Scalar", [T("int32", [2, 1]), I(1 << 40)],
         "torch.pow(T([2,1],dtype='int32'), 1 << 40)", err=(INV, "overflow"))
    case("aten::pow.Tensor_Tensor", [T("complex128", [1 + 1j, 2 - 1j]), T("complex128", [2 + 0.5j, -1])],
         "torch.pow(T([1+1j,2-1j],dtype='complex128'), T([2+0.5j,-1],dtype='complex128'))")

    # --- maximum / minimum / atan2 ------------------------------------------------------
    case("aten::maximum", [T("float32", [nan, 1.0, 2.0]), T("float32", [1.0, nan, 3.0])],
         "torch.maximum(T([nan,1.,2.]), T([1.,nan,3.]))")
    case("aten::minimum", [T("float32", [nan, 1.0, 2.0]), T("float32", [1.0, nan, 3.0])],
         "torch.minimum(T([nan,1.,2.]), T([1.,nan,3.]))")
    case("aten::maximum", [T("int64", [1, 2]), T("float32", [1.5])], "torch.maximum(T([1,2]), T([1.5]))")
    case("aten::maximum", [T("bool", [True, False]), T("bool", [False, False])], "torch.maximum(T([True,False]), T([False,False]))")
    case("aten::maximum", [T("complex64", [1j]), T("complex64", [1j])],
         "torch.maximum(T([1j]), T([1j]))", err=(TYPE, "complex64"))
    case("aten::atan2", [T("int64", [1, 2, 0]), T("int64", [1, 2, -1])], "torch.atan2(T([1,2,0]), T([1,2,-1]))")
    case("aten::atan2", [T("float64", [0.0, -0.0, 1.0]), T("float64", [-0.0, -1.0, 0.0])],
         "torch.atan2(T([0.,-0.,1.],dtype='float64'), T([-0.,-1.,0.],dtype='float64'))")

    # --- bitwise / logical / comparisons ----------------------------------------------
    case("aten::bitwise_and.Scalar", [T("int64", [3, 5]), B(True)], "torch.bitwise_and(T([3,5]), True)")
    case("aten::bitwise_and.Scalar", [T("bool", [True, False]), I(3)], "torch.bitwise_and(T([True,False]), 3)")
    case("aten::bitwise_and.Scalar", [T("int8", [3, 5]), I(300)], "torch.bitwise_and(T([3,5],dtype='int8'), 300)")
    case("aten::bitwise_or.Tensor", [T("uint8", [240, 1]), T("int8", [-1, 2])],
         "torch.bitwise_or(T([240,1],dtype='uint8'), T([-1,2],dtype='int8'))")
    case("aten::bitwise_xor.Tensor", [T("bool", [True, True, False]), T("bool", [True, False, False])],
         "torch.bitwise_xor(T([True,True,False]), T([True,False,False]))")
    case("aten::bitwise_and.Scalar", [T("int64", [3]), F(1.5)], "torch.bitwise_and(T([3]), 1.5)", err=(TYPE, "float32"))
    case("aten::logical_and", [T("complex64", [1, 0, nan]), T("int64", [1, 1, 1])],
         "torch.logical_and(T([1+0j,0j,complex(nan,0)]), T([1,1,1]))")
    case("aten::logical_or", [T("float32", [0.0, -0.0, nan]), T("float32", [0.0, 0.0, 0.0])],
         "torch.logical_or(T([0.,-0.,nan]), T([0.,0.,0.]))")
    case("aten::logical_xor", [T("int64", [0, 2, 3]), T("bool", [True, True, False])],
         "torch.logical_xor(T([0,2,3]), T([True,True,False]))")
    case("aten::eq.Scalar", [T("int64", [1, 2]), F(1.5)], "torch.eq(T([1,2]), 1.5)")
    case("aten::eq.Scalar", [T("int64", [16777217, 3]), F(16777216.0)], "torch.eq(T([16777217,3]), 16777216.0)")
    case("aten::eq.Tensor", [T("int64", [16777217]), T("float64", [16777216.0], shape=[])],
         "torch.eq(T([16777217]), T(16777216.0, dtype='float64'))")
    case("aten::eq.Tensor", [T("complex64", [1 + 1j, 1 + 2j]), T("complex64", [1 + 1j, 1 + 1j])],
         "torch.eq(T([1+1j,1+2j]), T([1+1j,1+1j]))")
    case("aten::ne.Tensor", [T("float32", [nan, 1.0]), T("float32", [nan, 1.0])], "torch.ne(T([nan,1.]), T([nan,1.]))")
    case("aten::lt.Tensor", [T("complex64", [1j]), T("complex64", [1j])], "torch.lt(T([1j]), T([1j]))", err=(TYPE, "complex"))
    case("aten::lt.Scalar", [T("uint8", [0, 200]), I(-1)], "torch.lt(T([0,200],dtype='uint8'), -1)")
    case("aten::ge.Tensor", [T("int8", [-1, 5]), T("uint8", [255, 5])], "torch.ge(T([-1,5],dtype='int8'), T([255,5],dtype='uint8'))")
    case("aten::gt.Scalar", [T("float32", [nan, 2.0, inf]), F(1.0)], "torch.gt(T([nan,2.,inf]), 1.0)")
    case("aten::le.Tensor", [T("bool", [True, False]), T("bool", [False, False])], "torch.le(T([True,False]), T([False,False]))")

    # --- prims: no promotion, no broadcasting, their own integer rules --------------------
    P = "torch.ops.prims."
    case("prims::add", [T("int64", [1]), T("int32", [1])], P + "add(T([1]), T([1],dtype='int32'))", err=(TYPE, "do not promote"))
    case("prims::add", [T("int64", [1, 2]), T("int64", [1])], P + "add(T([1,2]), T([1]))", err=(SHAPE, "do not broadcast"))
    case("prims::add", [T("bool", [True, False]), T("bool", [True, False])], P + "add(T([True,False]), T([True,False]))")
    case("prims::div", [T("int64", [-7, 7, 7]), T("int64", [2, 2, -2])], P + "div(T([-7,7,7]), T([2,2,-2]))")
    case("prims::div", [T("float32", [-7.0, 1.0]), T("float32", [2.0, 0.0])], P + "div(T([-7.,1.]), T([2.,0.]))")
    case("prims::div", [T("int64", [1]), T("int64", [0])], P + "div(T([1]), T([0]))", err=(INV, "ZeroDivisionError"))
    case("prims::remainder", [T("int64", [-3, 3]), T("int64", [2, -2])], P + "remainder(T([-3,3]), T([2,-2]))")
    case("prims::fmod", [T("float64", [-3.5, 3.5]), T("float64", [2.0, -2.0])], P + "fmod(T([-3.5,3.5],dtype='float64'), T([2.,-2.],dtype='float64'))")
    case("prims::pow", [T("int64", [2, -1]), T("int64", [-1, -3])], P + "pow(T([2,-1]), T([-1,-3]))")
    case("prims::fmax", [T("float32", [nan, 1.0, nan]), T("float32", [1.0, nan, nan])], P + "fmax(T([nan,1.,nan]), T([1.,nan,nan]))")
    case("prims::fmin", [T("float32", [nan, 1.0, -2.0]), T("float32", [1.0, nan, 3.0])], P + "fmin(T([nan,1.,-2.]), T([1.,nan,3.]))")
    case("prims::maximum", [T("float64", [nan, 1.0]), T("float64", [1.0, 2.0])], P + "maximum(T([nan,1.],dtype='float64'), T([1.,2.],dtype='float64'))")
    case("prims::gcd", [T("int64", [12, i64min, 0, -4]), T("int64", [18, 0, 0, 6])], P + "gcd(T([12,-9223372036854775808,0,-4]), T([18,0,0,6]))")
    case("prims::gcd", [T("int8", [-128, 12]), T("int8", [0, -8])], P + "gcd(T([-128,12],dtype='int8'), T([0,-8],dtype='int8'))")
    case("prims::hypot", [T("float32", [3.0, inf]), T("float32", [4.0, nan])], P + "hypot(T([3.,inf]), T([4.,nan]))")
    case("prims::nextafter", [T("float32", [1.0, 0.0, 1.0]), T("float32", [2.0, -1.0, 1.0])], P + "nextafter(T([1.,0.,1.]), T([2.,-1.,1.]))")
    case("prims::nextafter", [T("float64", [1.0, -0.0]), T("float64", [0.0, 1.0])], P + "nextafter(T([1.,-0.],dtype='float64'), T([0.,1.],dtype='float64'))")
    case("prims::nextafter", [T("bfloat16", [1.0, 0.0, -1.0]), T("bfloat16", [2.0, -1.0, 0.0])], P + "nextafter(T([1.,0.,-1.],dtype='bfloat16'), T([2.,-1.,0.],dtype='bfloat16'))")
    case("prims::shift_left", [T("int64", [1, 1, 1, -1]), T("int64", [3, 64, -1, 63])], P + "shift_left(T([1,1,1,-1]), T([3,64,-1,63]))",
         newer=("int64", [4], [8, 0, 0, i64min], "shifts by >= 64 or < 0 give 0 (1.13 is undefined behaviour there)"))
    case("prims::shift_left", [T("int8", [1, 3]), T("int8", [7, 8])], P + "shift_left(T([1,3],dtype='int8'), T([7,8],dtype='int8'))",
         newer=("int8", [2], [-128, 0], "a shift by the width or more gives 0"))
    case("prims::shift_right_arithmetic", [T("int64", [-8, -8, 8, 8]), T("int64", [1, 70, -1, 2])],
         P + "shift_right_arithmetic(T([-8,-8,8,8]), T([1,70,-1,2]))")
    case("prims::shift_right_arithmetic", [T("uint8", [200, 200]), T("uint8", [3, 9])],
         P + "shift_right_arithmetic(T([200,200],dtype='uint8'), T([3,9],dtype='uint8'))",
         newer=("uint8", [2], [25, 0], "a shift by the width or more of an unsigned value gives 0"))
    case("prims::bitwise_and", [T("float32", [1.0]), T("float32", [1.0])], P + "bitwise_and(T([1.]), T([1.]))", err=(TYPE, "float32"))
    case("prims::eq", [T("complex128", [1j, 1]), T("complex128", [1j, 1j])], P + "eq(T([1j,1],dtype='complex128'), T([1j,1j],dtype='complex128'))")
    case("prims::lt", [T("int16", [-1, 2]), T("int16", [0, 2])], P + "lt(T([-1,2],dtype='int16'), T([0,2],dtype='int16'))")
    case("prims::sub", [T("bool", [True]), T("bool", [True])], P + "sub(T([True]), T([True]))", err=(TYPE, "bool"))
    case("prims::atan2", [T("float64", [1.0, -1.0]), T("float64", [-1.0, -1.0])], P + "atan2(T([1.,-1.],dtype='float64'), T([-1.,-1.],dtype='float64'))")
    case("prims::zeta", [T("float64", [2.0, 3.0, 1.0, 0.5, 4.0]), T("float64", [1.0, 2.5, 1.0, 1.0, -2.0])],
         P + "zeta(T([2.,3.,1.,0.5,4.],dtype='float64'), T([1.,2.5,1.,1.,-2.],dtype='float64'))")
    # negative non-integer q: walked term by term up to |q| 65536 (bit for bit),
    # split into positive-argument sums past it (ATen walks |q| terms: hours near 2^52)
    case("prims::zeta", [T("float64", [3.0, 2.0, 4.0, 2.0, 4.0, 5.0]), T("float64", [-10.25, -1000.3, -65535.5, -1000000.5, -123456.7, -3000000.9])],
         P + "zeta(T([3.,2.,4.,2.,4.,5.],dtype='float64'), T([-10.25,-1000.3,-65535.5,-1000000.5,-123456.7,-3000000.9],dtype='float64'))")
    case("prims::igamma", [T("float64", [2.0, 0.5, 30.0, 250.0, 0.0, 3.0]), T("float64", [1.0, 3.0, 28.0, 260.0, 1.0, 0.0])],
         P + "igamma(T([2.,0.5,30.,250.,0.,3.],dtype='float64'), T([1.,3.,28.,260.,1.,0.],dtype='float64'))")
    case("prims::igammac", [T("float64", [2.0, 0.5, 30.0, 250.0, 5.0, 0.1]), T("float64", [1.0, 3.0, 28.0, 260.0, 0.3, 0.7])],
         P + "igammac(T([2.,0.5,30.,250.,5.,0.1],dtype='float64'), T([1.,3.,28.,260.,0.3,0.7],dtype='float64'))")
