"""tests/gpusim/check_rocm_libs.py: the ROCm plugin's rocBLAS and MIOpen calls
(rocm_gemm.cuh, rocm_conv.cuh) on gpusim's stand-ins of those libraries
(TABI_GPUSIM_ROCM_LIBS=1, plugins/gpusim/sim_rocm_libs.cpp).

usage: check_rocm_libs.py TABI

1. With the stand-ins, mm, bmm, addmm and convolution pass conform.
2. With TABI_GPUSIM_FAULT=blas-wrong,dnn-wrong (the stand-ins negate alpha)
   aten::mm and aten::convolution must fail: the suite does reach them.
3. Without the stand-ins the same faults change nothing (the own kernels).
"""
import os
import subprocess
import sys


def conform(tabi, ops, env_extra, extra=()):
    env = dict(os.environ, **env_extra)
    cmd = [tabi, "conform", "--plugin", "gpusim", "--jobs", "2", "--quiet", "--ops", ops] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def main():
    tabi = sys.argv[1]
    errors = []
    p = conform(tabi, "aten::mm,aten::bmm,aten::addmm,aten::convolution", {"TABI_GPUSIM_ROCM_LIBS": "1"})
    print(p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "(no output)")
    if p.returncode != 0 or " 0 failed" not in p.stdout:
        errors.append("with the stand-ins: exit %d: %s" % (p.returncode, p.stdout[-600:]))
    wrong = {"TABI_GPUSIM_FAULT": "blas-wrong,dnn-wrong"}
    quick = ["--dtypes", "float32", "--robust-calls", "0"]
    p = conform(tabi, "aten::mm,aten::convolution", dict(wrong, TABI_GPUSIM_ROCM_LIBS="1"), quick)
    for op in ("aten::mm", "aten::convolution"):
        if p.returncode != 1 or ("FAIL %s float32" % op) not in p.stdout:
            errors.append("wrong stand-ins: no failing %s (exit %d): the path does not reach them"
                          % (op, p.returncode))
    p = conform(tabi, "aten::mm,aten::convolution", wrong, quick)
    if p.returncode != 0:
        errors.append("without the stand-ins the faults changed a result (exit %d): %s"
                      % (p.returncode, p.stdout[-400:]))
    for e in errors:
        print("check_rocm_libs: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
