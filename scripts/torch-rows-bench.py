#!/usr/bin/env python3
"""Times PyTorch's row operations on an R x N f32 matrix beside a copy of
the same bytes, the BENCH.md way (torch_timing.py): torch.softmax(dim=-1),
F.layer_norm (weight and bias) and F.rms_norm (weight) over the rows.
Prints `torch <op> RxN: median_us=... GB/s=...`, the bytes of reading the
matrix once and writing it once.

Usage: torch-rows-bench.py R N [R N ...]
"""
import sys

import torch
import torch.nn.functional as F

from torch_timing import time_us


def main():
    args = [int(a) for a in sys.argv[1:]]
    for rows, n in zip(args[0::2], args[1::2]):
        x = torch.randn(rows, n, device="cuda")
        y = torch.empty_like(x)
        weight = torch.randn(n, device="cuda")
        bias = torch.randn(n, device="cuda")
        gbytes = 2 * x.numel() * 4 / 1e9
        ops = {
            "softmax": lambda: torch.softmax(x, dim=-1),
            "layer_norm": lambda: F.layer_norm(x, (n,), weight, bias),
            "rms_norm": lambda: F.rms_norm(x, (n,), weight),
            "copy": lambda: y.copy_(x),
        }
        for name, fn in ops.items():
            median, _, _ = time_us(fn)
            print(f"torch {name:10} {rows}x{n}: median_us={median:.2f} "
                  f"GB/s={gbytes / (median * 1e-6):.0f}")


if __name__ == "__main__":
    main()
