#!/usr/bin/env python3
"""Times a PyTorch device-to-device copy of N f32 elements the BENCH.md way:
CUDA events around the copy, warm-up, a 256 MB L2 flush before every one of
100 timed runs, median. Prints `torch copy: median_us=... min_us=... max_us=...`.
"""
import statistics
import sys

import torch


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 28
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(5):
        dst.copy_(src)
    samples = []
    for i in range(100):
        flush.fill_(i & 0xFF)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src)
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e3)
    assert torch.equal(dst, src)
    print(f"torch copy: median_us={statistics.median(samples):.2f} "
          f"min_us={min(samples):.2f} max_us={max(samples):.2f}")


if __name__ == "__main__":
    main()
