//===- IndexAnalysis.cpp - Ranges and divisors of index values ------------===//

#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"

#include "tile/Dialect/Tile/Analysis/AffineEvaluation.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

static constexpr int64_t kMaxDivisor = int64_t(1) << 30;
/// Expressions deeper than this are not analyzed (keeps queries cheap).
static constexpr unsigned kMaxDepth = 32;

using OptRange = std::optional<IndexRange>;

static OptRange rangeOf(Value value, unsigned depth);

static OptRange add(OptRange a, OptRange b) {
  if (!a || !b)
    return std::nullopt;
  int64_t lower, upper;
  if (llvm::AddOverflow(a->lower, b->lower, lower) ||
      llvm::AddOverflow(a->upper, b->upper, upper))
    return std::nullopt;
  return IndexRange{lower, upper};
}

static OptRange mul(OptRange a, OptRange b) {
  if (!a || !b)
    return std::nullopt;
  int64_t products[4];
  if (llvm::MulOverflow(a->lower, b->lower, products[0]) ||
      llvm::MulOverflow(a->lower, b->upper, products[1]) ||
      llvm::MulOverflow(a->upper, b->lower, products[2]) ||
      llvm::MulOverflow(a->upper, b->upper, products[3]))
    return std::nullopt;
  return IndexRange{*llvm::min_element(products),
                    *llvm::max_element(products)};
}

/// Returns true when every value of `range` is non-negative (so signed and
/// unsigned views agree).
static bool isNonNegative(OptRange range) {
  return range && range->lower >= 0;
}

/// Range of a non-negative value divided (rounding down or up) by a positive
/// constant.
static OptRange divide(OptRange a, OptRange divisor, bool roundUp) {
  if (!a || !divisor || divisor->lower != divisor->upper ||
      divisor->lower <= 0 || a->lower < 0)
    return std::nullopt;
  int64_t d = divisor->lower;
  if (roundUp)
    return IndexRange{static_cast<int64_t>(llvm::divideCeil(a->lower, d)),
                      static_cast<int64_t>(llvm::divideCeil(a->upper, d))};
  return IndexRange{a->lower / d, a->upper / d};
}

static OptRange remainder(OptRange a, OptRange divisor) {
  if (!a || !divisor || divisor->lower != divisor->upper ||
      divisor->lower <= 0 || a->lower < 0)
    return std::nullopt;
  if (a->upper < divisor->lower)
    return a;
  return IndexRange{0, divisor->lower - 1};
}

/// Ranges as the abstract values of affine expressions.
struct RangeDomain {
  using Value = OptRange;
  Value constant(int64_t c) const { return IndexRange{c, c}; }
  Value add(Value a, Value b) const { return ::add(a, b); }
  Value mul(Value a, Value b) const { return ::mul(a, b); }
  Value floorDiv(Value a, Value b) const { return divide(a, b, false); }
  Value ceilDiv(Value a, Value b) const { return divide(a, b, true); }
  Value mod(Value a, Value b) const { return remainder(a, b); }
};

/// An affine expression of operands that range over [0, 2^n) as a linear
/// function of their bits: `constant + sum(weights[i] * bit_i)`. Thread
/// coordinates of fragment layouts are such functions (their divisors and
/// moduli are powers of two), and the interval arithmetic of RangeDomain
/// loses them once simplification has spelled `d mod k` as
/// `d - (d floordiv k) * k`: `d * 2 - (d floordiv 4) * 8` is `2 b0 + 4 b1`,
/// within [0, 6], where intervals give [-248, 254] for 128 threads.
struct BitLinear {
  SmallVector<int64_t, 16> weights;
  int64_t constant = 0;

  bool isConstant() const {
    return llvm::all_of(weights, [](int64_t w) { return w == 0; });
  }
  /// True when the value is its bits placed at distinct powers of two
  /// (and a non-negative constant on none of them), so that division and
  /// remainder by a power of two select bits exactly.
  bool isBitField() const {
    if (constant < 0)
      return false;
    uint64_t used = 0;
    for (int64_t w : weights) {
      if (w == 0)
        continue;
      if (w < 0 || !llvm::isPowerOf2_64(w) || (used & uint64_t(w)))
        return false;
      used |= uint64_t(w);
    }
    return (used & uint64_t(constant)) == 0;
  }
};

struct BitLinearDomain {
  using Value = std::optional<BitLinear>;
  size_t bits;

  Value constant(int64_t c) const {
    BitLinear result;
    result.weights.assign(bits, 0);
    result.constant = c;
    return result;
  }
  Value add(Value a, Value b) const {
    if (!a || !b)
      return std::nullopt;
    for (auto [x, y] : llvm::zip(a->weights, b->weights))
      if (llvm::AddOverflow(x, y, x))
        return std::nullopt;
    if (llvm::AddOverflow(a->constant, b->constant, a->constant))
      return std::nullopt;
    return a;
  }
  Value mul(Value a, Value b) const {
    if (!a || !b)
      return std::nullopt;
    if (!a->isConstant())
      std::swap(a, b);
    if (!a->isConstant())
      return std::nullopt;
    int64_t factor = a->constant;
    for (int64_t &w : b->weights)
      if (llvm::MulOverflow(w, factor, w))
        return std::nullopt;
    if (llvm::MulOverflow(b->constant, factor, b->constant))
      return std::nullopt;
    return b;
  }
  /// The power of two k of a constant divisor 2^k, or nullopt.
  static std::optional<unsigned> log2Divisor(const Value &b) {
    if (!b || !b->isConstant() || b->constant <= 0 ||
        !llvm::isPowerOf2_64(b->constant))
      return std::nullopt;
    return llvm::Log2_64(b->constant);
  }
  Value floorDiv(Value a, Value b) const {
    std::optional<unsigned> k = log2Divisor(b);
    if (!a || !k || !a->isBitField())
      return std::nullopt;
    for (int64_t &w : a->weights)
      w = w >> *k; // bits below 2^k drop out
    a->constant >>= *k;
    return a;
  }
  Value ceilDiv(Value, Value) const { return std::nullopt; }
  Value mod(Value a, Value b) const {
    std::optional<unsigned> k = log2Divisor(b);
    if (!a || !k || !a->isBitField())
      return std::nullopt;
    int64_t mask = (int64_t(1) << *k) - 1;
    for (int64_t &w : a->weights)
      w &= mask;
    a->constant &= mask;
    return a;
  }
};

/// The range of `expr` by RangeDomain, narrowed by BitLinearDomain when
/// every operand is a constant or ranges over [0, 2^n) (a range [0, m]
/// counts as [0, 2^n) for the smallest 2^n above m: a superset, so still
/// sound).
static OptRange evaluateAffineRange(AffineExpr expr, ArrayRef<OptRange> dims,
                                    ArrayRef<OptRange> symbols) {
  OptRange interval = evaluateAffineExpr(expr, dims, symbols, RangeDomain());
  // Bits of all operands, side by side.
  size_t bits = 0;
  for (const OptRange &range : llvm::concat<const OptRange>(dims, symbols)) {
    if (!range || range->lower < 0 ||
        (range->lower != 0 && range->lower != range->upper))
      return interval;
    if (range->lower != range->upper)
      bits += llvm::bit_width(static_cast<uint64_t>(range->upper));
  }
  if (bits == 0 || bits > 62)
    return interval;
  BitLinearDomain domain{bits};
  size_t next = 0;
  auto operand = [&](const OptRange &range) {
    BitLinear value;
    value.weights.assign(bits, 0);
    if (range->lower == range->upper) {
      value.constant = range->lower;
      return value;
    }
    for (unsigned bit = 0,
                  e = llvm::bit_width(static_cast<uint64_t>(range->upper));
         bit < e; ++bit)
      value.weights[next++] = int64_t(1) << bit;
    return value;
  };
  SmallVector<std::optional<BitLinear>> dimValues, symbolValues;
  for (const OptRange &range : dims)
    dimValues.push_back(operand(range));
  for (const OptRange &range : symbols)
    symbolValues.push_back(operand(range));
  std::optional<BitLinear> linear =
      evaluateAffineExpr(expr, dimValues, symbolValues, domain);
  if (!linear)
    return interval;
  IndexRange exact{linear->constant, linear->constant};
  for (int64_t w : linear->weights) {
    if (w < 0 && llvm::AddOverflow(exact.lower, w, exact.lower))
      return interval;
    if (w > 0 && llvm::AddOverflow(exact.upper, w, exact.upper))
      return interval;
  }
  if (!interval)
    return exact;
  return IndexRange{std::max(interval->lower, exact.lower),
                    std::min(interval->upper, exact.upper)};
}

/// Range of the induction variable of a loop from `lb` to `ub` (exclusive).
static OptRange inductionRange(Value lb, Value ub, unsigned depth) {
  OptRange lower = rangeOf(lb, depth + 1);
  OptRange upper = rangeOf(ub, depth + 1);
  if (!lower || !upper)
    return std::nullopt;
  return IndexRange{lower->lower, std::max(lower->lower, upper->upper - 1)};
}

static OptRange blockArgumentRange(BlockArgument arg, unsigned depth) {
  Operation *owner = arg.getOwner()->getParentOp();
  if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
    if (arg != forOp.getInductionVar())
      return std::nullopt;
    return inductionRange(forOp.getLowerBound(), forOp.getUpperBound(), depth);
  }
  if (auto parallel = dyn_cast<ParallelOp>(owner))
    return IndexRange{0, parallel.getExtents()[arg.getArgNumber()] - 1};
  if (auto owned = dyn_cast<ForEachOwnedOp>(owner)) {
    if (arg.getArgNumber() == 0)
      return std::nullopt;
    auto type = cast<MemRefType>(owned.getFragment().getType());
    return IndexRange{0, type.getDimSize(arg.getArgNumber() - 1) - 1};
  }
  if (auto loop = dyn_cast<LoopLikeOpInterface>(owner)) {
    std::optional<SmallVector<Value>> ivs = loop.getLoopInductionVars();
    std::optional<SmallVector<OpFoldResult>> lbs = loop.getLoopLowerBounds();
    std::optional<SmallVector<OpFoldResult>> ubs = loop.getLoopUpperBounds();
    if (!ivs || !lbs || !ubs || ivs->size() != 1 || (*ivs)[0] != arg)
      return std::nullopt;
    auto lb = dyn_cast<Value>((*lbs)[0]);
    auto ub = dyn_cast<Value>((*ubs)[0]);
    if (!lb || !ub)
      return std::nullopt;
    return inductionRange(lb, ub, depth);
  }
  return std::nullopt;
}

static OptRange rangeOf(Value value, unsigned depth) {
  if (depth > kMaxDepth)
    return std::nullopt;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return IndexRange{constant.getSExtValue(), constant.getSExtValue()};
  if (auto arg = dyn_cast<BlockArgument>(value))
    return blockArgumentRange(arg, depth);
  Operation *op = value.getDefiningOp();
  auto operand = [&](unsigned i) { return rangeOf(op->getOperand(i), depth + 1); };
  return llvm::TypeSwitch<Operation *, OptRange>(op)
      .Case<ThreadIdOp>([](ThreadIdOp op) -> OptRange {
        auto kernel = op->getParentOfType<KernelOp>();
        if (!kernel)
          return std::nullopt;
        return IndexRange{0, kernel.getThreadExtent(op.getDim()) - 1};
      })
      .Case<BlockIdOp>([](BlockIdOp op) -> OptRange {
        auto kernel = op->getParentOfType<KernelOp>();
        if (!kernel)
          return std::nullopt;
        ArrayRef<int64_t> grid = kernel.getGrid();
        auto index = static_cast<size_t>(op.getDim());
        if (index >= grid.size())
          return IndexRange{0, 0};
        if (ShapedType::isDynamic(grid[index]))
          return std::nullopt;
        return IndexRange{0, grid[index] - 1};
      })
      .Case<arith::AddIOp>([&](auto) { return add(operand(0), operand(1)); })
      .Case<arith::SubIOp>([&](auto) {
        return add(operand(0), mul(operand(1), IndexRange{-1, -1}));
      })
      .Case<arith::MulIOp>([&](auto) { return mul(operand(0), operand(1)); })
      .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>([&](auto) {
        return divide(operand(0), operand(1), /*roundUp=*/false);
      })
      .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>([&](auto) {
        return divide(operand(0), operand(1), /*roundUp=*/true);
      })
      .Case<arith::RemUIOp, arith::RemSIOp>(
          [&](auto) { return remainder(operand(0), operand(1)); })
      .Case<arith::MinSIOp, arith::MinUIOp>([&](auto minOp) -> OptRange {
        OptRange a = operand(0), b = operand(1);
        if (!a || !b || (isa<arith::MinUIOp>(minOp.getOperation()) &&
                         (!isNonNegative(a) || !isNonNegative(b))))
          return std::nullopt;
        return IndexRange{std::min(a->lower, b->lower),
                          std::min(a->upper, b->upper)};
      })
      .Case<arith::MaxSIOp, arith::MaxUIOp>([&](auto maxOp) -> OptRange {
        OptRange a = operand(0), b = operand(1);
        if (!a || !b || (isa<arith::MaxUIOp>(maxOp.getOperation()) &&
                         (!isNonNegative(a) || !isNonNegative(b))))
          return std::nullopt;
        return IndexRange{std::max(a->lower, b->lower),
                          std::max(a->upper, b->upper)};
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp>([&](auto cast)
                                                          -> OptRange {
        // The value survives the cast when it fits the narrower type, and an
        // unsigned cast when it is non-negative.
        OptRange a = operand(0);
        if (!a)
          return std::nullopt;
        auto width = [](Type type) {
          return type.isIndex() ? 64u : type.getIntOrFloatBitWidth();
        };
        unsigned bits = std::min(width(cast.getIn().getType()),
                                 width(cast.getOut().getType()));
        if (bits < 64 && (a->lower < -(int64_t(1) << (bits - 1)) ||
                          a->upper >= (int64_t(1) << (bits - 1))))
          return std::nullopt;
        if (isa<arith::IndexCastUIOp>(cast.getOperation()) &&
            !isNonNegative(a))
          return std::nullopt;
        return a;
      })
      .Case<affine::AffineApplyOp>([&](affine::AffineApplyOp apply) {
        AffineMap map = apply.getAffineMap();
        SmallVector<OptRange> dims, symbols;
        for (Value v : apply.getDimOperands())
          dims.push_back(rangeOf(v, depth + 1));
        for (Value v : apply.getSymbolOperands())
          symbols.push_back(rangeOf(v, depth + 1));
        return evaluateAffineRange(map.getResult(0), dims, symbols);
      })
      .Case<arith::ShRUIOp>([&](auto) -> OptRange {
        OptRange shift = operand(1);
        if (!shift || shift->lower != shift->upper || shift->lower < 0 ||
            shift->lower >= 63)
          return std::nullopt;
        return divide(
            operand(0),
            IndexRange{int64_t(1) << shift->lower, int64_t(1) << shift->lower},
            /*roundUp=*/false);
      })
      .Case<arith::AndIOp>([&](auto) -> OptRange {
        // A non-negative mask bounds the result of any value.
        OptRange a = operand(0), b = operand(1);
        OptRange mask = isNonNegative(b)   ? b
                        : isNonNegative(a) ? a
                                           : OptRange();
        if (!mask)
          return std::nullopt;
        return IndexRange{0, mask->upper};
      })
      .Default([](Operation *op) -> OptRange {
        // Ids and dimensions of the GPU dialect (gpu.thread_id, bounded by
        // the function's known block size): their own inference.
        auto inferable = dyn_cast<InferIntRangeInterface>(op);
        if (!inferable || op->getNumOperands() != 0 || op->getNumResults() != 1)
          return std::nullopt;
        OptRange result;
        inferable.inferResultRanges(
            {}, [&](Value, const ConstantIntRanges &ranges) {
              if (ranges.smin().getBitWidth() <= 64)
                result = IndexRange{ranges.smin().getSExtValue(),
                                    ranges.smax().getSExtValue()};
            });
        return result;
      });
}

std::optional<IndexRange> tile::getIndexRange(Value value) {
  return rangeOf(value, 0);
}

std::optional<IndexRange>
tile::getAffineExprRange(AffineExpr expr, ArrayRef<OptRange> dimRanges,
                         ArrayRef<OptRange> symbolRanges) {
  return evaluateAffineRange(expr, dimRanges, symbolRanges);
}

//===----------------------------------------------------------------------===//
// Divisors
//===----------------------------------------------------------------------===//

static int64_t powerOfTwoFactor(int64_t value) {
  if (value == 0)
    return kMaxDivisor;
  return std::min<int64_t>(kMaxDivisor,
                           int64_t(1) << llvm::countr_zero(
                               static_cast<uint64_t>(value)));
}

static int64_t divisorOf(Value value, unsigned depth);

/// Known power-of-two divisors as the abstract values of affine
/// expressions; nothing is known of quotients and remainders.
struct DivisorDomain {
  using Value = int64_t;
  Value constant(int64_t c) const { return powerOfTwoFactor(c); }
  Value add(Value a, Value b) const { return std::min(a, b); }
  Value mul(Value a, Value b) const { return std::min(kMaxDivisor, a * b); }
  Value floorDiv(Value, Value) const { return 1; }
  Value ceilDiv(Value, Value) const { return 1; }
  Value mod(Value, Value) const { return 1; }
};

static int64_t divisorOf(Value value, unsigned depth) {
  if (depth > kMaxDepth)
    return 1;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return powerOfTwoFactor(constant.getSExtValue());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // An induction variable is a multiple of the gcd of its start and step.
    auto loop = dyn_cast<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
    if (!loop)
      return 1;
    std::optional<SmallVector<Value>> ivs = loop.getLoopInductionVars();
    std::optional<SmallVector<OpFoldResult>> lbs = loop.getLoopLowerBounds();
    std::optional<SmallVector<OpFoldResult>> steps = loop.getLoopSteps();
    if (!ivs || !lbs || !steps)
      return 1;
    for (auto [iv, lb, step] : llvm::zip(*ivs, *lbs, *steps)) {
      if (iv != arg)
        continue;
      auto lbValue = dyn_cast<Value>(lb);
      auto stepValue = dyn_cast<Value>(step);
      if (!lbValue || !stepValue)
        return 1;
      return std::min(divisorOf(lbValue, depth + 1),
                      divisorOf(stepValue, depth + 1));
    }
    return 1;
  }
  Operation *op = value.getDefiningOp();
  auto operand = [&](unsigned i) {
    return divisorOf(op->getOperand(i), depth + 1);
  };
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case<arith::AddIOp, arith::SubIOp>(
          [&](auto) { return std::min(operand(0), operand(1)); })
      .Case<arith::MulIOp>([&](auto) {
        return std::min(kMaxDivisor, operand(0) * operand(1));
      })
      .Case<arith::ShLIOp>([&](auto) -> int64_t {
        APInt shift;
        if (!matchPattern(op->getOperand(1), m_ConstantInt(&shift)) ||
            shift.getZExtValue() >= 30)
          return operand(0);
        return std::min(kMaxDivisor, operand(0) << shift.getZExtValue());
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp>(
          [&](auto) { return operand(0); })
      .Case<affine::AffineApplyOp>([&](affine::AffineApplyOp apply) {
        SmallVector<int64_t> dims, symbols;
        for (Value v : apply.getDimOperands())
          dims.push_back(divisorOf(v, depth + 1));
        for (Value v : apply.getSymbolOperands())
          symbols.push_back(divisorOf(v, depth + 1));
        return evaluateAffineExpr(apply.getAffineMap().getResult(0), dims,
                                  symbols, DivisorDomain());
      })
      .Default([](Operation *) { return int64_t(1); });
}

int64_t tile::getKnownDivisor(Value value) { return divisorOf(value, 0); }

/// The exponent of the largest power of two dividing `value` (30 for 0).
static int64_t log2Divisor(int64_t value) {
  return value == 0 ? 30
                    : std::min<int64_t>(
                          30, llvm::countr_zero(static_cast<uint64_t>(value)));
}

std::optional<KnownStrides> tile::getKnownStrides(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getLayout().isIdentity()) {
    std::optional<int64_t> multiple = getDeclaredMultiple(memref);
    ArrayRef<int64_t> shape = type.getShape();
    KnownStrides known{30, SmallVector<int64_t>(shape.size(), 0)};
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
      int64_t extent = shape[d + 1];
      int64_t extentLog2 = ShapedType::isDynamic(extent)
                               ? (multiple ? log2Divisor(*multiple) : 0)
                               : log2Divisor(extent);
      known.strideLog2[d] =
          std::min<int64_t>(30, known.strideLog2[d + 1] + extentLog2);
    }
    return known;
  }
  auto subview = memref.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return std::nullopt;
  std::optional<KnownStrides> source = getKnownStrides(subview.getSource());
  if (!source)
    return std::nullopt;
  KnownStrides known{source->offsetLog2, {}};
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  for (auto [d, offset, stride] :
       llvm::enumerate(subview.getMixedOffsets(), subview.getMixedStrides())) {
    int64_t offsetLog2 = 30;
    if (std::optional<int64_t> constant = getConstantIntValue(offset))
      offsetLog2 = log2Divisor(*constant);
    else
      offsetLog2 = log2Divisor(getKnownDivisor(cast<Value>(offset)));
    known.offsetLog2 = std::min<int64_t>(
        known.offsetLog2,
        std::min<int64_t>(30, offsetLog2 + source->strideLog2[d]));
    if (dropped.test(d))
      continue;
    int64_t strideLog2 = 0;
    if (std::optional<int64_t> constant = getConstantIntValue(stride))
      strideLog2 = log2Divisor(*constant);
    known.strideLog2.push_back(
        std::min<int64_t>(30, source->strideLog2[d] + strideLog2));
  }
  return known;
}

bool tile::hasUnitInnermostStride(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

int64_t tile::getKnownBufferAlignment(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  Operation *def = memref.getDefiningOp();
  if (!def) {
    auto arg = cast<BlockArgument>(memref);
    return isa<KernelOp>(arg.getOwner()->getParentOp()) ? 16 : elementBytes;
  }
  if (auto alloc = dyn_cast<AllocSharedOp>(def))
    return alloc.getEffectiveAlignment();
  if (isa<AllocLocalOp>(def))
    return 16;
  // A view at a byte shift: as aligned as both the source and the shift.
  if (auto view = dyn_cast<memref::ViewOp>(def))
    return std::max<int64_t>(
        elementBytes, std::min(getKnownBufferAlignment(view.getSource()),
                               getKnownDivisor(view.getByteShift())));
  // A subview starts its offset's elements into its source.
  if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
    std::optional<KnownStrides> strides = getKnownStrides(memref);
    if (!strides)
      return elementBytes;
    int64_t offsetBytes =
        int64_t(1) << std::min<int64_t>(
            30, strides->offsetLog2 +
                    llvm::countr_zero(static_cast<uint64_t>(elementBytes)));
    return std::max<int64_t>(
        elementBytes,
        std::min(getKnownBufferAlignment(subview.getSource()), offsetBytes));
  }
  if (auto alloca = dyn_cast<memref::AllocaOp>(def))
    return std::max<int64_t>(alloca.getAlignment().value_or(0), elementBytes);
  return elementBytes;
}

int64_t tile::getKnownAccessAlignment(Value memref, ValueRange indices) {
  SmallVector<int64_t> divisors;
  for (Value index : indices)
    divisors.push_back(getKnownDivisor(index));
  return getKnownAccessAlignment(memref, divisors);
}

int64_t tile::getKnownAccessAlignment(Value memref,
                                      ArrayRef<int64_t> indexDivisors) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  std::optional<KnownStrides> strides = getKnownStrides(memref);
  if (!strides)
    return elementBytes;
  // Powers of two as exponents, capped at 2^30: no overflow.
  int64_t alignment = getKnownBufferAlignment(memref);
  int64_t elementLog2 = log2Divisor(elementBytes);
  for (auto [divisor, strideLog2] :
       llvm::zip_equal(indexDivisors, strides->strideLog2))
    alignment = std::min(
        alignment, int64_t(1) << std::min<int64_t>(
                       30, log2Divisor(divisor) + strideLog2 + elementLog2));
  return std::max(alignment, elementBytes);
}
