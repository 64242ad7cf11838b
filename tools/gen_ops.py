#!/usr/bin/env python3
"""gen_ops.py: typed C wrappers for the builtin op sets, generated from the schemas.

    gen_ops.py OUT_DIR SCHEMA_FILE...

Writes OUT_DIR/tabi/ops.h (installed beside tabi/runtime.h), OUT_DIR/ops.c
(compiled into libtabi) and OUT_DIR/ops_table.inc (for tests). One function per overload, e.g.

    tabi_status tabi_aten_add_Tensor(tabi_runtime *rt, tabi_tensor *self,
                                     tabi_tensor *other, tabi_value alpha,
                                     tabi_tensor **out);

and one handle constant per overload (TABI_OP_ATEN_ADD_TENSOR). The dispatcher
registers the builtin ops in the order of the schema files given here (aten first,
then prims; comments and blank lines skipped), so the i-th schema line has handle
i: a wrapper calls tabi_call with a compile-time handle and never looks a name up.
The schema files are the single source of truth; tests compare every constant
with tabi_op_find.

Python 3 standard library only: this runs at build time on a bare Debian.
"""
import os
import re
import sys

C_KEYWORDS = set("""
auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while _Bool _Complex _Imaginary bool
true false class delete new this template typename namespace operator private
protected public virtual friend using try catch throw explicit mutable export
""".split())
# Names the wrapper body itself uses, so an argument may not take them.
RESERVED = {"rt", "args_", "outs_", "st_"}

SCALAR_C = {"int": "int64_t", "SymInt": "int64_t", "bool": "int32_t", "float": "double"}
SCALAR_BOX = {"int": "tabi_int", "SymInt": "tabi_int", "bool": "tabi_bool", "float": "tabi_float"}
VALUE_TYPES = {"Scalar", "ScalarType", "Device", "str", "Layout", "MemoryFormat"}


class SchemaError(Exception):
    pass


def split_top(text, sep=","):
    """Splits at `sep` outside parentheses and brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    return parts


def parse_type(text):
    """'Tensor(a!)?' etc. -> dict(base, optional, list, elem_optional, fixed)."""
    t = re.sub(r"\([^)]*\)", "", text)  # alias annotations: (a), (a!), (a -> *)
    m = re.fullmatch(r"(\w+)(\?)?(?:\[(\d*)\](\?)?)?", t)
    if not m:
        raise SchemaError("unparsable type %r" % text)
    base, q1, fixed, q2 = m.group(1), m.group(2), m.group(3), m.group(4)
    is_list = fixed is not None
    return {
        "base": base,
        "list": is_list,
        "fixed": int(fixed) if fixed else 0,
        # `T?[]`: the elements are optional; `T[]?` / `T?`: the whole is.
        "elem_optional": bool(q1) and is_list,
        "optional": bool(q2) if is_list else bool(q1),
    }


def parse_schema(line):
    m = re.fullmatch(r"(\w+)::(\w+)(?:\.(\w+))?\((.*)\)\s*->\s*(.+)", line)
    if not m:
        raise SchemaError("unparsable schema %r" % line)
    ns, name, overload, args_text, ret_text = m.groups()
    args = []
    for a in split_top(args_text):
        if a == "*":
            continue
        decl = a.split("=", 1)[0].strip()
        type_text, _, arg_name = decl.rpartition(" ")
        if not type_text or not arg_name:
            raise SchemaError("argument %r in %r" % (a, line))
        args.append({"name": arg_name, "type": parse_type(type_text)})
    ret_text = ret_text.strip()
    if ret_text.startswith("(") and ret_text.endswith(")"):
        ret_items = split_top(ret_text[1:-1])
    elif ret_text == "()":
        ret_items = []
    else:
        ret_items = [ret_text]
    rets = []
    for r in ret_items:
        type_text, _, rname = r.rpartition(" ")
        if not type_text:
            type_text, rname = r, ""
        rets.append({"name": rname, "type": parse_type(type_text)})
    full = "%s::%s%s" % (ns, name, "." + overload if overload else "")
    return {"ns": ns, "name": name, "overload": overload, "full": full,
            "schema": line, "args": args, "rets": rets}


def read_schemas(paths):
    ops = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for lineno, raw in enumerate(f, 1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    ops.append(parse_schema(line))
                except SchemaError as e:
                    raise SystemExit("%s:%d: %s" % (path, lineno, e))
    return ops


def c_ident(name, taken):
    """A C identifier for a schema name that clashes with nothing in `taken`."""
    ident = name
    if ident in C_KEYWORDS or ident in RESERVED:
        ident += "_"
    while ident in taken:
        ident += "_"
    taken.add(ident)
    return ident


def arg_params(arg, ident):
    """(C parameter declarations, boxing expression) for one schema argument."""
    t = arg["type"]
    base = t["base"]
    if base == "Tensor" and not t["list"]:
        return ["tabi_tensor *%s" % ident], "tabi_tensor_value(%s)" % ident
    if t["optional"]:
        return ["tabi_value %s" % ident], ident
    if t["list"]:
        if base == "Tensor":
            return (["tabi_tensor *const *%s" % ident, "int64_t %s_len" % ident],
                    "tabi_tensor_list(%s, %s_len)" % (ident, ident))
        if base in ("int", "SymInt"):
            return (["const int64_t *%s" % ident, "int64_t %s_len" % ident],
                    "tabi_int_list(%s, %s_len)" % (ident, ident))
        if base == "bool":  # BOOL_LIST payloads are int64_t 0/1 (value.h)
            return (["const int64_t *%s" % ident, "int64_t %s_len" % ident],
                    "tabi_bool_list(%s, %s_len)" % (ident, ident))
        if base == "float":
            return (["const double *%s" % ident, "int64_t %s_len" % ident],
                    "tabi_float_list(%s, %s_len)" % (ident, ident))
        raise SchemaError("list of %s" % base)
    if base in SCALAR_C:
        return ["%s %s" % (SCALAR_C[base], ident)], "%s(%s)" % (SCALAR_BOX[base], ident)
    if base in VALUE_TYPES:
        return ["tabi_value %s" % ident], ident
    raise SchemaError("type %s" % base)


def ret_kind(ret):
    t = ret["type"]
    if t["base"] == "Tensor" and not t["list"]:
        return "tensor"
    if (t["base"] == "Tensor" and t["list"]) or t["base"] == "Scalar":
        return "value"
    raise SchemaError("return type %s" % t["base"])


def func_name(op):
    s = "tabi_%s_%s" % (op["ns"], op["name"])
    return s + "_" + op["overload"] if op["overload"] else s


def handle_name(op):
    return "TABI_OP_" + func_name(op)[len("tabi_"):].upper()


def build(ops):
    """Per op: function name, handle macro, parameters, boxing, returns."""
    seen_funcs, seen_handles, out = {}, {}, []
    for index, op in enumerate(ops):
        fname, hname = func_name(op), handle_name(op)
        for table, key in ((seen_funcs, fname), (seen_handles, hname)):
            if key in table:
                raise SystemExit("gen_ops: %s and %s both map to %s"
                                 % (table[key], op["full"], key))
            table[key] = op["full"]
        taken = set()
        rets = []
        for i, r in enumerate(op["rets"]):
            if len(op["rets"]) == 1 and not r["name"]:
                want = "out"
            else:
                want = "out_" + (r["name"] or str(i))
            rets.append((want, ret_kind(r)))
        for want, _ in rets:
            taken.add(want)
        params, boxes = [], []
        for a in op["args"]:
            ident = c_ident(a["name"], taken)
            if a["type"]["list"] and not a["type"]["optional"]:
                taken.add(ident + "_len")  # keep a later `<x>_len` argument apart
            p, b = arg_params(a, ident)
            params += p
            boxes.append(b)
        for want, kind in rets:
            params.append(("tabi_tensor **%s" if kind == "tensor" else "tabi_value *%s") % want)
        out.append({"op": op, "index": index, "func": fname, "handle": hname,
                    "params": params, "boxes": boxes, "rets": rets})
    return out


def c_comment(text):
    return text.replace("*/", "* /")


def write_header(path, items, sources):
    lines = [
        "/* tabi/ops.h: typed wrappers over tabi_call for every builtin op.",
        " *",
        " * GENERATED by tools/gen_ops.py from %s. Do not edit."
        % ", ".join(os.path.basename(s) for s in sources),
        " *",
        " * One function per overload: tabi_<ns>_<name>[_<overload>]. Arguments map",
        " * from the schema as follows:",
        " *   Tensor, Tensor?          tabi_tensor *   (NULL means None for Tensor?)",
        " *   int, SymInt              int64_t         bool    int32_t    float  double",
        " *   int[], int[N], bool[N]   const int64_t *x, int64_t x_len",
        " *   Tensor[], Tensor?[]      tabi_tensor *const *x, int64_t x_len",
        " *   any other optional, Scalar, ScalarType, Device, str, Layout,",
        " *   MemoryFormat             tabi_value (tabi_default() for the schema's",
        " *                            default, tabi_none() for None)",
        " * Returns: a Tensor is a tabi_tensor **out (or out_<name>, out_<i> for",
        " * tuples): a new reference the caller releases with tabi_tensor_release.",
        " * A Tensor[] or Scalar return is a tabi_value *out, released with",
        " * tabi_value_release. An out pointer may be NULL to drop that result.",
        " * On error every out is set to NULL / NONE and tabi_last_error() says why.",
        " *",
        " * Handles: TABI_OP_<NS>_<NAME>[_<OVERLOAD>] is the op's tabi_op in every",
        " * runtime (builtin ops are registered in schema-file order).",
        " * Threading: as tabi_call.",
        " */",
        "#ifndef TABI_OPS_H",
        "#define TABI_OPS_H",
        "",
        "#include <stdint.h>",
        "",
        "#include <tabi/runtime.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        "#define TABI_OP_BUILTIN_COUNT %d" % len(items),
        "",
    ]
    width = max(len(it["handle"]) for it in items) + 1
    for it in items:
        lines.append("#define %s %d" % (it["handle"].ljust(width), it["index"]))
    lines.append("")
    for it in items:
        lines.append("/* %s */" % c_comment(it["op"]["schema"]))
        lines.append("TABI_API tabi_status %s(%s);" % (
            it["func"], ", ".join(["tabi_runtime *rt"] + it["params"])))
    lines += ["", "#ifdef __cplusplus", "}", "#endif", "", "#endif /* TABI_OPS_H */", ""]
    write_if_changed(path, "\n".join(lines))


def write_source(path, items):
    lines = [
        "/* ops.c: the typed wrappers of tabi/ops.h.",
        " * GENERATED by tools/gen_ops.py. Do not edit. */",
        "#include <stddef.h>",
        "",
        "#include <tabi/ops.h>",
        "",
        "/* Hands a Tensor result to *out (or drops it when out is NULL). */",
        "static void tabi_ops_take_tensor_(tabi_value *v, tabi_tensor **out) {",
        "  if (out != NULL && v->tag == TABI_TAG_TENSOR) {",
        "    *out = v->u.t;",
        "    *v = tabi_none();",
        "  }",
        "  tabi_value_release(v);",
        "}",
        "",
        "/* Hands a Tensor[] or Scalar result to *out (or drops it). */",
        "static void tabi_ops_take_value_(tabi_value *v, tabi_value *out) {",
        "  if (out != NULL) {",
        "    *out = *v;",
        "    *v = tabi_none();",
        "  }",
        "  tabi_value_release(v);",
        "}",
        "",
    ]
    for it in items:
        nargs, nrets = len(it["boxes"]), len(it["rets"])
        lines.append("tabi_status %s(%s) {" % (
            it["func"], ", ".join(["tabi_runtime *rt"] + it["params"])))
        if nargs:
            lines.append("  tabi_value args_[%d];" % nargs)
        lines.append("  tabi_value outs_[%d];" % max(nrets, 1))
        lines.append("  tabi_status st_;")
        for name, kind in it["rets"]:
            reset = "NULL" if kind == "tensor" else "tabi_none()"
            lines.append("  if (%s != NULL) *%s = %s;" % (name, name, reset))
        for i, b in enumerate(it["boxes"]):
            lines.append("  args_[%d] = %s;" % (i, b))
        for i in range(max(nrets, 1)):
            lines.append("  outs_[%d] = tabi_none();" % i)
        lines.append("  st_ = tabi_call(rt, %s, %s, %d, outs_, %d);" % (
            it["handle"], "args_" if nargs else "NULL", nargs, max(nrets, 1)))
        # A failed call leaves outs NONE; release anyway so no path can leak.
        lines.append("  if (st_ != TABI_OK) {")
        for i in range(max(nrets, 1)):
            lines.append("    tabi_value_release(&outs_[%d]);" % i)
        lines.append("    return st_;")
        lines.append("  }")
        for i, (name, kind) in enumerate(it["rets"]):
            fn = "tabi_ops_take_tensor_" if kind == "tensor" else "tabi_ops_take_value_"
            lines.append("  %s(&outs_[%d], %s);" % (fn, i, name))
        lines.append("  return TABI_OK;")
        lines.append("}")
        lines.append("")
    write_if_changed(path, "\n".join(lines))


def write_table(path, items):
    """X(handle, "ns::name.overload", "schema") per op, for tests that check the
    constants and the schemas against a live runtime."""
    lines = ["/* GENERATED by tools/gen_ops.py: X(handle, name, schema) per builtin op. */"]
    for it in items:
        lines.append("X(%s, \"%s\", \"%s\")" % (
            it["handle"], it["op"]["full"], it["op"]["schema"].replace("\\", "\\\\")
            .replace('"', '\\"')))
    write_if_changed(path, "\n".join(lines) + "\n")


def write_if_changed(path, text):
    """Leaves an unchanged file alone so the build does not redo its dependents."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out_dir, sources = argv[1], argv[2:]
    items = build(read_schemas(sources))
    write_header(os.path.join(out_dir, "tabi", "ops.h"), items, sources)
    write_source(os.path.join(out_dir, "ops.c"), items)
    write_table(os.path.join(out_dir, "ops_table.inc"), items)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
