#!/bin/bash
# bench/cuda/gpu_session_dry.sh BUILD_DIR OUT: ctest gpu_session_dry. Runs
# gpu_session.sh's bench, conform and test phases over an existing build on a
# machine that may have no GPU, and checks what a lent GPU machine would send
# back: at most 8 plain files in OUT (the device tool's limit), the logs in one
# archive, every phase reported in summary.txt. A mistake in the script would
# otherwise first show in a scarce GPU session, costing its device time.
set -u
B=$1 OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$OUT"
fail() { echo "gpu_session_dry: $*"; [[ -r $OUT/summary.txt ]] && cat "$OUT/summary.txt"; exit 1; }

GPU_SESSION_BUILD=$B GPU_SESSION_BUDGET=${GPU_SESSION_DRY_BUDGET:-300} \
  bash "$here/gpu_session.sh" "$OUT" build bench conform test > /dev/null 2>&1
rc=$?
((rc == 0)) || fail "gpu_session.sh exited $rc"
[[ -s $OUT/summary.txt ]] || fail "no summary.txt"

n=0
for f in "$OUT"/* "$OUT"/.[!.]*; do
  [[ -e $f ]] || continue
  [[ -f $f && ! -L $f ]] || fail "$(basename "$f") is not a plain file (the device tool sends back only files)"
  n=$((n + 1))
done
((n <= 8)) || fail "$n files in OUT; the device tool sends back at most 8"

logs=$(tar -tzf "$OUT/logs.tar.gz" 2>/dev/null) || fail "logs.tar.gz missing or unreadable"
for l in bench_cuda conform test_cuda_load test_cuda_ops random_calls; do
  grep -qx "logs/$l.log" <<< "$logs" || fail "logs.tar.gz lacks logs/$l.log"
  grep -q "^$l: rc=" "$OUT/summary.txt" || fail "summary.txt does not say how $l ended"
done
for p in build bench conform test; do
  grep -q "^== $p (" "$OUT/summary.txt" || fail "summary.txt lacks phase $p"
done
grep -q "^total: [0-9]* s$" "$OUT/summary.txt" || fail "summary.txt has no total line"
echo "gpu_session_dry: ok ($n files: $(cd "$OUT" && echo *))"
