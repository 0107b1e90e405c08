#!/usr/bin/env python3
"""The LLVM passes (and runs, `pass#n`) one kernel can skip without any
change to its PTX: each candidate is added in turn to the kernel's own
`skip_llvm_passes` list (and the default one) and kept when the kernel's
PTX stays byte-identical to its PTX as it is. Prints the list to give the
kernel (docs/Pipeline.md, "Per-kernel skip lists"). The candidates are O3's
and the NVPTX backend's passes that cost time on some example; the order
is the one tried (an earlier pass kept can make a later one matter).

Usage: scripts/skippable-passes.py FILE KERNEL [--tile-opt PATH]
                                   [--candidates a,b#2,...]
"""
import argparse
import filecmp
import os
import re
import subprocess
import sys
import tempfile

from kernel_text import only_kernel

CANDIDATES = (
    "gvn#2,gvn#3,instcombine#2,instcombine#3,early-cse#1,early-cse#2,"
    "early-cse#3,early-cse#4,indvars#1,indvars#2,correlated-propagation#1,"
    "correlated-propagation#2,ipsccp,sccp,dse,licm#1,licm#2,simplifycfg,"
    "loop-unroll-full,loop-unroll,constraint-elimination,reassociate,adce,"
    "consthoist")

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("kernel")
parser.add_argument("--tile-opt", default=os.path.join(root, "build/bin/tile-opt"))
parser.add_argument("--candidates", default=CANDIDATES)
args = parser.parse_args()

text = only_kernel(open(args.file).read(), args.kernel)
if f"tile.kernel @{args.kernel}(" not in text:
    sys.exit(f"error: no kernel @{args.kernel} in {args.file}")
# The kernel's own list, from its attributes (not a comment above it).
header = text[text.index(f"tile.kernel @{args.kernel}("):]
header = header[:header.index(" {\n")]
own = re.search(r'skip_llvm_passes = "([^"]*)"', header)
kept = own.group(1).split(",") if own else []

with tempfile.TemporaryDirectory() as folder:
    # Next to the file, so that references to other files resolve as there.
    alone = os.path.join(folder, os.path.basename(args.file))
    with open(alone, "w") as out:
        out.write(text)

    def compile_ptx(skipped, ptx):
        options = f"ptx-output={ptx}"
        if skipped is not None:
            options += " skip-llvm-passes=" + ",".join(["default"] + skipped)
        subprocess.run([args.tile_opt, alone, f"--tile-to-ptx={options}",
                        "--verify-each=false", "-o", "/dev/null"],
                       check=True, stderr=subprocess.DEVNULL)

    base = os.path.join(folder, "base.ptx")
    trial = os.path.join(folder, "trial.ptx")
    compile_ptx(None, base)
    for candidate in args.candidates.split(","):
        if candidate in kept:
            continue
        compile_ptx(kept + [candidate], trial)
        if filecmp.cmp(base, trial, shallow=False):
            kept.append(candidate)
print(",".join(kept))
