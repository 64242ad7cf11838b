#!/usr/bin/env bash
# tools/abi_check.sh LIBTABI [--update] [--baseline FILE]
#
# Compares libtabi's ABI with the stored baseline (abi/libtabi.abi) using
# libabigail (Debian: abigail-tools). See docs/abi-policy.md.
#   exit 0   no change, or only compatible changes (additions; report printed)
#   exit 1   an incompatible change (removed or changed function, struct layout
#            changed in place), or abidiff failed
#   exit 77  cannot check here: no abidw/abidiff, or no baseline yet
# --update writes the baseline from LIBTABI instead (commit it with a message
# saying why the change is allowed).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-}
shift || true
baseline=$root/abi/libtabi.abi
update=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --update) update=1 ;;
    --baseline) baseline=$2; shift ;;
    *) echo "abi_check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $lib || ! -f $lib ]]; then
  echo "usage: tools/abi_check.sh path/to/libtabi.so [--update] [--baseline FILE]" >&2
  exit 2
fi
if ! command -v abidw >/dev/null || ! command -v abidiff >/dev/null; then
  echo "skipped: abidw/abidiff not installed (apt-get install abigail-tools)"
  exit 77
fi
# Stable output: no absolute paths or line numbers that differ between checkouts.
# Source paths are made relative (dispatcher/src/x.c; generated files BUILD/...)
# so the baseline does not depend on where the checkout or the build lives.
dump() {
  abidw --no-corpus-path --no-comp-dir-path --no-show-locs "$1" |
    sed -e "s#path='[^']*/\(dispatcher/src/[^']*\)'#path='\1'#g" \
        -e "s#path='[^']*/\(dispatcher/builtin_ops\.c\|tools/generated/ops\.c\)'#path='BUILD/\1'#g"
}
if [[ $update == 1 ]]; then
  dump "$lib" >"$baseline.tmp" && mv "$baseline.tmp" "$baseline" || exit 1
  echo "abi_check: wrote $baseline"
  exit 0
fi
if [[ ! -f $baseline ]]; then
  echo "skipped: no baseline $baseline yet (tools/abi_check.sh $lib --update)"
  exit 77
fi
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.out"' EXIT
dump "$lib" >"$tmp" || { echo "abi_check: abidw failed on $lib"; exit 1; }
abidiff --no-show-locs "$baseline" "$tmp" >"$tmp.out" 2>&1
rc=$?
cat "$tmp.out"
# A baseline that does not parse can still give status 0: never pass on it.
if grep -q 'parser error' "$tmp.out"; then
  echo "abi_check: $baseline does not parse"
  rm -f "$tmp.out"
  exit 1
fi
rm -f "$tmp.out"
# abidiff's status is a bit set: 1 error, 2 usage, 4 ABI change, 8 incompatible.
if (( rc & 3 )); then
  echo "abi_check: abidiff failed (status $rc)"
  exit 1
elif (( rc & 8 )); then
  echo "abi_check: INCOMPATIBLE ABI change against $baseline (see docs/abi-policy.md);"
  echo "           if intended (a major bump), run: tools/abi_check.sh $lib --update"
  exit 1
elif (( rc & 4 )); then
  echo "abi_check: compatible ABI changes (additions); update the baseline when releasing:"
  echo "           tools/abi_check.sh $lib --update"
  exit 0
fi
echo "abi_check: libtabi's ABI matches $baseline"
exit 0
