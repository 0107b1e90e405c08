#!/usr/bin/env bash
# The benchmark, run on the GPU machine: our examples timed by tile-run and
# the baselines (PyTorch, hence cuBLAS/cuDNN; tuned Triton) in the same
# call; one table with ratios (baseline time / our time: above 1 is faster).
#
# Usage: bash scripts/bench.sh [TILE_RUN]   (default: dist/gpu/tile-run)
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/tile-run-path.sh
source scripts/tile-run-path.sh "${1:-}"
log_dir=${LOG_DIR:-bench-logs}
mkdir -p "$log_dir"

# workload | file | tile-run arguments
ours=(
  "copy_1GiB|examples/copy/copy.mlir|--kernel copy"
  "gemv_1024x1024|examples/gemv/naive.mlir|"
  "gemv_1024x1024|examples/gemv/splitk_atomic.mlir|"
  "gemv_1024x1024|examples/gemv/splitk_reduce_threads.mlir|"
  "gemv_1024x1024|examples/gemv/vectorized.mlir|"
  "gemv_1024x1024|examples/gemv/allreduce.mlir|"
  "gemv_1024x1024|examples/gemv/warp_specialized.mlir|"
  "gemv_1024x1024|examples/gemv/pipelined.mlir|--kernel gemv_pipelined_1024"
  "gemv_1024x1024|examples/gemv/best.mlir|--kernel gemv_1024"
  "gemv_16384x16384|examples/gemv/best.mlir|--kernel gemv_16384"
  "gemv_16384x16384|examples/gemv/pipelined.mlir|--kernel gemv_serial_16384"
  "gemv_16384x16384|examples/gemv/pipelined.mlir|--kernel gemv_pipelined_16384"
  "gemv_3000x5120|examples/gemv/best.mlir|--kernel gemv_3000x5120"
  "conv1d_16384|examples/conv1d/naive.mlir|--reps 3 --warmup 1"
  "conv1d_16384|examples/conv1d/refactored.mlir|"
  "conv1d_16384|examples/conv1d/threads_1d.mlir|"
  "conv1d_16384|examples/conv1d/threads_2d.mlir|"
  "conv1d_16384|examples/conv1d/local_shared.mlir|"
  "conv1d_16384|examples/conv1d/unrolled.mlir|"
  "conv1d_16384|examples/conv1d/best.mlir|--kernel conv1d_16384"
  "conv1d_16777216|examples/conv1d/best.mlir|--kernel conv1d_16m"
  "conv1d_16777216|examples/conv1d/pipelined.mlir|"
  "gemm_1024x512x2048|examples/gemm/naive.mlir|--reps 3 --warmup 1"
  "gemm_1024x512x2048|examples/gemm/threads_1d.mlir|--reps 5"
  "gemm_1024x512x2048|examples/gemm/threads_2d.mlir|"
  "gemm_1024x512x2048|examples/gemm/shared.mlir|"
  "gemm_1024x512x2048|examples/gemm/registers.mlir|"
  "gemm_1024x512x2048|examples/gemm/prefetch.mlir|"
  "gemm_1024x512x2048|examples/gemm/pipelined_stages.mlir|--kernel gemm_stages_1"
  "gemm_1024x512x2048|examples/gemm/pipelined_stages.mlir|--kernel gemm_stages_2"
  "gemm_1024x512x2048|examples/gemm/pipelined_stages.mlir|--kernel gemm_stages_3"
  "gemm_1024x512x2048|examples/gemm/pipelined.mlir|"
  "gemm_1024x512x2048|examples/gemm/best.mlir|"
  "conv2d_14x14x256_b256_f512|examples/conv2d/conv2d.mlir|--kernel conv2d_tvm --flops 118380036096"
  "gemm_f16_4096|examples/gemm/mma_sync.mlir|--kernel gemm_f16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --flops 137438953472"
  "gemm_bf16_4096|examples/gemm/mma_sync.mlir|--kernel gemm_bf16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --flops 137438953472"
  "gemm_f16_4096|examples/gemm/wgmma.mlir|--kernel gemm_f16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --flops 137438953472"
  "gemm_bf16_4096|examples/gemm/wgmma.mlir|--kernel gemm_bf16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --flops 137438953472"
  "gemm_f16_8192|examples/gemm/wgmma.mlir|--kernel gemm_f16 --shape A=8192x8192 --shape B=8192x8192 --shape C=8192x8192 --flops 1099511627776"
  "gemm_bf16_8192|examples/gemm/wgmma.mlir|--kernel gemm_bf16 --shape A=8192x8192 --shape B=8192x8192 --shape C=8192x8192 --flops 1099511627776"
  "gemm_f16_4096|examples/gemm/warp_specialized.mlir|--kernel gemm_f16_ws --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --flops 137438953472"
  "gemm_bf16_4096|examples/gemm/warp_specialized.mlir|--kernel gemm_bf16_ws --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --flops 137438953472"
  "gemm_f16_8192|examples/gemm/warp_specialized.mlir|--kernel gemm_f16_ws --shape A=8192x8192 --shape B=8192x8192 --shape C=8192x8192 --flops 1099511627776"
  "gemm_bf16_8192|examples/gemm/warp_specialized.mlir|--kernel gemm_bf16_ws --shape A=8192x8192 --shape B=8192x8192 --shape C=8192x8192 --flops 1099511627776"
  "gemm_tf32_1024x512x2048|examples/gemm/tf32.mlir|--kernel gemm_tf32 --flops 2147483648"
  "gemm_tf32_1024x512x2048|examples/gemm/tf32.mlir|--kernel gemm_tf32_wgmma --flops 2147483648"
  "gemm_tf32_1024x512x2048|examples/gemm/tf32_ws.mlir|--flops 2147483648"
)
# BENCH_ONLY=PATTERN: only the workloads matching it (baselines included).
if [ -n "${BENCH_ONLY:-}" ]; then
  selected=()
  for entry in "${ours[@]}"; do
    [[ "${entry%%|*}" =~ $BENCH_ONLY ]] && selected+=("$entry")
  done
  ours=("${selected[@]}")
fi

baseline_args=()
[[ "${BENCH_ONLY:-}" == gemm_* ]] && baseline_args=(--tensor-cores)
python3 scripts/bench-baselines.py "${baseline_args[@]}" >"$log_dir/baselines.txt" 2>&1
declare -A baseline_names baseline_times
while read -r tag workload name us; do
  [ "$tag" = baseline ] || continue
  baseline_names[$workload]+="$name "
  baseline_times[$workload:$name]=$us
done <"$log_dir/baselines.txt"

printf '%-20s %-36s %10s   %s\n' workload kernel "ours (us)" "baselines (us, ratio)"
for entry in "${ours[@]}"; do
  IFS='|' read -r workload file args <<<"$entry"
  name="${file#examples/}${args:+ ${args#--kernel }}"
  name="${name%% --*}"
  json="$log_dir/$(echo "$name" | tr '/ ' '__').json"
  # shellcheck disable=SC2086
  "$tile_run" "$file" $args --bench --json >"$json" 2>"$json.err"
  us=$(python3 -c "import json; print('%.2f' % json.load(open('$json'))['timing']['median_us'])" 2>/dev/null || echo "error")
  line=""
  for b in ${baseline_names[$workload]:-}; do
    t=${baseline_times[$workload:$b]}
    ratio=$(python3 -c "print('%.2f' % ($t / $us))" 2>/dev/null || echo "?")
    line+="$b $t (x$ratio)  "
  done
  printf '%-20s %-36s %10s   %s\n' "$workload" "$name" "$us" "$line"
done
grep '^device' "$log_dir/baselines.txt"
