//===- TestUtils.h - Shared helpers of the tile unit tests ------*- C++ -*-===//

#ifndef TILE_UNITTESTS_TESTUTILS_H
#define TILE_UNITTESTS_TESTUTILS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/InitAll.h"

#include <gtest/gtest.h>

namespace mlir::tile::test {

/// A context with every dialect a kernel may use, and a parsed kernel.
class KernelTest : public ::testing::Test {
protected:
  KernelTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` and returns its first kernel.
  KernelOp parseKernel(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "failed to parse the test kernel";
    if (!module)
      return nullptr;
    return *module->getOps<KernelOp>().begin();
  }

  /// Returns the op tagged `{tag = "name"}`.
  static Operation *tagged(KernelOp kernel, StringRef name) {
    Operation *found = nullptr;
    kernel.walk([&](Operation *op) {
      auto tag = op->getAttrOfType<StringAttr>("tag");
      if (tag && tag.getValue() == name)
        found = op;
    });
    EXPECT_TRUE(found) << "no op tagged " << name.str();
    return found;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

} // namespace mlir::tile::test

#endif // TILE_UNITTESTS_TESTUTILS_H
