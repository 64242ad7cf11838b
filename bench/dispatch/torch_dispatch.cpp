// bench/dispatch/torch_dispatch.cpp: the libtorch C++ peer of the no-op
// dispatch benchmark (at::alias and a 1-element at::add). Prints
// "alias_ns X" and "add_ns Y": ns per call, best of 7.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdio>

template <class F>
static double best(F f, long n) {
  double b = 1e30;
  f(n / 10);
  for (int r = 0; r < 7; r++) {
    auto t0 = std::chrono::steady_clock::now();
    f(n);
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
    if (ns < b) b = ns;
  }
  return b;
}

int main() {
  at::set_num_threads(1);
  at::Tensor x = at::ones({1}), y = at::ones({1});
  double a = best([&](long n) { for (long i = 0; i < n; i++) (void)at::alias(x); }, 2000000);
  double d = best([&](long n) { for (long i = 0; i < n; i++) (void)at::add(x, y); }, 500000);
  std::printf("alias_ns %.1f\nadd_ns %.1f\n", a, d);
  return 0;
}
