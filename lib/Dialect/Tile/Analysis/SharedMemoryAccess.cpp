//===- SharedMemoryAccess.cpp - Who touches which shared element ----------===//

#include "tile/Dialect/Tile/Analysis/SharedMemoryAccess.h"

#include "tile/Dialect/Tile/Analysis/LinearForm.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

/// Returns true when `value` is defined inside `loop` (so it may differ from
/// one iteration to the next).
static bool isDefinedInside(Value value, Operation *loop) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return loop->isAncestor(arg.getOwner()->getParentOp());
  return loop->isProperAncestor(value.getDefiningOp());
}

/// The value each thread dimension is pinned to around `op`: inside the
/// then-branch of `scf.if (thread_id d == v)`, with `v` uniform, every
/// thread that runs `op` has index `v` in dimension `d`. Null where free.
static std::array<Value, 3> getPinnedThreadIndices(Operation *op,
                                                   const ThreadUniformity &uniformity) {
  std::array<Value, 3> pinned = {};
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    auto branch = dyn_cast<scf::IfOp>(parent);
    if (!branch || !branch.getThenRegion().isAncestor(op->getParentRegion()))
      continue;
    auto compare = branch.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!compare || compare.getPredicate() != arith::CmpIPredicate::eq)
      continue;
    for (unsigned side = 0; side < 2; ++side) {
      Value index = compare->getOperand(side);
      Value other = compare->getOperand(1 - side);
      std::optional<int> dim;
      if (auto tid = index.getDefiningOp<ThreadIdOp>())
        dim = static_cast<int>(tid.getDim());
      else if (auto tid = index.getDefiningOp<gpu::ThreadIdOp>())
        dim = static_cast<int>(tid.getDimension());
      if (dim && !uniformity.isThreadDependent(other) && !pinned[*dim])
        pinned[*dim] = other;
    }
  }
  return pinned;
}

/// Returns true when `a` and `b` are provably the same value.
static bool provablyEqual(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<int64_t> ca = getConstantIntValue(a);
  std::optional<int64_t> cb = getConstantIntValue(b);
  return ca && cb && *ca == *cb;
}

//===----------------------------------------------------------------------===//
// Collection
//===----------------------------------------------------------------------===//

/// Looks through views to the allocation.
static Value getRootBuffer(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(def)) {
      buffer = cast.getSource();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    buffer = view.getViewSource();
  }
  return buffer;
}

/// Matches the byte shift of a stage of a rolled pipeline (see
/// tile-software-pipeline): `((x + c) mod S) * B` (c a sum of constants),
/// `(x mod S) * B` or the
/// constant stage `k * B`, for views of at most `B` bytes.
static std::optional<SharedAccess::StageSlice>
matchStageSlice(memref::ViewOp view) {
  auto type = cast<MemRefType>(view.getType());
  if (!type.hasStaticShape())
    return std::nullopt;
  int64_t viewBytes =
      type.getNumElements() * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  auto mul = view.getByteShift().getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  std::optional<int64_t> stageBytes = getConstantIntValue(mul.getRhs());
  if (!stageBytes || *stageBytes < viewBytes)
    return std::nullopt;
  SharedAccess::StageSlice slice;
  slice.stageBytes = *stageBytes;
  if (std::optional<int64_t> constant = getConstantIntValue(mul.getLhs())) {
    slice.offset = *constant;
    return slice;
  }
  auto rem = mul.getLhs().getDefiningOp<arith::RemUIOp>();
  if (!rem)
    return std::nullopt;
  std::optional<int64_t> stages = getConstantIntValue(rem.getRhs());
  if (!stages || *stages < 1)
    return std::nullopt;
  slice.stages = *stages;
  slice.iteration = rem.getLhs();
  // Constant offsets, nested too: the second copy of an iteration in a loop
  // that runs two per step indexes `((it + 1) + c) mod S`.
  while (auto add = slice.iteration.getDefiningOp<arith::AddIOp>()) {
    std::optional<int64_t> offset = getConstantIntValue(add.getRhs());
    if (!offset)
      break;
    slice.iteration = add.getLhs();
    slice.offset += *offset;
  }
  return slice;
}

/// Returns true when two stage slices of one allocation are provably
/// different stages. Inside `carried` (accesses of two iterations), an
/// iteration value defined in the loop may differ between them.
static bool provablyDifferentStages(const SharedAccess::StageSlice &a,
                                    const SharedAccess::StageSlice &b,
                                    Operation *carried) {
  if (a.stageBytes != b.stageBytes)
    return false;
  if (!a.iteration && !b.iteration)
    return a.offset != b.offset;
  if (!a.iteration || !b.iteration || a.iteration != b.iteration ||
      a.stages != b.stages)
    return false;
  if (carried && isDefinedInside(a.iteration, carried))
    return false;
  int64_t difference = (a.offset - b.offset) % a.stages;
  return difference != 0;
}

/// Returns true for values that are, each, a distinct allocation.
static bool isAllocation(Value buffer) {
  return buffer.getDefiningOp<AllocSharedOp>() ||
         buffer.getDefiningOp<memref::GetGlobalOp>() ||
         buffer.getDefiningOp<memref::AllocaOp>();
}

/// Returns true unless `a` and `b` are provably different allocations: a
/// buffer that arrives through loop arguments, selects or branch results may
/// be any of them.
static bool mayAlias(Value a, Value b) {
  if (a == b)
    return true;
  if (!isAllocation(a) || !isAllocation(b))
    return true;
  auto globalA = a.getDefiningOp<memref::GetGlobalOp>();
  auto globalB = b.getDefiningOp<memref::GetGlobalOp>();
  return globalA && globalB && globalA.getName() == globalB.getName();
}

SharedMemoryAccessAnalysis::SharedMemoryAccessAnalysis(KernelOp kernel)
    : uniformity(kernel) {
  for (Dim dim : {Dim::x, Dim::y, Dim::z})
    threadExtents.push_back(kernel.getThreadExtent(dim));
}

/// Describes the access `op` makes to `buffer`, with indices when the op is
/// a plain load, store or atomic.
static SharedAccess describe(Operation *op, Value buffer, bool reads,
                             bool writes) {
  SharedAccess access;
  access.op = op;
  access.buffer = getRootBuffer(buffer);
  // Views of a stage stay inside it.
  for (Value value = buffer; value != access.buffer;) {
    Operation *def = value.getDefiningOp();
    if (auto view = dyn_cast<memref::ViewOp>(def);
        view && view.getSource() == access.buffer) {
      access.stage = matchStageSlice(view);
      break;
    }
    if (auto spaceCast = dyn_cast<memref::MemorySpaceCastOp>(def))
      value = spaceCast.getSource();
    else
      value = cast<ViewLikeOpInterface>(def).getViewSource();
  }
  access.reads = reads;
  access.writes = writes;
  std::optional<SmallVector<Value>> indices =
      llvm::TypeSwitch<Operation *, std::optional<SmallVector<Value>>>(op)
          .Case<memref::LoadOp, memref::StoreOp>([](auto access) {
            return llvm::to_vector(access.getIndices());
          })
          .Case<vector::LoadOp, vector::StoreOp>([&](auto vectorAccess) {
            access.vectorAccess = true;
            return llvm::to_vector(vectorAccess.getIndices());
          })
          .Case<memref::AtomicRMWOp, AtomicAddOp>([&](auto atomicOp) {
            access.atomic = true;
            return llvm::to_vector(atomicOp.getIndices());
          })
          .Default([](Operation *) { return std::nullopt; });
  // Indices name elements of the buffer itself, not of a view of it.
  if (indices && buffer == access.buffer) {
    access.indices = std::move(*indices);
    access.mapping = SharedAccess::Mapping::ThreadLevel;
  }
  return access;
}

/// Appends the accesses `op` itself makes (not its regions').
static void collectOwnEffects(Operation *op,
                              SmallVectorImpl<SharedAccess> &accesses) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    Value value = effect.getValue();
    if (!value || !isSharedMemory(value))
      continue;
    bool reads = isa<MemoryEffects::Read>(effect.getEffect());
    bool writes = isa<MemoryEffects::Write>(effect.getEffect());
    if (!reads && !writes)
      continue;
    // Merge the read and the write of one op on one buffer (atomics).
    auto existing = llvm::find_if(accesses, [&](const SharedAccess &a) {
      return a.op == op && a.buffer == getRootBuffer(value);
    });
    if (existing != accesses.end()) {
      existing->reads |= reads;
      existing->writes |= writes;
      continue;
    }
    accesses.push_back(describe(op, value, reads, writes));
  }
}

void SharedMemoryAccessAnalysis::collect(
    Operation *root, SmallVectorImpl<SharedAccess> &accesses) const {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto copy = dyn_cast<CopyOp>(op)) {
      if (isSharedMemory(copy.getSource()))
        accesses.push_back(describe(op, copy.getSource(), true, false));
      if (isSharedMemory(copy.getTarget()))
        accesses.push_back(describe(op, copy.getTarget(), false, true));
      return WalkResult::skip();
    }
    if (isa<FillOp, ClearOp>(op)) {
      Value buffer = op->getOperand(0);
      if (isSharedMemory(buffer))
        accesses.push_back(describe(op, buffer, false, true));
      return WalkResult::skip();
    }
    if (auto parallel = dyn_cast<ParallelOp>(op)) {
      SmallVector<SharedAccess> body;
      parallel.getBody().walk(
          [&](Operation *nested) { collectOwnEffects(nested, body); });
      for (SharedAccess &access : body) {
        if (access.mapping == SharedAccess::Mapping::ThreadLevel)
          access.mapping = SharedAccess::Mapping::Parallel;
        access.parallel = parallel;
        accesses.push_back(std::move(access));
      }
      return WalkResult::skip();
    }
    // A reduction's lowering owns its staging buffer and barriers.
    if (isa<ThreadAllReduceOp>(op))
      return WalkResult::skip();
    collectOwnEffects(op, accesses);
    return WalkResult::advance();
  });
}

//===----------------------------------------------------------------------===//
// Conflicts
//===----------------------------------------------------------------------===//

/// Returns the tile.parallel induction variable position `index` is, if any.
static std::optional<unsigned> parallelPosition(Value index,
                                                Operation *parallel) {
  auto arg = dyn_cast<BlockArgument>(index);
  if (!arg || arg.getOwner()->getParentOp() != parallel)
    return std::nullopt;
  return arg.getArgNumber();
}

bool SharedMemoryAccessAnalysis::provablySameThread(
    const SharedAccess &a, const SharedAccess &b) const {
  using Mapping = SharedAccess::Mapping;
  Operation *carried = a.carriedAcross ? a.carriedAcross : b.carriedAcross;
  // One collective op run again with the same operands spreads its elements
  // over the threads the same way.
  if (a.op == b.op && a.mapping == Mapping::Distributed &&
      b.mapping == Mapping::Distributed && a.writes == b.writes &&
      a.reads == b.reads && carried &&
      llvm::none_of(a.op->getOperands(), [&](Value operand) {
        return isDefinedInside(operand, carried);
      }))
    return true;
  if (a.mapping == Mapping::Parallel && b.mapping == Mapping::Parallel) {
    // Iterations of one run of a tile.parallel are independent by contract;
    // two runs (in two iterations of a loop around it) are not.
    if (a.parallel == b.parallel && !carried)
      return true;
    // Equal iteration spaces spread the same way give iteration i to the
    // same thread; indices that are the induction variables themselves pin
    // the iteration. A loop over a fragment runs iteration (i, j) on the
    // element's owner (its `layout`), not where the default spread would.
    auto pa = cast<ParallelOp>(a.parallel), pb = cast<ParallelOp>(b.parallel);
    if (pa.getExtents() != pb.getExtents() ||
        pa.getLayoutAttr() != pb.getLayoutAttr() ||
        a.indices.size() != b.indices.size())
      return false;
    llvm::SmallBitVector pinned(pa.getExtents().size());
    for (auto [ia, ib] : llvm::zip(a.indices, b.indices)) {
      std::optional<unsigned> posA = parallelPosition(ia, a.parallel);
      std::optional<unsigned> posB = parallelPosition(ib, b.parallel);
      if (posA && posB && *posA == *posB)
        pinned.set(*posA);
    }
    return pinned.all();
  }
  if (a.mapping != Mapping::ThreadLevel || b.mapping != Mapping::ThreadLevel ||
      a.indices.size() != b.indices.size())
    return false;

  // An element touched by both has equal indices in every dimension. Where
  // both indices have the same thread part and the same uniform part, equal
  // indices need equal thread parts; if those separate all threads, the two
  // accesses come from the same thread.
  SmallVector<LinearForm> forms;
  forms.reserve(a.indices.size());
  // A vector access covers several elements along the innermost dimension:
  // equal innermost indices do not mean equal elements there.
  size_t pinnable = a.indices.size();
  if (a.vectorAccess || b.vectorAccess)
    --pinnable;
  for (auto [ia, ib] : llvm::zip(ArrayRef<Value>(a.indices).take_front(pinnable),
                                 ArrayRef<Value>(b.indices).take_front(pinnable))) {
    std::optional<LinearForm> fa = getLinearForm(ia, uniformity);
    std::optional<LinearForm> fb = getLinearForm(ib, uniformity);
    if (!fa || !fb || fa->constant != fb->constant ||
        !llvm::equal(fa->thread, fb->thread) || fa->terms != fb->terms)
      continue;
    // Terms that change between iterations differ across a carried hazard.
    if (carried && llvm::any_of(fa->terms, [&](auto &term) {
          return isDefinedInside(term.first, carried);
        }))
      continue;
    forms.push_back(std::move(*fa));
  }
  SmallVector<const LinearForm *> pointers;
  for (const LinearForm &form : forms)
    pointers.push_back(&form);
  // A thread dimension that conditions around both accesses pin to one
  // value does not tell threads apart: count it as extent 1.
  SmallVector<int64_t, 3> extents(threadExtents);
  std::array<Value, 3> pinnedA = getPinnedThreadIndices(a.op, uniformity);
  std::array<Value, 3> pinnedB = getPinnedThreadIndices(b.op, uniformity);
  for (int d = 0; d < 3; ++d)
    if (pinnedA[d] && pinnedB[d] && provablyEqual(pinnedA[d], pinnedB[d]) &&
        !(carried && isDefinedInside(pinnedA[d], carried)))
      extents[d] = 1;
  return isInjectiveAcrossThreads(pointers, extents);
}

/// Two iterations of `loop` touch different elements when, in some
/// dimension, both indices are the same thread-independent function of the
/// loop's induction variable: a nonzero multiple of it plus loop-invariant
/// uniform terms. (The naive GEMV stages A_shared[tk] from every thread:
/// iteration tk never meets iteration tk' of another thread.)
bool SharedMemoryAccessAnalysis::provablyDifferentIterationElements(
    const SharedAccess &a, const SharedAccess &b, Operation *loop) const {
  auto loopLike = dyn_cast<LoopLikeOpInterface>(loop);
  if (!loopLike || a.indices.size() != b.indices.size())
    return false;
  std::optional<Value> iv = loopLike.getSingleInductionVar();
  std::optional<SmallVector<OpFoldResult>> steps = loopLike.getLoopSteps();
  if (!iv || !steps || steps->size() != 1)
    return false;
  std::optional<int64_t> step = getConstantIntValue((*steps)[0]);
  if (!step || *step == 0)
    return false;
  // A vector access covers several elements of the innermost dimension.
  size_t dims = a.indices.size();
  if (a.vectorAccess || b.vectorAccess)
    --dims;
  for (size_t d = 0; d < dims; ++d) {
    std::optional<LinearForm> fa = getLinearForm(a.indices[d], uniformity);
    std::optional<LinearForm> fb = getLinearForm(b.indices[d], uniformity);
    if (!fa || !fb || fa->constant != fb->constant ||
        !llvm::equal(fa->thread, fb->thread) || fa->terms != fb->terms)
      continue;
    if (llvm::any_of(fa->thread, [](int64_t c) { return c != 0; }))
      continue;
    bool stepsWithLoop = false, invariantOtherwise = true;
    for (auto [term, coefficient] : fa->terms) {
      if (term == *iv)
        stepsWithLoop = coefficient != 0;
      else if (isDefinedInside(term, loop))
        invariantOtherwise = false;
    }
    if (stepsWithLoop && invariantOtherwise)
      return true;
  }
  return false;
}

bool SharedMemoryAccessAnalysis::mayConflict(const SharedAccess &earlier,
                                             const SharedAccess &later) const {
  // The cheap tests first: reads never conflict with reads.
  if (!earlier.writes && !later.writes)
    return false;
  if (earlier.atomic && later.atomic)
    return false;
  if (!mayAlias(earlier.buffer, later.buffer))
    return false;
  // An op racing with itself within one execution is not something a
  // barrier can order; across loop iterations it is.
  Operation *carried =
      earlier.carriedAcross ? earlier.carriedAcross : later.carriedAcross;
  if (earlier.op == later.op && !carried)
    return false;
  if (carried && provablyDifferentIterationElements(earlier, later, carried))
    return false;
  if (earlier.stage && later.stage &&
      provablyDifferentStages(*earlier.stage, *later.stage, carried))
    return false;
  return !provablySameThread(earlier, later);
}
