#!/usr/bin/env python3
"""compute-sanitizer over every example, on the GPU machine.

Each example run of the CPU suite (its `// CPU-SUITE:` lines, small shapes;
see scripts/cpu-suite.py) runs on the GPU under `compute-sanitizer --tool
memcheck` and `--tool racecheck`, and under `--tool synccheck` when the file
uses mbarriers (warp specialization, TMA, wgmma) or asks for it. Flags of the
CPU target (--race-check, --blocks, --workers, --target) are dropped. Then
every warp-specialized example runs `--check --check-repeat 100` (100
launches in a row, each checked: a hang or a race shows up).

Usage: gpu-sanitize.py [--tile-run PATH] [--log-dir DIR] [--repeat N]
                       [--jobs N] [--tools memcheck,racecheck,synccheck]
                       [--exclude REGEX] [FILE...]
Prints one row per tool and run, the errors each tool reported, and
`sanitize: N runs, E errors, F failed`; exit status 1 when any tool reported
an error or a run failed.
"""
import argparse
import concurrent.futures
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    "cpu_suite", os.path.join(ROOT, "scripts", "cpu-suite.py"))
cpu_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu_suite)

CPU_ONLY_FLAGS = re.compile(r"--race-check(=\S+)?|--blocks[ =]\S+|"
                            r"--workers[ =]\S+|--target[ =]\S+")
MBARRIER_OPS = re.compile(r"tile\.warp_specialize|tma|wgmma|mbarrier")
# compute-sanitizer's last line per tool.
SUMMARY = re.compile(r"(ERROR|RACECHECK) SUMMARY: (\d+) (errors?|hazards?)")


def run(command, timeout=300):
    """(status, output, seconds) of `command`; status -1 and TIMEOUT in the
    output when it runs past `timeout` seconds (a hang)."""
    start = time.time()
    try:
        result = subprocess.run(command, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                timeout=timeout)
        status, output = result.returncode, result.stdout
    except subprocess.TimeoutExpired as error:
        output = error.stdout or ""
        if isinstance(output, bytes):
            output = output.decode(errors="replace")
        status, output = -1, output + "\nTIMEOUT (a hang?)"
    return status, output, time.time() - start


def sanitize(tool_run, tool, path, args, log):
    command = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "3",
               tool_run, path, "--target=gpu"] + args
    status, output, seconds = run(command)
    if log:
        with open(log, "w") as f:
            f.write(" ".join(shlex.quote(c) for c in command) + "\n" + output)
    summary = SUMMARY.search(output)
    errors = int(summary.group(2)) if summary else None
    return status, errors, seconds, output


def repeat(tile_run, path, args, count):
    status, output, seconds = run([tile_run, path, "--target=gpu",
                                   "--check-repeat", str(count)] + args)
    return status, 0, seconds, output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tile-run",
                        default=os.path.join(ROOT, "dist", "gpu", "tile-run"))
    parser.add_argument("--log-dir", default="sanitize-logs")
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=4,
                        help="sanitizer processes at once on the GPU")
    parser.add_argument("--tools", default="memcheck,racecheck,synccheck")
    parser.add_argument("--exclude", default=None,
                        help="skip runs whose label (FILE#N) matches this "
                             "regular expression")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or [
        f for f in sorted(cpu_suite.glob.glob(
            os.path.join(ROOT, "examples", "*", "*.mlir")))
        if "reference = @" in open(f).read()]
    os.makedirs(args.log_dir, exist_ok=True)
    wanted = args.tools.split(",")

    # (label, tool, function, arguments) of every run, in print order.
    tasks = []
    for path in files:
        text = open(path).read()
        tools = [t for t in ("memcheck", "racecheck") if t in wanted]
        if MBARRIER_OPS.search(text) and "synccheck" in wanted:
            tools.append("synccheck")
        lines, _ = cpu_suite.runs_of(path)
        name = os.path.relpath(path, ROOT)
        for index, line in enumerate(lines):
            run_args = shlex.split(CPU_ONLY_FLAGS.sub("", line))
            # CPU-only race-check runs of a large grid's first blocks.
            if "--check" not in run_args:
                continue
            label = name + ("#%d" % (index + 1) if len(lines) > 1 else "")
            if args.exclude and re.search(args.exclude, label):
                continue
            for tool in tools:
                log = os.path.join(args.log_dir, re.sub(
                    r"[/#]", "_", label) + "." + tool + ".log")
                tasks.append((label, tool, sanitize,
                              (args.tile_run, tool, path, run_args, log)))
            if "tile.warp_specialize" in text and args.repeat > 1:
                tasks.append((label, "repeat%d" % args.repeat, repeat,
                              (args.tile_run, path, run_args, args.repeat)))

    errors_total = failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(function, *arguments)
                   for _, _, function, arguments in tasks]
        for (label, tool, _, _), future in zip(tasks, futures):
            status, errors, seconds, output = future.result()
            ok = status == 0 and errors == 0
            errors_total += errors or 0
            failed += 0 if ok else 1
            lines = [l.strip() for l in output.splitlines()
                     if re.search(r"FAIL|PASS|tile-run:|SUMMARY|TIMEOUT|"
                                  r"launches", l)]
            print("%-40s %-10s %-4s %6.1fs errors %-4s %s" % (
                label, tool, "OK" if ok else "FAIL", seconds,
                "?" if errors is None else errors,
                " ".join(lines)[:160]), flush=True)
    print("sanitize: %d runs, %d errors, %d failed" % (
        len(tasks), errors_total, failed))
    return 1 if errors_total or failed else 0


if __name__ == "__main__":
    sys.exit(main())
