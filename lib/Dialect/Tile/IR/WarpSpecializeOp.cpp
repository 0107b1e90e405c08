//===- WarpSpecializeOp.cpp - The producer/consumer pipeline op -----------===//
//
// tile.warp_specialize: the assembly of its two roles and the verifier of
// the pipeline's shape (whole warp groups, stage buffers, register counts).
// The lowering is in Transforms/LowerWarpSpecialize.cpp.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "OpSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "tile/Dialect/Tile/IR/Limits.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

static constexpr int64_t kWarpGroupSize = 128;

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

bool tile::isFragmentThreadCount(KernelOp kernel, int64_t threads) {
  if (threads == kernel.getNumThreads())
    return true;
  // A pipeline, or the first role of a lowered one.
  bool found = false;
  kernel.getBody().walk([&](Operation *op) {
    if (auto pipeline = dyn_cast<WarpSpecializeOp>(op)) {
      found |= static_cast<int64_t>(pipeline.getConsumerThreads()) == threads;
      return;
    }
    auto first = op->getAttrOfType<IntegerAttr>(kRoleFirstAttr);
    auto count = op->getAttrOfType<IntegerAttr>(kRoleThreadsAttr);
    found |= first && count && first.getInt() == 0 && count.getInt() == threads;
  });
  return found;
}

std::pair<int64_t, int64_t> tile::getRoleThreads(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(parent))
      return {0, kernel.getNumThreads()};
    auto first = parent->getAttrOfType<IntegerAttr>(kRoleFirstAttr);
    auto threads = parent->getAttrOfType<IntegerAttr>(kRoleThreadsAttr);
    if (first && threads)
      return {first.getInt(), threads.getInt()};
    auto pipeline = dyn_cast_or_null<WarpSpecializeOp>(parent->getParentOp());
    if (!pipeline)
      continue;
    Region *region = parent->getParentRegion();
    if (region == &pipeline.getConsumer())
      return {0, pipeline.getConsumerThreads()};
    return {pipeline.getConsumerThreads(), pipeline.getProducerThreads()};
  }
  return {0, 0};
}

/// Parses `(%iv, %stage) threads N [regs R] region` for one role.
static ParseResult parseRole(OpAsmParser &parser, OperationState &result,
                             StringRef role, Region &region,
                             StringRef threadsName, StringRef regsName,
                             StringRef pingpongName = {}) {
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
  if (!pingpongName.empty() &&
      succeeded(parser.parseOptionalKeyword("pingpong")))
    result.addAttribute(pingpongName, builder.getUnitAttr());
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
  // `keyword(%a, %b : type, type)`, optional; returns the operand count.
  auto parseGroup = [&](StringRef keyword) -> FailureOr<int32_t> {
    if (failed(parser.parseOptionalKeyword(keyword)))
      return 0;
    SmallVector<OpAsmParser::UnresolvedOperand> operands;
    SmallVector<Type> types;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseLParen() || parser.parseOperandList(operands) ||
        parser.parseColonTypeList(types) || parser.parseRParen() ||
        parser.resolveOperands(operands, types, loc, result.operands))
      return failure();
    return static_cast<int32_t>(operands.size());
  };
  FailureOr<int32_t> buffers = parseGroup("buffers");
  if (failed(buffers))
    return failure();
  FailureOr<int32_t> tiles = parseGroup("tiles");
  if (failed(tiles))
    return failure();
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, 1, 1, *buffers, *tiles};
  Region *producer = result.addRegion();
  Region *consumer = result.addRegion();
  if (parseRole(parser, result, "producer", *producer,
                getProducerThreadsAttrName(result.name),
                getProducerRegsAttrName(result.name)) ||
      parseRole(parser, result, "consumer", *consumer,
                getConsumerThreadsAttrName(result.name),
                getConsumerRegsAttrName(result.name),
                getPingpongAttrName(result.name)))
    return failure();
  return parseCheckedAttrDict(parser, result, /*withKeyword=*/true);
}

static void printRole(OpAsmPrinter &p, StringRef role, Region &region,
                      int64_t threads, std::optional<int64_t> regs,
                      bool pingpong = false) {
  p << role << '(';
  llvm::interleaveComma(region.getArguments(), p,
                        [&](BlockArgument arg) { p << arg; });
  p << ") threads " << threads;
  if (regs)
    p << " regs " << *regs;
  if (pingpong)
    p << " pingpong";
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
  if (!getTiles().empty()) {
    p << " tiles(" << getTiles() << " : ";
    llvm::interleaveComma(getTiles().getTypes(), p);
    p << ')';
  }
  p.printNewline();
  printRole(p, "producer", getProducer(), getProducerThreads(),
            getProducerRegs());
  p << ' ';
  printRole(p, "consumer", getConsumer(), getConsumerThreads(),
            getConsumerRegs(), getPingpong());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getOperandSegmentSizesAttrName(), getStagesAttrName(),
       getProducerThreadsAttrName(),
       getConsumerThreadsAttrName(), getProducerRegsAttrName(),
       getConsumerRegsAttrName(), getPingpongAttrName()});
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

  if (getPingpong()) {
    if (getConsumerThreads() < 2 * kWarpGroupSize)
      return emitOpError("pingpong needs a consumer of at least two warp "
                         "groups (256 threads) to take turns, got ")
             << getConsumerThreads() << " threads";
    if (llvm::none_of(getConsumer().getOps(),
                      [](Operation &op) { return holdsGemm(&op); }))
      return emitOpError("pingpong: the consumer region has no 'tile.gemm' "
                         "(the turns bracket its gemms)");
  }

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
    int64_t blocks = kernel.getMinBlocksPerSm().value_or(1);
    if (registers * blocks > kRegistersPerSM)
      return emitOpError("producer and consumer need ")
             << registers << " registers, more than the " << kRegistersPerSM
             << " of an SM"
             << (blocks > 1 ? " shared by " + std::to_string(blocks) +
                                  " blocks (min_blocks_per_sm)"
                            : std::string());
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
  for (auto [index, tile] : llvm::enumerate(getTiles())) {
    auto alloc = tile.getDefiningOp<AllocSharedOp>();
    if (!alloc)
      return emitOpError("tile #")
             << index << " must be a 'tile.alloc_shared' (the op allocates "
             << "its stages in its place)";
    if (llvm::is_contained(getBuffers(), tile) ||
        llvm::count(getTiles(), tile) > 1)
      return emitOpError("tile #") << index << " is given twice";
    for (Operation *user : tile.getUsers())
      if (user != getOperation() && !getOperation()->isAncestor(user)) {
        InFlightDiagnostic diag =
            emitOpError("tile #")
            << index
            << " is used outside the op: it names the iteration's stage of "
               "the pipeline, which only the op's regions can see";
        diag.attachNote(user->getLoc()) << "used here";
        return diag;
      }
  }
  return success();
}
