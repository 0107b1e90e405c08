//===- PeelGuardedGemms.cpp - Peel loop ends whose gemms are guarded ------===//
//
// A loop that issues a gemm in only some of its iterations (attention's
// rotated loop: iteration j computes the scores of key block j and the
// output of block j - 1, so the first has no product to add and the last
// no scores to compute) guards the gemm with an `scf.if` on the iteration.
// On sm_90a that costs the whole kernel: a wgmma under a branch, whose
// accumulator registers meet the others in a phi, makes ptxas serialize
// every wgmma (C7515); left unguarded, the two gemms compute nothing for
// half an iteration's tensor-core time each.
//
// This pass peels the first and the last iteration of such a loop and
// decides each guard in each part:
//
//   scf.for %j = %lb to %ub step 1 { B(%j) }            (%ub - %lb >= 2)
//   ->  B(%lb)
//       scf.for %j = %lb + 1 to %ub - 1 step 1 { B(%j) }
//       B(%ub - 1)
//
// An `scf.if` at the top level of each part whose condition is an
// `arith.cmpi` that ValueBoundsConstraintSet decides from the loop's
// bounds is replaced by the branch it takes, so no gemm of the three parts
// stays in a branch. Loops are peeled only when their step is 1 and their
// trip count provably at least 2 (a guard around the peeled parts would
// put the gemms back in branches); a gemm's guard that stays undecided is
// reported with a remark, as ptxas will serialize the kernel's wgmmas.
// Loops whose gemms a pipeline leaves in flight (`tile.wgmma_in_flight`,
// waited for after the loop) are left alone.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPEELGUARDEDGEMMS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

#define DEBUG_TYPE "tile-peel-guarded-gemms"

using Bounds = ValueBoundsConstraintSet;

/// The `scf.if` ops at the top level of `block` that guard a gemm.
static SmallVector<scf::IfOp> getGemmGuards(Block &block) {
  SmallVector<scf::IfOp> guards;
  for (auto guard : block.getOps<scf::IfOp>())
    if (holdsGemm(guard))
      guards.push_back(guard);
  return guards;
}

/// The value of the index comparison `cmp` where the bounds of the values
/// it compares decide it.
static std::optional<bool> decide(arith::CmpIOp cmp) {
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  if (!lhs.getType().isIndex())
    return std::nullopt;
  Builder builder(cmp.getContext());
  Bounds::Variable zero(OpFoldResult(builder.getIndexAttr(0)));
  auto nonNegative = [&](Value value) {
    return Bounds::compare(Bounds::Variable(value), Bounds::GE, zero);
  };
  Bounds::ComparisonOperator comparison = Bounds::EQ;
  bool negate = false, isUnsigned = false;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::eq:
    comparison = Bounds::EQ;
    break;
  case arith::CmpIPredicate::ne:
    comparison = Bounds::EQ;
    negate = true;
    break;
  case arith::CmpIPredicate::ult:
    isUnsigned = true;
    [[fallthrough]];
  case arith::CmpIPredicate::slt:
    comparison = Bounds::LT;
    break;
  case arith::CmpIPredicate::ule:
    isUnsigned = true;
    [[fallthrough]];
  case arith::CmpIPredicate::sle:
    comparison = Bounds::LE;
    break;
  case arith::CmpIPredicate::ugt:
    isUnsigned = true;
    [[fallthrough]];
  case arith::CmpIPredicate::sgt:
    comparison = Bounds::GT;
    break;
  case arith::CmpIPredicate::uge:
    isUnsigned = true;
    [[fallthrough]];
  case arith::CmpIPredicate::sge:
    comparison = Bounds::GE;
    break;
  }
  // Bounds are signed; unsigned comparisons agree on non-negative values.
  if (isUnsigned && (!nonNegative(lhs) || !nonNegative(rhs)))
    return std::nullopt;
  FailureOr<bool> result = Bounds::strongCompare(
      Bounds::Variable(lhs), comparison, Bounds::Variable(rhs));
  if (failed(result))
    return std::nullopt;
  return *result != negate;
}

/// Replaces each `scf.if` at the top level of `ops` whose condition is
/// decided by the branch it takes, and so on for the `scf.if` ops that the
/// branch brings to the top level; the gemm guards left undecided.
static SmallVector<scf::IfOp> foldDecidedIfs(ArrayRef<Operation *> ops,
                                             RewriterBase &rewriter) {
  SmallVector<scf::IfOp> undecided;
  // In order: a branch's ops are examined right after its `scf.if`.
  SmallVector<Operation *> worklist(llvm::reverse(ops));
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    auto guard = dyn_cast<scf::IfOp>(op);
    if (!guard)
      continue;
    auto cmp = guard.getCondition().getDefiningOp<arith::CmpIOp>();
    std::optional<bool> taken;
    if (cmp)
      taken = decide(cmp);
    if (!taken) {
      if (holdsGemm(guard))
        undecided.push_back(guard);
      continue;
    }
    Block *block = *taken ? guard.thenBlock() : guard.elseBlock();
    if (!block) {
      rewriter.eraseOp(guard);
      continue;
    }
    auto yield = cast<scf::YieldOp>(block->getTerminator());
    SmallVector<Value> results(yield.getOperands());
    rewriter.eraseOp(yield);
    for (Operation &inlined : llvm::reverse(*block))
      worklist.push_back(&inlined);
    rewriter.inlineBlockBefore(block, guard);
    rewriter.replaceOp(guard, results);
  }
  return undecided;
}

/// Clones the body of `loop` at `builder`'s insertion point for iteration
/// `iv` with `iterArgs`; the ops cloned and the values yielded.
static std::pair<SmallVector<Operation *>, SmallVector<Value>>
cloneIteration(OpBuilder &builder, scf::ForOp loop, Value iv,
               ValueRange iterArgs) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  mapping.map(loop.getRegionIterArgs(), iterArgs);
  SmallVector<Operation *> ops;
  for (Operation &op : loop.getBody()->without_terminator())
    ops.push_back(builder.clone(op, mapping));
  SmallVector<Value> yielded;
  for (Value value : loop.getBody()->getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  return {ops, yielded};
}

/// Whether a gemm of `loop`'s body is guarded by a comparison that depends
/// on the induction variable.
static bool hasIterationGuard(scf::ForOp loop) {
  SetVector<Operation *> dependents;
  getForwardSlice(loop.getInductionVar(), &dependents);
  return llvm::any_of(getGemmGuards(*loop.getBody()), [&](scf::IfOp guard) {
    Operation *condition = guard.getCondition().getDefiningOp();
    return isa_and_nonnull<arith::CmpIOp>(condition) &&
           dependents.contains(condition);
  });
}

/// Peels the first and last iterations of `loop` and folds the guards
/// decided in each part; the gemm guards left undecided. Fails, leaving the
/// loop alone, when its step is not 1 or its trip count is not provably at
/// least 2.
static FailureOr<SmallVector<scf::IfOp>> peelEnds(scf::ForOp loop,
                                                  RewriterBase &rewriter) {
  // The bounds of the induction variable are signed for the analysis.
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step != 1 || !loop.getLowerBound().getType().isIndex() ||
      loop.getUnsignedCmp())
    return failure();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Bounds::Variable twoPastLower(
      AffineMap::get(1, 0, rewriter.getAffineDimExpr(0) + 2),
      ValueRange{lb});
  if (!Bounds::compare(Bounds::Variable(ub), Bounds::GE, twoPastLower))
    return failure();

  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto [first, firstYields] =
      cloneIteration(rewriter, loop, lb, loop.getInitArgs());
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value lastIv = arith::SubIOp::create(rewriter, loc, ub, one);
  rewriter.modifyOpInPlace(loop, [&] {
    loop.getLowerBoundMutable().assign(
        arith::AddIOp::create(rewriter, loc, lb, one));
    loop.getUpperBoundMutable().assign(lastIv);
    loop.getInitArgsMutable().assign(firstYields);
  });
  // The loop's users take the last iteration's values; the last iteration
  // itself takes the loop's.
  SmallVector<SmallVector<OpOperand *>> resultUses;
  for (Value result : loop.getResults())
    resultUses.push_back(llvm::to_vector(llvm::make_pointer_range(
        result.getUses())));
  rewriter.setInsertionPointAfter(loop);
  SmallVector<Value> middleResults(loop.getResults());
  auto [last, lastYields] =
      cloneIteration(rewriter, loop, lastIv, middleResults);
  for (auto [uses, value] : llvm::zip(resultUses, lastYields))
    for (OpOperand *use : uses)
      rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(value); });

  SmallVector<Operation *> middle;
  for (Operation &op : loop.getBody()->without_terminator())
    middle.push_back(&op);
  SmallVector<scf::IfOp> undecided = foldDecidedIfs(first, rewriter);
  llvm::append_range(undecided, foldDecidedIfs(middle, rewriter));
  llvm::append_range(undecided, foldDecidedIfs(last, rewriter));
  return undecided;
}

namespace {

struct TilePeelGuardedGemms
    : tile::impl::TilePeelGuardedGemmsBase<TilePeelGuardedGemms> {
  void runOnOperation() override {
    // Loops whose gemms a pipeline leaves in flight wait for them after the
    // loop (tile.wgmma_in_flight); a peeled copy would not: left alone, as
    // are loops without a guard on the iteration.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      bool inFlight = loop.getBody()
                          ->walk([](GemmOp gemm) {
                            return gemm->hasAttr(kWgmmaInFlightAttr)
                                       ? WalkResult::interrupt()
                                       : WalkResult::advance();
                          })
                          .wasInterrupted();
      if (!inFlight && hasIterationGuard(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      FailureOr<SmallVector<scf::IfOp>> undecided = peelEnds(loop, rewriter);
      if (failed(undecided)) {
        LLVM_DEBUG(llvm::dbgs() << "not peeled: " << loop << "\n");
        loop.emitRemark("not peeled: its gemms stay under conditions (the "
                        "step is not 1 or the trip count not provably at "
                        "least 2)");
        continue;
      }
      // A gemm left in a branch (what ptxas serializes on sm_90a): one
      // remark per guard of the source, with the parts it stays in.
      llvm::MapVector<Location, int> parts;
      for (scf::IfOp guard : *undecided)
        ++parts[guard.getLoc()];
      for (auto [loc, count] : parts)
        emitRemark(loc) << "this gemm stays under a condition that the "
                           "peeled loop's bounds do not decide (in "
                        << count << " of the 3 parts)";
    }
  }
};

} // namespace
