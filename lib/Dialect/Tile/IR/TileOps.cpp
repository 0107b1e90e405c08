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

static constexpr int64_t kWarpGroupSize = 128;

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
static KernelOp getEnclosingKernel(Operation *op) {
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
  return parser.parseOptionalAttrDict(result.attributes);
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
    if (kernel && layout.getThreads() != kernel.getNumThreads())
      return emitOpError("layout spreads the iterations over ")
             << layout.getThreads() << " threads but the block has "
             << kernel.getNumThreads();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> CopyOp::getTileShape() {
  if (std::optional<ArrayRef<int64_t>> shape = getShape())
    return llvm::to_vector(*shape);
  if (getTargetIndices().empty())
    return llvm::to_vector(getTarget().getType().getShape());
  return llvm::to_vector(getSource().getType().getShape());
}

bool CopyOp::isCollective() {
  return !isThreadPrivateBuffer(getSource()) &&
         !isThreadPrivateBuffer(getTarget());
}

/// Checks the index count of one side of a copy.
static LogicalResult verifyCopySide(CopyOp op, StringRef side, MemRefType type,
                                    ValueRange indices) {
  if (!indices.empty() && indices.size() != static_cast<size_t>(type.getRank()))
    return op.emitOpError()
           << side << " has " << indices.size() << " indices but its rank is "
           << type.getRank();
  return success();
}

LogicalResult CopyOp::verify() {
  MemRefType source = getSource().getType();
  MemRefType target = getTarget().getType();
  // A copy out of or into a fragment converts between float types (an f32
  // accumulator stored as f16); other copies move bits.
  bool converts = (isFragment(getSource()) || isFragment(getTarget())) &&
                  isa<FloatType>(source.getElementType()) &&
                  isa<FloatType>(target.getElementType());
  if (source.getElementType() != target.getElementType() && !converts)
    return emitOpError("source element type ")
           << source.getElementType() << " and target element type "
           << target.getElementType()
           << " differ; tile.copy converts only between float types, with a "
              "fragment on one side";
  if (source.getRank() != target.getRank())
    return emitOpError("source (rank ")
           << source.getRank() << ") and target (rank " << target.getRank()
           << ") must have the same rank";
  if (getConvertLayout() &&
      (!isFragment(getSource()) || !isFragment(getTarget())))
    return emitOpError("'convert_layout' converts between two fragments' "
                       "layouts: both operands must be fragments");
  for (Value side : {getSource(), getTarget()})
    if (isFragment(side) && !side.getDefiningOp<AllocFragmentOp>())
      return emitOpError("a fragment operand must be a 'tile.alloc_fragment' "
                         "(not a view or another allocation of the "
                         "'#tile.fragment' space)");
  if (failed(verifyCopySide(*this, "source", source, getSourceIndices())) ||
      failed(verifyCopySide(*this, "target", target, getTargetIndices())))
    return failure();

  bool sourceIndexed = !getSourceIndices().empty();
  bool targetIndexed = !getTargetIndices().empty();
  if (sourceIndexed && targetIndexed && !getShape())
    return emitOpError("both operands are indexed; give the tile shape with "
                       "'shape [...]'");
  SmallVector<int64_t> tile = getTileShape();
  if (tile.size() != static_cast<size_t>(source.getRank()))
    return emitOpError("tile shape ")
           << formatExtents(tile) << " must have rank " << source.getRank();
  if (llvm::any_of(tile, [](int64_t e) { return ShapedType::isDynamic(e); }))
    return emitOpError("tile shape must be static, got ")
           << formatExtents(tile)
           << "; the operand without indices gives the tile shape";
  if (llvm::any_of(tile, [](int64_t e) { return e < 1; }))
    return emitOpError("tile shape must be positive, got ")
           << formatExtents(tile);
  for (auto [side, type, indexed] :
       {std::tuple<StringRef, MemRefType, bool>{"source", source,
                                                sourceIndexed},
        {"target", target, targetIndexed}})
    if (!indexed && type.getShape() != ArrayRef<int64_t>(tile))
      return emitOpError()
             << side << " " << type << " is copied as a whole, so its shape "
             << "must equal the tile shape " << formatExtents(tile);
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp, ClearOp
//===----------------------------------------------------------------------===//

bool FillOp::isCollective() { return !isThreadPrivateBuffer(getBuffer()); }

bool ClearOp::isCollective() { return !isThreadPrivateBuffer(getBuffer()); }

LogicalResult ClearOp::verify() {
  Type element = getBuffer().getType().getElementType();
  Type scalar = getElementTypeOrSelf(element);
  if (!scalar.isIntOrIndexOrFloat())
    return emitOpError("cannot clear a buffer of ")
           << element << " elements: there is no zero of that type";
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
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

/// Parses `(%iv, %stage) threads N [regs R] region` for one role.
static ParseResult parseRole(OpAsmParser &parser, OperationState &result,
                             StringRef role, Region &region,
                             StringRef threadsName, StringRef regsName) {
  Builder &builder = parser.getBuilder();
  SmallVector<OpAsmParser::Argument> args;
  int64_t threads;
  if (parser.parseKeyword(role) ||
      parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("threads") || parser.parseInteger(threads))
    return failure();
  result.addAttribute(threadsName, builder.getI64IntegerAttr(threads));
  if (succeeded(parser.parseOptionalKeyword("regs"))) {
    int64_t regs;
    if (parser.parseInteger(regs))
      return failure();
    result.addAttribute(regsName, builder.getI64IntegerAttr(regs));
  }
  for (OpAsmParser::Argument &arg : args)
    arg.type = builder.getIndexType();
  if (parser.parseRegion(region, args))
    return failure();
  if (region.empty())
    region.emplaceBlock();
  Block &block = region.front();
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>()) {
    OpBuilder regionBuilder(parser.getContext());
    regionBuilder.setInsertionPointToEnd(&block);
    YieldOp::create(regionBuilder, result.location);
  }
  return success();
}

ParseResult WarpSpecializeOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type index = builder.getIndexType();
  OpAsmParser::UnresolvedOperand lb, ub, step;
  int64_t stages;
  if (parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("stages") ||
      parser.parseInteger(stages) ||
      parser.resolveOperands({lb, ub, step}, index, result.operands))
    return failure();
  result.addAttribute(getStagesAttrName(result.name),
                      builder.getI64IntegerAttr(stages));
  if (succeeded(parser.parseOptionalKeyword("buffers"))) {
    SmallVector<OpAsmParser::UnresolvedOperand> buffers;
    SmallVector<Type> types;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseLParen() || parser.parseOperandList(buffers) ||
        parser.parseColonTypeList(types) || parser.parseRParen() ||
        parser.resolveOperands(buffers, types, loc, result.operands))
      return failure();
  }
  Region *producer = result.addRegion();
  Region *consumer = result.addRegion();
  if (parseRole(parser, result, "producer", *producer,
                getProducerThreadsAttrName(result.name),
                getProducerRegsAttrName(result.name)) ||
      parseRole(parser, result, "consumer", *consumer,
                getConsumerThreadsAttrName(result.name),
                getConsumerRegsAttrName(result.name)))
    return failure();
  return parser.parseOptionalAttrDictWithKeyword(result.attributes);
}

static void printRole(OpAsmPrinter &p, StringRef role, Region &region,
                      int64_t threads, std::optional<int64_t> regs) {
  p << role << '(';
  llvm::interleaveComma(region.getArguments(), p,
                        [&](BlockArgument arg) { p << arg; });
  p << ") threads " << threads;
  if (regs)
    p << " regs " << *regs;
  p << ' ';
  p.printRegion(region, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  p << ' ' << getLowerBound() << " to " << getUpperBound() << " step "
    << getStep() << " stages " << getStages();
  if (!getBuffers().empty()) {
    p << " buffers(" << getBuffers() << " : ";
    llvm::interleaveComma(getBuffers().getTypes(), p);
    p << ')';
  }
  p.printNewline();
  printRole(p, "producer", getProducer(), getProducerThreads(),
            getProducerRegs());
  p << ' ';
  printRole(p, "consumer", getConsumer(), getConsumerThreads(),
            getConsumerRegs());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getStagesAttrName(), getProducerThreadsAttrName(),
       getConsumerThreadsAttrName(), getProducerRegsAttrName(),
       getConsumerRegsAttrName()});
}

/// Checks one role's thread count and register budget.
static LogicalResult verifyRole(WarpSpecializeOp op, StringRef role,
                                Region &region, int64_t threads,
                                std::optional<int64_t> regs) {
  if (threads < kWarpGroupSize || threads % kWarpGroupSize != 0)
    return op.emitOpError()
           << role << " threads (" << threads << ") must be a whole number "
           << "of warp groups (a positive multiple of 128)";
  if (regs && (*regs < 24 || *regs > 256 || *regs % 8 != 0))
    return op.emitOpError()
           << role << " regs (" << *regs << ") must be a multiple of 8 in "
           << "[24, 256] (setmaxnreg)";
  if (region.getNumArguments() != 2 ||
      !llvm::all_of(region.getArgumentTypes(),
                    [](Type type) { return type.isIndex(); }))
    return op.emitOpError()
           << role << " region must take two index arguments: the iteration "
           << "and the stage";
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  if (!kernel)
    return failure();
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError("cannot be nested in another 'tile.warp_specialize'");
  if (failed(tile::detail::verifyStageCount(*this, getStages())))
    return failure();
  if (failed(verifyRole(*this, "producer", getProducer(),
                        getProducerThreads(), getProducerRegs())) ||
      failed(verifyRole(*this, "consumer", getConsumer(),
                        getConsumerThreads(), getConsumerRegs())))
    return failure();

  int64_t total = getProducerThreads() + getConsumerThreads();
  if (total != kernel.getNumThreads())
    return emitOpError("producer (")
           << getProducerThreads() << ") and consumer ("
           << getConsumerThreads() << ") threads add up to " << total
           << ", but the kernel's block has " << kernel.getNumThreads()
           << " threads";
  if (getProducerRegs() && getConsumerRegs()) {
    int64_t registers = getProducerThreads() * *getProducerRegs() +
                        getConsumerThreads() * *getConsumerRegs();
    if (registers > kRegistersPerSM)
      return emitOpError("producer and consumer need ")
             << registers << " registers, more than the " << kRegistersPerSM
             << " of an SM";
  }

  for (auto [index, buffer] : llvm::enumerate(getBuffers())) {
    auto type = cast<MemRefType>(buffer.getType());
    if (getMemorySpace(type) != MemorySpace::Shared)
      return emitOpError("buffer #")
             << index << " must be in shared memory, got " << type;
    if (type.getRank() < 1 || type.getDimSize(0) != static_cast<int64_t>(getStages()))
      return emitOpError("buffer #")
             << index << " " << type << " must have one slice per stage: "
             << "its leading dimension must be " << getStages();
  }
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
