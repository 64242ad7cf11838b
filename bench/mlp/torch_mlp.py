# bench/mlp/torch_mlp.py: the PyTorch 1.13 eager peer of bench_mlp.c: the same
# models (x @ W + b with W [in, out], ReLU, log_softmax cross-entropy computed as
# -mean(sum(logp * onehot, 1)), SGD), float32, batch 256, median ms per step.
# argv: threads (0: torch's default), steps.
import sys
import time
import torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 0
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
if threads > 0:
    torch.set_num_threads(threads)
print("threads %d" % torch.get_num_threads())


def bench(sizes, batch, n):
    g = torch.Generator().manual_seed(1)
    ws, bs = [], []
    for i in range(len(sizes) - 1):
        bound = (6.0 / sizes[i]) ** 0.5
        ws.append(((torch.rand(sizes[i], sizes[i + 1], generator=g) * 2 - 1) * bound).requires_grad_())
        bs.append(torch.zeros(sizes[i + 1], requires_grad=True))
    x = torch.rand(batch, sizes[0], generator=g) * 2 - 1
    y = torch.arange(batch) % sizes[-1]
    onehot = torch.nn.functional.one_hot(y, sizes[-1]).float()
    times = []
    for i in range(n + 3):
        t0 = time.perf_counter()
        h = x
        for l in range(len(ws)):
            h = torch.addmm(bs[l], h, ws[l])
            if l + 1 < len(ws):
                h = torch.relu(h)
        loss = -(torch.log_softmax(h, 1) * onehot).sum(1).mean()
        loss.backward()
        with torch.no_grad():
            for p in ws + bs:
                p.sub_(p.grad, alpha=0.01)
                p.grad = None
        if i >= 3:
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


print("small_ms %.4f" % bench([2, 64, 64, 2], 256, steps * 5))
print("big_ms %.4f" % bench([1024, 1024, 1024, 10], 256, steps))
