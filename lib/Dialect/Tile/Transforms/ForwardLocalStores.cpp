//===- ForwardLocalStores.cpp - Store-to-load forwarding on local buffers -===//
//
// Thread-local buffers (`tile.alloc_local`) hold a thread's accumulators and
// operand fragments. After unrolling, every access to them has a constant
// index, and a register-blocked kernel is mostly loads and stores of them:
// conv2d's inner step reads three elements and writes one per FMA. LLVM's
// SROA turns those into registers in the end, but only after every access
// has gone through the MLIR lowering and the LLVM pipeline, which dominates
// compile time. This pass does the forwarding at tile level, block by block:
//
//  - a load of an element stored (or loaded) earlier in the block takes that
//    value (a lane of a stored vector becomes a `vector.extract`);
//  - a store whose every element is overwritten in the block before anything
//    can read it is erased.
//
// Only buffers with the identity layout and scalar elements, whose every use
// is a memref/vector load or store with the buffer as the memref, are
// considered; anything else (a subview, a tile op, a
// call) could reach the elements in ways not followed here. An op with
// regions that touches a buffer counts as reading and writing all of it; its
// blocks are processed on their own, knowing nothing from outside.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tile-forward-local-stores"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEFORWARDLOCALSTORES
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A load or store of a tracked buffer, decoded.
struct LocalAccess {
  Value buffer;
  /// Linear index of the first element; nullopt when not a constant in
  /// bounds.
  std::optional<int64_t> first;
  /// Number of elements (the vector length, 1 for a scalar access).
  int64_t count = 1;
  /// The stored value; null for a load.
  Value stored;
};

/// The value an element is known to hold: `value` itself, or lane `lane` of
/// the vector `value`.
struct KnownElement {
  Value value;
  int64_t lane = -1;
};

/// Returns the linear index of a constant, in-bounds access of `count`
/// contiguous elements, or nullopt.
static std::optional<int64_t> getConstantLinearIndex(MemRefType type,
                                                     ValueRange indices,
                                                     int64_t count) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t linear = 0;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    std::optional<int64_t> value = getConstantIntValue(index);
    if (!value || *value < 0)
      return std::nullopt;
    // value + span <= extent, without overflow (value may be INT64_MAX).
    int64_t span = dim + 1 == shape.size() ? count : 1;
    if (*value > shape[dim] - span)
      return std::nullopt;
    linear = linear * shape[dim] + *value;
  }
  return linear;
}

/// Decodes `op` as an access of one of `buffers`, or returns nullopt.
static std::optional<LocalAccess>
decodeAccess(Operation *op, const DenseSet<Value> &buffers) {
  auto make = [&](Value memref, ValueRange indices, Type valueType,
                  Value stored) -> std::optional<LocalAccess> {
    if (!buffers.contains(memref))
      return std::nullopt;
    LocalAccess access;
    access.buffer = memref;
    access.stored = stored;
    if (auto vector = dyn_cast<VectorType>(valueType)) {
      if (vector.getRank() != 1 || vector.isScalable())
        return access; // Unknown extent: first stays nullopt.
      access.count = vector.getNumElements();
    }
    access.first = getConstantLinearIndex(cast<MemRefType>(memref.getType()),
                                          indices, access.count);
    return access;
  };
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return make(load.getMemref(), load.getIndices(), load.getType(), {});
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return make(store.getMemref(), store.getIndices(),
                store.getValueToStore().getType(), store.getValueToStore());
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return make(load.getBase(), load.getIndices(), load.getVectorType(), {});
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return make(store.getBase(), store.getIndices(), store.getVectorType(),
                store.getValueToStore());
  return std::nullopt;
}

/// True when `buffer` can be tracked: elements numbered by the identity
/// layout, scalar elements (so that a vector access covers one element per
/// lane), and every use a load or store through it.
static bool isTrackable(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrIndexOrFloat())
    return false;
  DenseSet<Value> self = {buffer};
  return llvm::all_of(buffer.getUses(), [&](OpOperand &use) {
    return decodeAccess(use.getOwner(), self).has_value();
  });
}

/// Forwarding state of one block.
class BlockForwarder {
public:
  BlockForwarder(const DenseSet<Value> &buffers) : buffers(buffers) {}

  void run(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (std::optional<LocalAccess> access = decodeAccess(&op, buffers)) {
        if (access->stored)
          visitStore(&op, *access);
        else
          visitLoad(&op, *access);
        continue;
      }
      if (op.getNumRegions() == 0)
        continue;
      // Buffers the op's regions touch: read and written, as far as this
      // block can tell.
      llvm::SetVector<Value> touched;
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (buffers.contains(operand))
            touched.insert(operand);
      });
      for (Value buffer : touched) {
        markAllRead(buffer);
        known.erase(buffer);
      }
    }
    for (Operation *store : deadStores)
      store->erase();
  }

private:
  void visitStore(Operation *op, const LocalAccess &access) {
    if (!access.first) {
      // May overwrite any element: forget them all. Pending stores stay
      // unread.
      known.erase(access.buffer);
      return;
    }
    DenseMap<int64_t, KnownElement> &values = known[access.buffer];
    DenseMap<int64_t, Operation *> &stores = pending[access.buffer];
    bool isVector = isa<VectorType>(access.stored.getType());
    for (int64_t i = 0; i < access.count; ++i) {
      int64_t element = *access.first + i;
      values[element] = {access.stored, isVector ? i : -1};
      auto it = stores.find(element);
      if (it != stores.end())
        overwriteLane(it->second);
      stores[element] = op;
    }
    unreadLanes[op] = access.count;
  }

  void visitLoad(Operation *op, const LocalAccess &access) {
    if (!access.first) {
      markAllRead(access.buffer);
      return;
    }
    Value result = op->getResult(0);
    DenseMap<int64_t, KnownElement> &values = known[access.buffer];
    SmallVector<KnownElement> lanes;
    for (int64_t i = 0; i < access.count; ++i) {
      auto it = values.find(*access.first + i);
      if (it == values.end())
        break;
      lanes.push_back(it->second);
    }
    if (static_cast<int64_t>(lanes.size()) == access.count) {
      result.replaceAllUsesWith(materialize(op, result.getType(), lanes));
      op->erase();
      return;
    }
    // Read from memory: the stores it reads are needed, and its value is
    // what the elements hold from now on.
    DenseMap<int64_t, Operation *> &stores = pending[access.buffer];
    bool isVector = isa<VectorType>(result.getType());
    for (int64_t i = 0; i < access.count; ++i) {
      int64_t element = *access.first + i;
      auto it = stores.find(element);
      if (it != stores.end()) {
        markRead(it->second);
        stores.erase(it);
      }
      values[element] = {result, isVector ? i : -1};
    }
  }

  /// Builds the value of a load whose every lane is known, before `op`.
  Value materialize(Operation *op, Type type, ArrayRef<KnownElement> lanes) {
    auto vectorType = dyn_cast<VectorType>(type);
    // The whole of a vector, lane for lane.
    if (vectorType && lanes.front().value.getType() == type &&
        llvm::all_of(llvm::enumerate(lanes), [&](auto lane) {
          return lane.value().value == lanes.front().value &&
                 lane.value().lane == static_cast<int64_t>(lane.index());
        }))
      return lanes.front().value;
    OpBuilder builder(op);
    SmallVector<Value> scalars;
    for (const KnownElement &lane : lanes)
      scalars.push_back(lane.lane < 0
                            ? lane.value
                            : vector::ExtractOp::create(builder, op->getLoc(),
                                                        lane.value, lane.lane)
                                  .getResult());
    if (!vectorType)
      return scalars.front();
    return vector::FromElementsOp::create(builder, op->getLoc(), vectorType,
                                          scalars);
  }

  /// One more lane of pending store `store` has been overwritten; when none
  /// is left and none was read, the store is dead.
  void overwriteLane(Operation *store) {
    if (read.contains(store))
      return;
    if (--unreadLanes[store] == 0)
      deadStores.insert(store);
  }

  void markRead(Operation *store) { read.insert(store); }

  void markAllRead(Value buffer) {
    auto it = pending.find(buffer);
    if (it == pending.end())
      return;
    for (auto &[element, store] : it->second)
      markRead(store);
    pending.erase(it);
  }

  const DenseSet<Value> &buffers;
  /// Per buffer, the value each element is known to hold.
  DenseMap<Value, DenseMap<int64_t, KnownElement>> known;
  /// Per buffer, the last store of each element, not read since.
  DenseMap<Value, DenseMap<int64_t, Operation *>> pending;
  /// Per store, how many of its lanes are still the latest write.
  DenseMap<Operation *, int64_t> unreadLanes;
  /// Stores some lane of which was read from memory.
  DenseSet<Operation *> read;
  llvm::SetVector<Operation *> deadStores;
};

struct TileForwardLocalStores
    : tile::impl::TileForwardLocalStoresBase<TileForwardLocalStores> {
  void runOnOperation() override {
    DenseSet<Value> buffers;
    getOperation().walk([&](AllocLocalOp alloc) {
      if (isTrackable(alloc.getResult()))
        buffers.insert(alloc.getResult());
    });
    if (buffers.empty())
      return markAllAnalysesPreserved();
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      BlockForwarder(buffers).run(*block);
  }
};

} // namespace
