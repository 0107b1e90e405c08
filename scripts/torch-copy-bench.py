#!/usr/bin/env python3
"""Times a PyTorch device-to-device copy of N f32 elements the BENCH.md way
(torch_timing.py: CUDA events, warm-up, a 256 MB L2 flush before every one
of 100 timed runs, median). Prints `torch copy: median_us=... min_us=...
max_us=...`.
"""
import sys

import torch

from torch_timing import time_us


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 28
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    median, low, high = time_us(lambda: dst.copy_(src))
    assert torch.equal(dst, src)
    print(f"torch copy: median_us={median:.2f} min_us={low:.2f} "
          f"max_us={high:.2f}")


if __name__ == "__main__":
    main()
