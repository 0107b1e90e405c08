#!/usr/bin/env bash
# The GPU suite, run on the GPU machine: every example against its
# reference, the deliberately broken kernels (each must be caught), and the
# copy kernel timed beside a PyTorch copy of the same bytes. Prints one table;
# full logs go to $LOG_DIR (default: gpu-logs/). Exit status 1 if anything
# failed.
#
# Usage: bash scripts/gpu-suite.sh [TILE_RUN]   (default: dist/gpu/tile-run,
#        unpacked from dist/gpu/tile-run.xz when needed)
# SUITE_FILES="examples/a.mlir ...": only those files' runs, without the
# broken kernels and the copy benchmark (a quick check within a session's
# GPU time).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/tile-run-path.sh
source scripts/tile-run-path.sh "${1:-}"
log_dir=${LOG_DIR:-gpu-logs}
mkdir -p "$log_dir"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
  sed 's/^/device: /'

failures=0
rows=()
row() { rows+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); }

# Each `// GPU-SUITE: ARGS` line of a file is one run (default: --check).
run_file() {
  local file=$1 expect=${2:-}
  local runs
  mapfile -t runs < <(sed -n 's|^// GPU-SUITE: *||p' "$file")
  [ ${#runs[@]} -eq 0 ] && runs=("--check")
  local i=0
  for args in "${runs[@]}"; do
    i=$((i + 1))
    local name log
    name=$(echo "$file" | sed 's|^examples/||; s|^test/tile-run/||')
    [ ${#runs[@]} -gt 1 ] && name="$name#$i"
    log="$log_dir/$(echo "$name" | tr '/#' '__').log"
    # A kernel that deadlocks (an mbarrier never completing) fails the run
    # after TILE_SUITE_TIMEOUT seconds instead of hanging the suite.
    # shellcheck disable=SC2086
    timeout "${TILE_SUITE_TIMEOUT:-300}" "$tile_run" "$file" $args >"$log" 2>&1
    local status=$?
    [ $status -eq 124 ] && echo "FAIL: timed out (a deadlock?)" >>"$log"
    local detail
    detail=$(grep -Eo 'median [0-9.]+ us|[0-9.]+ GB/s|FAIL.*|tile-run: .*' "$log" |
             head -3 | paste -sd ' ' - | cut -c1-110)
    if [ -z "$expect" ]; then
      if [ $status -eq 0 ]; then row "$name" PASS "$detail"
      else row "$name" FAIL "$detail"; failures=$((failures + 1)); fi
    else
      # A broken kernel passes the suite when tile-run fails with the
      # expected message.
      if [ $status -ne 0 ] && grep -q -- "$expect" "$log"; then
        row "$name" CAUGHT "$detail"
      else
        row "$name" MISSED "expected a failure with '$expect'"
        failures=$((failures + 1))
      fi
    fi
  done
}

if [ -n "${SUITE_FILES:-}" ]; then
  for file in $SUITE_FILES; do
    run_file "$file"
  done
  printf '%-34s %-6s %s\n' "test" "result" "detail"
  printf '%s\n' "${rows[@]}"
  echo "suite: $(( ${#rows[@]} - failures )) passed, $failures failed"
  [ $failures -eq 0 ]
  exit
fi
for file in examples/*/*.mlir; do
  grep -q 'reference = @' "$file" || continue
  run_file "$file"
done
for file in test/tile-run/broken/*.mlir; do
  run_file "$file" "$(sed -n 's|^// EXPECT: *||p' "$file")"
done

# Copy bandwidth: tile-run against torch, same bytes, same process order.
copy_json="$log_dir/copy-bench.json"
"$tile_run" examples/copy/copy.mlir --kernel copy --bench --json >"$copy_json" 2>&1
torch_line=$(python3 scripts/torch-copy-bench.py 268435456 2>&1 | tail -1)
ours=$(python3 -c "import json,sys; print(json.load(open('$copy_json'))['timing']['median_us'])" 2>/dev/null)
theirs=$(echo "$torch_line" | sed -n 's/.*median_us=\([0-9.]*\).*/\1/p')
if [ -n "$ours" ] && [ -n "$theirs" ]; then
  ratio=$(python3 -c "print(f'{$ours / $theirs:.3f}')")
  verdict=$(python3 -c "print('PASS' if $ours <= 1.10 * $theirs else 'FAIL')")
  row "copy 1 GiB vs torch" "$verdict" "$(printf 'tile-run %.1f us, torch %.1f us, ratio %s' "$ours" "$theirs" "$ratio")"
  [ "$verdict" = PASS ] || failures=$((failures + 1))
else
  row "copy 1 GiB vs torch" FAIL "no timing: see $copy_json"
  failures=$((failures + 1))
fi

echo
printf '%-34s %-6s %s\n' "test" "result" "detail"
printf '%s\n' "${rows[@]}"
echo
echo "suite: $(( ${#rows[@]} - failures )) passed, $failures failed"
[ $failures -eq 0 ]
