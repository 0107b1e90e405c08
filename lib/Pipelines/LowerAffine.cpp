//===- LowerAffine.cpp - affine.apply to arith, with ranges ---------------===//
//
// Upstream's lower-affine expands `x floordiv c` into a test of x's sign
// and two selects, and `x mod c` into a remainder, a test and a select: the
// semantics for any x. The index maps of tile kernels are of thread ids,
// block ids and loop counters, never negative, and layout and swizzle maps
// composed by canonicalization nest them (`((t floordiv 8) mod 4 + 60)
// floordiv 64`): upstream's expansion made most of the index arithmetic of
// a tensor-core kernel, and LLVM's first InstCombine spent its time proving
// the signs. Here the ranges of the operands (tile::getIndexRange) decide:
// a subexpression that can take one value is that constant, a division or
// remainder of a non-negative value is unsigned (a shift or a mask for a
// power of two). Anything else keeps the signed semantics. Upstream's
// lower-affine then runs only when affine ops remain: it is a dialect
// conversion over every op of the module.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Passes.h"

#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERAFFINE
#include "tile/Pipelines/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A lowered subexpression: its value and the range it lies in.
struct Lowered {
  Value value;
  std::optional<IndexRange> range;
  bool isConstant(int64_t c) const {
    return range && range->lower == c && range->upper == c;
  }
  bool isNonNegative() const { return range && range->lower >= 0; }
};

/// Emits the arith ops of one affine expression at a builder's point.
class Expander {
public:
  Expander(OpBuilder &builder, Location loc, ValueRange dims,
           ValueRange symbols, ArrayRef<std::optional<IndexRange>> dimRanges,
           ArrayRef<std::optional<IndexRange>> symbolRanges)
      : builder(builder), loc(loc), dims(dims), symbols(symbols),
        dimRanges(dimRanges), symbolRanges(symbolRanges) {}

  Lowered expand(AffineExpr expr) {
    std::optional<IndexRange> range =
        getAffineExprRange(expr, dimRanges, symbolRanges);
    if (range && range->lower == range->upper)
      return constant(range->lower);
    switch (expr.getKind()) {
    case AffineExprKind::Constant:
      return constant(cast<AffineConstantExpr>(expr).getValue());
    case AffineExprKind::DimId: {
      unsigned position = cast<AffineDimExpr>(expr).getPosition();
      return {dims[position], dimRanges[position]};
    }
    case AffineExprKind::SymbolId: {
      unsigned position = cast<AffineSymbolExpr>(expr).getPosition();
      return {symbols[position], symbolRanges[position]};
    }
    default:
      break;
    }
    auto binary = cast<AffineBinaryOpExpr>(expr);
    AffineExpr lhs = binary.getLHS(), rhs = binary.getRHS();
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      return add(lhs, rhs, range);
    case AffineExprKind::Mul: {
      Lowered a = expand(lhs), b = expand(rhs);
      if (a.isConstant(1))
        return b;
      if (b.isConstant(1))
        return a;
      return {arith::MulIOp::create(builder, loc, a.value, b.value), range};
    }
    default:
      return divide(expr.getKind(), expand(lhs),
                    cast<AffineConstantExpr>(rhs).getValue(), range);
    }
  }

private:
  Lowered constant(int64_t value) {
    return {arith::ConstantIndexOp::create(builder, loc, value),
            IndexRange{value, value}};
  }

  /// True for `e * -c` (c > 0).
  static bool isNegativeProduct(AffineExpr expr) {
    auto product = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!product || product.getKind() != AffineExprKind::Mul)
      return false;
    auto factor = dyn_cast<AffineConstantExpr>(product.getRHS());
    return factor && factor.getValue() < 0;
  }

  /// `lhs + rhs`, as a subtraction when one of them is `e * -c`.
  Lowered add(AffineExpr lhs, AffineExpr rhs, std::optional<IndexRange> range) {
    // Affine expressions keep a product before a symbol: `s0 - d0 * 2` is
    // `d0 * -2 + s0`.
    if (isNegativeProduct(lhs) && !isNegativeProduct(rhs))
      std::swap(lhs, rhs);
    Lowered a = expand(lhs);
    if (isNegativeProduct(rhs)) {
      auto product = cast<AffineBinaryOpExpr>(rhs);
      int64_t factor = cast<AffineConstantExpr>(product.getRHS()).getValue();
      Lowered b = expand(product.getLHS() * -factor);
      if (b.isConstant(0))
        return a;
      return {arith::SubIOp::create(builder, loc, a.value, b.value), range};
    }
    Lowered b = expand(rhs);
    if (a.isConstant(0))
      return b;
    if (b.isConstant(0))
      return a;
    return {arith::AddIOp::create(builder, loc, a.value, b.value), range};
  }

  /// `a floordiv c`, `a ceildiv c` or `a mod c` for a constant c > 0.
  Lowered divide(AffineExprKind kind, Lowered a, int64_t c,
                 std::optional<IndexRange> range) {
    if (c == 1)
      return kind == AffineExprKind::Mod ? constant(0) : a;
    bool powerOfTwo = llvm::isPowerOf2_64(c);
    auto divisor = [&] { return constant(c).value; };
    if (a.isNonNegative()) {
      // Within one period the remainder is a difference.
      if (kind == AffineExprKind::Mod &&
          a.range->lower / c == a.range->upper / c) {
        int64_t base = a.range->lower / c * c;
        if (base == 0)
          return a;
        return {
            arith::SubIOp::create(builder, loc, a.value, constant(base).value),
            range};
      }
      auto shift = [&] { return constant(llvm::Log2_64(c)).value; };
      switch (kind) {
      case AffineExprKind::FloorDiv:
        if (powerOfTwo)
          return {arith::ShRUIOp::create(builder, loc, a.value, shift()),
                  range};
        return {arith::DivUIOp::create(builder, loc, a.value, divisor()),
                range};
      case AffineExprKind::CeilDiv: {
        Value rounded =
            arith::AddIOp::create(builder, loc, a.value, constant(c - 1).value);
        if (powerOfTwo)
          return {arith::ShRUIOp::create(builder, loc, rounded, shift()),
                  range};
        return {arith::DivUIOp::create(builder, loc, rounded, divisor()),
                range};
      }
      default:
        if (powerOfTwo)
          return {arith::AndIOp::create(builder, loc, a.value,
                                        constant(c - 1).value),
                  range};
        return {arith::RemUIOp::create(builder, loc, a.value, divisor()),
                range};
      }
    }
    // The signed semantics, as lower-affine and arith-expand give them.
    Value divisorValue = divisor();
    switch (kind) {
    case AffineExprKind::FloorDiv:
      return {arith::FloorDivSIOp::create(builder, loc, a.value, divisorValue),
              range};
    case AffineExprKind::CeilDiv:
      return {arith::CeilDivSIOp::create(builder, loc, a.value, divisorValue),
              range};
    default: {
      Value remainder =
          arith::RemSIOp::create(builder, loc, a.value, divisorValue);
      Value negative =
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                remainder, constant(0).value);
      Value shifted =
          arith::AddIOp::create(builder, loc, remainder, divisorValue);
      return {
          arith::SelectOp::create(builder, loc, negative, shifted, remainder),
          range};
    }
    }
  }

  OpBuilder &builder;
  Location loc;
  ValueRange dims, symbols;
  ArrayRef<std::optional<IndexRange>> dimRanges, symbolRanges;
};

/// True when every floordiv, ceildiv and mod of `expr` is by a positive
/// constant (what the expander lowers).
static bool hasConstantDivisors(AffineExpr expr) {
  bool constantDivisors = true;
  expr.walk([&](AffineExpr sub) {
    auto binary = dyn_cast<AffineBinaryOpExpr>(sub);
    if (!binary || binary.getKind() == AffineExprKind::Add ||
        binary.getKind() == AffineExprKind::Mul)
      return;
    auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
    constantDivisors &= divisor && divisor.getValue() > 0;
  });
  return constantDivisors;
}

struct TileLowerAffine : tile::impl::TileLowerAffineBase<TileLowerAffine> {
  /// Those of upstream's lower-affine: a nested pipeline cannot load
  /// dialects.
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
    createLowerAffinePass()->getDependentDialects(registry);
  }

  void runOnOperation() override {
    lowerApplies();
    bool remains = false;
    getOperation()->walk([&](Operation *op) {
      remains = isa<affine::AffineDialect>(op->getDialect());
      return remains ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!remains)
      return;
    OpPassManager pipeline(getOperation()->getName());
    pipeline.addPass(createLowerAffinePass());
    if (failed(runPipeline(pipeline, getOperation())))
      signalPassFailure();
  }

  void lowerApplies() {
    // Ranges of the operands, and of the results lowered so far (the ops
    // they came from are gone, and the arith ops replacing them need not
    // be analyzed again).
    DenseMap<Value, std::optional<IndexRange>> ranges;
    auto rangeOf = [&](Value value) {
      auto [it, inserted] = ranges.try_emplace(value);
      if (inserted)
        it->second = getIndexRange(value);
      return it->second;
    };
    SmallVector<affine::AffineApplyOp> applies;
    getOperation()->walk(
        [&](affine::AffineApplyOp apply) { applies.push_back(apply); });
    for (affine::AffineApplyOp apply : applies) {
      AffineExpr expr = apply.getAffineMap().getResult(0);
      if (!hasConstantDivisors(expr))
        continue;
      SmallVector<std::optional<IndexRange>> dimRanges, symbolRanges;
      for (Value dim : apply.getDimOperands())
        dimRanges.push_back(rangeOf(dim));
      for (Value symbol : apply.getSymbolOperands())
        symbolRanges.push_back(rangeOf(symbol));
      OpBuilder builder(apply);
      Expander expander(builder, apply.getLoc(), apply.getDimOperands(),
                        apply.getSymbolOperands(), dimRanges, symbolRanges);
      Lowered lowered = expander.expand(expr);
      ranges[lowered.value] = lowered.range;
      apply.getResult().replaceAllUsesWith(lowered.value);
      apply.erase();
    }
  }
};

} // namespace
