#!/usr/bin/env bash
# A focused GPU check, run on the GPU machine: the GPU-SUITE runs of the
# files given (every file's `// GPU-SUITE:` lines, as gpu-suite.sh runs
# them), one table. For iterating on a few kernels within the GPU time of a
# session; the full suite is scripts/gpu-suite.sh.
#
# Usage: bash scripts/gpu-quick.sh FILE...   (TILE_RUN: default dist/gpu/tile-run)
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/tile-run-path.sh
source scripts/tile-run-path.sh "${TILE_RUN:-}"
log_dir=${LOG_DIR:-gpu-logs}
mkdir -p "$log_dir"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
  sed 's/^/device: /'
failures=0
for file in "$@"; do
  mapfile -t runs < <(sed -n 's|^// GPU-SUITE: *||p' "$file")
  [ ${#runs[@]} -eq 0 ] && runs=("--check")
  i=0
  for args in "${runs[@]}"; do
    i=$((i + 1))
    log="$log_dir/$(basename "$file" .mlir)_$i.log"
    # shellcheck disable=SC2086
    "$tile_run" "$file" $args >"$log" 2>&1
    status=$?
    detail=$(grep -Eo 'rel L2 +max abs.*|[0-9.e+-]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9]+ +(PASS|FAIL)|median [0-9.]+ us|[0-9.]+ TFLOP/s|launches: .*|tile-run: .*' "$log" |
             tr '\n' ' ' | cut -c1-150)
    result=PASS
    [ $status -eq 0 ] || { result=FAIL; failures=$((failures + 1)); }
    printf '%-26s #%d %-5s %s\n' "$(basename "$file")" "$i" "$result" "$detail"
  done
done
echo "quick: $failures failed"
[ $failures -eq 0 ]
