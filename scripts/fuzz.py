#!/usr/bin/env python3
"""A structure-aware mutation fuzzer for tile-opt and tile-run.

The seeds are the repository's MLIR files: every `*.mlir` under examples/
and test/ (test/sanitizer-repro aside), one seed per `// -----` chunk, the
chunks tile-opt parses and verifies, with their comment lines removed. A
mutant is a seed with 1 to 3 small edits that know what MLIR text looks
like; it goes through

  tile-opt MUTANT --tile-to-ptx=ptx-output=/dev/null -o /dev/null   (20 s)

and, for a fraction of the mutants tile-opt accepts (--cpu-run-fraction),

  tile-run MUTANT --target=cpu --workers=1 ARGS                     (60 s)

where ARGS is one of the seed file's `// CPU-SUITE:` lines (its GPU-SUITE
lines without their timing flags when it has none; read as
scripts/cpu-suite.py reads them), or `--check` when the seed has a
reference and no such line (nothing when it has neither); only for the
seeds whose own run takes under 20 s with those arguments, so that a
timeout means something. Either tool must compile and run the mutant or
reject it with a diagnostic; a mutant must never bring it down. The tools
run under `ulimit -v` (--memory-limit), so that a mutant with huge shapes
fails an allocation instead of taking the machine's memory (under a
sanitizer build, ASan's hard_rss_limit_mb instead).

Mutators (MUTATORS below; each mutant draws 1 to 3 of them):
  delete-op         delete a single-line op (the uses of its results, if
                    any, mostly rewired to another value defined before)
  duplicate-op      copy a single-line op below itself, its results renamed
                    (%x -> %x_dup7) so the text still parses
  swap-ops          swap two adjacent single-line ops of one block
  int-literal       an integer literal (constants, shapes, `threads [128]`,
                    `stages 2`, `grid [4, 8]`, layout and map numbers) set to
                    an edge value: 0, 1, -1, 2, 3, 7, 31, 33, 1024, 65536,
                    2^31 - 1, 2^31, 2^32, 2^63 - 1, or a neighbour of one
  dim-one           one dimension of one shaped type changed
  dim-all           one dimension value changed in every shaped type of the
                    file (every `32x` -> `48x`): still type-correct, odd shapes
  elem-one          one element type changed (f32, f16, bf16, f64, i32,
                    index, ...)
  elem-all          an element type changed everywhere in the file
  attribute         an attr-dict entry removed, changed or added (entries
                    and keys from the corpus: swizzle, alignment, layout,
                    warps, lowering, transpose_b, clear, multiple_of, ...)
  keyword           a keyword changed: reduction kind (add/max/min/...),
                    dimension (x/y/z, `across(...)`), memory space, GEMM
                    lowering, cmpi predicate, `rolled`, `clear`, `shape`,
                    `regs`, or the op itself within a family of ops with
                    the same syntax (tile.serial/unroll/vectorized/pipelined,
                    the alloc ops, arith binary ops, ...)
  replace-operand   one use of an SSA value replaced by another value
                    defined earlier in the function (of the same kind mostly,
                    else anything: the verifier must reject, not crash)

A run is a FINDING when the tool died of a signal (a negative exit status,
or above 128 from a shell), printed one of "Assertion", "Stack dump",
"PLEASE submit a bug report", "UNREACHABLE", "LLVM ERROR", "Segmentation
fault", "AddressSanitizer", "runtime error:" or one of glibc's heap
corruption messages, or ran past its time limit (a hang: it gets SIGQUIT,
so that LLVM's handler prints where it was, then SIGKILL). When tile-opt
exits 0 but prints "error:", the run is a finding of its own class,
"accepted-but-invalid". A plain diagnostic with exit status 1 is the
expected way to reject a mutant and is not a finding.

Findings are grouped by a signature: the assertion or LLVM ERROR message;
"heap corruption in TOOL" (before a hang: a corrupted heap often hangs);
"hang in TOOL"; "out of memory in TOOL"; else "crash in F via G", F the
innermost stack frame in MLIR or tile code and G the closest tile function
that called it (within a few frames). The smallest mutant of each signature
is reduced (whole functions, regions and lines deleted while the signature
still reproduces, --reduce-time seconds per signature) and written to --out
as N-SIGNATURE.mlir, with N-SIGNATURE.log holding the command and the
tool's output, and N-SIGNATURE.orig.mlir, the mutant before reduction;
hits.tsv lists every finding run (input, tool, signature, seed, mutations).

Usage: fuzz.py [--seed N] [--time SECONDS] [--max-inputs N] [--jobs N]
               [--corpus GLOB...] [--out DIR] [--quiet]
               [--tile-opt PATH] [--tile-run PATH] [--tile-opt-args ARGS]
               [--tile-run-args ARGS] [--cpu-run-fraction F]
               [--reduce-time SECONDS] [--memory-limit MB]
Mutants depend only on --seed, the corpus and the input index, so a run is
reproducible (apart from when the time budget stops it). Prints
`fuzz: N inputs (M tile-opt, K tile-run cpu), F findings (S unique)` and the
unique signatures with their reproducers; exit status 1 if anything was
found.
"""
import argparse
import concurrent.futures
import glob
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = ["examples/**/*.mlir", "test/**/*.mlir"]
SKIPPED_DIRS = ["test/sanitizer-repro"]
TILE_OPT_ARGS = "--tile-to-ptx=ptx-output=/dev/null -o /dev/null"
TILE_RUN_ARGS = "--workers=1"
TILE_OPT_TIMEOUT = 20
TILE_RUN_TIMEOUT = 60

EDGE_VALUES = [0, 1, -1, 2, 3, 7, 31, 33, 1024, 65536, 2147483647,
               2147483648, 4294967296, 9223372036854775807]
CRASH_MARKERS = ["Assertion", "Stack dump", "PLEASE submit a bug report",
                 "UNREACHABLE", "LLVM ERROR", "Segmentation fault",
                 "AddressSanitizer", "runtime error:"]
# As in scripts/cpu-suite.py.
TIMING_FLAGS = re.compile(r"--bench\b|--flops[ =]\S+|--reps[ =]\S+|"
                          r"--warmup[ =]\S+|--check-repeat[ =]\S+")

# ---------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------

STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
HEX = re.compile(r"\b0x[0-9A-Fa-f]{4,}\b")
SSA = re.compile(r"%[\w$.]+")
RESULT = r"%[\w$.]+(?::\d+)?"
RESULTS = re.compile(r"^(\s*)(%s(?:\s*,\s*%s)*)\s*=(?!=)\s*" % (RESULT,
                                                                 RESULT))
OP_NAME = re.compile(r"^\s*(?:%s(?:\s*,\s*%s)*\s*=\s*)?"
                     r"\"?([a-z_][\w$]*\.[\w$.]+|return)\"?(?=[\s(<{\"]|$)"
                     % (RESULT, RESULT))
SHAPE = re.compile(r"\b(?:memref|vector|tensor)<((?:(?:\d+|\?)x)+)")
FUNCTION_OPS = {"tile.kernel", "func.func", "gpu.func", "llvm.func"}


def code_of(line):
    """The line with string contents, hex literals and a trailing comment
    blanked out, same length (positions into it are positions into the
    line)."""
    code = STRING.sub(lambda m: '"' + "_" * (len(m.group()) - 2) + '"', line)
    code = HEX.sub(lambda m: "_" * len(m.group()), code)
    comment = code.find("//")
    if comment >= 0:
        code = code[:comment] + " " * (len(code) - comment)
    return code


def balance(code):
    """Opening minus closing brackets ((, [, <) and braces of a code line."""
    code = code.replace("->", "  ").replace(">=", "  ").replace("<=", "  ")
    brackets = (sum(code.count(c) for c in "([<") -
                sum(code.count(c) for c in ")]>"))
    return brackets, code.count("{") - code.count("}")


def split_top_level(text, separator=","):
    """Splits at separators outside brackets; returns (start, end) spans."""
    spans, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([<{":
            depth += 1
        elif c in ")]>}" and not (c == ">" and text[i - 1:i] == "-"):
            depth -= 1
        elif c == separator and depth == 0:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(text)))
    return spans


def type_at(code, pos):
    """The span of the type that starts at pos: up to a comma, closing
    bracket or brace outside brackets."""
    while pos < len(code) and code[pos] == " ":
        pos += 1
    depth, end = 0, pos
    while end < len(code):
        c = code[end]
        if c in "([<":
            depth += 1
        elif c in ")]>" and not (c == ">" and code[end - 1] == "-"):
            if depth == 0:
                break
            depth -= 1
        elif c in ",{=" and depth == 0:
            break
        end += 1
    return pos, len(code[:end].rstrip())


def memref_types(code):
    """(start, end) of every `memref<...>` in a code line."""
    spans = []
    for m in re.finditer(r"\bmemref<", code):
        depth, i = 0, m.end() - 1
        while i < len(code):
            if code[i] == "<":
                depth += 1
            elif code[i] == ">" and code[i - 1] != "-":
                depth -= 1
                if depth == 0:
                    spans.append((m.start(), i + 1))
                    break
            i += 1
    return spans


class Layout:
    """What the mutators need to know about the lines of a mutant: which
    lines are complete single-line ops, where the functions are and where
    their SSA names first appear."""

    def __init__(self, lines):
        self.lines = lines
        self.codes = [code_of(line) for line in lines]
        n = len(lines)
        self.brackets_before = [0] * n
        self.braces_before = [0] * n
        self.delta = [(0, 0)] * n
        brackets = braces = 0
        for i, code in enumerate(self.codes):
            self.brackets_before[i], self.braces_before[i] = brackets, braces
            self.delta[i] = balance(code)
            brackets += self.delta[i][0]
            braces += self.delta[i][1]
        self.ops = [i for i in range(n) if self._single_line_op(i)]
        self.op_set = set(self.ops)
        self.functions = self._functions()

    def op_name(self, i):
        match = OP_NAME.match(self.lines[i])
        return match.group(1) if match else None

    def _starts_statement(self, i):
        stripped = self.codes[i].lstrip()
        return (self.brackets_before[i] == 0 and
                (stripped[:1] in ("%", "}", "^", '"') or
                 self.op_name(i) is not None))

    def _single_line_op(self, i):
        code = self.codes[i].rstrip()
        stripped = code.lstrip()
        if (not stripped or stripped.startswith("}") or
                self.brackets_before[i] != 0 or self.delta[i] != (0, 0) or
                code.endswith((",", "{", "(", "[")) or
                self.op_name(i) is None):
            return False
        following = next((j for j in range(i + 1, len(self.lines))
                          if self.codes[j].strip()), None)
        return following is None or self._starts_statement(following)

    def _functions(self):
        """(first, last) line of every function with a body."""
        functions = []
        for i in range(len(self.lines)):
            if (self.op_name(i) not in FUNCTION_OPS or
                    self.brackets_before[i] != 0):
                continue
            start_depth, opened = self.braces_before[i], False
            for j in range(i, len(self.lines)):
                after = self.braces_before[j] + self.delta[j][1]
                if after > start_depth:
                    opened = True
                if opened and after <= start_depth:
                    functions.append((i, j))
                    break
                if not opened and j > i and self._starts_statement(j):
                    break
        # Innermost first, so that a line's function is the closest one.
        return sorted(functions, key=lambda f: f[1] - f[0])

    def function_of(self, line):
        return next((f for f in self.functions if f[0] <= line <= f[1]),
                    None)

    def names(self, function):
        """{name: first line} and [(line, start, end, name)] of the SSA
        names of a function."""
        first, occurrences = {}, []
        for i in range(function[0], function[1] + 1):
            for m in SSA.finditer(self.codes[i]):
                first.setdefault(m.group(), i)
                occurrences.append((i, m.start(), m.end(), m.group()))
        return first, occurrences

    def results(self, i):
        """The result names a line defines (`%x`, `%a, %b`, `%x:2`)."""
        match = RESULTS.match(self.codes[i])
        if not match:
            return []
        return [r.split(":")[0].strip() for r in match.group(2).split(",")]

    def kind_of(self, name, line):
        """A stand-in for the type of a value: the op that defines it and
        the type text after its ` : `, or the type of an argument."""
        code = self.codes[line]
        if name in self.results(line):
            colon = code.rfind(" : ")
            return (self.op_name(line),
                    code[colon + 3:].strip() if colon >= 0 else "")
        m = re.search(re.escape(name) + r"\s*:\s*(?!\d)", code)
        if m:
            start, end = type_at(code, m.end())
            return ("argument", code[start:end])
        return ("other", self.op_name(line))


def is_defining(layout, line, start, end):
    """Whether the SSA name at code[start:end] is defined there rather than
    used: a result, `%iv = ...` of a loop, `%arg: type` of a block."""
    code = layout.codes[line]
    match = RESULTS.match(code)
    if match and start < match.end(2):
        return True
    rest = code[end:]
    return bool(re.match(r"\s*=(?!=)", rest) or re.match(r":\s*[^\d\s]",
                                                          rest))


def int_literals(code):
    """(start, end, value) of the integer literals of a code line: not the
    digits of names (%c4, @k_2, d0, f16), floats or hex."""
    literals = []
    for m in re.finditer(r"\d+", code):
        start, end = m.span()
        before = code[start - 1] if start else " "
        after = code[end] if end < len(code) else " "
        in_shape = before == "x" and start >= 2 and (code[start - 2].isdigit()
                                                     or code[start - 2] == "?")
        if not in_shape and (before.isalnum() or before in "_%@#$.^"):
            continue
        if after == "." or after in "_$" or (after.isalpha() and after != "x"):
            continue
        if before == "-":
            if start >= 2 and (code[start - 2].isalnum() or
                               code[start - 2] in "_."):
                continue
            start -= 1
        literals.append((start, end, int(code[start:end])))
    return literals


def shapes(code):
    """(start, end) of the dimension list `32x64x` of each shaped type."""
    return [m.span(1) for m in SHAPE.finditer(code)]


ELEMENT_TYPES = {
    "f32": ["f16", "bf16", "f64", "i32", "tf32"],
    "f16": ["f32", "bf16", "f64", "i16"],
    "bf16": ["f16", "f32", "f64"],
    "f64": ["f32", "f16", "i64"],
    "i32": ["index", "i64", "i16", "i8", "f32", "i1"],
    "i64": ["index", "i32"],
    "i1": ["i32", "i8"],
    "index": ["i32", "i64", "f32"],
}


def element_types(code, name):
    """Occurrences of a type keyword: alone or at the end of a shape."""
    pattern = (r"(?:(?<=[\d?]x)|(?<![\w%@#$.!]))" + re.escape(name) +
               r"(?![\w$.])")
    return [m.span() for m in re.finditer(pattern, code)]


# ---------------------------------------------------------------------------
# Mutators: each takes (lines, layout, rng, vocabulary) and returns the new
# lines and a description, or None when it does not apply.
# ---------------------------------------------------------------------------


def edge_value(rng, old=None):
    """An edge value, a neighbour of one, or a neighbour of the old value."""
    for _ in range(10):
        roll = rng.random()
        if roll < 0.6:
            value = rng.choice(EDGE_VALUES)
        elif roll < 0.8:
            value = rng.choice(EDGE_VALUES) + rng.choice([-1, 1])
        elif old is not None:
            value = rng.choice([old + 1, old - 1, old * 2, old // 2, -old,
                                old * 3])
        else:
            value = rng.choice([4, 8, 16, 32, 64, 128, 256, 512])
        if value != old:
            return value
    return value


def replace(line, start, end, text):
    return line[:start] + text + line[end:]


def pick_op(rng, layout):
    """A random single-line op (its line index), or None."""
    return rng.choice(layout.ops) if layout.ops else None


def rewire_uses(lines, layout, rng, names, line, after):
    """Replaces the uses of names after a line by values defined before
    it (of the same kind when there are some)."""
    function = layout.function_of(line)
    if function is None:
        return lines, ""
    first, occurrences = layout.names(function)
    earlier = [n for n, i in first.items() if i < line and n not in names]
    if not earlier:
        return lines, ""
    lines = list(lines)
    swaps = {}
    for name in names:
        kind = layout.kind_of(name, line)
        same = [n for n in earlier if layout.kind_of(n, first[n]) == kind]
        swaps[name] = rng.choice(same or earlier)
    for i, start, end, name in reversed(occurrences):
        if i > after and name in swaps:
            lines[i] = replace(lines[i], start, end, swaps[name])
    return lines, " (uses -> %s)" % ", ".join(
        "%s=%s" % item for item in sorted(swaps.items()))


def delete_op(lines, layout, rng, vocabulary):
    i = pick_op(rng, layout)
    if i is None:
        return None
    note = "delete-op line %d `%s`" % (i + 1, lines[i].strip())
    results = layout.results(i)
    new = list(lines)
    if results and rng.random() < 0.7:
        new, rewired = rewire_uses(new, layout, rng, results, i, i)
        note += rewired
    del new[i]
    return new, note


def duplicate_op(lines, layout, rng, vocabulary):
    i = pick_op(rng, layout)
    if i is None:
        return None
    copy = lines[i]
    match = RESULTS.match(layout.codes[i])
    if match:
        suffix = "_dup%d" % rng.randrange(100)
        renamed = re.sub(r"%[\w$.]+", lambda m: m.group() + suffix,
                         copy[match.start(2):match.end(2)])
        copy = copy[:match.start(2)] + renamed + copy[match.end(2):]
    return (lines[:i + 1] + [copy] + lines[i + 1:],
            "duplicate-op line %d `%s`" % (i + 1, lines[i].strip()))


def swap_ops(lines, layout, rng, vocabulary):
    pairs = [i for i in layout.ops if i + 1 in layout.op_set]
    if not pairs:
        return None
    # Half of the time only pairs where the second op does not use the
    # first one's results: the mutant stays valid, only the order changes.
    independent = [i for i in pairs if not any(
        re.search(re.escape(r) + r"(?![\w$.])", layout.codes[i + 1])
        for r in layout.results(i))]
    i = rng.choice(independent if independent and rng.random() < 0.5
                   else pairs)
    new = list(lines)
    new[i], new[i + 1] = new[i + 1], new[i]
    return new, "swap-ops lines %d-%d" % (i + 1, i + 2)


def int_literal(lines, layout, rng, vocabulary):
    sites = [(i, s, e, v) for i, code in enumerate(layout.codes)
             for s, e, v in int_literals(code)]
    if not sites:
        return None
    i, start, end, old = rng.choice(sites)
    value = edge_value(rng, old)
    new = list(lines)
    new[i] = replace(lines[i], start, end, str(value))
    return new, "int-literal line %d: %d -> %d" % (i + 1, old, value)


def dimension_value(rng, old):
    if rng.random() < 0.1:
        return "?"
    if rng.random() < 0.5:
        return str(rng.choice([0, 1, 2, 3, 5, 7, 31, 33, 48, 96, 1024, 65536,
                               2147483647, 4294967296, 9223372036854775807]))
    if old == "?":
        return str(rng.choice([1, 16, 64]))
    return str(max(0, edge_value(rng, int(old))))


def dim_one(lines, layout, rng, vocabulary):
    sites = [(i, s, e) for i, code in enumerate(layout.codes)
             for s, e in shapes(code)]
    if not sites:
        return None
    i, start, end = rng.choice(sites)
    dims = lines[i][start:end].split("x")[:-1]
    k = rng.randrange(len(dims))
    old, dims[k] = dims[k], dimension_value(rng, dims[k])
    new = list(lines)
    new[i] = replace(lines[i], start, end, "x".join(dims) + "x")
    return new, "dim-one line %d: dim %d %s -> %s" % (i + 1, k, old, dims[k])


def dim_all(lines, layout, rng, vocabulary):
    values = sorted({d for code in layout.codes for s, e in shapes(code)
                     for d in code[s:e].split("x")[:-1] if d != "?"}, key=int)
    if not values:
        return None
    old = rng.choice(values)
    value = str(rng.choice([int(old) + 1, int(old) - 1, int(old) * 2,
                            int(old) // 2, 48, 3, 1, 7, 33, 96, 1024]))
    if value == old:
        value = str(int(old) + 1)
    new = list(lines)
    for i, code in enumerate(layout.codes):
        for start, end in reversed(shapes(code)):
            dims = [value if d == old else d
                    for d in new[i][start:end].split("x")[:-1]]
            new[i] = replace(new[i], start, end, "x".join(dims) + "x")
    return new, "dim-all: every %sx -> %sx" % (old, value)


def elem_sites(layout):
    return [(name, i, s, e) for name in ELEMENT_TYPES
            for i, code in enumerate(layout.codes)
            for s, e in element_types(code, name)]


def elem_one(lines, layout, rng, vocabulary):
    sites = elem_sites(layout)
    if not sites:
        return None
    name, i, start, end = rng.choice(sites)
    value = rng.choice(ELEMENT_TYPES[name])
    new = list(lines)
    new[i] = replace(lines[i], start, end, value)
    return new, "elem-one line %d: %s -> %s" % (i + 1, name, value)


def elem_all(lines, layout, rng, vocabulary):
    present = sorted({site[0] for site in elem_sites(layout)})
    if not present:
        return None
    name = rng.choice(present)
    value = rng.choice(ELEMENT_TYPES[name])
    new = list(lines)
    for i, code in enumerate(layout.codes):
        for start, end in reversed(element_types(code, name)):
            new[i] = replace(new[i], start, end, value)
    return new, "elem-all: every %s -> %s" % (name, value)


ATTR_DICT = re.compile(r"\{([^{}]*)\}")
ATTR_ENTRY = re.compile(r"^\s*([\w$.]+)\s*(?:=\s*(.*?))?\s*$")
EXTRA_ATTRIBUTES = {
    "tile.gemm": ["transpose_a", "transpose_b", "clear",
                  "lowering = #tile.gemm_lowering<scalar>",
                  "lowering = #tile.gemm_lowering<mma_sync>",
                  "lowering = #tile.gemm_lowering<wgmma>",
                  "warps = array<i64: 4, 1>", "warps = array<i64: 1>"],
    "tile.alloc_shared": ["swizzle = 64", "swizzle = 32", "swizzle = 128",
                          "alignment = 16", "alignment = 3"],
    "tile.copy": ["convert_layout"],
    "tile.kernel": ["min_blocks_per_sm = 2", "min_blocks_per_sm = 0",
                    "reference = @missing"],
    "argument": ["tile.multiple_of = 8", "tile.multiple_of = 0"],
}


def attr_dicts(layout):
    """(line, start, end, owner) of the inside of each inline attribute
    dictionary: of single-line ops, `attributes {...}` (owner: tile.kernel)
    and argument attributes (owner: argument)."""
    sites = []
    for i, code in enumerate(layout.codes):
        for m in ATTR_DICT.finditer(code):
            inside = m.group(1)
            if i in layout.op_set:
                sites.append((i, m.start(1), m.end(1), layout.op_name(i)))
            elif inside.strip() and all(ATTR_ENTRY.match(inside[s:e])
                                        for s, e in split_top_level(inside)):
                owner = ("tile.kernel" if code[:m.start()].rstrip().endswith(
                    "attributes") else "argument")
                sites.append((i, m.start(1), m.end(1), owner))
    return sites


def collect_attributes(texts):
    """The attr-dict entries of the corpus (and a few more), by the op they
    belong to; under "*" all of them."""
    vocabulary = {owner: set(entries)
                  for owner, entries in EXTRA_ATTRIBUTES.items()}
    for text in texts:
        layout = Layout(text.splitlines())
        for i, start, end, owner in attr_dicts(layout):
            inside = layout.lines[i][start:end]
            for s, e in split_top_level(inside):
                entry = inside[s:e].strip()
                if entry and ATTR_ENTRY.match(entry) and len(entry) < 300:
                    vocabulary.setdefault(owner, set()).add(entry)
    vocabulary["*"] = set().union(*vocabulary.values())
    return {owner: sorted(entries) for owner, entries in vocabulary.items()}


def attribute(lines, layout, rng, vocabulary):
    """Removes or changes an entry of an attr-dict, or adds one: mostly an
    entry the corpus has on the same op."""
    sites = attr_dicts(layout)
    new = list(lines)
    roll = rng.random()
    if sites and roll < 0.6:
        i, start, end, owner = rng.choice(sites)
        inside = lines[i][start:end]
        entries = [inside[s:e].strip() for s, e in split_top_level(inside)]
        entries = [e for e in entries if e]
        if not entries:
            return None
        k = rng.randrange(len(entries))
        old = entries[k]
        key = ATTR_ENTRY.match(old).group(1)
        if roll < 0.2:
            del entries[k]
            what = "removed `%s`" % old
        elif roll < 0.45:
            same_key = [e for e in vocabulary["*"]
                        if e.startswith(key + " ") and e != old]
            entries[k] = rng.choice(same_key or vocabulary["*"])
            what = "`%s` -> `%s`" % (old, entries[k])
        else:
            value = rng.choice(vocabulary["*"]).partition("=")[2].strip()
            entries[k] = "%s = %s" % (key, value or "unit")
            what = "`%s` -> `%s`" % (old, entries[k])
        text = ", ".join(entries)
        if text:
            new[i] = replace(lines[i], start, end, text)
        else:
            before = lines[i][:start - 1].rstrip()
            if before.endswith("attributes"):
                before = before[:-len("attributes")].rstrip()
            new[i] = before + lines[i][end + 1:]
        return new, "attribute line %d: %s" % (i + 1, what)

    def entry_for(owner):
        known = vocabulary.get(owner)
        return rng.choice(known if known and rng.random() < 0.8
                          else vocabulary["*"])

    # Add an entry: to an existing dictionary or to a single-line op,
    # mostly to one of the ops the corpus has attributes on.
    if sites and rng.random() < 0.3:
        i, start, end, owner = rng.choice(sites)
        entry = entry_for(owner)
        text = lines[i][start:end].strip()
        new[i] = replace(lines[i], start, end,
                         (text + ", " if text else "") + entry)
        return new, "attribute line %d: added `%s`" % (i + 1, entry)
    ops = [i for i in layout.ops if "{" not in layout.codes[i]]
    preferred = [i for i in ops if layout.op_name(i) in vocabulary]
    if not ops:
        return None
    i = rng.choice(preferred if preferred and rng.random() < 0.8 else ops)
    entry = entry_for(layout.op_name(i))
    code = layout.codes[i]
    colon = code.find(" : ", OP_NAME.match(code).end())
    at = colon if colon >= 0 else len(code.rstrip())
    new[i] = replace(lines[i], at, at, " {%s}" % entry)
    return new, "attribute line %d: added `{%s}`" % (i + 1, entry)


REDUCE_KINDS = ["add", "mul", "max", "min", "and", "or", "xor"]
MEMORY_SPACES = ["#gpu.address_space<workgroup>",
                 "#gpu.address_space<private>",
                 "#gpu.address_space<global>", "#tile.fragment", "3", None]
OP_FAMILIES = [
    ["tile.serial", "tile.unroll", "tile.vectorized", "tile.pipelined"],
    ["tile.alloc_shared", "tile.alloc_local", "tile.alloc_fragment"],
    ["tile.block_id", "tile.thread_id", "tile.block_dim", "tile.grid_dim"],
    ["tile.reduce", "tile.thread_allreduce"],
    ["arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.remui",
     "arith.minui", "arith.ceildivui", "arith.andi", "arith.ori",
     "arith.divsi", "arith.shli"],
    ["arith.addf", "arith.subf", "arith.mulf", "arith.divf",
     "arith.maximumf", "arith.minimumf"],
    ["math.exp", "math.exp2", "math.log", "math.sqrt", "math.rsqrt",
     "math.absf", "arith.negf"],
    ["arith.extf", "arith.truncf"],
    ["arith.index_cast", "arith.index_castui"],
    ["arith.sitofp", "arith.uitofp"],
    ["memref.load", "vector.load"],
    ["tile.fill", "tile.atomic_add"],
]
CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def regex_sites(layout, pattern):
    """(line, start, end, text) of group 1 of a regex in every code line."""
    return [(i, m.start(1), m.end(1), m.group(1))
            for i, code in enumerate(layout.codes)
            for m in re.finditer(pattern, code)]


def keyword(lines, layout, rng, vocabulary):
    """One keyword-level change; tries the kinds in random order."""
    kinds = [keyword_reduce_kind, keyword_dim, keyword_across,
             keyword_memory_space, keyword_lowering, keyword_cmpi,
             keyword_op_family, keyword_toggle]
    rng.shuffle(kinds)
    for kind in kinds:
        result = kind(lines, layout, rng)
        if result:
            return result
    return None


def substitute(lines, rng, sites, choices, label):
    if not sites:
        return None
    i, start, end, old = rng.choice(sites)
    value = rng.choice([c for c in choices if c != old] or choices)
    new = list(lines)
    new[i] = replace(lines[i], start, end, value)
    return new, "keyword line %d: %s %s -> %s" % (i + 1, label, old, value)


def keyword_reduce_kind(lines, layout, rng):
    sites = regex_sites(layout, r"\btile\.(?:reduce|thread_allreduce)\s+"
                        r"(\w+)")
    return substitute(lines, rng, sites, REDUCE_KINDS, "reduction")


def keyword_dim(lines, layout, rng):
    sites = regex_sites(layout, r"\btile\.(?:block_id|thread_id|block_dim|"
                        r"grid_dim)\s+(\w+)")
    return substitute(lines, rng, sites, ["x", "y", "z"], "dimension")


def keyword_across(lines, layout, rng):
    sites = regex_sites(layout, r"\bacross\s*\(([^)]*)\)")
    choices = ["x", "y", "z", "x, y", "y, x", "x, x", "x, y, z", ""]
    return substitute(lines, rng, sites, choices, "across")


def keyword_memory_space(lines, layout, rng):
    sites = []
    for i, code in enumerate(layout.codes):
        for start, end in memref_types(code):
            inner = code[start + 7:end - 1]
            parts = split_top_level(inner)
            last = inner[parts[-1][0]:parts[-1][1]].strip()
            if len(parts) > 1 and (last.startswith("#gpu.address_space") or
                                   last.startswith("#tile.fragment") or
                                   last.isdigit()):
                sites.append((i, start + 7 + parts[-2][1], end - 1, last))
            else:
                sites.append((i, end - 1, end - 1, None))
    if not sites:
        return None
    i, start, end, old = rng.choice(sites)
    value = rng.choice([s for s in MEMORY_SPACES if s != old])
    everywhere = rng.random() < 0.3 and old is not None
    new = list(lines)
    text = ", " + value if value else ""
    if everywhere:
        new = [line.replace(", " + old, text) for line in new]
    else:
        new[i] = replace(lines[i], start, end, text)
    return new, "keyword line %d: memory space %s -> %s%s" % (
        i + 1, old, value, " everywhere" if everywhere else "")


def keyword_lowering(lines, layout, rng):
    sites = regex_sites(layout, r"#tile\.gemm_lowering<(\w*)>")
    return substitute(lines, rng, sites, ["wgmma", "mma_sync", "scalar"],
                      "lowering")


def keyword_cmpi(lines, layout, rng):
    sites = regex_sites(layout, r"\barith\.cmpi\s+(\w+)")
    return substitute(lines, rng, sites, CMPI, "predicate")


def keyword_op_family(lines, layout, rng):
    families = {op: family for family in OP_FAMILIES for op in family}
    sites = [(i, m.start(1), m.end(1), m.group(1))
             for i, code in enumerate(layout.codes)
             for m in [OP_NAME.match(code)] if m and m.group(1) in families]
    if not sites:
        return None
    i, start, end, old = rng.choice(sites)
    value = rng.choice([op for op in families[old] if op != old])
    new = list(lines)
    line = replace(lines[i], start, end, value)
    # tile.pipelined has `stages N` where the other loops have none.
    if old == "tile.pipelined":
        line = re.sub(r"\s+stages\s+\d+(\s+rolled)?", "", line)
    elif value == "tile.pipelined":
        line = re.sub(r"\s*\{\s*$", " stages %d {" % rng.choice([1, 2, 3]),
                      line)
    new[i] = line
    return new, "keyword line %d: op %s -> %s" % (i + 1, old, value)


def keyword_toggle(lines, layout, rng):
    """Adds or removes an optional keyword: `rolled` after `stages N`,
    `clear` of tile.reduce, `shape [...]` of tile.copy, `regs N`."""
    sites = []
    for i, code in enumerate(layout.codes):
        for pattern, added in [
                (r"\bstages\s+\d+( rolled)?", " rolled"),
                (r"\btile\.reduce\b.*\bdim\s+\d+( clear)?", " clear"),
                (r"\btile\.copy\b[^:]*?\]?( shape \[[^\]]*\])?(?= *[:{])",
                 " shape [%d, %d]" % (rng.choice([1, 2, 4, 64]),
                                      rng.choice([1, 4, 8, 3]))),
                (r"\bthreads \d+( regs \d+)?", " regs %d" % rng.choice(
                    [24, 40, 232, 240, 256, 7]))]:
            m = re.search(pattern, code)
            if m:
                sites.append((i, m, added))
    if not sites:
        return None
    i, m, added = rng.choice(sites)
    new = list(lines)
    if m.group(1):
        new[i] = replace(lines[i], m.start(1), m.end(1), "")
        what = "removed `%s`" % m.group(1).strip()
    else:
        new[i] = replace(lines[i], m.end(), m.end(), added)
        what = "added `%s`" % added.strip()
    return new, "keyword line %d: %s" % (i + 1, what)


def replace_operand(lines, layout, rng, vocabulary):
    sites = []
    for function in layout.functions:
        first, occurrences = layout.names(function)
        for i, start, end, name in occurrences:
            if first[name] < i and not is_defining(layout, i, start, end):
                sites.append((function, first, i, start, end, name))
    if not sites:
        return None
    function, first, i, start, end, name = rng.choice(sites)
    earlier = [n for n, line in first.items() if line < i and n != name]
    if not earlier:
        return None
    kind = layout.kind_of(name, first[name])
    same = [n for n in earlier if layout.kind_of(n, first[n]) == kind]
    value = rng.choice(same if same and rng.random() < 0.6 else earlier)
    new = list(lines)
    new[i] = replace(lines[i], start, end, value)
    return new, "replace-operand line %d: %s -> %s" % (i + 1, name, value)


MUTATORS = [
    ("delete-op", delete_op, 2),
    ("duplicate-op", duplicate_op, 2),
    ("swap-ops", swap_ops, 2),
    ("int-literal", int_literal, 4),
    ("dim-one", dim_one, 2),
    ("dim-all", dim_all, 2),
    ("elem-one", elem_one, 1),
    ("elem-all", elem_all, 2),
    ("attribute", attribute, 3),
    ("keyword", keyword, 3),
    ("replace-operand", replace_operand, 3),
]


def mutate(lines, rng, vocabulary):
    """1 to 3 mutations of a seed's lines; returns the lines and notes."""
    notes = []
    names = [m[0] for m in MUTATORS]
    weights = [m[2] for m in MUTATORS]
    functions = {m[0]: m[1] for m in MUTATORS}
    for _ in range(rng.randint(1, 3)):
        layout = Layout(lines)
        for _attempt in range(20):
            name = rng.choices(names, weights)[0]
            result = functions[name](lines, layout, rng, vocabulary)
            if result and result[0] != lines:
                lines, note = result
                notes.append(note)
                break
    return lines, notes


# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------


DEFINED_IN = re.compile(r'(tile\.defined_in\s*=\s*")([^"/][^"]*)"')


class Seed:
    def __init__(self, path, chunk, text, runs):
        self.path = path
        self.chunk = chunk
        # Mutants run from a temporary directory: a function defined in a
        # file beside the seed (tile.defined_in) is named by its full path.
        directory = os.path.dirname(os.path.abspath(path))
        text = DEFINED_IN.sub(
            lambda m: '%s%s"' % (m.group(1),
                                 os.path.join(directory, m.group(2))), text)
        self.text = text
        self.lines = text.splitlines()
        self.runs = runs
        self.has_reference = "reference = @" in text

    def name(self):
        name = os.path.relpath(self.path, ROOT)
        return name + ("#%d" % self.chunk if self.chunk else "")


def suite_runs(text):
    """The tile-run arguments of a file's CPU-SUITE lines, or of its
    GPU-SUITE lines without their timing flags (as scripts/cpu-suite.py)."""
    def lines(prefix):
        return [line.split(":", 1)[1].strip() for line in text.splitlines()
                if line.startswith("// %s:" % prefix)]
    runs = lines("CPU-SUITE")
    if not runs:
        runs = [TIMING_FLAGS.sub("", args).strip()
                for args in lines("GPU-SUITE")]
    return [args or "--check" for args in runs]


def without_comments(text):
    kept = [line.rstrip() for line in text.splitlines()
            if not line.lstrip().startswith("//")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
    return text + "\n" if text else ""


def load_seeds(patterns, tool, jobs, workdir):
    paths = sorted({p for pattern in patterns
                    for p in glob.glob(os.path.join(ROOT, pattern),
                                       recursive=True)})
    skipped = [os.path.join(ROOT, d) + os.sep for d in SKIPPED_DIRS]
    candidates = []
    for path in paths:
        if any(path.startswith(s) for s in skipped) or not os.path.isfile(
                path):
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        runs = suite_runs(text)
        chunks = re.split(r"^// -----.*$", text, flags=re.M)
        for k, chunk in enumerate(chunks):
            body = without_comments(chunk)
            if body.strip():
                candidates.append(Seed(path, k if len(chunks) > 1 else 0,
                                       body, runs))

    def parses(item):
        k, seed = item
        path = os.path.join(workdir, "seed-%d.mlir" % k)
        with open(path, "w") as f:
            f.write(seed.text)
        result = run_tool([tool, path, "-o", "/dev/null"], TILE_OPT_TIMEOUT,
                          0)
        os.remove(path)
        return result.returncode == 0

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        ok = list(pool.map(parses, enumerate(candidates)))
    return [s for s, good in zip(candidates, ok) if good], len(candidates)


# ---------------------------------------------------------------------------
# Running the tools and classifying what they did
# ---------------------------------------------------------------------------


class Result:
    def __init__(self, command, returncode, output, seconds, timed_out):
        self.command = command
        self.returncode = returncode
        self.output = output
        self.seconds = seconds
        self.timed_out = timed_out


def run_tool(command, timeout, memory_mb):
    """Runs a command in its own process group, under an address-space
    limit (MiB; 0: none); kills the group when it runs past the timeout."""
    wrapped = command
    env = None
    if memory_mb and "ASAN_OPTIONS" in os.environ:
        # A sanitizer build (scripts/sanitizer-test.sh sets ASAN_OPTIONS)
        # reserves terabytes of address space for its shadow memory: limit
        # the resident size through ASan instead of ulimit -v.
        env = dict(os.environ)
        env["ASAN_OPTIONS"] += ":hard_rss_limit_mb=%d" % memory_mb
    elif memory_mb:
        limit = 'ulimit -v %d && exec "$@"' % (memory_mb * 1024)
        wrapped = ["sh", "-c", limit, "sh"] + command
    start = time.time()
    process = subprocess.Popen(wrapped, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL,
                               start_new_session=True, env=env)
    timed_out = False
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        # SIGQUIT first: LLVM's handler prints where the tool was (the
        # stack and, on the pretty stack, the pass or parser it was in).
        for sig, grace in ((signal.SIGQUIT, 5), (signal.SIGKILL, None)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                pass
            try:
                output, _ = process.communicate(timeout=grace)
                break
            except subprocess.TimeoutExpired:
                continue
    return Result(command, process.returncode,
                  output.decode("utf-8", errors="replace"),
                  time.time() - start, timed_out)


# A symbolized stack frame: the function, then the binary
# (`(/path/tile-opt+0x12)`) or the source file (`Vectorize.cpp:0:0`).
FRAME = re.compile(r"^[ \t]*#\d+[ \t]+0x[0-9a-f]+[ \t]+(?:in[ \t]+)?(.+?)"
                   r"(?:[ \t]+\(\S+\+0x[0-9a-f]+\)|[ \t]+(\S+?):\d+(?::\d+)?)?"
                   r"[ \t]*$", re.M)
# The repository's sources: a frame in one of them is ours even when its
# function (a static one) has no `tile` in its name.
OUR_SOURCES = {os.path.basename(p) for d in ("lib", "tools")
               for p in glob.glob(os.path.join(ROOT, d, "**", "*.cpp"),
                                  recursive=True)}
NOT_THE_CAUSE = re.compile(r"llvm::sys::|SignalHandler|PrintStackTrace|"
                           r"CrashRecoveryContext|report_fatal_error|"
                           r"llvm_unreachable_internal|__assert|^abort|"
                           r"^raise|__pthread_kill|__restore_rt|^_start|"
                           r"__libc_|^malloc|^free|^operator new|"
                           r"^operator delete|^std::")
# glibc's messages when it finds its heap corrupted.
HEAP_CORRUPTION = re.compile(r"^(?:malloc\(\)|free\(\)|realloc\(\)|"
                             r"malloc_consolidate\(\)|munmap_chunk\(\)|"
                             r"double free|corrupted |Fatal glibc error)",
                             re.M)
# How far (in frames) from the crash a frame of ours may be to name the
# caller in the signature (beyond, the crash site alone names it).
CALLER_DEPTH = 8


def function_name(frame):
    """The qualified name of a stack frame's function, without arguments
    and template arguments."""
    name = frame.replace("(anonymous namespace)", "{anon}")
    name = name.split("(")[0]
    while True:
        shorter = re.sub(r"<[^<>]*>", "", name)
        if shorter == name:
            break
        name = shorter
    return name.strip()


def normalized(message):
    """A message without the parts that differ between mutants."""
    message = re.sub(r"/\S+/", "", message)
    message = re.sub(r"0x[0-9a-fA-F]+", "0x?", message)
    message = re.sub(r"-?\d+", "N", message)
    return message.strip()[:160]


def crash_signature(tool, output):
    if HEAP_CORRUPTION.search(output):
        return "heap corruption in %s" % tool
    m = re.search(r"Assertion `(.+?)' failed", output)
    if m:
        return "assertion: %s" % m.group(1)
    m = re.search(r"^(.*)\n(?:.*\n)?UNREACHABLE executed at (\S+?):(\d+)",
                  output, re.M)
    if m:
        return "unreachable: %s at %s:%s" % (
            m.group(1).strip(), os.path.basename(m.group(2)), m.group(3))
    m = re.search(r"LLVM ERROR: (.*)", output)
    if m:
        return "llvm error in %s: %s" % (tool, normalized(m.group(1)))
    m = re.search(r"runtime error: (.*)", output)
    if m:
        return "ubsan: %s" % normalized(m.group(1))
    if re.search(r"std::bad_alloc|out of memory", output):
        return "out of memory in %s" % tool
    frames = []  # (function, label, ours)
    for frame, source in FRAME.findall(output):
        name = function_name(frame)
        if not name or NOT_THE_CAUSE.search(name):
            continue
        in_source = source in OUR_SOURCES
        frames.append((name, "%s (%s)" % (name, source) if in_source
                       else name, in_source or "tile" in name))
    known = [k for k, (name, _, ours) in enumerate(frames)
             if ours or re.search(r"mlir::|\{anon\}", name)]
    m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", output)
    prefix = "asan %s" % m.group(1) if m else "crash"
    if not known:
        return "%s in %s: %s" % (prefix, tool, frames[0][1] if frames
                                 else "no stack trace")
    # The innermost frame of MLIR or of ours, and when it is MLIR's, the
    # closest caller of ours (an op's parser does not count: the crash is
    # then the generic parser's).
    crash = known[0]
    caller = None if frames[crash][2] else next(
        (k for k in known if crash < k <= crash + CALLER_DEPTH and
         frames[k][2] and not frames[k][0].endswith("::parse")), None)
    if caller is not None:
        return "%s in %s via %s" % (prefix, frames[crash][1],
                                    frames[caller][1])
    return "%s in %s" % (prefix, frames[crash][1])


def classify(tool, result):
    """The finding's signature, or None when the run went as it should."""
    if HEAP_CORRUPTION.search(result.output):
        return "heap corruption in %s" % tool
    if result.timed_out:
        return "hang in %s" % tool
    code = result.returncode
    if code < 0 or code > 128 or any(m in result.output
                                     for m in CRASH_MARKERS):
        return crash_signature(tool, result.output)
    if tool == "tile-opt" and code == 0 and "error:" in result.output:
        return "accepted-but-invalid in tile-opt: %s" % normalized(
            re.search(r"error: (.*)", result.output).group(1))
    return None


def short_name(signature):
    text = re.sub(r"^(crash|assertion|unreachable|llvm error|asan \S+) "
                  r"(in )?", "", signature)
    text = re.sub(r"\b(mlir|tile|llvm|\{anon\})::", "", text)
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60]


# ---------------------------------------------------------------------------
# The fuzzing loop
# ---------------------------------------------------------------------------


class Fuzzer:
    def __init__(self, args, seeds, vocabulary, workdir):
        self.args = args
        self.seeds = seeds
        self.vocabulary = vocabulary
        self.workdir = workdir
        self.opt_args = shlex.split(args.tile_opt_args)
        self.run_args = shlex.split(args.tile_run_args)
        self.baselines = {}
        self.lock = threading.Lock()

    def tool_command(self, tool, path, run_args):
        if tool == "tile-opt":
            return [self.args.tile_opt, path] + self.opt_args
        return ([self.args.tile_run, path, "--target=cpu"] + self.run_args +
                run_args)

    def make_input(self, index):
        """The index-th mutant: (seed, text, notes, tile-run args or None).
        Depends only on --seed and the index."""
        rng = random.Random("%d/%d" % (self.args.seed, index))
        seed = rng.choice(self.seeds)
        lines, notes = mutate(seed.lines, rng, self.vocabulary)
        run_args = None
        if rng.random() < self.args.cpu_run_fraction:
            if seed.runs:
                run_args = shlex.split(rng.choice(seed.runs))
            else:
                run_args = ["--check"] if seed.has_reference else []
        return seed, "\n".join(lines) + "\n", notes, run_args

    def runs_fast(self, seed, run_args):
        """Whether tile-run runs the seed itself with these arguments in a
        third of its time limit: else a mutant that times out says nothing
        (the seed's own run is not counted as an input)."""
        key = (seed.path, seed.chunk, tuple(run_args))
        with self.lock:
            if key in self.baselines:
                return self.baselines[key]
        path = os.path.join(self.workdir, "seed-%d.mlir" % id(key))
        with open(path, "w") as f:
            f.write(seed.text)
        result = run_tool(self.tool_command("tile-run", path, run_args),
                          TILE_RUN_TIMEOUT / 3, self.args.memory_limit)
        os.remove(path)
        with self.lock:
            self.baselines[key] = not result.timed_out
        return not result.timed_out

    def run(self, index, seed, text, run_args):
        """Runs the tools on a mutant; [(tool, result, signature)]."""
        path = os.path.join(self.workdir, "mutant-%d.mlir" % index)
        with open(path, "w") as f:
            f.write(text)
        runs = []
        try:
            result = run_tool(self.tool_command("tile-opt", path, []),
                              TILE_OPT_TIMEOUT, self.args.memory_limit)
            runs.append(("tile-opt", result, classify("tile-opt", result)))
            if (run_args is not None and result.returncode == 0 and
                    self.runs_fast(seed, run_args)):
                result = run_tool(self.tool_command("tile-run", path,
                                                    run_args),
                                  TILE_RUN_TIMEOUT, self.args.memory_limit)
                runs.append(("tile-run", result,
                             classify("tile-run", result)))
        finally:
            os.remove(path)
        return runs

    def reproduces(self, tool, run_args, signature, text, cache):
        if text not in cache:
            path = os.path.join(self.workdir, "reduce.mlir")
            with open(path, "w") as f:
                f.write(text)
            timeout = TILE_OPT_TIMEOUT if tool == "tile-opt" else \
                TILE_RUN_TIMEOUT
            result = run_tool(self.tool_command(tool, path, run_args),
                              timeout, self.args.memory_limit)
            cache[text] = classify(tool, result) == signature
        return cache[text]

    def reduce(self, finding):
        """Deletes lines, whole functions and whole regions while the same
        signature reproduces, within --reduce-time seconds."""
        deadline = time.time() + self.args.reduce_time
        cache = {}
        lines = finding.text.splitlines()

        def attempt(candidate):
            return self.reproduces(finding.tool, finding.run_args,
                                   finding.signature,
                                   "\n".join(candidate) + "\n", cache)

        progress = True
        while progress and time.time() < deadline:
            progress = False
            for start, end in removal_spans(lines):
                if time.time() >= deadline:
                    break
                if end >= len(lines):
                    continue
                candidate = lines[:start] + lines[end + 1:]
                if candidate and attempt(candidate):
                    lines = candidate
                    progress = True
        return "\n".join(lines) + "\n"


def removal_spans(lines):
    """What the reducer tries to delete, largest first: top-level ops,
    region ops with their bodies, region bodies, single lines; from the
    end of the file, so that deleting one does not move the next."""
    layout = Layout(lines)
    spans = set()
    top = [i for i, line in enumerate(lines)
           if line[:1] not in ("", " ", "}", ")") and
           layout.braces_before[i] == 0 and layout.brackets_before[i] == 0]
    for k, i in enumerate(top):
        spans.add((i, (top[k + 1] if k + 1 < len(top) else len(lines)) - 1))
    for i, code in enumerate(layout.codes):
        if code.rstrip().endswith("{"):
            depth = layout.braces_before[i] + layout.delta[i][1]
            end = next((j for j in range(i + 1, len(lines))
                        if layout.braces_before[j] + layout.delta[j][1] <
                        depth), None)
            if end is not None:
                if layout._starts_statement(i) and \
                        not code.lstrip().startswith("}"):
                    spans.add((i, end))
                if end > i + 1:
                    spans.add((i + 1, end - 1))
        if code.strip():
            spans.add((i, i))
    return sorted(spans, key=lambda s: (-(s[1] - s[0]), -s[0]))


class Finding:
    def __init__(self, signature, tool, index, seed, text, notes, run_args,
                 result):
        self.signature = signature
        self.tool = tool
        self.index = index
        self.first_index = index
        self.seed = seed
        self.text = text
        self.notes = notes
        self.run_args = run_args
        self.result = result
        self.count = 1


def write_finding(fuzzer, number, finding, out):
    base = os.path.join(out, "%d-%s" % (number, short_name(
        finding.signature)))
    with open(base + ".orig.mlir", "w") as f:
        f.write(finding.text)
    text = finding.text
    if fuzzer.args.reduce_time > 0:
        text = fuzzer.reduce(finding)
    path = base + ".mlir"
    with open(path, "w") as f:
        f.write(text)
    timeout = TILE_OPT_TIMEOUT if finding.tool == "tile-opt" else \
        TILE_RUN_TIMEOUT
    command = fuzzer.tool_command(finding.tool, path, finding.run_args or [])
    result = run_tool(command, timeout, fuzzer.args.memory_limit)
    signature = classify(finding.tool, result)
    with open(base + ".log", "w") as f:
        f.write("signature: %s\n" % finding.signature)
        if signature != finding.signature:
            f.write("(this run of the reproducer: %s)\n" % signature)
        f.write("seed: %s\n" % finding.seed.name())
        f.write("mutations:\n%s\n" % "".join(
            "  %s\n" % note for note in finding.notes))
        f.write("hits: %d (first: input %d)\n" % (finding.count,
                                                  finding.first_index))
        f.write("lines: %d (before reduction: %d)\n" % (
            len(text.splitlines()), len(finding.text.splitlines())))
        f.write("memory limit: %s MiB, timeout: %d s\n" % (
            fuzzer.args.memory_limit or "no", timeout))
        f.write("command: %s\n" % " ".join(shlex.quote(c) for c in command))
        f.write("exit status: %s%s, %.1f s\n\n" % (
            result.returncode, " (timed out)" if result.timed_out else "",
            result.seconds))
        f.write(result.output)
    return path


def main():
    parser = argparse.ArgumentParser(
        description="Structure-aware mutation fuzzer for tile-opt/tile-run.")
    parser.add_argument("--tile-opt",
                        default=os.path.join(ROOT, "build", "bin", "tile-opt"))
    parser.add_argument("--tile-run",
                        default=os.path.join(ROOT, "build", "bin", "tile-run"))
    parser.add_argument("--tile-opt-args", default=TILE_OPT_ARGS,
                        help="tile-opt arguments after the input (default: "
                        "%(default)s)")
    parser.add_argument("--tile-run-args", default=TILE_RUN_ARGS,
                        help="tile-run arguments besides --target=cpu and "
                        "the seed's (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time", type=float, default=300,
                        help="seconds after which no new mutant starts")
    parser.add_argument("--max-inputs", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--corpus", nargs="+", default=DEFAULT_CORPUS,
                        metavar="GLOB", help="relative to the repository")
    parser.add_argument("--out", default="/tmp/fuzz-findings")
    parser.add_argument("--cpu-run-fraction", type=float, default=0.05)
    parser.add_argument("--reduce-time", type=float, default=60,
                        help="seconds of reduction per unique finding")
    parser.add_argument("--memory-limit", type=int, default=4096,
                        help="address-space limit of the tools in MiB "
                        "(0: none)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    def say(text):
        if not args.quiet:
            print(text, flush=True)

    for tool in (args.tile_opt, args.tile_run):
        if not os.access(tool, os.X_OK):
            sys.exit("fuzz: %s is not an executable" % tool)
    workdir = tempfile.mkdtemp(prefix="tile-fuzz-")
    try:
        seeds, chunks = load_seeds(args.corpus, args.tile_opt, args.jobs,
                                   workdir)
        if not seeds:
            sys.exit("fuzz: no seed in %s" % " ".join(args.corpus))
        vocabulary = collect_attributes(s.text for s in seeds)
        say("fuzz: %d seeds (of %d chunks), %d attribute entries" % (
            len(seeds), chunks, len(vocabulary["*"])))
        fuzzer = Fuzzer(args, seeds, vocabulary, workdir)
        return fuzz(fuzzer, args, say)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def fuzz(fuzzer, args, say):
    start = time.time()
    findings = {}
    counts = {"inputs": 0, "tile-opt": 0, "accepted": 0, "tile-run": 0,
              "findings": 0}
    seconds = {"tile-opt": 0.0, "tile-run": 0.0}
    seen = {s.text for s in fuzzer.seeds}
    hits = []
    next_index, last_report = 0, start

    def record(index, seed, text, notes, run_args, runs):
        counts["inputs"] += 1
        for tool, result, signature in runs:
            counts[tool] += 1
            seconds[tool] += result.seconds
            if tool == "tile-opt" and result.returncode == 0:
                counts["accepted"] += 1
            if signature is None:
                continue
            counts["findings"] += 1
            hits.append("%d\t%s\t%s\t%s\t%s\n" % (
                index, tool, signature, seed.name(), "; ".join(notes)))
            finding = findings.get(signature)
            if finding is None:
                findings[signature] = Finding(signature, tool, index, seed,
                                              text, notes, run_args, result)
                say("  new: %s (input %d, %s)" % (signature, index,
                                                  seed.name()))
                continue
            # Keep the smallest mutant (then the first) of each signature.
            if (len(text), index) < (len(finding.text), finding.index):
                smaller = Finding(signature, tool, index, seed, text, notes,
                                  run_args, result)
                smaller.count = finding.count
                smaller.first_index = finding.first_index
                findings[signature] = finding = smaller
            finding.count += 1
            finding.first_index = min(finding.first_index, index)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = {}
        while True:
            while (len(pending) < 2 * args.jobs and
                   time.time() - start < args.time and
                   (args.max_inputs is None or next_index < args.max_inputs)):
                index = next_index
                next_index += 1
                seed, text, notes, run_args = fuzzer.make_input(index)
                if text in seen:
                    continue
                seen.add(text)
                future = pool.submit(fuzzer.run, index, seed, text, run_args)
                pending[future] = (index, seed, text, notes, run_args)
            if not pending:
                break
            done, _ = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                record(*pending.pop(future), future.result())
            if time.time() - last_report >= 60:
                last_report = time.time()
                elapsed = last_report - start
                say("[%5.0fs] %d inputs (%.1f/s), %d accepted, %d tile-run, "
                    "%d findings (%d unique)" % (
                        elapsed, counts["inputs"], counts["inputs"] / elapsed,
                        counts["accepted"], counts["tile-run"],
                        counts["findings"], len(findings)))
    elapsed = time.time() - start

    os.makedirs(args.out, exist_ok=True)
    if hits:
        with open(os.path.join(args.out, "hits.tsv"), "w") as f:
            f.write("input\ttool\tsignature\tseed\tmutations\n")
            f.writelines(sorted(hits, key=lambda h: int(h.split("\t")[0])))
    ordered = sorted(findings.values(), key=lambda f: f.first_index)
    paths = []
    for number, finding in enumerate(ordered, 1):
        say("reducing %d/%d: %s" % (number, len(ordered), finding.signature))
        paths.append(write_finding(fuzzer, number, finding, args.out))

    print("fuzz: %d inputs (%d tile-opt, %d tile-run cpu), %d findings "
          "(%d unique)" % (counts["inputs"], counts["tile-opt"],
                           counts["tile-run"], counts["findings"],
                           len(findings)))
    say("  %.0f s of fuzzing, %.1f inputs/s; tile-opt accepted %d, "
        "%.2f s per run; tile-run %.2f s per run" % (
            elapsed, counts["inputs"] / max(elapsed, 1e-9), counts["accepted"],
            seconds["tile-opt"] / max(counts["tile-opt"], 1),
            seconds["tile-run"] / max(counts["tile-run"], 1)))
    for number, (finding, path) in enumerate(zip(ordered, paths), 1):
        print("  %d. %s [%s, %d hits]\n     %s" % (
            number, finding.signature, finding.tool, finding.count, path))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
