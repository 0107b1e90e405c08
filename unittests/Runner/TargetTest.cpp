//===- TargetTest.cpp - Kernels run through the Target interface ----------===//
//
// The CPU target compiles a module of tile kernels once and runs any of
// them; what its runtime finds is reported through RuntimeFindings. (The
// GPU target needs a GPU: the GPU suite runs it.)
//
//===----------------------------------------------------------------------===//

#include "tile/Runner/CPUTarget.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/Parser/Parser.h"

#include "../Dialect/Tile/TestUtils.h"

using namespace mlir;
using namespace ::tile::runner;

namespace {

using TargetTest = mlir::tile::test::KernelTest;

// Two kernels of one module: a block-wide reversal through shared memory
// (barrier inserted by the pipeline) and a shift one past the shared buffer.
static constexpr const char *kKernels = R"mlir(
  tile.kernel @reverse(%x: memref<64xf32>, %y: memref<64xf32>)
      grid [2] threads [32] {
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %buf = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
    %tx = tile.thread_id x
    %bx = tile.block_id x
    %base = arith.muli %bx, %c32 : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %mirror = arith.subi %c31, %tx : index
    %w = memref.load %buf[%mirror] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %y[%i] : memref<64xf32>
  }
  tile.kernel @shift(%y: memref<32xf32>) grid [1] threads [32] {
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %buf = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
    %tx = tile.thread_id x
    %next = arith.addi %tx, %c1 : index
    memref.store %one, %buf[%next] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %one, %y[%tx] : memref<32xf32>
  }
)mlir";

class CPUTargetTest : public TargetTest {
protected:
  /// Compiles a copy of the module (the original stays at tile level, for
  /// the plans) for the CPU target.
  std::unique_ptr<CPUTarget> compile(const CPUTargetOptions &options) {
    lowered = module->clone();
    llvm::Expected<std::unique_ptr<CPUTarget>> target =
        CPUTarget::compile(*lowered, options);
    EXPECT_TRUE(bool(target)) << llvm::toString(target.takeError());
    return target ? std::move(*target) : nullptr;
  }

  KernelPlan plan(StringRef name) {
    auto kernel = module->lookupSymbol<mlir::tile::KernelOp>(name);
    EXPECT_TRUE(kernel);
    llvm::Expected<KernelPlan> planned = planKernel(kernel, PlanOptions());
    EXPECT_TRUE(bool(planned)) << llvm::toString(planned.takeError());
    return planned ? std::move(*planned) : KernelPlan();
  }

  OwningOpRef<ModuleOp> lowered;
};

TEST_F(CPUTargetTest, CompilesOnceAndRunsEachKernel) {
  ASSERT_TRUE(parseKernel(kKernels));
  CPUTargetOptions options;
  options.workers = 1;
  std::unique_ptr<CPUTarget> target = compile(options);
  ASSERT_TRUE(target);
  EXPECT_TRUE(isa<CPUTarget>(static_cast<Target *>(target.get())));
  EXPECT_EQ(target->getKindName(), "CPU");
  EXPECT_EQ(target->getDeviceName(), "CPU (1 worker thread)");
  EXPECT_GT(target->getCompileMs(), 0);

  HostBuffer x(ElementKind::F32, {64}), y(ElementKind::F32, {64});
  x.fillRandom(3);
  y.poison();
  RuntimeFindings findings;
  llvm::Error error = target->run(plan("reverse"), {&x, &y}, findings);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_TRUE(findings.empty());
  for (size_t i = 0; i < 64; ++i)
    EXPECT_EQ(y.get(i), x.get(i / 32 * 32 + 31 - i % 32)) << i;

  // The other kernel of the same compilation: its out-of-bounds store is a
  // finding that names it, not a crash.
  HostBuffer z(ElementKind::F32, {32});
  error = target->run(plan("shift"), {&z}, findings);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(findings.outOfBounds, 1u);
  ASSERT_EQ(findings.lines.size(), 1u);
  EXPECT_TRUE(StringRef(findings.lines[0]).starts_with("@shift: out-of-bounds"))
      << findings.lines[0];
  EXPECT_FALSE(findings.empty());
}

TEST_F(CPUTargetTest, RaceCheckFindsARemovedBarrier) {
  ASSERT_TRUE(parseKernel(kKernels));
  CPUTargetOptions options;
  options.raceCheck = true;
  // With its barrier the kernel is race free.
  {
    std::unique_ptr<CPUTarget> target = compile(options);
    ASSERT_TRUE(target);
    HostBuffer x(ElementKind::F32, {64}), y(ElementKind::F32, {64});
    x.fillRandom(3);
    RuntimeFindings findings;
    llvm::Error error = target->run(plan("reverse"), {&x, &y}, findings);
    ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
    EXPECT_TRUE(findings.empty()) << findings.lines.size();
  }
  options.skipBarrier = 0;
  options.skipBarrierKernel = "reverse";
  options.workers = 2;
  std::unique_ptr<CPUTarget> target = compile(options);
  ASSERT_TRUE(target);
  EXPECT_EQ(target->getDeviceName(), "CPU (2 worker threads, race check)");
  HostBuffer x(ElementKind::F32, {64}), y(ElementKind::F32, {64});
  x.fillRandom(3);
  RuntimeFindings findings;
  llvm::Error error = target->run(plan("reverse"), {&x, &y}, findings);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_GT(findings.races, 0u);
}

TEST_F(CPUTargetTest, AKernelNotCompiledIsAnError) {
  ASSERT_TRUE(parseKernel(kKernels));
  lowered = module->clone();
  // Compile only @shift.
  lowered->lookupSymbol<mlir::tile::KernelOp>("reverse").erase();
  llvm::Expected<std::unique_ptr<CPUTarget>> target =
      CPUTarget::compile(*lowered, CPUTargetOptions());
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  HostBuffer x(ElementKind::F32, {64}), y(ElementKind::F32, {64});
  RuntimeFindings findings;
  llvm::Error error = (*target)->run(plan("reverse"), {&x, &y}, findings);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "no CPU code was produced for kernel 'reverse'");
}

} // namespace

namespace {

// compileToPTX runs its passes without the verifier after each one, so it
// verifies its input first: an invalid module (here parsed without
// verification, as an embedder may build one) is an error, not a crash or
// PTX of nonsense.
TEST_F(TargetTest, CompileToPTXVerifiesItsInput) {
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> invalid = parseSourceString<ModuleOp>(R"mlir(
    tile.kernel @bad(%C: memref<16x8xf32>) grid [1] threads [32] {
      %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<8x8xf16, #gpu.address_space<workgroup>>
      %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
      tile.gemm %As, %Bs, %acc : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<8x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
    }
  )mlir",
                                                              config);
  ASSERT_TRUE(invalid);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message += diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(mlir::tile::compileToPTX(*invalid, {})));
  EXPECT_NE(message.find("shapes do not multiply"), std::string::npos)
      << message;
}

} // namespace
