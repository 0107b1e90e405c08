//===- PromoteRegisters.cpp - per-thread buffers to SSA values -------------===//
//
// A fragment's registers and a tile.alloc_local buffer reach the GPU
// pipeline as one `memref.alloca` (memref<64x2xf32>: the 128 accumulator
// registers of a wgmma warp group), read and written by memref.load and
// memref.store at constant indices once the tile passes have unrolled their
// loops. Converted as they were, each access became a GEP and a load or a
// store, and LLVM's SROA promoted them only after the NVVM conversion,
// canonicalization and CSE, translation and the first LLVM passes had all
// gone over them (a third of the ops of a wgmma kernel).
//
// This pass promotes every element of such a buffer (a slot) to SSA values
// after convert-scf-to-cf, all slots of a function at once (Cytron et al.):
// a block argument in the iterated dominance frontier of the blocks that
// store to a slot, then one walk of the dominator tree that replaces each
// load by the slot's current value and passes the values along the
// branches. Upstream `mem2reg` does the same one slot at a time, and on the
// 128-register accumulators took more time than it saved.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/GenericIteratedDominanceFrontier.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPROMOTEREGISTERS
#include "tile/Pipelines/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

/// Buffers larger than this are left alone: no thread holds more registers.
static constexpr int64_t kMaxRegisters = 1024;

/// The row-major offsets of the elements that a scalar or 1-D vector load
/// or store of `buffer` at constant in-bounds indices accesses; empty for
/// any other use.
static SmallVector<int64_t, 4> getConstantOffsets(Operation *user,
                                                  Value buffer) {
  ValueRange indices;
  int64_t width = 1;
  if (auto load = dyn_cast<memref::LoadOp>(user)) {
    indices = load.getIndices();
  } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
    if (store.getValueToStore() == buffer)
      return {};
    indices = store.getIndices();
  } else if (auto load = dyn_cast<vector::LoadOp>(user)) {
    if (load.getVectorType().getRank() != 1)
      return {};
    indices = load.getIndices();
    width = load.getVectorType().getNumElements();
  } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
    if (store.getValueToStore() == buffer ||
        store.getVectorType().getRank() != 1)
      return {};
    indices = store.getIndices();
    width = store.getVectorType().getNumElements();
  } else {
    return {};
  }
  auto type = cast<MemRefType>(buffer.getType());
  int64_t offset = 0;
  for (auto [dim, index, extent] :
       llvm::enumerate(indices, type.getShape())) {
    std::optional<int64_t> value = getConstantIntValue(index);
    int64_t last = dim + 1 == indices.size() ? width - 1 : 0;
    if (!value || *value < 0 || *value + last >= extent)
      return {};
    offset = offset * extent + *value;
  }
  SmallVector<int64_t, 4> offsets;
  for (int64_t i = 0; i < width; ++i)
    offsets.push_back(offset + i);
  return offsets;
}

namespace {
/// The promotion of the buffers of one region (a function's CFG).
class RegisterPromotion {
public:
  explicit RegisterPromotion(Region &region) : region(region) {}

  /// Claims `alloca` when every use is a load or store at constant indices
  /// in a block of the region, and its elements can be given a value when
  /// read before written (integers, indices, floats).
  void claim(memref::AllocaOp alloca) {
    MemRefType type = alloca.getType();
    Type element = type.getElementType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getNumElements() > kMaxRegisters ||
        !isa<IntegerType, IndexType, FloatType>(element))
      return;
    SmallVector<std::pair<Operation *, SmallVector<int64_t, 4>>> uses;
    for (Operation *user : alloca->getUsers()) {
      SmallVector<int64_t, 4> offsets = getConstantOffsets(user, alloca);
      if (offsets.empty() || user->getParentRegion() != &region)
        return;
      uses.emplace_back(user, std::move(offsets));
    }
    allocas.push_back(alloca);
    for (auto &[user, offsets] : uses) {
      SmallVector<int64_t, 4> &slots = accessSlots[user];
      for (int64_t offset : offsets) {
        auto [it, inserted] = slotIds.try_emplace(
            {alloca.getResult(), offset}, slotTypes.size());
        if (inserted)
          slotTypes.push_back(element);
        slots.push_back(it->second);
      }
      accessOrder.push_back(user);
    }
  }

  /// Promotes the claimed buffers; false (nothing changed) when a block
  /// that needs a block argument has a predecessor that cannot pass one.
  bool run(DominanceInfo &dominance) {
    if (slotTypes.empty())
      return false;
    // The blocks that store to each slot.
    std::vector<SmallPtrSet<Block *, 4>> storeBlocks(slotTypes.size());
    for (auto &[op, slots] : accessSlots)
      if (isa<memref::StoreOp, vector::StoreOp>(op))
        for (int64_t slot : slots)
          storeBlocks[slot].insert(op->getBlock());
    // Block arguments where the stored values of a slot meet.
    bool oneBlock = region.hasOneBlock();
    std::vector<SmallVector<Block *>> joins(slotTypes.size());
    for (size_t slot = 0; slot < slotTypes.size() && !oneBlock; ++slot) {
      if (storeBlocks[slot].empty())
        continue;
      llvm::IDFCalculatorBase<Block, false> frontiers(
          dominance.getDomTree(&region));
      frontiers.setDefiningBlocks(storeBlocks[slot]);
      frontiers.calculate(joins[slot]);
      for (Block *block : joins[slot])
        for (Block *predecessor : block->getPredecessors())
          if (!isa<BranchOpInterface>(predecessor->getTerminator()))
            return false;
    }
    for (size_t slot = 0; slot < slotTypes.size(); ++slot) {
      // Sorted by position, so that arguments are added in a fixed order.
      llvm::sort(joins[slot], [&](Block *a, Block *b) {
        return blockIndex(a) < blockIndex(b);
      });
      for (Block *block : joins[slot])
        blockArguments[block].emplace_back(
            slot, block->addArgument(slotTypes[slot],
                                     region.getParentOp()->getLoc()));
    }
    // The walk of the dominator tree, in preorder, each block starting from
    // its immediate dominator's values at the end.
    std::vector<Value> entryValues(slotTypes.size());
    SmallVector<std::pair<Block *, std::vector<Value>>> work;
    work.emplace_back(&region.front(), entryValues);
    while (!work.empty()) {
      auto [block, values] = std::move(work.back());
      work.pop_back();
      rename(block, values);
      if (oneBlock)
        break;
      for (llvm::DomTreeNodeBase<Block> *child :
           dominance.getDomTree(&region).getNode(block)->children())
        work.emplace_back(child->getBlock(), values);
    }
    // Accesses in unreachable blocks.
    std::vector<Value> undefined(slotTypes.size());
    for (Operation *op : accessOrder)
      if (accessSlots.contains(op))
        rewrite(op, undefined);
    for (memref::AllocaOp alloca : allocas)
      alloca.erase();
    return true;
  }

private:
  int64_t blockIndex(Block *block) {
    if (blockIndices.empty())
      for (auto [index, each] : llvm::enumerate(region))
        blockIndices[&each] = index;
    return blockIndices.lookup(block);
  }

  /// Zero of the slot's type, for a read before any write (an undefined
  /// register): one constant per slot at the start of the entry block.
  Value getDefault(int64_t slot) {
    Value &value = defaults[slot];
    if (!value) {
      OpBuilder builder(&region.front(), region.front().begin());
      Type type = slotTypes[slot];
      value = arith::ConstantOp::create(builder, region.getParentOp()->getLoc(),
                                        cast<TypedAttr>(builder.getZeroAttr(type)));
    }
    return value;
  }

  void rename(Block *block, std::vector<Value> &values) {
    for (auto [slot, argument] : blockArguments.lookup(block))
      values[slot] = argument;
    for (Operation &op : llvm::make_early_inc_range(*block))
      if (accessSlots.contains(&op))
        rewrite(&op, values);
    Operation *terminator = block->getTerminator();
    for (auto [index, successor] :
         llvm::enumerate(terminator->getSuccessors())) {
      auto it = blockArguments.find(successor);
      if (it == blockArguments.end())
        continue;
      SuccessorOperands operands =
          cast<BranchOpInterface>(terminator).getSuccessorOperands(index);
      for (auto [slot, argument] : it->second)
        operands.append(values[slot] ? values[slot] : getDefault(slot));
    }
  }

  /// Replaces the access `op` by the slots' `values` (a load) or updates
  /// them (a store), and erases it.
  void rewrite(Operation *op, std::vector<Value> &values) {
    SmallVector<int64_t, 4> slots = accessSlots.lookup(op);
    accessSlots.erase(op);
    auto current = [&](int64_t slot) {
      return values[slot] ? values[slot] : getDefault(slot);
    };
    OpBuilder builder(op);
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      load.replaceAllUsesWith(current(slots.front()));
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      values[slots.front()] = store.getValueToStore();
    } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
      SmallVector<Value, 4> elements;
      for (int64_t slot : slots)
        elements.push_back(current(slot));
      load.replaceAllUsesWith(
          vector::FromElementsOp::create(builder, load.getLoc(),
                                         load.getVectorType(), elements)
              .getResult());
    } else {
      auto store = cast<vector::StoreOp>(op);
      for (auto [i, slot] : llvm::enumerate(slots))
        values[slot] = vector::ExtractOp::create(
            builder, store.getLoc(), store.getValueToStore(),
            ArrayRef<int64_t>{static_cast<int64_t>(i)});
    }
    op->erase();
  }

  Region &region;
  SmallVector<memref::AllocaOp> allocas;
  SmallVector<Type> slotTypes;
  DenseMap<std::pair<Value, int64_t>, int64_t> slotIds;
  DenseMap<Operation *, SmallVector<int64_t, 4>> accessSlots;
  SmallVector<Operation *> accessOrder;
  DenseMap<Block *, SmallVector<std::pair<int64_t, BlockArgument>>>
      blockArguments;
  DenseMap<Block *, int64_t> blockIndices;
  DenseMap<int64_t, Value> defaults;
};

struct TilePromoteRegisters
    : tile::impl::TilePromoteRegistersBase<TilePromoteRegisters> {
  void runOnOperation() override {
    bool changed = false;
    getOperation()->walk([&](FunctionOpInterface function) {
      if (function.isExternal())
        return;
      Region &body = function.getFunctionBody();
      RegisterPromotion promotion(body);
      body.walk([&](memref::AllocaOp alloca) { promotion.claim(alloca); });
      changed |= promotion.run(getAnalysis<DominanceInfo>());
    });
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
