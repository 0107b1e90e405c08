#!/usr/bin/env bash
# Usage: ptxas-each.sh PTXAS PREFIX [ARCH]
# Assembles PREFIX.ptx, or with several kernels PREFIX.KERNEL.ptx for each
# (tile-write-ptx writes one file per kernel), for ARCH (default sm_90a).
# Fails when there is no such file or ptxas rejects one.
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
  "$ptxas" -arch="$arch" "$file" -o "${file%.ptx}.cubin"
done
