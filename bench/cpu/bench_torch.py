#!/usr/bin/python3
"""bench/cpu/bench_torch.py: PyTorch (1.13, CPU) on the same cases as bench_cpu.c.

Prints "name<TAB>milliseconds" (median of --iters after a warm-up), one line per
case, with the same names, so run.sh can join the two. Threads:
torch.set_num_threads(TABI_NUM_THREADS or the cores present), the count tabi uses.
usage: bench_torch.py [--iters N] [--small] [--only SUBSTR]
"""
import os
import sys
import time

import torch


def main():
    args = sys.argv[1:]
    iters, small, only = 10, False, None
    i = 0
    while i < len(args):
        if args[i] == "--iters":
            iters = int(args[i + 1]); i += 1
        elif args[i] == "--small":
            small = True
        elif args[i] == "--only":
            only = args[i + 1]; i += 1
        i += 1
    threads = int(os.environ.get("TABI_NUM_THREADS", "0") or 0) or os.cpu_count()
    torch.set_num_threads(threads)
    torch.manual_seed(0)

    def bench(name, fn):
        if only and only not in name:
            return
        try:
            fn()
        except RuntimeError as e:  # torch 1.13 lacks some half kernels on the CPU
            print(f"# {name}: torch: {str(e).splitlines()[0]}", file=sys.stderr)
            return
        ts = []
        for _ in range(iters):
            t0 = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t0) * 1e3)
        ts.sort()
        print(f"{name}\t{ts[len(ts) // 2]:.4f}", flush=True)

    N = 100000 if small else 10_000_000
    R = 256 if small else 4096
    M1, M2 = (128, 256) if small else (1024, 2048)
    ROWS = 10000 if small else 1_000_000
    F = 4096 if small else 1 << 20
    CN, CC, CHW = (2, 16, 8) if small else (8, 128, 28)

    for dt, dn in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
        a = (torch.rand(N) * 2 - 1).to(dt)
        b = (torch.rand(N) * 2 - 1).to(dt)
        bench(f"add_{dn}", lambda: torch.ops.aten.add.Tensor(a, b))
        bench(f"mul_{dn}", lambda: torch.ops.aten.mul.Tensor(a, b))
        bench(f"exp_{dn}", lambda: torch.ops.aten.exp(a))
        bench(f"gelu_{dn}", lambda: torch.ops.aten.gelu(a))
    v = torch.rand(N) * 2 - 1
    m = torch.rand(R, R) * 2 - 1
    bench("sum_1e7", lambda: torch.ops.aten.sum.dim_IntList(v, None))
    bench("mean_1e7", lambda: torch.ops.aten.mean(v))
    bench("amax_1e7", lambda: torch.ops.aten.amax(v, []))
    bench("sum_rows", lambda: torch.ops.aten.sum.dim_IntList(m, [-1], False))
    bench("mean_rows", lambda: torch.ops.aten.mean.dim(m, [-1], False))
    bench("amax_rows", lambda: torch.ops.aten.amax(m, [-1], False))
    bench("softmax", lambda: torch.ops.aten._softmax(m, -1, False))
    w = torch.rand(R)
    bb = torch.rand(R)
    bench("layer_norm", lambda: torch.ops.aten.native_layer_norm(m, [R], w, bb, 1e-5))
    for n, name in ((M1, "mm_1024"), (M2, "mm_2048")):
        x = torch.rand(n, n)
        y = torch.rand(n, n)
        bench(name, lambda: torch.ops.aten.mm(x, y))
    xb2, yb2 = torch.rand(M2, M2).to(torch.bfloat16), torch.rand(M2, M2).to(torch.bfloat16)
    bench("mm_bf16_2048", lambda: torch.ops.aten.mm(xb2, yb2))
    x = torch.rand(CN, CC, CHW, CHW)
    wt = torch.rand(CC, CC, 3, 3)
    dy = torch.rand(CN, CC, CHW, CHW)
    bench("conv_fwd", lambda: torch.ops.aten.convolution(x, wt, None, [1, 1], [1, 1], [1, 1], False,
                                                         [0, 0], 1))
    bench("conv_bwd", lambda: torch.ops.aten.convolution_backward(
        dy, x, wt, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False]))
    for name, g in (("conv_grouped_fwd", min(32, CC)), ("conv_depthwise_fwd", CC)):
        wg = torch.rand(CC, CC // g, 3, 3)
        bench(name, lambda: torch.ops.aten.convolution(x, wg, None, [1, 1], [1, 1], [1, 1], False,
                                                       [0, 0], g))
    xt = torch.rand(CN, CC, CHW // 2, CHW // 2)
    wtt = torch.rand(CC, CC // 2, 4, 4)
    bench("conv_transposed_fwd", lambda: torch.ops.aten.convolution(xt, wtt, None, [2, 2], [1, 1], [1, 1],
                                                                    True, [0, 0], 1))
    x3 = torch.rand(2, CC // 4, 4 if small else 16, CHW, CHW)
    w3 = torch.rand(CC // 4, CC // 4, 3, 3, 3)
    bench("conv3d_fwd", lambda: torch.ops.aten.convolution(x3, w3, None, [1, 1, 1], [1, 1, 1], [1, 1, 1],
                                                           False, [0, 0, 0], 1))
    xb, wb = x.to(torch.bfloat16), wt.to(torch.bfloat16)
    bench("conv_bf16_fwd", lambda: torch.ops.aten.convolution(xb, wb, None, [1, 1], [1, 1], [1, 1], False,
                                                              [0, 0], 1))
    s = torch.rand(F)
    bench("fft_r2c", lambda: torch.ops.aten._fft_r2c(s, [0], 0, True))
    spec = torch.ops.aten._fft_r2c(s, [0], 0, True)
    bench("fft_c2r", lambda: torch.ops.aten._fft_c2r(spec, [0], 2, F))
    tab = torch.rand(ROWS, 16)
    src = torch.rand(ROWS, 16)
    i1 = torch.randint(0, ROWS, (ROWS,))
    i2 = torch.randint(0, ROWS, (ROWS, 16))
    bench("index_select", lambda: torch.ops.aten.index_select(tab, 0, i1))
    bench("gather", lambda: torch.ops.aten.gather(tab, 0, i2))
    bench("scatter_add", lambda: torch.ops.aten.scatter_add(tab, 0, i2, src))
    xs = torch.rand(ROWS)
    bench("sort", lambda: torch.ops.aten.sort(xs, -1, False))
    bench("topk", lambda: torch.ops.aten.topk(xs, 1000, -1, True, True))
    sa = torch.rand(32, 32) if small else torch.rand(256, 256)
    bench("svd_256", lambda: torch.linalg.svd(sa, full_matrices=False))


if __name__ == "__main__":
    main()
