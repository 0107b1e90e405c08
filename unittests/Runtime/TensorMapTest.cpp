//===- TensorMapTest.cpp - cuTensorMapEncodeTiled's arrays ----------------===//
//
// The arrays the driver takes for a tensor map, without a driver.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/CudaDriver.h"

#include <gtest/gtest.h>

using namespace tile::runtime;

namespace {

// A 2-D map: dimensions innermost first, one stride (the row's bytes).
TEST(TensorMapTest, RowMajorTileInnermostFirst) {
  TiledTensorMapSpec spec;
  spec.elementBytes = 2;
  spec.shape = {1000, 520};
  spec.box = {128, 64};
  TensorMapArrays arrays = getTensorMapArrays(spec);
  EXPECT_EQ(arrays.dims, (std::vector<uint64_t>{520, 1000}));
  EXPECT_EQ(arrays.box, (std::vector<uint32_t>{64, 128}));
  EXPECT_EQ(arrays.strides, (std::vector<uint64_t>{1040}));
  EXPECT_EQ(arrays.elementStrides, (std::vector<uint32_t>{1, 1}));
}

// A 3-D map: the byte strides of the two outer dimensions.
TEST(TensorMapTest, StridesOfOuterDimensions) {
  TiledTensorMapSpec spec;
  spec.elementBytes = 4;
  spec.shape = {3, 300, 64};
  spec.box = {1, 64, 64};
  TensorMapArrays arrays = getTensorMapArrays(spec);
  EXPECT_EQ(arrays.dims, (std::vector<uint64_t>{64, 300, 3}));
  EXPECT_EQ(arrays.strides, (std::vector<uint64_t>{256, 76800}));
}

// Regression: a rank-1 map (a fused epilogue's bias loaded by TMA) passed
// an empty stride array, whose null data the driver rejected with
// CUDA_ERROR_INVALID_VALUE (H200, driver 580.159.04). It gets one stride,
// which the driver does not read.
TEST(TensorMapTest, RankOneHasAStrideArray) {
  TiledTensorMapSpec spec;
  spec.elementBytes = 2;
  spec.shape = {1001};
  spec.box = {256};
  TensorMapArrays arrays = getTensorMapArrays(spec);
  EXPECT_EQ(arrays.dims, (std::vector<uint64_t>{1001}));
  EXPECT_EQ(arrays.box, (std::vector<uint32_t>{256}));
  ASSERT_EQ(arrays.strides.size(), 1u);
  EXPECT_NE(arrays.strides.data(), nullptr);
  EXPECT_EQ(arrays.strides[0] % 16, 0u);
  EXPECT_GE(arrays.strides[0], 2002u);
}

} // namespace
