"""bench/cuda/bench_torch.py: the same benchmarks in PyTorch on the same GPU, and
the side-by-side table with bench_cuda's JSON lines (argv[1]). Ratios are
torch time / tabi time (above 1: tabi is faster).

usage: bench_torch.py BENCH_TABI_JSONL [--smoke]
--smoke runs every benchmark at a small size on the CPU (ctest
bench_torch_smoke, with torch 1.13): a mistake in this script would otherwise
first show in a scarce GPU session."""
import json
import sys
import time

import torch


SMOKE = "--smoke" in sys.argv


def cuda_ms(fn, iters):
    for _ in range(3):
        fn()
    if SMOKE:
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(iters):
        fn()
    e1.record()
    torch.cuda.synchronize()
    return e0.elapsed_time(e1) / iters


def host_us(fn):
    """Host microseconds per call of fn, called back to back (bench_cuda.c's
    host_us: warm-up, a synchronize, then calls without one)."""
    for _ in range(10 if SMOKE else 1000):
        fn()
    if not SMOKE:
        torch.cuda.synchronize()
    n = 100 if SMOKE else 20000
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    if not SMOKE:
        torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def urand(*shape, **kw):
    """Uniform in [-1, 1), as bench_cuda's inputs (prims::uniform(-1, 1)): the
    same distribution on both sides, since a GEMM's speed on an H100/H200
    depends on the bits it multiplies (power draw), and signs matter to it."""
    return torch.rand(*shape, **kw) * 2 - 1


def main():
    tabi = {}
    gpu = "?"
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if "gpu" in d:
            gpu = d["gpu"]
        if "name" in d:
            tabi[d["name"]] = d
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = "cpu" if SMOKE else "cuda"
    N28, S, N24 = (1 << 16, 96, 70000) if SMOKE else (1 << 28, 8192, 1 << 24)
    CN, CC, CHW = (2, 8, 6) if SMOKE else (64, 256, 56)
    t = {}
    x = urand(N28, device=dev)
    y = urand(N28, device=dev)
    t["add_f32_2^28"] = cuda_ms(lambda: torch.add(x, y), 20)
    t["copy_d2d_2^28"] = cuda_ms(lambda: y.copy_(x), 20)
    t["gelu_f32_2^28"] = cuda_ms(lambda: torch.nn.functional.gelu(x), 20)
    t["mul_scalar_f32_2^28"] = cuda_ms(lambda: torch.mul(x, 2.5), 20)
    xh = x if SMOKE else x.half()  # torch 1.13 has no float16 CPU relu
    t["relu_f16_2^28"] = cuda_ms(lambda: torch.relu(xh), 20)
    del xh
    t["native_dropout_f32_2^28"] = cuda_ms(lambda: torch.native_dropout(x, 0.1, True), 20)
    t["to_f16_f32_2^28"] = cuda_ms(lambda: x.to(torch.float16), 20)
    t["full_f32_2^28"] = cuda_ms(lambda: torch.full((N28,), 1.5, device=dev), 20)
    t["zeros_f32_2^28"] = cuda_ms(lambda: torch.zeros(N28, device=dev), 20)
    t["sum_f32_2^28"] = cuda_ms(lambda: torch.sum(x), 20)
    t["argmax_f32_2^28"] = cuda_ms(lambda: torch.argmax(x), 20)
    del x, y
    m2 = urand(S, S, device=dev)
    t["sum_dim0_8192x8192_f32"] = cuda_ms(lambda: torch.sum(m2, 0), 20)
    v24 = urand(N24, device=dev)
    t["cumsum_f32_2^24"] = cuda_ms(lambda: torch.cumsum(v24, 0), 20)
    t["sort_f32_2^24"] = cuda_ms(lambda: torch.sort(v24, stable=True, dim=0), 5)
    rpn = 20000 if SMOKE else N24  # tabi's smoke size for the 2^24 row
    t["randperm_2^24"] = cuda_ms(lambda: torch.randperm(rpn, device=dev), 10)
    t["randperm_8192"] = cuda_ms(lambda: torch.randperm(8192, device=dev), 10)
    parts = [urand(4 if SMOKE else 256, 8 if SMOKE else 1024, device=dev) for _ in range(64)]
    t["cat_64x256x1024_f32"] = cuda_ms(lambda: torch.cat(parts, 1), 20)
    del parts
    tab = urand(300 if SMOKE else 50257, 96 if SMOKE else 1024, device=dev)
    iv = torch.randperm(tab.shape[0], device=dev)[:50 if SMOKE else 8192]
    t["index_select_8192_of_50257x1024_f32"] = cuda_ms(lambda: torch.index_select(tab, 0, iv), 20)
    del tab, iv
    del m2, v24
    s = urand(S, S, device=dev)
    t["softmax_8192x8192_f32"] = cuda_ms(lambda: torch._softmax(s, 1, False), 20)
    lg = urand(3 if SMOKE else 4096, 20001 if SMOKE else 50257, device=dev)
    t["log_softmax_4096x50257_f32"] = cuda_ms(lambda: torch._log_softmax(lg, 1, False), 20)
    del lg
    w = urand(S, device=dev)
    b = urand(S, device=dev)
    t["layer_norm_8192x8192_f32"] = cuda_ms(lambda: torch.native_layer_norm(s, [S], w, b, 1e-5), 20)
    _, lm, lr = torch.native_layer_norm(s, [S], w, b, 1e-5)
    t["layer_norm_backward_8192x8192_f32"] = cuda_ms(
        lambda: torch.ops.aten.native_layer_norm_backward(s, s, [S], lm, lr, w, b, [True, True, True]), 20)
    dst = torch.empty(S, S, device=dev)
    t["copy_transposed_8192x8192_f32"] = cuda_ms(lambda: dst.copy_(s.t()), 20)
    del dst
    for name, dt in (("f32", torch.float32), ("bf16", torch.bfloat16), ("f16", torch.float16)):
        if SMOKE and dt == torch.float16:
            dt = torch.float32  # torch 1.13 has no float16 CPU matmul
        a = urand(S, S, device=dev, dtype=dt)
        m = urand(S, S, device=dev, dtype=dt)
        t["mm_8192^3_" + name] = cuda_ms(lambda: torch.mm(a, m), 10)
        if name == "bf16":
            bias = urand(S, device=dev, dtype=dt)
            t["addmm_bias_8192^3_bf16"] = cuda_ms(lambda: torch.addmm(bias, a, m), 10)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    xi = urand(CN, CC, CHW, CHW, device=dev)
    wi = urand(CC, CC, 3, 3, device=dev)
    t["conv_resnet3x3_f32_nchw"] = cuda_ms(
        lambda: torch.convolution(xi, wi, None, [1], [1], [1], False, [0], 1), 10)
    half = torch.float32 if SMOKE else torch.half  # torch 1.13 has no float16 CPU convolution
    xh = xi.to(half).to(memory_format=torch.channels_last)
    wh = wi.to(half).to(memory_format=torch.channels_last)
    t["conv_resnet3x3_f16_nhwc"] = cuda_ms(
        lambda: torch.convolution(xh, wh, None, [1], [1], [1], False, [0], 1), 10)
    del xi, wi, xh, wh
    xr = urand(N24, device=dev)
    t["fft_r2c_2^24_f32"] = cuda_ms(lambda: torch._fft_r2c(xr, [0], 0, True), 20)
    xc = torch._fft_r2c(xr, [0], 0, True)
    t["fft_c2r_2^24_f32"] = cuda_ms(lambda: torch._fft_c2r(xc, [0], 2, N24), 20)
    u = urand(1, device=dev)
    v = urand(1, device=dev)
    t["dispatch_add_1elem"] = host_us(lambda: torch.add(u, v))
    la = urand(64, 64, device=dev)
    lm = urand(64, 64, device=dev)
    lb = urand(64, device=dev)
    t["dispatch_addmm_bias_64"] = host_us(lambda: torch.addmm(lb, la, lm))

    print("GPU: %s, torch %s" % (gpu, torch.__version__))
    print("| benchmark | tabi | torch | torch/tabi |")
    print("|---|---|---|---|")
    for k, tv in t.items():
        d = tabi.get(k)
        unit = "us" if k.startswith("dispatch") else "ms"
        if d is None:
            print("| %s | n/a | %.4f %s | |" % (k, tv, unit))
            continue
        mine = d.get("us", d.get("ms"))
        extra = ""
        if "gbps" in d:
            extra = " (%.0f GB/s)" % d["gbps"]
        if "tflops" in d:
            extra = " (%.0f TFLOP/s)" % d["tflops"]
        print("| %s | %.4f %s%s | %.4f %s | %.3f |" % (k, mine, unit, extra, tv, unit, tv / mine))
    if "add_f32_2^28" in tabi and "copy_d2d_2^28" in tabi:
        print("\nadd vs copy bandwidth (same run): %.1f%%" %
              (100.0 * tabi["add_f32_2^28"]["gbps"] / tabi["copy_d2d_2^28"]["gbps"]))


if __name__ == "__main__":
    main()
