//===- ReportTest.cpp - Timing summaries and the JSON report --------------===//

#include "tile/Runner/Report.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

using namespace tile::runner;

namespace {

TEST(ReportTest, SummarizesSamples) {
  TimingReport t = summarize({5, 1, 3, 2, 4}, 1e6, 2e9);
  EXPECT_EQ(t.medianUs, 3);
  EXPECT_EQ(t.minUs, 1);
  EXPECT_EQ(t.maxUs, 5);
  EXPECT_EQ(t.repetitions, 5u);
  EXPECT_EQ(summarize({1, 2, 3, 4}, 0, 0).medianUs, 2.5);
}

TEST(ReportTest, JSONHoldsOutputsAndRates) {
  RunReport report;
  report.file = "k.mlir";
  report.kernel = "k";
  report.device = "NVIDIA H200";
  report.reference = "@ref (CPU)";
  Comparison c;
  c.relativeL2 = 1e-7;
  c.tolerance = 1e-5;
  c.passed = true;
  report.outputs.push_back({"C", ElementKind::F32, c});
  report.timing = summarize({10, 10, 10}, 1e6, 2e7);
  std::string text;
  llvm::raw_string_ostream os(text);
  printJSON(report, os);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->getString("kernel"), "k");
  EXPECT_EQ(root->getBoolean("passed"), true);
  const llvm::json::Array *outputs = root->getArray("outputs");
  ASSERT_TRUE(outputs);
  EXPECT_EQ(outputs->size(), 1u);
  const llvm::json::Object *timing = root->getObject("timing");
  ASSERT_TRUE(timing);
  EXPECT_DOUBLE_EQ(*timing->getNumber("median_us"), 10);
  EXPECT_DOUBLE_EQ(*timing->getNumber("gb_per_s"), 100);
  EXPECT_DOUBLE_EQ(*timing->getNumber("tflop_per_s"), 2);
}

TEST(ReportTest, AFailedOutputFailsTheRun) {
  RunReport report;
  Comparison bad;
  bad.unwritten = 3;
  report.outputs.push_back({"C", ElementKind::F32, bad});
  EXPECT_FALSE(report.passed());
  std::string text;
  llvm::raw_string_ostream os(text);
  report.reference = "@ref (CPU)";
  printTable(report, os);
  EXPECT_NE(text.find("FAIL (3 elements not written)"), std::string::npos)
      << text;
}

} // namespace
