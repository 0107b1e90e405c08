//===- PTXSerializer.cpp - One gpu.module to PTX --------------------------===//
//
// A SerializeGPUModuleBase (upstream's NVVM serialization: translation,
// libdevice, the NVPTX target machine) whose LLVM IR pipeline may be given
// as text, and which writes PTX.
//
// Why another pipeline than O3: the tile passes have already unrolled,
// vectorized and software-pipelined most kernels, and canonicalized and
// CSE'd them in MLIR. O3 runs InstCombine eight times over the long unrolled
// blocks of tensor-core kernels (half of O3's time on a wgmma GEMM); the lean
// pipeline runs one round of cleanup (SROA, InstCombine, GVN, LICM, DCE,
// CFG simplification) plus the loop unrolling and SLP vectorization that the
// simpler kernels rely on (docs/Pipeline.md has the measurements).
//
//===----------------------------------------------------------------------===//

#include "PTXSerializer.h"

#include "tile/Pipelines/Passes.h"

#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "llvm/Analysis/LazyCallGraph.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

// No dead-store elimination, and no InstCombine between SCCP and the
// unroller (the one after it stays): neither changed any example kernel's PTX
// under this pipeline, and DSE's MemorySSA walk over the ldmatrix / cp.async
// calls was 5-8% of an mma.sync GEMM's compile (docs/Pipeline.md).
// infer-alignment (as O3 runs it) lets the backend's load/store vectorizer
// pair neighbouring 2-byte shared loads (a staged f16 bias).
const char *const tile::kLeanLLVMPasses =
    "nvvm-reflect,function(nvvm-intr-range),always-inline,cgscc(inline),"
    "function(sroa<modify-cfg>,early-cse<memssa>,simplifycfg,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "loop-mssa(licm<allowspeculation>),"
    "loop(loop-rotate<header-duplication>,indvars,loop-deletion),gvn,sccp,"
    "bdce,loop-unroll<O3>,sroa<preserve-cfg>,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,slp-vectorizer,"
    "loop-mssa(licm<allowspeculation>),adce,simplifycfg,div-rem-pairs,"
    "infer-alignment),globaldce";

// Each pass here was measured over the examples (callgrind of all 37 files,
// docs/Pipeline.md, "Skipped LLVM passes"):
// - slsr, the NVPTX backend's straight-line strength reduction: its time
//   grows with the square of a basic block's length (ScalarEvolution::
//   canReuseInstruction), most of the compile time of unrolled tensor-core
//   kernels (tf32.mlir: 208 of 252 ms of the backend), and ptxas reduces the
//   same address arithmetic.
// - O3 passes that change none of the 60 example kernels' PTX, alone or
//   together, and cost time: slp-vectorizer (tile-vectorize has formed the
//   vectors; 125 M instructions over the examples), called-value-propagation
//   (kernels make no indirect calls; 71 M), loop-load-elim (forwards stores
//   to the next iteration's loads for the loop vectorizer; 93 M on
//   layer_norm alone, a sixth of its compile), bdce (61 M), instsimplify and
//   loop-instsimplify (InstCombine, which runs anyway, folds a superset;
//   70 M), memcpyopt (22 M), function-attrs (one kernel per module, no
//   callers; 19 M), aggressive-instcombine, loop-idiom, globalopt and
//   tailcallelim (40 M together).
// - Single runs of passes O3 runs several times (`name#n`, the n-th run),
//   each of which changed no example kernel's PTX, alone or together
//   (scripts/compare-ptx.py, 76 kernels, 2026-11-29): InstCombine's sixth
//   and seventh (around the loop vectorizer, which finds nothing to do on
//   NVPTX; 6-8 M instructions each on a wgmma kernel) and both
//   jump-threading runs.
// - nary-reassociate, among the backend's straight-line passes: the PTX of
//   72 of 76 example kernels the same without it, the other four (the
//   streamed row kernels, gemm/prefetch) as fast on the H200 (2026-12-03);
//   2% of an mma.sync GEMM's compile.
// - InstCombine's fourth and fifth runs (after GVN and SCCP, and at the end
//   of function simplification; the first three and the eighth, after the
//   unroller, stay): the PTX of 73 of 76 example kernels the same without
//   them, the other three (conv1d_16m, conv2d_tvm, transpose) as fast on
//   the H200 (2026-12-03); 2-3.5% of the compile of attention, gemm_tf32,
//   gemm/best and the long-row kernels.
const char *const tile::kDefaultSkippedLLVMPasses =
    "slsr,slp-vectorizer,called-value-propagation,loop-load-elim,bdce,"
    "instsimplify,loop-instsimplify,memcpyopt,function-attrs,"
    "aggressive-instcombine,loop-idiom,globalopt,tailcallelim,"
    "instcombine#4,instcombine#5,instcombine#6,instcombine#7,"
    "jump-threading#1,jump-threading#2,"
    "nary-reassociate";

namespace {

/// The IR unit a new-pass-manager pass runs on, as a key.
static const void *getUnitPointer(const llvm::Any &unit) {
  if (const auto *function = llvm::any_cast<const llvm::Function *>(&unit))
    return *function;
  if (const auto *loop = llvm::any_cast<const llvm::Loop *>(&unit))
    return *loop;
  if (const auto *scc = llvm::any_cast<const llvm::LazyCallGraph::SCC *>(&unit))
    return *scc;
  if (const auto *module = llvm::any_cast<const llvm::Module *>(&unit))
    return *module;
  return nullptr;
}

class PTXSerializer : public NVVM::SerializeGPUModuleBase {
public:
  PTXSerializer(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                const gpu::TargetOptions &options, StringRef llvmPasses,
                const llvm::StringSet<> &skippedPasses)
      : SerializeGPUModuleBase(*module, target, options),
        llvmPasses(llvmPasses == "lean" ? StringRef(tile::kLeanLLVMPasses)
                                        : llvmPasses),
        skippedPasses(skippedPasses) {}

protected:
  /// The libraries (libdevice) only when the module calls a function it
  /// does not define: loading libdevice lazily still reads its symbol
  /// table, for every kernel.
  std::optional<SmallVector<std::unique_ptr<llvm::Module>>>
  loadBitcodeFiles(llvm::Module &module) override {
    bool callsLibrary = llvm::any_of(module, [](const llvm::Function &f) {
      return f.isDeclaration() && !f.isIntrinsic() && !f.use_empty();
    });
    if (!callsLibrary)
      return SmallVector<std::unique_ptr<llvm::Module>>();
    return SerializeGPUModuleBase::loadBitcodeFiles(module);
  }

  LogicalResult optimizeModule(llvm::Module &module, int optLevel) override {
    if (optLevel < 0 || optLevel > 3)
      return getOperation().emitError()
             << "invalid optimization level " << optLevel;
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError()
             << "no LLVM target machine for " << triple;
    // The backend's level, as upstream sets it.
    (*machine)->setOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));
    // Without a pipeline, the O level's default, as upstream runs it.
    std::string pipeline =
        llvmPasses.empty() ? "default<O" + std::to_string(optLevel) + ">"
                           : llvmPasses;

    // Skipped passes are named as in opt's -passes; the callback sees their
    // class names, which the PassBuilder maps back. `name#n` skips the n-th
    // run of the pass on each function (or loop, or module): the runs of a
    // pass on one unit come in pipeline order.
    llvm::PassInstrumentationCallbacks instrumentation;
    llvm::DenseMap<std::pair<StringRef, const void *>, unsigned> runs;
    instrumentation.registerShouldRunOptionalPassCallback(
        [&](StringRef className, llvm::Any unit) {
          if (skippedPasses.empty())
            return true;
          StringRef name = instrumentation.getPassNameForClassName(className);
          if (skippedPasses.contains(name))
            return false;
          unsigned run = ++runs[{name, getUnitPointer(unit)}];
          return !skippedPasses.contains((name + "#" + Twine(run)).str());
        });
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    // LLVM's debugging options work on the IR pipeline as in opt:
    // `-time-passes` (its passes in the report beside the backend's),
    // `-print-after-all`, `-print-before=instcombine`, `-print-changed`...
    llvm::StandardInstrumentations standard(module.getContext(),
                                            /*DebugLogging=*/false);
    standard.registerCallbacks(instrumentation, &modules);
    // The tuning upstream's O-level pipelines use (mlir/ExecutionEngine's
    // makeOptimizingTransformer), so that `default<O3>` is theirs.
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassBuilder builder(*machine, tuning, /*PGOOpt=*/std::nullopt,
                              &instrumentation);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes;
    if (llvm::Error error = builder.parsePassPipeline(passes, pipeline))
      return getOperation().emitError()
             << "invalid LLVM pass pipeline '" << pipeline
             << "': " << llvm::toString(std::move(error));
    passes.run(module, modules);
    return success();
  }

  FailureOr<SmallVector<char, 0>>
  moduleToObject(llvm::Module &module) override {
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError()
             << "no LLVM target machine for " << triple;
    FailureOr<SmallString<0>> ptx = translateModuleToISA(
        module, **machine, [&] { return getOperation().emitError(); });
    if (failed(ptx))
      return failure();
    if (isaCallback)
      isaCallback(*ptx);
    return SmallVector<char, 0>(ptx->begin(), ptx->end());
  }

private:
  std::string llvmPasses;
  const llvm::StringSet<> &skippedPasses;
};

} // namespace

std::optional<SmallVector<char, 0>>
tile::serializeToPTX(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                     const gpu::TargetOptions &options, StringRef llvmPasses,
                     const llvm::StringSet<> &skippedPasses) {
  PTXSerializer::init();
  PTXSerializer serializer(module, target, options, llvmPasses,
                           skippedPasses);
  return serializer.run();
}
