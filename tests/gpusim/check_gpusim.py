"""tests/gpusim/check_gpusim.py: `tabi conform --plugin gpusim` passes cleanly,
and did run the GPU kernel families, not only the ABI and device checks.

usage: check_gpusim.py TABI OUT.json MIN_PASSED

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


def main():
    tabi, js, floor = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cmd = [tabi, "conform", "--plugin", "gpusim", "--jobs", "2", "--timeout", "600",
           "--quiet", "--json", js]
    p = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(p.stdout[-6000:])
    sys.stderr.write(p.stderr[-2000:])
    errors = []
    if p.returncode != 0:
        errors.append("exit status %d, expected 0" % p.returncode)
    j = json.load(open(js))
    s = j["summary"]
    if j["plugin"] != "gpusim" or s["failed"] != 0 or s["passed"] < floor:
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
    for e in errors:
        print("check_gpusim: " + e)
    print("check_gpusim: %d passed, %d failed, %d skipped; %d/%d families present"
          % (s["passed"], s["failed"], s["skipped"],
             sum((o, d) in passed for o, d in MUST_PASS), len(MUST_PASS)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
