#!/usr/bin/python3
"""Generates test_ew_binary<k>.c and test_ew_unary<k>.c: targeted semantic cases of the elementwise reference
kernels, each with its expected result computed by PyTorch (the truth).

Run with the interpreter that has torch (Debian's python3-torch, 1.13):
    /usr/bin/python3 tests/ref_elementwise/gen_cases.py
Every case pairs the tabi call with the torch one-liner that gives its expected
value; the one-liner is written beside the expectation in the generated C. A case
whose torch call raises becomes an error case (status + message fragment).
Cases marked `newer=` differ from torch 1.13 on purpose (ATen today); the
expected value given there is checked by hand and the reason printed beside it.
"""
import math
import os
import sys
import warnings

import torch

warnings.filterwarnings("ignore")
torch.set_printoptions(precision=10)
HERE = os.path.dirname(os.path.abspath(__file__))
MAX_LINES = 700  # body lines of one generated file

DT = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
NAME = {v: k for k, v in DT.items()}
LAYOUT = {None: "EW_CONTIG", "step": "EW_STEP", "T": "EW_TRANSPOSE", "off": "EW_OFFSET"}


class T:
    """A tensor argument: dtype name, flat values, shape, layout."""
    def __init__(self, dtype, vals, shape=None, layout=None):
        self.dtype, self.vals = dtype, list(vals)
        self.shape = list(shape) if shape is not None else [len(self.vals)]
        self.layout = layout


class S:
    """A scalar / string / none / dtype argument as a C tabi_value expression."""
    def __init__(self, c):
        self.c = c


def I(v): return S("tabi_int(%dLL)" % v if v != -2**63 else "tabi_int(INT64_MIN)")
def F(v): return S("tabi_float(%s)" % cnum(v))
def B(v): return S("tabi_bool(%d)" % int(v))
def CX(re, im): return S("tabi_complex(%s, %s)" % (cnum(re), cnum(im)))
def STR(s): return S('tabi_string("%s", %d)' % (s, len(s)))
NONE = S("tabi_none()")
def DTYPE(name): return S("tabi_dtype_value(TABI_DTYPE_%s)" % name.upper())


def cnum(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return "%d.0" % v
    if math.isnan(v):
        return "-NAN" if math.copysign(1, v) < 0 else "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    if v == 0:
        return "-0.0" if math.copysign(1, v) < 0 else "0.0"
    return repr(float(v))


def cint(v):
    v = int(v)
    return "INT64_MIN" if v == -2**63 else "%dLL" % v


CASES = []


def case(op, args, torch_expr, err=None, newer=None):
    """err: (TABI_ERR_X, 'message fragment') when torch raises; newer: (dtype,
    shape, values, reason) when tabi follows ATen today instead of torch 1.13."""
    CASES.append((op, args, torch_expr, err, newer))


def tensor_c(name, t):
    dt = "TABI_DTYPE_" + t.dtype.upper()
    shape = "(int64_t[]){%s}" % ", ".join(str(s) for s in t.shape) if t.shape else "NULL"
    n = len(t.vals)
    if t.dtype in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        iv = "(int64_t[]){%s}" % ", ".join(cint(v) for v in t.vals) if n else "NULL"
        fv, im = "NULL", "NULL"
    elif t.dtype.startswith("complex"):
        iv = "NULL"
        fv = "(double[]){%s}" % ", ".join(cnum(complex(v).real) for v in t.vals) if n else "NULL"
        im = "(double[]){%s}" % ", ".join(cnum(complex(v).imag) for v in t.vals) if n else "NULL"
    else:
        iv, im = "NULL", "NULL"
        fv = "(double[]){%s}" % ", ".join(cnum(float(v)) for v in t.vals) if n else "NULL"
    return "  tabi_tensor *%s = ew_make(%s, %d, %s, %s, %s, %s, %s);\n" % (
        name, dt, len(t.shape), shape, iv, fv, im, LAYOUT[t.layout])


def torch_env():
    env = {"torch": torch, "T": lambda v, dtype=None: torch.tensor(v, dtype=DT[dtype] if dtype else None),
           "nan": float("nan"), "inf": float("inf"), "aten": torch.ops.aten}
    env.update({k: v for k, v in DT.items()})
    return env


def expect_c(out):
    dt = NAME[out.dtype]
    shape = list(out.shape)
    flat = out.reshape(-1)
    n = flat.numel()
    sh = "(int64_t[]){%s}" % ", ".join(str(s) for s in shape) if shape else "NULL"
    if dt in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        wi = "(int64_t[]){%s}" % ", ".join(cint(v) for v in flat.tolist()) if n else "NULL"
        return dt, len(shape), sh, wi, "NULL", "NULL"
    if dt.startswith("complex"):
        vals = flat.tolist()
        wf = "(double[]){%s}" % ", ".join(cnum(v.real) for v in vals) if n else "NULL"
        wm = "(double[]){%s}" % ", ".join(cnum(v.imag) for v in vals) if n else "NULL"
        return dt, len(shape), sh, "NULL", wf, wm
    wf = "(double[]){%s}" % ", ".join(cnum(v) for v in flat.double().tolist()) if n else "NULL"
    return dt, len(shape), sh, "NULL", wf, "NULL"


def emit(fname, cases, title):
    env = torch_env()
    body = []
    for idx, (op, args, expr, err, newer) in enumerate(cases):
        lines = ["  { /* %s */\n" % expr.replace("*/", "* /")]
        names = []
        for k, a in enumerate(args):
            if isinstance(a, T):
                lines.append(tensor_c("t%d" % k, a))
                names.append("tabi_tensor_value(t%d)" % k)
            else:
                names.append(a.c)
        lines.append("  tabi_value args[] = {%s};\n" % ", ".join(names))
        try:
            out = eval(expr, env)
            raised = None
        except Exception as e:  # torch refuses: the case expects an error
            out, raised = None, str(e).split("\n")[0][:120]
        if newer is not None:
            dt, shape, vals, reason = newer
            lines.append("  /* torch 1.13 gives %s; ATen today: %s */\n" % (
                (raised or repr(out)).replace("*/", "* /").replace("\n", " "), reason))
            out = torch.tensor(vals, dtype=DT[dt]).reshape(shape)
            raised = None
        if raised is not None:
            if err is None:
                sys.exit("case %d (%s) raised in torch but has no err: %s" % (idx, expr, raised))
            lines.append("  /* torch: %s */\n" % raised.replace("*/", "* /"))
            lines.append('  ew_expect_err(__LINE__, "%s", args, %d, %s, "%s");\n' % (
                op, len(args), err[0], err[1]))
        else:
            if err is not None:
                sys.exit("case %d (%s) expected an error but torch returned %s" % (idx, expr, out))
            dt, nd, sh, wi, wf, wm = expect_c(out)
            lines.append("  /* torch: %s */\n" % repr(out).replace("\n", " ").replace("*/", "* /"))
            lines.append('  ew_expect(__LINE__, "%s", args, %d, TABI_DTYPE_%s, %d, %s, %s, %s, %s);\n'
                         % (op, len(args), dt.upper(), nd, sh, wi, wf, wm))
        for k, a in enumerate(args):
            if isinstance(a, T):
                lines.append("  tabi_tensor_release(t%d);\n" % k)
        lines.append("  }\n")
        body.append("".join(lines))
    # Parts of at most MAX_LINES lines (the project's file-size rule), each its
    # own test program, cut between cases.
    parts, cur = [], []
    for b in body:
        if cur and sum(c.count("\n") for c in cur) + b.count("\n") > MAX_LINES:
            parts.append(cur)
            cur = []
        cur.append(b)
    parts.append(cur)
    for k, part in enumerate(parts):
        name = "%s%d.c" % (fname, k + 1)
        src = ('/* %s: GENERATED by gen_cases.py from PyTorch %s; do not edit.\n'
               ' * %s (part %d of %d)\n * Each case names the torch one-liner its expected value came from. */\n'
               '#include "ew_helpers.h"\n\n'
               'int main(void) {\n  ew_setup();\n%s  ew_teardown();\n  return check_report();\n}\n') % (
            name, torch.__version__, title, k + 1, len(parts), "".join(part))
        with open(os.path.join(HERE, name), "w") as f:
            f.write(src)
    print("wrote %s1..%d.c: %d cases" % (fname, len(parts), len(cases)))


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    import cases_binary
    import cases_unary
    for mod, fname, title in ((cases_binary, "test_ew_binary", "binary arithmetic, division, comparisons, promotion"),
                              (cases_unary, "test_ew_unary", "unary math, activations, clamp, where, prims")):
        CASES.clear()
        mod.define(case, T, I, F, B, CX, STR, NONE, DTYPE)
        emit(fname, list(CASES), title)
