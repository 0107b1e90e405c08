#!/usr/bin/env python3
"""Times torch.softmax over the rows of an R x N f32 matrix, and a copy of
the same bytes, the BENCH.md way: CUDA events, warm-up, a 256 MB L2 flush
before each of 100 timed runs, median. Prints one line per measurement:
`torch softmax RxN: median_us=... GB/s=...` (bytes read + written).

Usage: torch-softmax-bench.py R N [R N ...]
"""
import statistics
import sys

import torch


def time_us(fn, flush):
    for _ in range(5):
        fn()
    samples = []
    for i in range(100):
        flush.fill_(i & 0xFF)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e3)
    return statistics.median(samples)


def main():
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    args = [int(a) for a in sys.argv[1:]]
    for rows, n in zip(args[0::2], args[1::2]):
        x = torch.randn(rows, n, device="cuda")
        y = torch.empty_like(x)
        gbytes = 2 * x.numel() * 4 / 1e9
        us = time_us(lambda: torch.softmax(x, dim=-1), flush)
        print(f"torch softmax {rows}x{n}: median_us={us:.2f} "
              f"GB/s={gbytes / (us * 1e-6):.0f}")
        us = time_us(lambda: y.copy_(x), flush)
        print(f"torch copy    {rows}x{n}: median_us={us:.2f} "
              f"GB/s={gbytes / (us * 1e-6):.0f}")


if __name__ == "__main__":
    main()
