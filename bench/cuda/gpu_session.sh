#!/bin/bash
# bench/cuda/gpu_session.sh OUT [PHASE...]: a session on a GPU machine: build
# the CUDA plugin and what it needs, run the CUDA tests, `tabi conform --plugin
# cuda` (JSON report), and the benchmarks side by side with PyTorch. Logs in OUT.
#
# PHASE is any of build, test, conform, bench (default: all four, in that
# order). A lent GPU machine runs one command for at most 10 minutes and keeps
# its files only while it stays warm, so the phases can go in separate calls
# made back to back: `... OUT build test`, then `... OUT conform bench`.
set -u
OUT=${1:-out}
shift || true
PHASES=${*:-build test conform bench}
mkdir -p "$OUT"
B=build-gpu
DL=${DLPACK_INCLUDE_DIR:-$PWD/build-dlpack}
export TABI_PLUGIN_PATH=$PWD/$B/plugins
T0=$(date +%s)
for phase in $PHASES; do
  T1=$(date +%s)
  case $phase in
  build)
    cmake -S . -B $B -DTABI_WITH_ONEDNN=OFF -DTABI_WITH_ROCM=OFF -DTABI_WITH_CUDA=ON \
      -DCMAKE_BUILD_TYPE=Release -DDLPACK_INCLUDE_DIR="$DL" > "$OUT/cmake.log" 2>&1 ||
      { tail -30 "$OUT/cmake.log"; exit 1; }
    cmake --build $B -j"$(nproc)" --target tabi_plugin_cuda tabi_plugin_reference tabi_plugin_decomp \
      tabi_cli test_cuda_load test_cuda_ops random_calls bench_cuda > "$OUT/build.log" 2>&1 ||
      { grep -E "error" "$OUT/build.log" | head -40; exit 1; }
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
    ;;
  test)
    $B/tests/cuda/test_cuda_load $B/plugins/libtabi_cuda.so abi/ops/prims.schema abi/ops/core_aten.schema \
      $B/plugins/libtabi_decomp.so > "$OUT/test_load.log" 2>&1
    echo "test_cuda_load rc=$?"; tail -3 "$OUT/test_load.log"
    $B/tests/cuda/test_cuda_ops $B/plugins/libtabi_cuda.so $B/plugins/libtabi_reference.so \
      > "$OUT/test_ops.log" 2>&1
    echo "test_cuda_ops rc=$?"; tail -25 "$OUT/test_ops.log"
    # every op with random, mostly bad, arguments (tests/robust): errors, no crash or hang
    $B/tests/robust/random_calls $B/plugins/libtabi_cuda.so,$B/plugins/libtabi_decomp.so --calls 20 \
      --seed 3 > "$OUT/robust.log" 2>&1
    echo "random_calls rc=$?"; tail -5 "$OUT/robust.log"
    ;;
  conform)
    timeout "${CONFORM_LIMIT:-300}" $B/tools/tabi conform --plugin cuda --jobs 16 --timeout 150 \
      --json "$OUT/conform.json" > "$OUT/conform.log" 2>&1
    echo "conform rc=$?"; tail -2 "$OUT/conform.log"
    grep -E "^FAIL" "$OUT/conform.log" | awk '{print $2}' | sort | uniq -c | sort -rn | head -60 \
      > "$OUT/conform_fail_ops.txt"
    ;;
  bench)
    $B/bench/cuda/bench_cuda $B/plugins/libtabi_cuda.so > "$OUT/bench_tabi.jsonl" 2> "$OUT/bench_tabi.err"
    echo "bench rc=$?"; tail -3 "$OUT/bench_tabi.err"
    python3 bench/cuda/bench_torch.py "$OUT/bench_tabi.jsonl" > "$OUT/bench.md" 2>&1; cat "$OUT/bench.md"
    ;;
  *) echo "gpu_session.sh: unknown phase '$phase' (build, test, conform, bench)" >&2; exit 2 ;;
  esac
  echo "$phase: $(( $(date +%s) - T1 )) s"
done
echo "total: $(( $(date +%s) - T0 )) s"
