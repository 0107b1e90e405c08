//===- WorkgroupMemory.cpp - The host function and its shared arena -------===//
//
// Step 2 of the CPU target's lowering (HostLowering.h): the kernel's body
// moves into a host function whose leading arguments are the thread's
// context and the block's arena; workgroup globals, dynamic shared memory
// and mbarriers are laid out in the arena and become views of it (mbarrier
// ops become runtime calls on their arena offsets); memref types lose the
// workgroup address space.
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Runtime/CPURuntimeABI.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::host;
using namespace ::tile::cpu::entry;
namespace rt = ::tile::cpu;

static bool isWorkgroup(MemRefType type) {
  return getMemorySpace(type) == MemorySpace::Shared;
}

FailureOr<func::FuncOp> host::moveToHost(ModuleOp module,
                                         gpu::GPUFuncOp gpuFunc) {
  if (!gpuFunc.getWorkgroupAttributions().empty() ||
      !gpuFunc.getPrivateAttributions().empty())
    return gpuFunc.emitOpError(
        "has workgroup or private attributions, which the CPU target does "
        "not support");
  MLIRContext *ctx = module.getContext();
  OpBuilder builder(ctx);
  auto contextType = MemRefType::get({rt::kContextSlots}, builder.getI64Type());
  auto arenaType = MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
  SmallVector<Type> inputs = {contextType, arenaType};
  for (Type type : gpuFunc.getArgumentTypes())
    inputs.push_back(stripGPUMemorySpace(type));

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, gpuFunc.getLoc(), gpuFunc.getName(),
                                   FunctionType::get(ctx, inputs, {}));
  Region &body = func.getBody();
  body.takeBody(gpuFunc.getBody());
  Block &entry = body.front();
  entry.insertArgument(0u, contextType, gpuFunc.getLoc());
  entry.insertArgument(1u, arenaType, gpuFunc.getLoc());
  func.walk([&](gpu::ReturnOp ret) {
    builder.setInsertionPoint(ret);
    func::ReturnOp::create(builder, ret.getLoc());
    ret.erase();
  });
  return func;
}

/// Gives every value of `func` whose memref type is in the workgroup address
/// space the same type without it: the arena is host memory.
static void stripWorkgroupTypes(func::FuncOp func) {
  func.walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(stripGPUMemorySpace(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(stripGPUMemorySpace(argument.getType()));
  });
  // Casts between address spaces are now between equal types.
  func.walk([](memref::MemorySpaceCastOp cast) {
    if (cast.getSource().getType() != cast.getType())
      return;
    cast.replaceAllUsesWith(cast.getSource());
    cast.erase();
  });
}

/// The mbarriers of `create` live at arena offset `offset`, 8 bytes each;
/// their ops become runtime calls on the barrier's arena offset.
/// Calls `emit` at the builder's position, inside `if (predicate)` when the
/// op being lowered has one (an mbarrier op run by the threads it selects).
static void emitUnderPredicate(OpBuilder &builder, Location loc,
                               Value predicate,
                               llvm::function_ref<void()> emit) {
  if (!predicate)
    return emit();
  auto ifOp = scf::IfOp::create(builder, loc, predicate,
                                /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(ifOp.thenYield());
  emit();
}

static LogicalResult lowerMBarriers(OpBuilder &builder,
                                    nvgpu::MBarrierCreateOp create,
                                    Value offset, SiteTable &sites) {
  auto barrierOffset = [&](Location loc, Value id) -> Value {
    Value bytes = arith::MulIOp::create(
        builder, loc, id, arith::ConstantIndexOp::create(builder, loc, 8));
    Value at = arith::AddIOp::create(builder, loc, offset, bytes);
    return arith::IndexCastOp::create(builder, loc, builder.getI32Type(), at);
  };
  auto toFlag = [&](Location loc, Value flag) -> Value {
    return arith::ExtUIOp::create(builder, loc, builder.getI32Type(), flag);
  };
  for (Operation *user : llvm::make_early_inc_range(create->getUsers())) {
    Location loc = user->getLoc();
    builder.setInsertionPoint(user);
    if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(user)) {
      emitUnderPredicate(builder, loc, init.getPredicate(), [&] {
        Value count = arith::IndexCastOp::create(
            builder, loc, builder.getI32Type(), init.getCount());
        callRuntime(builder, loc, kMBarrierInit, {},
                    {barrierOffset(loc, init.getMbarId()), count,
                     createI32(builder, loc, sites.getId(init))});
      });
    } else if (auto arrive = dyn_cast<nvgpu::MBarrierArriveOp>(user)) {
      if (!arrive.getToken().use_empty())
        return arrive.emitOpError(
            "token is used; the CPU target only supports mbarrier waits by "
            "phase parity");
      callRuntime(builder, loc, kMBarrierArrive, {},
                  {barrierOffset(loc, arrive.getMbarId()),
                   createI32(builder, loc, sites.getId(arrive))});
    } else if (auto arrive =
                   dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(user)) {
      emitUnderPredicate(builder, loc, arrive.getPredicate(), [&] {
        Value bytes = arith::IndexCastOp::create(
            builder, loc, builder.getI32Type(), arrive.getTxcount());
        callRuntime(builder, loc, kMBarrierArriveExpectTx, {},
                    {barrierOffset(loc, arrive.getMbarId()), bytes,
                     createI32(builder, loc, sites.getId(arrive))});
      });
    } else if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(user)) {
      callRuntime(builder, loc, kMBarrierWaitParity, {},
                  {barrierOffset(loc, wait.getMbarId()),
                   toFlag(loc, wait.getPhaseParity()),
                   createI32(builder, loc, sites.getId(wait))});
    } else if (auto get = dyn_cast<nvgpu::MBarrierGetOp>(user)) {
      Value at = barrierOffset(loc, get.getMbarId());
      if (get.getType() != at.getType())
        return get.emitOpError("result type ")
               << get.getType() << " is not supported by the CPU target";
      get.replaceAllUsesWith(at);
    } else {
      return user->emitOpError("is not supported by the CPU target");
    }
    user->erase();
  }
  return success();
}

/// Lays out the block's arena: the workgroup globals the kernel uses, then
/// its dynamic shared memory, then its mbarriers; replaces each by a view
/// of `arena` at its offset.
LogicalResult host::placeWorkgroupMemory(gpu::GPUModuleOp gpuModule,
                                         gpu::GPUFuncOp gpuFunc,
                                         func::FuncOp func, SiteTable &sites) {
  OpBuilder builder(func.getContext());
  // The host function's second argument (moveToHost).
  Value arena = func.getArgument(1);
  int64_t offset = 0;
  DenseMap<StringAttr, int64_t> globalOffsets;
  for (auto global : gpuModule.getOps<memref::GlobalOp>()) {
    MemRefType type = global.getType();
    if (!isWorkgroup(type))
      continue;
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return global.emitOpError("workgroup global of type ")
             << type << " is not supported by the CPU target";
    offset = llvm::alignTo(offset, global.getAlignment().value_or(16));
    globalOffsets[global.getSymNameAttr()] = offset;
    offset +=
        type.getNumElements() * getBufferElementBytes(type.getElementType());
  }
  int64_t dynamicOffset = llvm::alignTo(offset, 16);
  int64_t dynamicBytes = 0;
  if (auto attr = gpuFunc->getAttrOfType<IntegerAttr>(kDynamicSharedMemoryAttr))
    dynamicBytes = attr.getInt();
  offset = dynamicOffset + dynamicBytes;

  LogicalResult result = success();
  SmallVector<Operation *> replaced, workgroupOps;
  // Collected first: lowering an mbarrier group erases its users.
  func.walk([&](Operation *op) {
    if (isa<memref::GetGlobalOp, gpu::DynamicSharedMemoryOp,
            nvgpu::MBarrierCreateOp>(op))
      workgroupOps.push_back(op);
  });
  for (Operation *op : workgroupOps) {
    Location loc = op->getLoc();
    if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      if (!isWorkgroup(get.getType()))
        continue;
      auto found = globalOffsets.find(get.getNameAttr().getAttr());
      if (found == globalOffsets.end()) {
        result = get.emitOpError("refers to an unknown workgroup global");
        continue;
      }
      builder.setInsertionPoint(get);
      Value start = arith::ConstantIndexOp::create(builder, loc, found->second);
      Value view = memref::ViewOp::create(builder, loc,
                                          stripGPUMemorySpace(get.getType()),
                                          arena, start, ValueRange());
      get.replaceAllUsesWith(view);
      replaced.push_back(get);
    } else if (auto dynamic = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
      builder.setInsertionPoint(dynamic);
      Value start = arith::ConstantIndexOp::create(builder, loc, dynamicOffset);
      Value size = arith::ConstantIndexOp::create(builder, loc, dynamicBytes);
      Value view = memref::ViewOp::create(
          builder, loc, stripGPUMemorySpace(dynamic.getType()), arena, start,
          ValueRange{size});
      dynamic.replaceAllUsesWith(view);
      replaced.push_back(dynamic);
    } else if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      offset = llvm::alignTo(offset, 8);
      builder.setInsertionPoint(create);
      Value start = arith::ConstantIndexOp::create(builder, loc, offset);
      offset += 8 * create.getBarriers().getType().getNumBarriers();
      if (failed(lowerMBarriers(builder, create, start, sites)))
        return failure();
      replaced.push_back(create);
    }
  }
  // On failure some may still have users: the pass fails, the IR is dropped.
  if (failed(result))
    return failure();
  for (Operation *op : replaced)
    op->erase();
  func->setAttr(kCPUSharedBytesAttr, builder.getI64IntegerAttr(offset));
  stripWorkgroupTypes(func);
  return success();
}
