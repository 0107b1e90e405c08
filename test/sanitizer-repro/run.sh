#!/usr/bin/env bash
# Runs the mbarrier pipeline reproducer (see README.md) on the GPU machine:
# every variant plainly, then under compute-sanitizer's synccheck and
# racecheck (and memcheck once), and prints one table of what the tools
# report, followed by the first report of each run and where the reports
# point (mbarrier or buffer, source line, warp).
#
# Usage: bash test/sanitizer-repro/run.sh [VARIANT...]   (default: all)
#
# Environment:
#   LOG_DIR           full logs (default /tmp/sanitizer-repro-logs)
#   BINARY            default /tmp/mbarrier_pipeline
#   NVCC, COMPUTE_SANITIZER   default: from PATH, else /usr/local/cuda/bin
#   NVCC_EXTRA_FLAGS  default -lineinfo, so that reports name source lines;
#                     set it empty for the bare command
#   GENCODE           default arch=compute_90a,code=sm_90a;
#                     arch=compute_90a,code=compute_90a embeds PTX only, which
#                     the driver compiles at load time, as for tile-run
#   SANITIZER_FLAGS   added to every sanitizer run, e.g. "--print-limit 100000"
#   RUN_TIMEOUT       seconds per run (default 60)
#   REPEAT            launches of the plain runs (default 20)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
binary=${BINARY:-/tmp/mbarrier_pipeline}
log_dir=${LOG_DIR:-/tmp/sanitizer-repro-logs}
run_timeout=${RUN_TIMEOUT:-60}
repeat=${REPEAT:-20}
extra_nvcc_flags=${NVCC_EXTRA_FLAGS--lineinfo}
gencode=${GENCODE:-arch=compute_90a,code=sm_90a}
read -r -a sanitizer_flags <<<"${SANITIZER_FLAGS:-}"

find_tool() {
  command -v "$1" 2>/dev/null ||
    { [[ -x /usr/local/cuda/bin/$1 ]] && echo "/usr/local/cuda/bin/$1"; }
}
nvcc=${NVCC:-$(find_tool nvcc)}
sanitizer=${COMPUTE_SANITIZER:-$(find_tool compute-sanitizer)}
if [[ -z $nvcc || -z $sanitizer ]]; then
  echo "error: nvcc or compute-sanitizer not found (set NVCC," \
    "COMPUTE_SANITIZER)" >&2
  exit 2
fi

all_variants=(ours plain drain selfwait noinc noinc_arrive)
if (($# > 0)); then variants=("$@"); else variants=("${all_variants[@]}"); fi
mkdir -p "$log_dir"

#---------------------------------------------------------------------------
# Build, when the binary is missing or older than the source, or was built
# with other flags.
#---------------------------------------------------------------------------
read -r -a extra_flags <<<"$extra_nvcc_flags"
compile=("$nvcc" -O2 "-gencode=$gencode"
  "${extra_flags[@]}" -o "$binary" mbarrier_pipeline.cu)
if [[ ! -x $binary || $here/mbarrier_pipeline.cu -nt $binary ||
  "$(cat "$binary.cmd" 2>/dev/null)" != "${compile[*]}" ]]; then
  echo "compiling: ${compile[*]}"
  if ! (cd "$here" && "${compile[@]}") >"$log_dir/compile.log" 2>&1; then
    cat "$log_dir/compile.log"
    echo "error: compilation failed" >&2
    exit 1
  fi
  cat "$log_dir/compile.log"
  echo "${compile[*]}" >"$binary.cmd"
fi

#---------------------------------------------------------------------------
# Reading the logs.
#---------------------------------------------------------------------------

# The sanitizer's error count: "N (E errors, W warnings)" for racecheck,
# "N" otherwise; "?" when there is no summary line (a crash, a timeout).
count_of() {
  local log=$1 line
  line=$(grep -m1 -o 'RACECHECK SUMMARY: [0-9]* hazards\? displayed ([0-9]* errors\?, [0-9]* warnings\?)' "$log" 2>/dev/null)
  if [[ -n $line ]]; then
    sed -E 's/.*: ([0-9]+) hazards? displayed \(([0-9]+) errors?, ([0-9]+) warnings?\)/\1 (\2 err, \3 warn)/' <<<"$line"
    return
  fi
  line=$(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors\?' "$log" 2>/dev/null)
  if [[ -n $line ]]; then
    sed -E 's/.*: ([0-9]+).*/\1/' <<<"$line"
  else
    echo "?"
  fi
}

# Report headlines: the sanitizer's unindented lines other than banners and
# summaries (their indented continuation lines say where).
not_a_report='^(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application returned)'
headlines() {
  sed -n 's/^========= \([^ ].*\)$/\1/p' "$1" 2>/dev/null |
    grep -v -E "$not_a_report"
}

# The first report of a log: its headline and indented lines.
first_report() {
  awk -v skip="$not_a_report" '
    /^========= [^ ]/ {
      if (seen) exit
      seen = substr($0, 11) !~ skip
    }
    seen { print "    " substr($0, 11) }' "$1" | head -n 10 | cut -c1-140
}

# Headlines with addresses, coordinates and counts blanked, so that reports
# of one kind compare equal.
normalized_headlines() {
  headlines "$1" |
    sed -E 's/0x[0-9a-fA-F]+/ADDR/g; s/\([0-9]+,[0-9]+,[0-9]+\)/(_)/g; s/[0-9]+/N/g'
}

# The program's verdict: PASS, FAIL, TIMEOUT or the exit status.
result_of() {
  local out=$1 status=$2 word
  word=$(grep -m1 -o -E '^(PASS|FAIL)' "$out" 2>/dev/null)
  if [[ -n $word ]]; then echo "$word"
  elif ((status == 124 || status == 137)); then echo "TIMEOUT"
  else echo "rc=$status"; fi
}

# Where the reports of one log point: shared addresses named after the
# mbarriers and buffers (from the program's "shared addresses:" line),
# source lines with the access kind, and reporting threads by warp.
where_summary() {
  local log=$1 out=$2
  awk -v layout="$(grep -m1 '^shared addresses:' "$out" 2>/dev/null)" '
    function hex(s,   i, c, v) {
      s = tolower(s); sub(/^0x/, "", s); v = 0
      for (i = 1; i <= length(s); ++i) {
        c = index("0123456789abcdef", substr(s, i, 1))
        if (c == 0) break
        v = v * 16 + c - 1
      }
      return v
    }
    # The value after "key=" in the layout line, -1 when absent.
    function field(key,   at) {
      at = index(layout, key "=")
      if (at == 0) return -1
      return hex(substr(layout, at + length(key) + 1))
    }
    function rangeend(key,   rest) {
      if (index(layout, key "=") == 0) return -1
      rest = substr(layout, index(layout, key "="))
      return hex(substr(rest, index(rest, "..") + 2))
    }
    function name(a,   i) {
      for (i = 0; i < 4; ++i)
        if (bar[i] >= 0 && a >= bar[i] && a < bar[i] + 8) return barname[i]
      if (a >= as0 && a < as1) return "As"
      if (a >= bs0 && a < bs1) return "Bs"
      return "other"
    }
    BEGIN {
      split("full[0] full[1] empty[0] empty[1]", barname, " ")
      for (i = 0; i < 4; ++i) { barname[i] = barname[i + 1]; bar[i] = field(barname[i]) }
      # "As=0xA..0xB Bs=0xC..0xD", ends exclusive.
      as0 = field("As"); as1 = rangeend("As")
      bs0 = field("Bs"); bs1 = rangeend("Bs")
    }
    # The last access kind named in s, or "".
    function lastkind(s,   k) {
      k = ""
      while (match(s, /(Read|Write|Atomic)/)) {
        k = substr(s, RSTART, RLENGTH) " "
        s = substr(s, RSTART + RLENGTH)
      }
      return k
    }
    /^=========/ {
      # Shared addresses: "__shared__ 0x..", or a hex number right after
      # "address"/"barrier"/"offset" (a PC follows "at ... in").
      line = $0
      while (match(line, /(__shared__|[Aa]ddress|[Bb]arrier|[Oo]ffset)( at| of| is)?[ :=]*0x[0-9a-fA-F]+/)) {
        m = substr(line, RSTART, RLENGTH); sub(/.*0x/, "0x", m)
        a = hex(m); k = name(a); hits[k]++
        if (!((k, a) in seen)) {
          seen[k, a] = 1; distinct[k]++
          if (!(k in low) || a < low[k]) low[k] = a
          if (!(k in high) || a > high[k]) high[k] = a
        }
        line = substr(line, RSTART + RLENGTH)
      }
      # Source lines (-lineinfo), each with the access kind named before it.
      line = $0
      while (match(line, /mbarrier_pipeline\.cu:[0-9]+/)) {
        # lastkind() calls match() too: take what this match found first.
        before = substr(line, 1, RSTART - 1)
        number = substr(line, RSTART + 21, RLENGTH - 21)
        line = substr(line, RSTART + RLENGTH)
        site[lastkind(before) "line " number]++
      }
      # Reporting threads.
      if (match($0, /[Tt]hread \([0-9]+,/)) {
        m = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", m)
        warp[int(m / 32)]++
      }
    }
    function dump(label, arr,   k, text) {
      text = ""
      for (k in arr) text = text sprintf(" %s x%d;", k, arr[k])
      if (text != "") printf "    %s:%s\n", label, text
    }
    END {
      text = ""
      for (k in hits)
        text = text sprintf(" %s x%d (%d address%s 0x%x%s);", k, hits[k], distinct[k],
                            distinct[k] > 1 ? "es" : "", low[k],
                            distinct[k] > 1 ? sprintf("..0x%x", high[k]) : "")
      if (text != "") printf "    shared addresses:%s\n", text
      dump("source sites", site)
      text = ""
      for (w = 0; w < 8; ++w)
        if (w in warp)
          text = text sprintf(" warp %d (%s) x%d;", w, w < 4 ? "producer" : "consumer", warp[w])
      if (text != "") printf "    threads:%s\n", text
    }' "$log"
}

#---------------------------------------------------------------------------
# The runs.
#---------------------------------------------------------------------------
rows=()
add_row() { rows+=("$(printf '%-9s %-10s %-8s %-24s %-9s %s' "$@")"); }

run_case() {
  local variant=$1 tool=$2
  local out=$log_dir/$variant.$tool.out log=$log_dir/$variant.$tool.log
  local status count distinct first
  local -a tool_flags=()
  rm -f "$out" "$log"
  if [[ $tool == plain ]]; then
    timeout -k 10 "$run_timeout" "$binary" "$variant" --repeat "$repeat" \
      >"$out" 2>&1
    status=$?
    add_row "$variant" "$tool" "$(result_of "$out" $status)" "-" "-" \
      "$(grep -m1 -E '^(PASS|FAIL)' "$out" | cut -c1-70)"
    return
  fi
  [[ $tool == racecheck ]] && tool_flags=(--racecheck-report all)
  timeout -k 10 "$run_timeout" "$sanitizer" --tool "$tool" "${tool_flags[@]}" \
    "${sanitizer_flags[@]}" --log-file "$log" "$binary" "$variant" \
    >"$out" 2>&1
  status=$?
  count=$(count_of "$log")
  distinct=$(normalized_headlines "$log" | sort -u | wc -l)
  first=$(headlines "$log" | head -n1 | cut -c1-90)
  add_row "$variant" "$tool" "$(result_of "$out" $status)" "$count" \
    "$distinct" "${first:--}"
}

{
  echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu:       $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
  echo "sanitizer: $("$sanitizer" --version 2>/dev/null | grep -i version | tail -n1)"
  echo "nvcc:      $("$nvcc" --version | grep -i release)"
  echo "binary:    $(cat "$binary.cmd" 2>/dev/null)"
} | tee "$log_dir/summary.txt"

for variant in "${variants[@]}"; do
  run_case "$variant" plain
done
for variant in "${variants[@]}"; do
  run_case "$variant" synccheck
  run_case "$variant" racecheck
done
run_case "${variants[0]}" memcheck

{
  echo
  printf '%-9s %-10s %-8s %-24s %-9s %s\n' variant tool result reports \
    distinct "first report"
  printf '%s\n' "${rows[@]}"
  echo
  echo "reports: the sanitizer's ERROR SUMMARY count (racecheck: hazards"
  echo "displayed, errors and warnings); distinct: kinds of report, with"
  echo "addresses and coordinates blanked."
  echo
  grep -h -m1 '^shared addresses:' "$log_dir/${variants[0]}.plain.out" \
    2>/dev/null
  for variant in "${variants[@]}"; do
    for tool in synccheck racecheck memcheck; do
      log=$log_dir/$variant.$tool.log
      [[ -s $log ]] || continue
      [[ -n $(headlines "$log") ]] || continue
      echo
      echo "== $variant / $tool: kinds of report (count, normalized)"
      normalized_headlines "$log" | sort | uniq -c | sort -rn | head -n 6 |
        cut -c1-110
      echo "   first report:"
      first_report "$log"
      echo "   where the reports point:"
      where_summary "$log" "$log_dir/$variant.$tool.out"
    done
  done
  echo
  echo "full logs: $log_dir/<variant>.<tool>.{log,out}"
} | tee -a "$log_dir/summary.txt"
