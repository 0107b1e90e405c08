//===- HostBuffer.cpp - Typed host buffers, filled and compared -----------===//

#include "tile/Runner/HostBuffer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace tile::runner;

/// The integer poison: unlikely to be a result, easy to spot in dumps.
static constexpr int64_t kIntegerPoison = 0x5A5A5A5A5A5A5A5ALL;

size_t tile::runner::getElementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
  case ElementKind::I8:
    return 1;
  case ElementKind::I16:
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I32:
  case ElementKind::F32:
    return 4;
  case ElementKind::I64:
  case ElementKind::F64:
    return 8;
  }
  return 0;
}

llvm::StringRef tile::runner::getElementName(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
    return "i1";
  case ElementKind::I8:
    return "i8";
  case ElementKind::I16:
    return "i16";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I64:
    return "i64";
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::F32:
    return "f32";
  case ElementKind::F64:
    return "f64";
  }
  return "?";
}

bool tile::runner::isFloat(ElementKind kind) {
  return kind == ElementKind::F16 || kind == ElementKind::BF16 ||
         kind == ElementKind::F32 || kind == ElementKind::F64;
}

//===----------------------------------------------------------------------===//
// Half and bfloat16
//===----------------------------------------------------------------------===//

float tile::runner::halfToFloat(uint16_t bits) {
  uint32_t sign = (bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    result = sign | ((113 - shift) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

uint16_t tile::runner::floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = (bits >> 16) & 0x8000;
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: keep it quiet.
    return sign | 0x7e00;
  if (magnitude >= 0x477ff000u) // Rounds to infinity.
    return sign | 0x7c00;
  if (magnitude < 0x38800000u) { // Subnormal or zero in half.
    if (magnitude < 0x33000000u)
      return sign;
    // value = mantissa * 2^(exponent - 150); in units of 2^-24 that is
    // mantissa >> (126 - exponent), a shift of 14 to 24 here.
    uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = (magnitude & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t rounded = magnitude + 0xfff + ((magnitude >> 13) & 1);
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

float tile::runner::bfloatToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

uint16_t tile::runner::floatToBfloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

//===----------------------------------------------------------------------===//
// HostBuffer
//===----------------------------------------------------------------------===//

HostBuffer::HostBuffer(ElementKind kind, std::vector<int64_t> shape)
    : kind(kind), shape(std::move(shape)) {
  numElements = 1;
  for (int64_t size : this->shape)
    numElements *= static_cast<size_t>(size);
  data.assign(numElements * getElementBytes(kind), 0);
}

double HostBuffer::get(size_t index) const {
  const uint8_t *at = data.data() + index * getElementBytes(kind);
  auto load = [&](auto sample) {
    decltype(sample) value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  };
  switch (kind) {
  case ElementKind::I1:
  case ElementKind::I8:
    return load(int8_t());
  case ElementKind::I16:
    return load(int16_t());
  case ElementKind::I32:
    return load(int32_t());
  case ElementKind::I64:
    return static_cast<double>(load(int64_t()));
  case ElementKind::F16:
    return halfToFloat(load(uint16_t()));
  case ElementKind::BF16:
    return bfloatToFloat(load(uint16_t()));
  case ElementKind::F32:
    return load(float());
  case ElementKind::F64:
    return load(double());
  }
  return 0;
}

void HostBuffer::set(size_t index, double value) {
  if (!isFloat(kind))
    return setInteger(index, static_cast<int64_t>(value));
  uint8_t *at = data.data() + index * getElementBytes(kind);
  auto store = [&](auto typed) { std::memcpy(at, &typed, sizeof(typed)); };
  switch (kind) {
  case ElementKind::F16:
    return store(floatToHalf(static_cast<float>(value)));
  case ElementKind::BF16:
    return store(floatToBfloat(static_cast<float>(value)));
  case ElementKind::F32:
    return store(static_cast<float>(value));
  case ElementKind::F64:
    return store(value);
  default:
    llvm_unreachable("integer kinds are stored by setInteger");
  }
}

void HostBuffer::setInteger(size_t index, int64_t value) {
  uint8_t *at = data.data() + index * getElementBytes(kind);
  auto store = [&](auto typed) { std::memcpy(at, &typed, sizeof(typed)); };
  switch (kind) {
  case ElementKind::I1:
    return store(static_cast<int8_t>(value & 1));
  case ElementKind::I8:
    return store(static_cast<int8_t>(value));
  case ElementKind::I16:
    return store(static_cast<int16_t>(value));
  case ElementKind::I32:
    return store(static_cast<int32_t>(value));
  case ElementKind::I64:
    return store(value);
  default:
    return set(index, static_cast<double>(value));
  }
}

void HostBuffer::fillRandom(uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-8, 8);
  std::uniform_int_distribution<int> bit(0, 1);
  for (size_t i = 0; i < numElements; ++i) {
    if (isFloat(kind))
      set(i, real(engine));
    else if (kind == ElementKind::I1)
      set(i, bit(engine));
    else
      set(i, integer(engine));
  }
}

void HostBuffer::poison() {
  if (isFloat(kind)) {
    for (size_t i = 0; i < numElements; ++i)
      set(i, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  size_t bytes = getElementBytes(kind);
  for (size_t i = 0; i < numElements; ++i)
    std::memcpy(data.data() + i * bytes, &kIntegerPoison, bytes);
}

bool HostBuffer::isPoisoned(size_t index) const {
  if (isFloat(kind))
    return std::isnan(get(index));
  size_t bytes = getElementBytes(kind);
  return std::memcmp(data.data() + index * bytes, &kIntegerPoison, bytes) ==
         0;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

double tile::runner::getTolerance(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return 2e-3;
  case ElementKind::BF16:
    return 1.6e-2;
  case ElementKind::F32:
    return 1e-5;
  case ElementKind::F64:
    return 1e-12;
  default:
    return 0;
  }
}

Comparison tile::runner::compare(const HostBuffer &output,
                                 const HostBuffer &reference, bool poisoned) {
  Comparison result;
  result.tolerance = getTolerance(output.getKind());
  bool integer = !isFloat(output.getKind());
  size_t bytes = getElementBytes(output.getKind());
  auto *outBytes = static_cast<const uint8_t *>(output.getData());
  auto *refBytes = static_cast<const uint8_t *>(reference.getData());
  double errorSquares = 0, referenceSquares = 0;
  for (size_t i = 0, e = output.getNumElements(); i < e; ++i) {
    double out = output.get(i), ref = reference.get(i);
    if (poisoned && output.isPoisoned(i) && !reference.isPoisoned(i)) {
      ++result.unwritten;
      continue;
    }
    if (integer &&
        std::memcmp(outBytes + i * bytes, refBytes + i * bytes, bytes) != 0)
      ++result.mismatched;
    if (!std::isfinite(out) || !std::isfinite(ref)) {
      // Equal infinities and NaN against NaN agree; anything else does not.
      bool agree = std::isnan(out) ? std::isnan(ref) : out == ref;
      if (!agree)
        ++result.nonFinite;
      continue;
    }
    double difference = out - ref;
    errorSquares += difference * difference;
    referenceSquares += ref * ref;
    result.maxAbs = std::max(result.maxAbs, std::abs(difference));
  }
  result.relativeL2 =
      referenceSquares > 0
          ? std::sqrt(errorSquares / referenceSquares)
          : std::sqrt(errorSquares);
  result.passed = result.unwritten == 0 && result.nonFinite == 0 &&
                  result.mismatched == 0 &&
                  result.relativeL2 <= result.tolerance;
  return result;
}

std::optional<std::pair<std::string, std::string>>
tile::runner::parseAssignment(llvm::StringRef text) {
  auto [name, value] = text.split('=');
  if (name.empty() || value.empty() || name.size() == text.size())
    return std::nullopt;
  return std::make_pair(name.trim().str(), value.trim().str());
}

std::optional<std::vector<int64_t>>
tile::runner::parseShape(llvm::StringRef text) {
  std::vector<int64_t> shape;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t size;
    if (part.trim().getAsInteger(10, size) || size < 0)
      return std::nullopt;
    shape.push_back(size);
  }
  return shape;
}
