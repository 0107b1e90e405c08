#!/usr/bin/env bash
# Usage: ptxas-each.sh PTXAS PREFIX [ARCH]
# Assembles PREFIX.ptx, or with several kernels PREFIX.KERNEL.ptx for each
# (tile-write-ptx writes one file per kernel), for ARCH (default sm_90a).
# Fails when there is no such file, ptxas rejects one, or ptxas reports a
# wgmma diagnostic (C75xx: MMAs serialized, or a warpgroup.arrive it had to
# inject because a register the MMAs read was written after wgmma.fence).
set -euo pipefail
ptxas=$1
prefix=$2
arch=${3:-sm_90a}
shopt -s nullglob
files=("$prefix".*.ptx)
if [ -f "$prefix.ptx" ]; then
  files+=("$prefix.ptx")
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "ptxas-each: no PTX file $prefix.ptx or $prefix.*.ptx" >&2
  exit 1
fi
for file in "${files[@]}"; do
  if ! output=$("$ptxas" -arch="$arch" "$file" -o "${file%.ptx}.cubin" 2>&1); then
    echo "$output" >&2
    exit 1
  fi
  if [ -n "$output" ]; then
    echo "$output" >&2
  fi
  if grep -q "(C75[0-9][0-9])" <<<"$output"; then
    echo "ptxas-each: wgmma diagnostic for $file" >&2
    exit 1
  fi
done
