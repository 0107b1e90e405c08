//===- KernelPlan.cpp - What tile-run allocates and launches --------------===//

#include "tile/Runner/KernelPlan.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;

namespace tile::runner {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string printType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::optional<ElementKind> getElementKind(Type type) {
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF64())
    return ElementKind::F64;
  if (type.isIndex() || type.isInteger(64))
    return ElementKind::I64;
  if (type.isInteger(32))
    return ElementKind::I32;
  if (type.isInteger(16))
    return ElementKind::I16;
  if (type.isInteger(8))
    return ElementKind::I8;
  if (type.isInteger(1))
    return ElementKind::I1;
  return std::nullopt;
}

/// Where a buffer value comes from.
struct BufferRoot {
  /// The kernel argument it is a view of, if any.
  BlockArgument argument;
  /// True when it is a view of a buffer the kernel allocates itself.
  bool allocated = false;
};

/// Follows views from `value` back to a kernel argument or an allocation.
/// Anything else (an scf.for iter_arg, an arith.select of two buffers) is
/// neither: it could be any argument.
static BufferRoot getBufferRoot(Value value, mlir::tile::KernelOp kernel) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    BufferRoot root;
    auto effects = dyn_cast<MemoryEffectOpInterface>(def);
    root.allocated =
        isa<memref::GetGlobalOp>(def) ||
        (effects &&
         effects.getEffectOnValue<MemoryEffects::Allocate>(value).has_value());
    return root;
  }
  BufferRoot root;
  auto arg = cast<BlockArgument>(value);
  if (arg.getOwner() == &kernel.getBody().front())
    root.argument = arg;
  return root;
}

/// Marks which memref arguments the kernel reads and writes. An access whose
/// buffer cannot be traced to one argument counts as reading and writing
/// every buffer argument: a missed output would go unchecked, and a buffer
/// that is only maybe written must start from its input, not from poison.
static void findAccesses(mlir::tile::KernelOp kernel, KernelPlan &plan) {
  auto touch = [&](Value buffer, bool read, bool written) {
    BufferRoot root = getBufferRoot(buffer, kernel);
    if (root.allocated)
      return;
    if (!root.argument)
      read = written = true;
    for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
      if (!argument.isBuffer ||
          (root.argument && root.argument.getArgNumber() != index))
        continue;
      argument.read |= read;
      argument.written |= written;
    }
  };
  kernel.getBody().walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      // Unknown ops (inline assembly, calls) may do anything to a buffer.
      for (Value operand : op->getOperands())
        if (isa<BaseMemRefType>(operand.getType()))
          touch(operand, /*read=*/true, /*written=*/true);
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value value = effect.getValue();
      if (!value || !isa<BaseMemRefType>(value.getType()))
        continue;
      touch(value, isa<MemoryEffects::Read>(effect.getEffect()),
            isa<MemoryEffects::Write>(effect.getEffect()));
    }
  });
}

/// The largest finite value of a float kind.
static double getLargestFinite(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return 65504.0;
  case ElementKind::BF16:
    return 3.3895313892515355e38;
  case ElementKind::F32:
    return std::numeric_limits<float>::max();
  default:
    return std::numeric_limits<double>::max();
  }
}

/// Parses the `--arg` value of a scalar: a number for floats, an integer
/// that fits the width for integers (signed or unsigned spelling).
static llvm::Error parseScalar(ArgumentPlan &argument, llvm::StringRef text) {
  if (isFloat(argument.kind)) {
    if (text.getAsDouble(argument.scalar))
      return makeError(llvm::formatv("--arg {0}={1}: not a number",
                                     argument.name, text));
    // Infinity and NaN only when spelled so, not from an overflow.
    double largest = getLargestFinite(argument.kind);
    if (std::isfinite(argument.scalar) ? std::fabs(argument.scalar) > largest
                                       : !text.contains_insensitive("inf") &&
                                             !text.contains_insensitive("nan"))
      return makeError(llvm::formatv(
          "--arg {0}={1}: out of the range of {2} (largest finite: {3:e})",
          argument.name, text, printType(argument.type), largest));
    return llvm::Error::success();
  }
  unsigned width = argument.type.isIndex()
                       ? 64
                       : argument.type.getIntOrFloatBitWidth();
  int64_t value = 0;
  uint64_t unsignedValue = 0;
  bool fits;
  if (!text.getAsInteger(0, value)) {
    fits = width >= 64 || (value >= -(int64_t(1) << (width - 1)) &&
                           value < (int64_t(1) << width));
  } else if (!text.getAsInteger(0, unsignedValue)) {
    value = static_cast<int64_t>(unsignedValue);
    fits = width >= 64;
  } else {
    return makeError(llvm::formatv("--arg {0}={1}: not an integer",
                                   argument.name, text));
  }
  if (!fits)
    return makeError(llvm::formatv(
        "--arg {0}={1}: does not fit in {2} bits", argument.name, text,
        width));
  argument.integer = value;
  return llvm::Error::success();
}

uint64_t ArgumentPlan::getScalarBits() const {
  HostBuffer value(kind, {});
  if (isFloat(kind))
    value.set(0, scalar);
  else
    value.setInteger(0, integer);
  uint64_t bits = 0;
  std::memcpy(&bits, value.getData(), value.getBytes());
  return bits;
}

std::string ArgumentPlan::formatScalar() const {
  if (isFloat(kind))
    return llvm::formatv("{0:e17}", scalar).str();
  return std::to_string(integer);
}

/// Copies of the buffers tile-run holds at once: the run, the inputs kept
/// for the reference, the reference's run.
static constexpr uint64_t kHostCopies = 3;

/// Refuses buffers whose bytes overflow or exceed the machine's memory
/// (kHostCopies times), before anything is allocated.
static llvm::Error checkHostMemory(const KernelPlan &plan) {
  uint64_t total = 0;
  for (const ArgumentPlan &argument : plan.arguments) {
    if (!argument.isBuffer)
      continue;
    uint64_t bytes = getElementBytes(argument.kind);
    for (int64_t size : argument.shape)
      if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(size), &bytes))
        return makeError(
            llvm::formatv("argument '{0}': its size in bytes overflows 64 bits",
                          argument.name));
    if (__builtin_add_overflow(total, bytes, &total))
      return makeError("the buffers' size in bytes overflows 64 bits");
  }
  uint64_t available = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                       static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  // An address-space limit (ulimit -v) caps it too.
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    available = std::min<uint64_t>(available, limit.rlim_cur);
  if (total > available / kHostCopies)
    return makeError(llvm::formatv(
        "the buffers take {0} bytes; tile-run holds {1} copies in host "
        "memory, more than the {2} bytes this process may use",
        total, kHostCopies, available));
  return llvm::Error::success();
}

llvm::Expected<KernelPlan>
planKernel(mlir::tile::KernelOp kernel, const PlanOptions &options) {
  KernelPlan plan;
  plan.kernel = kernel;
  auto hasArgument = [&](const std::string &name) {
    for (unsigned i = 0, e = kernel.getArgumentTypes().size(); i < e; ++i)
      if (kernel.getArgName(i) == name)
        return true;
    return false;
  };
  for (const auto &[name, shape] : options.shapes)
    if (!hasArgument(name))
      return makeError("--shape " + name + ": kernel '" +
                       kernel.getSymName() + "' has no argument '" + name +
                       "'");
  for (const auto &[name, value] : options.values)
    if (!hasArgument(name))
      return makeError("--arg " + name + ": kernel '" + kernel.getSymName() +
                       "' has no argument '" + name + "'");
  std::mt19937_64 engine(options.seed ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    ArgumentPlan argument;
    argument.name = kernel.getArgName(index);
    argument.type = type;
    Type element = type;
    if (auto memref = dyn_cast<MemRefType>(type)) {
      argument.isBuffer = true;
      element = memref.getElementType();
      auto given = options.shapes.find(argument.name);
      if (given != options.shapes.end()) {
        const std::vector<int64_t> &shape = given->second;
        bool fits = shape.size() == static_cast<size_t>(memref.getRank());
        for (size_t d = 0; fits && d < shape.size(); ++d)
          fits = memref.isDynamicDim(d) || memref.getDimSize(d) == shape[d];
        if (!fits)
          return makeError(llvm::formatv(
              "--shape {0}: the shape does not fit argument '{0}' of type {1}",
              argument.name, printType(type)));
        // The outermost size of a memref of rank 2 or more (its rows) is
        // free: only the sizes that set the row pitch need the multiple.
        if (std::optional<int64_t> multiple =
                mlir::tile::getDeclaredMultiple(kernel.getArguments()[index]))
          for (size_t d = shape.size() > 1 ? 1 : 0; d < shape.size(); ++d)
            if (memref.isDynamicDim(d) && shape[d] % *multiple != 0)
              return makeError(llvm::formatv(
                  "--shape {0}: size {1} of dimension {2} is not a multiple "
                  "of {3}, which argument '{0}' declares "
                  "({{tile.multiple_of = {3}})",
                  argument.name, shape[d], d, *multiple));
        argument.shape = shape;
      } else if (!memref.hasStaticShape()) {
        return makeError(llvm::formatv(
            "argument '{0}' has type {1}: give its shape with --shape {0}=...",
            argument.name, printType(type)));
      } else {
        argument.shape.assign(memref.getShape().begin(),
                              memref.getShape().end());
      }
    }
    std::optional<ElementKind> kind = getElementKind(element);
    if (!kind)
      return makeError(llvm::formatv(
          "argument '{0}': element type {1} is not supported by tile-run",
          argument.name, printType(element)));
    argument.kind = *kind;
    if (!argument.isBuffer) {
      auto given = options.values.find(argument.name);
      if (given != options.values.end()) {
        if (llvm::Error error = parseScalar(argument, given->second))
          return std::move(error);
      } else if (isFloat(*kind)) {
        argument.scalar = real(engine);
      } else {
        return makeError(llvm::formatv(
            "scalar argument '{0}' ({1}) needs a value: --arg {0}=...",
            argument.name, printType(type)));
      }
    }
    plan.arguments.push_back(std::move(argument));
  }
  if (llvm::Error error = checkHostMemory(plan))
    return std::move(error);
  findAccesses(kernel, plan);
  ArrayRef<int64_t> threads = kernel.getThreads();
  for (size_t d = 0; d < threads.size(); ++d)
    plan.block[d] = threads[d];
  if (llvm::Error error = evaluateGrid(plan))
    return std::move(error);
  return plan;
}

llvm::Error evaluateGrid(KernelPlan &plan) {
  mlir::tile::KernelOp kernel = plan.kernel;
  SmallVector<int64_t> dynamicExtents;
  Region &region = kernel.getGridSize();
  if (!region.empty()) {
    // Fold the region's ops with the arguments' shapes and values.
    Builder builder(kernel.getContext());
    llvm::DenseMap<Value, Attribute> known;
    for (auto [arg, argument] :
         llvm::zip(region.getArguments(), plan.arguments))
      if (!argument.isBuffer)
        known[arg] = isFloat(argument.kind)
                         ? Attribute(builder.getFloatAttr(arg.getType(),
                                                          argument.scalar))
                         : Attribute(builder.getIntegerAttr(
                               arg.getType(), argument.integer));
    for (Operation &op : region.front()) {
      if (auto yield = dyn_cast<mlir::tile::YieldOp>(op)) {
        for (Value value : yield.getValues()) {
          auto attr = dyn_cast_if_present<IntegerAttr>(known.lookup(value));
          if (!attr)
            return makeError("the grid_size region yields a value that "
                             "cannot be computed on the host");
          dynamicExtents.push_back(attr.getInt());
        }
        break;
      }
      if (auto dim = dyn_cast<memref::DimOp>(op)) {
        auto arg = dyn_cast<BlockArgument>(dim.getSource());
        auto index = dyn_cast_if_present<IntegerAttr>(
            known.lookup(dim.getIndex()));
        if (!arg || !index)
          return makeError("grid_size: 'memref.dim' must take an argument "
                           "and a constant dimension");
        ArrayRef<int64_t> shape = plan.arguments[arg.getArgNumber()].shape;
        if (!isa<MemRefType>(arg.getType()) || index.getInt() < 0 ||
            index.getInt() >= static_cast<int64_t>(shape.size()))
          return makeError(llvm::Twine("grid_size: 'memref.dim' of argument "
                                       "#") +
                           llvm::Twine(arg.getArgNumber()) + " asks for dimension " +
                           llvm::Twine(index.getInt()) + " of a rank-" +
                           llvm::Twine(shape.size()) + " buffer");
        known[dim.getResult()] =
            builder.getIndexAttr(shape[index.getInt()]);
        continue;
      }
      SmallVector<Attribute> operands;
      for (Value operand : op.getOperands())
        operands.push_back(known.lookup(operand));
      SmallVector<OpFoldResult> results;
      if (failed(op.fold(operands, results)) ||
          results.size() != op.getNumResults())
        return makeError(llvm::Twine("grid_size: cannot evaluate '") +
                         op.getName().getStringRef() + "' on the host");
      for (auto [result, folded] : llvm::zip(op.getResults(), results)) {
        if (auto attr = dyn_cast<Attribute>(folded))
          known[result] = attr;
        else
          known[result] = known.lookup(cast<Value>(folded));
      }
    }
  }
  ArrayRef<int64_t> grid = kernel.getGrid();
  unsigned next = 0;
  for (size_t d = 0; d < grid.size(); ++d) {
    int64_t extent =
        ShapedType::isDynamic(grid[d]) ? dynamicExtents[next++] : grid[d];
    if (extent < 1 || extent > 0x7fffffff)
      return makeError(llvm::formatv(
          "the grid extent along dimension {0} is {1}, outside [1, 2^31)", d,
          extent));
    plan.grid[d] = extent;
  }
  return llvm::Error::success();
}

} // namespace tile::runner
