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
  let extraClassDeclaration = [{
    /// The per-context memo of the layout queries that enumerate a whole
    /// layout (FragmentLayout.cpp). It lives as long as the context, so its
    /// keys, uniqued attributes, never dangle.
    LayoutQueryCache &getLayoutQueryCache() { return *layoutQueryCache; }

  private:
    std::unique_ptr<LayoutQueryCache> layoutQueryCache;

  public:
  }];
  // The attributes the dialect's passes put on ops (their own or upstream
  // ones) to carry facts along the pipeline. ODS generates a helper per
  // attribute (TileDialect::AsyncAttrHelper, ...); TileDialect.h names each
  // (kAsyncAttr, ...) from it and says what it means. No pass spells one
  // out as a string.
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$async,
    "::mlir::UnitAttr":$unroll,
    "::mlir::UnitAttr":$swizzle,
    "::mlir::UnitAttr":$wgmma_in_flight,
    "::mlir::UnitAttr":$wgmma_deferred,
    "::mlir::UnitAttr":$tma_operands,
    "::mlir::UnitAttr":$tf32_rounded,
    "::mlir::IntegerAttr":$role_first,
    "::mlir::IntegerAttr":$role_threads,
    "::mlir::IntegerAttr":$max_registers,
    "::mlir::IntegerAttr":$multiple_of,
    "::mlir::StringAttr":$inserted_by,
    "::mlir::UnitAttr":$launcher,
    "::mlir::FlatSymbolRefAttr":$reference,
    "::mlir::StringAttr":$defined_in,
    "::mlir::IntegerAttr":$dynamic_shared_memory,
    "::mlir::IntegerAttr":$dynamic_shared_memory_alignment,
    "::mlir::ArrayAttr":$tensor_maps,
    "::mlir::ArrayAttr":$cpu_sites,
    "::mlir::IntegerAttr":$cpu_shared_bytes,
    "::mlir::StringAttr":$llvm_passes,
    "::mlir::StringAttr":$skip_llvm_passes
  );
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
}

/// Base class of every op of the dialect.
class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
