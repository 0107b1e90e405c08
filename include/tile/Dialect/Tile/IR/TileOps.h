//===- TileOps.h - Operations of the tile dialect ---------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_H
#define TILE_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tile/Dialect/Tile/IR/MemorySpaces.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.h.inc"

#include "tile/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {

/// The `tile.multiple_of` of `memref` when it is a kernel argument that
/// declares one: every dynamic size of the memref but the outermost (of a
/// memref of rank 2 or more) is a multiple of it, so that its rows start
/// aligned. Nothing may assume it of the outermost size.
std::optional<int64_t> getDeclaredMultiple(Value memref);

/// Registers of an SM (sm_90), shared by the threads of its blocks.
constexpr int64_t kRegistersPerSM = 65536;

/// Creates a `tile.barrier` marked as placed by `pass`.
BarrierOp createCompilerBarrier(OpBuilder &builder, Location loc,
                                StringRef pass);

/// True for the ops whose regions are run by a fixed group of threads as a
/// whole (the kernel, a warp-specialized pipeline, a role of one).
bool isThreadGroupScope(Operation *op);

/// The threads of the block that run `op`, [first, first + count): the
/// whole block, or the role around it of a `tile.warp_specialize` (its
/// region: the consumer's are the first threads, the producer's the rest;
/// or the `scf.if` of a lowered role).
std::pair<int64_t, int64_t> getRoleThreads(Operation *op);

/// Whether `op` is or holds (in its regions) a `tile.gemm`.
bool holdsGemm(Operation *op);

/// The shared tiles `value` may be: the `tile.alloc_shared` it is, or the
/// tiles an `arith.select` of such tiles (a tile chosen at run time, as a
/// gemm operand) chooses among. Empty for anything else (a view, an
/// argument).
SmallVector<AllocSharedOp> getSelectedSharedTiles(Value value);

/// Whether a fragment layout of `kernel` may spread over `threads`: the
/// block's, or those of a pipeline's consumer role (the block's first).
bool isFragmentThreadCount(KernelOp kernel, int64_t threads);

/// Why TMA cannot copy the shared tile `tile` from or to a tile of the
/// global `tensor`, `tile` swizzled by `swizzle` bytes (0 or 128): the
/// limits of `cp.async.bulk.tensor` and `cuTensorMapEncodeTiled` that the
/// types decide (rank, element size, row bytes, box extents, transaction
/// bytes). nullopt when it can.
std::optional<std::string> getTmaTileError(MemRefType tensor, MemRefType tile,
                                           int64_t swizzle);

/// The iterations of `lower to upper step step` when all three are
/// constants and the step is positive: ceil((upper - lower) / step), 0 when
/// upper <= lower, at most INT64_MAX (no overflow for bounds of opposite
/// signs). nullopt otherwise.
std::optional<int64_t> getConstantTripCount(Value lower, Value upper,
                                            Value step);

namespace detail {
/// The custom assembly, builder and verifier shared by the range loops
/// (`tile.serial`, `tile.unroll`, `tile.vectorized`, `tile.pipelined`),
/// called from their ODS class (LoopOps.cpp).
ParseResult
parseRangeLoop(OpAsmParser &parser, OperationState &result,
               function_ref<void(Region &, Builder &, Location)> addTerminator);
void printRangeLoop(OpAsmPrinter &p, Operation *op);
void buildRangeLoop(OpBuilder &builder, OperationState &state, Value lower,
                    Value upper, Value step, ValueRange initArgs);
/// `constantBounds`: the loop is expanded at compile time; `carriesValues`:
/// it may take `iter_args`.
LogicalResult verifyRangeLoop(Operation *op, bool constantBounds,
                              bool carriesValues);
/// Checks a stage count (`tile.pipelined`, `tile.warp_specialize`): at
/// least 1, at most kMaxPipelineStages.
LogicalResult verifyStageCount(Operation *op, int64_t stages);
} // namespace detail

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILEOPS_H
