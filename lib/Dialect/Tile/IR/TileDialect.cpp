//===- TileDialect.cpp - The tile dialect ---------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectImplementation.h"
#include "tile/Dialect/Tile/IR/FragmentLayout.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tile/Dialect/Tile/IR/TileEnums.cpp.inc"
#include "tile/Dialect/Tile/IR/TileInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  layoutQueryCache = std::make_unique<LayoutQueryCache>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

/// `tile.role_first` / `tile.role_threads` mark the role of a lowered
/// `tile.warp_specialize` (an scf.if on the linear thread index): collective
/// ops inside are spread over the role's threads and the condition does not
/// count as divergence for them. So they are checked: both present, on an
/// scf.if without else, whose condition is `index < first + threads` (first
/// role) or `index >= first` (last role), inside the block.
LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kSwizzledViewAttr) {
    // A stage view of a swizzled buffer: its accesses are rewritten as
    // those of a swizzled tile, which needs a tile that can be swizzled.
    auto view = dyn_cast<memref::ViewOp>(op);
    if (!view || !isa<UnitAttr>(attribute.getValue()))
      return op->emitOpError("'")
             << name << "' is a unit attribute of a 'memref.view'";
    if (std::optional<std::string> why = whyNotSwizzlable(view.getType()))
      return op->emitOpError("is marked '")
             << name << "' but its type cannot be swizzled: " << *why;
    return success();
  }
  if (name == kDefinedInAttr) {
    auto function = dyn_cast<func::FuncOp>(op);
    auto file = dyn_cast<StringAttr>(attribute.getValue());
    if (!function || !function.isDeclaration() || !file || file.empty())
      return op->emitOpError("'")
             << name << "' names the file that defines a function: a "
             << "non-empty string on a 'func.func' declaration (no body)";
    return success();
  }
  if (name != kRoleFirstAttr && name != kRoleThreadsAttr)
    return success();
  auto fail = [&](const Twine &why) {
    return op->emitOpError("'")
           << name << "' marks a role of a lowered 'tile.warp_specialize': "
           << why;
  };
  auto branch = dyn_cast<scf::IfOp>(op);
  auto first = op->getAttrOfType<IntegerAttr>(kRoleFirstAttr);
  auto threads = op->getAttrOfType<IntegerAttr>(kRoleThreadsAttr);
  if (!branch || branch.elseBlock())
    return fail("it belongs on an scf.if without else");
  if (!first || !threads)
    return fail("'tile.role_first' and 'tile.role_threads' are integers "
                "that come together");
  int64_t start = first.getInt(), count = threads.getInt();
  auto kernel = op->getParentOfType<KernelOp>();
  int64_t total = kernel ? kernel.getNumThreads() : start + count;
  if (start < 0 || count <= 0 || start + count > total)
    return fail("the role's threads must lie inside the block");
  auto compare = branch.getCondition().getDefiningOp<arith::CmpIOp>();
  std::optional<int64_t> bound =
      compare ? getConstantIntValue(compare.getRhs()) : std::nullopt;
  // The thread index, or the warp index (cast from the i32 of a shuffle,
  // which the lowering uses to make it provably warp-uniform, and which the
  // CPU target turns into a call): whole warps.
  int64_t unit = 1;
  if (compare && compare.getLhs().getDefiningOp<arith::IndexCastUIOp>())
    unit = 32;
  bool selects =
      compare && bound &&
      ((start == 0 && compare.getPredicate() == arith::CmpIPredicate::ult &&
        *bound * unit == count) ||
       (start + count == total &&
        compare.getPredicate() == arith::CmpIPredicate::uge &&
        *bound * unit == start));
  if (!selects)
    return fail("its condition must select exactly the role's threads "
                "(index < threads for the first role, index >= first for "
                "the last; or the same in warps of a shuffled warp index)");
  return success();
}
