"""tests/gpusim/check_gpusim.py: `tabi conform --plugin gpusim` (or
gpusim_cuda) passes cleanly, and did run the GPU kernel families, not only the
ABI and device checks.

usage: check_gpusim.py TABI OUT.json MIN_PASSED [PLUGIN]

PLUGIN is gpusim (the default: the ROCm plugin's own GEMM, convolution, FFT)
or gpusim_cuda (the CUDA plugin's cuBLAS/cuBLASLt/cuFFT/cuDNN glue over the
host stand-ins of plugins/gpusim/sim_vendor.h). For gpusim_cuda the run is
followed by four with TABI_GPUSIM_FAULT set, which show that the suite does
reach the stand-ins: failing cuBLAS and cuFFT allocations must surface as the
glue's out-of-memory errors, a cuDNN that refuses everything must leave
the convolutions correct (the direct kernels take over), a wrong cuBLASLt
must fail addmm and one that finds no algorithm must not.

The run must exit 0 with no failed case and at least MIN_PASSED passed cases
(a floor under today's count, so a suite that quietly stops running most of
its cases is noticed), every op must have passed its random calls, and
every op below must have a passed case in the
dtype given: one per kernel family whose code only the GPU plugins have
(the own GEMM and convolution, the FFT, block reductions, the fiber-barrier
kernels: softmax, layer norm, batch norm, SVD), aten elementwise ops and
reductions that run on the reference's plans, and two ops that only
decompose onto the simulated prims.
"""
import json
import os
import subprocess
import sys

MUST_PASS = [
    ("aten::mm", "float32"), ("aten::bmm", "float16"), ("aten::addmm", "bfloat16"),
    ("aten::convolution", "float32"), ("aten::convolution_backward", "float32"),
    ("aten::_fft_r2c", "float32"), ("aten::_fft_c2r", "complex128"),
    ("prims::sum", "float32"), ("prims::var", "float64"), ("aten::_softmax", "float32"),
    ("aten::native_layer_norm", "float32"), ("aten::_native_batch_norm_legit", "float32"),
    ("prims::svd", "float64"), ("aten::sort", "int64"), ("aten::scatter_add", "float32"),
    ("aten::index_put", "float32"), ("aten::max_pool2d_with_indices", "float32"),
    ("aten::upsample_bilinear2d.vec", "float32"), ("prims::uniform", "float32"),
    # aten elementwise ops and reductions planned by the reference (tc_ref_glue)
    ("aten::gelu", "bfloat16"), ("aten::div.Tensor_mode", "float32"),
    ("aten::add.Scalar", "float16"), ("aten::clamp", "float32"),
    ("aten::mean.dim", "complex64"), ("aten::sum.dim_IntList", "bfloat16"),
    ("aten::clamp.Tensor", "float32"), ("aten::native_dropout", "float16"),
    # through the decomp plugin onto the simulated prims
    ("aten::repeat", "float32"), ("aten::flip", "bfloat16"),
]


def faults(tabi):
    """The gpusim_cuda fault runs: a list of what went wrong."""
    errors = []
    base = [tabi, "conform", "--plugin", "gpusim_cuda", "--jobs", "2", "--quiet",
            "--robust-calls", "0", "--dtypes", "float32"]
    env = dict(os.environ, TABI_GPUSIM_FAULT="blas-alloc,fft-alloc")
    p = subprocess.run(base + ["--ops", "aten::mm,aten::_fft_r2c"], capture_output=True,
                       text=True, env=env)
    for want in ("aten::mm: out of memory in cuBLAS",
                 "aten::_fft_r2c: out of memory for the cuFFT plan"):
        if p.returncode != 1 or want not in p.stdout:
            errors.append("fault blas-alloc,fft-alloc: exit %d, no FAIL line with %r"
                          % (p.returncode, want))
    env = dict(os.environ, TABI_GPUSIM_FAULT="dnn")
    p = subprocess.run(base + ["--ops", "aten::convolution,aten::convolution_backward"],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0 or " 0 failed" not in p.stdout:
        errors.append("fault dnn: exit %d, expected 0 (direct kernels): %s"
                      % (p.returncode, p.stdout[-400:]))
    # addmm with a bias row goes through cuBLASLt: a wrong cuBLASLt must show,
    # and one that finds no algorithm must leave addmm right (cublasGemmEx)
    env = dict(os.environ, TABI_GPUSIM_FAULT="lt-wrong")
    p = subprocess.run(base + ["--ops", "aten::addmm"], capture_output=True, text=True, env=env)
    if p.returncode != 1 or "FAIL aten::addmm float32" not in p.stdout:
        errors.append("fault lt-wrong: exit %d, no failing aten::addmm float32: the bias "
                      "epilogue path is not reached" % p.returncode)
    env = dict(os.environ, TABI_GPUSIM_FAULT="lt")
    p = subprocess.run(base + ["--ops", "aten::addmm"], capture_output=True, text=True, env=env)
    if p.returncode != 0 or " 0 failed" not in p.stdout:
        errors.append("fault lt: exit %d, expected 0 (the cublasGemmEx path): %s"
                      % (p.returncode, p.stdout[-400:]))
    return errors


def main():
    tabi, js, floor = sys.argv[1], sys.argv[2], int(sys.argv[3])
    plugin = sys.argv[4] if len(sys.argv) > 4 else "gpusim"
    cmd = [tabi, "conform", "--plugin", plugin, "--jobs", "2", "--timeout", "600",
           "--quiet", "--json", js]
    p = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(p.stdout[-6000:])
    sys.stderr.write(p.stderr[-2000:])
    errors = []
    if p.returncode != 0:
        errors.append("exit status %d, expected 0" % p.returncode)
    j = json.load(open(js))
    s = j["summary"]
    if j["plugin"] != plugin or s["failed"] != 0 or s["passed"] < floor:
        errors.append("summary %r (plugin %s): expected 0 failed, >= %d passed"
                      % (s, j["plugin"], floor))
    passed = {(c["op"], c["dtype"]) for c in j["cases"] if c["status"] == "pass"}
    for op, dt in MUST_PASS:
        if (op, dt) not in passed:
            errors.append("no passed case of %s %s" % (op, dt))
    # every op group made its random calls (bad input) and passed them
    ops = {c["op"] for c in j["cases"] if c["op"].startswith(("aten::", "prims::"))}
    robust = {c["op"] for c in j["cases"]
              if c["sample"] == "(random calls)" and c["status"] == "pass"}
    if len(ops) < 290 or ops - robust:
        errors.append("%d ops, %d without passed random calls: %s"
                      % (len(ops), len(ops - robust), ", ".join(sorted(ops - robust)[:20])))
    if plugin == "gpusim_cuda":
        errors += faults(tabi)
    for e in errors:
        print("check_gpusim: " + e)
    print("check_gpusim: %d passed, %d failed, %d skipped; %d/%d families present"
          % (s["passed"], s["failed"], s["skipped"],
             sum((o, d) in passed for o, d in MUST_PASS), len(MUST_PASS)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
