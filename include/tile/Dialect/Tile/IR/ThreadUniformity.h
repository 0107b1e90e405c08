//===- ThreadUniformity.h - Which values differ between threads -*- C++ -*-===//
//
// A forward dataflow analysis over a kernel: a value is thread-dependent when
// two threads of one block may see different values for it. The kernel
// verifier uses it to keep collective ops out of divergent control flow, and
// barrier insertion uses it to place barriers only where every thread is.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_THREADUNIFORMITY_H
#define TILE_DIALECT_TILE_IR_THREADUNIFORMITY_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {

class ThreadUniformity {
public:
  /// Analyzes every op nested in `root` (normally a `tile.kernel`).
  explicit ThreadUniformity(Operation *root);

  /// Returns true when threads of one block may see different values.
  bool isThreadDependent(Value value) const {
    return dependent.contains(value);
  }

  /// Returns the closest op that encloses `op` (below `scope`) and whose
  /// control flow depends on the thread, i.e. may be entered by some threads
  /// of the block and not by others; null when there is none.
  /// `tile.warp_specialize` bounds the walk: its regions run on all threads
  /// of a role, which is the scope of collectives inside them.
  Operation *getDivergentAncestor(Operation *op, Operation *scope) const;

  /// Returns true when the regions of `holder` may be entered, or iterated,
  /// by some threads of the block and not by others.
  bool isDivergentRegionHolder(Operation *holder) const;

private:
  bool anyDependent(ValueRange values) const;
  /// Marks `value` dependent; returns true when that is new.
  bool mark(Value value) { return dependent.insert(value).second; }
  /// Propagates one step through `op`; returns true when anything changed.
  bool visit(Operation *op);

  llvm::DenseSet<Value> dependent;
};

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_THREADUNIFORMITY_H
