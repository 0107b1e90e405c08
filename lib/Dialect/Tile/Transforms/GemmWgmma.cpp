//===- GemmWgmma.cpp - tile.gemm on Hopper warp-group MMAs ----------------===//
//
// Each warp group (4 warps, 128 threads) computes 64 rows of C with
// `wgmma.mma_async` m64nNk16 (k8 for tf32), reading A and B straight from
// shared memory through 64-bit matrix descriptors:
//
//   fence.proxy.async.shared::cta       shared writes (cp.async, st.shared)
//                                       visible to the async proxy
//   wgmma.fence                         C's registers written before (the
//                                       first line of the statement below)
//   wgmma.mma_async  x (K / k) x (N / n)   scale-d = 0 on the first k step
//                                       of a `clear` gemm
//   wgmma.commit_group; wgmma.wait_group 0
//
// The operands are 128-byte swizzled tiles aligned to 1024 bytes (layout
// inference sees to it; IR/Swizzle.h has the layout, which is the one the
// hardware's 128-byte swizzle mode reads). A descriptor holds the shared
// address >> 4 of the instruction's first element, and two strides in
// 16-byte units:
//   K-major (A stored M x K, B stored N x K): rows of 128 bytes along K,
//     8-row groups (SBO) 1024 bytes apart; a K step inside a 128-byte
//     line moves the start by 32 bytes and the hardware swizzles the rest;
//   MN-major (A stored K x M, B stored K x N; 16-bit types only): 64-wide
//     panels along M or N (LBO) a panel (rows x 128 bytes) apart, 8-row
//     groups along K (SBO) 1024 bytes apart.
// This is what Triton's MMAv3 lowering and CUTLASS's GMMA descriptors
// encode (PTX ISA, "Matrix Descriptor Format").
//
// tf32 (f32 tiles). The tensor cores read the f32 bits of shared memory
// and drop the low 13 mantissa bits; tile.gemm rounds to nearest (as the
// mma.sync and scalar lowerings do), so the descriptor operands are first
// rounded in place (barrier; each thread rounds its share with
// cvt.rn.tf32.f32; fence.proxy.async; barrier), unless TMA rounded them on
// the copy (tile.tf32_rounded: tile-lower-warp-specialize's consumers, whose
// tiles a TFLOAT32 tensor map fills). The instruction reads
// tf32 only K-major from shared memory, so with B stored K x N the product
// is computed transposed, C^T = B^T A^T: the warp groups split N, A (M x K,
// K-major) is the instruction's B operand through a descriptor, and B^T is
// its A operand in registers, loaded and rounded by each thread (the
// m64nNk8 A fragment of warp w: a0 (n g, k q), a1 (n g+8, k q), a2 (n g,
// k q+4), a3 (n g+8, k q+4), n from 16 w, g = l / 4, q = l % 4). MLIR 22's
// nvvm.wgmma.mma_async has no register A operand, so that form is inline
// PTX with the accumulators tied. Its registers are read asynchronously:
// a rolled pipeline that leaves such a gemm in flight has two copies of
// its body per loop iteration, so that the registers of consecutive
// iterations differ (tile-software-pipeline). C's layout is then the transposed
// accumulator layout of the N x M product (getTransposedLayout).
//
// The accumulator of instruction j (columns [j n, (j+1) n)) of warp w holds
// d[i] at row 16 (w mod 4) + l / 4 + 8 ((i mod 4) / 2), column
// j n + 8 (i / 4) + 2 (l mod 4) + i mod 2: C's registers j n / 2 + i in
// the mma accumulator layout with warps [W, 1] (FragmentLayout.h).
//
// The gemm's wgmmas are one inline PTX statement (WgmmaStatement): C's
// registers are its outputs, tied to its inputs when it accumulates, so
// ptxas sees only wgmmas define them between the loads and the wait (no
// serialization). nvvm.wgmma.mma_async would be one statement per
// instruction, each carrying all of C's registers, which is what LLVM's
// backend spends its time on; it also has no register A operand.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tile;

/// Rows of C per warp group, and the widest N of one instruction.
static constexpr int64_t kWarpGroupRows = 64;
static constexpr int64_t kMaxInstructionN = 256;
/// Bytes of K per instruction.
static constexpr int64_t kStepBytes = 32;
/// Descriptor layout type of the 128-byte swizzle (bits 62-63).
static constexpr uint64_t kSwizzle128Descriptor = uint64_t(1) << 62;

/// The N of each instruction: the largest divisor of `n` that is a multiple
/// of 8, at most 256, and whole panels (`panel` columns) when B is read
/// MN-major (its instructions then start on a panel). Nullopt if none.
static std::optional<int64_t> chooseInstructionN(int64_t n, int64_t panel) {
  for (int64_t candidate = std::min(n, kMaxInstructionN); candidate >= 8;
       candidate -= 8) {
    if (n % candidate == 0 &&
        (panel == 0 || candidate % panel == 0 || candidate == n))
      return candidate;
  }
  return std::nullopt;
}

/// True when `tile` is a swizzled shared tile starting on a swizzle atom:
/// a swizzled allocation aligned to 1024 bytes, a stage of one in a
/// rolled pipeline (a marked view; stages start as aligned as the buffer),
/// or an `arith.select` of such tiles.
static bool isDescriptorTile(Value tile) {
  // A tile chosen at run time: the descriptor's base is the chosen one's.
  if (auto select = tile.getDefiningOp<arith::SelectOp>())
    return isDescriptorTile(select.getTrueValue()) &&
           isDescriptorTile(select.getFalseValue());
  bool swizzled = false;
  if (auto view = tile.getDefiningOp<memref::ViewOp>()) {
    swizzled = view->hasAttr(kSwizzledViewAttr);
    tile = view.getSource();
  }
  auto alloc = tile.getDefiningOp<AllocSharedOp>();
  return alloc && (swizzled || alloc.isSwizzled()) &&
         alloc.getEffectiveAlignment() >= kSwizzleAtomBytes;
}

/// wgmma.wait_group `pending` as inline PTX through which `values` (f32
/// accumulator registers) pass, tied: their readers then depend on the
/// wait, so LLVM cannot move them above it (the wait intrinsic alone
/// carries no data dependence, and an epilogue conversion hoisted above
/// it made ptxas serialize every wgmma, C7514, or read registers still
/// being written). Triton's wgmma wait does the same. With no values, the
/// plain wait.
static SmallVector<Value> buildWgmmaWaitTied(OpBuilder &b, Location loc,
                                             int64_t pending,
                                             ArrayRef<Value> values) {
  if (values.empty()) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
    return {};
  }
  std::string constraints;
  for (size_t i = 0; i < values.size(); ++i)
    constraints += "=f,";
  for (size_t i = 0; i < values.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < values.size() ? "," : "");
  auto type = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(values.size(), b.getF32Type()));
  Value waited =
      LLVM::InlineAsmOp::create(
          b, loc, type, values,
          b.getStringAttr("wgmma.wait_group.sync.aligned " +
                          std::to_string(pending) + ";"),
          b.getStringAttr(constraints), b.getUnitAttr(),
          /*is_align_stack=*/nullptr,
          LLVM::TailCallKindAttr::get(b.getContext(),
                                      LLVM::tailcallkind::TailCallKind::None),
          /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
          .getResult(0);
  SmallVector<Value> results;
  for (size_t i = 0; i < values.size(); ++i)
    results.push_back(LLVM::ExtractValueOp::create(b, loc, waited, i));
  return results;
}

void tile::buildWgmmaWaitForRegisters(
    OpBuilder &b, Location loc, int64_t pending,
    ArrayRef<const FragmentRegisters *> accumulators) {
  SmallVector<std::pair<const FragmentRegisters *, int64_t>> tied;
  SmallVector<Value> values;
  for (const FragmentRegisters *c : accumulators) {
    if (!cast<MemRefType>(c->buffer.getType()).getElementType().isF32())
      continue;
    for (int64_t reg = 0; reg < c->layout.getRegisters(); ++reg) {
      tied.emplace_back(c, reg);
      values.push_back(
          memref::LoadOp::create(b, loc, c->buffer, c->indices(b, loc, reg)));
    }
  }
  for (auto [where, value] :
       llvm::zip(tied, buildWgmmaWaitTied(b, loc, pending, values)))
    memref::StoreOp::create(b, loc, value, where.first->buffer,
                            where.first->indices(b, loc, where.second));
}

namespace {

/// One operand tile as the descriptors see it.
struct DescriptorOperand {
  Value tile;
  MemRefType type;
  /// Contiguous along K (rows of the stored tile run along K).
  bool kMajor;
  /// The constant part of the descriptor: strides and swizzle mode.
  uint64_t fields;
};

/// A tile.gemm's wgmmas as one inline PTX statement, in the order they
/// issue, with C's registers as its outputs: tied to its inputs, or, when
/// the first K step clears them (scale-d 0), outputs only. One statement
/// per instruction carried all of C's registers each time (258 operands
/// for m64n256k16), and LLVM's instruction selection, register coalescing
/// and InstCombine handle every operand of every statement: three quarters
/// of the LLVM time of a warp-specialized GEMM kernel went to its four
/// statements. What ptxas reads is the same instructions.
class WgmmaStatement {
public:
  WgmmaStatement(int64_t registers, ArrayRef<Value> accumulators)
      : registers(registers), tied(!accumulators.empty()) {
    assert((!tied || static_cast<int64_t>(accumulators.size()) == registers) &&
           "tied accumulators are all of C's registers");
    for (int64_t i = 0; i < registers; ++i)
      constraints.push_back("=f");
    for (auto [i, value] : llvm::enumerate(accumulators)) {
      inputs.push_back(value);
      constraints.push_back(std::to_string(i));
    }
  }

  /// `$n` of the input `value` with `constraint` ("l" descriptors, "r" A
  /// registers), added once.
  std::string input(Value value, StringRef constraint) {
    auto [it, inserted] =
        operandNumbers.try_emplace(value, registers + inputs.size());
    if (inserted) {
      inputs.push_back(value);
      constraints.push_back(constraint.str());
    }
    return "$" + std::to_string(it->second);
  }

  /// `{$first, ..}`: `count` of C's registers from `first`.
  std::string accumulators(int64_t first, int64_t count) const {
    std::string list = "{";
    for (int64_t i = first; i < first + count; ++i)
      list += (i == first ? "$" : ",$") + std::to_string(i);
    return list + "}";
  }

  /// One instruction; `clears`: it takes the scale-d predicate z (0).
  void addInstruction(StringRef text, bool clears) {
    assert((tied || clears || !instructions.empty()) &&
           "an untied statement's first instruction clears");
    usesClear |= clears;
    instructions += text.str() + "\n";
  }

  /// The statement; C's registers after it. It opens with wgmma.fence:
  /// every register the MMAs read (accumulators, A fragments,
  /// descriptors) is written before the statement, so before the fence,
  /// whatever copies LLVM's register allocation puts there (a separate
  /// fence op let the copies that give each tied accumulator its own
  /// register land after it, and ptxas then injected another fence, C7519).
  SmallVector<Value> build(OpBuilder &b, Location loc) const {
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n";
    if (usesClear)
      text += ".reg .pred z;\nsetp.ne.b32 z, 0, 0;\n";
    text += "wgmma.fence.sync.aligned;\n" + instructions + "}";
    auto type = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(registers, b.getF32Type()));
    Value result =
        LLVM::InlineAsmOp::create(
            b, loc, type, inputs, b.getStringAttr(text),
            b.getStringAttr(llvm::join(constraints, ",")), b.getUnitAttr(),
            /*is_align_stack=*/nullptr,
            LLVM::TailCallKindAttr::get(
                b.getContext(), LLVM::tailcallkind::TailCallKind::None),
            /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
            .getResult(0);
    SmallVector<Value> values;
    for (int64_t i = 0; i < registers; ++i)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
    return values;
  }

private:
  int64_t registers;
  bool tied;
  bool usesClear = false;
  SmallVector<Value> inputs;
  SmallVector<std::string> constraints;
  DenseMap<Value, int64_t> operandNumbers;
  std::string instructions;
};

class WgmmaEmitter {
public:
  WgmmaEmitter(OpBuilder &builder, GemmOp gemm, int64_t instructionN,
               const FragmentRegisters *aRegisters, Value thread)
      : b(builder), loc(gemm.getLoc()), gemm(gemm), instructionN(instructionN),
        aRegisters(aRegisters) {
    elementType = cast<MemRefType>(gemm.getA().getType()).getElementType();
    elementBytes = elementType.getIntOrFloatBitWidth() / 8;
    kStep = kStepBytes / elementBytes;
    transposed = gemm.isTransposedWgmma();
    if (!aRegisters)
      a = describe(gemm.getA(), /*kMajor=*/!gemm.getTransposeA());
    if (!transposed)
      bOperand = describe(gemm.getB(), /*kMajor=*/gemm.getTransposeB());
    // The warp index made provably warp-uniform (a shuffle from lane 0):
    // descriptors must be uniform (Triton #2633: ptxas miscompiled
    // descriptors it could not prove uniform).
    Type i32 = b.getI32Type();
    Value warp = arith::IndexCastUIOp::create(
        b, loc, i32,
        arith::DivUIOp::create(b, loc, thread, constant(tile::kWarpSize)));
    Value uniform =
        gpu::ShuffleOp::create(b, loc, warp, constantI32(0),
                               constantI32(tile::kWarpSize), gpu::ShuffleMode::IDX)
            .getShuffleResult();
    warpIndex = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), uniform);
    warpGroup = arith::DivUIOp::create(b, loc, warpIndex, constant(4));
    lane = arith::RemUIOp::create(b, loc, thread, constant(tile::kWarpSize));
    this->thread = thread;
  }

  void emit(const FragmentRegisters &c) {
    int64_t instructions =
        (transposed ? gemm.getM() : gemm.getN()) / instructionN;
    int64_t perInstruction = instructionN / 2;

    bool tf32 = gemm.isTF32();
    // Unless TMA has rounded the operand tiles on the copy (a
    // warp-specialized consumer's).
    bool roundsInPlace = tf32 && !gemm->hasAttr(kTF32RoundedAttr);
    if (roundsInPlace) {
      // Nobody reads the tiles any more when they are rewritten.
      if (!followsBarrier())
        createCompilerBarrier(b, loc, "tile-lower-fragments");
      roundInPlace(a);
      if (!transposed)
        roundInPlace(bOperand);
    }
    // Shared writes by the generic proxy (stores, cp.async) become visible
    // to the async proxy that wgmma reads through (TMA writes are the async
    // proxy's already).
    if (!gemm->hasAttr(kTmaOperandsAttr) || roundsInPlace)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    // Every thread's rounded elements are written before any MMA reads.
    if (roundsInPlace)
      createCompilerBarrier(b, loc, "tile-lower-fragments");
    // C's registers, instruction by instruction; a clearing gemm reads none.
    SmallVector<Value> acc;
    if (!gemm.getClear())
      for (int64_t reg = 0; reg < instructions * perInstruction; ++reg)
        acc.push_back(
            memref::LoadOp::create(b, loc, c.buffer, c.indices(b, loc, reg)));
    // The instruction's register A operand for every K step, loaded before
    // the statement (whose wgmma.fence orders it before the MMAs): a
    // fragment A's registers
    // (the m64nNk16 A fragment of each warp is the mma.sync m16n8k16 one,
    // which the accumulator layout of A holds as it is), or B^T's in a
    // transposed product.
    SmallVector<SmallVector<Value, 4>> registerA;
    if (aRegisters || transposed)
      for (int64_t k0 = 0; k0 < gemm.getK(); k0 += kStep)
        registerA.push_back(aRegisters ? readARegisters(k0)
                                       : loadBTransposed(k0));

    std::string typeName = tf32                   ? "tf32"
                           : elementType.isBF16() ? "bf16"
                                                  : "f16";
    std::string opcode = "wgmma.mma_async.sync.aligned.m64n" +
                         std::to_string(instructionN) + "k" +
                         std::to_string(kStep) + ".f32." + typeName + "." +
                         typeName;
    // The transpose immediates of f16 and bf16 (tf32 has none: K-major
    // only): 1 for an operand stored MN-major.
    auto transpose = [&](const DescriptorOperand &operand) -> std::string {
      return tf32 ? "" : (operand.kMajor ? ", 0" : ", 1");
    };
    WgmmaStatement statement(instructions * perInstruction, acc);
    Value rowBase;
    if (registerA.empty())
      rowBase =
          arith::MulIOp::create(b, loc, warpGroup, constant(kWarpGroupRows));
    // The other operand of a register-A product, through descriptors: B,
    // or A's tile when the product is transposed.
    const DescriptorOperand &shared =
        registerA.empty() ? bOperand : (aRegisters ? bOperand : a);
    for (int64_t k0 = 0; k0 < gemm.getK(); k0 += kStep) {
      std::string scale = gemm.getClear() && k0 == 0 ? "z" : "p";
      std::string operandA;
      if (registerA.empty()) {
        operandA = statement.input(descriptor(a, rowBase, /*mn0=*/0, k0), "l");
      } else {
        operandA = "{";
        for (auto [i, reg] : llvm::enumerate(registerA[k0 / kStep]))
          operandA += (i ? "," : "") + statement.input(reg, "r");
        operandA += "}";
      }
      for (int64_t j = 0; j < instructions; ++j) {
        std::string operandB = statement.input(
            descriptor(shared, Value(), /*mn0=*/j * instructionN, k0), "l");
        std::string text = opcode + " " +
                           statement.accumulators(j * perInstruction,
                                                  perInstruction) +
                           ", " + operandA + ", " + operandB + ", " + scale +
                           ", 1, 1";
        text += registerA.empty() ? transpose(a) + transpose(bOperand)
                                  : transpose(shared);
        statement.addInstruction(text + ";", /*clears=*/scale == "z");
      }
    }
    finish(c, statement.build(b, loc));
  }

private:
  /// Commits the MMAs and writes C's registers: after waiting for them,
  /// or, for a gemm left in flight, right away (the next iteration's MMAs
  /// are their only readers).
  void finish(const FragmentRegisters &c, SmallVector<Value> results) {
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    if (gemm->hasAttr(kWgmmaInFlightAttr)) {
      // Left in flight (a rolled pipeline releases the stage one iteration
      // late): only the next iteration's MMAs read these registers. Wait
      // for the previous group here, and for all after the loop.
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
      waitAfterLoop(c);
    } else if (gemm->hasAttr(kWgmmaDeferredAttr)) {
      // A tile.wgmma_wait further on waits for the group and ties these
      // registers (tile-schedule-wgmma-waits); nothing reads them before.
    } else {
      results = buildWgmmaWaitTied(b, loc, /*pending=*/0, results);
    }
    for (auto [reg, value] : llvm::enumerate(results))
      memref::StoreOp::create(b, loc, value, c.buffer, c.indices(b, loc, reg));
  }

  /// wgmma.wait_group 0 right after the loop around the gemm, through
  /// which C's registers pass (once per loop: a loop whose body has two
  /// copies of the gemm has one wait).
  void waitAfterLoop(const FragmentRegisters &c) {
    Operation *loop = claimWaitAfterLoop(gemm);
    if (!loop)
      return;
    OpBuilder after(loop->getContext());
    after.setInsertionPointAfter(loop);
    buildWgmmaWaitForRegisters(after, loc, /*pending=*/0, {&c});
  }

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// True when a block barrier precedes the gemm with nothing between
  /// that may touch shared memory but TMA copies and mbarrier operations
  /// (a TMA pipeline's iteration: barrier, the copies of a later stage,
  /// the wait for this one): then no thread still reads the operand tiles
  /// that the gemm rounds in place.
  bool followsBarrier() {
    auto harmless = [](Operation *op) {
      if (isa<TmaLoadOp, nvgpu::MBarrierTryWaitParityOp,
              nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierGetOp>(op) ||
          isPure(op))
        return true;
      return false;
    };
    for (Operation *op = gemm->getPrevNode(); op; op = op->getPrevNode()) {
      if (isa<BarrierOp>(op))
        return true;
      if (harmless(op))
        continue;
      auto branch = dyn_cast<scf::IfOp>(op);
      bool onlyHarmless =
          branch && !branch
                         .walk([&](Operation *nested) {
                           return nested == op || harmless(nested) ||
                                          isa<scf::YieldOp>(nested)
                                      ? WalkResult::advance()
                                      : WalkResult::interrupt();
                         })
                         .wasInterrupted();
      if (!onlyHarmless)
        return false;
    }
    return false;
  }

  /// cvt.rn.tf32.f32: the tf32 bits of `value`, rounded to nearest (ties
  /// to even), as the scalar and mma.sync lowerings and TMA round.
  Value toTF32(Value value) {
    return convertToTF32Bits(b, loc, value, /*nativeNearestEven=*/true);
  }

  /// Rounds the f32 tile of `operand` to tf32 in place, the block's threads
  /// taking runs of 4 elements in turn (whole 16-byte chunks: the swizzle
  /// moves chunks, so a run stays contiguous).
  void roundInPlace(const DescriptorOperand &operand) {
    int64_t elements = operand.type.getNumElements();
    int64_t columns = operand.type.getDimSize(1);
    int64_t threads = gemm->getParentOfType<KernelOp>().getNumThreads();
    constexpr int64_t run = 4;
    auto vectorType = VectorType::get({run}, b.getF32Type());
    for (int64_t first = 0; first < elements; first += threads * run) {
      Value linear = arith::AddIOp::create(
          b, loc, constant(first),
          arith::MulIOp::create(b, loc, thread, constant(run)));
      auto body = [&](OpBuilder &, Location) {
        SmallVector<Value> indices = {
            arith::DivUIOp::create(b, loc, linear, constant(columns)),
            arith::RemUIOp::create(b, loc, linear, constant(columns))};
        Value values =
            vector::LoadOp::create(b, loc, vectorType, operand.tile, indices);
        Value rounded = LLVM::PoisonOp::create(b, loc, vectorType);
        for (int64_t i = 0; i < run; ++i) {
          Value element = vector::ExtractOp::create(b, loc, values, i);
          Value bits = toTF32(element);
          rounded = vector::InsertOp::create(
              b, loc, arith::BitcastOp::create(b, loc, b.getF32Type(), bits),
              rounded, i);
        }
        vector::StoreOp::create(b, loc, rounded, operand.tile, indices);
      };
      if (first + threads * run <= elements) {
        body(b, loc);
        continue;
      }
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           linear, constant(elements));
      auto branch = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(branch.thenBlock()->getTerminator());
      body(b, loc);
    }
  }

  /// The A fragment registers of the K step at `k0` from a fragment A
  /// (its layout: the mma accumulator layout of M x K with warps [W, 1]):
  /// a0 a1 (g, 2q..), a2 a3 (g+8, 2q..), a4 a5 (g, 2q+8..), a6 a7 (g+8,
  /// 2q+8..) are the register pairs c0 c1 and c2 c3 of the warp's m16n8
  /// tiles at K columns k0 and k0 + 8, packed two to a 32-bit register.
  SmallVector<Value, 4> readARegisters(int64_t k0) {
    int64_t tilesK = gemm.getK() / kMmaTileCols;
    SmallVector<Value, 4> regs;
    for (int64_t tk = k0 / kMmaTileCols; tk < k0 / kMmaTileCols + 2; ++tk) {
      for (int64_t pair = 0; pair < 2; ++pair) {
        int64_t first = 4 * tk + 2 * pair;
        assert(first + 1 < 4 * tilesK && "register outside the fragment");
        (void)tilesK;
        SmallVector<Value, 2> halves;
        for (int64_t reg = first; reg < first + 2; ++reg)
          halves.push_back(memref::LoadOp::create(
              b, loc, aRegisters->buffer, aRegisters->indices(b, loc, reg)));
        Value word = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()),
            vector::FromElementsOp::create(
                b, loc, VectorType::get({2}, elementType), halves));
        regs.push_back(
            vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
      }
    }
    return regs;
  }

  /// The registers of B^T (N x K, from B stored K x N) for the K step at
  /// `k0`: the m64nNk8 tf32 A fragment of this thread's warp, rounded
  /// unless B's tile holds tf32 values already.
  SmallVector<Value, 4> loadBTransposed(int64_t k0) {
    bool rounded = gemm->hasAttr(kTF32RoundedAttr);
    Value g = arith::DivUIOp::create(b, loc, lane, constant(4));
    Value q = arith::RemUIOp::create(b, loc, lane, constant(4));
    Value n = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, warpIndex, constant(16)), g);
    Value n8 = arith::AddIOp::create(b, loc, n, constant(8));
    Value k = arith::AddIOp::create(b, loc, q, constant(k0));
    Value k4 = arith::AddIOp::create(b, loc, q, constant(k0 + 4));
    auto load = [&](Value row, Value column) -> Value {
      auto loaded =
          memref::LoadOp::create(b, loc, gemm.getB(), ValueRange{row, column});
      // The 16 loads of a K tile of 64 share 4 swizzle computations
      // (tile-apply-swizzles): LLVM's first InstCombine spent 67 M
      // instructions on 32 of them (gemm_tf32_wgmma, 477 -> 353 M).
      loaded->setAttr(kShareSwizzleRowsAttr, b.getUnitAttr());
      Value value = loaded;
      if (rounded)
        return arith::BitcastOp::create(b, loc, b.getI32Type(), value);
      return toTF32(value);
    };
    return {load(k, n), load(k, n8), load(k4, n), load(k4, n8)};
  }

  Value constantI32(int32_t value) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
  }

  /// The operand `tile`, stored K-major or not, with its descriptor's
  /// constant fields.
  DescriptorOperand describe(Value tile, bool kMajor) {
    auto type = cast<MemRefType>(tile.getType());
    int64_t rows = type.getDimSize(0);
    // K-major: LBO unused with the swizzle (a K step stays in its line),
    // 1 as CUTLASS sets it. MN-major: LBO = one panel.
    uint64_t leading = kMajor ? 1 : rows * kSwizzleBytes / 16;
    uint64_t stride = kSwizzleAtomBytes / 16;
    return {tile, type, kMajor,
            kSwizzle128Descriptor | (leading << 16) | (stride << 32)};
  }

  /// The descriptor of the instruction that reads, from `operand`, the
  /// rows (M or N) starting at `rowBase` (dynamic: A's warp group, or
  /// null) plus `mn0`, and K from `k0`: the descriptor of the rows at
  /// `rowBase` (built once per operand) plus the start's offset in 16-byte
  /// units. Adding to the 14-bit address field cannot carry out of it: a
  /// shared address is below 256 KB (2^14 units). So each instruction
  /// costs one 32-bit addition instead of the 64-bit add, shift, mask and
  /// or of a descriptor built from its address (six uniform instructions
  /// each, between the MMAs of a consumer).
  Value descriptor(const DescriptorOperand &operand, Value rowBase, int64_t mn0,
                   int64_t k0) {
    // The start, in the unpermuted layout (Swizzle.h): where the hardware
    // starts swizzling. A warp group's rows are whole 64-row blocks:
    // K-major, 64 rows of 128 bytes; MN-major, one 128-byte panel (64
    // 16-bit elements) of R rows.
    int64_t row = operand.kMajor ? mn0 : k0;
    int64_t column = operand.kMajor ? k0 : mn0;
    int64_t offset = getSwizzledLinearOffset(operand.type, row, column);
    assert(offset % 16 == 0 && "an instruction's start is a 16-byte unit");
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value low = arith::AddIOp::create(
        b, loc, descriptorLow(operand, rowBase),
        arith::ConstantIntOp::create(b, loc, i32, offset / 16));
    // The high word holds only constant fields (stride, swizzle mode).
    return arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, low),
        arith::ConstantIntOp::create(
            b, loc, i64,
            static_cast<int64_t>(operand.fields & ~uint64_t(0xffffffff))));
  }

  /// The low 32 bits of the descriptor of `operand`'s rows at `rowBase`:
  /// the address field (bits 0-13, the address in 16-byte units) and the
  /// leading byte offset (bits 16-29). Built at the first request; every
  /// request comes from the same block (emit).
  Value descriptorLow(const DescriptorOperand &operand, Value rowBase) {
    Value &low = descriptorLows[{operand.tile, rowBase}];
    if (low)
      return low;
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand.tile);
    if (rowBase) {
      int64_t perRow = operand.kMajor ? kSwizzleBytes
                                      : operand.type.getDimSize(0) *
                                            kSwizzleBytes / kWarpGroupRows;
      address = arith::AddIOp::create(
          b, loc, address,
          arith::MulIOp::create(b, loc, rowBase, constant(perRow)));
    }
    Type i32 = b.getI32Type();
    Value bits = arith::IndexCastUIOp::create(b, loc, i32, address);
    Value field = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, bits,
                               arith::ConstantIntOp::create(b, loc, i32, 4)),
        arith::ConstantIntOp::create(b, loc, i32, 0x3fff));
    low = arith::OrIOp::create(
        b, loc, field,
        arith::ConstantIntOp::create(
            b, loc, i32, static_cast<int32_t>(operand.fields & 0xffffffff)));
    return low;
  }

  OpBuilder &b;
  Location loc;
  GemmOp gemm;
  int64_t instructionN;
  Type elementType;
  int64_t elementBytes, kStep;
  const FragmentRegisters *aRegisters;
  bool transposed;
  DescriptorOperand a, bOperand;
  Value thread, lane, warpIndex, warpGroup;
  /// descriptorLow's results, by tile and row base.
  DenseMap<std::pair<Value, Value>, Value> descriptorLows;
};

} // namespace

LogicalResult tile::lowerGemmToWgmma(OpBuilder &builder, GemmOp gemm,
                                     const FragmentRegisters &c,
                                     const FragmentRegisters *a, Value thread) {
  // The block's warps, or those of the pipeline role the gemm is in (the
  // consumer's, the block's first).
  auto [first, threads] = getRoleThreads(gemm);
  if (first != 0)
    return gemm.emitOpError("wgmma lowering needs its warp groups to be the "
                            "block's first (a pipeline's consumer role)");
  if (failed(gemm.verifyWgmma(threads / kWarpSize)))
    return failure();
  int64_t warps = threads / kWarpSize;
  bool transposed = gemm.isTransposedWgmma();
  LayoutAttr expected =
      transposed ? getTransposedLayout(getMmaAccumulatorLayout(
                       gemm.getContext(), {gemm.getN(), gemm.getM()}, warps, 1))
                 : getMmaAccumulatorLayout(gemm.getContext(),
                                           {gemm.getM(), gemm.getN()}, warps, 1);
  if (c.layout != expected)
    return gemm.emitOpError("wgmma lowering writes C in the ")
           << (transposed ? "transposed accumulator layout (tf32 with B "
                            "stored K x N) with warps [1, "
                          : "accumulator layout with warps [")
           << (transposed ? "" : std::to_string(warps) + ", 1")
           << (transposed ? std::to_string(warps) + "]" : "]") << ", got "
           << c.layout;
  if (a) {
    LayoutAttr aLayout = getMmaAccumulatorLayout(
        gemm.getContext(), {gemm.getM(), gemm.getK()}, warps, 1);
    if (a->layout != aLayout)
      return gemm.emitOpError("wgmma lowering reads a fragment A in the "
                              "accumulator layout of M x K with warps [")
             << warps << ", 1], got " << a->layout;
  }
  SmallVector<Value, 2> descriptorOperands;
  if (!a)
    descriptorOperands.push_back(gemm.getA());
  if (!transposed)
    descriptorOperands.push_back(gemm.getB());
  for (Value operand : descriptorOperands) {
    if (!isDescriptorTile(operand))
      return gemm.emitOpError("wgmma lowering reads its operands through "
                              "descriptors: they must be swizzled "
                              "'tile.alloc_shared' tiles aligned to ")
             << kSwizzleAtomBytes
             << " bytes, or stages of them (run tile-infer-layouts first), "
                "got "
             << operand;
  }
  int64_t panel = gemm.getTransposeB() || transposed
                      ? 0
                      : kSwizzleBytes / (cast<MemRefType>(gemm.getB().getType())
                                             .getElementTypeBitWidth() /
                                         8);
  int64_t width = transposed ? gemm.getM() : gemm.getN();
  std::optional<int64_t> instructionN = chooseInstructionN(width, panel);
  if (!instructionN)
    return gemm.emitOpError("wgmma lowering cannot split ")
           << (transposed ? "M = " : "N = ") << width
           << " into instructions of at most 256 columns that start on a "
              "128-byte panel of B";
  WgmmaEmitter(builder, gemm, *instructionN, a, thread).emit(c);
  return success();
}

Operation *tile::claimWaitAfterLoop(GemmOp gemm) {
  Operation *loop = gemm->getParentOp();
  for (Operation *parent = loop; parent; parent = parent->getParentOp())
    if (isa<SerialOp, scf::ForOp>(parent)) {
      loop = parent;
      break;
    }
  if (loop->hasAttr(kWgmmaWaitedAttr))
    return nullptr;
  loop->setAttr(kWgmmaWaitedAttr, UnitAttr::get(loop->getContext()));
  return loop;
}
