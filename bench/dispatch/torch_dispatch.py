# bench/dispatch/torch_dispatch.py: the PyTorch peer of the no-op dispatch
# benchmark (run by tabi_bench_dispatch with /usr/bin/python3, torch 1.13).
# Prints "alias_ns X" and "add_ns Y": ns per call, best of 7.
import time
import torch

torch.set_num_threads(1)
x = torch.ones(1)
y = torch.ones(1)
alias = torch.ops.aten.alias


def best(fn, n=200000, reps=7):
    fn(n // 10)
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(n)
        t.append((time.perf_counter() - t0) / n * 1e9)
    return min(t)


def run_alias(n):
    for _ in range(n):
        alias(x)


def run_add(n):
    for _ in range(n):
        torch.add(x, y)


print("alias_ns %.1f" % best(run_alias))
print("add_ns %.1f" % best(run_add))
