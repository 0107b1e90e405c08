//===- tile-run.cpp - Run, check and time a tile kernel -------------------===//
//
// tile-run FILE.mlir [--kernel NAME] [--shape A=16x32] [--arg n=7]
//                    [--check] [--bench] [--json]
//                    [--target=auto|gpu|cpu] [--race-check]
//
// Parses the file, plans the kernel's buffers from the command line (inputs
// random, write-only outputs poisoned), picks a target and compiles for it
// once: the GPU (GPUTarget: tile-to-ptx, launched through the CUDA driver)
// or, the default without a GPU, the CPU (CPUTarget: one fiber per GPU
// thread, and with --race-check shared-memory races reported,
// docs/CPUTarget.md). Then it runs the kernel, compares the outputs with
// the kernel's reference (a func.func JIT-compiled for the CPU, or another
// kernel run on the same target), times it the BENCH.md way (GPU only) and
// reports. Exit status: 0 passed, 1 failed or error.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "tile/InitAll.h"
#include "tile/Pipelines/Pipelines.h"
#include "tile/Runner/CPUTarget.h"
#include "tile/Runner/GPUTarget.h"
#include "tile/Runner/KernelPlan.h"
#include "tile/Runner/LinkDefinitions.h"
#include "tile/Runner/ReferenceJIT.h"
#include "tile/Runner/Report.h"
#include "tile/Runtime/CudaDriver.h"
#include "tile/Tools/ParserWorkarounds.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <memory>

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
/// Where --target asks the kernel to run.
enum class TargetChoice { Auto, GPU, CPU };
static cl::opt<bool> tma(
    "tma", cl::init(true),
    cl::desc("Copy the tiles of rolled pipelines with the Tensor Memory "
             "Accelerator where the chip and the copy allow it (--tma=false: "
             "cp.async)"),
    cl::cat(category));
static cl::opt<bool> tmaStores(
    "tma-stores", cl::init(true),
    cl::desc("With --tma: copy MMA accumulators out through shared tiles and "
             "TMA stores where the layout and the target allow it "
             "(--tma-stores=false: each thread stores its elements)"),
    cl::cat(category));
static cl::opt<bool> promoteRegisters(
    "promote-registers", cl::init(true),
    cl::desc("Promote fragment registers and other per-thread buffers "
             "accessed at constant indices to SSA values before the LLVM "
             "conversion (--promote-registers=false: LLVM's SROA does it)"),
    cl::cat(category));
static cl::opt<unsigned> llvmOptLevel(
    "llvm-opt-level", cl::init(3),
    cl::desc("LLVM optimization level of the GPU code (0-3)"),
    cl::cat(category));
static cl::opt<std::string> llvmPasses(
    "llvm-passes", cl::init(""),
    cl::desc("LLVM IR pipeline of the GPU code, in opt's -passes syntax, or "
             "'lean' (default: the kernel's llvm_passes, else "
             "--llvm-opt-level's default pipeline)"),
    cl::cat(category));
static cl::opt<std::string> skipLLVMPasses(
    "skip-llvm-passes", cl::init(mlir::tile::kDefaultSkippedLLVMPasses),
    cl::desc("Comma-separated LLVM passes not to run on the GPU code, by "
             "their opt or llc names (default: those that cost compile "
             "time and give nothing on tile kernels; 'default' in the "
             "list stands for it, as in default,loop-reduce; '': run all)"),
    cl::cat(category));
static cl::opt<TargetChoice> target(
    "target", cl::init(TargetChoice::Auto),
    cl::desc("Where the kernel runs (default: the GPU when one is present, "
             "else the CPU)"),
    cl::values(clEnumValN(TargetChoice::Auto, "auto",
                          "the GPU if present, else "
                          "the CPU"),
               clEnumValN(TargetChoice::GPU, "gpu",
                          "the GPU, through the CUDA "
                          "driver"),
               clEnumValN(TargetChoice::CPU, "cpu",
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
static cl::opt<bool> testReleaseEarly(
    "test-release-early",
    cl::desc("CPU target, testing the race check: warp-specialized consumers "
             "release each stage right after issuing the MMAs that read it, "
             "before they retire"),
    cl::cat(category));
static cl::opt<bool> testSkipResidentWait(
    "test-skip-resident-wait",
    cl::desc("CPU target, testing the race check: warp-specialized consumers "
             "do not wait for the TMA copies of the tiles loaded ahead of "
             "their loop (attention's Q)"),
    cl::cat(category));
static cl::opt<std::string> dumpPTX("dump-ptx",
                                    cl::desc("Also write the kernel's PTX to a file"),
                                    cl::cat(category));
static cl::opt<std::string> usePTX(
    "use-ptx",
    cl::desc("GPU target: run the PTX in this file instead of the kernel's "
             "own (an edited --dump-ptx: the entry keeps its name and "
             "parameters)"),
    cl::cat(category));

/// Prints `message` as tile-run's error and returns the failure status.
static int fail(const llvm::Twine &message) {
  llvm::errs() << "tile-run: " << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  return fail(llvm::toString(std::move(error)));
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

using Buffers = std::vector<std::unique_ptr<HostBuffer>>;

/// Host buffers for `plan`: inputs random, write-only outputs poisoned.
static Buffers makeHostBuffers(const KernelPlan &plan) {
  Buffers hosts;
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

static Buffers copyBuffers(const Buffers &hosts) {
  Buffers copies;
  for (const std::unique_ptr<HostBuffer> &host : hosts)
    copies.push_back(host ? std::make_unique<HostBuffer>(*host) : nullptr);
  return copies;
}

static std::vector<HostBuffer *> getPointers(const Buffers &buffers) {
  std::vector<HostBuffer *> pointers;
  for (const std::unique_ptr<HostBuffer> &buffer : buffers)
    pointers.push_back(buffer.get());
  return pointers;
}

/// Compares the written buffers of `plan` in `actual` with `expected`.
static std::vector<OutputReport> compareOutputs(const KernelPlan &plan,
                                                const Buffers &actual,
                                                const Buffers &expected) {
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

/// Checks the flags against each other and the target they imply, and
/// collects --shape and --arg into `options`.
static llvm::Error readCommandLine(PlanOptions &options) {
  options.seed = seed;
  if (raceCheck) {
    if (target == TargetChoice::GPU)
      return makeError("--race-check runs on the CPU target, not with "
                       "--target=gpu");
    target = TargetChoice::CPU;
  }
  if (testSkipBarrier >= 0) {
    if (target == TargetChoice::GPU)
      return makeError("--test-skip-barrier runs on the CPU target, not with "
                       "--target=gpu");
    target = TargetChoice::CPU;
  }
  if (testReleaseEarly) {
    if (target == TargetChoice::GPU)
      return makeError("--test-release-early runs on the CPU target, not "
                       "with --target=gpu");
    target = TargetChoice::CPU;
  }
  if (testSkipResidentWait) {
    if (target == TargetChoice::GPU)
      return makeError("--test-skip-resident-wait runs on the CPU target, "
                       "not with --target=gpu");
    target = TargetChoice::CPU;
  }
  if (maxBlocks != 0) {
    if (maxBlocks < 0)
      return makeError("--blocks must be at least 1");
    if (check)
      return makeError("--blocks runs part of the grid: the outputs cannot "
                       "be checked (leave out --check)");
    if (target == TargetChoice::GPU)
      return makeError("--blocks runs on the CPU target, not with "
                       "--target=gpu");
    target = TargetChoice::CPU;
  }
  if (!dumpPTX.empty() && target == TargetChoice::CPU)
    return makeError("--dump-ptx writes the PTX of the GPU target; the "
                     "kernel runs on the CPU target here (tile-opt "
                     "--tile-to-ptx writes PTX without a GPU)");
  if (!usePTX.empty() && target == TargetChoice::CPU)
    return makeError("--use-ptx runs PTX on the GPU target; the kernel runs "
                     "on the CPU target here");
  if (bench && target == TargetChoice::CPU)
    return makeError("--bench times kernels on the GPU; the CPU target runs "
                     "them to check them");
  if (deviceOrdinal < 0)
    return makeError("--device " + llvm::Twine(deviceOrdinal.getValue()) +
                     ": expected a device number, 0 or more");
  for (const std::string &spec : shapes) {
    auto assignment = parseAssignment(spec);
    std::optional<std::vector<int64_t>> shape =
        assignment ? parseShape(assignment->second) : std::nullopt;
    if (!shape)
      return makeError("--shape '" + spec +
                       "': expected NAME=SIZExSIZE..., "
                       "e.g. A=1024x512");
    options.shapes[assignment->first] = *shape;
  }
  for (const std::string &spec : values) {
    auto assignment = parseAssignment(spec);
    if (!assignment)
      return makeError("--arg '" + spec + "': expected NAME=VALUE");
    options.values[assignment->first] = assignment->second;
  }
  if (checkRepeat == 0)
    return makeError("--check-repeat must be at least 1");
  if (checkRepeat > 1 && !check)
    return makeError("--check-repeat needs --check");
  if (llvmOptLevel > 3)
    return makeError("--llvm-opt-level must be 0, 1, 2 or 3, got " +
                     std::to_string(llvmOptLevel));
  return llvm::Error::success();
}

/// Parses the input file and links in the functions it declares as defined
/// elsewhere (tile.defined_in). Diagnostics go to `sourceMgr`'s handler.
static llvm::Expected<OwningOpRef<ModuleOp>>
parseInput(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &message);
  if (!file)
    return makeError(message);
  if (failed(mlir::tile::rejectParserCrashInputs(*file)))
    return makeError("cannot parse '" + inputFile + "'");
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return makeError("cannot parse '" + inputFile + "'");
  if (failed(
          mlir::tile::linkDeclaredDefinitions(*module, inputFile, sourceMgr)))
    return makeError("cannot link the functions '" + inputFile +
                     "' declares as defined elsewhere");
  return std::move(module);
}

/// The kernel --kernel names, or the file's only kernel.
static llvm::Expected<mlir::tile::KernelOp> selectKernel(ModuleOp module) {
  SmallVector<mlir::tile::KernelOp> kernels(
      module.getOps<mlir::tile::KernelOp>());
  std::string names;
  for (mlir::tile::KernelOp kernel : kernels)
    names += (names.empty() ? "" : ", ") + kernel.getSymName().str();
  if (kernelName.empty()) {
    if (kernels.size() == 1)
      return kernels.front();
    return makeError(kernels.empty()
                         ? "'" + inputFile + "' holds no tile.kernel"
                         : "'" + inputFile + "' holds several kernels (" +
                               names + "): choose one with --kernel");
  }
  auto found = llvm::find_if(kernels, [](mlir::tile::KernelOp k) {
    return k.getSymName() == kernelName;
  });
  if (found == kernels.end())
    return makeError("no kernel named '" + kernelName + "' in '" + inputFile +
                     "' (kernels: " + names + ")");
  return *found;
}

/// What --check compares against: the kernel's reference, a func.func run
/// on the CPU or a kernel run on the target (planned with the kernel's
/// dynamic sizes and scalars: it runs on the same arguments).
struct Reference {
  Operation *op = nullptr;
  std::optional<KernelPlan> kernelPlan;
};

static llvm::Expected<Reference> planReference(const KernelPlan &plan) {
  mlir::tile::KernelOp kernel(plan.kernel);
  FlatSymbolRefAttr symbol = kernel.getReferenceAttr();
  if (!symbol)
    return makeError("kernel '" + kernel.getSymName() +
                     "' has no reference to check against: add `attributes "
                     "{reference = @f}`");
  if (llvm::none_of(plan.arguments, [](const ArgumentPlan &a) {
        return a.isBuffer && a.written;
      }))
    return makeError("--check: kernel '" + kernel.getSymName() +
                     "' writes no buffer argument, so there is no output to "
                     "compare");
  Reference reference;
  reference.op = SymbolTable::lookupNearestSymbolFrom(kernel, symbol);
  if (!reference.op)
    return makeError("kernel '" + kernel.getSymName() + "': its reference @" +
                     symbol.getValue() + " is not defined");
  auto referenceKernel =
      dyn_cast_if_present<mlir::tile::KernelOp>(reference.op);
  if (!referenceKernel)
    return reference;
  PlanOptions options;
  options.seed = seed;
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    std::string name = referenceKernel.getArgName(index);
    if (argument.isBuffer)
      options.shapes[name] = argument.shape;
    else
      options.values[name] = argument.formatScalar();
  }
  llvm::Expected<KernelPlan> planned = planKernel(referenceKernel, options);
  if (!planned)
    return planned.takeError();
  reference.kernelPlan = std::move(*planned);
  return reference;
}

/// A copy of `module` holding only the kernels that run: `kernel` and a
/// kernel reference (a file of eight kernels compiles one or two).
static OwningOpRef<ModuleOp> cloneForCompilation(ModuleOp module,
                                                 mlir::tile::KernelOp kernel) {
  OwningOpRef<ModuleOp> clone = module.clone();
  FlatSymbolRefAttr referenceName = kernel.getReferenceAttr();
  for (mlir::tile::KernelOp other : llvm::make_early_inc_range(
           clone->getBody()->getOps<mlir::tile::KernelOp>()))
    if (other.getSymName() != kernel.getSymName() &&
        !(referenceName && other.getSymName() == referenceName.getValue()))
      other.erase();
  return clone;
}

/// The GPU when it opens, unless the CPU was asked for; compiles `module`
/// for it in place.
static llvm::Expected<std::unique_ptr<Target>>
compileForTarget(ModuleOp module, mlir::tile::KernelOp kernel) {
  if (target != TargetChoice::CPU) {
    llvm::Expected<std::unique_ptr<::tile::runtime::Device>> device =
        ::tile::runtime::Device::open(deviceOrdinal);
    if (device) {
      mlir::tile::TileToPTXOptions options;
      options.chip = chip;
      options.tma = tma;
      options.tmaStores = tmaStores;
      options.promoteRegisters = promoteRegisters;
      options.optLevel = llvmOptLevel;
      options.skipLLVMPasses = skipLLVMPasses;
      options.llvmPasses = llvmPasses;
      llvm::StringMap<std::string> replacementPTX;
      if (!usePTX.empty()) {
        std::string message;
        std::unique_ptr<llvm::MemoryBuffer> file =
            mlir::openInputFile(usePTX, &message);
        if (!file)
          return makeError("--use-ptx: " + message);
        replacementPTX[kernel.getSymName()] = file->getBuffer().str();
      }
      return GPUTarget::compile(module, options, std::move(*device),
                                replacementPTX);
    }
    if (target == TargetChoice::GPU || bench || !usePTX.empty())
      return device.takeError();
    llvm::errs() << "tile-run: no GPU, running on the CPU target ("
                 << llvm::toString(device.takeError()) << ")\n";
  }
  CPUTargetOptions options;
  options.raceCheck = raceCheck;
  options.skipBarrier = testSkipBarrier;
  options.releaseEarly = testReleaseEarly;
  options.skipResidentWait = testSkipResidentWait;
  options.skipBarrierKernel = kernel.getSymName().str();
  options.workers = workers;
  options.maxBlocks = maxBlocks;
  return CPUTarget::compile(module, options);
}

static llvm::Error writePTX(const GPUTarget &gpu, StringRef kernel) {
  std::optional<StringRef> ptx = gpu.getPTX(kernel);
  if (!ptx)
    return makeError("no PTX was produced for kernel '" + kernel + "'");
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(dumpPTX, &message);
  if (!out)
    return makeError(message);
  out->os() << *ptx;
  out->keep();
  return llvm::Error::success();
}

/// Runs the reference on copies of `initial` and compares: the kernel's
/// first launch (`outputs`), then --check-repeat more launches, each on
/// fresh copies, until one fails.
static llvm::Error checkAgainst(const Reference &reference, const Target &on,
                                const KernelPlan &plan, const Buffers &initial,
                                const Buffers &outputs, RunReport &report) {
  Buffers expected = copyBuffers(initial);
  if (auto func = dyn_cast<func::FuncOp>(reference.op)) {
    if (llvm::Error error =
            runOnCPU(func, plan.arguments, getPointers(expected)))
      return error;
    report.reference = ("@" + func.getSymName() + " (CPU)").str();
  } else {
    if (llvm::Error error = on.run(*reference.kernelPlan, getPointers(expected),
                                   report.findings))
      return error;
    report.reference = ("@" + cast<SymbolOpInterface>(reference.op).getName() +
                        " (" + on.getKindName() + ")")
                           .str();
  }
  report.outputs = compareOutputs(plan, outputs, expected);
  report.checkRuns = 1;
  for (unsigned again = 1; again < checkRepeat && report.passed(); ++again) {
    Buffers buffers = copyBuffers(initial);
    if (llvm::Error error = on.run(plan, getPointers(buffers), report.findings))
      return error;
    report.outputs = compareOutputs(plan, buffers, expected);
    report.checkRuns = again + 1;
  }
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "tile-run: run, check and time a tile kernel\n");
  PlanOptions planOptions;
  if (llvm::Error error = readCommandLine(planOptions))
    return fail(std::move(error));

  // Parse.
  DialectRegistry registry;
  mlir::tile::registerAllDialects(registry);
  MLIRContext context(registry);
  // Remarks (e.g. a loop left scalar) point at the source line; the op
  // dump MLIR would add to each is noise here.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  llvm::Expected<OwningOpRef<ModuleOp>> module = parseInput(context, sourceMgr);
  if (!module)
    return fail(module.takeError());

  // Plan: the kernel's buffers and launch, and its reference's.
  llvm::Expected<mlir::tile::KernelOp> kernel = selectKernel(**module);
  if (!kernel)
    return fail(kernel.takeError());
  llvm::Expected<KernelPlan> plan = planKernel(*kernel, planOptions);
  if (!plan)
    return fail(plan.takeError());
  std::optional<Reference> reference;
  if (check) {
    llvm::Expected<Reference> planned = planReference(*plan);
    if (!planned)
      return fail(planned.takeError());
    reference = std::move(*planned);
  }

  // Pick the target and compile for it.
  OwningOpRef<ModuleOp> lowered = cloneForCompilation(**module, *kernel);
  llvm::Expected<std::unique_ptr<Target>> compiled =
      compileForTarget(*lowered, *kernel);
  if (!compiled)
    return fail(compiled.takeError());
  const Target &on = **compiled;
  auto *gpu = dyn_cast<GPUTarget>(&on);
  if (!dumpPTX.empty()) {
    if (!gpu)
      return fail("--dump-ptx writes the PTX of the GPU target; the kernel "
                  "runs on the CPU target here (tile-opt --tile-to-ptx "
                  "writes PTX without a GPU)");
    if (llvm::Error error = writePTX(*gpu, kernel->getSymName()))
      return fail(std::move(error));
  }

  // Run, check, time, report.
  RunReport report;
  report.file = inputFile;
  report.kernel = kernel->getSymName().str();
  report.device = on.getDeviceName();
  report.compileMs = on.getCompileMs();
  report.raceChecked = raceCheck;
  Buffers hosts = makeHostBuffers(*plan);
  Buffers initial = copyBuffers(hosts);
  if (llvm::Error error = on.run(*plan, getPointers(hosts), report.findings))
    return fail(std::move(error));
  if (reference)
    if (llvm::Error error =
            checkAgainst(*reference, on, *plan, initial, hosts, report))
      return fail(std::move(error));
  if (bench) {
    llvm::Expected<std::vector<double>> samples =
        gpu->time(*plan, getPointers(hosts), warmup, repetitions);
    if (!samples)
      return fail(samples.takeError());
    double bytes = 0;
    for (const std::unique_ptr<HostBuffer> &host : hosts)
      if (host)
        bytes += host->getBytes();
    report.timing = summarize(std::move(*samples), bytes, flops);
  }

  if (json)
    printJSON(report, llvm::outs());
  else
    printTable(report, llvm::outs());
  return report.passed() ? 0 : 1;
}
