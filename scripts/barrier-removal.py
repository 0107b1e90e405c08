#!/usr/bin/env python3
"""Checks the race check against the barriers the compiler places: for every
kernel of the examples and every block barrier in it, runs the kernel on the
CPU target with that one barrier removed (tile-run --test-skip-barrier N)
and the race check on, and records whether a race (or a deadlock, or a wrong
result) was reported. Prints one row per barrier and a summary per pass that
placed the barriers; exit status 1 if a barrier placed by barrier insertion
(tile-insert-barriers) was removed without anything being caught.

Usage: barrier-removal.py [--tile-run PATH] [--blocks N] [FILE...]
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMING_FLAGS = re.compile(r"--bench\b|--flops[ =]\S+|--check-repeat[ =]\S+|"
                          r"--check\b")


def kernel_runs(path):
    """(kernel name, extra args) of each suite run of `path`."""
    lines = [l.split(":", 1)[1].strip() for l in open(path)
             if l.startswith("// GPU-SUITE:")] or [""]
    runs = []
    for line in lines:
        args = shlex.split(TIMING_FLAGS.sub("", line))
        kernel = None
        if "--kernel" in args:
            kernel = args[args.index("--kernel") + 1]
        runs.append((kernel, args))
    return runs


def run(tile_run, path, args):
    result = subprocess.run([tile_run, path] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tile-run",
                        default=os.path.join(ROOT, "build", "bin", "tile-run"))
    parser.add_argument("--blocks", default="4",
                        help="blocks run per kernel (0: all)")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "examples", "*",
                                                        "*.mlir")))
    totals = {}
    missed_inserted = 0
    print("%-42s %-26s %3s %-26s %-10s %s" % ("example", "kernel", "#",
                                             "placed by", "location",
                                             "result"))
    for path in files:
        if "reference = @" not in open(path).read():
            continue
        for kernel, extra in kernel_runs(path):
            base = extra + ["--race-check"]
            if args.blocks != "0":
                base += ["--blocks", args.blocks]
            status, output = run(args.tile_run, path, base)
            if status != 0:
                print("%-42s %-26s  -  baseline run failed:\n%s" %
                      (os.path.relpath(path, ROOT), kernel, output))
                missed_inserted += 1
                continue
            index = 0
            while True:
                status, output = run(args.tile_run, path,
                                     base + ["--test-skip-barrier", str(index)])
                if "test-skip-barrier=%d: kernel" % index in output:
                    break
                removed = re.search(r"(\d+:\d+): remark: test-skip-barrier="
                                    r"\d+: removed this barrier of \d+ "
                                    r"\(placed by ([^)]+)\)", output)
                location = removed.group(1) if removed else "?"
                origin = removed.group(2) if removed else "?"
                races = re.search(r"race check: (\d+) races, (\d+) "
                                  r"out-of-bounds, (\d+) deadlocks", output)
                caught = status != 0 and races and (int(races.group(1)) or
                                                    int(races.group(3)))
                verdict = ("CAUGHT (%s races, %s deadlocks)" %
                           (races.group(1), races.group(3))
                           if caught else "MISSED")
                name = kernel or os.path.splitext(os.path.basename(path))[0]
                print("%-42s %-26s %3d %-26s %-10s %s" %
                      (os.path.relpath(path, ROOT), name, index, origin,
                       location, verdict), flush=True)
                caught_count, removed_count = totals.get(origin, (0, 0))
                totals[origin] = (caught_count + bool(caught),
                                  removed_count + 1)
                if not caught and origin == "tile-insert-barriers":
                    missed_inserted += 1
                index += 1
    print()
    for origin, (caught, removed) in sorted(totals.items()):
        print("placed by %-28s detected %d / removed %d" %
              (origin, caught, removed))
    return 1 if missed_inserted else 0


if __name__ == "__main__":
    sys.exit(main())
