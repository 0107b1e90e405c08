//===- IndexAnalysisTest.cpp - Tests of index ranges and divisors ---------===//

#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"

#include "TestUtils.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

using IndexAnalysisTest = test::KernelTest;

TEST_F(IndexAnalysisTest, RangesFromGridBlockAndLoops) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%n: index) grid [16, 4] threads [128] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %bx = tile.block_id x
      %tx = tile.thread_id x
      %row = arith.muli %bx, %c64 {tag = "row"} : index
      %lin = affine.apply affine_map<(b, t) -> (b * 128 + t)>(%bx, %tx) {tag = "lin"}
      %q = arith.divui %tx, %c8 {tag = "q"} : index
      %r = arith.remui %tx, %c8 {tag = "r"} : index
      %d = arith.addi %n, %c1 {tag = "dynamic"} : index
      scf.for %k = %c0 to %c8 step %c1 {
        %s = arith.addi %row, %k {tag = "in_loop"} : index
      }
    }
  )mlir");
  ASSERT_TRUE(kernel);
  auto range = [&](StringRef tag) {
    return getIndexRange(tagged(kernel, tag)->getResult(0));
  };
  ASSERT_TRUE(range("row"));
  EXPECT_EQ(range("row")->lower, 0);
  EXPECT_EQ(range("row")->upper, 15 * 64);
  ASSERT_TRUE(range("lin"));
  EXPECT_EQ(range("lin")->upper, 15 * 128 + 127);
  EXPECT_EQ(range("q")->upper, 15);
  EXPECT_EQ(range("r")->upper, 7);
  EXPECT_FALSE(range("dynamic"));
  ASSERT_TRUE(range("in_loop"));
  EXPECT_EQ(range("in_loop")->upper, 15 * 64 + 7);
}

TEST_F(IndexAnalysisTest, Divisors) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%n: index) grid [16] threads [128] {
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c24 = arith.constant 24 : index
      %bx = tile.block_id x
      %a = arith.muli %bx, %c24 {tag = "times24"} : index
      %b = arith.addi %a, %c8 {tag = "plus8"} : index
      %c = arith.addi %a, %c1 {tag = "plus1"} : index
      %d = affine.apply affine_map<(x) -> (x * 16 + 32)>(%bx) {tag = "affine"}
    }
  )mlir");
  ASSERT_TRUE(kernel);
  auto divisor = [&](StringRef tag) {
    return getKnownDivisor(tagged(kernel, tag)->getResult(0));
  };
  EXPECT_EQ(divisor("times24"), 8);
  EXPECT_EQ(divisor("plus8"), 8);
  EXPECT_EQ(divisor("plus1"), 1);
  EXPECT_EQ(divisor("affine"), 16);
}

TEST_F(IndexAnalysisTest, NoRangeWhereValuesMayWrap) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k() grid [2] threads [32] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %big = arith.constant 4611686018427387904 : index
      %bx = tile.block_id x
      %m = arith.subi %bx, %c1 {tag = "may_be_negative"} : index
      %o = arith.maxui %m, %c0 {tag = "maxui_of_negative"} : index
      %w = arith.index_cast %big {tag = "narrowing"} : index to i32
      %p = arith.muli %big, %big {tag = "overflow"} : index
      %u = arith.maxui %bx, %c1 {tag = "maxui_non_negative"} : index
    }
  )mlir");
  ASSERT_TRUE(kernel);
  auto range = [&](StringRef tag) {
    return getIndexRange(tagged(kernel, tag)->getResult(0));
  };
  ASSERT_TRUE(range("may_be_negative"));
  EXPECT_EQ(range("may_be_negative")->lower, -1);
  // -1 is the largest unsigned value: maxui of it is not in [0, 0].
  EXPECT_FALSE(range("maxui_of_negative"));
  EXPECT_FALSE(range("narrowing"));
  EXPECT_FALSE(range("overflow"));
  ASSERT_TRUE(range("maxui_non_negative"));
  EXPECT_EQ(range("maxui_non_negative")->upper, 1);
}

} // namespace
