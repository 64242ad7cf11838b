#!/usr/bin/env bash
# tests/cli/install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR CMAKE CC
#
# Installs the build to a temporary prefix and uses it from outside, as a vendor
# or a framework author would: the files are where the docs say, libtabi has a
# SONAME, find_package(tabi) builds a plugin (tabi_add_plugin) and a framework
# program, pkg-config builds one too, and the installed `tabi` finds its plugins
# after relocation.
set -uo pipefail
build=$1 src=$2 work=$3 cmake=$4 cc=$5
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
expect() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
if ! "$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log" >&2
  echo "FAIL: cmake --install"; exit 1
fi
libdir=$(cd "$prefix" && ls -d lib lib64 lib/*-linux-gnu 2>/dev/null | while read -r d; do
  [[ -e $prefix/$d/libtabi.so ]] && echo "$d"; done | head -1)
expect "libtabi.so installed" test -n "$libdir"
libdir=${libdir:-lib}
for f in include/tabi/tabi.h include/tabi/runtime.h include/tabi/ops.h include/tabi/plugin.h \
         bin/tabi "$libdir/cmake/tabi/tabiConfig.cmake" "$libdir/cmake/tabi/tabiTargets.cmake" \
         "$libdir/pkgconfig/tabi.pc" "$libdir/pkgconfig/tabi-abi.pc" \
         share/tabi/ops/core_aten.schema share/tabi/ops/prims.schema; do
  expect "installed: $f" test -e "$prefix/$f"
done
expect "plugins in $libdir/tabi/plugins" test -e "$prefix/$libdir/tabi/plugins/libtabi_reference.so"
soname=$(readelf -d "$prefix/$libdir/libtabi.so" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')
expect "libtabi has a versioned SONAME (got '$soname')" grep -Eq '^libtabi\.so\.[0-9]+$' <<<"$soname"
expect "the SONAME file exists" test -e "$prefix/$libdir/$soname"

# The installed CLI, relocated: finds the reference by name beside itself.
export TABI_PLUGIN_PATH=$work/none
"$prefix/bin/tabi" --version >"$work/v.txt" 2>&1
expect "installed tabi runs" grep -q '^tabi ' "$work/v.txt"
"$prefix/bin/tabi" ops --no-discover >"$work/ops.txt" 2>&1
expect "installed tabi ops finds the reference by name" grep -Eq '^  reference ' "$work/ops.txt"

# find_package(tabi): a plugin and a framework program, out of tree.
cfg=$work/consumer
if "$cmake" -S "$src/tests/cli/sdk-consumer" -B "$cfg" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_C_COMPILER="$cc" -DTABI_EXAMPLE_DIR="$src/examples/framework-hello" \
     -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 &&
   "$cmake" --build "$cfg" >"$work/build.log" 2>&1; then
  ok
  expect "the example runs against the installed SDK" \
    bash -c "'$cfg/hello' '$prefix/$libdir/tabi/plugins/libtabi_reference.so' | grep -q 'framework-hello: ok'"
  expect "the headers work from C++" "$cfg/headers_cxx"
  expect "TABI_PLUGIN_INSTALL_DIR is the installed plugin folder" \
    grep -qx "TABI_PLUGIN_INSTALL_DIR=$prefix/$libdir/tabi/plugins" "$cfg/tabi_vars.txt"
  plugin=$cfg/libtabi_sdktest.so
  expect "tabi_add_plugin made libtabi_sdktest.so" test -f "$plugin"
  expect "the plugin does not link libtabi" bash -c "! readelf -d '$plugin' | grep -q 'libtabi\\.so'"
  "$prefix/bin/tabi" plugins --no-discover --plugin "$plugin" >"$work/p.txt" 2>&1
  expect "tabi plugins loads the out-of-tree plugin" grep -Eq '^sdktest +library' "$work/p.txt"
  "$prefix/bin/tabi" ops --no-discover --plugin "$plugin" --set sdktest >"$work/o.txt" 2>&1
  expect "its op is listed and decomposed on the reference" \
    grep -Eq '^sdktest +decomposed +sdktest::twice\(Tensor self\) -> Tensor' "$work/o.txt"
else
  bad "configure/build of tests/cli/sdk-consumer against the installed SDK"
  tail -30 "$work/configure.log" "$work/build.log" >&2
fi

# pkg-config: tabi.pc builds and links the example.
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
  flags=$(pkg-config --cflags --libs tabi)
  # shellcheck disable=SC2086
  if "$cc" -std=c11 "$src/examples/framework-hello/hello.c" $flags -o "$work/hello_pc" 2>"$work/pc.log"; then
    ok
    LD_LIBRARY_PATH=$prefix/$libdir "$work/hello_pc" "$prefix/$libdir/tabi/plugins/libtabi_reference.so" >"$work/pc.txt" 2>&1
    expect "the pkg-config build runs" grep -q 'framework-hello: ok' "$work/pc.txt"
  else
    bad "pkg-config build: $(cat "$work/pc.log")"
  fi
  expect "tabi-abi.pc has no -ltabi" bash -c "! pkg-config --libs tabi-abi | grep -q ltabi"
  # plugin_cflags: the build's answer to the float-rounding probe, and enough
  # for the probe (installed beside the CMake package) to pass at -O3 with
  # the build's compiler.
  pflags=$(pkg-config --variable=plugin_cflags tabi-abi)
  want=""
  grep -q '^TABI_NO_SLP_VECTORIZE:BOOL=ON$' "$build/CMakeCache.txt" && want=-fno-tree-slp-vectorize
  expect "plugin_cflags is '$want' (got '$pflags')" test "$pflags" = "$want"
  # shellcheck disable=SC2086
  if "$cc" -std=c11 -O3 $pflags "$prefix/$libdir/cmake/tabi/tabi_float_rounding_probe.c" -lm \
       -o "$work/probe_pc" 2>"$work/probe.log"; then
    expect "the probe keeps roundings with plugin_cflags" "$work/probe_pc"
  else
    bad "probe build: $(cat "$work/probe.log")"
  fi
  expect "plugindir variable" test "$(pkg-config --variable=plugindir tabi)" -ef "$prefix/$libdir/tabi/plugins"
else
  echo "note: no pkg-config: tabi.pc not checked"
fi

echo "$passes passed, $fails failed"
[[ $fails == 0 ]]
