//===- Passes.td - Conversions out of the tile dialect -----*- tablegen -*-===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUToHost : Pass<"tile-gpu-to-host", "::mlir::ModuleOp"> {
  let summary = "Turn each gpu.func into a host function that runs one thread";
  let description = [{
    The CPU target's lowering (docs/CPUTarget.md). Runs on the output of
    `tile-to-gpu`: each kernel `gpu.func @K` becomes a public
    `func.func @K(%context: memref<16xi64>, %shared: memref<?xi8>, args...)`
    that executes one GPU thread; the CPU runtime (lib/Runtime/CPURuntime)
    calls it once per thread, each thread a fiber. The `gpu.module`s and the
    host launchers are removed; other `func.func`s (references) stay.

    - Thread, block and grid indices and extents (`gpu.*_id`, `gpu.*_dim`,
      `gpu.lane_id`, `nvvm.read.ptx.sreg.*`) are loads from `%context`
      (the `tile::cpu::ContextSlot` layout).
    - Workgroup memory (`memref.global`s in the workgroup address space,
      `gpu.dynamic_shared_memory`, `nvgpu.mbarrier.create`) becomes views of
      `%shared`, the block's arena, laid out in that order; the arena size is
      the function's `tile.cpu.shared_bytes`. Memref types lose the
      workgroup address space.
    - `gpu.barrier`, `gpu.shuffle` and the mbarrier ops become calls into the
      runtime; `nvgpu.device_async_copy` becomes element loads and stores
      (it is complete when issued, a valid execution of the asynchronous
      copy), so the cp.async group ops and `nvvm.setmaxregister` vanish.
    - Every memref access checks its indices against the memref's sizes; an
      out-of-bounds access calls `tile_rt_out_of_bounds` instead (a load
      then reads 0).
    - With `race-check`, every access to workgroup memory also reports its
      address, size and kind to the runtime's race detector.

    Every call into the runtime carries a site number; the module attribute
    `tile.cpu.sites` holds their descriptions (location, op, memref type).
    A gpu, nvgpu or NVVM op without a CPU meaning is an error naming it.
  }];
  let options = [
    Option<"raceCheck", "race-check", "bool", "false",
           "Report workgroup-memory accesses to the race detector">,
    Option<"testSkipBarrier", "test-skip-barrier", "int", "-1",
           "Testing the race check: remove the N-th block barrier (from 0, "
           "in program order) of kernel test-skip-barrier-kernel">,
    Option<"testSkipBarrierKernel", "test-skip-barrier-kernel",
           "std::string", "\"\"",
           "The kernel whose barrier test-skip-barrier removes">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TileMathToIntrinsics : Pass<"tile-math-to-intrinsics"> {
  let summary = "Lower math.fma, arith.maximumf and arith.minimumf to the "
                "LLVM intrinsics NVPTX has one instruction for";
  let description = [{
    `arith.maximumf` / `arith.minimumf` become `llvm.intr.maximum` /
    `minimum` (`max.NaN` / `min.NaN` on sm_80 and later): run before
    `arith-expand`, which would expand each into a compare, a NaN test and
    two selects.

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
    - `tile.print` becomes `gpu.printf`, prefixed with the block and thread;
    - `tile.tma_load` becomes `nvvm.cp.async.bulk.tensor` (one per box: per
      128-byte panel of a swizzled tile) through a tensor map that the
      kernel takes as an `!llvm.ptr` parameter after its own, one per
      distinct (argument, box, swizzle), listed in the gpu.func's
      `tile.tensor_maps` and fenced for the tensor-map proxy at entry; the
      launcher takes them as arguments too.

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
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

#endif // TILE_CONVERSION_PASSES_TD
