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
  bash "$here/gpu_session.sh" "$OUT" build bench conform test profile > /dev/null 2>&1
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
for p in build bench conform test profile; do
  grep -q "^== $p (" "$OUT/summary.txt" || fail "summary.txt lacks phase $p"
done
# profile: each NVIDIA tool either ran (its log in the archive) or is reported missing
for t in compute-sanitizer:sanitizer_memcheck ncu:ncu; do
  grep -q "^profile: no ${t%%:*}$" "$OUT/summary.txt" || grep -qx "logs/${t#*:}.log" <<< "$logs" ||
    fail "profile neither ran ${t%%:*} nor said it is missing"
done
grep -q "^total: [0-9]* s$" "$OUT/summary.txt" || fail "summary.txt has no total line"

# the profile phase again, with stand-ins for the two tools on PATH: the
# sanitizer's three runs, ncu's CSV (the fixture, once the stand-in has seen
# bench_cuda's row filter) summarized into profile.md
fake=$OUT.tools
rm -rf "$fake" && mkdir -p "$fake"
printf '#!/bin/sh\necho "========= ERROR SUMMARY: 0 errors"\n' > "$fake/compute-sanitizer"
printf '#!/bin/sh\n[ -n "$BENCH_CUDA_ONLY" ] && [ "$BENCH_CUDA_ITERS" = 1 ] || exit 3\ncat "%s"\n' \
  "$here/ncu_fixture.csv" > "$fake/ncu"
chmod +x "$fake/compute-sanitizer" "$fake/ncu"
P=$OUT.profile
rm -rf "$P"
PATH=$fake:$PATH GPU_SESSION_BUILD=$B GPU_SESSION_BUDGET=120 bash "$here/gpu_session.sh" "$P" profile > /dev/null 2>&1 ||
  fail "gpu_session.sh profile exited $? with the stand-in tools"
plogs=$(tar -tzf "$P/logs.tar.gz" 2>/dev/null) || fail "profile: logs.tar.gz missing"
for l in sanitizer_memcheck sanitizer_racecheck sanitizer_synccheck ncu; do
  grep -qx "logs/$l.log" <<< "$plogs" || fail "profile: logs.tar.gz lacks logs/$l.log"
  grep -q "^$l: rc=0" "$P/summary.txt" || fail "profile: $l did not end with rc=0"
done
grep -q "rx_move_kernel\` | 2 | 100.0" "$P/profile.md" 2> /dev/null || fail "profile: no profile.md with the fixture's kernels"
rm -rf "$fake"
echo "gpu_session_dry: ok ($n files: $(cd "$OUT" && echo *))"
