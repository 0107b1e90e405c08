//===- Vectorize.cpp - tile.vectorized loops to vector accesses -----------===//
//
// A tile.vectorized loop is vectorized as a whole or not at all: first an
// analysis checks every op of the body and proves contiguity and alignment
// of every access, then the rewrite emits one vector op per body op and
// group of `width` iterations. A failed check unrolls the loop into scalar
// code and says why in a remark.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"
#include "tile/Dialect/Tile/Transforms/LoopUtils.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-vectorize"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEVECTORIZE
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Widest vector access, in bytes.
static constexpr int64_t kMaxVectorBytes = 16;

namespace {

/// A load or store of the loop body: `memref[outer..., base + iv]`.
struct ContiguousAccess {
  Operation *op;
  Value memref;
  SmallVector<Value> outer;
  /// Null when the innermost index is the induction variable itself.
  Value base;
};

/// What the analysis found: the accesses and the vector length, or why the
/// loop stays scalar.
struct VectorizationPlan {
  SmallVector<ContiguousAccess> accesses;
  int64_t width = 1;
  std::string reason;
};

} // namespace

static std::string describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "'";
  Value memref;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    memref = load.getMemRef();
  else if (auto store = dyn_cast<memref::StoreOp>(op))
    memref = store.getMemRef();
  if (memref)
    os << " of '" << memref.getType() << "'";
  return text;
}

/// Returns `base` when `index` is `base + iv` (or `iv`, with a null base)
/// and `base` is defined outside `loop`; fails otherwise.
static FailureOr<Value> matchContiguousIndex(Value index, Value iv,
                                             Operation *loop) {
  if (index == iv)
    return Value();
  auto add = index.getDefiningOp<arith::AddIOp>();
  if (!add)
    return failure();
  for (unsigned i = 0; i < 2; ++i) {
    Value other = add->getOperand(1 - i);
    if (add->getOperand(i) == iv && !loop->isAncestor(other.getParentBlock()
                                                          ->getParentOp()))
      return other;
  }
  return failure();
}

static bool isDefinedOutside(Value value, Operation *loop) {
  return !loop->isAncestor(value.getParentBlock()->getParentOp());
}

/// Largest power of two dividing `value` (capped), 1 for odd values.
static int64_t powerOfTwoDivisor(int64_t value) {
  if (value == 0)
    return int64_t(1) << 30;
  return int64_t(1) << llvm::countr_zero(static_cast<uint64_t>(value));
}

/// Checks the body and chooses the vector length.
static VectorizationPlan analyze(VectorizedOp loop, int64_t tripCount) {
  VectorizationPlan plan;
  Value iv = loop.getInductionVar();
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  int64_t width = tripCount;
  auto fail = [&](const Twine &reason) {
    plan.reason = reason.str();
    plan.width = 1;
    return plan;
  };

  for (Operation &op : loop.getBody().front().without_terminator()) {
    if (isa<memref::LoadOp, memref::StoreOp>(op)) {
      bool isLoad = isa<memref::LoadOp>(op);
      Value memref = isLoad ? op.getOperand(0) : op.getOperand(1);
      auto type = cast<MemRefType>(memref.getType());
      ValueRange indices =
          op.getOperands().drop_front(isLoad ? 1 : 2);
      if (!hasUnitInnermostStride(type) || !getKnownStrides(memref))
        return fail(describeOp(&op) +
                    " is not known to be contiguous along its innermost "
                    "dimension (an identity layout, or a 'memref.subview' "
                    "of one with unit innermost stride)");
      Type element = type.getElementType();
      if (!element.isIntOrFloat() ||
          element.getIntOrFloatBitWidth() % 8 != 0 ||
          !llvm::isPowerOf2_64(element.getIntOrFloatBitWidth()))
        return fail(describeOp(&op) +
                    " has elements that are not whole power-of-two bytes");
      FailureOr<Value> base =
          matchContiguousIndex(indices.back(), iv, loop);
      if (failed(base))
        return fail("the innermost index of " + describeOp(&op) +
                    " is not the loop index plus a loop-invariant offset");
      for (Value outer : indices.drop_back())
        if (!isDefinedOutside(outer, loop))
          return fail("an outer index of " + describeOp(&op) +
                      " changes with the loop index");
      int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
      width = std::min(width, std::max<int64_t>(1, kMaxVectorBytes / bytes));
      plan.accesses.push_back({&op, memref, llvm::to_vector(indices.drop_back()),
                               *base});
      continue;
    }
    if (op.hasTrait<OpTrait::Vectorizable>() ||
        isa<arith::ConstantOp, affine::AffineApplyOp>(op)) {
      // Index arithmetic only feeds indices; it is not vectorized.
      bool isIndex = llvm::all_of(op.getResultTypes(),
                                  [](Type t) { return t.isIndex(); });
      if (isIndex) {
        for (Operation *user : op.getUsers())
          if (!isa<memref::LoadOp, memref::StoreOp, arith::AddIOp,
                   arith::MulIOp, arith::ConstantOp, affine::AffineApplyOp>(
                  user))
            return fail("the index computed by " + describeOp(&op) +
                        " is used as a value");
        continue;
      }
      if (!llvm::all_of(op.getResultTypes(),
                        [](Type t) { return t.isIntOrFloat(); }))
        return fail(describeOp(&op) + " has results that are not scalars");
      continue;
    }
    return fail(describeOp(&op) + " in the body cannot be vectorized");
  }
  if (plan.accesses.empty())
    return fail("the body has no memory access to vectorize");
  // The induction variable may only compute innermost indices.
  for (OpOperand &use : iv.getUses()) {
    Operation *user = use.getOwner();
    bool addressOnly =
        isa<arith::AddIOp>(user) &&
        llvm::all_of(user->getUsers(), [](Operation *u) {
          return isa<memref::LoadOp, memref::StoreOp>(u);
        });
    bool innermostIndex =
        (isa<memref::LoadOp>(user) &&
         use.getOperandNumber() == user->getNumOperands() - 1) ||
        (isa<memref::StoreOp>(user) &&
         use.getOperandNumber() == user->getNumOperands() - 1);
    if (!addressOnly && !innermostIndex)
      return fail("the loop index is used as a value by " + describeOp(user));
  }

  // The vector length: a power of two that divides the trip count and keeps
  // every access within 16 bytes and aligned to its size.
  width = std::min(width, powerOfTwoDivisor(tripCount));
  for (const ContiguousAccess &access : plan.accesses) {
    auto type = cast<MemRefType>(access.memref.getType());
    int64_t bytes =
        llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
    auto alignment = [&](int64_t elements) -> std::string {
      return (Twine(elements) + " elements (" + Twine(elements * bytes) +
              "-byte alignment)")
          .str();
    };
    // The buffer's own start bounds the alignment of any access into it.
    int64_t bufferAlignment = getKnownBufferAlignment(access.memref);
    if (bufferAlignment < 2 * bytes)
      return fail("the buffer of " + describeOp(access.op) +
                  " is only known to be " + Twine(bufferAlignment) +
                  "-byte aligned");
    width = std::min(width, bufferAlignment / bytes);
    int64_t offsetAlign = lower ? powerOfTwoDivisor(*lower) : 1;
    if (access.base)
      offsetAlign = std::min(offsetAlign, getKnownDivisor(access.base));
    if (offsetAlign < 2 && width > 1)
      return fail("the offset of " + describeOp(access.op) +
                  " is not known to be a multiple of " + alignment(width));
    // Every row must start on a vector boundary too.
    ArrayRef<int64_t> shape = type.getShape();
    if (type.getLayout().isIdentity()) {
      int64_t stride = 1;
      std::optional<int64_t> multiple = getDeclaredMultiple(access.memref);
      for (int d = static_cast<int>(shape.size()) - 1; d > 0; --d) {
        if (ShapedType::isDynamic(shape[d]) && !multiple)
          return fail("the row length of " + describeOp(access.op) +
                      " is not known at compile time, so its rows are not "
                      "known to be aligned (a kernel argument can declare "
                      "its sizes multiples with {tile.multiple_of = N})");
        stride *= ShapedType::isDynamic(shape[d]) ? *multiple : shape[d];
        if (powerOfTwoDivisor(stride) < 2 && width > 1)
          return fail("the rows of " + describeOp(access.op) + " are " +
                      Twine(stride) + " elements apart, not a multiple of " +
                      alignment(width));
        offsetAlign = std::min(offsetAlign, powerOfTwoDivisor(stride));
      }
    } else {
      // A view: its strides as far as the view and its source tell.
      std::optional<KnownStrides> strides = getKnownStrides(access.memref);
      for (int64_t strideLog2 : ArrayRef(strides->strideLog2).drop_back()) {
        int64_t stride = int64_t(1) << strideLog2;
        if (stride < 2 && width > 1)
          return fail("the rows of " + describeOp(access.op) +
                      " are not known to be a multiple of " + alignment(width) +
                      " apart");
        offsetAlign = std::min(offsetAlign, stride);
      }
    }
    width = std::min(width, offsetAlign);
  }
  if (width <= 1)
    return fail("no vector length above one divides the trip count " +
                Twine(tripCount));
  plan.width = width;
  return plan;
}

/// Emits the vector code of `loop` for `plan`.
/// A store of an asynchronous copy (`tile.async`, from tile.copy in a
/// pipelined loop) of a vector just loaded from global memory into shared
/// memory becomes `nvgpu.device_async_copy` (cp.async; .cg for 16 bytes)
/// when the vector is 4, 8 or 16 bytes: the accesses are aligned to their
/// size, which the vectorizer has proven. Returns false (the caller stores
/// synchronously) otherwise.
static bool buildAsyncCopy(OpBuilder &builder, Location loc, Operation &store,
                           Value value, Value target, ValueRange indices,
                           int64_t bytes) {
  if (!store.hasAttr(kAsyncAttr))
    return false;
  auto load = value.getDefiningOp<vector::LoadOp>();
  auto targetType = cast<MemRefType>(target.getType());
  if (!load || getMemorySpace(targetType) != MemorySpace::Shared ||
      !isGlobalBuffer(load.getBase()) ||
      (bytes != 4 && bytes != 8 && bytes != 16))
    return false;
  int64_t elements = cast<VectorType>(value.getType()).getNumElements();
  nvgpu::DeviceAsyncCopyOp::create(
      builder, loc, target, indices, load.getBase(), load.getIndices(),
      builder.getIndexAttr(elements), /*srcElements=*/Value(),
      bytes == 16 ? builder.getUnitAttr() : UnitAttr());
  // The load may now be dead; rewrite() erases it once every op of the body
  // has been emitted (another store may still map to it).
  return true;
}

static void rewrite(VectorizedOp loop, const VectorizationPlan &plan,
                    int64_t tripCount) {
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  int64_t width = plan.width;
  Value lower = loop.getLowerBound();
  llvm::DenseMap<Operation *, const ContiguousAccess *> accessOf;
  for (const ContiguousAccess &access : plan.accesses)
    accessOf[access.op] = &access;
  SmallVector<vector::LoadOp> vectorLoads;

  for (int64_t group = 0; group < tripCount / width; ++group) {
    IRMapping mapping;
    // Scalars from outside the body are broadcast where vectors are needed.
    auto vectorOf = [&](Value scalar, int64_t lanes) -> Value {
      if (Value mapped = mapping.lookupOrNull(scalar))
        return mapped;
      auto type = VectorType::get({lanes}, scalar.getType());
      return vector::BroadcastOp::create(builder, loc, type, scalar);
    };
    Value offset = arith::AddIOp::create(
        builder, loc, lower,
        arith::ConstantIndexOp::create(builder, loc, group * width));
    for (Operation &op : loop.getBody().front().without_terminator()) {
      if (const ContiguousAccess *access = accessOf.lookup(&op)) {
        SmallVector<Value> indices(access->outer);
        indices.push_back(access->base ? arith::AddIOp::create(
                                             builder, loc, access->base,
                                             offset)
                                             .getResult()
                                       : offset);
        auto type = cast<MemRefType>(access->memref.getType());
        int64_t bytes = llvm::divideCeil(
            type.getElementType().getIntOrFloatBitWidth(), 8);
        llvm::MaybeAlign alignment(width * bytes);
        if (auto load = dyn_cast<memref::LoadOp>(op)) {
          auto vectorType = VectorType::get({width}, type.getElementType());
          auto vector = vector::LoadOp::create(
              builder, loc, vectorType, access->memref, indices,
              /*nontemporal=*/false, alignment);
          vectorLoads.push_back(vector);
          mapping.map(load.getResult(), vector.getResult());
        } else {
          Value value = vectorOf(cast<memref::StoreOp>(op).getValue(), width);
          if (!buildAsyncCopy(builder, loc, op, value, access->memref,
                              indices, width * bytes))
            vector::StoreOp::create(builder, loc, value, access->memref,
                                    indices, /*nontemporal=*/false,
                                    alignment);
        }
        continue;
      }
      if (llvm::all_of(op.getResultTypes(),
                       [](Type t) { return t.isIndex(); }))
        continue;
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto type = VectorType::get({width}, constant.getType());
        mapping.map(constant.getResult(),
                    arith::ConstantOp::create(
                        builder, loc,
                        DenseElementsAttr::get(type, constant.getValue())));
        continue;
      }
      OperationState state(op.getLoc(), op.getName());
      for (Value operand : op.getOperands())
        state.operands.push_back(vectorOf(operand, width));
      for (Type type : op.getResultTypes())
        state.types.push_back(VectorType::get({width}, type));
      state.attributes = op.getAttrs();
      Operation *vectorOp = builder.create(state);
      mapping.map(op.getResults(), vectorOp->getResults());
    }
  }
  // Loads whose only stores became asynchronous copies.
  for (vector::LoadOp load : vectorLoads)
    if (load->use_empty())
      load->erase();
  loop.erase();
}

/// Rewrites each `affine.apply` of the body that is the induction variable
/// plus a loop-invariant offset (coefficient 1) into `arith.addi` of the
/// offset, computed before the loop, and the induction variable: the form
/// the analysis recognizes.
static void normalizeAffineIndices(VectorizedOp loop) {
  Value iv = loop.getInductionVar();
  SmallVector<affine::AffineApplyOp> applies;
  loop.getBody().front().walk([&](affine::AffineApplyOp apply) {
    if (apply->getParentOp() == loop)
      applies.push_back(apply);
  });
  for (affine::AffineApplyOp apply : applies) {
    AffineMap map = apply.getAffineMap();
    ValueRange operands = apply.getMapOperands();
    if (!llvm::is_contained(operands, iv))
      continue;
    if (llvm::any_of(operands, [&](Value v) {
          return v != iv && !isDefinedOutside(v, loop);
        }))
      continue;
    // expr(iv = 1) - expr(iv = 0) must be the constant 1.
    MLIRContext *context = loop.getContext();
    auto substitute = [&](int64_t value) {
      SmallVector<AffineExpr> dims, symbols;
      for (unsigned i = 0; i < map.getNumDims(); ++i)
        dims.push_back(operands[i] == iv
                           ? getAffineConstantExpr(value, context)
                           : getAffineDimExpr(i, context));
      for (unsigned i = 0; i < map.getNumSymbols(); ++i)
        symbols.push_back(operands[map.getNumDims() + i] == iv
                              ? getAffineConstantExpr(value, context)
                              : getAffineSymbolExpr(i, context));
      return map.getResult(0).replaceDimsAndSymbols(dims, symbols);
    };
    AffineExpr step = simplifyAffineExpr(substitute(1) - substitute(0),
                                         map.getNumDims(), map.getNumSymbols());
    auto unit = dyn_cast<AffineConstantExpr>(step);
    if (!unit || unit.getValue() != 1)
      continue;
    OpBuilder builder(loop);
    Value zero = arith::ConstantIndexOp::create(builder, apply.getLoc(), 0);
    SmallVector<Value> baseOperands(operands);
    for (Value &operand : baseOperands)
      if (operand == iv)
        operand = zero;
    Value base = affine::AffineApplyOp::create(builder, apply.getLoc(), map,
                                               baseOperands);
    builder.setInsertionPoint(apply);
    Value index = arith::AddIOp::create(builder, apply.getLoc(), base, iv);
    apply.replaceAllUsesWith(index);
    apply.erase();
  }
}

/// Unrolls the loop into scalar code.
static LogicalResult scalarize(VectorizedOp loop) {
  OpBuilder builder(loop);
  auto forOp = scf::ForOp::create(builder, loop.getLoc(), loop.getLowerBound(),
                                  loop.getUpperBound(), loop.getStep());
  Block *body = &loop.getBody().front();
  body->getTerminator()->erase();
  forOp.getBody()->getOperations().splice(
      forOp.getBody()->begin(), body->getOperations());
  loop.getInductionVar().replaceAllUsesWith(forOp.getInductionVar());
  loop.erase();
  return unrollFully(forOp);
}

namespace {

struct TileVectorizePass : tile::impl::TileVectorizeBase<TileVectorizePass> {
  void runOnOperation() override {
    SmallVector<VectorizedOp> loops;
    getOperation().getBody().walk(
        [&](VectorizedOp loop) { loops.push_back(loop); });
    for (VectorizedOp loop : loops) {
      std::optional<int64_t> tripCount = loop.getConstantTripCount();
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!tripCount) {
        loop.emitError("needs constant bounds and step to be vectorized");
        return signalPassFailure();
      }
      normalizeAffineIndices(loop);
      VectorizationPlan plan;
      if (*tripCount <= 1)
        plan.reason = "";
      else if (step != 1)
        plan.reason = "the step is not 1";
      else
        plan = analyze(loop, *tripCount);
      if (plan.width > 1) {
        if (failed(checkUnrolledSize(loop, *tripCount / plan.width,
                                     loop.getBody().front())))
          return signalPassFailure();
        LLVM_DEBUG(llvm::dbgs() << "vectorized by " << plan.width << ": "
                                << loop << "\n");
        rewrite(loop, plan, *tripCount);
        continue;
      }
      if (!plan.reason.empty())
        loop.emitRemark("not vectorized: ")
            << plan.reason << "; its " << *tripCount
            << " iterations run as scalar code";
      // scalarize() erases the loop; unrollFully reports why it failed.
      if (failed(scalarize(loop)))
        return signalPassFailure();
    }
  }
};

} // namespace
