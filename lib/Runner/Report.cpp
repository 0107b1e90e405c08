//===- Report.cpp - tile-run's table and JSON -----------------------------===//

#include "tile/Runner/Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace tile::runner;

TimingReport tile::runner::summarize(std::vector<double> samples,
                                     double bytes, double flops) {
  TimingReport timing;
  timing.bytes = bytes;
  timing.flops = flops;
  timing.repetitions = samples.size();
  if (samples.empty())
    return timing;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  timing.medianUs = n % 2 ? samples[n / 2]
                          : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  timing.minUs = samples.front();
  timing.maxUs = samples.back();
  return timing;
}

bool RunReport::passed() const {
  return findings.empty() && llvm::all_of(outputs, [](const OutputReport &o) {
           return o.comparison.passed;
         });
}

void tile::runner::printTable(const RunReport &report, llvm::raw_ostream &os) {
  os << llvm::formatv("kernel {0} ({1}) on {2}, compiled in {3:f1} ms\n",
                      report.kernel, report.file, report.device,
                      report.compileMs);
  if (!report.reference.empty()) {
    os << llvm::formatv("check against {0}", report.reference);
    if (report.checkRuns > 1)
      os << llvm::formatv(" ({0} launches{1})", report.checkRuns,
                          report.passed() ? ", all passed"
                                          : ": the last one failed");
    os << ":\n";
    os << llvm::formatv("  {0,-12} {1,-5} {2,-10} {3,-10} {4,-10} {5,-9} {6}\n",
                        "output", "type", "rel L2", "max abs", "tolerance",
                        "unwritten", "result");
    for (const OutputReport &output : report.outputs) {
      const Comparison &c = output.comparison;
      std::string result = c.passed ? "PASS" : "FAIL";
      if (c.unwritten)
        result += llvm::formatv(" ({0} elements not written)", c.unwritten);
      if (c.nonFinite)
        result += llvm::formatv(" ({0} NaN/inf)", c.nonFinite);
      if (c.mismatched)
        result += llvm::formatv(" ({0} elements differ)", c.mismatched);
      os << llvm::formatv(
          "  {0,-12} {1,-5} {2,-10:e2} {3,-10:e2} {4,-10:e1} {5,-9} {6}\n",
          output.name, getElementName(output.kind), c.relativeL2, c.maxAbs,
          c.tolerance, c.unwritten, result);
    }
  }
  const RuntimeFindings &findings = report.findings;
  if (report.raceChecked || !findings.empty()) {
    os << llvm::formatv(
        "{0}{1} out-of-bounds, {2} deadlocks\n",
        report.raceChecked
            ? llvm::formatv("race check: {0} races, ", findings.races).str()
            : std::string(),
        findings.outOfBounds, findings.deadlocks);
    for (const std::string &finding : findings.lines)
      os << "  " << finding << "\n";
  }
  if (report.timing) {
    const TimingReport &t = *report.timing;
    os << llvm::formatv("time: median {0:f2} us (min {1:f2}, max {2:f2}, {3} "
                        "runs, L2 flushed)",
                        t.medianUs, t.minUs, t.maxUs, t.repetitions);
    if (t.medianUs > 0) {
      os << llvm::formatv(", {0:f1} GB/s", t.bytes / t.medianUs / 1e3);
      if (t.flops > 0)
        os << llvm::formatv(", {0:f2} TFLOP/s", t.flops / t.medianUs / 1e6);
    }
    os << "\n";
  }
}

void tile::runner::printJSON(const RunReport &report, llvm::raw_ostream &os) {
  llvm::json::Array outputs;
  for (const OutputReport &output : report.outputs) {
    const Comparison &c = output.comparison;
    outputs.push_back(llvm::json::Object{
        {"name", output.name},
        {"type", getElementName(output.kind)},
        {"relative_l2", c.relativeL2},
        {"max_abs", c.maxAbs},
        {"tolerance", c.tolerance},
        {"unwritten", static_cast<int64_t>(c.unwritten)},
        {"non_finite", static_cast<int64_t>(c.nonFinite)},
        {"mismatched", static_cast<int64_t>(c.mismatched)},
        {"passed", c.passed}});
  }
  llvm::json::Object root{{"file", report.file},
                          {"kernel", report.kernel},
                          {"device", report.device},
                          {"compile_ms", report.compileMs},
                          {"passed", report.passed()}};
  if (!report.reference.empty()) {
    root["reference"] = report.reference;
    root["check_runs"] = static_cast<int64_t>(report.checkRuns);
    root["outputs"] = std::move(outputs);
  }
  const RuntimeFindings &findings = report.findings;
  if (report.raceChecked)
    root["races"] = static_cast<int64_t>(findings.races);
  if (report.raceChecked || !findings.empty()) {
    root["out_of_bounds"] = static_cast<int64_t>(findings.outOfBounds);
    root["deadlocks"] = static_cast<int64_t>(findings.deadlocks);
    llvm::json::Array lines;
    for (const std::string &line : findings.lines)
      lines.push_back(line);
    root["findings"] = std::move(lines);
  }
  if (report.timing) {
    const TimingReport &t = *report.timing;
    llvm::json::Object timing{{"median_us", t.medianUs},
                              {"min_us", t.minUs},
                              {"max_us", t.maxUs},
                              {"repetitions", static_cast<int64_t>(t.repetitions)},
                              {"bytes", t.bytes}};
    if (t.medianUs > 0) {
      timing["gb_per_s"] = t.bytes / t.medianUs / 1e3;
      if (t.flops > 0)
        timing["tflop_per_s"] = t.flops / t.medianUs / 1e6;
    }
    root["timing"] = std::move(timing);
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}
