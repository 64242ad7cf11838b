#!/usr/bin/env bash
# tests/cli/cli_test.sh CASE TABI PLUGIN_DIR TEST_PLUGIN_DIR PYTHON HAVE_CONFORM
#
# Runs the `tabi` CLI the way a user would and checks what it prints. JSON is
# checked with the system python3 (json module); without one the JSON cases
# exit 77 (ctest: skipped) saying so.
set -uo pipefail
case_name=$1 tabi=$2 plugin_dir=$3 test_plugin_dir=$4 py=${5:-} have_conform=${6:-0}
fails=0 passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Discovery must see only what a case puts there (plus the install folder).
export TABI_PLUGIN_PATH=$tmp/empty
mkdir -p "$tmp/empty"

ok() { passes=$((passes + 1)); }
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
expect() { # expect DESCRIPTION COMMAND...: the command must succeed
  local what=$1; shift
  if "$@"; then ok; else bad "$what"; fi
}
need_python() {
  if [[ -z $py || ! -x $py ]]; then
    echo "skipped: no system python3 to parse JSON (apt-get install python3)"
    exit 77
  fi
}
# pycheck FILE 'python expression over j (the parsed JSON)' DESCRIPTION
pycheck() {
  local file=$1 expr=$2 what=$3
  if "$py" -c "import json,sys
j = json.load(open(sys.argv[1]))
ok = bool($expr)
sys.exit(0 if ok else 1)" "$file" 2>"$tmp/pyerr"; then ok; else bad "$what"; cat "$tmp/pyerr" >&2; fi
}
finish() {
  echo "$passes passed, $fails failed"
  [[ $fails == 0 ]]
  exit $?
}
need_plugin() {
  if [[ ! -f $1 ]]; then echo "skipped: $1 not built yet"; exit 77; fi
}

ref=$(realpath -m "$plugin_dir/libtabi_reference.so")
case $case_name in
help)
  out=$("$tabi" --help); expect "--help exits 0" test $? = 0
  expect "--help names the commands" grep -q 'plugins' <<<"$out"
  grep -q 'conform' <<<"$out" && ok || bad "--help names conform"
  "$tabi" >/dev/null 2>&1; expect "no command exits 2" test $? = 2
  "$tabi" frobnicate >/dev/null 2>&1; expect "unknown command exits 2" test $? = 2
  out=$("$tabi" --version); expect "--version exits 0" test $? = 0
  expect "--version says the ABI" grep -Eq '^tabi [0-9]+\.[0-9]+\.[0-9]+ \(plugin ABI [0-9]+\.[0-9]+\)$' <<<"$out"
  for cmd in plugins ops; do
    out=$("$tabi" $cmd --help); expect "$cmd --help exits 0" test $? = 0
    expect "$cmd --help shows usage" grep -q "usage: tabi $cmd" <<<"$out"
    expect "$cmd --help documents --json" grep -q -- '--json' <<<"$out"
    "$tabi" $cmd --bogus >/dev/null 2>&1; expect "$cmd --bogus exits 2" test $? = 2
  done
  out=$("$tabi" help ops); expect "help ops" grep -q "usage: tabi ops" <<<"$out"
  ;;
conform)
  if [[ $have_conform == 1 ]]; then
    "$tabi" conform --help >"$tmp/out" 2>&1; rc=$?
    expect "conform --help exits 0 (got $rc)" test $rc = 0
    expect "conform --help mentions --plugin" grep -q -- '--plugin' "$tmp/out"
  else
    "$tabi" conform --plugin x >"$tmp/out" 2>&1; rc=$?
    expect "conform without the suite exits 2 (got $rc)" test $rc = 2
    expect "conform says the suite was not built" grep -q 'not built' "$tmp/out"
  fi
  ;;
plugins)
  need_python
  need_plugin "$ref"
  printf 'not an ELF file\n' >"$tmp/libtabi_broken.so"
  mkdir -p "$tmp/found"
  ln -s "$ref" "$tmp/found/libtabi_reference.so"
  printf 'junk' >"$tmp/found/libtabi_junk.so"
  # Explicit plugins only: the reference loads, the broken one is listed with
  # its error, and the exit status says something failed.
  "$tabi" plugins --json --no-discover --plugin "$ref" --plugin "$tmp/libtabi_broken.so" \
    >"$tmp/p.json" 2>"$tmp/err"; rc=$?
  expect "a broken plugin makes the exit status 1 (got $rc)" test $rc = 1
  pycheck "$tmp/p.json" 'isinstance(j, list) and len(j) == 2' "plugins --json: an array of 2"
  pycheck "$tmp/p.json" '[p["name"] for p in j] == ["reference", "broken"]' "names, in order"
  pycheck "$tmp/p.json" 'all(k in j[0] for k in ("name","path","version","abi_version","kind","device","layer_priority","kernels","ops_registered","status"))' "plugin keys"
  pycheck "$tmp/p.json" 'j[0]["status"] == "ok" and j[0]["kind"] == "reference" and j[0]["device"] == "cpu"' "reference: ok, kind reference, device cpu"
  pycheck "$tmp/p.json" 'j[0]["kernels"] > 0 and j[0]["abi_version"].startswith("1.")' "reference: kernels and ABI 1.x"
  pycheck "$tmp/p.json" 'j[1]["status"] == "error" and "libtabi_broken.so" in j[1]["error"] and j[1]["error_status"].startswith("TABI_ERR_")' "broken: error naming the file"
  # Discovery through TABI_PLUGIN_PATH: both files found, the listing goes on past junk.
  TABI_PLUGIN_PATH=$tmp/found "$tabi" plugins --json >"$tmp/d.json" 2>"$tmp/err"; rc=$?
  expect "discovery with junk exits 1 (got $rc)" test $rc = 1
  pycheck "$tmp/d.json" 'any(p["name"] == "reference" and p["status"] == "ok" for p in j)' "discovered the reference"
  pycheck "$tmp/d.json" 'any(p["name"] == "junk" and p["status"] == "error" for p in j)' "listed the junk with its error"
  # Text output: a row per plugin and the error line.
  "$tabi" plugins --no-discover --plugin "$ref" --plugin "$tmp/libtabi_broken.so" >"$tmp/p.txt" 2>&1
  expect "text: a reference row" grep -Eq '^reference +reference +cpu' "$tmp/p.txt"
  expect "text: the error line" grep -q 'TABI_ERR_' "$tmp/p.txt"
  # A name that is nowhere: an error, exit 1.
  "$tabi" plugins --no-discover --plugin no_such_plugin_xyz >/dev/null 2>"$tmp/err"; rc=$?
  expect "an unknown name exits 1" test $rc = 1
  expect "an unknown name is named" grep -q no_such_plugin_xyz "$tmp/err"
  ;;
ops)
  need_python
  need_plugin "$ref"
  "$tabi" ops --json --no-discover --plugin "$ref" >"$tmp/o.json" 2>"$tmp/err"; rc=$?
  expect "ops --json exits 0 (got $rc)" test $rc = 0
  cat "$tmp/err" >&2
  pycheck "$tmp/o.json" 'isinstance(j, list) and len(j) >= 300' "at least the 300 builtin ops"
  pycheck "$tmp/o.json" 'all(set(("name","schema","set","backends")) <= set(o) for o in j)' "op keys"
  pycheck "$tmp/o.json" 'all(o["schema"].startswith(o["name"] + "(") for o in j)' "schema starts with the name"
  pycheck "$tmp/o.json" 'sum(o["set"] == "aten" for o in j) == 188 and sum(o["set"] == "prims" for o in j) == 112' "188 aten, 112 prims"
  pycheck "$tmp/o.json" 'all(list(o["backends"]) == ["reference"] for o in j)' "one backend: reference"
  pycheck "$tmp/o.json" 'all(v in ("native","decomposed","missing") for o in j for v in o["backends"].values())' "statuses are native/decomposed/missing"
  pycheck "$tmp/o.json" '[o for o in j if o["name"] == "aten::add.Tensor"][0]["schema"] == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"' "aten::add.Tensor schema"
  pycheck "$tmp/o.json" 'sum(o["backends"]["reference"] == "native" for o in j) > 0' "the reference has native kernels"
  "$tabi" ops --json --no-discover --plugin "$ref" --set prims >"$tmp/p.json"
  pycheck "$tmp/p.json" 'len(j) == 112 and all(o["set"] == "prims" for o in j)' "--set prims"
  "$tabi" ops --no-discover --plugin "$ref" >"$tmp/o.txt"
  expect "text: a summary per backend" grep -Eq '^  reference .*native, [0-9]+ decomposed, [0-9]+ missing' "$tmp/o.txt"
  # Decompositions: a prims-only backend next to the decomp library gets aten
  # ops as decomposed, never native.
  prims=$test_plugin_dir/libtabi_reference_prims.so decomp=$plugin_dir/libtabi_decomp.so
  if [[ -f $prims && -f $decomp ]]; then
    "$tabi" ops --json --no-discover --no-reference --plugin "$decomp" --plugin "$prims" >"$tmp/dp.json"
    pycheck "$tmp/dp.json" 'all(list(o["backends"]) == ["reference_prims"] for o in j)' "one backend: reference_prims"
    pycheck "$tmp/dp.json" 'not any(o["backends"]["reference_prims"] == "native" for o in j if o["set"] == "aten")' "prims-only: no aten op native"
    pycheck "$tmp/dp.json" 'any(o["backends"]["reference_prims"] == "decomposed" for o in j if o["set"] == "aten")' "prims-only: aten ops decomposed"
    # Two backends claiming kDLCPU each get their own runtime and column.
    "$tabi" ops --json --no-discover --plugin "$decomp" --plugin "$prims" >"$tmp/two.json"
    pycheck "$tmp/two.json" 'all(sorted(o["backends"]) == ["reference", "reference_prims"] for o in j)' "two CPU backends side by side"
  else
    echo "note: decomp or reference_prims not built: decomposition checks not run"
  fi
  ;;
*)
  echo "unknown case $case_name" >&2; exit 2 ;;
esac
finish
