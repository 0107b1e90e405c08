//===- WritePTX.cpp - Write the PTX of gpu.binary ops to a file -----------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

#define DEBUG_TYPE "tile-write-ptx"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWRITEPTX
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

std::string tile::getPTX(ModuleOp module) {
  std::string ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getFormat() == gpu::CompilationTarget::Assembly)
        ptx += object.getObject().getValue();
    }
  });
  return ptx;
}

namespace {

struct TileWritePTXPass : tile::impl::TileWritePTXBase<TileWritePTXPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string ptx = getPTX(getOperation());
    if (ptx.empty()) {
      getOperation().emitError("no PTX to write: expected gpu.binary ops "
                               "serialized with format=isa");
      return signalPassFailure();
    }
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &message);
    if (!file) {
      getOperation().emitError("cannot write PTX to '")
          << output << "': " << message;
      return signalPassFailure();
    }
    file->os() << ptx;
    file->keep();
  }
};

} // namespace
