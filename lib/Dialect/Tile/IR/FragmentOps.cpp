//===- FragmentOps.cpp - Fragments and tile.gemm --------------------------===//
//
// Verifiers of the register-tile ops: `tile.alloc_fragment` and
// `tile.gemm`. Their layouts live in FragmentLayout.cpp, their inference in
// Analysis/LayoutInference.cpp, their lowerings in Transforms/.
//
//===----------------------------------------------------------------------===//

#include "OpSyntax.h"

#include "tile/Dialect/Tile/IR/FragmentLayout.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// AllocFragmentOp
//===----------------------------------------------------------------------===//

LogicalResult AllocFragmentOp::verify() {
  MemRefType type = getResult().getType();
  if (getMemorySpace(type) != MemorySpace::Fragment)
    return emitOpError("result must be in the '#tile.fragment' memory space, "
                       "got ")
           << type;
  if (!type.getLayout().isIdentity())
    return emitOpError("a fragment has an identity layout (its distribution "
                       "over threads is the 'layout' attribute), got ")
           << type;
  if (llvm::any_of(type.getShape(), [](int64_t e) { return e <= 0; }))
    return emitOpError("a fragment needs positive extents, got ") << type;
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    return emitOpError("fragment elements must be integers or floats, got ")
           << element;
  auto kernel = dyn_cast<KernelOp>((*this)->getParentOp());
  if (!kernel)
    return emitOpError("must stand at the top level of a 'tile.kernel' body "
                       "(a fragment lives for the whole kernel in every "
                       "thread's registers)");
  // Registers are addressed by constants: every register is unrolled code.
  int64_t perThread =
      llvm::divideCeil(type.getNumElements(), kernel.getNumThreads());
  if (perThread > kMaxFragmentRegisters)
    return emitOpError("a fragment of ")
           << type.getNumElements() << " elements gives each of the "
           << kernel.getNumThreads() << " threads " << perThread
           << " registers, more than " << kMaxFragmentRegisters
           << ": split the tile";
  if (LayoutAttr layout = getLayoutAttr()) {
    if (layout.getShape() != type.getShape())
      return emitOpError("layout shape [")
             << layout.getShape() << "] differs from the fragment's shape ["
             << type.getShape() << "]";
    // A fragment of a pipeline's consumer role lives in its threads, the
    // block's first.
    if (!isFragmentThreadCount(kernel, layout.getThreads()))
      return emitOpError("layout spreads the fragment over ")
             << layout.getThreads() << " threads but the block has "
             << kernel.getNumThreads() << " (and no pipeline's consumer role "
             << "has " << layout.getThreads() << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

int64_t GemmOp::getM() { return getC().getType().getDimSize(0); }
int64_t GemmOp::getN() { return getC().getType().getDimSize(1); }
int64_t GemmOp::getK() {
  auto a = cast<MemRefType>(getA().getType());
  return a.getDimSize(getTransposeA() ? 0 : 1);
}

/// True for the element types tile.gemm multiplies: (A, B, C).
static bool isSupportedGemmTypes(Type a, Type b, Type c) {
  if (a != b)
    return false;
  if (a.isF16())
    return c.isF32() || c.isF16();
  if (a.isBF16())
    return c.isF32();
  if (a.isF32())
    return c.isF32();
  return false;
}

LogicalResult GemmOp::verify() {
  auto a = cast<MemRefType>(getA().getType());
  auto b = cast<MemRefType>(getB().getType());
  MemRefType c = getC().getType();
  bool fragmentA = getMemorySpace(a) == MemorySpace::Fragment;
  for (auto [name, type] : {std::make_pair("A", a), std::make_pair("B", b)}) {
    if (type.getRank() != 2 || !type.hasStaticShape())
      return emitOpError("operand ")
             << name << " must be a 2-D tile of static shape, got " << type;
    bool isA = StringRef(name) == "A";
    if (getMemorySpace(type) != MemorySpace::Shared && !(isA && fragmentA))
      return emitOpError("operand ")
             << name
             << " must be in shared memory (#gpu.address_space<workgroup>)"
             << (isA ? " or a fragment" : "") << ", got " << type;
  }
  if (fragmentA) {
    if (getTransposeA())
      return emitOpError("a fragment A operand is held as M x K: "
                         "'transpose_a' does not apply to it");
    if (!a.getElementType().isF16() && !a.getElementType().isBF16())
      return emitOpError("a fragment A operand must hold f16 or bf16 (the "
                         "mma.sync m16n8k16 operand registers), got ")
             << a.getElementType();
  }
  if (c.getRank() != 2 || getMemorySpace(c) != MemorySpace::Fragment)
    return emitOpError("operand C (the accumulator) must be a 2-D fragment "
                       "('#tile.fragment' memory space), got ")
           << c;
  int64_t m = c.getDimSize(0), n = c.getDimSize(1);
  int64_t aM = a.getDimSize(getTransposeA() ? 1 : 0);
  int64_t aK = a.getDimSize(getTransposeA() ? 0 : 1);
  int64_t bK = b.getDimSize(getTransposeB() ? 1 : 0);
  int64_t bN = b.getDimSize(getTransposeB() ? 0 : 1);
  if (m <= 0 || n <= 0 || aK <= 0)
    return emitOpError("M, N and K must be positive, got ")
           << m << ", " << n << " and " << aK;
  if (aM != m || bN != n || aK != bK)
    return emitOpError("shapes do not multiply: A is ")
           << aM << "x" << aK << (getTransposeA() ? " (transposed)" : "")
           << ", B is " << bK << "x" << bN
           << (getTransposeB() ? " (transposed)" : "") << ", C is " << m << "x"
           << n << "; A must be MxK, B KxN and C MxN";
  if (!isSupportedGemmTypes(a.getElementType(), b.getElementType(),
                            c.getElementType()))
    return emitOpError("unsupported element types ")
           << a.getElementType() << " x " << b.getElementType() << " -> "
           << c.getElementType()
           << ": supported are f16 x f16 -> f32 or f16, bf16 x bf16 -> f32 "
              "and f32 x f32 -> f32 (tf32)";
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return success();
  // The threads of the block, or of the pipeline role the gemm is in.
  int64_t threads = getRoleThreads(*this).second;
  if (threads % kWarpSize != 0)
    return emitOpError("needs whole warps: the block has ")
           << threads << " threads";
  if (std::optional<ArrayRef<int64_t>> warps = getWarps()) {
    if (warps->size() != 2 || (*warps)[0] <= 0 || (*warps)[1] <= 0)
      return emitOpError("'warps' must be two positive extents [Wm, Wn]");
    if ((*warps)[0] * (*warps)[1] * kWarpSize != threads)
      return emitOpError("warps [")
             << (*warps)[0] << ", " << (*warps)[1] << "] hold "
             << (*warps)[0] * (*warps)[1] * kWarpSize
             << " threads but the block has " << threads;
    if (fragmentA && (*warps)[1] != 1)
      return emitOpError("a fragment A operand needs the warps to split M "
                         "only (warps [W, 1]): each warp holds whole rows of "
                         "A; got warps [")
             << (*warps)[0] << ", " << (*warps)[1] << "]";
    if (m % ((*warps)[0] * kMmaTileRows) != 0 ||
        n % ((*warps)[1] * kMmaTileCols) != 0)
      return emitOpError("warps [")
             << (*warps)[0] << ", " << (*warps)[1] << "] split the " << m << "x"
             << n
             << " accumulator into tiles that are not whole 16x8 "
                "tensor-core tiles";
  }
  if (getLowering() == GemmLowering::mma_sync) {
    int64_t kStep = a.getElementType().isF32() ? 8 : 16;
    if (aK % kStep != 0)
      return emitOpError("mma_sync lowering needs K to be a multiple of ")
             << kStep << ", got " << aK;
  }
  if (getLowering() == GemmLowering::wgmma)
    return verifyWgmma(threads / kWarpSize);
  return success();
}

bool GemmOp::isTF32() {
  return cast<MemRefType>(getA().getType()).getElementType().isF32();
}

bool GemmOp::isTransposedWgmma() { return isTF32() && !getTransposeB(); }

/// The shapes wgmma.mma_async takes: 64 rows per warp group, N a multiple
/// of 8 (at most 256 per instruction: wider tiles take several), K steps
/// of 32 bytes, and operands in whole 128-byte swizzle lines.

LogicalResult GemmOp::verifyWgmma(int64_t warps) {
  auto a = cast<MemRefType>(getA().getType());
  auto b = cast<MemRefType>(getB().getType());
  Type element = a.getElementType();
  if (!getC().getType().getElementType().isF32())
    return emitOpError("wgmma lowering accumulates in f32, got ")
           << getC().getType().getElementType()
           << " (f16 accumulation: lowering = #tile.gemm_lowering<mma_sync>)";
  int64_t m = getM(), n = getN(), k = getK();
  if (warps % 4 != 0)
    return emitOpError("wgmma lowering runs on whole warp groups (4 warps): "
                       "the block has ")
           << warps << " warps";
  if (element.isF32() && getTransposeA())
    return emitOpError("wgmma lowering reads tf32 operands K-major only: A "
                       "must be stored M x K (no 'transpose_a')");
  // A transposed product (tf32, B stored K x N) splits N instead of M.
  bool transposed = isTransposedWgmma();
  StringRef split = transposed ? "N" : "M";
  int64_t splitSize = transposed ? n : m, other = transposed ? m : n;
  std::optional<ArrayRef<int64_t>> given = getWarps();
  if (given && (*given)[transposed ? 0 : 1] != 1)
    return emitOpError("wgmma lowering splits the warps along ")
           << split << " only (warps " << (transposed ? "[1, W]" : "[W, 1]")
           << (transposed ? ": tf32 with B stored K x N" : "")
           << "); got warps [" << (*given)[0] << ", " << (*given)[1] << "]";
  if (splitSize != 16 * warps)
    return emitOpError("wgmma lowering gives each warp group 64 ")
           << (transposed ? "columns" : "rows") << " of C"
           << (transposed ? " (tf32 with B stored K x N is computed as "
                            "C^T = B^T A^T)"
                          : "")
           << ": " << split << " must be 16 x " << warps
           << " warps = " << 16 * warps << ", got " << splitSize;
  if (other % 8 != 0)
    return emitOpError("wgmma lowering needs ")
           << (transposed ? "M" : "N") << " to be a multiple of 8, got "
           << other;
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t kStep = 32 / bytes;
  if (k % kStep != 0)
    return emitOpError("wgmma lowering needs K to be a multiple of ")
           << kStep << " for " << element << ", got " << k;
  for (auto [name, type] : {std::make_pair("A", a), std::make_pair("B", b)}) {
    // A fragment A operand is read from registers.
    if (getMemorySpace(type) == MemorySpace::Fragment)
      continue;
    int64_t rowBytes = type.getDimSize(1) * bytes;
    if (rowBytes % 128 != 0)
      return emitOpError("wgmma lowering reads operand ")
             << name << " in 128-byte swizzled lines: its rows of " << rowBytes
             << " bytes (" << type << ") must be a multiple of 128 bytes";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// tile.for_each_owned
//===----------------------------------------------------------------------===//

/// `tile.for_each_owned %frag (%r, %i, %j) : type { body } attr-dict`
ParseResult ForEachOwnedOp::parse(OpAsmParser &parser,
                                  OperationState &result) {
  OpAsmParser::UnresolvedOperand fragment;
  SmallVector<OpAsmParser::Argument> arguments;
  Type type;
  if (parser.parseOperand(fragment) ||
      parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(fragment, type, result.operands))
    return failure();
  for (OpAsmParser::Argument &argument : arguments)
    argument.type = parser.getBuilder().getIndexType();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, arguments))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), result.location);
  return detail::parseCheckedAttrDict(parser, result);
}

void ForEachOwnedOp::print(OpAsmPrinter &p) {
  p << ' ' << getFragment() << " (";
  llvm::interleaveComma(getBody().getArguments(), p,
                        [&](BlockArgument argument) { p << argument; });
  p << ") : " << getFragment().getType() << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
  p.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult ForEachOwnedOp::verify() {
  auto type = cast<MemRefType>(getFragment().getType());
  if (getMemorySpace(type) != MemorySpace::Fragment)
    return emitOpError("iterates over a fragment ('#tile.fragment' memory "
                       "space), got ")
           << type;
  Block &body = getBody().front();
  if (body.getNumArguments() != static_cast<unsigned>(type.getRank()) + 1)
    return emitOpError("takes the register number and one coordinate per "
                       "dimension of the fragment: ")
           << type.getRank() + 1 << " block arguments, got "
           << body.getNumArguments();
  if (llvm::any_of(body.getArgumentTypes(),
                   [](Type t) { return !t.isIndex(); }))
    return emitOpError("block arguments must be of type 'index'");
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> ReduceOp::getReducedShape(ArrayRef<int64_t> shape,
                                               int64_t dim) {
  SmallVector<int64_t> reduced;
  for (auto [i, extent] : llvm::enumerate(shape))
    if (static_cast<int64_t>(i) != dim)
      reduced.push_back(extent);
  if (reduced.empty())
    reduced.push_back(1);
  return reduced;
}

LogicalResult ReduceOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (getMemorySpace(source) != MemorySpace::Fragment)
    return emitOpError("reduces a fragment ('#tile.fragment' memory space); "
                       "copy a shared or global tile into one first, got ")
           << source;
  if (getMemorySpace(target) != MemorySpace::Fragment)
    return emitOpError("writes its result to a fragment ('#tile.fragment' "
                       "memory space), got ")
           << target;
  int64_t dim = getDim();
  if (dim < 0 || dim >= source.getRank())
    return emitOpError("reduces dimension ")
           << dim << ", but the source " << source << " has "
           << source.getRank() << " dimension"
           << (source.getRank() == 1 ? "" : "s");
  SmallVector<int64_t> expected = getReducedShape(source.getShape(), dim);
  if (target.getShape() != ArrayRef<int64_t>(expected)) {
    InFlightDiagnostic diag = emitOpError("target shape [");
    llvm::interleaveComma(target.getShape(), diag);
    diag << "] is not the source's shape without dimension " << dim << " ([";
    llvm::interleaveComma(expected, diag);
    return diag << "])";
  }
  Type element = source.getElementType();
  if (target.getElementType() != element)
    return emitOpError("source and target element types differ: ")
           << element << " and " << target.getElementType();
  bool isBitwise = getKind() == ReduceKind::and_ ||
                   getKind() == ReduceKind::or_ ||
                   getKind() == ReduceKind::xor_;
  if (isBitwise && !isa<IntegerType>(element))
    return emitOpError("'") << stringifyReduceKind(getKind())
                            << "' reduction needs integers, got " << element;
  if (!isa<FloatType, IntegerType>(element) ||
      element.getIntOrFloatBitWidth() > 32 ||
      element.getIntOrFloatBitWidth() < 16)
    return emitOpError("reduces f16, bf16, f32, i16 or i32 elements, got ")
           << element;
  return success();
}

LogicalResult WgmmaWaitOp::verify() {
  // Signed: the attribute is an i64, whose getter is unsigned.
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0 || pending > 7)
    return emitOpError("pending must be between 0 and 7 (wgmma.wait_group), "
                       "got ")
           << pending;
  for (Value fragment : getFragments())
    if (getMemorySpace(cast<MemRefType>(fragment.getType())) !=
        MemorySpace::Fragment)
      return emitOpError("ties only fragments (the accumulators of the "
                         "gemms it waits for), got ")
             << fragment.getType();
  return success();
}
