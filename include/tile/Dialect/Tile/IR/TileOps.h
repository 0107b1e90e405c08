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
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.h.inc"

#include "tile/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {

/// Marks the `scf.if` of one role of a lowered `tile.warp_specialize`: the
/// role's threads are `tile.role_threads` threads from linear index
/// `tile.role_first`. Collective ops inside are spread over them, and the
/// condition does not make the region divergent for them.
constexpr llvm::StringLiteral kRoleFirstAttr = "tile.role_first";
constexpr llvm::StringLiteral kRoleThreadsAttr = "tile.role_threads";
/// The per-thread register count at kernel entry (PTX .maxnreg), set when
/// `setmaxnreg` is used: ptxas ignores setmaxnreg without it.
constexpr llvm::StringLiteral kMaxRegistersAttr = "tile.max_registers";

/// On a memref argument of a kernel: every dynamic size of the memref is a
/// multiple of this power of two (Triton's divisibility hint). The
/// vectorizer then knows its rows stay aligned; launchers check it.
constexpr llvm::StringLiteral kMultipleOfAttr = "tile.multiple_of";

/// The `tile.multiple_of` of `memref` when it is a kernel argument that
/// declares one.
std::optional<int64_t> getDeclaredMultiple(Value memref);

/// On a `tile.gemm` lowered to wgmma inside a rolled pipeline whose stages
/// are released one iteration late (tile-software-pipeline): the gemm
/// leaves its MMAs in flight (wgmma.wait_group 1: the previous iteration's
/// are done), and the loop is followed by a wait for all of them.
constexpr llvm::StringLiteral kWgmmaInFlightAttr = "tile.wgmma_in_flight";

/// On a gpu.func made by tile-to-gpu: the tensor maps its TMA copies read,
/// one `!llvm.ptr` parameter each after the kernel's own, in order. Each is
/// a dictionary: `argument` (the index of the memref argument it maps),
/// `box` (the box extents, outermost first) and `swizzle` (0 or 128 bytes).
/// The launcher encodes each with cuTensorMapEncodeTiled over the
/// argument's whole buffer and passes the address of a device copy of it.
constexpr llvm::StringLiteral kTensorMapsAttr = "tile.tensor_maps";

/// Registers of an SM (sm_90), shared by the threads of its blocks.
constexpr int64_t kRegistersPerSM = 65536;

/// Marks a barrier the compiler placed with the pass that placed it, kept
/// down to `gpu.barrier` so that tools can say where a barrier comes from
/// (the CPU target's reports, its barrier-removal test hook).
constexpr llvm::StringLiteral kInsertedByAttr = "tile.inserted_by";

/// Creates a `tile.barrier` marked as placed by `pass`.
BarrierOp createCompilerBarrier(OpBuilder &builder, Location loc,
                                StringRef pass);

/// True for the ops whose regions are run by a fixed group of threads as a
/// whole (the kernel, a warp-specialized pipeline, a role of one).
bool isThreadGroupScope(Operation *op);

/// Memory spaces a kernel distinguishes.
enum class MemorySpace { Global, Shared, Local, Fragment, Other };

/// Classifies the memory space of `type`: no memory space or
/// `#gpu.address_space<global>` is global, `workgroup` is shared,
/// `private` is local and `#tile.fragment` a fragment.
MemorySpace getMemorySpace(MemRefType type);

/// Returns true when `value` is a fragment (`#tile.fragment` memory space).
bool isFragment(Value value);

/// Returns true when `buffer` is private to a thread: allocated by
/// `tile.alloc_local` or `memref.alloca`, or in `private` memory.
bool isThreadPrivateBuffer(Value buffer);

/// Returns true when `value` is a memref of global memory: global memory
/// space (or none) and not a thread-private buffer.
bool isGlobalBuffer(Value value);

/// Whether `value` is shared (workgroup) memory, or a view or address-space
/// cast of it: a store through a generic-space cast of a shared buffer is a
/// shared store.
bool isSharedMemory(Value value);

/// Why TMA cannot copy a tile of `target`'s shape from `source` into
/// `target`, swizzled by `swizzle` bytes (0 or 128): the limits of
/// `cp.async.bulk.tensor` and `cuTensorMapEncodeTiled` that the types
/// decide (rank, element size, row bytes, box extents, transaction bytes).
/// nullopt when it can.
std::optional<std::string> getTmaTileError(MemRefType source, MemRefType target,
                                           int64_t swizzle);

/// Byte size of one element of a buffer: integers and floats rounded up to
/// whole bytes, `index` as 8 bytes, vectors as their element count times
/// the size of their element.
int64_t getBufferElementBytes(Type elementType);

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
