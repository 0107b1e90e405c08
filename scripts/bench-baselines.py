#!/usr/bin/env python3
"""Baselines of the seed workloads, timed the BENCH.md way (triton's do_bench:
CUDA events, L2 flushed before each repetition, median). Prints one line per
workload: `baseline <workload> <name> <median_us>`; scripts/bench.sh pairs
them with tile-run's timings of our kernels.
"""
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench


def median_us(fn):
    fn()
    torch.cuda.synchronize()
    return do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3


def report(workload, name, us):
    print(f"baseline {workload} {name} {us:.2f}", flush=True)


@triton.jit
def _gemv(x_ptr, A_ptr, y_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(A_ptr + offs_n[:, None] * K + offs_k[None, :],
                    mask=(offs_n[:, None] < N) & (offs_k[None, :] < K), other=0.0)
        xx = tl.load(x_ptr + offs_k, mask=offs_k < K, other=0.0)
        acc += tl.sum(a.to(tl.float32) * xx[None, :].to(tl.float32), axis=1)
    tl.store(y_ptr + offs_n, acc.to(tl.float16), mask=offs_n < N)


def gemv(n, k):
    workload = f"gemv_{n}x{k}"
    B = torch.randn(n, k, device="cuda", dtype=torch.float16)
    x = torch.randn(k, device="cuda", dtype=torch.float16)
    report(workload, "torch.mv", median_us(lambda: torch.mv(B, x)))
    y = torch.empty(n, device="cuda", dtype=torch.float16)
    best = None
    for bn in (4, 8, 16, 32):
        for bk in (128, 256, 512):
            for nw in (1, 2, 4, 8):
                f = lambda: _gemv[(triton.cdiv(n, bn),)](x, B, y, n, k, BLOCK_N=bn,
                                                       BLOCK_K=bk, num_warps=nw)
                f()
                torch.cuda.synchronize()
                t = do_bench(f, warmup=5, rep=30, return_mode="median")
                if best is None or t < best[0]:
                    best = (t, f)
    report(workload, "triton-tuned", median_us(best[1]))


def gemm():
    A = torch.rand(1024, 2048, device="cuda")
    B = torch.rand(2048, 512, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    report("gemm_1024x512x2048", "cublas-ffma", median_us(lambda: A @ B))


def conv1d():
    import torch.nn.functional as F
    for m in (16384, 1 << 24):
        a = torch.rand(m, device="cuda")
        w = torch.rand(32, device="cuda")
        wf = w.flip(0).view(1, 1, 32)
        av = a.view(1, 1, m)
        report(f"conv1d_{m}", "torch-cudnn",
               median_us(lambda: F.conv1d(av, wf, padding=31)))


def conv2d():
    import torch.nn.functional as F
    x = torch.rand(256, 256, 14, 14, device="cuda")
    w = torch.rand(512, 256, 3, 3, device="cuda")
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    report("conv2d_14x14x256_b256_f512", "cudnn-fp32",
           median_us(lambda: F.conv2d(x, w, padding=1)))


def copy():
    x = torch.rand(1 << 28, device="cuda")
    y = torch.empty_like(x)
    report("copy_1GiB", "torch-copy", median_us(lambda: y.copy_(x)))


def main():
    print("device", torch.cuda.get_device_name(), flush=True)
    copy()
    for n, k in ((1024, 1024), (16384, 16384), (3000, 5120)):
        gemv(n, k)
    conv1d()
    gemm()
    conv2d()


if __name__ == "__main__":
    sys.exit(main())
