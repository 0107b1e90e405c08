//===- tile-opt.cpp - The tile optimizer driver ---------------------------===//
//
// Parses, verifies and transforms `.mlir` files holding tile kernels.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tile/InitAll.h"
#include "tile/Tools/ParserWorkarounds.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllDialects(registry);
  mlir::tile::registerAllPasses();
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "tile optimizer driver\n", registry);
  // Inputs that crash the packaged parser are errors instead (a file read
  // twice; standard input is not checked, it cannot be read twice).
  if (inputFile != "-") {
    std::string message;
    if (std::unique_ptr<llvm::MemoryBuffer> file =
            mlir::openInputFile(inputFile, &message);
        file && mlir::failed(mlir::tile::rejectParserCrashInputs(*file)))
      return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));
}
