//===- LowerFragments.cpp - Fragments to per-thread registers -------------===//
//
// Each fragment becomes the per-thread buffer of the registers its layout
// gives the thread (FragmentRegisters), and each op on it per-thread code
// (see Passes.td, tile-lower-fragments). The per-register loops are
// `tile.unroll`: registers are only registers when addressed by constants.
// Copies become per-thread `tile.copy` ops of register runs, which
// tile-lower-tile-ops turns into bounds-checked vector accesses.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-fragments"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERFRAGMENTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Widest vector access, in bytes.
static constexpr int64_t kMaxVectorBytes = 16;

//===----------------------------------------------------------------------===//
// FragmentRegisters
//===----------------------------------------------------------------------===//

SmallVector<Value> FragmentRegisters::indices(OpBuilder &builder, Location loc,
                                              int64_t reg) const {
  int64_t rank = cast<MemRefType>(buffer.getType()).getRank();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  if (!slots.slotOf.empty()) {
    SmallVector<Value> result(rank, constant(0));
    result.front() = constant(slots.slotOf[reg]);
    return result;
  }
  if (rank == 1)
    return {constant(reg)};
  SmallVector<Value> result(rank, constant(0));
  result.front() = constant(reg / run);
  result.back() = constant(reg % run);
  return result;
}

SmallVector<int64_t> FragmentRegisters::storedRegisters() const {
  if (!slots.slotOf.empty())
    return slots.representative;
  return llvm::to_vector(llvm::seq<int64_t>(0, layout.getRegisters()));
}

SmallVector<Value> FragmentRegisters::coordinates(OpBuilder &builder,
                                                  Location loc, Value thread,
                                                  int64_t reg) const {
  // The register is a constant: each coordinate is an affine function of
  // the thread alone, which the index analyses (alignment, contiguity,
  // bounds) read directly.
  MLIRContext *context = builder.getContext();
  AffineMap map = layout.getMap().replace(
      {{getAffineDimExpr(1, context), getAffineConstantExpr(reg, context)}},
      /*numResultDims=*/2, /*numResultSyms=*/0);
  SmallVector<Value> result;
  for (unsigned dim = 0; dim < map.getNumResults(); ++dim) {
    AffineMap coordinate = AffineMap::get(
        1, 0, simplifyAffineExpr(map.getResult(dim), 2, 0), context);
    result.push_back(
        affine::AffineApplyOp::create(builder, loc, coordinate, thread));
  }
  return result;
}

/// True when `layout` holds some element in several registers.
static bool isReplicated(LayoutAttr layout) {
  return layout.getThreads() * layout.getRegisters() > layout.getNumElements();
}

/// The shape of the per-thread buffer of `layout` (see FragmentRegisters).
static SmallVector<int64_t> getRegisterShape(LayoutAttr layout, int64_t run) {
  int64_t rank = layout.getShape().size();
  if (rank == 1)
    return {layout.getRegisters()};
  SmallVector<int64_t> shape(rank, 1);
  shape.front() = layout.getRegisters() / run;
  shape.back() = run;
  return shape;
}

/// Converts `value` to the float type `type` (extension or truncation).
static Value convertFloat(OpBuilder &builder, Location loc, Value value,
                          Type type) {
  Type from = value.getType();
  if (from == type)
    return value;
  // Two formats of one width (f16 and bf16) convert through f32.
  if (from.getIntOrFloatBitWidth() == type.getIntOrFloatBitWidth())
    return arith::TruncFOp::create(
        builder, loc, type,
        arith::ExtFOp::create(builder, loc, builder.getF32Type(), value));
  if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(builder, loc, type, value);
  return arith::TruncFOp::create(builder, loc, type, value);
}

namespace {

class FragmentLowering {
public:
  FragmentLowering(KernelOp kernel, GemmLowering defaultGemm, StringRef chip)
      : kernel(kernel), defaultGemm(defaultGemm), chip(chip) {}

  LogicalResult run() {
    SmallVector<AllocFragmentOp> allocations;
    kernel.getBody().walk(
        [&](AllocFragmentOp alloc) { allocations.push_back(alloc); });
    if (allocations.empty())
      return success();
    Block &body = kernel.getBody().front();
    OpBuilder builder(kernel.getContext());
    builder.setInsertionPointToStart(&body);
    thread = buildLinearThreadId(builder, kernel.getLoc(), kernel);
    for (AllocFragmentOp alloc : allocations) {
      LayoutAttr layout = alloc.getLayoutAttr();
      if (!layout)
        return alloc.emitOpError("has no layout: run tile-infer-layouts "
                                 "before tile-lower-fragments");
      MemRefType type = alloc.getResult().getType();
      int64_t maxRun = std::max<int64_t>(
          1, kMaxVectorBytes / getBufferElementBytes(type.getElementType()));
      FragmentRegisters fragment{Value(), layout, 1, {}};
      SmallVector<int64_t> shape;
      if (isReplicated(layout)) {
        fragment.slots = getRegisterSlots(layout);
        shape.assign(type.getRank(), 1);
        shape.front() = fragment.slots.size();
      } else {
        fragment.run = getContiguousRun(layout, maxRun);
        shape = getRegisterShape(layout, fragment.run);
      }
      builder.setInsertionPoint(alloc);
      fragment.buffer =
          AllocLocalOp::create(builder, alloc.getLoc(),
                               MemRefType::get(shape, type.getElementType()));
      registers[alloc.getResult()] = fragment;
    }

    // The ops on fragments, outermost first (a tile.parallel before the
    // accesses in its body, which it rewrites).
    SmallVector<Operation *> users;
    kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto parallel = dyn_cast<ParallelOp>(op)) {
        if (parallel.getLayoutAttr()) {
          users.push_back(op);
          return WalkResult::skip();
        }
        return WalkResult::advance();
      }
      if (isa<ForEachOwnedOp>(op)) {
        users.push_back(op);
        return WalkResult::skip();
      }
      if (isa<CopyOp, FillOp, ClearOp, GemmOp, ReduceOp>(op) &&
          llvm::any_of(op->getOperands(),
                       [&](Value v) { return registers.count(v); }))
        users.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : users) {
      OpBuilder opBuilder(op);
      // A fragment of a pipeline's consumer role lives in the block's first
      // threads: outside the role, the others skip the ops on it.
      if (FailureOr<std::optional<int64_t>> owners = getOwnerThreads(op);
          failed(owners)) {
        return failure();
      } else if (*owners) {
        Value owns = arith::CmpIOp::create(
            opBuilder, op->getLoc(), arith::CmpIPredicate::ult, thread,
            arith::ConstantIndexOp::create(opBuilder, op->getLoc(), **owners));
        auto guard = scf::IfOp::create(opBuilder, op->getLoc(), owns,
                                       /*withElseRegion=*/false);
        op->moveBefore(guard.thenBlock()->getTerminator());
        opBuilder.setInsertionPoint(op);
      }
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](ParallelOp parallel) {
                return unrollOverRegisters(
                    opBuilder, parallel, parallel.getLayoutAttr(),
                    parallel.getInductionVars(), /*registerArg=*/nullptr);
              })
              .Case([&](ForEachOwnedOp owned) -> LogicalResult {
                auto it = registers.find(owned.getFragment());
                if (it == registers.end())
                  return owned.emitOpError("iterates over a fragment that "
                                           "is not a 'tile.alloc_fragment'");
                return unrollOverRegisters(
                    opBuilder, owned, it->second.layout,
                    owned.getCoordinates(), owned.getRegister());
              })
              .Case([&](CopyOp copy) { return lowerCopy(opBuilder, copy); })
              .Case([&](FillOp fill) {
                FillOp::create(opBuilder, fill.getLoc(),
                               registers[fill.getBuffer()].buffer,
                               fill.getValue());
                return success();
              })
              .Case([&](ClearOp clear) {
                ClearOp::create(opBuilder, clear.getLoc(),
                                registers[clear.getBuffer()].buffer);
                return success();
              })
              .Case([&](GemmOp gemm) { return lowerGemm(opBuilder, gemm); })
              .Case([&](ReduceOp reduce) -> LogicalResult {
                auto source = registers.find(reduce.getSource());
                auto target = registers.find(reduce.getTarget());
                if (source == registers.end() || target == registers.end())
                  return reduce.emitOpError(
                      "reduces a fragment that is not a "
                      "'tile.alloc_fragment' into another");
                return lowerFragmentReduce(opBuilder, reduce, source->second,
                                           target->second, thread);
              })
              .Default([](Operation *) { return failure(); });
      if (failed(result))
        return failure();
      op->erase();
    }
    for (AllocFragmentOp alloc : allocations) {
      if (!alloc.getResult().use_empty()) {
        Operation *user = *alloc.getResult().getUsers().begin();
        return user->emitOpError("uses a fragment in a way "
                                 "tile-lower-fragments cannot lower (run "
                                 "tile-infer-layouts first: it checks the "
                                 "uses)");
      }
      alloc.erase();
    }
    kernel.getBody().walk(
        [](Operation *op) { op->removeAttr(kWgmmaWaitedAttr); });
    return success();
  }

private:
  /// The threads that own the fragments `op` works on, when they are fewer
  /// than the threads that run `op` (a consumer role's fragment used after
  /// the pipeline): the first N. nullopt when every thread running `op` has
  /// its part. Fails for the ops that cannot leave threads out.
  FailureOr<std::optional<int64_t>> getOwnerThreads(Operation *op) {
    int64_t running = getThreadGroup(op).count;
    int64_t owners = running;
    auto visit = [&](LayoutAttr layout) {
      owners = std::min(owners, layout.getThreads());
    };
    if (auto parallel = dyn_cast<ParallelOp>(op))
      visit(parallel.getLayoutAttr());
    for (Value operand : op->getOperands())
      if (auto it = registers.find(operand); it != registers.end())
        visit(it->second.layout);
    if (owners == running)
      return std::optional<int64_t>();
    if (isa<FillOp, ClearOp>(op))
      return std::optional<int64_t>();
    if (isa<GemmOp, ReduceOp>(op) || getThreadGroup(op).first != 0)
      return op->emitOpError("works on a fragment of ")
             << owners << " threads (a pipeline's consumer role) with "
             << running << " threads: it needs every thread of the fragment "
             << "and no other";
    return std::optional<int64_t>(owners);
  }

  /// One copy of the body of `loop` (a tile.parallel over a fragment or a
  /// tile.for_each_owned) per register of `layout`, at the register's
  /// coordinates (`coordinateArgs`) and with its number (`registerArg`,
  /// when the loop has one).
  LogicalResult unrollOverRegisters(OpBuilder &builder, Operation *loop,
                                    LayoutAttr layout,
                                    ValueRange coordinateArgs,
                                    Value registerArg) {
    FragmentRegisters shape{Value(), layout, 1, {}};
    if (isReplicated(layout))
      shape.slots = getRegisterSlots(layout);
    Block &body = loop->getRegion(0).front();
    // Registers holding the same element in every thread run once (a
    // tile.for_each_owned gives each its own number: all of them).
    SmallVector<int64_t> visited =
        registerArg
            ? llvm::to_vector(llvm::seq<int64_t>(0, layout.getRegisters()))
            : shape.storedRegisters();
    for (int64_t reg : visited) {
      Location loc = loop->getLoc();
      SmallVector<Value> coordinates =
          shape.coordinates(builder, loc, thread, reg);
      IRMapping mapping;
      mapping.map(coordinateArgs, coordinates);
      if (registerArg)
        mapping.map(registerArg,
                    arith::ConstantIndexOp::create(builder, loc, reg));
      SmallVector<Operation *> accesses;
      for (Operation &op : body.without_terminator()) {
        Operation *clone = builder.clone(op, mapping);
        clone->walk([&](Operation *nested) {
          if (isa<memref::LoadOp, memref::StoreOp>(nested))
            accesses.push_back(nested);
        });
      }
      for (Operation *access : accesses)
        if (failed(rewriteElementAccess(loop, layout, access, reg)))
          return failure();
    }
    return success();
  }

  /// A load or store of a fragment element in a copy of the body of `loop`
  /// becomes one of register `reg`.
  LogicalResult rewriteElementAccess(Operation *loop, LayoutAttr layout,
                                     Operation *access, int64_t reg) {
    Value memref = isa<memref::LoadOp>(access)
                       ? cast<memref::LoadOp>(access).getMemref()
                       : cast<memref::StoreOp>(access).getMemref();
    auto it = registers.find(memref);
    if (it == registers.end())
      return success();
    const FragmentRegisters &fragment = it->second;
    // The loop's own layout, or a reduced one read as a broadcast: the
    // register that holds the iteration's row in the reduced fragment.
    int64_t fragmentReg = reg;
    if (fragment.layout != layout) {
      std::optional<int64_t> mapped;
      for (int64_t dim = 0, e = layout.getShape().size(); dim < e && !mapped;
           ++dim)
        if (const SmallVector<int64_t> *mapping = getRegisterMapping(
                getReducedLayout(layout, dim), fragment.layout))
          mapped = (*mapping)[reg];
      if (!mapped)
        return loop->emitOpError("touches fragments of different layouts "
                                 "(tile-infer-layouts gives them one)");
      fragmentReg = *mapped;
    }
    OpBuilder builder(access);
    Location loc = access->getLoc();
    SmallVector<Value> indices = fragment.indices(builder, loc, fragmentReg);
    if (auto load = dyn_cast<memref::LoadOp>(access)) {
      Value value =
          memref::LoadOp::create(builder, loc, fragment.buffer, indices);
      load.getResult().replaceAllUsesWith(value);
    } else {
      auto store = cast<memref::StoreOp>(access);
      memref::StoreOp::create(builder, loc, store.getValueToStore(),
                              fragment.buffer, indices);
    }
    access->erase();
    return success();
  }

  /// mapRegisters(from, to), computed once per pair; null when there is
  /// none.
  const SmallVector<int64_t> *getRegisterMapping(LayoutAttr from,
                                                 LayoutAttr to) {
    auto [it, inserted] = registerMappings.try_emplace({from, to});
    if (inserted)
      it->second = mapRegisters(from, to);
    return it->second ? &*it->second : nullptr;
  }

  /// A per-thread buffer like `fragment`'s with elements of `type`, at the
  /// top of the kernel.
  Value createScratch(const FragmentRegisters &fragment, Type type) {
    OpBuilder builder(kernel.getContext());
    builder.setInsertionPointAfterValue(fragment.buffer);
    auto bufferType = cast<MemRefType>(fragment.buffer.getType());
    return AllocLocalOp::create(builder, fragment.buffer.getLoc(),
                                MemRefType::get(bufferType.getShape(), type));
  }

  /// `to[r] = convert(from[r])` for every register.
  void convertRegisters(OpBuilder &builder, Location loc,
                        const FragmentRegisters &fragment, Value from,
                        Value to) {
    Type type = cast<MemRefType>(to.getType()).getElementType();
    for (int64_t reg : fragment.storedRegisters()) {
      SmallVector<Value> indices = fragment.indices(builder, loc, reg);
      Value value = memref::LoadOp::create(builder, loc, from, indices);
      memref::StoreOp::create(
          builder, loc, convertFloat(builder, loc, value, type), to, indices);
    }
  }

  LogicalResult lowerCopy(OpBuilder &builder, CopyOp copy) {
    Location loc = copy.getLoc();
    auto sourceIt = registers.find(copy.getSource());
    auto targetIt = registers.find(copy.getTarget());
    Type sourceElement = copy.getSource().getType().getElementType();
    Type targetElement = copy.getTarget().getType().getElementType();
    // Fragment to fragment: the same layout, so register to register.
    if (sourceIt != registers.end() && targetIt != registers.end()) {
      if (sourceIt->second.layout != targetIt->second.layout)
        return copy.emitOpError("copies between fragments of different "
                                "layouts");
      convertRegisters(builder, loc, sourceIt->second, sourceIt->second.buffer,
                       targetIt->second.buffer);
      return success();
    }
    bool fromFragment = sourceIt != registers.end();
    const FragmentRegisters &fragment =
        fromFragment ? sourceIt->second : targetIt->second;
    Value memory = fromFragment ? copy.getTarget() : copy.getSource();
    ValueRange offsets =
        fromFragment ? copy.getTargetIndices() : copy.getSourceIndices();
    Type fragmentElement = fromFragment ? sourceElement : targetElement;
    Type memoryElement = fromFragment ? targetElement : sourceElement;

    // Converted on the register side, through a scratch buffer of the
    // memory's element type.
    Value registersBuffer = fragment.buffer;
    if (fragmentElement != memoryElement) {
      registersBuffer = createScratch(fragment, memoryElement);
      if (fromFragment)
        convertRegisters(builder, loc, fragment, fragment.buffer,
                         registersBuffer);
    }
    int64_t run = fragment.run;
    // A replicated fragment is written out by one of the threads that hold
    // each element: those whose replicated thread bits are zero.
    std::optional<int64_t> replicas = getReplicatedThreadBits(fragment.layout);
    if (fromFragment && !replicas)
      return copy.emitOpError("copies out a replicated fragment whose copies "
                              "of an element are not spread over whole "
                              "thread-index bits");
    OpBuilder::InsertionGuard guard(builder);
    if (fromFragment && *replicas != 0) {
      Value bits = arith::AndIOp::create(
          builder, loc, thread,
          arith::ConstantIndexOp::create(builder, loc, *replicas));
      Value writes = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, bits,
          arith::ConstantIndexOp::create(builder, loc, 0));
      auto guarded = scf::IfOp::create(builder, loc, writes,
                                       /*withElseRegion=*/false);
      builder.setInsertionPoint(guarded.thenBlock()->getTerminator());
    }
    for (int64_t reg : fragment.storedRegisters()) {
      if (reg % run != 0)
        continue;
      SmallVector<Value> coordinates =
          fragment.coordinates(builder, loc, thread, reg);
      SmallVector<Value> memoryIndices = coordinates;
      for (auto [index, offset] : llvm::zip(memoryIndices, offsets))
        index = arith::AddIOp::create(builder, loc, offset, index);
      SmallVector<Value> registerIndices = fragment.indices(builder, loc, reg);
      SmallVector<int64_t> shape(coordinates.size(), 1);
      shape.back() = run;
      if (fromFragment)
        CopyOp::create(builder, loc, registersBuffer, registerIndices, memory,
                       memoryIndices, builder.getDenseI64ArrayAttr(shape));
      else
        CopyOp::create(builder, loc, memory, memoryIndices, registersBuffer,
                       registerIndices, builder.getDenseI64ArrayAttr(shape));
    }
    if (!fromFragment && registersBuffer != fragment.buffer)
      convertRegisters(builder, loc, fragment, registersBuffer,
                       fragment.buffer);
    return success();
  }

  LogicalResult lowerGemm(OpBuilder &builder, GemmOp gemm) {
    const FragmentRegisters &c = registers[gemm.getC()];
    auto aIt = registers.find(gemm.getA());
    const FragmentRegisters *a =
        aIt == registers.end() ? nullptr : &aIt->second;
    GemmLowering lowering =
        gemm.getLowering().value_or(GemmLowering::automatic);
    if (lowering == GemmLowering::automatic)
      lowering = defaultGemm;
    // The CPU has no tensor cores: every gemm computes its layout's
    // elements with FMAs there.
    if (chip == kCPUChip || lowering == GemmLowering::scalar)
      return lowerGemmToScalar(
          builder, gemm, c, a, thread,
          /*modelInFlight=*/chip == kCPUChip &&
              gemm->hasAttr(kWgmmaInFlightAttr));
    if (lowering == GemmLowering::wgmma) {
      if (chip != "sm_90a")
        return gemm.emitOpError("wgmma lowering needs sm_90a (Hopper "
                                "warp-group MMAs), but the kernel is "
                                "compiled for ")
               << chip << ": use lowering = #tile.gemm_lowering<mma_sync> "
               << "or compile with chip=sm_90a";
      return lowerGemmToWgmma(builder, gemm, c, a, thread);
    }
    return lowerGemmToMmaSync(builder, gemm, c, a, thread);
  }

  KernelOp kernel;
  GemmLowering defaultGemm;
  StringRef chip;
  Value thread;
  DenseMap<Value, FragmentRegisters> registers;
  DenseMap<std::pair<Attribute, Attribute>, std::optional<SmallVector<int64_t>>>
      registerMappings;
};

struct TileLowerFragments
    : tile::impl::TileLowerFragmentsBase<TileLowerFragments> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<GemmLowering> lowering = symbolizeGemmLowering(gemmLowering);
    if (!lowering || *lowering == GemmLowering::automatic) {
      getOperation().emitError("tile-lower-fragments: gemm-lowering must be "
                               "'mma_sync', 'wgmma' or 'scalar', got '")
          << gemmLowering << "'";
      return signalPassFailure();
    }
    if (failed(FragmentLowering(getOperation(), *lowering, chip).run()))
      signalPassFailure();
  }
};

} // namespace
