//===- KernelPlan.h - What tile-run allocates and launches ------*- C++ -*-===//
//
// Turns a tile.kernel and the command line (shapes of dynamic memrefs,
// scalar values) into a plan: one host buffer or scalar per argument, which
// arguments the kernel reads and writes, the grid and the block.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_KERNELPLAN_H
#define TILE_RUNNER_KERNELPLAN_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Runner/HostBuffer.h"
#include "llvm/Support/Error.h"

#include <array>
#include <map>

namespace tile::runner {

/// One kernel argument.
struct ArgumentPlan {
  std::string name;
  mlir::Type type;
  ElementKind kind = ElementKind::F32;
  bool isBuffer = false;
  /// Buffers: the resolved shape, and how the kernel uses them.
  std::vector<int64_t> shape;
  bool read = false;
  bool written = false;
  /// Scalars: the value passed, `scalar` for floats, `integer` (exact) for
  /// integers and index.
  double scalar = 0;
  int64_t integer = 0;

  /// The scalar as the kernel receives it, in the low bytes.
  uint64_t getScalarBits() const;
  /// The scalar as an `--arg` value that parses back to the same value.
  std::string formatScalar() const;
};

/// Shapes (`--shape A=16x32`) and scalar values (`--arg n=7`) by name.
struct PlanOptions {
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, std::string> values;
  uint64_t seed = 0;
};

struct KernelPlan {
  mlir::tile::KernelOp kernel;
  std::vector<ArgumentPlan> arguments;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
};

/// Maps an MLIR element type to a buffer element kind (index is i64).
std::optional<ElementKind> getElementKind(mlir::Type type);

/// Builds the plan of `kernel`; the error names the argument and the flag to
/// use when a shape or value is missing or does not fit.
llvm::Expected<KernelPlan> planKernel(mlir::tile::KernelOp kernel,
                                      const PlanOptions &options);

/// Evaluates the grid of `plan.kernel` (static extents and the grid_size
/// region) for the plan's argument shapes and values.
llvm::Error evaluateGrid(KernelPlan &plan);

} // namespace tile::runner

#endif // TILE_RUNNER_KERNELPLAN_H
