#!/bin/sh
# bench/cpu/run.sh: tabi's CPU plugin next to PyTorch 1.13 on the same cases, at
# the same thread count, with oneDNN called directly (mm, convolution) and a
# plain memcpy as references. Prints a Markdown table: times in ms and
# ratio = tabi speed / torch speed (= torch ms / tabi ms; >= 1.0 means tabi wins).
#
# usage: bench/cpu/run.sh BUILD_DIR [--iters N] [--small] [--only SUBSTR]
# env:   TABI_NUM_THREADS (default: the cores present), PYTHON (default /usr/bin/python3),
#        TABI_BENCH_TORCH_MALLOC (reuse: glibc keeps freed memory for torch, the default; default)
set -eu
build=${1:?usage: run.sh BUILD_DIR [--iters N] [--small] [--only S]}
shift
here=$(cd "$(dirname "$0")" && pwd)
threads=${TABI_NUM_THREADS:-$(nproc)}
export TABI_NUM_THREADS=$threads
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bench/cpu/bench_cpu" --plugin "$build/plugins/libtabi_cpu.so" "$@" > "$tmp/tabi"
# PyTorch's CPU allocator returns each tensor to glibc malloc, which gives
# blocks over its mmap threshold (at most 32 MB) back to the kernel, so every
# 40 MB output of an uncached torch run page-faults afresh (~70 ms for add_f32
# here, against ~1.2 ms when memory is reused). tabi reuses memory through its
# caching allocator; to compare kernels, not allocators, torch runs with glibc
# told to keep freed memory. TABI_BENCH_TORCH_MALLOC=default runs torch as is.
if [ "${TABI_BENCH_TORCH_MALLOC:-reuse}" = reuse ]; then
  export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296
fi
"$py" "$here/bench_torch.py" "$@" > "$tmp/torch"
unset MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_
echo "threads: $threads; torch malloc: ${TABI_BENCH_TORCH_MALLOC:-reuse}; $(uptime | sed 's/.*load/load/')"
awk -F'\t' -v torchf="$tmp/torch" -v thr="$threads" '
  BEGIN { while ((getline l < torchf) > 0) { split(l, a, "\t"); torch[a[1]] = a[2] } }
  { tabi[$1] = $2; order[n++] = $1 }
  END {
    mc = tabi["memcpy_f32"]
    printf "| case | tabi ms | torch ms | ratio (tabi/torch speed) | note |\n|---|---:|---:|---:|---|\n"
    for (i = 0; i < n; i++) {
      k = order[i]
      if (k ~ /^dnnl_/ || k ~ /^memcpy/) continue
      note = ""
      if (("dnnl_" k) in tabi) note = sprintf("%.2fx of oneDNN direct (%.3f ms)", tabi["dnnl_" k] / tabi[k], tabi["dnnl_" k])
      # bytes moved relative to the memcpy (80 MB): 2 or 3 arrays of 1e7 elements
      if (k ~ /^(add|mul|exp|gelu)_(f32|f16|bf16)$/ && mc > 0) {
        f = (k ~ /^(add|mul)/) ? 1.5 : 1.0
        if (k !~ /_f32$/) f = f / 2
        note = sprintf("%.0f%% of memcpy bandwidth", 100 * mc * f / tabi[k])
      }
      if (k in torch) printf "| %s | %.3f | %.3f | %.2f | %s |\n", k, tabi[k], torch[k], torch[k] / tabi[k], note
      else printf "| %s | %.3f | - | - | %s |\n", k, tabi[k], note
    }
    printf "| memcpy_f32 (1e7, 40 MB) | %.3f | - | - | plain copy, the faster of 1 thread (%.3f ms) and %d threads (%.3f ms): %.1f GB/s read+write |\n", mc, tabi["memcpy1_f32"], thr, tabi["memcpyT_f32"], 80 / mc
  }' "$tmp/tabi"
