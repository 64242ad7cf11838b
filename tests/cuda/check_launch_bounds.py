#!/usr/bin/env python3
"""tests/cuda/check_launch_bounds.py ROOT: every kernel launch of the GPU
plugins' shared sources asks for a block a GPU will run.

A GPU refuses a launch ("too many resources requested for launch") when the
block has more threads than the kernel's __launch_bounds__ allow, or, for a
kernel without bounds, when its threads times the registers ptxas gave it
(up to 255 each) pass the SM's 65536. Neither nvcc nor gpusim sees this: the
compiler does not know the launch's block, and the simulator runs any block
of up to 1024 threads. So this reads the sources (plugins/cuda, plugins/rocm)
and checks each TC_LAUNCH / TC_LAUNCH_SMEM:
  - the kernel is one the sources define (else the parser lost its way);
  - with __launch_bounds__(B, ...): the block is B itself (the same macro), or
    both are constants and block <= B, or the launch is in RUNTIME below,
    whose reason says where the code clamps it;
  - without bounds: the block is a constant of at most 256 threads
    (255 registers x 256 threads fit 65536), or is in RUNTIME;
  - every block is at most 1024 threads.
`--self-test` first runs the checks on small sources with known mistakes and
fails unless each is reported."""
import glob
import os
import re
import sys

# (kernel, block expression) launched with a block computed at run time, and
# why it cannot pass the bound. A stale entry is an error too.
RUNTIME = {
    ("sort_tile_kernel", "threads"): "tc_sort.cu: max(32, pad / 2), pad <= TILE; bound TILE / 2",
    ("svd_kernel", "T"): "tc_svd.cu: threads_for() doubles from 32 while < TCS_MAX_THREADS, the bound",
}
UNBOUNDED_MAX = 256
BLOCK_MAX = 1024


def strip_comments(s):
    """Comments and string literals blanked, newlines kept (line numbers)."""
    out, i, n = [], 0, len(s)
    while i < n:
        if s.startswith("/*", i):
            j = s.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", s[i:j]))
            i = j
        elif s.startswith("//", i):
            j = s.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif s[i] == '"':
            j = i + 1
            while j < n and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            out.append('"' + " " * (min(j, n) - i - 1) + '"')
            i = j + 1
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def balanced(s, i):
    """s[i] is '(': the top-level comma-separated arguments and the index
    after the matching ')', or (None, i) when unbalanced."""
    depth, args, cur = 0, [], []
    for j in range(i, len(s)):
        c = s[j]
        if c == "(":
            depth += 1
            if depth == 1:
                continue
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, j + 1
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(c)
    return None, i


def norm(e):
    return re.sub(r"\s+", " ", e).strip()


def parse(files):
    """{name: [(bound or None, where)]}, [(where, block, kernel)], {macro: expr by file}"""
    kernels, launches, defines = {}, [], {}
    for f, text in files.items():
        s = strip_comments(text)
        for m in re.finditer(r"^\s*#\s*define\s+(\w+)\s+(.+)$", s, re.M):
            defines.setdefault(f, {})[m.group(1)] = m.group(2).strip()
        for m in re.finditer(r"\b__global__\s+void\s+", s):
            i, bound = m.end(), None
            if s.startswith("__launch_bounds__", i):
                k = s.index("(", i)
                args, i = balanced(s, k)
                bound = norm(args[0])
            nm = re.match(r"\s*(\w+)\s*\(", s[i:])
            if not nm:
                continue
            line = s.count("\n", 0, m.start()) + 1
            kernels.setdefault(nm.group(1), []).append((bound, f"{f}:{line}"))
        for m in re.finditer(r"\bTC_LAUNCH(_SMEM)?\s*\(", s):
            ls = s.rfind("\n", 0, m.start()) + 1
            if re.match(r"\s*#\s*define\b", s[ls:m.start()]):
                continue  # the macro's own definition
            args, _ = balanced(s, m.end() - 1)
            line = s.count("\n", 0, m.start()) + 1
            where = f"{f}:{line}"
            nfixed = 3 if m.group(1) else 2
            if args is None or len(args) <= nfixed:
                launches.append((where, None, None))
                continue
            kernel = ",".join(args[nfixed:]).strip()
            launches.append((where, norm(args[1]), kernel))
    return kernels, launches, defines


def evaluate(expr, defs, depth=0):
    """expr as an int, substituting the file's #defines; None if not constant."""
    if depth > 8:
        return None

    def sub(m):
        v = defs.get(m.group(0))
        if v is None:
            raise KeyError(m.group(0))
        r = evaluate(v, defs, depth + 1)
        if r is None:
            raise KeyError(m.group(0))
        return str(r)

    try:
        e = re.sub(r"\b[A-Za-z_]\w*\b", sub, expr)
    except KeyError:
        return None
    e = re.sub(r"\b(\d+)[uUlL]*\b", r"\1", e)
    if not re.fullmatch(r"[\d\s+\-*/()%<>]+", e):
        return None
    try:
        return int(eval(e.replace("/", "//"), {"__builtins__": {}}))
    except Exception:
        return None


def check(files, runtime):
    kernels, launches, defines = parse(files)
    errors, used = [], set()
    for where, block, kernel in launches:
        f = where.rsplit(":", 1)[0]
        if block is None:
            errors.append(f"{where}: a launch whose arguments could not be read")
            continue
        name = re.match(r"\w+", kernel)
        name = name.group(0) if name else kernel
        if name not in kernels:
            errors.append(f"{where}: launches '{name}', which no __global__ void in the sources defines")
            continue
        defs = defines.get(f, {})
        bv = evaluate(block, defs)
        if bv is not None and bv > BLOCK_MAX:
            errors.append(f"{where}: {name} launched with {block} = {bv} threads (> {BLOCK_MAX})")
            continue
        for bound, kwhere in kernels[name]:
            if (name, block) in runtime:
                used.add((name, block))
                continue
            if bound is not None:
                if block == bound:
                    continue
                # the bound's macro is the kernel's file's (often a header)
                kdefs = dict(defines.get(kwhere.rsplit(":", 1)[0], {}))
                kdefs.update(defs)
                lim = evaluate(bound, kdefs)
                if bv is None or lim is None:
                    errors.append(f"{where}: {name} (__launch_bounds__({bound}) at {kwhere}) launched "
                                  f"with block '{block}', not a constant; add it to RUNTIME with the clamp")
                elif bv > lim:
                    errors.append(f"{where}: {name} launched with {bv} threads, above its "
                                  f"__launch_bounds__({bound}) = {lim} at {kwhere}")
            elif bv is None:
                errors.append(f"{where}: {name} (no __launch_bounds__, {kwhere}) launched with block "
                              f"'{block}', not a constant; bound the kernel or add it to RUNTIME")
            elif bv > UNBOUNDED_MAX:
                errors.append(f"{where}: {name} has no __launch_bounds__ ({kwhere}) but is launched with "
                              f"{bv} threads: ptxas may give it more registers than {bv} threads can have; "
                              f"add __launch_bounds__({bv})")
    for key in runtime:
        if key not in used:
            errors.append(f"RUNTIME entry {key} matches no launch (stale)")
    return errors, kernels, launches


SELF_TESTS = [
    ("clean", "#define NT 256\n__global__ void __launch_bounds__(NT) k(int a) {}\n"
     "__global__ void u(int a) {}\nvoid h() { TC_LAUNCH(4, NT, k)(1); TC_LAUNCH(4, 128, u)(1); }\n", None),
    ("over the bound", "__global__ void __launch_bounds__(256) k(int a) {}\n"
     "void h() { TC_LAUNCH(4, 512, k)(1); }\n", "above its __launch_bounds__"),
    ("over the bound by macro", "#define NT 256\n#define BIG (2 * NT)\n"
     "__global__ void __launch_bounds__(NT) k(int a) {}\nvoid h() { TC_LAUNCH_SMEM(4, BIG, 0, k)(1); }\n",
     "above its __launch_bounds__"),
    ("unbounded and wide", "__global__ void u(int a) {}\nvoid h() { TC_LAUNCH(4, 512, u)(1); }\n",
     "has no __launch_bounds__"),
    ("unbounded and runtime", "__global__ void u(int a) {}\nvoid h(int t) { TC_LAUNCH(4, t, u)(1); }\n",
     "not a constant"),
    ("unknown kernel", "void h() { TC_LAUNCH(4, 64, gone<float, 2>)(1); }\n", "no __global__ void"),
    ("too many threads", "__global__ void __launch_bounds__(2048) k(int a) {}\n"
     "void h() { TC_LAUNCH(4, 2048, k)(1); }\n", "> 1024"),
    ("commented out", "__global__ void u(int a) {}\n/* TC_LAUNCH(4, 512, u)(1); */\n"
     "// TC_LAUNCH(4, 512, u)(1);\nvoid h() { TC_LAUNCH(4, 64, u)(1); }\n", None),
]


def self_test():
    bad = 0
    for name, src, want in SELF_TESTS:
        errs, _, _ = check({"t.cu": src}, {})
        ok = (not errs) if want is None else any(want in e for e in errs)
        if not ok:
            print(f"self-test '{name}': expected {want or 'no error'}, got {errs}")
            bad += 1
    print(f"self-test: {len(SELF_TESTS) - bad} of {len(SELF_TESTS)} as expected")
    return bad == 0


def main():
    args = [a for a in sys.argv[1:] if a != "--self-test"]
    if "--self-test" in sys.argv and not self_test():
        return 1
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..")
    paths = sorted(glob.glob(os.path.join(root, "plugins/cuda/*.cu")) +
                   glob.glob(os.path.join(root, "plugins/cuda/*.cuh")) +
                   glob.glob(os.path.join(root, "plugins/rocm/*.cuh")) +
                   glob.glob(os.path.join(root, "plugins/rocm/*.cpp")))
    files = {os.path.relpath(p, root): open(p, encoding="utf-8").read() for p in paths}
    errors, kernels, launches = check(files, RUNTIME)
    nb = sum(1 for v in kernels.values() if any(b for b, _ in v))
    print(f"{len(files)} files, {len(kernels)} kernels ({nb} with __launch_bounds__), {len(launches)} launches")
    for e in errors:
        print("error:", e)
    if len(launches) < 50:
        print(f"error: only {len(launches)} launches found; the parser has lost its way")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
