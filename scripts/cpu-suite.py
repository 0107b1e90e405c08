#!/usr/bin/env python3
"""The CPU suite: every example against its reference on the CPU target,
with the race check on, and the deliberately broken kernels (each must be
caught). It needs no GPU: CI runs it (test/tile-run/cpu-suite.test).

Runs come from the files' comment lines:
  // CPU-SUITE: ARGS   a run on the CPU (the GPU-SUITE lines when there are
                       none, without their timing flags; default --check).
                       The race check is on unless ARGS says --race-check
                       itself (=false: a full check is affordable, its
                       instrumented run is not; pair it with a
                       --race-check --blocks N run)
  // CPU-EXPECT: TEXT  the run must fail and print TEXT (broken kernels;
                       EXPECT otherwise)

Usage: cpu-suite.py [--tile-run PATH] [--log-dir DIR] [FILE...]
Prints one row per run and `cpu suite: N passed, M failed`; exit status 1
if anything failed.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMING_FLAGS = re.compile(r"--bench\b|--flops[ =]\S+|--reps[ =]\S+|"
                          r"--warmup[ =]\S+|--check-repeat[ =]\S+")


def suite_lines(path, prefix):
    with open(path) as f:
        return [line.split(":", 1)[1].strip() for line in f
                if line.startswith("// %s:" % prefix)]


def runs_of(path):
    runs = suite_lines(path, "CPU-SUITE")
    if not runs:
        runs = [TIMING_FLAGS.sub("", args).strip()
                for args in suite_lines(path, "GPU-SUITE")]
    runs = [args or "--check" for args in runs] or ["--check"]
    expect = (suite_lines(path, "CPU-EXPECT") or suite_lines(path, "EXPECT")
              or [None])[0]
    return runs, expect


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tile-run",
                        default=os.path.join(ROOT, "build", "bin", "tile-run"))
    parser.add_argument("--log-dir", default=None)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files
    if not files:
        files = [f for f in sorted(glob.glob(os.path.join(ROOT, "examples",
                                                          "*", "*.mlir")))
                 if "reference = @" in open(f).read()]
        files += sorted(glob.glob(os.path.join(ROOT, "test", "tile-run",
                                               "broken", "*.mlir")))
    rows, failures = [], 0
    for path in files:
        runs, expect = runs_of(path)
        name = os.path.relpath(path, ROOT)
        for index, run in enumerate(runs):
            label = name + ("#%d" % (index + 1) if len(runs) > 1 else "")
            command = [args.tile_run, path, "--target=cpu"]
            if "--race-check" not in run:
                command.append("--race-check")
            command += shlex.split(run)
            start = time.time()
            result = subprocess.run(command, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            seconds = time.time() - start
            output = result.stdout
            if args.log_dir:
                os.makedirs(args.log_dir, exist_ok=True)
                log = os.path.join(args.log_dir,
                                   re.sub(r"[/#]", "_", label) + ".log")
                with open(log, "w") as f:
                    f.write(" ".join(command) + "\n" + output)
            problems = [line.strip() for line in output.splitlines()
                        if re.search(r"FAIL|tile-run:|race on|out-of-bounds "
                                     r"access|deadlock in", line)]
            detail = " ".join(problems)[:160]
            if expect is None:
                ok = result.returncode == 0
                verdict = "PASS" if ok else "FAIL"
            else:
                ok = result.returncode != 0 and expect in output
                verdict = "CAUGHT" if ok else "MISSED"
                if not ok:
                    detail = "expected a failure with '%s'" % expect
            if not ok:
                failures += 1
                if not args.log_dir:
                    detail += "\n" + output
            rows.append("%-44s %-6s %6.1fs %s" % (label, verdict, seconds,
                                                  detail))
            print(rows[-1], flush=True)
    print()
    print("cpu suite: %d passed, %d failed" % (len(rows) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
