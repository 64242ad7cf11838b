"""bench/cuda/bench_torch.py: the same benchmarks in PyTorch on the same GPU, and
the side-by-side table with bench_cuda's JSON lines (argv[1]). Ratios are
torch time / tabi time (above 1: tabi is faster)."""
import json
import sys
import time

import torch


def cuda_ms(fn, iters):
    for _ in range(3):
        fn()
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(iters):
        fn()
    e1.record()
    torch.cuda.synchronize()
    return e0.elapsed_time(e1) / iters


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
    dev = "cuda"
    t = {}
    x = torch.rand(1 << 28, device=dev)
    y = torch.rand(1 << 28, device=dev)
    t["add_f32_2^28"] = cuda_ms(lambda: torch.add(x, y), 20)
    t["copy_d2d_2^28"] = cuda_ms(lambda: y.copy_(x), 20)
    del x, y
    s = torch.rand(8192, 8192, device=dev)
    t["softmax_8192x8192_f32"] = cuda_ms(lambda: torch._softmax(s, 1, False), 20)
    w = torch.rand(8192, device=dev)
    b = torch.rand(8192, device=dev)
    t["layer_norm_8192x8192_f32"] = cuda_ms(lambda: torch.native_layer_norm(s, [8192], w, b, 1e-5), 20)
    for name, dt in (("f32", torch.float32), ("bf16", torch.bfloat16), ("f16", torch.float16)):
        a = torch.rand(8192, 8192, device=dev, dtype=dt)
        m = torch.rand(8192, 8192, device=dev, dtype=dt)
        t["mm_8192^3_" + name] = cuda_ms(lambda: torch.mm(a, m), 10)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    xi = torch.rand(64, 256, 56, 56, device=dev)
    wi = torch.rand(256, 256, 3, 3, device=dev)
    t["conv_resnet3x3_f32_nchw"] = cuda_ms(
        lambda: torch.convolution(xi, wi, None, [1], [1], [1], False, [0], 1), 10)
    xh = xi.half().to(memory_format=torch.channels_last)
    wh = wi.half().to(memory_format=torch.channels_last)
    t["conv_resnet3x3_f16_nhwc"] = cuda_ms(
        lambda: torch.convolution(xh, wh, None, [1], [1], [1], False, [0], 1), 10)
    del xi, wi, xh, wh
    xr = torch.rand(1 << 24, device=dev)
    t["fft_r2c_2^24_f32"] = cuda_ms(lambda: torch._fft_r2c(xr, [0], 0, True), 20)
    xc = torch._fft_r2c(xr, [0], 0, True)
    t["fft_c2r_2^24_f32"] = cuda_ms(lambda: torch._fft_c2r(xc, [0], 2, 1 << 24), 20)
    u = torch.rand(1, device=dev)
    v = torch.rand(1, device=dev)
    for _ in range(1000):
        torch.add(u, v)
    torch.cuda.synchronize()
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        torch.add(u, v)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t["dispatch_add_1elem"] = (t1 - t0) / n * 1e6

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
