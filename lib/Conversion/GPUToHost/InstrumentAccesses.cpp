//===- InstrumentAccesses.cpp - Bounds checks and race reports ------------===//
//
// Step 1 of the CPU target's lowering (HostLowering.h): asynchronous copies
// become copies done when issued, then every memref access is checked
// against its memref's sizes (an out-of-bounds access is reported instead
// of done) and, in race-check mode, every workgroup-memory access is
// reported to the race detector. Runs while memref types still say which
// memory is shared.
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Runtime/CPURuntimeABI.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::host;
using namespace ::tile::cpu::entry;
using ::tile::cpu::AccessKind;
using ::tile::cpu::kOutOfBoundsIndices;

namespace {

/// One memref access to check: the memref, its indices, how many elements
/// along the innermost dimension, and what it does.
struct Access {
  Operation *op;
  Value memref;
  SmallVector<Value> indices;
  /// The vector's shape, covering the innermost dimensions; empty for one
  /// element.
  SmallVector<int64_t> vectorShape;
  AccessKind kind = AccessKind::Read;

  /// How many elements the access covers along dimension `dim`.
  int64_t getExtent(size_t dim) const {
    size_t leading = indices.size() - vectorShape.size();
    return dim < leading ? 1 : vectorShape[dim - leading];
  }
  int64_t getNumElements() const {
    int64_t count = 1;
    for (int64_t extent : vectorShape)
      count *= extent;
    return count;
  }
};

} // namespace

/// An asynchronous copy becomes a copy done when issued: a valid execution
/// of cp.async, whose completion is only promised by the later wait. Element
/// `k` of the innermost dimension is read when `k < srcElements`, else 0.
LogicalResult host::lowerAsyncCopies(gpu::GPUFuncOp func) {
  OpBuilder builder(func.getContext());
  SmallVector<Operation *> tokenOps;
  SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
  func.walk([&](Operation *op) {
    if (isa<nvgpu::DeviceAsyncWaitOp, nvgpu::DeviceAsyncCreateGroupOp>(op))
      tokenOps.push_back(op);
    else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      copies.push_back(copy);
  });
  for (Operation *op : llvm::reverse(tokenOps))
    op->erase();
  for (nvgpu::DeviceAsyncCopyOp copy : copies) {
    for (Operation *user : copy.getAsyncToken().getUsers())
      return user->emitOpError("uses an asynchronous copy token in a way the "
                               "CPU target does not support");
    Location loc = copy.getLoc();
    builder.setInsertionPoint(copy);
    int64_t count = copy.getDstElements().getSExtValue();
    Type elementType = copy.getSrc().getType().getElementType();
    SmallVector<Value> srcIndices(copy.getSrcIndices());
    SmallVector<Value> dstIndices(copy.getDstIndices());
    if (!copy.getSrcElements()) {
      auto vectorType = VectorType::get({count}, elementType);
      Value value = vector::LoadOp::create(builder, loc, vectorType,
                                           copy.getSrc(), srcIndices);
      vector::StoreOp::create(builder, loc, value, copy.getDst(), dstIndices);
      copy.erase();
      continue;
    }
    Value zero = arith::ConstantOp::create(builder, loc,
                                           builder.getZeroAttr(elementType));
    for (int64_t k = 0; k < count; ++k) {
      Value offset = arith::ConstantIndexOp::create(builder, loc, k);
      SmallVector<Value> src = srcIndices, dst = dstIndices;
      src.back() = arith::AddIOp::create(builder, loc, src.back(), offset);
      dst.back() = arith::AddIOp::create(builder, loc, dst.back(), offset);
      Value inside =
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, offset,
                                copy.getSrcElements());
      auto ifOp = scf::IfOp::create(
          builder, loc, inside,
          [&](OpBuilder &b, Location l) {
            Value v = memref::LoadOp::create(b, l, copy.getSrc(), src);
            scf::YieldOp::create(b, l, v);
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, zero); });
      memref::StoreOp::create(builder, loc, ifOp.getResult(0), copy.getDst(),
                              dst);
    }
    copy.erase();
  }
  return success();
}

/// Whether `value`, or a memref derived from it through view-like ops,
/// leaves the block that defines it (a yield or another terminator).
static bool escapesBlock(Value value) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (OpOperand &use : current.getUses()) {
      Operation *user = use.getOwner();
      if (user->hasTrait<OpTrait::IsTerminator>())
        return true;
      if (isa<ViewLikeOpInterface>(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  return false;
}

/// A `memref.view` whose bytes (shift plus the view's size) leave its source
/// is reported as an out-of-bounds access at the view (found by
/// scripts/fuzz.py: a view past the end of the shared arena corrupted the
/// heap). The accesses through it are checked against the view's own shape,
/// so the view is made to fit: a view that starts too late gets shift 0, and
/// one larger than its whole source views a private buffer of its size
/// instead, freed at the end of the view's block (kept when the view leaves
/// its block).
void host::instrumentViews(gpu::GPUFuncOp func, SiteTable &sites) {
  OpBuilder builder(func.getContext());
  SmallVector<memref::ViewOp> views;
  func.walk([&](memref::ViewOp view) { views.push_back(view); });
  for (memref::ViewOp view : views) {
    Location loc = view.getLoc();
    builder.setInsertionPoint(view);
    MemRefType type = view.getType();
    Value viewBytes = arith::ConstantIndexOp::create(
        builder, loc, getBufferElementBytes(type.getElementType()));
    unsigned dynamicIndex = 0;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      Value extent = type.isDynamicDim(dim)
                         ? view.getSizes()[dynamicIndex++]
                         : arith::ConstantIndexOp::create(builder, loc,
                                                          type.getDimSize(dim))
                               .getResult();
      viewBytes = arith::MulIOp::create(builder, loc, viewBytes, extent);
    }
    Value sourceBytes =
        memref::DimOp::create(builder, loc, view.getSource(), 0);
    Value shift = view.getByteShift();
    // shift <= sourceBytes - viewBytes, unsigned, and viewBytes <= sourceBytes.
    Value room = arith::SubIOp::create(builder, loc, sourceBytes, viewBytes);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value inside = arith::AndIOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, room,
                              zero),
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule, shift,
                              room));
    std::string typeText;
    llvm::raw_string_ostream(typeText)
        << type << " of " << view.getSource().getType()
        << " (its bytes leave the source)";
    int32_t site = sites.getId(view, typeText);
    Value outside = arith::XOrIOp::create(
        builder, loc, inside,
        arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 1));
    auto ifOp = scf::IfOp::create(builder, loc, outside, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      SmallVector<Value> reported = {createI32(builder, loc, site),
                                     createI32(builder, loc, 1)};
      reported.push_back(arith::IndexCastOp::create(
          builder, loc, builder.getI64Type(), shift));
      for (unsigned i = 1; i < kOutOfBoundsIndices; ++i)
        reported.push_back(arith::ConstantIntOp::create(
            builder, loc, builder.getI64Type(), 0));
      callRuntime(builder, loc, kOutOfBounds, {}, reported);
    }
    view.getByteShiftMutable().assign(
        arith::SelectOp::create(builder, loc, inside, shift, zero));

    // A view larger than its whole source: a private buffer of the view's
    // size, allocated and freed only then (never where static sizes fit).
    Value source = view.getSource();
    auto sourceType = cast<MemRefType>(source.getType());
    if (sourceType.hasStaticShape() && type.hasStaticShape() &&
        type.getNumElements() * getBufferElementBytes(type.getElementType()) <=
            sourceType.getNumElements())
      continue;
    auto dynamicType = MemRefType::get(
        {ShapedType::kDynamic}, sourceType.getElementType(),
        MemRefLayoutAttrInterface(), sourceType.getMemorySpace());
    Value tooLarge = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::slt, room, zero);
    auto choice = scf::IfOp::create(
        builder, loc, tooLarge,
        [&](OpBuilder &b, Location l) {
          // Aligned as the shared arena is, for vector accesses.
          Value buffer =
              memref::AllocOp::create(b, l, dynamicType, ValueRange{viewBytes},
                                      b.getI64IntegerAttr(16));
          scf::YieldOp::create(b, l, buffer);
        },
        [&](OpBuilder &b, Location l) {
          Value cast = source;
          if (sourceType != dynamicType)
            cast = memref::CastOp::create(b, l, dynamicType, source);
          scf::YieldOp::create(b, l, cast);
        });
    Value base = choice.getResult(0);
    view.getSourceMutable().assign(base);

    // Freed before the terminator of the view's block. A view that leaves
    // its block (yielded) keeps its buffer: the buffer is not visible
    // where the view's last use is, and the run already fails with the
    // report.
    Block *block = view->getBlock();
    if (block->mightHaveTerminator() && !escapesBlock(view.getResult())) {
      builder.setInsertionPoint(block->getTerminator());
      auto freeIf = scf::IfOp::create(builder, loc, tooLarge,
                                      /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(freeIf.thenYield());
      memref::DeallocOp::create(builder, loc, base);
    }
  }
}

/// Whether every index of `access` is a constant inside the memref.
static bool isStaticallyInBounds(const Access &access, MemRefType type) {
  for (auto [dim, index] : llvm::enumerate(access.indices)) {
    APInt value;
    if (type.isDynamicDim(dim) || !matchPattern(index, m_ConstantInt(&value)))
      return false;
    int64_t extent = access.getExtent(dim);
    if (value.getSExtValue() < 0 ||
        value.getSExtValue() + extent > type.getDimSize(dim))
      return false;
  }
  return true;
}

/// Guards the access with a bounds check (the out-of-bounds branch reports
/// it and yields 0) and, for workgroup memory in race-check mode, reports
/// the bytes it touches first.
static void instrument(OpBuilder &builder, const Access &access,
                       SiteTable &sites, bool raceCheck) {
  Operation *op = access.op;
  auto type = cast<MemRefType>(access.memref.getType());
  bool shared = raceCheck && isSharedMemory(access.memref);
  bool checked = !isStaticallyInBounds(access, type);
  if (!shared && !checked)
    return;
  Location loc = op->getLoc();
  std::string typeText;
  llvm::raw_string_ostream(typeText) << "on " << type;
  int32_t site = sites.getId(op, typeText);
  builder.setInsertionPoint(op);

  // Reports the access to the race detector at the insertion point.
  auto report = [&]() {
    if (!shared)
      return;
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, access.memref);
    Value linear = metadata.getOffset();
    for (auto [index, stride] :
         llvm::zip(access.indices, metadata.getStrides()))
      linear = arith::AddIOp::create(
          builder, loc, linear,
          arith::MulIOp::create(builder, loc, index, stride));
    int64_t elementBytes = getBufferElementBytes(type.getElementType());
    Value bytes = arith::MulIOp::create(
        builder, loc, linear,
        arith::ConstantIndexOp::create(builder, loc, elementBytes));
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc,
                                                                access.memref);
    Value address = arith::IndexCastOp::create(
        builder, loc, builder.getI64Type(),
        arith::AddIOp::create(builder, loc, base, bytes));
    Value size =
        arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                     elementBytes * access.getNumElements());
    callRuntime(builder, loc, kSharedAccess, {},
                {address, size, createI32(builder, loc, site),
                 createI32(builder, loc, static_cast<int32_t>(access.kind))});
  };

  // Writes are reported once done: the runtime reads what they wrote.
  bool reportAfter = access.kind == AccessKind::Write;
  if (!checked) {
    if (reportAfter)
      builder.setInsertionPointAfter(op);
    report();
    return;
  }

  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value inside;
  for (auto [dim, index] : llvm::enumerate(access.indices)) {
    Value extent =
        type.isDynamicDim(dim)
            ? memref::DimOp::create(builder, loc, access.memref, dim)
                  .getResult()
            : arith::ConstantIndexOp::create(builder, loc, type.getDimSize(dim))
                  .getResult();
    Value fits;
    if (int64_t span = access.getExtent(dim); span > 1) {
      // index <= extent - span, unsigned, and span <= extent.
      Value last = arith::SubIOp::create(
          builder, loc, extent,
          arith::ConstantIndexOp::create(builder, loc, span));
      Value enough = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::sge, last, zero);
      fits = arith::AndIOp::create(
          builder, loc, enough,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule, index,
                                last));
    } else {
      fits = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                   index, extent);
    }
    inside = inside
                 ? arith::AndIOp::create(builder, loc, inside, fits).getResult()
                 : fits;
  }

  auto ifOp = scf::IfOp::create(builder, loc, op->getResultTypes(), inside,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  auto setInsertionPointToBlockEnd = [&](Block *block) {
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      builder.setInsertionPoint(&block->back());
    else
      builder.setInsertionPointToEnd(block);
  };
  Block *thenBlock = &ifOp.getThenRegion().front();
  setInsertionPointToBlockEnd(thenBlock);
  op->moveBefore(builder.getInsertionBlock(), builder.getInsertionPoint());
  builder.setInsertionPoint(reportAfter ? op->getNextNode() : op);
  report();
  if (op->getNumResults()) {
    builder.setInsertionPointToEnd(thenBlock);
    scf::YieldOp::create(builder, loc, op->getResults());
  }

  Block *elseBlock = &ifOp.getElseRegion().front();
  setInsertionPointToBlockEnd(elseBlock);
  SmallVector<Value> reported = {
      createI32(builder, loc, site),
      createI32(builder, loc, static_cast<int64_t>(access.indices.size()))};
  for (unsigned i = 0; i < kOutOfBoundsIndices; ++i)
    reported.push_back(
        i < access.indices.size()
            ? arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                         access.indices[i])
                  .getResult()
            : arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                           0)
                  .getResult());
  callRuntime(builder, loc, kOutOfBounds, {}, reported);
  if (op->getNumResults()) {
    SmallVector<Value> zeros;
    for (Type resultType : op->getResultTypes())
      zeros.push_back(arith::ConstantOp::create(
          builder, loc, cast<TypedAttr>(builder.getZeroAttr(resultType))));
    scf::YieldOp::create(builder, loc, zeros);
  }
  for (auto [oldResult, newResult] :
       llvm::zip(op->getResults(), ifOp.getResults()))
    oldResult.replaceAllUsesExcept(newResult, ifOp.thenYield());
}

void host::instrumentAccesses(gpu::GPUFuncOp func, SiteTable &sites,
                              bool raceCheck) {
  OpBuilder builder(func.getContext());
  SmallVector<Access> accesses;
  func.walk([&](Operation *op) {
    Access access{op, Value(), {}, {}, AccessKind::Read};
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      access.memref = load.getMemRef();
      access.indices.assign(load.getIndices().begin(), load.getIndices().end());
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      access.memref = store.getMemRef();
      access.indices.assign(store.getIndices().begin(),
                            store.getIndices().end());
      access.kind = AccessKind::Write;
    } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
      access.memref = load.getBase();
      access.indices.assign(load.getIndices().begin(), load.getIndices().end());
      access.vectorShape.assign(load.getVectorType().getShape().begin(),
                                load.getVectorType().getShape().end());
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      access.memref = store.getBase();
      access.indices.assign(store.getIndices().begin(),
                            store.getIndices().end());
      access.vectorShape.assign(store.getVectorType().getShape().begin(),
                                store.getVectorType().getShape().end());
      access.kind = AccessKind::Write;
    } else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
      access.memref = atomic.getMemref();
      access.indices.assign(atomic.getIndices().begin(),
                            atomic.getIndices().end());
      access.kind = AccessKind::Atomic;
    } else if (auto atomic = dyn_cast<memref::GenericAtomicRMWOp>(op)) {
      access.memref = atomic.getMemref();
      access.indices.assign(atomic.getIndices().begin(),
                            atomic.getIndices().end());
      access.kind = AccessKind::Atomic;
    } else {
      return;
    }
    // A memref of vectors holds whole vectors; the vector must fit the
    // dimensions it spans.
    auto memrefType = cast<MemRefType>(access.memref.getType());
    if (isa<VectorType>(memrefType.getElementType()) ||
        access.vectorShape.size() > access.indices.size())
      access.vectorShape.clear();
    accesses.push_back(std::move(access));
  });
  for (const Access &access : accesses)
    instrument(builder, access, sites, raceCheck);
}
