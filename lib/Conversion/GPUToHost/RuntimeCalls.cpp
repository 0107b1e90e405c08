//===- RuntimeCalls.cpp - Sites and calls into the CPU runtime ------------===//

#include "HostLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::host;

/// "file:line:col" of the first file location in `loc`, else its printout.
static std::string formatLocation(Location loc) {
  std::string result;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      result = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
                ":" + Twine(file.getColumn()))
                   .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.empty()) {
    llvm::raw_string_ostream os(result);
    loc.print(os);
  }
  return result;
}

int32_t SiteTable::getId(Operation *op, StringRef what) {
  std::string text =
      formatLocation(op->getLoc()) + ": " + op->getName().getStringRef().str();
  if (!what.empty())
    text += " " + what.str();
  auto [found, inserted] =
      ids.try_emplace(text, static_cast<int32_t>(descriptions.size()));
  if (inserted)
    descriptions.push_back(StringAttr::get(context, text));
  return found->second;
}

ArrayAttr SiteTable::getAttr() const {
  return ArrayAttr::get(context, descriptions);
}

Value host::callRuntime(OpBuilder &builder, Location loc, StringRef name,
                        TypeRange results, ValueRange operands) {
  auto module =
      builder.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    callee = func::FuncOp::create(
        builder, loc, name,
        builder.getFunctionType(operands.getTypes(), results));
    callee.setPrivate();
  }
  auto op = func::CallOp::create(builder, loc, callee, operands);
  return op.getNumResults() ? op.getResult(0) : Value();
}

Value host::createI32(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, builder.getI32Type(),
                                      value);
}

Value host::loadContext(OpBuilder &builder, Location loc, int64_t slot) {
  Operation *parent = builder.getInsertionBlock()->getParentOp();
  auto func = dyn_cast<func::FuncOp>(parent);
  if (!func)
    func = parent->getParentOfType<func::FuncOp>();
  // The host function's first argument (WorkgroupMemory.cpp, moveToHost).
  Value context = func.getArgument(0);
  Value index = arith::ConstantIndexOp::create(builder, loc, slot);
  Value value = memref::LoadOp::create(builder, loc, context, index);
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                    value);
}

/// Whether `memorySpace` is one of the GPU's (gpu.address_space, or NVVM's
/// numbers: global 1, shared 3, local 5).
static bool isGPUMemorySpace(Attribute memorySpace) {
  if (isa_and_present<gpu::AddressSpaceAttr>(memorySpace))
    return true;
  if (auto space = dyn_cast_if_present<IntegerAttr>(memorySpace))
    return space.getInt() == 1 || space.getInt() == 3 || space.getInt() == 5;
  return false;
}

Type host::stripGPUMemorySpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !isGPUMemorySpace(memref.getMemorySpace()))
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}
