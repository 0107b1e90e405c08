//===- KernelOp.cpp - The tile.kernel op ----------------------------------===//
//
// Custom assembly and verifiers of `tile.kernel`: arguments, launch shape,
// the grid-size region, the limits of a thread block, where collective ops
// may be placed.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "OpSyntax.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "tile/Dialect/Tile/IR/Limits.h"
#include "tile/Dialect/Tile/IR/ThreadUniformity.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr nameAttr;
  if (parser.parseSymbolName(nameAttr, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();

  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, arguments, isVariadic, resultTypes,
          resultAttrs))
    return failure();
  SmallVector<Type> argTypes =
      llvm::map_to_vector(arguments, [](auto &arg) { return arg.type; });
  // Keep the source names of the arguments (`%A` -> "A") unless numeric.
  SmallVector<StringRef> names;
  for (OpAsmParser::Argument &arg : arguments) {
    StringRef name = arg.ssaName.name.drop_front();
    if (name.empty() || llvm::isDigit(name.front()))
      break;
    names.push_back(name);
  }
  if (!names.empty() && names.size() == arguments.size())
    result.addAttribute(getArgNamesAttrName(result.name),
                        builder.getStrArrayAttr(names));
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));
  call_interface_impl::addArgAndResultAttrs(
      builder, result, arguments, resultAttrs, getArgAttrsAttrName(result.name),
      getResAttrsAttrName(result.name));

  SmallVector<int64_t> grid, threads;
  if (parser.parseKeyword("grid") ||
      parseExtentList(parser, grid, /*allowDynamic=*/true) ||
      parser.parseKeyword("threads") ||
      parseExtentList(parser, threads, /*allowDynamic=*/false))
    return failure();
  result.addAttribute(getGridAttrName(result.name),
                      builder.getDenseI64ArrayAttr(grid));
  result.addAttribute(getThreadsAttrName(result.name),
                      builder.getDenseI64ArrayAttr(threads));
  if (parseCheckedAttrDict(parser, result, /*withKeyword=*/true))
    return failure();

  Region *body = result.addRegion();
  SMLoc bodyLoc = parser.getCurrentLocation();
  if (parser.parseRegion(*body, arguments, /*enableNameShadowing=*/false))
    return failure();
  if (body->empty()) {
    Block &block = body->emplaceBlock();
    for (OpAsmParser::Argument &arg : arguments)
      block.addArgument(arg.type, arg.sourceLoc.value_or(
                                      parser.getEncodedSourceLoc(bodyLoc)));
  }
  Block &entry = body->front();
  if (entry.empty() || !entry.back().hasTrait<OpTrait::IsTerminator>()) {
    OpBuilder bodyBuilder(parser.getContext());
    bodyBuilder.setInsertionPointToEnd(&entry);
    ReturnOp::create(bodyBuilder, result.location);
  }

  Region *gridSize = result.addRegion();
  if (succeeded(parser.parseOptionalKeyword("grid_size")))
    return parser.parseRegion(*gridSize);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  call_interface_impl::printFunctionSignature(
      p, getArgumentTypes(), getArgAttrsAttr(), /*isVariadic=*/false,
      getResultTypes(), getResAttrsAttr(), &getBody(),
      /*printEmptyResult=*/false);
  p << " grid ";
  printExtentList(p, getGrid());
  p << " threads ";
  printExtentList(p, getThreads());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getFunctionTypeAttrName(), getGridAttrName(),
       getThreadsAttrName(), getArgAttrsAttrName(), getResAttrsAttrName(),
       getArgNamesAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
  if (!getGridSize().empty()) {
    p << " grid_size ";
    p.printRegion(getGridSize(), /*printEntryBlockArgs=*/true,
                  /*printBlockTerminators=*/true);
  }
}

std::string KernelOp::getArgName(unsigned index) {
  if (std::optional<ArrayAttr> names = getArgNames();
      names && index < names->size())
    return cast<StringAttr>((*names)[index]).str();
  return "arg" + std::to_string(index);
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  if (!getArgNames() || region.empty())
    return;
  for (auto [index, arg] : llvm::enumerate(region.getArguments()))
    if (index < getArgNames()->size())
      setNameFn(arg, getArgName(index));
}

int64_t KernelOp::getNumThreads() {
  int64_t total = 1;
  for (int64_t extent : getThreads())
    total *= extent;
  return total;
}

int64_t KernelOp::getThreadExtent(Dim dim) {
  ArrayRef<int64_t> threads = getThreads();
  auto index = static_cast<size_t>(dim);
  return index < threads.size() ? threads[index] : 1;
}

unsigned KernelOp::getNumDynamicGridExtents() {
  return llvm::count_if(getGrid(), ShapedType::isDynamic);
}

/// Returns the bytes of the `tile.alloc_local` buffers of `kernel`, which
/// every thread has (static shapes only: others are verifier errors).
static int64_t getLocalBufferBytes(KernelOp kernel) {
  int64_t total = 0;
  kernel.getBody().walk([&](AllocLocalOp alloc) {
    MemRefType type = alloc.getType();
    if (type.hasStaticShape())
      total +=
          type.getNumElements() * getBufferElementBytes(type.getElementType());
  });
  return total;
}

int64_t KernelOp::getStaticSharedMemoryBytes() {
  int64_t total = 0;
  getBody().walk([&](AllocSharedOp alloc) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape())
      return;
    int64_t alignment = alloc.getEffectiveAlignment();
    total = llvm::alignTo(total, alignment);
    total +=
        type.getNumElements() * getBufferElementBytes(type.getElementType());
  });
  return total;
}

LogicalResult KernelOp::verify() {
  if (!getResultTypes().empty())
    return emitOpError("a kernel has no results; write outputs to memref "
                       "arguments");
  if (std::optional<StringRef> passes = getLlvmPasses();
      passes && passes->trim().empty())
    return emitOpError("'llvm_passes' names an LLVM pipeline ('lean', or "
                       "opt's -passes syntax); leave it out for the default "
                       "one");
  if (std::optional<StringRef> skipped = getSkipLlvmPasses();
      skipped && skipped->trim().empty())
    return emitOpError("'skip_llvm_passes' names LLVM passes (comma-"
                       "separated, e.g. \"vector-combine\"); leave it out "
                       "to skip only the default ones");
  for (auto [index, type] : llvm::enumerate(getArgumentTypes())) {
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (getMemorySpace(memref) != MemorySpace::Global)
        return emitOpError("argument #")
               << index << " must be a memref in global memory (no memory "
               << "space or #gpu.address_space<global>), got " << type;
      if (!memref.getLayout().isIdentity())
        return emitOpError("argument #")
               << index << " must have the identity layout (dense, row-major: "
               << "the kernel ABI passes a base pointer and sizes), got "
               << type;
      if (Attribute multiple =
              getArgAttrsAttr() ? cast<DictionaryAttr>(getArgAttrsAttr()[index])
                                      .get(kMultipleOfAttr)
                                : Attribute()) {
        auto value = dyn_cast<IntegerAttr>(multiple);
        if (!value || value.getInt() < 1 ||
            !llvm::isPowerOf2_64(value.getInt()))
          return emitOpError("argument #")
                 << index << ": '" << kMultipleOfAttr
                 << "' must be a positive power of two, got " << multiple;
      }
      continue;
    }
    if (!type.isIntOrIndexOrFloat())
      return emitOpError("argument #")
             << index << " has type " << type
             << "; kernel arguments must be memrefs or scalars (integer, "
                "index, float)";
  }

  ArrayRef<int64_t> grid = getGrid();
  if (grid.empty() || grid.size() > 3)
    return emitOpError("grid must have 1 to 3 dimensions, got ") << grid.size();
  for (int64_t extent : grid)
    if (!ShapedType::isDynamic(extent) && extent < 1)
      return emitOpError("grid extents must be positive or '?', got ")
             << formatExtents(grid);

  ArrayRef<int64_t> threads = getThreads();
  if (threads.empty() || threads.size() > 3)
    return emitOpError("thread block must have 1 to 3 dimensions, got ")
           << threads.size();
  for (auto [index, extent] : llvm::enumerate(threads)) {
    if (extent < 1)
      return emitOpError("thread block extents must be positive, got ")
             << formatExtents(threads);
    if (extent > kMaxThreadExtent[index])
      return emitOpError("thread block extent along '")
             << stringifyDim(static_cast<Dim>(index)) << "' is " << extent
             << ", above the limit of " << kMaxThreadExtent[index];
  }
  if (getNumThreads() > kMaxThreadsPerBlock)
    return emitOpError("thread block ")
           << formatExtents(threads) << " has " << getNumThreads()
           << " threads, more than the " << kMaxThreadsPerBlock
           << " a block can have";
  return success();
}

/// Checks the `grid_size` region against the grid's `?` extents.
static LogicalResult verifyGridSize(KernelOp kernel) {
  unsigned numDynamic = kernel.getNumDynamicGridExtents();
  Region &region = kernel.getGridSize();
  if (numDynamic == 0) {
    if (!region.empty())
      return kernel.emitOpError("has a 'grid_size' region but no '?' grid "
                                "extent to compute");
    return success();
  }
  if (region.empty())
    return kernel.emitOpError("grid ")
           << formatExtents(kernel.getGrid()) << " has " << numDynamic
           << " '?' extent(s); add a 'grid_size' region that yields them";
  if (!region.hasOneBlock())
    return kernel.emitOpError("'grid_size' region must have one block");
  Block &block = region.front();
  if (block.getArgumentTypes() != kernel.getArgumentTypes())
    return kernel.emitOpError("'grid_size' region must take the kernel's "
                              "arguments, with the same types");
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return kernel.emitOpError("'grid_size' region must end with 'tile.yield'");
  if (yield.getValues().size() != numDynamic ||
      !llvm::all_of(yield.getValues().getTypes(),
                    [](Type type) { return type.isIndex(); }))
    return yield.emitOpError("must yield ")
           << numDynamic << " index value(s), one per '?' grid extent";
  return success();
}

/// Checks that every collective op is reached by all threads of its scope.
static LogicalResult verifyCollectivePlacement(KernelOp kernel) {
  ThreadUniformity uniformity(kernel);
  WalkResult result = kernel.getBody().walk([&](CollectiveOpInterface op) {
    if (!op.isCollective())
      return WalkResult::advance();
    // Every thread of each role must run every iteration, or the mbarrier
    // counts are never reached.
    if (auto pipeline = dyn_cast<WarpSpecializeOp>(op.getOperation());
        pipeline && uniformity.isDivergentRegionHolder(pipeline)) {
      op->emitOpError("bounds and step must be the same in every thread: "
                      "each role's threads all arrive on the stage barriers "
                      "in every iteration");
      return WalkResult::interrupt();
    }
    Operation *divergent = uniformity.getDivergentAncestor(op, kernel);
    if (!divergent)
      return WalkResult::advance();
    if (isa<ParallelOp>(divergent)) {
      op->emitOpError("is collective and cannot be nested in 'tile.parallel', "
                      "whose iterations are distributed over the block's "
                      "threads");
      return WalkResult::interrupt();
    }
    InFlightDiagnostic diag = op->emitOpError(
        "is collective (every thread of the block must reach it) but is "
        "nested in control flow that depends on the thread index");
    diag.attachNote(divergent->getLoc())
        << "thread-dependent control flow: '" << divergent->getName() << "'";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Rejects a `memref.dim` of a dimension its memref does not have (upstream
/// accepts it as undefined behaviour; in a kernel it is always a mistake).
static LogicalResult verifyDimIndices(KernelOp kernel) {
  WalkResult result = kernel->walk([&](memref::DimOp dim) {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto type = dyn_cast<MemRefType>(dim.getSource().getType());
    if (!index || !type || (*index >= 0 && *index < type.getRank()))
      return WalkResult::advance();
    dim.emitOpError("asks for dimension ")
        << *index << " of a memref of rank " << type.getRank();
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LogicalResult KernelOp::verifyRegions() {
  if (failed(verifyGridSize(*this)) || failed(verifyDimIndices(*this)))
    return failure();
  int64_t sharedBytes = getStaticSharedMemoryBytes();
  if (sharedBytes > kMaxSharedMemoryBytes)
    return emitOpError("allocates ")
           << sharedBytes << " bytes of shared memory, more than the "
           << kMaxSharedMemoryBytes << " a thread block can use on sm_90";
  int64_t localBytes = getLocalBufferBytes(*this);
  if (localBytes > kMaxLocalBufferBytes)
    return emitOpError("gives each thread ")
           << localBytes << " bytes of local buffers ('tile.alloc_local'), "
           << "more than the " << kMaxLocalBufferBytes
           << " allowed (docs/TileDialect.md, \"Limits\"); a thread has 255 "
              "registers, so keep per-thread tiles small and put large ones "
              "in shared memory";
  return verifyCollectivePlacement(*this);
}

LogicalResult KernelOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FlatSymbolRefAttr reference = getReferenceAttr();
  if (!reference)
    return success();
  Operation *target = symbolTable.lookupNearestSymbolFrom(*this, reference);
  if (!target)
    return emitOpError("reference ") << reference << " does not exist";
  ArrayRef<Type> targetInputs;
  if (auto func = dyn_cast<func::FuncOp>(target)) {
    if (func.getNumResults() != 0)
      return emitOpError("reference ")
             << reference << " must return nothing and write its outputs to "
             << "its memref arguments";
    targetInputs = func.getArgumentTypes();
  } else if (auto kernel = dyn_cast<KernelOp>(target)) {
    if (kernel == *this)
      return emitOpError("cannot be its own reference");
    targetInputs = kernel.getArgumentTypes();
  } else {
    return emitOpError("reference ")
           << reference << " must be a 'func.func' or a 'tile.kernel', got '"
           << target->getName() << "'";
  }
  // Equal types, or memrefs that differ only in static versus dynamic sizes
  // (a reference written for `memref<?x?xf16>` serves every shape).
  auto compatible = [](Type kernelType, Type referenceType) {
    if (kernelType == referenceType)
      return true;
    auto kernelMemRef = dyn_cast<MemRefType>(kernelType);
    auto referenceMemRef = dyn_cast<MemRefType>(referenceType);
    return kernelMemRef && referenceMemRef &&
           memref::CastOp::areCastCompatible(kernelMemRef, referenceMemRef);
  };
  ArrayRef<Type> inputs = getArgumentTypes();
  if (targetInputs.size() != inputs.size() ||
      !llvm::all_of(llvm::zip(inputs, targetInputs), [&](auto pair) {
        return compatible(std::get<0>(pair), std::get<1>(pair));
      }))
    return emitOpError("reference ")
           << reference << " must take the kernel's argument types ("
           << getFunctionType() << " vs "
           << FunctionType::get(getContext(), targetInputs, {})
           << "); memrefs may differ in static versus dynamic sizes only";
  return success();
}
