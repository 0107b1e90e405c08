#!/usr/bin/env python3
"""Compile time of every example kernel: `tile-opt FILE --tile-to-ptx`,
the whole process, median of N runs (default 9), each kernel of a file of
several alone (the file with its other kernels left out), as tile-run and
the C++ API compile only the kernel they run. Prints one line per kernel
and the largest median; exits 1 when any median reaches the limit (default
100 ms).

With --per-file, each file is compiled whole instead (tile-opt compiles
its kernels in parallel, as many at once as there are cores): one line per
file.

Usage: scripts/compile-times.py [--runs N] [--limit MS] [--tile-opt PATH]
                                [--per-file]
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

from kernel_text import kernel_names, only_kernel

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=9)
parser.add_argument("--limit", type=float, default=100.0)
parser.add_argument("--tile-opt", default=os.path.join(root, "build/bin/tile-opt"))
parser.add_argument("--per-file", action="store_true",
                    help="time each file whole, not each kernel alone")
args = parser.parse_args()


def median_ms(path):
    # As compileToPTX (tile-run, embedders) runs it: the verifier only on
    # the input, not after every pass.
    command = [args.tile_opt, path, "--tile-to-ptx=ptx-output=/dev/null",
               "--verify-each=false", "-o", "/dev/null"]
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


worst = 0.0
for path in sorted(glob.glob(os.path.join(root, "examples/*/*.mlir"))):
    text = open(path).read()
    names = kernel_names(text)
    if not names:
        continue  # a shared reference.mlir: nothing to compile to PTX
    shown = os.path.relpath(path, root)
    if args.per_file or len(names) == 1:
        median = median_ms(path)
        worst = max(worst, median)
        print(f"{shown:36} {len(names)} kernel(s) {median:6.1f} ms")
        continue
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            alone = os.path.join(folder, name + ".mlir")
            with open(alone, "w") as out:
                out.write(only_kernel(text, name))
            median = median_ms(alone)
            worst = max(worst, median)
            print(f"{shown + ' ' + name:60} {median:6.1f} ms")
print(f"largest median: {worst:.1f} ms (limit {args.limit:.0f} ms)")
sys.exit(0 if worst < args.limit else 1)
