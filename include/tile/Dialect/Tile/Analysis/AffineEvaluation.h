//===- AffineEvaluation.h - Affine expressions over abstract values -*- C++ -*-===//
//
// The index analyses (ranges, divisors, linear forms in the thread indices)
// all evaluate `affine.apply` maps bottom-up over their own abstract values;
// this template is that walk, once.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_ANALYSIS_AFFINEEVALUATION_H
#define TILE_DIALECT_TILE_ANALYSIS_AFFINEEVALUATION_H

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/ErrorHandling.h"

namespace mlir::tile {

/// Evaluates `expr` with `dims` and `symbols` bound to abstract values.
/// `Domain` provides `Value` and the operations `constant(int64_t)`,
/// `add`, `mul`, `floorDiv`, `ceilDiv` and `mod` on it.
template <typename Domain>
typename Domain::Value
evaluateAffineExpr(AffineExpr expr,
                   llvm::ArrayRef<typename Domain::Value> dims,
                   llvm::ArrayRef<typename Domain::Value> symbols,
                   const Domain &domain) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return domain.constant(llvm::cast<AffineConstantExpr>(expr).getValue());
  case AffineExprKind::DimId:
    return dims[llvm::cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    return symbols[llvm::cast<AffineSymbolExpr>(expr).getPosition()];
  default:
    break;
  }
  auto binary = llvm::cast<AffineBinaryOpExpr>(expr);
  typename Domain::Value lhs =
      evaluateAffineExpr(binary.getLHS(), dims, symbols, domain);
  typename Domain::Value rhs =
      evaluateAffineExpr(binary.getRHS(), dims, symbols, domain);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return domain.add(lhs, rhs);
  case AffineExprKind::Mul:
    return domain.mul(lhs, rhs);
  case AffineExprKind::FloorDiv:
    return domain.floorDiv(lhs, rhs);
  case AffineExprKind::CeilDiv:
    return domain.ceilDiv(lhs, rhs);
  case AffineExprKind::Mod:
    return domain.mod(lhs, rhs);
  default:
    llvm_unreachable("not an affine binary expression");
  }
}

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_ANALYSIS_AFFINEEVALUATION_H
