//===- LinearFormTest.cpp - Tests of index expressions as linear forms ----===//

#include "tile/Dialect/Tile/Analysis/LinearForm.h"

#include "TestUtils.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class LinearFormTest : public test::KernelTest {
protected:
  /// The linear form of the index the op tagged `name` stores to.
  std::optional<LinearForm> formOf(KernelOp kernel, StringRef name) {
    auto store = cast<memref::StoreOp>(tagged(kernel, name));
    ThreadUniformity uniformity(kernel);
    return getLinearForm(store.getIndices().front(), uniformity);
  }
};

static constexpr const char *kKernel = R"mlir(
  tile.kernel @k(%A: memref<4096xf32>, %n: index) grid [1] threads [32, 4] {
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %f = arith.constant 1.0 : f32
    %tx = tile.thread_id x
    %ty = tile.thread_id y
    %row = arith.muli %ty, %c5 : index
    %i = arith.addi %row, %tx : index
    %j = affine.apply affine_map<(x, y)[s] -> (x + y * 32 + s * 2 + 7)>(%tx, %ty)[%n]
    %k = arith.subi %i, %tx : index
    %u = arith.addi %row, %n : index
    %v = arith.subi %u, %n : index
    %q = arith.divui %tx, %c2 : index
    %p = arith.muli %tx, %ty : index
    memref.store %f, %A[%i] {tag = "overlapping"} : memref<4096xf32>
    memref.store %f, %A[%j] {tag = "affine"} : memref<4096xf32>
    memref.store %f, %A[%k] {tag = "cancelled"} : memref<4096xf32>
    memref.store %f, %A[%v] {tag = "uniform_cancelled"} : memref<4096xf32>
    memref.store %f, %A[%q] {tag = "quotient"} : memref<4096xf32>
    memref.store %f, %A[%p] {tag = "product"} : memref<4096xf32>
  }
)mlir";

TEST_F(LinearFormTest, ThreadCoefficientsAndTerms) {
  KernelOp kernel = parseKernel(kKernel);
  ASSERT_TRUE(kernel);
  std::optional<LinearForm> affine = formOf(kernel, "affine");
  ASSERT_TRUE(affine);
  EXPECT_EQ(affine->thread[0], 1);
  EXPECT_EQ(affine->thread[1], 32);
  EXPECT_EQ(affine->thread[2], 0);
  ASSERT_EQ(affine->terms.size(), 1u);
  EXPECT_EQ(affine->terms[0].first, kernel.getBody().getArgument(1));
  EXPECT_EQ(affine->terms[0].second, 2);
  EXPECT_EQ(affine->constant, 7);
}

TEST_F(LinearFormTest, OppositeTermsCancel) {
  KernelOp kernel = parseKernel(kKernel);
  ASSERT_TRUE(kernel);
  // (5 ty + tx) - tx: the x coefficient cancels.
  std::optional<LinearForm> form = formOf(kernel, "cancelled");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->thread[0], 0);
  EXPECT_EQ(form->thread[1], 5);
  EXPECT_TRUE(form->terms.empty());
  EXPECT_EQ(form->constant, 0);
  // (5 ty + n) - n: the uniform term cancels and is dropped.
  std::optional<LinearForm> uniform = formOf(kernel, "uniform_cancelled");
  ASSERT_TRUE(uniform);
  EXPECT_EQ(uniform->thread[1], 5);
  EXPECT_TRUE(uniform->terms.empty());
  EXPECT_EQ(uniform->constant, 0);
}

TEST_F(LinearFormTest, NonLinearIndicesHaveNoForm) {
  KernelOp kernel = parseKernel(kKernel);
  ASSERT_TRUE(kernel);
  EXPECT_FALSE(formOf(kernel, "quotient"));
  EXPECT_FALSE(formOf(kernel, "product"));
}

TEST_F(LinearFormTest, InjectiveOnlyAsMixedRadix) {
  KernelOp kernel = parseKernel(kKernel);
  ASSERT_TRUE(kernel);
  std::optional<LinearForm> affine = formOf(kernel, "affine");
  std::optional<LinearForm> overlapping = formOf(kernel, "overlapping");
  ASSERT_TRUE(affine && overlapping);
  SmallVector<int64_t> extents = {32, 4, 1};
  // x + 32 y: a different element per thread of [32, 4].
  EXPECT_TRUE(isInjectiveAcrossThreads({&*affine}, extents));
  // x + 5 y: threads (5, 0) and (0, 1) meet.
  EXPECT_FALSE(isInjectiveAcrossThreads({&*overlapping}, extents));
}

} // namespace
