#!/usr/bin/env python3
"""Times torch.nn.functional.scaled_dot_product_attention, the BENCH.md way
(torch_timing.py), with each of its CUDA backends: cuDNN, flash and
memory-efficient. Inputs are [batch, heads, seq, d] (the layout of
examples/attention). Prints `torch sdpa <backend> <dtype> B.. H.. S.. D..
<causal>: median_us=... TFLOPs=...`, counting 4 B H S^2 D operations (half
of them when causal), as FlashAttention's papers do.

Usage: torch-attention-bench.py B H D S [S ...]   (f16 and bf16, causal
       and not, for each S)
"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from torch_timing import time_us

BACKENDS = {
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
}


def main():
    batch, heads, d = (int(a) for a in sys.argv[1:4])
    for seq in (int(a) for a in sys.argv[4:]):
        for dtype in (torch.float16, torch.bfloat16):
            q, k, v = (torch.randn(batch, heads, seq, d, device="cuda",
                                   dtype=dtype) for _ in range(3))
            for causal in (False, True):
                flops = 4 * batch * heads * seq * seq * d / (2 if causal else 1)
                for name, backend in BACKENDS.items():
                    def run():
                        with sdpa_kernel(backend):
                            F.scaled_dot_product_attention(q, k, v,
                                                           is_causal=causal)
                    try:
                        median, _, _ = time_us(run, runs=30)
                    except RuntimeError as error:
                        print(f"torch sdpa {name} unavailable: "
                              f"{str(error).splitlines()[0][:80]}")
                        continue
                    label = (f"{str(dtype)[6:]} B{batch} H{heads} S{seq} D{d} "
                             f"{'causal' if causal else 'full'}")
                    print(f"torch sdpa {name:9} {label}: median_us={median:.1f} "
                          f"TFLOPs={flops / (median * 1e-6) / 1e12:.0f}")


if __name__ == "__main__":
    main()
