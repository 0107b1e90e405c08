//===- FragmentLayout.h - The algebra of fragment layouts -------*- C++ -*-===//
//
// Builders and queries of `#tile.layout` (which thread and register hold
// each element of a fragment): the layouts the compiler assigns, the
// tensor-core accumulator layout among them, the owner of every element,
// runs of contiguous registers (for vector accesses), and renderings of a
// layout as a text grid and as an SVG picture.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_FRAGMENTLAYOUT_H
#define TILE_DIALECT_TILE_IR_FRAGMENTLAYOUT_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "llvm/Support/Mutex.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tile {

/// The memo of the queries that enumerate every (thread, register) of a
/// layout, one per context (TileDialect::getLayoutQueryCache): lowering a
/// kernel asks for the same few layouts dozens of times (an attention
/// kernel: 28 enumerations of 5 layouts, 32k elements each, a third of
/// tile-lower-fragments' time; then 24 contiguous-run queries and 540
/// register mappings of the same layouts, half of what was left).
/// Thread-safe: kernels lower in parallel. A value is computed outside the
/// lock; two threads asking at once both compute it, and the first stored
/// is kept.
class LayoutQueryCache {
public:
  /// The coordinates of every (thread, register) of `layout`, thread-major
  /// then register, one coordinate per dimension each, computed once.
  std::shared_ptr<const std::vector<int64_t>> getCoordinates(LayoutAttr layout);

  /// The row-major linear index of the element each (thread, register) of
  /// `layout` holds, thread-major (-1 outside the tile), computed once.
  std::shared_ptr<const std::vector<int64_t>> getHeldElements(LayoutAttr layout);

  /// mapRegisters(from, to), computed once per pair.
  std::optional<SmallVector<int64_t>> getRegisterMapping(LayoutAttr from,
                                                         LayoutAttr to);

  /// getContiguousRun(layout, maxRun), computed once per pair.
  int64_t getContiguousRun(LayoutAttr layout, int64_t maxRun);

  /// getRegisterCoordinateMap(layout, reg, dim), computed once per triple.
  AffineMap getRegisterCoordinateMap(LayoutAttr layout, int64_t reg,
                                     unsigned dim);

private:
  /// The memoized value of `key` in `memo`, from `compute` the first time.
  template <typename Map, typename Compute>
  typename Map::mapped_type lookupOrCompute(Map &memo,
                                            const typename Map::key_type &key,
                                            Compute compute);

  llvm::sys::SmartMutex<true> mutex;
  DenseMap<Attribute, std::shared_ptr<const std::vector<int64_t>>> coordinates;
  DenseMap<Attribute, std::shared_ptr<const std::vector<int64_t>>> held;
  DenseMap<std::pair<Attribute, Attribute>,
           std::optional<SmallVector<int64_t>>>
      registerMappings;
  DenseMap<std::pair<Attribute, int64_t>, int64_t> contiguousRuns;
  DenseMap<std::tuple<Attribute, int64_t, unsigned>, AffineMap>
      registerCoordinateMaps;
};

/// Coordinate `dim` of register `reg` of `layout` as a map of the thread
/// index alone (the layout's map with the register substituted,
/// simplified), from the context's memo: a kernel's lowering asks for the
/// same few hundred, each many times (every op on a fragment unrolls over
/// its registers).
AffineMap getRegisterCoordinateMap(LayoutAttr layout, int64_t reg,
                                   unsigned dim);

/// Rows and columns of one `mma.sync` accumulator tile (m16n8).
constexpr int64_t kMmaTileRows = 16;
constexpr int64_t kMmaTileCols = 8;
/// Threads of a warp.
constexpr int64_t kWarpSize = 32;
/// Most registers a fragment may give one thread (a thread has 255).
constexpr int64_t kMaxFragmentRegisters = 256;

/// The blocked layout of `shape` over `threads`: runs of `run` consecutive
/// elements (along the innermost dimension) are dealt round-robin to the
/// threads, so that each thread's run is one vector access and a warp's
/// accesses are contiguous. Fails (null) when the element count is not a
/// multiple of `threads * run`.
LayoutAttr getBlockedLayout(MLIRContext *context, ArrayRef<int64_t> shape,
                            int64_t threads, int64_t run);

/// The largest run (a power of two, at most 16 bytes of `elementType`) for
/// which the blocked layout of `shape` over `threads` exists, or nullopt.
std::optional<int64_t> getBlockedRun(ArrayRef<int64_t> shape, int64_t threads,
                                     Type elementType);

/// The `mma.sync` m16n8 accumulator layout of an `M x N` fragment whose
/// `warpsM x warpsN` warps each hold an `M/warpsM x N/warpsN` sub-tile, in
/// m16n8 tiles: register `r` of lane `l` in warp `w` is
///   tile t = r / 4 (row-major over the warp's tiles), c = r % 4,
///   row = 16 * (tile row) + l / 4 + 8 * (c / 2),
///   col =  8 * (tile col) + 2 * (l % 4) + c % 2.
/// Registers 4t..4t+3 are therefore the `vector<2x2xf32>` of mma.sync.
/// Null when the sub-tiles are not whole m16n8 tiles.
LayoutAttr getMmaAccumulatorLayout(MLIRContext *context,
                                   ArrayRef<int64_t> shape, int64_t warpsM,
                                   int64_t warpsN);

/// The layout of the transposed tile: element (j, i) of the result is held
/// where element (i, j) of `layout` is (rank 2 only; null otherwise). A
/// tf32 wgmma computes C^T = B^T A^T, so its accumulator is the transposed
/// accumulator layout of an `N x M` product.
LayoutAttr getTransposedLayout(LayoutAttr layout);

/// Picks the warp grid for an `M x N` accumulator over `warps` warps: the
/// split whose per-warp tile is whole m16n8 tiles (n16 when possible, for
/// ldmatrix x4 of B) and closest to square (fewest shared-memory loads per
/// mma). Nullopt when no split fits.
std::optional<std::pair<int64_t, int64_t>> chooseMmaWarps(int64_t m, int64_t n,
                                                          int64_t warps);

/// The K offset (0..7) within an `mma.sync` m16n8k8 tf32 step that the
/// operand slot `slot` reads: slot q (a0 a1 of A, b0 of B) for lane q =
/// l % 4 and slot q + 4 (a2 a3, b1). A step sums its 8 K in any order so
/// long as A and B pair the same K in each slot; this order,
///   slots 0..3 -> 0, 3, 5, 6 and slots 4..7 -> 1, 2, 4, 7,
/// that is 2q + p and (2q + p) xor 1 with p = (q xor q / 2) & 1, makes the
/// shared loads of both operands free of bank conflicts in 128-byte-swizzled
/// tiles (the 4 K of a slot differ in k mod 4 and in (k mod 8) / 2); in
/// natural order a row-major B tile's loads are 2-way conflicted.
int64_t getTF32KOrder(int64_t slot);

/// The layout of the result of reducing a fragment of `layout` along `dim`:
/// the same threads and registers, each register holding the element at
/// its coordinates without `dim` (a rank-1 layout reduces to shape [1]).
/// Every thread that held part of a row holds the row's result, so the
/// layout is replicated (more registers than elements) unless `dim` had
/// extent 1.
LayoutAttr getReducedLayout(LayoutAttr layout, int64_t dim);

/// The storage of a thread's registers: registers that hold the same
/// element in every thread (a replicated layout's copies of one result)
/// share a slot; otherwise each register has its own.
struct RegisterSlots {
  /// The slot of each register.
  SmallVector<int64_t> slotOf;
  /// Each slot's first register.
  SmallVector<int64_t> representative;
  int64_t size() const { return representative.size(); }
};
RegisterSlots getRegisterSlots(LayoutAttr layout);

/// For a replicated layout, the thread-index bits whose value does not
/// change which element any register holds: the threads that hold one
/// element are exactly those that differ in these bits (the copies a
/// reduction must combine, or a copy out must write once). Nullopt when the
/// copies of an element are not spread that way (the layout's threads do
/// not split into such bit fields). Zero for a layout without copies.
std::optional<int64_t> getReplicatedThreadBits(LayoutAttr layout);

/// For each register of `from`, the register of `to` that holds the same
/// element in every thread: the registers of one distribution under two
/// numberings (a row reduced from an accumulator of 64 columns and one of
/// 128 has 32 registers in one and 64 in the other, each thread holding
/// the same two rows). Nullopt when some register has no such counterpart,
/// or the shapes or thread counts differ.
std::optional<SmallVector<int64_t>> mapRegisters(LayoutAttr from,
                                                 LayoutAttr to);

/// True when `a` and `b` give every thread the same elements in registers
/// that correspond one way and the other (mapRegisters): the layouts
/// differ only in how registers are numbered or repeated.
bool isSameDistribution(LayoutAttr a, LayoutAttr b);

/// For each element of the tile (row-major linear index), the thread and
/// register that hold it (the first of them, by thread then register, when
/// the layout is replicated).
struct ElementOwner {
  int64_t thread = -1;
  int64_t registerIndex = -1;
};
SmallVector<ElementOwner> getElementOwners(LayoutAttr layout);

/// The longest run of registers `r, r+1, ...` (a power of two dividing the
/// register count, at most `maxRun`) that, for every thread and every `r`
/// that is a multiple of it, holds consecutive elements along the innermost
/// dimension: such a run is one vector access.
int64_t getContiguousRun(LayoutAttr layout, int64_t maxRun);

/// How lanes can exchange runs of registers so that each writes a wider
/// run (a copy out as 16-byte vectors where the layout gives a thread only
/// runs of 4 bytes, as the MMA accumulators do). `lanes` lanes, `laneStride`
/// apart in the thread index (lane q of a group is thread base + q *
/// laneStride), hold runs that continue one another: lane q's run at
/// register r starts `q * run` elements after lane 0's along the innermost
/// dimension. `groups` sorts a thread's runs (by first register) into sets
/// of `lanes`: in each, run i starts `i * spacing` elements after run 0.
/// Exchanging run i of lane q with run q of lane i (a transpose, `lanes`
/// by `lanes`) gives lane q of a group the `lanes * run` consecutive
/// elements starting where its own run 0 of the set started, plus
/// `q * (spacing - run)`.
struct LaneExchange {
  int64_t lanes = 1;
  int64_t laneStride = 1;
  int64_t spacing = 0;
  SmallVector<SmallVector<int64_t>> groups;
};

/// The exchange that widens the runs of `run` registers of `layout` to
/// `widerRun` (a power-of-two multiple of `run`) elements, or nullopt when
/// the lanes or the registers are not arranged for one (a replicated
/// layout never is). Lanes of a group are within one warp.
std::optional<LaneExchange> getLaneExchange(LayoutAttr layout, int64_t run,
                                            int64_t widerRun);

/// How the warps of a 2-D layout hold 8x8 blocks the way `stmatrix` and
/// `ldmatrix` move them (the MMA accumulator layouts): register pair p
/// (registers 2p and 2p + 1) of warp w holds the block whose top-left
/// element is (`rows[w * pairs + p]`, `columns[p]`), lane l its row l / 4,
/// columns 2 * (l % 4) and + 1. `columns[p]` is the same for every warp and
/// a multiple of 8.
struct MatrixBlocks {
  int64_t warps = 0;
  int64_t pairs = 0;
  SmallVector<int64_t> rows;
  SmallVector<int64_t> columns;
};

/// The blocks of `layout`, or nullopt when its warps do not hold it so.
std::optional<MatrixBlocks> getMatrixBlocks(LayoutAttr layout);

/// The layout as a text grid: one line per row (the last two dimensions;
/// leading dimensions as separate grids), each element as `T<thread>:<reg>`.
std::string renderLayoutText(LayoutAttr layout);

/// The layout as an SVG picture: one cell per element labelled with its
/// thread and register, coloured by warp (TileLang's layout plots, from IR).
std::string renderLayoutSVG(LayoutAttr layout, StringRef title);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_FRAGMENTLAYOUT_H
