#!/usr/bin/env python3
"""Baselines of the seed workloads, timed the BENCH.md way (triton's do_bench:
CUDA events, L2 flushed before each repetition, median). Prints one line per
workload: `baseline <workload> <name> <median_us>`; scripts/bench.sh pairs
them with tile-run's timings of our kernels. `--tensor-cores`: only the
tensor-core GEMMs.
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


@triton.jit
def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # The Triton tutorial's matmul: grouped block order, tl.dot, f32 acc.
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BLOCK_K
        b += BLOCK_K * N
    c = c_ptr + rm[:, None] * N + rn[None, :]
    tl.store(c, acc.to(c_ptr.dtype.element_ty))


def triton_matmul(A, B):
    M, K = A.shape
    N = B.shape[1]
    C = torch.empty(M, N, device="cuda", dtype=A.dtype)
    best = None
    for bm, bn, bk, warps, stages in ((128, 256, 64, 8, 3), (128, 128, 64, 4, 4),
                                      (128, 128, 32, 4, 4), (256, 128, 64, 8, 3)):
        def run(bm=bm, bn=bn, bk=bk, warps=warps, stages=stages):
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            _matmul[grid](A, B, C, M, N, K, bm, bn, bk, 8,
                          num_warps=warps, num_stages=stages)
        try:
            t = median_us(run)
        except Exception:  # a config the compiler or the GPU rejects
            continue
        if best is None or t < best:
            best = t
    return best


def gemm_tensor_cores():
    # f16 / bf16 4096^3 and 8192^3 (f32 accumulation) and the seed shape in
    # TF32.
    for size in (4096, 8192):
        for dtype, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
            A = torch.randn(size, size, device="cuda", dtype=dtype)
            B = torch.randn(size, size, device="cuda", dtype=dtype)
            workload = f"gemm_{name}_{size}"
            report(workload, "cublas", median_us(lambda: A @ B))
            report(workload, "triton-tuned", triton_matmul(A, B))
    A = torch.rand(1024, 2048, device="cuda")
    B = torch.rand(2048, 512, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = True
    report("gemm_tf32_1024x512x2048", "cublas-tf32", median_us(lambda: A @ B))
    torch.backends.cuda.matmul.allow_tf32 = False


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
    if sys.argv[1:] == ["--tensor-cores"]:
        gemm_tensor_cores()
        return
    gemm_tensor_cores()
    copy()
    for n, k in ((1024, 1024), (16384, 16384), (3000, 5120)):
        gemv(n, k)
    conv1d()
    gemm()
    conv2d()


if __name__ == "__main__":
    sys.exit(main())
