//===- Passes.td - Conversions out of the tile dialect -----*- tablegen -*-===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileMathToIntrinsics : Pass<"tile-math-to-intrinsics"> {
  let summary = "Lower math.fma to llvm.intr.fma instead of a libdevice call";
  let description = [{
    `math.fma` becomes `llvm.intr.fma` (`fma.rn` in PTX, for f32, f64, f16
    and bf16, scalars and vectors). Run before `convert-gpu-to-nvvm`, which
    would otherwise call libdevice's `__nv_fmaf`: parsing, linking and
    inlining libdevice is a large share of the compile time of an FMA-heavy
    kernel, and its f16 fma is done in f32 and rounded twice. fma is exactly
    rounded, so f32 and f64 results are the same bit for bit. (Other exact
    ops such as `math.absf` cannot go the same way: `convert-gpu-to-nvvm`
    declares their intrinsics illegal.)
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileToGPU : Pass<"tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Outline tile kernels into gpu.func with host launchers";
  let description = [{
    Moves the body of every `tile.kernel` into a `gpu.func` (with `kernel`,
    `known_block_size` and, for static grids, `known_grid_size`) of a
    `gpu.module` of its own (`@<kernel>_module`: kernels are translated and
    compiled independently, in parallel), and replaces the kernel by a host `func.func` of the same
    name that computes the grid (inlining the `grid_size` region) and
    launches it with `gpu.launch_func`. Thread-level tile ops become `gpu`,
    `memref` and `arith` ops:

    - `tile.thread_id`, `tile.block_id`, `tile.grid_dim` become their `gpu`
      counterparts, `tile.block_dim` a constant, `tile.barrier` `gpu.barrier`;
    - `tile.alloc_shared` becomes a `memref.global` in workgroup memory when
      the kernel's shared memory fits the 48 KB of static shared memory, or a
      `memref.view` into `gpu.dynamic_shared_memory` otherwise (the byte count
      is recorded as `tile.dynamic_shared_memory` on the `gpu.func` and passed
      by the launcher);
    - `tile.alloc_local` becomes `memref.alloca`;
    - `tile.print` becomes `gpu.printf`, prefixed with the block and thread.

    Collective tile ops must have been lowered before; the pass reports any
    that remain.
  }];
  let options = [
    Option<"suffix", "module-suffix", "std::string", "\"_module\"",
           "Suffix of the name of each kernel's gpu.module">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // TILE_CONVERSION_PASSES_TD
