//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect: tile-level GPU kernels with thread-level escape hatches.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILE_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level GPU kernels with thread-level escape hatches";
  let description = [{
    The `tile` dialect describes GPU kernels at the level of tiles: a kernel
    (`tile.kernel`) runs its body once per thread of every thread block, in
    SPMD style like CUDA. Tile-level operations (`tile.copy`, `tile.parallel`,
    `tile.thread_allreduce`, ...) are *collective*: every thread of the block
    reaches them in uniform control flow and the compiler distributes their
    work over the block's threads. Every upstream operation (arith, math,
    memref, vector, scf, gpu, nvvm, nvgpu) may be used in a kernel body; that
    is the thread-level escape hatch.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
}

/// Base class of every op of the dialect.
class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
