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

#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

const char *const tile::kLeanLLVMPasses =
    "nvvm-reflect,function(nvvm-intr-range),always-inline,cgscc(inline),"
    "function(sroa<modify-cfg>,early-cse<memssa>,simplifycfg,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "loop-mssa(licm<allowspeculation>),"
    "loop(loop-rotate<header-duplication>,indvars,loop-deletion),gvn,sccp,"
    "bdce,instcombine<max-iterations=1;no-verify-fixpoint>,loop-unroll<O3>,"
    "sroa<preserve-cfg>,instcombine<max-iterations=1;no-verify-fixpoint>,"
    "slp-vectorizer,loop-mssa(licm<allowspeculation>),adce,dse,simplifycfg,"
    "div-rem-pairs),globaldce";

namespace {

class PTXSerializer : public NVVM::SerializeGPUModuleBase {
public:
  PTXSerializer(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                const gpu::TargetOptions &options, StringRef llvmPasses)
      : SerializeGPUModuleBase(*module, target, options),
        llvmPasses(llvmPasses == "lean" ? StringRef(tile::kLeanLLVMPasses)
                                        : llvmPasses) {}

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
    if (llvmPasses.empty())
      return ModuleToObject::optimizeModule(module, optLevel);
    if (optLevel < 0 || optLevel > 3)
      return getOperation().emitError()
             << "invalid optimization level " << optLevel;
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError()
             << "no LLVM target machine for " << triple;
    // The backend's level, as upstream sets it.
    (*machine)->setOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));

    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    // The tuning upstream's O-level pipelines use (mlir/ExecutionEngine's
    // makeOptimizingTransformer), so that `default<O3>` is theirs.
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassBuilder builder(*machine, tuning);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes;
    if (llvm::Error error = builder.parsePassPipeline(passes, llvmPasses))
      return getOperation().emitError()
             << "invalid LLVM pass pipeline '" << llvmPasses
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
};

} // namespace

std::optional<SmallVector<char, 0>>
tile::serializeToPTX(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                     const gpu::TargetOptions &options, StringRef llvmPasses) {
  PTXSerializer::init();
  PTXSerializer serializer(module, target, options, llvmPasses);
  return serializer.run();
}
