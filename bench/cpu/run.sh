#!/bin/sh
# bench/cpu/run.sh: tabi's CPU plugin next to PyTorch 1.13 on the same cases, at
# the same thread count, with oneDNN called directly (mm, convolution) and a
# plain memcpy as references. Prints a Markdown table: times in ms and
# ratio = tabi speed / torch speed (= torch ms / tabi ms; >= 1.0 means tabi wins).
#
# usage: bench/cpu/run.sh BUILD_DIR [--iters N] [--small] [--only SUBSTR]
# env:   TABI_NUM_THREADS (default: the cores present), PYTHON (default /usr/bin/python3)
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
"$py" "$here/bench_torch.py" "$@" > "$tmp/torch"
echo "threads: $threads; $(uptime | sed 's/.*load/load/')"
awk -F'\t' -v torchf="$tmp/torch" '
  BEGIN { while ((getline l < torchf) > 0) { split(l, a, "\t"); torch[a[1]] = a[2] } }
  { tabi[$1] = $2; order[n++] = $1 }
  END {
    mc = tabi["memcpy_f32"]
    printf "| case | tabi ms | torch ms | ratio (tabi/torch speed) | note |\n|---|---:|---:|---:|---|\n"
    for (i = 0; i < n; i++) {
      k = order[i]
      if (k ~ /^dnnl_/ || k == "memcpy_f32") continue
      note = ""
      if (("dnnl_" k) in tabi) note = sprintf("%.2fx of oneDNN direct (%.3f ms)", tabi["dnnl_" k] / tabi[k], tabi["dnnl_" k])
      if (k ~ /^(add|mul)_f32$/ && mc > 0) note = sprintf("%.0f%% of memcpy bandwidth", 100 * (mc * 1.5) / tabi[k])
      if (k ~ /^(exp|gelu)_f32$/ && mc > 0) note = sprintf("%.0f%% of memcpy bandwidth", 100 * mc / tabi[k])
      if (k in torch) printf "| %s | %.3f | %.3f | %.2f | %s |\n", k, tabi[k], torch[k], torch[k] / tabi[k], note
      else printf "| %s | %.3f | - | - | %s |\n", k, tabi[k], note
    }
    printf "| memcpy_f32 (1e7, 40 MB) | %.3f | - | - | plain copy: %.1f GB/s |\n", mc, 80 / mc
  }' "$tmp/tabi"
