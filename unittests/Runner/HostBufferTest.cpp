//===- HostBufferTest.cpp - Buffers, tolerances and option parsing --------===//

#include "tile/Runner/HostBuffer.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tile::runner;

namespace {

TEST(HostBufferTest, HalfAndBfloatRoundTrip) {
  for (float value : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f,
                      5.9604645e-08f})
    EXPECT_EQ(halfToFloat(floatToHalf(value)), value) << value;
  EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  // Round to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 0x1p-11f)), 1.0f);
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 0x1p-11f + 0x1p-20f)),
            1.0f + 0x1p-10f);
  EXPECT_EQ(bfloatToFloat(floatToBfloat(1.5f)), 1.5f);
  EXPECT_EQ(bfloatToFloat(floatToBfloat(1.0f + 0x1p-9f)), 1.0f);
}

TEST(HostBufferTest, RandomFillIsSeededAndKindAware) {
  HostBuffer a(ElementKind::F16, {4, 8}), b(ElementKind::F16, {4, 8});
  a.fillRandom(7);
  b.fillRandom(7);
  EXPECT_EQ(std::memcmp(a.getData(), b.getData(), a.getBytes()), 0);
  bool differs = false;
  for (size_t i = 0; i < a.getNumElements(); ++i) {
    EXPECT_GE(a.get(i), -1.0);
    EXPECT_LE(a.get(i), 1.0);
    differs |= a.get(i) != a.get(0);
  }
  EXPECT_TRUE(differs) << "random values are all equal";
  HostBuffer ints(ElementKind::I32, {100});
  ints.fillRandom(3);
  for (size_t i = 0; i < ints.getNumElements(); ++i) {
    EXPECT_EQ(ints.get(i), std::round(ints.get(i)));
    EXPECT_LE(std::abs(ints.get(i)), 8);
  }
}

TEST(HostBufferTest, UnwrittenElementsAreDetected) {
  HostBuffer reference(ElementKind::I32, {4});
  reference.fillRandom(1);
  HostBuffer output(ElementKind::I32, {4});
  output.poison();
  for (size_t i = 0; i < 3; ++i)
    output.set(i, reference.get(i));
  Comparison c = compare(output, reference, /*poisoned=*/true);
  EXPECT_EQ(c.unwritten, 1u);
  EXPECT_FALSE(c.passed);
  output.set(3, reference.get(3));
  EXPECT_TRUE(compare(output, reference, true).passed);
}

TEST(HostBufferTest, NaNNeverPasses) {
  HostBuffer reference(ElementKind::F32, {2}), output(ElementKind::F32, {2});
  reference.set(0, 1.0);
  reference.set(1, 2.0);
  output.set(0, 1.0);
  output.set(1, NAN);
  Comparison c = compare(output, reference, /*poisoned=*/false);
  EXPECT_EQ(c.nonFinite, 1u);
  EXPECT_FALSE(c.passed);
}

TEST(HostBufferTest, FiniteAgainstInfinityFails) {
  HostBuffer reference(ElementKind::F32, {2}), output(ElementKind::F32, {2});
  reference.set(0, INFINITY);
  reference.set(1, 2.0);
  output.set(0, INFINITY);
  output.set(1, 2.0);
  EXPECT_TRUE(compare(output, reference, false).passed);
  output.set(0, 1e30);
  Comparison c = compare(output, reference, false);
  EXPECT_EQ(c.nonFinite, 1u);
  EXPECT_FALSE(c.passed);
}

TEST(HostBufferTest, IntegersCompareExactly) {
  // 2^53 and 2^53 + 1 are the same double: only the bits tell them apart.
  HostBuffer reference(ElementKind::I64, {2}), output(ElementKind::I64, {2});
  reference.setInteger(0, int64_t(1) << 53);
  reference.setInteger(1, 7);
  output.setInteger(0, (int64_t(1) << 53) + 1);
  output.setInteger(1, 7);
  Comparison c = compare(output, reference, false);
  EXPECT_EQ(c.mismatched, 1u);
  EXPECT_FALSE(c.passed);
  output.setInteger(0, int64_t(1) << 53);
  EXPECT_TRUE(compare(output, reference, false).passed);
}

TEST(HostBufferTest, TolerancesDependOnTheType) {
  HostBuffer reference(ElementKind::F32, {1000}), output(ElementKind::F32, {1000});
  reference.fillRandom(5);
  for (size_t i = 0; i < 1000; ++i)
    output.set(i, reference.get(i) * (1 + 1e-6));
  Comparison close = compare(output, reference, false);
  EXPECT_TRUE(close.passed);
  EXPECT_NEAR(close.relativeL2, 1e-6, 1e-7);
  for (size_t i = 0; i < 1000; ++i)
    output.set(i, reference.get(i) * (1 + 1e-3));
  EXPECT_FALSE(compare(output, reference, false).passed);
  EXPECT_EQ(getTolerance(ElementKind::I32), 0);
  EXPECT_GT(getTolerance(ElementKind::BF16), getTolerance(ElementKind::F16));
}

TEST(HostBufferTest, ParsesAssignmentsAndShapes) {
  auto assignment = parseAssignment("A=16x32");
  ASSERT_TRUE(assignment);
  EXPECT_EQ(assignment->first, "A");
  EXPECT_EQ(assignment->second, "16x32");
  EXPECT_FALSE(parseAssignment("A"));
  EXPECT_FALSE(parseAssignment("=3"));
  EXPECT_FALSE(parseAssignment("A="));
  EXPECT_EQ(parseShape("16x32"), (std::vector<int64_t>{16, 32}));
  EXPECT_EQ(parseShape("7"), (std::vector<int64_t>{7}));
  EXPECT_FALSE(parseShape("16xq"));
  EXPECT_FALSE(parseShape("-1"));
  EXPECT_FALSE(parseShape(""));
}

} // namespace
