//===- GemmWgmma.cpp - tile.gemm on Hopper warp-group MMAs ----------------===//
//
// Each warp group (4 warps, 128 threads) computes 64 rows of C with
// `wgmma.mma_async` m64nNk16 (k8 for tf32), reading A and B straight from
// shared memory through 64-bit matrix descriptors:
//
//   fence.proxy.async.shared::cta       shared writes (cp.async, st.shared)
//                                       visible to the async proxy
//   wgmma.fence                         C's registers written before
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
// The accumulator of instruction j (columns [j n, (j+1) n)) of warp w holds
// d[i] at row 16 (w mod 4) + l / 4 + 8 ((i mod 4) / 2), column
// j n + 8 (i / 4) + 2 (l mod 4) + i mod 2: C's registers j n / 2 + i in
// the mma accumulator layout with warps [W, 1] (FragmentLayout.h). They are
// loaded once per tile.gemm and stay in the instruction's struct across the
// K steps, so ptxas sees only wgmmas define them (no serialization).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"

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
/// a swizzled allocation aligned to 1024 bytes, or a stage of one in a
/// rolled pipeline (a marked view; stages start as aligned as the buffer).
static bool isDescriptorTile(Value tile) {
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
/// being written). Triton's wgmma wait does the same.
static SmallVector<Value> waitTied(OpBuilder &b, Location loc, int64_t pending,
                                   ArrayRef<Value> values) {
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

class WgmmaEmitter {
public:
  WgmmaEmitter(OpBuilder &builder, GemmOp gemm, int64_t instructionN,
               Value thread)
      : b(builder), loc(gemm.getLoc()), gemm(gemm), instructionN(instructionN) {
    elementType = cast<MemRefType>(gemm.getA().getType()).getElementType();
    elementBytes = elementType.getIntOrFloatBitWidth() / 8;
    kStep = kStepBytes / elementBytes;
    a = describe(gemm.getA(), /*kMajor=*/!gemm.getTransposeA());
    bOperand = describe(gemm.getB(), /*kMajor=*/gemm.getTransposeB());
    // The warp index made provably warp-uniform (a shuffle from lane 0):
    // descriptors must be uniform (Triton #2633: ptxas miscompiled
    // descriptors it could not prove uniform).
    Type i32 = b.getI32Type();
    Value warp = arith::IndexCastUIOp::create(
        b, loc, i32,
        arith::DivUIOp::create(b, loc, thread, constant(kWarpSize)));
    Value uniform =
        gpu::ShuffleOp::create(b, loc, warp, constantI32(0),
                               constantI32(kWarpSize), gpu::ShuffleMode::IDX)
            .getShuffleResult();
    warpGroup = arith::DivUIOp::create(
        b, loc, arith::IndexCastUIOp::create(b, loc, b.getIndexType(), uniform),
        constant(4));
  }

  void emit(const FragmentRegisters &c) {
    int64_t instructions = gemm.getN() / instructionN;
    int64_t perInstruction = instructionN / 2;
    Type f32 = b.getF32Type();
    auto structType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(perInstruction, f32));

    // Shared writes by the generic proxy (stores, cp.async) become visible
    // to the async proxy that wgmma reads through.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    SmallVector<Value> acc;
    for (int64_t j = 0; j < instructions; ++j) {
      Value value = LLVM::PoisonOp::create(b, loc, structType);
      if (!gemm.getClear()) {
        for (int64_t i = 0; i < perInstruction; ++i) {
          Value reg = memref::LoadOp::create(
              b, loc, c.buffer, c.indices(b, loc, j * perInstruction + i));
          value = LLVM::InsertValueOp::create(b, loc, value, reg, i);
        }
      }
      acc.push_back(value);
    }
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    NVVM::WGMMATypes type = elementType.isF32()    ? NVVM::WGMMATypes::tf32
                            : elementType.isBF16() ? NVVM::WGMMATypes::bf16
                                                   : NVVM::WGMMATypes::f16;
    auto shape = NVVM::MMAShapeAttr::get(b.getContext(), kWarpGroupRows,
                                         instructionN, kStep);
    auto layoutA = NVVM::MMALayoutAttr::get(
        b.getContext(), a.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col);
    auto layoutB = NVVM::MMALayoutAttr::get(
        b.getContext(),
        bOperand.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row);
    auto typeAttr = NVVM::WGMMATypesAttr::get(b.getContext(), type);
    auto f32Type =
        NVVM::WGMMATypesAttr::get(b.getContext(), NVVM::WGMMATypes::f32);
    auto scaleIn =
        NVVM::WGMMAScaleInAttr::get(b.getContext(), NVVM::WGMMAScaleIn::one);
    Value rowBase =
        arith::MulIOp::create(b, loc, warpGroup, constant(kWarpGroupRows));
    for (int64_t k0 = 0; k0 < gemm.getK(); k0 += kStep) {
      auto scaleOut = NVVM::WGMMAScaleOutAttr::get(
          b.getContext(), gemm.getClear() && k0 == 0
                              ? NVVM::WGMMAScaleOut::zero
                              : NVVM::WGMMAScaleOut::one);
      Value descA = descriptor(a, rowBase, /*mn0=*/0, k0);
      for (int64_t j = 0; j < instructions; ++j) {
        Value descB =
            descriptor(bOperand, Value(), /*mn0=*/j * instructionN, k0);
        acc[j] = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, structType, acc[j], descA, descB, shape, typeAttr, typeAttr,
            f32Type, scaleOut, scaleIn, scaleIn, layoutA, layoutB,
            /*satfinite=*/nullptr);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    SmallVector<Value> results;
    for (int64_t j = 0; j < instructions; ++j)
      for (int64_t i = 0; i < perInstruction; ++i)
        results.push_back(LLVM::ExtractValueOp::create(b, loc, acc[j], i));
    if (gemm->hasAttr(kWgmmaInFlightAttr)) {
      // Left in flight (a rolled pipeline releases the stage one iteration
      // late): only the next iteration's MMAs read these registers. Wait
      // for the previous group here, and for all after the loop.
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
      waitAfterLoop(c);
    } else {
      results = waitTied(b, loc, /*pending=*/0, results);
    }
    for (auto [reg, value] : llvm::enumerate(results))
      memref::StoreOp::create(b, loc, value, c.buffer, c.indices(b, loc, reg));
  }

private:
  /// wgmma.wait_group 0 right after the loop around the gemm, through
  /// which C's registers pass.
  void waitAfterLoop(const FragmentRegisters &c) {
    Operation *loop = gemm->getParentOp();
    OpBuilder after(loop->getContext());
    after.setInsertionPointAfter(loop);
    SmallVector<Value> values;
    for (int64_t reg = 0; reg < c.layout.getRegisters(); ++reg)
      values.push_back(memref::LoadOp::create(after, loc, c.buffer,
                                              c.indices(after, loc, reg)));
    for (auto [reg, value] :
         llvm::enumerate(waitTied(after, loc, /*pending=*/0, values)))
      memref::StoreOp::create(after, loc, value, c.buffer,
                              c.indices(after, loc, reg));
  }

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
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
  /// null) plus `mn0`, and K from `k0`.
  Value descriptor(const DescriptorOperand &operand, Value rowBase, int64_t mn0,
                   int64_t k0) {
    // The start, in the unpermuted layout (Swizzle.h): where the hardware
    // starts swizzling. A warp group's rows are whole 64-row blocks:
    // K-major, 64 rows of 128 bytes; MN-major, one 128-byte panel (64
    // 16-bit elements) of R rows.
    int64_t row = operand.kMajor ? mn0 : k0;
    int64_t column = operand.kMajor ? k0 : mn0;
    int64_t offset = getSwizzledLinearOffset(operand.type, row, column);
    Value address = arith::AddIOp::create(
        b, loc,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand.tile),
        constant(offset));
    if (rowBase) {
      int64_t perRow = operand.kMajor ? kSwizzleBytes
                                      : operand.type.getDimSize(0) *
                                            kSwizzleBytes / kWarpGroupRows;
      address = arith::AddIOp::create(
          b, loc, address,
          arith::MulIOp::create(b, loc, rowBase, constant(perRow)));
    }
    Type i64 = b.getI64Type();
    Value bits = arith::IndexCastUIOp::create(b, loc, i64, address);
    Value field = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, bits,
                               arith::ConstantIntOp::create(b, loc, i64, 4)),
        arith::ConstantIntOp::create(b, loc, i64, 0x3fff));
    return arith::OrIOp::create(
        b, loc, field,
        arith::ConstantIntOp::create(b, loc, i64,
                                     static_cast<int64_t>(operand.fields)));
  }

  OpBuilder &b;
  Location loc;
  GemmOp gemm;
  int64_t instructionN;
  Type elementType;
  int64_t elementBytes, kStep;
  DescriptorOperand a, bOperand;
  Value warpGroup;
};

} // namespace

LogicalResult tile::lowerGemmToWgmma(OpBuilder &builder, GemmOp gemm,
                                     const FragmentRegisters &c, Value thread) {
  auto kernel = gemm->getParentOfType<KernelOp>();
  if (failed(gemm.verifyWgmma(kernel.getNumThreads() / kWarpSize)))
    return failure();
  int64_t warps = kernel.getNumThreads() / kWarpSize;
  LayoutAttr expected = getMmaAccumulatorLayout(
      gemm.getContext(), {gemm.getM(), gemm.getN()}, warps, 1);
  if (c.layout != expected)
    return gemm.emitOpError("wgmma lowering writes C in the accumulator "
                            "layout with warps [")
           << warps << ", 1], got " << c.layout;
  for (Value operand : {gemm.getA(), gemm.getB()}) {
    if (!isDescriptorTile(operand))
      return gemm.emitOpError("wgmma lowering reads its operands through "
                              "descriptors: they must be swizzled "
                              "'tile.alloc_shared' tiles aligned to ")
             << kSwizzleAtomBytes
             << " bytes, or stages of them (run tile-infer-layouts first), "
                "got "
             << operand;
  }
  int64_t panel = gemm.getTransposeB()
                      ? 0
                      : kSwizzleBytes / (cast<MemRefType>(gemm.getB().getType())
                                             .getElementTypeBitWidth() /
                                         8);
  std::optional<int64_t> instructionN = chooseInstructionN(gemm.getN(), panel);
  if (!instructionN)
    return gemm.emitOpError("wgmma lowering cannot split N = ")
           << gemm.getN()
           << " into instructions of at most 256 columns that start on a "
              "128-byte panel of B";
  WgmmaEmitter(builder, gemm, *instructionN, thread).emit(c);
  return success();
}
