//===- Report.h - tile-run's table and JSON ---------------------*- C++ -*-===//

#ifndef TILE_RUNNER_REPORT_H
#define TILE_RUNNER_REPORT_H

#include "tile/Runner/HostBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace tile::runner {

struct OutputReport {
  std::string name;
  ElementKind kind;
  Comparison comparison;
};

struct TimingReport {
  double medianUs = 0;
  double minUs = 0;
  double maxUs = 0;
  size_t repetitions = 0;
  /// Bytes of the kernel's arguments (read and written), for GB/s.
  double bytes = 0;
  /// Floating-point operations given with --flops, for TFLOP/s; 0 if none.
  double flops = 0;
};

/// Median, minimum and maximum of `samples` (microseconds).
TimingReport summarize(std::vector<double> samples, double bytes,
                       double flops);

/// What the runtime found while running kernels, beyond their outputs (the
/// CPU target: out-of-bounds accesses, deadlocks, and races with
/// --race-check): one line each, and their counts.
struct RuntimeFindings {
  std::vector<std::string> lines;
  uint64_t races = 0;
  uint64_t outOfBounds = 0;
  uint64_t deadlocks = 0;

  bool empty() const {
    return lines.empty() && races == 0 && outOfBounds == 0 && deadlocks == 0;
  }
};

struct RunReport {
  std::string file;
  std::string kernel;
  std::string device;
  /// The reference checked against, empty when not checked.
  std::string reference;
  double compileMs = 0;
  /// Checked launches (--check-repeat): all passed, or the last one is the
  /// first that failed, whose comparison `outputs` holds.
  unsigned checkRuns = 0;
  std::vector<OutputReport> outputs;
  std::optional<TimingReport> timing;
  /// Whether the target looked for races (the CPU target with
  /// --race-check), and what the runtime found.
  bool raceChecked = false;
  RuntimeFindings findings;

  /// Every output matches and the runtime found nothing.
  bool passed() const;
};

/// A short human table.
void printTable(const RunReport &report, llvm::raw_ostream &os);
/// One JSON object.
void printJSON(const RunReport &report, llvm::raw_ostream &os);

} // namespace tile::runner

#endif // TILE_RUNNER_REPORT_H
