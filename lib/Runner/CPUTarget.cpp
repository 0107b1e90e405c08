//===- CPUTarget.cpp - Run tile kernels on the CPU ------------------------===//

#include "tile/Runner/CPUTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Pipelines/Pipelines.h"
#include "tile/Runner/GuardedRun.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <thread>

using namespace mlir;

namespace tile::runner {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Packed-argument slots of a thread function's context and arena memrefs
/// (allocated and aligned pointer, offset, size, stride).
static constexpr size_t kMemRef1DSlots = 5;
/// Upper bound on the packed slots of one thread function.
static constexpr size_t kMaxSlots = 512;

namespace {

/// What one thread's call needs: the packed entry point and the argument
/// values, the context and arena slots to fill per thread.
struct ThreadCall {
  void (*packed)(void **) = nullptr;
  std::vector<uint64_t> values;
};

} // namespace

/// tile::cpu::ThreadFunction: calls the packed thread function with this
/// thread's context and its block's arena. The slots live on the fiber's
/// stack: the fibers of a block run interleaved.
static void callThread(void *userData, int64_t *context, void *arena) {
  const auto &call = *static_cast<const ThreadCall *>(userData);
  std::array<uint64_t, kMaxSlots> values;
  std::array<void *, kMaxSlots> pointers;
  size_t count = call.values.size();
  std::copy(call.values.begin(), call.values.end(), values.begin());
  values[0] = values[1] = reinterpret_cast<uint64_t>(context);
  values[kMemRef1DSlots] = values[kMemRef1DSlots + 1] =
      reinterpret_cast<uint64_t>(arena);
  for (size_t i = 0; i < count; ++i)
    pointers[i] = &values[i];
  call.packed(pointers.data());
}

CPUTarget::CPUTarget() : Target(Kind::CPU) {}
CPUTarget::~CPUTarget() = default;

llvm::Expected<std::unique_ptr<CPUTarget>>
CPUTarget::compile(ModuleOp module, const CPUTargetOptions &options) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;

  auto start = std::chrono::steady_clock::now();
  mlir::tile::TileToPTXOptions toGPU;
  mlir::tile::configureForCPUTarget(toGPU);
  toGPU.testReleaseEarly = options.releaseEarly;
  toGPU.testSkipResidentWait = options.skipResidentWait;
  PassManager tileToGPU(module.getContext());
  mlir::tile::buildTileToGPUPipeline(tileToGPU, toGPU);
  if (failed(tileToGPU.run(module)))
    return makeError("compilation failed");
  PassManager toHost(module.getContext());
  mlir::tile::TileToHostOptions hostOptions;
  hostOptions.raceCheck = options.raceCheck;
  hostOptions.testSkipBarrier = options.skipBarrier;
  hostOptions.testSkipBarrierKernel = options.skipBarrierKernel;
  mlir::tile::buildGPUToHostPipeline(toHost, hostOptions);
  if (failed(toHost.run(module)))
    return makeError("cannot lower the kernels for the CPU target");

  std::unique_ptr<CPUTarget> target(new CPUTarget());
  target->options = options;
  unsigned threads = options.workers
                         ? options.workers
                         : std::max(1u, std::thread::hardware_concurrency());
  target->options.workers = threads;
  target->deviceName = llvm::formatv("CPU ({0} worker thread{1}{2})", threads,
                                     threads == 1 ? "" : "s",
                                     options.raceCheck ? ", race check" : "")
                           .str();
  if (auto sites = module->getAttrOfType<ArrayAttr>(mlir::tile::kCPUSitesAttr))
    for (Attribute site : sites)
      target->sites.push_back(cast<StringAttr>(site).str());
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (auto bytes =
            func->getAttrOfType<IntegerAttr>(mlir::tile::kCPUSharedBytesAttr))
      target->sharedBytes[func.getName()] = bytes.getInt();

  ExecutionEngineOptions engineOptions;
  // ExecutionEngineOptions::transformer is a function_ref: the function it
  // refers to must outlive ExecutionEngine::create (ASan found it dangling
  // when bound to the temporary).
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  engineOptions.transformer = optimize;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return makeError("cannot JIT-compile the kernels for the CPU: " +
                     llvm::toString(engine.takeError()));
  target->engine = std::move(*engine);
  target->compileMs = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  target->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](const char *name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    using namespace cpu::entry;
    add(kBarrier, &tile_rt_barrier);
    add(kNamedBarrier, &tile_rt_named_barrier);
    add(kShuffle, &tile_rt_shuffle);
    add(kShuffleValid, &tile_rt_shuffle_valid);
    add(kMBarrierInit, &tile_rt_mbarrier_init);
    add(kMBarrierArrive, &tile_rt_mbarrier_arrive);
    add(kMBarrierWaitParity, &tile_rt_mbarrier_wait_parity);
    add(kCpAsyncMBarrierArrive, &tile_rt_cp_async_mbarrier_arrive);
    add(kMBarrierArriveExpectTx, &tile_rt_mbarrier_arrive_expect_tx);
    add(kMBarrierCompleteTx, &tile_rt_mbarrier_complete_tx);
    add(kWgmmaFence, &tile_rt_wgmma_fence);
    add(kWgmmaCommitGroup, &tile_rt_wgmma_commit_group);
    add(kWgmmaWaitGroup, &tile_rt_wgmma_wait_group);
    add(kSharedAccess, &tile_rt_shared_access);
    add(kOutOfBounds, &tile_rt_out_of_bounds);
    add(kTruncSFBF2, &tile_rt_truncsfbf2);
    return symbols;
  });
  return std::move(target);
}

llvm::Error CPUTarget::run(const KernelPlan &plan,
                           llvm::ArrayRef<HostBuffer *> buffers,
                           RuntimeFindings &findings) const {
  llvm::StringRef name = mlir::tile::KernelOp(plan.kernel).getSymName();
  auto bytes = sharedBytes.find(name);
  if (bytes == sharedBytes.end())
    return makeError("no CPU code was produced for kernel '" + name + "'");
  auto packed = engine->lookupPacked(name);
  if (!packed)
    return makeError("cannot find kernel '" + name +
                     "' in the CPU code: " + llvm::toString(packed.takeError()));

  // Context and arena (patched per thread), then the arguments laid out as
  // for the GPU (docs/KernelABI.md).
  ThreadCall call;
  call.packed = *packed;
  call.values = {0, 0, 0, cpu::kContextSlots, 1,
                 0, 0, 0, static_cast<uint64_t>(bytes->second), 1};
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    if (!argument.isBuffer) {
      call.values.push_back(argument.getScalarBits());
      continue;
    }
    auto address = reinterpret_cast<uint64_t>(buffers[index]->getData());
    call.values.insert(call.values.end(), {address, address, 0});
    for (int64_t size : argument.shape)
      call.values.push_back(size);
    std::vector<uint64_t> strides(argument.shape.size());
    uint64_t stride = 1;
    for (int d = static_cast<int>(argument.shape.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= argument.shape[d];
    }
    call.values.insert(call.values.end(), strides.begin(), strides.end());
  }
  if (call.values.size() > kMaxSlots)
    return makeError("kernel '" + name + "' has too many arguments for the "
                     "CPU target (" + llvm::Twine(call.values.size()) +
                     " scalar slots, at most " + llvm::Twine(kMaxSlots) + ")");

  cpu::LaunchSpec spec;
  for (int d = 0; d < 3; ++d) {
    spec.grid[d] = plan.grid[d];
    spec.block[d] = plan.block[d];
  }
  spec.sharedBytes = bytes->second;
  spec.function = callThread;
  spec.userData = &call;
  spec.raceCheck = options.raceCheck;
  spec.workers = options.workers;
  spec.maxBlocks = options.maxBlocks;
  spec.sites = sites;
  FaultReport faults(("kernel '" + name + "' on the CPU target").str());
  cpu::LaunchResult result = cpu::launch(spec);
  findings.races += result.races;
  findings.outOfBounds += result.outOfBounds;
  findings.deadlocks += result.deadlocks;
  for (const std::string &report : result.reports)
    findings.lines.push_back(("@" + name + ": " + report).str());
  return llvm::Error::success();
}

} // namespace tile::runner
