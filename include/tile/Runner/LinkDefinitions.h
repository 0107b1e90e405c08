//===- LinkDefinitions.h - Functions defined in other files -----*- C++ -*-===//
//
// A reference shared by several kernel files is written once: each file
// declares it,
//
//   func.func private @gemm_reference(memref<?x?xf32>, memref<?x?xf32>,
//       memref<?x?xf32>) attributes {tile.defined_in = "reference.mlir"}
//
// and tile-run links the definition in from that file (relative to the
// declaring file) before it runs anything, as a linker would.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_LINKDEFINITIONS_H
#define TILE_RUNNER_LINKDEFINITIONS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::tile {

/// Replaces every `func.func` declaration of `module` that carries
/// `tile.defined_in` by the function of that name in the named file (a path
/// relative to the directory of `modulePath`), with the functions the
/// definition calls that `module` lacks. Errors (a file that cannot be read
/// or parsed, no such function there, a different signature, a name defined
/// twice) are emitted at the declaration; the files are added to
/// `sourceMgr` so that their diagnostics show their lines.
LogicalResult linkDeclaredDefinitions(ModuleOp module,
                                      llvm::StringRef modulePath,
                                      llvm::SourceMgr &sourceMgr);

} // namespace mlir::tile

#endif // TILE_RUNNER_LINKDEFINITIONS_H
