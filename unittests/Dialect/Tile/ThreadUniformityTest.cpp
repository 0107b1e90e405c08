//===- ThreadUniformityTest.cpp - Tests of the uniformity analysis --------===//

#include "tile/Dialect/Tile/IR/ThreadUniformity.h"

#include "TestUtils.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class ThreadUniformityTest : public test::KernelTest {
protected:
  /// Returns the result of the op tagged `{tag = "name"}`.
  static Value taggedValue(KernelOp kernel, StringRef name) {
    Operation *op = tagged(kernel, name);
    return op ? op->getResult(0) : Value();
  }
};

TEST_F(ThreadUniformityTest, ThreadIndexTaintsArithmetic) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%n: index) grid [4] threads [64] {
      %c1 = arith.constant {tag = "const"} 1 : index
      %bx = tile.block_id x
      %tx = tile.thread_id x
      %b = arith.addi %bx, %n {tag = "block"} : index
      %t = arith.addi %bx, %tx {tag = "thread"} : index
      %u = arith.muli %t, %c1 {tag = "derived"} : index
    }
  )mlir");
  ASSERT_TRUE(kernel);
  ThreadUniformity uniformity(kernel);
  EXPECT_FALSE(uniformity.isThreadDependent(taggedValue(kernel, "const")));
  EXPECT_FALSE(uniformity.isThreadDependent(taggedValue(kernel, "block")));
  EXPECT_TRUE(uniformity.isThreadDependent(taggedValue(kernel, "thread")));
  EXPECT_TRUE(uniformity.isThreadDependent(taggedValue(kernel, "derived")));
  EXPECT_FALSE(uniformity.isThreadDependent(kernel.getArguments()[0]));
}

TEST_F(ThreadUniformityTest, MemoryAndLoops) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%A: memref<64xf32>) grid [4] threads [64] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %tx = tile.thread_id x
      %l = tile.alloc_local : memref<1xf32>
      %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
      %g = memref.load %A[%c0] {tag = "global"} : memref<64xf32>
      %p = memref.load %l[%c0] {tag = "local"} : memref<1xf32>
      %q = memref.load %s[%tx] {tag = "shared_at_thread"} : memref<64xf32, #gpu.address_space<workgroup>>
      %f = arith.constant 0.0 : f32
      %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %f) -> (f32) {
        %v = memref.load %A[%tx] : memref<64xf32>
        scf.yield %v : f32
      } {tag = "loop"}
      %u = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %f) -> (f32) {
        scf.yield %acc : f32
      } {tag = "uniform_loop"}
      %all = tile.thread_allreduce add %f across(x) {tag = "full_reduce"} : f32
    }
  )mlir");
  ASSERT_TRUE(kernel);
  ThreadUniformity uniformity(kernel);
  EXPECT_FALSE(uniformity.isThreadDependent(taggedValue(kernel, "global")));
  EXPECT_TRUE(uniformity.isThreadDependent(taggedValue(kernel, "local")));
  EXPECT_TRUE(uniformity.isThreadDependent(taggedValue(kernel, "shared_at_thread")));
  EXPECT_TRUE(uniformity.isThreadDependent(taggedValue(kernel, "loop")));
  EXPECT_FALSE(uniformity.isThreadDependent(taggedValue(kernel, "uniform_loop")));
  EXPECT_FALSE(uniformity.isThreadDependent(taggedValue(kernel, "full_reduce")));
}

TEST_F(ThreadUniformityTest, PartialReductionDependsOnOtherDimensions) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k() grid [4] threads [2, 32] {
      %f = arith.constant 1.0 : f32
      %y = tile.thread_allreduce add %f across(y) {tag = "over_y"} : f32
      %xy = tile.thread_allreduce add %f across(x, y) {tag = "over_xy"} : f32
      %tx = tile.thread_id x
      %i = arith.index_cast %tx : index to i32
      %g = arith.sitofp %i : i32 to f32
      %t = tile.thread_allreduce add %g across(x, y) {tag = "thread_value_over_xy"} : f32
    }
  )mlir");
  ASSERT_TRUE(kernel);
  ThreadUniformity uniformity(kernel);
  EXPECT_TRUE(uniformity.isThreadDependent(taggedValue(kernel, "over_y")));
  EXPECT_FALSE(uniformity.isThreadDependent(taggedValue(kernel, "over_xy")));
  // Of a per-thread value too: the whole block gets the same result.
  EXPECT_FALSE(
      uniformity.isThreadDependent(taggedValue(kernel, "thread_value_over_xy")));
}

TEST_F(ThreadUniformityTest, DivergentAncestor) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k() grid [4] threads [64] {
      %c0 = arith.constant 0 : index
      %bx = tile.block_id x
      %tx = tile.thread_id x
      %lead = arith.cmpi eq, %tx, %c0 : index
      %first = arith.cmpi eq, %bx, %c0 : index
      scf.if %first {
        %a = arith.constant {tag = "uniform"} 1 : index
      }
      scf.if %lead {
        scf.if %first {
          %b = arith.constant {tag = "divergent"} 2 : index
        }
      }
    }
  )mlir");
  ASSERT_TRUE(kernel);
  ThreadUniformity uniformity(kernel);
  Operation *uniform = taggedValue(kernel, "uniform").getDefiningOp();
  Operation *divergent = taggedValue(kernel, "divergent").getDefiningOp();
  EXPECT_EQ(uniformity.getDivergentAncestor(uniform, kernel), nullptr);
  Operation *ancestor = uniformity.getDivergentAncestor(divergent, kernel);
  ASSERT_NE(ancestor, nullptr);
  // The outer `scf.if %lead`, not the uniform inner one.
  EXPECT_EQ(ancestor, divergent->getParentOp()->getParentOp());
}

} // namespace
