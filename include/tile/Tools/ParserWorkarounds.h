//===- ParserWorkarounds.h - Inputs that crash MLIR 22.1's parser -*- C++
//-*-===//
//
// The packaged MLIR 22.1 parser crashes on some malformed input instead of
// reporting it (found by scripts/fuzz.py). Our tools check the source for
// those inputs first and report them as errors, until the packaged MLIR
// has the upstream fix.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_PARSERWORKAROUNDS_H
#define TILE_TOOLS_PARSERWORKAROUNDS_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::tile {

/// Reports (on llvm::errs, as `FILE:LINE:COL: error: ...`) the first input
/// of `buffer` known to crash MLIR 22.1's parser and fails; succeeds when
/// there is none:
/// - a dense array of `index` (`array<index: 1, 2>`): the parser asks a
///   bit width of `index` (llvm-project PR 179075).
LogicalResult rejectParserCrashInputs(const llvm::MemoryBuffer &buffer);

} // namespace mlir::tile

#endif // TILE_TOOLS_PARSERWORKAROUNDS_H
