"""Unary elementwise cases, clamp/where/activations, and the special-function
prims (see gen_cases.py)."""

import cmath

INV = "TABI_ERR_INVALID_ARGUMENT"


def clog1p(z):
    if abs(z) < 1e-3:
        return sum((-1) ** (n + 1) * z ** n / n for n in range(1, 12))
    return cmath.log(1 + z)


def cexpm1(z):
    if abs(z) < 1e-3:
        f, acc = 1, 0
        for n in range(1, 12):
            f *= n
            acc += z ** n / f
        return acc
    return cmath.exp(z) - 1
TYPE = "TABI_ERR_TYPE"
SHAPE = "TABI_ERR_SHAPE"


def define(case, T, I, F, B, CX, STR, NONE, DTYPE):
    nan, inf = float("nan"), float("inf")
    P = "torch.ops.prims."
    sv = [-2.5, -1.0, -0.0, 0.0, 0.3, 1.0, 2.5, inf, -inf, nan]
    svs = "[-2.5,-1.,-0.,0.,0.3,1.,2.5,inf,-inf,nan]"
    dom = [-0.9, -0.5, -0.0, 0.0, 0.25, 0.5, 0.99]   # inside (-1, 1)
    doms = "[-0.9,-0.5,-0.,0.,0.25,0.5,0.99]"

    # --- int to float math, special values, all floating dtypes -------------------------
    for op in ["sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "asinh", "exp", "expm1",
               "sigmoid", "erf", "reciprocal"]:
        case("aten::" + op, [T("float64", sv)], "torch.%s(T(%s,dtype='float64'))" % (op, svs))
    for op in ["asin", "acos", "atanh"]:
        case("aten::" + op, [T("float64", dom + [1.5, nan])], "torch.%s(T(%s+[1.5,nan],dtype='float64'))" % (op, doms))
    for op in ["log", "log10", "log2", "log1p", "sqrt", "rsqrt", "acosh"]:
        case("aten::" + op, [T("float64", [-1.0, -0.0, 0.0, 0.5, 1.0, 2.0, 1e10, inf, nan])],
             "torch.%s(T([-1.,-0.,0.,0.5,1.,2.,1e10,inf,nan],dtype='float64'))" % op)
    case("aten::log1p", [T("float64", [-1.0, -1e-18, 1e-300])], "torch.log1p(T([-1.,-1e-18,1e-300],dtype='float64'))")
    case("aten::expm1", [T("float64", [1e-18, -1e-10])], "torch.expm1(T([1e-18,-1e-10],dtype='float64'))")
    case("aten::sin", [T("int64", [0, 1, 2, -3])], "torch.sin(T([0,1,2,-3]))")
    case("aten::exp", [T("bool", [True, False])], "torch.exp(T([True,False]))")
    case("aten::sqrt", [T("uint8", [4, 255])], "torch.sqrt(T([4,255],dtype='uint8'))")
    case("aten::reciprocal", [T("int32", [0, 2, -4])], "torch.reciprocal(T([0,2,-4],dtype='int32'))")
    case("aten::sigmoid", [T("bfloat16", [-1.0, 0.0, 3.0])], "torch.sigmoid(T([-1.,0.,3.],dtype='bfloat16'))")
    case("aten::erf", [T("float32", [0.5, -2.0], layout="step")], "torch.erf(T([0.5,-2.]))")
    case("aten::erf", [T("complex64", [1j])], "torch.erf(T([1j]))", err=(TYPE, "complex64"))
    case("aten::sin", [T("float16", [0.5, 1.0, 100.0])], "torch.sin(T([0.5,1.,100.],dtype='float32')).half()")
    case("aten::log", [T("float16", [0.5, 0.0, -1.0])], "torch.log(T([0.5,0.,-1.],dtype='float32')).half()")
    for op in ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
               "atanh", "exp", "log", "log10", "log2", "sqrt", "rsqrt", "sigmoid", "reciprocal"]:
        case("aten::" + op, [T("complex128", [0.5 + 0.25j, -1.5 + 2j, -2 - 0.5j])],
             "torch.%s(T([0.5+0.25j,-1.5+2j,-2-0.5j],dtype='complex128'))" % op)
    case("aten::sigmoid", [T("complex64", [1 + 1j, -2 + 0.5j])], "torch.sigmoid(T([1+1j,-2+0.5j]))")
    zs = [1e-10 + 1e-10j, 0.5 - 0.25j, -2 + 1j]
    case("aten::log1p", [T("complex128", zs)],
         "torch.log1p(T([1e-10+1e-10j,0.5-0.25j,-2+1j],dtype='complex128'))",
         newer=("complex128", [3], [clog1p(z) for z in zs],
                "log1p of complex tensors (torch 1.13 lacks it); expected from Python cmath (series for small |z|)"))
    zs = [1e-10 + 1e-10j, 0.5 - 0.25j, -2 + 1j]
    case("aten::expm1", [T("complex128", zs)],
         "torch.expm1(T([1e-10+1e-10j,0.5-0.25j,-2+1j],dtype='complex128'))",
         newer=("complex128", [3], [cexpm1(z) for z in zs],
                "expm1 of complex tensors (torch 1.13 lacks it); expected from Python cmath (series for small |z|)"))
    case("aten::exp", [T("float16", [1.0, -1.0])], "torch.exp(T([1.,-1.],dtype='float16'))",
         newer=("float16", [2], [2.71875, 0.367919921875], "float16 exp on CPU (torch 1.13 lacks it); exp(x) rounded to float16"))

    # --- same-dtype unary ops ------------------------------------------------------------
    case("aten::abs", [T("int64", [-2**63, -5, 7])], "torch.abs(T([-9223372036854775808,-5,7]))")
    case("aten::abs", [T("int8", [-128, -5])], "torch.abs(T([-128,-5],dtype='int8'))")
    case("aten::abs", [T("float32", [-0.0, -inf, nan, -2.5])], "torch.abs(T([-0.,-inf,nan,-2.5]))")
    case("aten::abs", [T("complex64", [3 + 4j, -1j])], "torch.abs(T([3+4j,-1j]))")
    case("aten::abs", [T("bool", [True])], "torch.abs(T([True]))", err=(TYPE, "bool"))
    case("aten::neg", [T("int8", [-128, 5, 0])], "torch.neg(T([-128,5,0],dtype='int8'))")
    case("aten::neg", [T("float64", [0.0, -0.0, inf])], "torch.neg(T([0.,-0.,inf],dtype='float64'))")
    case("aten::neg", [T("bool", [True])], "torch.neg(T([True]))", err=(TYPE, "bool"))
    case("aten::neg", [T("complex64", [1 - 2j])], "torch.neg(T([1-2j]))")
    case("aten::sign", [T("float32", [nan, -0.0, 0.0, -3.0, inf])], "torch.sign(T([nan,-0.,0.,-3.,inf]))")
    case("aten::sign", [T("int64", [-5, 0, 7])], "torch.sign(T([-5,0,7]))")
    case("aten::sign", [T("bool", [True, False])], "torch.sign(T([True,False]))")
    case("aten::sign", [T("complex64", [1j])], "torch.sign(T([1j]))", err=(TYPE, "complex64"))
    case("aten::round", [T("float32", [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -0.0, inf, nan])],
         "torch.round(T([0.5,1.5,2.5,-0.5,-2.5,0.49999997,-0.,inf,nan]))")
    case("aten::round", [T("float64", [2.5, 3.5, -1.5, 1e300])], "torch.round(T([2.5,3.5,-1.5,1e300],dtype='float64'))")
    case("aten::round", [T("int32", [7, -7])], "torch.round(T([7,-7],dtype='int32'))")
    case("aten::floor", [T("float32", [-0.5, 0.5, -0.0, -1.0])], "torch.floor(T([-0.5,0.5,-0.,-1.]))")
    case("aten::ceil", [T("float32", [-0.5, 0.5, -0.0, 1.2])], "torch.ceil(T([-0.5,0.5,-0.,1.2]))")
    case("aten::trunc", [T("float64", [-2.7, 2.7, -0.2])], "torch.trunc(T([-2.7,2.7,-0.2],dtype='float64'))")
    case("aten::ceil", [T("int64", [3, -3])], "torch.ceil(T([3,-3]))")
    case("aten::ceil", [T("bool", [True])], "torch.ceil(T([True]))", err=(TYPE, "bool"))
    case("aten::relu", [T("float32", [nan, -0.0, -1.0, 2.0])], "torch.relu(T([nan,-0.,-1.,2.]))")
    case("aten::relu", [T("int8", [-128, 3])], "torch.relu(T([-128,3],dtype='int8'))")
    case("aten::bitwise_not", [T("bool", [True, False])], "torch.bitwise_not(T([True,False]))")
    case("aten::bitwise_not", [T("uint8", [0, 255, 15])], "torch.bitwise_not(T([0,255,15],dtype='uint8'))")
    case("aten::bitwise_not", [T("int64", [0, -1, 5])], "torch.bitwise_not(T([0,-1,5]))")
    case("aten::bitwise_not", [T("float32", [1.0])], "torch.bitwise_not(T([1.]))", err=(TYPE, "float32"))
    case("aten::logical_not", [T("float32", [0.0, -0.0, nan, 2.0])], "torch.logical_not(T([0.,-0.,nan,2.]))")
    case("aten::logical_not", [T("complex64", [0, 1j])], "torch.logical_not(T([0j,1j]))")
    case("aten::isnan", [T("int64", [1, 2])], "torch.isnan(T([1,2]))")
    case("aten::isinf", [T("int64", [1, 2])], "torch.isinf(T([1,2]))")
    case("aten::isinf", [T("float16", [inf, -inf, nan, 65504.0])], "torch.isinf(T([inf,-inf,nan,65504.],dtype='float16'))")
    case("aten::isnan", [T("complex64", [complex(nan, 0), complex(0, nan), 1])], "torch.isnan(T([complex(nan,0),complex(0,nan),1+0j]))")
    case("aten::isinf", [T("complex128", [complex(0, inf), 1])], "torch.isinf(T([complex(0,inf),1+0j],dtype='complex128'))")
    case("aten::sin", [T("float32", [], shape=[0])], "torch.sin(torch.zeros(0))")
    case("aten::neg", [T("int64", [5], shape=[])], "torch.neg(T(5))")
    case("aten::exp", [T("float32", [0, 1, 2, 3, 4, 5], shape=[2, 3], layout="T")], "torch.exp(T([[0.,1.,2.],[3.,4.,5.]]))")
    case("aten::sqrt", [T("float32", [1, 4, 9], layout="off")], "torch.sqrt(T([1.,4.,9.]))")

    # --- activations ------------------------------------------------------------------
    case("aten::gelu", [T("float64", [-3.0, -1.0, -0.0, 0.5, 3.0, nan]), STR("none")],
         "torch.ops.aten.gelu(T([-3.,-1.,-0.,0.5,3.,nan],dtype='float64'), approximate='none')")
    case("aten::gelu", [T("float64", [-3.0, -1.0, 0.5, 3.0]), STR("tanh")],
         "torch.ops.aten.gelu(T([-3.,-1.,0.5,3.],dtype='float64'), approximate='tanh')")
    case("aten::gelu", [T("float32", [1.0]), STR("bad")], "torch.ops.aten.gelu(T([1.]), approximate='bad')",
         err=(INV, "approximate"))
    case("aten::gelu", [T("int64", [1]), STR("none")], "torch.ops.aten.gelu(T([1]))", err=(TYPE, "int64"))
    case("aten::elu", [T("float64", [-1.0, -0.0, 0.5, nan]), F(2.0), F(3.0), F(4.0)],
         "torch.ops.aten.elu(T([-1.,-0.,0.5,nan],dtype='float64'), 2., 3., 4.)")
    case("aten::elu", [T("float32", [-1.0, 2.0]), I(1), I(1), I(1)], "torch.ops.aten.elu(T([-1.,2.]))")
    case("aten::leaky_relu", [T("float64", [-1.0, -0.0, 0.5, nan]), F(0.2)],
         "torch.ops.aten.leaky_relu(T([-1.,-0.,0.5,nan],dtype='float64'), 0.2)")
    case("aten::hardtanh", [T("int64", [-5, 0, 5]), F(-2.5), F(2.5)], "torch.ops.aten.hardtanh(T([-5,0,5]), -2.5, 2.5)")
    case("aten::hardtanh", [T("uint8", [5, 0, 1]), I(0), I(2)], "torch.ops.aten.hardtanh(T([5,0,1],dtype='uint8'), 0, 2)")
    case("aten::hardtanh", [T("uint8", [5]), I(-1), I(1)], "torch.ops.aten.hardtanh(T([5],dtype='uint8'))",
         err=(INV, "negative limits"))
    case("aten::hardtanh", [T("float32", [-5.0, 0.0, 5.0, nan]), I(2), I(-2)],
         "torch.ops.aten.hardtanh(T([-5.,0.,5.,nan]), 2, -2)")
    case("aten::hardtanh", [T("bool", [True]), I(0), I(1)], "torch.ops.aten.hardtanh(T([True]), 0, 1)", err=(TYPE, "bool"))

    # --- clamp -------------------------------------------------------------------------
    case("aten::clamp", [T("float32", [1.0, nan, 3.0]), F(nan), NONE], "torch.clamp(T([1.,nan,3.]), min=nan)")
    case("aten::clamp", [T("float32", [1.0, 2.0, 3.0]), I(5), F(nan)], "torch.clamp(T([1.,2.,3.]), min=5, max=nan)")
    case("aten::clamp", [T("float32", [1.0, nan, 3.0]), F(2.5), F(1.5)], "torch.clamp(T([1.,nan,3.]), min=2.5, max=1.5)")
    case("aten::clamp", [T("int64", [1, 2, 3]), F(2.5), NONE], "torch.clamp(T([1,2,3]), min=2.5)")
    case("aten::clamp", [T("int64", [1, 2, 3]), I(2), I(1)], "torch.clamp(T([1,2,3]), min=2, max=1)")
    case("aten::clamp", [T("bool", [True, False]), I(1), I(2)], "torch.clamp(T([True,False]), 1, 2)")
    case("aten::clamp", [T("uint8", [1, 2, 3]), I(-1), NONE], "torch.clamp(T([1,2,3],dtype='uint8'), min=-1)")
    case("aten::clamp", [T("uint8", [1, 2, 3]), I(300), NONE], "torch.clamp(T([1,2,3],dtype='uint8'), min=300)",
         err=(INV, "without overflow"))
    case("aten::clamp", [T("float32", [1.0]), NONE, NONE], "torch.clamp(T([1.]))", err=(INV, "min"))
    case("aten::clamp", [T("complex64", [1j]), F(0.0), NONE], "torch.clamp(T([1j]), min=0.)", err=(TYPE, "complex"))
    case("aten::clamp.Tensor", [T("float32", [1.0, nan, 3.0]), T("float32", [nan, 0.0, 0.0]), NONE],
         "torch.clamp(T([1.,nan,3.]), min=T([nan,0.,0.]))")
    case("aten::clamp.Tensor", [T("float32", [1.0, nan, 3.0]), NONE, T("float32", [nan, 0.0, 0.0])],
         "torch.clamp(T([1.,nan,3.]), max=T([nan,0.,0.]))")
    case("aten::clamp.Tensor", [T("float32", [1.0, nan, 3.0, 7.0]), T("float32", [nan, 0.0, 0.0, 0.0]), T("float32", [5.0])],
         "torch.clamp(T([1.,nan,3.,7.]), min=T([nan,0.,0.,0.]), max=T([5.]))")
    case("aten::clamp.Tensor", [T("float32", [1.0, 2.0, 3.0]), T("float32", [2.0]), T("float32", [1.0])],
         "torch.clamp(T([1.,2.,3.]), min=T([2.]), max=T([1.]))")
    case("aten::clamp.Tensor", [T("int64", [1, 2, 3]), T("float32", [2.5]), NONE], "torch.clamp(T([1,2,3]), min=T([2.5]))")
    case("aten::clamp.Tensor", [T("int8", [1, 2, 3]), NONE, T("int64", [1000], shape=[])],
         "torch.clamp(T([1,2,3],dtype='int8'), max=T(1000))")
    case("aten::clamp.Tensor", [T("bool", [True, False]), T("bool", [True]), NONE], "torch.clamp(T([True,False]), min=T([True]))")
    case("aten::clamp.Tensor", [T("float32", [1.0, 2.0]), T("float32", [1.0, 2.0, 3.0]), NONE],
         "torch.clamp(T([1.,2.]), min=T([1.,2.,3.]))", err=(SHAPE, "broadcast"))

    # --- where -------------------------------------------------------------------------
    case("aten::where.self", [T("bool", [True, False]), T("int64", [1, 2]), T("float32", [1.5, 2.5])],
         "torch.where(T([True,False]), T([1,2]), T([1.5,2.5]))")
    case("aten::where.self", [T("bool", [True, False]), T("int32", [1, 2]), T("int64", [3], shape=[])],
         "torch.where(T([True,False]), T([1,2],dtype='int32'), T(3))")
    case("aten::where.self", [T("bool", [True, False]), T("uint8", [1, 2]), T("int8", [-1])],
         "torch.where(T([True,False]), T([1,2],dtype='uint8'), T([-1],dtype='int8'))")
    case("aten::where.self", [T("bool", [True, False], shape=[2, 1]), T("float32", [1, 2, 3]), T("float32", [0], shape=[])],
         "torch.where(T([[True],[False]]), T([1.,2.,3.]), T(0.))")
    case("aten::where.self", [T("int64", [1, 0]), T("int64", [1, 2]), T("int64", [3, 4])],
         "torch.where(T([1,0]), T([1,2]), T([3,4]))", err=(TYPE, "bool"))
    case("aten::where.self", [T("uint8", [1, 0]), T("int64", [1, 2]), T("float32", [1.5, 2.5])],
         "torch.where(T([1,0],dtype='uint8'), T([1,2]), T([1.5,2.5]))")
    case("prims::where", [T("bool", [True, False]), T("int64", [1, 2]), T("int64", [3, 4])],
         P + "where(T([True,False]), T([1,2]), T([3,4]))")

    # --- prims: unary --------------------------------------------------------------------
    case("prims::abs", [T("complex128", [3 + 4j])], P + "abs(T([3+4j],dtype='complex128'))")
    case("prims::signbit", [T("float32", [-0.0, 0.0, -nan, -1.0])], P + "signbit(T([-0.,0.,-nan,-1.]))")
    case("prims::signbit", [T("int8", [-1, 0])], P + "signbit(T([-1,0],dtype='int8'))")
    case("prims::isfinite", [T("float32", [inf, nan, 1.0])], P + "isfinite(T([inf,nan,1.]))")
    case("prims::isfinite", [T("int64", [1])], P + "isfinite(T([1]))")
    case("prims::conj_physical", [T("complex64", [1 + 2j])], P + "conj_physical(T([1+2j]))")
    case("prims::conj", [T("complex64", [1 + 2j, -3j])], P + "conj(T([1+2j,-3j]))")
    case("prims::conj", [T("float32", [1.0])], P + "conj(T([1.]))", err=(TYPE, "float32"))
    case("prims::real", [T("complex128", [1 + 2j])], P + "real(T([1+2j],dtype='complex128'))")
    case("prims::imag", [T("complex64", [1 + 2j])], P + "imag(T([1+2j]))")
    case("prims::real", [T("float32", [1.0])], P + "real(T([1.]))", err=(TYPE, "float32"))
    case("prims::cbrt", [T("float64", [-8.0, 27.0, -0.0, inf])], P + "cbrt(T([-8.,27.,-0.,inf],dtype='float64'))")
    case("prims::exp2", [T("float64", [3.0, -1.0, 0.5])], P + "exp2(T([3.,-1.,0.5],dtype='float64'))")
    case("prims::erfc", [T("float64", [-1.0, 0.0, 3.0, 10.0])], P + "erfc(T([-1.,0.,3.,10.],dtype='float64'))")
    case("prims::round", [T("float16", [0.5, 1.5, 2.5])], P + "round(T([0.5,1.5,2.5],dtype='float16'))",
         newer=("float16", [3], [0.0, 2.0, 2.0], "float16 round on CPU (torch 1.13 lacks it); half to even"))
    case("prims::convert_element_type", [T("float32", [1.7, -1.7, nan, 3e9]), DTYPE("int32")],
         P + "convert_element_type(T([1.7,-1.7,nan,3e9]), torch.int32)")
    case("prims::convert_element_type", [T("float32", [0.0, -0.0, nan, 0.5]), DTYPE("bool")],
         P + "convert_element_type(T([0.,-0.,nan,0.5]), torch.bool)")
    case("prims::convert_element_type", [T("complex64", [1.5 + 2j]), DTYPE("float64")],
         P + "convert_element_type(T([1.5+2j]), torch.float64)")
    case("prims::convert_element_type", [T("int64", [16777217, -1]), DTYPE("float32")],
         P + "convert_element_type(T([16777217,-1]), torch.float32)")
    case("prims::convert_element_type", [T("int64", [300, -1]), DTYPE("uint8")],
         P + "convert_element_type(T([300,-1]), torch.uint8)")
    case("prims::convert_element_type", [T("float64", [70000.0, 1.0 / 3]), DTYPE("float16")],
         P + "convert_element_type(T([70000.,1./3],dtype='float64'), torch.float16)")

    # --- special functions: many points, float64 (rtol 1e-7) --------------------------
    xs = [-20.5, -7.3, -3.0, -2.5, -1.0, -0.5, -1e-8, 0.0, 1e-8, 0.1, 0.5, 1.0, 1.4616321449683622,
          2.0, 3.7, 5.0, 7.9, 8.0, 8.1, 12.5, 30.0, 100.0, 700.0, inf, -inf, nan]
    xss = repr(xs).replace("inf", "inf").replace("nan", "nan")
    for prim, tf in [("bessel_i0", "torch.i0"), ("bessel_i0e", "torch.special.i0e"),
                     ("bessel_i1", "torch.special.i1"), ("bessel_i1e", "torch.special.i1e"),
                     ("bessel_j0", "torch.special.bessel_j0"), ("bessel_j1", "torch.special.bessel_j1"),
                     ("spherical_bessel_j0", "torch.special.spherical_bessel_j0"),
                     ("digamma", "torch.digamma"), ("lgamma", "torch.lgamma")]:
        vals = [v for v in xs if not (prim == "bessel_i0" or prim == "bessel_i1") or abs(v) < 700]
        case("prims::" + prim, [T("float64", vals)],
             "%s(T(%s,dtype='float64'))" % (tf, repr(vals)))
    case("prims::bessel_i0", [T("float32", [0.5, -9.0, 20.0])], "torch.i0(T([0.5,-9.,20.]))")
    case("prims::bessel_j0", [T("float16", [0.5])], "torch.special.bessel_j0(T([0.5],dtype='float16'))", err=(TYPE, "float16"))
    case("prims::digamma", [T("float64", [-1e-300, 1e17, 1e-5, -100.25])],
         "torch.digamma(T([-1e-300,1e17,1e-5,-100.25],dtype='float64'))")
    ys = [-1.0, -0.999999, -0.75, -0.7, -0.3, -0.0, 0.0, 1e-10, 0.2, 0.69, 0.71, 0.9, 0.999999999, 1.0, 1.5, nan]
    case("prims::erf_inv", [T("float64", ys)], "torch.erfinv(T(%s,dtype='float64'))" % repr(ys))
    aa = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 25.0, 150.0, 300.0, 1000.0, 3.0, 0.0, 2.0, inf, 4.0]
    xx = [0.05, 2.0, 1.0, 0.3, 4.5, 30.0, 24.0, 27.0, 160.0, 305.0, 1010.0, 0.6, 2.0, inf, 1.0, -1.0]
    case("prims::igamma", [T("float64", aa), T("float64", xx)],
         P + "igamma(T(%s,dtype='float64'), T(%s,dtype='float64'))" % (repr(aa), repr(xx)))
    case("prims::igammac", [T("float64", aa), T("float64", xx)],
         P + "igammac(T(%s,dtype='float64'), T(%s,dtype='float64'))" % (repr(aa), repr(xx)))
    zx = [1.5, 2.0, 3.0, 4.0, 10.0, 30.0, 2.0, 2.0, 3.0, 2.5, 1.0, 0.5]
    zq = [1.0, 0.5, 2.0, 1e-3, 7.5, 1.0, -1.5, -2.0, -2.5, -1.5, 3.0, 1.0]
    case("prims::zeta", [T("float64", zx), T("float64", zq)],
         P + "zeta(T(%s,dtype='float64'), T(%s,dtype='float64'))" % (repr(zx), repr(zq)))
