//===- SharedMemoryAccessTest.cpp - Tests of the conflict analysis --------===//

#include "tile/Dialect/Tile/Analysis/SharedMemoryAccess.h"

#include "TestUtils.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class SharedMemoryAccessTest : public test::KernelTest {
protected:
  /// The accesses of the op tagged `name`.
  SmallVector<SharedAccess> accessesOf(const SharedMemoryAccessAnalysis &a,
                                       KernelOp kernel, StringRef name) {
    SmallVector<SharedAccess> accesses;
    a.collect(tagged(kernel, name), accesses);
    EXPECT_EQ(accesses.size(), 1u);
    return accesses;
  }

  bool conflict(KernelOp kernel, StringRef first, StringRef second) {
    SharedMemoryAccessAnalysis analysis(kernel);
    return analysis.mayConflict(accessesOf(analysis, kernel, first)[0],
                                accessesOf(analysis, kernel, second)[0]);
  }
};

static constexpr const char *kKernel = R"mlir(
  tile.kernel @k(%A: memref<64x32xf32>) grid [1] threads [32, 4] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    %tx = tile.thread_id x
    %ty = tile.thread_id y
    %s = tile.alloc_shared : memref<4x33xf32, #gpu.address_space<workgroup>>
    %t = tile.alloc_shared : memref<4x33xf32, #gpu.address_space<workgroup>>
    %g = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
    %tx1 = arith.addi %tx, %c1 : index
    memref.store %f, %s[%ty, %tx] {tag = "write_own"} : memref<4x33xf32, #gpu.address_space<workgroup>>
    %a = memref.load %s[%ty, %tx] {tag = "read_own"} : memref<4x33xf32, #gpu.address_space<workgroup>>
    %b = memref.load %s[%ty, %tx1] {tag = "read_next"} : memref<4x33xf32, #gpu.address_space<workgroup>>
    %c = memref.load %s[%c0, %tx] {tag = "read_row0"} : memref<4x33xf32, #gpu.address_space<workgroup>>
    %d = memref.load %t[%ty, %tx1] {tag = "other_buffer"} : memref<4x33xf32, #gpu.address_space<workgroup>>
    %e = memref.load %s[%c0, %c0] {tag = "read_corner"} : memref<4x33xf32, #gpu.address_space<workgroup>>
    tile.copy %A to %g {tag = "copy"} : memref<64x32xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
    %h = memref.load %g[%ty, %tx] {tag = "read_copied"} : memref<64x32xf32, #gpu.address_space<workgroup>>
    %o = tile.atomic_add %s[%ty, %tx], %f {tag = "atomic1"} : memref<4x33xf32, #gpu.address_space<workgroup>>, f32 -> f32
    %p = tile.atomic_add %s[%c0, %c0], %f {tag = "atomic2"} : memref<4x33xf32, #gpu.address_space<workgroup>>, f32 -> f32
  }
)mlir";

TEST_F(SharedMemoryAccessTest, OwnElementsDoNotConflict) {
  KernelOp kernel = parseKernel(kKernel);
  ASSERT_TRUE(kernel);
  EXPECT_FALSE(conflict(kernel, "write_own", "read_own"));
}

TEST_F(SharedMemoryAccessTest, OtherThreadsElementsConflict) {
  KernelOp kernel = parseKernel(kKernel);
  ASSERT_TRUE(kernel);
  EXPECT_TRUE(conflict(kernel, "write_own", "read_next"));
  // Row 0 pins x but not y: threads (x, 0) and (x, 1) meet.
  EXPECT_TRUE(conflict(kernel, "write_own", "read_row0"));
  EXPECT_TRUE(conflict(kernel, "write_own", "read_corner"));
  // A collective copy spreads elements in its own order.
  EXPECT_TRUE(conflict(kernel, "copy", "read_copied"));
}

TEST_F(SharedMemoryAccessTest, NoConflictWithoutSharedElementOrWrite) {
  KernelOp kernel = parseKernel(kKernel);
  ASSERT_TRUE(kernel);
  EXPECT_FALSE(conflict(kernel, "write_own", "other_buffer"));
  EXPECT_FALSE(conflict(kernel, "read_next", "read_corner"));
  EXPECT_FALSE(conflict(kernel, "atomic1", "atomic2"));
  EXPECT_TRUE(conflict(kernel, "atomic2", "read_corner"));
}

} // namespace
