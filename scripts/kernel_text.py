"""Kernels of an example file as text: their names, and the file with one
kernel alone (what tile-run compiles). Shared by compile-times.py and
skippable-passes.py."""
import re

KERNEL = re.compile(r"(\s*)tile\.kernel @(\w+)\(")


def kernel_names(text):
    return [m.group(2) for m in map(KERNEL.match, text.splitlines()) if m]


def only_kernel(text, name):
    """`text` without its other tile.kernel ops (each from its first line
    to the closing brace at its own indentation); the reference functions
    stay."""
    out, skipping, indent = [], False, ""
    for line in text.splitlines():
        match = KERNEL.match(line)
        if match:
            skipping, indent = match.group(2) != name, match.group(1)
            if skipping:
                continue
        if skipping:
            if line == indent + "}":
                skipping = False
            continue
        out.append(line)
    # A kernel whose reference is another kernel (conv2d_tvm's is
    # conv2d_naive) keeps no reference: the compile does not need it.
    others = "|".join(n for n in kernel_names(text) if n != name)
    result = "\n".join(out) + "\n"
    if others:
        result = re.sub(rf"reference = @(?:{others})\b,? ?", "", result)
    return result
