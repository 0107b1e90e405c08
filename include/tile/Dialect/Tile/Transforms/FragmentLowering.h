//===- FragmentLowering.h - Fragments as per-thread registers ---*- C++ -*-===//
//
// What tile-lower-fragments and the tile.gemm lowerings share: a fragment
// lowered to the per-thread buffer of the registers its layout gives the
// thread, and how register r is addressed in it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_FRAGMENTLOWERING_H
#define TILE_DIALECT_TILE_TRANSFORMS_FRAGMENTLOWERING_H

#include "tile/Dialect/Tile/IR/FragmentLayout.h"

namespace mlir::tile {

/// The index constants that address registers, created once per kernel at
/// the start of its body (which dominates every use: tile.kernel is the
/// only op isolated from above) rather than at each access: an attention
/// kernel addresses registers tens of thousands of times, and each
/// constant created costs as much as a dozen ops that use it.
class IndexConstants {
public:
  explicit IndexConstants(Block &kernelBody)
      : builder(&kernelBody, kernelBody.begin()) {}
  /// The `index` constant `value`.
  Value get(Location loc, int64_t value);

private:
  OpBuilder builder;
  DenseMap<int64_t, Value> constants;
};

/// A fragment as one thread's registers: a `tile.alloc_local` of the
/// fragment's rank, shaped `[registers / run, 1, ..., 1, run]` (rank 1:
/// `[registers]`), so that a run of registers contiguous in the tile is a
/// row of the buffer and copies of it are vector accesses.
struct FragmentRegisters {
  Value buffer;
  LayoutAttr layout;
  /// Registers r..r+run-1 (r a multiple of run) hold consecutive elements
  /// along the innermost dimension.
  int64_t run = 1;
  /// Where each register is stored. A replicated layout whose threads hold
  /// an element in several registers (a reduction's result) has registers
  /// that hold the same element in every thread: they share one slot, and
  /// the buffer is `[slots, 1, ..., 1]` (run 1). Empty: each register its
  /// own (also for a layout replicated only across threads).
  RegisterSlots slots;
  /// Where indices() takes its constants from (null: created at the
  /// builder's insertion point).
  IndexConstants *constants = nullptr;
  /// The registers that code must visit once each: the first register of
  /// every slot.
  SmallVector<int64_t> storedRegisters() const;

  /// The buffer indices of register `reg` (constants: registers are only
  /// registers when addressed by constants).
  SmallVector<Value> indices(OpBuilder &builder, Location loc,
                             int64_t reg) const;
  /// The coordinates in the tile of register `reg` of thread `thread`
  /// (affine.apply of the layout with the register substituted).
  SmallVector<Value> coordinates(OpBuilder &builder, Location loc, Value thread,
                                 int64_t reg) const;
  /// Coordinate `dim` of register `reg` as a map of the thread index.
  AffineMap getCoordinateMap(int64_t reg, unsigned dim) const;
};

/// Converts `value` (a float or a vector of floats) to elements of the
/// float type `type` (extension or truncation).
Value convertFloat(OpBuilder &builder, Location loc, Value value, Type type);

/// Why the copy of `fragment` out to global memory by `copy`, run by
/// `threads` threads, cannot go through stmatrix and TMA stores
/// (copyOutThroughTma), or nullopt when it can.
std::optional<std::string>
whyNotCopyOutThroughTma(CopyOp copy, const FragmentRegisters &fragment,
                        int64_t threads);

/// The TMA-store epilogue (lib/.../CopyOutTma.cpp): `copy` of `fragment`
/// out to a kernel argument, 64 columns at a time, through two
/// 128-byte-swizzled shared tiles that the warps fill with stmatrix and
/// the first thread stores with tile.tma_store. `thread` is the linear
/// thread index; `threads` run the copy and meet at named barrier 1.
void copyOutThroughTma(OpBuilder &builder, CopyOp copy,
                       const FragmentRegisters &fragment, Value thread,
                       int64_t threads);

/// A `tile.reduce` of the fragment `source` into the fragment `target`.
struct FragmentReduction {
  ReduceOp op;
  const FragmentRegisters *source;
  const FragmentRegisters *target;
};

/// Lowers `reductions` (consecutive `tile.reduce` ops, none reading what
/// an earlier one writes): for each, every thread combines its own
/// registers of a row, then xor shuffles combine the lanes that share the
/// row; the warps that share a row then meet in shared memory, the
/// reductions whose threads meet alike in one buffer behind one barrier,
/// and each result goes into its target (`thread` is the linear thread
/// index). Fails with an error at an op when the target's layout is not
/// the source's reduced one or the threads sharing a row are not whole bit
/// fields of the thread index.
LogicalResult lowerFragmentReduces(OpBuilder &builder,
                                   ArrayRef<FragmentReduction> reductions,
                                   Value thread);

/// Rounds an f32 to tf32 (10 mantissa bits, to nearest, ties to even, as
/// cvt.rn.tf32.f32, TMA's TFLOAT32 copies and cuBLAS's TF32 mode): add
/// just under half of the dropped part plus the kept part's lowest bit,
/// clear the dropped part; a NaN stays a NaN. `value` is an f32 or a
/// vector of f32.
Value roundToTF32(OpBuilder &builder, Location loc, Value value);

/// The tf32 bits (i32) of the f32 `value`, rounded as roundToTF32 rounds:
/// with cvt.rn.tf32.f32 where the chip has it (`nativeNearestEven`, sm_90
/// and later), else with roundToTF32's integer operations.
Value convertToTF32Bits(OpBuilder &builder, Location loc, Value value,
                        bool nativeNearestEven);

/// Whether `chip` (sm_XY[a]) has cvt.rn.tf32.f32 (sm_90 and later).
bool hasNearestEvenTF32Conversion(StringRef chip);

/// Lowers `gemm` to ldmatrix + mma.sync on `c`, the accumulator's
/// registers, and `a`, A's registers when A is a fragment (else null);
/// `thread` is the linear thread index; `chip` decides how tf32 operands
/// are rounded. Fails with an error at the op when the shapes do not fit
/// the instructions.
LogicalResult lowerGemmToMmaSync(OpBuilder &builder, GemmOp gemm,
                                 const FragmentRegisters &c,
                                 const FragmentRegisters *a, Value thread,
                                 StringRef chip);

/// Lowers `gemm` to wgmma.mma_async of warp groups reading A and B from
/// swizzled shared tiles through descriptors (sm_90a), on `c`, the
/// accumulator's registers, and `a`, A's registers when A is a fragment
/// (else null: then A too is read through a descriptor). Fails with an
/// error at the op when the shapes or operands do not fit the instruction.
LogicalResult lowerGemmToWgmma(OpBuilder &builder, GemmOp gemm,
                               const FragmentRegisters &c,
                               const FragmentRegisters *a, Value thread);

/// wgmma.wait_group `pending` with the f32 registers of `accumulators`
/// passing through it, tied (loaded from and stored back to their
/// buffers): their readers then depend on the wait, and LLVM cannot move
/// them above it. After a loop that leaves MMAs in flight, and
/// `tile.wgmma_wait`.
void buildWgmmaWaitForRegisters(
    OpBuilder &b, Location loc, int64_t pending,
    ArrayRef<const FragmentRegisters *> accumulators);

/// Lowers `gemm` to per-thread FMAs over K for the elements of C the thread
/// holds (any layout, any chip, the CPU target). A fragment A operand (`a`)
/// is read from the registers of the lanes that hold it, by shuffles. With
/// `modelInFlight` (the CPU target, a gemm marked `tile.wgmma_in_flight`)
/// the FMAs sit between wgmma.fence and wgmma.commit_group, followed by
/// wgmma.wait_group 1, and wait_group 0 follows the loop, as with wgmma:
/// the CPU runtime's race check then reads the operands again when the
/// group retires (CPURuntime.h).
LogicalResult lowerGemmToScalar(OpBuilder &builder, GemmOp gemm,
                                const FragmentRegisters &c,
                                const FragmentRegisters *a, Value thread,
                                bool modelInFlight = false);

/// The innermost loop around `gemm` (a rolled pipeline's tile.serial, a
/// pipeline role's scf.for), after which the MMAs that the gemm leaves in
/// flight are waited for; null when an earlier gemm of the loop already
/// claimed that wait (the loop is then marked kWgmmaWaitedAttr).
Operation *claimWaitAfterLoop(GemmOp gemm);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_FRAGMENTLOWERING_H
