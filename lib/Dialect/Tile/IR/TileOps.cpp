//===- TileOps.cpp - Operations of the tile dialect -----------------------===//
//
// Custom assembly, verifiers and folders of the tile ops.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "OpSyntax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "tile/Dialect/Tile/IR/Limits.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "tile/Dialect/Tile/IR/ThreadUniformity.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> tile::getDeclaredMultiple(Value memref) {
  auto argument = dyn_cast<BlockArgument>(memref);
  if (!argument)
    return std::nullopt;
  auto kernel = dyn_cast<KernelOp>(argument.getOwner()->getParentOp());
  if (!kernel || argument.getOwner() != &kernel.getBody().front())
    return std::nullopt;
  ArrayAttr attrs = kernel.getArgAttrsAttr();
  if (!attrs || argument.getArgNumber() >= attrs.size())
    return std::nullopt;
  auto multiple = cast<DictionaryAttr>(attrs[argument.getArgNumber()])
                      .getAs<IntegerAttr>(kMultipleOfAttr);
  if (!multiple)
    return std::nullopt;
  return multiple.getInt();
}

bool tile::isThreadGroupScope(Operation *op) {
  return isa<KernelOp, WarpSpecializeOp>(op) ||
         (isa<scf::IfOp>(op) && op->hasAttr(kRoleFirstAttr) &&
          op->hasAttr(kRoleThreadsAttr));
}

bool tile::holdsGemm(Operation *op) {
  return op->walk([](GemmOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

SmallVector<AllocSharedOp> tile::getSelectedSharedTiles(Value value) {
  if (auto alloc = value.getDefiningOp<AllocSharedOp>())
    return {alloc};
  auto select = value.getDefiningOp<arith::SelectOp>();
  if (!select)
    return {};
  SmallVector<AllocSharedOp> tiles =
      getSelectedSharedTiles(select.getTrueValue());
  SmallVector<AllocSharedOp> other =
      getSelectedSharedTiles(select.getFalseValue());
  if (tiles.empty() || other.empty())
    return {};
  for (AllocSharedOp alloc : other)
    if (!llvm::is_contained(tiles, alloc))
      tiles.push_back(alloc);
  return tiles;
}

ParseResult tile::detail::parseCheckedAttrDict(OpAsmParser &parser,
                                               OperationState &result,
                                               bool withKeyword) {
  SMLoc loc = parser.getCurrentLocation();
  if (withKeyword ? parser.parseOptionalAttrDictWithKeyword(result.attributes)
                  : parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return result.name.verifyInherentAttrs(result.attributes,
                                         [&] { return parser.emitError(loc); });
}

std::string tile::detail::formatExtents(ArrayRef<int64_t> extents) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(extents, os, [&](int64_t extent) {
    if (ShapedType::isDynamic(extent))
      os << '?';
    else
      os << extent;
  });
  os << ']';
  return text;
}

ParseResult tile::detail::parseExtentList(OpAsmParser &parser,
                                          SmallVectorImpl<int64_t> &extents,
                                          bool allowDynamic) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
        if (allowDynamic && succeeded(parser.parseOptionalQuestion())) {
          extents.push_back(ShapedType::kDynamic);
          return success();
        }
        int64_t extent;
        if (parser.parseInteger(extent))
          return failure();
        extents.push_back(extent);
        return success();
      });
}

void tile::detail::printExtentList(OpAsmPrinter &p, ArrayRef<int64_t> extents) {
  p << formatExtents(extents);
}

/// Parses a bare `x`, `y` or `z`.
static ParseResult parseDimKeyword(OpAsmParser &parser, DimAttr &dim) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Dim> value = symbolizeDim(keyword);
  if (!value)
    return parser.emitError(loc, "expected a dimension 'x', 'y' or 'z', got '")
           << keyword << "'";
  dim = DimAttr::get(parser.getContext(), *value);
  return success();
}

static void printDimKeyword(OpAsmPrinter &p, Operation *, DimAttr dim) {
  p << stringifyDim(dim.getValue());
}

/// Parses a bare reduction operator such as `add`.
static ParseResult parseReduceKindKeyword(OpAsmParser &parser,
                                          ReduceKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(keyword);
  if (!value)
    return parser.emitError(loc, "expected a reduction operator (add, mul, "
                                 "max, min, and, or, xor), got '")
           << keyword << "'";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReduceKindKeyword(OpAsmPrinter &p, Operation *,
                                   ReduceKindAttr kind) {
  p << stringifyReduceKind(kind.getValue());
}

/// The result type of `tile.thread_allreduce`: the value's type, or none
/// for the buffer form. Nothing is printed.
static ParseResult parseAllReduceResult(OpAsmParser &, Type valueType,
                                        Type &resultType) {
  if (!isa<MemRefType>(valueType))
    resultType = valueType;
  return success();
}

static void printAllReduceResult(OpAsmPrinter &, Operation *, Type, Type) {}

/// Parses `x, y` into an array of `DimAttr`.
static ParseResult parseDimList(OpAsmParser &parser, ArrayAttr &dims) {
  SmallVector<Attribute> list;
  auto parseOne = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<Dim> dim = symbolizeDim(keyword);
    if (!dim)
      return parser.emitError(loc, "expected a thread dimension 'x', 'y' or "
                                   "'z', got '")
             << keyword << "'";
    list.push_back(DimAttr::get(parser.getContext(), *dim));
    return success();
  };
  if (parser.parseCommaSeparatedList(parseOne))
    return failure();
  dims = parser.getBuilder().getArrayAttr(list);
  return success();
}

static void printDimList(OpAsmPrinter &p, Operation *, ArrayAttr dims) {
  llvm::interleaveComma(dims, p, [&](Attribute attr) {
    p << stringifyDim(cast<DimAttr>(attr).getValue());
  });
}

/// Returns the enclosing kernel of `op`, or emits an error and returns null.
KernelOp tile::detail::getEnclosingKernel(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel) {
    op->emitOpError("must be nested in a 'tile.kernel'");
    return nullptr;
  }
  if (kernel.getGridSize().isAncestor(op->getParentRegion())) {
    op->emitOpError("cannot be used in the 'grid_size' region of a kernel, "
                    "which is evaluated on the host before the launch");
    return nullptr;
  }
  return kernel;
}

/// Checks that thread dimension `dim` exists in `kernel`'s thread block.
static LogicalResult verifyThreadDim(Operation *op, KernelOp kernel, Dim dim) {
  ArrayRef<int64_t> threads = kernel.getThreads();
  if (static_cast<size_t>(dim) < threads.size())
    return success();
  return op->emitOpError("thread dimension '")
         << stringifyDim(dim) << "' does not exist: the kernel's thread block "
         << "is " << threads.size() << "-D (threads " << formatExtents(threads)
         << ")";
}

//===----------------------------------------------------------------------===//
// TileDialect
//===----------------------------------------------------------------------===//

Operation *TileDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  Operation *parent = (*this)->getParentOp();
  if (isa<KernelOp>(parent))
    return success(); // Checked against the grid by the kernel.
  // A loop with iteration arguments: the next value of each.
  if (auto loop = dyn_cast<LoopLikeOpInterface>(parent))
    if (std::optional<ResultRange> results = loop.getLoopResults();
        results && !results->empty()) {
      if (getValues().getTypes() == results->getTypes())
        return success();
      auto format = [](TypeRange types) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << '(';
        llvm::interleaveComma(types, os);
        os << ')';
        return text;
      };
      return emitOpError("yields ")
             << format(getValues().getTypes()) << " but the enclosing '"
             << parent->getName() << "' carries "
             << format(results->getTypes());
    }
  if (!getValues().empty())
    return emitOpError("yields no values in a '")
           << parent->getName() << "' region";
  return success();
}

//===----------------------------------------------------------------------===//
// Index ops
//===----------------------------------------------------------------------===//

/// Checks that grid dimension `dim` exists in `kernel`'s grid.
static LogicalResult verifyGridDim(Operation *op, KernelOp kernel, Dim dim) {
  ArrayRef<int64_t> grid = kernel.getGrid();
  if (static_cast<size_t>(dim) < grid.size())
    return success();
  return op->emitOpError("grid dimension '")
         << stringifyDim(dim) << "' does not exist: the kernel's grid is "
         << grid.size() << "-D (grid " << formatExtents(grid) << ")";
}

/// Names index results after CUDA's variables: `%tx`, `%by`, `%ntx`, ...
static void setIndexResultName(Operation *op, StringRef prefix, Dim dim,
                               OpAsmSetValueNameFn setNameFn) {
  setNameFn(op->getResult(0), (prefix + stringifyDim(dim)).str());
}

void BlockIdOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setIndexResultName(*this, "b", getDim(), setNameFn);
}

void ThreadIdOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setIndexResultName(*this, "t", getDim(), setNameFn);
}

void BlockDimOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setIndexResultName(*this, "nt", getDim(), setNameFn);
}

void GridDimOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setIndexResultName(*this, "nb", getDim(), setNameFn);
}

LogicalResult BlockIdOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  return success(kernel && succeeded(verifyGridDim(*this, kernel, getDim())));
}

LogicalResult GridDimOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  return success(kernel && succeeded(verifyGridDim(*this, kernel, getDim())));
}

LogicalResult ThreadIdOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  return success(kernel &&
                 succeeded(verifyThreadDim(*this, kernel, getDim())));
}

LogicalResult BlockDimOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  return success(kernel &&
                 succeeded(verifyThreadDim(*this, kernel, getDim())));
}

OpFoldResult BlockDimOp::fold(FoldAdaptor) {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return {};
  return IntegerAttr::get(IndexType::get(getContext()),
                          kernel.getThreadExtent(getDim()));
}

OpFoldResult GridDimOp::fold(FoldAdaptor) {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return {};
  ArrayRef<int64_t> grid = kernel.getGrid();
  auto index = static_cast<size_t>(getDim());
  if (index >= grid.size() || ShapedType::isDynamic(grid[index]))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), grid[index]);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

LogicalResult AllocSharedOp::verify() {
  if (!isa<KernelOp>((*this)->getParentOp()))
    return emitOpError("must stand at the top level of a 'tile.kernel' body: "
                       "shared memory lives for the whole kernel");
  MemRefType type = getType();
  if (!type.hasStaticShape())
    return emitOpError("shared buffer must have a static shape, got ") << type;
  if (!type.getLayout().isIdentity())
    return emitOpError("shared buffer must have an identity layout, got ")
           << type;
  if (getMemorySpace(type) != MemorySpace::Shared)
    return emitOpError("shared buffer must be in memory space "
                       "#gpu.address_space<workgroup>, got ")
           << type;
  if (std::optional<int64_t> swizzle = getSwizzle()) {
    if (*swizzle != 0 && *swizzle != kSwizzleBytes)
      return emitOpError("swizzle must be 128 (bytes) or 0 (none), got ")
             << *swizzle;
    if (*swizzle != 0)
      if (std::optional<std::string> why = whyNotSwizzlable(type))
        return emitOpError("cannot swizzle ") << type << ": " << *why;
  }
  return success();
}

LogicalResult AllocLocalOp::verify() {
  if (!getEnclosingKernel(*this))
    return failure();
  MemRefType type = getType();
  if (!type.hasStaticShape())
    return emitOpError("local buffer must have a static shape, got ") << type;
  if (type.getMemorySpace() && getMemorySpace(type) != MemorySpace::Local)
    return emitOpError("local buffer must be in the default memory space or "
                       "#gpu.address_space<private>, got ")
           << type;
  return success();
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> extents;
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parseExtentList(parser, extents, /*allowDynamic=*/false))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = builder.getIndexType();
  result.addAttribute(getExtentsAttrName(result.name),
                      builder.getDenseI64ArrayAttr(extents));
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  ensureTerminator(*body, builder, result.location);
  return parseCheckedAttrDict(parser, result);
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument iv) { p << iv; });
  p << ") in ";
  printExtentList(p, getExtents());
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(),
                          /*elidedAttrs=*/{getExtentsAttrName()});
}

void ParallelOp::build(OpBuilder &builder, OperationState &state,
                       ArrayRef<int64_t> extents) {
  state.addAttribute(getExtentsAttrName(state.name),
                     builder.getDenseI64ArrayAttr(extents));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0, e = extents.size(); i < e; ++i)
    block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

LogicalResult ParallelOp::verify() {
  ArrayRef<int64_t> extents = getExtents();
  if (extents.empty())
    return emitOpError("needs at least one dimension");
  if (getBody().getNumArguments() != extents.size())
    return emitOpError("has ")
           << getBody().getNumArguments() << " induction variables but "
           << extents.size() << " extents";
  if (llvm::any_of(extents, [](int64_t extent) { return extent < 1; }))
    return emitOpError("extents must be positive, got ")
           << formatExtents(extents);
  if (!llvm::all_of(getBody().getArgumentTypes(),
                    [](Type type) { return type.isIndex(); }))
    return emitOpError("induction variables must be of type index");
  if (LayoutAttr layout = getLayoutAttr()) {
    if (layout.getShape() != extents)
      return emitOpError("layout shape ")
             << formatExtents(layout.getShape())
             << " differs from the iteration space " << formatExtents(extents);
    auto kernel = (*this)->getParentOfType<KernelOp>();
    if (kernel && !isFragmentThreadCount(kernel, layout.getThreads()))
      return emitOpError("layout spreads the iterations over ")
             << layout.getThreads() << " threads but the block has "
             << kernel.getNumThreads() << " (and no pipeline's consumer role "
             << "has " << layout.getThreads() << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicAddOp
//===----------------------------------------------------------------------===//

LogicalResult AtomicAddOp::verify() {
  MemRefType type = getMemref().getType();
  if (getIndices().size() != static_cast<size_t>(type.getRank()))
    return emitOpError("expects ")
           << type.getRank() << " indices for " << type << ", got "
           << getIndices().size();
  MemorySpace space = getMemorySpace(type);
  if ((space != MemorySpace::Global && space != MemorySpace::Shared) ||
      isThreadPrivateBuffer(getMemref()))
    return emitOpError("works on global or shared memory; ")
           << type << " is not (a thread-private buffer needs no atomic)";
  Type element = type.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16() &&
      !element.isInteger(32))
    return emitOpError("unsupported element type ")
           << element << "; atomic_add supports f32, f16, bf16 and i32";
  Type value = getValue().getType();
  bool packed = false;
  if (auto vector = dyn_cast<VectorType>(value))
    packed = (element.isF16() || element.isBF16()) &&
             vector.getShape() == ArrayRef<int64_t>{2} &&
             vector.getElementType() == element;
  if (value != element && !packed) {
    InFlightDiagnostic diag = emitOpError("value type ")
                              << value << " must be the element type "
                              << element;
    if (element.isF16() || element.isBF16())
      diag << " (or " << VectorType::get({2}, element)
           << " for a packed atomic)";
    return diag;
  }
  if (getOld() && getOld().getType() != value)
    return emitOpError("returns the old value, of type ")
           << value << ", not " << getOld().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ThreadAllReduceOp
//===----------------------------------------------------------------------===//

/// The buffer form reads and writes its buffer. Either form also exchanges
/// values through shared memory and synchronizes the block, which the op
/// states as a read and a write of unknown memory: it must never be taken
/// for a pure op that could be moved, merged or run by some threads only
/// (a pipelined copy's producer ops run stages ahead, on one thread with
/// TMA).
void ThreadAllReduceOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
  if (!getBuffer())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), &getValueMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getValueMutable());
}

LogicalResult ThreadAllReduceOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  if (!kernel)
    return failure();
  if (getDims().empty())
    return emitOpError("needs at least one thread dimension to reduce across");
  llvm::SmallSet<Dim, 3> seen;
  for (Attribute attr : getDims()) {
    Dim dim = cast<DimAttr>(attr).getValue();
    if (!seen.insert(dim).second)
      return emitOpError("thread dimension '")
             << stringifyDim(dim) << "' is listed twice";
    if (failed(verifyThreadDim(*this, kernel, dim)))
      return failure();
  }
  Type type = getValue().getType();
  if (auto buffer = getBuffer()) {
    MemRefType bufferType = buffer.getType();
    if (getResult())
      return emitOpError("reduces a buffer in place and has no result");
    if (!isThreadPrivateBuffer(buffer))
      return emitOpError("buffer operand must be a per-thread buffer "
                         "(tile.alloc_local), got ")
             << bufferType;
    if (!bufferType.hasStaticShape())
      return emitOpError("buffer operand must have a static shape, got ")
             << bufferType;
    if (bufferType.getNumElements() == 0)
      return emitOpError("buffer operand has no elements");
    if (bufferType.getNumElements() > kMaxAllReduceBufferElements)
      return emitOpError("buffer operand has ")
             << bufferType.getNumElements() << " elements; at most "
             << kMaxAllReduceBufferElements
             << " are reduced (each element is combined with its own code)";
    type = bufferType.getElementType();
  } else if (!getResult() || getResult().getType() != type) {
    return emitOpError("result must have the type of the reduced value ")
           << type;
  }
  bool isBitwise = getKind() == ReduceKind::and_ ||
                   getKind() == ReduceKind::or_ ||
                   getKind() == ReduceKind::xor_;
  if (isBitwise && !type.isInteger(32))
    return emitOpError("'")
           << stringifyReduceKind(getKind())
           << "' reduction needs an i32 value, got " << type;
  if (!type.isF16() && !type.isBF16() && !type.isF32() && !type.isInteger(32))
    return emitOpError("unsupported type ")
           << type << "; thread_allreduce supports f16, bf16, f32 and i32";
  return success();
}

//===----------------------------------------------------------------------===//
// PrintOp
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  StringRef format = getFormat();
  size_t placeholders = 0;
  for (size_t pos = format.find("{}"); pos != StringRef::npos;
       pos = format.find("{}", pos + 2))
    ++placeholders;
  if (placeholders != getValues().size())
    return emitOpError("format has ")
           << placeholders << " '{}' placeholder(s) but "
           << getValues().size() << " value(s) are given";
  for (Value value : getValues()) {
    Type type = value.getType();
    if (auto intType = dyn_cast<IntegerType>(type);
        intType && (!intType.isSignless() || intType.getWidth() > 64))
      return emitOpError("can print signless integers of up to 64 bits, got ")
             << type;
    if (auto floatType = dyn_cast<FloatType>(type);
        floatType && floatType.getWidth() > 64)
      return emitOpError("can print floats of up to 64 bits, got ") << type;
  }
  return success();
}

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"

BarrierOp mlir::tile::createCompilerBarrier(OpBuilder &builder, Location loc,
                                            StringRef pass) {
  auto barrier = BarrierOp::create(builder, loc);
  barrier->setAttr(kInsertedByAttr, builder.getStringAttr(pass));
  return barrier;
}
