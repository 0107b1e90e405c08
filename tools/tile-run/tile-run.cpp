//===- tile-run.cpp - Run, check and time a tile kernel -------------------===//
//
// tile-run FILE.mlir [--kernel NAME] [--shape A=16x32] [--arg n=7]
//                    [--check] [--bench] [--json]
//                    [--target=auto|gpu|cpu] [--race-check]
//
// Compiles the file in-process with the tile-to-ptx pipeline, allocates the
// kernel's buffers (inputs random, write-only outputs poisoned), launches it
// through the CUDA driver, compares the outputs with the kernel's reference
// (a func.func JIT-compiled for the CPU, or another kernel run on the GPU)
// and times it the BENCH.md way. The CPU target (the default without a GPU)
// runs the kernel on the host instead, one fiber per GPU thread, and with
// --race-check reports shared-memory races (docs/CPUTarget.md). Exit status:
// 0 passed, 1 failed or error.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "tile/InitAll.h"
#include "tile/Pipelines/Pipelines.h"
#include "tile/Runner/CPUTarget.h"
#include "tile/Runner/GuardedRun.h"
#include "tile/Runner/KernelPlan.h"
#include "tile/Runner/LinkDefinitions.h"
#include "tile/Runner/ReferenceJIT.h"
#include "tile/Runner/Report.h"
#include "tile/Runtime/CudaDriver.h"
#include "tile/Tools/ParserWorkarounds.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

using namespace mlir;
using namespace ::tile::runner;
namespace cl = llvm::cl;

static cl::OptionCategory category("tile-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<kernels.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    kernelName("kernel", cl::desc("Kernel to run (default: the only one)"),
               cl::cat(category));
static cl::list<std::string>
    shapes("shape", cl::desc("Shape of a dynamic memref argument: NAME=AxB"),
           cl::cat(category));
static cl::list<std::string>
    values("arg", cl::desc("Value of a scalar argument: NAME=VALUE"),
           cl::cat(category));
static cl::opt<bool> check("check",
                           cl::desc("Compare the outputs with the kernel's "
                                    "reference"),
                           cl::cat(category));
static cl::opt<unsigned> checkRepeat(
    "check-repeat", cl::init(1),
    cl::desc("With --check: launch and check the kernel N times in a row, "
             "each on fresh copies of the inputs with the outputs poisoned "
             "again (a race or a hang shows up as a mismatch or a timeout)"),
    cl::cat(category));
static cl::opt<bool> bench("bench",
                           cl::desc("Time the kernel (warm-up, L2 flushed "
                                    "before every run, median/min/max)"),
                           cl::cat(category));
static cl::opt<unsigned> repetitions("reps", cl::init(100),
                                     cl::desc("Timed runs of --bench"),
                                     cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::init(5),
                                cl::desc("Untimed runs before --bench"),
                                cl::cat(category));
static cl::opt<double> flops("flops", cl::init(0),
                             cl::desc("Floating-point operations of one run, "
                                      "for TFLOP/s"),
                             cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::init(1),
                              cl::desc("Seed of the random inputs"),
                              cl::cat(category));
static cl::opt<bool> json("json", cl::desc("Print the report as JSON"),
                          cl::cat(category));
static cl::opt<int> deviceOrdinal("device", cl::init(0),
                                  cl::desc("CUDA device ordinal"),
                                  cl::cat(category));
static cl::opt<std::string> chip("chip", cl::init("sm_90a"),
                                 cl::desc("Target GPU architecture"),
                                 cl::cat(category));
enum class Target { Auto, GPU, CPU };
static cl::opt<bool> tma(
    "tma", cl::init(true),
    cl::desc("Copy the tiles of rolled pipelines with the Tensor Memory "
             "Accelerator where the chip and the copy allow it (--tma=false: "
             "cp.async)"),
    cl::cat(category));
static cl::opt<Target> target(
    "target", cl::init(Target::Auto),
    cl::desc("Where the kernel runs (default: the GPU when one is present, "
             "else the CPU)"),
    cl::values(clEnumValN(Target::Auto, "auto", "the GPU if present, else "
                                                 "the CPU"),
               clEnumValN(Target::GPU, "gpu", "the GPU, through the CUDA "
                                              "driver"),
               clEnumValN(Target::CPU, "cpu",
                          "the CPU: one fiber per GPU thread, exact "
                          "thread-level semantics")),
    cl::cat(category));
static cl::opt<bool> raceCheck(
    "race-check",
    cl::desc("CPU target: report shared-memory accesses of different threads "
             "of a block that no barrier orders (implies --target=cpu)"),
    cl::cat(category));
static cl::opt<unsigned> workers(
    "workers", cl::init(0),
    cl::desc("CPU target: OS threads running blocks (default: one per core)"),
    cl::cat(category));
static cl::opt<int64_t> maxBlocks(
    "blocks", cl::init(0),
    cl::desc("CPU target: run only the first N blocks of the grid (a quick "
             "race check of a large grid; not with --check)"),
    cl::cat(category));
static cl::opt<int> testSkipBarrier(
    "test-skip-barrier", cl::init(-1),
    cl::desc("CPU target, testing the race check: remove the kernel's N-th "
             "block barrier (from 0, in program order)"),
    cl::cat(category));
static cl::opt<std::string> dumpPTX("dump-ptx",
                                    cl::desc("Also write the kernel's PTX to a file"),
                                    cl::cat(category));

/// 256 MB, larger than any L2 cache: written before every timed run.
static constexpr size_t kFlushBytes = size_t(256) << 20;

/// Prints `message` as tile-run's error and returns the failure status.
static int fail(const llvm::Twine &message) {
  llvm::errs() << "tile-run: " << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  return fail(llvm::toString(std::move(error)));
}

namespace {

/// The device side of one launch: buffers and the parameter array.
struct Launch {
  std::vector<::tile::runtime::DeviceBuffer> buffers;
  std::vector<uint64_t> storage;
  std::vector<void *> parameters;
  ::tile::runtime::LaunchConfig config;
};

} // namespace

/// Allocates and fills device buffers from `hosts` and lays out the kernel
/// parameters (memref descriptors expanded, see docs/KernelABI.md).
static llvm::Expected<Launch>
prepareLaunch(const ::tile::runtime::Device &device, const KernelPlan &plan,
              llvm::ArrayRef<std::unique_ptr<HostBuffer>> hosts,
              const mlir::tile::KernelLaunchInfo &info) {
  Launch launch;
  size_t slots = info.tensorMaps.size();
  for (const ArgumentPlan &argument : plan.arguments)
    slots += argument.isBuffer ? 3 + 2 * argument.shape.size() : 1;
  launch.storage.reserve(slots);
  std::vector<uint64_t> addresses(plan.arguments.size(), 0);
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    if (!argument.isBuffer) {
      launch.storage.push_back(argument.getScalarBits());
      launch.parameters.push_back(&launch.storage.back());
      continue;
    }
    const HostBuffer &host = *hosts[index];
    llvm::Expected<::tile::runtime::DeviceBuffer> buffer =
        device.allocate(host.getBytes());
    if (!buffer)
      return buffer.takeError();
    if (llvm::Error error =
            device.copyToDevice(*buffer, host.getData(), host.getBytes()))
      return std::move(error);
    uint64_t address = buffer->getAddress();
    addresses[index] = address;
    launch.buffers.push_back(std::move(*buffer));
    std::vector<uint64_t> descriptor = {address, address, 0};
    for (int64_t size : argument.shape)
      descriptor.push_back(size);
    std::vector<uint64_t> strides(argument.shape.size());
    uint64_t stride = 1;
    for (int d = static_cast<int>(argument.shape.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= argument.shape[d];
    }
    descriptor.insert(descriptor.end(), strides.begin(), strides.end());
    for (uint64_t field : descriptor) {
      launch.storage.push_back(field);
      launch.parameters.push_back(&launch.storage.back());
    }
  }
  // Tensor maps: encoded over the argument's buffer, copied to the device
  // (the kernel fences them for the tensor-map proxy), passed by address.
  // The buffers come after the arguments', which readOutputs reads.
  for (const mlir::tile::TensorMapInfo &tensorMap : info.tensorMaps) {
    const ArgumentPlan &argument = plan.arguments[tensorMap.argument];
    ::tile::runtime::TiledTensorMapSpec spec;
    spec.address = addresses[tensorMap.argument];
    spec.elementBytes = static_cast<unsigned>(getElementBytes(argument.kind));
    spec.shape.assign(argument.shape.begin(), argument.shape.end());
    for (int64_t extent : tensorMap.box)
      spec.box.push_back(static_cast<uint32_t>(extent));
    spec.swizzleBytes = static_cast<unsigned>(tensorMap.swizzle);
    llvm::Expected<::tile::runtime::TensorMap> map =
        device.encodeTiledTensorMap(spec);
    if (!map)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the tensor map of argument '" + argument.name +
              "': " + llvm::toString(map.takeError()));
    llvm::Expected<::tile::runtime::DeviceBuffer> buffer =
        device.allocate(sizeof(map->words));
    if (!buffer)
      return buffer.takeError();
    if (llvm::Error error =
            device.copyToDevice(*buffer, map->words, sizeof(map->words)))
      return std::move(error);
    launch.storage.push_back(buffer->getAddress());
    launch.parameters.push_back(&launch.storage.back());
    launch.buffers.push_back(std::move(*buffer));
  }
  for (int d = 0; d < 3; ++d) {
    launch.config.grid[d] = static_cast<uint32_t>(plan.grid[d]);
    launch.config.block[d] = static_cast<uint32_t>(plan.block[d]);
  }
  launch.config.dynamicSharedBytes =
      static_cast<uint32_t>(info.dynamicSharedBytes);
  return std::move(launch);
}

/// Copies the written buffers of `launch` back into `hosts`.
static llvm::Error readOutputs(const ::tile::runtime::Device &device,
                               const KernelPlan &plan, const Launch &launch,
                               llvm::ArrayRef<std::unique_ptr<HostBuffer>> hosts) {
  size_t next = 0;
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    if (!argument.isBuffer)
      continue;
    const ::tile::runtime::DeviceBuffer &buffer = launch.buffers[next++];
    if (argument.written)
      if (llvm::Error error = device.copyToHost(
              hosts[index]->getData(), buffer, hosts[index]->getBytes()))
        return error;
  }
  return llvm::Error::success();
}

/// Host buffers for `plan`: inputs random, write-only outputs poisoned.
static std::vector<std::unique_ptr<HostBuffer>>
makeHostBuffers(const KernelPlan &plan) {
  std::vector<std::unique_ptr<HostBuffer>> hosts;
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    if (!argument.isBuffer) {
      hosts.push_back(nullptr);
      continue;
    }
    auto host = std::make_unique<HostBuffer>(argument.kind, argument.shape);
    if (argument.read || !argument.written)
      host->fillRandom(seed + index);
    else
      host->poison();
    hosts.push_back(std::move(host));
  }
  return hosts;
}

static std::vector<std::unique_ptr<HostBuffer>>
copyBuffers(llvm::ArrayRef<std::unique_ptr<HostBuffer>> hosts) {
  std::vector<std::unique_ptr<HostBuffer>> copies;
  for (const std::unique_ptr<HostBuffer> &host : hosts)
    copies.push_back(host ? std::make_unique<HostBuffer>(*host) : nullptr);
  return copies;
}

/// Compares the written buffers of `plan` in `actual` with `expected`.
static std::vector<OutputReport>
compareOutputs(const KernelPlan &plan,
               const std::vector<std::unique_ptr<HostBuffer>> &actual,
               const std::vector<std::unique_ptr<HostBuffer>> &expected) {
  std::vector<OutputReport> outputs;
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    if (!argument.isBuffer || !argument.written)
      continue;
    bool poisoned = !argument.read;
    outputs.push_back({argument.name, argument.kind,
                       compare(*actual[index], *expected[index], poisoned)});
  }
  return outputs;
}

static std::vector<HostBuffer *>
getPointers(const std::vector<std::unique_ptr<HostBuffer>> &buffers) {
  std::vector<HostBuffer *> pointers;
  for (const std::unique_ptr<HostBuffer> &buffer : buffers)
    pointers.push_back(buffer.get());
  return pointers;
}

/// Adds what the CPU runtime found in a launch of `kernel` to `report`.
static void addFindings(RunReport &report, llvm::StringRef kernel,
                        const ::tile::cpu::LaunchResult &result) {
  report.races += result.races;
  report.outOfBounds += result.outOfBounds;
  report.deadlocks += result.deadlocks;
  for (const std::string &finding : result.reports)
    report.findings.push_back(("@" + kernel + ": " + finding).str());
}

/// The CPU target: lowers `lowered` (after tile-to-gpu) for the host, runs
/// the kernel and its reference there, checks, prints the report.
static int runOnCPUTarget(ModuleOp lowered, const KernelPlan &plan,
                          const std::optional<KernelPlan> &referencePlan,
                          Operation *reference,
                          std::chrono::steady_clock::time_point compileStart) {
  CPUCompileOptions options;
  options.raceCheck = raceCheck;
  options.skipBarrier = testSkipBarrier;
  options.skipBarrierKernel = mlir::tile::KernelOp(plan.kernel).getSymName().str();
  llvm::Expected<std::unique_ptr<CPUProgram>> program =
      CPUProgram::compile(lowered, options);
  if (!program)
    return fail(program.takeError());
  RunReport report;
  report.file = inputFile;
  report.kernel = mlir::tile::KernelOp(plan.kernel).getSymName().str();
  unsigned threads = workers ? workers.getValue()
                             : std::max(1u, std::thread::hardware_concurrency());
  report.device = llvm::formatv("CPU ({0} worker thread{1}{2})", threads,
                                threads == 1 ? "" : "s",
                                raceCheck ? ", race check" : "")
                      .str();
  report.raceChecked = raceCheck;
  report.compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();

  std::vector<std::unique_ptr<HostBuffer>> hosts = makeHostBuffers(plan);
  std::vector<std::unique_ptr<HostBuffer>> initial = copyBuffers(hosts);
  auto run = [&](const KernelPlan &kernelPlan,
                 std::vector<std::unique_ptr<HostBuffer>> &buffers)
      -> llvm::Error {
    llvm::StringRef name = mlir::tile::KernelOp(kernelPlan.kernel).getSymName();
    FaultReport faults(("kernel '" + name + "' on the CPU target").str());
    llvm::Expected<::tile::cpu::LaunchResult> result =
        (*program)->launch(name, kernelPlan, getPointers(buffers), threads,
                           maxBlocks);
    if (!result)
      return result.takeError();
    addFindings(report, name, *result);
    return llvm::Error::success();
  };
  if (llvm::Error error = run(plan, hosts))
    return fail(std::move(error));

  if (reference) {
    std::vector<std::unique_ptr<HostBuffer>> expected = copyBuffers(initial);
    if (auto func = dyn_cast<func::FuncOp>(reference)) {
      if (llvm::Error error =
              runOnCPU(func, plan.arguments, getPointers(expected)))
        return fail(std::move(error));
      report.reference = ("@" + func.getSymName() + " (CPU)").str();
    } else {
      if (llvm::Error error = run(*referencePlan, expected))
        return fail(std::move(error));
      report.reference =
          ("@" + mlir::tile::KernelOp(referencePlan->kernel).getSymName() + " (CPU)").str();
    }
    report.outputs = compareOutputs(plan, hosts, expected);
    report.checkRuns = 1;
    for (unsigned again = 1; again < checkRepeat && report.passed();
         ++again) {
      std::vector<std::unique_ptr<HostBuffer>> buffers = copyBuffers(initial);
      if (llvm::Error error = run(plan, buffers))
        return fail(std::move(error));
      report.outputs = compareOutputs(plan, buffers, expected);
      report.checkRuns = again + 1;
    }
  }

  if (json)
    printJSON(report, llvm::outs());
  else
    printTable(report, llvm::outs());
  return report.passed() ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "tile-run: run, check and time a tile kernel\n");

  PlanOptions planOptions;
  planOptions.seed = seed;
  if (raceCheck) {
    if (target == Target::GPU)
      return fail("--race-check runs on the CPU target, not with "
                  "--target=gpu");
    target = Target::CPU;
  }
  if (testSkipBarrier >= 0) {
    if (target == Target::GPU)
      return fail("--test-skip-barrier runs on the CPU target, not with "
                  "--target=gpu");
    target = Target::CPU;
  }
  if (maxBlocks != 0) {
    if (maxBlocks < 0)
      return fail("--blocks must be at least 1");
    if (check)
      return fail("--blocks runs part of the grid: the outputs cannot be "
                  "checked (leave out --check)");
    if (target == Target::GPU)
      return fail("--blocks runs on the CPU target, not with --target=gpu");
    target = Target::CPU;
  }
  if (bench && target == Target::CPU)
    return fail("--bench times kernels on the GPU; the CPU target runs them "
                "to check them");
  if (deviceOrdinal < 0)
    return fail("--device " + llvm::Twine(deviceOrdinal.getValue()) +
                ": expected a device number, 0 or more");
  for (const std::string &spec : shapes) {
    auto assignment = parseAssignment(spec);
    std::optional<std::vector<int64_t>> shape =
        assignment ? parseShape(assignment->second) : std::nullopt;
    if (!shape)
      return fail("--shape '" + spec + "': expected NAME=SIZExSIZE..., e.g. "
                  "A=1024x512");
    planOptions.shapes[assignment->first] = *shape;
  }
  for (const std::string &spec : values) {
    auto assignment = parseAssignment(spec);
    if (!assignment)
      return fail("--arg '" + spec + "': expected NAME=VALUE");
    planOptions.values[assignment->first] = assignment->second;
  }

  DialectRegistry registry;
  mlir::tile::registerAllDialects(registry);
  MLIRContext context(registry);
  // Remarks (e.g. a loop left scalar) point at the source line; the op
  // dump MLIR would add to each is noise here.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &message);
  if (!file)
    return fail(message);
  if (failed(mlir::tile::rejectParserCrashInputs(*file)))
    return fail("cannot parse '" + inputFile + "'");
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse '" + inputFile + "'");
  // A reference shared by several files is declared with tile.defined_in.
  if (failed(
          mlir::tile::linkDeclaredDefinitions(*module, inputFile, sourceMgr)))
    return fail("cannot link the functions '" + inputFile +
                "' declares as defined elsewhere");

  // The kernel, and its reference.
  SmallVector<mlir::tile::KernelOp> kernels(module->getOps<mlir::tile::KernelOp>());
  std::string names;
  for (mlir::tile::KernelOp kernel : kernels)
    names += (names.empty() ? "" : ", ") + kernel.getSymName().str();
  mlir::tile::KernelOp kernel;
  if (kernelName.empty()) {
    if (kernels.size() != 1)
      return fail(kernels.empty()
                      ? "'" + inputFile + "' holds no tile.kernel"
                      : "'" + inputFile + "' holds several kernels (" + names +
                            "): choose one with --kernel");
    kernel = kernels.front();
  } else {
    auto found = llvm::find_if(kernels, [](mlir::tile::KernelOp k) {
      return k.getSymName() == kernelName;
    });
    if (found == kernels.end())
      return fail("no kernel named '" + kernelName + "' in '" + inputFile +
                  "' (kernels: " + names + ")");
    kernel = *found;
  }
  Operation *reference = nullptr;
  if (check) {
    FlatSymbolRefAttr symbol = kernel.getReferenceAttr();
    if (!symbol)
      return fail("kernel '" + kernel.getSymName() + "' has no reference to "
                  "check against: add `attributes {reference = @f}`");
    reference = SymbolTable::lookupNearestSymbolFrom(kernel, symbol);
  }

  llvm::Expected<KernelPlan> plan = planKernel(kernel, planOptions);
  if (!plan)
    return fail(plan.takeError());
  if (checkRepeat == 0)
    return fail("--check-repeat must be at least 1");
  if (checkRepeat > 1 && !check)
    return fail("--check-repeat needs --check");
  if (check && llvm::none_of(plan->arguments, [](const ArgumentPlan &a) {
        return a.isBuffer && a.written;
      }))
    return fail("--check: kernel '" + kernel.getSymName() +
                "' writes no buffer argument, so there is no output to "
                "compare");
  std::optional<KernelPlan> referencePlan;
  if (auto referenceKernel = dyn_cast_if_present<mlir::tile::KernelOp>(reference)) {
    // The reference runs on the same arguments: its dynamic sizes and
    // scalars are the kernel's.
    PlanOptions referenceOptions;
    referenceOptions.seed = planOptions.seed;
    for (auto [index, argument] : llvm::enumerate(plan->arguments)) {
      std::string name = referenceKernel.getArgName(index);
      if (argument.isBuffer)
        referenceOptions.shapes[name] = argument.shape;
      else
        referenceOptions.values[name] = argument.formatScalar();
    }
    llvm::Expected<KernelPlan> planned =
        planKernel(referenceKernel, referenceOptions);
    if (!planned)
      return fail(planned.takeError());
    referencePlan = std::move(*planned);
  }

  // The target: the GPU when it opens, unless the CPU was asked for.
  std::unique_ptr<::tile::runtime::Device> gpu;
  if (target != Target::CPU) {
    llvm::Expected<std::unique_ptr<::tile::runtime::Device>> device =
        ::tile::runtime::Device::open(deviceOrdinal);
    if (device) {
      gpu = std::move(*device);
    } else if (target == Target::GPU || bench) {
      return fail(device.takeError());
    } else {
      llvm::errs() << "tile-run: no GPU, running on the CPU target ("
                   << llvm::toString(device.takeError()) << ")\n";
    }
  }

  // Compile a copy of the module holding only the kernels that run: the
  // chosen one and a kernel reference (a file of eight kernels compiles
  // one).
  auto compileStart = std::chrono::steady_clock::now();
  OwningOpRef<ModuleOp> lowered = module->clone();
  FlatSymbolRefAttr referenceName = kernel.getReferenceAttr();
  for (mlir::tile::KernelOp other : llvm::make_early_inc_range(
           lowered->getBody()->getOps<mlir::tile::KernelOp>()))
    if (other.getSymName() != kernel.getSymName() &&
        !(referenceName && other.getSymName() == referenceName.getValue()))
      other.erase();
  mlir::tile::TileToPTXOptions ptxOptions;
  ptxOptions.chip = chip;
  ptxOptions.tma = tma;
  if (!gpu)
    mlir::tile::configureForCPUTarget(ptxOptions);
  PassManager toGPU(&context);
  mlir::tile::buildTileToGPUPipeline(toGPU, ptxOptions);
  if (failed(toGPU.run(*lowered)))
    return fail("compilation failed");
  if (!gpu)
    return runOnCPUTarget(*lowered, *plan, referencePlan, reference,
                          compileStart);
  // Read from the host launchers, which outlive the gpu.funcs.
  mlir::tile::KernelLaunchInfo launchInfo =
      mlir::tile::getLaunchInfo(*lowered, kernel.getSymName())
          .value_or(mlir::tile::KernelLaunchInfo());
  mlir::tile::KernelLaunchInfo referenceLaunchInfo =
      reference ? mlir::tile::getLaunchInfo(
                      *lowered, cast<SymbolOpInterface>(reference).getName())
                      .value_or(mlir::tile::KernelLaunchInfo())
                : mlir::tile::KernelLaunchInfo();
  PassManager toPTX(&context);
  mlir::tile::buildGPUToPTXPipeline(toPTX, ptxOptions);
  if (failed(toPTX.run(*lowered)))
    return fail("compilation failed");
  std::optional<std::string> ptx =
      mlir::tile::getPTX(*lowered, kernel.getSymName());
  if (!ptx)
    return fail("no PTX was produced for kernel '" + kernel.getSymName() +
                "'");
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();
  if (!dumpPTX.empty()) {
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(dumpPTX, &message);
    if (!out)
      return fail(message);
    out->os() << *ptx;
    out->keep();
  }

  // The device.
  std::unique_ptr<::tile::runtime::Device> *device = &gpu;
  llvm::Expected<::tile::runtime::Module> gpuModule = (*device)->loadPTX(*ptx);
  if (!gpuModule)
    return fail(gpuModule.takeError());
  llvm::Expected<void *> function =
      gpuModule->getFunction(kernel.getSymName());
  if (!function)
    return fail(function.takeError());

  std::vector<std::unique_ptr<HostBuffer>> hosts = makeHostBuffers(*plan);
  std::vector<std::unique_ptr<HostBuffer>> initial = copyBuffers(hosts);
  llvm::Expected<Launch> launch =
      prepareLaunch(**device, *plan, hosts, launchInfo);
  if (!launch)
    return fail(launch.takeError());
  if (llvm::Error error =
          (*device)->launch(*function, kernel.getSymName(), launch->config,
                            launch->parameters))
    return fail(std::move(error));
  if (llvm::Error error = readOutputs(**device, *plan, *launch, hosts))
    return fail(std::move(error));

  RunReport report;
  report.file = inputFile;
  report.kernel = kernel.getSymName().str();
  report.device = (*device)->getName();
  report.compileMs = compileMs;

  if (reference) {
    std::vector<std::unique_ptr<HostBuffer>> expected = copyBuffers(initial);
    if (auto func = dyn_cast<func::FuncOp>(reference)) {
      std::vector<HostBuffer *> pointers;
      for (std::unique_ptr<HostBuffer> &buffer : expected)
        pointers.push_back(buffer.get());
      if (llvm::Error error = runOnCPU(func, plan->arguments, pointers))
        return fail(std::move(error));
      report.reference = ("@" + func.getSymName() + " (CPU)").str();
    } else {
      auto referenceKernel = cast<mlir::tile::KernelOp>(reference);
      std::optional<std::string> referencePTX =
          mlir::tile::getPTX(*lowered, referenceKernel.getSymName());
      if (!referencePTX)
        return fail("no PTX was produced for kernel '" +
                    referenceKernel.getSymName() + "'");
      llvm::Expected<::tile::runtime::Module> referenceModule =
          (*device)->loadPTX(*referencePTX);
      if (!referenceModule)
        return fail(referenceModule.takeError());
      llvm::Expected<void *> referenceFunction =
          referenceModule->getFunction(referenceKernel.getSymName());
      if (!referenceFunction)
        return fail(referenceFunction.takeError());
      llvm::Expected<Launch> referenceLaunch = prepareLaunch(
          **device, *referencePlan, expected, referenceLaunchInfo);
      if (!referenceLaunch)
        return fail(referenceLaunch.takeError());
      if (llvm::Error error = (*device)->launch(
              *referenceFunction, referenceKernel.getSymName(),
              referenceLaunch->config, referenceLaunch->parameters))
        return fail(std::move(error));
      if (llvm::Error error =
              readOutputs(**device, *referencePlan, *referenceLaunch, expected))
        return fail(std::move(error));
      report.reference = ("@" + referenceKernel.getSymName() + " (GPU)").str();
    }
    auto compareAll = [&](const std::vector<std::unique_ptr<HostBuffer>>
                              &actual) {
      return compareOutputs(*plan, actual, expected);
    };
    report.outputs = compareAll(hosts);
    // Launches 2..N, each on fresh inputs: the first failing one is kept.
    report.checkRuns = 1;
    for (unsigned run = 1; run < checkRepeat && report.passed(); ++run) {
      std::vector<std::unique_ptr<HostBuffer>> again = copyBuffers(initial);
      llvm::Expected<Launch> relaunch =
          prepareLaunch(**device, *plan, again, launchInfo);
      if (!relaunch)
        return fail(relaunch.takeError());
      if (llvm::Error error =
              (*device)->launch(*function, kernel.getSymName(),
                                relaunch->config, relaunch->parameters))
        return fail(std::move(error));
      if (llvm::Error error = readOutputs(**device, *plan, *relaunch, again))
        return fail(std::move(error));
      report.outputs = compareAll(again);
      report.checkRuns = run + 1;
    }
  }

  if (bench) {
    llvm::Expected<::tile::runtime::DeviceBuffer> flush =
        (*device)->allocate(kFlushBytes);
    if (!flush)
      return fail(flush.takeError());
    for (unsigned i = 0; i < warmup; ++i)
      if (llvm::Error error =
              (*device)->launch(*function, kernel.getSymName(),
                                launch->config, launch->parameters))
        return fail(std::move(error));
    std::vector<double> samples;
    for (unsigned i = 0; i < repetitions; ++i) {
      if (llvm::Error error = (*device)->fill(*flush, static_cast<uint8_t>(i)))
        return fail(std::move(error));
      llvm::Expected<float> milliseconds = (*device)->timeLaunch(
          *function, kernel.getSymName(), launch->config, launch->parameters);
      if (!milliseconds)
        return fail(milliseconds.takeError());
      samples.push_back(*milliseconds * 1e3);
    }
    double bytes = 0;
    for (const std::unique_ptr<HostBuffer> &host : hosts)
      if (host)
        bytes += host->getBytes();
    report.timing = summarize(std::move(samples), bytes, flops);
  }

  if (json)
    printJSON(report, llvm::outs());
  else
    printTable(report, llvm::outs());
  return report.passed() ? 0 : 1;
}
