//===- Passes.td - Conversions out of the tile dialect -----*- tablegen -*-===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileToGPU : Pass<"tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Outline tile kernels into gpu.func with host launchers";
  let description = [{
    Moves the body of every `tile.kernel` into a `gpu.func` (with `kernel`,
    `known_block_size` and, for static grids, `known_grid_size`) of one
    `gpu.module`, and replaces the kernel by a host `func.func` of the same
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
    Option<"moduleName", "module-name", "std::string", "\"tile_kernels\"",
           "Name of the gpu.module that receives the kernels">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // TILE_CONVERSION_PASSES_TD
