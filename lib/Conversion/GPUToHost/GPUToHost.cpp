//===- GPUToHost.cpp - Run each GPU thread as a host function -------------===//
//
// The CPU target's lowering (docs/CPUTarget.md): every kernel gpu.func
// becomes a func.func that executes one GPU thread, called by the CPU
// runtime once per thread (each a fiber). Three steps per kernel, in this
// order because the later ones need what the earlier ones leave:
//
//  1. asynchronous copies become plain copies, then every memref access gets
//     its bounds check (and, in race-check mode, a report of each
//     workgroup-memory access), while memref types still say which memory
//     is shared;
//  2. the body moves into the host function, whose two leading arguments are
//     the thread's context and the block's shared-memory arena; workgroup
//     memory becomes views of the arena, memref types lose the workgroup
//     address space;
//  3. the gpu, nvgpu and NVVM ops become context loads and runtime calls.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Runtime/CPURuntimeABI.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-gpu-to-host"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGPUTOHOST
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

// The runtime's side of the ABI (context slots, shuffle modes, access kinds,
// entry point names): include/tile/Runtime/CPURuntimeABI.h.
namespace rt = ::tile::cpu;
using namespace rt::entry;
using rt::AccessKind;
using rt::kOutOfBoundsIndices;

/// Names of the attributes the runner reads.
static constexpr llvm::StringLiteral kSitesAttr = kCPUSitesAttr;
static constexpr llvm::StringLiteral kSharedBytesAttr = kCPUSharedBytesAttr;

static bool isWorkgroup(MemRefType type) {
  return getMemorySpace(type) == MemorySpace::Shared;
}

/// Whether `memorySpace` is one of the GPU's (gpu.address_space, or NVVM's
/// numbers: global 1, shared 3, local 5).
static bool isGPUMemorySpace(Attribute memorySpace) {
  if (isa_and_present<gpu::AddressSpaceAttr>(memorySpace))
    return true;
  if (auto space = dyn_cast_if_present<IntegerAttr>(memorySpace))
    return space.getInt() == 1 || space.getInt() == 3 ||
           space.getInt() == 5;
  return false;
}

/// `type` without a GPU address space: every memory is host memory.
static Type stripWorkgroup(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !isGPUMemorySpace(memref.getMemorySpace()))
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}

/// "file:line:col" of the first file location in `loc`, else its printout.
static std::string formatLocation(Location loc) {
  std::string result;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      result = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
                ":" + Twine(file.getColumn()))
                   .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.empty()) {
    llvm::raw_string_ostream os(result);
    loc.print(os);
  }
  return result;
}

namespace {

/// One memref access to check: the memref, its indices, how many elements
/// along the innermost dimension, and what it does.
struct Access {
  Operation *op;
  Value memref;
  SmallVector<Value> indices;
  /// The vector's shape, covering the innermost dimensions; empty for one
  /// element.
  SmallVector<int64_t> vectorShape;
  AccessKind kind = AccessKind::Read;

  /// How many elements the access covers along dimension `dim`.
  int64_t getExtent(size_t dim) const {
    size_t leading = indices.size() - vectorShape.size();
    return dim < leading ? 1 : vectorShape[dim - leading];
  }
  int64_t getNumElements() const {
    int64_t count = 1;
    for (int64_t extent : vectorShape)
      count *= extent;
    return count;
  }
};

class HostLowering {
public:
  HostLowering(ModuleOp module, bool raceCheck, int skipBarrier,
               StringRef skipBarrierKernel)
      : module(module), raceCheck(raceCheck), skipBarrier(skipBarrier),
        skipBarrierKernel(skipBarrierKernel), builder(module.getContext()) {}

  LogicalResult run();

private:
  // Step 1.
  LogicalResult lowerAsyncCopies(gpu::GPUFuncOp func);
  void instrumentAccesses(gpu::GPUFuncOp func);
  void instrumentViews(gpu::GPUFuncOp func);
  void instrument(const Access &access);
  // Step 2.
  FailureOr<func::FuncOp> moveToHost(gpu::GPUFuncOp func);
  LogicalResult placeWorkgroupMemory(gpu::GPUModuleOp gpuModule,
                                     gpu::GPUFuncOp gpuFunc,
                                     func::FuncOp func);
  // Step 3.
  LogicalResult lowerThreadOps(func::FuncOp func);
  LogicalResult lowerMBarriers(nvgpu::MBarrierCreateOp create, Value offset);
  void lowerPrintf(gpu::PrintfOp op);

  Value loadContext(Location loc, int64_t slot);
  Value getLinearThreadId(Location loc);
  Value call(Location loc, StringRef name, TypeRange results,
             ValueRange operands);
  Value constantI32(Location loc, int64_t value);
  int32_t addSite(Operation *op, StringRef what = "");

  LogicalResult skipTestBarrier(gpu::GPUFuncOp func);

  ModuleOp module;
  bool raceCheck;
  int skipBarrier;
  StringRef skipBarrierKernel;
  OpBuilder builder;
  /// The function being lowered's context and arena.
  Value context, arena;
  SmallVector<Attribute> sites;
  llvm::StringMap<int32_t> siteIds;
};

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int32_t HostLowering::addSite(Operation *op, StringRef what) {
  std::string text = formatLocation(op->getLoc()) + ": " +
                     op->getName().getStringRef().str();
  if (!what.empty())
    text += " " + what.str();
  // One id per description: the unrolled copies of one source op are one
  // site, so a race between them is reported once.
  auto [found, inserted] =
      siteIds.try_emplace(text, static_cast<int32_t>(sites.size()));
  if (inserted)
    sites.push_back(builder.getStringAttr(text));
  return found->second;
}

Value HostLowering::constantI32(Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, builder.getI32Type(),
                                      value);
}

/// Calls runtime function `name`, declaring it on first use.
Value HostLowering::call(Location loc, StringRef name, TypeRange results,
                         ValueRange operands) {
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    callee = func::FuncOp::create(
        builder, loc, name,
        builder.getFunctionType(operands.getTypes(), results));
    callee.setPrivate();
  }
  auto op = func::CallOp::create(builder, loc, callee, operands);
  return op.getNumResults() ? op.getResult(0) : Value();
}

Value HostLowering::loadContext(Location loc, int64_t slot) {
  Value index = arith::ConstantIndexOp::create(builder, loc, slot);
  Value value = memref::LoadOp::create(builder, loc, context, index);
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                    value);
}

Value HostLowering::getLinearThreadId(Location loc) {
  Value x = loadContext(loc, rt::kThreadIdX);
  Value y = loadContext(loc, rt::kThreadIdX + 1);
  Value z = loadContext(loc, rt::kThreadIdX + 2);
  Value dimX = loadContext(loc, rt::kBlockDimX);
  Value dimY = loadContext(loc, rt::kBlockDimX + 1);
  Value zy = arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, z, dimY), y);
  return arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, zy, dimX), x);
}

//===----------------------------------------------------------------------===//
// Step 1: asynchronous copies, bounds checks, race-check reports
//===----------------------------------------------------------------------===//

/// An asynchronous copy becomes a copy done when issued: a valid execution
/// of cp.async, whose completion is only promised by the later wait. Element
/// `k` of the innermost dimension is read when `k < srcElements`, else 0.
LogicalResult HostLowering::lowerAsyncCopies(gpu::GPUFuncOp func) {
  SmallVector<Operation *> tokenOps;
  SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
  func.walk([&](Operation *op) {
    if (isa<nvgpu::DeviceAsyncWaitOp, nvgpu::DeviceAsyncCreateGroupOp>(op))
      tokenOps.push_back(op);
    else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      copies.push_back(copy);
  });
  for (Operation *op : llvm::reverse(tokenOps))
    op->erase();
  for (nvgpu::DeviceAsyncCopyOp copy : copies) {
    for (Operation *user : copy.getAsyncToken().getUsers())
      return user->emitOpError("uses an asynchronous copy token in a way the "
                               "CPU target does not support");
    Location loc = copy.getLoc();
    builder.setInsertionPoint(copy);
    int64_t count = copy.getDstElements().getSExtValue();
    Type elementType = copy.getSrc().getType().getElementType();
    SmallVector<Value> srcIndices(copy.getSrcIndices());
    SmallVector<Value> dstIndices(copy.getDstIndices());
    if (!copy.getSrcElements()) {
      auto vectorType = VectorType::get({count}, elementType);
      Value value = vector::LoadOp::create(builder, loc, vectorType,
                                           copy.getSrc(), srcIndices);
      vector::StoreOp::create(builder, loc, value, copy.getDst(), dstIndices);
      copy.erase();
      continue;
    }
    Value zero = arith::ConstantOp::create(builder, loc,
                                           builder.getZeroAttr(elementType));
    for (int64_t k = 0; k < count; ++k) {
      Value offset = arith::ConstantIndexOp::create(builder, loc, k);
      SmallVector<Value> src = srcIndices, dst = dstIndices;
      src.back() = arith::AddIOp::create(builder, loc, src.back(), offset);
      dst.back() = arith::AddIOp::create(builder, loc, dst.back(), offset);
      Value inside = arith::CmpIOp::create(builder, loc,
                                           arith::CmpIPredicate::ult, offset,
                                           copy.getSrcElements());
      auto ifOp = scf::IfOp::create(
          builder, loc, inside,
          [&](OpBuilder &b, Location l) {
            Value v = memref::LoadOp::create(b, l, copy.getSrc(), src);
            scf::YieldOp::create(b, l, v);
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, zero); });
      memref::StoreOp::create(builder, loc, ifOp.getResult(0), copy.getDst(),
                              dst);
    }
    copy.erase();
  }
  return success();
}

/// A `memref.view` whose bytes (shift plus the view's size) leave its source
/// is reported as an out-of-bounds access at the view, and its shift is
/// replaced by 0: the accesses through it, checked against the view's own
/// shape, then stay inside the source (found by scripts/fuzz.py: a view past
/// the end of the shared arena corrupted the heap).
void HostLowering::instrumentViews(gpu::GPUFuncOp func) {
  SmallVector<memref::ViewOp> views;
  func.walk([&](memref::ViewOp view) { views.push_back(view); });
  for (memref::ViewOp view : views) {
    Location loc = view.getLoc();
    builder.setInsertionPoint(view);
    MemRefType type = view.getType();
    Value viewBytes = arith::ConstantIndexOp::create(
        builder, loc, getBufferElementBytes(type.getElementType()));
    unsigned dynamicIndex = 0;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      Value extent = type.isDynamicDim(dim)
                         ? view.getSizes()[dynamicIndex++]
                         : arith::ConstantIndexOp::create(builder, loc,
                                                          type.getDimSize(dim))
                               .getResult();
      viewBytes = arith::MulIOp::create(builder, loc, viewBytes, extent);
    }
    Value sourceBytes =
        memref::DimOp::create(builder, loc, view.getSource(), 0);
    Value shift = view.getByteShift();
    // shift <= sourceBytes - viewBytes, unsigned, and viewBytes <= sourceBytes.
    Value room = arith::SubIOp::create(builder, loc, sourceBytes, viewBytes);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value inside = arith::AndIOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, room,
                              zero),
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule, shift,
                              room));
    std::string typeText;
    llvm::raw_string_ostream(typeText)
        << type << " of " << view.getSource().getType()
        << " (its bytes leave the source)";
    int32_t site = addSite(view, typeText);
    Value outside = arith::XOrIOp::create(
        builder, loc, inside,
        arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 1));
    auto ifOp = scf::IfOp::create(builder, loc, outside, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      SmallVector<Value> reported = {constantI32(loc, site),
                                     constantI32(loc, 1)};
      reported.push_back(arith::IndexCastOp::create(
          builder, loc, builder.getI64Type(), shift));
      for (unsigned i = 1; i < kOutOfBoundsIndices; ++i)
        reported.push_back(arith::ConstantIntOp::create(
            builder, loc, builder.getI64Type(), 0));
      call(loc, kOutOfBounds, {}, reported);
    }
    view.getByteShiftMutable().assign(
        arith::SelectOp::create(builder, loc, inside, shift, zero));
  }
}

void HostLowering::instrumentAccesses(gpu::GPUFuncOp func) {
  SmallVector<Access> accesses;
  func.walk([&](Operation *op) {
    Access access{op, Value(), {}, {}, AccessKind::Read};
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      access.memref = load.getMemRef();
      access.indices.assign(load.getIndices().begin(), load.getIndices().end());
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      access.memref = store.getMemRef();
      access.indices.assign(store.getIndices().begin(),
                            store.getIndices().end());
      access.kind = AccessKind::Write;
    } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
      access.memref = load.getBase();
      access.indices.assign(load.getIndices().begin(), load.getIndices().end());
      access.vectorShape.assign(load.getVectorType().getShape().begin(),
                                load.getVectorType().getShape().end());
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      access.memref = store.getBase();
      access.indices.assign(store.getIndices().begin(),
                            store.getIndices().end());
      access.vectorShape.assign(store.getVectorType().getShape().begin(),
                                store.getVectorType().getShape().end());
      access.kind = AccessKind::Write;
    } else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
      access.memref = atomic.getMemref();
      access.indices.assign(atomic.getIndices().begin(),
                            atomic.getIndices().end());
      access.kind = AccessKind::Atomic;
    } else if (auto atomic = dyn_cast<memref::GenericAtomicRMWOp>(op)) {
      access.memref = atomic.getMemref();
      access.indices.assign(atomic.getIndices().begin(),
                            atomic.getIndices().end());
      access.kind = AccessKind::Atomic;
    } else {
      return;
    }
    // A memref of vectors holds whole vectors; the vector must fit the
    // dimensions it spans.
    auto memrefType = cast<MemRefType>(access.memref.getType());
    if (isa<VectorType>(memrefType.getElementType()) ||
        access.vectorShape.size() > access.indices.size())
      access.vectorShape.clear();
    accesses.push_back(std::move(access));
  });
  for (const Access &access : accesses)
    instrument(access);
}

/// Whether every index of `access` is a constant inside the memref.
static bool isStaticallyInBounds(const Access &access, MemRefType type) {
  for (auto [dim, index] : llvm::enumerate(access.indices)) {
    APInt value;
    if (type.isDynamicDim(dim) || !matchPattern(index, m_ConstantInt(&value)))
      return false;
    int64_t extent = access.getExtent(dim);
    if (value.getSExtValue() < 0 ||
        value.getSExtValue() + extent > type.getDimSize(dim))
      return false;
  }
  return true;
}

/// Guards the access with a bounds check (the out-of-bounds branch reports
/// it and yields 0) and, for workgroup memory in race-check mode, reports
/// the bytes it touches first.
void HostLowering::instrument(const Access &access) {
  Operation *op = access.op;
  auto type = cast<MemRefType>(access.memref.getType());
  bool shared = raceCheck && isSharedMemory(access.memref);
  bool checked = !isStaticallyInBounds(access, type);
  if (!shared && !checked)
    return;
  Location loc = op->getLoc();
  std::string typeText;
  llvm::raw_string_ostream(typeText) << "on " << type;
  int32_t site = addSite(op, typeText);
  builder.setInsertionPoint(op);

  // Reports the access to the race detector at the insertion point.
  auto report = [&]() {
    if (!shared)
      return;
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, access.memref);
    Value linear = metadata.getOffset();
    for (auto [index, stride] :
         llvm::zip(access.indices, metadata.getStrides()))
      linear = arith::AddIOp::create(
          builder, loc, linear,
          arith::MulIOp::create(builder, loc, index, stride));
    int64_t elementBytes = getBufferElementBytes(type.getElementType());
    Value bytes = arith::MulIOp::create(
        builder, loc, linear,
        arith::ConstantIndexOp::create(builder, loc, elementBytes));
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(
        builder, loc, access.memref);
    Value address = arith::IndexCastOp::create(
        builder, loc, builder.getI64Type(),
        arith::AddIOp::create(builder, loc, base, bytes));
    Value size = arith::ConstantIntOp::create(
        builder, loc, builder.getI64Type(),
        elementBytes * access.getNumElements());
    call(loc, kSharedAccess, {},
         {address, size, constantI32(loc, site),
          constantI32(loc, static_cast<int32_t>(access.kind))});
  };

  // Writes are reported once done: the runtime reads what they wrote.
  bool reportAfter = access.kind == AccessKind::Write;
  if (!checked) {
    if (reportAfter)
      builder.setInsertionPointAfter(op);
    report();
    return;
  }

  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value inside;
  for (auto [dim, index] : llvm::enumerate(access.indices)) {
    Value extent =
        type.isDynamicDim(dim)
            ? memref::DimOp::create(builder, loc, access.memref, dim)
                  .getResult()
            : arith::ConstantIndexOp::create(builder, loc,
                                             type.getDimSize(dim))
                  .getResult();
    Value fits;
    if (int64_t span = access.getExtent(dim); span > 1) {
      // index <= extent - span, unsigned, and span <= extent.
      Value last = arith::SubIOp::create(
          builder, loc, extent,
          arith::ConstantIndexOp::create(builder, loc, span));
      Value enough = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::sge, last, zero);
      fits = arith::AndIOp::create(
          builder, loc, enough,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule,
                                index, last));
    } else {
      fits = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                   index, extent);
    }
    inside = inside ? arith::AndIOp::create(builder, loc, inside, fits)
                          .getResult()
                    : fits;
  }

  auto ifOp = scf::IfOp::create(builder, loc, op->getResultTypes(), inside,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  auto setInsertionPointToBlockEnd = [&](Block *block) {
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      builder.setInsertionPoint(&block->back());
    else
      builder.setInsertionPointToEnd(block);
  };
  Block *thenBlock = &ifOp.getThenRegion().front();
  setInsertionPointToBlockEnd(thenBlock);
  op->moveBefore(builder.getInsertionBlock(), builder.getInsertionPoint());
  builder.setInsertionPoint(reportAfter ? op->getNextNode() : op);
  report();
  if (op->getNumResults()) {
    builder.setInsertionPointToEnd(thenBlock);
    scf::YieldOp::create(builder, loc, op->getResults());
  }

  Block *elseBlock = &ifOp.getElseRegion().front();
  setInsertionPointToBlockEnd(elseBlock);
  SmallVector<Value> reported = {
      constantI32(loc, site),
      constantI32(loc, static_cast<int64_t>(access.indices.size()))};
  for (unsigned i = 0; i < kOutOfBoundsIndices; ++i)
    reported.push_back(
        i < access.indices.size()
            ? arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                         access.indices[i])
                  .getResult()
            : arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                           0)
                  .getResult());
  call(loc, kOutOfBounds, {}, reported);
  if (op->getNumResults()) {
    SmallVector<Value> zeros;
    for (Type resultType : op->getResultTypes())
      zeros.push_back(arith::ConstantOp::create(
          builder, loc, cast<TypedAttr>(builder.getZeroAttr(resultType))));
    scf::YieldOp::create(builder, loc, zeros);
  }
  for (auto [oldResult, newResult] :
       llvm::zip(op->getResults(), ifOp.getResults()))
    oldResult.replaceAllUsesExcept(newResult, ifOp.thenYield());
}

//===----------------------------------------------------------------------===//
// Step 2: the host function and the shared-memory arena
//===----------------------------------------------------------------------===//

FailureOr<func::FuncOp> HostLowering::moveToHost(gpu::GPUFuncOp gpuFunc) {
  if (!gpuFunc.getWorkgroupAttributions().empty() ||
      !gpuFunc.getPrivateAttributions().empty())
    return gpuFunc.emitOpError(
        "has workgroup or private attributions, which the CPU target does "
        "not support");
  MLIRContext *ctx = module.getContext();
  auto contextType = MemRefType::get({rt::kContextSlots}, builder.getI64Type());
  auto arenaType =
      MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
  SmallVector<Type> inputs = {contextType, arenaType};
  for (Type type : gpuFunc.getArgumentTypes())
    inputs.push_back(stripWorkgroup(type));

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, gpuFunc.getLoc(),
                                   gpuFunc.getName(),
                                   FunctionType::get(ctx, inputs, {}));
  Region &body = func.getBody();
  body.takeBody(gpuFunc.getBody());
  Block &entry = body.front();
  context = entry.insertArgument(0u, contextType, gpuFunc.getLoc());
  arena = entry.insertArgument(1u, arenaType, gpuFunc.getLoc());
  func.walk([&](gpu::ReturnOp ret) {
    builder.setInsertionPoint(ret);
    func::ReturnOp::create(builder, ret.getLoc());
    ret.erase();
  });
  return func;
}

/// Lays out the block's arena: the workgroup globals the kernel uses, then
/// its dynamic shared memory, then its mbarriers; replaces each by a view
/// of `arena` at its offset.
LogicalResult HostLowering::placeWorkgroupMemory(gpu::GPUModuleOp gpuModule,
                                                 gpu::GPUFuncOp gpuFunc,
                                                 func::FuncOp func) {
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
      Value view = memref::ViewOp::create(
          builder, loc, stripWorkgroup(get.getType()), arena, start,
          ValueRange());
      get.replaceAllUsesWith(view);
      replaced.push_back(get);
    } else if (auto dynamic = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
      builder.setInsertionPoint(dynamic);
      Value start = arith::ConstantIndexOp::create(builder, loc, dynamicOffset);
      Value size = arith::ConstantIndexOp::create(builder, loc, dynamicBytes);
      Value view = memref::ViewOp::create(
          builder, loc, stripWorkgroup(dynamic.getType()), arena, start,
          ValueRange{size});
      dynamic.replaceAllUsesWith(view);
      replaced.push_back(dynamic);
    } else if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      offset = llvm::alignTo(offset, 8);
      builder.setInsertionPoint(create);
      Value start = arith::ConstantIndexOp::create(builder, loc, offset);
      offset += 8 * create.getBarriers().getType().getNumBarriers();
      if (failed(lowerMBarriers(create, start)))
        return failure();
      replaced.push_back(create);
    }
  }
  // On failure some may still have users: the pass fails, the IR is dropped.
  if (failed(result))
    return failure();
  for (Operation *op : replaced)
    op->erase();
  func->setAttr(kSharedBytesAttr, builder.getI64IntegerAttr(offset));
  return success();
}

/// The mbarriers of `create` live at arena offset `offset`, 8 bytes each;
/// their ops become runtime calls on the barrier's arena offset.
LogicalResult HostLowering::lowerMBarriers(nvgpu::MBarrierCreateOp create,
                                           Value offset) {
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
      auto emit = [&](OpBuilder &) {
        Value count = arith::IndexCastOp::create(
            builder, loc, builder.getI32Type(), init.getCount());
        call(loc, kMBarrierInit, {},
             {barrierOffset(loc, init.getMbarId()), count,
              constantI32(loc, addSite(init))});
      };
      if (Value predicate = init.getPredicate()) {
        auto ifOp = scf::IfOp::create(builder, loc, predicate,
                                      /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPoint(ifOp.thenYield());
        emit(builder);
      } else {
        emit(builder);
      }
    } else if (auto arrive = dyn_cast<nvgpu::MBarrierArriveOp>(user)) {
      if (!arrive.getToken().use_empty())
        return arrive.emitOpError(
            "token is used; the CPU target only supports mbarrier waits by "
            "phase parity");
      call(loc, kMBarrierArrive, {},
           {barrierOffset(loc, arrive.getMbarId()),
            constantI32(loc, addSite(arrive))});
    } else if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(user)) {
      call(loc, kMBarrierWaitParity, {},
           {barrierOffset(loc, wait.getMbarId()),
            toFlag(loc, wait.getPhaseParity()),
            constantI32(loc, addSite(wait))});
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

//===----------------------------------------------------------------------===//
// Step 3: thread-level ops
//===----------------------------------------------------------------------===//

/// The context slot of an NVVM special register read, or -1.
static int64_t getSpecialRegisterSlot(StringRef name) {
  static const llvm::StringMap<int64_t> slots = {
      {"nvvm.read.ptx.sreg.tid.x", rt::kThreadIdX},
      {"nvvm.read.ptx.sreg.tid.y", rt::kThreadIdX + 1},
      {"nvvm.read.ptx.sreg.tid.z", rt::kThreadIdX + 2},
      {"nvvm.read.ptx.sreg.ctaid.x", rt::kBlockIdX},
      {"nvvm.read.ptx.sreg.ctaid.y", rt::kBlockIdX + 1},
      {"nvvm.read.ptx.sreg.ctaid.z", rt::kBlockIdX + 2},
      {"nvvm.read.ptx.sreg.ntid.x", rt::kBlockDimX},
      {"nvvm.read.ptx.sreg.ntid.y", rt::kBlockDimX + 1},
      {"nvvm.read.ptx.sreg.ntid.z", rt::kBlockDimX + 2},
      {"nvvm.read.ptx.sreg.nctaid.x", rt::kGridDimX},
      {"nvvm.read.ptx.sreg.nctaid.y", rt::kGridDimX + 1},
      {"nvvm.read.ptx.sreg.nctaid.z", rt::kGridDimX + 2}};
  auto found = slots.find(name);
  return found == slots.end() ? -1 : found->second;
}

static int64_t getDimensionOffset(gpu::Dimension dim) {
  return static_cast<int64_t>(dim);
}

/// The shuffled value as the 64 bits the runtime moves, and back.
static Value toBits(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(width);
  if (type != intType)
    value = arith::BitcastOp::create(b, loc, intType, value);
  if (width < 64)
    value = arith::ExtUIOp::create(b, loc, b.getI64Type(), value);
  return value;
}

static Value fromBits(OpBuilder &b, Location loc, Value bits, Type type) {
  unsigned width = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(width);
  if (width < 64)
    bits = arith::TruncIOp::create(b, loc, intType, bits);
  if (type != intType)
    bits = arith::BitcastOp::create(b, loc, type, bits);
  return bits;
}

void HostLowering::lowerPrintf(gpu::PrintfOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = module.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto printf = module.lookupSymbol<LLVM::LLVMFuncOp>("printf");
  if (!printf) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    printf = LLVM::LLVMFuncOp::create(
        builder, loc, "printf",
        LLVM::LLVMFunctionType::get(builder.getI32Type(), {ptrType},
                                    /*isVarArg=*/true));
  }
  std::string format = op.getFormat().str();
  format.push_back('\0');
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = "__tile_printf_format_" + std::to_string(i);
    if (!module.lookupSymbol(name))
      break;
  }
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    auto arrayType =
        LLVM::LLVMArrayType::get(builder.getI8Type(), format.size());
    LLVM::GlobalOp::create(builder, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           builder.getStringAttr(format));
  }
  builder.setInsertionPoint(op);
  SmallVector<Value> arguments = {
      LLVM::AddressOfOp::create(builder, loc, ptrType, name)};
  for (Value arg : op.getArgs()) {
    Type type = arg.getType();
    if (type.isIndex())
      arg = arith::IndexCastOp::create(builder, loc, builder.getI64Type(), arg);
    else if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 64)
      arg = arith::ExtFOp::create(builder, loc, builder.getF64Type(), arg);
    else if (type.isInteger(1))
      arg = arith::ExtUIOp::create(builder, loc, builder.getI32Type(), arg);
    else if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
      arg = arith::ExtSIOp::create(builder, loc, builder.getI32Type(), arg);
    arguments.push_back(arg);
  }
  LLVM::CallOp::create(builder, loc, printf, arguments);
  op.erase();
}

LogicalResult HostLowering::lowerThreadOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    builder.setInsertionPoint(op);
    StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace()
                                         : StringRef();
    if (dialect != "gpu" && dialect != "nvgpu" && dialect != "nvvm")
      continue;

    auto replaceWithSlot = [&](int64_t slot) {
      Value value = loadContext(loc, slot);
      Type type = op->getResult(0).getType();
      if (!type.isIndex())
        value = arith::IndexCastOp::create(builder, loc, type, value);
      op->getResult(0).replaceAllUsesWith(value);
      op->erase();
    };

    if (auto id = dyn_cast<gpu::ThreadIdOp>(op)) {
      replaceWithSlot(rt::kThreadIdX + getDimensionOffset(id.getDimension()));
    } else if (auto id = dyn_cast<gpu::BlockIdOp>(op)) {
      replaceWithSlot(rt::kBlockIdX + getDimensionOffset(id.getDimension()));
    } else if (auto dim = dyn_cast<gpu::BlockDimOp>(op)) {
      replaceWithSlot(rt::kBlockDimX + getDimensionOffset(dim.getDimension()));
    } else if (auto dim = dyn_cast<gpu::GridDimOp>(op)) {
      replaceWithSlot(rt::kGridDimX + getDimensionOffset(dim.getDimension()));
    } else if (int64_t slot =
                   getSpecialRegisterSlot(op->getName().getStringRef());
               slot >= 0) {
      replaceWithSlot(slot);
    } else if (isa<gpu::LaneIdOp>(op) ||
               op->getName().getStringRef() == "nvvm.read.ptx.sreg.laneid") {
      Value lane = arith::RemUIOp::create(
          builder, loc, getLinearThreadId(loc),
          arith::ConstantIndexOp::create(builder, loc, 32));
      Type type = op->getResult(0).getType();
      if (!type.isIndex())
        lane = arith::IndexCastOp::create(builder, loc, type, lane);
      op->getResult(0).replaceAllUsesWith(lane);
      op->erase();
    } else if (op->getName().getStringRef() == "nvvm.read.ptx.sreg.warpsize") {
      op->getResult(0).replaceAllUsesWith(constantI32(loc, 32));
      op->erase();
    } else if (isa<gpu::BarrierOp, NVVM::Barrier0Op>(op) ||
               (isa<NVVM::BarrierOp>(op) && op->getNumOperands() == 0 &&
                op->getNumResults() == 0)) {
      std::string origin;
      if (auto pass = op->getAttrOfType<StringAttr>(kInsertedByAttr))
        origin = ("(placed by " + pass.getValue() + ")").str();
      call(loc, kBarrier, {}, {constantI32(loc, addSite(op, origin))});
      op->erase();
    } else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      Type type = shuffle.getValue().getType();
      if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() > 64)
        return shuffle.emitOpError("of ")
               << type << " is not supported by the CPU target";
      int32_t mode = rt::kShuffleXor;
      switch (shuffle.getMode()) {
      case gpu::ShuffleMode::XOR:
        mode = rt::kShuffleXor;
        break;
      case gpu::ShuffleMode::UP:
        mode = rt::kShuffleUp;
        break;
      case gpu::ShuffleMode::DOWN:
        mode = rt::kShuffleDown;
        break;
      case gpu::ShuffleMode::IDX:
        mode = rt::kShuffleIdx;
        break;
      }
      Value bits =
          call(loc, kShuffle, builder.getI64Type(),
               {toBits(builder, loc, shuffle.getValue()), shuffle.getOffset(),
                shuffle.getWidth(), constantI32(loc, mode),
                constantI32(loc, addSite(op))});
      shuffle.getShuffleResult().replaceAllUsesWith(
          fromBits(builder, loc, bits, type));
      if (!shuffle.getValid().use_empty()) {
        Value valid = call(loc, kShuffleValid, builder.getI32Type(), {});
        Value zero = arith::ConstantIntOp::create(builder, loc,
                                                  builder.getI32Type(), 0);
        shuffle.getValid().replaceAllUsesWith(arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ne, valid, zero));
      }
      op->erase();
    } else if (auto arrive = dyn_cast<NVVM::CpAsyncMBarrierArriveOp>(op)) {
      Value address = LLVM::PtrToIntOp::create(
          builder, loc, builder.getI32Type(), arrive.getAddr());
      Value noinc = arith::ConstantIntOp::create(
          builder, loc, builder.getI32Type(), arrive.getNoinc() ? 1 : 0);
      call(loc, kCpAsyncMBarrierArrive, {},
           {address, noinc, constantI32(loc, addSite(op))});
      op->erase();
    } else if (isa<NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
                   NVVM::SetMaxRegisterOp>(op)) {
      // Copies are complete when issued; registers are the host's.
      op->erase();
    } else if (auto print = dyn_cast<gpu::PrintfOp>(op)) {
      lowerPrintf(print);
    } else {
      return op->emitOpError("is not supported by the CPU target");
    }
  }
  return success();
}

/// The race check's own test: removes one block barrier of one kernel, as
/// if barrier insertion had missed it, and says which.
LogicalResult HostLowering::skipTestBarrier(gpu::GPUFuncOp func) {
  if (skipBarrier < 0 || func.getName() != skipBarrierKernel)
    return success();
  SmallVector<gpu::BarrierOp> barriers;
  func.walk([&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
  if (static_cast<size_t>(skipBarrier) >= barriers.size())
    return func.emitError("test-skip-barrier=")
           << skipBarrier << ": kernel '" << func.getName() << "' has "
           << barriers.size() << " block barriers";
  gpu::BarrierOp barrier = barriers[skipBarrier];
  auto pass = barrier->getAttrOfType<StringAttr>(kInsertedByAttr);
  barrier.emitRemark("test-skip-barrier=")
      << skipBarrier << ": removed this barrier of " << barriers.size()
      << " (placed by " << (pass ? pass.getValue() : "the kernel author")
      << ")";
  barrier.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Gives every value of `func` whose memref type is in the workgroup address
/// space the same type without it: the arena is host memory.
static void stripWorkgroupTypes(func::FuncOp func) {
  func.walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(stripWorkgroup(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(stripWorkgroup(argument.getType()));
  });
  // Casts between address spaces are now between equal types.
  func.walk([](memref::MemorySpaceCastOp cast) {
    if (cast.getSource().getType() != cast.getType())
      return;
    cast.replaceAllUsesWith(cast.getSource());
    cast.erase();
  });
}

LogicalResult HostLowering::run() {
  // The launchers go first: the runtime launches the thread functions, which
  // take their names.
  for (auto launcher :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (launcher->hasAttr(kLauncherAttr))
      launcher.erase();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    SmallVector<gpu::GPUFuncOp> funcs(gpuModule.getOps<gpu::GPUFuncOp>());
    for (gpu::GPUFuncOp gpuFunc : funcs) {
      if (!gpuFunc.isKernel())
        return gpuFunc.emitOpError(
            "is not a kernel; the CPU target only runs kernels");
      // Inline PTX (e.g. a packed f16x2 atomic) has no host meaning; the
      // host JIT would abort on it.
      WalkResult inlineAsm = gpuFunc.walk([](LLVM::InlineAsmOp op) {
        op.emitOpError("is inline PTX, which the CPU target cannot run (")
            << op.getAsmString() << ")";
        return WalkResult::interrupt();
      });
      if (inlineAsm.wasInterrupted() || failed(skipTestBarrier(gpuFunc)) ||
          failed(lowerAsyncCopies(gpuFunc)))
        return failure();
      instrumentViews(gpuFunc);
      instrumentAccesses(gpuFunc);
      FailureOr<func::FuncOp> func = moveToHost(gpuFunc);
      if (failed(func) ||
          failed(placeWorkgroupMemory(gpuModule, gpuFunc, *func)))
        return failure();
      if (auto reference = gpuFunc->getAttr(kReferenceAttr))
        (*func)->setAttr(kReferenceAttr, reference);
      stripWorkgroupTypes(*func);
      if (failed(lowerThreadOps(*func)))
        return failure();
      LLVM_DEBUG(llvm::dbgs() << "lowered " << gpuFunc.getName() << "\n");
    }
    gpuModule.erase();
  }
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  module->setAttr(kSitesAttr, builder.getArrayAttr(sites));
  return success();
}

namespace {
struct TileGPUToHostPass
    : public mlir::tile::impl::TileGPUToHostBase<TileGPUToHostPass> {
  using TileGPUToHostBase::TileGPUToHostBase;

  void runOnOperation() override {
    HostLowering lowering(getOperation(), raceCheck, testSkipBarrier,
                          testSkipBarrierKernel);
    if (failed(lowering.run()))
      signalPassFailure();
  }
};
} // namespace
