//===- ReferenceJIT.cpp - Run a reference func.func on the CPU ------------===//

#include "tile/Runner/ReferenceJIT.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "tile/Pipelines/Pipelines.h"
#include "tile/Runner/GuardedRun.h"
#include "tile/Runtime/CPURuntime.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>
#include <functional>

using namespace mlir;

namespace tile::runner {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error runOnCPU(func::FuncOp func,
                                   llvm::ArrayRef<ArgumentPlan> arguments,
                                   llvm::ArrayRef<HostBuffer *> buffers) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;

  // A module of its own holding a copy of the reference and of the
  // functions it calls, directly or not (helpers shared by references).
  MLIRContext *context = func.getContext();
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module->getBody());
  auto copy = cast<func::FuncOp>(builder.clone(*func));
  copy.setPublic();
  copy->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                builder.getUnitAttr());
  llvm::SmallVector<func::FuncOp> worklist = {func};
  llvm::SmallPtrSet<Operation *, 4> copied = {func.getOperation()};
  while (!worklist.empty()) {
    func::FuncOp caller = worklist.pop_back_val();
    caller.walk([&](func::CallOp call) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          caller, call.getCalleeAttr());
      if (callee && copied.insert(callee).second) {
        builder.clone(*callee);
        worklist.push_back(callee);
      }
    });
  }

  // Runtime checks (memref.dim of a dimension that exists, loads and stores
  // in bounds, ...), whose failures call back into tile-run.
  PassManager checks(context);
  checks.addPass(createGenerateRuntimeVerificationPass());
  if (failed(checks.run(*module)))
    return makeError("cannot add runtime checks to the reference '" +
                     func.getSymName() + "'");
  addLoopStepChecks(*module);
  lowerChecksToReports(*module);

  PassManager pm(context);
  mlir::tile::buildHostToLLVMPipeline(pm);
  if (failed(pm.run(*module)))
    return makeError("cannot lower the reference '" + func.getSymName() +
                     "' to LLVM for the CPU");

  ExecutionEngineOptions options;
  // ExecutionEngineOptions::transformer is a function_ref: the function it
  // refers to must outlive ExecutionEngine::create (ASan found it dangling
  // when bound to the temporary).
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  options.transformer = optimize;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return makeError("cannot JIT-compile the reference '" + func.getSymName() +
                     "': " + llvm::toString(engine.takeError()));
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner(kCheckFailedFunction)] = {
        llvm::orc::ExecutorAddr::fromPtr(&tile_runtime_check_failed),
        llvm::JITSymbolFlags::Exported};
    // f32 -> bf16 rounding that LLVM may call (not in every libgcc).
    symbols[interner(cpu::entry::kTruncSFBF2)] = {
        llvm::orc::ExecutorAddr::fromPtr(&tile_rt_truncsfbf2),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  auto entry =
      (*engine)->lookupPacked(("_mlir_ciface_" + func.getSymName()).str());
  if (!entry)
    return makeError(
        "cannot find the reference '" + func.getSymName() +
        "' in its JIT-compiled code: " + llvm::toString(entry.takeError()));

  // Arguments: a pointer to a memref descriptor per buffer, scalars in
  // memory of their own width.
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> descriptorPointers(arguments.size());
  std::vector<uint64_t> scalars(arguments.size());
  std::vector<void *> packed;
  descriptors.reserve(arguments.size());
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    if (argument.isBuffer) {
      HostBuffer *buffer = buffers[index];
      std::vector<int64_t> descriptor = {
          reinterpret_cast<int64_t>(buffer->getData()),
          reinterpret_cast<int64_t>(buffer->getData()), 0};
      descriptor.insert(descriptor.end(), argument.shape.begin(),
                        argument.shape.end());
      int64_t stride = 1;
      std::vector<int64_t> strides(argument.shape.size());
      for (int d = static_cast<int>(argument.shape.size()) - 1; d >= 0; --d) {
        strides[d] = stride;
        stride *= argument.shape[d];
      }
      descriptor.insert(descriptor.end(), strides.begin(), strides.end());
      descriptors.push_back(std::move(descriptor));
      descriptorPointers[index] = descriptors.back().data();
      packed.push_back(&descriptorPointers[index]);
      continue;
    }
    scalars[index] = argument.getScalarBits();
    packed.push_back(&scalars[index]);
  }
  return callGuarded(*entry, packed.data(),
                     ("the reference '" + func.getSymName() + "'").str());
}

} // namespace tile::runner
