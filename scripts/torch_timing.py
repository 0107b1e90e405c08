"""The BENCH.md timing of a PyTorch baseline: CUDA events around one call,
5 warm-up calls, a 256 MB L2 flush before each of `runs` timed calls.
Shared by the torch-*-bench.py scripts."""
import statistics

import torch

_flush = None


def time_us(fn, runs=100):
    """Returns (median, min, max) of `fn()` in microseconds."""
    global _flush
    if _flush is None:
        _flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(5):
        fn()
    samples = []
    for i in range(runs):
        _flush.fill_(i & 0xFF)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e3)
    return statistics.median(samples), min(samples), max(samples)
