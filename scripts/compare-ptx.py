#!/usr/bin/env python3
"""Compares the PTX of every example kernel under two sets of --tile-to-ptx
options (a compile-time change that should not change the code: an LLVM
pass skipped, a cheaper lowering). Prints the kernels whose PTX differs and
how many are identical; exits 1 when any differs.

Usage: scripts/compare-ptx.py [--tile-opt PATH] [--jobs N] [--keep DIR]
                              BASE_OPTIONS NEW_OPTIONS
e.g.   scripts/compare-ptx.py "" "skip-llvm-passes=default,instcombine#3"
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("base")
parser.add_argument("new")
parser.add_argument("--tile-opt", default=os.path.join(root, "build/bin/tile-opt"))
parser.add_argument("--new-args", default="",
                    help="more tile-opt arguments of the NEW compile (LLVM options)")
parser.add_argument("--jobs", type=int, default=os.cpu_count())
parser.add_argument("--keep", help="write the PTX under this folder (a base "
                    "compiled there before is reused)")
args = parser.parse_args()

files = [path for path in sorted(glob.glob(os.path.join(root, "examples/*/*.mlir")))
         if any(line.lstrip().startswith("tile.kernel @") for line in open(path))]
out = args.keep or tempfile.mkdtemp(prefix="compare-ptx.")


def compile_all(tag, options, extra=()):
    """Writes OUT/TAG/FILE.KERNEL.ptx for every kernel; returns the names."""
    folder = os.path.join(out, tag)
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
    os.makedirs(folder, exist_ok=True)

    def one(path):
        stem = os.path.relpath(path, root).replace("/", "_")[:-len(".mlir")]
        command = [args.tile_opt, path,
                   f"--tile-to-ptx=ptx-output={folder}/{stem}.ptx {options}",
                   "--verify-each=false", "-o", "/dev/null", *extra]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{result.stderr}")

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, files))
    return sorted(os.listdir(folder))


if args.keep and os.path.isdir(os.path.join(out, "base")):
    base = sorted(os.listdir(os.path.join(out, "base")))
else:
    base = compile_all("base", args.base)
new = compile_all("new", args.new, args.new_args.split())
if base != new:
    sys.exit(f"different kernels: {sorted(set(base) ^ set(new))}")
differing = [name for name in base
             if open(os.path.join(out, "base", name), "rb").read()
             != open(os.path.join(out, "new", name), "rb").read()]
for name in differing:
    print(f"differs: {name}")
print(f"{len(base) - len(differing)} of {len(base)} kernels' PTX identical "
      f"({len(files)} files; PTX under {out})")
sys.exit(1 if differing else 0)
