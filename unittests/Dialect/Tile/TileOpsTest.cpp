//===- TileOpsTest.cpp - Tests of the tile ops' C++ API -------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "TestUtils.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class TileOpsTest : public test::KernelTest {
protected:
  template <typename OpTy>
  static SmallVector<OpTy> collect(KernelOp kernel) {
    SmallVector<OpTy> ops;
    kernel.walk([&](OpTy op) { ops.push_back(op); });
    return ops;
  }
};

TEST_F(TileOpsTest, KernelShape) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%x: memref<?xf32>) grid [?, 3] threads [32, 4] {
      %a = tile.alloc_shared : memref<10xf16, #gpu.address_space<workgroup>>
      %b = tile.alloc_shared {alignment = 64} : memref<4xf32, #gpu.address_space<workgroup>>
    } grid_size {
    ^bb0(%x: memref<?xf32>):
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?xf32>
      tile.yield %n : index
    }
  )mlir");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel.getNumThreads(), 128);
  EXPECT_EQ(kernel.getThreadExtent(Dim::x), 32);
  EXPECT_EQ(kernel.getThreadExtent(Dim::y), 4);
  EXPECT_EQ(kernel.getThreadExtent(Dim::z), 1);
  EXPECT_EQ(kernel.getNumDynamicGridExtents(), 1u);
  // 20 bytes of f16, padded to the 64-byte alignment, then 16 bytes of f32.
  EXPECT_EQ(kernel.getStaticSharedMemoryBytes(), 64 + 16);
}

TEST_F(TileOpsTest, CopyTileShapeAndCollectivity) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%A: memref<1024x2048xf32>, %H: memref<64xf16>) grid [1] threads [128] {
      %c0 = arith.constant 0 : index
      %s = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
      %l = tile.alloc_local : memref<8xf16>
      tile.copy %A[%c0, %c0] to %s : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
      tile.copy %s to %A[%c0, %c0] : memref<64x32xf32, #gpu.address_space<workgroup>> to memref<1024x2048xf32>
      tile.copy %A[%c0, %c0] to %s[%c0, %c0] shape [16, 8] : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
      tile.copy %H[%c0] to %l : memref<64xf16> to memref<8xf16>
    }
  )mlir");
  ASSERT_TRUE(kernel);
  SmallVector<CopyOp> copies = collect<CopyOp>(kernel);
  ASSERT_EQ(copies.size(), 4u);
  EXPECT_EQ(copies[0].getTileShape(), (SmallVector<int64_t>{64, 32}));
  EXPECT_EQ(copies[1].getTileShape(), (SmallVector<int64_t>{64, 32}));
  EXPECT_EQ(copies[2].getTileShape(), (SmallVector<int64_t>{16, 8}));
  EXPECT_EQ(copies[3].getTileShape(), (SmallVector<int64_t>{8}));
  EXPECT_TRUE(copies[0].isCollective());
  EXPECT_FALSE(copies[3].isCollective());
}

TEST_F(TileOpsTest, MemorySpaces) {
  Type f32 = Float32Type::get(&context);
  auto space = [&](gpu::AddressSpace as) {
    return MemRefType::get({4}, f32, MemRefLayoutAttrInterface(),
                           gpu::AddressSpaceAttr::get(&context, as));
  };
  EXPECT_EQ(getMemorySpace(MemRefType::get({4}, f32)), MemorySpace::Global);
  EXPECT_EQ(getMemorySpace(space(gpu::AddressSpace::Global)),
            MemorySpace::Global);
  EXPECT_EQ(getMemorySpace(space(gpu::AddressSpace::Workgroup)),
            MemorySpace::Shared);
  EXPECT_EQ(getMemorySpace(space(gpu::AddressSpace::Private)),
            MemorySpace::Local);
  auto numeric = MemRefType::get({4}, f32, MemRefLayoutAttrInterface(),
                                 IntegerAttr::get(IntegerType::get(&context, 64), 3));
  EXPECT_EQ(getMemorySpace(numeric), MemorySpace::Shared);
}

TEST_F(TileOpsTest, FoldsBlockDim) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k() grid [7, ?] threads [32, 4] {
      %ntx = tile.block_dim y
      %nbx = tile.grid_dim x
      %nby = tile.grid_dim y
    } grid_size {
      %c2 = arith.constant 2 : index
      tile.yield %c2 : index
    }
  )mlir");
  ASSERT_TRUE(kernel);
  SmallVector<BlockDimOp> blockDims = collect<BlockDimOp>(kernel);
  SmallVector<GridDimOp> gridDims = collect<GridDimOp>(kernel);
  ASSERT_EQ(blockDims.size(), 1u);
  ASSERT_EQ(gridDims.size(), 2u);
  auto folded = [](Operation *op) -> std::optional<int64_t> {
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(results)) || results.size() != 1)
      return std::nullopt;
    auto attr = dyn_cast_if_present<IntegerAttr>(
        dyn_cast<Attribute>(results.front()));
    if (!attr)
      return std::nullopt;
    return attr.getInt();
  };
  EXPECT_EQ(folded(blockDims[0]), 4);
  EXPECT_EQ(folded(gridDims[0]), 7);
  EXPECT_EQ(folded(gridDims[1]), std::nullopt);
}

} // namespace
