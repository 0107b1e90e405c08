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
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"
#include "tile/Dialect/Tile/IR/MemorySpaces.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
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

Value IndexConstants::get(Location loc, int64_t value) {
  auto [it, inserted] = constants.try_emplace(value);
  if (inserted)
    it->second = arith::ConstantIndexOp::create(builder, loc, value);
  return it->second;
}

SmallVector<Value> FragmentRegisters::indices(OpBuilder &builder, Location loc,
                                              int64_t reg) const {
  int64_t rank = cast<MemRefType>(buffer.getType()).getRank();
  auto constant = [&](int64_t value) -> Value {
    if (constants)
      return constants->get(loc, value);
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

AffineMap FragmentRegisters::getCoordinateMap(int64_t reg, unsigned dim) const {
  // The register is a constant: each coordinate is an affine function of
  // the thread alone, which the index analyses (alignment, contiguity,
  // bounds) read directly.
  return getRegisterCoordinateMap(layout, reg, dim);
}

SmallVector<Value> FragmentRegisters::coordinates(OpBuilder &builder,
                                                  Location loc, Value thread,
                                                  int64_t reg) const {
  SmallVector<Value> result;
  for (unsigned dim = 0, e = layout.getMap().getNumResults(); dim < e; ++dim)
    result.push_back(affine::AffineApplyOp::create(
        builder, loc, getCoordinateMap(reg, dim), thread));
  return result;
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

Value tile::convertFloat(OpBuilder &builder, Location loc, Value value,
                         Type type) {
  Type from = getElementTypeOrSelf(value.getType());
  if (from == type)
    return value;
  auto withElement = [&](Type element) -> Type {
    if (auto vector = dyn_cast<VectorType>(value.getType()))
      return vector.clone(element);
    return element;
  };
  // Two formats of one width (f16 and bf16) convert through f32.
  if (from.getIntOrFloatBitWidth() == type.getIntOrFloatBitWidth())
    return arith::TruncFOp::create(
        builder, loc, withElement(type),
        arith::ExtFOp::create(builder, loc, withElement(builder.getF32Type()),
                              value));
  if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(builder, loc, withElement(type), value);
  return arith::TruncFOp::create(builder, loc, withElement(type), value);
}

namespace {

class FragmentLowering {
public:
  FragmentLowering(KernelOp kernel, GemmLowering defaultGemm, StringRef chip,
                   bool tmaStores)
      : kernel(kernel), defaultGemm(defaultGemm), chip(chip),
        tmaStores(tmaStores) {}

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
    indexConstants.emplace(body);
    for (AllocFragmentOp alloc : allocations) {
      LayoutAttr layout = alloc.getLayoutAttr();
      if (!layout)
        return alloc.emitOpError("has no layout: run tile-infer-layouts "
                                 "before tile-lower-fragments");
      MemRefType type = alloc.getResult().getType();
      int64_t maxRun = std::max<int64_t>(
          1, kMaxVectorBytes / getBufferElementBytes(type.getElementType()));
      FragmentRegisters fragment{Value(), layout, 1, {}, &*indexConstants};
      SmallVector<int64_t> shape;
      if (const RegisterSlots *slots = getSharedSlots(layout)) {
        fragment.slots = *slots;
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
      if ((isa<CopyOp, FillOp, ClearOp, GemmOp, ReduceOp>(op) &&
           llvm::any_of(op->getOperands(),
                        [&](Value v) { return registers.count(v); })) ||
          isa<WgmmaWaitOp>(op))
        users.push_back(op);
      return WalkResult::advance();
    });
    for (size_t index = 0; index < users.size(); ++index) {
      Operation *op = users[index];
      OpBuilder opBuilder(op);
      runningThreads = getThreadGroup(op).count;
      // Reductions lowered with `op` (the ones right after it).
      SmallVector<Operation *> lowered;
      // A fragment of a pipeline's consumer role lives in the block's first
      // threads: outside the role, the others skip the ops on it.
      bool guarded = false;
      if (FailureOr<std::optional<int64_t>> owners = getOwnerThreads(op);
          failed(owners)) {
        return failure();
      } else if (*owners) {
        guarded = true;
        runningThreads = **owners;
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
              .Case([&](WgmmaWaitOp wait) {
                lowerWgmmaWait(opBuilder, wait);
                return success();
              })
              .Case([&](ReduceOp reduce) -> LogicalResult {
                FailureOr<SmallVector<FragmentReduction>> group =
                    collectReductions(reduce, guarded, users, index, lowered);
                if (failed(group))
                  return failure();
                return lowerFragmentReduces(opBuilder, *group, thread);
              })
              .Default([](Operation *) { return failure(); });
      if (failed(result))
        return failure();
      op->erase();
      for (Operation *follower : lowered)
        follower->erase();
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
    if (const RegisterSlots *slots = getSharedSlots(layout))
      shape.slots = *slots;
    Block &body = loop->getRegion(0).front();
    // Registers holding the same element in every thread run once (a
    // tile.for_each_owned gives each its own number: all of them).
    SmallVector<int64_t> visited =
        registerArg
            ? llvm::to_vector(llvm::seq<int64_t>(0, layout.getRegisters()))
            : shape.storedRegisters();
    // Only the coordinates the body uses, each distinct one once (the
    // registers of a column share its column coordinate): the others would
    // only be affine.apply ops for canonicalization to fold and erase.
    DenseMap<AffineMap, Value> built;
    for (int64_t reg : visited) {
      Location loc = loop->getLoc();
      IRMapping mapping;
      for (auto [dim, arg] : llvm::enumerate(coordinateArgs)) {
        if (arg.use_empty())
          continue;
        AffineMap map = shape.getCoordinateMap(reg, dim);
        Value &coordinate = built[map];
        if (!coordinate)
          coordinate = affine::AffineApplyOp::create(builder, loc, map, thread);
        mapping.map(arg, coordinate);
      }
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

  /// getRegisterSlots(layout), computed once per layout (each
  /// tile.parallel over a reduced row asks again).
  const RegisterSlots &getSlots(LayoutAttr layout) {
    auto [it, inserted] = registerSlots.try_emplace(layout);
    if (inserted)
      it->second = getRegisterSlots(layout);
    return it->second;
  }

  /// The slots of `layout` when some registers of a thread hold the same
  /// element (a row reduced from an accumulator: its copies share a slot),
  /// else null. A layout replicated only across threads (a row vector
  /// broadcast over the rows of a block, each thread holding its columns
  /// once) keeps a slot per register, so that its buffer, runs and vector
  /// copies are those of any layout: a layer norm's weight then loads in
  /// 16-byte vectors, not element by element.
  const RegisterSlots *getSharedSlots(LayoutAttr layout) {
    if (!layout.isReplicated())
      return nullptr;
    const RegisterSlots &slots = getSlots(layout);
    if (slots.size() == layout.getRegisters())
      return nullptr;
    return &slots;
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

  /// True when the wider runs of `exchange` land on 16-byte boundaries of
  /// `memory` (its row pitch, the copy's offsets and the runs' starting
  /// columns): only then are they one vector store each. Otherwise the
  /// exchange would only add shuffles to the same scalar stores (a row
  /// length unknown without `tile.multiple_of`).
  bool isExchangedCopyAligned(const FragmentRegisters &fragment,
                              const LaneExchange &exchange, Value memory,
                              ValueRange offsets) {
    LayoutAttr layout = fragment.layout;
    int64_t rank = layout.getShape().size();
    // The power of two dividing each coordinate of every wider run's start.
    SmallVector<int64_t> divisors(rank, int64_t(1) << 30);
    auto divide = [](int64_t divisor, int64_t value) {
      return value == 0 ? divisor
                        : std::min(divisor, int64_t(value & -value));
    };
    for (int64_t t = 0; t < layout.getThreads(); ++t) {
      int64_t q = (t / exchange.laneStride) % exchange.lanes;
      for (ArrayRef<int64_t> group : exchange.groups) {
        SmallVector<int64_t> start = layout.getCoordinates(t, group.front());
        start.back() += q * (exchange.spacing - fragment.run);
        for (int64_t d = 0; d < rank; ++d)
          divisors[d] = divide(divisors[d], start[d]);
      }
    }
    for (auto [divisor, offset] : llvm::zip(divisors, offsets))
      divisor = std::min(divisor, getKnownDivisor(offset));
    return getKnownAccessAlignment(memory, divisors) >= kMaxVectorBytes;
  }

  /// Copies the registers of `fragment` out to `memory` (of elements
  /// `element`) at `offsets` in wider runs: the lanes of each group exchange
  /// their runs (`exchange`, xor shuffles of 32-bit words, a butterfly of
  /// log2(lanes) steps), so that each thread then writes `lanes * run`
  /// consecutive elements, one 16-byte store where it wrote `lanes` 4-byte
  /// ones (the MMA accumulators' pairs of columns). The registers convert
  /// to `element` a word at a time (two f32 to one f16 pair: one
  /// cvt.rn.f16x2.f32), and each wider run is one vector: the copy out was
  /// half of a wgmma GEMM's IR when it went element by element through
  /// per-thread buffers.
  void copyOutExchanged(OpBuilder &builder, Location loc,
                        const FragmentRegisters &fragment,
                        const LaneExchange &exchange, Type element,
                        Value memory, ValueRange offsets) {
    MLIRContext *context = builder.getContext();
    Value registers = fragment.buffer;
    int64_t rank = fragment.layout.getShape().size();
    int64_t run = fragment.run;
    int64_t lanes = exchange.lanes;
    int64_t wider = lanes * run;
    int64_t perWord = 4 / getBufferElementBytes(element);
    int64_t words = run / perWord;
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, value);
    };
    auto i32 = builder.getI32Type();
    Type registerElement =
        cast<MemRefType>(registers.getType()).getElementType();
    // Word w of the run starting at register `reg`, converted to `element`,
    // as an i32.
    auto loadWord = [&](int64_t reg, int64_t w) -> Value {
      SmallVector<Value> elements;
      for (int64_t e = 0; e < perWord; ++e)
        elements.push_back(memref::LoadOp::create(
            builder, loc, registers,
            fragment.indices(builder, loc, reg + w * perWord + e)));
      Value packed = vector::FromElementsOp::create(
          builder, loc, VectorType::get({perWord}, registerElement), elements);
      Value cast = vector::BitCastOp::create(
          builder, loc, VectorType::get({1}, i32),
          convertFloat(builder, loc, packed, element));
      return vector::ExtractOp::create(builder, loc, cast, ArrayRef<int64_t>{0});
    };

    // The wider runs, one row per group: [groups, 1, ..., wider].
    SmallVector<int64_t> shape(rank, 1);
    shape.front() = exchange.groups.size();
    shape.back() = wider;
    Value exchanged;
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointAfterValue(fragment.buffer);
      exchanged = AllocLocalOp::create(builder, fragment.buffer.getLoc(),
                                       MemRefType::get(shape, element));
    }
    // Lane q of its group (q = (thread / stride) mod lanes), bit by bit.
    AffineExpr t = getAffineDimExpr(0, context);
    AffineExpr lane = t.floorDiv(exchange.laneStride) % lanes;
    SmallVector<Value> laneBitSet;
    for (int64_t b = 1; b < lanes; b *= 2) {
      Value bit = affine::AffineApplyOp::create(
          builder, loc,
          AffineMap::get(1, 0, t.floorDiv(exchange.laneStride * b) % 2),
          thread);
      laneBitSet.push_back(arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ne, bit, constant(0)));
    }
    for (auto [index, group] : llvm::enumerate(exchange.groups)) {
      // held[i][w]: word w of the group's run i; after the butterfly, word w
      // of lane i's run q.
      SmallVector<SmallVector<Value>> held(lanes);
      for (int64_t i = 0; i < lanes; ++i)
        for (int64_t w = 0; w < words; ++w)
          held[i].push_back(loadWord(group[i], w));
      for (auto [step, set] : llvm::enumerate(laneBitSet)) {
        int64_t b = int64_t(1) << step;
        Value offset = arith::ConstantIntOp::create(
            builder, loc, i32, exchange.laneStride * b);
        Value width =
            arith::ConstantIntOp::create(builder, loc, i32, tile::kWarpSize);
        for (int64_t i = 0; i < lanes; ++i) {
          if (i & b)
            continue;
          for (int64_t w = 0; w < words; ++w) {
            // A lane without bit b keeps run i and sends run i | b; one
            // with it keeps i | b and sends i.
            Value &low = held[i][w], &high = held[i | b][w];
            Value sent = arith::SelectOp::create(builder, loc, set, low, high);
            Value received =
                gpu::ShuffleOp::create(builder, loc, sent, offset, width,
                                       gpu::ShuffleMode::XOR)
                    .getShuffleResult();
            Value newLow =
                arith::SelectOp::create(builder, loc, set, received, low);
            high = arith::SelectOp::create(builder, loc, set, high, received);
            low = newLow;
          }
        }
      }
      // Lane i's words, in lane order, are the wider run: one vector.
      SmallVector<Value> rowIndices(rank, constant(0));
      rowIndices.front() = constant(index);
      SmallVector<Value> runWords;
      for (int64_t i = 0; i < lanes; ++i)
        llvm::append_range(runWords, held[i]);
      Value wordsVector = vector::FromElementsOp::create(
          builder, loc,
          VectorType::get({static_cast<int64_t>(runWords.size())}, i32),
          runWords);
      vector::StoreOp::create(
          builder, loc,
          vector::BitCastOp::create(
              builder, loc, VectorType::get({wider}, element), wordsVector),
          exchanged, rowIndices);
      // It starts where the thread's run group[0] starts, q * (spacing -
      // run) further along the innermost dimension.
      AffineMap map = fragment.layout.getMap().replace(
          {{getAffineDimExpr(1, context),
            getAffineConstantExpr(group.front(), context)}},
          /*numResultDims=*/2, /*numResultSyms=*/0);
      SmallVector<Value> memoryIndices;
      for (unsigned dim = 0; dim < map.getNumResults(); ++dim) {
        AffineExpr coordinate = map.getResult(dim);
        if (dim + 1 == map.getNumResults())
          coordinate = coordinate + lane * (exchange.spacing - run);
        Value start = affine::AffineApplyOp::create(
            builder, loc,
            AffineMap::get(1, 0, simplifyAffineExpr(coordinate, 2, 0),
                           context),
            thread);
        // A copy of the whole memref has no offsets.
        memoryIndices.push_back(
            offsets.empty()
                ? start
                : arith::AddIOp::create(builder, loc, offsets[dim], start));
      }
      SmallVector<int64_t> copyShape(memoryIndices.size(), 1);
      copyShape.back() = wider;
      CopyOp::create(builder, loc, exchanged, rowIndices, memory,
                     memoryIndices, builder.getDenseI64ArrayAttr(copyShape));
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

    int64_t run = fragment.run;
    // A replicated fragment is written out by one of the threads that hold
    // each element: those whose replicated thread bits are zero.
    std::optional<int64_t> replicas = getReplicatedThreadBits(fragment.layout);
    if (fromFragment && !replicas)
      return copy.emitOpError("copies out a replicated fragment whose copies "
                              "of an element are not spread over whole "
                              "thread-index bits");
    // On sm_90a, an accumulator goes out to a kernel argument through
    // shared tiles and TMA stores (the TMA-store epilogue).
    if (fromFragment && tmaStores &&
        getMemorySpace(cast<MemRefType>(memory.getType())) ==
            MemorySpace::Global &&
        !whyNotCopyOutThroughTma(copy, fragment, runningThreads)) {
      copyOutThroughTma(builder, copy, fragment, thread, runningThreads);
      return success();
    }
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
    // Out to global memory in runs under 16 bytes (the MMA accumulators'
    // pairs): the lanes exchange runs, when the layout allows, so that each
    // writes 16 bytes (f16 4096^3 on wgmma: 211 -> 191 us on the H100, the
    // 4-byte stores took a tenth of the kernel). Into shared memory, the
    // shuffles would cost more than the stores they save.
    if (fromFragment && !fragment.layout.isReplicated() &&
        getMemorySpace(cast<MemRefType>(memory.getType())) ==
            MemorySpace::Global) {
      int64_t bytes = getBufferElementBytes(memoryElement);
      if (bytes <= 4 && (run * bytes) % 4 == 0 &&
          kMaxVectorBytes / bytes > run)
        if (std::optional<LaneExchange> exchange = getLaneExchange(
                fragment.layout, run, kMaxVectorBytes / bytes);
            exchange && isExchangedCopyAligned(fragment, *exchange, memory,
                                               offsets)) {
          copyOutExchanged(builder, loc, fragment, *exchange, memoryElement,
                           memory, offsets);
          return success();
        }
    }
    // Otherwise converted on the register side, through a scratch buffer of
    // the memory's element type.
    Value registersBuffer = fragment.buffer;
    if (fragmentElement != memoryElement) {
      registersBuffer = createScratch(fragment, memoryElement);
      if (fromFragment)
        convertRegisters(builder, loc, fragment, fragment.buffer,
                         registersBuffer);
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

  /// wgmma.wait_group with the f32 registers of the waited-for
  /// accumulators passing through it (their readers then follow it).
  void lowerWgmmaWait(OpBuilder &builder, WgmmaWaitOp wait) {
    // The CPU runtime models the wait (its race check retires the groups);
    // the registers are plain memory there.
    if (chip == kCPUChip) {
      NVVM::WgmmaWaitGroupSyncOp::create(builder, wait.getLoc(),
                                         wait.getPending());
      return;
    }
    SmallVector<const FragmentRegisters *> accumulators;
    for (Value fragment : wait.getFragments())
      accumulators.push_back(&registers[fragment]);
    buildWgmmaWaitForRegisters(builder, wait.getLoc(), wait.getPending(),
                               accumulators);
  }

  /// `reduce` and the reductions right after it that can share its trip
  /// through shared memory (the ops that follow it directly in its block,
  /// each reading no fragment that an earlier one of them writes), for
  /// lowerFragmentReduces; `index` advances past them in `users`, and
  /// `lowered` receives them. A reduction under a role's guard (`guarded`)
  /// goes alone.
  FailureOr<SmallVector<FragmentReduction>>
  collectReductions(ReduceOp reduce, bool guarded, ArrayRef<Operation *> users,
                    size_t &index, SmallVectorImpl<Operation *> &lowered) {
    SmallVector<FragmentReduction> group;
    auto registersOf = [&](ReduceOp op) -> std::optional<FragmentReduction> {
      auto source = registers.find(op.getSource());
      auto target = registers.find(op.getTarget());
      if (source == registers.end() || target == registers.end())
        return std::nullopt;
      return FragmentReduction{op, &source->second, &target->second};
    };
    std::optional<FragmentReduction> first = registersOf(reduce);
    if (!first)
      return reduce.emitOpError("reduces a fragment that is not a "
                                "'tile.alloc_fragment' into another");
    group.push_back(*first);
    while (!guarded && index + 1 < users.size()) {
      auto next = dyn_cast<ReduceOp>(users[index + 1]);
      if (!next || group.back().op->getNextNode() != next.getOperation())
        break;
      if (llvm::any_of(group, [&](FragmentReduction earlier) {
            return earlier.op.getTarget() == next.getSource();
          }))
        break;
      FailureOr<std::optional<int64_t>> owners = getOwnerThreads(next);
      if (failed(owners) || *owners)
        break;
      std::optional<FragmentReduction> follower = registersOf(next);
      if (!follower)
        break;
      group.push_back(*follower);
      lowered.push_back(next);
      ++index;
    }
    return group;
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
    return lowerGemmToMmaSync(builder, gemm, c, a, thread, chip);
  }

  KernelOp kernel;
  GemmLowering defaultGemm;
  StringRef chip;
  /// Whether accumulators may go out through TMA stores (sm_90a).
  bool tmaStores;
  /// The threads that run the op being lowered.
  int64_t runningThreads = 0;
  Value thread;
  /// The register indices of the kernel being lowered.
  std::optional<IndexConstants> indexConstants;
  DenseMap<Value, FragmentRegisters> registers;
  DenseMap<std::pair<Attribute, Attribute>, std::optional<SmallVector<int64_t>>>
      registerMappings;
  DenseMap<Attribute, RegisterSlots> registerSlots;
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
    if (failed(
            FragmentLowering(getOperation(), *lowering, chip, tma).run()))
      signalPassFailure();
  }
};

} // namespace
