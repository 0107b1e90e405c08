//===- SerializeToPTX.cpp - gpu.module to PTX, modules in parallel --------===//
//
// The upstream gpu-module-to-binary serializes the modules one after the
// other. Translation to LLVM IR, the LLVM pipeline and the NVPTX backend are
// most of a kernel's compile time, and every module is compiled in its own
// LLVMContext, so modules are independent: they are serialized on MLIR's
// thread pool here, and the gpu.binary ops are created afterwards, in order.
//
//===----------------------------------------------------------------------===//

#include "PTXSerializer.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Pipelines/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/InitializePasses.h"
#include "llvm/Pass.h"
#include "llvm/PassInfo.h"
#include "llvm/PassRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"

#include <mutex>

#define DEBUG_TYPE "tile-serialize-to-ptx"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESERIALIZETOPTX
#include "tile/Pipelines/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// Legacy passes register when first created: registers the backend's IR
/// and machine passes now, so that their names are known before they run
/// (idempotent).
static void initializeBackendPasses() {
  llvm::PassRegistry &registry = *llvm::PassRegistry::getPassRegistry();
  llvm::initializeCore(registry);
  llvm::initializeScalarOpts(registry);
  llvm::initializeTransformUtils(registry);
  llvm::initializeCodeGen(registry);
}

/// Skips the backend's (legacy pass manager's) passes named in `arguments`.
/// The gate is LLVM's opt-bisect hook: every legacy pass asks it before
/// running on a function, with its argument (`slsr`, as llc's
/// `-opt-disable=slsr` names it). It defers to LLVM's own gate
/// (`-opt-bisect-limit`, `-opt-disable`) for every other pass, so those
/// options keep working. Built before the modules compile in parallel (one
/// per module: a kernel may skip passes of its own); only the module's
/// thread uses it then.
///
/// `pass#n` skips the n-th run of a function pass on each function,
/// counting the IR pipeline's runs and then the backend's: the IR
/// pipeline's passes ask this gate too (StandardInstrumentations), so
/// `gvn#1` is O3's GVN and `gvn#2`, `gvn#3` are the two the NVPTX backend
/// adds. (PTXSerializer skips the IR pipeline's runs by the same count, per
/// loop for its loop passes.)
class SkipBackendPasses : public llvm::OptPassGate {
public:
  /// Loop passes ask with their name ("Loop Strength Reduction"), others
  /// with their argument ("slsr"): both are recorded for each argument.
  explicit SkipBackendPasses(const llvm::StringSet<> &arguments) {
    initializeBackendPasses();
    llvm::PassRegistry &registry = *llvm::PassRegistry::getPassRegistry();
    for (const auto &argument : arguments) {
      skipped.insert(argument.getKey());
      numbered |= argument.getKey().contains('#');
      if (const llvm::PassInfo *info = registry.getPassInfo(argument.getKey()))
        skipped.insert(info->getPassName());
    }
  }
  /// Records the functions of the module this gate serves, before its
  /// passes run (the IR pipeline's function passes describe their unit by
  /// the function's name alone).
  void setModule(const llvm::Module &module) {
    functions.clear();
    for (const llvm::Function &function : module)
      functions.insert(function.getName());
  }

  bool isEnabled() const override { return true; }
  bool shouldRunPass(StringRef passName,
                     StringRef description) const override {
    if (skipped.contains(passName))
      return false;
    StringRef function = getFunctionName(description);
    if (numbered && !function.empty()) {
      std::string key = (passName + "#").str();
      unsigned run = ++runs[key + function.str()];
      if (skipped.contains(key + std::to_string(run)))
        return false;
    }
    const llvm::OptPassGate &global = llvm::getGlobalPassGate();
    return !global.isEnabled() || global.shouldRunPass(passName, description);
  }

private:
  /// The function a pass is about to run on, from the description the gate
  /// gets of its unit: `function (f)` from the backend's function and
  /// machine function passes, `f` from the IR pipeline's function passes.
  /// Empty for the other units: loops (`loop` in the backend, `loop %l in
  /// function f` in the IR pipeline), call-graph SCCs (`(f)`) and modules
  /// (`[module]`, `module (m)`), none of which is a function's name.
  StringRef getFunctionName(StringRef description) const {
    if (description.consume_front("function (") &&
        description.consume_back(")"))
      return description;
    return functions.contains(description) ? description : StringRef();
  }

  llvm::StringSet<> skipped;
  /// The functions of the module (setModule).
  llvm::StringSet<> functions;
  /// Whether any entry names a run (`pass#n`).
  bool numbered = false;
  /// The runs so far of each pass on each function (`pass#function`).
  mutable llvm::StringMap<unsigned> runs;
};

/// Whether LLVM knows a pass by `name`: an IR pass of the new pass manager
/// (opt's -passes names) or a legacy pass (the backend's, llc's names).
static bool isLLVMPassName(StringRef name) {
  llvm::PassBuilder builder;
  llvm::ModulePassManager passes;
  if (!builder.parsePassPipeline(passes, name))
    return true; // Parsed (an llvm::Error converts to true on failure).
  initializeBackendPasses();
  return llvm::PassRegistry::getPassRegistry()->getPassInfo(name) != nullptr;
}

/// Whether `name` is `pass#n`: the n-th run (from 1) of an LLVM pass.
static bool isLLVMPassRun(StringRef name) {
  auto [pass, run] = name.split('#');
  unsigned number;
  return !run.getAsInteger(10, number) && number != 0 && isLLVMPassName(pass);
}

/// The objects of one module, one per target.
using Objects = SmallVector<Attribute>;

/// Serializes `module` for each of its targets, NVVM ones through
/// PTXSerializer with `llvmPasses`, or when it is empty the pipeline the
/// module's kernel asked for (`tile.llvm_passes`); nullopt after an error
/// (reported on the module).
static std::optional<Objects>
serializeModule(gpu::GPUModuleOp module, StringRef toolkitPath,
                StringRef llvmPasses, const llvm::StringSet<> &skippedPasses,
                SkipBackendPasses &gate) {
  // Each module is translated into an LLVMContext of its own; the gate is
  // set on it before the LLVM pipelines run.
  auto setGate = [&](llvm::Module &llvmModule) {
    gate.setModule(llvmModule);
    llvmModule.getContext().setOptPassGate(gate);
  };
  gpu::TargetOptions options(
      toolkitPath, /*librariesToLink=*/{},
      /*cmdOptions=*/"", /*elfSection=*/"", gpu::CompilationTarget::Assembly,
      /*getSymbolTableCallback=*/{},
      skippedPasses.empty() ? function_ref<void(llvm::Module &)>()
                            : function_ref<void(llvm::Module &)>(setGate));
  if (llvmPasses.empty())
    if (auto own = module->getAttrOfType<StringAttr>(tile::kLLVMPassesAttr))
      llvmPasses = own.getValue();
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets || targets.empty()) {
    module.emitError("the gpu.module has no target attribute: run "
                     "nvvm-attach-target first");
    return std::nullopt;
  }
  Objects objects;
  for (Attribute attr : targets) {
    auto target = cast<gpu::TargetAttrInterface>(attr);
    std::optional<SmallVector<char, 0>> serialized;
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
      serialized = tile::serializeToPTX(module, nvvm, options, llvmPasses,
                                          skippedPasses);
    else
      serialized = target.serializeToObject(module, options);
    if (!serialized) {
      module.emitError("compiling the gpu.module for ") << attr << " failed";
      return std::nullopt;
    }
    Attribute object = target.createObject(module, *serialized, options);
    if (!object) {
      module.emitError("packing the compiled gpu.module failed");
      return std::nullopt;
    }
    objects.push_back(object);
  }
  return objects;
}

/// Makes the module's dynamic shared memory (`gpu.dynamic_shared_memory`
/// lowers to a zero-length `llvm.mlir.global` in address space 3) an
/// external symbol. convert-gpu-to-nvvm gives it internal linkage, and the
/// NVPTX backend then "demotes" it to a one-byte static `.shared` variable,
/// which ptxas may place before the kernel's other static shared memory
/// (mbarriers, reduction scratch): the dynamic buffers then overlapped them
/// (racecheck saw cp.async into a stage buffer hit the mbarriers of
/// examples/gemv/warp_specialized.mlir). As `.extern .shared ... []` it
/// starts after all static shared memory, as CUDA's `extern __shared__`,
/// aligned as tile-to-gpu recorded (swizzled tiles ask for 128 bytes).
static void externalizeDynamicSharedMemory(gpu::GPUModuleOp module) {
  auto alignment = module->getAttrOfType<IntegerAttr>(
      tile::kDynamicSharedAlignmentAttr);
  module.walk([&](LLVM::GlobalOp global) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (global.getAddrSpace() == 3 && array && array.getNumElements() == 0 &&
        !global.getInitializerRegion().getBlocks().size() &&
        !global.getValueAttr()) {
      global.setLinkage(LLVM::Linkage::External);
      global.setDsoLocal(true);
      if (alignment &&
          alignment.getInt() > static_cast<int64_t>(
                                   global.getAlignment().value_or(0)))
        global.setAlignment(alignment.getInt());
    }
  });
}

/// How far back GVN's memory-dependence analysis (in the O3 pipeline and
/// the NVPTX backend) looks, within a block, for what a load depends on:
/// LLVM's default is 100 instructions. In the long unrolled blocks of
/// tensor-core kernels each of ~256 shared loads scanned 100 instructions,
/// and basic alias analysis recomputed the known bits of the swizzled
/// index of every earlier load it met: a third of tf32.mlir's compile time
/// (three GVN runs, 644 M of 1.9 G instructions, callgrind). With 10 the PTX
/// of every kernel of the examples is byte-identical (56 kernels compared).
/// The option is process-wide, so tile-run's host code (references) also
/// compiles with it.
static constexpr unsigned kMemDepBlockScanLimit = 10;

/// Sets an LLVM option unless it was given (tile-opt and tile-run take
/// LLVM's options).
static void setDefaultOption(StringRef name, StringRef value) {
  auto options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it == options.end() || it->second->getNumOccurrences() != 0)
    return;
  (void)it->second->addOccurrence(/*pos=*/0, name, value);
}

/// The most memory accesses a loop may have for LICM to promote memory
/// locations to registers in it (`-licm-mssa-max-acc-promotion`; LLVM's
/// default is 250). Promotion first sorts the loop's accesses into alias
/// sets, each new access compared with every set so far: in the chunk loop
/// of a resident row kernel (a row of 32768 f32 read and written in 4096-
/// column parts, about 200 accesses) that was 63 M instructions of
/// softmax_resident_32k's 1054 M (callgrind; LICM 19 -> 3 ms). Promotion
/// changes no kernel of the examples: with 100, or with none at all, the
/// PTX of all 76 is byte-identical (scripts/compare-ptx.py, 2026-12-02).
static constexpr unsigned kLicmMaxAccessesForPromotion = 100;

/// Sets `-memdep-block-scan-limit` to kMemDepBlockScanLimit and turns off
/// the SLP vectorizer's search for horizontal reductions
/// (`-slp-vectorize-hor=false`), unless given. The search starts at every
/// phi: at the 128 accumulator phis of a wgmma kernel it was a tenth of the
/// whole compile (callgrind: 99 of gemm/wgmma.mlir's 1179 M instructions,
/// ws_f16 1468 -> 1246 M), and it vectorizes nothing here: the PTX of all
/// 60 kernels of the examples is byte-identical without it. Caps LICM's
/// promotion at kLicmMaxAccessesForPromotion accesses. The options are
/// process-wide: set once, before the modules compile in parallel.
static void setLLVMOptions() {
  static std::once_flag once;
  std::call_once(once, [] {
    setDefaultOption("memdep-block-scan-limit",
                     std::to_string(kMemDepBlockScanLimit));
    setDefaultOption("slp-vectorize-hor", "false");
    setDefaultOption("licm-mssa-max-acc-promotion",
                     std::to_string(kLicmMaxAccessesForPromotion));
  });
}

/// Adds the comma-separated LLVM passes of `list` (`default` standing for
/// the default list) to `into`; an error at `loc`, naming `what`, for a
/// name that is not an LLVM pass or pass run.
static LogicalResult addSkippedPasses(StringRef list, StringRef what,
                                      Location loc, llvm::StringSet<> &into) {
  SmallVector<StringRef> names;
  list.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  SmallVector<StringRef> defaults;
  StringRef(tile::kDefaultSkippedLLVMPasses).split(defaults, ',');
  for (size_t i = 0; i < names.size(); ++i) {
    StringRef name = names[i].trim();
    if (name == "default") {
      names.append(defaults.begin(), defaults.end());
      continue;
    }
    if (name.contains('#') && !isLLVMPassRun(name))
      return mlir::emitError(loc)
             << what << ": '" << name
             << "' is not a run of an LLVM pass (`pass#n`: the n-th run, "
                "from 1, of a pass as opt's -passes or llc's -opt-disable "
                "names it, e.g. instcombine#2, gvn#3)";
    if (!name.contains('#') && !isLLVMPassName(name))
      return mlir::emitError(loc)
             << what << ": '" << name
             << "' is not an LLVM pass (names as opt's -passes or llc's "
                "-opt-disable give them, e.g. slp-vectorizer, loop-reduce)";
    into.insert(name);
  }
  return success();
}

struct TileSerializeToPTX
    : tile::impl::TileSerializeToPTXBase<TileSerializeToPTX> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    setLLVMOptions();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      externalizeDynamicSharedMemory(gpuModule);
    llvm::StringSet<> skippedPasses;
    if (failed(addSkippedPasses(skipLLVMPasses, "skip-llvm-passes",
                                module.getLoc(), skippedPasses)))
      return signalPassFailure();
    // A kernel's own list adds to the default one; a list given to the
    // pass replaces both (as `llvm-passes` replaces a kernel's pipeline).
    bool defaultSkips = skipLLVMPasses == tile::kDefaultSkippedLLVMPasses;
    SmallVector<llvm::StringSet<>> moduleSkips(gpuModules.size(),
                                               skippedPasses);
    for (auto [gpuModule, skips] : llvm::zip(gpuModules, moduleSkips)) {
      auto own =
          gpuModule->getAttrOfType<StringAttr>(tile::kSkipLLVMPassesAttr);
      if (own && defaultSkips &&
          failed(addSkippedPasses(own.getValue(), "skip_llvm_passes",
                                  gpuModule.getLoc(), skips)))
        return signalPassFailure();
    }
    SmallVector<std::unique_ptr<SkipBackendPasses>> gates;
    for (const llvm::StringSet<> &skips : moduleSkips)
      gates.push_back(std::make_unique<SkipBackendPasses>(skips));

    // Diagnostics from the workers are reported in module order. An error
    // fails the pass even when the target goes on (a missing libdevice).
    bool sawError = false;
    ScopedDiagnosticHandler errors(context, [&](Diagnostic &diagnostic) {
      sawError |= diagnostic.getSeverity() == DiagnosticSeverity::Error;
      return failure(); // Not handled here: on to the next handler.
    });
    StringRef passes = llvmPasses;
    SmallVector<std::optional<Objects>> results(gpuModules.size());
    {
      ParallelDiagnosticHandler diagnostics(context);
      parallelFor(context, 0, gpuModules.size(), [&](size_t index) {
        diagnostics.setOrderIDForThread(index);
        results[index] = serializeModule(gpuModules[index], toolkitPath, passes,
                                         moduleSkips[index], *gates[index]);
        diagnostics.eraseOrderIDForThread();
      });
    }
    if (sawError)
      return signalPassFailure();

    OpBuilder builder(context);
    for (auto [gpuModule, objects] : llvm::zip(gpuModules, results)) {
      if (!objects)
        return signalPassFailure();
      builder.setInsertionPointAfter(gpuModule);
      gpu::BinaryOp::create(builder, gpuModule.getLoc(), gpuModule.getName(),
                            gpuModule.getOffloadingHandlerAttr(),
                            builder.getArrayAttr(*objects));
      gpuModule->erase();
    }
  }
};

} // namespace
