//===- LinearForm.cpp - Index expressions as linear forms -----------------===//

#include "tile/Dialect/Tile/Analysis/LinearForm.h"

#include "tile/Dialect/Tile/Analysis/AffineEvaluation.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

void LinearForm::add(const LinearForm &other, int64_t scale) {
  for (int d = 0; d < 3; ++d)
    thread[d] += scale * other.thread[d];
  for (auto [term, coefficient] : other.terms)
    terms.push_back({term, scale * coefficient});
  constant += scale * other.constant;
  normalize();
}

void LinearForm::normalize() {
  llvm::sort(terms, [](auto &a, auto &b) {
    return a.first.getAsOpaquePointer() < b.first.getAsOpaquePointer();
  });
  SmallVector<std::pair<Value, int64_t>, 4> merged;
  for (auto [term, coefficient] : terms) {
    if (!merged.empty() && merged.back().first == term)
      merged.back().second += coefficient;
    else
      merged.push_back({term, coefficient});
  }
  llvm::erase_if(merged, [](auto &t) { return t.second == 0; });
  terms = std::move(merged);
}

static std::optional<LinearForm> linearForm(Value value,
                                            const ThreadUniformity &uniformity,
                                            unsigned depth);

namespace {

/// Linear forms as the abstract values of affine expressions: products need
/// a constant side, quotients and remainders are not linear.
struct LinearDomain {
  using Value = std::optional<LinearForm>;
  Value constant(int64_t c) const {
    LinearForm form;
    form.constant = c;
    return form;
  }
  Value add(Value a, Value b) const {
    if (!a || !b)
      return std::nullopt;
    a->add(*b, 1);
    return a;
  }
  Value mul(Value a, Value b) const {
    if (!a || !b)
      return std::nullopt;
    auto isConstant = [](const LinearForm &f) {
      return f.terms.empty() && !f.thread[0] && !f.thread[1] && !f.thread[2];
    };
    if (!isConstant(*b))
      std::swap(a, b);
    if (!isConstant(*b))
      return std::nullopt;
    LinearForm scaled;
    scaled.add(*a, b->constant);
    return scaled;
  }
  Value floorDiv(Value, Value) const { return std::nullopt; }
  Value ceilDiv(Value, Value) const { return std::nullopt; }
  Value mod(Value, Value) const { return std::nullopt; }
};

} // namespace

static std::optional<LinearForm> linearForm(Value value,
                                            const ThreadUniformity &uniformity,
                                            unsigned depth) {
  LinearForm form;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    form.constant = constant.getSExtValue();
    return form;
  }
  Operation *op = value.getDefiningOp();
  if (auto tid = dyn_cast_if_present<ThreadIdOp>(op)) {
    form.thread[static_cast<int>(tid.getDim())] = 1;
    return form;
  }
  if (auto tid = dyn_cast_if_present<gpu::ThreadIdOp>(op)) {
    form.thread[static_cast<int>(tid.getDimension())] = 1;
    return form;
  }
  // A uniform value is a term of its own: no need to look inside.
  if (!uniformity.isThreadDependent(value)) {
    form.terms.push_back({value, 1});
    return form;
  }
  if (!op || depth > 16)
    return std::nullopt;
  auto operand = [&](unsigned i) {
    return linearForm(op->getOperand(i), uniformity, depth + 1);
  };
  auto combine = [&](int64_t scale) -> std::optional<LinearForm> {
    std::optional<LinearForm> lhs = operand(0), rhs = operand(1);
    if (!lhs || !rhs)
      return std::nullopt;
    lhs->add(*rhs, scale);
    return lhs;
  };
  if (isa<arith::AddIOp>(op))
    return combine(1);
  if (isa<arith::SubIOp>(op))
    return combine(-1);
  // Casts to narrower types may wrap: equal results need not mean equal
  // inputs.
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    auto width = [](Type type) {
      return type.isIndex() ? 64u : type.getIntOrFloatBitWidth();
    };
    if (width(to) < width(from))
      return std::nullopt;
    return operand(0);
  }
  if (isa<arith::MulIOp>(op)) {
    for (unsigned i = 0; i < 2; ++i) {
      APInt scale;
      if (!matchPattern(op->getOperand(i), m_ConstantInt(&scale)))
        continue;
      std::optional<LinearForm> other = operand(1 - i);
      if (!other)
        return std::nullopt;
      LinearForm scaled;
      scaled.add(*other, scale.getSExtValue());
      return scaled;
    }
    return std::nullopt;
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    SmallVector<std::optional<LinearForm>> dims, symbols;
    for (Value v : apply.getDimOperands())
      dims.push_back(linearForm(v, uniformity, depth + 1));
    for (Value v : apply.getSymbolOperands())
      symbols.push_back(linearForm(v, uniformity, depth + 1));
    return evaluateAffineExpr(apply.getAffineMap().getResult(0), dims,
                              symbols, LinearDomain());
  }
  return std::nullopt;
}

std::optional<LinearForm>
tile::getLinearForm(Value value, const ThreadUniformity &uniformity) {
  return linearForm(value, uniformity, /*depth=*/0);
}

/// Returns true when the thread part of the forms (one per index dimension)
/// takes a different value for every thread of the block: each thread
/// dimension of extent above one is covered by a form whose coefficients
/// make a mixed-radix number (each coefficient at least the previous one
/// times its extent).
bool tile::isInjectiveAcrossThreads(ArrayRef<const LinearForm *> forms,
                                    ArrayRef<int64_t> extents) {
  bool covered[3] = {extents[0] <= 1, extents[1] <= 1, extents[2] <= 1};
  for (const LinearForm *form : forms) {
    SmallVector<std::pair<int64_t, int>> used; // (|coefficient|, dim)
    for (int d = 0; d < 3; ++d)
      if (form->thread[d] != 0 && extents[d] > 1)
        used.push_back({std::abs(form->thread[d]), d});
    llvm::sort(used);
    bool mixedRadix = true;
    for (size_t i = 1; i < used.size(); ++i)
      if (used[i].first < used[i - 1].first * extents[used[i - 1].second])
        mixedRadix = false;
    if (!mixedRadix)
      continue;
    for (auto [coefficient, d] : used)
      covered[d] = true;
  }
  return covered[0] && covered[1] && covered[2];
}
