//===- FragmentLayout.cpp - The algebra of fragment layouts ---------------===//
//
// A layout is an affine map (thread, register) -> coordinates. Shapes are
// static and small (a fragment lives in registers), so the queries that need
// the inverse (who owns an element, is the map a bijection, which registers
// are contiguous) enumerate the map rather than invert it symbolically.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/FragmentLayout.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Diagnostics.h"
#include "tile/Dialect/Tile/Analysis/AffineEvaluation.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::tile;

/// Fragments larger than this are rejected: they cannot live in registers,
/// and enumerating their layout would cost time for nothing.
static constexpr int64_t kMaxFragmentElements = int64_t(1) << 20;

namespace {
/// Integers, for evaluateAffineExpr. Division by a non-positive value does
/// not occur in layouts the verifier accepts; it gives 0 rather than a trap.
struct IntegerDomain {
  using Value = int64_t;
  int64_t constant(int64_t value) const { return value; }
  int64_t add(int64_t a, int64_t b) const { return a + b; }
  int64_t mul(int64_t a, int64_t b) const { return a * b; }
  int64_t floorDiv(int64_t a, int64_t b) const {
    return b > 0 ? llvm::divideFloorSigned(a, b) : 0;
  }
  int64_t ceilDiv(int64_t a, int64_t b) const {
    return b > 0 ? llvm::divideCeilSigned(a, b) : 0;
  }
  int64_t mod(int64_t a, int64_t b) const {
    return b > 0 ? llvm::mod(a, b) : 0;
  }
};
} // namespace

static int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims) {
  return evaluateAffineExpr(expr, dims, /*symbols=*/{}, IntegerDomain());
}

namespace {
/// A layout's map compiled once into postfix programs, one per coordinate,
/// for the queries that enumerate every (thread, register). Walking the
/// uniqued AffineExpr tree per element took a fifth of the attention
/// kernels' compile time; running the programs per element still took most
/// of tile-lower-fragments' (a 128 x 256 accumulator is 32k elements,
/// enumerated by several queries). `table` runs each program once over the
/// vectors of all thread and register indices instead.
class LayoutEvaluator {
public:
  explicit LayoutEvaluator(AffineMap map) {
    for (AffineExpr result : map.getResults()) {
      programs.emplace_back();
      compile(result, programs.back());
    }
  }

  /// The coordinates of every (thread, register) of a layout of `threads`
  /// x `registers`: those of (t, r) at [(t * registers + r) * rank, + rank).
  std::vector<int64_t> table(int64_t threads, int64_t registers) const {
    int64_t count = threads * registers;
    int64_t rank = programs.size();
    std::vector<int64_t> result(count * rank);
    // A stack entry is a scalar (a constant) or one value per element.
    struct Entry {
      bool scalar = true;
      int64_t value = 0;
      std::vector<int64_t> values;
    };
    SmallVector<Entry> stack;
    for (auto [dim, program] : llvm::enumerate(programs)) {
      size_t depth = 0;
      auto push = [&]() -> Entry & {
        if (stack.size() <= depth)
          stack.emplace_back();
        return stack[depth++];
      };
      for (const Step &step : program) {
        if (step.kind == Kind::Constant) {
          Entry &entry = push();
          entry.scalar = true;
          entry.value = step.value;
          continue;
        }
        if (step.kind == Kind::Thread || step.kind == Kind::Register) {
          Entry &entry = push();
          entry.scalar = false;
          entry.values.resize(count);
          for (int64_t t = 0, i = 0; t < threads; ++t)
            for (int64_t r = 0; r < registers; ++r, ++i)
              entry.values[i] = step.kind == Kind::Thread ? t : r;
          continue;
        }
        Entry &rhs = stack[--depth];
        Entry &lhs = stack[depth - 1];
        if (lhs.scalar && rhs.scalar) {
          lhs.value = apply(step.kind, lhs.value, rhs.value);
          continue;
        }
        if (lhs.scalar) {
          lhs.scalar = false;
          lhs.values.assign(count, lhs.value);
        }
        if (rhs.scalar) {
          applyScalar(step.kind, lhs.values, rhs.value);
        } else {
          for (int64_t i = 0; i < count; ++i)
            lhs.values[i] = apply(step.kind, lhs.values[i], rhs.values[i]);
        }
      }
      const Entry &top = stack.front();
      for (int64_t i = 0; i < count; ++i)
        result[i * rank + dim] = top.scalar ? top.value : top.values[i];
    }
    return result;
  }

private:
  enum class Kind : uint8_t { Constant, Thread, Register, Add, Mul, FloorDiv,
                              CeilDiv, Mod };
  struct Step {
    Kind kind;
    int64_t value = 0;
  };
  using Program = SmallVector<Step, 16>;

  /// `values[i] = values[i] <kind> rhs`, one loop per kind (the programs'
  /// right operands are nearly always constants, mostly powers of two:
  /// floor division and modulo by them are a shift and a mask).
  static void applyScalar(Kind kind, MutableArrayRef<int64_t> values,
                          int64_t rhs) {
    bool powerOfTwo = rhs > 0 && llvm::isPowerOf2_64(rhs);
    switch (kind) {
    case Kind::Add:
      for (int64_t &value : values)
        value += rhs;
      return;
    case Kind::Mul:
      for (int64_t &value : values)
        value *= rhs;
      return;
    case Kind::FloorDiv:
      if (powerOfTwo) {
        unsigned shift = llvm::Log2_64(rhs);
        for (int64_t &value : values)
          value >>= shift; // Arithmetic: the floor, negative values too.
        return;
      }
      break;
    case Kind::Mod:
      if (powerOfTwo) {
        for (int64_t &value : values)
          value &= rhs - 1; // The floor modulo, in [0, rhs).
        return;
      }
      break;
    default:
      break;
    }
    for (int64_t &value : values)
      value = apply(kind, value, rhs);
  }

  static int64_t apply(Kind kind, int64_t lhs, int64_t rhs) {
    IntegerDomain domain;
    switch (kind) {
    case Kind::Add:
      return domain.add(lhs, rhs);
    case Kind::Mul:
      return domain.mul(lhs, rhs);
    case Kind::FloorDiv:
      return domain.floorDiv(lhs, rhs);
    case Kind::CeilDiv:
      return domain.ceilDiv(lhs, rhs);
    case Kind::Mod:
      return domain.mod(lhs, rhs);
    default:
      llvm_unreachable("not a binary step");
    }
  }

  static void compile(AffineExpr expr, Program &program) {
    switch (expr.getKind()) {
    case AffineExprKind::Constant:
      program.push_back({Kind::Constant, cast<AffineConstantExpr>(expr).getValue()});
      return;
    case AffineExprKind::DimId:
      program.push_back({cast<AffineDimExpr>(expr).getPosition() == 0
                             ? Kind::Thread
                             : Kind::Register});
      return;
    case AffineExprKind::SymbolId:
      llvm_unreachable("layout maps have no symbols");
    default:
      break;
    }
    auto binary = cast<AffineBinaryOpExpr>(expr);
    compile(binary.getLHS(), program);
    compile(binary.getRHS(), program);
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      program.push_back({Kind::Add});
      return;
    case AffineExprKind::Mul:
      program.push_back({Kind::Mul});
      return;
    case AffineExprKind::FloorDiv:
      program.push_back({Kind::FloorDiv});
      return;
    case AffineExprKind::CeilDiv:
      program.push_back({Kind::CeilDiv});
      return;
    case AffineExprKind::Mod:
      program.push_back({Kind::Mod});
      return;
    default:
      llvm_unreachable("not an affine binary expression");
    }
  }

  SmallVector<Program, 4> programs;
};

/// The coordinates of every (thread, register) of a layout, evaluated once:
/// for a LayoutAttr, the context's memo (LayoutQueryCache).
struct CoordinateTable {
  explicit CoordinateTable(LayoutAttr layout);
  CoordinateTable(AffineMap map, int64_t threads, int64_t registers)
      : registers(registers), rank(map.getNumResults()),
        values(std::make_shared<const std::vector<int64_t>>(
            LayoutEvaluator(map).table(threads, registers))) {}

  ArrayRef<int64_t> operator()(int64_t thread, int64_t reg) const {
    return ArrayRef<int64_t>(*values).slice((thread * registers + reg) * rank,
                                            rank);
  }

  int64_t registers, rank;
  std::shared_ptr<const std::vector<int64_t>> values;
};
} // namespace

/// The context's memo of layout queries.
static LayoutQueryCache &getLayoutQueryCache(LayoutAttr layout) {
  return cast<TileDialect>(layout.getDialect()).getLayoutQueryCache();
}

CoordinateTable::CoordinateTable(LayoutAttr layout)
    : registers(layout.getRegisters()), rank(layout.getShape().size()),
      values(getLayoutQueryCache(layout).getCoordinates(layout)) {}

SmallVector<int64_t> LayoutAttr::getCoordinates(int64_t thread,
                                                int64_t registerIndex) const {
  int64_t dims[2] = {thread, registerIndex};
  SmallVector<int64_t> coordinates;
  for (AffineExpr result : getMap().getResults())
    coordinates.push_back(evaluate(result, dims));
  return coordinates;
}

int64_t LayoutAttr::getNumElements() const {
  int64_t count = 1;
  for (int64_t extent : getShape())
    count *= extent;
  return count;
}

/// Row-major linear index of `coordinates` in `shape`, or -1 when outside.
static int64_t linearize(ArrayRef<int64_t> coordinates,
                         ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [coordinate, extent] : llvm::zip(coordinates, shape)) {
    if (coordinate < 0 || coordinate >= extent)
      return -1;
    linear = linear * extent + coordinate;
  }
  return linear;
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, int64_t threads,
                                 int64_t registers, AffineMap map) {
  if (shape.empty() || llvm::any_of(shape, [](int64_t e) { return e <= 0; }))
    return emitError() << "a fragment layout needs a non-empty shape of "
                          "positive extents";
  if (threads <= 0 || registers <= 0)
    return emitError() << "a fragment layout needs positive 'threads' and "
                          "'registers'";
  if (map.getNumDims() != 2 || map.getNumSymbols() != 0 ||
      map.getNumResults() != shape.size())
    return emitError() << "a fragment layout's map takes (thread, register) "
                          "and gives one coordinate per dimension of the "
                          "shape ("
                       << shape.size() << "); got " << AffineMapAttr::get(map);
  int64_t elements = 1;
  for (int64_t extent : shape) {
    if (extent > kMaxFragmentElements ||
        elements * extent > kMaxFragmentElements)
      return emitError() << "a fragment of more than " << kMaxFragmentElements
                         << " elements is too large for registers";
    elements *= extent;
  }
  if (threads > kMaxFragmentElements || registers > kMaxFragmentElements)
    return emitError() << "a fragment layout's threads and registers are at "
                          "most "
                       << kMaxFragmentElements;
  if (threads * registers > kMaxFragmentElements)
    return emitError() << "a fragment layout of " << threads << " threads x "
                       << registers << " registers is too large (at most "
                       << kMaxFragmentElements << " pairs)";
  if (elements > kMaxFragmentElements)
    return emitError() << "a fragment of " << elements
                       << " elements is too large for registers (at most "
                       << kMaxFragmentElements << ")";
  if (threads * registers < elements)
    return emitError() << threads << " threads x " << registers
                       << " registers cannot hold the " << elements
                       << " elements of the tile";
  // Exactly as many registers as elements: each element held once. More:
  // a replicated layout (a reduction's result, held by every thread that
  // held part of its row), which must still hold every element.
  bool replicated = threads * registers > elements;
  std::vector<bool> seen(elements, false);
  CoordinateTable coordinatesOf(map, threads, registers);
  for (int64_t thread = 0; thread < threads; ++thread) {
    for (int64_t reg = 0; reg < registers; ++reg) {
      ArrayRef<int64_t> coordinates = coordinatesOf(thread, reg);
      int64_t linear = linearize(coordinates, shape);
      if (linear < 0 || (seen[linear] && !replicated)) {
        InFlightDiagnostic diag = emitError();
        diag << "thread " << thread << ", register " << reg << " maps to ";
        diag << "(";
        llvm::interleaveComma(coordinates, diag);
        diag << ")"
             << (linear < 0 ? ", outside the tile"
                            : ", an element another register holds too")
             << ": a fragment layout of as many registers as elements must "
                "hold each element exactly once";
        return diag;
      }
      seen[linear] = true;
    }
  }
  if (replicated) {
    auto missed = llvm::find(seen, false);
    if (missed != seen.end())
      return emitError() << "a replicated fragment layout must hold every "
                            "element, but element "
                         << (missed - seen.begin())
                         << " (row-major) is held by no thread";
  }
  return success();
}

LayoutAttr tile::getBlockedLayout(MLIRContext *context, ArrayRef<int64_t> shape,
                                  int64_t threads, int64_t run) {
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  if (run <= 0 || threads <= 0 || elements % (threads * run) != 0 ||
      shape.back() % run != 0)
    return nullptr;
  AffineExpr thread = getAffineDimExpr(0, context);
  AffineExpr reg = getAffineDimExpr(1, context);
  AffineExpr linear =
      ((reg.floorDiv(run)) * threads + thread) * run + reg % run;
  SmallVector<AffineExpr> results;
  int64_t stride = elements;
  for (auto [dim, extent] : llvm::enumerate(shape)) {
    stride /= extent;
    AffineExpr coordinate = linear.floorDiv(stride);
    results.push_back(dim == 0 ? coordinate : coordinate % extent);
  }
  auto map = AffineMap::get(2, 0, results, context);
  return LayoutAttr::get(context, shape, threads, elements / threads, map);
}

std::optional<int64_t> tile::getBlockedRun(ArrayRef<int64_t> shape,
                                           int64_t threads, Type elementType) {
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  if (elements <= 0)
    return std::nullopt;
  int64_t bytes = elementType.isIntOrFloat()
                      ? llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8)
                      : 4;
  for (int64_t run = std::max<int64_t>(1, 16 / bytes); run >= 1; run /= 2)
    if (shape.back() % run == 0 && elements % (threads * run) == 0)
      return run;
  return std::nullopt;
}

LayoutAttr tile::getMmaAccumulatorLayout(MLIRContext *context,
                                         ArrayRef<int64_t> shape,
                                         int64_t warpsM, int64_t warpsN) {
  if (shape.size() != 2 || warpsM <= 0 || warpsN <= 0 ||
      shape[0] % (warpsM * kMmaTileRows) != 0 ||
      shape[1] % (warpsN * kMmaTileCols) != 0)
    return nullptr;
  int64_t warpRows = shape[0] / warpsM, warpCols = shape[1] / warpsN;
  int64_t tilesN = warpCols / kMmaTileCols;
  AffineExpr thread = getAffineDimExpr(0, context);
  AffineExpr reg = getAffineDimExpr(1, context);
  // Divisions of divisions written as one, so the map reads as the formula.
  AffineExpr row = thread.floorDiv(kWarpSize * warpsN) * warpRows +
                   reg.floorDiv(4 * tilesN) * kMmaTileRows +
                   (thread % kWarpSize).floorDiv(4) + (reg % 4).floorDiv(2) * 8;
  AffineExpr col = thread.floorDiv(kWarpSize) % warpsN * warpCols +
                   reg.floorDiv(4) % tilesN * kMmaTileCols + thread % 4 * 2 +
                   reg % 2;
  auto map = AffineMap::get(2, 0, {row, col}, context);
  int64_t threads = warpsM * warpsN * kWarpSize;
  return LayoutAttr::get(context, shape, threads, shape[0] * shape[1] / threads,
                         map);
}

LayoutAttr tile::getTransposedLayout(LayoutAttr layout) {
  if (!layout || layout.getShape().size() != 2)
    return nullptr;
  AffineMap map = layout.getMap();
  auto transposed = AffineMap::get(
      map.getNumDims(), map.getNumSymbols(),
      {map.getResult(1), map.getResult(0)}, layout.getContext());
  ArrayRef<int64_t> shape = layout.getShape();
  return LayoutAttr::get(layout.getContext(), {shape[1], shape[0]},
                         layout.getThreads(), layout.getRegisters(),
                         transposed);
}

int64_t tile::getTF32KOrder(int64_t slot) {
  assert(slot >= 0 && slot < 8 && "an m16n8k8 step has 8 K slots");
  int64_t q = slot % 4;
  int64_t low = 2 * q + ((q ^ (q / 2)) & 1);
  return slot < 4 ? low : low ^ 1;
}

std::optional<std::pair<int64_t, int64_t>>
tile::chooseMmaWarps(int64_t m, int64_t n, int64_t warps) {
  std::optional<std::pair<int64_t, int64_t>> best;
  double bestScore = 0;
  for (int64_t warpsM = 1; warpsM <= warps; ++warpsM) {
    if (warps % warpsM != 0)
      continue;
    int64_t warpsN = warps / warpsM;
    if (m % (warpsM * kMmaTileRows) != 0 || n % (warpsN * kMmaTileCols) != 0)
      continue;
    double rows = double(m / warpsM), cols = double(n / warpsN);
    // Squareness first; a warp width of whole n16 pairs breaks ties.
    double score = std::fabs(std::log2(rows / cols)) +
                   ((n / warpsN) % 16 == 0 ? 0.0 : 0.5);
    if (!best || score < bestScore) {
      best = std::make_pair(warpsM, warpsN);
      bestScore = score;
    }
  }
  return best;
}

LayoutAttr tile::getReducedLayout(LayoutAttr layout, int64_t dim) {
  ArrayRef<int64_t> shape = layout.getShape();
  AffineMap map = layout.getMap();
  MLIRContext *context = map.getContext();
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return nullptr;
  SmallVector<int64_t> reducedShape;
  SmallVector<AffineExpr> results;
  for (auto [i, extent] : llvm::enumerate(shape)) {
    if (static_cast<int64_t>(i) == dim)
      continue;
    reducedShape.push_back(extent);
    results.push_back(map.getResult(i));
  }
  if (reducedShape.empty()) {
    reducedShape.push_back(1);
    results.push_back(getAffineConstantExpr(0, context));
  }
  return LayoutAttr::get(context, reducedShape, layout.getThreads(),
                         layout.getRegisters(),
                         AffineMap::get(2, 0, results, context));
}

static std::optional<SmallVector<int64_t>>
computeRegisterMapping(LayoutAttr from, LayoutAttr to);
static int64_t computeContiguousRun(LayoutAttr layout, int64_t maxRun);

template <typename Map, typename Compute>
typename Map::mapped_type
LayoutQueryCache::lookupOrCompute(Map &memo, const typename Map::key_type &key,
                                  Compute compute) {
  {
    llvm::sys::SmartScopedLock<true> lock(mutex);
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
  }
  typename Map::mapped_type value = compute();
  llvm::sys::SmartScopedLock<true> lock(mutex);
  return memo.try_emplace(key, std::move(value)).first->second;
}

std::shared_ptr<const std::vector<int64_t>>
LayoutQueryCache::getCoordinates(LayoutAttr layout) {
  return lookupOrCompute(coordinates, layout, [&] {
    return std::make_shared<const std::vector<int64_t>>(
        LayoutEvaluator(layout.getMap())
            .table(layout.getThreads(), layout.getRegisters()));
  });
}

std::shared_ptr<const std::vector<int64_t>>
LayoutQueryCache::getHeldElements(LayoutAttr layout) {
  return lookupOrCompute(held, layout, [&] {
    auto elements = std::make_shared<std::vector<int64_t>>();
    elements->reserve(layout.getThreads() * layout.getRegisters());
    CoordinateTable coordinatesOf(layout);
    for (int64_t thread = 0; thread < layout.getThreads(); ++thread)
      for (int64_t reg = 0; reg < layout.getRegisters(); ++reg)
        elements->push_back(
            linearize(coordinatesOf(thread, reg), layout.getShape()));
    return std::shared_ptr<const std::vector<int64_t>>(std::move(elements));
  });
}

std::optional<SmallVector<int64_t>>
LayoutQueryCache::getRegisterMapping(LayoutAttr from, LayoutAttr to) {
  return lookupOrCompute(registerMappings, {from, to},
                         [&] { return computeRegisterMapping(from, to); });
}

int64_t LayoutQueryCache::getContiguousRun(LayoutAttr layout,
                                           int64_t maxRun) {
  return lookupOrCompute(contiguousRuns, {layout, maxRun}, [&] {
    return computeContiguousRun(layout, maxRun);
  });
}

AffineMap LayoutQueryCache::getRegisterCoordinateMap(LayoutAttr layout,
                                                     int64_t reg,
                                                     unsigned dim) {
  return lookupOrCompute(registerCoordinateMaps, {layout, reg, dim}, [&] {
    MLIRContext *context = layout.getContext();
    AffineExpr expr = layout.getMap().getResult(dim).replace(
        getAffineDimExpr(1, context), getAffineConstantExpr(reg, context));
    return AffineMap::get(1, 0, simplifyAffineExpr(expr, 2, 0), context);
  });
}

AffineMap tile::getRegisterCoordinateMap(LayoutAttr layout, int64_t reg,
                                         unsigned dim) {
  return getLayoutQueryCache(layout).getRegisterCoordinateMap(layout, reg, dim);
}

/// The row-major linear index of the element each (thread, register)
/// holds, thread-major, from the context's memo.
static std::shared_ptr<const std::vector<int64_t>>
getHeldElements(LayoutAttr layout) {
  return getLayoutQueryCache(layout).getHeldElements(layout);
}

std::optional<SmallVector<int64_t>> tile::mapRegisters(LayoutAttr from,
                                                       LayoutAttr to) {
  return getLayoutQueryCache(from).getRegisterMapping(from, to);
}

static std::optional<SmallVector<int64_t>>
computeRegisterMapping(LayoutAttr from, LayoutAttr to) {
  if (from.getShape() != to.getShape() || from.getThreads() != to.getThreads())
    return std::nullopt;
  int64_t threads = from.getThreads();
  // A register's column of elements over all threads identifies what it
  // holds.
  auto columns = [&](LayoutAttr layout) {
    std::shared_ptr<const std::vector<int64_t>> heldElements =
        getHeldElements(layout);
    ArrayRef<int64_t> held = *heldElements;
    int64_t registers = layout.getRegisters();
    std::vector<std::vector<int64_t>> result(registers);
    for (int64_t reg = 0; reg < registers; ++reg)
      for (int64_t thread = 0; thread < threads; ++thread)
        result[reg].push_back(held[thread * registers + reg]);
    return result;
  };
  std::map<std::vector<int64_t>, int64_t> registerOfColumn;
  for (auto [reg, column] : llvm::enumerate(columns(to)))
    registerOfColumn.try_emplace(std::move(column), reg);
  SmallVector<int64_t> mapping;
  for (const std::vector<int64_t> &column : columns(from)) {
    auto it = registerOfColumn.find(column);
    if (it == registerOfColumn.end())
      return std::nullopt;
    mapping.push_back(it->second);
  }
  return mapping;
}

bool tile::isSameDistribution(LayoutAttr a, LayoutAttr b) {
  return a == b || (mapRegisters(a, b) && mapRegisters(b, a));
}

RegisterSlots tile::getRegisterSlots(LayoutAttr layout) {
  int64_t threads = layout.getThreads(), registers = layout.getRegisters();
  RegisterSlots slots;
  if (!layout.isReplicated()) {
    for (int64_t reg = 0; reg < registers; ++reg) {
      slots.slotOf.push_back(reg);
      slots.representative.push_back(reg);
    }
    return slots;
  }
  std::shared_ptr<const std::vector<int64_t>> heldElements =
      getHeldElements(layout);
  ArrayRef<int64_t> held = *heldElements;
  // A register's column of elements over all threads identifies its slot.
  std::map<std::vector<int64_t>, int64_t> slotOfColumn;
  for (int64_t reg = 0; reg < registers; ++reg) {
    std::vector<int64_t> column;
    column.reserve(threads);
    for (int64_t thread = 0; thread < threads; ++thread)
      column.push_back(held[thread * registers + reg]);
    auto [it, inserted] = slotOfColumn.try_emplace(std::move(column),
                                                   slots.representative.size());
    if (inserted)
      slots.representative.push_back(reg);
    slots.slotOf.push_back(it->second);
  }
  return slots;
}

std::optional<int64_t> tile::getReplicatedThreadBits(LayoutAttr layout) {
  int64_t threads = layout.getThreads(), registers = layout.getRegisters();
  if (!layout.isReplicated())
    return 0;
  std::shared_ptr<const std::vector<int64_t>> heldElements =
      getHeldElements(layout);
  ArrayRef<int64_t> held = *heldElements;
  int64_t mask = 0;
  for (int64_t bit = 1; bit < threads; bit <<= 1) {
    bool replicated = true;
    for (int64_t thread = 0; replicated && thread < threads; ++thread) {
      int64_t partner = thread ^ bit;
      if (partner >= threads) {
        replicated = false;
        break;
      }
      for (int64_t reg = 0; reg < registers; ++reg)
        if (held[thread * registers + reg] != held[partner * registers + reg]) {
          replicated = false;
          break;
        }
    }
    if (replicated)
      mask |= bit;
  }
  // The holders of an element must be one thread up to those bits, in
  // registers of one slot.
  RegisterSlots slots = getRegisterSlots(layout);
  SmallVector<std::pair<int64_t, int64_t>> holder(layout.getNumElements(),
                                                  {-1, -1});
  for (int64_t thread = 0; thread < threads; ++thread)
    for (int64_t reg = 0; reg < registers; ++reg) {
      std::pair<int64_t, int64_t> key{thread & ~mask, slots.slotOf[reg]};
      auto &seen = holder[held[thread * registers + reg]];
      if (seen.first < 0)
        seen = key;
      else if (seen != key)
        return std::nullopt;
    }
  return mask;
}

SmallVector<ElementOwner> tile::getElementOwners(LayoutAttr layout) {
  SmallVector<ElementOwner> owners(layout.getNumElements());
  CoordinateTable coordinatesOf(layout);
  for (int64_t thread = 0; thread < layout.getThreads(); ++thread)
    for (int64_t reg = 0; reg < layout.getRegisters(); ++reg) {
      int64_t linear =
          linearize(coordinatesOf(thread, reg), layout.getShape());
      if (linear >= 0 && owners[linear].thread < 0)
        owners[linear] = {thread, reg};
    }
  return owners;
}

std::optional<MatrixBlocks> tile::getMatrixBlocks(LayoutAttr layout) {
  int64_t registers = layout.getRegisters();
  int64_t threads = layout.getThreads();
  if (layout.getShape().size() != 2 || registers % 2 != 0 ||
      threads % kWarpSize != 0)
    return std::nullopt;
  CoordinateTable coordinatesOf(layout);
  MatrixBlocks blocks;
  blocks.warps = threads / kWarpSize;
  blocks.pairs = registers / 2;
  for (int64_t pair = 0; pair < blocks.pairs; ++pair) {
    ArrayRef<int64_t> corner = coordinatesOf(0, 2 * pair);
    if (corner[1] % 8 != 0)
      return std::nullopt;
    blocks.columns.push_back(corner[1]);
  }
  for (int64_t warp = 0; warp < blocks.warps; ++warp) {
    for (int64_t pair = 0; pair < blocks.pairs; ++pair) {
      ArrayRef<int64_t> corner = coordinatesOf(warp * kWarpSize, 2 * pair);
      if (corner[1] != blocks.columns[pair])
        return std::nullopt;
      blocks.rows.push_back(corner[0]);
      for (int64_t lane = 0; lane < kWarpSize; ++lane) {
        int64_t thread = warp * kWarpSize + lane;
        ArrayRef<int64_t> first = coordinatesOf(thread, 2 * pair);
        ArrayRef<int64_t> second = coordinatesOf(thread, 2 * pair + 1);
        if (first[0] != corner[0] + lane / 4 ||
            first[1] != corner[1] + 2 * (lane % 4) || second[0] != first[0] ||
            second[1] != first[1] + 1)
          return std::nullopt;
      }
    }
  }
  return blocks;
}

int64_t tile::getContiguousRun(LayoutAttr layout, int64_t maxRun) {
  return getLayoutQueryCache(layout).getContiguousRun(layout, maxRun);
}

static int64_t computeContiguousRun(LayoutAttr layout, int64_t maxRun) {
  int64_t registers = layout.getRegisters();
  CoordinateTable coordinatesOf(layout);
  for (int64_t run = llvm::PowerOf2Ceil(maxRun); run > 1; run /= 2) {
    if (run > maxRun || registers % run != 0)
      continue;
    bool contiguous = true;
    for (int64_t thread = 0; contiguous && thread < layout.getThreads();
         ++thread) {
      for (int64_t start = 0; contiguous && start < registers; start += run) {
        ArrayRef<int64_t> first = coordinatesOf(thread, start);
        if (first.back() % run != 0) {
          contiguous = false;
          break;
        }
        for (int64_t k = 1; k < run; ++k) {
          ArrayRef<int64_t> next = coordinatesOf(thread, start + k);
          if (next.drop_back() != first.drop_back() ||
              next.back() != first.back() + k) {
            contiguous = false;
            break;
          }
        }
      }
    }
    if (contiguous)
      return run;
  }
  return 1;
}

std::optional<LaneExchange> tile::getLaneExchange(LayoutAttr layout,
                                                  int64_t run,
                                                  int64_t widerRun) {
  int64_t threads = layout.getThreads();
  int64_t registers = layout.getRegisters();
  if (run < 1 || widerRun <= run || widerRun % run != 0 ||
      !llvm::isPowerOf2_64(widerRun / run) || registers % run != 0 ||
      layout.isReplicated())
    return std::nullopt;
  int64_t lanes = widerRun / run;
  int64_t runs = registers / run;
  if (runs % lanes != 0)
    return std::nullopt;
  // The coordinates of every (thread, register), enumerated once.
  CoordinateTable at(layout);
  // `b` is `a` moved by `offset` along the innermost dimension.
  auto isAfter = [](ArrayRef<int64_t> a, ArrayRef<int64_t> b, int64_t offset) {
    return a.drop_back() == b.drop_back() && b.back() == a.back() + offset;
  };
  for (int64_t stride = 1; stride * lanes <= kWarpSize; stride *= 2) {
    if (threads % (stride * lanes) != 0)
      continue;
    // Lane q of each group continues lane 0's runs, q * run further.
    bool lanesFit = true;
    for (int64_t t = 0; lanesFit && t < threads; ++t) {
      int64_t q = (t / stride) % lanes;
      int64_t base = t - q * stride;
      for (int64_t r = 0; lanesFit && r < registers; ++r)
        lanesFit = isAfter(at(base, r), at(t, r), q * run);
    }
    if (!lanesFit)
      continue;
    // Sets of `lanes` runs of a thread, each `spacing` (a multiple of
    // `widerRun`, the same for every set) after the last, the same in every
    // thread.
    std::map<SmallVector<int64_t>, int64_t> runAt;
    for (int64_t j = 0; j < runs; ++j)
      runAt[SmallVector<int64_t>(at(0, j * run))] = j;
    int64_t extent = layout.getShape().back();
    bool runsFit = false;
    LaneExchange exchange;
    for (int64_t spacing = widerRun; !runsFit && spacing * (lanes - 1) < extent;
         spacing += widerRun) {
      SmallVector<bool> grouped(runs, false);
      exchange = LaneExchange{lanes, stride, spacing, {}};
      runsFit = true;
      for (int64_t j = 0; runsFit && j < runs; ++j) {
        if (grouped[j])
          continue;
        SmallVector<int64_t> group;
        for (int64_t i = 0; runsFit && i < lanes; ++i) {
          SmallVector<int64_t> start(at(0, j * run));
          start.back() += i * spacing;
          auto it = runAt.find(start);
          runsFit = it != runAt.end() && !grouped[it->second];
          if (runsFit) {
            grouped[it->second] = true;
            group.push_back(it->second * run);
          }
        }
        for (int64_t t = 0; runsFit && t < threads; ++t)
          for (int64_t i = 1; runsFit && i < lanes; ++i)
            runsFit = isAfter(at(t, group.front()), at(t, group[i]),
                              i * spacing);
        exchange.groups.push_back(std::move(group));
      }
    }
    if (runsFit)
      return exchange;
  }
  return std::nullopt;
}

/// Calls `fn(grid, rows, cols)` for each 2-D slice of the layout (leading
/// dimensions enumerated) with the owners of its elements.
static void forEachGrid(LayoutAttr layout,
                        function_ref<void(ArrayRef<int64_t>, int64_t, int64_t,
                                          ArrayRef<ElementOwner>)>
                            fn) {
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t cols = shape.back();
  int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  int64_t gridSize = rows * cols;
  SmallVector<ElementOwner> owners = getElementOwners(layout);
  ArrayRef<int64_t> leading =
      shape.size() > 2 ? shape.drop_back(2) : ArrayRef<int64_t>();
  int64_t grids = layout.getNumElements() / gridSize;
  for (int64_t grid = 0; grid < grids; ++grid) {
    SmallVector<int64_t> position(leading.size());
    int64_t rest = grid;
    for (int64_t dim = leading.size() - 1; dim >= 0; --dim) {
      position[dim] = rest % leading[dim];
      rest /= leading[dim];
    }
    fn(position, rows, cols,
       ArrayRef<ElementOwner>(owners).slice(grid * gridSize, gridSize));
  }
}

std::string tile::renderLayoutText(LayoutAttr layout) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t width = std::to_string(layout.getThreads() - 1).size() +
                  std::to_string(layout.getRegisters() - 1).size() + 2;
  forEachGrid(layout, [&](ArrayRef<int64_t> position, int64_t rows,
                          int64_t cols, ArrayRef<ElementOwner> owners) {
    if (!position.empty()) {
      os << "[";
      llvm::interleaveComma(position, os);
      os << ", :, :]\n";
    }
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t col = 0; col < cols; ++col) {
        const ElementOwner &owner = owners[row * cols + col];
        std::string cell = "T" + std::to_string(owner.thread) + ":" +
                           std::to_string(owner.registerIndex);
        os << (col ? " " : "") << llvm::left_justify(cell, width);
      }
      os << "\n";
    }
  });
  return text;
}

std::string tile::renderLayoutSVG(LayoutAttr layout, StringRef title) {
  constexpr int kCellWidth = 44, kCellHeight = 22, kMargin = 30;
  std::string text;
  llvm::raw_string_ostream os(text);
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t cols = shape.back();
  int64_t rows = layout.getNumElements() / cols;
  int64_t width = 2 * kMargin + cols * kCellWidth;
  int64_t height = 2 * kMargin + rows * kCellHeight;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
     << "\" height=\"" << height << "\" font-family=\"monospace\" "
     << "font-size=\"9\">\n";
  os << "<text x=\"" << kMargin << "\" y=\"" << kMargin / 2 + 4 << "\">";
  for (char c : title) {
    if (c == '<')
      os << "&lt;";
    else if (c == '>')
      os << "&gt;";
    else if (c == '&')
      os << "&amp;";
    else
      os << c;
  }
  os << "</text>\n";
  int64_t warps = llvm::divideCeil(layout.getThreads(), kWarpSize);
  int64_t rowBase = 0;
  forEachGrid(layout, [&](ArrayRef<int64_t>, int64_t gridRows, int64_t,
                          ArrayRef<ElementOwner> owners) {
    for (int64_t row = 0; row < gridRows; ++row) {
      for (int64_t col = 0; col < cols; ++col) {
        const ElementOwner &owner = owners[row * cols + col];
        int64_t warp = owner.thread / kWarpSize;
        // A hue per warp, lighter for higher lanes.
        int hue =
            int(360.0 * double(warp) / double(std::max<int64_t>(warps, 1)));
        int light = 55 + int(30.0 * double(owner.thread % kWarpSize) /
                             double(kWarpSize));
        int64_t x = kMargin + col * kCellWidth;
        int64_t y = kMargin + (rowBase + row) * kCellHeight;
        os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCellWidth
           << "\" height=\"" << kCellHeight << "\" fill=\"hsl(" << hue
           << ",70%," << light << "%)\" stroke=\"white\"/>";
        os << "<text x=\"" << x + 3 << "\" y=\"" << y + 14 << "\">T"
           << owner.thread << ":" << owner.registerIndex << "</text>\n";
      }
    }
    rowBase += gridRows;
  });
  os << "</svg>\n";
  return text;
}
