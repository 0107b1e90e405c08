//===- TileToGPU.cpp - Outline tile kernels into the gpu dialect ----------===//
//
// Two steps: a structural one that moves each kernel body into a gpu.func,
// places shared buffers and writes the host launcher; then a dialect
// conversion of the thread-level tile ops left in the bodies.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "TmaCopies.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-to-gpu"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETOGPU
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Static shared memory of one block; more needs dynamic shared memory.
static constexpr int64_t kMaxStaticSharedMemoryBytes = 48 * 1024;

static gpu::Dimension toGPU(Dim dim) {
  switch (dim) {
  case Dim::x:
    return gpu::Dimension::x;
  case Dim::y:
    return gpu::Dimension::y;
  case Dim::z:
    return gpu::Dimension::z;
  }
  llvm_unreachable("unknown dimension");
}

/// Pads `extents` to three dimensions with ones.
static SmallVector<int64_t, 3> padTo3D(ArrayRef<int64_t> extents) {
  SmallVector<int64_t, 3> padded(extents);
  padded.resize(3, 1);
  return padded;
}

namespace {

//===----------------------------------------------------------------------===//
// Outlining
//===----------------------------------------------------------------------===//

/// Records on `gpuModule` that its dynamic shared memory must start aligned
/// to `alignment` bytes (the largest any of its kernels asks for).
static void requireDynamicSharedAlignment(gpu::GPUModuleOp gpuModule,
                                          int64_t alignment) {
  auto known =
      gpuModule->getAttrOfType<IntegerAttr>(kDynamicSharedAlignmentAttr);
  if (known && known.getInt() >= alignment)
    return;
  gpuModule->setAttr(kDynamicSharedAlignmentAttr,
                     IntegerAttr::get(IntegerType::get(gpuModule.getContext(),
                                                       64),
                                      alignment));
}

/// Replaces the kernel's shared buffers by globals of `gpuModule`, or by views
/// of the dynamic shared memory when they exceed the static limit. Returns
/// the dynamic shared memory size in bytes (0 when static).
static int64_t placeSharedBuffers(KernelOp kernel, int64_t totalBytes,
                                  gpu::GPUModuleOp gpuModule,
                                  gpu::GPUFuncOp func) {
  SmallVector<AllocSharedOp> allocs(func.getBody().getOps<AllocSharedOp>());
  if (allocs.empty())
    return 0;
  MLIRContext *context = kernel.getContext();
  OpBuilder builder(context);

  if (totalBytes <= kMaxStaticSharedMemoryBytes) {
    SymbolTable symbols(gpuModule);
    for (auto [index, alloc] : llvm::enumerate(allocs)) {
      builder.setInsertionPoint(func);
      std::string name =
          ("__shared_" + kernel.getSymName() + "_" + Twine(index)).str();
      auto global = memref::GlobalOp::create(
          builder, alloc.getLoc(), name, builder.getStringAttr("private"),
          alloc.getType(), /*initial_value=*/Attribute(), /*constant=*/false,
          builder.getI64IntegerAttr(alloc.getEffectiveAlignment()));
      symbols.insert(global);
      builder.setInsertionPoint(alloc);
      Value replacement = memref::GetGlobalOp::create(
          builder, alloc.getLoc(), alloc.getType(), global.getSymName());
      alloc.replaceAllUsesWith(replacement);
      alloc.erase();
    }
    return 0;
  }

  // Dynamic shared memory: one byte buffer, a view per allocation at an
  // offset that respects its alignment (the same layout as
  // KernelOp::getStaticSharedMemoryBytes).
  builder.setInsertionPointToStart(&func.getBody().front());
  auto workgroup =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic},
                                   builder.getI8Type(), nullptr, workgroup);
  Value base =
      gpu::DynamicSharedMemoryOp::create(builder, kernel.getLoc(), bytesType);
  int64_t offset = 0;
  for (AllocSharedOp alloc : allocs) {
    MemRefType type = alloc.getType();
    offset = llvm::alignTo(offset, alloc.getEffectiveAlignment());
    requireDynamicSharedAlignment(gpuModule, alloc.getEffectiveAlignment());
    builder.setInsertionPoint(alloc);
    Value start =
        arith::ConstantIndexOp::create(builder, alloc.getLoc(), offset);
    Value view = memref::ViewOp::create(builder, alloc.getLoc(), type, base,
                                        start, ValueRange());
    alloc.replaceAllUsesWith(view);
    offset +=
        type.getNumElements() * getBufferElementBytes(type.getElementType());
    alloc.erase();
  }
  return totalBytes;
}

/// Writes the host launcher: a func.func named like the kernel that computes
/// the grid and launches `func`. It takes the kernel's arguments, then the
/// tensor maps `func` reads (`tile.tensor_maps`), encoded by the caller.
static void buildLauncher(KernelOp kernel, gpu::GPUFuncOp func,
                          int64_t dynamicSharedBytes) {
  OpBuilder builder(kernel);
  Location loc = kernel.getLoc();
  auto launcher = func::FuncOp::create(builder, loc, kernel.getSymName(),
                                       func.getFunctionType());
  launcher->setAttr(kLauncherAttr, builder.getUnitAttr());
  // What launching the kernel takes beyond its arguments, kept on the host
  // side where it outlives the gpu.func (getLaunchInfo).
  if (dynamicSharedBytes != 0)
    launcher->setAttr(kDynamicSharedMemoryAttr,
                      builder.getI64IntegerAttr(dynamicSharedBytes));
  if (Attribute maps = func->getAttr(kTensorMapsAttr))
    launcher->setAttr(kTensorMapsAttr, maps);
  Block *entry = launcher.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  // Dynamic grid extents: the grid_size region, evaluated on the host.
  SmallVector<Value> dynamicExtents;
  Region &gridSize = kernel.getGridSize();
  if (!gridSize.empty()) {
    IRMapping mapping;
    mapping.map(gridSize.getArguments(),
                entry->getArguments().take_front(gridSize.getNumArguments()));
    for (Operation &op : gridSize.front().without_terminator())
      builder.clone(op, mapping);
    for (Value extent :
         cast<YieldOp>(gridSize.front().getTerminator()).getValues())
      dynamicExtents.push_back(mapping.lookup(extent));
  }
  SmallVector<Value, 3> grid;
  unsigned nextDynamic = 0;
  for (int64_t extent : padTo3D(kernel.getGrid()))
    grid.push_back(ShapedType::isDynamic(extent)
                       ? dynamicExtents[nextDynamic++]
                       : arith::ConstantIndexOp::create(builder, loc, extent)
                             .getResult());
  SmallVector<Value, 3> block;
  for (int64_t extent : padTo3D(kernel.getThreads()))
    block.push_back(arith::ConstantIndexOp::create(builder, loc, extent));
  Value sharedBytes;
  if (dynamicSharedBytes != 0)
    sharedBytes = arith::ConstantIntOp::create(builder, loc,
                                               builder.getI32Type(),
                                               dynamicSharedBytes);
  gpu::LaunchFuncOp::create(builder, loc, func,
                            gpu::KernelDim3{grid[0], grid[1], grid[2]},
                            gpu::KernelDim3{block[0], block[1], block[2]},
                            sharedBytes, entry->getArguments());
  func::ReturnOp::create(builder, loc);
}

/// The largest alignment a buffer in dynamic shared memory may ask for: the
/// module's dynamic shared memory symbol is declared with the largest one
/// its kernels need (tile-serialize-to-ptx), up to this.
static constexpr int64_t kMaxDynamicSharedAlignment = 1024;

/// Checks that the buffers a kernel places in dynamic shared memory ask for
/// an alignment its declaration can give.
static LogicalResult checkDynamicSharedAlignment(KernelOp kernel) {
  if (kernel.getStaticSharedMemoryBytes() <= kMaxStaticSharedMemoryBytes)
    return success();
  for (AllocSharedOp alloc : kernel.getBody().getOps<AllocSharedOp>()) {
    if (alloc.getEffectiveAlignment() <= kMaxDynamicSharedAlignment)
      continue;
    return alloc.emitOpError("alignment ")
           << alloc.getEffectiveAlignment()
           << " is not supported: the kernel's shared buffers take "
           << kernel.getStaticSharedMemoryBytes() << " bytes, more than the "
           << kMaxStaticSharedMemoryBytes
           << " of static shared memory, and dynamic shared memory is "
              "aligned to at most "
           << kMaxDynamicSharedAlignment << " bytes";
  }
  return success();
}

/// Moves `kernel` into a gpu.func of `gpuModule` and replaces it by its host
/// launcher.
static void outlineKernel(KernelOp kernel, gpu::GPUModuleOp gpuModule) {
  MLIRContext *context = kernel.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(gpuModule.getBody());
  auto func = gpu::GPUFuncOp::create(builder, kernel.getLoc(),
                                     kernel.getSymName(),
                                     kernel.getFunctionType());
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  SmallVector<int32_t, 3> blockSize;
  for (int64_t extent : padTo3D(kernel.getThreads()))
    blockSize.push_back(static_cast<int32_t>(extent));
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(blockSize));
  SmallVector<int64_t, 3> grid = padTo3D(kernel.getGrid());
  if (llvm::none_of(grid, ShapedType::isDynamic)) {
    SmallVector<int32_t, 3> gridSize;
    for (int64_t extent : grid)
      gridSize.push_back(static_cast<int32_t>(extent));
    func.setKnownGridSizeAttr(builder.getDenseI32ArrayAttr(gridSize));
  }
  // NVVMDialect::getMinctasmAttrName(): PTX .minnctapersm, kept by the
  // gpu.func lowering.
  if (std::optional<int64_t> minBlocks = kernel.getMinBlocksPerSm())
    func->setAttr("nvvm.minctasm", builder.getI32IntegerAttr(
                                       static_cast<int32_t>(*minBlocks)));
  // NVVMDialect::getMaxnregAttrName(): PTX .maxnreg, the register count at
  // entry that setmaxnreg needs (tile-lower-warp-specialize).
  if (auto registers = kernel->getAttrOfType<IntegerAttr>(kMaxRegistersAttr))
    func->setAttr("nvvm.maxnreg", builder.getI32IntegerAttr(
                                      static_cast<int32_t>(registers.getInt())));
  if (FlatSymbolRefAttr reference = kernel.getReferenceAttr())
    func->setAttr(kReferenceAttr, reference);
  // The kernel's LLVM pipeline applies to its module, compiled on its own.
  if (StringAttr passes = kernel.getLlvmPassesAttr())
    gpuModule->setAttr(kLLVMPassesAttr, passes);
  if (StringAttr skipped = kernel.getSkipLlvmPassesAttr())
    gpuModule->setAttr(kSkipLLVMPassesAttr, skipped);

  // The builder made an entry block; the kernel's body replaces it.
  int64_t sharedBytes = kernel.getStaticSharedMemoryBytes();
  SmallVector<TensorMap> tensorMaps = collectTensorMaps(kernel);
  func.getBody().front().erase();
  func.getBody().takeBody(kernel.getBody());
  addTensorMaps(func, tensorMaps);

  int64_t dynamicSharedBytes =
      placeSharedBuffers(kernel, sharedBytes, gpuModule, func);
  if (dynamicSharedBytes != 0)
    func->setAttr(kDynamicSharedMemoryAttr,
                  builder.getI64IntegerAttr(dynamicSharedBytes));
  buildLauncher(kernel, func, dynamicSharedBytes);
  LLVM_DEBUG(llvm::dbgs() << "outlined kernel " << kernel.getSymName()
                          << " (dynamic shared memory: " << dynamicSharedBytes
                          << " bytes)\n");
  kernel.erase();
}

//===----------------------------------------------------------------------===//
// Conversion patterns
//===----------------------------------------------------------------------===//

template <typename TileOp, typename GPUOp>
struct IndexOpLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern<TileOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<GPUOp>(op, toGPU(op.getDim()));
    return success();
  }
};

struct BlockDimLowering : OpConversionPattern<BlockDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BlockDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    std::optional<ArrayRef<int32_t>> known =
        func ? func.getKnownBlockSize() : std::nullopt;
    if (!known)
      return rewriter.notifyMatchFailure(op, "no known block size");
    int64_t extent = (*known)[static_cast<unsigned>(op.getDim())];
    rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(op, extent);
    return success();
  }
};

/// An op without operands or results that has a gpu equivalent
/// (`tile.barrier`, `tile.return`).
template <typename TileOp, typename GPUOp>
struct NullaryOpLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern<TileOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto replacement = rewriter.replaceOpWithNewOp<GPUOp>(op);
    // Where a barrier comes from (kInsertedByAttr) outlives the tile op.
    replacement->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    return success();
  }
};

/// `tile.alloc_local` becomes a stack allocation; a `private` memory space is
/// restored with a cast so that users keep their types.
struct AllocLocalLowering : OpConversionPattern<AllocLocalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllocLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // In the entry block, where LLVM promotes allocas to registers (an
    // alloca elsewhere, e.g. after a loop, stays in local memory). A
    // per-thread buffer allocated in a loop body is not reused across
    // iterations before being written, so one allocation serves them all.
    // 16-byte alignment lets tile-vectorize use 128-bit accesses.
    OpBuilder::InsertionGuard guard(rewriter);
    if (auto func = op->getParentOfType<gpu::GPUFuncOp>())
      rewriter.setInsertionPointToStart(&func.getBody().front());
    MemRefType type = op.getType();
    IntegerAttr alignment = rewriter.getI64IntegerAttr(16);
    if (!type.getMemorySpace()) {
      Value alloca =
          memref::AllocaOp::create(rewriter, op.getLoc(), type, alignment);
      rewriter.replaceOp(op, alloca);
      return success();
    }
    auto generic = MemRefType::get(type.getShape(), type.getElementType(),
                                   type.getLayout());
    Value alloca =
        memref::AllocaOp::create(rewriter, op.getLoc(), generic, alignment);
    Value cast =
        memref::MemorySpaceCastOp::create(rewriter, op.getLoc(), type, alloca);
    rewriter.replaceOp(op, cast);
    return success();
  }
};

/// `tile.print` becomes `gpu.printf` with the block and thread coordinates
/// first and a printf conversion per value.
struct PrintLowering : OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Type i64 = rewriter.getI64Type();
    SmallVector<Value> args;
    for (gpu::Dimension dim :
         {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
      args.push_back(arith::IndexCastOp::create(
          rewriter, loc, i32, gpu::BlockIdOp::create(rewriter, loc, dim)));
    for (gpu::Dimension dim :
         {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
      args.push_back(arith::IndexCastOp::create(
          rewriter, loc, i32, gpu::ThreadIdOp::create(rewriter, loc, dim)));

    std::string format = "[block (%d,%d,%d) thread (%d,%d,%d)] ";
    StringRef text = op.getFormat();
    for (Value value : adaptor.getValues()) {
      size_t placeholder = text.find("{}");
      format += escapePercent(text.substr(0, placeholder));
      text = text.substr(placeholder + 2);
      Type type = value.getType();
      if (type.isIndex()) {
        args.push_back(arith::IndexCastOp::create(rewriter, loc, i64, value));
        format += "%lld";
      } else if (auto intType = dyn_cast<IntegerType>(type)) {
        // The verifier keeps integers signless and at most 64 bits wide.
        if (intType.getWidth() > 32) {
          if (intType.getWidth() < 64)
            value = arith::ExtSIOp::create(rewriter, loc, i64, value);
          args.push_back(value);
          format += "%lld";
        } else {
          if (intType.getWidth() == 1)
            value = arith::ExtUIOp::create(rewriter, loc, i32, value);
          else if (intType.getWidth() < 32)
            value = arith::ExtSIOp::create(rewriter, loc, i32, value);
          args.push_back(value);
          format += "%d";
        }
      } else {
        // printf takes doubles; gpu.printf promotes f32, narrower floats are
        // widened here.
        auto floatType = cast<FloatType>(type);
        if (floatType.getWidth() < 32)
          value =
              arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), value);
        args.push_back(value);
        format += "%g";
      }
    }
    format += escapePercent(text);
    format += "\n";
    rewriter.replaceOpWithNewOp<gpu::PrintfOp>(
        op, rewriter.getStringAttr(format), args);
    return success();
  }

  static std::string escapePercent(StringRef text) {
    std::string escaped;
    for (char c : text) {
      escaped += c;
      if (c == '%')
        escaped += '%';
    }
    return escaped;
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

/// Returns true for the tile ops this pass converts.
static bool isThreadLevelTileOp(Operation *op) {
  return isa<ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp, AllocSharedOp,
             AllocLocalOp, BarrierOp, PrintOp, ReturnOp, YieldOp, TmaLoadOp,
             TmaStoreOp>(
      op);
}

struct TileToGPUPass : tile::impl::TileToGPUBase<TileToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;

    // Collective ops are lowered by earlier passes; say which one remains.
    WalkResult remaining = module.walk([&](Operation *op) {
      if (!isa<TileDialect>(op->getDialect()) || isa<KernelOp>(op) ||
          isThreadLevelTileOp(op))
        return WalkResult::advance();
      op->emitOpError("must be lowered before tile-to-gpu: run the "
                      "tile-to-ptx pipeline, or the tile passes before "
                      "this one");
      return WalkResult::interrupt();
    });
    if (remaining.wasInterrupted())
      return signalPassFailure();
    for (KernelOp kernel : kernels)
      if (failed(checkDynamicSharedAlignment(kernel)))
        return signalPassFailure();

    // One gpu.module per kernel: each is translated and compiled by LLVM on
    // its own, so the kernels of a module compile in parallel.
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(module.getBody());
    SymbolTable symbols(module);
    SmallVector<gpu::GPUModuleOp> gpuModules;
    for (KernelOp kernel : kernels) {
      auto gpuModule = gpu::GPUModuleOp::create(
          builder, kernel.getLoc(), (kernel.getSymName() + suffix).str());
      symbols.insert(gpuModule); // Renamed if the name is taken.
      outlineKernel(kernel, gpuModule);
      gpuModules.push_back(gpuModule);
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());

    ConversionTarget target(*context);
    target.addIllegalDialect<TileDialect>();
    target.addLegalDialect<arith::ArithDialect, gpu::GPUDialect,
                           memref::MemRefDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    patterns.add<IndexOpLowering<ThreadIdOp, gpu::ThreadIdOp>,
                 IndexOpLowering<BlockIdOp, gpu::BlockIdOp>,
                 IndexOpLowering<GridDimOp, gpu::GridDimOp>, BlockDimLowering,
                 NullaryOpLowering<BarrierOp, gpu::BarrierOp>,
                 NullaryOpLowering<ReturnOp, gpu::ReturnOp>, AllocLocalLowering,
                 PrintLowering>(context);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      if (failed(applyPartialConversion(gpuModule, target, frozen)))
        return signalPassFailure();
  }
};

} // namespace
