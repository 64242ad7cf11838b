#!/bin/sh
# run_compare.sh DUMP_EXE REFERENCE_PLUGIN SCHEMA_DIR KNOWN_DIFFERENCES OUT.jsonl
# The reference agrees with PyTorch: dump every sample's reference result, then
# compare with torch 1.13 (Debian's python3-torch under /usr/bin/python3).
# Exit 77 (ctest: skipped) when that interpreter cannot import torch.
set -u
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" -c "import torch" >/dev/null 2>&1; then
  echo "SKIP: $PY cannot import torch (install python3-torch to compare the reference with PyTorch)"
  exit 77
fi
"$1" "$5" "$2" || exit 1
exec "$PY" "$(dirname "$0")/compare.py" "$5" "$3" "$4"
