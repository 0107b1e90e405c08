//===- HostBuffer.h - Typed host buffers, filled and compared ---*- C++ -*-===//
//
// The host side of tile-run's buffers: element kinds, seeded random inputs,
// poisoned outputs, and the comparison of an output with its reference
// (relative L2 error, max abs error, NaN and unwritten elements). No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_HOSTBUFFER_H
#define TILE_RUNNER_HOSTBUFFER_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tile::runner {

enum class ElementKind { I1, I8, I16, I32, I64, F16, BF16, F32, F64 };

/// Bytes of one element (i1 takes one byte).
size_t getElementBytes(ElementKind kind);
llvm::StringRef getElementName(ElementKind kind);
bool isFloat(ElementKind kind);

/// IEEE half and bfloat16 conversions, round to nearest even.
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloatToFloat(uint16_t bits);
uint16_t floatToBfloat(float value);

/// A dense row-major buffer of one element kind.
class HostBuffer {
public:
  HostBuffer(ElementKind kind, std::vector<int64_t> shape);

  ElementKind getKind() const { return kind; }
  const std::vector<int64_t> &getShape() const { return shape; }
  size_t getNumElements() const { return numElements; }
  size_t getBytes() const { return data.size(); }
  void *getData() { return data.data(); }
  const void *getData() const { return data.data(); }

  double get(size_t index) const;
  void set(size_t index, double value);
  /// Stores an integer exactly (truncated to the kind's width); floats
  /// kinds get the nearest value.
  void setInteger(size_t index, int64_t value);

  /// Seeded, kind-aware random values: floats in [-1, 1) (rounded to the
  /// kind), integers in [-8, 8], i1 in {0, 1}.
  void fillRandom(uint64_t seed);
  /// Marks every element unwritten: NaN for floats, a sentinel for integers.
  void poison();
  bool isPoisoned(size_t index) const;

private:
  ElementKind kind;
  std::vector<int64_t> shape;
  size_t numElements;
  std::vector<uint8_t> data;
};

/// How an output compares with its reference.
struct Comparison {
  double relativeL2 = 0;
  double maxAbs = 0;
  double tolerance = 0;
  /// NaN or infinite where the reference differs (finite, or another
  /// non-finite value), and finite where the reference is not.
  size_t nonFinite = 0;
  /// Elements still holding the poison value.
  size_t unwritten = 0;
  /// Integers: elements whose bits differ from the reference (exact, where
  /// the relative L2 error goes through double).
  size_t mismatched = 0;
  bool passed = false;
};

/// Relative L2 tolerance of a kind: 1e-5 (f32), 1e-12 (f64), 2e-3 (f16),
/// 1.6e-2 (bf16), exact for integers.
double getTolerance(ElementKind kind);

/// Compares `output` with `reference` (same kind and shape). `poisoned`
/// says whether unwritten outputs can be detected (they were poisoned).
Comparison compare(const HostBuffer &output, const HostBuffer &reference,
                   bool poisoned);

/// Parses `NAME=VALUE`; fails when there is no `=` or a side is empty.
std::optional<std::pair<std::string, std::string>>
parseAssignment(llvm::StringRef text);

/// Parses `16x1024` (or `1024`) into sizes; fails on anything else.
std::optional<std::vector<int64_t>> parseShape(llvm::StringRef text);

} // namespace tile::runner

#endif // TILE_RUNNER_HOSTBUFFER_H
