//===- LoopOps.cpp - The range loops of the tile dialect ------------------===//
//
// `tile.serial`, `tile.unroll`, `tile.vectorized` and `tile.pipelined`
// share one form, `%iv = %lb to %ub step %step [stages N [rolled]]
// [iter_args(%a = %init, ...) -> (types)] region`: its parser, printer,
// builder and verifier live here and are called from the ops' ODS class
// (Tile_RangeLoopOp in TileOps.td), which also defines LoopLikeOpInterface
// for all of them. Their lowerings: LowerTileOps.cpp (scf.for, unrolling),
// Vectorize.cpp, SoftwarePipeline.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpSyntax.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "tile/Dialect/Tile/IR/Limits.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;

/// The names of the inherent attributes a range loop prints in its custom
/// form rather than in its attribute dictionary.
static constexpr llvm::StringLiteral kStagesName = "stages";
static constexpr llvm::StringLiteral kRolledName = "rolled";

static bool hasInherentAttr(OperationName name, StringRef attrName) {
  return llvm::any_of(name.getAttributeNames(), [&](StringAttr attr) {
    return attr.getValue() == attrName;
  });
}

ParseResult tile::detail::parseRangeLoop(
    OpAsmParser &parser, OperationState &result,
    function_ref<void(Region &, Builder &, Location)> addTerminator) {
  Builder &builder = parser.getBuilder();
  Type index = builder.getIndexType();
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub, step;
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step))
    return failure();
  if (hasInherentAttr(result.name, kStagesName)) {
    int64_t stages = 0;
    if (parser.parseKeyword(kStagesName) || parser.parseInteger(stages))
      return failure();
    result.addAttribute(kStagesName, builder.getI64IntegerAttr(stages));
    if (hasInherentAttr(result.name, kRolledName) &&
        succeeded(parser.parseOptionalKeyword(kRolledName)))
      result.addAttribute(kRolledName, builder.getUnitAttr());
  }
  iv.type = index;
  if (parser.resolveOperands({lb, ub, step}, index, result.operands))
    return failure();

  // iter_args(%a = %init, ...) -> (types)
  SmallVector<OpAsmParser::Argument> regionArgs{iv};
  bool carries = succeeded(parser.parseOptionalKeyword("iter_args"));
  if (carries) {
    SmallVector<OpAsmParser::Argument> iterArgs;
    SmallVector<OpAsmParser::UnresolvedOperand> inits;
    SMLoc initsLoc = parser.getCurrentLocation();
    if (parser.parseAssignmentList(iterArgs, inits) ||
        parser.parseArrowTypeList(result.types))
      return failure();
    if (iterArgs.size() != result.types.size())
      return parser.emitError(initsLoc)
             << "has " << iterArgs.size() << " iteration arguments but "
             << result.types.size() << " result types";
    for (auto [arg, type] : llvm::zip(iterArgs, result.types)) {
      arg.type = type;
      regionArgs.push_back(arg);
    }
    if (parser.resolveOperands(inits, result.types, initsLoc, result.operands))
      return failure();
  }

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, regionArgs))
    return failure();
  // Without iteration arguments the terminator yields nothing and may be
  // left out; with them it must be written.
  if (!carries)
    addTerminator(*body, builder, result.location);
  return detail::parseCheckedAttrDict(parser, result);
}

void tile::detail::printRangeLoop(OpAsmPrinter &p, Operation *op) {
  auto loop = cast<LoopLikeOpInterface>(op);
  Region &body = *loop.getLoopRegions().front();
  p << ' ' << body.getArgument(0) << " = " << op->getOperand(0) << " to "
    << op->getOperand(1) << " step " << op->getOperand(2);
  if (auto stages = op->getAttrOfType<IntegerAttr>(kStagesName))
    p << ' ' << kStagesName << ' ' << stages.getInt();
  if (op->hasAttr(kRolledName))
    p << ' ' << kRolledName;
  bool carries = op->getNumResults() != 0;
  if (carries) {
    p << " iter_args(";
    llvm::interleaveComma(llvm::zip(loop.getRegionIterArgs(), loop.getInits()),
                          p, [&](auto pair) {
                            p << std::get<0>(pair) << " = "
                              << std::get<1>(pair);
                          });
    p << ") -> (" << op->getResultTypes() << ')';
  }
  p << ' ';
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/carries);
  p.printOptionalAttrDict(op->getAttrs(),
                          /*elidedAttrs=*/{kStagesName, kRolledName});
}

void tile::detail::buildRangeLoop(OpBuilder &builder, OperationState &state,
                                  Value lower, Value upper, Value step,
                                  ValueRange initArgs) {
  state.addOperands({lower, upper, step});
  state.addOperands(initArgs);
  state.addTypes(initArgs.getTypes());
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
  for (Value init : initArgs)
    block->addArgument(init.getType(), init.getLoc());
  // With iteration arguments the caller fills the body and yields the next
  // values; without, the body ends with an empty yield.
  if (!initArgs.empty())
    return;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

std::optional<int64_t> tile::getConstantTripCount(Value lb, Value ub,
                                                  Value step) {
  std::optional<int64_t> lower = getConstantIntValue(lb);
  std::optional<int64_t> upper = getConstantIntValue(ub);
  std::optional<int64_t> stride = getConstantIntValue(step);
  if (!lower || !upper || !stride || *stride <= 0)
    return std::nullopt;
  if (*upper <= *lower)
    return 0;
  // upper - lower may not fit an int64_t (bounds of opposite signs).
  uint64_t distance =
      static_cast<uint64_t>(*upper) - static_cast<uint64_t>(*lower);
  return static_cast<int64_t>(std::min<uint64_t>(
      llvm::divideCeil(distance, static_cast<uint64_t>(*stride)),
      std::numeric_limits<int64_t>::max()));
}

LogicalResult tile::detail::verifyStageCount(Operation *op, int64_t stages) {
  if (stages < 1)
    return op->emitOpError("stages must be at least 1, got ") << stages;
  if (stages > kMaxPipelineStages)
    return op->emitOpError("has ")
           << stages << " stages, more than the limit of "
           << kMaxPipelineStages;
  return success();
}

/// Checks constant bounds and a trip count that can be expanded.
static LogicalResult verifyExpandableBounds(Operation *op, Value lb, Value ub,
                                            Value step) {
  for (auto [name, value] : {std::pair<StringRef, Value>{"lower bound", lb},
                             {"upper bound", ub},
                             {"step", step}})
    if (!getConstantIntValue(value))
      return op->emitOpError("needs a constant ")
             << name << " (an arith.constant) to be expanded at compile time";
  int64_t trips = *tile::getConstantTripCount(lb, ub, step);
  if (trips > kMaxUnrolledIterations)
    return op->emitOpError("has ")
           << trips << " iterations, more than the " << kMaxUnrolledIterations
           << " that are expanded at compile time (each iteration is a copy "
              "of the body); use 'tile.serial' for long loops";
  return success();
}

/// Checks the iteration arguments against the inits, the results and the
/// yielded values.
static LogicalResult verifyIterArgs(LoopLikeOpInterface loop,
                                    bool carriesValues) {
  Operation *op = loop;
  ValueRange inits = loop.getInits();
  if (inits.empty())
    return success();
  if (!carriesValues)
    return op->emitOpError("does not carry values (iter_args): use "
                           "'tile.serial' or 'tile.unroll' for a loop-carried "
                           "value, or a buffer");
  for (Value init : inits)
    if (isa<BaseMemRefType>(init.getType()))
      return op->emitOpError("carries a buffer (")
             << init.getType()
             << ") in iter_args: carry scalars and vectors; use the buffer "
                "itself across iterations";
  Block::BlockArgListType iterArgs = loop.getRegionIterArgs();
  if (iterArgs.size() != inits.size())
    return op->emitOpError("has ")
           << inits.size() << " initial values but its body takes "
           << iterArgs.size() << " iteration arguments";
  for (auto [idx, init, arg, result] :
       llvm::enumerate(inits, iterArgs, op->getResults()))
    if (init.getType() != arg.getType() || init.getType() != result.getType())
      return op->emitOpError("iteration argument #")
             << idx << " has type " << arg.getType() << ", its initial value "
             << init.getType() << " and its result " << result.getType()
             << ": all three must match";
  return success();
}

LogicalResult tile::detail::verifyRangeLoop(Operation *op, bool constantBounds,
                                            bool carriesValues) {
  Value lb = op->getOperand(0), ub = op->getOperand(1),
        step = op->getOperand(2);
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() == 0 || !body.getArgument(0).getType().isIndex())
    return op->emitOpError("body must take the induction variable (index) as "
                           "its first argument");
  if (std::optional<int64_t> stride = getConstantIntValue(step);
      stride && *stride <= 0)
    return op->emitOpError("step must be positive, got ") << *stride;
  if (constantBounds && failed(verifyExpandableBounds(op, lb, ub, step)))
    return failure();
  if (auto pipelined = dyn_cast<PipelinedOp>(op)) {
    if (failed(verifyStageCount(op, pipelined.getStages())))
      return failure();
    if (pipelined.getRolled() && pipelined.getStages() < 2)
      return op->emitOpError("'rolled' needs at least 2 stages: with one "
                             "there is nothing to roll");
  }
  return verifyIterArgs(cast<LoopLikeOpInterface>(op), carriesValues);
}
