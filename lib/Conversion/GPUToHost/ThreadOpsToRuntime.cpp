//===- ThreadOpsToRuntime.cpp - Thread-level ops as runtime calls ---------===//
//
// Step 3 of the CPU target's lowering (HostLowering.h): thread, block and
// grid indices and extents become loads from the thread's context; block
// barriers, shuffles, cp.async mbarrier arrivals, TMA transaction
// completions and the wgmma group structure of gemms left in flight become
// calls into the CPU runtime; printf becomes the host's. One conversion pattern per op
// family; the ConversionTarget marks the gpu, nvgpu and NVVM dialects
// illegal, so an op of theirs that no pattern lowers is an error naming it.
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Runtime/CPURuntimeABI.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::host;
using namespace ::tile::cpu::entry;
namespace rt = ::tile::cpu;

/// `value` (an index) as `type`.
static Value castIndex(OpBuilder &builder, Location loc, Value value,
                       Type type) {
  if (type.isIndex())
    return value;
  return arith::IndexCastOp::create(builder, loc, type, value);
}

/// The thread's index within its block, x fastest.
static Value getLinearThreadId(OpBuilder &builder, Location loc) {
  Value x = loadContext(builder, loc, rt::kThreadIdX);
  Value y = loadContext(builder, loc, rt::kThreadIdX + 1);
  Value z = loadContext(builder, loc, rt::kThreadIdX + 2);
  Value dimX = loadContext(builder, loc, rt::kBlockDimX);
  Value dimY = loadContext(builder, loc, rt::kBlockDimX + 1);
  Value zy = arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, z, dimY), y);
  return arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, zy, dimX), x);
}

namespace {

/// gpu.thread_id, gpu.block_id, gpu.block_dim, gpu.grid_dim: the context
/// slot of the op's kind (`base`) plus its dimension.
template <typename OpTy>
struct GPUIndexToContext : public OpConversionPattern<OpTy> {
  GPUIndexToContext(MLIRContext *context, int64_t base)
      : OpConversionPattern<OpTy>(context), base(base) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t slot = base + static_cast<int64_t>(op.getDimension());
    Value value = loadContext(rewriter, op.getLoc(), slot);
    rewriter.replaceOp(op,
                       castIndex(rewriter, op.getLoc(), value, op.getType()));
    return success();
  }

  int64_t base;
};

/// An NVVM special-register read (nvvm.read.ptx.sreg.tid.x, ...): context
/// slot `slot`. One instance per register.
struct SpecialRegisterToContext : public ConversionPattern {
  SpecialRegisterToContext(MLIRContext *context, StringRef name, int64_t slot)
      : ConversionPattern(name, /*benefit=*/1, context), slot(slot) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    Value value = loadContext(rewriter, op->getLoc(), slot);
    rewriter.replaceOp(op, castIndex(rewriter, op->getLoc(), value,
                                     op->getResult(0).getType()));
    return success();
  }

  int64_t slot;
};

/// gpu.lane_id, nvvm.read.ptx.sreg.laneid: the linear thread index modulo
/// 32.
struct LaneIdToThreadIndex : public ConversionPattern {
  LaneIdToThreadIndex(MLIRContext *context, StringRef name)
      : ConversionPattern(name, /*benefit=*/1, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    Value lane = arith::RemUIOp::create(
        rewriter, loc, getLinearThreadId(rewriter, loc),
        arith::ConstantIndexOp::create(rewriter, loc, 32));
    rewriter.replaceOp(
        op, castIndex(rewriter, loc, lane, op->getResult(0).getType()));
    return success();
  }
};

/// nvvm.read.ptx.sreg.warpsize: 32.
struct WarpSizeToConstant : public OpConversionPattern<NVVM::WarpSizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(NVVM::WarpSizeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, rewriter.getIntegerAttr(op.getType(), 32));
    return success();
  }
};

/// A block barrier (gpu.barrier, nvvm.barrier0, nvvm.barrier without
/// operands): the runtime's, with its site (and the pass that placed it).
struct BlockBarrierToRuntime : public ConversionPattern {
  BlockBarrierToRuntime(MLIRContext *context, StringRef name, SiteTable &sites)
      : ConversionPattern(name, /*benefit=*/1, context), sites(sites) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumOperands() != 0 || op->getNumResults() != 0)
      return rewriter.notifyMatchFailure(op, "a named or counted barrier");
    std::string origin;
    if (auto pass = op->getAttrOfType<StringAttr>(kInsertedByAttr))
      origin = ("(placed by " + pass.getValue() + ")").str();
    Location loc = op->getLoc();
    callRuntime(rewriter, loc, kBarrier, {},
                {createI32(rewriter, loc, sites.getId(op, origin))});
    rewriter.eraseOp(op);
    return success();
  }

  SiteTable &sites;
};

/// A named barrier (nvvm.barrier with an id and a count, without a
/// reduction; nvvm.barrier.arrive): the runtime's, with its site.
struct NamedBarrierToRuntime : public ConversionPattern {
  NamedBarrierToRuntime(MLIRContext *context, StringRef name, SiteTable &sites)
      : ConversionPattern(name, /*benefit=*/2, context), sites(sites) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Value id, threads;
    bool wait = true;
    if (auto barrier = dyn_cast<NVVM::BarrierOp>(op)) {
      if (!barrier.getBarrierId() || !barrier.getNumberOfThreads() ||
          barrier.getReductionOp() || op->getNumResults() != 0)
        return rewriter.notifyMatchFailure(op, "not an id and a count");
      id = operands[0];
      threads = operands[1];
    } else {
      auto arrive = cast<NVVM::BarrierArriveOp>(op);
      wait = false;
      id = arrive.getBarrierId() ? operands[0]
                                 : createI32(rewriter, op->getLoc(), 0);
      threads = operands.back();
    }
    Location loc = op->getLoc();
    callRuntime(rewriter, loc, kNamedBarrier, {},
                {id, threads, createI32(rewriter, loc, wait ? 1 : 0),
                 createI32(rewriter, loc, sites.getId(op))});
    rewriter.eraseOp(op);
    return success();
  }

  SiteTable &sites;
};

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

static int32_t getShuffleMode(gpu::ShuffleMode mode) {
  switch (mode) {
  case gpu::ShuffleMode::XOR:
    return rt::kShuffleXor;
  case gpu::ShuffleMode::UP:
    return rt::kShuffleUp;
  case gpu::ShuffleMode::DOWN:
    return rt::kShuffleDown;
  case gpu::ShuffleMode::IDX:
    return rt::kShuffleIdx;
  }
  llvm_unreachable("unknown shuffle mode");
}

/// Whether the runtime's shuffle moves values of `type`.
static bool isShuffledByRuntime(Type type) {
  return type.isIntOrFloat() && type.getIntOrFloatBitWidth() <= 64;
}

/// gpu.shuffle of a scalar up to 64 bits: the runtime's, which exchanges
/// the values of the warp's fibers; the valid flag asked for after.
struct ShuffleToRuntime : public OpConversionPattern<gpu::ShuffleOp> {
  ShuffleToRuntime(MLIRContext *context, SiteTable &sites)
      : OpConversionPattern(context), sites(sites) {}

  LogicalResult
  matchAndRewrite(gpu::ShuffleOp shuffle, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = shuffle.getValue().getType();
    if (!isShuffledByRuntime(type))
      return rewriter.notifyMatchFailure(shuffle, "not a scalar of 64 bits "
                                                  "or fewer");
    Location loc = shuffle.getLoc();
    Value bits = callRuntime(
        rewriter, loc, kShuffle, rewriter.getI64Type(),
        {toBits(rewriter, loc, adaptor.getValue()), adaptor.getOffset(),
         adaptor.getWidth(),
         createI32(rewriter, loc, getShuffleMode(shuffle.getMode())),
         createI32(rewriter, loc, sites.getId(shuffle))});
    Value result = fromBits(rewriter, loc, bits, type);
    Value valid;
    if (!shuffle.getValid().use_empty()) {
      Value flag =
          callRuntime(rewriter, loc, kShuffleValid, rewriter.getI32Type(), {});
      valid = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                    flag, createI32(rewriter, loc, 0));
    } else {
      valid =
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 1);
    }
    rewriter.replaceOp(shuffle, {result, valid});
    return success();
  }

  SiteTable &sites;
};

/// nvvm.cp.async.mbarrier.arrive: the runtime's (the copies are complete
/// when issued, so the arrival is due at once).
struct CpAsyncArriveToRuntime
    : public OpConversionPattern<NVVM::CpAsyncMBarrierArriveOp> {
  CpAsyncArriveToRuntime(MLIRContext *context, SiteTable &sites)
      : OpConversionPattern(context), sites(sites) {}

  LogicalResult
  matchAndRewrite(NVVM::CpAsyncMBarrierArriveOp arrive, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = arrive.getLoc();
    Value address = LLVM::PtrToIntOp::create(
        rewriter, loc, rewriter.getI32Type(), adaptor.getAddr());
    callRuntime(rewriter, loc, kCpAsyncMBarrierArrive, {},
                {address, createI32(rewriter, loc, arrive.getNoinc() ? 1 : 0),
                 createI32(rewriter, loc, sites.getId(arrive))});
    rewriter.eraseOp(arrive);
    return success();
  }

  SiteTable &sites;
};

/// nvvm.mbarrier.complete_tx (a TMA copy's bytes, the copy performed by
/// the thread that issued it): the runtime's.
struct CompleteTxToRuntime
    : public OpConversionPattern<NVVM::MBarrierCompleteTxOp> {
  CompleteTxToRuntime(MLIRContext *context, SiteTable &sites)
      : OpConversionPattern(context), sites(sites) {}

  LogicalResult
  matchAndRewrite(NVVM::MBarrierCompleteTxOp complete, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = complete.getLoc();
    Value address = LLVM::PtrToIntOp::create(
        rewriter, loc, rewriter.getI32Type(), adaptor.getAddr());
    callRuntime(rewriter, loc, kMBarrierCompleteTx, {},
                {address, adaptor.getTxcount(),
                 createI32(rewriter, loc, sites.getId(complete))});
    rewriter.eraseOp(complete);
    return success();
  }

  SiteTable &sites;
};

/// wgmma.fence / commit_group / wait_group around a CPU gemm left in
/// flight: the runtime's, which checks the group's shared reads again when
/// it retires (CPURuntime.h).
struct WgmmaGroupToRuntime : public ConversionPattern {
  WgmmaGroupToRuntime(MLIRContext *context, StringRef name)
      : ConversionPattern(name, /*benefit=*/1, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    if (auto wait = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op))
      callRuntime(rewriter, loc, kWgmmaWaitGroup, {},
                  {createI32(rewriter, loc, wait.getGroup())});
    else
      callRuntime(rewriter, loc,
                  isa<NVVM::WgmmaFenceAlignedOp>(op) ? kWgmmaFence
                                                     : kWgmmaCommitGroup,
                  {}, {});
    rewriter.eraseOp(op);
    return success();
  }
};

/// Ops without a host meaning: cp.async groups (copies are complete when
/// issued), register rebalancing (registers are the host's), the fence
/// that makes mbarrier inits visible to TMA (the runtime's inits are, and
/// the race check orders them by the barrier that follows) and the proxy
/// fences between generic and asynchronous accesses (the host has one
/// proxy: its TMA copies and MMAs are plain loads and stores).
struct EraseOnHost : public ConversionPattern {
  EraseOnHost(MLIRContext *context, StringRef name)
      : ConversionPattern(name, /*benefit=*/1, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// gpu.printf: the host's printf, the format a private global, the
/// arguments promoted as C's varargs are.
struct PrintfToHost : public OpConversionPattern<gpu::PrintfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(gpu::PrintfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto printf = module.lookupSymbol<LLVM::LLVMFuncOp>("printf");
    if (!printf) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(module.getBody());
      printf = LLVM::LLVMFuncOp::create(
          rewriter, loc, "printf",
          LLVM::LLVMFunctionType::get(rewriter.getI32Type(), {ptrType},
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
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(module.getBody());
      auto arrayType =
          LLVM::LLVMArrayType::get(rewriter.getI8Type(), format.size());
      LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/true,
                             LLVM::Linkage::Internal, name,
                             rewriter.getStringAttr(format));
    }
    SmallVector<Value> arguments = {
        LLVM::AddressOfOp::create(rewriter, loc, ptrType, name)};
    for (Value arg : adaptor.getArgs()) {
      Type type = arg.getType();
      if (type.isIndex())
        arg = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                         arg);
      else if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 64)
        arg = arith::ExtFOp::create(rewriter, loc, rewriter.getF64Type(), arg);
      else if (type.isInteger(1))
        arg = arith::ExtUIOp::create(rewriter, loc, rewriter.getI32Type(), arg);
      else if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
        arg = arith::ExtSIOp::create(rewriter, loc, rewriter.getI32Type(), arg);
      arguments.push_back(arg);
    }
    LLVM::CallOp::create(rewriter, loc, printf, arguments);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void host::populateThreadOpsToRuntimePatterns(RewritePatternSet &patterns,
                                              SiteTable &sites) {
  MLIRContext *context = patterns.getContext();
  patterns.add<GPUIndexToContext<gpu::ThreadIdOp>>(context, rt::kThreadIdX);
  patterns.add<GPUIndexToContext<gpu::BlockIdOp>>(context, rt::kBlockIdX);
  patterns.add<GPUIndexToContext<gpu::BlockDimOp>>(context, rt::kBlockDimX);
  patterns.add<GPUIndexToContext<gpu::GridDimOp>>(context, rt::kGridDimX);
  static const std::pair<StringLiteral, int64_t> kSpecialRegisters[] = {
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
  for (auto [name, slot] : kSpecialRegisters)
    patterns.add<SpecialRegisterToContext>(context, name, slot);
  for (StringRef name :
       {gpu::LaneIdOp::getOperationName(), NVVM::LaneIdOp::getOperationName()})
    patterns.add<LaneIdToThreadIndex>(context, name);
  patterns.add<WarpSizeToConstant>(context);
  for (StringRef name : {gpu::BarrierOp::getOperationName(),
                         NVVM::Barrier0Op::getOperationName(),
                         NVVM::BarrierOp::getOperationName()})
    patterns.add<BlockBarrierToRuntime>(context, name, sites);
  for (StringRef name : {NVVM::BarrierOp::getOperationName(),
                         NVVM::BarrierArriveOp::getOperationName()})
    patterns.add<NamedBarrierToRuntime>(context, name, sites);
  patterns.add<ShuffleToRuntime, CpAsyncArriveToRuntime, CompleteTxToRuntime>(
      context, sites);
  for (StringRef name : {NVVM::WgmmaFenceAlignedOp::getOperationName(),
                         NVVM::WgmmaGroupSyncAlignedOp::getOperationName(),
                         NVVM::WgmmaWaitGroupSyncOp::getOperationName()})
    patterns.add<WgmmaGroupToRuntime>(context, name);
  for (StringRef name : {NVVM::CpAsyncCommitGroupOp::getOperationName(),
                         NVVM::CpAsyncWaitGroupOp::getOperationName(),
                         NVVM::SetMaxRegisterOp::getOperationName(),
                         NVVM::FenceMbarrierInitOp::getOperationName(),
                         NVVM::FenceProxyOp::getOperationName()})
    patterns.add<EraseOnHost>(context, name);
  patterns.add<PrintfToHost>(context);
}

LogicalResult host::lowerThreadOps(func::FuncOp func, SiteTable &sites) {
  // Said before the conversion, which would only say that it failed.
  WalkResult wide = func.walk([](gpu::ShuffleOp shuffle) {
    Type type = shuffle.getValue().getType();
    if (isShuffledByRuntime(type))
      return WalkResult::advance();
    shuffle.emitOpError("of ") << type << " is not supported by the CPU target";
    return WalkResult::interrupt();
  });
  if (wide.wasInterrupted())
    return failure();

  MLIRContext *context = func.getContext();
  ConversionTarget target(*context);
  target.addIllegalDialect<gpu::GPUDialect, nvgpu::NVGPUDialect,
                           NVVM::NVVMDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  RewritePatternSet patterns(context);
  populateThreadOpsToRuntimePatterns(patterns, sites);
  // What the conversion cannot lower, it reports as "failed to legalize";
  // a note says why.
  ScopedDiagnosticHandler note(context, [](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
        StringRef(diagnostic.str()).starts_with("failed to legalize"))
      diagnostic.attachNote()
          << "the CPU target runs no such op: it lowers thread indices, "
             "barriers, shuffles, mbarriers, asynchronous copies and printf "
             "(docs/CPUTarget.md)";
    return failure();
  });
  return applyPartialConversion(func, target, std::move(patterns));
}
