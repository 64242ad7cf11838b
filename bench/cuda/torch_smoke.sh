#!/bin/sh
# bench/cuda/torch_smoke.sh BENCH_CUDA GPUSIM_PLUGIN OUT_JSONL: ctest
# bench_torch_smoke. bench_cuda at small sizes against gpusim, then
# bench_torch.py --smoke (the same torch calls on the CPU) on its output: the
# script must run to its table. Exit 77 (skipped) without /usr/bin/python3 + torch.
set -u
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 cannot import torch (apt-get install python3-torch)"
  exit 77
fi
"$1" "$2" 12 smoke > "$3" || exit 1
out=$(/usr/bin/python3 "$(dirname "$0")/bench_torch.py" "$3" --smoke) || { echo "$out"; exit 1; }
echo "$out"
# every benchmark has both columns (a row with n/a lost its tabi figure)
rows=$(echo "$out" | grep -c '^| [a-z]')
if [ "$rows" -lt 17 ] || echo "$out" | grep -q 'n/a'; then
  echo "bench_torch_smoke: expected 17 rows with both figures, got $rows"
  exit 1
fi
