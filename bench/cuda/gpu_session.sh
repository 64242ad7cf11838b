#!/bin/bash
# bench/cuda/gpu_session.sh OUT [PHASE...]: a session on a lent GPU machine.
#
# Builds the CUDA plugin and what it needs, times the benchmarks side by side
# with PyTorch, runs `tabi conform --plugin cuda` (JSON report), then the CUDA
# tests and random calls, then (with what time is left) checks and profiles
# the kernels with NVIDIA's tools, all inside one time budget, and leaves at
# most six files in OUT: summary.txt (what this script printed), bench.md
# (the table for bench/RESULTS.md), bench_tabi.jsonl, conform.json,
# profile.md (ncu's figures a kernel) and logs.tar.gz (every other log). The lent machine runs one command for at most 10 minutes, gives
# a session 15 minutes of device time in all, and sends back at most 8 files,
# which is why the order puts the figures issue 7 asks for first and why the
# logs travel as one archive.
#
# PHASE: any of build, bench, conform, test, profile (default: all five, in
# that order). profile runs compute-sanitizer (memcheck, racecheck,
# synccheck) over bench_cuda's small sizes, every benchmarked kernel at
# least once, on the device (what gpusim cannot show: races between the
# threads of a warp or between blocks, real shared-memory hazards), then
# Nsight Compute over the rows in GPU_PROFILE_ROWS, one call each
# (profile.md: time, DRAM bytes and throughput, SM throughput, occupancy,
# registers a kernel). Either tool may be missing or refused (they read no
# counters under gVisor, the device notes say): the phase says so and ends. Separate calls made back to back work too while the machine stays
# warm (its build-gpu/ survives): `... OUT build bench`, then `... OUT conform`.
#   prepare   run HERE, before the first call: writes build-dlpack/ (the
#             device machine has no libdlpack-dev) and prints the call to make.
#
# Environment:
#   GPU_SESSION_BUDGET  seconds for the whole call (default 560: a run's
#                       timeout_s of 600 less the archive and the transfers)
#   GPU_ARCH            CMAKE_CUDA_ARCHITECTURES (default: the GPU's own
#                       compute capability from nvidia-smi, else 90); one
#                       architecture halves the build of the default 80;90
#   GPU_SESSION_BUILD_LIMIT  seconds the build may take at most (default 420;
#                       a rehearsal on a 2-core machine needs more)
#   GPU_SESSION_BUILD   an already-built tree to use instead of build-gpu/
#                       (the build phase is then skipped; ctest gpu_session_dry
#                       runs the script this way on a machine without a GPU)
#   DLPACK_INCLUDE_DIR  where dlpack/dlpack.h is (default build-dlpack/)
#   GPU_PROFILE_ROWS    bench_cuda rows for ncu (BENCH_CUDA_ONLY's form: parts
#                       of names, comma-separated; default: the rows behind
#                       torch on the last GPU run)
set -u
OUT=${1:-out}
shift || true
PHASES=${*:-build bench conform test profile}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2

if [[ $PHASES == prepare ]]; then
  src=${DLPACK_INCLUDE_DIR:-/usr/include}/dlpack/dlpack.h
  [[ -r $src ]] || { echo "gpu_session.sh prepare: no $src (apt-get install libdlpack-dev)" >&2; exit 1; }
  mkdir -p build-dlpack/dlpack && cp "$src" build-dlpack/dlpack/
  echo "build-dlpack/dlpack/dlpack.h ready (build-dlpack/ is ignored by git: carry it)."
  echo "run: command \"bash bench/cuda/gpu_session.sh \$OUT\", carry [\"build-dlpack\"], timeout_s 600"
  exit 0
fi

mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
LOGS=$OUT/logs
mkdir -p "$LOGS"
B=${GPU_SESSION_BUILD:-$root/build-gpu}
DL=${DLPACK_INCLUDE_DIR:-$root/build-dlpack}
BUDGET=${GPU_SESSION_BUDGET:-560}
T0=$(date +%s)
DEADLINE=$((T0 + BUDGET))
export TABI_PLUGIN_PATH=$B/plugins
export PYTHONUNBUFFERED=1

# Everything printed also goes to summary.txt; the logs go into one archive at
# exit, whatever stopped the script.
exec > >(tee -a "$OUT/summary.txt") 2>&1
pack() {
  tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs 2>/dev/null && rm -rf "$LOGS"
  sleep 0.2 # let tee flush summary.txt
}
trap pack EXIT

left() { echo $((DEADLINE - $(date +%s))); }
# cap N [RESERVE]: N seconds, or less so that RESERVE seconds stay for the
# phases after this one; at least 1.
cap() {
  local n=$1 r=${2:-0} l
  l=$(($(left) - r))
  ((l < n)) && n=$l
  ((n < 1)) && n=1
  echo "$n"
}
# run NAME LIMIT CMD...: CMD under timeout, its output in logs/NAME.log; says
# how it ended (124: stopped at its limit).
run() {
  local name=$1 lim=$2 rc
  shift 2
  timeout --kill-after=5 "$lim" "$@" > "$LOGS/$name.log" 2>&1
  rc=$?
  echo "$name: rc=$rc$( ((rc == 124 || rc == 137)) && echo " (stopped at its ${lim} s limit)")"
  return $rc
}

# The lent machine's copy may carry an older .git than its files (three runs
# of 2026-11-30 all printed the session's first commit): say how many tracked
# files differ from that commit, so a figure is never pinned to the wrong code.
changed=$(git status --porcelain --untracked-files=no 2>/dev/null | wc -l)
echo "gpu_session: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "(tracked files differing from it: ${changed}), budget ${BUDGET} s, phases: $PHASES"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>&1 |
    sed 's/^/gpu: /'
else
  echo "gpu: none (no nvidia-smi)"
fi
# 1 (always grant) lets a host-built 9.9 TB factory run until memory is gone
# (docs/cuda.md, "Conformance on an H200")
echo "host: $(nproc) cores, vm.overcommit_memory $(cat /proc/sys/vm/overcommit_memory 2>/dev/null || echo '?')"

for phase in $PHASES; do
  T1=$(date +%s)
  echo
  echo "== $phase ($(left) s left)"
  case $phase in
  build)
    if [[ -n ${GPU_SESSION_BUILD:-} ]]; then
      echo "build: using $B (GPU_SESSION_BUILD)"
      continue
    fi
    if [[ ! -r $DL/dlpack/dlpack.h ]]; then
      echo "build: no $DL/dlpack/dlpack.h: run 'bash bench/cuda/gpu_session.sh OUT prepare' on the" \
        "development machine and carry build-dlpack"
      exit 1
    fi
    arch=${GPU_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
      head -1 | tr -d ' .')}
    [[ $arch =~ ^[0-9]+$ ]] || arch=90
    conf=(-S . -B "$B" -DTABI_WITH_ONEDNN=OFF -DTABI_WITH_ROCM=OFF -DTABI_WITH_CUDA=ON
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" -DDLPACK_INCLUDE_DIR="$DL")
    run cmake "$(cap 120)" cmake "${conf[@]}" || { tail -30 "$LOGS/cmake.log"; exit 1; }
    # cuDNN: the toolkit's, else the pip wheel beside PyTorch, which has only
    # libcudnn.so.9, so find_library cannot see it: name it.
    if grep -q "cuDNN not found" "$LOGS/cmake.log"; then
      wd=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)
      lib=$(ls "$wd"/lib/libcudnn.so* 2>/dev/null | head -1)
      if [[ -n $wd && -r $wd/include/cudnn.h && -n $lib ]]; then
        run cmake_cudnn "$(cap 120)" cmake "${conf[@]}" -DTABI_CUDNN_INCLUDE_DIR="$wd/include" \
          -DTABI_CUDNN_LIBRARY="$lib" || { tail -30 "$LOGS/cmake_cudnn.log"; exit 1; }
        cat "$LOGS/cmake_cudnn.log" >> "$LOGS/cmake.log"
      fi
    fi
    grep -E "^-- tabi: (CUDA|cuda)" "$LOGS/cmake.log"
    # leave at least 4 minutes for the figures and conformance
    run build "$(cap "${GPU_SESSION_BUILD_LIMIT:-420}" 240)" cmake --build "$B" -j"$(nproc)" --target tabi_plugin_cuda \
      tabi_plugin_reference tabi_plugin_decomp tabi_cli test_cuda_load test_cuda_ops random_calls \
      bench_cuda || { grep -E "error|Error" "$LOGS/build.log" | head -40; exit 1; }
    ;;
  bench)
    # the figures of issue 7 first: about a minute each side
    run bench_cuda "$(cap 180 150)" "$B/bench/cuda/bench_cuda" "$B/plugins/libtabi_cuda.so" ||
      tail -5 "$LOGS/bench_cuda.log"
    grep -h '^{' "$LOGS/bench_cuda.log" > "$OUT/bench_tabi.jsonl"
    run bench_torch "$(cap 180 120)" python3 bench/cuda/bench_torch.py "$OUT/bench_tabi.jsonl"
    cp "$LOGS/bench_torch.log" "$OUT/bench.md"
    cat "$OUT/bench.md"
    ;;
  conform)
    # --budget: conform stops itself in time and still writes its report
    # (the groups it could not run are listed as skipped, kind "budget");
    # timeout is only the backstop
    lim=$(cap 300 30)
    cb=$((lim - 15))
    ((cb < 5)) && cb=5
    run conform "$lim" "$B/tools/tabi" conform --plugin cuda --jobs "$(nproc)" \
      --timeout 150 --budget "$cb" --json "$OUT/conform.json"
    tail -3 "$LOGS/conform.log"
    echo "failing cases by op (most first):"
    grep -E "^FAIL" "$LOGS/conform.log" | awk '{print $2}' | sort | uniq -c | sort -rn | head -40
    ;;
  test)
    run test_cuda_load "$(cap 60)" "$B/tests/cuda/test_cuda_load" "$B/plugins/libtabi_cuda.so" \
      abi/ops/prims.schema abi/ops/core_aten.schema "$B/plugins/libtabi_decomp.so"
    tail -3 "$LOGS/test_cuda_load.log"
    run test_cuda_ops "$(cap 240 20)" "$B/tests/cuda/test_cuda_ops" "$B/plugins/libtabi_cuda.so" \
      "$B/plugins/libtabi_reference.so"
    tail -25 "$LOGS/test_cuda_ops.log"
    # every op with random, mostly bad, arguments (tests/robust): errors, no crash or hang
    run random_calls "$(cap 120)" "$B/tests/robust/random_calls" \
      "$B/plugins/libtabi_cuda.so,$B/plugins/libtabi_decomp.so" --calls 20 --seed 3
    tail -5 "$LOGS/random_calls.log"
    ;;
  profile)
    tool() { command -v "$1" || ls /usr/local/cuda/bin/"$1" /opt/nvidia/nsight-compute/*/"$1" 2> /dev/null | head -1; }
    cs=$(tool compute-sanitizer)
    if [[ -z $cs ]]; then
      echo "profile: no compute-sanitizer"
    else
      for t in memcheck racecheck synccheck; do
        # --error-exitcode: a finding is rc 86, not a quiet log line
        run "sanitizer_$t" "$(cap 90 60)" "$cs" --tool "$t" --error-exitcode 86 --print-limit 30 \
          "$B/bench/cuda/bench_cuda" "$B/plugins/libtabi_cuda.so" 2 smoke
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error:|not supported|error 999" "$LOGS/sanitizer_$t.log" | head -8
      done
    fi
    ncu=$(tool ncu)
    if [[ -z $ncu ]]; then
      echo "profile: no ncu"
    else
      rows=${GPU_PROFILE_ROWS:-index_select,sort,randperm,cumsum,dropout,argmax,layer_norm_backward,cat_,gelu,relu_f16}
      echo "profile: ncu over rows $rows, one call each"
      # --clock-control none: measure the card as it runs (the device notes)
      run ncu "$(cap 200 10)" env BENCH_CUDA_ONLY="$rows" BENCH_CUDA_ITERS=1 "$ncu" --clock-control none \
        --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,\
dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,\
launch__registers_per_thread "$B/bench/cuda/bench_cuda" "$B/plugins/libtabi_cuda.so"
      if python3 bench/cuda/ncu_summary.py "$LOGS/ncu.log" "$OUT/profile.md" > "$LOGS/ncu_summary.log" 2>&1; then
        head -30 "$LOGS/ncu_summary.log"
      else
        cat "$LOGS/ncu_summary.log"
        grep -E "==ERROR==|==WARNING==" "$LOGS/ncu.log" | head -5
      fi
    fi
    ;;
  *)
    echo "gpu_session.sh: unknown phase '$phase' (prepare, build, bench, conform, test, profile)"
    exit 2
    ;;
  esac
  echo "$phase: $(($(date +%s) - T1)) s"
done
echo
echo "total: $(($(date +%s) - T0)) s"
