#!/usr/bin/python3
"""compare.py: the reference agrees with PyTorch.

    /usr/bin/python3 compare.py DUMP.jsonl SCHEMA_DIR [KNOWN_DIFFERENCES] [--verbose]

Reads what ref_dump wrote (every conformance sample, the reference's outputs or
error), rebuilds every argument in torch with its exact layout (as_strided over
the storage bytes), calls torch.ops.<ns>.<name>.<overload> and compares:

  * the reference refused the dtype (TABI_ERR_TYPE): skipped ("dtype not
    supported by the reference"); the docs table shows it;
  * the reference returned another error: torch must raise too;
  * the reference succeeded: torch must succeed with the same output dtypes and
    shapes, and values within tolerances.md (or the sample's own, written with a
    reason); random ops compare dtype and shape; uninitialized outputs
    (empty) dtype and shape; sort-like ops compare values and check that the
    reference's indices point at equal values; svd compares singular values and
    checks the reference's U, Vh reconstruct the input.

Deliberate differences live in ONE file (known_differences.txt: op | dtype |
sample glob | reason); a sample they cover is skipped with the reason, never
passed. Prints one line per mismatch and closes with `N passed, N failed,
N skipped`; exits 1 on any failure, 77 when torch cannot be imported.
Python standard library + torch only.
"""
import fnmatch
import json
import math
import os
import sys

try:
    import torch
    import torch._prims  # noqa: F401  (registers torch.ops.prims in 1.13)
except Exception as exc:  # pragma: no cover - depends on the machine
    print("SKIP: torch cannot be imported by %s (%s)" % (sys.executable, exc))
    sys.exit(77)

DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
# tolerances.md: torch.testing.assert_close defaults
TOLS = {
    torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7), torch.complex64: (1.3e-6, 1e-5), torch.complex128: (1e-7, 1e-7),
}
F_EXPECT_ERROR, F_RANDOM, F_TIES, F_NO_NAN_EQUAL, F_UNINIT, F_SIGN = 1, 2, 4, 8, 16, 32


# --------------------------------------------------------------------------- schemas
def split_top(text):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def load_schemas(schema_dir):
    """op name -> list of (arg name, kwarg_only)."""
    out = {}
    for fn in ("core_aten.schema", "prims.schema"):
        for line in open(os.path.join(schema_dir, fn)):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name = line[: line.index("(")]
            depth, end = 0, None
            for i, ch in enumerate(line):
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                    if depth == 0:
                        end = i
                        break
            args, kw = [], False
            for a in split_top(line[line.index("(") + 1: end]):
                if a == "*":
                    kw = True
                    continue
                decl = a.split("=")[0].strip()
                args.append((decl.split()[-1], kw))
            out[name] = args
    return out


def load_known(path):
    rows = []
    if not path or not os.path.exists(path):
        return rows
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        f = [x.strip() for x in line.split("|")]
        if len(f) != 4:
            raise SystemExit("known_differences: want 'op | dtype | sample glob | reason': %r" % line)
        rows.append(f)
    return rows


def known_reason(rows, op, dtype, sample):
    for o, d, s, reason in rows:
        if fnmatch.fnmatchcase(op, o) and fnmatch.fnmatchcase(dtype, d) and fnmatch.fnmatchcase(sample, s):
            return reason
    return None


# --------------------------------------------------------------------------- values
def storage_tensor(dt, hexdata):
    raw = bytearray(bytes.fromhex(hexdata or ""))
    if len(raw) == 0:
        return torch.empty(0, dtype=dt)
    if dt == torch.bool:
        return torch.frombuffer(raw, dtype=torch.uint8).clone().view(torch.bool)
    return torch.frombuffer(raw, dtype=dt).clone()


def to_torch(v):
    t = v["t"]
    if t == "tensor":
        dt = DTYPES[v["dtype"]]
        st = storage_tensor(dt, v["data"])
        return torch.as_strided(st, v["shape"], v["strides"], v["offset"])
    if t in ("none", "default"):
        return None
    if t in ("int", "float", "str"):
        return v["v"]
    if t == "bool":
        return bool(v["v"])
    if t == "complex":
        return complex(v["v"][0], v["v"][1])
    if t == "dtype":
        return DTYPES[v["v"]]
    if t == "device":
        return torch.device("cpu")
    if t in ("ints", "floats"):
        return list(v["v"])
    if t == "bools":
        return [bool(x) for x in v["v"]]
    if t == "tensors":
        return [to_torch(x) for x in v["v"]]
    raise ValueError("unknown value kind %r" % t)


def ref_out(v):
    t = v["t"]
    if t == "tensor":
        dt = DTYPES[v["dtype"]]
        st = storage_tensor(dt, v["data"])
        return st.reshape(v["shape"])
    if t == "tensors":
        return [ref_out(x) for x in v["v"]]
    return to_torch(v)


# --------------------------------------------------------------------------- torch calls
def _wrap(d, n):
    return d + n if d < 0 else d


def any_dims(self, dim=None, keepdim=False):
    """aten::any.dims (torch 2.2) from any / any.dim, which 1.13 has."""
    n = max(self.dim(), 1)
    if dim is None or len(dim) == 0:
        r = torch.ops.aten.any.default(self)
        return r.reshape([1] * self.dim()) if keepdim else r
    wrapped = [_wrap(d, n) for d in dim]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("dim appears multiple times in the list of dims")
    r = self
    for d in sorted(wrapped, reverse=True):
        r = torch.ops.aten.any.dim(r, d, keepdim)
    return r


def squeeze_dims(self, dim):
    """aten::squeeze.dims (torch 2.0) from squeeze.dim."""
    n = max(self.dim(), 1)
    wrapped = [_wrap(d, n) for d in dim]
    for d in wrapped:
        if d < 0 or d >= n:
            raise IndexError("Dimension out of range")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("dim appears multiple times in the list of dims")
    r = self
    for d in sorted(wrapped, reverse=True):
        r = torch.ops.aten.squeeze.dim(r, d)
    return r


def bn_legit(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return torch.ops.aten.native_batch_norm.default(input, weight, bias, running_mean, running_var,
                                                    training, momentum, eps)


def bn_no_stats(input, weight, bias, training, momentum, eps):
    return torch.ops.aten.native_batch_norm.default(input, weight, bias, None, None, training,
                                                    momentum, eps)


def bn_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    return torch.ops.aten.native_batch_norm.default(input, weight, bias, running_mean, running_var,
                                                    False, momentum, eps)


# Ops torch 1.13 lacks, mapped to the torch functions that define the same semantics.
EQUIVALENTS = {
    "aten::any.dims": any_dims,
    "aten::squeeze.dims": squeeze_dims,
    "aten::_native_batch_norm_legit": bn_legit,
    "aten::_native_batch_norm_legit.no_stats": bn_no_stats,
    "aten::_native_batch_norm_legit_no_training": bn_no_training,
}


def torch_op(name):
    if name in EQUIVALENTS:
        return EQUIVALENTS[name]
    ns, rest = name.split("::")
    base, _, ov = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, ns), base), ov or "default")


# torch 1.13's prims take canonical dims only (non-negative, a list, no None);
# tabi's schemas accept what ATen accepts. Canonicalizing first compares the
# semantics, not the argument checking.
PRIM_DIM_ARGS = {
    "prims::sum": "dims", "prims::prod": "dims", "prims::amax": "dims", "prims::amin": "dims",
    "prims::var": "dims", "prims::rev": "dims", "prims::squeeze": "dimensions",
    "prims::transpose": "permutation",
}


def canonical_dims(val, ndim):
    n = max(ndim, 1)
    if val is None:
        return list(range(ndim))
    return [d + n if d < 0 else d for d in val]


def call_torch(name, schema, args, upcast=None):
    """The op on the sample's arguments. With upcast (a torch dtype), tensors of
    that dtype go in as float64 and float64 results come back rounded to it."""
    fn = torch_op(name)
    if upcast is not None:
        wide = lambda v: v.double() if isinstance(v, torch.Tensor) and v.dtype == upcast else v
        res = call_torch_args(fn, name, schema, args, wide)
        back = lambda t: t.to(upcast) if isinstance(t, torch.Tensor) and t.dtype == torch.float64 else t
        return type(res)(back(t) for t in res) if isinstance(res, (tuple, list)) else back(res)
    return call_torch_args(fn, name, schema, args, lambda v: v)


def call_torch_args(fn, name, schema, args, conv):
    pos, kw, by_name = [], {}, False
    first = conv(to_torch(args[0])) if args and args[0]["t"] == "tensor" else None
    for i, v in enumerate(args):
        aname, kwonly = schema[i]
        if v["t"] == "default":
            by_name = True
            continue
        val = first if i == 0 and first is not None else conv(to_torch(v))
        if PRIM_DIM_ARGS.get(name) == aname and first is not None:
            val = canonical_dims(val, first.dim())
        if kwonly or by_name:
            kw[aname] = val
        else:
            pos.append(val)
    return fn(*pos, **kw)


def as_list(res):
    if isinstance(res, (tuple, list)):
        return list(res)
    return [res]


# --------------------------------------------------------------------------- comparison
def compare_tensor(ref, tt, rtol, atol, equal_nan, values=True):
    """None when they agree, else a message."""
    if not isinstance(tt, torch.Tensor):
        if isinstance(tt, (bool, int, float, complex)):
            tt = torch.tensor(tt)
        else:
            return "torch returned %s, reference a tensor" % type(tt).__name__
    if ref.dtype != tt.dtype:
        return "dtype: reference %s, torch %s" % (DTYPE_NAMES.get(ref.dtype), DTYPE_NAMES.get(tt.dtype))
    if list(ref.shape) != list(tt.shape):
        return "shape: reference %s, torch %s" % (list(ref.shape), list(tt.shape))
    if not values or ref.numel() == 0:
        return None
    if ref.dtype == torch.bool or not (ref.dtype.is_floating_point or ref.dtype.is_complex):
        eq = ref == tt
        if bool(eq.all()):
            return None
        idx = int((~eq).flatten().nonzero()[0])
        return "values differ at %d: reference %s, torch %s (%d of %d differ)" % (
            idx, ref.flatten()[idx].item(), tt.flatten()[idx].item(), int((~eq).sum()), ref.numel())
    if rtol is None:
        rtol, atol = TOLS[ref.dtype]
    wide = torch.complex128 if ref.dtype.is_complex else torch.float64
    a = ref.to(wide).flatten()
    b = tt.detach().to(wide).flatten()
    parts = [(a.real, b.real), (a.imag, b.imag)] if ref.dtype.is_complex else [(a, b)]
    worst = None
    for x, y in parts:
        xn, yn = torch.isnan(x), torch.isnan(y)
        bad = xn != yn if equal_nan else (xn | yn)
        both_inf = torch.isinf(x) | torch.isinf(y)
        bad = bad | (both_inf & (x != y) & ~(xn | yn))
        fin = ~(xn | yn | both_inf)
        diff = (x - y).abs()
        tol = atol + rtol * y.abs()
        bad = bad | (fin & (diff > tol))
        if bool(bad.any()):
            idx = int(bad.nonzero()[0])
            d = diff.clone()
            d[~fin] = 0
            worst = "values differ at %d: reference %r, torch %r; max abs err %.3g (%d of %d bad)" % (
                idx, x[idx].item(), y[idx].item(), float(d.max()), int(bad.sum()), x.numel())
            break
    return worst


def check_ties(op, args, refs, tts):
    """sort/topk/max.dim/min.dim/argmax/argmin/max_pool: values equal, indices point at them."""
    inp = to_torch(args[0])
    if op in ("aten::argmax", "aten::argmin"):
        dim = to_torch(args[1]) if len(args) > 1 else None
        keep = bool(to_torch(args[2])) if len(args) > 2 else False
        ref_i, t_i = refs[0], tts[0]
        m = compare_tensor(ref_i, t_i, 0, 0, True, values=False)
        if m:
            return m
        src = inp.flatten() if dim is None else inp
        d = 0 if dim is None else dim
        ri = ref_i.flatten() if dim is None else (ref_i if keep else ref_i.unsqueeze(d))
        ti = t_i.flatten() if dim is None else (t_i if keep else t_i.unsqueeze(d))
        if src.dim() == 0:
            return None
        return compare_tensor(torch.gather(src, d, ri.reshape(ri.shape if dim is not None else [-1])),
                              torch.gather(src, d, ti.reshape(ti.shape if dim is not None else [-1])),
                              0, 0, True)
    if op.startswith("aten::max_pool"):
        m = compare_tensor(refs[0], tts[0], None, None, True)
        if m:
            return m
        m = compare_tensor(refs[1], tts[1], 0, 0, True, values=False)
        if m:
            return m
        sp = 2 if "2d" in op else 3
        flat = inp.flatten(-sp)
        idx = refs[1].flatten(-sp)
        if idx.numel() == 0:
            return None
        picked = torch.gather(flat, -1, idx).reshape(refs[0].shape)
        return compare_tensor(picked, refs[0], None, None, True)
    # sort, topk, max.dim, min.dim: (values, indices)
    m = compare_tensor(refs[0], tts[0], None, None, True)
    if m:
        return "values: " + m
    m = compare_tensor(refs[1], tts[1], 0, 0, True, values=False)
    if m:
        return "indices: " + m
    if inp.dim() == 0 or refs[1].numel() == 0:
        return None
    if op == "aten::sort":
        dim = to_torch(args[1]) if len(args) > 1 else -1
        keep = True
    elif op == "aten::topk":
        dim = to_torch(args[2]) if len(args) > 2 else -1
        keep = True
    else:
        dim = to_torch(args[1])
        keep = bool(to_torch(args[2])) if len(args) > 2 else False
    idx = refs[1] if keep else refs[1].unsqueeze(dim)
    vals = refs[0] if keep else refs[0].unsqueeze(dim)
    m = compare_tensor(torch.gather(inp, dim, idx), vals, 0, 0, True)
    return ("indices do not point at the values: " + m) if m else None


def check_svd(args, refs, tts):
    a = to_torch(args[0]).to(torch.complex128 if args[0]["dtype"].startswith("complex") else torch.float64)
    u, s, vh = refs
    m = compare_tensor(s, tts[1], None, None, True)
    if m:
        return "S: " + m
    k = s.shape[-1]
    if k == 0:
        return None
    uw, sw, vw = u.to(a.dtype)[..., :k], s.to(a.dtype), vh.to(a.dtype)[..., :k, :]
    rec = (uw * sw.unsqueeze(-2)) @ vw
    rtol, atol = TOLS.get(u.dtype, (1e-5, 1e-5))
    err = float((rec - a).abs().max())
    if err > 10 * (atol + rtol * float(a.abs().max())):
        return "U S Vh does not reconstruct A (max err %.3g)" % err
    return None


def compare_sample(rec, schema):
    """('pass'|'fail'|'skip', message)."""
    op, flags, status = rec["op"], rec["flags"], rec["status"]
    if status == "TABI_ERR_TYPE":
        return "skip", "dtype not supported by the reference"
    try:
        res = call_torch(op, schema, rec["args"])
        terr = None
    except Exception as exc:  # torch refuses
        res, terr = None, "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0][:160] if str(exc).strip() else "")
    if status != "TABI_OK":
        if terr is None:
            return "fail", "reference returned %s (%s) but torch succeeded" % (status, rec["error"][:160])
        return "pass", None
    if terr is not None:
        return "fail", "reference succeeded but torch raised %s" % terr
    refs = [ref_out(v) for v in rec["outs"]]
    tts = as_list(res)
    if flags & F_SIGN:
        m = check_svd(rec["args"], refs, tts)
        return ("fail", m) if m else ("pass", None)
    if flags & F_TIES:
        m = check_ties(op, rec["args"], refs, tts)
        return ("fail", m) if m else ("pass", None)
    if len(refs) == 1 and isinstance(refs[0], list):  # Tensor[] return
        refs = refs[0]
    if len(refs) != len(tts):
        return "fail", "reference returned %d outputs, torch %d" % (len(refs), len(tts))
    rtol = rec["rtol"] if (rec["rtol"] or rec["atol"]) else None
    atol = rec["atol"] if rtol is not None else None
    values = not (flags & (F_RANDOM | F_UNINIT))
    for i, (r, t) in enumerate(zip(refs, tts)):
        if r is None or not isinstance(r, torch.Tensor):
            if isinstance(t, torch.Tensor):
                t = t.item() if t.numel() == 1 else t
            if isinstance(r, (float, complex)) and isinstance(t, (float, complex)):
                rc, tc = complex(r), complex(t)
                if all((math.isnan(p) and math.isnan(q)) or p == q or abs(p - q) <= 1e-7 * max(1.0, abs(q))
                       for p, q in ((rc.real, tc.real), (rc.imag, tc.imag))):
                    continue
            if r != t and not (isinstance(r, (int, float)) and isinstance(t, (int, float)) and
                               abs(r - t) <= 1e-7 * max(1.0, abs(t))):
                return "fail", "output %d: reference %r, torch %r" % (i, r, t)
            continue
        m = compare_tensor(r, t, rtol, atol, not (flags & F_NO_NAN_EQUAL), values)
        if m:
            if upcast_agrees(rec, schema, refs, rtol, atol, values):
                return "skip", ("torch 1.13 computes this %s sample with %s intermediates here; torch on "
                                "float64 inputs, rounded to %s, agrees with the reference" %
                                (rec["dtype"], rec["dtype"], rec["dtype"]))
            return "fail", "output %d: %s" % (i, m)
    return "pass", None


def upcast_agrees(rec, schema, refs, rtol, atol, values):
    """For a float16/bfloat16 sample whose values differ from torch's: whether
    torch on float64 inputs, its results rounded to the dtype, agrees with the
    reference (which computes in double and rounds once). torch 1.13's half
    kernels round intermediates, and which of them do depends on the CPU (its
    AVX-512 and AVX2 paths differ): this tells that apart from a reference bug
    on any machine, where known_differences.txt can only list samples."""
    low = DTYPES.get(rec["dtype"])
    if low not in (torch.float16, torch.bfloat16) or not values:
        return False
    try:
        tts = as_list(call_torch(rec["op"], schema, rec["args"], upcast=low))
    except Exception:  # torch refuses float64 here: no verdict
        return False
    if len(tts) != len(refs):
        return False
    for r, t in zip(refs, tts):
        if isinstance(r, torch.Tensor) and compare_tensor(r, t, rtol, atol, not (rec["flags"] & F_NO_NAN_EQUAL)):
            return False
    return True


def main(argv):
    verbose = "--verbose" in argv
    argv = [a for a in argv if a != "--verbose"]
    if len(argv) < 3:
        print(__doc__)
        return 2
    schemas = load_schemas(argv[2])
    known = load_known(argv[3] if len(argv) > 3 else None)
    passed = failed = skipped = 0
    for line in open(argv[1]):
        rec = json.loads(line)
        op = rec["op"]
        if "decomp" in rec:  # the --decomp probe's lines (docs/ops.md)
            continue
        if rec["status"] == "NO_GENERATOR":
            print("FAIL %s: no sample generator" % op)
            failed += 1
            continue
        tag = "%s [%s] %s" % (op, rec["dtype"], rec["sample"])
        reason = known_reason(known, op, rec["dtype"], rec["sample"])
        if reason is not None:
            skipped += 1
            if verbose:
                print("SKIP %s: %s" % (tag, reason))
            continue
        try:
            verdict, msg = compare_sample(rec, schemas[op])
        except Exception as exc:  # a bug here must not hide the rest
            verdict, msg = "fail", "compare.py raised %s: %s" % (type(exc).__name__, exc)
        if verdict == "pass":
            passed += 1
        elif verdict == "skip":
            skipped += 1
            if verbose:
                print("SKIP %s: %s" % (tag, msg))
        else:
            failed += 1
            print("FAIL %s: %s" % (tag, msg))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
