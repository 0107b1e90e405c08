#!/usr/bin/env python3
"""Compile time of every example: `tile-opt FILE --tile-to-ptx`, the whole
process, median of N runs (default 9). Prints one line per example and the
largest median; exits 1 when any median reaches the limit (default 100 ms).

Usage: scripts/compile-times.py [--runs N] [--limit MS] [--tile-opt PATH]
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=9)
parser.add_argument("--limit", type=float, default=100.0)
parser.add_argument("--tile-opt", default=os.path.join(root, "build/bin/tile-opt"))
args = parser.parse_args()

worst = 0.0
for path in sorted(glob.glob(os.path.join(root, "examples/*/*.mlir"))):
    kernels = sum(1 for line in open(path) if line.lstrip().startswith("tile.kernel @"))
    if kernels == 0:
        continue  # a shared reference.mlir: nothing to compile to PTX
    # As compileToPTX (tile-run, embedders) runs it: the verifier only on
    # the input, not after every pass.
    command = [args.tile_opt, path, "--tile-to-ptx=ptx-output=/dev/null",
               "--verify-each=false", "-o", "/dev/null"]
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    median = statistics.median(times)
    worst = max(worst, median)
    print(f"{os.path.relpath(path, root):36} {kernels} kernel(s) {median:6.1f} ms")
print(f"largest median: {worst:.1f} ms (limit {args.limit:.0f} ms)")
sys.exit(0 if worst < args.limit else 1)
