#!/usr/bin/env bash
# tools/run.sh: README's two commands.
#
#   ./tools/run.sh main   install deps, build every plugin this machine can build,
#                         run `tabi conform` on each, print the coverage matrix
#   ./tools/run.sh test   install deps, build (normal, ASan/UBSan, TSan), run every test
#   ./tools/run.sh deps   only install the Debian packages
#
# Runs on a fresh Debian 12 as root (CI) or as a user with sudo. Packages are
# installed only when one is missing, so a rerun goes straight to the build.
# Environment: TABI_JOBS (parallel jobs, default: the number of cores),
# TABI_SKIP_DEPS=1 (never touch apt), TABI_BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mode=${1:-}
jobs=${TABI_JOBS:-$(nproc 2>/dev/null || echo 2)}
build=${TABI_BUILD_DIR:-$root/build}
asan_build=$root/build-asan
tsan_build=$root/build-tsan

say() { printf '\n== %s\n' "$*"; }
now() { date +%s; }

# --- Debian packages ------------------------------------------------------------
# Every package any part of tabi uses. Optional ones (the ROCm toolchain) are
# installed when the archive has them; CUDA comes from /usr/local/cuda if present.
required_pkgs=(build-essential cmake python3 libdlpack-dev libdnnl-dev libopenblas-dev
               python3-torch python3-numpy valgrind clang libclang-rt-14-dev pkg-config
               abigail-tools)
optional_pkgs=(hipcc libamdhip64-dev)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

deps() {
  if [[ ${TABI_SKIP_DEPS:-0} == 1 ]]; then return; fi
  if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
    echo "tools/run.sh: not a Debian system: install by hand: ${required_pkgs[*]}" >&2
    return
  fi
  local missing=() p stamp=/var/tmp/tabi-optional-pkgs-checked
  for p in "${required_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  # The optional ones are looked for once per machine (the stamp), so a rerun on a
  # machine whose archive lacks them does not run apt-get update every time.
  local want_optional=0
  for p in "${optional_pkgs[@]}"; do installed "$p" || want_optional=1; done
  [[ -e $stamp ]] && want_optional=0
  if [[ ${#missing[@]} == 0 && $want_optional == 0 ]]; then
    echo "tools/run.sh: Debian packages present"
    return
  fi
  local sudo=()
  if [[ $(id -u) != 0 ]]; then sudo=(sudo); fi
  say "installing Debian packages: ${missing[*]:-} (optional: ${optional_pkgs[*]})"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  for p in "${optional_pkgs[@]}"; do
    if ! installed "$p" && apt-cache show "$p" >/dev/null 2>&1; then missing+=("$p"); fi
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  "${sudo[@]}" touch "$stamp" 2>/dev/null || true
}

configure_build() { # DIR CMAKE_ARGS...
  local dir=$1; shift
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
  cmake --build "$dir" -j"$jobs"
}

# --- main: conformance of every plugin built ------------------------------------
run_main() {
  local t0; t0=$(now)
  deps
  say "configure + build ($build)"
  configure_build "$build"
  local tabi=$build/tools/tabi reports=$build/conform plugins=() p
  if [[ ! -x $tabi ]]; then
    echo "tools/run.sh: $tabi was not built (libtabi missing?)" >&2
    exit 1
  fi
  mkdir -p "$reports"
  # conform finds the oracle ("reference") and the decompositions ("decomp") by
  # name: from this build, before anything installed.
  export TABI_PLUGIN_PATH=$build/plugins${TABI_PLUGIN_PATH:+:$TABI_PLUGIN_PATH}
  shopt -s nullglob
  plugins=("$build"/plugins/libtabi_*.so)
  shopt -u nullglob
  if [[ ${#plugins[@]} == 0 ]]; then
    echo "tools/run.sh: no plugins were built in $build/plugins" >&2
    exit 1
  fi
  say "plugins"
  local listed=()
  for p in "${plugins[@]}"; do listed+=(--plugin "$p"); done
  "$tabi" plugins --no-discover "${listed[@]}" || true
  local failed=0 name rc summary=()
  for p in "${plugins[@]}"; do
    name=$(basename "$p" .so); name=${name#libtabi_}
    say "tabi conform --plugin $p"
    rc=0
    "$tabi" conform --plugin "$p" --json "$reports/$name.json" --junit "$reports/$name.xml" \
      --matrix "$reports/$name.md" || rc=$?
    case $rc in
      0) summary+=("$name: ok") ;;
      1) summary+=("$name: FAILED"); failed=1 ;;
      *) summary+=("$name: could not run (exit $rc)"); failed=1 ;;
    esac
  done
  say "coverage matrices"
  for p in "${plugins[@]}"; do
    name=$(basename "$p" .so); name=${name#libtabi_}
    echo
    echo "### $name"
    if [[ -s $reports/$name.md ]]; then cat "$reports/$name.md"; else echo "(no matrix written)"; fi
  done
  say "summary (reports in $reports: <plugin>.json, .xml, .md)"
  for p in "${summary[@]}"; do
    name=${p%%:*}
    local line=""
    if [[ -s $reports/$name.json ]] && command -v python3 >/dev/null; then
      line=$(python3 -c 'import json,sys
s = json.load(open(sys.argv[1])).get("summary", {})
print("%s passed, %s failed, %s skipped" % (s.get("passed"), s.get("failed"), s.get("skipped")))' \
        "$reports/$name.json" 2>/dev/null || true)
    fi
    printf '  %-40s %s\n' "$p" "$line"
  done
  echo "main: $(( $(now) - t0 )) s"
  return $failed
}

# --- test: normal and ASan/UBSan builds, the whole suite in each ----------------
run_test() {
  local t0 t1 t2 t3 failed=(); t0=$(now)
  deps
  say "normal build ($build)"
  configure_build "$build"
  say "ctest ($build)"
  # A failing suite does not stop the sanitizer run: CI shows both.
  (cd "$build" && ctest --output-on-failure -j"$jobs" --timeout 900) || failed+=("ctest in $build")
  t1=$(now)
  say "ASan+UBSan build ($asan_build)"
  # GPU plugins are not sanitized (their toolchains take no -fsanitize) and the
  # benchmarks are not tests. oneDNN is left out too: LeakSanitizer's tracer
  # crashes at exit beside its OpenMP worker threads, and without it the CPU
  # plugin's own GEMM, which is ours to check, runs under the sanitizers.
  configure_build "$asan_build" -DTABI_SANITIZE=ON -DTABI_BUILD_BENCH=OFF \
    -DTABI_WITH_CUDA=OFF -DTABI_WITH_ROCM=OFF -DTABI_WITH_ONEDNN=OFF
  say "ctest ($asan_build, without the tests labelled slow)"
  # allocator_may_return_null: the random calls of `tabi conform` ask for
  # terabytes now and then; tabi must refuse that as it does without ASan
  # (out of memory), not have ASan stop the process.
  (cd "$asan_build" &&
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:allocator_may_return_null=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --output-on-failure -j"$jobs" -LE slow --timeout 900) || failed+=("ctest in $asan_build")
  t2=$(now)
  say "ThreadSanitizer build ($tsan_build): the tests labelled threads"
  # Races do not show under ASan, and a threaded test that passes may still
  # race: TSan reports an unordered access whether or not the threads met in
  # time. Only what those tests need is built (tsan_tests); no oneDNN, whose
  # OpenMP runtime TSan cannot see into.
  cmake -S "$root" -B "$tsan_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTABI_TSAN=ON \
    -DTABI_BUILD_BENCH=OFF -DTABI_WITH_CUDA=OFF -DTABI_WITH_ROCM=OFF -DTABI_WITH_ONEDNN=OFF
  cmake --build "$tsan_build" -j"$jobs" --target tsan_tests
  (cd "$tsan_build" &&
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1} \
    ctest --output-on-failure -j"$jobs" -L threads --timeout 1800) || failed+=("ctest in $tsan_build")
  t3=$(now)
  say "times: normal $(( t1 - t0 )) s, ASan+UBSan $(( t2 - t1 )) s, TSan $(( t3 - t2 )) s, total $(( t3 - t0 )) s"
  if [[ ${#failed[@]} -gt 0 ]]; then
    printf 'FAILED: %s\n' "${failed[@]}"
    return 1
  fi
  echo "all tests passed"
}

case $mode in
  main) run_main ;;
  test) run_test ;;
  deps) deps ;;
  *)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2 ;;
esac
