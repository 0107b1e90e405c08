//===- ArrayAllocas.cpp - llvm.alloca of N x T as one [N x T] --------------===//
//
// A static per-thread buffer (a fragment's registers, a tile.alloc_local)
// reaches LLVM IR as `alloca float, i64 128`. LLVM's SROA does not split
// array allocations, so until InstCombine rewrote the type, the early O3
// passes ran over every load, store and GEP of those buffers. Giving the
// allocation an array type lets the first SROA promote them to registers
// (docs/Pipeline.md, compile time).
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELLVMARRAYALLOCAS
#include "tile/Pipelines/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct TileLLVMArrayAllocas
    : tile::impl::TileLLVMArrayAllocasBase<TileLLVMArrayAllocas> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::AllocaOp alloca) {
      APInt count;
      if (!matchPattern(alloca.getArraySize(), m_ConstantInt(&count)) ||
          count.ule(1))
        return;
      OpBuilder builder(alloca);
      Type countType = alloca.getArraySize().getType();
      Value one = LLVM::ConstantOp::create(
          builder, alloca.getLoc(), countType,
          builder.getIntegerAttr(countType, 1));
      alloca.getArraySizeMutable().assign(one);
      alloca.setElemType(
          LLVM::LLVMArrayType::get(alloca.getElemType(), count.getZExtValue()));
    });
  }
};
} // namespace
