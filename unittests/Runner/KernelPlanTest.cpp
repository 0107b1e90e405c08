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
  EXPECT_EQ(plan->arguments[3].integer, 3);
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

// Stores through a buffer chosen at run time: tile-run cannot tell which
// argument is written, so it checks every buffer argument.
static constexpr const char *kSelectedBuffer = R"mlir(
  tile.kernel @selected(%a: memref<16xf32>, %b: memref<16xf32>, %flag: i1)
      grid [1] threads [16] {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %local = tile.alloc_local : memref<4xf32>
    memref.store %zero, %local[%c0] : memref<4xf32>
    %out = arith.select %flag, %a, %b : memref<16xf32>
    memref.store %zero, %out[%c0] : memref<16xf32>
  }
)mlir";

TEST_F(KernelPlanTest, UntraceableBuffersCountAsEveryArgument) {
  mlir::tile::KernelOp kernel = parseKernel(kSelectedBuffer);
  ASSERT_TRUE(kernel);
  PlanOptions options;
  options.values["flag"] = "1";
  llvm::Expected<KernelPlan> plan = planKernel(kernel, options);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  for (unsigned i : {0u, 1u}) {
    // Written, and read so that the one not chosen keeps its input.
    EXPECT_TRUE(plan->arguments[i].written) << i;
    EXPECT_TRUE(plan->arguments[i].read) << i;
  }
  EXPECT_FALSE(plan->arguments[2].written);
}

// Buffers the kernel allocates are its own: accesses to them say nothing
// about the arguments, which stay an input and a poisoned output.
static constexpr const char *kOwnBuffers = R"mlir(
  tile.kernel @own(%x: memref<64xf32>, %y: memref<64xf32>)
      grid [1] threads [64] {
    %tx = tile.thread_id x
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %l = tile.alloc_local : memref<1xf32>
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %s[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %w = memref.load %s[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %l[%c0] : memref<1xf32>
    %u = memref.load %l[%c0] : memref<1xf32>
    memref.store %u, %y[%tx] : memref<64xf32>
  }
)mlir";

TEST_F(KernelPlanTest, OwnBuffersDoNotTouchTheArguments) {
  mlir::tile::KernelOp kernel = parseKernel(kOwnBuffers);
  ASSERT_TRUE(kernel);
  llvm::Expected<KernelPlan> plan = planKernel(kernel, PlanOptions());
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  EXPECT_TRUE(plan->arguments[0].read);
  EXPECT_FALSE(plan->arguments[0].written);
  EXPECT_FALSE(plan->arguments[1].read);
  EXPECT_TRUE(plan->arguments[1].written);
}

// Integer scalars are exact (no trip through double) and range-checked.
static constexpr const char *kIntegerScalars = R"mlir(
  tile.kernel @integers(%big: i64, %small: i8, %n: index)
      grid [1] threads [32] {
  }
)mlir";

TEST_F(KernelPlanTest, IntegerScalarsAreExactAndFitTheirWidth) {
  mlir::tile::KernelOp kernel = parseKernel(kIntegerScalars);
  ASSERT_TRUE(kernel);
  PlanOptions options;
  options.values["big"] = "9007199254740993"; // 2^53 + 1: not a double
  options.values["small"] = "255";            // unsigned spelling of -1
  options.values["n"] = "0x10";
  llvm::Expected<KernelPlan> plan = planKernel(kernel, options);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->arguments[0].integer, 9007199254740993);
  EXPECT_EQ(plan->arguments[0].getScalarBits(), 9007199254740993u);
  EXPECT_EQ(plan->arguments[0].formatScalar(), "9007199254740993");
  EXPECT_EQ(plan->arguments[1].getScalarBits(), 0xffu);
  EXPECT_EQ(plan->arguments[2].integer, 16);

  options.values["small"] = "256";
  llvm::Expected<KernelPlan> wide = planKernel(kernel, options);
  ASSERT_FALSE(bool(wide));
  EXPECT_EQ(llvm::toString(wide.takeError()),
            "--arg small=256: does not fit in 8 bits");
  options.values["small"] = "1.5";
  llvm::Expected<KernelPlan> fraction = planKernel(kernel, options);
  ASSERT_FALSE(bool(fraction));
  EXPECT_EQ(llvm::toString(fraction.takeError()),
            "--arg small=1.5: not an integer");
}

static constexpr const char *kDimOutOfRange = R"mlir(
  tile.kernel @dim_out_of_range(%x: memref<?xf32>) grid [?] threads [32] {
  } grid_size {
  ^bb0(%x: memref<?xf32>):
    // Computed, so the verifier (which rejects a constant index out of
    // range) lets it through and the host evaluation must catch it.
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.addi %c1, %c2 : index
    %size = memref.dim %x, %c3 : memref<?xf32>
    tile.yield %size : index
  }
)mlir";

TEST_F(KernelPlanTest, GridSizeDimOutOfRangeIsAnError) {
  mlir::tile::KernelOp kernel = parseKernel(kDimOutOfRange);
  ASSERT_TRUE(kernel);
  PlanOptions options;
  options.shapes["x"] = {64};
  llvm::Expected<KernelPlan> plan = planKernel(kernel, options);
  ASSERT_FALSE(bool(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "grid_size: 'memref.dim' of argument #0 asks for dimension 3 of "
            "a rank-1 buffer");
}

} // namespace
