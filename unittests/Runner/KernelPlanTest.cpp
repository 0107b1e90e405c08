//===- KernelPlanTest.cpp - Plans, grids and the CPU reference JIT --------===//

#include "tile/Runner/KernelPlan.h"
#include "tile/Runner/ReferenceJIT.h"

#include "../Dialect/Tile/TestUtils.h"

using namespace mlir;
using namespace ::tile::runner;

namespace {

using KernelPlanTest = mlir::tile::test::KernelTest;

static constexpr const char *kScale = R"mlir(
  tile.kernel @scale(%x: memref<?xf32>, %y: memref<?xf32>, %alpha: f32, %n: index)
      grid [?, 2] threads [256] attributes {reference = @ref} {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<?xf32>
    memref.store %v, %y[%c0] : memref<?xf32>
  } grid_size {
  ^bb0(%x: memref<?xf32>, %y: memref<?xf32>, %alpha: f32, %n: index):
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %size = memref.dim %x, %c0 : memref<?xf32>
    %blocks = arith.ceildivui %size, %c256 : index
    %more = arith.addi %blocks, %n : index
    tile.yield %more : index
  }
  func.func @ref(%x: memref<?xf32>, %y: memref<?xf32>, %alpha: f32, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %size = memref.dim %x, %c0 : memref<?xf32>
    scf.for %i = %c0 to %size step %c1 {
      %v = memref.load %x[%i] : memref<?xf32>
      %s = arith.mulf %v, %alpha : f32
      %h = arith.truncf %s : f32 to bf16
      %w = arith.extf %h : bf16 to f32
      memref.store %w, %y[%i] : memref<?xf32>
    }
    return
  }
)mlir";

TEST_F(KernelPlanTest, PlansBuffersScalarsAndTheGrid) {
  mlir::tile::KernelOp kernel = parseKernel(kScale);
  ASSERT_TRUE(kernel);
  PlanOptions options;
  options.shapes["x"] = {1000};
  options.shapes["y"] = {1000};
  options.values["n"] = "3";
  llvm::Expected<KernelPlan> plan = planKernel(kernel, options);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->arguments.size(), 4u);
  EXPECT_EQ(plan->arguments[0].name, "x");
  EXPECT_TRUE(plan->arguments[0].read);
  EXPECT_FALSE(plan->arguments[0].written);
  EXPECT_TRUE(plan->arguments[1].written);
  EXPECT_FALSE(plan->arguments[1].read);
  EXPECT_EQ(plan->arguments[3].scalar, 3);
  // ceil(1000 / 256) + 3 blocks along x, 2 along y.
  EXPECT_EQ(plan->grid[0], 7);
  EXPECT_EQ(plan->grid[1], 2);
  EXPECT_EQ(plan->block[0], 256);
}

TEST_F(KernelPlanTest, ErrorsNameTheArgumentAndTheFlag) {
  mlir::tile::KernelOp kernel = parseKernel(kScale);
  ASSERT_TRUE(kernel);
  PlanOptions options;
  options.shapes["x"] = {1000};
  llvm::Expected<KernelPlan> missing = planKernel(kernel, options);
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "argument 'y' has type memref<?xf32>: give its shape with "
            "--shape y=...");
  options.shapes["y"] = {1000, 2};
  llvm::Expected<KernelPlan> rank = planKernel(kernel, options);
  ASSERT_FALSE(bool(rank));
  EXPECT_EQ(llvm::toString(rank.takeError()),
            "--shape y: the shape does not fit argument 'y' of type "
            "memref<?xf32>");
  options.shapes["y"] = {1000};
  llvm::Expected<KernelPlan> scalar = planKernel(kernel, options);
  ASSERT_FALSE(bool(scalar));
  EXPECT_EQ(llvm::toString(scalar.takeError()),
            "scalar argument 'n' (index) needs a value: --arg n=...");
  options.values["m"] = "1";
  llvm::Expected<KernelPlan> unknown = planKernel(kernel, options);
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "--arg m: kernel 'scale' has no argument 'm'");
}

TEST_F(KernelPlanTest, RunsTheReferenceOnTheCPU) {
  mlir::tile::KernelOp kernel = parseKernel(kScale);
  ASSERT_TRUE(kernel);
  PlanOptions options;
  options.shapes["x"] = {37};
  options.shapes["y"] = {37};
  options.values["n"] = "0";
  options.values["alpha"] = "2.5";
  llvm::Expected<KernelPlan> plan = planKernel(kernel, options);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  HostBuffer x(ElementKind::F32, {37}), y(ElementKind::F32, {37});
  x.fillRandom(11);
  y.poison();
  auto func = module->lookupSymbol<func::FuncOp>("ref");
  ASSERT_TRUE(func);
  llvm::Error error = runOnCPU(func, plan->arguments, {&x, &y, nullptr, nullptr});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  for (size_t i = 0; i < 37; ++i) {
    float expected = bfloatToFloat(floatToBfloat(float(x.get(i)) * 2.5f));
    EXPECT_EQ(y.get(i), expected) << i;
  }
}

} // namespace
