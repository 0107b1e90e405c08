//===- tile-opt.cpp - The tile optimizer driver ---------------------------===//
//
// Parses, verifies and transforms `.mlir` files holding tile kernels.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tile/InitAll.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllDialects(registry);
  mlir::tile::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
